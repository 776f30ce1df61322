"""Errors the referee raises for bad input or illegal actions."""


class RefereeError(ValueError):
    """Bad input: an unknown card, a wrong card count, an unknown switch...

    ``field`` names the offending request field (dotted path) where known, so the
    command line can tell the user exactly what to fix.
    """

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field

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
