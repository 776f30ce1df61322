"""The data that flows out of ``vision``: per-frame observations of physical cards.

These are the only types the table session (``tableref.live.session``) consumes from
vision. Coordinates are image pixels of the frame they came from.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class DetectedCard:
    """One physical card seen in one image.

    ``card`` is the canonical notation (``"10H"``, ``"AS"``); ``box`` is
    ``(x1, y1, x2, y2)`` covering the whole card where it can be inferred (else the
    visible index); ``quad`` the card's four corners ``[[x, y] * 4]`` (top-left,
    top-right, bottom-right, bottom-left of the card face as printed) or None;
    ``indices`` the boxes of the corner indices that support it. ``fresh`` is False when every
    reading behind it was kept from an earlier frame (a still picture, ``reuse_readings``): it
    repeats an earlier look rather than being a new one. ``wrong_ink`` is True when its index's ink
    says its suit's colour is wrong (a black 9C read 9D): the reading is unsure, and it tells that
    this card's suit is not legible there. ``overruled`` is True when it is one lone corner of a card
    lying apart whose other corner, read plainly, names another card (the top corner of a defocused
    9H read 5H 0.3, the bottom one 9H 0.8): the reading is unsure, and it is a misread.
    """

    card: str
    confidence: float
    box: tuple[float, float, float, float]
    quad: list[list[float]] | None = None
    indices: list[tuple[float, float, float, float]] = field(default_factory=list)
    fresh: bool = True
    wrong_ink: bool = False
    overruled: bool = False

    @property
    def centre(self) -> tuple[float, float]:
        if self.quad:
            xs = [p[0] for p in self.quad]
            ys = [p[1] for p in self.quad]
            return (sum(xs) / 4.0, sum(ys) / 4.0)
        x1, y1, x2, y2 = self.box
        return ((x1 + x2) / 2.0, (y1 + y2) / 2.0)

    def to_json(self) -> dict:
        return {
            "card": self.card,
            "confidence": round(float(self.confidence), 4),
            "box": [round(float(v), 1) for v in self.box],
            "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in self.quad] if self.quad else None,
        }


@dataclass
class FrameObservation:
    """All cards detected in one frame, with the frame's timestamp (seconds)."""

    t: float
    width: int
    height: int
    cards: list[DetectedCard]
    sharpness: float = 1.0          # relative focus measure; low = motion blur
    occluded: bool = False          # e.g. a hand/arm over the table detected
    # readings too unsure to be reported as cards (below the recogniser's card threshold): the
    # tracker takes them as weak evidence for cards it already follows, never as new cards
    unsure: list[DetectedCard] = field(default_factory=list)
    # False when the frame was too blurred to read at all: its empty ``cards`` say nothing of the table
    read: bool = True
    # the recogniser measured the picture soft (out of focus, ``recognition.images.is_soft``): with a
    # small picture, one whose fine print is lost (``vision.twins``)
    soft: bool = False
    # the picture's fine print is lost to its reading: measured soft, small (``vision.twins``), or, on a
    # table of several packs, read coarsely (the quick reading of a slow machine: the fast classifier)
    coarse: bool = False
