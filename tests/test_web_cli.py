"""``tableref serve``: start-up errors are clear, and a killed server resumes its ledger session."""
from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tableref.cli import build_parser
from tableref.cli.web import build_setup
from tableref.live.setup import SetupError

ROOT = Path(__file__).resolve().parents[1]
PIN = "975310"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def empty_table(folder: Path) -> str:
    """A camera source: a folder holding one picture of an empty (green) table."""
    import cv2
    import numpy as np

    folder.mkdir(exist_ok=True)
    cv2.imwrite(str(folder / "empty.png"), np.full((120, 160, 3), (40, 110, 40), np.uint8))
    return str(folder)


def serve(port, db, *extra):
    env = {k: v for k, v in os.environ.items() if k != "TABLEREF_PIN"}
    source = [] if "--source" in extra else ["--source", "phone"]     # a camera that sends nothing yet
    return subprocess.Popen([sys.executable, "-m", "tableref", "serve", "--port", str(port), "--db", str(db),
                             "--pin", PIN, *source, *extra], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def wait_up(proc, port):
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            pytest.fail(proc.stdout.read())
        try:
            return request(port, "GET", "/api/state")[1]
        except OSError:
            time.sleep(0.2)
    pytest.fail("server did not start")


def request(port, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request(method, path, body=json.dumps(body) if body is not None else None,
                 headers={"Content-Type": "application/json", **(headers or {})})
    resp = conn.getresponse()
    data = json.loads(resp.read() or b"null")
    cookie = resp.getheader("Set-Cookie")
    conn.close()
    return resp.status, data, cookie


def test_build_setup_resumes_and_overrides():
    args = build_parser().parse_args(["serve"])
    setup, changed = build_setup(args, None)
    assert setup.game == "desmoche" and setup.source == "demo" and len(setup.players) == setup.seats
    resumed = build_setup(build_parser().parse_args(
        ["serve", "--game", "marriage", "--players", "A,B,C", "--stake", "2", "--point-value", "0.5",
         "--source", "0"]), None)[0].as_dict()
    resumed["rules"]["tiplu_double"] = 8
    setup, changed = build_setup(args, resumed)
    assert setup.as_dict() == resumed and not changed
    args = build_parser().parse_args(["serve", "--players", "A,B,C,D", "--point-value", "1"])
    setup, changed = build_setup(args, resumed)
    assert changed and setup.players == ("A", "B", "C", "D") and setup.seats == 4
    assert setup.rules["tiplu_double"] == 8 and setup.game == "marriage"
    args = build_parser().parse_args(["serve", "--game", "desmoche"])
    setup, changed = build_setup(args, resumed)
    assert changed and setup.game == "desmoche" and "tiplu_double" not in setup.rules
    # seats and players said together must agree, as in tableref watch
    with pytest.raises(SetupError, match="must name 3 players"):
        build_setup(build_parser().parse_args(["serve", "--seats", "3", "--players", "A,B"]), None)


def test_startup_errors_are_clear(tmp_path):
    other = tmp_path / "recipes.sqlite3"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE recipes (x)")
    conn.commit()
    conn.close()
    out = subprocess.run([sys.executable, "-m", "tableref", "serve", "--db", str(other)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "not a tableref ledger" in out.stderr and "Traceback" not in out.stderr
    out = subprocess.run([sys.executable, "-m", "tableref", "serve", "--db", str(tmp_path / "l.sqlite3"),
                          "--game", "desmoche", "--players", "A,B,C,D,E"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "2 to 4 players" in out.stderr and "Traceback" not in out.stderr
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        out = subprocess.run([sys.executable, "-m", "tableref", "serve", "--db", str(tmp_path / "l.sqlite3"),
                              "--port", str(port)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and f"--port: port {port} is in use" in out.stderr and "Traceback" not in out.stderr


def _serve_refuses(*args, cwd=ROOT):
    out = subprocess.run([sys.executable, "-m", "tableref", "serve", "--port", "8769", *args], cwd=cwd,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr, out.stderr
    return out.stderr


@pytest.mark.parametrize("args,says", [
    (["--host", "999.1.1.1"], "--host: 999.1.1.1 is not an address of this computer"),
    (["--host", "10.99.99.99"], "--host: 10.99.99.99 is not an address of this computer"),
    (["--seats", "0"], "argument --seats: must be a whole number from 1 up"),
    (["--seats", "-1"], "argument --seats: must be a whole number from 1 up"),
    (["--seats", "9"], "--seats: Desmoche is played by 2 to 4 players, not 9"),
    (["--seats", "3", "--players", "A,B"], "--players: 'players' must name 3 players"),
    (["--players", "A,B,C,D,E"], "--players: Desmoche is played by 2 to 4 players, not 5"),
    (["--stake", "1.5"], "argument --stake: must be a whole number"),
    (["--stake", "nan"], "argument --stake: must be a whole number"),
    (["--point-value", "0.125"], "argument --point-value: must be a whole number of cents"),
    (["--point-value", "nan"], "argument --point-value: must be a finite amount"),
    (["--port", "0"], "argument --port: must be a whole number from 1 to 65535"),
    (["--video-fps", "0"], "argument --video-fps: must be a number above 0"),
    (["--evidence-hands", "-1"], "argument --evidence-hands: must be a whole number from 0 up"),
    (["--source", "/nope.mp4"], "--source: source not found: '/nope.mp4'"),
    (["--db", "/proc/x.sqlite3"], "--db: cannot open the ledger /proc/x.sqlite3: no file can be made in /proc"),
    (["--db", "file.jpg/l.sqlite3"],
     "--db: cannot open the ledger file.jpg/l.sqlite3: file.jpg is a file, not a folder"),
])
def test_bad_options_are_one_line_naming_the_option(tmp_path, args, says):
    (tmp_path / "file.jpg").write_bytes(b"not a folder")
    if "--db" not in args:
        args = [*args, "--db", str(tmp_path / "l.sqlite3")]
    err = _serve_refuses(*args, cwd=tmp_path)
    assert says in err and "[Errno" not in err, err
    if args[0] in ("--source", "--host"):       # said before the ledger is touched: nothing stored
        assert not (tmp_path / "l.sqlite3").exists()


def test_a_source_that_fails_is_said_in_the_terminal_and_a_resumed_one_named(tmp_path):
    """A camera that cannot be opened is said in the terminal (one line, no OpenCV noise); restarting
    without --source says it resumes the ledger session's source, and that it is gone now."""
    db = tmp_path / "ledger.sqlite3"
    table = empty_table(tmp_path / "frames")
    port = free_port()
    proc = serve(port, db, "--source", "7", "--players", "Ana,Beto")      # no webcam 7 on a test machine
    try:
        wait_up(proc, port)
        time.sleep(1.5)
    finally:
        proc.terminate()
        out = proc.communicate(timeout=60)[0]
    assert "camera reconnecting: camera 7 cannot be opened" in out and out.count("camera 7 cannot be opened") == 1, out
    assert "[ WARN" not in out and "VIDEOIO" not in out and "Traceback" not in out, out
    proc = serve(port, db, "--source", table)
    try:
        wait_up(proc, port)
    finally:
        proc.terminate()
        proc.communicate(timeout=60)
    (tmp_path / "frames" / "empty.png").unlink()
    (tmp_path / "frames").rmdir()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "TABLEREF_PIN"}
    proc = subprocess.Popen([sys.executable, "-m", "tableref", "serve", "--port", str(port), "--db", str(db),
                             "--pin", PIN], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    try:
        wait_up(proc, port)
    finally:
        proc.terminate()
        out = proc.communicate(timeout=60)[0]
    assert f"source {table} (as the ledger session had it)" in out, out
    assert f"camera  source not found: '{table}'" in out and "choose another on the Setup page" in out, out


def test_killed_server_resumes_its_session(tmp_path):
    db = tmp_path / "ledger.sqlite3"
    port = free_port()
    proc = serve(port, db, "--players", "Ana,Beto,Cris")
    try:
        wait_up(proc, port)
        # The host records a hand through the API (as after a camera failure).
        status, data, cookie = request(port, "GET", "/api/csrf")
        jar = {"Cookie": cookie.split(";")[0]}
        status, data, cookie = request(port, "POST", "/api/login", {"pin": PIN},
                                       {**jar, "X-CSRF-Token": data["csrf"]})
        assert status == 200, data
        jar = {"Cookie": cookie.split(";")[0], "X-CSRF-Token": data["csrf"]}
        status, data, _ = request(port, "POST", "/api/hand/manual",
                                  {"winner": "Beto", "net": {"Ana": -1, "Beto": 2, "Cris": -1}, "why": "test"}, jar)
        assert status == 200, data
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    # Restart without any table options: the session, its setup and its hand are back.
    port = free_port()
    proc = serve(port, db)
    try:
        state = wait_up(proc, port)
        assert state["setup"]["players"] == ["Ana", "Beto", "Cris"]
        assert state["table"]["players"] == ["Ana", "Beto", "Cris"]
        status, ledger, _ = request(port, "GET", "/api/ledger")
        assert ledger["session"]["id"] == 1 and len(ledger["hands"]) == 1
        assert ledger["balances"] == {"Ana": -1, "Beto": 2, "Cris": -1}
        # the old cookie is worthless after a restart
        status, data, _ = request(port, "POST", "/api/undo", {"why": "x"}, jar)
        assert status in (401, 403)
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    assert proc.returncode == 0


@pytest.mark.parametrize("back", ["ok", "soft", "small", "blurred"])
def test_the_terminal_says_once_when_the_camera_fails_and_when_frames_come_again(caplog, back):
    """``serve`` says a camera's trouble once (however often it retries) and says so when frames come
    again, also where the picture they bring has a problem the page tells about (out of focus, too
    small, blurred); a status before any trouble is not said."""
    import logging
    import queue

    from tableref.cli.web import report_camera

    class Session:
        def __init__(self):
            self.q = queue.Queue()

        def subscribe(self):
            return self.q

    s = Session()
    statuses = ["ok", "soft", "reconnecting", "reconnecting", "reconnecting", back, "ok"]
    with caplog.at_level(logging.INFO, logger="tableref.camera"):
        report_camera(s)
        for st in statuses:
            s.q.put({"type": "camera_status", "status": st, "message": f"m-{st}"})
        deadline = time.monotonic() + 5
        while not s.q.empty() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.1)
    said = [r.getMessage() for r in caplog.records if r.name == "tableref.camera"]
    assert said == ["camera reconnecting: m-reconnecting", f"camera {back}: m-{back}"]
