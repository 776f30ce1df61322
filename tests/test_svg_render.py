"""Card art is rendered by resvg (pip ``resvg-py``): no system program such as rsvg-convert is needed."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from tableref.datasets import decks

CARD = """<svg xmlns="http://www.w3.org/2000/svg" width="2.5in" height="3.5in" viewBox="0 0 250 350">
<rect x="0" y="0" width="250" height="350" rx="12" fill="#ffffff"/>
<rect x="20" y="20" width="60" height="80" fill="#ff0000"/></svg>"""

# A KDE-style sheet: the card's background lies outside the sheet's view box and is drawn through <use>.
SHEET = """<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
  width="300" height="100" viewBox="0 0 300 100">
<g id="layer1">
 <rect id="card_back" x="0" y="400" width="70" height="95" fill="#ffffff"/>
 <rect id="pip" x="0" y="0" width="10" height="10" fill="#0000ff"/>
 <g id="1_spade"><use xlink:href="#card_back" transform="translate(100,-400)"/>
   <use xlink:href="#pip" transform="translate(110,10)"/></g>
 <g id="2_spade"><use xlink:href="#card_back" transform="translate(200,-400)"/>
   <rect x="205" y="5" width="20" height="20" fill="#00ff00"/></g>
</g></svg>"""


def test_render_without_any_system_program(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))          # no rsvg-convert, no anything
    src = tmp_path / "card.svg"
    src.write_text(CARD)
    out = tmp_path / "card.png"
    decks._rsvg(str(src), out, 350)
    img = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    assert img.shape[:2] == (350, 250)
    assert tuple(img[50, 50, :3]) == (0, 0, 255)       # the red box (BGR)
    assert tuple(img[300, 200, :3]) == (255, 255, 255)


def test_render_one_element_of_a_sheet(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    src = tmp_path / "sheet.svg"
    src.write_text(SHEET)
    out = tmp_path / "one.png"
    decks._rsvg(str(src), out, 190, export_id="1_spade")
    img = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    h, w = img.shape[:2]
    assert h == 190 and abs(w - 140) <= 2              # 70 x 95 card, scaled 2x
    assert img[2:-2, 2:-2, 3].min() > 200              # cut to the card: opaque up to its edge
    blue = (img[:, :, 0] > 200) & (img[:, :, 1] < 50) & (img[:, :, 2] < 50)
    ys, xs = np.nonzero(blue)
    assert 15 <= xs.min() <= 25 and 15 <= ys.min() <= 25 and 35 <= xs.max() <= 45   # its own pip, 2x
    green = (img[:, :, 1] > 200) & (img[:, :, 0] < 50)
    assert not green.any()                             # nothing of the neighbouring card


def test_simulate_without_any_card_art_says_in_one_line_what_to_install(tmp_path):
    """A machine with neither npm nor a card-art cache: one line saying what to install, no traceback."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    local = [n for n, spec in decks.DECKS.items() if spec["kind"] in ("kde", "generated") and decks._source_ok(n, False)]
    if local:
        pytest.skip(f"this machine has card art without npm ({', '.join(local[:3])}: Debian's card decks, or "
                    "matplotlib's fonts from the train extra)")

    env = {**os.environ, "PATH": str(tmp_path), "TABLEREF_DATASET_CACHE": str(tmp_path / "cache")}
    p = subprocess.run([sys.executable, "-m", "tableref", "simulate", "desmoche", "--seed", "1", "--out",
                        str(tmp_path / "sim")], cwd=Path(__file__).resolve().parents[1], env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "npm" in lines[0] and "Traceback" not in p.stderr, p.stderr
