"""One vocabulary for the command line and the Python API (``docs/naming.md``).

* every option of every sub-command maps to a parameter of the same name (``--n-top`` <->
  ``n_top``) of the public functions the command calls (each command module's ``API`` table),
  or is one of the documented exceptions, which this test reads from ``docs/naming.md`` (so the
  document and the test cannot drift);
* every old spelling of an option still parses to what the new one gives, printing exactly one
  deprecation line; every old keyword argument still works, with one ``FutureWarning``.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import warnings
from pathlib import Path

import pytest

from tealeaves import _cli_args, _params, cli
from tealeaves._cli_args import _DeprecatedAlias

DOC = Path(__file__).resolve().parent.parent / "docs" / "naming.md"

#: Old keyword names now meaning another concept, their old meaning still recognised by its values
#: (docs/naming.md: ``build_study``'s ``documents`` is texts; row numbers are read as ``document_ids``).
REUSED_NAMES = {"documents"}

#: argparse's own actions, which are no parameter of anything.
_OWN = (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)


# --------------------------------------------------------------------------------------------
# the machinery: the parser tree, the API tables, the documented exceptions
# --------------------------------------------------------------------------------------------
def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """``(command path, parser)`` of every sub-command, recursively (each parser once)."""
    seen = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                if id(sub) not in seen:
                    seen.add(id(sub))
                    yield (*path, name), sub
                    yield from commands(sub, (*path, name))


def options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The parser's own options (not argparse's, not the deprecated hidden aliases)."""
    return [a for a in parser._actions
            if a.option_strings and not isinstance(a, (*_OWN, _DeprecatedAlias))]


def long_flag(action: argparse.Action) -> str:
    return next(s for s in action.option_strings if s.startswith("--"))


def api_table() -> dict[str, tuple[str, ...]]:
    """Every command module's ``API`` table: command path -> ``"module:name"`` of the functions it calls."""
    table: dict[str, tuple[str, ...]] = {}
    for name in cli.COMMAND_MODULES:
        for command, functions in getattr(importlib.import_module(name), "API", {}).items():
            assert command not in table, f"{command} declared twice"
            table[command] = tuple(functions)
    return table


def resolve(target: str):
    module, _, qualname = target.partition(":")
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def parameters(targets: tuple[str, ...]) -> set[str]:
    """The parameter names of the functions (a class: its constructor's)."""
    names: set[str] = set()
    for target in targets:
        names |= set(inspect.signature(resolve(target)).parameters)
    return names


def documented_exceptions() -> list[dict]:
    """The rows of the table under ``## Documented exceptions`` in docs/naming.md.

    Each row: ``options`` (the backticked ``--flags`` of the first cell), ``commands`` (backticked
    command paths in the first cell, empty: every command), ``python`` (identifiers in the second
    cell; empty for ``(none)``).
    """
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Documented exceptions", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not line.lstrip().startswith("|") or set(cells[0]) <= set("-: "):
            continue
        spans = re.findall(r"`([^`]+)`", cells[0])
        flags = [s for s in spans if s.startswith("-")]
        if not flags:
            continue  # the header row
        rows.append({"options": flags, "commands": [s for s in spans if not s.startswith("-")],
                     "python": [] if "(none)" in cells[1] else re.findall(r"`([A-Za-z_]\w*)", cells[1])})
    return rows


def excepted(flag: str, command: str, params: set[str], rows: list[dict]) -> bool:
    """Whether a documented exception allows ``flag`` in ``command`` (its Python name, if any, exists)."""
    for row in rows:
        if flag in row["options"] and (not row["commands"] or command in row["commands"]):
            return not row["python"] or bool(params & set(row["python"]))
    return False


@pytest.fixture(scope="module")
def parser():
    return cli.build_parser()


# --------------------------------------------------------------------------------------------
# every option maps to the parameter of the same name
# --------------------------------------------------------------------------------------------
def test_the_exceptions_table_is_read():
    rows = documented_exceptions()
    flags = {f for r in rows for f in r["options"]}
    assert {"--seed", "-k", "--format", "--debug", "--quiet"} <= flags
    assert next(r for r in rows if "--seed" in r["options"])["python"] == ["random_state"]
    assert next(r for r in rows if "--format" in r["options"])["python"] == []


def test_every_option_maps_to_a_parameter_of_the_same_name(parser):
    table, rows = api_table(), documented_exceptions()
    problems = []
    for path, sub in commands(parser):
        own = options(sub)
        if not own:
            continue
        command = " ".join(path)
        if command not in table:
            problems.append(f"{command}: no API entry (list the functions it calls in its cli module)")
            continue
        params = parameters(table[command])
        for action in own:
            flag = long_flag(action)
            name = flag[2:].replace("-", "_")
            if name not in params and not excepted(flag, command, params, rows):
                problems.append(f"{command} {flag}: no parameter {name!r} in {', '.join(table[command])} "
                                "and no documented exception in docs/naming.md")
    assert not problems, "\n".join(problems)


def test_every_api_entry_is_a_command(parser):
    paths = {" ".join(path) for path, _ in commands(parser)}
    assert set(api_table()) <= paths


def test_every_documented_exception_is_an_option(parser):
    flags = {s for _, sub in commands(parser) for a in sub._actions for s in a.option_strings}
    flags |= {s for a in parser._actions for s in a.option_strings}
    rows = documented_exceptions()
    assert {f for r in rows for f in r["options"]} - flags == set()


def test_short_options_are_the_documented_ones(parser):
    """``-o`` is ``--output``, ``-k`` ``--n-components`` and ``-j`` ``--n-jobs``, wherever they appear."""
    short = {"-o": "--output", "-k": "--n-components", "-j": "--n-jobs"}
    for path, sub in commands(parser):
        for action in options(sub):
            for s in action.option_strings:
                if not s.startswith("--") and s != "-h":
                    assert short.get(s) == long_flag(action), (path, action.option_strings)


# --------------------------------------------------------------------------------------------
# old option spellings: hidden aliases that warn once
# --------------------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch):
    """Each test sees the first use of an old spelling (the warnings are once per process)."""
    monkeypatch.setattr(_cli_args, "_WARNED", set())
    monkeypatch.setattr(_params, "_WARNED", set())


DEPRECATION = re.compile(r"^tealeaves: warning: (\S+) is deprecated and will be removed; use (\S+)$")


def deprecation_lines(err: str) -> list[tuple[str, str]]:
    return [m.groups() for line in err.splitlines() if (m := DEPRECATION.match(line))]


def _filler(action: argparse.Action) -> list[str]:
    """A value argparse accepts for a required option or positional (the parse is never run)."""
    if action.nargs == 0:
        return []
    value = str(action.choices[0] if action.choices else "2")
    return [value] * action.nargs if isinstance(action.nargs, int) else [value]  # compare --models A B


def _required(sub: argparse.ArgumentParser, skip: str) -> list[str]:
    argv = []
    for a in sub._actions:
        if a.dest == skip or isinstance(a, (*_OWN, _DeprecatedAlias)):
            continue
        if not a.option_strings:
            argv += _filler(a)
        elif a.required:
            argv += [a.option_strings[0], *_filler(a)]
    for group in sub._mutually_exclusive_groups:  # a required option with old spellings (one of them)
        first = group._group_actions[0]
        if group.required and first.dest != skip:
            argv += [first.option_strings[0], *_filler(first)]
    return argv


def _parse(sub: argparse.ArgumentParser, argv: list[str]):
    try:
        return sub.parse_args(argv)
    except SystemExit:
        return None


def aliases(parser):
    """``(command path, sub-parser, alias action)`` of every deprecated spelling."""
    for path, sub in commands(parser):
        for action in sub._actions:
            if isinstance(action, _DeprecatedAlias):
                yield path, sub, action


def test_there_are_aliases_to_check(parser):
    old = {s for _, _, a in aliases(parser) for s in a.option_strings}
    assert {"--top", "--k", "--workers", "--out", "--samples", "--chains", "--restarts", "--lsi"} <= old


def test_every_old_spelling_parses_as_the_new_one_with_one_warning(parser, capsys):
    checked = 0
    for path, sub, alias in aliases(parser):
        base = _required(sub, alias.dest)
        values = [[]] if alias.nargs == 0 else [["5"], ["0.9"], ["x.sqlite"], ["5,10"]]
        for value in values:
            new = _parse(sub, [*base, alias.new, *value])
            if new is not None:
                break
        assert new is not None, (path, alias.new)
        capsys.readouterr()
        for old in alias.option_strings:
            _cli_args._WARNED.clear()
            got = _parse(sub, [*base, old, *value])
            err = capsys.readouterr().err
            assert got == new, (path, old)
            assert deprecation_lines(err) == [(old, alias.new)], (path, old, err)
            checked += 1
    assert checked >= 15


def test_the_warning_is_printed_once_per_spelling(parser, capsys):
    sub = dict(commands(parser))[("reproduce", "reuters-coherence")]
    sub.parse_args(["--top", "5", "--top", "6", "--lsi", "3"])
    assert deprecation_lines(capsys.readouterr().err) == [("--top", "--n-top"), ("--lsi", "--lsi-dimensions")]


# --------------------------------------------------------------------------------------------
# whole commands run with old spellings: the same output, one deprecation line each
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def files(tmp_path_factory):
    from test_sweep_runs import write_corpus

    root = tmp_path_factory.mktemp("naming")
    corpus = write_corpus(root / "corpus.txt", n_docs=40)
    (root / "topics.txt").write_text("w1 w2 w3 w4 w5 w6\nw7 w8 w9 w10 w11 w12\n", encoding="utf-8")
    return root, corpus


def _run(argv, capsys) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_coherence_top_is_n_top(files, capsys):
    root, corpus = files
    base = ["coherence", "--reference", corpus, "--topics", root / "topics.txt", "--format", "json"]
    code, new, err = _run([*base, "--n-top", "5,6"], capsys)
    assert code == 0 and deprecation_lines(err) == []
    code, old, err = _run([*base, "--top", "5,6"], capsys)
    assert code == 0 and old == new and deprecation_lines(err) == [("--top", "--n-top")]


def test_sweep_and_report_old_spellings(files, capsys):
    import sqlite3

    root, corpus = files
    common = ["--seeds", "1", "--format", "json", "--settings", '{"max_iter": 2}']
    code, _, err = _run(["sweep", corpus, "-k", "2", "-j", "1", "--n-top", "5", "-o", root / "new.sqlite",
                         *common], capsys)
    assert code == 0 and deprecation_lines(err) == []
    code, _, err = _run(["sweep", corpus, "--k", "2", "--workers", "1", "--top", "5", "--out",
                         root / "old.sqlite", *common], capsys)
    assert code == 0
    assert sorted(deprecation_lines(err)) == [("--k", "--n-components"), ("--out", "--output"),
                                              ("--top", "--n-top"), ("--workers", "--n-jobs")]
    query = "SELECT name, settings, measures, doc_loglik FROM models"
    with sqlite3.connect(root / "new.sqlite") as a, sqlite3.connect(root / "old.sqlite") as b:
        assert a.execute(query).fetchall() == b.execute(query).fetchall()
    for flag in ("-o", "--output", "--out"):
        _cli_args._WARNED.clear()
        report = root / f"r{flag}.json"
        code, out, err = _run(["report", root / "new.sqlite", flag, report, "--format", "json"], capsys)
        assert code == 0 and deprecation_lines(err) == ([("--out", "--output")] if flag == "--out" else [])
        assert report.is_file()


# --------------------------------------------------------------------------------------------
# old keyword arguments: one FutureWarning, the same result
# --------------------------------------------------------------------------------------------
def _future_warnings(record) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, FutureWarning)]


def _same_with_old_keyword(func, old: dict, new: dict, *args):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        expected = func(*args, **new)
        assert _future_warnings(record) == []
        got = func(*args, **old)
    messages = _future_warnings(record)
    assert len(messages) == len(old), messages
    for key in old:
        assert sum(f"'{key}' is deprecated" in m for m in messages) == 1, messages
    return expected, got


def test_coherence_top_n_keyword():
    from tealeaves.coherence import Coherence, coherence

    topics = [["a", "b", "c"], ["c", "d", "e"]]
    docs = [["a", "b", "c", "d"], ["c", "d", "e"], ["a", "e", "b"]] * 3
    new, old = _same_with_old_keyword(coherence, {"top_n": 3}, {"n_top": 3}, topics, docs)
    assert new.to_dict() == old.to_dict()
    with pytest.warns(FutureWarning, match="'top_n' is deprecated"):
        assert Coherence("npmi", top_n=[2, 3]).n_top == [2, 3]
    with pytest.raises(_params.ParameterError, match="both 'top_n' and 'n_top'"):
        coherence(topics, docs, top_n=3, n_top=3)


def test_comparison_top_n_keyword():
    from tealeaves.comparison import inverted_rbo, topic_diversity

    topics = [["a", "b", "c"], ["c", "d", "e"], ["e", "f", "a"]]
    for func in (topic_diversity, inverted_rbo):
        new, old = _same_with_old_keyword(func, {"top_n": 3}, {"n_top": 3}, topics)
        assert new.value == old.value and str(new.signature) == str(old.signature)


def test_sweep_ks_workers_top_n_keywords(tmp_path):
    from tealeaves.sweep import sweep
    from test_sweep_runs import lda_corpus, stored

    corpus = lda_corpus(n_docs=40)
    common = {"seeds": 1, "settings": {"max_iter": 2}, "progress": False}
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        sweep(corpus, n_components=[2], output=tmp_path / "new.sqlite", n_top=5, n_jobs=1, **common)
        assert _future_warnings(record) == []
        sweep(corpus, ks=[2], output=tmp_path / "old.sqlite", top_n=5, workers=1, **common)
    messages = _future_warnings(record)
    assert len(messages) == 3 and all("sweep()" in m for m in messages), messages
    assert stored(tmp_path / "new.sqlite") == stored(tmp_path / "old.sqlite")


def test_gibbs_burn_in_is_optimize_burn_in():
    from tealeaves.models import GibbsLDA

    with pytest.warns(FutureWarning, match="'burn_in' is deprecated"):
        model = GibbsLDA(3, burn_in=7)
    assert model.optimize_burn_in == 7
    assert "optimize_burn_in" in inspect.signature(GibbsLDA).parameters
    assert "burn_in" in inspect.signature(GibbsLDA.transform).parameters  # another concept (docs/naming.md)


def test_renamed_keywords_point_at_real_parameters():
    """Every ``renamed_parameters`` table of a public function we own names a parameter it has."""
    targets = [t for functions in api_table().values() for t in functions]
    targets += ["tealeaves.models.lda_gibbs:GibbsLDA", "tealeaves.comparison.matching:match_topics",
                "tealeaves.comparison.stability:topic_stability", "tealeaves.report.html:write_report"]
    for target in targets:
        obj = resolve(target)
        func = obj.__init__ if inspect.isclass(obj) else obj
        for old, new in getattr(func, "__renamed_parameters__", {}).items():
            params = inspect.signature(obj).parameters
            assert new in params, (target, old, new)
            assert old not in params or old in REUSED_NAMES, (target, old, new)
