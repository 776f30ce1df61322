"""The table service: one table's live session, the ledger it records into, and its setup.

``tableref serve`` and ``tableref watch`` both run a :class:`TableService`; the web
app is thin views over one. The service

* opens the ledger (:meth:`TableService.open`): the user's ledger, locked so that a
  second server on it refuses to start (:class:`tableref.table.lock.LedgerLock`), or,
  for the built-in demo, a temporary ledger in memory, so that trying the demo never
  writes into the user's ledger (:attr:`TableService.ledger_note` says so on the page);
* resumes the ledger's open session (or opens one) with the setup in force, and numbers
  the session's hands on from the ledger's, across restarts;
* records every hand the live session decides (:meth:`TableService.record_hand`, the
  session's ``on_hand_end``) and tells its listeners (the web page's event hub, the
  ``watch`` command);
* carries out the host's actions on the table and journals them in the ledger: a new
  setup, new zones, a card the camera misread (a ``card_correction`` entry, never a
  player's move), closing a hand by hand, a new ledger session.

Data flows one way: the live session knows nothing of the service; the service
knows nothing of the web.
"""
from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Callable

from tableref import demo
from tableref.ledger.store import Ledger, default_path
from tableref.table.lock import LedgerLock
from tableref.table.setup import TableSetup, merge_setup

log = logging.getLogger("tableref.table")

#: ``db`` for a ledger kept in memory only (``tableref watch`` without ``--db``)
MEMORY = ":memory:"
#: what the page says about a demo table's ledger
DEMO_LEDGER_NOTE = ("demo table: its hands are kept in a temporary ledger in memory and forgotten when the "
                    "server stops; your own ledger is not touched")
#: what is said about a ledger asked for in memory
MEMORY_NOTE = "the hands are kept in memory only and forgotten at the end"
#: the journal's reason for a hand the host ended (the page says it in its language)
ENDED_BY_HOST = "ended by the host"
#: said instead of recording a demo hand in the user's ledger
DEMO_NOT_RECORDED = "a hand of the demo clip: not recorded in your ledger"


class TableService:
    """A live table session wired to a ledger session (see the module docstring).

    ``session`` is a :class:`tableref.live.session.TableSession` (or anything with its
    methods), ``ledger`` a :class:`tableref.ledger.store.Ledger`. ``session_id`` is the
    ledger session to record into (default: resume the open one, or open one with the
    table's setup). ``record_demo=False`` keeps hands of the demo clip out of this
    ledger (the user's ledger when the host switches a real table to the demo).
    """

    def __init__(self, session, ledger: Ledger, session_id: int | None = None, *, record_demo: bool = True,
                 ledger_note: str | None = None, who: str = "tableref"):
        self.session = session
        self.ledger = ledger
        self.lock = threading.RLock()
        self.record_demo = record_demo
        self.ledger_note = ledger_note
        self.last_ledger_error: str | None = None
        self._listeners: list[Callable[[dict], None]] = []
        self._owned: list = []          # what close() releases: the ledger and lock open() made
        self._closing = threading.local()   # who ends the hand this thread is ending (finish_hand)
        self.resumed = False            # open() resumed a ledger session
        if session_id is None:
            session_id, _ = ledger.resume_or_open(self.table_setup(), who=who)
        self.session_id = int(session_id)
        session.on_hand_end = self.record_hand
        self.sync_hand_numbers()
        self.sync_pot()

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, given: dict | None = None, *, db: str | Path | None = None, new_session: bool = False,
             zones=None, who: str = "tableref", session_options: dict | None = None) -> "TableService":
        """Open the ledger and the live session for ``given`` (what the user said: game, source,
        players, seats, stake, point_value; None for "as the resumed session had it").

        Without ``db`` the user's ledger (:func:`tableref.ledger.store.default_path`) is used,
        unless the table is the built-in demo: then a temporary ledger in memory. Raises
        :class:`tableref.table.lock.LedgerInUse` when another process has the ledger,
        :class:`tableref.table.setup.SetupError` for a bad setup, the session's
        ``SessionError`` for a table that cannot be set up, ``SchemaError`` for a file that
        is not a tableref ledger.
        """
        from tableref.live.session import TableSession

        given = {k: v for k, v in (given or {}).items() if v is not None}
        path = Path(db) if db is not None and str(db) != MEMORY else None
        lock = ledger = None
        if db is None and not demo.is_demo(given.get("source", demo.SOURCE)):
            path = default_path()
        elif db is None and "source" not in given and default_path(create=False).exists():
            path = default_path()       # the user's open session may name a real camera
        try:
            if path is not None:
                lock = LedgerLock(path).acquire()
                ledger = Ledger(path)
                sid = None if new_session else ledger.current_session()
                resumed = ledger.setup(sid) if sid is not None else None
                setup, changed = merge_setup(resumed, given)
                if db is None and demo.is_demo(setup.source):
                    ledger.close()
                    lock.release()       # a demo table: leave the user's ledger alone
                    lock = ledger = None
            if ledger is None:
                ledger = Ledger(":memory:")
                sid, resumed = None, None
                setup, changed = merge_setup(None, given)
            session = TableSession(setup=setup, zones=zones, **(session_options or {}))
            if sid is None:
                sid = ledger.open_session(setup.as_dict(), who=who, why="started")
            elif changed:
                ledger.record_setup(sid, setup.as_dict(), who=who, why="changed on the command line")
            service = cls(session, ledger, sid, record_demo=db is not None or path is None,
                          ledger_note=None if path is not None else DEMO_LEDGER_NOTE if db is None else MEMORY_NOTE,
                          who=who)
        except BaseException:
            if ledger is not None:
                ledger.close()
            if lock is not None:
                lock.release()
            raise
        service.resumed = resumed is not None
        service._owned = [ledger, lock]
        return service

    def close(self) -> None:
        """Stop the live session; close the ledger and free its lock if :meth:`open` made them."""
        self.session.stop()
        for thing in self._owned:
            if thing is not None:
                (thing.release if isinstance(thing, LedgerLock) else thing.close)()
        self._owned = []

    # ------------------------------------------------------------------ reading
    def snapshot(self) -> dict:
        """The live table, JSON-ready; a broken session gives an error, not an exception."""
        try:
            return self.session.snapshot()
        except Exception as exc:  # noqa: BLE001 - the page must still load
            log.exception("session.snapshot() failed")
            return {"error": f"the table state is unavailable: {exc}", "seats": [], "events": []}

    def setup(self) -> dict:
        """The setup in force, as the ledger journalled it."""
        return self.ledger.setup(self.session_id)

    def table_setup(self) -> dict:
        """The live session's setup, in the ledger's form (for a first ledger session)."""
        if isinstance(getattr(self.session, "setup", None), TableSetup):
            return self.session.setup.as_dict()
        snap = self.snapshot()          # a session that keeps no TableSetup (a stand-in in tests)
        players = [p for p in (snap.get("players") or [s.get("player") for s in snap.get("seats", [])]) if p]
        return {"game": snap.get("game", "desmoche"), "players": players, "seats": len(players),
                "stake": int(snap.get("stake", 1) or 1), "point_value": 1.0, "rules": snap.get("rules") or {},
                "source": (snap.get("camera") or {}).get("source", demo.SOURCE)}

    def ledger_view(self) -> dict:
        """Where the hands go, for the page: the ledger file (None: in memory) and what to say about it."""
        path = str(self.ledger.path)
        return {"session_id": self.session_id, "path": None if path == ":memory:" else path,
                "temporary": path == ":memory:", "note": self.ledger_note}

    # ------------------------------------------------------------------ listeners
    def listen(self, fn: Callable[[dict], None]) -> None:
        """Call ``fn(event)`` for what the service does (a hand recorded or not, a ledger error)."""
        self._listeners.append(fn)

    def unlisten(self, fn: Callable[[dict], None]) -> None:
        if fn in self._listeners:
            self._listeners.remove(fn)

    def _tell(self, event: dict) -> None:
        for fn in list(self._listeners):
            try:
                fn(dict(event))
            except Exception:  # noqa: BLE001 - a listener's problem is not the table's
                log.exception("a listener of the table service failed")

    # ------------------------------------------------------------------ recording
    def sync_hand_numbers(self) -> None:
        """The live session's next hand is the ledger's next hand (after a restart, a hand entered
        by hand, a new setup or a new ledger session)."""
        self.session.number_hands_from(self.ledger.hand_count(self.session_id) + 1)

    def sync_pot(self) -> None:
        """The live session carries the pot the ledger holds (after a restart, an undo, a new ledger
        session whose close paid the old pot back), so the ledger and the table never disagree on it."""
        set_pot = getattr(self.session, "set_pot", None)
        if set_pot is not None:
            set_pot(self.ledger.pot(self.session_id)["points"])

    def record_hand(self, result: dict) -> dict | None:
        """Record one decided hand (the live session's ``on_hand_end``); returns the stored hand.

        Never raises: the session's camera thread calls it. A failure is kept in
        :attr:`last_ledger_error` and told to the listeners."""
        if not self.record_demo and demo.is_demo(self.session.source):
            self._tell({"type": "ledger", "what": "not_recorded", "reason": "demo", "hand_no": result.get("hand_no"),
                        "text": DEMO_NOT_RECORDED})
            return None
        try:
            with self.lock:
                by = getattr(self._closing, "by", None) or {"who": "referee"}
                hand = self.ledger.commit_hand(self.session_id, result, **by, external_id=result.get("hand_key"))
                self.sync_hand_numbers()
            self.last_ledger_error = None
        except Exception as exc:  # noqa: BLE001 - never kill the session's thread; tell the host
            msg = getattr(exc, "message", None) or str(exc)
            self.last_ledger_error = f"a hand could not be recorded: {msg}"
            log.exception("recording a hand failed: %r", result)
            self._tell({"type": "ledger_error", "text": self.last_ledger_error, "result": result})
            return None
        self._tell({"type": "ledger", "what": "hand", "hand_no": hand["hand_no"], "hand_id": hand["id"],
                    "winner": hand["winner"], "net": hand["net"], "session_id": self.session_id})
        return hand

    # ------------------------------------------------------------------ the host's actions
    def apply_setup(self, setup: TableSetup, *, why: str = "setup", who: str = "host",
                    client: str | None = None) -> dict:
        """Set the table up anew (a setup checked by :func:`tableref.table.setup.check_setup`) and journal
        it; returns the setup's JSON form."""
        with self.lock:
            self.session.reconfigure(table_setup=setup)
            self.ledger.record_setup(self.session_id, setup.as_dict(), why=why, who=who, client=client)
            self.sync_hand_numbers()
        return setup.as_dict()

    def set_zones(self, zones: dict) -> None:
        """Use hand-drawn zones (checked by :func:`tableref.table.setup.validate_zones`)."""
        with self.lock:
            self.session.reconfigure(zones=zones)

    def new_session(self, *, why: str = "", who: str = "host", client: str | None = None) -> int:
        """Close the ledger session and open a new one with the same setup; hands count from 1."""
        with self.lock:
            self.session_id = self.ledger.open_session(self.setup(), why=why, who=who, client=client)
            self.sync_hand_numbers()
            self.sync_pot()     # the old session's pot went back to those who put it in
        return self.session_id

    def correct_card(self, track_id: int, card: str | None, *, why: str = "", who: str = "host",
                     client: str | None = None) -> dict:
        """The camera misread a card (``card`` None: not a card). The table is judged again as if
        the card had always been read right, and the ledger journals a ``card_correction``.
        Raises ``KeyError`` when no such card is on the table."""
        with self.lock:
            result = self.session.correct_card(track_id, card)
            self.ledger.record_card_correction(self.session_id, {"track_id": track_id, "card": card,
                                                                 "result": result},
                                               why=why or "camera misread", who=who, client=client)
        return result

    def next_hand(self, *, why: str = "", who: str = "host", client: str | None = None) -> dict:
        """The host starts the next hand now (see the live session's ``next_hand``), journalled as a
        ``next_hand`` entry; returns ``{"hand_no", "previous", "previous_decided"}``."""
        with self.lock:
            got = self.session.next_hand()
            self.sync_hand_numbers()
            got["hand_no"] = self.session.hand_no
            self.ledger.record_next_hand(self.session_id, dict(got), why=why, who=who, client=client)
        return got

    def preview_hand(self, **host_input) -> dict:
        """What :meth:`finish_hand` would record, recording nothing (the host is asked first)."""
        with self.lock:
            return self.session.preview_hand(**host_input)

    def finish_hand(self, *, who: str = "host", why: str = "", client: str | None = None, **host_input) -> dict:
        """End the hand in progress with what the camera cannot see (see the live session); the ledger
        journals it as ``who``'s (the host's), not the referee's."""
        with self.lock:
            self._closing.by = {"who": who, "why": why or ENDED_BY_HOST, "client": client}
            try:
                return self.session.finish_hand(**host_input)
            finally:
                self._closing.by = None
