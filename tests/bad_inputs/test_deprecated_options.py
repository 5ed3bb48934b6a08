"""Deprecated option spellings (hidden aliases, issue 19): given with the new spelling, twice, with a bad
value, without a value, abbreviated, as the only spelling of a required option, and in ``--help``.

Each case asserts the exit code and a message fragment (one ``tealeaves: error:`` line, no traceback).
A comment "before:" says what the case did before its fix."""

from __future__ import annotations

import argparse

import pytest

from conftest import write_text as _write
from tealeaves._cli_args import _DeprecatedAlias
from tealeaves.cli import build_parser

DEPRECATED = ("--out", "--top", "--k", "--workers", "--jobs", "--iterations", "--chains", "--samples",
              "--particles", "--temperatures", "--restarts", "--lsi", "--checks", "--measures", "--n-topics",
              "--burn-in")


def _parsers(parser, path=()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*path, name))
    yield path, parser


def _aliases():
    return [(path, alias) for path, parser in _parsers(build_parser()) for alias in parser._actions
            if isinstance(alias, _DeprecatedAlias)]


def test_every_listed_old_spelling_is_an_alias_somewhere():
    spellings = {s for _, a in _aliases() for s in a.option_strings}
    assert set(DEPRECATED) <= spellings


def test_help_lists_no_alias():
    for path, parser in _parsers(build_parser()):
        text = parser.format_help()
        hidden = {s for p, a in _aliases() if p == path for s in a.option_strings}
        own = {s for a in parser._actions if not isinstance(a, _DeprecatedAlias) for s in a.option_strings}
        for spelling in hidden - own:
            assert f"{spelling} " not in text and f"{spelling}," not in text, (path, spelling)


# -- the new and the old spelling together: refused, whatever the order and the values --------------------
@pytest.mark.parametrize("argv, fragment", [
    (["-o", "a.tlx", "--out", "b.tlx"], "argument --out: not allowed with"),
    (["--out", "b.tlx", "-o", "a.tlx"], "argument -o/--output: not allowed with"),
    (["--out", "a.tlx", "--output", "a.tlx"], "not allowed with"),
    (["-o", "a.tlx", "-j", "1", "--workers", "1"], "two spellings of one option"),  # before: --workers won
    (["-o", "a.tlx", "--workers", "2", "--n-jobs", "1"], "two spellings of one option"),  # before: -j won
])
def test_old_and_new_spelling_together_index_build(tmp_path, cli_error, monkeypatch, argv, fragment):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "d.txt", "the cat sat\n")
    cli_error(["index", "build", "d.txt", *argv], fragment, 2)
    assert not list(tmp_path.glob("*.tlx")) and not list(tmp_path.glob("*.db"))


@pytest.mark.parametrize("command, argv", [
    (["pltm", "fit"], ["--k", "2", "--n-topics", "3"]),  # two old spellings of one option
    (["pltm", "fit"], ["-k", "2", "--k", "2"]),
    (["pltm", "fit"], ["--n-iter", "2", "--iterations", "3"]),
    (["pltm", "fit"], ["--optimize-burn-in", "2", "--burn-in", "3"]),
    (["pltm", "fit"], ["--n-chains", "2", "--chains", "3"]),
    (["pltm", "fit"], ["-j", "2", "--jobs", "3"]),
    (["perplexity"], ["--samples", "2", "--particles", "3"]),
    (["perplexity"], ["--n-samples", "2", "--particles", "3"]),
    (["perplexity"], ["--n-temperatures", "3", "--temperatures", "3"]),
    (["sweep"], ["-k", "5", "--k", "6"]),
    (["sweep"], ["--n-top", "5", "--top", "6"]),
    (["sweep"], ["--workers", "2", "-j", "2"]),
    (["coherence"], ["--n-top", "5", "--top", "6"]),
    (["cnpmi"], ["--top", "5", "--n-top", "6"]),
    (["human", "correlate"], ["--measure-scores", "a.csv", "--measures", "b.csv"]),
    (["human", "build-study"], ["--n-checks", "1", "--checks", "2"]),
    (["reproduce", "five-term"], ["--n-restarts", "1", "--restarts", "2"]),
    (["reproduce", "reuters-coherence"], ["--lsi-dimensions", "1", "--lsi", "2"]),
])
def test_two_spellings_of_one_option_are_refused(cli_error, command, argv):
    cli_error([*command, *argv], "not allowed with", 2)


# -- an old spelling is checked exactly like the new one, and named -------------------------------------
@pytest.mark.parametrize("command, argv, fragment", [
    (["reproduce", "five-term"], ["--restarts", "0"], "argument --restarts: --n-restarts must be a whole"),
    (["reproduce", "reuters"], ["--k", "0"], "argument --k: --n-components must be a whole number >= 2"),
    (["reproduce", "reuters-coherence"], ["--top", "x"], "argument --top: --n-top must be a whole number"),
    (["reproduce", "reuters-coherence"], ["--lsi", "-1"], "--lsi-dimensions must be a whole number >= 1"),
    (["perplexity"], ["--samples", "0"], "--n-samples must be a whole number >= 1"),
    (["perplexity"], ["--particles", "1e3"], "--n-samples must be a whole number >= 1, got '1e3'"),
    (["perplexity"], ["--temperatures", "1"], "--n-temperatures must be a whole number >= 2"),
    (["perplexity"], ["--chains", "0"], "--n-chains must be a whole number >= 1"),
    (["coherence"], ["--top", "1"], "argument --top: --n-top must be a whole number >= 2"),
    (["human", "build-study"], ["--checks", "-1"], "--n-checks must be a whole number >= 0"),
    (["annotate", "build"], ["--checks", "x"], "--n-checks must be a whole number"),
    (["cnpmi"], ["--top", "0"], "--n-top must be a whole number >= 2"),
    (["pltm", "fit"], ["--k", "0"], "--n-components must be a whole number >= 1"),
    (["pltm", "fit"], ["--n-topics", "1.5"], "--n-components must be a whole number >= 1"),
    (["pltm", "fit"], ["--chains", "1000"], "--n-chains must be a whole number >= 1 and <= 100"),
    (["pltm", "fit"], ["--iterations", "0"], "--n-iter must be a whole number >= 1"),
    (["pltm", "fit"], ["--burn-in", "-1"], "--optimize-burn-in must be a whole number >= 0"),
    (["pltm", "fit"], ["--jobs", "0"], "--n-jobs must be a whole number >= 1 and <= 64"),
    (["pltm", "topics"], ["--top", "0"], "--n-top must be a whole number >= 1"),
    (["pltm", "infer"], ["--iterations", "-0"], "--n-iter must be a whole number >= 1"),
    (["estimator", "features"], ["--top", "1"], "--n-top must be a whole number >= 2"),
    (["sweep"], ["--k", "1"], "argument --k: --n-components must be a whole number >= 2"),
    (["sweep"], ["--top", "1"], "--n-top must be a whole number >= 2"),
    (["sweep"], ["--workers", "0"], "argument --workers: --n-jobs must be a whole number >= 1"),
    (["index", "build"], ["--workers", "x"], "argument --workers: --n-jobs must be a whole number"),
    (["index", "build"], ["--out="], "argument --out: -o must be a path, got ''"),
    (["index", "build"], ["--out"], "argument --out: expected one argument"),
    (["human", "correlate"], ["--measures"], "argument --measures: expected one argument"),
])
def test_old_spelling_with_a_bad_value(cli_error, command, argv, fragment):
    cli_error([*command, *argv], fragment, 2)


def test_old_spelling_twice_last_wins_like_the_new_one(tmp_path, run_cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "d.txt", "the cat sat\n")
    result = run_cli(["index", "build", "d.txt", "--out", "a.tlx", "--out", "b.tlx"])
    assert result.code == 0, result.err
    assert [p.name for p in tmp_path.glob("*.tlx")] == ["b.tlx"]
    assert result.err.count("--out is deprecated") <= 1  # one warning line per process and spelling


def test_required_option_given_only_by_its_old_spelling(tmp_path, run_cli, cli_error, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "d.txt", "the cat sat\n")
    assert run_cli(["index", "build", "d.txt", "--out", "a.tlx"]).code == 0
    assert (tmp_path / "a.tlx").is_file()
    cli_error(["index", "build", "d.txt"], "one of the arguments -o/--output is required", 2)


# -- abbreviations: off (a prefix silently meant another option) ----------------------------------------
@pytest.mark.parametrize("command, argv, fragment", [
    (["sweep"], ["--seed", "42"], "unrecognized arguments: --seed"),  # before: ran 42 seeds (--seeds)
    (["index", "build", "d.txt", "-o", "a.tlx"], ["--outp", "b.tlx"], "unrecognized arguments: --outp"),
    (["index", "build", "d.txt", "-o", "a.tlx"], ["--work", "2"], "unrecognized arguments: --work"),
    ([], ["--vers"], "unrecognized arguments: --vers"),
])
def test_abbreviated_options_are_refused(tmp_path, cli_error, monkeypatch, command, argv, fragment):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "d.txt", "the cat sat\n")
    required = ["c", "-k", "5", "-o", "s.db"] if command == ["sweep"] else []
    cli_error([*command, *required, *argv], fragment, 2)
    assert not list(tmp_path.glob("*.tlx")) and not list(tmp_path.glob("*.db"))



def test_no_parser_allows_abbreviations():
    # before: `pltm fit --n-t 5` meant --n-topics, `pltm topics --n-t 5` --n-top, `sweep --seed 42` --seeds
    assert all(not parser.allow_abbrev for _, parser in _parsers(build_parser()))
