"""How far apart a model's topics are as distributions over words (OCTIS's diversity measures).

Terragni, Fersini, Galuzzi, Tropeano and Candelieri (2021), *OCTIS: Comparing and
optimizing topic models is simple!*, EACL demos, report two distances between the
topic-word distributions ``phi_i`` and ``phi_j`` of every pair of topics ``i < j``,
averaged over the ``K (K - 1) / 2`` pairs (higher = more diverse topics):

:func:`topic_pair_kl`
    ``KL(phi_i || phi_j) = sum_w phi_iw log(phi_iw / phi_jw)`` (nats), OCTIS's
    ``KLDivergence``.  KL is asymmetric; OCTIS takes the ``i < j`` direction only, and
    so does tealeaves, so the value depends on the topics' order.
:func:`log_odds_ratio`
    ``LOR(i, j) = 1 / V sum_w |log phi_iw - log phi_jw|`` over the ``V`` words,
    OCTIS's ``LogOddsRatio`` (a word with probability 0 in both topics adds 0; in one
    only, ``inf``).

``compat="octis"`` reproduces OCTIS's ``KLDivergence``, whose ``_KL`` adds 1e-5 to
both distributions without renormalising (see :mod:`~tealeaves.comparison.significance`);
the log-odds ratio has no deviation to reproduce.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from tealeaves.comparison._common import COMPAT, Score, model_name, require_topics, topic_probabilities
from tealeaves.comparison.significance import kl_divergence
from tealeaves.signature import Signature


def _pairs(phi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    require_topics(phi.shape[0], 2, "a distance between topics")
    first, second = zip(*combinations(range(phi.shape[0]), 2))
    return np.asarray(first), np.asarray(second)


def topic_pair_kl(model: object, compat: str = "paper") -> Score:
    """Mean ``KL(phi_i || phi_j)`` over the pairs of topics ``i < j`` (OCTIS's ``KLDivergence``).

    See the module docstring.

    Parameters
    ----------
    model : object
        A fitted probabilistic model (``topic_word_``).
    compat : {"paper", "octis"}, default "paper"
        ``"octis"`` adds OCTIS's 1e-5 to both distributions without renormalising.

    Returns
    -------
    Score
        ``topic-pair-kl`` (nats; ``inf`` when a word of ``phi_i`` has probability 0 in
        ``phi_j`` under ``"paper"``), with ``n_pairs`` in its details.

    Raises
    ------
    InvalidModelError
        If the model has no topic-word probabilities.
    ParameterError
        If it has fewer than two topics or ``compat`` is not known.
    """
    compat = COMPAT.check(compat)
    phi = topic_probabilities(model)
    first, second = _pairs(phi)
    values = kl_divergence(phi[first], phi[second], compat)
    fields = {"dist": "kl", "pairs": "i<j", "model": model_name(model)}
    if compat != "paper":
        fields["compat"] = compat
    return Score("topic-pair-kl", float(values.mean()), Signature("topic-pair-kl", fields),
                 details={"n_pairs": len(values)})


def log_odds_ratio(model: object) -> Score:
    """Mean over pairs ``i < j`` of ``1 / V sum_w |log phi_iw - log phi_jw|`` (OCTIS's ``LogOddsRatio``).

    Words with probability 0 in both topics add 0 (and still count in ``V``); a word
    with probability 0 in one topic only makes the pair's value ``inf``.

    Parameters
    ----------
    model : object
        A fitted probabilistic model (``topic_word_``).

    Returns
    -------
    Score
        ``log-odds-ratio`` (nats), with ``n_pairs`` in its details.

    Raises
    ------
    InvalidModelError
        If the model has no topic-word probabilities.
    ParameterError
        If it has fewer than two topics.
    """
    phi = topic_probabilities(model)
    first, second = _pairs(phi)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(phi)
        gaps = np.abs(logs[first] - logs[second])
    gaps[(phi[first] == 0) & (phi[second] == 0)] = 0.0
    values = gaps.sum(axis=1) / phi.shape[1]
    sig = Signature("log-odds-ratio", {"pairs": "i<j", "model": model_name(model)})
    return Score("log-odds-ratio", float(values.mean()), sig, details={"n_pairs": len(values)})
