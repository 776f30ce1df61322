"""Table geometry: where the seats are, which zone a point is in, which way each seat looks.

Coordinates
-----------
*Image* coordinates are pixels of the camera frame. *Table* coordinates are a
top-down plane: with an ArUco calibration they are the table rectangle
``(0, 0)``–``(width, height)`` (default 1000 × 1000 units; corner marker 0 at
``(0, 0)``, 1 at ``(width, 0)``, 2 at ``(width, height)``, 3 at ``(0, height)``);
without one, table coordinates are simply image pixels (identity homography).
All zone polygons and seat directions live in table coordinates.

Seats
-----
Seat 0 sits at the bottom edge of the table (as drawn in table coordinates,
i.e. the edge between markers 3 and 2), and seats continue clockwise as seen
from above: bottom → left → top → right for four seats. Each seat has a unit
``forward`` vector (from the player towards the table centre); the player's
right hand points along ``right = (-forward_y, forward_x)`` (y grows
downwards), which defines "left to right as seen from that seat".

Three ways to get a :class:`TableZones`:

* :func:`default_zones` — no calibration: seats split evenly around the frame,
  a centre zone in the middle;
* :func:`calibrate_aruco` — four ArUco markers (``DICT_4X4_50``, ids 0–3) at
  the table corners give a homography; :func:`render_marker_sheet` prints them;
* :meth:`TableZones.load` — zones drawn by hand and saved as JSON
  (:meth:`TableZones.save`), polygons in image or table coordinates.

Pure geometry: no rules, no I/O beyond reading/writing the JSON and images.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

CENTRE = "centre"
ARUCO_DICT = cv2.aruco.DICT_4X4_50
CORNER_IDS = (0, 1, 2, 3)          # top-left, top-right, bottom-right, bottom-left of the table
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")
DEFAULT_TABLE_SIZE = (1000.0, 1000.0)


class ZoneError(ValueError):
    """Bad zone data or a calibration that could not be made (message is for the user)."""


@dataclass
class Zone:
    """A region of the table: a seat's zone or the centre zone.

    ``polygon`` is in table coordinates. ``forward`` (seats only) is the unit
    vector from the player towards the table centre.
    """

    id: str                              # "seat0".."seat4" or "centre"
    polygon: np.ndarray                  # (K, 2) float32, table coordinates
    seat: int | None = None              # seat index, None for the centre
    name: str = ""                       # player/seat name for display
    forward: tuple[float, float] = (0.0, -1.0)

    @property
    def is_centre(self) -> bool:
        return self.seat is None

    @property
    def right(self) -> tuple[float, float]:
        """The player's right-hand direction in table coordinates."""
        fx, fy = self.forward
        return (-fy, fx)

    def contains(self, x: float, y: float) -> bool:
        return cv2.pointPolygonTest(self.polygon, (float(x), float(y)), False) >= 0

    def to_json(self) -> dict:
        d = {"id": self.id, "polygon": [[round(float(x), 2), round(float(y), 2)] for x, y in self.polygon]}
        if self.seat is not None:
            d.update(seat=self.seat, name=self.name, forward=[round(self.forward[0], 5), round(self.forward[1], 5)])
        return d


@dataclass
class TableZones:
    """Seat zones + a centre zone, and the image→table homography (None = identity).

    ``frame_size`` is the (width, height) of the frames the zones were made for;
    frames of another size are scaled to it before the homography is applied
    (so a layout made on 1920×1080 also works on a 1280×720 stream).
    """

    seats: list[Zone]
    centre: Zone
    homography: np.ndarray | None = None         # 3x3, image -> table
    frame_size: tuple[int, int] | None = None
    table_size: tuple[float, float] | None = None
    source: str = "default"                      # "default", "aruco", "manual"
    _inv: np.ndarray | None = field(default=None, repr=False)

    # ---- lookup -------------------------------------------------------------------------
    @property
    def n_seats(self) -> int:
        return len(self.seats)

    @property
    def zones(self) -> list[Zone]:
        return [self.centre, *self.seats]

    def _scale(self, width: int | None, height: int | None) -> tuple[float, float]:
        if not self.frame_size or not width or not height:
            return (1.0, 1.0)
        return (self.frame_size[0] / float(width), self.frame_size[1] / float(height))

    def to_table(self, points, frame_size: tuple[int, int] | None = None) -> np.ndarray:
        """Image points (N, 2) → table points (N, 2), float32."""
        pts = np.asarray(points, dtype=np.float32).reshape(-1, 2)
        if len(pts) == 0:
            return pts
        sx, sy = self._scale(*(frame_size or (None, None)))
        if sx != 1.0 or sy != 1.0:
            pts = pts * np.array([sx, sy], dtype=np.float32)
        if self.homography is None:
            return pts
        return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), self.homography).reshape(-1, 2)

    def to_image(self, points, frame_size: tuple[int, int] | None = None) -> np.ndarray:
        """Table points (N, 2) → image points (N, 2) (for drawing overlays)."""
        pts = np.asarray(points, dtype=np.float32).reshape(-1, 2)
        if len(pts) == 0:
            return pts
        if self.homography is not None:
            if self._inv is None:
                self._inv = np.linalg.inv(self.homography)
            pts = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), self._inv).reshape(-1, 2)
        sx, sy = self._scale(*(frame_size or (None, None)))
        if sx != 1.0 or sy != 1.0:
            pts = pts / np.array([sx, sy], dtype=np.float32)
        return pts

    def zone_at_table(self, x: float, y: float) -> Zone | None:
        """The zone holding a point in table coordinates (centre wins over seats), or None."""
        if self.centre.contains(x, y):
            return self.centre
        for z in self.seats:
            if z.contains(x, y):
                return z
        return None

    def zone_at(self, x: float, y: float, frame_size: tuple[int, int] | None = None) -> Zone | None:
        """The zone holding an image point, or None if it is off the table."""
        tx, ty = self.to_table([(x, y)], frame_size)[0]
        return self.zone_at_table(float(tx), float(ty))

    def seat(self, index: int) -> Zone:
        return self.seats[index]

    # ---- persistence --------------------------------------------------------------------
    def to_json(self) -> dict:
        return {
            "version": 1,
            "coords": "table",
            "source": self.source,
            "homography": self.homography.tolist() if self.homography is not None else None,
            "frame_size": list(self.frame_size) if self.frame_size else None,
            "table_size": list(self.table_size) if self.table_size else None,
            "seats": [z.to_json() for z in self.seats],
            "centre": self.centre.to_json()["polygon"],
        }

    def save(self, path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1))

    @classmethod
    def from_json(cls, data: dict) -> "TableZones":
        """Build from a dict as written by :meth:`to_json`, or drawn by hand.

        Hand-drawn files may say ``"coords": "image"``: then polygons are image
        pixels and are mapped through ``homography`` (if any). A seat without a
        ``forward`` gets one pointing from its polygon's centroid towards the
        centre zone's centroid.
        """
        try:
            coords = data.get("coords", "table")
            if coords not in ("table", "image"):
                raise ZoneError(f'"coords" must be "table" or "image", not {coords!r}')
            H = data.get("homography")
            H = np.array(H, dtype=np.float64).reshape(3, 3) if H is not None else None
            fs = data.get("frame_size")
            ts = data.get("table_size")
            tmp = cls(seats=[], centre=Zone(CENTRE, np.zeros((0, 2), np.float32)), homography=H,
                      frame_size=tuple(int(v) for v in fs) if fs else None,
                      table_size=tuple(float(v) for v in ts) if ts else None,
                      source=str(data.get("source", "manual")))

            def poly(p, what):
                arr = np.asarray(p, dtype=np.float32).reshape(-1, 2)
                if len(arr) < 3:
                    raise ZoneError(f"{what}: a polygon needs at least 3 points, got {len(arr)}")
                return tmp.to_table(arr) if coords == "image" else arr

            if "centre" not in data:
                raise ZoneError('missing "centre" polygon')
            centre_poly = data["centre"]["polygon"] if isinstance(data["centre"], dict) else data["centre"]
            centre = Zone(CENTRE, poly(centre_poly, "centre"))
            seats_data = data.get("seats") or []
            if not 2 <= len(seats_data) <= 5:
                raise ZoneError(f"need 2 to 5 seats, got {len(seats_data)}")
            cc = centre.polygon.mean(axis=0)
            seats = []
            for i, s in enumerate(seats_data):
                p = poly(s["polygon"], f"seat {i}")
                fwd = s.get("forward")
                if fwd is None:
                    d = cc - p.mean(axis=0)
                    fwd = d / (np.linalg.norm(d) or 1.0)
                fwd = _unit(fwd)
                seats.append(Zone(s.get("id", f"seat{i}"), p, seat=int(s.get("seat", i)),
                                  name=str(s.get("name", f"Seat {i + 1}")), forward=fwd))
            tmp.seats = seats
            tmp.centre = centre
            return tmp
        except ZoneError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise ZoneError(f"bad zone data: {exc}") from None

    @classmethod
    def load(cls, path) -> "TableZones":
        path = Path(path)
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            raise ZoneError(f"zone file not found: {path}") from None
        except (OSError, json.JSONDecodeError) as exc:
            raise ZoneError(f"cannot read zone file {path}: {exc}") from None
        if not isinstance(data, dict):
            raise ZoneError(f"zone file {path}: expected a JSON object")
        return cls.from_json(data)

    # ---- drawing ------------------------------------------------------------------------
    def draw(self, image: np.ndarray, color_seat=(255, 200, 0), color_centre=(0, 200, 255),
             centre_label: str = "centre") -> np.ndarray:
        """Draw the zones onto a copy of ``image`` (BGR) and return it (``centre_label`` "" : no word)."""
        out = image.copy()
        fs = (image.shape[1], image.shape[0])
        for z in self.zones:
            pts = self.to_image(_densify(z.polygon), fs).astype(np.int32)
            cv2.polylines(out, [pts], True, color_centre if z.is_centre else color_seat, 2, cv2.LINE_AA)
            c = pts.mean(axis=0).astype(int)
            label = centre_label if z.is_centre else (z.name or z.id)
            cv2.putText(out, label, (int(c[0]) - 30, int(c[1])), cv2.FONT_HERSHEY_SIMPLEX, 0.7,
                        (255, 255, 255), 2, cv2.LINE_AA)
        return out


# ---------------------------------------------------------------------------------------
# default layout
# ---------------------------------------------------------------------------------------
def _unit(v) -> tuple[float, float]:
    x, y = float(v[0]), float(v[1])
    n = math.hypot(x, y)
    if n == 0:
        raise ZoneError("a seat's forward direction must not be zero")
    return (x / n, y / n)


def _densify(poly: np.ndarray, per_edge: int = 8) -> np.ndarray:
    """Extra points along each edge so straight table edges stay right after a homography."""
    out = []
    n = len(poly)
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        for k in range(per_edge):
            out.append(a + (b - a) * (k / per_edge))
    return np.asarray(out, dtype=np.float32)


def ray_to_rect(cx, cy, angle, w, h) -> tuple[float, float]:
    """Where a ray from (cx, cy) at ``angle`` (radians, image axes) leaves the rectangle."""
    dx, dy = math.cos(angle), math.sin(angle)
    ts = []
    if dx > 1e-12:
        ts.append((w - cx) / dx)
    if dx < -1e-12:
        ts.append(-cx / dx)
    if dy > 1e-12:
        ts.append((h - cy) / dy)
    if dy < -1e-12:
        ts.append(-cy / dy)
    t = min(ts)
    return (cx + dx * t, cy + dy * t)


def seat_layout(n_seats: int, width: float, height: float, centre_fraction: float = 0.34,
                names: list[str] | None = None) -> tuple[list[Zone], Zone]:
    """Seats split evenly around a ``width`` × ``height`` rectangle (table coordinates).

    Seat ``i`` is centred on the direction ``90° + i·360°/n`` from the middle
    (seat 0 at the bottom, then clockwise as seen from above: bottom, left, top,
    right for four seats); each seat zone is the wedge of the rectangle between
    its neighbours' bisectors, minus the centre zone, a rectangle of
    ``centre_fraction`` of the table's width and height around the middle.
    """
    if not 2 <= n_seats <= 5:
        raise ZoneError(f"the table has 2 to 5 seats, not {n_seats}")
    if not 0.05 <= centre_fraction <= 0.8:
        raise ZoneError("centre_fraction must be between 0.05 and 0.8")
    w, h = float(width), float(height)
    cx, cy = w / 2.0, h / 2.0
    cw, ch = w * centre_fraction / 2.0, h * centre_fraction / 2.0
    centre = Zone(CENTRE, np.array([[cx - cw, cy - ch], [cx + cw, cy - ch], [cx + cw, cy + ch],
                                    [cx - cw, cy + ch]], dtype=np.float32))
    step = 2 * math.pi / n_seats
    seats = []
    # Angles in image axes (y down): pi/2 points down (bottom edge). Clockwise as seen from
    # above on a y-down image is *increasing* angle: bottom (90°) -> left (180°) -> top (270°).
    for i in range(n_seats):
        a0 = math.pi / 2 + i * step
        lo, hi = a0 - step / 2, a0 + step / 2
        angles = [lo + step * k / 24 for k in range(25)]
        for qx, qy in ((0, 0), (w, 0), (w, h), (0, h)):          # rectangle corners inside the wedge
            qa = math.atan2(qy - cy, qx - cx)
            qa += 2 * math.pi * math.ceil((lo - qa) / (2 * math.pi))
            if lo < qa < hi:
                angles.append(qa)
        pts = [(cx, cy)] + [ray_to_rect(cx, cy, a, w, h) for a in sorted(angles)]
        poly = np.asarray(pts, dtype=np.float32)
        # forward = from the seat's edge towards the middle (in "square" table units)
        edge = np.asarray(ray_to_rect(cx, cy, a0, w, h))
        fwd = _unit((cx - edge[0], cy - edge[1])) if np.hypot(*(edge - (cx, cy))) > 0 else (0.0, -1.0)
        # snap near-axis directions to the axis (players sit square to the table edge)
        fwd = _snap(fwd)
        name = names[i] if names and i < len(names) else f"Seat {i + 1}"
        seats.append(Zone(f"seat{i}", poly, seat=i, name=name, forward=fwd))
    return seats, centre


def _snap(v, tol_deg: float = 20.0) -> tuple[float, float]:
    ang = math.degrees(math.atan2(v[1], v[0]))
    for axis in (-180, -90, 0, 90, 180):
        if abs(ang - axis) <= tol_deg:
            r = math.radians(axis)
            return (round(math.cos(r), 12), round(math.sin(r), 12))
    return v


def default_zones(n_seats: int, frame_size: tuple[int, int], centre_fraction: float = 0.34,
                  names: list[str] | None = None) -> TableZones:
    """No calibration: seats split evenly around the whole frame (table coords = image pixels)."""
    w, h = frame_size
    seats, centre = seat_layout(n_seats, w, h, centre_fraction, names)
    return TableZones(seats=seats, centre=centre, homography=None, frame_size=(int(w), int(h)),
                      table_size=(float(w), float(h)), source="default")


# ---------------------------------------------------------------------------------------
# ArUco calibration
# ---------------------------------------------------------------------------------------
def _dictionary():
    return cv2.aruco.getPredefinedDictionary(ARUCO_DICT)


def detect_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """ArUco markers (``DICT_4X4_50``) in a BGR/gray image: ``{id: (4, 2) corners}``."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    det = cv2.aruco.ArucoDetector(_dictionary(), params)
    corners, ids, _rej = det.detectMarkers(gray)
    out: dict[int, np.ndarray] = {}
    if ids is None:
        return out
    for c, i in zip(corners, ids.reshape(-1)):
        out[int(i)] = np.asarray(c, dtype=np.float32).reshape(4, 2)
    return out


def homography_from_markers(markers: dict[int, np.ndarray],
                            table_size: tuple[float, float] = DEFAULT_TABLE_SIZE) -> np.ndarray:
    """Image→table homography from the centres of markers 0–3 (table corners)."""
    missing = [f"{i} ({CORNER_NAMES[i]})" for i in CORNER_IDS if i not in markers]
    if missing:
        raise ZoneError("calibration needs all four corner markers; not found: " + ", ".join(missing)
                        + ". Check that every marker is in view, flat and not covered.")
    src = np.array([markers[i].mean(axis=0) for i in CORNER_IDS], dtype=np.float32)
    w, h = table_size
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
    # a convex, non-degenerate quadrilateral is required
    if abs(cv2.contourArea(src)) < 100 or not cv2.isContourConvex(src.reshape(-1, 1, 2)):
        raise ZoneError("the four corner markers do not form a proper table rectangle "
                        "(are they in the right corners: 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left?)")
    return cv2.getPerspectiveTransform(src, dst)


def calibrate_aruco(image: np.ndarray, n_seats: int, table_size: tuple[float, float] = DEFAULT_TABLE_SIZE,
                    centre_fraction: float = 0.34, names: list[str] | None = None) -> TableZones:
    """Find markers 0–3 in ``image`` and build zones on the top-down table rectangle."""
    if image is None or image.size == 0:
        raise ZoneError("calibration image is empty")
    markers = detect_markers(image)
    H = homography_from_markers(markers, table_size)
    seats, centre = seat_layout(n_seats, table_size[0], table_size[1], centre_fraction, names)
    return TableZones(seats=seats, centre=centre, homography=H,
                      frame_size=(int(image.shape[1]), int(image.shape[0])),
                      table_size=(float(table_size[0]), float(table_size[1])), source="aruco")


class MarkerCalibrator:
    """Calibrate from a live source: markers found over several frames are combined.

    Hands often cover one marker or another; feed frames with :meth:`add` until
    it returns the zones (each marker's position is the median of its
    ``min_views`` latest sightings, so one bad detection does not skew it)::

        cal = MarkerCalibrator(n_seats=4)
        for frame in source.frames():
            zones = cal.add(frame.image)
            if zones:
                zones.save("zones.json"); break
        print(cal.message)        # which markers are still missing
    """

    def __init__(self, n_seats: int, table_size: tuple[float, float] = DEFAULT_TABLE_SIZE,
                 min_views: int = 3, centre_fraction: float = 0.34, names: list[str] | None = None):
        if not 2 <= n_seats <= 5:
            raise ZoneError(f"the table has 2 to 5 seats, not {n_seats}")
        self.n_seats = n_seats
        self.table_size = table_size
        self.min_views = min_views
        self.centre_fraction = centre_fraction
        self.names = names
        self.seen: dict[int, list[np.ndarray]] = {i: [] for i in CORNER_IDS}
        self.frame_size: tuple[int, int] | None = None
        self.message = "looking for the four corner markers"

    def add(self, image: np.ndarray) -> TableZones | None:
        if image is None or image.size == 0:
            return None
        size = (int(image.shape[1]), int(image.shape[0]))
        if self.frame_size != size:          # new resolution: start over
            self.frame_size = size
            self.seen = {i: [] for i in CORNER_IDS}
        for mid, corners in detect_markers(image).items():
            if mid in self.seen:
                self.seen[mid] = (self.seen[mid] + [corners])[-self.min_views:]
        missing = [f"{i} ({CORNER_NAMES[i]})" for i in CORNER_IDS if len(self.seen[i]) < self.min_views]
        if missing:
            self.message = "still looking for marker " + ", ".join(missing)
            return None
        return self._zones()

    def finish(self) -> TableZones | None:
        """When no more frames come: zones from whatever was seen (each marker at least once)."""
        if self.frame_size is None or any(not self.seen[i] for i in CORNER_IDS):
            return None
        return self._zones()

    def _zones(self) -> TableZones:
        size = self.frame_size
        markers = {i: np.median(np.stack(v), axis=0) for i, v in self.seen.items()}
        H = homography_from_markers(markers, self.table_size)
        seats, centre = seat_layout(self.n_seats, self.table_size[0], self.table_size[1],
                                    self.centre_fraction, self.names)
        self.message = "calibrated"
        return TableZones(seats=seats, centre=centre, homography=H, frame_size=size,
                          table_size=(float(self.table_size[0]), float(self.table_size[1])), source="aruco")


def render_marker_sheet(out_path=None, page: str = "A4", dpi: int = 150, marker_mm: float = 60.0) -> np.ndarray:
    """A printable page with the four corner markers (ids 0–3) and how to place them.

    Returns the BGR image; writes it to ``out_path`` if given (``.png``/``.jpg``;
    ``.pdf`` needs Pillow). Each marker is ``marker_mm`` wide when printed at
    100 % scale; cut them out and put the marker's centre on the table corner.
    """
    sizes = {"A4": (210.0, 297.0), "LETTER": (215.9, 279.4)}
    if page.upper() not in sizes:
        raise ZoneError(f"unknown page size {page!r}; use A4 or Letter")
    pw_mm, ph_mm = sizes[page.upper()]
    px = dpi / 25.4
    W, H = int(round(pw_mm * px)), int(round(ph_mm * px))
    sheet = np.full((H, W), 255, np.uint8)
    m = int(round(marker_mm * px))
    quiet = int(round(8 * px))             # white border the detector needs around each marker
    cell_w, cell_h = W // 2, (H - int(40 * px)) // 2
    top = int(30 * px)
    font = cv2.FONT_HERSHEY_SIMPLEX
    cv2.putText(sheet, "tableref corner markers - print at 100%, cut out, place face up",
                (int(10 * px), int(12 * px)), font, 0.5 * dpi / 150 * 1.4, 0, max(1, dpi // 100), cv2.LINE_AA)
    cv2.putText(sheet, "put the centre of each marker on its corner of the play area; seat 1 sits between 3 and 2",
                (int(10 * px), int(20 * px)), font, 0.5 * dpi / 150 * 1.4, 0, max(1, dpi // 100), cv2.LINE_AA)
    for k, mid in enumerate(CORNER_IDS):
        r, c = divmod(k, 2)
        if k == 2:          # bottom-right is on the right of the second row
            c = 1
        if k == 3:
            c = 0
        x0 = c * cell_w + (cell_w - m) // 2
        y0 = top + r * cell_h + (cell_h - m) // 2
        marker = cv2.aruco.generateImageMarker(_dictionary(), mid, m)
        sheet[y0:y0 + m, x0:x0 + m] = marker
        # cut line
        cv2.rectangle(sheet, (x0 - quiet, y0 - quiet), (x0 + m + quiet, y0 + m + quiet), 160, 1)
        cv2.putText(sheet, f"{mid}: {CORNER_NAMES[mid]} corner", (x0 - quiet, y0 + m + quiet + int(7 * px)),
                    font, 0.6 * dpi / 150 * 1.4, 0, max(1, dpi // 100), cv2.LINE_AA)
    img = cv2.cvtColor(sheet, cv2.COLOR_GRAY2BGR)
    if out_path is not None:
        out_path = Path(out_path)
        suffix = out_path.suffix.lower()
        if suffix == ".pdf":
            try:
                from PIL import Image
            except ImportError:
                raise ZoneError("writing PDF needs Pillow; write a .png instead") from None
            Image.fromarray(sheet).save(out_path, "PDF", resolution=float(dpi))
        elif suffix in (".png", ".jpg", ".jpeg", ".bmp"):
            if not cv2.imwrite(str(out_path), img):
                raise ZoneError(f"cannot write {out_path}")
        else:
            raise ZoneError(f"unsupported marker sheet format {suffix or '(none)'}; use .png or .pdf")
    return img
