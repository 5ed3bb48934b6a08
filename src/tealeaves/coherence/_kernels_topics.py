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
