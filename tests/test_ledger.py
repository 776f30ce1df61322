"""The SQLite ledger: migrations, atomic hands, corrections/undo as entries, balances, transfers, crash safety."""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import example, given, settings, strategies as st

from tableref.ledger.errors import LedgerError, MoneyError, SchemaError
from tableref.ledger.store import Ledger
from tableref.ledger.migrations import LATEST, MIGRATIONS, current_version, migrate
from tableref.ledger.transfers import fewest_transfers

ROOT = Path(__file__).resolve().parents[1]
SETUP = {"game": "desmoche", "players": ["Ana", "Beto", "Cris", "Dani"], "stake": 1, "point_value": 0.25}


def hand(winner="Ana", **net):
    net = net or {"Ana": 6, "Beto": -2, "Cris": -2, "Dani": -2}
    return {"type": "hand_end", "game": "desmoche", "winner": winner, "net": net,
            "items": [{"item": "win", "player": winner, "points": 3},
                      {"item": "mico", "player": winner, "points": 3, "cards": ["AH", "2H", "3H"]}],
            "details": {"melds": {"Ana": [["AH", "2H", "3H"]]}}}


@pytest.fixture
def ledger(tmp_path):
    with Ledger(tmp_path / "ledger.sqlite3") as led:
        yield led


# ---------------------------------------------------------------- schema and migrations
def test_the_ledgers_errors_are_its_own_not_the_referees():
    """A refused request, a bad amount, a foreign file, a ledger in use: none is a referee's error."""
    from tableref.referee.errors import RefereeError
    from tableref.table.lock import LedgerInUse

    for cls in (LedgerError, MoneyError, SchemaError, LedgerInUse):
        assert not issubclass(cls, RefereeError), cls
    assert issubclass(MoneyError, LedgerError) and issubclass(LedgerError, ValueError)
    err = LedgerError("bad", "net")
    assert err.message == "bad" and err.field == "net" and str(err) == "bad"


def test_new_file_is_wal_and_at_latest_version(tmp_path):
    path = tmp_path / "l.sqlite3"
    Ledger(path).close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert current_version(conn) == LATEST
    assert [r[0] for r in conn.execute("SELECT version FROM schema_version ORDER BY version")] == \
        [m[0] for m in MIGRATIONS]


def test_migration_from_v1_keeps_data(tmp_path):
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    assert migrate(conn, target=1) == 1
    conn.execute("INSERT INTO sessions (created_at, game) VALUES ('2026-01-01T00:00:00', 'desmoche')")
    conn.execute("INSERT INTO players (session_id, name, joined_at) VALUES (1, 'Ana', 'x'), (1, 'Beto', 'x')")
    conn.execute("INSERT INTO hands (session_id, hand_no, created_at, game, winner, point_value, result_json)"
                 " VALUES (1, 1, 'x', 'desmoche', 'Ana', 1.0, '{\"net\": {\"Ana\": 2, \"Beto\": -2}}')")
    conn.execute("INSERT INTO entries (session_id, created_at, kind, who, hand_id) VALUES (1, 'x', 'hand', 'referee', 1)")
    conn.execute("INSERT INTO payments (entry_id, session_id, hand_id, player, points) VALUES (1,1,1,'Ana',2),(1,1,1,'Beto',-2)")
    conn.close()
    with Ledger(path) as led:
        assert led.version == LATEST
        assert led.current_session() == 1  # closed_at added as NULL: still open, resumed
        assert led.balances(1) == {"Ana": 2, "Beto": -2}
        assert led.hands(1)[0]["winner"] == "Ana"


def test_refuses_newer_schema_and_foreign_files(tmp_path):
    newer = tmp_path / "newer.sqlite3"
    Ledger(newer).close()
    conn = sqlite3.connect(newer)
    conn.execute("INSERT INTO schema_version VALUES (?, 'from the future', 'x')", (LATEST + 1,))
    conn.commit()
    conn.close()
    with pytest.raises(SchemaError, match="upgrade tableref"):
        Ledger(newer)
    other = tmp_path / "other.sqlite3"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE recipes (x)")
    conn.commit()
    conn.close()
    with pytest.raises(SchemaError, match="not a tableref ledger"):
        Ledger(other)
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"this is not a database" * 100)
    with pytest.raises(SchemaError):
        Ledger(garbage)


# ---------------------------------------------------------------- hands
def test_hand_stored_verbatim_and_itemised(ledger):
    sid = ledger.open_session(SETUP)
    result = hand()
    h = ledger.commit_hand(sid, result)
    assert h["hand_no"] == 1 and h["result"] == result
    assert h["net"] == result["net"] == h["net_original"]
    assert [it["item"] for it in h["items"]] == ["win", "mico"]
    assert h["items"][1]["cards"] == ["AH", "2H", "3H"]
    assert h["point_value"] == "0.25" and h["money"] == {"Ana": "1.50", "Beto": "-0.50", "Cris": "-0.50",
                                                         "Dani": "-0.50"}
    assert ledger.balances(sid) == {"Ana": 6, "Beto": -2, "Cris": -2, "Dani": -2}
    assert ledger.money(sid) == {"Ana": "1.50", "Beto": "-0.50", "Cris": "-0.50", "Dani": "-0.50"}


@pytest.mark.parametrize("bad,field", [
    ({"net": {"Ana": 3, "Beto": -2}}, "net"),                 # does not sum to zero
    ({"net": {"Ana": 2.5, "Beto": -2.5}}, "net.Ana"),         # not whole points
    ({"net": {"Ana": "2", "Beto": -2}}, "net.Ana"),
    ({"net": {}}, "net"),
    ({"net": [1, -1]}, "net"),
    ({"net": {"": 1, "Beto": -1}}, "net."),
    ({"net": {"Ana": 1, "Beto": -1}, "items": [{"points": 1}]}, "items[0]"),
    ({"net": {"Ana": 1, "Beto": -1}, "game": "poker"}, "game"),
    ({"net": {"Ana": 1, "Beto": -1}, "details": {1, 2}}, "result"),
])
def test_bad_hand_is_refused_and_leaves_nothing(ledger, bad, field):
    sid = ledger.open_session(SETUP)
    with pytest.raises(LedgerError) as err:
        ledger.commit_hand(sid, bad)
    assert err.value.field == field
    assert ledger.hands(sid) == []
    assert set(ledger.balances(sid).values()) == {0}


def test_hand_commit_is_atomic(ledger, monkeypatch):
    sid = ledger.open_session(SETUP)
    ledger.commit_hand(sid, hand())
    real_execute = ledger._conn.execute
    calls = {"n": 0}

    class Boom(RuntimeError):
        pass

    class Conn:
        def execute(self, sql, *a):
            if sql.startswith("INSERT INTO items"):
                calls["n"] += 1
                if calls["n"] == 2:
                    raise Boom("disk on fire")
            return real_execute(sql, *a)

    monkeypatch.setattr(ledger, "_conn", Conn())
    with pytest.raises(Boom):
        ledger.commit_hand(sid, hand("Beto", Ana=-2, Beto=6, Cris=-2, Dani=-2))
    monkeypatch.undo()
    assert [h["hand_no"] for h in ledger.hands(sid)] == [1]
    assert ledger.balances(sid)["Beto"] == -2
    conn = ledger._conn
    assert conn.execute("SELECT COUNT(*) FROM payments").fetchone()[0] == 4
    assert conn.execute("SELECT COUNT(*) FROM items").fetchone()[0] == 2
    assert conn.execute("SELECT COUNT(*) FROM entries WHERE kind='hand'").fetchone()[0] == 1


def test_replayed_hand_is_counted_once(ledger):
    sid = ledger.open_session(SETUP)
    a = ledger.commit_hand(sid, hand(), external_id="run1-hand1")
    b = ledger.commit_hand(sid, hand(), external_id="run1-hand1")
    assert a["id"] == b["id"] and len(ledger.hands(sid)) == 1


def test_unknown_player_in_result_is_added_not_lost(ledger):
    sid = ledger.open_session({**SETUP, "players": ["Ana", "Beto"]})
    ledger.commit_hand(sid, hand("Ana", Ana=4, Beto=-2, Seat3=-2))
    assert ledger.balances(sid) == {"Ana": 4, "Beto": -2, "Seat3": -2}


# ---------------------------------------------------------------- corrections and undo
def test_corrections_and_undo_are_entries_nothing_overwritten(ledger):
    sid = ledger.open_session(SETUP)
    h1 = ledger.commit_hand(sid, hand())
    h2 = ledger.commit_hand(sid, hand("Beto", Ana=-1, Beto=3, Cris=-1, Dani=-1))
    with pytest.raises(LedgerError, match="reason"):
        ledger.correct_hand(sid, h1["id"], {"Ana": 9, "Beto": -3, "Cris": -3, "Dani": -3}, who="host", why="")
    e = ledger.correct_hand(sid, h1["id"], {"Ana": 9, "Beto": -3, "Cris": -3, "Dani": -3}, who="host",
                            why="Color bonus missed", client="10.0.0.7")
    h1b = ledger.hand(h1["id"])
    assert h1b["net"] == {"Ana": 9, "Beto": -3, "Cris": -3, "Dani": -3}
    assert h1b["net_original"] == h1["net"] and h1b["result"] == h1["result"] and h1b["corrected"]
    assert ledger.balances(sid) == {"Ana": 8, "Beto": 0, "Cris": -4, "Dani": -4}
    # Undo with no target: the newest money entry (the correction).
    u1 = ledger.undo(sid, who="host", why="wrong hand")
    assert ledger.hand(h1["id"])["net"] == h1["net"]
    # Undo the hand 2 entirely, then redo it by undoing the undo.
    u2 = ledger.undo(sid, h2["entry_id"], who="host", why="misdeal")
    assert ledger.hand(h2["id"])["undone"] and set(ledger.hand(h2["id"])["net"].values()) == {0}
    with pytest.raises(LedgerError, match="already undone"):
        ledger.undo(sid, h2["entry_id"])
    with pytest.raises(LedgerError, match="undo the undo"):
        ledger.correct_hand(sid, h2["id"], {"Ana": 1, "Beto": -1}, why="x")
    ledger.undo(sid, u2, who="host", why="it was fine after all")
    assert ledger.hand(h2["id"])["net"] == h2["net"] and not ledger.hand(h2["id"])["undone"]
    entries = ledger.entries(sid)
    kinds = [x["kind"] for x in entries]
    assert kinds == ["session_open", "hand", "hand", "hand_correction", "undo", "undo", "undo"]
    corr = next(x for x in entries if x["id"] == e)
    assert corr["who"] == "host" and corr["why"] == "Color bonus missed" and corr["client"] == "10.0.0.7"
    assert corr["undone"] and corr["payload"]["before"] == h1["net"]
    assert next(x for x in entries if x["id"] == u1)["target_entry_id"] == e
    # Every entry's payments sum to zero, so the balances always do.
    for x in entries:
        assert sum(x["payments"].values()) == 0
    assert sum(ledger.balances(sid).values()) == 0
    # Raw rows: the original hand's payments are still there, untouched.
    rows = ledger._conn.execute("SELECT player, points FROM payments WHERE entry_id=?", (h1["entry_id"],)).fetchall()
    assert {r[0]: r[1] for r in rows} == h1["net"]


def test_card_corrections_and_setup_are_logged(ledger):
    sid = ledger.open_session(SETUP)
    ledger.record_card_correction(sid, {"track_id": 7, "from": "8H", "to": "6H"}, who="host", why="camera misread")
    ledger.record_setup(sid, {**SETUP, "players": ["Ana", "Beto", "Cris", "Eva"], "point_value": 1.0})
    assert ledger.players(sid) == ["Ana", "Beto", "Cris", "Eva"]  # Dani left before playing a hand
    assert ledger.setup(sid)["point_value"] == 1.0
    kinds = [e["kind"] for e in ledger.entries(sid)]
    assert kinds == ["session_open", "card_correction", "setup"]
    with pytest.raises(LedgerError, match="moves no points"):
        ledger.undo(sid, ledger.entries(sid)[1]["id"])
    with pytest.raises(LedgerError, match="nothing to undo"):
        ledger.undo(sid)


def test_point_value_in_force_at_each_hand(ledger):
    sid = ledger.open_session(SETUP)  # 0.25 per point
    ledger.commit_hand(sid, hand())
    ledger.record_setup(sid, {**SETUP, "point_value": 1.0})
    ledger.commit_hand(sid, hand())
    assert ledger.balances(sid)["Ana"] == 12
    assert ledger.money(sid)["Ana"] == "7.50"  # 6 x 0.25 + 6 x 1
    # transfers pay the money, not the points at today's value
    assert sum(int(t["cents"]) for t in ledger.transfers(sid) if t["to"] == "Ana") == 750


def test_sessions_resume_and_close(ledger):
    sid, resumed = ledger.resume_or_open(SETUP)
    assert not resumed
    assert ledger.resume_or_open(SETUP) == (sid, True)
    new = ledger.open_session({**SETUP, "game": "marriage"})
    assert new != sid and ledger.current_session() == new
    assert ledger.session_info(sid)["closed_at"] is not None
    with pytest.raises(LedgerError, match="closed"):
        ledger.commit_hand(sid, hand())


def test_csv_export(ledger):
    sid = ledger.open_session({**SETUP, "players": ["=cmd()", "Beto"]})
    h = ledger.commit_hand(sid, {"winner": "=cmd()", "net": {"=cmd()": 2, "Beto": -2},
                                 "items": [{"item": "win", "player": "=cmd()", "points": 2}]})
    ledger.correct_hand(sid, h["id"], {"=cmd()": 3, "Beto": -3}, why="bonus")
    text = ledger.export_csv(sid)
    import csv
    import io
    rows = list(csv.reader(io.StringIO(text)))
    head = rows[0]
    assert head[9:13] == ["unit", "'=cmd()", "Beto", "pot"] and head[13:] == ["hand_items", "undone", "from", "to",
                                                                           "amount"]
    col = {name: head.index(name) for name in head}
    assert rows[1][2] == "hand" and rows[1][10:12] == ["2", "-2"] and rows[1][8] == "0.25"
    assert rows[1][col["unit"]] == "points" and rows[1][col["hand_items"]] == "win =cmd() +2"
    assert rows[2][2] == "hand_correction" and rows[2][10:12] == ["1", "-1"]
    assert rows[3][2] == "balance" and rows[3][10:13] == ["3", "-3", "0"] and rows[3][col["unit"]] == "points"
    assert rows[4][2] == "money" and rows[4][10:13] == ["0.75", "-0.75", "0.00"] and rows[4][col["unit"]] == "money"
    assert rows[5][2] == "settle" and rows[5][10:12] == ["0.75", "-0.75"]
    # a transfer says who pays whom how much in columns named for it, not in 'why' or 'hand_items'
    assert rows[6][2] == "transfer" and [rows[6][col[k]] for k in ("from", "to", "amount")] == ["Beto", "'=cmd()",
                                                                                              "0.75"]
    assert rows[6][col["why"]] == "" and rows[6][col["hand_items"]] == ""


def test_csv_items_say_who_pays_whom(ledger):
    """A payment item reads payer → payee and its amount, never a '+' beside the one who pays."""
    sid = ledger.open_session({**SETUP, "game": "marriage", "players": ["Ana", "Beto", "Cris"]})
    ledger.commit_hand(sid, {"winner": "Ana", "net": {"Ana": 15, "Beto": -23, "Cris": 8}, "items": [
        {"item": "win", "player": "Ana", "points": 15},
        {"item": "pays_winner", "player": "Beto", "points": 23, "to": "Ana"},
        {"item": "winner_pays", "player": "Cris", "points": 8, "from": "Ana"}]})
    import csv
    import io
    rows = list(csv.reader(io.StringIO(ledger.export_csv(sid))))
    items = rows[1][rows[0].index("hand_items")]
    assert items == "win Ana +15; pays_winner Beto → Ana 23; winner_pays Ana → Cris 8"


# ---------------------------------------------------------------- balances and transfers
@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(st.integers(-20, 20), min_size=3, max_size=3), min_size=1, max_size=8),
       st.lists(st.integers(0, 20), max_size=4))
def test_balances_always_sum_to_zero(tmp_path_factory, hands, undo_picks):
    path = tmp_path_factory.mktemp("h") / "l.sqlite3"
    with Ledger(path) as led:
        sid = led.open_session({"game": "marriage", "players": ["a", "b", "c", "d"]})
        ids = []
        for vals in hands:
            net = {"a": vals[0], "b": vals[1], "c": vals[2], "d": -sum(vals)}
            ids.append(led.commit_hand(sid, {"net": net}))
        for pick in undo_picks:
            h = ids[pick % len(ids)]
            try:
                led.undo(sid, h["entry_id"], why="test")
            except LedgerError:
                pass
        bal = led.balances(sid)
        assert sum(bal.values()) == 0
        expect = {p: 0 for p in "abcd"}
        for h in led.hands(sid):
            if not h["undone"]:
                for p, v in h["net_original"].items():
                    expect[p] += v
        assert bal == expect
        settled = led.money_cents(sid)
        for t in led.transfers(sid):
            settled[t["from"]] += t["cents"]
            settled[t["to"]] -= t["cents"]
        assert set(settled.values()) <= {0}


def _brute_min_transfers(bal):
    """Minimum transfers by the zero-sum-partition bound, by brute force over set partitions."""
    names = [n for n in bal if bal[n]]
    best = 0

    def partitions(items):
        if not items:
            yield []
            return
        first, rest = items[0], items[1:]
        for p in partitions(rest):
            yield [[first], *p]
            for i in range(len(p)):
                yield [*p[:i], [first, *p[i]], *p[i + 1:]]

    for p in partitions(names):
        if all(sum(bal[n] for n in g) == 0 for g in p):
            best = max(best, len(p))
    return len(names) - best


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(-30, 30), min_size=1, max_size=6))
def test_fewest_transfers_is_minimal_and_settles(values):
    bal = {f"p{i}": v for i, v in enumerate(values)}
    bal["last"] = -sum(values)
    out = fewest_transfers(bal)
    left = dict(bal)
    for t in out:
        assert t["points"] > 0 and bal[t["from"]] < 0 < bal[t["to"]]
        left[t["from"]] += t["points"]
        left[t["to"]] -= t["points"]
    assert set(left.values()) <= {0}
    assert len(out) == _brute_min_transfers(bal)


def test_fewest_transfers_beats_plain_greedy():
    # Plain greedy pays 10 to A first and needs 4 transfers; two zero-sum pairs need only 2... plus one.
    bal = {"A": 10, "B": 7, "C": -7, "D": -6, "E": -4}
    out = fewest_transfers(bal)
    assert len(out) == 3  # {B,C} settle in one, {A,D,E} in two
    assert {"from": "C", "to": "B", "points": 7} in out
    with pytest.raises(ValueError):
        fewest_transfers({"A": 1, "B": 0})


# ---------------------------------------------------------------- crash: kill -9 mid-hand
CHILD = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {root!r})
    from tableref.ledger.store import Ledger
    led = Ledger({path!r})
    sid, resumed = led.resume_or_open({{"game": "desmoche", "players": ["Ana", "Beto", "Cris"]}})
    real_entry = led._entry
    state = {{"n": 0}}
    def slow_entry(c, *a, **k):
        out = real_entry(c, *a, **k)
        if a[1] == "hand":
            state["n"] += 1
            if state["n"] == {stall_at}:
                print("IN_TX", flush=True)   # the hand row is written, its payments not yet
                time.sleep(60)
        return out
    led._entry = slow_entry
    for i in range(1, 1000):
        led.commit_hand(sid, {{"winner": "Ana", "net": {{"Ana": 2, "Beto": -1, "Cris": -1}},
                               "items": [{{"item": "win", "player": "Ana", "points": 2}}]}})
        print("COMMITTED", i, flush=True)
""")


def test_kill_9_mid_hand_loses_only_that_hand_and_resumes(tmp_path):
    path = str(tmp_path / "crash.sqlite3")
    proc = subprocess.Popen([sys.executable, "-c", CHILD.format(root=str(ROOT), path=path, stall_at=6)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    committed = 0
    try:
        for line in proc.stdout:
            if line.startswith("COMMITTED"):
                committed = int(line.split()[1])
            if line.startswith("IN_TX"):
                break
        else:
            pytest.fail("child ended early: " + proc.stderr.read())
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert committed == 5 and proc.returncode == -signal.SIGKILL
    # Restart: the file opens, the five committed hands are intact, the half-written sixth is gone.
    with Ledger(path) as led:
        assert led._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        sid = led.current_session()
        assert sid == 1
        hands = led.hands(sid)
        assert [h["hand_no"] for h in hands] == [1, 2, 3, 4, 5]
        assert all(h["net"] == {"Ana": 2, "Beto": -1, "Cris": -1} and len(h["items"]) == 1 for h in hands)
        assert led.balances(sid) == {"Ana": 10, "Beto": -5, "Cris": -5}
        assert led._conn.execute("SELECT COUNT(*) FROM payments").fetchone()[0] == 15
    # ...and the session resumes: a second run continues the same session with hand 6.
    proc = subprocess.Popen([sys.executable, "-c", CHILD.format(root=str(ROOT), path=path, stall_at=3)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for line in proc.stdout:
            if line.startswith("IN_TX"):
                break
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    with Ledger(path) as led:
        assert [h["hand_no"] for h in led.hands(1)] == [1, 2, 3, 4, 5, 6, 7]
        assert led.balances(1) == {"Ana": 14, "Beto": -7, "Cris": -7}
        assert len(led.sessions()) == 1


def test_desmoche_pot_carried_over_is_its_own_account(ledger):
    sid = ledger.open_session({**SETUP, "players": ["Ana", "Beto", "Cris"]})
    # No winner: everyone antes 1, the pot of 3 carries over (the nets sum to -3).
    no_winner = {"winner": None, "net": {"Ana": -1, "Beto": -1, "Cris": -1}, "pot_carried_out": 3,
                 "details": {"settlement": {"pot": {"carried_in": 0, "carried_out": 3}}}}
    h1 = ledger.commit_hand(sid, no_winner)
    assert h1["net"] == no_winner["net"] and h1["pot"] == 3
    bal = ledger.balances(sid)
    assert bal == {"Ana": -1, "Beto": -1, "Cris": -1} and ledger.pot(sid)["points"] == 3
    # Next hand Beto wins the carried pot too: the nets sum to +3, the pot pays it out.
    win = {"winner": "Beto", "net": {"Ana": -1, "Beto": 5, "Cris": -1}, "pot_carried_out": 0,
           "details": {"settlement": {"pot": {"carried_in": 3, "carried_out": 0}}}}
    h2 = ledger.commit_hand(sid, win)
    assert h2["pot"] == -3
    assert ledger.balances(sid) == {"Ana": -2, "Beto": 4, "Cris": -2} and ledger.pot(sid)["points"] == 0
    assert ledger.players(sid) == ["Ana", "Beto", "Cris"]
    # A correction keeps the hand's pot flow; nets that do not fit it are refused.
    ledger.correct_hand(sid, h2["id"], {"Ana": -2, "Beto": 6, "Cris": -1}, why="Mico")
    assert ledger.hand(h2["id"])["net"] == {"Ana": -2, "Beto": 6, "Cris": -1}
    with pytest.raises(LedgerError, match="sum to 3"):
        ledger.correct_hand(sid, h2["id"], {"Ana": -1, "Beto": 1, "Cris": 0}, why="x")
    # Nets off zero with no pot said to explain them are refused, as is a pot that does not add up.
    with pytest.raises(LedgerError, match="sum to zero"):
        ledger.commit_hand(sid, {"winner": None, "net": {"Ana": -1, "Beto": -1, "Cris": -1}})
    with pytest.raises(LedgerError):
        ledger.commit_hand(sid, {**no_winner, "pot_carried_out": 2})
    with pytest.raises(LedgerError, match="pot's account"):
        ledger.commit_hand(sid, {"winner": None, "net": {"(pot)": 1, "Ana": -1}})
    ledger.undo(sid, h1["entry_id"], why="misdeal")
    assert sum(ledger.balances(sid).values()) + ledger.pot(sid)["points"] == 0


# ---------------------------------------------------------------- money over random histories
PLAYERS3 = ["Ana", "Beto", "Cris"]
_op = st.one_of(
    st.tuples(st.just("pv"), st.sampled_from(["0", "0.01", "0.05", "0.25", "0.5", "1", "1.5", "10", "0.1", "0.3"])),
    st.tuples(st.just("win"), st.integers(0, 2), st.integers(0, 6), st.integers(0, 6)),
    st.tuples(st.just("nowin"), st.integers(1, 3)),
    st.tuples(st.just("correct"), st.integers(0, 50), st.integers(-3, 3)),
    st.tuples(st.just("undo"), st.integers(0, 50)),
)


def _csv_rows(led, sid):
    import csv
    import io
    rows = list(csv.reader(io.StringIO(led.export_csv(sid))))
    header = rows[0]
    first = header.index("unit") + 1
    accounts = header[first:header.index("hand_items")]
    return {r[2]: dict(zip(accounts, r[first:first + len(accounts)])) for r in rows[1:] if r[0] == ""}, \
        [r for r in rows[1:] if r[2] == "transfer"], accounts


@settings(max_examples=int(os.environ.get("TABLEREF_MONEY_EXAMPLES", "40")), deadline=None)
@given(st.lists(_op, min_size=1, max_size=14), st.booleans())
# found by this test: an undo of a correction's undo, and an old undo of a hand undone again, once
# moved money in a hand that was not in force
@example([("win", 0, 0, 0), ("correct", 0, 1), ("win", 0, 0, 0), ("undo", 1), ("nowin", 1), ("nowin", 1),
          ("undo", 0), ("undo", 17)], False)
@example([("win", 0, 0, 0), ("correct", 0, 1), ("undo", 0), ("win", 0, 0, 0), ("undo", 2), ("win", 0, 0, 0),
          ("undo", 0), ("undo", 25)], True)
@example([("nowin", 2), ("pv", "0.5"), ("win", 1, 2, 3), ("nowin", 1), ("pv", "0.05"), ("undo", 1)], True)
def test_money_agrees_to_the_cent_over_random_histories(tmp_path_factory, ops, close):
    """Point-value changes, Desmoche pots carried and won, corrections, undos (of undos too): the balances,
    the settle-up, the fewest transfers, the JSON summary and the CSV agree to the cent, and each hand's
    money is its points at the money per point in force when it was recorded."""
    from decimal import Decimal

    path = tmp_path_factory.mktemp("m") / "l.sqlite3"
    with Ledger(path) as led:
        sid = led.open_session({"game": "desmoche", "players": PLAYERS3, "point_value": 1})
        pv = 100                      # model: cents per point now
        hands = {}                    # hand id -> {"pv", "gap": {player: cents}, "pot_cents"}
        for op in ops:
            if op[0] == "pv":
                led.record_setup(sid, {"game": "desmoche", "players": PLAYERS3, "point_value": op[1]})
                pv = int(Decimal(op[1]) * 100)
                continue
            if op[0] in ("win", "nowin"):
                pot_points = led.pot(sid)["points"]
                pot_cents = led.pot(sid)["cents"]
                carried_in = max(pot_points, 0)
                if op[0] == "win":
                    w = PLAYERS3[op[1]]
                    others = [p for p in PLAYERS3 if p != w]
                    net = {others[0]: -op[2], others[1]: -op[3]}
                    net[w] = op[2] + op[3] + carried_in
                    net = {p: net[p] for p in PLAYERS3}
                    result = {"winner": w, "net": net, "pot_carried_out": 0,
                              "details": {"settlement": {"pot": {"carried_in": carried_in, "carried_out": 0}}}}
                    flow = -carried_in
                else:
                    stake = op[1]
                    net = {p: -stake for p in PLAYERS3}
                    result = {"winner": None, "net": net, "pot_carried_out": carried_in + 3 * stake,
                              "details": {"settlement": {
                                  "pot": {"carried_in": carried_in, "carried_out": carried_in + 3 * stake},
                                  "players": [{"name": p, "ante": stake} for p in PLAYERS3]}}}
                    flow = 3 * stake
                # the model: the pot takes money in at today's value and pays out the money put in
                if flow > 0 or pot_points <= 0:
                    pot_move = flow * pv
                else:
                    pot_move = -pot_cents
                gap = {p: 0 for p in PLAYERS3}
                if flow < 0:
                    gap[result["winner"]] = flow * pv - pot_move
                h = led.commit_hand(sid, result)
                hands[h["id"]] = {"pv": pv, "gap": gap, "pot_cents": pot_move if flow else 0}
                continue
            ids = [e["id"] for e in led.entries(sid) if e["kind"] in ("hand", "hand_correction", "undo")]
            if not ids:
                continue
            if op[0] == "correct":
                hs = led.hands(sid)
                h = hs[op[1] % len(hs)]
                a, b = PLAYERS3[op[1] % 3], PLAYERS3[(op[1] + 1) % 3]
                new = dict(h["net"])
                new[a] = new.get(a, 0) + op[2]
                new[b] = new.get(b, 0) - op[2]
                try:
                    led.correct_hand(sid, h["id"], new, why="test")
                except LedgerError:
                    pass
            else:
                try:
                    led.undo(sid, ids[op[1] % len(ids)], why="test")
                except LedgerError:
                    pass

        # The model: each hand in force pays its current points at its own value, plus its pot gap.
        expect = {p: 0 for p in PLAYERS3}
        expect_pot = 0
        for h in led.hands(sid):
            assert h["point_value"] == f"{Decimal(hands[h['id']]['pv']) / 100:.2f}"
            if h["undone"]:
                assert all(v == 0 for v in h["net"].values()) and h["pot"] == 0
                continue
            m = hands[h["id"]]
            for p, v in h["net"].items():
                cents = v * m["pv"] + m["gap"][p]
                expect[p] += cents
                assert Decimal(h["money"][p]) * 100 == cents
            expect_pot += m["pot_cents"]
        money = led.money_cents(sid)
        assert money == expect
        pot = led.pot(sid)
        assert pot["cents"] == expect_pot and sum(money.values()) + pot["cents"] == 0
        assert sum(led.balances(sid).values()) + pot["points"] == 0

        def check_views():
            summary = led.summary(sid)
            settle = led.settlement(sid)
            money = led.money_cents(sid)
            # the settle-up is the money with the pot paid back; the transfers pay exactly that
            assert sum(settle["pot_return"].values()) == led.pot(sid)["cents"]
            assert settle["owed"] == {p: money[p] + settle["pot_return"].get(p, 0) for p in money}
            assert sum(settle["owed"].values()) == 0
            left = dict(settle["owed"])
            for t in settle["transfers"]:
                assert t["cents"] > 0 and Decimal(t["money"]) * 100 == t["cents"]
                assert "(pot)" not in (t["from"], t["to"])
                left[t["from"]] += t["cents"]
                left[t["to"]] -= t["cents"]
            assert set(left.values()) <= {0}
            # the JSON and the CSV say the same, to the cent, and the CSV sums to zero with its pot column
            assert {p: Decimal(v) for p, v in summary["money"].items()} == {p: Decimal(v) / 100 for p, v in money.items()}
            assert Decimal(summary["pot"]["money"]) * 100 == led.pot(sid)["cents"]
            assert [(t["from"], t["to"], t["money"]) for t in summary["transfers"]] == \
                [(t["from"], t["to"], t["money"]) for t in settle["transfers"]]
            rows, transfers, accounts = _csv_rows(led, sid)
            assert accounts[-1] == "pot"
            assert {p: Decimal(rows["money"][p]) for p in money} == {p: Decimal(summary["money"][p]) for p in money}
            assert Decimal(rows["money"]["pot"]) == Decimal(summary["pot"]["money"])
            assert sum(Decimal(v) for v in rows["money"].values()) == 0
            assert sum(int(v) for v in rows["balance"].values()) == 0
            assert {p: Decimal(rows["settle"][p]) for p in money} == {p: Decimal(v) for p, v in summary["settle"].items()}
            assert [(r[-3], r[-2], Decimal(r[-1])) for r in transfers] == \
                [(t["from"], t["to"], Decimal(t["money"])) for t in summary["transfers"]]
            return settle

        before = check_views()
        if close:
            led.close_session(sid, why="the end")
            # closing pays the pot back exactly as the settle-up said it would
            assert led.pot(sid) == {"points": 0, "cents": 0, "money": "0.00"}
            assert led.money_cents(sid) == before["owed"]
            after = check_views()
            assert after["transfers"] == before["transfers"]


def test_pot_won_after_the_point_value_changed_pays_what_was_put_in(ledger):
    """The issue's case: a pot of 3 points put in at 1.00 a point, won after the value went to 0.50."""
    sid = ledger.open_session({**SETUP, "players": ["Ana", "Beto", "Cris"], "point_value": 1.0})
    no_winner = {"winner": None, "net": {"Ana": -1, "Beto": -1, "Cris": -1}, "pot_carried_out": 3,
                 "details": {"settlement": {"pot": {"carried_in": 0, "carried_out": 3},
                                            "players": [{"name": p, "ante": 1} for p in ("Ana", "Beto", "Cris")]}}}
    ledger.commit_hand(sid, no_winner)
    assert ledger.pot(sid) == {"points": 3, "cents": 300, "money": "3.00"}
    ledger.record_setup(sid, {**SETUP, "players": ["Ana", "Beto", "Cris"], "point_value": 0.5})
    win = {"winner": "Beto", "net": {"Ana": -1, "Beto": 5, "Cris": -1}, "pot_carried_out": 0,
           "details": {"settlement": {"pot": {"carried_in": 3, "carried_out": 0}}}}
    h = ledger.commit_hand(sid, win)
    # Beto: 2 points won from the others at 0.50, and the pot's 3.00 as it was put in
    assert h["money"] == {"Ana": "-0.50", "Beto": "4.00", "Cris": "-0.50"} and h["pot_money"] == "-3.00"
    assert ledger.money(sid) == {"Ana": "-1.50", "Beto": "3.00", "Cris": "-1.50"}
    assert ledger.pot(sid)["cents"] == 0
    assert ledger.transfers(sid) == [{"from": "Ana", "to": "Beto", "cents": 150, "money": "1.50"},
                                     {"from": "Cris", "to": "Beto", "cents": 150, "money": "1.50"}]


def test_pot_left_at_close_goes_back_to_those_who_put_it_in(ledger):
    sid = ledger.open_session({**SETUP, "players": ["Ana", "Beto", "Cris"], "point_value": 1.0})
    ledger.commit_hand(sid, {"winner": "Ana", "net": {"Ana": 4, "Beto": -2, "Cris": -2}})
    ledger.commit_hand(sid, {"winner": None, "net": {"Ana": -2, "Beto": -2, "Cris": -2}, "pot_carried_out": 6,
                             "details": {"settlement": {"pot": {"carried_in": 0, "carried_out": 6},
                                                        "players": [{"name": p, "ante": 2}
                                                                    for p in ("Ana", "Beto", "Cris")]}}})
    summary = ledger.summary(sid)
    assert summary["pot"]["money"] == "6.00" and summary["pot"]["return"] == {"Ana": "2.00", "Beto": "2.00",
                                                                              "Cris": "2.00"}
    assert summary["settle"] == {"Ana": "4.00", "Beto": "-2.00", "Cris": "-2.00"}
    assert all("(pot)" not in (t["from"], t["to"]) for t in summary["transfers"])
    new = ledger.open_session({**SETUP, "players": ["Ana", "Beto", "Cris"]})
    assert ledger.pot(sid)["points"] == 0 and ledger.money(sid) == summary["settle"]
    assert [e["kind"] for e in ledger.entries(sid)][-2:] == ["pot_return", "session_close"]
    assert ledger.pot(new)["points"] == 0 and ledger.balances(new) == {"Ana": 0, "Beto": 0, "Cris": 0}


def test_point_value_is_whole_cents(ledger):
    with pytest.raises(LedgerError, match="whole number of cents"):
        ledger.open_session({**SETUP, "point_value": 0.125})
    sid = ledger.open_session({**SETUP, "point_value": "0,1"})
    ledger.commit_hand(sid, {"net": {"Ana": 3, "Beto": -3}})
    assert ledger.money(sid)["Ana"] == "0.30"  # 3 x 0.1, not 0.30000000000000004
    for bad in (float("nan"), float("inf"), -1, True, "x"):
        with pytest.raises(LedgerError):
            ledger.record_setup(sid, {**SETUP, "point_value": bad})


def test_v2_ledger_opens_with_money_in_cents(tmp_path):
    path = tmp_path / "v2.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    assert migrate(conn, target=2) == 2
    conn.execute("INSERT INTO sessions (created_at, game) VALUES ('2026-01-01T00:00:00', 'desmoche')")
    conn.execute("INSERT INTO players (session_id, name, joined_at) VALUES (1, 'Ana', 'x'), (1, 'Beto', 'x')")
    conn.execute("INSERT INTO entries (session_id, created_at, kind, who, payload_json) VALUES"
                 " (1, 'x', 'session_open', 'host', '{\"players\": [\"Ana\", \"Beto\"], \"point_value\": 0.1}')")
    for no, pv in ((1, 0.1), (2, 0.29)):
        conn.execute("INSERT INTO hands (session_id, hand_no, created_at, game, winner, point_value, result_json)"
                     " VALUES (1, ?, 'x', 'desmoche', 'Ana', ?, '{\"net\": {\"Ana\": 3, \"Beto\": -3}}')", (no, pv))
        conn.execute("INSERT INTO entries (session_id, created_at, kind, who, hand_id) VALUES (1, 'x', 'hand', 'r', ?)",
                     (no,))
        conn.execute("INSERT INTO payments (entry_id, session_id, hand_id, player, points) VALUES"
                     " (?,1,?,'Ana',3),(?,1,?,'Beto',-3)", (no + 1, no, no + 1, no))
    conn.close()
    with Ledger(path) as led:
        assert led.version == LATEST
        assert led.money(1) == {"Ana": "1.17", "Beto": "-1.17"}  # 3 x 0.10 + 3 x 0.29, exactly
        assert [h["point_value"] for h in led.hands(1)] == ["0.10", "0.29"]
        led.commit_hand(1, {"net": {"Ana": 1, "Beto": -1}})
        assert led.money(1)["Ana"] == "1.27"


@pytest.mark.parametrize("prefix", ["=", "+", "-", "@", "\t", "\r"])
def test_csv_cells_neutralised_for_every_formula_prefix(ledger, prefix):
    import csv
    import io
    evil = prefix + "1+cmd|' /C calc'!A0"
    name = evil.strip() or "x"
    sid = ledger.open_session({**SETUP, "players": [name, "Beto"]})
    ledger.commit_hand(sid, {"winner": name, "net": {name: 2, "Beto": -2}}, who=evil, why=evil)
    rows = list(csv.reader(io.StringIO(ledger.export_csv(sid))))
    cells = [cell for row in rows for cell in row]
    for cell in cells:
        assert not cell.startswith(("=", "+", "@", "\t", "\r")), repr(cell)
        if cell.startswith("-"):
            float(cell)  # only the ledger's own negative numbers start with '-'
    assert "'" + evil in cells
