"""The pictures the recogniser takes: made BGR uint8 (:func:`ensure_bgr`), their focus measured (:func:`sharpness`)."""
from __future__ import annotations

import cv2
import numpy as np

# sharpness: the Laplacian variance of a grey copy at most SHARPNESS_SIDE px wide, squashed to
# 0..1 by v / (v + SHARPNESS_HALF)
SHARPNESS_SIDE = 640.0
SHARPNESS_HALF = 100.0


def ensure_bgr(image: np.ndarray) -> np.ndarray:
    """Accept grey, BGR or BGRA uint8 images; return BGR uint8."""
    if image is None or not hasattr(image, "shape") or image.size == 0:
        raise ValueError("empty image")
    if image.dtype != np.uint8:
        if np.issubdtype(image.dtype, np.floating) and image.max() <= 1.0:
            image = (image * 255.0).round()
        image = np.clip(image, 0, 255).astype(np.uint8)
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.ndim == 3 and image.shape[2] == 1:
        return cv2.cvtColor(image[:, :, 0], cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    raise ValueError(f"unsupported image shape {image.shape}")


def sharpness(image: np.ndarray) -> float:
    """Variance of the Laplacian on a ≤640-px grey copy, squashed to 0..1 (low = blurred)."""
    h, w = image.shape[:2]
    f = min(1.0, SHARPNESS_SIDE / max(h, w))
    size = (max(1, int(w * f)), max(1, int(h * f)))
    small = cv2.resize(image, size, interpolation=cv2.INTER_AREA) if f < 1 else image
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    v = float(cv2.Laplacian(grey, cv2.CV_32F).var())
    return v / (v + SHARPNESS_HALF)
