"""The phone camera's upload endpoint and page with the Flask test client, and the real table
session reading the phone source (camera lost and back).

The browser test (tests/test_browser_phone.py) drives the same path from a real Chromium with a
fake camera; these tests pin the refusals and the pacing without a browser.
"""
from __future__ import annotations

import threading
import time

import cv2
import numpy as np
import pytest

from tableref.ledger.store import Ledger
from tableref.vision.sources import open_source, push_source
from tableref.vision.types import FrameObservation
from tableref.web import camera as camera_mod
from tableref.web.app import close_app, create_app
from web_fake_session import FakeSession

PIN = "135790"


def _jpeg(w=1280, h=720, value=120) -> bytes:
    img = np.full((h, w, 3), value, np.uint8)
    cv2.putText(img, "table", (40, h // 2), cv2.FONT_HERSHEY_SIMPLEX, 2.0, (0, 0, 0), 3)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return buf.tobytes()


@pytest.fixture
def table(tmp_path):
    session = FakeSession()
    ledger = Ledger(tmp_path / "ledger.sqlite3")
    app = create_app(session, ledger, pin=PIN, max_streams=4)
    yield app
    close_app(app)
    ledger.close()


@pytest.fixture
def phone():
    """The phone source with a consumer taking frames at about 20 a second, like the session."""
    src = open_source("phone")
    taken = []
    stop = threading.Event()

    def consume():
        while not stop.is_set():
            f = src.read(timeout=0.1)
            if f is not None:
                taken.append(f.image.shape)
                time.sleep(0.05)

    th = threading.Thread(target=consume, daemon=True)
    th.start()
    yield src, taken
    stop.set()
    th.join(2)
    src.stop()


def _client(app):
    c = app.test_client()
    c.environ_base["REMOTE_ADDR"] = "10.0.0.7"
    return c


def _host(app):
    c = _client(app)
    tok = c.get("/api/csrf").get_json()["csrf"]
    r = c.post("/api/login", json={"pin": PIN, "name": "Rosa"}, headers={"X-CSRF-Token": tok})
    assert r.status_code == 200
    return c, r.get_json()["csrf"]


def _send(c, tok, data, ctype="image/jpeg"):
    headers = {"Content-Type": ctype}
    if tok:
        headers["X-CSRF-Token"] = tok
    return c.post("/api/camera/frame", data=data, headers=headers)


def test_uploads_without_the_host_are_refused(table, phone):
    src, taken = phone
    c = _client(table)
    assert _send(c, None, _jpeg()).status_code == 403                       # no CSRF token
    tok = c.get("/api/csrf").get_json()["csrf"]
    r = _send(c, tok, _jpeg())
    assert r.status_code == 401 and "host" in r.get_json()["error"]
    time.sleep(0.15)
    assert src.status.frames == 0 and not taken


def test_host_frames_reach_the_source_one_at_a_time(table, phone):
    src, taken = phone
    c, tok = _host(table)
    for _ in range(5):
        r = _send(c, tok, _jpeg())
        assert r.status_code == 200, r.get_json()
        body = r.get_json()
        assert body["ok"] and body["taken"] and (body["width"], body["height"]) == (1280, 720)
    assert len(taken) == 5 and taken[0] == (720, 1280, 3)
    assert src.status.dropped == 0 and r.get_json()["analysed_fps"] > 0
    # a detailed frame is larger than the app's usual request limit (256 KB): still taken
    noise = np.random.default_rng(3).integers(0, 256, (720, 1280, 3), dtype=np.uint8)
    big = cv2.imencode(".jpg", noise, [cv2.IMWRITE_JPEG_QUALITY, 80])[1].tobytes()
    assert 256 * 1024 < len(big) < camera_mod.MAX_FRAME_BYTES
    r = _send(c, tok, big)
    assert r.status_code == 200 and r.get_json()["taken"] and len(taken) == 6


@pytest.mark.parametrize("status,lang,words", [("soft", "en", "out of focus"), ("soft", "es", "desenfocada"),
                                                ("blurred", "en", "blurred"), ("ok", "en", "")])
def test_each_upload_answer_says_what_the_table_says_of_the_picture(table, phone, status, lang, words):
    """The one holding the phone hears what the table says of the picture it sends (out of focus,
    blurred, too small), in the phone's language: they can fix it there."""
    session = table.extensions["tableref"].session
    session.camera_status = status
    c, tok = _host(table)
    c.set_cookie("lang", lang)
    body = _send(c, tok, _jpeg()).get_json()
    assert body["picture"]["status"] == status
    assert words in body["picture"]["say"] and body["picture"]["say"]


@pytest.mark.parametrize("data,ctype,status,words", [
    (b"GIF89a not a jpeg at all", "image/jpeg", 400, "not a JPEG"),
    (b"\xff\xd8\xff\xe0" + b"\x00" * 400, "image/jpeg", 400, "damaged"),
    (_jpeg(), "image/png", 415, "image/jpeg"),
    (_jpeg(100, 80), "image/jpeg", 400, "100x80"),
])
def test_bad_frames_get_a_clear_error_and_the_session_goes_on(table, phone, data, ctype, status, words):
    src, taken = phone
    c, tok = _host(table)
    r = _send(c, tok, data, ctype)
    assert r.status_code == status and words in r.get_json()["error"]
    r = _send(c, tok, _jpeg())                     # the next good frame goes through
    assert r.status_code == 200 and r.get_json()["refused"] == 1
    assert len(taken) == 1


def test_too_large_and_too_fast(table, phone, monkeypatch):
    src, taken = phone
    c, tok = _host(table)
    big = b"\xff\xd8\xff" + b"\x00" * (camera_mod.MAX_FRAME_BYTES + 10)
    r = _send(c, tok, big)
    assert r.status_code == 413 and "too large" in r.get_json()["error"]
    monkeypatch.setattr(camera_mod, "MAX_PER_SECOND", 2)
    assert _send(c, tok, _jpeg()).status_code == 200
    assert _send(c, tok, _jpeg()).status_code == 200      # back to back is fine: each was taken
    r = _send(c, tok, _jpeg())
    assert r.status_code == 429 and "too fast" in r.get_json()["error"] and r.get_json()["retry_after_ms"] > 0
    time.sleep(r.get_json()["retry_after_ms"] / 1000)
    # a second page sending while a frame is still being taken
    state = table.extensions["tableref_camera"]
    state.busy.acquire()
    try:
        monkeypatch.setattr(camera_mod, "MAX_PER_SECOND", 30)
        r = _send(c, tok, _jpeg())
        assert r.status_code == 429 and "one frame at a time" in r.get_json()["error"]
    finally:
        state.busy.release()
    assert _send(c, tok, _jpeg()).status_code == 200
    assert len(taken) == 3


def test_upload_when_the_table_camera_is_not_the_phone(table):
    src = push_source("phone")
    if src is not None:
        src.stop()
    c, tok = _host(table)
    r = _send(c, tok, _jpeg())
    assert r.status_code == 409 and "setup page" in r.get_json()["error"]
    table.extensions["tableref"].session.source = "phone"         # set up, but not reading yet
    r = _send(c, tok, _jpeg())
    assert r.status_code == 503 and "starting" in r.get_json()["error"] and r.get_json()["retry_after_ms"] > 0


def test_camera_page_and_zones(table):
    c = _client(table)
    page = c.get("/camera").get_data(as_text=True)
    assert "camera-host-only" in page and "camera.js" in page
    c, _ = _host(table)
    page = c.get("/camera").get_data(as_text=True)
    assert "camera-host-only" not in page and 'id="camera-start"' in page and 'href="/camera"' in page
    z = c.get("/api/camera/zones").get_json()
    assert len(z["seats"]) == 4 and all(0 <= x <= 1 and 0 <= y <= 1 for s in z["seats"] for x, y in s["polygon"])


class _BlankRecognizer:
    """Sees no card (this test is about the camera status, not about reading cards)."""

    def observe(self, image, t=0.0, sharpness=None, read_blurred=False):
        return FrameObservation(t=t, width=image.shape[1], height=image.shape[0], cards=[])


def _wait(pred, timeout=8.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return False


def test_table_session_reads_the_phone_shows_camera_lost_and_resumes():
    from tableref.live.session import TableSession

    s = TableSession(source="phone", game="desmoche", seats=4, recognizer=_BlankRecognizer())
    s.start()
    try:
        assert _wait(lambda: push_source("phone") is not None)
        src = push_source("phone")
        img = cv2.imdecode(np.frombuffer(_jpeg(), np.uint8), cv2.IMREAD_COLOR)
        src.lost_after = 0.5
        for _ in range(5):
            seq = src.push(image=img)
            assert src.wait_taken(seq, 3.0)
        assert _wait(lambda: s.snapshot()["camera"]["status"] == "ok")
        n = s.frames_analysed
        assert n >= 4
        assert _wait(lambda: s.snapshot()["camera"]["status"] == "lost")
        cam = s.snapshot()["camera"]
        assert cam["status"] == "lost" and cam["message"].startswith("no picture from the phone") and s.running
        for _ in range(3):
            src.wait_taken(src.push(image=img), 3.0)
        assert _wait(lambda: s.snapshot()["camera"]["status"] == "ok") and s.frames_analysed > n
        texts = [e["text"] for e in s.snapshot()["events"] if e["type"] == "camera_status"]
        assert any("lost" in t for t in texts) and texts[-1].startswith("camera ok")
    finally:
        s.stop()
    assert push_source("phone") is None
