"""Diversity of a model's topics: how different their top words are.

* :func:`topic_diversity` -- Dieng, Ruiz and Blei (2020), *Topic modeling in
  embedding spaces*, TACL 8: the share of unique words among the top ``n``
  words of all topics, ``|union_k n_top(k)| / (n K)`` (1 = no word shared,
  ``1/K`` = all topics alike).  The paper uses ``n = 25``.
* :func:`inverted_rbo` -- Bianchi, Terragni and Hovy (2021), *Pre-training is a
  hot topic*, ACL: one minus the mean rank-biased overlap (Webber, Moffat and
  Zobel 2010) of the top ``n`` words of every pair of topics, as OCTIS's
  ``InvertedRBO`` computes it (``topk=10``, ``weight=0.9``).
* :func:`mean_pairwise_jaccard` -- the mean over pairs of topics of
  ``|A ∩ B| / |A ∪ B|`` of their top-``n`` word sets (lower = more diverse).

Every function accepts a fitted model or lists of ranked words.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves._params import renamed_parameters
from tealeaves.comparison._common import Score, model_name, require_topics, top_words
from tealeaves.errors import ParameterError
from tealeaves.signature import Signature
from tealeaves.validation import check_float


def rbo(first: Sequence[str], second: Sequence[str], p: float = 0.9) -> float:
    """Extrapolated rank-biased overlap of two rankings of equal length ``k`` without ties.

    Webber, Moffat and Zobel (2010), eq. 32, with the agreement
    ``A_d = |S_{:d} ∩ T_{:d}| / d``:

        RBO_ext = (1 - p) / p * sum_{d=1}^{k} p^d A_d + p^k A_k

    which is what OCTIS's ``rbo(...)[2]`` (the ``ext`` estimate) gives for two
    lists of the same length.  1 for identical rankings, 0 for disjoint ones.

    Parameters
    ----------
    first : sequence of str
        The first ranking, best first.
    second : sequence of str
        The second ranking, of the same length.
    p : float, default 0.9
        Persistence in ``(0, 1]``; ``p = 1`` gives ``A_k``.

    Returns
    -------
    float
        ``RBO_ext`` in ``[0, 1]``.

    Raises
    ------
    ParameterError
        If ``p`` is out of range, the rankings are empty or of different lengths, or a word is listed twice.
    """
    p = check_float(p, "p", min_value=0.0, max_value=1.0, include_min=False)
    k = len(first)
    if k == 0 or len(second) != k:
        raise ParameterError(f"rbo compares two non-empty rankings of equal length, got {k} and "
                             f"{len(second)} words")
    if len(set(first)) != k or len(set(second)) != k:
        raise ParameterError("rbo compares rankings without ties; a word is listed twice",
                             fix="list each word once")
    seen_a: set[str] = set()
    seen_b: set[str] = set()
    shared = 0
    agreements = []
    for d, (a, b) in enumerate(zip(first, second), start=1):
        shared += (a in seen_b) + (b in seen_a) + (a == b)
        seen_a.add(a)
        seen_b.add(b)
        agreements.append(shared / d)
    return rbo_extrapolated(agreements, p)


def rbo_extrapolated(agreements: Sequence[float], p: float) -> float:
    """``(1 - p) / p * sum_{d=1}^{k} p^d A_d + p^k A_k`` for the agreements ``A_1 .. A_k``.

    Webber, Moffat and Zobel (2010), eq. 32, for two rankings of the same length ``k``;
    :func:`rbo` takes ``A_d`` from the shared words, the word-embedding RBOs of
    :mod:`~tealeaves.comparison.embedding` from word similarities.

    Parameters
    ----------
    agreements : sequence of float
        ``A_d`` at the depths ``d = 1 .. k`` (at least one).
    p : float
        Persistence in ``(0, 1]`` (checked by the caller).

    Returns
    -------
    float
        The extrapolated RBO.
    """
    k = len(agreements)
    total = sum(p ** d * a for d, a in enumerate(agreements, start=1))
    return (1 - p) / p * total + p ** k * agreements[-1]


def _signature(measure: str, topics: object, n_top: int, **extra) -> Signature:
    return Signature(measure, {"top": n_top, **extra, "model": model_name(topics)})


@renamed_parameters({"top_n": "n_top"})
@shared_doc
def topic_diversity(topics: object, n_top: int = 25) -> Score:
    """Topic diversity (Dieng, Ruiz and Blei 2020): ``|union of the top-n word sets| / (n K)``.

    Ranges from ``1/K`` to 1 (OCTIS raises for topics shorter than ``n_top`` too).

    Parameters
    ----------
    %(ranked_topics)s
    n_top : int, default 25
        ``n``, the number of top words per topic (the paper's value).

    Returns
    -------
    Score
        ``topic-diversity``, with ``n_topics`` and ``n_unique_words`` in its details.

    Raises
    ------
    ParameterError
        If ``n_top`` is invalid or a topic is too short.
    """
    words = top_words(topics, n_top)
    unique = set().union(*map(set, words))
    value = len(unique) / (n_top * len(words))
    return Score("topic-diversity", value, _signature("topic-diversity", topics, n_top),
                 details={"n_topics": len(words), "n_unique_words": len(unique)})


@renamed_parameters({"top_n": "n_top"})
@shared_doc
def inverted_rbo(topics: object, n_top: int = 10, p: float = 0.9) -> Score:
    """Inverted RBO (Bianchi et al. 2021): ``1 - mean_{j<k} RBO_ext(n_top(j), n_top(k); p)``.

    OCTIS's defaults: ``n_top=10``, ``p=0.9``.  0 when all topics rank the same
    words, 1 when no two share a word.  See :func:`rbo`.

    Parameters
    ----------
    %(ranked_topics)s %(diversity_n_top)s
    p : float, default 0.9
        RBO's persistence, in ``(0, 1]``.

    Returns
    -------
    Score
        ``inverted-rbo``, with ``n_topics`` and ``n_pairs`` in its details.

    Raises
    ------
    ParameterError
        If there are fewer than two topics or a parameter is invalid.
    """
    words = top_words(topics, n_top)
    require_topics(len(words), 2, "inverted RBO")
    values = [rbo(a, b, p) for a, b in combinations(words, 2)]
    value = 1.0 - float(np.mean(values))
    return Score("inverted-rbo", value, _signature("inverted-rbo", topics, n_top, p=p),
                 details={"n_topics": len(words), "n_pairs": len(values)})


def jaccard(first: Sequence[str], second: Sequence[str]) -> float:
    """``|A ∩ B| / |A ∪ B|`` of two word sets (0 for two empty sets).

    Parameters
    ----------
    first : sequence of str
        The words of ``A``.
    second : sequence of str
        The words of ``B``.

    Returns
    -------
    float
        The Jaccard similarity in ``[0, 1]``.
    """
    a, b = set(first), set(second)
    union = a | b
    return len(a & b) / len(union) if union else 0.0


@renamed_parameters({"top_n": "n_top"})
@shared_doc
def mean_pairwise_jaccard(topics: object, n_top: int = 10) -> Score:
    """Mean Jaccard similarity of the top-``n`` word sets over all pairs of topics (needs two topics).

    Lower means more diverse.

    Parameters: %(ranked_topics)s %(diversity_n_top)s

    Returns
    -------
    Score
        ``mean-jaccard``, with ``n_topics`` and ``n_pairs`` in its details.

    Raises
    ------
    ParameterError
        If there are fewer than two topics or ``n_top`` is invalid.
    """
    words = top_words(topics, n_top)
    require_topics(len(words), 2, "mean pairwise Jaccard")
    values = [jaccard(a, b) for a, b in combinations(words, 2)]
    return Score("mean-jaccard", float(np.mean(values)), _signature("mean-jaccard", topics, n_top),
                 details={"n_topics": len(words), "n_pairs": len(values)})
