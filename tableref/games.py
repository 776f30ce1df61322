"""Every game tableref referees, declared once.

A :class:`Game` says what the rest of the program needs to know about a game:
how many may play, how many cards a hand holds, how many packs are shuffled,
the referee's settings class (and its builder, which validates house rules),
and its *live policy* -- the class that referees one hand at the live table
(see :class:`tableref.live.hand.LiveHand`), whether one pack lets the session
repair a card read twice, and whether the hand is decided by a per-seat count scan
(the camera reads such a table, and one of several packs, with the live table
preset they call for: :func:`tableref.vision.recognition.live_table_preset`). The
session, the setup form, the ledger and the command line read this registry;
nothing else lists the games.

The live hand class is named by its import path and loaded on first use, so
reading the registry (the ledger does) never imports the live session.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass

from tableref.referee.reasons import Reason


@dataclass(frozen=True)
class Game:
    name: str                          #: the key used everywhere ("desmoche")
    title: str                         #: for people ("Desmoche")
    aka: str                           #: its other name ("" if none)
    seats: tuple[int, int]             #: fewest and most players
    default_seats: int                 #: players when nobody says
    hand_size: tuple[int, ...]         #: cards a player holds (Marriage: 21, 22 for the one who drew)
    packs: int                         #: packs shuffled together
    settings: str                      #: "module:Class" of the referee's house-rule switches
    build_settings: str                #: "module:function" validating a rules dict into that class
    live_hand: str                     #: "module:Class" refereeing one hand at the live table
    json_commands: str                 #: module of the game's JSON rules commands (``tableref <game> ...``)
    count_scan: bool = False           #: decided by a per-seat count of laid-down hands

    @property
    def one_pack(self) -> bool:
        """One pack holds each card once: a card read twice is a misreading."""
        return self.packs == 1

    def settings_class(self) -> type:
        return _load(self.settings)

    def rules(self, data=None, field_name: str = "rules"):
        """The house rules in force, validated by the referee (raises its RefereeError)."""
        return _load(self.build_settings)(data or {}, field_name)

    def live_hand_class(self) -> type:
        return _load(self.live_hand)

    @property
    def description(self) -> str:
        """``"Desmoche, one pack"``."""
        packs = {1: "one pack", 2: "two packs", 3: "three packs"}.get(self.packs, f"{self.packs} packs")
        return f"{self.title}{f' ({self.aka})' if self.aka else ''}, {packs}"

    def seat_error(self, seats) -> str | None:
        """Why ``seats`` players cannot play this game, or None."""
        lo, hi = self.seats
        if isinstance(seats, bool) or not isinstance(seats, int):
            return Reason("seats_not_number", f"seats must be a number {lo}-{hi}", lo=lo, hi=hi)
        if not lo <= seats <= hi:
            return Reason("seat_count", f"{self.title} is played by {lo} to {hi} players, not {seats}",
                          game=self.title, lo=lo, hi=hi, seats=seats)
        return None


def _load(path: str):
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


GAMES: dict[str, Game] = {g.name: g for g in (
    Game(name="desmoche", title="Desmoche", aka="", seats=(2, 4), default_seats=4, hand_size=(9,), packs=1,
         settings="tableref.referee.desmoche.settings:DesmocheSettings",
         build_settings="tableref.referee.desmoche.settings:desmoche_settings",
         live_hand="tableref.live.desmoche:DesmocheLiveHand", json_commands="tableref.rules_json.desmoche"),
    Game(name="marriage", title="Marriage", aka="Matrimonio", seats=(2, 5), default_seats=3, hand_size=(21, 22),
         packs=3,
         settings="tableref.referee.marriage.settings:MarriageRules",
         build_settings="tableref.referee.marriage.settings:build_rules",
         live_hand="tableref.live.marriage:MarriageLiveHand", json_commands="tableref.rules_json.marriage",
         count_scan=True),
)}

GAME_NAMES: tuple[str, ...] = tuple(GAMES)


class UnknownGame(ValueError):
    pass


def game(name) -> Game:
    """The game called ``name``, or :class:`UnknownGame` with a one-line message."""
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise UnknownGame(Reason("unknown_game", f"unknown game {name!r}: choose {' or '.join(GAME_NAMES)}",
                                 name=repr(name), choices=" or ".join(GAME_NAMES))) from None


def seat_ranges() -> dict[str, tuple[int, int]]:
    """``{"desmoche": (2, 4), ...}`` for forms and help texts."""
    return {g.name: g.seats for g in GAMES.values()}
