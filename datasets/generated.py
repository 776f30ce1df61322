"""Deck designs drawn here as SVG: modern fonts, jumbo and four-corner indices, dark inks.

The shipped decks all print classic indices (a narrow serif or sans rank above a small
pip, bright red and black). Real tables also see decks unlike them: jumbo indices in a
heavy modern sans, condensed serif digits, indices in all four corners, maroon or
brick-red ink that looks almost black in warm light. The designs below are made from
assets that ``pip`` installs: the DejaVu and STIX fonts shipped inside matplotlib (a
dependency of ultralytics; licences: Bitstream Vera / public-domain DejaVu changes, SIL
OFL for STIX) and rendered with ``resvg-py`` (no ``rsvg-convert``, no network).

Public API: ``DESIGNS`` (name -> parameters), ``available() -> bool``,
``render_card(design, card, height) -> RGBA uint8``, ``index_boxes(design, card, height)``
(the printed corner indices, found on an indices-only render: exact, no guessing).
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

W, H = 250, 350          # SVG user units of a card (poker size, 5:7)

SUIT_GLYPH = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}

# name -> parameters. font: matplotlib font file; idx: rank font size (user units);
# pip: suit size in the index; red/black: inks; corners: 2 or 4 indices; squeeze: horizontal
# scale of the rank (condensed "10"); side: the suit beside the rank instead of below.
DESIGNS: dict[str, dict] = {
    "gen-jumbo-sans": {"font": "DejaVuSans-Bold.ttf", "family": "DejaVu Sans", "weight": "bold",
                       "suit_font": "DejaVu Sans", "idx": 64, "pip": 44, "red": "#c4122f", "black": "#141414",
                       "corners": 2, "squeeze": 0.78, "paper": "#fbfbf8", "x": 8, "y": 8,
                       "note": "jumbo indices (rank ~18 % of the card height) in a heavy modern sans, condensed 10"},
    "gen-serif-maroon": {"font": "DejaVuSerif-Bold.ttf", "family": "DejaVu Serif", "weight": "bold",
                         "suit_font": "STIXGeneral", "idx": 40, "pip": 32, "red": "#7a1424", "black": "#1d1f33",
                         "corners": 4, "squeeze": 0.7, "paper": "#f4efe2", "x": 9, "y": 9,
                         "note": "four-corner indices, condensed serif digits, maroon and navy ink on cream"},
    "gen-thin-sans": {"font": "DejaVuSans.ttf", "family": "DejaVu Sans", "weight": "normal",
                      "suit_font": "DejaVu Sans", "idx": 46, "pip": 34, "red": "#d0182c", "black": "#202020",
                      "corners": 2, "squeeze": 0.85, "paper": "#fdfdfd", "x": 9, "y": 10,
                      "note": "thin regular-weight sans digits (the look of many cheap plastic decks)"},
    "gen-mono-wide": {"font": "DejaVuSansMono-Bold.ttf", "family": "DejaVu Sans Mono", "weight": "bold",
                      "suit_font": "DejaVu Sans", "idx": 50, "pip": 40, "red": "#d2401e", "black": "#000000",
                      "corners": 2, "squeeze": 0.62, "paper": "#ffffff", "x": 7, "y": 7,
                      "note": "monospaced modern digits, orange-red ink, large pips"},
}


def _font_dir() -> Path | None:
    try:
        import matplotlib
    except ImportError:
        return None
    d = Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf"
    return d if d.is_dir() else None


def available() -> bool:
    try:
        import resvg_py  # noqa: F401
    except ImportError:
        return False
    return _font_dir() is not None


def _index_svg(d: dict, rank: str, suit: str, colour: str) -> str:
    """One upright index (rank above suit) with its top-left at (0, 0)."""
    sq = d["squeeze"] if len(rank) > 1 else 1.0
    fs, ps = d["idx"], d["pip"]
    rank_w = fs * 0.62 * len(rank) * sq
    cx = max(rank_w, ps * 0.8) / 2
    return (f'<g fill="{colour}">'
            f'<text x="0" y="0" transform="translate({cx:.1f},{fs * 0.78:.1f}) scale({sq},1)" text-anchor="middle" '
            f'font-family="{d["family"]}" font-weight="{d["weight"]}" font-size="{fs}">{rank}</text>'
            f'<text x="{cx:.1f}" y="{fs * 0.86 + ps * 0.85:.1f}" text-anchor="middle" font-family="{d["suit_font"]}" '
            f'font-size="{ps}">{SUIT_GLYPH[suit]}</text></g>')


_PIPS = {  # pip centres (fractions of the pip area) of the number cards
    1: [(0.5, 0.5)], 2: [(0.5, 0.0), (0.5, 1.0)], 3: [(0.5, 0.0), (0.5, 0.5), (0.5, 1.0)],
    4: [(0, 0), (1, 0), (0, 1), (1, 1)], 5: [(0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)],
    6: [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    7: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    8: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)],
    9: [(0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1), (1, 1)],
    10: [(0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3), (0.5, 5 / 6), (0, 1), (1, 1)],
}


def _body_svg(d: dict, rank: str, suit: str, colour: str) -> str:
    """Pips or a court panel in the middle of the card (kept clear of the index corners)."""
    x0, x1, y0, y1 = 78, 172, 70, 280
    glyph = SUIT_GLYPH[suit]
    if rank in ("J", "Q", "K"):
        accent = "#e0b030" if suit in "HD" else "#3a6ea5"
        return (f'<rect x="{x0 - 12}" y="{y0 - 18}" width="{x1 - x0 + 24}" height="{y1 - y0 + 36}" rx="10" '
                f'fill="none" stroke="{colour}" stroke-width="4"/>'
                f'<rect x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}" rx="6" fill="{accent}" opacity="0.55"/>'
                f'<circle cx="{(x0 + x1) / 2}" cy="{y0 + 60}" r="26" fill="{colour}" opacity="0.8"/>'
                f'<path d="M{x0 + 8},{y1 - 10} L{(x0 + x1) / 2},{y0 + 95} L{x1 - 8},{y1 - 10} Z" fill="{colour}" opacity="0.7"/>'
                f'<text x="{(x0 + x1) / 2}" y="{(y0 + y1) / 2 + 40}" text-anchor="middle" font-family="{d["suit_font"]}" '
                f'font-size="56" fill="#ffffff">{glyph}</text>')
    n = 1 if rank == "A" else int(rank)
    size = 120 if n == 1 else (44 if n <= 8 else 38)
    out = []
    for fx, fy in _PIPS[n]:
        x = x0 + 8 + fx * (x1 - x0 - 16)
        y = y0 + 14 + fy * (y1 - y0 - 40)
        if n == 1:
            x, y = (x0 + x1) / 2, (y0 + y1) / 2 + 30
        flip = f' transform="rotate(180 {x:.1f} {y - size * 0.33:.1f})"' if fy > 0.55 else ""
        out.append(f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="middle" font-family="{d["suit_font"]}" '
                   f'font-size="{size}" fill="{colour}"{flip}>{glyph}</text>')
    return "".join(out)


def card_svg(design: str, card: str, indices_only: bool = False) -> str:
    d = DESIGNS[design]
    rank, suit = card[:-1], card[-1]
    colour = d["red"] if suit in "HD" else d["black"]
    idx = _index_svg(d, rank, suit, colour)
    corners = [f'<g transform="translate({d["x"]},{d["y"]})">{idx}</g>',
               f'<g transform="rotate(180 {W / 2} {H / 2}) translate({d["x"]},{d["y"]})">{idx}</g>']
    if d["corners"] == 4:   # mirrored corners: the same upright index at the right edge, turned
        corners += [f'<g transform="translate({W},0) scale(-1,1) translate({d["x"]},{d["y"]}) scale(-1,1) '
                    f'translate(-{_index_width(d, rank)},0)">{idx}</g>',
                    f'<g transform="rotate(180 {W / 2} {H / 2}) translate({W},0) scale(-1,1) translate({d["x"]},{d["y"]}) '
                    f'scale(-1,1) translate(-{_index_width(d, rank)},0)">{idx}</g>']
    paper = "none" if indices_only else d["paper"]
    body = "" if indices_only else _body_svg(d, rank, suit, colour)
    border = "" if indices_only else '<rect x="1.5" y="1.5" width="247" height="347" rx="14" fill="none" stroke="#9a9a9a" stroke-width="1.5"/>'
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}">'
            f'<rect x="0" y="0" width="{W}" height="{H}" rx="14" fill="{paper}"/>{border}{body}{"".join(corners)}</svg>')


def _index_width(d: dict, rank: str) -> float:
    sq = d["squeeze"] if len(rank) > 1 else 1.0
    return max(d["idx"] * 0.62 * len(rank) * sq, d["pip"] * 0.8)


def _render(svg: str, height: int) -> np.ndarray:
    import resvg_py

    fd = _font_dir()
    png = resvg_py.svg_to_bytes(svg_string=svg, height=height, font_dirs=[str(fd)] if fd else None,
                                skip_system_fonts=True)
    img = cv2.imdecode(np.frombuffer(bytes(png), np.uint8), cv2.IMREAD_UNCHANGED)
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        raise RuntimeError("resvg-py returned no RGBA image")
    return cv2.cvtColor(img, cv2.COLOR_BGRA2RGBA)


def render_card(design: str, card: str, height: int) -> np.ndarray:
    """The face as RGBA uint8, ``height`` pixels high, transparent outside the rounded corners."""
    return _render(card_svg(design, card), height)


def render_back(design: str, height: int) -> np.ndarray:
    """A plain patterned back in the design's colours (face-down cards in scenes)."""
    d = DESIGNS[design]
    lines = "".join(f'<path d="M{x},0 L{x + H},{H}" stroke="{d["paper"]}" stroke-width="5" opacity="0.5"/>'
                    for x in range(-H, W + H, 22))
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}">'
           f'<clipPath id="c"><rect x="0" y="0" width="{W}" height="{H}" rx="14"/></clipPath>'
           f'<g clip-path="url(#c)"><rect x="0" y="0" width="{W}" height="{H}" fill="{d["red"]}"/>{lines}'
           f'<rect x="14" y="14" width="{W - 28}" height="{H - 28}" rx="8" fill="none" stroke="{d["paper"]}" stroke-width="4"/></g></svg>')
    return _render(svg, height)


def index_boxes(design: str, card: str, height: int) -> list[list[int]]:
    """Corner-index boxes in rendered pixels: top-left, bottom-right, then the other corners."""
    ink = _render(card_svg(design, card, indices_only=True), height)[:, :, 3] > 40
    h, w = ink.shape
    regions = [(0, 0), (1, 1), (1, 0), (0, 1)][:DESIGNS[design]["corners"]]
    out = []
    for rx, ry in regions:
        xs = slice(w // 2, w) if rx else slice(0, w // 2)
        ys = slice(h // 2, h) if ry else slice(0, h // 2)
        yy, xx = np.nonzero(ink[ys, xs])
        if len(xx) == 0:
            continue
        ox, oy = xs.start, ys.start
        out.append([int(ox + xx.min()), int(oy + yy.min()), int(ox + xx.max() + 1), int(oy + yy.max() + 1)])
    return out


if __name__ == "__main__":   # a quick look: python -m tableref.datasets.generated OUT.png
    import sys

    tiles = []
    for name in DESIGNS:
        row = []
        for c in ("AS", "10H", "7C", "QD", "KH", "3D"):
            img = render_card(name, c, 280)
            a = img[:, :, 3:4] / 255.0
            rgb = (img[:, :, :3] * a + 128 * (1 - a)).astype(np.uint8)[:, :, ::-1].copy()
            for b in index_boxes(name, c, 280):
                cv2.rectangle(rgb, (b[0], b[1]), (b[2], b[3]), (0, 200, 0), 2)
            row.append(rgb)
        tiles.append(np.hstack(row))
    cv2.imwrite(sys.argv[1] if len(sys.argv) > 1 else "generated.png", np.vstack(tiles))
