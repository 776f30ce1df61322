"""Where one hand ends and the next begins: when the table counts as cleared, and when a cleared table's
cards are only the last hand's table seen again.

The live session (:mod:`tableref.live.session`, what ``tableref watch`` and ``tableref serve`` run)
applies these; docs/live.md ("Hands") states the rule.
"""
from __future__ import annotations

from collections import Counter

#: the table is cleared when no face-up card has been seen for this long (seconds of frame time)
CLEAR_TABLE_SECONDS = 1.5
#: a picture this flat (a covered lens, a black frame; sharpness 0..1) shows nothing: it neither
#: counts as a cleared table nor lets one be cleared
BLANK_SHARPNESS = 0.02
#: a table cleared after a decided hand that shows at least this many of that hand's last cards again
#: (and at least this share of them) is that hand's table back (a blur, a hand over it), not a new deal
OLD_TABLE_CARDS = 6
OLD_TABLE_SHARE = 0.8


class ClearingClock:
    """How long the table has shown no face-up card, kept across the frames that were read."""

    def __init__(self, seconds: float = CLEAR_TABLE_SECONDS, min_confidence: float = 0.25):
        self.seconds = seconds
        self.min_confidence = min_confidence
        self.since: float | None = None      # frame time of the first frame of the clear run

    def cleared(self, obs) -> bool:
        """One read frame (a :class:`vision.types.FrameObservation`): whether the table has now been
        clear for :attr:`seconds`. A card seen, a blank picture or time going back starts over."""
        t = float(obs.t)
        seen = any(d.confidence >= self.min_confidence for d in obs.cards)
        if seen or float(obs.sharpness) < BLANK_SHARPNESS or (self.since is not None and t < self.since):
            self.since = None
            return False
        if self.since is None:
            self.since = t
        return t - self.since >= self.seconds - 1e-9


def old_cards_back(old: Counter, table) -> list[str]:
    """The labels of a decided hand's last cards (``old``) found again on ``table`` (a stable table),
    when there are enough of them to be that hand's table back; [] otherwise."""
    back = Counter(c.card for c in table.cards if c.card) & old
    n = sum(back.values())
    if n >= OLD_TABLE_CARDS and n >= OLD_TABLE_SHARE * sum(old.values()):
        return sorted(back.elements())
    return []
