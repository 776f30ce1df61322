"""Card artwork: fetch, render and cache deck designs, and locate each card's corner indices.

Public API (also used by the simulator, ``tableref simulate``):

- ``available_decks() -> list[str]``: deck names that can be loaded on this machine
  (their source is installed, cached, or fetchable with ``npm pack``).
- ``load_deck(name) -> {card: RGBA uint8 ndarray}``: the 52 faces, canonical card
  notation (``"10H"``, ``"AS"``), all rendered at ``RENDER_HEIGHT`` pixels high with
  a transparent outside (rounded corners).
- ``load_back(name) -> RGBA ndarray or None``: the card back where the source has one.
- ``index_boxes(name) -> {card: [[x1, y1, x2, y2], ...]}``: the printed corner indices
  (rank + suit) of each face in its rendered pixels; the first box is the top-left
  index, the second the rotated bottom-right one, then any others (decks printing
  indices in all four corners).
- ``deck_geometry(name) -> dict``: the mean top-left / bottom-right index box
  relative to the card width and height.

SVGs are rendered with resvg (pip ``resvg-py``; no system program needed). Rendered PNGs and the
index boxes are cached in ``datasets/cache/decks/<name>/`` (ignored by git). Sources
and licences of every deck are listed in ``DECKS`` and in ``datasets/ASSETS.md``.
Index boxes are found automatically (ink near each corner, see
:func:`find_corner_index`) and checked by eye on contact sheets
(``python -m tableref.datasets.decks --sheet OUT.png``).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import cv2
import numpy as np

HERE = Path(__file__).resolve().parent
CACHE = Path(os.environ.get("TABLEREF_DATASET_CACHE", HERE / "cache"))
RENDER_HEIGHT = 560
CACHE_VERSION = 6

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("C", "D", "H", "S")
CARDS = [r + s for s in SUITS for r in RANKS]

_KDE_RANK = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}
_KDE_SUIT = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}

NPM_PACKAGES = {
    "kennard": ("@heruka_urgyen/react-playing-cards", "0.5.0"),
    "svg-cards": ("svg-cards", "4.0.2"),
    "younestouati": ("@younestouati/playing-cards-standard-deck", "3.0.0"),
}

# name -> source description. kind: "npm-files" (one SVG per card), "npm-png", "kde" (SVGZ sheet).
DECKS: dict[str, dict] = {
    "kennard-2color": {"kind": "npm-files", "pkg": "kennard", "dir": "package/src/images/2color",
                       "licence": "CC0-1.0", "source": "Adrian Kennard's SVG cards via npm @heruka_urgyen/react-playing-cards 0.5.0"},
    "kennard-2color-bf": {"kind": "npm-files", "pkg": "kennard", "dir": "package/src/images/2color-bf",
                          "licence": "CC0-1.0", "source": "Adrian Kennard's SVG cards via npm @heruka_urgyen/react-playing-cards 0.5.0"},
    "kennard-4color": {"kind": "npm-files", "pkg": "kennard", "dir": "package/src/images/4color",
                       "licence": "CC0-1.0", "source": "Adrian Kennard's SVG cards via npm @heruka_urgyen/react-playing-cards 0.5.0"},
    "kennard-4color-bf": {"kind": "npm-files", "pkg": "kennard", "dir": "package/src/images/4color-bf",
                          "licence": "CC0-1.0", "source": "Adrian Kennard's SVG cards via npm @heruka_urgyen/react-playing-cards 0.5.0"},
    "svg-cards": {"kind": "npm-png", "pkg": "svg-cards", "dir": "package/png/2x",
                  "licence": "LGPL-2.1", "source": "npm svg-cards 4.0.2 (David Bellot's SVG-cards), png/2x"},
    "younestouati": {"kind": "npm-younes", "pkg": "younestouati", "dir": "package/cards",
                     "licence": "LGPL-3.0", "source": "npm @younestouati/playing-cards-standard-deck 3.0.0"},
}
_KDE_DECKS = ["standard", "dondorf", "nicu-white", "nicu-ornamental"]
# KDE decks looked at and left out (reason), so nobody re-adds them blindly:
EXCLUDED = {
    "kde-oxygen, kde-oxygen-white, kde-oxygen-air": "rank printed top-right, suit bottom-left: no standard corner index",
    "kde-gm-paris": "court-card suit pips touch the pictures, so their index boxes miss the suit",
    "kde-future": "not a playing-card design (sci-fi tiles)",
    "kde-tigullio-international": "index finder fails on the tiny number-card indices",
    "kde-jolly-royal": "bottom-right index is not the rotated top-left one",
    "kde-ancient-egyptians": "court-card indices merge with the pictures",
    "kde-penguins": "pixel-art indices, finder fails on most cards",
    "kde-konqi-modern, kde-xskat-french": "the SVGZ has no dimensions, so a card cannot be cut out by id",
    "kde-xskat-german": "German suits (no French indices)",
}
# drawn here as SVG (datasets/generated.py: matplotlib's DejaVu/STIX fonts, rendered with resvg-py)
from tableref.datasets import generated as _generated  # noqa: E402

for _g, _spec in _generated.DESIGNS.items():
    DECKS[_g] = {"kind": "generated", "licence": "this repository (fonts: DejaVu/Bitstream Vera licence, STIX SIL OFL, via matplotlib)",
                 "source": f"datasets/generated.py: {_spec['note']}"}
for _d in _KDE_DECKS:
    DECKS["kde-" + _d] = {"kind": "kde", "dir": f"/usr/share/carddecks/svg-{_d}",
                          "licence": "GPL-2.0-or-later (Debian kdegames-card-data-kf5)",
                          "source": f"Debian package kdegames-card-data-kf5, /usr/share/carddecks/svg-{_d}"}


# ----------------------------------------------------------------------------- fetching

def _npm_dir(pkg_key: str, fetch: bool = True) -> Path | None:
    name, version = NPM_PACKAGES[pkg_key]
    base = CACHE / "npm"
    tgz_stem = name.lstrip("@").replace("/", "-") + "-" + version
    out = base / tgz_stem
    if (out / "package").is_dir():
        return out
    if not fetch:
        return None
    if not shutil.which("npm"):
        return None
    base.mkdir(parents=True, exist_ok=True)
    try:
        subprocess.run(["npm", "pack", f"{name}@{version}"], cwd=base, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    except (subprocess.SubprocessError, OSError):
        return None
    tgz = base / (tgz_stem + ".tgz")
    if not tgz.exists():
        return None
    out.mkdir(parents=True, exist_ok=True)
    with tarfile.open(tgz) as tf:
        tf.extractall(out, filter="data")
    return out


def _source_ok(name: str, fetch: bool) -> bool:
    spec = DECKS[name]
    if spec["kind"] == "kde":
        return bool(glob.glob(os.path.join(spec["dir"], "*.svgz")))
    if spec["kind"] == "generated":
        return _generated.available()
    return _npm_dir(spec["pkg"], fetch=fetch) is not None


def available_decks(fetch: bool = False) -> list[str]:
    """Deck names loadable here: already rendered in the cache, or with their source present.

    With ``fetch=True`` missing npm packages are fetched with ``npm pack``.
    """
    out = []
    for name in DECKS:
        if (_deck_dir(name) / "index.json").exists() or _source_ok(name, fetch):
            out.append(name)
    return out


# ----------------------------------------------------------------------------- rendering

def _deck_dir(name: str) -> Path:
    return CACHE / "decks" / name


def _svg_text(src: str) -> str:
    raw = Path(src).read_bytes()
    if raw[:2] == b"\x1f\x8b":  # .svgz
        import gzip
        raw = gzip.decompress(raw)
    return raw.decode("utf-8")


def _svg_root(svg: str):
    import xml.etree.ElementTree as ET

    for prefix, uri in re.findall(r'xmlns:(\w+)="([^"]+)"', svg):
        ET.register_namespace(prefix, uri)
    ET.register_namespace("", "http://www.w3.org/2000/svg")
    return ET.fromstring(svg)


def _only_element(svg: str, export_id: str):
    """The SVG root with everything moved into ``<defs>`` (kept for references, not drawn)
    except element ``export_id`` and its ancestors."""
    import xml.etree.ElementTree as ET

    root = _svg_root(svg)
    parents = {child: parent for parent in root.iter() for child in parent}
    target = next((e for e in root.iter() if e.get("id") == export_id), None)
    if target is None:
        raise RuntimeError(f"no element {export_id!r} in the SVG")
    keep, node = [target], target
    while node in parents:
        node = parents[node]
        keep.append(node)
    defs_tag = "{http://www.w3.org/2000/svg}defs"
    for node in keep[1:]:
        hidden = [c for c in node if c not in keep and not c.tag.endswith("defs")]
        if hidden:
            defs = ET.SubElement(node, defs_tag)
            for c in hidden:
                node.remove(c)
                defs.append(c)
    return root


def _set_view(root, x: float, y: float, w: float, h: float):
    import xml.etree.ElementTree as ET

    root.set("viewBox", f"{x:g} {y:g} {w:g} {h:g}")
    root.set("width", f"{w:g}")
    root.set("height", f"{h:g}")
    return ET.tostring(root, encoding="unicode")


def _render_png(h: int, **src) -> np.ndarray:
    import resvg_py

    png = bytes(resvg_py.svg_to_bytes(height=int(h), dpi=96.0, **src))
    return cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)


def _rsvg(src: str, out: Path, height: int, export_id: str | None = None) -> None:
    """Render an SVG (or SVGZ) file to a PNG ``height`` pixels high with resvg (pip ``resvg-py``).

    ``export_id``: render only that element of a sheet of cards, cut to its own bounding box (as
    ``rsvg-convert --export-id`` did): everything else is moved into ``<defs>``, a probe render of a
    view three times the sheet's size finds the element, a second render shows just that area.
    """
    if export_id is None:
        cv2.imwrite(str(out), _render_png(height, svg_path=str(src)))
        return
    root = _only_element(_svg_text(src), export_id)
    box = [float(v) for v in re.split(r"[\s,]+", root.get("viewBox", "").strip()) if v] or \
        [0.0, 0.0, float(re.sub(r"[a-z]+$", "", root.get("width", "0"))),
         float(re.sub(r"[a-z]+$", "", root.get("height", "0")))]
    vx, vy, vw, vh = box
    if vw <= 0 or vh <= 0:
        raise RuntimeError("the SVG sheet has no size")
    probe_h = 1500
    probe = _render_png(probe_h, svg_string=_set_view(root, vx - vw, vy - vh, 3 * vw, 3 * vh))
    ys, xs = np.nonzero(probe[:, :, 3] > 0)
    if len(xs) == 0:
        raise RuntimeError(f"element {export_id!r} draws nothing")
    k = 3 * vh / probe.shape[0]                       # user units per probe pixel
    x0, y0 = vx - vw + (xs.min() - 1) * k, vy - vh + (ys.min() - 1) * k
    w, h = (xs.max() - xs.min() + 3) * k, (ys.max() - ys.min() + 3) * k
    img = _trim_to_card(_render_png(round(height * 1.05), svg_string=_set_view(root, x0, y0, w, h)))
    s = height / img.shape[0]
    img = cv2.resize(img, (max(1, round(img.shape[1] * s)), int(height)), interpolation=cv2.INTER_AREA)
    cv2.imwrite(str(out), img)


def _render_card(name: str, card: str, out: Path, height: int) -> None:
    spec = DECKS[name]
    rank, suit = card[:-1], card[-1]
    if spec["kind"] == "kde":
        sheet = glob.glob(os.path.join(spec["dir"], "*.svgz"))[0]
        _rsvg(sheet, out, height, f"{_KDE_RANK.get(rank, rank)}_{_KDE_SUIT[suit]}")
        return
    if spec["kind"] == "generated":
        cv2.imwrite(str(out), cv2.cvtColor(_generated.render_card(name, card, height), cv2.COLOR_RGBA2BGRA))
        return
    base = _npm_dir(spec["pkg"]) / spec["dir"]
    if spec["kind"] == "npm-files":
        _rsvg(str(base / f"{'T' if rank == '10' else rank}{suit}.svg"), out, height)
    elif spec["kind"] == "npm-younes":
        num = {"A": "1", "J": "11", "Q": "12", "K": "13"}.get(rank, rank)
        _rsvg(str(base / f"{num}{suit.lower()}.svg"), out, height)
    elif spec["kind"] == "npm-png":
        r = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}.get(rank, rank)
        img = cv2.imread(str(base / f"{_KDE_SUIT[suit]}_{r}.png"), cv2.IMREAD_UNCHANGED)
        if img is None:
            raise FileNotFoundError(base / f"{_KDE_SUIT[suit]}_{r}.png")
        if img.shape[2] == 3:
            img = np.dstack([img, np.full(img.shape[:2], 255, np.uint8)])
        scale = height / img.shape[0]
        img = cv2.resize(img, (round(img.shape[1] * scale), height), interpolation=cv2.INTER_CUBIC)
        cv2.imwrite(str(out), img)
    else:
        raise ValueError(spec["kind"])


def _trim_to_card(img: np.ndarray) -> np.ndarray:
    """Crop an RGBA render to the opaque card (some exports carry empty margins)."""
    ys, xs = np.nonzero(img[:, :, 3] > 16)
    if len(xs) == 0:
        return img
    return img[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def render_deck(name: str, height: int = RENDER_HEIGHT, force: bool = False) -> Path:
    """Render all 52 faces of ``name`` into the cache and find their index boxes."""
    d = _deck_dir(name)
    meta_path = d / "index.json"
    if meta_path.exists() and not force:
        meta = json.loads(meta_path.read_text())
        if meta.get("version") == CACHE_VERSION and meta.get("height") == height:
            return d
    if not _source_ok(name, fetch=True):
        raise FileNotFoundError(f"deck {name!r}: source not available ({DECKS[name]['source']})")
    d.mkdir(parents=True, exist_ok=True)
    boxes = {}
    for card in CARDS:
        out = d / f"{card}.png"
        _render_card(name, card, out, height)
        img = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
        if img is None:
            raise RuntimeError(f"deck {name!r}: rendering {card} failed")
        if img.shape[2] == 3:
            img = np.dstack([img, np.full(img.shape[:2], 255, np.uint8)])
        img = _trim_to_card(img)
        if abs(img.shape[0] - height) > 2:
            s = height / img.shape[0]
            img = cv2.resize(img, (max(1, round(img.shape[1] * s)), height), interpolation=cv2.INTER_AREA)
        cv2.imwrite(str(out), img)
        if DECKS[name]["kind"] == "generated":  # drawn here: the boxes are known exactly
            boxes[card] = _generated.index_boxes(name, card, img.shape[0])
        else:
            boxes[card] = find_indices(img)
    meta = {"version": CACHE_VERSION, "height": height, "deck": name, "licence": DECKS[name]["licence"],
            "source": DECKS[name]["source"], "boxes": boxes}
    meta_path.write_text(json.dumps(meta))
    return d


# ----------------------------------------------------------------------------- index finding

def _paper_and_ink(img: np.ndarray) -> np.ndarray:
    """Boolean ink mask: opaque pixels that differ clearly from the card's paper colour."""
    h, w = img.shape[:2]
    alpha = img[:, :, 3] > 128
    # keep away from the card outline: erode the opaque area by ~3.5 % of the width
    k = max(3, int(0.035 * w)) | 1
    inner = cv2.erode(alpha.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)),
                      borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0
    rgb = img[:, :, :3].astype(np.int16)
    sample = rgb[inner]
    q = (sample // 16).reshape(-1, 3)
    keys = q[:, 0] * 256 + q[:, 1] * 16 + q[:, 2]
    mode = np.bincount(keys.ravel()).argmax()
    paper = sample[keys == mode].mean(axis=0)
    diff = np.abs(rgb - paper).sum(axis=2)
    return (diff > 90) & inner


def find_corner_index(img: np.ndarray, ink: np.ndarray | None = None) -> list[int] | None:
    """Box [x1, y1, x2, y2] of the index in the top-left corner of an RGBA card, or None.

    Ink components lying wholly inside the corner region (left 30 %, top 46 %) are
    gathered starting from the one nearest the corner, adding neighbours closer than
    a small gap (so "10" plus the suit pip below it form one box; frames and court
    pictures are larger than the region and never join).
    """
    h, w = img.shape[:2]
    if ink is None:
        ink = _paper_and_ink(img)
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    comps = []
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if area < max(6, (0.004 * h) ** 2):
            continue
        if x + bw > 0.30 * w or y + bh > 0.46 * h:
            continue
        comps.append([x, y, x + bw, y + bh])
    if not comps:
        return None
    comps.sort(key=lambda b: b[0] + b[1])
    # seed: nearest to the corner among components of reasonable height
    seeds = [b for b in comps if (b[3] - b[1]) > 0.025 * h]
    if not seeds:
        return None
    box = list(seeds[0])
    gap = max(0.035 * h, 0.4 * (box[3] - box[1]))
    changed = True
    used = {tuple(seeds[0])}
    while changed:
        changed = False
        for b in comps:
            if tuple(b) in used:
                continue
            dx = max(b[0] - box[2], box[0] - b[2], 0)
            dy = max(b[1] - box[3], box[1] - b[3], 0)
            if dx <= gap and dy <= gap:
                box = [min(box[0], b[0]), min(box[1], b[1]), max(box[2], b[2]), max(box[3], b[3])]
                used.add(tuple(b))
                changed = True
    # large-index designs print the suit well below the rank: take the nearest component
    # straight below (overlapping in x) if it is no farther than the rank is high
    rank_h = box[3] - box[1]
    below = [b for b in comps if tuple(b) not in used and b[1] >= box[3] - 1
             and min(b[2], box[2]) - max(b[0], box[0]) > 0.3 * min(b[2] - b[0], box[2] - box[0])
             and b[1] - box[3] <= 1.0 * rank_h and (b[3] - b[1]) <= 1.5 * rank_h]
    if below:
        b = min(below, key=lambda c: c[1])
        box = [min(box[0], b[0]), min(box[1], b[1]), max(box[2], b[2]), max(box[3], b[3])]
        used.add(tuple(b))
        for c in comps:  # parts of the suit symbol touching the pip (e.g. a stem)
            if tuple(c) not in used and c[0] >= box[0] - 2 and c[2] <= box[2] + 2 and c[1] >= b[1] and c[3] <= box[3] + 2:
                box = [min(box[0], c[0]), min(box[1], c[1]), max(box[2], c[2]), max(box[3], c[3])]
    bw, bh = box[2] - box[0], box[3] - box[1]
    if bh < 0.06 * h or bw < 0.03 * w or bw > 0.3 * w or bh > 0.4 * h:
        return None
    return [int(v) for v in box]


def find_indices(img: np.ndarray) -> list[list[int]]:
    """All corner-index boxes of an RGBA face: top-left, bottom-right, then top-right / bottom-left.

    The bottom-right index is looked for on the card turned by 180°; the other two
    corners on the mirrored card, and they are kept only where they mirror the
    top-left box (decks that print four indices).
    """
    h, w = img.shape[:2]
    ink = _paper_and_ink(img)
    out = []
    tl = find_corner_index(img, ink)
    if tl is None:
        return out
    out.append(tl)
    br = find_corner_index(img[::-1, ::-1], ink[::-1, ::-1])
    if br is not None:
        out.append([w - br[2], h - br[3], w - br[0], h - br[1]])
    for flip_x in (True, False):
        sub_img = img[:, ::-1] if flip_x else img[::-1, :]
        sub_ink = ink[:, ::-1] if flip_x else ink[::-1, :]
        b = find_corner_index(sub_img, sub_ink)
        if b is None or _iou(b, tl) < 0.5:
            continue
        if flip_x:
            out.append([w - b[2], b[1], w - b[0], b[3]])
        else:
            out.append([b[0], h - b[3], b[2], h - b[1]])
    return out


def _iou(a, b) -> float:
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


# ----------------------------------------------------------------------------- loading

def load_deck(name: str) -> dict[str, np.ndarray]:
    """The 52 faces of deck ``name`` as RGBA uint8 arrays (rendered and cached on first use)."""
    d = render_deck(name)
    out = {}
    for card in CARDS:
        img = cv2.imread(str(d / f"{card}.png"), cv2.IMREAD_UNCHANGED)
        out[card] = cv2.cvtColor(img, cv2.COLOR_BGRA2RGBA)
    return out


def load_deck_bgra(name: str) -> dict[str, np.ndarray]:
    """Like :func:`load_deck` but BGRA (OpenCV channel order), as the scene renderer uses."""
    d = render_deck(name)
    return {card: cv2.imread(str(d / f"{card}.png"), cv2.IMREAD_UNCHANGED) for card in CARDS}


def index_boxes(name: str) -> dict[str, list[list[int]]]:
    """Corner-index boxes per card in rendered pixels (see module docstring)."""
    d = render_deck(name)
    return json.loads((d / "index.json").read_text())["boxes"]


def load_back(name: str) -> np.ndarray | None:
    """The card back (RGBA) where the source provides one, else None."""
    spec = DECKS[name]
    out = _deck_dir(name) / "back.png"
    if not out.exists():
        try:
            if spec["kind"] == "kde":
                sheet = glob.glob(os.path.join(spec["dir"], "*.svgz"))[0]
                _rsvg(sheet, out, RENDER_HEIGHT, "back")
            elif spec["kind"] == "npm-files":
                _rsvg(str(_npm_dir(spec["pkg"]) / "package/src/images/back.svg"), out, RENDER_HEIGHT)
            elif spec["kind"] == "npm-younes":
                _rsvg(str(_npm_dir(spec["pkg"]) / spec["dir"] / "back.svg"), out, RENDER_HEIGHT)
            elif spec["kind"] == "generated":
                cv2.imwrite(str(out), cv2.cvtColor(_generated.render_back(name, RENDER_HEIGHT), cv2.COLOR_RGBA2BGRA))
            elif spec["kind"] == "npm-png":
                img = cv2.imread(str(_npm_dir(spec["pkg"]) / spec["dir"] / "back.png"), cv2.IMREAD_UNCHANGED)
                s = RENDER_HEIGHT / img.shape[0]
                cv2.imwrite(str(out), cv2.resize(img, (round(img.shape[1] * s), RENDER_HEIGHT)))
        except (subprocess.SubprocessError, OSError, IndexError, AttributeError, ValueError, RuntimeError, cv2.error):
            return None
    img = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    if img is None:
        return None
    if img.shape[2] == 3:
        img = np.dstack([img, np.full(img.shape[:2], 255, np.uint8)])
    return cv2.cvtColor(_trim_to_card(img), cv2.COLOR_BGRA2RGBA)


def deck_geometry(name: str) -> dict:
    """Mean index boxes relative to the card: {"top_left": [x1,y1,x2,y2], "bottom_right": [...], "cards": n}."""
    d = render_deck(name)
    meta = json.loads((d / "index.json").read_text())
    tl, br = [], []
    for card, boxes in meta["boxes"].items():
        img = cv2.imread(str(d / f"{card}.png"), cv2.IMREAD_UNCHANGED)
        h, w = img.shape[:2]
        if len(boxes) >= 1:
            tl.append([boxes[0][0] / w, boxes[0][1] / h, boxes[0][2] / w, boxes[0][3] / h])
        if len(boxes) >= 2:
            br.append([boxes[1][0] / w, boxes[1][1] / h, boxes[1][2] / w, boxes[1][3] / h])
    return {"top_left": np.median(tl, axis=0).round(4).tolist() if tl else None,
            "bottom_right": np.median(br, axis=0).round(4).tolist() if br else None,
            "aspect": round(w / h, 4), "cards": len(tl)}


# ----------------------------------------------------------------------------- contact sheet

def contact_sheet(names: list[str], cards: list[str], out: str, height: int = 200) -> None:
    """Write a PNG with the given cards of each deck and their index boxes drawn (for checking by eye)."""
    rows = []
    for name in names:
        faces = load_deck_bgra(name)
        boxes = index_boxes(name)
        tiles = []
        for card in cards:
            img = faces[card].copy()
            a = img[:, :, 3:4].astype(np.float32) / 255
            rgb = (img[:, :, :3] * a + 128 * (1 - a)).astype(np.uint8)
            for i, b in enumerate(boxes[card]):
                cv2.rectangle(rgb, (b[0], b[1]), (b[2], b[3]), (0, 200, 0) if i < 2 else (255, 0, 255), 3)
            s = height / rgb.shape[0]
            tiles.append(cv2.resize(rgb, (round(rgb.shape[1] * s), height), interpolation=cv2.INTER_AREA))
        row = np.hstack(tiles)
        cv2.putText(row, name, (5, height - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 255), 2)
        rows.append(row)
    wmax = max(r.shape[1] for r in rows)
    rows = [np.pad(r, ((0, 0), (0, wmax - r.shape[1]), (0, 0)), constant_values=128) for r in rows]
    cv2.imwrite(out, np.vstack(rows))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="Render card decks into the cache and check their index boxes.")
    p.add_argument("--decks", nargs="*", help="deck names (default: all available)")
    p.add_argument("--force", action="store_true")
    p.add_argument("--sheet", help="write a contact sheet PNG here")
    p.add_argument("--cards", nargs="*", default=["AS", "10H", "7C", "QD", "KH", "JS", "2D"])
    a = p.parse_args(argv)
    from tqdm import tqdm

    names = a.decks or available_decks(fetch=True)
    ok = []
    for name in tqdm(names, desc="render decks"):
        try:
            render_deck(name, force=a.force)
        except (subprocess.SubprocessError, OSError, RuntimeError, ValueError) as exc:
            tqdm.write(f"{name}: cannot render ({exc})")
            continue
        ok.append(name)
        meta = json.loads((_deck_dir(name) / "index.json").read_text())
        missing = [c for c, b in meta["boxes"].items() if len(b) < 2]
        if missing:
            tqdm.write(f"{name}: no two indices found for {' '.join(missing)}")
    if a.sheet:
        contact_sheet(ok, a.cards, a.sheet)
    return 0


if __name__ == "__main__":
    sys.exit(main())
