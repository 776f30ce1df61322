"""``tableref calibrate``: make the table's seat zones (ArUco markers or a default layout to edit).

``tableref calibrate SOURCE --seats N --out zones.json``
    Reads frames from SOURCE (camera number, video, folder, http:// or rtsp://
    URL) until the four corner markers printed by ``tableref markers`` have been
    seen (a hand over one marker is fine: sightings are combined over frames),
    then writes the zones: a top-down homography of the table and the seat and
    centre zones on it. Use the file with ``tableref watch --zones zones.json``.

``tableref calibrate SOURCE --seats N --out zones.json --default``
    Writes the default layout (seats split evenly around the picture) for the
    source's frame size, to be edited by hand (see docs/table-geometry.md).

``--annotate OUT.jpg`` also writes a frame with the zones drawn, to check them.
"""
from __future__ import annotations

import sys
import time

from tableref.cli.options import seconds


def register(sub) -> None:
    p = sub.add_parser("calibrate", help="make the seat zones from the corner markers (or a default layout)",
                       description="Find the four ArUco corner markers in SOURCE and write the table's zones.")
    p.add_argument("source", help="camera number (0), video file, image folder, http:// or rtsp:// URL")
    p.add_argument("--seats", type=int, required=True, help="number of players (2-5)")
    p.add_argument("--out", required=True, help="zones file to write (JSON)")
    p.add_argument("--players", default=None, help="player names in seat order, comma separated")
    p.add_argument("--table-size", type=float, nargs=2, metavar=("WIDTH", "HEIGHT"), default=(1000.0, 1000.0),
                   help="distance between the marker centres, left-right and top-bottom, in any unit "
                        "(default 1000 1000; only the proportion matters)")
    p.add_argument("--default", action="store_true",
                   help="no markers: write the default layout for the source's frame size, to edit by hand")
    p.add_argument("--annotate", default=None, metavar="OUT.jpg", help="also write a frame with the zones drawn")
    p.add_argument("--timeout", type=seconds, default=30.0, help="give up after this many seconds (default 30)")
    p.set_defaults(func=cmd_calibrate)


def _err(msg: str) -> int:
    print(f"error: {msg}", file=sys.stderr)
    return 2


def cmd_calibrate(args) -> int:
    import cv2

    from tableref.vision.sources import SourceError, open_source

    from tableref.demo import clip as demo_clip
    from tableref.vision.zones import MarkerCalibrator, ZoneError, default_zones

    if not 2 <= args.seats <= 5:
        return _err("--seats must be between 2 and 5")
    names = [n.strip() for n in args.players.split(",")] if args.players else None
    if names is not None and len(names) != args.seats:
        return _err(f"--players names {len(names)} players but --seats is {args.seats}")
    try:
        cal = MarkerCalibrator(args.seats, table_size=tuple(args.table_size), names=names)
        src = open_source(args.source, realtime=False, demo_clip=demo_clip())
    except (SourceError, ZoneError) as exc:
        return _err(str(exc))
    zones, image = None, None
    deadline = time.monotonic() + args.timeout
    last_msg = ""
    try:
        while time.monotonic() < deadline and not src.ended:
            frame = src.read(timeout=1.0)
            if frame is None:
                st = src.status
                if str(st) != last_msg:
                    print(f"camera: {st}", file=sys.stderr)
                    last_msg = str(st)
                continue
            image = frame.image
            if image is None:
                continue
            if args.default:
                zones = default_zones(args.seats, (image.shape[1], image.shape[0]), names=names)
                break
            try:
                zones = cal.add(image)
            except ZoneError as exc:         # markers seen but in an impossible arrangement
                print(f"calibration: {exc}", file=sys.stderr)
                zones = None
            if zones is not None:
                break
    finally:
        src.stop()
    if zones is None and not args.default:
        try:
            zones = cal.finish()             # a short clip or a few photos: use every sighting
        except ZoneError as exc:
            return _err(f"calibration failed: {exc}")
    if zones is None:
        if image is None:
            return _err(f"no frame could be read from {args.source}: {src.status}")
        return _err(f"calibration failed: {cal.message}. Put the four markers from 'tableref markers' at the "
                    "corners of the play area, flat and in view, or use --default.")
    try:
        zones.save(args.out)
    except OSError as exc:
        return _err(f"cannot write {args.out}: {exc}")
    if args.annotate:
        if not cv2.imwrite(args.annotate, zones.draw(image)):
            return _err(f"cannot write {args.annotate}")
    how = "default layout" if args.default else "corner markers"
    print(f"wrote {args.out}: {args.seats} seats from the {how} "
          f"({image.shape[1]}x{image.shape[0]} frames)" + (f", preview {args.annotate}" if args.annotate else ""))
    return 0
