"""Fuzz the results-store readers: no store may crash the process, hang, or give a wrong number.

A real results store is made by :func:`tealeaves.sweep.sweep` (scikit-learn engine, K = 3 and
5, seeds 0 and 1, NPMI) on the first Reuters-21578 ModApte training stories (default
preprocessing).  Each seeded mutation changes a copy of it:

* ``flip_bytes`` / ``truncate_file``: random bytes XOR-ed anywhere in the SQLite file, or the
  file cut short (what a disk or a copy does);
* ``blob_flip`` / ``blob_truncate`` / ``blob_extend`` / ``blob_nan``: one blob (``doc_loglik``,
  ``doc_words``, ``topic_word``, ``alpha``) with a byte flipped, cut, lengthened, or a value set
  to NaN or infinity;
* ``row_delete``: a model row (its topics left behind), a topic row or a meta row deleted;
* ``json_invalid`` / ``json_nan`` / ``json_type``: a JSON field (measures, scores, pairs, flags,
  settings, source, meta) cut short, given a ``NaN``/``Infinity`` literal, or a value of the
  wrong type;
* ``schema_alter`` / ``type_edit`` / ``version_edit``: a column dropped or added, a table
  renamed, dropped or re-declared with other types; a column given a value of another type or
  out of range; the schema version changed;
* ``json_value`` / ``valid_edit``: edits that keep the store valid (a per-topic score or a
  mean set to another number or ``null``; a model renamed with its topics, its seed or alpha
  set to ``NULL``, a model deleted with its topics, a description changed).

Oracle: each mutated store is read in a worker subprocess by ``load_results``, ``tealeaves
report --format json`` and ``tealeaves compare`` (A = the K=3 seed-0 model, B = the K=5 seed-0
model).  Either all three refuse it with a named error (``StoreIntegrityError`` or
``IncompatibleStoreError`` through the API; exit 1 with one ``tealeaves: error:`` line that is not
an internal error on the command line), or it loads and every number equals the number stored
in the mutated file, decoded independently with ``sqlite3``, ``json`` and ``numpy`` (so values a
mutation did not touch equal the unmutated store's): each model's measures, per-document
held-out arrays and topic-word rows, each topic's words and scores; the report's model and topic
numbers; compare's held-out log-likelihood per word (``sum(doc_loglik) / sum(doc_words)``) and
mean coherence (over the scored topics) of each model.  A command may still refuse a loaded
store with a clean error (e.g. compare when a model was renamed away).  Kinds that must be
refused (``blob_truncate``, ``blob_extend``, ``blob_nan``, ``row_delete``, ``json_invalid``,
``json_nan``, ``json_type``, ``schema_alter``, ``version_edit``) or must load (``json_value``,
``valid_edit``, the unmutated ``original``) fail otherwise.  Any other exception, a signal, a
hang (per-mutation timeout) or a different number is a FAILURE.

Run from the repository root::

    TEALEAVES_DATA=/path/to/data python benchmarks/store_fuzz.py [--n 1000] [--seed 0] [--docs 300]

It prints the counts per mutation kind and outcome and exits with status 1 on any failure.
``tests/test_store_fuzz.py`` runs a reduced version.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import itertools
import json
import math
import os
import signal
import sqlite3
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

SRC = Path(__file__).resolve().parent.parent / "src"

_spec = importlib.util.spec_from_file_location("index_fuzz",
                                               Path(__file__).resolve().parent / "index_fuzz.py")
index_fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(index_fuzz)
A, B = "sklearn-K3-s0", "sklearn-K5-s0"
OUTCOMES = ("refused", "loaded-correct", "FAILED")
BLOBS = ("doc_loglik", "doc_words", "topic_word", "alpha")
JSON_FIELDS = (("models", "settings"), ("models", "measures"), ("models", "source"), ("topics", "top_words"),
               ("topics", "scores"), ("topics", "pairs"), ("topics", "flags"))
META_JSON = ("sweep", "vocabulary", "preprocessing")
#: Model measures that no check ties to another stored number (a new value must load as it is).
FREE_MEASURES = ("npmi", "significance", "diversity", "irbo", "uniform_perplexity", "unigram_perplexity",
                 "library_perplexity")
MUST_REFUSE = {"blob_truncate", "blob_extend", "blob_nan", "row_delete", "json_invalid", "json_nan",
               "json_type",
               "schema_alter", "version_edit"}
MUST_LOAD = {"json_value", "valid_edit", "original"}


# --------------------------------------------------------------------------------------------
# the base store
# --------------------------------------------------------------------------------------------
def base_store(train, n_docs: int = 300) -> bytes:
    """The bytes of a results store swept over the first ``n_docs`` stories of ``train`` (a Corpus)."""
    from tealeaves.sweep import sweep

    corpus = train.subset([i for i in range(min(n_docs, len(train))) if train.lengths[i] > 0])
    with tempfile.TemporaryDirectory(prefix="tealeaves-store-") as tmp:
        path = Path(tmp) / "base.sqlite"
        sweep(corpus, [3, 5], seeds=2, engine="sklearn", output=path, progress=False)
        return path.read_bytes()


# --------------------------------------------------------------------------------------------
# mutations
# --------------------------------------------------------------------------------------------
def _with_db(base: bytes, edit, rng) -> tuple[bytes, str]:
    """Apply ``edit(db, rng) -> what`` to a copy of ``base``; the new file's bytes and ``what``."""
    with tempfile.TemporaryDirectory(prefix="tealeaves-mut-") as tmp:
        path = Path(tmp) / "m.sqlite"
        path.write_bytes(base)
        db = sqlite3.connect(path, isolation_level=None)
        try:
            what = edit(db, rng)
        finally:
            db.close()
        return path.read_bytes(), what


def _pick(db, rng, sql: str, params=()):
    rows = db.execute(sql, params).fetchall()
    return rows[int(rng.integers(len(rows)))] if rows else None


def _a_blob(db, rng):
    """``(name, column, bytes)`` of a random non-NULL blob."""
    while True:
        column = BLOBS[int(rng.integers(len(BLOBS)))]
        row = _pick(db, rng, f"SELECT name, {column} FROM models WHERE {column} IS NOT NULL")
        if row is not None and len(row[1]) >= 8:
            return row[0], column, row[1]


def _set_blob(db, name: str, column: str, value: bytes) -> None:
    db.execute(f"UPDATE models SET {column} = ? WHERE name = ?", (value, name))


def m_flip_bytes(base: bytes, rng) -> tuple[bytes, str]:
    data = bytearray(base)
    spots = rng.integers(0, len(data), int(rng.integers(1, 9)))
    for at in spots:
        data[at] ^= int(rng.integers(1, 256))
    return bytes(data), f"{len(spots)} bytes flipped at {sorted(int(s) for s in spots)[:4]}..."


def m_truncate_file(base: bytes, rng) -> tuple[bytes, str]:
    n = int(rng.integers(0, len(base)))
    return base[:n], f"cut to {n} of {len(base)} bytes"


def m_blob_flip(db, rng) -> str:
    name, column, blob = _a_blob(db, rng)
    data = bytearray(blob)
    at = int(rng.integers(len(data)))
    data[at] ^= 1 << int(rng.integers(8))
    _set_blob(db, name, column, bytes(data))
    return f"{name}.{column} byte {at} flipped"


def m_blob_truncate(db, rng) -> str:
    name, column, blob = _a_blob(db, rng)
    n = int(rng.integers(0, len(blob)))
    _set_blob(db, name, column, blob[:n])
    return f"{name}.{column} cut to {n} of {len(blob)} bytes"


def m_blob_extend(db, rng) -> str:
    name, column, blob = _a_blob(db, rng)
    extra = bytes(rng.integers(0, 256, int(rng.integers(1, 17)), dtype=np.uint8))
    _set_blob(db, name, column, blob + extra)
    return f"{name}.{column} lengthened by {len(extra)} bytes"


def m_blob_nan(db, rng) -> str:
    while True:
        name, column, blob = _a_blob(db, rng)
        if column != "doc_words":
            break
    values = np.frombuffer(blob, "<f8").copy()
    at = int(rng.integers(len(values)))
    values[at] = [math.nan, math.inf, -math.inf][int(rng.integers(3))]
    _set_blob(db, name, column, values.tobytes())
    return f"{name}.{column}[{at}] = {values[at]}"


def m_row_delete(db, rng) -> str:
    choice = int(rng.integers(3))
    if choice == 0:
        (name,) = _pick(db, rng, "SELECT name FROM models")
        db.execute("DELETE FROM models WHERE name = ?", (name,))
        return f"model row {name} deleted (its topics kept)"
    if choice == 1:
        model, topic = _pick(db, rng, "SELECT model, topic FROM topics")
        db.execute("DELETE FROM topics WHERE model = ? AND topic = ?", (model, topic))
        return f"topic row {model}/{topic} deleted"
    (key,) = _pick(db, rng, "SELECT key FROM meta")
    db.execute("DELETE FROM meta WHERE key = ?", (key,))
    return f"meta row {key} deleted"


def _a_json(db, rng):
    """``(describe, text, write)`` of a random JSON field."""
    if rng.random() < 0.2:
        (key, text) = _pick(db, rng, "SELECT key, value FROM meta WHERE key IN ('sweep', 'vocabulary', "
                                     "'preprocessing')")
        return f"meta.{key}", text, lambda v: db.execute("UPDATE meta SET value = ? WHERE key = ?", (v, key))
    table, column = JSON_FIELDS[int(rng.integers(len(JSON_FIELDS)))]
    (rowid, text) = _pick(db, rng, f"SELECT rowid, {column} FROM {table}")
    return (f"{table}.{column} (row {rowid})", text,
            lambda v: db.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (v, rowid)))


def m_json_invalid(db, rng) -> str:
    where, text, write = _a_json(db, rng)
    n = int(rng.integers(0, len(text)))
    write(text[:n])
    return f"{where} cut to {n} of {len(text)} characters"


def _number_paths(value, path=()):
    """Paths to every number (not bool) inside a decoded JSON value."""
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _number_paths(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _number_paths(v, (*path, i))]
    return []


def _set_path(value, path, new):
    if not path:
        return new
    value[path[0]] = _set_path(value[path[0]], path[1:], new)
    return value


def _a_number(db, rng, fields=("measures", "scores", "pairs")):
    while True:
        table, column = [f for f in JSON_FIELDS if f[1] in fields][int(rng.integers(len(fields)))]
        (rowid, text) = _pick(db, rng, f"SELECT rowid, {column} FROM {table}")
        value = json.loads(text)
        paths = _number_paths(value)
        if paths:
            return table, column, rowid, value, paths[int(rng.integers(len(paths)))]


def m_json_nan(db, rng) -> str:
    table, column, rowid, value, path = _a_number(db, rng)
    literal = ["NaN", "Infinity", "-Infinity"][int(rng.integers(3))]
    text = json.dumps(_set_path(value, path, math.nan if literal == "NaN" else float(literal)))
    db.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (text, rowid))
    return f"{table}.{column} (row {rowid}) {list(path)} = {literal}"


def m_json_type(db, rng) -> str:
    table, column, rowid, value, path = _a_number(db, rng)
    new = ["0.5", [1.0], True, {"x": 1}][int(rng.integers(4))]
    db.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?",
               (json.dumps(_set_path(value, path, new)), rowid))
    return f"{table}.{column} (row {rowid}) {list(path)} = {new!r}"


def m_json_value(db, rng) -> str:
    new = None if rng.random() < 0.3 else float(rng.normal())
    if rng.random() < 0.5:
        rowid, text = _pick(db, rng, "SELECT rowid, scores FROM topics")
        value = json.loads(text)
        key = sorted(value)[int(rng.integers(len(value)))]
        where = "topics.scores"
    else:
        rowid, text = _pick(db, rng, "SELECT rowid, measures FROM models")
        value = json.loads(text)
        key = [k for k in FREE_MEASURES if k in value][int(rng.integers(len([k for k in FREE_MEASURES
                                                                              if k in value])))]
        where = "models.measures"
    value[key] = new
    db.execute(f"UPDATE {where.split('.')[0]} SET {where.split('.')[1]} = ? WHERE rowid = ?",
               (json.dumps(value), rowid))
    return f"{where} (row {rowid}) {key} = {new}"


def _recreate(db, table: str, change) -> None:
    """Re-declare ``table`` with its columns' declared types changed by ``change(columns)``."""
    columns = [(r[1], r[2]) for r in db.execute(f"PRAGMA table_info({table})")]
    new = change(list(columns))
    db.execute(f"ALTER TABLE {table} RENAME TO old_{table}")
    db.execute(f"CREATE TABLE {table} ({', '.join(f'{c} {t}' for c, t in new)})")
    names = ", ".join(c for c, _ in new if c in dict(columns))
    db.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM old_{table}")
    db.execute(f"DROP TABLE old_{table}")


def m_schema_alter(db, rng) -> str:
    table = ["models", "topics", "meta"][int(rng.integers(3))]
    choice = int(rng.integers(5))
    if choice == 0 and table != "meta":
        column = {"models": ["signature", "alpha", "config", "measures", "doc_words"],
                  "topics": ["pairs", "flags", "scores"]}[table][int(rng.integers(3))]
        db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        return f"{table}.{column} dropped"
    if choice == 1:
        db.execute(f"ALTER TABLE {table} ADD COLUMN extra TEXT")
        return f"{table}.extra added"
    if choice == 2:
        db.execute(f"ALTER TABLE {table} RENAME TO other")
        return f"{table} renamed"
    if choice == 3:
        db.execute(f"DROP TABLE {table}")
        return f"{table} dropped"
    other = {"TEXT": "BLOB", "INTEGER": "REAL", "REAL": "TEXT", "BLOB": "TEXT"}

    def retype(columns):
        i = int(rng.integers(len(columns)))
        columns[i] = (columns[i][0], other[columns[i][1]])
        return columns

    _recreate(db, table, retype)
    return f"{table} re-declared with a column of another type"


def m_type_edit(db, rng) -> str:
    column, value = [("k", "'x'"), ("k", "k + 1"), ("k", "2.5"), ("seed", "-1"), ("seed", "'s'"),
                     ("run", "'r'"),
                     ("fit_seconds", "-1.0"), ("engine", "5"), ("signature", "'not a signature'"),
                     ("config", "''"), ("seed", "NULL")][int(rng.integers(11))]
    (name,) = _pick(db, rng, "SELECT name FROM models")
    db.execute(f"UPDATE models SET {column} = {value} WHERE name = ?", (name,))
    what = f"{name}: models.{column} = {value}"
    if rng.random() < 0.5:
        value = ["'t'", "-1", "topic + 100"][int(rng.integers(3))]
        db.execute(f"UPDATE topics SET topic = {value} WHERE model = ? AND topic = 0", (name,))
        what += f", topics.topic = {value} (topic 0)"
    return what


def m_version_edit(db, rng) -> str:
    value = ["1", "3", "0", "x", "", "2.0"][int(rng.integers(6))]
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (value,))
    return f"schema_version = {value!r}"


def m_valid_edit(db, rng) -> str:
    (name,) = _pick(db, rng, "SELECT name FROM models")
    choice = int(rng.integers(5))
    if choice == 0:
        new = f"renamed-{int(rng.integers(1000))}"
        db.execute("UPDATE models SET name = ? WHERE name = ?", (new, name))
        db.execute("UPDATE topics SET model = ? WHERE model = ?", (new, name))
        return f"{name} renamed {new} with its topics"
    if choice == 1:
        db.execute("UPDATE models SET seed = NULL WHERE name = ?", (name,))
        return f"{name}.seed = NULL"
    if choice == 2:
        db.execute("UPDATE models SET alpha = NULL WHERE name = ?", (name,))
        return f"{name}.alpha = NULL"
    if choice == 3:
        db.execute("DELETE FROM topics WHERE model = ?", (name,))
        db.execute("DELETE FROM models WHERE name = ?", (name,))
        return f"{name} deleted with its topics"
    db.execute("UPDATE models SET description = 'edited by hand' WHERE name = ?", (name,))
    return f"{name}.description edited"


FILE_MUTATIONS = {"flip_bytes": m_flip_bytes, "truncate_file": m_truncate_file}
SQL_MUTATIONS = {"blob_flip": m_blob_flip, "blob_truncate": m_blob_truncate, "blob_extend": m_blob_extend,
                 "blob_nan": m_blob_nan, "row_delete": m_row_delete, "json_invalid": m_json_invalid,
                 "json_nan": m_json_nan, "json_type": m_json_type, "json_value": m_json_value,
                 "schema_alter": m_schema_alter, "type_edit": m_type_edit, "version_edit": m_version_edit,
                 "valid_edit": m_valid_edit}
MUTATIONS = (*FILE_MUTATIONS, *SQL_MUTATIONS)


def mutations(base: bytes, n: int, seed: int = 0):
    """``n`` seeded mutations of ``base``, the kinds in turn: ``(kind, bytes, what)``."""
    rng = np.random.default_rng(seed)
    for i in range(n):
        kind = MUTATIONS[i % len(MUTATIONS)]
        if kind in FILE_MUTATIONS:
            data, what = FILE_MUTATIONS[kind](base, rng)
        else:
            data, what = _with_db(base, SQL_MUTATIONS[kind], rng)
        yield kind, data, what


# --------------------------------------------------------------------------------------------
# the oracle (run in the worker)
# --------------------------------------------------------------------------------------------
def decode(path: str) -> dict | None:
    """Every number of the store, read with sqlite3, json and numpy only (None when that fails)."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        db.text_factory = bytes
        meta = {k.decode(): v.decode() for k, v in db.execute("SELECT key, value FROM meta")}
        vocabulary = json.loads(meta["vocabulary"])
        models = {}
        for name, k, measures, ll, words, phi, own in db.execute(
                "SELECT name, k, measures, doc_loglik, doc_words, topic_word, vocabulary FROM models"):
            n_words = len(vocabulary if own is None else json.loads(own))
            models[name.decode()] = {"measures": json.loads(measures), "doc_loglik": np.frombuffer(ll, "<f8"),
                                     "doc_words": np.frombuffer(words, "<i8"),
                                     "topic_word": np.frombuffer(phi, "<f8").reshape(k, n_words)}
        topics = {(m.decode(), t): {"top_words": json.loads(w), "scores": json.loads(s)}
                  for m, t, w, s in db.execute("SELECT model, topic, top_words, scores FROM topics")}
        db.close()
    except Exception:  # noqa: BLE001 - the independent reading may fail: then the store must be refused
        return None
    return {"models": models, "topics": topics}


def _cli(argv: list[str]) -> tuple[int, str, str]:
    from tealeaves.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return code, out.getvalue(), err.getvalue()


def _clean_error(code: int, err: str) -> bool:
    lines = err.strip().splitlines()
    return (code == 1 and len(lines) == 1 and lines[0].startswith("tealeaves: error: ")
            and "internal error" not in err and "this is a bug" not in err and "Traceback" not in err)


def _equal(x, y) -> bool:
    if x is None or y is None:
        return x is None and y is None
    if isinstance(x, (list, tuple)) or isinstance(y, (list, tuple)):
        return isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)) and len(x) == len(y) and all(
            _equal(a, b) for a, b in zip(x, y))
    if isinstance(x, dict) or isinstance(y, dict):
        return isinstance(x, dict) and isinstance(y, dict) and x.keys() == y.keys() and all(
            _equal(x[k], y[k]) for k in x)
    if isinstance(x, (int, float)) and isinstance(y, (int, float)):
        return x == y or abs(x - y) <= 1e-12 * max(abs(x), abs(y))
    return x == y


def _check_loaded(results, truth: dict | None) -> str:
    """'' when every number of ``results`` equals the independent reading ``truth``; else what differs."""
    if truth is None:
        return "loaded, but sqlite3/json/numpy cannot read the file"
    names = list(results.models["name"])
    if sorted(names) != sorted(truth["models"]):
        return f"models {names} differ from the file's {sorted(truth['models'])}"
    for name in names:
        want = truth["models"][name]
        ll, words = results.heldout(name)
        if not (np.array_equal(ll, want["doc_loglik"]) and np.array_equal(words, want["doc_words"])
                and np.array_equal(results._topic_word[name], want["topic_word"])):
            return f"{name}: a stored array differs from the file's"
        row = results.model(name)
        for key, value in want["measures"].items():
            got = results.signatures[name] if key == "signatures" else results.flag_settings[name] \
                if key == "flags" else row[key]
            if key not in ("signatures", "flags", "unavailable") and not _equal(
                    None if isinstance(got, float) and got != got else got, value):
                return f"{name}: measure {key} is {got!r}, the file says {value!r}"
        topics = results.topics[results.topics["model"] == name].sort_values("topic")
        for t, words_t in zip(topics["topic"], topics["top_words"]):
            if list(words_t) != truth["topics"][(name, int(t))]["top_words"]:
                return f"{name}/{t}: top words differ from the file's"
        for measure in {m for (n, _), v in truth["topics"].items() if n == name for m in v["scores"]}:
            got = results.topic_scores(name, measure)
            want_scores = [truth["topics"][(name, t)]["scores"].get(measure) for t in range(len(got))]
            if not _equal(got, want_scores):
                return f"{name}: {measure} scores {got} differ from the file's {want_scores}"
    return ""


def _check_report(out: str, results) -> str:
    report = json.loads(out)
    for row in report["models"]:
        if not _equal(row.get("completion_perplexity"), results.model(row["name"])["completion_perplexity"]):
            return f"report: {row['name']} completion perplexity differs"
    for topic in report["topics"]:
        for measure, value in topic.items():
            if measure in results.sweep.get("measures", []):
                want = results.topic_scores(topic["model"], measure)[topic["topic"]]
                if not _equal(value, want):
                    return f"report: {topic['model']}/{topic['topic']} {measure} {value} != stored {want}"
    return ""


def _check_compare(out: str, truth: dict) -> str:
    result = json.loads(out)
    for side, name in (("a", A), ("b", B)):
        m = truth["models"][name]
        want = float(m["doc_loglik"].sum()) / int(m["doc_words"].sum())
        if not _equal(result["loglik_per_word"][f"value_{side}"], want):
            got = result["loglik_per_word"][f"value_{side}"]
            return f"compare: {name} log-likelihood per word {got} != {want}"
        if "coherence" in result:
            measure = result["coherence"]["of"]
            scores = [v["scores"].get(measure) for (n, _), v in sorted(truth["topics"].items()) if n == name]
            scored = [s for s in scores if s is not None]
            if scored and not _equal(result["coherence"][f"value_{side}"], float(np.mean(scored))):
                return f"compare: {name} mean {measure} differs from its scored topics' mean"
    return ""


def check_store(path: str, kind: str) -> tuple[str, str]:
    """Read one mutated store with the three readers and apply the oracle: ``(outcome, detail)``."""
    from tealeaves.errors import IncompatibleStoreError, StoreIntegrityError
    from tealeaves.sweep import load_results

    truth = decode(path)
    report = _cli(["report", path, "--format", "json"])
    compare = _cli(["compare", path, "--models", A, B, "--n-boot", "100", "--format", "json"])
    try:
        results = load_results(path)
    except (StoreIntegrityError, IncompatibleStoreError) as exc:
        if path not in str(exc):
            return "FAILED", f"refused without naming the store: {exc}"
        for name, (code, _, err) in (("report", report), ("compare", compare)):
            if not _clean_error(code, err):
                return "FAILED", f"load_results refused it, but {name} exited {code}: {err[-500:]}"
        if kind in MUST_LOAD:
            return "FAILED", f"a valid store was refused: {exc}"
        return "refused", str(exc)
    except Exception as exc:  # noqa: BLE001 - any other exception is the failure being looked for
        return "FAILED", f"load_results raised {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}"
    if kind in MUST_REFUSE:
        return "FAILED", "a damaged store was loaded"
    try:
        problem = _check_loaded(results, truth)
        for name, (code, out, err), checker in (("report", report, lambda o: _check_report(o, results)),
                                                 ("compare", compare, lambda o: _check_compare(o, truth))):
            if code == 0:
                problem = problem or checker(out)
            elif not _clean_error(code, err) or kind == "original":
                problem = problem or f"{name} exited {code}: {err[-500:]}"
    except Exception as exc:  # noqa: BLE001
        return "FAILED", f"loaded, then {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}"
    return ("FAILED", problem) if problem else ("loaded-correct", "")


def worker_main() -> int:
    """Serve ``{"path", "kind"}`` JSON lines from stdin, answering ``{"outcome", "detail"}`` lines."""
    answer, sys.stdout = sys.stdout, sys.stderr  # nothing else may write on the answer channel
    import tealeaves.sweep.results  # noqa: F401 - load pandas and the readers before the first timeout
    print(json.dumps({"ready": True}), file=answer, flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        if job.get("fault") == "crash":  # self-test of the parent's crash and hang detection
            os.kill(os.getpid(), signal.SIGSEGV)
        if job.get("fault") == "hang":
            time.sleep(3600)
        outcome, detail = check_store(job["path"], job["kind"])
        print(json.dumps({"outcome": outcome, "detail": detail[:2000]}), file=answer, flush=True)
    return 0


# --------------------------------------------------------------------------------------------
# the parent: a subprocess worker, per-mutation timeouts, crash detection
# --------------------------------------------------------------------------------------------
class Worker(index_fuzz.Worker):
    """The index fuzzer's worker subprocess (crash and hang detection), serving this script's jobs."""

    def __init__(self, startup_timeout: float = 120.0):
        super().__init__(startup_timeout=startup_timeout, command=[sys.executable, __file__, "--worker"])

    def run(self, path: Path, kind: str, timeout: float, fault: str | None = None) -> tuple[str, str]:
        """Check one store; ``fault`` ("crash" or "hang") makes the worker fail on purpose (self-test)."""
        reply = self.request({"path": str(path), "kind": kind, "fault": fault}, timeout)
        return reply["outcome"], reply["detail"]

def fuzz(base: bytes, n: int, seed: int = 0, timeout: float = 60.0, progress=None) -> list[dict]:
    """Run ``n`` mutations of ``base`` through a worker subprocess (after the unmutated control)."""
    records = []
    with tempfile.TemporaryDirectory(prefix="tealeaves-store-fuzz-") as tmp:
        tmp = Path(tmp)
        worker = Worker()
        try:
            jobs = itertools.chain([("original", base, "unchanged")], mutations(base, n, seed))
            for i, (kind, data, what) in enumerate(jobs):
                path = tmp / f"m{i}.sqlite"
                path.write_bytes(data)
                outcome, detail = worker.run(path, kind, timeout)
                for leftover in tmp.glob(f"m{i}.sqlite*"):
                    leftover.unlink()
                records.append({"i": i, "kind": kind, "what": what, "outcome": outcome, "detail": detail})
                if progress and (i + 1) % 100 == 0:
                    progress(f"{i + 1} stores checked")
        finally:
            worker.close()
    return records


def summary(records: list[dict]) -> str:
    """A table of counts per mutation kind and outcome, then every failure."""
    return index_fuzz.outcome_table(records, OUTCOMES,
                                    lambda r: f"FAILED #{r['i']} {r['kind']} ({r['what']}): {r['detail']}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000, help="number of mutations (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--docs", type=int, default=300, help="Reuters training stories swept (default 300)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds allowed per mutation")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker_main()
    sys.path.insert(0, str(SRC))
    from tealeaves.corpus.reuters import load_reuters_modapte

    t0 = time.perf_counter()
    base = base_store(load_reuters_modapte()[0], args.docs)
    print(f"base store: {len(base):,} bytes, 4 models swept on {args.docs} Reuters training stories "
          f"({time.perf_counter() - t0:.1f} s)", flush=True)
    t0 = time.perf_counter()
    records = fuzz(base, args.n, args.seed, args.timeout, progress=lambda m: print(m, flush=True))
    print(f"{args.n} mutations (seed {args.seed}) + 1 control in {time.perf_counter() - t0:.1f} s")
    print(summary(records))
    return 1 if any(r["outcome"] == "FAILED" for r in records) else 0


if __name__ == "__main__":
    sys.exit(main())
