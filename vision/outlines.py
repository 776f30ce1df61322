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

from tableref.vision.geometry import PointGrid
from tableref.vision.index_layout import IndexGeometry
from tableref.vision.types import DetectedCard


# the morphology kernel that fills a card's print and cuts thin bridges: the working image's
# shorter side over this (odd, at least 3 px)
KERNEL_DIVISOR = 120
# outlines narrower than this (working px) are specks, not cards
MIN_SIDE_PX = 8
# the outline polygon is simplified to within this fraction of its perimeter (a card: 4 corners)
POLY_EPSILON = 0.02
# outlines are looked for in the picture shrunk to this longer side (px)
WORK_SIDE = 640


def _order_quad(pts: np.ndarray) -> np.ndarray:
    """Corners in order around the quad, starting at the one nearest the image origin, clockwise."""
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    pts = pts[np.argsort(ang)]
    start = int(np.argmin(pts.sum(axis=1)))
    return np.roll(pts, -start, axis=0)


def percentile_u8(image: np.ndarray, q: float) -> float:
    """``np.percentile(image, q)`` of a uint8 image, from its histogram (the same value: the two
    order statistics around the q-th position, interpolated as numpy does; no sort of the pixels)."""
    hist = cv2.calcHist([image], [0], None, [256], [0, 256]).ravel()
    cum = np.cumsum(hist)
    pos = q / 100.0 * (image.size - 1)
    lo = math.floor(pos)
    a, b = (float(np.searchsorted(cum, k, side="right")) for k in (lo, min(lo + 1, image.size - 1)))
    t = pos - lo
    return b - (b - a) * (1.0 - t) if t >= 0.5 else a + (b - a) * t


def shrunk_size(width: int, height: int, work_side: int = WORK_SIDE) -> tuple[int, int]:
    """The (w, h) :func:`find_card_quads` shrinks a picture of that size to (the longer side
    ``work_side`` at most)."""
    f = min(1.0, work_side / max(height, width))
    return max(1, int(round(width * f))), max(1, int(round(height * f)))


def find_card_quads(image: np.ndarray, min_area_frac: float = 0.002, max_area_frac: float = 0.6,
                    work_side: int = WORK_SIDE, white_rel: float = 0.7, hull_fill: float = 0.8,
                    rect_fill: float = 0.85, aspect_range: tuple[float, float] = (1.2, 1.7),
                    shrunk: np.ndarray | None = None) -> list[np.ndarray]:
    """Quads (4×2 float, image pixels) of light card-shaped outlines in a BGR image.

    ``shrunk``: the image already resized to :func:`shrunk_size` (``cv2.INTER_AREA``), as the
    detector's full view holds it, saving the resize here."""
    h, w = image.shape[:2]
    f = min(1.0, work_side / max(h, w))
    size = shrunk_size(w, h, work_side)
    if f >= 1:
        small = image
    elif shrunk is not None and shrunk.shape[1::-1] == size:
        small = shrunk
    else:
        small = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    # card paper: the whitest part of the scene (every colour channel high)
    b, g, r = cv2.split(small)
    white = cv2.GaussianBlur(cv2.min(cv2.min(b, g), r), (5, 5), 0)
    otsu, _ = cv2.threshold(white, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    thr = max(otsu, white_rel * percentile_u8(white, 99.5), 90.0)
    # white >= thr, as 0/255 (a whole-number threshold one below: the pixels are whole numbers)
    _, mask = cv2.threshold(white, math.ceil(thr) - 1, 255, cv2.THRESH_BINARY)
    # fill the card's printed interior (pips, court art) and cut thin bridges to the table
    k = max(3, int(round(min(small.shape[:2]) / KERNEL_DIVISOR)) | 1)
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
        if min(rw, rh) < MIN_SIDE_PX:
            continue
        aspect = max(rw, rh) / min(rw, rh)
        if not (aspect_range[0] <= aspect <= aspect_range[1]):
            continue
        if area < rect_fill * rw * rh:
            continue
        peri = cv2.arcLength(hull, True)
        approx = cv2.approxPolyDP(hull, POLY_EPSILON * peri, True).reshape(-1, 2).astype(np.float32)
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


from tableref.vision.geometry import quad_area  # noqa: E402  (kept importable from here)


__all__ = ["find_card_quads", "index_boxes_for_quad", "point_in_quad", "quad_area", "quad_side_ratio",
           "read_outline_cards", "outlines_to_read", "merge_outline_cards"]


# --------------------------------------------------------------------------- reading outlines

# the two corners of an outline must agree on the card; if they do not, its confidence is cut
# by this factor (a group of overlapping cards mistaken for one outline)
DISAGREEING_CORNERS = 0.1
# a corner crop counts as a real index (for the agreement) at this chance of not being ``none``
REAL_INDEX = 0.5


def read_outline_cards(image: np.ndarray, classify, layouts: list[IndexGeometry], names: list[str],
                       none_index: int, known: list[DetectedCard] | None = None, min_confidence: float = 0.35,
                       tta_max_crops: int = 16, shrunk: np.ndarray | None = None,
                       quads: list[np.ndarray] | None = None) -> list[DetectedCard]:
    """Cards lying apart, found by their outline; their corner indices read where they must be.

    Independent of the index detector: for each card-shaped light quad the
    classifier (``classify(image, boxes, tta=...)``) reads the boxes where the indices
    are printed (for each deck layout in ``layouts``; the layout whose crops look most
    like indices wins) and the corners vote on the card. With ``known`` (the index
    detector's cards) only the outlines that hold none of them, or a single one too weak
    to report, are read: an outline holding a confident card would only confirm it, and
    one holding several cards is a group of cards (a meld of identical cards, in
    Marriage, looks like one card outline with one value inside). ``shrunk``: see
    :func:`find_card_quads`; ``quads``: what it gives for this image, if already found.
    """
    if quads is None:
        quads = find_card_quads(image, shrunk=shrunk)
    if known is not None:
        quads = outlines_to_read(quads, known, min_confidence)
    if not quads:
        return []
    jobs = []  # (quad index, layout index, card quad, boxes)
    for qi, quad in enumerate(quads):
        for li, layout in enumerate(layouts):
            card_quad, boxes = index_boxes_for_quad(quad, layout)[0]
            jobs.append((qi, li, card_quad, boxes))
    all_boxes = np.array([b for *_, boxes in jobs for b in boxes], np.float32)
    probs = classify(image, all_boxes, tta=len(all_boxes) <= 4 * max(tta_max_crops, 16))
    label_idx = [k for k in range(len(names)) if k != none_index]
    best: dict[int, tuple] = {}
    k = 0
    for qi, li, card_quad, boxes in jobs:
        p = probs[k:k + len(boxes)]
        k += len(boxes)
        real = 1.0 - p[:, none_index]
        q = p[:, label_idx] / np.maximum(p[:, label_idx].sum(axis=1, keepdims=True), 1e-9)
        logq = (real[:, None] * np.log(np.clip(q, 1e-6, 1.0))).sum(axis=0)
        dist = np.exp(logq - logq.max())
        dist /= dist.sum()
        lab = int(dist.argmax())
        # a lone card shows all its printed corners, and they name the same card; a
        # group of overlapping cards mistaken for one outline does not
        tops = q.argmax(axis=1)
        agree = all(int(t) == lab for t, r in zip(tops, real) if r >= REAL_INDEX)
        conf = float(dist[lab]) * float(real.min()) * (1.0 if agree else DISAGREEING_CORNERS)
        if qi not in best or conf > best[qi][0]:
            best[qi] = (conf, lab, card_quad, boxes)
    out = []
    h, w = image.shape[:2]
    for conf, lab, card_quad, boxes in best.values():
        xs = [pt[0] for pt in card_quad]
        ys = [pt[1] for pt in card_quad]
        box = (max(0.0, min(xs)), max(0.0, min(ys)), min(float(w), max(xs)), min(float(h), max(ys)))
        out.append(DetectedCard(card=names[label_idx[lab]], confidence=conf, box=box,
                                quad=[[float(x), float(y)] for x, y in card_quad], indices=list(boxes)))
    return out


def _centre_grid(cards: list[DetectedCard]) -> tuple[PointGrid, list]:
    """The cards' centres, bucketed so that the cards inside an outline are found among its neighbours."""
    centres = [c.centre for c in cards]
    sizes = [max(c.box[2] - c.box[0], c.box[3] - c.box[1]) for c in cards]
    grid = PointGrid(2.0 * float(np.median(sizes)) if sizes else 1.0)
    for k, (x, y) in enumerate(centres):
        grid.add(k, x, y)
    return grid, centres


def _inside(quad, grid: PointGrid, centres: list) -> list[int]:
    """Positions (ascending) of the centres that lie inside ``quad``."""
    q = np.asarray(quad, np.float32).reshape(-1, 2)
    cx, cy = float(q[:, 0].mean()), float(q[:, 1].mean())
    radius = float(np.hypot(q[:, 0] - cx, q[:, 1] - cy).max()) + 1.0
    return [k for k in grid.near(cx, cy, radius) if point_in_quad(centres[k], q)]


def outlines_to_read(quads: list, known: list[DetectedCard], min_confidence: float) -> list:
    """The card outlines worth reading: those holding no known card, or one too weak to report."""
    keep = []
    if not quads:
        return keep
    grid, centres = _centre_grid(known)
    for q in quads:
        inside = [known[k] for k in _inside(q, grid, centres)]
        if not inside or (len(inside) == 1 and inside[0].confidence < min_confidence):
            keep.append(q)
    return keep


def merge_outline_cards(cards: list[DetectedCard], outlined: list[DetectedCard],
                        min_confidence: float = 0.35) -> list[DetectedCard]:
    """One card per outline: what the index detector found inside it and the outline reading merge."""
    if not outlined:
        return cards
    used = set()
    merged = []
    grid, centres = _centre_grid(cards)
    for oc in outlined:
        inside = [i for i in _inside(oc.quad, grid, centres) if i not in used]
        if len({cards[i].card for i in inside if cards[i].confidence >= min_confidence}) > 1:
            continue  # several different cards inside: a group of cards, not one card
        used.update(inside)
        cands = [cards[i] for i in inside] + [oc]
        top = max(cands, key=lambda c: c.confidence)
        # agreement between the detector's reading and the outline's raises confidence
        agree = [c for c in cands if c.card == top.card and c is not top]
        conf = 1.0 - (1.0 - top.confidence) * np.prod([1.0 - c.confidence for c in agree]) if agree else top.confidence
        merged.append(DetectedCard(card=top.card, confidence=float(min(conf, 1.0)),
                                   box=oc.box, quad=oc.quad,
                                   indices=top.indices if top is not oc else oc.indices))
    return merged + [c for i, c in enumerate(cards) if i not in used]
