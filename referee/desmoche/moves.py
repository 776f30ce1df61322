"""What changed between two views of the table, and which changes are illegal.

A table is ``{player: [meld, ...]}`` with each meld a sequence of cards in
laying order. Rules checked (RULES.md, "the desmoche move"):

* a card never leaves the table (``card_removed``), except for a player who
  passed (melds turned face down) or was disqualified;
* a card never goes to another player's melds (``card_moved_to_other_player``);
* a player may take a card from one of their own melds into a **new** meld
  (the desmoche move) only if the meld it left stays valid
  (``desmoche_leaves_invalid``); moving a card into another **existing** meld,
  or merging two melds, is illegal (``moved_into_existing_meld``);
* a meld that was valid must stay a meld (``meld_broken``). Only complete melds
  are protected: the cards of a group that was not yet a meld (a meld being laid,
  a loose card) may be regrouped freely within the player's table.

Adding cards (from the hand, the stock or a discard) is always a legal change
here; :mod:`referee.desmoche.hand` checks where those cards came from.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from tableref.referee.cards import Card
from tableref.referee.reasons import Reason, reason_json

from tableref.referee.desmoche.melds import meld_kind

Table = Mapping[str, Sequence[Sequence[Card]]]


@dataclass(frozen=True)
class Change:
    """One change between two views. ``legal`` False means a rule was broken."""
    player: str
    change: str          # added, removed, reordered, desmoche, card_removed, card_moved_to_other_player, ...
    cards: tuple[Card, ...]
    legal: bool
    reason: str
    to_player: str | None = None

    def to_json(self) -> dict:
        out = {"player": self.player, "change": self.change, "cards": [str(c) for c in self.cards],
               "legal": self.legal, "reason": self.reason}
        if reason_json(self.reason):
            out["reason_key"] = reason_json(self.reason)
        if self.to_player is not None:
            out["to_player"] = self.to_player
        return out


def _names(cards: Iterable[Card]) -> str:
    return " ".join(str(c) for c in cards)


def diff_tables(before: Table, after: Table, may_clear: Iterable[str] = ()) -> list[Change]:
    """All changes from ``before`` to ``after`` (players absent = empty table).

    ``may_clear``: players whose cards may leave the table (passed or disqualified).
    """
    may_clear = set(may_clear)
    pos_b = {c: (p, i) for p, ms in before.items() for i, m in enumerate(ms) for c in m}
    pos_a = {c: (p, j) for p, ms in after.items() for j, m in enumerate(ms) for c in m}
    out: list[Change] = []
    players = list(dict.fromkeys(list(before) + list(after)))
    for p in players:
        gone = [c for c, (q, _) in pos_b.items() if q == p and c not in pos_a]
        if gone:
            if p in may_clear:
                out.append(Change(p, "removed", tuple(gone), True, Reason(
                    "change_removed", f"{p}'s cards left the table ({_names(gone)})", player=p, cards=_names(gone))))
            else:
                out.append(Change(p, "card_removed", tuple(gone), False, Reason(
                    "change_card_removed", f"{_names(gone)} taken off {p}'s melds: a card on the table never goes back",
                    player=p, cards=_names(gone))))
        moved = {}
        for c, (q, _) in pos_b.items():
            if q == p and c in pos_a and pos_a[c][0] != p:
                moved.setdefault(pos_a[c][0], []).append(c)
        for q, cards in moved.items():
            out.append(Change(p, "card_moved_to_other_player", tuple(cards), False, Reason(
                "change_card_moved_to_other_player", f"{_names(cards)} moved from {p}'s melds to {q}'s: a player "
                f"may only rearrange their own melds", player=p, cards=_names(cards), to_player=q), to_player=q))
        new = [c for c, (q, _) in pos_a.items() if q == p and c not in pos_b]
        if new:
            out.append(Change(p, "added", tuple(new), True,
                              Reason("change_added", f"{p} laid {_names(new)}", player=p, cards=_names(new))))
        out.extend(_own_moves(p, list(before.get(p, [])), list(after.get(p, [])), pos_a))
    return out


def _own_moves(p, old: list, new: list, pos_a) -> list[Change]:
    """Moves inside one player's table. Only complete melds are protected: cards of a
    group that was not yet a meld (a meld being laid, a loose card) may go anywhere."""
    out: list[Change] = []
    cont = {}
    for i, m in enumerate(old):
        if meld_kind(m) is None:
            continue
        dests = Counter(pos_a[c][1] for c in m if c in pos_a and pos_a[c][0] == p)
        if dests:
            best = max(dests.values())
            cont[i] = min(j for j, k in dests.items() if k == best)
    owners = Counter(cont.values())
    continuing = set(cont.values())
    for i, m in enumerate(old):
        if i not in cont:
            continue
        j = cont[i]
        here = [c for c in m if c in pos_a and pos_a[c][0] == p]
        left = [c for c in here if pos_a[c][1] != j]
        remaining = new[j]
        valid_after = meld_kind(remaining) is not None
        merged = False
        if owners[j] > 1 and min(k for k, jj in cont.items() if jj == j) != i:
            merged = True
            out.append(Change(p, "moved_into_existing_meld", tuple(c for c in here if pos_a[c][1] == j), False,
                              Reason("change_merged", f"{p} merged {_names(m)} into another meld: cards may only "
                                     "go into a new meld", player=p, meld=_names(m))))
        into_existing = [c for c in left if pos_a[c][1] in continuing]
        into_new = [c for c in left if pos_a[c][1] not in continuing]
        if into_existing:
            out.append(Change(p, "moved_into_existing_meld", tuple(into_existing), False, Reason(
                "change_moved_into_existing_meld", f"{_names(into_existing)} moved from {_names(m)} into another of "
                f"{p}'s melds: the desmoche move takes a card only into a new meld",
                player=p, cards=_names(into_existing), meld=_names(m))))
        broken_reported = False
        if into_new:
            if valid_after:
                out.append(Change(p, "desmoche", tuple(into_new), True, Reason(
                    "change_desmoche", f"{p} took {_names(into_new)} from {_names(m)} for a new meld; "
                    f"{_names(remaining)} is still a meld",
                    player=p, cards=_names(into_new), meld=_names(m), remaining=_names(remaining))))
            else:
                broken_reported = True
                out.append(Change(p, "desmoche_leaves_invalid", tuple(into_new), False, Reason(
                    "change_desmoche_leaves_invalid", f"{p} took {_names(into_new)} from {_names(m)} but "
                    f"{_names(remaining)} is no longer a meld: the desmoche move must leave every meld valid",
                    player=p, cards=_names(into_new), meld=_names(m), remaining=_names(remaining))))
        if not valid_after and not broken_reported and not merged:
            out.append(Change(p, "meld_broken", tuple(remaining), False, Reason(
                "change_meld_broken", f"{_names(m)} became {_names(remaining)}, which is not a meld",
                player=p, meld=_names(m), remaining=_names(remaining))))
        elif not merged and [c for c in remaining if c in m] != [c for c in m if c in remaining]:
            out.append(Change(p, "reordered", tuple(remaining), True,
                              Reason("change_reordered", f"{p} rearranged {_names(m)}", player=p, meld=_names(m))))
    return out
