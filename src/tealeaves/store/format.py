"""The results store's format: one SQLite file, one row per model and one per topic.

Layout (``SCHEMA_VERSION`` 2; the file is in WAL mode so a report can read it while a
sweep writes):

* ``meta(key, value)``: ``schema_version`` (``"2"``), ``tealeaves_version``, ``sweep``
  (the JSON of what every model of the store shares: ``kind`` (``"sweep"`` or
  ``"evaluate"``), corpus and test fingerprints, split, ``measures`` (the list of coherence
  measures every model and topic is scored with), reference -- a store is refused for a run
  that shares other data), ``vocabulary`` (JSON list: the training
  vocabulary) and ``preprocessing`` (JSON: the training corpus's recipe, the shape of
  ``Preprocessor.get_params()``, or ``null`` when unknown);
* ``models``: one row per finished model: ``name`` (a sweep's: ``<engine>-K<k>-s<seed>``),
  ``k``, ``seed`` (``NULL`` when unknown), ``engine``, ``settings`` (JSON), ``signature``
  (of its completion perplexity), ``description``, ``fit_seconds``, ``score_seconds``,
  ``measures`` (JSON: every measure a finite number or ``null``, with one reason in words
  per ``null`` in ``measures["unavailable"]``; ``signatures`` and ``flags``),
  ``vocabulary_hash``, ``split_hash`` (the held-out words scored), ``doc_loglik`` and
  ``doc_words`` (per-document held-out log-likelihood and word counts, float64 / int64
  little-endian bytes), ``topic_word`` (the K x V topic-word probabilities, float64 bytes,
  over ``meta.vocabulary`` or the model's own ``vocabulary``), ``config`` (the
  configuration this model is one run of: a sweep's ``<engine>-K<k>``), ``run`` (the run's
  index within its config: a sweep's seed), ``source`` (JSON: ``{"kind": "sweep"}`` for a
  fitted model, else the library and, for a file, its ``path``, ``bytes`` and
  ``sha256``), ``vocabulary`` (``NULL``: ``meta.vocabulary``; else the JSON list of the
  model's own words) and ``alpha`` (``NULL`` or the K float64 Dirichlet prior);
* ``topics``: one row per topic of a model: ``model``, ``topic`` (``0 .. K-1``),
  ``top_words`` (JSON), ``scores`` (JSON: per-topic coherences, significance...; ``null``
  for a topic a measure could not score), ``pairs`` (JSON: the pair matrix of the first
  coherence measure, for the report's heatmap), ``flags`` (JSON: the junk-topic flags
  raised, each with its explanation).

Version 1 stores (no ``config``, ``run``, ``source``, ``vocabulary``, ``alpha`` columns
nor ``meta.preprocessing``) are read as ``config = <engine>-K<k>``, ``run = seed``,
``source = {"kind": "sweep"}`` and no alpha; nothing is written into them.

A model and its topics are written in one transaction, so a process killed at any moment
leaves only whole models behind and a rerun resumes by refitting the others.  Two
writers of one store take turns (each write waits up to :data:`LOCK_TIMEOUT` seconds for
the other's); a model another writer stored meanwhile is not written twice.  Every reader
validates the file first (:func:`tealeaves.store.validate.read_contents`).
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import contextmanager
from pathlib import Path

from tealeaves._docs import shared_doc
from tealeaves.errors import IncompatibleStoreError, OutputError, StoreIntegrityError

SCHEMA_VERSION = 2
#: The schema versions this tealeaves reads (it writes only :data:`SCHEMA_VERSION`).
READABLE_VERSIONS = (1, 2)
#: Seconds a writer waits for another writer's transaction before giving up.
LOCK_TIMEOUT = 60.0
#: How to make a damaged or unreadable store again (the ``fix`` of the readers' errors).
REBUILD = ("rerun tealeaves sweep (or evaluate) into a new file with -o; a damaged store cannot be "
           "repaired in place")

#: The columns of each table (name -> declared type), by schema version.
_V1_MODELS = {"name": "TEXT", "k": "INTEGER", "seed": "INTEGER", "engine": "TEXT", "settings": "TEXT",
              "signature": "TEXT", "description": "TEXT", "fit_seconds": "REAL", "score_seconds": "REAL",
              "measures": "TEXT", "vocabulary_hash": "TEXT", "split_hash": "TEXT", "doc_loglik": "BLOB",
              "doc_words": "BLOB", "topic_word": "BLOB"}
_TOPICS = {"model": "TEXT", "topic": "INTEGER", "top_words": "TEXT", "scores": "TEXT", "pairs": "TEXT",
           "flags": "TEXT"}
COLUMNS = {
    1: {"meta": {"key": "TEXT", "value": "TEXT"}, "models": _V1_MODELS, "topics": _TOPICS},
    2: {"meta": {"key": "TEXT", "value": "TEXT"},
        "models": {**_V1_MODELS, "config": "TEXT", "run": "INTEGER", "source": "TEXT", "vocabulary": "TEXT",
                   "alpha": "BLOB"},
        "topics": _TOPICS},
}
#: The meta keys, by schema version.
META_KEYS = {1: ("schema_version", "tealeaves_version", "sweep", "vocabulary"),
             2: ("schema_version", "tealeaves_version", "sweep", "vocabulary", "preprocessing")}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS models (
    name TEXT PRIMARY KEY, k INTEGER NOT NULL, seed INTEGER, engine TEXT NOT NULL,
    settings TEXT NOT NULL, signature TEXT NOT NULL, description TEXT NOT NULL,
    fit_seconds REAL NOT NULL, score_seconds REAL NOT NULL, measures TEXT NOT NULL,
    vocabulary_hash TEXT NOT NULL, split_hash TEXT NOT NULL,
    doc_loglik BLOB NOT NULL, doc_words BLOB NOT NULL, topic_word BLOB NOT NULL,
    config TEXT NOT NULL, run INTEGER NOT NULL, source TEXT NOT NULL, vocabulary TEXT, alpha BLOB);
CREATE TABLE IF NOT EXISTS topics (
    model TEXT NOT NULL REFERENCES models(name), topic INTEGER NOT NULL, top_words TEXT NOT NULL,
    scores TEXT NOT NULL, pairs TEXT NOT NULL, flags TEXT NOT NULL, PRIMARY KEY (model, topic));
"""


def model_name(engine: str, k: int, seed: int) -> str:
    """The name of a sweep's model in a store: ``<engine>-K<k>-s<seed>``.

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


@shared_doc
def is_store(path: str | os.PathLike) -> bool:
    """Whether ``path`` is an existing file that starts like an SQLite database.

    Parameters: %(store_file)s

    Returns
    -------
    bool
        True for an SQLite file (a results store or not).
    """
    try:
        with open(path, "rb") as fh:
            return fh.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def _no_space(path: Path) -> bool:
    """Whether the file system of ``path`` has no room left (SQLite reports a full disk while creating its
    shared-memory file as an I/O error)."""
    try:
        stat = os.statvfs(path.parent if str(path.parent) else ".")
    except OSError:
        return False
    return stat.f_bavail * stat.f_frsize < 64 * 1024


def _failure(exc: BaseException, path: Path, doing: str) -> Exception:
    """The clear error for an SQLite or OS failure while ``doing`` something with the store at ``path``."""
    from tealeaves._io import is_disk_full

    text = str(exc).lower()
    if is_disk_full(exc) or "disk i/o error" in text and _no_space(path):
        return OutputError(f"the disk holding results store '{path}' is full ({doing} failed; the models "
                           "stored before are intact)",
                           fix="free disk space and rerun the same command: it resumes where it stopped")
    if "locked" in text or "busy" in text:
        return OutputError(f"results store '{path}' is locked by another process writing to it ({doing} "
                           f"waited {LOCK_TIMEOUT:g} s)",
                           fix="wait for the other process to finish, or give another path with -o")
    if "readonly" in text or "read-only" in text or isinstance(exc, PermissionError):
        return OutputError(f"results store '{path}' is not writable ({exc})",
                           fix="give a writable path with -o")
    if isinstance(exc, (sqlite3.DatabaseError, sqlite3.IntegrityError)):
        return StoreIntegrityError(f"results store '{path}' is damaged: {doing} failed ({exc})", fix=REBUILD)
    return OutputError(f"cannot use results store '{path}': {doing} failed ({exc})",
                       fix="check the disk and the path given with -o")


@contextmanager
def writing(path: Path, doing: str):
    """Turn SQLite and OS failures inside the block into clear errors (:func:`_failure`).

    Parameters
    ----------
    path : pathlib.Path
        The store, named in the errors.
    doing : str
        What the block does, in words.

    Yields
    ------
    None
        Nothing.

    Raises
    ------
    OutputError
        When the disk is full, the store is locked for too long or not writable.
    StoreIntegrityError
        When SQLite finds the file damaged.
    """
    try:
        yield
    except (sqlite3.Error, OSError) as exc:
        raise _failure(exc, path, doing) from None


def _connect(path: Path) -> sqlite3.Connection:
    with writing(path, "opening it"):
        conn = sqlite3.connect(str(path), timeout=LOCK_TIMEOUT, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
    return conn


def _store_path(conn: sqlite3.Connection) -> Path:
    rows = conn.execute("PRAGMA database_list").fetchall()
    return Path(rows[0][2]) if rows and rows[0][2] else Path(":memory:")


def _version() -> str:
    from tealeaves._version import __version__

    return __version__


def read_meta(conn: sqlite3.Connection, path: Path) -> dict:
    """The meta table (empty for a new file); a schema version this tealeaves cannot read is refused.

    Parameters
    ----------
    conn : sqlite3.Connection
        The open file.
    path : pathlib.Path
        Its path, for messages.

    Returns
    -------
    dict
        ``key -> value`` (``{}`` when the file has no tables).

    Raises
    ------
    IncompatibleStoreError
        When the file is another SQLite database, or has a schema version not in
        :data:`READABLE_VERSIONS`.
    StoreIntegrityError
        When the file is damaged.
    """
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:
            return {}
        if "meta" not in tables:
            raise IncompatibleStoreError(f"'{path}' is an SQLite file but not a tealeaves results store",
                                         fix="give a results store written by tealeaves sweep")
        meta = {}
        for row in conn.execute("SELECT key, value FROM meta").fetchall():
            if len(row) != 2 or not all(isinstance(v, str) for v in row):
                raise StoreIntegrityError(f"results store '{path}' has a meta row that is not two texts "
                                          f"({row!r:.80})", fix=REBUILD)
            meta[row[0]] = row[1]
    except sqlite3.Error as exc:
        raise _failure(exc, path, "reading its meta table") from None
    versions = [str(v) for v in READABLE_VERSIONS]
    if meta.get("schema_version") not in versions:
        raise IncompatibleStoreError(
            f"results store '{path}' has schema version {meta.get('schema_version')!r}; this tealeaves "
            f"({_version()}) reads versions {', '.join(versions)}",
            fix="rerun the sweep into a new file with this version, or use the tealeaves that wrote it")
    return meta


@shared_doc
def read_store(path: str | os.PathLike) -> sqlite3.Connection:
    """Open an existing store for reading (its schema version checked, nothing else).

    Readers should use :func:`tealeaves.store.validate.read_contents`, which validates
    everything.

    Parameters: %(store_file)s

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
    if not is_store(path):
        raise IncompatibleStoreError(f"'{path}' is not a tealeaves results store (not an SQLite file)",
                                     fix="give the -o file of tealeaves sweep")
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=LOCK_TIMEOUT)
    except sqlite3.Error as exc:
        raise _failure(exc, path, "opening it") from None
    try:
        if not read_meta(conn, path):
            raise IncompatibleStoreError(f"'{path}' is an empty SQLite file, not a results store",
                                         fix="give the -o file of tealeaves sweep")
    except BaseException:
        conn.close()
        raise
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
    with writing(_store_path(conn), "listing its models"):
        return {r[0] for r in conn.execute("SELECT name FROM models")}
