"""One hand of Desmoche at the live table: stable table states in, events and verdicts out.

The camera shows what lies face up in front of each player. After every stable
view :class:`DesmocheLiveHand` asks the referee (:class:`referee.desmoche.table.TableReferee`)
for its verdicts and turns them into events:

* descriptive events from :func:`tableref.live.events.diff_states` (``meld_laid``,
  ``card_added``, ``card_moved``, ``card_taken``, ``card_removed``), each carrying
  the verdict on the meld it touched (``valid``, ``in_order``, ``kind``; ``reason`` only
  where no verdict event below says it, e.g. a meld of two cards so far);
* ``meld_invalid`` / ``out_of_order`` for a meld the referee refuses or warns about
  (each said once a hand for the same cards and reason, and nowhere else: every
  event appears once, see :func:`verdict_event`);
* ``illegal_move`` for every illegal change the referee reports (a card taken back,
  a desmoche that leaves a meld broken, a card moved to another player...);
* ``autowin`` when, before any meld is laid, a player shows nine cards that make an
  automatic win (Peladilla, Cuatro cuerpos, Color) -- ties are broken by the referee;
* ``winner`` at the first view where a player has ten cards in valid melds, then
  ``hand_end`` with the settlement (pot, bonuses, nets).

A meld the camera sees in two pieces (pieces shorter than a meld, lying side by side,
that make one valid meld in the order they lie: Cris's ``9H 10H`` and ``JH QH``) is
judged as the one meld it is (:func:`join_split_melds`); a meld shown valid stays
valid until the cards on the table change.

A hand that ends with the stock (no winner) is closed by the host
(:meth:`DesmocheLiveHand.finish`) or at the end of a recorded video. A card the
host corrects is judged as if it had been read right from the start
(:meth:`DesmocheLiveHand.rejudge`): a correction is never a player's move.
"""
from __future__ import annotations

import importlib

from tableref.referee.cards import parse_card
dm_autowin = importlib.import_module("tableref.referee.desmoche.autowin")  # (the package re-exports a function of that name)
from tableref.referee.desmoche.melds import check_meld
from tableref.referee.desmoche.seats import play_order
from tableref.referee.desmoche.table import TableReferee
from tableref.referee.errors import RefereeError
from tableref.referee.reasons import Reason

from tableref.games import GAMES
from tableref.live.events import diff_states, make_event
from tableref.live.state import SeatCards, TableState

HAND_SIZE = GAMES["desmoche"].hand_size[0]
MELD_MIN = 3                   # a meld has at least three cards
#: events that describe a change of the table (said when it happens, not again on a re-judging)
DESCRIPTIVE = frozenset({"meld_laid", "card_added", "card_moved", "card_taken", "card_removed", "card_loose",
                         "meld_changed", "centre_changed"})
#: verdicts said once a hand for the same cards and reason
ONCE = frozenset({"meld_invalid", "out_of_order", "illegal_move"})


def verdict_event(mv) -> str | None:
    """The verdict event a meld's verdict is said in (``meld_invalid``: a meld of three or more cards
    the referee refuses, ``out_of_order``: a valid meld laid out of order), or None. Its reason is
    said there only, not again in the event that tells the meld was laid or changed."""
    if not mv.valid and len(mv.cards) >= MELD_MIN:
        return "meld_invalid"
    if mv.valid and not mv.in_order:
        return "out_of_order"
    return None


def join_split_melds(state: TableState, settings) -> TableState:
    """Join neighbouring pieces of a seat that are one meld seen in two.

    Two melds next to each other in a seat, one of them shorter than a meld, that
    make a valid meld when put together in the order they lie, are the one meld the
    player laid; the camera saw a gap in it. Nothing else changes."""
    seats = []
    changed = False
    for seat in state.seats:
        melds = [list(m) for m in seat.melds]
        i = 0
        while i + 1 < len(melds):
            a, b = melds[i], melds[i + 1]
            if min(len(a), len(b)) < MELD_MIN:
                try:
                    joined = check_meld([c.card for c in a + b], settings).valid
                except RefereeError:
                    joined = False
                if joined:
                    melds[i:i + 2] = [a + b]
                    changed = True
                    continue
            i += 1
        seats.append(SeatCards(melds, list(seat.loose)))
    return TableState(seats, list(state.centre), state.t) if changed else state


class DesmocheLiveHand:
    """Referee one hand of Desmoche from successive stable table states (a :class:`tableref.live.hand.LiveHand`)."""

    game = "desmoche"

    def __init__(self, players: list[str], *, rules=None, stake=1, pot_carried=0, hand_no: int = 1,
                 dealer: str | None = None, auto_finish: bool = True):
        self._args = dict(rules=rules, stake=stake, pot_carried=pot_carried, hand_no=hand_no, dealer=dealer)
        self.players = list(players)
        self.rules = rules or {}
        self.stake = stake
        self.pot_carried = pot_carried
        self.dealer = dealer if dealer in self.players else self.players[-1]
        self.hand_no = hand_no
        self.referee = TableReferee(self.players, rules=self.rules, dealer=self.dealer, stake=stake,
                                    pot_carried=pot_carried)
        self.settings = self.referee.settings
        self.state = TableState.empty(len(self.players))
        self.verdict = None
        self.melds_laid = False        # any meld seen this hand: automatic wins are over
        self.result: dict | None = None
        self.autowin_hands: dict[str, list[str]] = {}
        self.seen_cards = False        # anything face up in a seat zone this hand
        self.history: list[TableState] = []    # every state judged, for re-judging after a correction
        self._said: set[tuple] = set()         # verdicts already said (see ONCE)

    # ------------------------------------------------------------------ observing
    def snapshot_of(self, state: TableState) -> dict[str, list[list[str]]]:
        snap = {}
        for s, seat in enumerate(state.seats[:len(self.players)]):
            melds = [[c.card for c in m] for m in seat.melds if m]
            melds += [[c.card] for c in seat.loose]
            snap[self.players[s]] = melds
        return snap

    def observe(self, state: TableState) -> list[dict]:
        """Judge a new stable table state; return the events it causes."""
        if self.result is not None:
            return []
        self.history.append(state)
        state = join_split_melds(state, self.settings)
        t = state.t
        events: list[dict] = []
        snap = self.snapshot_of(state)
        if any(m for melds in snap.values() for m in melds):
            self.seen_cards = True
        # automatic wins: nine cards shown face up before anyone has laid a meld
        if not self.melds_laid and self.settings.automatic_wins:
            claims = {}
            for p, melds in snap.items():
                cards = [c for m in melds for c in m]
                if len(cards) == HAND_SIZE:
                    try:
                        parsed = [parse_card(c) for c in cards]
                    except RefereeError:
                        continue
                    kind = dm_autowin.autowin(parsed, self.settings)
                    if kind:
                        claims[p] = (kind, parsed)
            if claims:
                order = play_order(self.players, self.dealer, self.settings)
                winner = dm_autowin.resolve(claims, order)
                kind, cards = claims[winner]
                for p, (k, cs) in claims.items():
                    seat = self.players.index(p)
                    events.append(make_event(
                        "autowin", t, f"{p} shows an automatic win: {dm_autowin.explain(k, cs, self.settings)}",
                        seat=seat, player=p, cards=[str(c) for c in cs], kind=k, accepted=p == winner))
                if len(claims) > 1:
                    events.append(make_event("verdict", t, f"{winner} wins the tie between automatic wins",
                                              seat=self.players.index(winner), player=winner))
                self.referee.declare_autowin(winner, kind)
                self.autowin_hands = {p: [str(c) for c in cs] for p, (_, cs) in claims.items()}
                self.state = state
                events += self._end(t, winner)
                return events
        try:
            verdict = self.referee.observe(snap)
        except RefereeError as exc:
            return [make_event("recognition_problem", t, f"cannot judge this view: {exc}")]
        if not verdict.accepted:
            return [make_event("recognition_problem", t,
                               "; ".join(verdict.problems) + " -- check the cards (a misread card?)",
                               problems=list(verdict.problems))]
        descriptive = diff_states(self.state, state, self.players)
        self.state = state
        self.verdict = verdict
        touched: set[tuple[int, int]] = set()
        for e in descriptive:
            if e["type"] == "centre_changed":
                continue
            s, m = e.get("seat"), e.get("meld")
            if s is not None and m is not None and s < len(self.players):
                mv = self._meld_verdict(s, m)
                if mv is not None:
                    e.update(kind=mv.kind, valid=mv.valid, in_order=mv.in_order)
                    if mv.reason and verdict_event(mv) is None:   # else the verdict event says it, once
                        e["reason"] = mv.reason
                        e["text"] += f" -- {mv.reason}"
                touched.add((s, m))
            events.append(e)
        for s, m in sorted(touched):
            mv = self._meld_verdict(s, m)
            if mv is None:
                continue
            p = self.players[s]
            kind = verdict_event(mv)
            if kind is not None:
                events.append(make_event(kind, t, f"{p}: {mv.reason}", seat=s, player=p,
                                          cards=[str(c) for c in mv.cards], reason=mv.reason, meld=m))
        if any(len(m) >= 3 for melds in snap.values() for m in melds):
            self.melds_laid = True
        for ch in verdict.illegal:
            p = ch.player
            seat = self.players.index(p) if p in self.players else None
            events.append(make_event("illegal_move", t, ch.reason, seat=seat, player=p, cards=[str(c) for c in ch.cards],
                                      change=ch.change, to_player=ch.to_player, reason=ch.reason))
        events = self._once(events)
        if verdict.winner is not None:
            w = verdict.winner
            events.append(make_event("winner", t, f"{w} has ten cards in valid melds on the table and wins the hand",
                                      seat=self.players.index(w), player=w, cards=[c for m in snap[w] for c in m]))
            events += self._end(t, w)
        return events

    def _once(self, events: list[dict]) -> list[dict]:
        """Drop a verdict already said this hand (the same kind, seat, cards and reason)."""
        out = []
        for e in events:
            if e["type"] in ONCE:
                key = (e["type"], e.get("seat"), tuple(e.get("cards") or ()), e.get("reason") or e.get("text"))
                if key in self._said:
                    continue
                self._said.add(key)
            out.append(e)
        return out

    def rejudge(self, state: TableState, corrections: dict[int, str | None]) -> list[dict]:
        """The host corrected cards (track id -> label, None: not a card): judge the hand again as
        if they had been read right from the start, then the table as it is now (``state``).

        Returns the verdicts that change, never the changes of the table already told (and
        never an illegal move made of a misreading)."""
        if self.result is not None:
            return []
        from tableref.live.state import relabel

        fresh = type(self)(self.players, **self._args)
        fresh._said = self._said
        for old in self.history:
            fresh.observe(relabel(old, corrections))
            if fresh.result is not None:     # the corrected past already had a winner: say it now
                break
        before = fresh.result
        events = [] if before is not None else fresh.observe(state)
        if before is not None:
            events = [dict(before)]
        self.__dict__.update(fresh.__dict__)
        return [e for e in events if e["type"] not in DESCRIPTIVE]

    def _meld_verdict(self, seat: int, meld: int):
        if self.verdict is None:
            return None
        pv = self.verdict.players.get(self.players[seat])
        if pv is None or meld >= len(pv.melds):
            return None
        return pv.melds[meld]

    # ------------------------------------------------------------------ the end
    def _end(self, t: float, winner: str | None) -> list[dict]:
        try:
            s = self.referee.settle(winner=winner)
        except RefereeError as exc:
            return [make_event("recognition_problem", t, f"cannot settle: {exc}", why=exc.message)]
        items = []
        if s.winner is not None:
            items.append({"item": "pot", "player": s.winner, "points": s.pot_to_winner,
                          "text": f"{s.winner} takes the pot of {s.pot_to_winner}"})
        for b in s.bonuses:
            items.append({"item": b.bonus, "player": b.payer, "points": b.amount, "to": s.winner,
                          "cards": [str(c) for c in b.cards], "text": b.reason})
        net = {p: s.net[p] for p in self.players}
        text = (f"hand {self.hand_no}: {s.winner} wins; " if s.winner else f"hand {self.hand_no}: no winner; ") \
            + ", ".join(f"{p} {v:+g}" for p, v in net.items())
        self.result = make_event(
            "hand_end", t, text, game=self.game, hand_no=self.hand_no, winner=s.winner, net=net, items=items,
            autowin=s.autowin, pot_carried_out=s.pot_carried_out,
            details={"settlement": s.to_json(), "melds": self.table_melds(), "autowin_hands": self.autowin_hands})
        return [dict(self.result)]

    def table_melds(self) -> dict[str, list[list[str]]]:
        return self.snapshot_of(self.state)

    def finish(self, winner=..., **_host) -> dict:
        """Close the hand now: the detected winner, or ``winner`` given by the host (None: no winner)."""
        if self.result is not None:
            return self.result
        w = self.referee.winner if winner is ... else winner
        if w is not None and w not in self.players:
            raise RefereeError(Reason("unknown_player", f"unknown player {w!r}", name=repr(w)), "winner")
        evs = self._end(self.state.t, w)
        if self.result is None:
            why = (evs[0].get("why") if evs else None) or "?"
            raise RefereeError(Reason("cannot_settle", f"cannot settle: {why}", why=why), "winner")
        return self.result

    def end_of_stream(self) -> dict | None:
        """The video ended: a hand in which cards were laid but nobody won is settled as a
        hand with no winner (the pot carries over); a hand with nothing laid is dropped."""
        if self.result is None and (self.seen_cards or self.referee.winner):
            self._end(self.state.t, self.referee.winner)
        return self.result

    # ------------------------------------------------------------------ views
    def seat_views(self) -> list[dict]:
        out = []
        for s, p in enumerate(self.players):
            seat = self.state.seats[s] if s < len(self.state.seats) else None
            pv = self.verdict.players.get(p) if self.verdict is not None else None
            melds = []
            if seat is not None:
                for m, meld in enumerate(seat.melds):
                    mv = pv.melds[m] if pv is not None and m < len(pv.melds) else None
                    melds.append({"cards": [c.card for c in meld], "track_ids": [c.track_id for c in meld],
                                  "kind": mv.kind if mv else None, "valid": mv.valid if mv else None,
                                  "in_order": mv.in_order if mv else None, "reason": mv.reason if mv else None})
            # the seat's own verdict lines: what the melds above them do not already say
            shown = {str(m["reason"]) for m in melds if m["reason"]}
            verdicts = [r for r in (pv.problems if pv is not None else [])
                        if getattr(r, "key", None) != "meld_problem" and str(r) not in shown]
            if self.result and self.result.get("winner") == p:
                verdicts.insert(0, "winner")
            out.append({"seat": s, "player": p,
                        "table_cards": sum(len(m["cards"]) for m in melds) + (len(seat.loose) if seat else 0),
                        "melds": melds, "loose": [c.card for c in seat.loose] if seat else [],
                        "loose_ids": [c.track_id for c in seat.loose] if seat else [],
                        "verdicts": verdicts})
        return out

    def table_view(self) -> dict:
        """What this game adds to the table's snapshot (nothing for Desmoche)."""
        return {}

    def observe_scan(self, scan: TableState) -> list[dict]:
        """Desmoche is judged on the tracked table, not on a count scan."""
        return []

    def carry_in(self, points: int) -> None:
        """The pot this undecided hand takes in: the ledger's (after an undo, or a new ledger session
        that paid the old pot back), also when the hand is judged again after a correction."""
        self.pot_carried = self._args["pot_carried"] = int(points)
        self.referee.pot_carried = self.pot_carried

    @property
    def carried_pot(self) -> int:
        """The pot this hand leaves for the next: what an undecided hand carries out."""
        return int((self.result or {}).get("pot_carried_out") or 0)

    @property
    def winner(self) -> str | None:
        if self.result is not None:
            return self.result.get("winner")
        return self.referee.winner
