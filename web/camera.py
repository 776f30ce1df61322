"""The phone as the camera: the ``/camera`` page (host only) and the frame upload behind it.

The host opens ``/camera`` on a phone (over HTTPS: browsers give the camera only to secure
pages), the page takes the rear camera and sends JPEG frames to ``POST /api/camera/frame``.
The table session reads them through :class:`tableref.vision.sources.PushSource` (source
``phone``). Each upload is answered only once the session has taken the frame (or after
``TAKE_WAIT_S``), and the page sends its next frame only then: the phone sends at the rate the
server analyses and no queue grows anywhere. Bad uploads (not a JPEG, too large, too fast, from
someone who is not the host) get a clear error and change nothing; the session goes on.
"""
from __future__ import annotations

import collections
import threading
import time

import cv2
import numpy as np
from flask import Blueprint, current_app, jsonify, request

from tableref.referee.reasons import Reason
from tableref.vision.sources import push_source
from tableref.web.auth import error, host_required
from tableref.web.i18n import pick_language, say_camera, translator

camera = Blueprint("camera", __name__)

MAX_FRAME_BYTES = 3 * 1024 * 1024      # a 1280x720 JPEG is 100-300 KB; 1920x1080 about 500 KB
DRAIN_LIMIT = 16 * 1024 * 1024        # a refused upload up to this size is read to the end first
MAX_SIDE = 4096
MIN_SIDE = 160
MAX_PER_SECOND = 30                    # more uploads in one second: not a camera page pacing itself
TAKE_WAIT_S = 2.0
PHONE = "phone"


class Uploads:
    """One frame at a time, at most ``MAX_PER_SECOND`` a second; counts what was refused."""

    def __init__(self):
        self.busy = threading.Lock()
        self.recent: collections.deque = collections.deque()      # times of the last second's uploads
        self.refused = 0
        self.last_error: str | None = None


def _uploads() -> Uploads:
    ext = current_app.extensions
    if "tableref_camera" not in ext:
        ext["tableref_camera"] = Uploads()
    return ext["tableref_camera"]


def _refuse(up: Uploads, status: int, message: str, **extra):
    up.refused += 1
    up.last_error = message
    return error(status, message, **extra)


def _session():
    return current_app.extensions["tableref"].session


def _drain(size: int) -> None:
    """Read and drop a refused body (up to ``DRAIN_LIMIT``) so that the browser gets the answer:
    a server that answers before the upload is through resets the connection, and the page would
    see "failed to fetch" instead of the reason."""
    if size > DRAIN_LIMIT:
        return
    request.max_content_length = DRAIN_LIMIT
    try:
        while request.stream.read(65536):
            pass
    except Exception:  # noqa: BLE001 - the client went away: nothing to tell it
        pass


@camera.get("/camera")
def camera_page():
    from tableref.web.pages import render

    return render("camera.html", max_frame_bytes=MAX_FRAME_BYTES)


@camera.get("/api/camera/zones")
def zones():
    """The seat zones in picture fractions (0-1) for drawing over the phone's live picture."""
    from tableref.vision.zones import default_zones

    s = _session()
    z = getattr(s, "zones", None)
    if z is None:
        players = list(getattr(s, "players", []) or [])
        z = default_zones(len(players) or int(getattr(s, "n_seats", 4) or 4), (1280, 720), names=players or None)
    w, h = z.frame_size or (1280, 720)

    def norm(poly) -> list[list[float]]:
        pts = z.to_image(poly)
        return [[round(float(x) / w, 4), round(float(y) / h, 4)] for x, y in pts]

    return jsonify({"frame_size": [int(w), int(h)],
                    "seats": [{"seat": zz.seat, "name": zz.name, "polygon": norm(zz.polygon)} for zz in z.seats],
                    "centre": norm(z.centre.polygon)})


@camera.post("/api/camera/frame")
@host_required
def frame():
    """One JPEG frame from the camera page (body: the JPEG, ``Content-Type: image/jpeg``)."""
    up = _uploads()
    ctype = (request.mimetype or "").lower()
    if ctype not in ("image/jpeg", "image/jpg"):
        return _refuse(up, 415, Reason("frame_not_jpeg_type", "send the frame as a JPEG picture (Content-Type: "
                                       f"image/jpeg), not {request.mimetype or 'nothing'}",
                                       sent=request.mimetype or "nothing"))
    size = request.content_length
    if size is not None and size > MAX_FRAME_BYTES:
        _drain(size)
        return _refuse(up, 413, Reason("frame_too_large", f"the frame is too large ({size // 1024} KB; at most "
                                       f"{MAX_FRAME_BYTES // 1024} KB): send about 1280x720 at JPEG quality 0.8",
                                       kb=size // 1024, max_kb=MAX_FRAME_BYTES // 1024))
    if not up.busy.acquire(blocking=False):
        return _refuse(up, 429, Reason("frame_busy", "too fast: the previous frame is still being taken; send one "
                                       "frame at a time (is the camera page open twice?)"), retry_after_ms=200)
    try:
        now = time.monotonic()
        while up.recent and now - up.recent[0] >= 1.0:
            up.recent.popleft()
        if len(up.recent) >= MAX_PER_SECOND:
            wait = 1.0 - (now - up.recent[0])
            return _refuse(up, 429, Reason("frame_rate", f"too fast: at most {MAX_PER_SECOND} frames a second; send "
                                           "the next frame when the server has answered the last one",
                                           n=MAX_PER_SECOND), retry_after_ms=int(wait * 1000) + 1)
        request.max_content_length = MAX_FRAME_BYTES
        data = request.get_data(cache=False)
        if len(data) > MAX_FRAME_BYTES:
            return _refuse(up, 413, Reason("frame_too_large_at_most", "the frame is too large (at most "
                                           f"{MAX_FRAME_BYTES // 1024} KB)", max_kb=MAX_FRAME_BYTES // 1024))
        if not data.startswith(b"\xff\xd8\xff"):
            return _refuse(up, 400, Reason("frame_not_jpeg", "this is not a JPEG picture (it does not start like one)"))
        img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        if img is None or img.size == 0:
            return _refuse(up, 400, Reason("frame_damaged", "the JPEG picture is damaged and cannot be decoded"))
        h, w = img.shape[:2]
        if max(w, h) > MAX_SIDE or min(w, h) < MIN_SIDE:
            return _refuse(up, 400, Reason("frame_size", f"a {w}x{h} picture cannot be the table camera: send about "
                                           "1280x720", width=w, height=h))
        src = push_source(PHONE)
        if src is None:
            source = str(getattr(_session(), "source", "") or "?")
            if source == PHONE:
                return _refuse(up, 503, Reason("phone_starting", "the table is starting (the card reader is "
                                               "loading): the phone camera is taken in a moment"), retry_after_ms=1000)
            return _refuse(up, 409, Reason("not_phone_source", f"the table's camera is {source!r}, not the phone: "
                                           "choose 'phone' as the camera on the setup page (or start tableref serve "
                                           "--source phone)", source=repr(source)))
        up.recent.append(time.monotonic())
        seq = src.push(image=img)
        taken = seq is not None and src.wait_taken(seq, TAKE_WAIT_S)
        st = src.status
        up.last_error = None
        # what the table says of the picture (out of focus, blurred, too small...), in the phone's
        # language: the one holding the phone can fix it there
        cam = _session().camera
        picture = {"status": cam.get("status"), "say": say_camera(cam, translator(pick_language()))}
        return jsonify({"ok": True, "taken": bool(taken), "width": w, "height": h, "frames": st.frames,
                        "dropped": st.dropped, "refused": up.refused,
                        "analysed_fps": round(src.taken_fps, 2), "status": st.state, "picture": picture})
    finally:
        up.busy.release()
