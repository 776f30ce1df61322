"""Synthetic observations: what a perfect recogniser would report for a simulated hand.

:func:`script_observations` turns a bot script into a sequence of
:class:`vision.types.FrameObservation` with the exact card positions the
renderer uses (camera untilted), including frames where the acting player's
hand hides their cards. It lets tests and the evaluation separate tracking and
refereeing from recognition: the same script through the real tracker and the
session must give the truth exactly.
"""
from __future__ import annotations

import numpy as np

from tableref.vision.types import DetectedCard, FrameObservation

from tableref.simulate.render import FPS, FRAME_SIZE, StickyPlacer, TableLayout, _card_corners


def script_observations(script, fps: float = FPS, hold: int | None = None, hidden: int | None = None,
                        size=FRAME_SIZE, noise: float = 0.0, seed: int = 0):
    """Yield FrameObservations for ``script`` (see the module docstring).

    ``noise`` > 0 imitates an imperfect recogniser: each card is missed with
    probability ``noise``, misread (a random other label, low confidence) with
    probability ``noise / 3``, and its box jitters by a few pixels.
    """
    import random as _random

    from tableref.simulate.render import RenderOptions

    o = RenderOptions()
    hidden = o.reach_frames + o.place_frames + o.leave_frames if hidden is None else hidden
    rnd = _random.Random(seed)
    labels_all = [r + s for s in "CDHS" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]

    def noisy(cards):
        if noise <= 0:
            return list(cards)
        out = []
        for d in cards:
            if rnd.random() < noise:
                continue
            j = np.array([rnd.gauss(0, 2.0), rnd.gauss(0, 2.0)])
            q = np.array(d.quad) + j
            lab, conf = d.card, 0.9
            if rnd.random() < noise / 3:
                lab, conf = rnd.choice(labels_all), 0.4
            nd = _det(lab, q)
            nd.confidence = conf
            out.append(nd)
        return out
    n = len(script.players)
    card_h = 104.0
    if script.game == "marriage":
        card_h = {2: 92.0, 3: 84.0, 4: 78.0, 5: 70.0}.get(n, 78.0)
    layout = TableLayout(n, size, card_h, 0.34, max_rows=4 if script.game == "marriage" else 3)
    placer = StickyPlacer(layout)
    W, H = size
    k = 0
    prev_cards: list[DetectedCard] = []
    prev_seat_of: list[int | None] = []
    nk = len(script.keyframes)
    for ki, kf in enumerate(script.keyframes):
        placed = placer.place(kf.table)
        if hold is not None:
            n_hold = hold
        else:
            n_hold = o.first_hold_frames if ki == 0 else (o.last_hold_frames if ki == nk - 1 else o.hold_frames)
        cards, seat_of = [], []
        for s, melds in enumerate(placed):
            for m, row in enumerate(melds):
                for i, (c, up, right) in enumerate(row):
                    q = _card_corners(c, up, right, layout.card_w, layout.card_h)
                    cards.append(_det(kf.table[s][m][i], q))
                    seat_of.append(s)
        c0 = layout.centre
        for i, lab in enumerate(kf.centre):
            pos = c0 + np.array([layout.card_w * 0.75 + i * layout.card_w * 1.15, 0.0])
            q = _card_corners(pos, np.array([0.0, -1.0]), np.array([1.0, 0.0]), layout.card_w, layout.card_h)
            cards.append(_det(lab, q))
            seat_of.append(None)
        if kf.actor is not None and k > 0:
            for _ in range(hidden):     # the hand covers the actor's cards
                vis = [d for d, s in zip(prev_cards, prev_seat_of) if s != kf.actor]
                yield FrameObservation(k / fps, W, H, noisy(vis), 1.0, False)
                k += 1
        for _ in range(n_hold):
            yield FrameObservation(k / fps, W, H, noisy(cards), 1.0, False)
            k += 1
        prev_cards, prev_seat_of = cards, seat_of


def _det(label: str, quad: np.ndarray) -> DetectedCard:
    x1, y1 = quad.min(axis=0)
    x2, y2 = quad.max(axis=0)
    return DetectedCard(label, 0.95, (float(x1), float(y1), float(x2), float(y2)),
                        [[float(x), float(y)] for x, y in quad])
