"""Desmoche melds: runs and sets, the ace-low rule and the laying order.

* A **run** is 3 to 10 cards of one suit in consecutive ranks. The ace is low
  only: ``A-2-3`` is the lowest run, ``J-Q-K`` the highest; ``Q-K-A`` and
  wrap-arounds (``K-A-2``) are not runs.
* A **set** is 3 or 4 cards of one rank.
* Laying order (switch ``strict_order``): runs must be laid ascending
  (``8S 9S 10S``, not ``8S 10S 9S``); sets must alternate colour
  (``8S 8H 8C``, not ``8S 8C 8H``). Under ``warn`` a violation is reported but
  the meld counts; under ``disqualify`` the meld does not count and its owner
  is disqualified; under ``off`` the order is not checked.

:func:`check_meld` returns a :class:`MeldVerdict` with a reason a player
understands; :func:`check_table` checks one player's whole table.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

from tableref.referee.cards import Card, RANKS, format_cards, parse_cards
from tableref.referee.errors import CardError
from tableref.referee.reasons import Reason, reason_json

from tableref.referee.desmoche.settings import DesmocheSettings

MAX_RUN = 10
WIN_CARDS = 10


@dataclass(frozen=True)
class MeldVerdict:
    cards: tuple[Card, ...]
    kind: str | None          # "run", "set" or None (not a meld)
    valid: bool               # counts as a meld under the table's rules
    in_order: bool            # laid in the required order (True when strict_order is off)
    reason: str | None        # why it is invalid or out of order; None when all is well

    def to_json(self) -> dict:
        out = {"cards": format_cards(self.cards), "kind": self.kind, "valid": self.valid,
                "in_order": self.in_order, "reason": self.reason}
        if reason_json(self.reason):  # key and parameters, for translations
            out["reason_key"] = reason_json(self.reason)
        return out


def _names(cards) -> str:
    return " ".join(str(c) for c in cards)


def run_shape(cards: Sequence[Card]) -> str | None:
    """None if the cards (in any order) form a run; else the reason they do not."""
    n = _names(cards)
    if len(cards) < 3:
        return Reason("meld_too_short", f"{n or 'nothing'}: a meld needs at least 3 cards", cards=n)
    suits = {c.suit for c in cards}
    if len(suits) > 1:
        return Reason("run_one_suit", f"{n}: a run must be of one suit", cards=n)
    if len(cards) > MAX_RUN:
        return Reason("run_too_long", f"{n}: a run has at most {MAX_RUN} cards", cards=n, max=MAX_RUN)
    ranks = sorted(c.rank for c in cards)
    if len(set(ranks)) != len(ranks):
        return Reason("same_card_twice", f"{n}: the same card twice", cards=n)
    for a, b in zip(ranks, ranks[1:]):
        if b != a + 1:
            if ranks[0] == 1 and ranks[-1] == 13:
                return Reason("ace_low", f"{n}: the ace is low only, so Q-K-A and K-A-2 are not runs "
                              f"(A-2-3 is the lowest run, J-Q-K the highest)", cards=n)
            return Reason("not_consecutive",
                          f"{n}: not a run, {RANKS[a - 1]} and {RANKS[b - 1]} are not consecutive",
                          cards=n, a=RANKS[a - 1], b=RANKS[b - 1])
    return None


def set_shape(cards: Sequence[Card]) -> str | None:
    """None if the cards form a set (3-4 of one rank, different suits); else why not."""
    n = _names(cards)
    if len(cards) < 3:
        return Reason("meld_too_short", f"{n or 'nothing'}: a meld needs at least 3 cards", cards=n)
    if len({c.rank for c in cards}) > 1:
        return Reason("set_one_rank", f"{n}: a set must be of one rank", cards=n)
    if len(cards) > 4:
        return Reason("set_too_long", f"{n}: a set has at most 4 cards", cards=n)
    if len({c.suit for c in cards}) != len(cards):
        return Reason("same_card_twice", f"{n}: the same card twice", cards=n)
    return None


def meld_kind(cards: Sequence[Card]) -> str | None:
    """``"run"``, ``"set"`` or None, ignoring the laying order."""
    if set_shape(cards) is None:
        return "set"
    if run_shape(cards) is None:
        return "run"
    return None


def order_problem(cards: Sequence[Card], kind: str) -> str | None:
    """None if a meld of ``kind`` is laid in the required order; else the reason."""
    if kind == "run":
        ranks = [c.rank for c in cards]
        if ranks != sorted(ranks):
            good = _names(sorted(cards, key=lambda c: c.rank))
            return Reason("run_order", f"run laid out of order: lay it ascending, {good}", good=good)
        return None
    if kind == "set":
        colours = [c.is_red for c in cards]
        if any(a == b for a, b in zip(colours, colours[1:])):
            good = _names(alternate_colours(cards))
            return Reason("set_order", f"set laid without alternating colours: lay it {good}", good=good)
        return None
    return None


def alternate_colours(cards: Sequence[Card]) -> list[Card]:
    """The set's cards in an order that alternates colour (majority colour first)."""
    red = [c for c in cards if c.is_red]
    black = [c for c in cards if not c.is_red]
    first, second = (red, black) if len(red) >= len(black) else (black, red)
    out = []
    for i in range(len(cards)):
        pool = first if i % 2 == 0 else second
        if not pool:
            pool = first or second
        out.append(pool.pop(0))
    return out


def _shape_reason(cards: Sequence[Card]) -> str:
    if len(cards) < 3:
        return set_shape(cards)
    if len({c.rank for c in cards}) == 1:
        return set_shape(cards)
    if len({c.suit for c in cards}) == 1:
        return run_shape(cards)
    n = _names(cards)
    return Reason("neither_run_nor_set", f"{n}: neither a run (one suit, consecutive) nor a set (one rank)", cards=n)


def check_meld(cards, settings: DesmocheSettings | None = None) -> MeldVerdict:
    """Judge one meld given in the order it was laid."""
    settings = settings or DesmocheSettings()
    cards = tuple(parse_cards(cards) if not all(isinstance(c, Card) for c in cards) else cards)
    kind = meld_kind(cards)
    if kind is None:
        return MeldVerdict(cards, None, False, True, _shape_reason(cards))
    if settings.strict_order == "off":
        return MeldVerdict(cards, kind, True, True, None)
    problem = order_problem(cards, kind)
    if problem is None:
        return MeldVerdict(cards, kind, True, True, None)
    if settings.strict_order == "disqualify":
        return MeldVerdict(cards, kind, False, False, Reason(
            "order_disqualifies", problem + " (disqualifies under strict_order=disqualify)", problem=problem))
    return MeldVerdict(cards, kind, True, False, Reason("order_warning", problem + " (warning only)", problem=problem))


@dataclass
class TableVerdict:
    melds: list[MeldVerdict]
    cards: int
    valid: bool
    complete: bool
    problems: list[str] = field(default_factory=list)
    disqualified: bool = False

    def to_json(self) -> dict:
        return {"valid": self.valid, "cards": self.cards, "complete": self.complete,
                "melds": [m.to_json() for m in self.melds], "problems": list(self.problems),
                "disqualified": self.disqualified}


def check_duplicates(cards: Sequence[Card], field: str | None = None) -> None:
    """Desmoche uses one pack: refuse a card that appears twice."""
    counts = Counter(cards)
    for card, k in counts.items():
        if k > 1:
            raise CardError(f"impossible cards: {card} appears {k} times but Desmoche uses one pack", field)


def check_table(melds, settings: DesmocheSettings | None = None) -> TableVerdict:
    """Judge one player's table (list of melds, each in laying order).

    ``valid``: every meld counts. ``complete``: valid and exactly 10 cards, i.e. a
    winning table. Two identical cards raise :class:`CardError`.
    """
    settings = settings or DesmocheSettings()
    melds = [tuple(m) for m in melds]
    everything = [c for m in melds for c in m]
    check_duplicates(everything)
    verdicts = [check_meld(m, settings) for m in melds]
    problems = [v.reason for v in verdicts if v.reason]
    valid = all(v.valid for v in verdicts)
    n = len(everything)
    if n > WIN_CARDS:
        problems.append(Reason("too_many_on_table", f"{n} cards on the table: a player never has more than {WIN_CARDS}",
                               n=n, max=WIN_CARDS))
    disq = settings.strict_order == "disqualify" and any(not v.in_order for v in verdicts)
    complete = valid and n == WIN_CARDS
    return TableVerdict(verdicts, n, valid, complete, problems, disq)


def can_extend(meld: Sequence[Card], card: Card) -> bool:
    """True if ``card`` added to ``meld`` still forms a meld (order aside)."""
    if card in meld:
        return False
    return meld_kind(list(meld) + [card]) is not None


def extension_cards(meld: Sequence[Card]) -> list[Card]:
    """Every card that would extend ``meld``."""
    from tableref.referee.cards import full_pack
    return [c for c in full_pack() if can_extend(meld, c)]


def laid_order(cards: Sequence[Card]) -> list[Card]:
    """The meld's cards in the required laying order (ascending run / alternating set)."""
    kind = meld_kind(cards)
    if kind == "run":
        return sorted(cards, key=lambda c: c.rank)
    if kind == "set":
        return alternate_colours(cards)
    return list(cards)
