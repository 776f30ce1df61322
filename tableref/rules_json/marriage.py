"""JSON requests for ``tableref marriage hand|settle`` -> referee.marriage calls.

Each handler takes the request dict and returns the response dict; bad input
raises :class:`referee.errors.RefereeError` naming the field.
"""
from __future__ import annotations

from collections import Counter

from tableref.referee.cards import parse_card, parse_cards
from tableref.referee.errors import RefereeError
from tableref.referee.marriage import PlayerScore, analyse_hand, build_rules, count_maal, settle
from tableref.referee.marriage.analysis import check_hand_cards, parse_tunnelas
from tableref.rules_json.jsonio import capitals


def _bool(request: dict, key: str, default: bool, field: str | None = None) -> bool:
    value = request.get(key, default)
    if not isinstance(value, bool):
        raise RefereeError(f"'{key}' must be true or false, got {value!r}", field or key)
    return value


def hand(request: dict) -> dict:
    if "tiplu" not in request:
        raise RefereeError("the request needs the 'tiplu' (e.g. \"JC\")", "tiplu")
    if "cards" not in request:
        raise RefereeError("the request needs 'cards' (the 21 or 22 cards of the hand)", "cards")
    for key in ("tiplu", "cards", "exposed_tunnelas"):
        capitals(request.get(key), key)
    rules = build_rules(request.get("rules"))
    seen = _bool(request, "seen", True)
    analysis = analyse_hand(request["tiplu"], request["cards"], request.get("exposed_tunnelas") or (),
                            seen=seen, rules=rules, players=request.get("players"))
    return analysis.to_json()


def _held_cards(cards, tunnelas, field):
    """Cards besides the exposed tunnelas (which ``cards`` may or may not include); at most 22 in all."""
    k = len(tunnelas)
    if len(cards) + 3 * k <= 22:
        return list(cards)
    rest = Counter(cards)
    for t in tunnelas:
        rest.subtract(t)
    if k and len(cards) <= 22 and min(rest.values()) >= 0:
        return list(rest.elements())
    raise RefereeError(f"a Marriage hand has at most 22 cards, got {len(cards) + 3 * k}", field)


#: the most maal a player may claim: far above what three packs can score (the host's entry on the page has the
#: same bound)
MAX_MAAL = 10_000


def _player(i: int, item, tiplu, rules, n_players: int) -> tuple[PlayerScore, dict]:
    field = f"players[{i}]"
    if not isinstance(item, dict):
        raise RefereeError("each player must be an object like {\"name\": \"p1\", \"maal\": 4, \"seen\": true}",
                           field)
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        raise RefereeError("every player needs a name (a string)", f"{field}.name")
    seen = _bool(item, "seen", True, f"{field}.seen")
    extra = {}
    maal = item.get("maal")
    if maal is not None and (isinstance(maal, bool) or not isinstance(maal, int) or not 0 <= maal <= MAX_MAAL):
        raise RefereeError(f"maal must be a whole number of points from 0 to {MAX_MAAL}, got {maal!r}",
                           f"{field}.maal")
    if "hand" in item or "exposed_tunnelas" in item:
        if tiplu is None:
            raise RefereeError("to count maal from a player's cards the request needs the 'tiplu'", "tiplu")
        capitals(item.get("hand"), f"{field}.hand")
        capitals(item.get("exposed_tunnelas"), f"{field}.exposed_tunnelas")
        cards = parse_cards(item.get("hand") or [], f"{field}.hand")
        tunnelas = parse_tunnelas(item.get("exposed_tunnelas"), f"{field}.exposed_tunnelas")
        held = _held_cards(cards, tunnelas, f"{field}.hand")
        everything = held + [c for t in tunnelas for c in t]
        check_hand_cards(tiplu, everything, f"{field}.hand")
        discard = []
        if len(everything) == 22:
            # maal is counted on the final 21 cards: the discard goes (the one that goes out
            # with the most maal, or else the one that costs least)
            analysis = analyse_hand(tiplu, held, tunnelas, seen=seen, rules=rules, players=n_players)
            counted, discard = analysis.maal_detail, [str(c) for c in analysis.spare]
        else:
            counted = count_maal(tiplu, held, tunnelas, seen=seen, rules=rules)
        if maal is not None and maal != counted.points:
            raise RefereeError(f"{name} claims {maal} maal but the cards given count {counted.points}",
                               f"{field}.maal")
        maal = counted.points
        extra = {"maal_items": counted.to_json(), "_cards": everything}
        if discard:
            extra["discard"] = discard
    elif maal is None:
        raise RefereeError(f"give {name}'s 'maal' (points) or their 'hand' (cards)", f"{field}.maal")
    return PlayerScore(name, maal, seen), extra


def settle_request(request: dict) -> dict:
    rules = build_rules(request.get("rules"))
    players = request.get("players")
    if not isinstance(players, list) or not players:
        raise RefereeError("'players' must be a list of players", "players")
    if not 2 <= len(players) <= 5:
        raise RefereeError(f"Marriage is for 2 to 5 players, got {len(players)}", "players")
    winner = request.get("winner")
    if not isinstance(winner, str):
        raise RefereeError("'winner' must be the name of the player who ended the hand", "winner")
    capitals(request.get("tiplu"), "tiplu")
    tiplu = parse_card(request["tiplu"], "tiplu") if request.get("tiplu") is not None else None
    scores, extras = [], []
    for i, item in enumerate(players):
        score, extra = _player(i, item, tiplu, rules, len(players))
        scores.append(score)
        extras.append(extra)
    all_cards = [c for e in extras for c in e.get("_cards", [])]
    if all_cards:
        check_hand_cards(tiplu, all_cards, "players")
    result = settle(winner, scores, dublee_win=_bool(request, "dublee_win", False), rules=rules)
    out = result.to_json()
    for p, e in zip(out["players"], extras):
        for key in ("maal_items", "discard"):
            if key in e:
                p[key] = e[key]
    return out


COMMANDS = {
    "hand": (hand, "analyse one hand: can it see the joker, can it go out (the arrangement), its maal"),
    "settle": (settle_request, "settle a finished hand: each player's payment to the winner and net"),
}
