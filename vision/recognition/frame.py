"""One frame's state while it is read: made for each call, gone when it returns.

A camera source may refill one array with each new frame, so nothing cut from a frame may
outlive its reading: the picture the crops are cut from, the full view as the detector saw it,
the outline finder's quads and the boxes set aside by the merge of two passes all live here.
"""
from __future__ import annotations

import threading
from concurrent.futures import Future

import numpy as np

from tableref.vision.crops import cutting_picture, index_crops
from tableref.vision.outlines import find_card_quads
from tableref.vision.recognition.helper import HelperThread, job_result
from tableref.vision.recognition.timing import RecognitionStats
from tableref.vision.views import View, shown_whole


class FrameReading:
    """The reading of one BGR ``image``.

    ``helper``: the recogniser's helper thread, which makes the frame's cutting picture (with
    ``cut_in_helper``) and looks for lone cards' outlines (with ``find_outlines``) beside the
    detector, once :meth:`start_helpers` is called: from the start of a lone detector run, when
    the first of the last runs side by side is done, or once the indices are found."""

    def __init__(self, image: np.ndarray, helper: HelperThread, *, find_outlines: bool = False,
                 cut_in_helper: bool = False, detector_image: np.ndarray | None = None):
        self.image = image
        # the picture the detector looks for indices in: ``image`` (which the classifier reads), or a
        # soft frame sharpened for the detector alone (``RecognizerConfig.unsoften_reads`` False)
        self.detector_image = image if detector_image is None else detector_image
        # the picture lost its fine print: measured soft (``images.is_soft``) or small (``vision.twins``)
        self.coarse = False
        self.stats = RecognitionStats()
        self.full_view: View | None = None          # the whole frame letterboxed, if it was read
        self.full_picture: np.ndarray | None = None  # ... as rendered for the detector
        # with ``rival_reread``: the boxes of the turned and the plain pass that their merge set
        # aside, each beside the box kept on its index (``plan.ScalePlan.merge_turned``)
        self.rivals: tuple | None = None
        self.repeated: set = set()   # the index boxes whose readings were kept from the last frame
        self.inks: dict = {}         # the index boxes' ink measured (``ink.measured``)
        self._helper = helper
        self._lock = threading.Lock()
        # what is wanted of the helper and not started yet
        self._outlines_wanted = find_outlines
        self._cutting_wanted = cut_in_helper
        self._cutting: np.ndarray | Future | None = None     # the cutting picture, or the job making it
        self._quads: Future | None = None

    def start_helpers(self) -> None:
        """Start what is wanted of the helper thread and not started yet: the cutting picture of the
        crops, then the outline finder; whichever thread calls first starts it."""
        with self._lock:
            outlines, self._outlines_wanted = self._outlines_wanted, False
            cutting, self._cutting_wanted = self._cutting_wanted, False
        if cutting:
            self._cutting = self._helper.submit(cutting_picture, self.image)
        if outlines:
            self._quads = self._helper.submit(find_card_quads, self.image, shrunk=self.shrunk())

    def crops(self, image: np.ndarray, boxes: np.ndarray, size: int, margin: float) -> np.ndarray:
        """The classifier's crops of ``boxes`` in ``image``; from this frame, cut from its
        :func:`cutting_picture` where the helper makes one."""
        if self._cutting is None or image is not self.image:
            return index_crops(image, boxes, size=size, margin=margin)
        if not isinstance(self._cutting, np.ndarray):     # the helper's job
            self._cutting = job_result(self._cutting, self.stats)
        return index_crops(self._cutting, boxes, size=size, margin=margin)

    def quads(self) -> list[np.ndarray] | None:
        """The outline finder's quads, if the helper looked for them (waits for it)."""
        if self._quads is None:
            return None
        quads, self._quads = job_result(self._quads, self.stats), None
        return quads

    def shrunk(self) -> np.ndarray | None:
        """The full view as rendered for the detector, without its padding, if it was read (the
        outline finder looks at it instead of shrinking the frame again)."""
        if self.full_picture is None:
            return None
        h, w = self.image.shape[:2]
        return shown_whole(self.full_picture, self.full_view, w, h)
