"""`tableref train export classifier --into DIR`: a candidate written beside the committed models, never over them."""
from __future__ import annotations

import hashlib

import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

from tableref.cli import main  # noqa: E402
from tableref.training.classifier import MODELS  # noqa: E402

CHECKPOINT = MODELS / "checkpoints" / "classifier_cls_m2_best.pt"


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


def test_two_checkpoints_are_averaged_by_a_share_of_each(tmp_path, capsys):
    import torch

    from tableref.training.classifier import build_net

    def save(net, path):
        torch.save({"model": net.state_dict(), "opt": {}, "epochs": 1}, path)
        return path

    torch.manual_seed(0)
    a, b = build_net(head="spatial"), build_net(head="spatial")
    pa, pb = save(a, tmp_path / "a.pt"), save(b, tmp_path / "b.pt")
    out = tmp_path / "avg.pt"
    assert main(["train", "average", str(pa), str(pb), "--share", "0.75", "--out", str(out)]) == 0
    mixed = torch.load(out, weights_only=False)
    assert "opt" not in mixed and mixed["averaged"]["share"] == 0.75
    for k, w in mixed["model"].items():
        if w.is_floating_point():
            assert torch.allclose(w, 0.25 * a.state_dict()[k] + 0.75 * b.state_dict()[k], atol=1e-6), k
    # a share outside 0..1, another network, a missing file: clear errors, nothing written
    capsys.readouterr()
    assert main(["train", "average", str(pa), str(pb), "--share", "1.5", "--out", str(tmp_path / "x.pt")]) == 2
    assert "0..1" in capsys.readouterr().err
    pc = save(build_net(head="spatial", widths=(12, 16, 24, 32, 48, 64)), tmp_path / "c.pt")
    assert main(["train", "average", str(pa), str(pc), "--out", str(tmp_path / "x.pt")]) == 2
    assert "not the same network" in capsys.readouterr().err
    assert main(["train", "average", str(pa), str(tmp_path / "none.pt"), "--out", str(tmp_path / "x.pt")]) == 1
    assert "not found" in capsys.readouterr().err
    assert not (tmp_path / "x.pt").exists()


def test_an_ensemble_reads_the_mean_of_its_nets_probabilities(tmp_path, capsys):
    import numpy as np
    import onnxruntime as ort
    import torch

    from tableref.training.classifier import build_net, to_probs

    def save(net, path):
        torch.save({"model": net.state_dict(), "opt": {}, "epochs": 1}, path)
        return path

    torch.manual_seed(1)
    a, b = build_net(head="spatial").eval(), build_net(head="pool").eval()
    pa, pb = save(a, tmp_path / "a.pt"), save(b, tmp_path / "b.pt")
    out = tmp_path / "candidate"
    assert main(["train", "export", "classifier", "--weights", str(pa), "--with", str(pb), "--into", str(out)]) == 0
    x = torch.rand(3, 3, 64, 64)
    with torch.no_grad():
        want = ((to_probs(a(x)) + to_probs(b(x))) / 2).numpy()
    got = ort.InferenceSession(str(out / "index_classifier.onnx")).run(None, {"images": x.numpy()})[0]
    assert got.shape == (3, 53) and np.allclose(got, want, atol=1e-5)
    assert np.allclose(got.sum(axis=1), 1.0, atol=1e-5)
    # a member of other widths, or one that is not there: a clear error, nothing written over
    slim = save(build_net(head="spatial", widths=(12, 16, 24, 32, 48, 64)), tmp_path / "slim.pt")
    capsys.readouterr()
    assert main(["train", "export", "classifier", "--weights", str(pa), "--with", str(slim),
                 "--into", str(tmp_path / "x")]) == 2
    assert "same widths" in capsys.readouterr().err
    assert main(["train", "export", "classifier", "--weights", str(pa), "--with", str(tmp_path / "gone.pt"),
                 "--into", str(tmp_path / "y")]) == 1
    assert "gone.pt" in capsys.readouterr().err
