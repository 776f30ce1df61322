"""The classifier's side of recognition: the probabilities of each index box's card.

Each box is cut into a crop (``vision.crops``, as the training crops were cut), read by the
classifier and, where the preset asks, looked at again (``looks``); with the memo, an index whose
picture is unchanged since the last frame keeps its reading.
"""
from __future__ import annotations

import time

import numpy as np

from tableref.vision.recognition import looks
from tableref.vision.recognition.frame import FrameReading
from tableref.vision.recognition.memo import FrameMemo
from tableref.vision.recognition.presets import RecognizerConfig
from tableref.vision.recognition.timing import RecognitionStats
from tableref.vision.runtime import Network


class IndexReader:
    """Reads index boxes with the classifier ``net`` (classes ``names``, crops ``crop_size`` px)."""

    def __init__(self, net: Network, config: RecognizerConfig, names: tuple[str, ...], crop_size: int,
                 crop_margin: float, memo: FrameMemo):
        self.net = net
        self.config = config
        self.n_classes = len(names)
        self.none_index = names.index("none")
        self.crop_size = crop_size
        self.crop_margin = crop_margin
        self.memo = memo
        # the classifier gives logits, not probabilities: told by its first output (read_inputs)
        self.gives_logits: bool | None = None

    def classify(self, frame: FrameReading, image: np.ndarray, boxes: np.ndarray,
                 tta: bool | None = None) -> np.ndarray:
        """Probabilities (N, classes) for index boxes in source pixels of ``image``.

        With few boxes (``tta_max_crops``) each crop is also read turned and the readings are
        averaged; with more, only the unsure ones (``looks.read_crops``)."""
        if len(boxes) == 0:
            return np.zeros((0, self.n_classes), dtype=np.float32)
        crops = self._cut(frame, image, boxes)
        if tta is None and len(crops) <= self.config.tta_max_crops:
            tta = True
        return self._read_crops(frame, image, boxes, crops, tta)

    def classify_reusing(self, frame: FrameReading, boxes: np.ndarray) -> np.ndarray:
        """:meth:`classify` of the frame's boxes, where an index whose picture is unchanged since the
        last frame keeps the reading it got then (``reuse_readings``; ``FrameMemo.read_reusing``)."""
        image = frame.image
        h, w = image.shape[:2]
        tta = True if len(boxes) <= self.config.tta_max_crops else None   # as if all were read now
        probs, reused = self.memo.read_reusing(
            (w, h), boxes, lambda b: self._cut(frame, image, b),
            lambda b, crops: self._read_crops(frame, image, b, crops, tta), self.n_classes, self.crop_size)
        if len(boxes):
            frame.stats.readings_reused = len(reused)
            frame.repeated = {tuple(float(v) for v in boxes[k]) for k in reused}
        return probs

    def read_rivals(self, frame: FrameReading, boxes: np.ndarray, scores: np.ndarray, probs: np.ndarray):
        """(boxes, scores, probs) with the frame's rival boxes read (``looks.read_rivals``)."""
        boxes, scores, probs, n = looks.read_rivals(lambda b: self.classify(frame, frame.image, b), boxes, scores,
                                                    probs, frame.rivals, self.none_index, self.config)
        frame.stats.rivals_read += n
        return boxes, scores, probs

    def read_inputs(self, x: np.ndarray, stats: RecognitionStats) -> np.ndarray:
        """The classifier's probabilities for crops already converted (``to_classifier_input``)."""
        outs = []
        bs = self.config.classify_batch
        for i in range(0, len(x), bs):
            batch = x[i:i + bs]
            t0, c0 = time.perf_counter(), time.thread_time()
            outs.append(self.net.run(batch))
            stats.count_classifier(t0, c0)
        probs = (outs[0] if len(outs) == 1 else np.concatenate(outs)).astype(np.float32, copy=False)
        # accept logits as well as probabilities: which the model gives is told by its first
        # output, and kept (the test costs more than a small batch's softmax check is worth)
        if self.gives_logits is None and len(probs):
            self.gives_logits = bool(probs.min() < 0 or np.abs(probs.sum(axis=1) - 1).max() > 1e-2)
        if self.gives_logits:
            e = np.exp(probs - probs.max(axis=1, keepdims=True))
            probs = e / e.sum(axis=1, keepdims=True)
        return probs

    def _cut(self, frame: FrameReading, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        return frame.crops(image, boxes, self.crop_size, self.crop_margin)

    def _read_crops(self, frame: FrameReading, image: np.ndarray, boxes: np.ndarray, crops: np.ndarray,
                    tta: bool | None) -> np.ndarray:
        return looks.read_crops(lambda x: self.read_inputs(x, frame.stats), lambda b: self._cut(frame, image, b),
                                boxes, crops, tta, self.config)
