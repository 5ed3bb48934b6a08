"""Bad inputs of ``tealeaves sweep``, ``tealeaves compare`` and ``tealeaves report`` (and their API).

Each case asserts the exit status and message fragment (CLI, in-process) or the error class
and fragment (API).  Every refusal comes before any model is fitted, except where the
store itself is the problem.
"""

from __future__ import annotations

import sqlite3
import sys

import pytest

from tealeaves.errors import EmptyInputError, InputNotFoundError, ParameterError
from tealeaves.sweep import IncompatibleStoreError, load_results, sweep
from test_sweep_runs import lda_corpus, write_corpus


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A corpus file, a finished store over it, and a store over another corpus (other vocabulary)."""
    from tealeaves.cli import main

    root = tmp_path_factory.mktemp("bad")
    corpus = write_corpus(root / "c.txt", n_docs=60)
    other = write_corpus(root / "other.txt", n_docs=60, n_words=30, seed=9)
    runs = (("a", corpus, []), ("b", other, []), ("split", corpus, ["--split-seed", "4"]))
    for name, source, extra in runs:
        argv = ["sweep", str(source), "--k", "2", "3", "--seeds", "1", "-o", str(root / f"{name}.sqlite"),
                *extra]
        assert main(argv) == 0
    (root / "text.sqlite").write_text("not a database\n")
    sqlite3.connect(root / "foreign.sqlite").execute("CREATE TABLE t (x)").connection.commit()
    old = root / "old.sqlite"
    old.write_bytes((root / "a.sqlite").read_bytes())
    with sqlite3.connect(old) as conn:
        conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    return root


USAGE = [
    (["--k", "1"], "--n-components must be a whole number >= 2, got 1"),
    (["--k", "0", "5"], "--n-components must be a whole number >= 2, got 0"),
    (["--k", "2.5"], "--n-components must be a whole number >= 2"),
    (["--k"], "expected at least one argument"),
    (["--k", "2", "--seeds", "0"], "--seeds must be a whole number >= 1"),
    (["--k", "2", "--engine", "mallet"], "invalid choice"),
    (["--k", "2", "--test-fraction", "0"], "--test-fraction must be"),
    (["--k", "2", "--test-fraction", "1.5"], "--test-fraction must be"),
    (["--k", "2", "--test-fraction", "nan"], "--test-fraction must be"),
    (["--k", "2", "--workers", "0"], "--n-jobs must be a whole number >= 1"),
    (["--k", "2", "--top", "1"], "--n-top must be a whole number >= 2"),
    (["--k", "2", "--split-seed", "-1"], "seed must be a whole number >= 0"),
]


@pytest.mark.parametrize("extra, fragment", USAGE)
def test_sweep_usage_errors(extra, fragment, files, cli_error):
    cli_error(["sweep", files / "c.txt", "-o", files / "new.sqlite", *extra], fragment, code=2)


ERRORS = [
    (["--k", "5", "5"], "--n-components lists 5 more than once"),
    (["--k", "2", "3", "2"], "--n-components lists 2 more than once"),
    (["--k", "49"], "the training corpus has 48 documents, fewer than K=49"),
    (["--k", "2", "--engine", "gibbs", "--settings", '{"n_iters": 5}'],
     "engine 'gibbs' takes no setting n_iters"),
    (["--k", "2", "--measures", "bogus"], "measure='bogus' is not known"),
    (["--k", "2", "--measures", ","], "--measures lists no measure"),
    (["--k", "2", "--measures", "npmi,npmi"], "measures lists 'npmi' more than once"),
    (["--k", "2", "--settings", "{max_iter: 3}"], "--settings is not valid JSON"),
    (["--k", "2", "--settings", "[3]"], "--settings must be a JSON object"),
    (["--k", "2", "--settings", '{"n_topics": 3}'], "engine 'sklearn' takes no setting n_topics"),
    (["--k", "2", "--test", "c.txt", "--test-fraction", "0.3"], "--test and --test-fraction both given"),
    (["--k", "2", "--test-fraction", "0.001"], "leaves 0 test and 60 training documents"),
    (["--k", "2", "--reference", "missing.idx"], "does not exist"),
]


@pytest.mark.parametrize("extra, fragment", ERRORS)
def test_sweep_errors(extra, fragment, files, cli_error, monkeypatch):
    monkeypatch.chdir(files)
    cli_error(["sweep", "c.txt", "-o", files / "new.sqlite", *extra], fragment)
    assert not (files / "new.sqlite").exists()  # nothing was started


@pytest.mark.parametrize("output, fragment", [
    ("text.sqlite", "'{}' is not a tealeaves results store (not an SQLite file)"),
    ("foreign.sqlite", "is an SQLite file but not a tealeaves results store"),
    ("old.sqlite", "has schema version '99'; this tealeaves"),
    ("b.sqlite", "holds a sweep over other data or settings (differs in reference, test, train)"),
    ("missing/dir/r.sqlite", "does not exist"),
    (".", "is a folder"),
    ("/proc/tealeaves.sqlite", "/proc/tealeaves.sqlite"),
])
def test_sweep_refuses_an_output_it_cannot_use(output, fragment, files, cli_error, monkeypatch):
    monkeypatch.chdir(files)
    cli_error(["sweep", "c.txt", "--k", "2", "3", "--seeds", "1", "-o", output], fragment.format(output))


def test_resuming_with_other_settings_is_refused(files, cli_error):
    cli_error(["sweep", files / "c.txt", "--k", "2", "--seeds", "1", "-o", files / "a.sqlite",
               "--settings", '{"max_iter": 3}'], "holds sklearn-K2-s0 fitted with other settings")


@pytest.mark.parametrize("engine", ["gensim", "tomotopy"])
def test_a_missing_optional_engine_names_its_extra(engine, files, cli_error, monkeypatch):
    monkeypatch.setitem(sys.modules, engine, None)  # import fails as if not installed
    cli_error(["sweep", files / "c.txt", "--k", "2", "--engine", engine, "-o", files / "new.sqlite"],
              f"pip install 'tealeaves[{engine}]'")


def test_an_unreachable_dask_scheduler_is_an_error(files, cli_error):
    pytest.importorskip("distributed")
    cli_error(["sweep", files / "c.txt", "--k", "2", "--seeds", "1", "-o", files / "dask.sqlite",
               "--scheduler", "tcp://127.0.0.1:9"], "cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'")
    # before: an empty results store was left behind
    assert not [p.name for p in files.iterdir() if p.name.startswith("dask.sqlite")]


def test_an_unreachable_dask_scheduler_leaves_an_existing_store_as_it_was(files, tmp_path, cli_error):
    pytest.importorskip("distributed")
    store = tmp_path / "a.sqlite"
    store.write_bytes((files / "a.sqlite").read_bytes())
    before = load_results(store).models.to_dict("records")
    cli_error(["sweep", files / "c.txt", "--k", "2", "3", "4", "--seeds", "1", "-o", store,
               "--scheduler", "tcp://127.0.0.1:9"], "cannot reach the Dask scheduler", progress=True)
    assert load_results(store).models.to_dict("records") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.sqlite"]


K2 = ["--models", "sklearn-K2-s0", "sklearn-K2-s0"]
COMPARE = [
    (["a.sqlite", "b.sqlite", *K2], "have different vocabularies", 1),
    (["a.sqlite", "split.sqlite", *K2], "different held-out words", 1),
    (["a.sqlite", "--models", "sklearn-K2-s0", "sklearn-K9-s0"], "no model named 'sklearn-K9-s0'", 1),
    (["a.sqlite", *K2, "--measure", "umass"], "no per-topic 'umass'", 1),
    (["a.sqlite", "a.sqlite", "a.sqlite", "--models", "x", "y"], "one or two results stores, got 3", 1),
    (["text.sqlite", "--models", "x", "y"], "not a tealeaves results store (not an SQLite file)", 1),
    (["old.sqlite", "--models", "x", "y"], "has schema version '99'", 1),
    (["nothing.sqlite", "--models", "x", "y"], "does not exist", 1),
    (["a.sqlite", "--models", "x"], "expected 2 arguments", 2),
    (["a.sqlite", "--models", "x", "y", "--n-boot", "10"], "--n-boot must be a whole number >= 100", 2),
    (["a.sqlite", "--models", "x", "y", "--level", "1"], "--level must be", 2),
]


@pytest.mark.parametrize("argv, fragment, code", COMPARE)
def test_compare_errors(argv, fragment, code, files, cli_error, monkeypatch):
    monkeypatch.chdir(files)
    cli_error(["compare", *argv], fragment, code=code)


REPORT = [
    (["a.sqlite"], "the HTML report needs -o", 1),
    (["a.sqlite", "-o", "r.html", "--topic", "7"], "topic 7 is out of range for sklearn-K", 1),
    (["a.sqlite", "-o", "r.html", "--model", "gensim-K2-s0"], "no model named 'gensim-K2-s0'", 1),
    (["a.sqlite", "-o", "missing/r.html"], "missing", 1),
    (["foreign.sqlite", "-o", "r.html"], "is an SQLite file but not a tealeaves results store", 1),
    (["old.sqlite", "-o", "r.html"], "has schema version '99'", 1),
    (["text.sqlite", "-o", "r.html"], "not an SQLite file", 1),
    (["a.sqlite", "-o", "r.html", "--topic", "-1"], "--topic must be a whole number >= 0", 2),
    (["a.sqlite", "--format", "pdf"], "invalid choice", 2),
]


@pytest.mark.parametrize("argv, fragment, code", REPORT)
def test_report_errors(argv, fragment, code, files, cli_error, monkeypatch):
    monkeypatch.chdir(files)
    cli_error(["report", *argv], fragment, code=code)
    assert not (files / "r.html").exists()


def test_api_errors(files):
    corpus = lda_corpus(n_docs=30)
    out = files / "api.sqlite"
    with pytest.raises(ParameterError, match="seeds must be a whole number >= 1"):
        sweep(corpus, [2], seeds=0, output=out)
    with pytest.raises(ParameterError, match="seeds lists 3 more than once"):
        sweep(corpus, [2], seeds=[3, 3], output=out)
    with pytest.raises(ParameterError, match="no number of topics given"):
        sweep(corpus, [], output=out)
    with pytest.raises(ParameterError, match="unknown engine 'mallet'"):
        sweep(corpus, [2], engine="mallet", output=out)
    with pytest.raises(ParameterError, match="engine 'gibbs' takes no setting n_iters"):
        sweep(corpus, [2], engine="gibbs", settings={"n_iters": 0}, output=out)
    with pytest.raises(EmptyInputError):
        sweep(corpus, [2], test=corpus.subset([]), output=out)
    with pytest.raises(IncompatibleStoreError, match="schema version '99'"):
        load_results(files / "old.sqlite")
    with pytest.raises(InputNotFoundError):
        load_results(files / "none.sqlite")
    assert not out.exists()


def test_an_empty_corpus_file_is_refused(files, cli_error):
    (files / "empty.txt").write_text("")
    cli_error(["sweep", files / "empty.txt", "--k", "2", "-o", files / "new.sqlite"], "holds no line")


@pytest.mark.parametrize("extra, fragment, code", [
    (["--engine", "gibbs", "--n-threads", "0"], "--n-threads must be a whole number >= 1 and <= 256, got 0",
     2),
    (["--engine", "gibbs", "--n-threads", "1.5"], "--n-threads must be a whole number >= 1", 2),
    (["--engine", "gibbs", "--n-threads", "two"], "--n-threads must be a whole number >= 1", 2),
    (["--n-threads", "2"], "--n-threads applies to --engine gibbs only", 1),
    (["--engine", "gibbs", "--settings", '{"n_threads": "2"}'], "n_threads must be a whole number >= 1", 1),
    (["--engine", "gibbs", "--settings", '{"n_threads": 0}'], "n_threads must be a whole number >= 1", 1),
])
def test_sweep_bad_thread_count_refused(extra, fragment, code, files, cli_error, monkeypatch):
    monkeypatch.chdir(files)
    cli_error(["sweep", "c.txt", "--k", "2", "--seeds", "1", "-o", files / "new.sqlite", *extra], fragment,
              code=code)
    assert not (files / "new.sqlite").exists()
    with pytest.raises(ParameterError, match="n_threads"):
        sweep(lda_corpus(), [2], 1, "gibbs", files / "api.sqlite", settings={"n_threads": 1.5})
