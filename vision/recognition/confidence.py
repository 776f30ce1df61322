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
(``doubt_weak_corners``) a card whose corners each read it weakly (:func:`weak_corners`), or
(``doubt_ink``) a card whose ink says its suit's colour is wrong (``ink``: a club read as a
diamond where its index is printed plainly black), or (with ``doubt_contradicted``) a card read from
an index cut by the picture's edge that is not plainly sure (:func:`cut_by_edge`), or whose surest
index reads the other suit of its colour and rank nearly as surely (:func:`unsure_suit`: a soft ♣
read ♠), or two lone
corners of one card lying apart that name different cards (:func:`lone_corners_disagree`: the turned
corner of a KH read 7H), is
never reported as a card: those at least ``unsure_confidence`` sure are passed to the live tracker
as unsure readings (``FrameObservation.unsure``), weak evidence for a card it follows.
"""
from __future__ import annotations

import math

import numpy as np

from tableref.vision.assembly import layout_fits
from tableref.vision.recognition import ink
from tableref.vision.recognition.presets import RecognizerConfig
from tableref.vision.twins import TWIN_SURE, side_by_side
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


class FrameReadings:
    """The classifier's probabilities of each of a frame's index ``readings``
    (:class:`~vision.assembly.IndexReading`), by box, over the class ``names``."""

    def __init__(self, readings, names):
        self.names = list(names)
        self.index = {n: k for k, n in enumerate(self.names)}
        self._probs = {tuple(float(v) for v in r.box): r.probs for r in readings}

    def own(self, card: DetectedCard) -> list:
        """The probabilities of each of ``card``'s own indices; None where one is not among them."""
        return [self._probs.get(tuple(float(v) for v in b)) for b in card.indices]


def contradicted(cards: list[DetectedCard], frame: FrameReadings) -> set[int]:
    """``id()`` of the ``cards`` one of whose own corner indices (``frame``: the frame's readings,
    matched by box) reads another card more surely than it."""
    names, out = frame.names, set()
    for c in cards:
        k = frame.index.get(c.card)
        if k is None:
            continue
        for p in frame.own(c):
            if p is not None and names[int(p.argmax())] not in (c.card, "none") and p.max() > p[k]:
                out.add(id(c))
                break
    return out


# a card read from two or more of its corner indices whose own readings of its label average less
# than this is not reported: the assembly multiplies the corners' readings, and two weak readings
# that share one confusion (a cable across both corners of a QS, each read 8S 0.14 and 0.31 sure)
# make a card that seems sure (8S 0.46). On the real rank photos under every single-frame camera
# condition such cards averaged 0.20-0.32 and were all wrong; every card read right from two
# corners averaged 0.375 or more
WEAK_CORNERS = 0.35


def weak_corners(cards: list[DetectedCard], frame: FrameReadings) -> set[int]:
    """``id()`` of the ``cards`` read from at least two corner indices (``frame``: the frame's
    readings, matched by box) that read its label on average less than :data:`WEAK_CORNERS` on
    their own."""
    out = set()
    for c in cards:
        k = frame.index.get(c.card)
        own = frame.own(c)
        if k is None or len(own) < 2 or any(p is None for p in own):
            continue
        if sum(float(p[k]) for p in own) / len(own) < WEAK_CORNERS:
            out.add(id(c))
    return out


# a label read at two places of a one-pack frame is reported where it is read surest only when that
# reading leads the next by this factor: read about as surely at both (a soft fan: the 6S beside the
# KS read KS 0.571, the KS itself 0.574), the frame cannot tell which is the card, and neither is
READ_TWICE_LEAD = 1.05


def read_twice(cards: list[DetectedCard]) -> set[int]:
    """``id()`` of the ``cards`` whose label a surer card of the list has too (a one-pack table
    holds each card once: all but the surest reading of a label read at two places), and of the
    surest too where it does not lead the next by ``READ_TWICE_LEAD``."""
    by_label: dict[str, list[DetectedCard]] = {}
    for c in sorted(cards, key=lambda c: -c.confidence):
        by_label.setdefault(c.card, []).append(c)
    out = set()
    for same in by_label.values():
        if len(same) < 2:
            continue
        out.update(id(c) for c in same[1:])
        if same[0].confidence < READ_TWICE_LEAD * same[1].confidence:
            out.add(id(same[0]))
    return out


def unsure_twins(cards: list[DetectedCard], partners: list[DetectedCard] | None = None) -> set[int]:
    """``id()`` of the ``cards`` under :data:`twins.TWIN_SURE` that have a reading of their label
    beside them (``twins.side_by_side``), among ``cards`` and ``partners`` (readings too unsure to
    be cards: a twin read unsurely in this frame still lies there). For a table of several packs in
    a picture that lost its fine print (``vision.twins``)."""
    mine = {id(c) for c in cards}
    by_label: dict[str, list[DetectedCard]] = {}
    for c in list(cards) + [p for p in (partners or []) if id(p) not in mine]:
        if c.indices:
            by_label.setdefault(c.card, []).append(c)
    out = set()
    for same in by_label.values():
        for i, a in enumerate(same):
            for b in same[i + 1:]:
                if a.confidence >= TWIN_SURE and b.confidence >= TWIN_SURE:
                    continue
                if side_by_side(a.indices, b.indices):
                    out.update(id(c) for c in (a, b) if c.confidence < TWIN_SURE and id(c) in mine)
    return out


# a card whose surest own index gives the other suit of its colour and rank (♠ for ♣, ♥ for ♦) at least
# SUIT_UNSURE of its label's probability is not reported: ink cannot tell those apart, only the
# suit's shape, and a soft or small picture blurs it. On the real fanned deal's 720p frame read as a
# three-pack table, the 9C read 9S under defocus σ 1.5 px (9S 0.64, 9C 0.33) and at 640×360 (0.58,
# 0.33); of the cards read right in those frames and at σ 2 px, none gave its twin suit more than
# 0.44 of its label's probability (a JC 0.66 against 0.29)
SUIT_UNSURE = 0.5
_TWIN_SUIT = {"C": "S", "S": "C", "D": "H", "H": "D"}


def unsure_suit(cards: list[DetectedCard], frame: FrameReadings) -> set[int]:
    """``id()`` of the ``cards`` whose surest own index (``frame``: the frame's readings, matched by
    box) reads the same rank in the other suit of its colour at least :data:`SUIT_UNSURE` as surely
    as its label."""
    out = set()
    for c in cards:
        k, twin = frame.index.get(c.card), frame.index.get(c.card[:-1] + _TWIN_SUIT.get(c.card[-1:], ""))
        own = [p for p in frame.own(c) if p is not None]
        if k is None or twin is None or not own:
            continue
        best = max(own, key=lambda p: float(p[k]))
        if float(best[twin]) >= SUIT_UNSURE * float(best[k]):
            out.add(id(c))
    return out


# a card read from an index that the picture's edge cuts (its box within EDGE_PX of the border) is
# reported only this sure: part of the index is not in the picture (on the rank photos such readings
# were 0.2-0.51 sure and wrong, cards read right from an index at the edge 0.69 and more)
CUT_INDEX_CONFIDENCE = 0.6
EDGE_PX = 1.0


def cut_by_edge(cards: list[DetectedCard], image_size: tuple[int, int], min_confidence: float) -> set[int]:
    """``id()`` of the ``cards`` one of whose indices touches the edge of a picture ``image_size``
    (w, h) that are less than :data:`CUT_INDEX_CONFIDENCE` sure."""
    w, h = image_size
    out = set()
    for c in cards:
        if c.confidence >= max(CUT_INDEX_CONFIDENCE, min_confidence):
            continue
        if any(min(x1, y1, w - x2, h - y2) <= EDGE_PX for x1, y1, x2, y2 in c.indices):
            out.add(id(c))
    return out


# a lone corner read at least this sure is not doubted by a disagreeing corner opposite (on the rank
# photos, lone indices read 0.65 sure and more were all right; two cards lying apart that each show
# one index, read 0.74-0.86 sure, can lie as one card's corners do)
SURE_CORNER = 0.65
# the layouts whose printed corners lie at least this many index heights apart (centre to centre)
MIN_DIAGONAL = 2.5


def lone_corners_disagree(cards: list[DetectedCard], readings, geometry) -> tuple[set[int], set[int]]:
    """(doubted, overruled): ``id()`` of the one-index ``cards`` that are one of the two corners of a
    card lying apart whose corners name different cards, and are not plainly sure (under
    :data:`SURE_CORNER`); and of those whose other corner is (a misread: the top corner of a
    defocused 9H read 5H 0.3 while the bottom one reads 9H 0.8, look after look). Two lone
    indices are the corners of one card when each is the other's nearest index of about its size in
    the frame (``readings``: every index read, so an index of a fan or a meld always has a nearer
    neighbour) and they lie as a card's printed corners do (``geometry``'s layouts, as the assembly
    pairs corners). One of the two readings is wrong: those not plainly sure are doubted. (Two cards
    lying apart that each show one index can lie so too: a plainly sure reading is not doubted, and
    two are taken as two cards.)"""
    lone = [c for c in cards if len(c.indices) == 1 and c.quad is None]
    if len(lone) < 2 or geometry is None or not len(readings):
        return set(), set()
    # not the jumbo-index layouts: two cards' indices side by side lie as close as their corners
    layouts = [g for g in geometry.layouts() if math.hypot(*g.diag_vec) / g.index_size[1] >= MIN_DIAGONAL]
    boxes = np.array([c.indices[0] for c in lone], dtype=np.float64)
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2.0
    sizes = np.maximum((boxes[:, 2:] - boxes[:, :2]).max(axis=1), 1e-6)
    every = np.array([r.centre for r in readings], dtype=np.float64).reshape(-1, 2)
    every_size = np.array([r.size for r in readings], dtype=np.float64)
    # each lone index's nearest other index of the frame (itself: within half its size), of an
    # index's size beside it (not a speck)
    d_all = np.hypot(centres[:, None, 0] - every[None, :, 0], centres[:, None, 1] - every[None, :, 1])
    ratio = every_size[None, :] / sizes[:, None]
    tol = geometry.size_tolerance
    d_all[(d_all <= 0.5 * sizes[:, None]) | (ratio < 1.0 / tol) | (ratio > tol)] = np.inf
    nearest = d_all.min(axis=1)
    d = np.hypot(centres[:, None, 0] - centres[None, :, 0], centres[:, None, 1] - centres[None, :, 1])
    # the pairs that are each other's nearest (a tenth's slack for a second box on one index)
    ii, jj = np.nonzero(np.triu((d <= nearest[:, None] / 0.9) & (d <= nearest[None, :] / 0.9), k=1))
    out, overruled = set(), set()
    for i, j in zip(ii.tolist(), jj.tolist()):
        if lone[i].card == lone[j].card or min(lone[i].confidence, lone[j].confidence) >= SURE_CORNER:
            continue
        (vx, vy), bi, bj = centres[j] - centres[i], boxes[i], boxes[j]
        aspect = math.sqrt(max(bi[2] - bi[0], 1e-6) / max(bi[3] - bi[1], 1e-6)
                           * max(bj[2] - bj[0], 1e-6) / max(bj[3] - bj[1], 1e-6))
        cost, _theta, _w = layout_fits(layouts, np.array([vx]), np.array([vy]), sizes[i:i + 1],
                                       sizes[j:j + 1], np.array([aspect]))
        if np.isfinite(cost).any():
            for c, other in ((lone[i], lone[j]), (lone[j], lone[i])):
                if c.confidence < SURE_CORNER:
                    out.add(id(c))
                    if other.confidence >= SURE_CORNER:
                        overruled.add(id(c))
    return out, overruled


def wrong_ink(cards: list[DetectedCard], image, memo: dict | None = None) -> set[int]:
    """``id()`` of the ``cards`` whose index ink says their suit's colour is wrong (``ink.contradicts``;
    nothing in a picture without colour; ``memo``: the inks measured already, ``ink.measured``)."""
    if image is None or not cards or not ink.picture_has_colour(image, memo):
        return set()
    return {id(c) for c in cards if ink.contradicts(image, c.indices, c.card, memo)}


def split_cards(cards: list[DetectedCard], config: RecognizerConfig, repeated: set, readings=(),
                names: list[str] = (), image=None, geometry=None,
                ink_memo: dict | None = None, coarse: bool = False) -> tuple[list[DetectedCard], list[DetectedCard]]:
    """(reported, unsure): :func:`reported_cards` less the cards their own indices contradict
    (:func:`contradicted`; ``doubt_weak_corners``: :func:`weak_corners`; with the BGR ``image``, also
    a cut index: :func:`cut_by_edge`; with the deck's index ``geometry``, also two lone corners of one card: :func:`lone_corners_disagree`, the one whose other corner is plainly sure marked ``overruled``),
    those whose ink does (``doubt_ink``, with the BGR ``image``:
    :func:`wrong_ink`), with ``doubt_contradicted`` a suit read nearly as surely as its twin of the
    same colour (:func:`unsure_suit`), on a table of several packs (``several_packs``) in a ``coarse`` picture (soft or small: ``vision.twins``) a label
    read twice side by side unsurely (:func:`unsure_twins`) and, on a one-pack table (``one_pack``),
    the second readings of a label (:func:`read_twice`); :func:`unsure_cards` with those."""
    confident = [c for c in cards if c.confidence >= config.min_card_confidence]
    frame = FrameReadings(readings, names) if readings else None
    doubted = contradicted(cards, frame) if frame is not None and config.doubt_contradicted else set()
    if config.doubt_contradicted:
        if image is not None:
            doubted |= cut_by_edge(cards, (image.shape[1], image.shape[0]), config.min_card_confidence)
        if readings:
            # the opposite corner may be read too unsure to be a card itself (the turned corner of a
            # KH read 7H 0.53 sure, its upright corner KH 0.33): it still names another card
            lone_doubted, overruled = lone_corners_disagree(
                [c for c in cards if c.confidence >= config.unsure_confidence], readings, geometry)
            doubted |= lone_doubted
            for c in cards:
                c.overruled = id(c) in overruled
    if config.doubt_weak_corners and frame is not None:
        doubted |= weak_corners(confident, frame)
    if config.doubt_contradicted and frame is not None:
        doubted |= unsure_suit(confident, frame)
    if config.doubt_ink:
        inked = wrong_ink(confident, image, ink_memo)
        for c in confident:
            c.wrong_ink = id(c) in inked
        doubted |= inked
    if config.several_packs and coarse:
        doubted |= unsure_twins(confident, [c for c in cards if c.confidence >= config.unsure_confidence])
    sure = [c for c in confident if id(c) not in doubted]
    if config.one_pack:
        doubted |= read_twice(sure)
        sure = [c for c in sure if id(c) not in doubted]
    unsure = [c for c in cards if c.confidence >= config.unsure_confidence
              and (c.confidence < config.min_card_confidence or id(c) in doubted)]
    return _marked(sure, repeated), _marked(unsure, repeated)
