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


@pytest.mark.skipif(not CHECKPOINT.exists(), reason="the shipped classifier's checkpoint is not here")
def test_export_into_a_copy_leaves_the_committed_models_alone(tmp_path, capsys):
    before = {p.name: _sha(p) for p in MODELS.glob("*.onnx")}
    out = tmp_path / "candidate"
    assert main(["train", "export", "classifier", "--weights", str(CHECKPOINT), "--into", str(out)]) == 0
    assert (out / "recognition.json").exists() and (out / "index_detector.onnx").exists()
    assert not (out / "checkpoints").exists()
    # the shipped classifier was exported from this checkpoint: the copy is the same file
    assert _sha(out / "index_classifier.onnx") == before["index_classifier.onnx"]
    assert {p.name: _sha(p) for p in MODELS.glob("*.onnx")} == before


def test_export_into_the_models_folder_itself_is_refused(capsys):
    if not CHECKPOINT.exists():
        pytest.skip("the shipped classifier's checkpoint is not here")
    assert main(["train", "export", "classifier", "--weights", str(CHECKPOINT), "--into", str(MODELS)]) == 2
    assert "--into names the models folder" in capsys.readouterr().err
