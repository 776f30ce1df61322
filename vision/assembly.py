"""From corner-index readings to physical cards (pure geometry, no I/O).

A standard card prints its index (rank + suit) twice, in the top-left corner and,
rotated 180°, in the bottom-right one; some decks print all four corners. A card
lying alone shows both; a card in an overlapped meld or a fanned hand often only
one. :func:`assemble` pairs readings that belong to one card:

* same card value (the classifier distributions of the two corners are compatible;
  the card value is voted from both, so one misread corner is outvoted),
* at the distance of the card's index diagonal for their size (the index height
  gives the card size through :class:`IndexGeometry`),
* with index boxes of similar size and a box shape consistent with the card
  orientation the pair implies.

Pairs are taken greedily, best fit first, each reading in at most one card, so
identical cards (Marriage plays with three packs) at different places stay
distinct. A pair gives the whole card: its quad (the card's four corners) and
box. A lone index gives a card whose box is the index box and whose quad is None.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from tableref.vision.types import DetectedCard


# each corner of a pair must give the pair's card at least this probability: a misread corner
# (the right card its runner-up) is outvoted by the other, but a corner of another card read
# confidently (the pair's card nowhere near its top) is not that card's
MIN_SUPPORT = 0.2
# a pair whose card face (shrunk by this) holds another card's confident index is not one card
FOREIGN_SHRINK = 0.8
# two whole cards (both corners paired) may overlap this much (sampled fraction of a card face)
WHOLE_OVERLAP = 0.3
# two pairs of one label whose card centres are closer than this (card widths) are one card
TWIN_CENTRE = 0.3
# two boxes of one label closer than this (index sizes) are one printed index
REPEAT_NEAR = 0.4
# a whole card turned this much (radians) from the cards its corners lie beside is two strips
BRIDGE_TURN = math.radians(15)
# ... and lies this close (index sizes) outside them (the bottom card of a meld shows two strips away)
BRIDGE_REACH = 2.5


@dataclass(frozen=True)
class IndexGeometry:
    """Where the index sits on the card, in fractions of the card (portrait, upright).

    ``cx``, ``cy``: centre of the top-left index as fractions of card width and
    height; ``w``, ``h``: index size as fractions of card width and height;
    ``aspect``: card height / width. ``corners``: the corners that carry an index.
    ``distance_tolerance``: accepted ratio between measured and expected distance
    of two corner indices (decks differ in index size, the table may be tilted).
    """

    aspect: float = 1.4
    cx: float = 0.09
    cy: float = 0.13
    w: float = 0.09
    h: float = 0.19
    corners: tuple[str, ...] = ("TL", "BR")
    distance_tolerance: float = 1.35
    size_tolerance: float = 1.7
    # other deck layouts a pair may follow (decks differ: jumbo indices, narrow cards)
    variants: tuple["IndexGeometry", ...] = ()

    def layouts(self) -> list["IndexGeometry"]:
        """This layout and its variants."""
        return [self, *self.variants]

    @classmethod
    def from_spec(cls, spec) -> "IndexGeometry":
        """Read ``recognition.json``'s ``index_geometry``; unknown keys are ignored.

        Accepts either card-fraction keys (``cx, cy, w, h, aspect``) or an index box
        ``box`` / ``top_left: [x1, y1, x2, y2]`` in card fractions (``aspect`` may be
        given as width/height, as ``datasets.decks.deck_geometry`` does), or millimetre sizes
        (``card_mm: [w, h]``, ``index_mm: [x1, y1, x2, y2]``). Per-deck layouts under
        ``decks`` (a dict of such objects) become variants, and so does the built-in
        standard (poker/bridge-size, Bicycle-like) layout.
        """
        base = cls._parse_one(spec) if isinstance(spec, dict) else None
        variants: list[IndexGeometry] = []
        if isinstance(spec, dict):
            extra = spec.get("decks")
            items = extra.values() if isinstance(extra, dict) else (extra if isinstance(extra, list) else [])
            for d in items:
                g = cls._parse_one(d) if isinstance(d, dict) else None
                if g is not None:
                    variants.append(g)
        standard = cls()
        if base is None:
            base = standard
        else:
            variants.append(standard)
        unique: list[IndexGeometry] = []
        for g in variants:
            if all(not g.similar(u) for u in [base, *unique]):
                unique.append(g)
        return replace(base, variants=tuple(unique))

    def similar(self, other: "IndexGeometry", tol: float = 0.01) -> bool:
        return all(abs(a - b) <= tol for a, b in zip((self.aspect, self.cx, self.cy, self.w, self.h),
                                                        (other.aspect, other.cx, other.cy, other.w, other.h)))

    @classmethod
    def _parse_one(cls, spec: dict) -> "IndexGeometry | None":
        kw = {}
        try:
            if "card_mm" in spec and "index_mm" in spec:
                cw, ch = (float(v) for v in spec["card_mm"])
                x1, y1, x2, y2 = (float(v) for v in spec["index_mm"])
                kw.update(aspect=ch / cw, cx=(x1 + x2) / 2 / cw, cy=(y1 + y2) / 2 / ch,
                          w=(x2 - x1) / cw, h=(y2 - y1) / ch)
            box = spec.get("box") or spec.get("index_box") or spec.get("top_left")
            if box is not None and len(box) == 4:
                x1, y1, x2, y2 = (float(v) for v in box)
                kw.update(cx=(x1 + x2) / 2, cy=(y1 + y2) / 2, w=x2 - x1, h=y2 - y1)
            for key, names in {"aspect": ("aspect", "card_aspect"), "cx": ("cx", "index_cx"),
                               "cy": ("cy", "index_cy"), "w": ("w", "index_w"), "h": ("h", "index_h"),
                               "distance_tolerance": ("distance_tolerance",),
                               "size_tolerance": ("size_tolerance",)}.items():
                for n in names:
                    if isinstance(spec.get(n), (int, float)) and not isinstance(spec.get(n), bool):
                        kw[key] = float(spec[n])
            if kw.get("aspect", 1.0) < 1.0:   # given as width / height
                kw["aspect"] = 1.0 / kw["aspect"]
            if isinstance(spec.get("corners"), (list, tuple)) and spec["corners"]:
                kw["corners"] = tuple(str(c).upper() for c in spec["corners"])
        except (TypeError, ValueError):
            return None
        if not kw:
            return None
        geo = cls(**kw)
        if not (0 < geo.cx < 0.5 and 0 < geo.cy < 0.5 and 0 < geo.h < 1 and 0 < geo.w < 1 and geo.aspect > 0):
            return None
        return geo

    # derived quantities (card units: width = 1, height = aspect)
    @property
    def diag_vec(self) -> tuple[float, float]:
        """Top-left index centre -> bottom-right index centre, in card widths."""
        return (1.0 - 2.0 * self.cx, self.aspect * (1.0 - 2.0 * self.cy))

    @property
    def index_size(self) -> tuple[float, float]:
        """Index width, height in card widths."""
        return (self.w, self.h * self.aspect)

    def corner_offsets(self) -> dict[str, tuple[float, float]]:
        """Index centre of each printed corner relative to the card centre, card widths."""
        dx, dy = 0.5 - self.cx, self.aspect * (0.5 - self.cy)
        return {"TL": (-dx, -dy), "TR": (dx, -dy), "BR": (dx, dy), "BL": (-dx, dy)}


@dataclass
class IndexReading:
    """One detected corner index: box (source pixels), detector score, classifier probabilities."""

    box: tuple[float, float, float, float]
    score: float
    probs: np.ndarray

    @property
    def centre(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.box
        return ((x1 + x2) / 2.0, (y1 + y2) / 2.0)

    @property
    def size(self) -> float:
        """Longer box side: close to the index height at any rotation."""
        x1, y1, x2, y2 = self.box
        return max(x2 - x1, y2 - y1, 1e-6)


def _rotated_box_aspect(w0: float, h0: float, theta: float) -> float:
    c, s = abs(math.cos(theta)), abs(math.sin(theta))
    return (w0 * c + h0 * s) / max(w0 * s + h0 * c, 1e-9)


def _box_aspect(box) -> float:
    x1, y1, x2, y2 = box
    return max(x2 - x1, 1e-6) / max(y2 - y1, 1e-6)


@dataclass
class _Pair:
    i: int
    j: int
    cost: float
    label: int
    prob: float
    theta: float      # card rotation (radians, image coordinates, y down)
    card_w: float     # card width in pixels
    aspect: float     # card height / width of the layout that fitted
    layout: "IndexGeometry | None" = None   # the layout that fitted


def _card_dists(readings, label_idx):
    probs = np.stack([r.probs for r in readings]).astype(np.float64)
    q = probs[:, label_idx]
    q = q / np.maximum(q.sum(axis=1, keepdims=True), 1e-12)
    return probs, q


def _layout_fit(layout: IndexGeometry, vx: float, vy: float, si: float, sj: float, box_aspect: float):
    """How well two index centres ``(vx, vy)`` apart, of sizes ``si``, ``sj``, fit one card of ``layout``.

    Returns (cost, theta, card width px) or None when they cannot be its two corners.
    """
    ddx, ddy = layout.diag_vec
    diag_len = math.hypot(ddx, ddy)           # card widths
    iw, ih = layout.index_size                 # card widths
    d = math.hypot(vx, vy)
    # the longer box side approximates the index height (ih card widths)
    card_w = (si + sj) / 2.0 / ih
    r = d / max(diag_len * card_w, 1e-6)
    log_tol = math.log(layout.distance_tolerance)
    if abs(math.log(max(r, 1e-6))) > log_tol:
        return None
    theta = math.atan2(vy, vx) - math.atan2(ddy, ddx)
    # the box shape this rotation predicts vs. the observed one
    shape_err = abs(math.log(_rotated_box_aspect(iw, ih, theta) / box_aspect))
    if shape_err > math.log(2.2):
        return None
    cost = abs(math.log(r)) / log_tol + 0.5 * shape_err / math.log(2.2)
    return cost, theta, d / diag_len


def pair_candidates(readings: list[IndexReading], q: np.ndarray, geo: IndexGeometry,
                    min_agreement: float = 0.02) -> list[_Pair]:
    """All geometrically and semantically plausible corner pairs, cheapest first.

    Each pair is fitted to every deck layout of ``geo`` (``geo.layouts()``); the best fit counts.
    """
    n = len(readings)
    if n < 2:
        return []
    layouts = geo.layouts()
    centres = np.array([r.centre for r in readings])
    sizes = np.array([r.size for r in readings])
    aspects = np.array([_box_aspect(r.box) for r in readings])
    top = q.argmax(axis=1)
    agreement = np.einsum("ik,jk->ij", q, q)  # not q @ q.T: BLAS threads stall on a busy CPU
    ratio = np.maximum(sizes[:, None], sizes[None, :]) / np.maximum(np.minimum(sizes[:, None], sizes[None, :]), 1e-9)
    dist = np.hypot(centres[:, None, 0] - centres[None, :, 0], centres[:, None, 1] - centres[None, :, 1])
    # the widest distance any layout accepts, in index sizes
    reach = max(math.hypot(*g.diag_vec) / g.index_size[1] * g.distance_tolerance for g in layouts)
    cand = ((agreement >= min_agreement) & (ratio <= geo.size_tolerance)
            & (dist <= reach * np.maximum(sizes[:, None], sizes[None, :])))
    ii, jj = np.nonzero(np.triu(cand, k=1))
    foreign = (q.max(axis=1) >= 0.6) & (np.array([r.score for r in readings]) >= 0.3)
    out = []
    for i, j in zip(ii.tolist(), jj.tolist()):
        si, sj = sizes[i], sizes[j]
        agree = float(agreement[i, j])
        joint = q[i] * q[j]
        label = int(joint.argmax())
        if label != top[i] and label != top[j]:
            continue
        if min(q[i, label], q[j, label]) < MIN_SUPPORT:
            continue        # one corner outvoted is fine, one that names another card is not
        vx, vy = centres[j] - centres[i]
        obs = math.sqrt(aspects[i] * aspects[j])
        best = None
        for layout in layouts:
            fit = _layout_fit(layout, vx, vy, si, sj, obs)
            if fit is not None and (best is None or fit[0] < best[0][0]):
                best = (fit, layout)
        if best is None:
            continue
        (cost, theta, card_w), layout = best
        if foreign.any():
            # a card showing both corners lies on top: no other index shows inside its face,
            # another card's or one of its label (an identical card's corner means the pair
            # spans two cards), but for where it prints its other two corners and, for its
            # label, round the middle (a big centre pip or court figure read as an index)
            mid = ((centres[i, 0] + centres[j, 0]) / 2.0, (centres[i, 1] + centres[j, 1]) / 2.0)
            quad = card_quad(mid, theta, card_w, layout.aspect)
            others = foreign.copy()
            others[i] = others[j] = False
            if others.any():
                inside = np.nonzero(others)[0]
                inside = inside[_points_in_quad(centres[inside], quad, FOREIGN_SHRINK)]
                if len(inside):
                    info = {"centre": mid, "theta": theta, "card_w": card_w}
                    offs = layout.corner_offsets()
                    spots = [_corner_at(info, offs, c) for c in ("TR", "BL")]
                    if any(top[k] != label or (min(math.dist(centres[k], s) for s in spots) >= 0.6 * sizes[k]
                                               and math.dist(centres[k], mid) >= 0.35 * card_w)
                           for k in inside):
                        continue
        cost += 0.5 * (1.0 - min(agree, 1.0)) + 0.2 * abs(math.log(si / sj))
        prob = float(joint[label] / max(joint.sum(), 1e-12))
        out.append(_Pair(i, j, cost, label, prob, theta, card_w, layout.aspect, layout))
    out.sort(key=lambda p: p.cost)
    return out


def side_pairs(readings: list[IndexReading], q: np.ndarray, geo: IndexGeometry, used: np.ndarray,
               tolerance: float = 1.25, min_elongation: float = 1.3) -> list[tuple[int, int, int, float]]:
    """Two indices along one side of a card that prints all four corners: ``(i, j, label, prob)``.

    A card under others in a row shows a strip: on such decks its top-left and
    bottom-left indices. They lie a long side's length apart (from the index size
    and each deck layout), in line with the index's long axis. Identical cards
    overlapped in a column are a strip's height apart, much less than a side, so
    they are not taken for one card. (The short side is not used: with jumbo
    indices it is hardly longer than the strips of identical cards in a row.)
    Only readings not yet used are considered; the pairs are cheapest first.
    The card's outline stays unknown (which side is hidden is not), so it is
    reported as a partial card covering both indices.
    """
    free = [k for k in range(len(readings)) if not used[k]]
    if len(free) < 2:
        return []
    top = q.argmax(axis=1)
    log_tol = math.log(tolerance)
    cands = []
    for a, i in enumerate(free):
        ri = readings[i]
        wi, hi = ri.box[2] - ri.box[0], ri.box[3] - ri.box[1]
        if max(wi, hi) / max(min(wi, hi), 1e-6) < min_elongation:
            continue                 # a turned index: its long axis is unknown
        long_axis = (0.0, 1.0) if hi >= wi else (1.0, 0.0)
        for j in free[a + 1:]:
            rj = readings[j]
            if top[i] != top[j] or max(ri.size, rj.size) / min(ri.size, rj.size) > 1.5:
                continue
            vx, vy = rj.centre[0] - ri.centre[0], rj.centre[1] - ri.centre[1]
            d = math.hypot(vx, vy)
            if d <= 1e-6:
                continue
            along = abs(vx * long_axis[0] + vy * long_axis[1]) / d      # cosine to the long axis
            size = (ri.size + rj.size) / 2.0
            best = None
            for layout in geo.layouts():
                card_w = size / layout.index_size[1]
                long_side = layout.aspect * (1.0 - 2.0 * layout.cy) * card_w
                err = abs(math.log(d / long_side))
                if along > math.cos(math.radians(20)) and err <= log_tol and (best is None or err < best):
                    best = err
            if best is None:
                continue
            joint = q[i] * q[j]
            label = int(joint.argmax())
            cands.append((best, i, j, label, float(joint[label] / max(joint.sum(), 1e-12))))
    cands.sort()
    taken: set[int] = set()
    out = []
    for _, i, j, label, prob in cands:
        if i in taken or j in taken:
            continue
        taken.update((i, j))
        out.append((i, j, label, prob))
    return out


def _within_short_side(ri: IndexReading, rj: IndexReading, geo: IndexGeometry, slack: float = 1.2) -> bool:
    """Whether two indices are no farther apart than a card's short side (any deck layout) allows."""
    d = math.hypot(rj.centre[0] - ri.centre[0], rj.centre[1] - ri.centre[1])
    size = (ri.size + rj.size) / 2.0
    return any(d <= slack * (1.0 - 2.0 * g.cx) * size / g.index_size[1] for g in geo.layouts())


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


def _bbox(points) -> tuple[float, float, float, float]:
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


def _union(a, b):
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _points_in_quad(pts: np.ndarray, quad, shrink: float = 1.0) -> np.ndarray:
    """Which of the points (N, 2) lie inside the convex ``quad`` scaled by ``shrink`` about its centre."""
    q = np.asarray(quad, dtype=float).reshape(-1, 2)
    c = q.mean(axis=0)
    q = c + (q - c) * shrink
    pts = np.asarray(pts, dtype=float).reshape(-1, 2)
    a, b = q, np.roll(q, -1, axis=0)
    cross = (b[None, :, 0] - a[None, :, 0]) * (pts[:, None, 1] - a[None, :, 1]) - \
        (b[None, :, 1] - a[None, :, 1]) * (pts[:, None, 0] - a[None, :, 0])
    return (cross >= 0).all(axis=1) | (cross <= 0).all(axis=1)


def _quads_overlap(a, b, n: int = 4) -> float:
    """About how much of the smaller of two card quads the other covers (0..1), from n×n sample points."""
    def grid(quad):
        qd = np.asarray(quad, dtype=float).reshape(4, 2)
        t = (np.arange(n) + 0.5) / n
        u, v = np.meshgrid(t, t)
        u, v = u.reshape(-1, 1), v.reshape(-1, 1)
        top = qd[0] + u * (qd[1] - qd[0])
        bottom = qd[3] + u * (qd[2] - qd[3])
        return top + v * (bottom - top)

    return float(max(_points_in_quad(grid(a), b).mean(), _points_in_quad(grid(b), a).mean()))


def _merge_same_place(cards: list, near: float = 0.3) -> list:
    """Paired cards of one value centred at one place are one card.

    A deck that prints its index in all four corners gives a card two diagonal
    pairs (top-left with bottom-right, top-right with bottom-left). Two identical
    cards cannot lie at the same place and both show their corners: the one on top
    hides the other.
    """
    out: list = []
    for card, info in cards:
        for kept, kinfo in out:
            if kept.card != card.card or "centre" not in kinfo or "centre" not in info:
                continue
            gap = math.hypot(info["centre"][0] - kinfo["centre"][0], info["centre"][1] - kinfo["centre"][1])
            if gap < near * min(info["card_w"], kinfo["card_w"]):
                kept.indices.extend(card.indices)
                kinfo["members"] = kinfo["members"] + info["members"]
                kept.confidence = 1.0 - (1.0 - kept.confidence) * (1.0 - card.confidence)
                break
        else:
            out.append((card, info))
    return out


def _corner_at(info: dict, offsets: dict, corner: str) -> tuple[float, float]:
    """Where a paired card (``info``: centre, theta, card_w) prints the index of ``corner``."""
    c, s = math.cos(info["theta"]), math.sin(info["theta"])
    ox, oy = offsets[corner][0] * info["card_w"], offsets[corner][1] * info["card_w"]
    return info["centre"][0] + c * ox - s * oy, info["centre"][1] + s * ox + c * oy


def _overlap_of_smaller(a, b) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return ix * iy / max(smaller, 1e-9)


def _absorb_repeat(r: "IndexReading", dist: np.ndarray, cards: list, label_names: list[str],
                   offsets: dict | None = None, overlap: float = 0.3, shrink: float = 0.9) -> bool:
    """Whether a lone reading is a repeat of a card already found, which then counts it as support.

    A second box on an index already read (a part of it, or the same index seen at
    another scale), or an index inside the face of a card whose corners were paired
    (a card on top hides what lies under it, so an index seen inside a card's face is
    that card's), or the index where a four-corner deck prints its other pair, is not
    another card. The reading must name the same card.
    """
    lab = label_names[int(dist.argmax())]
    for card, info in cards:
        if card.card != lab:
            continue
        repeat = any(_overlap_of_smaller(r.box, b) > overlap for b in card.indices)
        if not repeat and card.quad is not None and "theta" in info:
            repeat = bool(_points_in_quad([r.centre], card.quad, shrink)[0])
            if not repeat and offsets:
                # a deck printing all four corners: the other diagonal's index
                repeat = any(math.dist(r.centre, _corner_at(info, offsets, corner)) < 0.6 * r.size
                             for corner in ("TR", "BL"))
        if repeat:
            card.indices.append(tuple(r.box))
            return True
    return False


def _turn(a: float, b: float) -> float:
    """Angle between two card rotations (radians; a card turned by 180° lies alike)."""
    return abs((a - b + math.pi / 2) % math.pi - math.pi / 2)


def _bridging_pairs(infos: list[dict], quads: list, readings: list[IndexReading]) -> frozenset:
    """Whole cards that are two identical cards' corners in neighbouring melds (as
    frozensets of their two readings' positions in ``readings``, to be left unpaired).

    A covered card's index shows just outside the card lying on it (up to ``BRIDGE_REACH``
    index sizes: two strips for a meld's bottom card), and lies turned as that card does.
    A "card" whose two corners lie just outside two other whole cards that lie alike, both
    turned differently from it (by more than ``BRIDGE_TURN``), as are most whole cards
    round it, spans the gap between two melds: its corners are two strips.
    """
    if len(infos) < 3:
        return frozenset()
    polys = [np.asarray(qd, np.float32).reshape(-1, 1, 2) for qd in quads]
    out = set()
    for w, info in enumerate(infos):
        beside = []      # for each corner, the nearest other whole card it lies just outside
        for k in info["members"][:2]:
            r = readings[k]
            best = None
            for v in range(len(infos)):
                if v == w:
                    continue
                d = cv2.pointPolygonTest(polys[v], (float(r.centre[0]), float(r.centre[1])), True)
                if -BRIDGE_REACH * r.size <= d <= 0 and (best is None or d > best[0]):
                    best = (d, v)
            beside.append(None if best is None else best[1])
        if None in beside or beside[0] == beside[1]:
            continue
        a, b = (infos[v]["theta"] for v in beside)
        # the two melds lie alike (their top cards agree), and this card lies otherwise
        near = [o["theta"] for v, o in enumerate(infos)
                if v != w and math.dist(o["centre"], info["centre"]) < 3.0 * info["card_w"]]
        odd = sum(_turn(info["theta"], t) > BRIDGE_TURN for t in near) > len(near) / 2
        if odd and _turn(a, b) <= BRIDGE_TURN and min(_turn(info["theta"], a), _turn(info["theta"], b)) > BRIDGE_TURN:
            out.add(frozenset(info["members"][:2]))
    return frozenset(out)


def drop_repeat_readings(readings: list[IndexReading], q: np.ndarray,
                         near: float = REPEAT_NEAR) -> tuple[list[int], dict[int, int]]:
    """(indices of the readings to keep, {dropped: its keeper}): a second box on one printed
    index (shifted by less than ``near`` index sizes, read as the same card) is dropped, the
    better-scored box kept. Two such boxes would otherwise pair with each other's
    neighbours into a second, phantom card. A visible index of another card lies at
    least most of an index size away (it must show whole to be read)."""
    order = sorted(range(len(readings)), key=lambda k: -readings[k].score)
    top = q.argmax(axis=1)
    kept: list[int] = []
    dropped: dict[int, int] = {}
    for k in order:
        r = readings[k]
        keeper = next((m for m in kept if top[k] == top[m]
                       and math.dist(r.centre, readings[m].centre) < near * max(r.size, readings[m].size)), None)
        if keeper is None:
            kept.append(k)
        else:
            dropped[k] = keeper
    return sorted(kept), dropped


def assemble(readings: list[IndexReading], names: list[str], geometry: IndexGeometry | None = None,
             min_confidence: float = 0.0, image_size: tuple[int, int] | None = None,
             det_power: float = 1.0, several_packs: bool = False) -> list[DetectedCard]:
    """Group index readings into physical cards; most confident first.

    ``names`` labels the classifier outputs (52 cards and ``none``). The card
    confidence is the voted value's probability times the detection evidence
    (one minus the chance that every supporting detection is spurious), times the
    chance the crops are real indices (not ``none``). ``image_size`` (w, h) clips boxes.
    ``det_power`` < 1 softens the detector score's weight (for an under-confident detector).
    ``several_packs``: the cards come from more than one pack (Marriage: three), so identical
    cards lie side by side; two of their corners may then look like one card (see
    :func:`_bridging_pairs`).
    """
    geo = geometry or IndexGeometry()
    if not readings:
        return []
    label_idx = [k for k, n in enumerate(names) if n != "none"]
    label_names = [names[k] for k in label_idx]
    none_k = names.index("none") if "none" in names else None
    probs, q = _card_dists(readings, label_idx)
    keep, dropped = drop_repeat_readings(readings, q)
    repeats: dict[tuple, list[tuple]] = {}      # a kept box -> the repeat boxes on its index
    for k, m in dropped.items():
        repeats.setdefault(tuple(readings[m].box), []).append(tuple(readings[k].box))
    if dropped:
        readings = [readings[k] for k in keep]
        probs, q = probs[keep], q[keep]
    p_real = 1.0 - probs[:, none_k] if none_k is not None else np.ones(len(readings))

    def evidence(i: int, j: int) -> float:
        """Chance that two corner readings are real indices (detector and classifier)."""
        det = (1.0 - (1.0 - readings[i].score) * (1.0 - readings[j].score)) ** det_power
        return det * (1.0 - (1.0 - p_real[i]) * (1.0 - p_real[j]))

    def partial_card(label: int, prob: float, i: int, j: int) -> tuple[DetectedCard, dict]:
        """One card from two of its indices whose outline is unknown."""
        ri, rj = readings[i], readings[j]
        return (DetectedCard(card=label_names[label], confidence=prob * evidence(i, j), box=_union(ri.box, rj.box),
                             quad=None, indices=[tuple(ri.box), tuple(rj.box)]), {"members": [i, j]})

    candidates = pair_candidates(readings, q, geo)

    def pair_whole(skip: frozenset) -> tuple[np.ndarray, list[tuple[DetectedCard, dict]]]:
        """Whole cards from the cheapest pairs first, the pairs in ``skip`` left out."""
        used = np.zeros(len(readings), dtype=bool)
        cards: list[tuple[DetectedCard, dict]] = []
        whole_quads: list = []
        for p in candidates:
            if used[p.i] or used[p.j]:
                continue
            if frozenset((p.i, p.j)) in skip:
                continue
            ri, rj = readings[p.i], readings[p.j]
            centre = ((ri.centre[0] + rj.centre[0]) / 2, (ri.centre[1] + rj.centre[1]) / 2)
            quad = card_quad(centre, p.theta, p.card_w, p.aspect)
            twin = next((c for lab, other, c, oc, ow in whole_quads
                         if lab == p.label and (math.dist(centre, oc) < TWIN_CENTRE * min(ow, p.card_w)
                                                or _quads_overlap(quad, other) > 0.5)), None)
            if twin is not None:
                # the same card's other diagonal (a four-corner deck): the two diagonals of one
                # card share its centre, however each fitted
                used[p.i] = used[p.j] = True
                twin.indices.extend([tuple(ri.box), tuple(rj.box)])
                continue
            if any(lab != p.label and _quads_overlap(quad, other) > WHOLE_OVERLAP for lab, other, *_ in whole_quads):
                # two cards that both show both corners lie side by side, not one over the other's
                # face: the better pair (taken first) stands; this one is two corners of other cards,
                # unless they are close enough to be one card's strip (a four-corner deck's
                # top-left and top-right): then one card whose outline is unknown
                if _within_short_side(ri, rj, geo):
                    used[p.i] = used[p.j] = True
                    cards.append(partial_card(p.label, p.prob, p.i, p.j))
                continue
            used[p.i] = used[p.j] = True
            ev = evidence(p.i, p.j)
            conf = p.prob * ev
            box = _union(_bbox(quad), _union(ri.box, rj.box))
            card = DetectedCard(card=label_names[p.label], confidence=conf, box=box, quad=quad,
                                indices=[tuple(ri.box), tuple(rj.box)])
            info = {"members": [p.i, p.j], "centre": centre, "theta": p.theta,
                    "card_w": p.card_w, "dist": q[p.i] * q[p.j], "evidence": ev}
            cards.append((card, info))
            whole_quads.append((p.label, quad, card, centre, p.card_w))
            # the card lies on top: an index of its label where it prints its other two corners
            # (a four-corner deck) is its own, not one to pair with another card's corner
            offs = (p.layout or geo).corner_offsets()
            for corner in ("TR", "BL"):
                pos = _corner_at(info, offs, corner)
                near = [k for k in range(len(readings)) if not used[k] and q[k, p.label] >= MIN_SUPPORT
                        and math.dist(readings[k].centre, pos) < 0.6 * readings[k].size]
                if near:
                    k = min(near, key=lambda m: math.dist(readings[m].centre, pos))
                    used[k] = True
                    card.indices.append(tuple(readings[k].box))
        return used, cards

    used, cards = pair_whole(frozenset())
    if several_packs:
        whole = [(c, info) for c, info in cards if "theta" in info]
        # (not for a deck printing four corners, whose whole cards show three or four: there
        # the fitted turn of a card is less sure, and the other corners tell strips apart)
        if sum(len(c.indices) >= 3 for c, _ in whole) < 0.3 * len(whole):
            bridges = _bridging_pairs([info for _, info in whole], [c.quad for c, _ in whole], readings)
            if bridges:
                used, cards = pair_whole(bridges)
    cards = _merge_same_place(cards)
    for i, j, label, prob in side_pairs(readings, q, geo, used):
        used[i] = used[j] = True
        cards.append(partial_card(label, prob, i, j))

    # lone indices: a third/fourth printed corner of a paired card joins it; else a card of its own
    offsets = geo.corner_offsets()
    extra = [c for c in geo.corners if c not in ("TL", "BR")]
    for k in np.argsort([-r.score for r in readings]):
        if used[k]:
            continue
        r = readings[k]
        joined = False
        if extra:
            for card, info in cards:
                if "theta" not in info:
                    continue
                for corner in extra:
                    if math.dist(r.centre, _corner_at(info, offsets, corner)) < 0.6 * r.size:
                        dist = info["dist"] * q[k]
                        if dist.sum() > 1e-9 and len(card.indices) < len(geo.corners):
                            info["dist"] = dist
                            lab = int(dist.argmax())
                            card.card = label_names[lab]
                            card.confidence = float(dist[lab] / dist.sum()) * info["evidence"]
                            card.indices.append(tuple(r.box))
                            joined = True
                        break
                if joined:
                    break
        if not joined:
            joined = _absorb_repeat(r, q[k], cards, label_names, offsets)
        if joined:
            used[k] = True
            continue
        lab = int(q[k].argmax())
        conf = float(q[k, lab]) * r.score ** det_power * float(p_real[k])
        card = DetectedCard(card=label_names[lab], confidence=conf, box=tuple(r.box), quad=None,
                            indices=[tuple(r.box)])
        cards.append((card, {"members": [int(k)]}))
        used[k] = True

    out = [c for c, _ in cards if c.confidence >= min_confidence]
    for c in out:
        for b in list(c.indices):
            c.indices.extend(repeats.get(tuple(b), []))
    if image_size is not None:
        w, h = image_size
        for c in out:
            x1, y1, x2, y2 = c.box
            c.box = (max(0.0, x1), max(0.0, y1), min(float(w), x2), min(float(h), y2))
    out.sort(key=lambda c: -c.confidence)
    return out
