"""Counting in bounded memory: the document ranges ("blocks") a count is split into.

Every count of :mod:`tealeaves.coherence.core` is a sum over documents (a window never crosses a
document), so the selected words' postings can be counted one range of documents at a time and the
integer counts of the ranges added: the result is the same as one pass over every document.  A
block holds, for the topic words only, the postings (and, for windows, the window-start intervals)
of its documents, with document ids counted from the block's first document, so the scratch maps of
the pair kernels are sized to the block's documents, not to the whole reference.

The working set of a block is estimated from the sizes the index already stores (each word's
postings and positions, read from ``word_ptr`` and ``pos_ptr`` with a binary search per word and
range boundary, never by reading the postings), at the bytes per posting, position and document of
:data:`BYTES`; what does not depend on the block (the pairs, the words, the tables of the frequent
words) is held once.  :func:`plan_blocks` takes the widest ranges whose working set stays within the
``memory`` budget (above the mapped index); a budget too small for one document refuses with the
minimum.  :func:`estimate` gives the working set and time of a count without counting.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import sys
from dataclasses import dataclass, replace

import numba
import numpy as np

from tealeaves.coherence._kernels import _DENSE_BYTES, _lower_bound, parts_for
from tealeaves.coherence._kernels_frequent import MAX_FREQUENT
from tealeaves.coherence._kernels_topics import BITMAP_BLOCK, TOPIC_BLOCK
from tealeaves.errors import ParameterError, naming
from tealeaves.index.memory import DEFAULT_MEMORY, parse_memory, size_text

__all__ = ["BYTES", "Block", "CountingProgress", "check_budget", "estimate", "plan_blocks", "progress_to",
           "scoring_costs", "sum_blocks"]

#: Bytes of a count's working set, per kind of count: per selected posting, per selected position,
#: per document of a block and per pair (``parts`` threads each add their own scratch maps).
#: Windows: ``docs`` (4), ``ilo``/``ihi`` (16 as ``int64``; ``int32`` below 2**31 positions) per
#: posting, ``starts``/``ends`` (8) per position (an occurrence gives at most one interval); per document
#: 2 (a byte of margin, as the first version of this table had, and the bitmap of the documents of one
#: window start, counted as a byte) and per thread 5 (the probes' bitmap, counted as a byte, and their
#: ``int32`` posting map); documents: the block's
#: postings (4), ``cnt_a``/``cnt_b`` (a byte each), ``cid`` (4) and at most 8 of document bitsets per
#: document, a bitmap per thread (counted as a byte); context windows: the selected postings' slots,
#: documents and position ranges (32), the maps of windows; word sets of windows: the intervals, as for
#: windows (each thread's tables of :func:`topic_major_bytes` are reserved beside them).
#: A pair holds its entry in ``pairs``, the joint counts, the anchor order and the kernels' keys, costs
#: and outputs (about 96 bytes), a word about 96.
BYTES = {
    "doc": {"posting": 4, "position": 0, "document": 14, "document_thread": 1},
    "window": {"posting": 20, "position": 8, "document": 2, "document_thread": 5},
    "context": {"posting": 32, "position": 0, "document": 0, "document_thread": 5},
    "subsets": {"posting": 20, "position": 8, "document": 0, "document_thread": 0},
}
_PER_PAIR = 96
_PER_WORD = 96
#: Grid points per level when cutting the documents into blocks.
_GRID = 256
#: Estimated seconds per selected posting, position, pair and block (a count on one thread of this
#: 2-core machine: 1,000 x top 50 on the 50M-token reference of ``benchmarks/coherence_scale.py``).
_SECONDS = {"posting": 4e-8, "position": 2e-8, "pair": 3e-7, "block": 0.02}
#: A call estimated to take longer than this shows its progress on a terminal.
PROGRESS_SECONDS = 3.0


#: Most documents in a block of a sliding-window count over more than twice as many, whatever the
#: budget: the probes read their per-thread maps of a block's documents (an ``int32`` posting map and a
#: bitmap) and its window intervals at random, so blocks of many documents miss the caches.  Measured
#: (docs/coherence.md, fifth round): on the 1 B-token reference (28 M documents), 80 x 10 topics at 10
#: and 110 tokens took 9.2-18.6 s in the budget's blocks of about 4 M documents and 7.0-11.3 s in blocks
#: of about 1 M; on the 50 M-token reference (1.75 M documents) two blocks took 1.1-1.5x the time of one,
#: so a reference of at most ``2 * WINDOW_BLOCK_DOCS`` documents is not cut for this.
WINDOW_BLOCK_DOCS = 1 << 20

#: Smallest ``memory`` a count takes at all (what a count needs is checked by :func:`plan_blocks`).
MIN_BUDGET = 1 << 10


def check_budget(memory) -> int:
    """The ``memory`` budget of a count in bytes: ``None`` (the default, 1 GiB), a whole number of bytes
    or a size as the build's ``memory`` reads it (``"1G"``, ``"512M"``; :func:`parse_memory`).

    Parameters
    ----------
    memory : int or str or None
        The budget above the mapped index.

    Returns
    -------
    int
        Bytes.
    """
    if memory is None:
        return DEFAULT_MEMORY
    if isinstance(memory, str):
        return parse_memory(memory, local=False, minimum=MIN_BUDGET)
    from tealeaves.validation import check_int

    return check_int(memory, "memory", min_value=MIN_BUDGET)


@dataclass
class Block:
    """A range ``[d0, d1)`` of documents and, for each selected word, its postings there
    (``gstart[i]:gend[i]`` in the index's ``post_docs``).

    Parameters
    ----------
    d0, d1 : int
        The first document and the one past the last.
    gstart, gend : numpy.ndarray
        Each selected word's first posting in the range and the one past its last.
    """

    d0: int
    d1: int
    gstart: np.ndarray
    gend: np.ndarray

    @property
    def n_docs(self) -> int:
        """Documents in the block."""
        return self.d1 - self.d0

    def word_ptr(self) -> tuple[np.ndarray, np.ndarray]:
        """Ids and a pointer array that read each word's block postings as ``ptr[ids[i]]:ptr[ids[i] + 1]``
        (the layout the kernels take for an index's ``word_ptr``).

        Returns
        -------
        ids : numpy.ndarray
            ``2 i`` for word ``i``.
        ptr : numpy.ndarray
            ``gstart`` and ``gend`` interleaved.
        """
        ptr = np.empty(2 * len(self.gstart), dtype=np.int64)
        ptr[0::2] = self.gstart
        ptr[1::2] = self.gend
        return 2 * np.arange(len(self.gstart), dtype=np.int64), ptr

    def local_postings(self, post_docs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The words' postings in the block, copied once into one array (the index's ``dtype``), with
        document ids counted from ``d0``.

        Parameters
        ----------
        post_docs : numpy.ndarray
            The index's postings.

        Returns
        -------
        ptr : numpy.ndarray
            Word ``i``'s postings are ``docs[ptr[i]:ptr[i + 1]]``.
        docs : numpy.ndarray
            The document ids.
        """
        ptr = np.zeros(len(self.gstart) + 1, dtype=np.int64)
        ptr[1:] = np.cumsum(self.gend - self.gstart)
        docs = np.empty(int(ptr[-1]), dtype=post_docs.dtype)
        for i, (a, b) in enumerate(zip(self.gstart.tolist(), self.gend.tolist())):
            docs[ptr[i]:ptr[i + 1]] = post_docs[a:b]
        docs -= docs.dtype.type(self.d0)
        return ptr, docs


@numba.njit(cache=True, nogil=True)
def _lower_bounds(gstart, gend, post_docs, d):
    """Per word, the first of its postings ``gstart[i]:gend[i]`` whose document is at least ``d``."""
    out = np.empty(len(gstart), dtype=np.int64)
    for i in range(len(gstart)):
        out[i] = _lower_bound(post_docs, gstart[i], gend[i], d)
    return out


@numba.njit(cache=True, nogil=True)
def _grid_sizes(gstart, gend, post_docs, pos_ptr, bounds):
    """Selected postings and positions in documents below each of the sorted ``bounds`` (from each
    word's ``gstart``)."""
    n_b = len(bounds)
    post = np.zeros(n_b, dtype=np.int64)
    pos = np.zeros(n_b, dtype=np.int64)
    for i in range(len(gstart)):
        lo = gstart[i]
        for b in range(n_b):
            lo = _lower_bound(post_docs, lo, gend[i], bounds[b])
            post[b] += lo - gstart[i]
            pos[b] += pos_ptr[lo] - pos_ptr[gstart[i]]
    return post, pos


def dense_bytes(budget: int) -> int:
    """Bytes of document bitsets of the densest words a document count may hold within ``budget``: an
    eighth of it, at most :data:`~tealeaves.coherence._kernels._DENSE_BYTES`.

    Parameters
    ----------
    budget : int
        The budget in bytes.

    Returns
    -------
    int
        The bytes.
    """
    return min(_DENSE_BYTES, budget // 8)


def _block_bytes(kind: str, postings, positions, docs, parts: int, dense: int = _DENSE_BYTES):
    """Estimated working set of a block of ``docs`` documents holding ``postings`` and ``positions``
    (``dense``: the bytes of bitsets a document count may hold)."""
    b = BYTES[kind]
    total = (b["posting"] * postings + b["position"] * positions
             + (b["document"] + b["document_thread"] * parts) * docs)
    if kind == "doc":  # bitsets of the densest words: at most 64 bits per posting, the larger of 8 per
        total = total + np.minimum(64 * postings, np.maximum(8 * docs, dense))  # document and the cap
    return total


def table_words(memory: int, parts: int) -> int:
    """Most frequent words counted unit-major within a quarter of ``memory`` (``parts`` triangular
    ``uint16`` tables of ``F (F - 1) / 2`` entries), at most :data:`MAX_FREQUENT`.

    Parameters
    ----------
    memory : int
        The budget in bytes.
    parts : int
        The threads, each with its table.

    Returns
    -------
    int
        ``F``.
    """
    return min(MAX_FREQUENT, math.isqrt(max(memory // 4 // max(parts, 1), 0)))


def _fixed_bytes(kind: str, n_words: int, n_pairs: int, most: int, parts: int) -> int:
    """The working set held whatever the blocks: pairs, words, the frequent words' tables."""
    return _PER_PAIR * n_pairs + _PER_WORD * n_words + _table_bytes(kind, most, parts) + 8 * parts * n_pairs


def _table_bytes(kind: str, most: int, parts: int) -> int:
    return parts * most * most if kind in ("doc", "window") else 0


class _Oversize(Exception):
    """A single document's block is over the limit."""


@dataclass
class Plan:
    """How a count runs.

    Parameters
    ----------
    blocks : list of Block
        The ranges of documents, in order.
    most : int
        The most frequent words it may count unit-major (:func:`table_words`).
    bytes : int
        The estimated working set above the mapped index.
    seconds : float
        The estimated time.
    dense : int
        The bytes of document bitsets a document count may hold (:func:`dense_bytes`).
    """

    blocks: list
    most: int
    bytes: int
    seconds: float
    dense: int = _DENSE_BYTES


def _sizes(index, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ptr = index.arrays["word_ptr"]
    return ptr[ids].astype(np.int64), ptr[ids + 1].astype(np.int64)


def _seconds(postings: int, positions: int, n_pairs: int, n_blocks: int, kind: str) -> float:
    s = _SECONDS
    pos = positions if kind in ("window", "subsets") else 0
    return (s["posting"] * postings + s["position"] * pos + s["pair"] * n_pairs * n_blocks
            + s["block"] * n_blocks)


def plan_blocks(index, ids: np.ndarray, n_pairs: int, kind: str, memory, reserve: int = 0) -> Plan:
    """The blocks of documents a count of ``n_pairs`` pairs of the words ``ids`` runs in, within
    ``memory`` bytes above the mapped index.

    Parameters
    ----------
    index : ReferenceIndex
        The reference.
    ids : numpy.ndarray
        The selected words' ids.
    n_pairs : int
        Pairs counted.
    kind : str
        ``"doc"``, ``"window"``, ``"context"`` or ``"subsets"`` (:data:`BYTES`).
    memory : int or str or None
        The budget (:func:`check_budget`).
    reserve : int, default 0
        Bytes of the budget kept for the count's own tables beside the blocks (its threads' scratch).

    Returns
    -------
    Plan
        The blocks (one, the whole reference, when it fits).

    Raises
    ------
    ParameterError
        When the budget is below what one document's block needs (the message names the minimum).
    """
    budget = check_budget(memory)
    gstart, gend = _sizes(index, ids)
    pos_ptr = index.arrays["pos_ptr"]
    n_docs = index.n_documents
    postings = int((gend - gstart).sum())
    positions = int((pos_ptr[gend] - pos_ptr[gstart]).sum()) if len(ids) else 0
    parts = parts_for(max(postings, positions))
    fixed = reserve + _fixed_bytes(kind, len(ids), n_pairs, 0, parts)  # without the frequent words' tables
    most = table_words(max(budget - fixed, 0), parts)
    dense = dense_bytes(budget)
    whole = int(_block_bytes(kind, postings, positions, n_docs, parts, dense))
    held = fixed + _table_bytes(kind, most, parts) + whole
    capped = kind == "window" and n_docs > 2 * WINDOW_BLOCK_DOCS
    if held <= budget:  # it fits: one block, or blocks of at most WINDOW_BLOCK_DOCS documents
        cuts, tried = [0, n_docs], most
    else:
        sel = _Selection(gstart, gend, index.arrays["post_docs"], pos_ptr, kind, parts, dense)
        for tried in (most, 0):  # no tables (every pair probed) when they leave too little for a document
            limit = budget - fixed - _table_bytes(kind, tried, parts)
            grid = int(np.clip(16 * -(-whole // max(limit, 1)), _GRID, 64 * _GRID))  # cells of ~1/16 block
            try:
                cuts = _cuts(0, n_docs, sel, limit, grid)
                break
            except _Oversize:
                if tried == 0:
                    raise _too_small(budget, _minimum(sel, n_docs, fixed), len(ids), n_pairs) from None
        held = budget
    blocks = _blocks(_capped(cuts) if capped else cuts, gstart, gend, index.arrays["post_docs"])
    return Plan(blocks, tried, held, _seconds(postings, positions, n_pairs, len(blocks), kind), dense)


def _capped(cuts: list[int]) -> list[int]:
    """``cuts`` with every block of more than :data:`WINDOW_BLOCK_DOCS` documents cut into equal blocks
    of at most that many.

    Parameters
    ----------
    cuts : list of int
        Increasing document numbers, the first and last the range's ends.

    Returns
    -------
    list of int
        The same ends, with cuts added.
    """
    out = [cuts[0]]
    for d0, d1 in zip(cuts[:-1], cuts[1:]):
        n = -(-(d1 - d0) // WINDOW_BLOCK_DOCS)
        out.extend(d0 + (d1 - d0) * i // n for i in range(1, n + 1))
    return out


@dataclass
class _Selection:
    """The selected words' postings (``gstart``, ``gend`` in ``post_docs``, positions by ``pos_ptr``)
    and how a block of them is costed (``kind``, ``parts`` threads, ``dense`` bytes of bitsets)."""

    gstart: np.ndarray
    gend: np.ndarray
    post_docs: np.ndarray
    pos_ptr: np.ndarray
    kind: str
    parts: int
    dense: int

    def bytes(self, postings, positions, docs):
        """:func:`_block_bytes` of blocks of these sizes."""
        return _block_bytes(self.kind, postings, positions, docs, self.parts, self.dense)


def _blocks(cuts: list[int], gstart: np.ndarray, gend: np.ndarray, post_docs) -> list[Block]:
    """The blocks between consecutive ``cuts``, with each word's postings there."""
    blocks = []
    lo = gstart
    for d0, d1 in zip(cuts[:-1], cuts[1:]):
        hi = gend if d1 == cuts[-1] else _lower_bounds(gstart, gend, post_docs, d1)
        blocks.append(Block(d0, d1, lo, hi))
        lo = hi
    return blocks


def _too_small(budget: int, need: int, n_words: int, n_pairs: int) -> ParameterError:
    return _below(budget, need, f"counting {n_words:,} words and {n_pairs:,} pairs needs with one document "
                                "per block")


def _below(budget: int, need: int, what: str) -> ParameterError:
    shift, unit = (20, "M") if need >= 1 << 20 else (10, "K")
    return naming(ParameterError(f"memory {size_text(budget)} is below the {size_text(need)} "
                                 f"({need:,} bytes) that {what}",
                                 fix=f"give at least {-(-need // (1 << shift))}{unit}"), "memory")


def topic_major_bytes(k: int, block: int = TOPIC_BLOCK, parts: int | None = None,
                      windows: bool = False) -> int:
    """Working set of counting topics of ``k`` words topic by topic, beside the mapped index and the
    counts (:func:`tealeaves.coherence.core.count_topic_documents`, ``count_topic_windows``): each
    part's word set per document of a block of ``block`` documents, its units by set and its cursors;
    for windows also each word's posting per document and the sweep's edges.

    Parameters
    ----------
    k : int
        Words per topic.
    block : int
        Documents per block.
    parts : int, optional
        Parts run at once (default: numba's threads).
    windows : bool, default False
        Counting windows (``_topic_window_kernel``) rather than documents: each part also keeps each
        word's posting per document and the sweep's edges (and no table of sets: they go straight
        into the counts).

    Returns
    -------
    int
        Bytes.
    """
    parts = numba.get_num_threads() if parts is None else parts
    if windows:
        return parts * (2 * block + 8 * k * block + 8 * k + 32 * k)
    return parts * (2 * block + (1 << k) * 8 + 8 * k)


#: Fewest documents per block of the bitmap count (:func:`topic_bitmap_block`): below it the word-set
#: kernel, which needs a few KiB, counts instead.
MIN_BITMAP_BLOCK = 1 << 12


def topic_bitmap_bytes(n_words: int, n_topics: int, k: int, block: int, parts: int) -> int:
    """Working set of counting topics' pairs from bitmaps
    (:func:`~tealeaves.coherence._kernels_topics._topic_bitmap_kernel`) beside the mapped index and the
    counts: each part's bitmap of each word over a block of documents, its cursors and word counts, and
    its own pair counts (summed after).

    Parameters
    ----------
    n_words : int
        Distinct words of the topics.
    n_topics, k : int
        Topics and words per topic.
    block : int
        Documents per block.
    parts : int
        Parts run at once.

    Returns
    -------
    int
        Bytes.
    """
    return parts * (n_words * (8 * (-(-block // 64)) + 24) + 8 * n_topics * k * k)


def topic_bitmap_block(memory, n_words: int, n_topics: int, k: int, parts: int, n_docs: int,
                       required: bool = False) -> int | None:
    """Documents per block of the bitmap count: blocks of one size (a multiple of 64, at most
    :data:`~tealeaves.coherence._kernels_topics.BITMAP_BLOCK`), planned a multiple of ``parts`` in
    number so the parts get about equal runs (rounding the block up to 64 documents may leave fewer
    blocks, and on a small reference fewer blocks than parts: a part may get none), the fewest whose
    :func:`topic_bitmap_bytes` fits ``memory``; failing those, blocks of :data:`MIN_BITMAP_BLOCK`
    documents.

    Parameters
    ----------
    memory : int or str or None
        The budget (:func:`check_budget`).
    n_words, n_topics, k, parts
        As in :func:`topic_bitmap_bytes`.
    n_docs : int
        Documents of the reference.
    required : bool, default False
        Raise, rather than return None, when nothing fits.

    Returns
    -------
    int or None
        Documents per block; None when not even blocks of :data:`MIN_BITMAP_BLOCK` documents (or the
        reference's, if fewer) fit.

    Raises
    ------
    ParameterError
        With ``required``, when not even those fit, naming the bytes they need.
    """
    budget = check_budget(memory)
    n_blocks = parts * max(1, -(-n_docs // (BITMAP_BLOCK * parts)))
    block = 64 * max(1, -(-n_docs // (64 * n_blocks)))
    while topic_bitmap_bytes(n_words, n_topics, k, block, parts) > budget:
        n_blocks *= 2
        smaller = 64 * max(1, -(-n_docs // (64 * n_blocks)))
        if smaller < MIN_BITMAP_BLOCK:  # the smallest blocks last (a step may have passed over them)
            smaller = MIN_BITMAP_BLOCK
        if smaller >= block:
            if required:
                raise _below(budget, topic_bitmap_bytes(n_words, n_topics, k, block, parts),
                             f"counting the pairs of {n_topics:,} topic{'' if n_topics == 1 else 's'} from "
                             f"bitmaps of {n_words:,} word{'' if n_words == 1 else 's'} needs")
            return None
        block = smaller
    return block


def topic_block(memory, k: int, parts: int) -> int:
    """The largest block of documents (a power of two, :data:`TOPIC_BLOCK` at most, 64 at least) whose
    :func:`topic_major_bytes` fits ``memory`` (:func:`check_budget`).

    Parameters
    ----------
    memory : int or str or None
        The budget.
    k, parts
        As in :func:`topic_major_bytes`.

    Returns
    -------
    int
        Documents per block.

    Raises
    ------
    ParameterError
        When not even blocks of 64 documents fit, naming the bytes they need.
    """
    budget = check_budget(memory)
    block = TOPIC_BLOCK
    while block > 64 and topic_major_bytes(k, block, parts) > budget:
        block //= 2
    need = topic_major_bytes(k, block, parts)
    if need > budget:
        raise _below(budget, need, f"counting topics of {k} words topic by topic needs")
    return block


@numba.njit(cache=True, nogil=True)
def _document_sizes(gstart, gend, post_docs, pos_ptr, lo, hi):
    """Selected postings and positions of each document of ``lo .. hi - 1``."""
    post = np.zeros(hi - lo, dtype=np.int64)
    pos = np.zeros(hi - lo, dtype=np.int64)
    for i in range(len(gstart)):
        g, end = gstart[i], gend[i]
        while g < end and post_docs[g] < lo:  # (a binary search would do; this runs only to refuse)
            g += 1
        while g < end and post_docs[g] < hi:
            post[post_docs[g] - lo] += 1
            pos[post_docs[g] - lo] += pos_ptr[g + 1] - pos_ptr[g]
            g += 1
    return post, pos


def _minimum(sel: _Selection, n_docs: int, fixed: int) -> int:
    """The smallest budget that holds ``fixed`` bytes and a block of any one document (the bitsets a
    document count may hold grow with the budget: the least fixed point)."""
    need = fixed + _largest_document(sel, n_docs)
    while (again := fixed + _largest_document(replace(sel, dense=dense_bytes(need)), n_docs)) > need:
        need = again
    return need


def _largest_document(sel: _Selection, n_docs: int) -> int:
    """The largest working set of a block of one document (ranges of 2**20 documents at a time)."""
    most = 0
    for lo in range(0, n_docs, 1 << 20):
        hi = min(n_docs, lo + (1 << 20))
        first = _lower_bounds(sel.gstart, sel.gend, sel.post_docs, lo)
        post, pos = _document_sizes(first, sel.gend, sel.post_docs, sel.pos_ptr, lo, hi)
        most = max(most, int(sel.bytes(post, pos, 1).max()))
    return most


def _cuts(lo: int, hi: int, sel: _Selection, limit: int, grid: int = _GRID) -> list[int]:
    """Document cut points ``lo = c_0 < ... < c_m = hi`` whose ranges each fit in ``limit`` bytes: the
    widest ranges of a grid of ``grid`` cells of ``[lo, hi)``, a cell over the limit cut on a finer grid
    of its own (a single document over it: :class:`_Oversize`)."""
    if limit <= 0:
        raise _Oversize
    bounds = np.unique(np.linspace(lo, hi, min(hi - lo, grid) + 1).astype(np.int64))
    gs = _lower_bounds(sel.gstart, sel.gend, sel.post_docs, lo)
    post, pos = _grid_sizes(gs, sel.gend, sel.post_docs, sel.pos_ptr, bounds)

    def cost(a: int, b: int) -> int:
        return int(sel.bytes(post[b] - post[a], pos[b] - pos[a], bounds[b] - bounds[a]))

    cuts = [lo]
    start = 0
    for j in range(1, len(bounds)):
        if cost(start, j) <= limit:
            continue
        if j - 1 > start:  # close the block before cell j - 1 .. j, which starts the next one
            cuts.append(int(bounds[j - 1]))
            start = j - 1
            if cost(start, j) <= limit:
                continue
        if bounds[j] - bounds[start] == 1:
            raise _Oversize
        cuts.extend(_cuts(int(bounds[start]), int(bounds[j]), sel, limit)[1:])
        start = j
    if cuts[-1] != hi:
        cuts.append(hi)
    return cuts


def estimate(index, ids, n_pairs: int, kind: str = "window", memory=None) -> dict:
    """Working set and time of counting ``n_pairs`` pairs of the words ``ids`` (without counting).

    Parameters
    ----------
    index : ReferenceIndex
        The reference.
    ids : array-like
        The words' ids.
    n_pairs : int
        The pairs counted.
    kind : str
        ``"doc"``, ``"window"``, ``"context"`` or ``"subsets"``.
    memory : int or str or None
        The budget (:func:`check_budget`).

    Returns
    -------
    dict
        ``postings`` and ``positions`` of the words, ``blocks``, ``bytes`` (the working set above the
        mapped index), ``seconds`` (a rough estimate on one thread), ``unblocked_bytes`` (what one
        pass over every document would hold).
    """
    ids = np.asarray(ids, dtype=np.int64).reshape(-1)
    plan = plan_blocks(index, ids, n_pairs, kind, memory)
    gstart, gend = _sizes(index, ids)
    pos_ptr = index.arrays["pos_ptr"]
    postings = int((gend - gstart).sum())
    positions = int((pos_ptr[gend] - pos_ptr[gstart]).sum()) if len(ids) else 0
    parts = parts_for(max(postings, positions))
    unblocked = (_fixed_bytes(kind, len(ids), n_pairs, MAX_FREQUENT, parts)
                 + int(_block_bytes(kind, postings, positions, index.n_documents, parts)))
    return {"postings": postings, "positions": positions, "blocks": len(plan.blocks), "bytes": plan.bytes,
            "seconds": plan.seconds, "unblocked_bytes": unblocked}


_PROGRESS: contextvars.ContextVar = contextvars.ContextVar("coherence_progress", default=None)


@contextlib.contextmanager
def progress_to(stream=None):
    """Within the block, counts estimated to take more than :data:`PROGRESS_SECONDS` report their
    blocks on ``stream`` (default standard error) when it is a terminal; nothing otherwise.

    Parameters
    ----------
    stream : TextIO, optional
        Where progress goes.

    Yields
    ------
    None
    """
    token = _PROGRESS.set(sys.stderr if stream is None else stream)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


class CountingProgress:
    """Progress of one count over its blocks (:class:`tealeaves._progress.Progress`): drawn only on a
    terminal set by :func:`progress_to`, for a plan estimated over :data:`PROGRESS_SECONDS`.

    Parameters
    ----------
    plan : Plan
        The count's plan.
    what : str
        What is counted (``"windows of 10 tokens"``).
    """

    def __init__(self, plan: Plan, what: str):
        from tealeaves._progress import Progress, is_terminal

        stream = _PROGRESS.get()
        on = is_terminal(stream) and plan.seconds > PROGRESS_SECONDS
        self.progress = Progress(stream if on else None, interval=0.5)
        self.total = len(plan.blocks)
        self.what = what
        if on:
            self.progress.redraw(f"counting {what}: {self.total} block(s) of documents, "
                                 f"{size_text(plan.bytes)} working set, about {plan.seconds:.0f} s")

    def done(self, n: int) -> None:
        """Report ``n`` blocks done (the last one ends the line).

        Parameters
        ----------
        n : int
            Blocks done.
        """
        p = self.progress
        if p.stream is None:
            return
        if n >= self.total:
            p.redraw(f"counted {self.what}: {self.total} block(s) in {p.elapsed():.0f} s" + " " * 20 + "\n")
        elif p.due():
            p.redraw(f"counting {self.what}: block {n}/{self.total}, about "
                     f"{p.remaining(n, self.total):.0f} s left" + " " * 10)


def sum_blocks(plan: Plan, what: str, n_pairs: int, count, n_words: int | None = None):
    """The sums over ``plan``'s blocks of ``count(block)`` (progress on a terminal: :func:`progress_to`).

    Parameters
    ----------
    plan : Plan
        The blocks.
    what : str
        What is counted, for the progress line.
    n_pairs : int
        Pairs counted.
    count : callable
        ``count(block)``: the block's joint counts, or with ``n_words`` its ``(joint, single)``.
    n_words : int, optional
        Words whose single counts ``count`` also gives.

    Returns
    -------
    numpy.ndarray or tuple of numpy.ndarray
        The summed joint counts, or ``(joint, single)``.
    """
    progress = CountingProgress(plan, what)
    joint = np.zeros(n_pairs, dtype=np.int64)
    single = None if n_words is None else np.zeros(n_words, dtype=np.int64)
    for done, block in enumerate(plan.blocks, 1):
        got = count(block)
        if single is None:
            joint += got
        else:
            joint += got[0]
            single += got[1]
        progress.done(done)
    return joint if single is None else (joint, single)


def scoring_costs(index, memory=None) -> dict:
    """What counting against ``index`` costs, for ``tealeaves index info``: per kind of count, the bytes
    of the working set per posting and position of the topic words and per document of a block
    (:data:`BYTES`), and the working set, blocks and rough time of a count of every word of the index
    (the most any topic set can need; pairs not included).

    Parameters
    ----------
    index : ReferenceIndex
        The reference.
    memory : int or str, optional
        The budget (:func:`check_budget`; default 1 GiB).

    Returns
    -------
    dict
        ``{"scoring": {"doc": {...}, "window": {...}}}``.
    """
    budget = check_budget(memory)
    postings, positions = len(index.arrays["post_docs"]), len(index.arrays["positions"])
    parts = parts_for(max(postings, positions))
    out = {}
    for kind in ("doc", "window"):
        every = int(_block_bytes(kind, postings, positions, index.n_documents, parts))
        blocks = max(1, -(-every // budget))
        b = BYTES[kind]
        out[kind] = {"bytes_per_posting": b["posting"], "bytes_per_position": b["position"],
                     "bytes_per_document": b["document"] + b["document_thread"] * parts,
                     "every_word_bytes": every, "every_word_blocks_at_budget": blocks, "budget": budget,
                     "every_word_seconds": round(_seconds(postings, positions, 0, blocks, kind), 1)}
    return {"scoring": out}
