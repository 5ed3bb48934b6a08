"""Compiled kernels of the polylingual topic model's collapsed Gibbs sampler.

Layout shared by the kernels (built by :mod:`tealeaves.models.polylingual`):

* ``tokens``: every token's *global* word id (language ``l``'s ids are
  shifted by ``word_offset[l]``), grouped into *segments*: one language side of
  one tuple, ``tokens[seg_start[s]:seg_start[s + 1]]``;
* ``seg_lang[s]``: the segment's language; ``seg_row[s]``: its row of
  document-topic counts (shared by all sides of a linked tuple, one per side
  for unlinked tuples);
* ``n_wk`` (``V_total x K``), ``n_lk`` (``L x K``), ``n_rk`` (``R x K``): the
  word-topic, language-topic and row-topic counts.

The sampling weight of topic ``k`` for word ``w`` of language ``l`` in row ``r``
is (Mimno et al. 2009, eq. for the PLTM collapsed conditional)::

    (n_rk + alpha_k) * (n_wk + beta_l) / (n_lk + V_l * beta_l)

computed as ``coef[k] * (n_wk + beta_l)`` with ``coef[k] = (n_rk + alpha_k) /
(n_lk + V_l beta_l)`` cached per segment and updated only for the two topics a
token leaves and joins (MALLET's ``cachedCoefficients``), so each token costs
one vectorised pass of multiply-adds for the normaliser plus a walk that stops
at the sampled topic.

Random numbers come from numba's Mersenne Twister (one state per thread), seeded
at the start of each call, so a run is repeated exactly by its seeds.  The
sampling kernels release the GIL, so chains can run in parallel threads.
"""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def init_topics(tokens, seg_start, seg_lang, seg_row, z, n_wk, n_lk, n_rk, seed):
    """Assign every token a uniformly random topic and fill the count tables."""
    np.random.seed(seed)
    n_topics = n_wk.shape[1]
    for s in range(len(seg_lang)):
        lang = seg_lang[s]
        row = seg_row[s]
        for i in range(seg_start[s], seg_start[s + 1]):
            k = np.random.randint(0, n_topics)
            z[i] = k
            n_wk[tokens[i], k] += 1
            n_lk[lang, k] += 1
            n_rk[row, k] += 1


@numba.njit(cache=True, fastmath=True, nogil=True)
def gibbs_sweep(tokens, seg_start, seg_lang, seg_row, z, n_wk, n_lk, n_rk, alpha, beta, beta_sum, seed):
    """One collapsed Gibbs sweep over every token, segment by segment."""
    np.random.seed(seed)
    n_topics = n_wk.shape[1]
    n_lang = n_lk.shape[0]
    inv = np.empty((n_lang, n_topics))
    for lang in range(n_lang):
        for k in range(n_topics):
            inv[lang, k] = 1.0 / (n_lk[lang, k] + beta_sum[lang])
    coef = np.empty(n_topics)
    for s in range(len(seg_lang)):
        lang = seg_lang[s]
        row = seg_row[s]
        b = beta[lang]
        bs = beta_sum[lang]
        inv_l = inv[lang]
        n_l = n_lk[lang]
        n_r = n_rk[row]
        for k in range(n_topics):
            coef[k] = (n_r[k] + alpha[k]) * inv_l[k]
        for i in range(seg_start[s], seg_start[s + 1]):
            w = tokens[i]
            old = z[i]
            n_w = n_wk[w]
            n_w[old] -= 1
            n_r[old] -= 1
            n_l[old] -= 1
            inv_l[old] = 1.0 / (n_l[old] + bs)
            coef[old] = (n_r[old] + alpha[old]) * inv_l[old]
            total = 0.0
            for k in range(n_topics):  # vectorised: no stores
                total += coef[k] * (n_w[k] + b)
            u = np.random.random() * total
            new = 0
            acc = coef[0] * (n_w[0] + b)
            while acc <= u and new < n_topics - 1:
                new += 1
                acc += coef[new] * (n_w[new] + b)
            z[i] = new
            n_w[new] += 1
            n_r[new] += 1
            n_l[new] += 1
            inv_l[new] = 1.0 / (n_l[new] + bs)
            coef[new] = (n_r[new] + alpha[new]) * inv_l[new]


@numba.njit(cache=True, fastmath=True)
def fold_in_sweep(tokens, seg_start, seg_row, z, phi_t, n_rk, alpha, seed, init):
    """One Gibbs sweep for new documents with the topics fixed.

    ``phi_t`` is the ``V_total x K`` transposed topic-word matrix (every
    language's ``p(w | k)`` at its word offsets); the weight of topic ``k`` is
    ``(n_rk + alpha_k) * phi[k, w]``.  With ``init`` tokens start unassigned and
    are added one by one (sequential initialisation, as MALLET's inferencer).
    """
    np.random.seed(seed)
    n_topics = phi_t.shape[1]
    cum = np.empty(n_topics)
    for s in range(len(seg_row)):
        n_r = n_rk[seg_row[s]]
        for i in range(seg_start[s], seg_start[s + 1]):
            w = tokens[i]
            if not init:
                n_r[z[i]] -= 1
            total = 0.0
            for k in range(n_topics):
                total += (n_r[k] + alpha[k]) * phi_t[w, k]
                cum[k] = total
            u = np.random.random() * total
            new = 0
            while new < n_topics - 1 and cum[new] <= u:
                new += 1
            z[i] = new
            n_r[new] += 1


@numba.njit(cache=True)
def digamma(x):
    """The digamma function (recurrence up to 6, then the asymptotic series)."""
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
    ``psi(a + n) - psi(a) = sum_{i<n} 1 / (a + i)``; a Gamma(shape, scale)
    prior on each ``alpha_k`` regularises the update (MALLET's
    ``Dirichlet.learnParameters``).  Returns the new sum of ``alpha``.
    """
    n_topics = alpha.shape[0]
    limits = np.full(n_topics, -1)
    for k in range(n_topics):
        for n in range(topic_doc_hist.shape[1]):
            if topic_doc_hist[k, n] > 0:
                limits[k] = n
    alpha_sum = alpha.sum()
    for _ in range(n_iter):
        denominator = 0.0
        dig = 0.0
        for n in range(1, doc_length_hist.shape[0]):
            dig += 1.0 / (alpha_sum + n - 1)
            denominator += doc_length_hist[n] * dig
        denominator -= 1.0 / scale
        alpha_sum = 0.0
        for k in range(n_topics):
            old = alpha[k]
            acc = 0.0
            dig = 0.0
            for n in range(1, limits[k] + 1):
                dig += 1.0 / (old + n - 1)
                acc += topic_doc_hist[k, n] * dig
            alpha[k] = (old * acc + shape) / denominator
            alpha_sum += alpha[k]
    return alpha_sum


@numba.njit(cache=True)
def learn_symmetric_concentration(count_hist, length_hist, n_dims, value, n_iter):
    """Fixed point for the concentration ``V * beta`` of a symmetric Dirichlet.

    ``count_hist[c]`` is the number of (word, topic) cells with count ``c``,
    ``length_hist[n]`` the number of topics with ``n`` tokens (MALLET's
    ``Dirichlet.learnSymmetricConcentration``).  Returns the new ``V * beta``.
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
