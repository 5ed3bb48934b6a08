"""Damaged and edge-case results stores, read by ``tealeaves report``, ``tealeaves compare``,
``load_results`` and ``load_model("STORE#MODEL")``.

Every store here is a real store written by ``tealeaves sweep`` (two models) and then edited with
SQL the way a disk, a crash or a hand would: each damage is refused by the one validator
(:mod:`tealeaves.store.validate`) with ``StoreIntegrityError`` naming the field, through the CLI
(exit 1, one ``tealeaves: error:`` line, no traceback) and the API; each documented value (a
``None`` score) is accepted.  Version 1 stores are read and refused as ``-o`` of a new sweep.
"""

from __future__ import annotations

import json
import math
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tealeaves.errors import IncompatibleStoreError, StoreIntegrityError
from tealeaves.models.adapters import load_model
from tealeaves.sweep import compare_models, load_results, sweep
from test_sweep_runs import lda_corpus, write_corpus

# issue 20's cases of this command: the CLI runs in a subprocess, as a user runs it
pytestmark = pytest.mark.cli_subprocess

A, B = "sklearn-K2-s0", "sklearn-K3-s0"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """A finished store of two models (K=2 and K=3), written by the command line."""
    from tealeaves.cli import main

    root = tmp_path_factory.mktemp("stores")
    corpus = write_corpus(root / "c.txt", n_docs=60)
    assert main(["sweep", str(corpus), "--k", "2", "3", "--seeds", "1", "-o", str(root / "good.sqlite")]) == 0
    return root / "good.sqlite"


def edited(store: Path, tmp_path: Path, *statements, name: str = "edited.sqlite") -> Path:
    """A copy of ``store`` with the SQL ``statements`` (or callables on the connection) applied."""
    out = tmp_path / name
    out.write_bytes(store.read_bytes())
    db = sqlite3.connect(out)
    for statement in statements:
        statement(db) if callable(statement) else db.execute(statement)
    db.commit()
    db.close()
    return out


def set_json(table: str, column: str, where: str, change) -> callable:
    """An edit that loads the JSON of ``column`` in the rows ``where``, changes it and writes it back."""
    def apply(db):
        for rowid, text in db.execute(f"SELECT rowid, {column} FROM {table} WHERE {where}").fetchall():
            value = json.loads(text)
            change(value)
            db.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (json.dumps(value), rowid))
    return apply


def set_score(value):
    return set_json("topics", "scores", f"model = '{B}' AND topic = 1", lambda s: s.update(npmi=value))


#: (case id, edits, fragment of the message)
DAMAGED = [
    ("truncated doc_loglik", [f"UPDATE models SET doc_loglik = substr(doc_loglik, 1, 16) WHERE name = '{A}'"],
     "doc_words holds"),
    ("odd-length doc_loglik",
     [f"UPDATE models SET doc_loglik = substr(doc_loglik, 1, 13) WHERE name = '{A}'"],
     "doc_loglik has 13 bytes, not a whole number of 8-byte float64 values"),
    ("odd-length topic_word", [f"UPDATE models SET topic_word = CAST(topic_word || x'00' AS BLOB) "
                               f"WHERE name = '{B}'"], "topic_word has"),
    ("blob stored as text", [f"UPDATE models SET topic_word = topic_word || x'00' WHERE name = '{B}'"],
     "topic_word is text that is not UTF-8, not a blob of float64 values"),
    ("truncated topic_word", [f"UPDATE models SET topic_word = substr(topic_word, 1, 80) WHERE name = '{B}'"],
     "not K x V = 3 x"),
    ("alpha of the wrong length", [f"UPDATE models SET alpha = x'000000000000f03f' WHERE name = '{B}'"],
     "alpha holds 1 float64 values, not 3"),
    ("NaN in doc_loglik", [f"UPDATE models SET doc_loglik = CAST(x'000000000000f87f' || "
                           f"substr(doc_loglik, 9) AS BLOB) WHERE name = '{A}'"],
     "doc_loglik holds NaN or infinite values"),
    ("doc_loglik changed", [f"UPDATE models SET doc_loglik = CAST(x'000000000000f0bf' || "
                            f"substr(doc_loglik, 9) AS BLOB) WHERE name = '{A}'"], "but doc_loglik gives"),
    ("non-JSON measures",
     [f"UPDATE models SET measures = '{{\"completion_perplexity\": 12' WHERE name = '{A}'"],
     "measures is not valid JSON"),
    ("non-JSON metadata", ["UPDATE meta SET value = 'not json' WHERE key = 'sweep'"],
     "sweep is not valid JSON"),
    ("non-JSON vocabulary", ["UPDATE meta SET value = '[\"w1\", ' WHERE key = 'vocabulary'"],
     "vocabulary is not valid JSON"),
    ("missing vocabulary", ["DELETE FROM meta WHERE key = 'vocabulary'"], "table 'meta' lacks vocabulary"),
    ("model row deleted, its topics remain", [f"DELETE FROM models WHERE name = '{A}'"],
     f"topic 0 of model '{A}': has no model row"),
    ("deleted topic row", [f"DELETE FROM topics WHERE model = '{B}' AND topic = 1"],
     f"model '{B}': has K=3 but no row for topic(s) 1"),
    ("NaN score", [set_score(math.nan)], "scores is not valid JSON (NaN is not valid JSON)"),
    ("infinite score", [set_score(math.inf)], "scores is not valid JSON (Infinity is not valid JSON)"),
    ("text score", [set_score("0.3")], "score 'npmi' is '0.3', not a finite number or null"),
    ("NaN measure", [set_json("models", "measures", f"name = '{A}'", lambda m: m.update(npmi=math.nan))],
     "measures is not valid JSON (NaN is not valid JSON)"),
    ("perplexity edited", [set_json("models", "measures", f"name = '{A}'",
                                    lambda m: m.update(completion_perplexity=m["npmi"] + 100))],
     "completion_perplexity is"),
    ("pairs not square", [set_json("topics", "pairs", f"model = '{A}' AND topic = 0",
                                   lambda p: p["values"].pop())], "pairs values are not a 10 x 10 matrix"),
    ("flags not objects", [f"UPDATE topics SET flags = '[\"mixed\"]' WHERE model = '{A}'"],
     "flags is not a list of {flag, explanation} objects"),
    ("k as text", [f"UPDATE models SET k = 'two' WHERE name = '{A}'"], "k is 'two', not a whole number"),
    ("column dropped", ["ALTER TABLE models DROP COLUMN alpha"], "table 'models' lacks column(s) alpha"),
    ("column added", ["ALTER TABLE topics ADD COLUMN extra TEXT"],
     "table 'topics' has unknown column(s) extra"),
    ("topic out of range", [f"UPDATE topics SET topic = 7 WHERE model = '{A}' AND topic = 1"],
     "the topic is not a whole number from 0 to K-1 = 1"),
    ("measure renamed", [f"UPDATE models SET measures = replace(measures, 'completion_perplexity', "
                         f"'completion_p4rplexity') WHERE name = '{A}'"],
     f"model '{A}': measures lacks completion_perplexity"),
    ("score renamed", [f"UPDATE topics SET scores = replace(scores, 'kl_uniform', 'kl_unif0rm') "
                       f"WHERE model = '{B}' AND topic = 2"], "are not those of the other topics"),
    ("sweep measures renamed", ["UPDATE meta SET value = replace(value, '\"measures\"', '\"measurXs\"') "
                                "WHERE key = 'sweep'"], "sweep lacks its list of coherence measures"),
    ("flag settings damaged", [set_json("models", "measures", f"name = '{A}'",
                                        lambda m: m["flags"].pop("checked"))],
     "measures['flags'] is neither null nor {checked, skipped, signature}"),
    ("source not an object", [f"UPDATE models SET source = '[]' WHERE name = '{A}'"],
     "source is not a JSON object with a 'kind'"),
]
IDS = [case[0] for case in DAMAGED]


@pytest.mark.parametrize("case, edits, fragment", DAMAGED, ids=IDS)
def test_report_refuses_a_damaged_store(case, edits, fragment, store, tmp_path, cli_error):
    path = edited(store, tmp_path, *edits)
    cli_error(["report", path, "--format", "json"], fragment)
    cli_error(["report", path, "-o", tmp_path / "r.html"], "results store")
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("case, edits, fragment", DAMAGED, ids=IDS)
def test_compare_refuses_a_damaged_store(case, edits, fragment, store, tmp_path, cli_error):
    path = edited(store, tmp_path, *edits)
    result = cli_error(["compare", path, "--models", A, B, "--n-boot", "100"], fragment)
    assert "rerun tealeaves sweep" in result.err  # how to rebuild


@pytest.mark.parametrize("case, edits, fragment", DAMAGED, ids=IDS)
def test_load_results_and_load_model_refuse_a_damaged_store(case, edits, fragment, store, tmp_path):
    path = edited(store, tmp_path, *edits)
    with pytest.raises(StoreIntegrityError, match="is damaged") as info:
        load_results(path)
    assert fragment in str(info.value)
    with pytest.raises(StoreIntegrityError):
        load_model(f"{path}#{B}")


def test_a_damaged_store_is_refused_in_a_subprocess(store, tmp_path):
    path = edited(store, tmp_path, f"DELETE FROM topics WHERE model = '{B}' AND topic = 1")
    for argv in (["report", str(path), "--format", "json"], ["compare", str(path), "--models", A, B]):
        run = subprocess.run([sys.executable, "-m", "tealeaves", *argv], capture_output=True, text=True,
                             timeout=120)
        assert run.returncode == 1, run.stderr
        assert run.stderr.splitlines() == [
            f"tealeaves: error: results store '{path}' is damaged: model '{B}': has K=3 but no row for "
            "topic(s) 1 (rerun tealeaves sweep (or evaluate) into a new file with -o; a damaged store "
            "cannot be repaired in place)"]


def test_a_corrupt_sqlite_file_is_refused(store, tmp_path, cli_error):
    path = tmp_path / "corrupt.sqlite"
    data = bytearray(store.read_bytes())
    data[4096:8192] = b"\xff" * 4096  # page 2 of the file overwritten
    path.write_bytes(bytes(data))
    cli_error(["report", path, "--format", "json"], "results store")
    with pytest.raises((StoreIntegrityError, IncompatibleStoreError)):
        load_results(path)


def test_a_none_score_is_accepted_by_report_and_compare(store, tmp_path, run_cli):
    path = edited(store, tmp_path, set_score(None))
    results = load_results(path)
    assert results.topic_scores(B, "npmi")[1] is None
    report = run_cli(["report", path, "--format", "json"])
    assert report.code == 0, report.err
    topics = [t for t in json.loads(report.out)["topics"] if t["model"] == B]
    assert topics[1]["npmi"] is None and all(t["npmi"] is not None for t in topics if t["topic"] != 1)
    assert run_cli(["report", path, "-o", tmp_path / "r.html"]).code == 0
    compared = run_cli(["compare", path, "--models", A, B, "--n-boot", "100", "--format", "json"])
    assert compared.code == 0, compared.err
    coherence = json.loads(compared.out)["coherence"]
    # the unscored topic is left out: B's mean is over its two scored topics, recomputed here
    scores = load_results(store).topic_scores(B, "npmi")
    assert coherence["n_b"] == 2
    assert coherence["value_b"] == pytest.approx(np.mean([scores[0], scores[2]]), rel=1e-12)


def test_compare_of_a_none_score_equals_the_api(store, tmp_path):
    path = edited(store, tmp_path, set_score(None))
    results = load_results(path)
    out = compare_models(results, A, results, B, n_boot=100)
    assert out["coherence"]["n_b"] == 2 and out["coherence"]["n_a"] == 2


def _as_version_1(db) -> None:
    """Rewrite a version 2 store as version 1 wrote it (no v2 columns, no preprocessing)."""
    from tealeaves.store.format import COLUMNS

    columns = ", ".join(COLUMNS[1]["models"])
    db.execute("ALTER TABLE models RENAME TO models2")
    db.execute("CREATE TABLE models (name TEXT PRIMARY KEY, k INTEGER NOT NULL, seed INTEGER NOT NULL, "
               "engine TEXT NOT NULL, settings TEXT NOT NULL, signature TEXT NOT NULL, description TEXT NOT "
               "NULL, fit_seconds REAL NOT NULL, score_seconds REAL NOT NULL, measures TEXT NOT NULL, "
               "vocabulary_hash TEXT NOT NULL, split_hash TEXT NOT NULL, doc_loglik BLOB NOT NULL, "
               "doc_words BLOB NOT NULL, topic_word BLOB NOT NULL)")
    db.execute(f"INSERT INTO models SELECT {columns} FROM models2")
    db.execute("DROP TABLE models2")
    db.execute("DELETE FROM meta WHERE key = 'preprocessing'")
    db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")


def test_a_version_1_store_is_read_with_the_version_2_defaults(store, tmp_path, run_cli):
    old = load_results(edited(store, tmp_path, _as_version_1))
    new = load_results(store)
    assert list(old.models["config"]) == ["sklearn-K2", "sklearn-K3"]
    assert list(old.models["run"]) == [0, 0] and list(old.models["source"]) == [{"kind": "sweep"}] * 2
    assert old.preprocessing is None
    assert old.models["completion_perplexity"].tolist() == new.models["completion_perplexity"].tolist()
    assert run_cli(["report", tmp_path / "edited.sqlite", "--format", "json"]).code == 0


def test_a_version_1_store_is_not_written(store, tmp_path, cli_error):
    path = edited(store, tmp_path, _as_version_1)
    corpus = store.parent / "c.txt"
    cli_error(["sweep", corpus, "--k", "2", "4", "--seeds", "1", "-o", path],
              "has schema version 1, which this tealeaves")
    with pytest.raises(IncompatibleStoreError, match="start a version 2 store"):
        sweep(lda_corpus(n_docs=60), [2], seeds=1, output=path, progress=False)


def _many_models(db) -> None:
    """23 more copies of model A under other names (with their topics): 25 models in all."""
    from tealeaves.store.format import COLUMNS

    columns = list(COLUMNS[2]["models"])
    rest = ", ".join(columns[1:])
    for i in range(23):
        db.execute(f"INSERT INTO models SELECT 'copy-{i:02d}', {rest} FROM models WHERE name = '{A}'")
        db.execute(f"INSERT INTO topics SELECT 'copy-{i:02d}', topic, top_words, scores, pairs, flags "
                   f"FROM topics WHERE model = '{A}'")


def test_an_unknown_model_id_lists_the_models_held(store, tmp_path, cli_error):
    cli_error(["human", "build-study", f"{store}#nope", "-o", tmp_path / "s.json"],
              f"no model named 'nope' in results store '{store}' (it holds 2: {A}, {B})")
    many = edited(store, tmp_path, _many_models, name="many.sqlite")
    names = load_results(many).models["name"].tolist()
    result = cli_error(["perplexity", f"{many}#nope", store.parent / "c.txt", "--tokenized"],
                       f"(it holds 25: {', '.join(names[:20])}, ... (and 5 more; 25 in all))")
    assert names[20] not in result.err
    from tealeaves.errors import ParameterError

    with pytest.raises(ParameterError, match="no model named 'nope'"):
        load_model(store, model="nope")


def test_a_store_without_model_is_refused_where_one_model_is_needed(store, tmp_path, cli_error):
    from tealeaves.errors import ParameterError

    fix = f"add #MODEL to the path to choose one, e.g. '{store}#{A}'"
    cli_error(["human", "build-study", store, "-o", tmp_path / "s.json"], fix)
    cli_error(["perplexity", store, store.parent / "c.txt", "--tokenized"], fix)
    cli_error(["coherence", "--reference", store.parent / "c.txt", "--topics", store], fix)
    with pytest.raises(ParameterError, match="is a results store holding 2 model"):
        load_model(store)
    with pytest.raises(ParameterError, match="two models named"):
        load_model(f"{store}#{A}", model=B)
    with pytest.raises(ParameterError, match="option 'model' names a model of a results store"):
        load_model(store.parent / "c.txt", model=A)
    assert not (tmp_path / "s.json").exists()


def test_an_sqlite_file_that_is_not_a_store_is_not_a_model(tmp_path, cli_error):
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    cli_error(["human", "build-study", f"{other}#m", "-o", tmp_path / "s.json"],
              "is an SQLite file but not a tealeaves results store")


def test_a_row_a_reader_would_refuse_is_not_written(store, tmp_path):
    from tealeaves.store.writer import open_store, write_model

    path = tmp_path / "w.sqlite"
    path.write_bytes(store.read_bytes())
    results = load_results(store)
    ll, words = results.heldout(A)
    row = {"name": "new", "k": 2, "seed": 5, "engine": "sklearn", "settings": {}, "signature":
           results.model(A)["signature"], "description": "", "fit_seconds": 0.0, "score_seconds": 0.0,
           "measures": {"npmi": math.nan}, "vocabulary_hash": "x", "split_hash": "y", "doc_loglik": ll,
           "doc_words": words, "topic_word": results._topic_word[A],
           "topics": [{"topic": 0, "top_words": ["w1"], "scores": {}, "pairs": {}, "flags": []}]}
    conn = open_store(path, results.sweep)
    try:
        with pytest.raises(StoreIntegrityError, match="refusing to store in results store .*: model 'new': "
                                                      "measures is not valid JSON \\(NaN"):
            write_model(conn, row)
        row["measures"] = {"npmi": 0.1}
        with pytest.raises(StoreIntegrityError, match="model 'new': has K=2 but no row for topic\\(s\\) 1"):
            write_model(conn, row)
    finally:
        conn.close()
    assert load_results(path).models["name"].tolist() == [A, B]  # nothing written


def test_sweep_does_not_resume_into_a_damaged_store(store, tmp_path, cli_error):
    path = edited(store, tmp_path, f"DELETE FROM topics WHERE model = '{B}' AND topic = 1")
    cli_error(["sweep", store.parent / "c.txt", "--n-components", "2", "3", "4", "--seeds", "1", "-o", path],
              f"results store '{path}' is damaged: model '{B}': has K=3 but no row for topic(s) 1")
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM models").fetchone()[0] == 2  # nothing added
