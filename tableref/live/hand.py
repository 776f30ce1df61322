"""What the table session asks of a game's live hand: the small protocol every game implements.

The session (:class:`tableref.live.session.TableSession`) knows no game. It makes a
hand with :func:`new_hand` from the game's entry in the registry
(:mod:`tableref.games`) and only ever calls what :class:`LiveHand` lists. The
implementations are :class:`tableref.live.desmoche.DesmocheLiveHand` and
:class:`tableref.live.marriage.MarriageLiveHand`.

Every method that judges returns the events it causes (built by
:func:`tableref.live.events.make_event`); a decided hand's result is a
``hand_end`` event, kept in :attr:`LiveHand.result`.
"""
from __future__ import annotations

from typing import Protocol, runtime_checkable

from tableref.games import Game
from tableref.live.state import TableState


@runtime_checkable
class LiveHand(Protocol):
    game: str                      #: the registry's name of the game
    hand_no: int                   #: the hand's number in the ledger session
    players: list[str]             #: seat order
    state: TableState              #: the last stable table judged
    result: dict | None            #: the ``hand_end`` event once the hand is decided

    def observe(self, state: TableState) -> list[dict]:
        """A new stable table: the changes and the referee's verdicts."""

    def observe_scan(self, scan: TableState) -> list[dict]:
        """A per-seat count scan (games whose registry entry has ``count_scan``); [] otherwise."""

    def rejudge(self, state: TableState, corrections: dict[int, str | None]) -> list[dict]:
        """The host corrected cards (track id -> label; None: not a card): judge again, as if read right."""

    def finish(self, **host_input) -> dict:
        """The host closes the hand with what the camera cannot see; returns the result."""

    def end_of_stream(self) -> dict | None:
        """The video ended: settle the hand as it stands if it can be; the result or None."""

    def seat_views(self) -> list[dict]:
        """Per seat: player, melds with verdicts, loose cards, verdict lines (JSON-ready)."""

    def table_view(self) -> dict:
        """What the game adds to the table's snapshot (Marriage: the tiplu...)."""

    @property
    def winner(self) -> str | None:
        """The winner as far as known."""

    @property
    def carried_pot(self) -> int:
        """The pot this hand leaves for the next hand (0 for a game without a pot)."""

    def carry_in(self, points: int) -> None:
        """The pot this undecided hand takes in is ``points`` (the ledger's; nothing for a game without a pot)."""


def new_hand(game: Game, players: list[str], *, rules: dict, stake, pot_carried, hand_no: int,
             auto_finish: bool) -> LiveHand:
    """A fresh live hand of ``game``."""
    cls = game.live_hand_class()
    return cls(players, rules=rules, stake=stake, pot_carried=pot_carried, hand_no=hand_no,
               auto_finish=auto_finish)
