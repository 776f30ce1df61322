"""One short end-to-end run: ``tableref watch`` on a committed simulated clip.

The clip (``tests/fixtures/table_clip/``) is a short Desmoche hand made by
``tableref simulate desmoche`` (see its ``truth.json``): the committed model
reads the cards, the tracker follows them, the session and the referee decide
the hand, and the last JSON line must carry the simulator's winner and nets.
"""
import json
import re
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


@pytest.fixture(scope="module")
def watched(tmp_path_factory):
    if not _models_ready():
        pytest.fail("the committed recognition models are missing (models/recognition.json)")
    truth = json.loads((CLIP / "truth.json").read_text())
    db = tmp_path_factory.mktemp("watch") / "ledger.sqlite3"
    p = subprocess.run([sys.executable, "-m", "tableref", "watch", str(CLIP / "video.mp4"), "--game", "desmoche",
                        "--players", ",".join(truth["players"]), "--json", "--db", str(db), "--progress"],
                       cwd=ROOT, capture_output=True, text=True, timeout=240)
    lines = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]
    p.db = db
    return truth, p, lines


def test_watch_clip_runs_the_whole_pipeline(watched):
    truth, p, lines = watched
    # 0: the hand was decided; 1: the video ended with the hand undecided (still reported as hand_end)
    assert p.returncode in (0, 1), p.stderr[-2000:]
    assert lines, p.stderr[-2000:]
    assert "Traceback" not in p.stderr
    assert all("type" in x for x in lines)
    last = lines[-1]
    assert last["type"] == "hand_end", lines[-3:]
    assert set(last["net"]) <= set(truth["players"])


def test_watch_clip_gives_the_simulated_result(watched):
    truth, p, lines = watched
    assert p.returncode == 0, p.stderr[-2000:]
    last = lines[-1]
    assert last["winner"] == truth["winner"]
    assert last["net"] == truth["net"]
    kinds = {x["type"] for x in lines}
    assert "meld_laid" in kinds and "winner" in kinds


def test_watch_says_the_result_once_with_progress_and_records_it(watched):
    truth, p, lines = watched
    ends = [x for x in lines if x["type"] == "hand_end"]
    assert len(ends) == 1 and lines[-1] is ends[0], [x["type"] for x in lines[-4:]]
    # the progress bar and the rate went to stderr, not into the JSON lines
    assert re.search(r"\d+ frames analysed in [\d.]+ s \([\d.]+ frames/s\)", p.stderr), p.stderr[-500:]
    # the hand is in the ledger that `tableref serve --db` would show
    from tableref.ledger.store import Ledger

    with Ledger(p.db) as ledger:
        sid = ledger.current_session()
        hands = ledger.hands(sid)
    assert [h["net"] for h in hands] == [truth["net"]] and hands[0]["hand_no"] == ends[0]["hand_no"] == 1
    assert "recorded in the ledger" in p.stderr
    # and each verdict's picture beside it, as tableref serve keeps them
    from tableref.ledger.evidence import EvidenceStore

    store = EvidenceStore.for_ledger(p.db)
    kinds = [x["kind"] for x in store.pictures(sid, 1)]
    assert "hand_end" in kinds and "meld_laid" in kinds, kinds
    assert all(store.path_of(x["id"]) is not None for x in store.pictures(sid))
    store.close()


def test_watch_bad_source_is_a_clear_error(tmp_path):
    p = subprocess.run([sys.executable, "-m", "tableref", "watch", str(tmp_path / "missing.mp4"), "--game",
                        "desmoche", "--seats", "3"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2
    assert "not found" in p.stderr and "Traceback" not in p.stderr
