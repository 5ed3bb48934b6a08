"""The one validated reading of a results store: every reader goes through :func:`read_contents`.

Before any number is used, the whole file is checked against its schema
(:mod:`tealeaves.store.format`):

* the schema version is one this tealeaves reads, and each table has exactly its
  version's columns with their declared types;
* ``meta`` holds every key of its version; ``sweep`` is a JSON object, ``vocabulary`` a
  JSON list of distinct words, ``preprocessing`` a JSON object or ``null``;
* each model row: every column of the right type (``seed`` may be ``NULL`` in version 2;
  ``vocabulary`` and ``alpha`` may be ``NULL``), every JSON field parses (``NaN`` and
  ``Infinity`` are not JSON) and has its shape, ``measures`` holds finite numbers or
  ``null`` (plus ``signatures``, ``flags`` and ``unavailable``), each signature parses;
* each blob has its length and values: ``doc_loglik`` (float64, finite, at most 0) and
  ``doc_words`` (int64, at least 0) the same length; ``topic_word`` ``K x V`` float64
  rows of probabilities (finite, non-negative, summing to 1) over the model's vocabulary;
  ``alpha`` ``K`` positive finite float64;
* the stored held-out likelihood agrees with its per-document record: ``heldout_words``
  is the sum of ``doc_words``, ``documents_split`` the number of documents, and
  ``completion_loglik_per_word`` and ``completion_perplexity`` follow from the sum of
  ``doc_loglik`` (relative error at most 1e-9);
* no gap: ``meta.sweep`` lists its coherence ``measures``; every model has the same measure
  names, the likelihood ones and the coherence ones among them (a number or ``null``), and a
  signature for each that is not ``null``; every topic has the same score names;
* referential integrity: each model has exactly the topic rows ``0 .. K-1``, and no topic
  row names a model the store does not hold; per-topic ``scores`` are finite numbers or
  ``null`` (a topic a measure could not score: a documented value), ``pairs`` a square
  matrix over its words, ``flags`` a list of ``{"flag", "explanation"}``.

Anything else is refused with :class:`~tealeaves.errors.StoreIntegrityError`, which names
the model, topic and field and says how to rebuild the store.
"""

from __future__ import annotations

import math
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves._io import loads_strict
from tealeaves.errors import InputFormatError, StoreIntegrityError
from tealeaves.store.format import COLUMNS, META_KEYS, REBUILD, _failure, read_store

#: How far a stored perplexity may be from the one its per-document record gives (relative).
RTOL = 1e-9
#: How far a topic-word row's sum may be from 1.
ROW_ATOL = 1e-6
#: The keys of a model's ``measures`` that are not numbers.
SPECIAL_MEASURES = ("signatures", "flags", "unavailable")
#: The measures every model has (a number, or ``null`` with its reason).
REQUIRED_MEASURES = ("completion_perplexity", "completion_loglik_per_word", "uniform_perplexity",
                     "unigram_perplexity", "heldout_words", "documents_split", "documents_too_short",
                     "signatures")


@dataclass
class StoreContents:
    """Everything a results store holds, validated and decoded (:func:`read_contents`).

    Parameters
    ----------
    path : str
        The store's path.
    version : int
        Its schema version.
    sweep : dict
        What every model shares (``meta.sweep``).
    vocabulary : list of str
        The training vocabulary (``meta.vocabulary``).
    preprocessing : dict or None
        The training corpus's recipe (``meta.preprocessing``; None when unknown or version 1).
    models : list of dict
        One per model, ordered by engine, K, seed and name: every column decoded (JSON as
        Python objects, blobs as arrays; ``topic_word`` as ``K x V``), version 1 stores
        given their version 2 defaults.
    topics : list of dict
        One per topic, ordered by model and topic: ``model``, ``topic``, ``top_words``,
        ``scores``, ``pairs``, ``flags`` decoded.
    """

    path: str
    version: int
    sweep: dict
    vocabulary: list
    preprocessing: dict | None
    models: list = field(default_factory=list)
    topics: list = field(default_factory=list)

    def names(self) -> list[str]:
        """The models' names, in store order.

        Returns
        -------
        list of str
            The names.
        """
        return [m["name"] for m in self.models]


class _Undecodable:
    """A TEXT value that is not UTF-8 (kept so the validator can name it instead of SQLite failing)."""

    def __init__(self, data: bytes):
        self.data = data

    def __repr__(self) -> str:
        return "text that is not UTF-8"


def _text_factory(data: bytes):
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return _Undecodable(data)


def _kind(value) -> str:
    """What a stored value is, in words."""
    if isinstance(value, _Undecodable):
        return "text that is not UTF-8"
    return {bytes: "a blob", str: "text", int: "an integer", float: "a real number",
            type(None): "NULL"}.get(type(value), type(value).__name__)


class _Bad:
    """Make the :class:`StoreIntegrityError` naming the store and the place (reading, or writing)."""

    def __init__(self, path: Path, writing: bool = False):
        self.path, self.writing = path, writing

    def __call__(self, where: str, what: str) -> StoreIntegrityError:
        if self.writing:
            return StoreIntegrityError(
                f"refusing to store in results store '{self.path}': {where} {what}",
                fix="nothing was written; the model or its scores are not valid (check the engine's "
                    "settings), or this is a bug in tealeaves: please report it")
        return StoreIntegrityError(f"results store '{self.path}' is damaged: {where} {what}", fix=REBUILD)


def check_row(values: dict, topics: list, vocabulary: list, path: Path) -> None:
    """Check one model row and its topic rows, as written, with the readers' validation.

    Parameters
    ----------
    values : dict
        Column name -> value of the ``models`` row (version 2).
    topics : list of tuple
        Its ``topics`` rows ``(model, topic, top_words, scores, pairs, flags)``.
    vocabulary : list of str
        The store's ``meta.vocabulary``.
    path : pathlib.Path
        The store, for messages.

    Raises
    ------
    StoreIntegrityError
        Naming what a reader would refuse.
    """
    bad = _Bad(path, writing=True)
    model = _model(values, 2, vocabulary, bad)
    _topics(topics, [model], bad)


@shared_doc
def read_contents(path: str | os.PathLike) -> StoreContents:
    """Read and validate the whole results store at ``path`` (see the module docstring).

    Parameters: %(store_file)s

    Returns
    -------
    StoreContents
        Its validated contents.

    Raises
    ------
    InputNotFoundError
        When the file does not exist.
    IncompatibleStoreError
        When the file is not a results store, or has a schema version this tealeaves does not read.
    StoreIntegrityError
        When anything in it is not what its schema says.
    """
    conn = read_store(path)
    path = Path(path).expanduser()
    bad = _Bad(path)
    try:
        meta_rows, model_rows, topic_rows, columns = _read_tables(conn, path, bad)
    except sqlite3.Error as exc:
        raise _failure(exc, path, "reading it") from None
    finally:
        conn.close()
    version = int(meta_rows["schema_version"])
    meta = _meta(meta_rows, version, bad)
    models = [_model(dict(zip(columns, row)), version, meta["vocabulary"], bad) for row in model_rows]
    topics = _topics(topic_rows, models, bad)
    _same_measures(models, topics, meta["sweep"]["measures"], bad)
    return StoreContents(str(path), version, meta["sweep"], meta["vocabulary"], meta.get("preprocessing"),
                         models, topics)


def _read_tables(conn: sqlite3.Connection, path: Path, bad: _Bad):
    from tealeaves.store.format import read_meta

    conn.text_factory = _text_factory
    meta = read_meta(conn, path)
    version = int(meta["schema_version"])
    for table, expected in COLUMNS[version].items():
        found = {r[1]: r[2].upper() for r in conn.execute(f"PRAGMA table_info({table})").fetchall()}
        if found != expected:
            raise bad(f"table {table!r}", _column_difference(found, expected))
    columns = list(COLUMNS[version]["models"])
    models = conn.execute(f"SELECT {', '.join(columns)} FROM models ORDER BY engine, k, seed, name"
                          ).fetchall()
    topics = conn.execute("SELECT model, topic, top_words, scores, pairs, flags FROM topics "
                          "ORDER BY model, topic").fetchall()
    return meta, models, topics, columns


def _column_difference(found: dict, expected: dict) -> str:
    if not found:
        return "is missing"
    missing = [c for c in expected if c not in found]
    extra = [c for c in found if c not in expected]
    typed = [f"{c} is {found[c] or 'untyped'}, not {t}" for c, t in expected.items()
             if c in found and found[c] != t]
    parts = ([f"lacks column(s) {', '.join(missing)}"] if missing else []) + \
        ([f"has unknown column(s) {', '.join(extra)}"] if extra else []) + typed
    return "; ".join(parts)


def _json(text, where: str, name: str, bad: _Bad):
    if not isinstance(text, str):
        raise bad(where, f"{name} is {_kind(text)}, not JSON text")
    try:
        return loads_strict(text)
    except (ValueError, RecursionError) as exc:
        raise bad(where, f"{name} is not valid JSON ({str(exc)[:80]})") from None


def _words(value, where: str, name: str, bad: _Bad, empty: bool = False) -> list:
    if not isinstance(value, list) or not all(isinstance(w, str) for w in value):
        raise bad(where, f"{name} is not a list of words")
    if not value and not empty:
        raise bad(where, f"{name} is empty")
    if len(set(value)) != len(value):
        raise bad(where, f"{name} lists a word twice")
    return value


def _meta(rows: dict, version: int, bad: _Bad) -> dict:
    missing = [k for k in META_KEYS[version] if k not in rows]
    if missing:
        raise bad("table 'meta'", f"lacks {', '.join(missing)}")
    sweep = _json(rows["sweep"], "meta", "sweep", bad)
    if not isinstance(sweep, dict):
        raise bad("meta", "sweep is not a JSON object")
    if not isinstance(sweep.get("measures"), list) or not all(isinstance(m, str) for m in sweep["measures"]):
        raise bad("meta", "sweep lacks its list of coherence measures ('measures')")
    meta = {"sweep": sweep,
            "vocabulary": _words(_json(rows["vocabulary"], "meta", "vocabulary", bad), "meta", "vocabulary",
                                 bad, empty=True)}
    if version >= 2:
        recipe = _json(rows["preprocessing"], "meta", "preprocessing", bad)
        if recipe is not None and not isinstance(recipe, dict):
            raise bad("meta", "preprocessing is neither a JSON object nor null")
        meta["preprocessing"] = recipe
    return meta


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _text(row: dict, name: str, where: str, bad: _Bad, empty: bool = True) -> str:
    value = row[name]
    if not isinstance(value, str) or (not empty and not value):
        raise bad(where, f"{name} is {'empty' if value == '' else _kind(value)}, not text")
    return value


def _array(blob, dtype: str, where: str, name: str, bad: _Bad, length: int | None = None,
           shape: str | None = None) -> np.ndarray:
    if not isinstance(blob, bytes):
        raise bad(where, f"{name} is {_kind(blob)}, not a blob of {dtype} values")
    if len(blob) % 8:
        raise bad(where, f"{name} has {len(blob)} bytes, not a whole number of 8-byte {dtype} values "
                         "(truncated?)")
    values = np.frombuffer(blob, dtype="<f8" if dtype == "float64" else "<i8")
    if length is not None and len(values) != length:
        raise bad(where, f"{name} holds {len(values)} {dtype} values, not {shape or length}")
    if dtype == "float64" and not np.isfinite(values).all():
        raise bad(where, f"{name} holds NaN or infinite values")
    return values


def _model(row: dict, version: int, vocabulary: list, bad: _Bad) -> dict:
    name = row["name"]
    if not isinstance(name, str) or not name:
        raise bad("a model row", f"has the name {name!r}, not a non-empty text")
    where = f"model {name!r}:"
    out = {"name": name}
    for column in ("engine", "signature", "description", "vocabulary_hash", "split_hash"):
        out[column] = _text(row, column, where, bad, empty=column == "description")
    out["k"] = row["k"]
    if not _is_int(out["k"]) or out["k"] < 1:
        raise bad(where, f"k is {out['k']!r}, not a whole number >= 1")
    out["seed"] = row["seed"]
    if not (_is_int(out["seed"]) and out["seed"] >= 0 or out["seed"] is None and version >= 2):
        raise bad(where, f"seed is {out['seed']!r}, not a whole number >= 0")
    for column in ("fit_seconds", "score_seconds"):
        if not _is_number(row[column]) or row[column] < 0:
            raise bad(where, f"{column} is {row[column]!r}, not a finite number of seconds")
        out[column] = float(row[column])
    out["settings"] = _json(row["settings"], where, "settings", bad)
    if not isinstance(out["settings"], dict):
        raise bad(where, "settings is not a JSON object")
    out.update(_identity(row, version, out, where, bad))
    own = vocabulary if out["vocabulary"] is None else out["vocabulary"]
    out["measures"] = _measures(_json(row["measures"], where, "measures", bad), where, bad)
    _signature(out["signature"], where, "signature", bad)
    _blobs(row, out, len(own), where, bad)
    return out


def _identity(row: dict, version: int, out: dict, where: str, bad: _Bad) -> dict:
    """``config``, ``run``, ``source``, ``vocabulary`` (version 1: their defaults)."""
    if version < 2:
        return {"config": f"{out['engine']}-K{out['k']}", "run": out["seed"], "source": {"kind": "sweep"},
                "vocabulary": None}
    config = _text(row, "config", where, bad, empty=False)
    if not _is_int(row["run"]):
        raise bad(where, f"run is {row['run']!r}, not a whole number")
    source = _json(row["source"], where, "source", bad)
    if not isinstance(source, dict) or not isinstance(source.get("kind"), str):
        raise bad(where, "source is not a JSON object with a 'kind'")
    own = None if row["vocabulary"] is None else _words(_json(row["vocabulary"], where, "vocabulary", bad),
                                                        where, "vocabulary", bad)
    return {"config": config, "run": row["run"], "source": source, "vocabulary": own}


def _signature(text, where: str, name: str, bad: _Bad) -> None:
    from tealeaves.signature import Signature

    if not isinstance(text, str):
        raise bad(where, f"{name} is not a signature")
    try:
        Signature.parse(text)
    except InputFormatError as exc:
        raise bad(where, f"{name} is not a signature ({exc.what})") from None


def _measures(measures, where: str, bad: _Bad) -> dict:
    if not isinstance(measures, dict):
        raise bad(where, "measures is not a JSON object")
    for key, value in measures.items():
        if key == "signatures":
            if not isinstance(value, dict):
                raise bad(where, "measures['signatures'] is not a JSON object")
            for measure, text in value.items():
                _signature(text, where, f"the signature of {measure!r}", bad)
        elif key == "unavailable":
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                raise bad(where, "measures['unavailable'] is not an object of reasons in words")
        elif key == "flags":
            if value is not None and not (
                    isinstance(value, dict) and isinstance(value.get("signature"), str)
                    and isinstance(value.get("checked"), list)
                    and all(isinstance(c, str) for c in value["checked"])
                    and isinstance(value.get("skipped"), dict)
                    and all(isinstance(v, str) for v in value["skipped"].values())):
                raise bad(where, "measures['flags'] is neither null nor {checked, skipped, signature}")
        elif value is not None and not _is_number(value):
            raise bad(where, f"measure {key!r} is {value!r:.40}, not a finite number or null")
    return measures


def _blobs(row: dict, out: dict, n_words: int, where: str, bad: _Bad) -> None:
    k = out["k"]
    loglik = _array(row["doc_loglik"], "float64", where, "doc_loglik", bad)
    words = _array(row["doc_words"], "int64", where, "doc_words", bad, length=len(loglik))
    if (loglik > 0).any():
        raise bad(where, "doc_loglik holds a positive log-likelihood")
    if (words < 0).any():
        raise bad(where, "doc_words holds a negative word count")
    if n_words == 0:
        raise bad(where, "has no vocabulary (meta.vocabulary is empty and the model has none of its own)")
    phi = _array(row["topic_word"], "float64", where, "topic_word", bad, length=k * n_words,
                 shape=f"K x V = {k} x {n_words}").reshape(k, n_words)
    if (phi < 0).any():
        raise bad(where, "topic_word holds a negative probability")
    sums = phi.sum(axis=1)
    if (np.abs(sums - 1) > ROW_ATOL).any():
        t = int(np.argmax(np.abs(sums - 1)))
        raise bad(where, f"topic_word row {t} sums to {sums[t]:.9g}, not 1")
    alpha = row.get("alpha")
    if alpha is not None:
        alpha = _array(alpha, "float64", where, "alpha", bad, length=k)
        if (alpha <= 0).any():
            raise bad(where, "alpha holds a value <= 0")
    out.update(doc_loglik=loglik, doc_words=words, topic_word=phi, alpha=alpha)
    _check_heldout(out, where, bad)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= RTOL * max(abs(a), abs(b), 1e-300)


def _check_heldout(out: dict, where: str, bad: _Bad) -> None:
    """The stored likelihood measures agree with the per-document record they were computed from."""
    m, loglik, words = out["measures"], out["doc_loglik"], out["doc_words"]
    if m.get("heldout_words") is not None and m["heldout_words"] != int(words.sum()):
        raise bad(where, f"heldout_words is {m['heldout_words']}, but doc_words sums to {int(words.sum())}")
    if m.get("documents_split") is not None and m["documents_split"] != len(loglik):
        raise bad(where, f"documents_split is {m['documents_split']}, but doc_loglik holds {len(loglik)} "
                         "documents")
    if m.get("completion_perplexity") is None:
        return
    n = int(words.sum())
    if n == 0:
        raise bad(where, "has a completion perplexity but no held-out words")
    per_word = float(loglik.sum()) / n
    stored = m.get("completion_loglik_per_word")
    if stored is not None and not _close(stored, per_word):
        raise bad(where, f"completion_loglik_per_word is {stored!r}, but doc_loglik gives {per_word!r}")
    if not _close(m["completion_perplexity"], math.exp(-per_word)):
        raise bad(where, f"completion_perplexity is {m['completion_perplexity']!r}, but doc_loglik gives "
                         f"{math.exp(-per_word)!r}")


def _topics(rows: list, models: list, bad: _Bad) -> list:
    ks = {m["name"]: m["k"] for m in models}
    seen: dict[str, set] = {name: set() for name in ks}
    out = []
    for model, topic, words, scores, pairs, flags in rows:
        if model not in ks:
            raise bad(f"topic {topic!r} of model {model!r}:",
                      "has no model row (a topic row without its model)")
        where = f"model {model!r}, topic {topic!r}:"
        if not _is_int(topic) or not 0 <= topic < ks[model]:
            raise bad(where, f"the topic is not a whole number from 0 to K-1 = {ks[model] - 1}")
        if topic in seen[model]:
            raise bad(where, "is stored twice")
        seen[model].add(topic)
        out.append({"model": model, "topic": topic,
                    "top_words": _words(_json(words, where, "top_words", bad), where, "top_words", bad),
                    "scores": _scores(_json(scores, where, "scores", bad), where, bad),
                    "pairs": _pairs(_json(pairs, where, "pairs", bad), where, bad),
                    "flags": _flags(_json(flags, where, "flags", bad), where, bad)})
    for name, k in ks.items():
        if len(seen[name]) != k:
            missing = sorted(set(range(k)) - seen[name])
            raise bad(f"model {name!r}:",
                      f"has K={k} but no row for topic(s) {', '.join(map(str, missing[:10]))}")
    return out


def _same_measures(models: list, topics: list, coherence: list, bad: _Bad) -> None:
    """No gap: every model has the same measures and every topic the same scores, the sweep's included."""
    first = None
    for m in models:
        where = f"model {m['name']!r}:"
        keys = set(m["measures"]) - {"unavailable"}
        missing = [k for k in (*REQUIRED_MEASURES, *coherence) if k not in keys]
        if missing:
            raise bad(where, f"measures lacks {', '.join(missing)}")
        if first is not None and keys != first[1]:
            odd = sorted(keys ^ first[1])
            raise bad(where, f"measures differ in name from model {first[0]!r}'s ({', '.join(odd[:5])})")
        first = first or (m["name"], keys)
        signatures = m["measures"]["signatures"]
        for name in ("completion_perplexity", *coherence):
            key = "completion" if name == "completion_perplexity" else name
            if m["measures"][name] is not None and key not in signatures:
                raise bad(where, f"measures has {name} but no signature for {key!r}")
    first = None
    for t in topics:
        keys = set(t["scores"])
        if not set(coherence) <= keys or (first is not None and keys != first[1]):
            raise bad(f"model {t['model']!r}, topic {t['topic']}:",
                      f"scores {sorted(keys)} are not those of the other topics"
                      + (f" ({sorted(first[1])})" if first else f" (lacks one of {', '.join(coherence)})"))
        first = first or ((t["model"], t["topic"]), keys)


def _scores(scores, where: str, bad: _Bad) -> dict:
    if not isinstance(scores, dict):
        raise bad(where, "scores is not a JSON object")
    for key, value in scores.items():
        if value is not None and not _is_number(value):
            raise bad(where, f"score {key!r} is {value!r:.40}, not a finite number or null")
    return scores


def _pairs(pairs, where: str, bad: _Bad) -> dict:
    if not isinstance(pairs, dict):
        raise bad(where, "pairs is not a JSON object")
    if not pairs:
        return pairs
    words, values = pairs.get("words"), pairs.get("values")
    if not (isinstance(pairs.get("measure"), str) and isinstance(words, list) and isinstance(values, list)):
        raise bad(where, "pairs lacks its measure, words or values")
    if len(values) != len(words) or not all(isinstance(r, list) and len(r) == len(words) for r in values):
        raise bad(where, f"pairs values are not a {len(words)} x {len(words)} matrix")
    if not all(v is None or _is_number(v) for r in values for v in r):
        raise bad(where, "pairs values hold something that is neither a finite number nor null")
    return pairs


def _flags(flags, where: str, bad: _Bad) -> list:
    if not isinstance(flags, list) or not all(
            isinstance(f, dict) and isinstance(f.get("flag"), str) and isinstance(f.get("explanation"), str)
            for f in flags):
        raise bad(where, "flags is not a list of {flag, explanation} objects")
    return flags
