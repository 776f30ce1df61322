"""The table's setup: what a host may set (game, players, stake, money per point, house
rules, camera source, label) and the hand-drawn zones, checked before anything uses them.

``tableref serve``, ``tableref watch`` and the web page's setup form all go through
:func:`validate_setup`; the games, their seat counts and their house rules come from
the registry (:mod:`tableref.games`) and are checked by the referee's own builders.
"""
from __future__ import annotations

import dataclasses
import math

from tableref.games import GAMES, game as game_spec
from tableref.referee.errors import RefereeError
from tableref.referee.reasons import Reason

MAX_STAKE = 1_000_000
MAX_NAME = 24


class SetupError(RefereeError):
    """A setup (or other host request) that cannot be used; ``field`` names the culprit.

    Its message is a :class:`Reason` (English text, ``key`` and ``params``) so that the page
    can say it in the player's language."""


def validate_rules(game: str, rules) -> dict:
    """Validate with the referee's builder; return the full switch dict in force."""
    try:
        obj = game_spec(game).rules(rules or {}, "rules")
    except RefereeError as exc:
        raise SetupError(exc.message, exc.field or "rules") from None
    return dataclasses.asdict(obj)


def _int(value, field, lo, hi) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (isinstance(value, float) and value != int(value)):
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value.strip())
        else:
            raise SetupError(Reason("not_whole_number", f"'{field}' must be a whole number, got {value!r}",
                                    field=field, value=repr(value)), field)
    value = int(value)
    if not lo <= value <= hi:
        raise SetupError(Reason("out_of_range", f"'{field}' must be between {lo} and {hi}, got {value}",
                                field=field, lo=lo, hi=hi, value=value), field)
    return value


def validate_setup(data, current: dict | None = None) -> dict:
    """Check a setup request (merged over ``current``); return the clean setup or raise SetupError."""
    if not isinstance(data, dict):
        raise SetupError(Reason("setup_not_object", "the setup must be a JSON object"))
    known = {"game", "seats", "players", "stake", "point_value", "rules", "source", "label"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise SetupError(Reason("unknown_setup_field", f"unknown setup field '{unknown[0]}' (known: "
                                f"{', '.join(sorted(known))})", name=unknown[0], known=", ".join(sorted(known))),
                         unknown[0])
    cur = dict(current or {})
    game = data.get("game", cur.get("game", "desmoche"))
    if game not in GAMES:
        choices = " or ".join(repr(g) for g in GAMES)
        raise SetupError(Reason("bad_game", f"'game' must be {choices}, got {game!r}", choices=choices,
                                value=repr(game)), "game")
    lo, hi = GAMES[game].seats
    players = data.get("players", cur.get("players") if "seats" not in data or "players" in data else None)
    if "seats" in data:
        seats = _int(data["seats"], "seats", 0, 99)
    elif isinstance(players, list):
        seats = len(players)
    else:
        seats = int(cur.get("seats") or 4)
    if not lo <= seats <= hi:
        raise SetupError(Reason("seat_count", f"{GAMES[game].title} is played by {lo} to {hi} players, not {seats}",
                                game=GAMES[game].title, lo=lo, hi=hi, seats=seats), "seats")
    if players is None:
        players = [f"Seat {i + 1}" for i in range(seats)]
    if not isinstance(players, list):
        raise SetupError(Reason("players_not_list", "'players' must be a list of names"), "players")
    if len(players) != seats:
        raise SetupError(Reason("players_count", f"'players' must name {seats} players (one per seat), got "
                                f"{len(players)}", seats=seats, n=len(players)), "players")
    clean = []
    for i, name in enumerate(players):
        if not isinstance(name, str) or not name.strip():
            raise SetupError(Reason("player_needs_name", f"player {i + 1} needs a name", n=i + 1), f"players[{i}]")
        name = " ".join(name.split())
        if len(name) > MAX_NAME:
            raise SetupError(Reason("player_name_long", f"player {i + 1}'s name is too long (at most {MAX_NAME} "
                                    "characters)", n=i + 1, max=MAX_NAME), f"players[{i}]")
        if any(ch in name for ch in "<>\"'&\\") or not name.isprintable():
            raise SetupError(Reason("player_name_chars", f"player {i + 1}'s name may not contain < > \" ' & \\ or "
                                    "control characters", n=i + 1), f"players[{i}]")
        if name.casefold() in (c.casefold() for c in clean):
            raise SetupError(Reason("player_name_twice", f"two players are called {name!r}: names must differ",
                                    name=repr(name)), f"players[{i}]")
        clean.append(name)
    stake = _int(data.get("stake", cur.get("stake", 1)), "stake", 1, MAX_STAKE)
    pv = data.get("point_value", cur.get("point_value", 1.0))
    if isinstance(pv, str):
        try:
            pv = float(pv.replace(",", "."))
        except ValueError:
            raise SetupError(Reason("point_value_not_number", f"'point_value' must be a number, got {pv!r}",
                                    value=repr(pv)), "point_value") from None
    if isinstance(pv, bool) or not isinstance(pv, (int, float)) or not math.isfinite(pv) or not 0 <= pv <= 1e6:
        raise SetupError(Reason("point_value_range", f"'point_value' must be a number from 0 to 1000000, got {pv!r}",
                                value=repr(pv)), "point_value")
    if "rules" in data:
        rules = data["rules"]
    elif game == cur.get("game"):
        rules = cur.get("rules") or {}
    else:
        rules = {}
    if rules is not None and not isinstance(rules, dict):
        raise SetupError(Reason("rules_not_object", "'rules' must be an object of house-rule switches", field="rules"), "rules")
    rules = validate_rules(game, rules)
    source = data.get("source", cur.get("source", "demo"))
    if not isinstance(source, (str, int)) or isinstance(source, bool) or not str(source).strip():
        raise SetupError(Reason("bad_source", "'source' must be a camera index, a file, a folder or a stream URL"),
                         "source")
    source = str(source).strip()
    if len(source) > 500 or not source.isprintable():
        raise SetupError(Reason("source_chars", "'source' is too long or has control characters"), "source")
    out = {"game": game, "seats": seats, "players": clean, "stake": stake, "point_value": float(pv),
           "rules": rules, "source": source}
    label = data.get("label", cur.get("label"))
    if label is not None:
        if not isinstance(label, str) or len(label) > 80:
            raise SetupError(Reason("short_text", "'label' must be a short text", field="label"), "label")
        out["label"] = label
    return out


def validate_zones(data) -> dict:
    """Check a hand-drawn zone layout (image coordinates) before it goes to the session."""
    if not isinstance(data, dict):
        raise SetupError(Reason("zones_not_object", "the zones must be a JSON object"))
    seats = data.get("seats")
    if not isinstance(seats, list) or not 2 <= len(seats) <= 5:
        raise SetupError(Reason("zones_seat_list", "'seats' must be a list of 2 to 5 seat polygons"), "seats")
    size = data.get("frame_size")
    if not (isinstance(size, list) and len(size) == 2 and all(isinstance(v, (int, float)) and 16 <= v <= 10000
                                                              for v in size)):
        raise SetupError(Reason("zones_frame_size", "'frame_size' must be [width, height] of the still frame the "
                                                    "corners were clicked on"), "frame_size")
    w, h = size

    def poly(p, field):
        if isinstance(p, dict):
            p = p.get("polygon")
        if not isinstance(p, list) or not 3 <= len(p) <= 32:
            raise SetupError(Reason("zones_polygon", f"{field} must be a polygon of 3 to 32 [x, y] points",
                                    field=field), field)
        out = []
        for j, pt in enumerate(p):
            if not (isinstance(pt, list) and len(pt) == 2 and all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in pt)):
                raise SetupError(Reason("zones_point", f"{field}[{j}] must be [x, y] numbers", field=f"{field}[{j}]"),
                                 f"{field}[{j}]")
            x, y = pt
            if not (-0.05 * w <= x <= 1.05 * w and -0.05 * h <= y <= 1.05 * h):
                raise SetupError(Reason("zones_point_outside", f"{field}[{j}] = {pt} lies outside the {w}x{h} frame",
                                        field=f"{field}[{j}]", point=str(pt), width=w, height=h), f"{field}[{j}]")
            out.append([float(x), float(y)])
        return out

    clean_seats = [{"seat": i, "polygon": poly(s, f"seats[{i}]")} for i, s in enumerate(seats)]
    if "centre" not in data:
        raise SetupError(Reason("zones_no_centre", "'centre' polygon is missing (the stock and discards)"), "centre")
    centre = poly(data["centre"], "centre")
    return {"version": 1, "coords": "image", "source": "manual", "frame_size": [int(w), int(h)],
            "seats": clean_seats, "centre": centre}


def merge_setup(resumed: dict | None, given: dict) -> tuple[dict, bool]:
    """The setup to run with: a resumed ledger session's, overridden by what the command line gives.

    ``given`` holds what the user said (any of game, source, players, seats, stake,
    point_value). Players default to the demo clip's for the demo source, then to
    "Ana", "Beto"... Returns ``(setup, changed)``: ``changed`` says ``given`` changed a
    resumed setup. The result still needs :func:`validate_setup`.
    """
    from tableref import demo
    from tableref.live.session import DEFAULT_NAMES

    base = dict(resumed or {})
    given = {k: v for k, v in given.items() if v is not None}
    if base and given.get("game", base.get("game")) != base.get("game"):
        base.pop("rules", None)
    setup = {**base, **given}
    setup.setdefault("game", "desmoche")
    setup.setdefault("source", demo.SOURCE)
    if "seats" in given and "players" not in given:
        setup.pop("players", None)
    if not setup.get("players"):
        spec = GAMES.get(setup["game"])
        filmed = demo.setup(setup["game"]) if demo.is_demo(setup["source"]) else {}
        n = (setup.get("seats") or filmed.get("seats") or len(filmed.get("players") or [])
             or (spec.default_seats if spec else 4))
        names = list(filmed.get("players") or [])[:n]
        names += [x for x in DEFAULT_NAMES if x not in names][: n - len(names)]
        setup["players"] = names
    setup["seats"] = len(setup["players"])
    setup.setdefault("stake", 1)
    setup.setdefault("point_value", 1.0)
    setup.setdefault("rules", {})
    changed = bool(resumed) and any(resumed.get(k) != setup.get(k)
                                    for k in ("game", "source", "players", "stake", "point_value"))
    return setup, changed
