#!/usr/bin/env python3
"""Real photos under a real camera's conditions: cards read and cards read wrong, one frame at a time and live.

    python scripts/bench_camera.py                       # everything (7-25 minutes on 2 shared cores)
    python scripts/bench_camera.py --quick               # a short run: 40 photos, 20-frame feeds
    python scripts/bench_camera.py --only frames         # the single-frame table only (or: --only live)
    python scripts/bench_camera.py --only live --game desmoche    # the live feeds on a one-pack table
    python scripts/bench_camera.py --only live --feed-photos 0 --scale 0.5   # a 640x360 camera's feeds
    TABLEREF_READING=quick python scripts/bench_camera.py         # the quick reading of a slow machine
    python scripts/bench_camera.py --models DIR --json out.json

Data (never trained on): ``--real-table DIR`` (default ``../shared/data/real-table`` beside the
repository): every ``NAME.labels.json`` there with its photo ``NAME.jpg``; the photo is read as a
1280x720 camera frame (``NAME-1280x720.jpg`` where it exists, else the photo scaled into 1280x720 and
centred). Its labels give every card's visible corner indices. ``--rank-photos DIR`` (default
``../shared/data/real-photos-rank-only``): photos whose ``labels.csv`` gives whole-card boxes and
ranks only.

1. **One frame at a time** (``--only frames``): each frame under each condition, read with a camera's
   settings (``camera_preset()``, as `tableref bench-detect` reads one; a real-table frame, one full
   pack, as a one-pack table reads it: ``one_pack``, and again as a three-pack Marriage table reads
   it, where a label read at two places is no contradiction: ``several_packs``). Sizes are for a 720-line frame
   and scale with the frame's height (a 540-line photo is blurred by 0.75 x the sigma). A card is
   **read** when a reported card of its value has an index box on one of its labelled indices (the
   rank photos: a reported card of its rank has its centre inside the labelled card); a reported card
   that is not read right is **wrong**. "Share of clean" = cards read / cards read clean. A frame the
   recogniser declares blurred (a shaken camera: ``RecognizerConfig.max_motion_blur``) reads no card
   and is counted under "declared blurred".
2. **Live feeds** (``--only live``): each real-table frame, and ``--feed-photos`` of the rank photos,
   turned into a fixed camera's feed (``datasets/camera_effects.py`` ``camera_feed``: sway up to 3 px,
   1 % scale breathing, gain flicker, sensor noise, JPEG, a hand passing over the table for 4 frames)
   under four conditions (clean, defocus sigma 1.5, dim: light x 0.5, and knocked: 8 frames in a row
   of the last third smeared by 7 px of motion), fed at 10 frames/s through
   the live table session as ``tableref watch`` runs it (with the machine's settings from the
   environment, ``TABLEREF_READING=quick`` too): a 4-seat Marriage table (``--game desmoche``:
   a Desmoche table, one pack) whose zones cover the picture. The cards of the table the session
   publishes at the end are scored; unread cards (a label not decided yet) and cards set aside (a
   label read more often than the game's packs hold it: the session shows them to the host and never
   counts them) are counted apart. A card is right
   when one of its labelled indices lies in its box (grown by 15 % and 4 px; the rank photos: its
   centre in a labelled card of its rank); a right card whose card another counted card already
   reads is **counted twice** (one card at two places, which a three-pack table counts as two: a
   phantom card in a Marriage count, though no label is wrong). "Said out of focus": the feeds at
   whose end the camera status says the picture is out of focus (``TableSession.picture_soft``).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from tableref.datasets import camera_effects as ce
from tableref.games import GAMES
from tableref.training.evaluation import DatasetError, Truth, load_rank_labels, match, on_index_label

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
FRAME_SIZE = (1280, 720)
FEED_FPS = 10.0
LIVE_GAME, LIVE_SEATS = "marriage", 4      # the live feeds' table by default (any of tableref.games)


# --------------------------------------------------------------------------- the real pictures


@dataclass
class Picture:
    """A real frame and its truth: ``indices`` (card -> labelled index boxes) for a fully labelled
    frame, or ``cards`` (whole-card boxes with ranks) for a rank-only photo."""

    name: str
    image: np.ndarray
    indices: dict[str, list[tuple[float, float, float, float]]] | None = None
    cards: list[Truth] | None = None

    @property
    def labelled(self) -> int:
        return len(self.indices) if self.indices is not None else len(self.cards)


def real_table_frames(folder: Path) -> list[Picture]:
    """Every labelled photo of the real-table folder as a 1280x720 camera frame."""
    out = []
    for lab in sorted(folder.glob("*.labels.json")):
        stem = lab.name[: -len(".labels.json")]
        photo = next((p for p in (folder / f"{stem}.jpg", folder / f"{stem}.png") if p.exists()), None)
        if photo is None:
            continue
        img = cv2.imread(str(photo), cv2.IMREAD_COLOR)
        if img is None:
            raise DatasetError(f"cannot read {photo}")
        h0, w0 = img.shape[:2]
        s = min(FRAME_SIZE[0] / w0, FRAME_SIZE[1] / h0)
        w, h = round(w0 * s), round(h0 * s)
        x0, y0 = (FRAME_SIZE[0] - w) / 2, (FRAME_SIZE[1] - h) / 2
        ready = folder / f"{stem}-{FRAME_SIZE[0]}x{FRAME_SIZE[1]}.jpg"
        frame = cv2.imread(str(ready), cv2.IMREAD_COLOR) if ready.exists() else None
        if frame is None:
            frame = np.empty((FRAME_SIZE[1], FRAME_SIZE[0], 3), np.uint8)
            frame[:] = np.median(img.reshape(-1, 3), axis=0).astype(np.uint8)
            frame[round(y0):round(y0) + h, round(x0):round(x0) + w] = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
        indices: dict[str, list] = {}
        for item in json.loads(lab.read_text(encoding="utf-8")):
            r = item["relative_coordinates"]
            cx, cy, bw, bh = x0 + r["center_x"] * w, y0 + r["center_y"] * h, r["width"] * w, r["height"] * h
            indices.setdefault(item["name"].upper(), []).append((cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2))
        out.append(Picture(stem, frame, indices=indices))
    return out


def rank_photos(folder: Path, limit: int = 0) -> list[Picture]:
    """The rank-only photos (every ``limit``-th spread over the set when ``limit`` is given)."""
    truths = load_rank_labels(folder)
    names = sorted(truths)
    if limit and limit < len(names):
        names = [names[round(i * len(names) / limit)] for i in range(limit)]
    out = []
    for n in names:
        img = cv2.imread(str(folder / n), cv2.IMREAD_COLOR)
        if img is not None:
            out.append(Picture(n, img, cards=truths[n]))
    return out


def scaled(pic: Picture, factor: float) -> Picture:
    """``pic`` as a camera giving pictures ``factor`` times as wide and high gives it (0.5: the
    1280x720 frame as a 640x360 camera's), its truth scaled alike."""
    if factor == 1.0:
        return pic
    h, w = pic.image.shape[:2]
    size = (max(1, round(w * factor)), max(1, round(h * factor)))
    image = cv2.resize(pic.image, size, interpolation=cv2.INTER_AREA if factor < 1 else cv2.INTER_LINEAR)
    indices = None if pic.indices is None else {
        card: [tuple(v * factor for v in box) for box in boxes] for card, boxes in pic.indices.items()}
    cards = None if pic.cards is None else [
        Truth(t.label, [(x * factor, y * factor) for x, y in t.polygon], t.required) for t in pic.cards]
    return Picture(pic.name, image, indices=indices, cards=cards)


# --------------------------------------------------------------------------- scoring




def _back(box, inv) -> tuple[float, float, float, float]:
    """A box of the changed frame in the original frame's pixels."""
    x1, y1, x2, y2 = box
    p = ce.map_points(inv, [(x1, y1), (x2, y1), (x2, y2), (x1, y2)])
    return float(p[:, 0].min()), float(p[:, 1].min()), float(p[:, 0].max()), float(p[:, 1].max())


def _named_at(pic: Picture, box) -> str:
    """The labelled card under a box, or '-'."""
    for card, labs in pic.indices.items():
        if any(on_index_label(box, lab) for lab in labs):
            return card
    return "-"


def score_frame(pic: Picture, cards, m: np.ndarray) -> tuple[set, list[str]]:
    """One frame's reading (cards reported in a frame changed by the point map ``m``): the truths read
    (card names, or indices of labelled cards) and the wrong readings (``8C for 8H``)."""
    inv = np.linalg.inv(m)
    found, wrong = set(), []
    if pic.indices is not None:
        for dc in cards:
            boxes = [_back(b, inv) for b in (list(dc.indices) or [dc.box])]
            if dc.card in pic.indices and any(on_index_label(b, lab) for b in boxes for lab in pic.indices[dc.card]):
                found.add(dc.card)
            else:
                wrong.append(f"{dc.card} for {_named_at(pic, boxes[0])}")
        return found, wrong
    reported = [(dc.card[:-1], tuple(ce.map_points(inv, [dc.centre])[0])) for dc in cards]
    res = match(reported, pic.cards)
    found = {i for i, f in enumerate(res["found"]) if f}
    wrong = [lab for (lab, _), ok in zip(reported, res["correct"]) if not ok]
    return found, wrong


def score_table(pic: Picture, cards) -> tuple[set, list[str], list[str]]:
    """The live table's cards (:class:`vision.table_state.TableCard`) against the truth: the truths
    read, the wrong readings, and the cards counted twice (a right label where another counted card
    already reads that card: one card of a fully labelled frame at two places, which a three-pack
    table counts as two)."""
    found, wrong, twice = set(), [], []
    if pic.indices is not None:
        for c in cards:
            x1, y1, x2, y2 = c.box
            gx, gy = 0.15 * (x2 - x1) + 4, 0.15 * (y2 - y1) + 4
            ok = any(x1 - gx <= (l[0] + l[2]) / 2 <= x2 + gx and y1 - gy <= (l[1] + l[3]) / 2 <= y2 + gy
                     for l in pic.indices.get(c.card, []))
            if ok and c.card in found:
                twice.append(f"{c.card} ({pic.name})")
            elif ok:
                found.add(c.card)
            else:
                wrong.append(f"{c.card} for {_named_at(pic, c.box)}")
        return found, wrong, twice
    reported = [(c.card[:-1], tuple(c.centre)) for c in cards]
    res = match(reported, pic.cards)
    return ({i for i, f in enumerate(res["found"]) if f},
            [lab for (lab, _), ok in zip(reported, res["correct"]) if not ok], [])


# --------------------------------------------------------------------------- 1. one frame at a time


def _glare_in_middle(img, rng):
    h, w = img.shape[:2]
    centre = (float(rng.uniform(0.35, 0.65) * w), float(rng.uniform(0.3, 0.7) * h))
    return ce.glare(img, 0.05, rng, centre=centre)


IDENTITY = np.eye(3)
# name -> effect(image, rng) -> (image, point map); sizes for a 720-line frame (scaled with the height)
CONDITIONS = {
    "clean": lambda img, rng: (img, IDENTITY),
    "defocus σ 1.5": lambda img, rng: (ce.defocus(img, ce.at_720p(1.5, img.shape[0])), IDENTITY),
    "defocus σ 2": lambda img, rng: (ce.defocus(img, ce.at_720p(2.0, img.shape[0])), IDENTITY),
    "motion blur 7 px": lambda img, rng: (ce.motion_blur(img, ce.at_720p(7.0, img.shape[0]), rng.uniform(0, 180)),
                                          IDENTITY),
    "light ×0.5": lambda img, rng: (ce.light(img, 0.5), IDENTITY),
    "glare spot 5 %": lambda img, rng: (_glare_in_middle(img, rng), IDENTITY),
    "640×360": lambda img, rng: ce.rescale(img, (640, 360)),
    "rotated 15°": lambda img, rng: ce.rotate(img, 15.0),
    "tilted 20 %": lambda img, rng: ce.tilt(img, 0.2),
}


@dataclass
class Tally:
    labelled: int = 0
    read: int = 0
    wrong: list[str] = field(default_factory=list)
    frames: int = 0
    blurred: int = 0        # frames declared blurred (not read)


# the fully labelled real-table frames read again as a Marriage table reads them: three packs, so a
# label read at two places of the frame is no contradiction (``several_packs``)
THREE_PACKS = "real-table frames as a three-pack table (Marriage)"


def single_frames(sets: dict[str, list[Picture]], models: str | None, seed: int, **changes) -> dict:
    """{set: {condition: Tally}} over every picture and condition, camera settings (a fully labelled
    real-table frame is one pack: read as a one-pack table, ``one_pack``; the set ``THREE_PACKS`` as a
    three-pack table, ``several_packs``; ``changes``: other settings, ``RecognizerConfig`` fields)."""
    from tqdm import tqdm

    from tableref.vision.recognition import CardRecognizer, MachineSettings, camera_preset

    quick = MachineSettings.from_environment(os.environ).quick      # TABLEREF_READING=quick, as watch reads it
    any_pack = CardRecognizer(models, config=camera_preset(quick=quick, **changes))
    one_pack = CardRecognizer(models, config=camera_preset(quick=quick, one_pack=True, **changes))
    three_packs = CardRecognizer(models, config=camera_preset(quick=quick, several_packs=True, **changes))
    out: dict[str, dict[str, Tally]] = {}
    total = sum(len(p) for p in sets.values()) * len(CONDITIONS)
    with tqdm(total=total, desc="single frames", unit="frame") as bar:
        for set_name, pics in sets.items():
            tallies = out.setdefault(set_name, {c: Tally() for c in CONDITIONS})
            for k, pic in enumerate(pics):
                rec = three_packs if set_name == THREE_PACKS else one_pack if pic.indices is not None else any_pack
                for j, (cond, effect) in enumerate(CONDITIONS.items()):
                    rng = np.random.default_rng([seed, k, j])
                    img, m = effect(pic.image, rng)
                    found, wrong = score_frame(pic, rec.recognize(img), m)
                    t = tallies[cond]
                    t.frames += 1
                    t.blurred += bool(rec.last_stats.blurred)
                    t.labelled += pic.labelled
                    t.read += len(found)
                    t.wrong += [f"{w} ({pic.name})" for w in wrong]
                    bar.update()
    return out


# --------------------------------------------------------------------------- 2. live feeds


FEED_CONDITIONS = {
    "clean": {},
    "defocus σ 1.5": {"defocus_sigma": 1.5},
    "dim (light ×0.5)": {"gain": 0.5},
    "knocked (8 frames shaken by 7 px)": {"shake_frames": 8, "shake_px": 7.0},
}


def live_feed(pic: Picture, settings: ce.FeedSettings, seed: int, game: str = LIVE_GAME):
    """After the feed of ``pic``, the live session's table: the cards it counts (those with a label,
    less any label read more often than the game's packs hold it, which the session sets aside and
    shows to the host, never counting it), the unread ones (a label not decided yet), how many
    it set aside, and whether the camera status then says the picture is out of focus
    (``TableSession.picture_soft``)."""
    from collections import Counter

    from tableref.live.session import TableSession
    from tableref.vision.recognition import MachineSettings

    # the machine's settings as watch takes them from the environment (TABLEREF_READING=quick ...)
    session = TableSession(source=pic.name, game=game, seats=LIVE_SEATS, realtime=False, loop=False,
                           auto_finish=False, machine=MachineSettings.from_environment(os.environ))
    # the camera loop's own path (the session's recogniser and settings as watch builds them, blurred
    # frames skipped, the still table re-read at photo quality beside it), at the camera's pace
    start = time.perf_counter()
    for k, (frame, _m) in enumerate(ce.camera_feed(pic.image, settings, seed=seed)):
        t = k / FEED_FPS
        time.sleep(max(0.0, start + t - time.perf_counter()))
        session.analyse_frame(frame, t)
    table = session._tracker.published if session._tracker is not None else None
    cards = table.cards if table is not None else []
    labelled = [c for c in cards if c.card]
    copies = Counter(c.card for c in labelled)
    counted = [c for c in labelled if copies[c.card] <= session.spec.packs]
    # an unread card (no label: not decided yet) is shown to the host, never judged: not a reported card
    return counted, [c for c in cards if not c.card], len(labelled) - len(counted), session.picture_soft


def live_feeds(sets: dict[str, list[Picture]], frames: int, seed: int, game: str = LIVE_GAME) -> dict:
    """{set: {condition: {"labelled", "read", "reported", "wrong", "unread", "set_aside", "feeds", "soft"}}}
    over every picture's feed ("soft": the feeds whose camera status ends saying out of focus)."""
    from tqdm import tqdm

    out: dict[str, dict] = {}
    total = sum(len(p) for p in sets.values()) * len(FEED_CONDITIONS)
    with tqdm(total=total, desc="live feeds", unit="feed") as bar:
        for set_name, pics in sets.items():
            tallies = out.setdefault(set_name, {c: {"labelled": 0, "read": 0, "reported": 0, "wrong": [], "twice": [],
                                                      "unread": 0, "set_aside": 0, "feeds": 0, "soft": 0}
                                                for c in FEED_CONDITIONS})
            for k, pic in enumerate(pics):
                for cond, change in FEED_CONDITIONS.items():
                    settings = ce.FeedSettings(frames=frames, **change)
                    cards, unread, set_aside, soft = live_feed(pic, settings, seed=seed * 1000 + k, game=game)
                    found, wrong, twice = score_table(pic, cards)
                    t = tallies[cond]
                    t["labelled"] += pic.labelled
                    t["read"] += len(found)
                    t["reported"] += len(cards)
                    t["wrong"] += [f"{w} ({pic.name})" for w in wrong]
                    t["twice"] += twice
                    t["unread"] += len(unread)
                    t["set_aside"] += set_aside
                    t["feeds"] += 1
                    t["soft"] += soft
                    bar.update()
    return out


# --------------------------------------------------------------------------- report


def frames_report(res: dict) -> str:
    lines = []
    for set_name, tallies in res.items():
        clean = tallies["clean"].read or 1
        lines += ["", f"{set_name}: one frame at a time, camera settings",
                  "", "| condition | cards read | share of clean | cards read wrong | frames declared blurred |",
                  "|---|---|---|---|---|"]
        for cond, t in tallies.items():
            shown = ", ".join(t.wrong[:6]) + (" ..." if len(t.wrong) > 6 else "")
            lines.append(f"| {cond} | {t.read}/{t.labelled} | {t.read / clean:.3f} | {len(t.wrong)}"
                         + (f" ({shown})" if t.wrong else "") + f" | {t.blurred} of {t.frames} |")
    return "\n".join(lines)


def live_report(res: dict, sets: dict[str, list[Picture]], frames: int, game: str = LIVE_GAME) -> str:
    lines = []
    for set_name, tallies in res.items():
        sizes = sorted({f"{p.image.shape[1]}x{p.image.shape[0]}" for p in sets[set_name]})
        lines += ["", f"{set_name}: live feeds of {len(sets[set_name])} pictures"
                      + (f" ({sizes[0]})" if len(sizes) == 1 else "") + f", {frames} frames each at "
                      f"{FEED_FPS:g} frames/s, the live session ({LIVE_SEATS}-seat {game}, zones covering the picture)",
                  "", "| condition | cards counted | cards read | share of the truth | cards wrong | cards counted twice | "
                      "unread cards | set aside | said out of focus |", "|---|---|---|---|---|---|---|---|---|"]
        for cond, t in tallies.items():
            shown = ", ".join(t["wrong"][:6]) + (" ..." if len(t["wrong"]) > 6 else "")
            twice = ", ".join(t["twice"][:6]) + (" ..." if len(t["twice"]) > 6 else "")
            lines.append(f"| {cond} | {t['reported']} | {t['read']}/{t['labelled']} | "
                         f"{t['read'] / max(t['labelled'], 1):.3f} | {len(t['wrong'])}"
                         + (f" ({shown})" if t["wrong"] else "") + f" | {len(t['twice'])}"
                         + (f" ({twice})" if t["twice"] else "") + f" | {t['unread']} | {t['set_aside']} | "
                         f"{t['soft']} of {t['feeds']} feeds |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n".join(__doc__.splitlines()[1:]))
    p.add_argument("--real-table", default=str(DATA / "real-table"), metavar="DIR",
                   help="fully labelled real frames (default ../shared/data/real-table beside the repository)")
    p.add_argument("--rank-photos", default=str(DATA / "real-photos-rank-only"), metavar="DIR",
                   help="rank-only real photos with labels.csv (default ../shared/data/real-photos-rank-only); "
                        "'' leaves them out")
    p.add_argument("--only", choices=["frames", "live"], help="run one part only (default both)")
    p.add_argument("--quick", action="store_true", help="a short run: 40 rank photos, 4 of them as 20-frame feeds")
    p.add_argument("--photos", type=int, default=0, metavar="N",
                   help="single frames: this many rank photos spread over the set (default all)")
    p.add_argument("--feed-photos", type=int, default=12, metavar="N",
                   help="live feeds: this many rank photos besides the real-table frames (default 12)")
    p.add_argument("--frames", type=int, default=40, metavar="N", help="frames in a live feed (default 40)")
    p.add_argument("--game", choices=sorted(GAMES), default=LIVE_GAME,
                   help="live feeds: the table the session referees (default marriage: three packs, so a "
                        "label read twice is not questioned; desmoche: one pack)")
    p.add_argument("--scale", type=float, default=1.0, metavar="F",
                   help="live feeds: the pictures scaled by F, as a camera giving smaller or larger pictures "
                        "gives them (0.5: the 1280x720 frame as a 640x360 camera's; default 1)")
    p.add_argument("--models", metavar="DIR", help="models folder (default: the committed models)")
    p.add_argument("--seed", type=int, default=0, help="seed of the effects (default 0)")
    p.add_argument("--json", metavar="FILE", help="also write the results here")
    a = p.parse_args(argv)
    for name in ("photos", "feed_photos"):
        if getattr(a, name) < 0:
            p.error(f"--{name.replace('_', '-')} must be 0 or more")
    if a.frames < 8:
        p.error("--frames must be at least 8 (a hand passes for 4 of them)")
    if not 0.2 <= a.scale <= 2.0:
        p.error("--scale must be between 0.2 and 2")
    if a.quick:
        a.photos, a.feed_photos, a.frames = a.photos or 40, min(a.feed_photos, 4), min(a.frames, 20)
    if a.models:
        if not Path(a.models).is_dir():
            p.error(f"--models {a.models}: no such folder")
        os.environ["TABLEREF_MODELS"] = str(Path(a.models).resolve())    # the live session's recogniser too
    try:
        table = real_table_frames(Path(a.real_table)) if Path(a.real_table).is_dir() else []
        photos = rank_photos(Path(a.rank_photos), a.photos) if a.rank_photos else []
    except (DatasetError, OSError, ValueError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if not table and not photos:
        print(f"error: no labelled real pictures: --real-table {a.real_table} and --rank-photos {a.rank_photos}",
              file=sys.stderr)
        return 1
    print(f"real-table frames: {len(table)} ({sum(p.labelled for p in table)} labelled cards); "
          f"rank photos: {len(photos)} ({sum(p.labelled for p in photos)} labelled cards)")
    results: dict = {"argv": sys.argv[1:], "machine": f"{os.cpu_count()} cores", "load": os.getloadavg()}
    t0 = time.time()
    if a.only in (None, "frames"):
        sets = {k: v for k, v in (("real-table frames", table), (THREE_PACKS, table), ("rank photos", photos)) if v}
        res = single_frames(sets, a.models, a.seed)
        print(frames_report(res), flush=True)
        results["frames"] = {s: {c: {"labelled": t.labelled, "read": t.read, "wrong": t.wrong, "frames": t.frames,
                                     "declared_blurred": t.blurred} for c, t in v.items()}
                             for s, v in res.items()}
    if a.only in (None, "live"):
        sample = photos[:: max(1, math.ceil(len(photos) / a.feed_photos))][: a.feed_photos] if a.feed_photos else []
        sets = {k: [scaled(pic, a.scale) for pic in v] for k, v in (("real-table frames", table),
                                                                   ("rank photos", sample)) if v}
        res = live_feeds(sets, a.frames, a.seed, a.game)
        print(live_report(res, sets, a.frames, a.game))
        results["live"] = res
    print(f"\n{time.time() - t0:.0f} s; load average {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
