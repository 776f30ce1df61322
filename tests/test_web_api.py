"""The web app's JSON API with the Flask test client: auth, PIN throttling, CSRF, bad input, setup, SSE.

A small fake table session (tests/web_fake_session.py) stands in for the camera
pipeline so the API and the ledger are tested in isolation; the browser test
runs the real server with the real TableSession.
"""
from __future__ import annotations

import json
import re

import pytest

from tableref.ledger.store import Ledger
from tableref.web.app import close_app, create_app
from tableref.web.auth import PinThrottle
from tableref.web.setup_form import all_switches
from web_fake_session import FakeSession

PIN = "482913"
POSTS = ["/api/setup", "/api/zones", "/api/correct", "/api/hand/confirm", "/api/hand/correct", "/api/hand/manual",
         "/api/undo", "/api/session/new"]


@pytest.fixture
def table(tmp_path):
    session = FakeSession()
    ledger = Ledger(tmp_path / "ledger.sqlite3")
    app = create_app(session, ledger, pin=PIN, max_streams=4)
    app.config["TABLEREF_KEEPALIVE_S"] = 0.1
    yield app, session, ledger
    close_app(app)
    ledger.close()


def client_of(app, addr="10.0.0.2"):
    c = app.test_client()
    c.environ_base["REMOTE_ADDR"] = addr
    return c


def token(c) -> str:
    return c.get("/api/csrf").get_json()["csrf"]


def post(c, path, body, tok=None, **kw):
    headers = {"X-CSRF-Token": tok} if tok else {}
    return c.post(path, json=body, headers=headers, **kw)


def login(c, pin=PIN, name="Host"):
    r = post(c, "/api/login", {"pin": pin, "name": name}, token(c))
    assert r.status_code == 200, r.get_json()
    return r.get_json()["csrf"]


def n_entries(ledger):
    return ledger._conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0]


# ---------------------------------------------------------------- reading is open to everyone
@pytest.mark.parametrize("path", ["/", "/scoreboard", "/setup", "/count", "/api/state", "/api/ledger",
                                  "/api/ledger.csv", "/api/rules", "/api/sessions", "/snapshot.jpg"])
def test_viewers_can_read(table, path):
    app, _, _ = table
    r = client_of(app).get(path)
    assert r.status_code == 200


def test_state_has_table_setup_and_ledger(table):
    app, session, _ = table
    st = client_of(app).get("/api/state").get_json()
    assert st["table"]["players"] == session.players
    assert st["table"]["seats"][1]["melds"][0]["in_order"] is False
    assert st["setup"]["players"] == session.players and st["setup"]["game"] == "desmoche"
    assert st["ledger"]["balances"] == {p: 0 for p in session.players}
    assert st["host"] is False


def test_page_carries_csrf_meta_and_marks(table):
    app, _, _ = table
    c = client_of(app)
    html = c.get("/").get_data(as_text=True)
    meta = re.search(r'<meta name="csrf-token" content="([^"]+)">', html).group(1)
    assert meta == token(c)
    assert 'src="/video.mjpg"' in html and 'data-host="no"' in html


# ---------------------------------------------------------------- nothing changes without CSRF + PIN
@pytest.mark.parametrize("path", POSTS)
def test_posts_need_csrf_then_pin(table, path):
    app, session, ledger = table
    c = client_of(app)
    before = n_entries(ledger)
    r = post(c, path, {"why": "x"})
    assert r.status_code == 403 and "CSRF" in r.get_json()["error"]
    r = post(c, path, {"why": "x"}, tok="forged-token")
    assert r.status_code == 403
    r = post(c, path, {"why": "x"}, token(c))
    assert r.status_code == 401 and "PIN" in r.get_json()["error"]
    assert n_entries(ledger) == before and session.corrections == [] and session.finished == []


def test_login_wrong_pin_refused_and_right_pin_works(table):
    app, _, ledger = table
    c = client_of(app)
    r = post(c, "/api/login", {"pin": "000000"}, token(c))
    assert r.status_code == 403 and r.get_json()["error"] == "wrong PIN"
    assert post(c, "/api/login", {"pin": PIN}).status_code == 403  # no CSRF token
    old = token(c)
    new = login(c)
    assert new != old  # a fresh token after login
    assert c.get("/api/state").get_json()["host"] is True
    assert post(c, "/api/undo", {"why": "x"}, old).status_code == 403
    r = post(c, "/api/setup", {"stake": 2}, new)
    assert r.status_code == 200, r.get_json()
    assert ledger.entries(ledger.current_session())[-1]["who"] == "Host"
    # log out: the cookie no longer changes anything
    assert post(c, "/api/logout", {}, new).status_code == 200
    assert post(c, "/api/setup", {"stake": 3}, new).status_code == 401


def test_pin_attempts_are_throttled_per_client(table):
    app, _, _ = table
    now = [1000.0]
    app.extensions["tableref"].throttle = PinThrottle(per_client=5, overall=30, window_s=60, clock=lambda: now[0])
    c = client_of(app, "10.0.0.9")
    tok = token(c)
    for i in range(5):
        assert post(c, "/api/login", {"pin": f"00000{i}"}, tok).status_code == 403
    r = post(c, "/api/login", {"pin": PIN}, tok)  # even the right PIN waits now
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0 and "wait" in r.get_json()["error"]
    # another phone is not blocked
    other = client_of(app, "10.0.0.10")
    assert post(other, "/api/login", {"pin": PIN}, token(other)).status_code == 200
    now[0] += 61
    assert post(c, "/api/login", {"pin": PIN}, tok).status_code == 200


def test_pin_guessing_from_many_addresses_never_locks_out_the_host(table):
    """Wrong PINs from many devices: each guessing address is held back once 8 came in all, but the host's
    phone (no wrong PIN of its own) still logs in; a throttled address stays throttled for the right PIN."""
    app, _, _ = table
    app.extensions["tableref"].throttle = PinThrottle(per_client=5, overall=8, window_s=60)
    guessers = [client_of(app, f"10.1.0.{i}") for i in range(12)]
    toks = [token(c) for c in guessers]
    codes = [post(c, "/api/login", {"pin": "999999"}, t).status_code for c, t in zip(guessers, toks)]
    assert codes == [403] * 12  # one guess each: no address is over its own limit
    # a second guess from any of them waits now (over 8 wrong PINs in all), even with the right PIN
    again = [post(c, "/api/login", {"pin": pin}, t).status_code
             for c, t, pin in zip(guessers[:3], toks[:3], ["999998", PIN, "123456"])]
    assert again == [429, 429, 429]
    # a hundred wrong PINs from one device never lock the host out on another
    bad = client_of(app, "10.2.0.1")
    btok = token(bad)
    for _ in range(100):
        post(bad, "/api/login", {"pin": "111111"}, btok)
    host = client_of(app, "10.0.0.77")
    assert post(host, "/api/login", {"pin": PIN}, token(host)).status_code == 200


# ---------------------------------------------------------------- malformed requests: 4xx with a message
def test_malformed_requests_get_clear_4xx(table):
    app, _, ledger = table
    c = client_of(app)
    tok = login(c)
    before = n_entries(ledger)
    r = c.post("/api/setup", data="game=marriage", headers={"X-CSRF-Token": tok},
               content_type="application/x-www-form-urlencoded")
    assert r.status_code == 400 and "JSON" in r.get_json()["error"]
    r = c.post("/api/setup", data="{not json", headers={"X-CSRF-Token": tok}, content_type="application/json")
    assert r.status_code == 400 and "JSON object" in r.get_json()["error"]
    r = c.post("/api/setup", data="[1, 2]", headers={"X-CSRF-Token": tok}, content_type="application/json")
    assert r.status_code == 400
    r = c.post("/api/setup", data="x" * 300_000, headers={"X-CSRF-Token": tok}, content_type="application/json")
    assert r.status_code == 413 and "too large" in r.get_json()["error"]
    r = c.get("/api/setup")
    assert r.status_code == 405 and "not allowed" in r.get_json()["error"]
    r = c.get("/api/nothing-here")
    assert r.status_code == 404 and "docs/api.md" in r.get_json()["error"]
    r = c.get("/api/ledger?session=abc")
    assert r.status_code == 400 and r.get_json()["field"] == "session"
    r = c.get("/api/ledger?session=99")
    assert r.status_code == 400 and "no ledger session" in r.get_json()["error"]
    for body, field in [({"track_id": "seven", "card": "6H"}, "track_id"), ({"track_id": 4}, "card"),
                        ({"track_id": 4, "card": "11X"}, "card"), ({"track_id": -1, "card": "6H"}, "track_id")]:
        r = post(c, "/api/correct", body, tok)
        assert r.status_code == 400 and r.get_json()["field"] == field, (body, r.get_json())
    r = post(c, "/api/hand/confirm", {"winner": "Nobody"}, tok)
    assert r.status_code == 400 and r.get_json()["field"] == "winner"
    r = post(c, "/api/hand/confirm", {"teleport": True}, tok)
    assert r.status_code == 400 and r.get_json()["field"] == "teleport"
    r = post(c, "/api/hand/confirm", {"tiplu": "ZZ"}, tok)
    assert r.status_code == 400 and r.get_json()["field"] == "tiplu"
    r = post(c, "/api/hand/correct", {"hand_id": "1", "net": {}, "why": "x"}, tok)
    assert r.status_code == 400 and r.get_json()["field"] == "hand_id"
    r = post(c, "/api/hand/correct", {"hand_id": 99, "net": {"Ana": 1, "Beto": -1}, "why": "x"}, tok)
    assert r.status_code == 400 and "no hand" in r.get_json()["error"]
    r = post(c, "/api/undo", {"why": "x"}, tok)
    assert r.status_code == 400 and "nothing to undo" in r.get_json()["error"]
    r = post(c, "/api/undo", {}, tok)
    assert r.status_code == 400 and r.get_json()["field"] == "why"
    r = post(c, "/api/zones", {"seats": [[[0, 0], [1, 1]]]}, tok)
    assert r.status_code == 400
    assert n_entries(ledger) == before


# ---------------------------------------------------------------- setup validation
@pytest.mark.parametrize("body,field", [
    ({"game": "poker"}, "game"),
    ({"game": "desmoche", "seats": 5}, "seats"),
    ({"game": "marriage", "seats": 6}, "seats"),
    ({"players": ["Ana", "ana", "Cris"]}, "players[1]"),
    ({"players": ["Ana", "", "Cris"]}, "players[1]"),
    ({"players": ["Ana", "<script>", "Cris"]}, "players[1]"),
    ({"seats": 3, "players": ["Ana", "Beto"]}, "players"),
    ({"stake": 0}, "stake"),
    ({"stake": "lots"}, "stake"),
    ({"point_value": -1}, "point_value"),
    ({"rules": {"no_such_switch": True}}, "rules.no_such_switch"),
    ({"rules": {"strict_order": "sometimes"}}, "rules.strict_order"),
    ({"rules": {"forced_meld": "yes"}}, "rules.forced_meld"),
    ({"game": "marriage", "rules": {"murder": True, "unseen_maal": "count"}}, "rules.murder"),
    ({"game": "marriage", "rules": {"tiplu_double": -1}}, "rules.tiplu_double"),
    ({"source": ""}, "source"),
    ({"colour": "green"}, "colour"),
])
def test_setup_validation(table, body, field):
    app, session, ledger = table
    c = client_of(app)
    tok = login(c)
    before = (n_entries(ledger), session.game, list(session.players))
    r = post(c, "/api/setup", body, tok)
    assert r.status_code == 400, r.get_json()
    assert r.get_json()["field"] == field and r.get_json()["error"]
    assert (n_entries(ledger), session.game, list(session.players)) == before


def test_setup_applies_to_session_and_ledger(table):
    app, session, ledger = table
    c = client_of(app)
    tok = login(c)
    body = {"game": "marriage", "seats": 5, "players": ["A", "B", "C", "D", "E"], "stake": 2, "point_value": 0.5,
            "rules": {"tiplu_double": 8, "unseen_maal": "kidnap"}, "source": "demo"}
    r = post(c, "/api/setup", body, tok)
    assert r.status_code == 200, r.get_json()
    assert session.game == "marriage" and session.players == ["A", "B", "C", "D", "E"] and session.stake == 2
    assert session.rules["tiplu_double"] == 8 and session.rules["murder"] is False
    setup = ledger.setup(ledger.current_session())
    assert setup["point_value"] == 0.5 and setup["rules"]["unseen_maal"] == "kidnap"
    # A camera that cannot be opened is refused and recorded nowhere.
    before = n_entries(ledger)
    r = post(c, "/api/setup", {"source": "bad://camera"}, tok)
    assert r.status_code == 400 and "bad://camera" in r.get_json()["error"]
    assert n_entries(ledger) == before


def test_setup_page_shows_every_house_rule_switch(table):
    app, _, _ = table
    html = client_of(app).get("/setup").get_data(as_text=True)
    for game, switches in all_switches().items():
        assert f'data-game="{game}"' in html
        for s in switches:
            assert f'data-rule="{s["name"]}"' in html, s["name"]
    assert {s["name"] for s in all_switches()["desmoche"]} >= {"direction", "strict_order", "forced_meld",
                                                               "color_autowin", "jugar_todo", "escalera_a23_high"}
    assert {s["name"] for s in all_switches()["marriage"]} >= {"tiplu_double", "maal_tunnela", "unseen_maal",
                                                               "dublee_min_players", "dublee_bonus", "alter",
                                                               "murder", "open_joker", "direction"}


def test_zones_post(table):
    app, session, _ = table
    c = client_of(app)
    tok = login(c)
    quad = [[10, 10], [300, 10], [300, 100], [10, 100]]
    body = {"frame_size": [640, 360], "seats": [quad] * 4, "centre": [[200, 120], [440, 120], [440, 240], [200, 240]]}
    r = post(c, "/api/zones", body, tok)
    assert r.status_code == 200, r.get_json()
    assert session.zones["coords"] == "image" and len(session.zones["seats"]) == 4
    r = post(c, "/api/zones", {**body, "centre": [[5000, 0], [1, 1], [2, 2]]}, tok)
    assert r.status_code == 400 and "outside" in r.get_json()["error"]
    r = post(c, "/api/zones", {**body, "seats": [quad] * 3}, tok)
    assert r.status_code == 400 and "4 seats but 3" in r.get_json()["error"]


# ---------------------------------------------------------------- hands, corrections, undo
def test_hand_end_is_recorded_verbatim_and_scoreboard_matches(table):
    app, session, ledger = table
    c = client_of(app)
    result = {"type": "hand_end", "game": "desmoche", "winner": "Ana", "net": {"Ana": 9, "Beto": -3, "Cris": -3, "Dani": -3},
              "items": [{"item": "win", "player": "Ana", "points": 6}, {"item": "mico", "player": "Ana", "points": 3}],
              "details": {"melds": [["AH", "2H", "3H"]]}}
    session.decide(result)
    data = c.get("/api/ledger").get_json()
    assert len(data["hands"]) == 1
    h = data["hands"][0]
    assert h["result"] == result and h["net"] == result["net"]
    assert [(i["item"], i["points"]) for i in h["items"]] == [("win", 6), ("mico", 3)]
    assert data["balances"] == result["net"] and sum(data["balances"].values()) == 0
    assert data["transfers"] and sum(t["cents"] for t in data["transfers"]) == 900
    assert [t["money"] for t in data["transfers"]] == ["3.00", "3.00", "3.00"]
    csv_text = c.get("/api/ledger.csv").get_data(as_text=True)
    assert "mico Ana +3" in csv_text
    # A broken result is refused by the ledger and reported, the session keeps running.
    session.decide({"type": "hand_end", "winner": "Ana", "net": {"Ana": 5, "Beto": -1}})
    st = c.get("/api/state").get_json()
    assert "sum to zero" in st["ledger"]["error"] and st["ledger"]["hands"] == 1


def test_host_corrects_card_confirms_corrects_and_undoes(table):
    app, session, ledger = table
    c = client_of(app)
    tok = login(c, name="Rosa")
    r = post(c, "/api/correct", {"track_id": 9, "card": "6h", "why": "glare"}, tok)
    assert r.status_code == 200 and session.corrections == [(9, "6H")]
    r = post(c, "/api/correct", {"track_id": 12, "card": None}, tok)
    assert r.status_code == 200 and session.corrections[-1] == (12, None)
    r = post(c, "/api/correct", {"track_id": 99, "card": "2C"}, tok)
    assert r.status_code == 404
    # the host is asked first: without "confirm" nothing is recorded, the answer shows what would be
    r = post(c, "/api/hand/confirm", {"winner": "Beto"}, tok)
    assert r.status_code == 200 and r.get_json()["recorded"] is False
    assert r.get_json()["preview"]["net"] == {"Beto": 9, "Ana": -3, "Cris": -3, "Dani": -3}
    assert session.finished == [] and ledger.hand_count(ledger.current_session()) == 0
    r = post(c, "/api/hand/confirm", {"winner": "Beto", "confirm": "yes"}, tok)
    assert r.status_code == 400 and r.get_json()["field"] == "confirm"
    r = post(c, "/api/hand/confirm", {"winner": "Beto", "confirm": True}, tok)
    assert r.status_code == 200 and r.get_json()["result"]["winner"] == "Beto" and r.get_json()["recorded"]
    assert session.finished == [{"winner": "Beto"}]
    sid = ledger.current_session()
    hand = ledger.hands(sid)[0]
    assert hand["net"] == {"Beto": 9, "Ana": -3, "Cris": -3, "Dani": -3}
    r = post(c, "/api/hand/correct", {"hand_id": hand["id"], "net": {"Beto": 12, "Ana": -4, "Cris": -4, "Dani": -4},
                                      "why": "Arriba del Palo missed"}, tok)
    assert r.status_code == 200 and r.get_json()["hand"]["net"]["Beto"] == 12
    r = post(c, "/api/hand/correct", {"hand_id": hand["id"], "net": {"Beto": 1, "Ana": 0}, "why": "x"}, tok)
    assert r.status_code == 400 and "sum to zero" in r.get_json()["error"]
    r = post(c, "/api/hand/manual", {"winner": "Cris", "net": {"Cris": 2, "Ana": -2}, "why": "camera was off"}, tok)
    assert r.status_code == 200
    # unknown players are refused: a typo never opens an account
    for body in ({"winner": "Zed", "net": {"Cris": 2, "Ana": -2}, "why": "x"},
                 {"winner": "Cris", "net": {"Cris": 2, "Zed": -2}, "why": "x"}):
        r = post(c, "/api/hand/manual", body, tok)
        assert r.status_code == 400 and "Zed" in r.get_json()["error"]
    r = post(c, "/api/hand/correct", {"hand_id": hand["id"], "net": {"Beto": 12, "Ana": -4, "Cris": -4, "Zed": -4},
                                      "why": "x"}, tok)
    assert r.status_code == 400 and r.get_json()["field"] == "net.Zed"
    assert "Zed" not in ledger.players(sid) and "Zed" not in c.get("/api/ledger").get_json()["money"]
    r = post(c, "/api/undo", {"why": "entered twice"}, tok)
    assert r.status_code == 200 and r.get_json()["balances"]["Cris"] == -4
    data = c.get("/api/ledger").get_json()
    kinds = [(e["kind"], e["who"], e["why"]) for e in data["entries"]]
    assert ("card_correction", "Rosa", "glare") in kinds
    assert ("card_correction", "Rosa", "camera misread") in kinds
    assert ("hand_correction", "Rosa", "Arriba del Palo missed") in kinds
    assert ("undo", "Rosa", "entered twice") in kinds
    assert all(e["client"] == "10.0.0.2" for e in data["entries"] if e["who"] == "Rosa")
    assert sum(data["balances"].values()) == 0
    assert [h["undone"] for h in data["hands"]] == [False, True]


def test_new_session(table):
    app, session, ledger = table
    c = client_of(app)
    tok = login(c)
    session.decide({"winner": "Ana", "net": {"Ana": 3, "Beto": -3}})
    old = ledger.current_session()
    r = post(c, "/api/session/new", {"why": "next evening"}, tok)
    assert r.status_code == 200 and r.get_json()["session_id"] != old
    assert c.get("/api/ledger").get_json()["hands"] == []
    assert len(c.get(f"/api/ledger?session={old}").get_json()["hands"]) == 1
    session.decide({"winner": "Beto", "net": {"Ana": -1, "Beto": 1}})
    assert ledger.balances(ledger.current_session())["Beto"] == 1


# ---------------------------------------------------------------- live streams
def _read_sse(resp, want, limit=60):
    """Read SSE chunks until an event with type ``want`` arrives; return the events seen."""
    seen = []
    buf = ""
    it = iter(resp.response)
    for _ in range(limit):
        chunk = next(it)
        buf += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buf:
            block, buf = buf.split("\n\n", 1)
            for line in block.splitlines():
                if line.startswith("data: "):
                    seen.append(json.loads(line[6:]))
        if any(e.get("type") == want for e in seen):
            return seen
    raise AssertionError(f"no {want!r} event in {seen}")


def test_sse_stream_yields_events(table):
    app, session, _ = table
    c = client_of(app)
    resp = c.get("/api/events", buffered=False)
    assert resp.status_code == 200 and resp.mimetype == "text/event-stream"
    assert _read_sse(resp, "hello")[0]["type"] == "hello"
    session.emit({"type": "meld_laid", "player": "Ana", "cards": ["3H", "4H", "5H"], "text": "Ana lays 3H 4H 5H"})
    seen = _read_sse(resp, "meld_laid")
    assert seen[-1]["cards"] == ["3H", "4H", "5H"] and "id" in seen[-1]
    session.decide({"type": "hand_end", "winner": "Ana", "net": {"Ana": 3, "Beto": -3}})
    seen = _read_sse(resp, "ledger")
    assert any(e["type"] == "hand_end" for e in seen)
    assert seen[-1]["what"] == "hand" and seen[-1]["net"] == {"Ana": 3, "Beto": -3}
    resp.close()
    assert app.extensions["tableref"].hub.n_clients == 0


def test_mjpeg_stream_and_stream_limit(table):
    app, session, _ = table
    c = client_of(app)
    resp = c.get("/video.mjpg", buffered=False)
    assert resp.status_code == 200 and resp.mimetype == "multipart/x-mixed-replace"
    part = next(iter(resp.response))
    assert part.startswith(b"--tablerefframe\r\nContent-Type: image/jpeg") and session.jpeg in part
    opened = [resp] + [c.get("/api/events", buffered=False) for _ in range(3)]  # max_streams=4
    r = c.get("/video.mjpg")
    assert r.status_code == 503 and "too many" in r.get_json()["error"]
    for o in opened:
        o.close()
    r = c.get("/api/events", buffered=False)
    assert r.status_code == 200
    r.close()


def test_no_frame_yet(table):
    app, session, _ = table
    session.jpeg = None
    c = client_of(app)
    assert c.get("/snapshot.jpg").status_code == 503
    resp = c.get("/video.mjpg", buffered=False)
    part = next(iter(resp.response))
    assert b"image/jpeg" in part and len(part) > 1000  # the "waiting for the camera" picture
    resp.close()


# ---------------------------------------------------------------- languages
def test_languages(table):
    app, _, _ = table
    c = client_of(app)
    assert "Scoreboard" in c.get("/").get_data(as_text=True)
    r = c.get("/lang/es", headers={"Referer": "http://localhost/scoreboard"})
    assert r.status_code == 302 and r.headers["Location"].endswith("/scoreboard")
    html = c.get("/").get_data(as_text=True)
    assert "Marcador" in html and 'lang="es"' in html
    c.get("/lang/ne")
    assert "स्कोर" in c.get("/").get_data(as_text=True)
    r = client_of(app).get("/", headers={"Accept-Language": "es-HN,es;q=0.9"})
    assert "Marcador" in r.get_data(as_text=True)
    r = c.get("/lang/xx", headers={"Referer": "http://evil.example/phish"})
    assert r.headers["Location"] == "/"


def test_spanish_covers_every_english_string():
    from tableref.web.i18n import FOLDER

    en = json.loads((FOLDER / "en.json").read_text())
    es = json.loads((FOLDER / "es.json").read_text())
    assert set(en) == set(es)


# ---------------------------------------------------------------- with the real TableSession (states fed, no camera)
def _real_app(tmp_path, game, players):
    from tableref.live.session import TableSession

    session = TableSession(source="unused", game=game, players=players)
    ledger = Ledger(tmp_path / "real.sqlite3")
    app = create_app(session, ledger, pin=PIN)
    return app, session, ledger


def _stable(state, players, t):
    """The vision tracker's StableTable for a TableState (as if the camera saw it)."""
    from tableref.vision.table_state import Meld, SeatState, StableTable, TableCard as VCard

    def vc(c, zone):
        return VCard(c.track_id, c.card, 0.9, (0, 0, 1, 1), (0, 0), (0, 0), zone)

    seats = [SeatState(i, f"seat{i}", p, [Meld([vc(c, f"seat{i}") for c in m]) for m in state.seats[i].melds])
             for i, p in enumerate(players)]
    return StableTable(t, 0.5, int(t), True, seats)


def test_real_session_desmoche_hand_reaches_scoreboard_verbatim(tmp_path):
    from tableref.live.events import TableState

    players = ["Ana", "Beto", "Cris"]
    app, session, ledger = _real_app(tmp_path, "desmoche", players)
    try:
        c = client_of(app)

        def see(seats, t):
            session.feed_table(_stable(TableState.from_labels(seats, [], t), players, t))

        see([[["3H", "4H", "5H"]], [["9C", "8C", "10C"]], []], 1.0)
        st = c.get("/api/state").get_json()["table"]
        assert st["seats"][0]["melds"][0]["valid"] is True
        assert st["seats"][1]["melds"][0]["in_order"] is False and st["seats"][1]["melds"][0]["reason"]
        # The host corrects a card the camera misread (9C was really 7C): the session re-judges.
        tok = login(c)
        tid = st["seats"][1]["melds"][0]["track_ids"][0]
        r = post(c, "/api/correct", {"track_id": tid, "card": "7C", "why": "smudge"}, tok)
        assert r.status_code == 200, r.get_json()
        st = c.get("/api/state").get_json()["table"]
        assert st["seats"][1]["melds"][0]["cards"][0] == "7C" and st["seats"][1]["melds"][0]["valid"] is False
        post(c, "/api/correct", {"track_id": tid, "card": "9C"}, tok)
        ana = [["AS", "2S", "3S", "4S"], ["9D", "9H", "9S"], ["JC", "QC", "KC"]]
        see([ana, [["9C", "8C", "10C"]], []], 2.0)
        assert len(session.results) == 1
        decided = session.results[0]
        data = c.get("/api/ledger").get_json()
        hand = data["hands"][0]
        assert hand["result"] == json.loads(json.dumps(decided))  # verbatim
        assert hand["net"] == decided["net"] and hand["winner"] == "Ana"
        assert [(i["item"], i.get("player"), i["points"]) for i in hand["items"]] == \
            [(i["item"], i.get("player"), i.get("points")) for i in decided["items"]]
        assert data["balances"] == {p: decided["net"].get(p, 0) for p in ["Ana", "Beto", "Cris"]}
        assert sum(data["balances"].values()) == 0
        assert any(e["kind"] == "card_correction" and e["why"] == "smudge" for e in data["entries"])
        # Zones clicked on the setup page are a layout the session's geometry accepts.
        quad = [[10, 10], [600, 10], [600, 100], [10, 100]]
        r = post(c, "/api/zones", {"frame_size": [1280, 720], "seats": [quad, quad, quad],
                                   "centre": [[400, 200], [880, 200], [880, 500], [400, 500]]}, tok)
        assert r.status_code == 200, r.get_json()
        zones = session._make_zones((640, 360))
        assert zones.n_seats == 3 and zones.zone_at(320, 175, (640, 360)).is_centre
    finally:
        close_app(app)
        ledger.close()


def test_real_session_marriage_count_flow(tmp_path):
    from tableref.live.events import TableState
    from tableref.simulate.bots import play_marriage

    sc = play_marriage(7)
    app, session, ledger = _real_app(tmp_path, "marriage", sc.players)
    try:
        c = client_of(app)
        for i, kf in enumerate(sc.keyframes):  # the tiplu is hidden: no card in the centre
            session.feed_state(TableState.from_labels(kf.table, [], float(i)))
        st = c.get("/api/state").get_json()["table"]
        assert st["result"] is None and c.get("/count").status_code == 200
        tok = login(c)
        r = post(c, "/api/hand/confirm", {}, tok)
        assert r.status_code == 400 and "tiplu" in r.get_json()["error"]  # the session asks for the tiplu
        r = post(c, "/api/hand/confirm", {"tiplu": sc.truth["tiplu"]}, tok)
        assert r.status_code == 200 and r.get_json()["recorded"] is False, r.get_json()
        preview = r.get_json()["preview"]
        assert c.get("/api/ledger").get_json()["hands"] == [] and session.results == []
        r = post(c, "/api/hand/confirm", {"tiplu": sc.truth["tiplu"], "confirm": True}, tok)
        assert r.status_code == 200, r.get_json()
        result = r.get_json()["result"]
        assert preview["net"] == result["net"] and preview["winner"] == result["winner"]
        assert result["winner"] == sc.truth["winner"] and result["net"] == sc.truth["net"]
        hand = c.get("/api/ledger").get_json()["hands"][0]
        assert hand["net"] == sc.truth["net"] and hand["result"]["maal"] == sc.truth["maal"]
        st = c.get("/api/state").get_json()["table"]
        assert all(s["count"] is not None and "maal" in s["count"] for s in st["seats"])
    finally:
        close_app(app)
        ledger.close()


# ---------------------------------------------------------------- host actions that settle money ask first
def test_marriage_settle_needs_every_seat_counted_and_records_the_count(tmp_path):
    """A seat with 9 cards and one not scanned: the settle is refused (nothing recorded) until the host
    enters their maal; what is recorded is what the count shows, and it can be undone."""
    from tableref.live.events import TableState
    from tableref.simulate.bots import play_marriage

    sc = play_marriage(7)
    app, session, ledger = _real_app(tmp_path, "marriage", sc.players)
    try:
        c = client_of(app)
        last = sc.keyframes[-1].table
        cris, dani = sc.players.index("Cris"), sc.players.index("Dani")
        short = [list(seat) for seat in last]
        short[cris] = [m for m in last[cris]][:3]            # 9 cards: not a hand laid down
        short[dani] = []                                     # not scanned
        assert sum(len(m) for m in short[cris]) == 9
        session.feed_state(TableState.from_labels(short, [], 1.0))
        tok = login(c)
        body = {"tiplu": sc.truth["tiplu"], "winner": sc.truth["winner"]}
        for confirm in (False, True):
            r = post(c, "/api/hand/confirm", {**body, "confirm": confirm}, tok)
            assert r.status_code == 400 and "Cris, Dani are not counted" in r.get_json()["error"], r.get_json()
        assert ledger.hands(ledger.current_session()) == []
        # the host enters Dani's maal (Cris still uncounted): refused again, naming Cris only
        r = post(c, "/api/hand/confirm", {**body, "maal": {"Dani": sc.truth["maal"]["Dani"]}}, tok)
        assert r.status_code == 400 and "Cris is not counted" in r.get_json()["error"]
        r = post(c, "/api/hand/confirm", {**body, "maal": {"Dani": -1}}, tok)
        assert r.status_code == 400 and r.get_json()["field"] == "maal"
        # Cris lays all 21 cards down: counted by the camera; Dani's maal as entered by the host
        session.feed_state(TableState.from_labels([*short[:cris], last[cris], *short[cris + 1:]], [], 2.0))
        entered = {"Dani": sc.truth["maal"]["Dani"]}
        r = post(c, "/api/hand/confirm", {**body, "maal": entered, "seen": {"Dani": sc.truth["seen"]["Dani"]}}, tok)
        assert r.status_code == 200 and r.get_json()["recorded"] is False
        preview = r.get_json()["preview"]
        assert preview["maal"] == sc.truth["maal"] and preview["net"] == sc.truth["net"]
        assert ledger.hands(ledger.current_session()) == []
        r = post(c, "/api/hand/confirm", {**body, "maal": entered, "seen": {"Dani": sc.truth["seen"]["Dani"]},
                                          "confirm": True}, tok)
        assert r.status_code == 200, r.get_json()
        hand = c.get("/api/ledger").get_json()["hands"][0]
        assert hand["net"] == preview["net"] == sc.truth["net"]
        assert hand["result"]["details"]["maal_entered_by_host"] == entered
        r = post(c, "/api/undo", {"why": "counted wrong"}, tok)
        assert r.status_code == 200
        data = c.get("/api/ledger").get_json()
        assert data["hands"][0]["undone"] and set(data["money"].values()) == {"0.00"}
    finally:
        close_app(app)
        ledger.close()


def test_desmoche_confirm_with_nothing_decided_asks_and_can_be_undone(tmp_path):
    """The issue's empty table: 'Confirm the hand' shows 'no winner, each antes, the pot carries' and
    records nothing until confirmed; once recorded it can be undone, and the table's pot follows."""
    app, session, ledger = _real_app(tmp_path, "desmoche", ["Ana", "Beto", "Cris", "Dani"])
    try:
        c = client_of(app)
        tok = login(c)
        r = post(c, "/api/hand/confirm", {}, tok)
        assert r.status_code == 200 and r.get_json()["recorded"] is False
        preview = r.get_json()["preview"]
        assert preview["winner"] is None and preview["net"] == {"Ana": -1, "Beto": -1, "Cris": -1, "Dani": -1}
        assert preview["pot_carried_out"] == 4 and "no winner" in preview["text"]
        assert session.results == [] and session.hand.result is None and session.pot == 0  # nothing changed
        r = post(c, "/api/hand/confirm", {"confirm": True}, tok)
        assert r.status_code == 200 and r.get_json()["result"]["net"] == preview["net"]
        data = c.get("/api/ledger").get_json()
        assert data["pot"]["points"] == 4 and data["pot"]["money"] == "4.00" and session.pot == 4
        assert data["transfers"] == []  # the pot is no payer: with it paid back nobody owes anything
        assert data["pot"]["return"] == {"Ana": "1.00", "Beto": "1.00", "Cris": "1.00", "Dani": "1.00"}
        r = post(c, "/api/undo", {"why": "nobody played"}, tok)
        assert r.status_code == 200
        data = c.get("/api/ledger").get_json()
        assert data["pot"]["points"] == 0 and session.pot == 0 and set(data["money"].values()) == {"0.00"}
    finally:
        close_app(app)
        ledger.close()


def test_point_value_change_settles_per_hand_money_and_new_session_pays_the_pot_back(table):
    app, session, ledger = table
    c = client_of(app)
    tok = login(c)
    r = post(c, "/api/setup", {"point_value": 0.125}, tok)
    assert r.status_code == 400 and r.get_json()["field"] == "point_value" and "cents" in r.get_json()["error"]
    nets = {"Ana": 9, "Beto": -3, "Cris": -3, "Dani": -3}
    session.decide({"type": "hand_end", "game": "desmoche", "winner": "Ana", "net": nets})  # at 1.00
    assert post(c, "/api/setup", {"point_value": "0,5"}, tok).status_code == 200
    session.decide({"type": "hand_end", "game": "desmoche", "winner": "Ana", "net": nets})  # at 0.50
    session.decide({"type": "hand_end", "game": "desmoche", "winner": None, "pot_carried_out": 4,
                    "net": {"Ana": -1, "Beto": -1, "Cris": -1, "Dani": -1}})
    data = c.get("/api/ledger").get_json()
    assert data["money"] == {"Ana": "13.00", "Beto": "-5.00", "Cris": "-5.00", "Dani": "-5.00"}
    assert data["pot"]["money"] == "2.00" and data["point_value"] == "0.50"
    assert sum(t["cents"] for t in data["transfers"] if t["to"] == "Ana") == 1350  # 13.00 + her 0.50 back
    assert data["settle"]["Ana"] == "13.50"
    csv_text = c.get("/api/ledger.csv").get_data(as_text=True)
    assert ",money,,,,,,,money,13.00,-5.00,-5.00,-5.00,2.00,," in csv_text
    r = post(c, "/api/session/new", {"why": "next evening"}, tok)
    assert r.status_code == 200 and session.pot == 0
    old = ledger.summary(ledger.sessions()[-2]["id"])
    assert old["money"] == data["settle"] and old["pot"]["points"] == 0


def test_a_restarted_table_carries_the_pot_the_ledger_holds(tmp_path):
    """The ledger is the pot's truth: a server restarted on a session with a pot carries exactly it in."""
    from tableref.live.session import TableSession

    players = ["Ana", "Beto", "Cris"]
    ledger = Ledger(tmp_path / "real.sqlite3")
    sid = ledger.open_session({"game": "desmoche", "players": players, "point_value": 1})
    ledger.commit_hand(sid, {"winner": None, "net": {p: -1 for p in players}, "pot_carried_out": 3})
    session = TableSession(source="unused", game="desmoche", players=players)
    app = create_app(session, ledger, pin=PIN)
    try:
        assert session.pot == 3 and session.hand.referee.pot_carried == 3
        c = client_of(app)
        tok = login(c)
        r = post(c, "/api/hand/confirm", {}, tok)  # nobody won this one either: 3 carried in + 3 antes
        assert r.get_json()["preview"]["pot_carried_out"] == 6
        assert post(c, "/api/session/new", {"why": "next evening"}, tok).status_code == 200
        assert session.pot == 0 and session.hand.referee.pot_carried == 0
        assert ledger.money(sid) == {p: "0.00" for p in players}  # the old pot went back
    finally:
        close_app(app)
        ledger.close()


def test_host_corrects_a_card_typed_with_phone_emoji_suits(table):
    """A phone keyboard types a suit as its emoji (the symbol followed by U+FE0F), before or after the rank:
    the web reads it with the referee's card parser, like every other card input."""
    app, session, _ = table
    c = client_of(app)
    tok = login(c, name="Rosa")
    assert post(c, "/api/correct", {"track_id": 9, "card": "10\u2660\ufe0f", "why": "glare"}, tok).status_code == 200
    assert post(c, "/api/correct", {"track_id": 9, "card": "\u2663\ufe0fJ", "why": "glare"}, tok).status_code == 200
    assert session.corrections[-2:] == [(9, "10S"), (9, "JC")]


# ---------------------------------------------------------------- the next hand, the score across sessions
def test_next_hand_is_the_hosts_and_journalled(tmp_path):
    from tableref.live.events import TableState

    players = ["Ana", "Beto", "Cris"]
    app, session, ledger = _real_app(tmp_path, "desmoche", players)
    try:
        c = client_of(app)
        assert post(c, "/api/hand/next", {}, token(c)).status_code == 401            # viewers cannot
        tok = login(c, name="Rosa")
        assert post(c, "/api/hand/next", {"hand": 3}, tok).status_code == 400         # a field it does not take
        session.feed_state(TableState.from_labels([[["3H", "4H", "5H"]], [], []], [], 1.0))
        r = post(c, "/api/hand/next", {"why": "misdeal"}, tok)                        # undecided: played again
        assert r.status_code == 200 and r.get_json()["hand_no"] == 1 and r.get_json()["previous_decided"] is False
        assert ledger.hands(ledger.current_session()) == []
        ana = [["3H", "4H", "5H", "6H"], ["7S", "7D", "7C"], ["JD", "QD", "KD"]]
        session.feed_state(TableState.from_labels([ana, [], []], [], 2.0))
        assert len(ledger.hands(ledger.current_session())) == 1
        r = post(c, "/api/hand/next", {}, tok)
        assert r.get_json() == {"ok": True, "hand_no": 2, "previous": 1, "previous_decided": True}
        st = c.get("/api/state").get_json()["table"]
        assert st["hand_no"] == 2 and not st["waiting_for_clear_table"] and st["clear_table_seconds"] > 0
        entries = [e for e in c.get("/api/ledger").get_json()["entries"] if e["kind"] == "next_hand"]
        assert [(e["who"], e["why"], e["payload"]["hand_no"]) for e in entries] == [("Rosa", "misdeal", 1),
                                                                                   ("Rosa", "", 2)]
        assert not any(e["payments"] for e in entries)                               # no money moves
    finally:
        close_app(app)
        ledger.close()


def test_running_money_and_totals_across_sessions_are_exact(tmp_path):
    players = ["Ana", "Beto", "Cris"]
    app, session, ledger = _real_app(tmp_path, "desmoche", players)
    try:
        c = client_of(app)
        tok = login(c)
        sid = ledger.current_session()
        ledger.record_setup(sid, {**ledger.setup(sid), "point_value": 0.1}, who="test")
        for net in ({"Ana": 3, "Beto": -1, "Cris": -2}, {"Ana": -1, "Beto": 3, "Cris": -2}):
            assert post(c, "/api/hand/manual", {"winner": max(net, key=net.get), "net": net, "why": "paper"},
                        tok).status_code == 200
        hands = c.get("/api/ledger").get_json()["hands"]
        assert [h["running_money"] for h in hands] == [{"Ana": "0.30", "Beto": "-0.10", "Cris": "-0.20"},
                                                       {"Ana": "0.20", "Beto": "0.20", "Cris": "-0.40"}]
        assert post(c, "/api/undo", {"why": "wrong"}, tok).status_code == 200           # the second is undone
        assert post(c, "/api/session/new", {"why": "tomorrow"}, tok).status_code == 200
        net = {"Ana": -1, "Beto": -1, "Cris": 2}
        assert post(c, "/api/hand/manual", {"winner": "Cris", "net": net, "why": "paper"}, tok).status_code == 200
        totals = {t["player"]: t for t in c.get("/api/totals").get_json()["players"]}
        # the new session keeps 0.10 a point; the undone hand counts neither as played nor as won
        assert totals["Ana"] == {"player": "Ana", "sessions": 2, "hands": 2, "won": 1, "points": 2, "money": "0.20",
                                 "best": {"points": 3, "money": "0.30", "session_id": sid, "hand_no": 1}}
        assert totals["Cris"]["money"] == "0.00" and totals["Cris"]["won"] == 1 and totals["Beto"]["won"] == 0
        assert totals["Beto"]["money"] == "-0.20" and totals["Beto"]["best"]["points"] == -1
        assert [t["player"] for t in c.get("/api/totals").get_json()["players"]] == ["Ana", "Cris", "Beto"]
    finally:
        close_app(app)
        ledger.close()
