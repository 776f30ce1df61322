#!/usr/bin/env python
"""Load test of ``tableref serve``: N phones watching the live table at once.

Each simulated viewer holds the two long-lived streams a phone holds on the live
page -- the Server-Sent Events (``/api/events``) and the annotated video
(``/video.mjpg``) -- and does what the page's JavaScript does: re-read
``/api/state`` after events (at most every 0.15 s, like the page's debounce) and
every 5 s anyway, and open the scoreboard (``/api/ledger``) now and then. The
latency of every API request is recorded; the script prints p50/p95/p99/max,
frames and events received, and errors, and exits 1 if p95 exceeds the limit.

By default it starts its own server (the real ``tableref serve`` with the
built-in demo table, a throw-away ledger) on a free loopback port:

    python scripts/load_test.py                      # 30 viewers, 60 s, p95 limit 200 ms
    python scripts/load_test.py --viewers 10 --seconds 20
    python scripts/load_test.py --url http://127.0.0.1:8000   # an already running server
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, db: str, extra: list[str]) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "tableref", "serve", "--host", "127.0.0.1", "--port", str(port), "--db", db,
           "--pin", "135790", *extra]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 90
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode}:\n{proc.stdout.read()}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/api/state")
            if conn.getresponse().status == 200:
                conn.close()
                return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("the server did not come up within 90 s")


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = {}
        self.errors: list[str] = []
        self.frames = 0
        self.frame_bytes = 0
        self.events = 0

    def add(self, path: str, seconds: float) -> None:
        with self.lock:
            self.latency.setdefault(path, []).append(seconds)

    def error(self, text: str) -> None:
        with self.lock:
            if len(self.errors) < 50:
                self.errors.append(text)


def api_get(host, port, path, stats: Stats, conn_box: list) -> None:
    t0 = time.perf_counter()
    try:
        if conn_box[0] is None:
            conn_box[0] = http.client.HTTPConnection(host, port, timeout=10)
        conn = conn_box[0]
        conn.request("GET", path)
        resp = conn.getresponse()
        data = resp.read()
        dt = time.perf_counter() - t0
        if resp.status != 200:
            stats.error(f"{path}: HTTP {resp.status}")
        else:
            json.loads(data)
        stats.add(path.split("?")[0], dt)
    except (OSError, http.client.HTTPException, ValueError) as exc:
        stats.error(f"{path}: {type(exc).__name__}: {exc}")
        if conn_box[0] is not None:
            conn_box[0].close()
        conn_box[0] = None


def stream_reader(host, port, path, stats: Stats, stop: threading.Event, on_event=None) -> None:
    """Hold one stream open, reading as a phone does; count frames (MJPEG) or events (SSE)."""
    while not stop.is_set():
        try:
            sock = socket.create_connection((host, port), timeout=5)
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: keep-alive\r\n\r\n".encode())
            sock.settimeout(1.0)
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = sock.recv(4096)
                if not chunk:
                    raise OSError("closed before headers")
                head += chunk
            status = head.split(b"\r\n", 1)[0]
            if b" 200 " not in status:
                stats.error(f"{path}: {status.decode(errors='replace')}")
                sock.close()
                stop.wait(1.0)
                continue
            tail = head.split(b"\r\n\r\n", 1)[1]
            marker = b"--tablerefframe" if path.startswith("/video") else b"data: "
            carry = tail
            while not stop.is_set():
                n = carry.count(marker)
                if n:
                    with stats.lock:
                        if marker == b"data: ":
                            stats.events += n
                        else:
                            stats.frames += n
                    if on_event is not None and marker == b"data: ":
                        on_event()
                carry = carry[-len(marker):]
                try:
                    chunk = sock.recv(65536)
                except socket.timeout:
                    continue
                if not chunk:
                    raise OSError("stream closed by the server")
                if marker != b"data: ":
                    with stats.lock:
                        stats.frame_bytes += len(chunk)
                carry += chunk
            sock.close()
        except OSError as exc:
            if not stop.is_set():
                stats.error(f"{path}: {exc}")
                stop.wait(0.5)


def viewer(host, port, stats: Stats, stop: threading.Event, index: int) -> None:
    dirty = threading.Event()
    threading.Thread(target=stream_reader, args=(host, port, "/api/events", stats, stop, dirty.set),
                     daemon=True).start()
    threading.Thread(target=stream_reader, args=(host, port, "/video.mjpg", stats, stop), daemon=True).start()
    conn = [None]
    last_state = 0.0
    last_ledger = time.monotonic() + index * 0.3
    api_get(host, port, "/api/state", stats, conn)
    while not stop.is_set():
        now = time.monotonic()
        if dirty.is_set() and now - last_state >= 0.15 or now - last_state >= 5.0:
            dirty.clear()
            last_state = now
            api_get(host, port, "/api/state", stats, conn)
        if now - last_ledger >= 10.0:
            last_ledger = now
            api_get(host, port, "/api/ledger", stats, conn)
        stop.wait(0.05)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    k = min(len(values) - 1, max(0, int(round(q / 100 * (len(values) - 1)))))
    return values[k]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--viewers", type=int, default=30)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--url", default=None, help="test a running server instead of starting one")
    ap.add_argument("--limit-ms", type=float, default=200.0, help="p95 API latency limit (default 200 ms)")
    ap.add_argument("--json", action="store_true", help="print the numbers as one JSON object")
    ap.add_argument("server_args", nargs="*", help="extra arguments for tableref serve (after --)")
    args = ap.parse_args(argv)

    proc = None
    tmp = None
    if args.url:
        u = urlparse(args.url)
        host, port = u.hostname, u.port or 80
    else:
        tmp = tempfile.TemporaryDirectory()
        host, port = "127.0.0.1", free_port()
        print(f"starting tableref serve on {host}:{port} ...", file=sys.stderr)
        proc = start_server(port, os.path.join(tmp.name, "ledger.sqlite3"), args.server_args)
    stats = Stats()
    stop = threading.Event()
    try:
        threads = [threading.Thread(target=viewer, args=(host, port, stats, stop, i), daemon=True)
                   for i in range(args.viewers)]
        t_start = time.time()
        for t in threads:
            t.start()
            time.sleep(0.02)
        try:
            from tqdm import tqdm

            for _ in tqdm(range(int(args.seconds)), desc=f"{args.viewers} viewers", unit="s", file=sys.stderr):
                time.sleep(1)
        except ImportError:
            time.sleep(args.seconds)
        elapsed = time.time() - t_start
        stop.set()
        for t in threads:
            t.join(timeout=5)
        state = None
        try:
            conn = http.client.HTTPConnection(host, port, timeout=5)
            conn.request("GET", "/api/state")
            state = json.loads(conn.getresponse().read())
        except (OSError, ValueError):
            pass
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
        if tmp is not None:
            tmp.cleanup()

    all_lat = [x for v in stats.latency.values() for x in v]
    result = {
        "viewers": args.viewers, "seconds": round(elapsed, 1), "api_requests": len(all_lat),
        "api_p50_ms": round(pct(all_lat, 50) * 1000, 1), "api_p95_ms": round(pct(all_lat, 95) * 1000, 1),
        "api_p99_ms": round(pct(all_lat, 99) * 1000, 1), "api_max_ms": round(max(all_lat, default=0) * 1000, 1),
        "per_path": {p: {"n": len(v), "p50_ms": round(pct(v, 50) * 1000, 1), "p95_ms": round(pct(v, 95) * 1000, 1)}
                     for p, v in stats.latency.items()},
        "video_frames": stats.frames, "video_fps_per_viewer": round(stats.frames / elapsed / max(1, args.viewers), 2),
        "video_mbytes": round(stats.frame_bytes / 1e6, 1), "sse_events": stats.events,
        "errors": len(stats.errors), "first_errors": stats.errors[:5],
        "server_camera": (state or {}).get("table", {}).get("camera"),
        "server_analysis_fps": ((state or {}).get("table", {}).get("camera") or {}).get("fps"),
    }
    ok = result["api_p95_ms"] <= args.limit_ms and result["errors"] == 0 and len(all_lat) > 0
    if args.json:
        print(json.dumps(result))
    else:
        print(f"viewers {result['viewers']}, {result['seconds']} s, {result['api_requests']} API requests")
        print(f"API latency ms: p50 {result['api_p50_ms']}  p95 {result['api_p95_ms']}  p99 {result['api_p99_ms']}"
              f"  max {result['api_max_ms']}  (limit p95 {args.limit_ms})")
        for p, v in result["per_path"].items():
            print(f"  {p}: n={v['n']} p50 {v['p50_ms']} p95 {v['p95_ms']}")
        print(f"video: {result['video_frames']} frames ({result['video_fps_per_viewer']} fps per viewer, "
              f"{result['video_mbytes']} MB); SSE events: {result['sse_events']}")
        print(f"server camera: {result['server_camera']}")
        print(f"errors: {result['errors']} {result['first_errors']}")
        print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
