"""Build the training data: a YOLO detection set of corner indices and a crop set for the classifier.

One command (``tableref dataset build`` or ``python -m tableref.datasets.build``), fixed seeds, a
progress bar. Every image is drawn from its own seed (``seed * 1_000_003 + i``), so the
output does not depend on the number of worker processes.

Output under ``--out`` (default ``datasets/build``, ignored by git)::

    detector/data.yaml                 ultralytics dataset file, one class "index"
    detector/images/{train,val}/*.jpg
    detector/labels/{train,val}/*.txt  "0 cx cy w h" normalised
    classifier/{train,val}/<class>/*.png   64×64 crops cut by vision.crops.index_crop,
                                        53 classes: the 52 cards and "none"
    build.json                          the recipe (counts, seeds, decks, sizes)
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "build"
CLASS_NONE = "none"

DET_SIZE = 416                 # detector training images are drawn at this size (square)
DET_INDEX_PX = (7.0, 100.0)    # index height range in detector images (pixels)
CLS_SCENE = 640                # classifier crops are cut from scenes of this size
CLS_INDEX_PX = (12.0, 150.0)   # index height range for classifier crops (native camera pixels)

_POOL = None


def _pool(decks):
    global _POOL
    if _POOL is None:
        from tableref.datasets.scenes import DeckPool
        _POOL = DeckPool(decks)
    return _POOL


def _det_job(args):
    out_dir, split, i, seed, decks, size, opts, readable = args
    from tableref.datasets.scenes import render_scene
    rng = np.random.default_rng(seed)
    scale = size / DET_SIZE
    scene = render_scene(rng, _pool(decks), size, size, size=(max(6.0, DET_INDEX_PX[0] * scale), DET_INDEX_PX[1] * scale),
                         **opts)
    name = f"{split}_{i:06d}"
    cv2.imwrite(str(out_dir / "images" / split / f"{name}.jpg"), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    lines = []
    for lab in scene.labels(readable=readable):
        x1, y1, x2, y2 = lab.box
        lines.append(f"0 {(x1 + x2) / 2 / size:.6f} {(y1 + y2) / 2 / size:.6f} "
                     f"{(x2 - x1) / size:.6f} {(y2 - y1) / size:.6f}")
    (out_dir / "labels" / split / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
    return len(lines)


BOX_JITTER = 0.08


def _jitter_box(rng, box, amount=BOX_JITTER):
    """Mimic detector box noise: shift and rescale each side a little."""
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    s = max(w, h)
    dx1, dy1, dx2, dy2 = rng.normal(0, amount * s, 4)
    return (x1 + dx1, y1 + dy1, x2 + dx2, y2 + dy2)


def _iou(a, b):
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / u if u > 0 else 0.0


def _cls_job(args):
    out_dir, split, i, seed, decks, per_scene_none, opts, readable, box_jitter = args
    from tableref.vision.crops import index_crop
    from tableref.datasets.scenes import render_scene
    rng = np.random.default_rng(seed)
    scene = render_scene(rng, _pool(decks), CLS_SCENE, CLS_SCENE, size=CLS_INDEX_PX, **opts)
    img = scene.image
    h, w = img.shape[:2]
    written = 0
    # with ``readable``: also indices cut by a neighbour whose rank and suit are still mostly seen (fans)
    good = scene.labels(min_vis=0.8, min_px=10, readable=readable)
    for k, lab in enumerate(good):
        box = _jitter_box(rng, lab.box, box_jitter)
        crop = index_crop(img, box)
        d = out_dir / split / lab.card
        cv2.imwrite(str(d / f"{i:06d}_{k}.png"), crop)
        written += 1
    # "none": partial indices, card interiors, court art, pips, background
    all_boxes = [l.box for l in scene.indices if l.visibility >= 0.45]
    # a partly hidden index is "none" unless its rank and suit glyphs are both whole (then it is a label);
    # with ``readable``, only when less than half that much of them is seen (between: not used)
    unreadable = readable / 2 if readable else 0.6
    partial = [l for l in scene.indices if 0.05 < l.visibility < 0.4 and l.glyphs < unreadable and l.height >= 10]
    sizes = [l.height for l in scene.indices] or [30.0]
    n_none = per_scene_none
    d = out_dir / split / CLASS_NONE
    k = 0
    # printed text (words, numbers, lone letters): one or two characters' worth of a token, like an index
    # (no random number is drawn without text, so older recipes rebuild the same crops)
    picks = rng.permutation(len(scene.clutter))[: max(1, n_none // 2)] if scene.clutter else []
    for j in picks:
        b = scene.clutter[j]
        bh = b[3] - b[1]
        x0 = rng.uniform(b[0], max(b[0], b[2] - bh * 0.6))
        box = (x0, b[1] - bh * 0.1, min(b[2], x0 + bh * rng.uniform(0.5, 1.2)), b[3] + bh * rng.uniform(0.0, 0.9))
        if any(_iou(box, l.box) > 0.15 for l in scene.indices if l.visibility >= 0.45):
            continue
        cv2.imwrite(str(d / f"{i:06d}_t{k}.png"), index_crop(img, _jitter_box(rng, box)))
        k += 1
    for lab in partial[: max(1, n_none // 3)]:
        crop = index_crop(img, _jitter_box(rng, lab.box))
        cv2.imwrite(str(d / f"{i:06d}_p{k}.png"), crop)
        k += 1
    tries = 0
    while k < n_none and tries < 50:
        tries += 1
        side = float(rng.choice(sizes)) * rng.uniform(0.6, 1.4)
        bw, bh = side * rng.uniform(0.4, 0.8), side
        if rng.random() < 0.5:
            bw, bh = bh, bw
        if scene.card_quads and rng.random() < 0.7:  # on a card
            q = scene.card_quads[rng.integers(len(scene.card_quads))]
            t = rng.random(2)
            top = q[0] + (q[1] - q[0]) * t[0]
            bot = q[3] + (q[2] - q[3]) * t[0]
            cx, cy = top + (bot - top) * t[1]
        else:
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        box = (cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2)
        if not (0 <= cx < w and 0 <= cy < h):
            continue
        if any(_iou(box, b) > 0.15 or (b[0] <= cx <= b[2] and b[1] <= cy <= b[3]) for b in all_boxes):
            continue
        crop = index_crop(img, box)
        cv2.imwrite(str(d / f"{i:06d}_n{k}.png"), crop)
        k += 1
    return written + k


def _run(jobs, fn, desc, workers):
    from tqdm import tqdm
    total = 0
    if workers <= 1:
        for j in tqdm(jobs, desc=desc):
            total += fn(j)
        return total
    ctx = mp.get_context("fork")
    with ctx.Pool(workers) as p:
        for r in tqdm(p.imap_unordered(fn, jobs, chunksize=4), total=len(jobs), desc=desc):
            total += r
    return total


def build(out: Path = DEFAULT_OUT, n_train: int = 3000, n_val: int = 300, n_cls_scenes: int = 1200,
          n_cls_val_scenes: int = 150, seed: int = 0, workers: int = 2, decks: list[str] | None = None,
          none_per_scene: int = 4, pool=None, det_size: int = DET_SIZE, text_p: float = 0.0,
          layout_weights: dict[str, float] | None = None, readable_glyphs: float | None = None,
          box_jitter: float = BOX_JITTER) -> dict:
    """Write the detector and classifier datasets under ``out``; returns the recipe dict.

    ``pool``: an optional ``scenes.DeckPool`` (e.g. in-memory artwork); default: all decks.
    ``text_p`` and ``layout_weights``: see ``scenes.render_scene`` (printed text on the table,
    layout mix); the classifier also gets ``none`` crops cut from that text.
    ``readable_glyphs``: the detector and the classifier also learn indices cut by a neighbour when at
    least this fraction of the ink of their rank and of their suit is seen (boxed by that ink), and the
    classifier learns ``none`` only from those with less than half that (default: whole glyphs only,
    ``none`` below 0.6).
    ``box_jitter``: how far the classifier's crops of labelled indices are moved and resized about
    their box (standard deviation, fraction of the box's longer side), like a detector's boxes.
    """
    global _POOL
    from tqdm import tqdm

    from tableref.datasets import decks as decks_mod

    out = Path(out)
    t0 = time.time()
    if pool is not None:
        _POOL = pool
        names = pool.names
    else:
        _POOL = None
        names = decks or decks_mod.available_decks(fetch=True)
        if not names:
            raise RuntimeError("no card decks available: the card art is fetched with npm the first time "
                               "(Debian: apt install npm), or install kdegames-card-data-kf5")
        # render (or load) every deck once in this process, so workers only read the cache
        for n in tqdm(names, desc="decks"):
            decks_mod.render_deck(n)
        pool = _pool(names)
    for n in names:      # load once here; forked workers share it
        pool.deck(n)

    det = out / "detector"
    for split in ("train", "val"):
        (det / "images" / split).mkdir(parents=True, exist_ok=True)
        (det / "labels" / split).mkdir(parents=True, exist_ok=True)
    (det / "data.yaml").write_text(
        f"path: {det.resolve()}\ntrain: images/train\nval: images/val\nnames:\n  0: index\n")
    cls = out / "classifier"
    classes = list(decks_mod.CARDS) + [CLASS_NONE]
    for split in ("train", "val"):
        for c in classes:
            (cls / split / c).mkdir(parents=True, exist_ok=True)

    base = seed * 1_000_003
    opts = {"text_p": text_p, "layout_weights": layout_weights}
    jobs = [(det, "train", i, base + i, names, det_size, opts, readable_glyphs) for i in range(n_train)]
    jobs += [(det, "val", i, base + 500_000 + i, names, det_size, opts, readable_glyphs) for i in range(n_val)]
    n_boxes = _run(jobs, _det_job, "detector images", workers)
    cjobs = [(cls, "train", i, base + 700_000 + i, names, none_per_scene, opts, readable_glyphs, box_jitter)
             for i in range(n_cls_scenes)]
    cjobs += [(cls, "val", i, base + 900_000 + i, names, none_per_scene, opts, readable_glyphs, box_jitter)
              for i in range(n_cls_val_scenes)]
    n_crops = _run(cjobs, _cls_job, "classifier scenes", workers)
    recipe = {
        "seed": seed, "decks": names, "text_p": text_p, "layout_weights": layout_weights,
        "readable_glyphs": readable_glyphs, "box_jitter": box_jitter, "detector": {"images_train": n_train, "images_val": n_val,
                                                   "size": det_size, "index_px_at_416": DET_INDEX_PX, "boxes": n_boxes},
        "classifier": {"scenes_train": n_cls_scenes, "scenes_val": n_cls_val_scenes, "scene_size": CLS_SCENE,
                       "index_px": CLS_INDEX_PX, "crops": n_crops, "classes": classes},
        "seconds": round(time.time() - t0, 1),
    }
    (out / "build.json").write_text(json.dumps(recipe, indent=1))
    return recipe


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default=str(DEFAULT_OUT), help="output folder (default datasets/build)")
    p.add_argument("--n-train", type=int, default=3000, help="detector training images (default 3000)")
    p.add_argument("--n-val", type=int, default=300, help="detector validation images (default 300)")
    p.add_argument("--n-cls", type=int, default=1200, help="classifier training scenes (default 1200)")
    p.add_argument("--n-cls-val", type=int, default=150, help="classifier validation scenes (default 150)")
    p.add_argument("--det-size", type=int, default=DET_SIZE,
                   help=f"detector image side in pixels (default {DET_SIZE}; index sizes scale with it)")
    p.add_argument("--seed", type=int, default=0, help="random seed; the same seed gives the same images (default 0)")
    p.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1),
                   help="worker processes (default: 2, or 1 on a one-core machine)")
    p.add_argument("--decks", nargs="*", help="deck names (default: all available)")
    p.add_argument("--text-clutter", type=float, default=0.0, metavar="P",
                   help="chance of printed text (pages, boxes, numbers, lone letters) on a scene's table (default 0)")
    p.add_argument("--layout", action="append", default=[], metavar="NAME=WEIGHT",
                   help="weight of a scene layout (single, row, fan, tightfan, pile, hand21, grid); repeatable")
    p.add_argument("--readable-glyphs", type=float, default=None, metavar="G",
                   help="also label indices cut by a neighbour when at least this fraction of their rank's and "
                        "suit's ink is seen (e.g. 0.5; default: whole glyphs only)")
    p.add_argument("--box-jitter", type=float, default=BOX_JITTER, metavar="F",
                   help="classifier crops: how far labelled indices' boxes are moved and resized, as a fraction "
                        f"of the box (standard deviation; default {BOX_JITTER})")


def run_from_args(a) -> int:
    from tableref.datasets import decks as decks_mod
    if a.decks:
        unknown = [d for d in a.decks if d not in decks_mod.DECKS]
        if unknown:
            print(f"error: unknown deck(s) {', '.join(unknown)}; known: {', '.join(decks_mod.DECKS)}", file=sys.stderr)
            return 2
    for flag in ("n_train", "n_val", "n_cls", "n_cls_val"):
        if getattr(a, flag) < 0:
            print(f"error: --{flag.replace('_', '-')} must be >= 0", file=sys.stderr)
            return 2
    from tableref.datasets.scenes import LAYOUTS
    weights = {}
    for item in a.layout:
        name, _, value = item.partition("=")
        try:
            weight = float(value)
        except ValueError:
            weight = None
        if name not in LAYOUTS or weight is None or weight < 0:
            print(f"error: --layout {item!r}: expected NAME=WEIGHT with NAME one of {', '.join(LAYOUTS)} "
                  "and WEIGHT >= 0", file=sys.stderr)
            return 2
        weights[name] = weight
    if not 0.0 <= a.text_clutter <= 1.0:
        print("error: --text-clutter must be between 0 and 1", file=sys.stderr)
        return 2
    if not 0.0 <= a.box_jitter <= 0.5:
        print("error: --box-jitter must be between 0 and 0.5", file=sys.stderr)
        return 2
    if a.readable_glyphs is not None and not 0.0 < a.readable_glyphs <= 1.0:
        print("error: --readable-glyphs must be between 0 and 1", file=sys.stderr)
        return 2
    try:
        if a.det_size < 64:
            print("error: --det-size must be >= 64", file=sys.stderr)
            return 2
        r = build(Path(a.out), a.n_train, a.n_val, a.n_cls, a.n_cls_val, a.seed, a.workers, a.decks,
                  det_size=a.det_size, text_p=a.text_clutter, layout_weights=weights or None,
                  readable_glyphs=a.readable_glyphs, box_jitter=a.box_jitter)
    except (RuntimeError, FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {a.out}: {r['detector']['images_train']}+{r['detector']['images_val']} detector images "
          f"({r['detector']['boxes']} index boxes), {r['classifier']['crops']} classifier crops, "
          f"{r['seconds']} s")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(p)
    return run_from_args(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
