"""The built-in demo: a filmed hand per game (``<game>.mp4``) and who played it (``<game>.json``).

``demo`` as a source means the clip of the game being played. The demo is for
trying tableref out: ``tableref serve`` keeps a demo table's hands in a
temporary ledger, never in the user's (see :mod:`tableref.table.service`).
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = "demo"


def is_demo(source) -> bool:
    """Is ``source`` the built-in demo clip?"""
    return str(source).strip() == SOURCE


def clip(game: str = "desmoche") -> Path | None:
    """The demo clip of ``game`` (falling back to Desmoche's), or None if it is not installed."""
    for name in (game, "desmoche"):
        p = HERE / f"{name}.mp4"
        if p.exists():
            return p
    return None


def setup(game: str = "desmoche") -> dict:
    """The players and seats the demo clip of ``game`` was filmed with (empty if unknown)."""
    try:
        return json.loads((HERE / f"{game}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
