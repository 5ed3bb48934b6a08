"""Compiled fixed points for the Dirichlet hyperparameters of the Gibbs samplers (MALLET's ``Dirichlet``).

:func:`learn_dirichlet` re-estimates the asymmetric document-topic prior ``alpha`` and
:func:`learn_symmetric_concentration` a language's symmetric ``beta`` from count histograms
(Minka 2000, with Wallach's 2008 digamma recurrence); :func:`digamma` is their digamma function.
:mod:`tealeaves.models._pltm_kernels` re-exports the three.
"""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True)
def digamma(x):
    """The digamma function (recurrence up to 6, then the asymptotic series).

    ``psi(x) = psi(x + 1) - 1 / x`` raises ``x`` to at least 6, then ``psi(x) ≈ log x - 1 / (2x)
    - sum_j B_2j / (2j x^2j)`` is summed up to ``x^-10`` (``j <= 5``).

    Parameters
    ----------
    x : float
        A positive argument.

    Returns
    -------
    float
        ``psi(x)``.
    """
    result = 0.0
    while x < 6.0:
        result -= 1.0 / x
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    result += math.log(x) - 0.5 * inv - inv2 * (
        1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 * (1.0 / 132))))
    )
    return result


@numba.njit(cache=True)
def learn_dirichlet(alpha, topic_doc_hist, doc_length_hist, shape, scale, n_iter):
    """Minka's fixed point for an asymmetric Dirichlet from count histograms, in place.

    ``topic_doc_hist[k, n]`` is how many documents have ``n`` tokens in topic
    ``k``; ``doc_length_hist[n]`` how many documents have ``n`` tokens.  The
    digamma differences are accumulated with Wallach's recurrence
    ``psi(a + n) - psi(a) = sum_{i<n} 1 / (a + i)``.  One round is exactly
    MALLET's ``Dirichlet.learnParameters`` with its "Gamma prior" terms::

        a_k <- a_k (S_k + shape) / (D - 1 / scale)

    (``S_k = sum_n h_k[n] (psi(a_k + n) - psi(a_k))``, ``D`` the same for the
    lengths and ``sum a``).  Its fixed point is a stationary point of the
    Dirichlet-multinomial log-likelihood plus ``(shape + 1/scale) sum_k a_k``,
    not the MAP of a Gamma prior.  Returns the new sum of ``alpha``.  A round whose denominator is
    not positive (too few documents for the ``1 / scale`` term) or that would make an ``a_k``
    non-positive or infinite ends the updates, ``alpha`` kept from the round before (the plain
    update would go negative).  Without the
    prior terms the update is Minka's (2000) fixed point for the Dirichlet-multinomial;
    the recurrence is Wallach's (2008).

    Parameters
    ----------
    alpha : numpy.ndarray
        The ``K`` Dirichlet parameters, the starting point (updated in place).
    topic_doc_hist, doc_length_hist : numpy.ndarray
        The ``K x (N + 1)`` and ``N + 1`` histograms above.
    shape, scale : float
        MALLET's Gamma "shape" and "scale" terms (``1.00001`` and ``1.0`` in the model).
    n_iter : int
        The number of fixed-point rounds.

    Returns
    -------
    float
        The new ``sum_k alpha_k``.
    """
    n_topics = alpha.shape[0]
    limits = np.full(n_topics, -1)
    for k in range(n_topics):
        for n in range(topic_doc_hist.shape[1]):
            if topic_doc_hist[k, n] > 0:
                limits[k] = n
    alpha_sum = alpha.sum()
    new = np.empty(n_topics)
    for _ in range(n_iter):
        denominator = 0.0
        dig = 0.0
        for n in range(1, doc_length_hist.shape[0]):
            dig += 1.0 / (alpha_sum + n - 1)
            denominator += doc_length_hist[n] * dig
        denominator -= 1.0 / scale
        if not denominator > 0.0:  # too few documents for the Gamma term: no valid update, keep alpha
            break
        new_sum = 0.0
        valid = True
        for k in range(n_topics):
            old = alpha[k]
            acc = 0.0
            dig = 0.0
            for n in range(1, limits[k] + 1):
                dig += 1.0 / (old + n - 1)
                acc += topic_doc_hist[k, n] * dig
            new[k] = old * (acc + shape) / denominator
            if not (new[k] > 0.0 and new[k] < np.inf):
                valid = False
            new_sum += new[k]
        if not valid:
            break
        alpha[:] = new
        alpha_sum = new_sum
    return alpha_sum


@numba.njit(cache=True)
def learn_symmetric_concentration(count_hist, length_hist, n_dims, value, n_iter):
    """Fixed point for the concentration ``V * beta`` of a symmetric Dirichlet.

    ``count_hist[c]`` is the number of (word, topic) cells with count ``c``,
    ``length_hist[n]`` the number of topics with ``n`` tokens (MALLET's
    ``Dirichlet.learnSymmetricConcentration``).  Returns the new ``V * beta``.
    One round is Minka's (2000) fixed point for a symmetric Dirichlet::

        V beta <- beta * sum_c count_hist[c] (psi(beta + c) - psi(beta))
                       / sum_n length_hist[n] (psi(V beta + n) - psi(V beta))

    with the digamma differences accumulated by Wallach's recurrence, or taken
    from :func:`digamma` across a gap of more than 20 lengths.

    Parameters
    ----------
    count_hist, length_hist : numpy.ndarray
        The histograms above (counts of 0 are ignored).
    n_dims : int
        The dimension V (the language's vocabulary size).
    value : float
        The starting ``V * beta``.
    n_iter : int
        The number of fixed-point rounds.

    Returns
    -------
    float
        The new ``V * beta``.
    """
    largest = 0
    for c in range(count_hist.shape[0]):
        if count_hist[c] > 0:
            largest = c
    for _ in range(n_iter):
        param = value / n_dims
        dig = 0.0
        numerator = 0.0
        for c in range(1, largest + 1):
            dig += 1.0 / (param + c - 1)
            numerator += count_hist[c] * dig
        dig = 0.0
        denominator = 0.0
        previous = 0
        cached = digamma(value)
        for n in range(length_hist.shape[0]):
            if length_hist[n] == 0:
                continue
            if n - previous > 20:
                dig = digamma(value + n) - cached
            else:
                for i in range(previous, n):
                    dig += 1.0 / (value + i)
            denominator += dig * length_hist[n]
            previous = n
        value = param * numerator / denominator
    return value
