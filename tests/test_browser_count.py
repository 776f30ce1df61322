"""The Marriage Count page in a real browser: the host settles a hand with scanned and host-entered seats.

The web app runs in this process over a real :class:`TableSession` (no camera: the test feeds it
the table the camera would see) and a SQLite ledger; headless Chromium drives the page as a host
would, in English, Spanish and Nepali: tiplu, maal for the seats the camera cannot count, who has
seen the joker, the winner, Settle, the preview, confirm -- and the hand is in the ledger with
exactly the nets the referee computes. Any page error fails the test (tests/conftest.py).
See tests/test_browser.py for Chromium and Playwright.
"""
from __future__ import annotations

import contextlib
import threading

import pytest
from werkzeug.serving import make_server

from tableref.ledger.store import Ledger
from tableref.live.events import TableState
from tableref.live.session import TableSession
from tableref.simulate.bots import play_marriage
from tableref.web.app import close_app, create_app

from test_browser import CHROMIUM, CHROMIUM_ARGS, _need_browser

PIN = "555666"


@contextlib.contextmanager
def served_table(tmp_path, players, game="marriage"):
    """A real table session (no camera) and ledger behind the real app, on a free loopback port."""
    session = TableSession(source="unused", game=game, players=players)
    ledger = Ledger(tmp_path / "ledger.sqlite3")
    app = create_app(session, ledger, pin=PIN)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", session, ledger, app.extensions["tableref"].service
    finally:
        server.shutdown()
        close_app(app)
        ledger.close()


@pytest.fixture(scope="module")
def browser():
    _need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def log_in(page) -> None:
    """Log in as the host from the page's own dialog (once the page's script has bound its buttons)."""
    page.wait_for_load_state("load")
    page.click("#login-open")
    page.wait_for_selector("#login-pin", state="visible")
    page.fill("#login-pin", PIN)
    page.click("#login-submit")
    page.wait_for_selector("body[data-host='yes']")


def _host_page(browser, base, lang):
    page = browser.new_page(viewport={"width": 412, "height": 915})   # a phone
    page.goto(f"{base}/lang/{lang}", wait_until="commit")
    page.goto(f"{base}/count")
    log_in(page)
    page.wait_for_selector("#count-seats > article[data-player]")
    return page


def _seat(page, player):
    return page.locator(f"#count-seats > article[data-player='{player}']")


def _settle(page, seen: dict[str, bool], winner: str) -> list[str]:
    """Tick who has seen the joker, pick the winner, Settle; returns the preview's lines, then confirms."""
    for player, was_seen in seen.items():
        _seat(page, player).locator(".seen").set_checked(was_seen)
    _seat(page, winner).locator(".winner-pick").check()
    page.click("#settle")
    page.wait_for_selector("#ask-dialog[open]", timeout=10_000)
    lines = page.locator("#ask-dialog .ask-lines li").all_inner_texts()
    page.click("#ask-ok")
    return lines


def _recorded(ledger, timeout=10.0):
    import time

    deadline = time.time() + timeout
    while time.time() < deadline:
        hands = ledger.hands(ledger.current_session())
        if hands:
            return hands
        time.sleep(0.1)
    pytest.fail("no hand was recorded")


def test_count_page_settles_a_hand_entered_by_the_host(tmp_path, browser):
    """No seat scanned (an empty table): tiplu JC, maal 10 / 3 / 0, Ana and Beto have seen, Ana wins."""
    with served_table(tmp_path, ["Ana", "Beto", "Cris"]) as (base, session, ledger, _):
        page = _host_page(browser, base, "en")
        page.fill("#tiplu", "JC")
        for player, maal in {"Ana": 10, "Beto": 3, "Cris": 0}.items():
            _seat(page, player).locator(".host-maal").fill(str(maal))
        lines = _settle(page, {"Ana": True, "Beto": True, "Cris": False}, "Ana")
        assert any("Ana" in x and "+30" in x for x in lines), lines
        assert "pays Beto → Ana 7" in lines and "pays Cris → Ana 23" in lines, lines   # who pays whom, unsigned
        hand = _recorded(ledger)[0]
        assert hand["net"] == {"Ana": 30, "Beto": -7, "Cris": -23} and hand["winner"] == "Ana"
        assert hand["result"]["details"]["maal_entered_by_host"] == {"Ana": 10, "Beto": 3, "Cris": 0}
        # the page shows the settled result at once, from the live state
        page.wait_for_selector("#count-result:not([hidden]) .balance[data-player='Ana']", timeout=10_000)
        assert page.inner_text("#count-result .balance[data-player='Cris'] b") == "-23"


@pytest.mark.parametrize("lang", ["es", "ne"])
def test_count_page_settles_scanned_and_host_entered_seats_and_updates_live(tmp_path, browser, lang):
    """Ana's hand is scanned when the page opens, Beto's while the host types; Cris's and Dani's maal
    are entered by the host. The page keeps updating (and keeps what the host typed)."""
    sc = play_marriage(7)
    last = sc.keyframes[-1].table
    ana, beto = sc.players.index("Ana"), sc.players.index("Beto")
    only = lambda *seats: [last[i] if i in seats else [] for i in range(len(sc.players))]  # noqa: E731
    with served_table(tmp_path, sc.players) as (base, session, ledger, _):
        tiplu = [sc.truth["tiplu"]]          # the camera reads the tiplu in the centre
        session.feed_state(TableState.from_labels(only(ana), tiplu, 1.0))
        page = _host_page(browser, base, lang)
        _seat(page, "Ana").locator(".maal-points").wait_for(timeout=10_000)
        assert _seat(page, "Ana").locator(".host-maal").count() == 0        # counted by the camera
        assert page.input_value("#tiplu") == sc.truth["tiplu"]
        _seat(page, "Dani").locator(".host-maal").fill(str(sc.truth["maal"]["Dani"]))
        # Beto lays his hand down: the page counts it live, and Dani's maal stays as typed
        session.feed_state(TableState.from_labels(only(ana, beto), tiplu, 2.0))
        _seat(page, "Beto").locator(".maal-points").wait_for(timeout=10_000)
        assert page.inner_text("#count-seats > article[data-player='Beto'] .maal-points") == \
            str(sc.truth["maal"]["Beto"])
        assert _seat(page, "Dani").locator(".host-maal").input_value() == str(sc.truth["maal"]["Dani"])
        _seat(page, "Cris").locator(".host-maal").fill(str(sc.truth["maal"]["Cris"]))
        lines = _settle(page, {p: sc.truth["seen"][p] for p in ("Cris", "Dani")}, sc.truth["winner"])
        assert len(lines) >= 2, lines
        hand = _recorded(ledger)[0]
        assert hand["net"] == sc.truth["net"] and hand["winner"] == sc.truth["winner"]
        assert hand["result"]["maal"] == sc.truth["maal"]
        assert hand["result"]["details"]["maal_entered_by_host"] == {p: sc.truth["maal"][p] for p in ("Cris", "Dani")}
        page.wait_for_selector("#count-result:not([hidden])", timeout=10_000)
        shown = {p: page.inner_text(f"#count-result .balance[data-player='{p}'] b") for p in sc.players}
        assert {p: int(v) for p, v in shown.items()} == sc.truth["net"]
