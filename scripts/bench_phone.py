#!/usr/bin/env python
"""The phone camera path, measured: frames sent and analysed per second, upload latency, drops.

Starts the real ``tableref serve --https --source phone`` (throw-away ledger and certificate) on
a free loopback port and plays the built-in demo video into it exactly as the Camera page
does: log in with the PIN, then one 1280x720 JPEG (quality 80) at a time to
``POST /api/camera/frame``, the next only when the server has answered (a frame refused as too
fast, 429, is followed by the wait the answer asks for, as the page waits). Prints frames sent per
second, the analysis rate the server reported, upload round-trip p50/p95, frames dropped
(a frame replaced before the session read it: with this pacing it stays 0, i.e. no queue), frames
refused as too fast and the melds the table read, with ``cat /proc/loadavg``.

    python scripts/bench_phone.py                  # 40 s
    python scripts/bench_phone.py --seconds 20 --json
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
PIN = "700700"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    """One HTTPS connection with the session cookie, like the phone's browser."""

    def __init__(self, port: int):
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE      # the server's own self-signed certificate, on loopback
        self.conn = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=30)
        self.cookie = ""
        self.csrf = ""

    def request(self, method: str, path: str, body: bytes | None = None, ctype: str = "application/json"):
        headers = {"Content-Type": ctype}
        if self.cookie:
            headers["Cookie"] = self.cookie
        if self.csrf:
            headers["X-CSRF-Token"] = self.csrf
        self.conn.request(method, path, body=body, headers=headers)
        resp = self.conn.getresponse()
        data = resp.read()
        set_cookie = resp.getheader("Set-Cookie")
        if set_cookie:
            self.cookie = set_cookie.split(";", 1)[0]
        return resp.status, json.loads(data or b"null")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=40.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    video = ROOT / "tableref" / "demo" / "desmoche.mp4"
    cap = cv2.VideoCapture(str(video))
    fps = cap.get(cv2.CAP_PROP_FPS) or 6.0
    frames = []
    while True:
        ok, img = cap.read()
        if not ok:
            break
        frames.append(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])[1].tobytes())
    cap.release()

    tmp = Path(tempfile.mkdtemp(prefix="tableref-bench-phone-"))
    port = free_port()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp / "data"), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "tableref", "serve", "--https", "--port", str(port),
                             "--db", str(tmp / "ledger.sqlite3"), "--pin", PIN, "--source", "phone",
                             "--players", "Ana,Beto,Cris,Dani"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 90
        while True:
            try:
                c = Client(port)
                status, tok = c.request("GET", "/api/csrf")
                break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    print("tableref serve --https did not start", file=sys.stderr)
                    return 2
                time.sleep(0.3)
        c.csrf = tok["csrf"]
        status, body = c.request("POST", "/api/login", json.dumps({"pin": PIN, "name": "bench"}).encode())
        if status != 200:
            print(f"login failed: {status} {body}", file=sys.stderr)
            return 2
        c.csrf = body["csrf"]

        lat, sent, not_taken, refused, last, answer = [], 0, 0, 0, {}, {}
        t0 = time.monotonic()
        while time.monotonic() - t0 < args.seconds:
            # the picture the phone's camera shows now (the clip loops, in real time)
            i = int((time.monotonic() - t0) * fps) % len(frames)
            s = time.perf_counter()
            status, last = c.request("POST", "/api/camera/frame", frames[i], "image/jpeg")
            if status == 503:                  # the server is still loading its card reader
                time.sleep(last.get("retry_after_ms", 1000) / 1000)
                t0 = time.monotonic()
                continue
            if status == 429:                  # faster than the server takes frames: wait, as the page does
                refused += 1
                time.sleep(last.get("retry_after_ms", 200) / 1000)
                continue
            lat.append((time.perf_counter() - s) * 1000)
            if status != 200:
                print(f"upload refused: {status} {last}", file=sys.stderr)
                return 1
            sent += 1
            not_taken += 0 if last["taken"] else 1
            answer = last
        wall = time.monotonic() - t0
        status, state = c.request("GET", "/api/state")
        table = state["table"]
        melds = sorted(" ".join(m["cards"]) for s in table["seats"] for m in s["melds"])
        lat.sort()
        out = {
            "seconds": round(wall, 1), "frames_sent": sent, "sent_per_s": round(sent / wall, 2),
            "analysed_fps_reported": answer.get("analysed_fps"), "frames_analysed": table.get("frames_analysed"),
            "ms_per_frame": table.get("ms_per_frame"), "dropped": answer.get("dropped"),
            "not_taken_in_time": not_taken, "refused_too_fast": refused,
            "upload_ms_p50": round(lat[len(lat) // 2], 1), "upload_ms_p95": round(lat[int(len(lat) * 0.95) - 1], 1),
            "camera": table["camera"]["status"], "melds_read": melds,
            "loadavg": Path("/proc/loadavg").read_text().strip() if Path("/proc/loadavg").exists() else "",
        }
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        for k, v in out.items():
            print(f"{k:24s} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
