"""``tableref detect``, ``tableref evaluate`` and ``tableref bench-detect``: card recognition.

``tableref detect [--json] [--annotate OUT.jpg] IMAGE...``
    Recognises the face-up cards in each image, read as a photo (small indices are
    read enlarged further than in a camera's frames: ``photo_preset``).
    With ``--json`` prints one JSON object per image per line::

        {"image": path, "width": w, "height": h, "ms": processing_ms,
         "cards": [{"card": "10H", "confidence": 0.97, "box": [x1, y1, x2, y2],
                    "quad": [[x, y] x 4] or null}]}

    one entry per physical card (box/quad cover the whole card where both corner
    indices are seen, else the visible index). An image that cannot be read gives
    ``{"image": path, "error": "..."}`` and the other images are still processed.
    Without ``--json`` a readable table is printed. ``--annotate OUT.jpg`` writes
    the image with boxes and labels drawn (with several images, ``OUT_<image>.jpg``).

    Exit status: 0 when every image was processed (even with no cards found), 1
    when at least one image could not be read or written, 2 when the recognition
    models cannot be loaded.

``tableref evaluate`` runs the evaluation (``tableref.training.evaluation``),
``tableref bench-detect`` the speed benchmark (``tableref.bench``).
"""
from __future__ import annotations

from tableref.vision.drawing import draw_cards

import json
import os
import sys
import time
from pathlib import Path

from tableref.cli.options import whole

EXIT_IMAGE_FAILED = 1
EXIT_NO_MODEL = 2


def register(sub) -> None:
    p = sub.add_parser("detect", help="recognise the cards in images",
                       description="Recognise the face-up cards in images (corner-index detector + classifier). "
                                   "Each image is read as a photo: small indices are read enlarged, which takes "
                                   "longer than a camera's frame in the live session.")
    p.add_argument("images", nargs="+", metavar="IMAGE", help="image files (JPEG, PNG, ...)")
    p.add_argument("--json", action="store_true", help="one JSON object per image per line")
    p.add_argument("--annotate", metavar="OUT.jpg",
                   help="write the image with boxes and labels drawn (several images: OUT_<image>.jpg)")
    p.add_argument("--models", metavar="DIR", help="directory with recognition.json (default: the committed models)")
    p.add_argument("--min-confidence", type=float, default=None, metavar="P",
                   help="report only cards at least this confident (default: the tuned threshold)")
    p.add_argument("--threads", type=whole(1), default=2, help="CPU threads for inference (default 2)")
    _precision_arg(p)
    p.set_defaults(func=run_detect)

    e = sub.add_parser("evaluate", help="precision/recall of card recognition on labelled images",
                       description="Per-card precision/recall, confusion pairs and speed on the synthetic "
                                   "validation set and/or a rank-labelled set of real photos.")
    e.add_argument("--real", metavar="DIR", action="append", default=[],
                   help="real photos with labels.csv (whole-card boxes, rank words); repeatable")
    e.add_argument("--synthetic", metavar="DIR", action="append", default=[],
                   help="labelled scenes: images with a <stem>.json card list beside them or in cards/ "
                        "(see tableref.training.evaluation.scene_dir_pairs); repeatable")
    e.add_argument("--render", type=whole(0), default=0, metavar="N",
                   help="also render N synthetic scenes (1280x720) with the training-data renderer, "
                        "on seeds the training set does not use, and score them at card level")
    e.add_argument("--limit", type=whole(0), default=0, help="evaluate at most N images per set")
    e.add_argument("--models", metavar="DIR", help="directory with recognition.json (default: the committed models)")
    e.add_argument("--min-confidence", type=float, default=None, metavar="P",
                   help="drop cards read with less confidence (default: the model's threshold)")
    e.add_argument("--json", metavar="OUT.json", help="also write the numbers as JSON")
    e.add_argument("--errors", metavar="DIR", help="write annotated images of every miss and false card here")
    _precision_arg(e)
    e.set_defaults(func=run_evaluate)

    b = sub.add_parser("bench-detect", help="speed of card recognition on 2 CPU threads",
                       description="Median/percentile recognition time per stage, model loaded, for synthetic "
                                   "52-card frames at 1280x720, 1920x1080 and 12 MP and the real fanned deal (52 "
                                   "cards) and its 104-card tiling when ../shared/data/real-table/ is present "
                                   "(or given images).")
    b.add_argument("images", nargs="*", metavar="IMAGE", help="time these images instead of the generated frames")
    b.add_argument("--repeat", type=whole(1), default=15, help="timed runs per frame (default 15)")
    b.add_argument("--threads", type=whole(1), default=2, help="CPU threads for inference (default 2)")
    b.add_argument("--models", metavar="DIR", help="directory with recognition.json (default: the committed models)")
    b.add_argument("--json", metavar="OUT.json", help="also write the numbers as JSON")
    _precision_arg(b)
    b.set_defaults(func=run_bench)


def _precision_arg(p) -> None:
    p.add_argument("--precision", choices=("auto", "fp32", "int8"), default="auto",
                   help="model precision: auto (int8 copies where valid, else float; default), fp32, int8")
    p.add_argument("--backend", choices=("auto", "onnxruntime", "openvino"), default="auto",
                   help="inference backend: auto (OpenVINO where installed and checked on these models, "
                        "else ONNX Runtime; default), onnxruntime, openvino")


# --------------------------------------------------------------------------- helpers


def read_image(path: str):
    """BGR uint8 image, or raise ValueError with a message for the user."""
    import cv2
    import numpy as np

    p = Path(path)
    if not p.exists():
        raise ValueError("file not found")
    if p.is_dir():
        raise ValueError("is a directory, not an image")
    try:
        data = np.fromfile(str(p), dtype=np.uint8)
    except OSError as exc:
        raise ValueError(f"cannot read file: {exc.strerror or exc}") from None
    if data.size == 0:
        raise ValueError("empty file")
    img = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if img is None:
        raise ValueError("not an image (or an image format OpenCV cannot decode)")
    if img.size == 0 or img.shape[0] < 2 or img.shape[1] < 2:
        raise ValueError("empty image (no pixels)")
    return img


def annotate_path(out: str, image: str, several: bool) -> str:
    if not several:
        return out
    o = Path(out)
    suffix = o.suffix or ".jpg"
    return str(o.with_name(f"{o.stem}_{Path(image).stem}{suffix}"))


def write_image(path: str, image) -> None:
    import cv2

    ext = Path(path).suffix.lower() or ".jpg"
    ok, buf = cv2.imencode(ext if ext in (".jpg", ".jpeg", ".png", ".bmp", ".webp") else ".jpg", image)
    if not ok:
        raise ValueError(f"cannot encode {path}")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    buf.tofile(path)


def load_recognizer(models: str | None, threads: int = 2, min_confidence: float | None = None,
                    precision: str = "auto", backend: str = "auto", photos: bool = False):
    """A CardRecognizer, or print a clear message and return None.

    ``photos``: the settings for single photos (``photo_preset``: small indices read enlarged
    further); else a camera's (what ``bench-detect`` uses). The environment's choices
    (``MachineSettings``: TABLEREF_BACKEND, TABLEREF_READING) apply; ``backend`` other than
    "auto" overrides TABLEREF_BACKEND.
    """
    try:
        from tableref.vision.recognition import (CardRecognizer, MachineSettings, ModelError, camera_preset,
                                                 photo_preset)
    except ImportError as exc:  # e.g. onnxruntime missing
        print(f"error: card recognition is unavailable: {exc}", file=sys.stderr)
        return None
    try:
        machine = MachineSettings.from_environment(os.environ)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None
    changes = {**machine.config_changes(), "precision": precision}
    if backend != "auto":
        changes["backend"] = backend
    if min_confidence is not None:
        changes["min_card_confidence"] = min_confidence
    cfg = photo_preset(**changes) if photos else camera_preset(quick=machine.quick, **changes)
    try:
        return CardRecognizer(models, threads=threads, config=cfg)
    except ModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None


def machine_settings():
    """How the models run on this machine, as the environment asks (``MachineSettings``: read once,
    here, for ``watch`` and ``serve``); None where card recognition cannot be loaded (the live
    session then says so). A bad value is a ValueError naming the variable."""
    try:
        from tableref.vision.recognition import MachineSettings
    except ImportError:
        return None
    return MachineSettings.from_environment(os.environ)


def _table(path, w, h, ms, cards) -> str:
    lines = [f"{path}  {w}x{h}  {ms:.0f} ms  {len(cards)} card{'s' if len(cards) != 1 else ''}"]
    for c in sorted(cards, key=lambda c: (c.box[1], c.box[0])):
        x1, y1, x2, y2 = c.box
        kind = "card" if c.quad else "index"
        lines.append(f"  {c.card:>3}  {c.confidence:4.2f}  {kind:<5}  "
                     f"({x1:.0f},{y1:.0f})-({x2:.0f},{y2:.0f})")
    return "\n".join(lines)


# --------------------------------------------------------------------------- commands


def run_detect(args) -> int:
    rec = load_recognizer(args.models, args.threads, args.min_confidence, args.precision, args.backend,
                          photos=True)
    if rec is None:
        return EXIT_NO_MODEL
    rec.warmup()
    failed = 0
    several = len(args.images) > 1
    warm_sizes = set()
    for path in args.images:
        try:
            img = read_image(path)
        except ValueError as exc:
            failed += 1
            if args.json:
                print(json.dumps({"image": path, "error": str(exc)}, ensure_ascii=False), flush=True)
            else:
                print(f"{path}  error: {exc}", flush=True)
            continue
        h, w = img.shape[:2]
        if (w, h) not in warm_sizes:
            # the first run at a new input shape is slow (memory planning): warm up at this
            # frame size, so the time printed is what every further photo of this size takes
            rec.warmup((w, h))
            warm_sizes.add((w, h))
        t0 = time.perf_counter()
        cards = rec.recognize(img)
        ms = (time.perf_counter() - t0) * 1000
        note = None
        if args.annotate:
            out = annotate_path(args.annotate, path, several)
            try:
                write_image(out, draw_cards(img, cards))
            except (OSError, ValueError) as exc:
                failed += 1
                note = f"cannot write annotated image {out}: {exc}"
        if args.json:
            obj = {"image": path, "width": w, "height": h, "ms": round(ms, 1),
                   "cards": [c.to_json() for c in cards]}
            if note:
                obj["error"] = note
            print(json.dumps(obj, ensure_ascii=False), flush=True)
        else:
            print(_table(path, w, h, ms, cards), flush=True)
            if note:
                print(f"  error: {note}", flush=True)
    return EXIT_IMAGE_FAILED if failed else 0


def run_evaluate(args) -> int:
    from tableref.training import evaluation

    if not args.real and not args.synthetic and not args.render:
        default_real = Path(__file__).resolve().parents[3] / "shared" / "data" / "real-photos-rank-only"
        if default_real.exists():
            args.real = [str(default_real)]
        else:
            print("error: give --real DIR and/or --synthetic DIR", file=sys.stderr)
            return 2
    rec = load_recognizer(args.models, 2, args.min_confidence, args.precision, args.backend, photos=True)
    if rec is None:
        return EXIT_NO_MODEL
    results = {}
    try:
        for d in args.synthetic:
            pairs = evaluation.scene_dir_pairs(d, limit=args.limit)
            results[f"synthetic:{d}"] = evaluation.evaluate_scenes(rec, pairs, errors_dir=args.errors)
        if args.render:
            items = evaluation.render_synthetic_scenes(args.render)
            results[f"synthetic: {args.render} rendered scenes 1280x720"] = evaluation.evaluate_images(
                rec, items, errors_dir=args.errors, desc="rendered scenes")
        for d in args.real:
            results[f"real:{d}"] = evaluation.evaluate_rank_photos(rec, d, limit=args.limit, errors_dir=args.errors)
    except evaluation.DatasetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for name, res in results.items():
        print(evaluation.format_report(name, res))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=float), encoding="utf-8")
    return 0


def run_bench(args) -> int:
    from tableref import bench

    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    rec = load_recognizer(args.models, args.threads, precision=args.precision, backend=args.backend)
    if rec is None:
        return EXIT_NO_MODEL
    print(f"backend: {rec.backend} ({rec.backend_reason}); detector in {rec.det_runtime_reason}; "
          f"classifier in {rec.cls_precision_reason}; "
          f"models {rec.det_path.name} + {rec.cls_path.name}")
    frames = []
    if args.images:
        for p in args.images:
            try:
                frames.append((p, read_image(p), None))
            except ValueError as exc:
                print(f"{p}  error: {exc}")
    else:
        frames, notes = bench.default_frames()
        for note in notes:
            print(f"note: {note}")
    if not frames:
        print("error: no frames to time; give images to time instead", file=sys.stderr)
        return 1
    res = bench.benchmark(rec, frames, repeat=args.repeat)
    print(bench.format_bench(res, args.threads))
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1, default=float), encoding="utf-8")
    return 0
