"""The topic-major document kernel behind :func:`tealeaves.coherence.core.count_topic_documents`: the
documents holding each set of one topic's words, counted topic by topic from the postings alone.

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
from tealeaves.coherence._kernels import ThreadedKernel

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
