"""Errors the referee raises for bad input or illegal actions.

An error's message may be a :class:`tableref.referee.reasons.Reason` (the English text
with a stable ``key`` and ``params``): an interface then says it in the player's
language without reading the English (the web page does, as it does for the
referee's reasons). :attr:`RefereeError.reason` gives it; a plain ``str`` message has none.
"""
from tableref.referee.reasons import Reason


class RefereeError(ValueError):
    """Bad input: an unknown card, a wrong card count, an unknown switch...

    ``field`` names the offending request field (dotted path) where known, so the
    command line can tell the user exactly what to fix.
    """

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field

    @property
    def reason(self) -> Reason | None:
        """The message's key and parameters (a :class:`Reason`), or None for an unkeyed message."""
        return self.message if isinstance(self.message, Reason) else None

    def to_json(self) -> dict:
        out = {"error": self.message}
        if self.field:
            out["field"] = self.field
        return out


class CardError(RefereeError):
    """A card that cannot be parsed, or an impossible set of cards."""


class SettingsError(RefereeError):
    """An unknown house-rule switch or a value it cannot take."""


class IllegalAction(RefereeError):
    """A move the rules forbid; the message explains why to a player."""
