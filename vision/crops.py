"""The one crop used for the corner-index classifier, in training and at run time.

Training data (``datasets``) and inference (``vision.detector``) must cut index
crops the same way, so both call :func:`index_crop`.
"""
from __future__ import annotations

import cv2
import numpy as np

CROP_SIZE = 64          # classifier input side in pixels
CROP_MARGIN = 0.15      # fraction of the box's longer side added on every side


def crop_square(box, margin: float = CROP_MARGIN) -> tuple[float, float, float]:
    """Square around ``box`` (x1, y1, x2, y2): returns (cx, cy, half_side)."""
    x1, y1, x2, y2 = box
    cx, cy = (x1 + x2) / 2.0, (y1 + y2) / 2.0
    side = max(x2 - x1, y2 - y1) * (1.0 + 2.0 * margin)
    return cx, cy, max(side, 2.0) / 2.0


def index_crop(image: np.ndarray, box, size: int = CROP_SIZE, margin: float = CROP_MARGIN) -> np.ndarray:
    """Cut the square around an index box and resize it to ``size``×``size``.

    ``image`` is BGR uint8 (H, W, 3); the result is BGR uint8 (size, size, 3).
    Parts outside the image are filled by replicating the border.
    """
    cx, cy, half = crop_square(box, margin)
    scale = size / (2.0 * half)
    # affine map: crop square -> size x size
    m = np.array([[scale, 0.0, size / 2.0 - cx * scale], [0.0, scale, size / 2.0 - cy * scale]], dtype=np.float32)
    interp = cv2.INTER_AREA if scale < 1.0 else cv2.INTER_LINEAR
    return cv2.warpAffine(image, m, (size, size), flags=interp, borderMode=cv2.BORDER_REPLICATE)


def to_classifier_input(crops: list[np.ndarray] | np.ndarray) -> np.ndarray:
    """BGR uint8 crops (a list, or already stacked N×H×W×3) as the classifier's float32 NCHW RGB 0..1 batch."""
    if len(crops) == 0:
        return np.zeros((0, 3, CROP_SIZE, CROP_SIZE), dtype=np.float32)
    stacked = crops if isinstance(crops, np.ndarray) else np.stack(crops)
    # one conversion straight into NCHW RGB order, then scaled in place (the same values)
    batch = stacked.transpose(0, 3, 1, 2)[:, ::-1].astype(np.float32, order="C")
    batch /= 255.0
    return batch
