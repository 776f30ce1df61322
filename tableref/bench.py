"""Speed of card recognition: the benchmark frames and the per-stage timing ``tableref bench-detect`` prints.

Frames (:func:`default_frames`):

* synthetic 52-card meld frames at 1280×720, 1920×1080 and 12 MP, composed from a rendered
  deck (``kennard-2color``, or the first deck this machine can load);
* the real fanned deal, ``../shared/data/real-table/fanned-deal-1280x720.jpg`` (52 cards, a
  720p camera frame of a real table), when it is present beside the repository;
* a 104-card real frame made from it: the photo twice side by side in 1280×720
  (:func:`tiled_real_frame`), to see how the time grows with the number of cards.

Each frame is read ``warmup`` times untimed (the runtime plans its memory on the first run
at each input shape; a size met that often gets its own compiled copy, waited for: a fixed
camera's frames, after its first second), then ``repeat`` times timed, exactly as ``tableref detect`` and the live
session call :meth:`CardRecognizer.recognize`. Per frame: the median wall time and, from the
recogniser's :class:`~tableref.vision.recognition.RecognitionStats` of the same runs, the
medians of finding the indices (detector), reading them (classifier), the assembly, the
outlines, the two networks alone and everything else (the non-network part).
"""
from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
REAL_TABLE = "data/real-table/fanned-deal-1280x720.jpg"
REAL_TABLE_PHOTO = "data/real-table/fanned-deal.jpg"
REAL_TABLE_CARDS = 52


def shared_dir() -> Path | None:
    """``../shared`` beside the repository (or ``$TABLEREF_SHARED``), if it is there."""
    for p in (os.environ.get("TABLEREF_SHARED"), REPO.parent / "shared", Path.cwd().parent / "shared"):
        if p and Path(p).is_dir():
            return Path(p)
    return None


def tiled_real_frame(photo: np.ndarray, background: tuple[int, int, int], width: int = 1280,
                     height: int = 720) -> np.ndarray:
    """Twice the cards of a square real photo in one frame: two copies side by side, each
    ``width / 2`` pixels square, on ``background``."""
    side = min(width // 2, height)
    small = cv2.resize(photo, (side, side), interpolation=cv2.INTER_AREA)
    out = np.empty((height, width, 3), np.uint8)
    out[:] = background
    y = (height - side) // 2
    x = (width - 2 * side) // 2
    out[y:y + side, x:x + side] = small
    out[y:y + side, x + side:x + 2 * side] = small
    return out


def real_frames(folder: str | Path | None = None) -> list[tuple[str, np.ndarray, int | None]]:
    """(name, image, cards in it) for the real-table frames of ``folder`` (the real-table data:
    ``fanned-deal-1280x720.jpg`` and ``fanned-deal.jpg``; default: the shared data beside the
    repository), [] where they are absent."""
    if folder is None:
        shared = shared_dir()
        if shared is None:
            return []
        frame_path, photo_path = shared / REAL_TABLE, shared / REAL_TABLE_PHOTO
    else:
        frame_path, photo_path = Path(folder) / Path(REAL_TABLE).name, Path(folder) / Path(REAL_TABLE_PHOTO).name
    if not frame_path.exists():
        return []
    frame = cv2.imread(str(frame_path), cv2.IMREAD_COLOR)
    if frame is None:
        return []
    out = [("real fanned deal 1280x720 (52 cards)", frame, REAL_TABLE_CARDS)]
    photo = cv2.imread(str(photo_path), cv2.IMREAD_COLOR)
    if photo is not None:
        bg = tuple(int(v) for v in frame[2, 2])
        out.append(("real fanned deal x2 1280x720 (104 cards)", tiled_real_frame(photo, bg), 2 * REAL_TABLE_CARDS))
    return out


def synthetic_frames(deck: str = "kennard-2color") -> tuple[list, str | None]:
    """(frames, note): 52-card meld frames at 1280×720, 1920×1080 and 12 MP composed from ``deck``
    (or the first deck that loads here); note says why there are none."""
    try:
        from tableref.datasets import decks
        from tableref.training import evaluation
    except ImportError as exc:
        return [], f"the deck artwork (datasets package) is unavailable: {exc}"
    # only decks already here (a missing one would be fetched and rendered, which needs rsvg-convert)
    here = decks.available_decks()
    names = ([deck] if deck in here else []) + [d for d in here if d != deck]
    faces, err = None, None
    for name in names:
        try:
            faces = decks.load_deck_bgra(name)
            deck = name
            break
        except Exception as exc:  # noqa: BLE001 - rendering needs rsvg-convert and the npm package
            err = f"cannot load deck {name}: {exc}"
    if faces is None:
        return [], err or "no card deck available"
    cards = list(faces)[:52]
    out = []
    for name, (w, h, ch) in {"1280x720": (1280, 720, 150), "1920x1080": (1920, 1080, 225),
                             "4000x3000 (12 MP)": (4000, 3000, 560)}.items():
        img, truths = evaluation.compose_meld_scene(faces, cards, w, h, ch, seed=1)
        out.append((f"synthetic {name} ({deck})", img, truths))
    return out, None


def default_frames() -> tuple[list, list[str]]:
    """All benchmark frames here, and notes on the ones that could not be made."""
    notes = []
    synth, note = synthetic_frames()
    if note:
        notes.append(f"synthetic frames skipped: {note}")
    real = real_frames()
    if not real:
        notes.append("real-table frames skipped: ../shared/data/real-table/ is not beside the repository")
    return synth + real, notes


STAGES = ("ms_detect", "ms_classify", "ms_assembly", "ms_outlines", "ms_detector_net", "ms_classifier_net", "ms_views",
          "cpu_ms_views", "cpu_ms_per_card")


def benchmark(rec, frames, repeat: int = 15, warmup: int = 3) -> dict:
    """Median/p90 wall time of ``rec.recognize`` per frame, per-stage medians, cards found.

    ``frames``: (name, image, truths) where truths is a list of
    :class:`~tableref.training.evaluation.Truth`, a number of cards, or None.
    """
    res = {}
    for name, img, truths in frames:
        for _ in range(warmup):
            rec.recognize(img)
        rec.settle()
        times, cpu, stages = [], [], {k: [] for k in STAGES + ("ms_non_network", "cpu_ms_non_network")}
        cards = []
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            cards = rec.recognize(img)
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            st = rec.last_stats
            for k in STAGES:
                stages[k].append(getattr(st, k))
            stages["ms_non_network"].append(times[-1] - st.ms_detector_net - st.ms_classifier_net)
            stages["cpu_ms_non_network"].append(st.cpu_ms_non_network)
        times.sort()
        entry = {"width": img.shape[1], "height": img.shape[0], "runs": repeat,
                 "ms_median": statistics.median(times), "ms_p90": float(np.percentile(times, 90)),
                 "cpu_ms_median": statistics.median(cpu), "ms_min": times[0], "cards_reported": len(cards),
                 "passes": list(rec.last_stats.passes), "detector_runs": rec.last_stats.detector_runs,
                 "runs_side_by_side": rec.last_stats.runs_side_by_side, "indices": rec.last_stats.indices, "runtimes": getattr(rec, "runtimes", "onnxruntime"),
                 "motion_blur_px": rec.last_stats.motion_blur, "declared_blurred": rec.last_stats.blurred}
        entry.update({k: statistics.median(v) for k, v in stages.items()})
        if isinstance(truths, int):
            entry["cards_in_frame"] = truths
        elif truths is not None:
            from tableref.training.evaluation import match

            m = match([(c.card, c.centre) for c in cards], truths)
            entry["cards_in_frame"] = len(truths)
            entry["cards_found"] = sum(m["found"])
            entry["cards_correct"] = sum(m["correct"])
        res[name] = entry
    return res


def loadavg() -> str:
    """The 1, 5 and 15 minute load averages (a shared machine's timings vary with them)."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def cpu_description(cpuinfo: str | None = None) -> str:
    """The processor in a few words: name, family/model and its widest vector instructions.

    Two "AMD EPYC" machines can differ by 1.5x on the networks (AVX-512 or not), so every
    timing printed says which one it was measured on.
    """
    import os
    import platform
    try:
        text = cpuinfo if cpuinfo is not None else Path("/proc/cpuinfo").read_text()
    except OSError:
        return f"{platform.machine() or 'unknown CPU'}, {os.cpu_count()} cores"
    info = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        info.setdefault(key.strip(), value.strip())
    flags = set(info.get("flags", "").split())
    vector = ("AVX-512" + (" BF16" if "avx512_bf16" in flags else "") if "avx512f" in flags
              else "AVX2, no AVX-512" if "avx2" in flags else "no AVX2" if flags else "")
    family = f"family {info['cpu family']} model {info['model']}" if "cpu family" in info and "model" in info else ""
    detail = ", ".join(x for x in (family, vector) if x)
    cores = text.count("processor\t") or text.count("processor :") or os.cpu_count()
    name = info.get("model name", platform.machine() or "unknown CPU")
    return f"{name}{f' ({detail})' if detail else ''}, {cores} core{'s' if cores != 1 else ''}"


def format_bench(res: dict, threads: int) -> str:
    runtimes = sorted({e.get("runtimes", "onnxruntime") for e in res.values()})
    lines = [f"card recognition speed on {cpu_description()}, model loaded, {threads} CPU threads, "
             f"{'; '.join(runtimes)} "
             f"(load average {loadavg()}); wall-time medians per frame in ms: total (p90), then detector = "
             "finding the indices, classifier = reading them, assembly, outlines; nets = the two networks alone, "
             "other = everything else (and its CPU time, in this thread and the helper threads that do part of it beside "
             "it, which other jobs on the machine do not inflate), of which views = "
             "the pictures (the frame's glare taken off, the detector's inputs cut, resized, converted: grows with the pixels read) and per card = "
             "decoding, NMS, crops, assembly, outlines (CPU)"]
    for name, e in res.items():
        side = f", {e['runs_side_by_side']} side by side" if e.get("runs_side_by_side") else ""
        cards = f"{e['cards_reported']} cards"
        if "cards_found" in e:
            cards = f"cards {e['cards_found']}/{e['cards_in_frame']} found, {e['cards_correct']}/{e['cards_reported']} correct"
        elif "cards_in_frame" in e:
            cards = f"{e['cards_reported']} cards reported of {e['cards_in_frame']}"
        if e.get("declared_blurred"):
            cards += (f" (the frame declared blurred, not read: smeared {e['motion_blur_px']:.1f} px along one "
                      "direction, a shaken camera)")
        lines.append(f"{name}:\n    total {e['ms_median']:5.0f} ({e['ms_p90']:.0f})  detector {e['ms_detect']:4.0f}  "
                     f"classifier {e['ms_classify']:4.0f}  assembly {e['ms_assembly']:4.1f}  outlines {e['ms_outlines']:4.1f}"
                     f"  | nets {e['ms_detector_net']:.0f}+{e['ms_classifier_net']:.0f}  other {e['ms_non_network']:4.1f}"
                     f" (CPU {e['cpu_ms_non_network']:4.1f}: views {e['cpu_ms_views']:4.1f}, per card {e['cpu_ms_per_card']:4.1f})"
                     f"  | CPU {e['cpu_ms_median']:.0f}  {e['detector_runs']} detector run(s){side}: {' '.join(e['passes'])}; "
                     f"{e['indices']} indices; {cards}")
    return "\n".join(lines)
