"""The single co-occurrence counting core behind every coherence measure.

Everything here works on *postings*: for a word, the sorted array of the ids
of the documents it occurs in (and, for sliding windows, its sorted positions
inside each of them).  Counting a set of words therefore costs in proportion
to the postings of those words, never to the size of the reference corpus.

Two kinds of unit are counted.

Documents
    ``document_counts(postings)`` gives each word's document frequency and
    ``pair_document_counts(left, right, pairs)`` the number of documents shared
    by ``left[i]`` and ``right[j]`` for every requested pair ``(i, j)``.  The two
    lists may come from *different* indices that share one document-id space:
    that is how crosslingual co-occurrence over aligned document tuples is
    counted (word ``a`` in language 1's postings, word ``b`` in language 2's,
    restricted by ``mask`` to the tuples that have both sides).

Boolean sliding windows of size ``w``
    A document of ``n >= w`` tokens yields the ``n - w + 1`` windows
    ``[s, s + w)``; a shorter document (including an empty one) is a single
    window.  A word counts in a window if any copy of it lies inside.  The set
    of window starts containing a word is a union of intervals, one per
    occurrence ``p``: ``[max(0, p - w + 1), min(p, n - w)]``.  Pair counts are
    sizes of intersections of two such unions, found by a sweep.

    ``compat="gensim"`` reproduces gensim 4.4's single-process
    ``WordOccurrenceAccumulator``: it slides a boolean presence vector and, when
    the token at the left edge leaves, clears that word even if another copy is
    still inside.  Its window set for occurrence ``p`` is
    ``[a, q]`` with ``a = max(0, p - w + 1)`` and ``q`` the first occurrence of
    the word at a position ``>= a`` (then clipped to ``n - w``): the word stays
    present until that occurrence leaves.

    ``compat="jhlau"`` reproduces jhlau/topic_interpretability
    (``ComputeWordCount.py``): a document of ``n`` tokens yields ``n + w - 1``
    windows, the partial ones at both ends included (window ``t = 1 .. n + w - 1``
    holds tokens ``[max(0, t - w), min(t, n))``), so a short document gives more
    than one window and an empty one ``w - 1`` empty windows.  With the window
    start shifted by ``w - 1``, occurrence ``p`` is in windows ``[p, p + w - 1]``,
    never clipped.

Word sets
    ``count_subsets`` gives, for every topic, the number of units holding *all*
    words of each subset of its words (bit ``i`` = topic position ``i``): one
    sweep over the same window intervals per topic, then a superset sum.  Set
    segmentations (one-any, any-any; one-set/one-all with direct confirmations)
    need these.

Context windows (Palmetto's ``P_cw``, used by C_A)
    ``count_context`` counts, for each pair, the occurrence pairs of the two
    words at most ``w`` tokens apart in one document; a word's count is its
    number of tokens; the total is ``sum(n - w + 1)`` over documents
    (Palmetto's ``ContextWindowFrequencyDeterminer``).

The kernels are compiled with numba.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numba
import numpy as np

from tealeaves.coherence.errors import SettingsError
from tealeaves.errors import EmptyInputError

#: Supported window-counting modes.
COMPAT_MODES = ("exact", "gensim", "jhlau")
_MODE_CODE = {"exact": 0, "gensim": 1, "jhlau": 2}
#: Largest topic whose word subsets are counted (2**k subsets per topic).
MAX_SUBSET_WORDS = 12


# --------------------------------------------------------------------------------------------
# numba kernels
# --------------------------------------------------------------------------------------------
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


@numba.njit(cache=True, nogil=True)
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@numba.njit(cache=True, nogil=True)
def _mark_anchor(scratch, key, n_a, a_docs, a_ptr, b_docs, b_ptr, value):
    """Set ``scratch`` to ``value`` on the documents of anchor ``key`` (right word ``key - n_a``)."""
    docs, ptr, i = (a_docs, a_ptr, key) if key < n_a else (b_docs, b_ptr, key - n_a)
    for k in range(ptr[i, 0], ptr[i, 1]):
        scratch[docs[k]] = value


@numba.njit(cache=True, nogil=True)
def _pair_doc_kernel(a_ids, a_ptr0, a_docs, b_ids, b_ptr0, b_docs, pairs, mask, use_mask, n_space):
    """Co-document counts of pairs ``(left i, right j)``.

    A pair of two *dense* words (postings longer than ``n_space / 64``) is
    counted by AND-ing bitsets (``n_space / 64`` operations, fewer than either
    posting list); any other pair by probing the shorter posting list against a
    scratch bitmap of the longer one, so each pair costs at most its shorter
    postings.  Pairs are grouped by their longer ("anchor") word.
    """
    # local views: word i of the left list has postings a_docs[a_ptr[i]:a_ptr[i + 1]]
    a_ptr = np.empty((len(a_ids), 2), dtype=np.int64)
    for i in range(len(a_ids)):
        a_ptr[i, 0] = a_ptr0[a_ids[i]]
        a_ptr[i, 1] = a_ptr0[a_ids[i] + 1]
    b_ptr = np.empty((len(b_ids), 2), dtype=np.int64)
    for j in range(len(b_ids)):
        b_ptr[j, 0] = b_ptr0[b_ids[j]]
        b_ptr[j, 1] = b_ptr0[b_ids[j] + 1]
    n_pairs = len(pairs)
    out = np.zeros(n_pairs, dtype=np.int64)
    n_blocks = (n_space + 63) // 64
    threshold = n_blocks  # dense: longer than n_space / 64
    n_a = len(a_ids)
    n_b = len(b_ids)
    # bitsets of the dense words (left ones masked, so masked counts need no extra check)
    a_slot = np.full(n_a, -1, dtype=np.int64)
    b_slot = np.full(n_b, -1, dtype=np.int64)
    n_dense_a = 0
    n_dense_b = 0
    for i in range(n_a):
        if a_ptr[i, 1] - a_ptr[i, 0] > threshold:
            a_slot[i] = n_dense_a
            n_dense_a += 1
    for j in range(n_b):
        if b_ptr[j, 1] - b_ptr[j, 0] > threshold:
            b_slot[j] = n_dense_b
            n_dense_b += 1
    a_bits = np.zeros((n_dense_a, n_blocks), dtype=np.uint64)
    b_bits = np.zeros((n_dense_b, n_blocks), dtype=np.uint64)
    for i in range(n_a):
        if a_slot[i] >= 0:
            for k in range(a_ptr[i, 0], a_ptr[i, 1]):
                d = a_docs[k]
                if not use_mask or mask[d]:
                    a_bits[a_slot[i], d >> 6] |= np.uint64(1) << np.uint64(d & 63)
    for j in range(n_b):
        if b_slot[j] >= 0:
            for k in range(b_ptr[j, 0], b_ptr[j, 1]):
                d = b_docs[k]
                b_bits[b_slot[j], d >> 6] |= np.uint64(1) << np.uint64(d & 63)
    # anchor of each pair: its longer side; group pairs by anchor to reuse one scratch bitmap
    key = np.empty(n_pairs, dtype=np.int64)
    for m in range(n_pairs):
        i, j = pairs[m, 0], pairs[m, 1]
        la = a_ptr[i, 1] - a_ptr[i, 0]
        lb = b_ptr[j, 1] - b_ptr[j, 0]
        key[m] = i if la >= lb else n_a + j
    order = np.argsort(key)
    scratch = np.zeros(n_space, dtype=np.bool_)
    current = -1
    for r in range(n_pairs):
        m = order[r]
        i, j = pairs[m, 0], pairs[m, 1]
        if a_slot[i] >= 0 and b_slot[j] >= 0:
            x = a_bits[a_slot[i]]
            y = b_bits[b_slot[j]]
            n = 0
            for blk in range(n_blocks):
                n += _popcount(x[blk] & y[blk])
            out[m] = n
            continue
        if key[m] != current:  # load the anchor's postings into the scratch bitmap
            if current >= 0:
                _mark_anchor(scratch, current, n_a, a_docs, a_ptr, b_docs, b_ptr, False)
            current = key[m]
            _mark_anchor(scratch, current, n_a, a_docs, a_ptr, b_docs, b_ptr, True)
        n = 0
        if current < n_a:  # probe the right word's postings
            for k in range(b_ptr[j, 0], b_ptr[j, 1]):
                d = b_docs[k]
                if scratch[d] and (not use_mask or mask[d]):
                    n += 1
        else:
            for k in range(a_ptr[i, 0], a_ptr[i, 1]):
                d = a_docs[k]
                if scratch[d] and (not use_mask or mask[d]):
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


@numba.njit(cache=True, nogil=True)
def _window_intervals(word_ids, word_ptr, post_docs, pos_ptr, positions, doc_len, w, mode):
    """Per selected word and posting, the merged intervals of window starts containing the word.

    Returns ``(wptr, docs, iptr, starts, ends, single)``: postings of selected
    word ``i`` are ``wptr[i]:wptr[i+1]`` (document ids in ``docs``), intervals
    of local posting ``k`` are ``iptr[k]:iptr[k+1]`` (inclusive ``[starts, ends]``),
    and ``single[i]`` is the number of windows containing word ``i``.  ``mode``: 0 exact,
    1 gensim, 2 jhlau (window starts shifted by ``w - 1``, see the module docstring).
    """
    k = len(word_ids)
    wptr = np.zeros(k + 1, dtype=np.int64)
    n_post = 0
    n_pos = 0
    for i in range(k):
        w_id = word_ids[i]
        n_post += word_ptr[w_id + 1] - word_ptr[w_id]
        n_pos += pos_ptr[word_ptr[w_id + 1]] - pos_ptr[word_ptr[w_id]]
        wptr[i + 1] = n_post
    docs = np.empty(n_post, dtype=np.int64)
    iptr = np.zeros(n_post + 1, dtype=np.int64)
    starts = np.empty(n_pos, dtype=np.int64)
    ends = np.empty(n_pos, dtype=np.int64)
    single = np.zeros(k, dtype=np.int64)
    loc = 0
    n_iv = 0
    for i in range(k):
        w_id = word_ids[i]
        total = 0
        for g in range(word_ptr[w_id], word_ptr[w_id + 1]):
            d = post_docs[g]
            docs[loc] = d
            n = doc_len[d]
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
            loc += 1
            iptr[loc] = n_iv
        single[i] = total
    return wptr, docs, iptr, starts[:n_iv], ends[:n_iv], single


@numba.njit(cache=True, nogil=True)
def _near(g, h, pptr, positions, w):
    """Occurrence pairs of postings ``g`` and ``h`` at most ``w`` tokens apart (two sliding pointers)."""
    total = 0
    lo = pptr[g]
    hi = pptr[g]
    for v in range(pptr[h], pptr[h + 1]):
        q = positions[v]
        while lo < pptr[g + 1] and positions[lo] < q - w:
            lo += 1
        while hi < pptr[g + 1] and positions[hi] <= q + w:
            hi += 1
        total += hi - lo
    return total


#: Unit kinds of the document-major pair pass.
_DOCS, _WINDOWS, _CONTEXT = 0, 1, 2
#: At most this many words get a dense pair table (``4096**2`` int32 = 64 MiB).
_MAX_DENSE_WORDS = 4096
#: 64-bit words of window bitsets held per thread (8 MiB); longer documents are done in chunks.
_BITSET_WORDS = 1 << 20


@numba.njit(cache=True, nogil=True)
def _doc_major(word_ids, order, word_ptr, post_docs, n_space):
    """The selected words' postings grouped by document (a counting sort over document ids).

    Returns ``(dlist, dptr, ent_rank, ent_post)``: document ``dlist[r]`` holds the entries
    ``dptr[r]:dptr[r + 1]``, each the rank of a selected word (``order[rank]`` = its local
    index) and its global posting index, in increasing rank within a document.
    """
    cnt = np.zeros(n_space + 1, dtype=np.int64)
    for i in range(len(word_ids)):
        for g in range(word_ptr[word_ids[i]], word_ptr[word_ids[i] + 1]):
            cnt[post_docs[g] + 1] += 1
    n_docs = 0
    for d in range(n_space):
        if cnt[d + 1] > 0:
            n_docs += 1
        cnt[d + 1] += cnt[d]
    ent_rank = np.empty(cnt[n_space], dtype=np.int32)
    ent_post = np.empty(cnt[n_space], dtype=np.int64)
    fill = cnt[:n_space].copy()
    for r in range(len(order)):
        w = word_ids[order[r]]
        for g in range(word_ptr[w], word_ptr[w + 1]):
            d = post_docs[g]
            ent_rank[fill[d]] = r
            ent_post[fill[d]] = g
            fill[d] += 1
    dlist = np.empty(n_docs, dtype=np.int64)
    dptr = np.zeros(n_docs + 1, dtype=np.int64)
    r = 0
    for d in range(n_space):
        if cnt[d + 1] > cnt[d]:
            dlist[r] = d
            dptr[r + 1] = cnt[d + 1]
            r += 1
    return dlist, dptr, ent_rank, ent_post


@numba.njit(cache=True, nogil=True)
def _set_bits(row, lo, hi):
    """Set bits ``lo..hi`` (inclusive) of the bitset ``row``."""
    a, b = lo >> 6, hi >> 6
    first = np.uint64(0xFFFFFFFFFFFFFFFF) << np.uint64(lo & 63)
    last = np.uint64(0xFFFFFFFFFFFFFFFF) >> np.uint64(63 - (hi & 63))
    if a == b:
        row[a] |= first & last
        return
    row[a] |= first
    for k in range(a + 1, b):
        row[k] = np.uint64(0xFFFFFFFFFFFFFFFF)
    row[b] |= last


@numba.njit(cache=True, nogil=True)
def _fill_row(row, t, t_end, q, positions, c0, c1, w, last, mode):
    """Mark in ``row`` (bit ``s - c0``) the window starts ``s`` in ``[c0, c1]`` holding the word whose
    occurrences ``positions[t:t_end]`` start at the first one not yet done (see the module docstring
    for each ``mode``'s interval of an occurrence).  Intervals are sorted by start and by end, so
    the occurrences whose interval ends inside the chunk are done: returns the new ``(t, q)``."""
    u = t
    while u < t_end:
        p = positions[u]
        if mode == 2:
            a = p
            e = p + w - 1
        else:
            a = p - w + 1
            if a < 0:
                a = 0
            if mode == 1:
                while positions[q] < a:  # gensim: present until its first copy at or after a leaves
                    q += 1
                e = positions[q]
            else:
                e = p
            if e > last:
                e = last
        if a > c1:
            break
        lo = a if a > c0 else c0
        hi = e if e < c1 else c1
        if lo <= hi:
            _set_bits(row, lo - c0, hi - c0)
        if e <= c1:
            t = u + 1
        u += 1
    return t, q


@numba.njit(cache=True, nogil=True)
def _and_count(bits, x, y, cw):
    n = 0
    for k in range(cw):
        n += _popcount(bits[x * cw + k] & bits[y * cw + k])
    return n


@numba.njit(cache=True, nogil=True)
def _unit_work(kind, bits, x, y, cw, gx, gy, pos_ptr, positions, w):
    """Units shared by the doc's entries ``x`` and ``y``: 1 document, the windows of their AND-ed
    bitsets, or their occurrence pairs at most ``w`` tokens apart (context)."""
    if kind == _DOCS:
        return 1
    if kind == _WINDOWS:
        return _and_count(bits, x, y, cw)
    return _near(gx, gy, pos_ptr, positions, w)


@numba.njit(cache=True, nogil=True)
def _doc_pairs(out, kind, bits, cw, ranks, posts, slot, n_freq, pid, csr_ptr, csr_other, csr_pid,
               self_pid, pos_ptr, positions, w):
    """Add the units of one document (chunk) to every requested pair present in it.

    Pairs of two frequent words (rank < ``n_freq``) are looked up in the dense table ``pid``
    (all present frequent pairs visited); a pair with a rarer word is listed (``csr_*``) under
    its rarer word, whose partners are probed in ``slot`` (rank -> entry, ``-1`` if absent).
    """
    m = len(ranks)
    m_f = 0
    while m_f < m and ranks[m_f] < n_freq:
        m_f += 1
    for x in range(m_f):
        row = pid[ranks[x]]
        for y in range(x + 1, m_f):
            p = row[ranks[y]]
            if p >= 0:
                out[p] += _unit_work(kind, bits, x, y, cw, posts[x], posts[y], pos_ptr, positions, w)
    for x in range(m_f, m):
        r = ranks[x] - n_freq
        for k in range(csr_ptr[r], csr_ptr[r + 1]):
            y = slot[csr_other[k]]
            if y >= 0:
                out[csr_pid[k]] += _unit_work(kind, bits, x, y, cw, posts[x], posts[y], pos_ptr, positions,
                                              w)
    for x in range(m):
        p = self_pid[ranks[x]]
        if p >= 0:
            out[p] += _unit_work(kind, bits, x, x, cw, posts[x], posts[x], pos_ptr, positions, w)


@numba.njit(cache=True, nogil=True, parallel=True)
def _pair_pass(kind, w, mode, dlist, dptr, ent_rank, ent_post, pos_ptr, positions, doc_lengths, n_freq,
               pid, csr_ptr, csr_other, csr_pid, self_pid, n_out, bounds):
    """Units shared by every requested pair, in one pass over the documents holding topic words.

    Each document's entries (the selected words it holds) are visited once for all pairs and
    topics; for windows, each entry's window starts are a bitset (one bit per window start)
    built from its positions, so a pair costs a few AND + popcounts.  Document ranges
    ``bounds`` run in parallel with their own accumulators, summed at the end (integer sums:
    the result does not depend on the threads).  Returns ``(joint, single)`` (``single``:
    windows of each rank; only for ``kind == _WINDOWS``).
    """
    n_chunks = len(bounds) - 1
    n_words = len(self_pid)
    acc = np.zeros((n_chunks, n_out), dtype=np.int64)
    acc_single = np.zeros((n_chunks, n_words), dtype=np.int64)
    for c in numba.prange(n_chunks):
        out = acc[c]
        single = acc_single[c]
        slot = np.full(n_words, -1, dtype=np.int64)
        bits = np.zeros(_BITSET_WORDS if kind == _WINDOWS else 1, dtype=np.uint64)
        cur = np.zeros(n_words, dtype=np.int64)
        qcur = np.zeros(n_words, dtype=np.int64)
        for r in range(bounds[c], bounds[c + 1]):
            e0, e1 = dptr[r], dptr[r + 1]
            ranks = ent_rank[e0:e1]
            posts = ent_post[e0:e1]
            m = e1 - e0
            for x in range(m):
                slot[ranks[x]] = x
            if kind != _WINDOWS:
                _doc_pairs(out, kind, bits, 0, ranks, posts, slot, n_freq, pid, csr_ptr, csr_other,
                           csr_pid, self_pid, pos_ptr, positions, w)
            else:
                n = doc_lengths[dlist[r]]
                last = n - 1 if mode == 2 else n - w
                n_starts = n + w - 1 if mode == 2 else (last + 1 if last > 0 else 1)
                total_words = (n_starts + 63) >> 6
                cw = min(total_words, max(1, _BITSET_WORDS // m))
                for x in range(m):
                    cur[x] = pos_ptr[posts[x]]
                    qcur[x] = cur[x]
                for c0 in range(0, n_starts, 64 * cw):
                    c1 = min(c0 + 64 * cw, n_starts) - 1
                    bits[: m * cw] = 0
                    for x in range(m):
                        row = bits[x * cw:(x + 1) * cw]
                        if n_starts == 1:
                            row[0] = np.uint64(1)
                        else:
                            cur[x], qcur[x] = _fill_row(row, cur[x], pos_ptr[posts[x] + 1], qcur[x],
                                                        positions, c0, c1, w, last, mode)
                        for k in range(cw):
                            single[ranks[x]] += _popcount(row[k])
                    _doc_pairs(out, kind, bits, cw, ranks, posts, slot, n_freq, pid, csr_ptr, csr_other,
                               csr_pid, self_pid, pos_ptr, positions, w)
            for x in range(m):
                slot[ranks[x]] = -1
    joint = np.zeros(n_out, dtype=np.int64)
    total = np.zeros(n_words, dtype=np.int64)
    for c in range(n_chunks):
        joint += acc[c]
        total += acc_single[c]
    return joint, total


@numba.njit(cache=True, nogil=True)
def _subset_kernel(topic_loc, wptr, docs, iptr, starts, ends):
    """Units holding every word of each subset of each topic's words (bit ``i`` = position ``i``).

    Each word's window starts form disjoint, non-touching intervals per document, so
    entering/leaving toggles its bit; a sweep over the sorted interval boundaries adds the
    length of every stretch to the count of its exact word set, and a superset sum turns
    "exactly this set" into "at least this set".  Entry 0 is left 0 (callers set the total).
    """
    n_t, k = topic_loc.shape
    out = np.zeros((n_t, 1 << k), dtype=np.int64)
    for t in range(n_t):
        n_ev = 0
        top = 0
        for i in range(k):
            w = topic_loc[t, i]
            if w >= 0:
                n_ev += 2 * (iptr[wptr[w + 1]] - iptr[wptr[w]])
                for g in range(wptr[w], wptr[w + 1]):
                    for u in range(iptr[g], iptr[g + 1]):
                        if ends[u] + 2 > top:
                            top = ends[u] + 2
        key = np.empty(n_ev, dtype=np.int64)
        bit = np.empty(n_ev, dtype=np.int64)
        m = 0
        for i in range(k):
            w = topic_loc[t, i]
            if w < 0:
                continue
            for g in range(wptr[w], wptr[w + 1]):
                d = docs[g]
                for u in range(iptr[g], iptr[g + 1]):
                    key[m] = d * top + starts[u]
                    bit[m] = 1 << i
                    key[m + 1] = d * top + ends[u] + 1
                    bit[m + 1] = 1 << i
                    m += 2
        order = np.argsort(key, kind="mergesort")
        sig = 0
        prev = -1
        for r in range(n_ev):
            e = order[r]
            if sig != 0:
                out[t, sig] += key[e] - prev  # a stretch never crosses documents: sig is 0 there
            sig ^= bit[e]
            prev = key[e]
        for b in range(k):
            step = 1 << b
            for mask in range(1 << k):
                if not mask & step:
                    out[t, mask] += out[t, mask | step]
    return out


# --------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------
@dataclass
class CooccurrenceCounts:
    """Counts of units (documents or windows) for a list of words and pairs of them.

    ``n_units`` is the total number of units, ``single[i]`` the units holding
    word ``i``, and ``joint[m]`` the units holding both words of ``pairs[m]``
    (indices into the word lists; for crosslingual counts ``pairs[m, 0]``
    indexes the left words and ``pairs[m, 1]`` the right ones).  ``unit`` is
    ``"doc"`` or ``"window=<w>"``.
    """

    n_units: int
    single: np.ndarray
    pairs: np.ndarray
    joint: np.ndarray
    unit: str = "doc"
    single_right: np.ndarray | None = None
    extra: dict = field(default_factory=dict)

    def joint_of(self, i: int, j: int) -> int:
        """Joint count of pair ``(i, j)`` (either order for monolingual counts)."""
        hits = np.flatnonzero(((self.pairs[:, 0] == i) & (self.pairs[:, 1] == j))
                              | ((self.pairs[:, 0] == j) & (self.pairs[:, 1] == i)))
        if len(hits) == 0:
            raise KeyError(f"pair ({i}, {j}) was not counted")
        return int(self.joint[hits[0]])


def _concat(postings: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    ptr = np.zeros(len(postings) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(p) for p in postings])
    docs = (np.concatenate([np.asarray(p, dtype=np.int64) for p in postings]) if len(postings)
            else np.zeros(0, dtype=np.int64))
    return docs, ptr


def _as_pairs(pairs) -> np.ndarray:
    arr = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return np.ascontiguousarray(arr)


def _as_mask(mask) -> tuple[np.ndarray, bool]:
    if mask is None:
        return np.zeros(1, dtype=np.bool_), False
    return np.ascontiguousarray(mask, dtype=np.bool_), True


def intersect_count(a: np.ndarray, b: np.ndarray, mask: np.ndarray | None = None) -> int:
    """Number of ids in both sorted, duplicate-free id arrays ``a`` and ``b`` (and in ``mask``)."""
    a = np.ascontiguousarray(a, dtype=np.int64)
    b = np.ascontiguousarray(b, dtype=np.int64)
    m, use = _as_mask(mask)
    return int(_intersect_count(a, 0, len(a), b, 0, len(b), m, use))


def document_counts(postings: Sequence[np.ndarray], mask: np.ndarray | None = None) -> np.ndarray:
    """Document frequency of each word from its postings, counting only ids where ``mask`` is true."""
    if mask is None:
        return np.array([len(p) for p in postings], dtype=np.int64)
    docs, ptr = _concat(postings)
    return _masked_sizes(docs, ptr, np.ascontiguousarray(mask, dtype=np.bool_))


def pair_document_counts(left: Sequence[np.ndarray], right: Sequence[np.ndarray], pairs,
                         mask: np.ndarray | None = None) -> np.ndarray:
    """Co-document counts ``|left[i] ∩ right[j] ∩ mask|`` for every ``(i, j)`` in ``pairs``.

    ``left`` and ``right`` are lists of sorted document-id arrays over one
    shared id space (pass the same list twice for monolingual counts).
    """
    a_docs, a_ptr = _concat(left)
    b_docs, b_ptr = (a_docs, a_ptr) if right is left else _concat(right)
    m, use = _as_mask(mask)
    top = max(int(a_docs.max()) if len(a_docs) else 0, int(b_docs.max()) if len(b_docs) else 0)
    n_space = max(top + 1, len(m) if use else 0)
    a_ids = np.arange(len(a_ptr) - 1, dtype=np.int64)
    b_ids = np.arange(len(b_ptr) - 1, dtype=np.int64)
    return _pair_doc_kernel(a_ids, a_ptr, a_docs, b_ids, b_ptr, b_docs, _as_pairs(pairs), m, use, n_space)


def _rare_pairs(lo: np.ndarray, hi: np.ndarray, rare: np.ndarray, n_words: int, n_freq: int):
    """CSR of the pairs ``rare`` listed under their rarer word ``hi`` (rank >= ``n_freq``)."""
    idx = np.flatnonzero(rare)
    idx = idx[np.argsort(hi[idx], kind="stable")]
    ptr = np.zeros(n_words - n_freq + 1, dtype=np.int64)
    np.cumsum(np.bincount(hi[idx] - n_freq, minlength=n_words - n_freq), out=ptr[1:])
    return ptr, lo[idx].astype(np.int64), idx.astype(np.int64)


def _bounds(dptr: np.ndarray) -> np.ndarray:
    """Split the documents into one contiguous range per thread of about equal work (``m**2 + m``)."""
    m = np.diff(dptr)
    cost = np.cumsum(m * m + m)
    n = max(1, min(numba.get_num_threads(), len(m)))
    cuts = np.searchsorted(cost, cost[-1] * np.arange(1, n) / n) if len(m) else np.zeros(0, dtype=np.int64)
    return np.concatenate([[0], cuts, [len(m)]]).astype(np.int64)


def _pair_units(index, word_ids, pairs: np.ndarray, kind: int, window: int = 0, mode: int = 0):
    """Joint units of every pair, and each word's windows (``kind == _WINDOWS``), by :func:`_pair_pass`.

    Words are ranked by document frequency; pairs are deduplicated (either order) and a pair
    ``(i, i)`` gets the word's own count.  The ``_MAX_DENSE_WORDS`` most frequent words share a
    dense pair table; every other pair is listed under its rarer word.
    """
    arr = index.arrays
    ids = np.asarray(word_ids, dtype=np.int64)
    ptr = arr["word_ptr"]
    n_words = len(ids)
    order = np.argsort(-(ptr[ids + 1] - ptr[ids]), kind="stable")
    rank = np.empty(n_words, dtype=np.int64)
    rank[order] = np.arange(n_words)
    ra, rb = rank[pairs[:, 0]], rank[pairs[:, 1]]
    keys, inverse = np.unique(np.minimum(ra, rb) * max(n_words, 1) + np.maximum(ra, rb), return_inverse=True)
    lo, hi = keys // max(n_words, 1), keys % max(n_words, 1)
    n_freq = min(n_words, _MAX_DENSE_WORDS)
    same = lo == hi
    self_pid = np.full(n_words, -1, dtype=np.int64)
    self_pid[lo[same]] = np.flatnonzero(same)
    dense = ~same & (hi < n_freq)
    pid = np.full((n_freq, n_freq), -1, dtype=np.int32)
    pid[lo[dense], hi[dense]] = np.flatnonzero(dense)
    csr_ptr, csr_other, csr_pid = _rare_pairs(lo, hi, ~same & ~dense, n_words, n_freq)
    dlist, dptr, ent_rank, ent_post = _doc_major(ids, order, ptr, arr["post_docs"], index.n_documents)
    joint, single = _pair_pass(kind, int(window), mode, dlist, dptr, ent_rank, ent_post, arr["pos_ptr"],
                               arr["positions"], arr["doc_lengths"], n_freq, pid, csr_ptr, csr_other, csr_pid,
                               self_pid, len(keys), _bounds(dptr))
    return joint[inverse.reshape(-1)], single[rank]


def count_documents(index, word_ids: Sequence[int], pairs) -> CooccurrenceCounts:
    """Boolean-document counts for words of one :class:`~tealeaves.coherence.index.ReferenceIndex`."""
    ids = np.asarray(word_ids, dtype=np.int64)
    ptr = index.arrays["word_ptr"]
    pairs = _as_pairs(pairs)
    joint, _ = _pair_units(index, ids, pairs, _DOCS)
    single = (ptr[ids + 1] - ptr[ids]).astype(np.int64)
    return CooccurrenceCounts(index.n_present, single, pairs, joint, "doc")


def n_windows(doc_lengths: np.ndarray, window: int, present: np.ndarray | None = None,
              compat: str = "exact") -> int:
    """Total number of windows over the (present) documents.

    ``max(1, n - w + 1)`` per document (``exact``, ``gensim``); ``n + w - 1`` for ``jhlau``.
    """
    lengths = np.asarray(doc_lengths, dtype=np.int64)
    if compat == "jhlau":
        per_doc = lengths + int(window) - 1
    else:
        per_doc = np.maximum(1, lengths - int(window) + 1)
    if present is not None:
        per_doc = per_doc[np.asarray(present, dtype=bool)]
    return int(per_doc.sum())


def _check_window(window: int, compat: str) -> None:
    if compat not in COMPAT_MODES:
        raise SettingsError(f"compat={compat!r} is not known; use one of {COMPAT_MODES}")
    if int(window) < 1:
        raise SettingsError(f"window must be at least 1 token, got {window}")


def _intervals(index, word_ids, window: int | None, compat: str):
    """Window-start intervals of the selected words (``window=None``: one unit per document)."""
    arr = index.arrays
    ids = np.asarray(word_ids, dtype=np.int64)
    if window is None:
        ptr, docs = arr["word_ptr"], arr["post_docs"]
        wptr = np.zeros(len(ids) + 1, dtype=np.int64)
        wptr[1:] = np.cumsum(ptr[ids + 1] - ptr[ids])
        sel = (np.concatenate([docs[ptr[i]:ptr[i + 1]] for i in ids]).astype(np.int64) if len(ids)
               else np.zeros(0, dtype=np.int64))
        zeros = np.zeros(len(sel), dtype=np.int64)
        return wptr, sel, np.arange(len(sel) + 1, dtype=np.int64), zeros, zeros, np.diff(wptr)
    return _window_intervals(ids, arr["word_ptr"], arr["post_docs"], arr["pos_ptr"], arr["positions"],
                             arr["doc_lengths"], int(window), _MODE_CODE[compat])


def _window_units(index, window: int, compat: str) -> int:
    if compat == "jhlau":
        return n_windows(index.doc_lengths, window, index.present, compat)
    return index.window_total(int(window))


def count_windows(index, word_ids: Sequence[int], pairs, window: int,
                  compat: str = "exact") -> CooccurrenceCounts:
    """Boolean sliding-window counts (see the module docstring) for words of one index."""
    _check_window(window, compat)
    pairs = _as_pairs(pairs)
    joint, single = _pair_units(index, word_ids, pairs, _WINDOWS, int(window), _MODE_CODE[compat])
    return CooccurrenceCounts(_window_units(index, window, compat), single, pairs, joint,
                              f"window={int(window)}")


def count_subsets(index, word_ids: Sequence[int], topics, window: int | None = None,
                  compat: str = "exact") -> tuple[np.ndarray, int]:
    """Units holding all words of every subset of each topic's words.

    ``topics`` is a ``(T, k)`` array of indices into ``word_ids`` (``-1``: no word);
    returns ``(counts, n_units)`` with ``counts[t, mask]`` the units holding every word
    at the positions set in ``mask`` (``counts[t, 0] = n_units``).  ``window=None``
    counts documents; otherwise boolean sliding windows under ``compat``.
    """
    loc = np.ascontiguousarray(np.asarray(topics, dtype=np.int64).reshape(len(topics), -1))
    if loc.shape[1] > MAX_SUBSET_WORDS:
        raise SettingsError(f"word-set counts need 2**k subsets per topic; k={loc.shape[1]} is more than "
                            f"{MAX_SUBSET_WORDS}", fix=f"score at most {MAX_SUBSET_WORDS} words per topic")
    if window is None:
        n_units = index.n_present
    else:
        _check_window(window, compat)
        n_units = _window_units(index, window, compat)
    wptr, docs, iptr, starts, ends, _ = _intervals(index, word_ids, window, compat)
    counts = _subset_kernel(loc, wptr, docs, iptr, starts, ends)
    counts[:, 0] = n_units
    return counts, n_units


def count_context(index, word_ids: Sequence[int], pairs, window: int) -> CooccurrenceCounts:
    """Palmetto's context-window counts (``P_cw``, C_A): see the module docstring.

    ``single`` is each word's number of tokens, ``joint[m]`` the occurrence pairs of
    ``pairs[m]`` at most ``window`` tokens apart, ``n_units`` = ``sum(n - window + 1)``
    over the present documents.
    """
    if int(window) < 1:
        raise SettingsError(f"window must be at least 1 token, got {window}")
    ids = np.asarray(word_ids, dtype=np.int64)
    ptr, pos_ptr = index.arrays["word_ptr"], index.arrays["pos_ptr"]
    pairs = _as_pairs(pairs)
    joint, _ = _pair_units(index, ids, pairs, _CONTEXT, int(window))
    single = (pos_ptr[ptr[ids + 1]] - pos_ptr[ptr[ids]]).astype(np.int64)
    lengths = index.doc_lengths[index.present].astype(np.int64)
    n_units = int((lengths - int(window) + 1).sum())
    if n_units <= 0:
        raise EmptyInputError(f"context windows of {int(window)} tokens count sum(n - {int(window) - 1}) "
                              f"over the documents, {n_units} for the reference {index.name!r}",
                              fix="use a reference with longer documents, or a smaller window")
    return CooccurrenceCounts(n_units, single, pairs, joint, f"context={int(window)}")
