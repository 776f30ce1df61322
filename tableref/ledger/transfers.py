"""The fewest transfers that settle a set of balances.

Balances are points per player summing to zero (positive: is owed money).

Method. The standard greedy rule -- the largest debtor pays the largest creditor
as much as one of them needs, repeat -- settles ``k`` non-zero balances in at most
``k - 1`` transfers. It is optimal exactly when no proper subgroup of players
already sums to zero: ``k`` balances that split into ``g`` groups each summing to
zero need only ``k - g`` transfers, and never fewer. So we first split the
players into the largest number of zero-sum groups (an exact search over subsets,
cheap for a card table: at most a dozen players, beyond that we fall back to a
single group) and then apply the greedy rule inside each group. The result is a
minimum number of transfers; ties are broken deterministically (by amount, then
name) so every phone shows the same list.
"""
from __future__ import annotations

EXACT_LIMIT = 12  # players with a non-zero balance for which the exact grouping is searched


def _zero_sum_groups(names: list[str], amounts: dict[str, int]) -> list[list[str]]:
    n = len(names)
    if n == 0:
        return []
    if n > EXACT_LIMIT:
        return [names]
    values = [amounts[x] for x in names]
    full = (1 << n) - 1
    sums = [0] * (1 << n)
    for mask in range(1, 1 << n):
        low = mask & -mask
        sums[mask] = sums[mask ^ low] + values[low.bit_length() - 1]
    # best[mask]: the most zero-sum "closings" along an ordering of mask's members.
    best = [0] * (1 << n)
    for mask in range(1, 1 << n):
        top = 0
        m = mask
        while m:
            low = m & -m
            m ^= low
            v = best[mask ^ low]
            if v > top:
                top = v
        best[mask] = top + (1 if sums[mask] == 0 else 0)
    # Walk back to recover an ordering, then cut it where prefix sums close at zero.
    order: list[int] = []
    mask = full
    while mask:
        target = best[mask] - (1 if sums[mask] == 0 else 0)
        m = mask
        while m:
            low = m & -m
            m ^= low
            if best[mask ^ low] == target:
                order.append(low.bit_length() - 1)
                mask ^= low
                break
    order.reverse()
    groups: list[list[str]] = []
    current: list[str] = []
    running = 0
    for i in order:
        current.append(names[i])
        running += values[i]
        if running == 0:
            groups.append(current)
            current = []
    if current:  # cannot happen when the balances sum to zero
        groups.append(current)
    return groups


def _greedy(group: list[str], amounts: dict[str, int]) -> list[dict]:
    left = {name: amounts[name] for name in group}
    out = []
    while True:
        creditors = sorted((x for x in left if left[x] > 0), key=lambda x: (-left[x], x))
        debtors = sorted((x for x in left if left[x] < 0), key=lambda x: (left[x], x))
        if not creditors or not debtors:
            break
        c, d = creditors[0], debtors[0]
        amount = min(left[c], -left[d])
        out.append({"from": d, "to": c, "points": amount})
        left[c] -= amount
        left[d] += amount
    return out


def fewest_transfers(balances: dict[str, int]) -> list[dict]:
    """Return ``[{"from": debtor, "to": creditor, "points": n}, ...]`` settling ``balances``.

    Raises ``ValueError`` if the balances do not sum to zero.
    """
    amounts = {str(k): int(v) for k, v in balances.items() if int(v) != 0}
    if sum(amounts.values()) != 0:
        raise ValueError(f"balances must sum to zero, they sum to {sum(amounts.values())}")
    names = sorted(amounts)
    out: list[dict] = []
    for group in _zero_sum_groups(names, amounts):
        out.extend(_greedy(group, amounts))
    out.sort(key=lambda t: (-t["points"], t["from"], t["to"]))
    return out
