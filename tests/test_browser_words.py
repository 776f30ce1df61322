"""The page's small words, as a newcomer reads them in Chromium, in English, Spanish and Nepali: a Marriage
meld is "checked at the count" (not "…" for good), a hand's money per point, a hand's pictures and the
frames the camera skipped are said in words, the journal's own words are translated, and a lost camera
is not said twice.

Serves the real web app (a real table session, no camera) from a thread; needs Chromium and playwright
like tests/test_browser.py (skipped without them, failed under CI).
"""
from __future__ import annotations

import threading

import pytest

from test_browser import _need_browser, browser  # noqa: F401 (browser: the fixture)

from tableref.ledger.store import Ledger
from tableref.live.session import TableSession
from tableref.web.app import close_app, create_app

WORDS = {  # language: (checked at the count, money per point, pictures, frames skipped, the journal's referee)
    "en": ("checked at the count", "at 0.50 a point", "3 pictures", "29 frames skipped to keep up", "referee"),
    "es": ("se comprueba en el recuento", "a 0.50 el punto", "3 imágenes", "29 imágenes saltadas", "árbitro"),
    "ne": ("गन्तीमा जाँचिन्छ", "प्रति अंक 0.50", "3 तस्बिर", "29 फ्रेम छोडिए", "रेफ्री"),
}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    _need_browser()
    from werkzeug.serving import make_server

    tmp = tmp_path_factory.mktemp("words")
    session = TableSession(source="unused", game="marriage", players=["Ana", "Beto", "Cris"])
    ledger = Ledger(tmp / "l.sqlite3")
    app = create_app(session, ledger, pin="135790")
    sid = ledger.current_session()
    ledger.record_setup(sid, {**ledger.setup(sid), "point_value": 0.5}, why="setup")
    ledger.commit_hand(sid, {"game": "marriage", "winner": "Ana", "net": {"Ana": 4, "Beto": -2, "Cris": -2}})
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_port}"
    srv.shutdown()
    close_app(app)
    ledger.close()


@pytest.mark.parametrize("code", list(WORDS))
def test_the_small_words_are_words(served, browser, code):
    at_count, per_point, pictures, skipped, referee = WORDS[code]
    ctx = browser.new_context(locale=code, extra_http_headers={"Accept-Language": code})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(served + "/")
        meld = page.evaluate("""() => meldNode({cards: ["5H", "5H", "5H"], track_ids: [1, 2, 3], valid: null,
                                                checked: "at_count"}).querySelector('.mark').title""")
        assert meld == at_count
        bar = page.evaluate("""() => { renderLive({table: {camera: {status: "lost", message: "no picture",
                                          say: "x", dropped: 29}, seats: []}});
                                       return [document.querySelector('#cam-status').textContent,
                                               document.querySelector('#cam-detail').textContent]; }""")
        assert skipped in bar[1] and "dropped" not in bar[1]
        link = page.evaluate("""() => evidenceLink([{kind: "meld_laid", url: "/a"}, {kind: "meld_laid", url: "/b"},
                                                    {kind: "hand_end", url: "/c"}]).textContent""")
        assert link == "📷 " + pictures
        page.goto(served + "/scoreboard")
        page.wait_for_selector("tr.hand")
        row = page.inner_text("tr.hand td:first-child")
        assert per_point in row and "×" not in row, row
        journal = page.inner_text("#journal")
        assert referee in journal and (code == "en" or "referee" not in journal), journal
        assert not errors, errors
    finally:
        ctx.close()


def test_a_lost_camera_is_said_once():
    """The badge says "camera lost"; the detail under it does not say it again (in any language)."""
    import json
    from pathlib import Path

    from tableref.vision.sources import PushSource

    folder = Path(__file__).resolve().parents[1] / "web" / "i18n"
    for code in WORDS:
        strings = json.loads((folder / f"{code}.json").read_text(encoding="utf-8"))
        assert not strings["cam_say_lost"].startswith(strings["cam_lost"]), code
    src = PushSource(lost_after=0.0)
    status = src._silence(1.0)
    assert status[0] == "lost" and not status[1].startswith("camera lost")


def test_a_new_seat_gets_the_default_names(served, browser):
    """The setup page names a seat the host adds as the server would (Dani, Eva), not "Seat 4"."""
    page = browser.new_page()
    try:
        page.goto(served + "/setup")
        names = page.evaluate("""() => { const n = document.querySelector('#seats-n'); n.value = 5;
                                         n.dispatchEvent(new Event('input'));
                                         return [...document.querySelectorAll('#players input')].map((x) => x.value); }""")
        assert names == ["Ana", "Beto", "Cris", "Dani", "Eva"], names
    finally:
        page.close()
