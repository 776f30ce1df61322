"""One short end-to-end run: ``tableref watch`` on a committed simulated clip.

The clip (``tests/fixtures/table_clip/``) is a short Desmoche hand made by
``tableref simulate desmoche`` (see its ``truth.json``): the committed model
reads the cards, the tracker follows them, the session and the referee decide
the hand, and the last JSON line must carry the simulator's winner and nets.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CLIP = ROOT / "tests" / "fixtures" / "table_clip"
MODELS = ROOT / "models" / "recognition.json"


def _models_ready() -> bool:
    try:
        spec = json.loads(MODELS.read_text())
    except (OSError, ValueError):
        return False
    files = [spec.get(k, {}).get("file") for k in ("detector", "classifier")]
    return all(f and (ROOT / "models" / f).exists() for f in files)


def test_watch_clip_gives_the_simulated_result():
    if not _models_ready():
        pytest.fail("the committed recognition models are missing (models/recognition.json)")
    truth = json.loads((CLIP / "truth.json").read_text())
    p = subprocess.run([sys.executable, "-m", "tableref", "watch", str(CLIP / "video.mp4"), "--game", "desmoche",
                        "--players", ",".join(truth["players"]), "--json"],
                       cwd=ROOT, capture_output=True, text=True, timeout=240)
    lines = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]
    assert lines, p.stderr[-2000:]
    assert all("type" in x for x in lines)
    last = lines[-1]
    assert last["type"] == "hand_end", lines[-3:]
    assert last["winner"] == truth["winner"]
    assert last["net"] == truth["net"]
    kinds = {x["type"] for x in lines}
    assert "meld_laid" in kinds and "winner" in kinds


def test_watch_bad_source_is_a_clear_error(tmp_path):
    p = subprocess.run([sys.executable, "-m", "tableref", "watch", str(tmp_path / "missing.mp4"), "--game",
                        "desmoche", "--seats", "3"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2
    assert "not found" in p.stderr and "Traceback" not in p.stderr
