"""One Gibbs chain on several threads: the approximate distributed sampler (AD-LDA) of Newman et al. 2009.

The segments (:mod:`tealeaves.models._pltm_kernels`'s layout) are split into ``n_threads *
n_rounds`` blocks of whole rows, balanced by tokens (``parts``); thread ``p`` owns blocks ``p *
n_rounds`` to ``(p + 1) * n_rounds - 1`` and a sweep is ``n_rounds`` rounds, round ``r`` sampling every
thread's ``r``-th block.  In a round each thread copies the shared word-topic and language-topic
counts (a snapshot), samples its block against the copy with the serial kernel (its rows of
``n_rk`` and its tokens of ``z`` are its own), and the copies' changes (each thread's deltas) are then
summed into the shared counts: the scheme of MALLET's ``ParallelTopicModel`` and tomotopy.  Within a
round a thread does not see the other threads' moves, so the chain is not the serial one; it is the
same for a given seed and thread count on any machine, whichever thread runs a block (each piece of a
block draws from its own stream, :func:`stream_seed`).

The threads are plain threads (:func:`tealeaves._threads.run_parts`) running GIL-free kernels, not
a numba ``prange``: with numba's OpenMP layer the threads that had finished their part kept spinning
after each of a sweep's parallel regions (eight a sweep), and each thread's copy of the
language-topic counts shared a cache line with the others' (written at every move): on 2 cores the
parallel chain took three times the serial chain's CPU time (docs/models-gibbs.md).  Each thread's
copy of the language-topic counts is now its own allocation, written back once at the end of its block.
"""

from __future__ import annotations

import numba
import numpy as np

from tealeaves._compiled import stop_requested
from tealeaves._threads import run_parts
from tealeaves.models._pltm_kernels import _GAMMA, _mix64, _serial_dense, _serial_sparse

#: A thread samples its segments in pieces of about this many tokens, reading the stop flag between
#: two pieces (a fraction of a millisecond each); each piece draws from its own stream (:func:`stream_seed`).
PIECE_TOKENS = 1 << 14


@numba.njit(cache=True, inline="always")
def stream_seed(seed, thread, piece):
    """The seed of piece ``piece`` of thread ``thread`` in the sweep seeded with ``seed`` (63 bits).

    Two rounds of :func:`_mix64` over ``seed``, the thread and the piece (each added as a multiple of
    SplitMix64's increment), so the streams of a sweep are those of unrelated SplitMix64 seeds and
    depend on the seed, the sweep (through ``seed``), the thread index and the piece only, never on
    which pool thread runs the work.

    Parameters
    ----------
    seed : int
        The sweep's seed (non-negative).
    thread, piece : int
        The partition (0 to ``n_threads - 1``) and the piece of it, from 0.

    Returns
    -------
    int
        A non-negative int64 seed for :func:`_splitmix64`.
    """
    x = _mix64(np.uint64(seed) + _GAMMA * np.uint64(thread + 1))
    x = _mix64(x + _GAMMA * np.uint64(piece + 1))
    return np.int64(x >> np.uint64(1))


@numba.njit(cache=True, nogil=True)
def _pieces(seg_start, lo, hi):
    """Boundaries of the pieces of segments ``lo`` to ``hi - 1``: about :data:`PIECE_TOKENS` tokens, one
    segment or more each (``[lo, ..., hi]``; just ``[lo]`` when the range is empty)."""
    bounds = np.empty(max(hi - lo, 0) + 1, dtype=np.int64)
    bounds[0] = lo
    n = 0
    s = lo
    while s < hi:
        e = s + 1
        while e < hi and seg_start[e] - seg_start[s] < PIECE_TOKENS:
            e += 1
        n += 1
        bounds[n] = e
        s = e
    return bounds[: n + 1]


@numba.njit(cache=True, nogil=True)
def _copy(src, dst):
    """``dst[:] = src`` for two 1-D arrays of the same length, as a loop (cheap to compile: ``_compiled``)."""
    for i in range(len(src)):
        dst[i] = src[i]


@numba.njit(cache=True, nogil=True)
def _copy_rows(src, dst):
    """``dst[:] = src`` for two 2-D arrays of the same shape, row by row (:func:`_copy`)."""
    for i in range(src.shape[0]):
        _copy(src[i], dst[i])


@numba.njit(cache=True, nogil=True)
def sparse_block(p, parts, n_rounds, round_, seg_start, seg_lang, seg_row, z, n_lk, n_rk, alpha, beta,
                 beta_sum, span, packed, bits, seed, reset, used, packed_t, used_t, n_lk_t, stop):
    """Thread ``p``'s part of a round of :func:`parallel_sparse_sweep`: copy, then sample its block.

    The shared packed lists and used cells are copied into ``packed_t[p]`` and ``used_t[p]``, the
    language-topic counts into a private array (written to ``n_lk_t[p]`` at the end), and the
    block's pieces are sampled by :func:`~tealeaves.models._pltm_kernels.sparse_sweep_spans`, each
    from its own stream, reading the stop flag between pieces.

    Parameters
    ----------
    p : int
        The thread's index (0 to ``n_threads - 1``).
    parts, n_rounds, round_, seg_start, seg_lang, seg_row, z, n_lk, n_rk, alpha, beta, beta_sum
        As in :func:`parallel_sparse_sweep` (``n_lk`` is only read).
    span, packed, bits, seed, reset, used, packed_t, used_t, n_lk_t, stop
        As in :func:`parallel_sparse_sweep` (``packed`` and ``used`` are only read; ``packed_t[p]``,
        ``used_t[p]`` and ``n_lk_t[p]`` are written).
    """
    block = p * n_rounds + round_
    _copy(packed, packed_t[p])
    _copy(used, used_t[p])
    own = n_lk.copy()  # a private allocation: the threads' counts share no cache line
    bounds = _pieces(seg_start, parts[block], parts[block + 1])
    for piece in range(len(bounds) - 1):
        if stop_requested(stop):
            break
        s, e = bounds[piece], bounds[piece + 1]
        _serial_sparse(seg_start[s : e + 1], seg_lang[s:e], seg_row[s:e], z, own, n_rk, alpha, beta, beta_sum,
                       span, packed_t[p], bits, stream_seed(seed, block, piece), reset, used_t[p])
    _copy_rows(own, n_lk_t[p])


@numba.njit(cache=True, nogil=True)
def dense_block(p, parts, n_rounds, round_, tokens, seg_start, seg_lang, seg_row, z, n_wk, n_lk, n_rk, alpha,
                beta, beta_sum, seed, n_wk_t, n_lk_t, stop):
    """Thread ``p``'s part of a round of :func:`parallel_gibbs_sweep` (:func:`sparse_block`, dense sampler).

    Parameters
    ----------
    p : int
        The thread's index (0 to ``n_threads - 1``).
    parts, n_rounds, round_, tokens, seg_start, seg_lang, seg_row, z, n_wk, n_lk, n_rk, alpha, beta, beta_sum
        As in :func:`parallel_gibbs_sweep` (``n_wk`` and ``n_lk`` are only read).
    seed, n_wk_t, n_lk_t, stop
        As in :func:`parallel_gibbs_sweep` (``n_wk_t[p]`` and ``n_lk_t[p]`` are written).
    """
    block = p * n_rounds + round_
    _copy_rows(n_wk, n_wk_t[p])
    own = n_lk.copy()
    bounds = _pieces(seg_start, parts[block], parts[block + 1])
    for piece in range(len(bounds) - 1):
        if stop_requested(stop):
            break
        s, e = bounds[piece], bounds[piece + 1]
        _serial_dense(tokens, seg_start[s : e + 1], seg_lang[s:e], seg_row[s:e], z, n_wk_t[p], own, n_rk,
                      alpha, beta, beta_sum, stream_seed(seed, block, piece), True)
    _copy_rows(own, n_lk_t[p])


@numba.njit(cache=True, nogil=True)
def merge_word_lists(packed, used, word_start, bits, packed_t, used_t, lo, hi):
    """Merge the threads' packed topic lists of words ``lo`` to ``hi - 1`` into the shared ones, in place.

    Each word's count of topic ``k`` becomes ``n + sum_t (n_t - n)`` (``n`` its shared count before
    the sweep, ``n_t`` thread ``t``'s after), the merge of AD-LDA's local count deltas; the list
    keeps its topics that stay non-zero in their order, then the new ones in thread and cell
    order, and ``used`` is updated.

    Parameters
    ----------
    packed, used : numpy.ndarray
        The shared packed lists (:func:`build_word_topics`) and each word's used cells (updated in place).
    word_start, bits : numpy.ndarray, int
        Each word's first cell (``V + 1`` offsets) and the topic bits of a cell.
    packed_t, used_t : numpy.ndarray
        Every thread's lists and used cells after its sweep (``n_threads x`` the shared shapes).
    lo, hi : int
        The words to merge.
    """
    n_parts = packed_t.shape[0]
    n_topics = np.int64(1) << bits
    mask = n_topics - 1
    total = np.zeros(n_topics, dtype=np.int64)
    seen = np.zeros(n_topics, dtype=np.bool_)
    order = np.empty(n_topics, dtype=np.int64)
    for w in range(lo, hi):
        start = word_start[w]
        m = 0
        for j in range(used[w]):
            cell = np.int64(packed[start + j])
            k = cell & mask
            total[k] = -(n_parts - 1) * (cell >> bits)
            seen[k] = True
            order[m] = k
            m += 1
        for t in range(n_parts):
            for j in range(used_t[t, w]):
                cell = np.int64(packed_t[t, start + j])
                k = cell & mask
                if not seen[k]:
                    seen[k] = True
                    total[k] = 0
                    order[m] = k
                    m += 1
                total[k] += cell >> bits
        n = 0
        for j in range(m):
            k = order[j]
            if total[k] > 0:
                packed[start + n] = (total[k] << bits) | k
                n += 1
            seen[k] = False
        for j in range(n, used[w]):
            packed[start + j] = 0
        used[w] = n


@numba.njit(cache=True, nogil=True)
def _merge_counts(shared, copies, lo, hi):
    """Rows ``lo`` to ``hi - 1`` of ``shared`` become ``shared + sum_t (copies[t] - shared)``: the merge
    of the threads' count deltas (in place)."""
    n_parts = copies.shape[0]
    for i in range(lo, hi):
        for k in range(shared.shape[1]):
            acc = -(n_parts - 1) * np.int64(shared[i, k])
            for t in range(n_parts):
                acc += copies[t, i, k]
            shared[i, k] = acc


def _round(n_parts, sample, merge, n_words, n_lk, n_lk_t, stop) -> None:
    """One round on ``n_parts`` threads: ``sample(p)``, ``merge(lo, hi)`` by blocks of words, then ``n_lk``.

    Nothing is merged when the stop flag was set (the sweep is dropped).
    """
    run_parts(sample, n_parts)
    if stop[0]:
        return
    run_parts(lambda p: merge(n_words * p // n_parts, n_words * (p + 1) // n_parts), n_parts)
    _merge_counts(n_lk, n_lk_t, 0, n_lk.shape[0])


def parallel_sparse_sweep(parts, n_rounds, round_, seg_start, seg_lang, seg_row, z, n_lk, n_rk, alpha, beta,
                          beta_sum, span, word_start, packed, bits, seed, reset, used, packed_t, used_t,
                          n_lk_t, stop) -> None:
    """One round of an AD-LDA sweep (Newman, Asuncion, Smyth and Welling 2009), SparseLDA in each thread.

    Every thread samples its ``round_``-th block (:func:`sparse_block`, the module docstring) at
    the same time, then the copies' changes are summed into the shared lists
    (:func:`merge_word_lists`, by blocks of words on every thread) and language-topic counts.  The
    stop flag is read between pieces (:data:`PIECE_TOKENS`); a stopped sweep leaves the counts
    unmerged and is never used.

    Parameters
    ----------
    parts : numpy.ndarray
        ``n_threads * n_rounds + 1`` segment boundaries of the blocks.
    n_rounds, round_ : int
        The rounds of a sweep, and this call's (0 to ``n_rounds - 1``).
    seg_start, seg_lang, seg_row, z, n_lk, n_rk, alpha, beta, beta_sum, span, packed, bits, reset, used
        As in :func:`~tealeaves.models._pltm_kernels.sparse_sweep_spans` (the shared state, updated in place).
    word_start : numpy.ndarray
        Each word's first cell (``V + 1`` offsets, :func:`~tealeaves.models._pltm_kernels.word_lists`).
    seed : int
        The sweep's seed (each thread's streams are derived from it by :func:`stream_seed`).
    packed_t, used_t, n_lk_t : numpy.ndarray
        Scratch for every thread's copies: ``n_threads x len(packed)``, ``n_threads x V`` and
        ``n_threads x L x K``.
    stop : numpy.ndarray
        The stop flag (:func:`tealeaves._interrupt.flag`).
    """
    def sample(p):
        sparse_block(p, parts, n_rounds, round_, seg_start, seg_lang, seg_row, z, n_lk, n_rk, alpha, beta,
                     beta_sum, span, packed, bits, seed, reset, used, packed_t, used_t, n_lk_t, stop)

    def merge(lo, hi):
        merge_word_lists(packed, used, word_start, bits, packed_t, used_t, lo, hi)

    _round(len(packed_t), sample, merge, len(word_start) - 1, n_lk, n_lk_t, stop)


def parallel_gibbs_sweep(parts, n_rounds, round_, tokens, seg_start, seg_lang, seg_row, z, n_wk, n_lk, n_rk,
                         alpha, beta, beta_sum, seed, n_wk_t, n_lk_t, stop) -> None:
    """One round of an AD-LDA sweep (Newman et al. 2009, :func:`parallel_sparse_sweep`), the dense sampler.

    Every thread samples its block against its copy of ``n_wk`` and ``n_lk`` (:func:`dense_block`),
    then the copies' changes are summed into the shared counts, by blocks of words on every thread.

    Parameters
    ----------
    parts : numpy.ndarray
        ``n_threads * n_rounds + 1`` segment boundaries of the blocks.
    n_rounds, round_ : int
        The rounds of a sweep, and this call's.
    tokens, seg_start, seg_lang, seg_row, z, n_wk, n_lk, n_rk, alpha, beta, beta_sum
        As in :func:`~tealeaves.models._pltm_kernels.gibbs_sweep` (the shared state, updated in place).
    seed : int
        The sweep's seed.
    n_wk_t, n_lk_t : numpy.ndarray
        Scratch for every thread's copies: ``n_threads x V x K`` and ``n_threads x L x K``.
    stop : numpy.ndarray
        The stop flag, read between pieces of :data:`PIECE_TOKENS` tokens.
    """
    def sample(p):
        dense_block(p, parts, n_rounds, round_, tokens, seg_start, seg_lang, seg_row, z, n_wk, n_lk, n_rk,
                    alpha, beta, beta_sum, seed, n_wk_t, n_lk_t, stop)

    def merge(lo, hi):
        _merge_counts(n_wk, n_wk_t, lo, hi)

    _round(len(n_wk_t), sample, merge, n_wk.shape[0], n_lk, n_lk_t, stop)
