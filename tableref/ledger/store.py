"""The session ledger: every hand, payment, correction and undo, in SQLite.

Design (see also ``docs/web.md``):

* One SQLite file, WAL journal, ``synchronous=FULL``, foreign keys on, schema
  versioned by :mod:`tableref.ledger.migrations`.
* An append-only journal. Every change is one ``entries`` row with who / when /
  why (``kind`` is ``session_open``, ``setup``, ``hand``, ``hand_correction``,
  ``card_correction``, ``next_hand``, ``undo``, ``pot_return`` or ``session_close``). Money
  moves only as ``payments`` rows belonging to an entry, each with its points
  and its money in whole cents (:mod:`tableref.ledger.money`); the payments of
  each entry sum to zero in points and in cents, so the balances of a session
  (the players' and the pot's) always sum to zero.
* Money: each hand's points are paid at the money per point in force when the
  hand was recorded (its corrections and undo too). The Desmoche pot carried
  over is the table's account ``(pot)``, never a payer or payee in transfers; a
  pot won later pays out the money that was put into it (the difference from
  today's point value goes to the hand's winner). When a session closes, a pot
  left is paid back to those who put it in, in the shares they put it in since
  the pot was last empty (entry ``pot_return``). The settle-up (:meth:`Ledger.settlement`)
  is the players' money with the pot paid back, and its fewest transfers pay
  exactly those amounts.
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
from decimal import Decimal
from pathlib import Path

from tableref.games import GAMES
from tableref.referee.reasons import Reason

from tableref.ledger.errors import LedgerError, MoneyError, SchemaError
from tableref.ledger.migrations import LATEST, migrate
from tableref.ledger.money import decimal as dec, fmt, point_value_cents, split
from tableref.ledger.transfers import fewest_transfers

POT = "(pot)"  # the account of a Desmoche pot carried over to a later hand; never a player's name
MONEY_KINDS = ("hand", "hand_correction", "undo")  # entries of a hand that move points (and can be undone)
PAYING_KINDS = MONEY_KINDS + ("pot_return",)       # every entry that moves money


def _bad_game(game) -> Reason:
    return Reason("ledger_bad_game", f"game must be one of {', '.join(GAMES)}, got {game!r}",
                  choices=", ".join(GAMES), value=repr(game))


def default_path(create: bool = True) -> Path:
    """``ledger.sqlite3`` in the user's data directory (the directory created if needed and ``create``)."""
    from platformdirs import user_data_dir

    folder = Path(user_data_dir("tableref", appauthor=False))
    if create:
        folder.mkdir(parents=True, exist_ok=True)
    return folder / "ledger.sqlite3"


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


def _not_points(field: str, value) -> Reason:
    return Reason("not_points", f"{field} must be a whole number of points, got {value!r}", field=field,
                  value=repr(value))


def _points(value, field: str) -> int:
    """Points are whole numbers; accept 3.0 but refuse 2.5, NaN, True, "3"."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise LedgerError(_not_points(field, value), field)
    if isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            raise LedgerError(_not_points(field, value), field)
        value = int(value)
    if abs(value) > 10**12:
        raise LedgerError(Reason("points_range", f"{field} is out of range: {value}", field=field, value=value), field)
    return int(value)


def _name(value, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise LedgerError(Reason("not_a_name", f"{field} must be a non-empty player name, got {value!r}", field=field,
                                 value=repr(value)), field)
    value = value.strip()
    if value == POT:
        raise LedgerError(Reason("pot_not_a_name", f"{field}: {POT!r} is the pot's account, not a player's name",
                                 field=field, pot=repr(POT)), field)
    if len(value) > 40:
        raise LedgerError(Reason("name_too_long", f"{field} is too long (at most 40 characters): {value!r}",
                                 field=field, value=repr(value)), field)
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
        raise LedgerError(Reason("bad_net", f"'{field}' must be an object {{player: points}} with at least one player",
                                 field=field), field)
    out: dict[str, int] = {}
    for name, pts in net.items():
        out[_name(name, f"{field}.{name}")] = _points(pts, f"{field}.{name}")
    if sum(out.values()) != total:
        got, nets = sum(out.values()), ", ".join(f"{p} {v:+d}" for p, v in out.items())
        raise LedgerError(Reason("nets_sum_zero", f"the nets of a hand must sum to zero, these sum to {got}: {nets}",
                                 got=got, nets=nets) if total == 0 else
                          Reason("nets_sum_total", f"the nets of a hand must sum to {total} (the players' share of the "
                                 f"pot carried in and out), these sum to {got}: {nets}", total=total, got=got,
                                 nets=nets), field)
    return out


FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def neutralise(cell):
    """A text cell a spreadsheet would run as a formula gets a leading ``'`` (shown as text)."""
    if isinstance(cell, str) and cell.startswith(FORMULA_PREFIXES):
        return "'" + cell
    return cell


class _SafeWriter:
    """CSV writer that defuses spreadsheet formulas in every text cell (a player named ``=HYPERLINK(...)``,
    ``+1+cmd``, ``-2+3``, ``@SUM(...)``, or one starting with a tab or carriage return). The ledger's own
    numbers are written as numbers (int, Decimal), never as text, so they are left as they are."""

    def __init__(self, writer):
        self._w = writer

    def writerow(self, row):
        self._w.writerow([neutralise(cell) for cell in row])


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
            raise LedgerError(Reason("no_ledger_session", f"no ledger session {session_id}", session=session_id),
                              "session_id")
        return rows[0]

    # ------------------------------------------------------------------ sessions
    def open_session(self, setup: dict, who: str = "host", why: str = "", client: str | None = None) -> int:
        """Start a new session with ``setup`` (game, players, stake, point_value, rules, ...).

        Any session still open is closed first (one table, one open session).
        """
        setup = dict(setup or {})
        game = setup.get("game", "desmoche")
        if game not in GAMES:
            raise LedgerError(_bad_game(game), "game")
        players = [_name(p, f"players[{i}]") for i, p in enumerate(setup.get("players") or [])]
        _check_point_value(setup)
        with self._tx() as c:
            for row in c.execute("SELECT id FROM sessions WHERE closed_at IS NULL").fetchall():
                self._close(c, int(row["id"]), who, "a new session was started", client)
            cur = c.execute("INSERT INTO sessions (created_at, game, label) VALUES (?,?,?)",
                            (_now(), game, setup.get("label")))
            sid = int(cur.lastrowid)
            self._ensure_players(c, sid, players)
            self._entry(c, sid, "session_open", who, why, payload=setup, client=client)
        return sid

    def close_session(self, session_id: int, who: str = "host", why: str = "", client: str | None = None) -> None:
        """Close the session: a pot left is paid back (entry ``pot_return``), then ``session_close``."""
        if self._session_row(session_id)["closed_at"] is not None:
            return
        with self._tx() as c:
            self._close(c, session_id, who, why, client)

    def _close(self, c, session_id: int, who: str, why: str, client) -> None:
        back = self._pot_return(session_id)
        if back is not None:
            points, cents = back
            entry = self._entry(c, session_id, "pot_return", who, "the session closed: the pot goes back to"
                                " those who put it in", client=client,
                                payload={"points": points, "money": {p: fmt(v) for p, v in cents.items()}})
            for name in points:
                c.execute("INSERT INTO payments (entry_id, session_id, hand_id, player, points, cents)"
                          " VALUES (?,?,?,?,?,?)", (entry, session_id, None, name, points[name], cents[name]))
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
        _check_point_value(setup)
        with self._tx() as c:
            self._ensure_players(c, session_id, players)
            return self._entry(c, session_id, "setup", who, why, payload=setup, client=client)

    def players(self, session_id: int) -> list[str]:
        """Players of the session: the current setup's order first, then those who left after playing a hand."""
        names = [r["name"] for r in self._q("SELECT name FROM players WHERE session_id=? ORDER BY id", (session_id,))]
        current = [p for p in (self.setup(session_id).get("players") or []) if p in names]
        paid = {r["player"] for r in self._q("SELECT DISTINCT player FROM payments WHERE session_id=? AND player<>?",
                                            (session_id, POT))}
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
            raise LedgerError(Reason("result_not_object", "the hand result must be a JSON object"), "result")
        row = self._session_row(session_id)
        if row["closed_at"] is not None:
            raise LedgerError(Reason("session_closed", f"ledger session {session_id} is closed", session=session_id),
                              "session_id")
        try:
            verbatim = json.dumps(result, ensure_ascii=False, sort_keys=True)
        except (TypeError, ValueError) as exc:
            raise LedgerError(Reason("result_not_json", f"the hand result is not JSON-able: {exc}", why=str(exc)),
                              "result")
        flow = _pot_flow(result)
        net = _check_net(result.get("net"), "net", total=-flow if flow else 0)
        winner = result.get("winner")
        if winner is not None:
            winner = _name(winner, "winner")
        game = result.get("game") or self.setup(session_id).get("game") or row["game"]
        if game not in GAMES:
            raise LedgerError(_bad_game(game), "game")
        items = result.get("items") or []
        if not isinstance(items, list):
            raise LedgerError(Reason("items_not_list", "'items' must be a list of bonus items"), "items")
        clean_items = []
        for i, it in enumerate(items):
            if not isinstance(it, dict) or not isinstance(it.get("item"), str):
                raise LedgerError(Reason("bad_item", f"items[{i}] must be an object with an 'item' name",
                                         field=f"items[{i}]"), f"items[{i}]")
            pts = it.get("points")
            pts = None if pts is None else _points(pts, f"items[{i}].points")
            player = it.get("player")
            detail = {k: v for k, v in it.items() if k not in ("item", "player", "points")}
            clean_items.append((it["item"], None if player is None else str(player), pts,
                                json.dumps(detail, ensure_ascii=False, sort_keys=True)))
        # a setup written before money was kept in cents may hold a fraction of a cent: rounded
        pv = point_value_cents(self.setup(session_id).get("point_value") or 0, strict=False)
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
                    "INSERT INTO hands (session_id, hand_no, created_at, game, winner, point_value, point_value_cents,"
                    " result_json, external_id) VALUES (?,?,?,?,?,?,?,?,?)",
                    # point_value (REAL) only for readers of schema v2; the money uses point_value_cents
                    (session_id, hand_no, _now(), game, winner, pv / 100, pv, verbatim, external_id))
                hand_id = int(cur.lastrowid)
                entry = self._entry(c, session_id, "hand", who, why, hand_id=hand_id,
                                    payload={"hand_no": hand_no, "net": net, "winner": winner}, client=client)
                pays = {name: (pts, pts * pv) for name, pts in net.items()}
                if flow:
                    # the pot holds what was carried over, so every entry sums to zero
                    pays[POT] = (flow, self._pot_money(c, session_id, flow, pv))
                    gap = flow * pv - pays[POT][1]  # a pot put in at another point value
                    if gap:
                        taker = winner if winner in pays else max(net, key=lambda p: (net[p], -list(net).index(p)))
                        pays[taker] = (pays[taker][0], pays[taker][1] + gap)
                self._pay(c, entry, session_id, hand_id, pays)
                for item in clean_items:
                    c.execute("INSERT INTO items (hand_id, item, player, points, detail_json) VALUES (?,?,?,?,?)",
                              (hand_id, *item))
        return self.hand(hand_id)

    @staticmethod
    def _pay(c, entry: int, session_id: int, hand_id, pays: dict) -> None:
        for name, (pts, cents) in pays.items():
            c.execute("INSERT INTO payments (entry_id, session_id, hand_id, player, points, cents) VALUES (?,?,?,?,?,?)",
                      (entry, session_id, hand_id, name, int(pts), int(cents)))

    @staticmethod
    def _pot_level(c, session_id: int) -> tuple[int, int]:
        row = c.execute("SELECT COALESCE(SUM(points),0), COALESCE(SUM(cents),0) FROM payments"
                        " WHERE session_id=? AND player=?", (session_id, POT)).fetchone()
        return int(row[0]), int(row[1])

    def _pot_money(self, c, session_id: int, flow: int, pv: int) -> int:
        """Cents the pot takes in (``flow`` > 0, at today's value) or pays out (the money put in)."""
        if flow >= 0:
            return flow * pv
        points, cents = self._pot_level(c, session_id)
        taken = -flow
        if points <= 0:
            return flow * pv
        if taken >= points:
            return -cents - (taken - points) * pv
        return -split(cents, {"taken": taken, "left": points - taken})["taken"]

    def _pot_return(self, session_id: int):
        """``(points, cents)`` per player paying back the pot left, or None when it is empty.

        The pot goes back to those who put it in, in the shares they put it in
        since it was last empty (first in, first out when part of it was taken).
        """
        pot_points, pot_cents = self._pot_level(self._conn, session_id)
        if not pot_points and not pot_cents:
            return None
        fifo: list[list] = []  # [player, points] still in the pot, oldest first
        level = 0
        rows = self._q("SELECT h.id, h.result_json, SUM(p.points) AS flow FROM payments p JOIN hands h"
                       " ON h.id = p.hand_id WHERE p.session_id=? AND p.player=? GROUP BY h.id ORDER BY h.hand_no",
                       (session_id, POT))
        for r in rows:
            flow = int(r["flow"])
            if flow > 0:
                for name, pts in _antes(json.loads(r["result_json"]), flow).items():
                    fifo.append([name, pts])
                level += flow
            elif flow < 0:
                level += flow
                taken = -flow
                while taken and fifo:
                    use = min(taken, fifo[0][1])
                    fifo[0][1] -= use
                    taken -= use
                    if not fifo[0][1]:
                        fifo.pop(0)
                if level <= 0:
                    fifo, level = [], 0
        weights: dict[str, int] = {}
        for name, pts in fifo:
            weights[name] = weights.get(name, 0) + pts
        order = [p for p in self.players(session_id) if p in weights] + [p for p in weights
                                                                        if p not in self.players(session_id)]
        if not order:
            order = self.players(session_id)
            if not order:
                return None
        points = split(pot_points, weights, order)
        cents = split(pot_cents, weights, order)
        points[POT] = -pot_points
        cents[POT] = -pot_cents
        return points, cents

    def _hand_entry(self, hand_id: int) -> int:
        rows = self._q("SELECT id FROM entries WHERE hand_id=? AND kind='hand'", (hand_id,))
        return int(rows[0]["id"])

    def hand(self, hand_id: int) -> dict:
        rows = self._q("SELECT * FROM hands WHERE id=?", (hand_id,))
        if not rows:
            raise LedgerError(Reason("no_hand", f"no hand with id {hand_id}", hand_id=hand_id), "hand_id")
        return self._hand_dict(rows[0], self._undone_entries(int(rows[0]["session_id"])))

    def _hand_dict(self, row, undone: set[int]) -> dict:
        hid = int(row["id"])
        result = json.loads(row["result_json"])
        original = {str(k): int(v) for k, v in (result.get("net") or {}).items()}
        current: dict[str, int] = {}
        cents: dict[str, int] = {}
        for p in self._q("SELECT player, SUM(points) AS s, SUM(cents) AS m FROM payments WHERE hand_id=?"
                         " GROUP BY player ORDER BY MIN(id)", (hid,)):
            current[p["player"]] = int(p["s"])
            cents[p["player"]] = int(p["m"])
        pv = int(row["point_value_cents"])
        items = [{"item": r["item"], "player": r["player"], "points": r["points"], **json.loads(r["detail_json"])}
                 for r in self._q("SELECT * FROM items WHERE hand_id=? ORDER BY id", (hid,))]
        entry = self._hand_entry(hid)
        corrections = [int(r["id"]) for r in self._q(
            "SELECT id FROM entries WHERE hand_id=? AND kind='hand_correction' ORDER BY id", (hid,))]
        return {
            "id": hid, "hand_no": int(row["hand_no"]), "created_at": row["created_at"], "game": row["game"],
            "winner": row["winner"], "point_value": fmt(pv), "entry_id": entry,
            "net_original": original, "net": {p: v for p, v in current.items() if p != POT},
            "pot": current.get(POT, 0), "money": {p: fmt(v) for p, v in cents.items() if p != POT},
            "pot_money": fmt(cents.get(POT, 0)), "items": items, "result": result,
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
            raise LedgerError(Reason("correction_why", "a correction needs a reason ('why')"), "why")
        hand = self.hand(hand_id)
        net = _check_net(net, "net", total=-hand["pot"])
        if hand["pot"]:
            net[POT] = hand["pot"]
        current = {**hand["net"], POT: hand["pot"]} if hand["pot"] else hand["net"]
        if self._q("SELECT session_id FROM hands WHERE id=?", (hand_id,))[0]["session_id"] != session_id:
            raise LedgerError(Reason("hand_other_session", f"hand {hand_id} is not in session {session_id}",
                                     hand_id=hand_id, session=session_id), "hand_id")
        if hand["undone"]:
            raise LedgerError(Reason("hand_undone", f"hand {hand['hand_no']} was undone; undo the undo before "
                                     "correcting it", hand_no=hand["hand_no"]), "hand_id")
        delta = {p: net.get(p, 0) - current.get(p, 0) for p in dict.fromkeys([*current, *net])}
        delta = {p: d for p, d in delta.items() if d}
        if not delta:
            raise LedgerError(Reason("correction_no_change", "the correction changes nothing: the hand already has "
                                     "these nets"), "net")
        pv = point_value_cents(hand["point_value"])
        with self._tx() as c:
            self._ensure_players(c, session_id, [p for p in net if p != POT])
            entry = self._entry(c, session_id, "hand_correction", who, why, hand_id=hand_id,
                                target=hand["entry_id"], client=client,
                                payload={"hand_no": hand["hand_no"], "before": hand["net"], "after": net})
            self._pay(c, entry, session_id, hand_id, {name: (pts, pts * pv) for name, pts in delta.items()})
        return entry

    def record_card_correction(self, session_id: int, payload: dict, who: str = "host", why: str = "",
                               client: str | None = None) -> int:
        """Record a host's correction of what the camera read (no money moves)."""
        self._session_row(session_id)
        with self._tx() as c:
            return self._entry(c, session_id, "card_correction", who, why, payload=payload, client=client)

    def record_next_hand(self, session_id: int, payload: dict, who: str = "host", why: str = "",
                         client: str | None = None) -> int:
        """Record that the host started the next hand (no money moves; an undecided hand set aside
        is not recorded: ``payload`` says which hand and whether it was decided)."""
        self._session_row(session_id)
        with self._tx() as c:
            return self._entry(c, session_id, "next_hand", who, why, payload=payload, client=client)

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
                raise LedgerError(Reason("nothing_to_undo", "there is nothing to undo in this session"), "entry_id")
            entry_id = candidates[0]
        rows = self._q("SELECT * FROM entries WHERE id=? AND session_id=?", (entry_id, session_id))
        if not rows:
            raise LedgerError(Reason("no_entry", f"no entry {entry_id} in session {session_id}", entry=entry_id,
                                     session=session_id), "entry_id")
        target = rows[0]
        if target["kind"] not in MONEY_KINDS:
            raise LedgerError(Reason("entry_no_points", f"entry {entry_id} ({target['kind']}) moves no points and "
                                     "cannot be undone", entry=entry_id, kind=target["kind"]), "entry_id")
        if entry_id in undone:
            raise LedgerError(Reason("entry_undone", f"entry {entry_id} is already undone", entry=entry_id),
                              "entry_id")
        if target["kind"] == "hand_correction" and self._hand_entry(target["hand_id"]) in undone:
            raise LedgerError(Reason("entry_hand_undone", f"entry {entry_id} belongs to a hand that was undone; undo "
                                     "that undo first", entry=entry_id), "entry_id")
        if target["kind"] == "undo" and target["hand_id"] is not None:
            # An undo is undone newest first, hand by hand: then undoing it restores exactly the state
            # before it (never a correction of a hand that is not in force, nor a hand cancelled twice).
            later = [int(r["id"]) for r in self._q(
                "SELECT id FROM entries WHERE hand_id=? AND id>? AND kind IN ('hand','hand_correction','undo')",
                (target["hand_id"], entry_id)) if int(r["id"]) not in undone]
            if later:
                raise LedgerError(Reason("entry_not_newest", f"entry {entry_id} is not the newest change of its hand "
                                         f"still in force (entry {later[-1]} is): undo that first", entry=entry_id,
                                         newer=later[-1]), "entry_id")
        if target["kind"] == "hand":
            # Undoing a hand cancels it with its corrections: pay back whatever is in force.
            pays = self._q("SELECT player, SUM(points) AS s, SUM(cents) AS m FROM payments WHERE hand_id=?"
                           " GROUP BY player ORDER BY MIN(id)", (target["hand_id"],))
        else:
            pays = self._q("SELECT player, SUM(points) AS s, SUM(cents) AS m FROM payments WHERE entry_id=?"
                           " GROUP BY player ORDER BY MIN(id)", (entry_id,))
        reverse = {r["player"]: (-int(r["s"]), -int(r["m"])) for r in pays if int(r["s"]) or int(r["m"])}
        payload = {"reverses": {"entry_id": int(entry_id), "kind": target["kind"]},
                   "payments": {p: v[0] for p, v in reverse.items()}}
        if target["hand_id"] is not None:
            payload["hand_no"] = int(self._q("SELECT hand_no FROM hands WHERE id=?", (target["hand_id"],))[0]["hand_no"])
        with self._tx() as c:
            entry = self._entry(c, session_id, "undo", who, why, hand_id=target["hand_id"], target=entry_id,
                                payload=payload, client=client)
            self._pay(c, entry, session_id, target["hand_id"], reverse)
        return entry

    def entries(self, session_id: int) -> list[dict]:
        undone = self._undone_entries(session_id)
        out = []
        for r in self._q("SELECT * FROM entries WHERE session_id=? ORDER BY id", (session_id,)):
            rows = self._q("SELECT player, points, cents FROM payments WHERE entry_id=? ORDER BY id", (r["id"],))
            out.append({"id": int(r["id"]), "created_at": r["created_at"], "kind": r["kind"], "who": r["who"],
                        "why": r["why"], "client": r["client"], "hand_id": r["hand_id"],
                        "target_entry_id": r["target_entry_id"], "payload": json.loads(r["payload_json"]),
                        "payments": {p["player"]: int(p["points"]) for p in rows},
                        "money": {p["player"]: fmt(p["cents"]) for p in rows},
                        "undone": int(r["id"]) in undone})
        return out

    # ------------------------------------------------------------------ balances
    def _sums(self, session_id: int) -> tuple[dict[str, int], dict[str, int]]:
        """(points, cents) per account, the players' in order and the pot last, each summing to zero."""
        points = {name: 0 for name in self.players(session_id)}
        cents = dict(points)
        for r in self._q("SELECT player, SUM(points) AS s, SUM(cents) AS m FROM payments WHERE session_id=?"
                         " GROUP BY player", (session_id,)):
            if r["player"] != POT:
                points[r["player"]] = int(r["s"])
                cents[r["player"]] = int(r["m"])
        pot_points, pot_cents = self._pot_level(self._conn, session_id)
        points[POT], cents[POT] = pot_points, pot_cents
        return points, cents

    def balances(self, session_id: int) -> dict[str, int]:
        """Points per player (positive: is owed). With :meth:`pot` they sum to zero."""
        points, _ = self._sums(session_id)
        points.pop(POT)
        return points

    def pot(self, session_id: int) -> dict:
        """The pot carried over: ``{"points", "cents", "money"}`` (money as text, ``"4.00"``)."""
        points, cents = self._sums(session_id)
        return {"points": points[POT], "cents": cents[POT], "money": fmt(cents[POT])}

    def money_cents(self, session_id: int) -> dict[str, int]:
        """Money per player in cents: each hand's points at the money per point of that hand."""
        _, cents = self._sums(session_id)
        cents.pop(POT)
        return cents

    def money(self, session_id: int) -> dict[str, str]:
        """Money per player as text with two decimals (``"12.50"``); the pot's is :meth:`pot`."""
        return {p: fmt(v) for p, v in self.money_cents(session_id).items()}

    def settlement(self, session_id: int) -> dict:
        """The settle-up: money per player with the pot paid back, and the fewest transfers paying it.

        ``{"pot_return": {player: cents}, "owed": {player: cents}, "transfers": [{"from", "to",
        "cents", "money"}]}``; ``owed`` sums to zero and is exactly what the transfers pay.
        """
        owed = self.money_cents(session_id)
        back = self._pot_return(session_id)
        pot_return = {}
        if back is not None:
            pot_return = {p: v for p, v in back[1].items() if p != POT}
            for p, v in pot_return.items():
                owed[p] = owed.get(p, 0) + v
        out = fewest_transfers(owed)
        transfers = [{"from": t["from"], "to": t["to"], "cents": t["points"], "money": fmt(t["points"])}
                     for t in out]
        return {"pot_return": pot_return, "owed": owed, "transfers": transfers}

    def transfers(self, session_id: int) -> list[dict]:
        """The fewest transfers settling the money (see :meth:`settlement`)."""
        return self.settlement(session_id)["transfers"]

    def summary(self, session_id: int) -> dict:
        """Everything the scoreboard shows: hands with running balances, entries, balances, money, transfers.

        Money is text with two decimals (``"12.50"``), never a binary float.
        """
        info = self.session_info(session_id)
        hands = self.hands(session_id)
        running = {p: 0 for p in info["players"]}
        running_cents = dict(running)
        for h in hands:
            for p, v in h["net"].items():
                running[p] = running.get(p, 0) + v
            for p, v in h["money"].items():
                running_cents[p] = running_cents.get(p, 0) + _cents(v)
            h["running"] = dict(running)
            h["running_money"] = {p: fmt(v) for p, v in running_cents.items()}   # the chart's points, exact
        settle = self.settlement(session_id)
        pv = info["setup"].get("point_value")
        return {"session": info, "hands": hands, "entries": self.entries(session_id),
                "balances": self.balances(session_id), "money": self.money(session_id),
                "pot": {**self.pot(session_id), "return": {p: fmt(v) for p, v in settle["pot_return"].items()}},
                "settle": {p: fmt(v) for p, v in settle["owed"].items()},
                "transfers": settle["transfers"],
                "point_value": fmt(point_value_cents(pv or 0, strict=False)),
                "schema_version": self.version}

    def player_totals(self) -> list[dict]:
        """Every player across every session, most money first: ``{"player", "sessions", "hands", "won",
        "points", "money", "best"}`` -- hands played and won (undone hands not counted), the net in
        points and in money (text, exact: pot returns included), and the best hand (``{"points",
        "money", "session_id", "hand_no"}``, None before any)."""
        totals: dict[str, dict] = {}

        def of(name: str) -> dict:
            return totals.setdefault(name, {"player": name, "sessions": set(), "hands": 0, "won": 0, "points": 0,
                                            "cents": 0, "best": None})

        for r in self._q("SELECT player, session_id, SUM(points) AS s, SUM(cents) AS m FROM payments"
                         " WHERE player<>? GROUP BY player, session_id", (POT,)):
            t = of(r["player"])
            t["sessions"].add(int(r["session_id"]))
            t["points"] += int(r["s"])
            t["cents"] += int(r["m"])
        undone: set[int] = set()
        for r in self._q("SELECT id FROM sessions"):
            undone |= self._undone_entries(int(r["id"]))
        entry_of = {int(r["hand_id"]): int(r["id"])
                    for r in self._q("SELECT id, hand_id FROM entries WHERE kind='hand' AND hand_id IS NOT NULL")}
        # each hand's nets in force (its payments with corrections), in points and cents, hand by hand
        for r in self._q("SELECT h.id, h.session_id, h.hand_no, h.winner, p.player, SUM(p.points) AS s,"
                         " SUM(p.cents) AS m FROM hands h JOIN payments p ON p.hand_id = h.id WHERE p.player<>?"
                         " GROUP BY h.id, p.player ORDER BY h.id, MIN(p.id)", (POT,)):
            if entry_of.get(int(r["id"])) in undone:
                continue
            t = of(r["player"])
            sid, points = int(r["session_id"]), int(r["s"])
            t["sessions"].add(sid)
            t["hands"] += 1
            t["won"] += r["winner"] == r["player"]
            if t["best"] is None or points > t["best"]["points"]:
                t["best"] = {"points": points, "money": fmt(int(r["m"])), "session_id": sid,
                             "hand_no": int(r["hand_no"])}
        return [{"player": t["player"], "sessions": len(t["sessions"]), "hands": t["hands"], "won": t["won"],
                 "points": t["points"], "money": fmt(t["cents"]), "best": t["best"]}
                for t in sorted(totals.values(), key=lambda t: (-t["cents"], t["player"]))]

    def export_csv(self, session_id: int) -> str:
        """The session as CSV: one row per journal entry that moves points, then the balances and transfers.

        Every account has a column, the pot too, holding what ``unit`` says (points or money);
        the ``balance`` (points) and ``money`` rows sum to zero with it, ``pot_return`` pays the
        pot back and ``settle`` is what the ``transfer`` rows pay (see :meth:`settlement`):
        each ``transfer`` row says who pays (``from``), whom (``to``) and how much (``amount``).
        ``hand_items`` lists a hand's scoring: what a player takes signed, a payment as payer → payee
        (``pot Ana +4; mico Beto → Ana 1``).
        """
        players = self.players(session_id)
        accounts = [*players, POT]
        hands = {h["id"]: h for h in self.hands(session_id)}
        buf = io.StringIO()
        w = _SafeWriter(csv.writer(buf))
        w.writerow(["entry", "time_utc", "kind", "hand", "game", "winner", "who", "why", "point_value", "unit",
                    *players, "pot", "hand_items", "undone", "from", "to", "amount"])
        for e in self.entries(session_id):
            if e["kind"] not in PAYING_KINDS:
                continue
            h = hands.get(e["hand_id"]) if e["hand_id"] else None
            items = ""
            if e["kind"] == "hand" and h:
                items = "; ".join(_item_text(it) for it in h["items"])
            w.writerow([e["id"], e["created_at"], e["kind"], h["hand_no"] if h else "", h["game"] if h else "",
                        (h["winner"] or "") if h else "", e["who"], e["why"],
                        dec(point_value_cents(h["point_value"])) if h else "", "points",
                        *[e["payments"].get(p, "") for p in accounts], items, "yes" if e["undone"] else "", "", "", ""])
        points, cents = self._sums(session_id)
        settle = self.settlement(session_id)

        def total(kind: str, unit: str, cells: list, why: str = "") -> None:
            w.writerow(["", "", kind, "", "", "", "", why, "", unit, *cells, "", "", "", "", ""])

        total("balance", "points", [points.get(p, 0) for p in accounts])
        total("money", "money", [dec(cents.get(p, 0)) for p in accounts])
        if settle["pot_return"]:
            total("pot_return", "money", [*[dec(settle["pot_return"].get(p, 0)) for p in players],
                                          dec(-sum(settle["pot_return"].values()))],
                  why="the pot goes back to those who put it in")
        total("settle", "money", [*[dec(settle["owed"].get(p, 0)) for p in players], dec(0)])
        for t in settle["transfers"]:
            w.writerow(["", "", "transfer", "", "", "", "", "", "", "money", *["" for _ in accounts], "", "",
                        t["from"], t["to"], dec(t["cents"])])
        return buf.getvalue()


def _item_text(it: dict) -> str:
    """One scoring item for the CSV: a payment says who pays whom (``mico Beto → Ana 1``, from the
    item's ``to`` or ``from``), what a player takes is signed (``pot Ana +4``)."""
    points, player = it.get("points"), it.get("player")
    if isinstance(points, int) and player and (it.get("to") or it.get("from")):
        payer, payee = (player, it["to"]) if it.get("to") else (it["from"], player)
        return f"{it['item']} {payer} → {payee} {abs(points)}"
    return f"{it['item']}" + (f" {player}" if player else "") + (f" {points:+d}" if isinstance(points, int) else "")


def _cents(money: str) -> int:
    """Money text with two decimals (``"-12.50"``) back to whole cents, exactly."""
    return int(Decimal(money) * 100)


def _antes(result: dict, flow: int) -> dict[str, int]:
    """Who put a hand's ``flow`` points into the pot: the settlement's antes, else equal shares."""
    settlement = (result.get("details") or {}).get("settlement") or {}
    antes = {}
    for p in settlement.get("players") or []:
        if isinstance(p, dict) and isinstance(p.get("name"), str) and isinstance(p.get("ante"), int):
            antes[p["name"]] = p["ante"]
    if antes and sum(antes.values()) == flow and all(v >= 0 for v in antes.values()):
        return {p: v for p, v in antes.items() if v}
    return split(flow, {str(p): 1 for p in result.get("net") or {}})


def _check_point_value(setup: dict) -> None:
    if setup.get("point_value") is not None:
        try:
            point_value_cents(setup["point_value"])
        except MoneyError as exc:
            raise LedgerError(exc.message, exc.field) from None


__all__ = ["Ledger", "LedgerError", "SchemaError", "LATEST", "default_path"]
