"""Train the corner-index detector (ultralytics YOLO11n, one class ``index``) and export it to ONNX.

Training only: torch and ultralytics are imported inside the functions (the optional
``train`` extra); nothing at run time imports this module.

The model is built from ``yolo11t-index.yaml`` (YOLO11 at a quarter of yolo11n's width;
no pretrained download), optionally initialised from an earlier run (``--init``). Horizontal flips
are off (``fliplr=0``: mirrored glyphs never occur on real cards), rotation comes from
the data itself. Checkpoints go to ``runs/detector/weights/{last,best}.pt``;
``--resume`` continues from ``last.pt``. The ONNX export (ultralytics format: one
output (1, 4+nc, N) with cx, cy, w, h in input pixels, no NMS) is written to
``models/index_detector.onnx``.
"""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from tableref.models import MODELS_DIR

# The repository root (an editable install: models/ lies at its top; runs/ goes beside it).
ROOT = MODELS_DIR.parent
MODELS = MODELS_DIR
RUNS = ROOT / "runs"
DETECTOR_ONNX = "index_detector.onnx"
TRAIN_IMGSZ = 320
EXPORT_IMGSZ = 640
# A narrow YOLO11 (width 0.125 instead of yolo11n's 0.25: 0.8 M parameters, 2.4 GFLOPs at 640 instead of 6.5):
# on 2 shared CPU cores it trains ~2.5x faster than yolo11n and runs faster at inference.
MODEL_YAML = Path(__file__).resolve().parent / "yolo11t-index.yaml"


def prepare_offline(threads: int = 2) -> None:
    """Offline ultralytics: no hub, a local font as Arial.ttf, ``threads`` torch threads."""
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # no spinning threads on a shared, busy machine
    os.environ.setdefault("YOLO_VERBOSE", "True")
    from ultralytics.utils import USER_CONFIG_DIR

    Path(USER_CONFIG_DIR).mkdir(parents=True, exist_ok=True)
    candidates = ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                  "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"]
    candidates += [str(p) for p in Path("/usr/share/fonts").rglob("*.ttf")] if Path("/usr/share/fonts").is_dir() else []
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        dst = Path(USER_CONFIG_DIR) / name
        if not dst.exists():
            for c in candidates:
                if os.path.exists(c):
                    shutil.copy(c, dst)
                    break
    import torch
    import ultralytics.utils.torch_utils as tu

    tu.NUM_THREADS = threads  # select_device() resets torch threads to this (default cpu_count - 1)
    torch.set_num_threads(threads)


def train_detector(data: str, epochs: int = 30, imgsz: int = TRAIN_IMGSZ, batch: int = 16, resume: bool = False,
                   name: str = "detector", threads: int = 2, export_imgsz: int = EXPORT_IMGSZ,
                   workers: int = 1, fraction: float = 1.0, model_cfg: str | None = None,
                   init: str | None = None, hours: float | None = None, lr: float | None = None) -> dict:
    """Train (or resume) the detector, then export ONNX to models/. Returns a summary dict.

    ``model_cfg``: model yaml (default the narrow ``yolo11t-index.yaml``; ``yolo11n.yaml`` works too);
    ``init``: start from the weights of an earlier run instead of random weights (fine-tuning on new data);
    ``hours``: a wall-time budget (ultralytics ``time``: the epoch count and LR schedule fit into it);
    ``lr``: AdamW with this initial learning rate instead of ultralytics' automatic choice (0.002 for
    one class): a lower one fine-tunes an earlier run without first undoing it.
    """
    prepare_offline(threads)
    import torch
    from ultralytics import YOLO

    run_dir = RUNS / name
    last = run_dir / "weights" / "last.pt"
    t0 = time.time()

    def _threads(_trainer):
        torch.set_num_threads(threads)

    if resume:
        if not last.exists():
            raise FileNotFoundError(f"nothing to resume: {last} does not exist")
        model = YOLO(str(last))
        model.add_callback("on_train_start", _threads)
        model.train(resume=True)
    else:
        if not Path(data).exists():
            raise FileNotFoundError(f"dataset file {data} not found (run `tableref dataset build` first)")
        model = YOLO(str(model_cfg or MODEL_YAML))
        if init and not Path(init).exists():
            raise FileNotFoundError(f"initial weights {init} not found")
        model.add_callback("on_train_start", _threads)
        model.train(
            data=str(data), epochs=epochs, imgsz=imgsz, batch=batch, device="cpu", workers=workers,
            project=str(RUNS), name=name, exist_ok=True,
            # the trainer builds the network anew from the yaml: initial weights must be passed as
            # ``pretrained`` (a Model.load() before train() is discarded when pretrained=False)
            pretrained=str(init) if init else False, plots=False, amp=False,
            fliplr=0.0, flipud=0.0, degrees=0.0, scale=0.3, translate=0.1, mosaic=1.0, close_mosaic=2,
            hsv_h=0.015, hsv_s=0.5, hsv_v=0.4, patience=0, seed=0, deterministic=False, fraction=fraction,
            cos_lr=True, warmup_epochs=1.0 if not init else 0.0, verbose=True,
            **({"time": hours} if hours else {}),
            **({"optimizer": "AdamW", "lr0": lr} if lr else {}),
        )
    seconds = time.time() - t0
    best = run_dir / "weights" / "best.pt"
    weights = best if best.exists() else last
    onnx_path = export_detector(weights, export_imgsz)
    return {"weights": str(weights), "onnx": str(onnx_path), "train_seconds": round(seconds, 1)}


def export_detector(weights: Path | str, imgsz: int = EXPORT_IMGSZ) -> Path:
    """Export a trained detector checkpoint to models/index_detector.onnx and record it in recognition.json."""
    prepare_offline()
    from ultralytics import YOLO

    model = YOLO(str(weights))
    # dynamic height and width: a 16:9 frame is read in a 16:9 input, an enlarged frame in one piece
    out = model.export(format="onnx", imgsz=imgsz, dynamic=True, simplify=False, nms=False, opset=17,
                       half=False, batch=1)
    MODELS.mkdir(exist_ok=True)
    dst = MODELS / DETECTOR_ONNX
    shutil.copy(out, dst)
    from tableref.training.meta import load_meta, update_meta

    # the reading band chosen for the detector (index_px, its note) stays: it is set on table frames
    kept = {k: v for k, v in (load_meta().get("detector") or {}).items() if k in ("index_px", "note")}
    update_meta(detector={"file": DETECTOR_ONNX, "imgsz": imgsz, "names": ["index"],
                          "trained_imgsz": int(getattr(model.model, "args", {}).get("imgsz", TRAIN_IMGSZ))
                          if isinstance(getattr(model.model, "args", None), dict) else TRAIN_IMGSZ,
                          "index_px_trained": [6, 80],
                          "note": "best for indices about 8-80 px high in the model input", **kept})
    return dst
