"""Cards and packs.

Notation (input and output): rank ``A 2 3 4 5 6 7 8 9 10 J Q K`` followed by suit
``C D H S``: ``10H``, ``AS``, ``QD``. On input ``T`` is accepted for ten, ``1`` for
ace, lower case, and the suit symbols ♣♦♥♠ (also the white ones ♧♢♡♤), plain or in
their emoji form (the symbol followed by U+FE0F, as phone keyboards type them); a
symbol may also come before the rank (``♣J``, ``♣️10``), as the game texts write it.
Output is always canonical.

A :class:`Card` is a value (rank and suit). In Marriage three packs are used, so
the same value can lie on the table up to three times; those are distinct
physical cards, represented as separate entries of a list (their position or an
external id tells them apart), never merged.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from tableref.referee.errors import CardError
from tableref.referee.reasons import Reason

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("C", "D", "H", "S")
RED_SUITS = frozenset("DH")

_RANK_IN = {r: i + 1 for i, r in enumerate(RANKS)}
_RANK_IN.update({"T": 10, "1": 1})
_SUIT_IN = {
    "C": "C", "D": "D", "H": "H", "S": "S",
    "♣": "C", "♦": "D", "♥": "H", "♠": "S",
    "♧": "C", "♢": "D", "♡": "H", "♤": "S",
}
_SYMBOLS = "".join(k for k in _SUIT_IN if not k.isascii())
#: a suit symbol followed by a presentation selector (U+FE0F emoji, U+FE0E text), as keyboards type them
_SYMBOL_SELECTOR = re.compile(f"([{_SYMBOLS}])[\ufe0f\ufe0e]")


@dataclass(frozen=True, order=True)
class Card:
    """A card value. ``rank`` is 1 (ace) .. 13 (king); ``suit`` one of C D H S."""

    rank: int
    suit: str

    def __post_init__(self):
        if not (isinstance(self.rank, int) and 1 <= self.rank <= 13):
            raise CardError(Reason("bad_rank", f"rank must be 1..13, got {self.rank!r}", value=repr(self.rank)))
        if self.suit not in SUITS:
            raise CardError(Reason("bad_suit", f"suit must be one of C D H S, got {self.suit!r}", value=repr(self.suit)))

    @property
    def rank_str(self) -> str:
        return RANKS[self.rank - 1]

    @property
    def color(self) -> str:
        """``"red"`` for hearts and diamonds, ``"black"`` for clubs and spades."""
        return "red" if self.suit in RED_SUITS else "black"

    @property
    def is_red(self) -> bool:
        return self.suit in RED_SUITS

    @property
    def high_rank(self) -> int:
        """Rank with the ace high (2..14), for comparisons where the ace is best."""
        return 14 if self.rank == 1 else self.rank

    def __str__(self) -> str:
        return f"{RANKS[self.rank - 1]}{self.suit}"

    def __repr__(self) -> str:
        return f"Card({self})"


def parse_card(text, field: str | None = None) -> Card:
    """Parse one card. Raises :class:`CardError` naming the card (and field)."""
    if isinstance(text, Card):
        return text
    if not isinstance(text, str):
        raise CardError(Reason("card_not_text", f"a card must be a string like '10H', got {text!r}", value=repr(text)),
                        field)
    s = _SYMBOL_SELECTOR.sub(r"\1", text.strip()).upper()
    if len(s) < 2:
        raise CardError(Reason("unknown_card", f"unknown card {text!r} (write rank then suit, e.g. '10H', 'AS', 'QD')",
                               card=repr(text)), field)
    if s[0] in _SYMBOLS and s[-1] not in _SYMBOLS:
        s = s[1:] + s[0]
    suit = _SUIT_IN.get(s[-1])
    rank = _RANK_IN.get(s[:-1])
    if suit is None or rank is None:
        raise CardError(Reason("unknown_card", f"unknown card {text!r} (write rank then suit, e.g. '10H', 'AS', 'QD')",
                               card=repr(text)), field)
    return Card(rank, suit)


def parse_cards(items, field: str | None = None) -> list[Card]:
    """Parse a list of cards; a string is split on commas/whitespace."""
    if isinstance(items, str):
        items = items.replace(",", " ").split()
    if not isinstance(items, (list, tuple)):
        raise CardError(Reason("cards_not_list", f"expected a list of cards, got {type(items).__name__}",
                               got=type(items).__name__), field)
    out = []
    for i, item in enumerate(items):
        out.append(parse_card(item, f"{field}[{i}]" if field else f"[{i}]"))
    return out


def format_cards(cards: Iterable[Card]) -> list[str]:
    return [str(c) for c in cards]


def full_pack() -> list[Card]:
    """One 52-card pack, clubs to spades, ace to king."""
    return [Card(r, s) for s in SUITS for r in range(1, 14)]


def packs(n: int) -> list[Card]:
    """``n`` packs shuffled together (Desmoche 1, Marriage 3)."""
    return full_pack() * n


def check_copies(cards: Iterable[Card], n_packs: int, field: str | None = None) -> None:
    """Refuse more copies of a card than ``n_packs`` packs hold."""
    counts = Counter(cards)
    for card, k in counts.items():
        if k > n_packs:
            raise CardError(
                Reason("card_copies_one_pack", f"impossible cards: {card} appears {k} times but 1 pack holds it "
                       "only once", card=str(card), count=k) if n_packs == 1 else
                Reason("card_copies", f"impossible cards: {card} appears {k} times but {n_packs} packs hold it only "
                       f"{n_packs} times", card=str(card), count=k, packs=n_packs),
                field,
            )
