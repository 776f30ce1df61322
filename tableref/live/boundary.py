"""Where one hand ends and the next begins: when the table counts as cleared, and when a cleared table's
cards are only the last hand's table seen again.

The live session (:mod:`tableref.live.session`, what ``tableref watch`` and ``tableref serve`` run)
applies these; docs/live.md ("Hands") states the rule.
"""
from __future__ import annotations

import math

#: the table is cleared when no face-up card has been seen for this long (seconds of frame time)
CLEAR_TABLE_SECONDS = 1.5
#: a picture this flat (a covered lens, a black frame; sharpness 0..1) shows nothing: it neither
#: counts as a cleared table nor lets one be cleared
BLANK_SHARPNESS = 0.02
#: a table cleared after a decided hand that shows at least this many of that hand's last cards again,
#: each where it lay (within this share of the card's size), and at least this share of them, is that
#: hand's table back (a blur, a hand over it), not a new deal: a new deal does not put the same cards
#: on the same spots (by label alone, two deals of a Marriage count share two thirds of their cards)
OLD_TABLE_CARDS = 6
OLD_TABLE_SHARE = 0.8
SAME_PLACE = 0.5


class ClearingClock:
    """How long the table has shown no face-up card, kept across the frames that were read."""

    def __init__(self, seconds: float = CLEAR_TABLE_SECONDS, min_confidence: float = 0.25):
        self.seconds = seconds
        self.min_confidence = min_confidence
        self.since: float | None = None      # frame time of the first frame of the clear run

    def cleared(self, obs) -> bool:
        """One read frame (a :class:`vision.types.FrameObservation`): whether the table has now been
        clear for :attr:`seconds`. A card seen (or read too unsure to name), a blank picture or time
        going back starts over."""
        t = float(obs.t)
        # an unsure reading this confident is a card too blurred to name, not an empty table
        seen = any(d.confidence >= self.min_confidence for d in (*obs.cards, *getattr(obs, "unsure", ())))
        if seen or float(obs.sharpness) < BLANK_SHARPNESS or (self.since is not None and t < self.since):
            self.since = None
            return False
        if self.since is None:
            self.since = t
        return t - self.since >= self.seconds - 1e-9


def card_places(table) -> list[tuple[str, tuple[float, float], float]]:
    """A stable table's read cards as (label, centre, size in pixels): what :func:`old_cards_back` compares."""
    return [(c.card, tuple(c.centre), min(c.box[2] - c.box[0], c.box[3] - c.box[1])) for c in table.cards if c.card]


def old_cards_back(old: list[tuple[str, tuple[float, float], float]], table) -> list[str]:
    """The labels of a decided hand's last cards (``old``, from :func:`card_places`) found again on
    ``table`` (a stable table), each where it lay, when there are enough of them to be that hand's
    table back; [] otherwise."""
    left = list(old)
    back = []
    for label, centre, _ in card_places(table):
        for i, (was, where, size) in enumerate(left):
            if was == label and math.dist(where, centre) <= SAME_PLACE * max(size, 1.0):
                back.append(label)
                del left[i]
                break
    if len(back) >= OLD_TABLE_CARDS and len(back) >= OLD_TABLE_SHARE * len(old):
        return sorted(back)
    return []
