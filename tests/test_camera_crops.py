"""The camera's crop set: how a found box is labelled, and what a camera condition does to a frame."""
from __future__ import annotations

import numpy as np

from tableref.datasets import camera_crops
from tableref.datasets.scenes import IndexLabel


def _index(card, box, visibility=1.0, glyphs=1.0):
    x1, y1, x2, y2 = box
    quad = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float32)
    return IndexLabel(card=card, box=box, quad=quad, visibility=visibility, height=y2 - y1, card_id=0,
                      glyphs=glyphs)


def test_a_box_on_a_readable_index_is_that_card():
    indices = [_index("8H", (100, 100, 120, 140)), _index("8C", (130, 100, 150, 140))]
    assert camera_crops._label_of((101, 102, 121, 141), indices) == "8H"
    assert camera_crops._label_of((129, 98, 151, 139), indices) == "8C"


def test_a_box_on_no_index_or_a_hidden_one_is_none():
    indices = [_index("8H", (100, 100, 120, 140)), _index("KS", (300, 300, 320, 340), visibility=0.2, glyphs=0.3)]
    assert camera_crops._label_of((500, 500, 520, 540), indices) == "none"        # a pip, text, background
    assert camera_crops._label_of((300, 301, 320, 341), indices) == "none"        # mostly hidden


def test_a_half_seen_index_or_a_box_half_on_one_is_left_out():
    # neither a card nor certainly unreadable: taught as neither
    indices = [_index("6S", (100, 100, 120, 140), visibility=0.55, glyphs=0.7)]
    assert camera_crops._label_of((100, 100, 120, 140), indices) is None
    indices = [_index("6S", (100, 100, 120, 140))]
    assert camera_crops._label_of((110, 110, 132, 152), indices) is None        # overlap 0.1..0.35


def test_a_condition_keeps_the_frame_and_is_repeatable():
    rng = np.random.default_rng(0)
    img = rng.integers(0, 255, (72, 128, 3), dtype=np.uint8)
    a, what = camera_crops.degrade(img, np.random.default_rng(5))
    b, again = camera_crops.degrade(img, np.random.default_rng(5))
    assert a.shape == img.shape and a.dtype == np.uint8
    assert what == again and np.array_equal(a, b)
    assert not np.array_equal(a, img)        # sensor noise at least


def test_a_bad_layout_or_models_folder_is_a_clear_error(tmp_path, capsys):
    assert camera_crops.main(["--out", str(tmp_path / "o"), "--layout", "spiral=1"]) == 2
    assert "--layout spiral=1" in capsys.readouterr().err
    assert camera_crops.main(["--out", str(tmp_path / "o"), "--layout", "row=-1"]) == 2
    assert camera_crops.main(["--out", str(tmp_path / "o"), "--models", str(tmp_path / "nowhere")]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert camera_crops.main(["--out", str(tmp_path / "o"), "--legible", "sure"]) == 2
    assert camera_crops.main(["--out", str(tmp_path / "o"), "--wrong-as-none", "1.5"]) == 2
    assert "--wrong-as-none 1.5" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_a_found_box_knows_the_index_it_overlaps_most():
    indices = [_index("8H", (100, 100, 120, 140)), _index("8C", (130, 100, 150, 140), visibility=0.5, glyphs=0.5)]
    assert camera_crops._nearest((128, 100, 148, 140), indices)[1].card == "8C"
    assert camera_crops._nearest((500, 500, 520, 540), indices) == (0.0, None)


def test_soft_crops_can_be_cut_from_the_picture_the_recogniser_reads(tmp_path, monkeypatch):
    import cv2

    from tableref.vision.recognition import CardRecognizer, camera_preset

    rec = CardRecognizer(threads=1, config=camera_preset())
    sharp = np.full((360, 640, 3), 235, np.uint8)
    cv2.putText(sharp, "8H 10C KS", (40, 200), cv2.FONT_HERSHEY_SIMPLEX, 3.0, (20, 20, 20), 6)
    soft = cv2.GaussianBlur(sharp, (0, 0), 2.0)
    assert camera_crops.cut_from(rec, soft, False) is soft
    read = camera_crops.cut_from(rec, soft, True)
    assert np.array_equal(read, rec.picture(soft)) and not np.array_equal(read, soft)     # sharpened
    seen = []

    def build(*args):
        seen.append(args[9:])       # as_read, defocus_share, skip_blurred
        raise RuntimeError("only the arguments are looked at")

    monkeypatch.setattr(camera_crops, "build", build)
    assert camera_crops.main(["--out", str(tmp_path / "o"), "--as-read"]) == 1
    assert camera_crops.main(["--out", str(tmp_path / "o"), "--defocus-share", "0.6", "--skip-blurred"]) == 1
    assert seen == [(True, camera_crops.DEFOCUS_SHARE, False), (False, 0.6, True)]


def test_the_share_of_defocused_tables_is_a_choice():
    img = np.full((72, 128, 3), 128, np.uint8)
    said = [camera_crops.degrade(img, np.random.default_rng(k), share)[1] for share in (1.0, 0.0) for k in range(40)]
    assert all(w.startswith("defocus") for w in said[:40])
    assert not any(w.startswith("defocus") for w in said[40:])
    assert any(w.startswith("motion") for w in said[40:]) and any(w.startswith("640x360") for w in said[40:])
    # the default share keeps the conditions drawn as before for a seed
    assert camera_crops.degrade(img, np.random.default_rng(3))[1] == camera_crops.degrade(
        img, np.random.default_rng(3), 0.4)[1]


def test_a_bad_defocus_share_is_a_clear_error(tmp_path, capsys):
    assert camera_crops.main(["--out", str(tmp_path / "o"), "--defocus-share", "1.5"]) == 2
    assert "--defocus-share 1.5" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
