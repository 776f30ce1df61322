"""``tableref serve`` stops at once on SIGTERM, even with phones watching, and logs no line per page change."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def open_stream(port: int, path: str) -> socket.socket:
    """A raw HTTP GET left open, as a phone watching the page keeps it."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(4096)
    assert head.startswith(b"HTTP/1.1 200"), head[:200]
    return s


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_stops_within_a_second_with_streams_open(tmp_path, sig):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "TABLEREF_PIN"}
    proc = subprocess.Popen([sys.executable, "-m", "tableref", "serve", "--port", str(port), "--db",
                             str(tmp_path / "l.sqlite3"), "--pin", "2468", "--source", "phone"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    streams = []
    try:
        deadline = time.time() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(proc.stdout.read())
            try:
                streams.append(open_stream(port, "/api/events"))
                break
            except OSError:
                if time.time() > deadline:
                    pytest.fail("server did not start")
                time.sleep(0.2)
        streams.append(open_stream(port, "/video.mjpg"))
        # A phone moving to another page: its event stream ends from the client side.
        gone = open_stream(port, "/api/events")
        gone.close()
        time.sleep(1.0)
        t0 = time.monotonic()
        proc.send_signal(sig)
        out, _ = proc.communicate(timeout=15)
        took = time.monotonic() - t0
    finally:
        for s in streams:
            s.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, out
    # waitress alone waits 5 s for busy threads; the streams must end when the server stops.
    # (1 s is the aim, measured ~0.4 s; the margin is for a loaded test machine.)
    assert took < 2.5, f"{sig.name} took {took:.2f} s"
    assert "Client disconnected" not in out, out
