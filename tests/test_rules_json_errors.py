"""Every bad input to the JSON rules commands exits 2 with the one-line JSON error, never a traceback
or usage text: numbers that are not finite, cards not in capitals, empty melds, deep nesting, a bad
command line; and fuzzed requests to the Desmoche handlers raise only the referee's refusals."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tableref.cli import main
from tableref.referee.errors import RefereeError
from tableref.rules_json import jsonio
from tableref.rules_json.desmoche import COMMANDS as DESMOCHE

PELADILLA = ["AS", "3C", "4D", "7H", "8S", "10D", "JS", "QH", "KD"]
HAND21 = ["JC", "QC", "KC", "2H", "3H", "4H", "5S", "6S", "7S", "9D", "9D", "9D", "AH", "AH", "AH",
          "2C", "3C", "4C", "8H", "8H", "8H"]


def one_line_error(out: str) -> dict:
    lines = out.strip().splitlines()
    assert len(lines) == 1, out
    obj = json.loads(lines[0])
    assert set(obj) <= {"error", "field"} and obj["error"], obj
    return obj


def run_text(capsys, tmp_path, game, action, text):
    path = tmp_path / "req.json"
    path.write_text(text, encoding="utf-8")
    rc = main([game, action, str(path)])
    return rc, capsys.readouterr().out


BAD = [
    ("desmoche", "settle", '{"players": ["a", "b"], "winner": null, "stake": 1e400}', None),
    ("desmoche", "settle", '{"players": ["a", "b"], "winner": null, "stake": -1e400}', None),
    ("desmoche", "settle", '{"players": ["a", "b"], "winner": null, "stake": NaN}', None),
    ("desmoche", "settle", '{"players": ["a", "b"], "winner": null, "stake": Infinity}', None),
    ("desmoche", "settle", '{"players": ["a", "b"], "winner": null, "pot_carried": -Infinity}', None),
    ("desmoche", "settle", '{"players": ["a", "b"], "winner": null, "stake": 1e300}', "stake"),
    ("desmoche", "settle", '{"players": ["a", "b"], "winner": null, "side_games": [{"game": "oro", "stake": 1e300}]}',
     "side_games[0].stake"),
    ("desmoche", "melds", '{"melds": [["ah", "2h", "3h"]]}', "melds[0][0]"),
    ("desmoche", "melds", '{"melds": [["AH", "2H", "3h"]]}', "melds[0][2]"),
    ("desmoche", "melds", '{"melds": [[]]}', "melds[0]"),
    ("desmoche", "melds", '{"melds": [["AH", "2H", "3H"], []]}', "melds[1]"),
    ("desmoche", "settle", '{"players": [{"name": "a", "melds": [[]]}, "b"], "winner": null}', "players[0].melds[0]"),
    ("desmoche", "hand", json.dumps({"cards": [c.lower() for c in PELADILLA]}), "cards[0]"),
    ("desmoche", "hand", json.dumps({"cards": PELADILLA, "before_cambio": ["as"] + PELADILLA[1:]}),
     "before_cambio[0]"),
    ("desmoche", "settle", json.dumps({"players": [{"name": "a", "dealt": ["10d"] + PELADILLA[:5] + PELADILLA[6:]},
                                                   "b"], "winner": None}), "players[0].dealt[0]"),
    ("marriage", "hand", json.dumps({"tiplu": "jc", "cards": HAND21}), "tiplu"),
    ("marriage", "hand", json.dumps({"tiplu": "JC", "cards": HAND21[:-1] + ["8h"]}), "cards[20]"),
    ("marriage", "settle", json.dumps({"tiplu": "JC", "winner": "a", "players": [
        {"name": "a", "hand": ["jc"] + HAND21[1:]}, {"name": "b", "maal": 0}]}), "players[0].hand[0]"),
    ("marriage", "settle", '{"winner": "a", "players": [{"name": "a", "maal": 1e400}]}', None),
    ("desmoche", "melds", "[" * 100_000, None),
    ("desmoche", "melds", '{"melds": ' + "[" * 5000 + "]" * 5000 + "}", None),
    ("marriage", "hand", "{" + '"a":{' * 3000 + "}" * 3001, None),
]


@pytest.mark.parametrize("game,action,text,field", BAD)
def test_bad_input_exits_2_with_one_line_json(capsys, tmp_path, game, action, text, field):
    rc, out = run_text(capsys, tmp_path, game, action, text)
    assert rc == 2
    err = one_line_error(out)
    if field:
        assert err.get("field") == field, err
    assert "Traceback" not in out


@pytest.mark.parametrize("argv", [
    ["desmoche", "settle"], ["desmoche"], ["marriage"], ["marriage", "settle"], ["desmoche", "hand", "a", "b"],
    ["desmoche", "nope"], ["marriage", "hand", "--bogus", "x.json"],
])
def test_bad_command_line_is_the_json_error(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    err = one_line_error(captured.out)
    assert "usage" in err["error"] and captured.err == ""


def test_real_process_stake_1e400_nan_nesting_and_missing_argument():
    """As a user runs it: the real exit status, one JSON line on stdout, nothing on stderr."""
    cases = [(["desmoche", "settle", "-"], '{"players": ["a", "b"], "winner": null, "stake": 1e400}'),
             (["desmoche", "settle", "-"], '{"players": ["a", "b"], "winner": null, "stake": NaN}'),
             (["desmoche", "melds", "-"], "[" * 100_000),
             (["desmoche", "settle"], "")]
    for argv, stdin in cases:
        p = subprocess.run([sys.executable, "-m", "tableref", *argv], input=stdin, capture_output=True, text=True,
                           timeout=60)
        assert p.returncode == 2, (argv, p.stdout, p.stderr)
        one_line_error(p.stdout)
        assert p.stderr == "", p.stderr


def test_good_requests_still_work(capsys, tmp_path):
    rc, out = run_text(capsys, tmp_path, "desmoche", "melds", '{"melds": [["AH", "2H", "3H"], ["4♠", "4H", "4C"]]}')
    assert rc == 0 and json.loads(out)["melds"][1]["cards"] == ["4S", "4H", "4C"]
    rc, out = run_text(capsys, tmp_path, "desmoche", "settle", '{"players": ["a", "b"], "winner": null, "stake": 2.0}')
    assert rc == 0 and json.loads(out)["pot"]["carried_out"] == 4


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 12) | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["AH", "2H", "3H", "4H", "10H", "KD", "x", "", "a", "b", "oro", "ah", "peladilla"]),
    lambda inner: st.lists(inner, max_size=10) | st.dictionaries(
        st.sampled_from(["name", "melds", "dealt", "cards", "before_cambio", "game", "players", "stake", "winner",
                         "rules", "dealer"]), inner, max_size=5),
    max_leaves=14)

VALID = {
    "hand": {"cards": PELADILLA, "rules": {}},
    "melds": {"melds": [["AH", "2H", "3H"]], "rules": {}},
    "settle": {"players": [{"name": "a", "melds": [["AH", "2H", "3H"]]}, "b"], "winner": None, "stake": 1,
               "pot_carried": 0, "side_games": [], "rules": {}},
}


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(sorted(VALID)), st.data())
def test_fuzz_desmoche_requests_are_answered_or_refused(action, data):
    request_ = json.loads(json.dumps(VALID[action]))
    for _ in range(data.draw(st.integers(1, 3))):
        key = data.draw(st.sampled_from(sorted(set(request_) | {"players", "dealer", "autowin", "disqualified"})))
        request_[key] = data.draw(json_values)
    try:
        out = DESMOCHE[action][0](request_)
    except RefereeError as exc:
        assert exc.message
    else:
        # written as the command line writes it (amounts exact, as Decimals), and read back: valid
        # JSON, no NaN or Infinity in it
        json.loads(jsonio.dumps(out), parse_constant=lambda c: pytest.fail(f"{c} in the answer"))
