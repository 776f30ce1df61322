"""Every script in scripts/ runs from an install: ``--help`` works from any folder, it edits no
``sys.path``, and scripts/README.md lists it."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
ALL = sorted(p.name for p in SCRIPTS.glob("*.py"))


def test_there_are_scripts():
    assert ALL, "no scripts found"


@pytest.mark.parametrize("name", ALL)
def test_script_help_runs_from_elsewhere(name, tmp_path):
    env = {**os.environ, "YOLO_OFFLINE": "1"}
    env.pop("PYTHONPATH", None)
    proc = subprocess.run([sys.executable, str(SCRIPTS / name), "--help"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "usage:" in proc.stdout, proc.stdout[-500:]


@pytest.mark.parametrize("name", ALL)
def test_script_edits_no_import_path(name):
    assert "sys.path" not in (SCRIPTS / name).read_text(), f"{name} edits sys.path"


def test_readme_lists_every_script():
    readme = (SCRIPTS / "README.md").read_text()
    listed = {line.split("`")[1] for line in readme.splitlines() if line.startswith("- `")}
    files = {p.name for p in SCRIPTS.iterdir() if p.is_file() and p.name != "README.md"}
    assert files - listed == set(), f"not in scripts/README.md: {sorted(files - listed)}"
    assert listed - files == set(), f"in scripts/README.md but not in scripts/: {sorted(listed - files)}"
