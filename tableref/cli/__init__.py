"""The ``tableref`` command line.

Each group of subcommands lives in its own module exposing ``register(subparsers)``;
this module only collects them. A module that fails to import (for example an
optional dependency missing) is reported when its command is used, not at start.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

# OpenCV and FFmpeg print their own warnings (a camera that cannot be opened, a stream that refuses)
# on the terminal; the commands say what went wrong in their own words. Set either variable to see them.
os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")   # AV_LOG_QUIET

# (module, commands it provides) -- keep in sync with each module's register().
COMMAND_MODULES = [
    "tableref.cli.rules",   # marriage ..., desmoche ...
    "tableref.cli.train",     # dataset, train (training-data generator and model training)
    "tableref.cli.vision",    # detect, evaluate, bench-detect
    "tableref.cli.table",     # watch, simulate, markers
    "tableref.cli.zones",     # calibrate
    "tableref.cli.web",       # serve
]


def build_parser() -> argparse.ArgumentParser:
    from tableref.cli.options import OneLineParser

    parser = OneLineParser(
        prog="tableref",
        description="Referee and scorekeeper for Desmoche and Marriage played with real cards.",
    )
    from tableref import __version__

    parser.add_argument("--version", action="version", version=f"tableref {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # module not written yet
                continue
            raise
        mod.register(sub)
    _describe(parser)
    return parser


def _describe(parser: argparse.ArgumentParser) -> None:
    """A subcommand without its own description shows its one-line help at the top of --help."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                if not sub.description and helps.get(name):
                    text = helps[name]
                    sub.description = text[0].upper() + text[1:] + ("" if text.endswith(".") else ".")
                _describe(sub)


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        rc = args.func(args)
        sys.stdout.flush()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader of the output went away (`tableref watch | head`): stop quietly; stdout is
        # pointed at devnull so that Python's own flush at exit cannot fail again
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return int(rc or 0)


if __name__ == "__main__":
    sys.exit(main())
