"""Meld grouping and left-to-right order for rows, fans and columns at every seat orientation."""
from __future__ import annotations

import numpy as np
import pytest

from tableref.vision.layout import group_melds
from tableref.vision.table_state import TableCard
from tableref.vision.zones import default_zones

W, H = 60.0, 85.0          # card size in table units


def _card_poly(centre, along, across, w=W, h=H):
    """Outline of a card centred at ``centre`` with its long side along ``along``."""
    c, a, b = (np.asarray(v, float) for v in (centre, along, across))
    return np.array([c - a * h / 2 - b * w / 2, c - a * h / 2 + b * w / 2,
                     c + a * h / 2 + b * w / 2, c + a * h / 2 - b * w / 2], dtype=np.float32)


def _tc(i, label, poly):
    c = poly.mean(axis=0)
    return TableCard(track_id=i, card=label, confidence=1.0, box=(0, 0, 1, 1), centre=(0, 0),
                     table_xy=(float(c[0]), float(c[1])), zone=None)


def _row(zone, start, labels, step, ids_from=0):
    """Cards laid from the player's left to right, ``step`` table units apart along the row."""
    f, r = np.array(zone.forward), np.array(zone.right)
    out = []
    for k, lab in enumerate(labels):
        poly = _card_poly(np.asarray(start) + r * step * k, f, r)
        out.append((_tc(ids_from + k, lab, poly), poly))
    return out


def _fan(zone, pivot_centre, labels, spread_deg=14.0, ids_from=0):
    f, r = np.array(zone.forward), np.array(zone.right)
    pivot = np.asarray(pivot_centre) - f * 60
    out = []
    n = len(labels)
    for k, lab in enumerate(labels):
        th = np.radians((k - (n - 1) / 2) * spread_deg)
        d = np.cos(th) * f + np.sin(th) * r              # turning towards the player's right
        across = np.cos(th) * r - np.sin(th) * f
        poly = _card_poly(pivot + d * 70, d, across)
        out.append((_tc(ids_from + k, lab, poly), poly))
    return out


def _overlapped_row(zone, start, labels, step=W * 0.3, up=None, ids_from=0):
    """A row laid left to right, each card on top of the previous: only the last card is
    seen whole; the others show only their top-left index (``partial``). ``up`` is the
    direction of the cards' tops (default: away from the player)."""
    f, r = np.array(zone.forward), np.array(zone.right)
    up = f if up is None else np.asarray(up, float)
    left = np.array([up[1], -up[0]])          # the card's own left, seen upright
    out = []
    for k, lab in enumerate(labels):
        c = np.asarray(start, float) + r * step * k
        if k == len(labels) - 1:
            poly = _card_poly(c, up, -left)
            out.append((_tc(ids_from + k, lab, poly), poly))
        else:
            # the next card covers this one's right side (as the player sees it): the
            # visible index is the corner index (top-left or bottom-right) on the left
            tl = c + up * H / 2 + left * W / 2
            br = c - up * H / 2 - left * W / 2
            if tl @ r <= br @ r:
                ic = tl - left * 0.09 * W - up * 0.13 * H
            else:
                ic = br + left * 0.09 * W + up * 0.13 * H
            poly = _card_poly(ic, up, -left, w=0.09 * W, h=0.19 * H)
            card = _tc(ids_from + k, lab, poly)
            card.partial = True
            out.append((card, poly))
    return out


def _group(zone, items, rng=None):
    if rng is not None:
        items = [items[i] for i in rng.permutation(len(items))]      # detection order is arbitrary
    return group_melds([c for c, _ in items], [p for _, p in items], zone)


def _seat_point(z, seat, depth=0.15):
    """A point inside the seat's zone, ``depth`` of the table from its edge."""
    s = z.seats[seat]
    mid = np.array([500.0, 500.0])
    return mid - np.array(s.forward) * 500 * (1 - 2 * depth)


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_overlapping_row_is_one_meld_in_laying_order(seat):
    z = default_zones(4, (1000, 1000))
    zone = z.seats[seat]
    labels = ["5H", "6H", "7H", "8H"]
    start = _seat_point(z, seat) - np.array(zone.right) * 45
    melds, loose = _group(zone, _row(zone, start, labels, step=W * 0.35), np.random.default_rng(seat))
    assert [m.labels for m in melds] == [labels]
    assert loose == []


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_fan_is_one_meld_left_to_right_from_the_seat(seat):
    z = default_zones(4, (1000, 1000))
    zone = z.seats[seat]
    labels = ["9S", "10S", "JS", "QS", "KS"]
    melds, loose = _group(zone, _fan(zone, _seat_point(z, seat), labels), np.random.default_rng(7))
    assert [m.labels for m in melds] == [labels]


@pytest.mark.parametrize("seat", [0, 2])
def test_separate_melds_need_a_gap_and_come_out_left_to_right(seat):
    z = default_zones(4, (1000, 1000))
    zone = z.seats[seat]
    r = np.array(zone.right)
    base = _seat_point(z, seat) - r * 200
    a = _row(zone, base, ["3C", "3D", "3S"], step=W * 0.4)
    b = _row(zone, base + r * (W * 0.8 + W + W * 0.6), ["8D", "9D", "10D"], step=W * 0.4, ids_from=10)
    # a lone card well away from both
    c = _row(zone, base + r * 380, ["AH"], step=0, ids_from=20)
    melds, loose = _group(zone, b + c + a, np.random.default_rng(1))
    assert [m.labels for m in melds] == [["3C", "3D", "3S"], ["8D", "9D", "10D"]]
    assert [x.card for x in loose] == ["AH"]


def test_side_by_side_cards_with_a_small_gap_are_one_meld():
    z = default_zones(4, (1000, 1000))
    zone = z.seats[0]
    items = _row(zone, (380, 850), ["QC", "KC", "AC"], step=W * 1.12)       # 0.12 card gaps
    melds, loose = _group(zone, items)
    assert [m.labels for m in melds] == [["QC", "KC", "AC"]]
    items = _row(zone, (380, 850), ["QC", "KC", "AC"], step=W * 1.6)        # clearly apart
    melds, loose = _group(zone, items)
    assert melds == [] and [c.card for c in loose] == ["QC", "KC", "AC"]


def test_two_rows_one_above_the_other_are_two_melds():
    z = default_zones(4, (1000, 1000))
    zone = z.seats[0]
    near = _row(zone, (350, 900), ["2H", "3H", "4H"], step=W * 0.35)
    far = _row(zone, (350, 900 - H * 1.3), ["7C", "7D", "7S"], step=W * 0.35, ids_from=5)
    melds, _ = _group(zone, near + far)
    assert sorted(m.labels for m in melds) == [["2H", "3H", "4H"], ["7C", "7D", "7S"]]


def test_column_is_read_far_to_near():
    z = default_zones(4, (1000, 1000))
    zone = z.seats[0]
    f = np.array(zone.forward)
    items = []
    for k, lab in enumerate(["JD", "QD", "KD"]):          # laid from far to near, overlapping
        poly = _card_poly(np.array([500, 700]) - f * (H * 0.3 * k), f, np.array(zone.right))
        items.append((_tc(k, lab, poly), poly))
    melds, _ = _group(zone, items[::-1])
    assert [m.labels for m in melds] == [["JD", "QD", "KD"]]


def test_identical_cards_from_different_packs_stay_distinct():
    z = default_zones(4, (1000, 1000))
    zone = z.seats[0]
    items = _row(zone, (300, 850), ["7H", "7H", "7H"], step=W * 0.35)
    melds, _ = _group(zone, items)
    assert melds[0].labels == ["7H", "7H", "7H"] and sorted(melds[0].ids) == [0, 1, 2]


def test_marriage_hand_of_seven_triples():
    z = default_zones(2, (1400, 1000))
    zone = z.seats[0]
    r = np.array(zone.right)
    items, expect = [], []
    for g in range(7):
        labels = [f"{v}{s}" for v, s in zip(["A", "2", "3"], ["S", "H", "D"][g % 3] * 3)]
        items += _row(zone, np.array([120.0, 900.0]) + r * g * 170, labels, step=W * 0.4, ids_from=g * 3)
        expect.append(labels)
    melds, loose = _group(zone, items, np.random.default_rng(3))
    assert [m.labels for m in melds] == expect and loose == []


def test_empty_table():
    z = default_zones(4, (1000, 1000))
    assert group_melds([], [], z.seats[0]) == ([], [])


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
@pytest.mark.parametrize("upright_in_image", [False, True])
def test_overlapped_rows_seen_as_lone_indices(seat, upright_in_image):
    """Only the top card of each row is seen whole; the covered ones by their corner index."""
    z = default_zones(4, (1000, 1000))
    zone = z.seats[seat]
    r = np.array(zone.right)
    up = np.array([0.0, -1.0]) if upright_in_image else None     # the simulator lays side seats' cards upright
    base = _seat_point(z, seat) - r * 170
    a = _overlapped_row(zone, base, ["4S", "5S", "6S", "7S"], up=up)
    b = _overlapped_row(zone, base + r * (3 * W * 0.3 + W + W * 0.55 + W / 2), ["JH", "JC", "JD"], up=up,
                        ids_from=10)
    melds, loose = _group(zone, a + b, np.random.default_rng(seat))
    assert [m.labels for m in melds] == [["4S", "5S", "6S", "7S"], ["JH", "JC", "JD"]]
    assert loose == []


def test_fan_seen_as_lone_indices_is_one_meld():
    z = default_zones(4, (1000, 1000))
    zone = z.seats[0]
    items = _fan(zone, _seat_point(z, 0), ["2D", "3D", "4D", "5D"], spread_deg=10)
    out = []
    for k, (card, poly) in enumerate(items[:-1]):
        # the index of a fanned card: near the top-left corner of its outline
        ic = poly[0] + (poly[1] - poly[0]) * 0.09 + (poly[3] - poly[0]) * 0.13
        small = _card_poly(ic, (poly[3] - poly[0]) / np.linalg.norm(poly[3] - poly[0]),
                           (poly[1] - poly[0]) / np.linalg.norm(poly[1] - poly[0]), w=0.09 * W, h=0.19 * H)
        c = _tc(card.track_id, card.card, small)
        c.partial = True
        out.append((c, small))
    out.append(items[-1])
    melds, loose = _group(zone, out)
    assert len(melds) == 1 and sorted(melds[0].labels) == sorted(["2D", "3D", "4D", "5D"]) and loose == []
