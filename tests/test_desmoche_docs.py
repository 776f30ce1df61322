"""docs/rules-desmoche.md names every switch with its default, every side game and every bonus."""
import dataclasses
from pathlib import Path

from tableref.referee.desmoche.settings import DesmocheSettings
from tableref.referee.desmoche.side_games import GAMES

DOC = (Path(__file__).resolve().parent.parent / "docs" / "rules-desmoche.md").read_text(encoding="utf-8")


def test_every_switch_and_default_documented():
    for f in dataclasses.fields(DesmocheSettings):
        default = f.default
        shown = str(default).lower() if isinstance(default, bool) else str(default)
        row = [line for line in DOC.splitlines() if line.startswith(f"| `{f.name}` |")]
        assert row, f"switch {f.name} missing from the table of switches"
        assert f"`{shown}`" in row[0], f"default of {f.name} not shown"
        for choice in DesmocheSettings.CHOICES.get(f.name, ()):
            assert f"`{choice}`" in row[0]


def test_every_side_game_and_bonus_documented():
    for g in GAMES:
        assert f"`{g}`" in DOC
    for word in ("Mico", "Arriba del Palo", "Peladilla", "Cuatro cuerpos", "Color", "Cambio"):
        assert word in DOC
