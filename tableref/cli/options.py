"""What the command line's options take, checked as they are read: a usage error names the option in one line.

``type=whole(1)`` takes a whole number of 1 or more, ``type=seconds`` a finite number of
seconds above zero, and so on; argparse then says ``tableref watch: error: argument --every:
must be a whole number from 1 up, got '0'`` and exits with 2. :class:`OneLineParser`
keeps every usage error to that one line (``--help`` shows the usage). For what is found
after parsing, :func:`fail` says it in one line naming the option (:func:`option_of`), with
:func:`source_problem` and :func:`ledger_problem` for a camera source and a ledger file.
"""
from __future__ import annotations

import argparse
import errno
import math
import sys
from pathlib import Path


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr (exit status 2)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def whole(lo: int, hi: int | None = None):
    """An argparse type: a whole number from ``lo`` (to ``hi``)."""
    span = f"from {lo} to {hi}" if hi is not None else f"from {lo} up"

    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number {span}, got {text!r}") from None
        if value < lo or (hi is not None and value > hi):
            raise argparse.ArgumentTypeError(f"must be a whole number {span}, got {text!r}")
        return value

    parse.__name__ = "whole number"
    return parse


def above_zero(what: str):
    """An argparse type: a finite number above zero (``what`` says what it counts, for the message)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value <= 0:
            raise argparse.ArgumentTypeError(f"must be {what} above 0, got {text!r}")
        return value

    parse.__name__ = what
    return parse


seconds = above_zero("a number of seconds")
positive = above_zero("a number")


def source_problem(spec: str) -> str | None:
    """Why the camera source ``spec`` names nothing usable (a missing file...), or None.
    'demo' and 'phone' are always there; a camera or a stream is tried when the table starts."""
    from tableref import demo
    from tableref.vision.sources import SingleImageError, SourceError, open_source

    if demo.is_demo(spec):
        return None
    try:
        open_source(spec, start=False)
    except SingleImageError as exc:
        return f"{exc} (to read a photo: tableref detect {spec})"
    except SourceError as exc:
        return str(exc)
    return None


def ledger_problem(db, exc: OSError) -> str:
    """An OS error opening the ledger ``db``, said for a player (no ``[Errno ...]``)."""
    culprit = Path(exc.filename) if exc.filename else Path(db)
    if exc.errno in (errno.EEXIST, errno.ENOTDIR):
        why = f"{culprit} is a file, not a folder"
    elif exc.errno in (errno.EACCES, errno.EPERM):
        why = f"this user may not write in {culprit.parent}"
    elif exc.errno == errno.ENOENT:
        why = f"no file can be made in {culprit.parent}"
    elif exc.errno == errno.EROFS:
        why = f"{culprit.parent} is read-only"
    else:
        why = (exc.strerror or str(exc)).lower()
    return f"cannot open the ledger {db}: {why}"


#: the command-line option behind each setup field and other culprit (``tableref serve`` and ``watch``)
OPTIONS = {"game": "--game", "seats": "--seats", "players": "--players", "stake": "--stake",
           "point_value": "--point-value", "rules": "--rules", "source": "--source", "db": "--db",
           "host": "--host", "port": "--port", "zones": "--zones", "pin": "--pin"}


def option_of(field: str | None) -> str | None:
    """``"players[1]"`` -> ``"--players"``; None when no option sets the field."""
    if not field:
        return None
    return OPTIONS.get(str(field).split("[")[0].split(".")[0])


def named_option(field: str | None, args) -> str | None:
    """The option a setup problem is the user's doing of: a player count that was only given as
    ``--players`` (no ``--seats``) is said of ``--players``."""
    if field == "seats" and getattr(args, "seats", None) is None and getattr(args, "players", None):
        return "players"
    return field


def fail(command: str, message, field: str | None = None) -> int:
    """Say ``tableref COMMAND: --option: message`` on stderr in one line; the exit status 2."""
    option = option_of(field)
    text = " ".join(str(message).split())
    print(f"tableref {command}: {option + ': ' if option and not text.startswith(option) else ''}{text}",
          file=sys.stderr, flush=True)
    return 2
