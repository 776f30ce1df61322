"""Melds from layout: which cards in a seat zone lie together, and in what order.

Two whole cards (outline known: a quad, or a card-sized box) belong to the same
meld when, in table coordinates,

* their outlines overlap (fans, overlapping rows, columns), or
* they line up in a row as seen from the seat (centres within ``row_frac`` of a
  card size across the row) with a gap along the row below ``gap_frac`` of a
  card size.

A *partial* card — only its corner index was seen, as for every card but the
top one in an overlapped row — is a point (the index centre). Within a seat
zone it joins the nearest card of its row on each side as seen from the seat: a
whole card less than ``CARD_ROW_BAND`` card sizes across the row from the index
and at most ``partial_reach`` card sizes beyond its ends (so a missing card at
the end of a row does not split it), or another lone index of the same row
within ``PARTIAL_PAIR`` card sizes — but the farther side only when it is at
most ``SIDE_RATIO`` times as far as the nearer one, so the first card of a meld
does not join the previous meld lying a little further away. An index of the
row behind never joins. (A card taken from the middle of an overlapped row
leaves a gap that splits the meld unless the player closes it.) Melds
laid as rows along the seat's edge are what tableref expects; a column of
overlapped cards (from the player towards the centre) is only grouped where the
cards are seen whole. The card size
(``card_ref``) is the median size of the whole cards, or estimated from index
sizes when there are none.

Melds are the connected groups of at least ``min_meld_size`` cards; single
cards are "loose". Within a meld, cards are ordered left → right as seen from
the seat (projection of their centres on the seat's ``right`` vector); a meld
laid as a column (longer across than along the seat's row) is ordered far →
near, i.e. top to bottom as the player reads it.

Separate melds must be laid with a visible gap (about half a card) or in
different rows.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from tableref.vision.table_state import Meld, TableCard
from tableref.vision.zones import Zone

GAP_FRAC = 0.25       # largest gap along a row, in card sizes, that still joins two cards
ROW_FRAC = 0.40       # largest offset across a row, in card sizes, for cards "in line"
TOUCH_FRAC = 0.01     # overlap area (fraction of the smaller card) that counts as overlapping
# a pile of cards goes to the zone holding its whole cards: a lone index lies a corner away
# from its card's centre (towards the middle of the table for an upright card), so it only
# breaks ties
PARTIAL_VOTE = 0.05
PARTIAL_REACH = 0.5   # a lone index joins a whole card this close (card sizes), in line with its sides
PARTIAL_PAIR = 0.6    # two lone indices this close (card sizes) belong together
CARD_ROW_BAND = 0.6   # a lone index in a seat's row: at most this far (card sizes) across the row from a card's centre
INDEX_ROW_BAND = 0.35 # two lone indices in one row: at most this far apart across the row
SIDE_RATIO = 1.2      # a lone index joins its farther neighbour only if at most this much farther
KEEP_REACH = 0.9      # cards already in one meld stay joined up to this far (card sizes) along the row
STICKY_SLACK = 1.25   # limits for cards together in the last layout are this much looser (no flicker)
INDEX_TO_CARD = 5.5   # card size / index-box size (sqrt of areas; index ~0.13 x 0.28 of the card)


def card_size(poly: np.ndarray) -> float:
    """A card's linear size: square root of its outline's area (table units)."""
    return math.sqrt(max(abs(cv2.contourArea(poly.astype(np.float32))), 1e-6))


def _poly_size(p: np.ndarray) -> float:
    return card_size(p)


def _find(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def estimate_card_size(sizes, partial) -> float:
    """Typical whole-card size from outline sizes: median of whole cards, else from index boxes."""
    sizes = np.asarray(sizes, dtype=np.float64)
    partial = np.asarray(partial, dtype=bool)
    if len(sizes) == 0:
        return 0.0
    if (~partial).any():
        return float(np.median(sizes[~partial]))
    return INDEX_TO_CARD * float(np.median(sizes))


class _Geometry:
    """Per-card quantities for a set of outlines (table coordinates)."""

    def __init__(self, polys, partial, card_ref=None):
        P = [np.asarray(p, dtype=np.float32).reshape(-1, 2) for p in polys]
        self.P = P
        if all(len(p) == len(P[0]) for p in P):
            A = np.stack(P).astype(np.float64)                     # (n, k, 2)
            x, y = A[:, :, 0], A[:, :, 1]
            xn, yn = np.concatenate([x[:, 1:], x[:, :1]], 1), np.concatenate([y[:, 1:], y[:, :1]], 1)
            self.sizes = np.sqrt(np.maximum(0.5 * np.abs((x * yn - y * xn).sum(axis=1)), 1e-6))
            self.centres = A.mean(axis=1)
            radius = np.linalg.norm(A - self.centres[:, None, :], axis=2).max(axis=1)
        else:
            self.sizes = np.array([_poly_size(p) for p in P])
            self.centres = np.array([p.mean(axis=0) for p in P], dtype=np.float64)
            radius = np.array([np.max(np.linalg.norm(p - p.mean(axis=0), axis=1)) for p in P])
        self.partial = np.asarray(partial, dtype=bool)
        own = estimate_card_size(self.sizes, self.partial)
        ref = own if card_ref is None or (~self.partial).sum() >= 2 else float(card_ref)
        self.ref = max(ref, 1e-6)
        self.radius = radius
        self.d = np.linalg.norm(self.centres[:, None, :] - self.centres[None, :, :], axis=2)

    def index_near_card(self, p: int, w: int, reach: float, tol: float = 0.05) -> bool:
        """Is lone index ``p`` where a card covered by (or lying beside) whole card ``w`` shows it?

        The index must lie within the band of ``w`` along one of its axes and
        at most ``reach`` outside it along the other (a cross-shaped region, so
        an index of the next row or column does not join)."""
        q = self.P[w].astype(np.float64)
        if len(q) != 4:
            dist = -cv2.pointPolygonTest(self.P[w], tuple(map(float, self.centres[p])), True)
            return dist <= reach
        o, e1, e2 = q[0], q[1] - q[0], q[3] - q[0]
        l1, l2 = max(np.linalg.norm(e1), 1e-6), max(np.linalg.norm(e2), 1e-6)
        rel = self.centres[p] - o
        a, b = rel @ e1 / l1 ** 2, rel @ e2 / l2 ** 2          # fractions along the two edges
        ra, rb = reach / l1, reach / l2
        in_a, in_b = -tol <= a <= 1 + tol, -tol <= b <= 1 + tol
        return bool((in_a and -rb <= b <= 1 + rb) or (in_b and -ra <= a <= 1 + ra))

    def links(self, *, partial_reach=PARTIAL_REACH, touch_frac=TOUCH_FRAC, gap_frac=GAP_FRAC,
              row_frac=ROW_FRAC, axes=None, keep_pairs=(), sticky=frozenset()) -> list[list[int]]:
        """Connected groups of cards. Rows (lined up with a small gap) join only when the
        seat's ``axes`` (right, forward) are given; overlaps and lone indices always.
        ``sticky`` pairs ``(i, j)``, ``i < j`` (together in the last layout) join under limits
        ``STICKY_SLACK`` times looser, so a borderline meld does not flicker."""
        n = len(self.P)
        partial, ref, d = self.partial, self.ref, self.d
        reach = partial_reach * ref
        radius = np.where(partial, reach, self.radius)
        s_pair = np.maximum(ref, (self.sizes[:, None] + self.sizes[None, :]) / 2.0)
        rsum = radius[:, None] + radius[None, :]
        near = np.triu(d <= STICKY_SLACK * (rsum + gap_frac * s_pair), k=1)
        row_join = np.zeros_like(near)
        row_join_loose = row_join
        if axes is not None:
            u_lo, u_hi, v_c = self.extent(axes)
            dv = np.abs(v_c[:, None] - v_c[None, :])
            gap = np.maximum(u_lo[None, :] - u_hi[:, None], u_lo[:, None] - u_hi[None, :])
            row_join = near & (dv <= row_frac * s_pair) & (gap <= gap_frac * s_pair)
            row_join_loose = near & (dv <= STICKY_SLACK * row_frac * s_pair) & \
                (gap <= STICKY_SLACK * gap_frac * s_pair)
            c_u = self.centres @ np.asarray(axes[0], dtype=np.float64)
        areas = self.sizes ** 2
        parent = list(range(n))
        pairs = list(zip(*np.nonzero(near)))
        if axes is not None:
            # A lone index belongs to the card lying over the rest of it, the nearest card of
            # its row (as seen from the seat) on one side. It joins the nearest card on each
            # side, but the farther side only if it is nearly as near (SIDE_RATIO): so the
            # first card of a meld does not join the previous meld a little further away,
            # while the indices of a fan, evenly spaced, all join.
            for p_ in np.nonzero(partial)[0]:
                side = {-1: (None, math.inf), 1: (None, math.inf)}
                for w_ in range(n):
                    if w_ == p_:
                        continue
                    sl = STICKY_SLACK if (min(p_, w_), max(p_, w_)) in sticky else 1.0
                    if partial[w_]:
                        dist = abs(c_u[p_] - c_u[w_])
                        ok = dist <= sl * PARTIAL_PAIR * ref and \
                            abs(v_c[p_] - v_c[w_]) <= sl * INDEX_ROW_BAND * ref
                        sgn = 1 if c_u[w_] >= c_u[p_] else -1
                    else:
                        dist = max(u_lo[w_] - c_u[p_], c_u[p_] - u_hi[w_], 0.0)
                        ok = dist <= sl * reach and abs(v_c[p_] - v_c[w_]) <= sl * CARD_ROW_BAND * ref
                        sgn = 1 if (u_lo[w_] + u_hi[w_]) / 2 >= c_u[p_] else -1
                    dist /= sl                  # a neighbour it had counts as nearer
                    if ok and dist < side[sgn][1]:
                        side[sgn] = (w_, dist)
                nearest = min(side[-1][1], side[1][1])
                for w_, dist in side.values():
                    if w_ is not None and dist <= SIDE_RATIO * nearest + 0.02 * ref:
                        ri, rj = _find(parent, int(p_)), _find(parent, int(w_))
                        if ri != rj:
                            parent[rj] = ri
            pairs = [(i, j) for i, j in pairs if not (partial[i] or partial[j])]
            # cards that were one meld stay one while they lie in the same row, not much further
            # apart than a missing card (a card taken out of the middle of an overlapped meld)
            for i, j in keep_pairs:
                if abs(v_c[i] - v_c[j]) > CARD_ROW_BAND * ref:
                    continue
                if partial[i] and partial[j]:
                    dist, lim = abs(c_u[i] - c_u[j]), KEEP_REACH * ref + PARTIAL_PAIR * ref
                elif partial[i] or partial[j]:
                    p_, w_ = (i, j) if partial[i] else (j, i)
                    dist, lim = max(u_lo[w_] - c_u[p_], c_u[p_] - u_hi[w_], 0.0), KEEP_REACH * ref
                else:
                    dist = max(u_lo[j] - u_hi[i], u_lo[i] - u_hi[j], 0.0)
                    lim = gap_frac * ref + 0.5 * KEEP_REACH * ref
                if dist <= lim:
                    ri, rj = _find(parent, int(i)), _find(parent, int(j))
                    if ri != rj:
                        parent[rj] = ri
        for i, j in pairs:
            if partial[i] and partial[j]:
                joined = d[i, j] <= PARTIAL_PAIR * ref
            elif partial[i] or partial[j]:
                p_, w_ = (i, j) if partial[i] else (j, i)
                joined = self.index_near_card(p_, w_, reach)
            else:
                joined = bool(row_join_loose[i, j] if (i, j) in sticky else row_join[i, j])
                if not joined and d[i, j] <= rsum[i, j]:
                    area, _ = cv2.intersectConvexConvex(self.P[i], self.P[j], handleNested=True)
                    joined = area > touch_frac * min(areas[i], areas[j])
            if joined:
                ri, rj = _find(parent, int(i)), _find(parent, int(j))
                if ri != rj:
                    parent[rj] = ri
        groups: dict[int, list[int]] = {}
        for i in range(n):
            groups.setdefault(_find(parent, i), []).append(i)
        return list(groups.values())

    def extent(self, axes):
        right, fwd = (np.asarray(a, dtype=np.float64) for a in axes)
        u = [p.astype(np.float64) @ right for p in self.P]
        u_lo = np.array([x.min() for x in u])
        u_hi = np.array([x.max() for x in u])
        v_c = self.centres @ fwd
        return u_lo, u_hi, v_c


def piles(polys: list[np.ndarray], partial, *, card_ref: float | None = None,
          partial_reach: float = 0.3, touch_frac: float = TOUCH_FRAC) -> list[list[int]]:
    """Groups of cards that physically touch (overlap, or a lone index at a whole card), any zone.

    They keep a meld that straddles a zone boundary in one zone."""
    if not polys:
        return []
    g = _Geometry(polys, partial, card_ref)
    return g.links(partial_reach=partial_reach, touch_frac=touch_frac)


def pile_seat(zones: list, partial, centre) -> object | None:
    """The seat zone a pile of touching cards belongs to: the one holding most of it, whole
    cards counting 1 and lone corner indices ``PARTIAL_VOTE`` (ties: the smallest id);
    ``zones`` holds each member's own zone (None outside every zone), ``centre`` the centre
    zone's id, which never wins here. None when no member lies in a seat zone."""
    weight: dict = {}
    for z, part in zip(zones, partial):
        if z is not None and z != centre:
            weight[z] = weight.get(z, 0.0) + (PARTIAL_VOTE if part else 1.0)
    return max(sorted(weight), key=weight.get) if weight else None


def group_melds(cards: list[TableCard], polys: list[np.ndarray], zone: Zone, *,
                gap_frac: float = GAP_FRAC, row_frac: float = ROW_FRAC, touch_frac: float = TOUCH_FRAC,
                partial_reach: float = PARTIAL_REACH, card_ref: float | None = None,
                min_meld_size: int = 2, keep_pairs=(), sticky=frozenset()) -> tuple[list[Meld], list[TableCard]]:
    """Group the cards of one seat zone into ordered melds and loose cards.

    ``polys[i]`` is card ``i``'s outline in table coordinates ((4, 2) or more
    points, convex; a whole card's outline starts at a corner and goes round);
    ``cards[i].partial`` marks a lone index. ``card_ref`` is the typical card
    size in table units (default: estimated from these cards). Returns
    ``(melds, loose)``; melds are ordered left → right as seen from the seat
    (by their leftmost edge, rows behind one another far → near), loose cards
    left → right.
    """
    n = len(cards)
    if n == 0:
        return [], []
    right = np.asarray(zone.right, dtype=np.float64)
    fwd = np.asarray(zone.forward, dtype=np.float64)
    g = _Geometry(polys, [bool(getattr(c, "partial", False)) for c in cards], card_ref)
    groups = g.links(partial_reach=partial_reach, touch_frac=touch_frac, gap_frac=gap_frac,
                     row_frac=row_frac, axes=(right, fwd), keep_pairs=keep_pairs, sticky=sticky)
    cu, cv = g.centres @ right, g.centres @ fwd
    ref = g.ref

    melds: list[tuple[float, Meld]] = []
    loose: list[tuple[float, TableCard]] = []
    for members in groups:
        if len(members) < min_meld_size:
            for i in members:
                loose.append((cu[i], cards[i]))
            continue
        us = cu[members]
        vs = cv[members]
        if np.ptp(vs) > 1.5 * np.ptp(us):         # a column: read far -> near
            order = sorted(members, key=lambda i: (-cv[i], cu[i]))
        else:
            order = sorted(members, key=lambda i: (cu[i], -cv[i]))
        # melds left -> right; melds starting at about the same place (rows one behind
        # another) far -> near
        u_lo = min(float((g.P[i].astype(np.float64) @ right).min()) for i in members)
        key = (round(u_lo / (0.5 * ref)), -float(vs.mean()))
        melds.append((key, Meld([cards[i] for i in order])))
    melds.sort(key=lambda x: x[0])
    loose.sort(key=lambda x: x[0])
    return [m for _, m in melds], [c for _, c in loose]
