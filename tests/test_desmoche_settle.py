"""Stakes, pot carry-over, bonuses (Mico, Arriba del Palo, Color) and side-game pots."""
import pytest

from tableref.referee.cards import parse_cards
from tableref.referee.desmoche.settings import desmoche_settings
from tableref.referee.desmoche.settle import SideGame, settle_hand
from tableref.referee.errors import RefereeError


def C(text):
    return parse_cards(text)


SEATS = ["p1", "p2", "p3", "p4"]


def melds(*texts):
    return [C(t) for t in texts]


def kinds(s):
    return sorted((b.bonus, b.payer) for b in s.bonuses)


def zero(s):
    assert sum(s.net.values()) + s.pot_carried_out - s.pot_carried_in == 0


def test_plain_win_takes_the_pot():
    s = settle_hand(SEATS, winner="p1", stake=2,
                    melds={"p1": melds("4C 5C 6C 7C", "9S 9H 9D", "JD QD KD"),
                           "p2": melds("2S 2H 2C"), "p3": melds("5H 6H 7H"), "p4": melds("AS AH AC")})
    assert s.bonuses == []
    assert s.net == {"p1": 6, "p2": -2, "p3": -2, "p4": -2}
    zero(s)


def test_seed_color_and_mico_stack_with_arriba_del_palo():
    # "si un jugador gana con A♠ 2♠ ... 10♠ se le debe un bono por Color y por Mico de cada jugador,
    # y si algún jugador es Arriba del Palo también debe pagarle"
    s = settle_hand(SEATS, winner="p1", stake=1,
                    melds={"p1": melds("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S"), "p2": melds("KH KD KC"),
                           "p3": [], "p4": melds("4H 5H 6H")})
    assert kinds(s) == sorted([("mico", "p2"), ("mico", "p3"), ("mico", "p4"),
                               ("color", "p2"), ("color", "p3"), ("color", "p4"),
                               ("arriba_del_palo", "p3")])
    assert s.net == {"p1": 3 + 7, "p2": -3, "p3": -4, "p4": -3}
    zero(s)


def test_seed_color_hearts_without_mico():
    s = settle_hand(SEATS[:2], winner="p1", stake=1,
                    melds={"p1": melds("2H 3H 4H", "6H 7H 8H", "10H JH QH KH"), "p2": melds("2S 2D 2C")})
    assert kinds(s) == [("color", "p2")]
    assert s.net == {"p1": 2, "p2": -2}


def test_two_micos():
    s = settle_hand(SEATS[:2], winner="p1", stake=1,
                    melds={"p1": melds("AS 2S 3S", "AH 2H 3H", "9C 9D 9H 9S"), "p2": melds("5D 6D 7D")})
    assert kinds(s) == [("mico", "p2"), ("mico", "p2")]
    assert s.net == {"p1": 3, "p2": -3}


def test_jugar_todo_off_no_bonuses():
    s = settle_hand(SEATS, winner="p1", stake=1, settings=desmoche_settings({"jugar_todo": False}),
                    melds={"p1": melds("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S")})
    assert s.bonuses == []
    assert s.net == {"p1": 3, "p2": -1, "p3": -1, "p4": -1}


def test_autowin_every_loser_pays_arriba_del_palo():
    s = settle_hand(SEATS[:3], winner="p2", stake=1, autowin="peladilla")
    assert kinds(s) == [("arriba_del_palo", "p1"), ("arriba_del_palo", "p3")]
    assert s.net == {"p1": -2, "p2": 4, "p3": -2}


def test_no_winner_pot_carries_over():
    s = settle_hand(SEATS, winner=None, stake=1, pot_carried=4)
    assert s.pot_carried_out == 8 and s.pot_to_winner == 0
    assert s.net == {p: -1 for p in SEATS}
    zero(s)


def test_doble_winner_takes_carried_pot():
    s = settle_hand(SEATS[:3], winner="p3", stake=1, pot_carried=3,
                    melds={"p3": melds("AC 2C 3C", "5D 5H 5S", "9H 10H JH QH"), "p1": melds("KS KH KC")})
    # pot 3 + 3 antes, plus Mico 2 (p1, p2) plus Arriba del Palo from p2
    assert s.pot_to_winner == 6
    assert s.net == {"p1": -2, "p2": -3, "p3": 6 - 1 + 3}
    zero(s)


def test_disqualified_player_loses_ante_only():
    s = settle_hand(SEATS[:3], winner="p1", stake=1, disqualified=["p3"],
                    melds={"p1": melds("AC 2C 3C", "5D 5H 5S", "9H 10H JH QH"), "p2": melds("KS KH KC")})
    assert all(b.payer != "p3" for b in s.bonuses)
    assert s.net["p3"] == -1


def test_winner_table_must_be_a_win():
    with pytest.raises(RefereeError) as info:
        settle_hand(SEATS, winner="p1", melds={"p1": melds("AC 2C 3C")})
    assert info.value.field == "winner"


def test_unknown_winner():
    with pytest.raises(RefereeError):
        settle_hand(SEATS, winner="zz")


def test_side_game_pot_from_dealt_cards():
    dealt = {"p1": C("AD 2C 3C 4S 5S 6H 7H 8C 9S"), "p2": C("KD 2D 3H 4H 5C 6C 7S 8S 9H")}
    s = settle_hand(SEATS[:2], winner=None, stake=1,
                    side_games=[SideGame("oro", ["p1", "p2"], 2)], dealt=dealt)
    assert s.side_games[0]["winner"] == "p1" and s.side_games[0]["cards"] == ["AD"]
    assert s.net == {"p1": -1 + 2, "p2": -1 - 2}
    zero(s)


def test_side_game_nobody_qualifies_returns_stakes():
    dealt = {"p1": C("AD 2C 3C 4S 5S 6H 7H 8C 9S"), "p2": C("KD 2D 3H 4H 5C 6C 7S 8S 9H")}
    s = settle_hand(SEATS[:2], winner=None, stake=1, side_games=[SideGame("tres_cuerpos", ["p1", "p2"], 5)],
                    dealt=dealt)
    assert s.side_games[0]["winner"] is None
    assert s.net == {"p1": -1, "p2": -1}


def test_side_game_needs_winner_or_dealt():
    with pytest.raises(RefereeError) as info:
        settle_hand(SEATS[:2], winner=None, side_games=[SideGame("oro", ["p1", "p2"], 1)])
    assert info.value.field == "side_games[0].winner"


def test_side_game_given_winner():
    s = settle_hand(SEATS, winner=None, side_games=[SideGame("flor", ["p1", "p2", "p3"], 1, winner="p2")])
    assert s.net["p2"] == -1 + 2 and s.net["p1"] == -2 and s.net["p4"] == -1


def test_side_game_given_winner_shows_cards_from_dealt():
    dealt = {"p1": C("AD 2C 3C 4S 5S 6H 7H 8C 9S"), "p2": C("KD 2D 3H 4H 5C 6C 7S 8S 9H")}
    s = settle_hand(SEATS[:2], winner=None, side_games=[SideGame("oro", ["p1", "p2"], 1, winner="p1")],
                    dealt=dealt)
    assert s.side_games[0]["cards"] == ["AD"]
