"""Evidence pictures: stored beside the ledger, keyed by hand and event, pruned to the last N
hands, written so that a killed server loses no ledger entry (and leaves no half picture)."""
from __future__ import annotations

import queue
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import cv2
import numpy as np

from tableref.ledger.evidence import EVIDENCE_EVENTS, EvidenceRecorder, EvidenceStore
from tableref.ledger.store import Ledger

ROOT = Path(__file__).resolve().parents[1]
SETUP = {"game": "desmoche", "players": ["Ana", "Beto", "Cris", "Dani"], "stake": 1, "point_value": 1.0}


def frame_jpeg(label: str = "x", w: int = 1280, h: int = 720) -> bytes:
    img = np.full((h, w, 3), 90, np.uint8)
    cv2.putText(img, label, (50, h // 2), cv2.FONT_HERSHEY_SIMPLEX, 3.0, (255, 255, 255), 4)
    ok, buf = cv2.imencode(".jpg", img)
    return buf.tobytes()


def ev(kind="meld_laid", t=1.0, hand_no=1, seat=0, player="Ana", text="Ana lays 2S 3S 4S"):
    return {"type": kind, "t": t, "hand_no": hand_no, "seat": seat, "player": player, "text": text}


def test_pictures_are_960_wide_beside_the_ledger_and_keyed_by_hand(tmp_path):
    store = EvidenceStore.for_ledger(tmp_path / "ledger.sqlite3")
    assert store.folder == tmp_path / "ledger.sqlite3.evidence"
    ids = store.add(1, 3, frame_jpeg("meld"), [ev(), ev("out_of_order", seat=1, player="Beto")])
    assert len(ids) == 2
    pics = store.by_hand(1)
    assert list(pics) == [3] and [p["kind"] for p in pics[3]] == ["meld_laid", "out_of_order"]
    assert pics[3][0]["file"] == pics[3][1]["file"]                     # one frame, two verdicts
    img = cv2.imread(str(store.path_of(ids[0])))
    assert img.shape == (540, 960, 3) and (pics[3][0]["width"], pics[3][0]["height"]) == (960, 540)
    assert store.path_of(9999) is None
    store.close()
    again = EvidenceStore.for_ledger(tmp_path / "ledger.sqlite3")        # kept across restarts
    assert again.path_of(ids[1]) is not None and again.removed_orphans == 0
    again.close()


def test_retention_keeps_the_last_hands_only(tmp_path):
    store = EvidenceStore(tmp_path / "ev", keep_hands=3)
    for hand in range(1, 6):
        store.add(1, hand, frame_jpeg(str(hand)), [ev(hand_no=hand)])
        store.add(1, hand, frame_jpeg(str(hand)), [ev("hand_end", t=2.0, hand_no=hand)])
    assert store.prune() == 4                              # two pictures of each of hands 1 and 2
    assert sorted(store.by_hand(1)) == [3, 4, 5]
    assert len(list((tmp_path / "ev").glob("s1/h*/*.jpg"))) == 6
    assert not (tmp_path / "ev" / "s1" / "h1").exists()
    none = EvidenceStore(tmp_path / "none", keep_hands=0)
    assert none.add(1, 1, frame_jpeg(), [ev()]) == [] and none.by_hand(1) == {}


def test_memory_ledger_gets_a_temporary_store_removed_at_close():
    store = EvidenceStore.for_ledger(":memory:")
    folder = store.folder
    store.add(1, 1, frame_jpeg(), [ev()])
    assert folder.exists()
    store.close()
    assert not folder.exists()


def test_leftovers_of_a_kill_are_removed_at_start(tmp_path):
    store = EvidenceStore(tmp_path / "ev")
    store.add(1, 1, frame_jpeg(), [ev()])
    store.close()
    (tmp_path / "ev" / "s1" / "h1" / "999-meld_laid.jpg").write_bytes(b"\xff\xd8half")
    (tmp_path / "ev" / "s1" / "h1" / "998-hand_end.jpg.tmp").write_bytes(b"\xff\xd8")
    store = EvidenceStore(tmp_path / "ev")
    assert store.removed_orphans == 2 and len(store.pictures(1)) == 1
    assert store.path_of(store.pictures(1)[0]["id"]) is not None


KILLED = textwrap.dedent('''
    import sys, cv2, numpy as np
    from tableref.ledger.store import Ledger
    from tableref.ledger.evidence import EvidenceStore
    path = sys.argv[1]
    led = Ledger(path)
    sid = led.open_session({"game": "desmoche", "players": ["Ana", "Beto", "Cris", "Dani"], "stake": 1,
                            "point_value": 1.0, "rules": {}, "source": "phone"}, who="test")
    store = EvidenceStore.for_ledger(path)
    img = np.random.default_rng(1).integers(0, 255, (720, 1280, 3), dtype=np.uint8)
    jpeg = cv2.imencode(".jpg", img)[1].tobytes()
    for n in range(1, 10000):
        res = {"type": "hand_end", "game": "desmoche", "winner": "Ana",
               "net": {"Ana": 6, "Beto": -2, "Cris": -2, "Dani": -2}, "items": [], "details": {}}
        h = led.commit_hand(sid, res, who="referee")
        print("committed", h["hand_no"], flush=True)
        store.add(sid, h["hand_no"], jpeg, [{"type": "hand_end", "t": 1.0, "hand_no": h["hand_no"], "text": "x"}])
        store.prune()
''')


def test_kill_9_while_pictures_are_written_loses_no_ledger_entry(tmp_path):
    db = tmp_path / "ledger.sqlite3"
    proc = subprocess.Popen([sys.executable, "-c", KILLED, str(db)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    committed = 0
    deadline = time.time() + 60
    try:
        while committed < 12 and time.time() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            committed = int(line.split()[1])
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    assert committed >= 12
    with Ledger(db) as led:
        sid = led.current_session()
        assert led.hand_count(sid) >= committed                # every hand said committed is there
        hands = led.hand_count(sid)
    store = EvidenceStore.for_ledger(db)
    pics = store.pictures(sid)
    assert all(store.path_of(p["id"]) is not None for p in pics)   # no row without its picture
    files = {p.relative_to(store.folder).as_posix() for p in store.folder.glob("s*/h*/*")}
    assert files == {p["file"] for p in pics}                       # and no picture without its row
    assert len(pics) >= hands - 1 and all(p["hand_no"] <= hands for p in pics)


class _Session:
    """Stands in for the live session's two hooks: its event queue and its newest annotated frame."""

    def __init__(self):
        self.q: queue.Queue = queue.Queue()
        self.frame = None

    def subscribe(self):
        return self.q

    def unsubscribe(self, q):
        pass

    def frame_at(self, t):
        return self.frame


def test_recorder_takes_the_frame_of_the_verdicts_time(tmp_path):
    store = EvidenceStore(tmp_path / "ev")
    s = _Session()
    rec = EvidenceRecorder(s, store, lambda: 7, frame_wait_s=2.0)
    try:
        s.frame = (4.0, frame_jpeg("old"))
        s.q.put(ev("meld_laid", t=5.0, hand_no=2))
        s.q.put(ev("meld_invalid", t=5.0, hand_no=2, seat=1, player="Beto"))
        s.q.put({"type": "camera_status", "t": 5.0, "text": "camera ok"})      # no verdict: no picture
        time.sleep(0.2)
        assert store.pictures(7) == []                                        # waits for the frame of t=5
        s.frame = (5.0, frame_jpeg("new"))
        deadline = time.time() + 5
        while len(store.pictures(7)) < 2 and time.time() < deadline:
            time.sleep(0.05)
        pics = store.pictures(7)
        assert [p["kind"] for p in pics] == ["meld_laid", "meld_invalid"] and pics[0]["file"] == pics[1]["file"]
        assert {p["hand_no"] for p in pics} == {2}
        # the host's decision on the table as it stands: the newest frame at once
        s.q.put(ev("hand_end", t=3.0, hand_no=2, seat=None, player=None, text="hand 2: Ana wins"))
        deadline = time.time() + 5
        while len(store.pictures(7)) < 3 and time.time() < deadline:
            time.sleep(0.05)
        assert store.pictures(7)[-1]["kind"] == "hand_end" and rec.saved == 3 and rec.missed == 0
    finally:
        rec.close()
    assert "hand_end" in EVIDENCE_EVENTS and "camera_status" not in EVIDENCE_EVENTS


class _RingSession(_Session):
    """Keeps the last annotated frames by time, as the live session does (frame_at)."""

    def __init__(self):
        super().__init__()
        self.frames = []

    def frame_at(self, t):
        for ft, jpeg in reversed(self.frames):
            if abs(ft - t) < 0.006:
                return ft, jpeg
        return self.frames[-1] if self.frames else None


def _grey(level: int) -> bytes:
    return cv2.imencode(".jpg", np.full((720, 1280, 3), level, np.uint8))[1].tobytes()


def test_recorder_takes_the_very_frame_even_when_newer_ones_came(tmp_path):
    store = EvidenceStore(tmp_path / "ev")
    s = _RingSession()
    s.frames = [(t, _grey(40 * t)) for t in (1.0, 2.0, 3.0, 4.0, 5.0)]      # the recorder is behind
    rec = EvidenceRecorder(s, store, lambda: 1)
    s.q.put(ev("meld_laid", t=3.0, hand_no=4))
    s.q.put(ev("meld_laid", t=9.0, hand_no=4, seat=1, player="Beto"))      # its frame never comes
    rec.close()                                       # keeps what was queued: no waiting at the end
    pics = store.pictures(1)
    assert [p["t"] for p in pics] == [3.0, 9.0]
    img = cv2.imread(str(store.path_of(pics[0]["id"])))
    assert abs(float(img.mean()) - 120) < 4            # the frame of t=3, not the newest (t=5)
    img = cv2.imread(str(store.path_of(pics[1]["id"])))
    assert abs(float(img.mean()) - 200) < 4            # no frame of its time: the newest
