"""`tableref desmoche hand|melds|settle`: exact shapes, exit codes, JSON errors."""
import json
import subprocess
import sys
from decimal import Decimal

import pytest

from tableref.cli import main


def run(capsys, tmp_path, action, request):
    path = tmp_path / "req.json"
    path.write_text(request if isinstance(request, str) else json.dumps(request), encoding="utf-8")
    rc = main(["desmoche", action, str(path)])
    out = capsys.readouterr().out
    return rc, json.loads(out)


PELADILLA = ["AS", "3C", "4D", "7H", "8S", "10D", "JS", "QH", "KD"]


def test_hand_peladilla(capsys, tmp_path):
    rc, out = run(capsys, tmp_path, "hand", {"cards": PELADILLA, "rules": {}})
    assert rc == 0 and out["autowin"] == "peladilla"
    assert out["side_games"]["oro"] == ["KD"]


@pytest.mark.parametrize("cards,kind", [
    (["8S", "8H", "8C", "8D", "2C", "5D", "9H", "JS", "KD"], "cuatro_cuerpos"),
    (["AH", "3H", "5H", "7D", "9D", "JD", "KH", "2D", "10H"], "peladilla"),
    (["AH", "2H", "5H", "7D", "9D", "JD", "KH", "2D", "10H"], "color"),
    (["AS", "2S", "3S", "5H", "5D", "9C", "10C", "JH", "QD"], None),
])
def test_hand_kinds(capsys, tmp_path, cards, kind):
    rc, out = run(capsys, tmp_path, "hand", {"cards": cards})
    assert rc == 0 and out["autowin"] == kind


def test_hand_color_switch(capsys, tmp_path):
    cards = ["AH", "2H", "5H", "7D", "9D", "JD", "KH", "2D", "10H"]
    rc, out = run(capsys, tmp_path, "hand", {"cards": cards, "rules": {"color_autowin": "same_suit"}})
    assert out["autowin"] is None
    rc, out = run(capsys, tmp_path, "hand", {"cards": cards, "rules": {"color_autowin": "off"}})
    assert out["autowin"] is None


def test_hand_before_cambio(capsys, tmp_path):
    after = ["8S", "8H", "8C", "QD", "2C", "5D", "9H", "JS", "KD"]
    before = ["8S", "8H", "8C", "8D", "2C", "5D", "9H", "JS", "KD"]
    rc, out = run(capsys, tmp_path, "hand", {"cards": after, "before_cambio": before})
    assert out["autowin"] == "cuatro_cuerpos" and out["before_cambio"] is True


CAMBIO_TIE = {"players": [{"name": "p1", "cards": ["2H", "3C", "4D", "7H", "8S", "10D", "JS", "QH", "KD"],
                           "before_cambio": ["AS", "3C", "4D", "7H", "8S", "10D", "JS", "QH", "KD"]},
                          {"name": "p2", "cards": ["AS", "JH", "9C", "7D", "5H", "3S", "2D", "6C", "10S"],
                           "before_cambio": ["2H", "JH", "9C", "7D", "5H", "3S", "2D", "6C", "10S"]}],
              "dealer": "p2"}


@pytest.mark.parametrize("dealer", ["p1", "p2"])
def test_hand_autowin_tie_across_the_cambio(capsys, tmp_path, dealer):
    """p1 was dealt a Peladilla headed by the ace (A-K-Q...) and passed the ace; p2 holds A-J-10... after the
    Cambio. Both hands of p1 qualify: p1 is judged on the better, the dealt one, and wins whoever dealt."""
    rc, out = run(capsys, tmp_path, "hand", dict(CAMBIO_TIE, dealer=dealer))
    assert rc == 0 and out["winner"] == "p1" and out["autowin"] == "peladilla"
    p1, p2 = out["players"]
    assert p1["before_cambio"] is True and p1["tiebreak"] == [14, 13, 12, 11, 10, 8, 7, 4, 3]
    assert p2["before_cambio"] is False and p2["tiebreak"] == [14, 11, 10, 9, 7, 6, 5, 3, 2]


@pytest.mark.parametrize("dealer", ["p1", "p2"])
def test_hand_autowin_tie_across_the_cambio_mirrored(capsys, tmp_path, dealer):
    """The same hands with the seats swapped: the dealt ace-king Peladilla wins from either seat."""
    one, two = CAMBIO_TIE["players"]
    mirror = {"players": [dict(two, name="p1"), dict(one, name="p2")], "dealer": dealer}
    rc, out = run(capsys, tmp_path, "hand", mirror)
    assert rc == 0 and out["winner"] == "p2" and out["players"][1]["before_cambio"] is True


def test_hand_emoji_suits(capsys, tmp_path):
    """Suits typed as phone emoji (A♠️, 10♠️: the symbol and U+FE0F), after the rank or before it."""
    emoji = {"C": "\u2663\ufe0f", "D": "\u2666\ufe0f", "H": "\u2665\ufe0f", "S": "\u2660\ufe0f"}
    cards = [(emoji[c[-1]] + c[:-1]) if i % 2 else (c[:-1] + emoji[c[-1]]) for i, c in enumerate(PELADILLA)]
    text = json.dumps({"cards": cards}, ensure_ascii=False)
    assert "\u2660\ufe0f" in text
    rc, out = run(capsys, tmp_path, "hand", text)
    assert rc == 0 and out["autowin"] == "peladilla" and out["cards"] == PELADILLA
    rc, out = run(capsys, tmp_path, "melds", {"melds": [["8\u2660\ufe0f", "9\u2660\ufe0f", "10\u2660\ufe0f"]]})
    assert rc == 0 and out["melds"][0]["cards"] == ["8S", "9S", "10S"] and out["melds"][0]["valid"]


def test_hand_several_players_tie(capsys, tmp_path):
    req = {"players": [{"name": "p1", "cards": PELADILLA},
                       {"name": "p2", "cards": ["2H", "3D", "4H", "7C", "8D", "10H", "JC", "QD", "KH"]}],
           "dealer": "p2"}
    rc, out = run(capsys, tmp_path, "hand", req)
    assert rc == 0 and out["winner"] == "p1" and out["autowin"] == "peladilla"


@pytest.mark.parametrize("request_,field", [
    ({"cards": PELADILLA[:8]}, "cards"),
    ({"cards": PELADILLA + ["2C"]}, "cards"),
    ({"cards": PELADILLA[:8] + ["AS"]}, "cards"),
    ({"cards": PELADILLA[:8] + ["ZZ"]}, "cards[8]"),
    ({"cards": PELADILLA, "rules": {"wild_cards": True}}, "rules.wild_cards"),
    ({"cards": PELADILLA, "rules": {"strict_order": "maybe"}}, "rules.strict_order"),
    ({}, "cards"),
])
def test_hand_bad_input(capsys, tmp_path, request_, field):
    rc, out = run(capsys, tmp_path, "hand", request_)
    assert rc == 2 and out["field"] == field and out["error"]


def test_melds_exact_shape(capsys, tmp_path):
    rc, out = run(capsys, tmp_path, "melds", {"melds": [["AH", "2H", "3H", "4H"], ["9S", "9H", "9C"],
                                                         ["JD", "QD", "KD"]], "rules": {}})
    assert rc == 0
    assert out["valid"] is True and out["cards"] == 10 and out["complete"] is True
    assert out["melds"][0] == {"cards": ["AH", "2H", "3H", "4H"], "kind": "run", "valid": True,
                               "in_order": True, "reason": None}


def test_melds_order_and_invalid(capsys, tmp_path):
    rc, out = run(capsys, tmp_path, "melds", {"melds": [["8♠", "10♠", "9♠"], ["QS", "KS", "AS"]]})
    assert rc == 0 and out["valid"] is False and out["complete"] is False
    assert out["melds"][0]["kind"] == "run" and out["melds"][0]["in_order"] is False
    assert out["melds"][0]["cards"] == ["8S", "10S", "9S"]
    assert out["melds"][1]["kind"] is None and out["melds"][1]["reason"]
    rc, out = run(capsys, tmp_path, "melds", {"melds": [["8S", "10S", "9S"]], "rules": {"strict_order": "disqualify"}})
    assert out["valid"] is False and out["melds"][0]["valid"] is False


@pytest.mark.parametrize("request_,field", [
    ({"melds": [["AH", "2H", "3H"], ["3H", "3S", "3C"]]}, "melds"),
    ({"melds": [["AH", "2H", "3X"]]}, "melds[0][2]"),
    ({"melds": "AH 2H 3H"}, "melds"),
    ({"melds": [["AH", "2H", "3H"]], "rules": {"x": 1}}, "rules.x"),
    ({}, "melds"),
    ({"melds": [["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H"], ["KS", "KH", "KC"]]}, "melds"),
])
def test_melds_bad_input(capsys, tmp_path, request_, field):
    rc, out = run(capsys, tmp_path, "melds", request_)
    assert rc == 2 and out["field"] == field


SETTLE = {
    "players": [{"name": "p1", "melds": [["AS", "2S", "3S", "4S"], ["5H", "5C", "5D"], ["9C", "10C", "JC"]],
                 "dealt": ["AD", "2C", "3C", "4H", "5S", "6H", "7H", "8C", "9S"]},
                {"name": "p2", "melds": [["KH", "KD", "KC"]],
                 "dealt": ["KD", "2D", "3H", "4D", "5C", "6C", "7S", "8S", "9H"]},
                "p3"],
    "dealer": "p3", "winner": "p1", "stake": 1, "pot_carried": 3,
    "side_games": [{"game": "oro", "players": ["p1", "p2"], "stake": 2}],
}


def test_settle(capsys, tmp_path):
    rc, out = run(capsys, tmp_path, "settle", SETTLE)
    assert rc == 0
    assert out["pot"] == {"carried_in": 3, "antes": 3, "to_winner": 6, "carried_out": 0}
    assert sorted((b["bonus"], b["payer"]) for b in out["bonuses"]) == [
        ("arriba_del_palo", "p3"), ("mico", "p2"), ("mico", "p3")]
    assert out["side_games"][0]["winner"] == "p1"
    assert out["net"] == {"p1": -1 + 6 + 3 - 2 + 4, "p2": -1 - 1 - 2, "p3": -1 - 2}
    assert sum(out["net"].values()) + out["pot"]["carried_out"] - out["pot"]["carried_in"] == 0


@pytest.mark.parametrize("stake,net_p1", [(0.1, "0.5"), ("0.10", "0.50"), (0.3, "1.5"), (1, "5"), (1.0, "5.0")])
def test_settle_money_is_exact_to_the_stakes_own_precision(capsys, tmp_path, stake, net_p1):
    """Every amount is the exact decimal: a stake of 0.1 never prints as 0.7999999999999999."""
    text = json.dumps({**SETTLE, "pot_carried": 0, "side_games": []}).replace('"stake": 1', f'"stake": {stake}')
    path = tmp_path / "req.json"
    path.write_text(text, encoding="utf-8")
    assert main(["desmoche", "settle", str(path)]) == 0
    raw = capsys.readouterr().out
    out = json.loads(raw, parse_float=Decimal)
    amounts = [out["stake"], *out["pot"].values(), *out["net"].values(), *(b["amount"] for b in out["bonuses"]),
               *(p[k] for p in out["players"] for k in ("ante", "bonuses_paid", "bonuses_received", "net"))]
    places = len(str(stake).partition(".")[2])
    assert all(Decimal(a).as_tuple().exponent >= -places for a in amounts), raw
    assert f'"p1": {net_p1}' in raw
    assert sum(out["net"].values()) + out["pot"]["carried_out"] - out["pot"]["carried_in"] == 0


def test_settle_no_winner(capsys, tmp_path):
    rc, out = run(capsys, tmp_path, "settle", {"players": ["a", "b"], "winner": None, "stake": 5})
    assert rc == 0 and out["net"] == {"a": -5, "b": -5} and out["pot"]["carried_out"] == 10


@pytest.mark.parametrize("change,field", [
    ({"winner": "zz"}, "winner"),
    ({"stake": -1}, "stake"),
    ({"winner": "p2"}, "winner"),                      # p2's table is no win
    ({"side_games": [{"game": "poker"}]}, "side_games[0].game"),
    ({"rules": {"jugar": True}}, "rules.jugar"),
    ({"players": ["a"]}, "players"),
    ({"autowin": "royal"}, "autowin"),
])
def test_settle_bad_input(capsys, tmp_path, change, field):
    rc, out = run(capsys, tmp_path, "settle", {**SETTLE, **change})
    assert rc == 2 and out["field"] == field


def test_settle_refuses_an_automatic_win_the_dealt_cards_do_not_show(capsys, tmp_path):
    """Three aces dealt: no Peladilla, and no single Cambio card could make one."""
    req = {"players": [{"name": "p1", "dealt": ["AS", "AH", "AC", "7H", "8S", "10D", "JS", "QH", "KD"]}, "p2"],
           "winner": "p1", "autowin": "peladilla"}
    rc, out = run(capsys, tmp_path, "settle", req)
    assert rc == 2 and out["field"] == "autowin" and "players[0].dealt" in out["error"]
    assert set(out) == {"error", "field"} and "\n" not in out["error"]


def test_settle_checks_an_automatic_win_on_both_sides_of_the_cambio(capsys, tmp_path):
    dealt = ["AS", "AC", "4D", "7H", "8S", "10D", "JS", "QH", "KD"]       # a pair of aces: no Peladilla dealt
    req = {"players": [{"name": "p1", "dealt": dealt}, "p2"], "winner": "p1", "autowin": "peladilla"}
    rc, out = run(capsys, tmp_path, "settle", req)                          # passing an ace could make one
    assert rc == 0 and any("not checked" in n and "Cambio" in n for n in out["notes"])
    after = ["3C"] + dealt[1:]                                              # passed AS, received 3C: a Peladilla
    req["players"][0]["cards"] = after
    rc, out = run(capsys, tmp_path, "settle", req)
    assert rc == 0 and out["notes"] == [] and out["net"] == {"p1": 2, "p2": -2}
    req["players"][0]["cards"] = ["3S"] + dealt[1:]                         # no four of a kind on either side
    req["autowin"] = "cuatro_cuerpos"
    rc, out = run(capsys, tmp_path, "settle", req)
    assert rc == 2 and out["field"] == "autowin" and "players[0].cards" in out["error"]


def test_settle_automatic_win_unchecked_without_cards_and_refused_with_cards_on_the_table(capsys, tmp_path):
    rc, out = run(capsys, tmp_path, "settle", {"players": ["p1", "p2"], "winner": "p1", "autowin": "color"})
    assert rc == 0 and len(out["notes"]) == 1 and "not checked" in out["notes"][0]
    req = {"players": ["p1", {"name": "p2", "melds": [["2C", "3C", "4C"]]}], "winner": "p1", "autowin": "color"}
    rc, out = run(capsys, tmp_path, "settle", req)
    assert rc == 2 and out["field"] == "players[1].melds" and "before the first draw" in out["error"]


def test_settle_duplicate_card(capsys, tmp_path):
    req = json.loads(json.dumps(SETTLE))
    req["players"][1]["melds"] = [["AS", "AH", "AC"]]
    rc, out = run(capsys, tmp_path, "settle", req)
    assert rc == 2 and "AS" in out["error"]


def test_not_json_and_stdin(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "tableref", "desmoche", "melds", "-"], input="{not json",
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "error" in json.loads(proc.stdout)
    proc = subprocess.run([sys.executable, "-m", "tableref", "desmoche", "hand", "-"],
                          input=json.dumps({"cards": PELADILLA}), capture_output=True, text=True)
    assert proc.returncode == 0 and json.loads(proc.stdout)["autowin"] == "peladilla"


def test_hand_before_cambio_differs_by_one_card_only(capsys, tmp_path):
    rc, out = run(capsys, tmp_path, "hand", {"cards": PELADILLA,
                                             "before_cambio": ["2C", "3D", "4D", "7H", "8S", "10D", "JS", "QH", "KD"]})
    assert rc == 2 and out["field"] == "before_cambio"


# -- never a traceback: any JSON gives an answer or a JSON error --------------------
from hypothesis import given, settings as hsettings, strategies as st  # noqa: E402

from tableref.referee.errors import RefereeError  # noqa: E402
from tableref.rules_json.desmoche import COMMANDS  # noqa: E402

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 12) | st.sampled_from(["AS", "10H", "ZZ", "p1", "oro", "warn", ""]),
    lambda inner: st.lists(inner, max_size=10) | st.dictionaries(
        st.sampled_from(["cards", "melds", "rules", "players", "name", "winner", "stake", "game", "dealt",
                         "side_games", "autowin", "pot_carried", "before_cambio", "dealer", "strict_order"]),
        inner, max_size=5),
    max_leaves=30)


@hsettings(max_examples=120, deadline=None)
@given(st.sampled_from(sorted(COMMANDS)), st.dictionaries(
    st.sampled_from(["cards", "melds", "rules", "players", "winner", "stake", "side_games", "autowin",
                     "pot_carried", "before_cambio", "dealer", "disqualified"]), json_values, max_size=6))
def test_handlers_answer_or_raise_referee_error(action, request_):
    handler = COMMANDS[action][0]
    try:
        out = handler(request_)
    except RefereeError as exc:
        assert exc.message
    else:
        assert isinstance(out, dict)


def test_unknown_request_field_is_reported(capsys, tmp_path):
    rc, out = run(capsys, tmp_path, "hand", {"cards": PELADILLA, "rule": {"color_autowin": "off"}})
    assert rc == 0 and out["warnings"] == ["unknown field 'rule' ignored"]
    rc, out = run(capsys, tmp_path, "melds", {"melds": [["AH", "2H", "3H"]]})
    assert "warnings" not in out
