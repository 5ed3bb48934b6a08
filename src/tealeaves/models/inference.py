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
    prior mean.
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
