"""Settlement of one hand of Desmoche: stakes, pot carry-over, bonuses, side games.

Money flow (amounts in points: ints, or Decimals for exact fractions such as a
stake of 0.1; floats are taken as given):

* Every player antes ``stake`` into the pot before the deal (disqualified
  players too: their ante stays in the pot).
* **Winner**: takes the whole pot (the carried-over pot plus this hand's antes)
  and every bonus (:mod:`referee.desmoche.bonuses`), one stake per losing player
  each.
* **No winner** (the stock ran out): the pot is carried over to the next hand
  (doble, triple, ...): ``pot.carried_out`` is what the next hand starts with.
* **Side games**: each its own pot; each entrant puts in the side stake and the
  winner (best dealt hand) takes it. If no entrant qualifies the side stakes
  are returned.

``net`` holds each player's gain (+) or loss (-) this hand. The pot is the only
other party: ``sum(net) + pot.carried_out - pot.carried_in == 0`` always, so
with nothing carried in or out the nets sum to zero.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Sequence

from tableref.referee.cards import Card, format_cards
from tableref.referee.errors import RefereeError

from tableref.referee.desmoche.bonuses import Bonus, bonuses
from tableref.referee.desmoche.melds import check_table
from tableref.referee.desmoche.seats import play_order
from tableref.referee.desmoche.settings import DesmocheSettings
from tableref.referee.desmoche.side_games import canonical_game, side_game_key, side_game_winner


@dataclass
class SideGame:
    game: str
    players: list[str]
    stake: int | float | Decimal
    winner: str | None = None          # given by the table, or found from the dealt hands
    cards: list[Card] = field(default_factory=list)


@dataclass
class Settlement:
    winner: str | None
    autowin: str | None
    stake: int | float | Decimal
    pot_carried_in: int | float | Decimal
    antes: int | float | Decimal
    pot_to_winner: int | float | Decimal
    pot_carried_out: int | float | Decimal
    bonuses: list[Bonus]
    side_games: list[dict]
    net: dict[str, int | float | Decimal]
    players: list[dict]
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "winner": self.winner,
            "autowin": self.autowin,
            "stake": self.stake,
            "pot": {"carried_in": self.pot_carried_in, "antes": self.antes,
                    "to_winner": self.pot_to_winner, "carried_out": self.pot_carried_out},
            "bonuses": [b.to_json() for b in self.bonuses],
            "side_games": self.side_games,
            "net": dict(self.net),
            "players": self.players,
            "notes": list(self.notes),
        }


def _num(x, field_name):
    if isinstance(x, bool) or not isinstance(x, (int, float, Decimal)) or x < 0:
        raise RefereeError(f"{field_name} must be a number of points, 0 or more, got {x!r}", field_name)
    return x


def settle_hand(seats: Sequence[str], *, winner: str | None, stake=1, pot_carried=0,
                melds: dict[str, Sequence[Sequence[Card]]] | None = None,
                autowin: str | None = None, side_games: Sequence[SideGame] = (),
                dealt: dict[str, Sequence[Card]] | None = None, dealer: str | None = None,
                disqualified: Sequence[str] = (), settings: DesmocheSettings | None = None) -> Settlement:
    """Settle one hand. ``seats`` clockwise (see :mod:`referee.desmoche.seats`).

    ``melds``: each player's table at the end (lists of cards); the winner's table
    must be a win (10 cards in valid melds) unless ``autowin`` names an automatic
    win (or ``"last_player"``: everyone else was disqualified; no bonuses then). Raises :class:`RefereeError` (with ``field``) for inconsistent input.
    """
    settings = settings or DesmocheSettings()
    seats = list(seats)
    melds = {p: [list(m) for m in ms] for p, ms in (melds or {}).items()}
    stake = _num(stake, "stake")
    pot_carried = _num(pot_carried, "pot_carried")
    notes = []
    if winner is not None and winner not in seats:
        raise RefereeError(f"the winner {winner!r} is not one of the players", "winner")
    if winner is not None and winner in disqualified:
        raise RefereeError(f"{winner} was disqualified and cannot win", "winner")
    if autowin is not None:
        if autowin not in ("peladilla", "cuatro_cuerpos", "color", "last_player"):
            raise RefereeError(f"unknown automatic win {autowin!r} (peladilla, cuatro_cuerpos, color)", "autowin")
        if winner is None:
            raise RefereeError("an automatic win needs a winner", "winner")
    elif winner is not None:
        verdict = check_table(melds.get(winner, []), settings)
        if not verdict.complete:
            why = "; ".join(verdict.problems) or f"{verdict.cards} cards in valid melds, 10 needed"
            raise RefereeError(f"{winner}'s table is not a win: {why}", "winner")
    n = len(seats)
    antes = stake * n
    pot = pot_carried + antes
    net = {p: -stake for p in seats}
    bonus_list: list[Bonus] = []
    if winner is None:
        carried_out, to_winner = pot, 0
        notes.append(f"no winner: the pot of {pot} is carried over to the next hand")
    else:
        carried_out, to_winner = 0, pot
        net[winner] += pot
        losers = [p for p in seats if p != winner and p not in disqualified]
        counts = {p: sum(len(m) for m in melds.get(p, [])) for p in seats}
        bonus_list = bonuses(winner, losers, stake, settings, melds.get(winner, []), counts, autowin)
        for b in bonus_list:
            net[b.payer] -= b.amount
            net[winner] += b.amount
    order = play_order(seats, dealer, settings)
    side_out = []
    for i, sg in enumerate(side_games):
        fname = f"side_games[{i}]"
        game = canonical_game(sg.game)
        if game is None:
            raise RefereeError(f"unknown side game {sg.game!r}", f"{fname}.game")
        entrants = list(sg.players)
        for p in entrants:
            if p not in seats:
                raise RefereeError(f"{p!r} in side game {game} is not one of the players", f"{fname}.players")
        sstake = _num(sg.stake, f"{fname}.stake")
        sw, scards = sg.winner, list(sg.cards)
        if sw is None:
            missing = [p for p in entrants if p not in (dealt or {})]
            if missing:
                raise RefereeError(f"side game {game}: give the winner or the dealt cards of {', '.join(missing)}",
                                   f"{fname}.winner")
            sw, scards = side_game_winner(game, {p: dealt[p] for p in entrants}, order, settings)
        elif sw not in entrants:
            raise RefereeError(f"side game {game}: the winner {sw!r} did not enter it", f"{fname}.winner")
        elif not scards and dealt and sw in dealt:
            key = side_game_key(game, dealt[sw], settings)
            scards = list(key[1]) if key else []
        pot_sg = sstake * len(entrants)
        if sw is not None:
            for p in entrants:
                net[p] -= sstake
            net[sw] += pot_sg
        side_out.append({"game": game, "players": entrants, "stake": sstake, "pot": pot_sg,
                         "winner": sw, "cards": format_cards(scards),
                         "note": None if sw else "nobody qualifies: stakes returned"})
    players = []
    for p in seats:
        players.append({
            "name": p,
            "ante": stake,
            "table_cards": sum(len(m) for m in melds.get(p, [])),
            "bonuses_paid": sum(b.amount for b in bonus_list if b.payer == p),
            "bonuses_received": sum(b.amount for b in bonus_list) if p == winner else 0,
            "disqualified": p in disqualified,
            "net": net[p],
        })
    return Settlement(winner, autowin, stake, pot_carried, antes, to_winner, carried_out,
                      bonus_list, side_out, net, players, notes)
