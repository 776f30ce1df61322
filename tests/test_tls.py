"""HTTPS on the LAN: the self-signed certificate (made once, kept, renewed when the address
changes) and ``tableref serve --https`` answering over TLS with the fingerprint it printed."""
from __future__ import annotations

import hashlib
import http.client
import os
import re
import socket
import ssl
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tableref.web.tls import ensure_certificate

ROOT = Path(__file__).resolve().parents[1]


def test_certificate_is_made_once_and_kept(tmp_path):
    first = ensure_certificate(tmp_path / "tls")
    assert first.created and first.cert.exists() and first.key.exists()
    assert stat.S_IMODE(os.stat(first.key).st_mode) == 0o600
    der = ssl.PEM_cert_to_DER_cert(first.cert.read_text())
    assert first.fingerprint == ":".join(f"{b:02X}" for b in hashlib.sha256(der).digest())
    assert "127.0.0.1" in first.names and "localhost" in first.names
    again = ensure_certificate(tmp_path / "tls")
    assert not again.created and again.fingerprint == first.fingerprint
    # this computer got another LAN address: a certificate that names it
    moved = ensure_certificate(tmp_path / "tls", addresses=["192.168.77.5"])
    assert moved.created and "192.168.77.5" in moved.names and moved.fingerprint != first.fingerprint
    # a damaged file is replaced, not a crash
    moved.cert.write_text("garbage")
    assert ensure_certificate(tmp_path / "tls").created


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_https_prints_the_fingerprint_and_answers_over_tls(tmp_path):
    port = _free_port()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "PYTHONUNBUFFERED": "1"}
    env.pop("TABLEREF_PIN", None)
    proc = subprocess.Popen([sys.executable, "-m", "tableref", "serve", "--https", "--port", str(port),
                             "--db", str(tmp_path / "ledger.sqlite3"), "--pin", "112233", "--source", "phone"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            line = proc.stdout.readline()
            if not line:
                pytest.fail("tableref serve --https exited:\n" + "".join(lines))
            lines.append(line)
            if "host PIN" in line:
                break
        for _ in range(6):
            lines.append(proc.stdout.readline())
        out = "".join(lines)
        assert f"https://127.0.0.1:{port}/" in out, out
        m = re.search(r"SHA-256 fingerprint\s+([0-9A-F:]{95})", out)
        assert m, out
        assert (tmp_path / "data" / "tableref" / "tls" / "cert.pem").exists()
        # a phone cannot open this computer's loopback address: the host is told how to serve for it
        assert "a phone cannot open 127.0.0.1: serve with --host 0.0.0.0" in out
        assert "camera on the phone" not in out

        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE          # the test only: the certificate is self-signed
        conn = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=10)
        conn.request("GET", "/api/state")
        resp = conn.getresponse()
        assert resp.status == 200 and b'"source"' in resp.read()
        der = conn.sock.getpeercert(binary_form=True)
        assert ":".join(f"{b:02X}" for b in hashlib.sha256(der).digest()) == m.group(1)
        conn.close()
        # the cookie is marked Secure over HTTPS
        conn = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=10)
        conn.request("GET", "/api/csrf")
        resp = conn.getresponse()
        resp.read()
        assert "Secure" in (resp.getheader("Set-Cookie") or "")
        conn.close()
        # plain HTTP on the HTTPS port gets no page
        plain = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        try:
            plain.request("GET", "/api/state")
            status = plain.getresponse().status
        except (OSError, http.client.HTTPException):
            status = None
        finally:
            plain.close()
        assert status != 200
        # browsers that go away mid-handshake, mid-request or refusing the certificate leave no traceback
        for how in ("handshake", "request", "refuse"):
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            if how == "refuse":
                with pytest.raises(ssl.SSLError):
                    ssl.create_default_context().wrap_socket(sock, server_hostname="127.0.0.1")
                continue
            tls = ctx.wrap_socket(sock)
            if how == "request":
                tls.send(b"GET /api/state HTTP/1.1\r\nHost: x\r\n")
            sock.close()
        time.sleep(1)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)        # a loaded machine may still be loading the card reader
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    rest = proc.stdout.read()
    assert proc.returncode == 0, rest
    assert "Traceback" not in rest and "SSLEOFError" not in rest, rest
