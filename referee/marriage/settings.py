"""Marriage house-rule switches (defaults from RULES.md).

Build them from a request's ``"rules"`` object with :func:`build_rules`; unknown
keys or values raise :class:`referee.errors.SettingsError` naming ``rules.<key>``.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from tableref.referee.errors import SettingsError
from tableref.referee.reasons import Reason
from tableref.referee.settings import build_settings


@dataclass(frozen=True)
class MarriageRules:
    #: play direction: "clockwise" (the seed) or "counterclockwise"
    direction: str = "clockwise"
    #: points for two tiplus (some tables use 8)
    tiplu_double: int = 7
    #: points for an exposed tunnela of poplus or of jhiplus (some tables use 15)
    maal_tunnela: int = 20
    #: maal of a player who never saw the joker: "zero", "count" or "kidnap" (to the winner)
    unseen_maal: str = "zero"
    #: fewest players at the table for the dublee route (many tables use 4)
    dublee_min_players: int = 2
    #: extra points each opponent pays when the winner went out with eight dublees
    dublee_bonus: int = 5
    #: the other card of the tiplu's rank and colour (the "alter") scores 5 points per card
    alter: bool = False
    #: "murder": a player who never saw the joker scores no maal (same as unseen_maal="zero")
    murder: bool = True
    #: the tiplu is shown at the deal (a procedure switch; it changes no verdict or score)
    open_joker: bool = False

    CHOICES = {
        "direction": ("clockwise", "counterclockwise"),
        "unseen_maal": ("zero", "count", "kidnap"),
    }

    @property
    def unseen(self) -> str:
        """The effective treatment of an unseen player's maal."""
        return self.unseen_maal


_ALIASES = {"anticlockwise": "counterclockwise", "counter-clockwise": "counterclockwise",
            "counter_clockwise": "counterclockwise", "anti-clockwise": "counterclockwise"}


def build_rules(data=None, field: str = "rules") -> MarriageRules:
    """Build :class:`MarriageRules` from a dict (or None for all defaults).

    ``murder`` and ``unseen_maal`` describe the same thing: ``murder: false``
    alone means ``unseen_maal: "count"``; giving ``unseen_maal`` alone sets
    ``murder`` to match; contradicting values are refused.
    """
    if isinstance(data, MarriageRules):
        return data
    if isinstance(data, dict):
        data = dict(data)
        if isinstance(data.get("direction"), str):
            data["direction"] = _ALIASES.get(data["direction"].lower(), data["direction"].lower())
    rules = build_settings(MarriageRules, data, field)
    given = data or {}
    for key in ("tiplu_double", "maal_tunnela", "dublee_bonus"):
        if getattr(rules, key) < 0:
            raise SettingsError(Reason("rule_negative", f"house rule '{key}' cannot be negative", rule=key),
                                f"{field}.{key}")
    if not 2 <= rules.dublee_min_players <= 5:
        raise SettingsError(Reason("rule_dublee_min_players",
                                   "house rule 'dublee_min_players' must be 2..5 (Marriage is for 2-5 players)"),
                            f"{field}.dublee_min_players")
    if "murder" in given and "unseen_maal" in given:
        if rules.murder != (rules.unseen_maal == "zero"):
            raise SettingsError(Reason(
                "rules_murder_contradict", f"house rules contradict: murder={str(rules.murder).lower()} but unseen_maal="
                f"{rules.unseen_maal!r} (murder means unseen_maal 'zero')", murder=str(rules.murder).lower(),
                unseen_maal=repr(rules.unseen_maal)), f"{field}.murder")
    elif "murder" in given:
        rules = replace(rules, unseen_maal="zero" if rules.murder else "count")
    else:
        rules = replace(rules, murder=rules.unseen_maal == "zero")
    return rules
