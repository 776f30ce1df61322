"""Maal: the points a player's final cards score (RULES.md table).

|                | single | double | triple | exposed tunnela |
|----------------|--------|--------|--------|-----------------|
| ordinary card  |   -    |   -    |   -    | 5               |
| ordinary joker |   -    |   -    |   -    | 10              |
| poplu / jhiplu |   2    |   5    |   10   | 20 (`maal_tunnela`) |
| tiplu          |   3    | 7 (`tiplu_double`) | - | -           |
| marriage       |   10   |   30   |   -    | -               |

"Double"/"triple" are two/three identical cards. Each card counts toward one item
only, and the arrangement that scores most is counted (a marriage is worth 10,
more than its cards' 2 + 3 + 2). Tunnelas score only if exposed right after the
deal and only for a player who has seen the joker. With the ``alter`` switch each
alter card (tiplu rank, other suit of the tiplu's colour) scores 5.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import product
from typing import Sequence

from tableref.referee.cards import Card, parse_card, parse_cards
from tableref.referee.marriage.settings import MarriageRules, build_rules
from tableref.referee.marriage.wild import Wild

POPLU_JHIPLU = {0: 0, 1: 2, 2: 5, 3: 10}
MARRIAGE_POINTS = {0: 0, 1: 10, 2: 30}
ALTER_POINTS = 5
ORDINARY_TUNNELA = 5
ORDINARY_JOKER_TUNNELA = 10


def _tiplu_points(k: int, rules: MarriageRules) -> int:
    return {0: 0, 1: 3, 2: rules.tiplu_double}[k]


@dataclass
class MaalItem:
    item: str            # marriage | tunnela | tiplu | poplu | jhiplu | alter
    cards: list[Card]
    points: int
    detail: str = ""     # e.g. "double", "exposed tunnela of ordinary jokers"

    def to_json(self) -> dict:
        out = {"item": self.item, "cards": [str(c) for c in self.cards], "points": self.points}
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass
class Maal:
    points: int
    items: list[MaalItem] = field(default_factory=list)

    def to_json(self) -> list[dict]:
        return [i.to_json() for i in self.items]


_COUNT_WORD = {1: "single", 2: "double", 3: "triple"}


def tunnela_value(card: Card, wild: Wild, rules: MarriageRules) -> tuple[int, str]:
    """Points of an exposed tunnela of ``card`` (for a player who saw the joker)."""
    kind = wild.kind(card)
    if kind in ("poplu", "jhiplu"):
        return rules.maal_tunnela, f"exposed tunnela of {kind}s"
    if kind == "ordinary_joker":
        return ORDINARY_JOKER_TUNNELA, "exposed tunnela of ordinary jokers"
    if kind == "tiplu":  # impossible in play: one tiplu lies under the stock
        return 0, "exposed tunnela of tiplus"
    return ORDINARY_TUNNELA, "exposed tunnela"


def count_maal(tiplu: Card, hand: Sequence[Card], exposed_tunnelas: Sequence[Sequence[Card]] = (),
               seen: bool = True, rules: MarriageRules | dict | None = None) -> Maal:
    """The highest-scoring maal of ``hand`` plus ``exposed_tunnelas``, itemised.

    ``hand`` excludes the cards of the exposed tunnelas. ``seen=False`` drops the
    tunnela points (the cards still count as cards); whether an unseen player's
    maal is paid at all is the settlement's business (``unseen_maal``).
    """
    rules = build_rules(rules)
    tiplu = parse_card(tiplu, "tiplu")
    wild = Wild(tiplu)
    tunnelas = [parse_cards(t, "exposed_tunnelas") for t in exposed_tunnelas]
    base = Counter(parse_cards(list(hand), "cards"))
    # an exposed tunnela may be scored as a tunnela or broken into its cards
    options_per_tunnela = []
    for t in tunnelas:
        value, detail = tunnela_value(t[0], wild, rules)
        opts = [("break", 0, "")]
        if seen and value > 0:
            opts.insert(0, ("keep", value, detail))
        options_per_tunnela.append(opts)
    best: tuple | None = None
    for choice in product(*options_per_tunnela) if tunnelas else [()]:
        counts = Counter(base)
        kept = []
        score = 0
        for t, (what, value, detail) in zip(tunnelas, choice):
            if what == "keep":
                kept.append(MaalItem("tunnela", list(t), value, detail))
                score += value
            else:
                counts.update(t)
        p, j, tp = counts[wild.poplu], counts[wild.jhiplu], counts[wild.tiplu]
        a = counts[wild.alter] if rules.alter else 0
        for m in range(min(p, j, tp, 2), -1, -1):
            total = (score + MARRIAGE_POINTS[m] + POPLU_JHIPLU[min(p - m, 3)] + POPLU_JHIPLU[min(j - m, 3)]
                     + _tiplu_points(min(tp - m, 2), rules) + ALTER_POINTS * a)
            if best is None or total > best[0]:
                best = (total, kept, m, p - m, j - m, tp - m, a)
    total, kept, m, p, j, tp, a = best
    items: list[MaalItem] = []
    if m:
        items.append(MaalItem("marriage", [wild.jhiplu, wild.tiplu, wild.poplu] * m, MARRIAGE_POINTS[m],
                              _COUNT_WORD[m]))
    items += kept
    if tp:
        items.append(MaalItem("tiplu", [wild.tiplu] * tp, _tiplu_points(min(tp, 2), rules), _COUNT_WORD[tp]))
    if p:
        items.append(MaalItem("poplu", [wild.poplu] * p, POPLU_JHIPLU[min(p, 3)], _COUNT_WORD[min(p, 3)]))
    if j:
        items.append(MaalItem("jhiplu", [wild.jhiplu] * j, POPLU_JHIPLU[min(j, 3)], _COUNT_WORD[min(j, 3)]))
    for _ in range(a):
        items.append(MaalItem("alter", [wild.alter], ALTER_POINTS, "single"))
    return Maal(total, items)
