"""The table service (tableref.table): one live session, the ledger it records into, the setup.

Real parts: a real TableSession fed stable tables (no camera), a real SQLite ledger
file, the real Flask app, a real lock on the ledger and real processes for
``tableref serve``.
"""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tableref.live.state import TableState
from tableref.table.lock import LedgerInUse, LedgerLock
from tableref.table.service import DEMO_LEDGER_NOTE, MEMORY, TableService
from tableref.web.app import close_app, create_app

ROOT = Path(__file__).resolve().parents[1]
P3 = ["Ana", "Beto", "Cris"]
# Ana lays ten cards in three melds: she wins (the bots' first meld is a run, then two sets)
WIN = [[["2C", "3C", "4C"], ["4S", "5S", "6S"], ["QH", "QS", "QD", "QC"]], [["5D", "6D", "7D"]], []]


def S(seats, centre=(), t=0.0):
    return TableState.from_labels(seats, list(centre), t)


def play_a_hand(service, t0=0.0, clear=True):
    """Ana lays her melds and wins; then (``clear``) the table is cleared for the next hand."""
    s = service.session
    s.feed_state(S([[], [], []], t=t0))
    s.feed_state(S([WIN[0][:1], WIN[1], []], t=t0 + 1))
    evs = s.feed_state(S(WIN, t=t0 + 2))
    assert "hand_end" in [e["type"] for e in evs]
    if clear:
        s.feed_state(S([[], [], []], t=t0 + 3))   # cleared: the next hand starts


@pytest.fixture
def user_data(tmp_path, monkeypatch):
    """The user's data directory (where the user's own ledger lives) is a temporary folder."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    from tableref.ledger.store import default_path

    return default_path(create=False)


def test_watch_and_serve_share_one_ledger(tmp_path):
    db = tmp_path / "ledger.sqlite3"
    given = {"game": "desmoche", "players": P3, "source": "table.mp4"}
    watch = TableService.open(given, db=db, who="tableref watch")
    told = []
    watch.listen(told.append)
    play_a_hand(watch)
    assert [e["what"] for e in told if e["type"] == "ledger"] == ["hand"]
    watch.close()
    # the page, started later on the same ledger, shows the hand the watch refereed
    serve = TableService.open({}, db=db, who="tableref serve")
    app = create_app(serve, pin="1234")
    try:
        ledger = app.test_client().get("/api/ledger").get_json()
        assert len(ledger["hands"]) == 1
        hand = ledger["hands"][0]
        assert hand["winner"] == "Ana" and hand["net"]["Ana"] > 0 and sum(hand["net"].values()) + hand["pot"] == 0
        assert serve.setup()["source"] == "table.mp4" and serve.resumed
    finally:
        close_app(app)
        serve.close()


def test_hand_numbers_continue_across_restarts(tmp_path):
    db = tmp_path / "ledger.sqlite3"
    first = TableService.open({"players": P3, "source": "cam.mp4"}, db=db)
    play_a_hand(first)
    play_a_hand(first, t0=10)
    assert first.session.hand_no == 3
    first.close()
    again = TableService.open({}, db=db)
    try:
        assert again.session.hand_no == 3 and again.snapshot()["hand_no"] == 3
        play_a_hand(again, t0=20)
        hands = again.ledger.hands(again.session_id)
        assert [h["hand_no"] for h in hands] == [1, 2, 3]
        assert [h["result"]["hand_no"] for h in hands] == [1, 2, 3]    # the referee's number is the ledger's
        # a hand the host enters by hand takes the next number; the table's next hand follows it
        app = create_app(again, pin="1234")
        client = app.test_client()
        r = client.post("/api/hand/manual", json={"winner": "Beto", "net": {"Ana": -1, "Beto": 2, "Cris": -1},
                                                  "why": "played away from the camera"}, headers=_host(client))
        assert r.status_code == 200 and r.get_json()["hand"]["hand_no"] == 4
        close_app(app)
        play_a_hand(again, t0=25, clear=False)
        assert [h["result"].get("hand_no") for h in again.ledger.hands(again.session_id)][-1] == 5
        again.new_session(why="next evening")        # (the table still shows hand 3's end)
        play_a_hand(again, t0=30)
        assert [h["hand_no"] for h in again.ledger.hands(again.session_id)] == [1]
        assert again.session.hand_no == 2
    finally:
        again.close()


def test_a_second_server_on_a_ledger_in_use_refuses(tmp_path):
    db = tmp_path / "ledger.sqlite3"
    first = TableService.open({"players": P3, "source": "cam.mp4"}, db=db)
    try:
        with pytest.raises(LedgerInUse) as err:
            TableService.open({"players": ["X", "Y"], "source": "other.mp4"}, db=db)
        assert "in use" in err.value.message and str(os.getpid()) in err.value.message
        # the command line says so in one line, before touching anything
        out = subprocess.run([sys.executable, "-m", "tableref", "serve", "--db", str(db), "--port", "8765",
                              "--players", "X,Y"], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and "in use" in out.stderr and "Traceback" not in out.stderr
        assert first.setup()["players"] == P3            # the first one's setup was not rewritten
    finally:
        first.close()
    TableService.open({}, db=db).close()                 # free again once the first one stopped


def test_a_killed_holder_leaves_no_stale_lock(tmp_path):
    db = tmp_path / "ledger.sqlite3"
    code = ("import sys, time; from tableref.table.lock import LedgerLock; "
            f"lock = LedgerLock({str(db)!r}).acquire(); print('held', flush=True); time.sleep(60)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        with pytest.raises(LedgerInUse):
            LedgerLock(db).acquire()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    with LedgerLock(db) as lock:
        assert lock.held


def test_the_demo_never_touches_the_users_ledger(user_data):
    for given in ({}, {"source": "demo"}, {"source": "demo", "game": "marriage"}):
        demo = TableService.open(given)
        try:
            view = demo.ledger_view()
            assert view["temporary"] and view["path"] is None and view["note"] == DEMO_LEDGER_NOTE
            play_a_hand(demo) if demo.session.game == "desmoche" else None
        finally:
            demo.close()
        assert not user_data.parent.exists(), "the demo wrote into the user's data folder"
    # the page says where the hands go
    demo = TableService.open({})
    app = create_app(demo, pin="1234")
    try:
        page = app.test_client().get("/").get_data(as_text=True)
        assert 'id="temporary-ledger"' in page and "temporary ledger" in page
        assert app.test_client().get("/api/state").get_json()["ledger"]["temporary"] is True
    finally:
        close_app(app)
        demo.close()
    # a real table uses the user's ledger, and says nothing of a temporary one
    real = TableService.open({"source": "cam.mp4", "players": P3})
    app = create_app(real, pin="1234")
    try:
        assert not real.ledger_view()["temporary"] and Path(real.ledger_view()["path"]) == user_data
        assert 'id="temporary-ledger"' not in app.test_client().get("/").get_data(as_text=True)
        # the host switches that table to the demo clip: its hands stay out of the user's ledger
        told = []
        real.listen(told.append)
        real.session.reconfigure(source="demo")
        play_a_hand(real)
        assert real.ledger.hand_count(real.session_id) == 0
        assert [e.get("reason") for e in told] == ["demo"]
    finally:
        close_app(app)
        real.close()
    # started again without a source, the user's real table is resumed from the user's ledger
    again = TableService.open({})
    try:
        assert not again.ledger_view()["temporary"] and again.session.source == "cam.mp4"
    finally:
        again.close()


def test_watch_without_db_keeps_nothing(user_data):
    svc = TableService.open({"source": "cam.mp4", "players": P3}, db=MEMORY)
    try:
        play_a_hand(svc)
        assert svc.ledger.hand_count(svc.session_id) == 1 and svc.ledger_view()["temporary"]
    finally:
        svc.close()
    assert not user_data.exists()


def test_host_card_correction_is_journalled_as_a_correction(tmp_path):
    from tableref.vision.table_state import Meld, SeatState, StableTable, TableCard as VCard

    svc = TableService.open({"players": P3, "source": "cam.mp4"}, db=tmp_path / "l.sqlite3")
    try:
        s = svc.session
        # Ana's KH QH JH: the camera reads the king as AS
        st = S([[["AS", "QH", "JH"]], [], []], t=1)

        def vc(c):
            return VCard(c.track_id, c.card, 0.9, (0, 0, 1, 1), (0, 0), (0, 0), "seat0")

        table = StableTable(1.0, 0.5, 1, True, [SeatState(0, "seat0", "Ana", [Meld([vc(c) for c in st.seats[0].melds[0]])]),
                                                SeatState(1, "seat1", "Beto"), SeatState(2, "seat2", "Cris")])
        q = s.subscribe()
        s.feed_table(table)
        tid = st.seats[0].melds[0][0].track_id
        svc.correct_card(tid, "KH", why="the camera misread the king", who="Rosa")
        events = []
        while not q.empty():
            events.append(q.get_nowait())
        after = events[[e["type"] for e in events].index("correction"):]
        assert not [e for e in after if e["type"] == "illegal_move"], after
        assert s.snapshot()["seats"][0]["melds"][0]["valid"] is True
        entries = svc.ledger.entries(svc.session_id)
        kinds = [e["kind"] for e in entries]
        assert kinds[-1] == "card_correction" and "hand" not in kinds
        last = entries[-1]
        assert last["who"] == "Rosa" and last["why"] == "the camera misread the king"
    finally:
        svc.close()


def _host(client, pin="1234"):
    csrf = client.get("/api/csrf").get_json()["csrf"]
    assert client.post("/api/login", json={"pin": pin}, headers={"X-CSRF-Token": csrf}).status_code == 200
    return {"X-CSRF-Token": client.get("/api/csrf").get_json()["csrf"]}


def test_a_failed_source_is_replaced_without_a_restart(tmp_path):
    bad = tmp_path / "notes.mp4"
    bad.write_text("this is not a video")
    clip = ROOT / "tests" / "fixtures" / "table_clip" / "video.mp4"
    svc = TableService.open({"source": str(bad), "players": P3}, db=tmp_path / "l.sqlite3",
                            session_options={"realtime": False, "analyse_every": 1000})
    app = create_app(svc, pin="1234")
    client = app.test_client()
    s = svc.session
    s.start()
    try:
        deadline = time.time() + 60
        while time.time() < deadline and s.snapshot()["camera"]["status"] != "error":
            time.sleep(0.2)
        cam = client.get("/api/state").get_json()["table"]["camera"]
        assert cam["status"] == "error" and cam["source"] == str(bad), cam
        while s.running and time.time() < deadline:       # the camera thread has given up on it
            time.sleep(0.2)
        # the host sets another source on the setup page: no restart
        r = client.post("/api/setup", json={"source": str(clip)}, headers=_host(client))
        assert r.status_code == 200, r.get_json()
        state = client.get("/api/state").get_json()
        assert state["setup"]["source"] == str(clip)
        cam = state["table"]["camera"]
        assert cam["source"] == str(clip) and cam["status"] in ("connecting", "ok"), cam   # at once, not the old error
        while time.time() < deadline and s.frames_analysed == 0:
            time.sleep(0.2)
        assert s.frames_analysed > 0, s.snapshot()["camera"]
        cam = client.get("/api/state").get_json()["table"]["camera"]
        assert cam["source"] == str(clip) and cam["status"] in ("ok", "ended"), cam
    finally:
        close_app(app)
        svc.close()
