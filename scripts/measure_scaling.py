#!/usr/bin/env python3
"""How the non-network part of reading a frame grows with its cards: the real 52-card frame and its
104-card tiling (``tableref.bench.real_frames``), read alternately, frame by frame.

    python scripts/measure_scaling.py DIR               # 40 frames of each
    python scripts/measure_scaling.py DIR --frames 80

``tableref bench-detect`` times one frame after the other, and this machine's speed wanders by a
third within minutes, so the ratio of two figures taken seconds apart wanders too (1.9–2.5× in
three runs). Here each frame has its own recogniser (as a cold ``bench-detect`` frame: the two
frames have one size, and one recogniser would carry what it learnt of one to the other) and the
two alternate, so both see the same phases. Prints the medians of the total, the non-network part
(wall, and CPU in all threads), its per-card part (decoding, NMS, crops, assembly, outlines) and
the detector's input pictures, and the 104/52 ratios. DIR is the real-table data
(``fanned-deal-1280x720.jpg`` and ``fanned-deal.jpg``).
"""
from __future__ import annotations

import argparse
import sys

import numpy as np


from tableref.bench import cpu_description, loadavg, real_frames
from tableref.vision.recognition import CardRecognizer


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("real_table", metavar="DIR", help="the real-table data: fanned-deal-1280x720.jpg and fanned-deal.jpg")
    ap.add_argument("--frames", type=int, default=40, help="timed frames of each (default 40)")
    args = ap.parse_args(argv)
    frames = {cards: img for _, img, cards in real_frames(args.real_table)}
    if set(frames) != {52, 104}:
        print(f"error: DIR {args.real_table}: no fanned-deal-1280x720.jpg and fanned-deal.jpg there", file=sys.stderr)
        return 2
    recs = {}
    for cards, img in frames.items():
        recs[cards] = CardRecognizer(threads=2)
        recs[cards].warmup(img.shape[1::-1])
        for _ in range(3):
            recs[cards].recognize(img)
        recs[cards].settle()
    rows: dict[int, list] = {cards: [] for cards in frames}
    for i in range(args.frames):
        for cards in (52, 104) if i % 2 else (104, 52):
            rec = recs[cards]
            rec.recognize(frames[cards])
            s = rec.last_stats
            rows[cards].append((s.ms_total, s.ms_non_network, s.cpu_ms_non_network, s.cpu_ms_per_card, s.ms_views))
    med = {cards: np.median(np.array(r), axis=0) for cards, r in rows.items()}
    print(f"{cpu_description()}, 2 threads (load average {loadavg()}); medians of {args.frames} frames each, ms")
    for cards in (52, 104):
        total, other, cpu, per_card, views = med[cards]
        print(f"{cards:4d} cards: total {total:6.1f}  non-network {other:5.2f} (CPU {cpu:5.2f}; "
              f"per card {per_card:5.2f}; the detector's input pictures {views:4.2f})")
    ratio = med[104][1:4] / med[52][1:4]
    print("104/52: non-network {:.2f}x, its CPU {:.2f}x, the per-card part {:.2f}x (target <= 2.3x)".format(*ratio))
    return 0


if __name__ == "__main__":
    sys.exit(main())
