"""The topic-major kernels behind :func:`tealeaves.coherence.core.count_topic_documents` and
``count_topic_windows``: the documents (or windows) holding each set of one topic's words, counted topic
by topic from the postings alone, and the documents holding each pair of one topic's words, counted
from bitmaps of a block's documents.

Where the pair kernels (:mod:`tealeaves.coherence._kernels`, :mod:`tealeaves.coherence._kernels_frequent`)
count each distinct pair of words once over the whole reference, this one reads each topic's words'
postings together, so its work is the sum over topics of their words' postings, with no search and no
table of pairs: cheaper when the topics share few words, as the topics of one model mostly do (80
topics of 10 words drawn from the commonest words of a 1 B-token reference: 1.0 s against 4.3-5.1 s).
"""

from __future__ import annotations

import numba
import numpy as np

from tealeaves._compiled import stop_requested
from tealeaves.coherence._kernels import ThreadedKernel, _ctpop, _lower_bound

#: Documents per block of :func:`_topic_document_kernel`: its ``uint16`` word set per document is then
#: 32 KiB, within a core's first-level cache (blocks of 2**16 documents took 15% longer: 80 x 10, 1 B
#: tokens).
TOPIC_BLOCK = 1 << 14

#: Most words per topic the kernel takes (a document's set of them is a ``uint16``; its table of word
#: sets has ``2**k`` entries).
TOPIC_MAX_WORDS = 12


@numba.njit(cache=True, nogil=True)
def _block_sets(t, b0, block, n_docs, topic_loc, wlo, whi, cur, docs, sets, hist):
    """Add to ``hist`` the documents ``b0 .. b0 + block - 1`` (below ``n_docs``) by the set of topic
    ``t``'s words they hold (``hist[0]`` takes junk), moving each word's cursor ``cur`` past them; False
    when a posting lies before ``b0`` (postings out of order across blocks: a damaged index).  A posting
    at or past ``n_docs`` is left unread, which the caller finds."""
    b1 = min(b0 + block, n_docs)
    ok = True
    for i in range(topic_loc.shape[1]):  # each document's set of words, as bits
        w = topic_loc[t, i]
        if w < 0:
            continue
        bit = np.uint16(1 << i)
        g = cur[i]
        while g < whi[w] and docs[g] < b1:
            d = docs[g] - b0
            if d >= 0:
                sets[d] |= bit
            else:
                ok = False
            g += 1
    for i in range(topic_loc.shape[1]):  # each document once: its set counted, then cleared
        w = topic_loc[t, i]
        if w < 0:
            continue
        g = cur[i]
        while g < whi[w] and docs[g] < b1:
            d = docs[g] - b0
            if d >= 0:
                hist[sets[d]] += 1
                sets[d] = 0
            g += 1
        cur[i] = g
    return ok


@numba.njit(cache=True, nogil=True)
def _pairs_of_sets(hist, k, out):
    """``out[a, b]`` (``a <= b``): documents whose word set (``hist``: documents by exact set) holds
    words ``a`` and ``b`` (``out[a, a]``: word ``a``)."""
    for m in range(1, len(hist)):
        c = hist[m]
        if c == 0:
            continue
        for a in range(k):
            if m >> a & 1:
                for b in range(a, k):
                    if m >> b & 1:
                        out[a, b] += c


@numba.njit(cache=True, nogil=True)
def _supersets(hist, k, out):
    """``out[m]``: documents holding at least the words of ``m`` (``hist``: by exact set; ``out[0]``
    left as it is)."""
    for m in range(1, len(hist)):
        out[m] = hist[m]
    for b in range(k):
        step = 1 << b
        for m in range(1, len(hist)):
            if not m & step:
                out[m] += out[m | step]


@numba.njit(cache=True, nogil=True)
def _one_topic(t, topic_loc, wlo, whi, docs, n_docs, block, sets, hist, cur):
    """Documents of topic ``t`` by the exact set of its words they hold, into ``hist`` (zeroed here;
    ``sets`` zero on entry and on return); False for a damaged index (:func:`_block_sets`)."""
    k = topic_loc.shape[1]
    for m in range(len(hist)):
        hist[m] = 0
    for i in range(k):
        cur[i] = wlo[topic_loc[t, i]] if topic_loc[t, i] >= 0 else 0
    ok = True
    for b0 in range(0, n_docs, block):
        ok &= _block_sets(t, b0, block, n_docs, topic_loc, wlo, whi, cur, docs, sets, hist)
    for i in range(k):
        if topic_loc[t, i] >= 0 and cur[i] != whi[topic_loc[t, i]]:
            ok = False  # postings at or past n_docs
    return ok


@ThreadedKernel
def _topic_document_kernel(topic_loc, wlo, whi, docs, n_docs, block, sets, hist, cur, pairs, supersets,
                           damaged, stop):
    """Documents holding each pair and each set of each topic's words, topic by topic.

    Topic ``t``'s word ``i`` is local word ``topic_loc[t, i]`` (``-1``: none), whose postings are
    ``docs[wlo[w]:whi[w]]`` (sorted document slots below ``n_docs``).  The documents are taken in
    blocks of ``block``: each word's postings in the block set its bit in a ``uint16`` per document,
    then each document is counted once by its set of words (:func:`_block_sets`), so the work is the
    topic's postings, read twice, the second time from cache.  The ``P`` rows of the scratch arrays
    ``sets`` (``P x block``, zero), ``hist`` (``P x 2**k``) and ``cur`` (``P x k``) are the ``P`` parts,
    run in parallel, part ``p`` taking topics ``p, p + P, ...`` (every array is allocated by the
    caller: a kernel that allocates compiles more, :mod:`tealeaves._compiled`).

    Writes ``pairs[t, a, b]`` (``a <= b``; zero on entry): documents holding words ``a`` and ``b``
    of topic ``t`` (the diagonal: each word's documents); ``supersets[t, m]`` (when it has ``T`` rows):
    documents holding at least the words of ``m``; ``damaged[p]``: whether part ``p`` read a posting
    out of order across blocks or past ``n_docs`` (the counts are then not to be used).
    """
    n_parts = len(sets)
    k = topic_loc.shape[1]
    for part in numba.prange(n_parts):
        for t in range(part, len(topic_loc), n_parts):
            if stop_requested(stop):
                break
            if not _one_topic(t, topic_loc, wlo, whi, docs, n_docs, block, sets[part], hist[part], cur[part]):
                damaged[part] = True
            _pairs_of_sets(hist[part], k, pairs[t])
            if len(supersets):
                _supersets(hist[part], k, supersets[t])


#: Documents per block of :func:`_topic_window_kernel`: beside each document's ``uint16`` word set it
#: keeps each topic word's posting per document (``8 k`` bytes a document: 320 KiB for 10 words, within
#: a core's second-level cache).
TOPIC_WINDOW_BLOCK = 1 << 12

_NO_EDGE = np.iinfo(np.int64).max


@numba.njit(cache=True, nogil=True, inline="always")  # no call: no array reference counting
def _sweep_document(s, d, k, gpost, ilo, ihi, starts, ends, exact, u, u_end, inside, ws):
    """Add to ``exact`` the window starts of one document by the exact set of topic words holding them,
    for the words of the set ``s`` (two or more), word ``i``'s intervals being those of its posting
    ``gpost[i, d]``.  Each word's intervals are sorted, disjoint and not touching, so its bit toggles
    at each start and one past each end: a merge of the words' edges (``u``, ``u_end``, ``inside``,
    ``ws``: scratch of ``k``)."""
    m = 0
    for i in range(k):
        if s >> i & 1:
            g = gpost[i, d]
            ws[m] = i
            u[m] = ilo[g]
            u_end[m] = ihi[g]
            inside[m] = 0
            m += 1
    mask = 0
    prev = 0
    while True:
        pos = _NO_EDGE
        for j in range(m):
            if u[j] < u_end[j]:
                e = np.int64(ends[u[j]]) + 1 if inside[j] else np.int64(starts[u[j]])
                if e < pos:
                    pos = e
        if pos == _NO_EDGE:
            return
        if mask != 0:
            exact[mask] += pos - prev
        for j in range(m):
            if u[j] < u_end[j]:
                if inside[j]:
                    if np.int64(ends[u[j]]) + 1 == pos:
                        inside[j] = 0
                        u[j] += 1
                        mask ^= 1 << ws[j]
                elif np.int64(starts[u[j]]) == pos:
                    inside[j] = 1
                    mask ^= 1 << ws[j]
        prev = pos


@numba.njit(cache=True, nogil=True)
def _window_block_sets(t, b0, b1, topic_loc, wptr, docs, ilo, ihi, starts, ends, cur, sets, gpost, exact,
                       edges):
    """Documents ``b0 .. b1 - 1`` of topic ``t``: each document's set of the topic's words, then every
    document holding two or more of them swept (:func:`_sweep_document`) into ``exact``, moving the
    cursors ``cur`` past them; False when a posting lies before ``b0`` (a damaged index)."""
    k = topic_loc.shape[1]
    ok = True
    for i in range(k):
        w = topic_loc[t, i]
        if w < 0:
            continue
        bit = np.uint16(1 << i)
        g = cur[i]
        while g < wptr[w + 1] and docs[g] < b1:
            d = docs[g] - b0
            if d >= 0:
                sets[d] |= bit
                gpost[i, d] = g
            else:
                ok = False
            g += 1
    for i in range(k):
        w = topic_loc[t, i]
        if w < 0:
            continue
        g = cur[i]
        while g < wptr[w + 1] and docs[g] < b1:
            d = docs[g] - b0
            if d >= 0 and sets[d] != 0:
                s = np.int64(sets[d])
                if s & (s - 1):
                    _sweep_document(s, d, k, gpost, ilo, ihi, starts, ends, exact, edges[0], edges[1],
                                    edges[2], edges[3])
                sets[d] = 0
            g += 1
        cur[i] = g
    return ok


@ThreadedKernel
def _topic_window_kernel(topic_loc, wptr, docs, ilo, ihi, starts, ends, n_docs, block, sets, gpost, cur,
                         edges, exact, damaged, stop):
    """Window starts holding exactly each set of two or more of each topic's words, topic by topic.

    The intervals of window starts are those of :func:`tealeaves.coherence._kernels._window_intervals`
    (word ``w``'s postings ``wptr[w]:wptr[w + 1]``, documents ``docs`` below ``n_docs``, posting ``g``'s
    intervals ``ilo[g]:ihi[g]`` of ``starts``/``ends``).  Documents are taken in blocks of ``block``: a
    topic's words' postings in the block mark each document's ``uint16`` set of them (``sets``) and its
    posting per word (``gpost``); then only the documents holding two or more are swept, edge by edge
    (:func:`_sweep_document`).  So the work is the topic's postings, read twice, and the intervals of
    the documents where its words meet (a word's windows alone are its windows less these, which the
    caller works out).  The ``P`` parts run in parallel, part ``p`` taking topics ``p, p + P, ...``, each
    with its own rows of the scratch arrays (allocated by the caller): ``sets`` (``P x block``, zero),
    ``gpost`` (``P x k x block``), ``cur`` (``P x k``), ``edges`` (``P x 4 x k``).

    Adds to ``exact[t, m]`` (``m`` of two or more words) the window starts holding exactly the words of
    ``m`` of topic ``t``; ``damaged[p]``: whether part ``p`` read a posting out of order across blocks or
    past ``n_docs`` (the counts are then not to be used).
    """
    n_parts = len(sets)
    k = topic_loc.shape[1]
    for part in numba.prange(n_parts):
        c = cur[part]
        for t in range(part, len(topic_loc), n_parts):
            if stop_requested(stop):
                break
            for i in range(k):
                c[i] = wptr[topic_loc[t, i]] if topic_loc[t, i] >= 0 else 0
            for b0 in range(0, n_docs, block):
                if not _window_block_sets(t, b0, min(b0 + block, n_docs), topic_loc, wptr, docs, ilo, ihi,
                                          starts, ends, c, sets[part], gpost[part], exact[t], edges[part]):
                    damaged[part] = True
            for i in range(k):
                w = topic_loc[t, i]
                if w >= 0 and c[i] != wptr[w + 1]:
                    damaged[part] = True  # postings at or past n_docs


#: Most documents per block of :func:`_topic_bitmap_kernel`: a word's bitmap of a block is then 128 KiB
#: (blocks of 2**18 documents took as long: 80 x 10 at 1 B tokens).
BITMAP_BLOCK = 1 << 20

#: 64-document words per chunk of the pair pass of :func:`_topic_bitmap_kernel`: a ten-word topic's rows
#: of a chunk are 80 KiB, within a core's second-level cache.
BITMAP_CHUNK = 1024


@numba.njit(cache=True, nogil=True)
def _word_bitmaps(b0, b1, wlo, whi, docs, cur, bits, single, stop):
    """Row ``i`` of ``bits``: the bitmap of word ``i``'s documents among ``b0 .. b1 - 1`` (bit ``d & 63``
    of word ``d >> 6``, ``d`` counted from ``b0``; zeroed first), from its postings ``docs[cur[i]:whi[i]]``
    up to the first at or past ``b1``, which ``cur[i]`` moves to; adds each row's documents to
    ``single[i]``.  False when a posting lies before ``b0`` (postings out of order: a damaged index).
    Returns early, unfinished, once the stop flag ``stop`` is set (read per word)."""
    n_words = (b1 - b0 + 63) >> 6
    ok = True
    for i in range(len(wlo)):
        if stop_requested(stop):
            break
        row = bits[i]
        for x in range(n_words):
            row[x] = 0
        g = cur[i]
        while g < whi[i] and docs[g] < b1:
            d = np.int64(docs[g]) - b0
            if d >= 0:
                row[d >> 6] |= np.uint64(1) << np.uint64(d & 63)
            else:
                ok = False
            g += 1
        cur[i] = g
        n = 0
        for x in range(n_words):
            n += _ctpop(row[x])
        single[i] += n
    return ok


@numba.njit(cache=True, nogil=True)
def _bitmap_pairs(t, topic_loc, bits, n_words, out):
    """Add to ``out[a, b]`` (``a < b``) the documents holding topic ``t``'s words ``a`` and ``b``: the
    population count of the AND of their rows of ``bits`` (``n_words`` 64-document words), a chunk of
    :data:`BITMAP_CHUNK` words at a time so the topic's rows stay in cache across its pairs."""
    k = topic_loc.shape[1]
    for c0 in range(0, n_words, BITMAP_CHUNK):
        c1 = min(c0 + BITMAP_CHUNK, n_words)
        for a in range(k):
            wa = topic_loc[t, a]
            if wa < 0:
                continue
            row_a = bits[wa, c0:c1]  # views from 0: LLVM vectorises the loop below
            for b in range(a + 1, k):
                wb = topic_loc[t, b]
                if wb < 0:
                    continue
                row_b = bits[wb, c0:c1]
                n = 0
                for x in range(c1 - c0):
                    n += _ctpop(row_a[x] & row_b[x])
                out[a, b] += n


@ThreadedKernel
def _topic_bitmap_kernel(topic_loc, wlo, whi, docs, n_docs, block, begin, cur, bits, single, pairs, damaged,
                         stop):
    """Documents holding each pair of each topic's words, from bitmaps of blocks of documents.

    Topic ``t``'s word ``i`` is local word ``topic_loc[t, i]`` (``-1``: none), whose postings are
    ``docs[wlo[w]:whi[w]]`` (sorted document slots below ``n_docs``).  The documents are cut into
    blocks of ``block`` (a multiple of 64), and the ``P`` parts (the rows of ``begin``, ``cur``,
    ``bits``, ``single``, ``pairs``, allocated by the caller) take consecutive runs of them, in
    parallel.  Per block, every word's postings there set its bitmap (:func:`_word_bitmaps`: the work
    is each distinct word's postings, once, and a zeroed row), then every pair of every topic is the
    population count of the AND of two rows (:func:`_bitmap_pairs`: ``block / 64`` words a pair,
    whatever the postings).  So it is cheaper than the word sets of :func:`_topic_document_kernel` when
    the topics' words are frequent: 80 x 10 topics at 1 B tokens took 0.6-0.8 s against 1.1-1.5 s.
    (One set of bitmaps shared by the parts, built and then read in two parallel passes per block,
    took 0.7-1.0 s: both threads then stream postings at once, then both count.)

    Part ``p`` starts each word at ``begin[p, i]``, its first posting at or past the part's first
    document (a binary search; ``wlo`` for part 0), and leaves ``cur[p, i]`` at the first at or past its
    last block's end.  On a sound index ``cur[p] == begin[p + 1]`` and ``cur[P - 1] == whi``: the
    caller checks that, and with ``damaged[p]`` (a posting before its block), that each posting was
    read once, in its own block.  The stop flag is read per block, per word of a block and per topic.

    Adds to ``pairs[p, t, a, b]`` (``a < b``; zero on entry) part ``p``'s documents holding words ``a``
    and ``b`` of topic ``t``, and to ``single[p, i]`` its documents holding word ``i``.
    """
    n_parts = len(bits)
    n_blocks = (n_docs + block - 1) // block
    for part in numba.prange(n_parts):
        first = n_blocks * part // n_parts
        last = n_blocks * (part + 1) // n_parts
        c = cur[part]
        for i in range(len(wlo)):
            begin[part, i] = wlo[i] if part == 0 else _lower_bound(docs, wlo[i], whi[i], first * block)
            c[i] = begin[part, i]
        for blk in range(first, last):
            if stop_requested(stop):
                break
            b0 = blk * block
            b1 = min(b0 + block, n_docs)
            if not _word_bitmaps(b0, b1, wlo, whi, docs, c, bits[part], single[part], stop):
                damaged[part] = True
            for t in range(len(topic_loc)):
                if stop_requested(stop):
                    break
                _bitmap_pairs(t, topic_loc, bits[part], (b1 - b0 + 63) >> 6, pairs[part, t])
