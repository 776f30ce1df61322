"""The hand as a state machine: every step and every refusal."""
import random

import pytest

from tableref.referee.cards import parse_cards
from tableref.referee.desmoche.hand import DesmocheHand
from tableref.referee.desmoche.seats import claim_order, next_player, play_order
from tableref.referee.desmoche.settings import desmoche_settings
from tableref.referee.errors import IllegalAction, RefereeError


def C(text):
    return parse_cards(text)


def S(cards):
    return sorted(str(c) for c in cards)


SEATS = ["a", "b", "c"]          # clockwise; dealer c; counter-clockwise play: b, a, c
HANDS = {
    "b": "4H 5H 9C 9D 2S 7S JC KD QC",
    "a": "6H 7H 9S 2C 5C QS 8D 10D AC",
    "c": "3H 3S 3C 8S 8C JD 4S 6D KS",
}
PASSES = {"b": "QC", "a": "AC", "c": "KS"}


def new_hand(stock="3D 9H 2H 10S 6S", rules=None, hands=HANDS, passes=PASSES, seats=SEATS, dealer="c", **kw):
    h = DesmocheHand(seats, dealer=dealer, rules=rules, **kw)
    h.deal({p: C(t) for p, t in hands.items()}, C(stock))
    for p in seats:
        if passes and p in passes:
            h.cambio(p, passes[p])
    return h


def test_seats_and_direction():
    s = desmoche_settings()
    assert next_player(SEATS, "c", s) == "b"
    assert play_order(SEATS, "c", s) == ["b", "a", "c"]
    assert play_order(SEATS, "c", desmoche_settings({"direction": "clockwise"})) == ["a", "b", "c"]
    assert claim_order(SEATS, "b", s) == ["a", "c", "b"]


def test_cambio_passes_to_the_right():
    h = new_hand()
    assert h.phase == "declare"
    # counter-clockwise: b -> a, a -> c, c -> b
    assert "QC" in S(h.hands["a"]) and "AC" in S(h.hands["c"]) and "KS" in S(h.hands["b"])
    assert all(len(h.hands[p]) == 9 for p in SEATS)
    assert S(h.dealt["a"]) == S(C(HANDS["a"]))


def test_cambio_clockwise():
    h = new_hand(rules={"direction": "clockwise"})
    assert "QC" in S(h.hands["c"]) and "AC" in S(h.hands["b"]) and "KS" in S(h.hands["a"])


def test_cambio_refusals():
    h = new_hand(passes=None)
    with pytest.raises(IllegalAction):
        h.cambio("a", "KS")            # not held
    h.cambio("a", "AC")
    with pytest.raises(IllegalAction, match="already"):
        h.cambio("a", "6H")
    with pytest.raises(IllegalAction):
        h.draw("b")                    # Cambio not finished


def test_deal_refuses_duplicates():
    h = DesmocheHand(SEATS, dealer="c")
    hands = {p: C(t) for p, t in HANDS.items()}
    hands["a"][0] = C("4H")[0]
    with pytest.raises(IllegalAction, match="twice"):
        h.deal(hands)


def test_wrong_deal_disqualifies_dealer():
    h = DesmocheHand(SEATS, dealer="c")
    hands = {p: C(t) for p, t in HANDS.items()}
    hands["a"] = hands["a"][:8]
    h.deal(hands, C("3D 9H 2H 10S 6S"))
    assert "c" in h.disqualified and "wrong number" in h.disqualified["c"]
    assert h.phase == "deal"
    h.correct_deal("a", C(HANDS["a"]))
    assert h.phase == "cambio"
    h.cambio("a", "AC")
    h.cambio("b", "QC")
    assert h.phase == "declare"
    # c is out: b passes to a, a passes to b (skipping c)
    assert "AC" in S(h.hands["b"]) and "QC" in S(h.hands["a"])
    h.end_declarations()
    assert h.turn == "b"


def test_first_player_is_right_of_dealer():
    h = new_hand()
    with pytest.raises(IllegalAction, match="b's turn"):
        h.draw("a")
    assert h.draw("b") == C("3D")[0]


def test_claims_in_priority_order_and_paying():
    h = new_hand()
    h.draw("b")                                     # 3D
    with pytest.raises(IllegalAction, match="drawn by b"):
        h.take("c", [["3H", "3S", "3D", "3C"]])
    h.decline("b")                                  # face up on the discard pile
    with pytest.raises(IllegalAction, match="a comes before c"):
        h.take("c", [["3H", "3S", "3D", "3C"]])
    h.decline("a")
    assert h.take("c", [["3H", "3S", "3D", "3C"]]) is False
    assert h.must_pay == "c"
    with pytest.raises(IllegalAction, match="must first pay"):
        h.draw("b")
    with pytest.raises(IllegalAction, match="on the table"):
        h.pay("c", "3S")
    h.pay("c", "6D")
    assert h.count("c") == 9
    assert h.offer.pending == ["b", "a"]
    h.decline("b")
    h.decline("a")
    # nobody used c's discard: play goes on to the right of c, i.e. b
    assert h.turn == "b" and h.offer is None
    h.draw("b")                                     # 9H
    h.take("b", [["9H", "9C", "9D"]])
    h.pay("b", "KS")
    h.decline("a"); h.decline("c")
    assert h.turn == "a"


def test_take_must_use_the_card_in_a_meld():
    h = new_hand()
    h.draw("b")
    with pytest.raises(IllegalAction, match="at once"):
        h.take("b", [["9C", "9D", "JC"]])
    with pytest.raises(IllegalAction, match="not a meld"):
        h.take("b", [["3D", "4H", "5H"]])
    h.decline("b")
    h.decline("a")
    with pytest.raises(IllegalAction, match="does not hold"):
        h.take("c", [["3H", "3S", "3D", "3C", ]] + [["8S", "8C", "8H"]])


def test_discarder_cannot_take_back():
    h = new_hand()
    h.draw("b"); h.decline("b"); h.decline("a")
    h.take("c", [["3H", "3S", "3D", "3C"]])
    h.pay("c", "6D")
    with pytest.raises(IllegalAction, match="cannot take it back"):
        h.take("c", [["3H", "3S", "3D", "3C"], ["6D", "6C", "6H"]])


def test_unused_drawn_card_passes_turn_to_the_right_of_the_drawer():
    h = new_hand(stock="KH 9H 2H")
    h.draw("b")                 # KH: nobody can use it
    h.decline("b"); h.decline("a"); h.decline("c")
    assert h.turn == "a"
    assert h.discards[-1] == C("KH")[0]


def test_stock_exhausted_no_winner_pot_carries():
    h = new_hand(stock="KH", stake=2, pot_carried=6)
    h.draw("b"); h.decline("b"); h.decline("a"); h.decline("c")
    assert h.phase == "over" and h.winner is None
    s = h.settle()
    assert s.pot_carried_out == 12 and s.net == {"a": -2, "b": -2, "c": -2}
    with pytest.raises(IllegalAction, match="over"):
        h.draw("a")


def test_cards_passed_in_the_cambio_are_gone():
    hands = {"b": "AS 2S 3S 5H 5D 5C 9C 10C JC", "a": "6H 7H 9S 2C 4C QS 8D 10D AC",
             "c": "3H 4H 3C 8S 8C JD 4D 6D KS"}
    h = new_hand(hands=hands, passes={"b": "JC", "a": "AC", "c": "KS"}, stock="4S 9H")
    h.draw("b")                                    # 4S
    with pytest.raises(IllegalAction, match="does not hold JC"):
        h.take("b", [["AS", "2S", "3S", "4S"], ["5H", "5C", "5D"], ["9C", "10C", "JC"]])
    assert h.take("b", [["AS", "2S", "3S", "4S"], ["5H", "5C", "5D"]]) is False
    h.pay("b", "KS")
    assert h.count("b") == 9




def test_play_until_the_stock_runs_out():
    hands = {"b": "AS 2S 3S 5H 5D 5C 9C 10C KD", "a": "6H 7H 9S 2C 4C QS 8D JC AC",
             "c": "3H 4H 3C 8S 8C JD 4D 6D KS"}
    h = new_hand(hands=hands, stock="4S 9H 2H", passes={"b": "KD", "a": "JC", "c": "KS"}, stake=1)
    # a passed JC to c, c passed KS to b, b passed KD to a
    assert S(h.hands["b"]) == S(C("AS 2S 3S 5H 5D 5C 9C 10C KS"))
    h.draw("b")                                   # 4S
    h.take("b", [["AS", "2S", "3S", "4S"], ["5H", "5C", "5D"]])
    h.pay("b", "KS")
    h.decline("a"); h.decline("c")
    h.draw("a")                                   # 9H: a cannot use it
    h.decline("a")
    h.decline("c")
    # b may use 9H? not with 9C 10C (suits differ) -> declines
    h.decline("b")
    assert h.turn == "c"
    h.draw("c")                                   # 2H
    h.decline("c"); h.decline("b"); h.decline("a")
    assert h.phase == "over" and h.winner is None  # stock exhausted


def test_win_and_settlement():
    hands = {"b": "AS 2S 3S 5H 5D 5C 9C 10C 7D", "a": "6H 7H 9S 2C 4C QS 8D JD AC",
             "c": "3H 4H 3C 8S 8C JC 4D 6D KS"}
    h = new_hand(hands=hands, stock="4S 9H 2H", passes={"b": "7D", "a": "JD", "c": "JC"}, stake=1)
    # b receives JC from c: AS 2S 3S 5H 5D 5C 9C 10C JC
    h.draw("b")                                   # 4S
    won = h.take("b", [["AS", "2S", "3S", "4S"], ["5H", "5C", "5D"], ["9C", "10C", "JC"]])
    assert won and h.phase == "over" and h.winner == "b"
    s = h.settle()
    assert sorted((x.bonus, x.payer) for x in s.bonuses) == [
        ("arriba_del_palo", "a"), ("arriba_del_palo", "c"), ("mico", "a"), ("mico", "c")]
    assert s.net == {"a": -3, "b": 3 - 1 + 4, "c": -3}


def test_automatic_win_declared_before_first_draw():
    hands = {"b": "AS 3C 4D 7H 8S 10D JS QH KD", "a": "6H 7C 9S 2C 4C QS 8D JD AC",
             "c": "2H 3D 4H 7S 8C 10H JC QD KH"}
    h = new_hand(hands=hands, stock="4S 9H 2D", passes={"b": "3C", "a": "AC", "c": "2H"}, stake=1)
    # after the Cambio b holds 2H instead of 3C (still a Peladilla: AS 2H ... no 3H)
    with pytest.raises(IllegalAction, match="no automatic win"):
        h.declare_autowin("a")
    assert h.declare_autowin("b") == "peladilla"
    # c passed 2H and received AC: AC 3D 4H 7S 8C 10H JC QD KH is a Peladilla too
    assert h.declare_autowin("c") == "peladilla"
    with pytest.raises(IllegalAction, match="automatic win was declared"):
        h.draw("b")
    h.end_declarations()
    # after the Cambio b has AS K Q J 10 8 7 4 2 and c has AC K Q J 10 8 7 4 3, but b is judged on the better of
    # its two hands, the dealt one (AS K Q J 10 8 7 4 3): a tie, which goes to b, nearest the dealer c
    assert h.winner == "b" and h.autowin == "peladilla"
    s = h.settle()
    assert s.net == {"a": -2, "b": 4, "c": -2}


def test_autowin_counts_before_the_cambio():
    hands = {"b": "8S 8H 8C 8D 2C 5D 9H JS KD", "a": "6H 7C 9S 2S 4C QS 3D JD AC",
             "c": "2H 3H 4H 7S 10C 10H JC QD KH"}
    h = new_hand(hands=hands, stock="4S 9D", passes={"b": "8D", "a": "AC", "c": "2H"})
    assert h.declare_autowin("b") == "cuatro_cuerpos"   # four 8s dealt, one passed away


def test_autowin_too_late_after_first_draw():
    h = new_hand()
    h.draw("b")
    with pytest.raises(IllegalAction, match="too late"):
        h.declare_autowin("a")


def test_forced_meld_puts_discard_on_a_run():
    # seed: A♥ 2♥ 3♥ on the table, 4♥ discarded -> goes on the run, the owner pays
    hands = {"b": "AH 2H 3H 9C 9D JS 5S 7C KD", "a": "6H 7H 9S 2C 4C QS 8D JD AC",
             "c": "3C 3S 4H 8S 8C JC 4D 6D KS"}
    h = new_hand(hands=hands, stock="3D 9H 5H 2D", passes={"b": "KD", "a": "AC", "c": "KS"}, rules={"forced_meld": True})
    h.draw("b")                                    # 3D: b declines, c uses it
    h.decline("b"); h.decline("a")
    h.take("c", [["3C", "3D", "3S"]])
    h.pay("c", "4H")                               # 4H extends nothing yet (b has no table)
    h.decline("b"); h.decline("a")
    h.draw("b")                                    # 9H
    h.take("b", [["9C", "9H", "9D"]])
    h.pay("b", "JS")
    h.decline("a"); h.decline("c")
    h.draw("a")                                    # 5H: a declines
    h.decline("a")
    h.decline("c")
    h.decline("b")
    h.draw("c")                                    # 2D: c declines; nobody's meld takes it
    h.decline("c")
    h.decline("b")
    h.decline("a")
    assert h.phase == "over"


def test_forced_meld_forces_the_owner_to_pay():
    hands = {"b": "AH 2H 3H 9C 9D JS 5S 7C KD", "a": "6H 7H 9S 2C 4C QS 8D JD AC",
             "c": "3C 3S 10H 8S 8C JC 4D 6D KS"}
    h = new_hand(hands=hands, stock="9H 4H 2D 5D", passes={"b": "KD", "a": "AC", "c": "KS"}, rules={"forced_meld": True})
    h.draw("b")                                    # 9H
    h.take("b", [["AH", "2H", "3H"], ["9C", "9H", "9D"]])
    h.pay("b", "JS")
    h.decline("a"); h.decline("c")
    h.draw("a")                                    # 4H extends b's A-2-3
    h.decline("a")                                 # discarded: c first, then b
    assert h.offer.pending == ["c", "b"]
    h.decline("c")
    assert h.must_pay == "b" and h.offer is None                       # forced onto b's run
    assert [str(c) for c in h.table["b"][0]] == ["AH", "2H", "3H", "4H"]
    h.pay("b", "5S")
    assert h.count("b") == 9


def test_forced_meld_earlier_player_may_claim_first():
    hands = {"b": "AH 2H 3H 9C 9D JS 5S 7C KD", "a": "6H 7H 9S 2C 4C QS 8D JD AC",
             "c": "3C 3S 4S 4D 8C JC 10D 6D KS"}
    h = new_hand(hands=hands, stock="9H 4H 2D 5D", passes={"b": "KD", "a": "AC", "c": "KS"}, rules={"forced_meld": True})
    h.draw("b")
    h.take("b", [["AH", "2H", "3H"], ["9C", "9H", "9D"]])
    h.pay("b", "JS")
    h.decline("a"); h.decline("c")
    h.draw("a")                                    # 4H would be forced onto b's A-2-3...
    h.decline("a")
    h.take("c", [["4H", "4S", "4D"]])              # ...but c comes first and claims it
    assert h.must_pay == "c" and len(h.table["b"][0]) == 3


def test_forced_meld_off_by_default():
    hands = {"b": "AH 2H 3H 9C 9D JS 5S 7C KD", "a": "6H 7H 9S 2C 4C QS 8D JD AC",
             "c": "3C 3S 10H 8S 8C JC 4D 6D KS"}
    h = new_hand(hands=hands, stock="9H 4H 2D 5D", passes={"b": "KD", "a": "AC", "c": "KS"})
    h.draw("b")
    h.take("b", [["AH", "2H", "3H"], ["9C", "9H", "9D"]])
    h.pay("b", "JS")
    h.decline("a"); h.decline("c")
    h.draw("a")
    h.decline("a"); h.decline("c")
    h.decline("b")                                 # b may let it go
    assert h.must_pay is None and h.turn == "c"


def _four_eights_and_10d_on_offer():
    """b has 8S 8H 8C 8D on the table and holds 9D; a's discard 10D is b's to claim."""
    hands = {"b": "8S 8H 8C 9D 2S 5C 7C KD QH", "a": "6H 7H 9S 2C 4C QS 3D JD AC",
             "c": "3C 3S 10H 4S 6C JC 4D 6D KS"}
    h = new_hand(hands=hands, stock="8D 10D", passes={"b": "KD", "a": "AC", "c": "KS"})
    h.draw("b")                                    # 8D
    h.take("b", [["8S", "8H", "8C", "8D"]])
    h.pay("b", "QH")
    h.decline("a"); h.decline("c")
    h.draw("a")                                    # 10D: a and c let it go
    h.decline("a"); h.decline("c")
    return h


def test_seed_desmoche_move_in_a_take():
    # seed: 8♠ 8♥ 8♣ 8♦ may give the 8♦ to a new 8♦ 9♦ 10♦ because 8♠ 8♥ 8♣ stays valid
    h = _four_eights_and_10d_on_offer()
    h.take("b", [["8S", "8H", "8C"], ["8D", "9D", "10D"]])
    assert h.must_pay == "b" and h.count("b") == 10


def test_desmoche_move_must_leave_melds_valid():
    h = _four_eights_and_10d_on_offer()
    with pytest.raises(IllegalAction, match="not a meld"):
        h.take("b", [["8S", "8H", "8C", "8D", "10D"]])
    with pytest.raises(IllegalAction, match="does not hold"):
        h.take("b", [["8S", "8H", "8C"], ["8D", "9D", "10D", "JD"]])
    h.take("b", [["8S", "8H", "8C"], ["8D", "9D", "10D"]])


def test_passing_seed_example():
    # 10♠ 10♥ 10♣ 10♦ and J♥ Q♥ K♥: nothing can be added (the 10♥ is their own)
    hands = {"b": "10S 10H 10C JH QH KH 2S 5C 7C", "a": "6H 7H 9S 2C 4C QS 3D JD AC",
             "c": "3C 3S 9H 4S 6C JC 4D 6D KS"}
    h = new_hand(hands=hands, stock="10D 8D AS 2D", passes={"b": "7C", "a": "AC", "c": "KS"})
    with pytest.raises(IllegalAction):
        h.pass_hand("a")    # not playing yet (declare stage)
    h.draw("b")                                    # 10D
    h.take("b", [["10S", "10H", "10C", "10D"], ["JH", "QH", "KH"]])
    with pytest.raises(IllegalAction, match="must first pay"):
        h.pass_hand("b")
    h.pay("b", "2S")
    h.decline("a"); h.decline("c")
    h.pass_hand("b")
    assert "b" in h.passed
    h.draw("a")                                    # 8D
    h.decline("a"); h.decline("c")
    assert h.turn == "c"                           # b is skipped


def test_cannot_pass_while_a_card_could_extend():
    h = new_hand()
    h.draw("b"); h.decline("b"); h.decline("a")
    h.take("c", [["3H", "3S", "3D", "3C"]])
    h.pay("c", "6D")
    h.decline("b"); h.decline("a")
    h.draw("b")
    h.take("b", [["9H", "9C", "9D"]])
    h.pay("b", "KS")
    with pytest.raises(IllegalAction, match="9S could still go"):
        h.pass_hand("b")


def test_card_into_hand_disqualifies():
    h = new_hand()
    h.draw("b")
    h.card_into_hand("b", "3D")
    assert "b" in h.disqualified and "into the hand" in h.disqualified["b"]
    with pytest.raises(IllegalAction, match="disqualified"):
        h.take("b", [["3D", "4D", "5D"]])


def test_strict_order_disqualify_in_play():
    h = new_hand(rules={"strict_order": "disqualify"})
    h.draw("b"); h.decline("b"); h.decline("a")
    h.take("c", [["3H", "3D", "3S", "3C"]])        # red red: not alternating
    assert "c" in h.disqualified and "wrong order" in h.disqualified["c"]


def test_strict_order_warn_in_play():
    h = new_hand()
    h.draw("b"); h.decline("b"); h.decline("a")
    h.take("c", [["3H", "3D", "3S", "3C"]])
    assert "c" not in h.disqualified and h.warnings and h.must_pay == "c"


def test_unknown_dealer_and_rules():
    with pytest.raises(RefereeError):
        DesmocheHand(SEATS, dealer="zz")
    with pytest.raises(RefereeError):
        DesmocheHand(SEATS, dealer="c", rules={"wild": True})
    with pytest.raises(RefereeError):
        DesmocheHand(["a"], dealer="a")


def test_random_deal_counts():
    h = DesmocheHand(["w", "x", "y", "z"], dealer="z")
    h.deal_random(random.Random(1))
    assert all(len(h.hands[p]) == 9 for p in h.players)
    assert len(h.stock) == 52 - 36


def test_desmoche_move_leaving_an_invalid_meld_is_refused():
    hands = {"b": "8S 8H 8C 9C 2S 5D 7D KD QH", "a": "6H 7H 9S 2C 4C QS 3D JD AC",
             "c": "3C 3S 10H 4S 6C JC 4D 6D KS"}
    h = new_hand(hands=hands, stock="8D 10C", passes={"b": "KD", "a": "AC", "c": "KS"})
    h.draw("b")                                    # 8D
    h.take("b", [["8S", "8D", "8C"]])              # keeps 8H in hand
    h.pay("b", "QH")
    h.decline("a"); h.decline("c")
    h.draw("a")                                    # 10C
    h.decline("a"); h.decline("c")
    with pytest.raises(IllegalAction, match="no longer a meld"):
        h.take("b", [["8S", "8D"], ["8C", "9C", "10C"]])
    h.take("b", [["8S", "8H", "8D"], ["8C", "9C", "10C"]])
    assert h.must_pay == "b"


def test_clockwise_claim_order():
    h = new_hand(rules={"direction": "clockwise"})
    assert h.turn is None and h.order == ["a", "b", "c"]
    h.draw("a")                                    # 3D
    h.decline("a")
    assert h.offer.pending == ["b", "c"]
    with pytest.raises(IllegalAction, match="b comes before c"):
        h.take("c", [["3H", "3S", "3D", "3C"]])


def test_draw_names_the_card_when_the_stock_order_is_unknown():
    h = DesmocheHand(SEATS, dealer="c")
    h.deal({p: C(t) for p, t in HANDS.items()})
    for p, c in PASSES.items():
        h.cambio(p, c)
    with pytest.raises(IllegalAction, match="name the card"):
        h.draw("b")
    with pytest.raises(IllegalAction, match="already in play"):
        h.draw("b", "4H")
    assert str(h.draw("b", "3D")) == "3D"


def test_draw_must_match_a_known_stock():
    h = new_hand()
    with pytest.raises(IllegalAction, match="top card of the stock is 3D"):
        h.draw("b", "9H")


def test_automatic_wins_off_refuses_declarations():
    hands = {"b": "AS 3C 4D 7H 8S 10D JS QH KD", "a": "6H 7C 9S 2C 4C QS 8D JD AC",
             "c": "2H 3D 4H 7S 8C 10H JC QD KH"}
    h = new_hand(hands=hands, stock="4S", passes={"b": "3C", "a": "AC", "c": "2H"},
                 rules={"automatic_wins": False})
    with pytest.raises(IllegalAction, match="not played at this table"):
        h.declare_autowin("b")


def test_disqualified_and_passed_players_are_skipped():
    h = new_hand(stock="KH 9H 2H 10S")
    h.disqualify("a", "looked through the discard pile")
    h.draw("b")                                    # KH
    h.decline("b")
    assert h.offer.pending == ["c"]                # a is out
    h.decline("c")
    assert h.turn == "c"                           # right of b is a, who is out
    with pytest.raises(IllegalAction, match="disqualified"):
        h.draw("a")


def test_jugar_todo_off_in_a_hand():
    hands = {"b": "AS 2S 3S 5H 5D 5C 9C 10C 7D", "a": "6H 7H 9S 2C 4C QS 8D JD AC",
             "c": "3H 4H 3C 8S 8C JC 4D 6D KS"}
    h = new_hand(hands=hands, stock="4S 9H", passes={"b": "7D", "a": "JD", "c": "JC"},
                 rules={"jugar_todo": False}, stake=2)
    h.draw("b")
    assert h.take("b", [["AS", "2S", "3S", "4S"], ["5H", "5C", "5D"], ["9C", "10C", "JC"]])
    s = h.settle()
    assert s.bonuses == [] and s.net == {"a": -2, "b": 4, "c": -2}


def test_only_player_left_wins_without_bonuses():
    h = DesmocheHand(["a", "b"], dealer="b")
    h.deal_random(random.Random(3))
    h.cambio("a", h.hands["a"][0]); h.cambio("b", h.hands["b"][0])
    h.draw("a")
    h.card_into_hand("a")
    assert h.phase == "over" and h.winner == "b"
    s = h.settle()
    assert s.bonuses == [] and s.net == {"a": -1, "b": 1}


def test_disqualified_drawer_card_goes_to_the_others():
    h = new_hand()
    h.draw("b")                                    # 3D
    h.card_into_hand("b", "3D")
    assert h.offer.pending == ["a", "c"] and not h.offer.drawer_stage
    h.decline("a")
    h.take("c", [["3H", "3S", "3D", "3C"]])
    h.pay("c", "6D")
    h.decline("a")
    assert h.turn == "a"                           # right of c is b, who is out


def test_disqualified_while_paying_passes_the_turn():
    h = new_hand()
    h.draw("b"); h.decline("b"); h.decline("a")
    h.take("c", [["3H", "3S", "3D", "3C"]])
    h.disqualify("c", "showed a wrong number of cards")
    assert h.must_pay is None and h.turn == "b"


def test_autowin_declared_before_the_cambio():
    hands = {"b": "8S 8H 8C 8D 2C 5D 9H JS KD", "a": "6H 7C 9S 2S 4C QS 3D JD AC",
             "c": "2H 3H 4H 7S 10C 10H JC QD KH"}
    h = new_hand(hands=hands, stock="4S 9D", passes=None)
    assert h.phase == "cambio"
    assert h.declare_autowin("b") == "cuatro_cuerpos"
    with pytest.raises(IllegalAction):
        h.end_declarations()                       # the Cambio is still going on
    h.cambio("b", "8D"); h.cambio("a", "AC"); h.cambio("c", "2H")
    h.end_declarations()
    assert h.winner == "b" and h.autowin == "cuatro_cuerpos"


def test_the_hand_judges_its_table_with_the_live_table_referee():
    """One model: a hand is the live session's TableReferee plus the cards a camera does not see; every change of
    the table it accepts is a view that referee judged (the same verdicts the live session gives)."""
    from tableref.referee.desmoche.table import TableReferee

    h = new_hand(rules={"strict_order": "warn"})
    assert isinstance(h, TableReferee) and h.history == []
    h.draw("b"); h.decline("b"); h.decline("a")
    h.take("c", [["3H", "3D", "3S", "3C"]])         # laid without alternating colours: a warning, not illegal
    verdict = h.history[-1]
    assert verdict.accepted and [c.change for c in verdict.changes] == ["added"]
    assert verdict.players["c"].melds[0].valid and not verdict.players["c"].melds[0].in_order
    live = TableReferee(SEATS, rules={"strict_order": "warn"}, dealer="c")
    assert live.observe({"c": [["3H", "3D", "3S", "3C"]]}).to_json() == verdict.to_json()
    assert h.warnings and "alternating" in h.warnings[0]


def test_a_declared_kind_must_be_shown_by_the_cards():
    hands = {"b": "AS 3C 4D 7H 8S 10D JS QH KD", "a": "6H 7C 9S 2C 4C QS 8D JD AC",
             "c": "2H 3D 4H 7S 8C 10H JC QD KH"}
    h = new_hand(hands=hands, stock="4S 9H 2D", passes={"b": "3C", "a": "AC", "c": "2H"})
    with pytest.raises(IllegalAction, match="shows no cuatro_cuerpos"):
        h.declare_autowin("b", "cuatro_cuerpos")
    assert h.declare_autowin("b", "peladilla") == "peladilla" and h.claims["b"][0] == "peladilla"
