"""The table's setup as one checked value (:class:`TableSetup`), the one check that makes it, and the
players' default names.

Game, players, stake, money per point, house rules, camera source and label: ``tableref serve``,
``tableref watch``, the web page's setup form and the live session all go through
:func:`check_setup`; the live session takes the :class:`TableSetup` it gets as given. The games,
their seat counts and their house rules come from the registry (:mod:`tableref.games`) and are
checked by the referee's own builders. Every message is a :class:`Reason` (English text, ``key``
and ``params``) so that the page can say it in the player's language.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from tableref.games import GAMES, game as game_spec
from tableref.referee.errors import RefereeError
from tableref.referee.reasons import Reason

#: the players' names when nobody says (seat order); the demo clips use their own
DEFAULT_NAMES = ("Ana", "Beto", "Cris", "Dani", "Eva")
MAX_STAKE = 1_000_000
MAX_NAME = 24
MAX_POINT_VALUE = 1_000_000
SETUP_FIELDS = ("game", "seats", "players", "stake", "point_value", "rules", "source", "label")


class SetupError(RefereeError):
    """A setup (or other host request) that cannot be used; ``field`` names the culprit."""


def default_names(n: int, first=()) -> list[str]:
    """``n`` names (at most as many as there are default names): ``first`` (as many as fit), then the
    default names not taken."""
    names = list(first)[:n]
    return names + [x for x in DEFAULT_NAMES if x not in names][: n - len(names)]


@dataclass(frozen=True)
class TableSetup:
    """A checked setup (made by :func:`check_setup`, never by hand): ``rules`` is the full switch dict."""

    game: str
    players: tuple[str, ...]
    stake: int
    point_value: float
    rules: dict
    source: str
    label: str | None = None

    @property
    def seats(self) -> int:
        return len(self.players)

    def as_dict(self) -> dict:
        """The JSON form the ledger journals and the API answers."""
        out = {"game": self.game, "seats": self.seats, "players": list(self.players), "stake": self.stake,
               "point_value": self.point_value, "rules": dict(self.rules), "source": self.source}
        if self.label is not None:
            out["label"] = self.label
        return out


def validate_rules(game: str, rules) -> dict:
    """Validate with the referee's builder; return the full switch dict in force."""
    try:
        obj = game_spec(game).rules(rules or {}, "rules")
    except RefereeError as exc:
        raise SetupError(exc.message, exc.field or "rules") from None
    return dataclasses.asdict(obj)


def _int(value, field, lo, hi) -> int:
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or (isinstance(value, float) and not (math.isfinite(value) and value == int(value)))):
        raise SetupError(Reason("not_whole_number", f"'{field}' must be a whole number, got {value!r}",
                                field=field, value=repr(value)), field)
    value = int(value)
    if not lo <= value <= hi:
        raise SetupError(Reason("out_of_range", f"'{field}' must be between {lo} and {hi}, got {value}",
                                field=field, lo=lo, hi=hi, value=value), field)
    return value


def _names(players, seats: int) -> tuple[str, ...]:
    if not isinstance(players, (list, tuple)):
        raise SetupError(Reason("players_not_list", "'players' must be a list of names"), "players")
    if len(players) != seats:
        raise SetupError(Reason("players_count", f"'players' must name {seats} players (one per seat), got "
                                f"{len(players)}", seats=seats, n=len(players)), "players")
    clean: list[str] = []
    for i, name in enumerate(players):
        if not isinstance(name, str) or not name.strip():
            raise SetupError(Reason("player_needs_name", f"player {i + 1} needs a name", n=i + 1), f"players[{i}]")
        name = " ".join(name.split())
        if len(name) > MAX_NAME:
            raise SetupError(Reason("player_name_long", f"player {i + 1}'s name is too long (at most {MAX_NAME} "
                                    "characters)", n=i + 1, max=MAX_NAME), f"players[{i}]")
        if any(ch in name for ch in "<>\"'&\\") or not name.isprintable():
            raise SetupError(Reason("player_name_chars", f"player {i + 1}'s name may not contain < > \" ' & \\ or "
                                    "control characters", n=i + 1), f"players[{i}]")
        if name.casefold() in (c.casefold() for c in clean):
            raise SetupError(Reason("player_name_twice", f"two players are called {name!r}: names must differ",
                                    name=repr(name)), f"players[{i}]")
        clean.append(name)
    return tuple(clean)


def _point_value(pv) -> float:
    if isinstance(pv, str):
        try:
            pv = float(pv.replace(",", "."))
        except ValueError:
            raise SetupError(Reason("point_value_not_number", f"'point_value' must be a number, got {pv!r}",
                                    value=repr(pv)), "point_value") from None
    if (isinstance(pv, bool) or not isinstance(pv, (int, float)) or not math.isfinite(pv)
            or not 0 <= pv <= MAX_POINT_VALUE):
        raise SetupError(Reason("point_value_range", f"'point_value' must be a number from 0 to 1000000, got {pv!r}",
                                value=repr(pv)), "point_value")
    return float(pv)


def _source(source) -> str:
    if not isinstance(source, (str, int)) or isinstance(source, bool) or not str(source).strip():
        raise SetupError(Reason("bad_source", "'source' must be a camera index, a file, a folder or a stream URL"),
                         "source")
    source = str(source).strip()
    if len(source) > 500 or not source.isprintable():
        raise SetupError(Reason("source_chars", "'source' is too long or has control characters"), "source")
    return source


def check_setup(data, current: dict | TableSetup | None = None) -> TableSetup:
    """Check a setup request (merged over ``current``) into a :class:`TableSetup`, or raise SetupError.

    Without players, ``seats`` default names are used (:data:`DEFAULT_NAMES`); without seats, as
    many as the players named, the current seats, or the game's usual number."""
    if not isinstance(data, dict):
        raise SetupError(Reason("setup_not_object", "the setup must be a JSON object"))
    unknown = sorted(set(data) - set(SETUP_FIELDS))
    if unknown:
        raise SetupError(Reason("unknown_setup_field", f"unknown setup field '{unknown[0]}' (known: "
                                f"{', '.join(sorted(SETUP_FIELDS))})", name=unknown[0],
                                known=", ".join(sorted(SETUP_FIELDS))), unknown[0])
    cur = current.as_dict() if isinstance(current, TableSetup) else dict(current or {})
    game = data.get("game", cur.get("game", "desmoche"))
    if game not in GAMES:
        choices = " or ".join(repr(g) for g in GAMES)
        raise SetupError(Reason("bad_game", f"'game' must be {choices}, got {game!r}", choices=choices,
                                value=repr(game)), "game")
    spec = GAMES[game]
    lo, hi = spec.seats
    players = data.get("players", cur.get("players") if "seats" not in data or "players" in data else None)
    if "seats" in data:
        seats = _int(data["seats"], "seats", 0, 99)
    elif isinstance(players, (list, tuple)):
        seats = len(players)
    else:
        seats = int(cur.get("seats") or spec.default_seats)
    if not lo <= seats <= hi:
        raise SetupError(Reason("seat_count", f"{spec.title} is played by {lo} to {hi} players, not {seats}",
                                game=spec.title, lo=lo, hi=hi, seats=seats), "seats")
    names = _names(default_names(seats) if players is None else players, seats)
    stake = _int(data.get("stake", cur.get("stake", 1)), "stake", 1, MAX_STAKE)
    point_value = _point_value(data.get("point_value", cur.get("point_value", 1.0)))
    if "rules" in data:
        rules = data["rules"]
    elif game == cur.get("game"):
        rules = cur.get("rules") or {}
    else:
        rules = {}
    if rules is not None and not isinstance(rules, dict):
        raise SetupError(Reason("rules_not_object", "'rules' must be an object of house-rule switches",
                                field="rules"), "rules")
    rules = validate_rules(game, rules)
    source = _source(data.get("source", cur.get("source", "demo")))
    label = data.get("label", cur.get("label"))
    if label is not None and (not isinstance(label, str) or len(label) > 80):
        raise SetupError(Reason("short_text", "'label' must be a short text", field="label"), "label")
    return TableSetup(game, names, stake, point_value, rules, source, label)

