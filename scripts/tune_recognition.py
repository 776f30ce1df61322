#!/usr/bin/env python3
"""Sweep the recognition thresholds on the real photos (rank level) without re-running the models.

    python scripts/tune_recognition.py [--real DIR] [--models DIR] [--cache /tmp/readings.npz]

Runs the detector and classifier once per photo at a low detector threshold,
keeps every index reading, then scores each combination of detector threshold
(``det_conf``) and card threshold (``min_card_confidence``) by assembling the
kept readings again. Prints recall / precision per combination, best first by
recall among those with precision >= 0.97. Use the result to set the defaults of
``vision.detector.RecognizerConfig``; report numbers with
``scripts/eval_recognition.py``, which runs the real pipeline end to end.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tableref.vision.assembly import IndexReading, assemble  # noqa: E402
from tableref.vision.detector import CardRecognizer, RecognizerConfig  # noqa: E402
from tableref.training.evaluation import Tally, card_rank, load_rank_labels, match  # noqa: E402

DEFAULT_REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "real-photos-rank-only"


def collect(rec: CardRecognizer, directory: Path, limit: int = 0):
    labels = load_rank_labels(directory)
    names = sorted(labels)[:limit] if limit else sorted(labels)
    out = []
    from tqdm import tqdm

    for fn in tqdm(names, desc="reading indices", leave=False):
        img = cv2.imread(str(directory / fn))
        if img is None:
            continue
        rec.last_stats.passes.clear()
        boxes, scores = rec.find_indices(img)
        probs = rec.classify(img, boxes)
        out.append((fn, img.shape[1], img.shape[0], boxes, scores, probs))
    return labels, out


def score(rec, labels, readings, det_conf: float, min_conf: float) -> dict:
    tally = Tally()
    for fn, w, h, boxes, scores, probs in readings:
        rs = [IndexReading(tuple(float(v) for v in b), float(s), p)
              for b, s, p in zip(boxes, scores, probs)
              if s >= det_conf and int(np.argmax(p)) != rec.none_index]
        cards = assemble(rs, rec.names, rec.geometry, min_confidence=min_conf, image_size=(w, h),
                         det_power=rec.config.det_score_power)
        reported = [(card_rank(c.card), c.centre) for c in cards]
        res = match(reported, labels[fn])
        tally.add(res, labels[fn], [r for r, _ in reported], 0.0)
    return tally.summary()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--real", default=str(DEFAULT_REAL))
    ap.add_argument("--models", default=None)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--precision", default="auto", choices=("auto", "fp32", "int8"))
    ap.add_argument("--det-power", type=float, default=None, help="override RecognizerConfig.det_score_power")
    ap.add_argument("--turned-pass", type=int, choices=(0, 1), default=None,
                    help="override RecognizerConfig.turned_pass (1: read the full view turned by 90° too)")
    ap.add_argument("--show", type=int, default=25, help="rows to print, best first (0 = all)")
    ap.add_argument("--det-conf", type=float, default=None, help="only this detector threshold")
    args = ap.parse_args(argv)
    cfg = RecognizerConfig(det_conf=0.05, precision=args.precision)
    if args.det_power is not None:
        cfg.det_score_power = args.det_power
    if args.turned_pass is not None:
        cfg.turned_pass = bool(args.turned_pass)
    rec = CardRecognizer(args.models, config=cfg)
    labels, readings = collect(rec, Path(args.real), args.limit)
    rows = []
    det_confs = (args.det_conf,) if args.det_conf is not None else (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5)
    for det_conf in det_confs:
        for min_conf in (0.0, 0.1, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7):
            s = score(rec, labels, readings, det_conf, min_conf)
            rows.append((det_conf, min_conf, s["recall"] or 0.0, s["precision"] or 0.0, s["reported"]))
    rows.sort(key=lambda r: (r[3] >= 0.97, r[2], r[3]), reverse=True)
    print(f"{'det_conf':>8} {'min_conf':>8} {'recall':>7} {'precision':>9} {'reported':>8}")
    for r in rows[:args.show or None]:
        print(f"{r[0]:8.2f} {r[1]:8.2f} {r[2]:7.3f} {r[3]:9.3f} {r[4]:8d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
