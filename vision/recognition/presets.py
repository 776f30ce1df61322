"""The recogniser's settings: one value (``RecognizerConfig``) and its presets for a camera and a photo.

Every tuning of the recogniser is a field here, or a constant beside the one pure function that
uses it (``plan``, ``memo``, ``images``). The presets:

* :func:`camera_preset`: a camera's frames read one at a time (``tableref bench-detect``);
* :func:`live_table_preset`: a fixed camera over a live table (the live session): the camera's
  settings, what is kept from frame to frame, and what the game's table needs;
* :func:`photo_preset`: single photos (``tableref detect``, ``tableref evaluate``).

How the models run on this machine (the backend, the quick reading for a slow machine, the threads)
is :class:`MachineSettings`, which the command line reads from the environment once and passes in.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

MOTION_MIN_INDICES = 6          # max_motion_blur: fewer indices read than this measure no motion blur,
MOTION_MIN_PX = 3.0             # ... and a blur under this many pixels is never declared (measured
                                # sharp pictures reach 2 px: a rendered table's slanted cards, small indices)


@dataclass(frozen=True)
class RecognizerConfig:
    """Thresholds and scale policy; the defaults are the quick reading of a camera's frames
    (:func:`camera_preset` with ``quick=True``; the presets read at photo quality)."""

    det_conf: float = 0.25          # detector score to consider a box at all
    nms_iou: float = 0.5
    nms_ios: float = 0.6             # a box mostly inside another is a second box on one index
    min_card_confidence: float = 0.35   # report a card only above this
    # a card read less sure than that but at least this sure is an unsure reading: not a card, but
    # passed on to the tracker (``FrameObservation.unsure``) as weak evidence for a card it follows
    unsure_confidence: float = 0.08
    # a card one of its own corner indices reads as another card more surely is not reported, only
    # passed on as an unsure reading (``confidence.contradicted``): a camera's frames, where other
    # looks follow; a photo is read once and keeps such a card
    doubt_contradicted: bool = True
    # a card whose index ink plainly says its suit's colour is wrong (a club read as a diamond where
    # the ink is black) is not reported, only passed on as an unsure reading (``ink``)
    doubt_ink: bool = True
    # a card read from several corner indices that each read it weakly (on average under
    # ``confidence.WEAK_CORNERS``) is not reported, only passed on as an unsure reading: the product
    # of weak corners that share one confusion seems sure and is not (photos too)
    doubt_weak_corners: bool = True
    # a lamp's glare is taken off a camera's frame before it is read (``images.deglare``); a photo is
    # read as it is
    deglare: bool = True
    # a soft camera's blur is partly undone before a frame is read (``images.unsoften``: only where
    # its sharpest edges measure blurred); a photo is read as it is
    unsoften: bool = True
    # ... and the classifier reads that sharpened picture too; False: the detector alone looks at it,
    # the classifier (trained on soft camera crops as they come), the ink and the blur measures read
    # the frame as the camera gave it
    unsoften_reads: bool = True
    # a camera's frame whose index boxes are blurred along one direction (a shaken camera, a knocked
    # stand) by more than this share of their median height is declared blurred and not read: no
    # cards, ``FrameObservation.read`` False (``images.motion_blur``, measured once at least
    # ``MOTION_MIN_INDICES`` indices are read; never under ``MOTION_MIN_PX``). On the real fanned
    # deal (indices about 33 px high) 5-7 px of blur misread up to five cards a frame on either
    # table and are declared at every angle; 4 px (read) still names 9C as 9S and 3D as 8D on a
    # three-pack table, as a defocused frame does; 3 px reads as a sharp frame. 0 = read every
    # frame (photos: read as they are; a real photo's large indices are read through such a blur)
    max_motion_blur: float = 0.12
    det_score_power: float = 0.7    # weight of the detector score in a card's confidence (score ** power)
    # index size band (longer side, detector input pixels) the detector reads best;
    # None = take it from recognition.json or use the built-in default (``plan.index_band``)
    index_px_min: float | None = None
    index_px_target: float | None = None
    index_px_max: float | None = None
    # (min, target): where reading at index_px_target would take tiles (the enlarged frame over
    # max_rect_pixels) or the picture is small (under 720 lines: vision.twins), the indices are read
    # enlarged whenever they come out under min, to about target, instead (None: never)
    index_px_fallback: tuple[float, float] | None = None
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
    # the cards come from one pack (a Desmoche table): a label read at two places of one frame is
    # reported once, where it is read surest; the other readings are unsure (one of them is a
    # misread: in tight fans a soft picture reads a neighbour's rank or suit). Unknown tables and
    # photos (any number of packs) report every reading
    one_pack: bool = False
    outline_layouts: int = 3        # deck layouts tried on each outline (recognition.json's first, then variants)
    tiling: bool = True
    classify_batch: int = 64
    tta_max_crops: int = 16         # read each crop turned too when there are at most this many (0 = never)
    # with more crops, read those whose top probability is below this turned too (0 = never)
    tta_uncertain: float = 0.6
    # the quarter turns at which a crop is read again (the turned vote): the quick reading on its two
    # sides (90° and 270°), photo quality upside down as well. On every real measure the two quarter turns
    # read exactly as all three (the real 720p fan frame, the 296 real photos as camera frames) for
    # a sixth fewer classifier runs a frame; the half turn alone is cheaper still but lost a card on
    # the real photos and a Marriage count of the rendered evaluation
    vote_turns: tuple[int, ...] = (1, 3)
    # crops still read with less than tta_uncertain are read again from their box shrunk to this
    # fraction about its centre, and the two readings averaged: in a tight fan the square
    # crop holds the neighbours' ranks and suits, the tighter one less of them (0 = never)
    tight_reread: float = 0.7
    # ... and that tighter crop read turned too (``vote_turns``): photo quality; the quick reading reads it
    # once (the same cards on every real measure, 14 fewer classifier runs for the real 720p fan frame)
    tight_turned: bool = False
    # an index read unsure from the box the detector scored best is read again from the box the
    # turned pass (or the plain one) put on it, which the merge of the two passes set aside; a
    # different card read there is kept as a reading of its own, and the assembly decides. The
    # best-scored box is not always the best placed: in a tight fan one box can sit half on the
    # neighbour's index. Costs classifier runs on the unsure indices: on at photo quality
    rival_reread: bool = False
    # video from a fixed camera: an index found where one was read in the last frame, whose picture
    # there has not changed since (``memo.reading_unchanged``), keeps that reading instead of being
    # read again, for at most ``memo.REUSE_MAX_FRAMES`` frames in a row (False: every frame is read
    # afresh; photos, benchmarks of one frame)
    reuse_readings: bool = False
    # ... and a view of the frame (the whole frame, turned, or a tile of an enlarged pass) whose
    # picture has not changed since the detector last read it (``memo.picture_unchanged``) keeps the
    # boxes found then, for at most ``memo.REUSE_MAX_FRAMES`` frames in a row
    reuse_views: bool = False
    # read the crops with the fast classifier (recognition.json "fast_file": a slimmer network, about
    # a quarter of the full one's work a crop) where the models have one: the quick reading
    fast_classifier: bool = True
    precision: str = "auto"         # "auto": int8 copies where valid, else float; "fp32"; "int8"
    # "auto": OpenVINO where installed and checked on these models, else ONNX Runtime; "onnxruntime";
    # "openvino"
    backend: str = "auto"
    # the classifier computed in bfloat16 by OpenVINO (``runtime.classifier_bf16``): "auto" where the
    # processor does that natively and models/backends.json records the check on this classifier
    # file (about half the classifier's time, and the same cards on every real camera measure: a
    # camera's frames); "off" (photos, read once, in float32); "on" (the check itself)
    classifier_bf16: str = "auto"
    # the detector run by OpenVINO in float32 for the input sizes that repeat, by ONNX Runtime for
    # the others (``runtime.camera_detector_openvino``, ``runtime.Network(fixed_sizes=True)``): "auto"
    # where models/backends.json records the check on this detector file (every real camera measure
    # read alike, in less time: a camera's frames at photo quality); "off": the backend chosen for both
    # networks (photos; and the quick reading, whose two detector passes ONNX Runtime runs side by
    # side, a little faster than OpenVINO one after the other); "on" (the check itself)
    detector_openvino: str = "off"

    def but(self, **changes) -> "RecognizerConfig":
        """These settings with ``changes`` (field names) made."""
        return dataclasses.replace(self, **changes)


# The recogniser reads a camera's frames and photos alike at photo quality: where the indices come
# out under PHOTO_INDEX_PX[0] px at the detector's scale, the picture is read again enlarged to about
# PHOTO_INDEX_PX[1] px, in one piece up to PHOTO_RECT_PIXELS (a 1080p frame enlarged), with the full
# classifier and every extra look (the rival boxes, the half turn, the tighter crop turned too).
# On the real fanned deal's 720p frame that reads more cards than the quick reading below, in about
# three times its time, and keeps far more of them under a soft or dim camera (the model card gives
# today's figures: ``python scripts/bench_camera.py --only frames``, ``tableref bench-detect``).
# A soft picture lowers the detector's score of an index more than the full classifier's reading of
# it: photo quality considers boxes from PHOTO_DET_CONF and weighs the score less in a card's
# confidence (PHOTO_DET_POWER), so that an index the classifier reads plainly in a defocused or
# shaken frame is not lost to a faint box. Its detector runs in OpenVINO where that was checked on
# a camera's frames (``RecognizerConfig.detector_openvino``).
PHOTO_INDEX_PX = (28.0, 32.0)
PHOTO_RECT_PIXELS = 2_200_000
PHOTO_DET_CONF, PHOTO_DET_POWER = 0.18, 0.5
PHOTO_QUALITY = dict(index_px_min=PHOTO_INDEX_PX[0], index_px_target=PHOTO_INDEX_PX[1],
                     max_rect_pixels=PHOTO_RECT_PIXELS, fast_classifier=False, rival_reread=True,
                     vote_turns=(1, 2, 3), tight_turned=True, det_conf=PHOTO_DET_CONF,
                     det_score_power=PHOTO_DET_POWER, detector_openvino="auto")
# a photo is read once: a card one of its own corners doubts is kept (no next frame settles it); a
# photo is read as it is (no glare taken off, not sharpened, never declared blurred), in float32
PHOTO = dict(PHOTO_QUALITY, doubt_contradicted=False, deglare=False, unsoften=False, classifier_bf16="off",
             detector_openvino="off", max_motion_blur=0.0)

# The quick reading (``RecognizerConfig``'s own defaults; ``TABLEREF_READING=quick`` for a camera on
# a slow machine): the detector's own band of recognition.json (16-20 px), the fast classifier
# (about a quarter of the full one's work a crop), two quarter turns and no rival boxes.

# a fixed camera over a live table: the enlarged views that read the table are chosen anew once a
# second (5 analysed frames), not every frame, with the boxes that full view found and they did not
# (kept where the picture inside each is unchanged); a view (the frame, or a tile of it) whose picture
# has not changed since the detector read it keeps the boxes found then, and an index whose
# picture has not changed keeps its reading
LIVE_VIDEO = dict(reuse_scale_frames=4, reuse_views=True, reuse_readings=True)
# a table decided by a per-seat count of laid-down hands (Marriage: 21 cards a seat in overlapped
# strips, 80 and more small indices, and no hurry): read at photo quality's 32 px where the enlarged
# frame is read in one piece (a real 720p camera's table), else enlarged whenever its indices come
# out under 22 px, to about 26 px. Enlarged to 32 px, a rendered count of 85 cards takes 15 tiles and
# 250 ms a frame (26 px: 8 tiles, 140 ms) and its hands were published seconds late; a small frame
# (under 720 lines) is read at 26 px too (at 32 px a 640x360 camera's clean and knocked feeds counted
# a 6D for the 5D and an 8D for the 6D). At 32 px the real fan's clean and dim feeds read 49-50
# cards, the 3D's small index more often (26 px: 48-50), and in its defocused feeds the 7H, read in
# one frame of 40 at 26 px, in most frames at 32 px
COUNT_INDEX_PX = (22.0, 26.0)
COUNT_TABLE = dict(index_px_min=PHOTO_INDEX_PX[0], index_px_target=PHOTO_INDEX_PX[1],
                   index_px_fallback=COUNT_INDEX_PX, max_rect_pixels=2_200_000)
# ... and read quick (a slow machine): always as the fallback
QUICK_COUNT_TABLE = dict(COUNT_TABLE, index_px_min=COUNT_INDEX_PX[0], index_px_target=COUNT_INDEX_PX[1],
                         index_px_fallback=None)


# a live table of several packs (Marriage): identical cards may lie side by side. Its camera loop
# sharpens a soft camera's frames for the detector and the classifier alike, as on one pack: read as
# the camera gave them (the detector alone seeing them sharpened), the real fanned deal's defocused
# feeds read 46-47 cards a feed (seeds 0-9), sharpened for both 46-48 (seeds 0-14, none wrong; 100
# frames, seeds 0-4: 48 each), the 10C's index found and read. A soft 9C beside the 3D is still read
# 9S in many looks, and 9D and 9C in others: the suit rule of ``vision.card_evidence`` keeps it
# unread. The still table's photo-quality looks (``camera_preset``) sharpen for both on every table.
SEVERAL_PACKS_LIVE = dict(several_packs=True)


def camera_preset(*, quick: bool = False, **changes) -> RecognizerConfig:
    """A camera's frames read one at a time (``tableref bench-detect``), at photo quality
    (``PHOTO_QUALITY``) or ``quick``; ``changes`` set any field."""
    return RecognizerConfig(**{**({} if quick else PHOTO_QUALITY), **changes})


def photo_preset(**changes) -> RecognizerConfig:
    """Single photos (``tableref detect``, ``tableref evaluate``): photo quality, and a card one of
    its corners doubts is kept (``PHOTO``); ``changes`` set any field."""
    return RecognizerConfig(**{**PHOTO, **changes})


def live_table_preset(*, count: bool = False, several_packs: bool = False, one_pack: bool = False,
                      quick: bool = False, **changes) -> RecognizerConfig:
    """A fixed camera over a live table (``LIVE_VIDEO``), at photo quality or ``quick``. ``count``:
    the table is decided by a per-seat count of laid-down hands (``COUNT_TABLE``: its indices
    enlarged to a size of their own); ``several_packs``: identical cards may lie side by side;
    ``one_pack``: each card is on the table once at most; ``changes`` set any field."""
    reading = {**({} if quick else PHOTO_QUALITY), **((QUICK_COUNT_TABLE if quick else COUNT_TABLE) if count else {})}
    return RecognizerConfig(**{**LIVE_VIDEO, **reading, **(SEVERAL_PACKS_LIVE if several_packs else {}),
                               **({"one_pack": True} if one_pack else {}), **changes})


@dataclass(frozen=True)
class MachineSettings:
    """How the models run on this machine, as the environment asks (read once, by the command line)."""

    backend: str = "auto"           # TABLEREF_BACKEND: auto, onnxruntime or openvino
    quick: bool = False             # TABLEREF_READING=quick: a camera's frames read quick (a slow machine)
    threads: int = 2                # TABLEREF_ORT_THREADS: CPU threads of each network (the live session)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> "MachineSettings":
        """The settings ``environ`` (the environment, given by the command line) asks for; a bad thread
        count is a ValueError naming the variable."""
        threads = environ.get("TABLEREF_ORT_THREADS", "") or "2"
        try:
            n = int(threads)
        except ValueError:
            raise ValueError(f"TABLEREF_ORT_THREADS must be a whole number, not {threads!r}") from None
        if n < 0:
            raise ValueError(f"TABLEREF_ORT_THREADS must be 0 (the runtime's choice) or more, not {n}")
        reading = (environ.get("TABLEREF_READING", "") or "full").strip().lower()
        if reading not in ("full", "quick"):
            raise ValueError(f"TABLEREF_READING must be full or quick, not {reading!r}")
        return cls(backend=environ.get("TABLEREF_BACKEND", "auto") or "auto", quick=reading == "quick", threads=n)

    def config_changes(self) -> dict:
        """The :class:`RecognizerConfig` fields these settings set (the reading is chosen with the
        preset: ``camera_preset(quick=...)``, ``live_table_preset(quick=...)``)."""
        return {"backend": self.backend}
