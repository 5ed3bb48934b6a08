"""One Gibbs chain on several threads: documents and words partitioned, only the topic totals shared.

The scheme of Yan, Xu and Qi (2009, "Parallel inference for latent Dirichlet allocation on graphics
processing units") that tomotopy uses (``ParallelScheme.PARTITION``): the rows (documents, with the
linked sides of a tuple together) are split into ``P`` ranges balanced by tokens, the words into
``P`` groups balanced by sampling cost (each range and group many runs of consecutive ids from the
whole order: :func:`snake_groups`), and a sweep is ``P`` phases; block ``(r, q)`` (row range ``r``,
word group ``q``) is sampled in phase ``(q - r) mod P``, by thread ``q``: each thread keeps one word
group and the row ranges pass from thread to thread.  Within a phase no two threads
touch the same word (so the same packed topic list or row of ``n_wk``) or the same row of
``n_rk``, and every thread sees the exact word-topic and row-topic counts; only the language-topic
totals ``n_lk`` are shared, so each thread samples against a snapshot of them plus its own changes
(AD-LDA's rule, Newman et al. 2009, for these ``L x K`` counts alone), and the threads' changes are
summed at the end of each phase (:func:`_merge_counts`).  The chain differs from the serial one only
through those totals, which move by a few tokens in counts of thousands; it is the same for a given
seed and thread count on any machine (each piece of a block draws from its own stream,
:func:`stream_seed`), and it does not depend on which thread samples a block.

Why the words stay and the rows move: a token's word is looked up at random in the packed topic
lists, its row is read in order, so the lists are the data worth keeping in one core's cache.  Giving
each thread a row range instead (the words passing from thread to thread) is the same chain, and
took 1.5-4% longer a sweep (GibbsLDA, Reuters, K = 20 and 80, 2 threads, interleaved).

The tokens are reordered once (:func:`plan`): by row range, then word group, then segment, so that
each block ``(r, q)`` is a run of consecutive *sub-segments* (the tokens of one segment in one word
group) that the serial kernels sample unchanged.  The chain's topics stay in that order between
sweeps; :func:`chain_order` puts them back in the chain's own order when the chain ends (a scatter
of every token, which every sweep paid before: about 0.2 ms of a 15 ms sweep).

The threads are plain threads (:func:`tealeaves._threads.run_parts`) running GIL-free kernels, not
a numba ``prange``: with numba's OpenMP layer the threads that had finished their part kept spinning
after each parallel region, and a region started from a new thread (each call's helper thread) got
a new team of threads (docs/models-gibbs.md).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from tealeaves._compiled import ABORTED, barrier_wait, new_barrier, stop_requested
from tealeaves._threads import part_pool, run_parts
from tealeaves.models._pltm_kernels import _GAMMA, CHUNK, _mix64, _serial_dense, _serial_sparse

#: A thread samples its segments in pieces of about this many tokens, reading the stop flag between
#: two pieces (5-10 ms each); each piece draws from its own stream (:func:`stream_seed`).  Each piece is
#: one call of the serial kernel, which increments and decrements the reference count of every array
#: it is given; the threads share those arrays, so each count is one cache line passed between the
#: cores at every call.  With pieces of 16,384 tokens these calls took 9% of both threads' time
#: (``perf``: numba's ``NRT_incref``/``NRT_decref``) and a 2-thread sweep 14 ms; with 262,144, 12 ms
#: (GibbsLDA, Reuters, K = 20; the serial sweep 17-20 ms).
PIECE_TOKENS = 1 << 18


@numba.njit(cache=True, inline="always")
def block_of(p, phase, n_parts):
    """The block ``r * n_parts + p`` that thread ``p`` samples in phase ``phase``: its word group ``p``
    in row range ``r = (p - phase) mod n_parts`` (the module docstring).

    Parameters
    ----------
    p, phase, n_parts : int
        The thread (its word group), the phase and the thread count P.

    Returns
    -------
    int
        The block's index in :class:`Plan`'s ``block_seg``.
    """
    return ((p - phase) % n_parts) * n_parts + p


@numba.njit(cache=True, inline="always")
def stream_seed(seed, thread, piece):
    """The seed of piece ``piece`` of block ``thread`` in the sweep seeded with ``seed`` (63 bits).

    Two rounds of :func:`_mix64` over ``seed``, the thread and the piece (each added as a multiple of
    SplitMix64's increment), so the streams of a sweep are those of unrelated SplitMix64 seeds and
    depend on the seed, the sweep (through ``seed``), the block and the piece only, never on which
    pool thread runs the work.

    Parameters
    ----------
    seed : int
        The sweep's seed (non-negative).
    thread, piece : int
        The block (:func:`plan`: ``r * n_threads + q``) and the piece of it, from 0.

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
def _merge_counts(base, copies):
    """``base`` becomes ``base + sum_t (copies[t] - base)``: the merge of the threads' count deltas
    (in place; exact, in integers, so every thread that merges the same copies gets the same totals)."""
    n_parts = copies.shape[0]
    for i in range(base.shape[0]):
        for k in range(base.shape[1]):
            acc = -(n_parts - 1) * np.int64(base[i, k])
            for t in range(n_parts):
                acc += copies[t, i, k]
            base[i, k] = acc


class Plan(NamedTuple):
    """The partitioned token order of a chain on ``n_threads`` threads (:func:`plan`).

    Parameters
    ----------
    n_threads : int
        The threads P.
    perm : numpy.ndarray
        The token order: position ``i`` of the reordered tokens is the chain's token ``perm[i]``.
    seg_start, seg_lang, seg_row : numpy.ndarray
        The sub-segments over the reordered tokens (``S + 1`` starts, languages, rows).
    block_seg : numpy.ndarray
        ``P * P + 1`` sub-segment boundaries of the blocks ``r * P + q`` (row range ``r``, word group ``q``).
    """

    n_threads: int
    perm: np.ndarray
    seg_start: np.ndarray
    seg_lang: np.ndarray
    seg_row: np.ndarray
    block_seg: np.ndarray


#: The cost of a sparse sampler's token beside that of one chunk of its word's topic list (the
#: vectorised pass reads :data:`~tealeaves.models._pltm_kernels.CHUNK` cells at a time): its draw,
#: loads and book-keeping (:func:`word_groups`).
FIXED_COST = 5

#: Each word group and each row range is made of this many runs of consecutive ids per thread
#: (:func:`snake_groups`).
RUNS_PER_GROUP = 64


def snake_groups(sizes: np.ndarray, n_groups: int) -> np.ndarray:
    """Each item's group, ``0`` to ``n_groups - 1``, with about equal total sizes per group.

    The items, in their order, are cut into ``RUNS_PER_GROUP * n_groups`` runs of consecutive items
    of about equal total size, dealt to the groups in a snake order (``0, 1, ..., G - 1, G - 1,
    ..., 0, 0, ...``); an item goes to the run in which its middle lies (so that an item larger
    than others moves the cut as often forward as back).  Runs of consecutive items,
    because the data of neighbouring items (a word's packed topic list and used cells, a row's
    counts) share cache lines: two threads writing items of one line would pass it to and fro;
    many runs, so that each group mixes items from every part of the order, whose cost per token
    differs (a word's grows with its list when ids follow frequency; rows' with their topics when
    the documents come in an order, by date or by source).

    Parameters
    ----------
    sizes : numpy.ndarray
        Each item's size (tokens).
    n_groups : int
        The number of groups.

    Returns
    -------
    numpy.ndarray
        One group number per item (int64).
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    middle = 2 * np.cumsum(sizes) - sizes  # twice the position of each item's middle
    n_runs = RUNS_PER_GROUP * n_groups
    run = middle * n_runs // max(2 * int(sizes.sum()), 1)
    lap, place = np.divmod(run, n_groups)
    return np.where(lap % 2 == 0, place, n_groups - 1 - place).astype(np.int64)


def word_groups(tokens: np.ndarray, n_words: int, n_groups: int, list_topics: int = 0) -> np.ndarray:
    """Each word's group, with about equal sampling cost per group (:func:`snake_groups` of the ids).

    A word's cost is its tokens times their cost: the same for every token with the dense sampler
    (``list_topics`` 0); with the sparse one, :data:`FIXED_COST` plus one per :data:`CHUNK` cells of
    the word's topic list, which holds at most ``min(tokens, K)`` topics.  Balanced by tokens alone,
    the groups' sweeps differed by up to 5% on the Reuters training stories at K = 80 (8 of the 10
    commonest words fell in one group), and the other thread waited at every barrier.

    Parameters
    ----------
    tokens : numpy.ndarray
        Every token's (global) word id.
    n_words, n_groups : int
        The number of words V and of groups.
    list_topics : int, default 0
        The sparse sampler's K (0: the dense sampler).

    Returns
    -------
    numpy.ndarray
        ``V`` group numbers (int64).
    """
    freq = np.bincount(tokens, minlength=n_words).astype(np.int64)
    if list_topics > 0:
        freq = freq * (FIXED_COST + -(-np.minimum(freq, list_topics) // CHUNK))
    return snake_groups(freq, n_groups)


def row_parts(seg_start: np.ndarray, seg_row: np.ndarray, n_parts: int) -> np.ndarray:
    """Each segment's row range, with about equal numbers of tokens per range (:func:`snake_groups` of
    the rows); a row's segments (the linked sides of a tuple) are all in its range.

    Before, the ranges were ``P`` contiguous runs of rows.  A corpus in some order (by date, by
    source, long documents last) can give one run a different cost per token than another, and the
    threads wait at every barrier for that difference; runs from the whole order make the ranges
    alike.  (On the Reuters training stories the two contiguous halves happened to cost the same:
    4.44-4.46 ms a block in either half for one word group, 4.32-4.33 ms for the other, run one
    after the other on one thread.)

    Parameters
    ----------
    seg_start, seg_row : numpy.ndarray
        The segments' starts (``S + 1``) and rows.
    n_parts : int
        The threads P.

    Returns
    -------
    numpy.ndarray
        ``S`` range numbers (int64).
    """
    if len(seg_row) == 0:
        return np.zeros(0, dtype=np.int64)
    row_tokens = np.bincount(seg_row, weights=np.diff(seg_start), minlength=int(seg_row.max()) + 1)
    return snake_groups(row_tokens.astype(np.int64), n_parts)[seg_row]


def plan(tokens, seg_start, seg_lang, seg_row, n_parts: int, n_words: int, list_topics: int = 0) -> Plan:
    """The token order and blocks of a chain on ``n_parts`` threads (module docstring).

    Parameters
    ----------
    tokens, seg_start, seg_lang, seg_row : numpy.ndarray
        The segments of :mod:`tealeaves.models._pltm_kernels` (over the tokens in their own order).
    n_parts : int
        The threads P: the rows are split into ``P`` ranges (:func:`row_parts`), the words into ``P``
        groups (:func:`word_groups`).
    n_words : int
        The number of words V.
    list_topics : int, default 0
        The sparse sampler's K, or 0 for the dense sampler (:func:`word_groups`).

    Returns
    -------
    Plan
        The permutation, the sub-segments over the reordered tokens and the blocks.
    """
    n_seg = len(seg_lang)
    seg_of = np.repeat(np.arange(n_seg), np.diff(seg_start))
    part_of = row_parts(seg_start, seg_row, n_parts)
    group = word_groups(tokens, n_words, n_parts, list_topics)[tokens]
    perm = np.lexsort((seg_of, group, part_of[seg_of])).astype(np.int64)  # stable: keeps the token order
    seg, grp = seg_of[perm], group[perm]
    first = np.flatnonzero(np.r_[True, (seg[1:] != seg[:-1]) | (grp[1:] != grp[:-1])]) if len(perm) else perm
    block = part_of[seg[first]] * n_parts + grp[first]
    block_seg = np.searchsorted(block, np.arange(n_parts * n_parts + 1)).astype(np.int64)
    return Plan(n_parts, perm, np.r_[first, len(perm)].astype(np.int64), seg_lang[seg[first]],
                seg_row[seg[first]], block_seg)


@numba.njit(cache=True, nogil=True)
def partition_block(p, phase, block_seg, seg_start, seg_lang, seg_row, z, n_lk, n_rk, alpha, beta, beta_sum,
                    seed, n_lk_t, stop, dense, tokens, n_wk, span, packed, bits, reset, used):
    """Thread ``p``'s part of phase ``phase`` of :func:`parallel_sweep`: its word group in a row range.

    The block ``(r, p)``, ``r = (p - phase) mod P``, is sampled in pieces (:data:`PIECE_TOKENS`) by
    the serial sweep (:func:`~tealeaves.models._pltm_kernels.gibbs_sweep` when ``dense``, else
    :func:`~tealeaves.models._pltm_kernels.sparse_sweep_spans`) against a private copy of ``n_lk``
    (the totals merged after the previous phase), written to ``n_lk_t[p]`` at the end.

    Parameters
    ----------
    p, phase : int
        The thread, which is also its word group (0 to ``P - 1``), and the phase.
    block_seg, seg_start, seg_lang, seg_row : numpy.ndarray
        The :class:`Plan`'s arrays.
    z, n_lk, n_rk, alpha, beta, beta_sum, seed, n_lk_t, stop, dense
        As in :func:`parallel_sweep` (``n_lk`` the thread's merged totals, only read; ``n_lk_t`` this
        phase's half of the scratch).
    tokens, n_wk, span, packed, bits, reset, used
        The dense sampler's word ids (plan order) and counts, or the sparse sampler's spans (plan
        order), packed lists, topic bits, reset and used cells (:func:`parallel_sweep`).
    """
    n_parts = n_lk_t.shape[0]
    block = block_of(p, phase, n_parts)
    own = n_lk.copy()  # a private allocation: the threads' totals share no cache line
    bounds = _pieces(seg_start, block_seg[block], block_seg[block + 1])
    for piece in range(len(bounds) - 1):
        if stop_requested(stop):
            return
        s, e = bounds[piece], bounds[piece + 1]
        if dense:
            _serial_dense(tokens, seg_start[s : e + 1], seg_lang[s:e], seg_row[s:e], z, n_wk, own, n_rk,
                          alpha, beta, beta_sum, stream_seed(seed, block, piece), True)
        else:
            _serial_sparse(seg_start[s : e + 1], seg_lang[s:e], seg_row[s:e], z, own, n_rk, alpha, beta,
                           beta_sum, span, packed, bits, stream_seed(seed, block, piece), reset, used)
    _copy_rows(own, n_lk_t[p])


def chain_order(plan_: Plan, z: np.ndarray, z_out: np.ndarray) -> None:
    """Write the topics ``z`` (in the plan's token order) to ``z_out`` in the chain's own order.

    Parameters
    ----------
    plan_ : Plan
        The chain's plan (:func:`plan`).
    z : numpy.ndarray
        Each token's topic in the plan's order.
    z_out : numpy.ndarray
        The same topics in the chain's order (written: ``z_out[plan_.perm] = z``).
    """
    z_out[plan_.perm] = z


@numba.njit(cache=True, nogil=True)
def sweep_part(p, block_seg, seg_start, seg_lang, seg_row, z, n_lk, n_rk, alpha, beta, beta_sum, seed,
               n_lk_t, sync, stop, dense, tokens, n_wk, span, packed, bits, reset, used):
    """Thread ``p``'s whole part of a sweep: its ``P`` blocks, a barrier and a merge after each.

    After the barrier of a phase every thread merges that phase's ``P`` copies of the totals into
    its own (:func:`_merge_counts`: exact integers, so all threads hold the same totals); the copies
    alternate between the two halves of ``n_lk_t``, so a thread that starts the next phase early never
    overwrites copies another thread is still merging.  Thread 0 writes the totals to ``n_lk`` after
    the last barrier (every thread copied ``n_lk`` before its first).  A stopped sweep still passes
    every barrier (its blocks return at once), so no thread waits for one that left.

    Parameters
    ----------
    p : int
        The thread, which is also its word group.
    block_seg, seg_start, seg_lang, seg_row : numpy.ndarray
        The :class:`Plan`'s arrays.
    z, n_lk, n_rk, alpha, beta, beta_sum, seed, n_lk_t, stop, dense
        As in :func:`parallel_sweep`.
    tokens, n_wk, span, packed, bits, reset, used
        As in :func:`parallel_sweep`.
    sync : numpy.ndarray
        The threads' barrier (:func:`tealeaves._compiled.new_barrier`).
    """
    n_parts = n_lk_t.shape[1]
    totals = n_lk.copy()
    for phase in range(n_parts):
        copies = n_lk_t[phase % 2]
        partition_block(p, phase, block_seg, seg_start, seg_lang, seg_row, z, totals, n_rk, alpha, beta,
                        beta_sum, seed, copies, stop, dense, tokens, n_wk, span, packed, bits, reset, used)
        if not barrier_wait(sync, n_parts):
            return
        _merge_counts(totals, copies)
    if p == 0 and not stop_requested(stop):  # a stopped block left no copy: its totals are unfinished
        _copy_rows(totals, n_lk)


def parallel_sweep(plan_, z, n_lk, n_rk, alpha, beta, beta_sum, seed, n_lk_t, dense, tokens, n_wk,
                   span, packed, bits, reset, used, stop, pool=None) -> None:
    """One sweep on ``P`` threads: each runs :func:`sweep_part`, its ``P`` blocks with a barrier after each.

    One compiled call per thread and sweep; the barriers between the phases are compiled too
    (:func:`tealeaves._compiled.barrier_wait`).  With Python's barrier and one call per phase, the
    hand-over between two phases took 0.04-0.09 ms and each call's dispatch of 23 arguments as much
    again (GibbsLDA, Reuters, K = 20, 2 threads, a sweep of 9-11 ms); the chain, a function of the
    blocks' streams and the merged totals only, is the same.

    Parameters
    ----------
    plan_ : Plan
        The chain's token order and blocks (:func:`plan`).
    z : numpy.ndarray
        Each token's topic in the plan's order (int32, updated in place; :func:`chain_order` gives the
        chain's order).
    n_lk, n_rk, alpha, beta, beta_sum : numpy.ndarray
        As in :func:`~tealeaves.models._pltm_kernels.sparse_sweep_spans` (updated in place).
    seed : int
        The sweep's seed (each block's streams derive from it by :func:`stream_seed`).
    n_lk_t : numpy.ndarray
        Scratch for every thread's totals, ``2 x P x L x K``.
    dense : bool
        Sample with the dense kernel (``tokens``, ``n_wk``) rather than the sparse one.
    tokens, n_wk : numpy.ndarray
        The word ids in the plan's order and the word-topic counts (dense sampler; updated in place).
    span, packed, bits, reset, used : numpy.ndarray, numpy.ndarray, int, bool, numpy.ndarray
        The spans in the plan's order, packed lists, topic bits, reset and used cells of
        :func:`~tealeaves.models._pltm_kernels.sparse_sweep_spans` (sparse sampler; updated in place).
    stop : numpy.ndarray
        The stop flag (:func:`tealeaves._interrupt.flag`): a stopped sweep is unfinished, never used.
    pool : concurrent.futures.ThreadPoolExecutor or None
        The chain's own pool of ``P - 1`` threads (:func:`tealeaves._threads.part_pool`); by default
        one is made for this sweep.
    """
    n_parts = plan_.n_threads
    sync = new_barrier()

    def thread(p):
        try:
            sweep_part(p, plan_.block_seg, plan_.seg_start, plan_.seg_lang, plan_.seg_row, z, n_lk, n_rk,
                       alpha, beta, beta_sum, seed, n_lk_t, sync, stop, dense, tokens, n_wk, span, packed,
                       bits, reset, used)
        except BaseException:  # the kernel failed or never started: release the threads waiting for it
            sync[ABORTED] = 1
            raise

    own = part_pool(n_parts) if pool is None else None  # None for one part: it runs in this thread
    try:
        run_parts(thread, n_parts, pool if pool is not None else own)
    finally:
        if own is not None:
            own.shutdown()
