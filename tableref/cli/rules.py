"""``tableref marriage ...`` and ``tableref desmoche ...``: the JSON rules commands.

Each reads one JSON request from a file or ``-`` (stdin) and prints one JSON
response. Bad input exits with status 2 and ``{"error": ...}`` -- a bad command
line too (a missing request or action, an extra argument): these parsers answer
in JSON, not with usage text.
The request handlers live in ``tableref.rules_json.marriage`` and
``tableref.rules_json.desmoche``.
"""
from __future__ import annotations

import importlib

from tableref.games import GAMES
from tableref.rules_json.jsonio import JsonArgumentParser, run_json_command


def register(sub) -> None:
    for game, spec in GAMES.items():
        module_name, title = spec.json_commands, spec.description
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue
            raise
        gp = sub.add_parser(game, help=f"{title}: JSON rules commands",
                             description=f"{title}: each ACTION reads one JSON request (a file, or - for standard input) and prints one JSON answer; bad input exits 2 with {{\"error\": ...}}.")
        gp.__class__ = JsonArgumentParser  # its errors (no or unknown ACTION) as the one-line JSON error
        gsub = gp.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=JsonArgumentParser)
        for action, (handler, help_text) in module.COMMANDS.items():
            ap = gsub.add_parser(action, help=help_text, description=help_text)
            ap.add_argument("request", help="JSON request file, or - for standard input")
            ap.set_defaults(func=lambda args, h=handler: run_json_command(args.request, h))
