"""Automatic wins (declared before the first draw, valid before or after the Cambio).

* **Peladilla**: no two cards of one rank and no two cards of one suit in
  adjacent ranks under the run rules (``A-2`` of a suit is adjacent, ``K-A`` is not).
* **Cuatro cuerpos**: four cards of one rank.
* **Color** (switch ``color_autowin``): all nine cards of one colour
  (``same_colour``, default) or of one suit (``same_suit``); ``off`` disables it.

Ties between players: two Peladillas compare their cards from the highest down
(ace high); two Cuatro cuerpos compare the rank of the four (ace high). A player
whose dealt hand and hand after the Cambio both qualify is judged on the better of
the two (:func:`best_autowin`). Anything still tied -- including two different kinds of automatic win, or two Colors --
goes to the player nearest the dealer in the direction of play.
"""
from __future__ import annotations

from collections import Counter
from typing import Sequence

from tableref.referee.cards import Card

from tableref.referee.desmoche.settings import DesmocheSettings

KINDS = ("peladilla", "cuatro_cuerpos", "color")


def is_peladilla(hand: Sequence[Card]) -> bool:
    ranks = Counter(c.rank for c in hand)
    if any(k > 1 for k in ranks.values()):
        return False
    present = {(c.suit, c.rank) for c in hand}
    return not any((c.suit, c.rank + 1) in present for c in hand)


def cuatro_cuerpos_rank(hand: Sequence[Card]) -> int | None:
    """The best rank (ace high, 2..14) held four times, or None."""
    ranks = Counter(c.rank for c in hand)
    fours = [14 if r == 1 else r for r, k in ranks.items() if k >= 4]
    return max(fours) if fours else None


def is_color(hand: Sequence[Card], settings: DesmocheSettings | None = None) -> bool:
    settings = settings or DesmocheSettings()
    if not hand or settings.color_autowin == "off":
        return False
    if settings.color_autowin == "same_suit":
        return len({c.suit for c in hand}) == 1
    return len({c.is_red for c in hand}) == 1


def autowins(hand: Sequence[Card], settings: DesmocheSettings | None = None) -> list[str]:
    """Every automatic win this hand shows, in the order peladilla, cuatro_cuerpos, color."""
    settings = settings or DesmocheSettings()
    if not settings.automatic_wins:
        return []
    out = []
    if is_peladilla(hand):
        out.append("peladilla")
    if cuatro_cuerpos_rank(hand) is not None:
        out.append("cuatro_cuerpos")
    if is_color(hand, settings):
        out.append("color")
    return out


def autowin(hand: Sequence[Card], settings: DesmocheSettings | None = None) -> str | None:
    found = autowins(hand, settings)
    return found[0] if found else None


def explain(kind: str | None, hand: Sequence[Card], settings: DesmocheSettings | None = None) -> str:
    settings = settings or DesmocheSettings()
    if kind == "peladilla":
        return "Peladilla: no two cards of one rank and no two neighbouring cards of one suit"
    if kind == "cuatro_cuerpos":
        r = cuatro_cuerpos_rank(hand)
        name = "A" if r == 14 else Card(r, "S").rank_str
        return f"Cuatro cuerpos: four {name}s"
    if kind == "color":
        if settings.color_autowin == "same_suit":
            return "Color: all nine cards of one suit"
        return "Color: all nine cards of one colour"
    if not settings.automatic_wins:
        return "automatic wins are off at this table"
    return "no automatic win"


def tiebreak_key(kind: str, hand: Sequence[Card]) -> tuple:
    """Larger is better, only comparable between hands of the same kind."""
    if kind == "peladilla":
        return tuple(sorted((c.high_rank for c in hand), reverse=True))
    if kind == "cuatro_cuerpos":
        return (cuatro_cuerpos_rank(hand) or 0,)
    return ()


def best_autowin(hand: Sequence[Card], settings=None, before_cambio: Sequence[Card] | None = None):
    """(kind, cards it is judged on) for a hand, looking at both sides of the Cambio.

    ``hand`` is the hand after the Cambio, ``before_cambio`` the dealt one. When both
    qualify with the same kind, the better of the two for the tie-break is the one
    judged (a dealt Peladilla headed by the ace beats the king-high Peladilla the
    Cambio left); equal, or of different kinds, the hand after the Cambio. Returns
    (None, hand) if neither qualifies.
    """
    kind = autowin(hand, settings)
    if before_cambio is not None:
        dealt_kind = autowin(before_cambio, settings)
        if dealt_kind is not None and (kind is None or (
                dealt_kind == kind and tiebreak_key(kind, before_cambio) > tiebreak_key(kind, hand))):
            return dealt_kind, list(before_cambio)
    return kind, list(hand)


def shows(kind: str, hand: Sequence[Card], settings: DesmocheSettings | None = None) -> bool:
    """Whether the hand shows the automatic win ``kind`` (a hand may show several)."""
    return kind in autowins(hand, settings)


def cambio_could_show(kind: str, dealt: Sequence[Card], incoming: Sequence[Card],
                      settings: DesmocheSettings | None = None) -> bool:
    """Whether the hand after the Cambio could show ``kind``: one dealt card passed on and one
    of ``incoming`` (the cards the previous player could have passed) received."""
    held = set(dealt)
    received = [c for c in dict.fromkeys(incoming) if c not in held]
    for passed in dealt:
        rest = [c for c in dealt if c != passed]
        if any(shows(kind, rest + [c], settings) for c in received):
            return True
    return False


def resolve(claims: dict[str, tuple[str, Sequence[Card]]], order: Sequence[str]) -> str | None:
    """Pick the winner among several automatic wins.

    ``claims`` maps player -> (kind, hand). ``order`` is the players in play order
    starting with the player nearest the dealer in the direction of play (the
    first to play). Same-kind claims use :func:`tiebreak_key`; otherwise, and if
    still tied, the earliest player in ``order`` wins.
    """
    if not claims:
        return None
    contenders = [p for p in order if p in claims]
    kinds = {claims[p][0] for p in contenders}
    if len(kinds) == 1:
        best = max(tiebreak_key(claims[p][0], claims[p][1]) for p in contenders)
        contenders = [p for p in contenders if tiebreak_key(claims[p][0], claims[p][1]) == best]
    return contenders[0]
