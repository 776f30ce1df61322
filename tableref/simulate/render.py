"""Render a simulated hand as a video of a table seen from above.

The table is drawn on a flat *plane* (the default seat layout of
:mod:`vision.zones` for the frame size), then seen through a slightly tilted
camera (a perspective warp), with lighting, noise and hands/arms reaching over
the table whenever a player lays or moves cards. Card faces and backs come from
the training-data generator's decks (:mod:`datasets.decks`), the table surface
from :mod:`datasets.backgrounds` (a plain procedural felt if that module is
missing), so the recogniser sees the artwork it was trained on.

:func:`render_script` writes ``video.mp4`` (OpenCV ``mp4v``) and returns the
timing of each change (the first frame where the new cards lie still and no hand
covers the table), which the latency benchmark uses.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from tableref.vision.zones import default_zones, ray_to_rect

FRAME_SIZE = (1280, 720)
FPS = 6.0
# deck designs the simulator draws from (all rendered by datasets.decks)
SIM_DECKS = ["kennard-2color", "kennard-4color", "kennard-2color-bf", "svg-cards", "younestouati",
             "kde-standard", "kde-dondorf", "kde-nicu-white"]


@dataclass
class RenderOptions:
    size: tuple[int, int] = FRAME_SIZE
    fps: float = FPS
    card_h: float = 104.0                # card height in plane pixels (Desmoche); Marriage uses less
    overlap: float = 0.34                # visible part of a covered card, fraction of card width
    reach_frames: int = 3
    place_frames: int = 2
    leave_frames: int = 2
    hold_frames: int = 9
    first_hold_frames: int = 12
    last_hold_frames: int = 18
    tilt: float = 0.03                   # top edge of the table pulled in by this fraction of the width
    noise: float = 2.0
    deck: str | None = None              # None: chosen by the seed
    arms: bool = True


# ---------------------------------------------------------------------------------------------
# assets
# ---------------------------------------------------------------------------------------------
_DECK_CACHE: dict[str, tuple[dict, np.ndarray | None]] = {}


def load_artwork(name: str, say=None):
    """(faces {card: BGRA}, back BGRA or None) for a deck, cached. ``say``: told when the deck is rendered."""
    if name not in _DECK_CACHE:
        from tableref.datasets import decks

        if say is not None and name in decks.DECKS and not (decks._deck_dir(name) / "index.json").exists() \
                and (decks.DECKS[name]["kind"] != "kde" or decks._source_ok(name, fetch=False)):
            say(f"preparing the {name} card art (once, about 10 s)")

        faces = decks.load_deck(name)
        try:
            back = decks.load_back(name)
        except Exception:  # noqa: BLE001 - a deck without a back gets a drawn one
            back = None
        # datasets.decks gives RGBA; OpenCV draws BGR(A)
        faces = {k: cv2.cvtColor(v, cv2.COLOR_RGBA2BGRA) for k, v in faces.items()}
        if back is not None:
            back = cv2.cvtColor(back, cv2.COLOR_RGBA2BGRA)
        else:
            back = _drawn_back(next(iter(faces.values())).shape[:2])
        _DECK_CACHE[name] = (faces, back)
    return _DECK_CACHE[name]


def deck_hint(name: str) -> str:
    """How a deck of ``SIM_DECKS`` gets onto a machine, in a few words."""
    if name.startswith("kde-"):
        return "Debian: apt install kdegames-card-data-kf5"
    return "fetched with npm the first time: needs npm and the npm registry"


def _drawn_back(shape) -> np.ndarray:
    h, w = shape
    img = np.zeros((h, w, 4), np.uint8)
    img[..., 0], img[..., 1], img[..., 2] = 150, 40, 30
    img[..., 3] = 255
    for k in range(0, w + h, 24):
        cv2.line(img, (k, 0), (k - h, h), (200, 90, 70, 255), 6)
    cv2.rectangle(img, (10, 10), (w - 11, h - 11), (255, 255, 255, 255), 8)
    return img


def make_table_background(rng: random.Random, w: int, h: int) -> np.ndarray:
    """The table surface, BGR uint8: felt, wood, plastic or cloth from the training-data generator."""
    nrng = np.random.default_rng(rng.randrange(2 ** 31))
    try:
        from tableref.datasets import backgrounds as bgs

        # table-like surfaces only (no brick walls): the generator's procedural kinds
        kinds = [(getattr(bgs, "_felt", None), 0.4), (getattr(bgs, "_wood", None), 0.35),
                 (getattr(bgs, "_plastic", None), 0.15), (getattr(bgs, "_cloth", None), 0.1)]
        kinds = [(f, p) for f, p in kinds if f is not None]
        if kinds:
            fns, ps = zip(*kinds)
            fn = fns[nrng.choice(len(fns), p=np.array(ps) / sum(ps))]
            sw, sh = w // 2, h // 2
            img = np.clip(fn(nrng, sw, sh), 0, 255).astype(np.uint8)
            return cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)
        bg = np.asarray(bgs.make_background(nrng, w, h))
        return np.ascontiguousarray(bg[:h, :w, :3]).astype(np.uint8)
    except ImportError:
        pass
    colour = rng.choice([(40, 110, 30), (35, 90, 25), (90, 60, 40), (60, 50, 120), (110, 80, 50)])
    nrng = np.random.default_rng(rng.randrange(2 ** 31))
    base = np.empty((h, w, 3), np.float32)
    base[:] = colour
    noise = nrng.normal(0, 1, (h // 4 + 1, w // 4 + 1)).astype(np.float32)
    noise = cv2.resize(cv2.GaussianBlur(noise, (0, 0), 2), (w, h))
    base += noise[..., None] * 10
    return np.clip(base, 0, 255).astype(np.uint8)


# ---------------------------------------------------------------------------------------------
# geometry: where each seat's cards go on the plane
# ---------------------------------------------------------------------------------------------
@dataclass
class SeatGeometry:
    seat: int
    forward: np.ndarray       # unit, from the player towards the middle
    right: np.ndarray         # unit, the player's right hand
    edge: np.ndarray          # point on the frame edge where the player sits
    rows: list[tuple[np.ndarray, float, float]] = field(default_factory=list)   # (row centre, t_min, t_max)


def _card_corners(centre, up, right, w, h) -> np.ndarray:
    """Four corners (TL, TR, BR, BL as printed) of a card centred at ``centre``; ``up`` = card top."""
    c = np.asarray(centre, np.float64)
    u = np.asarray(up, np.float64) * (h / 2.0)
    r = np.asarray(right, np.float64) * (w / 2.0)
    return np.array([c + u - r, c + u + r, c - u + r, c - u - r], np.float64)


class TableLayout:
    """Places melds in seat rows on the plane and keeps them where they were laid."""

    def __init__(self, n_seats: int, size: tuple[int, int], card_h: float, overlap: float, max_rows: int = 3):
        self.size = size
        self.zones = default_zones(n_seats, size)
        self.card_h = card_h
        self.card_w = card_h * 0.714
        self.off = self.card_w * overlap
        self.gap = self.card_w * 0.35
        self.seats: list[SeatGeometry] = []
        W, H = size
        cx, cy = W / 2.0, H / 2.0
        for z in self.zones.seats:
            f = np.array(z.forward, np.float64)
            r = np.array(z.right, np.float64)
            a0 = math.pi / 2 + z.seat * 2 * math.pi / n_seats
            edge = np.array(ray_to_rect(cx, cy, a0, W, H))
            g = SeatGeometry(z.seat, f, r, edge)
            depth = self.card_h * 0.5 + 20
            for _ in range(max_rows):
                row = self._row(z, edge, f, r, depth)
                if row is None:
                    break
                g.rows.append(row)
                depth = float(np.dot(row[0] - edge, f)) + self.card_h * 1.08
            self.seats.append(g)
        # the centre: stock and face-up cards
        c = self.zones.centre.polygon.mean(axis=0)
        self.centre = np.array(c, np.float64)

    def _inside(self, zone, p, margin: float) -> bool:
        W, H = self.size
        x, y = p
        if not (margin <= x <= W - margin and margin <= y <= H - margin):
            return False
        z = self.zones.zone_at_table(float(x), float(y))
        if z is not zone:
            return False
        return cv2.pointPolygonTest(zone.polygon, (float(x), float(y)), True) >= margin

    def _row(self, zone, edge, f, r, depth):
        """A row of cards at ``depth`` from the seat's edge: (centre, t_min, t_max) or None."""
        # for corner seats move the row inward until its middle lies in the zone
        for extra in range(0, 400, 10):
            c = edge + f * (depth + extra)
            if self._inside(zone, c, self.card_w * 0.6) and self._card_fits(zone, c, f, r):
                break
        else:
            return None
        ts = np.arange(-900, 901, 4.0)
        ok = np.array([self._card_fits(zone, c + r * t, f, r) for t in ts])
        if not ok[len(ts) // 2]:
            return None
        i0 = i1 = len(ts) // 2
        while i0 > 0 and ok[i0 - 1]:
            i0 -= 1
        while i1 < len(ts) - 1 and ok[i1 + 1]:
            i1 += 1
        return (c, float(ts[i0]), float(ts[i1]))

    def _card_fits(self, zone, centre, f, r) -> bool:
        if not self._inside(zone, centre, self.card_w * 0.25):
            return False
        W, H = self.size
        corners = _card_corners(centre, f, r, self.card_w, self.card_h)
        mx, my = 44, 16      # room for the camera tilt and rotation
        return bool(np.all(corners[:, 0] > mx) and np.all(corners[:, 0] < W - mx)
                    and np.all(corners[:, 1] > my) and np.all(corners[:, 1] < H - my))


class StickyPlacer:
    """Keeps every card where it was laid (real players do not shove cards about).

    Each card keeps its place along its seat's rows; a card added to a meld goes
    next to the meld's end it extends; a card taken out of a meld leaves a gap.
    New melds go into the first free stretch of a row. Only when a growing meld
    would run into its neighbour are the later melds of that row nudged along.
    """

    def __init__(self, layout: TableLayout):
        self.layout = layout
        self.pos: dict[int, dict[tuple[str, int], tuple[int, float]]] = {}   # seat -> card key -> (row, t)
        self.melds: dict[int, list[list[tuple[str, int]]]] = {}

    @staticmethod
    def _keys(melds: list[list[str]]) -> list[list[tuple[str, int]]]:
        seen: dict[str, int] = {}
        out = []
        for m in melds:
            row = []
            for c in m:
                k = seen.get(c, 0)
                seen[c] = k + 1
                row.append((c, k))
            out.append(row)
        return out

    def place(self, table: list[list[list[str]]]):
        """Plane positions: per seat, per meld, per card (centre, up, right)."""
        L = self.layout
        result = []
        for s, melds in enumerate(table):
            g = L.seats[s]
            old = self.pos.get(s, {})
            keys = self._keys(melds)
            new: dict[tuple[str, int], tuple[int, float]] = {}
            todo = []
            # each old meld is continued by the new meld sharing most of its cards
            old_melds = self.melds.get(s, [])
            best_for_old: dict[int, tuple[int, int]] = {}
            for mi, mk in enumerate(keys):
                for oi, om in enumerate(old_melds):
                    k = len(set(mk) & set(om))
                    if k and (oi not in best_for_old or k > best_for_old[oi][0]):
                        best_for_old[oi] = (k, mi)
            continuing = {mi: oi for oi, (k, mi) in best_for_old.items()}
            for mi, mk in enumerate(keys):
                oi = continuing.get(mi)
                known = [i for i, k in enumerate(mk) if k in old and oi is not None and k in old_melds[oi]]
                if not known:
                    todo.append(mk)
                    continue
                rows = [old[mk[i]][0] for i in known]
                row = max(set(rows), key=rows.count)
                for i in known:
                    new[mk[i]] = (row, old[mk[i]][1])
                first, last = known[0], known[-1]
                for i in range(first - 1, -1, -1):
                    new[mk[i]] = (row, new[mk[i + 1]][1] - L.off)
                for i in range(last + 1, len(mk)):
                    new[mk[i]] = (row, new[mk[i - 1]][1] + L.off)
                for i in range(first, last):
                    if mk[i] not in new:
                        j = next(j for j in range(i + 1, last + 1) if mk[j] in new)
                        new[mk[i]] = (row, new[mk[i - 1]][1] + (new[mk[j]][1] - new[mk[i - 1]][1]) / (j - i + 1))
            # nudge melds that run into the next one in their row
            spans = []
            for mk in keys:
                if mk and mk[0] in new:
                    ts = [new[k][1] for k in mk]
                    spans.append([new[mk[0]][0], min(ts), max(ts), mk])
            for ri in range(len(g.rows)):
                row_spans = sorted([sp for sp in spans if sp[0] == ri], key=lambda sp: sp[1])
                for a, b in zip(row_spans, row_spans[1:]):
                    need = a[2] + L.card_w + L.gap - b[1]
                    if need > 0:
                        for k in b[3]:
                            new[k] = (ri, new[k][1] + need)
                        b[1] += need
                        b[2] += need
            # new melds: first free stretch
            for mk in todo:
                width = L.card_w + (len(mk) - 1) * L.off
                placed = False
                for ri, (_, t0, t1) in enumerate(g.rows):
                    occ = sorted((min(new[k][1] for k in sp[3]) - L.card_w / 2, max(new[k][1] for k in sp[3])
                                  + L.card_w / 2) for sp in spans if sp[0] == ri)
                    start = t0
                    for a, b in occ + [(t1 + 1e9, t1 + 1e9)]:
                        room_end = min(a - L.gap - 2 * L.off, t1)
                        if start + width <= room_end:
                            placed = True
                            break
                        start = max(start, b + L.gap + 2 * L.off)
                    if placed:
                        break
                if not placed:    # squeeze into the row with most room at its end
                    ri = max(range(len(g.rows)), key=lambda r: g.rows[r][2] - max(
                        [max(new[k][1] for k in sp[3]) for sp in spans if sp[0] == r] + [g.rows[r][1]]))
                    ends = [max(new[k][1] for k in sp[3]) + L.card_w / 2 for sp in spans if sp[0] == ri]
                    start = max(ends + [g.rows[ri][1]]) + L.gap
                for i, k in enumerate(mk):
                    new[k] = (ri, start + L.card_w / 2 + i * L.off)
                spans.append([ri, new[mk[0]][1], new[mk[-1]][1], mk])
            self.pos[s] = new
            self.melds[s] = [list(mk) for mk in keys]
            seat_out = []
            for mk in keys:
                cards = []
                for k in mk:
                    ri, t = new[k]
                    c, _, _ = g.rows[ri]
                    cards.append((c + g.right * t, g.forward, g.right))
                seat_out.append(cards)
            result.append(seat_out)
        return result


# ---------------------------------------------------------------------------------------------
# drawing
# ---------------------------------------------------------------------------------------------
def _blit_quad(canvas: np.ndarray, img: np.ndarray, quad: np.ndarray, shade: float = 1.0) -> None:
    """Warp BGRA ``img`` onto BGR ``canvas`` at ``quad`` (TL, TR, BR, BL) with alpha."""
    h, w = img.shape[:2]
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    H_, W_ = canvas.shape[:2]
    x0c, y0c, x1c, y1c = max(x0, 0), max(y0, 0), min(x1, W_), min(y1, H_)
    if x1c <= x0c or y1c <= y0c:
        return
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = (quad - np.array([x0c, y0c])).astype(np.float32)
    M = cv2.getPerspectiveTransform(src, dst)
    # pre-shrink big artwork (anti-aliasing) before warping down to a small card
    scale = np.linalg.norm(quad[1] - quad[0]) / w
    if scale < 0.5:
        f = max(scale * 1.5, 0.05)
        small = cv2.resize(img, (max(2, int(w * f)), max(2, int(h * f))), interpolation=cv2.INTER_AREA)
        src = np.array([[0, 0], [small.shape[1], 0], [small.shape[1], small.shape[0]], [0, small.shape[0]]],
                       np.float32)
        M = cv2.getPerspectiveTransform(src, dst)
        img = small
    patch = cv2.warpPerspective(img, M, (x1c - x0c, y1c - y0c), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    a = patch[..., 3:4].astype(np.float32) / 255.0
    roi = canvas[y0c:y1c, x0c:x1c].astype(np.float32)
    col = patch[..., :3].astype(np.float32) * shade
    canvas[y0c:y1c, x0c:x1c] = (roi * (1 - a) + col * a).astype(np.uint8)


def _shadow(canvas: np.ndarray, quad: np.ndarray, offset=(3, 4), strength=0.35) -> None:
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 12
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 12
    H_, W_ = canvas.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W_), min(y1, H_)
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    q = (quad + np.array(offset) - np.array([x0, y0])).astype(np.int32)
    cv2.fillConvexPoly(mask, q, 1.0, cv2.LINE_AA)
    mask = cv2.GaussianBlur(mask, (0, 0), 3)
    roi = canvas[y0:y1, x0:x1].astype(np.float32)
    canvas[y0:y1, x0:x1] = (roi * (1 - strength * mask[..., None])).astype(np.uint8)


class Renderer:
    def __init__(self, script, options: RenderOptions | None = None, say=None):
        self.script = script
        self.o = options or RenderOptions()
        self.rng = random.Random(f"render-{script.game}-{script.seed}")
        n = len(script.players)
        card_h = self.o.card_h
        if script.game == "marriage":
            card_h = {2: 92.0, 3: 84.0, 4: 78.0, 5: 70.0}.get(n, 78.0)
        self.layout = TableLayout(n, self.o.size, card_h, self.o.overlap,
                                  max_rows=4 if script.game == "marriage" else 3)
        self.placer = StickyPlacer(self.layout)
        deck = self.o.deck or self.rng.choice(SIM_DECKS)
        self.deck_chosen = deck
        try:
            self.faces, self.back = load_artwork(deck, say)
        except Exception as missing:  # noqa: BLE001 - fall back to the CC0 deck
            if say is not None:
                say(f"the {deck} card art is not on this machine ({deck_hint(deck)}): drawing the table with "
                    f"kennard-2color instead ({type(missing).__name__})")
            deck = "kennard-2color"
            try:
                self.faces, self.back = load_artwork(deck, say)
            except (OSError, RuntimeError, ValueError) as exc:
                raise RuntimeError(f"no card art to draw the table with ({exc}); the CC0 decks are fetched "
                                   "with npm the first time (Debian: apt install npm)") from None
        self.deck = deck
        W, H = self.o.size
        margin = 60
        self.margin = margin
        self.plane_bg = make_table_background(self.rng, W + 2 * margin, H + 2 * margin)
        # camera: a slight tilt (top edge further away) and a small rotation
        t = self.o.tilt
        rot = math.radians(self.rng.uniform(-1.2, 1.2))
        src = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32)
        dst = np.array([[W * t, H * t * 0.6], [W * (1 - t), H * t * 0.6], [W * (1 + t * 0.3), H * (1 + t * 0.2)],
                        [-W * t * 0.3, H * (1 + t * 0.2)]], np.float64)
        cx, cy = W / 2, H / 2
        R = np.array([[math.cos(rot), -math.sin(rot)], [math.sin(rot), math.cos(rot)]])
        dst = (dst - (cx, cy)) @ R.T + (cx, cy)
        # shrink a little so the tilted table still fills the frame
        dst = (dst - (cx, cy)) * 0.985 + (cx, cy)
        self.Hcam = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
        # lighting: a soft gradient fixed for the video
        gx = np.linspace(-1, 1, W)[None, :]
        gy = np.linspace(-1, 1, H)[:, None]
        a, b = self.rng.uniform(-0.12, 0.12), self.rng.uniform(-0.12, 0.12)
        self.light = (1.0 + a * gx + b * gy).astype(np.float32)[..., None]
        self.nrng = np.random.default_rng(self.rng.randrange(2 ** 31))
        self._fixed_noise = None
        self.skin = self.rng.choice([(140, 170, 220), (100, 135, 190), (70, 100, 150), (160, 185, 230)])
        self.sleeve = [self.rng.choice([(40, 40, 40), (120, 60, 30), (30, 30, 120), (200, 200, 200),
                                        (60, 110, 60), (150, 120, 90)]) for _ in script.players]

    # -- plane -> image -----------------------------------------------------------------------
    def to_image(self, pts) -> np.ndarray:
        pts = np.asarray(pts, np.float32).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.Hcam).reshape(-1, 2).astype(np.float64)

    def _base(self) -> np.ndarray:
        W, H = self.o.size
        m = self.margin
        T = np.array([[1, 0, -m], [0, 1, -m], [0, 0, 1]], np.float64)
        M = self.Hcam @ T
        return cv2.warpPerspective(self.plane_bg, M, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)

    def _draw_card(self, img, label: str | None, centre, up, right, w, h, face_up=True):
        plane_quad = _card_corners(centre, up, right, w, h)
        quad = self.to_image(plane_quad)
        _shadow(img, quad)
        art = self.faces.get(label) if (face_up and label) else self.back
        _blit_quad(img, art, quad)
        return quad

    def static_frame(self, kf) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """The table for one keyframe without hands, and each card's image quad."""
        img = self._base()
        L = self.layout
        quads: dict[str, np.ndarray] = {}
        # centre: stock (backs) and face-up cards
        up = np.array([0.0, -1.0])
        right = np.array([1.0, 0.0])
        cw, ch = L.card_w, L.card_h
        c0 = L.centre
        if kf.stock > 0:
            layers = min(6, 1 + kf.stock // 6)
            for k in range(layers):
                self._draw_card(img, None, c0 + np.array([-cw * 0.75 + k * 0.6, -k * 0.8]), up, right, cw, ch,
                                face_up=False)
        for k, lab in enumerate(kf.centre):
            pos = c0 + np.array([cw * 0.75 + k * (cw * 1.15), 0.0])
            quads[f"centre:{lab}:{k}"] = self._draw_card(img, lab, pos, up, right, cw, ch)
        placed = self.placer.place(kf.table)
        for s, melds in enumerate(placed):
            for m, cards in enumerate(melds):
                for k, (c, fu, ri) in enumerate(cards):
                    lab = kf.table[s][m][k]
                    quads[f"{s}:{lab}:{m}:{k}"] = self._draw_card(img, lab, c, fu, ri, cw, ch)
        self._last_positions = placed
        return img, quads

    def _arm(self, img, seat: int, target_plane: np.ndarray, frac: float) -> None:
        """An arm from the seat's edge reaching ``frac`` of the way to ``target_plane``."""
        g = self.layout.seats[seat]
        start = g.edge - g.forward * 140
        end = start + (target_plane - start) * frac
        pts = self.to_image([start, end])
        p0, p1 = pts[0], pts[1]
        d = p1 - p0
        n = np.linalg.norm(d) or 1.0
        u = d / n
        nrm = np.array([-u[1], u[0]])
        width = 62
        # forearm (sleeve) and hand
        wrist = p1 - u * 45
        poly = np.array([p0 + nrm * width * 0.6, wrist + nrm * width * 0.42, wrist - nrm * width * 0.42,
                         p0 - nrm * width * 0.6], np.int32)
        overlay = img.copy()
        cv2.fillConvexPoly(overlay, poly, self.sleeve[seat], cv2.LINE_AA)
        centre = tuple(int(v) for v in (p1 - u * 12))
        angle = math.degrees(math.atan2(u[1], u[0]))
        cv2.ellipse(overlay, centre, (48, 30), angle, 0, 360, self.skin, -1, cv2.LINE_AA)
        for k in (-2, -1, 0, 1):  # fingers
            fp = p1 + u * 22 + nrm * (k * 12 + 6)
            cv2.ellipse(overlay, tuple(int(v) for v in fp), (20, 6), angle, 0, 360, self.skin, -1, cv2.LINE_AA)
        # soft shadow under the arm
        sh = np.zeros(img.shape[:2], np.float32)
        cv2.fillConvexPoly(sh, poly + np.array([10, 14], np.int32), 1.0)
        sh = cv2.GaussianBlur(sh, (0, 0), 9)
        img[:] = (img.astype(np.float32) * (1 - 0.35 * sh[..., None])).astype(np.uint8)
        mask = np.any(overlay != img, axis=2)
        img[mask] = overlay[mask]

    def _finish(self, img: np.ndarray) -> np.ndarray:
        f = img.astype(np.float32) * self.light
        f *= self.nrng.uniform(0.985, 1.015)
        # sensor noise: a fixed pattern plus a little per frame (keeps the video small)
        if self._fixed_noise is None:
            self._fixed_noise = self.nrng.normal(0, self.o.noise, f.shape).astype(np.float32)
        f += self._fixed_noise
        f += self.nrng.normal(0, self.o.noise * 0.3, f.shape).astype(np.float32)
        return np.clip(f, 0, 255).astype(np.uint8)

    def _target(self, kf) -> np.ndarray | None:
        if kf.actor is None:
            return None
        placed = self._last_positions
        pts = []
        for m, cards in enumerate(placed[kf.actor]):
            for k, (c, _, _) in enumerate(cards):
                if kf.table[kf.actor][m][k] in kf.targets:
                    pts.append(c)
        if not pts:
            return None
        return np.mean(pts, axis=0)

    def frames(self):
        """Yield (frame BGR, keyframe index, is_still_after_change)."""
        o = self.o
        prev_img = None
        nk = len(self.script.keyframes)
        for i, kf in enumerate(self.script.keyframes):
            img, _ = self.static_frame(kf)
            target = self._target(kf) if o.arms else None
            if target is not None and prev_img is not None:
                for k in range(o.reach_frames):
                    fr = prev_img.copy()
                    self._arm(fr, kf.actor, target, (k + 1) / (o.reach_frames + 1))
                    yield self._finish(fr), i, False
                for k in range(o.place_frames):
                    fr = img.copy()
                    self._arm(fr, kf.actor, target, 1.0)
                    yield self._finish(fr), i, False
                for k in range(o.leave_frames):
                    fr = img.copy()
                    self._arm(fr, kf.actor, target, 1.0 - (k + 1) / (o.leave_frames + 1))
                    yield self._finish(fr), i, False
            hold = o.first_hold_frames if i == 0 else (o.last_hold_frames if i == nk - 1 else o.hold_frames)
            for k in range(hold):
                yield self._finish(img), i, k == 0
            prev_img = img


def render_script(script, out_dir, options: RenderOptions | None = None, progress: bool = True) -> dict:
    """Write ``out_dir/video.mp4``; return timing info per keyframe."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    say = None
    if progress:
        import sys

        say = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
    r = Renderer(script, options, say)
    W, H = r.o.size
    path = out_dir / "video.mp4"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), r.o.fps, (W, H))
    if not writer.isOpened():
        raise RuntimeError(f"cannot write video {path}")
    still_at: dict[int, float] = {}
    n = 0
    total = sum(1 for _ in range(len(script.keyframes)))
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=total, desc="filming the hand", unit="change")
    last_k = -1
    for frame, k, still in r.frames():
        if still:
            still_at[k] = n / r.o.fps
        if bar is not None and k != last_k:
            bar.update(1)
            last_k = k
        writer.write(frame)
        n += 1
    writer.release()
    if bar is not None:
        bar.close()
    return {"frames": n, "fps": r.o.fps, "duration": n / r.o.fps, "deck": r.deck, "deck_chosen": r.deck_chosen,
            "still_at": [still_at.get(k) for k in range(len(script.keyframes))]}
