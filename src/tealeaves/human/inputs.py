"""Input files of a study: document-topic proportions, the documents shown, multilingual word lists.

:func:`~tealeaves.human.study.build_study` accepts each of these as a path and reads it here;
the command line (``human build-study --doc-topic --documents --multilingual``) passes the
paths through.  Errors name the Python parameter (``doc_topic``, ``documents``,
``multilingual``); the command line names its option instead.

Examples
--------
>>> load_documents([{"title": "Oil", "text": "Prices rose."}, {"title": "Cats", "text": "Pets.", "id": "c"}])
{'titles': ['Oil', 'Cats'], 'texts': ['Prices rose.', 'Pets.'], 'doc_ids': ['0', 'c']}
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from tealeaves._io import existing_file, read_lines, read_text
from tealeaves._params import naming
from tealeaves._terminal import escape
from tealeaves.errors import InputFormatError, ParameterError, TealeavesError
from tealeaves.validation import check_unique


def is_path(value: object) -> bool:
    """Whether ``value`` names a file (a ``str`` or an ``os.PathLike``) rather than holding the data.

    Parameters
    ----------
    value : object
        An argument that may be a path or the data itself.

    Returns
    -------
    bool
        True for a ``str`` or an ``os.PathLike``.
    """
    return isinstance(value, (str, os.PathLike))


def _read(reader, path: str | os.PathLike, name: str):
    """``reader(path, what="NAME file")`` (``existing_file``, ``read_text``...), errors naming ``name``."""
    try:
        return reader(path, what=f"{name} file")
    except TealeavesError as exc:
        raise naming(exc, name) from None


def load_doc_topic(path: str | os.PathLike):
    """Read document-topic proportions: a ``D x K`` array of finite numbers saved with ``numpy.save``.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.npy`` file (``numpy.save(path, model.transform(corpus))``).

    Returns
    -------
    numpy.ndarray
        The ``D x K`` array.

    Raises
    ------
    InputNotFoundError
        The file does not exist.
    InputFormatError
        It is not a ``.npy`` array, or not a two-dimensional array of finite numbers.
    """
    import numpy as np

    p = _read(existing_file, path, "doc_topic")
    try:
        theta = np.load(p, allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise naming(InputFormatError(f"doc_topic '{p}' is not a .npy array ({exc})",
                                      fix="save it with numpy.save(path, theta)"), "doc_topic") from None
    real = np.issubdtype(theta.dtype, np.integer) or np.issubdtype(theta.dtype, np.floating)
    if theta.ndim != 2 or not real or not np.all(np.isfinite(theta)):
        raise naming(InputFormatError(f"doc_topic '{p}' must be a D x K array of finite numbers, got shape "
                                      f"{theta.shape} of {theta.dtype}", fix="save model.transform(corpus)"),
                     "doc_topic")
    return theta


def _records(path: str | os.PathLike) -> list[Any]:
    """``(line number, record, line)`` of a ``documents`` JSON Lines file (blank lines skipped)."""
    out = []
    for n, line in enumerate(_read(read_lines, path, "documents"), 1):
        if not line.strip():
            continue
        try:
            out.append((n, json.loads(line), line))
        except (ValueError, RecursionError) as exc:  # RecursionError: nested too deeply
            raise naming(InputFormatError(f"documents '{path}' line {n} is not JSON ({exc})"),
                         "documents") from None
    return out


def load_documents(documents: str | os.PathLike | Sequence[Mapping], n_rows: int | None = None) -> dict:
    """Read the documents shown in topic intrusion: records with a string ``title`` and ``text``.

    Parameters
    ----------
    documents : str, os.PathLike or sequence of mapping
        A JSON Lines file (one object per line), or the records themselves; each has a string
        ``title`` and ``text`` (missing: empty) and optionally an ``id`` (default: its row number).
    n_rows : int, optional
        The number of rows of ``doc_topic``: there must be one record per row, in the same order.

    Returns
    -------
    dict
        ``{"titles": [...], "texts": [...], "doc_ids": [...]}``, the keyword arguments of
        :func:`~tealeaves.human.study.build_study` that they stand for.

    Raises
    ------
    InputFormatError
        A line is not JSON, a record is not an object with string ``title`` and ``text``, or
        the number of records differs from ``n_rows``.
    ParameterError
        Two records have the same id.
    """
    where, row = (f" '{documents}'", "line") if is_path(documents) else ("", "record")
    if is_path(documents):
        records = _records(documents)
    elif isinstance(documents, Sequence) and not isinstance(documents, (str, bytes)):
        records = [(n, doc, repr(doc)) for n, doc in enumerate(documents, 1)]
    else:
        raise naming(ParameterError(f"documents must be a JSON Lines path or a list of records with 'title' "
                                    f"and 'text', got {type(documents).__name__}"), "documents")
    docs = []
    for n, doc, text in records:
        strings = isinstance(doc, Mapping) and all(isinstance(doc.get(k, ""), str) for k in ("title", "text"))
        if not strings:
            raise naming(InputFormatError(f"documents{where} {row} {n} must be an object with string 'title' "
                                          f"and 'text', found {escape(text[:60])!r}"), "documents")
        docs.append(doc)
    if n_rows is not None and len(docs) != n_rows:
        raise naming(InputFormatError(f"documents{where} has {len(docs)} records but `doc_topic` "
                                      f"{n_rows} rows",
                                      fix="give one line per row of the proportions, in the same order"),
                     "documents", "doc_topic")
    ids = [str(d.get("id", i)) for i, d in enumerate(docs)]
    return {"titles": [d.get("title", "") for d in docs], "texts": [d.get("text", "") for d in docs],
            "doc_ids": check_unique(ids, "document ids")}


def load_multilingual(path: str | os.PathLike) -> dict[str, list[list[str]]]:
    """Read per-language topic word lists: JSON ``{language: [[words of topic 0], ...]}``.

    Parameters
    ----------
    path : str or os.PathLike
        The JSON file.

    Returns
    -------
    dict
        ``language -> list of word lists`` (one non-empty list of non-empty strings per topic).

    Raises
    ------
    InputFormatError
        The file is not JSON or does not have that shape.
    """
    text = _read(read_text, path, "multilingual")
    try:
        raw = json.loads(text)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested too deeply
        raise naming(InputFormatError(f"multilingual '{path}' is not JSON ({exc})"), "multilingual") from None
    ok = isinstance(raw, dict) and all(
        isinstance(ws, list) and all(isinstance(t, list) and t and all(isinstance(w, str) and w for w in t)
                                     for t in ws) for ws in raw.values())
    if not ok:
        raise naming(InputFormatError(f"multilingual '{path}' must be an object {{language: [[word, ...], "
                                      "...]} with one non-empty list of words (strings) per topic"),
                     "multilingual")
    return raw


def resolve_documents(doc_topic, documents, titles, texts, doc_ids) -> tuple:
    """``doc_topic``, ``titles``, ``texts`` and ``doc_ids`` of :func:`build_study`, read from files as given.

    ``doc_topic`` may be a ``.npy`` path (:func:`load_doc_topic`) and ``documents`` a JSON Lines
    path or records (:func:`load_documents`), which stand for ``titles``, ``texts`` and
    ``doc_ids``.  A ``doc_topic`` file needs its documents (or ``titles`` and ``texts``).

    Parameters
    ----------
    doc_topic : array-like, str, os.PathLike or None
        Document-topic proportions, or their ``.npy`` file.
    documents : str, os.PathLike, sequence of mapping or None
        The documents' records, or their JSON Lines file.
    titles, texts, doc_ids : sequence of str or None
        The documents given column by column (not together with ``documents``).

    Returns
    -------
    tuple
        ``(doc_topic, titles, texts, doc_ids)``.

    Raises
    ------
    ParameterError
        When ``documents`` is given with ``titles``, ``texts`` or ``doc_ids``, or a ``doc_topic``
        file comes without its documents.
    InputNotFoundError, InputFormatError
        From reading the files (:func:`load_doc_topic`, :func:`load_documents`).
    """
    from_file = is_path(doc_topic)
    if from_file:
        doc_topic = load_doc_topic(doc_topic)
    if documents is not None:
        if titles is not None or texts is not None or doc_ids is not None:
            raise naming(ParameterError("give `documents`, or titles and texts (and doc_ids), not both"),
                     "documents")
        n_rows = len(doc_topic) if hasattr(doc_topic, "__len__") else None  # else: build_study's check
        loaded = load_documents(documents, n_rows)
        return doc_topic, loaded["titles"], loaded["texts"], loaded["doc_ids"]
    if from_file and (titles is None or texts is None):
        raise naming(ParameterError("doc_topic needs `documents` (JSON lines with 'title' and 'text')"),
                     "doc_topic", "documents")
    return doc_topic, titles, texts, doc_ids
