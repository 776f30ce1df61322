"""Side games, decided on the dealt nine cards, ace high."""
import pytest

from tableref.referee.cards import parse_cards
from tableref.referee.desmoche.settings import desmoche_settings
from tableref.referee.desmoche.side_games import (
    canonical_game,
    side_game_key,
    side_game_winner,
    side_games_of,
)


def C(text):
    return parse_cards(text)


def winner(game, hands, order=None, rules=None):
    dealt = {p: C(h) for p, h in hands.items()}
    return side_game_winner(game, dealt, order or list(hands), desmoche_settings(rules))


def test_oro_ace_of_diamonds_is_highest():
    w, cards = winner("oro", {"a": "KD 2C 3C 4C 5S 6S 7H 8H 9H", "b": "AD 2D 3S 4S 5C 6C 7C 8C 9S"})
    assert w == "b" and [str(c) for c in cards] == ["AD"]


@pytest.mark.parametrize("game,suit", [("corazon", "H"), ("flor", "C"), ("corazon_negro", "S"), ("oro", "D")])
def test_suit_games(game, suit):
    hands = {"a": f"2{suit} 3{suit}", "b": f"Q{suit} 5{suit}"}
    hands = {p: " ".join(h.split()) for p, h in hands.items()}
    w, cards = winner(game, hands)
    assert w == "b" and str(cards[0]) == f"Q{suit}"


def test_oro_nobody_qualifies():
    assert winner("oro", {"a": "2C 3C", "b": "4S 5S"}) == (None, [])


def test_par_rojo_and_negro():
    hands = {"a": "QH QD 2C 2S", "b": "KH KD 3C", "c": "AC AS 5H"}
    assert winner("par_rojo", hands)[0] == "b"
    assert winner("par_negro", hands)[0] == "c"
    # a red and a black card of one rank are no pair
    assert side_game_key("par_rojo", C("QH QS")) is None


def test_dos_par():
    hands = {"a": "QH QD 2H 2D", "b": "KH KD 3C", "c": "JH JD 10H 10D"}
    w, cards = winner("dos_par_rojo", hands)
    assert w == "a"     # Q+2 beats J+10: the higher pair decides first
    hands = {"a": "QC QS 2C 2S", "b": "QH QD 3C", "c": "AC AS 3S 3C"}
    assert winner("dos_par_negro", {"a": "QC QS 2C 2S", "c": "AC AS 3S 3C"})[0] == "c"


def test_seed_tres_cuerpos_aces():
    hands = {"a": "AS AH AC 2D", "b": "KS KH KC KD"}
    w, cards = winner("tres_cuerpos", hands)
    assert w == "a" and len(cards) == 3


def test_seed_escalera_a23_off_by_default():
    hands = {"a": "AD 2D 3D", "b": "4C 5C 6C"}
    assert winner("escalera", hands)[0] == "b"
    assert winner("escalera", hands, rules={"escalera_a23_high": True})[0] == "a"


def test_escalera_a23_high_beats_jqk():
    hands = {"a": "AD 2D 3D", "b": "JC QC KC"}
    assert winner("escalera", hands)[0] == "b"
    assert winner("escalera", hands, rules={"escalera_a23_high": True})[0] == "a"


def test_escalera_qka_not_a_run():
    assert side_game_key("escalera", C("QS KS AS")) is None


def test_escalera_tie_goes_to_nearest_dealer():
    hands = {"a": "5C 6C 7C", "b": "5H 6H 7H"}
    assert winner("escalera", hands, order=["b", "a"])[0] == "b"
    assert winner("escalera", hands, order=["a", "b"])[0] == "a"


def test_escalera_longer_run_same_top():
    hands = {"a": "5C 6C 7C", "b": "4H 5H 6H 7H"}
    assert winner("escalera", hands, order=["a", "b"])[0] == "b"


def test_side_games_of_lists_every_game():
    out = side_games_of(C("AS AH AC 2D 3D 4D 9C 9S KH"))
    assert out["oro"] == ["4D"] and out["tres_cuerpos"] == ["AC", "AH", "AS"]
    assert out["escalera"] == ["2D", "3D", "4D"] and out["par_negro"] == ["AC", "AS"]
    assert out["par_rojo"] is None and out["dos_par_negro"] == ["AC", "AS", "9C", "9S"]


def test_aliases():
    assert canonical_game("rombo") == "oro"
    assert canonical_game("corazón negro") == "corazon_negro"
    assert canonical_game("poker") is None
