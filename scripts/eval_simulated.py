#!/usr/bin/env python
"""End-to-end evaluation on simulated hands: does ``tableref watch`` find the truth?

For each seed: ``tableref simulate GAME --seed N --out DIR`` (bots play, the
renderer films), then ``tableref watch DIR/video.mp4 --game GAME --players ...
--json`` on the video (real recogniser, tracker, session and referee), and the
last ``hand_end`` line is compared with ``DIR/truth.json``: the winner and every
player's net must match exactly.

    python scripts/eval_simulated.py                      # 20 Desmoche + 20 Marriage, seeds 1000.. / 2000..
    python scripts/eval_simulated.py --games desmoche --n 5 --start 100 --jobs 2
    python scripts/eval_simulated.py --synthetic          # perfect recognition: tracking + refereeing only

Seeds 0-999 are for development; the default evaluation seeds (1000+ for
Desmoche, 2000+ for Marriage) were not looked at while building the pipeline.
Videos are cached in ``--work`` (default ``out/eval_sim/``, ignored by git).

Each seed chooses the card deck its video is drawn with (``tableref.simulate.render.SIM_DECKS``):
npm packages, fetched with ``npm`` the first time, and Debian's KDE decks (``apt install
kdegames-card-data-kf5``). A deck the machine lacks is drawn with kennard-2color instead, and the
report counts those hands: figures are comparable between machines only with the same decks.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def filmed_as_chosen(d: Path) -> bool:
    """Whether the cached video in ``d`` is drawn with the deck its seed chose, or with a stand-in
    for a deck this machine still lacks (a video cached before decks were recorded is filmed again)."""
    video = json.loads((d / "truth.json").read_text()).get("video", {})
    chosen = video.get("deck_chosen")
    if chosen is None:
        return False
    if chosen == video.get("deck"):
        return True
    from tableref.datasets import decks

    return chosen not in decks.available_decks()


def simulate(game: str, seed: int, work: Path) -> Path:
    d = work / f"{game}-{seed}"
    if (d / "truth.json").exists() and (d / "video.mp4").exists() and filmed_as_chosen(d):
        return d
    subprocess.run([sys.executable, "-m", "tableref", "simulate", game, "--seed", str(seed), "--out", str(d)],
                   check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return d


def watch(game: str, d: Path, players: list[str], threads: int, every: int = 1) -> tuple[dict | None, list[dict], float]:
    env = dict(os.environ, TABLEREF_ORT_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "tableref", "watch", str(d / "video.mp4"), "--game", game,
                        "--players", ",".join(players), "--json", "--every", str(every)],
                       cwd=ROOT, capture_output=True, text=True, env=env)
    dt = time.perf_counter() - t0
    events = []
    for line in p.stdout.splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    ends = [e for e in events if e.get("type") == "hand_end"]
    if p.returncode not in (0, 1):
        print(p.stderr[-2000:], file=sys.stderr)
    return (ends[-1] if ends else None), events, dt


def synthetic(game: str, seed: int, noise: float = 0.0) -> tuple[dict | None, list[dict], float]:
    from tableref.live.session import TableSession
    from tableref.simulate.bots import play_desmoche, play_marriage
    from tableref.simulate.observations import script_observations

    sc = play_desmoche(seed) if game == "desmoche" else play_marriage(seed)
    s = TableSession(source="synthetic", game=game, players=sc.players)
    got: list[dict] = []
    s.on_hand_end = got.append
    t0 = time.perf_counter()
    for obs in script_observations(sc, noise=noise, seed=seed):
        s.feed_observation(obs)
    s.end_of_stream()
    return (got[-1] if got else None), list(s._events), time.perf_counter() - t0


def one(args) -> dict:
    game, seed, work, synth, threads, noise, every = args
    if synth:
        from tableref.simulate.bots import play_desmoche, play_marriage

        sc = play_desmoche(seed) if game == "desmoche" else play_marriage(seed)
        truth = sc.truth
        result, events, dt = synthetic(game, seed, noise)
        frames = deck = chosen = None
    else:
        d = simulate(game, seed, work)
        truth = json.loads((d / "truth.json").read_text())
        result, events, dt = watch(game, d, truth["players"], threads, every)
        frames = truth.get("video", {}).get("frames")
        deck, chosen = truth.get("video", {}).get("deck"), truth.get("video", {}).get("deck_chosen")
    ok = bool(result) and result.get("winner") == truth["winner"] and result.get("net") == truth["net"]
    problems = [e.get("text") for e in events if e.get("type") in ("recognition_problem", "count_problem",
                                                                   "illegal_move", "meld_invalid")]
    return {"game": game, "seed": seed, "ok": ok, "players": len(truth["players"]),
            "truth": {"winner": truth["winner"], "net": truth["net"]},
            "got": {"winner": result.get("winner") if result else None, "net": result.get("net") if result else None},
            "seconds": round(dt, 1), "frames": frames, "deck": deck,
            "stand_in_for": chosen if chosen and chosen != deck else None, "problems": problems[:6]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", default="desmoche,marriage")
    ap.add_argument("--n", type=int, default=20, help="hands per game")
    ap.add_argument("--start", type=int, default=None, help="first seed (default 1000 Desmoche, 2000 Marriage)")
    ap.add_argument("--work", default=str(ROOT / "out" / "eval_sim"), help="folder for the simulated videos")
    ap.add_argument("--jobs", type=int, default=1, help="hands evaluated in parallel")
    ap.add_argument("--threads", type=int, default=None, help="ONNX Runtime threads per job (default 2/jobs)")
    ap.add_argument("--models", default=None, metavar="DIR",
                    help="recognition models to watch with (default: the committed ones; sets TABLEREF_MODELS)")
    ap.add_argument("--synthetic", action="store_true", help="perfect recognition (no video)")
    ap.add_argument("--noise", type=float, default=0.0,
                    help="with --synthetic: miss each card with this probability per frame, misread a third as often")
    ap.add_argument("--every", type=int, default=1, help="watch --every N (analyse every N-th frame)")
    ap.add_argument("--json", default=None, help="write the per-hand results here")
    args = ap.parse_args(argv)
    if args.models:
        if not (Path(args.models) / "recognition.json").exists():
            print(f"error: --models {args.models}: no recognition.json there", file=sys.stderr)
            return 2
        os.environ["TABLEREF_MODELS"] = str(Path(args.models).resolve())
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    threads = args.threads or max(1, 2 // max(1, args.jobs))
    tasks = []
    for game in args.games.split(","):
        game = game.strip()
        from tableref.games import GAMES

        if game not in GAMES:
            ap.error(f"unknown game {game!r}")
        start = args.start if args.start is not None else (1000 if game == "desmoche" else 2000)
        tasks += [(game, s, work, args.synthetic, threads, args.noise, args.every) for s in range(start, start + args.n)]
    from tqdm import tqdm

    results = []
    t0 = time.perf_counter()
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as ex:
            for r in tqdm(ex.map(one, tasks), total=len(tasks), desc="hands", file=sys.stderr):
                results.append(r)
    else:
        for t in tqdm(tasks, desc="hands", file=sys.stderr):
            results.append(one(t))
    for r in results:
        mark = "OK  " if r["ok"] else "MISS"
        print(f"{mark} {r['game']:9s} seed {r['seed']:5d} {r['players']}p  {r['seconds']:6.1f}s  "
              f"truth {r['truth']['winner']} {r['truth']['net']}  got {r['got']['winner']} {r['got']['net']}")
        if not r["ok"]:
            for p in r["problems"]:
                print(f"       {p}")
    print()
    for game in args.games.split(","):
        rs = [r for r in results if r["game"] == game.strip()]
        if rs:
            k = sum(r["ok"] for r in rs)
            print(f"{game.strip():9s}: {k}/{len(rs)} hands with the exact winner and nets "
                  f"({'synthetic observations' if args.synthetic else 'rendered video, real recogniser'}; "
                  f"seeds {rs[0]['seed']}-{rs[-1]['seed']})")
    stand_ins = Counter(r["stand_in_for"] for r in results if r.get("stand_in_for"))
    if stand_ins:
        from tableref.simulate.render import deck_hint

        print(f"{sum(stand_ins.values())} hands drawn with kennard-2color standing in for a deck this machine lacks "
              "(the figures are not comparable with a machine that has them): "
              + "; ".join(f"{name} x{n} ({deck_hint(name)})" for name, n in sorted(stand_ins.items())))
    print(f"total time {time.perf_counter() - t0:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
