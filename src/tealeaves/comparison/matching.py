"""Matching the topics of two models one to one, and model-to-model similarity tables.

The topics of two runs are paired by the optimal assignment (the Hungarian
method, Kuhn 1955; ``scipy.optimize.linear_sum_assignment``) that maximises the
total similarity of the pairs, as in the stability analyses of Greene, O'Callaghan
and Cunningham (2014) and Roberts, Stewart and Tingley (2016).  The assignment is
one to one: a topic that appears twice in one run is matched once, and its copy
is paired with the best remaining topic.

Similarities between topic ``a`` of one model and topic ``b`` of another:

``js`` (default)
    ``1 - sqrt(JSD(phi_a, phi_b))``, one minus the Jensen-Shannon distance
    (Endres and Schindelin 2003) with base-2 logarithms, so in ``[0, 1]`` (1 =
    identical distributions).  Needs probabilities.
``cosine``
    cosine of the two rows of ``topic_word_weights_`` (works for LSI's signed
    loadings too; in ``[-1, 1]``).
``jaccard``
    ``|A ∩ B| / |A ∪ B|`` of the two top-``n`` word sets, for models without
    probabilities.
``rbo``
    rank-biased overlap of the two top-``n`` rankings (Webber, Moffat and Zobel
    2010; :func:`tealeaves.comparison.diversity.rbo`, persistence ``p``).

Models over different vocabularies are aligned by word strings: both are
written over the union of the two vocabularies, a word a model does not have
getting probability (weight) 0.  That is refused when the shared words are
fewer than ``min_shared`` (default 0.5) of the smaller vocabulary, because
the similarity would then mostly measure the vocabularies.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from tealeaves._docs import shared_doc
from tealeaves._params import renamed_parameters
from tealeaves.comparison._common import (
    N_TOP,
    check_fraction,
    frame_records,
    model_name,
    top_words,
    topic_probabilities,
    topic_weights,
    vocabulary_of,
)
from tealeaves.comparison.diversity import jaccard, rbo
from tealeaves.comparison.errors import IncomparableError
from tealeaves.signature import Signature
from tealeaves.validation import check_choice, check_float

METRICS = ("js", "cosine", "jaccard", "rbo")


@dataclass
class TopicMatching:
    """The one-to-one matching of the topics of models ``a`` and ``b``.

    Parameters
    ----------
    pairs : pandas.DataFrame
        One row per matched pair (``topic_a``, ``topic_b``, ``similarity``,
        ``words_a``, ``words_b``), best first.
    similarity : pandas.DataFrame
        The full ``K_a x K_b`` table.
    unmatched_a : list of int
        With different K, the surplus topics of ``a``.
    unmatched_b : list of int
        With different K, the surplus topics of ``b``.
    signature : Signature
        What was computed and how.
    """

    pairs: pd.DataFrame
    similarity: pd.DataFrame = field(repr=False)
    unmatched_a: list[int]
    unmatched_b: list[int]
    signature: Signature

    @property
    def mean_similarity(self) -> float:
        """Mean similarity of the matched pairs."""
        return float(self.pairs["similarity"].mean())

    def partner(self, side: str = "a") -> dict[int, tuple[int, float]]:
        """``topic -> (matched topic of the other model, similarity)`` for the topics of ``side``.

        Parameters
        ----------
        side : str, default "a"
            ``"a"`` or ``"b"``.

        Returns
        -------
        dict of int to tuple of (int, float)
            The partner and similarity of each matched topic.
        """
        mine, other = ("topic_a", "topic_b") if side == "a" else ("topic_b", "topic_a")
        return {int(r[mine]): (int(r[other]), float(r["similarity"])) for _, r in self.pairs.iterrows()}

    def to_dict(self) -> dict:
        """The matching as a JSON-ready dictionary.

        Returns
        -------
        dict
            ``signature`` (a string), ``mean_similarity``, ``pairs`` records, ``unmatched_a``
            and ``unmatched_b``.
        """
        return {"signature": str(self.signature), "mean_similarity": self.mean_similarity,
                "pairs": frame_records(self.pairs), "unmatched_a": self.unmatched_a,
                "unmatched_b": self.unmatched_b}


def _aligned(a: object, b: object, weights, min_shared: float) -> tuple[np.ndarray, np.ndarray, str]:
    """The rows of ``a`` and ``b`` over one vocabulary (the union when they differ) and its description."""
    wa, wb = weights(a, "model a"), weights(b, "model b")
    va, vb = vocabulary_of(a, wa.shape[1], "model a"), vocabulary_of(b, wb.shape[1], "model b")
    if va == vb:
        return wa, wb, "same"
    index = {w: i for i, w in enumerate(va)}
    shared = sum(w in index for w in vb)
    smaller = min(len(va), len(vb))
    if shared < min_shared * smaller:
        raise IncomparableError(
            f"the two models share {shared} words, {shared / smaller:.1%} of the smaller vocabulary "
            f"({smaller} words), below min_shared={min_shared:g}",
            fix="compare models fitted on the same corpus and preprocessing, or lower min_shared")
    extra = [w for w in vb if w not in index]
    for w in extra:
        index[w] = len(index)
    full_a = np.zeros((wa.shape[0], len(index)))
    full_a[:, : len(va)] = wa
    full_b = np.zeros((wb.shape[0], len(index)))
    full_b[:, [index[w] for w in vb]] = wb
    return full_a, full_b, f"union{len(index)}/shared{shared}"


def _js_similarity(pa: np.ndarray, pb: np.ndarray) -> np.ndarray:
    """``1 - sqrt(JSD)`` (base 2) of every row of ``pa`` with every row of ``pb``."""
    from scipy.special import rel_entr

    out = np.empty((pa.shape[0], pb.shape[0]))
    for i, row in enumerate(pa):
        m = 0.5 * (row[None, :] + pb)
        jsd = 0.5 * (rel_entr(row[None, :], m).sum(axis=1) + rel_entr(pb, m).sum(axis=1)) / np.log(2)
        out[i] = 1.0 - np.sqrt(np.clip(jsd, 0.0, 1.0))
    return out


def _cosine_similarity(wa: np.ndarray, wb: np.ndarray) -> np.ndarray:
    na, nb = np.linalg.norm(wa, axis=1), np.linalg.norm(wb, axis=1)
    for name, norms in (("a", na), ("b", nb)):
        if (norms == 0).any():
            raise IncomparableError(f"topic {int(np.argmax(norms == 0))} of model {name} has only zero "
                                    "weights, so its cosine is undefined", fix="check the model")
    return np.clip((wa @ wb.T) / np.outer(na, nb), -1.0, 1.0)


@renamed_parameters({"top_n": "n_top"})
@shared_doc
def similarity_matrix(a: object, b: object, metric: str = "js", n_top: int = 10, p: float = 0.9,
                      min_shared: float = 0.5) -> pd.DataFrame:
    """The ``K_a x K_b`` table of similarities between the topics of models ``a`` and ``b``.

    Rows are the topics of ``a``, columns those of ``b``.

    Parameters: %(match_a)s %(match_b)s %(match_metric)s %(match_n_top)s %(match_p)s %(match_min_shared)s

    Returns
    -------
    pandas.DataFrame
        The similarities; ``frame.attrs["vocabulary"]`` says how the vocabularies were
        aligned: ``same``, ``union<n>/shared<m>``, or ``words`` (word-list metrics
        compare word strings directly).

    Raises
    ------
    ParameterError
        If a parameter is invalid.
    IncomparableError
        If the vocabularies share too few words, or a topic has only zero weights (cosine).
    InvalidModelError
        If a model is invalid or has no probabilities for ``js``.
    """
    metric = check_choice(metric, "metric", METRICS)
    min_shared = check_fraction(min_shared, "min_shared")
    if metric in ("js", "cosine"):
        weights = topic_probabilities if metric == "js" else topic_weights
        wa, wb, vocab = _aligned(a, b, weights, min_shared)
        values = _js_similarity(wa, wb) if metric == "js" else _cosine_similarity(wa, wb)
    else:
        n_top = N_TOP.check(n_top)
        p = check_float(p, "p", min_value=0.0, max_value=1.0, include_min=False)
        ta, tb = top_words(a, n_top, "model a"), top_words(b, n_top, "model b")
        pair = jaccard if metric == "jaccard" else (lambda x, y: rbo(x, y, p))
        values = np.array([[pair(x, y) for y in tb] for x in ta])
        vocab = "words"
    frame = pd.DataFrame(values)
    frame.index.name, frame.columns.name = "topic_a", "topic_b"
    frame.attrs["vocabulary"] = vocab
    return frame


def matching_signature(metric: str, n_top: int, p: float, a: object, b: object | None = None, **extra
                       ) -> Signature:
    """The signature of a topic matching or a stability analysis.

    Parameters
    ----------
    metric : str
        The similarity metric.
    n_top : int
        Top words (recorded for ``jaccard`` and ``rbo``).
    p : float
        RBO's persistence (recorded for ``rbo``).
    a : object
        The first model (or the models' description source).
    b : object or None, default None
        The second model, if any.
    **extra
        Further signature fields, recorded before the models.

    Returns
    -------
    Signature
        A ``topic-matching`` signature.
    """
    fields: dict[str, object] = {"metric": metric}
    if metric in ("jaccard", "rbo"):
        fields["top"] = n_top
    if metric == "rbo":
        fields["p"] = p
    fields.update(extra)
    fields["a"] = model_name(a)
    if b is not None:
        fields["b"] = model_name(b)
    return Signature("topic-matching", fields)


def assign(similarity: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the one-to-one assignment maximising the total similarity.

    The Hungarian method (Kuhn 1955), by ``scipy.optimize.linear_sum_assignment``.

    Parameters
    ----------
    similarity : numpy.ndarray
        A ``K_a x K_b`` similarity table.

    Returns
    -------
    rows : numpy.ndarray
        Row indices of the pairs.
    cols : numpy.ndarray
        Column indices of the pairs.
    """
    from scipy.optimize import linear_sum_assignment

    return linear_sum_assignment(np.asarray(similarity, dtype=np.float64), maximize=True)


@renamed_parameters({"top_n": "n_top"})
@shared_doc
def match_topics(a: object, b: object, metric: str = "js", n_top: int = 10, p: float = 0.9,
                 min_shared: float = 0.5) -> TopicMatching:
    """Match the topics of ``a`` and ``b`` one to one, maximising the total similarity.

    See the module docstring for the metrics and the vocabulary alignment.
    With different numbers of topics ``min(K_a, K_b)`` pairs are formed.

    Parameters: %(match_a)s %(match_b)s %(match_metric)s %(match_n_top)s %(match_p)s %(match_min_shared)s

    Returns
    -------
    TopicMatching
        The pairs, best first, the full table and the unmatched topics.

    Raises
    ------
    ParameterError
        If a parameter is invalid.
    IncomparableError
        If the vocabularies share too few words.
    """
    sim = similarity_matrix(a, b, metric, n_top, p, min_shared)
    rows, cols = assign(sim.to_numpy())
    n_words = n_top if metric in ("jaccard", "rbo") else 10
    ta, tb = top_words(a, n_words, "model a", require=False), top_words(b, n_words, "model b", require=False)
    pairs = pd.DataFrame({"topic_a": rows, "topic_b": cols, "similarity": sim.to_numpy()[rows, cols],
                          "words_a": [" ".join(ta[r]) for r in rows],
                          "words_b": [" ".join(tb[c]) for c in cols]})
    pairs = pairs.sort_values("similarity", ascending=False, kind="stable").reset_index(drop=True)
    return TopicMatching(pairs, sim, sorted(set(range(sim.shape[0])) - set(rows.tolist())),
                         sorted(set(range(sim.shape[1])) - set(cols.tolist())),
                         matching_signature(metric, n_top, p, a, b, vocab=sim.attrs["vocabulary"]))
