"""The counting core and the reference index, against independent brute-force counts and gensim."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tealeaves.coherence import _kernels, _pair_tables, core
from tealeaves.corpus import Corpus
from tealeaves.errors import EmptyInputError, IndexIntegrityError
from tealeaves.index import AlignedIndex, ReferenceIndex, build_index, index_from_token_lists


def _random_docs(seed: int, n_docs: int = 120, n_types: int = 6, max_len: int = 30) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    # few word types, so repeated words inside a window are frequent; some empty documents
    return [[f"w{x}" for x in rng.integers(0, n_types, size=rng.integers(0, max_len))] for _ in range(n_docs)]


def _brute_windows(docs, w, words):
    """Enumerate every window as a set of words (``w=None``: whole documents)."""
    windows = []
    for d in docs:
        if w is None or len(d) <= w:
            windows.append(set(d))
        else:
            windows.extend(set(d[s:s + w]) for s in range(len(d) - w + 1))
    single = [sum(x in win for win in windows) for x in words]
    joint = {(a, b): sum(words[a] in win and words[b] in win for win in windows)
             for a, b in itertools.combinations(range(len(words)), 2)}
    return len(windows), single, joint


@pytest.fixture(scope="module")
def synthetic():
    docs = _random_docs(0)
    docs[3] = ["w1", "w2", "w1", "w1", "w3", "w1"]  # repeated words at a window's edge
    docs[4] = []
    return docs, index_from_token_lists(docs, name="synthetic")


@pytest.mark.parametrize("w", [1, 2, 3, 5, 10, 29, 40])
def test_window_counts_equal_brute_force(synthetic, w):
    docs, ix = synthetic
    words = sorted(ix.vocabulary)
    ids = [ix.word_id(x) for x in words]
    pairs = list(itertools.combinations(range(len(words)), 2))
    counts = core.count_windows(ix, ids, pairs, w)
    n, single, joint = _brute_windows(docs, w, words)
    assert counts.n_units == n
    assert counts.single.tolist() == single
    assert counts.joint.tolist() == [joint[p] for p in pairs]


@pytest.mark.parametrize("w", [1, 4, 9])
def test_window_counts_in_documents_past_the_packed_interval_range(w):
    """The probe kernel holds an anchor posting of one interval ending below ``_SPAN_LIMIT`` as the
    interval itself: postings of one interval on either side of the limit (and across it) count as
    brute force does."""
    limit = _kernels._SPAN_LIMIT
    long_doc = ["x"] * (limit + 40)
    for p, word in [(3, "a"), (5, "b"), (limit - 2, "a"), (limit + 1, "b"), (limit + 20, "c"),
                    (limit + 23, "a"), (limit + 30, "d")]:
        long_doc[p] = word
    docs = [long_doc, ["a", "b", "x", "c"], ["c", "d", "a"], ["b"] * 3 + ["d"]]
    ix = index_from_token_lists(docs, name="long")
    words = ["a", "b", "c", "d", "x"]
    pairs = list(itertools.combinations(range(len(words)), 2))
    counts = core.count_windows(ix, [ix.word_id(x) for x in words], pairs, w)
    n, single, joint = _brute_windows(docs, w, words)
    assert counts.single.tolist() == single
    assert counts.joint.tolist() == [joint[p] for p in pairs]


def test_document_counts_equal_brute_force(synthetic):
    docs, ix = synthetic
    words = sorted(ix.vocabulary)
    ids = [ix.word_id(x) for x in words]
    pairs = list(itertools.combinations(range(len(words)), 2))
    counts = core.count_documents(ix, ids, pairs)
    n, single, joint = _brute_windows(docs, None, words)
    assert counts.n_units == n == len(docs)
    assert counts.single.tolist() == single
    assert counts.joint.tolist() == [joint[p] for p in pairs]


def test_window_longer_than_every_document_counts_documents(synthetic):
    docs, ix = synthetic
    ids = [ix.word_id(x) for x in sorted(ix.vocabulary)]
    pairs = list(itertools.combinations(range(len(ids)), 2))
    win = core.count_windows(ix, ids, pairs, ix.max_document_length + 1)
    doc = core.count_documents(ix, ids, pairs)
    assert win.n_units == doc.n_units
    assert np.array_equal(win.single, doc.single) and np.array_equal(win.joint, doc.joint)


@pytest.mark.parametrize("w", [2, 3, 4, 7, 10])
def test_gensim_compat_windows_equal_gensim_accumulator(synthetic, w):
    from gensim.corpora import Dictionary
    from gensim.topic_coherence.text_analysis import WordOccurrenceAccumulator

    docs, ix = synthetic
    dictionary = Dictionary(docs)
    words = sorted(ix.vocabulary)
    acc = WordOccurrenceAccumulator({dictionary.token2id[x] for x in words}, dictionary)
    acc.accumulate(docs, w)
    ids = [ix.word_id(x) for x in words]
    pairs = list(itertools.combinations(range(len(words)), 2))
    counts = core.count_windows(ix, ids, pairs, w, compat="gensim")
    assert counts.n_units == acc.num_docs
    assert counts.single.tolist() == [int(acc[dictionary.token2id[x]]) for x in words]
    expected = [int(acc[(dictionary.token2id[words[a]], dictionary.token2id[words[b]])]) for a, b in pairs]
    assert counts.joint.tolist() == expected
    exact = core.count_windows(ix, ids, pairs, w)
    assert (counts.single <= exact.single).all() and (counts.single < exact.single).any()


def test_gensim_drops_a_word_whose_other_copy_is_still_inside():
    ix = index_from_token_lists([["a", "a", "b"]])
    a, b = ix.word_id("a"), ix.word_id("b")
    exact = core.count_windows(ix, [a, b], [(0, 1)], 2)
    compat = core.count_windows(ix, [a, b], [(0, 1)], 2, compat="gensim")
    assert exact.single.tolist() == [2, 1] and exact.joint.tolist() == [1]  # [a a], [a b]
    assert compat.single.tolist() == [1, 1] and compat.joint.tolist() == [0]


def test_index_round_trip_and_checksum(tmp_path, synthetic):
    _, ix = synthetic
    path = ix.save(tmp_path / "ref.tlx")
    loaded = ReferenceIndex.load(path)
    assert loaded.checksum == ix.checksum
    assert list(loaded.vocabulary) == list(ix.vocabulary)
    for name in ix.arrays:
        assert np.array_equal(np.asarray(loaded.arrays[name]), np.asarray(ix.arrays[name])), name
    assert loaded.tokenization == {"tokenizer": "pre-tokenised"}
    assert loaded.info()["n_documents"] == 120


def test_corrupted_or_truncated_index_names_the_file(tmp_path, synthetic):
    _, ix = synthetic
    path = ix.save(tmp_path / "ref.tlx")
    raw = bytearray(path.read_bytes())
    bad = tmp_path / "flipped.tlx"
    raw[-100] ^= 0xFF
    bad.write_bytes(bytes(raw))
    with pytest.raises(IndexIntegrityError, match="flipped.tlx"):
        ReferenceIndex.load(bad)
    short = tmp_path / "short.tlx"
    short.write_bytes(path.read_bytes()[:-64])
    with pytest.raises(IndexIntegrityError, match="short.tlx"):
        ReferenceIndex.load(short)
    newer = tmp_path / "newer.tlx"
    raw = bytearray(path.read_bytes())
    raw[8] = 2  # format version 2
    newer.write_bytes(bytes(raw))
    with pytest.raises(IndexIntegrityError, match="newer.tlx has index format version 2"):
        ReferenceIndex.load(newer)
    tiny = tmp_path / "tiny.tlx"
    tiny.write_bytes(b"TLX")
    with pytest.raises(IndexIntegrityError, match="tiny.tlx"):
        ReferenceIndex.load(tiny)


def test_empty_reference_is_refused():
    with pytest.raises(EmptyInputError):
        build_index(Corpus.from_token_lists([["x"]]).subset([]))


def test_crosslingual_counts_over_shared_tuple_space():
    rng = np.random.default_rng(3)
    n_tuples = 60
    en_slots = np.sort(rng.choice(n_tuples, 45, replace=False))
    fr_slots = np.sort(rng.choice(n_tuples, 40, replace=False))[::-1]  # any order
    en_docs = [[f"e{x}" for x in rng.integers(0, 5, 6)] for _ in en_slots]
    fr_docs = [[f"f{x}" for x in rng.integers(0, 5, 6)] for _ in fr_slots]
    aligned = AlignedIndex.from_corpora(
        {"en": Corpus.from_token_lists(en_docs), "fr": Corpus.from_token_lists(fr_docs)},
        doc_ids={"en": en_slots, "fr": fr_slots}, n_tuples=n_tuples)
    words_en, words_fr = ["e0", "e1", "e4", "zz"], ["f0", "f2", "f3"]
    counts = core.count_crosslingual(aligned, "en", words_en, "fr", words_fr)
    by_slot_en = {int(s): set(d) for s, d in zip(en_slots, en_docs)}
    by_slot_fr = {int(s): set(d) for s, d in zip(fr_slots, fr_docs)}
    both = sorted(set(by_slot_en) & set(by_slot_fr))
    assert counts.n_units == len(both)
    assert counts.single.tolist() == [sum(w in by_slot_en[t] for t in both) for w in words_en]
    assert counts.single_right.tolist() == [sum(w in by_slot_fr[t] for t in both) for w in words_fr]
    expected = [sum(words_en[i] in by_slot_en[t] and words_fr[j] in by_slot_fr[t] for t in both)
                for i, j in counts.pairs]
    assert counts.joint.tolist() == expected


def test_intersect_count_and_masks():
    a = np.array([1, 3, 5, 7, 9])
    b = np.array([3, 4, 5, 9, 10])
    assert core.intersect_count(a, b) == 3
    mask = np.zeros(11, dtype=bool)
    mask[[5, 9]] = True
    assert core.intersect_count(a, b, mask) == 2
    assert core.document_counts([a, b], mask).tolist() == [2, 2]


def test_index_restricted_to_some_words_counts_them_identically(synthetic):
    docs, full = synthetic
    words = ["w1", "w3", "w4", "absent"]
    small = index_from_token_lists(docs, words=words)
    assert small.n_tokens == full.n_tokens and np.array_equal(small.doc_lengths, full.doc_lengths)
    assert small.document_frequency(small.word_id("absent")) == 0
    pairs = list(itertools.combinations(range(3), 2))
    ids_small = [small.word_id(w) for w in words[:3]]
    ids_full = [full.word_id(w) for w in words[:3]]
    both = ((small, ids_small), (full, ids_full))
    for w in (None, 3, 7):
        if w is None:
            a, b = (core.count_documents(ix, ids, pairs) for ix, ids in both)
        else:
            a, b = (core.count_windows(ix, ids, pairs, w) for ix, ids in both)
        assert a.n_units == b.n_units
        assert np.array_equal(a.single, b.single) and np.array_equal(a.joint, b.joint)



def test_anchor_order_groups_each_pair_under_its_longer_word():
    # the pair kernels visit pairs in this order (sorted by NumPy, not compiled): each pair's anchor is
    # its longer word (the left one on a tie), right words keyed after the left ones
    rng = np.random.default_rng(3)
    left, right = rng.integers(0, 6, 7), rng.integers(0, 6, 5)
    pairs = np.array([(i, j) for i in range(7) for j in range(5)] * 2, dtype=np.int64)
    order = _kernels.anchor_order(left, right, pairs, 7)
    assert sorted(order.tolist()) == list(range(len(pairs)))
    keys = [i if left[i] >= right[j] else 7 + j for i, j in pairs[order].tolist()]
    assert keys == sorted(keys)
    longest = _kernels.longest_first(left)
    assert [int(left[w]) for w in longest] == sorted(left.tolist(), reverse=True)
    ties = [w for w in longest.tolist() if left[w] == left[longest[0]]]
    assert ties == sorted(ties)  # equal sizes keep their order

# --------------------------------------------------------------------------------------------
# property tests: the (parallel) counting core against brute-force enumeration on random corpora
# --------------------------------------------------------------------------------------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

#: random small corpora: few word types (so words repeat inside windows), empty and short documents
_corpora = st.lists(st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), max_size=30), min_size=1,
                   max_size=12)
_property = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _jhlau_windows(docs, w):
    """jhlau's windows: ``t = 1 .. n + w - 1`` holds tokens ``[max(0, t - w), min(t, n))``."""
    return [set(d[max(0, t - w):min(t, len(d))]) for d in docs for t in range(1, len(d) + w)]


def _indexed(docs):
    """``(docs, index, words, word ids, pairs)``: every pair once, plus one reversed (a corpus of only
    empty documents gets one token, as an index must hold some)."""
    if not any(docs):
        docs = docs + [["a"]]
    ix = index_from_token_lists(docs)
    words = sorted(ix.vocabulary)
    pairs = list(itertools.combinations(range(len(words)), 2)) + [(1, 0)] * (len(words) > 1)
    return docs, ix, words, [ix.word_id(x) for x in words], pairs


def _exact_windows(docs, w):
    """Every exact window as a set: ``n - w + 1`` per document, a shorter one whole."""
    return [set(d) if len(d) <= w else set(d[s:s + w]) for d in docs for s in range(max(1, len(d) - w + 1))]


def _check(counts, windows, words, pairs):
    assert counts.single.tolist() == [sum(x in win for win in windows) for x in words]
    assert counts.joint.tolist() == [sum(words[a] in win and words[b] in win for win in windows)
                                     for a, b in pairs]


@_property
@given(docs=_corpora, w=st.integers(1, 12))
def test_exact_and_jhlau_windows_equal_brute_force_on_random_corpora(docs, w):
    docs, ix, words, ids, pairs = _indexed(docs)
    exact = core.count_windows(ix, ids, pairs, w)
    windows = _exact_windows(docs, w)
    assert exact.n_units == len(windows) == _brute_windows(docs, w, words)[0]
    _check(exact, windows, words, pairs)
    jhlau = core.count_windows(ix, ids, pairs, w, compat="jhlau")
    windows = _jhlau_windows(docs, w)
    assert jhlau.n_units == len(windows)
    _check(jhlau, windows, words, pairs)


@_property
@given(docs=_corpora, w=st.integers(1, 12))
def test_document_and_context_counts_equal_brute_force_on_random_corpora(docs, w):
    docs, ix, words, ids, pairs = _indexed(docs)
    _check(core.count_documents(ix, ids, pairs + [(0, 0)]), [set(d) for d in docs], words, pairs + [(0, 0)])
    if sum(len(d) - w + 1 for d in docs) > 0:  # Palmetto's total, sum(n - w + 1), must be positive
        ctx = core.count_context(ix, ids, pairs + [(0, 0)], w)
        occ = [{x: [p for p, t in enumerate(d) if t == x] for x in words} for d in docs]
        expected = [sum(abs(p - q) <= w for o in occ for p in o[words[a]] for q in o[words[b]])
                    for a, b in pairs + [(0, 0)]]
        assert ctx.joint.tolist() == expected
        assert ctx.single.tolist() == [sum(d.count(x) for d in docs) for x in words]


@_property
@given(docs=_corpora, w=st.integers(2, 12))
def test_gensim_windows_equal_gensim_accumulator_on_random_corpora(docs, w):
    from gensim.corpora import Dictionary
    from gensim.topic_coherence.text_analysis import WordOccurrenceAccumulator

    docs, ix, words, ids, pairs = _indexed(docs)
    dictionary = Dictionary(docs)
    acc = WordOccurrenceAccumulator({dictionary.token2id[x] for x in words}, dictionary)
    acc.accumulate(docs, w)
    counts = core.count_windows(ix, ids, pairs, w, compat="gensim")
    assert counts.n_units == acc.num_docs
    assert counts.single.tolist() == [int(acc[dictionary.token2id[x]]) for x in words]
    assert counts.joint.tolist() == [int(acc[(dictionary.token2id[words[a]], dictionary.token2id[words[b]])])
                                     for a, b in pairs]


@_property
@given(docs=_corpora, w=st.integers(1, 12))
def test_subset_counts_equal_brute_force_on_random_corpora(docs, w):
    docs, ix, words, ids, _ = _indexed(docs)
    topics = np.array([list(range(len(ids)))[::-1], [0] + [-1] * (len(ids) - 1)])
    counts, n_units = core.count_subsets(ix, ids, topics, w)
    windows = _exact_windows(docs, w)
    assert n_units == len(windows)
    for t, row in enumerate(topics):
        for mask in range(1, 1 << len(row)):
            members = [words[row[i]] for i in range(len(row)) if mask >> i & 1]
            expected = 0 if any(i < 0 for i in (row[i] for i in range(len(row)) if mask >> i & 1)) else \
                sum(all(x in win for x in members) for win in windows)
            assert counts[t, mask] == expected


@pytest.mark.parametrize("frequent", [None, 0, 15, 40])
@pytest.mark.parametrize("w", [None, 1, 4, 11, 70])
def test_counts_do_not_depend_on_the_number_of_threads(w, frequent, monkeypatch):
    import numba

    monkeypatch.setattr(_kernels, "PARALLEL_MIN_WORK", 0)  # the parallel kernels even on this small corpus

    # long documents too, so the unit-major kernel has several 64-start blocks per document
    docs = _random_docs(7, n_docs=300, n_types=40) + _random_docs(8, n_docs=20, n_types=40, max_len=400)
    ix = index_from_token_lists(docs)
    ids = [ix.word_id(x) for x in sorted(ix.vocabulary)]
    pairs = list(itertools.combinations(range(len(ids)), 2))

    def count():
        if w is None:
            return core.count_documents(ix, ids, pairs, frequent=frequent)
        return core.count_windows(ix, ids, pairs, w, frequent=frequent)

    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = count()
    finally:
        numba.set_num_threads(before)
    many = count()
    subsets_one = None
    if w is not None:
        topics = np.arange(12).reshape(2, 6) % len(ids)
        subsets_many = core.count_subsets(ix, ids, topics, w)[0]
        numba.set_num_threads(1)
        try:
            subsets_one = core.count_subsets(ix, ids, topics, w)[0]
        finally:
            numba.set_num_threads(before)
        assert np.array_equal(subsets_one, subsets_many)
    n, single, joint = _brute_windows(docs, w, sorted(ix.vocabulary))
    assert np.array_equal(one.joint, many.joint) and np.array_equal(one.single, many.single)
    assert many.joint.tolist() == [joint[p] for p in pairs] and many.single.tolist() == single


#: random corpora with long documents (several blocks of 64 window starts) and more word types
_long_corpora = st.lists(st.lists(st.sampled_from(list("abcdefgh")), max_size=200), min_size=1, max_size=8)


@_property
@given(docs=_long_corpora, w=st.integers(1, 80), frequent=st.integers(0, 8))
def test_frequent_word_pairs_counted_unit_major_equal_brute_force(docs, w, frequent):
    """Pairs of the ``frequent`` words with the most postings go through the unit-major kernel
    (units of 64 window starts); every mode and document counting still equal enumeration."""
    docs, ix, words, ids, pairs = _indexed(docs)
    exact = core.count_windows(ix, ids, pairs, w, frequent=frequent)
    _check(exact, _exact_windows(docs, w), words, pairs)
    jhlau = core.count_windows(ix, ids, pairs, w, compat="jhlau", frequent=frequent)
    _check(jhlau, _jhlau_windows(docs, w), words, pairs)
    counted = core.count_documents(ix, ids, pairs + [(0, 0)], frequent=frequent)
    _check(counted, [set(d) for d in docs], words, pairs + [(0, 0)])


@_property
@given(docs=_long_corpora, w=st.integers(2, 80), frequent=st.integers(0, 8))
def test_frequent_word_pairs_in_gensim_mode_equal_gensim_accumulator(docs, w, frequent):
    from gensim.corpora import Dictionary
    from gensim.topic_coherence.text_analysis import WordOccurrenceAccumulator

    docs, ix, words, ids, pairs = _indexed(docs)
    dictionary = Dictionary(docs)
    acc = WordOccurrenceAccumulator({dictionary.token2id[x] for x in words}, dictionary)
    acc.accumulate(docs, w)
    counts = core.count_windows(ix, ids, pairs, w, compat="gensim", frequent=frequent)
    assert counts.joint.tolist() == [int(acc[(dictionary.token2id[words[a]], dictionary.token2id[words[b]])])
                                     for a, b in pairs]


@pytest.mark.parametrize("w", [None, 3, 64, 65])
def test_automatic_choice_of_frequent_words_counts_the_same_as_every_forced_one(w):
    """Whatever number of frequent words the cost estimate picks, the counts equal those of the pair
    kernels alone (``frequent=0``) and of the unit-major kernel alone (every word frequent)."""
    docs = _random_docs(11, n_docs=400, n_types=30, max_len=150)
    ix = index_from_token_lists(docs)
    ids = [ix.word_id(x) for x in sorted(ix.vocabulary)]
    pairs = list(itertools.combinations(range(len(ids)), 2))[::3]
    if w is None:
        runs = [core.count_documents(ix, ids, pairs, frequent=f).joint for f in (None, 0, len(ids))]
    else:
        runs = [core.count_windows(ix, ids, pairs, w, frequent=f).joint for f in (None, 0, len(ids))]
    n, _, joint = _brute_windows(docs, w, sorted(ix.vocabulary))
    expected = [joint[p] for p in pairs]
    assert all(r.tolist() == expected for r in runs)


@pytest.mark.parametrize("threads", [1, 2])
def test_unit_major_counts_past_the_uint16_table_range(threads, monkeypatch):
    """A pair co-occurring in more than 65,535 units passes the unit-major kernel's ``uint16`` table
    into its ``int64`` spill (several times over): documents, and windows in one long document,
    against counts known in closed form."""
    import numba

    monkeypatch.setattr(_kernels, "PARALLEL_MIN_WORK", 0)
    n_docs = 140_000
    docs = [["a", "b"] if d % 2 else ["a", "b", "c"] for d in range(n_docs)]
    ix = index_from_token_lists(docs)
    ids = [ix.word_id(x) for x in "abc"]
    pairs = [(0, 1), (0, 2), (1, 2)]
    before = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        counted = core.count_documents(ix, ids, pairs, frequent=3)
        assert counted.joint.tolist() == [n_docs, n_docs // 2, n_docs // 2]
        n = 200_003  # one document a b c a b c ...: every window of 3 tokens holds all three words
        long = index_from_token_lists([["abc"[i % 3] for i in range(n)]])
        lids = [long.word_id(x) for x in "abc"]
        windows = core.count_windows(long, lids, pairs, 3, frequent=3)
        assert windows.joint.tolist() == [n - 2] * 3
        # windows of 2 tokens start at 0 .. n - 2 and hold (a, b) from a start = 0 mod 3, (b, c) from
        # 1 mod 3 and (c, a) from 2 mod 3
        near = core.count_windows(long, lids, pairs, 2, frequent=3)
        assert near.joint.tolist() == [len(range(r, n - 1, 3)) for r in (0, 2, 1)]
    finally:
        numba.set_num_threads(before)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("masked", [False, True])
def test_dense_pairs_by_numpy_equal_the_compiled_kernel_and_brute_force(seed, masked, monkeypatch):
    """A small job's pairs of dense words are counted by NumPy (``core._NUMPY_DENSE_MAX``), so that its
    first call compiles no pair kernel: the counts equal the compiled kernel's and a count of sets, for
    one list (a word paired with itself included) and two lists, with and without a mask."""
    rng = np.random.default_rng(seed)
    n_space = 300
    left = [np.unique(rng.integers(0, n_space, rng.integers(40, 200))) for _ in range(8)]
    right = [np.unique(rng.integers(0, n_space, rng.integers(40, 200))) for _ in range(6)]
    mask = rng.random(n_space) < 0.6 if masked else None
    keep = set(range(n_space)) if mask is None else set(np.flatnonzero(mask).tolist())
    cases = [(left, left, [(i, j) for i in range(8) for j in range(i, 8)]),
             (left, right, [(i, j) for i in range(8) for j in range(6)])]
    for a, b, pairs in cases:
        expected = [len(set(a[i].tolist()) & set(b[j].tolist()) & keep) for i, j in pairs]
        counts = {}
        for limit in (0, 1 << 40):  # 0: every dense pair to the compiled kernel
            monkeypatch.setattr(core, "_NUMPY_DENSE_MAX", limit)
            counts[limit] = core.pair_document_counts(a, b, pairs, mask=mask).tolist()
        assert counts[0] == counts[1 << 40] == expected


@pytest.mark.parametrize("w", [2, 10, 24, 25, 64])
def test_unit_major_narrow_table_spills_exactly(w, monkeypatch):
    """Windows up to ``NARROW_TABLE_WINDOW`` tokens count unit-major in a ``uint8`` table whose
    entries spill into ``int64`` past 255: in one 30,000-token document of 6 word types every pair
    shares thousands of blocks of 64 starts, with increments up to the window.  The counts equal the
    pair-by-pair kernel's (no table) and the ``uint16`` table's, for windows either side of the limit."""
    monkeypatch.setattr(_kernels, "PARALLEL_MIN_WORK", 0)
    rng = np.random.default_rng(11)
    words = [f"w{i}" for i in range(6)]
    ix = index_from_token_lists([[words[i] for i in rng.integers(0, 6, 30_000)]])
    ids = [ix.word_id(x) for x in words]
    pairs = list(itertools.combinations(range(len(ids)), 2))
    assert core._tables(10**7, 6, w)[0].dtype == (np.uint8 if w <= core.NARROW_TABLE_WINDOW else np.uint16)
    narrow = core.count_windows(ix, ids, pairs, w, frequent=6).joint
    probed = core.count_windows(ix, ids, pairs, w, frequent=0).joint
    monkeypatch.setattr(core, "NARROW_TABLE_WINDOW", 0)
    wide = core.count_windows(ix, ids, pairs, w, frequent=6).joint
    assert narrow.min() > 255  # every entry passed the uint8 range
    assert narrow.tolist() == probed.tolist() == wide.tolist()


@pytest.mark.parametrize("w", [None, 10])
def test_unit_major_chunk_that_outgrows_its_record_buffer_is_redone_exactly(w):
    """One 200,000-token document of 40 word types makes one chunk of over 65,536 records (the kernel's
    first buffer), which is redone with a larger one: counts equal the pair-by-pair kernels'."""
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(40)]
    ix = index_from_token_lists([[words[i] for i in rng.integers(0, 40, 200_000)]])
    ids = [ix.word_id(x) for x in words]
    pairs = list(itertools.combinations(range(len(ids)), 2))

    def count(f):
        if w is None:
            return core.count_documents(ix, ids, pairs, frequent=f)
        return core.count_windows(ix, ids, pairs, w, frequent=f)

    assert np.array_equal(count(len(ids)).joint, count(0).joint)


@pytest.mark.parametrize("long_share", [0.05, 0.1, 0.3])
def test_pair_work_estimate_samples_every_part_of_a_repeated_corpus(long_share):
    """The sampled estimate of ``sum over documents of C(words present, 2)`` (which picks the frequent
    words) is within 25% of the exact sum on a reference made of a collection of one-word documents
    followed by one of 20-word documents, repeated 8 times (the layout of the 50M benchmark
    reference, whose long documents evenly spaced samples missed)."""
    block, n_words = 10_000, 20
    n_docs = 8 * block
    long_docs = np.array([d for d in range(n_docs) if d % block >= block * (1 - long_share)])
    postings = [np.arange(n_docs)] + [long_docs] * (n_words - 1)
    docs = np.concatenate(postings).astype(np.int32)
    ptr = np.concatenate(([0], np.cumsum([len(p) for p in postings])))
    estimate = core._prefix_pair_estimate(ptr[:-1], ptr[1:], docs, n_docs)
    exact = [len(long_docs) * f * (f - 1) // 2 for f in range(n_words + 1)]
    assert estimate[0] == estimate[1] == 0
    assert np.allclose(estimate[2:], exact[2:], rtol=0.25)


@pytest.mark.parametrize("small", [0, _pair_tables._SMALL_TABLE])
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("space", [1, 63, 64, 65, 1000, 5791 ** 2, _pair_tables._UNIQUE_BITMAP_MAX + 1])
def test_unique_keys_equal_numpy_unique(seed, space, small, monkeypatch):
    """The bitmap ``unique_keys`` (and its sorting fallback for large key spaces and few keys) gives
    ``np.unique(keys, return_inverse=True)``: the sorted distinct keys and each key's position."""
    monkeypatch.setattr(_pair_tables, "_SMALL_TABLE", small)  # 0: the bitmap kernel whatever the size
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, space, size=int(rng.integers(0, 3000)))
    if space > 64 and len(keys):
        keys[:5] = [0, space - 1, space - 1, 63, 64]
    distinct, inverse = core.unique_keys(keys, space)
    expected, expected_inverse = np.unique(keys, return_inverse=True)
    assert distinct.tolist() == expected.tolist()
    assert inverse.tolist() == expected_inverse.reshape(-1).tolist()


@pytest.mark.parametrize("seed", range(3))
def test_topic_tables_by_numpy_equal_the_compiled_ones(seed, monkeypatch):
    """A small table's pairs and joint counts are built by NumPy, a large one's by compiled loops
    (``_pair_tables._SMALL_TABLE``): both give the same arrays, absent and repeated words included,
    and the joint table holds each pair's count at both of its places, the single counts on the
    diagonal and 0 wherever a word is absent."""
    rng = np.random.default_rng(seed)
    loc = rng.integers(-1, 9, size=(7, 6))
    loc[0, :3] = [4, 4, -1]  # a repeated word and an absent one
    joint_of = {(a, b): float(rng.integers(1, 100)) for a in range(9) for b in range(a, 9)}
    single = np.arange(10, 19)

    def tables(small):
        monkeypatch.setattr(_pair_tables, "_SMALL_TABLE", small)
        pairs, inverse, slots = core.topic_pairs(loc)
        joint = np.array([joint_of[(int(a), int(b))] for a, b in pairs])
        return pairs, inverse, slots, core.topic_joint(loc, slots, inverse, joint, single)

    by_numpy, compiled = tables(1 << 30), tables(0)
    for a, b in zip(by_numpy, compiled):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    # the compiled table walks the pairs in topic_pairs' order; pairs given in another order are
    # placed by their slots all the same
    _, inverse, slots, _ = compiled
    joint = np.array([joint_of[(int(a), int(b))] for a, b in compiled[0]])
    shuffled = rng.permutation(len(slots))
    monkeypatch.setattr(_pair_tables, "_SMALL_TABLE", 0)
    placed = core.topic_joint(loc, slots[shuffled], inverse[shuffled], joint, single)
    assert np.array_equal(placed, compiled[3])
    table = by_numpy[3]
    for t, i, j in itertools.product(range(7), range(6), range(6)):
        a, b = sorted((int(loc[t, i]), int(loc[t, j])))
        expected = 0.0 if a < 0 else float(single[a]) if i == j else joint_of[(a, b)]
        assert table[t, i, j] == expected


@pytest.mark.parametrize("parallel", [False, True])
def test_pair_document_counts_by_bitsets_and_by_probing_equal_set_intersections(parallel, monkeypatch):
    """Pairs of two dense words (more than ``n_space / 512`` postings) are counted by bitsets, the
    others by probing (two kernels, each compiled only when it has pairs): over one list or two, with
    a mask, with pairs that repeat a word, and with the bitsets capped at 64 words, every count is the
    size of the intersection of the two posting sets."""
    if parallel:
        monkeypatch.setattr(_kernels, "PARALLEL_MIN_WORK", 0)
    rng = np.random.default_rng(5)
    n_space = 3000  # 47 blocks of 64 documents: a word of more than 5 postings is dense

    def postings(n):
        sizes = np.concatenate([rng.integers(1, 6, n // 2), rng.integers(6, 600, n - n // 2)])
        return [np.sort(rng.choice(n_space, size, replace=False)).astype(np.int64) for size in sizes]

    left, right = postings(90), postings(70)
    mask = rng.random(n_space) < 0.7
    for a, b, m in ((left, left, None), (left, right, None), (left, right, mask), (left, left, mask)):
        pairs = np.array([(i, j) for i in range(len(a)) for j in range(len(b)) if (i + j) % 3 == 0]
                         + [(4, 4)])
        got = core.pair_document_counts(a, a if b is a else b, pairs, m)
        keep = set(range(n_space)) if m is None else set(np.flatnonzero(m).tolist())
        expected = [len(set(a[i].tolist()) & set(b[j].tolist()) & keep) for i, j in pairs]
        assert got.tolist() == expected
        sizes_a = np.array([len(x) for x in a])
        sizes_b = np.array([len(x) for x in b])
        dense = (_kernels.dense_slots(sizes_a, n_space, _kernels._DENSE_BYTES)[pairs[:, 0]] >= 0) & (
            _kernels.dense_slots(sizes_b, n_space, _kernels._DENSE_BYTES)[pairs[:, 1]] >= 0)
        assert dense.any() and not dense.all()  # both kernels counted
    # 64 words at most get bitsets when the budget is spent: the 65th longest is probed
    # postings of two types (the bitset kernel takes both sides in one loop, so of one type)
    a_docs, a_ptr = core._concat(left)
    b_docs, b_ptr = core._concat(right)
    pairs = np.array([(i, j) for i in range(len(left)) for j in range(len(right))][::5], dtype=np.int64)
    mixed = core._pair_docs(np.arange(len(left)), a_ptr, a_docs.astype(np.int32), np.arange(len(right)),
                            b_ptr, b_docs, pairs, np.zeros(1, bool), False, n_space, False)
    assert mixed.tolist() == [len(set(left[i].tolist()) & set(right[j].tolist())) for i, j in pairs]
    many = postings(160)  # 80 dense words
    docs, ptr = core._concat(many)
    ids = np.arange(len(many), dtype=np.int64)
    pairs = np.array(list(itertools.combinations(range(len(many)), 2))[::7], dtype=np.int64)
    capped = core._pair_docs(ids, ptr, docs, ids, ptr, docs, pairs, np.zeros(1, bool), False, n_space, True,
                             dense_bytes=0)
    assert capped.tolist() == [len(set(many[i].tolist()) & set(many[j].tolist())) for i, j in pairs]
    sizes = np.array([len(x) for x in many])
    slots = _kernels.dense_slots(sizes, n_space, 0)
    assert sorted(slots[slots >= 0].tolist()) == list(range(64))
    assert sizes[slots >= 0].min() >= sizes[(slots < 0) & (sizes > 5)].max()  # the longest ones


@pytest.mark.parametrize("n_words", [255, 256, 257, 300])
def test_pair_document_counts_of_a_document_holding_hundreds_of_dense_words(n_words):
    """The bitset kernel counts the dense words of each document in a byte that stops at 2 (all it
    reads is "at least 1" and "at least 2"), so a document holding 256 or more dense words (where a
    byte that wrapped round would read 0 or 1) still takes part: every count is the size of the
    intersection of the two posting sets, over one list and over two."""
    rng = np.random.default_rng(n_words)
    n_space = 3000  # a word of more than 5 postings is dense

    def postings():
        return [np.unique(np.r_[0, rng.choice(np.arange(1, n_space), 12, replace=False)]).astype(np.int64)
                for _ in range(n_words)]  # every word in document 0, and 12 others

    left, right = postings(), postings()
    pairs = np.array(list(itertools.combinations(range(n_words), 2)), dtype=np.int64)
    for a, b in ((left, left), (left, right)):
        got = core.pair_document_counts(a, b, pairs)
        expected = [len(set(a[i].tolist()) & set(b[j].tolist())) for i, j in pairs]
        assert got.tolist() == expected
        assert min(expected) >= 1  # document 0 is shared by every pair


@pytest.mark.parametrize("compat", ["exact", "gensim", "jhlau"])
@pytest.mark.parametrize("w", [1, 2, 3, 7])
def test_one_window_bitmap_marks_the_documents_of_one_window_start(compat, w):
    """Bit ``d`` of :func:`core._one_window_bitmap` is set exactly when document ``d`` has one window
    start (:func:`tealeaves.index.reference.n_windows` of that document alone), over several words."""
    from tealeaves.index.reference import n_windows

    lengths = np.random.default_rng(w).integers(0, 2 * w + 2, 200)
    bits = core._one_window_bitmap(lengths, w, compat)
    assert bits.dtype == np.uint64 and len(bits) == 4
    got = [bool(_kernels._has_bit(bits, d)) for d in range(len(lengths))]
    assert got == [n_windows(np.array([n]), w, compat=compat) == 1 for n in lengths]
    assert not any(_kernels._has_bit(bits, d) for d in range(len(lengths), 256))


@pytest.mark.parametrize("w", [1, 3, 6])
def test_window_probes_of_one_window_documents_equal_brute_force(w):
    """The probe kernel adds 1 for a shared document of one window start without reading its intervals:
    documents of ``w - 1``, ``w`` and ``w + 1`` tokens (and of 1 token for jhlau's ``w = 1``), every pair
    probed, equal brute-force windows (exact, jhlau) and gensim's own accumulator (gensim)."""
    from gensim.corpora import Dictionary
    from gensim.topic_coherence.text_analysis import WordOccurrenceAccumulator

    rng = np.random.default_rng(w)
    lengths = [max(0, w + int(d)) for d in rng.integers(-1, 2, 150)] + [1, 0, w]
    docs = [[f"w{x}" for x in rng.integers(0, 5, n)] for n in lengths]
    docs, ix, words, ids, pairs = _indexed(docs)
    for compat, windows in (("exact", _exact_windows(docs, w)), ("jhlau", _jhlau_windows(docs, w))):
        counts = core.count_windows(ix, ids, pairs, w, compat=compat, frequent=0)
        assert counts.n_units == len(windows)
        _check(counts, windows, words, pairs)
    if w >= 2:  # gensim's accumulator takes windows of 2 tokens or more
        dictionary = Dictionary(docs)
        acc = WordOccurrenceAccumulator({dictionary.token2id[x] for x in words}, dictionary)
        acc.accumulate(docs, w)
        gensim = core.count_windows(ix, ids, pairs, w, compat="gensim", frequent=0)
        tid = [dictionary.token2id[x] for x in words]
        assert gensim.n_units == acc.num_docs
        assert gensim.single.tolist() == [int(acc[i]) for i in tid]
        assert gensim.joint.tolist() == [int(acc[(tid[a], tid[b])]) for a, b in pairs]
