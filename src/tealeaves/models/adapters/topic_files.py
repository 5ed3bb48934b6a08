"""Topics known only by their top words, and the files that hold them.

:class:`RankedWordsModel` is the model of a source that gives each topic's
ranked top words and nothing else (MALLET topic keys, plain word lists, OCTIS
``topics``, gensim ``show_topics`` strings).  Coherence and human studies work
on it; held-out likelihood is refused, since it has no probabilities.

:func:`read_topics` reads a topic-word file in one of :data:`TOPIC_FORMATS`,
sniffed from its content unless ``format`` is given:

``words``
    one topic per line, words separated by whitespace, most probable first;
``mallet-keys``
    MALLET ``--output-topic-keys``: ``topic<TAB>alpha<TAB>word word ...``;
``csv``
    comma- or tab-separated rows ``topic,word[,weight]`` (or a header naming
    the ``topic``, ``word`` and ``weight`` columns in any order);
``json``
    a list of topics, a ``{"topics": [...]}`` object (OCTIS) or an object
    ``{"0": topic, "1": topic}``; a topic is a list of words, a list of
    ``[word, weight]`` pairs, a ``{word: weight}`` object or a gensim string;
``gensim``
    ``0.021*"oil" + 0.015*"gas"`` per line (HDP's unquoted ``0.021*oil`` too), optionally as ``(0, '...')``
    (``print_topics``), or a Python list as printed by
    ``show_topics(formatted=False)``.

When a CSV or JSON file gives weights, words are ranked by weight, highest
first (ties keep the file's order); gensim strings keep gensim's own order (by
weight, or by absolute weight for LSI).  A file that fits several formats is refused with an
:class:`~tealeaves.errors.InputFormatError` naming them and the option that
chooses; a line ``0<TAB>0.5<TAB>oil gas`` is never read as the words ``0``, ``0.5``.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import math
import re
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves._io import StrictJSONError, loads_strict, read_lines, read_text
from tealeaves.corpus import Vocabulary
from tealeaves.errors import EmptyInputError, InputFormatError, InvalidModelError, ParameterError, naming
from tealeaves.models.adapters._text_fields import INT, parse_number
from tealeaves.models.adapters.topic_keys import (  # noqa: F401 (the format's lines, importable from here too)
    alpha_from_topic_keys,
    looks_like_topic_keys,
    parse_topic_keys,
    split_topic_keys_line,
)
from tealeaves.models.base import TopicModel, check_alpha
from tealeaves.validation import first_duplicate

TOPIC_FORMATS = ("words", "mallet-keys", "csv", "json", "gensim")
#: The fix of a topics file read in the wrong format: a one-alternative tuple, dropped by a command
#: without the option (``docs/naming.md``); raise it with ``naming(..., "format")``.
FORMAT_FIX = ("choose the format with `format` (words, mallet-keys, csv, json or gensim)",)

_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
#: one ``weight*"word"`` term (``print_topics``; HDP's ``show_topics`` writes ``weight*word`` unquoted)
_GENSIM_TERM = re.compile(r'\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*\*\s*'
                          r'(?:"((?:[^"\\]|\\.)*)"|([^\s"*+]+))\s*')
_GENSIM_EXPR = re.compile(rf'^(?:{_GENSIM_TERM.pattern})(?:\+(?:{_GENSIM_TERM.pattern}))*$')
_WORD_KEYS = ("word", "term", "token", "words")
_WEIGHT_KEYS = ("weight", "score", "probability", "prob", "value", "beta", "count")
_TOPIC_KEYS = ("topic", "topic_id", "topicid", "topic id", "id")

NOT_PROBABILISTIC = ("it holds only each topic's ranked top words, not a probability for every word; "
                     "held-out likelihood needs a probabilistic model (e.g. MALLET's state or "
                     "topic-word weights, or a saved model)")


class RankedWordsModel(TopicModel):
    """A model given by each topic's ranked top words only.

    ``topic_word_`` is ``None``.  ``topic_word_weights_`` ranks the listed
    words: a word at rank ``r`` (0-based) gets ``L - r`` (``L`` the longest
    list), unlisted words 0.  ``top_words(n)`` returns at most the listed
    words: when ``n`` exceeds a topic's list, that topic's list is returned
    whole (a clamped top-N; :meth:`clamped_topics` names them).

    Parameters
    ----------
    topics : sequence of sequence of str
        Each topic's words, best first.
    weights : sequence of sequence of float, optional
        One weight per listed word of every topic, as the source gave them.
    topic_ids : sequence of int, optional
        The source's topic ids, one distinct id per topic (default ``0..K-1``).
    doc_topic_prior : float or array-like, optional
        The source's alpha, when it records one.
    metadata : dict, optional
        The model's metadata.

    Attributes
    ----------
    topics_ : list of list of str
        The word lists, best first.
    word_weights_ : list of list of float or None
        The weights the source gave (or ``None``).
    topic_ids_ : list of int
        The source's topic ids.

    Raises
    ------
    InvalidModelError
        When ``weights`` or ``topic_ids`` do not match the topics.
    """

    def __init__(self, topics: Sequence[Sequence[str]], weights: Sequence[Sequence[float]] | None = None,
                 topic_ids: Sequence[int] | None = None, doc_topic_prior=None, metadata: dict | None = None):
        self.topics_ = _check_topics(topics)
        self.word_weights_ = None if weights is None else [[float(x) for x in w] for w in weights]
        lengths = [len(t) for t in self.topics_]
        if self.word_weights_ is not None and [len(w) for w in self.word_weights_] != lengths:
            raise InvalidModelError("weights must give one number per listed word of every topic")
        self.topic_ids_ = list(range(len(self.topics_))) if topic_ids is None else [int(i) for i in topic_ids]
        if len(self.topic_ids_) != len(self.topics_) or len(set(self.topic_ids_)) != len(self.topic_ids_):
            raise InvalidModelError("topic_ids must give one distinct id per topic")
        self.vocabulary_ = Vocabulary(dict.fromkeys(w for t in self.topics_ for w in t))
        self.topic_word_ = None
        self.doc_topic_prior_ = check_alpha(doc_topic_prior, len(self.topics_))
        self.metadata_ = dict(metadata or {})
        self.not_probabilistic_reason_ = NOT_PROBABILISTIC

    @property
    def topic_word_weights_(self) -> np.ndarray:
        """Rank weights: ``L - r`` for the word at rank ``r`` of a topic, 0 for unlisted words."""
        longest = max(len(t) for t in self.topics_)
        w = np.zeros((len(self.topics_), len(self.vocabulary_)))
        for k, words in enumerate(self.topics_):
            w[k, [self.vocabulary_.index[x] for x in words]] = longest - np.arange(len(words))
        return w

    def top_words(self, n: int = 10) -> list[list[str]]:
        """Each topic's ``n`` best words; a topic listing fewer gives all of its words (clamped).

        Parameters
        ----------
        n : int, default 10
            Words per topic, at least 1.

        Returns
        -------
        list of list of str
            The words, best first.

        Raises
        ------
        ParameterError
            When ``n`` is not a whole number of at least 1.
        """
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ParameterError(f"n is {n!r}; give a whole number of at least 1")
        return [list(t[:n]) for t in self.topics_]

    def clamped_topics(self, n: int) -> list[int]:
        """Indices of the topics that list fewer than ``n`` words (their top-``n`` is clamped).

        Parameters
        ----------
        n : int
            The requested words per topic.

        Returns
        -------
        list of int
            The topic indices.
        """
        return [k for k, t in enumerate(self.topics_) if len(t) < n]

    def transform(self, corpus):
        """Refused: a ranked-word-list model cannot infer topic proportions.

        Parameters
        ----------
        corpus : Corpus
            Ignored.

        Raises
        ------
        InvalidModelError
            Always.
        """
        raise InvalidModelError(f"{self.description()} cannot infer topic proportions: {NOT_PROBABILISTIC}")

    def save(self, path):
        """Refused: a ranked-word-list model has no topic-word matrix to save.

        Parameters
        ----------
        path : str or Path
            Ignored.

        Raises
        ------
        InvalidModelError
            Always (keep the topics file it was read from).
        """
        raise InvalidModelError("a ranked-word-list model has no topic-word matrix to save",
                                fix="keep the topics file it was read from")


def warn_if_clamped(model: RankedWordsModel, n: int) -> None:
    """Report (as a ``UserWarning``) the topics whose top-``n`` is clamped to fewer listed words.

    Parameters
    ----------
    model : RankedWordsModel
        The model.
    n : int
        The requested words per topic.
    """
    short = model.clamped_topics(n)
    if short:
        sizes = sorted({len(model.topics_[k]) for k in short})
        warnings.warn(f"top-{n} requested but {len(short)} topic(s) list only {sizes[0]} word(s) "
                      f"(topic {short[0]} first); their lists are used whole", UserWarning, stacklevel=3)


def _check_topics(topics) -> list[list[str]]:
    if isinstance(topics, str) or not isinstance(topics, Sequence):
        raise InvalidModelError(f"topics must be a list of word lists, got {type(topics).__name__}")
    out = []
    for k, t in enumerate(topics):
        if isinstance(t, str) or not isinstance(t, Sequence):
            raise InvalidModelError(f"topic {k} is a {type(t).__name__}, expected a list of words")
        words = list(t)
        if not words:
            raise InvalidModelError(f"topic {k} has no words")
        bad = [w for w in words if not isinstance(w, str) or not w.strip()]
        if bad:
            raise InvalidModelError(f"topic {k} has the word {bad[0]!r}; words must be non-empty strings")
        dup = first_duplicate(words)
        if dup is not None:
            raise InvalidModelError(f"topic {k} repeats {dup!r}; list each word once")
        out.append(words)
    if not out:
        raise EmptyInputError("no topics given")
    return out


# ---------------------------------------------------------------------------------------------
# the parsed form every reader returns
# ---------------------------------------------------------------------------------------------
class _Parsed:
    """Topics as read: ``(id, words, weights or None)`` per topic, and alpha when the file has it."""

    def __init__(self, source, fmt: str):
        self.source, self.fmt = source, fmt
        self.rows: list[tuple[int, list[str], list[float] | None, str]] = []  # id, words, weights, where
        self.alpha: list[float] | None = None

    def add(self, topic_id: int, words: list[str], weights: list[float] | None, where: str,
            rank: bool = True) -> None:
        """Add a topic; with weights and ``rank``, its words are ordered by weight, highest first."""
        if not words:
            raise InputFormatError(f"{where}: the topic has no words", fix="give at least one word")
        dup = first_duplicate(words)
        if dup is not None:
            raise InputFormatError(f"{where}: the topic repeats {dup!r}", fix="list each word once")
        bad = next((i for i, w in enumerate(weights or ()) if not math.isfinite(w)), None)
        if bad is not None:  # 1e999 reads as inf; it would rank above every other word
            raise InputFormatError(f"{where}: the weight of {words[bad]!r} is {weights[bad]} (not a finite "
                                   "number)", fix="give finite weights")
        if weights is not None and rank:
            order = sorted(range(len(words)), key=lambda i: -weights[i])  # stable: ties keep file order
            words, weights = [words[i] for i in order], [weights[i] for i in order]
        self.rows.append((topic_id, words, weights, where))

    def model(self) -> RankedWordsModel:
        if not self.rows:
            raise EmptyInputError(f"'{self.source}' holds no topics", fix="give at least one topic")
        ids = [r[0] for r in self.rows]
        dup = first_duplicate([str(i) for i in ids])
        if dup is not None:
            where = [r[3] for r in self.rows if str(r[0]) == dup][1]
            raise InputFormatError(f"{where}: topic id {dup} appears twice", fix="give each topic once")
        rows = sorted(self.rows, key=lambda r: r[0])
        weighted = [r[2] is not None for r in rows]
        if any(weighted) and not all(weighted):
            raise InputFormatError(f"'{self.source}': some topics have weights and others not",
                                   fix="give weights for every topic or for none")
        alpha = None
        if self.alpha is not None:
            alpha = [dict(zip(ids, self.alpha))[r[0]] for r in rows]
        p = Path(str(self.source))
        meta = {"description": f"{self.fmt}:{p.name}".replace("|", "/"),
                "source": {"library": "mallet" if self.fmt == "mallet-keys" else None, "version": None,
                           "file": str(p), "class": f"topics ({self.fmt})"}}
        if alpha is not None:
            meta["alpha_printed"] = alpha  # MALLET prints 5 decimals: a tiny alpha reads as 0
            if min(alpha) <= 0:
                alpha = None
        return RankedWordsModel([r[1] for r in rows], [r[2] for r in rows] if all(weighted) else None,
                                [r[0] for r in rows], alpha, meta)


# ---------------------------------------------------------------------------------------------
# reading and sniffing
# ---------------------------------------------------------------------------------------------
@shared_doc
def read_topics(path, format: str | None = None, encoding: str | None = None) -> RankedWordsModel:
    """A :class:`RankedWordsModel` from a topic-word file (format sniffed unless given).

    Parameters
    ----------
    path : str or Path
        The topics file.
    format : str, optional
        One of :data:`TOPIC_FORMATS` (sniffed by :func:`sniff_topic_format` when ``None``).
    %(topic_file_encoding)s

    Returns: %(returns_ranked_words)s
    """
    text = read_text(path, encoding, "topics file")
    return parse_topics(text, format, source=path)


@shared_doc
def parse_topics(text: str, format: str | None = None, source="<text>") -> RankedWordsModel:
    """Parse topic-word ``text`` in ``format`` (one of :data:`TOPIC_FORMATS`, sniffed when ``None``).

    Parameters
    ----------
    text : str
        The content of a topics file.
    format : str, optional
        One of :data:`TOPIC_FORMATS`.
    source : str or Path, default "<text>"
        Where ``text`` came from, for messages and metadata.

    Returns: %(returns_ranked_words)s

    Raises
    ------
    ParameterError
        When ``format`` is not known.
    EmptyInputError
        When ``text`` is blank.
    InputFormatError
        When ``text`` does not read as ``format``, or fits several formats.
    """
    if format is not None and format not in TOPIC_FORMATS:
        raise ParameterError(f"topics format {format!r} is not known; choose one of "
                             f"{', '.join(TOPIC_FORMATS)}")
    if not text.strip():
        raise EmptyInputError(f"'{source}' is empty", fix="write one topic per line, words separated by "
                                                          "spaces")
    fmt = format or sniff_topic_format(text, source)
    parsed = _Parsed(source, fmt)
    _READERS[fmt](text, parsed)
    return parsed.model()


def _lines(text: str) -> list[tuple[int, str]]:
    return [(n, ln) for n, ln in enumerate(text.splitlines(), 1) if ln.strip()]


def sniff_topic_format(text: str, source="<text>") -> str:
    """The one format ``text`` fits; :class:`InputFormatError` naming them when it fits several.

    Parameters
    ----------
    text : str
        The content of a topics file (not blank).
    source : str or Path, default "<text>"
        Where ``text`` came from, for messages.

    Returns
    -------
    str
        One of :data:`TOPIC_FORMATS`.

    Raises
    ------
    InputFormatError
        When ``text`` fits several formats, is invalid JSON, or looks like numbers or
        comma-separated words read as plain words.
    """
    s = text.lstrip()
    if s[0] in "[{":
        try:
            json.loads(s)
            return "json"
        except RecursionError:
            raise _too_deep(source) from None
        except ValueError as exc:
            if _gensim_literal(s) is not None:
                return "gensim"
            line = getattr(exc, "lineno", "?")
            raise naming(InputFormatError(f"'{source}' starts like JSON but is not valid JSON (line {line}: "
                                          f"{getattr(exc, 'msg', exc)})", fix=("fix the JSON", *FORMAT_FIX)),
                         "format") from None
    lines = [ln for _, ln in _lines(text)]
    if all(_is_gensim_line(ln) for ln in lines):
        return "gensim"
    fits = [f for f, test in (("mallet-keys", _fits_mallet_keys), ("csv", _fits_csv)) if test(lines)]
    if len(fits) > 1:
        raise naming(InputFormatError(f"'{source}' could be {' or '.join(fits)}: its lines read both as "
                                      "MALLET topic keys (topic<TAB>alpha<TAB>words) and as "
                                      "topic,word,weight rows", fix=FORMAT_FIX), "format")
    if fits:
        return fits[0]
    firsts = [ln.split()[0] for ln in lines]
    if all(_NUMBER.match(f) for f in firsts):
        raise naming(InputFormatError(f"every line of '{source}' starts with a number ({firsts[0]!r}), like "
                                      "a topic id or weight; read as plain words, the numbers would become "
                                      "words",
                                      fix=("remove the numbers", "give MALLET keys as "
                                           "'topic<TAB>alpha<TAB>words'",
                                           "choose `format='words'` to keep them as words")), "format")
    if all("," in ln and "\t" not in ln for ln in lines):
        raise naming(InputFormatError(f"the lines of '{source}' hold commas, as if words were "
                                      "comma-separated; plain word lists are separated by whitespace",
                                      fix=("separate words with spaces",
                                           "choose `format='words'` to keep the commas")), "format")
    return "words"


def _fits_mallet_keys(lines: list[str]) -> bool:
    return all(looks_like_topic_keys(ln) for ln in lines)


def _fits_csv(lines: list[str]) -> bool:
    try:
        header = next(csv.reader([lines[0]], delimiter="\t" if "\t" in lines[0] else ","))
    except csv.Error:
        return False
    if _csv_columns(header) is not None:
        return True  # a header naming the columns: a table, even if a row is then malformed
    try:
        rows, _ = _csv_rows("\n".join(lines), "")
    except InputFormatError:
        return False
    return bool(rows)


# ---------------------------------------------------------------------------------------------
# MALLET topic keys (--output-topic-keys): topic<TAB>alpha<TAB>word word ...
# ---------------------------------------------------------------------------------------------
@shared_doc
def read_topic_keys(path, encoding: str | None = None) -> RankedWordsModel:
    """A ranked-word-list model from ``--output-topic-keys`` (alpha recorded, 5 decimals).

    Parameters
    ----------
    path : str or Path
        The topic-keys file.
    %(topic_file_encoding)s

    Returns: %(returns_ranked_words)s
    """
    text = "\n".join(read_lines(path, encoding, "MALLET topic-keys file"))
    return parse_topics(text, "mallet-keys", source=path)


# ---------------------------------------------------------------------------------------------
# per-format readers
# ---------------------------------------------------------------------------------------------
def _read_words(text: str, parsed: _Parsed) -> None:
    for k, (n, ln) in enumerate(_lines(text)):
        parsed.add(k, ln.split(), None, f"'{parsed.source}' line {n}")


def _read_mallet_keys(text: str, parsed: _Parsed) -> None:
    ids, alphas, topics = parse_topic_keys(text.splitlines(), parsed.source)
    for i, words in zip(ids, topics):
        parsed.add(i, words, None, f"'{parsed.source}' topic {i}")
    parsed.alpha = alphas


def _csv_rows(text: str, source) -> tuple[list[tuple[int, str, float | None, int]], bool]:
    """``(topic, word, weight, line)`` rows of a comma/tab-separated table; ``True`` if it has weights."""
    lines = text.splitlines()
    first = next((ln for ln in lines if ln.strip()), "")
    reader = csv.reader(io.StringIO("\n".join(lines)), delimiter="\t" if "\t" in first else ",")
    table = []
    try:
        for r in reader:
            if any(c.strip() for c in r):
                table.append((reader.line_num, r))
    except csv.Error as exc:
        raise naming(InputFormatError(f"'{source}' line {reader.line_num} is not a valid CSV row ({exc})",
                                      fix=FORMAT_FIX), "format") from None
    if not table:
        raise InputFormatError(f"'{source}' has no rows")
    cols = _csv_columns(table[0][1])
    if cols is not None:
        table = table[1:]
    else:
        width = len(table[0][1])
        if width not in (2, 3):
            raise naming(InputFormatError(f"'{source}' line {table[0][0]}: {width} columns, expected "
                                          "topic,word or topic,word,weight", fix=FORMAT_FIX), "format")
        cols = (0, 1, 2 if width == 3 else None)
    rows = []
    width = max(c for c in cols if c is not None) + 1
    for n, r in table:
        if len(r) < width or (cols[2] is None and len(r) != width):
            raise InputFormatError(f"'{source}' line {n}: {len(r)} columns, expected {width}")
        t = r[cols[0]].strip()
        if not INT.match(t):
            raise InputFormatError(f"'{source}' line {n}: topic id {t!r} is not a whole number >= 0")
        word = r[cols[1]].strip()
        if not word:
            raise InputFormatError(f"'{source}' line {n}: the word column is empty",
                                   fix="columns are topic,word,weight; name them in a header row")
        weight = None if cols[2] is None else parse_number(r[cols[2]], source, n, "the weight")
        rows.append((int(t), word, weight, n))
    return rows, cols[2] is not None


def _csv_columns(header: list[str]) -> tuple[int, int, int | None] | None:
    """Column positions named by a header row, or ``None`` if the row is data."""
    names = [h.strip().lower() for h in header]
    topic = next((i for i, h in enumerate(names) if h in _TOPIC_KEYS), None)
    word = next((i for i, h in enumerate(names) if h in _WORD_KEYS), None)
    weight = next((i for i, h in enumerate(names) if h in _WEIGHT_KEYS), None)
    if topic is None or word is None:
        return None
    return topic, word, weight


def _read_csv(text: str, parsed: _Parsed) -> None:
    rows, weighted = _csv_rows(text, parsed.source)
    if not rows:
        raise EmptyInputError(f"'{parsed.source}' has a header but no rows")
    groups: dict[int, list[tuple[str, float | None, int]]] = {}
    for t, w, x, n in rows:
        groups.setdefault(t, []).append((w, x, n))
    for t, items in groups.items():
        parsed.add(t, [w for w, _, _ in items], [x for _, x, _ in items] if weighted else None,
                   f"'{parsed.source}' line {items[0][2]}")


def _too_deep(source) -> InputFormatError:
    """A JSON topics file nested deeper than Python's parser can follow (no topics file is)."""
    return InputFormatError(f"'{source}' is JSON nested too deeply to be a topics file",
                            fix="give a list of topics, each a list of words or [word, weight] pairs")


def _read_json(text: str, parsed: _Parsed) -> None:
    try:
        data = loads_strict(text, unique_keys=True)
    except StrictJSONError as exc:
        if exc.kind == "constant":
            raise InputFormatError(f"'{parsed.source}' holds {exc.value}, which is not a number JSON allows",
                                   fix="write finite numbers") from None
        raise InputFormatError(f"'{parsed.source}' gives the key {exc.value!r} twice in one object",
                               fix="give each topic (or word) once") from None
    except json.JSONDecodeError as exc:
        raise naming(InputFormatError(f"'{parsed.source}' is not valid JSON (line {exc.lineno}: {exc.msg})",
                                      fix=("fix the JSON", *FORMAT_FIX)), "format") from None
    except RecursionError:
        raise _too_deep(parsed.source) from None
    if isinstance(data, dict) and "topics" in data:
        data = data["topics"]
        if data is None:
            raise InputFormatError(f"'{parsed.source}': \"topics\" is null", fix="give a list of topics")
    if isinstance(data, dict):
        items = []
        for key, value in data.items():
            if not INT.match(str(key).strip()):
                raise InputFormatError(f"'{parsed.source}': topic id {key!r} is not a whole number >= 0",
                                       fix='use an object {"0": [words], "1": [words]} or a list of topics')
            items.append((int(key), value))
    elif isinstance(data, list):
        items = list(enumerate(data))
    else:
        raise InputFormatError(f"'{parsed.source}' holds a JSON {type(data).__name__}, expected a list of "
                               'topics, {"topics": [...]} or {"0": [...], ...}')
    if not items:
        raise EmptyInputError(f"'{parsed.source}' holds no topics", fix="give at least one topic")
    for k, topic in items:
        words, weights = _json_topic(topic, f"'{parsed.source}' topic {k}")
        parsed.add(k, words, weights, f"'{parsed.source}' topic {k}")


def _json_topic(topic, where: str) -> tuple[list[str], list[float] | None]:
    """Words (and weights) of one JSON topic; a clear error for anything else."""
    if isinstance(topic, str):
        if _GENSIM_EXPR.match(topic.strip()):
            return _gensim_terms(topic, where)
        raise InputFormatError(f"{where} is the string {topic[:40]!r}, expected a list of words",
                               fix='write ["oil", "gas", ...] (or a gensim string like 0.02*"oil" + ...)')
    if isinstance(topic, dict):
        if "words" in topic:
            return _json_topic(topic["words"], where)
        return _json_pairs(list(topic.items()), where)
    if not isinstance(topic, list):
        raise InputFormatError(f"{where} is {json.dumps(topic)}, expected a list of words")
    if topic and all(isinstance(x, list) for x in topic):
        return _json_pairs(topic, where)
    for i, w in enumerate(topic):
        _check_json_word(w, f"{where}, word {i}")
    return list(topic), None


def _check_json_word(w, where: str) -> None:
    if isinstance(w, str):
        if not w.strip():
            raise InputFormatError(f"{where} is an empty string", fix="remove it")
        return
    if isinstance(w, (int, float)) and not isinstance(w, bool):
        raise InputFormatError(f"{where} is the number {json.dumps(w)}; words must be strings",
                               fix='write it as a string ("1990") if it is a word')
    kind = "a list" if isinstance(w, list) else "an object" if isinstance(w, dict) else json.dumps(w)
    raise InputFormatError(f"{where} is {kind}; words must be strings",
                           fix="give each topic as a list of words or as a list of [word, weight] pairs")


def _json_pairs(pairs: list, where: str) -> tuple[list[str], list[float]]:
    words, weights = [], []
    for i, pair in enumerate(pairs):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise InputFormatError(f"{where}, item {i} is {json.dumps(pair)}, expected a [word, weight] pair")
        w, x = pair
        _check_json_word(w, f"{where}, item {i}")
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
            raise InputFormatError(f"{where}, item {i}: the weight of {w!r} is {json.dumps(x)}, "
                                   "expected a finite number")
        words.append(w)
        weights.append(float(x))
    return words, weights


def _is_gensim_line(line: str) -> bool:
    s = line.strip().rstrip(",").strip()
    if s.startswith("("):
        return _gensim_literal(s) is not None
    return bool(_GENSIM_EXPR.match(s))


def _gensim_literal(text: str):
    """A Python literal of gensim topics (``print_topics``/``show_topics`` output), or ``None``."""
    try:
        value = ast.literal_eval(text.strip().rstrip(","))
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None
    items = [value] if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], int) else value
    if not isinstance(items, (list, tuple)) or not items:
        return None
    for it in items:
        if not (isinstance(it, tuple) and len(it) == 2 and isinstance(it[0], int)
                and not isinstance(it[0], bool) and (isinstance(it[1], (str, list)))):
            return None
    return list(items)


def _gensim_terms(expr: str, where: str) -> tuple[list[str], list[float]]:
    s = expr.strip()
    if not _GENSIM_EXPR.match(s):
        raise InputFormatError(f"{where}: {s[:50]!r} is not a gensim topic string like 0.021*\"oil\" + ...")
    words, weights = [], []
    for m in _GENSIM_TERM.finditer(s):
        words.append(m.group(2) if m.group(2) is not None else m.group(3))
        weights.append(float(m.group(1)))
    return words, weights


def _read_gensim(text: str, parsed: _Parsed) -> None:
    s = text.strip()
    whole = _gensim_literal(s) if s[0] in "[(" else None
    if whole is not None and (s[0] == "[" or len(_lines(text)) == 1):
        entries = [(tid, body, f"'{parsed.source}' topic {tid}") for tid, body in whole]
    else:
        entries = []
        for k, (n, ln) in enumerate(_lines(text)):
            where = f"'{parsed.source}' line {n}"
            one = _gensim_literal(ln) if ln.strip().startswith("(") else None
            if one is not None:
                entries.append((one[0][0], one[0][1], where))
            else:
                entries.append((k, ln, where))
    for tid, body, where in entries:
        if tid < 0:
            raise InputFormatError(f"{where}: topic id {tid} is negative")
        if isinstance(body, list):  # show_topics(formatted=False): [(word, weight), ...]
            words, weights = _json_pairs([list(p) if isinstance(p, tuple) else p for p in body], where)
        else:
            words, weights = _gensim_terms(body, where)
        parsed.add(tid, words, weights, where, rank=False)  # gensim's own order (|weight| for LSI)


_READERS = {"words": _read_words, "mallet-keys": _read_mallet_keys, "csv": _read_csv, "json": _read_json,
            "gensim": _read_gensim}
