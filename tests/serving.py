"""Start a real ``tableref serve`` for a test and wait until it answers (shared by the browser tests)."""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def running_server(args: list[str], ready, timeout: float = 60, what: str = "tableref serve", env: dict | None = None):
    """Run ``python -m tableref serve ARGS`` until the block ends; ``ready()`` is polled until true."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
    env.pop("TABLEREF_PIN", None)
    proc = subprocess.Popen([sys.executable, "-m", "tableref", "serve", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.time() + timeout
        while True:
            if proc.poll() is not None:
                pytest.fail(f"{what} exited with {proc.returncode}:\n{proc.stdout.read()}")
            try:
                if ready():
                    break
            except OSError:
                pass
            if time.time() > deadline:
                pytest.fail(f"{what} did not answer within {timeout:g} s")
            time.sleep(0.3)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
