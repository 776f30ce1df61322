"""Classifier crops as a camera's frames give them: rendered tables degraded as a whole, indices
found by the committed detector, each crop cut around the detector's own box.

The classifier's usual crops (``datasets.build``) are cut around the rendered label's box, from a
sharp 640 px scene, and a camera's effects are applied to the crop alone. A real camera blurs the
whole frame: a tight fan's neighbouring glyphs run into the index, and the detector's box on a soft
frame sits where the detector puts it, not where the label is. Here each scene is a 1280x720 table
(tight fans, 21-card hands, melds) with its indices at the heights a camera over a table gives
(about 18-50 px), put through one camera condition (defocus, motion blur, dim or warm light, a
lamp's glare, a coarser sensor, each with sensor noise and JPEG: ``datasets.camera_effects``), and
read by the committed recogniser's index finder (``CardRecognizer.find_indices``, a camera's
settings). Each box it finds is labelled by the rendered index it lies on:

- on an index seen enough to be read (``IndexLabel.is_label``): that card;
- on an index mostly hidden (less than 40 % of it seen and under 60 % of its glyphs' ink), on
  no index at all (a pip, court art, printed text): ``none``;
- anything between: left out (neither a card nor certainly unreadable), except, with
  ``wrong_as_none``, where the committed classifier reads its soft crop as another card at least
  that surely: then it is taught as ``none`` (a half-seen index is better not read than misread).

The same boxes are also cut from the scene before the camera's effects, so a set holds the sharp
and the soft look of each index. Output: ``<out>/classifier/{train,val}/<class>/*.png``, as
``tableref train classifier --data`` reads it, and ``<out>/camera_crops.json`` (the recipe).

    tableref dataset camera-crops --out datasets/build/camcrops --scenes 1500 --val-scenes 60
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

from tableref.datasets import camera_effects as ce
from tableref.datasets.decks import _iou

FRAME = (1280, 720)
INDEX_PX = (18.0, 50.0)          # printed index heights in a 720p frame of a table seen from above
LAYOUTS = {"tightfan": 0.9, "hand21": 0.4}
LABEL_IOU = 0.35                 # a found box on a rendered index: their overlap at least this
LEGIBLE_P = 0.1                  # a card's soft crop is kept where the sharp crop gives its card this much
                                 # (or, legible="best", where its card is the sharp crop's best reading)
HIDDEN_VISIBLE, HIDDEN_GLYPHS = 0.4, 0.6   # an index less seen than both of these is unreadable
CLASS_NONE = "none"

_STATE: dict = {}


DEFOCUS_SHARE = 0.4               # the share of tables defocused; motion blur and a coarse sensor share the
                                  # rest as 25 : 10 (the remaining quarter: only light, glare, noise, JPEG)


def degrade(img: np.ndarray, rng: np.random.Generator,
            defocus_share: float = DEFOCUS_SHARE) -> tuple[np.ndarray, str]:
    """One camera condition on a whole 720p frame: (the frame, what was done). ``defocus_share``: the
    share of frames defocused (σ 0.8-2.3 px); motion blur (3-8 px) and 640x360 take 25 and 10
    hundredths of the rest over 0.6 (at the default 0.4: a quarter and a tenth of all frames)."""
    out, said = img, []
    kind = rng.random()
    rest = (1.0 - defocus_share) / 0.6
    if kind < defocus_share:
        s = float(rng.uniform(0.8, 2.3))
        out, said = ce.defocus(out, s), [f"defocus {s:.1f}"]
    elif kind < defocus_share + 0.25 * rest:
        n = float(rng.uniform(3.0, 8.0))
        out, said = ce.motion_blur(out, n, float(rng.uniform(0, 180))), [f"motion {n:.1f}"]
    elif kind < defocus_share + 0.35 * rest:
        out, said = ce.low_resolution(out, 0.5), ["640x360"]
    if rng.random() < 0.2:
        out = ce.glare(out, float(rng.uniform(0.03, 0.12)), rng, strength=float(rng.uniform(0.5, 1.0)))
        said.append("glare")
    if rng.random() < 0.4:
        g, w = float(rng.uniform(0.45, 1.0)), float(rng.uniform(-0.3, 1.0))
        out = ce.light(out, g, w)
        said.append(f"light {g:.2f}")
    out = ce.sensor_noise(out, float(rng.uniform(1.0, 6.0)), rng)
    if rng.random() < 0.7:
        out = ce.jpeg(out, int(rng.integers(40, 92)))
    return out, " ".join(said) or "clean"


def _nearest(box, indices):
    """(overlap, the rendered index a found box overlaps most), or (0, None)."""
    best, lab = 0.0, None
    for ix in indices:
        v = _iou(box, ix.box)
        if v > best:
            best, lab = v, ix
    return best, lab


def _label_of(box, indices) -> str | None:
    """The class of a found box: the card of the readable index it lies on, ``none``, or None (unsure)."""
    best, lab = _nearest(box, indices)
    if lab is None or best < 0.1:
        return CLASS_NONE
    if best >= LABEL_IOU and lab.is_label():
        return lab.card
    if lab.visibility < HIDDEN_VISIBLE and lab.glyphs < HIDDEN_GLYPHS:
        return CLASS_NONE
    return None


def cut_from(rec, soft: np.ndarray, as_read: bool) -> np.ndarray:
    """The picture a degraded frame's soft crops are cut from: the frame itself, or (``as_read``) the
    picture the recogniser ``rec`` reads of it, a lamp's glare taken off and a soft frame sharpened
    (``CardRecognizer.picture``), so that the classifier learns the crops it is given."""
    return rec.picture(soft) if as_read else soft


def _no_boxes() -> dict[str, int]:
    """The counts a table's crops are told by (a job's, and the whole set's): none yet."""
    return {"card": 0, "none": 0, "unsure": 0, "illegible": 0, "wrong_none": 0, "blurred": 0}


def _job(args):
    out_dir, split, i, seed, decks, layouts, models, legible_p, wrong_as_none, as_read, defocus_share, skip_blurred = args
    from tableref.datasets.scenes import DeckPool, render_scene
    from tableref.vision.crops import index_crops
    from tableref.vision.recognition import CardRecognizer, camera_preset

    if "pool" not in _STATE:
        _STATE["pool"] = DeckPool(decks)
    if "rec" not in _STATE:            # one recogniser a worker process, made there
        _STATE["rec"] = CardRecognizer(models, threads=1, config=camera_preset())
    rng = np.random.default_rng(seed)
    scene = render_scene(rng, _STATE["pool"], FRAME[0], FRAME[1], size=INDEX_PX, text_p=0.3,
                         layout_weights=layouts)
    soft, _ = degrade(scene.image, rng, defocus_share)
    boxes, _ = _STATE["rec"].find_indices(soft)
    counts = _no_boxes()
    if skip_blurred and _STATE["rec"].declared_blurred(soft, boxes.tolist()):
        counts["blurred"] = 1           # a frame the recogniser declares blurred is never read: nothing to learn
        return counts
    # the recogniser reads (finds, classifies) the degraded frame itself; the soft crops are cut from it
    # or from the picture the recogniser makes of it
    cut = cut_from(_STATE["rec"], soft, as_read)
    picked, classes, between = [], [], []
    for b in boxes.tolist():
        c = _label_of(b, scene.indices)
        if c is None:
            counts["unsure"] += 1
            between.append((b, _nearest(b, scene.indices)[1].card))
            continue
        picked.append(b)
        classes.append(c)
        counts["card" if c != CLASS_NONE else "none"] += 1
    if picked:
        # a soft crop of a card is kept only where the classifier finds that card plausible in the
        # sharp crop of the same box (``legible_p``): what the scene itself makes illegible is not
        # taught as a card. Plausible, not its best reading: an index beside a neighbour's court
        # picture, which the classifier reads as the court card, is just what the set must teach.
        names = _STATE["rec"].names
        sharp = _STATE["rec"].classify(scene.image, np.array(picked, np.float32), tta=False)
        legible = [c == CLASS_NONE or (names[int(sharp[k].argmax())] == c if legible_p == "best"
                                       else float(sharp[k][names.index(c)]) >= legible_p)
                   for k, c in enumerate(classes)]
        counts["illegible"] = len(legible) - sum(legible)
        for tag, img in (("s", cut), ("c", scene.image)):
            for k, (crop, c) in enumerate(zip(index_crops(img, picked), classes)):
                if tag == "s" and not legible[k]:
                    continue
                cv2.imwrite(str(out_dir / split / c / f"{i:06d}_{k}{tag}.png"), crop)
        between += [(picked[k], c) for k, c in enumerate(classes) if not legible[k]]
    if wrong_as_none is not None and between:
        # what a camera would misread here: the soft crop of a half-seen (or illegible) index that
        # the committed classifier reads as another card at least ``wrong_as_none`` surely
        names = _STATE["rec"].names
        bx = np.array([b for b, _ in between], np.float32)
        soft_p = _STATE["rec"].classify(soft, bx, tta=False)
        for k, (crop, (_, c)) in enumerate(zip(index_crops(cut, bx.tolist()), between)):
            j = int(soft_p[k].argmax())
            if names[j] not in (c, CLASS_NONE) and float(soft_p[k][j]) >= wrong_as_none:
                cv2.imwrite(str(out_dir / split / CLASS_NONE / f"{i:06d}_{k}w.png"), crop)
                counts["wrong_none"] += 1
    return counts


def build(out: Path, scenes: int, val_scenes: int, seed: int, workers: int,
          layouts: dict[str, float] | None = None, models: str | None = None,
          legible_p: float | str = LEGIBLE_P, wrong_as_none: float | None = None, as_read: bool = False,
          defocus_share: float = DEFOCUS_SHARE, skip_blurred: bool = False) -> dict:
    """Render, degrade and cut ``scenes`` training and ``val_scenes`` validation tables into ``out``.
    ``layouts``: the scene layouts' weights (``datasets.scenes.LAYOUTS`` names; default ``LAYOUTS``);
    ``models``: the recogniser that finds the boxes and judges legibility (default the committed one);
    ``legible_p``: a card's soft crop is kept where the sharp crop gives that card this probability
    (``"best"``: where the card is the sharp crop's best reading); ``wrong_as_none``: a left-out
    box's soft crop read as another card at least this surely is kept as ``none``; ``as_read``: the soft
    crops are cut from the picture the recogniser reads (glare taken off, a soft frame sharpened), not
    from the degraded frame itself; ``defocus_share``: the share of tables defocused (:func:`degrade`);
    ``skip_blurred``: a table whose degraded frame the recogniser declares blurred (shaken) gives no crops."""
    from tqdm import tqdm

    from tableref.datasets import decks as decks_mod
    from tableref.datasets.scenes import DeckPool

    names = decks_mod.available_decks(fetch=True)
    if not names:
        raise RuntimeError("no card decks available (see `tableref dataset build`)")
    for n in names:
        decks_mod.render_deck(n)
    pool = DeckPool(names)
    for n in names:
        pool.deck(n)
    _STATE["pool"] = pool            # forked workers share it
    cls = Path(out) / "classifier"
    for split in ("train", "val"):
        for c in list(decks_mod.CARDS) + [CLASS_NONE]:
            (cls / split / c).mkdir(parents=True, exist_ok=True)
    base = seed * 1_000_003
    layouts = dict(LAYOUTS if layouts is None else layouts)
    jobs = [(cls, "train", i, base + i, names, layouts, models, legible_p, wrong_as_none, as_read,
             defocus_share, skip_blurred) for i in range(scenes)]
    jobs += [(cls, "val", i, base + 500_000 + i, names, layouts, models, legible_p, wrong_as_none,
              as_read, defocus_share, skip_blurred) for i in range(val_scenes)]
    t0, total = time.time(), _no_boxes()
    ctx = mp.get_context("fork")
    with ctx.Pool(workers) as p:
        for r in tqdm(p.imap_unordered(_job, jobs, chunksize=2), total=len(jobs), desc="camera scenes"):
            for k, v in r.items():   # noqa: B007
                total[k] += v
    recipe = {"seed": seed, "scenes": scenes, "val_scenes": val_scenes, "frame": FRAME, "index_px": INDEX_PX,
              "layouts": layouts, "legible_p": legible_p, "wrong_as_none": wrong_as_none, "as_read": as_read, "defocus_share": defocus_share,
              "skip_blurred": skip_blurred, "models": str(models or "committed"), "decks": names, "boxes": total, "seconds": round(time.time() - t0, 1)}
    (Path(out) / "camera_crops.json").write_text(json.dumps(recipe, indent=1))
    return recipe


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, help="output folder (e.g. datasets/build/camcrops)")
    p.add_argument("--scenes", type=int, default=600, help="training scenes (default 600)")
    p.add_argument("--val-scenes", type=int, default=40, help="validation scenes (default 40)")
    p.add_argument("--seed", type=int, default=101, help="random seed; the same seed gives the same crops (default 101)")
    p.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1), help="worker processes (default 2)")
    p.add_argument("--layout", action="append", default=[], metavar="NAME=W",
                   help=f"a scene layout's weight (repeatable; default {', '.join(f'{k}={v}' for k, v in LAYOUTS.items())}"
                        ", the others datasets/scenes.py's own)")
    p.add_argument("--models", metavar="DIR", help="the recogniser's models folder (default: the committed models)")
    p.add_argument("--legible", default=str(LEGIBLE_P), metavar="P|best",
                   help="keep a card's soft crop where the sharp crop gives that card at least P "
                        f"(default {LEGIBLE_P}), or, 'best', where it is the sharp crop's best reading")
    p.add_argument("--wrong-as-none", type=float, metavar="P",
                   help="also keep, as 'none', the soft crop of a half-seen or illegible index that the "
                        "committed classifier reads as another card with probability at least P (default: left out)")
    p.add_argument("--as-read", action="store_true",
                   help="cut the soft crops from the picture the recogniser reads (a lamp's glare taken off, a soft "
                        "frame sharpened), not from the degraded frame itself")
    p.add_argument("--defocus-share", type=float, default=DEFOCUS_SHARE, metavar="S",
                   help=f"the share of tables defocused (default {DEFOCUS_SHARE}); motion blur and 640x360 share the rest")
    p.add_argument("--skip-blurred", action="store_true",
                   help="give no crops from a table whose degraded frame the recogniser declares blurred (it never reads one)")


def run_from_args(a) -> int:
    if a.scenes < 1 or a.val_scenes < 0 or a.workers < 1:
        print("error: --scenes and --workers must be at least 1, --val-scenes at least 0", file=sys.stderr)
        return 2
    from tableref.datasets.scenes import LAYOUTS as SCENE_LAYOUTS

    layouts = dict(LAYOUTS)
    for item in a.layout:
        name, _, w = item.partition("=")
        try:
            weight = float(w)
        except ValueError:
            weight = -1.0
        if name not in SCENE_LAYOUTS or weight < 0:
            print(f"error: --layout {item}: give NAME=WEIGHT, NAME one of {', '.join(SCENE_LAYOUTS)}, WEIGHT >= 0",
                  file=sys.stderr)
            return 2
        layouts[name] = weight
    legible: float | str = a.legible
    if legible != "best":
        try:
            legible = float(legible)
        except ValueError:
            legible = -1.0
        if not 0.0 <= legible <= 1.0:
            print(f"error: --legible {a.legible}: give a probability 0..1 or 'best'", file=sys.stderr)
            return 2
    if a.wrong_as_none is not None and not 0.0 <= a.wrong_as_none <= 1.0:
        print(f"error: --wrong-as-none {a.wrong_as_none}: give a probability 0..1", file=sys.stderr)
        return 2
    if not 0.0 <= a.defocus_share <= 1.0:
        print(f"error: --defocus-share {a.defocus_share}: give a share 0..1", file=sys.stderr)
        return 2
    if a.models and not Path(a.models).is_dir():
        print(f"error: --models {a.models}: no such folder", file=sys.stderr)
        return 2
    try:
        r = build(Path(a.out), a.scenes, a.val_scenes, a.seed, a.workers, layouts, a.models, legible,
                  a.wrong_as_none, a.as_read, a.defocus_share, a.skip_blurred)
    except (RuntimeError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    b = r["boxes"]
    print(f"wrote {a.out}: {b['card']} card and {b['none']} none boxes (each cut soft and sharp), {b['unsure']} "
          f"left out, {b['illegible']} soft crops of cards the sharp picture does not show left out, {b['wrong_none']} misread half-seen "
          f"crops kept as none, {b['blurred']} tables declared blurred left out, {r['seconds']} s")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(p)
    return run_from_args(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
