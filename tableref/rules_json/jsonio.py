"""JSON request/response plumbing for the JSON subcommands.

A request is read from a file path or ``-`` (stdin); the response is printed as
one JSON object. Bad input exits with status 2 and ``{"error": ..., "field": ...}``
on stdout -- never a traceback.
"""
from __future__ import annotations

import json
import sys

from tableref.referee.errors import RefereeError

EXIT_BAD_INPUT = 2


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
    except (OSError, UnicodeDecodeError) as exc:
        raise RefereeError(f"cannot read request {source}: {exc}")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RefereeError(f"the request is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
    if not isinstance(data, dict):
        raise RefereeError("the request must be a JSON object")
    return data


def run_json_command(source: str, handler) -> int:
    """Read a request, call ``handler(request) -> dict``, print the result."""
    try:
        request = read_request(source)
        response = handler(request)
    except RefereeError as exc:
        print(json.dumps(exc.to_json(), ensure_ascii=False))
        return EXIT_BAD_INPUT
    print(json.dumps(response, ensure_ascii=False))
    return 0
