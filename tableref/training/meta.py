"""``models/recognition.json``: what the vision code needs to use the two exported models.

Fields (the contract with ``vision``)::

    {"detector":   {"file", "imgsz", "names": ["index"]},
     "classifier": {"file", "imgsz": 64, "margin": 0.15, "names": [53 names in output order]},
     "index_geometry": {"top_left": [x1, y1, x2, y2], "bottom_right": [...], "aspect": w/h,
                        "decks": {name: {...}}},   # index boxes relative to card width/height
     "version": N}

Written by the training commands after each export; no torch needed here.
"""
from __future__ import annotations

import json
import time

from tableref.models import MODELS_DIR

# The repository root (an editable install: models/ lies at its top; runs/ goes beside it).
ROOT = MODELS_DIR.parent
META = MODELS_DIR / "recognition.json"


def index_geometry(deck_names: list[str] | None = None) -> dict:
    """Index position on the card, median per deck and mean over decks (relative to width/height)."""
    import numpy as np
    from tableref.datasets import decks

    names = deck_names or decks.available_decks()
    per = {}
    for n in names:
        try:
            per[n] = decks.deck_geometry(n)
        except (FileNotFoundError, RuntimeError, OSError) as exc:  # source missing here
            print(f"warning: deck {n}: {exc}")
    tl = [g["top_left"] for g in per.values() if g["top_left"]]
    br = [g["bottom_right"] for g in per.values() if g["bottom_right"]]
    asp = [g["aspect"] for g in per.values()]
    return {
        "top_left": np.mean(tl, axis=0).round(4).tolist() if tl else None,
        "bottom_right": np.mean(br, axis=0).round(4).tolist() if br else None,
        "aspect": round(float(np.mean(asp)), 4) if asp else None,
        "note": "boxes are [x1, y1, x2, y2] as fractions of card width/height, card upright; "
                "bottom_right is the index printed upside down in the opposite corner",
        "decks": per,
    }


def load_meta() -> dict:
    """models/recognition.json as a dict ({} when missing or unreadable)."""
    try:
        meta = json.loads(META.read_text()) if META.exists() else {}
    except (OSError, json.JSONDecodeError):
        meta = {}
    return meta if isinstance(meta, dict) else {}


def update_meta(refresh_geometry: bool = False, **fields) -> dict:
    """Merge ``fields`` into models/recognition.json (creating it), bump the version.

    ``index_geometry`` is computed from the decks installed here only when the file has none
    or ``refresh_geometry`` is set.
    """
    meta = load_meta()
    meta.update(fields)
    if "index_geometry" not in fields and (refresh_geometry or not meta.get("index_geometry")):
        # the geometry is what assembly was tuned with: an export keeps it unless asked (a machine
        # with other decks installed would silently change it)
        meta["index_geometry"] = index_geometry()
    meta["version"] = int(meta.get("version", 0)) + 1
    meta["updated"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    META.parent.mkdir(exist_ok=True)
    META.write_text(json.dumps(meta, indent=1) + "\n")
    return meta
