"""The compiled (numba) kernels behind :mod:`tealeaves.coherence.core`, which checks every argument
first (the kernels do not check bounds) and describes the counting methods; a :class:`ThreadedKernel`
is compiled serial and parallel from one function (:data:`PARALLEL_MIN_WORK`).  The kernels of the
frequent words' pairs are in :mod:`tealeaves.coherence._kernels_frequent`."""

from __future__ import annotations

import types

import numba
import numpy as np
from numba.core import cgutils
from numba.extending import intrinsic

from tealeaves import _interrupt
from tealeaves._compiled import filled, parallel_turn, stop_requested
from tealeaves._threads import longest_first

#: Work (postings or positions visited) below which a kernel runs on one thread: starting the
#: other threads costs more than they save, most of all on a machine busy with other jobs.
PARALLEL_MIN_WORK = 2_000_000


class ThreadedKernel:
    """A kernel compiled twice from one function: serial, and parallel (``prange`` over numba's threads).

    ``kernel(work, *args)`` runs the parallel one when ``work`` >= :data:`PARALLEL_MIN_WORK` and numba
    has threads (each variant is compiled on its first call, so a small job never compiles the
    parallel one); both give the same result (each output written once, or integers summed).  The
    function's last parameter is the stop flag: the call goes through
    :func:`tealeaves._interrupt.call`, which passes it, so Ctrl-C stops the kernel at its next check
    (each ``prange`` iteration reads the flag between rows of its work); work below
    :data:`PARALLEL_MIN_WORK` (milliseconds) runs in the calling thread.  A parallel call is made
    within :func:`tealeaves._compiled.parallel_turn` (concurrent Python threads take turns on numba's
    ``workqueue`` layer, which would otherwise abort).

    Parameters
    ----------
    fn : function
        The kernel's Python source, written with ``prange`` (compiled with ``parallel=True``).
    """

    def __init__(self, fn):
        serial = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__ + "_serial", fn.__defaults__,
                                    fn.__closure__)
        serial.__qualname__ = fn.__qualname__ + "_serial"  # its own numba cache file
        self.serial = numba.njit(cache=True, nogil=True)(serial)
        self.parallel = numba.njit(cache=True, nogil=True, parallel=True)(fn)
        self.__doc__ = fn.__doc__

    def __call__(self, work: int, *args):
        parallel = work >= PARALLEL_MIN_WORK and numba.get_num_threads() > 1
        # work below PARALLEL_MIN_WORK takes milliseconds: run in place, no thread start
        if not parallel:
            return _interrupt.call(self.serial, *args, short=work < PARALLEL_MIN_WORK)
        with parallel_turn():
            return _interrupt.call(self.parallel, *args)



def parts_for(work: int) -> int:
    """Ranges to split ``work`` into: one per numba thread, or one when it runs serially.

    Parameters
    ----------
    work : int
        Postings or positions the kernel visits.

    Returns
    -------
    int
        The number of ranges (``numba.get_num_threads()`` from :data:`PARALLEL_MIN_WORK` of work).
    """
    return numba.get_num_threads() if work >= PARALLEL_MIN_WORK else 1


@numba.njit(cache=True, nogil=True)
def _intersect_count(a, a0, a1, b, b0, b1, mask, use_mask):
    """Size of the intersection of sorted ``a[a0:a1]`` and ``b[b0:b1]`` (optionally masked)."""
    i, j, n = a0, b0, 0
    while i < a1 and j < b1:
        x, y = a[i], b[j]
        if x < y:
            i += 1
        elif y < x:
            j += 1
        else:
            if not use_mask or mask[x]:
                n += 1
            i += 1
            j += 1
    return n


@intrinsic
def _ctpop(typingctx, x):
    """Population count of a ``uint64`` (LLVM's ``ctpop``: one ``popcnt`` where the CPU has it)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return numba.types.uint64(numba.types.uint64), codegen


@intrinsic
def _cttz(typingctx, x):
    """Trailing zero bits of a non-zero ``uint64`` (LLVM's ``cttz``: one ``tzcnt``/``bsf``)."""
    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], cgutils.true_bit)
    return numba.types.uint64(numba.types.uint64), codegen


@numba.njit(cache=True, nogil=True, inline="always")  # no call: no array reference counting
def _mark_anchor(bits, key, n_a, a_docs, a_lo, a_hi, b_docs, b_lo, b_hi, value):
    """Set the bits of the documents of anchor ``key`` (right word ``key - n_a``) in the bitmap ``bits``
    (``uint64`` words), or (``value`` false) clear their words whole (every set bit is the anchor's)."""
    if key < n_a:
        for k in range(a_lo[key], a_hi[key]):
            _mark(bits, a_docs[k], value)
    else:
        for k in range(b_lo[key - n_a], b_hi[key - n_a]):
            _mark(bits, b_docs[k], value)


@numba.njit(cache=True, nogil=True, inline="always")  # no call: no array reference counting
def _mark(bits, d, value):
    """Set bit ``d`` of the bitmap ``bits`` (:func:`_set_bit`), or (``value`` false) clear its word."""
    if value:
        _set_bit(bits, d)
    else:
        bits[d >> 6] = 0


@numba.njit(cache=True, nogil=True, inline="always")  # no call: no array reference counting
def _set_bit(bits, d):
    """Set bit ``d`` of the bitmap ``bits`` (``uint64`` words, bit ``d & 63`` of word ``d >> 6``)."""
    bits[d >> 6] |= np.uint64(1) << np.uint64(d & 63)


@numba.njit(cache=True, nogil=True, inline="always")  # no call: no array reference counting
def _has_bit(bits, d):
    """Whether bit ``d`` of the bitmap ``bits`` (as :func:`_set_bit` writes it) is set."""
    return (bits[d >> 6] >> np.uint64(d & 63)) & np.uint64(1) != 0


def anchor_order(left_sizes: np.ndarray, right_sizes: np.ndarray, pairs: np.ndarray,
                 n_left: int) -> np.ndarray:
    """The pairs grouped by their anchor, the longer side (the left word ``i``, else the right word
    ``j``, keyed ``n_left + j``), as the pair kernels visit them (sorted by NumPy, as
    :func:`tealeaves._threads.longest_first` says why; its sort of 870,000 keys also took 18 ms of CPU
    against 85 ms for numba's).

    Parameters
    ----------
    left_sizes, right_sizes : numpy.ndarray
        Postings of each left and right word.
    pairs : numpy.ndarray
        ``(m, 2)`` left and right positions.
    n_left : int
        The key offset of right anchors (0 when both sides are one list of words).

    Returns
    -------
    numpy.ndarray
        ``int64`` pair positions, by anchor key.
    """
    i, j = pairs[:, 0], pairs[:, 1]
    key = np.where(left_sizes[i] >= right_sizes[j], i, n_left + j)
    return np.argsort(key)  # a pair's count does not depend on its place in its group: no stable sort


@numba.njit(cache=True, nogil=True, inline="always")  # no call: no array reference counting
def _lower_bound(a, lo, hi, x):
    """First position in ``lo .. hi`` of sorted ``a`` whose value is at least ``x`` (``hi`` if none): a
    binary search (``np.searchsorted`` would compile numba's generic version, slowly)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@numba.njit(cache=True, nogil=True)
def _split_groups(key, order, cost, n_parts):
    """Cut ``order`` into ``n_parts`` ranges of about equal ``cost``, never inside a run of equal ``key``
    (a run shares one scratch map).  Returns the ``n_parts + 1`` cut points."""
    n = len(order)
    total = 0.0
    for r in range(n):
        total += cost[order[r]]
    cuts = np.full(n_parts + 1, n, dtype=np.int64)
    cuts[0] = 0
    acc = 0.0
    part = 1
    for r in range(n):
        if part < n_parts and acc >= total * part / n_parts and key[order[r]] != key[order[r - 1]]:
            cuts[part] = r
            part += 1
        acc += cost[order[r]]
    return cuts


#: Bytes of document bitsets per side of a pair count (the densest words get them).
_DENSE_BYTES = 128 << 20


def dense_slots(sizes: np.ndarray, n_space: int, dense_bytes: int) -> np.ndarray:
    """Bitset slot of each word of a side (``-1``: probed instead): the words with more than
    ``n_space / 512`` postings, at most the longest that fit ``dense_bytes`` of bitsets of ``n_space``
    bits (but at least 64), slots ``0, 1, ...`` from the longest
    (:func:`tealeaves._threads.longest_first`).

    Parameters
    ----------
    sizes : numpy.ndarray
        Postings of each word.
    n_space : int
        Documents of the id space.
    dense_bytes : int
        The bytes of bitsets a side may hold.

    Returns
    -------
    numpy.ndarray
        ``int64`` slot of each word.
    """
    n_blocks = (n_space + 63) // 64
    cap = max(64, dense_bytes // (8 * max(n_blocks, 1)))
    top = longest_first(sizes)[:cap]
    top = top[sizes[top] > n_blocks // 8]  # a prefix: the sizes decrease along longest_first
    slot = np.full(len(sizes), -1, dtype=np.int64)
    slot[top] = np.arange(len(top))
    return slot


@numba.njit(cache=True, nogil=True, inline="always")  # no call: no array reference counting
def _zeros_u8(n):
    """``n`` zero bytes (``np.empty`` and a loop, as :func:`tealeaves._compiled.filled`)."""
    out = np.empty(n, dtype=np.uint8)
    for i in range(n):
        out[i] = 0
    return out


@ThreadedKernel
def _dense_doc_kernel(a_lo, a_hi, a_docs, a_slot, n_dense_a, b_lo, b_hi, b_docs, b_slot, n_dense_b, left,
                      right, mask, use_mask, n_space, same, need, stop):
    """Co-document counts of pairs ``(left[m], right[m])`` of two dense words (:func:`dense_slots`).

    Word ``i`` of the left list has postings ``a_docs[a_lo[i]:a_hi[i]]`` and bitset slot ``a_slot[i]``,
    of ``n_dense_a`` (the right list likewise; ``same``: one list given twice, one set of bitsets).
    The bitsets span only the documents a pair can share (compact ids): for one list, those holding
    ``need`` dense words (1 if a pair repeats a word, else 2); for two lists, a dense word of each;
    left ones are masked.  A pair's count is the population count of the AND of its two bitsets;
    pairs run in parallel, each written once (results do not depend on the threads).  The two sides
    run through one loop (``a_docs`` and ``b_docs`` of one type): half the code to compile.
    """
    n_sides = 1 if same else 2
    # dense words per document, each side, saturating at 2 (only ">= need" and ">= 1" are read): a byte
    # a document, so the pass of each dense word over them reads an eighth of what int64 counts took
    cnt_a = _zeros_u8(n_space)
    cnt_b = cnt_a if same else _zeros_u8(n_space)
    for side in range(n_sides):
        lo, hi, docs, slot, cnt = (a_lo, a_hi, a_docs, a_slot, cnt_a) if side == 0 else (
            b_lo, b_hi, b_docs, b_slot, cnt_b)
        for i in range(len(lo)):
            if slot[i] >= 0:
                for k in range(lo[i], hi[i]):
                    d = docs[k]
                    cnt[d] = min(cnt[d] + 1, 2)
    cid = np.empty(n_space, dtype=np.int32)  # compact id + 1 of each document (0: none)
    n_c = 0
    for d in range(n_space):
        if (cnt_a[d] >= need) if same else (cnt_a[d] >= 1 and cnt_b[d] >= 1):
            n_c += 1
            cid[d] = n_c
        else:
            cid[d] = 0
    n_cblocks = (n_c + 63) // 64
    a_bits = filled(n_dense_a * n_cblocks, 0)  # 64 documents per int64, row slot * n_cblocks
    b_bits = a_bits if same else filled(n_dense_b * n_cblocks, 0)
    for side in range(n_sides):
        lo, hi, docs, slot, bits = (a_lo, a_hi, a_docs, a_slot, a_bits) if side == 0 else (
            b_lo, b_hi, b_docs, b_slot, b_bits)
        for i in range(len(lo)):
            if slot[i] >= 0:
                for k in range(lo[i], hi[i]):
                    d = docs[k]
                    if cid[d] > 0 and (side == 1 or not use_mask or mask[d]):
                        c = cid[d] - 1
                        bits[slot[i] * n_cblocks + (c >> 6)] |= np.int64(1) << (c & 63)
    out = np.empty(len(left), dtype=np.int64)
    for m in numba.prange(len(left)):
        x = a_slot[left[m]] * n_cblocks
        y = b_slot[right[m]] * n_cblocks
        # row views: indices from 0 need no check for negative ones, so LLVM vectorises the loop
        # (3.5 times faster than indexing a_bits[x + blk])
        row_a, row_b = a_bits[x:x + n_cblocks], b_bits[y:y + n_cblocks]
        n = 0
        if not stop_requested(stop):
            for blk in range(n_cblocks):
                n += _ctpop(np.uint64(row_a[blk] & row_b[blk]))
        out[m] = n
    return out


@ThreadedKernel
def _pair_doc_kernel(a_lo, a_hi, a_docs, b_lo, b_hi, b_docs, pairs, mask, use_mask, n_space, n_parts, order,
                     stop):
    """Co-document counts of pairs ``(left i, right j)`` by probing: word ``i`` of the left list has
    postings ``a_docs[a_lo[i]:a_hi[i]]`` (the right list likewise).

    The shorter posting list of each pair is probed against a scratch bitmap of the longer one (a bit
    per document: a map 8 times smaller than a byte map, which stays in a core's cache on references 8
    times larger), so each pair costs at most its shorter postings (the pairs of two dense words are
    counted by :func:`_dense_doc_kernel` instead).  Pairs are grouped by their longer ("anchor") word,
    visited in ``order`` (:func:`anchor_order`); groups run in parallel (one scratch bitmap per thread,
    each pair written once: results do not depend on the threads).
    """
    n_pairs = len(pairs)
    out = np.zeros(n_pairs, dtype=np.int64)
    n_a = len(a_lo)
    # anchor of each pair: its longer side; group pairs by anchor to reuse one scratch bitmap
    key = np.empty(n_pairs, dtype=np.int64)
    cost = np.empty(n_pairs, dtype=np.float64)
    for m in range(n_pairs):
        i, j = pairs[m, 0], pairs[m, 1]
        la = a_hi[i] - a_lo[i]
        lb = b_hi[j] - b_lo[j]
        key[m] = i if la >= lb else n_a + j
        cost[m] = min(la, lb)
    cuts = _split_groups(key, order, cost, n_parts)
    for part in numba.prange(len(cuts) - 1):  # anchor groups in parallel, one scratch bitmap each
        scratch = np.zeros((n_space + 63) >> 6, dtype=np.uint64)
        current = -1
        for r in range(cuts[part], cuts[part + 1]):
            if stop_requested(stop):
                break
            m = order[r]
            i, j = pairs[m, 0], pairs[m, 1]
            if key[m] != current:  # load the anchor's postings into the scratch bitmap
                if current >= 0:
                    _mark_anchor(scratch, current, n_a, a_docs, a_lo, a_hi, b_docs, b_lo, b_hi, False)
                current = key[m]
                _mark_anchor(scratch, current, n_a, a_docs, a_lo, a_hi, b_docs, b_lo, b_hi, True)
            n = 0
            if current < n_a:  # probe the right word's postings
                for k in range(b_lo[j], b_hi[j]):
                    d = b_docs[k]
                    if _has_bit(scratch, d) and (not use_mask or mask[d]):
                        n += 1
            else:
                for k in range(a_lo[i], a_hi[i]):
                    d = a_docs[k]
                    if _has_bit(scratch, d) and (not use_mask or mask[d]):
                        n += 1
            out[m] = n
    return out


@numba.njit(cache=True, nogil=True)
def _masked_sizes(docs, ptr, mask):
    out = np.zeros(len(ptr) - 1, dtype=np.int64)
    for i in range(len(ptr) - 1):
        n = 0
        for k in range(ptr[i], ptr[i + 1]):
            if mask[docs[k]]:
                n += 1
        out[i] = n
    return out


#: Postings whose documents' lengths :func:`_word_intervals` reads at a time.
_LENGTHS_CHUNK = 512


@numba.njit(cache=True, nogil=True)
def _word_intervals(w_id, loc, n_iv, word_ptr, post_docs, pos_ptr, positions, doc_len, w, mode,
                    docs, ilo, ihi, starts, ends, lens):
    """Write the merged window-start intervals of every posting of word ``w_id`` from slot ``loc``
    (postings) and ``n_iv`` (intervals) on; returns the number of windows holding the word.  The
    documents' lengths are read ``len(lens)`` postings at a time into the scratch ``lens`` first: a
    loop of nothing but those scattered reads keeps many of them in flight."""
    total = 0
    g_end = word_ptr[w_id + 1]
    for c0 in range(word_ptr[w_id], g_end, len(lens)):
        c1 = min(g_end, c0 + len(lens))
        for g in range(c0, c1):
            lens[g - c0] = doc_len[post_docs[g]]
        total, loc, n_iv = _chunk_intervals(c0, c1, loc, n_iv, post_docs, pos_ptr, positions, w, mode,
                                            docs, ilo, ihi, starts, ends, lens, total)
    return total


@numba.njit(cache=True, nogil=True, inline="always")  # no call: no array reference counting
def _chunk_intervals(c0, c1, loc, n_iv, post_docs, pos_ptr, positions, w, mode, docs, ilo, ihi, starts,
                     ends, lens, total):
    """:func:`_word_intervals` of postings ``c0 .. c1 - 1`` (their documents' lengths in ``lens``);
    returns the windows so far and the next posting and interval slots."""
    for g in range(c0, c1):
        d = post_docs[g]
        docs[loc] = d
        ilo[loc] = n_iv
        n = lens[g - c0]
        last = n - w  # last window start
        if mode == 2:
            last = n - 1  # jhlau: shifted starts 0 .. n + w - 2; occurrence p -> [p, p + w - 1]
        p0, p1 = pos_ptr[g], pos_ptr[g + 1]
        if last <= 0 and mode != 2:  # one window for the whole document
            starts[n_iv] = 0
            ends[n_iv] = 0
            n_iv += 1
            total += 1
        else:
            q = p0  # pointer to the first occurrence >= a (gensim mode)
            cur_s = -1
            cur_e = -2
            for t in range(p0, p1):
                p = positions[t]
                if mode == 2:
                    a = p
                    e = p + w - 1
                else:
                    a = p - w + 1
                    if a < 0:
                        a = 0
                    if mode == 1:
                        while positions[q] < a:
                            q += 1
                        e = positions[q]
                    else:
                        e = p
                    if e > last:
                        e = last
                if a > e:
                    continue
                if a <= cur_e + 1:  # overlaps or touches the open interval
                    if e > cur_e:
                        cur_e = e
                else:
                    if cur_e >= cur_s and cur_s >= 0:
                        starts[n_iv] = cur_s
                        ends[n_iv] = cur_e
                        n_iv += 1
                        total += cur_e - cur_s + 1
                    cur_s = a
                    cur_e = e
            if cur_s >= 0 and cur_e >= cur_s:
                starts[n_iv] = cur_s
                ends[n_iv] = cur_e
                n_iv += 1
                total += cur_e - cur_s + 1
        ihi[loc] = n_iv
        loc += 1
    return total, loc, n_iv


@ThreadedKernel
def _window_intervals(word_ids, word_ptr, post_docs, pos_ptr, positions, doc_len, w, mode, n_parts, wptr,
                      poff, docs, ilo, ihi, starts, ends, stop):
    """Per selected word and posting, the merged intervals of window starts containing the word.

    Fills ``(docs, ilo, ihi, starts, ends)`` and returns ``single``: postings of selected
    word ``i`` are ``wptr[i]:wptr[i+1]`` (document ids in ``docs``), intervals
    of local posting ``k`` are ``ilo[k]:ihi[k]`` (inclusive ``[starts, ends]``),
    and ``single[i]`` is the number of windows containing word ``i``.  ``mode``: 0 exact,
    1 gensim, 2 jhlau (window starts shifted by ``w - 1``, see the module docstring).
    A posting has at most one interval per occurrence, so word ``i`` writes its intervals
    from its first position's slot on (``poff[i]``; postings from ``wptr[i]``): ``n_parts`` ranges of
    words of about equal positions and postings run in parallel (``prange``; the words' sizes are far
    from even, so equal numbers of words would leave a thread idle), each word into its own slots, and
    the result does not depend on the threads.  The output arrays are allocated by the caller
    (:func:`_interval_arrays`).
    """
    k = len(word_ids)
    single = np.zeros(k, dtype=np.int64)
    words = np.arange(k)
    cost = np.empty(k, dtype=np.float64)
    for i in range(k):
        cost[i] = (poff[i + 1] - poff[i]) + (wptr[i + 1] - wptr[i])
    cuts = _split_groups(words, words, cost, n_parts)
    for part in numba.prange(n_parts):
        lens = np.empty(_LENGTHS_CHUNK, dtype=doc_len.dtype)
        for i in range(cuts[part], cuts[part + 1]):
            if stop_requested(stop):
                break
            single[i] = _word_intervals(word_ids[i], wptr[i], poff[i], word_ptr, post_docs, pos_ptr,
                                        positions, doc_len, w, mode, docs, ilo, ihi, starts, ends, lens)
    return single


@numba.njit(cache=True, nogil=True, inline="always")  # no call: no array reference counting
def _overlap(g, h, ilo, ihi, starts, ends):
    """Window starts shared by postings ``g`` and ``h`` (a sweep over their sorted interval lists)."""
    total = 0
    u, u1 = ilo[g], ihi[g]
    v, v1 = ilo[h], ihi[h]
    while u < u1 and v < v1:
        lo = starts[u] if starts[u] > starts[v] else starts[v]
        hi = ends[u] if ends[u] < ends[v] else ends[v]
        if hi >= lo:
            total += hi - lo + 1
        if ends[u] < ends[v]:
            u += 1
        else:
            v += 1
    return total


@numba.njit(cache=True, nogil=True, inline="always")  # no call: no array reference counting
def _overlap_span(s, e, h, ilo, ihi, starts, ends):
    """Window starts of ``s .. e`` that posting ``h``'s sorted, disjoint intervals also hold:
    :func:`_overlap` of a posting of the one interval ``[s, e]``."""
    total = 0
    for u in range(ilo[h], ihi[h]):
        if starts[u] > e:
            break
        lo = starts[u] if starts[u] > s else s
        hi = ends[u] if ends[u] < e else e
        if hi >= lo:
            total += hi - lo + 1
    return total


#: A posting of one interval ``[s, e]`` with ``e`` below this is held in the probe kernel's posting map
#: as ``~(s << 15 | e)`` (negative), so a shared document reads no interval of the anchor's.
_SPAN_LIMIT = 1 << 15


@numba.njit(cache=True, nogil=True, inline="always")  # no call: no array reference counting
def _near(g, h, plo, phi, positions, w):
    """Occurrence pairs of postings ``g`` and ``h`` at most ``w`` tokens apart (two sliding pointers)."""
    total = 0
    lo = plo[g]
    hi = plo[g]
    for v in range(plo[h], phi[h]):
        q = positions[v]
        while lo < phi[g] and positions[lo] < q - w:
            lo += 1
        while hi < phi[g] and positions[hi] <= q + w:
            hi += 1
        total += hi - lo
    return total


@ThreadedKernel
def _pair_unit_kernel(pairs, wptr, docs, lo, hi, x, y, context, w, one, marks, slots, order, stop):
    """Units shared by each pair: the shorter word's documents are probed against a scratch map
    (document -> posting) of the longer word's, then each shared document is counted: windows by
    intersecting the interval lists (``lo, hi, x, y`` = ``ilo, ihi, starts, ends``; an anchor posting of
    one interval is held in the posting map as that interval, see :data:`_SPAN_LIMIT`), or, with
    ``context``, occurrence pairs at most ``w`` apart (``lo, hi, x`` = position ranges, positions).
    Pairs are grouped by their longer ("anchor") word, visited in ``order`` (:func:`anchor_order`);
    groups run in parallel, one scratch map per thread (``marks[t]``, a zeroed bitmap of the document
    space in ``uint64`` words, and ``slots[t]``, over the document space: see :func:`_probe_maps`),
    each pair written once (results do not depend on the threads).  For windows, ``one`` is the bitmap
    of the documents of a single window start (:func:`tealeaves.coherence.core._one_window_bitmap`): two
    words present in one share its window, so such a shared document adds 1 without reading the
    posting map or an interval, and the anchor's postings there write no entry of the map."""
    n_parts = len(marks)
    n_pairs = len(pairs)
    out = np.zeros(n_pairs, dtype=np.int64)
    key = np.empty(n_pairs, dtype=np.int64)
    cost = np.empty(n_pairs, dtype=np.float64)
    for m in range(n_pairs):
        a, b = pairs[m, 0], pairs[m, 1]
        la, lb = wptr[a + 1] - wptr[a], wptr[b + 1] - wptr[b]
        key[m] = a if la >= lb else b
        cost[m] = min(la, lb)
    for r in range(len(order)):  # a group's first pair also marks and clears its anchor's documents
        m = order[r]
        if r == 0 or key[m] != key[order[r - 1]]:
            cost[m] += 2 * (wptr[key[m] + 1] - wptr[key[m]])
    cuts = _split_groups(key, order, cost, n_parts)
    for part in numba.prange(len(cuts) - 1):
        # a probe reads the small bitmap (a bit per document: it stays in a core's cache where a byte
        # map of a large reference does not); only a shared document reads the large posting map
        # (valid where the bitmap is set, so it is never cleared)
        mark = marks[part]
        slot = slots[part]
        current = -1
        for r in range(cuts[part], cuts[part + 1]):
            if stop_requested(stop):
                break
            m = order[r]
            a, b = pairs[m, 0], pairs[m, 1]
            anchor = key[m]
            other = b if anchor == a else a
            if anchor != current:
                if current >= 0:  # every set bit is the anchor's: clear its words whole
                    for g in range(wptr[current], wptr[current + 1]):
                        _mark(mark, docs[g], False)
                current = anchor
                for g in range(wptr[current], wptr[current + 1]):
                    d = docs[g]
                    _set_bit(mark, d)
                    if not context and _has_bit(one, d):  # its window is counted without the map
                        continue
                    # an anchor posting of one short interval is held as the interval itself (read here in
                    # order, not at random for each shared document)
                    if not context and hi[g] - lo[g] == 1 and y[lo[g]] < _SPAN_LIMIT:
                        slot[d] = ~((np.int64(x[lo[g]]) << 15) | np.int64(y[lo[g]]))
                    else:
                        slot[d] = g
            total = 0
            for h in range(wptr[other], wptr[other + 1]):
                d = docs[h]
                if not _has_bit(mark, d):
                    continue
                if not context and _has_bit(one, d):
                    total += 1
                    continue
                g = np.int64(slot[d])
                if context:
                    total += _near(g, h, lo, hi, x, w)
                elif g < 0:
                    total += _overlap_span((~g) >> 15, (~g) & (_SPAN_LIMIT - 1), h, lo, hi, x, y)
                else:
                    total += _overlap(g, h, lo, hi, x, y)
            out[m] = total
    return out


@numba.njit(cache=True, nogil=True)
def _unique_keys_kernel(keys, space):
    """Sorted distinct values of ``keys`` (all in ``[0, space)``) and each key's position among them,
    from a bitmap of the key space and a running count per 64-bit word of it (two passes)."""
    n_words = (space + 63) >> 6
    bits = np.zeros(n_words, dtype=np.uint64)
    for m in range(len(keys)):  # (an index loop: an array iterator costs more to compile)
        _set_bit(bits, keys[m])
    before = np.empty(n_words + 1, dtype=np.int64)
    before[0] = 0
    for i in range(n_words):
        before[i + 1] = before[i] + np.int64(_ctpop(bits[i]))
    distinct = np.empty(before[n_words], dtype=np.int64)
    for i in range(n_words):
        x = bits[i]
        r = before[i]
        while x != 0:
            distinct[r] = i * 64 + np.int64(_cttz(x))
            r += 1
            x &= x - np.uint64(1)
    inverse = np.empty(len(keys), dtype=np.int64)
    for m in range(len(keys)):
        k = keys[m]
        below = bits[k >> 6] & ((np.uint64(1) << np.uint64(k & 63)) - np.uint64(1))
        inverse[m] = before[k >> 6] + np.int64(_ctpop(below))
    return distinct, inverse


@numba.njit(cache=True, nogil=True)
def _topic_pair_keys(loc, n_words):
    """``lo * n_words + hi`` of each topic's pairs ``i < j`` of present words (local ids ``loc``,
    ``-1`` = absent), in topic then ``(i, j)`` order, and the flat offset ``(t k + i) k + j`` of each in
    a ``topics x k x k`` table."""
    n_topics, k = loc.shape
    keys = np.empty(n_topics * (k * (k - 1) // 2), dtype=np.int64)
    slots = np.empty(len(keys), dtype=np.int64)
    n = 0
    for t in range(n_topics):
        for i in range(k):
            a = loc[t, i]
            if a < 0:
                continue
            for j in range(i + 1, k):
                b = loc[t, j]
                if b >= 0:
                    keys[n] = a * n_words + b if a < b else b * n_words + a
                    slots[n] = (t * k + i) * k + j
                    n += 1
    return keys[:n], slots[:n]


@numba.njit(cache=True, nogil=True)
def _topic_joint(loc, slots, inverse, joint, single):
    """``topics x k x k`` joint counts (diagonal: single counts, 0 for absent words): ``joint`` of the
    distinct pairs placed at ``slots`` and their mirror images (:func:`_topic_pair_keys`).

    The pairs come in :func:`_topic_pair_keys`'s order (topic, then ``(i, j)``), so the loops walk
    them in that order rather than dividing each slot by ``k * k`` and ``k`` (two integer divisions
    a pair; 1,000 topics x top 50: 15-22 ms against 22-34); a slot out of that order is placed by
    division."""
    n_topics, k = loc.shape
    out = np.zeros((n_topics, k, k))
    m = 0
    for t in range(n_topics):
        for i in range(k):
            if loc[t, i] < 0:
                continue
            for j in range(i + 1, k):
                if loc[t, j] >= 0 and m < len(slots) and slots[m] == (t * k + i) * k + j:
                    out[t, i, j] = out[t, j, i] = joint[inverse[m]]  # (no reshape: it compiles slowly)
                    m += 1
    for rest in range(m, len(slots)):  # none when the slots follow the order above
        t, r = divmod(slots[rest], k * k)
        i, j = divmod(r, k)
        out[t, i, j] = out[t, j, i] = joint[inverse[rest]]
    for t in range(n_topics):
        for i in range(k):
            if loc[t, i] >= 0:
                out[t, i, i] = single[loc[t, i]]
    return out
