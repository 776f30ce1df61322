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

from tableref.referee.cards import Card, SUITS
from tableref.referee.marriage.wild import Wild

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


def _rank_mask(pred) -> int:
    return sum(1 << (2 * i) for i in range(N_FACES) if pred(i % 13 + 1))


_LO_ALL = _rank_mask(lambda r: True)
_R_LE12, _R_LE11 = _rank_mask(lambda r: r <= 12), _rank_mask(lambda r: r <= 11)
_R_GE2, _R_GE3 = _rank_mask(lambda r: r >= 2), _rank_mask(lambda r: r >= 3)
_SUIT0 = sum(1 << (2 * i) for i in range(13))
_R_ACE, _R_KING, _R_QUEEN = _rank_mask(lambda r: r == 1), _rank_mask(lambda r: r == 13), _rank_mask(lambda r: r == 12)


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
        self.natural_lo = _LO_ALL & ~lo  # presence bits of the non-joker faces
        self.moves = [self._moves_for(i) for i in range(N_FACES)]
        # the same moves, for the all-wild search, as fast tuples:
        # (presence mask needed, packed cards to subtract, jokers used, needs three of a face, move)
        self.fast_moves = []
        for i in range(N_FACES):
            row = []
            for mv in self.moves[i]:
                if mv.uses_joker_face:
                    continue
                mask = 0
                for f in mv.faces:
                    mask |= 1 << (2 * f)
                delta = sum(1 << (2 * f) for f in mv.faces)
                row.append((mask, delta, mv.wild, len(set(mv.faces)) < len(mv.faces), mv))
            self.fast_moves.append(tuple(row))

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

    def jokers_needed(self, state: int, d: int) -> int:
        """A lower bound on the jokers the non-joker cards of ``state`` need.

        A card with no partner needs two jokers; a card that is in no natural
        combination (pure sequence, triplet, tunnela) needs a joker, which it can
        share with at most one other such card. ``d`` cards may be discarded instead.
        """
        pres = (state | (state >> 1)) & self.natural_lo
        tun = state & (state >> 1) & _LO_ALL
        near = (((pres >> 2) & _R_LE12) | ((pres >> 4) & _R_LE11) | ((pres << 2) & _R_GE2)
                | ((pres << 4) & _R_GE3) | ((pres >> 24) & _R_ACE) | ((pres >> 22) & _R_ACE)
                | ((pres << 24) & _R_KING) | ((pres << 22) & _R_QUEEN)
                | (pres >> 26) | (pres >> 52) | (pres >> 78) | (pres << 26) | (pres << 52) | (pres << 78) | tun)
        # natural sequences: windows r, r+1, r+2 (r <= 11) and Q-K-A
        win = pres & (pres >> 2) & (pres >> 4) & _R_LE11
        qka = pres & (pres >> 2) & (pres << 22) & _R_QUEEN
        covered = win | (win << 2) | (win << 4) | qka | (qka << 2) | (qka >> 22) | tun
        # triplets: the rank present in at least three suits
        a, b, c, e = pres & _SUIT0, (pres >> 26) & _SUIT0, (pres >> 52) & _SUIT0, (pres >> 78) & _SUIT0
        three = (a & b & c) | (a & b & e) | (a & c & e) | (b & c & e)
        covered |= (three & a) | ((three & b) << 26) | ((three & c) << 52) | ((three & e) << 78)
        alone = pres & ~near
        singles = (state & alone).bit_count() + 2 * ((state >> 1) & alone).bit_count()
        needy_faces = pres & ~covered & near
        needy = (state & needy_faces).bit_count() + 2 * ((state >> 1) & needy_faces).bit_count()
        if d >= singles:
            return max(0, needy - (d - singles) + 1) // 2
        return 2 * (singles - d) + (needy + 1) // 2

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
    With ``joker_spare_ok=False`` the spare cards must not be jokers.

    The pure combinations are chosen first among the few the hand holds (jokers as
    plain cards); the rest is then arranged with every joker wild, sharing one memo
    of failed states across all choices.
    """
    T = tables_for(tiplu)
    total = sum(_count(state, i) for i in range(N_FACES))
    if total != 3 * n_combos + n_discard or n_pure > n_combos:
        return None
    joker_all = T.joker_lo | T.joker_hi
    jokers_in = T.jokers_in
    jokers_needed = T.jokers_needed
    fast_moves = T.fast_moves
    failed: set = set()

    def rec(st: int, pool: int, d: int, c: int):
        """``st`` holds no joker faces; ``pool`` jokers are wild. Returns actions (reversed) or None."""
        if st == 0:
            return [] if (d == 0 or joker_spare_ok) else None
        key = (st, pool, d)
        if key in failed:
            return None
        # a card with no partner needs two jokers (or is the discard)
        if jokers_needed(st, d) > pool:
            failed.add(key)
            return None
        low = st & -st
        x = (low.bit_length() - 1) >> 1
        if c > 0:
            pres = (st | (st >> 1)) & _LO_ALL
            for mask, delta, wild, triple, mv in fast_moves[x]:
                if wild > pool or (pres & mask) != mask:
                    continue
                if triple and (st >> (2 * x)) & 3 != 3:
                    continue
                res = rec(st - delta, pool - wild, d, c - 1)
                if res is not None:
                    res.append(("combo", mv))
                    return res
        if d > 0:
            res = rec(st - (1 << (2 * x)), pool, d - 1, c)
            if res is not None:
                res.append(("discard", x))
                return res
        failed.add(key)
        return None

    if n_pure:
        # necessary condition, and it fills the shared memo: with every joker wild the
        # whole hand must arrange (a pure combination stays valid with wild jokers)
        jm = state & joker_all
        if rec(state - jm, jokers_in(jm), n_discard, n_combos) is None:
            return None
    cands = pure_candidates(state) if n_pure else []
    tried: set = set()

    def choose(st: int, start: int, k: int, chosen: list):
        if k == 0:
            if st in tried:
                return None
            tried.add(st)
            jm = st & joker_all
            res = rec(st - jm, jokers_in(jm), n_discard, n_combos - n_pure)
            if res is None:
                return None
            return chosen, jm, res
        for j in range(start, len(cands)):
            nst = _sub(st, cands[j])
            if nst is not None:
                if k > 1:
                    # the rest must still arrange with every joker wild (memoised, shared)
                    jm = nst & joker_all
                    if rec(nst - jm, jokers_in(jm), n_discard, n_combos - len(chosen) - 1) is None:
                        continue
                got = choose(nst, j, k - 1, chosen + [cands[j]])
                if got is not None:
                    return got
        return None

    found = choose(state, 0, n_pure, [])
    if found is None:
        return None
    chosen, jm, actions = found
    out = Finish()
    out.combos = [(list(faces), 0) for faces in chosen]
    out.pool = [i for i in range(N_FACES) for _ in range(_count(jm, i))]
    for act in reversed(actions):
        if act[0] == "discard":
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
