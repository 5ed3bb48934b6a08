"""Compiled (numba) samplers behind :mod:`tealeaves.likelihood.estimators`.

Every estimator runs through :func:`estimate`, on a whole corpus in CSR form
(``tokens``, ``offsets``) with the topics given transposed, ``phi_t[w, k] = phi_{k,w}``
(``V x K``, contiguous per word), and a length-``K`` Dirichlet parameter ``alpha``.  Documents
are independent, so the estimator's kernel estimates them in parallel (numba's threads, each
taking the next document, longest first, as it finishes one: :func:`on_threads`).  Each estimator
has its own kernel, written once (:func:`_kernel`), so the first call of one estimator after an
install compiles its code only, not the other estimators'.

**Random streams.**  Document ``d`` draws from its own generator, xoshiro256** (Blackman &
Vigna 2021) started from ``(seed, d)`` through SplitMix64 (:func:`_stream`); no draw depends on
which thread runs the document or on the order documents are taken, so a call gives the same
numbers, bit for bit, for any number of threads.  The scheme is named :data:`RNG_SCHEME` in
every estimate's signature (``rng=``).  It replaced numba's global generator, seeded once per
call and drawn from document after document, so the values for a given seed differ from those
of earlier tealeaves, whose signatures have no ``rng`` field.  Gamma variates are drawn by
Marsaglia & Tsang (2000) from shape 1 and by Ahrens & Dieter's (1974) GS algorithm below it
(NumPy's choices), normal ones by Box-Muller.

**Ctrl-C.**  The kernel releases the GIL and takes the stop flag of :mod:`tealeaves._interrupt`
as its last argument (``stop``): it is read before each document and, within one, between units
of work (a sample, a particle, a position, a temperature or a chain); once it is set every
document still running returns at once, with an unfinished value that the caller never uses
(:func:`tealeaves._interrupt.call` raises :class:`KeyboardInterrupt` instead).

Within a document the topic counts ``n_k`` exclude the token being resampled;
the collapsed conditional of LDA with fixed topics is
``p(z_n = k | z_-n, w) ∝ (n_k^{-n} + alpha_k) phi_{k,w_n}`` (Griffiths & Steyvers 2004).
"""

from __future__ import annotations

import math

import numpy as np
from numba import get_num_threads, njit, prange

from tealeaves._compiled import next_item, parallel_turn, stop_requested
from tealeaves._threads import longest_first

#: The random streams of :func:`estimate`, recorded in signatures (``rng=``): one xoshiro256**
#: generator per document, seeded from ``(seed, document index)`` by SplitMix64.
RNG_SCHEME = "xoshiro256ss-per-doc-1"

#: The estimators :func:`estimate` runs, by the code it takes as ``method``.
LEFT_TO_RIGHT, IMPORTANCE, HARMONIC, ANNEALED, CHIB = 0, 1, 2, 3, 4

#: Left-to-right by SMC filters: the kernel :func:`estimate` runs for :data:`LEFT_TO_RIGHT` with
#: ``third > 0`` (its own kernel, so the common per-position left-to-right never compiles the filters).
_FILTERED = 5

#: Prior draws between two reads of the stop flag in :func:`_importance`.
_BLOCK = 1024

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2 ** -53


# -- random streams -------------------------------------------------------------
@njit(cache=True, inline="always")
def _mix(z):
    """SplitMix64's output function (Steele, Lea & Flood 2014): a bijection of 64-bit integers."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _stream(seed, index):
    """The four-word state of xoshiro256** for stream ``index`` of ``seed`` (SplitMix64 seeding)."""
    key = _mix(_mix(np.uint64(seed) + _GOLDEN) + np.uint64(index))
    state = np.empty(4, dtype=np.uint64)
    for j in range(4):
        state[j] = _mix(key + np.uint64(j + 1) * _GOLDEN)
    return state


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True)
def _uniform(state):
    """The next draw of xoshiro256** (Blackman & Vigna 2021) as a float in ``[0, 1)`` (53 bits)."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    out = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    state[0], state[1], state[2], state[3] = s0, s1, s2, _rotl(s3, 45)
    return float(out >> np.uint64(11)) * _TO_UNIT


@njit(cache=True)
def _randint(n, state):
    """A uniform integer in ``0..n-1``."""
    return min(int(_uniform(state) * n), n - 1)


@njit(cache=True)
def _normal(state):
    """A standard normal draw (Box-Muller; the second variate is not kept)."""
    u = 1.0 - _uniform(state)  # in (0, 1]
    return math.sqrt(-2.0 * math.log(u)) * math.cos(2.0 * math.pi * _uniform(state))


@njit(cache=True)
def _small_gamma(shape, state):
    """A ``Gamma(shape, 1)`` draw for ``shape < 1``: Ahrens & Dieter's (1974) GS rejection (as NumPy)."""
    while True:
        u = _uniform(state)
        v = -math.log(1.0 - _uniform(state))  # a standard exponential
        if u <= 1.0 - shape:
            x = u ** (1.0 / shape)
            if x <= v:
                return x
        else:
            y = -math.log((1.0 - u) / shape)
            x = (1.0 - shape + shape * y) ** (1.0 / shape)
            if x <= v + y:
                return x


@njit(cache=True)
def _gamma(shape, state):
    """A ``Gamma(shape, 1)`` draw: Marsaglia & Tsang (2000) from shape 1, :func:`_small_gamma` below."""
    if shape < 1.0:
        return _small_gamma(shape, state)
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = _normal(state)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = 1.0 - _uniform(state)
        if u < 1.0 - 0.0331 * x ** 4 or math.log(u) < 0.5 * x * x + d * (1.0 - v + math.log(v)):
            return d * v


@njit(cache=True)
def _categorical(weights, total, state):
    """Draw an index with probability ``weights[k] / total``."""
    u = _uniform(state) * total
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
def _sample_prior(n_tok, alpha, z, counts, state):
    """Draw ``z`` from p(z | alpha) by the Polya urn (theta integrated out)."""
    a_sum = alpha.sum()
    k_top = alpha.shape[0]
    weights = np.empty(k_top)
    counts[:] = 0
    for n in range(n_tok):
        for k in range(k_top):
            weights[k] = counts[k] + alpha[k]
        z[n] = _categorical(weights, n + a_sum, state)
        counts[z[n]] += 1


@njit(cache=True)
def _gibbs_sweep(words, z, counts, phi_t, alpha, reverse, state):
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
        z[n] = _categorical(weights, total, state)
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
def _l2r_particles(words, phi_t, alpha, n_particles, resample, a, state, stop):
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
                _gibbs_sweep(words[:n], z[:n], counts, phi_t, alpha, False, state)
            w = words[n]
            total = _conditional(counts, alpha, phi_t[w], weights)
            a[r, n] = total / (n + a_sum)
            z[n] = _categorical(weights, total, state)
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
def _smc_filter(words, phi_t, alpha, n_particles, resample, start, state, stop):
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
                _gibbs_sweep(words[:n], z[m, :n], counts[m], phi_t, alpha, False, state)
            total = _conditional(counts[m], alpha, phi_t[w], weights)
            log_w[m] += math.log(total / (n + a_sum))
            z[m, n] = _categorical(weights, total, state)
            counts[m, z[m, n]] += 1
        if n == start - 1:
            log_z_start = log_z + _log_mean(log_w)
        wn = np.exp(log_w - log_w.max())
        ess = wn.sum() ** 2 / (wn ** 2).sum()
        if ess < 0.5 * n_particles and n < n_tok - 1:
            log_z += _log_mean(log_w)
            cum = np.cumsum(wn / wn.sum())
            u = _uniform(state) / n_particles
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


@njit(cache=True)
def _with_error(est, s, reps):
    """``est`` and its delta-method standard error ``sd(s) / sqrt(reps - 1)`` (NaN below 2 replicates)."""
    if reps < 2:
        return est, np.nan
    return est, s.std() * math.sqrt(1.0 / (reps - 1.0))


@njit(cache=True)
def _left_to_right(words, start, phi_t, alpha, n_particles, resample, state, stop):
    """Left-to-right estimate of ``log p(w_{>=start} | w_<start)`` of one document and its standard error.

    Each position is averaged over the particles (Wallach 2008, MALLET).
    """
    a = np.empty((n_particles, words.shape[0]))
    _l2r_particles(words, phi_t, alpha, n_particles, resample, a, state, stop)
    if stop_requested(stop):  # the particles stopped part-way: ``a`` is not filled
        return 0.0, np.nan
    est, s = _per_position(a, start)
    return _with_error(est, s, n_particles)


@njit(cache=True)
def _filtered_left_to_right(words, start, phi_t, alpha, n_particles, resample, n_filters, state, stop):
    """:func:`_left_to_right` by ``n_filters`` independent SMC filters (:func:`_smc_filter`), combined.

    Consistent; the particles are split evenly between the filters.
    """
    log_x = np.empty(n_filters)
    log_y = np.zeros(n_filters)
    for g in range(n_filters):
        log_x[g], log_y[g] = _smc_filter(words, phi_t, alpha, n_particles // n_filters, resample,
                                         start, state, stop)
    if stop_requested(stop):  # the filters stopped part-way: nothing to combine
        return 0.0, np.nan
    est, s = _ratio(log_x, log_y)
    return _with_error(est, s, n_filters)


# -- importance sampling from the prior ----------------------------------------
@njit(cache=True)
def _importance(words, phi_t, alpha, n_samples, state, stop):
    """Importance sampling from the prior, ``theta_s ~ Dir(alpha)`` (Wallach et al. 2009, §4.1).

    ``log p(w) ≈ log mean_s prod_n sum_k theta_sk phi_{k,w_n}``, with its delta-method error.
    """
    k_top = alpha.shape[0]
    theta = np.empty(k_top)
    logw = np.empty(n_samples)
    for first in range(0, n_samples, _BLOCK):  # the flag is read per block of draws
        if stop_requested(stop):
            return 0.0, np.nan
        for s in range(first, min(first + _BLOCK, n_samples)):
            tot = 0.0
            for k in range(k_top):
                theta[k] = _gamma(alpha[k], state)
                tot += theta[k]
            if tot == 0.0:  # every draw underflowed (tiny alpha): fall back to one corner
                theta[_randint(k_top, state)] = 1.0
                tot = 1.0
            lw = 0.0
            for n in range(words.shape[0]):
                p = 0.0
                w = words[n]
                for k in range(k_top):
                    p += theta[k] * phi_t[w, k]
                lw += math.log(p / tot)
            logw[s] = lw
    return log_mean_exp_se(logw)


# -- harmonic mean (Newton & Raftery 1994) -------------------------------------
@njit(cache=True)
def _harmonic(words, phi_t, alpha, n_samples, burn_in, state, stop):
    """Harmonic mean: Gibbs samples ``z_s ~ p(z|w)``; ``log p(w) ≈ -log mean_s 1/p(w|z_s)``.  Biased upwards.

    Newton & Raftery (1994).  No standard error (NaN).
    """
    z = np.zeros(words.shape[0], dtype=np.int64)
    counts = np.zeros(alpha.shape[0], dtype=np.int64)
    neg = np.empty(n_samples)
    _sample_prior(words.shape[0], alpha, z, counts, state)
    for s in range(-burn_in, n_samples):
        if stop_requested(stop):
            return 0.0, np.nan
        _gibbs_sweep(words, z, counts, phi_t, alpha, False, state)
        if s >= 0:
            neg[s] = -_log_lik_given_z(words, z, phi_t)
    return -log_mean_exp_se(neg)[0], np.nan


# -- annealed importance sampling (Neal 2001) ----------------------------------
@njit(cache=True)
def _tempered_sweep(z, counts, phi_beta, alpha, weights, state):
    """One Gibbs sweep with the tempered likelihood ``phi_beta[n, k] = phi_{k,w_n}^beta``."""
    for n in range(z.shape[0]):
        counts[z[n]] -= 1
        total = _conditional(counts, alpha, phi_beta[n], weights)
        z[n] = _categorical(weights, total, state)
        counts[z[n]] += 1


@njit(cache=True)
def _annealed(words, phi_t, alpha, betas, n_chains, state, stop):
    """AIS over z from p(z|alpha) to p(z|w) through p(z|alpha) p(w|z)^beta_t.

    Annealed importance sampling (Neal 2001; Wallach et al. 2009, §4.2).

    Each chain adds ``(beta_t - beta_{t-1}) log p(w|z)`` to its log weight, then
    takes one Gibbs sweep at ``beta_t``; the estimate is the log mean weight.
    The chains of a document advance together so ``phi^beta`` is computed once
    per temperature.
    """
    n_tok = words.shape[0]
    k_top = alpha.shape[0]
    weights = np.empty(k_top)
    log_phi = np.empty((n_tok, k_top))
    for n in range(n_tok):
        for k in range(k_top):
            log_phi[n, k] = math.log(phi_t[words[n], k])
    phi_beta = np.empty((n_tok, k_top))
    z = np.zeros((n_chains, n_tok), dtype=np.int64)
    counts = np.zeros((n_chains, k_top), dtype=np.int64)
    logw = np.zeros(n_chains)
    for c in range(n_chains):
        _sample_prior(n_tok, alpha, z[c], counts[c], state)
    n_temp = betas.shape[0]
    for t in range(1, n_temp):
        if stop_requested(stop):
            return 0.0, np.nan
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
                _tempered_sweep(z[c], counts[c], phi_beta, alpha, weights, state)
    return log_mean_exp_se(logw)


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
def _copy_into(dst, src):
    """``dst[:] = src`` for 1-d arrays of one length, as a loop.

    numba compiles a slice assignment with a shape check whose formatted error costs about 1.7 s.
    """
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True)
def _special_state(words, phi_t, alpha, burn_in, counts_star, state):
    """A high-posterior state z*: the best joint ``p(w, z)`` among ``burn_in`` Gibbs sweeps, then ICM.

    Fills ``counts_star`` with its topic counts and returns it.
    """
    n_tok = words.shape[0]
    z = np.zeros(n_tok, dtype=np.int64)
    counts = np.zeros(alpha.shape[0], dtype=np.int64)
    _sample_prior(n_tok, alpha, z, counts, state)
    z_star = z.copy()
    _copy_into(counts_star, counts)
    best = _log_dirmult(counts, alpha) + _log_lik_given_z(words, z, phi_t)
    for _ in range(burn_in):
        _gibbs_sweep(words, z, counts, phi_t, alpha, False, state)
        joint = _log_dirmult(counts, alpha) + _log_lik_given_z(words, z, phi_t)
        if joint > best:
            best = joint
            _copy_into(z_star, z)
            _copy_into(counts_star, counts)
    _iterated_conditional_modes(words, z_star, counts_star, phi_t, alpha, 1000)
    return z_star


@njit(cache=True)
def _chib_states(words, phi_t, alpha, z_star, z_s, counts_s, first, last, reverse, log_t, state, stop):
    """From ``z_s``, sweep forward (or in reverse) for indices ``first..last``.

    Fills ``log_t[j] = log T(z* <- z_j)`` (the Chib-style estimator's transition probabilities).
    """
    z = z_s.copy()
    counts = counts_s.copy()
    step = -1 if reverse else 1
    for j in range(first, last, step):
        if stop_requested(stop):
            return
        _gibbs_sweep(words, z, counts, phi_t, alpha, reverse, state)
        log_t[j] = _log_transition(words, z, z_star, counts, phi_t, alpha)


@njit(cache=True)
def _chib(words, phi_t, alpha, n_samples, n_chains, burn_in, state, stop):
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
    """
    counts_star = np.zeros(alpha.shape[0], dtype=np.int64)
    log_t = np.empty(n_samples)
    log_p = np.empty(n_chains)
    for c in range(n_chains):
        if stop_requested(stop):
            return 0.0, np.nan
        z_star = _special_state(words, phi_t, alpha, burn_in, counts_star, state)
        log_joint = _log_dirmult(counts_star, alpha) + _log_lik_given_z(words, z_star, phi_t)
        s = _randint(n_samples, state)
        z_s = z_star.copy()
        counts_s = counts_star.copy()
        _gibbs_sweep(words, z_s, counts_s, phi_t, alpha, True, state)
        log_t[s] = _log_transition(words, z_s, z_star, counts_s, phi_t, alpha)
        _chib_states(words, phi_t, alpha, z_star, z_s, counts_s, s + 1, n_samples, False, log_t, state, stop)
        _chib_states(words, phi_t, alpha, z_star, z_s, counts_s, s - 1, -1, True, log_t, state, stop)
        log_p[c] = log_joint - log_mean_exp_se(log_t)[0]
    return log_mean_exp_se(log_p)


# -- the kernels: one per estimator, each compiled on its first use ---------------
@njit(cache=True, inline="always")
def _document(method, words, start, phi_t, alpha, size, second, third, betas, state, stop):
    """One document's estimate and standard error by ``method`` (see :func:`estimate` for the sizes)."""
    if method == LEFT_TO_RIGHT:
        return _left_to_right(words, start, phi_t, alpha, size, second != 0, state, stop)
    if method == _FILTERED:
        return _filtered_left_to_right(words, start, phi_t, alpha, size, second != 0, third, state, stop)
    if method == IMPORTANCE:
        return _importance(words, phi_t, alpha, size, state, stop)
    if method == HARMONIC:
        return _harmonic(words, phi_t, alpha, size, second, state, stop)
    if method == ANNEALED:
        return _annealed(words, phi_t, alpha, betas, size, state, stop)
    return _chib(words, phi_t, alpha, size, second, third, state, stop)


def _kernel(method: int):
    """The parallel kernel of the estimator ``method``: :func:`estimate` without its first argument.

    ``method`` is a constant of the kernel (a closure variable), so when numba inlines
    :func:`_document` its dead-branch pruning drops the other estimators before typing: the first
    call of one estimator compiles its own code and the shared streams and loop, not all five
    estimators.  numba's cache keys a closure by the values it captures, so each estimator's kernel
    is cached on its own and loaded from the cache by later processes.

    Parameters
    ----------
    method : int
        The estimator (:data:`LEFT_TO_RIGHT` ... :data:`CHIB`).

    Returns
    -------
    numba.core.registry.CPUDispatcher
        The kernel, compiled on its first call.
    """
    @njit(cache=True, nogil=True, parallel=True)
    def kernel(tokens, offsets, order, n_workers, score_from, phi_t, alpha, size, second, third, betas, seed,
               stop):
        n_docs = offsets.shape[0] - 1
        est = np.zeros(n_docs)
        se = np.zeros(n_docs)
        counter = np.zeros(1, dtype=np.int64)
        for _ in prange(n_workers):  # one loop a thread, each taking the next document in order
            i = next_item(counter)
            while i < n_docs:
                d = order[i]
                words = tokens[offsets[d]:offsets[d + 1]]
                if not (stop_requested(stop) or words.shape[0] <= score_from[d]):
                    est[d], se[d] = _document(method, words, score_from[d], phi_t, alpha, size, second, third,
                                              betas, _stream(seed, d), stop)
                i = next_item(counter)
        return est, se

    return kernel


#: The kernel of each estimator, by its code (:data:`LEFT_TO_RIGHT` ... :data:`CHIB`, :data:`_FILTERED`).
_KERNELS = tuple(_kernel(code) for code in (LEFT_TO_RIGHT, IMPORTANCE, HARMONIC, ANNEALED, CHIB, _FILTERED))


def estimate(method, tokens, offsets, score_from, phi_t, alpha, size, second, third, betas, seed, stop):
    """Per-document held-out estimates by one estimator, documents in parallel (module docstring).

    A Python function that calls the compiled kernel of ``method`` (:func:`_kernel`; left-to-right
    with SMC filters, ``third > 0``, has its own, :data:`_FILTERED`).

    Document ``d`` draws from stream ``(seed, d)`` (:func:`_stream`), so the result does not
    depend on the number of threads, nor on the order the documents are taken in (longest first:
    :func:`tealeaves._threads.longest_first`).  The sizes of each ``method``:

    ========================  ============  ==============  ===========  =============
    ``method``                ``size``      ``second``      ``third``    ``betas``
    ========================  ============  ==============  ===========  =============
    :data:`LEFT_TO_RIGHT`     particles     resample (0/1)  SMC filters  unused
    :data:`IMPORTANCE`        prior draws   unused          unused       unused
    :data:`HARMONIC`          Gibbs draws   burn-in sweeps  unused       unused
    :data:`ANNEALED`          chains        unused          unused       temperatures
    :data:`CHIB`              states        chains          burn-in      unused
    ========================  ============  ==============  ===========  =============

    Parameters
    ----------
    method : int
        The estimator (:data:`LEFT_TO_RIGHT` ... :data:`CHIB`).
    tokens : numpy.ndarray
        The corpus's word ids, documents one after another (int array).
    offsets : numpy.ndarray
        ``D + 1`` offsets: document ``d`` is ``tokens[offsets[d]:offsets[d + 1]]``.
    score_from : numpy.ndarray
        ``D`` first positions scored (left-to-right document completion; 0 scores the whole
        document, and every other method scores whole documents).
    phi_t : numpy.ndarray
        The ``V x K`` transposed topics, ``phi_t[w, k] = phi_{k,w}`` (float64, contiguous).
    alpha : numpy.ndarray
        The ``K`` Dirichlet parameters.
    size, second, third : int
        The method's sizes (table above).
    betas : numpy.ndarray
        AIS's inverse temperatures from 0 to 1 (any float array for the other methods).
    seed : int
        The seed every document's stream derives from (``0 <= seed < 2**63``).
    stop : numpy.ndarray
        The stop flag (:mod:`tealeaves._interrupt`): the kernel returns early, unfinished, once set.

    Returns
    -------
    est : numpy.ndarray
        ``D`` per-document log estimates (0 for a document with nothing to score).
    se : numpy.ndarray
        ``D`` standard errors (NaN where they cannot be estimated, always for the harmonic
        mean; 0 for a document with nothing to score).
    """
    code = _FILTERED if method == LEFT_TO_RIGHT and third > 0 else method
    order = longest_first(np.diff(offsets))
    # the thread count is read here: numba cannot cache a kernel that calls get_num_threads itself
    return _KERNELS[code](tokens, offsets, order, get_num_threads(), score_from, phi_t, alpha, size, second,
                          third, betas, seed, stop)


def on_threads(n_threads: int):
    """:func:`estimate` as a Python callable that runs on ``n_threads`` threads, documents dealt one by one.

    numba's thread count is per calling thread, so it is set inside the call, which
    :func:`tealeaves._interrupt.call` makes from its helper thread.  Each thread takes the next
    document as it finishes one (:func:`tealeaves._compiled.next_item`), longest first
    (:func:`tealeaves._threads.longest_first`): costs differ by orders of magnitude, and numba's own
    schedule gives each thread an equal contiguous block of the documents, which left one thread
    working alone at the end (1.69x on 2 threads for left-to-right on the Reuters test stories).
    Which thread takes a document does not change its numbers.

    Parameters
    ----------
    n_threads : int
        Threads (resolved by :func:`tealeaves._threads.resolve_threads`).

    Returns
    -------
    callable
        Takes :func:`estimate`'s arguments and returns its result.
    """
    from tealeaves._threads import numba_threads

    def run(*args):
        with parallel_turn(), numba_threads(n_threads):
            return estimate(*args)

    run.__name__ = "estimate"
    return run
