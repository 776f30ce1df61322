"""The Flask app factory: :func:`create_app(session, ledger, pin=...)`.

``session`` is a :class:`tableref.live.session.TableSession` (or anything with the
same methods), ``ledger`` a :class:`tableref.ledger.store.Ledger`. The app resumes the
ledger's open session (or opens one with the table's setup), records every hand
the session decides (``session.on_hand_end``), and serves the pages
(:mod:`web.pages`), the JSON API (:mod:`web.api`) and the live streams
(:mod:`web.streams`). See ``docs/api.md``.
"""
from __future__ import annotations

import logging
import secrets
import threading

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from tableref.web.auth import PinThrottle, new_pin
from tableref.web.hub import EventHub

log = logging.getLogger("tableref.web")


class TableContext:
    """What the views share: the table session, the ledger and the live-event hub."""

    def __init__(self, session, ledger, pin: str, session_id: int | None, throttle: PinThrottle,
                 max_streams: int, video_fps: float):
        self.session = session
        self.ledger = ledger
        self.pin = pin
        self.throttle = throttle
        self.video_fps = video_fps
        self.lock = threading.RLock()
        self.streams = threading.BoundedSemaphore(max_streams)
        self.max_streams = max_streams
        if session_id is None:
            session_id, _ = ledger.resume_or_open(self.table_setup(), who="tableref")
        self.session_id = session_id
        self.hub = EventHub(session)
        self.last_ledger_error: str | None = None

    # -- the table session's setup, as the ledger records it
    def table_setup(self) -> dict:
        snap = self.snapshot()
        setup: dict = {}
        setup.setdefault("game", snap.get("game", "desmoche"))
        players = snap.get("players") or [s.get("player") for s in snap.get("seats", [])]
        setup.setdefault("players", [p for p in players if p])
        setup.setdefault("seats", len(setup["players"]))
        setup.setdefault("stake", int(snap.get("stake", 1) or 1))
        setup.setdefault("point_value", 1.0)
        setup.setdefault("rules", snap.get("rules") or {})
        cam = snap.get("camera") or {}
        setup.setdefault("source", cam.get("source", "demo"))
        return setup

    def snapshot(self) -> dict:
        try:
            return self.session.snapshot()
        except Exception as exc:  # noqa: BLE001 - the page must still load
            log.exception("session.snapshot() failed")
            return {"error": f"the table state is unavailable: {exc}", "seats": [], "events": []}

    def setup(self) -> dict:
        return self.ledger.setup(self.session_id)

    def on_hand_end(self, result: dict) -> None:
        """Called by the session once per decided hand: record it, tell every phone."""
        try:
            with self.lock:
                hand = self.ledger.commit_hand(self.session_id, result, who="referee",
                                               external_id=result.get("hand_key"))
            self.last_ledger_error = None
            self.hub.publish({"type": "ledger", "what": "hand", "hand_no": hand["hand_no"],
                              "winner": hand["winner"], "net": hand["net"]})
        except Exception as exc:  # noqa: BLE001 - never kill the session's thread; tell the host
            msg = getattr(exc, "message", None) or str(exc)
            self.last_ledger_error = f"a hand could not be recorded: {msg}"
            log.exception("recording a hand failed: %r", result)
            self.hub.publish({"type": "ledger_error", "text": self.last_ledger_error, "result": result})


def create_app(session, ledger, pin: str | None = None, *, session_id: int | None = None,
               secret_key: str | bytes | None = None, max_streams: int = 100, video_fps: float = 8.0,
               pin_attempts_per_minute: int = 5, pin_attempts_overall: int = 30) -> Flask:
    """Build the app. ``pin`` defaults to a random 6-digit PIN (``app.config["TABLEREF_PIN"]``)."""
    app = Flask(__name__)
    pin = str(pin) if pin is not None else new_pin()
    if not pin.strip():
        raise ValueError("the host PIN cannot be empty")
    app.config.update(
        SECRET_KEY=secret_key or secrets.token_bytes(32),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_NAME="tableref",
        MAX_CONTENT_LENGTH=256 * 1024,
        TABLEREF_PIN=pin,
        TABLEREF_PIN_EPOCH=secrets.token_hex(4),
        JSON_SORT_KEYS=False,
    )
    ctx = TableContext(session, ledger, pin, session_id,
                       PinThrottle(pin_attempts_per_minute, pin_attempts_overall), max_streams, video_fps)
    app.extensions["tableref"] = ctx
    if hasattr(session, "on_hand_end"):
        session.on_hand_end = ctx.on_hand_end

    from tableref.web.api import api
    from tableref.web.pages import pages
    from tableref.web.streams import streams

    app.register_blueprint(api)
    app.register_blueprint(streams)
    app.register_blueprint(pages)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        wants_json = request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"
        if not wants_json:
            return exc
        messages = {
            404: f"no such API endpoint: {request.path} (see docs/api.md)",
            405: f"{request.method} is not allowed on {request.path}",
            413: "the request is too large",
        }
        resp = jsonify({"error": messages.get(exc.code, exc.description or exc.name)})
        resp.status_code = exc.code or 500
        return resp

    @app.errorhandler(Exception)
    def internal_error(exc: Exception):
        log.exception("internal error on %s %s", request.method, request.path)
        resp = jsonify({"error": f"internal error: {type(exc).__name__}: {exc} (details in the server log)"})
        resp.status_code = 500
        return resp

    @app.after_request
    def security_headers(resp):
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        return resp

    return app


def close_app(app: Flask) -> None:
    """Stop the app's event pump (the session and ledger belong to the caller)."""
    ctx = app.extensions.get("tableref")
    if ctx is not None:
        ctx.hub.close()
