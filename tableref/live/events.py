"""Game events from changes of the *stable* table state.

The vision tracker reports, whenever the table has been still for a moment, which
physical cards lie in which seat zone, grouped into melds in the order the owner
laid them, plus the cards in the centre zone. This module holds that state in a
small, vision-independent form (:class:`TableState`) and turns the difference
between two successive states into descriptive events:

``meld_laid``     a new meld appeared in a seat zone
``card_added``    a card from outside the table joined an existing meld
``card_moved``    a card moved between two melds of the same seat (a desmoche move)
``card_taken``    a card left one seat's melds and appeared in another seat's
``card_removed``  a card left the table (or the seat) altogether
``meld_changed``  fallback when the order of a meld changed without new cards
``centre_changed`` the face-up cards of the centre zone changed

Judging (valid? illegal? winner?) is not done here but by the referee; see
:mod:`tableref.live.desmoche` and :mod:`tableref.live.marriage`.

Identity of a physical card: its ``track_id`` from the tracker. Where a card's
track was lost and found again under a new id, a card of the same label that
vanished from the same seat is taken to be the same card (Desmoche uses one pack,
so labels are unique; in Marriage the label fallback only pairs one vanished copy
with one new copy).
"""
from __future__ import annotations

from tableref.live.state import PlacedCard, SeatCards, TableState


def make_event(event_type: str, t: float, text: str, /, *, seat: int | None = None, player: str | None = None,
               cards=(), **fields) -> dict:
    """One event as the session publishes it; every event is built here.

    ``type``, ``t`` (media seconds), ``seat`` and ``player`` (None for the
    table), ``cards`` (labels; placed cards also give their ``track_ids``), a readable
    English ``text``, and the structured ``fields`` a page needs to say it in another
    language (e.g. ``meld``, ``reason``, ``status``).
    """
    cards = list(cards)
    e = {"type": event_type, "t": round(float(t), 2), "seat": seat, "player": player,
         "cards": [c.card if isinstance(c, PlacedCard) else c for c in cards], "text": text}
    if cards and isinstance(cards[0], PlacedCard):
        e["track_ids"] = [c.track_id for c in cards]
    e.update(fields)
    return e


def _locate(state: TableState) -> dict[int, tuple[int, int, int]]:
    """track_id -> (seat, meld index or -1 for loose, position)."""
    where: dict[int, tuple[int, int, int]] = {}
    for s, seat in enumerate(state.seats):
        for m, meld in enumerate(seat.melds):
            for p, c in enumerate(meld):
                where[c.track_id] = (s, m, p)
        for p, c in enumerate(seat.loose):
            where[c.track_id] = (s, -1, p)
    return where


def _relink(old: TableState, new: TableState) -> dict[int, int]:
    """Map new track ids that are unknown in ``old`` to vanished old ids of the same label/seat."""
    old_where, new_where = _locate(old), _locate(new)
    old_cards = {c.track_id: c for s in old.seats for c in s.cards}
    new_cards = {c.track_id: c for s in new.seats for c in s.cards}
    vanished: dict[tuple[int, str], list[int]] = {}
    for tid, c in old_cards.items():
        if tid not in new_cards:
            vanished.setdefault((old_where[tid][0], c.card), []).append(tid)
    mapping = {}
    for tid, c in new_cards.items():
        if tid in old_cards:
            continue
        key = (new_where[tid][0], c.card)
        if vanished.get(key):
            mapping[tid] = vanished[key].pop(0)
    return mapping


def _canon(state: TableState, mapping: dict[int, int]) -> TableState:
    if not mapping:
        return state

    def f(c: PlacedCard) -> PlacedCard:
        return PlacedCard(mapping.get(c.track_id, c.track_id), c.card)

    seats = [SeatCards([[f(c) for c in m] for m in s.melds], [f(c) for c in s.loose]) for s in state.seats]
    return TableState(seats, [f(c) for c in state.centre], state.t)


def diff_states(old: TableState, new: TableState, players: list[str] | None = None) -> list[dict]:
    """Descriptive events for the change ``old`` → ``new`` (both stable states).

    Each event is a dict with ``type``, ``seat``, ``player``, ``cards`` (labels),
    ``track_ids`` and a human-readable ``text``; the ``t`` of ``new`` is attached.
    """
    players = players or [f"Seat {i + 1}" for i in range(new.n_seats)]

    def name(s: int) -> str:
        return players[s] if s < len(players) else f"Seat {s + 1}"

    new = _canon(new, _relink(old, new))
    old_where, new_where = _locate(old), _locate(new)
    old_label = {c.track_id: c.card for s in old.seats for c in s.cards}
    old_label.update({c.track_id: c.card for c in old.centre})
    events: list[dict] = []

    def ev(kind: str, seat: int, cards: list[PlacedCard], text: str, **fields) -> None:
        if fields.get("meld") is not None:  # the meld's cards, for texts built elsewhere (translations)
            fields["meld_cards"] = [c.card for c in new.seats[seat].melds[fields["meld"]]]
        events.append(make_event(kind, new.t, text, seat=seat, player=name(seat), cards=cards, **fields))

    for s, seat in enumerate(new.seats):
        old_seat = old.seats[s] if s < len(old.seats) else SeatCards()
        # match each new meld to the old meld of this seat it shares most cards with
        used_old: set[int] = set()
        matches: dict[int, int | None] = {}
        for m, meld in enumerate(seat.melds):
            counts: dict[int, int] = {}
            for c in meld:
                w = old_where.get(c.track_id)
                if w and w[0] == s and w[1] >= 0:
                    counts[w[1]] = counts.get(w[1], 0) + 1
            best = None
            for om, k in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
                if om not in used_old:
                    best = om
                    break
            matches[m] = best
            if best is not None:
                used_old.add(best)
        for m, meld in enumerate(seat.melds):
            om = matches[m]
            fresh, moved, taken = [], [], []
            for c in meld:
                w = old_where.get(c.track_id)
                if w is None:
                    if any(oc.track_id == c.track_id for oc in old.centre):
                        taken.append((c, None))
                    else:
                        fresh.append(c)
                elif w[0] != s:
                    taken.append((c, w[0]))
                elif w[1] != om:
                    moved.append((c, w[1]))
            labels = [c.card for c in meld]
            if om is None:
                ev("meld_laid", s, meld, f"{name(s)} laid {' '.join(labels)}", meld=m)
            else:
                for c in fresh:
                    ev("card_added", s, [c], f"{name(s)} added {c.card} to {' '.join(labels)}", meld=m,
                       position=labels.index(c.card))
                if not fresh and not moved and not taken:
                    old_ids = [c.track_id for c in old_seat.melds[om]]
                    kept = [c.track_id for c in meld]
                    if [i for i in old_ids if i in kept] != [i for i in kept if i in old_ids]:
                        ev("meld_changed", s, meld, f"{name(s)} rearranged a meld: now {' '.join(labels)}",
                           meld=m)
            for c, from_meld in moved:
                src = ("loose cards" if from_meld == -1 else
                       " ".join(x.card for x in old_seat.melds[from_meld]))
                ev("card_moved", s, [c], f"{name(s)} moved {c.card} from {src} to {' '.join(labels)}",
                   meld=m, from_meld=from_meld,
                   from_cards=[] if from_meld == -1 else [x.card for x in old_seat.melds[from_meld]])
            for c, from_seat in taken:
                if from_seat is None:
                    ev("card_added", s, [c], f"{name(s)} took {c.card} from the centre into {' '.join(labels)}",
                       meld=m, from_centre=True)
                else:
                    ev("card_taken", s, [c], f"{name(s)} took {c.card} from {name(from_seat)}'s cards",
                       meld=m, from_seat=from_seat, from_player=name(from_seat))
        for c in seat.loose:
            w = old_where.get(c.track_id)
            if w is None:
                ev("card_loose", s, [c], f"{name(s)} put {c.card} on the table (not part of a meld)")
        # cards that left this seat
        for c in old_seat.cards:
            w = new_where.get(c.track_id)
            if w is None:
                in_centre = any(nc.track_id == c.track_id for nc in new.centre)
                where = "to the centre" if in_centre else "off the table"
                ev("card_removed", s, [c], f"{name(s)}'s {c.card} was taken {where}",
                   to_centre=in_centre)
    old_centre = [c.card for c in old.centre]
    new_centre = [c.card for c in new.centre]
    if sorted(old_centre) != sorted(new_centre):
        events.append(make_event("centre_changed", new.t,
                                 "centre: " + (" ".join(new_centre) if new_centre else "no face-up cards"),
                                 cards=new.centre, track_ids=[c.track_id for c in new.centre]))
    return events
