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
import sys
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


# --------------------------------------------------------------------------------------------
# options with a checked value are built from a declaration (Param), so CLI and API cannot drift
# --------------------------------------------------------------------------------------------
#: Options argparse converts (``type=``) without a :class:`~tealeaves._params.Param`, each for a reason
#: (docs/naming.md, "Where the declarations live").  Keyed by option (or positional ``dest``).
NOT_FROM_A_PARAM = {
    "-o": "an output path checked by validation.check_path (not empty): no bounds to share",
    "--name": "a reference name checked by validation.check_name (one line, no control characters)",
    "model": "a positional path (perplexity MODEL)",
    "test": "a positional path (perplexity TEST)",
    "--figure": "the figure of the paper to reproduce: one of its numbers, not a parameter of a function",
    "--rich-unit": "a LANG=FILE pair of hao2018's rich unit, parsed by the command",
}


def test_options_with_a_checked_value_are_built_from_a_param(parser):
    """An option whose value argparse converts and checks is the option of a ``Param`` (``add_param``);
    the exceptions are listed above.  ``--level``, ``--port``, ``--seed``... cannot drift from the
    bounds the Python function checks."""
    problems = []
    for path, sub in commands(parser):
        for action in sub._actions:
            if isinstance(action, (*_OWN, _DeprecatedAlias)) or action.type is None:
                continue
            key = action.option_strings[0] if action.option_strings else action.dest
            if not hasattr(action, _cli_args.PARAM_ATTR) and key not in NOT_FROM_A_PARAM:
                kind = getattr(action.type, "__name__", action.type)
                problems.append(f"{' '.join(path)} {key}: type={kind} is not built from a Param (declare one "
                                "and use add_param)")
    assert not problems, "\n".join(problems)


def test_param_options_check_what_the_function_checks(parser):
    """The options of this issue's declarations refuse what the functions refuse, with the same bound."""
    from tealeaves.human.params import INDEX_BASE, LEVEL, PORT

    assert LEVEL.check(0.5) == 0.5
    for bad in (0, 1, 1.5):
        with pytest.raises(_params.ParameterError, match=r"level must be a number > 0 and < 1"):
            LEVEL.check(bad)
    with pytest.raises(_params.ParameterError, match=r"port must be a whole number >= 0 and <= 65535"):
        PORT.check(65536)
    with pytest.raises(_params.ParameterError, match=r"index_base must be a whole number >= 0 and <= 1"):
        INDEX_BASE.check(2)
    by_flag = {(" ".join(path), s): a for path, sub in commands(parser) for a in sub._actions
               for s in a.option_strings}
    for command, flag, name in [("human correlate", "--level", "level"), ("annotate serve", "--port", "port"),
                                ("human import", "--index-base", "index_base"), ("compare", "--seed", "seed"),
                                ("sweep", "--split-seed", "split_seed"), ("report", "--topic", "topic"),
                                ("coherence", "--pairs", "pairs"), ("perplexity", "--seed", "seed"),
                                ("reproduce reuters", "--split-seed", "split_seed")]:
        assert getattr(by_flag[(command, flag)], _cli_args.PARAM_ATTR) == name, (command, flag)


# --------------------------------------------------------------------------------------------
# library text never names a command-line option
# --------------------------------------------------------------------------------------------
SRC = Path(__file__).resolve().parent.parent / "src" / "tealeaves"
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")
#: Options of another program, which a library message may name: MALLET's (``mallet train-topics``).
FOREIGN_OPTIONS = {
    "models/adapters": {"--output-state", "--topic-word-weights-file", "--output-topic-keys",
                        "--output-doc-topics", "--beta"},
}
#: Modules whose string literals are a command line by design: the load test starts the server.
COMMAND_LINE_MODULES = {"human/_loadtest.py"}
#: Keyword arguments whose values are option spellings: ``Param(flag_name=..., deprecated_flags=...)``.
OPTION_KEYWORDS = {"flag_name", "deprecated_flags"}


def _is_command_module(path: Path) -> bool:
    return path.name == "cli.py" or path.name.endswith("_cli.py") or path.name.startswith("_cli_")


def _docstrings(tree) -> set[int]:
    import ast

    ids = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body:
            first = body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def _declaration_strings(tree) -> set[int]:
    """String constants that are option spellings by construction: ``Param(..., deprecated_flags=...)``
    values and the arguments of ``add_argument`` (an argparse helper outside a command module)."""
    import ast

    ids = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        parts = [k.value for k in node.keywords if k.arg in OPTION_KEYWORDS]
        if getattr(node.func, "attr", None) == "add_argument":
            parts += list(node.args)
        for part in parts:
            ids |= {id(n) for n in ast.walk(part) if isinstance(n, ast.Constant)}
    return ids


def library_option_names() -> list[str]:
    """``module:line: --flag`` of every option spelling in a string literal of a library module."""
    import ast

    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if _is_command_module(path) or rel in COMMAND_LINE_MODULES:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _docstrings(tree) | _declaration_strings(tree)
        foreign = set().union(*(v for k, v in FOREIGN_OPTIONS.items() if rel.startswith(k)))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
                found += [f"{rel}:{node.lineno}: {m}" for m in FLAG.findall(node.value) if m not in foreign]
    return found


def test_library_messages_name_parameters_not_options():
    """Library code speaks in Python parameter names; only command modules name options (docs/naming.md,
    "Messages").  The listed exceptions are other programs' options and option declarations."""
    assert library_option_names() == []


def test_the_option_scan_finds_an_option_in_a_message(tmp_path, monkeypatch):
    """The scan is not vacuous: a fix text naming ``--encoding`` in a library module is found."""
    module = tmp_path / "tealeaves" / "fake.py"
    module.parent.mkdir()
    module.write_text('"""Doc naming --allowed."""\n'
                      'from tealeaves._params import Param\n'
                      'X = Param("x", deprecated_flags=("--old-x",))\n'
                      'def f():\n'
                      '    raise ValueError("bad", fix="give --encoding latin-1")\n', encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "SRC", module.parent)
    assert library_option_names() == ["fake.py:5: --encoding"]


# --------------------------------------------------------------------------------------------
# the command line names the running command's options, only where a message marks a parameter
# --------------------------------------------------------------------------------------------
def _error(message, fix=None, *names):
    from tealeaves.errors import InputEncodingError, naming

    return naming(InputEncodingError(message, fix=fix), *names)


def test_a_parameter_span_becomes_the_option_only_when_the_command_has_it():
    from tealeaves._cli_args import cli_message

    exc = _error("'m.json' is not valid utf-8", ("give its encoding with `encoding` (e.g. "
                                                 "`encoding='latin-1'`)", "convert it to UTF-8"), "encoding")
    assert str(exc) == ("'m.json' is not valid utf-8 (give its encoding with `encoding` (e.g. "
                        "`encoding='latin-1'`), or convert it to UTF-8)")
    assert cli_message(exc, {"encoding": "--encoding"}) == (
        "'m.json' is not valid utf-8 (give its encoding with --encoding (e.g. --encoding latin-1), or "
        "convert it to UTF-8)")
    assert cli_message(exc, {"corpus": "CORPUS"}) == "'m.json' is not valid utf-8 (convert it to UTF-8)"


def test_a_common_word_is_not_taken_for_its_parameter():
    """``encoding``, ``documents``, ``kind``, ``scale`` are words: only the subject (the first word) and
    code spans name the parameter; a path holding the name is left alone."""
    from tealeaves._cli_args import cli_message

    options = {"encoding": "--encoding", "documents": "--documents", "kind": "--kind", "scale": "--scale"}
    exc = _error("documents '/data/documents.jsonl' has the wrong encoding for its kind of scale", None,
                 "documents", "encoding", "kind", "scale")
    assert cli_message(exc, options) == ("--documents '/data/documents.jsonl' has the wrong encoding for its "
                                         "kind of scale")
    exc = _error("the encoding is unknown", "name the `encoding`", "encoding")
    assert cli_message(exc, options) == "the encoding is unknown (name the --encoding)"
    # a span of a name the error does not list (a command line in backticks) is left as written
    exc = _error("see `tealeaves human score`", "or `kind`", "encoding")
    assert cli_message(exc, options) == "see `tealeaves human score` (or `kind`)"


def test_a_span_without_an_option_becomes_the_bare_name():
    from tealeaves._cli_args import cli_message

    exc = _error("`min_df=5` is above `max_df=2`", "lower `min_df`", "min_df", "max_df")
    assert cli_message(exc, {"min_df": "--min-df"}) == "--min-df 5 is above max_df=2 (lower --min-df)"


def test_the_running_command_is_the_innermost_sub_command(parser):
    from tealeaves._cli_args import command_options, running_parser

    index_build = command_options(running_parser(parser, ["index", "build", "a.txt", "-o", "x.tlx"]))
    assert index_build["encoding"] == "--encoding" and index_build["output"] == "--output"
    evaluate = command_options(running_parser(parser, ["evaluate", "c.txt", "--manifest", "m.json"]))
    assert "encoding" not in evaluate and "format" not in evaluate  # --format is how it prints
    assert evaluate["corpus"] == "CORPUS"
    coherence = command_options(running_parser(parser, ["coherence"]))
    assert coherence["format"] == "--topics-format"  # the topics file's format, not --format
    aligned = command_options(running_parser(parser, ["index", "build-aligned"]))
    assert aligned["lang_files"] == "--lang" and aligned["dumps"] == "--dump"
    assert aligned["inputs"] == "TUPLES"
