"""Side games: separate pots decided on the nine DEALT cards (not the Cambio card).

Ace is high and 2 low in every side game. Each game compares a key per player
(larger wins); a player without the thing (no diamond, no red pair...) does not
qualify.

=================  ==========================================================
game               best hand
=================  ==========================================================
``oro``            highest diamond
``corazon``        highest heart
``flor``           highest club
``corazon_negro``  highest spade
``par_rojo``       highest pair of the two red cards of one rank (xH + xD)
``par_negro``      highest pair of the two black cards of one rank (xC + xS)
``dos_par_rojo``   best two red pairs (higher pair first, then the lower)
``dos_par_negro``  best two black pairs
``tres_cuerpos``   highest three (or four) of a kind
``escalera``       highest run of 3+ of one suit, by its top card, then length;
                   runs follow the meld rule (ace low, no Q-K-A). With
                   ``escalera_a23_high`` a run from the ace (A-2-3...) beats all
                   others.
=================  ==========================================================

Ties (possible only in escalera between suits) go to the player nearest the
dealer in the direction of play.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Sequence

from tableref.referee.cards import Card

from tableref.referee.desmoche.settings import DesmocheSettings

GAMES = ("oro", "corazon", "flor", "corazon_negro", "par_rojo", "par_negro",
         "dos_par_rojo", "dos_par_negro", "tres_cuerpos", "escalera")
_SUIT_GAME = {"oro": "D", "corazon": "H", "flor": "C", "corazon_negro": "S"}
ALIASES = {"rombo": "oro", "corazón": "corazon", "corazón_negro": "corazon_negro",
           "corazon negro": "corazon_negro", "corazón negro": "corazon_negro",
           "par rojo": "par_rojo", "par negro": "par_negro", "dos par rojo": "dos_par_rojo",
           "dos par negro": "dos_par_negro", "tres cuerpos": "tres_cuerpos"}


def canonical_game(name: str) -> str | None:
    if not isinstance(name, str):
        return None
    n = name.strip().lower()
    n = ALIASES.get(n, n).replace(" ", "_").replace("ó", "o")
    return n if n in GAMES else None


def _pairs(hand, red: bool) -> list[tuple[int, list[Card]]]:
    by_rank = defaultdict(list)
    for c in hand:
        if c.is_red == red:
            by_rank[c.high_rank].append(c)
    return sorted(((r, _canon(cs)) for r, cs in by_rank.items() if len(cs) >= 2), reverse=True)


def _canon(cards):
    return sorted(cards, key=lambda c: (c.high_rank, c.suit))


def _runs(hand, a23_high: bool) -> list[tuple[tuple, list[Card]]]:
    out = []
    by_suit = defaultdict(set)
    for c in hand:
        by_suit[c.suit].add(c.rank)
    for suit, ranks in by_suit.items():
        r = 1
        while r <= 13:
            if r in ranks:
                start = r
                while r + 1 in ranks:
                    r += 1
                if r - start + 1 >= 3:
                    cards = [Card(x, suit) for x in range(start, r + 1)]
                    from_ace = 1 if (a23_high and start == 1) else 0
                    out.append(((from_ace, r, r - start + 1), cards))
            r += 1
    # equal runs in two suits: pick one the same way whatever the card order
    return sorted(out, key=lambda t: (t[0], t[1][0].suit), reverse=True)


def side_game_key(game: str, hand: Sequence[Card], settings: DesmocheSettings | None = None):
    """(key, cards) of the player's best hand for ``game``, or None if they do not qualify."""
    settings = settings or DesmocheSettings()
    if game in _SUIT_GAME:
        suited = [c for c in hand if c.suit == _SUIT_GAME[game]]
        if not suited:
            return None
        best = max(suited, key=lambda c: c.high_rank)
        return (best.high_rank,), [best]
    if game in ("par_rojo", "par_negro"):
        pairs = _pairs(hand, game == "par_rojo")
        return ((pairs[0][0],), pairs[0][1]) if pairs else None
    if game in ("dos_par_rojo", "dos_par_negro"):
        pairs = _pairs(hand, game == "dos_par_rojo")
        if len(pairs) < 2:
            return None
        return (pairs[0][0], pairs[1][0]), pairs[0][1] + pairs[1][1]
    if game == "tres_cuerpos":
        by_rank = defaultdict(list)
        for c in hand:
            by_rank[c.high_rank].append(c)
        threes = sorted(((r, _canon(cs)) for r, cs in by_rank.items() if len(cs) >= 3), reverse=True)
        return ((threes[0][0],), threes[0][1]) if threes else None
    if game == "escalera":
        runs = _runs(hand, settings.escalera_a23_high)
        return (runs[0][0], runs[0][1]) if runs else None
    raise ValueError(f"unknown side game {game!r}")


def side_games_of(hand: Sequence[Card], settings: DesmocheSettings | None = None) -> dict:
    """What a dealt hand holds for every side game: game -> cards (or None)."""
    out = {}
    for g in GAMES:
        k = side_game_key(g, hand, settings)
        out[g] = [str(c) for c in k[1]] if k else None
    return out


def side_game_winner(game: str, dealt: dict[str, Sequence[Card]], order: Sequence[str],
                     settings: DesmocheSettings | None = None):
    """(winner, cards) among the entrants in ``dealt``; (None, []) if nobody qualifies.

    ``order`` is the play order starting nearest the dealer (for ties).
    """
    best = None
    for p in order:
        if p not in dealt:
            continue
        k = side_game_key(game, dealt[p], settings)
        if k and (best is None or k[0] > best[1]):
            best = (p, k[0], k[1])
    return (best[0], list(best[2])) if best else (None, [])
