"""The CLI's error boundary: usage errors, missing files, --debug, closed pipes, interrupts."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tealeaves import cli


def test_unknown_command_is_a_usage_error(cli_error):
    cli_error(["no-such-command"], "invalid choice", code=2)


def test_bad_option_type_is_a_usage_error(cli_error, tmp_path):
    cli_error(["coherence", "--reference", str(tmp_path), "--topics", str(tmp_path), "--top", "x"],
              "--top", code=2)


def test_missing_model_file(cli_error, tmp_path):
    cli_error(["perplexity", str(tmp_path / "none.npz"), str(tmp_path / "none.txt")], "none.npz")


def test_internal_error_is_reported_as_a_bug(monkeypatch, run_cli):
    def boom(args):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(cli, "build_parser", lambda: _parser_running(boom))
    result = run_cli(["x"])
    assert result.code == cli.EXIT_INTERNAL
    assert "internal error: RuntimeError: kaboom" in result.err and "--debug" in result.err


def test_keyboard_interrupt(monkeypatch, run_cli):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", lambda: _parser_running(interrupted))
    result = run_cli(["x"])
    assert result.code == cli.EXIT_INTERRUPT and "interrupted" in result.err


def test_debug_shows_the_traceback(monkeypatch):
    def boom(args):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(cli, "build_parser", lambda: _parser_running(boom))
    with pytest.raises(RuntimeError, match="kaboom"):
        cli.main(["x", "--debug"])


def test_closed_pipe_is_quiet():
    """`tealeaves --help | head -1`: the reader leaves early; no traceback, no 'Exception ignored'."""
    proc = subprocess.run(f"{sys.executable} -m tealeaves index build --help | head -c 10", shell=True,
                          capture_output=True, text=True)
    assert proc.stderr == ""


def _parser_running(func):
    parser = cli.ArgumentParser(prog="tealeaves")
    parser.add_argument("x")
    parser.set_defaults(func=func)
    return parser


def test_error_messages_are_escaped(monkeypatch, run_cli):
    """A file name or value with a newline or an ANSI escape cannot forge a line on the terminal."""
    from tealeaves.errors import TealeavesError

    def forged(args):
        raise TealeavesError("bad file 'x\nLINK eve http://evil\x1b[2J'")

    monkeypatch.setattr(cli, "build_parser", lambda: _parser_running(forged))
    result = run_cli(["x"])
    assert result.code == cli.EXIT_ERROR
    assert result.err.count("\n") == 1 and "\x1b" not in result.err and "\\nLINK eve" in result.err
