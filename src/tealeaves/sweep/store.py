"""The results store of a sweep: one SQLite file, one row per model and one per topic.

Layout (``SCHEMA_VERSION`` 1; the file is in WAL mode so a report can read it while a
sweep writes):

* ``meta(key, value)``: ``schema_version``, ``tealeaves_version`` and ``sweep`` (the
  JSON of what every model of the store shares: corpus and test fingerprints, split,
  measures, reference) -- a store is refused for a sweep that shares other data;
  ``vocabulary`` (JSON list) and ``preprocessing`` (JSON: the training corpus's recipe,
  ``Preprocessor.get_params()``, or ``null`` when unknown, e.g. pre-tokenised input;
  absent from stores written before it was recorded);
* ``models``: one row per finished model: ``name`` (``<engine>-K<k>-s<seed>``), ``k``,
  ``seed``, ``engine``, ``settings`` (JSON), ``signature`` (of its completion
  perplexity), ``description``, ``fit_seconds``, ``score_seconds``, ``measures``
  (JSON: perplexities, baselines, mean coherences...), ``vocabulary_hash``,
  ``split_hash`` (the held-out words scored), ``doc_loglik`` and ``doc_words``
  (per-document held-out log-likelihood and word counts, float64 / int64 bytes),
  ``topic_word`` (the K x V topic-word probabilities, float64 bytes, over the training
  vocabulary stored in ``meta.vocabulary``: what stability across seeds is computed from);
* ``topics``: one row per topic of a model: ``model``, ``topic``, ``top_words``
  (JSON), ``scores`` (JSON: per-topic coherences, significance...), ``pairs`` (JSON: the
  pair matrix of the first coherence measure, for the report's heatmap), ``flags`` (JSON:
  the junk-topic flags raised, each with its explanation).

A model and its topics are written in one transaction, so a sweep killed at any
moment leaves only whole models behind and resumes by refitting the others.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import numpy as np

from tealeaves.errors import IncompatibleStoreError, OutputError

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS models (
    name TEXT PRIMARY KEY, k INTEGER NOT NULL, seed INTEGER NOT NULL, engine TEXT NOT NULL,
    settings TEXT NOT NULL, signature TEXT NOT NULL, description TEXT NOT NULL,
    fit_seconds REAL NOT NULL, score_seconds REAL NOT NULL, measures TEXT NOT NULL,
    vocabulary_hash TEXT NOT NULL, split_hash TEXT NOT NULL,
    doc_loglik BLOB NOT NULL, doc_words BLOB NOT NULL, topic_word BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS topics (
    model TEXT NOT NULL REFERENCES models(name), topic INTEGER NOT NULL, top_words TEXT NOT NULL,
    scores TEXT NOT NULL, pairs TEXT NOT NULL, flags TEXT NOT NULL, PRIMARY KEY (model, topic));
"""


def model_name(engine: str, k: int, seed: int) -> str:
    """The name of a model in a store: ``<engine>-K<k>-s<seed>``.

    What :func:`~tealeaves.sweep.compare_models` takes.

    Parameters
    ----------
    engine : str
        The engine's name.
    k : int
        The number of topics.
    seed : int
        The fit's seed.

    Returns
    -------
    str
        The name.
    """
    return f"{engine}-K{k}-s{seed}"


def _is_sqlite(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(16) == b"SQLite format 3\x00"


def _connect(path: Path) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(str(path), timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
    except sqlite3.Error as exc:
        raise OutputError(f"cannot open results store '{path}': {exc}",
                          fix="give a writable path with -o") from None
    return conn


def open_store(path: str | os.PathLike, sweep: dict, vocabulary: list[str] | None = None,
               preprocessing: dict | None = None) -> sqlite3.Connection:
    """Open (creating if needed) the store at ``path`` for a sweep described by ``sweep`` (JSON-able).

    An existing store must have ``SCHEMA_VERSION`` and the same ``sweep`` description,
    else :class:`IncompatibleStoreError`; a file that is not SQLite is refused too.

    Parameters
    ----------
    path : str or os.PathLike
        The store's file.
    sweep : dict
        The sweep's description.
    vocabulary : list of str, optional
        The sweep's vocabulary, recorded in a new store.
    preprocessing : dict, optional
        The training corpus's recipe (``Corpus.preprocessing``), recorded in a new store.

    Returns
    -------
    sqlite3.Connection
        The open store.

    Raises
    ------
    OutputError
        When the path is a folder, its folder is missing, or it is not writable.
    IncompatibleStoreError
        When the file is not a store, or holds another sweep or schema version.
    """
    path = Path(path).expanduser()
    if path.is_dir():
        raise OutputError(f"results store '{path}' is a folder", fix="give a file path with -o")
    if path.exists() and path.stat().st_size and not _is_sqlite(path):
        raise IncompatibleStoreError(f"'{path}' is not a tealeaves results store (not an SQLite file)",
                                     fix="give a new path with -o, or remove the file")
    if not path.parent.is_dir():
        raise OutputError(f"the folder of results store '{path}' does not exist",
                          fix="create it or give another path with -o")
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise OutputError(f"results store '{path}' is not writable", fix="give a writable path with -o")
    conn = _connect(path)
    description = json.dumps(sweep, sort_keys=True)
    try:
        existing = _meta(conn, path)
        if not existing:
            with conn:
                conn.executescript(_SCHEMA)
                conn.executemany("INSERT INTO meta VALUES (?, ?)", [
                    ("schema_version", str(SCHEMA_VERSION)), ("tealeaves_version", _version()),
                    ("sweep", description), ("vocabulary", json.dumps(list(vocabulary or []),
                                                                      ensure_ascii=False)),
                    ("preprocessing", json.dumps(preprocessing, ensure_ascii=False))])
        elif existing.get("sweep") != description:
            raise IncompatibleStoreError(
                f"results store '{path}' holds a sweep over other data or settings "
                f"({_difference(json.loads(existing['sweep']), sweep)})",
                fix="give a new path with -o to start another sweep")
    except BaseException:
        conn.close()
        raise
    return conn


def _version() -> str:
    from tealeaves._version import __version__

    return __version__


def _difference(old: dict, new: dict) -> str:
    keys = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
    return "differs in " + ", ".join(keys) if keys else "differs"


def _meta(conn: sqlite3.Connection, path: Path) -> dict:
    """The meta table (empty for a new file); an incompatible schema version is refused."""
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:
            return {}
        if "meta" not in tables:
            raise IncompatibleStoreError(f"'{path}' is an SQLite file but not a tealeaves results store",
                                         fix="give a results store written by tealeaves sweep")
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.DatabaseError as exc:
        raise IncompatibleStoreError(f"'{path}' is not a readable results store ({exc})",
                                     fix="give a results store written by tealeaves sweep") from None
    if meta.get("schema_version") != str(SCHEMA_VERSION):
        raise IncompatibleStoreError(
            f"results store '{path}' has schema version {meta.get('schema_version')!r}; this tealeaves "
            f"({_version()}) reads version {SCHEMA_VERSION}",
            fix="rerun the sweep into a new file with this version, or use the tealeaves that wrote it")
    return meta


def read_store(path: str | os.PathLike) -> sqlite3.Connection:
    """Open an existing store for reading (its schema version checked).

    Parameters
    ----------
    path : str or os.PathLike
        The store's file.

    Returns
    -------
    sqlite3.Connection
        A read-only connection.

    Raises
    ------
    IncompatibleStoreError
        When the file is not a results store or has another schema version.
    """
    from tealeaves._io import existing_file

    path = existing_file(path, "results store")
    if not _is_sqlite(path):
        raise IncompatibleStoreError(f"'{path}' is not a tealeaves results store (not an SQLite file)",
                                     fix="give the -o file of tealeaves sweep")
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    if not _meta(conn, path):
        conn.close()
        raise IncompatibleStoreError(f"'{path}' is an empty SQLite file, not a results store",
                                     fix="give the -o file of tealeaves sweep")
    return conn


def finished(conn: sqlite3.Connection) -> set[str]:
    """Names of the models already stored.

    Parameters
    ----------
    conn : sqlite3.Connection
        The open store.

    Returns
    -------
    set of str
        The model names.
    """
    return {r[0] for r in conn.execute("SELECT name FROM models")}


def write_model(conn: sqlite3.Connection, row: dict) -> None:
    """Store one scored model and its topics in a single transaction (all or nothing).

    Parameters
    ----------
    conn : sqlite3.Connection
        The open store.
    row : dict
        The model's identity, settings and :func:`~tealeaves.sweep.measures.score_model` output.
    """
    with conn:
        conn.execute(
            "INSERT INTO models VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (row["name"], row["k"], row["seed"], row["engine"], json.dumps(row["settings"], sort_keys=True),
             row["signature"], row["description"], row["fit_seconds"], row["score_seconds"],
             json.dumps(row["measures"], allow_nan=False), row["vocabulary_hash"], row["split_hash"],
             np.asarray(row["doc_loglik"], dtype="<f8").tobytes(),
             np.asarray(row["doc_words"], dtype="<i8").tobytes(),
             np.asarray(row["topic_word"], dtype="<f8").tobytes()))
        conn.executemany("INSERT INTO topics VALUES (?, ?, ?, ?, ?, ?)", [
            (row["name"], t["topic"], json.dumps(t["top_words"], ensure_ascii=False),
             json.dumps(t["scores"], allow_nan=False), json.dumps(t["pairs"], allow_nan=False),
             json.dumps(t["flags"], ensure_ascii=False))
            for t in row["topics"]])
