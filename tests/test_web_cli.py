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


def serve(port, db, *extra):
    env = {k: v for k, v in os.environ.items() if k != "TABLEREF_PIN"}
    return subprocess.Popen([sys.executable, "-m", "tableref", "serve", "--port", str(port), "--db", str(db),
                             "--pin", PIN, "--source", "no-such-camera.mp4", *extra], cwd=ROOT, env=env,
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
    assert out.returncode == 2 and "cannot listen" in out.stderr and "--port" in out.stderr


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
