"""The live table as the referee side sees it: which physical card lies where, by seat.

A vision-independent copy of the tracker's stable table (:class:`tableref.vision.table_state.StableTable`,
made by :func:`tableref.live.session.state_from_stable`): each seat's melds in laying
order and its loose cards, and the centre zone, every card a :class:`PlacedCard`
(the tracker's id of the physical card and its label).
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PlacedCard:
    """One physical card on the table: tracker id + recognised label (``"10H"``)."""

    track_id: int
    card: str

    def to_json(self) -> dict:
        return {"track_id": self.track_id, "card": self.card}


@dataclass
class SeatCards:
    """The face-up cards in one seat's zone: melds in laying order, plus loose cards."""

    melds: list[list[PlacedCard]] = field(default_factory=list)
    loose: list[PlacedCard] = field(default_factory=list)

    @property
    def cards(self) -> list[PlacedCard]:
        return [c for m in self.melds for c in m] + list(self.loose)


@dataclass
class TableState:
    """A stable table: one :class:`SeatCards` per seat and the centre zone's cards."""

    seats: list[SeatCards]
    centre: list[PlacedCard] = field(default_factory=list)
    t: float = 0.0

    @classmethod
    def empty(cls, n_seats: int, t: float = 0.0) -> "TableState":
        return cls([SeatCards() for _ in range(n_seats)], [], t)

    @classmethod
    def from_labels(cls, seats: list[list[list[str]]], centre: list[str] = (), t: float = 0.0,
                    start_id: int = 1) -> "TableState":
        """Build a state from card labels only (ids are given by label, for tests and tools).

        ``seats[i]`` is a list of melds, each a list of labels in laying order.
        Cards of the same label get the same id each time (first copy ``label``, second
        ``label#2``...), so successive states built this way keep identities.
        """
        ids: dict[str, int] = {}

        def tc(label: str, seen: dict) -> PlacedCard:
            k = seen.get(label, 0) + 1
            seen[label] = k
            key = f"{label}#{k}"
            if key not in _LABEL_IDS:
                _LABEL_IDS[key] = len(_LABEL_IDS) + start_id
            ids[key] = _LABEL_IDS[key]
            return PlacedCard(_LABEL_IDS[key], label)

        seen: dict[str, int] = {}
        out = []
        for melds in seats:
            out.append(SeatCards([[tc(c, seen) for c in m] for m in melds]))
        cen = [tc(c, seen) for c in centre]
        return cls(out, cen, t)

    @property
    def n_seats(self) -> int:
        return len(self.seats)


_LABEL_IDS: dict[str, int] = {}


def relabel(state: TableState, labels: dict[int, str | None]) -> TableState:
    """``state`` with the cards of ``labels`` (track id -> label) relabelled; None drops the card."""
    if not labels:
        return state

    def fix(cards):
        out = []
        for c in cards:
            label = labels.get(c.track_id, c.card) if c.track_id in labels else c.card
            if label is not None:
                out.append(PlacedCard(c.track_id, label))
        return out

    seats = [SeatCards([m for m in (fix(m) for m in s.melds) if m], fix(s.loose)) for s in state.seats]
    return TableState(seats, fix(state.centre), state.t)
