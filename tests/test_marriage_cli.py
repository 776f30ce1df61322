"""``tableref marriage hand|settle``: the JSON shapes, exit status 2 on bad input, never a traceback."""
import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tableref.referee.errors import RefereeError
from tableref.rules_json import jsonio
from tableref.cli import main
from tableref.rules_json.marriage import COMMANDS

HAND = "10C JC QC 3S 4S 5S 6H 6H 6H 2D 2H JD 9S 10S JH QD KD JS 5H 5C 5S".split()


def run(tmp_path, capsys, action, request):
    path = tmp_path / "req.json"
    path.write_text(json.dumps(request) if not isinstance(request, str) else request)
    rc = main(["marriage", action, str(path)])
    return rc, json.loads(capsys.readouterr().out)


def test_hand_shape(tmp_path, capsys):
    rc, out = run(tmp_path, capsys, "hand", {"tiplu": "JC", "cards": HAND, "exposed_tunnelas": [], "seen": True,
                                             "rules": {}})
    assert rc == 0
    assert out["can_see_joker"] is True and out["can_finish"] is True
    assert len(out["melds"]) == 7 and all(len(m) == 3 for m in out["melds"])
    assert out["maal"] == 10
    assert out["maal_items"] == [{"item": "marriage", "cards": ["10C", "JC", "QC"], "points": 10, "detail": "single"}]


def test_hand_symbols_and_ten(tmp_path, capsys):
    cards = [c.replace("10", "T") for c in HAND]
    cards[0] = "10♣"
    rc, out = run(tmp_path, capsys, "hand", {"tiplu": "J♣", "cards": cards})
    assert rc == 0 and out["can_finish"] and all("T" not in c for m in out["melds"] for c in m)


def test_hand_emoji_suits(tmp_path, capsys):
    """Suits typed as phone emoji (symbol + U+FE0F), before the rank as the game text writes them (♣️J) or after."""
    emoji = {"C": "\u2663\ufe0f", "D": "\u2666\ufe0f", "H": "\u2665\ufe0f", "S": "\u2660\ufe0f"}
    cards = [(emoji[c[-1]] + c[:-1]) if i % 2 else (c[:-1] + emoji[c[-1]]) for i, c in enumerate(HAND)]
    rc, out = run(tmp_path, capsys, "hand", {"tiplu": emoji["C"] + "J", "cards": cards})
    rc_plain, plain = run(tmp_path, capsys, "hand", {"tiplu": "JC", "cards": HAND})
    assert rc == rc_plain == 0 and out == plain


def test_settle_shape(tmp_path, capsys):
    rc, out = run(tmp_path, capsys, "settle", {
        "winner": "p2", "dublee_win": False, "rules": {},
        "players": [{"name": "p1", "maal": 4, "seen": True}, {"name": "p2", "maal": 10, "seen": True},
                    {"name": "p3", "maal": 0, "seen": False}]})
    assert rc == 0
    # T = 14, n = 3: p1 pays 14 + 3 - 12 = 5; p3 (unseen, maal 0) pays 14 + 10 - 0 = 24
    assert out["net"] == {"p1": -5, "p2": 29, "p3": -24}
    assert [(p["name"], p["maal"], p["pays_winner"]) for p in out["players"]] == [
        ("p1", 4, 5), ("p2", 10, 0), ("p3", 0, 24)]


def test_settle_amounts_are_whole_points_never_fractions(tmp_path, capsys):
    """Marriage pays in whole points (maal and fees are whole numbers): no amount can be a binary fraction,
    and a fractional maal is refused rather than rounded."""
    rc, out = run(tmp_path, capsys, "settle", {
        "winner": "p1", "players": [{"name": "p1", "maal": 7}, {"name": "p2", "maal": 3}, {"name": "p3", "maal": 0}]})
    assert rc == 0
    amounts = [*out["net"].values(), *(p[k] for p in out["players"] for k in ("maal", "pays_winner", "net", "fee"))]
    assert all(type(a) is int for a in amounts) and sum(out["net"].values()) == 0
    rc, out = run(tmp_path, capsys, "settle", {
        "winner": "p1", "players": [{"name": "p1", "maal": 0.1}, {"name": "p2", "maal": 3}]})
    assert rc == 2 and out["field"] == "players[0].maal"
    for huge in (10**40, 1e308, 10_001):        # far beyond what three packs can score: refused, not paid
        rc, out = run(tmp_path, capsys, "settle", {
            "winner": "p1", "players": [{"name": "p1", "maal": 0}, {"name": "p2", "maal": huge}]})
        assert rc == 2 and out["field"] == "players[1].maal" and "from 0 to 10000" in out["error"], out


def test_settle_counts_maal_from_cards(tmp_path, capsys):
    rc, out = run(tmp_path, capsys, "settle", {
        "winner": "p1", "tiplu": "JC",
        "players": [{"name": "p1", "hand": HAND}, {"name": "p2", "hand": ["10C", "2D"],
                                                    "exposed_tunnelas": [["6D", "6D", "6D"]]}]})
    assert rc == 0
    assert [p["maal"] for p in out["players"]] == [10, 7]
    assert out["players"][1]["maal_items"][0]["item"] == "tunnela"
    assert sum(out["net"].values()) == 0


@pytest.mark.parametrize("action,request_,field", [
    ("hand", {"tiplu": "JC", "cards": HAND[:20]}, "cards"),
    ("hand", {"tiplu": "JC", "cards": HAND[:20] + ["ZZ"]}, "cards[20]"),
    ("hand", {"tiplu": "JC", "cards": HAND[:17] + ["AH"] * 4}, "cards"),
    ("hand", {"tiplu": "JC", "cards": HAND, "rules": {"colour": 1}}, "rules.colour"),
    ("hand", {"cards": HAND}, "tiplu"),
    ("hand", {"tiplu": "JC", "cards": HAND, "seen": "yes"}, "seen"),
    ("settle", {"winner": "p9", "players": [{"name": "p1", "maal": 1}, {"name": "p2", "maal": 2}]}, "winner"),
    ("settle", {"winner": "p1", "players": [{"name": "p1", "maal": 1}, {"name": "p1", "maal": 2}]},
     "players[1].name"),
    ("settle", {"winner": "p1", "players": [{"name": "p1", "maal": 1}, {"name": "p2"}]}, "players[1].maal"),
    ("settle", {"winner": "p1", "players": [{"name": "p1", "maal": 1}, {"name": "p2", "hand": ["QC"]}]}, "tiplu"),
    ("settle", {"winner": "p1", "tiplu": "JC", "players": [{"name": "p1", "hand": ["QC"] * 2},
                                                           {"name": "p2", "hand": ["QC"] * 2}]}, "players"),
    ("settle", {"winner": "p1", "tiplu": "JC", "players": [{"name": "p1", "maal": 3, "hand": ["QC"]},
                                                           {"name": "p2", "maal": 0}]}, "players[0].maal"),
])
def test_bad_input_exit_2(tmp_path, capsys, action, request_, field):
    rc, out = run(tmp_path, capsys, action, request_)
    assert rc == 2 and out["field"] == field and out["error"]


def test_not_json_exit_2(tmp_path, capsys):
    rc, out = run(tmp_path, capsys, "hand", "{not json")
    assert rc == 2 and "JSON" in out["error"]


def test_stdin_subprocess():
    req = json.dumps({"tiplu": "JC", "cards": HAND[:17] + ["AH"] * 4})
    p = subprocess.run([sys.executable, "-m", "tableref", "marriage", "hand", "-"], input=req,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "Traceback" not in p.stderr + p.stdout
    assert json.loads(p.stdout)["field"] == "cards"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 30) | st.sampled_from(["JC", "QC", "10H", "x", "", "p1", "AH"]),
    lambda inner: st.lists(inner, max_size=23) | st.dictionaries(
        st.sampled_from(["name", "maal", "seen", "hand", "exposed_tunnelas", "tiplu", "cards", "rules",
                         "winner", "players", "dublee_win", "alter", "unseen_maal"]), inner, max_size=6),
    max_leaves=12)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(["hand", "settle"]), st.dictionaries(
    st.sampled_from(["tiplu", "cards", "exposed_tunnelas", "seen", "rules", "winner", "players", "dublee_win"]),
    json_values, max_size=8))
def test_fuzz_never_crashes(action, request_):
    handler = COMMANDS[action][0]
    try:
        out = handler(request_)
    except RefereeError as exc:
        assert exc.message
    else:
        assert isinstance(out, dict)


VALID = {
    "hand": {"tiplu": "JC", "cards": HAND, "exposed_tunnelas": [], "seen": True, "rules": {}},
    "settle": {"winner": "p1", "tiplu": "JC", "dublee_win": False, "rules": {},
               "players": [{"name": "p1", "hand": HAND}, {"name": "p2", "maal": 3, "seen": False}]},
}


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(["hand", "settle"]), st.data())
def test_fuzz_one_field_of_a_valid_request(action, data):
    request_ = json.loads(json.dumps(VALID[action]))
    key = data.draw(st.sampled_from(sorted(request_)))
    if key == "players" and data.draw(st.booleans()):
        sub = data.draw(st.sampled_from(["name", "maal", "seen", "hand", "exposed_tunnelas"]))
        request_["players"][data.draw(st.integers(0, 1))][sub] = data.draw(json_values)
    elif key == "cards" and data.draw(st.booleans()):
        request_["cards"][data.draw(st.integers(0, 20))] = data.draw(json_values)
    else:
        request_[key] = data.draw(json_values)
    try:
        out = COMMANDS[action][0](request_)
    except RefereeError as exc:
        assert exc.message
    else:
        assert isinstance(out, dict)
        # written as the command line writes it (amounts exact, as Decimals), and read back: valid
        # JSON, no NaN or Infinity in it
        json.loads(jsonio.dumps(out), parse_constant=lambda c: pytest.fail(f"{c} in the answer"))
