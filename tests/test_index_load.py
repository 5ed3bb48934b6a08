"""ReferenceIndex.load checks a memory-mapped index without temporaries proportional to its postings.

The structural checks run as compiled passes over the mapped arrays (only a bitmap of one bit per
token, per-document arrays and the vocabulary are allocated) and the string blobs are decoded a block
at a time; the tests check that the memory traced while loading stays a small fraction of the postings,
that blocks split anywhere inside multi-byte characters give exactly the whole-blob verdict, and that
the sparse (sorting) clash check agrees with the bitmap.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from tealeaves.errors import IndexIntegrityError
from tealeaves.index import ARRAY_NAMES, ReferenceIndex, _checks, index_from_token_lists

WORDS = ["é", "中文", "𝔘𝔫𝔦", "straße", "oil", "ab", "ǅemal", "ﬁ"]


def _random_docs(n_docs: int, length: int, n_words: int, seed: int = 0) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    ranks = np.minimum(rng.zipf(1.3, size=n_docs * length), n_words) - 1
    words = [f"w{i}" for i in range(n_words)]
    return [[words[i] for i in ranks[d * length:(d + 1) * length]] for d in range(n_docs)]


def test_load_traces_far_less_memory_than_the_postings(tmp_path):
    index = index_from_token_lists(_random_docs(8000, 300, 2_000))
    path = index.save(tmp_path / "big.tlx")
    postings = sum(index.arrays[k].nbytes for k in ("post_docs", "pos_ptr", "positions"))
    assert postings > 10 << 20
    ReferenceIndex.load(index_from_token_lists([["a", "b"], ["b"]]).save(tmp_path / "warm.tlx"))  # kernels
    tracemalloc.start()
    try:
        loaded = ReferenceIndex.load(path, verify=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # the bitmap (2.4 M tokens / 8), per-document arrays and the vocabulary; the numpy checks this
    # replaces allocated several times the postings (np.diff of pos_ptr alone is as large as pos_ptr)
    assert peak < 0.1 * postings, (peak, postings)
    for name in ARRAY_NAMES:
        assert np.array_equal(np.asarray(loaded.arrays[name]), index.arrays[name])


@pytest.mark.parametrize("block", [1, 2, 3, 5, 1 << 24])
def test_string_blocks_split_inside_characters(tmp_path, monkeypatch, block):
    monkeypatch.setattr(_checks, "CHECK_BLOCK", block)
    index = index_from_token_lists([WORDS, WORDS[::-1]], ids=["dé", "文"])
    loaded = ReferenceIndex.load(index.save(tmp_path / "u.tlx"))
    assert list(loaded.vocabulary) == WORDS and loaded.document_ids == ["dé", "文"]


def _whole_blob_error(blob: np.ndarray) -> str:
    try:
        blob.tobytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"({exc.reason} at byte {exc.start})"
    raise AssertionError("the blob is valid")


@pytest.mark.parametrize("block", [1, 2, 3, 4, 7, 1 << 24])
@pytest.mark.parametrize("byte, value", [(0, 0xFF), (1, 0x41), (2, 0x41), (5, 0xC3), (7, 0x41), (9, 0xF0)])
def test_bad_utf8_gives_the_whole_blob_verdict_whatever_the_block(tmp_path, monkeypatch, block, byte, value):
    """Every byte of the first words corrupted, decoded in blocks of every size: the same reason and
    byte as decoding the whole blob at once (an independent recomputation)."""
    index = index_from_token_lists([WORDS])
    arrays = {k: np.array(v) for k, v in index.arrays.items()}
    arrays["vocab_blob"][byte] = value
    path = ReferenceIndex(arrays, index.header).save(tmp_path / "bad.tlx")
    expected = _whole_blob_error(arrays["vocab_blob"])
    monkeypatch.setattr(_checks, "CHECK_BLOCK", block)
    with pytest.raises(IndexIntegrityError, match="not valid UTF-8") as info:
        ReferenceIndex.load(path)
    assert f"has words that are not valid UTF-8 {expected}" in str(info.value)


@pytest.mark.parametrize("sparse", [False, True])
def test_position_clash_found_by_the_bitmap_and_by_sorting(tmp_path, monkeypatch, sparse):
    if sparse:  # force the restricted-index path: sort the tokens instead of flagging each
        monkeypatch.setattr(_checks, "BITMAP_SLACK", -(1 << 40))
    index = index_from_token_lists([["a", "b", "c"], ["c", "a"], ["b", "b", "d"]])
    assert ReferenceIndex.load(index.save(tmp_path / "good.tlx")).n_tokens == 8
    arrays = {k: np.array(v) for k, v in index.arrays.items()}
    d = index.word_id("d")
    arrays["positions"][arrays["pos_ptr"][arrays["word_ptr"][d]]] = 1  # 'd' onto a 'b' of document 2
    bad = ReferenceIndex(arrays, index.header).save(tmp_path / "bad.tlx")
    with pytest.raises(IndexIntegrityError, match="two words at the same position"):
        ReferenceIndex.load(bad)


def _by_hand(index, **changes):
    """An index made from ``index``'s arrays (copies, changed by ``changes``: name -> function of the
    array) and header (``header=`` a function of it), as a user would make one."""
    arrays = {k: v.copy() for k, v in index.arrays.items()}
    header = dict(index.header)
    for name, change in changes.items():
        if name == "header":
            header = change(header)
        else:
            arrays[name] = change(arrays[name])
    return ReferenceIndex(arrays, header)


def _set_at(a, at, value):
    a[at] = value
    return a


@pytest.mark.parametrize("change, message", [
    ({"post_docs": lambda a: _set_at(a, -1, 10**6)}, "postings naming document slots"),
    ({"post_docs": lambda a: _set_at(a, 0, -1)}, "postings naming document slots"),
    ({"post_docs": lambda a: a[::-1].copy()}, "documents of a word"),
    ({"positions": lambda a: _set_at(a, 0, 10**6)}, "position"),
    ({"post_docs": lambda a: a.astype(np.int64)}, "'post_docs' as 1-dimensional int64"),
    ({"word_ptr": lambda a: a.reshape(1, -1)}, "'word_ptr' as 2-dimensional"),
    ({"header": lambda h: {**h, "n_documents": h["n_documents"] + 1}}, "n_documents="),
    ({"header": lambda h: {**h, "n_words": "3"}}, "n_words='3'"),
    ({"header": lambda h: {k: v for k, v in h.items() if k != "n_tokens"}}, "n_tokens=None"),
])
def test_index_made_by_hand_checked_before_its_first_count(change, message):
    """numba does not check indexing: arrays given by hand pass the checks a file's open runs before any
    kernel reads them, once (ReferenceIndex.check_readable), so a posting past the documents is an error,
    not a read out of bounds."""
    from tealeaves.coherence import core

    index = index_from_token_lists([["a", "b"], ["b", "c"], ["a", "c"], ["a", "b", "c"]] * 3)
    bad = _by_hand(index, **change)
    with pytest.raises(IndexIntegrityError, match=message):
        core.count_documents(bad, [0, 1, 2], [(0, 1), (1, 2)])
    with pytest.raises(IndexIntegrityError, match="<in memory: "):
        core.count_windows(bad, [0, 1, 2], [(0, 1)], 3)


def test_index_made_by_hand_from_good_arrays_counts_as_the_original():
    from tealeaves.coherence import core

    index = index_from_token_lists([["a", "b"], ["b", "c"], ["a", "c"], ["a", "b", "c"]] * 3)
    same = _by_hand(index)
    assert not same._checked
    a = core.count_windows(same, [0, 1, 2], [(0, 1), (1, 2)], 2)
    assert same._checked  # once
    b = core.count_windows(index, [0, 1, 2], [(0, 1), (1, 2)], 2)
    assert a.joint.tolist() == b.joint.tolist() and a.single.tolist() == b.single.tolist()
