"""Card assembly from corner-index readings: pairing, duplicates, voting, geometry."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tableref.vision.assembly import IndexGeometry, IndexReading, assemble, card_quad

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
NAMES = [r + s for s in "CDHS" for r in RANKS] + ["none"]
GEO = IndexGeometry()


def probs_for(card: str, p: float = 0.98, second: str | None = None, p2: float = 0.0) -> np.ndarray:
    v = np.full(len(NAMES), (1.0 - p - p2) / (len(NAMES) - 1 - (1 if second else 0)), dtype=np.float64)
    v[NAMES.index(card)] = p
    if second:
        v[NAMES.index(second)] = p2
    return v


def index_box(centre, theta, card_w, geo=GEO):
    """Axis-aligned box of an index of a card of width card_w rotated by theta."""
    iw, ih = geo.index_size
    w0, h0 = iw * card_w, ih * card_w
    c, s = abs(math.cos(theta)), abs(math.sin(theta))
    bw, bh = w0 * c + h0 * s, w0 * s + h0 * c
    return (centre[0] - bw / 2, centre[1] - bh / 2, centre[0] + bw / 2, centre[1] + bh / 2)


def card_readings(card, centre, theta=0.0, card_w=100.0, corners=("TL", "BR"), score=0.9, probs=None, geo=GEO):
    """Readings for the visible corner indices of one card."""
    out = []
    offs = geo.corner_offsets()
    c, s = math.cos(theta), math.sin(theta)
    for k, corner in enumerate(corners):
        ox, oy = offs[corner]
        ox, oy = ox * card_w, oy * card_w
        p = (centre[0] + c * ox - s * oy, centre[1] + s * ox + c * oy)
        pr = probs[k] if isinstance(probs, list) else (probs if probs is not None else probs_for(card))
        out.append(IndexReading(box=index_box(p, theta, card_w, geo), score=score, probs=pr))
    return out


def test_two_corners_make_one_card_with_whole_card_quad():
    rs = card_readings("10H", (300, 200), theta=0.0, card_w=100)
    cards = assemble(rs, NAMES, GEO)
    assert len(cards) == 1
    c = cards[0]
    assert c.card == "10H"
    assert c.quad is not None
    x1, y1, x2, y2 = c.box
    assert x1 == pytest.approx(250, abs=2) and x2 == pytest.approx(350, abs=2)
    assert y1 == pytest.approx(200 - 100 * GEO.aspect / 2, abs=2)
    assert c.centre == pytest.approx((300, 200), abs=1)
    assert 0.8 < c.confidence <= 1.0
    assert len(c.indices) == 2


@pytest.mark.parametrize("deg", [0, 17, 45, 90, 133, 180, 260, 330])
def test_rotated_card_quad(deg):
    theta = math.radians(deg)
    rs = card_readings("QS", (500, 400), theta=theta, card_w=120)
    cards = assemble(rs, NAMES, GEO)
    assert len(cards) == 1
    expected = card_quad((500, 400), theta, 120, GEO.aspect)
    got = np.array(cards[0].quad)
    assert np.abs(got - np.array(expected)).max() < 3.0


def test_single_index_is_a_card_with_index_box():
    rs = card_readings("7C", (200, 200), corners=("TL",))
    cards = assemble(rs, NAMES, GEO)
    assert len(cards) == 1
    assert cards[0].card == "7C" and cards[0].quad is None
    assert cards[0].box == pytest.approx(rs[0].box)


def test_identical_cards_at_different_places_stay_distinct():
    # Marriage: three packs, three 5H lying apart, each showing both corners
    rs = []
    for cx in (150, 400, 650):
        rs += card_readings("5H", (cx, 300), card_w=100)
    cards = assemble(rs, NAMES, GEO)
    assert [c.card for c in cards] == ["5H"] * 3
    centres = sorted(round(c.centre[0]) for c in cards)
    assert centres == pytest.approx([150, 400, 650], abs=2)


def test_overlapped_row_of_identical_cards():
    # a tunnela: three identical cards overlapped in a row, each covering the
    # previous one's right part: only the TL indices of the lower two show, the top
    # card shows both corners.
    rs = card_readings("9D", (200, 300), corners=("TL",)) + card_readings("9D", (235, 300), corners=("TL",))
    rs += card_readings("9D", (270, 300))
    cards = assemble(rs, NAMES, GEO)
    assert len(cards) == 3
    paired = [c for c in cards if c.quad is not None]
    assert len(paired) == 1 and paired[0].centre == pytest.approx((270, 300), abs=2)


def test_different_cards_do_not_pair():
    a = card_readings("10H", (300, 200), corners=("TL",))
    b = card_readings("JS", (300, 200), corners=("BR",))
    cards = assemble(a + b, NAMES, GEO)
    assert sorted(c.card for c in cards) == ["10H", "JS"]
    assert all(c.quad is None for c in cards)


def test_corners_too_far_apart_do_not_pair():
    a = card_readings("4C", (100, 100), corners=("TL",))
    b = card_readings("4C", (700, 700), corners=("BR",))
    cards = assemble(a + b, NAMES, GEO)
    assert len(cards) == 2 and all(c.quad is None for c in cards)


def test_corner_of_very_different_size_does_not_pair():
    a = card_readings("4C", (300, 300), card_w=100, corners=("TL",))
    b = card_readings("4C", (300, 300), card_w=260, corners=("BR",))
    assert len(assemble(a + b, NAMES, GEO)) == 2


def test_vote_across_corners_fixes_one_misread():
    # one corner is unsure between 6S and 9S, the other confidently 9S
    probs = [probs_for("6S", 0.55, "9S", 0.40), probs_for("9S", 0.97)]
    rs = card_readings("9S", (300, 300), probs=probs)
    cards = assemble(rs, NAMES, GEO)
    assert len(cards) == 1 and cards[0].card == "9S"


def test_a_corner_naming_another_card_does_not_pair():
    # where the 7C's bottom-right corner would be lies another card's index, read 6C
    # (7C only its distant runner-up): a 7C and a 6C, not one 7C
    probs = [probs_for("7C", 0.96), probs_for("6C", 0.90, "7C", 0.05)]
    rs = card_readings("7C", (300, 300), probs=probs)
    cards = assemble(rs, NAMES, GEO)
    assert sorted(c.card for c in cards) == ["6C", "7C"]


def test_corners_of_two_identical_cards_in_neighbouring_melds_are_two_cards():
    # Marriage: two melds side by side, each with a 6S under its top card showing one corner;
    # the two 6S corners happen to lie a card's diagonal apart, but the card they would make
    # lies over the faces of the two top cards (8C, 7S), which show both their corners
    rs = card_readings("8C", (300, 300), card_w=100) + card_readings("7S", (420, 300), card_w=100)
    ghost = []
    for r in card_readings("6S", (360, 300), card_w=112):   # a "6S" a bit larger than the cards
        cx, cy = r.centre
        ghost.append(IndexReading(box=index_box((cx, cy), 0.0, 100), score=r.score, probs=r.probs))
    cards = assemble(rs + ghost, NAMES, GEO)
    assert sorted(c.card for c in cards) == ["6S", "6S", "7S", "8C"]
    assert sorted(c.card for c in cards if c.quad) == ["7S", "8C"]


def test_confident_disagreement_stays_two_cards():
    probs = [probs_for("3H", 0.99), probs_for("3D", 0.99)]
    rs = card_readings("3H", (300, 300), probs=probs)
    cards = assemble(rs, NAMES, GEO)
    assert sorted(c.card for c in cards) == ["3D", "3H"]


def test_min_confidence_filters_weak_cards():
    rs = card_readings("KD", (300, 300), corners=("TL",), score=0.3, probs=probs_for("KD", 0.5))
    assert assemble(rs, NAMES, GEO, min_confidence=0.4) == []
    assert len(assemble(rs, NAMES, GEO, min_confidence=0.1)) == 1


def test_none_probability_lowers_confidence():
    p = probs_for("KD", 0.6)
    p[NAMES.index("none")] = 0.39
    p /= p.sum()
    weak = assemble(card_readings("KD", (300, 300), corners=("TL",), probs=p), NAMES, GEO)[0]
    strong = assemble(card_readings("KD", (300, 300), corners=("TL",)), NAMES, GEO)[0]
    assert weak.confidence < strong.confidence


def test_four_corner_deck_gives_one_card():
    geo = IndexGeometry(corners=("TL", "TR", "BR", "BL"))
    rs = card_readings("8H", (400, 400), theta=0.3, card_w=110, corners=("TL", "TR", "BR", "BL"), geo=geo)
    cards = assemble(rs, NAMES, geo)
    assert len(cards) == 1 and cards[0].card == "8H" and len(cards[0].indices) == 4


def test_four_corner_print_under_a_two_corner_layout_is_one_card():
    # the layout says TL/BR, but this deck prints all four corners: both diagonals pair
    rs = card_readings("8H", (400, 400), theta=0.3, card_w=110, corners=("TL", "TR", "BR", "BL"))
    cards = assemble(rs, NAMES, GEO)
    assert len(cards) == 1 and cards[0].card == "8H" and len(cards[0].indices) == 4


def test_three_visible_corners_are_one_card():
    rs = card_readings("2D", (300, 300), theta=-0.5, card_w=90, corners=("TL", "BR", "TR"))
    cards = assemble(rs, NAMES, GEO)
    assert [c.card for c in cards] == ["2D"]


def test_second_box_on_one_index_is_not_a_second_card():
    rs = card_readings("JD", (300, 300), card_w=100)
    x1, y1, x2, y2 = rs[0].box
    w = x2 - x1
    rs.append(IndexReading(box=(x1 + 0.4 * w, y1 + 2, x2 + 0.4 * w, y2 + 2), score=0.5, probs=probs_for("JD")))
    cards = assemble(rs, NAMES, GEO)
    assert [c.card for c in cards] == ["JD"] and len(cards[0].indices) == 3


def test_index_inside_a_whole_card_is_that_card():
    # a stray reading of the same value inside a card's face (e.g. a centre pip read as an index)
    rs = card_readings("9C", (300, 300), card_w=100)
    rs.append(IndexReading(box=(290, 300, 300, 320), score=0.4, probs=probs_for("9C")))
    cards = assemble(rs, NAMES, GEO)
    assert [c.card for c in cards] == ["9C"]


def test_faint_index_inside_a_crisp_card_is_its_face_print():
    # a QD read crisply from both corners; inside its face, off its middle, the queen's ornament
    # read 8C, faintly (probability 0.61, detector 0.53): the QD, and no 8C
    rs = card_readings("QD", (300, 300), card_w=100, score=0.8, probs=probs_for("QD", 0.96))
    rs.append(IndexReading(box=(265, 320, 277, 336), score=0.53, probs=probs_for("8C", 0.61)))
    cards = assemble(rs, NAMES, GEO)
    assert [(c.card, c.quad is not None) for c in cards] == [("QD", True)]


def test_sure_index_inside_a_pair_keeps_it_from_being_one_card():
    # the same place read 8C as surely as the QD's corners: a card lies there, on top of the QD
    # (whose corners then belong to two cards or one half-covered one): the 8C is reported
    rs = card_readings("QD", (300, 300), card_w=100, score=0.8, probs=probs_for("QD", 0.96))
    rs.append(IndexReading(box=(265, 320, 277, 336), score=0.8, probs=probs_for("8C", 0.95)))
    cards = assemble(rs, NAMES, GEO)
    assert "8C" in [c.card for c in cards]
    assert all(c.quad is None for c in cards if c.card == "QD")


def test_identical_cards_touching_stay_distinct():
    # Marriage: two identical cards side by side, both whole, and a third overlapped in the row
    rs = card_readings("3C", (200, 300), card_w=100) + card_readings("3C", (305, 300), card_w=100)
    rs += card_readings("3C", (340, 300), corners=("TL",)) + card_readings("3C", (375, 300))
    rs = rs[:2] + rs[2:3] + rs[4:]  # the second card is covered by the third and fourth: only its TL shows
    cards = assemble(rs, NAMES, GEO)
    assert len(cards) == 4, [(c.card, c.centre) for c in cards]


def test_strip_of_a_four_corner_card_in_a_row_is_one_card():
    # a deck printing all four corners, cards overlapped in a row: each covered card shows a
    # strip with its top-left and bottom-left indices; the top card shows all four
    rs = []
    for k, card in enumerate(["KH", "KC", "KD"]):
        rs += card_readings(card, (300 + 30 * k, 300), card_w=100, corners=("TL", "BL"))
    rs += card_readings("KS", (390, 300), card_w=100, corners=("TL", "TR", "BR", "BL"))
    cards = assemble(rs, NAMES, GEO)
    assert sorted(c.card for c in cards) == ["KC", "KD", "KH", "KS"]


def test_identical_cards_in_a_column_are_not_one_strip():
    # Marriage: three identical cards overlapped downwards, only the top-left indices of the
    # two under the top card show; they are a strip apart, not a card's side
    rs = card_readings("7S", (300, 300), card_w=100, corners=("TL",))
    rs += card_readings("7S", (300, 335), card_w=100, corners=("TL",))
    rs += card_readings("7S", (300, 370), card_w=100)
    cards = assemble(rs, NAMES, GEO)
    assert len(cards) == 3


def test_fanned_hand_one_index_per_card():
    # a fan: 13 different cards, only the top-left index of each shows, indices close together
    hand = ["AS", "KS", "QS", "JH", "10H", "9H", "8D", "7D", "6C", "5C", "4C", "3S", "2S"]
    rs = []
    for k, card in enumerate(hand):
        theta = math.radians(-30 + 5 * k)
        centre = (300 + 18 * k, 300 + abs(k - 6) * 2)
        rs += card_readings(card, centre, theta=theta, card_w=100, corners=("TL",))
    cards = assemble(rs, NAMES, GEO)
    assert sorted(c.card for c in cards) == sorted(hand)


def test_image_size_clips_box():
    rs = card_readings("2C", (30, 30), card_w=100)
    c = assemble(rs, NAMES, GEO, image_size=(200, 200))[0]
    assert c.box[0] >= 0 and c.box[1] >= 0


def test_geometry_from_spec_variants():
    g = IndexGeometry.from_spec({"card_mm": [63, 88], "index_mm": [2, 4, 10, 22]})
    assert g.aspect == pytest.approx(88 / 63) and g.cx == pytest.approx(6 / 63) and g.h == pytest.approx(18 / 88)
    g = IndexGeometry.from_spec({"box": [0.02, 0.03, 0.14, 0.24], "aspect": 1.5})
    assert g.cx == pytest.approx(0.08) and g.aspect == 1.5
    g = IndexGeometry.from_spec({"top_left": [0.0475, 0.0357, 0.13, 0.2188], "aspect": 0.7143})
    assert g.aspect == pytest.approx(1.4, abs=1e-3) and g.cy == pytest.approx(0.12725)
    assert IndexGeometry.from_spec(None) == IndexGeometry()
    assert IndexGeometry.from_spec({"cx": "x"}) == IndexGeometry()
    assert IndexGeometry.from_spec({"cx": 0.9}) == IndexGeometry()


def test_empty():
    assert assemble([], NAMES, GEO) == []


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 6),
    seed=st.integers(0, 10_000),
)
def test_separated_cards_each_found_once(n, seed):
    rng = np.random.default_rng(seed)
    cards_in = []
    rs = []
    for k in range(n):
        card = NAMES[int(rng.integers(0, 52))]
        centre = (200 + 300 * k, 200 + 300 * (k % 2))
        theta = float(rng.uniform(-math.pi, math.pi))
        w = float(rng.uniform(60, 140))
        cards_in.append((card, centre))
        rs += card_readings(card, centre, theta=theta, card_w=w)
    rng.shuffle(rs)
    out = assemble(rs, NAMES, GEO)
    assert len(out) == n
    assert all(c.quad is not None for c in out)
    for card, centre in cards_in:
        assert any(c.card == card and math.dist(c.centre, centre) < 3 for c in out)


def test_deck_layouts_from_spec_become_variants():
    spec = {"top_left": [0.0434, 0.0377, 0.1778, 0.3149], "aspect": 0.7116,
            "decks": {"a": {"top_left": [0.05, 0.04, 0.2, 0.35], "aspect": 0.7143},
                      "b": {"top_left": [0.05, 0.04, 0.2, 0.35], "aspect": 0.7143},
                      "like-standard": {"top_left": [0.0475, 0.0357, 0.13, 0.2188], "aspect": 0.7143},
                      "bad": {"top_left": "x"}}}
    g = IndexGeometry.from_spec(spec)
    assert g.h == pytest.approx(0.3149 - 0.0377)
    # deck "a" (== "b") and the built-in standard layout (== "like-standard")
    assert len(g.variants) == 2
    assert len(g.layouts()) == 3


def test_jumbo_index_deck_pairs_through_its_variant():
    jumbo = IndexGeometry(cx=0.11, cy=0.17, w=0.14, h=0.28)
    rs = card_readings("6D", (400, 300), theta=0.4, card_w=120, geo=jumbo)
    standard_only = IndexGeometry()
    assert len(assemble(rs, NAMES, standard_only)) == 2        # too close for standard indices
    both = IndexGeometry(variants=(jumbo,))
    cards = assemble(rs, NAMES, both)
    assert len(cards) == 1 and cards[0].centre == pytest.approx((400, 300), abs=1)
    side = math.dist(cards[0].quad[0], cards[0].quad[1])
    assert side == pytest.approx(120, rel=0.05)


@pytest.mark.parametrize("shift", [(30, 0), (-30, 0)])
def test_identical_four_corner_card_under_a_whole_one_is_one_more_card(shift):
    # Marriage, a deck printing all four corners: a card lies on an identical one that peeks
    # out by a strip (right, left); the strip's two indices are one card, not corners to pair
    # with the top card's corners into a third, phantom card
    dx, dy = shift
    side = {(30, 0): ("TR", "BR"), (-30, 0): ("TL", "BL")}[shift]
    top = card_readings("QC", (300, 300), card_w=100, corners=("TL", "TR", "BR", "BL"))
    under = card_readings("QC", (300 + dx, 300 + dy), card_w=100, corners=side)
    cards = assemble(under + top, NAMES, GEO)
    assert [c.card for c in cards] == ["QC", "QC"], [(c.card, c.centre, len(c.indices)) for c in cards]


def test_a_second_box_beside_a_narrow_index_is_not_a_second_card():
    # an index turned by 90° gives a flat box; a second box shifted across it hardly overlaps
    # it but lies on the same index
    rs = card_readings("2S", (300, 300), theta=math.pi / 2, card_w=100, corners=("TL", "TR", "BR", "BL"))
    x1, y1, x2, y2 = rs[2].box
    rs.append(IndexReading(box=(x1, y1 + 0.8 * (y2 - y1), x2, y2 + 0.8 * (y2 - y1)), score=0.4,
                           probs=probs_for("2S", 0.6)))
    cards = assemble(rs, NAMES, GEO)
    assert [c.card for c in cards] == ["2S"]


def _meld(labels, centre, theta, step=18, card_w=100):
    """A meld overlapped in a row: the last card whole, the others showing their top-left index."""
    rs = []
    c, s = math.cos(theta), math.sin(theta)
    for k, lab in enumerate(labels):
        off = (k - (len(labels) - 1)) * step
        rs += card_readings(lab, (centre[0] + c * off, centre[1] + s * off), theta=theta, card_w=card_w,
                            corners=("TL", "BR") if k == len(labels) - 1 else ("TL",))
    return rs


@pytest.mark.parametrize("angle", [120, 165, 300, 345])
def test_identical_bottom_cards_of_two_melds_are_not_one_card(angle):
    # Marriage (three packs): two melds lying alike, each with a 5C at the bottom; the two 5C
    # indices lie a card's corner-to-corner distance apart, so they could be one card turned
    # otherwise, lying across the gap between the melds
    theta = 0.5
    a = _meld(["5C", "6C", "7C"], (300, 300), theta)
    b0 = _meld(["5C", "5D", "4H"], (0, 0), theta)
    dx, dy = GEO.diag_vec
    reach = math.hypot(dx, dy) * 100
    t = (a[0].centre[0] + reach * math.cos(math.radians(angle)), a[0].centre[1] + reach * math.sin(math.radians(angle)))
    b = _meld(["5C", "5D", "4H"], (t[0] - b0[0].centre[0], t[1] - b0[0].centre[1]), theta)
    c = _meld(["9H", "9S", "9D"], (300, 650), theta)
    cards = assemble(a + b + c, NAMES, GEO, several_packs=True)
    assert sorted(c.card for c in cards) == sorted(["5C", "6C", "7C", "5C", "5D", "4H", "9H", "9S", "9D"])


@given(st.lists(st.integers(0, 6), max_size=40))
@settings(max_examples=200, deadline=None)
def test_same_value_pairs_are_every_pair_of_equal_entries_once(values):
    """The candidate pairs of repeat boxes and side pairs: every (i, j), i < j, of equal card values."""
    from tableref.vision.assembly import _same_value_pairs

    v = np.array(values, dtype=np.int64)
    i, j = _same_value_pairs(v)
    got = sorted(zip(i.tolist(), j.tolist()))
    want = [(a, b) for a in range(len(v)) for b in range(a + 1, len(v)) if v[a] == v[b]]
    assert got == want


def _committed_reader():
    from tableref.vision.recognition.spec import read_spec
    from tableref.vision.runtime import default_models_dir

    spec = read_spec(default_models_dir())
    names = list(spec.names)

    def read(card, box, p, score):
        v = np.full(len(names), (1 - p) / (len(names) - 1))
        v[names.index(card)] = p
        return IndexReading(box=box, score=score, probs=v)

    return spec, names, read


def test_four_corner_strips_beside_their_rows_top_card_are_not_turned_cards(monkeypatch):
    # a row of a four-corner deck (the KDE Dondorf deck of a rendered Desmoche hand): 6S 7S 8S show
    # strips (top-left and bottom-left indices, one long side apart), the 9S on top all four corners.
    # A strip measures as the diagonal of another committed layout's card turned 36 degrees: taken
    # so, its outline reached over the next meld and joined the two.
    from tableref.vision import assembly

    spec, names, read = _committed_reader()
    rs = [read("6S", (217.7, 601.2, 226.4, 624.5), 0.90, 0.83), read("6S", (214.3, 677.0, 225.1, 702.5), 0.92, 0.81),
          read("7S", (242.1, 600.5, 252.2, 623.9), 0.96, 0.66), read("7S", (240.6, 678.6, 249.9, 702.8), 0.90, 0.76),
          read("8S", (266.7, 600.1, 277.7, 623.4), 0.92, 0.84), read("8S", (265.5, 677.5, 275.6, 702.0), 0.88, 0.76),
          read("9S", (292.1, 600.3, 301.8, 623.9), 0.97, 0.84), read("9S", (290.5, 677.2, 301.3, 701.3), 0.98, 0.74),
          read("9S", (349.0, 676.0, 358.0, 701.0), 0.99, 0.90), read("9S", (349.0, 598.0, 360.0, 622.0), 0.92, 0.90)]
    cards = {c.card: c for c in assemble(rs, names, spec.geometry)}
    assert sorted(cards) == ["6S", "7S", "8S", "9S"] and cards["9S"].quad is not None
    for strip in ("6S", "7S", "8S"):
        assert cards[strip].quad is None and cards[strip].box[2] - cards[strip].box[0] < 15
        assert len(cards[strip].indices) == 2
    monkeypatch.setattr(assembly, "_split_strips", lambda a: None)      # without the pass: a turned card
    assert next(c for c in assemble(rs, names, spec.geometry) if c.card == "6S").quad is not None


def test_a_card_lying_over_another_cards_free_corner_does_not_split_it_in_two(monkeypatch):
    # the real fanned deal (a three-pack table reads it as Marriage does): a 5D shows its top left
    # and bottom right corners, and the 10C lies over its top right corner, its index where the
    # 5D would print that corner. The 5D is one card: split in two, a Marriage count had a phantom 5D
    from tableref.vision import assembly

    spec, names, read = _committed_reader()
    rs = [read("5D", (618.1, 260.8, 638.6, 295.3), 0.77, 0.76), read("5D", (674.1, 400.8, 694.6, 437.2), 0.87, 0.72),
          read("10C", (685.8, 290.9, 707.6, 324.5), 0.82, 0.70)]
    for packs in (False, True):
        cards = assemble(rs, names, spec.geometry, several_packs=packs)
        assert sorted(c.card for c in cards) == ["10C", "5D"]
        assert len(next(c for c in cards if c.card == "5D").indices) == 2
    monkeypatch.setattr(assembly, "COVER_NEAR", 0.0)       # any other card's index on its face splits it
    assert sorted(c.card for c in assemble(rs, names, spec.geometry, several_packs=True)) == ["10C", "5D", "5D"]


# two identical cards of a deck printing four corners (the KDE Dondorf deck of rendered Marriage
# hands, boxes as read): side by side, each showing its four corners; and overlapped, the top card
# showing four corners and the lower one its bottom strip
SIDE_BY_SIDE_4D = [("4D", (148.4, 87.1, 163.3, 92.8), 0.95, 0.87), ("4D", (92.0, 125.8, 107.5, 132.2), 1.00, 0.86),
                   ("4D", (171.6, 126.5, 186.3, 133.0), 0.99, 0.80), ("4D", (227.1, 87.5, 242.2, 94.8), 0.91, 0.75),
                   ("4D", (224.1, 127.9, 239.2, 134.5), 0.96, 0.75), ("4D", (173.9, 86.1, 190.2, 93.5), 0.91, 0.73),
                   ("4D", (96.4, 85.7, 111.3, 92.1), 0.97, 0.73), ("4D", (144.6, 125.9, 160.7, 133.5), 0.96, 0.71)]
OVERLAPPED_JC = [("JC", (1133.8, 213.0, 1152.2, 226.2), 0.99, 0.87), ("JC", (1110.8, 280.4, 1128.8, 294.1), 0.98, 0.75),
                 ("JC", (1085.3, 241.3, 1103.9, 254.9), 0.98, 0.73), ("JC", (1159.4, 251.7, 1177.0, 265.0), 0.97, 0.72),
                 ("JC", (1170.5, 268.3, 1188.4, 281.6), 0.98, 0.76), ("JC", (1123.0, 298.3, 1139.9, 310.9), 0.98, 0.78)]


@pytest.mark.parametrize("boxes, whole", [(SIDE_BY_SIDE_4D, 2), (OVERLAPPED_JC, 1)], ids=["side by side", "overlapped"])
def test_two_identical_four_corner_cards_are_not_three(monkeypatch, boxes, whole):
    # the right card's top-left and the left card's bottom-right index (side by side), or the top
    # card's bottom-left and the lower card's bottom-right (overlapped), fit the diagonal of a card of
    # another committed layout better than either card fits its own: taken first, that phantom left
    # the real cards' corners to be counted again (a third 4D, a third JC in a Marriage count)
    from tableref.vision import assembly

    spec, names, read = _committed_reader()
    rs = [read(*b) for b in boxes]
    cards = assemble(rs, names, spec.geometry, several_packs=True)
    assert len(cards) == 2, [(c.card, c.box, len(c.indices)) for c in cards]
    assert sum(c.quad is not None and len(c.indices) == 4 for c in cards) == whole
    monkeypatch.setattr(assembly, "_count_corners_in_sight", lambda *a: None)      # cheapest pair first
    assert len(assemble(rs, names, spec.geometry, several_packs=True)) == 3


def test_two_identical_four_corner_cards_overlapped_lengthwise_are_not_one_long_card(monkeypatch):
    # a 2S on an identical one that shows its bottom strip, its bottom-right corner misread 2C: the top
    # card's top-left and the lower card's bottom-right fit a longer card whose other two corners are
    # the top card's top-right and the lower card's bottom-left, all four read 2S; but that card's face
    # holds the top card's bottom-left index, so it is not a card showing its four corners
    from tableref.vision import assembly

    spec, names, read = _committed_reader()
    rs = [read(*b) for b in [("2S", (1069.1, 426.2, 1087.3, 441.7), 0.86, 0.87),
                             ("2S", (1045.4, 497.2, 1063.8, 512.5), 0.99, 0.86),
                             ("2S", (1056.4, 513.9, 1075.4, 529.8), 0.99, 0.85),
                             ("2S", (1105.5, 483.6, 1124.6, 499.0), 0.83, 0.83),
                             ("2S", (1020.1, 456.9, 1038.9, 472.0), 0.91, 0.79),
                             ("2C", (1093.9, 466.0, 1113.2, 482.3), 0.81, 0.81)]]
    # (the 2C lies where the top card, showing its other three corners, prints its fourth: its own)
    assert sorted(c.card for c in assemble(rs, names, spec.geometry, several_packs=True)) == ["2S", "2S"]
    monkeypatch.setattr(assembly, "_at_fourth_corner", lambda r, f: False)      # a 2C of its own
    assert sorted(c.card for c in assemble(rs, names, spec.geometry, several_packs=True)) == ["2C", "2S", "2S"]
    inside = assembly.points_in_quad
    monkeypatch.setattr(assembly, "points_in_quad", lambda pts, quad, shrink: np.zeros(len(pts), bool)
                        if shrink == 1.0 else inside(pts, quad, shrink))            # the face left unlooked at
    assert sorted(c.card for c in assemble(rs, names, spec.geometry, several_packs=True)) == ["2C", "2S"]


# two identical four-corner cards overlapped in a meld, each showing its top strip (top-left and
# top-right indices), the 6C over them; the strip under a whole card's side (a 4S showing three
# corners beside an identical card's strip); a strip over a card showing three corners (7C, 7C)
TWO_TOP_STRIPS_5C = [("5C", (271.2, 95.3, 288.9, 108.8), 0.98, 0.82), ("5C", (263.2, 112.4, 278.7, 125.2), 0.97, 0.80),
                     ("5C", (213.2, 84.0, 230.0, 101.6), 0.96, 0.72), ("5C", (222.8, 68.2, 240.8, 83.2), 0.67, 0.67),
                     ("6C", (202.4, 100.1, 219.4, 112.3), 0.78, 0.66)]
STRIP_BESIDE_4S = [("4S", (512.8, 113.5, 520.4, 129.5), 1.00, 0.85), ("4S", (552.1, 165.5, 559.3, 181.3), 0.96, 0.81),
                   ("4S", (553.7, 114.3, 562.2, 130.8), 0.96, 0.79), ("4S", (570.1, 165.6, 577.7, 182.3), 1.00, 0.76),
                   ("4S", (571.5, 114.7, 579.0, 130.7), 0.95, 0.71)]
STRIP_OVER_7C = [("7C", (56.4, 564.7, 73.2, 572.6), 0.95, 0.79), ("7C", (116.7, 521.5, 132.7, 527.9), 0.94, 0.75),
                 ("7C", (116.8, 501.9, 133.4, 509.1), 0.93, 0.75), ("7C", (59.2, 520.4, 77.1, 528.3), 0.94, 0.61),
                 ("7C", (61.2, 501.2, 78.1, 509.1), 0.94, 0.53)]


@pytest.mark.parametrize("boxes", [TWO_TOP_STRIPS_5C, STRIP_BESIDE_4S, STRIP_OVER_7C], ids=["two strips", "beside", "over"])
def test_strips_of_identical_four_corner_cards_are_one_card_each(monkeypatch, boxes):
    # the top-right index of one strip and the top-left of the next fit the diagonal of a card of
    # another committed layout better than either strip fits a card: taken first, that phantom left
    # two lone indices, three 5C where two lie (a Marriage count whose seat held too many cards; on
    # these indices alone, one card of four). Parallel strips are taken first, but after a card
    # showing three corners or four
    from tableref.vision import assembly

    spec, names, read = _committed_reader()
    rs = [read(*b) for b in boxes]
    label = boxes[0][0]
    got = [c for c in assemble(rs, names, spec.geometry, several_packs=True) if c.card == label]
    assert len(got) == 2, [(c.box, len(c.indices)) for c in got]
    assert sorted(len(c.indices) for c in got) == ([2, 2] if boxes is TWO_TOP_STRIPS_5C else [2, 3])
    if boxes is TWO_TOP_STRIPS_5C:
        monkeypatch.setattr(assembly, "_mark_twin_strips", lambda *a: None)
    else:       # strips first, before a card showing three corners: its side taken for a strip
        monkeypatch.setattr(assembly, "_count_corners_in_sight", lambda *a: None)
    assert len([c for c in assemble(rs, names, spec.geometry, several_packs=True) if c.card == label]) != 2
