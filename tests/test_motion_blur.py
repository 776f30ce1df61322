"""A shaken camera's frame: its motion blur measured in the index boxes (images.motion_blur), and a frame
blurred along one direction by much of its indices' height declared blurred and not read."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from tableref.datasets import camera_effects as ce
from tableref.vision.recognition import CardRecognizer, camera_preset, photo_preset
from tableref.vision.recognition.images import motion_blur
from tableref.vision.recognition.presets import MOTION_MIN_PX

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _indices(n: int = 24) -> tuple[np.ndarray, list[tuple[float, float, float, float]]]:
    """Printed ranks (ink 40 on white paper) on a green cloth, and their boxes."""
    img = np.full((720, 1280, 3), (40, 110, 30), np.uint8)
    boxes = []
    for k in range(n):
        x, y = 60 + (k % 8) * 150, 80 + (k // 8) * 200
        cv2.rectangle(img, (x - 20, y - 20), (x + 110, y + 150), (215, 215, 215), -1)
        cv2.putText(img, "AKQJ1098765432"[k % 13] + "8", (x, y + 45), cv2.FONT_HERSHEY_SIMPLEX, 1.3,
                    (40, 40, 40), 3)
        cv2.circle(img, (x + 20, y + 80), 14, (40, 40, 40), -1)
        boxes.append((x - 6.0, y + 2.0, x + 70.0, y + 100.0))
    return img, boxes


def test_a_sharp_or_evenly_soft_picture_measures_no_motion_blur():
    img, boxes = _indices()
    assert motion_blur(img, boxes) < 1.5
    # out of focus: soft, but alike all round (under the least blur ever declared)
    assert motion_blur(ce.defocus(img, 2.0), boxes) < MOTION_MIN_PX
    assert motion_blur(img, []) == 0.0


@pytest.mark.parametrize("angle", [0.0, 35.0, 90.0, 140.0])
def test_a_blur_along_one_direction_is_measured_at_any_angle(angle):
    img, boxes = _indices()
    for length in (3.0, 4.0):
        assert motion_blur(ce.motion_blur(img, length, angle), boxes) == pytest.approx(length, rel=0.3)
    # longer than the strokes are thick, the edges of a stroke run into each other: measured longer still
    for length in (6.0, 9.0):
        assert motion_blur(ce.motion_blur(img, length, angle), boxes) > 5.0


@pytest.fixture(scope="module")
def table():
    return cv2.imread(str(FIXTURES / "meld_and_duplicates.jpg"))


@pytest.fixture(scope="module")
def camera():
    return CardRecognizer(config=camera_preset())


def test_a_shaken_frame_is_declared_blurred_and_not_read(table, camera):
    assert len(camera.recognize(table)) >= 6 and not camera.last_stats.blurred
    assert len(camera.recognize(ce.motion_blur(table, 2.0, 30.0))) >= 6 and not camera.last_stats.blurred
    shaken = ce.motion_blur(table, 9.0, 30.0)
    assert camera.recognize(shaken) == []
    assert camera.last_stats.blurred and camera.last_stats.motion_blur > 5.0
    obs = camera.observe(shaken, t=1.0)
    assert obs.cards == [] and obs.unsure == [] and not obs.read
    # asked to read it all the same (a camera whose every frame is so), it is read
    forced = camera.observe(shaken, t=1.1, read_blurred=True)
    assert forced.read and forced.cards


def test_the_training_crops_ask_whether_a_frame_would_be_declared_blurred(table, camera):
    boxes, _ = camera.find_indices(table)
    assert len(boxes) >= 6 and not camera.declared_blurred(table, boxes)
    shaken = ce.motion_blur(table, 9.0, 30.0)
    assert camera.declared_blurred(shaken, camera.find_indices(shaken)[0])
    assert not camera.declared_blurred(shaken, boxes[:3])        # too few indices to measure


def test_a_photo_is_never_declared_blurred(table):
    photo = CardRecognizer(config=photo_preset())
    photo.recognize(ce.motion_blur(table, 9.0, 30.0))
    assert not photo.last_stats.blurred
