"""Maal is counted on the final hand: a 22-card hand keeps 21 cards, the discard goes.

Seed (matrimonio.es.txt, "Puntuación"): maal is "any tiplu, poplu or jhiplu in the
player's final hand". A player who goes out with 22 cards discards the last card,
so the discard is not counted. Among the valid ways to go out tableref chooses the
discard that leaves the most maal; a hand that cannot go out discards the card that
costs least.
"""
import random
from collections import Counter

from hypothesis import given, settings, strategies as st

from tableref.referee.cards import SUITS, Card, parse_cards
from tableref.referee.marriage import Wild, analyse_hand, classify, count_maal
from tableref.referee.marriage.search import face_card
from tableref.rules_json.marriage import settle_request

# seven natural tunnelas: no two of a rank, no two of a suit within two ranks (no sequences, no triplets)
SEVEN_TUNNELAS = "2S 2S 2S 6S 6S 6S 10S 10S 10S 3H 3H 3H 7H 7H 7H 4D 4D 4D 8D 8D 8D".split()


def S(cards):
    return [str(c) for c in cards]


def test_forced_poplu_discard_is_not_counted():
    # the only way out is to discard the QC: the 21 kept cards hold no maal (22-card counting gave 2)
    hand = SEVEN_TUNNELAS + ["QC"]
    a = analyse_hand("JC", hand)
    assert a.can_finish and a.finish_by == "combinations"
    assert S(a.spare) == ["QC"]
    assert a.maal == 0 and a.maal_detail.items == []
    assert count_maal("JC", parse_cards(hand)).points == 2  # what the 22 cards would have counted
    out = a.to_json()
    assert out["discard"] == ["QC"] and out["maal"] == 0 and out["maal_items"] == []


def test_forced_tiplu_discard_with_exposed_tunnela():
    # exposed 6H tunnela (5 points for a seen player) + six tunnelas in hand + a tiplu: the tiplu goes
    hand = SEVEN_TUNNELAS[:18] + ["JC"]
    a = analyse_hand("JC", hand, exposed_tunnelas=[["6H"] * 3])
    assert a.can_finish and S(a.spare) == ["JC"]
    assert a.maal == 5 and [i.item for i in a.maal_detail.items] == ["tunnela"]
    assert count_maal("JC", parse_cards(hand), [parse_cards(["6H"] * 3)]).points == 8


def test_poplu_could_be_the_discard_but_is_not():
    # 6 tunnelas + 7D 8D 9D + QC: discarding the QC goes out (seven pure combinations), but so does
    # discarding a diamond with the QC standing in for it; the final hand keeps the poplu
    hand = SEVEN_TUNNELAS[:18] + ["7D", "8D", "9D", "QC"]
    assert analyse_hand("JC", SEVEN_TUNNELAS[:18] + ["7D", "8D", "9D"]).can_finish  # QC could go
    a = analyse_hand("JC", hand)
    assert a.can_finish and len(a.spare) == 1 and str(a.spare[0]) in ("7D", "8D", "9D")
    assert any(parse_cards(["QC"])[0] in m for m in a.melds)
    assert a.maal == 2 and a.to_json()["maal_items"] == [
        {"item": "poplu", "cards": ["QC"], "points": 2, "detail": "single"}]


def test_four_jokers_free_a_natural_discard():
    # 6 tunnelas + 10C 10C JC QC: a natural can go (two of its copies each take two jokers:
    # 10S-J-J twice), so every joker stays: marriage 10 + jhiplu 2
    hand = SEVEN_TUNNELAS[:18] + ["10C", "10C", "JC", "QC"]
    a = analyse_hand("JC", hand)
    assert a.can_finish and not Wild(parse_cards(["JC"])[0]).is_joker(a.spare[0])
    assert a.maal == 12


def test_eight_dublees_discard_keeps_the_most_maal():
    # 8 natural dublees + six single jokers: the discard is one of the six (a dublee card would leave 7);
    # an ordinary joker goes, the marriage stays
    hand = "2S 2S 5H 5H 8D 8D KC KC 4S 4S 7H 7H 10D 10D AC AC QC 10C JC JD JH JS".split()
    a = analyse_hand("JC", hand)
    assert a.can_finish and a.finish_by == "dublees"
    assert S(a.spare) == ["JD"]
    assert sorted(S(a.unmatched)) == sorted(["QC", "10C", "JC", "JH", "JS"])
    assert a.maal == 10
    # with the alter switch JS scores 5: it is kept too
    b = analyse_hand("JC", hand, rules={"alter": True})
    assert S(b.spare) == ["JD"] and b.maal == 15
    # 21 cards (after the discard): no discard, five unmatched cards
    c = analyse_hand("JC", hand[:-1])
    assert c.finish_by == "dublees" and c.spare == [] and len(c.unmatched) == 5


def test_dublee_finish_needs_a_card_to_discard():
    # two exposed tunnelas + exactly eight pairs in hand: any discard breaks a dublee
    hand = "2S 2S 5H 5H 8D 8D KC KC 4S 4S 7H 7H 10D 10D AC AC".split()
    a = analyse_hand("JC", hand, exposed_tunnelas=[["6C"] * 3, ["9H"] * 3])
    assert not a.can_finish and a.dublees == 8
    assert len(a.spare) == 1 and a.maal == 10  # the two exposed tunnelas, 5 each


def test_not_finishing_22_counts_the_best_21():
    hand = "6H 6H 6H 3S 4S 5S QD KD AD 2C 7C 9C 4D 8D 10H KH 2S 7S QC QC 10C JC".split()
    a = analyse_hand("JC", hand)
    assert a.can_see_joker and not a.can_finish
    assert len(a.spare) == 1 and not Wild(parse_cards(["JC"])[0]).is_joker(a.spare[0])
    shown = Counter(c for m in a.melds for c in m)
    assert shown[a.spare[0]] < Counter(parse_cards(hand))[a.spare[0]]  # not a card of a shown combination
    assert a.maal == 10 + 2  # marriage 10C-JC-QC + the other QC
    assert a.maal == count_maal("JC", parse_cards(hand)).points


def test_settle_counts_the_final_21():
    out = settle_request({"winner": "p1", "tiplu": "JC", "players": [
        {"name": "p1", "hand": SEVEN_TUNNELAS + ["QC"]}, {"name": "p2", "maal": 4}]})
    p1 = out["players"][0]
    assert p1["maal"] == 0 and p1["discard"] == ["QC"] and p1["maal_items"] == []
    # p2 pays T + 3 - 2*S = 4 + 3 - 8 = -1
    assert out["net"] == {"p1": -1, "p2": 1}
    # a 21-card hand is counted as it is, with no discard
    out = settle_request({"winner": "p1", "tiplu": "JC", "players": [
        {"name": "p1", "hand": SEVEN_TUNNELAS[:20] + ["QC"]}, {"name": "p2", "maal": 4}]})
    assert out["players"][0]["maal"] == 2 and "discard" not in out["players"][0]


def test_settle_refuses_a_claim_counted_on_22():
    import pytest
    from tableref.referee.errors import RefereeError
    with pytest.raises(RefereeError) as e:
        settle_request({"winner": "p1", "tiplu": "JC", "players": [
            {"name": "p1", "hand": SEVEN_TUNNELAS + ["QC"], "maal": 2}, {"name": "p2", "maal": 4}]})
    assert e.value.field == "players[0].maal" and "count 0" in e.value.message


# ------------------------------------------------------------------ against an oracle

def oracle(tiplu, hand, exposed=(), rules=None):
    """Best final 21 by trying every discard: the 21-card analysis of what is kept."""
    after = {}
    for c in set(hand):
        rest = list(hand)
        rest.remove(c)
        after[c] = analyse_hand(tiplu, rest, exposed, rules=rules)
    combos = {c: b.maal for c, b in after.items() if b.finish_by == "combinations"}
    if combos:
        return "combinations", combos
    dubs = {c: b.maal for c, b in after.items() if b.dublees >= 8}
    if dubs:
        return "dublees", dubs
    return None, {c: b.maal for c, b in after.items()}


@st.composite
def hand_22(draw):
    """Hands that finish, nearly finish, or must discard a joker: tunnelas, sequences, jokers."""
    rng = random.Random(draw(st.integers(0, 10 ** 9)))
    tiplu = Card(rng.randint(1, 13), rng.choice(SUITS))
    wild = Wild(tiplu)
    deck = Counter(face_card(i) for i in range(52) for _ in range(3))
    deck[tiplu] -= 1
    jokers = [c for c in deck.elements() if wild.is_joker(c)]
    naturals = [face_card(i) for i in range(52) if not wild.is_joker(face_card(i))]
    mode = rng.choice(["melds", "tunnelas", "dublees"])
    hand = Counter()
    if mode == "dublees":  # eight or nine pairs, jokers among them
        faces = rng.sample(sorted(set(deck.elements())), 9)
        for c in faces[:rng.randint(8, 9)]:
            if deck[c] >= 2:
                hand[c] = 2
        hand.update(rng.sample(jokers, rng.randint(0, 4)))
        hand = Counter({c: min(k, deck[c]) for c, k in hand.items()})
    else:  # "tunnelas": natural tunnelas and one to three jokers (the discard may have to be a joker)
        for _ in range(rng.randint(3, 7) if mode == "melds" else 12):
            if mode == "tunnelas" or rng.random() < 0.6:
                t = [rng.choice(naturals)] * 3
            else:
                s, r = rng.choice(SUITS), rng.randint(1, 11)
                t = [Card(r + i, s) for i in range(3)]
            if all(hand[c] + k <= deck[c] for c, k in Counter(t).items()) and sum(hand.values()) + 3 <= 21:
                hand.update(t)
        pool = list((Counter(jokers) - hand).elements())
        rng.shuffle(pool)
        hand.update(pool[:rng.randint(1, 8 if mode == "melds" else 3)])
    rest = list((deck - hand).elements())
    rng.shuffle(rest)
    cards = list(hand.elements())[:22]
    cards += rest[:22 - len(cards)]
    exposed = []
    if rng.random() < 0.3:
        tun = [c for c, k in Counter(cards).items() if k == 3]
        if tun:
            exposed = [[tun[0]] * 3]
    rules = {"alter": True} if rng.random() < 0.3 else None
    return tiplu, cards, exposed, rules


@settings(max_examples=60, deadline=None)
@given(hand_22())
def test_final_hand_matches_oracle(case):
    tiplu, cards, exposed, rules = case
    hand = list(cards)
    for t in exposed:
        for c in t:
            hand.remove(c)
    a = analyse_hand(tiplu, cards, exposed, rules=rules)
    route, maal_after = oracle(tiplu, hand, exposed, rules)
    assert a.finish_by == route
    assert len(a.spare) == 1 and a.spare[0] in maal_after
    assert a.maal == maal_after[a.spare[0]] == max(maal_after.values())
    if route == "combinations":
        wild = Wild(tiplu)
        assert len(a.melds) == 7 and all(classify(m, wild) for m in a.melds)
        used = Counter(c for m in a.melds for c in m) + Counter(a.spare)
        assert used == Counter(cards)
    # maal only scores jokers: a non-joker discard never costs maal
    full = count_maal(tiplu, hand, exposed, rules=rules).points
    assert all(m == full for c, m in maal_after.items() if not Wild(tiplu).is_joker(c))
