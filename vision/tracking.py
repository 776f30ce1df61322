"""Follow physical cards across frames and publish a stable table state.

Usage (one call per analysed frame; pure, no I/O, a few ms per frame)::

    from tableref.vision.zones import default_zones
    from tableref.vision.tracking import TableTracker

    zones = default_zones(4, (1280, 720))
    tracker = TableTracker(zones)                 # stable_seconds=0.6 by default
    for obs in observations:                      # vision.types.FrameObservation
        table = tracker.update(obs)               # vision.table_state.StableTable or None
        if table is not None and table.changed:
            for seat in table.seats:
                print(seat.name, [m.labels for m in seat.melds], [c.card for c in seat.loose])
            print("centre", [c.card for c in table.centre])

How it decides
--------------
* **Matching**: each detection is matched to a track greedily by a score made
  of box IoU, centre distance (relative to the card's size) and a small bonus
  for the same label. Two identical cards at different places are different
  tracks (matching is by place, not by label).
* **Birth**: a new detection becomes a *tentative* track; it is *confirmed*
  (exists on the table) after ``min_hits`` sharp frames spanning at least
  ``min_seen_seconds``, at least ``MIN_FRESH_HITS`` of them fresh looks rather than a reading
  kept from an earlier frame, or after ``MIN_FRESH_HITS`` such looks and ``CONFIRM_UNSURE_LOOKS``
  more that read it unsure but as the same card, uncontradicted (a small index read just
  under the threshold most of the time). Tentative tracks that vanish quickly are dropped —
  a card flashed in a hand never exists.
* **Label**: every sharp frame votes for its label with its confidence; the
  vote winner (changed only when another label leads by ``label_switch``, hysteresis) is what
  matching and identity go by. Old votes decay (``vote_decay``) so a card swapped in place is
  eventually re-read. What the table *reports* is decided by the card's evidence
  (:class:`vision.card_evidence.CardEvidence`, fed by the fresh looks only, and by the still
  table's photo-quality re-reads, :meth:`TableTracker.add_photo_readings`): a card whose label
  is not decisive is reported *unread* (``TableCard.card == ""``, with its candidates).
* **Death**: a confirmed track is gone after it has been missed for
  ``miss_seconds`` of *clear* time. Frames that are blurred or flagged
  ``obs.occluded`` are *frozen*: no births, no deaths, no votes (positions
  still follow); a frozen frame neither publishes nor restarts the stability
  clock. A frame is blurred when ``obs.sharpness`` is below
  ``blur_ratio`` × the 75th percentile of the last ``sharpness_window``
  frames (so any monotonic focus measure works, whatever the table's texture),
  or below the absolute floor ``min_sharpness``; a "blur" lasting over
  ``max_blur_seconds`` is taken as a changed scene and no longer freezes. A frame
  not read at all (``obs.read`` False: the recogniser declared it blurred, a shaken camera) is
  blurred too.
* **Hidden cards**: while a published card has been missed for more than
  ``hold_missing_seconds`` but is not yet gone (a hand or an arm over it), its zone
  publishes nothing, and neither do the zones where cards came up from just before it
  went out of sight (the card moved there, or the detector reads the hand as cards) — so
  whatever the detector makes of the hand never becomes a state, while a meld laid
  earlier at another seat is not held up by cards of a soft picture missed in turn. The
  hidden time does not count towards a held zone's stability, but it does not restart
  the clock either: when the zone is the same once the card is back (the detector
  missed a small index for a moment), the state pending before goes on. A confirmed
  card that was never published and goes missing is dropped after 0.7 s (a ghost).
* **One card, one identity**: when a new card is confirmed while a confirmed
  card with the same label has been missing for ``transfer_min_missing``
  seconds, the card was moved: the new track takes over the old identity
  (``track_id``) at once. Two tracks with one label on one spot (formed while
  the card was read as index only, or misread) are merged into the older. An index
  read alone on a corner index a card was seen whole with a moment before
  (``OWN_INDEX_IOU``, ``OWN_INDEX_SECONDS``) is a look at that card, never a new one:
  a misreading of its own index counts against its reading. So is a second box on the indices of
  cards followed from their index alone and seen in the same frame (``SAME_INDEX_IOU``,
  ``COVERED_SHARE``): over one of them, a look at that card; across two, nothing. And an index
  read alone is matched to a card seen whole only where it lies on one of the corner indices the
  card was seen whole with (``OWN_INDEX_FOLLOW``): another index within its outline is another
  card's, lying on it (in a soft or small picture, where a label read says little of which card
  it is).
* **Publication**: the per-seat layout (melds, order, loose cards, centre,
  labels) is computed from confirmed tracks every clear frame; when it has not
  changed for ``stable_seconds`` it is published as a new
  :class:`~vision.table_state.StableTable` version (``changed=True``). Until the
  first publication, :meth:`TableTracker.update` returns None; afterwards it
  returns the latest published state (``changed=False`` when nothing new). A
  published card whose evidence has not decided its published label for
  ``stable_seconds`` is published as unread at once, whatever its zone does
  (a label decided on its first looks and outweighed by later ones must not
  stay on show while a fan's other readings keep the zone changing).
"""
from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from tableref.vision.card_evidence import CLEAR_CONFIDENCE, PHOTO_WEIGHT, CardEvidence
from tableref.vision.geometry import box_area, pairwise_overlap, union
from tableref.vision.layout import (
    GAP_FRAC,
    ROW_FRAC,
    estimate_card_size,
    group_melds,
    pile_seat,
    piles,
)
from tableref.vision.table_state import SeatState, StableTable, TableCard
from tableref.vision.twins import TWIN_SURE, side_by_side, small_picture
from tableref.vision.types import DetectedCard, FrameObservation
from tableref.vision.zones import TableZones


QUAD_KEEP_FRAMES = 3   # a covered card keeps an outline seen in at least this many frames
# a new card is confirmed once matched in this many sharp frames (``TableTracker``'s ``min_hits``)
MIN_HITS = 3
# of a new card's ``min_hits`` frames, at least this many must be fresh looks (``DetectedCard.fresh``:
# a still picture's reading can be kept for a frame or two, and one look alone confirms nothing)
MIN_FRESH_HITS = 2
# ... or a card read clearly in MIN_FRESH_HITS fresh looks and unsure, but as the same label, in at least
# this many more, with nothing at its place contradicting it (its evidence decides that label): a small
# or soft index read just under the recogniser's threshold in most frames (the real fanned deal's 3D,
# read 0.22-0.33 look after look and 0.36-0.51 in a few) is a card, not a ghost
CONFIRM_UNSURE_LOOKS = 3
# a card whose centre moves by more than this share of its size is no longer still
MOVED_FRAC = 0.15
# photo-quality re-reads (reread_region, add_photo_readings): a card is read again once it has lain
# still for ``stable_seconds``, an unread card again every REREAD_UNREAD_SECONDS
REREAD_UNREAD_SECONDS = 3.0
# a photo-quality reading is of a followed card when an index box of it overlaps the card's this much
PLACE_IOU = 0.3
# the region read again reaches this many card sizes around the cards it is for
REREAD_MARGIN = 0.6
# an index read alone overlapping this much a corner index a followed card was seen whole with, at
# most OWN_INDEX_SECONDS before, is that card's own index (read again, maybe misread), never a new
# card. A card laid over that corner hides the index for good (the card is no longer seen whole with
# it), where a misreading comes and goes between frames that see the card whole (the real fanned
# deal's defocused 5D, whole again 0.1-0.4 s after each look that read its upper index 6D)
OWN_INDEX_IOU = 0.5
OWN_INDEX_SECONDS = 0.5
# an index read alone where the indices of cards followed from their index alone and seen in the same
# frame, or at most OWN_INDEX_SECONDS before, lie is those indices read again, never a new card (a
# 640×360 camera's defocused feed missed the QC's index, read QS mostly, in a frame where a taller box
# on it, overlapping it by half, read QC: born a second card there, it was read QC since, and the first
# was counted QS): where one of them overlaps it
# SAME_INDEX_IOU (the real fanned deal's dim feed read the 9C's index 9C in one box and, 3 px aside,
# 9D in a second one overlapping it 0.45), or they cover COVERED_SHARE of its box together (a box
# across the 9C's and the 3D's indices, read 9D, was born a card and then followed the 9C's index).
# The labelled indices of two cards in its tight fans overlap 0.28 at most (the half-covered 6S and
# the AS over it), and an index's neighbours cover 0.49 of it at most (the QD's)
SAME_INDEX_IOU = 0.4
COVERED_SHARE = 0.75
# in a soft or small picture, an index read alone moves a card seen whole, whose corner indices were
# seen where they lie within OWN_INDEX_SECONDS, only when it lies on one of them (overlapping it this
# much): any other index within its outline is another card's, lying on it. A 640×360 camera's dim
# feed assembled the KS's index and the KD's above it into one card whose outline reached over the
# 6S's index; when the KS's index was missed for a frame, that card followed the 6S's index (read KS)
# and was counted there. A card whose corners have not been seen there for longer, or any card in a
# sharp picture (a rendered Desmoche meld of four aces, the AC slid down as a card went in), is
# followed to an index of its label wherever it lies within its outline
OWN_INDEX_FOLLOW = 0.3
# a pile holding at least this many cards of each of two seats is two seats' cards, not one meld
SEAT_GROUP = 3
# the same cards, grouped differently from frame to frame, are published after this many times
# ``stable_seconds``
FLICKER_HOLD = 2.0


def _spans_only(box, indices, tol: float = 1.0) -> bool:
    """Whether ``box`` is no more than the union of the ``indices`` boxes (within ``tol`` pixels)."""
    spanned = functools.reduce(union, indices)
    return all(abs(a - b) <= tol for a, b in zip(union(box, spanned), spanned))


@dataclass(eq=False)
class Track:
    """A physical card followed across frames (internal state, exposed for overlays)."""

    id: int
    box: np.ndarray                     # (4,) x1 y1 x2 y2, image pixels (smoothed)
    quad: np.ndarray | None             # (4, 2) or None
    first_t: float
    last_t: float                       # last frame it was matched
    votes: dict[str, float] = field(default_factory=dict)
    label: str = ""
    hits: int = 0                       # sharp frames matched
    fresh_hits: int = 0                 # of those, frames whose reading was not kept from an earlier one
    unsure_hits: int = 0                # fresh unsure readings of its label in sharp frames (CONFIRM_UNSURE_LOOKS)
    matched_frames: int = 0
    missed_clear: float = 0.0           # seconds missed in clear (non-frozen) frames
    confirmed: bool = False
    partial: bool = False               # only the corner index is known (box = index box)
    zone: str | None = None             # zone when last published (sticky: a meld keeps its seat)
    published: bool = False             # part of a published table state
    det_box: np.ndarray | None = None   # the last matched detection's box (index or whole card)
    quad_frames: int = 0                # frames in a row its whole outline was seen at this place
    evidence: CardEvidence = field(default_factory=CardEvidence)   # what its fresh looks say it is
    layout_zone: str | None = None      # its zone in the last layout (before it is published)
    still_since: float = 0.0            # frame time since when it has lain where it lies
    photo_t: float | None = None        # frame time of the last photo-quality look at it (add_photo_readings)
    own_indices: list = field(default_factory=list)   # (box, frame time) of its corner indices seen whole
    indices: list = field(default_factory=list)       # the index boxes its last look read (vision.twins)

    def own_index(self, box, t: float) -> bool:
        """Whether ``box`` is one of its own corner indices (``OWN_INDEX_IOU``), as it was seen whole
        where it lies at most ``OWN_INDEX_SECONDS`` before ``t``."""
        return any(t - seen <= OWN_INDEX_SECONDS + 1e-9 and _box_iou(box, b) >= OWN_INDEX_IOU
                   for b, seen in self.own_indices)

    @property
    def reading(self) -> str:
        """The label its evidence decides (``""``: unread, see :class:`CardEvidence`)."""
        return self.evidence.label

    @property
    def centre(self) -> tuple[float, float]:
        if self.quad is not None:
            c = self.quad.mean(axis=0)
            return (float(c[0]), float(c[1]))
        x1, y1, x2, y2 = self.box
        return ((x1 + x2) / 2.0, (y1 + y2) / 2.0)

    @property
    def size(self) -> float:
        x1, y1, x2, y2 = self.box
        return math.sqrt(max((x2 - x1) * (y2 - y1), 1.0))

    @property
    def vote_share(self) -> float:
        tot = sum(self.votes.values())
        return self.votes.get(self.label, 0.0) / tot if tot > 0 else 0.0

    def outline(self) -> np.ndarray:
        """Image outline (4, 2): the quad if known, else the box corners."""
        if self.quad is not None:
            return self.quad.astype(np.float32)
        x1, y1, x2, y2 = self.box
        return np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], dtype=np.float32)


def _seen_indices(d: DetectedCard, t: float) -> list:
    """``d``'s corner indices as a track remembers them (``Track.own_indices``): (box, frame time)."""
    return [(np.asarray(b, dtype=np.float64), t) for b in d.indices]


def _long_side(box) -> float:
    return float(max(box[2] - box[0], box[3] - box[1]))


def _box_iou(a, b) -> float:
    if a is None or b is None:
        return 0.0
    return float(_iou_matrix(np.asarray(a, dtype=np.float64).reshape(1, 4),
                             np.asarray(b, dtype=np.float64).reshape(1, 4))[0, 0])


def _iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU between boxes a (N, 4) and b (M, 4)."""
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)))
    ix1 = np.maximum(a[:, None, 0], b[None, :, 0])
    iy1 = np.maximum(a[:, None, 1], b[None, :, 1])
    ix2 = np.minimum(a[:, None, 2], b[None, :, 2])
    iy2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(ix2 - ix1, 0, None) * np.clip(iy2 - iy1, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a[:, None] + area_b[None, :] - inter
    return inter / np.maximum(union, 1e-9)


def _owners_iou(a_rows: list, n_a: int, b_rows: list, n_b: int) -> np.ndarray:
    """(n_a, n_b): for each pair of owners, the best IoU between a box of the one and a box of the
    other; ``a_rows`` and ``b_rows`` are (owner index, box) pairs, an owner holding any number of boxes.
    One IoU matrix for every box against every box."""
    iou = _iou_matrix(np.array([b for _, b in a_rows], dtype=np.float64).reshape(-1, 4),
                      np.array([b for _, b in b_rows], dtype=np.float64).reshape(-1, 4))
    best = np.zeros((n_a, n_b))
    np.maximum.at(best, (np.array([i for i, _ in a_rows])[:, None], np.array([j for j, _ in b_rows])[None, :]), iou)
    return best


@dataclass
class _ZonePending:
    """One zone's state as the last frames show it, waiting to be published."""

    part: tuple                         # its part of the layout signature (melds, loose cards)
    since: float                        # frame time it has shown this part since
    cards: tuple                        # its cards however grouped
    cards_since: float                  # ... shown since
    changing_since: float | None        # since when it has differed from what was published (None: not)


# a blur lasting longer than this (seconds of frame time) is the picture this camera gives, not a
# passing hand or shake: it no longer freezes the tracker (``TableTracker.max_blur_seconds``)
MAX_BLUR_SECONDS = 3.0

# a card hidden but not yet gone holds its zone, and the zones of the cards that came up since it
# went out of sight, from this many seconds before (``TableTracker._held_zones``)
HOLD_BIRTH_MARGIN = 0.5


class TableTracker:
    """Tracks cards across :class:`~vision.types.FrameObservation`s and publishes stable table states.

    All time parameters are seconds of frame time (``obs.t``), so a video read
    as fast as possible behaves exactly as in real time.
    """

    def __init__(self, zones: TableZones, *,
                 stable_seconds: float = 0.6,
                 min_hits: int = MIN_HITS,
                 min_seen_seconds: float = 0.15,
                 miss_seconds: float = 2.0,
                 tentative_miss_seconds: float = 0.5,
                 hold_missing_seconds: float = 0.5,
                 transfer_min_missing: float = 0.3,
                 blur_ratio: float = 0.6,
                 min_sharpness: float = 0.0,
                 sharpness_window: int = 150,
                 max_blur_seconds: float = MAX_BLUR_SECONDS,
                 min_confidence: float = 0.25,
                 min_unsure_confidence: float = 0.08,
                 label_switch: float = 1.25,
                 vote_decay: float = 0.97,
                 smooth: float = 0.5,
                 gap_frac: float = GAP_FRAC,
                 row_frac: float = ROW_FRAC,
                 min_meld_size: int = 2):
        self.zones = zones
        self.stable_seconds = stable_seconds
        self.min_hits = min_hits
        self.min_seen_seconds = min_seen_seconds
        self.miss_seconds = miss_seconds
        self.tentative_miss_seconds = tentative_miss_seconds
        self.hold_missing_seconds = hold_missing_seconds
        self.transfer_min_missing = transfer_min_missing
        self.blur_ratio = blur_ratio
        self.min_sharpness = min_sharpness
        self.sharpness_window = sharpness_window
        self.max_blur_seconds = max_blur_seconds
        self.min_confidence = min_confidence
        self.min_unsure_confidence = min_unsure_confidence
        self.label_switch = label_switch
        self.vote_decay = vote_decay
        self.smooth = smooth
        self.gap_frac = gap_frac
        self.row_frac = row_frac
        self.min_meld_size = min_meld_size
        self.reset()

    # ---- public -------------------------------------------------------------------------
    def reset(self) -> None:
        """Forget everything (new hand, new calibration)."""
        self.tracks: list[Track] = []
        self.card_ref_px = 0.0              # typical whole-card size in pixels (sqrt of area)
        self._snap_cache = None
        self._meld_pairs: set[tuple[int, int]] = set()      # together in the last published state
        self._last_pairs: set[tuple[int, int]] = set()      # together in the last layout
        self._sharp_hist: list[float] = []
        self._blur_since: float | None = None
        self._ids = itertools.count(1)
        self._last_t: float | None = None
        self._coarse = False                # the last frame lost its fine print (soft or small: vision.twins)
        self._labelled: dict[str, list[Track]] = {}     # the tracks of each label, as the frame began
        # per zone (a seat's index, "centre", "outside"): its state waiting to be published
        self._zone_pending: dict = {}
        self._published: StableTable | None = None
        self._published_sig = None
        self._read_as_published: dict[int, float] = {}  # per published card: last frame time read so
        self.frozen = False                 # was the last frame frozen (blurred or occluded)?
        self.waiting = False                # frozen, or a confirmed card hidden but not yet gone
        self.freeze_reason = ""

    @property
    def published(self) -> StableTable | None:
        """The latest published stable table (None before the first)."""
        return self._published

    def confirmed_tracks(self) -> list[Track]:
        return [t for t in self.tracks if t.confirmed]

    def update(self, obs: FrameObservation) -> StableTable | None:
        """Feed one frame's detections; return the latest stable table (None before the first)."""
        t = float(obs.t)
        dt = 0.0 if self._last_t is None else max(0.0, t - self._last_t)
        if self._last_t is not None and t < self._last_t - 1.0:
            # time went backwards (a looped file, a new source): start over
            self.reset()
            dt = 0.0
        self._last_t = t
        frame_size = (int(obs.width), int(obs.height)) if obs.width and obs.height else None

        dets = [d for d in obs.cards if d.confidence >= self.min_confidence]
        sharp = self._is_sharp(float(obs.sharpness), read=obs.read)
        self._coarse = bool(obs.coarse or obs.soft) or (frame_size is not None and small_picture(*frame_size))
        self._index_labels()
        self._update_card_ref(dets)
        matches, unmatched_dets, unmatched_tracks = self._match(dets)
        matched_weak: set[int] = set()

        reasons = []
        if not sharp:
            reasons.append("blurred frame")
        if obs.occluded:
            reasons.append("table occluded")
        frozen = bool(reasons)
        self.frozen, self.freeze_reason = frozen, ", ".join(reasons)

        # matched tracks: follow position always, vote only when sharp
        newly_confirmed: list[Track] = []
        for ti, di in matches:
            tr, d = self.tracks[ti], dets[di]
            if math.dist(tr.centre, d.centre) > MOVED_FRAC * max(tr.size, 1.0):
                tr.still_since = t
            self._follow(tr, d, t)
            tr.det_box = np.asarray(d.box, dtype=np.float64)
            tr.last_t = t
            tr.matched_frames += 1
            tr.missed_clear = 0.0
            if sharp and not obs.occluded:
                self._vote(tr, d)
                tr.hits += 1
                tr.fresh_hits += d.fresh
            if not tr.confirmed and tr.hits >= self.min_hits and t - tr.first_t >= self.min_seen_seconds - 1e-9 \
                    and tr.fresh_hits >= min(self.min_hits, MIN_FRESH_HITS):
                tr.confirmed = True
                newly_confirmed.append(tr)

        # unsure readings (too unsure to be cards) on cards already followed keep them in sight and
        # count as weak evidence; they never make a card, and an index read unsure never moves a card
        # last seen whole: it may be another card's index lying on its face (the real fanned deal's
        # 5H, seen whole, taken to the misread index beside the 5D under it and counted there)
        weak = [d for d in obs.unsure if d.confidence >= self.min_unsure_confidence]
        if weak and unmatched_tracks:
            candidates = list(unmatched_tracks)
            weak_matches, _, unmatched_tracks = self._match(weak, candidates)
            for ti, di in weak_matches:
                tr, d = candidates[ti], weak[di]
                if tr.partial or not self._is_partial(d):
                    self._follow(tr, d, t)
                    tr.det_box = np.asarray(d.box, dtype=np.float64)
                tr.last_t = t
                tr.missed_clear = 0.0
                if sharp and not obs.occluded and d.fresh:
                    self._look(tr, d, clear=False)
                    tr.unsure_hits += d.card == tr.label
                    if not tr.confirmed and self._confirmed_unsure(tr, t):
                        tr.confirmed = True
                        newly_confirmed.append(tr)
                matched_weak.add(tr.id)
        # unmatched tracks: age them (only in clear frames for confirmed ones)
        keep_ids = set()
        for tr in unmatched_tracks:
            if tr.confirmed:
                if not frozen:
                    tr.missed_clear += dt
                # a card never published (maybe a ghost: a hand, a misread) goes sooner
                limit = self.miss_seconds if tr.published else min(self.miss_seconds, 0.7)
                if tr.missed_clear <= limit:
                    keep_ids.add(tr.id)
            else:
                if t - tr.last_t <= self.tentative_miss_seconds:
                    keep_ids.add(tr.id)
        matched_ids = {self.tracks[ti].id for ti, _ in matches} | matched_weak
        self.tracks = [tr for tr in self.tracks if tr.id in matched_ids or tr.id in keep_ids]

        # One physical card, one identity: a confirmed card now read with the label of an older
        # card that is not seen this frame takes over the older card's identity when it lies
        # on it (two tracks formed on one card), or when it appeared as the older one vanished
        # and the older one has been gone a while (the card was moved).
        matched_now = matched_ids
        for tr in [x for x in self.tracks if x.confirmed and x.last_t == t]:
            if tr not in self.tracks:
                continue
            fresh = tr in newly_confirmed
            for o in list(self.tracks):
                if o is tr or not o.confirmed or o.label != tr.label or o.id in matched_now:
                    continue
                on_it = _box_iou(o.det_box, tr.det_box) > 0.6 or _box_iou(o.box, tr.box) > 0.6 or \
                    math.dist(o.centre, tr.centre) < 0.5 * min(_long_side(o.box), _long_side(tr.box))
                if o.first_t > tr.first_t:
                    if on_it:
                        # a younger second track on this card (a second box on its index): drop it
                        self.tracks.remove(o)
                    continue
                gone_for = t - o.last_t
                moved = (fresh and gone_for >= self.transfer_min_missing - 1e-9) or (
                    # not yet published, appeared after the older one vanished, which stays gone
                    not tr.published and gone_for >= 1.0 and tr.first_t >= o.last_t - 0.25)
                if on_it or moved:
                    tr.id, tr.first_t, tr.published, tr.zone = o.id, o.first_t, o.published, \
                        (o.zone if on_it else None)
                    self.tracks.remove(o)
                    break

        # births
        if sharp and not obs.occluded:
            for di in unmatched_dets:
                d = dets[di]
                if self._own_index_look(d, t) or self._same_index_look(d, t):
                    continue
                tr = Track(id=next(self._ids), box=np.asarray(d.box, dtype=np.float64),
                           quad=np.asarray(d.quad, dtype=np.float64).reshape(4, 2) if d.quad else None,
                           first_t=t, last_t=t, matched_frames=1, partial=self._is_partial(d),
                           det_box=np.asarray(d.box, dtype=np.float64), quad_frames=1 if d.quad else 0,
                           still_since=t,
                           own_indices=_seen_indices(d, t) if d.quad else [])
                self._vote(tr, d)
                tr.hits = 1
                tr.fresh_hits = int(d.fresh)
                if self.min_hits <= 1 and self.min_seen_seconds <= 0:
                    tr.confirmed = True
                self.tracks.append(tr)

        # stability: nothing is decided while the frame is frozen; a card hidden but not yet gone
        # holds its own zone, and the zones where cards came up since it went out of sight
        hidden = [tr for tr in self.tracks if tr.confirmed and tr.published
                  and t - tr.last_t > self.hold_missing_seconds + 1e-9]
        if hidden and not frozen:
            self.freeze_reason = f"{len(hidden)} card(s) hidden"
        self.waiting = frozen or bool(hidden)
        if not frozen:
            table, sig = self._snapshot_cached(t, frame_size)
            held = self._held_zones(hidden)
            # something lies over published cards: their zones decide nothing meanwhile, and this
            # time does not count towards the pending state's stability; if the zone is the same
            # once it has gone, its pending state goes on from where it was (a covered card's index
            # missed for a moment must not hold a meld laid elsewhere up for long)
            for key in held:
                pending = self._zone_pending.get(key)
                if pending is not None:
                    pending.since += dt
                    pending.cards_since += dt
            keys = self._settled_zones(sig, t, held)
            if keys:
                self._publish(table, sig, keys, t)
            if self._retract_unread(t) or keys:
                return self._published
        if self._published is None:
            return None
        if self._published.changed:
            self._published = replace(self._published, changed=False)
        return self._published

    def reread_region(self, t: float) -> tuple[float, float, float, float] | None:
        """The part of the frame to read again at photo quality now (x1, y1, x2, y2), or None.

        Nothing while the table is waiting (a hand over it, a blurred picture). Otherwise the cards
        that have lain still for ``stable_seconds`` and were not looked at with photo quality since
        they came to lie there, and the unread ones again every REREAD_UNREAD_SECONDS; the region
        reaches REREAD_MARGIN card sizes around them."""
        if self.waiting or self.frozen:
            return None
        want = []
        for tr in self.tracks:
            if not (tr.confirmed and t - tr.still_since >= self.stable_seconds - 1e-9):
                continue
            if tr.photo_t is None or tr.photo_t < tr.still_since or (
                    not tr.reading and t - tr.photo_t >= REREAD_UNREAD_SECONDS - 1e-9):
                want.append(tr)
        if not want:
            return None
        corners = np.array([tr.outline() for tr in want], dtype=np.float64).reshape(-1, 2)
        m = REREAD_MARGIN * (self.card_ref_px or float(np.median([tr.size for tr in want])))
        return (float(corners[:, 0].min() - m), float(corners[:, 1].min() - m),
                float(corners[:, 0].max() + m), float(corners[:, 1].max() + m))

    def add_photo_readings(self, cards: list[DetectedCard], t: float,
                           region: tuple[float, float, float, float]) -> None:
        """The cards a photo-quality look at ``region`` of the frame of time ``t`` found: evidence,
        weighing PHOTO_WEIGHT camera looks, for the cards followed there (matched by where their
        corner indices lie). Such a look makes no card of its own: what the camera's frames never
        find stays unknown (a card seen once, in a frame that is already old, may be gone)."""
        x1, y1, x2, y2 = region
        dets = [d for d in cards if d.confidence >= self.min_confidence]
        self._index_labels()
        for ti, di in self._match_by_place(dets):
            tr, d = self.tracks[ti], dets[di]
            self._look(tr, d, weight=PHOTO_WEIGHT)
        for tr in self.tracks:
            cx, cy = tr.centre
            if x1 <= cx <= x2 and y1 <= cy <= y2 and t >= tr.still_since:
                tr.photo_t = t          # looked at (read, or found nowhere at photo quality either)
        self._snap_cache = None

    # ---- internals ----------------------------------------------------------------------
    def _match_by_place(self, dets: list[DetectedCard]) -> list[tuple[int, int]]:
        """Photo-quality readings matched to the cards followed by where their corner indices lie
        (a whole card read in a fan covers the indices of the cards under it: its box says little):
        (track index, det index) pairs whose boxes overlap at least PLACE_IOU, best first."""
        # every box of every card against every box of every reading at once (one IoU matrix), then
        # the best of each (reading, card) pair
        track_rows = [(ti, b) for ti, tr in enumerate(self.tracks)
                      for b in (tr.det_box, None if tr.partial or tr.quad is None else tr.box) if b is not None]
        det_rows = [(di, b) for di, d in enumerate(dets) for b in (list(d.indices) or [d.box])]
        if not track_rows or not det_rows:
            return []
        best = _owners_iou(det_rows, len(dets), track_rows, len(self.tracks))
        pairs = sorted(((float(best[di, ti]), int(ti), int(di)) for di, ti in zip(*np.nonzero(best >= PLACE_IOU))),
                       reverse=True)
        used_t, used_d, matches = set(), set(), []
        for _, ti, di in pairs:
            if ti not in used_t and di not in used_d:
                used_t.add(ti)
                used_d.add(di)
                matches.append((ti, di))
        return matches

    def _held_zones(self, hidden: list[Track]) -> set:
        """The zones (keys of :func:`_zone_parts`) a hidden card holds: its own, and the zones of
        cards that came up from HOLD_BIRTH_MARGIN before it went out of sight on (the card moved
        there, or the detector reads the hand over it as cards)."""
        if not hidden:
            return set()
        key_of = {z.id: k for k, z in enumerate(self.zones.seats)}
        key_of[self.zones.centre.id] = "centre"
        gone_at = min(tr.last_t for tr in hidden) - HOLD_BIRTH_MARGIN
        zones = {tr.zone or tr.layout_zone for tr in hidden}
        zones |= {tr.layout_zone for tr in self.tracks if tr.confirmed and tr.first_t >= gone_at - 1e-9}
        return {key_of.get(z, "outside") for z in zones}

    def _settled_zones(self, sig, t: float, held: set = frozenset()) -> set:
        """The zones whose new state is published now.

        Each zone (a seat, the centre, outside) is judged on its own: a zone's state is ready once
        it has held for ``stable_seconds`` (the same cards grouped differently from frame to frame,
        as cards at angles in a fan, once the cards have held for FLICKER_HOLD times that). Zones
        that change together are published together, but a zone that has kept changing for longer
        than ``stable_seconds`` (a hand fumbling at one seat, a fan whose readings come and go) no
        longer holds the others back. A card that leaves a zone for a zone still changing waits for
        both (never in two places, never lost). The zones ``held`` (a card hidden there) wait as they
        were, and a card moving to or from one waits with them."""
        parts = _zone_parts(sig)
        published = _zone_parts(self._published_sig) if self._published_sig is not None else {}
        ready = set()
        for key, part in parts.items():
            if key in held:
                continue            # what it shows under the hand changes nothing
            cards = _part_cards(part)
            pending = self._zone_pending.get(key)
            if pending is None or pending.part != part:
                # since when it has been changing (from its first frame: not changing)
                unsettled = None if pending is None or part == published.get(key) else \
                    (t if pending.changing_since is None else pending.changing_since)
                cards_since = t if pending is None or pending.cards != cards else pending.cards_since
                pending = self._zone_pending[key] = _ZonePending(part, t, cards, cards_since, unsettled)
            settled = t - pending.since >= self.stable_seconds - 1e-9 or (
                t - pending.cards_since >= FLICKER_HOLD * self.stable_seconds - 1e-9
                and cards != _part_cards(published.get(key)))
            if settled and part != published.get(key):
                ready.add(key)
        if not ready:
            return ready
        changing = {key for key in parts if key not in ready and parts[key] != published.get(key)}
        # changes at several zones at once are published together, unless one of them has kept
        # changing for longer than stable_seconds
        if any(self._zone_pending[key].changing_since is not None
               and t - self._zone_pending[key].changing_since < self.stable_seconds - 1e-9
               for key in changing - held):
            return set()
        # a card moving between a zone published now and one still changing waits for both
        while True:
            moving = {i for key in changing for i in _part_ids(parts[key]) | _part_ids(published.get(key))}
            wait = {key for key in ready if (_part_ids(parts[key]) | _part_ids(published.get(key))) & moving}
            if not wait:
                return ready
            ready -= wait
            changing |= wait

    def _publish(self, table: StableTable, sig, keys: set, t: float) -> None:
        """Publish ``table``'s zones ``keys``; the other zones keep what was published for them."""
        old = self._published
        parts = _zone_parts(sig)
        before = _zone_parts(self._published_sig) if self._published_sig is not None else {}
        seats = []
        for k, st in enumerate(table.seats):
            if k in keys or old is None:
                seats.append(st if k in keys else replace(st, melds=[], loose=[]))
            else:
                seats.append(old.seats[k])
        centre = table.centre if "centre" in keys else (old.centre if old is not None else [])
        outside = table.outside if "outside" in keys else (old.outside if old is not None else [])
        since = min(self._zone_pending[key].since if parts.get(key) == self._zone_pending[key].part else t
                    for key in keys)
        version = (old.version + 1) if old else 1
        # publish the latest geometry of the zones' state
        self._published = replace(table, seats=seats, centre=centre, outside=outside, since=since,
                                  version=version, changed=True, t=t)
        merged = {key: parts[key] if key in keys else before.get(key, _EMPTY_PART) for key in parts}
        self._published_sig = _zone_sig(merged, len(table.seats))
        # published cards keep their zone from now on (a meld keeps its seat)
        zone_of = {c.track_id: c.zone for c in self._published.cards}
        # ... and cards published as one meld stay one under looser limits
        self._meld_pairs = {(a, b) for st in self._published.seats for m in st.melds
                            for a in m.ids for b in m.ids if a < b}
        for tr in self.tracks:
            if tr.id in zone_of:
                tr.zone = zone_of[tr.id]
                tr.published = True

    def _retract_unread(self, t: float) -> bool:
        """Show as unread every published card whose evidence has not decided its published label for
        ``stable_seconds`` (a label decided early, then outweighed by later looks), without waiting
        for its zone to settle: a tight fan whose other readings come and go may not settle for
        long, and a label the evidence no longer holds must not be counted meanwhile. Whether a
        new table state was published."""
        pub = self._published
        if pub is None:
            return False
        by_id = {tr.id: tr for tr in self.tracks}
        read_as = self._read_as_published
        stale = {}
        cards = pub.cards
        shown_ids = {c.track_id for c in cards}
        for i in [i for i in read_as if i not in shown_ids]:
            del read_as[i]
        for c in cards:
            tr = by_id.get(c.track_id)
            if not c.card or tr is None:
                continue
            if tr.reading == c.card:
                read_as[c.track_id] = t
            elif t - read_as.setdefault(c.track_id, t) >= self.stable_seconds - 1e-9:
                stale[c.track_id] = tr
        if not stale:
            return False

        def shown(c: TableCard) -> TableCard:
            tr = stale.get(c.track_id)
            if tr is None:
                return c
            return replace(c, card="", confidence=tr.evidence.share(""),
                           candidates=tuple(tr.evidence.candidates()))

        seats = [replace(st, melds=[replace(m, cards=[shown(c) for c in m.cards]) for m in st.melds],
                         loose=[shown(c) for c in st.loose]) for st in pub.seats]
        self._published = replace(pub, seats=seats, centre=[shown(c) for c in pub.centre],
                                  outside=[shown(c) for c in pub.outside], since=t, t=t,
                                  version=pub.version + 1, changed=True)
        self._published_sig = _layout_sig(self._published)
        for i in stale:
            read_as.pop(i, None)
        return True

    def _own_index_look(self, d: DetectedCard, t: float) -> bool:
        """Whether ``d``, matched to no card, is an index alone lying on a confirmed card's own corner
        index (one it was seen whole with, where it lies): then it is a look at that card, maybe a
        misread one (a 5D followed from its lower index, its upper index read 6D), never a new card.
        A label other than the card's counts in its evidence, against it."""
        if not self._is_partial(d):
            return False
        for tr in self.tracks:
            if not tr.confirmed or tr.partial or not tr.own_index(d.box, t):
                continue
            if d.fresh and (d.card != tr.label or tr.last_t < t):
                self._look(tr, d)
            tr.last_t = t
            tr.missed_clear = 0.0
            return True
        return False

    def _same_index_look(self, d: DetectedCard, t: float) -> bool:
        """Whether ``d``, matched to no card, is an index alone lying over the indices of cards followed
        from their index alone and seen at most ``OWN_INDEX_SECONDS`` ago (one of them overlapping it
        ``SAME_INDEX_IOU``, or all of them covering ``COVERED_SHARE`` of it): a second box on those
        indices, or a box on one of them missed in this frame, read again, never a new card. Where it
        lies on one of them, a label other than that card's counts in its evidence, against it; a box
        across two indices tells nothing of either."""
        if not self._is_partial(d):
            return False
        seen = [tr for tr in self.tracks if tr.confirmed and tr.partial and tr.det_box is not None
                and t - tr.last_t <= OWN_INDEX_SECONDS + 1e-9]
        if not seen:
            return False
        box = np.asarray(d.box, dtype=np.float64).reshape(1, 4)
        boxes = np.array([tr.det_box for tr in seen], dtype=np.float64).reshape(-1, 4)
        iou, of_smaller = pairwise_overlap(boxes, box)
        k = int(np.argmax(iou[:, 0]))
        if iou[k, 0] >= SAME_INDEX_IOU:
            if d.fresh and d.card != seen[k].label:
                self._look(seen[k], d)
            return True
        area = float(box_area(box)[0])
        shared = of_smaller[:, 0] * np.minimum(box_area(boxes), area)
        return float(shared.sum()) >= COVERED_SHARE * max(area, 1e-6)

    def _is_partial(self, d: DetectedCard) -> bool:
        """Only corner indices of this card were seen: no quad, and a box that is its indices' (a
        strip of two indices, however turned) or much smaller than a card."""
        if d.quad:
            return False
        if d.indices and _spans_only(d.box, d.indices):
            return True
        x1, y1, x2, y2 = d.box
        size = math.sqrt(max((x2 - x1) * (y2 - y1), 1.0))
        return self.card_ref_px > 0 and size < 0.6 * self.card_ref_px

    def _update_card_ref(self, dets: list[DetectedCard]) -> None:
        # only cards whose outline is known (a quad) tell the card size; a detector that
        # gives no quads at all gives whole-card boxes, and nothing counts as partial
        full = [cv2.contourArea(np.asarray(d.quad, np.float32)) for d in dets if d.quad]
        if not full:
            return
        ref = math.sqrt(max(float(np.median(full)), 1.0))
        self.card_ref_px = ref if self.card_ref_px <= 0 else 0.8 * self.card_ref_px + 0.2 * ref

    def _follow(self, tr: Track, d: DetectedCard, t: float) -> None:
        """Update a track's outline from a matched detection (smoothing jitter, keeping what is known)."""
        a = self.smooth
        nb = np.asarray(d.box, dtype=np.float64)
        if d.quad:
            nq = np.asarray(d.quad, dtype=np.float64).reshape(4, 2)
            same_place = tr.quad is not None and np.abs(tr.quad - nq).max() < 0.25 * max(self.card_ref_px, 1.0)
            tr.quad = (1 - a) * tr.quad + a * nq if same_place else nq
            tr.box = (1 - a) * tr.box + a * nb if same_place else nb
            tr.quad_frames = tr.quad_frames + 1 if same_place else 1
            tr.partial = False
            seen = _seen_indices(d, t)
            if same_place:
                # an index not seen this time (covered, or read as another card) stays its own a while
                seen += [(b, s) for b, s in tr.own_indices if not any(_box_iou(b, n) > 0.3 for n, _ in seen)]
            tr.own_indices = seen
            return
        partial = self._is_partial(d)
        if partial and tr.quad is not None and tr.quad_frames >= QUAD_KEEP_FRAMES:
            # the card is now partly covered (a card laid on it): keep its outline while it has not moved
            # (an outline seen in a frame or two may be a misreading: two corners of different cards)
            cx, cy = d.centre
            if cv2.pointPolygonTest(tr.quad.astype(np.float32), (float(cx), float(cy)), True) > \
                    -0.1 * max(self.card_ref_px, 1.0):
                # an own corner index seen again where it lies: the card is still there
                tr.own_indices = [(nb, t) if _box_iou(b, nb) >= OWN_INDEX_FOLLOW else (b, seen)
                                  for b, seen in tr.own_indices]
                return
        same_kind = tr.quad is None and tr.partial == partial
        tr.quad_frames = 0
        tr.box = (1 - a) * tr.box + a * nb if same_kind and tr.matched_frames else nb
        tr.quad = None
        tr.own_indices = []
        tr.partial = partial

    def too_blurred(self, sharpness: float) -> bool:
        """Whether a frame of this ``sharpness`` would be taken as blurred (a hand moving, the camera
        refocusing): the camera loop then does not read it at all. Changes nothing."""
        hist = self._sharp_hist
        if sharpness < self.min_sharpness:
            return True
        if len(hist) < 5 or sharpness >= self.blur_ratio * float(np.percentile(hist, 75)):
            return False
        # a blur that lasts is a changed scene (see _is_sharp): read it
        return self._blur_since is None or self._last_t - self._blur_since <= self.max_blur_seconds

    @property
    def blurred_for(self) -> float:
        """Seconds of frame time the picture has been blurred (0 when sharp)."""
        if self._blur_since is None or self._last_t is None:
            return 0.0
        return max(0.0, self._last_t - self._blur_since)

    def _is_sharp(self, s: float, read: bool = True) -> bool:
        """Sharp unless well below this camera's usual sharpness (median of a long window), or not
        read at all (``read`` False: too blurred to read, by this measure or the recogniser's own)."""
        hist = self._sharp_hist
        hist.append(s)
        if len(hist) > self.sharpness_window:
            del hist[0]
        if not read:
            if self._blur_since is None:
                self._blur_since = self._last_t
            return False
        if s < self.min_sharpness:
            return False
        if len(hist) < 5:
            return True
        sharp = s >= self.blur_ratio * float(np.percentile(hist, 75))
        if sharp:
            self._blur_since = None
            return True
        if self._blur_since is None:
            self._blur_since = self._last_t
        # a long "blur" is a changed scene (fewer cards, other light), not a shaking camera
        return self._last_t - self._blur_since > self.max_blur_seconds

    def _confirmed_unsure(self, tr: Track, t: float) -> bool:
        """Whether a card not yet confirmed is, with its unsure looks: read clearly in MIN_FRESH_HITS
        fresh looks, as the same label unsure in CONFIRM_UNSURE_LOOKS more, and its evidence decides
        that label (nothing at its place contradicts it)."""
        return (tr.fresh_hits >= min(self.min_hits, MIN_FRESH_HITS) and tr.unsure_hits >= CONFIRM_UNSURE_LOOKS
                and t - tr.first_t >= self.min_seen_seconds - 1e-9 and bool(tr.label) and tr.reading == tr.label)

    def _look(self, tr: Track, d: DetectedCard, clear: bool = True, weight: float = 1.0) -> None:
        """One fresh look ``d`` at ``tr`` into its evidence (older looks faded by ``vote_decay``;
        ``clear`` False: an unsure reading; ``weight``: PHOTO_WEIGHT for a photo-quality look). In a
        picture that lost its fine print, a look reading under ``TWIN_SURE`` the label of another card
        followed (beside it, or anywhere on the table) leaves the card only its sure looks as clear
        ones (:meth:`_twin_of`, ``CardEvidence.doubt_twin``)."""
        tr.evidence.decay = self.vote_decay
        tr.evidence.add(d.card, d.confidence, weight=weight, clear=clear, contradicted=d.wrong_ink or d.overruled)
        indices = list(d.indices) or ([d.box] if self._is_partial(d) else [])
        if indices:
            tr.indices = indices
        twin = self._twin_of(tr, d, indices)
        if twin is not None:
            tr.evidence.doubt_twin(twin.evidence, d.card)

    def _twin_of(self, tr: Track, d: DetectedCard, indices: list) -> Track | None:
        """The card (if any) whose label ``d``, a look at ``tr`` through its ``indices``, reads under
        ``TWIN_SURE`` in a soft or small picture (``vision.twins``): one followed with an index beside
        them (the half-covered 6S beside the KS read KS, in the frames where the KS itself is read
        otherwise or not at all), else, where ``tr`` itself is taken for that label (its votes lead
        there: a stray look naming a card that lies elsewhere doubts nothing), the card counted under
        that label with the most sure looks, wherever it lies (a 640×360 camera's clean feed read the
        9C's index 9S 0.4-0.66 look after look and counted a 9S there, the real 9S read 0.7-0.88
        elsewhere). On a table of one pack as well: there the misread would set both cards aside (a
        label read at two places), the right one with the misread one."""
        if not (self._coarse and indices) or d.confidence >= TWIN_SURE:
            return None
        others = [o for o in self._labelled.get(d.card, ()) if o is not tr and o.label == d.card]
        beside = next((o for o in others if o.indices and side_by_side(indices, o.indices)), None)
        if beside is not None or tr.label != d.card:
            return beside
        return max((o for o in others if o.confirmed and o.reading == d.card), default=None,
                   key=lambda o: o.evidence.sure_looks.get(d.card, 0.0))

    def _index_labels(self) -> None:
        """The tracks of each label (:meth:`_twin_of` asks for one label's, not every track's)."""
        self._labelled = {}
        if self._coarse:
            for tr in self.tracks:
                if tr.label:
                    self._labelled.setdefault(tr.label, []).append(tr)

    def _vote(self, tr: Track, d: DetectedCard) -> None:
        if d.fresh:
            # a reading kept from an earlier frame is no new evidence
            self._look(tr, d)
        if self.vote_decay < 1.0:
            for k in list(tr.votes):
                tr.votes[k] *= self.vote_decay
        tr.votes[d.card] = tr.votes.get(d.card, 0.0) + float(d.confidence)
        best = max(tr.votes, key=tr.votes.get)
        if not tr.label:
            tr.label = best
        elif best != tr.label and tr.votes[best] >= self.label_switch * tr.votes.get(tr.label, 0.0):
            tr.label = best

    def _match(self, dets: list[DetectedCard], tracks: list[Track] | None = None):
        """Greedy matching of ``dets`` to ``tracks`` (default: all): (track index, det index) pairs,
        unmatched det indices, unmatched tracks."""
        tracks = self.tracks if tracks is None else tracks
        nt, nd = len(tracks), len(dets)
        if nt == 0 or nd == 0:
            return [], list(range(nd)), list(tracks)
        tb = np.stack([tr.box for tr in tracks])
        db = np.array([d.box for d in dets], dtype=np.float64)
        # compare with the card's outline and with its last detection (an index alone, or the
        # whole card), whichever fits better
        lb = np.stack([tr.det_box if tr.det_box is not None else tr.box for tr in tracks])
        iou = np.maximum(_iou_matrix(tb, db), _iou_matrix(lb, db))
        tc = np.array([tr.centre for tr in tracks])
        dc = np.array([d.centre for d in dets])
        tsize = np.array([tr.size for tr in tracks])
        norm = np.maximum(tsize, 0.25 * self.card_ref_px)
        dist = np.linalg.norm(tc[:, None, :] - dc[None, :, :], axis=2) / np.maximum(norm[:, None], 1.0)
        # an index seen alone lies inside the whole card seen before, and vice versa
        inside = ((dc[None, :, 0] >= tb[:, None, 0]) & (dc[None, :, 0] <= tb[:, None, 2])
                  & (dc[None, :, 1] >= tb[:, None, 1]) & (dc[None, :, 1] <= tb[:, None, 3]))
        inside |= ((tc[:, None, 0] >= db[None, :, 0]) & (tc[:, None, 0] <= db[None, :, 2])
                   & (tc[:, None, 1] >= db[None, :, 1]) & (tc[:, None, 1] <= db[None, :, 3]))
        tl = np.array([tr.label for tr in tracks], dtype=object)
        dl = np.array([d.card for d in dets], dtype=object)
        same = (tl[:, None] == dl[None, :]).astype(np.float64)
        # the more a track's label is established, the more a detection must agree with it:
        # a new card laid half over an old one must not steal the old one's identity
        settled = np.array([min(1.0, tr.hits / 5.0) * tr.vote_share for tr in tracks])
        label_bonus = 0.3 + 0.7 * settled
        # candidate if boxes overlap or the centre moved less than half a card
        # a settled card does not take a detection of another card unless it lies right on it
        # (a misread); near it is not enough: a card laid next to or over it is another card
        # (or whose label a photo-quality look there read clearly: a card the camera's frames hardly
        # read, whose track a reading of the index beside it would otherwise carry there with that
        # look's weight: the real fanned deal's 7H, read at photo quality, taken to the 10H beside it
        # when defocused and counted there)
        settled_t = np.array([(tr.hits >= 3 and tr.vote_share >= 0.6)
                              or (bool(tr.label) and tr.evidence.label == tr.label
                                  and tr.evidence.clear.get(tr.label, 0.0) >= PHOTO_WEIGHT * CLEAR_CONFIDENCE)
                              for tr in tracks])
        cand = ((iou >= 0.1) | (dist <= 0.5) | inside) & ((same > 0) | ~settled_t[:, None] | (iou >= 0.5))
        cand &= self._own_index_gate(tracks, dets, db)
        score = iou + 0.5 * np.clip(1.0 - dist, 0.0, 1.0) + label_bonus[:, None] * same
        score = np.where(cand, score, -np.inf)
        order = np.argsort(-score, axis=None)
        used_t, used_d, matches = set(), set(), []
        for flat in order:
            s = score.flat[flat]
            if not np.isfinite(s):
                break
            ti, di = divmod(int(flat), nd)
            if ti in used_t or di in used_d:
                continue
            used_t.add(ti)
            used_d.add(di)
            matches.append((ti, di))
        unmatched_d = [i for i in range(nd) if i not in used_d]
        unmatched_t = [tracks[i] for i in range(nt) if i not in used_t]
        return matches, unmatched_d, unmatched_t

    def _own_index_gate(self, tracks: list[Track], dets: list[DetectedCard], db: np.ndarray) -> np.ndarray:
        """(tracks, dets) booleans: in a picture that lost its fine print (``vision.twins``: where a
        label read says little of which card it is), False where the detection is an index read
        alone and the track a card seen whole whose corner indices were seen where they lie within
        ``OWN_INDEX_SECONDS`` and that it does not lie on (``OWN_INDEX_FOLLOW``): another card's index
        lying on that card, never a look at it. A card whose corners have not been seen for longer
        may have been slid under the others: then its index is followed wherever it lies within its
        outline, as in a sharp picture, where an index of its label there is taken for its own (a
        rendered Desmoche meld of four aces, the AC slid down as a card went in, the AH's index where
        the AC's had been)."""
        gate = np.ones((len(tracks), len(dets)), dtype=bool)
        if not self._coarse:
            return gate
        now = self._last_t if self._last_t is not None else 0.0
        rows = [(ti, b) for ti, tr in enumerate(tracks) if not tr.partial and tr.quad is not None
                for b, seen in tr.own_indices if now - seen <= OWN_INDEX_SECONDS + 1e-9]
        if not rows:
            return gate
        alone = np.array([self._is_partial(d) for d in dets], dtype=bool)
        if not alone.any():
            return gate
        best = _owners_iou(rows, len(tracks), list(enumerate(db)), len(dets))
        whole = np.zeros(len(tracks), dtype=bool)
        whole[[ti for ti, _ in rows]] = True
        gate[np.ix_(whole, alone)] = best[np.ix_(whole, alone)] >= OWN_INDEX_FOLLOW
        return gate

    def _snapshot_cached(self, t: float, frame_size) -> tuple[StableTable, tuple]:
        """:meth:`_snapshot`, reused while no card changed and none moved by more than ~6 % of its size."""
        tracks = [tr for tr in self.tracks if tr.confirmed]
        key = (frame_size, tuple((tr.id, tr.reading, tr.partial, tr.quad is None) for tr in tracks))
        pos = np.array([tr.box for tr in tracks], dtype=np.float64).reshape(-1, 4)
        cache = self._snap_cache
        tol = 2.0 if len(pos) == 0 else max(2.0, 0.06 * float(np.median(np.sqrt(
            np.maximum((pos[:, 2] - pos[:, 0]) * (pos[:, 3] - pos[:, 1]), 1.0)))))
        if cache is not None and cache[0] == key and (len(pos) == 0 or np.abs(cache[1] - pos).max() < tol):
            table, sig = cache[2], cache[3]
            return replace(table, t=t, since=t), sig
        table, sig = self._snapshot(t, frame_size)
        self._snap_cache = (key, pos, table, sig)
        return table, sig

    def _snapshot(self, t: float, frame_size) -> tuple[StableTable, tuple]:
        """The current layout of confirmed tracks, and a signature that ignores position jitter."""
        tracks = [tr for tr in self.tracks if tr.confirmed]
        zones = self.zones
        centres = np.array([tr.centre for tr in tracks], dtype=np.float32).reshape(-1, 2)
        table_c = zones.to_table(centres, frame_size) if len(tracks) else centres
        if tracks:
            outlines = np.concatenate([tr.outline() for tr in tracks])
            table_polys = list(zones.to_table(outlines, frame_size).reshape(len(tracks), 4, 2))
        else:
            table_polys = []
        by_zone: dict[str, list[int]] = {}
        cards: list[TableCard] = []
        for k, tr in enumerate(tracks):
            z = zones.zone_at_table(float(table_c[k][0]), float(table_c[k][1]))
            zid = z.id if z is not None else None
            cards.append(TableCard(
                track_id=tr.id, card=tr.reading, confidence=tr.evidence.share(tr.reading),
                candidates=tuple(tr.evidence.candidates()) if not tr.reading else (),
                box=tuple(float(v) for v in tr.box), centre=tr.centre,
                table_xy=(float(table_c[k][0]), float(table_c[k][1])), zone=zid,
                quad=tr.quad.tolist() if tr.quad is not None else None, partial=tr.partial,
                first_seen=tr.first_t, votes=tr.hits))
        sizes = [float(np.sqrt(max(abs(cv2.contourArea(p.astype(np.float32))), 1e-6))) for p in table_polys]
        partial = [tr.partial for tr in tracks]
        card_ref = estimate_card_size(sizes, partial) if tracks else None
        # A pile of touching cards (a meld) belongs to one zone, and keeps the zone it had:
        # a meld that grows across a zone boundary stays with its seat. New piles go to the
        # seat holding most of them (a seat wins over the centre: melds are laid from a seat
        # towards the middle). A pile that holds several cards of each of two seats (their melds
        # touch, or a fanned hand reaches another's) is not one meld: each card keeps the zone it
        # had (its published zone, else its zone in the last layout, else the zone it lies in), so
        # the seats do not swap cards from one frame to the next.
        for pile in piles(table_polys, partial, card_ref=card_ref):
            known: dict[str, float] = {}
            for k in pile:
                if tracks[k].zone is not None:
                    known[tracks[k].zone] = known.get(tracks[k].zone, 0.0) + 1.0
            # the zone each card had (else the one it lies in), and how many cards each seat has so
            hint = [tracks[k].zone or tracks[k].layout_zone or cards[k].zone for k in pile]
            per_seat: dict[str, int] = {}
            for z in hint:
                if z is not None and z != zones.centre.id:
                    per_seat[z] = per_seat.get(z, 0) + 1
            if sum(1 for n in per_seat.values() if n >= SEAT_GROUP) > 1:
                best = max(sorted(known), key=known.get) if known else \
                    pile_seat([cards[k].zone for k in pile], [partial[k] for k in pile], zones.centre.id)
                for k, z in zip(pile, hint):
                    cards[k].zone = z if z is not None else best
                continue
            if known:
                best = max(sorted(known), key=known.get)
            else:
                # the seat most of it had in the last layout, else lies in (no flip-flop from frame to frame)
                best = pile_seat(hint, [partial[k] for k in pile], zones.centre.id)
                if best is None and any(z == zones.centre.id for z in hint):
                    best = zones.centre.id
            for k in pile:
                cards[k].zone = best
        for tr, c in zip(tracks, cards):
            tr.layout_zone = c.zone
        for k, c in enumerate(cards):
            by_zone.setdefault(c.zone, []).append(k)
        seats = []
        for z in zones.seats:
            idx = by_zone.get(z.id, [])
            pos = {cards[k].track_id: n for n, k in enumerate(idx)}
            keep = [(pos[a], pos[b]) for a, b in self._meld_pairs if a in pos and b in pos]
            sticky = frozenset((min(pos[a], pos[b]), max(pos[a], pos[b])) for a, b in self._last_pairs
                               if a in pos and b in pos)
            melds, loose = group_melds([cards[k] for k in idx], [table_polys[k] for k in idx], z, keep_pairs=keep,
                                       sticky=sticky,
                                       gap_frac=self.gap_frac, row_frac=self.row_frac, card_ref=card_ref,
                                       min_meld_size=self.min_meld_size)
            seats.append(SeatState(seat=z.seat, zone=z.id, name=z.name, melds=melds, loose=loose))
        self._last_pairs = {(a, b) for st in seats for m in st.melds for a in m.ids for b in m.ids if a < b}
        centre = sorted((cards[k] for k in by_zone.get(zones.centre.id, [])), key=lambda c: c.track_id)
        outside = sorted((cards[k] for k in by_zone.get(None, [])), key=lambda c: c.track_id)
        table = StableTable(t=t, since=t, version=0, changed=False, seats=seats, centre=centre, outside=outside)
        return table, _layout_sig(table)


def _layout_sig(table: StableTable) -> tuple:
    """A table's layout signature: per seat its melds (as a set: their order means nothing) and loose
    cards, then the centre's and outside's cards, each card ``(track id, label)``; no positions."""
    seats = tuple((tuple(sorted(tuple((c.track_id, c.card) for c in m.cards) for m in st.melds)),
                   tuple(sorted((c.track_id, c.card) for c in st.loose))) for st in table.seats)
    return (seats, tuple((c.track_id, c.card) for c in table.centre),
            tuple((c.track_id, c.card) for c in table.outside))


# an empty zone's part of the layout signature: no melds, no loose cards
_EMPTY_PART: tuple = ((), ())


def _zone_parts(sig) -> dict:
    """A layout signature (:meth:`TableTracker._snapshot`) split by zone, each part ``(melds, loose)``:
    a seat's index -> its melds and loose cards, ``"centre"`` and ``"outside"`` -> their cards as loose."""
    seats, centre, outside = sig
    parts: dict = {k: part for k, part in enumerate(seats)}
    parts["centre"], parts["outside"] = ((), centre), ((), outside)
    return parts


def _zone_sig(parts: dict, n_seats: int) -> tuple:
    """The layout signature of zone parts (:func:`_zone_parts` backwards)."""
    return tuple(parts[k] for k in range(n_seats)), parts["centre"][1], parts["outside"][1]


def _part_cards(part) -> tuple | None:
    """A zone's cards ``(track id, label)`` however they are grouped."""
    if part is None:
        return None
    melds, loose = part
    return tuple(sorted([c for m in melds for c in m] + list(loose)))


def _part_ids(part) -> set:
    return {i for i, _ in _part_cards(part) or ()}
