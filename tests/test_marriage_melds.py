"""Laid-down melds at the table: verdicts with reasons, seeing the joker, going out."""
import pytest

from tableref.referee.errors import RefereeError
from tableref.referee.marriage import check_melds


def test_three_pure_shown_see_the_joker():
    r = check_melds([["3S", "4S", "5S"], ["6H", "6H", "6H"], ["QD", "KD", "AD"]])
    assert r.sees_joker and not r.goes_out
    assert [m.kind for m in r.melds] == ["pure_sequence", "tunnela", "pure_sequence"]


def test_dirty_or_triplet_shown_does_not_see():
    r = check_melds([["3S", "4S", "5S"], ["6H", "6H", "6H"], ["KS", "KC", "KH"]])
    assert not r.sees_joker and r.melds[2].kind == "triplet" and not r.melds[2].pure
    r = check_melds([["3S", "4S", "5S"], ["6H", "6H", "6H"], ["6D", "QC", "8D"]])
    assert not r.sees_joker and not r.melds[2].valid  # without the tiplu nothing is wild


@pytest.mark.parametrize("meld,tiplu,words", [
    (["KS", "AS", "2S"], None, "K-A-2"),
    (["9S", "9S", "9C"], None, "different suits"),
    (["5D", "5D", "JD"], "JC", "two identical cards and a joker"),
    (["3D", "7H", "JD"], "JC", "neither"),
    (["3D", "7H"], None, "three cards"),
])
def test_reasons(meld, tiplu, words):
    m = check_melds([meld], tiplu=tiplu).melds[0]
    assert not m.valid and words in m.reason


def test_going_out_melds():
    melds = [["10C", "JC", "QC"], ["3S", "4S", "5S"], ["6H", "6H", "6H"], ["2D", "2H", "JD"],
             ["9S", "10S", "JH"], ["QD", "KD", "JS"], ["5H", "5C", "5S"]]
    r = check_melds(melds, tiplu="JC")
    assert r.goes_out and r.sees_joker
    assert r.melds[0].kind == "marriage"
    assert not check_melds(melds, tiplu=None).goes_out


def test_dublees():
    seven = [[c, c] for c in ("2C", "5D", "7H", "9S", "QC", "KD", "AH")]
    assert check_melds(seven).sees_joker and not check_melds(seven).goes_out
    assert check_melds(seven + [["3S", "3S"]]).goes_out


def test_bad_cards():
    with pytest.raises(RefereeError) as e:
        check_melds([["3S", "4S", "XX"]])
    assert e.value.field == "melds[0][2]"
    with pytest.raises(RefereeError):
        check_melds([["6H"] * 3, ["6H", "7H", "8H"]])  # four 6H
