"""`tableref train export classifier --into DIR`: a candidate written beside the committed models, never over them."""
from __future__ import annotations

import hashlib

import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

from tableref.cli import main  # noqa: E402
from tableref.training.classifier import MODELS  # noqa: E402

CHECKPOINT = MODELS / "checkpoints" / "classifier_cls_c1_best.pt"


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _assert_same_network(a, b) -> None:
    """The two ONNX files hold the same graph and the same weights, to float32 rounding."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    ga, gb = onnx.load(str(a)).graph, onnx.load(str(b)).graph
    assert [(n.op_type, list(n.input), list(n.output)) for n in ga.node] == \
        [(n.op_type, list(n.input), list(n.output)) for n in gb.node]
    wa = {i.name: numpy_helper.to_array(i) for i in ga.initializer}
    wb = {i.name: numpy_helper.to_array(i) for i in gb.initializer}
    assert wa.keys() == wb.keys()
    for name, w in wa.items():
        assert w.shape == wb[name].shape and np.allclose(w, wb[name], rtol=1e-5, atol=1e-6), name


@pytest.mark.skipif(not CHECKPOINT.exists(), reason="the shipped classifier's checkpoint is not here")
def test_export_into_a_copy_leaves_the_committed_models_alone(tmp_path, capsys):
    before = {p.name: _sha(p) for p in MODELS.glob("*.onnx")}
    out = tmp_path / "candidate"
    assert main(["train", "export", "classifier", "--weights", str(CHECKPOINT), "--into", str(out)]) == 0
    assert (out / "recognition.json").exists() and (out / "index_detector.onnx").exists()
    assert not (out / "checkpoints").exists()
    # the shipped classifier was exported from this checkpoint: the copy is the same network (folding the
    # normalisation into the convolutions rounds the last bit differently from one machine to another)
    _assert_same_network(out / "index_classifier.onnx", MODELS / "index_classifier.onnx")
    assert {p.name: _sha(p) for p in MODELS.glob("*.onnx")} == before


def test_export_into_the_models_folder_itself_is_refused(capsys):
    if not CHECKPOINT.exists():
        pytest.skip("the shipped classifier's checkpoint is not here")
    assert main(["train", "export", "classifier", "--weights", str(CHECKPOINT), "--into", str(MODELS)]) == 2
    assert "--into names the models folder" in capsys.readouterr().err
