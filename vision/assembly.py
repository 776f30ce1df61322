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
distinct; a card of a four-corner deck that shows three or four corners, then
parallel strips of identical cards, are taken before the rest (two corners of two
identical cards can fit one card of another deck's layout better). A pair gives the
whole card: its quad (the card's four corners) and box. A lone index gives a card
whose box is the index box and whose quad is None.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import cv2
import numpy as np

from tableref.vision.geometry import (
    PointGrid,
    bbox,
    card_quad,
    half_diagonal,
    overlap_of_smaller,
    pairs_apart_in_x,
    points_in_quad,
    quads_overlap,
    union,
)
from tableref.vision.index_layout import IndexGeometry, IndexReading
from tableref.vision.types import DetectedCard

__all__ = ["IndexGeometry", "IndexReading", "assemble", "card_quad", "pair_candidates", "side_pairs",
           "drop_repeat_readings"]

# --------------------------------------------------------------------------- tuning factors
# Distances are in index sizes (an index box's longer side) or card widths, as named.

# two corners may pair only when their card distributions agree at least this much (dot product)
MIN_AGREEMENT = 0.02
# each corner of a pair must give the pair's card at least this probability: a misread corner
# (the right card its runner-up) is outvoted by the other, but a corner of another card read
# confidently (the pair's card nowhere near its top) is not that card's
MIN_SUPPORT = 0.2
# the box shape a pair's turn predicts may differ from the one seen by up to this factor
SHAPE_TOLERANCE = 2.2
# the cost of a pair: distance misfit (1 at the tolerance) plus these weights times the box-shape
# misfit (1 at SHAPE_TOLERANCE), the corners' disagreement (1 - agreement) and |log size ratio|
SHAPE_WEIGHT = 0.5
DISAGREEMENT_WEIGHT = 0.5
SIZE_RATIO_WEIGHT = 0.2
# an index read this surely (classifier probability, detector score) belongs to some card: it
# must not lie inside the face of a pair of other corners
FOREIGN_PROB = 0.6
FOREIGN_SCORE = 0.3
# a pair whose card face (shrunk by this) holds another card's confident index is not one card
FOREIGN_SHRINK = 0.8
# ... unless that index is read less than this share as surely (classifier probability x detector
# score) as the pair's weaker corner: two crisp corners of one card around a faint "index" inside
# its face are that card, and the faint index is its face's print (a court figure's ornament read
# 8C inside a QD), not a card
FACE_PRINT_SHARE = 0.5
# ... unless that index is the pair's own card where it prints its other corners (closer than
# CORNER_NEAR index sizes to the spot) or round its middle (closer than PIP_NEAR card widths: a
# big centre pip or a court figure read as an index)
CORNER_NEAR = 0.6
PIP_NEAR = 0.35
# another card's index this close (index sizes) to where the pair's card prints its other corners may
# be a card lying over that corner of its face, which leaves the pair's own two corners in sight (the
# fanned deal's 10C over the top right corner of a 5D whose top left and bottom right corners show):
# such a pair is taken only after every other, from corners no other pair took (split in two, the 5D
# was a phantom card in a several-pack count; taken at its cost, such pairs joined the corners of two
# identical cards overlapped in a Marriage meld)
COVER_NEAR = 1.0
# two whole cards (both corners paired) may overlap this much (fraction of the smaller card face)
WHOLE_OVERLAP = 0.3
# two pairs of one label whose card centres are closer than this (card widths), or whose faces
# overlap more than TWIN_OVERLAP, are one card's two diagonals (a four-corner deck)
TWIN_CENTRE = 0.3
TWIN_OVERLAP = 0.5
# two pairs of one label parallel (corner vectors within TWIN_STRIP_SLACK index sizes) with middles
# between TWIN_STRIP_SLACK and TWIN_STRIP_NEAR index sizes apart are two identical cards' strips
TWIN_STRIP_SLACK = 0.4
TWIN_STRIP_NEAR = 1.6
# two indices no farther apart than this times a card's short side may be one card's top strip
SHORT_SIDE_SLACK = 1.2
# two boxes of one label closer than this (index sizes) are one printed index
REPEAT_NEAR = 0.4
# a lone index is a repeat of a card of its label when its box overlaps one of the card's index
# boxes by this much (of the smaller box), or lies inside the card's face shrunk by REPEAT_SHRINK
REPEAT_OVERLAP = 0.3
REPEAT_SHRINK = 0.9
# a whole card turned this much (radians) from the cards its corners lie beside is two strips
BRIDGE_TURN = math.radians(15)
# ... and lies this close (index sizes) outside them (the bottom card of a meld shows two strips away)
BRIDGE_REACH = 2.5
# ... "the cards round it": whole cards whose centres lie within this many card widths
BRIDGE_NEIGHBOURHOOD = 3.0
# the bridge rule is for two-corner decks: off when this share of whole cards shows 3+ corners
FOUR_CORNER_SHARE = 0.3
# side pairs (a four-corner deck's strip): measured/expected distance within this factor, the
# index box this elongated (long/short side) so its long axis is known, the line between them
# within SIDE_TILT of that axis, and the two index sizes within SIDE_SIZE_RATIO
SIDE_TOLERANCE = 1.25
SIDE_ELONGATION = 1.3
SIDE_TILT = math.radians(20)
SIDE_SIZE_RATIO = 1.5
# the cells of the neighbourhood grids, in (median) index sizes: about two card widths, so that
# the widest search (a corner's partner, up to ~11 index sizes away) looks at a few cells
GRID_CELL = 8.0


# --------------------------------------------------------------------------- the state the passes share


@dataclass
class CardFit:
    """The pose of a card whose two diagonal corners were paired: its outline is known."""

    centre: tuple[float, float]
    theta: float            # card rotation (radians, image coordinates, y down)
    card_w: float           # card width in pixels
    aspect: float           # card height / width of the deck layout that fitted
    dist: np.ndarray        # the card distribution voted by its corners
    evidence: float         # chance that the corners are real indices

    def corner_at(self, offsets: dict, corner: str) -> tuple[float, float]:
        """Where this card prints the index of ``corner`` (``offsets``: a layout's corner offsets)."""
        c, s = math.cos(self.theta), math.sin(self.theta)
        ox, oy = offsets[corner][0] * self.card_w, offsets[corner][1] * self.card_w
        return self.centre[0] + c * ox - s * oy, self.centre[1] + s * ox + c * oy


@dataclass
class Found:
    """One physical card found so far: what is reported, the readings behind it, its pose if whole."""

    card: DetectedCard
    members: list[int]
    fit: CardFit | None = None


@dataclass
class Assembly:
    """The readings of one frame and the cards found in them so far (what the passes work on)."""

    readings: list[IndexReading]
    probs: np.ndarray           # classifier outputs (N, names)
    q: np.ndarray               # card distributions (N, 52): ``none`` left out, renormalised
    p_real: np.ndarray          # chance each reading is a real index (not ``none``)
    geo: IndexGeometry
    label_names: list[str]
    det_power: float
    repeats: dict = field(default_factory=dict)   # a kept box -> the repeat boxes on its index
    candidates: list = field(default_factory=list)
    used: np.ndarray = None
    cards: list[Found] = field(default_factory=list)
    grid: PointGrid = None      # the readings by position

    def evidence(self, i: int, j: int) -> float:
        """Chance that two corner readings are real indices (detector and classifier)."""
        ri, rj = self.readings[i], self.readings[j]
        det = (1.0 - (1.0 - ri.score) * (1.0 - rj.score)) ** self.det_power
        return det * (1.0 - (1.0 - self.p_real[i]) * (1.0 - self.p_real[j]))

    def partial_card(self, label: int, prob: float, i: int, j: int) -> Found:
        """One card from two of its indices whose outline is unknown."""
        ri, rj = self.readings[i], self.readings[j]
        return Found(DetectedCard(card=self.label_names[label], confidence=prob * self.evidence(i, j),
                                  box=union(ri.box, rj.box), quad=None, indices=[tuple(ri.box), tuple(rj.box)]),
                     [i, j])

    @cached_property
    def cell(self) -> float:
        """The side of the neighbourhood grids' cells (GRID_CELL median index sizes)."""
        return _grid_cell(self.readings)


# --------------------------------------------------------------------------- pair fitting


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
    covered: bool = False   # another card's index lies where it prints its other corners (COVER_NEAR)
    corners: int = 2        # the corners of its label in sight: 2, or 3-4 where its other corners show one
    strip: bool = False     # one card's strip beside an identical card's parallel strip (TWIN_STRIP_NEAR)


def _card_dists(readings, label_idx):
    probs = np.stack([r.probs for r in readings]).astype(np.float64)
    q = probs[:, label_idx]
    q = q / np.maximum(q.sum(axis=1, keepdims=True), 1e-12)
    return probs, q


@lru_cache(maxsize=16)
def _layout_columns(layouts: tuple[IndexGeometry, ...]) -> tuple[np.ndarray, ...]:
    """What :func:`_layout_fits` needs of each layout, a column each (layouts, 1): the diagonal's
    length and angle, the index width and height, the log distance tolerance."""
    def column(f):
        return np.array([f(g) for g in layouts], dtype=np.float64)[:, None]

    return (column(lambda g: math.hypot(*g.diag_vec)), column(lambda g: g.index_size[0]),
            column(lambda g: g.index_size[1]), column(lambda g: math.log(g.distance_tolerance)),
            column(lambda g: math.atan2(g.diag_vec[1], g.diag_vec[0])))


def layout_fits(layouts: list[IndexGeometry], vx, vy, si, sj, box_aspect) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How well pairs of index centres ``(vx, vy)`` apart, of sizes ``si``, ``sj`` (arrays, one entry a
    pair), fit one card of each of ``layouts``: (cost, theta, card width px), each (layouts, pairs),
    cost inf where they cannot be its two corners. The longer box side approximates the index
    height; the cost adds the distance misfit (1 at the layout's tolerance) and the box-shape
    misfit the turn predicts (weighted). All layouts at once: a row of each array a layout."""
    diag_len, iw, ih, log_tol, diag_angle = _layout_columns(tuple(layouts))
    d = np.hypot(vx, vy)
    card_w = ((si + sj) / 2.0)[None, :] / ih
    r = d / np.maximum(diag_len * card_w, 1e-6)
    log_r = np.abs(np.log(np.maximum(r, 1e-6)))
    theta = np.arctan2(vy, vx)[None, :] - diag_angle
    c, s = np.abs(np.cos(theta)), np.abs(np.sin(theta))
    rotated = (iw * c + ih * s) / np.maximum(iw * s + ih * c, 1e-9)
    shape_err = np.abs(np.log(rotated / box_aspect))
    cost = log_r / log_tol + SHAPE_WEIGHT * shape_err / math.log(SHAPE_TOLERANCE)
    cost[(log_r > log_tol) | (shape_err > math.log(SHAPE_TOLERANCE))] = np.inf
    return cost, theta, d / diag_len


def _near_keys(grid: PointGrid, centres: np.ndarray, x: float, y: float, radius: float) -> np.ndarray:
    """Keys of the points of ``grid`` (positions ``centres``) strictly within ``radius`` of (x, y)."""
    keys = np.asarray(grid.near(x, y, radius), dtype=np.int64)
    if len(keys) == 0:
        return keys
    d = np.hypot(centres[keys, 0] - x, centres[keys, 1] - y)
    return keys[d < radius]


def _same_value_pairs(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (i, j), i < j, of the entries of ``values`` that are equal (each pair once): the
    pairs that may be two indices of one card value, found among the few entries of each value
    (a frame holds a card value a few times at most), not among all entries."""
    n = len(values)
    by = np.argsort(values, kind="stable")          # each value's entries in ascending order
    v = values[by]
    # the entries (in that order) after entry k that hold its value: k+1 .. end[k]-1
    end = np.searchsorted(v, v, side="right")
    counts = end - np.arange(n) - 1
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    first = np.repeat(np.arange(n), counts)
    second = first + 1 + np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    return by[first], by[second]


def pair_candidates(readings: list[IndexReading], q: np.ndarray, geo: IndexGeometry,
                    min_agreement: float = MIN_AGREEMENT, grid: PointGrid | None = None) -> list[_Pair]:
    """All geometrically and semantically plausible corner pairs, cheapest first (those covered by
    another card's corner, ``COVER_NEAR``, after all others).

    Each pair is fitted to every deck layout of ``geo`` (``geo.layouts()``); the best fit counts.
    The pairs within reach are found by a sweep over the readings sorted by x, so the work grows
    with the readings and their neighbours, not with every pair on the table. ``grid`` (the
    readings' neighbourhood grid) serves the test for other cards' indices on a pair's face.
    """
    n = len(readings)
    if n < 2:
        return []
    layouts = geo.layouts()
    centres = np.array([r.centre for r in readings])
    sizes = np.array([r.size for r in readings])
    boxes = np.array([r.box for r in readings], dtype=np.float64)
    aspects = np.maximum(boxes[:, 2] - boxes[:, 0], 1e-6) / np.maximum(boxes[:, 3] - boxes[:, 1], 1e-6)
    top = q.argmax(axis=1)
    if grid is None:
        grid = _reading_grid(readings)
    # the widest distance any layout accepts, in index sizes
    reach = max(math.hypot(*g.diag_vec) / g.index_size[1] * g.distance_tolerance for g in layouts)
    # a partner is at most size_tolerance times larger and within reach of the larger size: the
    # pairs less than the largest such reach apart in x (a sweep over the readings sorted by x,
    # all at once), then the exact tests
    far = reach * float(sizes.max()) * geo.size_tolerance
    ii, jj = pairs_apart_in_x(centres[:, 0], far)
    big = np.maximum(sizes[ii], sizes[jj])
    ratio = big / np.maximum(np.minimum(sizes[ii], sizes[jj]), 1e-9)
    dist = np.hypot(centres[ii, 0] - centres[jj, 0], centres[ii, 1] - centres[jj, 1])
    ok = (ratio <= geo.size_tolerance) & (dist <= reach * big)
    ii, jj = ii[ok], jj[ok]
    # the card both corners vote for (below) must be one corner's top reading, which the other
    # gives at least MIN_SUPPORT: the pairs where neither does are dropped before the
    # distributions are compared (most pairs within reach are two different cards)
    ok = (q[jj, top[ii]] >= MIN_SUPPORT) | (q[ii, top[jj]] >= MIN_SUPPORT)
    ii, jj = ii[ok], jj[ok]
    order = np.lexsort((jj, ii))        # by the first reading, then the second (ties below keep it)
    ii, jj = ii[order], jj[order]
    agreement = (q[ii] * q[jj]).sum(axis=1)
    ok = agreement >= min_agreement
    ii, jj, agreement = ii[ok], jj[ok], agreement[ok]
    # the card both corners vote for must be one corner's top reading, and each corner must give it
    # at least MIN_SUPPORT
    joint = q[ii] * q[jj]
    label = joint.argmax(axis=1)
    ok = ((label == top[ii]) | (label == top[jj])) & (np.minimum(q[ii, label], q[jj, label]) >= MIN_SUPPORT)
    ii, jj, agreement, joint, label = ii[ok], jj[ok], agreement[ok], joint[ok], label[ok]
    rows = np.arange(len(ii))
    prob = joint[rows, label] / np.maximum(joint.sum(axis=1), 1e-12)
    # the best deck layout for each pair (the first on a tie), all pairs at once
    vx, vy = centres[jj, 0] - centres[ii, 0], centres[jj, 1] - centres[ii, 1]
    si, sj = sizes[ii], sizes[jj]
    costs, thetas, widths = layout_fits(layouts, vx, vy, si, sj, np.sqrt(aspects[ii] * aspects[jj]))
    best = costs.argmin(axis=0)
    fitted = np.isfinite(costs[best, rows])
    scores = np.array([r.score for r in readings])
    q_top = q.max(axis=1)
    foreign = (q_top >= FOREIGN_PROB) & (scores >= FOREIGN_SCORE)
    sureness = q_top * scores
    any_foreign = bool(foreign.any())
    extra = DISAGREEMENT_WEIGHT * (1.0 - np.minimum(agreement, 1.0)) + SIZE_RATIO_WEIGHT * np.abs(np.log(si / sj))
    out = []
    for m in np.nonzero(fitted)[0].tolist():
        i, j, lab, b = int(ii[m]), int(jj[m]), int(label[m]), int(best[m])
        layout = layouts[b]
        cost, theta, card_w = float(costs[b, m]), float(thetas[b, m]), float(widths[b, m])
        faint = _face_print_bound(q[i, lab], scores[i], q[j, lab], scores[j])
        seen = _face_foreign(readings, centres, sizes, top, foreign & (sureness >= faint), grid,
                             i, j, lab, theta, card_w, layout) if any_foreign else ""
        if seen == "foreign":
            continue
        out.append(_Pair(i, j, cost + float(extra[m]), lab, float(prob[m]), theta, card_w, layout.aspect, layout,
                         covered=seen == "cover"))
    _count_corners_in_sight(out, centres, sizes, q)
    _mark_twin_strips(out, centres, sizes)
    out.sort(key=lambda p: (p.covered, -p.corners, not p.strip, p.cost))
    return out


def _count_corners_in_sight(pairs: list[_Pair], centres: np.ndarray, sizes: np.ndarray, q: np.ndarray) -> None:
    """Sets ``corners`` 3 or 4 on the pairs of a card of a deck printing four corners that shows three
    or all of them: an index that may show its card (at least MIN_SUPPORT) lies at one or both of the
    two other corners it prints (within CORNER_NEAR index sizes), and no other such index lies on its
    face (a card that shows them lies on top). Such pairs are taken before the others, most corners
    first: among identical cards lying side by side or overlapped, two of their corners may fit the
    diagonal of a card of another deck's layout between them better than either card fits its own (a
    phantom third card in a Marriage count of three packs), but seldom with indices at its other
    corners, and then with the other corners of those cards on its face (two identical cards overlapped
    lengthwise: the top card's top-left and the lower card's bottom-right fit a longer card whose
    other corners are the top card's top-right and the lower card's bottom-left, and whose face holds
    the top card's bottom corners). Each pair is compared with the indices that may show its card
    only (a few per card value)."""
    if not pairs:
        return
    labels = np.array([p.label for p in pairs])
    mine_of = {lab: np.nonzero(q[:, lab] >= MIN_SUPPORT)[0] for lab in np.unique(labels).tolist()}
    mine_of = {lab: mine for lab, mine in mine_of.items() if len(mine) >= 3}
    if not mine_of:
        return
    rows = np.nonzero(np.isin(labels, list(mine_of)))[0]
    ii, jj = np.array([pairs[n].i for n in rows]), np.array([pairs[n].j for n in rows])
    theta = np.array([pairs[n].theta for n in rows])
    card_w = np.array([pairs[n].card_w for n in rows])
    # the top-right corner's offset from the middle (the bottom-left one's is its opposite)
    dx = np.array([0.5 - pairs[n].layout.cx for n in rows]) * card_w
    dy = -np.array([pairs[n].aspect * (0.5 - pairs[n].layout.cy) for n in rows]) * card_w
    c, s = np.cos(theta), np.sin(theta)
    mid = (centres[ii] + centres[jj]) / 2.0
    off = np.stack([c * dx - s * dy, s * dx + c * dy], axis=1)
    spots = np.stack([mid + off, mid - off], axis=1)                    # (pairs, TR/BL, xy)
    for lab, mine in mine_of.items():
        at = np.nonzero(labels[rows] == lab)[0]
        d = np.hypot(spots[at, :, None, 0] - centres[mine][None, None, :, 0],
                     spots[at, :, None, 1] - centres[mine][None, None, :, 1])
        d[d >= CORNER_NEAR * sizes[mine][None, None, :]] = np.inf
        found = np.isfinite(d.min(axis=2))                                 # (pairs, TR/BL)
        nearest = mine[d.argmin(axis=2)]
        for m in np.nonzero(found.any(axis=1))[0].tolist():
            p = pairs[rows[at[m]]]
            quad = card_quad(tuple(mid[at[m]].tolist()), p.theta, p.card_w, p.aspect)
            inside = set(mine[points_in_quad(centres[mine], quad, 1.0)].tolist())
            if inside <= {p.i, p.j, *nearest[m][found[m]].tolist()}:
                p.corners = 2 + int(found[m].sum())


def _mark_twin_strips(pairs: list[_Pair], centres: np.ndarray, sizes: np.ndarray) -> None:
    """Sets ``strip`` on the pairs of one label that lie parallel to another of its pairs, the two
    corners of each as far apart and turned alike (within TWIN_STRIP_SLACK index sizes), their
    middles closer than TWIN_STRIP_NEAR index sizes: identical cards of a deck printing four corners
    overlapped in a meld, each showing its top strip (top-left and top-right indices). Such pairs are
    taken before the others but cards showing three or four corners, each as one card whose outline is
    unknown: the top-right index of one strip and the top-left of the next fit the diagonal of a card
    of another deck's layout better than either strip fits a card (a phantom third card, and two
    lone indices left over, in a Marriage count of three packs). The corners of one card showing all
    four lie parallel too, but a card's height or width apart, not a strip's."""
    by_label: dict[int, list[int]] = {}
    for n, p in enumerate(pairs):
        by_label.setdefault(p.label, []).append(n)
    for members in by_label.values():
        if len(members) < 2:
            continue
        for a, m in enumerate(members):
            p = pairs[m]
            vp = centres[p.j] - centres[p.i]
            mp = (centres[p.i] + centres[p.j]) / 2.0
            for n in members[a + 1:]:
                o = pairs[n]
                if {p.i, p.j} & {o.i, o.j}:
                    continue
                size = float(np.mean(sizes[[p.i, p.j, o.i, o.j]]))
                vo = centres[o.j] - centres[o.i]
                near = float(np.hypot(*(mp - (centres[o.i] + centres[o.j]) / 2.0)))
                slack = min(float(np.hypot(*(vp - vo))), float(np.hypot(*(vp + vo))))
                if slack < TWIN_STRIP_SLACK * size and TWIN_STRIP_SLACK * size < near < TWIN_STRIP_NEAR * size:
                    p.strip = o.strip = True


def _face_foreign(readings, centres, sizes, top, foreign, grid, i, j, label, theta, card_w, layout) -> str:
    """Whether the card face of pair (i, j) holds an index that is not its own: ``"foreign"``,
    ``"cover"`` where the only such indices are other cards' where it prints its other corners
    (``COVER_NEAR``: maybe a card lying over that corner), else ``""``.

    A card showing both corners lies on top: no other index shows inside its face,
    another card's or one of its label (an identical card's corner means the pair spans
    two cards), but for where it prints its other two corners (its own, or another card's
    lying over that corner) and, for its label, round the middle (a big centre pip or court
    figure read as an index).
    """
    mid = ((centres[i, 0] + centres[j, 0]) / 2.0, (centres[i, 1] + centres[j, 1]) / 2.0)
    quad = card_quad(mid, theta, card_w, layout.aspect)
    # (the shrunk face lies within its half-diagonal of the middle: the points farther out are left
    # out before the exact test)
    near = _near_keys(grid, centres, mid[0], mid[1], half_diagonal(card_w, layout.aspect) * FOREIGN_SHRINK + 1.0)
    near = near[foreign[near] & (near != i) & (near != j)]
    if len(near) == 0:
        return ""
    inside = near[points_in_quad(centres[near], quad, FOREIGN_SHRINK)]
    if len(inside) == 0:
        return ""
    fit = CardFit(mid, theta, card_w, layout.aspect, None, 0.0)
    offs = layout.corner_offsets()
    spots = [fit.corner_at(offs, c) for c in ("TR", "BL")]
    seen = ""
    for k in inside:
        to_spot = min(math.dist(centres[k], s) for s in spots)
        if top[k] == label:
            if to_spot >= CORNER_NEAR * sizes[k] and math.dist(centres[k], mid) >= PIP_NEAR * card_w:
                return "foreign"
        elif to_spot >= COVER_NEAR * sizes[k]:
            return "foreign"
        else:
            seen = "cover"
    return seen


def side_pairs(readings: list[IndexReading], q: np.ndarray, geo: IndexGeometry, used: np.ndarray,
               tolerance: float = SIDE_TOLERANCE, min_elongation: float = SIDE_ELONGATION
               ) -> list[tuple[int, int, int, float]]:
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
    free = np.flatnonzero(~np.asarray(used, dtype=bool))
    if len(free) < 2:
        return []
    top = q.argmax(axis=1)
    # the pairs (a, b), a < b, of one top reading (few: most frames hold each card value once or
    # twice), then the exact tests
    a, b = _same_value_pairs(top[free])
    if len(a) == 0:
        return []
    i, j = free[a], free[b]
    log_tol = math.log(tolerance)
    layouts = geo.layouts()
    boxes = np.array([readings[k].box for k in free], dtype=np.float64)
    centres = np.array([readings[k].centre for k in free])
    sizes = np.array([readings[k].size for k in free])
    wide, high = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    # the first index of a pair must be elongated (a turned one's long axis is unknown); its long
    # axis is the one the pair must lie along; a partner is at most SIDE_SIZE_RATIO times larger
    elongated = np.maximum(wide, high) / np.maximum(np.minimum(wide, high), 1e-6) >= min_elongation
    ok = elongated[a] & (np.maximum(sizes[a], sizes[b]) / np.minimum(sizes[a], sizes[b]) <= SIDE_SIZE_RATIO)
    a, b, i, j = a[ok], b[ok], i[ok], j[ok]
    vx, vy = centres[b, 0] - centres[a, 0], centres[b, 1] - centres[a, 1]
    d = np.hypot(vx, vy)
    ok = d > 1e-6
    a, b, i, j, vx, vy, d = a[ok], b[ok], i[ok], j[ok], vx[ok], vy[ok], d[ok]
    if len(a) == 0:
        return []
    along = np.where(high[a] >= wide[a], np.abs(vy), np.abs(vx)) / d      # cosine to the long axis
    size = (sizes[a] + sizes[b]) / 2.0
    # the distance misfit to the long side of each layout where within the tolerance; the best
    # layout's counts
    err = _long_side_misfit(layouts, d, size)
    best = np.where(err <= log_tol, err, np.inf).min(axis=0)
    best[~(along > math.cos(SIDE_TILT))] = np.inf
    ok = np.isfinite(best)
    cands = []
    for m in np.flatnonzero(ok).tolist():
        ii, jj = int(i[m]), int(j[m])
        joint = q[ii] * q[jj]
        label = int(joint.argmax())
        cands.append((float(best[m]), ii, jj, label, float(joint[label] / max(joint.sum(), 1e-12))))
    cands.sort()
    taken: set[int] = set()
    out = []
    for _, i, j, label, prob in cands:
        if i in taken or j in taken:
            continue
        taken.update((i, j))
        out.append((i, j, label, prob))
    return out


def _long_side_misfit(layouts, d, size) -> np.ndarray:
    """|log(distance / long side)| for indices ``d`` apart (array) of mean size ``size`` (array), as
    the long side of each layout would set them: (layouts, pairs)."""
    side_per_size = np.array([g.aspect * (1.0 - 2.0 * g.cy) for g in layouts])[:, None]
    index_h = np.array([g.index_size[1] for g in layouts])[:, None]
    return np.abs(np.log(np.asarray(d) / (side_per_size * (np.asarray(size) / index_h))))


def _within_short_side(ri: IndexReading, rj: IndexReading, geo: IndexGeometry,
                       slack: float = SHORT_SIDE_SLACK) -> bool:
    """Whether two indices are no farther apart than a card's short side (any deck layout) allows."""
    d = math.hypot(rj.centre[0] - ri.centre[0], rj.centre[1] - ri.centre[1])
    size = (ri.size + rj.size) / 2.0
    return any(d <= slack * (1.0 - 2.0 * g.cx) * size / g.index_size[1] for g in geo.layouts())


def _turn(a: float, b: float) -> float:
    """Angle between two card rotations (radians; a card turned by 180° lies alike)."""
    return abs((a - b + math.pi / 2) % math.pi - math.pi / 2)


def _grid_cell(readings: list[IndexReading]) -> float:
    return GRID_CELL * float(np.median([r.size for r in readings])) if readings else 1.0


def _reading_grid(readings: list[IndexReading], cell: float | None = None) -> PointGrid:
    grid = PointGrid(_grid_cell(readings) if cell is None else cell)
    for k, r in enumerate(readings):
        grid.add(k, *r.centre)
    return grid


def drop_repeat_readings(readings: list[IndexReading], q: np.ndarray,
                         near: float = REPEAT_NEAR) -> tuple[list[int], dict[int, int]]:
    """(indices of the readings to keep, {dropped: its keeper}): a second box on one printed
    index (shifted by less than ``near`` index sizes, read as the same card) is dropped, the
    better-scored box kept. Two such boxes would otherwise pair with each other's
    neighbours into a second, phantom card. A visible index of another card lies at
    least most of an index size away (it must show whole to be read)."""
    kept: list[int] = []
    dropped: dict[int, int] = {}
    if not readings:
        return kept, dropped
    top = q.argmax(axis=1)
    centres = np.array([r.centre for r in readings])
    sizes = np.array([r.size for r in readings])
    # the pairs that may be one index: the same top reading, closer than ``near`` times the larger size
    i, j = _same_value_pairs(top)
    ok = np.hypot(centres[i, 0] - centres[j, 0], centres[i, 1] - centres[j, 1]) < near * np.maximum(sizes[i], sizes[j])
    if not ok.any():
        return list(range(len(readings))), dropped
    order = sorted(range(len(readings)), key=lambda k: -readings[k].score)
    partners: dict[int, list[int]] = {}
    for a, b in zip(i[ok].tolist(), j[ok].tolist()):
        partners.setdefault(a, []).append(b)
        partners.setdefault(b, []).append(a)
    # the better-scored box first: each keeps its place, or goes to the first kept box it repeats
    place: dict[int, int] = {}           # reading -> its position among the kept
    for k in order:
        seen = [m for m in partners.get(k, ()) if m in place]
        if seen:
            dropped[k] = min(seen, key=place.__getitem__)
        else:
            place[k] = len(kept)
            kept.append(k)
    return sorted(kept), dropped


# --------------------------------------------------------------------------- the passes


def _prepare(readings: list[IndexReading], names: list[str], geo: IndexGeometry, det_power: float) -> Assembly:
    """Card distributions of the readings; second boxes on one printed index set aside."""
    label_idx = [k for k, n in enumerate(names) if n != "none"]
    none_k = names.index("none") if "none" in names else None
    probs, q = _card_dists(readings, label_idx)
    keep, dropped = drop_repeat_readings(readings, q)
    repeats: dict[tuple, list[tuple]] = {}
    for k, m in dropped.items():
        repeats.setdefault(tuple(readings[m].box), []).append(tuple(readings[k].box))
    if dropped:
        readings = [readings[k] for k in keep]
        probs, q = probs[keep], q[keep]
    p_real = 1.0 - probs[:, none_k] if none_k is not None else np.ones(len(readings))
    a = Assembly(readings=readings, probs=probs, q=q, p_real=p_real, geo=geo,
                 label_names=[names[k] for k in label_idx], det_power=det_power, repeats=repeats)
    a.grid = _reading_grid(readings, a.cell)
    a.candidates = pair_candidates(readings, q, geo, grid=a.grid)
    return a


def _whole_cards(a: Assembly, skip: frozenset = frozenset()) -> None:
    """Whole cards from the cheapest corner pairs first, each reading in one card; the pairs in
    ``skip`` left out. Sets ``a.used`` and ``a.cards`` afresh."""
    readings, q, geo = a.readings, a.q, a.geo
    biggest = max(r.size for r in readings)
    a.used = used = np.zeros(len(readings), dtype=bool)
    a.cards = cards = []
    whole: list[tuple[int, list, Found]] = []      # (label, quad, card) of each whole card
    whole_grid = PointGrid(a.cell)
    whole_reach = 0.0                               # the largest half-diagonal of a whole card
    for p in a.candidates:
        if used[p.i] or used[p.j]:
            continue
        if frozenset((p.i, p.j)) in skip:
            continue
        if p.strip:
            used[p.i] = used[p.j] = True
            cards.append(a.partial_card(p.label, p.prob, p.i, p.j))
            continue
        ri, rj = readings[p.i], readings[p.j]
        centre = ((ri.centre[0] + rj.centre[0]) / 2, (ri.centre[1] + rj.centre[1]) / 2)
        quad = card_quad(centre, p.theta, p.card_w, p.aspect)
        # the whole cards whose faces may touch this one's
        near = [whole[k] for k in whole_grid.near(centre[0], centre[1],
                                                  half_diagonal(p.card_w, p.aspect) + whole_reach)]
        twin = next((f for lab, other, f in near
                     if lab == p.label and (math.dist(centre, f.fit.centre) < TWIN_CENTRE * min(f.fit.card_w, p.card_w)
                                            or quads_overlap(quad, other) > TWIN_OVERLAP)), None)
        if twin is not None:
            # the same card's other diagonal (a four-corner deck): the two diagonals of one
            # card share its centre, however each fitted
            used[p.i] = used[p.j] = True
            twin.card.indices.extend([tuple(ri.box), tuple(rj.box)])
            continue
        if any(lab != p.label and quads_overlap(quad, other) > WHOLE_OVERLAP for lab, other, _ in near):
            # two cards that both show both corners lie side by side, not one over the other's
            # face: the better pair (taken first) stands; this one is two corners of other cards,
            # unless they are close enough to be one card's strip (a four-corner deck's
            # top-left and top-right): then one card whose outline is unknown
            if _within_short_side(ri, rj, geo):
                used[p.i] = used[p.j] = True
                cards.append(a.partial_card(p.label, p.prob, p.i, p.j))
            continue
        used[p.i] = used[p.j] = True
        ev = a.evidence(p.i, p.j)
        box = union(bbox(quad), union(ri.box, rj.box))
        card = DetectedCard(card=a.label_names[p.label], confidence=p.prob * ev, box=box, quad=quad,
                            indices=[tuple(ri.box), tuple(rj.box)])
        found = Found(card, [p.i, p.j], CardFit(centre, p.theta, p.card_w, p.aspect, q[p.i] * q[p.j], ev))
        cards.append(found)
        whole_grid.add(len(whole), *centre)
        whole.append((p.label, quad, found))
        whole_reach = max(whole_reach, half_diagonal(p.card_w, p.aspect))
        # the card lies on top: an index of its label where it prints its other two corners
        # (a four-corner deck) is its own, not one to pair with another card's corner
        offs = (p.layout or geo).corner_offsets()
        for corner in ("TR", "BL"):
            pos = found.fit.corner_at(offs, corner)
            near_k = [k for k in a.grid.near(pos[0], pos[1], CORNER_NEAR * biggest)
                      if not used[k] and q[k, p.label] >= MIN_SUPPORT
                      and math.dist(readings[k].centre, pos) < CORNER_NEAR * readings[k].size]
            if near_k:
                k = min(near_k, key=lambda m: math.dist(readings[m].centre, pos))
                used[k] = True
                card.indices.append(tuple(readings[k].box))


def _split_bridges(a: Assembly) -> None:
    """Several packs: a whole card that spans the gap between two melds is two strips; pair again
    without it (see :func:`_bridging_pairs`)."""
    whole = [f for f in a.cards if f.fit is not None]
    # (not for a deck printing four corners, whose whole cards show three or four: there
    # the fitted turn of a card is less sure, and the other corners tell strips apart)
    if sum(len(f.card.indices) >= 3 for f in whole) < FOUR_CORNER_SHARE * len(whole):
        bridges = _bridging_pairs(whole, a.readings)
        if bridges:
            _whole_cards(a, bridges)


def _split_strips(a: Assembly) -> None:
    """A deck printing four corners: a "whole card" of two corners lying along the long side of a
    card that shows three or four (the top card of its row), turned otherwise than that card, is
    the strip of a card under it (its top-left and bottom-left indices, fitted as the diagonal of
    another layout's card), and is reported as one card whose outline is unknown."""
    tops = [f for f in a.cards if f.fit is not None and len(f.card.indices) >= 3]
    if not tops:
        return
    layouts = a.geo.layouts()
    cos_tilt = math.cos(SIDE_TILT)
    for n, f in enumerate(a.cards):
        if f.fit is None or len(f.card.indices) != 2:
            continue
        reach = BRIDGE_NEIGHBOURHOOD * f.fit.card_w
        near = [g for g in tops if math.dist(g.fit.centre, f.fit.centre) <= reach]
        if not near:
            continue
        g = min(near, key=lambda t: math.dist(t.fit.centre, f.fit.centre))
        if _turn(f.fit.theta, g.fit.theta) <= BRIDGE_TURN:
            continue
        i, j = f.members[:2]
        ri, rj = a.readings[i], a.readings[j]
        vx, vy = rj.centre[0] - ri.centre[0], rj.centre[1] - ri.centre[1]
        d = max(math.hypot(vx, vy), 1e-9)
        if abs(-math.sin(g.fit.theta) * vx + math.cos(g.fit.theta) * vy) / d < cos_tilt:
            continue
        if not (_long_side_misfit(layouts, [d], [(ri.size + rj.size) / 2.0]) <= math.log(SIDE_TOLERANCE)).any():
            continue
        label = a.label_names.index(f.card.card)
        a.cards[n] = a.partial_card(label, float(f.fit.dist[label] / f.fit.dist.sum()), i, j)


def _bridging_pairs(whole: list[Found], readings: list[IndexReading]) -> frozenset:
    """Whole cards that are two identical cards' corners in neighbouring melds (as
    frozensets of their two readings' positions in ``readings``, to be left unpaired).

    A covered card's index shows just outside the card lying on it (up to ``BRIDGE_REACH``
    index sizes: two strips for a meld's bottom card), and lies turned as that card does.
    A "card" whose two corners lie just outside two other whole cards that lie alike, both
    turned differently from it (by more than ``BRIDGE_TURN``), as are most whole cards
    round it, spans the gap between two melds: its corners are two strips.
    """
    if len(whole) < 3:
        return frozenset()
    polys = [np.asarray(f.card.quad, np.float32).reshape(-1, 1, 2) for f in whole]
    grid = PointGrid(max(f.fit.card_w for f in whole))
    for v, f in enumerate(whole):
        grid.add(v, *f.fit.centre)
    reach = max(half_diagonal(f.fit.card_w, f.fit.aspect) for f in whole)
    centres = np.array([f.fit.centre for f in whole], dtype=float)
    out = set()
    for w, f in enumerate(whole):
        beside = []      # for each corner, the nearest other whole card it lies just outside
        for k in f.members[:2]:
            r = readings[k]
            best = None
            for v in grid.near(r.centre[0], r.centre[1], reach + BRIDGE_REACH * r.size):
                if v == w:
                    continue
                d = cv2.pointPolygonTest(polys[v], (float(r.centre[0]), float(r.centre[1])), True)
                if -BRIDGE_REACH * r.size <= d <= 0 and (best is None or d > best[0]):
                    best = (d, v)
            beside.append(None if best is None else best[1])
        if None in beside or beside[0] == beside[1]:
            continue
        ta, tb = (whole[v].fit.theta for v in beside)
        theta = f.fit.theta
        # the two melds lie alike (their top cards agree), and this card lies otherwise
        round_it = _near_keys(grid, centres, f.fit.centre[0], f.fit.centre[1], BRIDGE_NEIGHBOURHOOD * f.fit.card_w)
        near = [whole[v].fit.theta for v in round_it.tolist() if v != w]
        odd = sum(_turn(theta, t) > BRIDGE_TURN for t in near) > len(near) / 2
        if odd and _turn(ta, tb) <= BRIDGE_TURN and min(_turn(theta, ta), _turn(theta, tb)) > BRIDGE_TURN:
            out.add(frozenset(f.members[:2]))
    return frozenset(out)


def _merge_same_place(a: Assembly) -> None:
    """Paired cards of one value centred at one place are one card.

    A deck that prints its index in all four corners gives a card two diagonal
    pairs (top-left with bottom-right, top-right with bottom-left). Two identical
    cards cannot lie at the same place and both show their corners: the one on top
    hides the other.
    """
    out: list[Found] = []
    grid = PointGrid(a.cell)
    widest = 0.0
    for f in a.cards:
        if f.fit is not None:
            c = f.fit.centre
            for m in grid.near(c[0], c[1], TWIN_CENTRE * min(f.fit.card_w, widest)):
                kept = out[m]
                if kept.card.card != f.card.card:
                    continue
                if math.hypot(c[0] - kept.fit.centre[0], c[1] - kept.fit.centre[1]) \
                        < TWIN_CENTRE * min(f.fit.card_w, kept.fit.card_w):
                    kept.card.indices.extend(f.card.indices)
                    kept.members = kept.members + f.members
                    kept.card.confidence = 1.0 - (1.0 - kept.card.confidence) * (1.0 - f.card.confidence)
                    break
            else:
                grid.add(len(out), *c)
                widest = max(widest, f.fit.card_w)
                out.append(f)
        else:
            out.append(f)
    a.cards = out


def _side_cards(a: Assembly) -> None:
    """Four-corner decks: two free indices along one side of a card make a partial card."""
    for i, j, label, prob in side_pairs(a.readings, a.q, a.geo, a.used):
        a.used[i] = a.used[j] = True
        a.cards.append(a.partial_card(label, prob, i, j))


def _lone_readings(a: Assembly) -> None:
    """Each index still free: a third/fourth printed corner of a whole card joins it; a repeat of
    a card already found supports it; else it is a card of its own."""
    readings, q, geo, used = a.readings, a.q, a.geo, a.used
    offsets = geo.corner_offsets()
    extra = [c for c in geo.corners if c not in ("TL", "BR")]
    whole = [f for f in a.cards if f.fit is not None]
    grid = PointGrid(a.cell)
    for v, f in enumerate(whole):
        grid.add(v, *f.fit.centre)
    reach = max((half_diagonal(f.fit.card_w, f.fit.aspect) for f in whole), default=0.0)
    by_label: dict[str, list[int]] = {}            # card value -> positions in a.cards
    for n, f in enumerate(a.cards):
        by_label.setdefault(f.card.card, []).append(n)
    top = q.argmax(axis=1)
    q_top, p_real = q[np.arange(len(top)), top].tolist(), np.asarray(a.p_real, dtype=np.float64).tolist()
    top = top.tolist()
    for k in np.argsort([-r.score for r in readings]).tolist():
        if used[k]:
            continue
        r = readings[k]
        joined = False
        if extra:
            # a corner lies within half a diagonal (plus the tolerance) of its card's centre
            for v in grid.near(r.centre[0], r.centre[1], reach + CORNER_NEAR * r.size):
                f = whole[v]
                for corner in extra:
                    if math.dist(r.centre, f.fit.corner_at(offsets, corner)) < CORNER_NEAR * r.size:
                        dist = f.fit.dist * q[k]
                        if dist.sum() > 1e-9 and len(f.card.indices) < len(geo.corners):
                            f.fit.dist = dist
                            lab = int(dist.argmax())
                            old = f.card.card
                            f.card.card = a.label_names[lab]
                            f.card.confidence = float(dist[lab] / dist.sum()) * f.fit.evidence
                            f.card.indices.append(tuple(r.box))
                            if f.card.card != old:
                                n = a.cards.index(f)
                                by_label[old].remove(n)
                                by_label.setdefault(f.card.card, []).append(n)
                                by_label[f.card.card].sort()
                            joined = True
                        break
                if joined:
                    break
        if not joined:
            joined = _absorb_repeat(r, [a.cards[n] for n in by_label.get(a.label_names[top[k]], [])], offsets)
        if not joined:
            near = [whole[v] for v in grid.near(r.centre[0], r.centre[1], reach)]
            joined = _face_print(a, k, near) or any(_at_fourth_corner(r, f) for f in near)
        if joined:
            used[k] = True
            continue
        lab = top[k]
        conf = q_top[k] * r.score ** a.det_power * p_real[k]
        card = DetectedCard(card=a.label_names[lab], confidence=conf, box=tuple(r.box), quad=None,
                            indices=[tuple(r.box)])
        by_label.setdefault(card.card, []).append(len(a.cards))
        a.cards.append(Found(card, [int(k)]))
        used[k] = True


def _face_print_bound(p_i: float, score_i: float, p_j: float, score_j: float) -> float:
    """How surely (classifier probability x detector score) an index inside the face of two corners
    read their card with probabilities ``p_i``, ``p_j`` and detector scores ``score_i``, ``score_j``
    may be read and still be that face's print: ``FACE_PRINT_SHARE`` of the weaker corner's."""
    return FACE_PRINT_SHARE * min(float(p_i) * float(score_i), float(p_j) * float(score_j))


def _face_print(a: Assembly, k: int, near: list[Found]) -> bool:
    """Whether free reading ``k`` is the print of a whole card's face (of ``near``, whole cards):
    inside the face (shrunk by ``FOREIGN_SHRINK``) of a card whose corners read it read less surely
    than :func:`_face_print_bound`. The card's two corners lie on top; a faint "index" between them
    is its court figure or pip, not a card (a sure one keeps the pair from being one card:
    ``pair_candidates``)."""
    r = a.readings[k]
    mine = float(a.q[k].max()) * r.score
    for f in near:
        i, j = f.members[:2]
        lab = int(f.fit.dist.argmax())
        if (mine < _face_print_bound(a.q[i, lab], a.readings[i].score, a.q[j, lab], a.readings[j].score)
                and bool(points_in_quad([r.centre], f.card.quad, FOREIGN_SHRINK)[0])):
            return True
    return False


def _at_fourth_corner(r: IndexReading, f: Found) -> bool:
    """Whether free reading ``r`` lies where whole card ``f``, showing three corners of a deck that
    prints four (three index boxes at three corners of a rectangle), prints its fourth: the card
    lies on top, so the index there is its own, whatever it reads (the bottom-right corner of a 2S
    showing its other three, read 2C 0.81, was a 2C of its own, and a three-pack count's seat held a
    card too many). Not taken into the card: it names no card."""
    if len(f.card.indices) != 3:
        return False
    pts = np.array([((b[0] + b[2]) / 2.0, (b[1] + b[3]) / 2.0) for b in f.card.indices])
    d = {(i, j): float(np.hypot(*(pts[i] - pts[j]))) for i, j in ((0, 1), (0, 2), (1, 2))}
    (i, j), _ = max(d.items(), key=lambda kv: kv[1])         # the diagonal's ends
    k = 3 - i - j
    side_a, side_b = pts[i] - pts[k], pts[j] - pts[k]
    la, lb = float(np.hypot(*side_a)), float(np.hypot(*side_b))
    if min(la, lb) < 2.0 * r.size or abs(float(side_a @ side_b)) > 0.2 * la * lb:
        return False            # not three corners of a card (a second box on one index, a strip)
    fourth = pts[i] + pts[j] - pts[k]
    return math.dist(r.centre, fourth) < CORNER_NEAR * r.size


def _absorb_repeat(r: IndexReading, same_label: list[Found], offsets: dict | None = None) -> bool:
    """Whether a lone reading is a repeat of a card already found of its label (``same_label``),
    which then counts it as support.

    A second box on an index already read (a part of it, or the same index seen at
    another scale), or an index inside the face of a card whose corners were paired
    (a card on top hides what lies under it, so an index seen inside a card's face is
    that card's), or the index where a four-corner deck prints its other pair, is not
    another card.
    """
    for f in same_label:
        card = f.card
        repeat = any(overlap_of_smaller(r.box, b) > REPEAT_OVERLAP for b in card.indices)
        if not repeat and card.quad is not None and f.fit is not None:
            repeat = bool(points_in_quad([r.centre], card.quad, REPEAT_SHRINK)[0])
            if not repeat and offsets:
                # a deck printing all four corners: the other diagonal's index
                repeat = any(math.dist(r.centre, f.fit.corner_at(offsets, corner)) < CORNER_NEAR * r.size
                             for corner in ("TR", "BL"))
        if repeat:
            card.indices.append(tuple(r.box))
            return True
    return False


def _report(a: Assembly, min_confidence: float, image_size: tuple[int, int] | None) -> list[DetectedCard]:
    """The cards above ``min_confidence``, with the repeat boxes of their indices, clipped to the
    image, most confident first."""
    out = [f.card for f in a.cards if f.card.confidence >= min_confidence]
    for c in out:
        for b in list(c.indices):
            c.indices.extend(a.repeats.get(tuple(b), []))
    if image_size is not None:
        w, h = image_size
        for c in out:
            x1, y1, x2, y2 = c.box
            c.box = (max(0.0, x1), max(0.0, y1), min(float(w), x2), min(float(h), y2))
    out.sort(key=lambda c: -c.confidence)
    return out


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

    The passes, in order: :func:`_prepare` (card distributions, repeat boxes set aside, corner
    pair candidates), :func:`_whole_cards`, :func:`_split_bridges` (several packs only),
    :func:`_split_strips`, :func:`_merge_same_place`, :func:`_side_cards`, :func:`_lone_readings`,
    :func:`_report`.
    """
    if not readings:
        return []
    a = _prepare(readings, names, geometry or IndexGeometry(), det_power)
    _whole_cards(a)
    if several_packs:
        _split_bridges(a)
    _split_strips(a)
    _merge_same_place(a)
    _side_cards(a)
    _lone_readings(a)
    return _report(a, min_confidence, image_size)
