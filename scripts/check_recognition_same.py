#!/usr/bin/env python3
"""Every card the recogniser reads, written to one JSON file, or compared with such a file.

Proves that a change to the recogniser's code leaves what it reads unchanged: run it before
the change (``--out``), then after (``--compare``); it exits 1 when any card, box, score, pass
or setting differs.

    python scripts/check_recognition_same.py --out /tmp/before.json \\
        --real-table ../shared/data/real-table --photos ../shared/data/real-photos-rank-only
    python scripts/check_recognition_same.py --compare /tmp/before.json \\
        --real-table ../shared/data/real-table --photos ../shared/data/real-photos-rank-only

What is read (each path an argument; a folder left out is skipped):

* every image of ``--real-table``, ``--photos`` and ``--fixtures`` (default ``tests/fixtures``)
  and ``--render N`` scenes from the training-data renderer, each once with the photo settings
  (as ``tableref detect``) and once with a camera's (as ``tableref bench-detect``), one recogniser
  of each for all the images;
* sequences read through one recogniser with the live session's settings for a game (the
  readings and views kept from frame to frame): each ``--clip VIDEO:GAME`` (default the test
  clip and the two demo clips), and each 1280x720 real-table frame repeated with shifts of
  0-2 px (Desmoche).

Per card: the label, the box and quad rounded to 0.1 px, the confidence rounded to 4 places and
whether it is a fresh look; per image the recogniser's passes and counts; per recogniser its
settings. The environment variables the recogniser honours must be unset (or the same) in both
runs.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from tableref.games import GAME_NAMES

IMAGE_EXTS = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}
REPO = Path(__file__).resolve().parents[1]
# the real-table frame repeated: the shifts (dx, dy) of its successive frames, in pixels
SHIFTS = [(0, 0), (0, 0), (1, 0), (1, 1), (2, 1), (2, 1), (0, 0), (-1, 2), (-1, 2), (0, 0)]


def recognizers():
    """The photo and camera recognisers, and a function giving the live session's for a game."""
    from tableref.live.session import TableSession
    from tableref.vision.recognition import CardRecognizer, camera_preset, photo_preset

    photo = CardRecognizer(config=photo_preset())
    camera = CardRecognizer(config=camera_preset())

    def live(game: str):
        return TableSession(source="demo", game=game)._get_recognizer()

    return photo, camera, live


def describe(rec) -> dict:
    """A recogniser's settings, as they decide what it reads."""
    return {"config": {k: (list(v) if isinstance(v, tuple) else v) for k, v in dataclasses.asdict(rec.config).items()},
            "index_px": [rec.band.min, rec.band.target, rec.band.max],
            "models": [rec.det_path.name, rec.cls_path.name], "backend": rec.backend, "imgsz": rec.imgsz}


def card_json(c) -> dict:
    return {"card": c.card, "confidence": round(float(c.confidence), 4),
            "box": [round(float(v), 1) for v in c.box],
            "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in c.quad] if c.quad else None,
            "fresh": bool(c.fresh)}


def stats_json(st) -> dict:
    return {"passes": list(st.passes), "detector_runs": st.detector_runs, "indices": st.indices,
            "readings_reused": st.readings_reused, "views_reused": st.views_reused, "rivals_read": st.rivals_read}


def read_one(rec, image) -> dict:
    cards = rec.recognize(image)
    return {"cards": [card_json(c) for c in cards], "stats": stats_json(rec.last_stats)}


def images_in(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_EXTS)


def clip_frames(path: str):
    cap = cv2.VideoCapture(path)
    if not cap.isOpened():
        raise SystemExit(f"error: --clip: cannot open {path}")
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        yield frame
    cap.release()


def shifted(image: np.ndarray, dx: int, dy: int) -> np.ndarray:
    h, w = image.shape[:2]
    m = np.float32([[1, 0, dx], [0, 1, dy]])
    return cv2.warpAffine(image, m, (w, h), flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_REPLICATE)


def run(args) -> dict:
    photo, camera, live = recognizers()
    out: dict = {"recognizers": {"photo": describe(photo), "camera": describe(camera)}, "images": {}, "sequences": {}}
    stills: list[tuple[str, np.ndarray]] = []
    for option, folder in (("--real-table", args.real_table), ("--photos", args.photos), ("--fixtures", args.fixtures)):
        if folder is None:
            continue
        folder = Path(folder)
        if not folder.is_dir():
            raise SystemExit(f"error: {option}: {folder} is not a folder")
        paths = images_in(folder)
        if args.limit:
            paths = paths[: args.limit]
        for p in paths:
            img = cv2.imread(str(p))
            if img is None:
                raise SystemExit(f"error: {option}: cannot read {p}")
            stills.append((f"{folder.name}/{p.name}", img))
    if args.render:
        from tableref.training.evaluation import render_synthetic_scenes

        stills += [(f"rendered/{name}", img) for name, img, _ in render_synthetic_scenes(args.render)]
    for k, (name, img) in enumerate(stills):
        print(f"[{k + 1}/{len(stills)}] {name}", file=sys.stderr, flush=True)
        out["images"][name] = {"photo": read_one(photo, img), "camera": read_one(camera, img)}
    sequences = []
    for spec in args.clip if args.clip is not None else default_clips():
        path, _, game = spec.rpartition(":")
        if not path or game not in GAME_NAMES:
            raise SystemExit(f"error: --clip: give VIDEO:GAME with GAME one of {', '.join(GAME_NAMES)}, not {spec!r}")
        sequences.append((f"{Path(path).parent.name}/{Path(path).name}:{game}", game, clip_frames(path)))
    if args.real_table is not None:
        for p in images_in(Path(args.real_table)):
            img = cv2.imread(str(p))
            if img.shape[:2] == (720, 1280):
                frames = (shifted(img, dx, dy) for dx, dy in SHIFTS)
                sequences.append((f"shifted/{p.name}:desmoche", "desmoche", frames))
    for name, game, frames in sequences:
        print(f"sequence {name}", file=sys.stderr, flush=True)
        rec = live(game)
        out["recognizers"][f"live-{game}"] = describe(rec)
        seq = []
        for n, frame in enumerate(frames):
            if args.limit and n >= args.limit * 4:
                break
            obs = rec.observe(frame, t=n / 6.0)
            seq.append({"cards": [card_json(c) for c in obs.cards], "stats": stats_json(rec.last_stats),
                        "sharpness": round(float(obs.sharpness), 4)})
        out["sequences"][name] = seq
    return out


def default_clips() -> list[str]:
    return [f"{REPO / 'tests/fixtures/table_clip/video.mp4'}:desmoche",
            f"{REPO / 'tableref/demo/desmoche.mp4'}:desmoche", f"{REPO / 'tableref/demo/marriage.mp4'}:marriage"]


def differences(before, now, where: str = "") -> list[str]:
    """Where two results differ, one line each."""
    if isinstance(before, dict) and isinstance(now, dict):
        out = []
        for k in list(before) + [k for k in now if k not in before]:
            if k not in now:
                out.append(f"{where}/{k}: only in the reference")
            elif k not in before:
                out.append(f"{where}/{k}: only now")
            else:
                out += differences(before[k], now[k], f"{where}/{k}")
        return out
    if isinstance(before, list) and isinstance(now, list) and len(before) == len(now):
        return [d for k, (a, b) in enumerate(zip(before, now)) for d in differences(a, b, f"{where}[{k}]")]
    return [] if before == now else [f"{where}: {json.dumps(before)} -> {json.dumps(now)}"]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--out", metavar="FILE.json", help="write every card read to this file")
    what.add_argument("--compare", metavar="FILE.json", help="compare with a file --out wrote; exit 1 on a difference")
    p.add_argument("--real-table", metavar="DIR", help="the real table's frames (e.g. ../shared/data/real-table)")
    p.add_argument("--photos", metavar="DIR", help="real photos (e.g. ../shared/data/real-photos-rank-only)")
    p.add_argument("--fixtures", metavar="DIR", default=str(REPO / "tests/fixtures"),
                   help="more images (default: the tests' fixtures)")
    p.add_argument("--render", type=int, default=6, metavar="N",
                   help="also read N scenes of the training-data renderer (default 6; 0: none)")
    p.add_argument("--clip", action="append", metavar="VIDEO:GAME",
                   help="a video read as the live session reads it (repeatable; default: the test clip and the demos)")
    p.add_argument("--limit", type=int, default=0, metavar="N",
                   help="a quick look: N images per folder, 4N frames per sequence (compare like with like)")
    args = p.parse_args(argv)
    if args.compare:
        try:
            before = json.loads(Path(args.compare).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            print(f"error: --compare: cannot read {args.compare}: {exc}", file=sys.stderr)
            return 2
    now = run(args)
    if args.out:
        Path(args.out).write_text(json.dumps(now, indent=0, sort_keys=True), encoding="utf-8")
        n = sum(len(v["photo"]["cards"]) + len(v["camera"]["cards"]) for v in now["images"].values())
        print(f"{len(now['images'])} images ({n} cards), {len(now['sequences'])} sequences written to {args.out}")
        return 0
    diff = differences(before, json.loads(json.dumps(now)))
    for line in diff:
        print(line)
    print(f"{len(diff)} difference(s) in {len(now['images'])} images and {len(now['sequences'])} sequences")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
