"""The model files' spec: ``models/recognition.json`` read into a typed value, with clear errors.

The file names the two networks (a YOLO corner-index detector and a classifier of 64x64 index
crops, 52 cards + ``none``) and what the recogniser must know of them::

    {"detector": {"file": "...onnx", "imgsz": 640, "stride": 32,
                  "index_px": {"min": .., "target": .., "max": ..}, "index_px_trained": [lo, hi]},
     "classifier": {"file": "...onnx", "fast_file": "...onnx", "names": [...], "imgsz": 64, "margin": ..},
     "index_geometry": {...}}
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tableref.vision.crops import CROP_MARGIN, CROP_SIZE
from tableref.vision.index_layout import IndexGeometry
from tableref.vision.runtime import ModelError, int8_variant

SPEC_FILE = "recognition.json"


@dataclass(frozen=True)
class ModelSpec:
    """What ``recognition.json`` says of the committed networks."""

    path: Path                          # the spec file
    detector_file: str
    classifier_file: str
    fast_classifier_file: str | None    # a slimmer classifier for a camera's frames, if any
    names: tuple[str, ...]              # the classifier's classes, ``none`` among them
    imgsz: int                          # the detector's input side (a model with a fixed input says its own)
    stride: int                         # a dynamic-input detector's input is a multiple of this
    crop_size: int                      # the classifier's crops (px)
    crop_margin: float                  # around an index box, as the training crops were cut
    # the band of index sizes (detector input px) read best: min, target, max (None: not given)
    index_px: tuple[float | None, float | None, float | None]
    index_px_trained: tuple[float, float] | None    # the index heights the detector was trained on
    geometry: IndexGeometry             # where the indices lie on a card

    @property
    def none_index(self) -> int:
        return self.names.index("none")

    def model_file(self, name: str, precision: str = "auto") -> Path:
        """The file of the network ``name`` beside the spec: its valid int8 copy where
        ``precision`` is "auto" or "int8" and one exists ("int8" without one is a ModelError)."""
        path = self.path.parent / name
        if not path.exists():
            raise ModelError(f"model file {path} is missing")
        if precision == "fp32":
            return path
        q = int8_variant(path)
        if q is not None:
            return q
        if precision == "int8":
            raise ModelError(f"no valid int8 copy of {path} (run scripts/quantize_recognition.py)")
        return path


def read_spec(models_dir: str | Path) -> ModelSpec:
    """``models_dir/recognition.json`` as a :class:`ModelSpec`; a ModelError saying what is wrong."""
    path = Path(models_dir) / SPEC_FILE
    if not path.exists():
        raise ModelError(f"no recognition models: {path} is missing")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot read {path}: {exc}") from exc
    try:
        det, cls = raw["detector"], raw["classifier"]
        det_file, cls_file = str(det["file"]), str(cls["file"])
        names = tuple(str(n) for n in cls["names"])
        fast = cls.get("fast_file")
    except (KeyError, TypeError, AttributeError) as exc:
        raise ModelError(f"{path} lacks the detector or classifier entry ({exc})") from exc
    if "none" not in names:
        raise ModelError("the classifier's names lack the 'none' class")
    try:
        imgsz = det.get("imgsz", 640)
        if isinstance(imgsz, (list, tuple)):
            imgsz = imgsz[0]
        band = det.get("index_px") or {}
        index_px = tuple(None if band.get(k) is None else float(band[k]) for k in ("min", "target", "max"))
        spec = ModelSpec(path=path, detector_file=det_file, classifier_file=cls_file,
                         fast_classifier_file=None if fast is None else str(fast), names=names,
                         imgsz=int(imgsz), stride=int(det.get("stride", 32)),
                         crop_size=int(cls.get("imgsz", CROP_SIZE)), crop_margin=float(cls.get("margin", CROP_MARGIN)),
                         index_px=index_px, index_px_trained=_trained(det.get("index_px_trained")),
                         geometry=IndexGeometry.from_spec(raw.get("index_geometry")))
    except (TypeError, ValueError, AttributeError, IndexError) as exc:
        raise ModelError(f"{path}: a value of the detector or classifier entry is not a number ({exc})") from exc
    return spec


def _trained(value) -> tuple[float, float] | None:
    """``index_px_trained`` as (lo, hi), or None where it is absent or not two numbers."""
    if isinstance(value, (list, tuple)) and len(value) == 2:
        try:
            return float(value[0]), float(value[1])
        except (TypeError, ValueError):
            return None
    return None
