"""Maal counting (RULES.md table, every switch) and the itemisation."""
import pytest

from tableref.referee.cards import parse_cards
from tableref.referee.marriage import analyse_hand, count_maal

T = "JC"  # poplu QC, jhiplu 10C, ordinary jokers JD JH JS, alter JS


def M(hand, exposed=(), seen=True, **rules):
    return count_maal(parse_cards(T)[0], parse_cards(hand) if hand else [],
                      [parse_cards(t) for t in exposed], seen=seen, rules=rules or None)


@pytest.mark.parametrize("hand,points", [
    ("", 0),
    ("2S 9D KH", 0),
    ("JD JH", 0),                 # ordinary jokers score nothing in hand
    ("QC", 2), ("QC QC", 5), ("QC QC QC", 10),
    ("10C", 2), ("10C 10C", 5), ("10C 10C 10C", 10),
    ("JC", 3), ("JC JC", 7),
    ("10C JC QC", 10),           # seed: a marriage is worth 10, not 2 + 3 + 2
    ("10C JC QC QC", 12),        # marriage + single poplu
    ("10C 10C JC JC QC QC", 30),  # two marriages
    ("10C JC QC QC QC", 15),     # marriage + double poplu (= triple 10 + 2 + 3)
    ("10C 10C 10C JC JC QC QC QC", 34),  # two marriages + single poplu + single jhiplu
    ("QC QC 10C", 7),            # a poplu and a jhiplu are not a double
])
def test_maal_table(hand, points):
    assert M(hand).points == points


def test_items_each_card_once():
    m = M("10C JC QC QC 3D")
    items = {(i.item, i.points) for i in m.items}
    assert items == {("marriage", 10), ("poplu", 2)}
    used = [str(c) for i in m.items for c in i.cards]
    assert sorted(used) == sorted(["10C", "JC", "QC", "QC"])


def test_tiplu_double_switch():
    assert M("JC JC", tiplu_double=8).points == 8
    assert M("JC JC").points == 7


@pytest.mark.parametrize("tunnela,points", [
    ("6H 6H 6H", 5),      # ordinary card
    ("JD JD JD", 10),     # ordinary jokers
    ("QC QC QC", 20),     # poplu
    ("10C 10C 10C", 20),  # jhiplu
])
def test_exposed_tunnelas(tunnela, points):
    assert M("", [tunnela]).points == points


def test_maal_tunnela_switch():
    assert M("", ["QC QC QC"], maal_tunnela=15).points == 15


def test_unexposed_tunnela_scores_as_cards_only():
    assert M("6H 6H 6H").points == 0
    assert M("QC QC QC").points == 10


def test_tunnela_needs_seen():
    assert M("", ["6H 6H 6H"], seen=False).points == 0
    assert M("", ["QC QC QC"], seen=False).points == 10  # the three poplus still count as cards


def test_highest_assignment_with_exposed_tunnela():
    # keep the poplu tunnela (20 + jhiplu double 5 + tiplu double 7) or break it for two marriages (30 + 2)
    assert M("10C 10C JC JC", ["QC QC QC"]).points == 32
    # with a 15-point maal tunnela breaking it is better
    m = M("10C 10C JC JC", ["QC QC QC"], maal_tunnela=15)
    assert m.points == 32 and m.items[0].item == "marriage" and m.items[0].points == 30


def test_alter_switch():
    assert M("JS JS JD").points == 0
    assert M("JS JS JD", alter=True).points == 10
    assert M("JH", alter=True).points == 0        # other colour: not the alter
    assert M("", ["JS JS JS"], alter=True).points == 15  # best: three alters (15) over the tunnela (10)


def test_tiplu_ace_wraps():
    m = count_maal(parse_cards("KH")[0], parse_cards("QH KH AH"))
    assert m.points == 10 and m.items[0].item == "marriage"
    m = count_maal(parse_cards("AH")[0], parse_cards("KH AH 2H"))
    assert m.points == 10


def test_hand_response_maal_and_seen_switches():
    cards = "10C JC QC 3S 4S 5S 6H 6H 6H 2D 2H JD 9S 10S JH QD KD JS 5H 5C 5S".split()
    a = analyse_hand(T, cards).to_json()
    assert a["maal"] == 10 and a["maal_items"] == [
        {"item": "marriage", "cards": ["10C", "JC", "QC"], "points": 10, "detail": "single"}]
    u = analyse_hand(T, cards, seen=False).to_json()
    assert u["maal"] == 0 and u["maal_items"] == [] and u["maal_counted"] == 10
    c = analyse_hand(T, cards, seen=False, rules={"unseen_maal": "count"}).to_json()
    assert c["maal"] == 10
    k = analyse_hand(T, cards, seen=False, rules={"unseen_maal": "kidnap"}).to_json()
    assert k["maal"] == 0 and k["maal_counted"] == 10


def test_hand_maal_counts_exposed_tunnela_once():
    rest = "3S 4S 5S 2D 2H JD 9S 10S JH QD KD JS 5H 5C 5S 10C JC QC".split()
    a = analyse_hand(T, rest, exposed_tunnelas=[["6H"] * 3]).to_json()
    b = analyse_hand(T, rest + ["6H"] * 3, exposed_tunnelas=[["6H"] * 3]).to_json()
    assert a["maal"] == b["maal"] == 15
    assert {"item": "tunnela", "cards": ["6H"] * 3, "points": 5,
            "detail": "exposed tunnela"} in a["maal_items"]
