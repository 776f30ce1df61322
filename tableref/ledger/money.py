"""Money in the ledger: whole cents (integers), shown as decimals, never binary floats.

A hand's points are whole numbers and the money per point is a whole number of
cents (``0.25``, ``1``, ``0.5``; not ``0.125``), so every amount of money the
ledger records is an exact number of cents. Sums, balances and transfers are
integer arithmetic; :func:`fmt` shows cents as ``"12.50"`` and :func:`decimal`
as a :class:`decimal.Decimal`.
"""
from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation

from tableref.ledger.errors import MoneyError
from tableref.referee.reasons import Reason

MAX_POINT_VALUE = Decimal(1_000_000)
CENT = Decimal("0.01")


def _not_amount(field: str, value) -> Reason:
    return Reason("money_not_amount", f"'{field}' must be an amount of money, got {value!r}", field=field,
                  value=repr(value))


def _not_finite(field: str, value) -> Reason:
    return Reason("money_not_finite", f"'{field}' must be a finite amount, got {value!r}", field=field,
                  value=repr(value))


def to_decimal(value, field: str = "point_value") -> Decimal:
    """``value`` (int, float, decimal text such as ``"0,5"``, Decimal) as an exact Decimal.

    A float is read by its shortest text (``0.1`` is ``Decimal("0.1")``, not the
    binary fraction behind it).
    """
    if isinstance(value, bool):
        raise MoneyError(_not_amount(field, value), field)
    try:
        if isinstance(value, Decimal):
            d = value
        elif isinstance(value, int):
            d = Decimal(value)
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise MoneyError(_not_finite(field, value), field)
            d = Decimal(repr(value))
        elif isinstance(value, str):
            d = Decimal(value.strip().replace(",", "."))
        else:
            raise MoneyError(_not_amount(field, value), field)
    except InvalidOperation:
        raise MoneyError(_not_amount(field, value), field) from None
    if not d.is_finite():
        raise MoneyError(_not_finite(field, value), field)
    return d


def point_value_cents(value, field: str = "point_value", strict: bool = True) -> int:
    """The money per point in cents. ``strict``: refuse fractions of a cent (else round half-even)."""
    d = to_decimal(value, field)
    if d < 0 or d > MAX_POINT_VALUE:
        raise MoneyError(Reason("money_range", f"'{field}' must be from 0 to {MAX_POINT_VALUE}, got {value!r}",
                                field=field, max=str(MAX_POINT_VALUE), value=repr(value)), field)
    cents = d * 100
    if cents != cents.to_integral_value():
        if strict:
            raise MoneyError(Reason("money_cents", f"'{field}' must be a whole number of cents (at most two "
                                    f"decimals), got {value!r}", field=field, value=repr(value)), field)
        cents = cents.to_integral_value()
    return int(cents)


def decimal(cents: int) -> Decimal:
    """Cents as a Decimal with two places: ``1250`` → ``Decimal("12.50")``."""
    return (Decimal(int(cents)) / 100).quantize(CENT)


def fmt(cents: int) -> str:
    """Cents as text with two decimals: ``-50`` → ``"-0.50"``."""
    return str(decimal(cents))


def split(total: int, weights: dict[str, int], order: list[str] | None = None) -> dict[str, int]:
    """Split the integer ``total`` in proportion to ``weights`` exactly (largest remainder).

    The shares sum to ``total``; leftover units go to the largest remainders,
    ties in ``order`` (default: the weights' order). Weights that are all zero
    split equally.
    """
    names = list(order or weights)
    w = {n: max(0, int(weights.get(n, 0))) for n in names}
    if not names:
        return {}
    if sum(w.values()) == 0:
        w = {n: 1 for n in names}
    sign = -1 if total < 0 else 1
    amount = abs(int(total))
    whole = sum(w.values())
    shares = {n: amount * w[n] // whole for n in names}
    left = amount - sum(shares.values())
    by_remainder = sorted(names, key=lambda n: (-(amount * w[n] % whole), names.index(n)))
    for n in by_remainder[:left]:
        shares[n] += 1
    return {n: sign * v for n, v in shares.items()}
