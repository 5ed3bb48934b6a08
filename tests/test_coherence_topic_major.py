"""Counts topic by topic: documents (``core.count_topic_documents``) and windows
(``core.count_topic_windows``), equal to enumeration of the documents or windows, to the pair kernels'
counts and on any number of threads; a damaged index refused."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tealeaves.coherence import _kernels, core
from tealeaves.coherence._kernels_topics import TOPIC_BLOCK, TOPIC_MAX_WORDS
from tealeaves.coherence.errors import SettingsError
from tealeaves.errors import IndexIntegrityError
from tealeaves.index import ReferenceIndex, index_from_token_lists
from test_coherence_core import _exact_windows, _indexed, _jhlau_windows

_WORDS = list("abcdefghij")


def _enumerated(docs, words, row):
    """Pair counts (``k x k``, diagonal: each word) and superset counts of one topic, by enumeration."""
    k = len(row)
    sets = [set(d) for d in docs]
    named = [words[i] if i >= 0 else None for i in row]
    joint = np.array([[sum(named[a] is not None and named[b] is not None and named[a] in s and named[b] in s
                           for s in sets) for b in range(k)] for a in range(k)])
    subsets = [len(sets)] + [sum(all(named[i] is not None and named[i] in s for i in range(k) if m >> i & 1)
                                 for s in sets) for m in range(1, 1 << k)]
    return joint, np.array(subsets)


def _topics(draw_rows, n_words):
    return np.array([[w if w < n_words else -1 for w in row] for row in draw_rows], dtype=np.int64)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=st.lists(st.lists(st.sampled_from(_WORDS), max_size=25), min_size=1, max_size=15),
       rows=st.lists(st.lists(st.integers(0, 11), min_size=1, max_size=6), min_size=1, max_size=4),
       width=st.integers(1, 6))
def test_topic_document_counts_equal_enumeration_on_random_corpora(docs, rows, width):
    """Absent words (-1), words repeated in a topic and empty documents included; the pairs also from
    bitmaps."""
    docs, ix, words, ids, _ = _indexed(docs)
    topics = _topics([(row * width)[:width] for row in rows], len(words))
    joint, sets, n_units = core.count_topic_documents(ix, ids, topics, subsets=True)
    assert n_units == len(docs)
    for t, row in enumerate(topics):
        expected_joint, expected_sets = _enumerated(docs, words, row)
        assert joint[t].tolist() == expected_joint.tolist()
        assert sets[t].tolist() == expected_sets.tolist()
    bits, no_sets, _ = core.count_topic_documents(ix, ids, topics, method="bitmaps")  # pairs from bitmaps
    assert no_sets is None and np.array_equal(bits, joint)


def test_topic_document_counts_equal_the_pair_kernels_across_many_blocks():
    """More documents than one block of the kernel (so each word's cursor crosses blocks), and the
    pairs also counted by ``count_documents`` (probes and the unit-major kernel)."""
    rng = np.random.default_rng(3)
    n_docs = 2 * TOPIC_BLOCK + 1234
    vocab = [f"w{i}" for i in range(30)]
    weights = 1 / np.arange(1, 31)
    p = weights / weights.sum()
    docs = [list(rng.choice(vocab, size=rng.integers(0, 8), p=p)) for _ in range(n_docs)]
    ix = index_from_token_lists(docs)
    words = sorted(ix.vocabulary)
    ids = [ix.word_id(x) for x in words]
    topics = np.array([rng.choice(len(words), size=10, replace=False) for _ in range(12)])
    joint, _, n_units = core.count_topic_documents(ix, ids, topics, method="sets")
    pairs = [(a, b) for a, b in itertools.combinations(range(len(words)), 2)]
    for frequent in (0, 30):
        counts = core.count_documents(ix, ids, pairs, frequent=frequent)
        table = np.zeros((len(words), len(words)), dtype=np.int64)
        for (a, b), c in zip(pairs, counts.joint):
            table[a, b] = table[b, a] = c
        table[np.arange(len(words)), np.arange(len(words))] = counts.single
        for t, row in enumerate(topics):
            assert joint[t].tolist() == table[np.ix_(row, row)].tolist()
    assert n_units == n_docs
    sets = [set(d) for d in docs[TOPIC_BLOCK - 3:TOPIC_BLOCK + 3]]  # documents on a block's edge
    a, b = topics[0][:2]
    assert sum(words[a] in s and words[b] in s for s in sets) <= joint[0, 0, 1]


@pytest.mark.parametrize("subsets", [False, True])
def test_topic_document_counts_do_not_depend_on_the_number_of_threads(subsets, monkeypatch):
    import numba

    monkeypatch.setattr(_kernels, "PARALLEL_MIN_WORK", 0)  # the parallel kernel even on this small corpus
    rng = np.random.default_rng(5)
    docs = [[f"w{x}" for x in rng.integers(0, 25, size=rng.integers(0, 20))] for _ in range(3000)]
    ix = index_from_token_lists(docs)
    ids = [ix.word_id(x) for x in sorted(ix.vocabulary)]
    topics = np.array([rng.choice(len(ids), size=8, replace=False) for _ in range(9)])
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = core.count_topic_documents(ix, ids, topics, subsets=subsets, method="sets")
    finally:
        numba.set_num_threads(before)
    many = core.count_topic_documents(ix, ids, topics, subsets=subsets, method="sets")
    assert np.array_equal(one[0], many[0])
    assert (one[1] is None) == (not subsets) and (not subsets or np.array_equal(one[1], many[1]))


def _damaged(ix, word, change):
    """``ix`` with ``word``'s postings changed by ``change``, marked as checked (to reach the kernel's own
    checks: arrays given by hand are checked before any count, test_index_load)."""
    arrays = dict(ix.arrays)
    post = arrays["post_docs"].copy()
    ptr = arrays["word_ptr"]
    w = ix.word_id(word)
    post[ptr[w]:ptr[w + 1]] = change(post[ptr[w]:ptr[w + 1]].copy())
    arrays["post_docs"] = post
    return ReferenceIndex(arrays, ix.header, checked=True)


def _small_index():
    docs = [["a", "b"], ["b", "c"], ["a", "c"], ["a", "b", "c"]] * 3
    return index_from_token_lists(docs)


def _set(values, at, value):
    values[at] = value
    return values


@pytest.mark.parametrize("method", ["sets", "bitmaps"])
@pytest.mark.parametrize("change", [lambda p: _set(p, 0, -1), lambda p: _set(p, -1, 10**6)],
                         ids=["negative document", "document past the last"])
def test_topic_document_counts_of_a_damaged_index_refused(change, method):
    """A posting outside the documents gives an error, not counts, either way."""
    ix = _small_index()
    ids = [ix.word_id(x) for x in "abc"]
    with pytest.raises(IndexIntegrityError, match="out of order"):
        core.count_topic_documents(_damaged(ix, "a", change), ids, [[0, 1, 2]], method=method)


def test_topic_document_counts_take_postings_in_any_order_within_a_block():
    """The kernel marks each document's words before counting it, so the order of one block's
    postings does not change the counts (only an order across blocks is refused)."""
    ix = _small_index()
    ids = [ix.word_id(x) for x in "abc"]
    shuffled = _damaged(ix, "a", lambda p: p[::-1])
    assert np.array_equal(core.count_topic_documents(shuffled, ids, [[0, 1, 2]], subsets=True)[1],
                          core.count_topic_documents(ix, ids, [[0, 1, 2]], subsets=True)[1])


@pytest.mark.parametrize("topics, message", [
    (np.zeros((1, TOPIC_MAX_WORDS + 1), dtype=int), "at most 12 words per topic"),
    ([[0, 3]], "topic positions must be -1 or positions in word_ids"),
    ([[0, -2]], "topic positions must be -1 or positions in word_ids"),
])
def test_topic_document_counts_bad_topics_refused(topics, message):
    ix = index_from_token_lists([["a", "b"], ["b", "c"]])
    with pytest.raises(SettingsError, match=message):
        core.count_topic_documents(ix, [ix.word_id("a"), ix.word_id("b")], topics)


def test_topic_document_counts_in_small_blocks_under_a_small_budget(monkeypatch):
    """A budget below the full block's tables gives smaller blocks of documents, the same counts (and
    the measure counts pair by pair instead)."""
    from tealeaves.coherence._blocked import topic_major_bytes

    monkeypatch.setattr(core, "_ESTIMATE_MIN_WORK", 0)  # topic-major even for this small reference
    rng = np.random.default_rng(8)
    docs = [[f"w{x}" for x in rng.integers(0, 20, size=rng.integers(0, 12))] for _ in range(5000)]
    ix = index_from_token_lists(docs)
    ids = [ix.word_id(x) for x in sorted(ix.vocabulary)]
    topics = np.array([rng.choice(len(ids), size=6, replace=False) for _ in range(5)])
    small = topic_major_bytes(6, 256, 1)
    assert small < topic_major_bytes(6)
    assert core.topic_major_cheaper(ix, ids, topics)
    assert not core.topic_major_cheaper(ix, ids, topics, memory=small)
    full = core.count_topic_documents(ix, ids, topics, subsets=True)
    blocked = core.count_topic_documents(ix, ids, topics, subsets=True, memory=small)
    assert np.array_equal(full[0], blocked[0]) and np.array_equal(full[1], blocked[1])


def test_topic_document_counts_budget_below_the_minimum_named():
    from tealeaves.errors import ParameterError

    ix = _small_index()
    with pytest.raises(ParameterError, match=r"memory 1 KiB is below the .* that counting topics of 10 words "
                                             r"topic by topic needs \(give at least \d+K\)"):
        core.count_topic_documents(ix, [ix.word_id(x) for x in "abc"], [[0, 1, 2] + [-1] * 7], memory=1024,
                                   method="sets")


@pytest.mark.parametrize("bitmaps", [True, False])
def test_coherence_scores_equal_topic_major_or_pair_by_pair(bitmaps, monkeypatch):
    """The measure's choice of counting (core.topic_major_cheaper; topic by topic, the word sets or the
    bitmaps, core._bitmaps_cheaper) does not change a score."""
    from tealeaves.coherence import coherence

    rng = np.random.default_rng(9)
    docs = [[f"w{x}" for x in rng.integers(0, 40, size=rng.integers(0, 15))] for _ in range(800)]
    topics = [[f"w{x}" for x in rng.choice(40, size=8, replace=False)] for _ in range(6)]
    monkeypatch.setattr(core, "_ESTIMATE_MIN_WORK", 0)  # topic-major even for this small reference
    monkeypatch.setattr(core, "_bitmaps_cheaper", lambda *args: bitmaps)
    used = []
    for name in ("_topic_bitmap_kernel", "_topic_document_kernel"):
        real = getattr(core, name)
        monkeypatch.setattr(core, name, lambda *a, _real=real, _name=name: used.append(_name) or _real(*a))
    for measure in ("npmi", "umass", "uci"):
        used.clear()
        chosen = coherence(topics, docs, measure=measure, window="doc").scores
        assert used == ["_topic_bitmap_kernel" if bitmaps else "_topic_document_kernel"], used
        with monkeypatch.context() as patch:
            patch.setattr(core, "topic_major_cheaper", lambda *args: False)
            pairwise = coherence(topics, docs, measure=measure, window="doc").scores
        assert chosen == pairwise


def test_small_jobs_count_pair_by_pair():
    """Below core._ESTIMATE_MIN_WORK postings the pair kernels count (a first call need not compile the
    topic-major kernel as well); topics sharing their words (postings read many times over) too."""
    rng = np.random.default_rng(10)
    docs = [[f"w{x}" for x in rng.integers(0, 30, size=rng.integers(0, 12))] for _ in range(400)]
    ix = index_from_token_lists(docs)
    ids = [ix.word_id(x) for x in sorted(ix.vocabulary)]
    few = np.array([rng.choice(len(ids), size=8, replace=False) for _ in range(3)])
    assert not core.topic_major_cheaper(ix, ids, few)
    core_min = core._ESTIMATE_MIN_WORK
    try:
        core._ESTIMATE_MIN_WORK = 0
        assert core.topic_major_cheaper(ix, ids, few)
        shared = np.array([rng.choice(8, size=8, replace=False) for _ in range(200)])  # 8 words, 200 times
        assert not core.topic_major_cheaper(ix, ids, shared)
    finally:
        core._ESTIMATE_MIN_WORK = core_min


_ENUMERATED_WINDOWS = {"exact": _exact_windows, "jhlau": _jhlau_windows}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=st.lists(st.lists(st.sampled_from(_WORDS), max_size=160), min_size=1, max_size=8),
       rows=st.lists(st.lists(st.integers(0, 11), min_size=1, max_size=6), min_size=1, max_size=3),
       width=st.integers(1, 6), w=st.sampled_from([1, 2, 5, 10, 70, 110]),
       compat=st.sampled_from(["exact", "jhlau"]))
def test_topic_window_counts_equal_enumeration_on_random_corpora(docs, rows, width, w, compat):
    """Absent words (-1), words repeated in a topic, empty documents and documents of several blocks of
    64 window starts included; both ways of placing windows."""
    docs, ix, words, ids, _ = _indexed(docs)
    topics = _topics([(row * width)[:width] for row in rows], len(words))
    joint, sets, n_units = core.count_topic_windows(ix, ids, topics, w, compat)
    windows = _ENUMERATED_WINDOWS[compat](docs, w)
    assert n_units == len(windows)
    for t, row in enumerate(topics):
        expected_joint, expected_sets = _enumerated(windows, words, row)
        assert joint[t].tolist() == expected_joint.tolist()
        assert sets[t].tolist() == expected_sets.tolist()


@pytest.mark.parametrize("compat", ["exact", "gensim", "jhlau"])
def test_topic_window_counts_equal_the_pair_kernels_across_many_blocks(compat, monkeypatch):
    """Blocks of 64 documents (so each word's cursor crosses many), and the pairs also counted by
    ``count_windows`` (probes and the unit-major kernel), for every way of placing windows."""
    monkeypatch.setattr(core, "TOPIC_WINDOW_BLOCK", 64)
    rng = np.random.default_rng(4)
    docs = [[f"w{x}" for x in rng.integers(0, 25, size=rng.integers(0, 90))] for _ in range(1500)]
    docs, ix, words, ids, _ = _indexed(docs)
    topics = np.array([rng.choice(len(ids), size=7, replace=False) for _ in range(9)])
    pairs = list(itertools.combinations(range(len(ids)), 2))
    for w in (3, 10, 40):
        joint, sets, n_units = core.count_topic_windows(ix, ids, topics, w, compat)
        counts = core.count_windows(ix, ids, pairs, w, compat)
        by_pair = dict(zip(pairs, counts.joint.tolist()))
        assert n_units == counts.n_units
        for t, row in enumerate(topics):
            for a, b in itertools.product(range(7), repeat=2):
                x, y = sorted((row[a], row[b]))
                assert joint[t, a, b] == (counts.single[x] if x == y else by_pair[(x, y)])
                assert sets[t, (1 << a) | (1 << b)] == joint[t, a, b]


@pytest.mark.parametrize("w", [4, 110])
def test_topic_window_counts_do_not_depend_on_the_number_of_threads(w, monkeypatch):
    import numba

    monkeypatch.setattr(_kernels, "PARALLEL_MIN_WORK", 0)  # the parallel kernel even on this small corpus
    rng = np.random.default_rng(6)
    docs = [[f"w{x}" for x in rng.integers(0, 30, size=rng.integers(0, 60))] for _ in range(2000)]
    docs, ix, words, ids, _ = _indexed(docs)
    topics = np.array([rng.choice(len(ids), size=8, replace=False) for _ in range(7)])
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        one = core.count_topic_windows(ix, ids, topics, w)
    finally:
        numba.set_num_threads(before)
    many = core.count_topic_windows(ix, ids, topics, w)
    assert np.array_equal(one[0], many[0]) and np.array_equal(one[1], many[1])


def test_topic_window_counts_of_postings_out_of_order_across_blocks_refused(monkeypatch):
    """A word's postings reversed (an index that was never verified): across blocks of 64 documents the
    kernel meets a posting before its block and refuses the counts."""
    monkeypatch.setattr(core, "TOPIC_WINDOW_BLOCK", 64)
    ix = index_from_token_lists([["a", "b"], ["b", "c"], ["a", "c"], ["a", "b", "c"]] * 50)
    ids = [ix.word_id(x) for x in "abc"]
    with pytest.raises(IndexIntegrityError, match="out of order"):
        core.count_topic_windows(_damaged(ix, "a", lambda p: p[::-1]), ids, [[0, 1, 2]], 2)


@pytest.mark.parametrize("topics, window, compat, message", [
    (np.zeros((1, core.MAX_SUBSET_WORDS + 1), dtype=int), 10, "exact", "k=13 is more than 12"),
    ([[0, 3]], 10, "exact", "topic positions must be -1 or positions in word_ids"),
    ([[0, 1]], 0, "exact", "window must be a whole number of tokens from 1"),
    ([[0, 1]], 10, "palmetto", "compat='palmetto' is not known"),
])
def test_topic_window_counts_bad_settings_refused(topics, window, compat, message):
    ix = index_from_token_lists([["a", "b"], ["b", "c"]])
    with pytest.raises(SettingsError, match=message):
        core.count_topic_windows(ix, [ix.word_id("a"), ix.word_id("b")], topics, window, compat)
