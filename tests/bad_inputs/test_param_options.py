"""Options built from parameter declarations (``Param.check`` through ``add_param``): every declared option
of every command given odd text -- scientific notation, a list, empty, NaN, infinity, beyond 2**32, 5000
digits, hex, a NUL.  Each is refused as a usage error naming the option, or read as the number it spells;
never a non-finite number, never another exception."""

from __future__ import annotations

import argparse
import math

import pytest

from tealeaves.cli import build_parser

ODD = ["1e3", "5,5", "", "nan", "NaN", "inf", "-inf", "4294967296", "9" * 5000, "0x10", "2.0", "1e-400",
       "1e400", "-1", "0", "true", "\x00", "2 3", "--", "1/2"]


def _declared_options():
    def walk(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from walk(sub, (*path, name))
            elif callable(action.type) and action.type not in (str, int, float):
                yield path, action

    return list(walk(build_parser(), ()))


def test_every_option_type_refuses_or_reads_odd_text():
    options = _declared_options()
    assert len(options) > 40
    for path, action in options:
        for text in ODD:
            try:
                value = action.type(text)
            except (argparse.ArgumentTypeError, ValueError, TypeError):  # argparse's usage errors
                continue
            values = value if isinstance(value, (list, tuple)) else [value]
            assert all(math.isfinite(v) for v in values if isinstance(v, float)), (path, action.dest, text)


@pytest.mark.parametrize("argv, fragment", [
    (["coherence", "--n-top", "1e3"], "--n-top must be a whole number >= 2, got '1e3'"),
    (["coherence", "--n-top", "-0"], "--n-top must be a whole number >= 2, got 0"),
    (["coherence", "--n-top", "5,5"], "--n-top lists 5 more than once"),
    (["coherence", "--n-top", "5,,6"], "--n-top"),
    (["sweep", "--n-top", "5,5"], "--n-top must be a whole number >= 2, got '5,5'"),
    (["sweep", "-k", "5,5"], "--n-components must be a whole number >= 2, got '5,5'"),
    (["sweep", "--n-jobs", "0"], "--n-jobs must be a whole number >= 1 and <= 256, got 0"),
    (["sweep", "--n-jobs", "2.0"], "--n-jobs must be a whole number"),
    (["sweep", "--n-jobs", "0x10"], "--n-jobs must be a whole number"),
    (["pltm", "fit", "--seed", "4294967296"], "--seed must be a whole number >= 0 and <= 4294967295"),
    (["pltm", "fit", "--seed", "-1"], "--seed must be a whole number >= 0"),
    (["perplexity", "--n-samples", "1e3"], "--n-samples must be a whole number >= 1, got '1e3'"),
    (["perplexity", "--n-samples", ""], "--n-samples must be a whole number >= 1, got ''"),
    (["human", "build-study", "--seed", "nan"], "seed must be a whole number"),
    (["index", "build", "-j", "0"], "--n-jobs must be a whole number >= 1 and <= 1024, got 0"),
])
def test_declared_option_values(cli_error, argv, fragment):
    cli_error(argv, fragment, 2)
