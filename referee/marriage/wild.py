"""The wild cards ("jokers") and maal of a hand, derived from the tiplu.

With the tiplu ``JC``: the other ``JC`` are tiplus, ``QC`` the poplu (one rank above,
same suit), ``10C`` the jhiplu (one rank below), and every ``J`` of another suit an
ordinary joker. For this purpose the ace is above the king and the two above the
ace: tiplu ``KH`` makes ``AH`` the poplu, tiplu ``AH`` makes ``2H`` the poplu and
``KH`` the jhiplu. The alter is the tiplu's rank in the other suit of its colour.
"""
from __future__ import annotations

from dataclasses import dataclass

from tableref.referee.cards import Card, RED_SUITS, SUITS

TIPLU, POPLU, JHIPLU, ORDINARY_JOKER = "tiplu", "poplu", "jhiplu", "ordinary_joker"


def _up(rank: int) -> int:
    return 1 if rank == 13 else rank + 1


def _down(rank: int) -> int:
    return 13 if rank == 1 else rank - 1


@dataclass(frozen=True)
class Wild:
    """Which cards are wild for a given tiplu."""

    tiplu: Card

    @property
    def poplu(self) -> Card:
        return Card(_up(self.tiplu.rank), self.tiplu.suit)

    @property
    def jhiplu(self) -> Card:
        return Card(_down(self.tiplu.rank), self.tiplu.suit)

    @property
    def alter(self) -> Card:
        same_colour = [s for s in SUITS if s != self.tiplu.suit and ((s in RED_SUITS) == (self.tiplu.suit in RED_SUITS))]
        return Card(self.tiplu.rank, same_colour[0])

    def kind(self, card: Card) -> str | None:
        """``"tiplu"``, ``"poplu"``, ``"jhiplu"``, ``"ordinary_joker"`` or None (not wild)."""
        if card == self.tiplu:
            return TIPLU
        if card.rank == self.tiplu.rank:
            return ORDINARY_JOKER
        if card == self.poplu:
            return POPLU
        if card == self.jhiplu:
            return JHIPLU
        return None

    def is_joker(self, card: Card) -> bool:
        return self.kind(card) is not None

    def jokers(self) -> list[Card]:
        """The six wild card faces (the four of the tiplu's rank, poplu, jhiplu); 18 physical cards."""
        return [Card(self.tiplu.rank, s) for s in SUITS] + [self.poplu, self.jhiplu]
