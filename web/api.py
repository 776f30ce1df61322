"""The JSON API behind the pages (documented in ``docs/api.md``).

Reading is open to every viewer; every ``POST`` needs the CSRF token, and all
but ``/api/login`` and ``/api/logout`` need the host's cookie.
"""
from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request, session as cookie

from tableref.ledger.errors import LedgerError
from tableref.ledger.money import point_value_cents
from tableref.referee.cards import parse_card
from tableref.referee.errors import RefereeError
from tableref.referee.reasons import Reason
from tableref.table.setup import check_setup

from tableref.web.auth import (
    check_pin,
    client_address,
    csrf_required,
    csrf_token,
    error,
    host_name,
    host_required,
    is_host,
)
from tableref.web.evidence import decisive, event_links, hand_links
from tableref.web.i18n import localize_table, pick_language, say_event, translator
from tableref.table.setup import SetupError, validate_zones
from tableref.web.setup_form import all_switches

api = Blueprint("api", __name__, url_prefix="/api")


def ctx():
    return current_app.extensions["tableref"]


def body() -> dict:
    """The request's JSON object, or raise SetupError (answered 400)."""
    if not request.is_json:
        raise SetupError(Reason("send_json", "send a JSON object with Content-Type: application/json"))
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise SetupError(Reason("body_not_object", "the request body must be a JSON object"))
    return data


def why_of(data: dict, required: bool = False) -> str:
    why = data.get("why", "")
    if not isinstance(why, str) or len(why) > 500:
        raise SetupError(Reason("short_text", "'why' must be a short text", field="why"), "why")
    if required and not why.strip():
        raise SetupError(Reason("why_needed", "say why (the reason is kept in the ledger)"), "why")
    return why.strip()


@api.errorhandler(RefereeError)
@api.errorhandler(LedgerError)
def _refused(exc: RefereeError | LedgerError):
    """Bad input to the API, refused by the setup check, the ledger or the session: 400 with its message."""
    return error(400, exc.message, exc.field)


def setup_failed(why) -> Reason:
    return Reason("setup_failed", f"the table could not be set up: {why}", why=why)


def zones_failed(why) -> Reason:
    return Reason("zones_failed", f"the zones could not be used: {why}", why=why)


def session_call(wrap, fn, *args, **kwargs):
    """Call the table session; its refusal (bad source, unknown player...) becomes a 400 with its message,
    as ``wrap(message)`` says it when given. The message keeps its key: the page says it in its language."""
    try:
        return fn(*args, **kwargs)
    except (ValueError, TypeError, RefereeError) as exc:
        why = getattr(exc, "message", None) or (exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc))
        raise SetupError(wrap(why) if wrap else why, getattr(exc, "field", None)) from None


def _who() -> dict:
    return {"who": host_name(), "client": client_address()}


def _changed(what: str, **extra) -> None:
    ctx().hub.publish({"type": "ledger", "what": what, **extra})


# ------------------------------------------------------------------ reading
@api.get("/state")
def state():
    c = ctx()
    return jsonify({
        "table": localize_table(c.snapshot(), pick_language()),  # with "say" texts in the page's language
        "setup": c.setup(),
        "ledger": {**c.service.ledger_view(), "balances": c.ledger.balances(c.session_id),
                   "money": c.ledger.money(c.session_id), "pot": c.ledger.pot(c.session_id),
                   "hands": c.ledger.hand_count(c.session_id), "error": c.last_ledger_error},
        "host": is_host(),
        "evidence": event_links(c.session_id),
    })


@api.get("/ledger")
def ledger_view():
    c = ctx()
    sid = request.args.get("session", c.session_id)
    try:
        sid = int(sid)
    except (TypeError, ValueError):
        return error(400, Reason("bad_session", f"'session' must be a session number, got {sid!r}",
                                 value=repr(sid)), "session")
    data = c.ledger.summary(sid)
    pictures = hand_links(sid)
    for h in data.get("hands", []):
        h["evidence"] = pictures.get(h["hand_no"], [])
    return jsonify(data)


@api.get("/ledger.csv")
def ledger_csv():
    c = ctx()
    sid = request.args.get("session", c.session_id)
    try:
        sid = int(sid)
    except (TypeError, ValueError):
        return error(400, Reason("bad_session", f"'session' must be a session number, got {sid!r}",
                                 value=repr(sid)), "session")
    text = _with_evidence_column(c.ledger.export_csv(sid), hand_links(sid, external=True))
    return Response(text, mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="tableref-session-{sid}.csv"'})


def _with_evidence_column(text: str, pictures: dict[int, list[dict]]) -> str:
    """The ledger's CSV with an ``evidence`` column: the picture each hand was decided on."""
    import csv
    import io

    rows = list(csv.reader(io.StringIO(text)))
    if not rows or "kind" not in rows[0] or "hand" not in rows[0]:
        return text
    kind, hand = rows[0].index("kind"), rows[0].index("hand")
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(rows[0] + ["evidence"])
    for r in rows[1:]:
        pic = None
        if len(r) > max(kind, hand) and r[kind] == "hand" and r[hand].isdigit():
            pic = decisive(pictures.get(int(r[hand]), []))
        w.writerow(r + [pic["url"] if pic else ""])
    return out.getvalue()


@api.get("/totals")
def totals():
    """Every player across every session of this ledger (the Scoreboard's totals); money as exact text."""
    return jsonify({"players": ctx().ledger.player_totals()})


@api.get("/sessions")
def sessions():
    return jsonify({"current": ctx().session_id, "sessions": ctx().ledger.sessions()})


@api.get("/rules")
def rules():
    return jsonify(all_switches())


@api.get("/csrf")
def csrf():
    return jsonify({"csrf": csrf_token(), "host": is_host()})


# ------------------------------------------------------------------ host login
@api.post("/login")
@csrf_required
def login():
    c = ctx()
    client = client_address()
    wait = c.throttle.retry_after(client)
    if wait > 0:
        resp = error(429, Reason("pin_throttled", f"too many wrong PINs: wait {int(wait) + 1} seconds",
                                 seconds=int(wait) + 1), retry_after=int(wait) + 1)
        resp.headers["Retry-After"] = str(int(wait) + 1)
        return resp
    data = body()
    name = data.get("name") or "host"
    if not isinstance(name, str) or len(name) > 40:
        raise SetupError(Reason("short_text", "'name' must be a short text", field="name"), "name")
    if not check_pin(data.get("pin"), c.pin):
        c.throttle.failed(client)
        return error(403, Reason("wrong_pin", "wrong PIN"), "pin")
    c.throttle.succeeded(client)
    cookie.clear()  # a fresh cookie and CSRF token for the host (no fixation)
    cookie["host"] = True
    cookie["host_name"] = name.strip() or "host"
    cookie["pin_epoch"] = current_app.config["TABLEREF_PIN_EPOCH"]
    return jsonify({"ok": True, "host": True, "csrf": csrf_token()})


@api.post("/logout")
@csrf_required
def logout():
    cookie.pop("host", None)
    cookie.pop("host_name", None)
    return jsonify({"ok": True, "host": False})


# ------------------------------------------------------------------ host actions
@api.post("/setup")
@host_required
def setup():
    c = ctx()
    data = body()
    with c.lock:
        why = why_of(data) or "setup"
        checked = check_setup({k: v for k, v in data.items() if k != "why"}, c.setup())
        clean = checked.as_dict()
        point_value_cents(clean.get("point_value", 0))  # whole cents, checked before the table changes
        session_call(setup_failed, c.service.apply_setup, checked, why=why, **_who())
    _changed("setup", setup=clean)
    return jsonify({"ok": True, "setup": clean})


@api.post("/zones")
@host_required
def zones():
    c = ctx()
    clean = validate_zones(body())
    seats = len(c.snapshot().get("players") or c.setup().get("players") or [])
    if seats and len(clean["seats"]) != seats:
        raise SetupError(Reason("zones_seats", f"the table has {seats} seats but {len(clean['seats'])} seat zones "
                                               "were drawn", seats=seats, drawn=len(clean["seats"])), "seats")
    with c.lock:
        session_call(zones_failed, c.service.set_zones, clean)
    c.hub.publish({"type": "zones"})
    return jsonify({"ok": True, "zones": clean})


@api.post("/session/new")
@host_required
def new_session():
    c = ctx()
    data = body()
    with c.lock:
        old = c.session_id
        c.service.new_session(why=why_of(data), **_who())  # the old pot went back: the table carries none
    _changed("session", session_id=c.session_id, closed=old)
    return jsonify({"ok": True, "session_id": c.session_id})


@api.post("/correct")
@host_required
def correct_card():
    """The host corrects what the camera read: ``{"track_id": 7, "card": "6H" | null, "why": ...}``."""
    c = ctx()
    data = body()
    tid = data.get("track_id")
    if isinstance(tid, bool) or not isinstance(tid, int) or tid < 0:
        raise SetupError(Reason("bad_track_id", "'track_id' must be the number of a card on the table "
                                                "(see /api/state)"), "track_id")
    if "card" not in data:
        raise SetupError(Reason("card_missing", "'card' is missing: give the right card (e.g. \"10H\") or null "
                                                "for 'not a card'"), "card")
    card = data["card"]
    if card is not None:
        try:
            card = str(parse_card(card))
        except RefereeError as exc:
            raise SetupError(exc.message, "card") from None
    why = why_of(data)
    with c.lock:
        try:
            result = session_call(None, c.service.correct_card, tid, card, why=why, **_who())
        except KeyError:
            return error(404, Reason("no_such_track", f"no card with track_id {tid} is on the table now", track_id=tid),
                         "track_id")
    c.hub.publish({"type": "correction", "track_id": tid, "card": card})
    return jsonify({"ok": True, "result": result})


def _players(c) -> list[str]:
    """Everyone who may be named in a hand: the table's players and those of the ledger session."""
    names = list(c.snapshot().get("players") or c.setup().get("players") or [])
    return names + [p for p in c.ledger.players(c.session_id) if p not in names]


def _known_players(c, data: dict) -> None:
    """Refuse a winner or a net naming someone who is not a player (a typo must not open an account)."""
    players = _players(c)
    w = data.get("winner")
    if w is not None and w not in players:
        raise SetupError(Reason("not_a_player", f"{w!r} is not a player of this session ({', '.join(players)})",
                                name=repr(w), players=", ".join(players)), "winner")
    net = data.get("net")
    if isinstance(net, dict):
        for p in net:
            if p not in players:
                raise SetupError(Reason("not_a_player", f"{p!r} is not a player of this session ({', '.join(players)})",
                                        name=repr(p), players=", ".join(players)), f"net.{p}")


FINISH_KEYS = {"winner", "seen", "tiplu", "exposed", "maal", "confirm", "why"}


@api.post("/hand/confirm")
@host_required
def confirm_hand():
    """End the hand with what the camera cannot see; the host is asked first.

    Marriage: ``tiplu``, ``winner``, ``seen`` {player: bool}, ``exposed`` {player: [[cards], ...]},
    ``maal`` {player: points} for a seat the camera cannot count (every seat must be counted);
    Desmoche: ``winner`` (or null: no winner).
    Without ``"confirm": true`` nothing is recorded: the answer's ``preview`` is what would be
    recorded (winner, nets, items), for the page to show and ask. With it the hand is settled
    and recorded (undo it with ``/api/undo``).
    """
    c = ctx()
    data = body()
    unknown = sorted(set(data) - FINISH_KEYS)
    if unknown:
        raise SetupError(Reason("unknown_field", f"unknown field '{unknown[0]}' (known: {', '.join(sorted(FINISH_KEYS))})",
                                name=unknown[0], known=", ".join(sorted(FINISH_KEYS))), unknown[0])
    players = c.snapshot().get("players") or c.setup().get("players") or []
    host_input = {}
    if "winner" in data:
        w = data["winner"]
        if w is not None and w not in players:
            raise SetupError(Reason("winner_or_null", f"'winner' must be one of the players ({', '.join(players)}) "
                                                      "or null", players=", ".join(players)), "winner")
        host_input["winner"] = w
    if "seen" in data:
        seen = data["seen"]
        if not isinstance(seen, dict) or any(p not in players or not isinstance(v, bool) for p, v in seen.items()):
            raise SetupError(Reason("bad_seen_map", "'seen' must map player names to true/false"), "seen")
        host_input["seen"] = seen
    if "tiplu" in data and data["tiplu"] is not None:
        try:
            host_input["tiplu"] = str(parse_card(data["tiplu"]))
        except RefereeError as exc:
            raise SetupError(exc.message, "tiplu") from None
    if "exposed" in data:
        exposed = data["exposed"]
        if not isinstance(exposed, dict) or any(p not in players or not isinstance(v, list) for p, v in exposed.items()):
            raise SetupError(Reason("bad_exposed_map", "'exposed' must map player names to lists of tunnelas "
                                                       "(lists of cards)"), "exposed")
        host_input["exposed"] = exposed
    if "maal" in data:
        maal = data["maal"]
        if not isinstance(maal, dict) or any(p not in players or isinstance(v, bool) or not isinstance(v, int)
                                             or not 0 <= v <= 10_000 for p, v in maal.items()):
            raise SetupError(Reason("bad_maal_map", "'maal' must map player names to whole numbers of points, "
                                                    "0 or more"), "maal")
        host_input["maal"] = maal
    confirm = data.get("confirm", False)
    if not isinstance(confirm, bool):
        raise SetupError(Reason("bad_confirm", "'confirm' must be true (record the hand) or false (only show what "
                                               "would be recorded)"), "confirm")
    with c.lock:
        if not confirm:
            preview = session_call(None, c.service.preview_hand, **host_input)
            preview["say"] = say_event({**preview, "type": "hand_end"}, translator(pick_language()))
            return jsonify({"ok": True, "recorded": False, "preview": preview})
        result = session_call(None, c.service.finish_hand, **host_input, why=why_of(data), **_who())
    return jsonify({"ok": True, "recorded": True, "result": result, "ledger_error": c.last_ledger_error})


@api.post("/hand/next")
@host_required
def next_hand():
    """Start the next hand now: ``{"why": ...}`` (optional). A decided hand's cards may still lie on
    the table: they are not judged again. A hand not yet decided is set aside unrecorded and played
    again under its number. Journalled as a ``next_hand`` entry."""
    c = ctx()
    data = body()
    unknown = sorted(set(data) - {"why"})
    if unknown:
        raise SetupError(Reason("unknown_field", f"unknown field '{unknown[0]}' (known: why)",
                                name=unknown[0], known="why"), unknown[0])
    why = why_of(data)
    with c.lock:
        got = session_call(None, c.service.next_hand, why=why, **_who())
    _changed("next_hand", **got)
    return jsonify({"ok": True, **got})


@api.post("/hand/correct")
@host_required
def correct_hand():
    """Change a recorded hand's nets: ``{"hand_id": 3, "net": {...}, "why": "..."}`` (a new entry)."""
    c = ctx()
    data = body()
    hid = data.get("hand_id")
    if isinstance(hid, bool) or not isinstance(hid, int):
        raise SetupError(Reason("bad_hand_id", "'hand_id' must be the id of a recorded hand (see /api/ledger)"),
                         "hand_id")
    _known_players(c, {"net": data.get("net")})
    with c.lock:
        entry = c.ledger.correct_hand(c.session_id, hid, data.get("net"), why=why_of(data, required=True), **_who())
    _changed("hand_correction", entry_id=entry)
    return jsonify({"ok": True, "entry_id": entry, "hand": c.ledger.hand(hid)})


@api.post("/hand/manual")
@host_required
def manual_hand():
    """Record a hand the camera could not referee: ``{"winner": ..., "net": {...}, "items": [...], "why": ...}``."""
    c = ctx()
    data = body()
    unknown = sorted(set(data) - {"winner", "net", "items", "why", "game"})
    if unknown:
        known = "winner, net, items, why, game"
        raise SetupError(Reason("unknown_field", f"unknown field '{unknown[0]}' (known: {known})",
                                name=unknown[0], known=known), unknown[0])
    _known_players(c, data)
    result = {"type": "hand_end", "game": data.get("game") or c.setup().get("game"), "winner": data.get("winner"),
              "net": data.get("net"), "items": data.get("items") or [], "details": {"entered_by_host": True}}
    with c.lock:
        hand = c.ledger.commit_hand(c.session_id, result, why=why_of(data, required=True), **_who())
        c.service.sync_hand_numbers()
    _changed("hand", hand_no=hand["hand_no"])
    return jsonify({"ok": True, "hand": hand})


@api.post("/undo")
@host_required
def undo():
    """Undo the newest hand or correction (or ``entry_id``): a new, reversing entry."""
    c = ctx()
    data = body()
    eid = data.get("entry_id")
    if eid is not None and (isinstance(eid, bool) or not isinstance(eid, int)):
        raise SetupError(Reason("bad_entry_id", "'entry_id' must be the id of a ledger entry (see /api/ledger)"),
                         "entry_id")
    with c.lock:
        entry = c.ledger.undo(c.session_id, eid, why=why_of(data, required=True), **_who())
        c.service.sync_pot()  # an undone hand takes its pot flow back: the table carries what the ledger holds
    _changed("undo", entry_id=entry)
    return jsonify({"ok": True, "entry_id": entry, "balances": c.ledger.balances(c.session_id)})
