"""Every ``--help`` page: a worked example that parses with the real parser, and help for every option.

The walk covers the top-level parser and every sub-command, as ``tests/test_naming.py`` does; the
first example of each page is run through ``parse_args`` (its ``tealeaves`` dropped), so an example
cannot go out of date when an option is renamed or removed.
"""

from __future__ import annotations

import argparse
import shlex

import pytest

from tealeaves import cli
from tealeaves._cli_args import _DeprecatedAlias

_OWN = (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)


def pages(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """``(command path, parser)`` of the top level and every sub-command, recursively."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from pages(sub, (*path, name))


def examples(parser: argparse.ArgumentParser) -> list[str]:
    """The command lines of the page's epilog (lines starting with ``tealeaves``)."""
    return [line.strip() for line in (parser.epilog or "").splitlines()
            if line.strip().startswith("tealeaves ")]


PAGES = list(pages(cli.build_parser()))


def test_every_page_is_walked():
    names = {" ".join(path) for path, _ in PAGES}
    assert {"", "coherence", "perplexity", "cnpmi", "compare", "human correlate", "pltm fit",
            "data list"} <= names
    assert len(names) > 40


@pytest.mark.parametrize("path,parser", PAGES, ids=[" ".join(p) or "tealeaves" for p, _ in PAGES])
def test_help_page_has_an_example_that_parses(path, parser, capsys):
    assert parser.epilog and parser.epilog.startswith(("Example:", "Examples:")), f"{path}: no examples"
    lines = examples(parser)
    assert lines, f"{' '.join(path)}: no `tealeaves ...` example line"
    help_text = parser.format_help()
    assert lines[0] in help_text  # the example keeps its layout (one line, not re-wrapped)
    argv = shlex.split(lines[0])[1:]
    assert argv[: len(path)] == list(path), f"the first example of '{' '.join(path)}' runs another command"
    for line in lines:  # every example parses, the first one above all
        argv = shlex.split(line)[1:]
        if argv == ["COMMAND", "--help"]:  # the top-level page's placeholder
            continue
        args = cli.build_parser().parse_args(argv)
        assert hasattr(args, "func"), line
    assert capsys.readouterr().err == ""  # no deprecation warning: examples use today's spellings


@pytest.mark.parametrize("path,parser", PAGES, ids=[" ".join(p) or "tealeaves" for p, _ in PAGES])
def test_every_option_has_help(path, parser):
    missing = [a.option_strings or [a.dest] for a in parser._actions
               if not isinstance(a, (*_OWN, _DeprecatedAlias)) and not (a.help or "").strip()]
    assert not missing, f"{' '.join(path)}: options without help: {missing}"


def test_quickstart_commands_parse(capsys):
    """Every ``tealeaves ...`` command of docs/quickstart.md (continued lines joined) parses with the real
    parser, so the quick start cannot go out of date when an option is renamed."""
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "quickstart.md").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in text.split("```bash\n")[1:]]
    commands = [line.strip() for b in blocks for line in b.replace("\\\n", " ").splitlines()
                if line.strip().startswith("tealeaves ")]
    assert len(commands) >= 4
    for line in commands:
        args = cli.build_parser().parse_args(shlex.split(line)[1:])
        assert hasattr(args, "func"), line
    assert capsys.readouterr().err == ""
