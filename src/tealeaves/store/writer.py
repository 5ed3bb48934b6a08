"""Writing a results store: opened for one run, each model checked, then stored in one transaction.

:func:`open_store` opens (or creates) a store for one run, refusing a store of another run,
version or a damaged one.  :func:`write_model` builds the version 2 row (:func:`model_values`,
with the defaults of :mod:`tealeaves.store.format`), checks it with the same validator every reader runs
(:func:`tealeaves.store.validate.check_row`), so no writer can store what a reader would
refuse (a NaN, a missing topic, a blob of the wrong length), and writes the model and its
topics in one ``BEGIN IMMEDIATE`` transaction.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import numpy as np

import tealeaves.store.format as format_module
from tealeaves._docs import shared_doc
from tealeaves.errors import IncompatibleStoreError, OutputError
from tealeaves.store.format import (
    _SCHEMA,
    SCHEMA_VERSION,
    _store_path,
    _version,
    is_store,
    read_meta,
    writing,
)
from tealeaves.store.validate import check_row, read_contents


@shared_doc
def open_store(path: str | os.PathLike, description: dict, vocabulary: list[str] | None = None,
               preprocessing: dict | None = None) -> sqlite3.Connection:
    """Open (creating if needed) the store at ``path`` for the run described by ``description``.

    An existing store must have :data:`SCHEMA_VERSION` and the same ``description``, else
    :class:`IncompatibleStoreError` (a version 1 store is read, never written: its fix says
    to start a new file); a file that is not SQLite is refused too.

    Parameters
    ----------
    %(store_file)s
    description : dict
        What every model of the store shares (JSON-able; ``meta.sweep``).
    vocabulary : list of str, optional
        The training vocabulary, recorded in a new store (``meta.vocabulary``).
    preprocessing : dict, optional
        The training corpus's preprocessing recipe (``meta.preprocessing``; None: unknown).

    Returns
    -------
    sqlite3.Connection
        The open store (autocommit; :func:`write_model` makes its own transactions).

    Raises
    ------
    OutputError
        When the path is a folder, its folder is missing, it is not writable, or the disk is full.
    IncompatibleStoreError
        When the file is not a store, or holds another run or schema version.
    StoreIntegrityError
        When an existing store is damaged (:func:`tealeaves.store.validate.read_contents`).
    """
    conn, _ = _open(_checked_path(path), description, vocabulary, preprocessing)
    return conn


def _checked_path(path: str | os.PathLike) -> Path:
    """``path`` as a Path, refused when it cannot be a store this process writes (see :func:`open_store`)."""
    path = Path(path).expanduser()
    if path.is_dir():
        raise OutputError(f"results store '{path}' is a folder", fix="give a file path with -o")
    if path.exists() and path.stat().st_size and not is_store(path):
        raise IncompatibleStoreError(f"'{path}' is not a tealeaves results store (not an SQLite file)",
                                     fix="give a new path with -o, or remove the file")
    if not path.parent.is_dir():
        raise OutputError(f"the folder of results store '{path}' does not exist",
                          fix="create it or give another path with -o")
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise OutputError(f"results store '{path}' is not writable", fix="give a writable path with -o")
    return path


def _open(path: Path, description: dict, vocabulary, preprocessing) -> tuple[sqlite3.Connection, bool]:
    """:func:`open_store` after its path checks; also whether this call created the store's tables.

    A store whose creation fails (a full disk, an interrupt) is removed again: no empty file is left.
    """
    fresh = not path.exists()
    sides = [Path(f"{path}{suffix}") for suffix in ("-wal", "-shm")]
    had = [side.exists() for side in sides]
    try:
        conn = format_module._connect(path)  # looked up here: tests limit its size
    except BaseException:
        if fresh:
            remove_store(path)
        for side, existed in zip(sides, had):  # SQLite's side files made by a failed opening
            if not existed:
                with contextlib.suppress(OSError):
                    side.unlink()
        raise
    text = json.dumps(description, sort_keys=True)
    existing: dict = {}
    try:
        with writing(path, "creating its tables"):
            conn.execute("BEGIN IMMEDIATE")  # two writers creating one store: one creates, one checks
            try:
                existing = read_meta(conn, path)
                if not existing:
                    _create(conn, text, vocabulary, preprocessing)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        if existing:
            _check_writable(existing, text, description, path)
            read_contents(path)  # resume only a store every reader accepts
    except BaseException:
        conn.close()
        if fresh and not existing:
            remove_store(path)
        raise
    return conn, not existing


@shared_doc
def remove_store(path: str | os.PathLike) -> None:
    """Delete a store's file and SQLite's side files (``-wal``, ``-shm``, ``-journal``), where present.

    Parameters: %(store_file)s
    """
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(OSError):
            os.unlink(f"{path}{suffix}")


@contextlib.contextmanager
@shared_doc
def store_run(path: str | os.PathLike, description: dict, vocabulary: list[str] | None = None,
              preprocessing: dict | None = None) -> Iterator[sqlite3.Connection]:
    """:func:`open_store` for one whole run of a writer, closed at its end.

    When the run fails (an error, an interrupt, an unreachable scheduler) and the store was created by
    this run and holds no model yet, it is removed: a failed run leaves either nothing or the store as it
    was before.  (A store another process writes to is never removed: its tables existed when this run
    opened it.)

    Parameters
    ----------
    %(store_file)s
    description : dict
        What every model of the store shares (see :func:`open_store`).
    vocabulary : list of str, optional
        The training vocabulary.
    preprocessing : dict, optional
        The training corpus's preprocessing recipe.

    Yields
    ------
    sqlite3.Connection
        The open store.

    Raises
    ------
    OutputError
        As :func:`open_store`.
    IncompatibleStoreError
        As :func:`open_store`.
    StoreIntegrityError
        As :func:`open_store`.
    """
    path = _checked_path(path)
    conn, created = _open(path, description, vocabulary, preprocessing)
    try:
        yield conn
    except BaseException:
        empty = False
        with contextlib.suppress(sqlite3.Error):
            empty = conn.execute("SELECT COUNT(*) FROM models").fetchone()[0] == 0
        _close(conn)
        if created and empty:
            remove_store(path)
        raise
    _close(conn)


def _close(conn: sqlite3.Connection) -> None:
    """Close a writer's connection, leaving the store in rollback-journal mode when no one else has it open.

    A store left in WAL mode makes every later reader, even a read-only one, create ``-wal`` and ``-shm``
    files beside it that stay; in rollback-journal mode a reader leaves nothing.  The next writer turns WAL
    on again (:func:`tealeaves.store.format._connect`); while another process has the store open the switch
    fails and the store stays in WAL mode, which is harmless.
    """
    with contextlib.suppress(sqlite3.Error):
        conn.execute("PRAGMA journal_mode=DELETE")
    conn.close()


def _create(conn: sqlite3.Connection, description: str, vocabulary, preprocessing) -> None:
    for statement in _SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.executemany("INSERT INTO meta VALUES (?, ?)", [
        ("schema_version", str(SCHEMA_VERSION)), ("tealeaves_version", _version()),
        ("sweep", description),
        ("vocabulary", json.dumps(list(vocabulary or []), ensure_ascii=False)),
        ("preprocessing", json.dumps(preprocessing, sort_keys=True, allow_nan=False))])


def _check_writable(existing: dict, text: str, description: dict, path: Path) -> None:
    if existing.get("schema_version") != str(SCHEMA_VERSION):
        raise IncompatibleStoreError(
            f"results store '{path}' has schema version {existing.get('schema_version')}, which this "
            f"tealeaves ({_version()}) reads but does not add models to",
            fix="give a new path with -o to start a version "
                f"{SCHEMA_VERSION} store")
    if existing.get("sweep") != text:
        try:
            old = json.loads(existing["sweep"])
        except ValueError:
            old = {}
        run = "sweep" if description.get("kind", "sweep") == "sweep" else "evaluation"
        raise IncompatibleStoreError(
            f"results store '{path}' holds a {run} over other data or settings "
            f"({_difference(old if isinstance(old, dict) else {}, description)})",
            fix=f"give a new path with -o to start another {run}")


def _difference(old: dict, new: dict) -> str:
    keys = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
    return "differs in " + ", ".join(keys) if keys else "differs"


def _blob(values, dtype: str) -> bytes | None:
    return None if values is None else np.ascontiguousarray(values, dtype=dtype).tobytes()


def model_values(row: dict) -> dict:
    """The ``models`` columns of ``row`` (a scored model), with the version 2 defaults filled in.

    Parameters
    ----------
    row : dict
        The model's identity, settings and scores; ``config`` (default ``<engine>-K<k>``),
        ``run`` (default: the seed), ``source`` (default ``{"kind": "sweep"}``),
        ``vocabulary`` (default None: ``meta.vocabulary``) and ``alpha`` (default None)
        may be left out; ``seed`` may be None.

    Returns
    -------
    dict
        Column name -> the value written.
    """
    measures = row["measures"]
    return {
        "name": row["name"], "k": int(row["k"]),
        "seed": None if row.get("seed") is None else int(row["seed"]),
        "engine": row["engine"], "settings": json.dumps(row["settings"], sort_keys=True),
        "signature": row["signature"], "description": row["description"],
        "fit_seconds": float(row["fit_seconds"]), "score_seconds": float(row["score_seconds"]),
        "measures": json.dumps(measures), "vocabulary_hash": row["vocabulary_hash"],
        "split_hash": row["split_hash"], "doc_loglik": _blob(row["doc_loglik"], "<f8"),
        "doc_words": _blob(row["doc_words"], "<i8"), "topic_word": _blob(row["topic_word"], "<f8"),
        "config": row.get("config") or f"{row['engine']}-K{int(row['k'])}",
        "run": int(row["run"] if row.get("run") is not None else row["seed"]),
        "source": json.dumps(row.get("source") or {"kind": "sweep"}, sort_keys=True),
        "vocabulary": None if row.get("vocabulary") is None else json.dumps(list(row["vocabulary"]),
                                                                            ensure_ascii=False),
        "alpha": _blob(row.get("alpha"), "<f8"),
    }


def write_model(conn: sqlite3.Connection, row: dict) -> bool:
    """Store one scored model and its topics in a single transaction (all or nothing).

    A model of that name already in the store (written meanwhile by another process on the
    same store) is left as it is.

    Parameters
    ----------
    conn : sqlite3.Connection
        The open store (:func:`~tealeaves.store.format.open_store`).
    row : dict
        The model's identity, settings and :func:`~tealeaves.sweep.measures.score_model`
        output (see :func:`model_values` for the version 2 columns and their defaults).

    Returns
    -------
    bool
        True when written, False when the store already held a model of that name.

    Raises
    ------
    StoreIntegrityError
        When the row is not what the schema says (a NaN, a missing topic, a blob of the wrong
        length...): nothing is written.
    OutputError
        When the disk is full, or another writer holds the store longer than
        :data:`~tealeaves.store.format.LOCK_TIMEOUT`.
    """
    values = model_values(row)
    topics = [(row["name"], int(t["topic"]), json.dumps(t["top_words"], ensure_ascii=False),
               json.dumps(t["scores"]), json.dumps(t["pairs"]),
               json.dumps(t["flags"], ensure_ascii=False)) for t in row["topics"]]
    path = _store_path(conn)
    with writing(path, "reading its vocabulary"):
        vocabulary = conn.execute("SELECT value FROM meta WHERE key = 'vocabulary'").fetchone()
    check_row(values, topics, json.loads(vocabulary[0]) if vocabulary else [], path)  # as readers will
    with writing(path, f"storing model {row['name']}"):
        conn.execute("BEGIN IMMEDIATE")  # take the write lock first: another writer waits here
        try:
            if conn.execute("SELECT 1 FROM models WHERE name = ?", (row["name"],)).fetchone():
                conn.execute("ROLLBACK")
                return False
            conn.execute(f"INSERT INTO models ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
                         list(values.values()))
            conn.executemany("INSERT INTO topics VALUES (?, ?, ?, ?, ?, ?)", topics)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    return True
