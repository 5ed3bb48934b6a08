"""Topics' pairs counted from bitmaps of blocks of documents (``core.count_topic_documents`` with
``method="bitmaps"``, :func:`tealeaves.coherence._kernels_topics._topic_bitmap_kernel`): equal to the
word sets and to the pair kernels across blocks, parts and threads (and to enumeration on random
corpora: ``test_coherence_topic_major``'s property test); a damaged index refused; the budget, the
method and the choice between the two ways."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tealeaves.coherence import _blocked, _kernels, core
from tealeaves.coherence._kernels_topics import BITMAP_BLOCK
from tealeaves.coherence.errors import SettingsError
from tealeaves.errors import IndexIntegrityError, ParameterError
from tealeaves.index import index_from_token_lists
from test_coherence_topic_major import _damaged


def _corpus(seed: int, n_docs: int, n_words: int = 30, longest: int = 8):
    """Documents of words drawn by Zipf's law (some in most documents, some in few), their index, the
    sorted words and their ids."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(n_words)]
    p = 1 / np.arange(1, n_words + 1)
    docs = [list(rng.choice(vocab, size=rng.integers(0, longest), p=p / p.sum())) for _ in range(n_docs)]
    ix = index_from_token_lists(docs)
    words = sorted(ix.vocabulary)
    return rng, docs, ix, words, [ix.word_id(x) for x in words]


def _pair_table(ix, ids) -> np.ndarray:
    """Every pair's documents by ``count_documents`` (probes), the diagonal each word's."""
    pairs = list(itertools.combinations(range(len(ids)), 2))
    counts = core.count_documents(ix, ids, pairs, frequent=0)
    table = np.zeros((len(ids), len(ids)), dtype=np.int64)
    for (a, b), c in zip(pairs, counts.joint):
        table[a, b] = table[b, a] = c
    table[np.arange(len(ids)), np.arange(len(ids))] = counts.single
    return table


@pytest.mark.parametrize("parts", [1, 2, 3])
def test_topic_pairs_from_bitmaps_across_blocks_and_parts_equal_sets_and_pair_kernels(parts, monkeypatch):
    """Blocks of 64 documents (2,011 documents: 32 blocks, the last of 27), taken by 1, 2 or 3 parts, each
    starting its words by a binary search: the counts equal the word sets' and the probes'."""
    rng, docs, ix, words, ids = _corpus(3, 2011)
    topics = np.array([rng.choice(len(words), size=10, replace=False) for _ in range(12)])
    topics[3, 4:] = -1
    monkeypatch.setattr(_blocked, "BITMAP_BLOCK", 64)
    monkeypatch.setattr(core, "parts_for", lambda work: parts)
    assert _blocked.topic_bitmap_block(None, len(words), 12, 10, parts, len(docs)) == 64
    joint, _, n_units = core.count_topic_documents(ix, ids, topics, method="bitmaps")
    assert np.array_equal(joint, core.count_topic_documents(ix, ids, topics, method="sets")[0])
    table = _pair_table(ix, ids)
    for t, row in enumerate(topics):
        here = row >= 0
        assert joint[t][np.ix_(here, here)].tolist() == table[np.ix_(row[here], row[here])].tolist()
        assert not joint[t][~here].any() and not joint[t][:, ~here].any()
    assert n_units == len(docs)


def test_topic_pairs_from_bitmaps_do_not_depend_on_the_number_of_threads(monkeypatch):
    import numba

    monkeypatch.setattr(_kernels, "PARALLEL_MIN_WORK", 0)  # the parallel kernel even on this small corpus
    monkeypatch.setattr(_blocked, "BITMAP_BLOCK", 256)
    rng, _, ix, words, ids = _corpus(5, 3000, 25, 20)
    topics = np.array([rng.choice(len(ids), size=8, replace=False) for _ in range(9)])
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = core.count_topic_documents(ix, ids, topics, method="bitmaps")[0]
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one, core.count_topic_documents(ix, ids, topics, method="bitmaps")[0])
    assert np.array_equal(one, core.count_topic_documents(ix, ids, topics, method="sets")[0])


def _reversed_halves(p: np.ndarray) -> np.ndarray:
    """The second half of the postings before the first: out of order across blocks."""
    half = len(p) // 2
    return np.concatenate([p[half:], p[:half]])


@pytest.mark.parametrize("parts", [1, 2])
@pytest.mark.parametrize("change", [lambda p: np.concatenate([[-1], p[1:]]),
                                    lambda p: np.concatenate([p[:-1], [10**6]]),
                                    lambda p: np.concatenate([p[:-1], [2011]]),
                                    _reversed_halves],
                         ids=["negative document", "document far past the last",
                              "document just past the last", "out of order across blocks"])
def test_topic_pairs_from_bitmaps_of_a_damaged_index_refused(change, parts, monkeypatch):
    """A posting outside the documents, or postings out of order across blocks, give an error, not counts
    (a posting read by no part, or by two, is found by the cursors each part leaves)."""
    _, _, ix, words, ids = _corpus(3, 2011)
    monkeypatch.setattr(_blocked, "BITMAP_BLOCK", 64)
    monkeypatch.setattr(core, "parts_for", lambda work: parts)
    damaged = _damaged(ix, "w0", change)
    with pytest.raises(IndexIntegrityError, match="out of order or past its documents"):
        core.count_topic_documents(damaged, ids, [list(range(10))], method="bitmaps")


def test_topic_pairs_from_bitmaps_take_postings_in_any_order_within_a_block():
    """One block: the order of its postings does not change the counts, as with the word sets."""
    _, _, ix, words, ids = _corpus(4, 500)
    shuffled = _damaged(ix, "w1", lambda p: p[::-1])
    assert np.array_equal(core.count_topic_documents(shuffled, ids, [list(range(10))], method="bitmaps")[0],
                          core.count_topic_documents(ix, ids, [list(range(10))], method="sets")[0])


def test_topic_bitmap_block_fits_the_budget_in_equal_runs_of_blocks():
    """Blocks of one size, a multiple of 64, a multiple of the parts in number, at most BITMAP_BLOCK
    documents; halved until the working set fits; None (or, required, the minimum named) below
    MIN_BITMAP_BLOCK documents."""
    from tealeaves.coherence._blocked import MIN_BITMAP_BLOCK, topic_bitmap_block, topic_bitmap_bytes

    n_docs = 28_231_000
    block = topic_bitmap_block(None, 619, 80, 10, 2, n_docs)
    n_blocks = -(-n_docs // block)
    assert block % 64 == 0 and block <= BITMAP_BLOCK and n_blocks % 2 == 0
    assert block == 64 * -(-n_docs // (64 * n_blocks)) and n_blocks == 2 * -(-n_docs // (2 * BITMAP_BLOCK))
    assert topic_bitmap_bytes(619, 80, 10, block, 2) <= _blocked.check_budget(None)
    memory = topic_bitmap_bytes(619, 80, 10, block // 2, 2)  # fits blocks of half the size at most
    small = topic_bitmap_block(memory, 619, 80, 10, 2, n_docs)
    assert small <= block // 2 + 64 and topic_bitmap_bytes(619, 80, 10, small, 2) <= memory
    assert topic_bitmap_block(None, 5, 1, 3, 2, 10) == 64  # a small reference: one block of 64 a part
    tiny = topic_bitmap_bytes(619, 80, 10, MIN_BITMAP_BLOCK, 2) - 1  # every block tried is larger
    assert topic_bitmap_block(tiny, 619, 80, 10, 2, n_docs) is None
    with pytest.raises(ParameterError, match=r"memory .* is below the .* that counting the pairs of 80 "
                                             r"topics from bitmaps of 619 words needs "
                                             r"\(give at least \d+[KM]\)"):
        topic_bitmap_block(tiny, 619, 80, 10, 2, n_docs, required=True)


@pytest.mark.parametrize("method", ["pairs", "", "Bitmaps", 3, None.__class__, np.array(["sets"])],
                         ids=["other word", "empty", "capitalised", "number", "type", "array"])
def test_topic_document_counts_unknown_method_refused(method):
    ix = index_from_token_lists([["a", "b"], ["b", "c"]])
    with pytest.raises(ParameterError, match="method must be one of sets, bitmaps"):
        core.count_topic_documents(ix, [ix.word_id("a"), ix.word_id("b")], [[0, 1]], method=method)


def test_topic_document_counts_bitmaps_with_subsets_refused():
    ix = index_from_token_lists([["a", "b"], ["b", "c"]])
    with pytest.raises(SettingsError, match="counts pairs of words only"):
        core.count_topic_documents(ix, [ix.word_id("a"), ix.word_id("b")], [[0, 1]], subsets=True,
                                   method="bitmaps")


def test_topic_document_counts_choose_bitmaps_for_frequent_words(monkeypatch):
    """By the estimate (core._bitmaps_cheaper): words in most documents are counted from bitmaps, rare
    words by word sets; subsets always by word sets."""
    used = []
    for name in ("_topic_bitmap_kernel", "_topic_document_kernel"):
        real = getattr(core, name)
        monkeypatch.setattr(core, name, lambda *a, _real=real, _name=name: used.append(_name) or _real(*a))
    rng = np.random.default_rng(7)
    dense = index_from_token_lists([list(rng.choice(list("abcdefghij"), size=8)) for _ in range(5000)])
    ids = [dense.word_id(x) for x in "abcdefghij"]
    core.count_topic_documents(dense, ids, [list(range(10))] * 3)
    core.count_topic_documents(dense, ids, [list(range(10))] * 3, subsets=True)
    rare = index_from_token_lists([[f"w{i}", f"w{i + 1}"] for i in range(0, 20000, 2)])
    ids = [rare.word_id(f"w{i}") for i in range(10)]
    core.count_topic_documents(rare, ids, [list(range(10))])
    assert used == ["_topic_bitmap_kernel", "_topic_document_kernel", "_topic_document_kernel"]


@pytest.mark.parametrize("value, expected", [(True, True), (False, False), (np.True_, True),
                                             (np.bool_(0), False)])
def test_check_bool_takes_booleans(value, expected):
    from tealeaves.validation import check_bool

    assert check_bool(value, "flag") is expected


@pytest.mark.parametrize("value", [1, 0, "False", "", None, 1.0, np.array([True]), np.array(True),
                                   np.int64(1), [True]])
def test_check_bool_refuses_what_is_not_a_boolean(value):
    from tealeaves.validation import check_bool

    with pytest.raises(ParameterError, match="flag must be True or False, got "):
        check_bool(value, "flag")


def test_topic_bitmap_block_tries_the_smallest_blocks_a_halving_passes_over():
    """At 28.2 M documents the halving goes from 7,936 to 3,968 documents; a budget that holds blocks of
    4,096 (MIN_BITMAP_BLOCK) but not 7,936 gets blocks of 4,096, and the minimum named is theirs."""
    from tealeaves.coherence._blocked import MIN_BITMAP_BLOCK, topic_bitmap_block, topic_bitmap_bytes

    n_docs, need = 28_231_000, topic_bitmap_bytes(619, 80, 10, MIN_BITMAP_BLOCK, 2)
    assert topic_bitmap_bytes(619, 80, 10, 7936, 2) > need
    assert topic_bitmap_block(need, 619, 80, 10, 2, n_docs) == MIN_BITMAP_BLOCK
    with pytest.raises(ParameterError, match=rf"\({need:,} bytes\) that counting the pairs of 80 topics"):
        topic_bitmap_block(need - 1, 619, 80, 10, 2, n_docs, required=True)


@pytest.mark.parametrize("value", [np.array(["sets"]), np.array(["sets", "bitmaps"]), ["sets"], b"sets", 3])
def test_check_choice_refuses_arrays_and_other_types(value):
    """A one-element array equal to a choice used to pass (NumPy compares element by element), and a
    longer one raised NumPy's ambiguous-truth error; both are refused with the choices listed."""
    from tealeaves.validation import check_choice

    with pytest.raises(ParameterError, match="method must be one of sets, bitmaps; got "):
        check_choice(value, "method", ("sets", "bitmaps"))
