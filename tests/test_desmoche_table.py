"""The snapshot referee the camera session calls (referee.desmoche.table)."""
import pytest

from tableref.referee.desmoche.settle import SideGame
from tableref.referee.desmoche.table import TableReferee
from tableref.referee.errors import RefereeError

SEATS = ["ana", "ben", "cruz"]


def ref(**kw):
    return TableReferee(SEATS, dealer="cruz", **kw)


def illegal(v):
    return sorted(c.change for c in v.illegal)


def test_verdicts_per_meld_and_player():
    r = ref()
    v = r.observe({"ana": [["8S", "9S", "10S"], ["8H", "8D", "8C"]], "ben": [["QS", "KS", "AS"]]})
    assert v.accepted and v.winner is None and v.illegal == []
    a = v.players["ana"]
    assert a.cards == 6 and a.valid and not a.complete
    assert [m.kind for m in a.melds] == ["run", "set"]
    assert not a.melds[1].in_order and "alternat" in a.melds[1].reason
    b = v.players["ben"]
    assert not b.valid and b.melds[0].kind is None and "ace is low" in b.melds[0].reason
    assert v.players["cruz"].cards == 0
    js = v.to_json()
    assert js["players"]["ana"]["melds"][0] == {"cards": ["8S", "9S", "10S"], "kind": "run", "valid": True,
                                                "in_order": True, "reason": None}


def test_added_cards_are_legal():
    r = ref()
    r.observe({"ana": [["8S", "9S", "10S"]]})
    v = r.observe({"ana": [["7S", "8S", "9S", "10S"]]})
    assert [c.change for c in v.changes] == ["added"] and v.illegal == []


def test_card_removed_is_illegal():
    r = ref()
    r.observe({"ana": [["8S", "9S", "10S", "JS"]]})
    v = r.observe({"ana": [["8S", "9S", "10S"]]})
    assert illegal(v) == ["card_removed"]
    assert "JS" in v.illegal[0].reason
    # reported once: the next identical snapshot is clean
    assert r.observe({"ana": [["8S", "9S", "10S"]]}).illegal == []


def test_card_moved_to_another_player_is_illegal():
    r = ref()
    r.observe({"ana": [["8S", "9S", "10S", "JS"]], "ben": [["QH", "QD", "QC"]]})
    v = r.observe({"ana": [["8S", "9S", "10S"]], "ben": [["QH", "QD", "QC"], ["JS", "JH", "JD"]]})
    assert "card_moved_to_other_player" in illegal(v)
    moved = [c for c in v.illegal if c.change == "card_moved_to_other_player"][0]
    assert moved.player == "ana" and moved.to_player == "ben"


def test_seed_desmoche_move_is_legal():
    r = ref()
    r.observe({"ana": [["8S", "8H", "8C", "8D"]]})
    v = r.observe({"ana": [["8S", "8H", "8C"], ["8D", "9D", "10D"]]})
    assert v.illegal == []
    assert "desmoche" in [c.change for c in v.changes]


def test_desmoche_leaving_invalid_meld_is_illegal():
    r = ref()
    r.observe({"ana": [["8S", "8H", "8C"]]})
    v = r.observe({"ana": [["8S", "8H"], ["8C", "9C", "10C"]]})
    assert illegal(v) == ["desmoche_leaves_invalid"]


def test_moving_a_card_into_an_existing_meld_is_illegal():
    r = ref()
    r.observe({"ana": [["8S", "8H", "8C", "8D"], ["9D", "10D", "JD"]]})
    v = r.observe({"ana": [["8S", "8H", "8C"], ["8D", "9D", "10D", "JD"]]})
    assert illegal(v) == ["moved_into_existing_meld"]


def test_meld_broken():
    r = ref()
    r.observe({"ana": [["8S", "9S", "10S"]]})
    v = r.observe({"ana": [["8S", "9S", "10S", "KH"]]})
    assert illegal(v) == ["meld_broken"]


def test_meld_being_laid_is_only_invalid():
    r = ref()
    v = r.observe({"ana": [["8S", "9S"]]})
    assert v.illegal == [] and not v.players["ana"].valid


def test_winner_with_ten_cards():
    r = ref()
    r.observe({"ana": [["AS", "2S", "3S"]], "ben": [["KH", "KD", "KC"]]})
    v = r.observe({"ana": [["AS", "2S", "3S", "4S"], ["5H", "5C", "5D"], ["9C", "10C", "JC"]],
                   "ben": [["KH", "KD", "KC"]]})
    assert v.winner == "ana" and v.players["ana"].complete
    s = r.settle()
    assert sorted((b.bonus, b.payer) for b in s.bonuses) == [
        ("arriba_del_palo", "cruz"), ("mico", "ben"), ("mico", "cruz")]
    assert s.net == {"ana": 2 + 3, "ben": -2, "cruz": -3}


def test_ten_cards_not_all_valid_is_no_win():
    r = ref()
    v = r.observe({"ana": [["AS", "2S", "3S", "5S"], ["5H", "5C", "5D"], ["9C", "10C", "JC"]]})
    assert v.winner is None
    assert any("not a win" in p for p in v.players["ana"].problems)


def test_too_many_cards():
    r = ref()
    v = r.observe({"ana": [["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS"]]})
    assert "too_many_cards" in illegal(v)


def test_duplicate_card_snapshot_refused_state_kept():
    r = ref()
    r.observe({"ana": [["8S", "9S", "10S"]]})
    v = r.observe({"ana": [["8S", "9S", "10S"]], "ben": [["10S", "10H", "10C"]]})
    assert not v.accepted and "twice" in v.problems[0]
    v = r.observe({"ana": [["8S", "9S", "10S"]]})
    assert v.accepted and v.changes == []


def test_passed_player_may_turn_melds_down():
    r = ref()
    r.observe({"ben": [["10S", "10H", "10C", "10D"], ["JH", "QH", "KH"]]})
    r.pass_player("ben")
    v = r.observe({})
    assert v.illegal == [] and v.changes[0].change == "removed"


def test_disqualify_suggested_under_strict_order():
    r = ref(rules={"strict_order": "disqualify"})
    v = r.observe({"ana": [["8S", "10S", "9S"]]})
    assert v.players["ana"].disqualify_reason and not v.players["ana"].valid
    r.disqualify("ana", "runs out of order")
    v = r.observe({})
    assert v.illegal == [] and v.players["ana"].disqualified == "runs out of order"


def test_autowin_and_settle_with_side_games():
    r = ref(stake=2, pot_carried=6)
    r.declare_autowin("ben", "cuatro_cuerpos")
    dealt = {"ana": ["AD", "2C", "3C", "4S", "5S", "6H", "7H", "8C", "9S"],
             "ben": ["8D", "8S", "8H", "8C", "2D", "3H", "4H", "5C", "6C"]}
    s = r.settle(side_games=[SideGame("oro", ["ana", "ben"], 1)], dealt=dealt)
    assert s.winner == "ben" and s.autowin == "cuatro_cuerpos"
    assert s.side_games[0]["winner"] == "ana"
    assert s.net == {"ana": -2 - 2 - 1 + 2, "ben": -2 + 12 + 4 - 1, "cruz": -4}
    assert sum(s.net.values()) + s.pot_carried_out - s.pot_carried_in == 0


def test_settle_without_winner_carries_pot():
    r = ref()
    r.observe({"ana": [["8S", "9S", "10S"]]})
    s = r.settle()
    assert s.winner is None and s.pot_carried_out == 3


def test_bad_input_raises_referee_error():
    r = ref()
    with pytest.raises(RefereeError):
        r.observe({"zoe": []})
    with pytest.raises(RefereeError) as info:
        r.observe({"ana": [["8S", "9X", "10S"]]})
    assert info.value.field == "snapshot.ana[0][1]"
    with pytest.raises(RefereeError):
        TableReferee(["a"])
    with pytest.raises(RefereeError):
        TableReferee(SEATS, rules={"nope": 1})


def test_loose_cards_joining_a_meld_are_legal():
    # the camera sees a card laid on its own before it is pushed against the meld
    r = ref()
    r.observe({"ana": [["8S", "9S", "10S"]]})
    v = r.observe({"ana": [["8S", "9S", "10S"], ["JS"]]})
    assert v.illegal == [] and not v.players["ana"].valid
    v = r.observe({"ana": [["8S", "9S", "10S", "JS"]]})
    assert v.illegal == [] and v.players["ana"].valid


def test_meld_laid_card_by_card():
    r = ref()
    r.observe({"ana": [["QH"]]})
    r.observe({"ana": [["QH"], ["QS"]]})
    v = r.observe({"ana": [["QH", "QS", "QD"]]})
    assert v.illegal == [] and v.players["ana"].melds[0].kind == "set"


def test_merging_two_complete_melds_is_illegal():
    r = ref()
    r.observe({"ana": [["5H", "6H", "7H"], ["8H", "9H", "10H"]]})
    v = r.observe({"ana": [["5H", "6H", "7H", "8H", "9H", "10H"]]})
    assert illegal(v) == ["moved_into_existing_meld"]


def test_can_pass_seed_example():
    r = ref()
    r.observe({"ben": [["10S", "10H", "10C", "10D"], ["JH", "QH", "KH"]]})
    ok, why = r.can_pass("ben")
    assert ok and "may pass" in why
    r.observe({"ben": [["10S", "10H", "10C", "10D"], ["JH", "QH", "KH"]], "ana": [["5C", "6C", "7C"]]})
    ok, why = r.can_pass("ana")
    assert not ok and "4C 8C" in why
    ok, _ = r.can_pass("ana", seen=["4C", "8C"])
    assert ok
