"""The pictures the recogniser takes: made BGR uint8 (:func:`ensure_bgr`), their focus measured
(:func:`sharpness`, :func:`blur_sigma`), a shaken camera's blur measured (:func:`motion_blur`), a
lamp's glare taken off them (:func:`deglare`), a soft camera's blur partly undone (:func:`unsoften`)."""
from __future__ import annotations

import math

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
# a soft camera (out of focus): the blur of a picture's sharpest edges is measured as a Gaussian's
# sigma in pixels (:func:`blur_sigma`: the printed edges of cards are steps, so their gradient falls
# by sqrt(s^2 + r^2) / s when blurred again by r). Sharp real frames measure 0.6-0.9 px (the real
# fanned deal's 720p frame 0.83, the rank-only photos 0.62-0.86); defocused by 1.5 px at 720p about
# 1.7, by 2 px about 2.05. Over SOFT_SIGMA the picture is sharpened by an unsharp mask of radius
# UNSOFTEN_RADIUS whose amount takes off UNSOFTEN_SHARE of the blur above SHARP_SIGMA (a mask of
# radius s and amount a takes off about a * s^2 of the blur's variance), at most UNSOFTEN_MAX. On the
# real fanned deal defocused by 2 px it reads 42 cards instead of 32 with no wrong one; stronger
# masks (a share of 1, or radius 2) read as many but name clubs as spades.
BLUR_EDGE_QUANTILE = 99.5
BLUR_REBLUR = 1.0
BLUR_SIDE = 1280.0
SOFT_SIGMA = 1.2
SHARP_SIGMA = 0.85
UNSOFTEN_RADIUS = 1.5
UNSOFTEN_SHARE = 0.7
UNSOFTEN_MAX = 1.5
UNSOFTEN_STEP = 0.05
# a shaken camera (motion blur): the blur of the edges inside the index boxes is measured as in
# blur_sigma, apart for each of MOTION_BINS gradient directions; a blur along one direction of
# length L px blurs the edges across it by a box of L px (a Gaussian's sigma L / sqrt(12)) and leaves
# those along it sharp, so L = sqrt(12 * (sigma_max^2 - sigma_min^2)). Per direction, the strongest
# (100 - MOTION_EDGE_QUANTILE) % of its gradients are measured; at most MOTION_MAX_BOXES boxes (spread
# over the list) are looked at, and fewer than MOTION_MIN_POINTS edge pixels (MOTION_EDGE_FLOOR) in a
# direction measure nothing. On the real fanned deal's 720p frame (index boxes about 33 px high) a blur of
# 7 px measures 5.9-7.6 at any angle, 5 px 4.4-5.4, 4 px 2.9-3.7, 3 px 1.9-2.5; the frame sharp 1.3,
# defocused by 1.5 px 1.5, by 2 px 2.0
MOTION_BINS = 8
MOTION_EDGE_QUANTILE = 90.0
MOTION_MAX_BOXES = 32
MOTION_MIN_POINTS = 100
MOTION_BOX_MARGIN = 0.15
MOTION_EDGE_FLOOR = 0.1        # an edge pixel's gradient is at least this share of the boxes' strong ones


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


def blur_sigma(image: np.ndarray) -> float:
    """The blur of ``image``'s sharpest edges as a Gaussian sigma in its own pixels (measured on a grey
    copy at most ``BLUR_SIDE`` px wide): the median, over the strongest ``100 - BLUR_EDGE_QUANTILE`` %
    of gradients, of how much a further blur of ``BLUR_REBLUR`` px lowers them."""
    h, w = image.shape[:2]
    f = min(1.0, BLUR_SIDE / max(h, w))
    small = cv2.resize(image, (max(1, round(w * f)), max(1, round(h * f))), interpolation=cv2.INTER_AREA) \
        if f < 1 else image
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
    if min(grey.shape) < 8:
        return float("inf")
    gx = cv2.Sobel(grey, cv2.CV_16S, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_16S, 0, 1, ksize=3)
    # an edge's strength |gx| + |gy| at a quarter (0..255); its strongest, the threshold taken from
    # every 4th pixel of every 4th row, away from the picture's border
    strength = cv2.add(cv2.convertScaleAbs(gx, alpha=0.25), cv2.convertScaleAbs(gy, alpha=0.25))
    strength[:2], strength[-2:], strength[:, :2], strength[:, -2:] = 0, 0, 0, 0
    cut = max(float(np.percentile(strength[::4, ::4], BLUR_EDGE_QUANTILE)), 1.0)
    points = cv2.findNonZero(cv2.compare(strength, cut, cv2.CMP_GE))
    if points is None:
        return float("inf")       # a blank picture: no edge to measure
    points = points.reshape(-1, 2)
    xs, ys = points[:, 0], points[:, 1]
    g1 = np.hypot(gx[ys, xs].astype(np.float32), gy[ys, xs].astype(np.float32))
    # the same Sobel gradients of the picture blurred further, at those pixels only
    b = cv2.GaussianBlur(grey, (0, 0), BLUR_REBLUR)

    def at(dy: int, dx: int) -> np.ndarray:
        return b[ys + dy, xs + dx].astype(np.int16)     # (only the pixels needed made wider)

    bx = (at(-1, 1) + 2 * at(0, 1) + at(1, 1)) - (at(-1, -1) + 2 * at(0, -1) + at(1, -1))
    by = (at(1, -1) + 2 * at(1, 0) + at(1, 1)) - (at(-1, -1) + 2 * at(-1, 0) + at(-1, 1))
    bx, by = bx.astype(np.float32), by.astype(np.float32)
    ratio = float(np.median(g1 / np.maximum(np.hypot(bx, by), 1e-3)))
    if ratio <= 1.0 + 1e-6:
        return float("inf")       # no edge a further blur lowers: nothing sharp in the picture
    return BLUR_REBLUR / float(np.sqrt(ratio * ratio - 1.0)) / f


def motion_blur(image: np.ndarray, boxes) -> float:
    """The length in pixels of a blur along one direction (a shaken camera) of ``image``'s edges inside
    the index ``boxes`` (x1, y1, x2, y2, a margin of ``MOTION_BOX_MARGIN`` added), 0.0 where too few
    edges measure it (see ``MOTION_BINS``). An evenly soft picture (out of focus) measures near 0."""
    boxes = list(boxes)
    if not boxes:
        return 0.0
    if len(boxes) > MOTION_MAX_BOXES:
        boxes = [boxes[int(k * len(boxes) / MOTION_MAX_BOXES)] for k in range(MOTION_MAX_BOXES)]
    h, w = image.shape[:2]
    parts = []
    for x1, y1, x2, y2 in boxes:
        mx, my = MOTION_BOX_MARGIN * (x2 - x1), MOTION_BOX_MARGIN * (y2 - y1)
        a, b = max(0, int(x1 - mx)), max(0, int(y1 - my))
        c, d = min(w, int(math.ceil(x2 + mx))), min(h, int(math.ceil(y2 + my)))
        if c - a < 8 or d - b < 8:
            continue
        part = image[b:d, a:c]      # made grey box by box: the boxes cover a small part of the frame
        part = (cv2.cvtColor(part, cv2.COLOR_BGR2GRAY) if part.ndim == 3 else part).astype(np.float32)
        soft = cv2.GaussianBlur(part, (0, 0), BLUR_REBLUR)
        inner = (slice(2, -2), slice(2, -2))
        gx = cv2.Sobel(part, cv2.CV_32F, 1, 0, ksize=3)[inner]
        gy = cv2.Sobel(part, cv2.CV_32F, 0, 1, ksize=3)[inner]
        sx = cv2.Sobel(soft, cv2.CV_32F, 1, 0, ksize=3)[inner]
        sy = cv2.Sobel(soft, cv2.CV_32F, 0, 1, ksize=3)[inner]
        parts.append((gx.ravel(), gy.ravel(), np.hypot(sx, sy).ravel()))
    if not parts:
        return 0.0
    gx, gy, softened = (np.concatenate(v) for v in zip(*parts))
    strength = np.hypot(gx, gy)
    # edges only: a flat patch (paper, cloth) has no direction to measure
    edge = strength >= MOTION_EDGE_FLOOR * float(np.percentile(strength, 99.0))
    gx, gy, softened, strength = gx[edge], gy[edge], softened[edge], strength[edge]
    ratio = strength / np.maximum(softened, 1e-3)
    step = 180.0 / MOTION_BINS
    direction = (np.floor((np.degrees(np.arctan2(gy, gx)) % 180.0 + step / 2) / step).astype(np.int32)
                 % MOTION_BINS)
    sigmas = []
    for k in range(MOTION_BINS):
        on = direction == k
        if np.count_nonzero(on) < MOTION_MIN_POINTS:
            return 0.0
        s = strength[on]
        r = float(np.median(ratio[on][s >= np.percentile(s, MOTION_EDGE_QUANTILE)]))
        if r <= 1.0 + 1e-6:
            return 0.0            # no edge a further blur lowers in this direction: nothing to measure
        sigmas.append(BLUR_REBLUR / math.sqrt(r * r - 1.0))
    return math.sqrt(12.0 * max(0.0, max(sigmas) ** 2 - min(sigmas) ** 2))


def is_soft(sigma: float | None) -> bool:
    """Whether a picture whose edges measure blurred by ``sigma`` px (``blur_sigma``; None: not
    measured) is soft: more than ``SOFT_SIGMA`` (what :func:`unsoften` sharpens)."""
    return sigma is not None and bool(np.isfinite(sigma)) and sigma > SOFT_SIGMA


def unsoften_amount(sigma: float) -> float:
    """The unsharp mask's amount for a picture whose edges are blurred by ``sigma`` px (0: left as it is)."""
    if not is_soft(sigma):
        return 0.0
    a = UNSOFTEN_SHARE * (sigma * sigma - SHARP_SIGMA * SHARP_SIGMA) / (UNSOFTEN_RADIUS * UNSOFTEN_RADIUS)
    return round(min(UNSOFTEN_MAX, a) / UNSOFTEN_STEP) * UNSOFTEN_STEP


def unsoften(image: np.ndarray, amount: float | None = None) -> np.ndarray:
    """``image`` (BGR uint8) with a soft camera's blur partly undone (a new picture) where its edges
    measure softer than ``SOFT_SIGMA`` px, else ``image`` itself: an unsharp mask of ``amount``
    (default :func:`unsoften_amount` of :func:`blur_sigma`) whose radius scales with the picture's size
    over ``BLUR_SIDE``."""
    a = unsoften_amount(blur_sigma(image)) if amount is None else amount
    if a <= 0.0:
        return image
    h, w = image.shape[:2]
    radius = UNSOFTEN_RADIUS / min(1.0, BLUR_SIDE / max(h, w))
    return cv2.addWeighted(image, 1.0 + a, cv2.GaussianBlur(image, (0, 0), radius), -a, 0.0)


def glare_veil(image: np.ndarray) -> tuple[np.ndarray, float]:
    """(the veil on a copy at most ``GLARE_SIDE`` px wide, float32; that copy's scale)."""
    h, w = image.shape[:2]
    f = min(1.0, GLARE_SIDE / max(h, w))
    size = (max(1, int(round(w * f))), max(1, int(round(h * f))))
    small = cv2.resize(image, size, interpolation=cv2.INTER_AREA) if f < 1 else image
    dark = cv2.min(cv2.min(small[:, :, 0], small[:, :, 1]), small[:, :, 2])     # as small.min(axis=2), in a 25th of the time
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
