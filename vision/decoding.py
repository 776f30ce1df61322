"""The YOLO detector's raw output to boxes, and greedy non-maximum suppression."""
from __future__ import annotations

import numpy as np

from tableref.vision.geometry import box_area, overlapping_pairs, pairwise_overlap
from tableref.vision.runtime import ModelError


def decode_yolo(output: np.ndarray, conf_threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Ultralytics raw output (1, 4+nc, N) -> (boxes x1y1x2y2 (M, 4), scores (M,)) above threshold."""
    out = np.asarray(output)
    if out.ndim == 3:
        out = out[0]
    if out.shape[0] < 5:
        raise ModelError(f"unexpected detector output shape {np.asarray(output).shape}")
    scores = out[4:].max(axis=0)
    keep = np.flatnonzero(scores > conf_threshold)
    cx, cy, w, h = out[:4, keep]            # the candidates' four rows in one gather
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1).astype(np.float32)
    return boxes, scores[keep].astype(np.float32)


def nms(boxes: np.ndarray, scores: np.ndarray, iou_threshold: float = 0.5,
        ios_threshold: float | None = None) -> np.ndarray:
    """Greedy non-maximum suppression; returns kept indices, best score first.

    With ``ios_threshold`` a box is also suppressed when that fraction of the
    smaller of the two boxes lies inside the other (a part detected beside the
    whole, e.g. an index cut by a tile edge).

    Only boxes that overlap at all are compared: the boxes sorted by their left edge, each
    is paired with those starting before it ends (a sweep), so the work grows with the
    boxes and their neighbours, not with every pair on the table.
    """
    boxes = np.asarray(boxes, dtype=np.float32).reshape(-1, 4)
    scores = np.asarray(scores, dtype=np.float32).reshape(-1)
    n = len(boxes)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(-scores, kind="stable")
    i, j = overlapping_pairs(boxes)
    if len(i):
        x1, y1, x2, y2 = boxes.T
        # pairs overlapping in x may lie far apart in y (a column of indices): those first
        ih = np.minimum(y2[i], y2[j]) - np.maximum(y1[i], y1[j])
        near = ih > 0
        i, j, ih = i[near], j[near], ih[near]
        iw = np.minimum(x2[i], x2[j]) - np.maximum(x1[i], x1[j])
        inter = np.clip(iw, 0, None) * ih
        area = box_area(boxes)
        aa, ab = area[i], area[j]
        hit = inter / np.maximum(aa + ab - inter, 1e-9) > iou_threshold
        if ios_threshold is not None:
            hit |= inter / np.maximum(np.minimum(aa, ab), 1e-9) > ios_threshold
        i, j = i[hit], j[hit]
    # neighbours of each box (both directions), as slices of one list (plain Python below: the
    # greedy pass visits every box, and a list costs less a visit than an array)
    src = np.concatenate([i, j])
    dst = np.concatenate([j, i])
    by = np.argsort(src, kind="stable")
    dst = dst[by].tolist()
    starts = np.searchsorted(src[by], np.arange(n + 1)).tolist()
    suppressed = bytearray(n)
    keep = []
    for k in order.tolist():
        if suppressed[k]:
            continue
        keep.append(k)
        for m in dst[starts[k]:starts[k + 1]]:
            suppressed[m] = 1
    return np.asarray(keep, dtype=np.int64)


def suppressed_rivals(boxes: np.ndarray, scores: np.ndarray, keep: np.ndarray, group: np.ndarray,
                      iou_threshold: float = 0.5, ios_threshold: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The boxes :func:`nms` suppressed that came from another ``group`` (e.g. another detector
    pass) than the kept box they overlap: (rival, keeper), positions in ``boxes`` and in ``keep``,
    at most one rival a keeper (its best-scored). Overlap as in :func:`nms`; a rival overlapping
    several kept boxes of another group goes to the one it overlaps most."""
    keep = np.asarray(keep, dtype=np.int64)
    lost = np.setdiff1d(np.arange(len(boxes)), keep)
    if len(lost) == 0 or len(keep) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    iou, ios = pairwise_overlap(boxes[lost], boxes[keep])
    hit = iou > iou_threshold
    if ios_threshold is not None:
        hit |= ios > ios_threshold
    hit &= group[lost][:, None] != group[keep][None, :]
    keeper = np.where(hit, iou, -1.0).argmax(axis=1)
    ok = hit[np.arange(len(lost)), keeper]
    lost, keeper = lost[ok], keeper[ok]
    order = np.lexsort((-scores[lost], keeper))     # by keeper, the best-scored rival first
    lost, keeper = lost[order], keeper[order]
    first = np.ones(len(keeper), dtype=bool)
    first[1:] = keeper[1:] != keeper[:-1]
    return lost[first], keeper[first]
