"""Long-lived responses: Server-Sent Events (``/api/events``) and the MJPEG video (``/video.mjpg``).

Each stream holds one server thread for as long as the phone watches, so the
number of simultaneous streams is capped (``max_streams``; the rest get 503)
to keep threads free for the API.
"""
from __future__ import annotations

import json
import queue
import time
from functools import lru_cache

from flask import Blueprint, Response, current_app

from tableref.referee.reasons import Reason
from tableref.web.auth import error

streams = Blueprint("streams", __name__)
KEEPALIVE_S = 15.0
BOUNDARY = "tablerefframe"


def ctx():
    return current_app.extensions["tableref"]


def _acquire():
    return ctx().streams.acquire(blocking=False)


def _busy():
    return error(503, Reason("too_many_streams", f"too many live streams open ({ctx().max_streams}); close a tab or "
                                                 "try again later", n=ctx().max_streams))


@streams.get("/api/events")
def events():
    c = ctx()
    if not _acquire():
        return _busy()
    hub = c.hub
    q = hub.connect()
    keepalive = current_app.config.get("TABLEREF_KEEPALIVE_S", KEEPALIVE_S)

    def gen():
        try:
            yield "retry: 2000\n\n"
            yield "data: " + json.dumps({"type": "hello", "session_id": c.session_id}) + "\n\n"
            while not hub.closed:
                try:
                    event = q.get(timeout=keepalive)
                except queue.Empty:
                    yield ": keep-alive\n\n"
                    continue
                if event is None:  # the hub is closing
                    break
                yield f"id: {event.get('id', '')}\ndata: {json.dumps(event, ensure_ascii=False, default=str)}\n\n"
        finally:
            hub.disconnect(q)
            c.streams.release()

    return Response(gen(), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@lru_cache(maxsize=1)
def placeholder_jpeg() -> bytes:
    """A grey frame saying that no camera image is there yet."""
    import cv2
    import numpy as np

    img = np.full((360, 640, 3), 48, np.uint8)
    # no words (each phone has its own language; the page says what the camera does): a camera and dots
    grey = (200, 200, 200)
    cv2.rectangle(img, (250, 140), (390, 230), grey, 4, cv2.LINE_AA)
    cv2.rectangle(img, (280, 122), (320, 140), grey, -1, cv2.LINE_AA)
    cv2.circle(img, (320, 185), 28, grey, 4, cv2.LINE_AA)
    for i in range(3):
        cv2.circle(img, (296 + 24 * i, 270), 6, grey, -1, cv2.LINE_AA)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 70])
    return buf.tobytes()


def _frame(session) -> bytes:
    try:
        jpg = session.latest_jpeg()
    except Exception:  # noqa: BLE001 - a broken frame must not end the stream
        jpg = None
    return jpg or placeholder_jpeg()


@streams.get("/video.mjpg")
def video():
    c = ctx()
    if not _acquire():
        return _busy()
    period = 1.0 / max(0.5, float(c.video_fps))

    def gen():
        last = None
        last_sent = 0.0
        try:
            while not c.hub.closed:
                jpg = _frame(c.session)
                now = time.monotonic()
                if jpg is last and now - last_sent < 5.0:
                    time.sleep(min(period, 0.05))
                    continue
                last, last_sent = jpg, now
                yield (f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpg)}\r\n\r\n"
                       .encode() + jpg + b"\r\n")
                spent = time.monotonic() - now
                if spent < period:
                    time.sleep(period - spent)
        finally:
            c.streams.release()

    return Response(gen(), mimetype=f"multipart/x-mixed-replace; boundary={BOUNDARY}",
                    headers={"Cache-Control": "no-cache, no-store", "X-Accel-Buffering": "no"})


@streams.get("/snapshot.jpg")
def snapshot_jpg():
    """The newest annotated frame as one still image (for zone calibration)."""
    try:
        jpg = ctx().session.latest_jpeg()
    except Exception:  # noqa: BLE001
        jpg = None
    if not jpg:
        return error(503, Reason("no_frame_yet", "no camera frame yet: check the camera status"))
    return Response(jpg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})
