"""Hand analysis: can the hand see the joker, can it go out, the arrangement, the maal."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

from tableref.referee.cards import Card, check_copies, parse_card, parse_cards
from tableref.referee.errors import CardError, RefereeError
from tableref.referee.reasons import Reason
from tableref.referee.marriage import combos
from tableref.referee.marriage.maal import Maal, count_maal
from tableref.referee.marriage.search import (
    count_dublees,
    face_card,
    face_index,
    find_finish,
    find_pure,
    materialise,
    pack,
)
from tableref.referee.marriage.settings import build_rules
from tableref.referee.marriage.wild import Wild

HAND_SIZE = 21


def _sort_meld(cards: list[Card], wild: Wild | None) -> list[Card]:
    """Naturals in rank order (Q-K-A with the ace last), wild cards after them."""
    kind = combos.natural_kind(cards)
    if kind is not None or wild is None:
        out = sorted(cards, key=lambda c: (c.suit, c.rank))
        if [c.rank for c in out] == [1, 12, 13]:
            out = out[1:] + out[:1]
        return out
    jokers = [c for c in cards if wild.is_joker(c)]
    naturals = sorted((c for c in cards if not wild.is_joker(c)), key=lambda c: (c.rank, c.suit))
    if len(naturals) == 2 and naturals[0].rank == 1 and naturals[1].rank >= 12:
        naturals = naturals[1:] + naturals[:1]
    return naturals + jokers


def parse_tunnelas(items, field: str = "exposed_tunnelas") -> list[list[Card]]:
    if items is None:
        return []
    if not isinstance(items, (list, tuple)):
        raise RefereeError(Reason("tunnelas_not_list", "exposed tunnelas must be a list of three-card lists"), field)
    out = []
    for i, t in enumerate(items):
        cards = parse_cards(t, f"{field}[{i}]")
        if len(cards) != 3 or not (cards[0] == cards[1] == cards[2]):
            got = " ".join(map(str, cards))
            raise RefereeError(Reason("tunnela_not_three", f"an exposed tunnela must be three identical cards, got {got}",
                                      cards=got), f"{field}[{i}]")
        out.append(cards)
    return out


def split_hand(cards: list[Card], tunnelas: list[list[Card]], sizes=(21, 22), field: str = "cards") -> list[Card]:
    """The cards held besides the exposed tunnelas.

    ``cards`` may either leave the exposed tunnelas out (then ``cards`` plus three
    per tunnela make the 21/22) or include them (then ``cards`` alone has 21/22
    cards and contains every tunnela); the two readings never clash.
    """
    n, k = len(cards), len(tunnelas)
    if n + 3 * k in sizes:
        return list(cards)
    if k and n in sizes:
        rest = Counter(cards)
        for t in tunnelas:
            rest.subtract(t)
        if min(rest.values(), default=0) >= 0:
            out = list(cards)
            for t in tunnelas:
                for c in t:
                    out.remove(c)
            return out
        held = " or ".join(str(s - 3 * k) for s in sizes)
        raise RefereeError(Reason("tunnelas_not_among", f"{n} cards given with {k} exposed tunnela(s) that are not "
                                  f"among them; give the cards in hand only ({held} cards) or all of them",
                                  n=n, k=k, held=held), field)
    want = " or ".join(str(s) for s in sizes)
    if k:
        held = " or ".join(str(s - 3 * k) for s in sizes)
        raise RefereeError(Reason("hand_size_tunnelas", f"a Marriage hand has {want} cards (or {held} besides the {k} "
                                  f"exposed tunnela(s)), got {n}", want=want, held=held, k=k, n=n), field)
    raise RefereeError(Reason("hand_size", f"a Marriage hand has {want} cards, got {n}", want=want, n=n), field)


def check_hand_cards(tiplu: Card, cards: Sequence[Card], field: str = "cards") -> None:
    """Three packs hold each card three times; one tiplu lies under the stock."""
    check_copies(cards, 3, field)
    k = sum(1 for c in cards if c == tiplu)
    if k > 2:
        raise CardError(Reason("tiplu_copies", f"impossible cards: {k} x {tiplu}, but the tiplu {tiplu} is one of its "
                               "three copies and lies under the stock, so at most two are in play", count=k,
                               tiplu=str(tiplu)), field)


def _discard_order(candidates, hand, tiplu, tunnelas, seen, rules, wild, first_only=False,
                   prefer=None) -> list[Card]:
    """The distinct ``candidates`` as discards, the one that leaves ``hand`` the most maal first.

    Maal scores only wild cards (tiplu, poplu, jhiplu; alter cards are of the
    tiplu's rank), so discarding a non-joker never lowers it and only jokers are
    counted one by one. Ties: cards ``prefer`` accepts first (e.g. cards outside
    the dublees), then non-jokers, then ordinary jokers, then by face.
    ``first_only``: just the best one (no counting when a preferred non-joker is there).
    """
    pref = prefer or (lambda c: True)
    if first_only:
        naturals = [c for c in candidates if not wild.is_joker(c) and pref(c)]
        if naturals:
            return [min(naturals, key=face_index)]
    full = None
    keyed = []
    for c in set(candidates):
        kind = wild.kind(c)
        if kind is None:
            if full is None:
                full = count_maal(tiplu, hand, tunnelas, seen=seen, rules=rules).points
            left = full
        else:
            rest = list(hand)
            rest.remove(c)
            left = count_maal(tiplu, rest, tunnelas, seen=seen, rules=rules).points
        keyed.append((-left, not pref(c), kind is not None, kind not in (None, "ordinary_joker"), face_index(c), c))
    keyed.sort()
    return [row[-1] for row in keyed[:1 if first_only else None]]


@dataclass
class HandAnalysis:
    tiplu: Card
    can_see_joker: bool
    can_finish: bool
    see_joker_by: str | None            # "combinations" | "dublees" | None
    finish_by: str | None               # "combinations" | "dublees" | None
    melds: list[list[Card]]
    meld_kinds: list[str]
    spare: list[Card]                   # the discard: the card left out of the final 21 (22-card hands)
    dublees: int
    maal: int                           # counted for settlement under the rules and ``seen``
    maal_counted: int                   # what the cards are worth when counted
    maal_detail: Maal
    maal_paid: bool
    seen: bool
    exposed_tunnelas: list[list[Card]] = field(default_factory=list)
    unmatched: list[Card] = field(default_factory=list)  # kept cards outside eight dublees (dublee finish)

    def to_json(self) -> dict:
        return {
            "can_see_joker": self.can_see_joker,
            "can_finish": self.can_finish,
            "melds": [[str(c) for c in m] for m in self.melds],
            "maal": self.maal,
            "maal_items": self.maal_detail.to_json() if self.maal_paid else [],
            "meld_kinds": self.meld_kinds,
            "discard": [str(c) for c in self.spare],
            "unmatched": [str(c) for c in self.unmatched],
            "see_joker_by": self.see_joker_by,
            "finish_by": self.finish_by,
            "dublees": self.dublees,
            "maal_counted": self.maal_counted,
            "maal_counted_items": self.maal_detail.to_json(),
            "seen": self.seen,
            "tiplu": str(self.tiplu),
            "jokers": {"tiplu": str(self.tiplu), "poplu": str(Wild(self.tiplu).poplu),
                       "jhiplu": str(Wild(self.tiplu).jhiplu),
                       "ordinary_jokers": [str(c) for c in Wild(self.tiplu).jokers()[:4] if c != self.tiplu]},
        }


def analyse_hand(tiplu, cards, exposed_tunnelas=(), seen: bool = True, rules=None,
                 players: int | None = None) -> HandAnalysis:
    """Analyse one Marriage hand; see the package docstring."""
    tiplu = parse_card(tiplu, "tiplu")
    cards = parse_cards(cards, "cards")
    tunnelas = parse_tunnelas(exposed_tunnelas if exposed_tunnelas else None)
    rules = build_rules(rules)
    if not isinstance(seen, bool):
        raise RefereeError(Reason("not_bool", "'seen' must be true or false", field="seen"), "seen")
    if players is not None and (isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 5):
        raise RefereeError(Reason("marriage_players", "'players' must be a whole number 2..5 (Marriage is for 2-5 "
                                  "players)"), "players")
    hand = split_hand(cards, tunnelas)
    everything = hand + [c for t in tunnelas for c in t]
    check_hand_cards(tiplu, everything)
    wild = Wild(tiplu)
    k = len(tunnelas)
    n_spare = len(everything) - HAND_SIZE
    state = pack(Counter(hand))
    dublee_ok = players is None or players >= rules.dublee_min_players
    dub_faces = count_dublees(state)
    n_dub = len(dub_faces) if dublee_ok else 0

    pure = find_pure(state, 3 - k)
    see_by = "combinations" if pure is not None else ("dublees" if n_dub >= 7 else None)

    melds: list[list[Card]] = []
    spare: list[Card] = []
    unmatched: list[Card] = []
    finish_by = None
    n_pure = max(0, 3 - k)

    def order(candidates, first_only=False, prefer=None):
        return _discard_order(candidates, hand, tiplu, tunnelas, seen, rules, wild, first_only, prefer)

    if pure is not None and k <= 7:
        fin = find_finish(state, tiplu, 7 - k, n_pure, n_spare)
        if fin is not None and len(fin.discards) < n_spare:
            # the discard found is a joker: a non-joker discard keeps every joker and all the maal
            better = find_finish(state, tiplu, 7 - k, n_pure, n_spare, joker_spare_ok=False)
            if better is None:
                # the discard must be a joker: the one that leaves the most maal and still goes out
                for c in order([c for c in hand if wild.is_joker(c)]):
                    better = find_finish(state - (1 << (2 * face_index(c))), tiplu, 7 - k, n_pure, 0)
                    if better is not None:
                        better.discards.append(face_index(c))
                        break
            fin = better or fin
        if fin is not None:
            found, spare = materialise(fin, 7 - k)
            found = [_sort_meld(m, wild) for m in found]
            found.sort(key=lambda m: 0 if combos.is_pure(combos.classify(m, wild)) else 1)
            melds = [list(t) for t in tunnelas] + found
            finish_by = "combinations"
    if finish_by is None and n_dub >= 8:
        dub_state = state
        if n_spare:
            # the discard must leave eight dublees in hand; among those cards, the one that costs least maal
            keep8 = [c for c in hand if len(count_dublees(state - (1 << (2 * face_index(c))))) >= 8]
            if keep8:
                held = Counter(hand)
                spare = order(keep8, first_only=True, prefer=lambda c: held[c] != 2)  # breaks no dublee
                dub_state = state - (1 << (2 * face_index(spare[0])))
        if not n_spare or spare:
            finish_by = "dublees"
            melds = [[face_card(i)] * 2 for i in count_dublees(dub_state)[:8]]
            unmatched = list(everything)
            for c in [c for m in melds for c in m] + spare:
                unmatched.remove(c)
    if finish_by is None:
        if pure is not None:
            melds = [list(t) for t in tunnelas] + [_sort_meld([face_card(i) for i in p], None) for p in pure]
        elif see_by == "dublees":
            melds = [[face_card(i)] * 2 for i in dub_faces[:7]]
        if n_spare:
            # not going out: the player would discard the card that costs least maal (not a shown one)
            shown = Counter(c for m in melds for c in m)
            loose = list((Counter(hand) - shown).elements()) or hand
            spare = order(loose, first_only=True)
    kinds = [combos.DUBLEE if len(m) == 2 else (combos.classify(m, wild) or "none") for m in melds]

    # maal is counted on the final hand: a 22-card hand keeps 21, the discard goes
    kept = list(hand)
    for c in spare:
        kept.remove(c)
    counted = count_maal(tiplu, kept, tunnelas, seen=seen, rules=rules)
    paid = seen or rules.unseen_maal == "count"
    return HandAnalysis(
        tiplu=tiplu, can_see_joker=see_by is not None, can_finish=finish_by is not None,
        see_joker_by=see_by, finish_by=finish_by, melds=melds, meld_kinds=kinds, spare=spare,
        dublees=len(dub_faces), maal=counted.points if paid else 0, maal_counted=counted.points,
        maal_detail=counted, maal_paid=paid, seen=seen, exposed_tunnelas=tunnelas, unmatched=unmatched,
    )
