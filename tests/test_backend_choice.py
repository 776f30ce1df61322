"""The inference backend choice: OpenVINO only where it was checked on the very model files."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tableref.vision import runtime
from tableref.vision.runtime import ModelError, choose_backend, file_sha256


def _record(folder, key: str, models, passed=True):
    """backends.json in ``folder`` with one check ``key`` on the files ``models``."""
    shas = {p.name: file_sha256(p) for p in models}
    (folder / runtime.VALIDATION_FILE).write_text(json.dumps(
        {key: {"passed": passed, "checked": "2026-12-01", "models": shas}}))


def _models(tmp_path, passed=True, tamper=False):
    det, cls = tmp_path / "det.onnx", tmp_path / "cls.onnx"
    det.write_bytes(b"detector")
    cls.write_bytes(b"classifier")
    _record(tmp_path, "openvino", [det, cls], passed)
    if tamper:                      # the model was retrained after the check
        det.write_bytes(b"detector, retrained")
    return [det, cls]


def test_auto_takes_openvino_only_where_it_was_checked_on_these_files(tmp_path, monkeypatch):
    monkeypatch.setattr(runtime, "openvino_available", lambda: True)
    files = _models(tmp_path)
    assert choose_backend("auto", tmp_path, files)[0] == "openvino"
    files = _models(tmp_path, tamper=True)
    backend, why = choose_backend("auto", tmp_path, files)
    assert backend == "onnxruntime" and "not checked" in why
    files = _models(tmp_path, passed=False)
    assert choose_backend("auto", tmp_path, files)[0] == "onnxruntime"


def test_auto_without_openvino_installed_is_onnxruntime(tmp_path, monkeypatch):
    monkeypatch.setattr(runtime, "openvino_available", lambda: False)
    files = _models(tmp_path)
    assert choose_backend("auto", tmp_path, files) == ("onnxruntime", "OpenVINO not installed")
    with pytest.raises(ModelError, match="not installed"):
        choose_backend("openvino", tmp_path, files)
    assert choose_backend("onnxruntime", tmp_path, files)[0] == "onnxruntime"


def test_no_validation_file_means_onnxruntime(tmp_path, monkeypatch):
    monkeypatch.setattr(runtime, "openvino_available", lambda: True)
    det = tmp_path / "det.onnx"
    det.write_bytes(b"x")
    assert choose_backend("auto", tmp_path, [det])[0] == "onnxruntime"
    with pytest.raises(ModelError, match="unknown backend"):
        choose_backend("tensorrt", tmp_path, [det])


def test_tableref_models_names_other_models(tmp_path, monkeypatch):
    """TABLEREF_MODELS points every default reader (watch, serve, detect) at other models; a folder
    without recognition.json is refused with a clear error, not a traceback deep in ONNX."""
    from tableref.models import MODELS_DIR
    from tableref.vision.recognition import CardRecognizer

    monkeypatch.delenv("TABLEREF_MODELS", raising=False)
    assert runtime.default_models_dir() == MODELS_DIR
    monkeypatch.setenv("TABLEREF_MODELS", str(tmp_path))
    assert runtime.default_models_dir() == tmp_path
    with pytest.raises(ModelError, match="recognition.json"):
        CardRecognizer()


def test_freed_arrays_are_kept_for_the_next_frame_on_glibc():
    """``keep_freed_memory`` (called by every recogniser) raises glibc's mmap and trim thresholds
    once, so a frame's megabyte arrays reuse the last frame's pages instead of faulting in fresh
    ones; elsewhere it changes nothing and says so."""
    import ctypes
    import sys

    from tableref.vision import runtime

    try:
        ctypes.CDLL(None).gnu_get_libc_version
        glibc = sys.platform.startswith("linux")
    except (OSError, AttributeError):
        glibc = False
    assert runtime.keep_freed_memory() is glibc
    assert runtime.keep_freed_memory() is glibc          # once is enough; asking again is harmless


def test_the_classifier_runs_in_bfloat16_only_where_checked_on_this_file_and_native(tmp_path, monkeypatch):
    """A camera's classifier is computed in bfloat16 only with the settings' "auto" or "on", on a
    processor that does bfloat16 natively, and ("auto") where backends.json records the check passed
    on this very classifier file; ONNX Runtime asked for, a photo's settings, a retrained
    classifier or a failed check keep float32."""
    from tableref.vision.runtime import CLASSIFIER_BF16, classifier_bf16

    cls = tmp_path / "cls.onnx"
    cls.write_bytes(b"classifier")

    def record(passed=True):
        _record(tmp_path, CLASSIFIER_BF16, [cls], passed)

    monkeypatch.setattr(runtime, "bf16_native", lambda: True)
    monkeypatch.setattr(runtime, "openvino_available", lambda: True)
    monkeypatch.setattr(runtime, "bf16_pays", lambda *a: (True, "10 against 20 ms for 64 crops"))
    record()
    assert classifier_bf16("auto", "auto", tmp_path, cls)[0] is True
    assert classifier_bf16("auto", "openvino", tmp_path, cls)[0] is True
    assert classifier_bf16("auto", "onnxruntime", tmp_path, cls) == (False, "float32 (ONNX Runtime asked for)")
    assert classifier_bf16("off", "auto", tmp_path, cls)[0] is False
    record(passed=False)
    assert classifier_bf16("auto", "auto", tmp_path, cls)[0] is False
    assert classifier_bf16("on", "auto", tmp_path, cls)[0] is True      # the check itself
    record()
    cls.write_bytes(b"classifier, retrained")
    backend, why = classifier_bf16("auto", "auto", tmp_path, cls)
    assert backend is False and "not checked" in why
    monkeypatch.setattr(runtime, "bf16_native", lambda: False)
    record()
    assert classifier_bf16("auto", "auto", tmp_path, cls) == (False, "float32 (no native bfloat16 here)")
    with pytest.raises(ModelError, match="natively"):
        classifier_bf16("on", "auto", tmp_path, cls)
    with pytest.raises(ModelError, match="unknown classifier precision"):
        classifier_bf16("bf16", "auto", tmp_path, cls)


def test_bfloat16_is_taken_only_where_it_is_measured_faster_than_float32(tmp_path, monkeypatch):
    """A processor may compute bfloat16 natively and still run the classifier slower in it than in
    float32: "auto" then keeps float32 and says so; "on" (the check) takes bfloat16 all the same."""
    from tableref.vision.runtime import CLASSIFIER_BF16, classifier_bf16

    cls = tmp_path / "cls.onnx"
    cls.write_bytes(b"classifier")
    _record(tmp_path, CLASSIFIER_BF16, [cls])
    monkeypatch.setattr(runtime, "bf16_native", lambda: True)
    monkeypatch.setattr(runtime, "openvino_available", lambda: True)
    asked = []

    def timed(classifier, threads, other):
        asked.append((classifier, threads, other))
        return False, "28 against 19 ms for 64 crops"

    monkeypatch.setattr(runtime, "bf16_pays", timed)
    assert classifier_bf16("auto", "auto", tmp_path, cls, 2, "onnxruntime") == (
        False, "float32 (bfloat16 measured no faster on this processor: 28 against 19 ms for 64 crops)")
    assert asked == [(cls, 2, "onnxruntime")]
    assert classifier_bf16("on", "auto", tmp_path, cls)[0] is True


def test_the_bfloat16_measure_times_both_precisions_on_the_committed_classifier():
    """The measure itself: both precisions run on the committed classifier, and the answer follows
    the figures it gives (bfloat16 taken at most ``BF16_PAYS`` of float32's time)."""
    import re

    from tableref.models import MODELS_DIR

    if not (runtime.openvino_available() and runtime.bf16_native()):
        pytest.skip("OpenVINO with native bfloat16 is needed to time it")
    cls = MODELS_DIR / "index_classifier.onnx"
    runtime._BF16_MEASURED.pop((cls.resolve(), "onnxruntime"), None)
    faster, timed = runtime.bf16_pays(cls, 2, "onnxruntime")
    # measured once: a recogniser on one thread (the still looks) takes the same answer
    assert runtime.bf16_pays(cls, 1, "onnxruntime") == (faster, timed)
    m = re.fullmatch(r"(\d+) against (\d+) ms for 64 crops", timed)
    assert m, timed
    bf16, f32 = float(m.group(1)), float(m.group(2))
    assert bf16 > 0 and f32 > 0
    if abs(bf16 - runtime.BF16_PAYS * f32) > 1:      # the figures are rounded to the millisecond
        assert faster == (bf16 <= runtime.BF16_PAYS * f32)


def test_a_photo_is_read_in_float32_and_a_camera_frame_as_checked():
    """The photo settings never compute in bfloat16; a camera's frames (and the live table's still
    looks) ask for it where it was checked (the committed classifier: models/backends.json), and a
    recogniser says which it reads in."""
    from tableref.vision.recognition import CardRecognizer, camera_preset, photo_preset

    assert photo_preset().classifier_bf16 == "off"
    assert camera_preset().classifier_bf16 == "auto"
    photo = CardRecognizer(config=photo_preset())
    assert photo.cls_bf16 is False and photo.cls_net.bf16 is False
    camera = CardRecognizer(config=camera_preset())
    assert camera.cls_bf16 == camera.cls_net.bf16
    assert camera.cls_precision_reason.startswith("bfloat16" if camera.cls_bf16 else "float32")
    # the live table's photo-quality looks at a still table read a camera's frame too
    from tableref.vision.recognition.still import _default_recognizer

    still = _default_recognizer()
    assert still.config.classifier_bf16 == "auto" and still.cls_bf16 == camera.cls_bf16


def test_a_camera_detector_runs_in_openvino_only_where_checked_on_this_file(tmp_path, monkeypatch):
    """The detector of a camera's frames moves to OpenVINO only where backends.json records the camera
    check on this very detector file and ONNX Runtime was not asked for by name; photos ("off") keep
    the backend chosen for both networks."""
    from tableref.vision.runtime import CAMERA_DETECTOR, camera_detector_openvino

    det = tmp_path / "det.onnx"
    det.write_bytes(b"detector")

    def record(passed=True):
        _record(tmp_path, CAMERA_DETECTOR, [det], passed)

    monkeypatch.setattr(runtime, "openvino_available", lambda: True)
    record()
    assert camera_detector_openvino("auto", "auto", "onnxruntime", tmp_path, det)[0] is True
    assert camera_detector_openvino("off", "auto", "onnxruntime", tmp_path, det) == (False, "ONNX Runtime")
    assert camera_detector_openvino("auto", "onnxruntime", "onnxruntime", tmp_path, det) == (
        False, "ONNX Runtime (asked for)")
    assert camera_detector_openvino("off", "openvino", "openvino", tmp_path, det)[0] is True   # the backend itself
    record(passed=False)
    assert camera_detector_openvino("auto", "auto", "onnxruntime", tmp_path, det)[0] is False
    assert camera_detector_openvino("on", "auto", "onnxruntime", tmp_path, det)[0] is True     # the check itself
    record()
    det.write_bytes(b"detector, retrained")
    on, why = camera_detector_openvino("auto", "auto", "onnxruntime", tmp_path, det)
    assert on is False and "not checked" in why
    monkeypatch.setattr(runtime, "openvino_available", lambda: False)
    assert camera_detector_openvino("auto", "auto", "onnxruntime", tmp_path, det)[0] is False
    with pytest.raises(ModelError, match="not installed"):
        camera_detector_openvino("on", "auto", "onnxruntime", tmp_path, det)
    with pytest.raises(ModelError, match="unknown detector runtime"):
        camera_detector_openvino("maybe", "auto", "onnxruntime", tmp_path, det)


def test_a_photo_detector_keeps_the_backend_and_a_camera_one_says_which():
    from tableref.vision.recognition import CardRecognizer, camera_preset, photo_preset

    photo = CardRecognizer(config=photo_preset())
    assert photo.det_net.backend == photo.backend
    camera = CardRecognizer(config=camera_preset())
    assert camera.det_net.backend == ("openvino" if camera.det_openvino else camera.backend)
    assert camera.det_runtime_reason.startswith("OpenVINO" if camera.det_openvino else "ONNX Runtime")
    assert camera.runtimes.startswith(f"detector {camera.det_net.runtime}, classifier {camera.cls_net.runtime}")
    assert camera.det_net.fixed_sizes == (camera.det_openvino and camera.backend != "openvino")
    assert not photo.det_net.fixed_sizes


def test_openvino_runs_the_sizes_that_repeat_and_reads_them_alike():
    """A fixed camera's views repeat: a size met FIXED_AFTER times gets a copy compiled by OpenVINO
    for it (at most FIXED_SIZES), compiled beside the runs; until then, and for the sizes met less
    often, ONNX Runtime runs the model, and both read alike."""
    import numpy as np

    from tableref.vision.runtime import FIXED_AFTER, FIXED_SIZES, Network, default_models_dir, openvino_available

    if not openvino_available():
        pytest.skip("OpenVINO not installed")
    det = default_models_dir() / "index_detector.onnx"
    net = Network(det, 1, "openvino", fixed_sizes=True)
    onnx = Network(det, 1, "onnxruntime")
    assert net.side_by_side == 1 and Network(det, 2, "openvino", fixed_sizes=True).side_by_side == 2
    assert net.runtime.startswith("onnxruntime (openvino")
    rng = np.random.default_rng(0)
    x = rng.random((1, 3, 64, 96), dtype=np.float32)
    reference = onnx.run(x)
    for _ in range(FIXED_AFTER):
        np.testing.assert_array_equal(net.run(x), reference)      # ONNX Runtime's own run
    net.settle()
    assert list(net._fixed) == [x.shape]
    np.testing.assert_allclose(net.run(x), reference, rtol=1e-3, atol=1e-3)
    for k in range(FIXED_SIZES + 2):            # sizes beyond the limit stay with ONNX Runtime
        y = rng.random((1, 3, 32, 32 * (k + 1)), dtype=np.float32)
        for _ in range(FIXED_AFTER):
            net.run(y)
        net.settle()
    assert len(net._fixed) == FIXED_SIZES
    once = rng.random((1, 3, 64, 64), dtype=np.float32)
    np.testing.assert_array_equal(net.run(once), onnx.run(once))
    # the check's network compiles before the run that asks for it: the same runtime every time
    checked = Network(det, 1, "openvino", fixed_sizes=True, compile_beside=False)
    for _ in range(FIXED_AFTER):
        checked.run(x)
    assert list(checked._fixed) == [x.shape]
    assert not Network(det, 1, "onnxruntime", fixed_sizes=True).fixed_sizes


def test_the_network_timed_in_bfloat16_is_handed_to_the_recogniser_that_asked(monkeypatch):
    """Where bfloat16 wins, the classifier compiled to time it is not compiled again: the recogniser
    whose question timed it takes it, once; another (the still looks, on one thread) compiles its own."""
    from tableref.models import MODELS_DIR
    from tableref.vision.recognition import CardRecognizer, live_table_preset

    if not (runtime.openvino_available() and runtime.bf16_native()):
        pytest.skip("OpenVINO with native bfloat16 is needed to time it")
    cls = (MODELS_DIR / "index_classifier.onnx").resolve()
    for key in [k for k in runtime._BF16_MEASURED if k[0] == cls]:
        monkeypatch.delitem(runtime._BF16_MEASURED, key)
    monkeypatch.setattr(runtime, "BF16_PAYS", 1e9)          # bfloat16 wins, whatever the times
    compiled = []
    network = runtime.Network

    def counted(path, threads, backend="onnxruntime", bf16=False, **kw):
        net = network(path, threads, backend, bf16, **kw)
        compiled.append((Path(path).name, threads, bf16, net))
        return net

    monkeypatch.setattr(runtime, "Network", counted)
    import tableref.vision.recognition.recognizer as recognizer
    monkeypatch.setattr(recognizer, "Network", counted)
    rec = CardRecognizer(threads=2, config=live_table_preset(fast_classifier=False, classifier_bf16="auto"))
    if not rec.cls_bf16:
        pytest.skip(f"this machine reads the classifier in float32: {rec.cls_precision_reason}")
    timed = [net for name, threads, bf16, net in compiled if name == cls.name and bf16]
    assert len(timed) == 1 and rec.cls_net is timed[0]
    assert runtime.take_timed_bf16(cls, 2) is None                  # handed over once
    still = CardRecognizer(threads=1, config=live_table_preset(fast_classifier=False, classifier_bf16="auto"))
    assert still.cls_bf16 and still.cls_net is not rec.cls_net
