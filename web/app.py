"""The Flask app factory: :func:`create_app(service, pin=...)`.

``service`` is a :class:`tableref.table.service.TableService`: the live table
session, the ledger it records into and the setup in force (``tableref serve``
opens one; ``create_app(session, ledger)`` wraps a session and a ledger in one).
The app is thin views over it: the pages (:mod:`web.pages`), the JSON API
(:mod:`web.api`) and the live streams (:mod:`web.streams`). See ``docs/api.md``.
"""
from __future__ import annotations

import logging
import secrets
import threading

from flask import Flask, request
from werkzeug.exceptions import HTTPException

from tableref.referee.reasons import Reason
from tableref.table.service import TableService
from tableref.web.auth import PinThrottle, error, new_pin
from tableref.web.hub import EventHub

log = logging.getLogger("tableref.web")


class TableContext:
    """What the views share: the table service (live session + ledger + setup), the host's PIN,
    the live-event hub and the stream slots. Reading and host actions go to the service."""

    def __init__(self, service: TableService, pin: str, throttle: PinThrottle, max_streams: int, video_fps: float):
        self.service = service
        self.pin = pin
        self.throttle = throttle
        self.video_fps = video_fps
        self.streams = threading.BoundedSemaphore(max_streams)
        self.max_streams = max_streams
        self.hub = EventHub(service.session)
        service.listen(self.hub.publish)

    # the service's parts, for the views
    @property
    def session(self):
        return self.service.session

    @property
    def ledger(self):
        return self.service.ledger

    @property
    def session_id(self) -> int:
        return self.service.session_id

    @property
    def lock(self):
        return self.service.lock

    @property
    def last_ledger_error(self) -> str | None:
        return self.service.last_ledger_error

    def snapshot(self) -> dict:
        return self.service.snapshot()

    def setup(self) -> dict:
        return self.service.setup()


def create_app(service, ledger=None, pin: str | None = None, *, session_id: int | None = None,
               secret_key: str | bytes | None = None, max_streams: int = 100, video_fps: float = 8.0,
               pin_attempts_per_minute: int = 5, pin_attempts_overall: int = 30, evidence=None) -> Flask:
    """Build the app over a :class:`TableService` (or over ``session`` and ``ledger``, wrapped in one,
    recording into ``session_id``). ``pin`` defaults to a random 6-digit PIN (``app.config["TABLEREF_PIN"]``).
    ``evidence``: a :class:`tableref.ledger.evidence.EvidenceStore` that keeps the picture of each
    verdict the live session decides (None: no pictures)."""
    if not isinstance(service, TableService):
        service = TableService(service, ledger, session_id)
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
    ctx = TableContext(service, pin, PinThrottle(pin_attempts_per_minute, pin_attempts_overall), max_streams,
                       video_fps)
    app.extensions["tableref"] = ctx
    if evidence is not None:
        from tableref.ledger.evidence import EvidenceRecorder

        app.extensions["tableref_evidence"] = evidence
        app.extensions["tableref_evidence_recorder"] = EvidenceRecorder(service.session, evidence,
                                                                        lambda: service.session_id)

    from tableref.web.api import api
    from tableref.web.camera import camera
    from tableref.web.evidence import evidence as evidence_views
    from tableref.web.join import join
    from tableref.web.pages import pages
    from tableref.web.streams import streams

    app.register_blueprint(api)
    app.register_blueprint(streams)
    app.register_blueprint(pages)
    app.register_blueprint(camera)
    app.register_blueprint(join)
    app.register_blueprint(evidence_views)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        wants_json = request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"
        if not wants_json:
            return exc
        messages = {
            404: Reason("no_endpoint", f"no such API endpoint: {request.path} (see docs/api.md)", path=request.path),
            405: Reason("method_not_allowed", f"{request.method} is not allowed on {request.path}",
                        method=request.method, path=request.path),
            413: Reason("too_large", "the request is too large"),
        }
        return error(exc.code or 500, messages.get(exc.code, exc.description or exc.name))

    @app.errorhandler(Exception)
    def internal_error(exc: Exception):
        log.exception("internal error on %s %s", request.method, request.path)
        what = f"{type(exc).__name__}: {exc}"
        return error(500, Reason("internal_error", f"internal error: {what} (details in the server log)", what=what))

    @app.after_request
    def security_headers(resp):
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        return resp

    return app


def close_app(app: Flask) -> None:
    """Stop the app's event pump (the table service belongs to the caller)."""
    ctx = app.extensions.get("tableref")
    if ctx is not None:
        ctx.service.unlisten(ctx.hub.publish)
        ctx.hub.close()
    recorder = app.extensions.pop("tableref_evidence_recorder", None)
    if recorder is not None:
        recorder.close()
