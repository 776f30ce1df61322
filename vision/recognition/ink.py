"""The colour of an index's ink, measured against its card's paper: red, black, or not told.

Hearts and diamonds are printed in red, spades and clubs in black (a four-colour deck prints
diamonds blue and clubs green). The classifier reads suits by shape, so that a dim, warm or
colourless picture is still read; a soft picture then confuses ♣ with ♦ where the ink plainly says
black. This module says what the ink says, and only where it says it plainly:

* each pixel's **absorption** is how much of the paper's light it takes, per channel
  (``(paper - pixel) / paper``, the paper being the box's brightest pixels): a ratio, so a dim,
  warm or tinted light changes nothing, and blur only mixes ink with paper, which keeps the
  ratio between channels;
* black (or navy, or grey) ink takes the three channels alike; red ink takes green and blue, not
  red; blue and green inks are coloured too, never neutral;
* an index box reads **black** when its ink, weighted to its darkest pixels, takes the three
  channels within ``NEUTRAL_SPREAD`` of each other and hardly any of its pixels is red
  (``NEUTRAL_RED_SHARE``) or pale red (``NEUTRAL_TINT``: a pink print); **red** when its ink takes
  red less than ``RED_RATIO`` of green and blue and most of its ink pixels are red (``RED_SHARE``);
  else (faint, mixed: a neighbour's glyph in the box) it tells nothing.

Measured on the real pictures read as camera frames under the nine conditions of
``scripts/bench_camera.py --only frames``: of the fanned deal's readings it holds back both 9C
read 9D and no right card; of the 296 rank photos', 23: 6 of a wrong rank (printed text, a dark
patch) and 17 of the right rank whose indices, looked at, are spades or clubs read as diamonds
(the photos label ranks only). A picture without colour (a grey-scale camera) tells nothing
(:func:`has_colour`).
"""
from __future__ import annotations

import cv2
import numpy as np

RED_SUITS = frozenset("HD")

PAPER_PERCENTILE = 85       # the box's pixels at least this bright (by percentile) are its paper
INK_DARKNESS = 0.2          # a pixel taking this much of the paper's light (mean of the channels) is ink
MIN_INK_PIXELS = 6
MIN_DARKEST = 0.12          # a box whose darkest pixel takes less than this holds no ink to speak of
RED_PIXEL = 0.7             # an ink pixel is red when it takes red less than this share of green and blue
NEUTRAL_SPREAD = 1.10       # black ink: the channels' absorptions within this factor of each other ...
NEUTRAL_RED_SHARE = 0.05    # ... and at most this share of its ink pixels red ...
TINT = 0.1                  # (a pixel taking this much green and blue, and less red, is tinted red: pale ink)
NEUTRAL_TINT = 0.5          # ... and fewer pixels tinted red than this share of its ink pixels
RED_RATIO = 0.5             # red ink: red absorbed less than this share of green and blue ...
RED_SHARE = 0.6             # ... and at least this share of its ink pixels red
COLOUR_SIDE = 160           # has_colour looks at about this many pixels across
COLOUR_CHROMA = 24          # a pixel whose channels differ by this much is coloured ...
COLOUR_SHARE = 0.002        # ... and a picture with this share of such pixels has colour
STEER_SHARE = 0.03          # steer: a reading is measured when the other colour holds this share of it ...
STEER_TOP = 0.3             # ... and its top card is at least this likely

BLACK, RED = "black", "red"


def has_colour(image: np.ndarray) -> bool:
    """Whether a BGR picture has colour at all (a grey-scale camera's has none: its ink tells nothing)."""
    h, w = image.shape[:2]
    step = max(1, max(h, w) // COLOUR_SIDE)
    px = np.ascontiguousarray(image[::step, ::step])
    b, g, r = px[:, :, 0], px[:, :, 1], px[:, :, 2]
    # each pixel's largest channel less its smallest (as px.max(axis=2) - px.min(axis=2), far faster)
    chroma = cv2.subtract(cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r))
    return float(np.count_nonzero(chroma >= COLOUR_CHROMA)) >= COLOUR_SHARE * chroma.size


def picture_has_colour(image: np.ndarray, memo: dict | None = None) -> bool:
    """:func:`has_colour`, kept in ``memo`` (the dict of one picture's inks, :func:`measured`) when given."""
    if memo is None:
        return has_colour(image)
    if _HAS_COLOUR not in memo:
        memo[_HAS_COLOUR] = has_colour(image)
    return memo[_HAS_COLOUR]


_HAS_COLOUR = "has colour"      # the key of has_colour's answer in a picture's memo (boxes are tuples)


def ink_colour(image: np.ndarray, box) -> str | None:
    """``"black"``, ``"red"`` or None (not told) for the ink in ``box`` (x1, y1, x2, y2, pixels of
    the BGR ``image``)."""
    h, w = image.shape[:2]
    x1, y1 = max(0, int(box[0] + 0.5)), max(0, int(box[1] + 0.5))
    x2, y2 = min(w, int(box[2] + 0.5)), min(h, int(box[3] + 0.5))
    if x2 - x1 < 3 or y2 - y1 < 3:
        return None
    px = image[y1:y2, x1:x2].reshape(-1, 3).astype(np.float32)
    lum = px.sum(axis=1)
    k = (len(lum) * PAPER_PERCENTILE) // 100
    paper = px[lum >= np.partition(lum, k)[k]].mean(axis=0) + 1.0
    absorbed = 1.0 - px / paper                      # B, G, R: the share of the paper's light taken
    dark = absorbed.sum(axis=1) / 3
    ink = dark > INK_DARKNESS
    n_ink = int(np.count_nonzero(ink))
    if n_ink < MIN_INK_PIXELS or dark.max() < MIN_DARKEST:
        return None
    weight = np.maximum(dark, 0.0) ** 2
    taken = weight @ absorbed / weight.sum()          # B, G, R, weighted to the darkest pixels
    green_blue = (absorbed[:, 0] + absorbed[:, 1]) * 0.5
    reddish = absorbed[:, 2] < RED_PIXEL * green_blue
    red_share = np.count_nonzero(reddish & ink) / n_ink
    tinted = np.count_nonzero(reddish & (green_blue > TINT))
    if taken.min() > 0 and taken.max() / taken.min() < NEUTRAL_SPREAD and red_share <= NEUTRAL_RED_SHARE \
            and tinted < NEUTRAL_TINT * n_ink:
        return BLACK
    if taken[2] < RED_RATIO * (taken[0] + taken[1]) / 2 and red_share >= RED_SHARE:
        return RED
    return None


def measured(image: np.ndarray, box, memo: dict | None = None) -> str | None:
    """:func:`ink_colour`, kept in ``memo`` (a dict for one picture: box -> colour) when given."""
    if memo is None:
        return ink_colour(image, box)
    key = tuple(float(v) for v in box)
    if key not in memo:
        memo[key] = ink_colour(image, box)
    return memo[key]


def contradicts(image: np.ndarray, boxes, card: str, memo: dict | None = None) -> bool:
    """Whether the ink of a card's index ``boxes`` says its suit's colour is wrong: a heart or diamond
    whose indices read black and none red, a spade or club whose indices read red and none black
    (``memo``: see :func:`measured`)."""
    if not card or not boxes:
        return False
    colours = {measured(image, b, memo) for b in boxes}
    mine, other = (RED, BLACK) if card[-1] in RED_SUITS else (BLACK, RED)
    return other in colours and mine not in colours


def suit_colours(names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Masks over ``names`` (the classifier's labels): the red cards' and the black cards' columns
    (``none`` and anything without a suit in neither)."""
    red = np.array([bool(n) and n != "none" and n[-1] in RED_SUITS for n in names])
    black = np.array([bool(n) and n != "none" and n[-1] in "SC" for n in names])
    return red, black


def steer(image: np.ndarray, boxes, probs: np.ndarray, names: list[str], memo: dict | None = None) -> np.ndarray:
    """The classifier's ``probs`` (one row a box of ``boxes``) with what the ink plainly says, where
    it confirms the classifier's own reading: where the top card of a row, at least
    :data:`STEER_TOP` likely, has the colour the index's ink reads, the other colour's share goes to
    the cards of that colour, so that a 9C whose soft ♣ the classifier half takes for a ♦ is read
    9C surely. A reading the ink contradicts is left as it is (its card is doubted:
    :func:`contradicts`), and so is a shrug (printed text, a pattern): the ink does not pick a card
    the classifier did not. The chance of ``none`` is kept; only rows where the other colour holds
    at least :data:`STEER_SHARE` of the cards' share are measured; a picture without colour, or an
    ink not told, changes nothing. A new array where anything changed (``memo``: see :func:`measured`)."""
    if probs is None or len(probs) == 0 or image is None or not picture_has_colour(image, memo):
        return probs
    red, black = suit_colours(list(names))
    cards = red | black
    mass = probs[:, cards].sum(axis=1)
    r_share = probs[:, red].sum(axis=1) / np.maximum(mass, 1e-9)
    top = probs.argmax(axis=1)
    top_p = probs[np.arange(len(probs)), top]
    mixed = np.flatnonzero((np.minimum(r_share, 1.0 - r_share) >= STEER_SHARE) & (mass > 0) & cards[top]
                           & (top_p >= STEER_TOP))
    if len(mixed) == 0:
        return probs
    out = probs.copy()
    for k in mixed.tolist():
        colour = measured(image, boxes[k], memo)
        if colour is None:
            continue
        keep = black if colour == BLACK else red
        if not keep[top[k]]:
            continue            # the ink contradicts the reading: left to ``contradicts``
        row = out[k]
        kept = row[keep].sum()
        if kept <= 0:
            continue
        row[keep] *= mass[k] / kept
        row[cards & ~keep] = 0.0
    return out
