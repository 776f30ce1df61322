"""Checking melds a player lays on the table (for the live table).

:func:`check_melds` takes the groups of cards a player has laid down -- the three
pure combinations shown to see the joker, seven dublees, or a whole finishing
hand -- and says, meld by meld, what each is and why a wrong one is wrong.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from tableref.referee.cards import Card, check_copies, parse_card, parse_cards
from tableref.referee.marriage import combos
from tableref.referee.marriage.wild import Wild
from tableref.referee.reasons import Reason, reason_json


@dataclass
class MarriageMeldVerdict:
    cards: list[Card]
    kind: str | None          # a combination kind, "dublee", or None
    pure: bool                # counts toward seeing the joker
    reason: str | None        # why it is not a combination (None when it is one)

    @property
    def valid(self) -> bool:
        return self.kind is not None

    def to_json(self) -> dict:
        out = {"cards": [str(c) for c in self.cards], "kind": self.kind, "valid": self.valid,
                "pure": self.pure, "reason": self.reason}
        if reason_json(self.reason):  # key and parameters, for translations
            out["reason_key"] = reason_json(self.reason)
        return out


@dataclass
class MeldsCheck:
    melds: list[MarriageMeldVerdict] = field(default_factory=list)
    sees_joker: bool = False      # three pure combinations, or seven dublees
    goes_out: bool = False        # seven combinations (three pure), or eight dublees

    def to_json(self) -> dict:
        return {"melds": [m.to_json() for m in self.melds], "sees_joker": self.sees_joker,
                "goes_out": self.goes_out}


def _reason(cards: list[Card], wild: Wild | None) -> str:
    if len(cards) != 3:
        return Reason("combination_size", f"a combination has three cards (a dublee two identical cards), "
                      f"this has {len(cards)}", n=len(cards))
    jokers = [c for c in cards if wild and wild.is_joker(c)]
    naturals = [c for c in cards if not (wild and wild.is_joker(c))]
    if len(jokers) == 1 and naturals[0] == naturals[1]:
        return Reason("joker_no_tunnela", "two identical cards and a joker are no combination "
                      "(a joker cannot make a tunnela)")
    if len({c.suit for c in cards}) == 1 and sorted(c.rank for c in cards) == [1, 2, 13]:
        return Reason("k_a_2", "K-A-2 is not a sequence: the ace goes at either end, never in the middle")
    ranks = {c.rank for c in naturals}
    if len(ranks) == 1 and len(naturals) == 3:
        return Reason("triplet_suits", "a triplet needs three different suits")
    if jokers:
        return Reason("joker_no_combination", "the other two cards are neither two cards of one sequence nor one "
                      "rank in two suits")
    return Reason("not_a_combination", "not three consecutive cards of one suit, three of a rank in different "
                  "suits, or three identical cards")


def check_melds(melds: Sequence[Sequence], tiplu=None) -> MeldsCheck:
    """Classify each laid-down meld; ``tiplu`` None means the joker is not known
    (nothing is wild, as when showing the three pure combinations)."""
    wild = Wild(parse_card(tiplu, "tiplu")) if tiplu is not None else None
    out = MeldsCheck()
    all_cards = []
    for i, m in enumerate(melds):
        cards = parse_cards(m, f"melds[{i}]")
        all_cards += cards
        if len(cards) == 2 and cards[0] == cards[1]:
            out.melds.append(MarriageMeldVerdict(cards, combos.DUBLEE, False, None))
            continue
        kind = combos.classify(cards, wild)
        pure = combos.natural_kind(cards) in (combos.TUNNELA, combos.PURE_SEQUENCE)
        out.melds.append(MarriageMeldVerdict(cards, kind, pure and kind is not None,
                                     None if kind else _reason(cards, wild)))
    check_copies(all_cards, 3, "melds")
    trios = [m for m in out.melds if m.valid and m.kind != combos.DUBLEE]
    dublees = {m.cards[0] for m in out.melds if m.kind == combos.DUBLEE}
    n_pure = sum(m.pure for m in trios)
    out.sees_joker = n_pure >= 3 or len(dublees) >= 7
    out.goes_out = (len(trios) >= 7 and n_pure >= 3 and wild is not None) or len(dublees) >= 8
    return out
