"""Reading MALLET's output files (``mallet train-topics``, cc.mallet.topics.ParallelTopicModel).

Formats, as MALLET writes them:

``--output-topic-keys`` (``printTopWords``)
    ``topic<TAB>alpha<TAB>word word ... `` per topic; alpha printed with at
    most 5 decimals.  Top words only: a :class:`~tealeaves.models.adapters.topic_files.RankedWordsModel`,
    read by :mod:`tealeaves.models.adapters.topic_files` (``read_topic_keys``; the format's lines and
    ``alpha_from_topic_keys`` are :mod:`tealeaves.models.adapters.topic_keys`; re-exported here).
``--topic-word-weights-file`` (``printTopicWordWeights``)
    ``topic<TAB>word<TAB>weight`` for every topic and every word, with the
    unnormalised weight ``beta + n_kw``.  Probabilistic:
    ``phi_kw = (n_kw + beta) / (n_k + V beta)``, i.e. the weights normalised per topic.
``--word-topic-counts-file`` (``printTypeTopicCounts``)
    ``typeindex word topic:count topic:count ...`` per word (space-separated,
    counts in decreasing order).  Counts without ``beta``: probabilistic only
    when ``beta`` is given.
``--output-state`` (``printState``, gzip)
    ``#doc source pos typeindex type topic``, ``#alpha : a_0 a_1 ...``,
    ``#beta : b``, then one ``doc source pos typeindex type topic`` line per
    token.  The counts are exact, so ``phi`` is computed exactly as MALLET's
    ``getTopicWords(normalized=true, smoothed=true)`` and alpha has full precision.
``--output-doc-topics`` (``printDenseDocumentTopics`` / ``printDocumentTopics``)
    ``doc<TAB>name<TAB>p_0<TAB>...<TAB>p_{K-1}`` (MALLET 2.0.8+, the default),
    or with ``--doc-topics-threshold`` the older sorted
    ``#doc name topic proportion ...`` format of ``doc name topic p topic p ...``.
    Document proportions, not a model: read them with :func:`read_doc_topics`.
"""

from __future__ import annotations

import gzip
import math
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves._io import decode, existing_file, read_lines
from tealeaves._params import renamed_parameters
from tealeaves.errors import EmptyInputError, InputFormatError, InvalidModelError, ParameterError, naming
from tealeaves.models.adapters._text_fields import INT, parse_index, parse_number, zeros_table
from tealeaves.models.adapters._text_fields import where as _where
from tealeaves.models.adapters.topic_files import read_topic_keys  # noqa: F401 (re-exported here)
from tealeaves.models.adapters.topic_keys import (  # noqa: F401 (the topic-keys lines, re-exported here)
    alpha_from_topic_keys,
    looks_like_topic_keys,
    parse_topic_keys,
    split_topic_keys_line,
)
from tealeaves.models.base import FixedTopicModel

STATE_HEADER = "#doc source pos typeindex type topic"
SPARSE_DOC_TOPICS_HEADER = "#doc name topic proportion"
# ---------------------------------------------------------------------------------------------
# models from counts / weights
# ---------------------------------------------------------------------------------------------
def _metadata(path, kind: str, **extra) -> dict:
    p = Path(path)
    meta = {"description": f"mallet-{kind}:{p.name}".replace("|", "/"),
            "source": {"library": "mallet", "version": None, "file": str(p), "class": kind}}
    meta.update(extra)
    return meta


class MalletModel(FixedTopicModel):
    """A model read from MALLET files; without alpha it refuses to infer topic proportions.

    (:class:`FixedTopicModel` would otherwise fall back to ``alpha = 1/K``, which
    is not the alpha MALLET trained with.)
    """

    @shared_doc
    def transform(self, corpus):
        """Topic proportions of ``corpus`` (see :meth:`FixedTopicModel.transform`), refused without alpha.

        Parameters: %(transform_corpus)s

        Returns: %(returns_doc_topic)s

        Raises
        ------
        InvalidModelError
            When the model has no alpha (the topic-word weights and word-topic counts files do not
            hold it).
        """
        if self.doc_topic_prior_ is None:
            raise InvalidModelError(
                "this MALLET model has no alpha (the topic-word weights and word-topic counts files do not "
                "hold it), so topic proportions cannot be inferred",
                fix="give alpha= or topic_keys= (the run's --output-topic-keys file), or read --output-state")
        return super().transform(corpus)


def model_from_counts(counts: np.ndarray, vocabulary: list[str], alpha, beta: float, metadata: dict):
    """``phi_kw = (n_kw + beta) / (n_k + V beta)`` (MALLET's smoothed, normalised topic-word matrix).

    Parameters
    ----------
    counts : numpy.ndarray
        The ``K x V`` topic-word counts ``n_kw``.
    vocabulary : list of str
        The words of the columns.
    alpha : float or numpy.ndarray or None
        The Dirichlet parameter of the document topics.
    beta : float
        The topic-word smoothing.
    metadata : dict
        The model's metadata.

    Returns
    -------
    MalletModel
        The probabilistic model.
    """
    counts = np.asarray(counts, dtype=np.float64)
    phi = (counts + beta) / (counts.sum(axis=1, keepdims=True) + counts.shape[1] * beta)
    return MalletModel(phi, vocabulary, alpha, metadata=metadata)


def _check_beta(beta, where: str) -> float:
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not math.isfinite(beta) or beta <= 0:
        raise InputFormatError(f"{where}: beta is {beta!r}; it must be a positive number",
                               fix="give MALLET's --beta (default 0.01)")
    return float(beta)


def _topics_named(alpha, topic_keys, encoding) -> int | None:
    """The number of topics an alpha vector or a topic-keys file names (``None`` if neither does)."""
    if topic_keys is not None:
        lines = read_lines(topic_keys, encoding, "MALLET topic-keys file")
        return len(parse_topic_keys(lines, topic_keys)[0])
    return int(np.size(alpha)) if alpha is not None and np.ndim(alpha) else None


def _resolve_alpha(alpha, topic_keys, n_components: int, encoding):
    """Alpha from an explicit value or a topic-keys file; ``None`` when neither is given."""
    if alpha is not None and topic_keys is not None:
        raise ParameterError("give alpha or topic_keys, not both")
    if topic_keys is not None:
        return alpha_from_topic_keys(topic_keys, n_components, encoding)
    if alpha is not None and np.ndim(alpha) and np.size(alpha) != n_components:
        raise ParameterError(f"alpha has {np.size(alpha)} values but the file has {n_components} topics",
                             fix="give one alpha per topic, or a single number")
    return alpha


def read_topic_word_weights(path, alpha=None, topic_keys=None, encoding: str | None = None):
    """A probabilistic model from ``--topic-word-weights-file``: ``phi_kw = w_kw / sum_w w_kw``.

    The file holds ``beta + n_kw`` for every topic and word, so normalising
    each topic gives ``(n_kw + beta) / (n_k + V beta)`` exactly.  Alpha is not
    in the file: pass ``alpha`` or the run's ``topic_keys`` file (5 decimals).

    Parameters
    ----------
    path : str or Path
        The weights file.
    alpha : float or array-like, optional
        The run's alpha (one number, or one per topic).
    topic_keys : str or Path, optional
        The run's ``--output-topic-keys`` file, to read alpha from (not with ``alpha``).
    encoding : str, optional
        The files' text encoding (detected when omitted).

    Returns
    -------
    MalletModel
        The model, with alpha when one was given.

    Raises
    ------
    InputFormatError
        When a line is malformed, a weight is not positive, or a topic lacks a word.
    EmptyInputError
        When the file holds no weights.
    ParameterError
        When both ``alpha`` and ``topic_keys`` are given, or ``alpha`` has the wrong length.
    """
    lines = read_lines(path, encoding, "MALLET topic-word weights file")
    topics: dict[int, dict[str, float]] = {}
    vocab: dict[str, None] = {}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 3:
            raise InputFormatError(f"{_where(path, n)}: expected 'topic<TAB>word<TAB>weight' "
                                   f"(MALLET --topic-word-weights-file), found {len(parts)} field(s)")
        k = parse_index(parts[0], path, n, "the topic id")
        w = parse_number(parts[2], path, n, "the weight")
        if w <= 0:
            raise InputFormatError(f"{_where(path, n)}: weight {w} is not positive (MALLET writes beta + "
                                   "count)")
        row = topics.setdefault(k, {})
        if parts[1] in row:
            raise InputFormatError(f"{_where(path, n)}: topic {k} lists {parts[1]!r} twice")
        row[parts[1]] = w
        vocab.setdefault(parts[1], None)
    if not topics:
        raise EmptyInputError(f"'{path}' holds no topic-word weights")
    words = list(vocab)
    _check_grid(path, topics, words)
    weights = np.array([[topics[k][w] for w in words] for k in range(len(topics))])
    a = _resolve_alpha(alpha, topic_keys, len(topics), encoding)
    meta = _metadata(path, "topic-word-weights", alpha_source="topic keys (5 decimals)" if topic_keys
                     else "given" if alpha is not None else "not in the file")
    return MalletModel(weights / weights.sum(axis=1, keepdims=True), words, a, metadata=meta)


def _check_grid(path, topics: dict[int, dict[str, float]], words: list[str]) -> None:
    """Every topic 0..K-1 lists every word (a complete K x V table)."""
    if sorted(topics) != list(range(len(topics))):
        raise InputFormatError(f"'{path}' has topics {sorted(topics)[:10]}, expected 0..{len(topics) - 1}")
    for k, row in topics.items():
        if len(row) != len(words):
            lacking = next(w for w in words if w not in row)
            raise naming(InputFormatError(f"'{path}': topic {k} has no weight for {lacking!r} ({len(row)} of "
                                          f"{len(words)} words); a MALLET weights file lists every word in "
                                          "every topic",
                                          fix=("give the complete file",
                                               "read it as a top-words CSV (`format='csv'`)")), "format")


@shared_doc
def looks_like_word_topic_counts(line: str) -> bool:
    """Whether ``line`` has the shape ``typeindex word topic:count ...`` of ``--word-topic-counts-file``.

    Parameters: %(topic_file_line)s

    Returns
    -------
    bool
        Whether it matches.
    """
    parts = line.split(" ")
    return (len(parts) >= 3 and bool(INT.match(parts[0]))
            and all(re.match(r"^\d+:\d+$", p) for p in parts[2:]))


@renamed_parameters({"n_topics": "n_components"})
def read_word_topic_counts(path, beta: float | None = None, alpha=None, topic_keys=None,
                           n_components: int | None = None, encoding: str | None = None):
    """A model from ``--word-topic-counts-file``: probabilistic when ``beta`` is given, else ranked by counts.

    Topics that no word is assigned to are invisible in the file; pass
    ``n_components`` (or ``alpha``/``topic_keys``) to keep them.

    Parameters
    ----------
    path : str or Path
        The counts file.
    beta : float, optional
        The run's ``--beta``; with it ``phi_kw = (n_kw + beta) / (n_k + V beta)``.
    alpha : float or array-like, optional
        The run's alpha.
    topic_keys : str or Path, optional
        The run's ``--output-topic-keys`` file, to read alpha from (not with ``alpha``).
    n_components : int, optional
        The run's number of topics.
    encoding : str, optional
        The files' text encoding (detected when omitted).

    Returns
    -------
    MalletModel
        Probabilistic with ``beta``; otherwise ranked by counts (no ``topic_word_``).

    Raises
    ------
    InputFormatError
        When a line is malformed, types are out of order, a topic is beyond the model's, or
        ``beta`` is not positive.
    EmptyInputError
        When the file holds no counts.
    """
    lines = read_lines(path, encoding, "MALLET word-topic counts file")
    words: list[str] = []
    seen_words: set[str] = set()
    cells: list[tuple[int, int, int]] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        parts = line.split(" ")
        if len(parts) < 2:
            raise InputFormatError(f"{_where(path, n)}: expected 'typeindex word topic:count ...', found "
                                   f"{line!r}")
        v = parse_index(parts[0], path, n, "the type index")
        if v != len(words):
            raise InputFormatError(f"{_where(path, n)}: type index {v}, expected {len(words)} "
                                   "(MALLET writes types 0, 1, 2, ... in order)")
        if not parts[1] or parts[1] in seen_words:  # MALLET writes each type once, as a word
            raise InputFormatError(f"{_where(path, n)}: the word {parts[1]!r} is "
                                   f"{'empty' if not parts[1] else 'listed for two type indexes'}",
                                   fix="the file may be truncated or edited")
        seen_words.add(parts[1])
        words.append(parts[1])
        listed = set()
        for pair in parts[2:]:
            k, sep, c = pair.partition(":")
            if not sep:
                raise InputFormatError(f"{_where(path, n)}: {pair!r} is not 'topic:count'")
            topic = parse_index(k, path, n, "the topic")
            if topic in listed:  # MALLET lists each topic of a word once
                raise InputFormatError(f"{_where(path, n)}: topic {topic} is listed twice for {parts[1]!r}")
            listed.add(topic)
            cells.append((topic, v, parse_index(c, path, n, "the count")))
    if not words:
        raise EmptyInputError(f"'{path}' holds no word-topic counts")
    seen = max((k for k, _, _ in cells), default=-1) + 1
    k_total = n_components or _topics_named(alpha, topic_keys, encoding) or seen
    a = _resolve_alpha(alpha, topic_keys, k_total, encoding)
    if seen > k_total:
        raise InputFormatError(f"'{path}' has topic {seen - 1} but the model has {k_total} topics")
    counts = zeros_table((k_total, len(words)), path, "topics x words")
    for k, v, c in cells:
        counts[k, v] += c
    meta = _metadata(path, "word-topic-counts")
    if beta is None:
        return MalletModel(None, words, a, topic_word_weights=counts, metadata=meta)
    return model_from_counts(counts, words, a, _check_beta(beta, str(path)), meta)


# ---------------------------------------------------------------------------------------------
# Gibbs state
# ---------------------------------------------------------------------------------------------
@dataclass
class MalletState:
    """The counts of a MALLET Gibbs state: exact ``n_kw`` and ``n_dk``, alpha and beta.

    Parameters
    ----------
    topic_word_counts : numpy.ndarray
        ``K x V`` counts ``n_kw``.
    doc_topic_counts : numpy.ndarray
        ``D x K`` counts ``n_dk``.
    vocabulary : list of str
        The words, by type index.
    alpha : numpy.ndarray
        The header's alpha, one per topic.
    beta : float
        The header's beta.
    sources : list of str, optional
        Each document's source field.
    """

    topic_word_counts: np.ndarray  # K x V
    doc_topic_counts: np.ndarray  # D x K
    vocabulary: list[str]
    alpha: np.ndarray
    beta: float
    sources: list[str] = field(default_factory=list)

    def to_model(self, metadata: dict | None = None):
        """The probabilistic model ``phi_kw = (n_kw + beta) / (n_k + V beta)`` with the state's alpha.

        Parameters
        ----------
        metadata : dict, optional
            The model's metadata.

        Returns
        -------
        MalletModel
            The model (:func:`model_from_counts`).
        """
        return model_from_counts(self.topic_word_counts, self.vocabulary, self.alpha, self.beta,
                                 metadata or {})


def _state_text(path, encoding) -> str:
    p = existing_file(path, "MALLET state file")
    raw = p.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (EOFError, OSError, zlib.error) as exc:
            raise InputFormatError(f"'{p}' is a truncated or corrupted gzip file ({exc})",
                                   fix="write the state again with mallet train-topics "
                                       "--output-state") from None
    return decode(raw, p, encoding)


def _state_header(lines: list[str], path) -> tuple[np.ndarray, float, int]:
    """Alpha, beta and the index of the first token line."""
    if not lines or lines[0].strip() != STATE_HEADER:
        found = lines[0][:60] if lines else "an empty file"
        raise InputFormatError(f"'{path}' does not start with {STATE_HEADER!r} (found {found!r})",
                               fix="give the file written by mallet train-topics --output-state")
    alpha = beta = None
    i = 1
    while i < len(lines) and lines[i].startswith("#"):
        head, _, value = lines[i].partition(":")
        if head.strip() == "#alpha":
            alpha = np.array([parse_number(x, path, i + 1, "alpha") for x in value.split()])
        elif head.strip() == "#beta":
            beta = parse_number(value, path, i + 1, "beta")
        i += 1
    if alpha is None or beta is None or alpha.size == 0:
        raise InputFormatError(f"'{path}' lacks the '#alpha : ...' or '#beta : ...' header line",
                               fix="give the complete file written by mallet train-topics --output-state")
    if np.any(alpha <= 0) or beta <= 0:
        raise InputFormatError(f"'{path}': alpha and beta must be positive, found alpha {alpha[:5]}, beta "
                               f"{beta}")
    return alpha, beta, i


def read_state(path, encoding: str | None = None) -> MalletState:
    """Read a MALLET Gibbs state (gzip or plain text) and count ``n_kw`` and ``n_dk`` exactly.

    A line is ``doc source pos typeindex type topic``; the source may contain
    spaces, so the last three fields are read from the right.  Type indices
    must map to one word each and cover ``0..V-1``; topics must be below the
    number of alphas in the header.

    Parameters
    ----------
    path : str or Path
        The ``--output-state`` file.
    encoding : str, optional
        Its text encoding (detected when omitted).

    Returns
    -------
    MalletState
        The counts, vocabulary, alpha, beta and document sources.

    Raises
    ------
    InputFormatError
        When the gzip is corrupted, the header or a line is malformed, or the type indices have gaps.
    EmptyInputError
        When the state holds no tokens.
    """
    lines = _state_text(path, encoding).splitlines()
    alpha, beta, start = _state_header(lines, path)
    k_total = alpha.size
    words: dict[int, str] = {}
    docs, types, topics, sources = [], [], [], {}
    for n in range(start, len(lines)):
        line = lines[n]
        parts = line.rsplit(" ", 3)
        head = parts[0].split(" ")
        if len(parts) != 4 or len(head) < 3:
            raise InputFormatError(f"{_where(path, n + 1)}: expected 'doc source pos typeindex type topic', "
                                   f"found {line[:60]!r}", fix="the state file may be truncated or edited")
        d = parse_index(head[0], path, n + 1, "the document number")
        v = parse_index(parts[1], path, n + 1, "the type index")
        k = parse_index(parts[3], path, n + 1, "the topic")
        if k >= k_total:
            raise InputFormatError(f"{_where(path, n + 1)}: topic {k}, but the #alpha header lists "
                                   f"{k_total} topics")
        if words.setdefault(v, parts[2]) != parts[2]:
            raise InputFormatError(f"{_where(path, n + 1)}: type {v} is {parts[2]!r} here but {words[v]!r} "
                                   "earlier")
        sources.setdefault(d, " ".join(head[1:-1]))
        docs.append(d)
        types.append(v)
        topics.append(k)
    if not words:
        raise EmptyInputError(f"'{path}' holds no tokens", fix="give the state of a trained MALLET model")
    n_types = max(words) + 1
    if len(words) != n_types:
        gap = next(i for i in range(n_types) if i not in words)
        raise InputFormatError(f"'{path}': no token has type index {gap}, so its word is unknown "
                               f"({len(words)} of {n_types} types seen)",
                               fix="read the run's --topic-word-weights-file instead, which lists every word")
    counts = zeros_table((k_total, n_types), path, "topics x types", np.int64)
    np.add.at(counts, (np.array(topics), np.array(types)), 1)
    d_arr = np.array(docs)
    dk = zeros_table((int(d_arr.max()) + 1, k_total), path, "documents x topics", np.int64)
    np.add.at(dk, (d_arr, np.array(topics)), 1)
    return MalletState(counts, dk, [words[i] for i in range(n_types)], alpha, beta,
                       [sources.get(i, "") for i in range(dk.shape[0])])


@shared_doc
def load_state(path, encoding: str | None = None):
    """The probabilistic model of a MALLET Gibbs state (see :func:`read_state`).

    Parameters
    ----------
    path : str or Path
        The ``--output-state`` file.
    %(topic_file_encoding)s

    Returns
    -------
    MalletModel
        The model, with the state's alpha and beta.
    """
    state = read_state(path, encoding)
    return state.to_model(_metadata(path, "state", beta=state.beta))


# ---------------------------------------------------------------------------------------------
# document topics
# ---------------------------------------------------------------------------------------------
@dataclass
class DocTopics:
    """Topic proportions of MALLET's training documents (``--output-doc-topics``).

    In the sparse format only topics above the threshold (at most ``max``) are
    listed; the others are recorded as 0 and ``complete`` is ``False``.

    Parameters
    ----------
    doc_ids : list of int
        The document numbers.
    names : list of str
        The document names.
    proportions : numpy.ndarray
        ``D x K`` proportions.
    complete : bool, default True
        Whether every topic's proportion is listed.
    """

    doc_ids: list[int]
    names: list[str]
    proportions: np.ndarray  # D x K
    complete: bool = True


def _check_proportion(x: float, path, n: int) -> float:
    if not 0.0 <= x <= 1.0:
        raise InputFormatError(f"{_where(path, n)}: proportion {x} is outside [0, 1]")
    return x


@renamed_parameters({"n_topics": "n_components"})
@shared_doc
def read_doc_topics(path, n_components: int | None = None, encoding: str | None = None) -> DocTopics:
    """Read ``--output-doc-topics`` in either of MALLET's formats (sniffed from the first line).

    Parameters
    ----------
    path : str or Path
        The doc-topics file.
    n_components : int, optional
        The expected number of topics (the sparse format lists only some).
    %(topic_file_encoding)s

    Returns
    -------
    DocTopics
        The documents' proportions.

    Raises
    ------
    InputFormatError
        When a line is malformed, a proportion is outside [0, 1] or a row does not sum to 1.
    EmptyInputError
        When the file holds no document topics.
    """
    lines = [ln for ln in read_lines(path, encoding, "MALLET doc-topics file") if ln.strip()]
    if not lines:
        raise EmptyInputError(f"'{path}' holds no document topics")
    if lines[0].startswith(SPARSE_DOC_TOPICS_HEADER):
        return _sparse_doc_topics(lines[1:], path, n_components)
    return _dense_doc_topics(lines, path, n_components)


def _dense_doc_topics(lines: list[str], path, n_components: int | None) -> DocTopics:
    ids, names, rows = [], [], []
    width = None
    for n, line in enumerate(lines, 1):
        parts = line.rstrip("\t").split("\t")
        width = width or len(parts)
        if len(parts) != width or len(parts) < 3:
            raise InputFormatError(f"{_where(path, n)}: {len(parts)} tab-separated columns, expected {width} "
                                   "(doc, name, one proportion per topic)",
                                   fix="give the complete file written by --output-doc-topics")
        ids.append(parse_index(parts[0], path, n, "the document number"))
        names.append(parts[1])
        rows.append([_check_proportion(parse_number(x, path, n, "a proportion"), path, n) for x in parts[2:]])
    theta = np.array(rows)
    if n_components is not None and theta.shape[1] != n_components:
        raise InputFormatError(f"'{path}' has {theta.shape[1]} topic columns, expected {n_components}")
    bad = np.abs(theta.sum(axis=1) - 1) > 1e-6
    if bad.any():
        i = int(np.argmax(bad))
        raise InputFormatError(f"{_where(path, i + 1)}: proportions sum to {theta[i].sum():.6g}, not 1")
    return DocTopics(ids, names, theta)


def _sparse_doc_topics(lines: list[str], path, n_components: int | None) -> DocTopics:
    ids, names, pairs = [], [], []
    for n, line in enumerate(lines, 2):
        parts = line.rstrip("\t").split("\t")
        if len(parts) < 2 or (len(parts) - 2) % 2:
            raise InputFormatError(f"{_where(path, n)}: expected 'doc<TAB>name' then topic/proportion pairs, "
                                   f"found {len(parts)} columns")
        ids.append(parse_index(parts[0], path, n, "the document number"))
        names.append(parts[1])
        pairs.append([(parse_index(parts[i], path, n, "a topic"),
                       _check_proportion(parse_number(parts[i + 1], path, n, "a proportion"), path, n))
                      for i in range(2, len(parts), 2)])
    seen = max((k for row in pairs for k, _ in row), default=-1) + 1
    k_total = n_components or seen
    if seen > k_total:
        raise InputFormatError(f"'{path}' lists topic {seen - 1} but n_components is {k_total}")
    theta = zeros_table((len(ids), k_total), path, "documents x topics")
    for d, row in enumerate(pairs):
        topics = [k for k, _ in row]
        if len(set(topics)) != len(topics):
            raise InputFormatError(f"{_where(path, d + 2)}: a topic is listed twice")
        for k, p in row:
            theta[d, k] = p
        total = theta[d].sum()
        if (len(row) == k_total and abs(total - 1) > 1e-6) or total > 1 + 1e-6:
            raise InputFormatError(f"{_where(path, d + 2)}: proportions sum to {total:.6g}"
                                   + (", not 1" if len(row) == k_total else ", more than 1"))
    return DocTopics(ids, names, theta, complete=all(len(r) == k_total for r in pairs))
