"""Junk-topic flags, each with the rule that raised it and an explanation in words.

Five flags, each computed by its own function and collected by :func:`flag_topics`:

``low-coherence``
    the topic's coherence is an outlier *of its own model*: below Tukey's
    lower fence ``Q1 - whisker * IQR`` (Tukey 1977; ``whisker=1.5``) of the
    model's per-topic scores.  Relative, because scales differ between
    measures and references (UMass has no fixed scale at all).  Needs at
    least four scored topics; unscored topics (``None``) are not flagged.
``low-recurrence``
    the topic comes back in fewer than ``min_recurrence`` (default 0.5) of the
    other runs (:func:`~tealeaves.comparison.stability.topic_stability`): "topics
    that appear only in some runs should not be trusted".
``background``
    the topic is close to the corpus background: its ``kl_vacuous``
    (:func:`~tealeaves.comparison.significance.topic_significance`, AlSumait
    et al. 2009) is below the lower fence of the model's own values.
``few-documents``
    the topic is dominated by few documents: the share of its token mass
    ``n_dk = N_d theta_dk`` held by its ``top_documents`` (default 10) heaviest
    documents exceeds ``max_share`` (default 0.5).
``mixed``
    the topic's NPMI pair matrix (``CoherenceResult.pair_matrix(k)``)
    splits into groups of words that co-occur within but not across, as the
    article's dutch/guilders/hughes/baker topic does.  Rule: symmetrise the
    matrix, ``S = (M + M^T) / 2``; cluster the words by average-linkage
    agglomeration, merging the two clusters with the highest mean ``S``
    between them while that mean exceeds ``between`` (default 0.0: the
    clusters attract each other more than independent words would); call a
    final cluster of at least two words a *group* when its mean within-cluster
    ``S`` is at least ``within`` (default 0.2).  The topic is mixed when it
    has at least two groups; by construction the mean NPMI between any two
    final clusters is at most ``between``.  A coherent topic, whose pairs all
    have positive NPMI, ends as one cluster and is never mixed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from tealeaves._docs import shared_doc
from tealeaves._params import renamed_attribute, renamed_parameters
from tealeaves._records import RecordDict
from tealeaves.comparison._common import check_fraction, frame_records
from tealeaves.comparison.significance import topic_document_mass
from tealeaves.errors import EmptyInputError, InvalidModelError, ParameterError
from tealeaves.likelihood._perplexity import check_proportions
from tealeaves.signature import Signature
from tealeaves.validation import check_float, check_int

FLAGS = ("low-coherence", "low-recurrence", "background", "few-documents", "mixed")


@dataclass
class TopicFlag(RecordDict):
    """One flag raised on one topic: the measured ``value``, the ``threshold`` it crossed, and why.

    Parameters
    ----------
    topic : int
        The topic's index.
    flag : str
        One of :data:`FLAGS`.
    value : float
        The measured value.
    threshold : float
        The threshold it crossed.
    explanation : str
        Why, in words.
    """

    topic: int
    flag: str
    value: float
    threshold: float
    explanation: str


@dataclass
class FlagReport:
    """The flags raised on a model's topics and the settings of every rule (``signature``).

    Parameters
    ----------
    n_components : int
        The model's number of topics.
    flags : list of TopicFlag
        The flags raised, by topic then flag.
    signature : Signature
        The settings of every rule checked.
    checked : list of str, default []
        The flags checked.
    skipped : dict of str to str, default {}
        Flags not checked, with the reason.
    """

    n_components: int
    flags: list[TopicFlag]
    signature: Signature
    checked: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)

    @shared_doc
    def of(self, topic: int) -> list[TopicFlag]:
        """The flags of one topic.

        Parameters: %(topic_index)s

        Returns
        -------
        list of TopicFlag
            Its flags (empty if none).
        """
        return [f for f in self.flags if f.topic == topic]

    n_topics = renamed_attribute("n_topics", "n_components", "FlagReport")

    def to_frame(self) -> pd.DataFrame:
        """One row per topic: a boolean column per checked flag and the joined ``explanation``.

        Returns
        -------
        pandas.DataFrame
            Columns ``topic``, one per checked flag, and ``explanation``.
        """
        rows = []
        for k in range(self.n_components):
            mine = {f.flag: f for f in self.of(k)}
            rows.append({"topic": k, **{name: name in mine for name in self.checked},
                         "explanation": "; ".join(f.explanation for f in mine.values())})
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        """The report as a JSON-ready dictionary.

        Returns
        -------
        dict
            ``signature`` (a string), ``checked``, ``skipped``, ``flags`` and the per-topic
            ``topics`` records.
        """
        return {"signature": str(self.signature), "checked": self.checked, "skipped": dict(self.skipped),
                "flags": [f.to_dict() for f in self.flags], "topics": frame_records(self.to_frame())}


def lower_fence(values: np.ndarray, whisker: float = 1.5) -> float:
    """Tukey's lower fence ``Q1 - whisker * (Q3 - Q1)`` (Tukey 1977; quartiles by linear interpolation).

    Parameters
    ----------
    values : numpy.ndarray
        The values (e.g. one model's per-topic scores).
    whisker : float, default 1.5
        The multiple of the interquartile range.

    Returns
    -------
    float
        The lower fence.
    """
    q1, q3 = np.quantile(values, [0.25, 0.75])
    return float(q1 - whisker * (q3 - q1))


#: The relative flags (low-coherence, background) compare a topic with at least this many topics.
MIN_TOPICS_RELATIVE = 4


def _outliers(values: list[float | None], whisker: float, what: str) -> tuple[float, list[int]]:
    whisker = check_float(whisker, "whisker", min_value=0.0)
    scored = np.array([v for v in values if v is not None], dtype=np.float64)
    if scored.size < MIN_TOPICS_RELATIVE:
        raise EmptyInputError(f"the {what} flag compares a topic with its model's other topics and needs at "
                              f"least {MIN_TOPICS_RELATIVE} scored topics, got {scored.size}")
    fence = lower_fence(scored, whisker)
    return fence, [k for k, v in enumerate(values) if v is not None and v < fence]


def low_coherence_flags(coherence: object, whisker: float = 1.5) -> list[TopicFlag]:
    """``low-coherence``: topics scoring below the lower fence of their model's scores (module docstring).

    Parameters
    ----------
    coherence : CoherenceResult
        The model's coherence result (:func:`tealeaves.coherence` scoring).
    whisker : float, default 1.5
        Tukey's whisker (>= 0).

    Returns
    -------
    list of TopicFlag
        One flag per low topic.

    Raises
    ------
    ParameterError
        If ``coherence`` is not a CoherenceResult or ``whisker`` is invalid.
    EmptyInputError
        If fewer than :data:`MIN_TOPICS_RELATIVE` topics are scored.
    """
    scores = getattr(coherence, "scores", None)
    if scores is None:
        raise ParameterError(f"coherence must be a CoherenceResult, got {type(coherence).__name__}")
    fence, low = _outliers(list(scores), whisker, "low-coherence")
    median = float(np.median([s for s in scores if s is not None]))
    name = coherence.spec.name if hasattr(coherence, "spec") else "coherence"
    return [TopicFlag(k, "low-coherence", float(scores[k]), fence,
                      f"{name} {scores[k]:.3f} is far below this model's other topics (median {median:.3f}, "
                      f"lower fence {fence:.3f})") for k in low]


def low_recurrence_flags(recurrence: object, min_recurrence: float = 0.5) -> list[TopicFlag]:
    """``low-recurrence``: topics recurring in fewer than ``min_recurrence`` of the other runs.

    Parameters
    ----------
    recurrence : array_like
        One share in ``[0, 1]`` per topic (``StabilityResult.recurrence(run)``).
    min_recurrence : float, default 0.5
        The threshold, in ``(0, 1]``.

    Returns
    -------
    list of TopicFlag
        One flag per topic below the threshold.

    Raises
    ------
    ParameterError
        If ``recurrence`` is not one share per topic or ``min_recurrence`` is out of range.
    """
    min_recurrence = check_fraction(min_recurrence, "min_recurrence", include_min=False)
    rec = np.asarray(recurrence, dtype=np.float64)
    if rec.ndim != 1 or rec.size == 0 or not np.isfinite(rec).all() or (rec < 0).any() or (rec > 1).any():
        raise ParameterError("recurrence must be one share in [0, 1] per topic "
                             "(StabilityResult.recurrence(run))")
    return [TopicFlag(k, "low-recurrence", float(r), min_recurrence,
                      f"found again in only {r:.0%} of the other runs (threshold {min_recurrence:.0%}); it "
                      "may be an artefact of this random start")
            for k, r in enumerate(rec) if r < min_recurrence]


def background_flags(significance: object, whisker: float = 1.5) -> list[TopicFlag]:
    """``background``: topics whose KL to the corpus word distribution is below the model's lower fence.

    ``kl_vacuous`` is the KL divergence of AlSumait et al. (2009).

    Parameters
    ----------
    significance : Score
        The result of :func:`~tealeaves.comparison.significance.topic_significance`.
    whisker : float, default 1.5
        Tukey's whisker (>= 0).

    Returns
    -------
    list of TopicFlag
        One flag per background topic.

    Raises
    ------
    ParameterError
        If ``significance`` is not the result of ``topic_significance``.
    EmptyInputError
        If fewer than :data:`MIN_TOPICS_RELATIVE` topics are scored.
    """
    frame = getattr(significance, "per_topic", None)
    if frame is None or "kl_vacuous" not in frame:
        raise ParameterError("significance must be the result of topic_significance")
    values = frame["kl_vacuous"].tolist()
    fence, low = _outliers(values, whisker, "background")
    return [TopicFlag(k, "background", float(values[k]), fence,
                      f"its word distribution is close to the whole corpus's (KL {values[k]:.3f} nats, lower "
                      f"fence {fence:.3f}): it describes the collection, not a subject") for k in low]


def few_documents_flags(theta: np.ndarray, doc_lengths: object, top_documents: int = 10,
                        max_share: float = 0.5) -> list[TopicFlag]:
    """``few-documents``: topics with over ``max_share`` of their token mass in ``top_documents`` documents.

    The mass of topic ``k`` in document ``d`` is ``N_d theta_dk``.

    Parameters
    ----------
    theta : numpy.ndarray
        The ``D x K`` document-topic proportions.
    doc_lengths : array_like
        The ``D`` token counts ``N_d``.
    top_documents : int, default 10
        The number of heaviest documents (fewer than ``D``).
    max_share : float, default 0.5
        The threshold share, in ``(0, 1)``.

    Returns
    -------
    list of TopicFlag
        One flag per topic over the threshold.

    Raises
    ------
    InvalidModelError
        If ``theta`` is not a non-empty ``D x K`` distribution.
    ParameterError
        If ``top_documents`` is not smaller than ``D`` or a value is out of range.
    """
    theta = np.asarray(theta, dtype=np.float64)
    if theta.ndim != 2 or theta.size == 0:
        raise InvalidModelError(f"theta must be a non-empty D x K array, got shape {theta.shape}")
    theta = check_proportions(theta, theta.shape[0], theta.shape[1])
    top_documents = check_int(top_documents, "top_documents", min_value=1)
    max_share = check_fraction(max_share, "max_share", include_min=False, include_max=False)
    if theta.shape[0] <= top_documents:
        raise ParameterError(f"top_documents={top_documents} is not smaller than the number of documents "
                             f"({theta.shape[0]})", fix="choose fewer top documents")
    mass = topic_document_mass(theta, doc_lengths)
    total = mass.sum(axis=0)
    top = -np.sort(-mass, axis=0)[:top_documents].sum(axis=0)
    share = np.divide(top, total, out=np.zeros_like(top), where=total > 0)
    return [TopicFlag(k, "few-documents", float(s), max_share,
                      f"{s:.0%} of its words lie in just {top_documents} documents (threshold "
                      f"{max_share:.0%}): it describes those documents, not a theme of the collection")
            for k, s in enumerate(share) if s > max_share]


def word_groups(matrix: pd.DataFrame, between: float = 0.0) -> list[list[str]]:
    """Average-linkage clusters of a pair matrix's words, merged while their mean similarity > ``between``.

    Deterministic: ties are broken by the clusters' order.

    Parameters
    ----------
    matrix : pandas.DataFrame
        A square pair matrix with the same words as rows and columns (symmetrised first).
    between : float, default 0.0
        Merging stops when the best mean similarity between two clusters is at most this.

    Returns
    -------
    list of list of str
        The clusters largest first (then in word order).

    Raises
    ------
    ParameterError
        If ``matrix`` is not square with the same words as rows and columns.
    """
    s = np.asarray(matrix, dtype=np.float64)
    if s.ndim != 2 or s.shape[0] != s.shape[1] or list(matrix.index) != list(matrix.columns):
        raise ParameterError("the pair matrix must be square with the same words as rows and columns")
    s = (s + s.T) / 2.0
    clusters = [[i] for i in range(s.shape[0])]
    while len(clusters) > 1:
        best, pair = -np.inf, None
        for i in range(len(clusters)):
            for j in range(i + 1, len(clusters)):
                mean = s[np.ix_(clusters[i], clusters[j])].mean()
                if mean > best:
                    best, pair = mean, (i, j)
        if best <= between:
            break
        i, j = pair
        clusters[i] = sorted(clusters[i] + clusters[j])
        del clusters[j]
    clusters.sort(key=lambda c: (-len(c), c[0]))
    words = list(matrix.index)
    return [[words[i] for i in c] for c in clusters]


def _within(s: np.ndarray, idx: list[int]) -> float:
    sub = s[np.ix_(idx, idx)]
    return float(sub[~np.eye(len(idx), dtype=bool)].mean())


def mixed_topic(matrix: pd.DataFrame, within: float = 0.2, between: float = 0.0) -> dict:
    """Apply the ``mixed`` rule (module docstring) to one NPMI pair matrix.

    Parameters
    ----------
    matrix : pandas.DataFrame
        The topic's NPMI pair matrix (square, words as rows and columns).
    within : float, default 0.2
        Least mean within-cluster NPMI of a group, in ``[-1, 1]``.
    between : float, default 0.0
        Clusters are merged while their mean NPMI exceeds this (lower than ``within``).

    Returns
    -------
    dict
        ``{"mixed": bool, "groups": [[words], ...], "within": [mean NPMI of each
        group], "between": mean NPMI of the pairs across groups or None}``.

    Raises
    ------
    ParameterError
        If a threshold is out of range, ``between >= within``, or the matrix has non-finite values.
    """
    within = check_float(within, "within", min_value=-1.0, max_value=1.0)
    between = check_float(between, "between", min_value=-1.0, max_value=1.0)
    if between >= within:
        raise ParameterError(f"between={between:g} must be lower than within={within:g}")
    words = list(matrix.index)
    s = np.asarray(matrix, dtype=np.float64)
    if not np.isfinite(s).all():
        raise ParameterError("the pair matrix has NaN or infinite values; use NPMI (bounded in [-1, 1])")
    s = (s + s.T) / 2.0
    pos = {w: i for i, w in enumerate(words)}
    groups, means = [], []
    for cluster in word_groups(matrix, between):
        idx = [pos[w] for w in cluster]
        if len(idx) >= 2 and _within(s, idx) >= within:
            groups.append(cluster)
            means.append(_within(s, idx))
    across = None
    if len(groups) >= 2:
        label = {w: g for g, grp in enumerate(groups) for w in grp}
        cross = [s[pos[x], pos[y]] for x in label for y in label if label[x] < label[y]]
        across = float(np.mean(cross))
    return {"mixed": len(groups) >= 2, "groups": groups, "within": means, "between": across}


def mixed_flags(coherence: object, within: float = 0.2, between: float = 0.0) -> list[TopicFlag]:
    """``mixed``: topics whose NPMI pair matrix splits into groups (module docstring).

    Parameters
    ----------
    coherence : CoherenceResult
        A :class:`~tealeaves.coherence.CoherenceResult` whose pair matrices hold
        NPMI (the ``npmi`` measure or ``c_v``, whose pair matrix is NPMI).
    within : float, default 0.2
        Least mean within-cluster NPMI of a group.
    between : float, default 0.0
        Merging threshold of the clusters.

    Returns
    -------
    list of TopicFlag
        One flag per mixed topic.

    Raises
    ------
    ParameterError
        If ``coherence`` is not a CoherenceResult with NPMI pair matrices.
    """
    spec = getattr(coherence, "spec", None)
    if spec is None or not hasattr(coherence, "pair_matrix"):
        raise ParameterError(f"coherence must be a CoherenceResult, got {type(coherence).__name__}")
    if spec.confirmation not in ("npmi", "cosine"):
        raise ParameterError(f"the mixed flag reads NPMI pair matrices, but this result's are "
                             f"{spec.confirmation}", fix="score the topics with measure='npmi'")
    out = []
    for k in range(len(coherence.topics)):
        found = mixed_topic(coherence.pair_matrix(k), within, between)
        if found["mixed"]:
            groups = ", ".join("{" + " ".join(g) + "}" + f" ({m:.2f})" for g, m in zip(found["groups"],
                                                                                       found["within"]))
            out.append(TopicFlag(k, "mixed", found["between"], between,
                                 f"its words form separate groups that co-occur within (mean NPMI in "
                                 f"parentheses) but not across (mean NPMI {found['between']:.2f}): {groups}"))
    return out


@renamed_parameters({"n_topics": "n_components"})
def flag_topics(n_components: int, coherence: object | None = None, recurrence: object | None = None,
                significance: object | None = None, theta: np.ndarray | None = None,
                doc_lengths: object | None = None, *, whisker: float = 1.5, min_recurrence: float = 0.5,
                top_documents: int = 10, max_share: float = 0.5, within: float = 0.2,
                between: float = 0.0) -> FlagReport:
    """Every flag whose input is given (module docstring), for a model with ``n_components`` topics.

    The relative flags (``low-coherence``, ``background``) need at least four
    scored topics; for smaller models they are not checked and the reason is in
    ``FlagReport.skipped``.

    Parameters
    ----------
    n_components : int
        The model's number of topics.
    coherence : CoherenceResult or None, default None
        Enables ``low-coherence`` and, with NPMI pair matrices, ``mixed``.
    recurrence : array_like or None, default None
        Per-topic recurrence shares; enables ``low-recurrence``.
    significance : Score or None, default None
        The result of ``topic_significance``; enables ``background``.
    theta : numpy.ndarray or None, default None
        ``D x K`` proportions; with ``doc_lengths`` enables ``few-documents``.
    doc_lengths : array_like or None, default None
        The ``D`` token counts (needed with ``theta``).
    whisker : float, default 1.5
        Tukey's whisker of the relative flags.
    min_recurrence : float, default 0.5
        Threshold of ``low-recurrence``.
    top_documents : int, default 10
        Documents counted by ``few-documents``.
    max_share : float, default 0.5
        Threshold of ``few-documents``.
    within : float, default 0.2
        Group threshold of ``mixed``.
    between : float, default 0.0
        Merging threshold of ``mixed``.

    Returns
    -------
    FlagReport
        The flags raised, by topic, with the rules' settings.

    Raises
    ------
    ParameterError
        If an input describes another number of topics or is of the wrong kind.
    EmptyInputError
        If no input is given.
    """
    n_components = check_int(n_components, "n_components", min_value=1)
    flags: list[TopicFlag] = []
    checked: list[str] = []
    skipped: dict[str, str] = {}
    fields: dict[str, object] = {}

    def relative(name: str, values: list, run) -> None:
        n = sum(v is not None for v in values)
        if n < MIN_TOPICS_RELATIVE:
            skipped[name] = f"needs at least {MIN_TOPICS_RELATIVE} scored topics, got {n}"
        else:
            flags.extend(run())
            checked.append(name)

    def sized(what: str, k: int) -> None:
        if k != n_components:
            raise ParameterError(f"{what} describes {k} topics but the model has {n_components}",
                                 fix="pass the results of this model")

    if coherence is not None:
        if not all(hasattr(coherence, a) for a in ("topics", "scores", "spec", "signature")):
            raise ParameterError(f"coherence must be a CoherenceResult, got {type(coherence).__name__}")
        sized("coherence", len(coherence.topics))
        relative("low-coherence", list(coherence.scores), lambda: low_coherence_flags(coherence, whisker))
        fields.update(coh=coherence.signature.measure, whisker=whisker)
        if coherence.spec.confirmation in ("npmi", "cosine"):
            flags += mixed_flags(coherence, within, between)
            checked.append("mixed")
            fields.update(within=within, between=between)
    if recurrence is not None:
        sized("recurrence", len(np.atleast_1d(recurrence)))
        flags += low_recurrence_flags(recurrence, min_recurrence)
        checked.append("low-recurrence")
        fields["min_rec"] = min_recurrence
    if significance is not None:
        frame = getattr(significance, "per_topic", None)
        if frame is None or "kl_vacuous" not in frame:
            raise ParameterError("significance must be the result of topic_significance")
        sized("significance", len(frame))
        relative("background", significance.per_topic["kl_vacuous"].tolist(),
                 lambda: background_flags(significance, whisker))
        fields["whisker"] = whisker
    if theta is not None:
        if doc_lengths is None:
            raise ParameterError("the few-documents flag needs doc_lengths with theta")
        sized("theta", np.shape(theta)[1] if np.ndim(theta) == 2 else -1)
        flags += few_documents_flags(theta, doc_lengths, top_documents, max_share)
        checked.append("few-documents")
        fields.update(top_docs=top_documents, max_share=max_share)
    if not checked and not skipped:
        raise EmptyInputError("no input to flag topics with", fix="pass coherence, recurrence, significance "
                              "or theta with doc_lengths")
    flags.sort(key=lambda f: (f.topic, FLAGS.index(f.flag)))
    return FlagReport(n_components, flags, Signature("topic-flags", fields),
                      [f for f in FLAGS if f in checked], skipped)
