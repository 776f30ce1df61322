"""A still table read again afresh, in a background thread beside the camera loop.

A camera's frames are read at photo quality too (``live_table_preset``), but a fixed camera's
loop keeps what it read where the picture has not changed (the boxes of an unchanged view, the
reading of an unchanged index) and reads one frame at a time as the camera gives them. Once a part
of the table has been still, the live session hands :class:`StillReader` that part of the newest
frame; it is read afresh with the photo settings, on its own scale plan for that region, on one
thread of its own while the camera loop goes on with the other core, and the cards found come back
(in the frame's pixels) as evidence for the tracker that weighs a camera look several times
(:meth:`vision.tracking.TableTracker.add_photo_readings`). One region at a time: while a reading is
under way, new requests are refused (the next still moment asks again).

    reader = StillReader()
    if reader.submit(frame, (x1, y1, x2, y2), t):       # False while busy
        ...
    done = reader.take()                       # None, or (t, region, cards) of the last request
"""
from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable

import numpy as np

from tableref.vision.recognition.presets import camera_preset
from tableref.vision.types import DetectedCard


def _default_recognizer():
    from tableref.vision.recognition.recognizer import CardRecognizer

    # one thread: the camera loop keeps the other core
    # a camera's frame read at photo quality (the camera's settings): part of a live table's evidence,
    # so a contradicted card is only unsure, a lamp's glare is taken off and the classifier is
    # computed in bfloat16 where that was checked
    return CardRecognizer(threads=1, config=camera_preset())


def shifted(card: DetectedCard, dx: float, dy: float) -> DetectedCard:
    """``card`` read in a region whose top-left corner lies at (dx, dy) of the frame, in frame pixels."""
    x1, y1, x2, y2 = card.box
    card.box = (x1 + dx, y1 + dy, x2 + dx, y2 + dy)
    if card.quad:
        card.quad = [[x + dx, y + dy] for x, y in card.quad]
    card.indices = [(a + dx, b + dy, c + dx, d + dy) for a, b, c, d in card.indices]
    return card


class StillReader:
    """Reads regions of still frames at photo quality, one at a time, in its own thread.

    ``make_recognizer``: builds the recogniser (in the reader's thread, on first use; default the
    committed models with ``camera_preset``, photo quality, on one thread)."""

    def __init__(self, make_recognizer: Callable[[], object] | None = None):
        self._make = make_recognizer or _default_recognizer
        self._recognizer = None
        self._pool: ThreadPoolExecutor | None = None
        self._job: Future | None = None
        self._lock = threading.Lock()
        self.regions_read = 0

    @property
    def busy(self) -> bool:
        job = self._job
        return job is not None and not job.done()

    def submit(self, image: np.ndarray, region: tuple[float, float, float, float], t: float) -> bool:
        """Read ``region`` (x1, y1, x2, y2, frame pixels) of ``image`` (frame time ``t``) in the
        background. False (nothing done) while an earlier reading is under way or not yet taken."""
        with self._lock:
            if self._job is not None:
                return False
            h, w = image.shape[:2]
            x1, y1 = max(0, int(region[0])), max(0, int(region[1]))
            x2, y2 = min(w, int(np.ceil(region[2]))), min(h, int(np.ceil(region[3])))
            if x2 - x1 < 8 or y2 - y1 < 8:
                return False
            crop = np.ascontiguousarray(image[y1:y2, x1:x2])     # a copy: the source refills its frame
            if self._pool is None:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="tableref-still")
            self._job = self._pool.submit(self._read, crop, (x1, y1, x2, y2), float(t))
            return True

    def take(self) -> tuple[float, tuple[int, int, int, int], list[DetectedCard]] | None:
        """The finished reading, once: ``(t, region, cards)``, the cards in frame pixels; None while
        there is none, or the reading failed or found the region too blurred to read (a shaken
        camera: ``RecognizerConfig.max_motion_blur``)."""
        with self._lock:
            job = self._job
            if job is None or not job.done():
                return None
            self._job = None
        try:
            return job.result()
        except Exception:  # noqa: BLE001 - a failed re-read only means no extra evidence
            return None

    def _read(self, crop: np.ndarray, region: tuple[int, int, int, int], t: float):
        if self._recognizer is None:
            self._recognizer = self._make()
        cards = self._recognizer.recognize(crop)
        self.regions_read += 1
        if getattr(getattr(self._recognizer, "last_stats", None), "blurred", False):
            return None             # not read: no evidence, and the region is asked for again
        return t, region, [shifted(c, float(region[0]), float(region[1])) for c in cards]

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
