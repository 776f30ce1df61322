"""Wild cards from the tiplu and the three-card combinations (seed examples first)."""
import pytest

from tableref.referee.cards import parse_card, parse_cards
from tableref.referee.marriage import Wild, classify
from tableref.referee.marriage.combos import (
    is_partial_sequence_ranks,
    is_sequence_ranks,
    natural_kind,
)

JC = Wild(parse_card("JC"))


def C(s):
    return parse_cards(s)


def test_seed_jokers_for_tiplu_jack_of_clubs():
    # seed: the other two JC are tiplu, the three QC poplu, the three 10C jhiplu,
    # and every JD, JH, JS an ordinary joker
    assert str(JC.poplu) == "QC" and str(JC.jhiplu) == "10C"
    assert JC.kind(parse_card("JC")) == "tiplu"
    for c in ("JD", "JH", "JS"):
        assert JC.kind(parse_card(c)) == "ordinary_joker"
    assert JC.kind(parse_card("QD")) is None and JC.kind(parse_card("9C")) is None
    assert JC.kind(parse_card("KC")) is None
    assert str(JC.alter) == "JS"


@pytest.mark.parametrize("tiplu,poplu,jhiplu,alter", [
    ("KH", "AH", "QH", "KD"),   # ace above king
    ("AH", "2H", "KH", "AD"),   # two above ace
    ("2S", "3S", "AS", "2C"),
    ("10D", "JD", "9D", "10H"),
])
def test_poplu_jhiplu_wrap(tiplu, poplu, jhiplu, alter):
    w = Wild(parse_card(tiplu))
    assert (str(w.poplu), str(w.jhiplu), str(w.alter)) == (poplu, jhiplu, alter)


@pytest.mark.parametrize("cards,kind", [
    # the seed's examples (tiplu JC)
    ("6H 6H 6H", "tunnela"),
    ("3S 4S 5S", "pure_sequence"),
    ("6D QC 8D", "dirty_sequence"),
    ("KS KC KH", "triplet"),
    ("9S 9S 9C", None),             # suits must all differ
    ("JD 2C 2H", "dirty_triplet"),
    ("5D 5D JD", None),             # two identical + joker is nothing
    ("10C JC QC", "marriage"),
    ("QS KS AS", "pure_sequence"),
    ("AS 2S 3S", "pure_sequence"),
    ("KS AS 2S", None),             # ace never in the middle
    ("KS AS JH", "dirty_sequence"),  # K-A + joker = Q-K-A
    ("2S AS JH", "dirty_sequence"),  # A-2 + joker = A-2-3
    ("KS 2S JH", None),             # K-?-2 would be K-A-2
    ("3D 7H JD", None),
    ("3D JH JD", "dirty_sequence"),  # any card + two jokers
    ("JH JS JD", "triplet"),
    ("JD JD JD", "tunnela"),
    ("QC QC QC", "tunnela"),
    ("8C 9C 10C", "pure_sequence"),  # jhiplu used as itself
    ("4H 4D 4S", "triplet"),
    ("4H 5H 4H", None),
    ("4H 6H QC", "dirty_sequence"),  # gap filled by the poplu
    ("4H 7H QC", None),
    ("4H 4S 10C", "dirty_triplet"),
    ("2D 3D", None),
])
def test_classify_seed_examples(cards, kind):
    assert classify(C(cards), JC) == kind


def test_without_tiplu_no_jokers():
    assert classify(C("6D QC 8D")) is None
    assert classify(C("10C JC QC")) == "pure_sequence"
    assert classify(C("KS KC KH")) == "triplet"


def test_sequence_rank_helpers():
    assert is_sequence_ranks([1, 2, 3]) and is_sequence_ranks([12, 13, 1]) and not is_sequence_ranks([13, 1, 2])
    assert is_partial_sequence_ranks(1, 13) and is_partial_sequence_ranks(1, 12) and not is_partial_sequence_ranks(2, 13)
    assert not is_partial_sequence_ranks(5, 5) and not is_partial_sequence_ranks(5, 8)


def test_reparse_keeps_kind():
    for text in ("10♣ J♣ Q♣", "TS JS QS", "qs ks as"):
        cards = C(text)
        again = C(" ".join(str(c) for c in cards))
        assert classify(cards, JC) == classify(again, JC) is not None
    assert natural_kind(C("QS KS AS")) == "pure_sequence"


from hypothesis import given, settings, strategies as st  # noqa: E402

from tableref.referee.cards import Card, SUITS  # noqa: E402

_SYMBOL = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def _respell(card: Card, style: int) -> str:
    rank = str(card)[:-1]
    if style == 1 and rank == "10":
        rank = "T"
    suit = _SYMBOL[card.suit] if style == 2 else card.suit
    text = rank + suit
    return text.lower() if style == 3 else text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 13), st.sampled_from(SUITS)), min_size=3, max_size=3),
       st.tuples(st.integers(1, 13), st.sampled_from(SUITS)), st.integers(0, 3))
def test_kind_survives_reparsing_and_order(raw, tiplu, style):
    cards = [Card(r, s) for r, s in raw]
    wild = Wild(Card(*tiplu))
    kind = classify(cards, wild)
    again = parse_cards([_respell(c, style) for c in reversed(cards)])
    assert classify(again, wild) == kind
    assert [str(c) for c in again] == [str(c) for c in reversed(cards)]
