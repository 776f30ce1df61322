"""The ink of an index against its suit's colour (``vision.recognition.ink``)."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from tableref.vision.recognition import camera_preset
from tableref.vision.recognition import ink
from tableref.vision.recognition.confidence import split_cards
from tableref.vision.types import DetectedCard

PAPER = (236, 240, 242)          # BGR: a slightly warm white card
BLACK_INK = (30, 28, 26)
RED_INK = (40, 30, 190)
PINK_INK = (170, 160, 245)
BLUE_INK = (170, 60, 20)         # a four-colour deck's diamonds
GREEN_INK = (40, 130, 20)        # ... and clubs
FELT = (40, 110, 30)


def index_picture(ink_bgr, size=(24, 40)) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A card corner on green felt: a rank and a suit blob in ``ink_bgr`` on the paper; the index box."""
    img = np.full((120, 160, 3), FELT, np.uint8)
    cv2.rectangle(img, (40, 20), (150, 119), PAPER, -1)
    w, h = size
    x, y = 50, 30
    cv2.putText(img, "9", (x + 2, y + h // 2), cv2.FONT_HERSHEY_SIMPLEX, 0.7, ink_bgr, 2)
    cv2.circle(img, (x + w // 2, y + 3 * h // 4), 6, ink_bgr, -1)
    return img, (x - 2, y - 2, x + w + 2, y + h + 2)


def soft(img, sigma=2.0):
    return cv2.GaussianBlur(img, (0, 0), sigma)


def dim_and_warm(img):
    return np.clip(img.astype(np.float32) * np.array([0.35, 0.45, 0.55]), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("change", [lambda i: i, soft, dim_and_warm, lambda i: dim_and_warm(soft(i))])
def test_black_and_red_ink_are_told_apart_in_soft_dim_and_warm_pictures(change):
    black, box = index_picture(BLACK_INK)
    red, _ = index_picture(RED_INK)
    assert ink.ink_colour(change(black), box) == ink.BLACK
    assert ink.ink_colour(change(red), box) == ink.RED


def test_pale_blue_and_green_inks_are_never_called_black():
    for colour in (PINK_INK, BLUE_INK, GREEN_INK):
        img, box = index_picture(colour)
        assert ink.ink_colour(img, box) != ink.BLACK
    for colour in (BLUE_INK, GREEN_INK):
        img, box = index_picture(colour)
        assert ink.ink_colour(img, box) != ink.RED


def test_a_suit_is_contradicted_only_by_plainly_the_other_colour():
    black, box = index_picture(BLACK_INK)
    red, _ = index_picture(RED_INK)
    blue, _ = index_picture(BLUE_INK)
    assert ink.contradicts(black, [box], "9D") and ink.contradicts(black, [box], "9H")
    assert not ink.contradicts(black, [box], "9C") and not ink.contradicts(black, [box], "9S")
    assert ink.contradicts(red, [box], "9C") and not ink.contradicts(red, [box], "9D")
    assert not ink.contradicts(blue, [box], "9D")          # a four-colour deck's diamond
    blank = np.full((120, 160, 3), PAPER, np.uint8)
    assert ink.ink_colour(blank, box) is None               # no ink: nothing told
    # one corner red, the other black (a neighbour's glyph in one box): not plainly contradicted
    both = np.hstack([red, black])
    other = (box[0] + 160, box[1], box[2] + 160, box[3])
    assert not ink.contradicts(both, [box, other], "9D") and not ink.contradicts(both, [box, other], "9C")


def test_a_picture_without_colour_tells_nothing():
    black, box = index_picture(BLACK_INK)
    grey = cv2.cvtColor(cv2.cvtColor(black, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    assert ink.has_colour(black) and not ink.has_colour(grey)
    card = DetectedCard("9D", 0.8, (40, 20, 150, 119), indices=[box])
    assert [c.card for c in split_cards([card], camera_preset(), set(), image=grey)[0]] == ["9D"]


def test_whether_a_picture_has_colour_is_asked_once_a_picture(monkeypatch):
    """The frame's ink memo keeps the answer: the steer and the doubt of one frame ask it once."""
    black, box = index_picture(BLACK_INK)
    asked = []
    real = ink.has_colour
    monkeypatch.setattr(ink, "has_colour", lambda image: asked.append(1) or real(image))
    memo: dict = {}
    misread = DetectedCard("9D", 0.8, (40, 20, 150, 119), indices=[box])
    probs = np.zeros((1, 3), np.float32)
    probs[0] = (0.6, 0.4, 0.0)
    ink.steer(black, [box], probs, ["9D", "9C", "none"], memo)
    assert split_cards([misread], camera_preset(), set(), image=black, ink_memo=memo)[0] == []
    assert asked == [1]
    assert ink.picture_has_colour(black) and len(asked) == 2      # without a memo: asked each time


def test_a_card_whose_ink_contradicts_its_suit_is_an_unsure_reading():
    img, box = index_picture(BLACK_INK)
    misread = DetectedCard("9D", 0.8, (40, 20, 150, 119), indices=[box])
    sure, unsure = split_cards([misread], camera_preset(), set(), image=img)
    assert sure == [] and unsure == [misread]
    # without the picture, or with the check off, it is reported
    assert split_cards([misread], camera_preset(), set())[0] == [misread]
    assert split_cards([misread], camera_preset(doubt_ink=False), set(), image=img)[0] == [misread]
    right = DetectedCard("9C", 0.8, (40, 20, 150, 119), indices=[box])
    assert split_cards([right], camera_preset(), set(), image=img)[0] == [right]


def test_the_ink_confirms_a_reading_of_its_colour_and_never_picks_one():
    names = ["9C", "9D", "9S", "2H", "none"]
    img, box = index_picture(BLACK_INK)
    soft_img = soft(img)
    probs = np.array([[0.43, 0.21, 0.19, 0.07, 0.10],     # 9C, half taken for a 9D: the ink is black
                      [0.20, 0.45, 0.15, 0.10, 0.10],     # read red where the ink is black: left alone
                      [0.12, 0.11, 0.10, 0.12, 0.55]])    # a shrug: left alone
    out = ink.steer(soft_img, [box] * 3, probs, names)
    assert out[0].argmax() == 0 and out[0][0] > 0.55
    assert out[0][1] == 0.0 and out[0][3] == 0.0 and out[0][4] == pytest.approx(0.10)
    assert out[0].sum() == pytest.approx(1.0)
    np.testing.assert_array_equal(out[1:], probs[1:])
    # red ink confirms the red reading
    red_img, red_box = index_picture(RED_INK)
    out = ink.steer(soft(red_img), [red_box], probs[1:2], names)
    assert out[0][0] == 0.0 and out[0][2] == 0.0 and out[0][1] > 0.6
    # a picture without colour tells nothing
    grey = cv2.cvtColor(cv2.cvtColor(soft_img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    np.testing.assert_array_equal(ink.steer(grey, [box] * 3, probs, names), probs)
