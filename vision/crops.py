"""The one crop used for the corner-index classifier, in training and at run time.

Training data (``datasets``) and inference (``vision.recognition``) must cut index
crops the same way, so both call :func:`index_crop` (or :func:`index_crops`, many at once).
"""
from __future__ import annotations

import cv2
import numpy as np

CROP_SIZE = 64          # classifier input side in pixels
CROP_MARGIN = 0.15      # fraction of the box's longer side added on every side
REMAP_MAX_ROWS = 32766  # the most output rows one cv2.remap call takes


def crop_square(box, margin: float = CROP_MARGIN) -> tuple[float, float, float]:
    """Square around ``box`` (x1, y1, x2, y2): returns (cx, cy, half_side)."""
    x1, y1, x2, y2 = box
    cx, cy = (x1 + x2) / 2.0, (y1 + y2) / 2.0
    side = max(x2 - x1, y2 - y1) * (1.0 + 2.0 * margin)
    return cx, cy, max(side, 2.0) / 2.0


def index_crop(image: np.ndarray, box, size: int = CROP_SIZE, margin: float = CROP_MARGIN) -> np.ndarray:
    """Cut the square around an index box and resize it to ``size``×``size``.

    ``image`` is BGR uint8 (H, W, 3); the result is BGR uint8 (size, size, 3).
    Parts outside the image are filled by replicating the border. (:func:`index_crops` of one box.)
    """
    return index_crops(image, [box], size, margin)[0]


def cutting_picture(image: np.ndarray) -> np.ndarray:
    """A BGR uint8 picture with a fourth channel added, which :func:`index_crops` cuts the same
    crops from in less time: OpenCV's remap has a vectorised path for 4-channel pixels and none
    for 3 (a table's 57 crops of a 720p frame: 0.6 instead of 1.4 ms, for a 0.1 ms conversion).
    Worth it where a frame's crops are cut more than once or many at a time."""
    return cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)


def index_crops(image: np.ndarray, boxes, size: int = CROP_SIZE, margin: float = CROP_MARGIN) -> np.ndarray:
    """:func:`index_crop` of each of ``boxes`` (N, 4): (N, size, size, 3), cut by one ``cv2.remap``.

    Each crop maps its square (:func:`crop_square`) onto ``size``×``size`` pixels, bilinear,
    as ``cv2.warpAffine`` of that scale-and-shift would (the same pixels, but for one grey level
    of rounding in a few): the source position of every output pixel is computed here for all
    crops at once (a square's column and row positions are each one line), and the one remap
    saves the per-call cost of a warp a crop (about a third less time for a table's 60 crops).
    ``image`` may also be a :func:`cutting_picture` (4 channels): the crops are the same, BGR.
    """
    b = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    n = len(b)
    four = image.ndim == 3 and image.shape[2] == 4
    if n == 0:
        return np.zeros((0, size, size) + ((3,) if four else image.shape[2:]), dtype=image.dtype)
    cx, cy = (b[:, 0] + b[:, 2]) / 2.0, (b[:, 1] + b[:, 3]) / 2.0
    half = np.maximum(np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]) * (1.0 + 2.0 * margin), 2.0) / 2.0
    scale = size / (2.0 * half)
    # the crop -> output map in float32 (scale s, shift t), inverted as warpAffine inverts it (in
    # double): output pixel k <- source (1/s) k - t/s, evaluated in float32
    s = scale.astype(np.float32).astype(np.float64)
    inv = s * (1.0 / (s * s))
    k = np.arange(size, dtype=np.float32)[None, :]
    step = inv.astype(np.float32)[:, None]
    xs = step * k + (-inv * (size / 2.0 - cx * scale).astype(np.float32)).astype(np.float32)[:, None]
    ys = step * k + (-inv * (size / 2.0 - cy * scale).astype(np.float32)).astype(np.float32)[:, None]
    map_x = np.broadcast_to(xs[:, None, :], (n, size, size)).reshape(n * size, size)
    map_y = np.broadcast_to(ys[:, :, None], (n, size, size)).reshape(n * size, size)
    rows = (REMAP_MAX_ROWS // size) * size      # OpenCV's remap takes fewer than 32767 rows
    out = np.concatenate([cv2.remap(image, map_x[r:r + rows], map_y[r:r + rows], cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE) for r in range(0, n * size, rows)])
    if four:
        return cv2.cvtColor(out, cv2.COLOR_BGRA2BGR).reshape(n, size, size, 3)
    return out.reshape((n, size, size) + image.shape[2:])


def to_classifier_input(crops: list[np.ndarray] | np.ndarray) -> np.ndarray:
    """BGR uint8 crops (a list, or already stacked N×H×W×3) as the classifier's float32 NCHW RGB 0..1 batch."""
    if len(crops) == 0:
        return np.zeros((0, 3, CROP_SIZE, CROP_SIZE), dtype=np.float32)
    stacked = np.ascontiguousarray(crops if isinstance(crops, np.ndarray) else np.stack(crops))
    n, h, w = stacked.shape[:3]
    # the colour planes split apart by OpenCV, each converted into its place in NCHW RGB order, then
    # scaled in place: the same values as numpy's transpose, which gathers 3-byte pixels slowly
    planes = cv2.split(stacked.reshape(n * h, w, 3))
    batch = np.empty((n, 3, h, w), np.float32)
    for c in range(3):
        batch[:, c] = planes[2 - c].reshape(n, h, w)
    batch /= 255.0
    return batch
