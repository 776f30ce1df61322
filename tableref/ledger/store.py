"""The session ledger: every hand, payment, correction and undo, in SQLite.

Design (see also ``docs/web.md``):

* One SQLite file, WAL journal, ``synchronous=FULL``, foreign keys on, schema
  versioned by :mod:`tableref.ledger.migrations`.
* An append-only journal. Every change is one ``entries`` row with who / when /
  why (``kind`` is ``session_open``, ``setup``, ``hand``, ``hand_correction``,
  ``card_correction``, ``undo`` or ``session_close``). Money moves only as
  ``payments`` rows belonging to an entry; the payments of each entry sum to
  zero, so the balances of a session always sum to zero.
* Nothing is overwritten or deleted. A hand's result is stored verbatim (the
  referee's ``hand_end`` dict) with its bonus items itemised. A correction of a
  hand is a new entry paying the difference between the new and the current
  nets; an undo is a new entry paying the exact reverse of its target.
* A hand is committed atomically with its payments and items in one
  ``BEGIN IMMEDIATE`` transaction: after a crash it is either wholly there or
  not at all, and the next open resumes the last open session.

All methods are thread-safe (one connection behind a lock); the web server's
threads share one :class:`Ledger`.
"""
from __future__ import annotations

import csv
import datetime as _dt
import io
import json
import math
import os
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path

from tableref.games import GAMES
from tableref.referee.errors import RefereeError

from tableref.ledger.migrations import LATEST, SchemaError, migrate
from tableref.ledger.transfers import fewest_transfers

POT = "(pot)"  # the account of a Desmoche pot carried over to a later hand; never a player's name
MONEY_KINDS = ("hand", "hand_correction", "undo")


class LedgerError(RefereeError):
    """A request the ledger refuses (bad result, unknown hand, ...). ``field`` names the culprit."""


def default_path(create: bool = True) -> Path:
    """``ledger.sqlite3`` in the user's data directory (the directory created if needed and ``create``)."""
    from platformdirs import user_data_dir

    folder = Path(user_data_dir("tableref", appauthor=False))
    if create:
        folder.mkdir(parents=True, exist_ok=True)
    return folder / "ledger.sqlite3"


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


def _points(value, field: str) -> int:
    """Points are whole numbers; accept 3.0 but refuse 2.5, NaN, True, "3"."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise LedgerError(f"{field} must be a whole number of points, got {value!r}", field)
    if isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            raise LedgerError(f"{field} must be a whole number of points, got {value!r}", field)
        value = int(value)
    if abs(value) > 10**12:
        raise LedgerError(f"{field} is out of range: {value}", field)
    return int(value)


def _name(value, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise LedgerError(f"{field} must be a non-empty player name, got {value!r}", field)
    value = value.strip()
    if value == POT:
        raise LedgerError(f"{field}: {POT!r} is the pot's account, not a player's name", field)
    if len(value) > 40:
        raise LedgerError(f"{field} is too long (at most 40 characters): {value!r}", field)
    return value


def _pot_flow(result: dict) -> int | None:
    """Points a hand puts into the pot (carried out minus carried in), if the result says so."""
    pot = ((result.get("details") or {}).get("settlement") or {}).get("pot") or {}
    out = result.get("pot_carried_out", pot.get("carried_out"))
    into = result.get("pot_carried_in", pot.get("carried_in", 0))
    if out is None:
        return None
    try:
        return _points(out, "pot_carried_out") - _points(into or 0, "pot_carried_in")
    except LedgerError:
        return None


def _check_net(net, field: str = "net", total: int = 0) -> dict[str, int]:
    if not isinstance(net, dict) or not net:
        raise LedgerError(f"'{field}' must be an object {{player: points}} with at least one player", field)
    out: dict[str, int] = {}
    for name, pts in net.items():
        out[_name(name, f"{field}.{name}")] = _points(pts, f"{field}.{name}")
    if sum(out.values()) != total:
        what = "zero" if total == 0 else f"{total} (the players' share of the pot carried in and out)"
        raise LedgerError(f"the nets of a hand must sum to {what}, these sum to {sum(out.values())}: {out}", field)
    return out


class _SafeWriter:
    """CSV writer that defuses spreadsheet formulas in text cells (a player named ``=HYPERLINK(...)``)."""

    def __init__(self, writer):
        self._w = writer

    def writerow(self, row):
        out = []
        for cell in row:
            if isinstance(cell, str) and cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
                try:
                    float(cell)
                except ValueError:
                    cell = "'" + cell
            out.append(cell)
        self._w.writerow(out)


class Ledger:
    """The SQLite ledger. ``Ledger(path)`` opens (creating and migrating) the file."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else default_path()
        if str(self.path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        try:
            self._conn = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False, timeout=10)
            self._conn.row_factory = sqlite3.Row
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=FULL")
            self._conn.execute("PRAGMA foreign_keys=ON")
            self._conn.execute("PRAGMA busy_timeout=10000")
            self.version = migrate(self._conn)
        except sqlite3.DatabaseError as exc:
            raise SchemaError(f"cannot open the ledger {self.path}: {exc}") from exc

    # ------------------------------------------------------------------ plumbing
    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @contextmanager
    def _tx(self):
        """One write transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``), rolled back on any error."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _q(self, sql: str, args=()) -> list[sqlite3.Row]:
        with self._lock:
            return self._conn.execute(sql, args).fetchall()

    def _entry(self, c, session_id: int, kind: str, who: str, why: str = "", hand_id=None,
               target=None, payload=None, client=None) -> int:
        cur = c.execute(
            "INSERT INTO entries (session_id, created_at, kind, who, why, hand_id, target_entry_id,"
            " payload_json, client) VALUES (?,?,?,?,?,?,?,?,?)",
            (session_id, _now(), kind, who or "?", why or "", hand_id, target,
             json.dumps(payload or {}, ensure_ascii=False, sort_keys=True), client),
        )
        return int(cur.lastrowid)

    def _ensure_players(self, c, session_id: int, names) -> None:
        for name in names:
            c.execute("INSERT OR IGNORE INTO players (session_id, name, joined_at) VALUES (?,?,?)",
                      (session_id, name, _now()))

    def _session_row(self, session_id: int):
        rows = self._q("SELECT * FROM sessions WHERE id=?", (session_id,))
        if not rows:
            raise LedgerError(f"no ledger session {session_id}", "session_id")
        return rows[0]

    # ------------------------------------------------------------------ sessions
    def open_session(self, setup: dict, who: str = "host", why: str = "", client: str | None = None) -> int:
        """Start a new session with ``setup`` (game, players, stake, point_value, rules, ...).

        Any session still open is closed first (one table, one open session).
        """
        setup = dict(setup or {})
        game = setup.get("game", "desmoche")
        if game not in GAMES:
            raise LedgerError(f"game must be one of {', '.join(GAMES)}, got {game!r}", "game")
        players = [_name(p, f"players[{i}]") for i, p in enumerate(setup.get("players") or [])]
        with self._tx() as c:
            for row in c.execute("SELECT id FROM sessions WHERE closed_at IS NULL").fetchall():
                self._entry(c, row["id"], "session_close", who, "a new session was started", client=client)
                c.execute("UPDATE sessions SET closed_at=? WHERE id=?", (_now(), row["id"]))
            cur = c.execute("INSERT INTO sessions (created_at, game, label) VALUES (?,?,?)",
                            (_now(), game, setup.get("label")))
            sid = int(cur.lastrowid)
            self._ensure_players(c, sid, players)
            self._entry(c, sid, "session_open", who, why, payload=setup, client=client)
        return sid

    def close_session(self, session_id: int, who: str = "host", why: str = "", client: str | None = None) -> None:
        self._session_row(session_id)
        with self._tx() as c:
            self._entry(c, session_id, "session_close", who, why, client=client)
            c.execute("UPDATE sessions SET closed_at=? WHERE id=? AND closed_at IS NULL", (_now(), session_id))

    def current_session(self) -> int | None:
        """The id of the session to resume (the newest one still open), or None."""
        rows = self._q("SELECT id FROM sessions WHERE closed_at IS NULL ORDER BY id DESC LIMIT 1")
        return int(rows[0]["id"]) if rows else None

    def resume_or_open(self, setup: dict, who: str = "host") -> tuple[int, bool]:
        """Resume the open session, or open one with ``setup``. Returns ``(id, resumed)``."""
        sid = self.current_session()
        if sid is not None:
            return sid, True
        return self.open_session(setup, who=who, why="first start"), False

    def setup(self, session_id: int) -> dict:
        """The setup in force: the payload of the latest ``session_open`` / ``setup`` entry."""
        rows = self._q(
            "SELECT payload_json FROM entries WHERE session_id=? AND kind IN ('session_open','setup')"
            " ORDER BY id DESC LIMIT 1", (session_id,))
        return json.loads(rows[0]["payload_json"]) if rows else {}

    def record_setup(self, session_id: int, setup: dict, who: str = "host", why: str = "",
                     client: str | None = None) -> int:
        """Record a new setup (players are added, never removed: past hands keep theirs)."""
        self._session_row(session_id)
        players = [_name(p, f"players[{i}]") for i, p in enumerate(setup.get("players") or [])]
        with self._tx() as c:
            self._ensure_players(c, session_id, players)
            return self._entry(c, session_id, "setup", who, why, payload=setup, client=client)

    def players(self, session_id: int) -> list[str]:
        """Players of the session: the current setup's order first, then those who left after playing a hand."""
        names = [r["name"] for r in self._q("SELECT name FROM players WHERE session_id=? ORDER BY id", (session_id,))]
        current = [p for p in (self.setup(session_id).get("players") or []) if p in names]
        paid = {r["player"] for r in self._q("SELECT DISTINCT player FROM payments WHERE session_id=?", (session_id,))}
        return current + [n for n in names if n not in current and n in paid]

    def session_info(self, session_id: int) -> dict:
        row = self._session_row(session_id)
        return {"id": int(row["id"]), "created_at": row["created_at"], "closed_at": row["closed_at"],
                "game": row["game"], "setup": self.setup(session_id), "players": self.players(session_id)}

    def sessions(self) -> list[dict]:
        return [self.session_info(int(r["id"])) for r in self._q("SELECT id FROM sessions ORDER BY id")]

    # ------------------------------------------------------------------ hands
    def commit_hand(self, session_id: int, result: dict, who: str = "referee", why: str = "",
                    external_id: str | None = None, client: str | None = None) -> dict:
        """Record one decided hand atomically: the hand, its payments and its bonus items.

        ``result`` is the referee's ``hand_end`` dict (``net`` summing to zero,
        optional ``winner``, ``items``, ``details``, ``game``); it is stored
        verbatim. Returns the stored hand (see :meth:`hand`). With ``external_id``
        a hand already committed under that id is returned unchanged, so a
        replayed ``hand_end`` is never counted twice.
        """
        if not isinstance(result, dict):
            raise LedgerError("the hand result must be a JSON object", "result")
        row = self._session_row(session_id)
        if row["closed_at"] is not None:
            raise LedgerError(f"ledger session {session_id} is closed", "session_id")
        try:
            verbatim = json.dumps(result, ensure_ascii=False, sort_keys=True)
        except (TypeError, ValueError) as exc:
            raise LedgerError(f"the hand result is not JSON-able: {exc}", "result")
        flow = _pot_flow(result)
        net = _check_net(result.get("net"), "net", total=-flow if flow else 0)
        winner = result.get("winner")
        if winner is not None:
            winner = _name(winner, "winner")
        game = result.get("game") or self.setup(session_id).get("game") or row["game"]
        if game not in GAMES:
            raise LedgerError(f"game must be one of {', '.join(GAMES)}, got {game!r}", "game")
        items = result.get("items") or []
        if not isinstance(items, list):
            raise LedgerError("'items' must be a list of bonus items", "items")
        clean_items = []
        for i, it in enumerate(items):
            if not isinstance(it, dict) or not isinstance(it.get("item"), str):
                raise LedgerError(f"items[{i}] must be an object with an 'item' name", f"items[{i}]")
            pts = it.get("points")
            pts = None if pts is None else _points(pts, f"items[{i}].points")
            player = it.get("player")
            detail = {k: v for k, v in it.items() if k not in ("item", "player", "points")}
            clean_items.append((it["item"], None if player is None else str(player), pts,
                                json.dumps(detail, ensure_ascii=False, sort_keys=True)))
        point_value = float(self.setup(session_id).get("point_value") or 0.0)
        if external_id is not None:
            external_id = str(external_id)
        with self._tx() as c:
            old = None
            if external_id is not None:
                old = c.execute("SELECT id FROM hands WHERE session_id=? AND external_id=?",
                                (session_id, external_id)).fetchone()
            if old is not None:
                hand_id = int(old["id"])
            else:
                hand_no = int(c.execute("SELECT COALESCE(MAX(hand_no),0)+1 FROM hands WHERE session_id=?",
                                        (session_id,)).fetchone()[0])
                self._ensure_players(c, session_id, list(net) + ([winner] if winner else []))
                cur = c.execute(
                    "INSERT INTO hands (session_id, hand_no, created_at, game, winner, point_value, result_json,"
                    " external_id) VALUES (?,?,?,?,?,?,?,?)",
                    (session_id, hand_no, _now(), game, winner, point_value, verbatim, external_id))
                hand_id = int(cur.lastrowid)
                entry = self._entry(c, session_id, "hand", who, why, hand_id=hand_id,
                                    payload={"hand_no": hand_no, "net": net, "winner": winner}, client=client)
                pays = dict(net)
                if flow:
                    pays[POT] = flow  # the pot holds what was carried over, so every entry sums to zero
                for name, pts in pays.items():
                    c.execute("INSERT INTO payments (entry_id, session_id, hand_id, player, points) VALUES (?,?,?,?,?)",
                              (entry, session_id, hand_id, name, pts))
                for item in clean_items:
                    c.execute("INSERT INTO items (hand_id, item, player, points, detail_json) VALUES (?,?,?,?,?)",
                              (hand_id, *item))
        return self.hand(hand_id)

    def _hand_entry(self, hand_id: int) -> int:
        rows = self._q("SELECT id FROM entries WHERE hand_id=? AND kind='hand'", (hand_id,))
        return int(rows[0]["id"])

    def hand(self, hand_id: int) -> dict:
        rows = self._q("SELECT * FROM hands WHERE id=?", (hand_id,))
        if not rows:
            raise LedgerError(f"no hand with id {hand_id}", "hand_id")
        return self._hand_dict(rows[0], self._undone_entries(int(rows[0]["session_id"])))

    def _hand_dict(self, row, undone: set[int]) -> dict:
        hid = int(row["id"])
        result = json.loads(row["result_json"])
        original = {str(k): int(v) for k, v in (result.get("net") or {}).items()}
        current: dict[str, int] = {}
        for p in self._q("SELECT player, SUM(points) AS s FROM payments WHERE hand_id=? GROUP BY player ORDER BY MIN(id)",
                         (hid,)):
            current[p["player"]] = int(p["s"])
        items = [{"item": r["item"], "player": r["player"], "points": r["points"], **json.loads(r["detail_json"])}
                 for r in self._q("SELECT * FROM items WHERE hand_id=? ORDER BY id", (hid,))]
        entry = self._hand_entry(hid)
        corrections = [int(r["id"]) for r in self._q(
            "SELECT id FROM entries WHERE hand_id=? AND kind='hand_correction' ORDER BY id", (hid,))]
        return {
            "id": hid, "hand_no": int(row["hand_no"]), "created_at": row["created_at"], "game": row["game"],
            "winner": row["winner"], "point_value": float(row["point_value"]), "entry_id": entry,
            "net_original": original, "net": {p: v for p, v in current.items() if p != POT},
            "pot": current.get(POT, 0), "items": items, "result": result,
            "undone": entry in undone, "corrected": bool([e for e in corrections if e not in undone]),
            "external_id": row["external_id"],
        }

    def hand_count(self, session_id: int) -> int:
        return int(self._q("SELECT COUNT(*) FROM hands WHERE session_id=?", (session_id,))[0][0])

    def hands(self, session_id: int) -> list[dict]:
        undone = self._undone_entries(session_id)
        return [self._hand_dict(r, undone)
                for r in self._q("SELECT * FROM hands WHERE session_id=? ORDER BY hand_no", (session_id,))]

    # ------------------------------------------------------------------ corrections and undo
    def correct_hand(self, session_id: int, hand_id: int, net: dict, who: str = "host", why: str = "",
                     client: str | None = None) -> int:
        """Set a hand's nets to ``net`` by a new entry paying the difference. Returns the entry id."""
        if not (why or "").strip():
            raise LedgerError("a correction needs a reason ('why')", "why")
        hand = self.hand(hand_id)
        net = _check_net(net, "net", total=-hand["pot"])
        if hand["pot"]:
            net[POT] = hand["pot"]
        current = {**hand["net"], POT: hand["pot"]} if hand["pot"] else hand["net"]
        if self._q("SELECT session_id FROM hands WHERE id=?", (hand_id,))[0]["session_id"] != session_id:
            raise LedgerError(f"hand {hand_id} is not in session {session_id}", "hand_id")
        if hand["undone"]:
            raise LedgerError(f"hand {hand['hand_no']} was undone; undo the undo before correcting it", "hand_id")
        delta = {p: net.get(p, 0) - current.get(p, 0) for p in dict.fromkeys([*current, *net])}
        delta = {p: d for p, d in delta.items() if d}
        if not delta:
            raise LedgerError("the correction changes nothing: the hand already has these nets", "net")
        with self._tx() as c:
            self._ensure_players(c, session_id, [p for p in net if p != POT])
            entry = self._entry(c, session_id, "hand_correction", who, why, hand_id=hand_id,
                                target=hand["entry_id"], client=client,
                                payload={"hand_no": hand["hand_no"], "before": hand["net"], "after": net})
            for name, pts in delta.items():
                c.execute("INSERT INTO payments (entry_id, session_id, hand_id, player, points) VALUES (?,?,?,?,?)",
                          (entry, session_id, hand_id, name, pts))
        return entry

    def record_card_correction(self, session_id: int, payload: dict, who: str = "host", why: str = "",
                               client: str | None = None) -> int:
        """Record a host's correction of what the camera read (no money moves)."""
        self._session_row(session_id)
        with self._tx() as c:
            return self._entry(c, session_id, "card_correction", who, why, payload=payload, client=client)

    def _undone_entries(self, session_id: int) -> set[int]:
        """Entries cancelled by an undo that is itself still in force."""
        rows = self._q("SELECT id, target_entry_id FROM entries WHERE session_id=? AND kind='undo' ORDER BY id DESC",
                       (session_id,))
        undone: set[int] = set()
        # Newest first: an undo that is itself undone does not cancel its target.
        for r in rows:
            if int(r["id"]) not in undone and r["target_entry_id"] is not None:
                undone.add(int(r["target_entry_id"]))
        return undone

    def undo(self, session_id: int, entry_id: int | None = None, who: str = "host", why: str = "",
             client: str | None = None) -> int:
        """Reverse ``entry_id`` (default: the newest hand or correction still in force) by a new entry.

        Undoing an undo restores what it reversed. Returns the new entry's id.
        """
        self._session_row(session_id)
        undone = self._undone_entries(session_id)
        if entry_id is None:
            rows = self._q("SELECT id FROM entries WHERE session_id=? AND kind IN ('hand','hand_correction')"
                           " ORDER BY id DESC", (session_id,))
            candidates = [int(r["id"]) for r in rows if int(r["id"]) not in undone]
            if not candidates:
                raise LedgerError("there is nothing to undo in this session", "entry_id")
            entry_id = candidates[0]
        rows = self._q("SELECT * FROM entries WHERE id=? AND session_id=?", (entry_id, session_id))
        if not rows:
            raise LedgerError(f"no entry {entry_id} in session {session_id}", "entry_id")
        target = rows[0]
        if target["kind"] not in MONEY_KINDS:
            raise LedgerError(f"entry {entry_id} ({target['kind']}) moves no points and cannot be undone", "entry_id")
        if entry_id in undone:
            raise LedgerError(f"entry {entry_id} is already undone", "entry_id")
        if target["kind"] == "hand_correction" and self._hand_entry(target["hand_id"]) in undone:
            raise LedgerError(f"entry {entry_id} belongs to a hand that was undone; undo that undo first",
                              "entry_id")
        if target["kind"] == "hand":
            # Undoing a hand cancels it with its corrections: pay back whatever is in force.
            pays = self._q("SELECT player, SUM(points) AS s FROM payments WHERE hand_id=? GROUP BY player",
                           (target["hand_id"],))
        else:
            pays = self._q("SELECT player, SUM(points) AS s FROM payments WHERE entry_id=? GROUP BY player",
                           (entry_id,))
        reverse = {r["player"]: -int(r["s"]) for r in pays if int(r["s"])}
        payload = {"reverses": {"entry_id": int(entry_id), "kind": target["kind"]}, "payments": reverse}
        if target["hand_id"] is not None:
            payload["hand_no"] = int(self._q("SELECT hand_no FROM hands WHERE id=?", (target["hand_id"],))[0]["hand_no"])
        with self._tx() as c:
            entry = self._entry(c, session_id, "undo", who, why, hand_id=target["hand_id"], target=entry_id,
                                payload=payload, client=client)
            for name, pts in reverse.items():
                c.execute("INSERT INTO payments (entry_id, session_id, hand_id, player, points) VALUES (?,?,?,?,?)",
                          (entry, session_id, target["hand_id"], name, pts))
        return entry

    def entries(self, session_id: int) -> list[dict]:
        undone = self._undone_entries(session_id)
        out = []
        for r in self._q("SELECT * FROM entries WHERE session_id=? ORDER BY id", (session_id,)):
            pays = {p["player"]: int(p["points"]) for p in
                    self._q("SELECT player, points FROM payments WHERE entry_id=? ORDER BY id", (r["id"],))}
            out.append({"id": int(r["id"]), "created_at": r["created_at"], "kind": r["kind"], "who": r["who"],
                        "why": r["why"], "client": r["client"], "hand_id": r["hand_id"],
                        "target_entry_id": r["target_entry_id"], "payload": json.loads(r["payload_json"]),
                        "payments": pays, "undone": int(r["id"]) in undone})
        return out

    # ------------------------------------------------------------------ balances
    def balances(self, session_id: int) -> dict[str, int]:
        """Points per player (positive: is owed). Always sums to zero."""
        out = {name: 0 for name in self.players(session_id)}
        for r in self._q("SELECT player, SUM(points) AS s FROM payments WHERE session_id=? GROUP BY player",
                         (session_id,)):
            out[r["player"]] = int(r["s"])
        return out

    def money(self, session_id: int) -> dict[str, float]:
        """Balances in money: each hand's points times the point value in force at that hand."""
        out = {name: 0.0 for name in self.players(session_id)}
        for r in self._q("SELECT p.player, SUM(p.points * h.point_value) AS s FROM payments p JOIN hands h"
                         " ON h.id = p.hand_id WHERE p.session_id=? GROUP BY p.player", (session_id,)):
            out[r["player"]] = round(float(r["s"]), 2)
        return out

    def transfers(self, session_id: int) -> list[dict]:
        """The fewest transfers settling the balances (see :mod:`tableref.ledger.transfers`)."""
        pv = float(self.setup(session_id).get("point_value") or 0.0)
        out = fewest_transfers(self.balances(session_id))
        for t in out:
            t["money"] = round(t["points"] * pv, 2)
        return out

    def summary(self, session_id: int) -> dict:
        """Everything the scoreboard shows: hands with running balances, entries, balances, transfers."""
        info = self.session_info(session_id)
        hands = self.hands(session_id)
        running = {p: 0 for p in info["players"]}
        for h in hands:
            for p, v in h["net"].items():
                running[p] = running.get(p, 0) + v
            h["running"] = dict(running)
        balances = self.balances(session_id)
        return {"session": info, "hands": hands, "entries": self.entries(session_id), "balances": balances,
                "money": self.money(session_id), "transfers": self.transfers(session_id),
                "schema_version": self.version}

    def export_csv(self, session_id: int) -> str:
        """The session as CSV: one row per journal entry that moves points, then the balances and transfers."""
        players = self.players(session_id)
        hands = {h["id"]: h for h in self.hands(session_id)}
        buf = io.StringIO()
        w = _SafeWriter(csv.writer(buf))
        w.writerow(["entry", "time_utc", "kind", "hand", "game", "winner", "who", "why", *players, "items", "undone"])
        for e in self.entries(session_id):
            if e["kind"] not in MONEY_KINDS:
                continue
            h = hands.get(e["hand_id"]) if e["hand_id"] else None
            items = ""
            if e["kind"] == "hand" and h:
                items = "; ".join(f"{it['item']}" + (f" {it['player']}" if it.get("player") else "")
                                  + (f" {it['points']:+d}" if isinstance(it.get("points"), int) else "")
                                  for it in h["items"])
            w.writerow([e["id"], e["created_at"], e["kind"], h["hand_no"] if h else "", h["game"] if h else "",
                        (h["winner"] or "") if h else "", e["who"], e["why"],
                        *[e["payments"].get(p, "") for p in players], items, "yes" if e["undone"] else ""])
        bal = self.balances(session_id)
        w.writerow(["", "", "balance", "", "", "", "", "", *[bal.get(p, 0) for p in players], "", ""])
        money = self.money(session_id)
        w.writerow(["", "", "money", "", "", "", "", "", *[f"{money.get(p, 0):.2f}" for p in players], "", ""])
        for t in self.transfers(session_id):
            w.writerow(["", "", "transfer", "", "", "", "", f"{t['from']} pays {t['to']}", *["" for _ in players],
                        f"{t['points']} points = {t['money']:.2f}", ""])
        return buf.getvalue()


__all__ = ["Ledger", "LedgerError", "SchemaError", "LATEST", "default_path"]
