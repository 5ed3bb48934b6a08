"""Scoring topics against a reference index: the pipeline, its results, and the Python API.

>>> from tealeaves.coherence import coherence
>>> result = coherence([["oil", "gas", "energy"]], reference=index, measure="npmi")  # doctest: +SKIP
>>> result.mean, result.topics[0].score, str(result.signature)  # doctest: +SKIP

All topics are scored together: the distinct topic words are looked up once,
every needed pair is counted once by :mod:`tealeaves.coherence.core`, and the
confirmation is computed on ``topics x k x k`` arrays.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from tealeaves._output import format_table
from tealeaves.coherence import core
from tealeaves.coherence.aggregation import aggregate
from tealeaves.coherence.confirmation import confirm
from tealeaves.coherence.errors import TopicError, ZeroCooccurrenceError
from tealeaves.coherence.index import ReferenceIndex, build_index, index_from_token_lists
from tealeaves.coherence.presets import MeasureSpec, resolve
from tealeaves.coherence.segmentation import segment
from tealeaves.corpus import Corpus
from tealeaves.errors import EmptyInputError
from tealeaves.signature import Signature


@dataclass
class TopicScore:
    """One topic's coherence.

    ``score`` is ``None`` when fewer than two of its words occur in the
    reference (those words are listed in ``missing``); such topics are left
    out of the mean.
    """

    words: list[str]
    score: float | None
    missing: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"words": self.words, "score": self.score, "missing": self.missing}


@dataclass
class CoherenceResult:
    """Per-topic scores, their mean, the settings' signature and the word-pair matrices."""

    signature: Signature
    topics: list[TopicScore]
    spec: MeasureSpec
    _matrices: tuple = field(repr=False, default=())  # (topics x k x k values, valid mask)

    @property
    def scores(self) -> list[float | None]:
        return [t.score for t in self.topics]

    @property
    def mean(self) -> float | None:
        """Mean over the scored topics (``None`` if no topic could be scored)."""
        vals = [t.score for t in self.topics if t.score is not None]
        return float(np.mean(vals)) if vals else None

    @property
    def n_unscored(self) -> int:
        return sum(t.score is None for t in self.topics)

    def pair_matrix(self, topic: int) -> pd.DataFrame:
        """Word-by-word confirmation of one topic (rows W', columns W*), present words only.

        For direct measures cell ``(a, b)`` is the confirmation of ``a`` by
        ``b``; the topic score aggregates the cells chosen by the segmentation
        (all off-diagonal cells for one-one, the lower triangle for one-pre).
        For ``cosine`` it is the NPMI matrix the context vectors are made of.
        """
        mat, valid = self._matrices
        keep = np.flatnonzero(valid[topic])
        names = [self.topics[topic].words[i] for i in keep]
        return pd.DataFrame(mat[topic][np.ix_(keep, keep)], index=names, columns=names)

    def to_dict(self) -> dict:
        return {"signature": str(self.signature), "measure": self.spec.name, "mean": self.mean,
                "n_unscored": self.n_unscored, "topics": [t.to_dict() for t in self.topics]}

    def to_text(self, matrices: Sequence[int] = ()) -> str:
        """A readable report: one row per topic, then the requested topics' pair matrices."""
        rows = [{"topic": i, "score": "-" if t.score is None else f"{t.score:.4f}",
                 "words": " ".join(t.words), "missing": " ".join(t.missing)}
                for i, t in enumerate(self.topics)]
        mean = "-" if self.mean is None else f"{self.mean:.4f}"
        parts = [str(self.signature), format_table(rows), f"mean {mean} over "
                 f"{len(self.topics) - self.n_unscored} scored topics"]
        for k in matrices:
            m = self.pair_matrix(k)
            table = [{"": r, **{c: float(m.loc[r, c]) for c in m.columns}} for r in m.index]
            parts.append(f"topic {k} word pairs ({self.spec.confirmation}):\n"
                         + format_table(table, floatfmt=".3f"))
        return "\n\n".join(parts)


# --------------------------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------------------------
def as_reference(reference, name: str | None = None, words: Sequence[str] | None = None) -> ReferenceIndex:
    """A :class:`ReferenceIndex` from an index, an index file path, a Corpus or token lists.

    Token lists are indexed in memory, restricted to ``words`` when given (the
    topic words of a one-shot score; every count of those words is unchanged).
    """
    if isinstance(reference, ReferenceIndex):
        return reference
    if isinstance(reference, (str, os.PathLike)):
        return ReferenceIndex.load(reference)
    if isinstance(reference, Corpus):
        return build_index(reference, name=name or reference.metadata.get("name") or "corpus")
    if reference is None:
        raise EmptyInputError("no reference given; pass an index, an index file, a Corpus or token lists")
    docs = list(reference)
    if not docs:
        raise EmptyInputError("the reference has no documents")
    return index_from_token_lists(docs, name=name or "token-lists", words=words)


def read_topics_file(path: str | os.PathLike) -> list[list[str]]:
    """Topics from a text file, one per line, words separated by whitespace (blank lines skipped)."""
    path = Path(path)
    if not path.is_file():
        raise EmptyInputError(f"no topics file at {path}; give a text file (a topic per line) or a model")
    lines = [ln.split() for ln in path.read_text(encoding="utf-8").splitlines()]
    topics = [ln for ln in lines if ln]
    if not topics:
        raise EmptyInputError(f"{path} holds no topics; write one topic per line, words separated by spaces")
    return topics


def as_topics(topics, top_n: int) -> list[list[str]]:
    """Lists of ranked words from lists, a tealeaves model, or a topics/model file; truncated to ``top_n``."""
    if isinstance(topics, (str, os.PathLike)) and (Path(topics).suffix in (".npz", ".bin")
                                                   or Path(f"{topics}.state").is_file()):
        from tealeaves.models.adapters import load_model  # tealeaves, tomotopy and gensim model files

        topics = load_model(topics).top_words(top_n)
    elif isinstance(topics, (str, os.PathLike)):
        topics = read_topics_file(topics)
    elif hasattr(topics, "top_words"):
        topics = topics.top_words(top_n)
    out = [[str(w) for w in t][:top_n] for t in topics]
    if not out:
        raise EmptyInputError("no topics given")
    for i, words in enumerate(out):
        if len(words) < 2:
            raise TopicError(f"topic {i} has {len(words)} word(s) ({' '.join(words)}); coherence compares "
                             "pairs of words, so give at least two")
        seen: set[str] = set()
        dup = [w for w in words if w in seen or seen.add(w)]  # type: ignore[func-returns-value]
        if dup:
            raise TopicError(f"topic {i} repeats {dup[0]!r}; list each word once")
    return out


# --------------------------------------------------------------------------------------------
# the pipeline
# --------------------------------------------------------------------------------------------
def signature_for(spec: MeasureSpec, index: ReferenceIndex, top_n: int) -> Signature:
    """The reproducibility signature of a score computed with ``spec`` on ``index``."""
    fields: dict[str, object] = {"ref": f"{index.name}@{index.short_checksum}", "win": spec.window,
                                 "top": top_n, "seg": spec.segmentation, "conf": spec.confirmation,
                                 "agg": spec.aggregation, "smooth": spec.smoothing, "zero": spec.zero}
    if spec.confirmation == "cosine":
        fields["gamma"] = spec.gamma
    if spec.window != "doc":
        fields["count"] = spec.compat
    return Signature(spec.name, fields)


def _word_table(index: ReferenceIndex, topics: list[list[str]]):
    """Local ids (``-1`` = missing) of every topic position and the distinct index ids."""
    vocab = index.vocabulary.index
    df = index.arrays["word_ptr"]
    k = max(len(t) for t in topics)
    ids = np.full((len(topics), k), -1, dtype=np.int64)
    missing: list[list[str]] = []
    for t, words in enumerate(topics):
        miss = []
        for i, w in enumerate(words):
            wid = vocab.get(w)
            if wid is None or df[wid + 1] == df[wid]:
                miss.append(w)
            else:
                ids[t, i] = wid
        missing.append(miss)
    uniq, local = np.unique(ids[ids >= 0], return_inverse=True)
    loc = np.full(ids.shape, -1, dtype=np.int64)
    loc[ids >= 0] = local
    return loc, uniq, missing


def _joint_matrices(loc: np.ndarray, counts_fn) -> tuple[np.ndarray, np.ndarray, int]:
    """``topics x k x k`` joint counts (diagonal = single counts) and the single counts."""
    t_, k = loc.shape
    ii, jj = np.triu_indices(k, 1)
    a, b = loc[:, ii], loc[:, jj]
    ok = (a >= 0) & (b >= 0)
    lo, hi = np.minimum(a, b)[ok], np.maximum(a, b)[ok]
    n_uniq = int(loc.max()) + 1
    keys = np.unique(lo * n_uniq + hi)
    counts = counts_fn(np.stack([keys // n_uniq, keys % n_uniq], axis=1))
    joint = np.zeros((t_, k, k), dtype=np.float64)
    tri = np.zeros(a.shape, dtype=np.float64)
    tri[ok] = counts.joint[np.searchsorted(keys, lo * n_uniq + hi)]
    joint[:, ii, jj] = tri
    joint[:, jj, ii] = tri
    diag = np.where(loc >= 0, counts.single[np.maximum(loc, 0)], 0)
    joint[:, np.arange(k), np.arange(k)] = diag
    return joint, diag.astype(np.float64), counts.n_units


def _count(index: ReferenceIndex, spec: MeasureSpec, uniq: np.ndarray):
    if spec.window == "doc":
        return lambda pairs: core.count_documents(index, uniq, pairs)
    return lambda pairs: core.count_windows(index, uniq, pairs, int(spec.window), spec.compat)


def _confirm_matrix(name: str, spec: MeasureSpec, joint: np.ndarray, single: np.ndarray,
                    n: int) -> np.ndarray:
    """Confirmation ``name`` of every ordered word pair (row W', column W*) of every topic."""
    p_ab = (joint + spec.smoothing) / n
    p = single / n
    return confirm(name, p_ab, p[:, :, None], p[:, None, :], spec.zero)


def _power(x: np.ndarray, gamma: float) -> np.ndarray:
    """``x ** gamma`` (as gensim); for a non-integer ``gamma`` the sign is kept, ``sign(x) |x|^gamma``."""
    if float(gamma).is_integer():
        return x ** gamma
    return np.sign(x) * np.abs(x) ** gamma


def _cosine_segments(npmi: np.ndarray, valid: np.ndarray, segs, gamma: float) -> np.ndarray:
    """Cosine between context vectors ``sum_{a in W'} npmi(a, .)^gamma`` and the same for W*."""
    vec = _power(np.where(valid[:, :, None] & valid[:, None, :], npmi, 0.0), gamma)
    vec = np.where(valid[:, None, :], vec, 0.0)
    out = np.zeros((npmi.shape[0], len(segs)))
    for s, (wp, ws) in enumerate(segs):
        u = (vec[:, list(wp), :] * valid[:, list(wp), None]).sum(axis=1)
        z = (vec[:, list(ws), :] * valid[:, list(ws), None]).sum(axis=1)
        norm = np.linalg.norm(u, axis=1) * np.linalg.norm(z, axis=1)
        out[:, s] = np.where(norm > 0, (u * z).sum(axis=1) / np.where(norm > 0, norm, 1.0), 0.0)
    return out


def score_topics(index: ReferenceIndex, topics: list[list[str]], spec: MeasureSpec,
                 top_n: int = 10) -> CoherenceResult:
    """Score ranked word lists against ``index`` with the pipeline ``spec`` (see :func:`coherence`)."""
    if index.n_tokens == 0:
        raise EmptyInputError(f"the reference {index.name!r} holds no tokens; "
                              "rebuild it from a non-empty corpus")
    loc, uniq, missing = _word_table(index, topics)
    t_, k = loc.shape
    valid = loc >= 0
    if not valid.any():
        joint = np.zeros((t_, k, k))
        single = np.zeros((t_, k))
        n = 1
    else:
        joint, single, n = _joint_matrices(loc, _count(index, spec, uniq))
    results, matrices = _score_from_counts(topics, missing, valid, joint, single, n, spec)
    return CoherenceResult(signature_for(spec, index, top_n), results, spec, matrices)


def _score_from_counts(topics, missing, valid, joint, single, n, spec):
    """Confirmation, aggregation and pair matrices from ``topics x k x k`` joint counts."""
    k = valid.shape[1]
    segs = segment(spec.segmentation, k)
    if spec.confirmation == "cosine":
        mat = _confirm_matrix("npmi", spec, joint, single, n)
        values = _cosine_segments(mat, valid, segs, spec.gamma)
        seg_valid = valid[:, [wp[0] for wp, _ in segs]]
    else:
        ii = np.array([wp[0] for wp, _ in segs])
        jj = np.array([ws[0] for _, ws in segs])
        seg_valid = valid[:, ii] & valid[:, jj]
        _check_zero(spec, joint, seg_valid, ii, jj, topics)
        mat = _confirm_matrix(spec.confirmation, spec, joint, single, n)
        values = mat[:, ii, jj]
    # positions beyond a short topic's length are not valid, like missing words
    scores = aggregate(values, seg_valid, spec.aggregation)
    ok = (valid.sum(axis=1) >= 2) & np.isfinite(scores)
    results = [TopicScore(list(words), float(scores[t]) if ok[t] else None, missing[t])
               for t, words in enumerate(topics)]
    return results, (mat, valid)


def score_counts(words: Sequence[str], joint: np.ndarray, n_units: int, measure: str | MeasureSpec = "npmi",
                 **settings) -> tuple[float | None, pd.DataFrame]:
    """Score one topic from its counts: ``joint[i, j]`` units shared by words ``i`` and ``j``, ``joint[i, i]``
    the units holding word ``i``, out of ``n_units`` (hand-worked examples, external counts).

    Returns ``(score, pair matrix)``.
    """
    spec = resolve(measure, **settings)
    joint = np.asarray(joint, dtype=np.float64)[None]
    k = joint.shape[1]
    single = joint[:, np.arange(k), np.arange(k)]
    valid = single > 0
    missing = [[w for w, ok in zip(words, valid[0]) if not ok]]
    results, matrices = _score_from_counts([list(words)], missing, valid, joint, single, int(n_units), spec)
    result = CoherenceResult(Signature(spec.name), results, spec, matrices)
    return results[0].score, result.pair_matrix(0)


def _check_zero(spec, joint, seg_valid, ii, jj, topics) -> None:
    """Name the first never co-occurring pair an unbounded measure cannot score under ``zero="limit"``."""
    if spec.zero != "limit" or spec.confirmation == "npmi" or spec.smoothing > 0:
        return
    zero = (joint[:, ii, jj] <= 0) & seg_valid
    if zero.any():
        t, s = np.argwhere(zero)[0]
        a, b = topics[t][ii[s]], topics[t][jj[s]]
        raise ZeroCooccurrenceError(
            f"{spec.confirmation} of {a!r} and {b!r} (topic {t}), which never co-occur, is -inf; "
            "choose zero='epsilon' (gensim's 1e-12), zero='zero', or a smoothing count")


class Coherence:
    """A coherence measure with its settings, scikit-learn style.

    Parameters are the preset name (``umass``, ``uci``, ``npmi``, ``c_v``) and
    overrides of any of its settings (``segmentation``, ``window`` -- ``"doc"``
    or tokens --, ``confirmation``, ``aggregation``, ``smoothing``, ``zero``,
    ``gamma``, ``compat``).  ``score(topics, reference)`` returns a
    :class:`CoherenceResult`.
    """

    def __init__(self, measure: str = "npmi", *, top_n: int = 10, segmentation: str | None = None,
                 window: str | int | None = None, confirmation: str | None = None,
                 aggregation: str | None = None, smoothing: float | None = None, zero: str | None = None,
                 gamma: float | None = None, compat: str | None = None):
        self.measure = measure
        self.top_n = top_n
        self.segmentation = segmentation
        self.window = window
        self.confirmation = confirmation
        self.aggregation = aggregation
        self.smoothing = smoothing
        self.zero = zero
        self.gamma = gamma
        self.compat = compat

    @property
    def spec(self) -> MeasureSpec:
        """The resolved pipeline."""
        return resolve(self.measure, segmentation=self.segmentation, window=self.window,
                       confirmation=self.confirmation, aggregation=self.aggregation,
                       smoothing=self.smoothing, zero=self.zero, gamma=self.gamma, compat=self.compat)

    def score(self, topics, reference) -> CoherenceResult:
        """Score topics (word lists, a model, or a topics/model file) against ``reference``."""
        if int(self.top_n) < 2:
            raise TopicError(f"top_n={self.top_n}: coherence needs at least two words per topic")
        spec = self.spec
        words = as_topics(topics, int(self.top_n))
        vocab = list(dict.fromkeys(w for t in words for w in t))
        return score_topics(as_reference(reference, words=vocab), words, spec, int(self.top_n))


def coherence(topics, reference, measure: str = "npmi", top_n: int = 10, **settings) -> CoherenceResult:
    """Score ``topics`` against ``reference`` with preset ``measure`` and optional overrides.

    ``topics``: lists of words (most probable first), a fitted tealeaves model,
    or a path to a topics text file / saved ``.npz`` model.  ``reference``: a
    :class:`ReferenceIndex`, an index file path, a :class:`~tealeaves.corpus.Corpus`
    or token lists (indexed in memory).
    """
    return Coherence(measure, top_n=top_n, **settings).score(topics, reference)
