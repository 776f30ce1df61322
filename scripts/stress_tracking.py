#!/usr/bin/env python3
"""Tracking under a realistic recogniser: simulated hands with degraded observations.

Takes the bots' hands (``tableref.simulate``), the exact card positions
(``script_observations``) and degrades them the way the real recogniser does:

* a card overlapped by a card laid after it is seen only by its visible corner
  index (index box, no quad), as in every overlapped meld; a card with both
  indices covered is not seen at all;
* position jitter, missed cards, misread labels (a random other card, low
  confidence), false cards near the acting player's hand, blurred frames.

Then runs tracker + session + referee and compares the hand's winner and nets
with the truth, like ``scripts/eval_simulated.py --synthetic``.

    python scripts/stress_tracking.py                       # 10 Desmoche + 10 Marriage, seeds 300..
    python scripts/stress_tracking.py --games marriage --n 5 --miss 0.1 --misread 0.1
"""
from __future__ import annotations

import argparse
import sys

import cv2
import numpy as np


from tableref.games import GAME_NAMES
from tableref.vision.types import DetectedCard, FrameObservation

LABELS = [r + s for s in "CDHS" for r in "A 2 3 4 5 6 7 8 9 10 J Q K".split()]
INDEX_BOX = (0.045, 0.04, 0.175, 0.31)        # top-left index, fractions of card width/height


def _index_box(quad: np.ndarray, corner: str) -> tuple[float, float, float, float]:
    """Axis-aligned box of the index printed at ``corner`` ("TL" or "BR") of the card ``quad``."""
    tl, tr, br, bl = quad
    ux, uy = tr - tl, bl - tl                      # card's x (width) and y (height) axes
    x1, y1, x2, y2 = INDEX_BOX
    if corner == "BR":
        x1, y1, x2, y2 = 1 - x2, 1 - y2, 1 - x1, 1 - y1
    pts = np.array([tl + ux * a + uy * b for a in (x1, x2) for b in (y1, y2)])
    return (float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max()))


def _covered(point, later_quads) -> bool:
    return any(cv2.pointPolygonTest(q.astype(np.float32), (float(point[0]), float(point[1])), False) >= 0
               for q in later_quads)


def degrade(obs: FrameObservation, rng, miss: float, misread: float, jitter: float,
            false_rate: float, blur: float) -> FrameObservation:
    quads = [np.asarray(d.quad, dtype=np.float64) for d in obs.cards]
    out = []
    for k, d in enumerate(obs.cards):
        q = quads[k]
        later = quads[k + 1:]
        overlapped = any(cv2.intersectConvexConvex(q.astype(np.float32), o.astype(np.float32))[0] > 1.0
                         for o in later)
        if rng.random() < miss:
            continue
        label, conf = d.card, float(rng.uniform(0.7, 0.99))
        if rng.random() < misread:
            label, conf = LABELS[int(rng.integers(len(LABELS)))], float(rng.uniform(0.3, 0.6))
        j = rng.normal(0, jitter, 2)
        if not overlapped:
            qj = q + j
            x1, y1 = qj.min(axis=0)
            x2, y2 = qj.max(axis=0)
            out.append(DetectedCard(label, conf, (x1, y1, x2, y2), quad=qj.tolist()))
            continue
        for corner in ("TL", "BR"):
            box = _index_box(q, corner)
            centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
            if not _covered(centre, later):
                out.append(DetectedCard(label, conf * 0.9, tuple(np.asarray(box) + np.r_[j, j])))
                break
    if rng.random() < false_rate and out:
        # a false card on the player's hand / sleeve near some card
        ref = out[int(rng.integers(len(out)))].box
        dx, dy = rng.normal(0, 60, 2)
        out.append(DetectedCard(LABELS[int(rng.integers(len(LABELS)))], float(rng.uniform(0.3, 0.6)),
                                (ref[0] + dx, ref[1] + dy, ref[0] + dx + 14, ref[1] + dy + 30)))
    sharp = 0.2 if rng.random() < blur else 1.0
    return FrameObservation(obs.t, obs.width, obs.height, out, sharp, False)


def run(game: str, seed: int, args) -> tuple[bool, dict, dict]:
    from tableref.live.session import TableSession
    from tableref.simulate.bots import play_desmoche, play_marriage
    from tableref.simulate.observations import script_observations

    sc = play_desmoche(seed) if game == "desmoche" else play_marriage(seed)
    s = TableSession(source="synthetic", game=game, players=sc.players)
    got: list[dict] = []
    s.on_hand_end = got.append
    rng = np.random.default_rng(seed)
    for obs in script_observations(sc):
        s.feed_observation(degrade(obs, rng, args.miss, args.misread, args.jitter, args.false_rate, args.blur))
    s.end_of_stream()
    res = got[-1] if got else {}
    truth = {"winner": sc.truth["winner"], "net": sc.truth["net"]}
    ok = res.get("winner") == truth["winner"] and res.get("net") == truth["net"]
    return ok, truth, {"winner": res.get("winner"), "net": res.get("net")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="*", default=list(GAME_NAMES))
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--start", type=int, default=300)
    ap.add_argument("--miss", type=float, default=0.05, help="probability a visible card is missed in a frame")
    ap.add_argument("--misread", type=float, default=0.05, help="probability a card is read as another card")
    ap.add_argument("--jitter", type=float, default=1.5, help="position noise, pixels")
    ap.add_argument("--false-rate", type=float, default=0.05, help="probability of a false card per frame")
    ap.add_argument("--blur", type=float, default=0.03, help="probability a frame is blurred")
    args = ap.parse_args(argv)
    for game in args.games:
        good = 0
        for seed in range(args.start, args.start + args.n):
            ok, truth, got = run(game, seed, args)
            good += ok
            print(f"{'OK  ' if ok else 'FAIL'} {game:9s} seed {seed:5d}  truth {truth}  got {got}", flush=True)
        print(f"{game}: {good}/{args.n} hands exact (miss {args.miss}, misread {args.misread}, "
              f"false {args.false_rate}, blur {args.blur})\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
