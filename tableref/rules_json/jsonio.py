"""JSON request/response plumbing for the JSON subcommands.

A request is read from a file path or ``-`` (stdin); the response is printed as
one JSON object, every amount of money exact (a Decimal printed as the number it is). Bad input -- a missing argument, text that is not JSON, ``NaN``
or ``Infinity`` or a number too large for a double (``1e400``), nesting too deep
to read, a card not written in capitals, an empty meld, anything the referee
refuses -- exits with status 2 and prints one line ``{"error": ..., "field": ...}``
on stdout, never a traceback.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from decimal import Decimal

from tableref.referee.errors import CardError, RefereeError

EXIT_BAD_INPUT = 2
MAX_DEPTH = 64  # no request of these commands nests deeper than a handful of levels


def _constant(name: str):
    raise RefereeError(f"the request is not valid JSON: {name} is not a number (give a finite number)")


class JsonFloat(float):
    """A JSON number written with a fraction or an exponent: a float that keeps the text it was
    written as, so that an amount of money is read exactly (:func:`exact_amount`)."""

    def __new__(cls, text: str):
        self = super().__new__(cls, text)
        self.text = text
        return self


def _finite(text: str) -> JsonFloat:
    value = JsonFloat(text)
    if not math.isfinite(value):
        raise RefereeError(f"the number {text[:40]} is too large (give a finite number)")
    return value


def exact_amount(value):
    """An amount of money from a request as an exact number: an int stays an int, a number with a
    fraction becomes the Decimal it was written as (``0.1`` is one tenth, not a binary fraction)."""
    if isinstance(value, float):
        return Decimal(value.text if isinstance(value, JsonFloat) else repr(value))
    return value


def dumps(value) -> str:
    """``json.dumps(value, ensure_ascii=False)``, with every Decimal written as the exact number it is
    (``0.80``, never ``0.7999999999999999``)."""
    if isinstance(value, Decimal):
        return format(value + 0, "f")            # + 0: no negative zero
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps({k: 0}, ensure_ascii=False)[1:-4]}: {dumps(v)}"
                               for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(dumps(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _depth_ok(text: str) -> bool:
    """Whether the JSON text nests brackets at most MAX_DEPTH deep (strings skipped)."""
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return False
        elif ch in "]}":
            depth -= 1
    return True


def read_request(source: str):
    """Return the parsed JSON request, or raise RefereeError."""
    try:
        if source == "-":
            text = sys.stdin.read()
        else:
            with open(source, encoding="utf-8") as fh:
                text = fh.read()
    except FileNotFoundError:
        raise RefereeError(f"request file not found: {source}")
    except IsADirectoryError:
        raise RefereeError(f"the request {source} is a folder, not a JSON file")
    except (OSError, UnicodeDecodeError) as exc:
        raise RefereeError(f"cannot read request {source}: {exc}")
    if not _depth_ok(text):
        raise RefereeError(f"the request nests lists or objects more than {MAX_DEPTH} deep")
    try:
        data = json.loads(text, parse_constant=_constant, parse_float=_finite)
    except json.JSONDecodeError as exc:
        raise RefereeError(f"the request is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
    except RecursionError:
        raise RefereeError("the request nests lists or objects too deep")
    if not isinstance(data, dict):
        raise RefereeError("the request must be a JSON object")
    return data


def capitals(value, field: str) -> None:
    """Refuse cards not written as the notation says (``10H``, ``AS``: rank and suit in capitals).

    ``value`` is a card, a list of cards (or a string of them), or lists of those.
    Anything else is left to the parser, which names what is wrong with it.
    """
    if isinstance(value, str):
        if any(ch.islower() for ch in value):
            raise CardError(f"unknown card {value!r}: write cards in capitals, e.g. {value.upper()!r}", field)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            capitals(item, f"{field}[{i}]")


def print_error(message: str, field: str | None = None) -> int:
    print(json.dumps(RefereeError(message, field).to_json(), ensure_ascii=False))
    return EXIT_BAD_INPUT


def run_json_command(source: str, handler) -> int:
    """Read a request, call ``handler(request) -> dict``, print the result."""
    try:
        request = read_request(source)
        response = handler(request)
    except RefereeError as exc:
        print(json.dumps(exc.to_json(), ensure_ascii=False))
        return EXIT_BAD_INPUT
    except RecursionError:
        return print_error("the request nests lists or objects too deep")
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError) as exc:
        # a shape of input no check foresaw: still one line of JSON, never a traceback
        return print_error(f"the request could not be used: {type(exc).__name__}: {exc}")
    print(dumps(response))
    return 0


class JsonArgumentParser(argparse.ArgumentParser):
    """An argument parser whose usage errors (a missing request, a missing action, an extra
    argument) are the JSON commands' one-line JSON error with status 2, not usage text."""

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:  # refused here, as JSON, rather than by the top-level parser as usage text
            self.error("unrecognized arguments: " + " ".join(extras))
        return namespace, extras

    def error(self, message: str):
        print_error(f"{self.prog}: {message} (usage: {self.format_usage().strip().removeprefix('usage: ')})")
        sys.exit(EXIT_BAD_INPUT)
