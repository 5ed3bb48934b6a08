"""Odd inputs of the topics' pair counts from bitmaps (``core.count_topic_documents(method="bitmaps")``,
:func:`tealeaves.coherence._kernels_topics._topic_bitmap_kernel`) and of the choice that reaches them
(``method=None``, ``core.topic_major_cheaper``, the ``coherence`` measures and command).

Postings damaged after the index was built (before the first document, at or past the last, repeated,
out of order within a block, across blocks and across parts, all past the end) under one block, blocks of
64 documents taken by one or three parts, and the parallel kernel: all run in one child process, so that
a crash fails these tests rather than the run.  References of 1 to 2**20 + 1 documents, of none, of empty
documents, of a word in every document; topics of no word to 12, 13, 200,000 topics, arrays that are not
positions; ``method`` and ``memory`` spellings; one and two threads, two threads and two processes at once;
an index file changed on disk after its open; the ``tealeaves coherence`` command on frequent words.

Every count is compared with a recount of the index's postings in plain Python (:func:`_recount`: a set of
documents per word) and, where the postings are sound or only out of order within a block, with
``method="sets"``.  A damaged index must give the recount of its postings or an ``IndexIntegrityError``,
never other numbers, and a posting outside the documents must be refused.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import textwrap
import time
import tracemalloc

import numpy as np
import pytest
from test_coherence_topic_major_inputs import _at_once

from conftest import REPO, run_cli_subprocess
from tealeaves.coherence import _blocked, _kernels, core
from tealeaves.coherence._kernels_topics import BITMAP_BLOCK, TOPIC_MAX_WORDS
from tealeaves.coherence.errors import SettingsError
from tealeaves.errors import IndexIntegrityError, ParameterError
from tealeaves.index import ReferenceIndex, index_from_token_lists
from test_coherence_topic_bitmaps import _corpus
from test_coherence_topic_major import _damaged

_DAMAGED = "are out of order or past its documents (rebuild the index"


# -- independent recount -------------------------------------------------------------------------------------
def _recount(index, ids, topics) -> np.ndarray:
    """``(T, k, k)`` documents holding topic words ``a`` and ``b`` (``-1``: no word), from ``index``'s
    postings in plain Python: a set of documents per word (their order and repeats do not matter)."""
    ptr, post = index.arrays["word_ptr"], index.arrays["post_docs"]
    held = [set(post[ptr[w]:ptr[w + 1]].tolist()) for w in np.asarray(ids, dtype=np.int64).reshape(-1)]
    n = len(held)
    table = np.zeros((n + 1, n + 1), dtype=np.int64)  # the last row and column: no word
    for a in range(n):
        for b in range(a, n):
            table[a, b] = table[b, a] = len(held[a] & held[b])
    loc = np.asarray(topics, dtype=np.int64)
    loc = loc.reshape(len(loc), -1)
    return table[loc[:, :, None], loc[:, None, :]]


def _both(index, ids, topics, **kw):
    """Counts from bitmaps (forced), checked equal to the word sets' and to the recount; returned."""
    joint, sets, n_units = core.count_topic_documents(index, ids, topics, method="bitmaps", **kw)
    assert sets is None and n_units == index.n_present
    assert joint.tolist() == _recount(index, ids, topics).tolist()
    assert joint.tolist() == core.count_topic_documents(index, ids, topics, method="sets", **kw)[0].tolist()
    return joint


def _rows(words, *rows):
    return np.array([[words.index(w) if w else -1 for w in row] for row in rows], dtype=np.int64)


def _env(**extra) -> dict:
    paths = [str(REPO / "src"), str(REPO / "tests"), str(REPO / "tests" / "bad_inputs"),
             os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p), **extra}


def _child(script: str, timeout: int = 300, **env) -> subprocess.CompletedProcess:
    """``script`` run by a new Python (a crash there is a return code, not the end of this run)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=_env(**env),
                          capture_output=True, text=True, timeout=timeout, cwd=str(REPO))


def _last_json(run: subprocess.CompletedProcess):
    assert run.returncode == 0, (run.returncode, run.stderr[-3000:])
    return json.loads(run.stdout.strip().splitlines()[-1])


# -- damaged postings ----------------------------------------------------------------------------------------
#: 2,011 documents of 30 words drawn by Zipf's law (test_coherence_topic_bitmaps._corpus): w0 in about
#: two documents of three, so its postings cross every block of 64; its postings are damaged.
_N = 2011
_SEED = 3
_TOPICS = (["w0", "w1", "w2", "w3", "w10", "w4", "w5", "w6", "w7", "w8"],
           ["w0", "w1", None, "w0", None, None, None, None, None, None])
#: name: (BITMAP_BLOCK, parts, parallel kernel).  Three parts of 32 blocks of 64 take blocks 0-9, 10-20 and
#: 21-31 (the first part ends at document 640).
_LAYOUTS = {"one block": (None, 1, False), "blocks of 64": (64, 1, False),
            "blocks of 64 in three parts": (64, 3, False),
            "blocks of 128 in two parallel parts": (128, 2, True)}


def _at(i, value):
    """Posting ``i`` (``"mid"``: the middle one) set to ``value`` (or ``value(q)``)."""
    def change(q):
        j = len(q) // 2 if i == "mid" else i
        q[j] = value(q) if callable(value) else value
        return q
    return change


def _swap_at(doc):
    """The last posting before document ``doc`` swapped with the next (out of order across that edge)."""
    def change(q):
        i = int(np.searchsorted(q, doc)) - 1
        q[i], q[i + 1] = q[i + 1], q[i]
        return q
    return change


def _reversed_within(size):
    """The postings of each run of ``size`` documents reversed in place (out of order within blocks)."""
    def change(q):
        return np.concatenate([q[(q // size) == b][::-1] for b in np.unique(q // size)]).astype(q.dtype)
    return change


def _swap_inside(d0, d1):
    """The first two postings of documents ``d0 .. d1 - 1`` swapped."""
    def change(q):
        i = int(np.searchsorted(q, d0))
        assert q[i + 1] < d1
        q[i], q[i + 1] = q[i + 1], q[i]
        return q
    return change


_BEFORE = {"negative first": _at(0, -1), "negative in the middle": _at("mid", -1),
           "int32 min first": _at(0, -2**31)}
_PAST = {"n_documents last": _at(-1, _N), "n_documents in the middle": _at("mid", _N),
         "int32 max last": _at(-1, 2**31 - 1), "int32 max in the middle": _at("mid", 2**31 - 1),
         "all past the end": lambda q: q + _N, "all n_documents": lambda q: np.full_like(q, _N)}
_REPEATED = {"first repeated": _at(1, lambda q: q[0]), "last repeated": _at(-1, lambda q: q[-2]),
             "all document 0": np.zeros_like,
             "sorted with repeats": lambda q: np.sort(np.random.default_rng(1).integers(0, _N, len(q))
                                                      ).astype(q.dtype)}
_WITHIN = {"reversed within each block of 64": _reversed_within(64),
           "two swapped inside documents 320-383": _swap_inside(320, 384)}
_ACROSS_BLOCKS = {"reversed": lambda q: q[::-1].copy(),
                  "halves swapped": lambda q: np.concatenate([q[len(q) // 2:], q[:len(q) // 2]]),
                  "swapped across document 128": _swap_at(128),
                  "unsorted random": lambda q: np.random.default_rng(2).integers(0, _N, len(q)
                                                                                 ).astype(q.dtype)}
_ACROSS_PARTS = {"swapped across the first part's end": _swap_at(640),
                 "last moved first": lambda q: np.roll(q, 1), "first moved last": lambda q: np.roll(q, -1)}
_CASES = {**_BEFORE, **_PAST, **_REPEATED, **_WITHIN, **_ACROSS_BLOCKS, **_ACROSS_PARTS}


def _patched(block, parts, parallel):
    """Set the block cap, the parts and the parallel threshold; returns a function restoring them."""
    saved = (_blocked.BITMAP_BLOCK, core.parts_for, _kernels.PARALLEL_MIN_WORK)
    _blocked.BITMAP_BLOCK = block or BITMAP_BLOCK
    core.parts_for = lambda work: parts
    if parallel:
        _kernels.PARALLEL_MIN_WORK = 0

    def restore():
        _blocked.BITMAP_BLOCK, core.parts_for, _kernels.PARALLEL_MIN_WORK = saved
    return restore


def _outcome(index, ids, topics, method) -> dict:
    try:
        return {"joint": core.count_topic_documents(index, ids, topics, method=method)[0].tolist()}
    except IndexIntegrityError as exc:
        return {"error": str(exc)}
    except Exception as exc:  # reported by the test of the case, not as a crash of the whole grid
        return {"exception": f"{type(exc).__name__}: {exc}"}


def _damage_grid() -> dict:
    """Run in the child process: every case of :data:`_CASES` under every layout of :data:`_LAYOUTS`,
    counted from bitmaps and by word sets."""
    _, _, ix, words, ids = _corpus(_SEED, _N)
    topics = _rows(words, *_TOPICS)
    out = {}
    for layout, setting in _LAYOUTS.items():
        restore = _patched(*setting)
        try:
            for case, change in _CASES.items():
                damaged = _damaged(ix, "w0", change)
                assert np.array_equal(damaged.arrays["word_ptr"], ix.arrays["word_ptr"])  # untouched
                out[f"{layout}|{case}"] = {m: _outcome(damaged, ids, topics, m) for m in ("bitmaps", "sets")}
        finally:
            restore()
    return out


@pytest.fixture(scope="module")
def zipf():
    _, docs, ix, words, ids = _corpus(_SEED, _N)
    assert ix.n_documents == _N
    return docs, ix, words, ids


@pytest.fixture(scope="module")
def damage_grid():
    run = _child("""
        import json
        import test_coherence_topic_bitmaps_inputs as m
        print(json.dumps(m._damage_grid()))
    """)
    return _last_json(run)


def _expected(zipf, layout, case) -> str:
    """``"error"`` when a damaged posting lies outside the documents or before an earlier posting's block,
    ``"counts"`` otherwise (out of order within blocks, or repeated: counted as a set)."""
    _, ix, words, ids = zipf
    block, parts, _ = _LAYOUTS[layout]
    restore = _patched(block, parts, False)
    try:
        size = _blocked.topic_bitmap_block(None, 10, len(_TOPICS), 10, parts, _N)
    finally:
        restore()
    w = ix.word_id("w0")
    ptr = ix.arrays["word_ptr"]
    q = _damaged(ix, "w0", _CASES[case]).arrays["post_docs"][ptr[w]:ptr[w + 1]].astype(np.int64)
    if (q < 0).any() or (q >= _N).any():
        return "error"
    return "error" if (np.diff(q // size) < 0).any() else "counts"


def _check_damage(grid, zipf, layout, case) -> str:
    """The outcome of ``case`` under ``layout``: IndexIntegrityError where :func:`_expected` says so, else
    the recount of the damaged postings, equal to the word sets'; returns which."""
    _, ix, words, ids = zipf
    got = grid[f"{layout}|{case}"]
    assert "exception" not in got["bitmaps"], got["bitmaps"]
    expected = _expected(zipf, layout, case)
    if expected == "error":
        assert _DAMAGED in got["bitmaps"].get("error", ""), got["bitmaps"]
        return expected
    recount = _recount(_damaged(ix, "w0", _CASES[case]), ids, _rows(words, *_TOPICS)).tolist()
    assert got["bitmaps"].get("joint") == recount, got["bitmaps"]
    assert got["sets"].get("joint") == recount, got["sets"]
    return expected


@pytest.mark.parametrize("layout", _LAYOUTS)
@pytest.mark.parametrize("case", _BEFORE)
def test_topic_bitmaps_posting_before_the_first_document_refused(damage_grid, zipf, layout, case):
    assert _check_damage(damage_grid, zipf, layout, case) == "error"


@pytest.mark.parametrize("layout", _LAYOUTS)
@pytest.mark.parametrize("case", _PAST)
def test_topic_bitmaps_posting_past_the_last_document_refused(damage_grid, zipf, layout, case):
    assert _check_damage(damage_grid, zipf, layout, case) == "error"


@pytest.mark.parametrize("layout", _LAYOUTS)
@pytest.mark.parametrize("case", _REPEATED)
def test_topic_bitmaps_postings_repeated_within_a_block_counted_once(damage_grid, zipf, layout, case):
    assert _check_damage(damage_grid, zipf, layout, case) == "counts"


@pytest.mark.parametrize("layout", _LAYOUTS)
@pytest.mark.parametrize("case", _WITHIN)
def test_topic_bitmaps_postings_out_of_order_within_a_block_equal_the_word_sets(damage_grid, zipf, layout,
                                                                                   case):
    assert _check_damage(damage_grid, zipf, layout, case) == "counts"


@pytest.mark.parametrize("layout", _LAYOUTS)
@pytest.mark.parametrize("case", _ACROSS_BLOCKS)
def test_topic_bitmaps_postings_out_of_order_across_blocks_refused(damage_grid, zipf, layout, case):
    """Refused in blocks of 64 or 128; in one block of the 2,011 documents the same postings are only out of
    order within it, and counted as the word sets count them."""
    outcome = _check_damage(damage_grid, zipf, layout, case)
    assert outcome == ("counts" if layout == "one block" else "error")


@pytest.mark.parametrize("layout", _LAYOUTS)
@pytest.mark.parametrize("case", _ACROSS_PARTS)
def test_topic_bitmaps_postings_out_of_order_across_parts_refused(damage_grid, zipf, layout, case):
    outcome = _check_damage(damage_grid, zipf, layout, case)
    assert outcome == ("counts" if layout == "one block" else "error")


def test_topic_bitmaps_word_with_no_postings(monkeypatch):
    """A word of a restricted index that no document holds: zeros in its rows, in one block or many."""
    docs = [["a", "b"], ["b"], ["c", "a"], []] * 50
    ix = index_from_token_lists(docs, words=["a", "zzz", "b"])
    ids = [ix.word_id(w) for w in ("a", "zzz", "b")]
    assert np.diff(ix.arrays["word_ptr"])[ids[1]] == 0
    topics = [[0, 1, 2], [1, 1, -1], [1] * 3]
    joint = _both(ix, ids, topics)
    assert not joint[:, 1].any() and joint[0, 0, 2] == 50
    monkeypatch.setattr(_blocked, "BITMAP_BLOCK", 64)
    monkeypatch.setattr(core, "parts_for", lambda work: 3)
    assert _both(ix, ids, topics).tolist() == joint.tolist()


# -- references ----------------------------------------------------------------------------------------------
def _hand_built(n_docs: int, checked: bool = False) -> ReferenceIndex:
    """An index of ``n_docs`` empty documents and the words "a" and "b" (no postings), made from arrays."""
    base = index_from_token_lists([["a", "b"]])
    arrays = dict(base.arrays)
    arrays.update(doc_lengths=np.zeros(n_docs, np.int64), present=np.ones(n_docs, np.uint8),
                  word_ptr=np.zeros(3, np.int64), post_docs=np.zeros(0, np.int32),
                  pos_ptr=np.zeros(1, np.int64), positions=np.zeros(0, np.int32),
                  docid_blob=np.zeros(0, np.uint8), docid_offsets=np.zeros(n_docs + 1, np.int64))
    header = dict(base.header, n_documents=n_docs, n_present=n_docs, n_tokens=0)
    return ReferenceIndex(arrays, header, checked=checked)


def test_topic_bitmaps_reference_of_no_documents_made_from_arrays():
    """Made in memory from arrays, an index of no documents is refused as its file is at open (it was a
    bare ValueError from the check of the document lengths)."""
    ix = _hand_built(0)
    with pytest.raises(IndexIntegrityError, match=r"expected 1 <= n_present <= n_documents"):
        core.count_topic_documents(ix, [0, 1], [[0, 1]], method="bitmaps")


def test_topic_bitmaps_reference_of_no_documents(tmp_path):
    """Marked checked (the kernel reached): no block, zero counts; saved, its open refuses it."""
    ix = _hand_built(0, checked=True)
    for method in ("bitmaps", "sets", None):
        joint, _, n = core.count_topic_documents(ix, [0, 1], [[0, 1], [1, -1]], method=method)
        assert joint.tolist() == [[[0, 0], [0, 0]]] * 2 and n == 0
    ix.save(tmp_path / "none.tlx")
    with pytest.raises(IndexIntegrityError, match=r"expected 1 <= n_present <= n_documents"):
        ReferenceIndex.load(tmp_path / "none.tlx")


@pytest.mark.parametrize("n_docs", [1, 5, 64, 65])
def test_topic_bitmaps_reference_of_empty_documents(n_docs):
    """Documents without a token (made from arrays, checked as such): zero counts."""
    ix = _hand_built(n_docs)
    joint = _both(ix, [0, 1], [[0, 1], [1, 1], [-1, 0]])
    assert not joint.any()


def test_topic_bitmaps_reference_without_the_topic_words():
    """A restricted index whose listed words no document holds: zero counts, every document counted."""
    docs = [["x", "y"], ["y"]] * 40
    ix = index_from_token_lists(docs, words=["a", "b"])
    ids = [ix.word_id("a"), ix.word_id("b")]
    assert not _both(ix, ids, [[0, 1]]).any() and ix.n_present == 80


@pytest.mark.parametrize("n_docs", [1, 2, 63, 64, 65, 127, 128, 129, 193])
@pytest.mark.parametrize("block, parts", [(None, 1), (64, 1), (64, 2), (64, 3)])
def test_topic_bitmaps_documents_on_each_side_of_a_block_edge(n_docs, block, parts, monkeypatch):
    """Every topic word in the first and last documents and on both sides of document 64; the counts as
    recounted, in one block or blocks of 64 taken by one to three parts (some with no block)."""
    rng = np.random.default_rng(n_docs)
    vocab = [f"w{i}" for i in range(12)]
    docs = [[vocab[x] for x in rng.integers(0, 12, size=rng.integers(0, 6))] for _ in range(n_docs)]
    for d in {0, n_docs - 1, 63, 64} & set(range(n_docs)):
        docs[d] = vocab if d % 2 else vocab[::-1]
    ix = index_from_token_lists(docs)
    words = sorted(ix.vocabulary)
    ids = [ix.word_id(w) for w in words]
    topics = np.array([rng.permutation(12) for _ in range(4)] + [[0, 1, -1, 1] * 3])
    if block:
        monkeypatch.setattr(_blocked, "BITMAP_BLOCK", block)
    monkeypatch.setattr(core, "parts_for", lambda work: parts)
    joint = _both(ix, ids, topics)
    assert (joint[:4, np.arange(12), np.arange(12)] >= min(n_docs, 2)).all()


@pytest.fixture(scope="module", params=[BITMAP_BLOCK, BITMAP_BLOCK + 1], ids=["a block", "a block and one"])
def block_reference(request):
    """``2**20`` (one full block) or ``2**20 + 1`` documents (two), words a, b, c in documents on the edge."""
    n = request.param
    rng = np.random.default_rng(n)
    shapes = [["a", "b"], ["a"], ["b", "c"], ["c"], []]
    docs = [shapes[i] for i in rng.integers(0, len(shapes), n)]
    for d in (0, BITMAP_BLOCK // 2 - 1, BITMAP_BLOCK // 2, BITMAP_BLOCK - 1, n - 1):
        docs[d] = ["a", "b", "c"]
    ix = index_from_token_lists(docs)
    return ix, [ix.word_id(w) for w in "abc"]


@pytest.mark.parametrize("parts, parallel", [(1, False), (2, False), (2, True)])
def test_topic_bitmaps_reference_of_a_block_and_one_more(block_reference, parts, parallel, monkeypatch):
    ix, ids = block_reference
    monkeypatch.setattr(core, "parts_for", lambda work: parts)
    if parallel:
        monkeypatch.setattr(_kernels, "PARALLEL_MIN_WORK", 0)
    topics = [[0, 1, 2], [2, -1, 0], [1, 1, 1]]
    block = _blocked.topic_bitmap_block(None, 3, 3, 3, parts, ix.n_documents)
    assert block <= BITMAP_BLOCK and block % 64 == 0
    _both(ix, ids, topics)


@pytest.mark.parametrize("n_docs, block", [(2011, None), (2011, 64), (4096, 64), (70, 64)])
def test_topic_bitmaps_word_in_every_document(n_docs, block, monkeypatch):
    """Two words in every document (the last 64-document word of a block full or partial): every pair n."""
    docs = [["all", "every"] + (["odd"] if d % 2 else []) for d in range(n_docs)]
    ix = index_from_token_lists(docs)
    ids = [ix.word_id(w) for w in ("all", "every", "odd")]
    if block:
        monkeypatch.setattr(_blocked, "BITMAP_BLOCK", block)
        monkeypatch.setattr(core, "parts_for", lambda work: 2)
    joint = _both(ix, ids, [[0, 1, 2], [1, 0, -1]])
    assert joint[0].tolist() == [[n_docs, n_docs, n_docs // 2], [n_docs, n_docs, n_docs // 2],
                                 [n_docs // 2] * 3]


# -- topics --------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small():
    _, docs, ix, words, ids = _corpus(8, 300, 14, 6)
    return docs, ix, words, ids


@pytest.mark.parametrize("topics, shape", [([], (0, 1, 1)), (np.zeros((0, 3), np.int64), (0, 3, 3)),
                                           (np.zeros((0, 12), np.int64), (0, 12, 12)), ([[]], (1, 0, 0))],
                         ids=["empty list", "shape (0, 3)", "shape (0, 12)", "a topic of no positions"])
@pytest.mark.parametrize("method", ["bitmaps", None])
def test_topic_bitmaps_no_topics_or_no_positions(small, topics, shape, method):
    _, ix, _, ids = small
    joint, sets, n = core.count_topic_documents(ix, ids, topics, method=method)
    assert joint.shape == shape and not joint.any() and sets is None and n == ix.n_present


def test_topic_bitmaps_topics_of_absent_words(small):
    _, ix, _, ids = small
    assert not _both(ix, ids, [[-1, -1, -1]]).any()
    assert not _both(ix, ids, np.full((3, 12), -1)).any()


def test_topic_bitmaps_topics_of_one_word(small):
    _, ix, _, ids = small
    joint = _both(ix, ids, [[w] for w in range(len(ids))])
    assert joint[:, 0, 0].tolist() == np.diff(ix.arrays["word_ptr"])[ids].tolist()
    assert core.count_topic_documents(ix, ids, list(range(len(ids))), method="bitmaps")[0].tolist() \
        == joint.tolist()  # a 1-D array: one word per topic
    assert core.count_topic_documents(ix, ids, 3, method="bitmaps")[0].tolist() == joint[3:4].tolist()


def test_topic_bitmaps_topics_of_twelve_words(small):
    _, ix, _, ids = small
    rng = np.random.default_rng(2)
    topics = np.array([rng.choice(len(ids), size=TOPIC_MAX_WORDS, replace=False) for _ in range(5)]
                      + [[0, 1, 2, 3, -1, 5, 6, 7, 8, 9, 10, -1], [13, 0, 13, 0, 1, 1, 2, 2, -1, -1, 3, 3]])
    _both(ix, ids, topics)


def test_topic_bitmaps_topic_of_thirteen_words_refused(small):
    _, ix, _, ids = small
    with pytest.raises(SettingsError, match=r"at most 12 words per topic, got 13 \(count the pairs with "
                                            r"count_documents\)"):
        core.count_topic_documents(ix, ids, [list(range(13))], method="bitmaps")


def test_topic_bitmaps_word_repeated_in_a_topic(small):
    """A word twice: its pair is its documents; three times with an absent word between."""
    _, ix, _, ids = small
    joint = _both(ix, ids, [[0, 0, 1], [2, 2, 2], [3, -1, 3], [4, 5, 4]])
    assert joint[0, 0, 1] == joint[0, 0, 0] and (joint[1] == joint[1, 0, 0]).all()
    assert joint[3, 0, 2] == joint[3, 0, 0] and joint[3, 1, 2] == joint[3, 0, 1]


def test_topic_bitmaps_word_listed_twice_in_word_ids(small):
    """The same id at two positions of word_ids: two rows of bitmaps of one word, the counts the same."""
    _, ix, _, ids = small
    twice = ids + [ids[0], ids[3]]
    n = len(ids)
    joint = _both(ix, twice, [[0, n, 3, n + 1], [n, n, 0, -1]])
    assert joint[0, 0, 1] == joint[0, 0, 0] and joint[0, 2, 3] == joint[0, 2, 2]


def test_topic_bitmaps_whole_float_and_narrow_integer_topics(small):
    """Whole numbers of any numeric dtype are positions (as documented): the int64 counts."""
    _, ix, _, ids = small
    topics = [[0, 1, 2, -1], [3, 4, 5, 6]]
    expected = _both(ix, ids, topics)
    for arr in (np.array(topics, np.float64), np.array(topics, np.int8), np.array(topics, np.float32)):
        assert core.count_topic_documents(ix, ids, arr, method="bitmaps")[0].tolist() == expected.tolist()


@pytest.mark.parametrize("topics", [
    [[0, 99]], [[0, -2]], [[2**40, 0]], [[0.5, 1]], [[True, False]], [[np.nan, 1]], [[np.inf, 1]],
    [["a", "b"]], [[0, 1], [2]], [[None, 1]], [[0, 10**30]], np.array([[2**64 - 1, 0]], dtype=np.uint64)],
    ids=["past the words", "below -1", "2**40", "fraction", "booleans", "NaN", "infinity", "strings",
         "ragged", "None", "past int64", "uint64 max"])
def test_topic_bitmaps_malformed_topic_positions_refused(small, topics):
    _, ix, _, ids = small
    with pytest.raises(SettingsError, match="topic positions"):
        core.count_topic_documents(ix, ids, topics, method="bitmaps")


@pytest.mark.parametrize("parts", [1, 2])
def test_topic_bitmaps_two_hundred_thousand_topics_of_two_words(small, parts, monkeypatch):
    """Memory of the order of the counts (each part has its own, summed in place, then copied out so the
    result holds one), the recount's counts, in well under a second."""
    _, ix, _, ids = small
    monkeypatch.setattr(core, "parts_for", lambda work: parts)
    rng = np.random.default_rng(4)
    topics = rng.integers(-1, len(ids), size=(200_000, 2))
    core.count_topic_documents(ix, ids, topics[:2], method="bitmaps")  # compiled before it is timed
    tracemalloc.start()
    start = time.perf_counter()
    try:
        joint = core.count_topic_documents(ix, ids, topics, method="bitmaps")[0]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - start < 10
    assert peak < (parts + 5) * joint.nbytes + (1 << 20), (peak, joint.nbytes)
    assert joint.base is None or joint.base.nbytes == joint.nbytes  # no other part's counts kept alive
    assert joint.tolist() == _recount(ix, ids, topics).tolist()
    assert np.array_equal(core.count_topic_documents(ix, ids, topics)[0], joint)  # the default's choice


# -- method --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["bitmap", "BITMAPS", " bitmaps", "bitmaps\n", "sets ", "", 0, 1.0,
                                    True, float("nan"), b"bitmaps", ["bitmaps"], ("bitmaps",),
                                    np.array(["bitmaps"]), {"bitmaps": 1}, str],
                         ids=["singular", "capitals", "leading space", "newline", "sets space", "empty",
                              "zero", "float", "True", "NaN", "bytes", "list", "tuple", "array", "dict",
                              "type"])
def test_topic_bitmaps_method_spellings_refused(small, method):
    _, ix, _, ids = small
    with pytest.raises(ParameterError, match="method must be one of sets, bitmaps"):
        core.count_topic_documents(ix, ids, [[0, 1]], method=method)


@pytest.mark.parametrize("method", [None, "bitmaps", np.str_("bitmaps"), "sets"])
def test_topic_bitmaps_method_accepted(small, method):
    _, ix, _, ids = small
    topics = [[0, 1, 2], [3, -1, 3]]
    assert core.count_topic_documents(ix, ids, topics, method=method)[0].tolist() \
        == _recount(ix, ids, topics).tolist()


@pytest.mark.parametrize("subsets", [True, np.True_])
def test_topic_bitmaps_with_subsets_refused(small, subsets):
    _, ix, _, ids = small
    with pytest.raises(SettingsError, match=r"method='bitmaps' counts pairs of words only.*\(leave method "
                                            r"unset, or use method='sets'\)"):
        core.count_topic_documents(ix, ids, [[0, 1]], subsets=subsets, method="bitmaps")
    joint, sets, _ = core.count_topic_documents(ix, ids, [[0, 1]], subsets=subsets)  # unset: the word sets
    assert sets is not None and joint.tolist() == _recount(ix, ids, [[0, 1]]).tolist()


@pytest.mark.parametrize("subsets", [np.array([True, False]), 1, "False", None, 1.0])
def test_topic_bitmaps_subsets_not_a_flag_refused(small, subsets):
    """``subsets`` must be a boolean: an array was ambiguous, and ``"False"`` read as true."""
    _, ix, _, ids = small
    for method in ("bitmaps", None):
        with pytest.raises(ParameterError, match="subsets must be True or False"):
            core.count_topic_documents(ix, ids, [[0, 1]], subsets=subsets, method=method)


# -- memory --------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def many_topics():
    """400 topics of 10 of 30 words over 20,000 documents: the bitmaps' pair counts (320 KB a part) do not
    fit 100 KiB, the word sets' tables do."""
    rng, _, ix, words, ids = _corpus(6, 20_000)
    return ix, ids, np.array([rng.choice(len(words), size=10, replace=False) for _ in range(400)])


def test_topic_bitmaps_memory_minimum_named_is_the_minimum(many_topics, monkeypatch):
    """Forced under a small budget: the ParameterError names the bytes needed; exactly those count from
    bitmaps (the word sets' counts), one byte less is refused again, and by default falls back to the
    word sets (no bitmap kernel), with the same counts."""
    ix, ids, topics = many_topics
    with pytest.raises(ParameterError, match=r"memory 100 KiB is below the .* that counting the pairs of 400 "
                                             r"topics from bitmaps of 30 words needs \(give at least \d+K\)"
                       ) as exc:
        core.count_topic_documents(ix, ids, topics, memory=100 << 10, method="bitmaps")
    need = int(re.search(r"\(([\d,]+) bytes\)", str(exc.value)).group(1).replace(",", ""))
    at_least = int(re.search(r"give at least (\d+)K", str(exc.value)).group(1))
    assert (at_least - 1) << 10 < need <= at_least << 10
    expected = core.count_topic_documents(ix, ids, topics, method="sets")[0]
    assert np.array_equal(core.count_topic_documents(ix, ids, topics, memory=need, method="bitmaps")[0],
                          expected)
    assert np.array_equal(core.count_topic_documents(ix, ids, topics, memory=f"{at_least}K",
                                                     method="bitmaps")[0], expected)
    with pytest.raises(ParameterError, match="from bitmaps of 30 words needs"):
        core.count_topic_documents(ix, ids, topics, memory=need - 1, method="bitmaps")
    monkeypatch.setattr(core, "_bitmaps_cheaper", lambda *args: True)
    called = []
    real = core._topic_bitmap_kernel
    monkeypatch.setattr(core, "_topic_bitmap_kernel", lambda *a: called.append(a[6]) or real(*a))
    assert np.array_equal(core.count_topic_documents(ix, ids, topics, memory=need - 1)[0], expected)
    assert not called
    assert np.array_equal(core.count_topic_documents(ix, ids, topics, memory=need)[0], expected)
    assert called and called[0] >= _blocked.MIN_BITMAP_BLOCK


def test_topic_bitmaps_memory_sets_the_block(many_topics, monkeypatch):
    """Ten topics (the bitmaps, not the pair counts, fill the budget): budgets between the full blocks and
    the minimum give smaller and smaller blocks, the same counts; below the minimum, refused."""
    ix, ids, topics = many_topics
    topics = topics[:10]
    called = []
    real = core._topic_bitmap_kernel
    monkeypatch.setattr(core, "_topic_bitmap_kernel", lambda *a: called.append(a[6]) or real(*a))
    expected = core.count_topic_documents(ix, ids, topics, method="sets")[0]
    for memory in (None, "60K", "30K"):
        assert np.array_equal(core.count_topic_documents(ix, ids, topics, memory=memory, method="bitmaps")[0],
                              expected)
    assert called == sorted(set(called), reverse=True) and len(called) == 3, called
    assert called[-1] >= _blocked.MIN_BITMAP_BLOCK
    with pytest.raises(ParameterError, match="that counting the pairs of 10 topics from bitmaps of"):
        core.count_topic_documents(ix, ids, topics, memory="20K", method="bitmaps")


@pytest.mark.parametrize("memory, message", [
    (1023, "memory must be a whole number >= 1024, got 1023"),
    (-1, "memory must be a whole number >= 1024, got -1"),
    (0, "memory must be a whole number >= 1024, got 0"),
    (float("nan"), "memory must be a whole number >= 1024, got nan"),
    (2048.0, "memory must be a whole number >= 1024, got 2048.0"),
    (True, "memory must be a whole number >= 1024, got True"),
    (b"1K", "memory must be a whole number >= 1024, got b'1K'"),
    ("0", "memory '0' is below the smallest budget (1 KiB)"),
    ("-5", "memory '-5' is below the smallest budget"),
    ("abc", "memory 'abc' is not a size"),
    ("inf", "memory 'inf' is not a size"),
    ("10**9", "memory '10**9' is not a size"),
    (1024, "memory 1 KiB is below the 1.41 KiB (1,440 bytes) that counting the pairs of 1 topic from "
           "bitmaps of 10 words needs (give at least 2K)"),
    ("1K", "memory 1 KiB is below the 1.41 KiB (1,440 bytes)"),
])
def test_topic_bitmaps_memory_spellings_refused(small, memory, message):
    """The smallest budget (1 KiB) is below what bitmaps of 10 words over 320 documents need: forced, the
    minimum is named."""
    _, ix, _, ids = small
    with pytest.raises(ParameterError, match=re.escape(message)):
        core.count_topic_documents(ix, ids, [list(range(10))], memory=memory, method="bitmaps")


@pytest.mark.parametrize("memory", ["2.5K", "3K", "1e6", np.int64(4096), 2**70, "1G"])
def test_topic_bitmaps_memory_accepted(small, memory):
    """From 2.5 KiB (the bitmaps of 12 words over 320 documents and the counts of two topics: 2,368 bytes,
    below the word sets' 8.2 KiB) up: the recount."""
    _, ix, _, ids = small
    topics = [list(range(10)), [13, 12, -1, 0, 0, 1, 2, 3, 4, 5]]
    joint = core.count_topic_documents(ix, ids, topics, memory=memory, method="bitmaps")[0]
    assert joint.tolist() == _recount(ix, ids, topics).tolist()


# -- threads -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("damage", [None, "reversed"])
def test_topic_bitmaps_one_and_two_numba_threads(zipf, damage, monkeypatch):
    """The parallel kernel (parts: numba's threads) on one thread and on two, blocks of 64: the same counts,
    or on a damaged index the same refusal."""
    import numba

    _, ix, words, ids = zipf
    monkeypatch.setattr(_kernels, "PARALLEL_MIN_WORK", 0)
    monkeypatch.setattr(_blocked, "BITMAP_BLOCK", 64)
    index = ix if damage is None else _damaged(ix, "w0", _CASES[damage])
    topics = _rows(words, *_TOPICS)
    outcomes = []
    before = numba.get_num_threads()
    try:
        for n in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(n)
            assert core.parts_for(0) == n
            try:
                outcomes.append(core.count_topic_documents(index, ids, topics, method="bitmaps")[0].tolist())
            except IndexIntegrityError as exc:
                outcomes.append(str(exc))
    finally:
        numba.set_num_threads(before)
    assert outcomes[0] == outcomes[1]
    if damage is None:
        assert outcomes[0] == _recount(ix, ids, topics).tolist()
    else:
        assert _DAMAGED in outcomes[0]


_THREADS = """
    import json, threading
    import numpy as np
    from tealeaves.coherence import _blocked, _kernels, core
    from test_coherence_topic_bitmaps import _corpus
    _kernels.PARALLEL_MIN_WORK = 0  # each call the parallel kernel
    _blocked.BITMAP_BLOCK = 256
    rng, _, ix, words, ids = _corpus(5, 5000, 25, 20)
    topics = np.array([rng.choice(len(ids), size=10, replace=False) for _ in range(20)])
    first = core.count_topic_documents(ix, ids, topics, method="bitmaps")[0]
    start = threading.Barrier(2)
    same = []

    def run():
        start.wait()
        for _ in range({rounds}):
            joint = core.count_topic_documents(ix, ids, topics, method="bitmaps")[0]
            same.append(np.array_equal(joint, first))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps({{"first": first.tolist(), "topics": topics.tolist(), "same": same}}))
"""


def test_topic_bitmaps_two_threads_at_once():
    """Two Python threads counting from bitmaps on one index at the same time (numba's default threading
    layer): every count that of one call alone, equal to the recount."""
    out = _last_json(_child(_THREADS.format(rounds=30)))
    assert len(out["same"]) == 60 and all(out["same"])
    _, _, ix, _, ids = _corpus(5, 5000, 25, 20)
    assert out["first"] == _recount(ix, ids, out["topics"]).tolist()


def test_topic_bitmaps_two_threads_at_once_on_the_workqueue_layer():
    """numba's workqueue layer (its fallback where neither OpenMP nor TBB loads) aborted the process when
    two Python threads ran a parallel kernel at once; they now take turns (_compiled.parallel_turn)."""
    run = _child(_THREADS.format(rounds=200), NUMBA_THREADING_LAYER="workqueue")
    assert run.returncode == 0, (run.returncode, run.stderr[-600:])
    out = _last_json(run)
    assert len(out["same"]) == 400 and all(out["same"])


def test_topic_bitmaps_two_processes_counting_one_index_file(tmp_path):
    """Two processes count the same index file from bitmaps (blocks of 64 in three parts) at the same moment:
    identical counts, the recount's."""
    _, _, ix, words, ids = _corpus(11, 3000, 40, 12)
    path = tmp_path / "ref.tlx"
    ix.save(path)
    rng = np.random.default_rng(12)
    topics = np.array([rng.choice(len(words), size=10, replace=False) for _ in range(300)])
    np.save(tmp_path / "topics.npy", topics)
    script = textwrap.dedent(f"""
        import hashlib, os, time
        import numpy as np
        from tealeaves.coherence import _blocked, core
        from tealeaves.index import ReferenceIndex
        _blocked.BITMAP_BLOCK = 64
        core.parts_for = lambda work: 3
        ix = ReferenceIndex.load({str(path)!r})
        ids = [ix.word_id(w) for w in sorted(ix.vocabulary)]
        topics = np.load({str(tmp_path / "topics.npy")!r})
        core.count_topic_documents(ix, ids, topics[:1], method="bitmaps")
        open(os.environ["READY"], "w").close()
        while not os.path.exists({str(tmp_path / "go")!r}):
            time.sleep(0.005)
        joint = core.count_topic_documents(ix, ids, topics, method="bitmaps")[0]
        print(hashlib.sha256(joint.astype("<i8").tobytes()).hexdigest(), flush=True)
    """)
    out = _at_once(script, tmp_path)
    loaded = ReferenceIndex.load(path)
    ids = [loaded.word_id(w) for w in sorted(loaded.vocabulary)]
    expected = _recount(loaded, ids, topics).astype("<i8")
    assert out.split() == [hashlib.sha256(expected.tobytes()).hexdigest()]


# -- an index file changed on disk ---------------------------------------------------------------------------
_CHANGED = """
    import json, os
    import numpy as np
    from tealeaves.coherence import core
    from tealeaves.errors import IndexIntegrityError
    from tealeaves.index import ReferenceIndex
    from tealeaves.index.format import PREFIX
    from test_coherence_topic_bitmaps import _corpus
    _, _, source, _, _ = _corpus(3, 3000)
    path = {path!r}

    def region(name):
        with open(path, "rb") as fh:
            hlen = PREFIX.unpack(fh.read(PREFIX.size))[3]
            spec = [s for s in json.loads(fh.read(hlen))["arrays"] if s["name"] == name][0]
        return spec["offset"], int(np.prod(spec["shape"])) * np.dtype(spec["dtype"]).itemsize

    out = []
    for name, fill, keep_times in {cases!r}:
        source.save(path)
        ix = ReferenceIndex.load(path)
        ids = [ix.word_id(w) for w in sorted(ix.vocabulary)]
        before = core.count_topic_documents(ix, ids, [list(range(10))], method="bitmaps")[0]
        offset, size = region(name)
        stat = os.stat(path)
        with open(path, "r+b") as fh:
            fh.seek(offset)
            fh.write(bytes([fill]) * size)
        if keep_times:
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        got = {{}}
        try:
            after = core.count_topic_documents(ix, ids, [list(range(10))], method="bitmaps")[0]
            got["count"] = "same" if np.array_equal(after, before) else "different"
        except IndexIntegrityError as exc:
            got["count"] = str(exc)
        try:
            ReferenceIndex.load(path)
            got["reopen"] = "opened"
        except IndexIntegrityError as exc:
            got["reopen"] = str(exc)
        out.append(got)
    print(json.dumps(out))
"""


def test_topic_bitmaps_index_file_changed_on_disk_refused(tmp_path):
    """An index saved, opened, then its postings (or word pointers) overwritten in place, even with its
    modification time put back: the next count refuses it (no crash, no counts of the new bytes), and so
    does opening it again."""
    cases = [("post_docs", 0xFF, False), ("post_docs", 0x7F, True), ("post_docs", 0x00, True),
             ("word_ptr", 0x7F, False), ("word_ptr", 0x00, True)]
    out = _last_json(_child(_CHANGED.format(path=str(tmp_path / "ref.tlx"), cases=cases)))
    assert len(out) == len(cases)
    for case, got in zip(cases, out):
        assert "changed on disk since it was opened" in got["count"], (case, got)
        assert got["reopen"] != "opened", (case, got)


def test_topic_bitmaps_index_file_replaced_or_removed_counts_the_file_opened(tmp_path):
    """A file renamed over the index, or the index removed, after its open: the maps keep the file opened,
    whose counts these are."""
    _, _, source, words, _ = _corpus(3, 3000)
    path = tmp_path / "ref.tlx"
    source.save(path)
    ix = ReferenceIndex.load(path)
    ids = [ix.word_id(w) for w in words]
    topics = [list(range(10))]
    expected = _recount(source, [source.word_id(w) for w in words], topics)
    index_from_token_lists([["w0", "w1"]] * 5 + [["w2"]]).save(tmp_path / "other.tlx")
    os.replace(tmp_path / "other.tlx", path)
    assert core.count_topic_documents(ix, ids, topics, method="bitmaps")[0].tolist() == expected.tolist()
    path.unlink()
    assert core.count_topic_documents(ix, ids, topics, method="bitmaps")[0].tolist() == expected.tolist()


# -- the command ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def frequent(tmp_path_factory):
    """240,000 documents holding each of 14 words with probability 0.95 down to 0.6 (2.1 M postings a topic
    of 10: past the floor of topic-major counts), saved; a file of 3 topics (one with a word the reference
    lacks) and one of 50 (past the 6x repeat bound, still topic by topic from bitmaps)."""
    root = tmp_path_factory.mktemp("frequent")
    rng = np.random.default_rng(0)
    vocab = np.array([f"w{i}" for i in range(14)])
    has = rng.random((240_000, 14)) < np.linspace(0.95, 0.6, 14)
    index_from_token_lists([vocab[row].tolist() for row in has]).save(root / "ref.tlx")
    few = [vocab[:10].tolist(), vocab[4:].tolist(), ["w0", "w13", "zzz", "w5"]]
    many = [rng.choice(vocab, size=10, replace=False).tolist() for _ in range(50)]
    for name, topics in (("few", few), ("many", many)):
        (root / f"{name}.txt").write_text("".join(" ".join(t) + "\n" for t in topics), encoding="utf-8")
    return root, ReferenceIndex.load(root / "ref.tlx"), {"few": few, "many": many}


def test_topic_bitmaps_chosen_by_the_estimates_for_frequent_words(frequent):
    from tealeaves.coherence.measure import _word_table

    _, ix, topics = frequent
    loc, uniq = _word_table(ix, topics["few"])
    assert core.topic_major_cheaper(ix, uniq, loc)
    ptr = ix.arrays["word_ptr"]
    sizes = np.diff(ptr)[uniq]
    present = loc[loc >= 0]
    assert core._bitmaps_cheaper(int(sizes[present].sum()), int(sizes.sum()), len(uniq),
                                 core._present_pairs(loc), ix.n_documents)
    loc, uniq = _word_table(ix, topics["many"])
    sizes = np.diff(ptr)[uniq]
    assert int(sizes[loc[loc >= 0]].sum()) > core.TOPIC_MAJOR_MAX_REPEAT * int(sizes.sum())
    assert core.topic_major_cheaper(ix, uniq, loc)  # past the repeat bound: from bitmaps
    assert not core.topic_major_cheaper(ix, uniq, loc, memory="90K")


@pytest.mark.parametrize("topics, memory, counted", [
    ("few", None, "bitmaps"), ("few", "200K", "bitmaps"), ("few", "40K", "pairs"),
    ("many", None, "bitmaps"), ("many", "90K", "pairs")],
    ids=["few", "few 200K", "few 40K", "many", "many 90K"])
def test_topic_bitmaps_cli_scores_equal_word_sets_and_pair_kernels(frequent, monkeypatch, topics, memory,
                                                                    counted):
    """``tealeaves coherence --measure npmi`` in a process of its own: the scores the Python API gives by the
    same choice (seen here: bitmaps in full blocks, in smaller blocks under 200K, or the pair kernels where
    the word sets' tables (40K) or the bitmaps past the repeat bound (90K) do not fit), equal to those by
    word sets and by the pair kernels."""
    from tealeaves.coherence import coherence

    root, ix, files = frequent
    argv = ["coherence", "--reference", root / "ref.tlx", "--topics", root / f"{topics}.txt", "--measure",
            "npmi", "--format", "json", *(["--memory", memory] if memory else [])]
    run = run_cli_subprocess(argv)
    assert run.code == 0, run.err
    assert all(line.startswith("tealeaves: warning: ") for line in run.err.splitlines()), run.err
    assert "Traceback" not in run.err
    cli = [t["score"] for t in json.loads(run.out)["topics"]]
    assert all(s is not None and np.isfinite(s) for s in cli)
    used = []
    for name in ("_topic_bitmap_kernel", "_topic_document_kernel"):
        real = getattr(core, name)
        monkeypatch.setattr(core, name, lambda *a, _r=real, _n=name: used.append((_n, a[6])) or _r(*a))
    real_pairs = core.count_documents
    monkeypatch.setattr(core, "count_documents",
                        lambda *a, **k: used.append(("pairs", 0)) or real_pairs(*a, **k))
    scores = coherence(files[topics], ix, measure="npmi", window="doc", memory=memory).scores
    assert scores == cli
    if counted == "pairs":
        assert [u[0] for u in used] == ["pairs"]
    else:
        assert [u[0] for u in used] == ["_topic_bitmap_kernel"]
        full = _blocked.topic_bitmap_block(None, 14, len(files[topics]), 10, _kernels.parts_for(10**9),
                                           ix.n_documents)
        assert (used[0][1] == full) == (memory is None), (used, full)
    with monkeypatch.context() as patch:
        patch.setattr(core, "_bitmaps_cheaper", lambda *args: False)
        patch.setattr(core, "topic_major_cheaper", lambda *args: True)
        assert coherence(files[topics], ix, measure="npmi", window="doc").scores == cli  # word sets
    with monkeypatch.context() as patch:
        patch.setattr(core, "topic_major_cheaper", lambda *args: False)
        assert coherence(files[topics], ix, measure="npmi", window="doc").scores == cli  # pair kernels


@pytest.mark.parametrize("memory, fragment", [
    ("1K", "that counting 14 words and 91 pairs needs with one document per block"),
    ("0", "--memory '0' is below the smallest budget (1 KiB)"), ("abc", "--memory 'abc' is not a size"),
    ("-5", "--memory '-5' is below the smallest budget")])
def test_topic_bitmaps_cli_memory_refused(frequent, cli_error, memory, fragment):
    root, _, _ = frequent
    cli_error(["coherence", "--reference", root / "ref.tlx", "--topics", root / "many.txt", "--measure",
               "npmi", "--memory", memory], fragment)
