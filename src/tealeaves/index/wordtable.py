"""The merged vocabulary of a streamed build, from the partial indexes' own word tables.

A streamed build never holds a table of every word of the corpus: each chunk numbers its own words
(:class:`~tealeaves.index.streaming.Chunk`), its partial index stores them (UTF-8 bytes), and the
merge (:func:`merge_word_tables`) walks the partials' vocabularies in byte order at once, in a
compiled K-way merge over the memory-mapped partials.  Byte order of UTF-8 is code-point order, the
order of Python's ``sorted`` over ``str``, so the merged vocabulary is exactly the one a single
in-memory build numbers: sorted (a recipe: as a fitted :class:`~tealeaves.corpus.Preprocessor`
orders it), or in order of first appearance (pre-tokenised input: a word's id is its rank by the
partial, then the position in that partial, of its first occurrence, as partials number their words
in order of first appearance).

Memory: no Python object per word of the merged vocabulary; :data:`WORD_BYTES` per merged word and
:data:`PAIR_BYTES` per word of each partial (:func:`word_table_bytes`), which the build accounts in
its budget (:func:`tealeaves.index.memory.check_merge_memory`).  One partial's words are decoded at a
time (pre-tokenised input: to sort them).
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np
from numba.typed import List as TypedList

from tealeaves import _interrupt
from tealeaves._compiled import stop_requested

#: Bytes held per word of the merged vocabulary by the merge (its UTF-8 bytes (about 10), offset, document
#: and token counts, pointers, first occurrence and first-appearance rank, with slack).
WORD_BYTES = 96
#: Bytes held per word of each partial's vocabulary by the merge (its merged id, sorted position and order).
PAIR_BYTES = 24


def word_table_bytes(n_pairs: int, n_words: int) -> int:
    """Memory the merge's word tables take: ``n_words`` merged words, ``n_pairs`` partial words.

    Parameters
    ----------
    n_pairs : int
        Words summed over the partials' vocabularies.
    n_words : int
        Distinct words of the merged vocabulary.

    Returns
    -------
    int
        Bytes.
    """
    return n_pairs * PAIR_BYTES + n_words * WORD_BYTES


@numba.njit(cache=True, nogil=True)
def _compare(a, a0, a1, b, b0, b1):
    """-1, 0 or 1 as the bytes ``a[a0:a1]`` sort before, equal or after ``b[b0:b1]``."""
    n = min(a1 - a0, b1 - b0)
    for j in range(n):
        x, y = a[a0 + j], b[b0 + j]
        if x != y:
            return -1 if x < y else 1
    la, lb = a1 - a0, b1 - b0
    return 0 if la == lb else (-1 if la < lb else 1)


@numba.njit(cache=True, nogil=True)
def _merge_sorted(blobs, offs, orders, maps, first_part, first_local, out_blob, out_off, count_only, stop):
    """K-way merge of the partials' vocabularies (partial ``k``'s words in byte order are
    ``orders[k]``); numbers each distinct word by its rank (``maps[k][local]``), records its first
    occurrence (lowest partial, ``first_part`` / ``first_local``) and writes its bytes (``out_blob``,
    ``out_off``), unless ``count_only``.  Returns ``(words, bytes)``; early, unfinished, on a stop."""
    n_parts = len(blobs)
    cur = np.zeros(n_parts, dtype=np.int64)
    n, nb = 0, 0
    while True:
        if n % 4096 == 0 and stop_requested(stop):
            return n, nb
        best, b0, b1 = -1, 0, 0
        for k in range(n_parts):
            if cur[k] < len(orders[k]):
                lk = orders[k][cur[k]]
                k0, k1 = offs[k][lk], offs[k][lk + 1]
                if best < 0 or _compare(blobs[k], k0, k1, blobs[best], b0, b1) < 0:
                    best, b0, b1 = k, k0, k1
        if best < 0:
            return n, nb
        word = blobs[best]
        if not count_only:
            for j in range(b0, b1):
                out_blob[nb + j - b0] = word[j]
            out_off[n + 1] = nb + b1 - b0
            first_part[n] = -1
        nb += b1 - b0
        for k in range(n_parts):  # every partial holding the word, in partial order
            if cur[k] < len(orders[k]):
                lk = orders[k][cur[k]]
                if _compare(blobs[k], offs[k][lk], offs[k][lk + 1], word, b0, b1) == 0:
                    if not count_only:
                        maps[k][lk] = n
                        if first_part[n] < 0:
                            first_part[n] = k
                            first_local[n] = lk
                    cur[k] += 1
        n += 1


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
        if _compare(blob, offsets[i], offsets[i + 1], blob, offsets[i + 1], offsets[i + 2]) >= 0:
            return False
    return True


def _byte_order(blob: np.ndarray, offsets: np.ndarray, decode) -> np.ndarray:
    """The local ids of a partial's words in sorted (code-point, i.e. UTF-8 byte) order."""
    if _is_sorted(blob, offsets):
        return np.arange(len(offsets) - 1, dtype=np.int32)
    words = decode(blob, offsets)
    return np.array(sorted(range(len(words)), key=words.__getitem__), dtype=np.int32)


def merge_word_tables(tables: Sequence[tuple[np.ndarray, np.ndarray]], sort_words: bool, decode=None
                      ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """The merged vocabulary of partial vocabularies, and each partial's word ids in it.

    Parameters
    ----------
    tables : sequence of (numpy.ndarray, numpy.ndarray)
        Each partial's ``(vocab_blob, vocab_offsets)`` (UTF-8 bytes and int64 offsets; memory-mapped),
        in id-space order, each numbering its words in order of first appearance (or sorted).
    sort_words : bool
        Number the merged words in sorted order (else in order of first appearance).
    decode : callable, optional
        ``decode(blob, offsets)`` -> list of str (to sort a first-appearance partial's words; default
        :func:`tealeaves.index.format.decode_strings`).

    Returns
    -------
    vocab_blob : numpy.ndarray
        The merged words' UTF-8 bytes (uint8), in id order.
    vocab_offsets : numpy.ndarray
        Where each starts and ends (int64, ``n_words + 1``).
    maps : list of numpy.ndarray
        For each partial, the merged id (int64) of each of its words.
    """
    if decode is None:
        from tealeaves.index.format import decode_strings as decode
    blobs, offs, orders, maps = TypedList(), TypedList(), TypedList(), []
    for blob, offsets in tables:
        blob, offsets = np.ascontiguousarray(blob, dtype=np.uint8), np.ascontiguousarray(offsets, np.int64)
        n = len(offsets) - 1
        blobs.append(blob)
        offs.append(offsets)
        orders.append(_byte_order(blob, offsets, decode))
        maps.append(np.empty(n, dtype=np.int64))
    if not len(blobs):
        return np.zeros(0, np.uint8), np.zeros(1, np.int64), maps
    typed_maps = TypedList(maps)
    none32, none8, none64 = np.zeros(0, np.int32), np.zeros(0, np.uint8), np.zeros(1, np.int64)
    n_words, n_bytes = _interrupt.call(_merge_sorted, blobs, offs, orders, typed_maps, none32, none32, none8,
                                       none64, True)
    first_part, first_local = np.empty(n_words, np.int32), np.empty(n_words, np.int32)
    out_blob, out_off = np.empty(n_bytes, np.uint8), np.zeros(n_words + 1, np.int64)
    _interrupt.call(_merge_sorted, blobs, offs, orders, typed_maps, first_part, first_local, out_blob,
                    out_off, False)
    if sort_words:
        return out_blob, out_off, maps
    order = np.lexsort((first_local, first_part))  # merged (sorted) ids by first occurrence
    del first_part, first_local
    rank = np.empty(n_words, dtype=np.int64)
    rank[order] = np.arange(n_words, dtype=np.int64)
    for m in maps:
        np.take(rank, m, out=m)
    del rank
    blob, offsets = np.empty(n_bytes, np.uint8), np.empty(n_words + 1, np.int64)
    _gather_words(out_blob, out_off, order, blob, offsets)
    return blob, offsets, maps
