#!/usr/bin/env python
"""Take the README's screenshot: the live page of ``tableref serve`` with the demo table.

Starts the real server (demo source, throw-away ledger) on a free loopback port,
opens the page in headless Chromium (``/usr/bin/chromium`` through Playwright),
waits until the demo's melds carry the referee's verdicts, and saves a PNG.

    python scripts/screenshot.py                       # docs/screenshot.png, 1280x900
    python scripts/screenshot.py --phone --out /tmp/phone.png
"""
from __future__ import annotations

import argparse
import http.client
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(ROOT / "docs" / "screenshot.png"))
    ap.add_argument("--phone", action="store_true", help="a phone-sized page (412x915) instead of 1280x900")
    ap.add_argument("--min-melds", type=int, default=3, help="wait until this many melds are on the table")
    ap.add_argument("--settle", type=float, default=3.0, help="seconds to wait after that (camera picture, events)")
    ap.add_argument("--timeout", type=float, default=180.0)
    ap.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser"),
                    help="the Chromium program (default: chromium on the PATH)")
    args = ap.parse_args(argv)
    if not args.chromium:
        print("error: --chromium: no chromium on the PATH; name the program", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    tmp = tempfile.TemporaryDirectory()
    proc = subprocess.Popen([sys.executable, "-m", "tableref", "serve", "--port", str(port), "--db",
                             os.path.join(tmp.name, "l.sqlite3"), "--pin", "000000"], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while True:
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                c.request("GET", "/api/state")
                if c.getresponse().status == 200:
                    break
            except OSError:
                if time.time() > deadline:
                    print("the server did not start", file=sys.stderr)
                    return 1
                time.sleep(0.3)
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=args.chromium, args=ARGS)
            size = {"width": 412, "height": 915} if args.phone else {"width": 1280, "height": 900}
            page = b.new_page(viewport=size, device_scale_factor=1)
            page.goto(f"http://127.0.0.1:{port}/")
            page.wait_for_selector(".cam-ok", timeout=args.timeout * 1000)
            page.wait_for_function(
                f"document.querySelectorAll('.meld.valid, .meld.invalid, .meld.out-of-order').length >= {args.min_melds}",
                timeout=args.timeout * 1000)
            time.sleep(args.settle)  # let the video frame catch up
            page.screenshot(path=args.out, full_page=False)
            b.close()
        print(f"wrote {args.out}")
        return 0
    finally:
        proc.terminate()
        proc.wait(timeout=15)
        tmp.cleanup()


if __name__ == "__main__":
    sys.exit(main())
