"""The card recogniser: the two committed networks wired into one reading of a frame.

``models/recognition.json`` (``spec``) names a YOLO detector of corner indices (the printed
rank+suit) and a classifier of their crops. :class:`CardRecognizer` finds the indices at the
scales the plan chooses (``finder``), reads them (``reader``), hands the readings to
:func:`vision.assembly.assemble`, which turns them into physical cards, adds lone cards found
by their outline (``vision.outlines``) and reports the confident ones (``confidence``). The
settings come from a preset (``presets``); one frame's state lives in a :class:`FrameReading`
made for that call, what is kept from one frame to the next in the :class:`FrameMemo`.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from tableref.vision.assembly import IndexReading, assemble
from tableref.vision.outlines import merge_outline_cards, read_outline_cards
from tableref.vision.recognition import ink
from tableref.vision.recognition.confidence import split_cards
from tableref.vision.recognition.finder import IndexFinder
from tableref.vision.recognition.frame import FrameReading
from tableref.vision.recognition.helper import HelperThread
from tableref.vision.recognition.images import (blur_sigma, deglare, ensure_bgr, is_soft, motion_blur, unsoften,
                                                 unsoften_amount)
from tableref.vision.recognition.images import sharpness as measure_sharpness
from tableref.vision.recognition.memo import FrameMemo
from tableref.vision.recognition.plan import ScalePlan
from tableref.vision.recognition.presets import MOTION_MIN_INDICES, MOTION_MIN_PX, RecognizerConfig, camera_preset
from tableref.vision.recognition.reader import IndexReader
from tableref.vision.recognition.spec import read_spec
from tableref.vision.recognition.timing import RecognitionStats
from tableref.vision.runtime import (Network, camera_detector_openvino, choose_backend, classifier_bf16, default_models_dir,
                                     keep_freed_memory, take_timed_bf16)
from tableref.vision.twins import small_picture
from tableref.vision.types import DetectedCard, FrameObservation
from tableref.vision.views import PAD_VALUE, View, letterbox_view


class CardRecognizer:
    """Finds the face-up cards in a BGR image.

    >>> rec = CardRecognizer(config=photo_preset())   # the committed models, a photo's settings
    >>> cards = rec.recognize(image_bgr)              # list[DetectedCard], one per physical card

    ``config``: a preset (``presets``; default :func:`camera_preset`'s). ``threads``: CPU threads
    of each network. Raises ``ModelError`` where the models are missing or do not fit.
    """

    def __init__(self, models_dir: str | Path | None = None, threads: int = 2,
                 config: RecognizerConfig | None = None):
        self.models_dir = Path(models_dir) if models_dir else default_models_dir()
        self.config = config = config or camera_preset()
        keep_freed_memory()
        self.spec = spec = read_spec(self.models_dir)
        # the fast classifier where asked for and present (models without one read with the full one)
        fast = spec.fast_classifier_file
        self.fast_classifier = bool(config.fast_classifier and fast and (self.models_dir / fast).exists())
        self.det_path = spec.model_file(spec.detector_file, config.precision)
        self.cls_path = spec.model_file(fast if self.fast_classifier else spec.classifier_file, config.precision)
        self.backend, self.backend_reason = choose_backend(config.backend, self.models_dir,
                                                           [self.det_path, self.cls_path])
        # the detector of a camera's frames in OpenVINO where that was checked (runtime.camera_detector_openvino)
        self.det_openvino, self.det_runtime_reason = camera_detector_openvino(
            config.detector_openvino, config.backend, self.backend, self.models_dir, self.det_path)
        # (ONNX Runtime with OpenVINO for the sizes that repeat; "on", the check: compiled before the
        # run that asks, so that the same runs go to the same runtime every time)
        self.det_net = Network(self.det_path, threads, "openvino" if self.det_openvino else self.backend,
                               fixed_sizes=self.det_openvino and self.backend != "openvino",
                               compile_beside=config.detector_openvino != "on")
        # the classifier of a camera's frames in bfloat16 where that was checked (runtime.classifier_bf16)
        self.cls_bf16, self.cls_precision_reason = classifier_bf16(config.classifier_bf16, config.backend,
                                                                   self.models_dir, self.cls_path, threads, self.backend)
        # (in bfloat16, the network compiled to time it where this recogniser was the one to ask)
        self.cls_net = (self.cls_bf16 and take_timed_bf16(self.cls_path, threads)) or \
            Network(self.cls_path, threads, "openvino" if self.cls_bf16 else self.backend, bf16=self.cls_bf16)
        self.plan = ScalePlan.for_detector(config, spec, self.det_net.input_shape)
        self.band = self.plan.band
        self.imgsz, self.rect_stride = self.plan.imgsz, self.plan.rect_stride
        self.names, self.none_index, self.geometry = list(spec.names), spec.none_index, spec.geometry
        self.crop_size, self.crop_margin = spec.crop_size, spec.crop_margin
        self.memo = FrameMemo()
        self.finder = IndexFinder(self.det_net, self.plan, self.memo)
        self.reader = IndexReader(self.cls_net, config, spec.names, spec.crop_size, spec.crop_margin, self.memo)
        self._helper = HelperThread()
        self.last_blur: float | None = None     # the last picture's blur where measured (picture)
        self.last_stats = RecognitionStats()
        self.last_coarse = False                # whether the last picture's fine print was lost to its reading

    @property
    def runtimes(self) -> str:
        """Which runtime computes each network, in words: "detector onnxruntime (openvino for the sizes
        that repeat), classifier openvino bfloat16"."""
        return (f"detector {self.det_net.runtime}, classifier {self.cls_net.runtime}"
                f"{' bfloat16' if self.cls_bf16 else ''}")

    def settle(self) -> None:
        """Wait for what the networks prepare beside the frames (a copy of the detector compiled for
        an input size that repeats: ``runtime.Network(fixed_sizes=True)``)."""
        self.det_net.settle()
        self.cls_net.settle()

    # -- a frame ---------------------------------------------------------------

    def recognize(self, image: np.ndarray, read_blurred: bool = False) -> list[DetectedCard]:
        """Physical cards in a BGR uint8 image (H, W, 3), most confident first; none where the frame
        is declared blurred (``RecognizerConfig.max_motion_blur``; ``read_blurred``: read it all the
        same). :attr:`last_stats` says what was done."""
        return self._read(image, read_blurred)[0]

    def _read(self, image: np.ndarray, read_blurred: bool = False) -> tuple[list[DetectedCard], list[DetectedCard]]:
        """(cards, unsure readings) of one image (``confidence.split_cards``)."""
        t0, c0 = time.perf_counter(), time.thread_time()
        frame = self._frame(image, find_outlines=self.config.outlines, cut_in_helper=True)
        self.last_stats = stats = frame.stats
        self.last_coarse = frame.coarse
        stats.count_view(t0, c0)          # the picture made ready (the glare taken off) is part of the views
        readings = self._read_indices(frame)
        if self._shaken(frame, readings) and not read_blurred:
            frame.quads()                 # the outline finder's job done (the helper is free again)
            stats.ms_total = (time.perf_counter() - t0) * 1000
            stats.cpu_ms_thread = (time.thread_time() - c0) * 1000
            return [], []
        h, w = frame.image.shape[:2]
        t1 = time.perf_counter()
        cards = assemble(readings, self.names, self.geometry, min_confidence=0.0, image_size=(w, h),
                         det_power=self.config.det_score_power, several_packs=self.config.several_packs)
        t2 = time.perf_counter()
        stats.ms_assembly = (t2 - t1) * 1000
        if self.config.outlines:
            cards = merge_outline_cards(cards, self._outline_cards(frame, cards), self.config.min_card_confidence)
            stats.ms_outlines = (time.perf_counter() - t2) * 1000
        cards, unsure = split_cards(cards, self.config, frame.repeated, readings, self.names, frame.image,
                                    self.geometry, frame.inks,
                                    coarse=frame.coarse)
        stats.ms_total = (time.perf_counter() - t0) * 1000
        stats.cpu_ms_thread = (time.thread_time() - c0) * 1000
        return cards, unsure

    def observe(self, image: np.ndarray, t: float = 0.0, sharpness: float | None = None,
                read_blurred: bool = False) -> FrameObservation:
        """A :class:`FrameObservation` of one frame (its cards, with a sharpness measure:
        ``sharpness`` where the caller has measured it already, ``images.sharpness``). A frame
        declared blurred (``RecognizerConfig.max_motion_blur``) is not read: ``read`` False
        (``read_blurred``: read it all the same; :attr:`last_stats` says whether it was declared)."""
        image = ensure_bgr(image)
        cards, unsure = self._read(image, read_blurred)
        h, w = image.shape[:2]
        s = measure_sharpness(image) if sharpness is None else float(sharpness)
        return FrameObservation(t=t, width=w, height=h, cards=cards, sharpness=s, unsure=unsure,
                                read=not (self.last_stats.blurred and not read_blurred),
                                soft=is_soft(self.last_blur), coarse=self.last_coarse)

    def _shaken(self, frame: FrameReading, readings: list[IndexReading]) -> bool:
        """Whether the frame's index boxes are blurred along one direction by more than
        ``max_motion_blur`` of their median height, and by ``MOTION_MIN_PX`` at least (recorded in
        ``frame.stats``)."""
        blur, frame.stats.blurred = self._motion(frame.image, [r.box for r in readings])
        if blur is not None:
            frame.stats.motion_blur = blur
        return frame.stats.blurred

    def _motion(self, image: np.ndarray, boxes: list) -> tuple[float | None, bool]:
        """(the blur along one direction measured inside ``boxes``, or None where not measured; whether
        that declares the picture blurred: ``max_motion_blur`` of the boxes' median height, and
        ``MOTION_MIN_PX`` at least)."""
        limit = self.config.max_motion_blur
        if limit <= 0.0 or len(boxes) < MOTION_MIN_INDICES:
            return None, False
        blur = motion_blur(image, boxes)
        return blur, blur > max(MOTION_MIN_PX, limit * float(np.median([b[3] - b[1] for b in boxes])))

    def declared_blurred(self, image: np.ndarray, boxes: list) -> bool:
        """Whether a frame whose indices lie at ``boxes`` (source pixels, as :meth:`find_indices` gives
        them) would be declared blurred and not read (the training crops leave such frames out)."""
        return self._motion(self._frame(image).image, [list(map(float, b)) for b in boxes])[1]

    def warmup(self, frame_size: tuple[int, int] | None = None) -> None:
        """One run of each model on blank input (the first ONNX Runtime run is slow).

        The first run at each new input shape is slow too (the runtime plans its memory per
        shape): with ``frame_size`` (w, h) the detector is also run at the shape that frames of
        that size are read at, so the first real frame is timed as every later one.
        """
        blank = np.full((self.imgsz, self.imgsz, 3), PAD_VALUE, np.uint8)
        self.detect_view(blank, letterbox_view(self.imgsz, self.imgsz, self.imgsz))
        if frame_size is not None:
            self.detect_view(blank, self.plan.full_view(*frame_size))
        self.classify(blank, np.array([[0, 0, 20, 40]] * 8, np.float32), tta=False)

    def _read_indices(self, frame: FrameReading) -> list[IndexReading]:
        """The frame's corner indices found and read (``none`` dropped)."""
        t0 = time.perf_counter()
        boxes, scores = self.finder.find(frame)
        frame.start_helpers()        # unless a detector run started them
        t1 = time.perf_counter()
        if self.config.reuse_readings:
            probs = self.reader.classify_reusing(frame, boxes)
        else:
            probs = self.reader.classify(frame, frame.image, boxes)
        if frame.rivals is not None:
            boxes, scores, probs = self.reader.read_rivals(frame, boxes, scores, probs)
        if self.config.doubt_ink:
            probs = ink.steer(frame.image, boxes, probs, self.names, frame.inks)
        if self.config.reuse_scale_frames:
            self.memo.keep_read_full_only(boxes, probs.argmax(axis=1) != self.none_index)
        t2 = time.perf_counter()
        frame.stats.ms_detect = (t1 - t0) * 1000
        frame.stats.ms_classify = (t2 - t1) * 1000
        real = np.flatnonzero(probs.argmax(axis=1) != self.none_index)
        readings = [IndexReading(box=tuple(b), score=s, probs=probs[k])
                    for k, b, s in zip(real.tolist(), boxes[real].tolist(), scores[real].tolist())]
        frame.stats.indices = len(readings)
        return readings

    def _outline_cards(self, frame: FrameReading, known: list[DetectedCard] | None) -> list[DetectedCard]:
        """Cards lying apart, found by their outline (``vision.outlines.read_outline_cards``), with
        the quads the helper thread found for this frame if it did."""
        quads = frame.quads()

        def classify(image, boxes, tta=None):
            return self.reader.classify(frame, image, boxes, tta)

        c = self.config
        return read_outline_cards(frame.image, classify, self.geometry.layouts()[: c.outline_layouts], self.names,
                                  self.none_index, known, c.min_card_confidence, c.tta_max_crops,
                                  shrunk=frame.shrunk(), quads=quads)

    # -- the steps, one at a time (tools and tests) ------------------------------

    def read_indices(self, image: np.ndarray) -> list[IndexReading]:
        """The corner indices of ``image`` found and read (``none`` dropped), as :meth:`recognize`
        reads them before the assembly (:attr:`last_stats` says what was done)."""
        frame = self._frame(image)
        self.last_stats = frame.stats
        return self._read_indices(frame)

    def outline_cards(self, image: np.ndarray, known: list[DetectedCard] | None = None) -> list[DetectedCard]:
        """Cards lying apart in ``image``, found by their outline as :meth:`recognize` finds them."""
        frame = self._frame(image)
        h, w = frame.image.shape[:2]
        frame.full_view = self.plan.full_view(w, h)
        frame.full_picture = self.finder.canvas.render(frame.image, frame.full_view)
        return self._outline_cards(frame, known)

    def find_indices(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """All index boxes (source pixels) and detector scores, at a suitable scale."""
        return self.finder.find(self._frame(image))

    def classify(self, image: np.ndarray, boxes: np.ndarray, tta: bool | None = None) -> np.ndarray:
        """Probabilities (N, len(names)) for index boxes in source pixels (``IndexReader.classify``)."""
        frame = self._frame(image)
        return self.reader.classify(frame, frame.image, boxes, tta)

    def detect_view(self, image: np.ndarray, view: View, turned: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Run the detector on one view; boxes in INPUT pixels of the view, scores. ``turned``: the
        detector reads the view turned by 90° clockwise (the boxes are mapped back)."""
        return self.finder.detect_group(self._frame(image), [(view, turned)])[0]

    def detect_full_and_turned(self, image: np.ndarray, view: View):
        """:meth:`detect_view` of ``view`` as it is and turned, the two runs side by side (one core
        each): the same boxes as two calls, in less time."""
        return tuple(self.finder.detect_group(self._frame(image), [(view, False), (view, True)]))

    def picture(self, image: np.ndarray) -> np.ndarray:
        """The picture the recogniser's classifier reads of ``image``: BGR, with a lamp's glare taken
        off and a soft camera's blur partly undone where the settings say so (``images.deglare``,
        ``images.unsoften``; with ``unsoften_reads`` False the detector alone sees it sharpened).
        How soft it is (``images.blur_sigma``) is kept in :attr:`last_blur` where measured: with
        ``unsoften``, and on a table of several packs (``confidence.unsure_twins``), else None."""
        return self.pictures(image)[0]

    def pictures(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the picture the classifier reads, the picture the detector looks at) of ``image``: one and
        the same but where ``unsoften_reads`` is False (see :meth:`picture`)."""
        c = self.config
        image = ensure_bgr(image)
        image = deglare(image) if c.deglare else image
        self.last_blur = None
        if not (c.unsoften or c.several_packs):
            return image, image
        # a fixed camera's focus is measured with its views, once every reuse_scale_frames + 1 frames
        size = (image.shape[1], image.shape[0])
        sigma = self.memo.kept_blur(size) if c.reuse_scale_frames else None
        if sigma is None:
            sigma = blur_sigma(image)
            if c.reuse_scale_frames:
                self.memo.keep_blur(size, sigma, c.reuse_scale_frames)
        self.last_blur = sigma
        sharpened = unsoften(image, unsoften_amount(sigma)) if c.unsoften else image
        return (sharpened if c.unsoften_reads else image), sharpened

    def _frame(self, image: np.ndarray, **helpers) -> FrameReading:
        """The reading of ``image`` made ready: its pictures, whether it lost its fine print; no work
        in the helper thread unless ``helpers`` (``FrameReading``'s options) ask for it."""
        read, detected = self.pictures(image)
        frame = FrameReading(read, self._helper, detector_image=detected, **helpers)
        # ... or, on a table of several packs, read coarsely: the quick reading of a slow machine (the
        # fast classifier, indices at about 26 px) read the real fan's half-covered 6S as the KS beside
        # it look after look, clean and dim, and counted it in 5 of 20 Marriage feeds; a one-pack table
        # sets such a misread aside, and there the coarse rules cost the quick reading 1-2 cards a feed
        frame.coarse = (is_soft(self.last_blur) or small_picture(read.shape[1], read.shape[0])
                        or (self.config.fast_classifier and self.config.several_packs))
        return frame
