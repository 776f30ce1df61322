"""Plane geometry of index boxes and card quads (numpy and OpenCV; no models, no I/O).

Boxes are ``(x1, y1, x2, y2)`` in image pixels; a quad is a card's four corners
``[[x, y] * 4]`` in order round the card. :class:`PointGrid` buckets points in
square cells so that "what lies near here" touches only the cells round a point:
the card assembly asks it instead of looping over every pair of readings, which
keeps its work linear in the number of cards on the table.
"""
from __future__ import annotations

import math
from collections import defaultdict

import cv2
import numpy as np


# --------------------------------------------------------------------------- boxes


def box_area(boxes: np.ndarray) -> np.ndarray:
    """Areas of (N, 4) boxes (degenerate boxes have area 0)."""
    return np.clip(boxes[:, 2] - boxes[:, 0], 0, None) * np.clip(boxes[:, 3] - boxes[:, 1], 0, None)


def pairwise_overlap(a, b) -> tuple[np.ndarray, np.ndarray]:
    """(IoU, intersection over the smaller box) matrices between two box sets (N, 4) and (M, 4)."""
    a = np.asarray(a, dtype=np.float32).reshape(-1, 4)
    b = np.asarray(b, dtype=np.float32).reshape(-1, 4)
    ix1 = np.maximum(a[:, None, 0], b[None, :, 0])
    iy1 = np.maximum(a[:, None, 1], b[None, :, 1])
    ix2 = np.minimum(a[:, None, 2], b[None, :, 2])
    iy2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(ix2 - ix1, 0, None) * np.clip(iy2 - iy1, 0, None)
    aa, ab = box_area(a)[:, None], box_area(b)[None, :]
    iou = inter / np.maximum(aa + ab - inter, 1e-9)
    ios = inter / np.maximum(np.minimum(aa, ab), 1e-9)
    return iou, ios


def overlapping_pairs(boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (i, j), i != j, of boxes whose x-ranges overlap (each pair once), by a sweep
    over the boxes sorted by their left edge."""
    n = len(boxes)
    by_x = np.argsort(boxes[:, 0], kind="stable")
    x1 = boxes[by_x, 0]
    # the boxes (in x order) starting before box k ends: k+1 .. end[k]-1
    end = np.searchsorted(x1, boxes[by_x, 2], side="right")
    counts = np.maximum(end - np.arange(n) - 1, 0)
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    first = np.repeat(np.arange(n), counts)
    offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    second = first + 1 + offsets
    return by_x[first], by_x[second]


def pairs_apart_in_x(xs: np.ndarray, reach: float) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (i, j), i < j, of points whose x coordinates ``xs`` lie at most ``reach`` apart
    (:func:`overlapping_pairs` of spans ``reach`` wide): a superset of the pairs within ``reach``
    of each other, to be tested exactly by the caller."""
    spans = np.zeros((len(xs), 4))
    spans[:, 0], spans[:, 2] = xs - reach / 2, xs + reach / 2
    i, j = overlapping_pairs(spans)
    return np.minimum(i, j), np.maximum(i, j)


def overlap_of_smaller(a, b) -> float:
    """The intersection of two boxes over the smaller one's area: one entry of
    :func:`pairwise_overlap`'s second matrix, in plain Python (a single pair is much cheaper
    without building arrays)."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    smaller = min(max(a[2] - a[0], 0.0) * max(a[3] - a[1], 0.0), max(b[2] - b[0], 0.0) * max(b[3] - b[1], 0.0))
    return ix * iy / max(smaller, 1e-9)


def box_size(boxes: np.ndarray) -> np.ndarray:
    """A rotation-tolerant size of index boxes: the longer side."""
    boxes = np.asarray(boxes, dtype=np.float32).reshape(-1, 4)
    return np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])


def bbox(points) -> tuple[float, float, float, float]:
    """The axis-aligned box round some points."""
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


def union(a, b) -> tuple:
    """The smallest box holding boxes ``a`` and ``b``."""
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


# --------------------------------------------------------------------------- card quads


def card_quad(centre: tuple[float, float], theta: float, card_w: float, aspect: float) -> list[list[float]]:
    """The card's corners TL, TR, BR, BL for a card centred at ``centre`` rotated by ``theta``.

    ``theta`` is normalised to (-90°, 90°] first (a card looks the same turned by 180°),
    so "top-left" is the corner that is top-left when the card is read most upright.
    """
    while theta <= -math.pi / 2:
        theta += math.pi
    while theta > math.pi / 2:
        theta -= math.pi
    c, s = math.cos(theta), math.sin(theta)
    hw, hh = card_w / 2.0, card_w * aspect / 2.0
    pts = []
    for ux, uy in ((-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh)):
        pts.append([centre[0] + c * ux - s * uy, centre[1] + s * ux + c * uy])
    return pts


def points_in_quad(pts, quad, shrink: float = 1.0) -> np.ndarray:
    """Which of the points (N, 2) lie inside the convex ``quad`` scaled by ``shrink`` about its centre
    (the edges count as inside)."""
    if len(pts) <= 8:
        # a few points: plain Python, the same sums (building arrays costs more than the test)
        qs = [(float(p[0]), float(p[1])) for p in quad]
        cx, cy = sum(p[0] for p in qs) / len(qs), sum(p[1] for p in qs) / len(qs)
        qs = [(cx + (x - cx) * shrink, cy + (y - cy) * shrink) for x, y in qs]
        edges = list(zip(qs, qs[1:] + qs[:1]))
        out = []
        for p in pts:
            px, py = float(p[0]), float(p[1])
            cross = [(bx - ax) * (py - ay) - (by - ay) * (px - ax) for (ax, ay), (bx, by) in edges]
            out.append(all(c >= 0 for c in cross) or all(c <= 0 for c in cross))
        return np.array(out, dtype=bool)
    q = np.asarray(quad, dtype=float).reshape(-1, 2)
    c = q.mean(axis=0)
    q = c + (q - c) * shrink
    pts = np.asarray(pts, dtype=float).reshape(-1, 2)
    a, b = q, np.roll(q, -1, axis=0)
    cross = (b[None, :, 0] - a[None, :, 0]) * (pts[:, None, 1] - a[None, :, 1]) - \
        (b[None, :, 1] - a[None, :, 1]) * (pts[:, None, 0] - a[None, :, 0])
    return (cross >= 0).all(axis=1) | (cross <= 0).all(axis=1)


def quad_area(quad) -> float:
    """Area of a polygon (pixels²)."""
    return abs(cv2.contourArea(np.asarray(quad, np.float32).reshape(-1, 1, 2)))


def quads_overlap(a, b) -> float:
    """How much of the smaller of two convex quads the other covers (0..1), exactly."""
    pa = np.asarray(a, np.float32).reshape(-1, 1, 2)
    pb = np.asarray(b, np.float32).reshape(-1, 1, 2)
    smaller = min(abs(cv2.contourArea(pa)), abs(cv2.contourArea(pb)))
    if smaller <= 1e-9:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(pa, pb)
    return float(min(max(inter, 0.0) / smaller, 1.0))


def half_diagonal(card_w: float, aspect: float) -> float:
    """Distance from a card's centre to its corners."""
    return 0.5 * card_w * math.hypot(1.0, aspect)


# --------------------------------------------------------------------------- neighbourhoods


class PointGrid:
    """Keyed points bucketed in square cells of side ``cell`` pixels.

    :meth:`near` returns the keys of the points in the cells that a square of
    half-side ``radius`` round a position touches (a superset of the points within
    ``radius``; the caller measures the exact distance), in ascending key order, so
    a search through them visits points in the order they were keyed.
    """

    def __init__(self, cell: float):
        self.cell = max(float(cell), 1e-3)
        self._cells: dict[tuple[int, int], list[int]] = defaultdict(list)
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def add(self, key: int, x: float, y: float) -> None:
        self._cells[(int(math.floor(x / self.cell)), int(math.floor(y / self.cell)))].append(key)
        self._count += 1

    def near(self, x: float, y: float, radius: float) -> list[int]:
        c = self.cell
        x1, x2 = math.floor((x - radius) / c), math.floor((x + radius) / c)
        y1, y2 = math.floor((y - radius) / c), math.floor((y + radius) / c)
        cells = self._cells
        if (x2 - x1 + 1) * (y2 - y1 + 1) > len(cells):
            # more cells asked for than there are filled ones: go through the filled ones
            keys = [k for (gx, gy), v in cells.items() if x1 <= gx <= x2 and y1 <= gy <= y2 for k in v]
        else:
            keys = []
            for gx in range(x1, x2 + 1):
                for gy in range(y1, y2 + 1):
                    v = cells.get((gx, gy))
                    if v:
                        keys.extend(v)
        keys.sort()
        return keys
