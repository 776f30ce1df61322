"""Measuring card recognition: matching reported cards to labels, metrics, scenes.

Used by ``tableref evaluate``; the speed benchmark
(``tableref bench-detect``) is ``tableref.bench``, which composes its frames here.

Matching rules
--------------
* Rank level (real photos labelled with whole-card boxes and rank words): a
  labelled card is *found* when a reported card of that rank has its centre inside
  the labelled box; a reported card is *correct* when its centre lies inside a
  labelled box of its rank. Precision = correct reported / all reported.
* Card level (scenes whose cards are known, e.g. the synthetic validation set and
  the test fixtures): the same with the full card value (``10H``) and the whole-card
  polygon.
* Index level (the real fanned deal, labelled by its corner indices): a reported index box
  lies on a labelled index when :func:`on_index_label` says so.
"""
from __future__ import annotations

import csv
import json
import math
import statistics
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

RANK_WORDS = {"ace": "A", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
              "eight": "8", "nine": "9", "ten": "10", "jack": "J", "queen": "Q", "king": "K"}


class DatasetError(ValueError):
    """A labelled set is missing or malformed."""


def card_rank(card: str) -> str:
    return card[:-1]


@dataclass
class Truth:
    """A labelled card: its name (``10H``, or a rank ``10`` at rank level) and polygon."""

    label: str
    polygon: list[tuple[float, float]]
    required: bool = True    # counts for recall (False: a card that may be reported but need not be)

    @classmethod
    def from_box(cls, label, box):
        x1, y1, x2, y2 = box
        return cls(label, [(x1, y1), (x2, y1), (x2, y2), (x1, y2)])

    def contains(self, pt) -> bool:
        poly = np.asarray(self.polygon, dtype=np.float32).reshape(-1, 1, 2)
        return cv2.pointPolygonTest(poly, (float(pt[0]), float(pt[1])), False) >= 0


def match(reported: list[tuple[str, tuple[float, float]]], truths: list[Truth]) -> dict:
    """Match reported (label, centre) against truths (same label space).

    Returns ``found`` (per truth bool), ``correct`` (per reported bool) and
    ``confusions``: (true label, reported label) for reported items lying on a
    truth of another label and on none of their own. Later truths lie on top of
    earlier ones (the topmost containing truth names the confusion).
    """
    found = [False] * len(truths)
    correct = [False] * len(reported)
    confusions = []
    for k, (label, centre) in enumerate(reported):
        inside = [i for i, t in enumerate(truths) if t.contains(centre)]
        same = [i for i in inside if truths[i].label == label]
        if same:
            correct[k] = True
            for i in same:
                found[i] = True
        elif inside:
            confusions.append((truths[inside[-1]].label, label))
    return {"found": found, "correct": correct, "confusions": confusions}


class Tally:
    """Accumulates per-label counts over images."""

    def __init__(self):
        self.truth = Counter()
        self.found = Counter()
        self.reported = Counter()
        self.correct = Counter()
        self.confusions = Counter()
        self.ms: list[float] = []
        self.images = 0
        self.failed_images: list[str] = []

    def add(self, result: dict, truths: list[Truth], reported_labels: list[str], ms: float):
        self.images += 1
        self.ms.append(ms)
        for t, f in zip(truths, result["found"]):
            if not t.required:
                continue
            self.truth[t.label] += 1
            self.found[t.label] += int(f)
        for lab, c in zip(reported_labels, result["correct"]):
            self.reported[lab] += 1
            self.correct[lab] += int(c)
        for pair in result["confusions"]:
            self.confusions[pair] += 1

    def summary(self) -> dict:
        n_t, n_f = sum(self.truth.values()), sum(self.found.values())
        n_r, n_c = sum(self.reported.values()), sum(self.correct.values())
        labels = sorted(set(self.truth) | set(self.reported), key=_label_order)
        per = {}
        for lab in labels:
            per[lab] = {
                "labelled": self.truth[lab], "found": self.found[lab],
                "recall": self.found[lab] / self.truth[lab] if self.truth[lab] else None,
                "reported": self.reported[lab], "correct": self.correct[lab],
                "precision": self.correct[lab] / self.reported[lab] if self.reported[lab] else None,
            }
        ms = sorted(self.ms)
        return {
            "images": self.images, "labelled": n_t, "found": n_f, "reported": n_r, "correct": n_c,
            "recall": n_f / n_t if n_t else None, "precision": n_c / n_r if n_r else None,
            "per_label": per,
            "confusions": [[a, b, n] for (a, b), n in self.confusions.most_common()],
            "ms_median": statistics.median(ms) if ms else None,
            "ms_p90": float(np.percentile(ms, 90)) if ms else None,
            "failed_images": self.failed_images,
        }


def _label_order(lab: str):
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    r, s = (lab, "") if lab in ranks else (lab[:-1], lab[-1:])
    return (s, ranks.index(r) if r in ranks else 99, lab)


# --------------------------------------------------------------------------- real photos, rank level


def load_rank_labels(directory: str | Path) -> dict[str, list[Truth]]:
    """``labels.csv`` (filename,width,height,class,xmin,ymin,xmax,ymax) -> {filename: truths}."""
    d = Path(directory)
    path = d / "labels.csv"
    if not path.exists():
        raise DatasetError(f"{path} not found")
    out: dict[str, list[Truth]] = defaultdict(list)
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            try:
                rank = RANK_WORDS[row["class"].strip().lower()]
                box = [float(row[k]) for k in ("xmin", "ymin", "xmax", "ymax")]
            except (KeyError, ValueError) as exc:
                raise DatasetError(f"{path}: bad row {row}: {exc}") from None
            out[row["filename"]].append(Truth.from_box(rank, box))
    return dict(out)


def _progress(items, desc):
    try:
        from tqdm import tqdm

        return tqdm(items, desc=desc, unit="img", leave=False)
    except ImportError:
        return items


def evaluate_rank_photos(rec, directory, limit: int = 0, errors_dir: str | None = None) -> dict:
    """Rank-level precision/recall of ``rec`` on a rank-labelled photo set."""
    labels = load_rank_labels(directory)
    names = sorted(labels)
    if limit:
        names = names[:limit]
    tally = Tally()
    for fn in _progress(names, "real photos"):
        img = cv2.imread(str(Path(directory) / fn), cv2.IMREAD_COLOR)
        if img is None:
            tally.failed_images.append(fn)
            continue
        t0 = time.perf_counter()
        cards = rec.recognize(img)
        ms = (time.perf_counter() - t0) * 1000
        reported = [(card_rank(c.card), c.centre) for c in cards]
        truths = labels[fn]
        res = match(reported, truths)
        tally.add(res, truths, [r for r, _ in reported], ms)
        if errors_dir and (not all(res["found"]) or not all(res["correct"])):
            _write_error_image(errors_dir, fn, img, cards, truths)
    return tally.summary()


def _write_error_image(errors_dir, fn, img, cards, truths):
    from tableref.vision.drawing import draw_cards

    out = draw_cards(img, cards)
    for t in truths:
        pts = np.asarray(t.polygon, dtype=np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [pts], True, (255, 0, 255), 1)
        cv2.putText(out, t.label, tuple(int(v) for v in t.polygon[0]), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                    (255, 0, 255), 1)
    Path(errors_dir).mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(Path(errors_dir) / (Path(fn).stem + ".jpg")), out)


# --------------------------------------------------------------------------- card-level scenes


def load_scene_labels(path: str | Path) -> list[Truth]:
    """A scene's truth file: JSON ``{"cards": [{"card": "10H", "quad": [[x, y] x 4]} | {"card", "box"}]}``."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    out = []
    for c in data.get("cards", []):
        if c.get("quad"):
            out.append(Truth(c["card"], [tuple(p) for p in c["quad"]]))
        else:
            out.append(Truth.from_box(c["card"], c["box"]))
    return out


def evaluate_scenes(rec, pairs: list[tuple[Path, list[Truth]]], errors_dir: str | None = None,
                    desc: str = "scenes") -> dict:
    """Card-level precision/recall over (image path, truths) pairs."""
    tally = Tally()
    for img_path, truths in _progress(pairs, desc):
        img = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
        if img is None:
            tally.failed_images.append(str(img_path))
            continue
        t0 = time.perf_counter()
        cards = rec.recognize(img)
        ms = (time.perf_counter() - t0) * 1000
        reported = [(c.card, c.centre) for c in cards]
        res = match(reported, truths)
        tally.add(res, truths, [c.card for c in cards], ms)
        if errors_dir and (not all(res["found"]) or not all(res["correct"])):
            _write_error_image(errors_dir, Path(img_path).name, img, cards, truths)
    return tally.summary()


def scene_dir_pairs(directory: str | Path, limit: int = 0) -> list[tuple[Path, list[Truth]]]:
    """Image + truth pairs of a scene directory.

    Understood layouts: ``<stem>.jpg|png`` with ``<stem>.json`` beside it (the
    fixture format, see :func:`load_scene_labels`), or an ``images/`` folder with
    ``cards/<stem>.json`` or ``labels/<stem>.json`` beside it.
    """
    d = Path(directory)
    if not d.is_dir():
        raise DatasetError(f"{d} is not a directory")
    img_dir = d / "images" if (d / "images").is_dir() else d
    label_dirs = [img_dir, d / "cards", d / "labels", d / "scenes", d]
    pairs = []
    for p in sorted(img_dir.iterdir()):
        if p.suffix.lower() not in (".jpg", ".jpeg", ".png", ".bmp", ".webp"):
            continue
        for ld in label_dirs:
            j = ld / (p.stem + ".json")
            if j.exists():
                pairs.append((p, load_scene_labels(j)))
                break
        if limit and len(pairs) >= limit:
            break
    if not pairs:
        raise DatasetError(f"no labelled scenes (image + <stem>.json with a 'cards' list) in {d}")
    return pairs


def render_synthetic_scenes(n: int, width: int = 1280, height: int = 720, seed: int = 20261129,
                            index_px: tuple[float, float] = (10.0, 70.0)):
    """``n`` scenes from the training-data renderer (``datasets.scenes``) with card-level truths.

    The seeds (``seed`` + i) are not ones the dataset build uses for training.
    A card is *required* when one of its corner indices is a training label (at
    least ``VISIBLE`` of it seen); cards showing less may be reported but need not be.
    Yields (name, image, truths).
    """
    try:
        from tableref.datasets import scenes
    except ImportError as exc:
        raise DatasetError(f"the scene renderer (datasets package) is unavailable: {exc}") from None
    pool = scenes.DeckPool()
    for i in range(n):
        rng = np.random.default_rng(seed + i)
        sc = scenes.render_scene(rng, pool, width, height, size=index_px)
        names, required = {}, set()
        for lab in sc.indices:
            names[lab.card_id] = lab.card
        for lab in sc.labels():
            required.add(lab.card_id)
        truths = [Truth(card, [tuple(map(float, p)) for p in sc.card_quads[cid]], cid in required)
                  for cid, card in sorted(names.items())]
        yield f"synthetic_{seed + i}", sc.image, truths


def evaluate_images(rec, items, errors_dir: str | None = None, desc: str = "scenes") -> dict:
    """Card-level precision/recall over (name, image, truths) items."""
    tally = Tally()
    for name, img, truths in _progress(list(items), desc):
        t0 = time.perf_counter()
        cards = rec.recognize(img)
        ms = (time.perf_counter() - t0) * 1000
        res = match([(c.card, c.centre) for c in cards], truths)
        tally.add(res, truths, [c.card for c in cards], ms)
        if errors_dir and (not all(f or not t.required for f, t in zip(res["found"], truths))
                           or not all(res["correct"])):
            _write_error_image(errors_dir, name, img, cards, truths)
    return tally.summary()


# --------------------------------------------------------------------------- composing scenes


def paste_card(canvas: np.ndarray, face_rgba_or_bgra: np.ndarray, centre, angle_deg: float, height: float,
               bgra: bool = True, shadow: bool = True) -> list[list[float]]:
    """Paste a card face (4-channel, transparent outside) into ``canvas`` (BGR, in place).

    Returns the card's quad (TL, TR, BR, BL of the face) in canvas pixels.
    """
    face = face_rgba_or_bgra if bgra else face_rgba_or_bgra[:, :, [2, 1, 0, 3]]
    fh, fw = face.shape[:2]
    s = height / fh
    a = math.radians(angle_deg)
    c, si = math.cos(a) * s, math.sin(a) * s
    cx, cy = centre
    m = np.array([[c, -si, cx - c * fw / 2 + si * fh / 2], [si, c, cy - si * fw / 2 - c * fh / 2]], np.float32)
    H, W = canvas.shape[:2]
    warped = cv2.warpAffine(face, m, (W, H), flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
    if shadow:
        sh = cv2.GaussianBlur(alpha, (0, 0), max(1.0, height / 60))
        if sh.ndim == 2:
            sh = sh[:, :, None]
        sh = np.roll(sh, (int(height / 80) + 1, int(height / 80) + 1), axis=(0, 1))
        canvas[:] = (canvas.astype(np.float32) * (1 - 0.35 * sh)).astype(np.uint8)
    canvas[:] = (canvas.astype(np.float32) * (1 - alpha) + warped[:, :, :3].astype(np.float32) * alpha).astype(np.uint8)
    corners = np.array([[0, 0, 1], [fw, 0, 1], [fw, fh, 1], [0, fh, 1]], np.float32)
    return (corners @ m.T).tolist()


def table_background(width: int, height: int, seed: int = 0, kind: str = "felt") -> np.ndarray:
    """A procedural table top: felt (green/blue/red) or wood, with a light gradient."""
    rng = np.random.default_rng(seed)
    if kind == "wood":
        base = np.array([40, 90, 150], np.float32)
        y = np.linspace(0, 1, height)[:, None]
        x = np.linspace(0, 1, width)[None, :]
        grain = np.sin((y * 40 + np.sin(x * 6 + rng.uniform(0, 6)) * 2) * math.pi) * 0.5 + 0.5
        img = base[None, None, :] * (0.7 + 0.3 * grain[:, :, None])
    else:
        colours = [(40, 110, 30), (110, 70, 20), (30, 30, 120), (60, 60, 60)]
        base = np.array(colours[int(rng.integers(len(colours)))], np.float32)
        img = np.broadcast_to(base, (height, width, 3)).astype(np.float32).copy()
    noise = rng.normal(0, 8, (height // 2 + 1, width // 2 + 1, 1)).astype(np.float32)
    noise = cv2.resize(noise, (width, height))[:, :, None]
    gx = np.linspace(0.8, 1.15, width, dtype=np.float32)[None, :, None]
    img = (img + noise) * gx
    return np.clip(img, 0, 255).astype(np.uint8)


def meld_layout(width: int, height: int, n_cards: int, card_h: float, seed: int = 0):
    """Positions for ``n_cards`` cards in overlapping meld rows filling the frame.

    Returns a list of (centre, angle_deg) in paint order. Cards overlap so that
    each shows at least its top-left index, like melds laid on a table.
    """
    rng = np.random.default_rng(seed)
    card_w = card_h * 0.714
    step = card_w * 0.42
    rows = max(1, int((height - card_h * 0.2) // (card_h * 1.08)))
    per_row = int(math.ceil(n_cards / rows))
    need = card_w + step * (per_row - 1)
    if need > width * 0.96:
        step = (width * 0.96 - card_w) / max(per_row - 1, 1)
    out = []
    for k in range(n_cards):
        r, i = divmod(k, per_row)
        x0 = (width - (card_w + step * (per_row - 1))) / 2 + card_w / 2
        cx = x0 + i * step + rng.normal(0, step * 0.05)
        cy = card_h * 0.6 + r * card_h * 1.08 + rng.normal(0, card_h * 0.02)
        out.append(((float(cx), float(cy)), float(rng.normal(0, 3))))
    return out


def compose_meld_scene(faces: dict, cards: list[str], width: int, height: int, card_h: float,
                       seed: int = 0, kind: str = "felt") -> tuple[np.ndarray, list[Truth]]:
    """A table image with ``cards`` laid in overlapping meld rows; the truths in paint order."""
    img = table_background(width, height, seed, kind)
    truths = []
    for card, (centre, angle) in zip(cards, meld_layout(width, height, len(cards), card_h, seed)):
        quad = paste_card(img, faces[card], centre, angle, card_h)
        truths.append(Truth(card, [tuple(p) for p in quad]))
    return img, truths


def compose_random_scene(faces: dict, n_cards: int, width: int, height: int, card_h: float,
                         seed: int = 0, kind: str | None = None) -> tuple[np.ndarray, list[Truth]]:
    """Cards dropped at random places and angles (overlaps happen); truths in paint order."""
    rng = np.random.default_rng(seed)
    img = table_background(width, height, seed, kind or ("wood" if rng.random() < 0.4 else "felt"))
    names = list(faces)
    truths = []
    for _ in range(n_cards):
        card = names[int(rng.integers(len(names)))]
        centre = (float(rng.uniform(card_h * 0.3, width - card_h * 0.3)),
                  float(rng.uniform(card_h * 0.3, height - card_h * 0.3)))
        h = card_h * float(rng.uniform(0.85, 1.15))
        quad = paste_card(img, faces[card], centre, float(rng.uniform(-180, 180)), h)
        truths.append(Truth(card, [tuple(p) for p in quad]))
    return img, truths


# --------------------------------------------------------------------------- reports


def _pct(v):
    return "  n/a" if v is None else f"{100 * v:5.1f}"


def format_report(name: str, s: dict) -> str:
    lines = [f"== {name}",
             f"images {s['images']}   labelled {s['labelled']}   reported {s['reported']}",
             f"recall {_pct(s['recall'])} %   precision {_pct(s['precision'])} %   "
             f"time median {s['ms_median'] or 0:.0f} ms  p90 {s['ms_p90'] or 0:.0f} ms"]
    lines.append(f"{'label':>6} {'labelled':>8} {'found':>6} {'recall':>7} {'reported':>8} {'correct':>7} {'precision':>9}")
    for lab, p in s["per_label"].items():
        lines.append(f"{lab:>6} {p['labelled']:>8} {p['found']:>6} {_pct(p['recall']):>7} "
                     f"{p['reported']:>8} {p['correct']:>7} {_pct(p['precision']):>9}")
    if s["confusions"]:
        lines.append("confusions (true -> reported: count): " +
                     ", ".join(f"{a}->{b}: {n}" for a, b, n in s["confusions"][:20]))
    if s["failed_images"]:
        lines.append(f"unreadable images: {len(s['failed_images'])}")
    return "\n".join(lines)


def on_index_label(box, label_box) -> bool:
    """A reported index box lies on a labelled index: its centre inside the label grown by half its
    size each way, or the label's centre inside it (boxes ``x1, y1, x2, y2``)."""
    x1, y1, x2, y2 = label_box
    gw, gh = (x2 - x1) * 0.5, (y2 - y1) * 0.5
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    if x1 - gw <= cx <= x2 + gw and y1 - gh <= cy <= y2 + gh:
        return True
    lx, ly = (x1 + x2) / 2, (y1 + y2) / 2
    return box[0] <= lx <= box[2] and box[1] <= ly <= box[3]
