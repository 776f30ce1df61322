"""The stable table state that :class:`vision.tracking.TableTracker` publishes.

This is what the table session consumes from the live pipeline: per seat, the
melds (cards ordered left to right as seen from that seat) and loose cards; the
centre zone's cards (stock, discards, the Marriage tiplu); cards outside every
zone. Image coordinates are pixels of the frame; ``table_xy`` is the card centre
in table coordinates (see :mod:`vision.zones`).
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class TableCard:
    """One physical card as tracked over many frames."""

    track_id: int                    # stable while the card stays on the table
    card: str                        # voted label, canonical notation ("10H")
    confidence: float                # share of the (confidence-weighted) votes for ``card``, 0..1
    box: tuple[float, float, float, float]   # image pixels, smoothed
    centre: tuple[float, float]      # image pixels
    table_xy: tuple[float, float]    # table coordinates
    zone: str | None                 # "seat0".."seat4", "centre" or None (off every zone)
    quad: list[list[float]] | None = None
    partial: bool = False            # only a corner index was seen (box = index box)
    first_seen: float = 0.0          # frame time the card was first seen
    votes: int = 0                   # number of sharp frames that voted
    # an *unread* card (``card == ""``): its label is not decisive yet (vision.card_evidence); what
    # it might be, best first
    candidates: tuple[str, ...] = ()

    @property
    def unread(self) -> bool:
        return not self.card

    def to_json(self) -> dict:
        return {
            "id": self.track_id,
            "card": self.card,
            "confidence": round(float(self.confidence), 3),
            "box": [round(float(v), 1) for v in self.box],
            "table_xy": [round(float(v), 1) for v in self.table_xy],
            "zone": self.zone,
            **({"candidates": list(self.candidates)} if self.unread else {}),
        }


@dataclass
class Meld:
    """Cards lying together (overlapping or lined up), ordered left → right from the owner's seat."""

    cards: list[TableCard]

    @property
    def labels(self) -> list[str]:
        return [c.card for c in self.cards]

    @property
    def ids(self) -> list[int]:
        return [c.track_id for c in self.cards]

    def __len__(self) -> int:
        return len(self.cards)

    def to_json(self) -> dict:
        return {"cards": self.labels, "ids": self.ids}


@dataclass
class SeatState:
    seat: int
    zone: str                         # "seat0".."seat4"
    name: str
    melds: list[Meld] = field(default_factory=list)
    loose: list[TableCard] = field(default_factory=list)   # single cards not part of any meld

    @property
    def cards(self) -> list[TableCard]:
        return [c for m in self.melds for c in m.cards] + list(self.loose)

    def to_json(self) -> dict:
        return {
            "seat": self.seat,
            "name": self.name,
            "melds": [m.to_json() for m in self.melds],
            "loose": [c.card for c in self.loose],
            "loose_ids": [c.track_id for c in self.loose],
        }


@dataclass
class StableTable:
    """A table state that has not changed for ``stable_seconds``.

    ``t`` is the time of the frame that published it; ``since`` the time of the
    first frame showing this state (so ``t - since`` ≈ the stability delay);
    ``version`` counts published states; ``changed`` is True only on the frame
    where this version was first published.
    """

    t: float
    since: float
    version: int
    changed: bool
    seats: list[SeatState]
    centre: list[TableCard] = field(default_factory=list)
    outside: list[TableCard] = field(default_factory=list)

    @property
    def cards(self) -> list[TableCard]:
        out = [c for s in self.seats for c in s.cards]
        return out + list(self.centre) + list(self.outside)

    @property
    def unread(self) -> list[TableCard]:
        """The cards on the table whose label is not decided yet (shown to the host, never judged)."""
        return [c for c in self.cards if c.unread]

    def seat(self, index: int) -> SeatState:
        return self.seats[index]

    def to_json(self) -> dict:
        return {
            "t": round(self.t, 3),
            "since": round(self.since, 3),
            "version": self.version,
            "seats": [s.to_json() for s in self.seats],
            "centre": [c.card for c in self.centre],
            "centre_ids": [c.track_id for c in self.centre],
            "outside": [c.card for c in self.outside],
        }
