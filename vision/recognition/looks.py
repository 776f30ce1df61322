"""The classifier's extra looks at an index (pure): turned, from a tighter box, from a rival box.

A crop read once may be unsure. These functions read it again and average the readings
(geometric mean); they are given ``read`` (converted crops -> probabilities, the classifier) and
``cut`` (boxes -> crops of this frame), so they hold no state. What a look costs and when it is
taken is set by the preset (``tta_max_crops``, ``tta_uncertain``, ``vote_turns``, ``tight_reread``,
``tight_turned``, ``rival_reread``).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tableref.vision.crops import to_classifier_input
from tableref.vision.recognition.presets import RecognizerConfig

Read = Callable[[np.ndarray], np.ndarray]       # converted crops (N, 3, S, S) -> probabilities (N, C)
Cut = Callable[[np.ndarray], np.ndarray]        # boxes (N, 4) -> crops (N, S, S, 3) uint8


def geometric_mean(readings: np.ndarray) -> np.ndarray:
    """Readings (K, N, C) of the same N crops averaged as a geometric mean, each row summing to 1."""
    out = np.exp(np.log(np.clip(readings, 1e-6, 1.0)).mean(axis=0))
    return out / out.sum(axis=1, keepdims=True)


def unsure(probs: np.ndarray, config: RecognizerConfig) -> np.ndarray:
    """Positions of the readings whose top probability is below ``tta_uncertain``."""
    return np.flatnonzero(probs.max(axis=1) < config.tta_uncertain)


def read_turned(read: Read, x: np.ndarray, probs: np.ndarray, turns: tuple[int, ...]) -> np.ndarray:
    """``probs`` of the converted crops ``x`` (N, 3, H, W) averaged with their readings turned by
    ``turns`` quarter turns: indices lie at any angle on a table, so the turned crops are as natural
    as the original, and the vote steadies uncertain readings at little cost."""
    n = len(x)
    # turned all at once, as floats: a 4-byte element per pixel and channel copies several
    # times faster than the crops' 3-byte pixels (the same values)
    turned = read(np.concatenate([np.rot90(x, k, axes=(2, 3)) for k in turns]))
    return geometric_mean(np.concatenate([probs, turned]).reshape(len(turns) + 1, n, -1))


def tight_boxes(boxes: np.ndarray, factor: float) -> np.ndarray:
    """``boxes`` shrunk to ``factor`` of their size about their centres."""
    b = np.asarray(boxes, np.float32)
    centre, half = (b[:, :2] + b[:, 2:]) / 2, (b[:, 2:] - b[:, :2]) / 2 * factor
    return np.concatenate([centre - half, centre + half], axis=1)


def read_tight(read: Read, cut: Cut, boxes: np.ndarray, probs: np.ndarray, config: RecognizerConfig) -> np.ndarray:
    """Crops still unsure read again from a tighter box (``tight_reread``; turned too with
    ``tight_turned``), averaged with ``probs``: in a tight fan the square crop holds the
    neighbours' ranks and suits, the tighter one less of them."""
    if config.tight_reread <= 0 or config.tta_uncertain <= 0:
        return probs
    again_at = unsure(probs, config)
    if len(again_at) == 0:
        return probs
    x = to_classifier_input(cut(tight_boxes(np.asarray(boxes, np.float32)[again_at], config.tight_reread)))
    again = read(x)
    if config.tight_turned:
        again = read_turned(read, x, again, config.vote_turns)
    probs[again_at] = geometric_mean(np.stack([probs[again_at], again]))
    return probs


def read_crops(read: Read, cut: Cut, boxes: np.ndarray, crops: np.ndarray, tta: bool | None,
               config: RecognizerConfig) -> np.ndarray:
    """The probabilities of ``crops`` cut at ``boxes``, with the extra looks: ``tta`` True (every
    crop read turned too), None (the unsure ones) or False (one reading, no other look)."""
    x = to_classifier_input(crops)      # converted once, turned as floats (read_turned)
    if tta:
        return read_tight(read, cut, boxes, read_turned(read, x, read(x), config.vote_turns), config)
    probs = read(x)
    if tta is False or config.tta_uncertain <= 0:   # False: the caller asked for one reading
        return probs
    again_at = unsure(probs, config)
    if len(again_at):
        probs[again_at] = read_turned(read, x[again_at], probs[again_at], config.vote_turns)
    return read_tight(read, cut, boxes, probs, config)


def read_rivals(classify: Callable[[np.ndarray], np.ndarray], boxes: np.ndarray, scores: np.ndarray,
                probs: np.ndarray, rivals: tuple, none_index: int, config: RecognizerConfig):
    """``rival_reread``: the rival boxes (``plan.ScalePlan.merge_turned``) of the indices still read
    with less than ``tta_uncertain`` are read (``classify``: boxes -> probabilities); those that
    read a card other than their index's kept box are added. (boxes, scores, probs, rivals read)."""
    rival_boxes, rival_scores, keeper = rivals
    again = probs[keeper].max(axis=1) < config.tta_uncertain
    if not again.any():
        return boxes, scores, probs, 0
    rival_boxes, rival_scores, keeper = rival_boxes[again], rival_scores[again], keeper[again]
    read = classify(rival_boxes)
    top = read.argmax(axis=1)
    new = (top != none_index) & (top != probs[keeper].argmax(axis=1))
    return (np.concatenate([boxes, rival_boxes[new]]), np.concatenate([scores, rival_scores[new]]),
            np.concatenate([probs, read[new]]), len(rival_boxes))
