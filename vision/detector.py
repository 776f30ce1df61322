"""Corner-index detection and card recognition on the CPU with ONNX Runtime.

Two committed models do the work (``models/recognition.json`` names them):

* a YOLO detector (one class, ``index``: the printed rank+suit in a card corner),
  fixed square input, output ``(1, 4 + nc, N)`` rows ``cx, cy, w, h`` in input
  pixels followed by class scores, no NMS inside;
* a classifier for 64×64 crops of those indices (cut by :func:`vision.crops.index_crop`,
  the same function the training data was cut with): 52 cards + ``none``.

:class:`CardRecognizer` runs both and hands the index readings to
:func:`vision.assembly.assemble`, which turns them into physical cards.

Scale. The detector sees indices well only in a band of sizes (in its input
pixels). The whole frame is letterboxed first; if the indices found are smaller
than that band (small cards in a large frame), the frame is searched again in
overlapping tiles at the scale that brings an index to the size the detector was
trained for; if they are larger (a card filling the frame), the frame is searched
again shrunk. Nothing found in a large frame also triggers the tiled search.
"""
from __future__ import annotations

import json
import math
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from tableref.vision.assembly import IndexGeometry, IndexReading, assemble
from tableref.vision.crops import CROP_MARGIN, CROP_SIZE, cutting_picture, index_crops, to_classifier_input
from tableref.vision.decoding import decode_yolo, nms, suppressed_rivals
from tableref.vision.geometry import box_size, pairwise_overlap
from tableref.vision.outlines import find_card_quads, merge_outline_cards
from tableref.vision.runtime import ModelError, default_models_dir, int8_variant, keep_freed_memory
from tableref.vision.runtime import Network, choose_backend
from tableref.vision.types import DetectedCard, FrameObservation
from tableref.vision.views import (PAD_VALUE, View, ViewCanvas, drop_cut_at_tile_edges, letterbox_view, render_view,
                                   shown_whole, tile_views)

# the names other modules and scripts take from here
__all__ = ["CardRecognizer", "RecognizerConfig", "RecognitionStats", "ModelError", "View", "decode_yolo", "nms",
           "drop_cut_at_tile_edges", "letterbox_view", "render_view", "tile_views", "ensure_bgr", "sharpness",
           "default_models_dir", "file_sha256", "PAD_VALUE"]
from tableref.vision.runtime import file_sha256  # noqa: E402


# --------------------------------------------------------------------------- tuning factors of the scale policy

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
# sharpness: the Laplacian variance of a grey copy at most SHARPNESS_SIDE px wide, squashed to
# 0..1 by v / (v + SHARPNESS_HALF)
SHARPNESS_SIDE = 640.0
SHARPNESS_HALF = 100.0


def geometric_mean(readings: np.ndarray) -> np.ndarray:
    """Readings (K, N, C) of the same N crops averaged as a geometric mean, each row summing to 1."""
    out = np.exp(np.log(np.clip(readings, 1e-6, 1.0)).mean(axis=0))
    return out / out.sum(axis=1, keepdims=True)


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


def reading_unchanged(read: np.ndarray, now: np.ndarray) -> np.ndarray:
    """For crops (N, S, S, 3) uint8 that were read and crops cut at the same boxes now: whether the
    picture is the same up to noise (see REUSE_MAX_DIFF)."""
    if len(read) == 0:
        return np.zeros(0, bool)
    n, side = read.shape[0], read.shape[1]
    f = side // REUSE_SIDE

    def small(c):
        return c.reshape(n, REUSE_SIDE, f, REUSE_SIDE, f, 3).mean(axis=(2, 4), dtype=np.float32)

    return np.abs(small(read) - small(now)).max(axis=(1, 2, 3)) <= REUSE_MAX_DIFF


# ``reuse_views``: a view's picture is compared averaged down by SIGNATURE_BLOCK in each direction
# (an 80x48 signature of a 640x384 view: noise averages out, a card laid, lifted or slid does not);
# the memo holds the views of the last frames (a Marriage count: the full view, 8 tiles)
SIGNATURE_BLOCK = 8
VIEW_MEMO_SIZE = 24


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


# a photo is read once and nobody waits for the next frame: where its indices come out under
# PHOTO_INDEX_PX[0] px at the detector's scale it is read again enlarged to about PHOTO_INDEX_PX[1]
# px (``RecognizerConfig.for_photos``). A camera's frames keep the faster band of recognition.json
# (16-20 px). In tight fans the indices read at ~20 px are missed more often: the real 720p
# fanned frame gives 44 of 51 cards at 20 px and 48 at 32 px (as the 1200 px photo of it), for
# about 40 % more time; the 296 real rank-only photos read the same (their indices are larger).
PHOTO_INDEX_PX = (28.0, 32.0)
# ... and read in one piece up to this many pixels (a 1080p photo enlarged), not in tiles
PHOTO_RECT_PIXELS = 2_200_000


@dataclass
class RecognizerConfig:
    """Thresholds and scale policy; defaults are what ``scripts/eval_recognition.py`` tuned."""

    det_conf: float = 0.25          # detector score to consider a box at all
    nms_iou: float = 0.5
    nms_ios: float = 0.6             # a box mostly inside another is a second box on one index
    min_card_confidence: float = 0.35   # report a card only above this
    det_score_power: float = 0.7    # weight of the detector score in a card's confidence (score ** power)
    # index size band (longer side, detector input pixels) the detector reads best;
    # None = take it from recognition.json or use the built-in default
    index_px_min: float | None = None
    index_px_target: float | None = None
    index_px_max: float | None = None
    max_upscale: float = 2.0        # never enlarge the source more than this
    max_tiles: int = 24             # a bound on the work for huge photos
    max_rect_pixels: int = 1_400_000  # a dynamic-input model reads an enlarged frame up to this size in one piece
    # video from a fixed camera: keep the enlarged views chosen for a frame for this many more
    # frames and skip the full view that chose them (0 = decide every frame; photos)
    reuse_scale_frames: int = 0
    blind_tile_min_side: int = 1600  # frames this large are tiled even if the first pass finds nothing
    shrink_when_empty: bool = True  # smaller frames are searched again shrunk if nothing is found
    # also read the full view turned by 90° where the indices are read at its scale (no enlarged or
    # shrunk pass follows): one more detector run
    turned_pass: bool = True
    outlines: bool = True           # also find lone cards by their outline and read their corners
    several_packs: bool = False     # cards of several packs (Marriage): identical cards lie side by side
    outline_layouts: int = 3        # deck layouts tried on each outline (recognition.json's first, then variants)
    tiling: bool = True
    classify_batch: int = 64
    tta_max_crops: int = 16         # read each crop turned too when there are at most this many (0 = never)
    tta_uncertain: float = 0.6      # with more crops, read those whose top probability is below this turned too (0 = never)
    # the quarter turns at which a crop is read again (the turned vote): a camera's frames on its two
    # sides (90° and 270°), photos (``for_photos``) upside down as well. On every real measure the
    # two quarter turns read exactly as all three (the real 720p fan frame, the 296 real photos as
    # camera frames) for a sixth fewer classifier runs a frame; the half turn alone is cheaper
    # still but lost a card on the real photos and a Marriage count of the rendered evaluation
    vote_turns: tuple[int, ...] = (1, 3)
    # crops still read with less than tta_uncertain are read again from their box shrunk to this
    # fraction about its centre, and the two readings averaged: in a tight fan the square
    # crop holds the neighbours' ranks and suits, the tighter one less of them (0 = never)
    tight_reread: float = 0.7
    # ... and that tighter crop read turned too (``vote_turns``): photos (``for_photos``); a camera's
    # frames read it once (the same cards on every real measure, 14 fewer classifier runs for the
    # real 720p fan frame)
    tight_turned: bool = False
    # an index read unsure from the box the detector scored best is read again from the box the
    # turned pass (or the plain one) put on it, which the merge of the two passes set aside; a
    # different card read there is kept as a reading of its own, and the assembly decides. The
    # best-scored box is not always the best placed: in a tight fan one box can sit half on the
    # neighbour's index. Costs classifier runs on the unsure indices: on for photos (``for_photos``)
    rival_reread: bool = False
    # video from a fixed camera: an index found where one was read in the last frame, whose picture
    # there has not changed since (``reading_unchanged``), keeps that reading instead of being read
    # again, for at most REUSE_MAX_FRAMES frames in a row (False: every frame is read afresh;
    # photos, benchmarks of one frame)
    reuse_readings: bool = False
    # ... and a view of the frame (the whole frame, turned, or a tile of an enlarged pass) whose picture
    # has not changed since the detector last read it (``picture_unchanged``) keeps the boxes found
    # then, for at most REUSE_MAX_FRAMES frames in a row
    reuse_views: bool = False
    # read the crops with the fast classifier (recognition.json "fast_file": a slimmer network, since
    # session 15 about a quarter of the full one's work a crop) where the models have one: a
    # camera's frames, whose cards the tracker sees again in the next frames; a single photo has no
    # next frame and is read with the full one (``for_photos``). The environment variable
    # TABLEREF_CLASSIFIER=full reads every frame with the full one.
    fast_classifier: bool = field(default_factory=lambda: os.environ.get("TABLEREF_CLASSIFIER", "fast") != "full")
    precision: str = "auto"         # "auto": int8 copies where valid, else float; "fp32"; "int8"
    # "auto": OpenVINO where installed and checked on these models, else ONNX Runtime; "onnxruntime";
    # "openvino". The environment variable TABLEREF_BACKEND sets the default (the live session too).
    backend: str = field(default_factory=lambda: os.environ.get("TABLEREF_BACKEND", "auto") or "auto")

    @classmethod
    def for_photos(cls, **changes) -> "RecognizerConfig":
        """The settings for single photos (``tableref detect``, ``tableref evaluate``): small indices
        are read enlarged further than in a camera's frames (``PHOTO_INDEX_PX``); ``changes`` set
        any other field."""
        return cls(**{"index_px_min": PHOTO_INDEX_PX[0], "index_px_target": PHOTO_INDEX_PX[1],
                      "max_rect_pixels": PHOTO_RECT_PIXELS, "fast_classifier": False, "rival_reread": True,
                      "vote_turns": (1, 2, 3), "tight_turned": True,
                      **changes})


@dataclass
class ViewRun:
    """One detector run on a view (:meth:`CardRecognizer._read_view`): its boxes and scores, when
    its input was converted and when it was in the network (perf_counter intervals), and the CPU
    time of its thread converting, in the network and decoding (seconds)."""

    boxes: np.ndarray
    scores: np.ndarray
    blob: tuple[float, float]
    net: tuple[float, float]
    cpu_blob: float
    cpu_net: float
    cpu_after: float


def _union(intervals: list[tuple[float, float]]) -> float:
    """The length of the union of (start, end) intervals."""
    total, end = 0.0, -math.inf
    for a, b in sorted(intervals):
        if b > end:
            total += b - max(a, end)
            end = b
    return total


@dataclass
class RecognitionStats:
    """What one ``recognize`` call did (for benchmarks and debugging)."""

    passes: list[str] = field(default_factory=list)
    detector_runs: int = 0
    runs_side_by_side: int = 0      # of those, run two at a time (one core each)
    readings_reused: int = 0        # indices that kept the last frame's reading (``reuse_readings``)
    views_reused: int = 0           # views that kept the boxes found in them before (``reuse_views``)
    rivals_read: int = 0            # boxes set aside by the merge of two passes, read too (``rival_reread``)
    indices: int = 0
    ms_detect: float = 0.0          # finding the index boxes: views, detector network, decoding, NMS
    ms_classify: float = 0.0        # reading them: crops and classifier network
    ms_assembly: float = 0.0        # readings to cards (vision.assembly)
    ms_outlines: float = 0.0        # lone cards by their outline, read and merged (crops and network included)
    # the detector's input pictures: each view cut, resized, padded and converted to the network's
    # float input (part of ms_detect; grows with the pixels read, not with the cards)
    ms_views: float = 0.0
    cpu_ms_views: float = 0.0
    ms_total: float = 0.0
    ms_detector_net: float = 0.0    # time inside the detector network alone
    ms_classifier_net: float = 0.0  # time inside the classifier network alone (outline reading included)
    # CPU time of the calling thread (what other jobs on a shared machine do not inflate): in all,
    # and inside the two networks (the runtime works in this thread too)
    cpu_ms_thread: float = 0.0
    cpu_ms_thread_net: float = 0.0
    # CPU time of the work outside the networks that helper threads did beside the calling thread
    # (the detector's input pictures and decoding of runs side by side, the crops' cutting picture,
    # the outline finder)
    cpu_ms_helpers: float = 0.0

    @property
    def ms_non_network(self) -> float:
        """Everything but the two networks: views, decoding, NMS, crops, assembly, outlines."""
        return self.ms_total - self.ms_detector_net - self.ms_classifier_net

    @property
    def cpu_ms_non_network(self) -> float:
        """The CPU time of everything but the two networks, in the calling thread and its helpers."""
        return self.cpu_ms_thread - self.cpu_ms_thread_net + self.cpu_ms_helpers

    @property
    def cpu_ms_per_card(self) -> float:
        """The CPU time of the work done per index and card: decoding, NMS, crops, assembly,
        outlines (everything but the networks and the detector's input pictures)."""
        return self.cpu_ms_non_network - self.cpu_ms_views


class CardRecognizer:
    """Finds the face-up cards in a BGR image.

    >>> rec = CardRecognizer()            # the committed models
    >>> cards = rec.recognize(image_bgr)  # list[DetectedCard], one per physical card
    """

    def __init__(self, models_dir: str | Path | None = None, threads: int = 2,
                 config: RecognizerConfig | None = None):
        self.models_dir = Path(models_dir) if models_dir else default_models_dir()
        self.config = config or RecognizerConfig()
        self._scale_memo = None   # (frame size, views, frames left) with config.reuse_scale_frames
        self._turned_size = None  # the size (w, h) of the last frame, if it was read turned too
        # reuse_readings: the last frame's (frame size, boxes, crops read, probabilities, frames reused)
        self._readings = None
        # the frame recognize() is reading and (that frame, its cutting picture or the helper's job
        # making it) for _crops; cleared when it returns (a caller may refill one array with each
        # new frame)
        self._frame = self._cutting = None
        self._cls_logits: bool | None = None    # the classifier gives logits, not probabilities (see _read_inputs)
        # rival_reread: the boxes of this frame's turned pass and plain pass that their merge set
        # aside, each beside the box kept on its index (boxes, scores, position of the kept box)
        self._rivals = None
        # this frame's full view (the whole frame letterboxed, if it was read) and its rendered
        # picture: the outline finder looks at it
        self._full_view = None
        self._full_picture = None
        # the outline finder's quads of this frame, being found in the helper thread (a future)
        self._quads = None
        self._helper_pool = None
        # ... the frame whose outlines are wanted but not yet being looked for, and the frame whose
        # cutting picture (_crops) is wanted but not yet being made (read_indices, _start_helpers)
        self._outlines_wanted = None
        self._cutting_wanted = None
        self._helpers_lock = threading.Lock()
        # reuse_views: (view, turned, frame size) -> (signature, boxes, scores, frames reused)
        self._view_memo: dict = {}
        self._repeated: set = set()  # the index boxes of this frame whose readings were kept (reuse_readings)
        self._canvas = ViewCanvas()
        keep_freed_memory()
        spec_path = self.models_dir / "recognition.json"
        if not spec_path.exists():
            raise ModelError(f"no recognition models: {spec_path} is missing")
        try:
            spec = json.loads(spec_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ModelError(f"cannot read {spec_path}: {exc}") from exc
        self.spec = spec
        try:
            det = spec["detector"]
            cls = spec["classifier"]
            det_file, cls_file = str(det["file"]), str(cls["file"])
            names = [str(n) for n in cls["names"]]
            fast_file = cls.get("fast_file")
        except (KeyError, TypeError, AttributeError) as exc:
            raise ModelError(f"{spec_path} lacks the detector or classifier entry ({exc})") from exc
        # the fast classifier where asked for and present (models without one read with the full one)
        self.fast_classifier = bool(self.config.fast_classifier and fast_file
                                    and (self.models_dir / str(fast_file)).exists())
        if self.fast_classifier:
            cls_file = str(fast_file)
        self.det_path = self._model_file(det_file)
        self.cls_path = self._model_file(cls_file)
        self.backend, self.backend_reason = choose_backend(self.config.backend, self.models_dir,
                                                           [self.det_path, self.cls_path])
        self.det_net = Network(self.det_path, threads, self.backend)
        self.cls_net = Network(self.cls_path, threads, self.backend)
        self.det_input = self.det_net.input_name
        self.cls_input = self.cls_net.input_name
        shape = self.det_net.input_shape
        imgsz = det.get("imgsz", 640)
        if isinstance(imgsz, (list, tuple)):
            imgsz = imgsz[0]
        self.dynamic = not (isinstance(shape[-1], int) and isinstance(shape[-2], int))
        if not self.dynamic:
            imgsz = shape[-1]
        self.imgsz = int(imgsz)
        # a model with a dynamic input shape reads a 16:9 frame in a 16:9 input (less work)
        self.rect_stride = int(det.get("stride", 32)) if self.dynamic else None
        self.crop_size = int(cls.get("imgsz", CROP_SIZE))
        self.crop_margin = float(cls.get("margin", CROP_MARGIN))
        self.names: list[str] = names
        if "none" not in self.names:
            raise ModelError("the classifier's names lack the 'none' class")
        self.none_index = self.names.index("none")
        self.geometry = IndexGeometry.from_spec(spec.get("index_geometry"))
        # index size band in detector input pixels
        band = det.get("index_px") or {}
        trained = det.get("index_px_trained")   # index heights the detector was trained on
        lo, hi = TRAINED_INDEX_PX
        if isinstance(trained, (list, tuple)) and len(trained) == 2:
            try:
                lo, hi = float(trained[0]), float(trained[1])
            except (TypeError, ValueError):
                pass
        c = self.config
        self.index_px_min = c.index_px_min or float(band.get("min", max(READ_MIN_PX, READ_MIN_FACTOR * lo)))
        self.index_px_target = c.index_px_target or float(band.get("target", math.sqrt(lo * hi) * READ_TARGET_FACTOR))
        self.index_px_max = c.index_px_max or float(band.get("max", hi))
        self.last_stats = RecognitionStats()

    def _model_file(self, name: str) -> Path:
        path = self.models_dir / name
        if not path.exists():
            raise ModelError(f"model file {path} is missing")
        precision = self.config.precision
        if precision == "fp32":
            return path
        q = int8_variant(path)
        if q is not None:
            return q
        if precision == "int8":
            raise ModelError(f"no valid int8 copy of {path} (run scripts/quantize_recognition.py)")
        return path

    # -- low level -------------------------------------------------------------

    def detect_view(self, image: np.ndarray, view: View, turned: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Run the detector on one view; boxes in INPUT pixels of the view, scores.

        ``turned``: the detector reads the view turned by 90° clockwise (the boxes are mapped back).
        """
        return self._detect_group(image, [(view, turned)])[0]

    def detect_full_and_turned(self, image: np.ndarray, view: View):
        """:meth:`detect_view` of ``view`` as it is and turned, the two runs side by side (one core
        each, :meth:`Network.map_side_by_side`): the same boxes as two calls, in less time."""
        return tuple(self._detect_group(image, [(view, False), (view, True)]))

    def _detect_group(self, image: np.ndarray, items: list[tuple[View, bool]]) -> list[tuple[np.ndarray, np.ndarray]]:
        """(boxes, scores) of each (view, turned) of ``items``, as :meth:`detect_view` gives them.

        Several are run two at a time side by side (one core each, :meth:`Network.map_side_by_side`).
        With ``reuse_views`` a view whose picture is unchanged since the detector last read it
        (:func:`picture_unchanged`) keeps the boxes found then, for at most REUSE_MAX_FRAMES frames
        in a row."""
        stats = self.last_stats
        reuse = self.config.reuse_views
        out: list = [None] * len(items)
        todo = []
        # a view read plain and turned is rendered once (and turned where it is read, beside the
        # other run): view -> (picture, signature); a turned view's signature is its picture's
        # before the turn (the same content)
        rendered: dict = {}
        for k, (view, turned) in enumerate(items):
            t0, c0 = time.perf_counter(), time.thread_time()
            if view not in rendered:
                picture = self._canvas.render(image, view)
                if view == self._full_view:
                    self._full_picture = picture
                rendered[view] = picture, picture_signature(picture) if reuse else None
            picture, sign = rendered[view]
            key = (view, turned, image.shape[:2])
            stats.ms_views += (time.perf_counter() - t0) * 1000
            stats.cpu_ms_views += (time.thread_time() - c0) * 1000
            seen = self._view_memo.get(key) if reuse else None
            if seen is not None and seen[3] < REUSE_MAX_FRAMES and picture_unchanged(seen[0], sign):
                out[k] = (seen[1].copy(), seen[2].copy())
                self._view_memo[key] = seen[:3] + (seen[3] + 1,)
                stats.views_reused += 1
                continue
            todo.append((k, view, turned, key, sign, picture))
        group = self.det_net.side_by_side
        for g in range(0, len(todo), group):
            part = todo[g:g + group]
            t0, c0 = time.perf_counter(), time.thread_time()
            # the first of the last runs side by side to finish leaves its core idle until the
            # other one finishes: it starts the helper thread's work there (earlier ones would
            # compete with the next runs); a lone run, on two threads, leaves part of the two cores
            # idle all along: the helper thread's work starts with it
            last = len(part) > 1 and g + group >= len(todo)
            if len(part) == 1:
                self._start_helpers()
            runs = self.det_net.map_side_by_side(self._read_view, [(view, turned, picture, last)
                                                                    for _, view, turned, _, _, picture in part])
            self._count_detector(t0, c0, runs)
            for (k, view, turned, key, sign, _), run in zip(part, runs):
                out[k] = run.boxes, run.scores
                if reuse:
                    if len(self._view_memo) >= VIEW_MEMO_SIZE:
                        self._view_memo.pop(next(iter(self._view_memo)))
                    self._view_memo.pop(key, None)
                    self._view_memo[key] = (sign, run.boxes.copy(), run.scores.copy(), 0)
        return out

    def _read_view(self, run, slot: int, item: tuple) -> "ViewRun":
        """One detector run on a rendered view, (view, turned, picture, start helpers): the picture
        turned (if ``turned``) and converted to the network's input, the run (``run``,
        :meth:`Network.map_side_by_side`), its output decoded (:meth:`_view_boxes`); in whichever
        thread it is called, so it keeps its own times. With "start helpers", the helper thread's
        work starts when the run is done (:meth:`_start_helpers`, if not started yet)."""
        view, turned, picture, start_helpers = item
        c0, t0 = time.thread_time(), time.perf_counter()
        if turned:
            picture = cv2.rotate(picture, cv2.ROTATE_90_CLOCKWISE)
        blob = self.det_net.image_blob(picture, slot)
        t1, c1 = time.perf_counter(), time.thread_time()
        raw = run(blob)
        t2, c2 = time.perf_counter(), time.thread_time()
        if start_helpers:
            self._start_helpers()
        boxes, scores = self._view_boxes(raw, view, turned)
        return ViewRun(boxes, scores, (t0, t1), (t1, t2), c1 - c0, c2 - c1, time.thread_time() - c2)

    def _count_detector(self, t0: float, c0: float, runs: list["ViewRun"]) -> None:
        """Counts a group of detector runs begun at ``t0`` (``c0`` this thread's CPU time then). The
        network's wall time is the time while at least one run was in the network; the input
        pictures' is the time while one was being converted and none in the network. Several runs
        went side by side in helper threads (:meth:`Network.map_side_by_side`): this thread waited
        meanwhile (counted with the network, as its CPU time inside the runtime), and the helpers'
        CPU time outside the network is added to :attr:`RecognitionStats.cpu_ms_helpers`."""
        stats = self.last_stats
        in_helpers = len(runs) > 1
        net = _union([r.net for r in runs])
        stats.ms_detector_net += net * 1000
        stats.ms_views += (_union([r.blob for r in runs] + [r.net for r in runs]) - net) * 1000
        stats.cpu_ms_views += sum(r.cpu_blob for r in runs) * 1000
        if in_helpers:
            stats.cpu_ms_thread_net += (time.thread_time() - c0) * 1000
            stats.cpu_ms_helpers += sum(r.cpu_blob + r.cpu_after for r in runs) * 1000
            stats.runs_side_by_side += len(runs)
        else:
            stats.cpu_ms_thread_net += sum(r.cpu_net for r in runs) * 1000
        stats.detector_runs += len(runs)

    def _view_boxes(self, out: np.ndarray, view: View, turned: bool) -> tuple[np.ndarray, np.ndarray]:
        """The detector's output for one view as boxes in the view's input pixels and scores."""
        boxes, scores = decode_yolo(out, self.config.det_conf)
        keep = nms(boxes, scores, self.config.nms_iou, self.config.nms_ios)
        boxes, scores = boxes[keep], scores[keep]
        if turned and len(boxes):
            # a point (x', y') of the turned picture is (y', H - x') of the view, H its height
            hh = view.height_px
            boxes = np.stack([boxes[:, 1], hh - boxes[:, 2], boxes[:, 3], hh - boxes[:, 0]], axis=1)
        return boxes, scores

    def detect_views(self, image: np.ndarray, views: list[View]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Detect in several views; merge. Returns source boxes, scores, sizes in input px."""
        h, w = image.shape[:2]
        all_boxes, all_scores, all_sizes = [], [], []
        for v, (b, s) in zip(views, self._detect_group(image, [(v, False) for v in views])):
            if len(views) > 1:
                ok = drop_cut_at_tile_edges(b, v, w, h)
                b, s = b[ok], s[ok]
            all_sizes.append(box_size(b))
            all_boxes.append(v.to_source(b))
            all_scores.append(s)
        boxes = np.concatenate(all_boxes) if all_boxes else np.zeros((0, 4), np.float32)
        scores = np.concatenate(all_scores) if all_scores else np.zeros(0, np.float32)
        sizes = np.concatenate(all_sizes) if all_sizes else np.zeros(0, np.float32)
        return boxes, scores, sizes

    def classify(self, image: np.ndarray, boxes: np.ndarray, tta: bool | None = None) -> np.ndarray:
        """Probabilities (N, len(names)) for index boxes in source pixels.

        With few boxes (``tta_max_crops``) each crop is also read turned (``vote_turns``:
        90° and 270°, or 90°, 180° and 270°) and the readings are averaged (geometric mean): indices
        lie at any angle on a table, so the turned crops are as natural as the
        original, and the vote steadies uncertain readings at little cost. With more
        boxes, only the crops read with less than ``tta_uncertain`` are read turned.
        """
        if len(boxes) == 0:
            return np.zeros((0, len(self.names)), dtype=np.float32)
        crops = self._crops(image, boxes)
        if tta is None and len(crops) <= self.config.tta_max_crops:
            tta = True
        return self._classify_crops(image, boxes, crops, tta)

    def _crops(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """The classifier's crops of ``boxes`` in ``image``; within :meth:`recognize`, cut from the
        frame's :func:`cutting_picture`, made once (by the helper thread, :meth:`_start_helpers`)."""
        cut = self._cutting
        if cut is None or cut[0] is not image:
            return index_crops(image, boxes, size=self.crop_size, margin=self.crop_margin)
        picture = cut[1]
        if not isinstance(picture, np.ndarray):     # the helper's job
            picture = self._helper_result(picture)
            self._cutting = (image, picture)
        return index_crops(picture, boxes, size=self.crop_size, margin=self.crop_margin)

    def _classify_crops(self, image: np.ndarray, boxes: np.ndarray, crops: np.ndarray, tta: bool | None) -> np.ndarray:
        """:meth:`classify` of ``crops`` cut at ``boxes``; ``tta`` True (every crop read turned too),
        None (the unsure ones) or False (one reading)."""
        x = to_classifier_input(crops)      # converted once, turned as floats (below)
        if tta:
            return self._read_tight(image, boxes, self._read_turned(x, self._read_inputs(x)))
        probs = self._read_inputs(x)
        if tta is False or self.config.tta_uncertain <= 0:   # False: the caller asked for one reading
            return probs
        unsure = np.flatnonzero(probs.max(axis=1) < self.config.tta_uncertain)
        if len(unsure):
            probs[unsure] = self._read_turned(x[unsure], probs[unsure])
        return self._read_tight(image, boxes, probs)

    def _classify_reusing(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """:meth:`classify`, but an index whose picture is unchanged since the last frame keeps the
        reading it got then (``reuse_readings``; see :func:`reading_unchanged`), for at most
        REUSE_MAX_FRAMES frames in a row. The crops kept are those that were read, so a picture that
        drifts slowly is read again once it has drifted."""
        h, w = image.shape[:2]
        n = len(boxes)
        memo, self._readings = self._readings, None
        if n == 0:
            return np.zeros((0, len(self.names)), dtype=np.float32)
        tta = True if n <= self.config.tta_max_crops else None   # as if all were read now
        probs = np.zeros((n, len(self.names)), dtype=np.float32)
        kept = np.empty((n, self.crop_size, self.crop_size, 3), np.uint8)
        src = np.full(n, -1)
        if memo is not None and memo[0] == (w, h) and len(memo[1]):
            _, old_boxes, old_crops, old_probs, old_ages = memo
            iou, _ = pairwise_overlap(boxes, old_boxes)
            best = iou.argmax(axis=1)
            near = np.flatnonzero((iou[np.arange(n), best] >= REUSE_IOU) & (old_ages[best] < REUSE_MAX_FRAMES))
            if len(near):
                j = best[near]
                same = reading_unchanged(old_crops[j], self._crops(image, old_boxes[j]))
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
            kept[fresh] = self._crops(image, boxes[fresh])
            probs[fresh] = self._classify_crops(image, boxes[fresh], kept[fresh], tta)
        self.last_stats.readings_reused = len(reused)
        self._readings = ((w, h), kept_boxes, kept, probs.copy(), ages)
        self._repeated = {tuple(float(v) for v in boxes[k]) for k in reused}
        return probs

    def _read_rivals(self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray, probs: np.ndarray,
                     rival_boxes: np.ndarray, rival_scores: np.ndarray, keeper: np.ndarray):
        """``rival_reread``: the rival boxes of the indices still read with less than
        ``tta_uncertain`` are read (as :meth:`classify` reads); those that read a card other than
        their index's kept box are added to (boxes, scores, probs)."""
        unsure = probs[keeper].max(axis=1) < self.config.tta_uncertain
        if not unsure.any():
            return boxes, scores, probs
        rival_boxes, rival_scores, keeper = rival_boxes[unsure], rival_scores[unsure], keeper[unsure]
        read = self.classify(image, rival_boxes)
        top = read.argmax(axis=1)
        new = (top != self.none_index) & (top != probs[keeper].argmax(axis=1))
        self.last_stats.rivals_read += len(rival_boxes)
        return (np.concatenate([boxes, rival_boxes[new]]), np.concatenate([scores, rival_scores[new]]),
                np.concatenate([probs, read[new]]))

    def _read_tight(self, image: np.ndarray, boxes: np.ndarray, probs: np.ndarray) -> np.ndarray:
        """Crops still unsure read again from a tighter box (``tight_reread``), averaged with ``probs``."""
        f = self.config.tight_reread
        if f <= 0 or self.config.tta_uncertain <= 0:
            return probs
        unsure = np.flatnonzero(probs.max(axis=1) < self.config.tta_uncertain)
        if len(unsure) == 0:
            return probs
        b = np.asarray(boxes, np.float32)[unsure]
        centre, half = (b[:, :2] + b[:, 2:]) / 2, (b[:, 2:] - b[:, :2]) / 2 * f
        tight = np.concatenate([centre - half, centre + half], axis=1)
        x = to_classifier_input(self._crops(image, tight))
        again = self._read_inputs(x)
        if self.config.tight_turned:
            again = self._read_turned(x, again)
        probs[unsure] = geometric_mean(np.stack([probs[unsure], again]))
        return probs

    def _read_inputs(self, x: np.ndarray) -> np.ndarray:
        """The classifier's probabilities for crops already converted (``to_classifier_input``)."""
        outs = []
        bs = self.config.classify_batch
        for i in range(0, len(x), bs):
            batch = x[i:i + bs]
            t0, c0 = time.perf_counter(), time.thread_time()
            outs.append(self.cls_net.run(batch))
            self.last_stats.ms_classifier_net += (time.perf_counter() - t0) * 1000
            self.last_stats.cpu_ms_thread_net += (time.thread_time() - c0) * 1000
        probs = (outs[0] if len(outs) == 1 else np.concatenate(outs)).astype(np.float32, copy=False)
        # accept logits as well as probabilities: which the model gives is told by its first
        # output, and kept (the test costs more than a small batch's softmax check is worth)
        if self._cls_logits is None and len(probs):
            self._cls_logits = bool(probs.min() < 0 or np.abs(probs.sum(axis=1) - 1).max() > 1e-2)
        if self._cls_logits:
            e = np.exp(probs - probs.max(axis=1, keepdims=True))
            probs = e / e.sum(axis=1, keepdims=True)
        return probs

    def _read_turned(self, x: np.ndarray, probs: np.ndarray) -> np.ndarray:
        """``probs`` of the converted crops ``x`` (N, 3, H, W; ``to_classifier_input``) averaged
        (geometric mean) with their readings turned by ``vote_turns`` quarter turns."""
        n = len(x)
        turns = self.config.vote_turns
        # turned all at once, as floats: a 4-byte element per pixel and channel copies several
        # times faster than the crops' 3-byte pixels (the same values)
        turned = self._read_inputs(np.concatenate([np.rot90(x, k, axes=(2, 3)) for k in turns]))
        return geometric_mean(np.concatenate([probs, turned]).reshape(len(turns) + 1, n, -1))

    # -- scale policy ----------------------------------------------------------

    def find_indices(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """All index boxes (source pixels) and detector scores, at a suitable scale."""
        h, w = image.shape[:2]
        c = self.config
        S = self.imgsz
        stats = self.last_stats
        memo = self._scale_memo
        if c.reuse_scale_frames and memo is not None and memo[0] == (w, h) and memo[2] > 0:
            # a video from a fixed camera: the enlarged views chosen a moment ago still fit;
            # the full view that measured the index size is skipped (it is looked at again
            # every reuse_scale_frames frames)
            self._scale_memo = (memo[0], memo[1], memo[2] - 1)
            b2, s2, _ = self.detect_views(image, memo[1])
            stats.passes.append(f"{len(memo[1])}x@{memo[1][0].scale:.3f} (kept)")
            keep = nms(b2, s2, c.nms_iou, c.nms_ios)
            return b2[keep], s2[keep]
        self._scale_memo = None
        full = self._full_view = letterbox_view(w, h, S, rect_stride=self.rect_stride)
        turned = None
        if c.turned_pass and self._turned_size == (w, h):
            # the last frame of this size was read turned too (no enlarged or shrunk pass): a
            # camera's frames are alike, so both runs go side by side from the start
            (boxes, scores), turned = self.detect_full_and_turned(image, full)
            sizes = box_size(boxes)
            boxes = full.to_source(boxes)
        else:
            boxes, scores, sizes = self.detect_views(image, [full])
        self._turned_size = None
        stats.passes.append(f"full@{full.scale:.3f}")
        if not c.tiling:
            return self._add_turned(image, full, boxes, scores, turned)
        confident = scores >= max(SURE_SCORE, c.det_conf)
        ref = sizes[confident] if confident.any() else sizes
        second: list[View] = []
        if len(ref) == 0:
            if max(w, h) >= c.blind_tile_min_side:
                # nothing seen in a large frame: the indices may be too small; look at
                # the scale a typical 720p-1080p frame is read at
                scale = min(c.max_upscale, max(full.scale * BLIND_SCALE_FACTOR, S / BLIND_REFERENCE_WIDTH))
                second = self._tiles(w, h, scale, overlap_px=S / scale * BLIND_TILE_OVERLAP)
            elif c.shrink_when_empty:
                # nothing seen in a small frame: a card may fill it, its index too large
                second = [letterbox_view(w, h, S, scale=full.scale * SHRINK_WHEN_EMPTY, rect_stride=self.rect_stride)]
        else:
            med = float(np.median(ref))
            if med < self.index_px_min and full.scale < c.max_upscale:
                scale = min(c.max_upscale, full.scale * self.index_px_target / max(med, 1.0))
                overlap = TILE_OVERLAP_INDICES * float(np.percentile(ref, 90)) / full.scale
                if self.dynamic and w * h * scale * scale <= c.max_rect_pixels:
                    # a model with a dynamic input reads the enlarged frame in one piece: no
                    # overlapping square tiles, no padding
                    second = [letterbox_view(w, h, S, scale=scale, rect_stride=self.rect_stride)]
                else:
                    second = self._tiles(w, h, scale, overlap)
            elif med > self.index_px_max:
                scale = full.scale * math.sqrt(self.index_px_target * self.index_px_max) / med
                second = [letterbox_view(w, h, S, scale=scale, rect_stride=self.rect_stride)]
        if not second:
            # the indices are read at the full view's scale: read it turned too
            return self._add_turned(image, full, boxes, scores, turned)
        if c.reuse_scale_frames and second[0].scale > full.scale:
            self._scale_memo = ((w, h), second, c.reuse_scale_frames)
        stats.passes.append(f"{len(second)}x@{second[0].scale:.3f}")
        b2, s2, _ = self.detect_views(image, second)
        boxes = np.concatenate([b2, boxes])
        # prefer the second pass when both see the same index
        scores_pref = np.concatenate([s2 + SECOND_PASS_BONUS, scores])
        scores_all = np.concatenate([s2, scores])
        keep = nms(boxes, scores_pref, c.nms_iou, c.nms_ios)
        return boxes[keep], scores_all[keep]

    def _add_turned(self, image: np.ndarray, full: View, boxes: np.ndarray, scores: np.ndarray, turned=None):
        """With ``turned_pass``, the full view read again turned by 90°, merged in: indices lie at every angle, but the
        detector finds some of them better turned (the view is already rendered, so the cost does
        not grow with the size of the source picture). ``turned``: that reading, already done
        beside the full view's (:meth:`detect_full_and_turned`)."""
        c = self.config
        if not c.turned_pass:
            return boxes, scores
        rb, rs = turned if turned is not None else self.detect_view(image, full, turned=True)
        h, w = image.shape[:2]
        self._turned_size = (w, h)
        self.last_stats.passes.append("turned")
        turned_box = np.arange(len(boxes) + len(rb)) >= len(boxes)
        boxes = np.concatenate([boxes, full.to_source(rb)])
        scores = np.concatenate([scores, rs])
        keep = nms(boxes, scores, c.nms_iou, c.nms_ios)
        if c.rival_reread:
            rival, keeper = suppressed_rivals(boxes, scores, keep, turned_box, c.nms_iou, c.nms_ios)
            self._rivals = (boxes[rival], scores[rival], keeper)
        return boxes[keep], scores[keep]

    def _tiles(self, w: int, h: int, scale: float, overlap_px: float) -> list[View]:
        views = tile_views(w, h, self.imgsz, scale, overlap_px)
        while len(views) > self.config.max_tiles:
            scale *= TILE_SHRINK
            views = tile_views(w, h, self.imgsz, scale, overlap_px)
        return views

    # -- public ----------------------------------------------------------------

    def warmup(self, frame_size: tuple[int, int] | None = None) -> None:
        """One run of each model on blank input (the first ONNX Runtime run is slow).

        The first run at each new input shape is slow too (the runtime plans its memory per
        shape): with ``frame_size`` (w, h) the detector is also run at the shape that frames of
        that size are read at, so the first real frame is timed as every later one.
        """
        blank = np.full((self.imgsz, self.imgsz, 3), PAD_VALUE, np.uint8)
        self.detect_view(blank, letterbox_view(self.imgsz, self.imgsz, self.imgsz))
        if frame_size is not None:
            w, h = frame_size
            self.detect_view(blank, letterbox_view(w, h, self.imgsz, rect_stride=self.rect_stride))
        self.classify(blank, np.array([[0, 0, 20, 40]] * 8, np.float32), tta=False)

    def read_indices(self, image: np.ndarray, find_outlines: bool = False) -> list[IndexReading]:
        """Detected and classified corner indices (``none`` dropped).

        ``find_outlines``: a helper thread also looks for lone cards' outlines
        (:func:`vision.outlines.find_card_quads`) beside the detector: from the start of a lone
        detector run (on two threads it leaves part of the cores idle) or when the first of the
        last detector runs side by side is done (its core would wait for the other run), else once
        the indices are found, while this thread reads them; :meth:`outline_cards` takes its quads.
        Within :meth:`recognize` the helper first makes the frame's cutting picture (:meth:`_crops`)."""
        t0 = time.perf_counter()
        self._rivals = self._full_view = self._full_picture = self._quads = self._cutting = None
        with self._helpers_lock:
            self._outlines_wanted = image if find_outlines else None
            self._cutting_wanted = image if self._frame is image else None
        boxes, scores = self.find_indices(image)
        self._start_helpers()        # unless a detector run side by side started them
        t1 = time.perf_counter()
        self._repeated = set()
        probs = self._classify_reusing(image, boxes) if self.config.reuse_readings else self.classify(image, boxes)
        if self._rivals is not None:
            boxes, scores, probs = self._read_rivals(image, boxes, scores, probs, *self._rivals)
            self._rivals = None
        t2 = time.perf_counter()
        self.last_stats.ms_detect = (t1 - t0) * 1000
        self.last_stats.ms_classify = (t2 - t1) * 1000
        real = np.flatnonzero(probs.argmax(axis=1) != self.none_index)
        readings = [IndexReading(box=tuple(b), score=s, probs=probs[k])
                    for k, b, s in zip(real.tolist(), boxes[real].tolist(), scores[real].tolist())]
        self.last_stats.indices = len(readings)
        return readings

    def recognize(self, image: np.ndarray) -> list[DetectedCard]:
        """Physical cards in a BGR uint8 image (H, W, 3), most confident first."""
        image = ensure_bgr(image)
        self.last_stats = RecognitionStats()
        self._frame = image
        try:
            return self._recognize(image)
        finally:
            self._frame = self._cutting = None

    def _recognize(self, image: np.ndarray) -> list[DetectedCard]:
        """:meth:`recognize` of a frame already checked, timed."""
        t0, c0 = time.perf_counter(), time.thread_time()
        readings = self.read_indices(image, find_outlines=self.config.outlines)
        h, w = image.shape[:2]
        t1 = time.perf_counter()
        cards = assemble(readings, self.names, self.geometry, min_confidence=0.0, image_size=(w, h),
                         det_power=self.config.det_score_power, several_packs=self.config.several_packs)
        t2 = time.perf_counter()
        self.last_stats.ms_assembly = (t2 - t1) * 1000
        if self.config.outlines:
            cards = merge_outline_cards(cards, self.outline_cards(image, cards), self.config.min_card_confidence)
            self.last_stats.ms_outlines = (time.perf_counter() - t2) * 1000
        cards = [c for c in cards if c.confidence >= self.config.min_card_confidence]
        if self._repeated:
            # a card all of whose readings were kept from an earlier frame repeats that look
            for c in cards:
                c.fresh = not (c.indices and all(tuple(float(v) for v in b) in self._repeated for b in c.indices))
        cards.sort(key=lambda c: -c.confidence)
        self.last_stats.ms_total = (time.perf_counter() - t0) * 1000
        self.last_stats.cpu_ms_thread = (time.thread_time() - c0) * 1000
        return cards

    def outline_cards(self, image: np.ndarray, known: list[DetectedCard] | None = None) -> list[DetectedCard]:
        """Cards lying apart, found by their outline (see :func:`vision.outlines.read_outline_cards`),
        with the quads the helper thread found for this frame (:meth:`read_indices`) if it did."""
        from tableref.vision.outlines import read_outline_cards

        quads = None
        if self._quads is not None:
            quads, self._quads = self._helper_result(self._quads), None
        return read_outline_cards(image, self.classify, self.geometry.layouts()[: self.config.outline_layouts],
                                  self.names, self.none_index, known, self.config.min_card_confidence,
                                  self.config.tta_max_crops, shrunk=self._shrunk(image), quads=quads)

    def _shrunk(self, image: np.ndarray) -> np.ndarray | None:
        """This frame's full view as rendered for the detector, without its padding, if it was read
        (the outline finder looks at it instead of shrinking the frame again)."""
        if self._full_picture is None:
            return None
        h, w = image.shape[:2]
        return shown_whole(self._full_picture, self._full_view, w, h)

    def _start_helpers(self) -> None:
        """Start this frame's work in the helper thread, what is wanted of it and not started yet
        (:meth:`read_indices`): the cutting picture of the crops, then the outline finder;
        whichever thread calls first starts it."""
        with self._helpers_lock:
            outlines, self._outlines_wanted = self._outlines_wanted, None
            frame, self._cutting_wanted = self._cutting_wanted, None
        if frame is not None:
            self._cutting = (frame, self._helper().submit(self._timed, cutting_picture, frame))
        if outlines is not None:
            self._quads = self._helper().submit(self._timed, find_card_quads, outlines, shrunk=self._shrunk(outlines))

    @staticmethod
    def _timed(work, *args, **kwargs) -> tuple:
        """``work(*args, **kwargs)`` (in the helper thread) and its CPU time there (ms)."""
        c0 = time.thread_time()
        result = work(*args, **kwargs)
        return result, (time.thread_time() - c0) * 1000

    def _helper_result(self, job):
        """The result of a helper thread's job (:meth:`_timed`), its CPU time counted in this
        frame's :attr:`RecognitionStats.cpu_ms_helpers`."""
        result, cpu = job.result()
        self.last_stats.cpu_ms_helpers += cpu
        return result

    def _helper(self):
        """The one helper thread of this recogniser (started on first use)."""
        if self._helper_pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._helper_pool = ThreadPoolExecutor(1, thread_name_prefix="tableref-helper")
        return self._helper_pool

    def observe(self, image: np.ndarray, t: float = 0.0) -> FrameObservation:
        """A :class:`FrameObservation` of one frame (with a sharpness measure)."""
        image = ensure_bgr(image)
        cards = self.recognize(image)
        h, w = image.shape[:2]
        return FrameObservation(t=t, width=w, height=h, cards=cards, sharpness=sharpness(image))


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
    small = cv2.resize(image, (max(1, int(w * f)), max(1, int(h * f))), interpolation=cv2.INTER_AREA) if f < 1 else image
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    v = float(cv2.Laplacian(grey, cv2.CV_32F).var())
    return v / (v + SHARPNESS_HALF)
