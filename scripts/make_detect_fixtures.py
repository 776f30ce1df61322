#!/usr/bin/env python3
"""Render the small test fixtures of ``tests/fixtures/`` (images whose cards are known).

    python scripts/make_detect_fixtures.py [--out tests/fixtures]

Artwork: Adrian Kennard's CC0 deck (``kennard-2color``, via ``datasets.decks``), so
the rendered images may be committed. Each ``NAME.jpg`` gets a ``NAME.json`` with
``{"cards": [{"card": "10H", "quad": [[x, y] x 4]}]}`` in paint order (later cards
lie on top). Deterministic: fixed seeds.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import cv2
import numpy as np


from tableref.training.evaluation import paste_card, table_background

DECK = "kennard-2color"


def scene_apart(faces):
    img = table_background(800, 600, seed=3, kind="felt")
    spec = [("10H", (150, 170), 0), ("QS", (420, 180), 20), ("AD", (650, 200), -35), ("7C", (330, 440), 90),
            ("3S", (620, 450), 160)]
    return img, [(c, paste_card(img, faces[c], p, a, 190)) for c, p, a in spec]


def scene_meld_and_duplicates(faces):
    img = table_background(800, 600, seed=5, kind="wood")
    out = []
    # an overlapped run, each card covering the right part of the previous one
    for k, c in enumerate(["5H", "6H", "7H", "8H"]):
        out.append((c, paste_card(img, faces[c], (140 + 62 * k, 160), 2 - k, 180)))
    # Marriage: the same card from two packs at two places, one of them turned
    out.append(("KC", paste_card(img, faces["KC"], (620, 170), -8, 180)))
    out.append(("KC", paste_card(img, faces["KC"], (260, 430), 100, 180)))
    out.append(("9D", paste_card(img, faces["9D"], (600, 430), 12, 180)))
    return img, out


def scene_fan(faces):
    img = table_background(640, 480, seed=7, kind="felt")
    hand = ["2S", "9D", "JC", "4H", "AS"]
    pivot = np.array([300.0, 520.0])
    out = []
    for k, c in enumerate(hand):
        ang = -24 + 12 * k
        a = math.radians(ang)
        # card centre 170 px above the pivot along the rotated vertical
        centre = pivot + 190 * np.array([math.sin(a), -math.cos(a)])
        out.append((c, paste_card(img, faces[c], tuple(centre), ang, 200)))
    return img, out


SCENES = {"cards_apart": scene_apart, "meld_and_duplicates": scene_meld_and_duplicates, "fan": scene_fan}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "tests" / "fixtures"))
    args = ap.parse_args(argv)
    from tableref.datasets import decks

    faces = decks.load_deck_bgra(DECK)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, fn in SCENES.items():
        img, cards = fn(faces)
        img = cv2.GaussianBlur(img, (0, 0), 0.6)
        cv2.imwrite(str(out / f"{name}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 88])
        truth = {"deck": DECK, "licence": "CC0-1.0",
                 "cards": [{"card": c, "quad": [[round(x, 1), round(y, 1)] for x, y in q]} for c, q in cards]}
        (out / f"{name}.json").write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
        print(f"{out / name}.jpg: {', '.join(c for c, _ in cards)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
