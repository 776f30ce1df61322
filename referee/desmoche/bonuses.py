"""Bonuses when playing "todo" (switch ``jugar_todo``, default on).

Each bonus is worth one stake from each losing player, and they stack:

* **Mico**: the winner's melds contain a run that includes ``A-2-3``; one Mico
  per such run (two suits -> two Micos).
* **Arriba del Palo**: a losing player with no card face up on the table when
  the hand was won pays one more stake. After an automatic win every losing
  player pays it (nobody has laid anything).
* **Color**: the winner's 10 table cards are all of one suit.

Mico and Color need the winner's table, so after an automatic win only Arriba
del Palo is paid. Disqualified players are out of the hand: they lose their
ante but pay no bonus.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from tableref.referee.cards import Card

from tableref.referee.desmoche.melds import meld_kind
from tableref.referee.desmoche.settings import DesmocheSettings


@dataclass(frozen=True)
class Bonus:
    bonus: str              # "mico", "arriba_del_palo", "color"
    payer: str
    amount: int | float
    cards: tuple[Card, ...] = ()
    reason: str = ""

    def to_json(self) -> dict:
        return {"bonus": self.bonus, "payer": self.payer, "amount": self.amount,
                "cards": [str(c) for c in self.cards], "reason": self.reason}


def mico_runs(melds: Sequence[Sequence[Card]]) -> list[list[Card]]:
    """The winner's runs that include A-2-3."""
    out = []
    for m in melds:
        if meld_kind(m) == "run" and {1, 2, 3} <= {c.rank for c in m}:
            out.append(list(m))
    return out


def is_color_win(melds: Sequence[Sequence[Card]]) -> bool:
    cards = [c for m in melds for c in m]
    return len(cards) == 10 and len({c.suit for c in cards}) == 1


def bonuses(winner: str, losers: Sequence[str], stake, settings: DesmocheSettings,
            winner_melds: Sequence[Sequence[Card]] = (), table_counts: dict[str, int] | None = None,
            autowin: str | None = None) -> list[Bonus]:
    """Every bonus the losers owe the winner, itemised (one entry per payer)."""
    if not settings.jugar_todo or winner is None:
        return []
    table_counts = table_counts or {}
    out: list[Bonus] = []
    if autowin is None:
        for run in mico_runs(winner_melds):
            for p in losers:
                out.append(Bonus("mico", p, stake, tuple(run), f"{winner} won with a run from A-2-3"))
        if is_color_win(winner_melds):
            cards = tuple(c for m in winner_melds for c in m)
            for p in losers:
                out.append(Bonus("color", p, stake, cards, f"{winner} won with all ten cards of one suit"))
    if autowin == "last_player":
        return out
    for p in losers:
        if autowin is not None:
            out.append(Bonus("arriba_del_palo", p, stake, (), f"{winner} won automatically ({autowin})"))
        elif table_counts.get(p, 0) == 0:
            out.append(Bonus("arriba_del_palo", p, stake, (), f"{p} had no card face up on the table"))
    return out
