"""Odd inputs of the topic-by-topic window counts (``core.count_topic_windows``, the compiled
``_kernels_topics._topic_window_kernel`` behind it, ``core.count_subsets(window=...)`` and the word-set
measures of sliding windows, e.g. ``coherence(..., window=10, segmentation="one-set")``).

Topic arrays (empty, no columns, 12 and 13 columns, floats, booleans, NaN, text, ragged, -1 everywhere,
repeated words, positions past ``word_ids``); word ids (none, out of range, fractions, repeated); windows
(0, negative, fractions, booleans, text, None, 10**9, 2**31, 2**63); ``compat`` unknown; budgets at and
around the named minimum, spellings, huge; references with empty documents, one-token documents, one
document of 100,000 tokens, a word without postings, documents on a kernel block's edge; postings damaged
after the index was built; the ``tealeaves coherence`` command; two processes counting one index file.

Every count returned is recounted independently: :func:`_enumerated` enumerates the windows of the token
lists (exact: ``max(1, n - w + 1)`` windows ``d[s:s + w]`` a document; jhlau: ``t = 1 .. n + w - 1`` holding
``d[max(0, t - w):min(t, n)]``), :func:`_swept` counts the same windows as runs of window starts (for
windows too many to enumerate, and for the postings of a damaged index), and the pair counts are compared
with ``core.count_windows``.
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

import numpy as np
import pytest
from test_coherence_topic_major_inputs import _at_once

from conftest import REPO
from tealeaves.coherence import core
from tealeaves.coherence._kernels_topics import TOPIC_WINDOW_BLOCK
from tealeaves.errors import ParameterError, SettingsError
from tealeaves.index import ReferenceIndex, index_from_token_lists

_VOCAB = [f"w{i}" for i in range(14)]


# -- independent recounts ------------------------------------------------------------------------------------
def _exact_windows(docs, w):
    """Every exact window as a set: ``n - w + 1`` per document, a shorter one whole."""
    return [set(d) if len(d) <= w else set(d[s:s + w]) for d in docs for s in range(max(1, len(d) - w + 1))]


def _jhlau_windows(docs, w):
    """jhlau's windows: ``t = 1 .. n + w - 1`` holds tokens ``[max(0, t - w), min(t, n))``."""
    return [set(d[max(0, t - w):min(t, len(d))]) for d in docs for t in range(1, len(d) + w)]


_WINDOWS = {"exact": _exact_windows, "jhlau": _jhlau_windows}


def _from_masks(hist, k, n_units):
    """``(joint, sets)`` of one topic from its windows by exact set of words (``hist``: mask -> count)."""
    joint = np.zeros((k, k), dtype=np.int64)
    sets = np.zeros(1 << k, dtype=np.int64)
    for m, c in hist.items():
        if not m:
            continue
        held = [i for i in range(k) if m >> i & 1]
        for a in held:
            for b in held:
                joint[a, b] += c
        for sub in range(1, 1 << k):
            if sub & m == sub:
                sets[sub] += c
    sets[0] = n_units
    return joint, sets


def _enumerated(docs, words, topics, w, compat="exact"):
    """``(joint, sets, n_units)`` by enumerating every window of the token lists ``docs``."""
    windows = _WINDOWS[compat](docs, w)
    loc = np.asarray(topics, dtype=np.int64).reshape(len(topics), -1)
    t_, k = loc.shape
    joint = np.zeros((t_, k, k), dtype=np.int64)
    sets = np.zeros((t_, 1 << k), dtype=np.int64)
    for t, row in enumerate(loc):
        hist = {}
        for win in windows:
            m = sum(1 << i for i, x in enumerate(row) if x >= 0 and words[x] in win)
            hist[m] = hist.get(m, 0) + 1
        joint[t], sets[t] = _from_masks(hist, k, len(windows))
    return joint, sets, len(windows)


def _runs(occurrences, n, w, compat):
    """The windows holding a word of ``occurrences`` (positions) in a document of ``n`` tokens, as
    inclusive runs of window indices, and the document's number of windows."""
    if compat == "jhlau":  # window t (1 .. n + w - 1) holds position p when p + 1 <= t <= p + w
        return [(p + 1, p + w) for p in occurrences], n + w - 1
    if n <= w:
        return ([(0, 0)] if occurrences else []), 1
    last = n - w
    runs = [(max(0, p - w + 1), min(p, last)) for p in occurrences]
    return [(lo, hi) for lo, hi in runs if lo <= hi], last + 1


def _swept(doc_words, lengths, topics, w, compat="exact"):
    """``(joint, sets, n_units)`` of ``topics`` (rows of words, None: no word) over documents given as
    ``doc_words[d]`` (word -> positions) of ``lengths[d]`` tokens: each document's windows cut into runs at
    every edge of its words' windows (a sweep of plain Python, for windows too many to enumerate)."""
    k = len(topics[0]) if topics else 0
    hists = [{} for _ in topics]
    n_units = 0
    for held, n in zip(doc_words, lengths):
        total = _runs([0], n, w, compat)[1]
        n_units += total
        for t, row in enumerate(topics):
            events = []
            for i, x in enumerate(row):
                if x is not None and held.get(x):
                    for lo, hi in _runs(sorted(held[x]), n, w, compat)[0]:
                        events += [(lo, i, 1), (hi + 1, i, -1)]
            events.sort()
            inside = [0] * k
            covered, prev, hist = 0, None, hists[t]
            for pos, i, step in events:
                m = sum(1 << j for j in range(k) if inside[j])
                if prev is not None and m and pos > prev:
                    hist[m] = hist.get(m, 0) + pos - prev
                    covered += pos - prev
                inside[i] += step
                prev = pos
            hist[0] = hist.get(0, 0) + total - covered
    out = [_from_masks(h, k, n_units) for h in hists]
    joint = np.array([o[0] for o in out], dtype=np.int64).reshape(len(topics), k, k)
    sets = np.array([o[1] for o in out], dtype=np.int64).reshape(len(topics), 1 << k)
    return joint, sets, n_units


def _docs_as_positions(docs):
    return [{x: [p for p, y in enumerate(d) if y == x] for x in set(d)} for d in docs], [len(d) for d in docs]


def _by_postings(index, word_ids, topics, w, compat="exact"):
    """``count_topic_windows``'s answer recounted from ``index``'s postings in plain Python: each document
    named by a posting holds the posting's positions (postings repeated in one document: their positions
    together), in a document of ``doc_lengths`` tokens."""
    ptr, post, pos_ptr, positions = (index.arrays[a]
                                     for a in ("word_ptr", "post_docs", "pos_ptr", "positions"))
    n = index.n_documents
    doc_words = [{} for _ in range(n)]
    for wid in set(int(x) for x in np.asarray(word_ids).reshape(-1)):
        for g in range(int(ptr[wid]), int(ptr[wid + 1])):
            held = doc_words[int(post[g])].setdefault(wid, set())
            held.update(positions[pos_ptr[g]:pos_ptr[g + 1]].tolist())
    ids = [int(x) for x in np.asarray(word_ids).reshape(-1)]
    loc = np.asarray(topics, dtype=np.int64).reshape(len(topics), -1)
    rows = [[ids[i] if i >= 0 else None for i in row] for row in loc]
    present = index.arrays["present"].astype(bool)
    lengths = index.doc_lengths.astype(np.int64).tolist()
    keep = [d for d in range(n) if present[d]]
    return _swept([doc_words[d] for d in keep], [lengths[d] for d in keep], rows, w, compat)


def _index(docs):
    ix = index_from_token_lists(docs)
    words = sorted(ix.vocabulary)
    return ix, words, [ix.word_id(x) for x in words]


def _random_docs(n, seed, vocab=_VOCAB, most=25):
    rng = np.random.default_rng(seed)
    return [[vocab[x] for x in rng.integers(0, len(vocab), size=rng.integers(0, most))] for _ in range(n)]


def _check(ix, docs, words, ids, topics, w, compat="exact", **kw):
    """Counts of ``topics`` equal to enumeration of the windows; returns them."""
    joint, sets, n_units = core.count_topic_windows(ix, ids, topics, w, compat, **kw)
    ej, es, en = _enumerated(docs, words, topics, w, compat)
    assert n_units == en
    assert joint.tolist() == ej.tolist()
    assert sets.tolist() == es.tolist()
    return joint, sets


def _pairs_agree(ix, ids, topics, joint, w, compat="exact"):
    """``joint`` (``T x k x k``) equal to ``core.count_windows``'s pair counts of the same words."""
    n = len(ids)
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    counts = core.count_windows(ix, ids, pairs, w, compat)
    table = np.zeros((n, n), dtype=np.int64)
    for (a, b), c in zip(pairs, counts.joint):
        table[a, b] = table[b, a] = c
    table[np.arange(n), np.arange(n)] = counts.single
    for t, row in enumerate(np.asarray(topics).reshape(len(topics), -1)):
        here = row >= 0
        sub = joint[t][np.ix_(here, here)]
        assert sub.tolist() == table[np.ix_(row[here], row[here])].tolist()


@pytest.fixture(scope="module")
def small():
    docs = _random_docs(120, 1) + [[], ["w0"]]
    return (docs, *_index(docs))


def test_topic_windows_sweep_recount_equals_enumeration(small):
    """The recount used for huge windows and damaged postings agrees with plain enumeration."""
    docs, ix, words, ids = small
    topics = [[0, 1, 2, 3], [4, -1, 4, 5]]
    rows = [[words[i] if i >= 0 else None for i in row] for row in topics]
    for compat in ("exact", "jhlau"):
        for w in (1, 3, 30):
            ej, es, en = _enumerated(docs, words, topics, w, compat)
            sj, ss, sn = _swept(*_docs_as_positions(docs), rows, w, compat)
            assert (sn, sj.tolist(), ss.tolist()) == (en, ej.tolist(), es.tolist())


# -- topic shapes --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("compat", ["exact", "jhlau"])
@pytest.mark.parametrize("w", [1, 2, 10])
def test_topic_windows_ten_words_equal_enumeration_and_pair_counts(small, compat, w):
    docs, ix, words, ids = small
    topics = [list(range(10)), [9, 8, -1, 7, 0, 0, 1, 2, 3, 4]]
    joint, _ = _check(ix, docs, words, ids, topics, w, compat)
    _pairs_agree(ix, ids, topics, joint, w, compat)


def test_topic_windows_gensim_pairs_equal_count_windows(small):
    _, ix, _, ids = small
    topics = [[0, 1, 2, 3], [5, -1, 6, 0]]
    joint, sets, _ = core.count_topic_windows(ix, ids, topics, 4, "gensim")
    _pairs_agree(ix, ids, topics, joint, 4, "gensim")
    assert sets[:, 1].tolist() == joint[:, 0, 0].tolist()


@pytest.mark.parametrize("topics, shape", [([], (0, 1, 1)), (np.zeros((0, 3), dtype=np.int64), (0, 3, 3))],
                         ids=["empty list", "0 x 3"])
def test_topic_windows_no_topics(small, topics, shape):
    docs, ix, _, ids = small
    joint, sets, n = core.count_topic_windows(ix, ids, topics, 10)
    assert joint.shape == shape and sets.shape == (0, 1 << shape[1]) and n == len(_exact_windows(docs, 10))


@pytest.mark.parametrize("topics", [[[]], np.zeros((2, 0), dtype=np.int64)], ids=["one of none", "2 x 0"])
def test_topic_windows_topics_of_no_columns(small, topics):
    docs, ix, _, ids = small
    joint, sets, n = core.count_topic_windows(ix, ids, topics, 10)
    assert joint.shape == (len(topics), 0, 0) and sets.tolist() == [[n]] * len(topics)


def test_topic_windows_thirteen_columns_refused(small):
    _, ix, _, ids = small
    with pytest.raises(SettingsError, match=r"k=13 is more than 12 \(score at most 12 words per topic\)"):
        core.count_topic_windows(ix, ids, [list(range(13))], 10)
    with pytest.raises(SettingsError, match="k=13 is more than 12"):
        core.count_subsets(ix, ids, [list(range(13))], window=10)


def test_topic_windows_twelve_columns(small):
    docs, ix, words, ids = small
    topics = [list(range(12)), [11, 10, -1, 8, 7, 6, 5, 4, 3, 2, 1, 13]]
    joint, _ = _check(ix, docs, words, ids, topics, 5)
    _pairs_agree(ix, ids, topics, joint, 5)


def test_topic_windows_every_position_minus_one(small):
    docs, ix, words, ids = small
    joint, sets = _check(ix, docs, words, ids, [[-1, -1, -1], [0, -1, 1]], 10)
    assert not joint[0].any() and sets[0, 1:].tolist() == [0] * 7


def test_topic_windows_word_repeated_in_one_topic(small):
    docs, ix, words, ids = small
    joint, sets = _check(ix, docs, words, ids, [[0, 0, 1], [2, 2, 2], [3, -1, 3]], 4)
    assert joint[0, 0, 1] == joint[0, 0, 0] and sets[1, 7] == sets[1, 1]


def test_topic_windows_one_dimensional_topics(small):
    docs, ix, words, ids = small
    joint, _ = _check(ix, docs, words, ids, [[w] for w in range(len(ids))], 3)
    assert core.count_topic_windows(ix, ids, list(range(len(ids))), 3)[0].tolist() == joint.tolist()


def test_topic_windows_three_dimensional_topics_read_flat(small):
    """A (T, a, b) array is read as T topics of a * b words (not documented; neither refused nor other
    numbers than those of the flattened topics)."""
    docs, ix, words, ids = small
    cube = np.arange(8).reshape(2, 2, 2)
    try:
        joint, sets, _ = core.count_topic_windows(ix, ids, cube, 3)
    except SettingsError:
        return
    ej, es, _ = _enumerated(docs, words, cube.reshape(2, 4), 3)
    assert joint.tolist() == ej.tolist() and sets.tolist() == es.tolist()


def test_topic_windows_whole_float_positions_counted(small):
    docs, ix, words, ids = small
    _check(ix, docs, words, ids, np.array([[0.0, 1.0, -1.0]]), 3)


@pytest.mark.parametrize("topics", [
    [[0, 99]], [[0, -2]], [[2**40, 0]], [[0.7, 1.2]], [[True, False]], [[np.nan, 1]], [[np.inf, 1]],
    [["a", "b"]], [[0, 1], [2]], np.array([[2**64 - 1, 0]], dtype=np.uint64), [[0, 14]],
], ids=["past the words", "below -1", "2**40", "floats", "booleans", "NaN", "infinity", "strings", "ragged",
        "uint64 max", "one past word_ids"])
def test_topic_windows_malformed_topic_positions_refused(small, topics):
    _, ix, _, ids = small
    for call in (lambda: core.count_topic_windows(ix, ids, topics, 10),
                 lambda: core.count_subsets(ix, ids, topics, window=10)):
        with pytest.raises(SettingsError, match="topic positions"):
            call()


# -- word ids ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("word_ids, fragment", [
    ([-1, 0, 1], "word id -1 is not a word of the reference"),
    ([0, 1, 10**6], "word id 1000000 is not a word of the reference"),
    ([0.5, 1.0, 2.0], "word ids must be whole numbers"),
    (["a", "b", "c"], "word ids must be whole numbers"),
], ids=["negative", "past the vocabulary", "fractions", "strings"])
def test_topic_windows_bad_word_ids_refused(small, word_ids, fragment):
    _, ix, _, _ = small
    with pytest.raises(SettingsError, match=fragment):
        core.count_topic_windows(ix, word_ids, [[0, 1, 2]], 10)


def test_topic_windows_no_word_ids(small):
    docs, ix, _, _ = small
    with pytest.raises(SettingsError, match="topic positions must be -1 or positions in word_ids"):
        core.count_topic_windows(ix, [], [[0]], 10)
    joint, sets, n = core.count_topic_windows(ix, [], [[-1, -1]], 10)
    assert not joint.any() and sets.tolist() == [[n, 0, 0, 0]] and n == len(_exact_windows(docs, 10))


def test_topic_windows_repeated_word_ids(small):
    docs, ix, words, ids = small
    rep = [ids[0], ids[0], ids[1], ids[0]]
    joint, sets, _ = core.count_topic_windows(ix, rep, [[0, 1, 2], [3, 2, -1]], 5)
    ej, es, _ = _enumerated(docs, [words[0], words[0], words[1], words[0]], [[0, 1, 2], [3, 2, -1]], 5)
    assert joint.tolist() == ej.tolist() and sets.tolist() == es.tolist()


# -- windows -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("window", [0, -1, -10**12, False, 0.5], ids=["0", "-1", "-10**12", "False", "0.5"])
@pytest.mark.parametrize("compat", ["exact", "jhlau"])
def test_topic_windows_window_below_one_refused(small, window, compat):
    _, ix, _, ids = small
    with pytest.raises(SettingsError, match="window must be a whole number of tokens from 1"):
        core.count_topic_windows(ix, ids, [[0, 1]], window, compat)


@pytest.mark.parametrize("window", [1.5, True], ids=["1.5", "True"])
def test_topic_windows_window_not_whole_refused(small, window):
    _, ix, _, ids = small
    with pytest.raises(SettingsError):
        core.count_topic_windows(ix, ids, [[0, 1]], window)


@pytest.mark.parametrize("window", ["abc", None, float("nan"), float("inf"), 2**63, 2**64],
                         ids=["abc", "None", "NaN", "infinity", "2**63", "2**64"])
def test_topic_windows_window_not_a_number_refused_by_name(small, window):
    _, ix, _, ids = small
    with pytest.raises(SettingsError, match="window"):
        core.count_topic_windows(ix, ids, [[0, 1]], window)


def test_topic_windows_window_as_text_of_a_number(small):
    """``window="10"`` is read as 10 (``int()``): the counts of 10, never others."""
    _, ix, _, ids = small
    try:
        got = core.count_topic_windows(ix, ids, [[0, 1, 2]], "10")
    except SettingsError:
        return
    want = core.count_topic_windows(ix, ids, [[0, 1, 2]], 10)
    assert got[1].tolist() == want[1].tolist() and got[2] == want[2]


@pytest.mark.parametrize("compat", ["exact", "jhlau"])
@pytest.mark.parametrize("window", [31, 10**6, 10**9], ids=["longest document + 1", "10**6", "10**9"])
def test_topic_windows_huge_window(small, compat, window):
    docs, ix, words, ids = small
    topics = [[0, 1, 2, 3], [5, -1, 6, 0]]
    joint, sets, n = core.count_topic_windows(ix, ids, topics, window, compat)
    rows = [[words[i] if i >= 0 else None for i in row] for row in topics]
    ej, es, en = _swept(*_docs_as_positions(docs), rows, window, compat)
    assert (n, joint.tolist(), sets.tolist()) == (en, ej.tolist(), es.tolist())


_LIMIT = "window must be a whole number of tokens from 1 to 1,073,741,824"


@pytest.mark.parametrize("window", [2**30 + 1, 2**31 - 1, 2**31, 2**32, 2**40],
                         ids=["2**30 + 1", "2**31 - 1", "2**31", "2**32", "2**40"])
@pytest.mark.parametrize("compat", ["exact", "jhlau"])
def test_topic_windows_window_past_the_limit_refused(small, window, compat):
    """Windows past validation.MAX_WINDOW (2**30) are refused: jhlau's windows start up to w - 1 tokens
    before a document, and a start past 2**31 - 1 had wrapped in the kernels' int32 (word-set counts such
    as -2147483648); exact windows that long were counted right (one window a document), but the limit is
    one for every mode."""
    _, ix, _, ids = small
    for call in (lambda: core.count_topic_windows(ix, ids, [[0, 1, 2]], window, compat),
                 lambda: core.count_windows(ix, ids, [(0, 1)], window, compat)):
        with pytest.raises(SettingsError, match=_LIMIT):
            call()


def test_topic_windows_jhlau_window_at_the_limit_over_a_long_document_refused(monkeypatch):
    """jhlau windows of 2**30 tokens over a document of 2**30 + 1 tokens would start 2**31 places: the
    count names the document and the window (a stand-in for the index's lengths: no such corpus here)."""
    ix = index_from_token_lists([["a", "b"], ["b", "c"]])
    lengths = ix.arrays["doc_lengths"].copy()
    lengths[0] = 2**30 + 1
    monkeypatch.setattr(type(ix), "doc_lengths", property(lambda self: lengths))
    ids = [ix.word_id(x) for x in "abc"]
    with pytest.raises(SettingsError, match=r"longest document \(1,073,741,825 tokens\) start at "
                                            r"2,147,483,648"):
        core.count_topic_windows(ix, ids, [[0, 1, 2]], 2**30, "jhlau")
    assert core.count_topic_windows(ix, ids, [[0, 1, 2]], 2**30 - 1, "exact")[2] >= 0  # (exact: no shift)


@pytest.mark.parametrize("compat", ["bogus", None, "EXACT", "", "context"])
def test_topic_windows_unknown_compat_refused(small, compat):
    _, ix, _, ids = small
    for call in (lambda: core.count_topic_windows(ix, ids, [[0, 1]], 10, compat),
                 lambda: core.count_subsets(ix, ids, [[0, 1]], 10, compat)):
        with pytest.raises(SettingsError, match=r"is not known; use one of \('exact', 'gensim', 'jhlau'\)"):
            call()


# -- memory --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("memory, message", [
    (1, "memory must be a whole number >= 1024, got 1"),
    (1023, "memory must be a whole number >= 1024, got 1023"),
    (-1, "memory must be a whole number >= 1024, got -1"),
    (True, "memory must be a whole number >= 1024, got True"),
    (1.5, "memory must be a whole number >= 1024, got 1.5"),
    ("abc", "memory 'abc' is not a size"),
    ("", "memory '' is not a size"),
    ("nan", "memory 'nan' is not a size"),
    ("-5", "memory '-5' is below the smallest budget"),
])
def test_topic_windows_memory_spellings_refused(small, memory, message):
    _, ix, _, ids = small
    with pytest.raises(ParameterError, match=re.escape(message)):
        core.count_topic_windows(ix, ids, [[0, 1]], 10, memory=memory)


@pytest.mark.parametrize("memory", [None, "1G", "64K", 10**15, 2**70])
def test_topic_windows_memory_accepted(small, memory):
    docs, ix, words, ids = small
    _check(ix, docs, words, ids, [[0, 1, 2], [3, -1, 4]], 5, memory=memory)


def _named_minimum(ix, ids, topics):
    with pytest.raises(ParameterError) as info:
        core.count_topic_windows(ix, ids, topics, 5, memory=1024)
    return int(re.search(r"\(([\d,]+) bytes\)", str(info.value)).group(1).replace(",", ""))


def test_topic_windows_memory_at_and_below_the_named_minimum(small):
    docs, ix, words, ids = small
    topics = [list(range(10)), [9, 8, -1, 7, 0, 0, 1, 2, 3, 4]]
    need = _named_minimum(ix, ids, topics)
    _check(ix, docs, words, ids, topics, 5, memory=need)
    with pytest.raises(ParameterError, match=rf"\({need:,} bytes\)"):
        core.count_topic_windows(ix, ids, topics, 5, memory=need - 1)


@pytest.mark.parametrize("compat", ["exact", "jhlau"])
def test_topic_windows_many_blocks_of_documents(small, monkeypatch, compat):
    """A budget a little above the minimum cuts the documents into blocks (document ids counted from each
    block's first): the counts as enumerated."""
    docs, ix, words, ids = small
    topics = [list(range(10)), [9, 8, -1, 7, 0, 0, 1, 2, 3, 4]]
    need = _named_minimum(ix, ids, topics)
    seen = []
    real = core.plan_blocks
    monkeypatch.setattr(core, "plan_blocks", lambda *a, **k: seen.append(real(*a, **k)) or seen[-1])
    _check(ix, docs, words, ids, topics, 5, compat, memory=need + 600)
    assert len(seen[-1].blocks) > 3


# -- references ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("compat", ["exact", "jhlau"])
@pytest.mark.parametrize("docs", [
    [[]] * 40 + [["w1", "w2", "w1"]] + [[]] * 40,
    [["w0"], ["w1"], ["w0"], ["w2"], ["w1"]],
    [["w3"]],
    [["w3", "w4", "w5"]],
], ids=["all empty but one", "one token each", "one document of one token", "one document"])
def test_topic_windows_small_references(docs, compat):
    ix, words, ids = _index(docs)
    n = len(ids)
    topics = [list(range(n)), [n - 1] + [-1] * (n - 1)]
    for w in (1, 2, 5):
        _check(ix, docs, words, ids, topics, w, compat)


@pytest.fixture(scope="module")
def long_document():
    rng = np.random.default_rng(7)
    docs = [[_VOCAB[x] for x in rng.zipf(1.6, size=100_000) % 14], ["w0"], []]
    return (docs, *_index(docs))


@pytest.mark.parametrize("compat", ["exact", "jhlau"])
def test_topic_windows_document_of_100k_tokens(long_document, compat):
    docs, ix, words, ids = long_document
    topics = [list(range(10)), [13, 12, 11, -1, 0]+[-1] * 5]
    start = time.perf_counter()
    joint, sets, n = core.count_topic_windows(ix, ids, topics, 10, compat)
    assert time.perf_counter() - start < 5
    rows = [[words[i] if i >= 0 else None for i in row] for row in topics]
    ej, es, en = _swept(*_docs_as_positions(docs), rows, 10, compat)
    assert (n, joint.tolist(), sets.tolist()) == (en, ej.tolist(), es.tolist())
    _pairs_agree(ix, ids, topics, joint, 10, compat)


def _without_postings(ix, word_id):
    """``ix`` with every posting of ``word_id`` taken out (a word of the vocabulary in no document)."""
    a = {k: v.copy() for k, v in ix.arrays.items()}
    ptr, pos_ptr = a["word_ptr"], a["pos_ptr"]
    g0, g1 = int(ptr[word_id]), int(ptr[word_id + 1])
    p0, p1 = int(pos_ptr[g0]), int(pos_ptr[g1])
    a["positions"] = np.concatenate([a["positions"][:p0], a["positions"][p1:]])
    a["pos_ptr"] = np.concatenate([pos_ptr[:g0], pos_ptr[g1:] - (p1 - p0)])
    a["post_docs"] = np.concatenate([a["post_docs"][:g0], a["post_docs"][g1:]])
    ptr[word_id + 1:] -= g1 - g0
    return ReferenceIndex(a, ix.header)


@pytest.mark.parametrize("compat", ["exact", "jhlau"])
def test_topic_windows_word_in_no_document(small, compat):
    docs, ix, words, ids = small
    gone = _without_postings(ix, ids[2])
    held = [{x: ps for x, ps in h.items() if x != words[2]} for h in _docs_as_positions(docs)[0]]
    topics = [[0, 1, 2, 3], [2, -1, 2, 2], [2, 4, 5, -1]]
    joint, sets, n = core.count_topic_windows(gone, ids, topics, 4, compat)
    rows = [[words[i] if i >= 0 else None for i in row] for row in topics]
    ej, es, en = _swept(held, [len(d) for d in docs], rows, 4, compat)  # the documents keep their lengths
    assert (n, joint.tolist(), sets.tolist()) == (en, ej.tolist(), es.tolist())
    assert not joint[1].any()


@pytest.mark.parametrize("n_docs", [TOPIC_WINDOW_BLOCK - 1, TOPIC_WINDOW_BLOCK + 1,
                                    2 * TOPIC_WINDOW_BLOCK + 1])
def test_topic_windows_documents_on_a_block_edge(n_docs):
    docs = [[] for _ in range(n_docs)]
    rng = np.random.default_rng(n_docs)
    for d in rng.choice(n_docs, size=200, replace=False):
        docs[d] = [_VOCAB[x] for x in rng.integers(0, 6, size=6)]
    for e in [0, n_docs - 1] + [b + s for b in range(TOPIC_WINDOW_BLOCK, n_docs, TOPIC_WINDOW_BLOCK)
                                for s in (-1, 0, 1)]:
        if e < n_docs:
            docs[e] = _VOCAB[:6] * 2 if e % 2 else _VOCAB[:3] * 3
    ix, words, ids = _index(docs)
    topics = [[0, 1, 2, 3, 4, 5], [5, 4, 3, -1, 1, 0]]
    joint, _ = _check(ix, docs, words, ids, topics, 4)
    _pairs_agree(ix, ids, topics, joint, 4)


# -- damaged postings (each count in its own process: a crash is possible) -----------------------------------
def _python(script, tmp_path, env=None, popen=False):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in [str(REPO / "src"),
                                                                    os.environ.get("PYTHONPATH", "")] if p),
           "NUMBA_NUM_THREADS": "1", **(env or {})}
    path = tmp_path / f"script_{len(list(tmp_path.glob('script_*.py')))}.py"
    path.write_text(script, encoding="utf-8")
    args = [sys.executable, str(path)]
    if popen:
        return subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)


_SAME_LENGTH = [["w0", "w1", "w2", "w3"], ["w1", "w2", "w0", "w0"], ["w0", "w2", "w3", "w3"],
                ["w3", "w1", "w0", "w2"]] * 3  # all of 4 tokens: a moved posting's positions stay inside


def _count_damaged(tmp_path, change, memory=None):
    """``(index, result)``: the damaged index (``change`` of w0's postings, given as the new list) and what
    ``count_topic_windows`` gave for it in a subprocess: ``("counts", joint, sets, n)``,
    ``("refused", message)`` or ``("died", returncode, stderr)``."""
    ix, words, ids = _index(_SAME_LENGTH)
    ptr = ix.arrays["word_ptr"]
    w0 = ids[words.index("w0")]
    post = ix.arrays["post_docs"][ptr[w0]:ptr[w0 + 1]]
    new = np.asarray(change(post.astype(np.int64).tolist(), ix.n_documents), dtype=np.int64)
    arrays = dict(ix.arrays)
    arrays["post_docs"] = arrays["post_docs"].copy()
    arrays["post_docs"][ptr[w0]:ptr[w0 + 1]] = new.astype(arrays["post_docs"].dtype)
    np.savez(tmp_path / "damaged.npz", **arrays)
    script = textwrap.dedent(f"""
        import json, numpy as np
        from tealeaves.coherence import core
        from tealeaves.errors import IndexIntegrityError
        from tealeaves.index import index_from_token_lists, ReferenceIndex
        header = index_from_token_lists({_SAME_LENGTH!r}).header
        arrays = dict(np.load({str(tmp_path / "damaged.npz")!r}))
        ix = ReferenceIndex(arrays, header)
        out = []
        for compat in ("exact", "jhlau"):
            try:
                j, s, n = core.count_topic_windows(ix, {ids!r}, [[0, 1, 2], [1, 0, -1]], 2, compat,
                                                   memory={memory!r})
                out.append(["counts", j.tolist(), s.tolist(), n])
            except IndexIntegrityError as exc:
                out.append(["refused", str(exc)])
        print(json.dumps(out))
    """)
    run = _python(script, tmp_path)
    damaged = ReferenceIndex(arrays, ix.header)
    if run.returncode != 0:
        return damaged, ids, new, ("died", run.returncode, run.stderr[-800:])
    return damaged, ids, new, json.loads(run.stdout)


def _damage_checked(tmp_path, change, memory=None):
    damaged, ids, new, got = _count_damaged(tmp_path, change, memory)
    assert got[0] != "died", f"the count died ({got[1]}): {got[2]}"
    outside = bool((new < 0).any() or (new >= damaged.n_documents).any())
    for compat, result in zip(("exact", "jhlau"), got):
        if result[0] == "refused":  # by the checks of an index made by hand (ReferenceIndex.check_readable)
            assert result[1].startswith("index file <in memory: ") and "(rebuild it with" in result[1]
            continue
        assert not outside, f"postings {new.tolist()} name a slot outside the documents, yet were counted"
        ej, es, en = _by_postings(damaged, ids, [[0, 1, 2], [1, 0, -1]], 2, compat)
        assert result[1:] == [ej.tolist(), es.tolist(), en], compat


def _put(at, value):
    def change(p, n):
        p[at] = {"n": n, "n+5": n + 5}.get(value, value)
        return p
    return change


@pytest.mark.parametrize("change", [
    pytest.param(lambda p, n: p[::-1], id="reversed"),
    pytest.param(lambda p, n: [p[0], p[0]] + p[2:], id="duplicate first"),
    pytest.param(lambda p, n: p[:-1] + [p[-2]], id="duplicate last"),
    pytest.param(lambda p, n: p[1:2] + p[0:1] + p[2:], id="two swapped"),
    pytest.param(_put(0, -1), id="negative"),
    pytest.param(_put(-1, "n"), id="n_documents"),
    pytest.param(_put(-1, "n+5"), id="n_documents + 5"),
    pytest.param(_put(-1, 2**31 - 1), id="int32 max"),
    pytest.param(_put(0, -2**31), id="int32 min"),
])
def test_topic_windows_damaged_postings(tmp_path, change):
    """The recount of the damaged postings, or IndexIntegrityError; a posting outside the documents
    refused."""
    _damage_checked(tmp_path, change)


@pytest.mark.parametrize("extra", [
    pytest.param(600, id="minimum + 600"),
    pytest.param(0, id="at the minimum"),
])
def test_topic_windows_damaged_postings_in_many_blocks(tmp_path, extra):
    """Reversed postings under a budget of many blocks of documents (the clean index's named minimum, and a
    little more): the recount or IndexIntegrityError."""
    ix, _, ids = _index(_SAME_LENGTH)
    need = _named_minimum(ix, ids, [[0, 1, 2], [1, 0, -1]])
    assert need == 2280
    _damage_checked(tmp_path, lambda p, n: p[::-1], memory=need + extra)


# -- the measure pipeline and the command -------------------------------------------------------------------
def _stand_in(index, word_ids, topics, window, compat="exact", memory=None):
    """``count_topic_windows`` recounted from the postings (same signature)."""
    core.check_budget(memory)
    j, s, n = _by_postings(index, word_ids, topics, int(window), compat)
    return j, s, n


_TOPICS = [["w0", "w1", "w2"], ["w3", "w4", "zzz"], ["zzz", "yyy"], ["w5", "w6", "w7", "w8"]]


@pytest.mark.parametrize("settings", [
    {"measure": "npmi", "segmentation": "one-set", "window": 10},
    {"measure": "npmi", "segmentation": "one-any", "window": 3, "compat": "jhlau"},
    {"measure": "umass", "segmentation": "one-set", "window": 5},
    {"measure": "npmi", "segmentation": "one-set", "window": 10**9, "compat": "jhlau"},
], ids=["npmi one-set 10", "npmi one-any jhlau 3", "umass one-set 5", "npmi one-set jhlau 10**9"])
def test_topic_windows_measure_equals_the_recount(small, monkeypatch, settings):
    from tealeaves.coherence import coherence

    docs, ix, _, _ = small
    used = []
    real = core.count_topic_windows
    monkeypatch.setattr(core, "count_topic_windows", lambda *a, **k: used.append(1) or real(*a, **k))
    scored = [t.score for t in coherence(_TOPICS, ix, **settings).topics]
    assert used
    monkeypatch.setattr(core, "count_topic_windows", _stand_in)
    assert [t.score for t in coherence(_TOPICS, ix, **settings).topics] == pytest.approx(scored, nan_ok=True)


@pytest.mark.parametrize("window", [2**31, 2**63], ids=["2**31", "2**63"])
def test_topic_windows_measure_window_past_the_limit_refused(small, window):
    """presets.MeasureSpec takes windows up to validation.MAX_WINDOW (2**63 had reached the kernels as an
    OverflowError; 2**31 with jhlau had scored 0.0)."""
    from tealeaves.coherence import coherence

    _, ix, _, _ = small
    for compat in ("exact", "jhlau"):
        with pytest.raises(ParameterError, match="from 1 to 1,073,741,824"):
            coherence(_TOPICS, ix, measure="npmi", segmentation="one-set", window=window, compat=compat)


@pytest.fixture(scope="module")
def reference_file(tmp_path_factory):
    from tealeaves.cli import main

    root = tmp_path_factory.mktemp("ref")
    text = root / "ref.txt"
    text.write_text("\n".join(" ".join(d) for d in _random_docs(60, 9, most=20)) + "\n", encoding="utf-8")
    assert main(["index", "build", str(text), "-o", str(root / "ref.tlx")]) == 0
    topics = root / "topics.txt"
    topics.write_text("\n".join(" ".join(t) for t in _TOPICS) + "\n", encoding="utf-8")
    return root / "ref.tlx", topics


@pytest.mark.cli_in_process
@pytest.mark.parametrize("extra", [["--window", "10"], ["--window", "3", "--compat", "jhlau"],
                                   ["--window", "1000000000", "--memory", "64K"]],
                         ids=["10", "jhlau 3", "10**9 in 64K"])
def test_topic_windows_cli_scores_equal_the_recount(reference_file, run_cli, monkeypatch, extra):
    ref, topics = reference_file
    argv = ["coherence", "--reference", ref, "--topics", topics, "--measure", "npmi", "--segmentation",
            "one-set", "--format", "json", *extra]
    first = run_cli(argv)
    assert first.code == 0, first.err
    monkeypatch.setattr(core, "count_topic_windows", _stand_in)
    assert json.loads(run_cli(argv).out) == json.loads(first.out)


@pytest.mark.parametrize("extra, fragment, code", [
    (["--window", "0"], "--window must be 'doc' or a whole number of tokens from 1 to 1,073,741,824, got '0'",
     2),
    (["--window", "-3"], "got '-3'", 2),
    (["--window", "1.5"], "got '1.5'", 2),
    (["--window", "abc"], "got 'abc'", 2),
    (["--window", "10", "--compat", "bogus"], "invalid choice: 'bogus'", 2),
    (["--window", "10", "--memory", "1"], "--memory '1' is below the smallest budget", 1),
    (["--window", "10", "--memory", "1K"], "that counting", 1),
    (["--window", "10", "--memory", "abc"], "--memory 'abc' is not a size", 1),
    (["--window", "10", "--memory", "-5"], "--memory '-5' is below the smallest budget", 1),
    (["--window", "10", "--n-top", "13"], "counted for at most 12 words per topic; got 13", 1),
], ids=["window 0", "window -3", "window 1.5", "window abc", "compat bogus", "memory 1", "memory 1K",
        "memory abc", "memory -5", "13 words"])
def test_topic_windows_cli_bad_input_is_one_error_line(reference_file, cli_error, tmp_path, extra, fragment,
                                                       code):
    ref, _ = reference_file
    topics = tmp_path / "thirteen.txt"
    topics.write_text(" ".join(_VOCAB[:13]) + "\n", encoding="utf-8")
    out = tmp_path / "scores.json"
    result = cli_error(["coherence", "--reference", ref, "--topics", topics, "--measure", "npmi",
                        "--segmentation", "one-set", *extra, "-o", out], fragment, code=code)
    assert "Traceback" not in result.err and not out.exists()


@pytest.mark.parametrize("window", ["99999999999999999999", "2147483648", "1073741825"])
def test_topic_windows_cli_window_past_the_limit(reference_file, cli_error, window):
    """--window past 2**30: a usage error (it had reached the kernel as an internal error, exit 70, and with
    jhlau at 2147483648 had scored every topic 0.0000)."""
    ref, topics = reference_file
    for compat in ("exact", "jhlau"):
        cli_error(["coherence", "--reference", ref, "--topics", topics, "--measure", "npmi", "--segmentation",
                   "one-set", "--window", window, "--compat", compat], "from 1 to 1,073,741,824", code=2)


# -- two processes at once -----------------------------------------------------------------------------------
def test_topic_windows_two_processes_counting_the_same_index(tmp_path):
    from tealeaves.corpus.corpus import Corpus
    from tealeaves.index import build_index

    docs = _random_docs(1500, 11, vocab=[f"w{i}" for i in range(40)], most=30)
    path = tmp_path / "ref.tlx"
    build_index(Corpus.from_token_lists(docs)).save(path)
    rng = np.random.default_rng(12)
    topics = np.array([rng.choice(40, size=8, replace=False) for _ in range(300)])
    np.save(tmp_path / "topics.npy", topics)
    script = textwrap.dedent(f"""
        import hashlib, os, time
        import numpy as np
        from tealeaves.coherence import core
        from tealeaves.index import ReferenceIndex
        ix = ReferenceIndex.load({str(path)!r})
        ids = [ix.word_id(w) for w in sorted(ix.vocabulary)]
        topics = np.load({str(tmp_path / "topics.npy")!r})
        core.count_topic_windows(ix, ids, topics[:1], 10)
        open(os.environ["READY"], "w").close()
        while not os.path.exists({str(tmp_path / "go")!r}):
            time.sleep(0.005)
        joint, sets, n = core.count_topic_windows(ix, ids, topics, 10)
        print(n, hashlib.sha256(joint.tobytes() + sets.tobytes()).hexdigest(), flush=True)
    """)
    out = _at_once(script, tmp_path)
    ix = ReferenceIndex.load(path)
    words = sorted(ix.vocabulary)
    ids = [ix.word_id(w) for w in words]
    # the pairs of the first topics recounted by the pair kernels, the sets by the sweep
    joint, sets, n = core.count_topic_windows(ix, ids, topics, 10)
    assert out.split() == [str(n), hashlib.sha256(joint.tobytes() + sets.tobytes()).hexdigest()]
    ej, es, en = _by_postings(ix, ids, topics[:20], 10)
    assert (n, joint[:20].tolist(), sets[:20].tolist()) == (en, ej.tolist(), es.tolist())
