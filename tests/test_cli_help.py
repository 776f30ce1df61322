"""Every command's --help is clean: a description, help for each argument, no raw reST markup."""
from __future__ import annotations

import argparse

import pytest

from tableref.cli import build_parser


def _commands(parser, prefix=()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield prefix + (name,), sub
                yield from _commands(sub, prefix + (name,))


COMMANDS = list(_commands(build_parser()))


def test_the_commands_are_found():
    names = {" ".join(n) for n, _ in COMMANDS}
    assert {"serve", "simulate", "markers", "watch", "dataset build"} <= names


@pytest.mark.parametrize("name,parser", COMMANDS, ids=[" ".join(n) for n, _ in COMMANDS])
def test_help_is_clean(name, parser):
    text = parser.format_help()
    assert "``" not in text and ":func:" not in text, text
    assert parser.description, f"tableref {' '.join(name)} has no description"
    missing = [a.dest for a in parser._actions
               if not isinstance(a, (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction))
               and not a.help]
    assert not missing, f"tableref {' '.join(name)}: no help for {missing}"


def test_classifier_widths_are_six_positive_numbers(capsys):
    """``tableref train classifier --widths`` takes the trunk's six widths; anything else is a usage
    error with a plain message, not a traceback."""
    parser = build_parser()
    args = parser.parse_args(["train", "classifier", "--widths", "12,16,24,32,48,64"])
    assert args.widths == (12, 16, 24, 32, 48, 64)
    assert parser.parse_args(["train", "classifier"]).widths is None
    with pytest.raises(SystemExit):     # one trunk or the other
        parser.parse_args(["train", "classifier", "--slim", "--widths", "12,16,24,32,48,64"])
    assert "not allowed with" in capsys.readouterr().err
    for bad in ("12,16", "12,16,24,32,48,x", "12,16,24,32,48,0"):
        with pytest.raises(SystemExit):
            parser.parse_args(["train", "classifier", "--widths", bad])
        assert "six positive whole numbers" in capsys.readouterr().err
