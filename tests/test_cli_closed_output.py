"""A command whose reader goes away (`tableref ... | head`) stops quietly: no traceback in the terminal."""
from __future__ import annotations

import json
import os
import subprocess
import sys

REQUEST = {"players": [{"name": "p1", "melds": [["AS", "2S", "3S", "4S"], ["5H", "5C", "5D"], ["9C", "10C", "JC"]]},
                       "p2"], "winner": "p1"}


def _run_into_closed_pipe(args, stdin_text=""):
    read_end, write_end = os.pipe()
    os.close(read_end)                      # the reader is gone before the command writes a byte
    try:
        return subprocess.run([sys.executable, "-m", "tableref", *args], input=stdin_text, stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=120,
                              env=dict(os.environ, YOLO_OFFLINE="1"))
    finally:
        os.close(write_end)


def test_a_json_command_into_a_closed_pipe_says_nothing():
    done = _run_into_closed_pipe(["desmoche", "settle", "-"], json.dumps(REQUEST))
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr
    assert done.returncode == 1


def test_a_marriage_command_into_a_closed_pipe_says_nothing():
    done = _run_into_closed_pipe(["marriage", "settle", "-"], json.dumps(
        {"winner": "a", "players": [{"name": "a", "maal": 3}, {"name": "b", "maal": 0}]}))
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr
