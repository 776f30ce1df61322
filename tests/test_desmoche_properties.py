"""Property tests: zero-sum settlements, order independence, re-parsing, random full hands."""
import itertools
import random

from hypothesis import given, settings as hsettings, strategies as st

from tableref.referee.cards import Card, full_pack, parse_cards
from tableref.referee.desmoche.autowin import autowins, resolve
from tableref.referee.desmoche.hand import DesmocheHand
from tableref.referee.desmoche.melds import alternate_colours, check_meld, check_table, meld_kind
from tableref.referee.desmoche.settings import desmoche_settings
from tableref.referee.desmoche.settle import SideGame, settle_hand
from tableref.referee.desmoche.side_games import GAMES, side_games_of

PACK = full_pack()
hands9 = st.lists(st.sampled_from(PACK), min_size=9, max_size=9, unique=True)
rules = st.fixed_dictionaries({
    "direction": st.sampled_from(["counter_clockwise", "clockwise"]),
    "strict_order": st.sampled_from(["warn", "disqualify", "off"]),
    "color_autowin": st.sampled_from(["same_colour", "same_suit", "off"]),
    "jugar_todo": st.booleans(),
    "escalera_a23_high": st.booleans(),
    "forced_meld": st.booleans(),
})


@st.composite
def valid_melds(draw):
    if draw(st.booleans()):
        suit = draw(st.sampled_from("CDHS"))
        n = draw(st.integers(3, 10))
        start = draw(st.integers(1, 14 - n))
        return [Card(r, suit) for r in range(start, start + n)]
    rank = draw(st.integers(1, 13))
    suits = draw(st.lists(st.sampled_from("CDHS"), min_size=3, max_size=4, unique=True))
    return alternate_colours([Card(rank, s) for s in suits])


@given(valid_melds(), st.sampled_from(["canonical", "symbols", "ten_as_T", "lower"]))
def test_valid_meld_survives_printing_and_parsing(meld, style):
    text = [str(c) for c in meld]
    if style == "symbols":
        text = [t[:-1] + {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}[t[-1]] for t in text]
    elif style == "ten_as_T":
        text = [t.replace("10", "T") for t in text]
    elif style == "lower":
        text = [t.lower() for t in text]
    again = parse_cards(text)
    assert again == meld
    v = check_meld(again)
    assert v.valid and v.in_order and v.kind == meld_kind(meld)
    assert [str(c) for c in v.cards] == [str(c) for c in meld]


@given(valid_melds(), st.randoms(use_true_random=False))
def test_meld_kind_does_not_depend_on_laying_order(meld, rnd):
    shuffled = list(meld)
    rnd.shuffle(shuffled)
    off = desmoche_settings({"strict_order": "off"})
    assert check_meld(shuffled, off).valid and check_meld(shuffled, off).kind == check_meld(meld).kind
    assert check_meld(shuffled).valid   # warn: still counts


@given(hands9, st.randoms(use_true_random=False), rules)
def test_hand_results_do_not_depend_on_card_order(hand, rnd, r):
    s = desmoche_settings(r)
    shuffled = list(hand)
    rnd.shuffle(shuffled)
    assert autowins(hand, s) == autowins(shuffled, s)
    assert side_games_of(hand, s) == side_games_of(shuffled, s)


@given(st.lists(valid_melds(), min_size=1, max_size=3), st.randoms(use_true_random=False))
def test_table_verdict_does_not_depend_on_meld_order(melds, rnd):
    flat = [c for m in melds for c in m]
    if len(set(flat)) != len(flat):
        return
    other = list(melds)
    rnd.shuffle(other)
    a, b = check_table(melds), check_table(other)
    assert (a.valid, a.complete, a.cards) == (b.valid, b.complete, b.cards)


@st.composite
def settlements(draw):
    n = draw(st.integers(2, 4))
    seats = [f"p{i}" for i in range(n)]
    r = draw(rules)
    stake = draw(st.integers(0, 20))
    pot = draw(st.integers(0, 100))
    deck = list(PACK)
    draw(st.randoms(use_true_random=False)).shuffle(deck)
    dealt = {p: deck[9 * i: 9 * i + 9] for i, p in enumerate(seats)}
    kind = draw(st.sampled_from(["none", "table", "autowin"]))
    winner = draw(st.sampled_from(seats)) if kind != "none" else None
    melds = {}
    if kind == "table":
        melds[winner] = [[Card(r_, "S") for r_ in range(1, 5)], [Card(9, s) for s in "SHC"],
                         [Card(r_, "D") for r_ in range(11, 14)]] if draw(st.booleans()) else \
            [[Card(r_, "H") for r_ in range(1, 11)]]
        for p in seats:
            if p != winner and draw(st.booleans()):
                melds[p] = [[Card(5, s) for s in ("C", "D", "H")]][:1] if p == seats[0] or winner == seats[0] else []
    autowin = draw(st.sampled_from(["peladilla", "cuatro_cuerpos", "color"])) if kind == "autowin" else None
    games = draw(st.lists(st.sampled_from(GAMES), max_size=4))
    side = [SideGame(g, draw(st.lists(st.sampled_from(seats), min_size=1, unique=True)), draw(st.integers(0, 5)))
            for g in games]
    disq = [p for p in seats if p != winner and draw(st.integers(0, 5)) == 0]
    return dict(seats=seats, winner=winner, stake=stake, pot_carried=pot, melds=melds, autowin=autowin,
                side_games=side, dealt=dealt, dealer=draw(st.sampled_from(seats)), disqualified=disq,
                settings=desmoche_settings({**r, "strict_order": "off"}))


@given(settlements())
def test_settlement_sums_to_zero(args):
    seats = args.pop("seats")
    s = settle_hand(seats, **args)
    assert sum(s.net.values()) + s.pot_carried_out - s.pot_carried_in == 0
    if s.pot_carried_in == 0 and s.winner is not None:
        assert sum(s.net.values()) == 0
    js = s.to_json()
    assert set(js["net"]) == set(seats)
    for b in s.bonuses:
        assert b.payer != s.winner and b.payer not in args["disqualified"]


@given(st.dictionaries(st.sampled_from(["a", "b", "c", "d"]),
                       st.tuples(st.sampled_from(["peladilla", "cuatro_cuerpos", "color"]), hands9),
                       min_size=1), st.permutations(["a", "b", "c", "d"]))
def test_autowin_resolution_picks_a_claimant(claims, order):
    assert resolve(claims, order) in claims


# -- random full hands played by a simple bot ------------------------------------
def _find_meld(hand, card):
    for k in (2, 3):
        for combo in itertools.combinations(hand, k):
            m = [card, *combo]
            kind = meld_kind(m)
            if kind == "run":
                return sorted(m, key=lambda c: c.rank)
            if kind == "set":
                return alternate_colours(m)
    return None


def _bot_hand(seed, r):
    rng = random.Random(seed)
    seats = ["a", "b", "c", "d"][:rng.choice([2, 3, 4])]
    h = DesmocheHand(seats, dealer=rng.choice(seats), rules=r, stake=rng.randint(1, 3))
    h.deal_random(rng)
    for p in seats:
        h.cambio(p, rng.choice(h.hands[p]))
    for p in seats:
        try:
            h.declare_autowin(p)
        except Exception:
            pass
    h.end_declarations()
    for _ in range(2000):
        if h.phase != "play":
            break
        if h.must_pay:
            h.pay(h.must_pay, rng.choice(h.hands[h.must_pay]))
            continue
        if h.offer is None:
            h.draw(h.turn)
            continue
        off = h.offer
        who = off.owner if off.drawer_stage else off.pending[0]
        new = None
        for i, m in enumerate(h.table[who]):
            if meld_kind(list(m) + [off.card]):
                new = [list(x) for x in h.table[who]]
                new[i] = (sorted(new[i] + [off.card], key=lambda c: c.rank) if meld_kind(m) == "run"
                          else alternate_colours(new[i] + [off.card]))
                break
        if new is None:
            m = _find_meld(h.hands[who], off.card)
            if m:
                new = [list(x) for x in h.table[who]] + [m]
        if new is not None and rng.random() < 0.9:
            h.take(who, new)
        else:
            h.decline(who)
    return h


@hsettings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), rules)
def test_random_hands_keep_nine_cards_and_settle_to_zero(seed, r):
    r = {**r, "strict_order": "warn"}
    h = _bot_hand(seed, r)
    assert h.phase == "over"
    for p in h.players:
        if p in h.disqualified:
            continue
        if p == h.winner and h.autowin is None:
            assert h.count(p) == 10 and check_table(h.table[p]).complete
        else:
            assert h.count(p) == 9
    everything = [c for p in h.players for c in h.hands[p]] + [c for ms in h.table.values() for m in ms for c in m]
    assert len(set(everything)) == len(everything)
    s = h.settle()
    assert sum(s.net.values()) + s.pot_carried_out - s.pot_carried_in == 0


# -- random actions: an illegal action changes nothing, the card counts always hold ---------------
def _fingerprint(h):
    return repr((h.phase, {p: sorted(map(str, v)) for p, v in h.hands.items()},
                 {p: [list(map(str, m)) for m in v] for p, v in h.table.items()},
                 list(map(str, h.stock)), list(map(str, h.discards)), h.turn, h.must_pay,
                 (str(h.offer.card), list(h.offer.pending), h.offer.drawer_stage, h.offer.owner) if h.offer else None,
                 sorted(h.passed), sorted(h.disqualified), h.winner, sorted(h.passes), sorted(h.claims)))


def _random_table(h, p, rng):
    cards = list(h.hands[p]) + [c for m in h.table[p] for c in m] + ([h.offer.card] if h.offer else [])
    rng.shuffle(cards)
    melds, i = [], 0
    while i < len(cards) and rng.random() < 0.8:
        k = rng.randint(1, 4)
        melds.append(cards[i:i + k])
        i += k
    return melds


@hsettings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), rules)
def test_illegal_actions_change_nothing(seed, r):
    from tableref.referee.errors import IllegalAction, RefereeError
    rng = random.Random(seed)
    seats = ["a", "b", "c", "d"][:rng.choice([2, 3, 4])]
    h = DesmocheHand(seats, dealer=rng.choice(seats), rules=r)
    h.deal_random(rng)
    for _ in range(250):
        if h.phase == "over":
            break
        p = rng.choice(seats)
        act = rng.choice(["cambio", "declare", "end", "draw", "take", "pay", "decline", "pass"])
        before = _fingerprint(h)
        try:
            if act == "cambio":
                h.cambio(p, rng.choice(h.hands[p] or PACK))
            elif act == "declare":
                h.declare_autowin(p)
            elif act == "end":
                h.end_declarations()
            elif act == "draw":
                h.draw(p)
            elif act == "take":
                h.take(p, _random_table(h, p, rng))
            elif act == "pay":
                h.pay(p, rng.choice(h.hands[p] + [PACK[5]]))
            elif act == "decline":
                h.decline(p)
            else:
                h.pass_hand(p)
        except RefereeError as exc:
            assert isinstance(exc, IllegalAction) or act == "take"
            assert exc.message and _fingerprint(h) == before
        if h.phase in ("declare", "play", "over"):
            for q in seats:
                if q in h.disqualified:
                    continue
                expected = 10 if q == h.must_pay or (q == h.winner and h.autowin is None) else 9
                assert h.count(q) == expected
        every = ([c for q in seats for c in h.hands[q]] + [c for q in seats for m in h.table[q] for c in m]
                 + h.stock + h.discards)
        assert len(every) == len(set(every))
