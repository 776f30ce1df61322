"""vision.geometry: exact quad overlap, box overlaps, the neighbourhood grid."""
from __future__ import annotations

import numpy as np
import pytest

from tableref.vision.geometry import PointGrid, overlap_of_smaller, pairwise_overlap, points_in_quad, quads_overlap


def test_quads_overlap_is_exact():
    a = [[0, 0], [10, 0], [10, 10], [0, 10]]
    assert quads_overlap(a, [[5, 0], [15, 0], [15, 10], [5, 10]]) == pytest.approx(0.5)
    assert quads_overlap(a, [[2, 2], [4, 2], [4, 4], [2, 4]]) == pytest.approx(1.0)     # the smaller inside
    assert quads_overlap(a, [[20, 0], [30, 0], [30, 10], [20, 10]]) == 0.0
    diamond = [[5, -5], [15, 5], [5, 15], [-5, 5]]                                        # turned 45°
    assert quads_overlap(a, diamond) == pytest.approx(1.0, rel=1e-4)       # the square lies inside it


def test_one_pair_overlap_agrees_with_the_matrix():
    rng = np.random.default_rng(1)
    for _ in range(200):
        a, b = (sorted(rng.uniform(0, 50, 2)) for _ in range(2)), (sorted(rng.uniform(0, 50, 2)) for _ in range(2))
        (ax1, ax2), (ay1, ay2) = a
        (bx1, bx2), (by1, by2) = b
        ba, bb = (ax1, ay1, ax2, ay2), (bx1, by1, bx2, by2)
        assert overlap_of_smaller(ba, bb) == pytest.approx(float(pairwise_overlap([ba], [bb])[1][0, 0]), abs=1e-4)


def test_points_in_quad_few_and_many_points_agree():
    rng = np.random.default_rng(2)
    quad = [[10, 0], [40, 10], [30, 40], [0, 30]]
    pts = rng.uniform(-5, 45, (50, 2))
    many = points_in_quad(pts, quad, 0.8)
    few = np.concatenate([points_in_quad(pts[i:i + 5], quad, 0.8) for i in range(0, 50, 5)])
    assert (many == few).all() and many.any() and not many.all()


def test_grid_finds_every_point_within_the_radius_in_key_order():
    rng = np.random.default_rng(3)
    pts = rng.uniform(0, 1000, (300, 2))
    grid = PointGrid(37.0)
    for k, (x, y) in enumerate(pts):
        grid.add(k, x, y)
    for x, y, r in [(500, 500, 60), (0, 0, 200), (990, 10, 15), (500, 500, 5000)]:
        near = grid.near(x, y, r)
        assert near == sorted(near)
        within = {k for k, (px, py) in enumerate(pts) if np.hypot(px - x, py - y) <= r}
        assert within <= set(near)
