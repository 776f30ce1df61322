"""What one recognition did and how long each part took: :class:`RecognitionStats` and its timers."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np


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
    # the blur along one direction measured in the index boxes, px (``images.motion_blur``; 0 where
    # not measured), and whether it declared the frame blurred (``RecognizerConfig.max_motion_blur``)
    motion_blur: float = 0.0
    blurred: bool = False
    ms_detect: float = 0.0          # finding the index boxes: views, detector network, decoding, NMS
    ms_classify: float = 0.0        # reading them: crops and classifier network
    ms_assembly: float = 0.0        # readings to cards (vision.assembly)
    ms_outlines: float = 0.0        # lone cards by their outline, read and merged (crops and network included)
    # the pictures: the frame made ready (a lamp's glare taken off) and the detector's input
    # pictures, each view cut, resized, padded and converted to the network's float input (that
    # part within ms_detect); grows with the pixels read, not with the cards
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

    def count_view(self, t0: float, c0: float) -> None:
        """A view's input picture rendered since ``t0`` (``perf_counter``), ``c0`` (``thread_time``)."""
        self.ms_views += (time.perf_counter() - t0) * 1000
        self.cpu_ms_views += (time.thread_time() - c0) * 1000

    def count_classifier(self, t0: float, c0: float) -> None:
        """A classifier run since ``t0`` (``perf_counter``), ``c0`` (``thread_time``)."""
        self.ms_classifier_net += (time.perf_counter() - t0) * 1000
        self.cpu_ms_thread_net += (time.thread_time() - c0) * 1000

    def count_detector(self, c0: float, runs: list["ViewRun"]) -> None:
        """Counts a group of detector runs begun when this thread's CPU time was ``c0``. The
        network's wall time is the time while at least one run was in the network; the input
        pictures' is the time while one was being converted and none in the network. Several runs
        went side by side in helper threads (``Network.map_side_by_side``): this thread waited
        meanwhile (counted with the network, as its CPU time inside the runtime), and the helpers'
        CPU time outside the network is added to :attr:`cpu_ms_helpers`."""
        net = union_length([r.net for r in runs])
        self.ms_detector_net += net * 1000
        self.ms_views += (union_length([r.blob for r in runs] + [r.net for r in runs]) - net) * 1000
        self.cpu_ms_views += sum(r.cpu_blob for r in runs) * 1000
        if len(runs) > 1:
            self.cpu_ms_thread_net += (time.thread_time() - c0) * 1000
            self.cpu_ms_helpers += sum(r.cpu_blob + r.cpu_after for r in runs) * 1000
            self.runs_side_by_side += len(runs)
        else:
            self.cpu_ms_thread_net += sum(r.cpu_net for r in runs) * 1000
        self.detector_runs += len(runs)


@dataclass
class ViewRun:
    """One detector run on a view: its boxes and scores, when its input was converted and when it
    was in the network (perf_counter intervals), and the CPU time of its thread converting, in the
    network and decoding (seconds)."""

    boxes: np.ndarray
    scores: np.ndarray
    blob: tuple[float, float]
    net: tuple[float, float]
    cpu_blob: float
    cpu_net: float
    cpu_after: float


def union_length(intervals: list[tuple[float, float]]) -> float:
    """The length of the union of (start, end) intervals."""
    total, end = 0.0, -math.inf
    for a, b in sorted(intervals):
        if b > end:
            total += b - max(a, end)
            end = b
    return total
