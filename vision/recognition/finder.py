"""The detector's side of recognition: the index boxes of a frame, over the views the plan chooses.

Views are rendered into reusable buffers, run through the detector (two side by side where the
runtime allows, one core each), decoded and merged (``plan``); with the memo, a view whose
picture is unchanged keeps the boxes found in it before.
"""
from __future__ import annotations

import time
from functools import partial

import cv2
import numpy as np

from tableref.vision.decoding import decode_yolo, nms
from tableref.vision.geometry import box_size
from tableref.vision.recognition.frame import FrameReading
from tableref.vision.recognition.memo import FrameMemo, box_patches, picture_signature
from tableref.vision.recognition.plan import ScalePlan
from tableref.vision.recognition.timing import ViewRun
from tableref.vision.runtime import Network
from tableref.vision.views import View, ViewCanvas, drop_cut_at_tile_edges


class IndexFinder:
    """Finds the corner indices of a frame with the detector ``net`` at the scales of ``plan``."""

    def __init__(self, net: Network, plan: ScalePlan, memo: FrameMemo):
        self.net = net
        self.plan = plan
        self.config = plan.config
        self.memo = memo
        self.canvas = ViewCanvas()

    def find(self, frame: FrameReading) -> tuple[np.ndarray, np.ndarray]:
        """All index boxes (source pixels) and detector scores, at a suitable scale."""
        h, w = frame.image.shape[:2]
        c, stats = self.config, frame.stats
        kept = self.memo.kept_views((w, h)) if c.reuse_scale_frames else None
        if kept is not None:
            # a video from a fixed camera: the enlarged views chosen a moment ago still fit;
            # the full view that measured the index size is skipped (it is looked at again
            # every reuse_scale_frames frames)
            b2, s2, _ = self.detect_views(frame, kept)
            stats.passes.append(f"{len(kept)}x@{kept[0].scale:.3f} (kept)")
            keep = nms(b2, s2, c.nms_iou, c.nms_ios)
            # what the full view found there and the enlarged views do not (an index the detector
            # sees at one scale only) stays found while the picture inside it is unchanged
            b1, s1 = self.memo.kept_full_only(frame.detector_image)
            boxes, scores, _ = self.plan.merge_second(b2[keep], s2[keep], b1, s1)
            return boxes, scores
        full = frame.full_view = self.plan.full_view(w, h)
        turned = None
        if c.turned_pass and self.memo.turned_size == (w, h):
            # the last frame of this size was read turned too (no enlarged or shrunk pass): a
            # camera's frames are alike, so both runs go side by side from the start
            (boxes, scores), turned = self.detect_group(frame, [(full, False), (full, True)])
            sizes = box_size(boxes)
            boxes = full.to_source(boxes)
        else:
            boxes, scores, sizes = self.detect_views(frame, [full])
        self.memo.turned_size = None
        stats.passes.append(f"full@{full.scale:.3f}")
        second = self.plan.second_views(w, h, full, sizes, scores)
        if not second:
            # the indices are read at the full view's scale: read it turned too
            return self._add_turned(frame, full, boxes, scores, turned)
        stats.passes.append(f"{len(second)}x@{second[0].scale:.3f}")
        b2, s2, _ = self.detect_views(frame, second)
        boxes, scores, full_only = self.plan.merge_second(b2, s2, boxes, scores)
        if c.reuse_scale_frames and second[0].scale > full.scale:
            self.memo.keep_views((w, h), second, c.reuse_scale_frames,
                                 (boxes[full_only], scores[full_only], box_patches(frame.detector_image, boxes[full_only])))
        return boxes, scores

    def _add_turned(self, frame: FrameReading, full: View, boxes: np.ndarray, scores: np.ndarray, turned=None):
        """With ``turned_pass``, the full view read again turned by 90°, merged in: indices lie at
        every angle, but the detector finds some of them better turned (the view is already
        rendered, so the cost does not grow with the size of the source picture). ``turned``: that
        reading, already done beside the full view's."""
        if not self.config.turned_pass:
            return boxes, scores
        rb, rs = turned if turned is not None else self.detect_group(frame, [(full, True)])[0]
        h, w = frame.image.shape[:2]
        self.memo.turned_size = (w, h)
        frame.stats.passes.append("turned")
        boxes, scores, frame.rivals = self.plan.merge_turned(boxes, scores, full.to_source(rb), rs)
        return boxes, scores

    def detect_views(self, frame: FrameReading, views: list[View]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Detect in several views; merge. Returns source boxes, scores, sizes in input px."""
        h, w = frame.image.shape[:2]
        all_boxes, all_scores, all_sizes = [], [], []
        for v, (b, s) in zip(views, self.detect_group(frame, [(v, False) for v in views])):
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

    def detect_group(self, frame: FrameReading, items: list[tuple[View, bool]]) -> list[tuple[np.ndarray, np.ndarray]]:
        """(boxes, scores) in the view's input pixels of each (view, turned) of ``items`` (turned:
        the detector reads the view turned by 90° clockwise, the boxes are mapped back).

        Several are run two at a time side by side (one core each, ``Network.map_side_by_side``).
        With ``reuse_views`` a view whose picture is unchanged since the detector last read it
        keeps the boxes found then (``FrameMemo.view_boxes``)."""
        image, stats = frame.detector_image, frame.stats
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
                picture = self.canvas.render(image, view)
                if view == frame.full_view:
                    frame.full_picture = picture
                rendered[view] = picture, picture_signature(picture) if reuse else None
            picture, sign = rendered[view]
            key = (view, turned, image.shape[:2])
            stats.count_view(t0, c0)
            seen = self.memo.view_boxes(key, sign) if reuse else None
            if seen is not None:
                out[k] = seen
                stats.views_reused += 1
                continue
            todo.append((k, view, turned, key, sign, picture))
        group = self.net.side_by_side
        for g in range(0, len(todo), group):
            part = todo[g:g + group]
            c0 = time.thread_time()
            # the first of the last runs side by side to finish leaves its core idle until the
            # other one finishes: it starts the helper thread's work there (earlier ones would
            # compete with the next runs); a lone run, on two threads, leaves part of the two cores
            # idle all along: the helper thread's work starts with it
            last = len(part) > 1 and g + group >= len(todo)
            if len(part) == 1:
                frame.start_helpers()
            runs = self.net.map_side_by_side(partial(self._read_view, frame),
                                             [(view, turned, picture, last) for _, view, turned, _, _, picture in part])
            stats.count_detector(c0, runs)
            for (k, view, turned, key, sign, _), run in zip(part, runs):
                out[k] = run.boxes, run.scores
                if reuse:
                    self.memo.remember_view(key, sign, run.boxes, run.scores)
        return out

    def _read_view(self, frame: FrameReading, run, slot: int, item: tuple) -> ViewRun:
        """One detector run on a rendered view, (view, turned, picture, start helpers): the picture
        turned (if ``turned``) and converted to the network's input, the run (``run``,
        ``Network.map_side_by_side``), its output decoded; in whichever thread it is called, so it
        keeps its own times. With "start helpers", the frame's helper work starts when the run is
        done (``FrameReading.start_helpers``, if not started yet)."""
        view, turned, picture, start_helpers = item
        c0, t0 = time.thread_time(), time.perf_counter()
        if turned:
            picture = cv2.rotate(picture, cv2.ROTATE_90_CLOCKWISE)
        blob = self.net.image_blob(picture, slot)
        t1, c1 = time.perf_counter(), time.thread_time()
        raw = run(blob)
        t2, c2 = time.perf_counter(), time.thread_time()
        if start_helpers:
            frame.start_helpers()
        boxes, scores = self._view_boxes(raw, view, turned)
        return ViewRun(boxes, scores, (t0, t1), (t1, t2), c1 - c0, c2 - c1, time.thread_time() - c2)

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
