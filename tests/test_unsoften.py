"""A soft camera's blur measured and partly undone (vision/recognition/images.blur_sigma, unsoften)."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from tableref.datasets import camera_effects as ce
from tableref.vision.recognition.images import SOFT_SIGMA, blur_sigma, unsoften, unsoften_amount
from tableref.vision.recognition.presets import camera_preset, live_table_preset, photo_preset


def _table(width: int = 1280, height: int = 720) -> np.ndarray:
    """Cards' white paper with crisp printed indices (ink 40) on a green cloth."""
    img = np.full((height, width, 3), (40, 110, 30), np.uint8)
    for x in range(40, width - 150, 160):
        cv2.rectangle(img, (x, 60), (x + 130, height - 60), (215, 215, 215), -1)
        for y in range(90, height - 120, 70):
            cv2.putText(img, "8", (x + 15, y + 40), cv2.FONT_HERSHEY_SIMPLEX, 1.4, (40, 40, 40), 3)
    return img


def test_a_sharp_picture_is_measured_sharp_and_read_as_it_is():
    img = _table()
    assert blur_sigma(img) < SOFT_SIGMA
    assert unsoften(img) is img


@pytest.mark.parametrize("sigma", [1.5, 2.0, 2.5])
def test_the_blur_of_a_defocused_picture_is_measured(sigma):
    measured = blur_sigma(ce.defocus(_table(), sigma))
    assert measured == pytest.approx(sigma, rel=0.2)


def test_a_big_picture_is_measured_in_its_own_pixels():
    measured = blur_sigma(ce.defocus(_table(2560, 1440), 3.0))
    assert measured == pytest.approx(3.0, rel=0.25)


def test_a_defocused_picture_is_sharpened_back_part_of_the_way():
    soft = ce.defocus(_table(), 2.0)
    out = unsoften(soft)
    assert out is not soft and out.shape == soft.shape and out.dtype == np.uint8
    assert blur_sigma(ce.defocus(_table(), 0.9)) < blur_sigma(out) < blur_sigma(soft)


def test_the_amount_grows_with_the_blur_and_is_capped():
    amounts = [unsoften_amount(s) for s in (1.0, 1.3, 1.7, 2.1, 3.0, 9.0, float("inf"))]
    assert amounts[0] == 0.0 and amounts[-1] == 0.0
    assert 0 < amounts[1] < amounts[2] < amounts[3] <= amounts[4] == amounts[5]


def test_a_blank_picture_is_left_alone():
    img = np.full((360, 640, 3), 128, np.uint8)
    assert unsoften(img) is img


def test_a_camera_unsoftens_and_a_photo_does_not():
    assert camera_preset().unsoften and camera_preset(quick=True).unsoften
    assert live_table_preset(one_pack=True).unsoften
    assert not photo_preset().unsoften


def test_every_tables_camera_loop_reads_a_soft_frame_sharpened_unless_told_to_sharpen_for_the_detector_alone():
    """A soft frame is sharpened for the detector and the classifier alike on a three-pack table as on
    one pack (the real fanned deal's defocused Marriage feeds read more cards so, none wrong: the 10C's
    index is read); ``unsoften_reads=False`` leaves the classifier the frame as the camera gave it."""
    from tableref.vision.recognition import CardRecognizer

    soft = ce.defocus(_table(), 2.0)
    sharpened = unsoften(soft, unsoften_amount(blur_sigma(soft)))
    for config in (live_table_preset(several_packs=True, count=True), live_table_preset(one_pack=True)):
        read, detected = CardRecognizer(config=config).pictures(soft)
        assert read is detected and np.array_equal(read, sharpened)
    config = live_table_preset(several_packs=True, count=True, unsoften_reads=False)
    read, detected = CardRecognizer(config=config).pictures(soft)
    assert read is soft and np.array_equal(detected, sharpened)


def test_a_fixed_camera_measures_its_focus_once_in_a_while_and_a_new_size_at_once():
    from tableref.vision.recognition import CardRecognizer

    rec = CardRecognizer(config=live_table_preset())
    n = rec.config.reuse_scale_frames
    soft, sharp = ce.defocus(_table(), 2.0), _table()
    first = rec.picture(soft)
    assert first is not soft
    # the next frames keep the amount measured (a sharp frame meanwhile is sharpened alike) ...
    for _ in range(n):
        assert np.array_equal(rec.picture(sharp), unsoften(sharp, unsoften_amount(blur_sigma(soft))))
    # ... then the focus is measured again, and kept
    assert rec.picture(sharp) is sharp
    assert rec.picture(soft) is soft
    # a frame of another size is measured at once
    small = ce.defocus(_table(960, 540), 2.0)
    assert rec.picture(small) is not small
