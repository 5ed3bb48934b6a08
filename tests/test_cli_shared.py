"""``tealeaves._cli_shared``: a sub-command's parser, ``--help`` examples and function in one call."""

from __future__ import annotations

import argparse

from tealeaves._cli_shared import add_command, add_command_group


def _parser() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    top = argparse.ArgumentParser(prog="tealeaves")
    subparsers = top.add_subparsers(dest="command")
    sub = add_command_group(subparsers, "group", "group_command", "ACTION",
                            [("run it", "tealeaves group run")], help="a group")
    run = add_command(sub, "run", lambda args: 7, [("run it", "tealeaves group run"),
                                                   ("", "tealeaves group run --fast")], help="run")
    run.add_argument("--fast", action="store_true")
    return top, run


def test_add_command_sets_the_function_and_the_examples():
    top, run = _parser()
    args = top.parse_args(["group", "run", "--fast"])
    assert args.func(args) == 7 and args.fast
    assert run.epilog == "Examples:\n  # run it\n  tealeaves group run\n  tealeaves group run --fast"


def test_add_command_group_alone_prints_its_help_and_exits_2(capsys):
    top, _ = _parser()
    args = top.parse_args(["group"])
    assert args.func(args) == 2
    out = capsys.readouterr().out
    assert out.startswith("usage: tealeaves group") and "Example:\n  # run it\n  tealeaves group run" in out


def test_a_real_command_group_alone_exits_2_with_its_help(run_cli):
    result = run_cli(["data"])
    assert result.code == 2 and "tealeaves data fetch reuters21578" in result.out
