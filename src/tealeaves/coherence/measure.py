"""Scoring topics against a reference index: the pipeline, its results, and the Python API.

>>> from tealeaves.coherence import coherence
>>> result = coherence([["oil", "gas", "energy"]], reference=index, measure="npmi")  # doctest: +SKIP
>>> result.mean, result.topics[0].score, str(result.signature)  # doctest: +SKIP

All topics are scored together: the distinct topic words are looked up once,
every needed pair is counted once by :mod:`tealeaves.coherence.core`, and the
confirmation is computed on ``topics x k x k`` arrays.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tealeaves import _threads
from tealeaves._docs import shared_doc
from tealeaves._params import renamed_attribute, renamed_parameters
from tealeaves.coherence import core
from tealeaves.coherence.aggregation import aggregate
from tealeaves.coherence.confirmation import LOGARITHMIC, SYMMETRIC, confirm, similarity
from tealeaves.coherence.core import topic_joint, topic_pairs
from tealeaves.coherence.errors import SettingsError, TopicError, ZeroCooccurrenceError
from tealeaves.coherence.params import N_TOP
from tealeaves.coherence.presets import MeasureSpec, resolve
from tealeaves.coherence.result import (  # noqa: F401 (coherence_records: importable from here too)
    CoherenceResult,
    TopicScore,
    coherence_records,
)
from tealeaves.coherence.segmentation import WHOLE_SET, is_pairwise, segment_masks
from tealeaves.corpus import Corpus
from tealeaves.errors import EmptyInputError, ParameterError
from tealeaves.index import ReferenceIndex, build_index, index_from_token_lists
from tealeaves.signature import Signature
from tealeaves.validation import first_duplicate

if TYPE_CHECKING:
    import pandas as pd


# --------------------------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------------------------
def as_reference(reference, name: str | None = None, words: Sequence[str] | None = None) -> ReferenceIndex:
    """A :class:`ReferenceIndex` from an index, an index file path, a Corpus or token lists.

    Token lists are indexed in memory, restricted to ``words`` when given (the
    topic words of a one-shot score; every count of those words is unchanged).

    Parameters
    ----------
    reference : ReferenceIndex or str or os.PathLike or Corpus or iterable of list of str
        The reference.
    name : str, optional
        The index's name, for a Corpus or token lists.
    words : sequence of str, optional
        The words to index, for token lists.

    Returns
    -------
    ReferenceIndex
        The index (``reference`` itself when it is one).

    Raises
    ------
    EmptyInputError
        When ``reference`` is ``None`` or has no documents.
    ParameterError
        When ``reference`` is of none of these types (a number, a mapping).
    """
    if isinstance(reference, ReferenceIndex):
        return reference
    if isinstance(reference, (str, os.PathLike)):
        return ReferenceIndex.load(reference)
    if isinstance(reference, Corpus):
        return build_index(reference, name=name or reference.metadata.get("name") or "corpus")
    if reference is None:
        raise EmptyInputError("no reference given; pass an index, an index file, a Corpus or token lists")
    if isinstance(reference, (bytes, Mapping)) or not isinstance(reference, Iterable):
        exc = ParameterError(f"reference must be a ReferenceIndex, an index file path, a Corpus or token "
                             f"lists, got {type(reference).__name__}", fix="e.g. reference='ref.tlx'")
        exc.param = "reference"
        raise exc
    docs = list(reference)
    if not docs:
        raise EmptyInputError("the reference has no documents")
    return index_from_token_lists(docs, name=name or "token-lists", words=words)


def read_topics_file(path: str | os.PathLike, format: str | None = None,
                     encoding: str | None = None) -> list[list[str]]:
    """Topics from a topic-word file, each topic's listed words best first.

    The format (plain words, MALLET topic keys, CSV/TSV, JSON, gensim strings) is
    sniffed unless ``format`` is given: see :mod:`tealeaves.models.adapters.topic_files`.

    Parameters
    ----------
    path : str or os.PathLike
        The topics file.
    format : str, optional
        One of :data:`~tealeaves.models.adapters.topic_files.TOPIC_FORMATS`.
    encoding : str, optional
        Its text encoding (detected when omitted).

    Returns
    -------
    list of list of str
        The topics' words.
    """
    from tealeaves.models.adapters.topic_files import read_topics

    return [list(t) for t in read_topics(path, format, encoding).topics_]


def as_topics(topics, n_top: int, format: str | None = None) -> list[list[str]]:
    """Lists of ranked words from lists, a model, or a model/topics file; truncated to ``n_top``.

    A path is read by :func:`tealeaves.models.adapters.paths.load_path` (any
    model file tealeaves knows, or a topic-word file in ``format``).  A
    ranked-word-list model listing fewer than ``n_top`` words in a topic gives
    that topic's words whole, with a warning (a clamped top-N).

    Parameters
    ----------
    topics : list of list of str or TopicModel or str or os.PathLike
        The topics.
    n_top : int
        Words kept per topic.
    format : str, optional
        The topics file's format, for a path.

    Returns
    -------
    list of list of str
        The topics' first ``n_top`` words.

    Raises
    ------
    TopicError
        When a topic is a string, not a list of strings, has fewer than two words or repeats one.
    EmptyInputError
        When there are no topics.
    """
    from tealeaves.models.adapters.topic_files import RankedWordsModel, warn_if_clamped

    if isinstance(topics, (str, os.PathLike)):
        from tealeaves.models.adapters.paths import load_path

        topics = load_path(topics, format)
    if isinstance(topics, RankedWordsModel):
        warn_if_clamped(topics, n_top)
    if hasattr(topics, "top_words"):
        topics = topics.top_words(n_top)
    if isinstance(topics, str):
        raise TopicError(f"topics is the string {topics[:40]!r}; give a list of word lists, a model or a "
                         "path")
    out = []
    for i, t in enumerate(topics):
        if isinstance(t, str):
            raise TopicError(f"topic {i} is the string {t[:40]!r}, expected a list of words",
                             fix="split it into words, e.g. text.split()")
        try:
            t = list(t)
        except TypeError:
            raise TopicError(f"topic {i} is {type(t).__name__} {t!r:.40}, expected a list of words") from None
        at = next((j for j, w in enumerate(t) if not isinstance(w, str)), None)  # a None word too
        if at is not None:
            bad = t[at]
            raise TopicError(f"topic {i} has the word {bad!r} ({type(bad).__name__}); words must be strings",
                             fix="give words as strings; for (word, weight) pairs keep only the words")
        out.append(t[:n_top])
    if not out:
        raise EmptyInputError("no topics given")
    for i, words in enumerate(out):
        if len(words) < 2:
            raise TopicError(f"topic {i} has {len(words)} word(s) ({' '.join(words)}); coherence compares "
                             "pairs of words, so give at least two")
        dup = first_duplicate(words)
        if dup is not None:
            raise TopicError(f"topic {i} repeats {dup!r}; list each word once")
    return out


# --------------------------------------------------------------------------------------------
# the pipeline
# --------------------------------------------------------------------------------------------
def check_n_top(n_top) -> int | tuple[int, ...]:
    """``n_top`` as a whole number >= 2, or a tuple of distinct such numbers.

    :data:`~tealeaves.coherence.params.N_TOP`; several cardinalities are averaged (Lau and
    Baldwin 2016).

    Parameters
    ----------
    n_top : int or list of int or tuple of int
        The words per topic.

    Returns
    -------
    int or tuple of int
        The number, or the tuple (a one-element list gives its number).

    Raises
    ------
    ParameterError
        When a value is below 2, the list is empty or repeats a value.
    """
    if not isinstance(n_top, (list, tuple)):
        return N_TOP.check(n_top)
    if not n_top:
        raise _n_top_error("n_top is an empty list",
                           "give one or more numbers of words >= 2, e.g. [5, 10, 15, 20]")
    values = tuple(N_TOP.check(n) for n in n_top)
    if len(set(values)) != len(values):
        dup = next(n for n in values if values.count(n) > 1)
        raise _n_top_error(f"n_top lists {dup} more than once", "give each cardinality once")
    return values if len(values) > 1 else values[0]


def _n_top_error(message: str, fix: str) -> ParameterError:
    exc = ParameterError(message, fix=fix)
    exc.param = N_TOP.name
    return exc


def signature_for(spec: MeasureSpec, index: ReferenceIndex, n_top: int | tuple[int, ...]) -> Signature:
    """The reproducibility signature of a score computed with ``spec`` on ``index``.

    Parameters
    ----------
    spec : MeasureSpec
        The pipeline.
    index : ReferenceIndex
        The reference (its name and checksum enter the signature).
    n_top : int or tuple of int
        The words per topic.

    Returns
    -------
    Signature
        The measure's name with its settings; settings at their defaults are left out, so older
        signatures are unchanged.
    """
    fields: dict[str, object] = {"ref": f"{index.name}@{index.short_checksum}", "win": spec.window,
                                 "top": n_top, "seg": spec.segmentation, "conf": spec.confirmation,
                                 "agg": spec.aggregation, "smooth": spec.smoothing, "zero": spec.zero}
    fields.update(_extra_fields(spec))
    return Signature(spec.name, fields)


def _extra_fields(spec: MeasureSpec) -> dict[str, object]:
    """Signature fields of the settings that differ from the defaults (so older signatures are unchanged)."""
    out: dict[str, object] = {}
    if not spec.direct:
        out["gamma"] = spec.gamma
    if spec.window != "doc":
        out["count"] = spec.compat if spec.window_kind == "sliding" else "context"
    if spec.log_base != "e":
        out["log"] = spec.log_base
    if spec.min_count:
        out["min"] = spec.min_count
    if spec.absent != "skip":
        out["absent"] = spec.absent
    return out


def _word_table(index: ReferenceIndex, topics: list[list[str]]):
    """Local ids (``-1`` = missing) of every topic position and the distinct index ids."""
    df = index.arrays["word_ptr"]
    k = max(len(t) for t in topics)
    lengths = np.array([len(t) for t in topics])
    distinct: dict[str, int] = {}  # each distinct word's code, in order of first appearance (one hash pass)
    codes = np.fromiter((distinct.setdefault(w, len(distinct)) for t in topics for w in t), dtype=np.int64,
                        count=int(lengths.sum()))
    found = index.word_ids(list(distinct))  # each distinct word once, the vocabulary not decoded
    known = found >= 0
    found[known] = np.where(df[found[known] + 1] > df[found[known]], found[known], -1)  # no postings: missing
    ids = np.full((len(topics), k), -1, dtype=np.int64)
    ids[np.arange(k)[None, :] < lengths[:, None]] = found[codes]
    uniq, local = np.unique(ids[ids >= 0], return_inverse=True)
    loc = np.full(ids.shape, -1, dtype=np.int64)
    loc[ids >= 0] = local
    return loc, uniq


def _joint_matrices(loc: np.ndarray, counts_fn) -> tuple[np.ndarray, np.ndarray, int]:
    """``topics x k x k`` joint counts (diagonal = single counts) and the single counts; each distinct
    pair counted once."""
    pairs, inverse, slots = topic_pairs(loc)
    counts = counts_fn(pairs)
    joint = topic_joint(loc, slots, inverse, counts.joint, counts.single)
    return joint, joint.diagonal(axis1=1, axis2=2).copy(), counts.n_units


def _count(index: ReferenceIndex, spec: MeasureSpec, uniq: np.ndarray, memory=None):
    if spec.window == "doc":
        return lambda pairs: core.count_documents(index, uniq, pairs, memory=memory)
    if spec.window_kind == "context":
        return lambda pairs: core.count_context(index, uniq, pairs, int(spec.window), memory=memory)
    return lambda pairs: core.count_windows(index, uniq, pairs, int(spec.window), spec.compat, memory=memory)


@dataclass
class _Counts:
    """Counts of one scoring run: ``joint`` (T x k x k, diagonal = single), ``single`` (T x k), ``n``
    units, and for set segmentations ``subsets`` (T x 2**k, units holding all words of each subset)."""

    joint: np.ndarray
    single: np.ndarray
    n: int
    subsets: np.ndarray | None = None

    def first(self, k: int) -> _Counts:
        """The counts of the first ``k`` words of every topic."""
        sub = None if self.subsets is None else self.subsets[:, : 1 << k]
        return _Counts(self.joint[:, :k, :k], self.single[:, :k], self.n, sub)

    def rows(self, rows: slice) -> _Counts:
        """The counts of the topics ``rows`` (views)."""
        sub = None if self.subsets is None else self.subsets[rows]
        return _Counts(self.joint[rows], self.single[rows], self.n, sub)

    def thresholded(self, min_count: int) -> _Counts:
        """Counts below ``min_count`` taken as 0 (Palmetto's minimum frequency)."""
        if not min_count:
            return self

        def cut(x):
            return np.where(x < min_count, 0.0, x)

        sub = None
        if self.subsets is not None:
            sub = np.where(self.subsets < min_count, 0, self.subsets)
            sub[:, 0] = self.subsets[:, 0]
        return _Counts(cut(self.joint), cut(self.single), self.n, sub)


def _confirm_matrix(name: str, spec: MeasureSpec, joint: np.ndarray, single: np.ndarray,
                    n: int, out: np.ndarray | None = None) -> np.ndarray:
    """Confirmation ``name`` of every ordered word pair (row W', column W*) of every topic.

    ``joint`` is symmetric (a count of units holding both words), so a measure of
    :data:`~tealeaves.coherence.confirmation.SYMMETRIC` is computed on the upper triangle and
    mirrored: the same values (for 1,000 topics of 50 words, 2.5 M entries: 95 -> 70 ms).

    Parameters
    ----------
    name : str
        The direct confirmation (:func:`~tealeaves.coherence.confirmation.confirm`).
    spec : MeasureSpec
        The pipeline (its smoothing, zero policy and logarithm base).
    joint : numpy.ndarray
        ``topics x k x k`` unit counts (diagonal: each word's).
    single : numpy.ndarray
        ``topics x k`` unit counts of the words.
    n : int
        Units in all.
    out : numpy.ndarray, optional
        ``topics x k x k`` floats to write the values into (a new array when not given).

    Returns
    -------
    numpy.ndarray
        ``topics x k x k`` confirmations (``out`` when given).
    """
    p_ab = (joint + spec.smoothing) / n
    p = single / n
    if name not in SYMMETRIC:
        values = confirm(name, p_ab, p[:, :, None], p[:, None, :], spec.zero, spec.log_base)
        if out is None:
            return values
        out[...] = values
        return out
    if out is None:
        out = np.empty_like(p_ab)
    i, j = np.triu_indices(p.shape[1])
    upper = confirm(name, p_ab[:, i, j], p[:, i], p[:, j], spec.zero, spec.log_base)
    out[:, i, j] = upper
    out[:, j, i] = upper
    return out


def _power(x: np.ndarray, gamma: float) -> np.ndarray:
    """``x ** gamma`` (as gensim); for a non-integer ``gamma`` the sign is kept, ``sign(x) |x|^gamma``."""
    if float(gamma).is_integer():
        return x ** gamma
    return np.sign(x) * np.abs(x) ** gamma


def _bits(masks: np.ndarray, k: int) -> np.ndarray:
    """0/1 matrix (segments x k) of the positions set in each mask."""
    return ((np.asarray(masks)[..., None] >> np.arange(k)) & 1).astype(np.float64)


def _vector_values(name: str, npmi: np.ndarray, present: np.ndarray, a: np.ndarray, b: np.ndarray,
                   gamma: float) -> np.ndarray:
    """Indirect confirmation of each segment: ``similarity(sum_{w in W'} v_w, sum_{w in W*} v_w)``.

    ``v_w`` is word ``w``'s context vector, its NPMI with every present top word raised to
    ``gamma``; absent words have zero vectors and zero entries.  ``b`` may be per topic (T x S).
    """
    both = present[:, :, None] & present[:, None, :]
    vec = _power(np.where(both, npmi, 0.0), gamma)
    vec = np.where(both, vec, 0.0)
    k = npmi.shape[1]
    a_bits = _bits(a, k)
    out = np.empty((npmi.shape[0], len(a)))
    for t in range(npmi.shape[0]):  # per topic: segments x k vectors stay small even for any-any
        b_bits = _bits(b[t] if b.ndim == 2 else b, k)
        out[t] = similarity(name, a_bits @ vec[t], b_bits @ vec[t])
    return out


def _direct_values(spec: MeasureSpec, counts: _Counts, mat: np.ndarray, a: np.ndarray, b: np.ndarray):
    """Direct confirmation of each segment (T x S) and the joint count of its two sets."""
    if is_pairwise(spec.segmentation):
        ii = np.log2(a).astype(np.int64)
        jj = np.log2(b).astype(np.int64)
        return mat[:, ii, jj], counts.joint[:, ii, jj]
    rows = np.arange(counts.subsets.shape[0])[:, None]
    bb = b if b.ndim == 2 else np.broadcast_to(b, (len(rows), len(b)))
    c_a = counts.subsets[rows, a[None, :]].astype(np.float64)
    c_b = counts.subsets[rows, bb].astype(np.float64)
    c_ab = counts.subsets[rows, a[None, :] | bb].astype(np.float64)
    n = counts.n
    values = confirm(spec.confirmation, (c_ab + spec.smoothing) / n, c_a / n, c_b / n, spec.zero,
                     spec.log_base)
    return values, c_ab


def _segments(spec: MeasureSpec, k: int, pmask: np.ndarray):
    """Segment masks of a ``k``-word group, W* restricted to present words for one-set/one-all (skip)."""
    a, b = segment_masks(spec.segmentation, k)
    if spec.segmentation in WHOLE_SET and spec.absent == "skip":
        b_eff = b[None, :] & pmask[:, None]
        touches = ((a[None, :] & ~pmask[:, None]) != 0) | (b_eff == 0)
        return a, b_eff, touches
    touches = ((a | b)[None, :] & ~pmask[:, None]) != 0
    return a, b, touches


def _score_group(spec, counts: _Counts, mat, present, topics, idx, topic_offset: int = 0) -> np.ndarray:
    """Scores of topics ``idx``, which all have the same number of words (``topic_offset``: the number
    of the first of ``topics`` among the caller's, for the messages)."""
    k = len(topics[idx[0]])
    rows = slice(None) if len(idx) == len(topics) else idx  # every topic: views, not copies of T x k x k
    sub = _Counts(counts.joint[rows][:, :k, :k], counts.single[rows][:, :k], counts.n,
                  None if counts.subsets is None else counts.subsets[rows][:, : 1 << k])
    pres = present[rows][:, :k]
    pmask = (pres * (1 << np.arange(k))).sum(axis=1).astype(np.int64)
    a, b, touches = _segments(spec, k, pmask)
    # absent="zero": every segment counts, a word of probability 0 taking the measure's value there
    # (0 for the ratio measures and the cosine, -P(W') for difference, ...: see confirmation.py)
    seg_valid = np.ones_like(touches) if spec.absent == "zero" else ~touches
    if spec.direct:
        values, _ = _direct_values(spec, sub, mat[rows][:, :k, :k], a, b)
        _check_zero(spec, values, seg_valid, a, b, [topics[t] for t in idx], idx + topic_offset)
    else:
        values = _vector_values(spec.confirmation, mat[rows][:, :k, :k], pres, a, b, spec.gamma)
    return aggregate(values, seg_valid, spec.aggregation)


#: Pair-matrix entries (``topics x k x k``) from which a call's confirmations and aggregations are split
#: by topics among threads (:func:`_score_parts`): a pool of Python threads, as many as numba's.  NumPy
#: releases the GIL in its element-wise loops, reductions and gathers, which are nearly all of the work
#: of the pairwise measures (not of the per-topic Python loops of the indirect ones, such as C_V, nor of
#: the median); every topic's score is computed from its own rows alone, so the scores are the same bits
#: whatever the split (1,000 topics of 50 words, 2.5 M entries: see docs/coherence.md).
_THREADED_SCORING_ENTRIES = 1 << 20


def _score_parts(n_topics: int, k: int, threads: int | None = None) -> list[slice]:
    """The topics of each thread's part of the scoring (ranges of equal size).

    Parameters
    ----------
    n_topics : int
        Topics scored.
    k : int
        Words of the longest topic.
    threads : int, optional
        Threads to split among (default: numba's thread count); one part below
        :data:`_THREADED_SCORING_ENTRIES` entries whatever it is.

    Returns
    -------
    list of slice
        One range of topics per part, in order, covering every topic.
    """
    if threads is None:
        import numba  # (loaded already by the counting core)

        threads = numba.get_num_threads()
    parts = threads if n_topics * k * k >= _THREADED_SCORING_ENTRIES else 1
    parts = max(1, min(parts, n_topics))
    cuts = [n_topics * p // parts for p in range(parts + 1)]
    return [slice(cuts[p], cuts[p + 1]) for p in range(parts)]


def _score_from_counts(topics: list[list[str]], counts: _Counts, spec: MeasureSpec):
    """Confirmation, aggregation and pair matrices from the counts of ``topics`` (in parts of the topics on
    several threads for a large call: :func:`_score_parts`).

    Topics are scored by groups of one length, shortest first; under ``zero="limit"`` the error raised is
    that of the first never co-occurring segment in that order (the shortest failing topics, the lowest
    number among them), whatever the parts."""
    counts = counts.thresholded(spec.min_count)
    k = counts.single.shape[1]
    lengths = np.array([len(t) for t in topics])
    present = (counts.single > 0) & (np.arange(k)[None, :] < lengths[:, None])
    mat = np.empty(counts.joint.shape)
    scores = np.full(len(topics), np.nan)
    parts = _score_parts(len(topics), k)
    refused: list[tuple[int, int, ZeroCooccurrenceError]] = []

    def part(p: int) -> None:
        rows = parts[p]
        sub = counts.rows(rows)
        _confirm_matrix(spec.confirmation if spec.direct else "npmi", spec, sub.joint, sub.single, sub.n,
                        out=mat[rows])
        for length in np.unique(lengths[rows]):
            idx = np.flatnonzero(lengths[rows] == length)
            try:
                scores[rows.start + idx] = _score_group(spec, sub, mat[rows], present[rows], topics[rows],
                                                        idx, rows.start)
            except ZeroCooccurrenceError as err:  # the part's first in the order of one part
                refused.append((int(length), err.topic, err))
                return

    pool = _threads.part_pool(len(parts))
    try:
        _threads.run_parts(part, len(parts), pool)
    finally:
        if pool is not None:
            pool.shutdown()
    if refused:
        raise min(refused, key=lambda r: r[:2])[2]
    enough = present.sum(axis=1) >= 2 if spec.absent == "skip" else np.ones(len(topics), dtype=bool)
    ok = (enough & np.isfinite(scores)).tolist()  # Python lists: a thousand topics' scores in milliseconds
    values, seen = scores.tolist(), present.tolist()
    results = [TopicScore(list(words), values[t] if ok[t] else None,
                          [w for w, here in zip(words, seen[t]) if not here])
               for t, words in enumerate(topics)]
    return results, (mat, present)


def _topic_counts(joint: np.ndarray, subsets: np.ndarray | None, n: int) -> _Counts:
    """:class:`_Counts` of a topic-by-topic count (``joint``: ``T x k x k``, words on the diagonal)."""
    joint = joint.astype(np.float64)
    return _Counts(joint, joint.diagonal(axis1=1, axis2=2).copy(), n, subsets)


def _count_all(index: ReferenceIndex, topics: list[list[str]], spec: MeasureSpec, memory=None) -> _Counts:
    """Every count the pipeline needs for ``topics`` (one call of the counting core per kind)."""
    loc, uniq = _word_table(index, topics)
    t_, k = loc.shape
    if not (loc >= 0).any():
        return _Counts(np.zeros((t_, k, k)), np.zeros((t_, k)), 1,
                       np.zeros((t_, 1 << k), dtype=np.int64) if spec.needs_subsets else None)
    if spec.window == "doc" and core.topic_major_cheaper(index, uniq, loc, memory):
        return _topic_counts(*core.count_topic_documents(index, uniq, loc, spec.needs_subsets, memory))
    if spec.needs_subsets and spec.window != "doc" and spec.window_kind == "sliding":  # pairs from the sets
        return _topic_counts(*core.count_topic_windows(index, uniq, loc, int(spec.window), spec.compat,
                                                       memory))
    joint, single, n = _joint_matrices(loc, _count(index, spec, uniq, memory))
    subsets = None
    if spec.needs_subsets:
        window = None if spec.window == "doc" else int(spec.window)
        subsets, n = core.count_subsets(index, uniq, loc, window, spec.compat, memory=memory)
    return _Counts(joint, single, n, subsets)


def _check_subset_size(spec: MeasureSpec, k: int) -> None:
    if spec.needs_subsets and k > core.MAX_SUBSET_WORDS:
        raise SettingsError(f"segmentation {spec.segmentation!r} with the direct confirmation "
                            f"{spec.confirmation!r} needs the probabilities of word sets, counted for at "
                            f"most {core.MAX_SUBSET_WORDS} words per topic; got {k}",
                            fix=f"use n_top <= {core.MAX_SUBSET_WORDS}, a pairwise segmentation, or an "
                                "indirect confirmation such as 'cosine'")
    if spec.segmentation in ("one-any", "any-any") and k > core.MAX_SUBSET_WORDS:
        raise SettingsError(f"segmentation {spec.segmentation!r} has 2**k or 3**k segments; k={k} is more "
                            f"than {core.MAX_SUBSET_WORDS}", fix=f"use n_top <= {core.MAX_SUBSET_WORDS}")


@renamed_parameters({"top_n": "n_top"})
@shared_doc
def score_topics(index: ReferenceIndex, topics: list[list[str]], spec: MeasureSpec,
                 n_top: int | tuple[int, ...] = 10, memory: int | str | None = None) -> CoherenceResult:
    """Score ranked word lists against ``index`` with the pipeline ``spec`` (see :func:`coherence`).

    The coherence pipeline of Röder et al. (2015): segmentation, probability estimation,
    confirmation, aggregation.  With several cardinalities (a tuple ``n_top``) every topic is
    scored on its first ``n`` words for each ``n`` and its score is the mean of those scores
    (Lau and Baldwin 2016), over the cardinalities at which it could be scored; the counts are
    made once.

    Parameters
    ----------
    index : ReferenceIndex
        The reference.
    topics : list of list of str
        The topics' words, best first.
    spec : MeasureSpec
        The pipeline.
    n_top : int or tuple of int, default 10
        The words per topic (``top_n`` is its deprecated old name).
    memory : int or str, optional
        Budget of the counts' working set above the mapped index (bytes or ``"1G"``; default 1 GiB:
        :func:`tealeaves.coherence.core.count_documents`).

    Returns: %(returns_coherence)s

    Raises
    ------
    EmptyInputError
        When the reference holds no tokens.
    SettingsError
        When a word-set segmentation is asked of more words than it can take.
    ZeroCooccurrenceError
        When a logarithmic measure under ``zero="limit"`` meets a never co-occurring segment.
    """
    if index.n_tokens == 0:
        raise EmptyInputError(f"the reference {index.name!r} holds no tokens; "
                              "rebuild it from a non-empty corpus")
    _check_subset_size(spec, max(len(t) for t in topics))
    counts = _count_all(index, topics, spec, memory)
    if not isinstance(n_top, tuple):
        results, matrices = _score_from_counts(topics, counts, spec)
        return CoherenceResult(signature_for(spec, index, n_top), results, spec, matrices)
    per_n = {n: _score_from_counts([t[:n] for t in topics], counts.first(n), spec)[0] for n in n_top}
    results, matrices = _score_from_counts(topics, counts, spec)
    for t, res in enumerate(results):
        res.by_top = {n: per_n[n][t].score for n in n_top}
        got = [v for v in res.by_top.values() if v is not None]
        res.score = float(np.mean(got)) if got else None
    return CoherenceResult(signature_for(spec, index, n_top), results, spec, matrices)


def score_counts(words: Sequence[str], joint: np.ndarray, n_units: int, measure: str | MeasureSpec = "npmi",
                 subsets: np.ndarray | None = None, **settings) -> tuple[float | None, pd.DataFrame]:
    """Score one topic from its counts (hand-worked examples, external counts).

    ``joint[i, j]`` is the units shared by words ``i`` and ``j``, ``joint[i, i]`` the units
    holding word ``i``, out of ``n_units``.  Set segmentations with a direct confirmation also
    need ``subsets[mask]``: the units holding every word whose bit is set in ``mask`` (bit
    ``i`` = word ``i``).

    Parameters
    ----------
    words : sequence of str
        The topic's words, best first.
    joint : numpy.ndarray
        The ``k x k`` co-occurrence counts.
    n_units : int
        The number of units (documents or windows).
    measure : str or MeasureSpec, default "npmi"
        The preset or pipeline.
    subsets : numpy.ndarray, optional
        ``2**k`` counts of word sets, for set segmentations with a direct confirmation.
    **settings
        Overrides of the preset's settings (:func:`~tealeaves.coherence.presets.resolve`).

    Returns
    -------
    tuple
        ``(score, pair matrix)``: the topic's score (``None`` if unscored) and its
        :meth:`CoherenceResult.pair_matrix`.

    Raises
    ------
    SettingsError
        When a set segmentation needs ``subsets`` and they are missing or the wrong length.
    """
    spec = resolve(measure, **settings)
    joint = np.asarray(joint, dtype=np.float64)[None]
    k = joint.shape[1]
    _check_subset_size(spec, k)
    single = joint[:, np.arange(k), np.arange(k)]
    sub = None
    if spec.needs_subsets:
        if subsets is None or len(subsets) != 1 << k:
            raise SettingsError(f"segmentation {spec.segmentation!r} with {spec.confirmation!r} needs the "
                                f"counts of word sets", fix=f"pass subsets= with 2**{k} counts")
        sub = np.asarray(subsets, dtype=np.int64)[None].copy()
        sub[:, 0] = n_units
    results, matrices = _score_from_counts([list(words)], _Counts(joint, single, int(n_units), sub), spec)
    result = CoherenceResult(Signature(spec.name), results, spec, matrices)
    return results[0].score, result.pair_matrix(0)


def _check_zero(spec, values, seg_valid, a, b, topics, idx) -> None:
    """Name the first never co-occurring segment a logarithmic measure cannot score under ``zero="limit"``
    (its value is ``-inf``)."""
    if spec.zero != "limit" or spec.confirmation not in LOGARITHMIC:
        return
    zero = np.isneginf(values) & seg_valid
    if zero.any():
        t, s = np.argwhere(zero)[0]
        bs = b[t, s] if b.ndim == 2 else b[s]
        words = topics[t]
        first = " ".join(w for i, w in enumerate(words) if a[s] >> i & 1)
        second = " ".join(w for i, w in enumerate(words) if bs >> i & 1)
        err = ZeroCooccurrenceError(
            f"{spec.confirmation} of {first!r} and {second!r} (topic {idx[t]}), which never co-occur, is "
            "-inf; choose zero='epsilon' (gensim's 1e-12), zero='zero', or a smoothing count")
        err.topic = int(idx[t])  # which topic, for a call scored in parts (_score_from_counts)
        raise err


class Coherence:
    """A coherence measure with its settings, scikit-learn style.

    Settings are validated when the measure is used (``spec``, ``score``).
    ``score(topics, reference)`` returns a :class:`CoherenceResult`.

    Parameters
    ----------
    measure : str, default "npmi"
        The preset name (see :data:`tealeaves.coherence.presets.PRESETS`).
    n_top : int or sequence of int, default 10
        A number of words, or several, e.g. ``[5, 10, 15, 20]``, whose per-topic scores are
        averaged (``top_n`` is its deprecated old name).
    segmentation : str, optional
        How topics are split (:mod:`tealeaves.coherence.segmentation`).
    window : str or int, optional
        ``"doc"`` or a sliding window of this many tokens.
    confirmation : str, optional
        How word sets confirm each other (:mod:`tealeaves.coherence.confirmation`).
    aggregation : str, optional
        How the confirmations of a topic are combined.
    smoothing : float, optional
        Pseudo-count added to joint counts (>= 0).
    zero : str, optional
        Value for pairs that never co-occur.
    gamma : float, optional
        Exponent of the context vectors of indirect confirmations (> 0).
    compat : str, optional
        Sliding-window counting.
    log_base : str, optional
        Base of the logarithms.
    min_count : int, optional
        Counts below this are taken as 0.
    absent : str, optional
        Segments with a word of probability 0: left out (``skip``) or kept (``zero``).
    window_kind : str, optional
        Boolean sliding windows, or Palmetto's context windows.
        Overrides of the preset's settings; ``None`` keeps the preset's.
    memory : int or str, optional
        Budget of the counts' working set above the mapped index (bytes or ``"1G"``; default 1 GiB);
        the results do not depend on it.
    """

    @renamed_parameters({"top_n": "n_top"})
    def __init__(self, measure: str = "npmi", *, n_top: int | Sequence[int] = 10,
                 segmentation: str | None = None, window: str | int | None = None,
                 confirmation: str | None = None, aggregation: str | None = None,
                 smoothing: float | None = None, zero: str | None = None, gamma: float | None = None,
                 compat: str | None = None, log_base: str | None = None, min_count: int | None = None,
                 absent: str | None = None, window_kind: str | None = None,
                 memory: int | str | None = None):
        self.measure = measure
        self.n_top = n_top
        self.segmentation = segmentation
        self.window = window
        self.confirmation = confirmation
        self.aggregation = aggregation
        self.smoothing = smoothing
        self.zero = zero
        self.gamma = gamma
        self.compat = compat
        self.log_base = log_base
        self.min_count = min_count
        self.absent = absent
        self.window_kind = window_kind
        self.memory = memory

    top_n = renamed_attribute("top_n", "n_top", "Coherence")

    @property
    def spec(self) -> MeasureSpec:
        """The resolved pipeline."""
        return resolve(self.measure, segmentation=self.segmentation, window=self.window,
                       confirmation=self.confirmation, aggregation=self.aggregation,
                       smoothing=self.smoothing, zero=self.zero, gamma=self.gamma, compat=self.compat,
                       log_base=self.log_base, min_count=self.min_count, absent=self.absent,
                       window_kind=self.window_kind)

    @shared_doc
    def score(self, topics, reference) -> CoherenceResult:
        """Score topics (word lists, a model, or a topics/model file) against ``reference``.

        Parameters
        ----------
        topics : list of list of str or TopicModel or str or os.PathLike
            The topics (see :func:`as_topics`).
        reference : ReferenceIndex or str or os.PathLike or Corpus or iterable of list of str
            The reference (see :func:`as_reference`).

        Returns: %(returns_coherence)s

        Raises
        ------
        TopicError
            When, with several cardinalities, a topic is shorter than the largest.
        """
        n_top = check_n_top(self.n_top)
        spec = self.spec
        longest = max(n_top) if isinstance(n_top, tuple) else n_top
        _check_subset_size(spec, longest)
        words = as_topics(topics, longest)
        if isinstance(n_top, tuple):
            short = [i for i, t in enumerate(words) if len(t) < longest]
            if short:
                raise TopicError(f"topic {short[0]} has {len(words[short[0]])} words; n_top={list(n_top)} "
                                 f"averages over cardinalities up to {longest}",
                                 fix=f"give topics of at least {longest} words or smaller cardinalities")
        vocab = list(dict.fromkeys(w for t in words for w in t))
        return score_topics(as_reference(reference, words=vocab), words, spec, n_top, self.memory)


@renamed_parameters({"top_n": "n_top"})
@shared_doc
def coherence(topics, reference, measure: str = "npmi", n_top: int | Sequence[int] = 10,
              **settings) -> CoherenceResult:
    """Score ``topics`` against ``reference`` with preset ``measure`` and optional overrides.

    The coherence pipeline of Röder, Both and Hinneburg (2015); the presets include UMass
    (Mimno et al. 2011), UCI (Newman et al. 2010), NPMI (Bouma 2009) and C_V.

    Parameters
    ----------
    topics : list of list of str or TopicModel or str or os.PathLike
        Lists of words (most probable first), a fitted tealeaves model, or a path to a topics
        text file / saved ``.npz`` model.
    reference : ReferenceIndex or str or os.PathLike or Corpus or iterable of list of str
        A :class:`ReferenceIndex`, an index file path, a :class:`~tealeaves.corpus.Corpus` or
        token lists (indexed in memory).
    measure : str, default "npmi"
        The preset (:data:`tealeaves.coherence.presets.PRESETS`).
    n_top : int or sequence of int, default 10
        Words per topic; ``n_top=[5, 10, 15, 20]`` gives each topic the mean of its scores at
        those cardinalities (Lau and Baldwin 2016).
    **settings
        Overrides of the preset's settings (the keyword parameters of :class:`Coherence`).

    Returns: %(returns_coherence)s

    Raises
    ------
    SettingsError
        When a setting is not known.
    """
    known = set(inspect.signature(Coherence).parameters) - {"measure", "n_top"}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise SettingsError(f"unknown coherence settings {unknown}", fix=f"use {sorted(known)}")
    return Coherence(measure, n_top=n_top, **settings).score(topics, reference)
