"""Table backgrounds: procedural felt, wood, carpet, cloth, plastic, and tiled GIMP patterns.

Public API (also used by the simulator):

- ``make_background(rng, w, h) -> BGR uint8 (h, w, 3)``: a random table surface.
- ``gimp_patterns() -> list[Path]``: the Debian ``gimp-data`` pattern files found here.

Everything is drawn from ``rng`` (a ``numpy.random.Generator``), so a seed gives the
same picture. GIMP patterns (``/usr/share/gimp/2.0/patterns``, Debian package
``gimp-data``, GPL-3+) are read at build time from the installed package and never
committed; without the package only the procedural surfaces are used.
"""
from __future__ import annotations

import functools
import struct
from pathlib import Path

import cv2
import numpy as np

GIMP_PATTERN_DIRS = [Path("/usr/share/gimp/2.0/patterns")]


@functools.lru_cache(maxsize=1)
def gimp_patterns() -> list[Path]:
    out = []
    for d in GIMP_PATTERN_DIRS:
        if d.is_dir():
            out += sorted(d.rglob("*.pat")) + sorted(d.rglob("*.png"))
    return out


@functools.lru_cache(maxsize=128)
def _load_pattern(path: str) -> np.ndarray | None:
    """Read a GIMP ``.pat`` (or PNG) pattern as BGR uint8."""
    p = Path(path)
    if p.suffix == ".png":
        img = cv2.imread(path, cv2.IMREAD_COLOR)
        return img
    data = p.read_bytes()
    try:
        header_size, version, w, h, depth = struct.unpack(">5I", data[:20])
    except struct.error:
        return None
    if data[20:24] != b"GPAT" or w * h * depth + header_size > len(data) or w < 8 or h < 8:
        return None
    px = np.frombuffer(data, np.uint8, w * h * depth, header_size).reshape(h, w, depth)
    if depth == 1:
        return cv2.cvtColor(px, cv2.COLOR_GRAY2BGR)
    if depth == 2:
        return cv2.cvtColor(np.ascontiguousarray(px[:, :, 0]), cv2.COLOR_GRAY2BGR)
    if depth == 3:
        return cv2.cvtColor(px, cv2.COLOR_RGB2BGR)
    return cv2.cvtColor(np.ascontiguousarray(px[:, :, :3]), cv2.COLOR_RGB2BGR)


def _smooth_noise(rng, w, h, scale: float, octaves: int = 3) -> np.ndarray:
    """Sum of upsampled random grids: smooth noise in 0..1 (float32, h×w)."""
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for o in range(octaves):
        s = max(2, int(max(w, h) / (scale / (2 ** o))))
        grid = rng.random((s, s)).astype(np.float32)
        out += amp * cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)
        total += amp
        amp *= 0.5
    out /= total
    return np.clip(out, 0, 1)


def _random_colour(rng, kind: str) -> np.ndarray:
    if kind == "felt":
        hues = [(40, 110, 40), (30, 80, 20), (120, 60, 20), (40, 40, 130), (60, 50, 50), (90, 90, 90)]
    elif kind == "wood":
        hues = [(40, 80, 140), (30, 60, 110), (60, 110, 170), (25, 45, 80), (90, 140, 190)]
    elif kind == "plastic":
        hues = [(220, 220, 220), (200, 200, 190), (60, 60, 60), (180, 140, 100), (120, 160, 200)]
    else:
        hues = [(rng.integers(0, 256), rng.integers(0, 256), rng.integers(0, 256))]
    c = np.array(hues[rng.integers(len(hues))], np.float32)
    return np.clip(c * rng.uniform(0.7, 1.3) + rng.normal(0, 15, 3), 0, 255)


def _felt(rng, w, h):
    base = _random_colour(rng, "felt")
    n = _smooth_noise(rng, w, h, scale=rng.uniform(20, 200))
    fine = rng.normal(0, rng.uniform(3, 12), (h, w)).astype(np.float32)
    img = base[None, None, :] * (0.85 + 0.3 * n[..., None]) + fine[..., None]
    return img


def _wood(rng, w, h):
    base = _random_colour(rng, "wood")
    ang = rng.uniform(0, np.pi)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    u = xx * np.cos(ang) + yy * np.sin(ang)
    v = -xx * np.sin(ang) + yy * np.cos(ang)
    warp = _smooth_noise(rng, w, h, scale=rng.uniform(100, 400)) * rng.uniform(20, 80)
    freq = rng.uniform(0.05, 0.3)
    rings = 0.5 + 0.5 * np.sin((v + warp) * freq + 3 * np.sin(u * 0.01))
    grain = _smooth_noise(rng, w, h, scale=8, octaves=2)
    t = 0.7 * rings + 0.3 * grain
    dark = rng.uniform(0.45, 0.8)
    img = base[None, None, :] * (dark + (1 - dark) * 1.2 * t[..., None])
    if rng.random() < 0.4:  # planks
        pw = rng.uniform(60, 250)
        seam = (np.abs(((u % pw) - pw / 2)) > pw / 2 - 1.5)
        img[seam] *= 0.5
    return img


def _cloth(rng, w, h):
    c1, c2 = _random_colour(rng, "any"), _random_colour(rng, "any")
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    kind = rng.integers(3)
    p = rng.uniform(6, 60)
    if kind == 0:  # checks / tartan
        m = ((np.sin(xx * np.pi / p) > 0) ^ (np.sin(yy * np.pi / p) > 0)).astype(np.float32)
    elif kind == 1:  # stripes
        ang = rng.uniform(0, np.pi)
        m = (np.sin((xx * np.cos(ang) + yy * np.sin(ang)) * np.pi / p) > 0).astype(np.float32)
    else:  # blotchy print
        m = (_smooth_noise(rng, w, h, scale=p * 3) > 0.5).astype(np.float32)
    m = cv2.GaussianBlur(m, (0, 0), 1.0)
    weave = 1 + 0.08 * np.sin(xx * rng.uniform(1.5, 3)) * np.sin(yy * rng.uniform(1.5, 3))
    img = (c1[None, None, :] * m[..., None] + c2[None, None, :] * (1 - m[..., None])) * weave[..., None]
    return img


def _plastic(rng, w, h):
    base = _random_colour(rng, "plastic")
    n = _smooth_noise(rng, w, h, scale=rng.uniform(200, 800), octaves=2)
    return base[None, None, :] * (0.9 + 0.2 * n[..., None]) + rng.normal(0, 2, (h, w, 1))


def _carpet(rng, w, h):
    """Looped-pile carpet: strong clumpy noise at a few pixels' scale over a base colour."""
    base = _random_colour(rng, "wood" if rng.random() < 0.5 else "any")
    clump = rng.uniform(1.0, 3.0)
    n = rng.random((h, w)).astype(np.float32)
    n = cv2.GaussianBlur(n, (0, 0), clump)
    n = (n - n.mean()) / (n.std() + 1e-6)
    fleck = rng.normal(0, 1, (h, w)).astype(np.float32)
    tint = rng.uniform(0.9, 1.1, 3)[None, None, :]
    v = 1.0 + rng.uniform(0.12, 0.3) * n + 0.05 * fleck
    return base[None, None, :] * tint * v[..., None]


def _pattern(rng, w, h):
    pats = gimp_patterns()
    if not pats:
        return _felt(rng, w, h)
    tile = _load_pattern(str(pats[rng.integers(len(pats))]))
    if tile is None:
        return _felt(rng, w, h)
    s = rng.uniform(0.5, 3.0)
    tile = cv2.resize(tile, (max(8, int(tile.shape[1] * s)), max(8, int(tile.shape[0] * s))))
    reps = (h // tile.shape[0] + 2, w // tile.shape[1] + 2)
    big = np.tile(tile, (reps[0], reps[1], 1))
    y0, x0 = rng.integers(tile.shape[0]), rng.integers(tile.shape[1])
    img = big[y0:y0 + h, x0:x0 + w].astype(np.float32)
    if rng.random() < 0.5:  # recolour a little
        img = img * rng.uniform(0.7, 1.2, 3)[None, None, :]
    return img


_KINDS = [(_felt, 0.2), (_wood, 0.22), (_carpet, 0.12), (_cloth, 0.13), (_plastic, 0.08), (_pattern, 0.25)]


def make_background(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A random table surface, BGR uint8 of shape (h, w, 3)."""
    fns, weights = zip(*_KINDS)
    fn = fns[rng.choice(len(fns), p=np.array(weights) / sum(weights))]
    # draw at a lower resolution for big canvases (texture detail does not need 4K)
    s = min(1.0, 1024 / max(w, h))
    sw, sh = max(16, int(w * s)), max(16, int(h * s))
    img = fn(rng, sw, sh)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if (sw, sh) != (w, h):
        img = cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)
    return img
