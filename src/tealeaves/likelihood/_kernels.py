"""Compiled (numba) samplers behind :mod:`tealeaves.likelihood.estimators`.

Every kernel works on a whole corpus in CSR form (``tokens``, ``offsets``) with
the topics given transposed, ``phi_t[w, k] = phi_{k,w}`` (``V x K``, contiguous
per word), and a length-``K`` Dirichlet parameter ``alpha``.  Kernels seed
numba's generator once per call, so a call is reproducible for a given seed.

The five estimator kernels release the GIL and take the stop flag of :mod:`tealeaves._interrupt`
as their last argument (``stop``): they read it between units of work (a document, a sample, a
particle, a position, a temperature or a chain) and return early, with unfinished results,
once it is set; their callers run them through :func:`tealeaves._interrupt.call`, which then
raises :class:`KeyboardInterrupt` instead of returning those results.

Within a document the topic counts ``n_k`` exclude the token being resampled;
the collapsed conditional of LDA with fixed topics is
``p(z_n = k | z_-n, w) ∝ (n_k^{-n} + alpha_k) phi_{k,w_n}`` (Griffiths & Steyvers 2004).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from tealeaves._compiled import stop_requested

#: Prior draws between two reads of the stop flag in :func:`importance_prior`.
_BLOCK = 1024


@njit(cache=True)
def _seed(seed):
    np.random.seed(seed)


@njit(cache=True)
def _categorical(weights, total):
    """Draw an index with probability ``weights[k] / total``."""
    u = np.random.random() * total
    acc = 0.0
    last = weights.shape[0] - 1
    for k in range(last):
        acc += weights[k]
        if u < acc:
            return k
    return last


@njit(cache=True)
def log_mean_exp_se(logw):
    """``log(mean(exp(logw)))`` and its delta-method standard error.

    ``se(log mean) ≈ sd(w) / (sqrt(S) mean(w))`` over ``S`` independent draws;
    NaN when ``S < 2``.

    Parameters
    ----------
    logw : numpy.ndarray
        ``S`` log weights.

    Returns
    -------
    est : float
        The log mean weight (``-inf`` when every weight is zero).
    se : float
        Its standard error (NaN when ``S < 2`` or every weight is zero).
    """
    s = logw.shape[0]
    top = logw.max()
    if top == -np.inf:
        return -np.inf, np.nan
    w = np.exp(logw - top)
    mean = w.mean()
    est = top + math.log(mean)
    if s < 2:
        return est, np.nan
    var = ((w - mean) ** 2).sum() / (s - 1)
    return est, math.sqrt(var / s) / mean


@njit(cache=True)
def _conditional(counts, alpha, phi_row, weights):
    """Fill ``weights[k] = (n_k + alpha_k) phi_row[k]`` (the collapsed conditional) and return their sum."""
    total = 0.0
    for k in range(alpha.shape[0]):
        weights[k] = (counts[k] + alpha[k]) * phi_row[k]
        total += weights[k]
    return total


@njit(cache=True)
def _log_dirmult(counts, alpha):
    """log p(z | alpha): the Dirichlet-multinomial probability of one ordered assignment."""
    a_sum = alpha.sum()
    n = counts.sum()
    out = math.lgamma(a_sum) - math.lgamma(a_sum + n)
    for k in range(alpha.shape[0]):
        out += math.lgamma(alpha[k] + counts[k]) - math.lgamma(alpha[k])
    return out


@njit(cache=True)
def _sample_prior(n_tok, alpha, z, counts):
    """Draw ``z`` from p(z | alpha) by the Polya urn (theta integrated out)."""
    a_sum = alpha.sum()
    k_top = alpha.shape[0]
    weights = np.empty(k_top)
    counts[:] = 0
    for n in range(n_tok):
        for k in range(k_top):
            weights[k] = counts[k] + alpha[k]
        z[n] = _categorical(weights, n + a_sum)
        counts[z[n]] += 1


@njit(cache=True)
def _gibbs_sweep(words, z, counts, phi_t, alpha, reverse):
    """One collapsed Gibbs sweep over ``z`` targeting ``p(z | w, alpha)``.

    Positions are visited ``0..N-1`` (or ``N-1..0`` when ``reverse``).
    """
    n_tok = words.shape[0]
    k_top = alpha.shape[0]
    weights = np.empty(k_top)
    for i in range(n_tok):
        n = n_tok - 1 - i if reverse else i
        w = words[n]
        counts[z[n]] -= 1
        total = _conditional(counts, alpha, phi_t[w], weights)
        z[n] = _categorical(weights, total)
        counts[z[n]] += 1


@njit(cache=True)
def _log_lik_given_z(words, z, phi_t):
    """log p(w | z, Phi) = sum_n log phi_{z_n, w_n}."""
    out = 0.0
    for n in range(words.shape[0]):
        out += math.log(phi_t[words[n], z[n]])
    return out


# -- left-to-right (Wallach 2008; MALLET's MarginalProbEstimator) -------------
@njit(cache=True)
def _l2r_particles(words, phi_t, alpha, n_particles, resample, a, stop):
    """Fill ``a[r, n] = p(w_n | w_<n, z_<n^(r))`` for every particle ``r`` and position ``n``.

    Before position ``n`` a particle optionally resamples ``z_<n`` (one Gibbs sweep,
    Wallach 2008), records ``sum_k (N_k^{<n} + alpha_k) / (n + sum alpha) phi_{k,w_n}``
    and then draws ``z_n`` from its conditional.  Returns early once ``stop`` is set.
    """
    k_top = alpha.shape[0]
    a_sum = alpha.sum()
    n_tok = words.shape[0]
    weights = np.empty(k_top)
    counts = np.zeros(k_top, dtype=np.int64)
    z = np.zeros(n_tok, dtype=np.int64)
    for r in range(n_particles):
        if stop_requested(stop):
            return
        counts[:] = 0
        for n in range(n_tok):
            if resample and n > 0:
                _gibbs_sweep(words[:n], z[:n], counts, phi_t, alpha, False)
            w = words[n]
            total = _conditional(counts, alpha, phi_t[w], weights)
            a[r, n] = total / (n + a_sum)
            z[n] = _categorical(weights, total)
            counts[z[n]] += 1


@njit(cache=True)
def _per_position(a, start):
    """MALLET/Wallach combination: ``sum_{n>=start} log mean_r a_rn``.

    Standard error by the delta method over independent particles:
    ``sd_r(sum_n a_rn / mean_r a_rn) / sqrt(R)``.
    """
    n_particles, n_tok = a.shape
    mean = np.empty(n_tok)
    est = 0.0
    for n in range(start, n_tok):
        mean[n] = a[:, n].mean()
        est += math.log(mean[n])
    s = np.zeros(n_particles)
    for r in range(n_particles):
        for n in range(start, n_tok):
            s[r] += a[r, n] / mean[n]
    return est, s


@njit(cache=True)
def _ratio(log_x, log_y):
    """``log mean exp(log_x) - log mean exp(log_y)`` and the delta-method terms ``x/mean x - y/mean y``.

    Each ``exp(log_x[g])`` is an unbiased estimate of ``p(w)`` and ``exp(log_y[g])`` of
    ``p(w_<start)`` from the same independent replicate; the ratio estimates
    ``p(w_{>=start} | w_<start)``.
    """
    x = np.exp(log_x - log_x.max())
    y = np.exp(log_y - log_y.max())
    est = log_x.max() + math.log(x.mean()) - log_y.max() - math.log(y.mean())
    return est, x / x.mean() - y / y.mean()


@njit(cache=True)
def _log_mean(log_w):
    top = log_w.max()
    return top + math.log(np.exp(log_w - top).mean())


@njit(cache=True)
def _smc_filter(words, phi_t, alpha, n_particles, resample, start, stop):
    """One sequential Monte Carlo filter over positions; returns ``(log Z, log Z_<start)``.

    Particle ``m`` is rejuvenated (one Gibbs sweep over ``z_<n``, invariant for
    ``p(z_<n | w_<n)``), weighted by its predictive ``a_mn = p(w_n | z_<n, w_<n)`` and
    extended with ``z_n ~ p(z_n | w_n, z_<n)``; when the effective sample size falls
    below half, the running estimate absorbs the mean weight and the particles are
    resampled systematically.  ``Z`` is an unbiased estimate of ``p(w)`` (Del Moral,
    Doucet & Jasra 2006) and ``Z_<start`` of ``p(w_<start)``.  Returns early (unfinished) once
    ``stop`` is set.
    """
    k_top = alpha.shape[0]
    a_sum = alpha.sum()
    n_tok = words.shape[0]
    weights = np.empty(k_top)
    z = np.zeros((n_particles, n_tok), dtype=np.int64)
    counts = np.zeros((n_particles, k_top), dtype=np.int64)
    log_w = np.zeros(n_particles)
    log_z = 0.0
    log_z_start = 0.0
    for n in range(n_tok):
        if stop_requested(stop):
            break
        w = words[n]
        for m in range(n_particles):
            if resample and n > 0:
                _gibbs_sweep(words[:n], z[m, :n], counts[m], phi_t, alpha, False)
            total = _conditional(counts[m], alpha, phi_t[w], weights)
            log_w[m] += math.log(total / (n + a_sum))
            z[m, n] = _categorical(weights, total)
            counts[m, z[m, n]] += 1
        if n == start - 1:
            log_z_start = log_z + _log_mean(log_w)
        wn = np.exp(log_w - log_w.max())
        ess = wn.sum() ** 2 / (wn ** 2).sum()
        if ess < 0.5 * n_particles and n < n_tok - 1:
            log_z += _log_mean(log_w)
            cum = np.cumsum(wn / wn.sum())
            u = np.random.random() / n_particles
            parents = np.empty(n_particles, dtype=np.int64)
            j = 0
            for m in range(n_particles):
                while j < n_particles - 1 and cum[j] < u + m / n_particles:
                    j += 1
                parents[m] = j
            z[:, : n + 1] = z[parents, : n + 1]
            counts[:, :] = counts[parents, :]
            log_w[:] = 0.0
    return log_z + _log_mean(log_w), log_z_start


@njit(cache=True, nogil=True)
def left_to_right(tokens, offsets, score_from, phi_t, alpha, n_particles, resample, n_filters, seed, stop):
    """Left-to-right estimates of ``log p(w_{>=score_from} | w_<score_from)`` per document.

    ``n_filters == 0``: average each position over the particles (Wallach 2008, MALLET).
    ``n_filters > 0``: split the particles into that many independent SMC filters
    (:func:`_smc_filter`) and combine their unbiased estimates (consistent).

    Parameters
    ----------
    tokens : numpy.ndarray
        The corpus's word ids, documents one after another (int array).
    offsets : numpy.ndarray
        ``D + 1`` offsets: document ``d`` is ``tokens[offsets[d]:offsets[d + 1]]``.
    score_from : numpy.ndarray
        ``D`` first positions scored (0 scores the whole document).
    phi_t : numpy.ndarray
        The ``V x K`` transposed topics, ``phi_t[w, k] = phi_{k,w}`` (float64, contiguous).
    alpha : numpy.ndarray
        The ``K`` Dirichlet parameters.
    n_particles : int
        Particles per document.
    resample : bool
        Rejuvenate ``z_<n`` by a Gibbs sweep before each position.
    n_filters : int
        0 for the unweighted average, else the number of SMC filters.
    seed : int
        Seed of numba's generator.
    stop : numpy.ndarray
        The stop flag (:mod:`tealeaves._interrupt`): the kernel returns early, unfinished, once set.

    Returns
    -------
    est : numpy.ndarray
        ``D`` per-document log estimates.
    se : numpy.ndarray
        ``D`` standard errors (NaN where they cannot be estimated, 0 for an empty document).
    """
    _seed(seed)
    n_docs = offsets.shape[0] - 1
    est = np.zeros(n_docs)
    se = np.full(n_docs, np.nan)
    for d in range(n_docs):
        if stop_requested(stop):
            break
        words = tokens[offsets[d]:offsets[d + 1]]
        n_tok = words.shape[0]
        start = score_from[d]
        if n_tok == 0 or start >= n_tok:
            se[d] = 0.0
            continue
        if n_filters > 0:
            log_x = np.empty(n_filters)
            log_y = np.zeros(n_filters)
            for g in range(n_filters):
                log_x[g], log_y[g] = _smc_filter(words, phi_t, alpha, n_particles // n_filters, resample,
                                                 start, stop)
            if stop_requested(stop):  # the filters stopped part-way: nothing to combine
                break
            est[d], s = _ratio(log_x, log_y)
            reps = n_filters
        else:
            a = np.empty((n_particles, n_tok))
            _l2r_particles(words, phi_t, alpha, n_particles, resample, a, stop)
            if stop_requested(stop):  # the particles stopped part-way: ``a`` is not filled
                break
            est[d], s = _per_position(a, start)
            reps = n_particles
        if reps > 1:
            se[d] = s.std() * math.sqrt(1.0 / (reps - 1.0))
    return est, se


# -- importance sampling from the prior ----------------------------------------
@njit(cache=True, nogil=True)
def importance_prior(tokens, offsets, phi_t, alpha, n_samples, seed, stop):
    """Importance sampling from the prior, ``theta_s ~ Dir(alpha)`` (Wallach et al. 2009, §4.1).

    ``log p(w) ≈ log mean_s prod_n sum_k theta_sk phi_{k,w_n}``.

    Parameters
    ----------
    tokens : numpy.ndarray
        The corpus's word ids, documents one after another (int array).
    offsets : numpy.ndarray
        ``D + 1`` offsets: document ``d`` is ``tokens[offsets[d]:offsets[d + 1]]``.
    phi_t : numpy.ndarray
        The ``V x K`` transposed topics, ``phi_t[w, k] = phi_{k,w}`` (float64, contiguous).
    alpha : numpy.ndarray
        The ``K`` Dirichlet parameters.
    n_samples : int
        Prior draws per document.
    seed : int
        Seed of numba's generator.
    stop : numpy.ndarray
        The stop flag (:mod:`tealeaves._interrupt`): the kernel returns early, unfinished, once set.

    Returns
    -------
    est : numpy.ndarray
        ``D`` per-document log estimates.
    se : numpy.ndarray
        ``D`` standard errors (NaN where they cannot be estimated, 0 for an empty document).
    """
    _seed(seed)
    n_docs = offsets.shape[0] - 1
    k_top = alpha.shape[0]
    est = np.zeros(n_docs)
    se = np.full(n_docs, np.nan)
    theta = np.empty(k_top)
    logw = np.empty(n_samples)
    for d in range(n_docs):
        words = tokens[offsets[d]:offsets[d + 1]]
        if words.shape[0] == 0:
            se[d] = 0.0
            continue
        for first in range(0, n_samples, _BLOCK):  # the flag is read per block: one exit per sample loop
            if stop_requested(stop):
                return est, se
            for s in range(first, min(first + _BLOCK, n_samples)):
                tot = 0.0
                for k in range(k_top):
                    theta[k] = np.random.gamma(alpha[k], 1.0)
                    tot += theta[k]
                if tot == 0.0:  # every draw underflowed (tiny alpha): fall back to one corner
                    theta[np.random.randint(k_top)] = 1.0
                    tot = 1.0
                lw = 0.0
                for n in range(words.shape[0]):
                    p = 0.0
                    w = words[n]
                    for k in range(k_top):
                        p += theta[k] * phi_t[w, k]
                    lw += math.log(p / tot)
                logw[s] = lw
        est[d], se[d] = log_mean_exp_se(logw)
    return est, se


# -- harmonic mean (Newton & Raftery 1994) -------------------------------------
@njit(cache=True, nogil=True)
def harmonic_mean(tokens, offsets, phi_t, alpha, n_samples, burn_in, seed, stop):
    """Harmonic mean: Gibbs samples ``z_s ~ p(z|w)``; ``log p(w) ≈ -log mean_s 1/p(w|z_s)``.  Biased upwards.

    Newton & Raftery (1994).

    Parameters
    ----------
    tokens : numpy.ndarray
        The corpus's word ids, documents one after another (int array).
    offsets : numpy.ndarray
        ``D + 1`` offsets: document ``d`` is ``tokens[offsets[d]:offsets[d + 1]]``.
    phi_t : numpy.ndarray
        The ``V x K`` transposed topics, ``phi_t[w, k] = phi_{k,w}`` (float64, contiguous).
    alpha : numpy.ndarray
        The ``K`` Dirichlet parameters.
    n_samples : int
        Gibbs samples per document.
    burn_in : int
        Sweeps discarded first.
    seed : int
        Seed of numba's generator.
    stop : numpy.ndarray
        The stop flag (:mod:`tealeaves._interrupt`): the kernel returns early, unfinished, once set.

    Returns
    -------
    numpy.ndarray
        ``D`` per-document log estimates (0 for an empty document).
    """
    _seed(seed)
    n_docs = offsets.shape[0] - 1
    k_top = alpha.shape[0]
    est = np.zeros(n_docs)
    counts = np.zeros(k_top, dtype=np.int64)
    neg = np.empty(n_samples)
    for d in range(n_docs):
        words = tokens[offsets[d]:offsets[d + 1]]
        if words.shape[0] == 0:
            continue
        z = np.zeros(words.shape[0], dtype=np.int64)
        _sample_prior(words.shape[0], alpha, z, counts)
        for _ in range(burn_in):
            if stop_requested(stop):
                return est
            _gibbs_sweep(words, z, counts, phi_t, alpha, False)
        for s in range(n_samples):
            if stop_requested(stop):
                return est
            _gibbs_sweep(words, z, counts, phi_t, alpha, False)
            neg[s] = -_log_lik_given_z(words, z, phi_t)
        est[d] = -log_mean_exp_se(neg)[0]
    return est


# -- annealed importance sampling (Neal 2001) ----------------------------------
@njit(cache=True)
def _tempered_sweep(z, counts, phi_beta, alpha, weights):
    """One Gibbs sweep with the tempered likelihood ``phi_beta[n, k] = phi_{k,w_n}^beta``."""
    for n in range(z.shape[0]):
        counts[z[n]] -= 1
        total = _conditional(counts, alpha, phi_beta[n], weights)
        z[n] = _categorical(weights, total)
        counts[z[n]] += 1


@njit(cache=True, nogil=True)
def annealed_importance(tokens, offsets, phi_t, alpha, betas, n_chains, seed, stop):
    """AIS over z from p(z|alpha) to p(z|w) through p(z|alpha) p(w|z)^beta_t.

    Annealed importance sampling (Neal 2001; Wallach et al. 2009, §4.2).

    Each chain adds ``(beta_t - beta_{t-1}) log p(w|z)`` to its log weight, then
    takes one Gibbs sweep at ``beta_t``; the estimate is the log mean weight.
    The chains of a document advance together so ``phi^beta`` is computed once
    per temperature.

    Parameters
    ----------
    tokens : numpy.ndarray
        The corpus's word ids, documents one after another (int array).
    offsets : numpy.ndarray
        ``D + 1`` offsets: document ``d`` is ``tokens[offsets[d]:offsets[d + 1]]``.
    phi_t : numpy.ndarray
        The ``V x K`` transposed topics, ``phi_t[w, k] = phi_{k,w}`` (float64, contiguous).
    alpha : numpy.ndarray
        The ``K`` Dirichlet parameters.
    betas : numpy.ndarray
        The inverse temperatures, from 0 to 1.
    n_chains : int
        AIS chains per document.
    seed : int
        Seed of numba's generator.
    stop : numpy.ndarray
        The stop flag (:mod:`tealeaves._interrupt`): the kernel returns early, unfinished, once set.

    Returns
    -------
    est : numpy.ndarray
        ``D`` per-document log estimates.
    se : numpy.ndarray
        ``D`` standard errors (NaN where they cannot be estimated, 0 for an empty document).
    """
    _seed(seed)
    n_docs = offsets.shape[0] - 1
    k_top = alpha.shape[0]
    est = np.zeros(n_docs)
    se = np.full(n_docs, np.nan)
    weights = np.empty(k_top)
    n_temp = betas.shape[0]
    for d in range(n_docs):
        words = tokens[offsets[d]:offsets[d + 1]]
        n_tok = words.shape[0]
        if n_tok == 0:
            se[d] = 0.0
            continue
        log_phi = np.empty((n_tok, k_top))
        for n in range(n_tok):
            for k in range(k_top):
                log_phi[n, k] = math.log(phi_t[words[n], k])
        phi_beta = np.empty((n_tok, k_top))
        z = np.zeros((n_chains, n_tok), dtype=np.int64)
        counts = np.zeros((n_chains, k_top), dtype=np.int64)
        logw = np.zeros(n_chains)
        for c in range(n_chains):
            _sample_prior(n_tok, alpha, z[c], counts[c])
        for t in range(1, n_temp):
            if stop_requested(stop):
                return est, se
            step = betas[t] - betas[t - 1]
            for c in range(n_chains):
                ll = 0.0
                for n in range(n_tok):
                    ll += log_phi[n, z[c, n]]
                logw[c] += step * ll
            if t < n_temp - 1:
                for n in range(n_tok):
                    for k in range(k_top):
                        phi_beta[n, k] = math.exp(betas[t] * log_phi[n, k])
                for c in range(n_chains):
                    _tempered_sweep(z[c], counts[c], phi_beta, alpha, weights)
        est[d], se[d] = log_mean_exp_se(logw)
    return est, se


# -- Chib-style estimator (Murray & Salakhutdinov 2009) -------------------------
@njit(cache=True)
def _log_transition(words, z_from, z_to, counts_from, phi_t, alpha):
    """log T(z_to <- z_from) for one forward Gibbs sweep (positions 0..N-1)."""
    k_top = alpha.shape[0]
    counts = counts_from.copy()
    weights = np.empty(k_top)
    out = 0.0
    for n in range(words.shape[0]):
        w = words[n]
        counts[z_from[n]] -= 1
        total = _conditional(counts, alpha, phi_t[w], weights)
        out += math.log(weights[z_to[n]] / total)
        counts[z_to[n]] += 1
    return out


@njit(cache=True)
def _iterated_conditional_modes(words, z, counts, phi_t, alpha, max_sweeps):
    """Set each z_n to the mode of its conditional until nothing changes."""
    k_top = alpha.shape[0]
    for _ in range(max_sweeps):
        changed = False
        for n in range(words.shape[0]):
            w = words[n]
            counts[z[n]] -= 1
            best, best_k = -1.0, 0
            for k in range(k_top):
                v = (counts[k] + alpha[k]) * phi_t[w, k]
                if v > best:
                    best, best_k = v, k
            if best_k != z[n]:
                changed = True
            z[n] = best_k
            counts[best_k] += 1
        if not changed:
            break


@njit(cache=True)
def _special_state(words, phi_t, alpha, burn_in, counts_star):
    """A high-posterior state z*: the best joint ``p(w, z)`` among ``burn_in`` Gibbs sweeps, then ICM.

    Fills ``counts_star`` with its topic counts and returns it.
    """
    n_tok = words.shape[0]
    z = np.zeros(n_tok, dtype=np.int64)
    counts = np.zeros(alpha.shape[0], dtype=np.int64)
    _sample_prior(n_tok, alpha, z, counts)
    z_star = z.copy()
    counts_star[:] = counts
    best = _log_dirmult(counts, alpha) + _log_lik_given_z(words, z, phi_t)
    for _ in range(burn_in):
        _gibbs_sweep(words, z, counts, phi_t, alpha, False)
        joint = _log_dirmult(counts, alpha) + _log_lik_given_z(words, z, phi_t)
        if joint > best:
            best = joint
            z_star[:] = z
            counts_star[:] = counts
    _iterated_conditional_modes(words, z_star, counts_star, phi_t, alpha, 1000)
    return z_star


@njit(cache=True, nogil=True)
def chib_style(tokens, offsets, phi_t, alpha, n_samples, n_chains, burn_in, seed, stop):
    """Chib-style estimator with a special state z* (Murray & Salakhutdinov 2009).

    Each chain finds its own z*: the best of ``burn_in`` Gibbs sweeps polished by iterated
    conditional modes.  The chains are therefore independent replicates and their spread
    includes the error due to the choice of z* (a z* shared by all chains left it out of
    the standard error).  Each chain then picks ``s`` uniformly in ``0..S-1``, draws
    ``z^(s)`` from the reverse sweep ``T~(. <- z*)``, runs forward sweeps ``T`` for later indices and reverse
    sweeps for earlier ones, and averages ``T(z* <- z^(s'))`` over its ``S`` states:
    ``D_c``.  ``p(w, z*) / D_c`` is an unbiased estimate of ``p(w)`` (its reciprocal
    ``D_c / p(w, z*)`` is not, but ``E[1 / D_c] = 1 / p(z*|w)``), so chains are
    combined as ``log mean_c p(w, z*) / D_c``, with the delta-method standard error.

    Parameters
    ----------
    tokens : numpy.ndarray
        The corpus's word ids, documents one after another (int array).
    offsets : numpy.ndarray
        ``D + 1`` offsets: document ``d`` is ``tokens[offsets[d]:offsets[d + 1]]``.
    phi_t : numpy.ndarray
        The ``V x K`` transposed topics, ``phi_t[w, k] = phi_{k,w}`` (float64, contiguous).
    alpha : numpy.ndarray
        The ``K`` Dirichlet parameters.
    n_samples : int
        ``S``, Gibbs states per chain.
    n_chains : int
        Independent chains per document.
    burn_in : int
        Gibbs sweeps searched for z*.
    seed : int
        Seed of numba's generator.
    stop : numpy.ndarray
        The stop flag (:mod:`tealeaves._interrupt`): the kernel returns early, unfinished, once set.

    Returns
    -------
    est : numpy.ndarray
        ``D`` per-document log estimates.
    se : numpy.ndarray
        ``D`` standard errors (NaN where they cannot be estimated, 0 for an empty document).
    """
    _seed(seed)
    n_docs = offsets.shape[0] - 1
    k_top = alpha.shape[0]
    est = np.zeros(n_docs)
    se = np.full(n_docs, np.nan)
    counts = np.zeros(k_top, dtype=np.int64)
    counts_star = np.zeros(k_top, dtype=np.int64)
    log_t = np.empty(n_samples)
    log_p = np.empty(n_chains)
    for d in range(n_docs):
        words = tokens[offsets[d]:offsets[d + 1]]
        n_tok = words.shape[0]
        if n_tok == 0:
            se[d] = 0.0
            continue
        z = np.empty(n_tok, dtype=np.int64)
        for c in range(n_chains):
            if stop_requested(stop):
                return est, se
            z_star = _special_state(words, phi_t, alpha, burn_in, counts_star)
            log_joint = _log_dirmult(counts_star, alpha) + _log_lik_given_z(words, z_star, phi_t)
            s = np.random.randint(n_samples)
            z_s = z_star.copy()
            counts_s = counts_star.copy()
            _gibbs_sweep(words, z_s, counts_s, phi_t, alpha, True)
            log_t[s] = _log_transition(words, z_s, z_star, counts_s, phi_t, alpha)
            z[:] = z_s
            counts[:] = counts_s
            for j in range(s + 1, n_samples):
                if stop_requested(stop):
                    return est, se
                _gibbs_sweep(words, z, counts, phi_t, alpha, False)
                log_t[j] = _log_transition(words, z, z_star, counts, phi_t, alpha)
            z[:] = z_s
            counts[:] = counts_s
            for j in range(s - 1, -1, -1):
                if stop_requested(stop):
                    return est, se
                _gibbs_sweep(words, z, counts, phi_t, alpha, True)
                log_t[j] = _log_transition(words, z, z_star, counts, phi_t, alpha)
            log_p[c] = log_joint - log_mean_exp_se(log_t)[0]
        est[d], se[d] = log_mean_exp_se(log_p)
    return est, se
