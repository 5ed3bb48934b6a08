"""Writing one scored model into a results store: checked first, then stored in one transaction.

:func:`write_model` builds the version 2 row (:func:`model_values`, with the defaults of
:mod:`tealeaves.store.format`), checks it with the same validator every reader runs
(:func:`tealeaves.store.validate.check_row`), so no writer can store what a reader would
refuse (a NaN, a missing topic, a blob of the wrong length), and writes the model and its
topics in one ``BEGIN IMMEDIATE`` transaction.
"""

from __future__ import annotations

import json
import sqlite3

import numpy as np

from tealeaves.store.format import _store_path, writing
from tealeaves.store.validate import check_row


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
