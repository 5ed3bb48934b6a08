"""Odd inputs of the topic-by-topic document counts (``core.count_topic_documents``,
``core.topic_major_cheaper`` and the measures that use them: document measures of small topics, word-set
measures of documents).

Topics with no word present, one word, a word twice, 12 and 13 words, no topics and 200,000 of them;
topic arrays that are not arrays of positions (floats, NaN, strings, ragged, out of range); references
with empty documents, all empty but one, and documents on each side of a block's edge (16,384 and, under
a small ``memory``, 64 documents a block); budgets at and around what blocks of 64 documents need; postings
damaged after the index was built (out of order, repeated, negative, past the last document); the
``tealeaves coherence`` command on tiny references; two processes counting the same index at once.

What each success case returns is recounted independently: :func:`_enumerated` from the token lists,
:func:`_by_postings` from the index's postings in plain Python (sets of documents), and the pair kernels
(``core.count_documents``) where the postings are sound.  A damaged index must give the recount of its
postings or an ``IndexIntegrityError``, never other numbers; a posting outside the documents must be
refused.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
import tracemalloc

import numpy as np
import pytest

from conftest import REPO
from tealeaves.coherence import _kernels, core
from tealeaves.coherence._blocked import topic_block, topic_major_bytes
from tealeaves.coherence._kernels_topics import TOPIC_BLOCK, TOPIC_MAX_WORDS
from tealeaves.errors import IndexIntegrityError, ParameterError, SettingsError
from tealeaves.index import ReferenceIndex, index_from_token_lists

_VOCAB = [f"w{i}" for i in range(14)]


# -- independent recounts ------------------------------------------------------------------------------------
def _enumerated(docs, words, topics):
    """``(joint, sets)`` of ``topics`` (positions in ``words``, -1: none) by enumeration of the token lists
    ``docs``: ``joint[t, a, b]`` documents holding both words, ``sets[t, m]`` documents holding every word
    of ``m`` (``sets[t, 0]``: all documents)."""
    topics = np.asarray(topics, dtype=np.int64).reshape(len(topics), -1)
    t_, k = topics.shape
    held = [set(d) for d in docs]
    joint = np.zeros((t_, k, k), dtype=np.int64)
    sets = np.zeros((t_, 1 << k), dtype=np.int64)
    masks = np.arange(1 << k)
    for t, row in enumerate(topics):
        has = np.array([[row[i] >= 0 and words[row[i]] in s for i in range(k)] for s in held],
                       dtype=bool).reshape(len(docs), k)
        joint[t] = has.T.astype(np.int64) @ has.astype(np.int64)
        bits = (has * (1 << np.arange(k))).sum(axis=1)
        sets[t] = ((bits[:, None] & masks[None, :]) == masks[None, :]).sum(axis=0)
    return joint, sets


def _by_postings(index, word_ids, topics, subsets=False, memory=None):
    """``count_topic_documents``'s answer recounted from ``index``'s postings in Python (each word's set of
    documents; the postings' order and repeats do not matter).  Same signature, so that it can stand in
    for it."""
    ptr, post = index.arrays["word_ptr"], index.arrays["post_docs"]
    ids = [int(w) for w in np.asarray(word_ids).reshape(-1)]
    held = [set(post[ptr[w]:ptr[w + 1]].tolist()) for w in ids]
    loc = np.asarray(topics, dtype=np.int64).reshape(len(topics), -1)
    t_, k = loc.shape
    joint = np.zeros((t_, k, k), dtype=np.int64)
    sets = np.zeros((t_, 1 << k), dtype=np.int64)
    for t, row in enumerate(loc):
        docs_of = [held[i] if i >= 0 else set() for i in row]
        for a in range(k):
            for b in range(k):
                joint[t, a, b] = len(docs_of[a] & docs_of[b])
        for m in range(1, 1 << k):
            common = None
            for i in range(k):
                if m >> i & 1:
                    common = docs_of[i] if common is None else common & docs_of[i]
            sets[t, m] = len(common)
        sets[t, 0] = index.n_present
    return joint, (sets if subsets else None), int(index.n_present)


def _pair_table(index, ids):
    """Every pair's documents by the pair kernels (``count_documents``), as a ``V x V`` table (diagonal:
    each word's documents)."""
    n = len(ids)
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    counts = core.count_documents(index, ids, pairs)
    table = np.zeros((n, n), dtype=np.int64)
    for (a, b), c in zip(pairs, counts.joint):
        table[a, b] = table[b, a] = c
    table[np.arange(n), np.arange(n)] = counts.single
    return table


def _index(docs):
    ix = index_from_token_lists(docs)
    words = sorted(ix.vocabulary)
    return ix, words, [ix.word_id(w) for w in words]


def _random_docs(n, seed, vocab=_VOCAB, most=5):
    rng = np.random.default_rng(seed)
    return [[vocab[x] for x in rng.integers(0, len(vocab), size=rng.integers(0, most))] for _ in range(n)]


def _check(ix, docs, words, ids, topics, **kw):
    """Counts of ``topics`` equal to enumeration of the documents; returns them."""
    joint, sets, n_units = core.count_topic_documents(ix, ids, topics, subsets=True, **kw)
    expected_joint, expected_sets = _enumerated(docs, words, topics)
    assert n_units == len(docs) == ix.n_present
    assert joint.tolist() == expected_joint.tolist()
    assert sets.tolist() == expected_sets.tolist()
    return joint, sets


@pytest.fixture(scope="module")
def small():
    docs = _random_docs(200, 1) + [[], ["w0", "w0", "w1"]]
    return (docs, *_index(docs))


# -- topic shapes --------------------------------------------------------------------------------------------
def test_topic_major_topic_of_absent_words_counts_nothing(small):
    docs, ix, words, ids = small
    joint, sets = _check(ix, docs, words, ids, [[-1, -1, -1], [0, -1, 1]])
    assert not joint[0].any() and sets[0, 1:].tolist() == [0] * 7


def test_topic_major_topic_of_one_word(small):
    docs, ix, words, ids = small
    joint, sets = _check(ix, docs, words, ids, [[w] for w in range(len(ids))])
    assert joint[:, 0, 0].tolist() == [sum(words[w] in d for d in docs) for w in range(len(ids))]
    assert core.count_topic_documents(ix, ids, list(range(len(ids))))[0].tolist() == joint.tolist()  # 1-D


def test_topic_major_word_repeated_in_one_topic(small):
    docs, ix, words, ids = small
    joint, sets = _check(ix, docs, words, ids, [[0, 0, 1], [2, 2, 2], [3, -1, 3]])
    assert joint[0, 0, 1] == joint[0, 0, 0] and sets[1, 7] == sets[1, 1]


def test_topic_major_topic_of_twelve_words(small):
    docs, ix, words, ids = small
    rng = np.random.default_rng(2)
    topics = np.array([rng.choice(len(ids), size=TOPIC_MAX_WORDS, replace=False) for _ in range(3)]
                      + [[0, 1, 2, 3, -1, 5, 6, 7, 8, 9, 10, -1]])
    joint, _ = _check(ix, docs, words, ids, topics)
    table = _pair_table(ix, ids)
    for t, row in enumerate(topics[:3]):
        assert joint[t].tolist() == table[np.ix_(row, row)].tolist()


def test_topic_major_topic_of_thirteen_words_refused(small):
    _, ix, _, ids = small
    thirteen = [list(range(13))]
    with pytest.raises(SettingsError, match=r"at most 12 words per topic, got 13 \(count the pairs with "
                                            r"count_documents\)"):
        core.count_topic_documents(ix, ids, thirteen)
    with pytest.raises(SettingsError, match="k=13 is more than 12"):
        core.count_subsets(ix, ids, thirteen)
    assert core.topic_major_cheaper(ix, ids, thirteen) is False
    assert core.topic_major_cheaper(ix, ids, [list(range(12))]) is False  # 12 words, but a tiny job


@pytest.mark.parametrize("memory", [None, 8400, 1024])
def test_topic_major_word_sets_through_count_subsets(small, memory):
    """``count_subsets`` of documents (``window=None``) counts topic by topic: its sets as enumerated, under
    a budget of blocks of 64 documents too; below it, the topic-major minimum named."""
    docs, ix, words, ids = small
    topics = [list(range(10)), [9, 8, -1, 7, 0, 0, 1, 2, 3, 4]]
    if memory == 1024:
        with pytest.raises(ParameterError, match=r"that counting topics of 10 words topic by topic needs"):
            core.count_subsets(ix, ids, topics, memory=memory)
        return
    assert memory is None or topic_block(memory, 10, 1) == 64
    counts, n_units = core.count_subsets(ix, ids, topics, memory=memory)
    assert n_units == len(docs) and counts.tolist() == _enumerated(docs, words, topics)[1].tolist()


@pytest.mark.parametrize("call", ["count_topic_documents", "count_subsets", "topic_major_cheaper"])
def test_topic_major_no_topics(small, call):
    _, ix, _, ids = small
    topics = np.zeros((0, 3), dtype=np.int64)
    if call == "topic_major_cheaper":
        assert core.topic_major_cheaper(ix, ids, topics) is False
    elif call == "count_subsets":
        counts, n = core.count_subsets(ix, ids, topics)
        assert counts.shape == (0, 8) and n == ix.n_present
    else:
        joint, sets, n = core.count_topic_documents(ix, ids, topics, subsets=True)
        assert joint.shape == (0, 3, 3) and sets.shape == (0, 8) and n == ix.n_present


def test_topic_major_topic_of_no_positions(small):
    _, ix, _, ids = small
    try:
        joint, sets, n = core.count_topic_documents(ix, ids, [[]], subsets=True)
    except SettingsError:
        return  # refused by name is as good as counts
    assert joint.shape == (1, 0, 0) and sets.tolist() == [[ix.n_present]]


def test_topic_major_two_hundred_thousand_topics_of_two_words(small):
    """Memory of the order of the counts, and the counts those of the pair kernels."""
    _, ix, _, ids = small
    rng = np.random.default_rng(4)
    topics = rng.integers(-1, len(ids), size=(200_000, 2))
    core.count_topic_documents(ix, ids, topics[:2], method="sets")  # compiled before it is timed
    tracemalloc.start()
    start = time.perf_counter()
    try:
        joint, sets, _ = core.count_topic_documents(ix, ids, topics, method="sets")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - start < 20
    assert sets is None and peak < 5 * joint.nbytes + (1 << 20)
    table = np.zeros((len(ids) + 1, len(ids) + 1), dtype=np.int64)  # the last row and column: no word
    table[:-1, :-1] = _pair_table(ix, ids)
    a, b = topics[:, 0], topics[:, 1]
    assert np.array_equal(joint[:, 0, 1], table[a, b]) and np.array_equal(joint[:, 1, 0], table[a, b])
    assert np.array_equal(joint[:, 0, 0], table[a, a]) and np.array_equal(joint[:, 1, 1], table[b, b])


# -- topic arrays that are not positions ---------------------------------------------------------------------

@pytest.mark.parametrize("topics", [
    [[0, 99]], [[0, -2]], [[2**40, 0]],
    pytest.param([[0.7, 1.2]]),
    pytest.param([[True, False]]),
    pytest.param([[np.nan, 1]]),
    pytest.param([[np.inf, 1]]),
    pytest.param([["a", "b"]]),
    pytest.param([[0, 1], [2]]),
    pytest.param(np.array([[2**64 - 1, 0]], dtype=np.uint64)),
], ids=["past the words", "below -1", "2**40", "floats", "booleans", "NaN", "infinity", "strings", "ragged",
        "uint64 max"])
def test_topic_major_malformed_topic_positions_refused(small, topics):
    _, ix, _, ids = small
    with pytest.raises(SettingsError, match="topic"):
        core.count_topic_documents(ix, ids, topics)


@pytest.mark.parametrize("word_ids, bad", [([-1, 0, 1], -1), ([0, 1, 10**6], 10**6)])
def test_topic_major_word_ids_not_the_index_refused(small, word_ids, bad):
    _, ix, _, _ = small
    n = len(ix.arrays["word_ptr"]) - 1
    with pytest.raises(SettingsError, match=rf"word id {bad} is not a word of the reference 'reference' "
                                            rf"\(ids 0..{n - 1}\)"):
        core.count_topic_documents(ix, word_ids, [[0, 1, 2]])


def test_topic_major_float_word_ids_refused(small):
    _, ix, _, _ = small
    with pytest.raises(SettingsError):
        core.count_topic_documents(ix, [0.5, 1.0, 2.0], [[0, 1, 2]])


@pytest.mark.parametrize("word_ids, topics", [([0, 1, 2], [[5, 0]]), ([0, 1, 10**6], [[2, 0]]),
                                              ([-1, 0], [[0, 1]])],
                         ids=["position past the words", "word id past the index", "negative word id"])
def test_topic_major_cheaper_bad_positions_refused(small, word_ids, topics):
    _, ix, _, _ = small
    with pytest.raises(SettingsError):
        core.topic_major_cheaper(ix, word_ids, topics)


# -- references ----------------------------------------------------------------------------------------------
def test_topic_major_reference_with_all_documents_empty_but_one():
    docs = [[]] * 40 + [["w1", "w2", "w1"]] + [[]] * 40
    ix, words, ids = _index(docs)
    joint, sets = _check(ix, docs, words, ids, [[0, 1], [1, 0], [0, -1]])
    assert sets[0, 0] == 81 and joint[0].tolist() == _pair_table(ix, ids).tolist()


def test_topic_major_reference_of_one_document():
    docs = [["w3", "w4", "w5"]]
    ix, words, ids = _index(docs)
    _check(ix, docs, words, ids, [[0, 1, 2], [2, -1, 0]])


@pytest.mark.parametrize("n_docs", [TOPIC_BLOCK - 1, TOPIC_BLOCK, TOPIC_BLOCK + 1, 2 * TOPIC_BLOCK - 1,
                                    2 * TOPIC_BLOCK + 1])
def test_topic_major_documents_on_a_block_edge(n_docs):
    """Words in the documents next to each block's edge and in the last; the counts as enumerated and as
    the pair kernels count them."""
    docs = [[] for _ in range(n_docs)]
    rng = np.random.default_rng(n_docs)
    for d in rng.choice(n_docs, size=300, replace=False):
        docs[d] = [_VOCAB[x] for x in rng.integers(0, 6, size=3)]
    edges = [0, n_docs - 1] + [e + s for e in range(TOPIC_BLOCK, n_docs, TOPIC_BLOCK) for s in (-1, 0, 1)]
    for d in edges:
        if d < n_docs:
            docs[d] = _VOCAB[:6] if d % 2 else _VOCAB[:3]
    ix, words, ids = _index(docs)
    topics = [[0, 1, 2, 3, 4, 5], [5, 4, 3, -1, 1, 0]]
    joint, _ = _check(ix, docs, words, ids, topics)
    table = _pair_table(ix, ids)
    assert joint[0].tolist() == table[:6, :6].tolist()


@pytest.fixture(scope="module")
def edged():
    docs = _random_docs(64 * 9 + 1, 6, most=4)
    for d in (63, 64, 127, 128, 64 * 9):
        docs[d] = _VOCAB[:10]
    return (docs, *_index(docs))


@pytest.mark.parametrize("blocks, extra, expected", [(64, 0, 64), (128, -1, 64), (128, 0, 128),
                                                     (512, 100, 512), (TOPIC_BLOCK, 0, TOPIC_BLOCK)])
def test_topic_major_budget_sets_the_block(edged, blocks, extra, expected):
    """A budget of exactly what blocks of ``blocks`` documents need (plus ``extra`` bytes) counts in blocks
    of ``expected`` documents (the largest that fit), with the same counts, on 577 documents (topics of 10
    words: those of 5 need less than the smallest budget, 1 KiB, for blocks of 256)."""
    docs, ix, words, ids = edged
    k = 10
    memory = topic_major_bytes(k, blocks, 1) + extra
    assert _kernels.parts_for(sum(len(d) for d in docs)) == 1
    assert topic_block(memory, k, 1) == expected
    _check(ix, docs, words, ids, [list(range(10)), [9, -1, 2, 1, 0, 5, 13, 12, -1, 4]], memory=memory)


@pytest.mark.parametrize("k", [1, 5, 10, 12])
def test_topic_major_budget_below_blocks_of_64_refused(edged, k):
    _, ix, _, ids = edged
    need = topic_major_bytes(k, 64, 1)
    memory = max(need - 1, 1024)
    topics = [list(range(min(k, len(ids)))) + [-1] * (k - min(k, len(ids)))]
    if need - 1 < 1024:  # one word: blocks of 64 take less than the smallest budget
        assert core.count_topic_documents(ix, ids, topics, memory=memory)[0].shape == (1, k, k)
        return
    with pytest.raises(ParameterError, match=rf"memory .* is below the .* \({need:,} bytes\) that counting "
                                             rf"topics of {k} words topic by topic needs "
                                             rf"\(give at least {-(-need // 1024)}K\)"):
        core.count_topic_documents(ix, ids, topics, memory=memory, method="sets")
    # by default the pairs are counted from bitmaps where they fit the budget (here they do)
    expected = core.count_topic_documents(ix, ids, topics)[0]
    assert np.array_equal(core.count_topic_documents(ix, ids, topics, memory=memory)[0], expected)
    assert core.count_topic_documents(ix, ids, topics, memory=need)[0].shape == (1, k, k)


@pytest.mark.parametrize("memory, message", [
    (1023, "memory must be a whole number >= 1024, got 1023"),
    (-1, "memory must be a whole number >= 1024, got -1"),
    (True, "memory must be a whole number >= 1024, got True"),
    (1.5, "memory must be a whole number >= 1024, got 1.5"),
    ("abc", "memory 'abc' is not a size"),
    ("", "memory '' is not a size"),
    ("nan", "memory 'nan' is not a size"),
    ("-5", "memory '-5' is below the smallest budget"),
])
def test_topic_major_memory_spellings_refused(small, memory, message):
    _, ix, _, ids = small
    for call in (lambda: core.count_topic_documents(ix, ids, [[0, 1]], memory=memory),
                 lambda: core.topic_major_cheaper(ix, ids, [[0, 1]], memory=memory)):
        with pytest.raises(ParameterError, match=message.replace("(", r"\(").replace(".", r"\.")):
            call()


@pytest.mark.parametrize("memory", [None, "1G", "1.5K", 1024, 10**12])
def test_topic_major_memory_accepted(small, memory):
    docs, ix, words, ids = small
    _check(ix, docs, words, ids, [[0, 1, 2], [3, -1, 4]], memory=memory)


def test_topic_major_cheaper_on_its_bounds(small, monkeypatch):
    """The choice at exactly the postings' floor, the 6x repeat and the budget of full blocks, and one
    step past each."""
    _, ix, _, ids = small
    ptr = ix.arrays["word_ptr"]
    sizes = np.diff(ptr)[ids]
    topics = np.array([[0, 1, 2]] * core.TOPIC_MAJOR_MAX_REPEAT)
    work = int(sizes[topics].sum())
    monkeypatch.setattr(core, "_ESTIMATE_MIN_WORK", work)
    assert core.topic_major_cheaper(ix, ids, topics)
    monkeypatch.setattr(core, "_ESTIMATE_MIN_WORK", work + 1)
    assert not core.topic_major_cheaper(ix, ids, topics)
    monkeypatch.setattr(core, "_ESTIMATE_MIN_WORK", 0)
    seven = np.vstack([topics, [[0, 1, 2]]])  # 7x the distinct words: topic-major only from bitmaps that
    bound = core._COST_TOPIC_SETS * core.TOPIC_MAJOR_MAX_REPEAT * int(sizes[:3].sum())  # beat the pairs
    monkeypatch.setattr(core, "_bitmap_ns", lambda *args: bound)
    assert not core.topic_major_cheaper(ix, ids, seven)
    monkeypatch.setattr(core, "_bitmap_ns", lambda *args: bound - 1)
    assert core.topic_major_cheaper(ix, ids, seven)
    monkeypatch.setattr(core, "topic_bitmap_block", lambda *args: None)  # but do not fit the budget
    assert not core.topic_major_cheaper(ix, ids, seven)
    full = topic_major_bytes(3)
    assert core.topic_major_cheaper(ix, ids, topics, memory=full)
    assert not core.topic_major_cheaper(ix, ids, topics, memory=full - 1)
    assert not core.topic_major_cheaper(ix, ids, [[-1, -1, -1]])


# -- damaged postings ----------------------------------------------------------------------------------------
def _damaged(ix, word_id, change):
    """``ix`` with the postings of ``word_id`` changed by ``change``, marked as checked (arrays that
    skipped the index checks, to reach the kernel's own checks; by hand they would be checked first)."""
    arrays = dict(ix.arrays)
    post = arrays["post_docs"].copy()
    ptr = arrays["word_ptr"]
    post[ptr[word_id]:ptr[word_id + 1]] = change(post[ptr[word_id]:ptr[word_id + 1]].copy())
    arrays["post_docs"] = post
    return ReferenceIndex(arrays, ix.header, checked=True)


def _put(at, value):
    def change(p):
        p[at] = value(p) if callable(value) else value
        return p
    return change


@pytest.fixture(scope="module")
def two_blocks():
    """``TOPIC_BLOCK + 100`` documents, word w0 on both sides of the block's edge, w1 and w2 around."""
    n = TOPIC_BLOCK + 100
    docs = [[] for _ in range(n)]
    for d in (0, 5, TOPIC_BLOCK - 1, TOPIC_BLOCK, TOPIC_BLOCK + 7, n - 1):
        docs[d] = ["w0", "w1"] if d % 2 else ["w0", "w2"]
    for d in (1, 6, TOPIC_BLOCK - 2, TOPIC_BLOCK + 1):
        docs[d] = ["w1", "w2"]
    return _index(docs)


_SMALL_CASES = [
    pytest.param(lambda p: p[::-1], id="reversed in a block"),
    pytest.param(_put(1, lambda p: p[0]), id="duplicate"),
    pytest.param(_put(-1, lambda p: p[-2]), id="duplicate last"),
    pytest.param(_put(0, -1), id="negative"),
    pytest.param(_put(0, -2**31), id="int32 min"),
    pytest.param(_put(-1, 2**31 - 1), id="int32 max"),
    pytest.param(_put(-1, TOPIC_BLOCK), id="first slot of the next block"),
    pytest.param(_put(-1, 10**6), id="far past"),
    pytest.param(_put(-1, "n"), id="n_documents"),
    pytest.param(_put(-1, "n+5"), id="n_documents + 5"),
    pytest.param(_put(-1, TOPIC_BLOCK - 1), id="last slot of the block"),
]
_TWO_BLOCK_CASES = [
    pytest.param(lambda p: p[::-1], id="reversed across blocks"),
    pytest.param(lambda p: np.concatenate([p[:-2], p[-2:][::-1]]), id="swapped in the second block"),
    pytest.param(lambda p: np.roll(p, -1), id="first moved last"),
    pytest.param(lambda p: np.roll(p, 1), id="last moved first"),
    pytest.param(_put(2, lambda p: p[1]), id="duplicate in the first block"),
    pytest.param(_put(-1, "n-1"), id="last document"),
    pytest.param(_put(-1, "n"), id="n_documents"),
]


def _damage_checked(ix, words, ids, change, memory=None, width=3):
    """Counts of the index with ``change`` applied to w0's postings: the recount of its postings when they
    all name documents (or IndexIntegrityError), IndexIntegrityError when one does not (topics of three
    words, padded with -1 to ``width``)."""
    n = ix.n_documents
    named = {"n": n, "n+5": n + 5, "n-1": n - 1}
    ptr = ix.arrays["word_ptr"]
    w0 = ids[words.index("w0")]

    def changed(p):  # on an object copy, so that "n" and friends can stand for the documents' count
        q = np.asarray(change(p.astype(object)), dtype=object)
        return np.array([named[x] if isinstance(x, str) else x for x in q.tolist()], dtype=np.int64)

    post = ix.arrays["post_docs"][ptr[w0]:ptr[w0 + 1]]
    new = changed(post)
    damaged = _damaged(ix, w0, lambda p: new.astype(p.dtype))
    assert (damaged.arrays["post_docs"][ptr[w0]:ptr[w0 + 1]] == new).all()  # the damage was not clipped
    topics = np.array([[words.index(w) for w in ("w0", "w1", "w2")] + [-1] * (width - 3),
                       [words.index("w1"), words.index("w0")] + [-1] * (width - 2)])
    outside = (new < 0).any() or (new >= n).any()
    try:
        joint, sets, _ = core.count_topic_documents(damaged, ids, topics, subsets=True, memory=memory)
    except IndexIntegrityError as exc:
        assert "are out of order or past its documents (rebuild the index" in str(exc)
        return
    assert not outside, f"postings {new.tolist()} name a slot outside the {n} documents, yet were counted"
    expected_joint, expected_sets, _ = _by_postings(damaged, ids, topics, subsets=True)
    assert joint.tolist() == expected_joint.tolist() and sets.tolist() == expected_sets.tolist()


@pytest.mark.parametrize("change", _SMALL_CASES)
def test_topic_major_damaged_postings_of_one_block(change):
    docs = [["w0", "w1"], ["w1", "w2"], ["w0", "w2"], ["w0", "w1", "w2"]] * 3
    ix, words, ids = _index(docs)
    _damage_checked(ix, words, ids, change)


@pytest.mark.parametrize("change", _TWO_BLOCK_CASES)
def test_topic_major_damaged_postings_across_blocks(two_blocks, change):
    _damage_checked(*two_blocks, change)


@pytest.mark.parametrize("change", [
    pytest.param(lambda p: p[::-1], id="reversed across blocks"),
    pytest.param(_put(-1, "n"), id="n_documents"),
])
def test_topic_major_damaged_postings_in_blocks_of_64(edged, change):
    docs, ix, words, ids = edged
    memory = topic_major_bytes(10, 64, 1)
    assert topic_block(memory, 10, 1) == 64
    _damage_checked(ix, words, ids, change, memory=memory, width=10)


def test_pair_counts_of_a_posting_past_the_documents_do_not_crash(tmp_path):
    """A hand-built index whose postings point past its documents: the pair kernels once read out of bounds
    (SIGSEGV; with NUMBA_BOUNDSCHECK=1, IndexError in _dense_doc_kernel); the index's checks now run on
    the first count of an index made from arrays (ReferenceIndex.check_readable) and refuse it."""
    script = textwrap.dedent("""
        from tealeaves.coherence import core
        from tealeaves.errors import IndexIntegrityError
        from tealeaves.index import ReferenceIndex, index_from_token_lists
        ix = index_from_token_lists([["a", "b"], ["b", "c"], ["a", "c"], ["a", "b", "c"]] * 3)
        ids = [ix.word_id(x) for x in "abc"]
        for past in (ix.n_documents, 10**6, 2**31 - 1):
            arrays = dict(ix.arrays)
            post = arrays["post_docs"].copy()
            post[int(ix.arrays["word_ptr"][ids[0] + 1]) - 1] = past  # word a's last posting
            arrays["post_docs"] = post
            try:
                core.count_documents(ReferenceIndex(arrays, ix.header), ids, [(0, 1), (0, 2), (1, 2)])
            except IndexIntegrityError:
                print("refused")
    """)
    run = _python(script, tmp_path)
    assert run.returncode == 0, (run.returncode, run.stderr[-500:])
    assert run.stdout.split() == ["refused"] * 3


# -- the command ---------------------------------------------------------------------------------------------
_DOCS = ["a b c", "b c", "", "a c d", "d e", "a b c d e f g h i j k l", "c"]


@pytest.fixture(scope="module")
def tiny_references(tmp_path_factory):
    from tealeaves.cli import main

    root = tmp_path_factory.mktemp("refs")
    out = {}
    references = {"tiny": _DOCS, "one": ["a b c d"], "empty_but_one": ["", "", "a b c", "", ""]}
    for name, lines in references.items():
        (root / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        assert main(["index", "build", str(root / f"{name}.txt"), "-o", str(root / f"{name}.tlx")]) == 0
        out[name] = root / f"{name}.tlx"
    topics = root / "topics.txt"
    topics.write_text("a b c\nc d zzz\nzzz yyy\na zzz\nl k c b\n", encoding="utf-8")
    twelve = root / "twelve.txt"
    twelve.write_text("a b c d e f g h i j k l\nl k j i h g f e d c b a\n", encoding="utf-8")
    return out, topics, twelve


_MEASURES = [["--measure", "umass", "--segmentation", "one-set"],
             ["--measure", "umass", "--segmentation", "one-any"],
             ["--measure", "npmi", "--segmentation", "one-set", "--confirmation", "npmi"],
             ["--measure", "npmi"], ["--measure", "umass"]]


@pytest.mark.cli_in_process
@pytest.mark.parametrize("ref", ["tiny", "one", "empty_but_one"])
@pytest.mark.parametrize("measure", _MEASURES, ids=["umass one-set", "umass one-any", "npmi one-set", "npmi",
                                                    "umass"])
def test_topic_major_cli_scores_equal_a_recount(tiny_references, run_cli, monkeypatch, ref, measure):
    """Scores counted topic by topic (pairwise measures: forced, below the floor of postings) equal those
    of counts recounted from the postings in Python, and, for pairs, those of the pair kernels."""
    refs, topics, twelve = tiny_references
    monkeypatch.setattr(core, "_ESTIMATE_MIN_WORK", 0)
    used = []
    real = core.count_topic_documents
    monkeypatch.setattr(core, "count_topic_documents", lambda *a, **k: used.append(1) or real(*a, **k))
    outputs = []
    for file, n_top in ((topics, "10"), (twelve, "12")):
        argv = ["coherence", "--reference", refs[ref], "--topics", file, "--window", "doc", "--n-top", n_top,
                "--format", "json", *measure]
        result = run_cli(argv)
        assert result.code == 0, result.err
        assert all(line.startswith("tealeaves: warning: ") for line in result.err.splitlines())
        outputs.append((argv, json.loads(result.out)))
    assert used, "counted topic by topic"
    with monkeypatch.context() as patch:
        patch.setattr(core, "count_topic_documents", _by_postings)
        for argv, scored in outputs:
            assert json.loads(run_cli(argv).out) == scored
        if "--segmentation" not in measure:
            patch.setattr(core, "topic_major_cheaper", lambda *args: False)
            for argv, scored in outputs:
                assert json.loads(run_cli(argv).out) == scored


@pytest.mark.parametrize("extra, fragment", [
    (["--n-top", "13", "--segmentation", "one-set"],
     "counted for at most 12 words per topic; got 13 (use n_top <= 12, a pairwise segmentation"),
    (["--n-top", "13", "--segmentation", "one-any"], "counted for at most 12 words per topic; got 13"),
    (["--n-top", "12", "--segmentation", "one-set", "--memory", "9K"],
     f"--memory 9 KiB is below the 32.2 KiB ({topic_major_bytes(12, 64, 1):,} bytes) that counting topics "
     "of 12 words topic by topic needs (give at least 33K)"),
    (["--n-top", "12", "--segmentation", "one-set", "--memory", "100"],
     "--memory '100' is below the smallest"),
    (["--segmentation", "one-set", "--memory", "abc"], "--memory 'abc' is not a size"),
    (["--segmentation", "one-set", "--memory", "-5"], "--memory '-5' is below the smallest budget"),
], ids=["13 words one-set", "13 words one-any", "memory below blocks of 64", "memory 100", "memory abc",
        "memory -5"])
def test_topic_major_cli_bad_input_is_one_error_line(tiny_references, cli_error, tmp_path, extra, fragment):
    refs, _, _ = tiny_references
    topics = tmp_path / "thirteen.txt"
    topics.write_text("a b c d e f g h i j k l m\n", encoding="utf-8")
    out = tmp_path / "scores.json"
    result = cli_error(["coherence", "--reference", refs["tiny"], "--topics", topics, "--window", "doc",
                        "--measure", "umass", *extra, "-o", out], fragment)
    errors = [line for line in result.err.splitlines() if not line.startswith("tealeaves: warning: ")]
    assert len(errors) == 1 and errors[0].startswith("tealeaves: error: ") and errors[0].endswith(")")
    assert "Traceback" not in result.err and not out.exists()


# -- two processes at once -----------------------------------------------------------------------------------
def _python(script, tmp_path, env=None, popen=False):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in [str(REPO / "src"),
                                                                    os.environ.get("PYTHONPATH", "")] if p),
           "NUMBA_NUM_THREADS": "1", **(env or {})}
    path = tmp_path / f"script_{len(list(tmp_path.glob('script_*.py')))}.py"
    path.write_text(script, encoding="utf-8")
    cpu = min(os.sched_getaffinity(0))  # both on one core: concurrent, not parallel

    def pin():
        os.sched_setaffinity(0, {cpu})

    if popen:
        return subprocess.Popen([sys.executable, str(path)], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, preexec_fn=pin)
    return subprocess.run([sys.executable, str(path)], env=env, capture_output=True, text=True, timeout=120,
                          preexec_fn=pin)


def _at_once(script: str, tmp_path) -> str:
    """Run ``script`` in two processes on one core that start counting together (each writes the file
    named by ``READY`` once it is ready, then waits for ``tmp_path / "go"``); both must succeed and print
    the same: returns that output."""
    runs = [_python(script, tmp_path, env={"READY": str(tmp_path / f"ready{i}")}, popen=True)
            for i in range(2)]
    try:
        deadline = time.monotonic() + 120
        while not all((tmp_path / f"ready{i}").exists() for i in range(2)):
            assert time.monotonic() < deadline and all(r.poll() is None for r in runs), "a process stopped"
            time.sleep(0.01)
        (tmp_path / "go").touch()
        outs = [r.communicate(timeout=120) for r in runs]
    finally:
        for r in runs:
            if r.poll() is None:
                r.kill()
    assert [r.returncode for r in runs] == [0, 0], [o[1][-500:] for o in outs]
    assert outs[0][0] == outs[1][0]
    return outs[0][0]


def test_topic_major_two_processes_counting_the_same_index(tmp_path):
    """Two processes count the same index file topic by topic at the same moment (each waits for the other
    to be ready): identical counts, equal to a recount of the postings in this process."""
    from tealeaves.index import build_index

    docs = _random_docs(3000, 11, vocab=[f"w{i}" for i in range(40)], most=12)
    from tealeaves.corpus.corpus import Corpus

    path = tmp_path / "ref.tlx"
    build_index(Corpus.from_token_lists(docs)).save(path)
    rng = np.random.default_rng(12)
    topics = np.array([rng.choice(40, size=8, replace=False) for _ in range(3000)])
    np.save(tmp_path / "topics.npy", topics)
    script = textwrap.dedent(f"""
        import hashlib, os, time
        import numpy as np
        from tealeaves.coherence import core
        from tealeaves.index import ReferenceIndex
        ix = ReferenceIndex.load({str(path)!r})
        words = sorted(ix.vocabulary)
        ids = [ix.word_id(w) for w in words]
        topics = np.load({str(tmp_path / "topics.npy")!r})
        core.count_topic_documents(ix, ids, topics[:1], subsets=True)
        open(os.environ["READY"], "w").close()
        while not os.path.exists({str(tmp_path / "go")!r}):
            time.sleep(0.005)
        joint, sets, n = core.count_topic_documents(ix, ids, topics, subsets=True)
        print(n, hashlib.sha256(joint.tobytes() + sets.tobytes()).hexdigest(), flush=True)
    """)
    out = _at_once(script, tmp_path)
    import hashlib

    ix = ReferenceIndex.load(path)
    ids = [ix.word_id(w) for w in sorted(ix.vocabulary)]
    joint, sets, n = _by_postings(ix, ids, topics, subsets=True)
    assert out.split() == [str(n), hashlib.sha256(joint.tobytes() + sets.tobytes()).hexdigest()]
