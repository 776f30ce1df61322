"""Whole cards found by their outline: light card-shaped quadrilaterals on the table.

A card lying apart from the others is a bright, unsaturated rectangle of a card's
proportions. :func:`find_card_quads` finds such outlines (no model involved);
:func:`index_boxes_for_quad` gives, for a found card, the boxes where its corner
indices must be printed, so the index classifier can read them even when the
index detector missed them. Overlapping cards merge into one blob that is not
card-shaped and are left to the index detector.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from tableref.vision.index_layout import IndexGeometry


def _order_quad(pts: np.ndarray) -> np.ndarray:
    """Corners in order around the quad, starting at the one nearest the image origin, clockwise."""
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    pts = pts[np.argsort(ang)]
    start = int(np.argmin(pts.sum(axis=1)))
    return np.roll(pts, -start, axis=0)


def find_card_quads(image: np.ndarray, min_area_frac: float = 0.002, max_area_frac: float = 0.6,
                    work_side: int = 640, white_rel: float = 0.7, hull_fill: float = 0.8,
                    rect_fill: float = 0.85, aspect_range: tuple[float, float] = (1.2, 1.7)) -> list[np.ndarray]:
    """Quads (4×2 float, image pixels) of light card-shaped outlines in a BGR image."""
    h, w = image.shape[:2]
    f = min(1.0, work_side / max(h, w))
    small = cv2.resize(image, (max(1, int(round(w * f))), max(1, int(round(h * f)))),
                       interpolation=cv2.INTER_AREA) if f < 1 else image
    # card paper: the whitest part of the scene (every colour channel high)
    white = cv2.GaussianBlur(small.min(axis=2), (5, 5), 0)
    otsu, _ = cv2.threshold(white, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    thr = max(otsu, white_rel * float(np.percentile(white, 99.5)), 90.0)
    mask = (white >= thr).astype(np.uint8) * 255
    # fill the card's printed interior (pips, court art) and cut thin bridges to the table
    k = max(3, int(round(min(small.shape[:2]) / 120)) | 1)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)), iterations=2)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    area_img = small.shape[0] * small.shape[1]
    quads = []
    for cnt in contours:
        hull = cv2.convexHull(cnt)
        area = cv2.contourArea(hull)
        if not (min_area_frac * area_img <= area <= max_area_frac * area_img):
            continue
        # a card is convex and nearly fills its hull
        if cv2.contourArea(cnt) < hull_fill * area:
            continue
        rect = cv2.minAreaRect(hull)
        (rw, rh) = rect[1]
        if min(rw, rh) < 8:
            continue
        aspect = max(rw, rh) / min(rw, rh)
        if not (aspect_range[0] <= aspect <= aspect_range[1]):
            continue
        if area < rect_fill * rw * rh:
            continue
        peri = cv2.arcLength(hull, True)
        approx = cv2.approxPolyDP(hull, 0.02 * peri, True).reshape(-1, 2).astype(np.float32)
        if len(approx) == 4 and cv2.isContourConvex(approx.reshape(-1, 1, 2)):
            quad = approx
        else:
            quad = cv2.boxPoints(rect).astype(np.float32)
        quads.append(_order_quad(quad) / f)
    return quads


def _portrait_corners(quad: np.ndarray) -> list[np.ndarray]:
    """The two portrait readings of a quad: corners TL, TR, BR, BL with the short side on top.

    A card turned by 180° looks the same, so both readings that put a short side on top
    are returned (their top-left corners are the two candidates for the printed index).
    """
    q = np.asarray(quad, np.float32)
    d01 = np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])
    d12 = np.linalg.norm(q[2] - q[1]) + np.linalg.norm(q[3] - q[0])
    if d01 > d12:  # edge 0-1 is long: start at corner 1 so that the first edge is short
        q = np.roll(q, -1, axis=0)
    return [q, np.roll(q, -2, axis=0)]


def index_boxes_for_quad(quad: np.ndarray, geometry: IndexGeometry) -> list[tuple[list[float], list[tuple]]]:
    """For each portrait reading of ``quad``: (card quad TL..BL, [index boxes (x1, y1, x2, y2)]).

    The boxes are the axis-aligned boxes around where ``geometry``'s printed corners
    (top-left and bottom-right, or all four) lie on that card.
    """
    out = []
    for q in _portrait_corners(quad):
        src = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
        H = cv2.getPerspectiveTransform(src, q.astype(np.float32))
        boxes = []
        x1, y1 = geometry.cx - geometry.w / 2, geometry.cy - geometry.h / 2
        x2, y2 = geometry.cx + geometry.w / 2, geometry.cy + geometry.h / 2
        corners = {"TL": (x1, y1, x2, y2), "BR": (1 - x2, 1 - y2, 1 - x1, 1 - y1),
                   "TR": (1 - x2, y1, 1 - x1, y2), "BL": (x1, 1 - y2, x2, 1 - y1)}
        for name in geometry.corners:
            a, b, c, d = corners[name]
            pts = np.array([[[a, b]], [[c, b]], [[c, d]], [[a, d]]], np.float32)
            p = cv2.perspectiveTransform(pts, H).reshape(-1, 2)
            boxes.append((float(p[:, 0].min()), float(p[:, 1].min()), float(p[:, 0].max()), float(p[:, 1].max())))
        out.append((q.tolist(), boxes))
    return out


def quad_side_ratio(quad) -> float:
    q = np.asarray(quad, np.float32)
    sides = [np.linalg.norm(q[(i + 1) % 4] - q[i]) for i in range(4)]
    return max(sides) / max(min(sides), 1e-6)


def point_in_quad(pt, quad) -> bool:
    return cv2.pointPolygonTest(np.asarray(quad, np.float32).reshape(-1, 1, 2), (float(pt[0]), float(pt[1])),
                                False) >= 0


def quad_area(quad) -> float:
    return abs(cv2.contourArea(np.asarray(quad, np.float32).reshape(-1, 1, 2)))


__all__ = ["find_card_quads", "index_boxes_for_quad", "point_in_quad", "quad_area", "quad_side_ratio", "math"]
