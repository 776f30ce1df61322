"""The setup form, read from the referee's own settings classes.

The house-rule switches (names, types, defaults, allowed values, help text) are
read from each game's settings class (:mod:`tableref.games`), so the form never
drifts from the rules engine. The checks of a setup are the table service's
(:mod:`tableref.table.setup`), re-exported here for the API.
"""
from __future__ import annotations

import dataclasses
import inspect
import re
import typing

from tableref.games import GAMES, seat_ranges

SEAT_RANGE = seat_ranges()


def _help_texts(cls) -> dict[str, str]:
    """Help per switch: ``#:`` comments above a field, or the class docstring's ``name  text`` lines."""
    out: dict[str, str] = {}
    try:
        src = inspect.getsource(cls)
    except (OSError, TypeError):
        src = ""
    pending: list[str] = []
    for line in src.splitlines():
        s = line.strip()
        if s.startswith("#:"):
            pending.append(s[2:].strip())
            continue
        m = re.match(r"(\w+)\s*:\s*[\w\[\], |]+\s*=", s)
        if m and pending:
            out[m.group(1)] = " ".join(pending)
        pending = []
    doc = inspect.getdoc(cls) or ""
    current = None
    names = {f.name for f in dataclasses.fields(cls)}
    for line in doc.splitlines():
        m = re.match(r"(\w+)\s{2,}(.*)", line)
        if m and m.group(1) in names:
            current = m.group(1)
            out.setdefault(current, "")
            if current not in out or not out[current]:
                out[current] = m.group(2).strip()
            continue
        if current and line.startswith(" ") and line.strip():
            if not any(k for k in out if k == current and out[k].endswith(line.strip())):
                out[current] = (out[current] + " " + line.strip()).strip()
        elif not line.strip():
            current = None
    return out


def rule_switches(game: str) -> list[dict]:
    """The switches of ``game``: ``[{"name", "type", "default", "choices", "help"}, ...]``."""
    cls = GAMES[game].settings_class()
    hints = typing.get_type_hints(cls)
    choices = getattr(cls, "CHOICES", {})
    helps = _help_texts(cls)
    out = []
    for f in dataclasses.fields(cls):
        kind = {bool: "bool", int: "int", float: "float", str: "str"}.get(hints[f.name], "str")
        out.append({"name": f.name, "type": kind, "default": f.default,
                    "choices": list(choices.get(f.name, ())) or None,
                    "help": helps.get(f.name, "").replace("``", "")})
    return out


def all_switches() -> dict[str, list[dict]]:
    return {game: rule_switches(game) for game in GAMES}
