"""Interface languages: English, Spanish and Nepali. The player picks (cookie ``lang``).

Strings live in ``web/i18n/<code>.json``; a key missing in a language falls back
to English, and a key missing everywhere shows the key itself (tests catch both).

What the table says to players is written here, in the player's language, from
structured data and never by reading English text:

* the referee's reasons are :class:`tableref.referee.reasons.Reason` objects
  (``key`` + ``params``): ``reason_<key>`` templates;
* live events by their ``type`` and fields: ``ev_<type>`` templates;
* the camera by its status and source: ``cam_say_<status>``;
* seat verdicts from the seat's count / the referee's problems;
* the API's errors: their message is a ``Reason`` too (raised by the setup check,
  the referee, the table service, the ledger or the web views), so :func:`say_error`
  says them with the same ``reason_<key>`` templates; every error response carries
  its ``say`` beside the English ``error`` (:func:`tableref.web.auth.error`).

:func:`localize_table` adds a ``say`` text beside each English ``text`` of a table
snapshot (``/api/state``); the page shows ``say``.
"""
from __future__ import annotations

import json
import string
from functools import lru_cache
from pathlib import Path

from flask import request

FOLDER = Path(__file__).parent / "i18n"
LANGUAGES = {"en": "English", "es": "Español", "ne": "नेपाली"}
DEFAULT = "en"


@lru_cache(maxsize=None)
def own_strings(code: str) -> dict[str, str]:
    """The strings of one language file, without the English fallback."""
    path = FOLDER / f"{code}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


@lru_cache(maxsize=None)
def strings(code: str) -> dict[str, str]:
    if code != DEFAULT:
        return {**own_strings(DEFAULT), **own_strings(code)}
    return own_strings(DEFAULT)


def pick_language() -> str:
    """The cookie's language, else the browser's best supported one, else English."""
    code = request.cookies.get("lang")
    if code in LANGUAGES:
        return code
    best = request.accept_languages.best_match(list(LANGUAGES))
    return best or DEFAULT


class _Blank(dict):
    def __missing__(self, key):
        return ""


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def translator(code: str):
    table = strings(code)

    def t(key: str, **kw) -> str:
        text = table.get(key, key)
        return string.Formatter().vformat(text, (), _Blank(kw)) if kw else text

    t.keys = set(table)
    return t


# ----------------------------------------------------------------------------- structured texts

def _reason_parts(value):
    if isinstance(value, dict) and isinstance(value.get("key"), str):
        return value["key"], value.get("params") or {}
    key = getattr(value, "key", None)
    if isinstance(key, str) and isinstance(getattr(value, "params", None), dict):
        return key, value.params
    return None, None


def say_reason(value, t) -> str | None:
    """A referee reason (a ``Reason`` or its ``{"key", "params"}``) in ``t``'s language; None if unkeyed."""
    key, params = _reason_parts(value)
    if key is None:
        return None
    p = {}
    for k, v in params.items():
        inner = say_reason(v, t)
        p[k] = inner if inner is not None else v
    return t("reason_" + key, **p)


def say_error(message, code: str | None = None) -> str | None:
    """An API error (a keyed ``Reason``) in ``code``, default the request's language; None if unkeyed."""
    return say_reason(message, translator(code or pick_language()))


def _cards(cards) -> str:
    return " ".join(str(c) for c in cards or [])


def _net(net: dict) -> str:
    return ", ".join(f"{p} {v:+g}" for p, v in (net or {}).items())


def say_camera(cam: dict, t) -> str:
    status = (cam or {}).get("status") or "unknown"
    source = str((cam or {}).get("source") or "")
    if source == "demo":
        source = t("source_demo")
    elif source == "phone":
        source = t("source_phone")
    elif source.isdigit():
        source = t("source_webcam", n=source)
    size = str((cam or {}).get("size") or "")
    return t("cam_say_" + status, source=source, size=size) if "cam_say_" + status in _keys(t) \
        else t("cam_" + status)


def _keys(t) -> set:
    return getattr(t, "keys", set())


def say_event(e: dict, t) -> str:
    """One live event in ``t``'s language, from its type and fields."""
    kind = e.get("type", "")
    f = {"player": e.get("player") or "", "cards": _cards(e.get("cards")),
         "card": (e.get("cards") or [""])[0], "meld": _cards(e.get("meld_cards")),
         "from_cards": _cards(e.get("from_cards")), "from_player": e.get("from_player") or "",
         "hand_no": e.get("hand_no", ""), "n": len(e.get("cards") or [])}
    reason = say_reason(e.get("reason"), t)
    if reason is None and kind not in ("meld_invalid", "out_of_order"):
        reason = say_reason(e.get("text"), t)   # events whose text is the referee's reason itself
        if reason is not None:
            return reason
    if kind == "card_added" and e.get("from_centre"):
        key = "ev_card_added_centre"
    elif kind == "card_moved" and e.get("from_meld") == -1:
        key = "ev_card_moved_loose"
    elif kind == "card_removed":
        key = "ev_card_removed_centre" if e.get("to_centre") else "ev_card_removed"
    elif kind == "illegal_move":
        return reason or t("ev_illegal_move", **f)
    elif kind in ("meld_invalid", "out_of_order"):
        f["reason"] = reason or ""
        key = "ev_" + kind
    elif kind == "autowin":
        f["what"] = t("autowin_" + str(e.get("kind")))
        key = "ev_autowin"
    elif kind == "hand_end":
        f.update(winner=e.get("winner") or "", net=_net(e.get("net")))
        key = "ev_hand_end_winner" if e.get("winner") else "ev_hand_end_none"
    elif kind == "camera_status":
        f.update(status=t("cam_" + str(e.get("status"))),
                 say=say_camera(e, t))     # the event carries the camera's status, source and size
        key = "ev_camera_status"
    elif kind == "correction":
        f.update(track=e.get("track_id", ""), card=e.get("card") or t("not_a_card"), old=e.get("old") or "?")
        key = "ev_correction"
    elif kind == "recognition_repair":
        f.update(track=e.get("track_id", ""), read=e.get("read", ""), taken_as=e.get("taken_as", ""))
        key = "ev_recognition_repair"
    elif kind == "maal_counted":
        f.update(maal=e.get("maal", 0), paid=e.get("maal_paid", 0))
        key = "ev_maal_seen" if e.get("seen") else "ev_maal_unseen"
        text = t(key, **f)
        if e.get("can_finish"):
            text += " · " + t("can_finish")
        return text
    elif kind == "hand_start" and (e.get("by") == "host" or e.get("cleared")):
        decided = e.get("previous_decided", True)
        key = ("ev_hand_start_cleared" if decided else "ev_hand_start_set_aside") if e.get("cleared") else \
            "ev_hand_start_host" if decided else "ev_hand_start_again"
    elif kind == "centre_changed" and not e.get("cards"):
        key = "ev_centre_empty"
    else:
        key = "ev_" + kind
    text = t(key, **f) if key in _keys(t) else (e.get("text") or kind)
    if reason and kind not in ("meld_invalid", "out_of_order"):
        text += " — " + reason
    return text


def _seat_verdicts(seat: dict, game: str, winner, t) -> list[str]:
    out = []
    if winner and seat.get("player") == winner:
        out.append(t("winner"))
    if game == "marriage":
        count = seat.get("count")
        if count:
            out.append(t("verdict_seen" if count.get("seen") else "verdict_unseen", maal=count.get("maal", 0)))
            if count.get("can_finish"):
                out.append(t("verdict_finished"))
        return out
    for v in seat.get("verdicts") or []:
        if v == "winner":
            continue
        said = say_reason(v, t)
        out.append(said if said is not None else t("verdict_problem"))
    return out


def localize_table(snap: dict, code: str) -> dict:
    """The snapshot with ``say`` texts in language ``code`` beside the English ones (a copy)."""
    t = translator(code)
    out = dict(snap)
    game = snap.get("game", "desmoche")
    out["events"] = [{**e, "say": say_event(e, t)} for e in snap.get("events") or []]
    seats = []
    for s in snap.get("seats") or []:
        s = dict(s)
        s["melds"] = [{**m, "reason_say": say_reason(m.get("reason"), t) or (
            t("verdict_problem") if m.get("reason") else None)} for m in s.get("melds") or []]
        s["verdicts_say"] = _seat_verdicts(s, game, snap.get("winner"), t)
        seats.append(s)
    out["seats"] = seats
    cam = dict(snap.get("camera") or {})
    if cam:
        cam["say"] = say_camera(cam, t)
        out["camera"] = cam
    return out
