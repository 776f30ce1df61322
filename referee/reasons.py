"""Reasons a player reads, with a stable key and parameters beside the English text.

A :class:`Reason` *is* the English text (a ``str``: every message, test and log keeps
working), and carries ``key`` and ``params`` so that an interface can say the same in
another language without reading the English (``tableref.web.i18n`` does). Parameters
are plain values: card names, player names, numbers, or another :class:`Reason`.
"""
from __future__ import annotations


class Reason(str):
    key: str
    params: dict

    def __new__(cls, key: str, text: str, **params):
        self = super().__new__(cls, text)
        self.key = key
        self.params = params
        return self

    def __getnewargs__(self):  # copy/pickle keep the key
        return (self.key, str(self))

    def to_json(self) -> dict:
        """``{"key": ..., "params": {...}}`` (nested reasons as the same kind of object)."""
        return {"key": self.key,
                "params": {k: v.to_json() if isinstance(v, Reason) else v for k, v in self.params.items()}}


def reason_json(text) -> dict | None:
    """The key and parameters of ``text`` when it is a :class:`Reason`, else None."""
    return text.to_json() if isinstance(text, Reason) else None
