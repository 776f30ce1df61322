"""Which cards a frame reports: where a reading's confidence becomes a verdict.

A card's confidence is made in three steps: the classifier's probabilities for each of its
indices, steadied by the extra looks (``looks``); the assembly (``vision.assembly.assemble``),
which weighs them with the detector's scores (``det_score_power``) into one confidence per
physical card; and :func:`split_cards` here, which reports the cards at least
``min_card_confidence`` sure whose own corner indices do not contradict them, and marks those that
only repeat an earlier frame's look. A card read less sure, or (``doubt_contradicted``: a camera's
frames, not a photo) contradicted by one of its own
indices (the card is read 7H from a pair of corners, one of which reads KH better than 7H), or
(``one_pack``: a one-pack table) a label read surer at another place of the frame, or
(``doubt_ink``) a card whose ink says its suit's colour is wrong (``ink``: a club read as a
diamond where its index is printed plainly black), is
never reported as a card: those at least ``unsure_confidence`` sure are passed to the live tracker
as unsure readings (``FrameObservation.unsure``), weak evidence for a card it follows.
"""
from __future__ import annotations

from tableref.vision.recognition import ink
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


def contradicted(cards: list[DetectedCard], readings, names: list[str]) -> set[int]:
    """``id()`` of the ``cards`` one of whose own corner indices (``readings``: the frame's
    :class:`~vision.assembly.IndexReading`, matched by box) reads another card more surely than it."""
    probs = {tuple(float(v) for v in r.box): r.probs for r in readings}
    index = {n: k for k, n in enumerate(names)}
    out = set()
    for c in cards:
        k = index.get(c.card)
        if k is None:
            continue
        for b in c.indices:
            p = probs.get(tuple(float(v) for v in b))
            if p is not None and names[int(p.argmax())] not in (c.card, "none") and p.max() > p[k]:
                out.add(id(c))
                break
    return out


def read_twice(cards: list[DetectedCard]) -> set[int]:
    """``id()`` of the ``cards`` whose label a surer card of the list has too (a one-pack table
    holds each card once: all but the surest reading of a label read at two places)."""
    seen, out = set(), set()
    for c in sorted(cards, key=lambda c: -c.confidence):
        if c.card in seen:
            out.add(id(c))
        seen.add(c.card)
    return out


def wrong_ink(cards: list[DetectedCard], image) -> set[int]:
    """``id()`` of the ``cards`` whose index ink says their suit's colour is wrong (``ink.contradicts``;
    nothing in a picture without colour)."""
    if image is None or not cards or not ink.has_colour(image):
        return set()
    return {id(c) for c in cards if ink.contradicts(image, c.indices, c.card)}


def split_cards(cards: list[DetectedCard], config: RecognizerConfig, repeated: set, readings=(),
                names: list[str] = (), image=None) -> tuple[list[DetectedCard], list[DetectedCard]]:
    """(reported, unsure): :func:`reported_cards` less the cards their own indices contradict
    (:func:`contradicted`), those whose ink does (``doubt_ink``, with the BGR ``image``:
    :func:`wrong_ink`) and, on a one-pack table (``one_pack``), the second readings of a label
    (:func:`read_twice`); :func:`unsure_cards` with those."""
    doubted = contradicted(cards, readings, list(names)) if readings and config.doubt_contradicted else set()
    if config.doubt_ink:
        doubted |= wrong_ink([c for c in cards if c.confidence >= config.min_card_confidence], image)
    sure = [c for c in cards if c.confidence >= config.min_card_confidence and id(c) not in doubted]
    if config.one_pack:
        doubted |= read_twice(sure)
        sure = [c for c in sure if id(c) not in doubted]
    unsure = [c for c in cards if c.confidence >= config.unsure_confidence
              and (c.confidence < config.min_card_confidence or id(c) in doubted)]
    return _marked(sure, repeated), _marked(unsure, repeated)
