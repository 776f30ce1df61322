"""Compare the card art rendered by resvg (what tableref uses) with rsvg-convert (what it used before).

    python scripts/compare_card_render.py --rsvg /path/to/rsvg-convert [--kde-root /usr/share] [--out sheet.png]

Renders a few cards of each deck both ways, prints the mean absolute pixel difference per card
and writes a contact sheet (each pair: rsvg-convert left, resvg right) to check by eye. The npm
decks are fetched into the dataset cache as usual; the KDE decks need kdegames-card-data-kf5
under --kde-root (e.g. unpacked with ``dpkg-deb -x`` into a folder).
"""
from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

import cv2
import numpy as np

from tableref.datasets import decks

CARDS = ["AS", "10H", "QD", "KC", "7S"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rsvg", required=True, help="the rsvg-convert program to compare with")
    ap.add_argument("--kde-root", default="/usr/share", help="folder holding carddecks/ (default /usr/share)")
    ap.add_argument("--decks", nargs="*", default=["kennard-2color", "kennard-4color-bf", "younestouati",
                                                    "kde-standard", "kde-dondorf", "kde-nicu-white",
                                                    "kde-nicu-ornamental"])
    ap.add_argument("--out", default="card_render_compare.png", help="contact sheet to write")
    a = ap.parse_args()
    for spec in decks.DECKS.values():
        if spec["kind"] == "kde":
            spec["dir"] = spec["dir"].replace("/usr/share", a.kde_root)

    def old(src, out, height, export_id=None):
        cmd = [a.rsvg, "-h", str(height), "-o", str(out)] + (["--export-id", export_id] if export_id else [])
        subprocess.run(cmd + [src], check=True, timeout=120)

    new = decks._rsvg
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in a.decks:
            tiles = []
            for card in CARDS:
                pair = []
                for tag, fn in (("rsvg", old), ("resvg", new)):
                    decks._rsvg = fn
                    path = Path(tmp) / f"{name}_{card}_{tag}.png"
                    try:
                        decks._render_card(name, card, path, decks.RENDER_HEIGHT)
                    finally:
                        decks._rsvg = new
                    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
                    if img.shape[2] == 3:
                        img = np.dstack([img, np.full(img.shape[:2], 255, np.uint8)])
                    img = decks._trim_to_card(img)
                    h = decks.RENDER_HEIGHT
                    pair.append(cv2.resize(img, (round(img.shape[1] * h / img.shape[0]), h), interpolation=cv2.INTER_AREA))
                a_img, b_img = pair
                b_same = cv2.resize(b_img, (a_img.shape[1], a_img.shape[0]))
                diff = np.abs(a_img.astype(int) - b_same.astype(int)).mean()
                print(f"{name:22s} {card:4s} rsvg {a_img.shape[1]}x{a_img.shape[0]}  resvg "
                      f"{b_img.shape[1]}x{b_img.shape[0]}  mean |difference| {diff:.2f} of 255")
                for img in pair:
                    alpha = img[:, :, 3:4] / 255.0
                    rgb = (img[:, :, :3] * alpha + 128 * (1 - alpha)).astype(np.uint8)
                    tiles.append(cv2.resize(rgb, (round(rgb.shape[1] * 200 / rgb.shape[0]), 200)))
                tiles.append(np.full((200, 12, 3), 40, np.uint8))
            row = np.hstack(tiles)
            cv2.putText(row, name, (5, 192), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 255), 2)
            rows.append(row)
    w = max(r.shape[1] for r in rows)
    cv2.imwrite(a.out, np.vstack([np.pad(r, ((0, 4), (0, w - r.shape[1]), (0, 0)), constant_values=128)
                                  for r in rows]))
    print(f"wrote {a.out}: each pair rsvg-convert (left), resvg (right)")


if __name__ == "__main__":
    main()
