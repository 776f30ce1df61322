"""Which cards a frame reports: where a reading's confidence becomes a verdict.

A card's confidence is made in three steps: the classifier's probabilities for each of its
indices, steadied by the extra looks (``looks``); the assembly (``vision.assembly.assemble``),
which weighs them with the detector's scores (``det_score_power``) into one confidence per
physical card; and :func:`reported_cards` here, which keeps the cards at least
``min_card_confidence`` sure and marks those that only repeat an earlier frame's look. A card
read less sure is never reported as a card: :func:`unsure_cards` passes those at least
``unsure_confidence`` sure to the live tracker as weak evidence (``FrameObservation.unsure``).
"""
from __future__ import annotations

from tableref.vision.recognition.presets import RecognizerConfig
from tableref.vision.types import DetectedCard


def reported_cards(cards: list[DetectedCard], config: RecognizerConfig, repeated: set) -> list[DetectedCard]:
    """The ``cards`` a frame reports, most confident first. ``repeated``: the index boxes whose
    readings were kept from an earlier frame (``reuse_readings``); a card all of whose readings
    were kept is not a fresh look (``DetectedCard.fresh``)."""
    return _marked([c for c in cards if c.confidence >= config.min_card_confidence], repeated)


def _marked(cards: list[DetectedCard], repeated: set) -> list[DetectedCard]:
    """``cards`` most confident first, those whose readings were all kept marked not fresh."""
    if repeated:
        for c in cards:
            c.fresh = not (c.indices and all(tuple(float(v) for v in b) in repeated for b in c.indices))
    cards.sort(key=lambda c: -c.confidence)
    return cards


def unsure_cards(cards: list[DetectedCard], config: RecognizerConfig, repeated: set) -> list[DetectedCard]:
    """The ``cards`` read too unsure to be reported (``unsure_confidence`` up to
    ``min_card_confidence``), most confident first, marked as :func:`reported_cards` marks its own."""
    return _marked([c for c in cards if config.unsure_confidence <= c.confidence < config.min_card_confidence],
                   repeated)
