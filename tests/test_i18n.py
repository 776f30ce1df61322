"""Every string the page or the referee shows to players exists in English, Spanish and Nepali.

A key missing in a language, a template whose placeholders differ from the English one, a
referee reason, live event type, camera status or house-rule switch without its string: each
fails here. Texts are built from structured data (reason keys, event types and fields), never
by reading the English text, so a real session's snapshot is translated end to end below.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tableref.live.events import TableState
from tableref.live.session import TableSession
from tableref.web.i18n import LANGUAGES, localize_table, own_strings, placeholders, say_reason, translator
from tableref.web.setup_form import all_switches

ROOT = Path(__file__).resolve().parents[1]
EN = own_strings("en")
OTHERS = [c for c in LANGUAGES if c != "en"]
DEVANAGARI = re.compile(r"[\u0900-\u097F]")


def _source(*globs) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for g in globs for p in sorted(ROOT.glob(g)))


@pytest.mark.parametrize("code", OTHERS)
def test_every_language_has_every_key_with_the_same_placeholders(code):
    own = own_strings(code)
    missing = [k for k in EN if k not in own]
    assert not missing, f"{code}: {len(missing)} of {len(EN)} strings missing: {missing[:20]}"
    assert not [k for k in own if k not in EN], "keys English does not have"
    bad = [k for k in EN if placeholders(own[k]) != placeholders(EN[k])]
    assert not bad, f"{code}: placeholders differ from English in {bad}"
    assert all(own[k].strip() for k in EN)


def test_nepali_is_written_in_devanagari():
    ne = own_strings("ne")
    # Card codes, PINs, URLs and the like aside, every Nepali text has Devanagari letters.
    latin_only = [k for k, v in ne.items() if not DEVANAGARI.search(re.sub(r"\{\w+\}", "", v))
                  and re.search(r"[A-Za-z]{3,}", re.sub(r"\{\w+\}", "", v))]
    assert not latin_only, latin_only


def test_keys_used_by_the_pages_exist():
    js = _source("web/static/*.js")
    html = _source("web/templates/*.html")
    used = set(re.findall(r'\bT\("([a-z0-9_]+)"\)', js)) | set(re.findall(r'\bt\(["\']([a-z0-9_]+)["\']\)', html))
    assert len(used) > 60
    assert sorted(used - set(EN)) == []
    # keys built from a prefix and a value
    prefixed = {"cam_": ["ok", "connecting", "reconnecting", "stale", "lost", "ended", "error", "unknown"],
                "source_": ["demo", "webcam", "phone"],
                "cam_say_": ["ok", "connecting", "reconnecting", "stale", "lost", "ended", "error"],
                "game_": ["desmoche", "marriage"],
                "kind_": ["run", "set", "tunnela", "marriage", "pure_sequence", "triplet", "dirty_sequence",
                          "dirty_triplet", "dublee"],
                "item_": ["win", "pot", "mico", "arriba_del_palo", "color", "pays_winner", "marriage", "tunnela",
                          "tiplu", "poplu", "jhiplu", "alter"],
                "entry_": ["session_open", "setup", "hand", "hand_correction", "card_correction", "undo", "pot_return",
                           "session_close"],
                "autowin_": ["peladilla", "cuatro_cuerpos", "color"]}
    missing = [p + v for p, vs in prefixed.items() for v in vs if p + v not in EN]
    assert not missing


def test_every_referee_reason_has_a_string():
    keys = set(re.findall(r'\bReason\(\s*"([a-z0-9_]+)"', _source("referee/**/*.py")))
    assert len(keys) >= 30
    assert sorted(k for k in keys if "reason_" + k not in EN) == []


def test_every_live_event_type_has_a_string():
    src = _source("tableref/live/*.py")
    types = set(re.findall(r'\b(?:make_event|_?ev)\(\s*"([a-z_]+)"', src)) | set(re.findall(r'"type": "([a-z_]+)"', src))
    assert {"meld_laid", "card_added", "illegal_move", "hand_end", "camera_status", "maal_counted"} <= types
    special = {"hand_end": ["ev_hand_end_winner", "ev_hand_end_none"], "maal_counted": ["ev_maal_seen", "ev_maal_unseen"]}
    missing = [k for ty in types for k in special.get(ty, ["ev_" + ty]) if k not in EN]
    assert not missing


def test_every_house_rule_has_its_label_help_and_choices():
    missing = []
    for game, switches in all_switches().items():
        for s in switches:
            for key in ["rule_" + s["name"], f"rule_help_{game}_{s['name']}"] + \
                    ["choice_" + c for c in s["choices"] or []]:
                if key not in EN:
                    missing.append(key)
    assert not missing


# ------------------------------------------------------------------ a real session, translated

def S(seats, centre=(), t=0.0):
    return TableState.from_labels(seats, list(centre), t)


@pytest.fixture(scope="module")
def snapshot():
    s = TableSession(source="unused", game="desmoche", players=["Ana", "Beto", "Cris"])
    s.on_hand_end = lambda r: None
    s.feed_state(S([[["3H", "4H", "5H"]], [], []], t=1))
    s.feed_state(S([[["3H", "4H", "5H"]], [["9C", "8C", "10C"]], [["QS", "KS"]]], t=2))
    s.feed_state(S([[["3H", "4H", "5H"]], [["9C", "8C", "10C"]], [["QS", "KS", "2S"]]], t=3))
    s.feed_state(S([[["3H", "4H"]], [["9C", "8C", "10C"]], [["QS", "KS", "2S"]]], t=4))   # 5H taken back
    ana = [["3H", "4H", "5H", "6H"], ["7S", "7D", "7C"], ["JD", "QD", "KD"]]
    s.feed_state(S([ana, [["9C", "8C", "10C"]], [["QS", "KS", "2S"]]], t=5))
    return s.snapshot()


ENGLISH_WORDS = re.compile(r"\b(laid|added|needs|meld|wins|winner|hand|taken|never|order|ascending|"
                           r"consecutive|camera|receiving|starts|took|the)\b")


@pytest.mark.parametrize("code", OTHERS)
def test_a_real_hand_is_told_in_the_language(snapshot, code):
    snap = json.loads(json.dumps(localize_table(snapshot, code)))   # what /api/state sends
    types = {e["type"] for e in snap["events"]}
    assert {"meld_laid", "out_of_order", "meld_invalid", "illegal_move", "winner", "hand_end"} <= types, types
    for e in snap["events"]:
        say = e["say"]
        assert say and "{" not in say and "ev_" not in say and "reason_" not in say, e
        assert not ENGLISH_WORDS.search(say), (code, e["type"], say)
    reasons = [m["reason_say"] for s in snap["seats"] for m in s["melds"] if m.get("reason")]
    assert reasons and all(r and not ENGLISH_WORDS.search(r) for r in reasons), reasons
    verdicts = [v for s in snap["seats"] for v in s["verdicts_say"]]
    assert verdicts and not any(ENGLISH_WORDS.search(v) for v in verdicts), verdicts
    assert snap["camera"]["say"] and not ENGLISH_WORDS.search(snap["camera"]["say"])
    illegal = [e["say"] for e in snap["events"] if e["type"] == "illegal_move"]
    expected = {"es": "nunca vuelve", "ne": "कहिल्यै फिर्ता जाँदैन"}[code]   # the referee's reason, translated
    assert any(expected in say for say in illegal), illegal
    if code == "ne":
        assert all(DEVANAGARI.search(e["say"]) for e in snap["events"])


def test_english_says_what_the_referee_says(snapshot):
    """The English templates reproduce the referee's own English reasons (same words, one source of truth)."""
    snap = localize_table(snapshot, "en")
    for s in snap["seats"]:
        for m in s["melds"]:
            if m.get("reason"):
                assert m["reason_say"] == str(m["reason"]).replace(
                    " (disqualifies under strict_order=disqualify)", " (disqualifies at this table)")


def test_nested_reasons_and_unkeyed_text():
    from tableref.referee.desmoche.melds import check_meld

    v = check_meld(["9C", "8C", "10C"])
    t = translator("es")
    assert v.reason.key == "order_warning"
    assert say_reason(v.reason, t) == "escalera fuera de orden: ponla ascendente, 8C 9C 10C (solo aviso)"
    assert say_reason(v.reason.to_json(), t) == say_reason(v.reason, t)
    assert say_reason("plain English", t) is None


def test_setup_page_options_and_help_are_translated(tmp_path):
    from tableref.ledger.store import Ledger
    from tableref.web.app import close_app, create_app

    s = TableSession(source="unused", game="desmoche", players=["Ana", "Beto", "Cris"])
    ledger = Ledger(tmp_path / "l.sqlite3")
    app = create_app(s, ledger, pin="1234")
    try:
        client = app.test_client()
        client.set_cookie("lang", "es")
        page = client.get("/setup").get_data(as_text=True)
        assert "en sentido antihorario" in page and "(por defecto: no)" in page and "(por defecto: sí)" in page
        for english in ("counter clockwise", "counter_clockwise</option>", "False)", "True)", "(default",
                        "bonuses Mico", "Runs laid ascending"):
            assert english not in page, english
        client.set_cookie("lang", "ne")
        page = client.get("/setup").get_data(as_text=True)
        assert "घडीको उल्टो दिशा" in page and "False" not in page and "counter clockwise" not in page
    finally:
        close_app(app)
        ledger.close()
