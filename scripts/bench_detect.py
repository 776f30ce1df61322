#!/usr/bin/env python3
"""Speed of card recognition with the model loaded, on 2 CPU threads.

    python scripts/bench_detect.py                 # generated 52-card frames: 1280x720, 1920x1080, 12 MP
    python scripts/bench_detect.py IMAGE...        # or these images
    taskset -c 0,1 python scripts/bench_detect.py  # pin to two cores on a bigger machine

Same as ``tableref bench-detect``. Prints median and p90 milliseconds per frame
(detector + classifier + assembly, image already decoded) and how many of the 52
cards were found.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tableref.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["bench-detect", *sys.argv[1:]]))
