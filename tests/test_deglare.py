"""A lamp's glare taken off a camera's frame (vision/recognition/images.deglare)."""
from __future__ import annotations

import cv2
import numpy as np

from tableref.datasets import camera_effects as ce
from tableref.vision.recognition.images import deglare
from tableref.vision.recognition.presets import camera_preset, photo_preset


def _table() -> np.ndarray:
    """Cards' white paper (210) with printed indices (ink 40) on a green cloth, 1280x720."""
    img = np.full((720, 1280, 3), (40, 110, 30), np.uint8)
    for x in range(80, 1200, 160):
        cv2.rectangle(img, (x, 100), (x + 130, 620), (210, 210, 210), -1)
        for y in range(130, 600, 70):
            cv2.putText(img, "8", (x + 15, y + 40), cv2.FONT_HERSHEY_SIMPLEX, 1.4, (40, 40, 40), 3)
    return img


def test_a_frame_without_glare_is_read_as_it_is():
    img = _table()
    assert deglare(img) is img


def test_the_ink_under_a_glare_spot_comes_back_and_the_rest_is_untouched():
    img = _table()
    glared = ce.glare(img, 0.05, np.random.default_rng(0), centre=(640.0, 360.0))
    out = deglare(glared)
    ink = cv2.inRange(img, (39, 39, 39), (41, 41, 41)) > 0
    middle = np.zeros(ink.shape, bool)
    middle[320:400, 560:720] = True          # inside the spot's bright core
    assert glared[ink & middle].min() > 200  # the ink washed out
    paper = cv2.inRange(img, (209, 209, 209), (211, 211, 211)) > 0
    assert glared[paper & middle].mean() - glared[ink & middle].mean() < 20
    assert out[paper & middle].mean() - out[ink & middle].mean() > 60     # the index stands out again
    far = np.zeros(ink.shape, bool)
    far[:, :250] = True                      # well outside the spot
    assert np.array_equal(out[far], glared[far])


def test_a_camera_takes_glare_off_and_a_photo_does_not():
    assert camera_preset().deglare and camera_preset(quick=True).deglare
    assert not photo_preset().deglare
