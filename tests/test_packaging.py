"""The project installs as one package, ``tableref``, in a normal (non-editable) install too.

Builds a wheel of the working tree, checks that ``tableref`` is its only top-level package
(the repository's referee/, vision/, web/, models/ and datasets/ folders are mapped into it),
installs it into a private folder and imports it from there, away from the repository.
"""
from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        pytest.fail("pip wheel failed:\n" + proc.stdout[-2000:] + proc.stderr[-2000:])
    wheels = list(out.glob("tableref-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_wheel_holds_one_top_level_package(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
        top_level = [n for n in names if n.endswith("top_level.txt")]
        assert tops == {"tableref"}, tops
        if top_level:
            assert z.read(top_level[0]).decode().split() == ["tableref"]
    # the mapped folders and their data files are inside the package
    for needed in ("tableref/referee/cards.py", "tableref/vision/tracking.py", "tableref/web/app.py",
                   "tableref/models/index_detector.onnx", "tableref/models/recognition.json",
                   "tableref/datasets/decks.py", "tableref/web/templates/base.html",
                   "tableref/web/i18n/en.json", "tableref/demo/desmoche.mp4", "tableref/cli/__init__.py",
                   "tableref/py.typed"):
        assert needed in names, needed
    assert not any(n.endswith(".pt") for n in names), "training checkpoints do not ship"


def test_normal_install_imports_from_the_package(wheel, tmp_path):
    site = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    code = (
        "import importlib, sys\n"
        "import tableref, tableref.referee.cards, tableref.vision.recognition, tableref.web.app, tableref.models\n"
        "from tableref.vision.runtime import default_models_dir\n"
        "from tableref.demo import clip as demo_clip\n"
        "site = sys.argv[1]\n"
        "for m in (tableref, tableref.referee.cards, tableref.vision.recognition, tableref.web.app):\n"
        "    assert m.__file__.startswith(site), (m.__name__, m.__file__)\n"
        "assert (default_models_dir() / 'index_detector.onnx').exists()\n"
        "assert str(default_models_dir()).startswith(site)\n"
        "assert demo_clip() is not None and str(demo_clip()).startswith(site)\n"
        "for generic in ('referee', 'vision', 'web', 'models', 'datasets'):\n"
        "    spec = importlib.util.find_spec(generic)\n"
        "    assert spec is None or not (spec.origin or '').startswith(site), generic\n"
        "print('ok')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    proc = subprocess.run([sys.executable, "-c", code, str(site)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stdout + proc.stderr
    proc = subprocess.run([sys.executable, "-m", "tableref", "--help"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "serve" in proc.stdout, proc.stderr
