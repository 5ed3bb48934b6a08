"""Multilingual topics: the documented schema, its validation, and the JSON file reader.

Schema (``tealeaves cnpmi TOPICS``, and the ``topics`` argument of every measure in
:mod:`tealeaves.multilingual.measures`)::

    {"en": [["rights", "freedom", ...],      # topic 0, most probable word first
            ["marriage", "family", ...]],    # topic 1
     "sv": [["rättigheter", "frihet", ...],
            ["äktenskap", "familj", ...]]}

* keys are language codes understood by
  :func:`~tealeaves.corpus.aligned.language_code` (``en``, ``eng``, ``eng_Latn``, ``bg``...);
  two keys naming the same language (``en`` and ``eng``) are refused;
* every language has the same number K >= 1 of topics, topic ``k`` of every language
  being the same topic;
* a topic is a list of distinct words (the file reader and NPMI need at least two); a word
  is a non-empty string with no whitespace (reference tokens never hold any).  A topic
  given as one string, ``null``, ``true`` or a number as a word, and ``[word, weight]``
  pairs are refused: nothing is guessed.

Everything that violates the schema raises
:class:`~tealeaves.errors.InputFormatError` saying what was found and what is expected.
The file reader (:func:`read_multilingual_topics`) also lowercases the words (the references are
lowercased by their preprocessing) and keeps the first ``n_top`` words of each topic; when
some topic has fewer than ``n_top`` words, every topic is cut to the shortest one's length
(a documented clamp, with a warning) so that all topics are scored at the same cardinality
C, which the signatures record.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Mapping, Sequence

from tealeaves._io import StrictJSONError, loads_strict
from tealeaves._params import Param, deprecated_alias, renamed_parameters
from tealeaves.errors import EmptyInputError, InputFormatError

SCHEMA = '{language: [[word, word, ...], ...]} (one list of top words per topic, most probable first)'

Topics = Mapping[str, Sequence[Sequence[str]]]

#: The cardinality C: top words scored per topic (``tealeaves cnpmi --n-top``, ``estimator features``).
N_TOP = Param("n_top", "int", 2, deprecated_flags=("--top",),
              help="cardinality C: top words used per topic, >= 2 (clamped to the shortest topic, with a "
                   "warning)")


def _found(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr) if not isinstance(value, str) else repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    kind = {dict: "an object", list: "a list", tuple: "a list", str: "a string", bool: "a boolean",
            type(None): "null", int: "a number", float: "a number"}.get(type(value), type(value).__name__)
    return f"{kind} {text}" if value is not None else "null"


def check_topic(lang: str, k: int, topic: object, where: str = "topics") -> list[str]:
    """Topic ``k`` of ``lang`` as a list of word strings; :class:`InputFormatError` if it is not one.

    A topic is a list (or tuple, or numpy array) of distinct non-empty word strings without
    whitespace (module docstring).

    Parameters
    ----------
    lang : str
        The topic's language key, for messages.
    k : int
        The topic's index, for messages.
    topic : object
        The value to check.
    where : str, default "topics"
        Where the topics came from, for messages.

    Returns
    -------
    list of str
        The topic's words.

    Raises
    ------
    InputFormatError
        When ``topic`` is not a list, a word is not a string (e.g. a ``[word, weight]`` pair
        or a number), is empty or holds whitespace, or is listed twice.
    """
    if type(topic).__name__ == "ndarray":  # a numpy array of words (np.str_ is a str)
        topic = topic.tolist()
    if isinstance(topic, str) or not isinstance(topic, (list, tuple)):
        raise InputFormatError(f"{where}: topic {k} of {lang!r} is {_found(topic)}; expected a list of words",
                               fix='e.g. ["rights", "freedom", "dignity"]; expected ' + SCHEMA)
    words = []
    for i, w in enumerate(topic):
        if isinstance(w, (list, tuple)):
            raise InputFormatError(
                f"{where}: word {i} of topic {k} of {lang!r} is {_found(w)}; expected a word string",
                fix="give the words only, not (word, weight) pairs")
        if not isinstance(w, str):
            raise InputFormatError(
                f"{where}: word {i} of topic {k} of {lang!r} is {_found(w)}; expected a word string",
                fix='quote it, e.g. "2019", or remove it')
        if not w or any(c.isspace() for c in w):
            raise InputFormatError(
                f"{where}: word {i} of topic {k} of {lang!r} is {w!r}; a word is a non-empty string "
                "without spaces (the references' tokens never hold any)", fix="give one token per word")
        if w in words:
            raise InputFormatError(f"{where}: topic {k} of {lang!r} lists {w!r} twice",
                                   fix="give each word of a topic once")
        words.append(w)
    return words


def check_languages(keys: Sequence[str], where: str = "topics") -> dict[str, str]:
    """Map each key to its canonical language code; two keys naming one language are refused.

    Parameters
    ----------
    keys : sequence of str
        Language keys (``en``, ``eng``, ``eng_Latn``...;
        :func:`~tealeaves.corpus.aligned.language_code`).
    where : str, default "topics"
        Where the keys came from, for messages.

    Returns
    -------
    dict of str to str
        Each key's canonical code.

    Raises
    ------
    UnknownLanguageError
        When a key names no known language.
    InputFormatError
        When two keys name the same language.
    """
    from tealeaves.corpus.aligned import UnknownLanguageError, language_code

    codes: dict[str, str] = {}
    for key in keys:
        try:
            code = language_code(key)
        except UnknownLanguageError as exc:
            raise UnknownLanguageError(f"{where}: {exc.what}", fix=exc.fix) from None
        other = next((k for k, c in codes.items() if c == code), None)
        if other is not None:
            raise InputFormatError(f"{where}: keys {other!r} and {key!r} both name language {code!r}",
                                   fix="give each language once")
        codes[key] = code
    return codes


def validate_topics(raw: object, where: str = "topics") -> dict[str, list[list[str]]]:
    """Check ``raw`` against the schema (module docstring); returns ``{code: [[word, ...], ...]}``.

    Keys become canonical codes; words are kept as given (the measures compare them
    with the reference's tokens exactly).

    Parameters
    ----------
    raw : object
        Parsed topics, e.g. a JSON object.
    where : str, default "topics"
        Where the topics came from, for messages.

    Returns
    -------
    dict of str to list of list of str
        ``{code: [[word, ...] per topic]}``.

    Raises
    ------
    InputFormatError
        When ``raw`` violates the schema: not a non-empty object, a language's value not a
        list of topics, a bad topic (:func:`check_topic`), two keys naming one language, or
        different numbers of topics, or none.
    UnknownLanguageError
        When a key names no known language.
    """
    if not isinstance(raw, Mapping):
        raise InputFormatError(f"{where} holds {_found(raw)}; expected an object {SCHEMA}")
    if not raw:
        raise InputFormatError(f"{where} holds an empty object; expected {SCHEMA} with at least one language")
    codes = check_languages(list(raw), where)
    out: dict[str, list[list[str]]] = {}
    for key, topics in raw.items():
        if isinstance(topics, str) or not isinstance(topics, (list, tuple)):
            raise InputFormatError(f"{where}: {key!r} holds {_found(topics)}; expected a list of topics, "
                                   "each a list of words", fix="expected " + SCHEMA)
        out[codes[key]] = [check_topic(key, k, t, where) for k, t in enumerate(topics)]
    sizes = {key: len(out[codes[key]]) for key in raw}
    if len(set(sizes.values())) != 1:
        raise InputFormatError(f"{where}: languages have different numbers of topics: {sizes}",
                               fix="topic k of every language must be the same topic; give K topics each")
    if not next(iter(sizes.values())):
        raise InputFormatError(f"{where}: every language has an empty list of topics",
                               fix="give at least one topic per language")
    return out


@renamed_parameters({"top": "n_top"})
def cardinality(topics: Mapping[str, Sequence[Sequence[str]]], n_top: int | None = None) -> int:
    """The cardinality C to score: ``n_top`` clamped to the shortest topic (warning when clamped).

    Parameters
    ----------
    topics : mapping
        Validated topics (module docstring).
    n_top : int, optional
        The requested cardinality (``None``: the shortest topic's length).

    Returns
    -------
    int
        The cardinality C.
    """
    shortest = min(len(t) for ts in topics.values() for t in ts)
    if n_top is None:
        return shortest
    if shortest < n_top:
        warnings.warn(f"the shortest topic has {shortest} words, fewer than n_top={n_top}; every topic is "
                      f"scored on its first {shortest} words (C={shortest}, recorded in the signatures)",
                      stacklevel=2)
        return shortest
    return n_top


@renamed_parameters({"top": "n_top"})
def read_multilingual_topics(path: str | os.PathLike[str], n_top: int | None = None,
                             encoding: str | None = None) -> dict[str, list[list[str]]]:
    """Read a multilingual topics JSON file (schema in module docstring), lowercased, cut to C words.

    The topics are validated (:func:`validate_topics`).  Duplicate keys in the JSON object
    are refused (JSON parsers silently keep the last); each topic must hold at least two
    distinct words after lowercasing.  (The monolingual topic-word file reader is
    :func:`tealeaves.models.adapters.topic_files.read_topics`.)

    Parameters
    ----------
    path : str or os.PathLike
        The topics JSON file.
    n_top : int, optional
        The cardinality C (:data:`N_TOP`, >= 2; clamped to the shortest topic with a warning;
        ``None``: the shortest topic's length).  ``top`` is its deprecated old name.
    encoding : str, optional
        The file's encoding (default UTF-8; a byte-order mark is removed).

    Returns
    -------
    dict
        ``{language code: [[word, ...] per topic]}``.

    Raises
    ------
    EmptyInputError
        When the file is empty.
    InputFormatError
        When it is not valid JSON, repeats a key, violates the schema, or a topic holds fewer
        than two distinct words after lowercasing.
    ParameterError
        When ``n_top`` is below 2.
    """
    from tealeaves import _io

    if n_top is not None:
        n_top = N_TOP.check(n_top)
    text = _io.read_text(path, encoding, what="topics file")
    where = f"topics file '{path}'"
    if not text.strip():
        raise EmptyInputError(f"{where} is empty", fix="expected " + SCHEMA)
    raw = _parse_json(text, where)
    topics = validate_topics(raw, where)
    lowered = {lang: [[w.lower() for w in t] for t in ts] for lang, ts in topics.items()}
    for lang, ts in lowered.items():
        for k, t in enumerate(ts):
            _check_distinct(lang, k, t, where)
    shortest = min(len(t) for ts in lowered.values() for t in ts)
    if shortest < 2:
        raise InputFormatError(f"{where}: a topic has only {shortest} word; NPMI needs at least two per "
                               "topic", fix="give at least two words per topic")
    c = cardinality(lowered, n_top)
    return {lang: [t[:c] for t in ts] for lang, ts in lowered.items()}


#: Deprecated old name of :func:`read_multilingual_topics`.
read_topics = deprecated_alias(read_multilingual_topics, "read_topics")


def _check_distinct(lang: str, k: int, words: Sequence[str], where: str) -> None:
    seen: set[str] = set()
    for w in words:
        if w in seen:
            raise InputFormatError(f"{where}: topic {k} of {lang!r} lists {w!r} twice (after lowercasing)",
                                   fix="give each word of a topic once")
        seen.add(w)


def _parse_json(text: str, where: str) -> object:
    try:  # NaN/Infinity literals are read, then refused as words by validate_topics
        return loads_strict(text, unique_keys=True, allow_constants=True)
    except StrictJSONError as exc:
        raise InputFormatError(f"{where}: {exc}", fix="give each key once") from None
    except json.JSONDecodeError as exc:
        raise InputFormatError(f"{where} is not valid JSON: {exc.msg} at line {exc.lineno}, "
                               f"column {exc.colno}", fix="expected " + SCHEMA) from None
    except RecursionError:
        raise InputFormatError(f"{where} is nested too deeply", fix="expected " + SCHEMA) from None
