"""The QR code on the table page: it encodes the address players should open."""
from __future__ import annotations

import re

import cv2
import numpy as np
import pytest
import segno

from tableref.ledger.store import Ledger
from tableref.web.app import close_app, create_app
from web_fake_session import FakeSession


@pytest.fixture
def app(tmp_path):
    ledger = Ledger(tmp_path / "ledger.sqlite3")
    a = create_app(FakeSession(), ledger, pin="5555")
    yield a
    close_app(a)
    ledger.close()


def _decode(url: str) -> str:
    """Draw the QR code the way /join.svg does and read it back with OpenCV's QR reader."""
    qr = segno.make(url, error="m")
    m = np.array([[0 if dark else 255 for dark in row] for row in qr.matrix_iter(scale=8, border=4)], np.uint8)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(cv2.cvtColor(m, cv2.COLOR_GRAY2BGR))
    return text


def test_join_address_is_the_lan_address_not_loopback(app):
    c = app.test_client()
    page = c.get("/").get_data(as_text=True)
    assert re.search(r'id="join-url" href="http://localhost/"', page)       # nothing better known
    app.config["TABLEREF_JOIN_URL"] = "https://192.168.1.9:8000/"
    page = c.get("/", base_url="https://127.0.0.1:8000").get_data(as_text=True)
    assert 'id="join-url" href="https://192.168.1.9:8000/"' in page
    page = c.get("/", base_url="https://10.1.2.3:8000").get_data(as_text=True)
    assert 'id="join-url" href="https://10.1.2.3:8000/"' in page             # the address it was reached at
    r = c.get("/join.svg", base_url="https://127.0.0.1:8000")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml"
    import io

    buf = io.BytesIO()
    segno.make("https://192.168.1.9:8000/", error="m").save(buf, kind="svg", scale=4, border=4, dark="#000",
                                                          light="#fff", title="tableref", xmldecl=False)
    assert r.data == buf.getvalue()
    assert _decode("https://192.168.1.9:8000/") == "https://192.168.1.9:8000/"


def test_a_loopback_address_gets_no_qr_code_but_how_to_serve_for_phones(app):
    """A phone cannot open 127.0.0.1: no QR code to scan, and the page says how to serve on the network."""
    c = app.test_client()
    app.config["TABLEREF_JOIN_URL"] = "http://127.0.0.1:8000/"          # tableref serve --host 127.0.0.1
    page = c.get("/", base_url="http://127.0.0.1:8000").get_data(as_text=True)
    assert 'src="/join.svg"' not in page and '<p class="hint">Scan to open' not in page
    assert 'id="join-local"' in page and "tableref serve --host 0.0.0.0" in page
    page = c.get("/", base_url="http://127.0.0.1:8000", headers={"Accept-Language": "es"}).get_data(as_text=True)
    assert "solo se abre en este ordenador" in page
    app.config["TABLEREF_JOIN_URL"] = "http://192.168.1.9:8000/"         # --host 0.0.0.0: the LAN address
    page = c.get("/", base_url="http://127.0.0.1:8000").get_data(as_text=True)
    assert 'src="/join.svg"' in page and 'id="join-local"' not in page
