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
        assert all(lab.visibility >= scenes.VISIBLE or lab.glyphs >= scenes.GLYPHS_VISIBLE for lab in labels)
    assert hidden > 0 and labelled > 0


def test_glyph_points_split_rank_above_suit():
    img, boxes = _card("A")
    rank, suit = scenes.glyph_points(img, boxes[0], upright=True)
    assert len(rank) > 10 and len(suit) > 10
    assert rank[:, 1].max() < suit[:, 1].min()          # the rank lies above the pip
    # the bottom-right index is printed upside down: its rank lies below its pip
    rank2, suit2 = scenes.glyph_points(img, boxes[1], upright=False)
    assert rank2[:, 1].min() > suit2[:, 1].max()


def test_partly_covered_index_is_a_label_only_with_whole_rank_and_suit():
    q = np.zeros((4, 2))
    whole = scenes.IndexLabel("AS", (0, 0, 10, 20), q, visibility=0.5, height=20, card_id=0, glyphs=0.95)
    cut = scenes.IndexLabel("AS", (0, 0, 10, 20), q, visibility=0.5, height=20, card_id=0, glyphs=0.6)
    sliver = scenes.IndexLabel("AS", (0, 0, 10, 20), q, visibility=0.2, height=20, card_id=0, glyphs=0.95)
    assert whole.is_label() and not cut.is_label() and not sliver.is_label()
    assert scenes.IndexLabel("AS", (0, 0, 10, 20), q, visibility=0.8, height=20, card_id=0).is_label()


def test_tight_fan_spacing():
    for seed in range(20):
        rng = np.random.default_rng(seed)
        cards = scenes._layout_tightfan(rng, 9)
        assert len(cards) == 9
        d = [np.hypot(a[0] - b[0], a[1] - b[1]) for a, b in zip(cards, cards[1:])]
        # neighbouring cards step by at most a quarter of a card's width (0.7 card heights)
        assert max(d) <= 0.25 * 0.7 + 0.05 and min(d) > 0.0


def test_steep_camera_tilt_foreshortens():
    rng = np.random.default_rng(0)
    H_ = scenes.camera_homography(rng, 400, 400, 75.0, at_least=70.0)
    sq = scenes._apply(H_, np.array([[-50.0, -50], [50, -50], [50, 50], [-50, 50]]))
    sides = [np.linalg.norm(sq[(k + 1) % 4] - sq[k]) for k in range(4)]
    assert max(sides) / min(sides) > 2.0        # a square on the table looks strongly squashed


def test_dark_red_ink_and_colour_casts_keep_the_picture_valid():
    img, _ = _card("K", (0, 0, 200))
    dark = scenes._darken_red(img, 0.4)
    assert dark.shape == img.shape and dark[:, :, 3].tolist() == img[:, :, 3].tolist()
    red_px = img[:, :, 2] > 150
    red_px &= img[:, :, 1] < 60
    assert dark[:, :, 2][red_px].mean() < 0.6 * img[:, :, 2][red_px].mean()   # red ink is darker
    out = scenes._photometric(np.random.default_rng(1), np.full((64, 64, 3), 128, np.uint8))
    assert out.shape == (64, 64, 3) and out.dtype == np.uint8


def test_generated_decks_have_exact_corner_indices():
    from tableref.datasets import generated

    if not generated.available():
        pytest.skip("resvg-py or matplotlib's fonts not installed (the 'train' extra)")
    for name, spec in generated.DESIGNS.items():
        img = generated.render_card(name, "10H", 280)
        h, w = img.shape[:2]
        assert h == 280 and img[h // 2, w // 2, 3] == 255 and img[0, 0, 3] < 128   # rounded corner
        boxes = generated.index_boxes(name, "10H", 280)
        assert len(boxes) == spec["corners"]
        tl, br = boxes[0], boxes[1]
        assert tl[0] < 0.1 * w and tl[1] < 0.1 * h and tl[3] < 0.45 * h
        assert br[2] > 0.9 * w and br[3] > 0.9 * h
        # red ink inside the top-left box
        patch = img[tl[1]:tl[3], tl[0]:tl[2]].astype(int)
        assert ((patch[:, :, 0] - patch[:, :, 1]) > 40).mean() > 0.05


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


def test_printed_text_is_clutter_never_a_label(pool):
    """Text on the table (words, numbers, lone ranks) is drawn, carries no label, and leaves the default
    random stream alone (older recipes rebuild the same images)."""
    plain = scenes.render_scene(np.random.default_rng(5), pool, 256, 256, size=(10, 40))
    again = scenes.render_scene(np.random.default_rng(5), pool, 256, 256, size=(10, 40), text_p=0.0)
    assert np.array_equal(plain.image, again.image) and plain.clutter == []
    with_text = [scenes.render_scene(np.random.default_rng(s), pool, 256, 256, size=(10, 40), text_p=1.0)
                 for s in range(6)]
    assert all(sc.clutter for sc in with_text)
    for sc in with_text:
        for b in sc.clutter:
            assert 0 <= b[0] < b[2] <= 256 and 0 <= b[1] < b[3] <= 256
        assert {lab.card for lab in sc.indices} <= {"AS", "KH", "10D", "7C"}
    # the words are ink on the picture: the text boxes differ from a blank table
    sc = with_text[0]
    x1, y1, x2, y2 = (int(v) for v in sc.clutter[0])
    assert sc.image[y1:y2 + 1, x1:x2 + 1].std() > 3


def test_build_with_text_cuts_none_crops_from_text(tmp_path, pool):
    build.build(tmp_path, n_train=2, n_val=0, n_cls_scenes=4, n_cls_val_scenes=0, seed=2, workers=1, pool=pool,
                text_p=1.0, layout_weights={"tightfan": 1.0})
    assert list((tmp_path / "classifier" / "train" / "none").glob("*_t*.png"))
    recipe = json.loads((tmp_path / "build.json").read_text())
    assert recipe["text_p"] == 1.0 and recipe["layout_weights"] == {"tightfan": 1.0}


def test_readable_glyphs_labels_indices_cut_by_a_neighbour(tmp_path, pool):
    """With ``readable`` an index a neighbour cuts is a label when enough of its rank's and suit's ink is
    seen, boxed by that ink; the default keeps whole glyphs only (the older recipes rebuild the same)."""
    scs = [scenes.render_scene(np.random.default_rng(s), pool, 256, 256, size=(12, 40), layout_weights={"tightfan": 1.0})
           for s in range(8)]
    added = 0
    for sc in scs:
        whole = {lab.card_id: lab for lab in sc.labels()}
        cut = {lab.card_id: lab for lab in sc.labels(readable=0.5)}
        assert set(whole) <= set(cut) and all(cut[k].box == whole[k].box for k in whole)
        for k in set(cut) - set(whole):
            lab = cut[k]
            assert lab.glyphs >= 0.5 and lab.glyphs < scenes.GLYPHS_VISIBLE and lab.box == lab.ink_box
            added += 1
    assert added > 0

    def counts(out):
        crops = [f for f in (out / "classifier" / "train").glob("*/*.png") if f.parent.name != "none"]
        boxes = sum(len(f.read_text().splitlines()) for f in (out / "detector" / "labels" / "train").glob("*.txt"))
        return len(crops), boxes
    kw = dict(n_train=12, n_val=0, n_cls_scenes=6, n_cls_val_scenes=0, seed=4, workers=1, pool=pool,
              layout_weights={"tightfan": 1.0})
    build.build(tmp_path / "whole", **kw)
    build.build(tmp_path / "cut", readable_glyphs=0.5, **kw)
    (crops0, boxes0), (crops1, boxes1) = counts(tmp_path / "whole"), counts(tmp_path / "cut")
    assert crops1 > crops0 and boxes1 > boxes0
    assert json.loads((tmp_path / "cut" / "build.json").read_text())["readable_glyphs"] == 0.5
    assert json.loads((tmp_path / "whole" / "build.json").read_text())["readable_glyphs"] is None
    assert json.loads((tmp_path / "whole" / "build.json").read_text())["box_jitter"] == build.BOX_JITTER


def test_cli_rejects_bad_layout_and_text_options():
    for extra, word in ((["--layout", "spiral=1"], "--layout"), (["--layout", "fan=x"], "--layout"),
                        (["--text-clutter", "2"], "--text-clutter"), (["--readable-glyphs", "0"], "--readable-glyphs"),
                        (["--readable-glyphs", "1.5"], "--readable-glyphs"), (["--box-jitter", "-1"], "--box-jitter")):
        p = subprocess.run([sys.executable, "-m", "tableref", "dataset", "build", "--n-train", "0", *extra],
                           capture_output=True, text=True)
        assert p.returncode == 2 and word in p.stderr and "Traceback" not in p.stderr
