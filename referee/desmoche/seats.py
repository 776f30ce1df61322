"""Seats and the direction of play.

Everywhere in ``referee.desmoche`` the players are listed **in seat order going
clockwise around the table as seen from above** (the order a camera sees the
seats). The switch ``direction`` then decides who plays next: with the default
``counter_clockwise`` the next player is the one on your right, i.e. the
*previous* entry of the list (wrapping round).
"""
from __future__ import annotations

from typing import Sequence

from tableref.referee.errors import RefereeError

from tableref.referee.desmoche.settings import CLOCKWISE, DesmocheSettings


def next_player(seats: Sequence[str], player: str, settings: DesmocheSettings) -> str:
    i = list(seats).index(player)
    step = 1 if settings.direction == CLOCKWISE else -1
    return seats[(i + step) % len(seats)]


def order_from(seats: Sequence[str], start: str, settings: DesmocheSettings, include_start=True) -> list[str]:
    """All players in the direction of play starting at ``start``."""
    out = [start]
    p = start
    for _ in range(len(seats) - 1):
        p = next_player(seats, p, settings)
        out.append(p)
    return out if include_start else out[1:]


def play_order(seats: Sequence[str], dealer: str | None, settings: DesmocheSettings) -> list[str]:
    """Players in the order they play: first the dealer's neighbour in the direction
    of play, the dealer last. Without a dealer, the list order is kept."""
    if dealer is None:
        return list(seats)
    return order_from(seats, dealer, settings, include_start=False) + [dealer]


def claim_order(seats: Sequence[str], discarder: str, settings: DesmocheSettings) -> list[str]:
    """Who may claim a discard, first to last: the players after the discarder in the
    direction of play, then the discarder (for the forced meld)."""
    return order_from(seats, discarder, settings, include_start=False) + [discarder]


def check_seats(seats, field: str = "players") -> list[str]:
    if not isinstance(seats, (list, tuple)) or not all(isinstance(s, str) and s for s in seats):
        raise RefereeError("players must be a list of names", field)
    if len(set(seats)) != len(seats):
        raise RefereeError("two players have the same name", field)
    if not 2 <= len(seats) <= 4:
        raise RefereeError(f"Desmoche is played by 2 to 4 players, got {len(seats)}", field)
    return list(seats)
