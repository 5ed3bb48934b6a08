"""Harness for the bad-input suite: run the CLI in-process and assert the exact outcome.

Every case asserts a specific result: the exit status, ``tealeaves: error:`` with a message
fragment on stderr, and never a Python traceback; or, for the API, a specific
:class:`~tealeaves.errors.TealeavesError` subclass with a message fragment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from tealeaves.cli import main


@dataclass
class CliRun:
    """The outcome of one in-process ``tealeaves`` invocation."""

    code: int
    out: str
    err: str


@pytest.fixture
def run_cli(capsys, monkeypatch):
    """``run_cli(argv) -> CliRun``: run ``tealeaves argv`` in this process, capturing its output."""
    monkeypatch.delenv("TEALEAVES_DEBUG", raising=False)

    def run(argv: Sequence[str]) -> CliRun:
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse --help/usage errors exit through SystemExit
            code = exc.code if isinstance(exc.code, int) else 1
        captured = capsys.readouterr()
        assert "Traceback" not in captured.err, captured.err
        return CliRun(int(code), captured.out, captured.err)

    return run


@pytest.fixture
def cli_error(run_cli):
    """``cli_error(argv, fragment, code=1)``: assert a clean failure with ``fragment`` in the message."""

    def check(argv: Sequence[str], fragment: str, code: int = 1) -> CliRun:
        result = run_cli(argv)
        assert result.code == code, (result.code, result.err)
        assert result.err.startswith("tealeaves: error: "), result.err
        assert fragment.lower() in result.err.lower(), result.err
        assert "internal error" not in result.err, result.err
        return result

    return check
