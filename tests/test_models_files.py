"""The committed recognition models match models/recognition.json (the contract with vision)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnxruntime as ort

MODELS = Path(__file__).resolve().parent.parent / "models"


def _meta():
    return json.loads((MODELS / "recognition.json").read_text())


def test_files_exist_and_fit_the_size_budget():
    m = _meta()
    files = [MODELS / m["detector"]["file"], MODELS / m["classifier"]["file"]]
    assert all(f.exists() for f in files)
    assert sum(f.stat().st_size for f in files) <= 40 * 1024 * 1024


def test_detector_shapes_match_metadata():
    m = _meta()["detector"]
    s = ort.InferenceSession(str(MODELS / m["file"]), providers=["CPUExecutionProvider"])
    inp = s.get_inputs()[0]
    # fixed (1, 3, imgsz, imgsz), or dynamic height and width (a 16:9 frame read in a 16:9 input)
    fixed = [1, 3, m["imgsz"], m["imgsz"]]
    assert len(inp.shape) == 4 and inp.shape[1] == 3
    assert all(d == f or isinstance(d, str) for d, f in zip(inp.shape, fixed))
    assert m["names"] == ["index"]
    out = s.run(None, {inp.name: np.zeros((1, 3, m["imgsz"], m["imgsz"]), np.float32)})[0]
    assert out.shape[0] == 1 and out.shape[1] == 4 + len(m["names"])
    if isinstance(inp.shape[2], str):
        out = s.run(None, {inp.name: np.zeros((1, 3, 384, 640), np.float32)})[0]
        assert out.shape[1] == 4 + len(m["names"]) and out.shape[2] == (384 * 640) // 64 * (1 + 1 / 4 + 1 / 16)


def test_classifier_returns_probabilities_for_any_batch():
    m = _meta()["classifier"]
    assert m["imgsz"] == 64 and m["margin"] == 0.15
    names = m["names"]
    assert len(names) == 53 and names[-1] == "none" and len(set(names)) == 53
    s = ort.InferenceSession(str(MODELS / m["file"]), providers=["CPUExecutionProvider"])
    for n in (1, 7):
        p = s.run(None, {s.get_inputs()[0].name: np.random.default_rng(n).random((n, 3, 64, 64), np.float32)})[0]
        assert p.shape == (n, 53)
        assert np.allclose(p.sum(1), 1.0, atol=1e-4) and (p >= 0).all()


def test_index_geometry_is_relative_and_ordered():
    g = _meta()["index_geometry"]
    tl, br = g["top_left"], g["bottom_right"]
    for b in (tl, br):
        assert all(0.0 <= v <= 1.0 for v in b) and b[0] < b[2] and b[1] < b[3]
    assert tl[2] < 0.5 and tl[3] < 0.5 and br[0] > 0.5 and br[1] > 0.5
    assert 0.6 < g["aspect"] < 0.8
