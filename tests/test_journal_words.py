"""The journal says who did what: a hand the host ends is the host's, not the referee's, in the page's language."""
from __future__ import annotations

import json
from pathlib import Path

from tableref.ledger.store import Ledger
from tableref.live.session import TableSession
from tableref.web.app import close_app, create_app

PIN = "482913"
I18N = Path(__file__).resolve().parents[1] / "web" / "i18n"


def _host(app, name="Marta"):
    c = app.test_client()
    c.environ_base["REMOTE_ADDR"] = "10.0.0.2"
    tok = c.get("/api/csrf").get_json()["csrf"]
    r = c.post("/api/login", json={"pin": PIN, "name": name}, headers={"X-CSRF-Token": tok})
    assert r.status_code == 200, r.get_json()
    return c, r.get_json()["csrf"]


def test_a_hand_the_host_ends_is_journalled_as_the_hosts(tmp_path):
    session = TableSession(source="unused", game="desmoche", players=["Ana", "Beto", "Cris"])
    ledger = Ledger(tmp_path / "l.sqlite3")
    app = create_app(session, ledger, pin=PIN)
    try:
        c, tok = _host(app)
        r = c.post("/api/hand/confirm", json={"confirm": True, "why": "the stock ran out"},
                   headers={"X-CSRF-Token": tok})
        assert r.status_code == 200 and r.get_json()["recorded"], r.get_json()
        hand = [e for e in c.get("/api/ledger").get_json()["entries"] if e["kind"] == "hand"]
        assert [(e["who"], e["why"]) for e in hand] == [("Marta", "the stock ran out")]
        # without a reason the journal says the host ended it, in words the page translates
        session.reconfigure(players=["Ana", "Beto", "Cris"], stake=2)
        r = c.post("/api/hand/confirm", json={"confirm": True}, headers={"X-CSRF-Token": tok})
        assert r.status_code == 200
        hand = [e for e in c.get("/api/ledger").get_json()["entries"] if e["kind"] == "hand"]
        assert (hand[-1]["who"], hand[-1]["why"]) == ("Marta", "ended by the host")
    finally:
        close_app(app)
        ledger.close()


def test_the_journals_own_words_are_in_every_language():
    """Every word the program writes in the journal has its string in en, es and ne (Nepali in Devanagari)."""
    from tableref.table import service

    words = ["referee", "host", "started", "first start", "changed on the command line", "camera misread", "setup",
             service.ENDED_BY_HOST]
    for code in ("en", "es", "ne"):
        strings = json.loads((I18N / f"{code}.json").read_text(encoding="utf-8"))
        missing = [w for w in words if "journal_" + w.replace(" ", "_") not in strings]
        assert not missing, (code, missing)
    ne = json.loads((I18N / "ne.json").read_text(encoding="utf-8"))
    assert all(any("\u0900" <= ch <= "\u097f" for ch in ne["journal_" + w.replace(" ", "_")]) for w in words)
