"""What a real camera does to a table's picture: blur, light, glare, noise, compression, resolution, viewpoint.

Each effect is a pure function of a picture (BGR, ``uint8`` or ``float32`` in 0..255; the result has
the input's type and shape unless said otherwise) and of its parameters; effects that draw at random
take a ``numpy.random.Generator``, so a seed gives the same picture. Sizes are in pixels of the
picture they are given: :func:`at_720p` turns a size meant for a 720-line frame into one for any
other height.

Effects that move the picture (:func:`rescale`, :func:`rotate`, :func:`tilt`, :func:`shift_scale`)
also return the 3×3 matrix that maps a point of the input to the output, so labels can follow.

:func:`camera_feed` turns one still frame into the frames a fixed camera would deliver: sway,
scale breathing (autofocus), gain flicker, sensor noise, JPEG and a hand passing over the table.

Used by the classifier's training (``tableref.training.classifier``, on 64×64 index crops) and by
``scripts/bench_camera.py`` (on whole frames).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

REFERENCE_HEIGHT = 720      # the frame height the sizes of the conditions are given for


def at_720p(size: float, height: int) -> float:
    """A size in pixels of a 720-line frame, in pixels of a frame ``height`` lines high."""
    return float(size) * float(height) / REFERENCE_HEIGHT


def _as_float(img: np.ndarray) -> np.ndarray:
    return img.astype(np.float32) if img.dtype != np.float32 else img


def _like(out: np.ndarray, img: np.ndarray) -> np.ndarray:
    """``out`` (float) back to ``img``'s type."""
    if img.dtype == np.uint8:
        return np.clip(out + 0.5, 0, 255).astype(np.uint8)
    return np.clip(out, 0, 255).astype(img.dtype, copy=False)


# --------------------------------------------------------------------------- blur


def defocus(img: np.ndarray, sigma: float) -> np.ndarray:
    """An out-of-focus lens: a Gaussian blur of standard deviation ``sigma`` pixels (0: unchanged)."""
    if sigma <= 0:
        return img.copy()
    return cv2.GaussianBlur(img, (0, 0), float(sigma), borderType=cv2.BORDER_REPLICATE)


def motion_kernel(length: float, angle_deg: float) -> np.ndarray:
    """The kernel of a straight smear ``length`` pixels long at ``angle_deg`` (0: left to right), sum 1."""
    n = int(math.ceil(length)) | 1
    k = np.zeros((n, n), np.float64)
    c = (n - 1) / 2
    t = np.linspace(-(length - 1) / 2, (length - 1) / 2, max(2, int(round(length * 4))))
    x = c + t * math.cos(math.radians(angle_deg))
    y = c - t * math.sin(math.radians(angle_deg))
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    fx, fy = x - x0, y - y0
    for xx, yy, w in ((x0, y0, (1 - fx) * (1 - fy)), (x0 + 1, y0, fx * (1 - fy)),
                      (x0, y0 + 1, (1 - fx) * fy), (x0 + 1, y0 + 1, fx * fy)):
        ok = (xx >= 0) & (xx < n) & (yy >= 0) & (yy < n)
        np.add.at(k, (yy[ok], xx[ok]), w[ok])
    k = k.astype(np.float32)
    return k / k.sum()


def motion_blur(img: np.ndarray, length: float, angle_deg: float = 0.0) -> np.ndarray:
    """A camera (or the table) moving during the exposure: a smear ``length`` pixels long (≤ 1: unchanged)."""
    if length <= 1:
        return img.copy()
    return cv2.filter2D(img, -1, motion_kernel(length, angle_deg), borderType=cv2.BORDER_REPLICATE)


# --------------------------------------------------------------------------- light


def light(img: np.ndarray, gain: float = 1.0, warmth: float = 0.0) -> np.ndarray:
    """The room's light: brightness × ``gain`` (0.5: half the light) and a warm (tungsten, ``warmth`` > 0,
    up to 1) or cold (< 0) white balance: red up and blue down, or the reverse."""
    out = _as_float(img) * float(gain)
    if warmth:
        w = float(np.clip(warmth, -1.0, 1.0))
        # BGR: blue, green, red
        out = out * np.array([1.0 - 0.45 * w, 1.0 - 0.1 * w, 1.0 + 0.2 * w], np.float32)
    return _like(out, img)


def glare(img: np.ndarray, share: float, rng: np.random.Generator, strength: float = 1.0,
          centre: tuple[float, float] | None = None) -> np.ndarray:
    """A lamp's reflection: a bright, soft-edged elliptical spot over ``share`` of the picture's area
    (inside it the picture washes out towards white by ``strength``), at ``centre`` (pixels) or at a
    random place."""
    h, w = img.shape[:2]
    if share <= 0:
        return img.copy()
    aspect = float(rng.uniform(0.6, 1.6))
    # the ellipse's area, with its soft edge counted at half, is share × h × w
    a = math.sqrt(share * h * w / (math.pi * aspect))
    ax, ay = a * math.sqrt(aspect), a / math.sqrt(aspect)
    cx, cy = centre if centre is not None else (float(rng.uniform(0.2, 0.8) * w), float(rng.uniform(0.2, 0.8) * h))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = float(rng.uniform(0, math.pi))
    ca, sa = math.cos(angle), math.sin(angle)
    u = ((xx - cx) * ca + (yy - cy) * sa) / ax
    v = (-(xx - cx) * sa + (yy - cy) * ca) / ay
    r = np.sqrt(u * u + v * v)
    m = np.clip((1.25 - r) / 0.5, 0.0, 1.0)          # 1 inside r < 0.75, 0 beyond r 1.25
    m = (m * m * (3 - 2 * m)) * float(strength)
    f = _as_float(img)
    out = f + (255.0 - f) * m[:, :, None] * 0.92 if f.ndim == 3 else f + (255.0 - f) * m * 0.92
    return _like(out, img)


# --------------------------------------------------------------------------- sensor and compression


def sensor_noise(img: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """A sensor's noise: Gaussian, ``sigma`` grey levels at mid-grey, stronger in bright parts (shot
    noise), partly shared by the three channels (as after demosaicing)."""
    if sigma <= 0:
        return img.copy()
    f = _as_float(img)
    scale = float(sigma) * np.sqrt(0.35 + 0.65 * f / 128.0)
    grain = rng.standard_normal(f.shape[:2] + ((1,) if f.ndim == 3 else ()), dtype=np.float32)
    colour = rng.standard_normal(f.shape, dtype=np.float32)
    out = f + scale * (0.7 * grain + 0.5 * colour)
    return _like(out, img)


def jpeg(img: np.ndarray, quality: int) -> np.ndarray:
    """The picture saved and read back as a JPEG of ``quality`` (1..100)."""
    u8 = img if img.dtype == np.uint8 else np.clip(img + 0.5, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", u8, [cv2.IMWRITE_JPEG_QUALITY, int(np.clip(quality, 1, 100))])
    if not ok:
        raise ValueError("could not encode the picture as JPEG")
    out = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    return out if img.dtype == np.uint8 else out.astype(img.dtype)


def low_resolution(img: np.ndarray, factor: float) -> np.ndarray:
    """The same picture taken with ``factor`` times the pixels along each side (< 1), shown at its
    own size again: detail finer than the coarser sensor's pixel is lost."""
    if factor >= 1:
        return img.copy()
    h, w = img.shape[:2]
    small = cv2.resize(img, (max(1, round(w * factor)), max(1, round(h * factor))), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


# --------------------------------------------------------------------------- viewpoint (with the point map)


def rescale(img: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The picture as a camera of ``size`` (width, height) would deliver it: scaled to fit inside
    ``size`` with its proportions kept (area averaging when it shrinks). Returns it and the point map."""
    h, w = img.shape[:2]
    s = min(size[0] / w, size[1] / h)
    nw, nh = max(1, round(w * s)), max(1, round(h * s))
    out = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
    return out, np.array([[nw / w, 0, 0], [0, nh / h, 0], [0, 0, 1]], np.float64)


def _warp(img: np.ndarray, m: np.ndarray) -> np.ndarray:
    h, w = img.shape[:2]
    return cv2.warpPerspective(img, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def shift_scale(img: np.ndarray, dx: float = 0.0, dy: float = 0.0, scale: float = 1.0,
                angle_deg: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The camera moved a little: the picture shifted by (``dx``, ``dy``) pixels, scaled by ``scale``
    and turned by ``angle_deg`` (counter-clockwise) about its centre; the same size. Returns it and
    the point map."""
    h, w = img.shape[:2]
    a = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), float(angle_deg), float(scale))
    a[0, 2] += dx
    a[1, 2] += dy
    m = np.vstack([a, [0, 0, 1]])
    return _warp(img, m), m


def rotate(img: np.ndarray, angle_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """The camera turned by ``angle_deg`` about the picture's centre (what leaves the frame is lost,
    the corners fill with the edge's colours). Returns it and the point map."""
    return shift_scale(img, angle_deg=angle_deg)


def tilt(img: np.ndarray, amount: float) -> tuple[np.ndarray, np.ndarray]:
    """The camera looking at the table at a slant: the far (top) edge of the picture shrinks to
    1 - ``amount`` of its width (0.2: 20 %), the near edge keeps its width, the height is kept.
    Returns it and the point map."""
    h, w = img.shape[:2]
    d = float(amount) * w / 2
    src = np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]])
    dst = np.float32([[d, 0], [w - 1 - d, 0], [w - 1, h - 1], [0, h - 1]])
    m = cv2.getPerspectiveTransform(src, dst).astype(np.float64)
    return _warp(img, m), m


def map_points(m: np.ndarray, pts) -> np.ndarray:
    """Points (N, 2) through a point map ``m`` (3×3)."""
    p = np.asarray(pts, np.float64).reshape(-1, 2)
    q = np.hstack([p, np.ones((len(p), 1))]) @ np.asarray(m, np.float64).T
    return q[:, :2] / q[:, 2:3]


# --------------------------------------------------------------------------- a hand over the table


SKIN_BGR = ((120, 150, 205), (95, 130, 190), (70, 100, 150), (50, 70, 110), (140, 170, 225))


def hand_over(img: np.ndarray, tip: tuple[float, float], rng: np.random.Generator, size: float | None = None,
              blur: float = 0.0) -> np.ndarray:
    """A player's hand and forearm reaching in from the nearest edge of the picture, the fingertips at
    ``tip`` (pixels); ``size`` is the palm's width (default a sixth of the picture's shorter side); a
    moving hand is smeared by ``blur`` pixels. Colours drawn from a few skin tones, with shading; a soft
    shadow beside it."""
    h, w = img.shape[:2]
    size = float(size or min(h, w) / 4.5)
    tx, ty = tip
    # the arm comes from the nearest edge
    dist = {"left": tx, "right": w - tx, "top": ty, "bottom": h - ty}
    edge = min(dist, key=dist.get)
    base = {"left": (-size, ty), "right": (w + size, ty), "top": (tx, -size), "bottom": (tx, h + size)}[edge]
    bx, by = base[0] + rng.uniform(-0.5, 0.5) * size, base[1] + rng.uniform(-0.5, 0.5) * size
    ang = math.atan2(ty - by, tx - bx)
    ux, uy = math.cos(ang), math.sin(ang)            # along the arm, towards the fingertips
    nx, ny = -uy, ux
    mask = np.zeros((h, w), np.uint8)
    palm_c = (tx - ux * size * 0.9, ty - uy * size * 0.9)
    arm_w = size * 0.75
    arm = np.array([[bx + nx * arm_w / 2, by + ny * arm_w / 2], [bx - nx * arm_w / 2, by - ny * arm_w / 2],
                    [palm_c[0] - nx * arm_w / 2, palm_c[1] - ny * arm_w / 2],
                    [palm_c[0] + nx * arm_w / 2, palm_c[1] + ny * arm_w / 2]])
    cv2.fillConvexPoly(mask, np.round(arm * 4).astype(np.int32), 255, cv2.LINE_AA, shift=2)
    cv2.ellipse(mask, (round(palm_c[0]), round(palm_c[1])), (round(size * 0.6), round(size * 0.5)),
                math.degrees(ang), 0, 360, 255, -1, cv2.LINE_AA)
    for k in range(4):                               # fingers, spread a little
        off = (k - 1.5) * size * 0.22
        fa = ang + (k - 1.5) * 0.12
        start = (palm_c[0] + nx * off + ux * size * 0.3, palm_c[1] + ny * off + uy * size * 0.3)
        length = size * (0.55 + 0.15 * (k in (1, 2)))
        end = (start[0] + math.cos(fa) * length, start[1] + math.sin(fa) * length)
        cv2.line(mask, (round(start[0]), round(start[1])), (round(end[0]), round(end[1])), 255,
                 max(2, round(size * 0.16)), cv2.LINE_AA)
    thumb_a = ang - 0.9
    ts = (palm_c[0] - nx * size * 0.45, palm_c[1] - ny * size * 0.45)
    cv2.line(mask, (round(ts[0]), round(ts[1])),
             (round(ts[0] + math.cos(thumb_a) * size * 0.5), round(ts[1] + math.sin(thumb_a) * size * 0.5)),
             255, max(2, round(size * 0.18)), cv2.LINE_AA)
    m = mask.astype(np.float32) / 255.0
    if blur > 1:
        m = cv2.filter2D(m, -1, motion_kernel(blur, math.degrees(-ang)))
    tone = np.array(SKIN_BGR[int(rng.integers(len(SKIN_BGR)))], np.float32)
    # shading: darker towards the arm's edges and the base
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    across = np.abs((xx - tx) * nx + (yy - ty) * ny) / (size * 0.6)
    shade = np.clip(1.05 - 0.35 * across ** 2, 0.55, 1.05)
    skin = tone[None, None, :] * shade[:, :, None]
    f = _as_float(img)
    out = f * (1 - m[:, :, None]) + skin * m[:, :, None]
    # the hand's shadow on the table, offset a little
    sh = np.roll(np.roll(m, round(size * 0.15), axis=0), round(size * 0.1), axis=1)
    sh = cv2.GaussianBlur(sh, (0, 0), max(1.0, size * 0.08)) * (1 - m)
    out = out * (1 - 0.35 * sh[:, :, None])
    return _like(out, img)


# --------------------------------------------------------------------------- a camera's feed of a still table


@dataclass(frozen=True)
class FeedSettings:
    """How a fixed camera's frames of a still table differ from one another."""

    frames: int = 40
    sway_px: float = 3.0             # the camera's wandering, at most this many pixels each way (720p)
    breathing: float = 0.01          # autofocus: scale up to ±1 %
    flicker: float = 0.06            # gain from frame to frame, ± this share
    noise: float = 3.0               # sensor noise, grey levels
    jpeg_quality: tuple[int, int] = (70, 92)
    hand_frames: int = 4             # a hand passes over the table for this many frames (0: none)
    # the camera is knocked: this many frames in a row, in the last third of the feed, are blurred by
    # ``shake_px`` of motion (one direction for the knock) (0: none)
    shake_frames: int = 0
    shake_px: float = 7.0
    defocus_sigma: float = 0.0       # the condition of the whole feed (720p pixels)
    gain: float = 1.0
    warmth: float = 0.0


def camera_feed(img: np.ndarray, settings: FeedSettings, seed: int = 0):
    """The frames a fixed camera delivers of the still table ``img`` (BGR uint8): yields
    (frame, point map from ``img`` to the frame). The feed's condition (defocus, light) applies to
    every frame; sway is a slow random walk within ``sway_px``; the hand passes in the middle third
    of the feed, a knock (``shake_frames``) shakes it in the last third. Sizes are for a 720-line frame and scale with the picture's height."""
    rng = np.random.default_rng(seed)
    h, w = img.shape[:2]
    sway = at_720p(settings.sway_px, h)
    base = img
    if settings.defocus_sigma > 0:
        base = defocus(base, at_720p(settings.defocus_sigma, h))
    pos = np.zeros(2)
    vel = np.zeros(2)
    hand_start = -1
    if settings.hand_frames > 0 and settings.frames > settings.hand_frames:
        lo = settings.frames // 3
        hand_start = int(rng.integers(lo, max(lo + 1, 2 * settings.frames // 3 - settings.hand_frames + 1)))
    hand_seed = int(rng.integers(2 ** 31))           # one hand: the same arm and skin in each of its frames
    # the knock draws from its own generator: the feed is otherwise the feed without it
    knock = np.random.default_rng([seed, 1])
    shake_start, shake_angle = -1, 0.0
    if settings.shake_frames > 0 and settings.frames > settings.shake_frames:
        lo = 2 * settings.frames // 3
        shake_start = int(knock.integers(lo, max(lo + 1, settings.frames - settings.shake_frames + 1)))
        shake_angle = float(knock.uniform(0.0, 180.0))
    # the fingertips sweep across the middle of the picture, over the cards
    tip0 = np.array([rng.uniform(0.35, 0.65) * w, rng.uniform(0.3, 0.7) * h])
    direction = rng.uniform(0, 2 * math.pi)
    step = np.array([math.cos(direction), math.sin(direction)]) * min(h, w) * 0.1
    for i in range(settings.frames):
        vel = 0.7 * vel + rng.normal(0.0, 0.45 * sway, 2)
        pos = np.clip(pos + vel, -sway, sway)
        scale = 1.0 + settings.breathing * math.sin(2 * math.pi * i / max(8.0, settings.frames / 2.5)
                                                    + rng.uniform(-0.3, 0.3))
        frame, m = shift_scale(base, float(pos[0]), float(pos[1]), float(scale))
        gain = settings.gain * (1.0 + rng.uniform(-settings.flicker, settings.flicker))
        frame = light(frame, gain, settings.warmth)
        if hand_start <= i < hand_start + settings.hand_frames:
            k = i - hand_start
            tip = tip0 + step * k
            frame = hand_over(frame, (float(tip[0]), float(tip[1])), np.random.default_rng(hand_seed),
                              blur=at_720p(6.0, h))
        if shake_start <= i < shake_start + settings.shake_frames:
            frame = motion_blur(frame, at_720p(settings.shake_px, h), shake_angle + float(knock.uniform(-15.0, 15.0)))
        frame = sensor_noise(frame, settings.noise, rng)
        frame = jpeg(frame, int(rng.integers(settings.jpeg_quality[0], settings.jpeg_quality[1] + 1)))
        yield frame, m
