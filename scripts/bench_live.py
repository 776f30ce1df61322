#!/usr/bin/env python
"""Live-table benchmark: frames per second and how soon a laid card becomes an event.

Uses a simulated 1280x720 hand (``tableref simulate``; cached in ``--work``):

1. **Throughput** -- every frame through recogniser + tracker + session as fast as
   possible (the camera loop's work per frame, annotation and JPEG included):
   ms per frame (median, p95) and frames per second.
2. **Latency** -- the same video played in real time (``TableSession`` with
   ``realtime=True``: the source paces the file at its frame rate and the
   session always takes the newest frame, dropping what it cannot keep up
   with). For every change in the video that puts cards on the table, the
   latency is the wall time from the moment the new cards lie still with no hand
   over them (``truth.json`` ``changes[i].t_still``) to the event that reports
   them.

    python scripts/bench_live.py                    # Desmoche seed 500
    python scripts/bench_live.py --game marriage --seed 501
    python scripts/bench_live.py --video clip.mp4 --truth truth.json
    python scripts/bench_live.py --watch-rate --image FRAME.jpg   # 3. below, on a real frame and the demo

3. **Analysed frames/s as ``tableref watch`` runs** (``--watch-rate``): the table session's own
   camera thread on a folder of 30 copies of a real full-table frame
   (``--image``, e.g. the real-table data's ``fanned-deal-1280x720.jpg``), on 30 copies that each
   carry their own noise (``--noise``: a still camera's frames are never exactly alike, and the
   session keeps the readings of indices whose picture did not change), and on the demo clip,
   read as fast as it can (start-up excluded: from the first analysed frame to the last).

Run it on a quiet machine (the load average is printed beside the numbers).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import queue
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

EVENT_TYPES = {"meld_laid", "card_added", "card_moved", "card_taken", "card_loose", "autowin", "winner",
               "hand_laid_down", "maal_counted", "tiplu"}


def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = min(len(xs) - 1, max(0, int(round(q / 100 * (len(xs) - 1)))))
    return xs[k]


def throughput(video: str, game: str, players: list[str], limit: int | None) -> dict:
    import cv2

    from tableref.live.session import TableSession

    s = TableSession(source=video, game=game, players=players, realtime=False, loop=False)
    rec = s._get_recognizer()
    cap = cv2.VideoCapture(video)
    frames = []
    while True:
        ok, img = cap.read()
        if not ok:
            break
        frames.append(img)
        if limit and len(frames) >= limit:
            break
    cap.release()
    # warm-up
    rec.observe(frames[0], 0.0)
    times = []
    fps_video = 6.0
    c0 = time.process_time()
    for i, img in enumerate(frames):
        t0 = time.perf_counter()
        obs = rec.observe(img, t=i / fps_video)
        tracker = s._ensure_tracker((img.shape[1], img.shape[0]))
        table = tracker.update(obs)
        if table is not None and table.changed:
            s.feed_table(table)
        s._annotate(img, obs, tracker)
        times.append((time.perf_counter() - t0) * 1000)
    cpu = (time.process_time() - c0) * 1000 / max(len(times), 1)
    return {"frames": len(times), "size": f"{frames[0].shape[1]}x{frames[0].shape[0]}", "cpu_ms": round(cpu, 1),
            "ms_median": round(statistics.median(times), 1), "ms_p95": round(pct(times, 95), 1),
            "ms_max": round(max(times), 1), "fps": round(1000 / statistics.mean(times), 2)}


def watch_rate(source: str, game: str, players: list[str], frames: int | None = None) -> dict:
    """Analysed frames/s of the session's camera thread on ``source`` read as fast as it goes, as
    ``tableref watch`` runs it (recogniser, tracker, events, annotated JPEG)."""
    from tableref.live.session import TableSession

    s = TableSession(source=source, game=game, players=players, realtime=False, loop=False)
    s._get_recognizer()                    # the model is loaded before the clock starts
    c0 = time.process_time()
    s.start()
    first = last = None
    seen = 0
    while s.running:
        n = s.frames_analysed
        if n != seen:
            now = time.monotonic()
            if first is None:
                first, n_first = now, n
            last, seen = now, n
            if frames and n >= frames:
                break
        time.sleep(0.002)
    s.stop()
    cpu = time.process_time() - c0
    n = s.frames_analysed
    span = (last - first) if first is not None and last is not None else 0.0
    rate = (seen - n_first) / span if span > 0 else float("nan")
    return {"frames": n, "fps": round(rate, 2), "cpu_ms_per_frame": round(1000 * cpu / max(n, 1), 1),
            "ms_per_frame_ewma": round(s.ms_per_frame, 1)}


def real_frame_folder(image: str, copies: int, noise: float = 0.0) -> str:
    """A folder of ``copies`` copies of ``image``; with ``noise``, each copy gets its own sensor-like
    noise (Gaussian, that many grey levels) and is saved again as a JPEG, as a still camera's frames
    differ from one another."""
    import shutil
    import tempfile

    import cv2
    import numpy as np

    d = Path(tempfile.mkdtemp(prefix="tableref-watch-"))
    if noise <= 0:
        for i in range(copies):
            shutil.copy(image, d / f"frame{i:04d}{Path(image).suffix}")
        return str(d)
    img = cv2.imread(image, cv2.IMREAD_COLOR)
    rng = np.random.default_rng(0)
    for i in range(copies):
        frame = np.clip(img + rng.normal(0.0, noise, img.shape), 0, 255).astype(np.uint8)
        cv2.imwrite(str(d / f"frame{i:04d}.jpg"), frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return str(d)


def latency(video: str, game: str, players: list[str], truth: dict) -> dict:
    from tableref.live.session import TableSession

    s = TableSession(source=video, game=game, players=players, realtime=True, loop=False)
    s._get_recognizer()                    # load the model before the clock starts
    q = s.subscribe()
    got: list[tuple[float, dict]] = []
    stop = threading.Event()

    def drain():
        while not stop.is_set() or not q.empty():
            try:
                e = q.get(timeout=0.05)
            except queue.Empty:
                continue
            got.append((time.monotonic(), e))

    th = threading.Thread(target=drain, daemon=True)
    th.start()
    s.start()
    s.wait(truth.get("video", {}).get("duration", 120) + 60)
    stop.set()
    th.join()
    s.stop()
    # media time 0 in wall time: the first "ok" camera status is published as frame 0 arrives
    oks = [(w, e) for w, e in got if e.get("type") == "camera_status" and e.get("status") == "ok"]
    t0_wall = oks[0][0] - float(oks[0][1].get("t", 0.0)) if oks else got[0][0]
    rows = []
    for ch in truth.get("changes", []):
        if ch.get("actor") is None or not ch.get("targets") or ch.get("t_still") is None:
            continue
        targets = set(ch["targets"])
        t_still = ch["t_still"]
        hit = None
        for w, e in got:
            if e.get("type") in EVENT_TYPES and targets & set(e.get("cards") or []) \
                    and e.get("t", 0) >= t_still - 1.0:
                hit = (w, e)
                break
        lat = (hit[0] - t0_wall - t_still) if hit else None
        rows.append({"t_still": t_still, "cards": sorted(targets), "latency": None if lat is None else round(lat, 2),
                     "event": hit[1]["type"] if hit else None})
    lats = [r["latency"] for r in rows if r["latency"] is not None]
    return {"changes": len(rows), "found": len(lats),
            "latency_median": round(statistics.median(lats), 2) if lats else None,
            "latency_max": round(max(lats), 2) if lats else None,
            "within_1_5s": sum(1 for x in lats if x <= 1.5),
            "analysed_fps": s.snapshot()["camera"].get("fps"),
            "rows": rows}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    from tableref.games import GAME_NAMES, GAMES

    ap.add_argument("--game", default="desmoche", choices=GAME_NAMES)
    ap.add_argument("--seed", type=int, default=500)
    ap.add_argument("--video", default=None)
    ap.add_argument("--truth", default=None)
    ap.add_argument("--work", default=str(ROOT / "out" / "eval_sim"))
    ap.add_argument("--frames", type=int, default=None, help="limit the throughput run to this many frames")
    ap.add_argument("--skip-latency", action="store_true")
    ap.add_argument("--watch-rate", action="store_true",
                    help="only: analysed frames/s of the session on copies of a real table frame and on the demo")
    ap.add_argument("--image", default=None, help="--watch-rate: a real full-table frame to read copies of "
                    "(without it only the demo clip is read)")
    ap.add_argument("--copies", type=int, default=30)
    ap.add_argument("--noise", type=float, default=4.0, metavar="SIGMA",
                    help="--watch-rate also reads copies that each carry their own noise of SIGMA grey levels, "
                         "saved again as JPEG (a still camera; 0: only the exact copies; default 4)")
    args = ap.parse_args(argv)
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "n/a"
    if args.watch_rate:
        print(f"machine: {platform.machine()} {os.cpu_count()} CPUs visible; load average {load}")
        sources = []
        if args.image and not Path(args.image).exists():
            print(f"error: --image {args.image}: no such file", file=sys.stderr)
            return 2
        if args.image:
            sources.append((f"{args.copies} copies of {Path(args.image).name}", real_frame_folder(args.image, args.copies)))
            if args.noise > 0:
                sources.append((f"{args.copies} copies of {Path(args.image).name}, each with noise of "
                                f"{args.noise:g} grey levels", real_frame_folder(args.image, args.copies, args.noise)))
        sources.append(("the demo clip" if not args.video else args.video, args.video or "demo"))
        for name, src in sources:
            for game in GAME_NAMES:
                players = ["Ana", "Beto", "Cris", "Dani"][:GAMES[game].default_seats]
                r = watch_rate(src, game, players)
                print(f"{name}, {game} session: {r['frames']} frames analysed, {r['fps']} frames/s "
                      f"(process CPU {r['cpu_ms_per_frame']} ms/frame; load average now "
                      f"{' '.join(Path('/proc/loadavg').read_text().split()[:3])})")
        return 0
    if args.video:
        video = args.video
        truth = json.loads(Path(args.truth).read_text()) if args.truth else {}
    else:
        d = Path(args.work) / f"{args.game}-{args.seed}"
        if not (d / "video.mp4").exists():
            subprocess.run([sys.executable, "-m", "tableref", "simulate", args.game, "--seed", str(args.seed),
                            "--out", str(d)], check=True, cwd=ROOT)
        video = str(d / "video.mp4")
        truth = json.loads((d / "truth.json").read_text())
    players = truth.get("players") or ["Ana", "Beto", "Cris", "Dani"]
    print(f"machine: {platform.machine()} {os.cpu_count()} CPUs visible; python {platform.python_version()}; "
          f"load average {load}; backend {os.environ.get('TABLEREF_BACKEND', 'auto')}")
    print(f"video: {video}")
    tp = throughput(video, args.game, players, args.frames)
    print(f"throughput: {tp['frames']} frames {tp['size']}: median {tp['ms_median']} ms/frame, "
          f"p95 {tp['ms_p95']} ms, max {tp['ms_max']} ms -> {tp['fps']} frames/s; process CPU "
          f"{tp['cpu_ms']} ms/frame (load average {' '.join(Path('/proc/loadavg').read_text().split()[:3])})")
    if not args.skip_latency and truth.get("changes"):
        lt = latency(video, args.game, players, truth)
        for r in lt["rows"]:
            print(f"  change at {r['t_still']:6.2f}s {' '.join(r['cards']):30s} -> "
                  f"{r['event'] or 'NOT REPORTED'} after {r['latency']} s")
        print(f"latency: {lt['found']}/{lt['changes']} changes reported; median {lt['latency_median']} s, "
              f"max {lt['latency_max']} s; {lt['within_1_5s']}/{lt['changes']} within 1.5 s; "
              f"analysed {lt['analysed_fps']} frames/s in real time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
