"""One hand of Desmoche at the live table: stable table states in, events and verdicts out.

The camera shows what lies face up in front of each player. After every stable
view :class:`DesmocheHand` asks the referee (:class:`referee.desmoche.table.TableReferee`)
for its verdicts and turns them into events:

* descriptive events from :func:`tableref.live.events.diff_states` (``meld_laid``,
  ``card_added``, ``card_moved``, ``card_taken``, ``card_removed``), each carrying
  the verdict on the meld it touched (``valid``, ``in_order``, ``kind``, ``reason``);
* ``meld_invalid`` / ``out_of_order`` for a meld the referee refuses or warns about;
* ``illegal_move`` for every illegal change the referee reports (a card taken back,
  a desmoche that leaves a meld broken, a card moved to another player...);
* ``autowin`` when, before any meld is laid, a player shows nine cards that make an
  automatic win (Peladilla, Cuatro cuerpos, Color) -- ties are broken by the referee;
* ``winner`` at the first view where a player has ten cards in valid melds, then
  ``hand_end`` with the settlement (pot, bonuses, nets).

A hand that ends with the stock (no winner) is closed by the host
(:meth:`DesmocheHand.finish`) or at the end of a recorded video.
"""
from __future__ import annotations

import importlib

from tableref.referee.cards import parse_card
dm_autowin = importlib.import_module("tableref.referee.desmoche.autowin")  # (the package re-exports a function of that name)
from tableref.referee.desmoche.seats import play_order
from tableref.referee.desmoche.table import TableReferee
from tableref.referee.errors import RefereeError

from tableref.live.events import TableState, diff_states, make_event as _ev

HAND_SIZE = 9


class DesmocheHand:
    """Referee one hand of Desmoche from successive stable table states."""

    game = "desmoche"

    def __init__(self, players: list[str], rules=None, stake=1, pot_carried=0, dealer: str | None = None,
                 hand_no: int = 1):
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
                    events.append(_ev("autowin", t, seat, p, [str(c) for c in cs],
                                      f"{p} shows an automatic win: {dm_autowin.explain(k, cs, self.settings)}",
                                      kind=k, accepted=(p == winner)))
                if len(claims) > 1:
                    events.append(_ev("verdict", t, self.players.index(winner), winner, [],
                                      f"{winner} wins the tie between automatic wins"))
                self.referee.declare_autowin(winner, kind)
                self.autowin_hands = {p: [str(c) for c in cs] for p, (_, cs) in claims.items()}
                self.state = state
                events += self._end(t, winner)
                return events
        try:
            verdict = self.referee.observe(snap)
        except RefereeError as exc:
            return [_ev("recognition_problem", t, None, None, [], f"cannot judge this view: {exc}")]
        if not verdict.accepted:
            return [_ev("recognition_problem", t, None, None, [], "; ".join(verdict.problems)
                        + " -- check the cards (a misread card?)")]
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
                    e.update(kind=mv.kind, valid=mv.valid, in_order=mv.in_order, reason=mv.reason)
                    if mv.reason:
                        e["text"] += f" -- {mv.reason}"
                touched.add((s, m))
            events.append(e)
        for s, m in sorted(touched):
            mv = self._meld_verdict(s, m)
            if mv is None:
                continue
            p = self.players[s]
            cards = [str(c) for c in mv.cards]
            if not mv.valid and len(cards) >= 3:
                events.append(_ev("meld_invalid", t, s, p, cards, f"{p}: {mv.reason}", reason=mv.reason,
                                  meld=m))
            elif mv.valid and not mv.in_order:
                events.append(_ev("out_of_order", t, s, p, cards, f"{p}: {mv.reason}", reason=mv.reason,
                                  meld=m))
        if any(len(m) >= 3 for melds in snap.values() for m in melds):
            self.melds_laid = True
        for ch in verdict.illegal:
            p = ch.player
            seat = self.players.index(p) if p in self.players else None
            events.append(_ev("illegal_move", t, seat, p, [str(c) for c in ch.cards], ch.reason,
                              change=ch.change, to_player=ch.to_player))
        if verdict.winner is not None:
            w = verdict.winner
            events.append(_ev("winner", t, self.players.index(w), w,
                              [c for m in snap[w] for c in m],
                              f"{w} has ten cards in valid melds on the table and wins the hand"))
            events += self._end(t, w)
        return events

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
            return [_ev("recognition_problem", t, None, None, [], f"cannot settle: {exc}")]
        items = []
        if s.winner is not None:
            items.append({"item": "pot", "player": s.winner, "points": s.pot_to_winner,
                          "text": f"{s.winner} takes the pot of {s.pot_to_winner}"})
        for b in s.bonuses:
            items.append({"item": b.bonus, "player": b.payer, "points": b.amount, "to": s.winner,
                          "cards": [str(c) for c in b.cards], "text": b.reason})
        net = {p: s.net[p] for p in self.players}
        self.result = {
            "type": "hand_end", "t": round(float(t), 2), "game": "desmoche", "hand_no": self.hand_no,
            "winner": s.winner, "net": net, "items": items, "autowin": s.autowin,
            "pot_carried_out": s.pot_carried_out,
            "details": {"settlement": s.to_json(), "melds": self.table_melds(),
                        "autowin_hands": self.autowin_hands},
            "text": (f"hand {self.hand_no}: {s.winner} wins; " if s.winner else f"hand {self.hand_no}: no winner; ")
            + ", ".join(f"{p} {v:+g}" for p, v in net.items()),
        }
        return [dict(self.result)]

    def table_melds(self) -> dict[str, list[list[str]]]:
        return self.snapshot_of(self.state)

    def finish(self, winner=..., **_host) -> dict:
        """Close the hand now: the detected winner, or ``winner`` given by the host (None: no winner)."""
        if self.result is not None:
            return self.result
        w = self.referee.winner if winner is ... else winner
        if w is not None and w not in self.players:
            raise RefereeError(f"unknown player {w!r}", "winner")
        evs = self._end(self.state.t, w)
        if self.result is None:
            raise RefereeError(evs[0]["text"] if evs else "cannot settle this hand", "winner")
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
            verdicts = list(pv.problems) if pv is not None else []
            if self.result and self.result.get("winner") == p:
                verdicts.insert(0, "winner")
            out.append({"seat": s, "player": p,
                        "table_cards": sum(len(m["cards"]) for m in melds) + (len(seat.loose) if seat else 0),
                        "melds": melds, "loose": [c.card for c in seat.loose] if seat else [],
                        "loose_ids": [c.track_id for c in seat.loose] if seat else [],
                        "verdicts": verdicts})
        return out

    @property
    def winner(self) -> str | None:
        if self.result is not None:
            return self.result.get("winner")
        return self.referee.winner
