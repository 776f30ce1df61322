"""Every string the page or the referee shows to players exists in English, Spanish and Nepali.

A key missing in a language, a template whose placeholders differ from the English one, a
referee reason, live event type, camera status or house-rule switch without its string: each
fails here. Texts are built from structured data (reason keys, event types and fields), never
by reading the English text, so a real session's snapshot is translated end to end below.
"""
from __future__ import annotations

import ast
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
    prefixed = {"cam_": ["ok", "connecting", "reconnecting", "stale", "lost", "ended", "error", "unknown", "blurred", "small", "soft"],
                "source_": ["demo", "webcam", "phone"],
                "cam_say_": ["ok", "connecting", "reconnecting", "stale", "lost", "ended", "error", "blurred", "small", "soft"],
                "game_": ["desmoche", "marriage"],
                "kind_": ["run", "set", "tunnela", "marriage", "pure_sequence", "triplet", "dirty_sequence",
                          "dirty_triplet", "dublee"],
                "item_": ["win", "pot", "mico", "arriba_del_palo", "color", "pays_winner", "winner_pays", "marriage",
                          "tunnela", "tiplu", "poplu", "jhiplu", "alter"],
                "entry_": ["session_open", "setup", "hand", "hand_correction", "card_correction", "undo", "pot_return",
                           "session_close"],
                "autowin_": ["peladilla", "cuatro_cuerpos", "color"]}
    missing = [p + v for p, vs in prefixed.items() for v in vs if p + v not in EN]
    assert not missing


def test_every_referee_reason_has_a_string():
    keys = set(re.findall(r'\bReason\(\s*"([a-z0-9_]+)"', _source("referee/**/*.py")))
    assert len(keys) >= 30
    assert sorted(k for k in keys if "reason_" + k not in EN) == []


# ------------------------------------------------------------------ the errors the page shows
#: where the errors come from that the JSON API answers to the page: the web views, the setup check,
#: the table service and live session, the ledger, and the referee's card and house-rule checks and
#: the Marriage count and settlement (a host's entries for a hand the camera cannot count)
ERROR_SOURCES = ["web/*.py", "tableref/table/*.py", "tableref/live/session.py", "tableref/live/setup.py", "tableref/live/desmoche.py",
                 "tableref/live/marriage.py", "tableref/ledger/store.py", "tableref/ledger/money.py",
                 "tableref/games.py", "referee/cards.py", "referee/settings.py", "referee/marriage/settings.py",
                 "referee/marriage/analysis.py", "referee/marriage/settle.py"]
#: the exceptions whose message reaches the page (a 400 with ``error`` and ``say``)
PAGE_ERRORS = {"RefereeError", "CardError", "SettingsError", "IllegalAction", "SetupError", "LedgerError",
               "MoneyError", "SessionError", "UnknownGame"}


def _reason_calls(globs):
    """Every ``Reason("key", text, **params)`` in the files: (file, line, key, param names)."""
    for g in globs:
        for path in sorted(ROOT.glob(g)):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Reason" and node.args
                        and isinstance(node.args[0], ast.Constant)):
                    yield path.relative_to(ROOT), node.lineno, node.args[0].value, {k.arg for k in node.keywords}


def _unkeyed(node) -> bool:
    """A message written as plain English (a literal, an f-string, a sum of them), not a keyed Reason."""
    if isinstance(node, ast.IfExp):
        return _unkeyed(node.body) or _unkeyed(node.orelse)
    if isinstance(node, ast.BinOp):
        return _unkeyed(node.left) or _unkeyed(node.right)
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def test_every_error_the_page_shows_is_keyed():
    """Every refusal the API can answer carries a key and parameters (a ``Reason``), never bare English:
    raising a page error, ``error(status, message)`` and the camera's ``_refuse(up, status, message)``."""
    bare = []
    for g in ERROR_SOURCES:
        for path in sorted(ROOT.glob(g)):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call):
                    continue
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                at = {"error": 1, "_refuse": 2}.get(name, 0 if name in PAGE_ERRORS else None)
                if at is not None and len(node.args) > at and _unkeyed(node.args[at]):
                    bare.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}(...)")
    assert not bare, bare


def test_every_error_key_has_its_string_with_the_parameters_given():
    """Each key found in the code (not a hand list) has its ``reason_<key>`` string in English (and by
    the completeness test above in Spanish and Nepali, with the same placeholders), and every
    placeholder of the string is a parameter that the code gives the key."""
    calls = list(_reason_calls(ERROR_SOURCES))
    assert len({c[2] for c in calls}) >= 100
    missing = sorted({key for _, _, key, _ in calls if "reason_" + key not in EN})
    assert not missing, missing
    unfed = [f"{path}:{line} {key} lacks {sorted(placeholders(EN['reason_' + key]) - given)}"
             for path, line, key, given in calls if placeholders(EN["reason_" + key]) - given]
    assert not unfed, unfed


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


# ------------------------------------------------------------------ the API's errors, in the page's language

ENGLISH_ERROR = re.compile(r"\b(must|unknown|wrong|player|players|not|the|is|are|counted|nothing|undo|too|many|"
                           r"wait|seconds|card|no such)\b")
#: per request: (its expected key, words of the Spanish and of the Nepali answer; the request's own data aside)
BAD_REQUESTS = [
    ("wrong_pin", {"es": "PIN incorrecto", "ne": "गलत PIN"}),
    ("pin_throttled", {"es": "demasiados PIN incorrectos: espera", "ne": "धेरै पटक गलत PIN"}),
    ("csrf", {"es": "falta el token CSRF", "ne": "CSRF टोकन छैन"}),
    ("player_name_twice", {"es": "dos jugadores se llaman 'Ana'", "ne": "दुई खेलाडीको नाम 'Ana' छ"}),
    ("rule_choice", {"es": "la regla de la casa 'strict_order' no puede ser", "ne": "घरको नियम 'strict_order'"}),
    ("unknown_card", {"es": "carta desconocida 'ZZ'", "ne": "अज्ञात तास 'ZZ'"}),
    ("not_a_player", {"es": "'Zoe' no es un jugador de esta sesión", "ne": "'Zoe' यो सत्रको खेलाडी होइन"}),
    ("nothing_to_undo", {"es": "no hay nada que deshacer", "ne": "रद्द गर्ने केही छैन"}),
    ("no_endpoint", {"es": "no existe ese punto de la API", "ne": "यस्तो API ठेगाना छैन"}),
    ("not_counted_many", {"es": "no están contados", "ne": "को गन्ती भएको छैन"}),
]


def _ask(client, key, csrf):
    """Send the bad request that ``key`` names; its answer."""
    from tableref.web.auth import CSRF_HEADER

    def post(path, body, tok=csrf):
        return client.post(path, json=body, headers={CSRF_HEADER: tok} if tok else {})

    if key == "wrong_pin":
        return post("/api/login", {"pin": "000000"})
    if key == "pin_throttled":
        for _ in range(5):
            post("/api/login", {"pin": "000000"})
        return post("/api/login", {"pin": "000000"})
    if key == "csrf":
        return post("/api/undo", {"why": "x"}, tok=None)
    if key == "no_endpoint":
        return client.get("/api/nowhere")
    r = post("/api/login", {"pin": "1234", "name": "Host"})     # the host's actions
    assert r.status_code == 200, r.get_json()
    csrf = r.get_json()["csrf"]
    if key == "player_name_twice":
        return post("/api/setup", {"players": ["Ana", "Ana", "Cris"]}, csrf)
    if key == "rule_choice":
        return post("/api/setup", {"rules": {"strict_order": "sometimes"}}, csrf)
    if key == "unknown_card":
        return post("/api/correct", {"track_id": 1, "card": "ZZ"}, csrf)
    if key == "not_a_player":
        return post("/api/hand/manual", {"winner": "Zoe", "net": {"Ana": 1, "Beto": -1}, "why": "x"}, csrf)
    if key == "nothing_to_undo":
        return post("/api/undo", {"why": "nothing was played"}, csrf)
    if key == "not_counted_many":          # refused by the live session (nobody's cards were counted)
        r = post("/api/setup", {"game": "marriage", "players": ["Ana", "Beto", "Cris"]}, csrf)
        assert r.status_code == 200, r.get_json()
        return post("/api/hand/confirm", {"tiplu": "JC", "winner": "Ana"}, csrf)
    raise AssertionError(key)


@pytest.mark.parametrize("code", OTHERS)
@pytest.mark.parametrize("key,words", BAD_REQUESTS, ids=[k for k, _ in BAD_REQUESTS])
def test_the_api_refuses_in_the_page_language(tmp_path, code, key, words):
    """A bad request from a page in Spanish or Nepali is answered with the reason in that language in
    ``say`` (what the page shows), the English in ``error`` (logs, API clients), and its key."""
    from tableref.ledger.store import Ledger
    from tableref.web.app import close_app, create_app

    s = TableSession(source="unused", game="desmoche", players=["Ana", "Beto", "Cris"])
    ledger = Ledger(tmp_path / "l.sqlite3")
    app = create_app(s, ledger, pin="1234")
    try:
        client = app.test_client()
        client.set_cookie("lang", code)
        csrf = client.get("/api/csrf").get_json()["csrf"]
        r = _ask(client, key, csrf)
        data = r.get_json()
        assert r.status_code >= 400 and data["key"] == key, data
        assert words[code] in data["say"], (code, data)
        assert data["say"] != data["error"] and "{" not in data["say"] and "reason_" not in data["say"]
        assert not ENGLISH_ERROR.search(data["say"]), data["say"]
        if code == "ne":
            assert DEVANAGARI.search(data["say"])
        client.set_cookie("lang", "en")    # the same request from an English page: the English text
        again = _ask(client, key, client.get("/api/csrf").get_json()["csrf"]).get_json()
        assert again["key"] == key and again["say"] == again["error"], again
    finally:
        close_app(app)
        ledger.close()
