"""The pictures the recogniser takes: made BGR uint8 (:func:`ensure_bgr`), their focus measured
(:func:`sharpness`), a lamp's glare taken off them (:func:`deglare`)."""
from __future__ import annotations

import cv2
import numpy as np

# sharpness: the Laplacian variance of a grey copy at most SHARPNESS_SIDE px wide, squashed to
# 0..1 by v / (v + SHARPNESS_HALF)
SHARPNESS_SIDE = 640.0
SHARPNESS_HALF = 100.0
# glare: the veil is the darkest channel's local minimum (a window of GLARE_WINDOW of the picture's
# height, measured on a copy GLARE_SIDE px wide). Card ink and the table keep it low; under a lamp's
# reflection even the ink is washed out towards white, so it is high. Where it rises above
# GLARE_VEIL (the white of a card's paper in a picture that is not glared stays below: the real
# fanned deal's frame peaks at 214, defocused at 216, and a camera's gain flicker lifts it a few
# levels more; under the benchmark's glare spot it reaches 243-251) the picture's distance from
# white is stretched back by 255 / (255 - veil), at most GLARE_MAX_GAIN times (more turned the
# noise of a real photo's over-exposed card into a misread 4D), fading in over GLARE_FADE levels
GLARE_SIDE = 320.0
GLARE_WINDOW = 0.04
GLARE_VEIL = 225.0
GLARE_FADE = 15.0
GLARE_MAX_GAIN = 6.0


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


def glare_veil(image: np.ndarray) -> tuple[np.ndarray, float]:
    """(the veil on a copy at most ``GLARE_SIDE`` px wide, float32; that copy's scale)."""
    h, w = image.shape[:2]
    f = min(1.0, GLARE_SIDE / max(h, w))
    size = (max(1, int(round(w * f))), max(1, int(round(h * f))))
    small = cv2.resize(image, size, interpolation=cv2.INTER_AREA) if f < 1 else image
    dark = small.min(axis=2)
    win = max(3, int(round(GLARE_WINDOW * size[1])) | 1)
    k = np.ones((win, win), np.uint8)
    veil = cv2.dilate(cv2.erode(dark, k), k).astype(np.float32)
    return cv2.GaussianBlur(veil, (0, 0), win / 2), f


def deglare(image: np.ndarray) -> np.ndarray:
    """``image`` (BGR uint8) with a lamp's glare taken off where there is any (a new picture), else
    ``image`` itself: where the veil (:func:`glare_veil`) is above ``GLARE_VEIL``, each pixel's
    distance from white is multiplied back by up to 255 / (255 - veil)."""
    veil, f = glare_veil(image)
    if float(veil.max()) <= GLARE_VEIL:
        return image
    gain = np.clip(255.0 / np.maximum(255.0 - veil, 1.0), 1.0, GLARE_MAX_GAIN)
    gain = 1.0 + (gain - 1.0) * np.clip((veil - GLARE_VEIL) / GLARE_FADE, 0.0, 1.0)
    ys, xs = np.nonzero(gain > 1.0)
    h, w = image.shape[:2]
    # only the glared part is worked on, in full resolution
    x1, y1 = max(0, int(xs.min() / f) - 2), max(0, int(ys.min() / f) - 2)
    x2, y2 = min(w, int((xs.max() + 1) / f) + 2), min(h, int((ys.max() + 1) / f) + 2)
    g = cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)
    part = image[y1:y2, x1:x2].astype(np.float32)
    out = image.copy()
    out[y1:y2, x1:x2] = np.clip(255.0 - (255.0 - part) * g[y1:y2, x1:x2, None], 0, 255).astype(np.uint8)
    return out
