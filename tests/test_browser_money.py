"""The money in a real browser: ``tableref serve`` (real session, SQLite ledger) driven in headless Chromium.

The host enters a hand, changes the money per point on the setup page, enters another, confirms a
hand the referee has not decided (the page shows what will be recorded and asks; the pot carries),
and checks that the scoreboard's balances, pot and fewest transfers are exactly the per-hand money
-- the same as the JSON and the CSV, to the cent -- and that an undo from the page is reflected.

No camera is needed (the source is a phone camera that never sends a frame: the page and the
ledger work); see tests/test_browser.py for Chromium and Playwright.
"""
from __future__ import annotations

import csv
import io
import json
import time
from decimal import Decimal

import pytest

from serving import running_server

from test_browser import CHROMIUM, CHROMIUM_ARGS, _free_port, _get, _need_browser

PIN = "135790"
PLAYERS = ["Ana", "Beto", "Cris"]


@pytest.fixture(scope="module")
def money_server(tmp_path_factory):
    _need_browser()
    folder = tmp_path_factory.mktemp("browser_money")
    port = _free_port()
    args = ["--host", "127.0.0.1", "--port", str(port), "--db", str(folder / "ledger.sqlite3"), "--pin", PIN,
            "--game", "desmoche", "--players", ",".join(PLAYERS), "--point-value", "1",
            "--source", "phone"]        # a camera that sends nothing: every hand comes from the host
    with running_server(args, lambda: _get(port, "/api/state")[0] == 200):
        yield port


def _ledger(port):
    return json.loads(_get(port, "/api/ledger")[1])


def _wait(pred, what, timeout=15):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = pred()
        if value:
            return value
        time.sleep(0.2)
    pytest.fail(f"timed out waiting for {what}")


def test_point_value_change_and_settle_up_in_the_browser(money_server):
    from playwright.sync_api import sync_playwright

    port = money_server
    base = f"http://127.0.0.1:{port}"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 412, "height": 915})  # a phone
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(base + "/scoreboard")
            page.click("#login-open")
            page.fill("#login-pin", PIN)
            page.fill("#login-name", "Rosa")
            page.click("#login-submit")
            page.wait_for_selector("body[data-host='yes']")

            def enter_hand(nets, why, hand_no):
                page.goto(base + "/scoreboard")
                page.click("#manual-hand")
                for player, v in nets.items():
                    page.fill(f"#nets-fields input[data-player='{player}']", str(v))
                page.fill("#nets-why", why)
                page.click("#nets-form button[type=submit]")
                page.wait_for_selector(f"tr.hand[data-hand-no='{hand_no}']", timeout=15_000)

            # hand 1 at 1.00 a point
            enter_hand({"Ana": 6, "Beto": -2, "Cris": -4}, "camera was off", 1)
            # the host halves the money per point on the setup page
            page.goto(base + "/setup")
            page.fill("input[name=point_value]", "0.5")
            page.click("#setup-form button[type=submit]")
            page.wait_for_selector("#setup-ok:not([hidden])", timeout=15_000)
            assert _ledger(port)["point_value"] == "0.50"
            # hand 2 at 0.50 a point
            enter_hand({"Ana": -3, "Beto": 5, "Cris": -2}, "camera was off", 2)

            # hand 3: the host confirms a hand the referee has not decided: the page shows what will be
            # recorded and asks; cancelling records nothing, confirming records it (the pot carries)
            page.goto(base + "/")
            page.click("#confirm-hand")
            page.wait_for_selector("#ask-dialog[open]")
            asked = page.inner_text("#ask-dialog")
            assert "Ana -1" in asked and "Beto -1" in asked and "no winner" in asked, asked
            page.click("#ask-cancel")
            time.sleep(0.5)
            assert len(_ledger(port)["hands"]) == 2
            page.click("#confirm-hand")
            page.wait_for_selector("#ask-dialog[open]")
            page.click("#ask-ok")
            _wait(lambda: len(_ledger(port)["hands"]) == 3, "hand 3 recorded")

            # every view of the money agrees, to the cent, with each hand at its own point value
            ledger = _ledger(port)
            expect = {p: Decimal(0) for p in PLAYERS}
            for h in ledger["hands"]:
                for p, v in h["net"].items():
                    expect[p] += v * Decimal(h["point_value"])
            assert [h["point_value"] for h in ledger["hands"]] == ["1.00", "0.50", "0.50"]
            assert expect == {"Ana": Decimal("4.00"), "Beto": Decimal("0.00"), "Cris": Decimal("-5.50")}
            assert {p: Decimal(v) for p, v in ledger["money"].items()} == expect
            assert ledger["pot"]["money"] == "1.50" and ledger["pot"]["points"] == 3
            assert ledger["settle"] == {"Ana": "4.50", "Beto": "0.50", "Cris": "-5.00"}  # the pot paid back

            def shown():
                page.goto(base + "/scoreboard")
                page.wait_for_selector(f"tr.hand[data-hand-no='{len(ledger['hands'])}']", timeout=15_000)
                money = {b.get_attribute("data-player"): b.locator(".money").inner_text().strip()
                         for b in page.locator(".balance").all()}
                transfers = [(t.get_attribute("data-from"), t.get_attribute("data-to"),
                              t.locator(".money").inner_text().strip()) for t in page.locator("li.transfer").all()]
                return money, transfers

            money, transfers = shown()
            assert money == ledger["money"]
            assert transfers == [("Cris", "Ana", "4.50"), ("Cris", "Beto", "0.50")]
            assert transfers == [(t["from"], t["to"], t["money"]) for t in ledger["transfers"]]
            pot_text = page.inner_text("#pot")
            assert "1.50" in pot_text and "Ana 0.50" in pot_text and "(pot)" not in page.inner_text("#transfers")
            # the transfers pay exactly the settle-up
            paid = {p: Decimal(0) for p in PLAYERS}
            for frm, to, amount in transfers:
                paid[frm] -= Decimal(amount)
                paid[to] += Decimal(amount)
            assert paid == {p: Decimal(v) for p, v in ledger["settle"].items()}
            # the CSV says the same and sums to zero with its pot column
            rows = list(csv.reader(io.StringIO(_get(port, "/api/ledger.csv")[1].decode())))
            head = rows[0]
            cols = {name: head.index(name) for name in [*PLAYERS, "pot"]}
            money_row = next(r for r in rows if r[2] == "money")
            assert {p: money_row[cols[p]] for p in PLAYERS} == ledger["money"] and money_row[cols["pot"]] == "1.50"
            assert sum(Decimal(money_row[i]) for i in cols.values()) == 0
            at = [head.index(k) for k in ("from", "to", "amount")]
            assert [tuple(r[i] for i in at) for r in rows if r[2] == "transfer"] == transfers

            # undo from the page (the host says why): hand 3 and its pot are gone everywhere
            page.once("dialog", lambda d: d.accept("nobody played"))
            page.click("#undo-last")
            _wait(lambda: _ledger(port)["pot"]["points"] == 0, "the undo")
            ledger = _ledger(port)
            assert ledger["money"] == {"Ana": "4.50", "Beto": "0.50", "Cris": "-5.00"}
            money, transfers = shown()
            assert money == ledger["money"] and page.locator("#pot").is_hidden()
            assert transfers == [(t["from"], t["to"], t["money"]) for t in ledger["transfers"]]
            assert "nobody played" in page.inner_text("#journal")
            assert not errors, errors
        finally:
            browser.close()
