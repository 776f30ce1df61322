"""Hand analysis: seeing the joker, going out, the returned arrangement."""
import random
from collections import Counter
from itertools import combinations_with_replacement

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tableref.referee.cards import Card, SUITS, parse_card, parse_cards
from tableref.referee.errors import RefereeError
from tableref.referee.marriage import Wild, analyse_hand, classify
from tableref.referee.marriage.combos import natural_kind
from tableref.referee.marriage.search import face_card, find_finish, pack

JC = parse_card("JC")


def C(s):
    return parse_cards(s)


def check_arrangement(a, tiplu, cards, exposed=()):
    """Independent check that a finishing arrangement is legal and uses exactly the cards."""
    wild = Wild(parse_card(tiplu))
    used = Counter()
    for m in a.melds:
        used.update(m)
    used.update(a.spare)
    used.update(a.unmatched)
    given = Counter(C(" ".join(cards)) if isinstance(cards, list) else C(cards))
    for t in exposed:
        given.update(C(" ".join(t)))
    if sum(given.values()) in (21, 22) and len(exposed) and sum(given.values()) - 3 * len(exposed) not in (21, 22):
        pass
    assert used == given or used == Counter(C(" ".join(cards)) if isinstance(cards, list) else C(cards))
    if a.finish_by == "combinations":
        assert len(a.melds) == 7
        kinds = [classify(m, wild) for m in a.melds]
        assert all(kinds), (a.melds, kinds)
        assert sum(natural_kind(m) in ("tunnela", "pure_sequence") for m in a.melds) >= 3
        assert len(a.spare) == sum(given.values()) - 21
    elif a.finish_by == "dublees":
        assert len(a.melds) == 8 and all(len(m) == 2 and m[0] == m[1] for m in a.melds)
        assert len({m[0] for m in a.melds}) == 8


# ------------------------------------------------------------------ seeing the joker

def test_three_pure_sees_joker_not_finish():
    h = "6H 6H 6H 3S 4S 5S QD KD AD 2C 7C 9C 4D 8D 10H KH 2S 7S 9S 5C 6C"
    a = analyse_hand("JC", h.split())
    assert a.can_see_joker and a.see_joker_by == "combinations" and not a.can_finish
    assert [classify(m) for m in a.melds] == ["tunnela", "pure_sequence", "pure_sequence"]


def test_dirty_combinations_do_not_see_joker():
    # jokers help nothing before the joker is seen: 6D-QC-8D is not pure
    h = "6D QC 8D 3S 4S 5S 9H 9H 9H 2C 3C 4C 4D 8H 10H KH 2S 7S 9S AS 6C"
    assert analyse_hand("JC", h.split()).can_see_joker
    h2 = "6D QC 8D 3S 4S 5S 9H 9H 9H 2C 7C 4C 4D 8H 10H KH 2S 7S 9S AS 6C"
    assert not analyse_hand("JC", h2.split()).can_see_joker


def test_triplet_is_not_pure():
    h = "KS KC KH 3S 4S 5S 9H 9H 2H 2C 7C 4C 4D 8H 10H KH 2S 7S 9S AD 6D"
    a = analyse_hand("JC", h.split())
    assert not a.can_see_joker


def test_seven_dublees_see_the_joker():
    h = "2C 2C 5D 5D 7H 7H 9S 9S QC QC KD KD AH AH 3S 6D 8H 10S JD 4C 6S"
    a = analyse_hand("JC", h.split())
    assert a.can_see_joker and a.see_joker_by == "dublees" and a.dublees == 7 and not a.can_finish
    assert a.meld_kinds == ["dublee"] * 7


def test_dublees_jokers_not_wild_and_triple_counts_once():
    # three QC (poplu) make one dublee, a joker never completes one
    h = "QC QC QC 5D 5D 7H 7H 9S 9S 2C 2C KD KD 3S 6D 8H 10S JD 4C 6S AH"
    a = analyse_hand("JC", h.split())
    assert a.dublees == 6 and not a.can_see_joker


def test_dublee_min_players():
    h = "2C 2C 5D 5D 7H 7H 9S 9S QC QC KD KD AH AH 3S 3S 8H 10S JD 4C 6S"
    assert analyse_hand("JC", h.split()).can_finish
    a = analyse_hand("JC", h.split(), players=3, rules={"dublee_min_players": 4})
    assert not a.can_finish and not a.can_see_joker and a.dublees == 8
    assert analyse_hand("JC", h.split(), players=4, rules={"dublee_min_players": 4}).finish_by == "dublees"


# ------------------------------------------------------------------ going out

FINISH_21 = "10C JC QC 3S 4S 5S 6H 6H 6H 2D 2H JD 9S 10S JH QD KD JS 5H 5C 5S"


def test_finish_seven_combinations_laid_down():
    a = analyse_hand("JC", FINISH_21.split())
    assert a.can_finish and a.finish_by == "combinations" and a.spare == []
    check_arrangement(a, "JC", FINISH_21.split())


def test_finish_with_discard():
    cards = FINISH_21.split() + ["7D"]
    a = analyse_hand("JC", cards)
    assert a.can_finish and len(a.spare) == 1
    assert not Wild(JC).is_joker(a.spare[0])  # a joker is kept when another card can go
    check_arrangement(a, "JC", cards)


def test_needs_three_pure_even_with_jokers():
    # seven combinations but only two pure ones: cannot go out
    h = "3S 4S 5S 6H 7H 8H 2D 2H JD 9S 10S QC QD KD JH 5H 5C JS 8C 8D QH"
    a = analyse_hand("JC", h.split())
    assert not a.can_finish


def test_marriage_counts_as_pure():
    h = "10C JC QC 3S 4S 5S 6H 7H 8H 2D 2H JD 9S 10S QD KD JH 5H 5C JS 8C"
    a = analyse_hand("JC", h.split())
    assert a.can_see_joker and a.can_finish
    check_arrangement(a, "JC", h.split())


def test_two_identical_plus_joker_not_used():
    # the only way to place 5D 5D would be with a joker: not allowed
    h = "3S 4S 5S 6H 6H 6H 7C 8C 9C 5D 5D JD 2H 3H 4H KS KH KD 9D 10D JS"
    a = analyse_hand("JC", h.split())
    assert not a.can_finish
    ok = "3S 4S 5S 6H 6H 6H 7C 8C 9C 5D 5H JD 2H 3H 4H KS KH KD 9D 10D JS"
    assert analyse_hand("JC", ok.split()).can_finish


def test_k_a_2_never():
    h = "3S 4S 5S 6H 6H 6H 7C 8C 9C KD AD 2D 2H 3H 4H KS KH KC 9D 10D JS"
    assert not analyse_hand("JC", h.split()).can_finish
    h2 = "3S 4S 5S 6H 6H 6H 7C 8C 9C QD KD AD 2H 3H 4H KS KH KC 9D 10D JS"
    assert analyse_hand("JC", h2.split()).can_finish


def test_eight_dublees_finish():
    h = "2C 2C 5D 5D 7H 7H 9S 9S QC QC KD KD AH AH 3S 3S 8H 10S JD 4C 6S 6S"
    a = analyse_hand("JC", h.split())
    assert a.can_finish and a.finish_by == "dublees"
    check_arrangement(a, "JC", h.split())
    # one discard (it must leave eight dublees), five unmatched cards kept
    assert len(a.spare) == 1 and len(a.unmatched) == 5
    assert str(a.spare[0]) in "8H 10S JD 4C".split() and str(a.spare[0]) != "JD"


def test_all_jokers_hand():
    # 18 wild cards exist; with JC tiplu a hand of many jokers still needs three pure combinations
    h = "JD JD JD JH JH JH JS JS JS QC QC QC 10C 10C 10C JC JC 2S 3S 4S 5H 9D"
    a = analyse_hand("JC", h.split())
    assert a.can_finish
    check_arrangement(a, "JC", h.split())


# ------------------------------------------------------------------ exposed tunnelas

def test_exposed_tunnela_counts_as_pure_and_meld():
    rest = "3S 4S 5S 2D 2H JD 9S 10S QD KD 5H 5C 5S AH AH AH 10C JC"  # 18 cards
    a = analyse_hand("JC", rest.split(), exposed_tunnelas=[["6H", "6H", "6H"]])
    b = analyse_hand("JC", rest.split() + ["6H"] * 3, exposed_tunnelas=[["6H", "6H", "6H"]])
    assert a.can_finish and b.can_finish
    assert [str(c) for c in a.melds[0]] == ["6H"] * 3
    check_arrangement(a, "JC", rest.split(), [["6H", "6H", "6H"]])


def test_exposed_tunnela_is_fixed():
    # the exposed 6H 6H 6H cannot be broken up to make 4H 5H 6H
    rest = "4H 5H 3S 4S 5S 9D 9D 9D 2C 3C 4C KS KH KD 8C 8C 8C 7D"
    assert not analyse_hand("JC", rest.split(), exposed_tunnelas=[["6H"] * 3]).can_finish


def test_exposed_tunnela_counts_toward_seeing():
    rest = "3S 4S 5S 7H 8H 9H 2D 4C 6C 8D 10D KC AC 2S 7S 9S QH KH"
    assert analyse_hand("JC", rest.split(), exposed_tunnelas=[["6D"] * 3]).can_see_joker
    assert not analyse_hand("JC", rest.split() + ["6D", "10S", "QS"]).can_see_joker


def test_exposed_tunnela_errors():
    with pytest.raises(RefereeError) as e:
        analyse_hand("JC", FINISH_21.split()[:18], exposed_tunnelas=[["6H", "6H", "5H"]])
    assert e.value.field == "exposed_tunnelas[0]"
    with pytest.raises(RefereeError) as e:
        analyse_hand("JC", FINISH_21.split(), exposed_tunnelas=[["7D"] * 3])
    assert e.value.field == "cards"


# ------------------------------------------------------------------ bad input

@pytest.mark.parametrize("cards,field", [
    (FINISH_21.split()[:20], "cards"),
    (FINISH_21.split() + ["2C", "3C"], "cards"),
    (FINISH_21.split()[:20] + ["XX"], "cards[20]"),
    (FINISH_21.split()[:17] + ["AH"] * 4, "cards"),   # four AH
    (FINISH_21.split()[:18] + ["JC", "JC", "JC"], "cards"),          # one tiplu is under the stock
])
def test_bad_hands(cards, field):
    with pytest.raises(RefereeError) as e:
        analyse_hand("JC", cards)
    assert e.value.field == field


def test_bad_tiplu():
    with pytest.raises(RefereeError) as e:
        analyse_hand("1X", FINISH_21.split())
    assert e.value.field == "tiplu"


# ------------------------------------------------------------------ independent oracle

def oracle_finish(cards, tiplu, n_combos, n_pure, n_discard):
    """Plain exact cover over every valid 3-card multiset (uses classify only)."""
    wild = Wild(tiplu)
    faces = sorted(set(cards), key=lambda c: (c.suit, c.rank))
    triples = []
    for t in combinations_with_replacement(faces, 3):
        kind = classify(list(t), wild)
        if kind:
            triples.append((Counter(t), natural_kind(list(t)) in ("tunnela", "pure_sequence")))
    memo = {}

    def rec(cnt, c, p, d):
        key = (tuple(sorted(cnt.items(), key=lambda kv: (kv[0].suit, kv[0].rank))), c, p, d)
        if key in memo:
            return memo[key]
        if sum(cnt.values()) == 0:
            return p <= 0
        low = min((k for k, v in cnt.items() if v), key=lambda c_: (c_.suit, c_.rank))
        ok = False
        if d > 0:
            n2 = cnt.copy(); n2[low] -= 1; n2 = +n2
            ok = rec(n2, c, p, d - 1)
        if not ok and c > 0:
            for t, pure in triples:
                if t[low] and all(cnt[k] >= v for k, v in t.items()):
                    if rec(+(cnt - t), c - 1, p - pure, d):
                        ok = True
                        break
        memo[key] = ok
        return ok

    return rec(Counter(cards), n_combos, n_pure, n_discard)


@st.composite
def small_hand(draw):
    tiplu = Card(draw(st.integers(1, 13)), draw(st.sampled_from(SUITS)))
    n_combos = draw(st.integers(1, 3))
    n_discard = draw(st.integers(0, 1))
    n_pure = draw(st.integers(0, n_combos))
    w = Wild(tiplu)
    # bias toward useful cards: a few suits/ranks and jokers
    suit = draw(st.sampled_from(SUITS))
    pool = [Card(r, suit) for r in range(1, 14)] + [Card(tiplu.rank, s) for s in SUITS] + [w.poplu, w.jhiplu] \
        + [Card(r, s) for r in (tiplu.rank % 13 + 1, 5) for s in SUITS]
    cards = draw(st.lists(st.sampled_from(pool), min_size=3 * n_combos + n_discard,
                          max_size=3 * n_combos + n_discard))
    cnt = Counter(cards)
    if any(v > 3 for v in cnt.values()) or cnt[tiplu] > 2:
        cards = [c for c in cards]  # still a valid search input; the counts fit in 2 bits when <= 3
        if any(v > 3 for v in cnt.values()):
            from hypothesis import assume
            assume(False)
    return tiplu, cards, n_combos, n_pure, n_discard


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(small_hand())
def test_search_matches_oracle(case):
    tiplu, cards, n_combos, n_pure, n_discard = case
    got = find_finish(pack(Counter(cards)), tiplu, n_combos, n_pure, n_discard)
    assert (got is not None) == oracle_finish(cards, tiplu, n_combos, n_pure, n_discard)


def random_hand(rng, n=22):
    tiplu = Card(rng.randint(1, 13), rng.choice(SUITS))
    deck = [face_card(i) for i in range(52)] * 3
    deck.remove(tiplu)
    return tiplu, rng.sample(deck, n)


def built_finishing_hand(rng):
    """A hand built from 3 pure + 4 random valid combinations + a discard."""
    tiplu = Card(rng.randint(1, 13), rng.choice(SUITS))
    wild = Wild(tiplu)
    deck = [face_card(i) for i in range(52)] * 3
    deck.remove(tiplu)
    while True:
        cnt = Counter(deck)
        hand = []
        tries = 0
        while len(hand) < 21 and tries < 5000:
            tries += 1
            t = rng.sample(deck, 3) if len(hand) >= 9 else None
            if t is None:
                s = rng.choice(SUITS); r = rng.randint(1, 12)
                t = [Card(r, s), Card(r + 1, s), Card(r + 2 if r < 12 else 1, s)] if rng.random() < .8 else [Card(r, s)] * 3
                ok = natural_kind(t) in ("tunnela", "pure_sequence")
            else:
                ok = classify(t, wild) is not None
            c2 = Counter(hand) + Counter(t)
            if ok and all(c2[k] <= cnt[k] for k in c2):
                hand += t
        if len(hand) == 21:
            rest = cnt - Counter(hand)
            hand.append(rng.choice(list(rest.elements())))
            return tiplu, hand


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10 ** 9))
def test_built_hands_finish_and_order_does_not_matter(seed):
    rng = random.Random(seed)
    tiplu, hand = built_finishing_hand(rng)
    a = analyse_hand(tiplu, hand)
    assert a.can_finish and a.can_see_joker
    check_arrangement(a, str(tiplu), [str(c) for c in hand])
    shuffled = hand[:]
    rng.shuffle(shuffled)
    b = analyse_hand(tiplu, shuffled)
    assert (b.can_finish, b.can_see_joker, b.maal, b.dublees) == (a.can_finish, a.can_see_joker, a.maal, a.dublees)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10 ** 9))
def test_random_hands_consistent(seed):
    rng = random.Random(seed)
    tiplu, hand = random_hand(rng, rng.choice([21, 22]))
    a = analyse_hand(tiplu, hand)
    if a.can_finish:
        check_arrangement(a, str(tiplu), [str(c) for c in hand])
    b = analyse_hand(tiplu, list(reversed(hand)))
    assert a.to_json()["can_finish"] == b.to_json()["can_finish"]
    assert a.to_json()["maal_items"] == b.to_json()["maal_items"]
    assert (a.can_see_joker, a.can_finish) == (b.can_see_joker, b.can_finish)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10 ** 9))
def test_search_matches_oracle_larger_hands(seed):
    """4-5 combinations from two suits around a few ranks plus the jokers: dense, tricky hands."""
    rng = random.Random(seed)
    tiplu = Card(rng.randint(1, 13), rng.choice(SUITS))
    w = Wild(tiplu)
    n_combos, n_discard, n_pure = rng.randint(4, 5), rng.randint(0, 1), rng.randint(0, 3)
    suits = rng.sample(SUITS, 2)
    lo = rng.randint(1, 8)
    faces = {Card(r, s) for s in suits for r in range(lo, min(lo + 6, 14))} | {Card(tiplu.rank, s) for s in SUITS} \
        | {w.poplu, w.jhiplu} | {Card(lo + 2, s) for s in SUITS}
    deck = [c for c in sorted(faces) for _ in range(3)]
    deck.remove(tiplu)
    cards = rng.sample(deck, 3 * n_combos + n_discard)
    got = find_finish(pack(Counter(cards)), tiplu, n_combos, n_pure, n_discard)
    assert (got is not None) == oracle_finish(cards, tiplu, n_combos, n_pure, n_discard)
