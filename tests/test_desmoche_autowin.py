"""Automatic wins: Peladilla, Cuatro cuerpos, Color, and their tie-breaks."""

from tableref.referee.cards import parse_cards
from tableref.referee.desmoche.autowin import autowin, autowins, best_autowin, is_peladilla, resolve, tiebreak_key
from tableref.referee.desmoche.seats import play_order
from tableref.referee.desmoche.settings import desmoche_settings


def C(text):
    return parse_cards(text)


# The seed's Peladilla example (suits lost in the text are filled in consistently).
SEED_PELADILLA_1 = C("AS 3C 4D 7H 8S 10D JS QH KD")
SEED_PELADILLA_2 = C("2H 3D 4H 7C 8D 10H JC QD KH")


def test_seed_peladilla_examples():
    assert autowin(SEED_PELADILLA_1) == "peladilla"
    assert autowin(SEED_PELADILLA_2) == "peladilla"


def test_seed_peladilla_tie_ace_is_highest():
    claims = {"p1": ("peladilla", SEED_PELADILLA_1), "p2": ("peladilla", SEED_PELADILLA_2)}
    assert resolve(claims, ["p2", "p1"]) == "p1"
    assert resolve(claims, ["p1", "p2"]) == "p1"


def test_peladilla_next_highest_card_decides():
    a = C("KS JC 9D 7H 5S 3C AD 10H 6C")   # A K J 10 9 7 6 5 3
    b = C("KC JD 9H 7S 5D 3H AS 10C 4S")   # A K J 10 9 7 5 4 3 (6 beats 5)
    assert autowin(a) == "peladilla" and autowin(b) == "peladilla"
    assert tiebreak_key("peladilla", a) > tiebreak_key("peladilla", b)
    assert resolve({"x": ("peladilla", b), "y": ("peladilla", a)}, ["x", "y"]) == "y"


def test_peladilla_broken_by_pair():
    assert not is_peladilla(C("AS AC 4D 7H 9S JD KC 5H 2D"))


def test_peladilla_broken_by_adjacent_same_suit():
    assert not is_peladilla(C("AS 2S 4D 7H 9S JD KC 5H QD"))  # A-2 of spades is adjacent


def test_peladilla_king_ace_not_adjacent():
    hand = C("KS AS 3D 5H 7C 9D JH 4C 10S")
    assert is_peladilla(hand)


def test_seed_cuatro_cuerpos():
    hand = C("8S 8H 8C 8D 2C 5D 9H JS KD")
    assert autowin(hand) == "cuatro_cuerpos"


def test_cuatro_cuerpos_tie_by_rank_ace_high():
    aces = C("AS AH AC AD 3C 5D 9H JS KD")
    kings = C("KS KH KC KD 2C 4D 8H 10S QD")
    assert resolve({"a": ("cuatro_cuerpos", kings), "b": ("cuatro_cuerpos", aces)}, ["a", "b"]) == "b"


def test_color_same_colour_default():
    red = C("AH 3H 5H 7D 9D JD KH 2D 10H")
    assert "color" in autowins(red)
    assert autowins(red, desmoche_settings({"color_autowin": "off"})) == [] or "color" not in autowins(
        red, desmoche_settings({"color_autowin": "off"}))


def test_color_same_suit_switch():
    red = C("AH 3H 5H 7D 9D JD KH 2D 10H")
    suit = C("AH 3H 5H 7H 9H JH KH 2H 10H")
    s = desmoche_settings({"color_autowin": "same_suit"})
    assert "color" not in autowins(red, s)
    assert "color" in autowins(suit, s)


def test_automatic_wins_off():
    s = desmoche_settings({"automatic_wins": False})
    assert autowins(SEED_PELADILLA_1, s) == []


def test_no_autowin():
    assert autowin(C("AS 2S 3S 5H 5D 9C 10C JH QD")) is None


def test_mixed_kinds_go_to_the_player_nearest_the_dealer():
    settings = desmoche_settings()
    seats = ["n", "e", "s", "w"]  # clockwise
    order = play_order(seats, "n", settings)  # counter-clockwise: w, s, e, n
    assert order == ["w", "s", "e", "n"]
    four = C("8S 8H 8C 8D 2C 5D 9H JS KD")
    claims = {"e": ("cuatro_cuerpos", four), "s": ("peladilla", SEED_PELADILLA_1)}
    assert resolve(claims, order) == "s"
    clockwise = play_order(seats, "n", desmoche_settings({"direction": "clockwise"}))
    assert clockwise == ["e", "s", "w", "n"]
    assert resolve(claims, clockwise) == "e"


def test_identical_peladilla_ranks_tie_to_nearest():
    a = C("AS 3C 5D 7H 9S JD KC 4H 10C")
    b = C("AC 3D 5H 7S 9D JH KS 4C 10D")
    assert tiebreak_key("peladilla", a) == tiebreak_key("peladilla", b)
    assert resolve({"p": ("peladilla", a), "q": ("peladilla", b)}, ["q", "p"]) == "q"


# The tie across the Cambio (RULES.md: automatic wins count before or after the Cambio): p1 was dealt a
# Peladilla headed by the ace and passed the ace to p2, who had passed 2H (breaking its pair of twos).
CAMBIO_P1_AFTER, CAMBIO_P1_DEALT = C("2H 3C 4D 7H 8S 10D JS QH KD"), C("AS 3C 4D 7H 8S 10D JS QH KD")
CAMBIO_P2_AFTER, CAMBIO_P2_DEALT = C("AS JH 9C 7D 5H 3S 2D 6C 10S"), C("2H JH 9C 7D 5H 3S 2D 6C 10S")


def test_both_sides_of_the_cambio_qualify_the_better_is_judged():
    assert best_autowin(CAMBIO_P1_AFTER, None, CAMBIO_P1_DEALT) == ("peladilla", CAMBIO_P1_DEALT)
    assert best_autowin(CAMBIO_P2_AFTER, None, CAMBIO_P2_DEALT) == ("peladilla", CAMBIO_P2_AFTER)
    # the dealt hand is judged only when it is better: the same cards, or a worse hand, keep the hand after
    assert best_autowin(CAMBIO_P1_DEALT, None, CAMBIO_P1_AFTER) == ("peladilla", CAMBIO_P1_DEALT)
    assert best_autowin(CAMBIO_P1_AFTER, None, None) == ("peladilla", CAMBIO_P1_AFTER)


def test_cambio_tie_example_and_its_mirror():
    claims = {"p1": best_autowin(CAMBIO_P1_AFTER, None, CAMBIO_P1_DEALT),
              "p2": best_autowin(CAMBIO_P2_AFTER, None, CAMBIO_P2_DEALT)}
    assert resolve(claims, ["p1", "p2"]) == "p1" and resolve(claims, ["p2", "p1"]) == "p1"   # A-K beats A-J
    mirror = {"p1": best_autowin(CAMBIO_P2_AFTER, None, CAMBIO_P2_DEALT),
              "p2": best_autowin(CAMBIO_P1_AFTER, None, CAMBIO_P1_DEALT)}
    assert resolve(mirror, ["p1", "p2"]) == "p2" and resolve(mirror, ["p2", "p1"]) == "p2"
