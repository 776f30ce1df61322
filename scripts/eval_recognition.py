#!/usr/bin/env python3
"""Evaluate card recognition: per-card precision/recall, confusion pairs, speed.

    python scripts/eval_recognition.py                       # real photos (../shared/data/real-photos-rank-only)
    python scripts/eval_recognition.py --synthetic DIR       # + a labelled synthetic scene set
    python scripts/eval_recognition.py --real DIR --errors /tmp/misses --json out.json

Same as ``tableref evaluate``; see ``tableref/training/evaluation.py`` for the matching rules.
Rank level on the real photos (they carry ranks 9-A and whole-card boxes only):
a labelled card is found when a reported card of that rank has its centre inside
the labelled box; precision = reported cards matching a labelled box of their rank
/ all reported cards.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tableref.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["evaluate", *sys.argv[1:]]))
