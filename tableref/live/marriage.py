"""The Marriage count at the live table: each seat's laid-down hand is scanned and counted.

At the end of a Marriage hand every player lays their cards face up in front of
them. :class:`MarriageLiveHand` follows the stable table:

* the **tiplu** is the single face-up card in the centre zone (or entered by the
  host: ``finish_hand(tiplu=...)``); event ``tiplu``;
* a seat whose zone holds 21 (or 22) cards has **laid its hand down**
  (``hand_laid_down``); the referee (:func:`referee.marriage.analyse_hand`)
  finds the arrangement, whether the hand has seen the joker and can finish,
  and counts the maal (``maal_counted``, with the itemised maal);
* **seen**: a hand that shows three pure combinations (or seven dublees) has seen
  the joker; the host can say otherwise (``finish_hand(seen={...})``);
* the **winner** is the one seen hand that is a finished hand (seven
  combinations), or the host's choice (``finish_hand(winner=...)``);
* when every seat is counted, the tiplu is known and the winner is clear, the
  hand is **settled** at once (:func:`referee.marriage.settle`; event
  ``hand_end``). Otherwise it waits for the host (:meth:`MarriageLiveHand.finish`).

Exposed tunnelas (shown at the deal) cannot be told from the camera's view of a
laid-down hand; the host enters them (``finish_hand(exposed={player: [[...]]})``).
"""
from __future__ import annotations

from tableref.referee.errors import RefereeError
from tableref.referee.reasons import Reason

from tableref.games import GAMES
from tableref.live.events import diff_states, make_event
from tableref.live.state import TableState

HAND_SIZES = GAMES["marriage"].hand_size


class MarriageLiveHand:
    """Referee one Marriage count from stable tables and seat scans (a :class:`tableref.live.hand.LiveHand`)."""

    game = "marriage"
    carried_pot = 0                     # Marriage has no pot

    def carry_in(self, points: int) -> None:
        """Marriage has no pot: nothing to carry in."""

    def __init__(self, players: list[str], *, rules=None, stake=1, pot_carried=0, hand_no: int = 1,
                 auto_finish: bool = True):
        from tableref.referee.marriage import build_rules

        self.players = list(players)
        self.rules = build_rules(rules or {})
        self.rules_in = dict(rules or {})
        self.hand_no = hand_no
        self.auto_finish = auto_finish
        self.state = TableState.empty(len(self.players))
        self.tiplu: str | None = None
        self.host_tiplu: str | None = None
        self.host_seen: dict[str, bool] = {}
        self.host_winner: str | None = None
        self.host_exposed: dict[str, list[list[str]]] = {}
        self.host_maal: dict[str, int] = {}            # maal the host entered for a seat the camera cannot count
        self.analyses: dict[str, object] = {}
        self._keys: dict[str, tuple] = {}
        self.result: dict | None = None
        self.count_state: TableState | None = None     # from the frame-voting scan, when there is one

    # ------------------------------------------------------------------ observing
    def _seat_cards(self, s: int) -> list[str]:
        st = self.count_state if self.count_state is not None else self.state
        return [c.card for c in st.seats[s].cards] if s < len(st.seats) else []

    def observe(self, state: TableState) -> list[dict]:
        """A stable table from the tracker: melds for display, events; counts unless a scan is used."""
        if self.result is not None:
            return []
        events = [e for e in diff_states(self.state, state, self.players) if e["type"] != "centre_changed"]
        # descriptive events are many during a count; keep the meld-level ones only
        events = [e for e in events if e["type"] in ("meld_laid", "card_removed")]
        self.state = state
        if self.count_state is not None:
            return events
        return events + self._judge(state)

    def observe_scan(self, scan: TableState) -> list[dict]:
        """A stable per-seat scan (:class:`tableref.live.scan.SeatScanner`): what the count is decided on."""
        if self.result is not None:
            return []
        self.count_state = scan
        if self.state.t < scan.t and not any(s.cards for s in self.state.seats):
            self.state = TableState(self.state.seats, self.state.centre, scan.t)
        return self._judge(scan)

    def _judge(self, state: TableState) -> list[dict]:
        t = state.t
        events: list[dict] = []
        centre = [c.card for c in state.centre]
        tiplu = self.host_tiplu or (centre[0] if len(centre) == 1 else None)
        if tiplu != self.tiplu and tiplu is not None:
            self.tiplu = tiplu
            self.analyses.clear()
            self._keys.clear()
            events.append(make_event("tiplu", t, f"the tiplu is {tiplu}" + (
                "" if self.host_tiplu else " (read from the centre of the table)"), cards=[tiplu], by_host=bool(self.host_tiplu)))
        elif tiplu is None and len(centre) > 1 and self.tiplu is None:
            events.append(make_event("need_tiplu", t,
                                      "several cards in the centre: which one is the tiplu? (the host can enter it)",
                                      cards=centre))
        events += self._count(t)
        if self.auto_finish:
            events += self._maybe_finish(t)
        return events

    def _count(self, t: float) -> list[dict]:
        from tableref.referee.marriage import analyse_hand

        events = []
        for s, p in enumerate(self.players):
            cards = self._seat_cards(s)
            exposed = self.host_exposed.get(p, [])
            n = len(cards)
            if n not in HAND_SIZES and n - 0 not in HAND_SIZES:
                if p in self.analyses and n < 21:
                    del self.analyses[p]
                    self._keys.pop(p, None)
                if n > 22:
                    key = ("too_many", n)
                    if self._keys.get(p) != key:
                        self._keys[p] = key
                        events.append(make_event("count_problem", t, f"{p}: {n} cards in the seat zone, a hand has 21 (or 22)",
                                                  seat=s, player=p, cards=cards, count=n))
                continue
            if self.tiplu is None:
                continue
            seen = self.host_seen.get(p)
            key = (tuple(sorted(cards)), self.tiplu, seen, tuple(map(tuple, exposed)))
            if self._keys.get(p) == key:
                continue
            self._keys[p] = key
            try:
                probe = analyse_hand(self.tiplu, cards, exposed_tunnelas=exposed, seen=True, rules=self.rules,
                                     players=len(self.players))
                is_seen = probe.can_see_joker if seen is None else bool(seen)
                a = probe if is_seen else analyse_hand(self.tiplu, cards, exposed_tunnelas=exposed, seen=False,
                                                      rules=self.rules, players=len(self.players))
            except RefereeError as exc:
                self.analyses.pop(p, None)
                events.append(make_event("count_problem", t, f"{p}: {exc.message} (a misread card?)", seat=s, player=p,
                                          cards=cards, reason=exc.message))
                continue
            first = p not in self.analyses
            self.analyses[p] = (a, is_seen)
            if first:
                events.append(make_event("hand_laid_down", t, f"{p} laid down {n} cards for the count", seat=s, player=p,
                                          cards=cards, count=n))
            status = "has seen the joker" if is_seen else "has not seen the joker"
            how = ""
            if a.can_finish:
                how = "; a finished hand (" + ("eight dublees" if a.finish_by == "dublees" else "seven combinations") + ")"
            items = a.maal_detail.to_json() if hasattr(a.maal_detail, "to_json") else []
            unpaid = "" if is_seen else " (not paid: unseen)" if a.maal == 0 and a.maal_counted else ""
            events.append(make_event("maal_counted", t, f"{p} {status}{how}; maal {a.maal_counted}{unpaid}",
                                      seat=s, player=p, cards=cards, maal=int(a.maal_counted), maal_paid=int(a.maal),
                                      seen=is_seen, can_finish=bool(a.can_finish), melds=[[str(c) for c in m] for m in a.melds],
                                      meld_kinds=list(a.meld_kinds), maal_items=items))
        return events

    def winner_candidates(self) -> list[str]:
        return [p for p, (a, seen) in self.analyses.items() if seen and a.can_finish]

    def _maybe_finish(self, t: float) -> list[dict]:
        if self.result is not None or self.tiplu is None:
            return []
        if len(self.analyses) < len(self.players):
            return []
        winner = self.host_winner
        if winner is None:
            cands = self.winner_candidates()
            if len(cands) != 1:
                return []
            winner = cands[0]
        return self._settle(t, winner)

    def _settle(self, t: float, winner: str) -> list[dict]:
        from tableref.referee.marriage import PlayerScore, settle

        scores = []
        for p in self.players:
            if p in self.analyses:
                a, seen = self.analyses[p]
                scores.append(PlayerScore(p, int(a.maal_counted), seen=bool(seen)))
            else:
                seen = self.host_seen.get(p, False)
                scores.append(PlayerScore(p, int(self.host_maal.get(p, 0)), seen=bool(seen)))
        if winner in self.analyses:
            wa = self.analyses[winner][0]
            dublee_win = wa.finish_by == "dublees"
        else:
            dublee_win = False
        s = settle(winner, scores, dublee_win=dublee_win, rules=self.rules)
        sj = s.to_json()
        items = [{"item": "win", "player": winner, "points": s.net[winner],
                  "text": f"{winner} ended the hand" + (" with eight dublees" if dublee_win else "")}]
        for ps in s.players:
            if ps.name != winner and ps.pays_winner >= 0:
                items.append({"item": "pays_winner", "player": ps.name, "points": ps.pays_winner, "to": winner,
                              "text": f"{ps.name} pays {winner} {ps.pays_winner}" + (
                                  "" if ps.seen else " (unseen)")})
            elif ps.name != winner:         # more maal than the winner's share: the winner pays
                items.append({"item": "winner_pays", "player": ps.name, "points": -ps.pays_winner, "from": winner,
                              "text": f"{winner} pays {ps.name} {-ps.pays_winner}"})
        details = {
            "tiplu": self.tiplu,
            "dublee_win": dublee_win,
            "maal": {p: int(self.analyses[p][0].maal_counted) if p in self.analyses else int(self.host_maal.get(p, 0))
                     for p in self.players},
            "maal_entered_by_host": {p: v for p, v in self.host_maal.items() if p not in self.analyses},
            "seen": {p: bool(self.analyses[p][1]) if p in self.analyses else bool(self.host_seen.get(p, False))
                     for p in self.players},
            "melds": {p: [[str(c) for c in m] for m in self.analyses[p][0].melds] for p in self.analyses},
            "maal_items": {p: (self.analyses[p][0].maal_detail.to_json()
                               if hasattr(self.analyses[p][0].maal_detail, "to_json") else [])
                           for p in self.analyses},
            "settlement": sj,
        }
        net = {p: s.net[p] for p in self.players}
        self.result = make_event(
            "hand_end", t, f"count {self.hand_no}: {winner} wins; " + ", ".join(f"{p} {v:+g}" for p, v in net.items()),
            game=self.game, hand_no=self.hand_no, winner=winner, net=net, items=items, details=details,
            maal=details["maal"], seen=details["seen"])
        return [dict(self.result)]

    # ------------------------------------------------------------------ host
    def finish(self, tiplu: str | None = None, winner: str | None = None, seen: dict | None = None,
               exposed: dict | None = None, maal: dict | None = None, **_ignored) -> dict:
        """The host confirms the count: tiplu, winner, seen/unseen, exposed tunnelas, and the maal of
        a seat the camera could not count. Every seat must be counted (its 21 cards read, or its
        maal entered by the host): nothing is settled on a guess."""
        from tableref.referee.cards import parse_card

        if self.result is not None:
            return self.result
        if tiplu is not None:
            self.host_tiplu = str(parse_card(tiplu, "tiplu"))
        if winner is not None:
            if winner not in self.players:
                raise RefereeError(Reason("unknown_player", f"unknown player {winner!r}", name=repr(winner)), "winner")
            self.host_winner = winner
        if seen:
            for p, v in seen.items():
                if p not in self.players:
                    raise RefereeError(Reason("unknown_player", f"unknown player {p!r}", name=repr(p)), f"seen.{p}")
                self.host_seen[p] = bool(v)
        if exposed:
            for p, ts in exposed.items():
                if p not in self.players:
                    raise RefereeError(Reason("unknown_player", f"unknown player {p!r}", name=repr(p)), f"exposed.{p}")
                self.host_exposed[p] = [[str(parse_card(c)) for c in tt] for tt in ts]
        if maal:
            for p, v in maal.items():
                if p not in self.players:
                    raise RefereeError(Reason("unknown_player", f"unknown player {p!r}", name=repr(p)), f"maal.{p}")
                if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                    raise RefereeError(Reason("bad_maal", f"{p}'s maal must be a whole number of points, 0 or more",
                                              player=p), f"maal.{p}")
                self.host_maal[p] = v
        if self.host_tiplu:
            self.tiplu = self.host_tiplu
        t = max(self.state.t, self.count_state.t if self.count_state is not None else 0.0)
        self._keys.clear()
        self._count(t)
        if self.tiplu is None:
            raise RefereeError(Reason("tiplu_unknown", "the tiplu is not known: enter it"), "tiplu")
        w = self.host_winner
        if w is None:
            cands = self.winner_candidates()
            if len(cands) != 1:
                raise RefereeError(Reason("who_ended_both", f"who ended the hand? {' and '.join(cands)} both show a "
                                          "finished hand", players=" and ".join(cands)) if cands else
                                   Reason("who_ended_none", "who ended the hand? no laid-down hand shows seven "
                                          "combinations"), "winner")
            w = cands[0]
        missing = [p for p in self.players if p not in self.analyses and p not in self.host_maal]
        if missing:
            who, how = ", ".join(missing), "lay the 21 cards face up in the seat zone, or enter the maal"
            raise RefereeError(Reason("not_counted_one", f"{who} is not counted: {how}", players=who)
                               if len(missing) == 1 else
                               Reason("not_counted_many", f"{who} are not counted: {how}", players=who), "maal")
        if w in self.analyses and not self.analyses[w][1]:
            self.host_seen[w] = True
            self._keys.clear()
            self._count(t)
        self._settle(t, w)
        return self.result

    def end_of_stream(self) -> dict | None:
        if self.result is None and self.tiplu is not None and len(self.analyses) == len(self.players):
            cands = [self.host_winner] if self.host_winner else self.winner_candidates()
            if len(cands) == 1:
                self._settle(self.state.t, cands[0])
        return self.result

    # ------------------------------------------------------------------ views
    @property
    def winner(self) -> str | None:
        if self.result is not None:
            return self.result["winner"]
        return self.host_winner

    def seat_views(self) -> list[dict]:
        out = []
        for s, p in enumerate(self.players):
            seat = self.state.seats[s] if s < len(self.state.seats) else None
            melds = []
            if seat is not None:
                for meld in seat.melds:
                    melds.append({"cards": [c.card for c in meld], "track_ids": [c.track_id for c in meld],
                                  "kind": None, "valid": None, "in_order": None, "reason": None,
                                  "checked": "at_count"})      # judged when the hand is laid down, not before
            verdicts = []
            count = None
            if p in self.analyses:
                a, seen = self.analyses[p]
                count = {"maal": int(a.maal_counted), "maal_paid": int(a.maal), "seen": bool(seen),
                         "can_finish": bool(a.can_finish),
                         "arrangement": [[str(c) for c in m] for m in a.melds], "kinds": list(a.meld_kinds),
                         "maal_items": a.maal_detail.to_json() if hasattr(a.maal_detail, "to_json") else []}
                verdicts.append(("seen" if seen else "unseen") + f", maal {a.maal_counted}")
                if a.can_finish:
                    verdicts.append("finished hand")
            if self.winner == p:
                verdicts.insert(0, "winner")
            n = len(seat.cards) if seat else 0
            out.append({"seat": s, "player": p, "table_cards": n, "melds": melds,
                        "loose": [c.card for c in seat.loose] if seat else [],
                        "loose_ids": [c.track_id for c in seat.loose] if seat else [], "verdicts": verdicts,
                        "count": count})
        return out

    def table_view(self) -> dict:
        """What the count adds to the table's snapshot: the tiplu and who may have ended the hand."""
        return {"tiplu": self.tiplu, "winner_candidates": self.winner_candidates()}

    def rejudge(self, state: TableState, corrections: dict[int, str | None]) -> list[dict]:
        """The host corrected cards: count again on the table as it is now (``state``, corrected)."""
        if self.result is not None:
            return []
        self._keys.clear()
        if self.count_state is not None:
            from tableref.live.state import relabel

            self.count_state = relabel(self.count_state, corrections)
        events = self.observe(state)
        if self.count_state is not None:
            events += self._judge(self.count_state)
        return [e for e in events if e["type"] not in ("meld_laid", "card_removed")]
