"""Synthetic table scenes with corner-index labels.

Public API:

- ``DeckPool(decks=None)``: lazily loaded card faces (BGRA) and their index boxes.
- ``render_scene(rng, pool, w, h, size=(lo, hi)) -> Scene``: one picture of a table
  with cards laid out as in play (singles, overlapping rows and fans, messy piles,
  a 21-card Marriage hand with identical cards from different packs, a spread of
  many small cards), seen top-down or tilted up to ~30°, at any rotation, with
  shadows, hands/objects over the cards, lighting gradients, glare, blur, noise and
  JPEG artefacts. ``size`` is the range of the printed index height in output
  pixels (log-uniform); no horizontal flips ever happen (mirrored glyphs do not
  occur on real cards).
- ``Scene.image`` (BGR uint8), ``Scene.indices``: one ``IndexLabel`` per printed
  corner index in the picture: card, axis-aligned box, quad, visibility (fraction
  of the index area not covered by other cards/objects and inside the picture).
  ``VISIBLE`` is the visibility from which an index counts as a label.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from tableref.datasets import backgrounds, decks

VISIBLE = 0.7  # an index counts as a label if at least this fraction of it is seen ...
GLYPHS_VISIBLE = 0.9  # ... or if this fraction of the ink of its rank AND of its suit is seen (fans)
GLYPHS_MIN_AREA = 0.35  # (but never less than this fraction of the index box)
STEEP_TILT = 75.0  # some scenes are seen from near table height (camera tilt up to this)
STEEP_P = 0.2


@dataclass
class IndexLabel:
    card: str
    box: tuple[float, float, float, float]   # x1, y1, x2, y2 in image pixels (clipped)
    quad: np.ndarray                          # 4×2 corners of the index rectangle in the image
    visibility: float
    height: float                             # index height (long side of the quad) in pixels
    card_id: int
    glyphs: float = 0.0                       # min(visible fraction of the rank's ink, of the suit's ink)
    ink_box: tuple[float, float, float, float] | None = None   # the seen ink of rank and suit (partly covered)

    def is_label(self, min_vis: float = VISIBLE, glyphs: float = GLYPHS_VISIBLE) -> bool:
        """Seen enough to be read: most of its box, or ``glyphs`` of its rank's and its suit's ink (the
        whole glyphs by default) with the box partly covered."""
        return self.visibility >= min_vis or (self.glyphs >= glyphs and self.visibility >= GLYPHS_MIN_AREA)


@dataclass
class Scene:
    image: np.ndarray
    indices: list[IndexLabel] = field(default_factory=list)
    card_quads: list[np.ndarray] = field(default_factory=list)
    clutter: list[tuple[float, float, float, float]] = field(default_factory=list)  # boxes of printed text (no label)

    def labels(self, min_vis: float = VISIBLE, min_px: float = 5.0, readable: float | None = None) -> list[IndexLabel]:
        """The indices to label. ``readable``: also those a neighbour cuts when at least this fraction of
        their rank's and suit's ink is seen, boxed by that ink (as a whole-glyph partly covered index is)."""
        out = []
        for i in self.indices:
            if not i.is_label(min_vis):
                if readable is None or i.ink_box is None or not i.is_label(min_vis, readable):
                    continue
                i = replace(i, box=i.ink_box)
            if i.height >= min_px and (i.box[2] - i.box[0]) >= 2 and (i.box[3] - i.box[1]) >= 2:
                out.append(i)
        return out


class DeckPool:
    """Card faces and index boxes of several decks, loaded on first use."""

    def __init__(self, names: list[str] | None = None, faces: dict | None = None):
        """``faces``: optional in-memory decks {name: ({card: BGRA}, {card: [boxes]})} (tests, custom art)."""
        self._glyphs = {}
        self._given = faces or {}
        self.names = list(names or self._given or decks.available_decks())
        if not self.names:
            raise RuntimeError("no card decks available (install kdegames-card-data-kf5 or allow npm)")
        self._cache = {}

    def deck(self, name: str):
        if name not in self._cache:
            self._cache[name] = self._load(name)
        return self._cache[name]

    def _load(self, name: str):
        if name in self._given:
            faces, boxes = self._given[name]
            return faces, boxes, [c for c in faces if len(boxes.get(c, [])) >= 2], None
        faces = decks.load_deck_bgra(name)
        boxes = decks.index_boxes(name)
        cards = [c for c in decks.CARDS if len(boxes.get(c, [])) >= 2]
        back = decks.load_back(name)
        if back is not None:
            back = cv2.cvtColor(back, cv2.COLOR_RGBA2BGRA)
        return faces, boxes, cards, back

    def glyph_points(self, deck_name: str, card: str, bgra: np.ndarray, boxes) -> list:
        """Per index box: (rank ink points, suit ink points) in face pixels (cached)."""
        key = (deck_name, card, id(bgra))
        got = self._glyphs.get(key) if hasattr(self, "_glyphs") else None
        if got is None:
            if not hasattr(self, "_glyphs"):
                self._glyphs = {}
            got = [glyph_points(bgra, b, upright=(k % 4) in (0, 2)) for k, b in enumerate(boxes)]
            self._glyphs[key] = got
        return got

    def random_card(self, rng, deck_name: str, card: str | None = None):
        faces, boxes, cards, _ = self.deck(deck_name)
        if card is None or card not in cards:
            card = cards[rng.integers(len(cards))]
        return card, faces[card], boxes[card]


def glyph_points(bgra: np.ndarray, box, upright: bool = True, max_pts: int = 300):
    """Ink pixels of an index box split into the rank (upper) and suit (lower) glyphs.

    The split is the widest blank band of rows between them (the middle of the box if
    none); an upside-down index (``upright=False``) has its rank below. Returns two (K, 2)
    arrays of x, y face pixels (at most ``max_pts`` each, the extreme points kept).
    """
    x1, y1, x2, y2 = [int(round(v)) for v in box]
    crop = bgra[max(0, y1):y2, max(0, x1):x2]
    if crop.size == 0:
        z = np.zeros((0, 2), np.float64)
        return z, z
    bgr = crop[:, :, :3].astype(np.int16)
    paper = np.median(bgr.reshape(-1, 3)[crop[:, :, 3].reshape(-1) > 128], axis=0) if (crop[:, :, 3] > 128).any() else np.array([255, 255, 255])
    ink = (np.abs(bgr - paper).sum(axis=2) > 90) & (crop[:, :, 3] > 128)
    rows = ink.any(axis=1)
    hh = len(rows)
    best, cut = 0, hh // 2
    run_start = None
    for r in range(int(hh * 0.2), int(hh * 0.85) + 1):
        blank = r < hh and not rows[r]
        if blank and run_start is None:
            run_start = r
        if (not blank or r == int(hh * 0.85)) and run_start is not None:
            if r - run_start > best:
                best, cut = r - run_start, (run_start + r) // 2
            run_start = None
    yy, xx = np.nonzero(ink)
    pts = np.stack([xx + max(0, x1) + 0.5, yy + max(0, y1) + 0.5], 1).astype(np.float64)
    upper, lower = pts[yy < cut], pts[yy >= cut]
    rank, suit = (upper, lower) if upright else (lower, upper)

    def thin(p):
        if len(p) <= max_pts:
            return p
        ext = [p[:, 0].argmin(), p[:, 0].argmax(), p[:, 1].argmin(), p[:, 1].argmax()]
        pick = np.linspace(0, len(p) - 1, max_pts - 4).astype(int)
        return p[np.unique(np.concatenate([pick, ext]))]

    return thin(rank), thin(suit)


# ----------------------------------------------------------------------------- geometry helpers

def _rot(theta: float) -> np.ndarray:
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], np.float64)


def _trans(x: float, y: float) -> np.ndarray:
    return np.array([[1, 0, x], [0, 1, y], [0, 0, 1]], np.float64)


def _scale(s: float) -> np.ndarray:
    return np.diag([s, s, 1.0])


def _apply(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.hstack([pts, np.ones((len(pts), 1))]) @ H.T
    return p[:, :2] / p[:, 2:3]


def camera_homography(rng, w: int, h: int, max_tilt_deg: float = 30.0, at_least: float = 0.0) -> np.ndarray:
    """Table plane (centred at the origin, pixel units) -> image, with a random tilt and roll.

    ``at_least`` > 0: always tilted, between it and ``max_tilt_deg`` (a view from near table height).
    """
    if at_least > 0:
        tilt = math.radians(rng.uniform(at_least, max_tilt_deg))
    else:
        tilt = math.radians(rng.uniform(0, max_tilt_deg)) if rng.random() < 0.7 else 0.0
    # foreshortening: far edge shrinks, depth compressed
    k = 1.0 - 0.9 * math.sin(tilt) * rng.uniform(0.5, 1.0)
    c = math.cos(tilt)
    src = np.float32([[-1, -1], [1, -1], [1, 1], [-1, 1]])
    dst = np.float32([[-k, -c * (1 + k) / 2], [k, -c * (1 + k) / 2], [1, c * (1 + k) / 2], [-1, c * (1 + k) / 2]])
    L = float(max(w, h))
    P = _scale(L) @ cv2.getPerspectiveTransform(src, dst).astype(np.float64) @ _scale(1.0 / L)
    # normalise so the scale at the image centre is ~1
    d = _apply(P, np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    u, v = d[1] - d[0], d[2] - d[0]
    sc = math.sqrt(abs(float(u[0] * v[1] - u[1] * v[0])))
    N = _scale(1.0 / sc)
    return _trans(w / 2, h / 2) @ _rot(rng.uniform(0, 2 * math.pi)) @ N @ P


# ----------------------------------------------------------------------------- layouts
# Each layout yields (x, y, angle) card centres in table-plane units of card height = 1.

def _layout_single(rng, n):
    return [(rng.uniform(-1.5, 1.5), rng.uniform(-1.2, 1.2), rng.uniform(0, 2 * math.pi)) for _ in range(n)]


def _layout_row(rng, n):
    step = rng.uniform(0.12, 0.55) * 0.7  # fraction of card width (width ~0.7 height)
    base = rng.uniform(0, 2 * math.pi)
    jitter = rng.uniform(0, 0.06)
    out = []
    for i in range(n):
        x = (i - (n - 1) / 2) * step
        y = rng.normal(0, 0.03)
        out.append((x, y, rng.normal(0, jitter)))
    return [(x * math.cos(base) - y * math.sin(base), x * math.sin(base) + y * math.cos(base), a + base) for x, y, a in out]


def _layout_fan(rng, n):
    spread = math.radians(rng.uniform(5, 16))
    radius = rng.uniform(0.5, 1.0)
    base = rng.uniform(0, 2 * math.pi)
    out = []
    for i in range(n):
        a = (i - (n - 1) / 2) * spread
        # card centre on a circle around the pivot below the cards
        x, y = radius * math.sin(a), -radius * math.cos(a) + radius
        out.append((x * math.cos(base) - y * math.sin(base), x * math.sin(base) + y * math.cos(base), a + base))
    return out


def _layout_tightfan(rng, n):
    """A hand held or laid as a tight fan: only a sliver of each card shows.

    Cards turn about a pivot below them (or slide along a straight line) so that the
    top-left indices step by 8-25 % of a card's width; each card lies over the one before,
    so every index but the last is partly covered. Sometimes the fan runs the other way
    (the cards' other corner shows) and some cards lie upside down in it.
    """
    step = rng.uniform(0.08, 0.25) * 0.7          # index spacing, card-height units
    base = rng.uniform(0, 2 * math.pi)
    arc = rng.random() < 0.65
    radius = rng.uniform(0.6, 1.6)                # pivot to index distance
    da = step / radius
    out = []
    for i in range(n):
        t = i - (n - 1) / 2
        if arc:
            a = t * da
            r = radius - 0.38                         # the index sits ~0.38 card heights above the centre
            x, y = r * math.sin(a), -r * math.cos(a) + r
        else:
            a = rng.normal(0, 0.02)
            x, y = t * step, rng.normal(0, 0.01)
        if rng.random() < 0.12:
            a += math.pi                              # a card upside down in the hand
        out.append((x * math.cos(base) - y * math.sin(base), x * math.sin(base) + y * math.cos(base), a + base))
    if rng.random() < 0.3:                            # fanned the other way round
        out = out[::-1]
    return out


def _layout_pile(rng, n):
    r = rng.uniform(0.2, 0.8)
    return [(rng.normal(0, r), rng.normal(0, r), rng.uniform(0, 2 * math.pi)) for _ in range(n)]


def _layout_hand21(rng, n):
    rows, per = 3, 7
    step_x = rng.uniform(0.15, 0.4) * 0.7
    step_y = rng.uniform(0.25, 1.1)
    base = rng.uniform(-0.3, 0.3) + (math.pi if rng.random() < 0.3 else 0.0)
    out = []
    for r in range(rows):
        for i in range(per):
            x = (i - 3) * step_x + rng.normal(0, 0.01)
            y = (r - 1) * step_y + rng.normal(0, 0.01)
            out.append((x * math.cos(base) - y * math.sin(base), x * math.sin(base) + y * math.cos(base),
                        base + rng.normal(0, 0.04)))
    return out[:n]


def _layout_grid(rng, n):
    cols = max(1, int(math.sqrt(n * 1.5)))
    base = rng.uniform(-0.2, 0.2)
    gx, gy = rng.uniform(0.75, 1.0), rng.uniform(1.05, 1.3)
    out = []
    for i in range(n):
        x = (i % cols - (cols - 1) / 2) * gx + rng.normal(0, 0.03)
        y = (i // cols - (n // cols) / 2) * gy + rng.normal(0, 0.03)
        out.append((x * math.cos(base) - y * math.sin(base), x * math.sin(base) + y * math.cos(base),
                    base + rng.normal(0, 0.08) + (math.pi if rng.random() < 0.5 else 0)))
    return out


LAYOUTS = {  # name: (function, card count range, weight)
    "single": (_layout_single, (1, 5), 0.2),
    "row": (_layout_row, (3, 9), 0.25),
    "fan": (_layout_fan, (3, 13), 0.15),
    "tightfan": (_layout_tightfan, (5, 13), 0.3),
    "pile": (_layout_pile, (3, 10), 0.12),
    "hand21": (_layout_hand21, (21, 21), 0.13),
    "grid": (_layout_grid, (6, 30), 0.15),
}


# ----------------------------------------------------------------------------- compositing

def _warp_into(img, owner, src_bgra, H, idx, shadow=None):
    """Alpha-composite ``src_bgra`` warped by ``H`` into ``img`` (only over its bounding box)."""
    h, w = img.shape[:2]
    sh, sw = src_bgra.shape[:2]
    corners = _apply(H, np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], np.float64))
    x1, y1 = np.floor(corners.min(0)).astype(int)
    x2, y2 = np.ceil(corners.max(0)).astype(int)
    pad = 0
    if shadow is not None:
        pad = int(abs(shadow[0]) + abs(shadow[1]) + 3 * shadow[2]) + 2
    x1, y1 = max(0, x1 - pad), max(0, y1 - pad)
    x2, y2 = min(w, x2 + pad + 1), min(h, y2 + pad + 1)
    if x2 <= x1 or y2 <= y1:
        return
    Hr = _trans(-x1, -y1) @ H
    out = cv2.warpPerspective(src_bgra, Hr, (x2 - x1, y2 - y1), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    a = out[:, :, 3].astype(np.float32) / 255.0
    roi = img[y1:y2, x1:x2].astype(np.float32)
    if shadow is not None:
        dx, dy, blur, strength = shadow
        m = np.float32([[1, 0, dx], [0, 1, dy]])
        sa = cv2.warpAffine(a, m, (a.shape[1], a.shape[0]))
        if blur > 0.3:
            sa = cv2.GaussianBlur(sa, (0, 0), blur)
        roi *= (1.0 - strength * sa)[..., None]
    roi = roi * (1 - a[..., None]) + out[:, :, :3].astype(np.float32) * a[..., None]
    img[y1:y2, x1:x2] = np.clip(roi, 0, 255).astype(np.uint8)
    if owner is not None:
        owner[y1:y2, x1:x2][a > 0.5] = idx


def _distractor(rng, img, owner, size):
    """A hand, coin, chip or other object over the table (occludes cards, carries no label)."""
    h, w = img.shape[:2]
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    mask = np.zeros((h, w), np.uint8)
    kind = rng.integers(3)
    if kind == 0:  # hand/arm-like blob: a thick stroke from the picture edge
        edge = rng.integers(4)
        ex, ey = [(cx, 0), (cx, h), (0, cy), (w, cy)][edge]
        th = int(max(4, size * rng.uniform(0.8, 2.0)))
        cv2.line(mask, (int(ex), int(ey)), (int(cx), int(cy)), 255, th)
        cv2.circle(mask, (int(cx), int(cy)), int(th * 0.7), 255, -1)
        col = np.array([rng.uniform(60, 200), rng.uniform(90, 200), rng.uniform(140, 240)])
    elif kind == 1:  # coin / chip
        r = int(max(3, size * rng.uniform(0.2, 0.6)))
        cv2.circle(mask, (int(cx), int(cy)), r, 255, -1)
        col = rng.uniform(30, 230, 3)
    else:  # random polygon (phone, glass, pencil)
        pts = np.stack([cx + rng.normal(0, size * 0.6, 5), cy + rng.normal(0, size * 0.6, 5)], 1).astype(np.int32)
        cv2.fillPoly(mask, [cv2.convexHull(pts)], 255)
        col = rng.uniform(0, 255, 3)
    m = cv2.GaussianBlur(mask, (0, 0), 1.0).astype(np.float32) / 255.0
    tex = col[None, None, :] * (0.85 + 0.3 * rng.random((h, w, 1)).astype(np.float32) * 0.3)
    img[:] = np.clip(img * (1 - m[..., None]) + tex * m[..., None], 0, 255).astype(np.uint8)
    owner[mask > 127] = -2


_WORDS = ("the and for with from recipe table score total game round cup sugar flour butter minutes page "
          "chapter science make famous chocolate cookbook lake vol no ref price sale new best www com "
          "pts win lose pay player hand deal pot xbox final fantasy edition tel date name").split()
_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX,
          cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_COMPLEX_SMALL)


def _text_token(rng) -> str:
    """A printed word, number or lone letter (lone ranks and digits are the look-alikes of an index)."""
    r = rng.random()
    if r < 0.35:
        word = str(rng.choice(_WORDS))
        return word.upper() if rng.random() < 0.3 else (word.capitalize() if rng.random() < 0.4 else word)
    if r < 0.6:
        return str(rng.choice(["A", "K", "Q", "J", "10", "7", "9", "8", "6", "5", "4", "3", "2", "1/2", "1"]))
    if r < 0.85:
        return str(int(rng.integers(0, 1000))) if rng.random() < 0.6 else f"{rng.uniform(0, 100):.2f}"
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return "".join(rng.choice(list(letters), size=int(rng.integers(1, 4))))


def _text_sheet(rng, index_px: float):
    """Printed matter as a BGRA plane picture: a page, a box or a book cover with lines of text, or
    bare ink (text printed on the table cloth or a mat). Returns (bgra, token boxes in sheet pixels)."""
    kind = rng.choice(["page", "cover", "ink"], p=[0.5, 0.3, 0.2])
    text_h = index_px * rng.uniform(0.3, 1.3)           # letter height like an index's rank, or smaller
    sw = int(text_h * rng.uniform(6, 22))
    sh = int(text_h * rng.uniform(3, 14))
    if kind == "page":
        paper = rng.uniform(200, 255) * np.array([rng.uniform(0.85, 1.0), rng.uniform(0.92, 1.0), 1.0])
        ink = rng.uniform(0, 70, 3) if rng.random() < 0.75 else np.array([rng.uniform(0, 60), rng.uniform(0, 60), rng.uniform(120, 220)])
    else:
        paper = rng.uniform(0, 255, 3)
        ink = rng.uniform(0, 255, 3)
        if np.abs(ink - paper).sum() < 150:
            ink = 255 - paper
    img = np.empty((sh, sw, 4), np.uint8)
    img[:, :, :3] = paper.astype(np.uint8)
    img[:, :, 3] = 255 if kind != "ink" else 0
    boxes = []
    font = int(rng.choice(_FONTS))
    if rng.random() < 0.3:
        font |= cv2.FONT_ITALIC
    thick = int(max(1, round(text_h * rng.uniform(0.05, 0.15))))
    scale = text_h / max(1, cv2.getTextSize("A", font, 1.0, thick)[0][1])
    y = text_h * rng.uniform(1.2, 2.0)
    col = tuple(float(c) for c in ink) + (255.0,)
    while y < sh - 2:
        x = text_h * rng.uniform(0.3, 1.5)
        while x < sw - text_h:
            tok = _text_token(rng)
            (tw, th), base = cv2.getTextSize(tok, font, scale, thick)
            if x + tw > sw:
                break
            cv2.putText(img, tok, (int(x), int(y)), font, scale, col, thick, cv2.LINE_AA)
            boxes.append((x, y - th, x + tw, y + base * 0.5))
            x += tw + text_h * rng.uniform(0.4, 1.2)
        y += text_h * rng.uniform(1.4, 2.6)
    return img, boxes


def _darken_red(bgra: np.ndarray, f: float) -> np.ndarray:
    """Red ink printed darker (maroon, brick): reddish pixels scaled towards black by ``f``."""
    out = bgra.copy()
    c = out[:, :, :3].astype(np.float32)
    b, g, r = c[:, :, 0], c[:, :, 1], c[:, :, 2]
    redness = np.clip((r - np.maximum(g, b) - 40) / 80.0, 0, 1)
    scale = 1.0 - (1.0 - f) * redness
    out[:, :, :3] = np.clip(c * scale[..., None], 0, 255).astype(np.uint8)
    return out


def _shadow_band(rng, f):
    """A soft shadow across part of the table (a hand or arm between the lamp and the cards)."""
    h, w = f.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    ang = rng.uniform(0, math.pi)
    L = 2 * max(w, h)
    th = int(max(8, rng.uniform(0.1, 0.45) * min(w, h)))
    p1 = (int(cx - L * math.cos(ang)), int(cy - L * math.sin(ang)))
    p2 = (int(cx + L * math.cos(ang)), int(cy + L * math.sin(ang)))
    cv2.line(mask, p1, p2, 255, th)
    if rng.random() < 0.5:   # fingers / a blob at one end
        cv2.circle(mask, (int(cx), int(cy)), int(th * rng.uniform(0.6, 1.3)), 255, -1)
    m = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), max(1.0, th * rng.uniform(0.05, 0.3)))
    f *= (1.0 - rng.uniform(0.3, 0.65) * m)[..., None]
    return f


def _photometric(rng, img):
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    # colour temperature / white balance; sometimes a strong warm (tungsten) or cold cast, dim light
    f *= rng.uniform(0.85, 1.15, 3)[None, None, :]
    r = rng.random()
    if r < 0.25:     # warm: blue down, red up (BGR order)
        f *= np.array([rng.uniform(0.5, 0.8), rng.uniform(0.8, 0.95), rng.uniform(1.0, 1.2)], np.float32)[None, None, :]
    elif r < 0.35:   # cold / fluorescent
        f *= np.array([rng.uniform(1.05, 1.25), rng.uniform(0.95, 1.1), rng.uniform(0.75, 0.95)], np.float32)[None, None, :]
    if rng.random() < 0.25:
        f *= rng.uniform(0.4, 0.75)   # dim room
    if rng.random() < 0.35:
        f = _shadow_band(rng, f)
    # lighting gradient (linear or radial)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if rng.random() < 0.6:
        ang = rng.uniform(0, 2 * math.pi)
        g = (xx * math.cos(ang) + yy * math.sin(ang)) / max(w, h)
        g = (g - g.min()) / max(1e-6, g.max() - g.min())
        lo, hi = rng.uniform(0.45, 0.95), rng.uniform(0.95, 1.25)
        f *= (lo + (hi - lo) * g)[..., None]
    else:
        cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.5, 1.5) * max(w, h)
        d = np.sqrt((xx - cx) ** 2 + (yy - cy) ** 2) / r
        f *= np.clip(1.2 - rng.uniform(0.2, 0.7) * d, 0.35, 1.3)[..., None]
    # glare: a soft bright spot
    if rng.random() < 0.25:
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(0.03, 0.2) * max(w, h)
        d2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / (r * r)
        f += (rng.uniform(60, 200) * np.exp(-d2))[..., None]
    # overall brightness / contrast
    f = (f - 128) * rng.uniform(0.75, 1.2) + 128 + rng.uniform(-25, 25)
    img = np.clip(f, 0, 255).astype(np.uint8)
    # hue and saturation shifts; sometimes no colour at all (grey camera, night mode)
    r = rng.random()
    if r < 0.1:
        img = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    elif r < 0.35:
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV).astype(np.int16)
        hsv[:, :, 0] = (hsv[:, :, 0] + int(rng.integers(-12, 13))) % 180
        hsv[:, :, 1] = np.clip(hsv[:, :, 1] * rng.uniform(0.3, 1.4), 0, 255)
        img = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)
    # blur (defocus or motion)
    r = rng.random()
    if r < 0.3:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.4))
    elif r < 0.4:
        k = int(rng.integers(3, 7))
        kern = np.zeros((k, k), np.float32)
        kern[k // 2, :] = 1.0 / k
        M = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kern = cv2.warpAffine(kern, M, (k, k))
        kern /= max(kern.sum(), 1e-6)
        img = cv2.filter2D(img, -1, kern)
    # sensor noise
    if rng.random() < 0.6:
        sigma = rng.uniform(1, 9)
        img = np.clip(img.astype(np.float32) + rng.normal(0, sigma, img.shape).astype(np.float32), 0, 255).astype(np.uint8)
    # JPEG artefacts
    if rng.random() < 0.7:
        q = int(rng.integers(30, 95))
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        if ok:
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img


def _prescale(card_bgra, H_card):
    """Downscale the card artwork close to its on-image size (area filter) and fix the homography."""
    sh, sw = card_bgra.shape[:2]
    pts = _apply(H_card, np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], np.float64))
    on_h = max(np.linalg.norm(pts[3] - pts[0]), np.linalg.norm(pts[2] - pts[1]))
    s = min(1.0, 1.25 * on_h / sh)
    if s > 0.8:
        return card_bgra, H_card
    new = cv2.resize(card_bgra, (max(4, round(sw * s)), max(4, round(sh * s))), interpolation=cv2.INTER_AREA)
    S = np.diag([sw / new.shape[1], sh / new.shape[0], 1.0])
    return new, H_card @ S


def _box_from_quad(q, w, h):
    x1, y1 = q.min(0)
    x2, y2 = q.max(0)
    return (float(max(0, x1)), float(max(0, y1)), float(min(w, x2)), float(min(h, y2)))


def render_scene(rng: np.random.Generator, pool: DeckPool, w: int, h: int,
                 size: tuple[float, float] = (8.0, 90.0), max_tilt: float = 30.0,
                 text_p: float = 0.0, layout_weights: dict[str, float] | None = None) -> Scene:
    """Render one table scene (see module docstring). ``size``: index height range in pixels.

    ``text_p``: the chance of printed matter on the table (pages, boxes, book covers, printed
    cloth with words, numbers and lone letters; under the cards or partly over them), never
    labelled: the look-alikes of an index that real tables carry. ``layout_weights`` replaces
    the weights of the named layouts (e.g. ``{"tightfan": 0.9}``). With the defaults the
    random stream is that of earlier builds, so their recipes still rebuild the same images.
    """
    steep = rng.random() < STEEP_P
    Hcam = camera_homography(rng, w, h, STEEP_TILT if steep else max_tilt, at_least=45.0 if steep else 0.0)
    # background: draw a table plane and warp it with the same camera
    bg_plane = backgrounds.make_background(rng, w, h)
    Hbg = Hcam @ _trans(-w / 2, -h / 2)
    img = cv2.warpPerspective(bg_plane, Hbg, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    owner = np.full((h, w), -1, np.int32)

    # target index height (pixels) -> card height, via the typical index/card ratio (~0.2)
    lo, hi = size
    index_px = math.exp(rng.uniform(math.log(lo), math.log(hi)))
    card_h = index_px / 0.2
    # how many groups fit
    area_cards = (w * h) / (card_h * card_h * 0.7)
    names = list(LAYOUTS)
    weights = np.array([(layout_weights or {}).get(n, LAYOUTS[n][2]) for n in names], np.float64)
    if area_cards < 4:  # close-up: only a few cards fit
        weights = weights * np.array([3, 1, 1, 1, 0.5, 0.1, 0.05])
    elif area_cards > 40:
        weights = weights * np.array([0.5, 1, 1, 1.5, 1, 1.5, 2])
    weights /= weights.sum()
    n_groups = 1 if area_cards < 6 else int(rng.integers(1, min(6, 1 + int(area_cards / 10)) + 1))
    # packs in play: 1-3 decks (Marriage uses three packs, often of different designs)
    scene_decks = list(rng.choice(pool.names, size=int(rng.integers(1, 4)), replace=True))

    placements = []  # (card_name, bgra, boxes, H_plane) in z-order
    for g in range(n_groups):
        lay = names[rng.choice(len(names), p=weights)]
        fn, (nmin, nmax), _ = LAYOUTS[lay]
        n = int(rng.integers(nmin, nmax + 1))
        if lay == "single":
            n = max(1, min(n, int(area_cards / 2) + 1))
        gx = rng.uniform(-0.45, 0.45) * w
        gy = rng.uniform(-0.45, 0.45) * h
        gscale = card_h * rng.uniform(0.85, 1.15)
        dup_card = None
        for (x, y, a) in fn(rng, n):
            dname = scene_decks[rng.integers(len(scene_decks))]
            # Marriage: identical cards from different packs; also in rows (sets)
            want = dup_card if (dup_card is not None and rng.random() < 0.25) else None
            card, bgra, boxes = pool.random_card(rng, dname, want)
            glyphs = pool.glyph_points(dname, card, bgra, boxes)
            if rng.random() < 0.3:
                dup_card = card
            sh, sw = bgra.shape[:2]
            s = gscale / sh
            Hp = _trans(gx + x * gscale, gy + y * gscale) @ _rot(a) @ _scale(s) @ _trans(-sw / 2, -sh / 2)
            placements.append((card, bgra, boxes, Hp, glyphs))
    # occasional face-down cards (backs) as distractors
    for _ in range(int(rng.integers(0, 3)) if rng.random() < 0.3 else 0):
        back = pool.deck(scene_decks[0])[3]
        if back is None:
            break
        sh, sw = back.shape[:2]
        Hp = (_trans(rng.uniform(-0.5, 0.5) * w, rng.uniform(-0.5, 0.5) * h) @ _rot(rng.uniform(0, 6.3))
              @ _scale(card_h / sh) @ _trans(-sw / 2, -sh / 2))
        placements.insert(int(rng.integers(0, len(placements) + 1)), (None, back, [], Hp, []))

    texts = []   # (bgra, token boxes, plane homography, over the cards)
    if text_p > 0 and rng.random() < text_p:
        for _ in range(int(rng.integers(1, 4))):
            sheet, tboxes = _text_sheet(rng, index_px)
            th_, tw_ = sheet.shape[:2]
            Ht = (_trans(rng.uniform(-0.5, 0.5) * w, rng.uniform(-0.5, 0.5) * h) @ _rot(rng.uniform(0, 2 * math.pi))
                  @ _trans(-tw_ / 2, -th_ / 2))
            texts.append((sheet, tboxes, Ht, rng.random() < 0.25))
    clutter = []

    def _draw_text(sheet, tboxes, Ht, over):
        H = Hcam @ Ht
        src, Hs = _prescale(sheet, H)
        _warp_into(img, owner if over else None, src, Hs, -2)
        for b in tboxes:
            q = _apply(H, np.array([[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]], np.float64))
            bb = _box_from_quad(q, w, h)
            if bb[2] - bb[0] >= 3 and bb[3] - bb[1] >= 3:
                clutter.append(bb)

    for t in texts:
        if not t[3]:
            _draw_text(*t)

    shadow_on = rng.random() < 0.6
    sdir = rng.uniform(0, 2 * math.pi)
    sdist = rng.uniform(0.005, 0.03) * card_h
    indices = []
    quads = []
    dark_red = rng.random() < 0.15   # a deck printed in maroon / brick ink (reads dark in warm light)
    dark_f = rng.uniform(0.35, 0.7)
    for i, (card, bgra, boxes, Hp, glyphs) in enumerate(placements):
        H = Hcam @ Hp
        src, Hs = _prescale(bgra, H)
        if dark_red and card is not None and card[-1] in "HD":
            src = _darken_red(src, dark_f)
        if rng.random() < 0.3:  # per-card brightness (card lifted, in shade)
            f = rng.uniform(0.8, 1.1)
            src = src.copy()
            src[:, :, :3] = np.clip(src[:, :, :3].astype(np.float32) * f, 0, 255).astype(np.uint8)
        shadow = None
        if shadow_on:
            shadow = (math.cos(sdir) * sdist, math.sin(sdir) * sdist, max(0.5, sdist * 0.7), rng.uniform(0.2, 0.5))
        _warp_into(img, owner, src, Hs, i, shadow)
        sh, sw = bgra.shape[:2]
        quads.append(_apply(H, np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], np.float64)))
        if card is None:
            continue
        for b, g in zip(boxes, glyphs):
            q = _apply(H, np.array([[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]], np.float64))
            indices.append((i, card, q, (_apply(H, g[0]) if len(g[0]) else g[0], _apply(H, g[1]) if len(g[1]) else g[1])))

    for t in texts:
        if t[3]:
            _draw_text(*t)

    for _ in range(int(rng.integers(1, 3)) if rng.random() < 0.3 else 0):
        _distractor(rng, img, owner, card_h)

    img = _photometric(rng, img)

    labels = []
    def glyph_seen(pts, i):
        """Fraction of the points inside the picture and on card ``i`` (not covered)."""
        if len(pts) == 0:
            return 0.0, pts
        xi, yi = np.floor(pts[:, 0]).astype(int), np.floor(pts[:, 1]).astype(int)
        ok = (xi >= 0) & (yi >= 0) & (xi < w) & (yi < h)
        vis = np.zeros(len(pts), bool)
        vis[ok] = owner[yi[ok], xi[ok]] == i
        return float(vis.mean()), pts[vis]

    for i, card, q, (rank_pts, suit_pts) in indices:
        full = abs(cv2.contourArea(q.astype(np.float32)))
        if full < 1:
            continue
        box = _box_from_quad(q, w, h)
        if box[2] <= box[0] or box[3] <= box[1]:
            continue
        x1, y1 = int(box[0]), int(box[1])
        x2, y2 = int(math.ceil(box[2])), int(math.ceil(box[3]))
        m = np.zeros((y2 - y1, x2 - x1), np.uint8)
        cv2.fillConvexPoly(m, np.round((q - [x1, y1]) * 4).astype(np.int32), 1, lineType=cv2.LINE_8, shift=2)
        inside = m.astype(bool)
        seen = np.count_nonzero(owner[y1:y2, x1:x2][inside] == i)
        vis = min(1.0, seen / full)
        side = max(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[3] - q[0]))
        vr, pr = glyph_seen(rank_pts, i)
        vs, ps = glyph_seen(suit_pts, i)
        glyph_vis = min(vr, vs)
        ink = None
        if vis < 0.95 and len(pr) + len(ps) >= 4:
            pts = np.concatenate([pr, ps])
            pad = 0.5
            ink = (float(max(0, pts[:, 0].min() - pad)), float(max(0, pts[:, 1].min() - pad)),
                   float(min(w, pts[:, 0].max() + pad)), float(min(h, pts[:, 1].max() + pad)))
            if glyph_vis >= GLYPHS_VISIBLE:
                # partly covered, glyphs whole: the box is the visible ink (as an unhidden index's box is its ink)
                box = ink
        labels.append(IndexLabel(card, box, q, float(vis), float(side), i, float(glyph_vis), ink))
    return Scene(img, labels, quads, clutter)
