"""Views of a frame as the detector's input: the letterbox, enlarged views and overlapping tiles.

A :class:`View` is an affine map of the source image into the detector input
(``input = (src - origin) * scale``); :func:`render_view` cuts and resizes that part of
the frame, padded with the grey the detector was trained with.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

# neighbouring tiles never overlap by more than this fraction of a tile
MAX_TILE_OVERLAP = 0.5
PAD_VALUE = 114  # the grey Ultralytics pads letterboxed images with
# a view shrinks the frame by averaging areas (``cv2.INTER_AREA``) below this scale, bilinearly
# from it up: shrunk by less than a tenth, the two differ by at most a few grey levels (1280x720
# at 0.9-0.97: 0.07-0.09 on average, 99 % of the values within 1), and OpenCV's area average by
# a fraction near 1 is 4-5 times slower (7-11 ms against 1.4-3 ms on 2 cores). A camera's enlarged
# view of a table often lies there. Below it bilinear is not used: it lost cards of the real fan
# shrunk by 0.84 and 0.66
LINEAR_SHRINK_MIN = 0.9


@dataclass(frozen=True)
class View:
    """An affine view of the source image as the detector input: ``input = (src - origin) * scale``."""

    x0: float
    y0: float
    scale: float
    size: int                 # input width (and height unless ``height`` is given)
    height: int | None = None

    @property
    def width_px(self) -> int:
        return self.size

    @property
    def height_px(self) -> int:
        return self.height or self.size

    def to_source(self, boxes: np.ndarray) -> np.ndarray:
        """Map (N, 4) x1, y1, x2, y2 boxes from input pixels back to source pixels."""
        out = np.asarray(boxes, dtype=np.float32).copy()
        if out.size == 0:
            return out.reshape(0, 4)
        out[:, [0, 2]] = out[:, [0, 2]] / self.scale + self.x0
        out[:, [1, 3]] = out[:, [1, 3]] / self.scale + self.y0
        return out

    def to_input(self, boxes: np.ndarray) -> np.ndarray:
        out = np.asarray(boxes, dtype=np.float32).copy()
        if out.size == 0:
            return out.reshape(0, 4)
        out[:, [0, 2]] = (out[:, [0, 2]] - self.x0) * self.scale
        out[:, [1, 3]] = (out[:, [1, 3]] - self.y0) * self.scale
        return out

    def source_rect(self) -> tuple[float, float, float, float]:
        return (self.x0, self.y0, self.x0 + self.width_px / self.scale, self.y0 + self.height_px / self.scale)


def letterbox_view(width: int, height: int, size: int, scale: float | None = None,
                   rect_stride: int | None = None) -> View:
    """The centred letterbox of a ``width``×``height`` image in a ``size``² input.

    ``scale`` defaults to the largest that fits the whole image; a smaller one
    shrinks the image further (more padding). With ``rect_stride`` (models with a
    dynamic input shape) the input is only as large as the scaled image, rounded
    up to that stride, instead of square.
    """
    if scale is None:
        scale = size / max(width, height)
    new_w, new_h = width * scale, height * scale
    in_w = in_h = size
    if rect_stride:
        in_w = int(math.ceil(new_w / rect_stride - 1e-6) * rect_stride)
        in_h = int(math.ceil(new_h / rect_stride - 1e-6) * rect_stride)
    pad_x = (in_w - new_w) / 2.0
    pad_y = (in_h - new_h) / 2.0
    return View(x0=-pad_x / scale, y0=-pad_y / scale, scale=scale, size=in_w,
                height=None if in_h == in_w else in_h)


def view_rects(view: View, w: int, h: int):
    """Where :func:`render_view` puts a ``w``×``h`` image's part that ``view`` shows: (source
    rectangle, destination rectangle in the view's pixels), each (x1, y1, x2, y2) in whole pixels;
    None if the view shows none of it."""
    sx1, sy1, sx2, sy2 = view.source_rect()
    cx1, cy1 = max(0, int(math.floor(sx1))), max(0, int(math.floor(sy1)))
    cx2, cy2 = min(w, int(math.ceil(sx2))), min(h, int(math.ceil(sy2)))
    if cx2 <= cx1 or cy2 <= cy1:
        return None
    # destination rectangle of the clipped source region
    dx1 = int(round((cx1 - view.x0) * view.scale))
    dy1 = int(round((cy1 - view.y0) * view.scale))
    dx2 = min(view.width_px, int(round((cx2 - view.x0) * view.scale)))
    dy2 = min(view.height_px, int(round((cy2 - view.y0) * view.scale)))
    dx1, dy1 = max(0, dx1), max(0, dy1)
    if dx2 <= dx1 or dy2 <= dy1:
        return None
    return (cx1, cy1, cx2, cy2), (dx1, dy1, dx2, dy2)


def shown_whole(picture: np.ndarray, view: View, w: int, h: int) -> np.ndarray | None:
    """The part of a view's rendered ``picture`` that holds a ``w``×``h`` image, if the view shows
    all of it shrunk by averaging areas (the image resized as ``cv2.resize`` with ``INTER_AREA``
    gives it); else None."""
    rects = view_rects(view, w, h)
    if rects is None or view.scale >= LINEAR_SHRINK_MIN or rects[0] != (0, 0, w, h):
        return None
    dx1, dy1, dx2, dy2 = rects[1]
    return picture[dy1:dy2, dx1:dx2]


def render_view(image: np.ndarray, view: View, out: np.ndarray | None = None) -> np.ndarray:
    """Cut and resize the part of ``image`` that ``view`` shows; pad with grey.

    ``out``: a (height, width, 3) uint8 buffer that the same view of an image of the same
    size was rendered into before (:class:`ViewCanvas`): its grey padding is still there, so
    only the picture is written again (a fresh buffer of an enlarged 720p view costs a page
    fault per 4 KiB on every frame).
    """
    h, w = image.shape[:2]
    out_w, out_h = view.width_px, view.height_px
    if out is None or out.shape != (out_h, out_w, 3) or out.dtype != np.uint8:
        out = np.full((out_h, out_w, 3), PAD_VALUE, dtype=np.uint8)
    rects = view_rects(view, w, h)
    if rects is None:
        return out
    (cx1, cy1, cx2, cy2), (dx1, dy1, dx2, dy2) = rects
    region = image[cy1:cy2, cx1:cx2]
    interp = cv2.INTER_AREA if view.scale < LINEAR_SHRINK_MIN else cv2.INTER_LINEAR
    # resized straight into the buffer (no temporary picture)
    target = out[dy1:dy2, dx1:dx2]
    resized = cv2.resize(region, (dx2 - dx1, dy2 - dy1), dst=target, interpolation=interp)
    if not np.shares_memory(resized, target):   # the binding could not write in place
        target[...] = resized
    return out


class ViewCanvas:
    """Reusable buffers for :func:`render_view`, one per (view, image size) of the last frames.

    A video's frames are read through the same few views frame after frame; rendering each
    into the buffer it used last time skips allocating and padding a new one.
    """

    def __init__(self, keep: int = 6):
        self.keep = keep
        self._buffers: dict[tuple, np.ndarray] = {}

    def render(self, image: np.ndarray, view: View) -> np.ndarray:
        key = (view, image.shape[:2])
        buf = self._buffers.pop(key, None)
        buf = render_view(image, view, buf)
        self._buffers[key] = buf           # most recent last
        while len(self._buffers) > self.keep:
            self._buffers.pop(next(iter(self._buffers)))
        return buf


def tile_views(width: int, height: int, size: int, scale: float, overlap: float) -> list[View]:
    """Square tiles of ``size`` input pixels at ``scale`` covering the image.

    Neighbouring tiles overlap by at least ``overlap`` source pixels, so that any
    object smaller than that lies whole inside some tile. An axis shorter than a
    tile gets one tile, centred (padded on both sides).
    """
    side = size / scale
    overlap = min(overlap, side * MAX_TILE_OVERLAP)

    def starts(length: float) -> list[float]:
        if length <= side:
            return [(length - side) / 2.0]
        n = int(math.ceil((length - overlap) / (side - overlap)))
        n = max(n, 2)
        step = (length - side) / (n - 1)
        return [i * step for i in range(n)]

    return [View(x0=x, y0=y, scale=scale, size=size) for y in starts(height) for x in starts(width)]


def drop_cut_at_tile_edges(boxes: np.ndarray, view: View, width: int, height: int,
                           margin: float = 2.0) -> np.ndarray:
    """Mask of boxes (input pixels of ``view``) NOT touching a tile edge inside the image.

    A box touching the tile border where the tile continues into another tile is
    probably a cut-off index; the neighbouring tile sees it whole.
    """
    if len(boxes) == 0:
        return np.zeros(0, dtype=bool)
    sx1, sy1, sx2, sy2 = view.source_rect()
    ok = np.ones(len(boxes), dtype=bool)
    if sx1 > 0.5:
        ok &= boxes[:, 0] > margin
    if sy1 > 0.5:
        ok &= boxes[:, 1] > margin
    if sx2 < width - 0.5:
        ok &= boxes[:, 2] < view.width_px - margin
    if sy2 < height - 0.5:
        ok &= boxes[:, 3] < view.height_px - margin
    return ok

