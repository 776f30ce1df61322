"""The plan of views and scales at which a frame is read (pure: sizes and boxes in, views and boxes out).

The detector sees indices well only in a band of sizes (in its input pixels). The whole frame is
letterboxed first; if the indices found are smaller than that band (small cards in a large frame),
the frame is searched again in overlapping tiles (or, by a dynamic-input model, in one piece) at
the scale that brings an index to the size the detector was trained for; if they are larger (a
card filling the frame), the frame is searched again shrunk. Nothing found in a large frame also
triggers the tiled search. Where the indices are read at the full view's scale, the full view is
read turned by 90° too.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tableref.vision.decoding import nms, suppressed_rivals
from tableref.vision.recognition.presets import RecognizerConfig
from tableref.vision.recognition.spec import ModelSpec
from tableref.vision.twins import small_picture
from tableref.vision.views import View, letterbox_view, tile_views

# index heights (detector input px) the detector was trained on, when recognition.json does not say
TRAINED_INDEX_PX = (6.0, 90.0)
# the band read best, from the trained heights: at least READ_MIN_FACTOR x the smallest (and
# READ_MIN_PX), aimed at READ_TARGET_FACTOR x their geometric mean
READ_MIN_PX = 8.0
READ_MIN_FACTOR = 1.6
READ_TARGET_FACTOR = 1.2
# the index size is measured on the boxes the detector is at least this sure of (if any)
SURE_SCORE = 0.5
# nothing found in a large frame: tiles at twice the first pass's scale, at least the scale a
# frame this many pixels wide is read at, overlapping by BLIND_TILE_OVERLAP of a tile
BLIND_SCALE_FACTOR = 2.0
BLIND_REFERENCE_WIDTH = 1280.0
BLIND_TILE_OVERLAP = 0.12
# nothing found in a small frame: look again at this fraction of the first pass's scale
SHRINK_WHEN_EMPTY = 0.5
# enlarged tiles overlap by this many of the larger indices (90th percentile), so any index lies
# whole in one tile
TILE_OVERLAP_INDICES = 2.5
# too many tiles: the scale shrinks by this factor until they fit ``max_tiles``
TILE_SHRINK = 0.85
# the second (enlarged or shrunk) pass wins over the first where both see one index: its scores
# are ranked this much higher in the merge
SECOND_PASS_BONUS = 1.0


@dataclass(frozen=True)
class IndexBand:
    """The index sizes (longer side, detector input px) read best."""

    min: float
    target: float
    max: float


def index_band(spec: ModelSpec, config: RecognizerConfig) -> IndexBand:
    """The band: the settings' where they give one, else recognition.json's, else derived from the
    index heights the detector was trained on."""
    lo, hi = spec.index_px_trained or TRAINED_INDEX_PX
    band_min, band_target, band_max = spec.index_px
    return IndexBand(
        min=config.index_px_min or (band_min if band_min is not None else max(READ_MIN_PX, READ_MIN_FACTOR * lo)),
        target=config.index_px_target or (band_target if band_target is not None
                                          else math.sqrt(lo * hi) * READ_TARGET_FACTOR),
        max=config.index_px_max or (band_max if band_max is not None else hi))


@dataclass(frozen=True)
class ScalePlan:
    """Which views of a frame the detector reads, and how their boxes merge."""

    config: RecognizerConfig
    band: IndexBand
    imgsz: int                  # the detector's input side
    dynamic: bool               # the detector takes inputs of any shape (a multiple of the stride)
    rect_stride: int | None     # a dynamic model reads a 16:9 frame in a 16:9 input of this stride

    @classmethod
    def for_detector(cls, config: RecognizerConfig, spec: ModelSpec, input_shape) -> "ScalePlan":
        """The plan for a detector whose input has ``input_shape`` (a fixed size or named axes)."""
        dynamic = not (isinstance(input_shape[-1], int) and isinstance(input_shape[-2], int))
        return cls(config=config, band=index_band(spec, config), imgsz=int(spec.imgsz if dynamic else input_shape[-1]),
                   dynamic=dynamic, rect_stride=spec.stride if dynamic else None)

    def full_view(self, w: int, h: int) -> View:
        """The whole frame letterboxed into the detector's input."""
        return letterbox_view(w, h, self.imgsz, rect_stride=self.rect_stride)

    def second_views(self, w: int, h: int, full: View, sizes: np.ndarray, scores: np.ndarray) -> list[View]:
        """After the full view found boxes of ``sizes`` (input px) and ``scores``: the views to read
        again (enlarged tiles or frame, shrunk frame), or none where the indices are read at its scale
        (a small picture, under 720 lines, at ``RecognizerConfig.index_px_fallback``)."""
        c, S = self.config, self.imgsz
        if not c.tiling:
            return []
        confident = scores >= max(SURE_SCORE, c.det_conf)
        ref = sizes[confident] if confident.any() else sizes
        if len(ref) == 0:
            if max(w, h) >= c.blind_tile_min_side:
                # nothing seen in a large frame: the indices may be too small; look at
                # the scale a typical 720p-1080p frame is read at
                scale = min(c.max_upscale, max(full.scale * BLIND_SCALE_FACTOR, S / BLIND_REFERENCE_WIDTH))
                return self.tiles(w, h, scale, overlap_px=S / scale * BLIND_TILE_OVERLAP)
            if c.shrink_when_empty:
                # nothing seen in a small frame: a card may fill it, its index too large
                return [letterbox_view(w, h, S, scale=full.scale * SHRINK_WHEN_EMPTY, rect_stride=self.rect_stride)]
            return []
        med = float(np.median(ref))
        if med < self.band.min and full.scale < c.max_upscale:
            scale = min(c.max_upscale, full.scale * self.band.target / max(med, 1.0))
            if c.index_px_fallback is not None and (small_picture(w, h) or not self._one_piece(w, h, scale)):
                low, target = c.index_px_fallback
                if med >= low:
                    return []
                scale = min(c.max_upscale, full.scale * target / max(med, 1.0))
            overlap = TILE_OVERLAP_INDICES * float(np.percentile(ref, 90)) / full.scale
            if self._one_piece(w, h, scale):
                # a model with a dynamic input reads the enlarged frame in one piece: no
                # overlapping square tiles, no padding
                return [letterbox_view(w, h, S, scale=scale, rect_stride=self.rect_stride)]
            return self.tiles(w, h, scale, overlap)
        if med > self.band.max:
            scale = full.scale * math.sqrt(self.band.target * self.band.max) / med
            return [letterbox_view(w, h, S, scale=scale, rect_stride=self.rect_stride)]
        return []

    def _one_piece(self, w: int, h: int, scale: float) -> bool:
        """Whether a ``w`` x ``h`` frame enlarged by ``scale`` is read in one piece (a dynamic-input
        model, up to ``max_rect_pixels``)."""
        return self.dynamic and w * h * scale * scale <= self.config.max_rect_pixels

    def tiles(self, w: int, h: int, scale: float, overlap_px: float) -> list[View]:
        """Square tiles at ``scale`` (shrunk by TILE_SHRINK until at most ``max_tiles``)."""
        views = tile_views(w, h, self.imgsz, scale, overlap_px)
        while len(views) > self.config.max_tiles:
            scale *= TILE_SHRINK
            views = tile_views(w, h, self.imgsz, scale, overlap_px)
        return views

    def merge_second(self, second_boxes: np.ndarray, second_scores: np.ndarray, boxes: np.ndarray,
                     scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The full view's boxes and the second pass's merged; the second pass wins where both see
        one index (SECOND_PASS_BONUS), each box keeps its own score. (boxes, scores, whether each
        is the full view's: one the second pass did not see)."""
        c = self.config
        merged = np.concatenate([second_boxes, boxes])
        preferred = np.concatenate([second_scores + SECOND_PASS_BONUS, scores])
        keep = nms(merged, preferred, c.nms_iou, c.nms_ios)
        return merged[keep], np.concatenate([second_scores, scores])[keep], keep >= len(second_boxes)

    def merge_turned(self, boxes: np.ndarray, scores: np.ndarray, turned_boxes: np.ndarray,
                     turned_scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple | None]:
        """The full view's boxes and those of its turned reading (source px) merged, and with
        ``rival_reread`` the rivals the merge set aside: (boxes, scores, position of the kept box
        each sits on), else None."""
        c = self.config
        turned = np.arange(len(boxes) + len(turned_boxes)) >= len(boxes)
        boxes = np.concatenate([boxes, turned_boxes])
        scores = np.concatenate([scores, turned_scores])
        keep = nms(boxes, scores, c.nms_iou, c.nms_ios)
        rivals = None
        if c.rival_reread:
            rival, keeper = suppressed_rivals(boxes, scores, keep, turned, c.nms_iou, c.nms_ios)
            rivals = (boxes[rival], scores[rival], keeper)
        return boxes[keep], scores[keep], rivals
