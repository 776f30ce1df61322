"""Exact search: can a hand see the joker, can it go out, and how.

Cards are held as a count vector over the 52 faces packed into one integer, two
bits per face (three packs: at most 3 copies). The going-out search always takes
the lowest remaining face and decides its fate: it starts a combination with
higher faces (and jokers), it is discarded, or -- for a joker -- it goes into the
wild pool. Jokers may be "borrowed" from the pool before the joker card itself
has been reached (the pool count goes negative and must be repaid by jokers still
in the hand). States that failed are memoised, so the search is exact and fast.

A joker used as itself in a combination matters only in pure combinations
(tunnela, pure sequence, marriage), which are needed to have seen the joker;
everywhere else the same combination is also made with the joker as a wild card.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

from ..cards import Card, SUITS
from . import combos
from .wild import Wild

N_FACES = 52


def face_index(card: Card) -> int:
    return SUITS.index(card.suit) * 13 + card.rank - 1


def face_card(index: int) -> Card:
    return Card(index % 13 + 1, SUITS[index // 13])


FACES = [face_card(i) for i in range(N_FACES)]


def pack(counts: Counter) -> int:
    """Count vector (Counter of Card) -> packed int, 2 bits per face."""
    state = 0
    for card, k in counts.items():
        if k:
            state += k << (2 * face_index(card))
    return state


def _count(state: int, i: int) -> int:
    return (state >> (2 * i)) & 3


# ---------------------------------------------------------------- pure combos

def _pure_windows() -> list[tuple[int, int, int]]:
    out = []
    for s in range(4):
        base = s * 13
        for r in range(1, 12):  # r..r+2, ranks 1..13
            out.append((base + r - 1, base + r, base + r + 1))
        out.append((base + 0, base + 11, base + 12))  # Q-K-A (ace high)
    return out


PURE_WINDOWS = _pure_windows()


def pure_candidates(state: int) -> list[tuple[int, ...]]:
    """All tunnelas and pure sequences (as face-index tuples) present in ``state``."""
    out = []
    for i in range(N_FACES):
        if _count(state, i) == 3:
            out.append((i, i, i))
    for w in PURE_WINDOWS:
        if _count(state, w[0]) and _count(state, w[1]) and _count(state, w[2]):
            out.append(w)
    return out


def _sub(state: int, faces: Sequence[int]) -> int | None:
    """Remove ``faces`` (with repetition) from ``state``; None if not available."""
    for i in faces:
        if (state >> (2 * i)) & 3 == 0:
            return None
        state -= 1 << (2 * i)
    return state


def find_pure(state: int, need: int) -> list[tuple[int, ...]] | None:
    """``need`` disjoint pure combinations (jokers as plain cards), or None."""
    if need <= 0:
        return []
    cands = pure_candidates(state)

    def rec(st, start, k):
        if k == 0:
            return []
        for j in range(start, len(cands)):
            nxt = _sub(st, cands[j])
            if nxt is not None:
                rest = rec(nxt, j, k - 1)
                if rest is not None:
                    return [cands[j]] + rest
        return None

    return rec(state, 0, need)


# ---------------------------------------------------------------- going out

@dataclass(frozen=True)
class _Move:
    faces: tuple[int, ...]   # natural faces used (lowest first)
    wild: int                # jokers used as wild cards
    pure: bool               # counts toward the three pure combinations
    uses_joker_face: bool    # a joker face used as itself (only useful when pure is needed)


class _Tables:
    """Per-tiplu move tables: for each face, the combinations it can start."""

    def __init__(self, tiplu: Card | None):
        self.wild = Wild(tiplu) if tiplu is not None else None
        self.is_joker = [bool(self.wild and self.wild.is_joker(face_card(i))) for i in range(N_FACES)]
        lo = hi = 0
        for i in range(N_FACES):
            if self.is_joker[i]:
                lo |= 1 << (2 * i)
                hi |= 2 << (2 * i)
        self.joker_lo, self.joker_hi = lo, hi
        self.moves = [self._moves_for(i) for i in range(N_FACES)]

    def _moves_for(self, x: int) -> list[_Move]:
        J = self.is_joker
        s, r = divmod(x, 13)
        r += 1
        base = s * 13
        moves = []
        # pure combinations first (they also satisfy the "seen" requirement)
        moves.append(_Move((x, x, x), 0, True, J[x]))
        seqs = []
        if r == 1:
            seqs += [(x, base + 1, base + 2), (x, base + 11, base + 12)]
        elif r <= 11:
            seqs.append((x, x + 1, x + 2))
        for f in seqs:
            moves.append(_Move(f, 0, True, any(J[i] for i in f)))
        if J[x]:
            return moves  # besides these, a joker face only goes into the wild pool
        # triplets of non-joker faces
        others = [t * 13 + r - 1 for t in range(s + 1, 4) if not J[t * 13 + r - 1]]
        for a in range(len(others)):
            for b in range(a + 1, len(others)):
                moves.append(_Move((x, others[a], others[b]), 0, False, False))
        # two natural cards + one joker
        partners = []
        if r == 1:
            partners += [base + 1, base + 2, base + 11, base + 12]
        else:
            partners += [base + r2 - 1 for r2 in (r + 1, r + 2) if r2 <= 13]
        partners += others
        for y in partners:
            if not J[y]:
                moves.append(_Move((x, y), 1, False, False))
        moves.append(_Move((x,), 2, False, False))
        return moves

    def jokers_in(self, state: int) -> int:
        return (state & self.joker_lo).bit_count() + 2 * (state & self.joker_hi).bit_count()


@lru_cache(maxsize=64)
def tables_for(tiplu: Card | None) -> _Tables:
    return _Tables(tiplu)


@dataclass
class Finish:
    """An arrangement found by :func:`find_finish` (face indices)."""

    combos: list[tuple[list[int], int]] = field(default_factory=list)  # (natural faces, wild count)
    pool: list[int] = field(default_factory=list)      # joker faces used as wild cards
    discards: list[int] = field(default_factory=list)  # natural faces discarded


def find_finish(state: int, tiplu: Card | None, n_combos: int, n_pure: int, n_discard: int,
                joker_spare_ok: bool = True) -> Finish | None:
    """Arrange ``state`` into ``n_combos`` combinations (at least ``n_pure`` pure) and
    ``n_discard`` spare cards. Requires ``3*n_combos + n_discard`` cards.
    With ``joker_spare_ok=False`` the spare cards must not be jokers."""
    T = tables_for(tiplu)
    total = sum(_count(state, i) for i in range(N_FACES))
    if total != 3 * n_combos + n_discard or n_pure > n_combos:
        return None
    failed: set = set()
    # pure combinations still needed must stay possible: check against the
    # candidates of the starting hand (cards only ever leave the state)
    cands = [(c, sum(1 << (2 * f) for f in c)) for c in pure_candidates(state)]
    pure_memo: dict = {}

    def pure_ok(st: int, k: int, start: int = 0) -> bool:
        if k == 0:
            return True
        key = (st, k, start)
        got = pure_memo.get(key)
        if got is None:
            got = False
            for j in range(start, len(cands)):
                faces, sub = cands[j]
                nst = _sub(st, faces)
                if nst is not None and pure_ok(nst, k - 1, j):
                    got = True
                    break
            pure_memo[key] = got
        return got

    moves_tab = T.moves
    is_joker = T.is_joker
    jokers_in = T.jokers_in

    def rec(st: int, pool: int, d: int, c: int, p: int):
        # returns list of actions (reversed) or None
        if st == 0:
            return [] if p == 0 and (d == 0 or joker_spare_ok) else None
        key = (st, pool, d, p)
        if key in failed:
            return None
        if p and not pure_ok(st, p):
            failed.add(key)
            return None
        low = st & -st
        x = (low.bit_length() - 1) >> 1
        one = 1 << (2 * x)
        if is_joker[x]:
            # into the wild pool
            res = rec(st - one, pool + 1, d, c, p)
            if res is not None:
                res.append(("pool", x))
                return res
        if c > 0:
            avail_j = pool + jokers_in(st)
            for mv in moves_tab[x]:
                if mv.uses_joker_face and p == 0:
                    continue
                nst = st
                ok = True
                for f in mv.faces:
                    if (nst >> (2 * f)) & 3 == 0:
                        ok = False
                        break
                    nst -= 1 << (2 * f)
                if not ok:
                    continue
                if mv.wild:
                    npool = pool - mv.wild
                    # jokers still available (pool + joker faces left) must cover the debt
                    if npool + jokers_in(nst) < 0:
                        continue
                else:
                    npool = pool
                res = rec(nst, npool, d, c - 1, p - 1 if (mv.pure and p) else p)
                if res is not None:
                    res.append(("combo", mv))
                    return res
        if d > 0 and not is_joker[x]:
            res = rec(st - one, pool, d - 1, c, p)
            if res is not None:
                res.append(("discard", x))
                return res
        failed.add(key)
        return None

    actions = rec(state, 0, n_discard, n_combos, n_pure)
    if actions is None:
        return None
    out = Finish()
    for act in reversed(actions):
        if act[0] == "pool":
            out.pool.append(act[1])
        elif act[0] == "discard":
            out.discards.append(act[1])
        else:
            out.combos.append((list(act[1].faces), act[1].wild))
    return out


def count_dublees(state: int) -> list[int]:
    """Faces held at least twice (each gives one dublee; three copies still give one)."""
    return [i for i in range(N_FACES) if _count(state, i) >= 2]


def materialise(finish: Finish, n_combos: int) -> tuple[list[list[Card]], list[Card]]:
    """Turn a :class:`Finish` into card lists: the combinations and the spare card(s).

    Jokers left in the pool after the search make whole combinations of three
    jokers first; any remaining joker is a spare card.
    """
    pool = [face_card(i) for i in finish.pool]
    melds = []
    for faces, w in finish.combos:
        melds.append([face_card(i) for i in faces] + [pool.pop() for _ in range(w)])
    while len(melds) < n_combos:
        melds.append([pool.pop(), pool.pop(), pool.pop()])
    spare = [face_card(i) for i in finish.discards] + pool
    return melds, spare
