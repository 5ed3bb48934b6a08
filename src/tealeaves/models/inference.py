"""Inference of topic proportions for new documents given fixed topics."""

from __future__ import annotations

import numpy as np
from scipy.special import digamma

from tealeaves.corpus import Corpus


def infer_theta(
    topic_word: np.ndarray,
    alpha: float | np.ndarray,
    corpus: Corpus,
    *,
    max_iter: int = 100,
    tol: float = 1e-3,
) -> np.ndarray:
    """Variational fold-in of LDA's document-topic proportions (Blei et al. 2003, §5.2).

    With the topics ``phi`` held fixed, iterate for each document
    ``gamma_k = alpha_k + sum_w n_dw * phi_kw exp(E[log theta_k]) / Z_w`` until the
    mean absolute change of ``gamma`` falls below ``tol``; return the posterior
    means ``gamma / sum(gamma)`` (``D x K``).  A document with no tokens gets the
    prior mean.  ``gamma`` starts at ``alpha_k + N_d / K`` (``N_d`` the document's
    length), the initialisation of Blei et al. (2003, Figure 6).

    Parameters
    ----------
    topic_word : numpy.ndarray
        The fixed topics ``phi``, ``K x V`` (row ``k`` is ``p(w | k)``).
    alpha : float or numpy.ndarray
        The Dirichlet prior on the proportions: one value for every topic, or ``K`` values.
    corpus : Corpus
        The documents, encoded over the topics' vocabulary of ``V`` words.
    max_iter : int, default 100
        The most iterations per document.
    tol : float, default 1e-3
        Stop a document once the mean absolute change of ``gamma`` is below this.

    Returns
    -------
    numpy.ndarray
        ``D x K`` topic proportions, each row summing to 1.
    """
    phi = np.asarray(topic_word, dtype=np.float64)
    k = phi.shape[0]
    a = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (k,))
    counts = corpus.counts
    theta = np.empty((len(corpus), k))
    for d in range(len(corpus)):
        lo, hi = counts.indptr[d], counts.indptr[d + 1]
        ids, cnt = counts.indices[lo:hi], counts.data[lo:hi].astype(np.float64)
        if len(ids) == 0:
            theta[d] = a / a.sum()
            continue
        phi_d = phi[:, ids]
        gamma = a + cnt.sum() / k
        for _ in range(max_iter):
            exp_elog = np.exp(digamma(gamma) - digamma(gamma.sum()))
            norm = exp_elog @ phi_d + 1e-100
            new = a + exp_elog * (phi_d @ (cnt / norm))
            done = np.mean(np.abs(new - gamma)) < tol
            gamma = new
            if done:
                break
        theta[d] = gamma / gamma.sum()
    return theta
