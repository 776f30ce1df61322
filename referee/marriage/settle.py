"""Settlement at the end of a Marriage hand.

The player who ended the hand (the "winner") receives 3 from each opponent who
saw the joker and 10 from each who did not (plus ``dublee_bonus``, default 5,
from each when the winner went out with eight dublees), and every pair of players
settles the difference of their maal. Routed through the winner, opponent ``i``
pays the winner ``T + w_i - n*S_i`` (``T`` all players' maal, ``S_i`` their own,
``n`` players, ``w_i`` = 3 or 10 [+ bonus]); a negative amount is paid by the
winner. The winner's net is the sum of those amounts; all nets sum to zero.

Unseen players' maal follows ``unseen_maal``: ``zero`` (murder, default) scores
it 0, ``count`` counts it, ``kidnap`` scores it 0 and gives it to the winner.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from tableref.referee.errors import RefereeError
from tableref.referee.reasons import Reason
from tableref.referee.marriage.settings import MarriageRules, build_rules

SEEN_FEE = 3
UNSEEN_FEE = 10


@dataclass
class PlayerScore:
    """One player's result: ``maal`` counted from their cards, ``seen`` the joker."""

    name: str
    maal: int
    seen: bool = True


@dataclass
class PlayerSettlement:
    name: str
    seen: bool
    maal_counted: int     # the maal of the player's cards
    maal: int             # S_i used in the formula (after unseen_maal / kidnap)
    fee: int              # w_i (0 for the winner)
    pays_winner: int      # T + w_i - n*S_i (0 for the winner)
    net: int

    def to_json(self) -> dict:
        return {"name": self.name, "maal": self.maal, "pays_winner": self.pays_winner, "net": self.net,
                "seen": self.seen, "maal_counted": self.maal_counted, "fee": self.fee}


@dataclass
class MarriageSettlement:
    winner: str
    total_maal: int
    players: list[PlayerSettlement]
    dublee_win: bool

    @property
    def net(self) -> dict[str, int]:
        return {p.name: p.net for p in self.players}

    def to_json(self) -> dict:
        return {"net": self.net, "players": [p.to_json() for p in self.players], "winner": self.winner,
                "total_maal": self.total_maal, "dublee_win": self.dublee_win}


def settle(winner: str, players: Sequence[PlayerScore], dublee_win: bool = False,
           rules: MarriageRules | dict | None = None) -> MarriageSettlement:
    """Settle one hand. Raises :class:`RefereeError` (with ``field``) for bad input."""
    rules = build_rules(rules)
    players = list(players)
    n = len(players)
    if not 2 <= n <= 5:
        raise RefereeError(Reason("marriage_player_count", f"Marriage is for 2 to 5 players, got {n}", n=n), "players")
    names = [p.name for p in players]
    for i, p in enumerate(players):
        if not isinstance(p.name, str) or not p.name.strip():
            raise RefereeError(Reason("every_player_named", "every player needs a name"), f"players[{i}].name")
        if names.index(p.name) != i:
            raise RefereeError(Reason("player_name_twice", f"two players are called {p.name!r}: names must differ",
                                      name=repr(p.name)), f"players[{i}].name")
        if isinstance(p.maal, bool) or not isinstance(p.maal, int) or p.maal < 0:
            raise RefereeError(Reason("bad_maal", f"{p.name}'s maal must be a whole number of points, 0 or more",
                                      player=p.name), f"players[{i}].maal")
        if not isinstance(p.seen, bool):
            raise RefereeError(Reason("not_bool", "'seen' must be true or false", field="seen"), f"players[{i}].seen")
    if winner not in names:
        raise RefereeError(Reason("winner_not_player", f"the winner {winner!r} is not one of the players "
                                  f"({', '.join(names)})", name=repr(winner), players=", ".join(names)), "winner")
    w_index = names.index(winner)
    if not players[w_index].seen:
        raise RefereeError(Reason("winner_has_seen", f"{winner} ended the hand, so {winner} has seen the joker "
                                  "('seen' cannot be false)", player=winner), f"players[{w_index}].seen")
    if not isinstance(dublee_win, bool):
        raise RefereeError(Reason("not_bool", "'dublee_win' must be true or false", field="dublee_win"), "dublee_win")
    if dublee_win and n < rules.dublee_min_players:
        raise RefereeError(Reason("dublee_players", f"going out with dublees needs at least "
                                  f"{rules.dublee_min_players} players at this table (house rule dublee_min_players), "
                                  f"there are {n}", min=rules.dublee_min_players, n=n), "dublee_win")

    scores = []
    kidnapped = 0
    for p in players:
        if p.seen or rules.unseen_maal == "count":
            scores.append(p.maal)
        else:
            scores.append(0)
            if rules.unseen_maal == "kidnap":
                kidnapped += p.maal
    scores[w_index] += kidnapped
    total = sum(scores)
    out = []
    winner_net = 0
    for i, p in enumerate(players):
        if i == w_index:
            out.append(None)
            continue
        fee = (SEEN_FEE if p.seen else UNSEEN_FEE) + (rules.dublee_bonus if dublee_win else 0)
        pays = total + fee - n * scores[i]
        winner_net += pays
        out.append(PlayerSettlement(p.name, p.seen, p.maal, scores[i], fee, pays, -pays))
    out[w_index] = PlayerSettlement(winner, True, players[w_index].maal, scores[w_index], 0, 0, winner_net)
    return MarriageSettlement(winner, total, out, dublee_win)
