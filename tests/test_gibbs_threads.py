"""One Gibbs chain on several threads (documents and words partitioned): GibbsLDA, PolylingualTopicModel.

* ``n_threads=1`` is the serial chain: the same numbers as a plain loop over the serial kernels
  written here (``init_topics`` then one ``sparse_sweep_spans`` or ``gibbs_sweep`` per sweep);
* the parallel chain is repeated exactly by its seed and thread count;
* after every parallel sweep the counts equal the counts recomputed from the assignments;
* the plan's blocks cover every token once, and no two threads share a word or a row in a phase;
* on a corpus with planted topics, 2 threads recover them as the serial chain does.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from tealeaves.corpus import Corpus
from tealeaves.models import _pltm_kernels as kern
from tealeaves.models import _pltm_parallel as par
from tealeaves.models import polylingual
from tealeaves.models.lda_gibbs import GibbsLDA
from tealeaves.models.polylingual import PolylingualTopicModel

#: Planted topics: ``K`` disjoint blocks of ``BLOCK`` words.
K, BLOCK = 4, 15


def _planted(n_docs: int = 240, seed: int = 0) -> Corpus:
    """Documents drawn from ``K`` topics, each uniform over its own block of words."""
    rng = np.random.default_rng(seed)
    docs = []
    for _ in range(n_docs):
        theta = rng.dirichlet(np.full(K, 0.1))
        z = rng.choice(K, 50, p=theta)
        docs.append([f"w{k * BLOCK + rng.integers(BLOCK)}" for k in z])
    return Corpus.from_token_lists(docs)


@pytest.fixture(scope="module")
def planted() -> Corpus:
    return _planted()


def _serial_reference(corpus: Corpus, sampler: str, n_iter: int, seed: int) -> np.ndarray:
    """``n_wk`` after ``n_iter`` sweeps of the serial kernels, called in a plain loop (no optimisation)."""
    model = PolylingualTopicModel(K, n_iter=n_iter, random_state=seed, sampler=sampler, n_threads=1)
    aligned = polylingual_corpus(corpus)
    model._check_params(aligned)
    sizes = np.array([len(corpus.vocabulary)])
    lay = polylingual._layout(aligned, ["text"], np.array([0, sizes[0]]), np.ones(len(corpus), bool))
    seeds = polylingual._seeds(polylingual._chain_seed(seed, 0), n_iter + 1)
    z = np.zeros(len(lay.tokens), np.int32)
    n_wk = np.zeros((sizes[0], K), np.int32)
    n_lk = np.zeros((1, K), np.int32)
    n_rk = np.zeros((lay.n_rows, K), np.int32)
    kern.init_topics(lay.tokens, lay.seg_start, lay.seg_lang, lay.seg_row, z, n_wk, n_lk, n_rk, seeds[0])
    alpha, beta = np.full(K, 0.1), np.array([0.01])
    beta_sum = beta * sizes
    if sampler == "dense":
        for it in range(1, n_iter + 1):
            kern.gibbs_sweep(lay.tokens, lay.seg_start, lay.seg_lang, lay.seg_row, z, n_wk, n_lk, n_rk, alpha,
                             beta, beta_sum, seeds[it])
        return n_wk
    word_start, packed = kern.word_lists(lay.tokens, sizes[0], K)
    bits = kern.topic_bits(K)
    kern.build_word_topics(n_wk, word_start, packed, bits)
    used = kern.used_cells(packed, word_start)
    span = kern.word_spans(lay.tokens, word_start)
    for it in range(1, n_iter + 1):
        kern.sparse_sweep_spans(lay.seg_start, lay.seg_lang, lay.seg_row, z, n_lk, n_rk, alpha, beta,
                                beta_sum, span, packed, bits, seeds[it], True, used)
    kern.unpack_word_topics(packed, word_start, bits, n_wk)
    return n_wk


def polylingual_corpus(corpus: Corpus):
    from tealeaves.models.lda_gibbs import _one_language

    return _one_language(corpus)


@pytest.mark.parametrize("sampler", ["sparse", "dense"])
def test_gibbs_threads_one_thread_is_the_serial_chain(planted, sampler):
    model = GibbsLDA(K, n_iter=15, optimize_interval=0, sampler=sampler, random_state=3, n_threads=1)
    model.fit(planted)
    phi = _serial_reference(planted, sampler, 15, 3).T + 0.01
    expected = phi / phi.sum(axis=1, keepdims=True)
    np.testing.assert_array_equal(model.topic_word_, expected)
    assert model.n_threads_ == 1 and "threads" not in model.description()


def test_gibbs_threads_every_sweep_is_parallel_from_the_first(planted, monkeypatch):
    calls = []
    monkeypatch.setattr(par, "parallel_sweeps", _checked(calls))
    two = GibbsLDA(20, n_iter=3, optimize_interval=0, random_state=4, n_threads=2).fit(planted)
    one = GibbsLDA(20, n_iter=3, optimize_interval=0, random_state=4, n_threads=1).fit(planted)
    assert [call[-1] for call in calls] == [3]  # the three sweeps in one call
    assert not np.array_equal(two.topic_word_, one.topic_word_)  # no serial sweeps shared with one thread


@pytest.mark.parametrize("sampler", ["sparse", "dense"])
def test_gibbs_threads_same_seed_and_threads_repeat_the_chain(planted, sampler):
    fits = [GibbsLDA(K, n_iter=20, sampler=sampler, random_state=5, n_threads=2).fit(planted)
            for _ in range(2)]
    more = [GibbsLDA(K, n_iter=20, sampler=sampler, random_state=5, n_threads=5).fit(planted)
            for _ in range(2)]  # 5 threads on 2 cores: the threads run far ahead of and behind each other
    np.testing.assert_array_equal(more[0].topic_word_, more[1].topic_word_)
    np.testing.assert_array_equal(fits[0].topic_word_, fits[1].topic_word_)
    np.testing.assert_array_equal(fits[0].log_likelihood_trace_, fits[1].log_likelihood_trace_)
    serial = GibbsLDA(K, n_iter=20, sampler=sampler, random_state=5, n_threads=1).fit(planted)
    assert not np.array_equal(serial.topic_word_, fits[0].topic_word_)  # a different (approximate) chain
    assert fits[0].n_threads_ == 2 and fits[0].description().endswith("/threads2")
    assert fits[0].metadata_["source"]["n_threads"] == 2


@pytest.mark.parametrize("n_threads", [2, 5])
def test_gibbs_threads_chain_is_the_same_however_its_sweeps_are_split_into_calls(planted, monkeypatch,
                                                                               n_threads):
    # the threads' views of the totals carry over from call to call, so evaluating the likelihood
    # after every sweep (one sweep a call) leaves the chain as it is in calls of several sweeps
    calls = []
    monkeypatch.setattr(par, "parallel_sweeps", _checked(calls))
    fits = [GibbsLDA(K, n_iter=23, optimize_interval=0, random_state=6, n_threads=n_threads,
                     evaluate_every=every).fit(planted) for every in (1, 23)]
    assert [call[-1] for call in calls] == [1] * 23 + [10, 10, 3]
    np.testing.assert_array_equal(fits[0].topic_word_, fits[1].topic_word_)
    np.testing.assert_array_equal(fits[0].doc_topic_, fits[1].doc_topic_)
    assert fits[0].log_likelihood_trace_[-1] == fits[1].log_likelihood_trace_[-1]


def _checked(calls):
    """``parallel_sweeps`` recording, after each call, the counts and topics (also in the chain's order)
    and the number of sweeps."""
    real = par.parallel_sweeps

    def checked(plan_, state, seeds, z, n_lk, n_rk, alpha, beta, beta_sum, dense, tokens, n_wk, span,
                packed, bits, reset, used, stop, pool=None):
        real(plan_, state, seeds, z, n_lk, n_rk, alpha, beta, beta_sum, dense, tokens, n_wk, span,
             packed, bits, reset, used, stop, pool=pool)
        if dense:
            words, counts = tokens, n_wk.copy()
        else:
            words = span[:, 1]
            counts = np.zeros((int(words.max()) + 1, n_lk.shape[1]), np.int32)
            starts = np.unique(span[:, 0])  # the words' first cells, in word order (words present)
            word_start = np.r_[starts, len(packed) - kern.CHUNK + 1]
            ids = np.unique(words)
            dense_lists = np.zeros((len(ids), n_lk.shape[1]), np.int32)
            kern.unpack_word_topics(packed, word_start, bits, dense_lists)
            counts[ids] = dense_lists
        z_out = np.full(len(z), -1, np.int32)
        par.chain_order(plan_, z, z_out)  # the chain's order, as sweep.finish writes it at the end
        calls.append((counts, words, z.copy(), z_out, plan_, n_lk.copy(), n_rk.copy(), used.copy(),
                      len(seeds)))

    return checked


@pytest.mark.parametrize("sampler", ["sparse", "dense"])
@pytest.mark.parametrize("n_threads", [2, 3, 7])
def test_gibbs_threads_counts_match_the_assignments_after_every_sweep(planted, monkeypatch, sampler,
                                                                     n_threads):
    calls = []
    monkeypatch.setattr(par, "parallel_sweeps", _checked(calls))
    n_iter = 24
    model = GibbsLDA(K, n_iter=n_iter, optimize_interval=5, optimize_burn_in=12, sample_interval=1,
                     sampler=sampler, random_state=1, n_threads=n_threads).fit(planted)
    # the burn-in in calls of several sweeps (up to the likelihood every 10 and the first histogram at
    # 12), then one sweep a call: every call checked, and so every sweep after the burn-in
    assert [call[-1] for call in calls] == [10, 2] + [1] * 12
    lay = model.pltm_._lay
    for counts, words, z, z_out, plan_, n_lk, n_rk, used, _ in calls:
        np.testing.assert_array_equal(words, lay.tokens[plan_.perm])
        np.testing.assert_array_equal(z_out[plan_.perm], z)  # the chain's z follows the plan's
        recount = np.zeros_like(counts)
        np.add.at(recount, (words, z), 1)
        np.testing.assert_array_equal(counts, recount)
        assert counts.sum() == len(z) == model.n_tokens_
        np.testing.assert_array_equal(n_lk[0], np.bincount(z, minlength=K))
        if sampler == "sparse":
            np.testing.assert_array_equal(used[: len(recount)], (recount > 0).sum(axis=1))
        rows = np.repeat(lay.seg_row, np.diff(lay.seg_start))
        row_counts = np.zeros_like(n_rk)
        np.add.at(row_counts, (rows, z_out), 1)
        np.testing.assert_array_equal(n_rk, row_counts)


@pytest.mark.parametrize("sampler", ["sparse", "dense"])
def test_gibbs_threads_chain_ends_with_its_topics_in_its_own_order(planted, monkeypatch, sampler):
    kept = []
    real = PolylingualTopicModel._store
    monkeypatch.setattr(PolylingualTopicModel, "_store", lambda self, res, lay, sizes: (
        kept.append((res, lay)), real(self, res, lay, sizes)))
    GibbsLDA(K, n_iter=5, optimize_interval=0, sampler=sampler, random_state=2,
             n_threads=3).fit(planted)
    (res, lay), = kept
    z = res["z"]
    recount = np.zeros_like(res["n_wk"])
    np.add.at(recount, (lay.tokens, z), 1)
    np.testing.assert_array_equal(res["n_wk"], recount)
    rows = np.repeat(lay.seg_row, np.diff(lay.seg_start))
    row_counts = np.zeros_like(res["n_rk"])
    np.add.at(row_counts, (rows, z), 1)
    np.testing.assert_array_equal(res["n_rk"], row_counts)


@pytest.mark.parametrize("n_threads", [2, 3])
def test_gibbs_threads_plan_blocks_share_no_word_or_row_at_once(planted, n_threads):
    model = GibbsLDA(K, n_iter=1, random_state=0, n_threads=1).fit(planted)
    lay = model.pltm_._lay
    plan_ = par.plan(lay.tokens, lay.seg_start, lay.seg_lang, lay.seg_row, n_threads, len(planted.vocabulary))
    n_ranges = n_threads * par.RANGES_PER_THREAD
    assert len(plan_.block_seg) == n_ranges * n_threads + 1
    assert sorted(plan_.perm) == list(range(len(lay.tokens)))  # every token once
    words, rows = lay.tokens[plan_.perm], np.repeat(plan_.seg_row, np.diff(plan_.seg_start))
    seg_of = np.repeat(np.arange(len(lay.seg_row)), np.diff(lay.seg_start))[plan_.perm]
    np.testing.assert_array_equal(lay.seg_row[seg_of], rows)  # each sub-segment lies in one segment
    tokens_of = [slice(plan_.seg_start[plan_.block_seg[b]], plan_.seg_start[plan_.block_seg[b + 1]])
                 for b in range(n_ranges * n_threads)]
    word_sets = [set(words[x]) for x in tokens_of]
    row_sets = [set(rows[x]) for x in tokens_of]
    for a in range(n_ranges * n_threads):
        for b in range(a + 1, n_ranges * n_threads):
            if a % n_threads != b % n_threads:  # two word groups: no word in both
                assert not word_sets[a] & word_sets[b]
            if a // n_threads != b // n_threads:  # two row ranges: no row in both
                assert not row_sets[a] & row_sets[b]
    for step in range(n_ranges):  # each thread walks every range once a sweep, the threads apart
        ranges = [par.range_of(q, step, n_ranges, n_threads) for q in range(n_threads)]  # the kernel's own
        assert len(set(ranges)) == n_threads
    assert {par.range_of(0, step, n_ranges, n_threads) for step in range(n_ranges)} == set(range(n_ranges))
    sizes = np.array([x.stop - x.start for x in tokens_of])
    assert sizes.max() <= 1.6 * len(lay.tokens) / (n_ranges * n_threads)  # balanced blocks


def _recovered(model) -> int:
    """How many planted topics have a fitted topic whose 10 most probable words all lie in their block."""
    blocks = {int(w[1:]) // BLOCK for w in model.vocabulary_}
    assert blocks == set(range(K))
    found = set()
    for row in model.topic_word_:
        top = np.argsort(-row)[:10]
        owners = {int(model.vocabulary_[int(i)][1:]) // BLOCK for i in top}
        if len(owners) == 1:
            found |= owners
    return len(found)


def test_gibbs_threads_two_threads_recover_planted_topics(planted):
    serial = GibbsLDA(K, n_iter=150, random_state=2, n_threads=1).fit(planted)
    two = GibbsLDA(K, n_iter=150, random_state=2, n_threads=2).fit(planted)
    assert _recovered(serial) == K
    assert _recovered(two) == K
    ll = [GibbsLDA(K, n_iter=150, random_state=s, n_threads=1).fit(planted).log_likelihood_trace_[-1]
          for s in (3, 4)] + [serial.log_likelihood_trace_[-1]]
    spread = max(ll) - min(ll)
    assert two.log_likelihood_trace_[-1] >= min(ll) - max(spread, 0.002 * abs(min(ll)))


def test_gibbs_threads_more_threads_than_documents(planted):
    small = planted.subset(range(3))
    model = GibbsLDA(K, n_iter=5, random_state=0, n_threads=8).fit(small)  # some ranges are empty
    assert model.n_threads_ == 8 and np.isfinite(model.topic_word_).all()


def test_gibbs_threads_polylingual_linked_sides_stay_on_one_thread(monkeypatch):
    from tealeaves.corpus.aligned import AlignedCorpus, default_preprocessor

    rng = np.random.default_rng(0)
    words = [a + b + "word" for a in "abcdef" for b in "ghijk"]
    en = [" ".join(rng.choice(words, 20)) for _ in range(60)]
    sv = [" ".join("s" + w for w in doc.split()) for doc in en]
    corpus = AlignedCorpus.from_texts({"en": en, "sv": sv}, [f"d{i}" for i in range(60)],
                                      {x: default_preprocessor(x, max_df=1.0) for x in ("en", "sv")})
    calls = []
    monkeypatch.setattr(par, "parallel_sweeps", _checked(calls))
    n_iter = 6
    fits = [PolylingualTopicModel(20, n_iter=n_iter, random_state=1, n_threads=3, link_fraction=0.5,
                                  evaluate_every=1).fit(corpus) for _ in range(2)]
    assert [call[-1] for call in calls] == [1] * 2 * 6
    np.testing.assert_array_equal(fits[0].doc_topic_, fits[1].doc_topic_)
    assert fits[0].n_threads_ == 3 and "/threads3" in fits[0].description()
    lay = fits[0]._lay
    parts = par.row_parts(lay.seg_start, lay.seg_row, 3)
    assert (np.bincount(lay.seg_row) == 2).sum() >= 20  # rows with two linked sides ...
    for row in np.unique(lay.seg_row):
        assert len(set(parts[lay.seg_row == row])) == 1  # ... in one range
    assert set(parts) == {0, 1, 2}
    for counts, words_, z, *_ in calls:
        recount = np.zeros_like(counts)
        np.add.at(recount, (words_, z), 1)
        np.testing.assert_array_equal(counts, recount)


def _tuples(n: int = 40) -> list[dict]:
    rng = np.random.default_rng(1)
    words = [a + b + "word" for a in "abcdef" for b in "ghijk"]
    rows = []
    for i in range(n):
        en = [str(w) for w in rng.choice(words, 12)]
        rows.append({"id": f"d{i}", "en": " ".join(en), "sv": " ".join("s" + w for w in en)})
    return rows


def test_gibbs_threads_pltm_fit_records_the_thread_count(tmp_path, run_cli):
    from conftest import write_jsonl
    from tealeaves.multilingual.pltm_io import load_pltm

    tuples = write_jsonl(tmp_path / "t.jsonl", _tuples())
    argv = ["pltm", "fit", tuples, "-k", "3", "--n-chains", "1", "--n-iter", "15", "--max-df", "1", "--quiet"]
    for n_threads in ("1", "2"):
        assert run_cli([*argv, "--n-threads", n_threads, "-o", tmp_path / f"m{n_threads}"]).code == 0
    serial, _ = load_pltm(tmp_path / "m1")
    two, _ = load_pltm(tmp_path / "m2")
    assert serial.n_threads_ == 1 and "threads" not in serial.metadata_["description"]
    assert two.n_threads_ == 2 and two.metadata_["description"].endswith("/threads2")
    assert two.description().endswith("/threads2")
    assert not np.array_equal(serial.topic_word_["en"], two.topic_word_["en"])


def test_gibbs_threads_saved_gibbs_lda_keeps_the_thread_count(planted, tmp_path):
    from tealeaves.models import load_model

    model = GibbsLDA(K, n_iter=5, random_state=0, n_threads=2).fit(planted)
    loaded = load_model(model.save(tmp_path / "m.npz"))
    assert loaded.metadata_["source"]["n_threads"] == 2
    assert loaded.metadata_["description"].endswith("/threads2")


def test_gibbs_threads_default_is_every_core(planted, monkeypatch):
    """``n_threads=None`` (the default, issue 21) resolves to the cores this process may use."""
    import tealeaves._threads as threads
    from tealeaves.models import GibbsLDA
    from tealeaves.models.polylingual import PolylingualTopicModel

    assert GibbsLDA(3).n_threads is None and PolylingualTopicModel(3).n_threads is None
    monkeypatch.setattr(threads, "available_cores", lambda: 2)
    assert threads.resolve_threads(None) == 2
    model = GibbsLDA(K, n_iter=15, random_state=0).fit(planted)
    assert model.n_threads_ == 2 and model.metadata_["description"].endswith("/threads2")


def test_gibbs_threads_sweep_divides_the_cores_among_processes(monkeypatch):
    import argparse

    import tealeaves._threads as threads
    from tealeaves.sweep.cli import _with_threads

    monkeypatch.setattr(threads, "available_cores", lambda: 8)

    def settings(n_jobs, n_threads=None, given=None, engine="gibbs"):
        return _with_threads(argparse.Namespace(engine=engine, n_jobs=n_jobs, n_threads=n_threads), given)

    assert settings(1) is None  # every core for the one process: GibbsLDA's default
    assert settings(3) == {"n_threads": 2}
    assert settings(16) == {"n_threads": 1}
    assert settings(3, n_threads=4) == {"n_threads": 4}
    assert settings(3, given={"n_threads": 5, "n_iter": 9}) == {"n_threads": 5, "n_iter": 9}
    assert settings(4, engine="sklearn", given={"max_iter": 3}) == {"max_iter": 3}


def test_gibbs_threads_row_ranges_and_word_groups_mix_the_whole_order():
    rng = np.random.default_rng(3)
    row_tokens = np.r_[rng.integers(5, 50, 500), rng.integers(200, 400, 500)]  # long rows come last
    seg_start = np.r_[0, np.cumsum(row_tokens)]
    parts = par.row_parts(seg_start, np.arange(len(row_tokens)), 2)
    totals = np.bincount(parts, weights=row_tokens)
    assert abs(totals[0] - totals[1]) <= 0.01 * row_tokens.sum()  # balanced by tokens ...
    for half in (slice(0, 500), slice(500, 1000)):  # ... with rows of both halves in each range
        assert set(parts[half]) == {0, 1}
    # words: the sparse sampler's cost grows with the topic list (up to K topics), so a few very
    # frequent words weigh more than their tokens; each group gets about the same cost
    freq = np.r_[np.full(8, 5000), rng.integers(1, 30, 4000)]
    tokens = np.repeat(np.arange(len(freq)), freq)
    groups = par.word_groups(tokens, len(freq), 2, list_topics=80)
    cost = freq * (par.FIXED_COST + -(-np.minimum(freq, 80) // kern.CHUNK))
    by_group = np.bincount(groups, weights=cost)
    assert abs(by_group[0] - by_group[1]) <= cost.max()
    dense = par.word_groups(tokens, len(freq), 2)  # the dense sampler: every token costs K
    by_tokens = np.bincount(dense, weights=freq)
    assert abs(by_tokens[0] - by_tokens[1]) <= freq.max()


def test_gibbs_threads_chains_in_threads_each_on_three_threads_do_not_wait_for_each_other(planted):
    # two chains sampled at once (n_jobs) on 3 threads each: with one pool shared by the process, each
    # chain's first parts could hold its 2 workers while waiting at a barrier for parts queued
    # behind the other chain's
    fits = []
    worker = threading.Thread(target=lambda: fits.append(
        GibbsLDA(K, n_iter=20, n_chains=2, n_jobs=2, random_state=3, n_threads=3).fit(planted)), daemon=True)
    worker.start()
    worker.join(300)
    assert not worker.is_alive(), "the two chains waited for each other"
    assert fits[0].n_threads_ == 3 and np.isfinite(fits[0].topic_word_).all()


def test_gibbs_threads_stopped_sweep_leaves_the_totals_as_they_were(planted):
    model = GibbsLDA(K, n_iter=1, random_state=0, n_threads=1).fit(planted)
    lay = model.pltm_._lay
    n_words = len(planted.vocabulary)
    plan_ = par.plan(lay.tokens, lay.seg_start, lay.seg_lang, lay.seg_row, 2, n_words)
    rng = np.random.default_rng(0)
    z = rng.integers(0, K, len(lay.tokens)).astype(np.int32)
    tokens = lay.tokens[plan_.perm]
    n_wk = np.zeros((n_words, K), np.int32)
    np.add.at(n_wk, (tokens, z), 1)
    rows = np.repeat(plan_.seg_row, np.diff(plan_.seg_start))
    n_rk = np.zeros((lay.n_rows, K), np.int32)
    np.add.at(n_rk, (rows, z), 1)
    n_lk = np.bincount(z, minlength=K).astype(np.int32)[None, :]
    before = n_lk.copy()
    stop = np.ones(1, np.uint8)  # stopped before the first piece
    none = np.zeros(1, np.int32)
    priors = (np.full(K, 0.1), np.array([0.01]), np.array([0.01 * n_words]))
    par.parallel_sweeps(plan_, par.pipeline(n_lk, 2), np.array([1, 2]), z, n_lk, n_rk, *priors, True, tokens,
                        n_wk, np.zeros((1, 2), np.int32), none, 1, True, none, stop)
    np.testing.assert_array_equal(n_lk, before)  # no unfinished copies merged into the chain's totals
