"""Identical labels side by side: when a reading of one is doubted.

Three packs (Marriage) hold identical cards, so a label read at two places contradicts nothing (on
one pack, Desmoche, it sets both cards aside, the right one with the misread one).
But in a picture whose fine print is lost (a camera out of focus, or one giving pictures under 720
lines), a half-covered index beside a court card's picture is read as that card: the real fanned
deal's 6S, half covered by the AS and lying beside the big spade of the KS, is read KS 0.11-0.63 in
every defocused 720p frame and 0.35-0.63 in a 640×360 camera's frames, never 6S, while the KS itself
reads 0.46-0.79. So there a reading under :data:`TWIN_SURE` of a label that lies beside it (index
centres within :data:`TWIN_NEAR` widths of the smaller index) is doubted: the recogniser of
several packs doubts it in a frame where both are read (``recognition.confidence.unsure_twins``; on
one pack the second reading of a label is doubted anyway), and the live table's tracker, on either
table, in every look at a card beside a card it follows under that label (the twin is not read in
every frame: the KS read KC for a moment let the 6S's KS through), and, where none lies beside it,
at a card reading the label of one it follows anywhere else on the table (the surest): a soft or
small picture's steady misreads name cards that lie elsewhere too (a 640×360 camera's clean feed of
the fanned deal read the 9C's index 9S 0.4-0.66 look after look, the real 9S 0.7-0.88 elsewhere).
Such a card counts once three of its looks were at least :data:`TWIN_SURE`
(``card_evidence.TWIN_LOOKS``) and they weigh a third of the twin's own such looks at least
(``card_evidence.TWIN_SHARE``): two copies of a card are read alike. Identical cards side by side in
a sharp, large picture may be read as unsurely (two 10S of a rendered Marriage count 0.28 and 0.55):
they are left alone there.
"""
from __future__ import annotations

import math

TWIN_SURE = 0.65       # a reading this sure stands beside a twin
TWIN_NEAR = 2.5        # index centres within this many widths of the smaller index are side by side
# a camera whose pictures are smaller than this (their shorter side, pixels) loses an index's fine
# print: its indices are about 17 px high in a 640×360 picture of a table that fills it (the live
# session also says so in the camera status)
SMALL_PICTURE_SIDE = 720


def small_picture(width: int, height: int) -> bool:
    """Whether a ``width`` × ``height`` picture is smaller than :data:`SMALL_PICTURE_SIDE` on its shorter side."""
    return min(width, height) < SMALL_PICTURE_SIDE


def side_by_side(a_indices, b_indices) -> bool:
    """Whether an index box of ``a_indices`` and one of ``b_indices`` (``(x1, y1, x2, y2)`` each) lie
    side by side: centres within :data:`TWIN_NEAR` widths of the smaller of the two."""
    for p in a_indices:
        for q in b_indices:
            width = max(1.0, min(p[2] - p[0], p[3] - p[1], q[2] - q[0], q[3] - q[1]))
            d = math.hypot((p[0] + p[2] - q[0] - q[2]) / 2, (p[1] + p[3] - q[1] - q[3]) / 2)
            if d <= TWIN_NEAR * width:
                return True
    return False
