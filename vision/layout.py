"""Melds from layout: which cards in a seat zone lie together, and in what order.

Two cards belong to the same meld when, in table coordinates,

* their outlines overlap (fans, overlapping rows, columns), or
* they line up in a row as seen from the seat (centres within ``row_frac`` of a
  card size across the row) with a gap along the row below ``gap_frac`` of a
  card size.

Melds are the connected groups of at least ``min_meld_size`` cards; single
cards are "loose". Within a meld, cards are ordered left → right as seen from
the seat (projection of their centres on the seat's ``right`` vector); a meld
laid as a column (longer across than along the seat's row) is ordered far →
near, i.e. top to bottom as the player reads it.

Separate melds must be laid with a visible gap (more than ``gap_frac`` of a
card's size) or in different rows.
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


def card_size(poly: np.ndarray) -> float:
    """A card's linear size: square root of its outline's area (table units)."""
    return math.sqrt(max(abs(cv2.contourArea(poly.astype(np.float32))), 1e-6))


def _find(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def group_melds(cards: list[TableCard], polys: list[np.ndarray], zone: Zone, *,
                gap_frac: float = GAP_FRAC, row_frac: float = ROW_FRAC, touch_frac: float = TOUCH_FRAC,
                min_meld_size: int = 2) -> tuple[list[Meld], list[TableCard]]:
    """Group the cards of one seat zone into ordered melds and loose cards.

    ``polys[i]`` is card ``i``'s outline in table coordinates ((4, 2) or more
    points, convex). Returns ``(melds, loose)``; melds are ordered left → right
    as seen from the seat (by their first card), loose cards likewise.
    """
    n = len(cards)
    if n == 0:
        return [], []
    right = np.asarray(zone.right, dtype=np.float64)
    fwd = np.asarray(zone.forward, dtype=np.float64)
    P = [np.asarray(p, dtype=np.float32).reshape(-1, 2) for p in polys]
    sizes = np.array([card_size(p) for p in P])
    ref = float(np.median(sizes))
    U = [p.astype(np.float64) @ right for p in P]
    V = [p.astype(np.float64) @ fwd for p in P]
    cu = np.array([u.mean() for u in U])
    cv = np.array([v.mean() for v in V])
    umin = np.array([u.min() for u in U])
    umax = np.array([u.max() for u in U])
    centres = np.array([p.mean(axis=0) for p in P], dtype=np.float64)
    radius = np.array([np.max(np.linalg.norm(p - p.mean(axis=0), axis=1)) for p in P])
    areas = sizes ** 2

    parent = list(range(n))
    for i in range(n):
        for j in range(i + 1, n):
            s = max(ref, (sizes[i] + sizes[j]) / 2.0)
            d = float(np.linalg.norm(centres[i] - centres[j]))
            if d > radius[i] + radius[j] + gap_frac * s:
                continue
            joined = False
            # lined up in a row, small gap along it
            if abs(cv[i] - cv[j]) <= row_frac * s:
                gap = max(umin[j] - umax[i], umin[i] - umax[j])
                if gap <= gap_frac * s:
                    joined = True
            if not joined and d <= radius[i] + radius[j]:
                area, _ = cv2.intersectConvexConvex(P[i], P[j], handleNested=True)
                if area > touch_frac * min(areas[i], areas[j]):
                    joined = True
            if joined:
                ri, rj = _find(parent, i), _find(parent, j)
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
        melds.append((float(us.min()), Meld([cards[i] for i in order])))
    melds.sort(key=lambda x: x[0])
    loose.sort(key=lambda x: x[0])
    return [m for _, m in melds], [c for _, c in loose]


def order_left_to_right(cards: list[TableCard], zone: Zone) -> list[TableCard]:
    """Cards sorted left → right as seen from ``zone``'s seat (by ``table_xy``)."""
    right = zone.right
    return sorted(cards, key=lambda c: c.table_xy[0] * right[0] + c.table_xy[1] * right[1])
