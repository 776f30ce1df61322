"""Lone cards found by their outline (vision.outlines), on composed scenes (no model needed)."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tableref.vision.assembly import IndexGeometry
from tableref.training.evaluation import table_background
from tableref.vision.outlines import find_card_quads, index_boxes_for_quad, point_in_quad

FIXTURES = Path(__file__).parent / "fixtures"


def white_card(canvas, centre, angle, h):
    w = h / 1.4
    box = cv2.boxPoints(((centre[0], centre[1]), (w, h), angle))
    cv2.fillConvexPoly(canvas, box.astype(np.int32), (245, 245, 245))
    cv2.circle(canvas, (int(centre[0]), int(centre[1])), int(h / 6), (30, 30, 200), -1)   # a pip
    return box


def test_separate_cards_are_found_with_their_quads():
    img = table_background(900, 600, seed=1)
    truth = [white_card(img, (200, 200), 10, 220), white_card(img, (600, 300), -35, 200),
             white_card(img, (300, 470), 90, 160)]
    quads = find_card_quads(img)
    assert len(quads) == 3
    for q in quads:
        t = min(truth, key=lambda b: np.linalg.norm(b.mean(axis=0) - q.mean(axis=0)))
        assert np.linalg.norm(t.mean(axis=0) - q.mean(axis=0)) < 6
        assert cv2.contourArea(q.astype(np.float32)) == pytest.approx(cv2.contourArea(t), rel=0.12)


def test_overlapping_cards_are_left_to_the_index_detector():
    img = table_background(900, 600, seed=2)
    white_card(img, (300, 300), 0, 240)
    white_card(img, (380, 330), 20, 240)
    assert find_card_quads(img) == []


def test_blank_table_and_non_card_shapes():
    img = table_background(640, 480, seed=3)
    assert find_card_quads(img) == []
    cv2.rectangle(img, (100, 100), (400, 130), (250, 250, 250), -1)   # a long white strip
    cv2.circle(img, (500, 300), 60, (250, 250, 250), -1)               # a white disc
    assert find_card_quads(img) == []


def test_the_detector_view_shrunk_already_gives_the_same_outlines():
    """The recogniser hands the outline finder its full view's picture (the frame shrunk as the
    finder shrinks it): the same quads as shrinking the frame again; a picture of another size is
    not used."""
    from tableref.vision.outlines import shrunk_size
    from tableref.vision.views import letterbox_view, render_view, shown_whole

    img = table_background(1280, 720, seed=4)
    white_card(img, (300, 300), 15, 260)
    white_card(img, (900, 400), -20, 240)
    view = letterbox_view(1280, 720, 640, rect_stride=32)
    shrunk = shown_whole(render_view(img, view), view, 1280, 720)
    assert shrunk.shape[1::-1] == shrunk_size(1280, 720) == (640, 360)
    np.testing.assert_array_equal(shrunk, cv2.resize(img, (640, 360), interpolation=cv2.INTER_AREA))
    plain = find_card_quads(img)
    assert len(plain) == 2
    for given in (shrunk, shrunk[:-1]):         # the second is the wrong size: resized again
        quads = find_card_quads(img, shrunk=given)
        assert len(quads) == 2 and all(np.array_equal(a, b) for a, b in zip(quads, plain))
    # a view that shows part of the image only, or enlarges it, holds no shrunk whole picture
    assert shown_whole(render_view(img, letterbox_view(1280, 720, 640, scale=1.0)),
                       letterbox_view(1280, 720, 640, scale=1.0), 1280, 720) is None


def test_fixture_cards_apart_outlines():
    truth = json.loads((FIXTURES / "cards_apart.json").read_text())["cards"]
    quads = find_card_quads(cv2.imread(str(FIXTURES / "cards_apart.jpg")))
    assert len(quads) == len(truth)
    for c in truth:
        centre = np.mean(c["quad"], axis=0)
        assert any(point_in_quad(centre, q) for q in quads)


def test_index_boxes_lie_in_the_card_corners():
    quad = np.array([[100, 100], [200, 100], [200, 240], [100, 240]], np.float32)   # upright card
    (card_quad, boxes), (card_quad2, boxes2) = index_boxes_for_quad(quad, IndexGeometry())
    tl, br = boxes
    assert tl[0] == pytest.approx(100 + 100 * (0.09 - 0.045), abs=1) and tl[1] == pytest.approx(100 + 140 * (0.13 - 0.095), abs=1)
    assert br[2] == pytest.approx(200 - 100 * (0.09 - 0.045), abs=1) and br[3] == pytest.approx(240 - 140 * (0.13 - 0.095), abs=1)
    assert card_quad[0] == [100, 100] and card_quad2[0] == [200, 240]
    # a card lying on its side: the short edge is still "top"
    side = np.array([[100, 100], [240, 100], [240, 200], [100, 200]], np.float32)
    (q, b), _ = index_boxes_for_quad(side, IndexGeometry())
    assert np.linalg.norm(np.subtract(q[1], q[0])) == pytest.approx(100)


def test_only_outlines_without_a_confident_card_inside_are_read():
    from tableref.vision.outlines import outlines_to_read
    from tableref.vision.types import DetectedCard

    def card(label, x, y, conf=0.9):
        return DetectedCard(label, conf, (x - 5, y - 8, x + 5, y + 8))

    lone = np.array([[0, 0], [70, 0], [70, 100], [0, 100]], np.float32)
    meld = lone + np.float32([200, 0])               # a meld of identical cards seen as one outline
    weak = lone + np.float32([400, 0])
    known = [card("3C", 210, 10), card("3C", 225, 10), card("3C", 260, 50), card("9H", 430, 40, conf=0.2)]
    keep = outlines_to_read([lone, meld, weak], known, min_confidence=0.35)
    assert [int(q[0][0]) for q in keep] == [0, 400]


def test_the_histogram_percentile_is_numpys():
    import numpy as np

    from tableref.vision.outlines import percentile_u8

    rng = np.random.default_rng(0)
    for i in range(300):
        h, w = (int(v) for v in rng.integers(1, 120, 2))
        img = rng.integers(0, 256, (h, w)).astype(np.uint8) if i % 2 else (rng.random((h, w)) ** 3 * 255).astype(np.uint8)
        for q in (0.0, 37.3, 50.0, 99.5, 100.0):
            assert percentile_u8(img, q) == float(np.percentile(img, q))
