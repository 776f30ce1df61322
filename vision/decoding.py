"""The YOLO detector's raw output to boxes, and greedy non-maximum suppression."""
from __future__ import annotations

import numpy as np

from tableref.vision.geometry import pairwise_overlap
from tableref.vision.runtime import ModelError


def decode_yolo(output: np.ndarray, conf_threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Ultralytics raw output (1, 4+nc, N) -> (boxes x1y1x2y2 (M, 4), scores (M,)) above threshold."""
    out = np.asarray(output)
    if out.ndim == 3:
        out = out[0]
    if out.shape[0] < 5:
        raise ModelError(f"unexpected detector output shape {np.asarray(output).shape}")
    scores = out[4:].max(axis=0)
    keep = scores > conf_threshold
    cx, cy, w, h = out[0, keep], out[1, keep], out[2, keep], out[3, keep]
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1).astype(np.float32)
    return boxes, scores[keep].astype(np.float32)


def nms(boxes: np.ndarray, scores: np.ndarray, iou_threshold: float = 0.5,
        ios_threshold: float | None = None) -> np.ndarray:
    """Greedy non-maximum suppression; returns kept indices, best score first.

    With ``ios_threshold`` a box is also suppressed when that fraction of the
    smaller of the two boxes lies inside the other (a part detected beside the
    whole, e.g. an index cut by a tile edge).
    """
    boxes = np.asarray(boxes, dtype=np.float32).reshape(-1, 4)
    scores = np.asarray(scores, dtype=np.float32).reshape(-1)
    if len(boxes) == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(-scores, kind="stable")
    iou, ios = pairwise_overlap(boxes, boxes)
    suppressed = np.zeros(len(boxes), dtype=bool)
    keep = []
    for i in order:
        if suppressed[i]:
            continue
        keep.append(i)
        hit = iou[i] > iou_threshold
        if ios_threshold is not None:
            hit |= ios[i] > ios_threshold
        suppressed |= hit
    return np.asarray(keep, dtype=np.int64)

