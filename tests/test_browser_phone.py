"""The phone as the camera, in a real browser: ``tableref serve --https --source phone`` and
Debian's Chromium with a fake camera playing the demo clip.

The fake camera is Chromium's own (``--use-fake-device-for-media-stream
--use-file-for-fake-video-capture=``) playing a Y4M clip made from the built-in demo video at
test time. The "phone" opens ``/camera`` over HTTPS (the self-signed certificate is ignored in
this test only), logs in as the host and sends frames; a viewer's table page then shows the
demo's melds read through the phone path, the scoreboard links each hand's evidence picture,
unauthenticated and bad uploads are refused without stopping the session, and a phone that stops
sending shows "camera lost" until it sends again.

``TABLEREF_SCREENSHOTS=folder`` also saves the screenshots used in the README.
"""
from __future__ import annotations

import json
import os
import socket
import ssl
import time
import urllib.request
from pathlib import Path

import cv2
import numpy as np
import pytest

from serving import running_server

from test_browser import CHROMIUM, CHROMIUM_ARGS, _need, _need_browser

ROOT = Path(__file__).resolve().parents[1]
PIN = "864200"
PLAYERS = "Ana,Beto,Cris,Dani"


def make_y4m(video: Path, out: Path, size=(1280, 720)) -> int:
    """The demo video as an uncompressed Y4M clip (4:2:0, its own frame rate) for Chromium's fake camera."""
    cap = cv2.VideoCapture(str(video))
    fps = cap.get(cv2.CAP_PROP_FPS) or 6.0
    n = 0
    with open(out, "wb") as fh:
        fh.write(f"YUV4MPEG2 W{size[0]} H{size[1]} F{round(fps * 1000)}:1000 Ip A1:1 C420jpeg\n".encode())
        while True:
            ok, img = cap.read()
            if not ok:
                break
            if (img.shape[1], img.shape[0]) != size:
                img = cv2.resize(img, size, interpolation=cv2.INTER_AREA)
            fh.write(b"FRAME\n" + cv2.cvtColor(img, cv2.COLOR_BGR2YUV_I420).tobytes())
            n += 1
    cap.release()
    return n


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _insecure() -> ssl.SSLContext:
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE          # the test only: the certificate is self-signed
    return ctx


def _get(base: str, path: str):
    try:
        with urllib.request.urlopen(base + path, context=_insecure(), timeout=10) as r:
            return r.status, r.read(), r.headers.get("Content-Type", "")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), exc.headers.get("Content-Type", "")


@pytest.fixture(scope="module")
def phone_server(tmp_path_factory):
    _need_browser()
    video = ROOT / "tableref" / "demo" / "desmoche.mp4"
    _need(video.exists(), "the built-in demo clip (tableref/demo/desmoche.mp4) is missing")
    tmp = tmp_path_factory.mktemp("phone")
    clip = tmp / "demo.y4m"
    assert make_y4m(video, clip) > 100
    truth = json.loads((ROOT / "tableref" / "demo" / "desmoche.json").read_text())["truth"]
    port = _free_port()
    args = ["--https", "--host", "127.0.0.1", "--port", str(port), "--db", str(tmp / "ledger.sqlite3"), "--pin", PIN,
            "--source", "phone", "--players", PLAYERS]
    base = f"https://127.0.0.1:{port}"
    with running_server(args, lambda: _get(base, "/api/state")[0] == 200, timeout=90,
                        what="tableref serve --https", env={"XDG_DATA_HOME": str(tmp / "data")}):
        yield base, clip, truth, tmp


def _table(base):
    return json.loads(_get(base, "/api/state")[1])


def test_phone_camera_over_https_reads_the_demo_and_keeps_evidence(phone_server):
    from playwright.sync_api import sync_playwright

    base, clip, truth, tmp = phone_server
    shots = os.environ.get("TABLEREF_SCREENSHOTS")
    truth_melds = {tuple(m) for ms in truth["melds"].values() for m in ms}
    args = CHROMIUM_ARGS + ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
                            f"--use-file-for-fake-video-capture={clip}"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=args)
        try:
            phone_ctx = browser.new_context(ignore_https_errors=True, viewport={"width": 412, "height": 915},
                                            permissions=["camera"])
            phone = phone_ctx.new_page()
            errors: list[str] = []
            phone.on("pageerror", lambda e: errors.append(str(e)))
            phone.goto(base + "/camera")
            assert phone.locator("#camera-host-only").is_visible()
            assert phone.evaluate("window.isSecureContext") is True

            # Not the host: uploads are refused (no CSRF token: 403; a viewer's token: 401).
            status = phone.evaluate("""async () => (await fetch('/api/camera/frame', {method: 'POST',
                headers: {'Content-Type': 'image/jpeg'}, body: new Uint8Array([255, 216, 255, 217])})).status""")
            assert status == 403
            status = phone.evaluate("""async () => (await fetch('/api/camera/frame', {method: 'POST',
                headers: {'Content-Type': 'image/jpeg', 'X-CSRF-Token': document.querySelector(
                'meta[name="csrf-token"]').content}, body: new Uint8Array([255, 216, 255, 217])})).status""")
            assert status == 401
            assert _table(base)["table"]["camera"]["status"] != "ok"

            # The host logs in on the phone; the camera page starts the camera and sends frames.
            phone.click("#login-open")
            phone.fill("#login-pin", PIN)
            phone.click("#login-submit")
            phone.wait_for_selector("body[data-host='yes']")
            phone.wait_for_selector("body[data-phone-state='camera_sending']", timeout=60_000)
            assert phone.evaluate("document.getElementById('cam-video').videoWidth") == 1280

            # Bad uploads from the host get a clear error and do not stop the camera.
            bad = phone.evaluate("""async () => {
                const h = {'X-CSRF-Token': document.querySelector('meta[name="csrf-token"]').content};
                const send = async (type, body) => {
                    const r = await fetch('/api/camera/frame', {method: 'POST',
                        headers: {...h, 'Content-Type': type}, body});
                    return [r.status, (await r.json()).error]; };
                return [await send('image/jpeg', new TextEncoder().encode('not a picture at all')),
                        await send('image/jpeg', new Uint8Array(4 * 1024 * 1024)),
                        await send('text/plain', 'hello')]; }""")
            codes = [b[0] for b in bad]
            assert set(codes) <= {400, 413, 415, 429} and 413 in codes and 415 in codes, bad
            assert any("not a JPEG" in (b[1] or "") or "too fast" in (b[1] or "") for b in bad), bad

            # A viewer's table page shows the demo's melds, read through the phone.
            viewer_ctx = browser.new_context(ignore_https_errors=True, viewport={"width": 412, "height": 915})
            viewer = viewer_ctx.new_page()
            viewer.on("pageerror", lambda e: errors.append(str(e)))
            viewer.goto(base + "/")
            viewer.wait_for_selector(".seat .meld .card", timeout=120_000)
            viewer.wait_for_selector("#cam-status.cam-ok", timeout=30_000)
            cam = _table(base)["table"]["camera"]
            assert cam["source"] == "phone" and cam["fps"] > 0, cam
            assert "fps" in viewer.inner_text("#cam-detail")
            assert phone.is_hidden("#phone-picture")          # the demo's picture is sharp: nothing to fix
            # the annotated video of the table comes over HTTPS too (cheroot streams it)
            viewer.wait_for_function("document.getElementById('video').naturalWidth >= 640", timeout=30_000)

            def read_melds():
                st = _table(base)["table"]
                return {tuple(m["cards"]) for s in st["seats"] for m in s["melds"]}

            deadline = time.time() + 90
            while time.time() < deadline and len(read_melds() & truth_melds) < 3:
                time.sleep(1.0)
            melds = read_melds()
            assert len(melds & truth_melds) >= 3, (melds, truth_melds)
            shown = set(viewer.locator(".seat .meld .card").evaluate_all("els => els.map(e => e.dataset.card)"))
            assert shown & {c for m in truth_melds for c in m}

            # Served on 127.0.0.1 only: no QR code a phone could not open, but how to serve for phones.
            assert viewer.locator("#join img").count() == 0
            assert "--host 0.0.0.0" in viewer.inner_text("#join-local")
            if shots:
                phone.screenshot(path=str(Path(shots) / "camera-page.png"),
                                 clip={"x": 0, "y": 0, "width": 412, "height": 540})
                viewer.screenshot(path=str(Path(shots) / "table-phone.png"))

            # The hand ends (by itself, or the host confirms what the table shows); its pictures are kept.
            deadline = time.time() + 45
            ledger = {"hands": []}
            while time.time() < deadline and not ledger["hands"]:
                ledger = json.loads(_get(base, "/api/ledger")[1])
                time.sleep(1.0)
            if not ledger["hands"]:
                r = phone.evaluate("""async () => (await fetch('/api/hand/confirm', {method: 'POST',
                    headers: {'Content-Type': 'application/json', 'X-CSRF-Token':
                    document.querySelector('meta[name="csrf-token"]').content},
                    body: JSON.stringify({confirm: true})})).status""")
                assert r == 200
                deadline = time.time() + 30
                while time.time() < deadline and not ledger["hands"]:
                    ledger = json.loads(_get(base, "/api/ledger")[1])
                    time.sleep(0.5)
            assert ledger["hands"], "no hand was recorded"
            hand = ledger["hands"][0]
            deadline = time.time() + 20
            while time.time() < deadline and not any(p["kind"] == "hand_end" for p in hand["evidence"]):
                time.sleep(0.5)
                hand = json.loads(_get(base, "/api/ledger")[1])["hands"][0]
            kinds = [p["kind"] for p in hand["evidence"]]
            assert "hand_end" in kinds and any(k in kinds for k in ("meld_laid", "meld_invalid", "out_of_order")), kinds

            viewer.goto(base + "/scoreboard")
            link = viewer.locator(f"tr.hand[data-hand-no='{hand['hand_no']}'] a.evidence-link")
            link.wait_for(timeout=15_000)
            status, body, ctype = _get(base, link.get_attribute("href"))
            assert status == 200 and ctype == "image/jpeg"
            pic = cv2.imdecode(np.frombuffer(body, np.uint8), cv2.IMREAD_COLOR)
            assert pic.shape[1] == 960
            if shots:
                (Path(shots) / "evidence.jpg").write_bytes(body)
                (Path(shots) / "evidence.json").write_text(_get(base, "/api/evidence")[1].decode())
            csv_text = _get(base, "/api/ledger.csv")[1].decode()
            assert csv_text.splitlines()[0].endswith(",evidence") and "/evidence/" in csv_text

            # The phone stops sending: "camera lost"; it starts again: the table goes on.
            viewer.goto(base + "/")
            phone.click("#camera-stop")
            viewer.wait_for_selector("#cam-status.cam-lost", timeout=20_000)
            assert "camera lost" in viewer.inner_text("#cam-status")
            analysed = _table(base)["table"]["frames_analysed"]
            phone.click("#camera-start")
            viewer.wait_for_selector("#cam-status.cam-ok", timeout=30_000)
            deadline = time.time() + 20
            while time.time() < deadline and _table(base)["table"]["frames_analysed"] <= analysed:
                time.sleep(0.5)
            assert _table(base)["table"]["frames_analysed"] > analysed
            assert not errors, errors
        finally:
            browser.close()


@pytest.mark.parametrize("status", ["soft", "ok"])
def test_the_phone_shows_what_the_table_says_of_its_picture(tmp_path, status):
    """The one holding the phone sees on the camera page what the table says of the picture it sends
    (out of focus: focus the camera or bring it closer), in the phone's language, and nothing while
    the picture is fine. The app runs in this process over a stand-in session whose camera status the
    test sets; Chromium's fake camera sends its own test pattern."""
    import threading

    from playwright.sync_api import sync_playwright
    from werkzeug.serving import make_server

    from tableref.ledger.store import Ledger
    from tableref.vision.sources import open_source
    from tableref.web.app import close_app, create_app
    from tableref.web.i18n import say_camera, translator
    from web_fake_session import FakeSession

    _need_browser()
    session = FakeSession()
    session.source, session.camera_status = "phone", status
    ledger = Ledger(tmp_path / "ledger.sqlite3")
    app = create_app(session, ledger, pin=PIN)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    src, stop = open_source("phone"), threading.Event()

    def consume():                   # the table session's side: takes the phone's frames
        while not stop.is_set():
            src.read(timeout=0.1)

    threading.Thread(target=consume, daemon=True).start()
    args = CHROMIUM_ARGS + ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=args)
            ctx = browser.new_context(viewport={"width": 412, "height": 915}, permissions=["camera"])
            phone = ctx.new_page()
            base = f"http://127.0.0.1:{server.server_port}"      # loopback: a secure context
            phone.goto(base + "/lang/es", wait_until="commit")
            phone.goto(base + "/camera")
            phone.click("#login-open")
            phone.fill("#login-pin", PIN)
            phone.click("#login-submit")
            phone.wait_for_selector("body[data-phone-state='camera_sending']", timeout=30_000)
            if status == "ok":
                time.sleep(0.5)
                assert phone.is_hidden("#phone-picture")
            else:
                phone.wait_for_selector("#phone-picture:not([hidden])", timeout=10_000)
                said = say_camera(session.camera, translator("es"))
                assert phone.inner_text("#phone-picture") == said and "desenfocada" in said
                session.camera_status = "ok"                        # focused: the notice goes
                phone.wait_for_selector("#phone-picture[hidden]", state="attached", timeout=10_000)
            browser.close()
    finally:
        stop.set()
        src.stop()
        server.shutdown()
        close_app(app)
        ledger.close()
