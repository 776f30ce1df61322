"""Desmoche house-rule switches (defaults from RULES.md).

Build them from a request's ``"rules"`` object with :func:`desmoche_settings`;
unknown keys or values raise :class:`referee.errors.SettingsError` naming
``rules.<key>``.
"""
from __future__ import annotations

from dataclasses import dataclass

from tableref.referee.settings import build_settings

COUNTER_CLOCKWISE = "counter_clockwise"
CLOCKWISE = "clockwise"


@dataclass(frozen=True)
class DesmocheSettings:
    """The table's house rules for one hand of Desmoche.

    direction           ``counter_clockwise`` (default: deal, play, Cambio and claims go to
                        the player on the right) or ``clockwise``.
    strict_order        ``warn`` (default), ``disqualify`` or ``off``: runs laid ascending,
                        sets laid alternating colour.
    forced_meld         a discard that extends a table meld goes onto it unless an earlier
                        player claims it; the owner pays a card (default off).
    color_autowin       ``same_colour`` (default), ``same_suit`` or ``off``.
    automatic_wins      peladilla / cuatro cuerpos / color end the hand at once (default on;
                        the Honduran Conquién has none).
    jugar_todo          bonuses Mico, Arriba del Palo and Color are paid (default on).
    escalera_a23_high   in the escalera side game A-2-3 beats J-Q-K (default off).
    """

    direction: str = COUNTER_CLOCKWISE
    strict_order: str = "warn"
    forced_meld: bool = False
    color_autowin: str = "same_colour"
    automatic_wins: bool = True
    jugar_todo: bool = True
    escalera_a23_high: bool = False

    CHOICES = {
        "direction": (COUNTER_CLOCKWISE, CLOCKWISE),
        "strict_order": ("warn", "disqualify", "off"),
        "color_autowin": ("same_colour", "same_suit", "off"),
    }


_ALIASES = {
    "direction": {"ccw": COUNTER_CLOCKWISE, "counterclockwise": COUNTER_CLOCKWISE,
                  "anticlockwise": COUNTER_CLOCKWISE, "cw": CLOCKWISE},
    "color_autowin": {"same_color": "same_colour"},
}


def desmoche_settings(data=None, field: str = "rules") -> DesmocheSettings:
    """Validate a ``rules`` object (dict or None) into :class:`DesmocheSettings`."""
    if isinstance(data, dict):
        data = {k: _ALIASES.get(k, {}).get(v, v) if isinstance(v, str) else v for k, v in data.items()}
    return build_settings(DesmocheSettings, data, field)
