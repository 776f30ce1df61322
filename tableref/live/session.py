"""The live table session: camera → recogniser → tracker → events → referee → verdicts.

:class:`TableSession` is what ``tableref watch`` and the web app (``tableref serve``)
run. A background thread reads the newest frame of the source
(:func:`vision.sources.open_source`), recognises the face-up cards
(:class:`vision.recognition.CardRecognizer`), follows them and publishes a stable
table (:class:`vision.tracking.TableTracker`), and hands every new stable table
to the game's live hand (a :class:`tableref.live.hand.LiveHand` made from the
game's entry in :mod:`tableref.games`), which turns it into events with the
referee's verdicts. The session knows no game: what differs between games is
in the registry and in the live hand.

Everything that changes is an *event* (a dict with ``"type"``, ``"t"`` and a
readable ``"text"``, built by :func:`tableref.live.events.make_event`); subscribers (:meth:`TableSession.subscribe`) get each new
event on their queue. A decided hand goes to :attr:`TableSession.on_hand_end`
at once (the table service, :mod:`tableref.table.service`, records it in the
ledger), and again as the final ``hand_end`` event. Problems with the camera
(unplugged, a corrupt file, a stream that stops) become ``camera_status`` events
and the status in :meth:`snapshot`; the source reconnects by itself and nothing
already decided is lost. A source that fails for good is replaced by setting a new
one (:meth:`reconfigure`), without a restart; the camera status always names the
source in force. When a video file ends, the hand in progress is settled as it stands
(a Desmoche hand without a winner carries its pot; a Marriage count is settled if
the cards show a winner).

A decided hand's next hand begins when the table has been cleared (no face-up card for
:data:`~tableref.live.boundary.CLEAR_TABLE_SECONDS`; a hand cleared before it was decided is set
aside, unrecorded) or when the host says so (:meth:`next_hand`); see docs/live.md, "Hands".

What the camera cannot see is entered by the host: :meth:`correct_card`
(a misread card, or "not a card"), :meth:`finish_hand` (Desmoche: the winner or
"no winner"; Marriage: the tiplu, the winner, who has seen the joker, exposed
tunnelas).

For tests and tools, :meth:`feed_state` / :meth:`feed_table` /
:meth:`feed_observation` drive the same logic without a camera.
"""
from __future__ import annotations

import queue
import threading
import time
from collections import deque
from typing import Callable

import cv2
import numpy as np

from tableref import demo
from tableref.games import game as game_spec
from tableref.referee.errors import RefereeError
from tableref.referee.reasons import Reason
from tableref.vision import twins

from tableref.live.boundary import CLEAR_TABLE_SECONDS, ClearingClock, card_places, old_cards_back
from tableref.live.events import make_event
from tableref.live.hand import LiveHand, new_hand
from tableref.live.setup import SetupError, TableSetup, check_setup
from tableref.live.state import PlacedCard, SeatCards, TableState

MAX_EVENTS = 300
#: decided hands kept in memory (the ledger keeps them all; an evening of the demo clip decides hundreds)
MAX_RESULTS = 100
# a picture blurred this long (seconds of frame time) is said in the camera status
BLUR_STATUS_SECONDS = 1.0
# while the picture is blurred, one frame in this many seconds is read anyway: a table that was cleared
# (which also looks "blurred" to a camera used to a full table) is then seen to be empty
BLUR_PEEK_SECONDS = 0.5
BLURRED_MESSAGE = "picture blurred: hold the camera still / check focus"
# a camera whose pictures are smaller than this (their shorter side, pixels; ``vision.twins``, where a
# table of several packs doubts identical labels read side by side in such a picture) is said to be
# too small: as a 640x360 camera's feeds, the real fanned deal reads 44-46 of its 51 cards instead of
# 49-50 (soft: 23-31 instead of 44-47), and wrong cards come through under defocus (QC as QS, 3D as
# 5D: ``python scripts/bench_camera.py --only live --feed-photos 0 --scale 0.5 [--game desmoche]``);
# the cards are read well from 1280x720 up
SMALL_PICTURE_SIDE = twins.SMALL_PICTURE_SIDE
# a camera out of focus: where most of the frames read with something on the table over the last
# SOFT_STATUS_SECONDS (at least SOFT_MIN_LOOKS of them, over two thirds of that time) measure soft
# (their sharpest edges blurred by more than ``images.SOFT_SIGMA`` px, the picture at most 1280 px
# wide: ``FrameObservation.soft``), the camera status says so: at the end of every defocused feed of
# ``python scripts/bench_camera.py --only live`` (the real fanned deal, 51 cards, then reads 43-48
# of them instead of 49-50) and of no clean, dim or knocked one
SOFT_STATUS_SECONDS = 3.0
SOFT_MIN_LOOKS = 5
SOFT_MESSAGE = "picture out of focus: small cards may stay unread; focus the camera or bring it closer"


def small_picture_message(size: str) -> str:
    """The camera status's words for pictures of ``size`` ("640×360"), smaller than the recogniser
    reads well (``SMALL_PICTURE_SIDE``)."""
    return f"{size} pictures are too small to read every card: set the camera to 1280×720 or more"


class SessionError(ValueError):
    """Bad session setup (message is for the user): a :class:`Reason` (English, ``key``, ``params``),
    or the referee's own keyed message passed on, so that an interface can say it in any language."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def resolve_source(spec: str, game: str) -> str:
    """``"demo"`` → the demo clip of ``game``; anything else unchanged."""
    if demo.is_demo(spec):
        p = demo.clip(game)
        if p is None:
            raise SessionError(Reason("demo_missing", "the built-in demo clip is missing from this installation "
                                                      "(tableref/demo/)"))
        return str(p)
    return str(spec)


def state_from_stable(table, n_seats: int, corrections: dict[int, str | None] | None = None) -> TableState:
    """Convert a :class:`vision.table_state.StableTable` into a :class:`tableref.live.events.TableState`.

    ``corrections`` maps a track id to the host's label (None: not a card, dropped). An *unread*
    card (its label not decided yet, ``TableCard.unread``) is never judged: a loose one is left
    out, and so is a meld holding one (a meld read in part is not judged) until it is read or the
    host says what it is.
    """
    corrections = corrections or {}

    def conv(c) -> PlacedCard | None:
        label = corrections.get(c.track_id, c.card) if c.track_id in corrections else c.card
        if not label:
            return None
        return PlacedCard(int(c.track_id), label)

    def unread(c) -> bool:
        return not c.card and c.track_id not in corrections

    seats = []
    for s in range(n_seats):
        if s < len(table.seats):
            st = table.seats[s]
            melds = []
            for m in st.melds:
                if any(unread(c) for c in m.cards):
                    continue
                cards = [x for x in (conv(c) for c in m.cards) if x is not None]
                if cards:
                    melds.append(cards)
            loose = [x for x in (conv(c) for c in st.loose) if x is not None]
            seats.append(SeatCards(melds, loose))
        else:
            seats.append(SeatCards())
    centre = [x for x in (conv(c) for c in table.centre) if x is not None]
    return TableState(seats, centre, float(table.t))


class TableSession:
    """One table under one camera; see the module docstring and docs/live.md."""

    def __init__(self, source: str = "demo", game: str = "desmoche", seats: int | None = None,
                 players: list[str] | None = None, rules: dict | None = None,
                 stake: int = 1, zones=None, realtime: bool = True, *,
                 loop: bool | None = None, recognizer=None, machine=None, tracker_options: dict | None = None,
                 auto_finish: bool = True, analyse_every: int = 1, setup: TableSetup | None = None):
        """The table is ``setup`` (a checked :class:`TableSetup`, taken as given) or, without it, the
        source, game, seats, players, rules and stake given, checked here by the same check."""
        self.on_hand_end: Callable[[dict], None] | None = None
        self._lock = threading.RLock()
        self._subs: list[queue.Queue] = []
        self._events: deque = deque(maxlen=MAX_EVENTS)
        self._results: deque = deque(maxlen=MAX_RESULTS)
        self._hands_decided = 0
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._recognizer = recognizer
        # how the models run here (a MachineSettings the command line read from the environment)
        self._machine = machine
        self._tracker_options = dict(tracker_options or {})
        self.realtime = realtime
        self.auto_finish = auto_finish
        self.analyse_every = max(1, int(analyse_every))
        self._loop_opt = loop
        self._jpeg: bytes | None = None
        self._frames: deque = deque(maxlen=12)     # the last annotated frames, (t, jpeg)
        self._camera = {"status": "connecting", "message": "not started", "fps": 0.0, "source": str(source)}
        self._fps_times: deque = deque(maxlen=30)
        self._corrections: dict[int, str | None] = {}
        self._problems_said: set = set()            # recognition problems already told the host
        # the labels the last table judged read more often than the packs hold them (set aside, shown to the host)
        self._set_aside: list[dict] = []
        self._repaired: dict[int, str] = {}          # the second readings the last table took (one pack)
        # a still table is read again at photo quality beside the camera loop (the recogniser the
        # session builds itself; an injected one is a test's or a tool's, read as it is)
        self.still_reads = recognizer is None
        self._still = self._still_for = None
        self._last_table = None
        self._tracker = None
        self._scanner = None
        self._zones_arg = zones
        self.zones = None
        self.frames_analysed = 0
        self.ms_per_frame = 0.0
        self.hand_no = 0
        self.pot = 0
        self._waiting_clear = False
        self._last_read_t: float | None = None   # frame time of the last frame read (not skipped as blurred)
        self._nothing_read = False               # the last frame read showed nothing at all (no card, no unsure reading)
        self._shaken_since: float | None = None  # frame time since when the recogniser declares every frame blurred
        self._soft_looks: deque = deque()        # (frame time, measured soft) of the frames read with something on them
        # how long no face-up card has been seen (the hand boundary, tableref.live.boundary)
        self._clearing = ClearingClock(min_confidence=float(self._tracker_options.get("min_confidence", 0.25)))
        self._stale: set[int] = set()            # cards of the previous hand still on the table (track ids)
        self._scan_stale = False                 # the count scan still shows the previous hand
        self._old_table = None                   # the decided hand's last cards, until the new hand's first table
        self._restart_source = False
        self._thread_done = False
        if setup is None:
            if demo.is_demo(source) and not players:
                # the built-in clip was filmed with these players; use their names when the seats agree
                demo_players = demo.setup(game).get("players") or []
                if seats is None or seats == len(demo_players):
                    players = list(demo_players) or None
            setup = self._check(source=source, game=game, seats=seats, players=players, rules=rules, stake=stake)
        self._configure(setup)
        self._camera["source"] = self.source
        self._new_hand()

    # ------------------------------------------------------------------ setup
    @staticmethod
    def _check(**given) -> TableSetup:
        """What was given (None: not said), checked by the one setup check; its refusal a SessionError."""
        try:
            return check_setup({k: v for k, v in given.items() if v is not None})
        except SetupError as exc:
            raise SessionError(exc.message) from None

    def _configure(self, setup: TableSetup) -> None:
        """Take a checked setup as given."""
        self.setup = setup
        self.source = setup.source
        self.spec = game_spec(setup.game)
        self.game = setup.game
        self.n_seats = setup.seats
        self.players = list(setup.players)
        self.rules = dict(setup.rules)
        self.stake = setup.stake
        self.loop = self._loop_opt if self._loop_opt is not None else demo.is_demo(self.source)

    def _new_hand(self) -> None:
        self.hand_no += 1
        self.hand: LiveHand = new_hand(self.spec, self.players, rules=self.rules, stake=self.stake,
                                       pot_carried=self.pot, hand_no=self.hand_no, auto_finish=self.auto_finish)
        self._waiting_clear = False
        self._hand_had_cards = False          # any card face up in this hand (a cleared table then ends it)
        self._set_aside = []

    def number_hands_from(self, first: int) -> None:
        """The next hand to be decided is hand ``first`` (the ledger's next hand), the others on from it."""
        with self._lock:
            if self._waiting_clear:          # this hand is decided: the next one is ``first``
                self.hand_no = int(first) - 1
            else:
                self.hand_no = int(first)
                self.hand.hand_no = int(first)

    def reconfigure(self, **setup) -> None:
        """Change game, seats, players, rules, stake, source or zones (or take ``table_setup``, a checked
        :class:`TableSetup`, as given). A new game, new players, rules or stake start a new hand."""
        allowed = {"game", "seats", "players", "rules", "stake", "source", "zones", "realtime", "table_setup"}
        unknown = set(setup) - allowed
        if unknown:
            raise SessionError(Reason("unknown_setup_fields", f"unknown setup field(s): {', '.join(sorted(unknown))}",
                                      names=", ".join(sorted(unknown))))
        with self._lock:
            checked = setup.get("table_setup") or self._check(**self._merged(setup))
            restart_source = checked.source != self.source or "zones" in setup
            game_changed = (checked.game != self.game or checked.rules != self.rules or checked.stake != self.stake
                            or list(checked.players) != self.players)
            self._configure(checked)
            if "realtime" in setup:
                self.realtime = bool(setup["realtime"])
            if "zones" in setup or game_changed:
                if "zones" in setup:
                    self._zones_arg = setup["zones"]
                self.zones = None
                self._tracker = None        # rebuilt with the new seats/zones on the next frame
            if game_changed:
                self.pot = 0
                self._corrections.clear()
                self._new_hand()
                self._emit(make_event("setup", 0.0, f"new setup: {self.game}, {self.n_seats} players "
                                      f"({', '.join(self.players)})", what="game", game=self.game,
                                      players=list(self.players)))
            elif "zones" in setup:
                self._emit(make_event("setup", 0.0, "new table zones", what="zones"))
            if restart_source:
                self._replace_source()

    def _merged(self, given: dict) -> dict:
        """The setup in force with ``given`` laid over it (not yet checked)."""
        cur = {"source": self.source, "game": self.game, "seats": self.n_seats, "players": None,
               "rules": self.rules, "stake": self.stake}
        if "players" not in given and "seats" not in given:
            cur["players"] = self.players
        new = {**cur, **{k: v for k, v in given.items() if k in cur}}
        if "players" in given and "seats" not in given:
            new["seats"] = None             # as many seats as players named
        if "game" in given and "rules" not in given and new["game"] != self.game:
            new["rules"] = None             # another game: its own house rules
        return new

    def _replace_source(self) -> None:
        """A new source (or zones): the camera status names it at once; the camera thread, if it
        ran and stopped (a source that failed for good, a file that ended), starts again."""
        self._camera.update(fps=0.0)
        self._fps_times.clear()
        self._soft_looks.clear()
        self._set_camera("connecting", f"opening {self.source}")
        if self._thread is None:
            return                      # never started: start() opens the new source
        if self._thread.is_alive() and not self._thread_done:
            self._restart_source = True
        else:
            self.start()

    # ------------------------------------------------------------------ events
    def subscribe(self) -> "queue.Queue[dict]":
        q: queue.Queue = queue.Queue(maxsize=2000)
        with self._lock:
            self._subs.append(q)
        return q

    def unsubscribe(self, q) -> None:
        with self._lock:
            if q in self._subs:
                self._subs.remove(q)

    def _emit(self, event: dict) -> None:
        event.setdefault("hand_no", self.hand_no)
        self._events.append(event)
        for q in list(self._subs):
            try:
                q.put_nowait(event)
            except queue.Full:
                pass

    def _emit_all(self, events: list[dict]) -> None:
        for e in events:
            self._emit(e)
            if e.get("type") == "hand_end":
                self._hand_decided(e)

    def _hand_decided(self, result: dict) -> None:
        self._results.append(result)
        self._hands_decided += 1
        self.pot = self.hand.carried_pot
        self._waiting_clear = True
        cb = self.on_hand_end
        if cb is not None:
            try:
                cb(dict(result))
            except Exception as exc:  # noqa: BLE001 - the app's problem must not stop the table
                self._emit(make_event("error", result.get("t", 0.0), f"could not record the hand: {exc}"))

    @property
    def results(self) -> list[dict]:
        """The last :data:`MAX_RESULTS` decided hands of this session, oldest first (all of them are in
        the ledger; ``snapshot()["hands_decided"]`` counts every one)."""
        return list(self._results)

    # ------------------------------------------------------------------ feeding (camera-free)
    def feed_state(self, state: TableState) -> list[dict]:
        """Judge one stable table state; returns (and publishes) the events."""
        with self._lock:
            if self._waiting_clear:
                if sum(len(s.cards) for s in state.seats) == 0:
                    self._new_hand()
                    evs = [make_event("hand_start", state.t, f"hand {self.hand_no} starts: the table was cleared",
                                      hand_no=self.hand_no, cleared=True)]
                    self._emit_all(evs)
                    evs += self.hand.observe(state)
                    self._emit_all(evs[1:])
                    return evs
                return []
            if any(seat.cards for seat in state.seats) or state.centre:
                self._hand_had_cards = True
            evs = self.hand.observe(state)
            self._emit_all(evs)
            return evs

    def _table_state(self, table, repaired: dict[int, str] | None = None):
        """The table as the referee judges it, with the notes for the host: (state, repairs,
        problems). The host's corrections applied; on one pack a card read twice tried with its
        second readings (``repaired``: the second readings taken before, track id -> label, taken
        again without asking the tracker, which the camera thread keeps changing); and a card read
        more often than the packs hold it shown to the host, never counted twice (every copy set
        aside)."""
        from tableref.live.repair import repair_duplicates, set_aside_overcounted
        from tableref.live.state import relabel

        state = state_from_stable(table, self.n_seats, self._read_as())
        repairs: list[dict] = []
        if self.spec.one_pack:
            if repaired is None and self._tracker is not None:
                state, repairs = repair_duplicates(state, self._tracker)
            elif repaired:
                state = relabel(state, {t: lab for t, lab in repaired.items() if t not in self._corrections})
        state, problems = set_aside_overcounted(state, self.spec.packs)
        return state, repairs, problems

    def feed_table(self, table) -> list[dict]:
        """Judge a :class:`vision.table_state.StableTable` (host corrections applied)."""
        with self._lock:
            self._last_table = table
            if self._old_table is not None and table.cards:
                self._old_table_back(table)
            state, notes, problems = self._table_state(table)
            self._repaired = {n["track_id"]: n["taken_as"] for n in notes}
            for n in notes:
                fields = {k: v for k, v in n.items() if k != "text"}
                self._emit(make_event("recognition_repair", table.t, n["text"], cards=[n["taken_as"]], **fields))
            self._set_aside = problems
            for n in problems:
                key = (n["card"], tuple(n["track_ids"]))
                if key not in self._problems_said:
                    self._problems_said.add(key)
                    self._emit(make_event("recognition_problem", table.t, n["text"], cards=[n["card"]],
                                          track_ids=n["track_ids"], what="overcounted"))
        return self.feed_state(state)

    def feed_observation(self, obs) -> list[dict]:
        """Feed one frame's :class:`vision.types.FrameObservation` through the tracker (and,
        for a Marriage count, the per-seat scan)."""
        evs = self._watch_clear(obs)
        tracker = self._ensure_tracker((obs.width, obs.height))
        table = tracker.update(obs)
        if table is not None and table.changed:
            evs += self.feed_table(table)
        evs += self._feed_scan(obs)
        return evs

    def _feed_scan(self, obs) -> list[dict]:
        if not self.spec.count_scan or self.zones is None:
            return []
        if self._scanner is None or self._scanner.zones is not self.zones:
            from tableref.live.scan import SeatScanner

            self._scanner = SeatScanner(self.zones, self.n_seats)
        scan = self._scanner.update(obs)
        if scan is None:
            return []
        with self._lock:
            empty = sum(len(s.cards) for s in scan.seats) == 0
            if self._waiting_clear:
                if empty:
                    return self.feed_state(scan)      # the table is cleared: next hand
                return []
            if self._scan_stale:                      # the host started this hand over the last one's cards
                self._scan_stale = not empty
                return []
            if self._old_table is not None and not empty:
                return []                             # the tracker's first table says first whose cards these are
            self._hand_had_cards = self._hand_had_cards or not empty
            evs = self.hand.observe_scan(scan)
            self._emit_all(evs)
            return evs

    # ------------------------------------------------------------------ the hand boundary
    def _read_as(self) -> dict[int, str | None]:
        """Track id -> label for the tracker's cards: the host's corrections, and None (not judged)
        for cards of the previous hand still on the table."""
        return {**self._corrections, **dict.fromkeys(self._stale)}

    def _watch_clear(self, obs) -> list[dict]:
        """The hand boundary, one analysed frame at a time: when no face-up card has been seen for
        :data:`~tableref.live.boundary.CLEAR_TABLE_SECONDS`, the table was cleared; a decided hand's
        next hand begins, with the table forgotten (the new hand's cards are new cards wherever they
        are laid)."""
        t = float(obs.t)
        if not obs.read:
            return []                                 # a frame not read says nothing about the table
        if not self._clearing.cleared(obs):
            return []
        with self._lock:
            self._stale.clear()                       # whatever lay there is gone
            self._scan_stale = False
            if self._waiting_clear:
                self._old_table = card_places(self._last_table) if self._last_table is not None else None
                return self._start_next_hand(t, f"hand {self.hand_no + 1} starts: the table was cleared",
                                             forget_table=True, cleared=True)
            if not self._hand_had_cards:
                return []                             # nothing was played yet: the hand goes on
            # cleared before it was decided: set aside, nothing recorded, and played again under its number
            previous = self.hand_no
            self.hand_no -= 1
            return self._start_next_hand(t, f"hand {previous} was set aside: the table was cleared before it was "
                                            "decided (nothing recorded); it starts again", forget_table=True,
                                         cleared=True, previous=previous, previous_decided=False)

    def _old_table_back(self, table) -> None:
        """The new hand's first table after a cleared one: the decided hand's cards seen again (the
        table was only hidden for a moment) are that hand's, not judged again (under the lock)."""
        back = old_cards_back(self._old_table, table)
        self._old_table = None
        if back:
            self._stale = {c.track_id for c in table.cards}
            self._scan_stale = bool(self.spec.count_scan)     # nor counted again, until the table is empty
            self._emit(make_event("old_cards_back", table.t, f"the last hand's {len(back)} cards are on the table "
                                  "again: they are not judged in this hand", cards=back))

    def _start_next_hand(self, t: float, text: str, *, forget_table: bool, **fields) -> list[dict]:
        """Start the next hand (under the lock); ``forget_table``: the table is empty, start the tracker afresh."""
        if forget_table:
            if self._tracker is not None:
                self._tracker.reset()
            self._scanner = None
            self._last_table = None
            self._corrections.clear()                 # track ids start again
        self._new_hand()
        evs = [make_event("hand_start", t, text, hand_no=self.hand_no, **fields)]
        self._emit_all(evs)
        return evs

    def next_hand(self) -> dict:
        """The host starts the next hand now (the table need not be cleared). The cards on the table
        stay the last hand's: they are not judged in the new one. A hand not yet decided is set aside,
        nothing recorded, and played again under its number. Returns what happened."""
        with self._lock:
            decided = self._waiting_clear
            previous = self.hand_no
            if not decided:
                self.hand_no -= 1                     # the same hand again: its number is still free
            on_table = {c.track_id for c in self._last_table.cards} if self._last_table is not None else set()
            if self._tracker is not None:
                on_table |= {tr.id for tr in self._tracker.confirmed_tracks()}
            self._stale = on_table
            self._scan_stale = bool(self.spec.count_scan)
            t = self._last_table.t if self._last_table is not None else 0.0
            text = (f"host: hand {self.hand_no + 1} starts" if decided else
                    f"host: hand {previous} starts again (not recorded)")
            self._start_next_hand(t, text, forget_table=False, by="host", previous=previous,
                                  previous_decided=decided)
            return {"hand_no": self.hand_no, "previous": previous, "previous_decided": decided}

    def end_of_stream(self) -> dict | None:
        """The source has ended: settle the hand in progress as it stands (if it can be)."""
        with self._lock:
            if self._waiting_clear:
                return None
            before = self.hand.result
            result = self.hand.end_of_stream()
            if result is not None and before is None:
                self._emit_all([dict(result)])
            return result

    # ------------------------------------------------------------------ host input
    def correct_card(self, track_id: int, card: str | None) -> dict:
        """The host says what card track ``track_id`` is (None: not a card). Re-judges at once.

        Raises :class:`KeyError` if no card with that id is on the table, :class:`SessionError`
        for a card that cannot be parsed."""
        from tableref.referee.cards import parse_card

        try:
            track_id = int(track_id)
        except (TypeError, ValueError):
            raise SessionError(Reason("track_id_not_number", f"track_id must be a number, got {track_id!r}",
                                      value=repr(track_id))) from None
        label = None
        if card is not None:
            try:
                label = str(parse_card(card, "card"))
            except RefereeError as exc:
                raise SessionError(exc.message) from None
        with self._lock:
            old = None
            found = False
            if self._last_table is not None:
                for c in self._last_table.cards:
                    if c.track_id == track_id:
                        old, found = c.card, True
            if not found and self._tracker is not None:
                for tr in self._tracker.confirmed_tracks():
                    if tr.id == track_id:
                        old, found = tr.label, True
            if not found:
                raise KeyError(track_id)
            self._corrections[track_id] = label
            self._emit(make_event(
                "correction", self._last_table.t if self._last_table else 0.0,
                f"host: card {track_id} is {label or 'not a card'}" + (f" (was read as {old})" if old else ""),
                cards=[label] if label else [], track_id=track_id, old=old, card=label, by="host"))
            if self._last_table is not None and not self._waiting_clear:
                # judged again as if read right from the start: a correction is not a player's move
                state, _, self._set_aside = self._table_state(self._last_table, repaired=self._repaired)
                self._emit_all(self.hand.rejudge(state, dict(self._corrections)))
        return {"ok": True, "track_id": track_id, "card": label, "old": old}

    def finish_hand(self, **host_input) -> dict:
        """Close the current hand with the host's input (see the module docstring)."""
        with self._lock:
            if self._waiting_clear and self._results:
                return dict(self._results[-1])
            before = self.hand.result
            try:
                result = self.hand.finish(**host_input)
            except RefereeError as exc:
                raise SessionError(exc.message) from None
            if before is None and result is not None:
                self._emit_all([dict(result)])
            return dict(result)

    def preview_hand(self, **host_input) -> dict:
        """What :meth:`finish_hand` with ``host_input`` would record, without recording anything
        (the host is shown it and asked first). ``already_recorded`` when the hand is decided."""
        import copy

        with self._lock:
            if self._waiting_clear and self._results:
                return {**self._results[-1], "already_recorded": True}
            if self.hand.result is not None:
                return {**self.hand.result, "already_recorded": True}
            hand = copy.deepcopy(self.hand)
        try:
            return dict(hand.finish(**host_input))
        except RefereeError as exc:
            raise SessionError(exc.message) from None

    def set_pot(self, points: int) -> None:
        """The pot the ledger holds (after an undo, or a new ledger session that paid it back):
        the hand in progress and the next ones carry this much in."""
        with self._lock:
            self.pot = int(points)
            if self.hand.result is None:
                self.hand.carry_in(self.pot)

    # ------------------------------------------------------------------ the camera loop
    def _ensure_tracker(self, frame_size):
        if self._tracker is None:
            from tableref.vision.tracking import TableTracker

            self.zones = self._make_zones(frame_size)
            self._tracker = TableTracker(self.zones, **self._tracker_options)
        return self._tracker

    def _make_zones(self, frame_size):
        from tableref.vision.zones import TableZones, default_zones

        z = self._zones_arg
        if z is None:
            return default_zones(self.n_seats, (int(frame_size[0]), int(frame_size[1])), names=self.players)
        if isinstance(z, TableZones):
            zones = z
        elif isinstance(z, dict):
            zones = TableZones.from_json(z)
        else:
            zones = TableZones.load(z)
        if zones.n_seats != self.n_seats:
            raise SessionError(Reason("zones_seat_mismatch", f"the zones have {zones.n_seats} seats but the table "
                                      f"has {self.n_seats}", zones=zones.n_seats, seats=self.n_seats))
        return zones

    def _get_recognizer(self):
        if self._recognizer is None:
            from tableref.vision.recognition import CardRecognizer, MachineSettings, live_table_preset

            machine = self._machine or MachineSettings()
            # a fixed camera over this game's table: a count of laid-down hands reads small
            # indices enlarged, several packs let identical cards lie side by side, one pack
            # holds each card once
            config = live_table_preset(count=self.spec.count_scan, several_packs=not self.spec.one_pack,
                                       one_pack=self.spec.one_pack, quick=machine.quick,
                                       **machine.config_changes())
            self._recognizer = CardRecognizer(threads=machine.threads, config=config)
        return self._recognizer

    def start(self) -> None:
        """Start the background thread (frames → recogniser → tracker → events)."""
        if self._thread is not None and self._thread.is_alive():
            if not self._thread_done:
                return
            self._thread.join(timeout=5)       # a thread that ran out of source is on its way out
        self._stop.clear()
        self._restart_source = False
        self._thread_done = False
        self._thread = threading.Thread(target=self._run, name="table-session", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        t = self._thread
        if t is not None and t is not threading.current_thread():
            t.join(timeout=10)
        self._thread = None
        if self._still is not None:
            self._still.close()
            self._still = None

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the background thread to finish (a file that ended). True if it did."""
        t = self._thread
        if t is None:
            return True
        t.join(timeout)
        return not t.is_alive()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def camera(self) -> dict:
        """The camera's status now (a copy): ``status``, ``message``, ``fps``, ``source`` and, for a
        status that names it, ``size``; ``snapshot()["camera"]`` without the rest of the table."""
        return dict(self._camera)

    def _set_camera(self, status: str, message: str, t: float = 0.0, size: str | None = None) -> None:
        """The camera's status (ok, blurred, small, error, ...) and its message; ``size``: the
        pictures' size in words ("640×360"), for a status that names it. A change is an event."""
        changed = (status != self._camera.get("status") or message != self._camera.get("message")
                   or self.source != self._camera.get("source"))
        self._camera.update(status=status, message=message, source=self.source)
        if size is None:
            self._camera.pop("size", None)
        else:
            self._camera["size"] = size
        if changed:
            extra = {} if size is None else {"size": size}
            self._emit(make_event("camera_status", t, f"camera {status}: {message}", status=status,
                                  message=message, source=self.source, **extra))

    def _open_source(self):
        from tableref.vision.sources import SourceError, open_source

        try:
            return open_source(resolve_source(self.source, self.game), realtime=self.realtime, loop=self.loop)
        except (SourceError, SessionError) as exc:
            self._set_camera("error", str(exc))
            return None

    def _run(self) -> None:
        src = None
        last_t = 0.0
        try:
            try:
                rec = self._get_recognizer()
            except Exception as exc:  # noqa: BLE001 - missing/bad model: a status, not a crash
                self._set_camera("error", f"card recognition is not available: {exc}")
                return
            n = 0
            passes = 0
            while not self._stop.is_set():
                if self._restart_source:
                    self._restart_source = False
                    if src is not None:
                        src.stop()
                        src = None
                if src is None:
                    src = self._open_source()
                    passes = 0
                    if src is None:
                        if self._stop.wait(2.0):
                            break
                        continue
                frame = src.read(timeout=0.5)
                st = src.status
                if self._restart_source:
                    continue                # a new source was set meanwhile: this one's news is stale
                self._camera["dropped"] = st.dropped
                if frame is None:
                    self._set_camera(st.state, st.message, last_t)
                    if src.ended:
                        failed = st.state == "error"
                        if not failed:
                            self.end_of_stream()
                        src.stop()
                        src = None
                        if failed or not self.loop:
                            with self._lock:
                                if not self._restart_source:
                                    self._thread_done = True     # a new source starts a new thread
                                    break
                            continue
                        self._replay(0.0)
                    continue
                if getattr(src, "passes", 0) != passes:     # a looped file started over
                    passes = src.passes
                    self._replay(frame.t)
                if self._tracker is not None and self._tracker.blurred_for >= BLUR_STATUS_SECONDS \
                        and not self._nothing_read:     # a cleared table is not a blurred picture
                    self._set_camera("blurred", BLURRED_MESSAGE, frame.t)
                elif frame.image is not None and twins.small_picture(frame.image.shape[1], frame.image.shape[0]):
                    size = f"{frame.image.shape[1]}×{frame.image.shape[0]}"
                    self._set_camera("small", small_picture_message(size), frame.t, size=size)
                elif self.picture_soft:
                    self._set_camera("soft", SOFT_MESSAGE, frame.t)
                else:
                    self._set_camera("ok", st.message if st.state == "ok" else "receiving frames", frame.t)
                n += 1
                if (n - 1) % self.analyse_every:
                    continue
                image = frame.image
                if image is None:
                    continue
                last_t = frame.t
                t0 = time.perf_counter()
                try:
                    obs = self.analyse_frame(image, frame.t, rec)
                except Exception as exc:  # noqa: BLE001 - one bad frame must not stop the table
                    self._set_camera("error", f"could not analyse a frame: {exc}", frame.t)
                    continue
                tracker = self._tracker
                dt = time.perf_counter() - t0
                self.frames_analysed += 1
                self.ms_per_frame = 0.9 * self.ms_per_frame + 0.1 * dt * 1000 if self.ms_per_frame else dt * 1000
                now = time.monotonic()
                self._fps_times.append(now)
                if len(self._fps_times) >= 2:
                    span = self._fps_times[-1] - self._fps_times[0]
                    self._camera["fps"] = round((len(self._fps_times) - 1) / span, 1) if span > 0 else 0.0
                if self._subs_want_video():
                    self._jpeg = self._annotate(image, obs, tracker)
                    if self._jpeg is not None:
                        self._frames.append((frame.t, self._jpeg))
        finally:
            if src is not None:
                src.stop()

    def _replay(self, t: float) -> None:
        """A looped clip (the demo) started over: the table is seen afresh, a decided hand gives way
        to the next."""
        with self._lock:
            self._tracker = None
            if self._waiting_clear:
                self._new_hand()
                self._emit(make_event("hand_start", t, f"hand {self.hand_no} starts (demo replay)",
                                      hand_no=self.hand_no, replay=True))

    def analyse_frame(self, image: np.ndarray, t: float, recognizer=None):
        """One camera frame of media time ``t`` through everything the camera loop does with it: read
        (unless too blurred to read), tracked, judged (and counted, for a Marriage count), and the
        still table handed to the photo-quality re-read; returns the frame's observation. For
        benchmarks and tools that feed frames themselves (``recognizer``: default the session's)."""
        rec = recognizer or self._get_recognizer()
        obs = self._observe(rec, image, t)
        self._watch_clear(obs)
        tracker = self._ensure_tracker((image.shape[1], image.shape[0]))
        table = tracker.update(obs)
        if table is not None and table.changed:
            self.feed_table(table)
        self._feed_scan(obs)
        # a frame declared blurred is not handed to the still re-read, even when read as it is (a camera
        # shaken for long): the re-read would declare it too and be asked again at once, frame after frame
        self._read_still(image, tracker, t, submit=obs.read and self._shaken_since is None)
        return obs

    def _read_still(self, image: np.ndarray, tracker, t: float, submit: bool = True) -> None:
        """The still table read again at photo quality beside the camera loop
        (:class:`vision.recognition.still.StillReader`): a finished reading becomes the tracker's
        evidence, and the part of the table that has come to lie still is handed over (``submit``
        False: not from this frame, which was not read or was declared blurred)."""
        if not self.still_reads:
            return
        if self._still is None:
            from tableref.vision.recognition.still import StillReader

            self._still = StillReader()
        done = self._still.take()
        if done is not None and self._still_for is tracker:
            read_t, region, cards = done
            tracker.add_photo_readings(cards, read_t, region)
        if submit and not self._still.busy:
            region = tracker.reread_region(t)
            if region is not None and self._still.submit(image, region, t):
                self._still_for = tracker           # a tracker started afresh meanwhile ignores the reading

    def _observe(self, rec, image: np.ndarray, t: float):
        """The frame's observation; a frame too blurred to read (a hand moving, the camera refocusing:
        :meth:`TableTracker.too_blurred`) is not read at all, only its sharpness is passed on
        (``read=False``), except one every :data:`BLUR_PEEK_SECONDS`: a cleared table looks blurred
        too, and only a look tells it from a blurred one."""
        from tableref.vision.recognition import ensure_bgr, sharpness
        from tableref.vision.types import FrameObservation

        tracker = self._tracker
        s = None
        if tracker is not None and not self._waiting_clear:     # waiting for the table to be cleared: read all
            image = ensure_bgr(image)
            s = sharpness(image)
            peek_due = self._last_read_t is None or not 0.0 <= t - self._last_read_t < BLUR_PEEK_SECONDS
            if tracker.too_blurred(s) and not peek_due:
                return FrameObservation(t=t, width=image.shape[1], height=image.shape[0], cards=[], sharpness=s,
                                        read=False)
        # a frame the recogniser declares blurred (a shaken camera) is not read, unless every frame has
        # been so for longer than a shake lasts: then it is the picture this camera gives, read as it is
        if tracker is not None:
            lasting = tracker.max_blur_seconds
        else:
            from tableref.vision.tracking import MAX_BLUR_SECONDS as lasting
        obs = rec.observe(image, t=t, sharpness=s,       # measured once
                          read_blurred=self._shaken_since is not None and t - self._shaken_since > lasting)
        if getattr(getattr(rec, "last_stats", None), "blurred", False):
            self._shaken_since = t if self._shaken_since is None else self._shaken_since
        else:
            self._shaken_since = None
        self._last_read_t = t                            # looked at (a peek declared blurred too)
        if obs.read:
            self._nothing_read = not obs.cards and not obs.unsure
            self._note_focus(obs)
        return obs

    def _note_focus(self, obs) -> None:
        """Keep whether ``obs`` (a frame read) measured soft, for :attr:`picture_soft`: only frames with
        something on the table (a cleared cloth has no edges to measure); a clip started over starts
        the record afresh."""
        looks = self._soft_looks
        if looks and obs.t < looks[-1][0]:
            looks.clear()
        if obs.cards or obs.unsure:
            looks.append((obs.t, bool(obs.soft)))
        while looks and obs.t - looks[0][0] > SOFT_STATUS_SECONDS:
            looks.popleft()

    @property
    def picture_soft(self) -> bool:
        """Whether the camera's pictures have been out of focus lately (``SOFT_STATUS_SECONDS``: most
        of the frames read with something on the table measured soft); the camera status says so."""
        looks = self._soft_looks
        if len(looks) < SOFT_MIN_LOOKS or looks[-1][0] - looks[0][0] < 2.0 / 3.0 * SOFT_STATUS_SECONDS:
            return False
        return 2 * sum(soft for _, soft in looks) > len(looks)

    def _subs_want_video(self) -> bool:
        return True

    # ------------------------------------------------------------------ views
    def latest_jpeg(self) -> bytes | None:
        """The newest analysed frame with boxes, labels and verdict colours (JPEG)."""
        return self._jpeg

    def frame_at(self, t: float) -> tuple[float, bytes] | None:
        """``(t, jpeg)``: the annotated frame of media time ``t`` while it is among the last few
        (a verdict's event carries the time of the frame it was decided on), else the newest;
        None before the first frame."""
        frames = list(self._frames)
        for ft, jpeg in reversed(frames):
            if abs(ft - t) < 0.006:
                return ft, jpeg
        return frames[-1] if frames else None

    def _annotate(self, image: np.ndarray, obs, tracker) -> bytes | None:
        from tableref.live.overlay import annotate

        try:
            with self._lock:
                views = self.hand.seat_views()
                winner = self.hand.winner
            img = annotate(image, tracker, self.zones, views, self._corrections, winner,
                           self._camera.get("status", ""))
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 75])
            return buf.tobytes() if ok else None
        except Exception:  # noqa: BLE001 - drawing must never stop the table
            return None

    def _unread_cards(self) -> list[dict]:
        """The cards not read yet, for the host: not those the host has said, nor those of the
        previous hand still on the table (not judged in this one)."""
        table = self._last_table
        out = []
        for c in getattr(table, "unread", None) or []:
            if c.track_id in self._corrections or c.track_id in self._stale:
                continue
            out.append({"track_id": c.track_id, "zone": c.zone, "box": [round(float(v), 1) for v in c.box],
                        "candidates": list(c.candidates)})
        return out

    def _set_aside_cards(self) -> list[dict]:
        """The labels read more often than the packs hold them (a one-pack table's card at two
        places), none of them counted: each with its copies (track id, zone) that the host has not
        said to be another card; a label the host's corrections leave within the packs is gone."""
        table = self._last_table
        if table is None:
            return []
        zones = {c.track_id: c.zone for c in table.cards}
        out = []
        for n in self._set_aside:
            label = n["card"]
            copies = [i for i in n["track_ids"] if self._corrections.get(i, label) == label]
            if len(copies) > n["packs"]:
                out.append({"card": label, "packs": n["packs"],
                            "copies": [{"track_id": i, "zone": zones.get(i)} for i in copies]})
        return out

    def snapshot(self) -> dict:
        """The current state, JSON-ready (see docs/live.md and the session contract)."""
        with self._lock:
            state = self.hand.state
            seats = self.hand.seat_views()
            result = self.hand.result
            out = {
                "game": self.game,
                "hand_no": self.hand_no,
                "players": list(self.players),
                "stake": self.stake,
                "rules": dict(self.rules),
                "pot": self.pot,
                "camera": dict(self._camera),
                "seats": seats,
                "centre": {"cards": [c.card for c in state.centre], "track_ids": [c.track_id for c in state.centre]},
                "winner": self.hand.winner,
                "result": dict(result) if result else None,
                "waiting_for_clear_table": self._waiting_clear,
                "clear_table_seconds": CLEAR_TABLE_SECONDS,
                "events": list(self._events)[-50:],
                "hands_decided": self._hands_decided,
                "frames_analysed": self.frames_analysed,
                "ms_per_frame": round(self.ms_per_frame, 1),
                # cards on the table whose label is not decided yet: shown to the host (their number,
                # where they lie, what they might be), never judged until read or corrected
                "unread": self._unread_cards(),
                # labels read more often than the packs hold them: every copy set aside until the host
                # says which is misread
                "set_aside": self._set_aside_cards(),
            }
            out.update(self.hand.table_view())
            return out
