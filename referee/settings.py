"""Typed house-rule settings with validation of unknown keys and values.

Each game defines a frozen dataclass of switches (with the defaults of RULES.md)
and builds it from a request's ``"rules"`` object with :func:`build_settings`.
"""
from __future__ import annotations

import dataclasses
import typing

from tableref.referee.errors import SettingsError
from tableref.referee.reasons import Reason


def build_settings(cls, data, field: str = "rules", choices: dict | None = None):
    """Build dataclass ``cls`` from ``data`` (a dict or None).

    Unknown keys, wrong types and values outside ``choices[key]`` raise
    :class:`SettingsError` naming ``rules.<key>``.
    """
    if data is None:
        return cls()
    if isinstance(data, cls):
        return data
    if not isinstance(data, dict):
        raise SettingsError(Reason("rules_not_object", f"'{field}' must be an object of house-rule switches",
                                   field=field), field)
    choices = choices or getattr(cls, "CHOICES", {})
    fields = {f.name: f for f in dataclasses.fields(cls)}
    hints = typing.get_type_hints(cls)
    values = {}
    for key, value in data.items():
        if key not in fields:
            known = ", ".join(sorted(fields))
            raise SettingsError(Reason("unknown_rule", f"unknown house rule '{key}' (known: {known})", rule=key,
                                       known=known), f"{field}.{key}")
        hint = hints[key]
        if hint is bool:
            if not isinstance(value, bool):
                raise SettingsError(Reason("rule_not_bool", f"house rule '{key}' must be true or false, got {value!r}",
                                           rule=key, value=repr(value)), f"{field}.{key}")
        elif hint is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise SettingsError(Reason("rule_not_int", f"house rule '{key}' must be a whole number, got {value!r}",
                                           rule=key, value=repr(value)), f"{field}.{key}")
        elif hint is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise SettingsError(Reason("rule_not_number", f"house rule '{key}' must be a number, got {value!r}",
                                           rule=key, value=repr(value)), f"{field}.{key}")
            value = float(value)
        elif hint is str:
            if not isinstance(value, str):
                raise SettingsError(Reason("rule_not_text", f"house rule '{key}' must be a string, got {value!r}",
                                           rule=key, value=repr(value)), f"{field}.{key}")
        if key in choices and value not in choices[key]:
            allowed = ", ".join(repr(c) for c in choices[key])
            raise SettingsError(Reason("rule_choice", f"house rule '{key}' cannot be {value!r} (choose {allowed})",
                                       rule=key, value=repr(value), allowed=allowed), f"{field}.{key}")
        values[key] = value
    return cls(**values)
