"""Compiled scan of ASCII text for :data:`~tealeaves.corpus.preprocess.LETTERS_PATTERN` (see
:meth:`~tealeaves.corpus.Preprocessor.scan`).

In ASCII text the pattern ``(?u)\\b[^\\W\\d_][^\\W\\d_]+\\b`` matches exactly the maximal runs of word
characters (``[A-Za-z0-9_]``: Unicode ``\\w`` restricted to ASCII) that are made only of letters and are
at least two long: a match starts at a word boundary, takes letters, and must end at a word boundary,
which between two word characters it cannot.  This kernel finds those runs in one pass over the bytes
and numbers them by content with an open-addressing hash table (a slot is matched by comparing the
bytes, so numbering is exact), so no Python object is made per token.
"""

from __future__ import annotations

import numba
import numpy as np

_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)


@numba.njit(cache=True, inline="always")
def _is_letter(c) -> bool:
    return (97 <= c <= 122) or (65 <= c <= 90)


@numba.njit(cache=True, inline="always")
def _is_word(c) -> bool:
    return (97 <= c <= 122) or (65 <= c <= 90) or (48 <= c <= 57) or c == 95


@numba.njit(cache=True)
def _rehash(w_hash, n_words, cap):
    """A table of ``cap`` slots holding words ``0..n_words-1`` (linear probing from their hashes)."""
    mask = np.uint64(cap - 1)
    table = np.full(cap, -1, dtype=np.int32)
    for w in range(n_words):
        slot = w_hash[w] & mask
        while table[slot] >= 0:
            slot = (slot + np.uint64(1)) & mask
        table[slot] = w
    return table


@numba.njit(cache=True)
def letter_runs(buf, ends):
    """Runs of ``buf`` (ASCII bytes of texts ending at ``ends``) that the letters pattern matches.

    Returns ``(ids, counts, starts, lengths)``: the word number of every match in order, the number of
    matches of each text, and where (in ``buf``) and how long each distinct word first occurs.
    """
    n = len(buf)
    limit = n // 3 + 2  # a match has two bytes and is followed by a non-word byte or a text's end
    cap = 1 << 12  # slots; doubled whenever half full, so the table stays as small as the vocabulary
    mask = np.uint64(cap - 1)
    table = np.full(cap, -1, dtype=np.int32)
    w_start = np.empty(limit, dtype=np.int64)
    w_len = np.empty(limit, dtype=np.int64)
    w_hash = np.empty(limit, dtype=np.uint64)
    w_head = np.empty(limit, dtype=np.uint64)
    ids = np.empty(limit, dtype=np.int32)
    counts = np.zeros(len(ends), dtype=np.int64)
    n_words = 0
    n_tok = 0
    i = 0
    for k in range(len(ends)):
        end = ends[k]
        while i < end:
            if not _is_word(buf[i]):
                i += 1
                continue
            start = i
            letters = True
            h = _FNV_OFFSET
            head = np.uint64(0)  # the first 8 bytes, packed: words of up to 8 bytes compare in one step
            while i < end and _is_word(buf[i]):
                c = buf[i]
                if not _is_letter(c):
                    letters = False
                h = (h ^ np.uint64(c)) * _FNV_PRIME
                if i - start < 8:
                    head |= np.uint64(c) << np.uint64(8 * (i - start))
                i += 1
            size = i - start
            if not letters or size < 2:
                continue
            slot = h & mask
            while True:
                w = table[slot]
                if w < 0:
                    w = n_words
                    table[slot] = w
                    w_start[w] = start
                    w_len[w] = size
                    w_hash[w] = h
                    w_head[w] = head
                    n_words += 1
                    if 2 * n_words > cap:
                        cap *= 2
                        mask = np.uint64(cap - 1)
                        table = _rehash(w_hash, n_words, cap)
                    break
                if w_hash[w] == h and w_len[w] == size and w_head[w] == head:
                    same = True
                    a = w_start[w]
                    for j in range(8, size):  # the bytes after the first 8
                        if buf[a + j] != buf[start + j]:
                            same = False
                            break
                    if same:
                        break
                slot = (slot + np.uint64(1)) & mask
            ids[n_tok] = w
            n_tok += 1
            counts[k] += 1
        i = end
    return ids[:n_tok].copy(), counts, w_start[:n_words].copy(), w_len[:n_words].copy()


@numba.njit(cache=True)
def word_blob(buf, starts, sizes):
    """The words ``buf[starts[i]:starts[i] + sizes[i]]`` joined by single spaces (one decode for all)."""
    out = np.empty(max(int(sizes.sum()) + len(sizes) - 1, 0), dtype=np.uint8)
    p = 0
    for w in range(len(starts)):
        if w:
            out[p] = 32
            p += 1
        for j in range(sizes[w]):
            out[p] = buf[starts[w] + j]
            p += 1
    return out
