"""JSON requests for ``tableref desmoche hand|melds|settle`` (see docs/rules-desmoche.md).

Each handler takes the request dict and returns the response dict; bad input
raises :class:`referee.errors.RefereeError` naming the offending ``field``.

``hand`` -- request ``{"cards": [9 cards], "before_cambio": [9 cards] (optional),
"rules": {...}}``; response ``{"autowin": "peladilla" | "cuatro_cuerpos" | "color" |
null, "autowins": [...every kind shown...], "reason": str, "tiebreak": [ranks, ace 14],
"cards": [...], "side_games": {game: [cards] | null}}``. When both hands show an
automatic win of one kind the better for the tie-break is judged (``before_cambio``
true: the dealt one). ``side_games`` is judged on ``before_cambio`` when given (the
dealt cards), else on ``cards``.
Several players at once: ``{"players": [{"name": "p1", "cards": [...],
"before_cambio": [...]}, ...] (seats clockwise), "dealer": "p3", "rules": {...}}``
adds ``"winner"`` (ties resolved) and ``"players": [{"name", "autowin", ...}]``.

``melds`` -- request ``{"melds": [[cards in the order laid], ...], "rules": {...}}`` (one
player's table, at most 10 cards);
response ``{"valid": bool, "cards": int, "complete": bool, "problems": [str],
"disqualified": bool, "melds": [{"cards": [...], "kind": "run" | "set" | null,
"valid": bool, "in_order": bool, "reason": str | null}]}``.

``settle`` -- request::

    {"players": [{"name": "p1", "melds": [[...], ...], "dealt": [9 cards],
                  "cards": [9 cards]}, ...],   # cards: held after the Cambio (optional)
     "dealer": "p3",            # optional: ties in side games / automatic wins
     "winner": "p1",            # or null when the stock ran out
     "autowin": null,           # or "peladilla" | "cuatro_cuerpos" | "color"
     "stake": 1, "pot_carried": 0,
     "disqualified": ["p2"],    # optional
     "side_games": [{"game": "oro", "players": ["p1", "p2"], "stake": 1,
                     "winner": "p2"}],   # players default to all, stake to the
                                         # main stake, winner found from "dealt"
     "rules": {...}}

``players`` lists the seats clockwise around the table (a plain name string is
fine for a player with nothing on the table). An ``autowin`` is refused when
anyone has cards on the table, or when the winner's ``dealt`` cards (and
``cards`` after the Cambio) cannot show it; a note says so when it could not be
checked (no cards given, or only dealt cards that a Cambio card could change). Response: ``{"winner", "autowin",
"stake", "pot": {"carried_in", "antes", "to_winner", "carried_out"},
"bonuses": [{"bonus", "payer", "amount", "cards", "reason"}], "side_games":
[{"game", "players", "stake", "pot", "winner", "cards", "note"}], "net": {name:
points}, "players": [{"name", "ante", "table_cards", "bonuses_paid",
"bonuses_received", "disqualified", "net"}], "notes": [...]}``;
``sum(net) + pot.carried_out - pot.carried_in == 0``.
"""
from __future__ import annotations

import math
from decimal import Decimal

from tableref.referee.cards import full_pack, parse_cards
from tableref.referee.desmoche.autowin import (
    KINDS,
    autowins,
    best_autowin,
    cambio_could_show,
    explain,
    resolve,
    shows,
    tiebreak_key,
)
from tableref.referee.desmoche.melds import check_duplicates, check_table
from tableref.referee.desmoche.seats import check_seats, next_player, play_order
from tableref.referee.desmoche.settings import desmoche_settings
from tableref.referee.desmoche.settle import SideGame, settle_hand
from tableref.referee.desmoche.side_games import side_games_of
from tableref.referee.errors import RefereeError
from tableref.rules_json.jsonio import capitals, exact_amount

HAND_CARDS = 9
KNOWN_FIELDS = {
    "hand": {"cards", "before_cambio", "players", "dealer", "rules"},
    "melds": {"melds", "rules"},
    "settle": {"players", "dealer", "winner", "autowin", "stake", "pot_carried", "disqualified",
               "side_games", "rules"},
}


def _with_warnings(kind, request, response):
    """Unknown request fields are ignored, but said so (a typo like 'rule' would otherwise pass silently)."""
    unknown = sorted(k for k in request if k not in KNOWN_FIELDS[kind])
    if unknown:
        response["warnings"] = [f"unknown field '{k}' ignored" for k in unknown]
    return response


def _nine(value, field):
    if value is None:
        raise RefereeError(f"'{field}' is missing: give the {HAND_CARDS} cards of the hand", field)
    capitals(value, field)
    cards = parse_cards(value, field)
    if len(cards) != HAND_CARDS:
        raise RefereeError(f"a Desmoche hand has {HAND_CARDS} cards, got {len(cards)}", field)
    check_duplicates(cards, field)
    return cards


def _one_hand(cards, before, settings) -> dict:
    kind, shown = best_autowin(cards, settings, before)
    found = autowins(shown, settings)
    return {
        "autowin": kind,
        "autowins": found,
        "before_cambio": kind is not None and before is not None and shown == before and shown != cards,
        "reason": explain(kind, shown, settings),
        "tiebreak": list(tiebreak_key(kind, shown)) if kind else [],
        "cards": [str(c) for c in cards],
        "side_games": side_games_of(before if before is not None else cards, settings),
    }


def handle_hand(request: dict) -> dict:
    settings = desmoche_settings(request.get("rules"))
    if "players" in request and "cards" not in request:
        entries = request["players"]
        if not isinstance(entries, list):
            raise RefereeError("players must be a list", "players")
        names, results, claims = [], [], {}
        seen = []
        for i, e in enumerate(entries):
            if not isinstance(e, dict) or not isinstance(e.get("name"), str):
                raise RefereeError("each player needs a name and cards", f"players[{i}]")
            cards = _nine(e.get("cards"), f"players[{i}].cards")
            before = None
            if e.get("before_cambio") is not None:
                before = _nine(e["before_cambio"], f"players[{i}].before_cambio")
                _one_swap(cards, before, f"players[{i}].before_cambio")
            seen.extend(cards)
            r = _one_hand(cards, before, settings)
            r["name"] = e["name"]
            names.append(e["name"])
            results.append(r)
            if r["autowin"]:
                claims[e["name"]] = (r["autowin"], before if r["before_cambio"] else cards)
        check_seats(names)
        check_duplicates(seen, "players")
        dealer = request.get("dealer")
        if dealer is not None and dealer not in names:
            raise RefereeError(f"the dealer {dealer!r} is not one of the players", "dealer")
        winner = resolve(claims, play_order(names, dealer, settings))
        return _with_warnings("hand", request, {"winner": winner, "autowin": claims[winner][0] if winner else None,
                                                "players": results})
    cards = _nine(request.get("cards"), "cards")
    before = None
    if request.get("before_cambio") is not None:
        before = _nine(request["before_cambio"], "before_cambio")
        _one_swap(cards, before, "before_cambio")
    return _with_warnings("hand", request, _one_hand(cards, before, settings))


def _one_swap(after, before, field):
    """The Cambio changes one card: passed one, received one."""
    if len(set(before) - set(after)) > 1:
        raise RefereeError("the hand before the Cambio can differ from the hand after it by one card only", field)


def _melds(value, field):
    if not isinstance(value, list):
        raise RefereeError("melds must be a list of melds, each a list of cards in the order laid", field)
    out = []
    for i, m in enumerate(value):
        if not isinstance(m, list):
            raise RefereeError("each meld must be a list of cards in the order laid", f"{field}[{i}]")
        if not m:
            raise RefereeError("an empty meld: a meld is 3 or more cards laid together (leave it out)",
                               f"{field}[{i}]")
        capitals(m, f"{field}[{i}]")
        out.append(parse_cards(m, f"{field}[{i}]"))
    return out


def handle_melds(request: dict) -> dict:
    settings = desmoche_settings(request.get("rules"))
    if "melds" not in request:
        raise RefereeError("'melds' is missing: give a list of melds, each a list of cards", "melds")
    melds = _melds(request["melds"], "melds")
    flat = [c for m in melds for c in m]
    check_duplicates(flat, "melds")
    if len(flat) > 10:
        raise RefereeError(f"{len(flat)} cards: a player never has more than 10 cards on the table", "melds")
    return _with_warnings("melds", request, check_table(melds, settings).to_json())


MAX_POINTS = 10**9


def _points(request, key, default, field=None):
    """A number of points (an amount of money), exact: see :func:`exact_amount`."""
    v = request.get(key, default)
    if isinstance(v, Decimal):
        return v
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not 0 <= v <= MAX_POINTS:
        raise RefereeError(f"{key} must be a number of points from 0 to {MAX_POINTS}, got {v!r}", field or key)
    return exact_amount(v)


def handle_settle(request: dict) -> dict:
    settings = desmoche_settings(request.get("rules"))
    entries = request.get("players")
    if not isinstance(entries, list):
        raise RefereeError("players must be a list of the players, clockwise around the table", "players")
    names, melds, dealt, held = [], {}, {}, {}
    for i, e in enumerate(entries):
        if isinstance(e, str):
            e = {"name": e}
        if not isinstance(e, dict) or not isinstance(e.get("name"), str) or not e["name"]:
            raise RefereeError("each player needs a name", f"players[{i}]")
        name = e["name"]
        names.append(name)
        melds[name] = _melds(e.get("melds", []), f"players[{i}].melds")
        if e.get("dealt") is not None:
            dealt[name] = _nine(e["dealt"], f"players[{i}].dealt")
        if e.get("cards") is not None:
            held[name] = _nine(e["cards"], f"players[{i}].cards")
            if name in dealt:
                _one_swap(held[name], dealt[name], f"players[{i}].cards")
    check_seats(names)
    check_duplicates([c for ms in melds.values() for m in ms for c in m], "players")
    check_duplicates([c for cs in dealt.values() for c in cs], "players")
    for name, ms in melds.items():
        n = sum(len(m) for m in ms)
        if n > 10:
            raise RefereeError(f"{name} has {n} cards on the table: nobody holds more than 10",
                               f"players[{names.index(name)}].melds")
    stake = _points(request, "stake", 1)
    pot = _points(request, "pot_carried", 0)
    dealer = request.get("dealer")
    if dealer is not None and dealer not in names:
        raise RefereeError(f"the dealer {dealer!r} is not one of the players", "dealer")
    disq = request.get("disqualified", [])
    if not isinstance(disq, list) or any(d not in names for d in disq):
        raise RefereeError("disqualified must list names of players", "disqualified")
    side = []
    raw_side = request.get("side_games", [])
    if not isinstance(raw_side, list):
        raise RefereeError("side_games must be a list", "side_games")
    for i, sg in enumerate(raw_side):
        if isinstance(sg, str):
            sg = {"game": sg}
        if not isinstance(sg, dict) or "game" not in sg:
            raise RefereeError("each side game needs a 'game'", f"side_games[{i}]")
        players = sg.get("players", names)
        if (not isinstance(players, list) or not all(isinstance(p, str) for p in players)
                or len(set(players)) != len(players)):
            raise RefereeError("side game players must be a list of different names", f"side_games[{i}].players")
        sg_stake = _points(sg, "stake", stake, f"side_games[{i}].stake")
        side.append(SideGame(sg["game"], players, sg_stake, sg.get("winner")))
    winner = request.get("winner")
    claim = request.get("autowin")
    note = _check_autowin(claim, winner, names, melds, dealt, held, settings)
    s = settle_hand(names, winner=winner, stake=stake, pot_carried=pot, melds=melds,
                    autowin=claim, side_games=side, dealt=dealt, dealer=dealer,
                    disqualified=disq, settings=settings)
    if note:
        s.notes.append(note)
    return _with_warnings("settle", request, s.to_json())


def _check_autowin(kind, winner, names, melds, dealt, held, settings) -> str | None:
    """Refuse an automatic win the cards given do not show, or one claimed with cards on the table
    (automatic wins are declared before the first draw). Returns a note for the answer when the
    claim could not be checked, None when the cards show it."""
    if kind not in KINDS or winner not in names:
        return None                 # no claim, or one settle_hand refuses with its own message
    for i, name in enumerate(names):
        n = sum(len(m) for m in melds[name])
        if n:
            raise RefereeError(f"an automatic win ends the hand before the first draw, when nobody has cards on "
                               f"the table, but {name} has {n}", f"players[{i}].melds")
    hands = {"dealt": dealt.get(winner), "cards": held.get(winner)}
    given = {key: cards for key, cards in hands.items() if cards is not None}
    if not given:
        return (f"the automatic win ({kind}) was not checked: no cards of {winner} were given "
                f"(give 'dealt', and 'cards' after the Cambio, to check it)")
    if any(shows(kind, cards, settings) for cards in given.values()):
        return None
    what = " nor ".join(f"players[{names.index(winner)}].{key}" for key in given)
    if "cards" in given:
        raise RefereeError(f"{winner} claims {kind} but the cards given ({what}) do not show it", "autowin")
    giver = next(p for p in names if next_player(names, p, settings) == winner)
    others = {c for p, cs in dealt.items() if p != giver for c in cs}
    incoming = dealt[giver] if giver in dealt else [c for c in full_pack() if c not in others]
    if not cambio_could_show(kind, dealt[winner], incoming, settings):
        raise RefereeError(f"{winner} claims {kind} but the dealt cards ({what}) do not show it, and no card "
                           f"received in the Cambio could make it", "autowin")
    return (f"the automatic win ({kind}) was not checked: {winner}'s dealt cards do not show it, but the card "
            f"received in the Cambio could make it (give {winner}'s 'cards' after the Cambio to check it)")


COMMANDS = {
    "hand": (handle_hand, "automatic win of a 9-card hand (peladilla, cuatro cuerpos, color) and its side-game cards"),
    "melds": (handle_melds, "check a player's table melds (runs, sets, laying order, 10-card win)"),
    "settle": (handle_settle, "settle a hand: pot, carry-over, bonuses, side games, net per player"),
}
