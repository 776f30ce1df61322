"""Where a card prints its corner indices (:class:`IndexGeometry`, per deck layout) and one
index read off a frame (:class:`IndexReading`): the vocabulary of the card assembly."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np


@dataclass(frozen=True)
class IndexGeometry:
    """Where the index sits on the card, in fractions of the card (portrait, upright).

    ``cx``, ``cy``: centre of the top-left index as fractions of card width and
    height; ``w``, ``h``: index size as fractions of card width and height;
    ``aspect``: card height / width. ``corners``: the corners that carry an index.
    ``distance_tolerance``: accepted ratio between measured and expected distance
    of two corner indices (decks differ in index size, the table may be tilted).
    """

    aspect: float = 1.4
    cx: float = 0.09
    cy: float = 0.13
    w: float = 0.09
    h: float = 0.19
    corners: tuple[str, ...] = ("TL", "BR")
    distance_tolerance: float = 1.35
    size_tolerance: float = 1.7
    # other deck layouts a pair may follow (decks differ: jumbo indices, narrow cards)
    variants: tuple["IndexGeometry", ...] = ()

    def layouts(self) -> list["IndexGeometry"]:
        """This layout and its variants."""
        return [self, *self.variants]

    @classmethod
    def from_spec(cls, spec) -> "IndexGeometry":
        """Read ``recognition.json``'s ``index_geometry``; unknown keys are ignored.

        Accepts either card-fraction keys (``cx, cy, w, h, aspect``) or an index box
        ``box`` / ``top_left: [x1, y1, x2, y2]`` in card fractions (``aspect`` may be
        given as width/height, as ``datasets.decks.deck_geometry`` does), or millimetre sizes
        (``card_mm: [w, h]``, ``index_mm: [x1, y1, x2, y2]``). Per-deck layouts under
        ``decks`` (a dict of such objects) become variants, and so does the built-in
        standard (poker/bridge-size, Bicycle-like) layout.
        """
        base = cls._parse_one(spec) if isinstance(spec, dict) else None
        variants: list[IndexGeometry] = []
        if isinstance(spec, dict):
            extra = spec.get("decks")
            items = extra.values() if isinstance(extra, dict) else (extra if isinstance(extra, list) else [])
            for d in items:
                g = cls._parse_one(d) if isinstance(d, dict) else None
                if g is not None:
                    variants.append(g)
        standard = cls()
        if base is None:
            base = standard
        else:
            variants.append(standard)
        unique: list[IndexGeometry] = []
        for g in variants:
            if all(not g.similar(u) for u in [base, *unique]):
                unique.append(g)
        return replace(base, variants=tuple(unique))

    def similar(self, other: "IndexGeometry", tol: float = 0.01) -> bool:
        return all(abs(a - b) <= tol for a, b in zip((self.aspect, self.cx, self.cy, self.w, self.h),
                                                        (other.aspect, other.cx, other.cy, other.w, other.h)))

    @classmethod
    def _parse_one(cls, spec: dict) -> "IndexGeometry | None":
        kw = {}
        try:
            if "card_mm" in spec and "index_mm" in spec:
                cw, ch = (float(v) for v in spec["card_mm"])
                x1, y1, x2, y2 = (float(v) for v in spec["index_mm"])
                kw.update(aspect=ch / cw, cx=(x1 + x2) / 2 / cw, cy=(y1 + y2) / 2 / ch,
                          w=(x2 - x1) / cw, h=(y2 - y1) / ch)
            box = spec.get("box") or spec.get("index_box") or spec.get("top_left")
            if box is not None and len(box) == 4:
                x1, y1, x2, y2 = (float(v) for v in box)
                kw.update(cx=(x1 + x2) / 2, cy=(y1 + y2) / 2, w=x2 - x1, h=y2 - y1)
            for key, names in {"aspect": ("aspect", "card_aspect"), "cx": ("cx", "index_cx"),
                               "cy": ("cy", "index_cy"), "w": ("w", "index_w"), "h": ("h", "index_h"),
                               "distance_tolerance": ("distance_tolerance",),
                               "size_tolerance": ("size_tolerance",)}.items():
                for n in names:
                    if isinstance(spec.get(n), (int, float)) and not isinstance(spec.get(n), bool):
                        kw[key] = float(spec[n])
            if kw.get("aspect", 1.0) < 1.0:   # given as width / height
                kw["aspect"] = 1.0 / kw["aspect"]
            if isinstance(spec.get("corners"), (list, tuple)) and spec["corners"]:
                kw["corners"] = tuple(str(c).upper() for c in spec["corners"])
        except (TypeError, ValueError):
            return None
        if not kw:
            return None
        geo = cls(**kw)
        if not (0 < geo.cx < 0.5 and 0 < geo.cy < 0.5 and 0 < geo.h < 1 and 0 < geo.w < 1 and geo.aspect > 0):
            return None
        return geo

    # derived quantities (card units: width = 1, height = aspect)
    @property
    def diag_vec(self) -> tuple[float, float]:
        """Top-left index centre -> bottom-right index centre, in card widths."""
        return (1.0 - 2.0 * self.cx, self.aspect * (1.0 - 2.0 * self.cy))

    @property
    def index_size(self) -> tuple[float, float]:
        """Index width, height in card widths."""
        return (self.w, self.h * self.aspect)

    def corner_offsets(self) -> dict[str, tuple[float, float]]:
        """Index centre of each printed corner relative to the card centre, card widths."""
        dx, dy = 0.5 - self.cx, self.aspect * (0.5 - self.cy)
        return {"TL": (-dx, -dy), "TR": (dx, -dy), "BR": (dx, dy), "BL": (-dx, dy)}


@dataclass
class IndexReading:
    """One detected corner index: box (source pixels), detector score, classifier probabilities.

    ``centre`` (of the box) and ``size`` (its longer side: close to the index height at any
    rotation) are computed when it is made: the assembly asks for them many times, and ``box``
    is not changed after reading."""

    box: tuple[float, float, float, float]
    score: float
    probs: np.ndarray
    centre: tuple[float, float] = field(init=False, repr=False, compare=False)
    size: float = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        x1, y1, x2, y2 = self.box
        self.centre = ((x1 + x2) / 2.0, (y1 + y2) / 2.0)
        self.size = max(x2 - x1, y2 - y1, 1e-6)

