"""The Table page and the Scoreboard in a real browser: the running score, Next hand, the table speaking,
the chart of the evening and the totals across sessions.

The web app runs in this process over a real :class:`TableSession` (no camera: the test feeds it
the tables the camera would see) and a SQLite ledger; headless Chromium drives the pages. The
browser's speech is replaced by a recorder (headless Chromium has no voices), with the voices a
device would offer. Any page error fails the test (tests/conftest.py).
"""
from __future__ import annotations

import json
import re
import time

import pytest

from tableref.live.events import TableState
from tableref.web.i18n import say_event, translator

from test_browser_count import browser, log_in, served_table  # noqa: F401 - the shared browser fixture
from test_browser_money import _wait

P3 = ["Ana", "Beto", "Cris"]
ANA_WINS = [["3H", "4H", "5H", "6H"], ["7S", "7D", "7C"], ["JD", "QD", "KD"]]
SPEECH = """(voices) => {
  window.__spoken = [];
  window.SpeechSynthesisUtterance = class {
    constructor(text) { this.text = text; this.lang = ""; this.voice = null; }
  };
  const synth = { getVoices: () => voices, speak: (u) => window.__spoken.push({ text: u.text, lang: u.lang }),
                  addEventListener: () => {}, cancel: () => {} };
  Object.defineProperty(window, "speechSynthesis", { value: synth, configurable: true });
}"""


def S(seats, centre=(), t=0.0):
    return TableState.from_labels(seats, list(centre), t)


def _page(browser, base, lang, voices=None, host=True, size=(412, 915)):  # noqa: F811
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    if voices is not None:
        page.add_init_script(f"({SPEECH})({json.dumps(voices)})")
    page.goto(f"{base}/lang/{lang}", wait_until="commit")
    page.goto(base + "/", wait_until="commit")
    if host:
        log_in(page)
    page.wait_for_selector("#run-balances .run-balance")
    return page


def test_running_score_next_hand_chart_and_totals(tmp_path, browser):  # noqa: F811
    with served_table(tmp_path, P3, game="desmoche") as (base, session, ledger, service):
        old = ledger.current_session()
        ledger.commit_hand(old, {"type": "hand_end", "game": "desmoche", "winner": "Cris",
                                 "net": {"Ana": -1, "Beto": -1, "Cris": 2}, "items": []}, who="test")
        session_id = service.new_session(why="another evening")
        page = _page(browser, base, "en")
        # a hand on this session's table: the Table page shows each player's running balance, exactly
        session.feed_state(S([ANA_WINS, [["9C", "10C", "JC"]], []], t=1.0))
        hand = _wait(lambda: ledger.hands(session_id), "the hand to be recorded")[0]
        money = ledger.money(session_id)
        page.wait_for_selector("#run-balances .run-balance[data-player='Ana'].pos", timeout=10_000)
        for p in P3:
            chip = page.locator(f"#run-balances .run-balance[data-player='{p}']")
            assert chip.locator(".points").inner_text() == f"{hand['net'][p]:+d}".replace("+0", "0")
            assert chip.locator(".money").inner_text() == money[p]
        # the hand is over: the page says when the next begins; the host starts it now
        page.wait_for_selector("#next-hand:not([hidden])")
        assert "1.5 s" in page.inner_text("#next-hand")
        page.click("#next-hand-button")
        page.wait_for_selector("#ask-dialog[open]")
        assert "hand 2" in page.inner_text("#ask-dialog h2").lower()
        page.click("#ask-ok")
        page.wait_for_selector("#next-hand", state="hidden", timeout=10_000)
        assert session.snapshot()["hand_no"] == 2
        entry = [e for e in ledger.entries(session_id) if e["kind"] == "next_hand"]
        assert len(entry) == 1 and entry[0]["payload"]["previous_decided"] is True and entry[0]["who"] == "host"
        page.wait_for_selector(".event-log li:has-text('the host started hand 2')", timeout=10_000)

        # the Scoreboard: the chart, one line per player, the exact money written beside it; totals
        page.goto(base + "/scoreboard", wait_until="commit")
        page.wait_for_selector("#chart svg polyline")
        assert page.locator("#chart svg polyline").count() == len(P3)
        legend = {li.get_attribute("data-player"): li.locator(".money").inner_text()
                  for li in page.locator("#chart .legend li").all()}
        assert legend == money
        page.wait_for_selector("#totals tbody tr")
        rows = {r.get_attribute("data-player"): r for r in page.locator("#totals tbody tr").all()}
        totals = {t["player"]: t for t in ledger.player_totals()}
        for p in P3:
            assert rows[p].locator(".hands-played").inner_text() == "2"
            assert rows[p].locator(".net .money").inner_text() == totals[p]["money"]
        assert [rows[p].locator(".hands-won").inner_text() for p in P3] == ["1", "0", "1"]
        assert "next hand" in page.inner_text("#journal")


@pytest.mark.parametrize("lang,voice", [("es", "es-ES"), ("ne", "ne-NP")])
def test_the_table_speaks_each_verdict_and_the_winner_in_the_page_language(tmp_path, browser,  # noqa: F811
                                                                           lang, voice):
    with served_table(tmp_path, P3, game="desmoche") as (base, session, ledger, service):
        page = _page(browser, base, lang, voices=[{"lang": "en-US", "name": "en"}, {"lang": voice, "name": lang}],
                     host=False)
        session.feed_state(S([[["3H", "4H", "5H"]], [], []], t=0.5))        # before the switch: said to nobody
        page.wait_for_selector(".meld.valid")
        page.check("#speak")
        assert page.is_hidden("#speak-no-voice")
        session.feed_state(S([[["3H", "4H", "5H"]], [["QS", "KS", "2S"]], []], t=1.0))       # an invalid meld
        session.feed_state(S([ANA_WINS, [["QS", "KS", "2S"]], []], t=2.0))                  # Ana wins
        end = session.results[-1]
        said_end = say_event(end, translator(lang))
        spoken = _wait(lambda: page.evaluate("window.__spoken.length >= 2 && window.__spoken"), "the speech")
        texts = [s["text"] for s in spoken]
        invalid = [e for e in session.snapshot()["events"] if e["type"] == "meld_invalid"]
        assert texts[0] == say_event(invalid[0], translator(lang)) and said_end in texts, texts
        assert all(s["lang"] == voice for s in spoken)
        assert re.search(r"Ana \+\d", said_end) and "Beto -" in said_end
        # remembered on this device
        page.reload(wait_until="commit")
        page.wait_for_selector("#run-balances .run-balance")
        assert page.is_checked("#speak")


def test_the_table_is_silent_without_a_voice_for_the_language(tmp_path, browser):  # noqa: F811
    with served_table(tmp_path, P3, game="desmoche") as (base, session, ledger, service):
        page = _page(browser, base, "ne", voices=[{"lang": "en-US", "name": "en"}], host=False)
        page.check("#speak")
        page.wait_for_selector("#speak-no-voice:not([hidden])")
        session.feed_state(S([ANA_WINS, [], []], t=1.0))
        page.wait_for_selector("#banner:not([hidden])", timeout=10_000)
        time.sleep(0.5)
        assert page.evaluate("window.__spoken") == []


@pytest.mark.parametrize("lang", ["en", "es", "ne"])
def test_cards_to_check_are_listed_and_the_host_settles_them_in_a_tap_or_two(tmp_path, browser,  # noqa: F811
                                                                             lang):
    """A card the camera has not read yet (its looks disagree: 5H or 5D) and a card read at two places
    of one pack (7D) hold their melds back; the page lists both under "Cards to check", with their
    seats and numbers, the unread one with what it might be, in the page's language. A viewer cannot
    touch them; the host taps the unread one and then a candidate, then one copy of the 7D and "not a
    card", and both melds are judged."""
    from test_session import _table

    with served_table(tmp_path, P3, game="desmoche") as (base, session, ledger, service):
        viewer = _page(browser, base, lang, host=False)
        session.feed_table(_table([[(1, "3H"), (2, "4H"), (3, "", ["5H", "5D"])], [(5, "6D"), (6, "7D"), (7, "8D")]],
                                  [(8, "7D")]))
        unread = viewer.locator("#check li.unread[data-track-id='3']")
        unread.wait_for(timeout=10_000)
        twice = viewer.locator("#check li.set-aside[data-card='7D']")
        words = translator(lang)
        assert words("check_title").upper() in viewer.inner_text("#check-panel").upper()
        assert "Ana" in unread.inner_text() and "5♥ / 5♦" in unread.inner_text()
        assert twice.locator(".card").evaluate_all("cs => cs.map(c => c.dataset.trackId)") == ["6", "8"]
        assert "#6" in twice.inner_text() and "#8" in twice.inner_text() and "Beto" in twice.inner_text()
        assert viewer.locator("#check .card[role=button]").count() == 0        # a viewer cannot correct
        assert viewer.locator(".meld").count() == 0                            # both melds wait

        host = _page(browser, base, lang)
        host.locator("#check .card[data-track-id='3']").click()
        host.wait_for_selector("#correct-dialog[open]")
        offered = host.locator("#correct-candidates button")
        assert offered.all_inner_texts() == ["5♥", "5♦"]
        offered.first.click()
        host.wait_for_selector(".meld .card[data-track-id='3'][data-card='5H']", timeout=10_000)
        host.wait_for_selector("#check li.unread", state="detached", timeout=10_000)
        host.locator("#check .card[data-track-id='8']").click()
        host.wait_for_selector("#correct-dialog[open]")
        assert host.is_hidden("#correct-candidates")                          # no candidates for a copy
        host.click("#correct-none")
        host.wait_for_selector(".meld .card[data-track-id='6'][data-card='7D']", timeout=10_000)
        host.wait_for_selector("#check-panel[hidden]", state="attached", timeout=10_000)
        snap = session.snapshot()
        assert snap["unread"] == [] and snap["set_aside"] == []
        assert [m["cards"] for s in snap["seats"] for m in s["melds"]] == [["3H", "4H", "5H"], ["6D", "7D", "8D"]]
        viewer.wait_for_selector("#check-panel[hidden]", state="attached", timeout=10_000)
