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
    words of each subset of its words (bit ``i`` = topic position ``i``): the
    units by the exact set of the topic's words they hold, counted topic by
    topic (below), then a superset sum.  Set segmentations (one-any, any-any;
    one-set/one-all with direct confirmations) need these.

Topic by topic, documents
    ``count_topic_documents`` counts the documents holding each set of one
    topic's words (so each pair and each word of it) from the topic's postings
    alone: per block of documents, each word's postings set its bit in a
    document's ``uint16``, and each document is then counted once by its set
    (:mod:`tealeaves.coherence._kernels_topics`).  Its work is the sum over
    topics of their words' postings, where the pair kernels count each distinct
    pair once; :func:`topic_major_cheaper` chooses.  Word sets of documents are
    counted this way.  Pairs alone may instead be counted from bitmaps: per
    block of documents a bitmap of each distinct word, and each pair of each
    topic the population count of an AND (``documents / 64`` words a pair,
    cheaper for frequent words; :func:`_bitmaps_cheaper` chooses).

Topic by topic, windows
    ``count_topic_windows`` does the same for windows from the window intervals:
    per block of documents, each document's set of the topic's words; only the
    documents holding two or more of them are swept edge by edge over their
    words' intervals, and a word's windows alone are its windows less the
    others'.  Word sets of windows are counted this way.

Context windows (Palmetto's ``P_cw``, used by C_A)
    ``count_context`` counts, for each pair, the occurrence pairs of the two
    words at most ``w`` tokens apart in one document; a word's count is its
    number of tokens; the total is ``sum(n - w + 1)`` over documents
    (Palmetto's ``ContextWindowFrequencyDeterminer``).

Frequent words
    Pairs of two of the ``F`` words with the most postings (``F`` up to
    :data:`MAX_FREQUENT`, chosen per call from a sampled estimate of the work, 0
    without an estimate for pairs of little work, or forced with ``frequent=``)
    are counted *unit-major* instead of pair by pair:
    a unit is a document, or a block of 64 consecutive window starts of one
    (a word in it: the 64-bit set of its starts there, from the same intervals);
    per chunk of documents the words' records are sorted by unit, and every two
    words listed in a unit add ``popcount(bits_a & bits_b)`` to a dense
    ``F x F`` table.  This costs ``sum over units of C(words present, 2)``
    instead of ``sum over pairs of min(df)``, which is what many topics of
    frequent words need.  The counts are the same whatever ``F``.

The kernels (:mod:`tealeaves.coherence._kernels`) are compiled with numba, each serial and
parallel (``prange`` over numba's threads) from one function; the parallel one runs from
:data:`~tealeaves.coherence._kernels.PARALLEL_MIN_WORK` postings or positions of work, and gives
the same counts.  Each variant is compiled on its first use only, and the orders the pair kernels
visit are sorted here by NumPy (a sort inside a kernel takes seconds to compile: see
:mod:`tealeaves._compiled`).  This module is the API that calls them: it checks every argument first, and
reads the index through :class:`tealeaves.index.ReferenceIndex`'s arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves.coherence._blocked import (
    check_budget,
    plan_blocks,
    sum_blocks,
    topic_bitmap_block,
    topic_block,
    topic_major_bytes,
)
from tealeaves.coherence._kernels import (
    _DENSE_BYTES,
    _dense_doc_kernel,
    _intersect_count,
    _masked_sizes,
    _pair_doc_kernel,
    _pair_unit_kernel,
    _window_intervals,
    anchor_order,
    dense_slots,
    parts_for,
)
from tealeaves.coherence._kernels_frequent import (
    MAX_FREQUENT,
    _frequent_pair_kernel,
    _partition_pairs,
    _prefix_pair_estimate,
    _probe_work_by_last,
)
from tealeaves.coherence._kernels_topics import (
    TOPIC_MAX_WORDS,
    TOPIC_WINDOW_BLOCK,
    _pairs_of_sets,
    _supersets,
    _topic_bitmap_kernel,
    _topic_document_kernel,
    _topic_window_kernel,
)
from tealeaves.coherence._pair_tables import topic_joint, topic_pairs, unique_keys
from tealeaves.coherence.errors import SettingsError
from tealeaves.errors import EmptyInputError, IndexIntegrityError, ParameterError
from tealeaves.index.reference import n_windows
from tealeaves.validation import MAX_WINDOW, check_bool, check_choice, check_int

__all__ = ["COMPAT_MODES", "MAX_FREQUENT", "MAX_SUBSET_WORDS", "CooccurrenceCounts", "count_context",
           "count_crosslingual", "count_documents", "count_subsets", "count_topic_documents",
           "count_topic_windows", "count_windows",
           "document_counts", "topic_major_cheaper",
           "intersect_count", "n_windows", "pair_document_counts", "topic_joint", "topic_pairs",
           "unique_keys"]

#: Supported window-counting modes.
COMPAT_MODES = ("exact", "gensim", "jhlau")
_MODE_CODE = {"exact": 0, "gensim": 1, "jhlau": 2}
#: Largest topic whose word subsets are counted (2**k subsets per topic).
MAX_SUBSET_WORDS = 12


def _pair_work(sizes_a: np.ndarray, sizes_b: np.ndarray, pairs: np.ndarray) -> int:
    """Postings probed pair by pair: the shorter list of each pair."""
    return int(np.minimum(sizes_a[pairs[:, 0]], sizes_b[pairs[:, 1]]).sum()) if len(pairs) else 0


#: Pairs x documents up to which the pairs of dense words are counted by NumPy
#: (:func:`_dense_pairs_numpy`: one byte per document and pair, a few milliseconds), not by
#: :func:`_dense_doc_kernel`, whose compilation took 1.0 s of the 3.1 s first call after an install
#: (``benchmarks/startup.py --first-call``: 20 topics on the Reuters training stories, 900 pairs x
#: 7,769 documents, 7 M).
_NUMPY_DENSE_MAX = 1 << 23


def _dense_pairs_numpy(a_lo, a_hi, a_docs, b_lo, b_hi, b_docs, left, right, mask, use_mask,
                       n_space: int) -> np.ndarray:
    """The counts of :func:`_dense_doc_kernel` for a small job, by NumPy: the documents holding both
    words of each pair ``(left[m], right[m])`` (and in ``mask`` when ``use_mask``).

    Parameters
    ----------
    a_lo, a_hi, a_docs, b_lo, b_hi, b_docs : numpy.ndarray
        Postings of the left and right words, as for :func:`_dense_doc_kernel`.
    left, right : numpy.ndarray
        The pairs' words.
    mask : numpy.ndarray
        Documents that count (read when ``use_mask``).
    use_mask : bool
        Whether ``mask`` applies.
    n_space : int
        Documents of the id space.

    Returns
    -------
    numpy.ndarray
        ``int64`` count of each pair.
    """
    def rows(words, lo, hi, docs):
        out = np.zeros((len(words), n_space), dtype=np.bool_)
        for r, w in enumerate(words.tolist()):
            out[r, docs[lo[w]:hi[w]]] = True
        return out

    words_a, row_a = np.unique(left, return_inverse=True)
    words_b, row_b = np.unique(right, return_inverse=True)
    held_a = rows(words_a, a_lo, a_hi, a_docs)
    if use_mask:  # documents past the mask's end do not count
        held_a[:, len(mask):] = False
        held_a[:, :len(mask)] &= mask[None, :n_space]
    both = held_a[row_a.reshape(-1)] & rows(words_b, b_lo, b_hi, b_docs)[row_b.reshape(-1)]
    return np.count_nonzero(both, axis=1).astype(np.int64)


def _pair_docs(a_ids, a_ptr, a_docs, b_ids, b_ptr, b_docs, pairs, mask, use_mask, n_space,
               same, dense_bytes: int = _DENSE_BYTES) -> np.ndarray:
    """Co-document counts of ``pairs`` of the words ``a_ids`` of postings ``a_ptr, a_docs`` and
    ``b_ids`` of ``b_ptr, b_docs``: the pairs of two dense words (:func:`dense_slots`, within
    ``dense_bytes`` of bitsets per side) by :func:`_dense_doc_kernel`, the others by
    :func:`_pair_doc_kernel` (in the order NumPy sorted,
    :func:`~tealeaves.coherence._kernels.anchor_order`).  Each kernel is compiled only when it has
    pairs to count: a small job's words are all dense, and up to :data:`_NUMPY_DENSE_MAX` pairs x
    documents NumPy counts them (:func:`_dense_pairs_numpy`), so a small first call compiles neither."""
    a_lo, a_hi = a_ptr[a_ids], a_ptr[a_ids + 1]
    b_lo, b_hi = (a_lo, a_hi) if same else (b_ptr[b_ids], b_ptr[b_ids + 1])
    sizes_a, sizes_b = a_hi - a_lo, b_hi - b_lo
    a_slot = dense_slots(sizes_a, n_space, dense_bytes)
    b_slot = a_slot if same else dense_slots(sizes_b, n_space, dense_bytes)
    dense = (a_slot[pairs[:, 0]] >= 0) & (b_slot[pairs[:, 1]] >= 0)
    out = np.zeros(len(pairs), dtype=np.int64)
    some = pairs[dense]
    if len(some) and len(some) * n_space <= _NUMPY_DENSE_MAX:
        out[dense] = _dense_pairs_numpy(a_lo, a_hi, a_docs, b_lo, b_hi, b_docs, some[:, 0], some[:, 1], mask,
                                        use_mask, n_space)
    elif len(some):
        if b_docs.dtype != a_docs.dtype:  # (the kernel takes both sides in one loop: one type)
            a_docs, b_docs = a_docs.astype(np.int64), b_docs.astype(np.int64)
        need = 1 if same and (some[:, 0] == some[:, 1]).any() else 2  # documents of a pair's two words
        out[dense] = _dense_doc_kernel(_pair_work(sizes_a, sizes_b, some), a_lo, a_hi, a_docs, a_slot,
                                       int((a_slot >= 0).sum()), b_lo, b_hi, b_docs, b_slot,
                                       int((b_slot >= 0).sum()), np.ascontiguousarray(some[:, 0]),
                                       np.ascontiguousarray(some[:, 1]), mask, use_mask, n_space, same, need)
    if not dense.all():
        some = np.ascontiguousarray(pairs[~dense])
        work = _pair_work(sizes_a, sizes_b, some)
        order = anchor_order(sizes_a, sizes_b, some, len(a_ids))
        out[~dense] = _pair_doc_kernel(work, a_lo, a_hi, a_docs, b_lo, b_hi, b_docs, some, mask, use_mask,
                                       n_space, parts_for(work), order)
    return out


def _pair_units(pairs, wptr, docs, lo, hi, x, y, context, window, n_space,
                one: np.ndarray | None = None) -> np.ndarray:
    """:func:`_pair_unit_kernel` on ``pairs`` (its per-thread maps from :func:`_probe_maps`, its
    anchor order from :func:`~tealeaves.coherence._kernels.anchor_order`; for windows, ``one`` is
    :func:`_one_window_bitmap` of the documents)."""
    sizes = np.diff(wptr)
    work = _pair_work(sizes, sizes, pairs)
    one = np.zeros((n_space + 63) >> 6, dtype=np.uint64) if one is None else one
    return _pair_unit_kernel(work, pairs, wptr, docs, lo, hi, x, y, context, window, one,
                             *_probe_maps(work, n_space, len(docs)), anchor_order(sizes, sizes, pairs, 0))


def _one_window_bitmap(doc_lengths: np.ndarray, window: int, compat: str) -> np.ndarray:
    """Bitmap (``uint64`` words, bit ``d & 63`` of word ``d >> 6``) of the documents that have a single
    window start: ``n <= window`` tokens (``compat="jhlau"``: ``n + window - 1 == 1`` starts).

    Every word present in such a document is present in its one window (see the module docstring), so
    two words present there share exactly one window.

    Parameters
    ----------
    doc_lengths : numpy.ndarray
        Tokens of each document.
    window : int
        Window size in tokens.
    compat : str
        ``"exact"``, ``"gensim"`` or ``"jhlau"``.

    Returns
    -------
    numpy.ndarray
        ``ceil(len(doc_lengths) / 64)`` ``uint64`` words.
    """
    n = np.asarray(doc_lengths)
    one = n == 2 - window if compat == "jhlau" else n <= window  # jhlau: n + window - 1 == 1
    packed = np.packbits(one, bitorder="little")
    words = np.zeros(((len(one) + 63) >> 6) * 8, dtype=np.uint8)
    words[:len(packed)] = packed
    return words.view("<u8").astype(np.uint64)


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

    Parameters
    ----------
    n_units : int
        Units counted in all.
    single : numpy.ndarray
        Units holding each (left) word.
    pairs : numpy.ndarray
        ``(m, 2)`` word positions of the pairs counted.
    joint : numpy.ndarray
        Units holding both words of each pair.
    unit : str
        ``"doc"``, ``"window=<w>"`` or ``"context=<w>"``.
    single_right : numpy.ndarray, optional
        Crosslingual counts: units holding each right word.
    extra : dict
        Anything else a counter reports.
    """

    n_units: int
    single: np.ndarray
    pairs: np.ndarray
    joint: np.ndarray
    unit: str = "doc"
    single_right: np.ndarray | None = None
    extra: dict = field(default_factory=dict)

    def joint_of(self, i: int, j: int) -> int:
        """Joint count of pair ``(i, j)`` (either order for monolingual counts).

        Parameters
        ----------
        i, j : int
            The two word positions (indices into the word lists, as in ``pairs``).

        Returns
        -------
        int
            The joint count.

        Raises
        ------
        KeyError
            If the pair was not counted.
        """
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


def _as_pairs(pairs, n_words: int | None = None) -> np.ndarray:
    """``pairs`` as a contiguous ``(m, 2)`` int64 array; with ``n_words``, each entry must index one
    of the ``n_words`` selected words (a negative index would silently wrap to the last word)."""
    arr = np.ascontiguousarray(np.asarray(pairs, dtype=np.int64).reshape(-1, 2))
    if n_words is not None and len(arr) and (arr.min() < 0 or arr.max() >= n_words):
        bad = arr[(arr < 0) | (arr >= n_words)][0]
        raise SettingsError(f"pair entry {int(bad)} does not index one of the {n_words} selected words",
                            fix="pairs hold positions in word_ids, from 0")
    return arr


def _whole_numbers(values, what: str, fix: str) -> np.ndarray:
    """``values`` as an int64 array, refusing what is not an array of whole numbers (booleans, fractions,
    NaN, text, ragged lists, integers past int64) rather than letting NumPy truncate or wrap them."""
    try:
        arr = np.asarray(values)
    except ValueError:  # ragged
        raise SettingsError(f"{what} must be a rectangular array of whole numbers", fix=fix) from None
    if arr.size == 0:
        return arr.astype(np.int64)
    whole = arr.dtype.kind in "iu" or (arr.dtype.kind == "f" and bool(np.isfinite(arr).all())
                                       and bool((arr == np.round(arr)).all()))
    if not whole or (arr.dtype.kind in "uf" and (arr.max() > np.iinfo(np.int64).max)):
        shown = f" holding {arr.reshape(-1)[:3].tolist()}" if arr.dtype.kind in "iuf" else ""
        raise SettingsError(f"{what} must be whole numbers, got an array of {arr.dtype}{shown}", fix=fix)
    return arr.astype(np.int64)


def _topic_positions(topics, n_words: int) -> np.ndarray:
    """``topics`` as a contiguous ``(T, k)`` int64 array of positions in ``word_ids`` (``-1``: no word);
    a 1-D array is one position per topic.

    Raises
    ------
    SettingsError
        When ``topics`` is not whole numbers from -1 to ``n_words - 1``.
    """
    fix = "give topics as a (T, k) array of positions in word_ids, -1 for no word"
    arr = _whole_numbers(topics, "topic positions", fix)
    if arr.ndim < 2:  # one position per topic (a bare number: one topic of one word)
        arr = arr.reshape(-1, 1)
    loc = np.ascontiguousarray(arr.reshape(arr.shape[0], int(np.prod(arr.shape[1:]))))
    if loc.size and (loc.min() < -1 or loc.max() >= n_words):
        raise SettingsError(f"topic positions must be -1 or positions in word_ids (0..{n_words - 1}), got "
                            f"{int(loc[(loc < -1) | (loc >= n_words)][0])}", fix=fix)
    return loc


def _as_ids(index, word_ids) -> np.ndarray:
    """``word_ids`` as int64 ids of words of ``index`` (0 .. its vocabulary size - 1)."""
    index.check_readable()  # checked arrays; the file still the one its open checked
    ids = _whole_numbers(word_ids, "word ids", "map words to ids with the index's vocabulary").reshape(-1)
    n = len(index.arrays["word_ptr"]) - 1
    if len(ids) and (ids.min() < 0 or ids.max() >= n):
        bad = ids[(ids < 0) | (ids >= n)][0]
        raise SettingsError(f"word id {int(bad)} is not a word of the reference {index.name!r} "
                            f"(ids 0..{n - 1})", fix="map words to ids with the index's vocabulary")
    return ids


def _as_mask(mask) -> tuple[np.ndarray, bool]:
    if mask is None:
        return np.zeros(1, dtype=np.bool_), False
    return np.ascontiguousarray(mask, dtype=np.bool_), True


def intersect_count(a: np.ndarray, b: np.ndarray, mask: np.ndarray | None = None) -> int:
    """Number of ids in both sorted, duplicate-free id arrays ``a`` and ``b`` (and in ``mask``).

    Parameters
    ----------
    a, b : numpy.ndarray
        Sorted, duplicate-free ids.
    mask : numpy.ndarray, optional
        Boolean mask over the id space.

    Returns
    -------
    int
        The number of shared ids.
    """
    a = np.ascontiguousarray(a, dtype=np.int64)
    b = np.ascontiguousarray(b, dtype=np.int64)
    m, use = _as_mask(mask)
    return int(_intersect_count(a, 0, len(a), b, 0, len(b), m, use))


def document_counts(postings: Sequence[np.ndarray], mask: np.ndarray | None = None) -> np.ndarray:
    """Document frequency of each word from its postings, counting only ids where ``mask`` is true.

    Parameters
    ----------
    postings : sequence of numpy.ndarray
        Each word's sorted document ids.
    mask : numpy.ndarray, optional
        Boolean mask over the id space.

    Returns
    -------
    numpy.ndarray
        ``int64`` counts, one per word.
    """
    if mask is None:
        return np.array([len(p) for p in postings], dtype=np.int64)
    docs, ptr = _concat(postings)
    return _masked_sizes(docs, ptr, np.ascontiguousarray(mask, dtype=np.bool_))


def pair_document_counts(left: Sequence[np.ndarray], right: Sequence[np.ndarray], pairs,
                         mask: np.ndarray | None = None) -> np.ndarray:
    """Co-document counts ``|left[i] ∩ right[j] ∩ mask|`` for every ``(i, j)`` in ``pairs``.

    ``left`` and ``right`` are lists of sorted document-id arrays over one
    shared id space (pass the same list twice for monolingual counts).

    Parameters
    ----------
    left, right : sequence of numpy.ndarray
        Each word's sorted document ids.
    pairs : array-like
        ``(m, 2)``: ``pairs[m, 0]`` indexes ``left``, ``pairs[m, 1]`` indexes ``right``.
    mask : numpy.ndarray, optional
        Boolean mask over the id space.

    Returns
    -------
    numpy.ndarray
        ``int64`` counts, one per pair.
    """
    a_docs, a_ptr = _concat(left)
    b_docs, b_ptr = (a_docs, a_ptr) if right is left else _concat(right)
    m, use = _as_mask(mask)
    top = max(int(a_docs.max()) if len(a_docs) else 0, int(b_docs.max()) if len(b_docs) else 0)
    n_space = max(top + 1, len(m) if use else 0)
    a_ids = np.arange(len(a_ptr) - 1, dtype=np.int64)
    b_ids = np.arange(len(b_ptr) - 1, dtype=np.int64)
    pairs = _as_pairs(pairs)
    return _pair_docs(a_ids, a_ptr, a_docs, b_ids, b_ptr, b_docs, pairs, m, use, n_space, right is left)


def count_crosslingual(aligned, lang_a: str, words_a: Sequence[str], lang_b: str, words_b: Sequence[str],
                       pairs=None) -> CooccurrenceCounts:
    """Crosslingual document counts over the tuples having both a ``lang_a`` and a ``lang_b`` side.

    ``single`` are the left words' counts, ``single_right`` the right words', and ``joint[m]`` the
    tuples holding ``words_a[pairs[m, 0]]`` and ``words_b[pairs[m, 1]]`` (default: every
    combination).  Words absent from a language get empty postings (count 0).
    (:meth:`tealeaves.multilingual.reference.AlignedReference.cross_counts` calls this.)

    Parameters
    ----------
    aligned : AlignedIndex
        One index per language over shared tuple ids (:class:`tealeaves.index.AlignedIndex`).
    lang_a, lang_b : str
        The languages of the left and of the right words.
    words_a, words_b : sequence of str
        The words.
    pairs : array-like, optional
        ``(m, 2)`` positions in ``words_a`` and ``words_b``.

    Returns
    -------
    CooccurrenceCounts
        The counts (``n_units``: tuples having both sides).
    """
    ia, ib = aligned.indices[lang_a], aligned.indices[lang_b]
    ia.check_readable(), ib.check_readable()  # checked arrays; the files still the ones their opens checked
    mask = ia.present & ib.present
    left = [_postings_or_empty(ia, w) for w in words_a]
    right = [_postings_or_empty(ib, w) for w in words_b]
    if pairs is None:
        pairs = [(i, j) for i in range(len(words_a)) for j in range(len(words_b))]
    pairs = _as_pairs(pairs)
    return CooccurrenceCounts(int(mask.sum()), document_counts(left, mask), pairs,
                              pair_document_counts(left, right, pairs, mask), "doc",
                              single_right=document_counts(right, mask))


def _postings_or_empty(index, word: str) -> np.ndarray:
    wid = index.word_id(word)
    return index.postings(wid) if wid is not None else np.zeros(0, dtype=np.int32)


#: Estimated CPU nanoseconds per unit of work, for the choice of the frequent words, when counting
#: documents and windows: a pair of words in a document (the unit-major kernel's increments), a
#: posting of a frequent word (its records), a posting probed by the pair kernels (the shorter list
#: of each pair), an entry of a thread's triangular ``F x F`` table.  Measured on the 50M-token reference of
#: ``benchmarks/coherence_scale.py`` (the pair rates refitted to forced-``F`` timings once the
#: estimate sampled the whole document order); they only steer the speed, every choice counts
#: exactly.  For windows a probe costs ``1 + 6.5 x`` the mean number of intervals per posting (one
#: for a shared document, plus the sweep over both interval lists), and a pair of words in a
#: document ``1 + (w - 1) / 64`` times the window pair rate: an occurrence's ``w`` window starts touch
#: that many blocks of 64, so a co-present pair is counted in that many units (at 110 tokens the
#: increments are 2.5 times those at 10 for the same co-present pairs).  Refitted to forced-``F``
#: timings of the ``uint16`` kernel (1,000 x 50, 50M reference: at 110 tokens ``F`` = 4,056 took
#: 0.84 s and 2,560 0.74 s; at 10 tokens 4,096 stays within 0.02 s of the best).
_COST_DOC = (6.0, 17.0, 2.5, 1.0)
_COST_WINDOW = (6.5, 40.0, None, 1.0)


#: Probe work (postings) below which every pair is probed, with no estimate of the best ``F``: the
#: probes take milliseconds (on the Reuters training stories, 80 topics of 10 words probe 0.6 M
#: postings, and the estimate chose ``F = 0``), and the estimate's kernels need not be compiled.
_ESTIMATE_MIN_WORK = 2_000_000


def _frequent_words(sizes: np.ndarray, pairs: np.ndarray, glo: np.ndarray, ghi: np.ndarray, docs: np.ndarray,
                    n_docs: int, costs: tuple[float, ...], frequent: int | None,
                    most: int = MAX_FREQUENT) -> tuple[np.ndarray, np.ndarray]:
    """The words (local ids, most postings first) whose pairs are counted unit-major, and each
    word's rank in that order.

    ``frequent`` forces their number; ``None`` takes the prefix ``F`` (from 0 to
    ``most``, at most :data:`MAX_FREQUENT`, whose tables fit the memory budget) of the words by
    postings that minimises the estimated time: the
    unit-major work of ``F`` words (:func:`_prefix_pair_estimate`, their postings, ``F x F`` tables)
    plus the probes of the pairs left (the shorter posting list of each).  Pairs of less probe work
    than :data:`_ESTIMATE_MIN_WORK` are all probed (``F = 0``) without an estimate.
    """
    order = np.argsort(-sizes, kind="stable")
    rank = np.empty(len(sizes), dtype=np.int64)
    rank[order] = np.arange(len(sizes))
    if frequent is not None:
        f = check_int(frequent, "frequent", min_value=0, max_value=MAX_FREQUENT)
        return order[:min(f, most, len(sizes))], rank
    if len(pairs) == 0 or _pair_work(sizes, sizes, pairs) < _ESTIMATE_MIN_WORK:
        return order[:0], rank
    top = min(most, len(sizes))
    by_last = _probe_work_by_last(np.ascontiguousarray(pairs, dtype=np.int64), rank, sizes)
    left = by_last.sum() - np.concatenate(([0.0], np.cumsum(by_last)))
    head = order[:top]
    pair_work = _prefix_pair_estimate(glo[head], ghi[head], docs, n_docs)
    n_f = np.arange(top + 1)
    records = np.concatenate(([0], np.cumsum(sizes[head])))
    ns_pair, ns_record, ns_probe, ns_table = costs
    cost = (ns_pair * pair_work + ns_record * records + ns_probe * left[:top + 1]
            + ns_table * parts_for(int(records[-1])) * n_f * (n_f - 1) / 2)
    return order[:int(np.argmin(cost))], rank


#: Widest window whose unit-major table is ``uint8`` (:func:`_tables`): a pair's increment in a unit is at
#: most the window, so a ``uint8`` entry spills (into ``int64``) after at least ``255 / w`` increments.
#: Measured on the 50M reference, 1,000 x 50 (same ``F``, alternated in one process): ``uint8`` took
#: 0.90 of the ``uint16`` time at 10 tokens and 0.93 at 20, but 1.05 at 40 and 1.44 at 110, where
#: the spills outweigh the smaller table; for documents (increment 1) the two were level.
NARROW_TABLE_WINDOW = 24


def _tables(work: int, n_f: int, window: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Per thread of :func:`_frequent_pair_kernel`, a zeroed upper triangle of an ``n_f x n_f`` table
    (``uint8`` for windows of 1 to :data:`NARROW_TABLE_WINDOW` tokens, else ``uint16``: half the bytes,
    so fewer of its random increments miss the cache) and its zeroed ``int64`` spill (whose pages are
    only made when touched)."""
    shape = (parts_for(work), max(n_f * (n_f - 1) // 2, 1))
    narrow = 0 < window <= NARROW_TABLE_WINDOW
    return np.zeros(shape, dtype=np.uint8 if narrow else np.uint16), np.zeros(shape, dtype=np.int64)


def _probe_maps(work: int, n_space: int, n_postings: int) -> tuple[np.ndarray, np.ndarray]:
    """Per thread of :func:`_pair_unit_kernel`, a zeroed bitmap (``uint64`` words) and a posting map
    over the document space (numpy allocates the posting map with huge pages: fewer page faults and
    TLB misses per probe).  The posting map is ``int32`` when the ``n_postings`` selected postings
    allow it: a probe reads it at random, so its size matters."""
    parts = parts_for(work)
    return (np.zeros((parts, (n_space + 63) >> 6), dtype=np.uint64),
            np.empty((parts, n_space), dtype=_slot_type(n_postings)))


def _split_joint(pairs: np.ndarray, freq: np.ndarray, rank: np.ndarray, unit_major, probe) -> np.ndarray:
    """Joint counts of ``pairs``: those of two different words of ``freq`` from
    ``unit_major(freq, fpairs)`` (``fpairs``: their positions in ``freq``, smaller first), the others
    from ``probe(pairs)``."""
    if len(freq) == 0 and len(pairs):  # every pair probed: no partition
        return probe(pairs)
    inside, fpairs, outside = _partition_pairs(np.ascontiguousarray(pairs, dtype=np.int64), rank, len(freq))
    joint = np.zeros(len(pairs), dtype=np.int64)
    if len(inside):
        joint[inside] = unit_major(freq, fpairs)
    if len(outside):
        joint[outside] = probe(np.ascontiguousarray(pairs[outside]))
    return joint


@shared_doc
def count_documents(index, word_ids: Sequence[int], pairs, frequent: int | None = None,
                    memory: int | str | None = None) -> CooccurrenceCounts:
    """Boolean-document counts for words of one :class:`~tealeaves.index.ReferenceIndex`.

    Pairs of the most frequent words are counted unit-major (:func:`_frequent_pair_kernel`), the
    others pair by pair (:func:`_pair_docs`); ``frequent`` forces the number of frequent
    words (``None``: the estimated fastest).  The counts are the same whatever the split.

    Parameters
    ----------
    index : ReferenceIndex
        The reference (:class:`tealeaves.index.ReferenceIndex`).
    word_ids : sequence of int
        Ids of the words to count, in the index's vocabulary.
    pairs : array-like
        ``(m, 2)`` positions in ``word_ids`` of the pairs to count.
    frequent : int, optional
        Force the number of frequent words counted unit-major (at most what ``memory`` allows).
    memory : int or str, optional
        The working set's budget above the mapped index, in bytes or as ``"1G"`` (default 1 GiB): the
        documents are counted in ranges that fit it (:mod:`tealeaves.coherence._blocked`).

    Returns
    -------
    CooccurrenceCounts
        ``n_units`` is the number of documents.

    Raises: %(raises_counts_memory)s
    """
    ids, pairs, plan = _planned(index, word_ids, pairs, "doc", memory)
    ptr = index.arrays["word_ptr"]
    joint = sum_blocks(plan, "documents", len(pairs), lambda block: _document_block(
        index, ids, pairs, block, frequent, plan.most, plan.dense))
    sizes = (ptr[ids + 1] - ptr[ids]).astype(np.int64)
    return CooccurrenceCounts(index.n_present, sizes, pairs, joint, "doc")


def _planned(index, word_ids, pairs, kind: str, memory):
    """The checked word ids and pairs of a count of ``kind`` and its plan of blocks within ``memory``."""
    ids = _as_ids(index, word_ids)
    pairs = _as_pairs(pairs, len(ids))
    return ids, pairs, plan_blocks(index, ids, len(pairs), kind, memory)


def _block_docs(index, block) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``ids, ptr, docs`` of the words' postings in ``block``: the index's own arrays for a block of
    every document, else a copy with document ids counted from the block's first."""
    ids, ptr = block.word_ptr()
    if block.d0 == 0 and block.d1 == index.n_documents:
        return ids, ptr, index.arrays["post_docs"]
    local, docs = block.local_postings(index.arrays["post_docs"])
    return np.arange(len(block.gstart), dtype=np.int64), local, docs


def _document_block(index, ids, pairs, block, frequent, most, dense_bytes) -> np.ndarray:
    """Joint document counts of ``pairs`` in one block of documents."""
    bids, ptr, docs = _block_docs(index, block)
    m, _ = _as_mask(None)
    glo, ghi = ptr[bids], ptr[bids + 1]
    sizes = (ghi - glo).astype(np.int64)
    n_docs = block.n_docs
    doc_lengths = index.doc_lengths[block.d0:block.d1]
    freq, rank = _frequent_words(sizes, pairs, glo, ghi, docs, n_docs, _COST_DOC, frequent, most)

    def unit_major(fw, fpairs):  # no intervals: one unit per document (argument types as for windows)
        work = int(sizes[fw].sum())
        z32 = np.zeros(1, dtype=np.int32)  # (as the intervals of windows: one compiled signature)
        return _frequent_pair_kernel(work, glo[fw], ghi[fw], docs, z32, z32, z32, z32, doc_lengths, 0,
                                     0, n_docs, True, fpairs, *_tables(work, len(fw)))

    def probe(rest):
        return _pair_docs(bids, ptr, docs, bids, ptr, docs, rest, m, False, n_docs, True, dense_bytes)

    return _split_joint(pairs, freq, rank, unit_major, probe)


#: Most window starts a document may have (the kernels hold a start as a 32-bit integer).
_MAX_STARTS = 2**31 - 1


def _check_window(window, compat: str, index=None) -> int:
    """``window`` as an int: a whole number of tokens from 1 to ``MAX_WINDOW``; with ``index`` and
    ``compat="jhlau"`` (whose windows start up to ``window - 1`` tokens before a document), its longest
    document's starts must fit :data:`_MAX_STARTS`."""
    if compat not in COMPAT_MODES:
        raise SettingsError(f"compat={compat!r} is not known; use one of {COMPAT_MODES}")
    if isinstance(window, (bool, np.bool_)) or not isinstance(window, (int, np.integer)) \
            or not 1 <= window <= MAX_WINDOW:
        raise SettingsError(f"window must be a whole number of tokens from 1 to {MAX_WINDOW:,}, got "
                            f"{window!r}", fix="e.g. window=10 (whole documents: count_documents)")
    window = int(window)
    if compat == "jhlau" and index is not None and len(index.doc_lengths):
        longest = int(index.doc_lengths.max())
        if longest + window - 1 > _MAX_STARTS:
            raise SettingsError(f"jhlau windows of {window:,} tokens over the reference's longest document "
                                f"({longest:,} tokens) start at {longest + window - 1:,} places, more than "
                                f"the {_MAX_STARTS:,} a count holds",
                                fix="use a smaller window, or compat='exact'")
    return window


def _intervals(index, block, window: int | None, compat: str):
    """Window-start intervals of the selected words in ``block`` (``window=None``: one unit per
    document), document ids counted from the block's first."""
    arr = index.arrays
    ids, ptr = block.word_ptr()
    if window is None:
        wptr, sel = block.local_postings(arr["post_docs"])
        sel = sel.astype(np.int64)
        zeros = np.zeros(len(sel), dtype=np.int64)
        return (wptr, sel, np.arange(len(sel), dtype=np.int64), np.arange(1, len(sel) + 1, dtype=np.int64),
                zeros, zeros, np.diff(wptr))
    out = _interval_arrays(ids, ptr, arr["pos_ptr"])
    work = len(out[-2])
    single = _window_intervals(work, ids, ptr, arr["post_docs"], arr["pos_ptr"], arr["positions"],
                               arr["doc_lengths"], int(window), _MODE_CODE[compat], parts_for(work),
                               *out)
    wptr, _, docs, ilo, ihi, starts, ends = out
    if block.d0:
        docs -= np.int32(block.d0)
    return wptr, docs, ilo, ihi, starts, ends, single


def _interval_arrays(ids: np.ndarray, word_ptr: np.ndarray, pos_ptr: np.ndarray) -> tuple[np.ndarray, ...]:
    """``wptr, poff`` (first posting and first interval slot of each selected word) and the empty
    ``docs, ilo, ihi, starts, ends`` that :func:`_window_intervals` fills (``ilo``, ``ihi`` in ``int32``
    while the interval slots allow it: half the bytes to write and to read at random).  numpy allocates
    them with huge pages, so filling them costs far fewer page faults than arrays made inside numba."""
    wptr = np.zeros(len(ids) + 1, dtype=np.int64)
    wptr[1:] = np.cumsum(word_ptr[ids + 1] - word_ptr[ids])
    poff = np.zeros(len(ids) + 1, dtype=np.int64)
    poff[1:] = np.cumsum(pos_ptr[word_ptr[ids + 1]] - pos_ptr[word_ptr[ids]])
    n_post, n_pos = int(wptr[-1]), int(poff[-1])
    slot = _slot_type(n_pos)
    return (wptr, poff, np.empty(n_post, dtype=np.int32), np.empty(n_post, dtype=slot),
            np.empty(n_post, dtype=slot), np.empty(n_pos, dtype=np.int32), np.empty(n_pos, dtype=np.int32))


def _slot_type(n: int) -> type:
    """``np.int32`` when every index of ``n`` slots fits in it, else ``np.int64``."""
    return np.int32 if n < np.iinfo(np.int32).max else np.int64


def _context_block(index, block, pairs, window: int) -> np.ndarray:
    """Context-window joint counts of ``pairs`` in one block of documents."""
    arr = index.arrays
    pos_ptr = arr["pos_ptr"]
    wptr = np.zeros(len(block.gstart) + 1, dtype=np.int64)
    wptr[1:] = np.cumsum(block.gend - block.gstart)
    ranges = [np.arange(a, b) for a, b in zip(block.gstart, block.gend)]
    g = np.concatenate(ranges) if ranges else np.zeros(0, dtype=np.int64)
    docs = arr["post_docs"][g].astype(np.int64) - block.d0
    # posting r of the selection covers the index's positions[plo[r]:phi[r]] (no copy of the positions)
    plo, phi = pos_ptr[g].astype(np.int64), pos_ptr[g + 1].astype(np.int64)
    positions = arr["positions"]
    return _pair_units(pairs, wptr, docs, plo, phi, positions, positions, True, window, block.n_docs)


def _window_units(index, window: int, compat: str) -> int:
    if compat == "jhlau":
        return n_windows(index.doc_lengths, window, index.present, compat)
    return index.window_total(int(window))


@shared_doc
def count_windows(index, word_ids: Sequence[int], pairs, window: int, compat: str = "exact",
                  frequent: int | None = None, memory: int | str | None = None) -> CooccurrenceCounts:
    """Boolean sliding-window counts (see the module docstring) for words of one index.

    As in :func:`count_documents`, pairs of the most frequent words are counted unit-major (units:
    blocks of 64 window starts), the others pair by pair (:func:`_pair_unit_kernel`).

    Parameters
    ----------
    index, word_ids, pairs
        As in :func:`count_documents`.
    window : int
        Window size in tokens.
    compat : str
        ``"exact"``, ``"gensim"`` or ``"jhlau"`` (the module docstring).
    frequent, memory : optional
        As in :func:`count_documents`.

    Returns
    -------
    CooccurrenceCounts
        ``n_units`` is the number of windows.

    Raises: %(raises_counts_memory)s
    """
    window = _check_window(window, compat, index)
    ids, pairs, plan = _planned(index, word_ids, pairs, "window", memory)
    joint, single = sum_blocks(plan, f"windows of {int(window)} tokens", len(pairs),
                               lambda block: _window_block(index, block, pairs, window, compat, frequent,
                                                           plan.most), len(ids))
    return CooccurrenceCounts(_window_units(index, window, compat), single, pairs, joint,
                              f"window={int(window)}")


def _window_block(index, block, pairs, window: int, compat: str, frequent,
                  most) -> tuple[np.ndarray, np.ndarray]:
    """Joint and single window counts in one block of documents."""
    wptr, docs, ilo, ihi, starts, ends, single = _intervals(index, block, int(window), compat)
    sizes = np.diff(wptr)
    glo, ghi = wptr[:-1], wptr[1:]
    n_docs = block.n_docs
    doc_lengths = index.doc_lengths[block.d0:block.d1]
    has = np.flatnonzero(sizes)
    n_iv = int((ihi[wptr[has + 1] - 1] - ilo[wptr[has]]).sum())  # each word's intervals are contiguous
    pair_ns = _COST_WINDOW[0] * (1 + (int(window) - 1) / 64)
    costs = (pair_ns, _COST_WINDOW[1], 1.0 + 6.5 * n_iv / max(len(docs), 1), _COST_WINDOW[3])
    freq, rank = _frequent_words(sizes, pairs, glo, ghi, docs, n_docs, costs, frequent, most)

    def unit_major(fw, fpairs):
        work = int(sizes[fw].sum())
        return _frequent_pair_kernel(work, glo[fw], ghi[fw], docs, ilo, ihi, starts, ends, doc_lengths,
                                     int(window), _MODE_CODE[compat], n_docs, False, fpairs,
                                     *_tables(work, len(fw), int(window)))

    def probe(rest):
        return _pair_units(rest, wptr, docs, ilo, ihi, starts, ends, False, 0, n_docs,
                           _one_window_bitmap(doc_lengths, int(window), compat))

    return _split_joint(pairs, freq, rank, unit_major, probe), single


@shared_doc
def count_subsets(index, word_ids: Sequence[int], topics, window: int | None = None,
                  compat: str = "exact", memory: int | str | None = None) -> tuple[np.ndarray, int]:
    """Units holding all words of every subset of each topic's words.

    ``topics`` is a ``(T, k)`` array of indices into ``word_ids`` (``-1``: no word);
    returns ``(counts, n_units)`` with ``counts[t, mask]`` the units holding every word
    at the positions set in ``mask`` (``counts[t, 0] = n_units``).  ``window=None``
    counts documents; otherwise boolean sliding windows under ``compat``.

    Parameters
    ----------
    index, word_ids
        As in :func:`count_documents`.
    topics : array-like
        ``(T, k)`` positions in ``word_ids`` (``-1``: no word), ``k`` at most :data:`MAX_SUBSET_WORDS`.
    window : int, optional
        Window size in tokens (``None``: documents).
    compat : str
        ``"exact"``, ``"gensim"`` or ``"jhlau"``.
    memory : int or str, optional
        As in :func:`count_documents`.

    Returns
    -------
    counts : numpy.ndarray
        ``(T, 2**k)`` units holding every word of each subset.
    n_units : int
        Units counted in all.

    Raises: %(raises_counts_memory)s
    """
    loc = _topic_positions(topics, len(_as_ids(index, word_ids)))
    if loc.shape[1] > MAX_SUBSET_WORDS:
        raise SettingsError(f"word-set counts need 2**k subsets per topic; k={loc.shape[1]} is more than "
                            f"{MAX_SUBSET_WORDS}", fix=f"score at most {MAX_SUBSET_WORDS} words per topic")
    if window is None:  # topic by topic: its counts and a few KiB per thread
        _, counts, n_units = count_topic_documents(index, word_ids, loc, True, memory)
        return counts, n_units
    _, counts, n_units = count_topic_windows(index, word_ids, loc, window, compat, memory)
    return counts, n_units


#: :func:`topic_major_cheaper`'s bound: topic-major document counts are chosen when the topics' words'
#: postings, summed topic by topic, are at most this many times those of the distinct words.  Measured
#: (2 threads, 10 words a topic drawn from the 5,000 commonest by document frequency, so that topics
#: share words; ``benchmarks/coherence_scale.py`` and ``index_scale.py``'s references): the ratio at
#: which both ways took the same time was 6-8 at 50 M tokens, about 10 at 200 M and 13 at 1 B; 80
#: such topics have a ratio of 2.4-3, 80 LDA topics of the Reuters stories 2.1 (topic-major 4 times
#: faster at 50 M tokens).
TOPIC_MAJOR_MAX_REPEAT = 6


def topic_major_cheaper(index, word_ids: Sequence[int], topics, memory: int | str | None = None) -> bool:
    """Whether :func:`count_topic_documents` should count these topics' document pairs, rather than
    :func:`count_documents` each distinct pair once.

    Topic by topic, a word's postings are read once for every topic that has it; the pair kernels read
    each distinct word's postings once but pay per pair and per document shared.  Topic-major is chosen
    for topics of at most :data:`~tealeaves.coherence._kernels_topics.TOPIC_MAX_WORDS` words whose
    postings summed topic by topic are at most :data:`TOPIC_MAJOR_MAX_REPEAT` times the distinct words',
    when ``memory`` holds its tables (:func:`~tealeaves.coherence._blocked.topic_major_bytes`), and
    when those postings reach :data:`_ESTIMATE_MIN_WORK`: below it either way takes milliseconds, and
    a small job's first call need not compile the topic-major kernel too (1.3 s of CPU: a first
    ``coherence`` call on the Reuters stories took 3.9 s against 2.7 s).  Past that bound, where the
    pair kernels took about as long as the word sets (so about ``_COST_TOPIC_SETS x
    TOPIC_MAJOR_MAX_REPEAT`` ns per distinct posting), topic-major is still chosen when the pairs
    counted from bitmaps are estimated cheaper than that (:func:`_bitmap_ns`) and fit ``memory``:
    many topics of frequent words, each pair ``documents / 64`` words of work.

    Parameters
    ----------
    index, word_ids
        As in :func:`count_documents`.
    topics : array-like
        ``(T, k)`` positions in ``word_ids`` (``-1``: no word).
    memory : int or str, optional
        As in :func:`count_documents`.

    Returns
    -------
    bool
        True to count topic by topic.
    """
    ids = _as_ids(index, word_ids)
    loc = _topic_positions(topics, len(ids))
    present = loc[loc >= 0]
    if (loc.shape[1] > TOPIC_MAX_WORDS or len(present) == 0
            or topic_major_bytes(loc.shape[1]) > check_budget(memory)):
        return False
    ptr = index.arrays["word_ptr"]
    sizes = (ptr[ids + 1] - ptr[ids]).astype(np.int64)
    words = np.unique(present)
    repeated, distinct = int(sizes[present].sum()), int(sizes[words].sum())
    if repeated < _ESTIMATE_MIN_WORK:
        return False
    if repeated <= TOPIC_MAJOR_MAX_REPEAT * distinct:
        return True
    # at the bound the pair kernels took as long as the word sets: bitmaps cheaper than that count too
    n_words, n_pairs, n_docs = len(words), _present_pairs(loc), int(index.n_documents)
    if _bitmap_ns(distinct, n_words, n_pairs, n_docs) >= _COST_TOPIC_SETS * TOPIC_MAJOR_MAX_REPEAT * distinct:
        return False
    parts = parts_for(_bitmap_work(distinct, n_words, n_pairs, n_docs))
    return topic_bitmap_block(memory, n_words, len(loc), loc.shape[1], parts, n_docs) is not None


def _bitmap_work(word_postings: int, n_words: int, n_pairs: int, n_docs: int) -> int:
    """The work of counting pairs from bitmaps, for :func:`parts_for`: each distinct word's postings,
    and ``documents / 64`` words for each word's bitmap (zeroed, counted) and each pair (ANDed).

    Returns
    -------
    int
        Units of work (postings and 64-document words).
    """
    return word_postings + (n_words + n_pairs) * -(-n_docs // 64)


def _present_pairs(loc: np.ndarray) -> int:
    """Pairs of present words (``loc >= 0``), summed over the topics (rows)."""
    m = (loc >= 0).sum(axis=1)
    return int((m * (m - 1) // 2).sum())


def _damaged_postings(index) -> IndexIntegrityError:
    """The error of a topic-major count that read postings out of order or past the documents."""
    return IndexIntegrityError(f"the postings of the reference {index.name!r} are out of order or past its "
                               "documents",
                               fix="rebuild the index, or open it with verification "
                                   "(ReferenceIndex.load's verify=True)")


#: The ways :func:`count_topic_documents` counts.
TOPIC_METHODS = ("sets", "bitmaps")

#: Estimated CPU nanoseconds, for the choice between the two ways of :func:`count_topic_documents`:
#: the word sets, per posting of a topic's word (each read twice); the bitmaps, per distinct word's
#: posting (set once), per 64-document word of each distinct word's bitmap (zeroed and counted), and
#: per 64-document word of each pair of each topic (ANDed and counted).  Fitted to serial timings on
#: the 1 B-token reference of ``benchmarks/index_scale.py`` (80 x 10 topics drawn from the commonest
#: words, and the Reuters LDA topics): 3.8 ns; 2.4, 0.37 and 0.36 ns.  They only steer the speed.
_COST_TOPIC_SETS = 3.8
_COST_TOPIC_BITMAPS = (2.4, 0.37, 0.36)


def _bitmaps_cheaper(topic_postings: int, word_postings: int, n_words: int, n_pairs: int,
                     n_docs: int) -> bool:
    """Whether bitmaps should count topics' pairs rather than word sets (:func:`count_topic_documents`).

    Parameters
    ----------
    topic_postings : int
        The postings of each topic's words, summed over topics (the word sets' work).
    word_postings : int
        The postings of the distinct words.
    n_words : int
        Distinct words.
    n_pairs : int
        Pairs of present words, summed over topics.
    n_docs : int
        Documents of the reference.

    Returns
    -------
    bool
        True when the estimate of the bitmaps (:data:`_COST_TOPIC_BITMAPS`) is below that of the sets
        (:data:`_COST_TOPIC_SETS`).
    """
    return _bitmap_ns(word_postings, n_words, n_pairs, n_docs) < _COST_TOPIC_SETS * topic_postings


def _bitmap_ns(word_postings: int, n_words: int, n_pairs: int, n_docs: int) -> float:
    """Estimated CPU nanoseconds of counting pairs from bitmaps (:data:`_COST_TOPIC_BITMAPS`; the
    parameters as in :func:`_bitmaps_cheaper`).

    Returns
    -------
    float
        Nanoseconds.
    """
    per_post, per_row_word, per_pair_word = _COST_TOPIC_BITMAPS
    return per_post * word_postings + (per_row_word * n_words + per_pair_word * n_pairs) * -(-n_docs // 64)


def _topic_bitmap_count(index, loc: np.ndarray, wlo: np.ndarray, whi: np.ndarray, topic_postings: int,
                        memory, mode: str) -> np.ndarray | None:
    """The ``(T, k, k)`` document counts of :func:`count_topic_documents` from bitmaps, or None.

    ``mode``: ``"auto"`` (None when estimated dearer than the word sets, :func:`_bitmaps_cheaper`, or
    when they do not fit ``memory``), ``"fit"`` (no estimate; None when they do not fit) or ``"force"``
    (no estimate; a :class:`~tealeaves.errors.ParameterError` naming the minimum when they do not fit).
    """
    present = loc >= 0
    used, inverse = np.unique(loc[present], return_inverse=True)
    local = np.full(loc.shape, -1, dtype=np.int64)
    local[present] = inverse
    n_docs, (n_topics, k) = int(index.n_documents), loc.shape
    n_pairs = _present_pairs(loc)
    w_lo, w_hi = wlo[used], whi[used]
    word_postings = int((w_hi - w_lo).sum())
    if mode == "auto" and not _bitmaps_cheaper(topic_postings, word_postings, len(used), n_pairs, n_docs):
        return None
    work = _bitmap_work(word_postings, len(used), n_pairs, n_docs)
    parts = parts_for(work)
    block = topic_bitmap_block(memory, len(used), n_topics, k, parts, n_docs, required=mode == "force")
    if block is None:
        return None
    begin, cur = np.empty((parts, len(used)), dtype=np.int64), np.empty((parts, len(used)), dtype=np.int64)
    single = np.zeros((parts, len(used)), dtype=np.int64)
    pairs = np.zeros((parts, n_topics, k, k), dtype=np.int64)
    damaged = np.zeros(parts, dtype=np.bool_)
    _topic_bitmap_kernel(work, local, w_lo, w_hi, index.arrays["post_docs"], n_docs, block, begin, cur,
                         np.empty((parts, len(used), block // 64), dtype=np.uint64), single, pairs, damaged)
    if damaged.any() or (cur[:-1] != begin[1:]).any() or (cur[-1] != w_hi).any():
        raise _damaged_postings(index)
    joint = pairs[0]  # the parts summed in place, then copied out (the returned array holds one)
    for part in pairs[1:]:
        joint += part
    if parts > 1:
        joint = joint.copy()
    upper, lower = np.triu_indices(k, 1)
    joint[:, lower, upper] = joint[:, upper, lower]
    t, a = np.nonzero(present)
    joint[t, a, a] = single.sum(axis=0)[local[t, a]]
    return joint


def count_topic_documents(index, word_ids: Sequence[int], topics, subsets: bool = False,
                          memory: int | str | None = None,
                          method: str | None = None) -> tuple[np.ndarray, np.ndarray | None, int]:
    """Documents holding each pair (and each set) of each topic's words, counted topic by topic.

    Two ways, with the same counts (equal to :func:`count_documents`'s for pairs and to the sweep of
    window intervals' for sets):

    - ``"sets"``: the documents are read in blocks of
      :data:`~tealeaves.coherence._kernels_topics.TOPIC_BLOCK`, each topic's words' postings marking a
      ``uint16`` set of words per document, each document then counted once by its set
      (:func:`~tealeaves.coherence._kernels_topics._topic_document_kernel`): work in proportion to the
      sum over topics of their words' postings, memory a few KiB per thread beside the counts.
    - ``"bitmaps"`` (pairs only): per block of up to
      :data:`~tealeaves.coherence._kernels_topics.BITMAP_BLOCK` documents, a bitmap of each distinct
      word's documents, then each pair of each topic as the population count of the AND of two
      (:func:`~tealeaves.coherence._kernels_topics._topic_bitmap_kernel`): work in proportion to the
      distinct words' postings plus ``documents / 64`` per pair of words of each topic, memory
      :func:`~tealeaves.coherence._blocked.topic_bitmap_bytes`.  Cheaper when the words are frequent.

    Parameters
    ----------
    index, word_ids
        As in :func:`count_documents`.
    topics : array-like
        ``(T, k)`` positions in ``word_ids`` (``-1``: no word), ``k`` at most
        :data:`~tealeaves.coherence._kernels_topics.TOPIC_MAX_WORDS`.
    subsets : bool, default False
        Also count the documents holding every word of each subset of a topic's words.
    memory : int or str, optional
        As in :func:`count_documents`: it must hold each thread's tables beside the counts
        (:func:`~tealeaves.coherence._blocked.topic_major_bytes`: about 40 KiB a thread for 10 words,
        less with blocks of fewer documents, down to 64); bitmaps are used only when theirs fit.
    method : {"sets", "bitmaps"}, optional
        Force one way.  Default: ``"sets"`` with ``subsets``, else whichever
        :func:`_bitmaps_cheaper` estimates cheaper, and the bitmaps when the word sets' smallest
        tables do not fit ``memory`` but the bitmaps do.

    Returns
    -------
    joint : numpy.ndarray
        ``(T, k, k)`` documents holding topic words ``a`` and ``b`` (symmetric; the diagonal: each
        word's documents; 0 where a position has no word).
    sets : numpy.ndarray or None
        ``(T, 2**k)`` documents holding every word of each subset (``sets[t, 0]`` = all documents),
        with ``subsets``.
    n_units : int
        The documents of the reference (:attr:`~tealeaves.index.ReferenceIndex.n_present`).

    Raises
    ------
    SettingsError
        When a topic has more than ``TOPIC_MAX_WORDS`` positions, a word id is not the index's, or
        ``method="bitmaps"`` is asked with ``subsets``.
    ParameterError
        When ``method`` is not one of the two, ``subsets`` is not a boolean, or ``method="bitmaps"``
        is forced and ``memory`` cannot hold bitmaps of
        :data:`~tealeaves.coherence._blocked.MIN_BITMAP_BLOCK` documents.
    IndexIntegrityError
        When a posting read lies before the block of documents being counted or past the last
        document (a damaged index that was not verified; postings out of order within a block give the
        same counts).
    """
    budget = check_budget(memory)
    subsets = check_bool(subsets, "subsets")
    if method is not None:
        method = check_choice(method, "method", TOPIC_METHODS)
    if subsets and method == "bitmaps":
        raise SettingsError("method='bitmaps' counts pairs of words only, not the sets subsets=True asks",
                            fix="leave method unset, or use method='sets'")
    ids = _as_ids(index, word_ids)
    loc = _topic_positions(topics, len(ids))
    if loc.shape[1] > TOPIC_MAX_WORDS:
        raise SettingsError(f"topic-major document counts take at most {TOPIC_MAX_WORDS} words per topic, "
                            f"got {loc.shape[1]}", fix="count the pairs with count_documents")
    ptr = index.arrays["word_ptr"]
    wlo, whi = ptr[ids].astype(np.int64), ptr[ids + 1].astype(np.int64)
    present = loc >= 0
    work = int((whi - wlo)[loc[present]].sum())
    parts, k = parts_for(work), loc.shape[1]
    if not subsets and method != "sets":
        sets_fit = topic_major_bytes(k, 64, parts) <= budget  # if not, the bitmaps may still fit
        mode = "force" if method == "bitmaps" else "auto" if sets_fit else "fit"
        joint = _topic_bitmap_count(index, loc, wlo, whi, work, memory, mode)
        if joint is not None:
            return joint, None, int(index.n_present)
    block = topic_block(memory, k, parts)
    joint = np.zeros((len(loc), k, k), dtype=np.int64)
    sets = np.zeros((len(loc) if subsets else 0, 1 << k), dtype=np.int64)
    damaged = np.zeros(parts, dtype=np.bool_)
    scratch = (np.zeros((parts, block), dtype=np.uint16), np.empty((parts, 1 << k), dtype=np.int64),
               np.empty((parts, k), dtype=np.int64))  # each part's word sets, documents by set, cursors
    _topic_document_kernel(work, loc, wlo, whi, index.arrays["post_docs"], int(index.n_documents), block,
                           *scratch, joint, sets, damaged)
    if damaged.any():
        raise _damaged_postings(index)
    joint = joint + np.triu(joint, 1).transpose(0, 2, 1)
    if subsets:
        sets[:, 0] = index.n_present
    return joint, (sets if subsets else None), int(index.n_present)


def count_topic_windows(index, word_ids: Sequence[int], topics, window: int, compat: str = "exact",
                        memory: int | str | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """Windows holding each pair and each set of each topic's words, counted topic by topic.

    The window intervals of the topics' words (:func:`count_windows`'s) are made per block of documents
    that fits ``memory``; then, per topic and per block of
    :data:`~tealeaves.coherence._kernels_topics.TOPIC_WINDOW_BLOCK` documents, each document's set of
    the topic's words is marked, and only the documents holding two or more of them are swept edge by
    edge (:func:`~tealeaves.coherence._kernels_topics._topic_window_kernel`).  The work is the sum over
    topics of their words' postings plus the intervals where they meet.  The pairs' counts equal
    :func:`count_windows`'s, which counts pairs faster (each distinct pair once, 64 window starts at a
    time); this count is the one for word sets.

    Parameters
    ----------
    index, word_ids, topics, compat
        As in :func:`count_subsets`.
    window : int
        Window size in tokens.
    memory : int or str, optional
        As in :func:`count_documents`: it holds the intervals and each thread's tables
        (:func:`~tealeaves.coherence._blocked.topic_major_bytes` with ``windows=True``: about 330 KiB a
        thread for 10 words).

    Returns
    -------
    joint : numpy.ndarray
        ``(T, k, k)`` windows holding topic words ``a`` and ``b`` (symmetric; the diagonal: each word's
        windows; 0 where a position has no word).
    sets : numpy.ndarray
        ``(T, 2**k)`` windows holding every word of each subset (``sets[t, 0]`` = all windows).
    n_units : int
        The windows of the reference.

    Raises
    ------
    SettingsError
        When a topic has more than ``MAX_SUBSET_WORDS`` positions, the window or ``compat`` is not
        valid, or a word id is not the index's.
    IndexIntegrityError
        When a posting read lies before the block being counted or past the last document.
    """
    window = _check_window(window, compat, index)
    budget = check_budget(memory)
    ids = _as_ids(index, word_ids)
    loc = _topic_positions(topics, len(ids))
    k = loc.shape[1]
    if k > MAX_SUBSET_WORDS:
        raise SettingsError(f"word-set counts need 2**k subsets per topic; k={k} is more than "
                            f"{MAX_SUBSET_WORDS}", fix=f"score at most {MAX_SUBSET_WORDS} words per topic")
    ptr = index.arrays["word_ptr"]
    work = int((ptr[ids + 1] - ptr[ids])[loc[loc >= 0]].sum())
    parts = parts_for(work)
    block, plan = _window_topic_plan(index, ids, k, parts, budget)
    exact = np.zeros((len(loc), 1 << k), dtype=np.int64)
    single = np.zeros(len(ids), dtype=np.int64)
    damaged = np.zeros(parts, dtype=np.bool_)
    scratch = (np.zeros((parts, block), dtype=np.uint16), np.empty((parts, k, block), dtype=np.int64),
               np.empty((parts, k), dtype=np.int64), np.empty((parts, 4, k), dtype=np.int64))  # word sets,
    # postings, cursors, edges
    for blk in plan.blocks:
        wptr, docs, ilo, ihi, starts, ends, blk_single = _intervals(index, blk, int(window), compat)
        single += blk_single
        _topic_window_kernel(work, loc, wptr, docs, ilo, ihi, starts, ends, int(blk.n_docs), block, *scratch,
                             exact, damaged)
    if damaged.any():
        raise _damaged_postings(index)
    return _from_exact_sets(loc, single, exact, _window_units(index, window, compat))


def _window_topic_plan(index, ids: np.ndarray, k: int, parts: int, budget: int):
    """``(block, plan)`` of :func:`count_topic_windows`: the largest block of documents whose tables
    (:func:`~tealeaves.coherence._blocked.topic_major_bytes`) leave room for the intervals of at least
    one document at a time (:func:`~tealeaves.coherence._blocked.plan_blocks` raises, naming the minimum
    with blocks of 64, when none does)."""
    block = TOPIC_WINDOW_BLOCK
    while True:
        try:
            return block, plan_blocks(index, ids, 0, "subsets", budget,
                                      reserve=topic_major_bytes(k, block, parts, windows=True))
        except ParameterError:
            if block <= 64:
                raise
            block //= 2


def _from_exact_sets(loc: np.ndarray, single: np.ndarray, exact: np.ndarray,
                     n_units: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``(joint, sets, n_units)`` of :func:`count_topic_windows` from the units holding exactly each set
    of two or more of a topic's words (``exact``, ``T x 2**k``): a word's units alone are its units
    (``single``) less those of its larger sets."""
    t_, k = loc.shape
    masks = np.arange(1 << k)
    for i in range(k):
        bit = 1 << i
        larger = (masks & bit).astype(bool) & (masks != bit)
        here = loc[:, i] >= 0
        exact[here, bit] = single[loc[here, i]] - exact[here][:, larger].sum(axis=1)
    joint = np.zeros((t_, k, k), dtype=np.int64)
    sets = np.empty_like(exact)
    for t in range(t_):
        _pairs_of_sets(exact[t], k, joint[t])
        _supersets(exact[t], k, sets[t])
    joint = joint + np.triu(joint, 1).transpose(0, 2, 1)
    sets[:, 0] = n_units
    return joint, sets, n_units


@shared_doc
def count_context(index, word_ids: Sequence[int], pairs, window: int,
                  memory: int | str | None = None) -> CooccurrenceCounts:
    """Palmetto's context-window counts (``P_cw``, C_A): see the module docstring.

    ``single`` is each word's number of tokens, ``joint[m]`` the occurrence pairs of
    ``pairs[m]`` at most ``window`` tokens apart, ``n_units`` = ``sum(n - window + 1)``
    over the present documents.

    Parameters
    ----------
    index, word_ids, pairs
        As in :func:`count_documents`.
    window : int
        Greatest distance in tokens between the two occurrences of a pair.
    memory : int or str, optional
        As in :func:`count_documents`.

    Returns
    -------
    CooccurrenceCounts
        Occurrence-pair counts (``unit`` is ``"context=<w>"``).

    Raises: %(raises_counts_memory)s
    """
    window = _check_window(window, "exact")
    ptr, pos_ptr = index.arrays["word_ptr"], index.arrays["pos_ptr"]
    ids, pairs, plan = _planned(index, word_ids, pairs, "context", memory)
    joint = sum_blocks(plan, f"context windows of {int(window)} tokens", len(pairs),
                       lambda block: _context_block(index, block, pairs, int(window)))
    single = (pos_ptr[ptr[ids + 1]] - pos_ptr[ptr[ids]]).astype(np.int64)
    lengths = index.doc_lengths[index.present].astype(np.int64)
    n_units = int((lengths - int(window) + 1).sum())
    if n_units <= 0:
        raise EmptyInputError(f"context windows of {int(window)} tokens count sum(n - {int(window) - 1}) "
                              f"over the documents, {n_units} for the reference {index.name!r}",
                              fix="use a reference with longer documents, or a smaller window")
    return CooccurrenceCounts(n_units, single, pairs, joint, f"context={int(window)}")
