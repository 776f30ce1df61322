"""The three-card combinations of Marriage and their classification.

* ``tunnela``: three identical cards (``6H 6H 6H``); a joker never helps make one.
* ``pure_sequence``: three consecutive cards of one suit, ace at either end
  (``AS 2S 3S``, ``QS KS AS``) but never in the middle (``KS AS 2S`` is nothing).
  The pure sequence jhiplu-tiplu-poplu is a ``marriage``.
* ``triplet``: three cards of one rank in three different suits.
* ``dirty_sequence``: two cards of a pure sequence plus a joker (``6D QC 8D`` with
  tiplu ``JC``), or any three cards at least two of which are jokers.
* ``dirty_triplet``: two cards of one rank in different suits plus a joker.
* Two identical cards plus a joker (``5D 5D JD``) is no combination.

Tunnelas, pure sequences and marriages are "pure": they count toward seeing the
joker, and there the jokers are plain cards (nobody knows the tiplu yet).
"""
from __future__ import annotations

from typing import Sequence

from tableref.referee.cards import Card
from tableref.referee.marriage.wild import Wild

TUNNELA = "tunnela"
MARRIAGE = "marriage"
PURE_SEQUENCE = "pure_sequence"
TRIPLET = "triplet"
DIRTY_SEQUENCE = "dirty_sequence"
DIRTY_TRIPLET = "dirty_triplet"
DUBLEE = "dublee"

PURE_KINDS = frozenset({TUNNELA, PURE_SEQUENCE, MARRIAGE})


def is_sequence_ranks(ranks: Sequence[int]) -> bool:
    """Three distinct ranks (1 = ace .. 13 = king) that are consecutive; A-2-3 and Q-K-A yes, K-A-2 no."""
    r = sorted(ranks)
    if len(set(r)) != 3:
        return False
    return r[2] - r[0] == 2 or r == [1, 12, 13]


def is_partial_sequence_ranks(a: int, b: int) -> bool:
    """Two distinct ranks that a third card can complete into a sequence (no K-A-2)."""
    a, b = min(a, b), max(a, b)
    if a == b:
        return False
    return b - a <= 2 or (a == 1 and b >= 12)


def natural_kind(cards: Sequence[Card]) -> str | None:
    """Kind of a three-card combination using every card as itself (no wild cards)."""
    if len(cards) != 3:
        return None
    a, b, c = cards
    if a == b == c:
        return TUNNELA
    suits = {x.suit for x in cards}
    ranks = [x.rank for x in cards]
    if len(suits) == 1 and is_sequence_ranks(ranks):
        return PURE_SEQUENCE
    if len(set(ranks)) == 1 and len(suits) == 3:
        return TRIPLET
    return None


def _pair_kind(x: Card, y: Card) -> str | None:
    """What two natural cards plus one joker make."""
    if x.suit == y.suit and is_partial_sequence_ranks(x.rank, y.rank):
        return DIRTY_SEQUENCE
    if x.rank == y.rank and x.suit != y.suit:
        return DIRTY_TRIPLET
    return None


def classify(cards: Sequence[Card], wild: Wild | None = None) -> str | None:
    """The kind of combination ``cards`` make (see module doc), or None.

    ``wild`` gives the jokers; without it (the joker not yet seen) only pure
    combinations and triplets exist.
    """
    cards = list(cards)
    if len(cards) != 3:
        return None
    kind = natural_kind(cards)
    if kind == PURE_SEQUENCE and wild is not None and set(cards) == {wild.jhiplu, wild.tiplu, wild.poplu}:
        return MARRIAGE
    if kind is not None or wild is None:
        return kind
    jokers = [c for c in cards if wild.is_joker(c)]
    if len(jokers) >= 2:
        return DIRTY_SEQUENCE
    if len(jokers) == 1:
        x, y = [c for c in cards if not wild.is_joker(c)]
        return _pair_kind(x, y)
    return None


def is_pure(kind: str | None) -> bool:
    return kind in PURE_KINDS
