"""The ``tableref detect`` / ``evaluate`` / ``bench-detect`` contract, run with the committed models.

What is checked here holds whatever the models read (the accuracy on the fixtures
is tested in ``test_recognition_fixtures.py``): one JSON line per image with the
documented fields, per-image errors for unreadable input, exit codes, annotated
output files, no tracebacks.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

from tableref.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
SCENES = sorted(FIXTURES.glob("*.jpg"))
ROOT = Path(__file__).resolve().parents[1]

def test_detect_json_contract(capsys):
    rc = main(["detect", "--json", *map(str, SCENES)])
    assert rc == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == len(SCENES)
    for line, path in zip(lines, SCENES):
        obj = json.loads(line)
        assert set(obj) == {"image", "width", "height", "ms", "cards"}
        assert obj["image"] == str(path)
        img = cv2.imread(str(path))
        assert (obj["width"], obj["height"]) == (img.shape[1], img.shape[0])
        assert obj["ms"] > 0
        assert isinstance(obj["cards"], list)
        for c in obj["cards"]:
            assert set(c) == {"card", "confidence", "box", "quad"}
            assert 0 < c["confidence"] <= 1 and len(c["box"]) == 4
            assert c["quad"] is None or (len(c["quad"]) == 4 and all(len(p) == 2 for p in c["quad"]))


def test_detect_bad_inputs_are_reported_per_image(tmp_path, capsys):
    text = tmp_path / "notes.jpg"
    text.write_text("not an image at all")
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    good = SCENES[0].read_bytes()
    truncated = tmp_path / "truncated.jpg"
    truncated.write_bytes(good[:200])
    missing = tmp_path / "missing.jpg"
    args = [str(text), str(SCENES[0]), str(empty), str(missing), str(truncated), str(tmp_path)]
    rc = main(["detect", "--json", *args])
    assert rc == 1
    objs = [json.loads(x) for x in capsys.readouterr().out.strip().splitlines()]
    assert [o["image"] for o in objs] == args
    errors = {o["image"]: o.get("error") for o in objs}
    assert errors[str(SCENES[0])] is None and isinstance(objs[1]["cards"], list)
    assert "not an image" in errors[str(text)]
    assert "empty" in errors[str(empty)]
    assert "not found" in errors[str(missing)]
    assert errors[str(truncated)]
    assert "directory" in errors[str(tmp_path)]


def test_detect_table_output(capsys):
    rc = main(["detect", str(FIXTURES / "meld_and_duplicates.jpg")])
    assert rc == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.startswith(str(FIXTURES / "meld_and_duplicates.jpg") + "  800x600  ") and " ms  " in first
    assert first.rstrip().endswith(("card", "cards"))


def test_detect_annotate_single_and_several(tmp_path, capsys):
    one = tmp_path / "one.jpg"
    assert main(["detect", "--annotate", str(one), str(SCENES[0])]) == 0
    img = cv2.imread(str(one))
    assert img is not None and img.shape == cv2.imread(str(SCENES[0])).shape
    many = tmp_path / "out" / "ann.png"
    assert main(["detect", "--json", "--annotate", str(many), *map(str, SCENES)]) == 0
    for p in SCENES:
        assert (tmp_path / "out" / f"ann_{p.stem}.png").exists()


def test_detect_missing_models_is_clear(tmp_path, capsys):
    rc = main(["detect", "--models", str(tmp_path), str(SCENES[0])])
    assert rc == 2
    err = capsys.readouterr().err
    assert "recognition.json" in err and "Traceback" not in err


def test_detect_entry_point_no_traceback(tmp_path):
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    proc = subprocess.run([sys.executable, "-m", "tableref", "detect", "--json", str(bad), str(SCENES[-1])],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = [json.loads(x) for x in proc.stdout.strip().splitlines()]
    assert "error" in lines[0] and "cards" in lines[1]


def test_evaluate_bad_dir_is_clear(tmp_path, capsys):
    assert main(["evaluate", "--real", str(tmp_path)]) == 2
    assert "labels.csv" in capsys.readouterr().err


def test_bench_detect_on_given_images(capsys):
    rc = main(["bench-detect", "--repeat", "2", str(SCENES[0])])
    assert rc == 0
    out = capsys.readouterr().out
    assert "total" in out and "classifier" in out and "assembly" in out and "load average" in out
    assert "cores" in out.splitlines()[1]     # which processor the times were measured on


def test_cpu_description_says_which_vector_instructions():
    from tableref.bench import cpu_description

    zen4 = ("processor\t: 0\nmodel name\t: AMD EPYC\ncpu family\t: 25\nmodel\t\t: 17\n"
            "flags\t\t: fpu avx avx2 avx512f avx512_bf16\n\nprocessor\t: 1\nmodel name\t: AMD EPYC\n")
    zen3 = zen4.replace("model\t\t: 17", "model\t\t: 1").replace(" avx512f avx512_bf16", "")
    assert cpu_description(zen4) == "AMD EPYC (family 25 model 17, AVX-512 BF16), 2 cores"
    assert cpu_description(zen3) == "AMD EPYC (family 25 model 1, AVX2, no AVX-512), 2 cores"
    assert cpu_description("processor\t: 0\n").endswith("1 core")


def test_bench_tiles_a_real_photo_twice_into_one_frame():
    from tableref.bench import tiled_real_frame

    photo = np.random.default_rng(0).integers(0, 255, (300, 300, 3), dtype=np.uint8)
    frame = tiled_real_frame(photo, (10, 20, 30))
    assert frame.shape == (720, 1280, 3)
    assert (frame[40:680, :640] == frame[40:680, 640:]).all()         # the same cards twice
    assert (frame[:40] == (10, 20, 30)).all() and not (frame[40:680, :640] == (10, 20, 30)).all()


def test_draw_cards_marks_quads_and_index_boxes():
    from tableref.vision.drawing import draw_cards
    from tableref.vision.types import DetectedCard

    img = np.zeros((200, 300, 3), np.uint8)
    cards = [DetectedCard("10H", 0.9, (20, 20, 120, 160), [[20, 20], [120, 20], [120, 160], [20, 160]],
                          [(25, 25, 40, 55)]),
             DetectedCard("AS", 0.5, (200, 50, 230, 100))]
    out = draw_cards(img, cards)
    assert out.shape == img.shape and not (img != 0).any()      # the input is not changed
    assert out[20, 70].any() and out[160, 70].any() and out[50, 200].any() and out[40, 25].any()


def test_the_backend_named_in_the_environment_is_the_default(monkeypatch, capsys):
    from tableref.cli.vision import load_recognizer
    from tableref.vision.runtime import openvino_available

    monkeypatch.setenv("TABLEREF_BACKEND", "onnxruntime")
    rec = load_recognizer(None)
    assert rec is not None and rec.backend == "onnxruntime" and rec.backend_reason == "asked for"
    if not openvino_available():
        monkeypatch.setenv("TABLEREF_BACKEND", "openvino")
        assert load_recognizer(None) is None
        assert "OpenVINO is not installed" in capsys.readouterr().err
        assert load_recognizer(None, backend="onnxruntime") is not None   # an explicit choice wins
