"""One hand of Desmoche as a state machine: the one model of a hand, which the bots play.

A :class:`DesmocheHand` is the live session's table referee
(:class:`referee.desmoche.table.TableReferee`: the table, its verdicts, the win it
shows, passes, disqualifications, the settlement) plus what a camera does not see:
the hands, the stock, the Cambio, whose turn it is and the card on offer. Every
change of the table goes through the table referee, so the live session and a
whole hand judge the table with the same code.

Phases: ``deal`` -> ``cambio`` -> ``declare`` -> ``play`` -> ``over``.

::

    h = DesmocheHand(["ana", "ben", "cruz"], dealer="cruz", rules={...}, stake=1)
    h.deal({"ana": [...9], "ben": [...9], "cruz": [...9]}, stock=[...])  # or h.deal_random(rng)
    h.cambio("ana", "KD"); h.cambio("ben", ...); h.cambio("cruz", ...)   # one card to the next player
    h.declare_autowin("ben")            # optional, before the first draw (checked against the cards)
    h.draw("ana")                        # first player: the dealer's neighbour in the direction of play
    h.take("ana", [["8S", "9S", "10S"]]) # use the drawn card: the player's whole table afterwards
    h.pay("ana", "2C")                   # pay for it with a hand card -> the card is offered to the others
    h.decline("ben"); h.decline("cruz")  # nobody wants it: next player draws
    h.draw("cruz") ...
    h.settle(side_games=[...])           # settle.Settlement

Every illegal action raises :class:`referee.errors.IllegalAction` with a reason a
player understands, and leaves the state unchanged. Rules enforced:

* 9 cards each (hand + own table) at all times, 10 only at the win; a wrong
  deal disqualifies the dealer (their cards are set aside) and the wrong hands
  are corrected with :meth:`correct_deal`.
* The Cambio: each player passes one hand card face down to the next player;
  all passes are exchanged together.
* Automatic wins (:mod:`autowin`) must be declared before the first draw and
  count if the hand qualifies before or after the Cambio; several are resolved
  by the tie-breaks.
* A drawn card is first the drawer's; declined, it lies face up on the discard
  pile and the other players may claim it in order from the drawer in the
  direction of play (a player speaks only after everyone before them declined).
  A discard is offered the same way from the player who discarded it.
* Taking a card means using it at once in a meld on the table (a new meld with
  hand cards, or extending an own meld); the player may also lay further melds
  from the hand and make desmoche moves; then pays one hand card, unless they
  now have 10 cards in valid melds (a win).
* Forced meld (switch): a discard that extends a table meld goes onto it when
  no earlier player claims it -- the discarder's own meld last -- and the owner pays.
* When nobody uses a card, play passes to the next player after whoever put it
  up (the drawer or the discarder). Stock exhausted with nobody using the last
  card: no winner, the pot carries over.
* Passing: only if no unseen card could extend the player's melds.
* Disqualification: wrong deal (dealer), a card put into the hand from the stock
  or discard pile (:meth:`card_into_hand`), melds out of order under
  ``strict_order=disqualify``, or by the table (:meth:`disqualify`).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from tableref.referee.cards import Card, full_pack, parse_card, parse_cards
from tableref.referee.errors import IllegalAction, RefereeError

from tableref.referee.desmoche import autowin as aw
from tableref.referee.desmoche.melds import WIN_CARDS, can_extend, check_meld, meld_kind
from tableref.referee.desmoche.moves import diff_tables
from tableref.referee.desmoche.seats import claim_order, next_player, play_order
from tableref.referee.desmoche.settle import Settlement, SideGame, settle_hand
from tableref.referee.desmoche.table import TableReferee

HAND = 9


def _names(cards) -> str:
    return " ".join(str(c) for c in cards)


@dataclass
class Offer:
    card: Card
    source: str                 # "stock" (the drawer decides first) or "discard"
    owner: str                  # the drawer or the discarder
    pending: list[str] = field(default_factory=list)   # who may still claim, in order
    drawer_stage: bool = False  # a freshly drawn card: only the drawer may use it


class DesmocheHand(TableReferee):
    """One hand (see the module docstring). Players are seats clockwise from above.

    The table (what lies face up, its verdicts, the win it shows, passes, disqualifications,
    the settlement) is the live session's :class:`TableReferee`; a hand adds what a camera
    does not see: the hands, the stock, the Cambio, whose turn it is and the card on offer.
    """

    def __init__(self, players: Sequence[str], dealer: str, rules=None, stake=1, pot_carried=0):
        if dealer is None:
            raise RefereeError("a hand needs its dealer (one of the players)", "dealer")
        super().__init__(players, rules=rules, dealer=dealer, stake=stake, pot_carried=pot_carried)
        self.phase = "deal"
        self.hands: dict[str, list[Card]] = {p: [] for p in self.players}
        self.dealt: dict[str, list[Card]] = {}
        self.stock: list[Card] = []            # index 0 = top
        self.stock_known = False
        self.discards: list[Card] = []
        self.passes: dict[str, Card] = {}
        self.claims: dict[str, tuple[str, list[Card]]] = {}
        self.turn: str | None = None
        self.offer: Offer | None = None
        self.must_pay: str | None = None
        self.warnings: list[str] = []
        self.events: list[str] = []

    # -- helpers -----------------------------------------------------------
    @property
    def order(self) -> list[str]:
        """Play order: the dealer's neighbour first, the dealer last."""
        return play_order(self.players, self.dealer, self.settings)

    def active(self, p: str) -> bool:
        return p not in self.disqualified and p not in self.passed

    def _card(self, c, what="card") -> Card:
        try:
            return parse_card(c, what)
        except RefereeError as exc:
            raise IllegalAction(exc.message, what)

    def _player(self, p):
        if p not in self.players:
            raise IllegalAction(f"{p!r} is not playing this hand", "player")
        if p in self.disqualified:
            raise IllegalAction(f"{p} was disqualified ({self.disqualified[p]}) and waits for the next hand", "player")

    def _phase(self, *phases):
        if self.phase not in phases:
            if self.phase == "over":
                who = f"{self.winner} won" if self.winner else "nobody won"
                raise IllegalAction(f"the hand is over ({who})")
            raise IllegalAction(f"not now: the hand is at the {self.phase} stage")

    def count(self, p) -> int:
        return len(self.hands[p]) + sum(len(m) for m in self.table[p])

    def _log(self, text):
        self.events.append(text)

    # -- deal --------------------------------------------------------------
    def deal(self, hands: Mapping[str, Sequence], stock: Sequence | None = None) -> None:
        """Record the deal. ``stock`` (top first) is optional; without it each draw
        names its card. A wrong count disqualifies the dealer."""
        self._phase("deal")
        parsed = {}
        for p in self.players:
            if p not in hands:
                raise IllegalAction(f"no cards dealt to {p}", f"hands.{p}")
            parsed[p] = parse_cards(hands[p], f"hands.{p}")
        for p in hands:
            if p not in self.players:
                raise IllegalAction(f"{p!r} is not playing this hand", f"hands.{p}")
        everything = [c for cs in parsed.values() for c in cs]
        st = parse_cards(stock, "stock") if stock is not None else None
        seen = set()
        for c in everything + (st or []):
            if c in seen:
                raise IllegalAction(f"{c} dealt twice: Desmoche uses one pack", "hands")
            seen.add(c)
        self.hands = {p: list(cs) for p, cs in parsed.items()}
        if st is not None:
            self.stock, self.stock_known = list(st), True
        else:
            self.stock, self.stock_known = [c for c in full_pack() if c not in seen], False
        wrong = {p: len(cs) for p, cs in parsed.items() if len(cs) != HAND}
        if wrong:
            detail = ", ".join(f"{n} to {p}" for p, n in wrong.items())
            self._disqualify(self.dealer, f"the dealer dealt a wrong number of cards ({detail})")
            self._log(f"wrong deal: {detail}; {self.dealer} is disqualified, their cards are set aside")
        self._after_deal()

    def correct_deal(self, player: str, cards: Sequence) -> None:
        """After a wrong deal: the player's corrected 9 cards (extras back to the stock,
        missing ones from it)."""
        self._phase("deal")
        self._player(player)
        new = parse_cards(cards, "cards")
        if len(new) != HAND or len(set(new)) != HAND:
            raise IllegalAction(f"a corrected hand has {HAND} different cards", "cards")
        old = self.hands[player]
        others = {c for p, cs in self.hands.items() if p != player for c in cs}
        for c in new:
            if c in others:
                raise IllegalAction(f"{c} is in another player's hand", "cards")
        back = [c for c in old if c not in new]
        taken = [c for c in new if c not in old]
        self.stock = [c for c in self.stock if c not in taken] + back
        self.hands[player] = list(new)
        self._after_deal()

    def deal_random(self, rng: random.Random | None = None) -> None:
        """Shuffle one pack and deal 9 each, starting next to the dealer."""
        rng = rng or random.Random()
        pack = full_pack()
        rng.shuffle(pack)
        hands = {p: [] for p in self.players}
        order = self.order
        for i in range(HAND * len(order)):
            hands[order[i % len(order)]].append(pack[i])
        self.deal(hands, pack[HAND * len(order):])

    def _after_deal(self):
        if all(len(self.hands[p]) == HAND for p in self.players if p not in self.disqualified):
            self.dealt = {p: list(self.hands[p]) for p in self.players if p not in self.disqualified}
            self.phase = "cambio"

    # -- cambio ------------------------------------------------------------
    def cambio(self, player: str, card) -> None:
        """The player passes ``card`` face down to the next player; exchanged when all have passed."""
        self._phase("cambio")
        self._player(player)
        c = self._card(card)
        if player in self.passes:
            raise IllegalAction(f"{player} already passed a card in the Cambio")
        if c not in self.hands[player]:
            raise IllegalAction(f"{player} does not hold {c}", "card")
        self.passes[player] = c
        live = [p for p in self.players if p not in self.disqualified]
        if all(p in self.passes for p in live):
            for p in live:
                self.hands[p].remove(self.passes[p])
            for p in live:
                q = self._next_live(p)
                self.hands[q].append(self.passes[p])
            self.phase = "declare"
            self._log("Cambio done")

    def _next_live(self, p, skip_passed=False):
        q = p
        for _ in range(len(self.players)):
            q = next_player(self.players, q, self.settings)
            if q not in self.disqualified and not (skip_passed and q in self.passed):
                return q
        return p

    # -- automatic wins ----------------------------------------------------
    def declare_autowin(self, player: str, kind: str | None = None) -> str:
        """Declare an automatic win (``kind``, or the one the cards show); returns its kind. Any time
        from the deal (before or after the Cambio) until the first draw; the hand then ends at
        :meth:`end_declarations`. Unlike the table referee's, the claim is checked against the cards."""
        if self.phase == "play":
            raise IllegalAction("too late: automatic wins must be declared before the first card is drawn")
        self._phase("cambio", "declare")
        self._player(player)
        found, shown = aw.best_autowin(self.hands[player], self.settings, self.dealt.get(player))
        if found is None:
            if not self.settings.automatic_wins:
                raise IllegalAction("automatic wins are not played at this table")
            raise IllegalAction(f"{player}'s hand is no automatic win, before or after the Cambio: no Peladilla "
                                f"(a pair or two neighbouring cards of one suit), no four of a kind, no Color")
        if kind is not None and kind != found:
            sides = [cs for cs in (self.hands[player], self.dealt.get(player)) if cs and aw.shows(kind, cs, self.settings)]
            if not sides:
                raise IllegalAction(f"{player}'s hand shows no {kind}, before or after the Cambio", "autowin")
            found, shown = kind, list(max(sides, key=lambda cs: aw.tiebreak_key(kind, cs)))
        kind = found
        self.claims[player] = (kind, shown)
        self._log(f"{player} declares {kind}")
        return kind

    def end_declarations(self) -> None:
        """Close the declarations: an automatic win ends the hand, otherwise play starts."""
        self._phase("declare")
        if self.claims:
            winner = aw.resolve(self.claims, self.order)
            super().declare_autowin(winner, self.claims[winner][0])
            self.phase = "over"
            self._log(f"{self.winner} wins automatically ({self.autowin})")
            return
        self.phase = "play"
        self.turn = self._first_player()

    def _first_player(self):
        for p in self.order:
            if self.active(p):
                return p
        return None

    # -- play --------------------------------------------------------------
    def draw(self, player: str, card=None) -> Card:
        """The player whose turn it is draws from the stock (``card`` names it when
        the stock order is unknown). The first draw closes the automatic-win declarations."""
        starting = self.phase == "declare"
        if starting:
            if self.claims:
                raise IllegalAction("an automatic win was declared: the hand ends (call end_declarations)")
        else:
            self._phase("play")
        self._player(player)
        if not starting:
            self._idle_check()
        turn = self._first_player() if starting else self.turn
        if player != turn:
            raise IllegalAction(f"it is {turn}'s turn to draw, not {player}'s")
        if not self.stock:
            raise IllegalAction("the stock is empty")
        if card is None:
            if not self.stock_known:
                raise IllegalAction("name the card drawn (the stock order is not known)", "card")
            c = self.stock[0]
        else:
            c = self._card(card)
            if c not in self.stock:
                raise IllegalAction(f"{c} cannot come from the stock: it is already in play", "card")
            if self.stock_known and self.stock[0] != c:
                raise IllegalAction(f"the top card of the stock is {self.stock[0]}, not {c}", "card")
        if starting:
            self.end_declarations()
        self.stock.remove(c)
        self.offer = Offer(c, "stock", player, [player], drawer_stage=True)
        self._log(f"{player} draws {c}")
        return c

    def _idle_check(self):
        if self.must_pay:
            raise IllegalAction(f"{self.must_pay} must first pay a card from their hand")
        if self.offer is not None:
            raise IllegalAction(f"first settle the {self.offer.card} on offer "
                                f"({self.offer.pending[0] if self.offer.pending else '?'} to speak)")

    def take(self, player: str, table: Sequence[Sequence]) -> bool:
        """The player takes the card on offer and shows their whole table afterwards
        (old melds, possibly extended or desmoched, plus new melds). Returns True on a win."""
        self._phase("play")
        self._player(player)
        if self.must_pay:
            raise IllegalAction(f"{self.must_pay} must first pay a card from their hand")
        off = self.offer
        if off is None:
            raise IllegalAction("there is no card on offer to take")
        if player in self.passed:
            raise IllegalAction(f"{player} has passed for the rest of the hand")
        if off.drawer_stage and player != off.owner:
            raise IllegalAction(f"{off.card} was just drawn by {off.owner}, who decides first")
        if not off.drawer_stage:
            if player == off.owner:
                raise IllegalAction(f"{player} discarded {off.card} and cannot take it back")
            if player not in off.pending:
                raise IllegalAction(f"{player} already let {off.card} go")
            if off.pending[0] != player:
                raise IllegalAction(f"{off.pending[0]} comes before {player} for {off.card}: wait until they pass")
        new = self._check_new_table(player, table, off.card)
        self._apply_table(player, new, off.card)
        self.offer = None
        self._log(f"{player} takes {off.card}")
        return self._after_take(player)

    def _check_new_table(self, player, table, card) -> list[list[Card]]:
        if not isinstance(table, (list, tuple)):
            raise IllegalAction("give the player's melds as a list of card lists", "table")
        new = [parse_cards(m, f"table[{i}]") for i, m in enumerate(table)]
        new = [m for m in new if m]
        flat = [c for m in new for c in m]
        if len(set(flat)) != len(flat):
            raise IllegalAction("the same card twice on the table", "table")
        old_flat = {c for m in self.table[player] for c in m}
        if card not in flat:
            raise IllegalAction(f"{card} must go into a meld on the table at once", "table")
        for c in flat:
            if c != card and c not in old_flat and c not in self.hands[player]:
                raise IllegalAction(f"{player} does not hold {c}", "table")
        changes = diff_tables({player: self.table[player]}, {player: new})
        bad = [ch for ch in changes if not ch.legal]
        if bad:
            raise IllegalAction(bad[0].reason, "table")
        for m in new:
            v = check_meld(m, self.settings)
            if v.kind is None:
                raise IllegalAction(f"{_names(m)} is not a meld: {v.reason}", "table")
        if len(flat) > WIN_CARDS:
            raise IllegalAction(f"{len(flat)} cards on the table: nobody has more than {WIN_CARDS}", "table")
        return new

    def _lay(self, player, melds) -> None:
        """The player's table becomes ``melds``: the table referee judges the new view (and sees a win)."""
        verdict = self.observe({**self.table, player: melds})
        if not verdict.accepted:              # the checks before make this impossible: a card seen twice
            raise IllegalAction("; ".join(verdict.problems), "table")

    def _apply_table(self, player, new, card):
        used = {c for m in new for c in m}
        self.hands[player] = [c for c in self.hands[player] if c not in used]
        self._lay(player, new)
        for m in new:
            v = check_meld(m, self.settings)
            if not v.in_order:
                msg = f"{player}: {v.reason}"
                self.warnings.append(msg)
                self._log(msg)

    def _after_take(self, player) -> bool:
        if self.settings.strict_order == "disqualify":
            bad = [check_meld(m, self.settings) for m in self.table[player]]
            bad = [v for v in bad if not v.in_order]
            if bad:
                self._disqualify(player, "melds laid in the wrong order: " + "; ".join(v.reason for v in bad))
                self._next_turn_after(player)
                return False
        if self.winner == player:             # seen by the table referee: 10 cards in valid melds
            self.phase = "over"
            self._log(f"{player} wins with 10 cards on the table")
            return True
        self.must_pay = player
        return False

    def pay(self, player: str, card) -> None:
        """Pay for the card taken: discard ``card`` from the hand; it is offered to the others."""
        self._phase("play")
        self._player(player)
        if self.must_pay != player:
            if self.must_pay:
                raise IllegalAction(f"{self.must_pay} is the one who must pay now")
            raise IllegalAction(f"{player} has nothing to pay for")
        c = self._card(card)
        if c not in self.hands[player]:
            if any(c in m for m in self.table[player]):
                raise IllegalAction(f"{c} is on the table: pay with a card from the hand")
            raise IllegalAction(f"{player} does not hold {c}", "card")
        self.hands[player].remove(c)
        self.must_pay = None
        self._log(f"{player} pays {c}")
        self._offer_discard(c, player)

    def _offer_discard(self, c, owner):
        self.discards.append(c)
        pending = [p for p in claim_order(self.players, owner, self.settings)[:-1] if self.active(p)]
        self.offer = Offer(c, "discard", owner, pending)
        self._resolve_offer()

    def decline(self, player: str) -> None:
        """The player does not use the card on offer (knocks on the table)."""
        self._phase("play")
        self._player(player)
        off = self.offer
        if off is None:
            raise IllegalAction("there is no card on offer")
        if off.drawer_stage:
            if player != off.owner:
                raise IllegalAction(f"{off.owner} decides first about the card they drew")
            self._log(f"{player} does not use {off.card}")
            self._offer_discard(off.card, player)
            return
        if player not in off.pending:
            raise IllegalAction(f"{player} has no say about {off.card} now")
        if off.pending[0] != player:
            raise IllegalAction(f"{off.pending[0]} speaks before {player} about {off.card}")
        if self._forced(player, off.card):
            return
        off.pending.pop(0)
        self._resolve_offer()

    def _forced(self, player, card) -> bool:
        """Forced meld: put the card on the player's meld if it extends one."""
        if not self.settings.forced_meld or not self.active(player):
            return False
        for i, m in enumerate(self.table[player]):
            if can_extend(m, card):
                melds = [list(x) for x in self.table[player]]
                if meld_kind(m) == "run" and card.rank < min(c.rank for c in m):
                    melds[i] = [card] + list(m)
                else:
                    melds[i] = list(m) + [card]
                self.offer = None
                self._log(f"forced meld: {card} goes onto {player}'s {_names(m)}")
                self._lay(player, melds)
                self._after_take(player)
                return True
        return False

    def _resolve_offer(self):
        off = self.offer
        if off is None:
            return
        if off.pending:
            # forced meld: once everyone before them has let the card go, it goes onto
            # the first player's meld that it extends, without asking
            self._forced(off.pending[0], off.card)
            return
        if self._forced(off.owner, off.card):
            return
        self.offer = None
        self._log(f"nobody uses {off.card}")
        self._next_turn_after(off.owner)

    def _next_turn_after(self, p):
        if not self.stock:
            self.phase = "over"
            self._log("the stock is exhausted with no winner: the pot carries over")
            return
        nxt = self._next_live(p, skip_passed=True)
        if not self.active(nxt):
            self.phase = "over"
            self._log("nobody left to play: no winner")
            return
        self.turn = nxt

    # -- passing and disqualification -------------------------------------
    def pass_hand(self, player: str) -> None:
        """Pass for the rest of the hand: allowed only if no unseen card could go on the player's melds."""
        self._phase("play")
        self._player(player)
        if player in self.passed:
            raise IllegalAction(f"{player} has already passed")
        if self.must_pay == player:
            raise IllegalAction(f"{player} must first pay a card")
        seen = self.hands[player] + self.discards + ([self.offer.card] if self.offer else [])
        may, why = self.can_pass(player, seen)       # no card the player cannot see fits their melds
        if not may:
            raise IllegalAction(why)
        self.pass_player(player)
        self._log(f"{player} passes for the rest of the hand")
        off = self.offer
        if off is not None and not off.drawer_stage and player in off.pending:
            off.pending.remove(player)
            self._resolve_offer()
        elif off is not None and off.drawer_stage and off.owner == player:
            self._offer_discard(off.card, player)
        elif self.turn == player and off is None:
            self._next_turn_after(player)

    def card_into_hand(self, player: str, card=None) -> None:
        """Report that the player put a card from the stock or discard pile into their hand."""
        self._player(player)
        what = f" ({self._card(card)})" if card is not None else ""
        self._disqualify(player, f"put a card from the stock or the discard pile into the hand{what}")

    def disqualify(self, player: str, reason: str = "disqualified by the table") -> None:
        self._player(player)
        self._disqualify(player, reason)

    def _disqualify(self, player, reason):
        self.disqualified[player] = reason
        self._log(f"{player} is disqualified: {reason}")
        if self.phase != "play":
            return
        live = [p for p in self.players if p not in self.disqualified]
        if len(live) == 1:
            self.winner = live[0]
            self.phase = "over"
            self.offer = None
            self.must_pay = None
            self._log(f"{live[0]} is the only player left")
            return
        was_paying = self.must_pay == player
        if was_paying:
            self.must_pay = None
        off = self.offer
        if off is not None and off.drawer_stage and off.owner == player:
            self._offer_discard(off.card, player)          # the others may still use the drawn card
        elif off is not None and player in off.pending:
            off.pending.remove(player)
            self._resolve_offer()
        elif was_paying or (self.turn == player and off is None):
            self._next_turn_after(player)

    # -- the end -----------------------------------------------------------
    def settle(self, side_games: Sequence[SideGame] = ()) -> Settlement:
        """Settle the hand once it is over: the table referee's settlement, with the dealt hands."""
        self._phase("over")
        if self.winner is not None and self.autowin is None and sum(len(m) for m in self.table[self.winner]) != WIN_CARDS:
            # the last player left after disqualifications: no table bonuses
            table = {p: [] for p in self.players}
            return settle_hand(self.players, winner=self.winner, stake=self.stake, pot_carried=self.pot_carried,
                               melds=table, autowin="last_player", side_games=side_games, dealt=self.dealt,
                               dealer=self.dealer, disqualified=list(self.disqualified), settings=self.settings)
        return super().settle(side_games, dealt=self.dealt)
