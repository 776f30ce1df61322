"""Evidence pictures through the web app: linked from the event list, the scoreboard's hands
and the CSV/JSON exports; a recorded hand never waits for (or depends on) its picture."""
from __future__ import annotations

import csv
import io
import time

import cv2
import numpy as np
import pytest

from tableref.ledger.evidence import EvidenceStore
from tableref.ledger.store import Ledger
from tableref.web.app import close_app, create_app
from web_fake_session import FakeSession


class FramedSession(FakeSession):
    """The fake session with the live session's newest annotated frame."""

    def __init__(self):
        super().__init__()
        img = np.full((720, 1280, 3), 60, np.uint8)
        cv2.rectangle(img, (100, 100), (300, 400), (60, 200, 60), 3)
        self.frame = (10.0, cv2.imencode(".jpg", img)[1].tobytes())

    def frame_at(self, t):
        return self.frame


@pytest.fixture
def table(tmp_path):
    session = FramedSession()
    ledger = Ledger(tmp_path / "ledger.sqlite3")
    store = EvidenceStore.for_ledger(ledger.path, keep_hands=200)
    app = create_app(session, ledger, pin="2468", evidence=store)
    yield app, session, ledger, store
    close_app(app)
    store.close()
    ledger.close()


def _wait(pred, timeout=8.0):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.05)
    return False


def test_verdict_pictures_are_linked_everywhere(table):
    app, session, ledger, store = table
    c = app.test_client()
    session.emit({"type": "meld_laid", "t": 10.0, "hand_no": 1, "seat": 0, "player": "Ana", "text": "Ana lays 3H 4H 5H"})
    session.emit({"type": "camera_status", "t": 10.0, "hand_no": 1, "seat": None, "text": "camera ok"})
    result = {"type": "hand_end", "t": 10.0, "hand_no": 1, "game": "desmoche", "winner": "Ana", "seat": None,
              "net": {"Ana": 6, "Beto": -2, "Cris": -2, "Dani": -2}, "items": [], "details": {},
              "text": "hand 1: Ana wins"}
    session.decide(result)
    assert ledger.hand_count(app.extensions["tableref"].session_id) == 1       # recorded at once
    assert _wait(lambda: len(store.pictures(app.extensions["tableref"].session_id)) == 2)

    state = c.get("/api/state").get_json()
    kinds = {(p["kind"], p["t"], p["seat"]) for p in state["evidence"]}
    assert kinds == {("meld_laid", 10.0, 0), ("hand_end", 10.0, None)}
    led = c.get("/api/ledger").get_json()
    pics = led["hands"][0]["evidence"]
    assert [p["kind"] for p in pics] == ["meld_laid", "hand_end"]
    r = c.get(pics[-1]["url"])
    assert r.status_code == 200 and r.mimetype == "image/jpeg"
    img = cv2.imdecode(np.frombuffer(r.data, np.uint8), cv2.IMREAD_COLOR)
    assert img.shape == (540, 960, 3)
    rows = list(csv.reader(io.StringIO(c.get("/api/ledger.csv").get_data(as_text=True))))
    assert rows[0][-1] == "evidence"
    hand_row = next(r for r in rows[1:] if r[rows[0].index("kind")] == "hand")
    assert hand_row[-1] == "http://localhost" + pics[-1]["url"]
    assert all(r[-1] == "" for r in rows[1:] if r is not hand_row)
    listing = c.get("/api/evidence").get_json()
    assert listing["keep_hands"] == 200 and len(listing["hands"]["1"]) == 2
    missing = c.get("/evidence/9999.jpg")
    assert missing.status_code == 404 and "last 200 hands" in missing.get_json()["error"]


def test_a_broken_picture_store_never_stops_a_hand_being_recorded(table):
    app, session, ledger, store = table
    store._db.close()                       # the index is gone (disk trouble)
    result = {"type": "hand_end", "t": 10.0, "hand_no": 1, "game": "desmoche", "winner": "Beto",
              "net": {"Ana": -2, "Beto": 6, "Cris": -2, "Dani": -2}, "items": [], "details": {}, "text": "x"}
    session.decide(result)
    sid = app.extensions["tableref"].session_id
    assert ledger.hand_count(sid) == 1
    rec = app.extensions["tableref_evidence_recorder"]
    assert _wait(lambda: rec.missed == 1)
    led = app.test_client().get("/api/ledger").get_json()
    assert led["hands"][0]["winner"] == "Beto" and led["hands"][0]["evidence"] == []
