"""``tableref dataset build`` and ``tableref train detector|classifier``.

Training needs the optional ``train`` extra (torch, ultralytics); it is imported only
when a training command runs, so the rest of tableref works without it.

    tableref dataset build [--out DIR --n-train N --seed S ...]
    tableref dataset camera-crops --out DIR [--scenes N]   (crops cut around the detector's boxes on degraded tables)
    tableref train detector   [--data DIR/detector/data.yaml] [--epochs E] [--resume]
    tableref train classifier [--data DIR/classifier] [--epochs E] [--resume]
    tableref train export detector|classifier   (re-export ONNX from the saved checkpoint)
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from tableref.models import MODELS_DIR

ROOT = MODELS_DIR.parent  # the repository root in an editable install (training is a developer task)
DEFAULT_BUILD = ROOT / "datasets" / "build"


def register(subparsers) -> None:
    p = subparsers.add_parser("dataset", help="build the synthetic training data",
                              description="Build the synthetic training data (the recipes: models/MODEL_CARD.md).")
    sub = p.add_subparsers(dest="dataset_command", metavar="ACTION")
    b = sub.add_parser("build", help="render card scenes into a YOLO dataset and a classifier crop set",
                       description="Render card scenes into a YOLO dataset and a classifier crop set.")
    from tableref.datasets.build import add_arguments

    add_arguments(b)
    b.set_defaults(func=_dataset_build)
    cc = sub.add_parser("camera-crops", help="classifier crops as a camera gives them: rendered tables degraded, "
                                             "indices found by the committed detector",
                        description="Classifier crops cut around the committed detector's boxes on rendered "
                                    "tables put through a camera's conditions (datasets/camera_crops.py).")
    from tableref.datasets.camera_crops import add_arguments as camera_arguments

    camera_arguments(cc)
    cc.set_defaults(func=_dataset_camera_crops)
    p.set_defaults(func=lambda a: (p.print_help(), 0)[1])

    t = subparsers.add_parser("train", help="train the card-recognition models (needs the 'train' extra)",
                              description="Train the card-recognition models (needs pip install -e '.[train]').")
    tsub = t.add_subparsers(dest="train_command", metavar="MODEL")
    d = tsub.add_parser("detector", help="YOLO11n corner-index detector -> models/index_detector.onnx")
    d.add_argument("--data", default=str(DEFAULT_BUILD / "detector" / "data.yaml"),
                   help="data.yaml of the detector set (default datasets/build/detector/data.yaml)")
    d.add_argument("--epochs", type=int, default=30, help="training epochs (default 30)")
    d.add_argument("--imgsz", type=int, default=320, help="training size (default 320)")
    d.add_argument("--model", help="model yaml (default tableref/yolo11t-index.yaml)")
    d.add_argument("--init", help="start from these weights (e.g. runs/detector/weights/best.pt)")
    d.add_argument("--hours", type=float, help="wall-time budget; overrides --epochs (ultralytics 'time')")
    d.add_argument("--lr", type=float, help="AdamW initial learning rate (default: ultralytics' choice, 0.002); "
                                            "lower to fine-tune an earlier run (--init)")
    d.add_argument("--export-imgsz", type=int, default=640, help="ONNX input size (default 640)")
    d.add_argument("--batch", type=int, default=16, help="batch size (default 16)")
    d.add_argument("--threads", type=int, default=2, help="CPU threads (default 2)")
    d.add_argument("--name", default="detector", help="run folder under runs/ (default detector)")
    d.add_argument("--resume", action="store_true", help="continue from runs/NAME/weights/last.pt")
    d.set_defaults(func=_train_detector)
    c = tsub.add_parser("classifier", help="index-crop classifier (52 cards + none) -> models/index_classifier.onnx")
    c.add_argument("--data", default=str(DEFAULT_BUILD / "classifier"),
                   help="classifier crop folder (default datasets/build/classifier)")
    c.add_argument("--epochs", type=int, default=20, help="training epochs (default 20)")
    c.add_argument("--batch", type=int, default=128, help="batch size (default 128)")
    c.add_argument("--lr", type=float, default=3e-3, help="learning rate (default 0.003)")
    c.add_argument("--threads", type=int, default=2, help="CPU threads (default 2)")
    c.add_argument("--name", default="classifier", help="run folder under runs/ (default classifier)")
    c.add_argument("--resume", action="store_true", help="continue from runs/NAME/last.pt")
    c.add_argument("--init", help="fine-tune from this checkpoint (fresh LR schedule), e.g. models/checkpoints/classifier_cls_s2_best.pt")
    c.add_argument("--head", choices=["pool", "spatial"], default=None,
                   help="pool: average the feature map (every position alike); spatial: weigh each position, so "
                        "a neighbour's glyphs at the crop's edge count less (default: the head of --init, else pool)")
    trunk = c.add_mutually_exclusive_group()
    trunk.add_argument("--slim", action="store_true",
                       help="the slimmer trunk (about half the multiply-adds); with --init a full checkpoint is "
                            "pruned to it")
    trunk.add_argument("--widths", type=_trunk_widths, default=None, metavar="W1,...,W6",
                       help="the trunk's six widths, e.g. 12,16,24,32,48,64 (about a quarter of the full net's "
                            "multiply-adds); with --init a wider checkpoint is pruned to them")
    c.add_argument("--teacher", help="a checkpoint whose readings the net also learns (knowledge distillation), "
                                     "e.g. the full classifier teaching a --slim one")
    c.add_argument("--distill", type=float, default=0.8,
                   help="weight of the teacher's readings in the loss, 0..1 (default 0.8; the labels get the rest)")
    c.add_argument("--camera-effects", type=float, default=0.0, metavar="SHARE",
                   help="give this share of the crops (0..1) a real camera's effects: defocus, motion blur, glare, "
                        "dim and warm light, a coarser sensor, noise, JPEG (default 0; see --teacher-reads)")
    c.add_argument("--teacher-reads", choices=["sharp", "camera"], default="sharp",
                   help="with --camera-effects and --teacher: the teacher reads the crop before the camera's effects "
                        "(sharp, the default) or as the net reads it (camera)")
    c.add_argument("--no-export", action="store_true",
                   help="keep the checkpoints under runs/NAME only; do not write models/ at the end")
    c.set_defaults(func=_train_classifier)
    e = tsub.add_parser("export", help="re-export ONNX from a saved checkpoint")
    e.add_argument("model", choices=["detector", "classifier"], help="which model to export")
    e.add_argument("--weights", help="checkpoint (default runs/detector/weights/best.pt or runs/classifier/best.pt)")
    e.add_argument("--imgsz", type=int, default=640, help="detector ONNX input size")
    e.add_argument("--into", metavar="DIR",
                   help="classifier: write it into a copy of the models folder at DIR (made if missing) "
                        "instead of models/: a candidate to read with --models DIR")
    e.add_argument("--with", dest="also", action="append", default=[], metavar="CHECKPOINT",
                   help="classifier: another checkpoint of the same widths read beside --weights; the "
                        "model gives the mean of their probabilities (repeat for more)")
    e.set_defaults(func=_export)
    v = tsub.add_parser("average", help="average the weights of two classifier checkpoints of one chain",
                        description="Write a classifier checkpoint whose weights are (1 - SHARE) of FIRST's and "
                                    "SHARE of SECOND's (a net fine-tuned from another, averaged with its start).")
    v.add_argument("first", help="a classifier checkpoint (e.g. the one SECOND was fine-tuned from)")
    v.add_argument("second", help="a classifier checkpoint of the same widths and head")
    v.add_argument("--share", type=float, default=0.5, help="SECOND's share of the weights, 0..1 (default 0.5)")
    v.add_argument("--out", required=True, help="the checkpoint to write (export it with `train export classifier --weights`)")
    v.set_defaults(func=_average)
    t.set_defaults(func=lambda a: (t.print_help(), 0)[1])


def _need_train_extra() -> bool:
    # before torch loads its OpenMP runtime: threads that wait sleep instead of spinning (spinning
    # threads on a busy 2-core machine made each training step many times slower)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import torch  # noqa: F401
    except ImportError:
        print("error: training needs torch and ultralytics: pip install 'tableref[train]'", file=sys.stderr)
        return False
    return True


def _dataset_build(a) -> int:
    from tableref.datasets.build import run_from_args

    return run_from_args(a)


def _dataset_camera_crops(a) -> int:
    from tableref.datasets.camera_crops import run_from_args

    return run_from_args(a)


def _run_training(a, train) -> int:
    """Common checks and error reporting of both training commands; ``train()`` returns the summary."""
    if a.epochs < 1:
        print("error: --epochs must be >= 1", file=sys.stderr)
        return 2
    if not _need_train_extra():
        return 1
    try:
        r = train()
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(json.dumps({k: v for k, v in r.items() if k != "history"}))
    return 0


def _train_detector(a) -> int:
    def train():
        from tableref.training.detector import train_detector

        return train_detector(a.data, epochs=a.epochs, imgsz=a.imgsz, batch=a.batch, resume=a.resume, name=a.name,
                              threads=a.threads, export_imgsz=a.export_imgsz, model_cfg=a.model, init=a.init,
                              hours=a.hours, lr=a.lr)
    return _run_training(a, train)


def _trunk_widths(text: str) -> tuple[int, ...]:
    """``--widths``: six positive channel counts, comma-separated."""
    try:
        widths = tuple(int(v) for v in text.split(","))
    except ValueError:
        widths = ()
    if len(widths) != 6 or min(widths) < 1:
        raise argparse.ArgumentTypeError(f"six positive whole numbers separated by commas, not {text!r}")
    return widths


def _train_classifier(a) -> int:
    def train():
        from tableref.training.classifier import SLIM_WIDTHS, train_classifier

        return train_classifier(a.data, epochs=a.epochs, batch=a.batch, lr=a.lr, resume=a.resume, name=a.name,
                                threads=a.threads, init=a.init, head=a.head,
                                widths=a.widths or (SLIM_WIDTHS if a.slim else None), teacher=a.teacher,
                                distill=a.distill, camera=a.camera_effects, teacher_reads=a.teacher_reads,
                                export=not a.no_export)
    return _run_training(a, train)


def _average(a) -> int:
    if not _need_train_extra():
        return 1
    from tableref.training.classifier import average_checkpoints

    for w in (a.first, a.second):
        if not Path(w).exists():
            print(f"error: checkpoint {w} not found", file=sys.stderr)
            return 1
    try:
        print(average_checkpoints(a.first, a.second, a.share, a.out))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _export(a) -> int:
    if not _need_train_extra():
        return 1
    if a.model == "detector":
        from tableref.training.detector import RUNS, export_detector

        w = Path(a.weights or RUNS / "detector" / "weights" / "best.pt")
        if not w.exists():
            print(f"error: checkpoint {w} not found", file=sys.stderr)
            return 1
        print(export_detector(w, a.imgsz))
        return 0
    from tableref.training.classifier import RUNS, export_classifier, load_classifier

    w = Path(a.weights or RUNS / "classifier" / "best.pt")
    for c in (w, *map(Path, a.also)):
        if not c.exists():
            print(f"error: checkpoint {c} not found", file=sys.stderr)
            return 1
    net = load_classifier(w)
    also = [load_classifier(c).eval() for c in a.also]
    try:
        if not a.into:
            print(export_classifier(net.eval(), also=also))
            return 0
        return _export_into(Path(a.into), net, also)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _export_into(into: Path, net, also) -> int:
    """The classifier written into a copy of the models folder at ``into`` (a candidate)."""
    import shutil

    from tableref.training.classifier import MODELS, export_classifier, onnx_name

    if into.resolve() == MODELS.resolve():
        print("error: --into names the models folder itself; leave --into out to export there", file=sys.stderr)
        return 2
    if not (into / "recognition.json").exists():
        shutil.copytree(MODELS, into, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("checkpoints", "__pycache__", "*.pt"))
    print(export_classifier(net.eval(), into / onnx_name(net), record=False, also=also))
    return 0
