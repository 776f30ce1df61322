#!/usr/bin/env python
"""Memory of ``tableref serve`` over an evening: RSS over time with a phone watching the table.

Starts the real ``tableref serve`` (by default the built-in demo table, a ledger in memory) on a
free loopback port, with one viewer doing what the Table page does on a phone: it polls
``/api/state`` every ``--poll`` seconds and, with ``--viewer page`` (the default), also holds the
event stream (``/api/events``, re-reading the state after events, like the page's debounce) and
the annotated video (``/video.mjpg``). The server's resident memory (RSS, from /proc, or psutil
where there is no /proc) is sampled every ``--sample`` seconds; at the end a table of RSS over
time is printed with the growth per minute after ``--warmup`` minutes (least squares over the
samples after warm-up, and over the last third alone).

    python scripts/bench_memory.py                                  # the demo, 10 minutes
    python scripts/bench_memory.py --minutes 6 --game marriage
    python scripts/bench_memory.py --real-table ../shared/data/real-table --minutes 8   # a real table's frames
    python scripts/bench_memory.py --minutes 6 --trace 60           # also: where Python memory grows

``--trace N`` runs the server under tracemalloc and prints, every N seconds after warm-up, the
lines of code whose Python allocations (numpy arrays included) grew most since warm-up; memory
held by native libraries (ONNX Runtime, OpenCV) shows in the RSS only. Tracing slows the server.
Exit status: 0, or 1 when ``--limit`` MB a minute is given and the growth after warm-up exceeds it.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tableref.games import GAME_NAMES

ROOT = Path(__file__).resolve().parents[1]
PIN = "246813"

#: run as ``python -X tracemalloc=N -c TRACED serve ...``: the server, plus a thread that writes
#: the growth of Python allocations since warm-up to $TABLEREF_TRACE_OUT every $TABLEREF_TRACE_EVERY s
TRACED = r"""
import os, sys, threading, time, tracemalloc
from tableref.cli import main

def _watch():
    every = float(os.environ["TABLEREF_TRACE_EVERY"])
    time.sleep(float(os.environ["TABLEREF_TRACE_WARMUP"]))
    skip = [tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, "<frozen importlib._bootstrap>")]
    base = tracemalloc.take_snapshot().filter_traces(skip)
    start = time.monotonic()
    while True:
        time.sleep(every)
        snap = tracemalloc.take_snapshot().filter_traces(skip)
        diff = snap.compare_to(base, "traceback")
        lines = [f"--- {(time.monotonic() - start) / 60:.1f} min after warm-up: Python memory "
                 f"{sum(s.size for s in snap.statistics('filename')) / 1e6:.1f} MB traced"]
        for s in sorted(diff, key=lambda s: -s.size_diff)[:12]:
            if s.size_diff <= 0:
                break
            lines.append(f"{s.size_diff / 1e6:+8.2f} MB {s.count_diff:+8d} blocks")
            lines += ["      " + str(f) for f in list(s.traceback)[-4:]]
        with open(os.environ["TABLEREF_TRACE_OUT"], "a", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")

threading.Thread(target=_watch, name="bench-memory-trace", daemon=True).start()
sys.exit(main(sys.argv[1:]))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> tuple[float, int] | None:
    """Resident memory (MB) and thread count of process ``pid``; None once it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            fields = dict(line.split(":", 1) for line in fh if ":" in line)
        return int(fields["VmRSS"].split()[0]) / 1024, int(fields["Threads"])
    except FileNotFoundError:
        if os.path.isdir("/proc"):
            return None
    except (OSError, KeyError, ValueError):
        return None
    try:
        import psutil
    except ImportError:
        raise SystemExit("bench_memory: no /proc here; install psutil (pip install psutil)") from None
    try:
        p = psutil.Process(pid)
        return p.memory_info().rss / 2**20, p.num_threads()
    except psutil.Error:
        return None


def get_json(conn_box: list, port: int, path: str) -> dict | None:
    try:
        if conn_box[0] is None:
            conn_box[0] = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
        conn_box[0].request("GET", path)
        resp = conn_box[0].getresponse()
        data = resp.read()
        return json.loads(data) if resp.status == 200 else None
    except (OSError, http.client.HTTPException, ValueError):
        if conn_box[0] is not None:
            conn_box[0].close()
        conn_box[0] = None
        return None


def hold_stream(port: int, path: str, stop: threading.Event, on_data=None) -> None:
    """Hold one long-lived response open and read it as a phone does (SSE events, MJPEG frames)."""
    while not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
                sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
                sock.settimeout(1.0)
                while not stop.is_set():
                    try:
                        chunk = sock.recv(65536)
                    except socket.timeout:
                        continue
                    if not chunk:
                        break
                    if on_data is not None and b"data: " in chunk:
                        on_data()
        except OSError:
            pass
        stop.wait(1.0)


class Viewer:
    """One phone on the Table page: the state polled (and re-read after events), the streams held."""

    def __init__(self, port: int, poll_s: float, page: bool):
        self.port, self.poll_s, self.page = port, poll_s, page
        self.stop = threading.Event()
        self.dirty = threading.Event()
        self.reads = 0
        self.failed = 0
        self.last: dict | None = None
        self._threads = [threading.Thread(target=self._poll, daemon=True)]
        if page:
            self._threads += [threading.Thread(target=hold_stream, args=(port, "/api/events", self.stop,
                                                                         self.dirty.set), daemon=True),
                              threading.Thread(target=hold_stream, args=(port, "/video.mjpg", self.stop),
                                               daemon=True)]

    def start(self) -> "Viewer":
        for t in self._threads:
            t.start()
        return self

    def close(self) -> None:
        self.stop.set()
        for t in self._threads:
            t.join(timeout=5)

    def _poll(self) -> None:
        conn: list = [None]
        last = 0.0
        while not self.stop.is_set():
            now = time.monotonic()
            if now - last >= self.poll_s or (self.dirty.is_set() and now - last >= 0.15):
                self.dirty.clear()
                last = now
                data = get_json(conn, self.port, "/api/state")
                if data is None:
                    self.failed += 1
                else:
                    self.reads += 1
                    self.last = data
            self.stop.wait(0.05)


def real_table_video(folder: Path, minutes: float, out: Path, fps: int = 6) -> Path:
    """A video of a real table for an evening's memory (``--real-table``): the real-table data's
    720p frame and its square photo in turn, each followed by the table cleared (the cards' part
    blurred away), with a pixel of sway and sensor noise; written to ``out``."""
    import cv2
    import numpy as np

    a = cv2.imread(str(folder / "fanned-deal-1280x720.jpg"))
    big = cv2.imread(str(folder / "fanned-deal.jpg"))
    if a is None or big is None:
        raise SystemExit(f"bench_memory: --real-table: no fanned-deal-1280x720.jpg and fanned-deal.jpg in {folder}")
    b = np.empty_like(a)
    b[:] = a[:, :280].reshape(-1, 3).mean(axis=0).astype(np.uint8)
    b[:, 280:1000] = cv2.resize(cv2.rotate(big, cv2.ROTATE_90_CLOCKWISE), (720, 720), interpolation=cv2.INTER_AREA)

    def cleared(img):
        e = img.copy()
        e[:, 280:1000] = cv2.GaussianBlur(img[:, 280:1000], (0, 0), 30)
        return e

    scenes = [(a, 12), (cleared(a), 5), (b, 10), (cleared(b), 5)]      # seconds each
    writer = cv2.VideoWriter(str(out), cv2.VideoWriter_fourcc(*"mp4v"), fps, (1280, 720))
    rng = np.random.default_rng(7)
    n, i = int(minutes * 60 * fps), 0
    while i < n:
        for img, secs in scenes:
            for k in range(secs * fps):
                if i >= n:
                    break
                dx, dy = rng.integers(-1, 2, 2) if k % fps == 0 else (0, 0)
                f = cv2.warpAffine(img, np.float32([[1, 0, dx], [0, 1, dy]]), (1280, 720),
                                   borderMode=cv2.BORDER_REPLICATE)
                f = np.clip(f.astype(np.int16) + rng.normal(0, 1.5, f.shape).astype(np.int16), 0, 255)
                writer.write(f.astype(np.uint8))
                i += 1
    writer.release()
    return out


def start_server(args, port: int, tmp: Path) -> tuple[subprocess.Popen, Path]:
    serve = ["serve", "--host", "127.0.0.1", "--port", str(port), "--pin", PIN, "--source", args.source,
             "--game", args.game, *args.serve_args]
    env = dict(os.environ, XDG_DATA_HOME=str(tmp / "data"), YOLO_OFFLINE="1")
    if args.trace:
        env.update(TABLEREF_TRACE_EVERY=str(args.trace), TABLEREF_TRACE_WARMUP=str(args.warmup * 60),
                   TABLEREF_TRACE_OUT=str(tmp / "trace.txt"))
        cmd = [sys.executable, "-X", "tracemalloc=12", "-c", TRACED, *serve]
    else:
        cmd = [sys.executable, "-m", "tableref", *serve]
    log = tmp / "serve.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    conn: list = [None]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"bench_memory: the server exited with {proc.returncode}:\n"
                             + log.read_text(errors="replace")[-3000:])
        if get_json(conn, port, "/api/state") is not None:
            return proc, log
        time.sleep(0.5)
    proc.kill()
    raise SystemExit("bench_memory: the server did not answer within 120 s:\n" + log.read_text(errors="replace")[-3000:])


def slope_per_min(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope of (seconds, MB) points, in MB a minute."""
    if len(points) < 3:
        return None
    n = len(points)
    mt = sum(t for t, _ in points) / n
    mm = sum(m for _, m in points) / n
    var = sum((t - mt) ** 2 for t, _ in points)
    if var <= 0:
        return None
    return sum((t - mt) * (m - mm) for t, m in points) / var * 60


def positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
        return value
    return parse


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", default="demo", help="what serve watches: 'demo' (default), a video file, a folder "
                    "of images (as tableref serve --source)")
    ap.add_argument("--real-table", type=Path, default=None, metavar="DIR",
                    help="watch a video made from the real-table data in DIR (the fanned deal's photos in turn, "
                         "the table cleared between, sway and noise) instead of --source")
    ap.add_argument("--game", default="desmoche", choices=GAME_NAMES, help="game (default desmoche)")
    ap.add_argument("--minutes", type=positive(float), default=10.0, help="how long to run (default 10)")
    ap.add_argument("--warmup", type=float, default=3.0, help="minutes of warm-up left out of the growth (default 3)")
    ap.add_argument("--poll", type=positive(float), default=5.0,
                    help="seconds between the viewer's reads of /api/state (default 5, like the Table page)")
    ap.add_argument("--viewer", choices=("page", "state"), default="page",
                    help="page: state, event stream and video, as the Table page; state: /api/state only")
    ap.add_argument("--sample", type=positive(float), default=15.0, help="seconds between RSS samples (default 15)")
    ap.add_argument("--trace", type=positive(float), default=None, metavar="SECONDS",
                    help="run under tracemalloc; report where Python memory grew every SECONDS after warm-up")
    ap.add_argument("--limit", type=positive(float), default=None, metavar="MB",
                    help="exit 1 when the growth after warm-up exceeds MB a minute")
    ap.add_argument("--json", action="store_true", help="also print the samples as one JSON object")
    ap.add_argument("serve_args", nargs="*", help="more arguments for tableref serve (after --)")
    args = ap.parse_args(argv)
    if not 0 <= args.warmup < args.minutes:
        ap.error(f"--warmup must be 0 or more and less than --minutes ({args.minutes:g}), got {args.warmup:g}")

    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmpdir:
        tmp = Path(tmpdir)
        if args.real_table is not None:
            args.source = str(real_table_video(args.real_table, args.minutes + 1, tmp / "real-table.mp4"))
        port = free_port()
        proc, log = start_server(args, port, tmp)
        viewer = Viewer(port, args.poll, args.viewer == "page").start()
        samples = []           # (seconds, MB, threads, frames analysed, hands decided)
        t0 = time.monotonic()
        try:
            while True:
                elapsed = time.monotonic() - t0
                got = rss_mb(proc.pid)
                if got is None or proc.poll() is not None:
                    print(f"bench_memory: the server stopped after {elapsed:.0f} s:\n"
                          + log.read_text(errors="replace")[-3000:], file=sys.stderr)
                    return 2
                table = ((viewer.last or {}).get("table") or {})
                samples.append((elapsed, got[0], got[1], table.get("frames_analysed", 0),
                                table.get("hands_decided", 0)))
                if elapsed >= args.minutes * 60:
                    break
                time.sleep(min(args.sample, max(0.0, args.minutes * 60 - elapsed)))
        finally:
            viewer.close()
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        trace = (tmp / "trace.txt").read_text(errors="replace") if args.trace and (tmp / "trace.txt").exists() else ""

    print(f"tableref serve --source {args.source} --game {args.game}: {args.minutes:g} min, viewer {args.viewer}, "
          f"state every {args.poll:g} s ({viewer.reads} reads, {viewer.failed} failed)")
    print(f"{'min':>6} {'RSS MB':>8} {'threads':>8} {'frames':>8} {'hands':>6}")
    for t, mb, threads, frames, hands in samples:
        print(f"{t / 60:6.1f} {mb:8.1f} {threads:8d} {frames:8d} {hands:6d}")
    after = [(t, mb) for t, mb, *_ in samples if t >= args.warmup * 60]
    growth = slope_per_min(after)
    last_third = slope_per_min([p for p in after if p[0] >= samples[-1][0] - (samples[-1][0] - args.warmup * 60) / 3])
    first = next((mb for t, mb, *_ in samples if t >= args.warmup * 60), None)
    at_warmup = "n/a" if first is None else f"{first:.1f} MB"
    print(f"RSS at warm-up ({args.warmup:g} min): {at_warmup}; at the end: {samples[-1][1]:.1f} MB; "
          f"peak {max(mb for _, mb, *_ in samples):.1f} MB")
    fmt = lambda v: "n/a (too few samples)" if v is None else f"{v:+.2f} MB/min"  # noqa: E731
    print(f"growth after warm-up: {fmt(growth)} (last third: {fmt(last_third)})")
    if trace:
        print("\nwhere Python memory grew since warm-up (tracemalloc, last report):")
        print(trace[trace.rfind("--- "):].rstrip())
    if args.json:
        print(json.dumps({"source": args.source, "game": args.game, "minutes": args.minutes, "warmup": args.warmup,
                          "growth_mb_per_min": growth, "last_third_mb_per_min": last_third,
                          "samples": [{"s": round(t, 1), "rss_mb": round(mb, 1), "threads": th, "frames": fr,
                                       "hands": h} for t, mb, th, fr, h in samples]}))
    if args.limit is not None and growth is not None and growth > args.limit:
        print(f"bench_memory: growth {growth:.2f} MB/min exceeds --limit {args.limit:g}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
