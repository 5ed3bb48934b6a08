"""Compiled scan of text for :data:`~tealeaves.corpus.preprocess.LETTERS_PATTERN` (see
:meth:`~tealeaves.corpus.Preprocessor.scan`).

The pattern matches exactly the maximal runs of word characters (``\\w``) and attached combining marks
(:data:`~tealeaves.corpus._marks.MARKS`; a mark is attached when it follows a letter or an attached mark)
that start with a letter, hold only letters (``[^\\W\\d_]``: word characters that are neither decimal
digits nor ``_``) and marks, and are at least two long: a match starts where the previous code point is
neither a word character nor a mark, or after a run of marks that follows no letter and no mark (the
unattached marks, which the pattern consumes outside its capture group); it takes letters and marks and
must end where the next code point is neither, which inside a run it cannot be.  This kernel finds those
runs in one pass over the code points of the text (bytes for ASCII text, UTF-32 code units otherwise),
classifying each with :func:`classes` (built from the predicates :mod:`re` itself uses: ``str.isalnum``
or ``_`` for ``\\w``, ``str.isdecimal`` for ``\\d``; the marks from the pattern's own class), and numbers
them by content with an open-addressing hash table (a slot is matched by comparing the code points, so
numbering is exact): no Python object is made per token.
"""

from __future__ import annotations

import re

import numba
import numpy as np

from tealeaves import (
    _compiled,  # noqa: F401 - the notice on a terminal while numba compiles
    _interrupt,
)
from tealeaves._docs import shared_doc
from tealeaves.corpus._marks import MARKS

_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)
#: Classes of :func:`classes`.
NOT_WORD, LETTER, OTHER_WORD, MARK = 0, 1, 2, 3
_CLASSES: list[np.ndarray] = []


def classes() -> np.ndarray:
    r"""The class of every code point for the letters pattern (built on first use, about 0.4 s).

    :data:`LETTER` (``[^\W\d_]``), :data:`OTHER_WORD` (the rest of ``\w``: decimal
    digits and ``_``), :data:`MARK` (a combining mark, :data:`~tealeaves.corpus._marks.MARKS`,
    never a word character) or :data:`NOT_WORD`.

    Returns
    -------
    numpy.ndarray
        ``0x110000`` uint8 classes, indexed by code point.
    """
    if not _CLASSES:
        table = np.zeros(0x110000, dtype=np.uint8)
        for c in range(0x110000):
            ch = chr(c)
            if ch.isalnum() or c == 95:
                table[c] = OTHER_WORD if (c == 95 or ch.isdecimal()) else LETTER
        table[[ord(m) for m in re.findall(f"[{MARKS}]", "".join(map(chr, range(0x110000))))]] = MARK
        _CLASSES.append(table)
    return _CLASSES[0]


#: :func:`classes` of the ASCII code points (bytes 128-255 never occur in ASCII text).
ASCII_CLASSES = np.array([(LETTER if chr(c).isalpha() else OTHER_WORD if chr(c).isalnum() or c == 95
                           else NOT_WORD) if c < 128 else NOT_WORD for c in range(256)], dtype=np.uint8)


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
@shared_doc
def letter_runs(codes, ends, kinds, bits, head_len, min_size=2):
    """Runs of ``codes`` that the letters pattern matches.

    A run starts at a word character (a mark never starts one, so
    unattached marks are skipped) and ends before a code point that is no word character, or before a
    mark that follows a digit or ``_`` (a mark continues a run only after a letter or a mark).
    The first ``head_len`` code points of a run are packed into 64 bits (``bits`` each) to compare
    most words in one step.

    Parameters
    ----------
    codes : numpy.ndarray
        The code points of the texts, concatenated (uint8 for ASCII, uint32 otherwise).
    ends : numpy.ndarray
        The end of each text in ``codes`` (int64, cumulative).
    kinds : numpy.ndarray
        ``kinds[c]`` is the class of code point ``c`` (:func:`classes`).
    bits : int
        Bits per packed code point.
    head_len : int
        Code points packed into the 64-bit head.
    min_size : int, default 2
        Shortest run kept (the pattern's; 1 for whitespace-separated tokens).

    Returns
    -------
    %(returns_scan_ids)s %(returns_scan_counts)s
    starts : numpy.ndarray
        Where (in ``codes``) each distinct word first occurs.
    lengths : numpy.ndarray
        How long each distinct word is.
    """
    n = len(codes)
    # matches: a text of m code points holds at most (m + 1) // (min_size + 1) (min_size code points each,
    # and a non-word one between two), so all texts together at most (n + len(ends)) // (min_size + 1)
    limit = (n + len(ends)) // (min_size + 1) + 1
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
            kind = kinds[codes[i]]
            if kind == 0 or kind == 3:
                i += 1
                continue
            start = i
            letters = True
            h = _FNV_OFFSET
            head = np.uint64(0)
            prev = kind
            while i < end:
                c = codes[i]
                kind = kinds[c]
                if kind != 1:
                    if kind == 0 or (kind == 3 and prev == 2):  # a mark after a digit or _ is not attached
                        break
                    if kind == 2:
                        letters = False
                prev = kind
                h = (h ^ np.uint64(c)) * _FNV_PRIME
                if i - start < head_len:
                    head |= np.uint64(c) << np.uint64(bits * (i - start))
                i += 1
            size = i - start
            if not letters or size < min_size:
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
                    for j in range(head_len, size):  # the code points after the packed ones
                        if codes[a + j] != codes[start + j]:
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
def word_blob(codes, starts, sizes, out):
    """Fill ``out`` with the words ``codes[starts[i]:starts[i] + sizes[i]]`` joined by single spaces.

    So all are decoded at once.

    Parameters
    ----------
    codes : numpy.ndarray
        The code points the words were found in.
    starts : numpy.ndarray
        Where each word starts.
    sizes : numpy.ndarray
        How long each word is.
    out : numpy.ndarray
        The output buffer, ``sum(sizes) + len(sizes) - 1`` long, of ``codes``'s dtype.

    Returns
    -------
    numpy.ndarray
        ``out``, filled.
    """
    p = 0
    for w in range(len(starts)):
        if w:
            out[p] = 32
            p += 1
        for j in range(sizes[w]):
            out[p] = codes[starts[w] + j]
            p += 1
    return out


@shared_doc
def scan_letters(texts: list[str]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """``(ids, counts, words)`` of the letters pattern's matches in ``texts`` (see :func:`letter_runs`).

    Parameters
    ----------
    texts : list of str
        The texts to scan.

    Returns
    -------
    %(returns_scan_ids)s %(returns_scan_counts)s
    words : list of str
        The distinct words, by number.
    """
    return scan_runs(texts, ASCII_CLASSES, classes, 2)


@shared_doc
def scan_runs(texts: list[str], ascii_kinds: np.ndarray, kinds, min_size: int
              ) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """``(ids, counts, words)`` of the runs :func:`letter_runs` finds in ``texts`` with the classes
    ``ascii_kinds`` (ASCII text) or ``kinds()`` (any other).

    Parameters
    ----------
    texts : list of str
        The texts to scan.
    ascii_kinds : numpy.ndarray
        The 256 classes of ASCII text's bytes.
    kinds : callable
        The ``0x110000`` classes of every code point (built on first use).
    min_size : int
        Shortest run kept.

    Returns
    -------
    %(returns_scan_ids)s %(returns_scan_counts)s
    words : list of str
        The distinct words, by number.
    """
    joined = "".join(texts)
    if joined.isascii():
        codes, table, bits, head_len, encoding = (np.frombuffer(joined.encode("ascii"), dtype=np.uint8),
                                                  ascii_kinds, 8, 8, "ascii")
    else:  # lone surrogates (possible in a Python string) pass through as code units
        codes, table, bits, head_len, encoding = (
            np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32), kinds(), 21, 3,
            "utf-32-le")
    ends = np.cumsum([len(t) for t in texts], dtype=np.int64)
    ids, counts, starts, sizes = _interrupt.direct(letter_runs, codes, ends, table, bits, head_len, min_size)
    if not len(sizes):
        return ids, counts, []
    out = _interrupt.direct(word_blob, codes, starts, sizes,
                            np.empty(int(sizes.sum()) + len(sizes) - 1, dtype=codes.dtype))
    return ids, counts, out.tobytes().decode(encoding, "surrogatepass").split(" ")
