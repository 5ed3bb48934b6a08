"""Topic significance (AlSumait, Barbará, Gentle and Domeniconi 2009).

*Topic significance ranking of LDA generative models* (ECML PKDD 2009) scores a
topic by how far it is from three "junk" distributions; a topic close to one of
them is insignificant.  tealeaves reports the Kullback-Leibler form of each
distance (natural logarithms, nats), ``KL(P || Q) = sum_i P_i log(P_i / Q_i)``
with ``0 log 0 = 0``, for each topic ``k``:

``kl_uniform``
    ``KL(phi_k || W_uni)``, ``W_uni(w) = 1 / V``: the *uniform* distribution
    over words (a topic spread over everything).
``kl_vacuous``
    ``KL(phi_k || W_vac)`` with the *vacuous semantic distribution*
    ``W_vac(w) = sum_j phi_jw p(j)``, the words' distribution in the corpus
    as the model explains it (the empirical corpus word distribution); ``p(j)``
    is the topic's share of the corpus (see weighting below).  A low value
    means the topic is close to the corpus background.
``kl_background``
    ``KL(Psi_k || D_bg)`` where ``Psi_k(d) = p(d | k)`` is the topic's
    distribution over documents and ``D_bg(d) = 1 / D`` the uniform
    *background* over documents (a topic present evenly in every document).

Weighting.  In the paper, ``p(j)`` and ``p(d | k)`` come from the counts of
tokens assigned to each topic in each document, ``n_dk``.  Given
``doc_lengths`` (the tokens ``N_d`` of the documents ``theta`` describes),
tealeaves uses the expected counts ``n_dk = N_d theta_dk``:
``p(j) = sum_d n_dj / N`` and ``Psi_k(d) = n_dk / sum_d n_dk``
(``weight=tokens`` in the signature).  Without ``doc_lengths`` every document
counts the same, ``p(j) = mean_d theta_dj`` and ``Psi_k(d) ∝ theta_dk``, which
is OCTIS's ``KL_vacuous`` / ``KL_background`` (``weight=documents``).

``compat="octis"`` reproduces OCTIS 1.14's numbers (``KL_uniform``, ``KL_vacuous``,
``KL_background``): its ``_KL`` adds ``epsilon = 1e-5`` to both distributions without
renormalising them, ``sum_i (P_i + e) log((P_i + e) / (Q_i + e))``.  This departs from the
paper: over a vocabulary of 26,920 words, 1e-5 is 27% of the uniform probability and moves
``kl_uniform`` by about 13% (docs/peers.md).  The default (``compat="paper"``) adds nothing.

The paper goes on to combine standardised distances into one rank; that
combination is not computed here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tealeaves.comparison._common import COMPAT, OCTIS_EPSILON, Score, model_name, topic_probabilities
from tealeaves.errors import InvalidModelError, ParameterError
from tealeaves.likelihood._perplexity import check_proportions
from tealeaves.signature import Signature


def kl_divergence(p: np.ndarray, q: np.ndarray, compat: str = "paper") -> np.ndarray:
    """``KL(p || q) = sum_i p_i log(p_i / q_i)`` along the last axis (nats), ``0 log 0 = 0``.

    Parameters
    ----------
    p : numpy.ndarray
        Distributions along the last axis.
    q : numpy.ndarray
        Distributions broadcastable against ``p``.
    compat : {"paper", "octis"}, default "paper"
        ``"octis"``: OCTIS's ``_KL``, ``sum_i (p_i + e) log((p_i + e) / (q_i + e))`` with
        ``e = 1e-5`` added without renormalising (reproduces OCTIS; not a divergence of
        distributions).

    Returns
    -------
    numpy.ndarray
        The divergences (``inf`` where ``q_i = 0 < p_i`` under ``"paper"``).

    Raises
    ------
    ParameterError
        If ``compat`` is not known.
    """
    from scipy.special import rel_entr

    if COMPAT.check(compat) == "octis":
        p, q = np.asarray(p) + OCTIS_EPSILON, np.asarray(q) + OCTIS_EPSILON
    return rel_entr(p, q).sum(axis=-1)


def _doc_lengths(doc_lengths: object, n_documents: int) -> np.ndarray:
    lengths = np.asarray(doc_lengths)
    if lengths.shape != (n_documents,):
        raise InvalidModelError(f"doc_lengths has shape {lengths.shape}, expected ({n_documents},) "
                                "(one length per row of theta)")
    if not np.issubdtype(lengths.dtype, np.number) or not np.isfinite(lengths).all() or (lengths < 0).any():
        raise InvalidModelError("doc_lengths must be finite, non-negative token counts")
    if lengths.sum() <= 0:
        raise InvalidModelError("doc_lengths are all zero; the documents hold no tokens")
    return lengths.astype(np.float64)


def topic_document_mass(theta: np.ndarray, doc_lengths: object | None) -> np.ndarray:
    """``D x K`` weights ``n_dk``: ``N_d theta_dk`` with ``doc_lengths``, ``theta_dk`` without.

    Parameters
    ----------
    theta : numpy.ndarray
        The ``D x K`` document-topic proportions.
    doc_lengths : array_like or None
        The ``D`` token counts ``N_d``; None weighs every document the same.

    Returns
    -------
    numpy.ndarray
        The ``D x K`` weights.

    Raises
    ------
    InvalidModelError
        If ``doc_lengths`` has the wrong shape, negative or non-finite values, or sums to zero.
    """
    if doc_lengths is None:
        return theta
    return theta * _doc_lengths(doc_lengths, theta.shape[0])[:, None]


def topic_significance(model: object, theta: np.ndarray, doc_lengths: object | None = None,
                       compat: str = "paper") -> Score:
    """The three KL distances of AlSumait et al. (2009) for every topic (see the module docstring).

    Parameters
    ----------
    model : object
        A fitted probabilistic model (``topic_word_``).
    theta : numpy.ndarray
        ``D x K`` topic proportions of the documents (e.g. the training documents,
        ``model.transform(corpus)``).
    doc_lengths : array_like or None, default None
        Their token counts (``corpus.lengths``): weighs documents by tokens
        (``weight=tokens``); None weighs them equally, as OCTIS.
    compat : {"paper", "octis"}, default "paper"
        ``"octis"`` adds OCTIS's epsilon (see the module docstring) to reproduce its
        ``KL_uniform``, ``KL_vacuous`` and ``KL_background``; it needs ``doc_lengths=None``.

    Returns
    -------
    Score
        ``value`` is the mean ``kl_vacuous``; ``per_topic`` holds ``kl_uniform``,
        ``kl_vacuous``, ``kl_background`` and ``share``.

    Raises
    ------
    InvalidModelError
        If the model has no probabilities, ``theta`` is not a ``D x K`` distribution,
        or a topic has no weight in any document.
    ParameterError
        If ``compat`` is not known, or is ``"octis"`` with ``doc_lengths``.
    """
    compat = COMPAT.check(compat)
    if compat == "octis" and doc_lengths is not None:
        raise ParameterError("OCTIS weighs every document the same, so compat='octis' takes no doc_lengths",
                             fix="leave doc_lengths at None, or use compat='paper'")
    phi = topic_probabilities(model)
    theta = np.asarray(theta, dtype=np.float64)
    if theta.ndim != 2:
        raise InvalidModelError(f"theta must be a D x K array, got shape {theta.shape}")
    theta = check_proportions(theta, theta.shape[0], phi.shape[0])
    if theta.shape[0] == 0:
        raise InvalidModelError("theta has no documents")
    mass = topic_document_mass(theta, doc_lengths)
    per_topic_mass = mass.sum(axis=0)
    empty = per_topic_mass <= 0
    if empty.any():
        raise InvalidModelError(f"topic {int(np.argmax(empty))} has no weight in any document of theta, so "
                                "its distribution over documents is undefined")
    share = per_topic_mass / per_topic_mass.sum()
    vacuous = share @ phi
    n_words, n_docs = phi.shape[1], theta.shape[0]
    psi = (mass / per_topic_mass).T  # K x D, rows p(d | k)
    frame = pd.DataFrame({
        "topic": np.arange(phi.shape[0]),
        "kl_uniform": kl_divergence(phi, np.full(n_words, 1.0 / n_words), compat),
        "kl_vacuous": kl_divergence(phi, vacuous[None, :], compat),
        "kl_background": kl_divergence(psi, np.full(n_docs, 1.0 / n_docs), compat),
        "share": share,
    })
    weight = "documents" if doc_lengths is None else "tokens"
    fields = {"dist": "kl", "weight": weight, "docs": n_docs, "model": model_name(model)}
    if compat != "paper":
        fields["compat"] = compat
    sig = Signature("topic-significance", fields)
    return Score("topic-significance", float(frame["kl_vacuous"].mean()), sig, frame,
                 {"mean_kl_uniform": float(frame["kl_uniform"].mean()),
                  "mean_kl_background": float(frame["kl_background"].mean())})
