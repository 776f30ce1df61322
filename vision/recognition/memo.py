"""What the recogniser keeps from one frame to the next (a fixed camera's video), in one object.

* the enlarged views chosen for a frame (``reuse_scale_frames``), so the next frames skip the full
  view that chose them, and the boxes that full view found where the enlarged views found none,
  kept for those frames where the picture inside them is unchanged;
* how soft a camera's frames are (``images.blur_sigma``: how much they are sharpened, whether a
  label read twice side by side is doubted), measured anew with the views;
* the size of the last frame if it was read turned too: the next frame of that size runs the
  full and the turned view side by side from the start;
* the boxes found in each view, kept while the view's picture is unchanged (``reuse_views``);
* the readings of the indices, kept while the picture inside their box is unchanged
  (``reuse_readings``).
"""
from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from tableref.vision.geometry import pairwise_overlap
from tableref.vision.views import View

# ``reuse_readings``: an index box of this frame takes the reading of the last frame's box it
# overlaps most, if their IoU is at least REUSE_IOU and the picture inside the old box is unchanged:
# the crop there and the crop that was read, each averaged down to REUSE_SIDE x REUSE_SIDE (sensor
# noise averages out, a glyph of another rank or suit does not), differ nowhere by more than
# REUSE_MAX_DIFF grey levels in any colour
REUSE_IOU = 0.6
REUSE_SIDE = 16
REUSE_MAX_DIFF = 24
# ... and a reading or a view's boxes are reused for at most this many frames in a row, then read
# afresh: near its threshold the detector finds a box in one frame and not in the next on a
# picture that barely changed, and the tracker's votes over frames need those fresh looks (kept
# for ever, one unlucky look at a Marriage count hid a card until the count failed)
REUSE_MAX_FRAMES = 2
# ``reuse_views``: a view's picture is compared averaged down by SIGNATURE_BLOCK in each direction
# (an 80x48 signature of a 640x384 view: noise averages out, a card laid, lifted or slid does not);
# the memo holds the views of the last frames (a Marriage count: the full view, 8 tiles)
SIGNATURE_BLOCK = 8
# the boxes the full view found and the enlarged views kept for the next frames did not
# (``FrameMemo.kept_full_only``) are kept where the picture inside each, averaged down to
# PATCH_SIDE x PATCH_SIDE, is unchanged (REUSE_MAX_DIFF)
PATCH_SIDE = 8
VIEW_MEMO_SIZE = 24


def reading_unchanged(read: np.ndarray, now: np.ndarray) -> np.ndarray:
    """For crops (N, S, S, 3) uint8 that were read and crops cut at the same boxes now: whether the
    picture is the same up to noise (see REUSE_MAX_DIFF)."""
    if len(read) == 0:
        return np.zeros(0, bool)
    n, side = read.shape[0], read.shape[1]
    f = side // REUSE_SIDE

    def small(c):
        # each f x f block's sum (f * f times its mean, exactly: at most 255 * f * f), the rows of a
        # block summed first, then its columns: four times faster than numpy's mean over both
        # axes of the blocks at once (a Marriage count's 80 indices: 2 instead of 8 ms a frame)
        rows = c.reshape(n, REUSE_SIDE, f, side * 3).sum(axis=2, dtype=np.int32)
        return rows.reshape(n, REUSE_SIDE, REUSE_SIDE, f, 3).sum(axis=3)

    return np.abs(small(read) - small(now)).max(axis=(1, 2, 3)) <= REUSE_MAX_DIFF * f * f


def box_patches(image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """The picture inside each of ``boxes`` (source px) averaged down to PATCH_SIDE x PATCH_SIDE
    (N, PATCH_SIDE, PATCH_SIDE, channels), int16: what :func:`patches_unchanged` compares."""
    h, w = image.shape[:2]
    out = []
    for x1, y1, x2, y2 in np.asarray(boxes, np.float64).tolist():
        a, b = min(max(int(x1), 0), w - 1), min(max(int(y1), 0), h - 1)
        c, d = max(min(int(np.ceil(x2)), w), a + 1), max(min(int(np.ceil(y2)), h), b + 1)
        patch = cv2.resize(image[b:d, a:c], (PATCH_SIDE, PATCH_SIDE), interpolation=cv2.INTER_AREA)
        out.append(patch.reshape(PATCH_SIDE, PATCH_SIDE, -1))
    if not out:
        return np.zeros((0, PATCH_SIDE, PATCH_SIDE, image.shape[2] if image.ndim == 3 else 1), np.int16)
    return np.stack(out).astype(np.int16)


def patches_unchanged(before: np.ndarray, now: np.ndarray) -> np.ndarray:
    """Whether each box's picture (:func:`box_patches`) is the same up to noise (REUSE_MAX_DIFF)."""
    if len(before) == 0:
        return np.zeros(0, bool)
    return np.abs(before - now).max(axis=(1, 2, 3)) <= REUSE_MAX_DIFF


def picture_signature(picture: np.ndarray) -> np.ndarray:
    """A detector view's picture averaged down by SIGNATURE_BLOCK (what :func:`picture_unchanged` compares)."""
    h, w = picture.shape[:2]
    size = (max(1, w // SIGNATURE_BLOCK), max(1, h // SIGNATURE_BLOCK))
    return cv2.resize(picture, size, interpolation=cv2.INTER_AREA)


def picture_unchanged(before: np.ndarray, now: np.ndarray) -> bool:
    """Whether two signatures of one view agree everywhere within REUSE_MAX_DIFF grey levels."""
    if before.shape != now.shape:
        return False
    return int(cv2.absdiff(before, now).max()) <= REUSE_MAX_DIFF


def _count_down(kept: tuple | None, size: tuple[int, int]) -> tuple[object, tuple | None]:
    """(the value kept for frames of ``size``, or None; what is kept after this frame) of a
    (frame size, value, frames left) kept by :class:`FrameMemo`."""
    if kept is not None and kept[0] == size and kept[2] > 0:
        return kept[1], (kept[0], kept[1], kept[2] - 1)
    return None, None


class FrameMemo:
    """What is kept from the last frames (see the module's text); empty for a new recogniser."""

    def __init__(self):
        self._scale: tuple | None = None        # (frame size, (views, the full view's own boxes), frames left)
        self._blur: tuple | None = None         # (frame size, the blur measured, frames left)
        self.turned_size: tuple[int, int] | None = None
        # (view, turned, frame size) -> (signature, boxes, scores, frames reused), oldest first
        self._views: dict = {}
        # (frame size, boxes where the crops were cut, crops read, probabilities, frames reused)
        self._readings: tuple | None = None

    # -- the enlarged views of a fixed camera's frames
    def keep_views(self, size: tuple[int, int], views: list[View], frames: int,
                   full_only: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> None:
        """Keep ``views`` for the next ``frames`` frames of ``size``, with ``full_only``: the boxes,
        scores and :func:`box_patches` of what the full view that chose them found and they did not."""
        self._scale = (size, (views, full_only), frames)

    def kept_views(self, size: tuple[int, int]) -> list[View] | None:
        """The enlarged views kept for frames of ``size``, one frame fewer left; else None (and
        nothing kept any more)."""
        kept, self._scale = _count_down(self._scale, size)
        return kept[0] if kept is not None else None

    def keep_read_full_only(self, boxes: np.ndarray, read: np.ndarray) -> None:
        """After a frame's indices are read: of the full view's own boxes kept with the views, only
        those among this frame's ``boxes`` that were ``read`` as an index (not ``none``) stay kept (a
        pip or a speck the full view boxed costs no reading in the frames that follow)."""
        if self._scale is None or self._scale[1][1] is None or not len(self._scale[1][1][0]):
            return
        size, (views, (kb, ks, kp)), frames = self._scale
        found = {tuple(float(v) for v in b) for b in np.asarray(boxes)[np.asarray(read, bool)]}
        stay = np.array([tuple(float(v) for v in b) in found for b in kb], bool)
        self._scale = (size, (views, (kb[stay], ks[stay], kp[stay])), frames)

    def kept_full_only(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The boxes and scores the full view found and the kept views did not (after
        :meth:`kept_views` gave views for this frame) whose picture in ``image`` is unchanged since."""
        kept = self._scale[1][1] if self._scale is not None else None
        if kept is None or not len(kept[0]):
            return np.zeros((0, 4), np.float32), np.zeros(0, np.float32)
        boxes, scores, patches = kept
        same = patches_unchanged(patches, box_patches(image, boxes))
        return boxes[same], scores[same]

    # -- how soft a camera's frames are
    def kept_blur(self, size: tuple[int, int]) -> float | None:
        """The blur (``images.blur_sigma``) kept for frames of ``size``, one frame fewer left; else None."""
        sigma, self._blur = _count_down(self._blur, size)
        return sigma

    def keep_blur(self, size: tuple[int, int], sigma: float, frames: int) -> None:
        self._blur = (size, sigma, frames)

    # -- the boxes found in each view
    def view_boxes(self, key: tuple, signature: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """The boxes and scores found in the view ``key`` if its picture (``signature``) is unchanged
        and they were kept fewer than REUSE_MAX_FRAMES frames in a row (copies), else None."""
        seen = self._views.get(key)
        if seen is None or seen[3] >= REUSE_MAX_FRAMES or not picture_unchanged(seen[0], signature):
            return None
        self._views[key] = seen[:3] + (seen[3] + 1,)
        return seen[1].copy(), seen[2].copy()

    def remember_view(self, key: tuple, signature: np.ndarray, boxes: np.ndarray, scores: np.ndarray) -> None:
        """The boxes the detector found in a view now (the oldest view forgotten beyond VIEW_MEMO_SIZE)."""
        if len(self._views) >= VIEW_MEMO_SIZE:
            self._views.pop(next(iter(self._views)))
        self._views.pop(key, None)
        self._views[key] = (signature, boxes.copy(), scores.copy(), 0)

    # -- the readings of the indices
    def read_reusing(self, size: tuple[int, int], boxes: np.ndarray, cut: Callable[[np.ndarray], np.ndarray],
                     read: Callable[[np.ndarray, np.ndarray], np.ndarray], n_classes: int,
                     crop_size: int) -> tuple[np.ndarray, np.ndarray]:
        """Probabilities of the index ``boxes`` of a frame of ``size``, and the positions of those
        that kept the last frame's reading: an index whose picture is unchanged since then
        (:func:`reading_unchanged`) keeps it, for at most REUSE_MAX_FRAMES frames in a row; the
        others are cut (``cut``: boxes -> crops) and read (``read``: boxes, crops -> probabilities).
        The crops kept are those that were read, so a picture that drifts slowly is read again
        once it has drifted."""
        n = len(boxes)
        last, self._readings = self._readings, None
        if n == 0:
            return np.zeros((0, n_classes), dtype=np.float32), np.zeros(0, np.int64)
        probs = np.zeros((n, n_classes), dtype=np.float32)
        kept = np.empty((n, crop_size, crop_size, 3), np.uint8)
        src = np.full(n, -1)
        if last is not None and last[0] == size and len(last[1]):
            _, old_boxes, old_crops, old_probs, old_ages = last
            iou, _ = pairwise_overlap(boxes, old_boxes)
            best = iou.argmax(axis=1)
            near = np.flatnonzero((iou[np.arange(n), best] >= REUSE_IOU) & (old_ages[best] < REUSE_MAX_FRAMES))
            if len(near):
                j = best[near]
                same = reading_unchanged(old_crops[j], cut(old_boxes[j]))
                src[near[same]] = j[same]
        reused = np.flatnonzero(src >= 0)
        kept_boxes = np.asarray(boxes, np.float32).copy()
        ages = np.zeros(n, np.int64)
        if len(reused):
            probs[reused] = old_probs[src[reused]]
            kept[reused] = old_crops[src[reused]]
            kept_boxes[reused] = old_boxes[src[reused]]      # where those crops were cut
            ages[reused] = old_ages[src[reused]] + 1
        fresh = np.flatnonzero(src < 0)
        if len(fresh):
            # only the indices read now are cut at their new boxes
            kept[fresh] = cut(boxes[fresh])
            probs[fresh] = read(boxes[fresh], kept[fresh])
        self._readings = (size, kept_boxes, kept, probs.copy(), ages)
        return probs, reused
