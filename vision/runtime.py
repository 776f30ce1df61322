"""The recognition models on disk and their inference runtime.

``models/recognition.json`` names the committed ONNX files; :func:`int8_variant` finds a
quantised copy that still matches its source model; :func:`make_session` loads a model
in the inference backend (ONNX Runtime on the CPU).
"""
from __future__ import annotations

from pathlib import Path


def default_models_dir() -> Path:
    """The directory holding the committed models (the ``tableref.models`` data package)."""
    from tableref.models import MODELS_DIR

    return MODELS_DIR


class ModelError(RuntimeError):
    """The recognition models are missing or do not match the expected contract."""


def file_sha256(path: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def int8_variant(path: Path) -> Path | None:
    """``<stem>.int8.onnx`` beside ``path`` if it is a quantized copy of exactly this model.

    ``scripts/quantize_recognition.py`` writes the source model's SHA-256 into the
    quantized model's metadata; a stale copy (the model was retrained) is ignored.
    """
    q = path.with_name(path.stem + ".int8.onnx")
    if not q.exists() or not path.exists():
        return None
    try:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        meta = ort.InferenceSession(str(q), sess_options=opts, providers=["CPUExecutionProvider"]).get_modelmeta()
        src = meta.custom_metadata_map.get("source_sha256")
    except Exception:  # unreadable quantized file: fall back to the float model
        return None
    return q if src == file_sha256(path) else None


def make_session(path: Path, threads: int):
    """An ONNX Runtime CPU session of ``path`` on ``threads`` intra-op threads."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.log_severity_level = 3
    try:
        return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own exception types
        raise ModelError(f"cannot load model {path}: {exc}") from exc

