"""Evidence pictures on the page: ``/evidence/<id>.jpg`` and ``/api/evidence``.

The store (:class:`tableref.ledger.evidence.EvidenceStore`) is ``app.extensions
["tableref_evidence"]``; without one (evidence switched off) the views say so. The
scoreboard, the event list and the CSV/JSON exports link to the pictures through
:func:`hand_links` and :func:`event_links`.
"""
from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request, send_file, url_for

from tableref.referee.reasons import Reason
from tableref.web.auth import error

evidence = Blueprint("evidence", __name__)


def store():
    return current_app.extensions.get("tableref_evidence")


def _url(p: dict, external: bool = False) -> str:
    return url_for("evidence.picture", picture_id=p["id"], _external=external)


def _brief(p: dict, external: bool = False) -> dict:
    return {"id": p["id"], "hand_no": p["hand_no"], "kind": p["kind"], "seat": p["seat"], "player": p["player"],
            "t": p["t"], "text": p["text"], "url": _url(p, external)}


def hand_links(session_id: int, external: bool = False) -> dict[int, list[dict]]:
    """hand number → its pictures (the hand's end last), for the scoreboard and the exports."""
    s = store()
    if s is None:
        return {}
    try:
        return {h: [_brief(p, external) for p in pics] for h, pics in s.by_hand(session_id).items()}
    except Exception:  # noqa: BLE001 - a broken picture index must not break the scoreboard
        current_app.logger.exception("reading the evidence index failed")
        return {}


def decisive(pics: list[dict]) -> dict | None:
    """The picture that shows how a hand ended (its hand_end, else its last verdict)."""
    ends = [p for p in pics if p["kind"] == "hand_end"]
    return (ends or pics or [None])[-1]


def event_links(session_id: int, limit: int = 200) -> list[dict]:
    """The newest pictures of the session, for matching with the table page's event list."""
    s = store()
    if s is None:
        return []
    try:
        return [_brief(p) for p in s.pictures(session_id)[-limit:]]
    except Exception:  # noqa: BLE001
        current_app.logger.exception("reading the evidence index failed")
        return []


@evidence.get("/evidence/<int:picture_id>.jpg")
def picture(picture_id: int):
    s = store()
    path = s.path_of(picture_id) if s is not None else None
    if path is None:
        keep = getattr(s, "keep_hands", 0)
        return error(404, Reason("no_picture", f"no picture {picture_id}: pictures are kept for the last {keep} hands",
                                 picture=picture_id, keep=keep)
                     if s is not None else Reason("pictures_off", "evidence pictures are switched off on this server"))
    return send_file(path, mimetype="image/jpeg", max_age=3600)


@evidence.get("/api/evidence")
def listing():
    ctx = current_app.extensions["tableref"]
    sid = request.args.get("session", ctx.session_id)
    try:
        sid = int(sid)
    except (TypeError, ValueError):
        return error(400, Reason("bad_session", f"'session' must be a session number, got {sid!r}", value=repr(sid)),
                     "session")
    s = store()
    return jsonify({"session_id": sid, "keep_hands": getattr(s, "keep_hands", 0),
                    "hands": {str(k): v for k, v in hand_links(sid).items()}})
