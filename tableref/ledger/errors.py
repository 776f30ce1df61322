"""The ledger's own errors: a request it refuses, an amount it cannot keep exactly, a file that is not a ledger.

Each message may be a :class:`tableref.referee.reasons.Reason` (the English text with a
stable ``key`` and ``params``) so that the page can say it in the player's language;
``field`` names the culprit where known. None of them is a referee's error: the ledger
keeps accounts, it does not judge cards.
"""
from __future__ import annotations


class LedgerError(ValueError):
    """A request the ledger refuses (a bad result, an unknown hand, a closed session...)."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field


class MoneyError(LedgerError):
    """An amount of money the ledger cannot keep exactly (not a number, out of range, not whole cents)."""


class SchemaError(RuntimeError):
    """The file is not a tableref ledger, or was written by a newer tableref."""
