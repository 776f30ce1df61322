"""The table referee for the live camera session: snapshots in, verdicts out.

It is also the table of a whole hand: :class:`referee.desmoche.hand.DesmocheHand`
(the hand the bots play) extends it with the hands, the stock and the turns.

Pure (no I/O, no clock). The session feeds it, after each stable view of the
table, what lies face up in front of each player::

    from tableref.referee.desmoche.table import TableReferee

    ref = TableReferee(["ana", "ben", "cruz"],        # seats CLOCKWISE as seen from above
                       rules={"strict_order": "warn"},  # dict or DesmocheSettings; RULES.md defaults
                       dealer="cruz", stake=1, pot_carried=0)
    v = ref.observe({"ana": [["8S", "9S", "10S"]],   # player -> melds, each in laying order
                     "ben": [],                        # (a missing player = nothing on the table)
                     })
    v.accepted          # False only if the snapshot is impossible (a card seen twice); state unchanged
    v.players["ana"]    # PlayerView: melds (MeldVerdict: cards/kind/valid/in_order/reason),
                        #   cards (table-card count), valid, complete, problems, passed,
                        #   disqualified (reason or None), disqualify_reason (suggested, see below)
    v.changes           # every Change since the previous accepted snapshot (legal and illegal)
    v.illegal           # only the illegal ones: card_removed, card_moved_to_other_player,
                        #   desmoche_leaves_invalid, moved_into_existing_meld, meld_broken,
                        #   too_many_cards
    v.winner            # the first player seen with 10 cards in valid melds (then fixed)
    v.problems          # snapshot-level problems (duplicate card...)
    v.to_json()         # everything as JSON-ready dicts

    ref.can_pass("ben")               # (True, reason) if no card off the table could go on ben's melds
    ref.pass_player("ben")            # ben passes: his melds may now be turned face down
    ref.disqualify("ben", "reason")   # the table confirms a disqualification: his cards may leave
    ref.declare_autowin("cruz", "peladilla")   # an automatic win confirmed by the table
    s = ref.settle(side_games=[SideGame("oro", ["ana", "ben"], 1)], dealt={...})
    s.to_json()         # settle.Settlement: pot, itemised bonuses, side games, net per player

Attributes (read only): ``players``, ``settings``, ``dealer``, ``table`` (the last
accepted snapshot, player -> list of card tuples), ``winner``, ``autowin``,
``winning_table``, ``passed`` (set), ``disqualified`` (player -> reason),
``history`` (every :class:`SnapshotVerdict`).

Semantics:

* Each accepted snapshot becomes the reference for the next, so every illegal
  change is reported once. Feed *stable* views: a card that flickers out of
  detection reads as ``card_removed``.
* Cards may be ``Card`` objects or strings (``"10H"``); an unparseable card or an
  unknown player raises :class:`referee.errors.RefereeError` (``CardError``).
* Meld verdicts follow :func:`referee.desmoche.melds.check_meld` (the switch
  ``strict_order``). Under ``strict_order=disqualify`` a player with a meld out
  of order gets ``disqualify_reason`` set; disqualification itself is the
  table's decision (:meth:`TableReferee.disqualify`).
* A melds list with fewer than 3 cards (a meld being laid) is simply an invalid
  meld in the verdict, not an illegal change.
* ``winner``: a player whose table is exactly 10 cards, all in valid melds. The
  table at that moment is kept for the settlement (Mico, Color and Arriba del
  Palo are judged on it).
* Merging two melds (``5H 6H 7H`` + ``8H 9H 10H`` seen as one meld) is reported as
  ``moved_into_existing_meld``: if the camera groups cards into melds by distance,
  keep neighbouring melds apart before calling :meth:`TableReferee.observe`.
* :meth:`TableReferee.settle` raises :class:`referee.errors.RefereeError` when the
  winner's table is not a win (override ``winner=`` with a player who has one, or
  ``None`` for a hand that ended with the stock).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from tableref.referee.cards import Card, parse_card
from tableref.referee.errors import RefereeError
from tableref.referee.reasons import Reason

from tableref.referee.desmoche.melds import (
    MeldVerdict,
    WIN_CARDS,
    check_meld,
    extension_cards,
    meld_kind,
)
from tableref.referee.desmoche.moves import Change, diff_tables
from tableref.referee.desmoche.seats import check_seats
from tableref.referee.desmoche.settings import DesmocheSettings, desmoche_settings
from tableref.referee.desmoche.settle import Settlement, SideGame, settle_hand


@dataclass
class PlayerView:
    name: str
    melds: list[MeldVerdict]
    cards: int
    valid: bool
    complete: bool
    problems: list[str] = field(default_factory=list)
    passed: bool = False
    disqualified: str | None = None
    disqualify_reason: str | None = None

    def to_json(self) -> dict:
        return {"name": self.name, "melds": [m.to_json() for m in self.melds], "cards": self.cards,
                "valid": self.valid, "complete": self.complete, "problems": list(self.problems),
                "passed": self.passed, "disqualified": self.disqualified,
                "disqualify_reason": self.disqualify_reason}


@dataclass
class SnapshotVerdict:
    accepted: bool
    players: dict[str, PlayerView]
    changes: list[Change]
    winner: str | None
    problems: list[str] = field(default_factory=list)

    @property
    def illegal(self) -> list[Change]:
        return [c for c in self.changes if not c.legal]

    def to_json(self) -> dict:
        return {"accepted": self.accepted, "winner": self.winner,
                "players": {p: v.to_json() for p, v in self.players.items()},
                "changes": [c.to_json() for c in self.changes],
                "illegal": [c.to_json() for c in self.illegal],
                "problems": list(self.problems)}


class TableReferee:
    """Judges successive snapshots of one hand of Desmoche (see the module docstring)."""

    def __init__(self, players: Sequence[str], rules=None, dealer: str | None = None,
                 stake=1, pot_carried=0):
        self.players = check_seats(list(players))
        self.settings: DesmocheSettings = rules if isinstance(rules, DesmocheSettings) else desmoche_settings(rules)
        if dealer is not None and dealer not in self.players:
            raise RefereeError(f"the dealer {dealer!r} is not one of the players", "dealer")
        self.dealer = dealer
        self.stake = stake
        self.pot_carried = pot_carried
        self.table: dict[str, list[tuple[Card, ...]]] = {p: [] for p in self.players}
        self.winner: str | None = None
        self.winning_table: dict[str, list[tuple[Card, ...]]] | None = None
        self.autowin: str | None = None
        self.passed: set[str] = set()
        self.disqualified: dict[str, str] = {}
        self.history: list[SnapshotVerdict] = []

    # -- input -------------------------------------------------------------
    def _parse(self, snapshot: Mapping) -> dict[str, list[tuple[Card, ...]]]:
        if not isinstance(snapshot, Mapping):
            raise RefereeError("a snapshot maps each player to a list of melds", "snapshot")
        out = {p: [] for p in self.players}
        for p, melds in snapshot.items():
            if p not in self.players:
                raise RefereeError(f"unknown player {p!r} in the snapshot", f"snapshot.{p}")
            if not isinstance(melds, (list, tuple)):
                raise RefereeError(f"{p}'s melds must be a list of card lists", f"snapshot.{p}")
            for i, m in enumerate(melds):
                if not isinstance(m, (list, tuple)):
                    raise RefereeError(f"{p}'s meld {i + 1} must be a list of cards", f"snapshot.{p}[{i}]")
                out[p].append(tuple(parse_card(c, f"snapshot.{p}[{i}][{k}]") for k, c in enumerate(m)))
            out[p] = [m for m in out[p] if m]
        return out

    def observe(self, snapshot: Mapping) -> SnapshotVerdict:
        """Judge a new view of the table; see the module docstring."""
        new = self._parse(snapshot)
        seen: dict[Card, str] = {}
        problems = []
        for p, melds in new.items():
            for m in melds:
                for c in m:
                    if c in seen:
                        problems.append(f"{c} seen twice ({seen[c]} and {p}): one pack holds each card once")
                    seen[c] = p
        views = {p: self._view(p, new[p]) for p in self.players}
        if problems:
            v = SnapshotVerdict(False, views, [], self.winner, problems)
            self.history.append(v)
            return v
        changes = diff_tables(self.table, new, may_clear=set(self.passed) | set(self.disqualified))
        for p in self.players:
            n = views[p].cards
            if n > WIN_CARDS:
                changes.append(Change(p, "too_many_cards", tuple(c for m in new[p] for c in m), False,
                                      Reason("too_many_cards", f"{p} has {n} cards on the table: nobody holds "
                                             f"more than {WIN_CARDS}", player=p, n=n, max=WIN_CARDS)))
        if self.winner is None and self.autowin is None:
            done = [p for p in self.players if views[p].complete and p not in self.disqualified]
            if done:
                self.winner = done[0]
                self.winning_table = {p: list(ms) for p, ms in new.items()}
        self.table = new
        v = SnapshotVerdict(True, views, changes, self.winner, problems)
        self.history.append(v)
        return v

    def _view(self, p, melds) -> PlayerView:
        verdicts = [check_meld(m, self.settings) for m in melds]
        n = sum(len(m) for m in melds)
        valid = all(v.valid for v in verdicts)
        problems = [Reason("meld_problem", f"{' '.join(map(str, v.cards))}: {v.reason}",
                           cards=" ".join(map(str, v.cards)), reason=v.reason)
                    if v.reason and not v.reason.startswith(' '.join(map(str, v.cards))) else v.reason
                    for v in verdicts if v.reason]
        if n == WIN_CARDS and not valid:
            problems.append(Reason("ten_not_valid", f"{WIN_CARDS} cards on the table but not all in valid melds: "
                                   "not a win", n=WIN_CARDS))
        dq_reason = None
        if self.settings.strict_order == "disqualify":
            bad = [v for v in verdicts if v.kind and not v.in_order]
            if bad:
                dq_reason = "melds laid in the wrong order: " + "; ".join(v.reason for v in bad)
        return PlayerView(p, verdicts, n, valid, valid and n == WIN_CARDS, problems, p in self.passed,
                          self.disqualified.get(p), dq_reason)

    # -- table decisions ---------------------------------------------------
    def can_pass(self, player: str, seen=()) -> tuple[bool, str]:
        """May the player pass? Only if no card that is not face up on the table (nor in
        ``seen``: the player's hand, the discard pile, as far as the session knows)
        could still go on one of their melds."""
        self._check_player(player)
        visible = {c for ms in self.table.values() for m in ms for c in m}
        visible |= {parse_card(c, "seen") for c in seen}
        for m in self.table[player]:
            if meld_kind(m) is None:
                continue
            fits = [c for c in extension_cards(m) if c not in visible]
            if fits:
                names = " ".join(map(str, m))
                return False, f"{player} cannot pass: {' '.join(map(str, fits))} could still go on {names}"
        return True, f"no card left could go on {player}'s melds: {player} may pass"

    def pass_player(self, player: str) -> None:
        """The player passes for the rest of the hand; their melds may be turned down."""
        self._check_player(player)
        self.passed.add(player)

    def disqualify(self, player: str, reason: str = "disqualified by the table") -> None:
        """The table disqualifies the player: their cards may leave, they cannot win."""
        self._check_player(player)
        self.disqualified[player] = reason

    def declare_autowin(self, player: str, kind: str) -> None:
        """Record an automatic win the table has confirmed (see ``autowin.py``)."""
        self._check_player(player)
        if kind not in ("peladilla", "cuatro_cuerpos", "color"):
            raise RefereeError(f"unknown automatic win {kind!r}", "autowin")
        self.winner, self.autowin = player, kind

    def _check_player(self, player):
        if player not in self.players:
            raise RefereeError(f"unknown player {player!r}", "player")

    # -- the end -----------------------------------------------------------
    def settle(self, side_games: Sequence[SideGame] = (), dealt: Mapping | None = None,
               winner: str | None = ..., stake=None, pot_carried=None) -> Settlement:
        """Settle the hand: the detected winner (or ``winner=`` to override, ``None``
        for a hand that ended with the stock), the table at the win, side games."""
        w = self.winner if winner is ... else winner
        table = self.winning_table if (w is not None and w == self.winner and self.winning_table) else self.table
        dealt_cards = None
        if dealt:
            dealt_cards = {p: [parse_card(c, f"dealt.{p}") for c in cs] for p, cs in dealt.items()}
        return settle_hand(self.players, winner=w, stake=self.stake if stake is None else stake,
                           pot_carried=self.pot_carried if pot_carried is None else pot_carried,
                           melds=table, autowin=self.autowin if w == self.winner else None,
                           side_games=side_games, dealt=dealt_cards, dealer=self.dealer,
                           disqualified=list(self.disqualified), settings=self.settings)
