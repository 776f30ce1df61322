"""Joining the table: a QR code of this table page's LAN address (``/join.svg``), made here with
segno (pure Python, no network), so players open the page by scanning it."""
from __future__ import annotations

import io
import ipaddress
from urllib.parse import urlsplit

from flask import Blueprint, Response, current_app, request

join = Blueprint("join", __name__)


def _is_loopback(host: str) -> bool:
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def join_url() -> str:
    """The address players should open: the one this page was reached at, unless that is this
    computer's own loopback address; then the LAN address ``tableref serve`` found."""
    here = request.url_root
    configured = current_app.config.get("TABLEREF_JOIN_URL")
    if configured and _is_loopback(urlsplit(here).hostname or ""):
        return configured
    return here


def join_reachable() -> bool:
    """Whether a phone can open :func:`join_url` (not when it is this computer's loopback address:
    the server listens on 127.0.0.1 only)."""
    return not _is_loopback(urlsplit(join_url()).hostname or "")


@join.app_context_processor
def _join_context():
    return {"join_url": join_url, "join_reachable": join_reachable}


@join.get("/join.svg")
def join_svg():
    import segno

    buf = io.BytesIO()
    segno.make(join_url(), error="m").save(buf, kind="svg", scale=4, border=4, dark="#000", light="#fff",
                                           title="tableref", xmldecl=False)
    return Response(buf.getvalue(), mimetype="image/svg+xml", headers={"Cache-Control": "no-store"})
