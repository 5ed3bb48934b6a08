"""One Gibbs chain on several threads: documents and words partitioned, only the topic totals shared.

The partition scheme of Yan, Xu and Qi (2009, "Parallel inference for latent Dirichlet allocation on
graphics processing units") that tomotopy uses (``ParallelScheme.PARTITION``), its blocks walked
in a ring: the rows (documents, with the linked sides of a tuple together) are split into
``R = P * S`` ranges balanced by tokens (``S`` = :data:`RANGES_PER_THREAD`), the words into ``P``
groups balanced by sampling cost (each range and group many runs of consecutive ids from the whole
order: :func:`snake_groups`).  Thread ``q`` keeps word group ``q`` and samples, in each sweep, block
``(r, q)`` of every range ``r``, range ``(s + q S) mod R`` at its step ``s`` (:func:`range_of`): the
threads walk the ranges in a ring, ``S`` steps apart.  No two threads touch the same word (so the
same packed topic list or row of ``n_wk``); a range's blocks are sampled one after another in a fixed
order each sweep, a thread waiting only for the threads before it on that range (:func:`_wait_turn`,
point to point), so no two touch the same row of ``n_rk`` at once, every thread sees the exact
word-topic and row-topic counts, and a thread may run up to ``S - 1`` blocks ahead of another
(where a barrier after each of ``P`` phases made the faster thread wait for the slower at every
phase: 0.45-0.9 ms of a 5 ms phase on average, GibbsLDA, Reuters, K = 20).

Only the language-topic totals ``n_lk`` are shared: each thread samples against its own view of
them (AD-LDA's rule, Newman et al. 2009, for these ``L x K`` counts alone): its own changes at once,
the others' up to the end of the previous sweep from its step ``(P - 1) S`` on, by which every other
thread has finished that sweep (:func:`_take_others`).  The views are exact integers, a function of
the blocks alone, so the chain differs from the serial one only through those totals, which lag by
a sweep's moves at most in counts of thousands; it is the same for a given seed and thread count on
any machine (each piece of a block draws from its own stream, :func:`stream_seed`), does not depend
on which thread samples a block, and does not depend on how its sweeps are split into calls of
:func:`parallel_sweeps` (the views carry over in a :class:`Pipeline`).

Why the words stay and the rows move: a token's word is looked up at random in the packed topic
lists, its row is read in order, so the lists are the data worth keeping in one core's cache.  Giving
each thread a row range instead (the words passing from thread to thread) took 1.5-4% longer a
sweep (GibbsLDA, Reuters, K = 20 and 80, 2 threads, interleaved).

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

from tealeaves._compiled import ABORTED, barrier_wait, new_barrier, post, stop_requested, wait_at_least
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
def range_of(q, step, n_ranges, n_parts):
    """The row range that thread ``q`` samples at step ``step`` of a sweep (the module docstring).

    Thread ``q`` starts a sweep at range ``q * S`` (``S = n_ranges / n_parts``) and walks the ranges
    in a ring, so the threads are ``S`` steps apart.

    Parameters
    ----------
    q, step : int
        The thread (its word group, 0 to ``P - 1``) and the step (0 to ``n_ranges - 1``).
    n_ranges, n_parts : int
        The row ranges ``R`` (a multiple of P) and the threads P.

    Returns
    -------
    int
        The row range; the block is ``range * n_parts + q`` in :class:`Plan`'s ``block_seg``.
    """
    return (step + q * (n_ranges // n_parts)) % n_ranges


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
        ``R * P + 1`` sub-segment boundaries of the blocks ``r * P + q`` (row range ``r`` of ``R``,
        word group ``q``).
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

#: The row ranges per thread, ``S``: a thread may run up to ``S - 1`` blocks ahead of another
#: (module docstring).
RANGES_PER_THREAD = 4

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
    n_runs = max(min(RUNS_PER_GROUP * n_groups, len(sizes)), 1)  # more runs than items: empty groups
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
        The threads P: the rows are split into ``R = P *`` :data:`RANGES_PER_THREAD` ranges
        (:func:`row_parts`), the words into ``P`` groups (:func:`word_groups`).
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
    n_ranges = n_parts * RANGES_PER_THREAD
    part_of = row_parts(seg_start, seg_row, n_ranges)
    group = word_groups(tokens, n_words, n_parts, list_topics)[tokens]
    key = part_of[seg_of].astype(np.int64) * n_parts + group  # the block; in a block the token order, so the
    key = key.astype(np.int16 if n_ranges * n_parts <= np.iinfo(np.int16).max else np.int64)  # segments' too
    perm = np.argsort(key, kind="stable").astype(np.int64)  # a radix sort for 16-bit keys
    seg, grp = seg_of[perm], group[perm]
    first = np.flatnonzero(np.r_[True, (seg[1:] != seg[:-1]) | (grp[1:] != grp[:-1])]) if len(perm) else perm
    block = part_of[seg[first]] * n_parts + grp[first]
    block_seg = np.searchsorted(block, np.arange(n_ranges * n_parts + 1)).astype(np.int64)
    return Plan(n_parts, perm, np.r_[first, len(perm)].astype(np.int64), seg_lang[seg[first]],
                seg_row[seg[first]], block_seg)


@numba.njit(cache=True, nogil=True)
def sample_block(block, seed, block_seg, seg_start, seg_lang, seg_row, z, totals, n_rk, alpha, beta, beta_sum,
                 stop, dense, tokens, n_wk, span, packed, bits, reset, used):
    """Sample block ``block`` (row range ``r``, word group ``q``: ``r * P + q``) against ``totals``.

    The block is sampled in pieces (:data:`PIECE_TOKENS`) by the serial sweep
    (:func:`~tealeaves.models._pltm_kernels.gibbs_sweep` when ``dense``, else
    :func:`~tealeaves.models._pltm_kernels.sparse_sweep_spans`), each piece from its own stream
    (:func:`stream_seed`); ``totals`` is the sampling thread's view of ``n_lk`` and takes its moves.

    Parameters
    ----------
    block : int
        The block's index in the plan's ``block_seg``.
    seed : int
        The sweep's seed.
    block_seg, seg_start, seg_lang, seg_row : numpy.ndarray
        The :class:`Plan`'s arrays.
    z, totals, n_rk, alpha, beta, beta_sum, stop, dense
        As in :func:`parallel_sweeps` (``totals`` the thread's ``L x K`` view, updated in place).
    tokens, n_wk, span, packed, bits, reset, used
        The dense sampler's word ids (plan order) and counts, or the sparse sampler's spans (plan
        order), packed lists, topic bits, reset and used cells (:func:`parallel_sweeps`).
    """
    bounds = _pieces(seg_start, block_seg[block], block_seg[block + 1])
    for piece in range(len(bounds) - 1):
        if stop_requested(stop):
            return
        s, e = bounds[piece], bounds[piece + 1]
        if dense:
            _serial_dense(tokens, seg_start[s : e + 1], seg_lang[s:e], seg_row[s:e], z, n_wk, totals, n_rk,
                          alpha, beta, beta_sum, stream_seed(seed, block, piece), True)
        else:
            _serial_sparse(seg_start[s : e + 1], seg_lang[s:e], seg_row[s:e], z, totals, n_rk, alpha, beta,
                           beta_sum, span, packed, bits, stream_seed(seed, block, piece), reset, used)


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




class Pipeline(NamedTuple):
    """What the threads of a chain keep between calls of :func:`parallel_sweeps` (:func:`pipeline`).

    Parameters
    ----------
    base : numpy.ndarray
        The totals ``n_lk`` when the state was made (``L x K``, int64).
    views : numpy.ndarray
        Each thread's totals, ``P x L x K`` (the dtype of ``n_lk``).
    seen : numpy.ndarray
        The other threads' changes each thread has taken into its view, ``P x L x K`` (int64).
    shared : numpy.ndarray
        Each thread's own changes since ``base`` at the end of the last two sweeps, ``2 x P x L x K``
        (int64; sweep ``g`` in slot ``g % 2``).
    progress : numpy.ndarray
        Each thread's finished blocks in the current call, one word every 64 bytes (``8 P``, int64).
    sweeps : numpy.ndarray
        The sweeps done so far (one int64).
    """

    base: np.ndarray
    views: np.ndarray
    seen: np.ndarray
    shared: np.ndarray
    progress: np.ndarray
    sweeps: np.ndarray


def pipeline(n_lk: np.ndarray, n_parts: int) -> Pipeline:
    """A fresh :class:`Pipeline` for a chain whose totals are ``n_lk`` now, on ``n_parts`` threads.

    Parameters
    ----------
    n_lk : numpy.ndarray
        The chain's totals (``L x K``).
    n_parts : int
        The threads P.

    Returns
    -------
    Pipeline
        Every view equal to ``n_lk``, no changes seen or shared, no sweep done.
    """
    return Pipeline(n_lk.astype(np.int64), np.repeat(n_lk[None], n_parts, axis=0),
                    np.zeros((n_parts, *n_lk.shape), np.int64), np.zeros((2, n_parts, *n_lk.shape), np.int64),
                    np.zeros(8 * n_parts, np.int64), np.zeros(1, np.int64))


@numba.njit(cache=True, nogil=True)
def _wait_turn(q, t, step, row_range, n_ranges, n_parts, progress, sync, stop):
    """Wait until thread ``q`` may sample range ``row_range`` at step ``step`` of the call's sweep ``t``.

    Every other thread ``q'`` samples that range at its own step ``s'`` (:func:`range_of`); the
    range's blocks are sampled in the order of those steps, so ``q`` waits until ``q'`` has finished
    its step ``s'`` of this sweep (``s' < step``) or of the previous one (``s' > step``).

    Returns
    -------
    bool
        False when the call was aborted (a thread failed) or stopped.
    """
    per = n_ranges // n_parts
    for other in range(n_parts):
        if other == q:
            continue
        theirs = (row_range - other * per) % n_ranges
        need = t * n_ranges + theirs + 1 - (n_ranges if theirs > step else 0)
        if not wait_at_least(progress, 8 * other, need, sync, stop):
            return False
    return True


@numba.njit(cache=True, nogil=True)
def _take_others(q, sweep, view, seen, shared):
    """Add to thread ``q``'s ``view`` the other threads' changes up to the end of sweep ``sweep - 1``
    that it has not seen yet (``seen``, updated).  Exact integers, so the views are the same on every run."""
    if sweep == 0:
        return
    slot = (sweep - 1) % 2
    for i in range(view.shape[0]):
        for k in range(view.shape[1]):
            total = np.int64(0)
            for other in range(shared.shape[1]):
                if other != q:
                    total += shared[slot, other, i, k]
            view[i, k] += total - seen[i, k]
            seen[i, k] = total


@numba.njit(cache=True, nogil=True)
def sweeps_part(q, seeds, block_seg, seg_start, seg_lang, seg_row, z, n_lk, n_rk, alpha, beta, beta_sum,
                base, views, seen_all, shared, progress, first, sync, stop, dense, tokens, n_wk, span, packed,
                bits, reset, used):
    """Thread ``q``'s part of ``len(seeds)`` sweeps: its word group in every row range, in its ring order.

    At each step the thread waits for the range's earlier blocks (:func:`_wait_turn`), samples its
    block against its own view of the totals (:func:`sample_block`) and counts the step done in
    ``progress`` (release); at step ``(P - 1) S`` of sweep ``g``, when every other thread has
    finished sweep ``g - 1``, it takes their changes to the end of that sweep into its view
    (:func:`_take_others`); at the end of each sweep it shares its own.  After the last sweep a
    barrier, and thread 0 writes the exact totals, ``base`` plus every thread's changes, to ``n_lk``
    (not when stopped: a stopped block left its changes unfinished).

    Parameters
    ----------
    q : int
        The thread, which is also its word group.
    seeds : numpy.ndarray
        The sweeps' seeds.
    block_seg, seg_start, seg_lang, seg_row : numpy.ndarray
        The :class:`Plan`'s arrays.
    z, n_lk, n_rk, alpha, beta, beta_sum, stop, dense, tokens, n_wk, span, packed, bits, reset, used
        As in :func:`parallel_sweeps`.
    base, views, seen_all, shared, progress
        The :class:`Pipeline`'s arrays.
    first : int
        The chain's sweeps before this call (:class:`Pipeline`'s ``sweeps``).
    sync : numpy.ndarray
        The final barrier (:func:`tealeaves._compiled.new_barrier`).
    """
    n_parts = views.shape[0]
    n_ranges = (len(block_seg) - 1) // n_parts
    view = views[q].copy()  # private allocations: the threads' totals share no cache line
    seen = seen_all[q].copy()
    for t in range(len(seeds)):
        sweep = first + t
        for step in range(n_ranges):
            row_range = range_of(q, step, n_ranges, n_parts)
            if not _wait_turn(q, t, step, row_range, n_ranges, n_parts, progress, sync, stop):
                break
            if step == (n_parts - 1) * (n_ranges // n_parts):
                _take_others(q, sweep, view, seen, shared)
            sample_block(row_range * n_parts + q, seeds[t], block_seg, seg_start, seg_lang, seg_row, z,
                         view, n_rk, alpha, beta, beta_sum, stop, dense, tokens, n_wk, span, packed, bits,
                         reset, used)
            if step == n_ranges - 1:
                own = shared[sweep % 2, q]
                for i in range(view.shape[0]):
                    for k in range(view.shape[1]):
                        own[i, k] = view[i, k] - base[i, k] - seen[i, k]
            post(progress, 8 * q, t * n_ranges + step + 1)
    _copy_rows(view, views[q])
    _copy_rows(seen, seen_all[q])
    if not barrier_wait(sync, n_parts) or q != 0 or stop_requested(stop):
        return
    last = (first + len(seeds) - 1) % 2
    for i in range(n_lk.shape[0]):
        for k in range(n_lk.shape[1]):
            total = base[i, k]
            for other in range(n_parts):
                total += shared[last, other, i, k]
            n_lk[i, k] = total


def parallel_sweeps(plan_, state, seeds, z, n_lk, n_rk, alpha, beta, beta_sum, dense, tokens, n_wk, span,
                    packed, bits, reset, used, stop, pool=None) -> None:
    """``len(seeds)`` sweeps on ``P`` threads: each runs :func:`sweeps_part`.

    One compiled call per thread for all the sweeps; the threads wait for one another only where a
    row range passes from one to the next (point to point, :func:`_wait_turn`), and all together once
    at the end.  The chain is the same however its sweeps are split into calls (the views carry over
    in ``state``), so it does not depend on when the fit stops to evaluate or optimise.

    Parameters
    ----------
    plan_ : Plan
        The chain's token order and blocks (:func:`plan`).
    state : Pipeline
        The threads' views (:func:`pipeline`; updated).
    seeds : numpy.ndarray
        The sweeps' seeds (each block's streams derive from its sweep's by :func:`stream_seed`).
    z : numpy.ndarray
        Each token's topic in the plan's order (int32, updated in place; :func:`chain_order` gives the
        chain's order).
    n_lk, n_rk, alpha, beta, beta_sum : numpy.ndarray
        As in :func:`~tealeaves.models._pltm_kernels.sparse_sweep_spans` (updated in place; ``n_lk``
        is written at the end, the exact totals, and read by no thread).
    dense : bool
        Sample with the dense kernel (``tokens``, ``n_wk``) rather than the sparse one.
    tokens, n_wk : numpy.ndarray
        The word ids in the plan's order and the word-topic counts (dense sampler; updated in place).
    span, packed, bits, reset, used : numpy.ndarray, numpy.ndarray, int, bool, numpy.ndarray
        The spans in the plan's order, packed lists, topic bits, reset and used cells of
        :func:`~tealeaves.models._pltm_kernels.sparse_sweep_spans` (sparse sampler; updated in place).
    stop : numpy.ndarray
        The stop flag (:func:`tealeaves._interrupt.flag`): stopped sweeps are unfinished, never used.
    pool : concurrent.futures.ThreadPoolExecutor or None
        The chain's own pool of ``P - 1`` threads (:func:`tealeaves._threads.part_pool`); by default
        one is made for this call.
    """
    n_parts = plan_.n_threads
    seeds = np.ascontiguousarray(seeds, dtype=np.int64).reshape(-1)
    sync = new_barrier()
    state.progress[:] = 0
    first = int(state.sweeps[0])

    def thread(q):
        try:
            sweeps_part(q, seeds, plan_.block_seg, plan_.seg_start, plan_.seg_lang, plan_.seg_row, z, n_lk,
                        n_rk, alpha, beta, beta_sum, state.base, state.views, state.seen, state.shared,
                        state.progress, first, sync, stop, dense, tokens, n_wk, span, packed, bits, reset,
                        used)
        except BaseException:  # the kernel failed or never started: release the threads waiting for it
            sync[ABORTED] = 1
            raise

    own = part_pool(n_parts) if pool is None else None  # None for one part: it runs in this thread
    try:
        run_parts(thread, n_parts, pool if pool is not None else own)
    finally:
        if own is not None:
            own.shutdown()
    state.sweeps[0] += len(seeds)
