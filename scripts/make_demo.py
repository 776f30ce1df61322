#!/usr/bin/env python
"""Build the built-in demo clips in ``tableref/demo/`` from simulated hands.

    python scripts/make_demo.py                         # the committed seeds
    python scripts/make_demo.py --desmoche 146 --marriage 116

Each game gets ``<game>.mp4`` (the video ``tableref watch`` / ``tableref serve``
show when no camera is given) and ``<game>.json`` (the players, seats and the
simulator's truth, so the demo can be checked).
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "tableref" / "demo"
DEFAULT_SEEDS = {"desmoche": 133, "marriage": 106}
DECKS = {"desmoche": "kennard-2color", "marriage": "kde-standard"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--desmoche", type=int, default=DEFAULT_SEEDS["desmoche"])
    ap.add_argument("--marriage", type=int, default=DEFAULT_SEEDS["marriage"])
    args = ap.parse_args(argv)
    DEMO.mkdir(parents=True, exist_ok=True)
    for game, seed in (("desmoche", args.desmoche), ("marriage", args.marriage)):
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, "-m", "tableref", "simulate", game, "--seed", str(seed), "--out", tmp,
                            "--deck", DECKS[game]], check=True, cwd=ROOT)
            truth = json.loads((Path(tmp) / "truth.json").read_text())
            shutil.copy(Path(tmp) / "video.mp4", DEMO / f"{game}.mp4")
        meta = {"game": game, "seed": seed, "players": truth["players"], "seats": len(truth["players"]),
                "made_by": f"tableref simulate {game} --seed {seed} --deck {DECKS[game]}", "truth": truth}
        (DEMO / f"{game}.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False))
        size = (DEMO / f"{game}.mp4").stat().st_size
        print(f"{game}: seed {seed}, {len(truth['players'])} players, winner {truth['winner']}, "
              f"net {truth['net']}, {size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
