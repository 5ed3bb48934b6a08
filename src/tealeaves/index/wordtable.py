"""The merged vocabulary of a streamed build, from the partial indexes' own word tables.

A streamed build never holds a table of every word of the corpus: each chunk numbers its own words
(:class:`~tealeaves.index.chunk.Chunk`), its partial index stores them (UTF-8 bytes), and the
merge (:func:`merge_word_tables`) walks the partials' vocabularies (their bytes read into one array)
in byte order at once, in a compiled K-way merge.  Byte order of UTF-8 is code-point order, the
order of Python's ``sorted`` over ``str``, so the merged vocabulary is exactly the one a single
in-memory build numbers: sorted (a recipe: as a fitted :class:`~tealeaves.corpus.Preprocessor`
orders it), or in order of first appearance (pre-tokenised input: a word's id is its rank by the
partial, then the position in that partial, of its first occurrence, as partials number their words
in order of first appearance).

Memory: no Python object per word; :data:`WORD_BYTES` per merged word, :data:`PAIR_BYTES` per word of
each partial and the words' UTF-8 bytes twice (:func:`word_table_bytes`), which the build accounts in
its budget (:func:`tealeaves.index.memory.check_merge_memory`).  A partial whose words are not sorted
(pre-tokenised input numbers them by first appearance) is sorted by a compiled merge sort over its bytes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np

from tealeaves import _interrupt
from tealeaves._compiled import filled, stop_requested
from tealeaves.corpus._scan import _FNV_OFFSET, _FNV_PRIME

#: Bytes held per word of the merged vocabulary by the merge (its offset, document and token counts,
#: pointers, first occurrence and first-appearance rank, with slack; its bytes are counted apart).
WORD_BYTES = 96
#: Bytes held per word of each partial's vocabulary by the merge (its offset, sorted position and merged id,
#: and the postings copy's order; its bytes are counted apart).
PAIR_BYTES = 40


def word_table_bytes(n_pairs: int, n_words: int, n_bytes: int) -> int:
    """Memory the merge's word tables take: ``n_words`` merged words, ``n_pairs`` partial words of
    ``n_bytes`` UTF-8 bytes in all (held once, and at most once more for the merged words).

    Parameters
    ----------
    n_pairs : int
        Words summed over the partials' vocabularies.
    n_words : int
        Distinct words of the merged vocabulary.
    n_bytes : int
        UTF-8 bytes of the partials' vocabularies.

    Returns
    -------
    int
        Bytes.
    """
    return n_pairs * PAIR_BYTES + n_words * WORD_BYTES + 2 * n_bytes


@numba.njit(cache=True, nogil=True)
def _compare(a, a0, a1, b0, b1):
    """-1, 0 or 1 as the bytes ``a[a0:a1]`` sort before, equal or after ``a[b0:b1]``."""
    n = min(a1 - a0, b1 - b0)
    for j in range(n):
        x, y = a[a0 + j], a[b0 + j]
        if x != y:
            return -1 if x < y else 1
    la, lb = a1 - a0, b1 - b0
    return 0 if la == lb else (-1 if la < lb else 1)


@numba.njit(cache=True, nogil=True)
def _merge_sorted(blob, offsets, base, orders, maps, first_part, first_local, out_blob, out_off, stop):
    """K-way merge of the partials' vocabularies, concatenated: partial ``k``'s words are ``base[k]`` to
    ``base[k + 1]`` of ``offsets`` (into ``blob``), in byte order ``base[k] + orders[base[k]:base[k + 1]]``.
    Numbers each distinct word by its rank (``maps``), records its first occurrence (lowest partial,
    ``first_part`` / ``first_local``) and writes its bytes (``out_blob``, ``out_off``).  Returns
    ``(words, bytes)``; early, unfinished, on a stop."""
    n_parts = len(base) - 1
    cur = base[:-1].copy()
    ties = np.empty(n_parts, dtype=np.int64)  # the partials whose current word is the smallest
    n, nb = 0, 0
    while True:
        if n % 4096 == 0 and stop_requested(stop):
            return n, nb
        n_ties, b0, b1 = 0, 0, 0
        for k in range(n_parts):
            if cur[k] < base[k + 1]:
                p = base[k] + orders[cur[k]]
                k0, k1 = offsets[p], offsets[p + 1]
                c = -1 if n_ties == 0 else _compare(blob, k0, k1, b0, b1)
                if c < 0:
                    n_ties, b0, b1 = 0, k0, k1
                if c <= 0:
                    ties[n_ties] = k
                    n_ties += 1
        if n_ties == 0:
            return n, nb
        out_blob[nb:nb + b1 - b0] = blob[b0:b1]
        nb += b1 - b0
        out_off[n + 1] = nb
        first_part[n] = ties[0]  # partials are in order: the first holding the word
        first_local[n] = orders[cur[ties[0]]]
        for t in range(n_ties):
            k = ties[t]
            maps[base[k] + orders[cur[k]]] = n
            cur[k] += 1
        n += 1


@numba.njit(cache=True, nogil=True)
def _sort_words(blob, offsets):
    """The ids of the words ``(blob, offsets)`` in byte order (a stable bottom-up merge sort)."""
    n = len(offsets) - 1
    a = np.arange(n).astype(np.int32)
    b = np.empty(n, dtype=np.int32)
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid, hi = min(lo + width, n), min(lo + 2 * width, n)
            i, j, o = lo, mid, lo
            while i < mid and j < hi:
                x, y = a[i], a[j]
                if _compare(blob, offsets[y], offsets[y + 1], offsets[x], offsets[x + 1]) < 0:
                    b[o] = y
                    j += 1
                else:
                    b[o] = x
                    i += 1
                o += 1
            while i < mid:
                b[o] = a[i]
                i += 1
                o += 1
            while j < hi:
                b[o] = a[j]
                j += 1
                o += 1
        a, b = b, a
        width *= 2
    return a


@numba.njit(cache=True, nogil=True)
def _gather_words(blob, offsets, order, out_blob, out_off):
    """The words ``order`` of ``(blob, offsets)``, in that order, into ``(out_blob, out_off)``."""
    p = 0
    out_off[0] = 0
    for i in range(len(order)):
        w = order[i]
        for j in range(offsets[w], offsets[w + 1]):
            out_blob[p] = blob[j]
            p += 1
        out_off[i + 1] = p


@numba.njit(cache=True, nogil=True)
def _is_sorted(blob, offsets):
    """Whether the words ``(blob, offsets)`` are in strictly increasing byte order."""
    for i in range(len(offsets) - 2):
        if _compare(blob, offsets[i], offsets[i + 1], offsets[i + 1], offsets[i + 2]) >= 0:
            return False
    return True


def _byte_order(blob: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The local ids of a partial's words in sorted (code-point, i.e. UTF-8 byte) order."""
    if _is_sorted(blob, offsets):
        return np.arange(len(offsets) - 1, dtype=np.int32)
    return _sort_words(blob, offsets)


def merge_word_tables(tables: Sequence[tuple[np.ndarray, np.ndarray]], sort_words: bool
                      ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """The merged vocabulary of partial vocabularies, and each partial's word ids in it.

    Parameters
    ----------
    tables : sequence of (numpy.ndarray, numpy.ndarray)
        Each partial's ``(vocab_blob, vocab_offsets)`` (UTF-8 bytes and int64 offsets; memory-mapped),
        in id-space order, each numbering its words in order of first appearance (or sorted).
    sort_words : bool
        Number the merged words in sorted order (else in order of first appearance).

    Returns
    -------
    vocab_blob : numpy.ndarray
        The merged words' UTF-8 bytes (uint8), in id order.
    vocab_offsets : numpy.ndarray
        Where each starts and ends (int64, ``n_words + 1``).
    maps : list of numpy.ndarray
        For each partial, the merged id (int64) of each of its words.
    """
    sizes = [len(offsets) - 1 for _, offsets in tables]
    base = np.zeros(len(tables) + 1, dtype=np.int64)
    np.cumsum(sizes, out=base[1:])
    blob = np.empty(sum(len(b) for b, _ in tables), dtype=np.uint8)
    offsets = np.zeros(int(base[-1]) + 1, dtype=np.int64)
    orders = np.empty(int(base[-1]), dtype=np.int32)
    at = 0
    for k, (part_blob, part_offsets) in enumerate(tables):
        part_blob, part_offsets = np.asarray(part_blob), np.asarray(part_offsets)
        blob[at:at + len(part_blob)] = part_blob
        offsets[base[k]:base[k + 1] + 1] = part_offsets + at
        orders[base[k]:base[k + 1]] = _byte_order(part_blob, part_offsets)
        at += len(part_blob)
    maps = np.empty(int(base[-1]), dtype=np.int64)
    # sized for every word distinct: pages never written are never resident
    first_part, first_local = np.empty(len(maps), np.int32), np.empty(len(maps), np.int32)
    out_blob, out_off = np.empty(len(blob), np.uint8), np.zeros(len(maps) + 1, np.int64)
    n_words, n_bytes = _interrupt.call(_merge_sorted, blob, offsets, base, orders, maps, first_part,
                                       first_local, out_blob, out_off)
    out_blob, out_off = out_blob[:n_bytes], out_off[:n_words + 1]
    first_part, first_local = first_part[:n_words], first_local[:n_words]
    del blob, offsets, orders
    parts = [maps[base[k]:base[k + 1]] for k in range(len(tables))]
    if sort_words:
        return out_blob, out_off, parts
    order = np.lexsort((first_local, first_part))  # merged (sorted) ids by first occurrence
    del first_part, first_local
    rank = np.empty(n_words, dtype=np.int64)
    rank[order] = np.arange(n_words, dtype=np.int64)
    np.take(rank, maps, out=maps)
    del rank
    vocab_blob, vocab_offsets = np.empty(n_bytes, np.uint8), np.empty(n_words + 1, np.int64)
    _gather_words(out_blob, out_off, order, vocab_blob, vocab_offsets)
    return vocab_blob, vocab_offsets, parts


#: Bytes of words :func:`_find_words` hashes between two reads of the stop flag.
STOP_CHECK_BYTES = 1 << 20


@numba.njit(cache=True, nogil=True)
def _fnv1a(blob, a, b):
    """64-bit FNV-1a hash of the bytes ``blob[a:b]`` (Fowler, Noll and Vo's hash: XOR each byte in,
    then multiply by the FNV prime)."""
    h = _FNV_OFFSET
    for j in range(a, b):
        h = (h ^ np.uint64(blob[j])) * _FNV_PRIME
    return h


@numba.njit(cache=True, nogil=True)
def _same_bytes(a, a0, a1, b, b0, b1):
    """``a[a0:a1] == b[b0:b1]``."""
    if a1 - a0 != b1 - b0:
        return False
    for j in range(a1 - a0):
        if a[a0 + j] != b[b0 + j]:
            return False
    return True


@numba.njit(cache=True, nogil=True)
def _find_words(blob, offsets, qblob, qoff, stop):
    """Ids of the distinct query words ``qblob[qoff[q]:qoff[q+1]]`` among the words
    ``blob[offsets[i]:offsets[i+1]]`` (``-1``: absent), by one pass over the words' bytes probing an
    open-addressing table of the queries' FNV-1a hashes; the first id of a word found wins.  Returns
    early, unfinished, once the stop flag ``stop`` is set (read every :data:`STOP_CHECK_BYTES` bytes)."""
    nq = len(qoff) - 1
    size = 2
    while size < 2 * nq:
        size *= 2
    mask = np.uint64(size - 1)
    slots = filled(size, -1)
    hashes = np.empty(size, dtype=np.uint64)
    for q in range(nq):
        h = _fnv1a(qblob, qoff[q], qoff[q + 1])
        s = h & mask
        while slots[s] >= 0:
            s = (s + np.uint64(1)) & mask
        slots[s] = q
        hashes[s] = h
    ids = filled(nq, -1)
    read = STOP_CHECK_BYTES
    for i in range(len(offsets) - 1):
        a, b = offsets[i], offsets[i + 1]
        read += b - a + 1
        if read >= STOP_CHECK_BYTES:
            if stop_requested(stop):
                return ids
            read = 0
        h = _fnv1a(blob, a, b)
        s = h & mask
        while slots[s] >= 0:
            q = slots[s]
            if hashes[s] == h and _same_bytes(blob, a, b, qblob, qoff[q], qoff[q + 1]):
                if ids[q] < 0:
                    ids[q] = i
                break
            s = (s + np.uint64(1)) & mask
    return ids


def find_words(blob: np.ndarray, offsets: np.ndarray, words: Sequence[str]) -> np.ndarray:
    """Ids of ``words`` in the word table ``blob``/``offsets`` (UTF-8 bytes and their offsets, as an index
    file stores its vocabulary), ``-1`` for a word not in it, without decoding the table into Python
    strings: one compiled pass over its bytes (:func:`_find_words`), about 70 ms for the 3.9 M words of a
    billion-token reference where decoding them takes 2.4 s.

    Parameters
    ----------
    blob : numpy.ndarray
        ``uint8`` UTF-8 bytes of the table's words, checked (every offset on a character's start).
    offsets : numpy.ndarray
        ``int64`` offsets of each word in ``blob``, a checked pointer (from 0 to ``len(blob)``, rising).
    words : sequence of str
        The words to find (repeats allowed). A string that is not UTF-8 (a lone surrogate) is in no
        table: ``-1``.

    Returns
    -------
    numpy.ndarray
        ``int64`` id of each word, in the order given.
    """
    distinct: dict[str, int] = {}
    codes = np.fromiter((distinct.setdefault(w, len(distinct)) for w in words), dtype=np.int64)
    encoded = []
    for w in distinct:
        try:
            encoded.append(w.encode("utf-8"))
        except UnicodeEncodeError:  # a lone surrogate: no word of a UTF-8 table
            encoded.append(None)
    known = [b for b in encoded if b is not None]
    qoff = np.zeros(len(known) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in known], out=qoff[1:])
    qblob = np.frombuffer(b"".join(known), dtype=np.uint8) if known else np.zeros(0, dtype=np.uint8)
    ids = np.full(len(encoded), -1, dtype=np.int64)
    if known:
        offsets = np.asarray(offsets, dtype=np.int64)
        ids[[b is not None for b in encoded]] = _interrupt.call(_find_words, blob, offsets, qblob, qoff,
                                                                short=len(blob) < (1 << 24))
    return ids[codes]
