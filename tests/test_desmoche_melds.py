"""Desmoche melds: runs, sets, ace low, laying order (seed examples first)."""
import pytest

from tableref.referee.cards import parse_cards
from tableref.referee.desmoche.melds import (
    can_extend,
    check_meld,
    check_table,
    extension_cards,
    laid_order,
    meld_kind,
)
from tableref.referee.desmoche.settings import desmoche_settings
from tableref.referee.errors import CardError, SettingsError


def C(text):
    return parse_cards(text)


WARN = desmoche_settings()
DISQ = desmoche_settings({"strict_order": "disqualify"})
OFF = desmoche_settings({"strict_order": "off"})


# -- the seed's own examples --------------------------------------------------
def test_seed_run_8_9_10_spades():
    v = check_meld(C("8♠ 9♠ 10♠"))
    assert (v.kind, v.valid, v.in_order, v.reason) == ("run", True, True, None)


def test_seed_set_of_eights():
    v = check_meld(C("8♠ 8♥ 8♣"))
    assert (v.kind, v.valid, v.in_order) == ("set", True, True)


def test_seed_qka_is_not_a_run():
    v = check_meld(C("Q♠ K♠ A♠"))
    assert v.kind is None and not v.valid
    assert "ace is low" in v.reason


def test_seed_jqk_highest_and_a23_lowest_runs():
    assert check_meld(C("J♥ Q♥ K♥")).kind == "run"
    assert check_meld(C("A♦ 2♦ 3♦")).kind == "run"


def test_seed_run_out_of_order_warns_by_default():
    v = check_meld(C("8♠ 10♠ 9♠"))
    assert v.kind == "run" and v.valid and not v.in_order
    assert "ascending" in v.reason and "8S 9S 10S" in v.reason


def test_seed_set_must_alternate_colour():
    v = check_meld(C("8♠ 8♣ 8♥"))
    assert v.kind == "set" and v.valid and not v.in_order
    assert "alternat" in v.reason
    assert check_meld(C("8♠ 8♥ 8♣")).in_order


# -- runs ---------------------------------------------------------------------
@pytest.mark.parametrize("cards", ["KS AS 2S", "QH KH AH 2H", "AC 2C", "2C 3C 5C", "2C 3D 4C", "KD AD 2D 3D"])
def test_not_runs(cards):
    assert meld_kind(C(cards)) is None
    assert not check_meld(C(cards)).valid


@pytest.mark.parametrize("n", range(3, 11))
def test_runs_of_3_to_10(n):
    cards = C(" ".join(f"{r}H" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"][:n]))
    assert check_meld(cards).valid


def test_run_longer_than_ten_refused():
    cards = C("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH")
    v = check_meld(cards)
    assert not v.valid and "at most 10" in v.reason


def test_descending_run_is_out_of_order():
    v = check_meld(C("10S 9S 8S"))
    assert v.kind == "run" and not v.in_order


# -- sets ---------------------------------------------------------------------
def test_four_card_set_alternating():
    assert check_meld(C("8S 8H 8C 8D")).in_order
    assert not check_meld(C("8S 8C 8H 8D")).in_order


def test_pair_is_not_a_meld():
    v = check_meld(C("8S 8H"))
    assert v.kind is None and "at least 3" in v.reason


def test_mixed_cards_reason():
    v = check_meld(C("8S 9H 10D"))
    assert v.kind is None and "neither" in v.reason


# -- strict_order switch ------------------------------------------------------
def test_strict_order_disqualify_invalidates():
    v = check_meld(C("8S 10S 9S"), DISQ)
    assert v.kind == "run" and not v.valid and not v.in_order and "disqualif" in v.reason
    t = check_table([C("8S 10S 9S")], DISQ)
    assert t.disqualified and not t.valid


def test_strict_order_off_ignores_order():
    v = check_meld(C("8S 10S 9S"), OFF)
    assert v.valid and v.in_order and v.reason is None


def test_strict_order_unknown_value():
    with pytest.raises(SettingsError) as info:
        desmoche_settings({"strict_order": "sometimes"})
    assert info.value.field == "rules.strict_order"


# -- tables -------------------------------------------------------------------
def test_complete_table_of_ten():
    t = check_table([C("AH 2H 3H 4H"), C("9S 9H 9C"), C("JD QD KD")])
    assert t.valid and t.complete and t.cards == 10


def test_nine_cards_not_complete():
    t = check_table([C("AH 2H 3H"), C("9S 9H 9C"), C("JD QD KD")])
    assert t.valid and not t.complete and t.cards == 9


def test_ten_cards_one_invalid_not_complete():
    t = check_table([C("AH 2H 3H 5H"), C("9S 9H 9C"), C("JD QD KD")])
    assert not t.valid and not t.complete


def test_table_duplicate_card_refused():
    with pytest.raises(CardError):
        check_table([C("AH 2H 3H"), C("3H 3S 3C")])


def test_extensions():
    assert can_extend(C("AH 2H 3H"), C("4H")[0])
    assert not can_extend(C("JH QH KH"), C("AH")[0])
    assert set(map(str, extension_cards(C("10S 10H 10C")))) == {"10D"}
    assert set(map(str, extension_cards(C("JH QH KH")))) == {"10H"}


def test_laid_order():
    assert [str(c) for c in laid_order(C("10S 8S 9S"))] == ["8S", "9S", "10S"]
    cards = laid_order(C("8S 8C 8H"))
    assert check_meld(cards).in_order
