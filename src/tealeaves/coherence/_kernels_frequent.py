"""The compiled (numba) kernels of the pairs of frequent words, counted unit-major (see
:mod:`tealeaves.coherence.core`): the kernel, the estimate of its work per prefix of the words, and the
split of the pairs between it and the pair kernels of :mod:`tealeaves.coherence._kernels`."""

from __future__ import annotations

import numba
import numpy as np

from tealeaves._compiled import stop_requested
from tealeaves.coherence._kernels import ThreadedKernel, _ctpop, _lower_bound


@numba.njit(cache=True, nogil=True, inline="always")  # no call: no array reference counting
def _n_blocks(n, w, mode):
    """Blocks of 64 window starts in a document of ``n`` tokens (see :func:`n_windows`)."""
    starts = n + w - 1 if mode == 2 else max(1, n - w + 1)
    return (max(starts, 1) + 63) >> 6


@numba.njit(cache=True, nogil=True, inline="always")  # no call: no array reference counting
def _block_bits(lo, hi):
    """``uint64`` with bits ``lo .. hi`` (inclusive, ``0 <= lo <= hi <= 63``) set."""
    full = np.uint64(0xFFFFFFFFFFFFFFFF)
    return (full >> np.uint64(63 - hi)) & (full << np.uint64(lo))


#: Most frequent words whose pairs are counted unit-major (a triangular ``F x F`` table per thread;
#: the kernel's records hold a word as ``int16``).
MAX_FREQUENT = 4096


@numba.njit(cache=True, nogil=True, inline="always")  # no call: no array reference counting
def _tri_row(a, n):
    """Offset such that ``_tri_row(a, n) + b`` is the slot of the pair ``(a, b)``, ``a < b < n``, in
    the row-major upper triangle of an ``n x n`` table (``n (n - 1) / 2`` slots; row ``a`` holds
    ``b = a + 1 .. n - 1``)."""
    return a * n - (a * (a + 1)) // 2 - a - 1


@ThreadedKernel
def _frequent_pair_kernel(glo, ghi, docs, ilo, ihi, starts, ends, doc_len, w, mode, n_docs, doc_mode, fpairs,
                          small, spill, stop):
    """Units shared by each pair ``(a, b)``, ``a < b``, of ``fpairs``, among ``F`` frequent words,
    counted unit-major into a triangular ``F x F`` table.

    Word ``f``'s postings are ``glo[f]:ghi[f]`` (documents in ``docs``; window-start intervals
    ``ilo, ihi, starts, ends`` as written by :func:`_window_intervals`).  A unit is a document
    (``doc_mode``) or a block of 64 consecutive window starts of one; a word present in a unit is
    the 64-bit set of its starts there.  Documents are taken in chunks: the chunk's records
    (unit, word, bits) are made word by word, sorted by unit with a stable counting sort (so a unit
    lists its words in increasing order), and every pair of words listed in a unit adds
    ``popcount(bits_a & bits_b)`` (1 in ``doc_mode``).  The cost is the postings plus
    ``sum over units of C(words present, 2)``, with no search per pair.  The increments land at
    random in the table, so its size sets their cost (a cache miss each once it outgrows the
    cache): the table is the upper triangle (:func:`_tri_row`) in ``uint16`` (``uint8`` for short
    windows: :func:`tealeaves.coherence.core._tables`), an entry about to pass its dtype's largest value
    moving its count into the ``int64`` triangle ``spill`` (touched only by pairs that co-occur that
    often).  Document ranges run in parallel, each into its own zeroed rows of
    ``small`` and ``spill`` (allocated by numpy, which asks for huge pages: a table of many MiB
    otherwise costs a TLB miss per entry); the integer sums do not depend on the threads.
    """
    n_f = len(glo)
    n_parts = len(small)
    limit = np.int64(np.iinfo(small.dtype).max)  # an entry's most before it spills
    out = np.zeros((n_parts, len(fpairs)), dtype=np.int64)
    total_post = 0
    for f in range(n_f):
        total_post += ghi[f] - glo[f]
    chunk = max(64, min(n_docs, n_docs * 32768 // max(total_post, 1)))
    for part in numba.prange(n_parts):
        table = small[part]
        big = spill[part]
        spilled = np.zeros(n_f, dtype=np.bool_)  # rows with a spill: only their part of ``big`` is read
        d0 = n_docs * part // n_parts
        d1 = n_docs * (part + 1) // n_parts
        cur = np.empty(n_f, dtype=np.int64)
        for f in range(n_f):
            cur[f] = _lower_bound(docs, glo[f], ghi[f], d0)
        cap = 1 << 16
        rec_unit = np.empty(cap, dtype=np.int32)  # units of a chunk, words (F <= 4,096): narrow
        rec_word = np.empty(cap, dtype=np.int16)
        rec_mask = np.empty(cap, dtype=np.uint64)
        uptr = np.empty(chunk + 1, dtype=np.int64)
        saved = np.empty(n_f, dtype=np.int64)  # the cursors at a chunk's start, to redo it
        for c0 in range(d0, d1, chunk):
            if stop_requested(stop):
                break
            c1 = min(d1, c0 + chunk)
            uptr[0] = 0
            for d in range(c0, c1):
                uptr[d - c0 + 1] = uptr[d - c0] + (1 if doc_mode else _n_blocks(doc_len[d], w, mode))
            n_units = uptr[c1 - c0]
            saved[:] = cur
            while True:  # records written at once; a chunk that outgrows them is redone (rare)
                full = False
                n_rec = 0
                for f in range(n_f):
                    g = cur[f]
                    while g < ghi[f] and docs[g] < c1:
                        d = docs[g]
                        if n_rec + uptr[d - c0 + 1] - uptr[d - c0] > cap:
                            full = True
                            break
                        # the posting's records: one per block of 64 starts its intervals touch (written
                        # here, not in a function: a call per posting costs more than the records)
                        base = uptr[d - c0]
                        if doc_mode:
                            rec_unit[n_rec] = base
                            rec_word[n_rec] = f
                            rec_mask[n_rec] = np.uint64(1)
                            n_rec += 1
                            g += 1
                            continue
                        last = -1
                        mask = np.uint64(0)
                        for u in range(ilo[g], ihi[g]):
                            s, e = starts[u], ends[u]
                            for b in range(s >> 6, (e >> 6) + 1):
                                bits = _block_bits(max(s - 64 * b, 0), min(e - 64 * b, 63))
                                if b == last:
                                    mask |= bits
                                    continue
                                if last >= 0:
                                    rec_unit[n_rec] = base + last
                                    rec_word[n_rec] = f
                                    rec_mask[n_rec] = mask
                                    n_rec += 1
                                last = b
                                mask = bits
                        rec_unit[n_rec] = base + last
                        rec_word[n_rec] = f
                        rec_mask[n_rec] = mask
                        n_rec += 1
                        g += 1
                    cur[f] = g
                    if full:
                        break
                if not full:
                    break
                cap *= 2
                rec_unit = np.empty(cap, dtype=np.int32)
                rec_word = np.empty(cap, dtype=np.int16)
                rec_mask = np.empty(cap, dtype=np.uint64)
                cur[:] = saved
            # stable counting sort of the records by unit
            first = np.zeros(n_units + 1, dtype=np.int64)
            for r in range(n_rec):
                first[rec_unit[r] + 1] += 1
            for un in range(n_units):
                first[un + 1] += first[un]
            fill = first[:-1].copy()
            words = np.empty(n_rec, dtype=np.int16)
            masks = np.empty(n_rec, dtype=np.uint64)
            for r in range(n_rec):
                un = rec_unit[r]
                words[fill[un]] = rec_word[r]
                masks[fill[un]] = rec_mask[r]
                fill[un] += 1
            for un in range(n_units):
                r1 = first[un + 1]
                for r in range(first[un], r1):
                    a = words[r]
                    row = _tri_row(np.int64(a), n_f)
                    m = masks[r]
                    for q in range(r + 1, r1):
                        inc = 1 if doc_mode else np.int64(_ctpop(m & masks[q]))
                        slot = row + words[q]
                        v = np.int64(table[slot]) + inc
                        if v > limit:  # rare: only pairs co-occurring in many units pass here
                            big[slot] += v
                            spilled[a] = True
                            v = 0
                        table[slot] = v
        for m in range(len(fpairs)):
            slot = _tri_row(np.int64(fpairs[m, 0]), n_f) + fpairs[m, 1]
            out[part, m] = table[slot] + (big[slot] if spilled[fpairs[m, 0]] else 0)
    for part in range(1, n_parts):
        for m in range(len(fpairs)):
            out[0, m] += out[part, m]
    return out[0]


@numba.njit(cache=True, nogil=True)
def _prefix_pair_estimate(glo, ghi, docs, n_docs):
    """Estimated ``sum over documents of C(words present, 2)`` for every prefix ``0 .. F`` of the
    words (postings ``glo[f]:ghi[f]`` in ``docs``), from 64 ranges of ``n_docs / 2048`` documents
    (all of them in small references): the unit-major kernel's pair work.  The ranges start at the
    fractions ``{s / golden ratio}`` of the documents, so no period of the document order (a corpus
    of concatenated collections, or one repeated) puts every sample into the same collection."""
    n_f = len(glo)
    n_ranges, width = (1, n_docs) if n_docs <= 1 << 14 else (64, n_docs // 2048)
    cnt = np.zeros(n_ranges * width, dtype=np.int64)
    out = np.zeros(n_f + 1, dtype=np.float64)
    for f in range(n_f):
        inc = 0
        for s in range(n_ranges):
            lo = 0 if n_ranges == 1 else int((s * 0.6180339887498949) % 1.0 * (n_docs - width))
            g = _lower_bound(docs, glo[f], ghi[f], lo)
            while g < ghi[f] and docs[g] < lo + width:
                c = s * width + docs[g] - lo
                inc += cnt[c]
                cnt[c] += 1
                g += 1
        out[f + 1] = out[f] + inc
    return out * (n_docs / (n_ranges * width))


@numba.njit(cache=True, nogil=True)
def _probe_work_by_last(pairs, rank, sizes):
    """Per rank ``r``, the probe work (shorter postings) of the pairs whose later word has rank ``r``:
    what is left to probe once the ``r + 1`` first words are counted unit-major."""
    out = np.zeros(len(sizes), dtype=np.float64)
    for m in range(len(pairs)):
        a, b = pairs[m, 0], pairs[m, 1]
        out[max(rank[a], rank[b])] += min(sizes[a], sizes[b])
    return out


@numba.njit(cache=True, nogil=True)
def _partition_pairs(pairs, rank, n_f):
    """Positions of the pairs of two different words among the first ``n_f`` by ``rank`` with their
    ranks (smaller first), and positions of the others, in one pass."""
    n = len(pairs)
    inside = np.empty(n, dtype=np.int64)
    ranks = np.empty((n, 2), dtype=np.int64)
    outside = np.empty(n, dtype=np.int64)
    n_in = n_out = 0
    for m in range(n):
        ra, rb = rank[pairs[m, 0]], rank[pairs[m, 1]]
        if ra < n_f and rb < n_f and ra != rb:
            inside[n_in] = m
            ranks[n_in, 0] = min(ra, rb)
            ranks[n_in, 1] = max(ra, rb)
            n_in += 1
        else:
            outside[n_out] = m
            n_out += 1
    return inside[:n_in], ranks[:n_in].copy(), outside[:n_out]
