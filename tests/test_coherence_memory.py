"""Counting in bounded memory (``memory``, :mod:`tealeaves.coherence._blocked`): counts split into
ranges of documents equal the counts of one pass and a brute-force count, whatever the budget."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tealeaves.coherence import _blocked, core
from tealeaves.errors import ParameterError
from tealeaves.index import index_from_token_lists

_property = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_corpora = st.lists(st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), max_size=25), min_size=2,
                    max_size=14)
KINDS = ("doc", "window", "context", "subsets")


def _tightest(ix, ids, n_pairs, kind):
    """The smallest budget (bytes) that ``plan_blocks`` accepts: the most blocks it ever makes."""
    lo, hi = 1, 1 << 30
    while lo < hi:
        mid = (lo + hi) // 2
        try:
            _blocked.plan_blocks(ix, ids, n_pairs, kind, mid)
            hi = mid
        except ParameterError:
            lo = mid + 1
    return lo


def _zipf_docs(seed: int, n_docs: int = 600, n_types: int = 80) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, n_types + 1)
    p /= p.sum()
    return [[f"w{x}" for x in rng.choice(n_types, size=rng.integers(0, 40), p=p)] for _ in range(n_docs)]


@pytest.fixture(scope="module")
def zipf():
    docs = _zipf_docs(1)
    ix = index_from_token_lists(docs, name="zipf")
    words = sorted(ix.vocabulary)
    ids = np.array([ix.word_id(w) for w in words])
    pairs = np.array(list(itertools.combinations(range(len(words)), 2)) + [(3, 3), (5, 2)])
    return docs, ix, words, ids, pairs


def _brute(docs, w, a, b):
    """Units (documents, or exact windows of ``w``) holding both words (plain Python)."""
    if w is None:
        units = [set(d) for d in docs]
    else:
        units = [set(d) if len(d) <= w else set(d[s:s + w])
                 for d in docs for s in range(max(1, len(d) - w + 1))]
    return sum(a in u and b in u for u in units)


@pytest.mark.parametrize("kind, window, compat", [("doc", None, "exact"), ("window", 1, "exact"),
                                                  ("window", 10, "exact"), ("window", 7, "gensim"),
                                                  ("window", 110, "jhlau"), ("context", 5, "exact")])
def test_blocked_counts_equal_one_pass_and_brute_force(zipf, kind, window, compat):
    docs, ix, words, ids, pairs = zipf
    memory = _tightest(ix, ids, len(pairs), kind)
    plan = _blocked.plan_blocks(ix, ids, len(pairs), kind, memory)
    assert len(plan.blocks) > 20  # the budget forces many ranges of documents
    cuts = [(b.d0, b.d1) for b in plan.blocks]
    assert cuts[0][0] == 0 and cuts[-1][1] == ix.n_documents
    assert all(a[1] == b[0] for a, b in zip(cuts, cuts[1:]))
    if kind == "doc":
        one, blocked = (core.count_documents(ix, ids, pairs, memory=m) for m in (None, memory))
    elif kind == "context":
        one, blocked = (core.count_context(ix, ids, pairs, window, memory=m) for m in (None, memory))
    else:
        one, blocked = (core.count_windows(ix, ids, pairs, window, compat, memory=m) for m in (None, memory))
    assert blocked.n_units == one.n_units
    assert np.array_equal(blocked.single, one.single)
    assert np.array_equal(blocked.joint, one.joint)
    if kind in ("doc", "window") and compat == "exact":
        rng = np.random.default_rng(0)
        for m in rng.choice(len(pairs), size=25, replace=False):
            a, b = words[pairs[m, 0]], words[pairs[m, 1]]
            assert blocked.joint[m] == _brute(docs, window, a, b)


def test_blocked_frequent_words_count_the_same(zipf):
    docs, ix, words, ids, pairs = zipf
    memory = _tightest(ix, ids, len(pairs), "window")
    for f in (0, 8, 40):
        got = core.count_windows(ix, ids, pairs, 10, frequent=f, memory=memory)
        want = core.count_windows(ix, ids, pairs, 10, frequent=f)
        assert np.array_equal(got.joint, want.joint)


def _tightest_call(count) -> int:
    """The smallest budget (bytes) ``count(memory)`` accepts."""
    lo, hi = 1 << 10, 1 << 30
    while lo < hi:
        mid = (lo + hi) // 2
        try:
            count(mid)
            hi = mid
        except ParameterError:
            lo = mid + 1
    return lo


def test_blocked_subset_counts_equal_one_pass(zipf):
    docs, ix, words, ids, pairs = zipf
    topics = np.arange(48).reshape(6, 8)
    for window in (None, 10):
        memory = _tightest_call(lambda m, w=window: core.count_subsets(ix, ids, topics, w, memory=m))
        one, n = core.count_subsets(ix, ids, topics, window)
        blocked, n_blocked = core.count_subsets(ix, ids, topics, window, memory=memory)
        assert n == n_blocked
        assert np.array_equal(one, blocked)
    # at the tightest budget for windows, the intervals come in many blocks of documents
    reserve = _blocked.topic_major_bytes(8, 64, 1, windows=True)
    assert len(_blocked.plan_blocks(ix, ids, 0, "subsets", memory, reserve=reserve).blocks) > 10


def test_subset_counts_of_windows_below_their_minimum_name_it(zipf):
    docs, ix, words, ids, pairs = zipf
    topics = np.arange(48).reshape(6, 8)
    memory = _tightest_call(lambda m: core.count_subsets(ix, ids, topics, 10, memory=m))
    with pytest.raises(ParameterError) as err:
        core.count_subsets(ix, ids, topics, 10, memory=memory - 1)
    assert f"({memory:,} bytes)" in str(err.value)


@_property
@given(docs=_corpora, w=st.integers(1, 12), extra=st.integers(0, 4000))
def test_any_budget_counts_equal_brute_force_on_random_corpora(docs, w, extra):
    if not any(docs):
        docs = docs + [["a"]]
    ix = index_from_token_lists(docs)
    words = sorted(ix.vocabulary)
    ids = [ix.word_id(x) for x in words]
    pairs = list(itertools.combinations(range(len(words)), 2))
    memory = _tightest(ix, np.array(ids), len(pairs), "window") + extra
    counts = core.count_windows(ix, ids, pairs, w, memory=memory)
    assert counts.joint.tolist() == [_brute(docs, w, words[a], words[b]) for a, b in pairs]
    docs_counts = core.count_documents(ix, ids, pairs, memory=_tightest(ix, np.array(ids), len(pairs), "doc"))
    assert docs_counts.joint.tolist() == [_brute(docs, None, words[a], words[b]) for a, b in pairs]


def test_budget_below_one_document_names_the_minimum(zipf):
    docs, ix, words, ids, pairs = zipf
    memory = _tightest(ix, ids, len(pairs), "window")
    with pytest.raises(ParameterError, match="memory .* is below the .* that counting 80 words") as exc:
        core.count_windows(ix, ids, pairs, 10, memory=memory - 1)
    assert exc.value.param == "memory"


def test_budget_spellings_as_the_build_reads_them():
    assert _blocked.check_budget("1G") == 1 << 30
    assert _blocked.check_budget("512M") == 512 << 20
    assert _blocked.check_budget(4096) == 4096
    assert _blocked.check_budget(None) == 1 << 30
    for bad in ("lots", "1X", "-1G", 0, 2.5):
        with pytest.raises(ParameterError):
            _blocked.check_budget(bad)


def test_estimate_matches_the_plan_and_the_words_sizes(zipf):
    docs, ix, words, ids, pairs = zipf
    est = _blocked.estimate(ix, ids, len(pairs), "window", memory=_tightest(ix, ids, len(pairs), "window"))
    assert est["postings"] == sum(len({d_i for d_i, d in enumerate(docs) if w in d}) for w in words)
    assert est["positions"] == sum(len(d) for d in docs)
    assert est["blocks"] > 20
    assert est["bytes"] < est["unblocked_bytes"]
    assert _blocked.estimate(ix, ids, len(pairs), "window")["blocks"] == 1


@pytest.mark.parametrize("kind", KINDS)
def test_named_minimum_is_exact(zipf, kind):
    docs, ix, words, ids, pairs = zipf
    n_pairs = 0 if kind == "subsets" else len(pairs)
    with pytest.raises(ParameterError) as exc:
        _blocked.plan_blocks(ix, ids, n_pairs, kind, 2048)
    need = int(str(exc.value).split("(")[1].split(" bytes")[0].replace(",", ""))
    assert need == _tightest(ix, ids, n_pairs, kind)


class _Terminal:
    """A stream that says it is a terminal and keeps what is written."""

    def __init__(self, tty: bool = True):
        self.tty, self.text = tty, ""

    def isatty(self):
        return self.tty

    def write(self, text):
        self.text += text

    def flush(self):
        pass


@pytest.mark.parametrize("tty", [True, False])
def test_progress_of_a_long_count_on_a_terminal_only(zipf, monkeypatch, tty):
    docs, ix, words, ids, pairs = zipf
    memory = _tightest(ix, ids, len(pairs), "window")
    n_blocks = len(_blocked.plan_blocks(ix, ids, len(pairs), "window", memory).blocks)
    monkeypatch.setattr(_blocked, "PROGRESS_SECONDS", 0.0)  # this count takes milliseconds
    stream = _Terminal(tty)
    with _blocked.progress_to(stream):
        got = core.count_windows(ix, ids, pairs, 10, memory=memory)
    assert np.array_equal(got.joint, core.count_windows(ix, ids, pairs, 10).joint)
    if tty:
        assert f"counting windows of 10 tokens: {n_blocks} block(s) of documents" in stream.text
        assert re.search(rf"\rcounted windows of 10 tokens: {n_blocks} block\(s\) in \d+ s +\n$", stream.text)
    else:
        assert stream.text == ""
    stream = _Terminal()
    with _blocked.progress_to(stream):  # a short count (one block, estimated at milliseconds) draws nothing
        monkeypatch.setattr(_blocked, "PROGRESS_SECONDS", 3.0)
        core.count_windows(ix, ids, pairs, 10)
    assert stream.text == ""


def test_index_info_reports_what_scoring_costs(tmp_path, run_cli):
    import json

    docs = _zipf_docs(2, n_docs=50)
    ix = index_from_token_lists(docs, name="zipf")
    ix.save(tmp_path / "z.tlx")
    run = run_cli(["index", "info", tmp_path / "z.tlx", "--format", "json"])
    assert run.code == 0, run.err
    cost = json.loads(run.out)["scoring"]
    n_post = sum(len(set(d)) for d in docs)
    n_pos = sum(len(d) for d in docs)
    parts = 1  # this small index is counted on one thread
    # per document: a byte, the bitmap of one-window documents (counted as a byte), and per thread a bitmap
    # (a byte) and a posting map (4)
    assert cost["window"]["every_word_bytes"] == 20 * n_post + 8 * n_pos + (2 + 5 * parts) * len(docs)
    bitsets = min(64 * n_post, 128 << 20)
    assert cost["doc"]["every_word_bytes"] == 4 * n_post + (14 + parts) * len(docs) + bitsets
    assert cost["window"]["every_word_blocks_at_budget"] == 1 and cost["window"]["budget"] == 1 << 30


@pytest.mark.parametrize("text, minimum, advice", [("1", 1 << 10, "1K"), ("100", 1 << 20, "1M"),
                                                   ("1M", 1 << 30, "1G"), ("2K", 3000, "3K")])
def test_memory_below_the_smallest_budget_advises_it_in_its_unit(text, minimum, advice):
    """The advice names the smallest budget rounded up in its own unit (a coherence count's 1 KiB had been
    advised as "1M")."""
    from tealeaves.index.memory import parse_memory

    with pytest.raises(ParameterError, match=rf"below the smallest budget .*\(give at least {advice}\)$"):
        parse_memory(text, minimum=minimum)


@pytest.mark.parametrize("memory", [None, "tightest"])
def test_window_counts_of_a_large_reference_run_in_blocks_of_capped_documents(zipf, monkeypatch, memory):
    """A sliding-window count over more than ``2 * WINDOW_BLOCK_DOCS`` documents runs in blocks of at most
    ``WINDOW_BLOCK_DOCS`` (with the budget's own cuts kept when it forces smaller ones); the counts equal
    one pass's and a brute-force count.  A reference of at most twice the cap, and document counts, are
    not cut for it."""
    docs, ix, words, ids, pairs = zipf
    one = core.count_windows(ix, ids, pairs, 10)
    budget = _tightest(ix, ids, len(pairs), "window") if memory else None
    natural = [(b.d0, b.d1) for b in _blocked.plan_blocks(ix, ids, len(pairs), "window", budget).blocks]
    monkeypatch.setattr(_blocked, "WINDOW_BLOCK_DOCS", ix.n_documents // 2)  # at most twice: no cut
    assert [(b.d0, b.d1) for b in _blocked.plan_blocks(ix, ids, len(pairs), "window", budget).blocks] \
        == natural
    monkeypatch.setattr(_blocked, "WINDOW_BLOCK_DOCS", 7)
    plan = _blocked.plan_blocks(ix, ids, len(pairs), "window", budget)
    cuts = [(b.d0, b.d1) for b in plan.blocks]
    assert cuts[0][0] == 0 and cuts[-1][1] == ix.n_documents
    assert all(a[1] == b[0] for a, b in zip(cuts, cuts[1:]))
    assert max(d1 - d0 for d0, d1 in cuts) <= 7 and len(cuts) >= ix.n_documents // 7
    assert {d for c in natural for d in c} <= {d for c in cuts for d in c}  # the budget's cuts kept
    assert len(_blocked.plan_blocks(ix, ids, len(pairs), "doc", None).blocks) == 1
    capped = core.count_windows(ix, ids, pairs, 10, memory=budget)
    assert capped.n_units == one.n_units
    assert np.array_equal(capped.single, one.single) and np.array_equal(capped.joint, one.joint)
    for m in range(0, len(pairs), 97):
        a, b = pairs[m]
        assert capped.joint[m] == _brute(docs, 10, words[a], words[b])
