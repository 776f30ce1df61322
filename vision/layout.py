"""Melds from layout: which cards in a seat zone lie together, and in what order.

Two whole cards (outline known: a quad, or a card-sized box) belong to the same
meld when, in table coordinates,

* their outlines overlap (fans, overlapping rows, columns), or
* they line up in a row as seen from the seat (centres within ``row_frac`` of a
  card size across the row) with a gap along the row below ``gap_frac`` of a
  card size.

A *partial* card — only its corner index was seen, as for every card but the
top one in an overlapped row — is a point (the index centre): it joins a whole
card whose outline is within ``partial_reach`` card sizes, and another partial
card within ``2·partial_reach`` (minus a little) card sizes. The card size
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

from .table_state import Meld, TableCard
from .zones import Zone

GAP_FRAC = 0.25       # largest gap along a row, in card sizes, that still joins two cards
ROW_FRAC = 0.40       # largest offset across a row, in card sizes, for cards "in line"
TOUCH_FRAC = 0.01     # overlap area (fraction of the smaller card) that counts as overlapping
PARTIAL_REACH = 0.3   # a lone index joins a whole card this close (card sizes)
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


def group_melds(cards: list[TableCard], polys: list[np.ndarray], zone: Zone, *,
                gap_frac: float = GAP_FRAC, row_frac: float = ROW_FRAC, touch_frac: float = TOUCH_FRAC,
                partial_reach: float = PARTIAL_REACH, card_ref: float | None = None,
                min_meld_size: int = 2) -> tuple[list[Meld], list[TableCard]]:
    """Group the cards of one seat zone into ordered melds and loose cards.

    ``polys[i]`` is card ``i``'s outline in table coordinates ((4, 2) or more
    points, convex); ``cards[i].partial`` marks a lone index. ``card_ref`` is
    the typical card size in table units (default: estimated from these
    cards). Returns ``(melds, loose)``; melds are ordered left → right as seen
    from the seat (by their leftmost edge, rows behind one another far →
    near), loose cards left → right.
    """
    n = len(cards)
    if n == 0:
        return [], []
    right = np.asarray(zone.right, dtype=np.float64)
    fwd = np.asarray(zone.forward, dtype=np.float64)
    P = [np.asarray(p, dtype=np.float32).reshape(-1, 2) for p in polys]
    if all(len(p) == len(P[0]) for p in P):
        A = np.stack(P).astype(np.float64)                     # (n, k, 2)
        x, y = A[:, :, 0], A[:, :, 1]
        xn, yn = np.concatenate([x[:, 1:], x[:, :1]], 1), np.concatenate([y[:, 1:], y[:, :1]], 1)
        sizes = np.sqrt(np.maximum(0.5 * np.abs((x * yn - y * xn).sum(axis=1)), 1e-6))
        U, V = A @ right, A @ fwd                              # (n, k)
        centres = A.mean(axis=1)
        radius = np.linalg.norm(A - centres[:, None, :], axis=2).max(axis=1)
    else:
        sizes = np.array([_poly_size(p) for p in P])
        U = [p.astype(np.float64) @ right for p in P]
        V = [p.astype(np.float64) @ fwd for p in P]
        centres = np.array([p.mean(axis=0) for p in P], dtype=np.float64)
        radius = np.array([np.max(np.linalg.norm(p - p.mean(axis=0), axis=1)) for p in P])
    partial = np.array([bool(getattr(c, "partial", False)) for c in cards])
    own_ref = estimate_card_size(sizes, partial)
    ref = own_ref if card_ref is None or (~partial).sum() >= 2 else float(card_ref)
    ref = max(ref, 1e-6)
    if isinstance(U, np.ndarray):
        cu, cv, umin, umax = U.mean(axis=1), V.mean(axis=1), U.min(axis=1), U.max(axis=1)
    else:
        cu = np.array([u.mean() for u in U])
        cv = np.array([v.mean() for v in V])
        umin = np.array([u.min() for u in U])
        umax = np.array([u.max() for u in U])
    areas = sizes ** 2
    reach = partial_reach * ref
    radius = np.where(partial, reach, radius)

    # candidate pairs: close enough to touch or to be neighbours in a row
    s_pair = np.maximum(ref, (sizes[:, None] + sizes[None, :]) / 2.0)
    d = np.linalg.norm(centres[:, None, :] - centres[None, :, :], axis=2)
    rsum = radius[:, None] + radius[None, :]
    near = np.triu(d <= rsum + gap_frac * s_pair, k=1)
    in_row = np.abs(cv[:, None] - cv[None, :]) <= row_frac * s_pair
    gap = np.maximum(umin[None, :] - umax[:, None], umin[:, None] - umax[None, :])
    row_join = near & in_row & (gap <= gap_frac * s_pair)

    parent = list(range(n))
    for i, j in zip(*np.nonzero(near)):
        if partial[i] and partial[j]:
            joined = d[i, j] <= 2 * reach * 0.92
        elif partial[i] or partial[j]:
            p_, w_ = (i, j) if partial[i] else (j, i)
            dist = -cv2.pointPolygonTest(P[w_], (float(centres[p_][0]), float(centres[p_][1])), True)
            joined = dist <= reach
        else:
            joined = bool(row_join[i, j])
            if not joined and d[i, j] <= rsum[i, j]:
                area, _ = cv2.intersectConvexConvex(P[i], P[j], handleNested=True)
                joined = area > touch_frac * min(areas[i], areas[j])
        if joined:
            ri, rj = _find(parent, int(i)), _find(parent, int(j))
            if ri != rj:
                parent[rj] = ri

    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(_find(parent, i), []).append(i)

    melds: list[tuple[float, Meld]] = []
    loose: list[tuple[float, TableCard]] = []
    for members in groups.values():
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
        key = (round(float(us.min()) / (0.5 * ref)), -float(vs.mean()))
        melds.append((key, Meld([cards[i] for i in order])))
    melds.sort(key=lambda x: x[0])
    loose.sort(key=lambda x: x[0])
    return [m for _, m in melds], [c for _, c in loose]


def order_left_to_right(cards: list[TableCard], zone: Zone) -> list[TableCard]:
    """Cards sorted left → right as seen from ``zone``'s seat (by ``table_xy``)."""
    right = zone.right
    return sorted(cards, key=lambda c: c.table_xy[0] * right[0] + c.table_xy[1] * right[1])
