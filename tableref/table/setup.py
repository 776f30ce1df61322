"""The host's setup on the command line and the hand-drawn zones: merged and checked before anything uses them.

The setup itself is one checked value, :class:`tableref.live.setup.TableSetup`, made by
:func:`tableref.live.setup.check_setup` (imported from here by the web's setup form and the API).
:func:`merge_setup` lays what the command line gives over a resumed ledger session's setup;
:func:`validate_zones` checks a zone layout drawn by hand.
"""
from __future__ import annotations

import math

from tableref.games import GAMES
from tableref.live.setup import (  # noqa: F401 (the web's setup form and the API import them from here)
    SetupError,
    TableSetup,
    check_setup,
    default_names,
)
from tableref.referee.reasons import Reason


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


def merge_setup(resumed: dict | None, given: dict) -> tuple[TableSetup, bool]:
    """The setup to run with: a resumed ledger session's, overridden by what the command line gives,
    checked (raises :class:`SetupError`).

    ``given`` holds what the user said (any of game, source, players, seats, stake,
    point_value; None: not said). Seats and players given together must agree; players
    default to the demo clip's for the demo source, then to the default names.
    Returns ``(setup, changed)``: ``changed`` says ``given`` changed a resumed setup.
    """
    from tableref import demo

    base = dict(resumed or {})
    given = {k: v for k, v in given.items() if v is not None}
    if base and given.get("game", base.get("game")) != base.get("game"):
        base.pop("rules", None)
    setup = {**base, **given}
    setup.setdefault("game", "desmoche")
    setup.setdefault("source", demo.SOURCE)
    if "seats" in given and "players" not in given:
        setup.pop("players", None)
    if "players" in given and "seats" not in given:
        setup.pop("seats", None)
    spec = GAMES.get(setup["game"])
    if not setup.get("players") and spec is not None and demo.is_demo(setup["source"]):
        filmed = demo.setup(setup["game"])
        n = setup.get("seats") or filmed.get("seats") or len(filmed.get("players") or []) or spec.default_seats
        if isinstance(n, int) and spec.seat_error(n) is None:
            setup["players"] = default_names(n, filmed.get("players") or [])
    checked = check_setup({k: v for k, v in setup.items() if k in ("game", "seats", "players", "stake",
                                                                   "point_value", "rules", "source", "label")})
    final = checked.as_dict()
    changed = bool(resumed) and any(resumed.get(k) != final.get(k)
                                    for k in ("game", "source", "players", "stake", "point_value"))
    return checked, changed
