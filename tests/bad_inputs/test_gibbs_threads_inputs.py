"""Odd inputs of one Gibbs chain on several threads (``n_threads`` of GibbsLDA and PolylingualTopicModel).

Corpora smaller than the plan of ``4 P`` row ranges and ``P`` word groups (one document, empty
documents, one word, unused vocabulary words, a document long enough for several pieces), polylingual
tuples with a missing side or unlinked, far more threads than cores, words or documents, every
schedule of likelihood, histograms and optimisation, odd parameter values, and ``pltm fit
--n-threads`` on tiny inputs and under Ctrl-C.

What each case checks is recomputed independently:

* :func:`_lockstep` re-implements the partition scheme in plain Python around the *serial* dense
  kernel: the threads' steps in lock step (at one step no two threads share a row range or a word
  group, so their order within a step does not matter), each thread's view of the topic totals
  taking the others' changes to the end of the previous sweep at step ``(P - 1) S``.  The threaded
  fit must give exactly its counts;
* :func:`_check_state` recounts the kept chain's word-, language- and row-topic counts from its
  topic assignments, and recomputes ``topic_word_``, ``doc_topic_`` and the last log-likelihood from
  them (``math.lgamma``);
* the chain must not depend on how its sweeps are batched (``evaluate_every``), on ``n_jobs``, or on a
  callback.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import run_cli_subprocess
from conftest import write_jsonl as _jsonl
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.corpus.aligned import AlignedCorpus, default_preprocessor
from tealeaves.errors import ParameterError
from tealeaves.models import _pltm_kernels as kern
from tealeaves.models import _pltm_parallel as par
from tealeaves.models import polylingual
from tealeaves.models._polylingual_layout import _chain_seed, _seeds
from tealeaves.models.lda_gibbs import GibbsLDA, _one_language
from tealeaves.models.polylingual import PolylingualTopicModel

#: Small documents over six words, one empty.
DOCS = [["a", "b", "c", "a"], ["b", "c", "d"], ["d", "e"], ["a"] * 5, [], ["e", "c", "f"], ["f", "a"]]


def _random_docs(n_docs: int, n_words: int, seed: int = 0, longest: int = 20) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    return [[f"w{i}" for i in rng.integers(0, n_words, rng.integers(0, longest))] for _ in range(n_docs)]


def _aligned(en: list, sv: list) -> AlignedCorpus:
    """English-Swedish tuples (``None``: the side is missing), every word kept."""
    return AlignedCorpus.from_texts({"en": en, "sv": sv}, [f"d{i}" for i in range(len(en))],
                                    {x: default_preprocessor(x, max_df=1.0) for x in ("en", "sv")})


#: Tuples with a missing side, an empty side, a tuple with no token and one word repeated.
TUPLES = _aligned(["cat dog mat", None, "", "sun moon star sun", "cat", None, "dog dog dog dog dog", "mat"],
                  [None, "katt hund", "sol", "sol mane", None, None, "hund", "matta sol"])


@pytest.fixture
def kept(monkeypatch):
    """The kept chain's state (z, counts, priors) of every fit in the test, in fit order."""
    states = []
    real = PolylingualTopicModel._store

    def store(self, res, lay, sizes):
        states.append(res)
        real(self, res, lay, sizes)

    monkeypatch.setattr(PolylingualTopicModel, "_store", store)
    return states


def _lockstep(pltm: PolylingualTopicModel, n_threads: int, n_iter: int, seed: int, K: int, alpha=0.1,
              beta=0.01) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(n_wk, n_rk, n_lk)`` after ``n_iter`` sweeps of the partition scheme on ``n_threads`` threads,
    run in lock step around the serial dense kernel (no optimisation)."""
    lay = pltm._lay
    sizes = np.array([len(pltm.vocabularies_[x]) for x in pltm.languages_])
    P, S = n_threads, par.RANGES_PER_THREAD
    R, L = P * S, len(sizes)
    seeds = _seeds(_chain_seed(seed, 0), n_iter + 1)
    z = np.zeros(len(lay.tokens), np.int32)
    n_wk = np.zeros((int(sizes.sum()), K), np.int32)
    n_lk = np.zeros((L, K), np.int32)
    n_rk = np.zeros((lay.n_rows, K), np.int32)
    kern.init_topics(lay.tokens, lay.seg_start, lay.seg_lang, lay.seg_row, z, n_wk, n_lk, n_rk, seeds[0])
    plan = par.plan(lay.tokens, lay.seg_start, lay.seg_lang, lay.seg_row, P, n_wk.shape[0])
    assert sorted(plan.perm) == list(range(len(lay.tokens)))
    tokens, z = lay.tokens[plan.perm], z[plan.perm]
    priors = (np.full(K, alpha), np.full(L, beta), beta * sizes.astype(float))
    base = n_lk.astype(np.int64)
    views = [n_lk.copy() for _ in range(P)]
    seen = [np.zeros((L, K), np.int64) for _ in range(P)]
    ends = []  # each sweep's changes of each thread since the start
    for g in range(n_iter):
        for step in range(R):
            for q in range(P):
                if step == (P - 1) * S and g > 0:
                    others = sum(ends[g - 1][o] for o in range(P) if o != q)
                    views[q] += (others - seen[q]).astype(np.int32)
                    seen[q] = others
                block = ((step + q * S) % R) * P + q
                lo, hi = plan.block_seg[block], plan.block_seg[block + 1]
                bounds = [lo]  # pieces of about PIECE_TOKENS tokens, whole segments each
                while bounds[-1] < hi:
                    e = bounds[-1] + 1
                    while e < hi and plan.seg_start[e] - plan.seg_start[bounds[-1]] < par.PIECE_TOKENS:
                        e += 1
                    bounds.append(e)
                for piece, (s, e) in enumerate(zip(bounds[:-1], bounds[1:])):
                    stream = par.stream_seed(seeds[g + 1], block, piece)
                    kern.gibbs_sweep(tokens, plan.seg_start[s : e + 1], plan.seg_lang[s:e], plan.seg_row[s:e],
                                     z, n_wk, views[q], n_rk, *priors, stream, True)
        ends.append([views[q].astype(np.int64) - base - seen[q] for q in range(P)])
    return n_wk, n_rk, base + sum(ends[-1])


def _lgamma(x) -> np.ndarray:
    return np.vectorize(math.lgamma)(np.asarray(x, dtype=float))


def _check_state(pltm: PolylingualTopicModel, res: dict) -> None:
    """The kept chain's counts equal those recounted from its topics, and the fitted attributes and the
    last log-likelihood equal those recomputed from the counts."""
    lay, z, K = pltm._lay, res["z"], len(pltm.alpha_)
    assert len(z) == pltm.n_tokens_ and ((z >= 0) & (z < K)).all()
    n_wk = np.zeros_like(res["n_wk"])
    np.add.at(n_wk, (lay.tokens, z), 1)
    np.testing.assert_array_equal(res["n_wk"], n_wk)
    langs = np.repeat(lay.seg_lang, np.diff(lay.seg_start))
    rows = np.repeat(lay.seg_row, np.diff(lay.seg_start))
    n_lk = np.zeros_like(res["n_lk"])
    np.add.at(n_lk, (langs, z), 1)
    np.testing.assert_array_equal(res["n_lk"], n_lk)
    n_rk = np.zeros_like(res["n_rk"])
    np.add.at(n_rk, (rows, z), 1)
    np.testing.assert_array_equal(res["n_rk"], n_rk)
    assert n_wk.sum() == n_lk.sum() == n_rk.sum() == pltm.n_tokens_
    alpha, ll = res["alpha"], 0.0
    for li, lang in enumerate(pltm.languages_):
        block = n_wk[pltm._offsets[li] : pltm._offsets[li + 1]].astype(float)
        b = res["beta"][li]
        phi = pltm.topic_word_[lang]
        assert np.isfinite(phi).all() and (phi > 0).all()
        np.testing.assert_allclose(phi, (block + b).T / (block.sum(axis=0) + b * len(block))[:, None],
                                   rtol=1e-12)
        ll += (_lgamma(block + b) - _lgamma(b)).sum()
        ll += (_lgamma(b * len(block)) - _lgamma(block.sum(axis=0) + b * len(block))).sum()
    ll += (_lgamma(n_rk + alpha) - _lgamma(alpha)).sum()
    ll += (_lgamma(alpha.sum()) - _lgamma(n_rk.sum(axis=1) + alpha.sum())).sum()
    assert pltm.log_likelihood_trace_[-1] == pytest.approx(ll, rel=1e-9)
    assert np.isfinite(pltm.log_likelihood_trace_).all()
    theta = pltm.doc_topic_
    assert np.isfinite(theta).all() and (theta > 0).all()
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)


def _check_lda(model: GibbsLDA, corpus: Corpus, res: dict) -> None:
    """:func:`_check_state`, and each document's ``theta`` from its own tokens' topics."""
    _check_state(model.pltm_, res)
    doc = np.repeat(np.arange(len(corpus)), np.diff(corpus.offsets))
    np.testing.assert_array_equal(corpus.tokens, model.pltm_._lay.tokens)  # the chain's own token order
    counts = np.zeros((len(corpus), model.n_components))
    np.add.at(counts, (doc, res["z"]), 1)
    theta = counts + model.doc_topic_prior_
    np.testing.assert_allclose(model.doc_topic_, theta / theta.sum(axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(model.topic_word_.sum(axis=1), 1.0)


def _fit_lda(corpus: Corpus, K: int, n_threads: int, n_iter: int, seed: int = 3, **kw) -> GibbsLDA:
    return GibbsLDA(K, n_iter=n_iter, random_state=seed, n_threads=n_threads, sampler="dense",
                    optimize_interval=0, **kw).fit(corpus)


def _assert_lockstep(model, res: dict, n_threads: int, n_iter: int, seed: int, K: int) -> None:
    """The kept chain's counts are those of :func:`_lockstep` (the fit's ``res``), exactly."""
    pltm = model.pltm_ if isinstance(model, GibbsLDA) else model
    n_wk, n_rk, n_lk = _lockstep(pltm, n_threads, n_iter, seed, K)
    np.testing.assert_array_equal(res["n_wk"], n_wk)
    np.testing.assert_array_equal(res["n_rk"], n_rk)
    np.testing.assert_array_equal(res["n_lk"], n_lk)


# ------------------------------------------------------------------------------------------------
# corpora smaller than the plan
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n_docs", [1, 2, 3, 7])
@pytest.mark.parametrize("n_threads", [2, 3, 5, 8, 16])
def test_threads_on_fewer_documents_than_ranges_follow_the_lockstep_schedule(kept, n_docs, n_threads):
    corpus = Corpus.from_token_lists(DOCS[:n_docs])
    model = _fit_lda(corpus, 2, n_threads, n_iter=4)
    assert model.n_threads_ == n_threads
    _check_lda(model, corpus, kept[-1])
    _assert_lockstep(model, kept[-1], n_threads, 4, 3, 2)


@pytest.mark.parametrize("n_threads", [2, 4])
def test_threads_on_a_corpus_of_empty_documents_but_one(kept, n_threads):
    corpus = Corpus.from_token_lists([[], [], ["x", "y", "x", "z"], [], []])
    model = _fit_lda(corpus, 3, n_threads, n_iter=5)
    _check_lda(model, corpus, kept[-1])
    _assert_lockstep(model, kept[-1], n_threads, 5, 3, 3)
    prior = model.doc_topic_prior_ / model.doc_topic_prior_.sum()
    for d in (0, 1, 3, 4):  # an empty document gets the prior mean
        np.testing.assert_allclose(model.doc_topic_[d], prior)


@pytest.mark.parametrize("sampler", ["dense", "sparse"])
def test_threads_every_token_one_word_of_a_vocabulary_with_unused_words(kept, sampler):
    # the whole chain in one word group: the other threads have nothing to sample
    vocabulary = Vocabulary(["never", "only", "unused"])
    corpus = Corpus.from_token_lists([["only"] * n for n in (3, 1, 7, 2)], vocabulary=vocabulary)
    model = GibbsLDA(3, n_iter=12, random_state=4, n_threads=3, sampler=sampler, optimize_interval=4,
                     optimize_burn_in=0, sample_interval=1).fit(corpus)
    _check_lda(model, corpus, kept[-1])
    unused = model.topic_word_[:, [0, 2]]  # beta / (n_k + V beta) in every topic
    np.testing.assert_allclose(unused[:, 0], unused[:, 1])
    n_k = kept[-1]["n_wk"].sum(axis=0)
    np.testing.assert_allclose(unused[:, 0], model.beta_ / (n_k + 3 * model.beta_))


@pytest.mark.parametrize("n_threads", [2, 5])
def test_threads_one_topic_gives_the_serial_chain(kept, n_threads):
    # with K = 1 every draw is topic 0: any thread count must give the serial numbers exactly
    corpus = Corpus.from_token_lists(_random_docs(12, 5, seed=1))
    fits = [GibbsLDA(1, n_iter=7, random_state=2, n_threads=p, optimize_interval=2, optimize_burn_in=0,
                     sample_interval=1, evaluate_every=3).fit(corpus) for p in (1, n_threads)]
    np.testing.assert_array_equal(fits[0].topic_word_, fits[1].topic_word_)
    np.testing.assert_array_equal(fits[0].log_likelihood_trace_, fits[1].log_likelihood_trace_)
    np.testing.assert_array_equal(fits[0].doc_topic_prior_, fits[1].doc_topic_prior_)
    assert fits[0].beta_ == fits[1].beta_
    _check_lda(fits[1], corpus, kept[-1])
    phi = np.bincount(corpus.tokens, minlength=5) + fits[1].beta_
    np.testing.assert_allclose(fits[1].topic_word_[0], phi / phi.sum(), rtol=1e-12)


def test_threads_one_word_vocabulary(kept):
    corpus = Corpus.from_token_lists([["w"] * 4, ["w"], []])
    model = GibbsLDA(1, n_iter=3, random_state=0, n_threads=4).fit(corpus)
    _check_lda(model, corpus, kept[-1])
    np.testing.assert_array_equal(model.topic_word_, [[1.0]])
    np.testing.assert_array_equal(model.doc_topic_, np.ones((3, 1)))


def test_threads_long_documents_sampled_in_several_pieces_follow_the_lockstep_schedule(kept):
    # 24 documents of 140,000 tokens on 2 threads: 3 documents a row range, so a block of more than
    # PIECE_TOKENS tokens, sampled in 2 pieces of its own streams; the rare word is in the same group
    rows, per = 24, 140_000
    rng = np.random.default_rng(0)
    tokens = (rng.random(rows * per) < 0.01).astype(np.int32)
    corpus = Corpus(Vocabulary(["often", "rare", "never"]), tokens, np.arange(rows + 1) * per,
                    [f"d{i}" for i in range(rows)])
    model = _fit_lda(corpus, 2, 2, n_iter=2, seed=0)
    lay = model.pltm_._lay
    plan = par.plan(lay.tokens, lay.seg_start, lay.seg_lang, lay.seg_row, 2, 3)
    pieces = [len(par._pieces(plan.seg_start, plan.block_seg[b], plan.block_seg[b + 1])) - 1
              for b in range(16)]
    assert max(pieces) >= 2  # the case is what it says
    _check_lda(model, corpus, kept[-1])
    _assert_lockstep(model, kept[-1], 2, 2, 0, 2)


def test_threads_one_very_long_document(kept):
    rng = np.random.default_rng(5)
    corpus = Corpus.from_token_lists([[f"w{i}" for i in rng.integers(0, 50, 30_000)]])
    model = _fit_lda(corpus, 4, 3, n_iter=3)
    _check_lda(model, corpus, kept[-1])
    _assert_lockstep(model, kept[-1], 3, 3, 3, 4)


# ------------------------------------------------------------------------------------------------
# polylingual tuples
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("link_fraction", [1.0, 0.5, 0.0])
@pytest.mark.parametrize("n_threads", [2, 8])
def test_threads_tuples_with_a_missing_side_follow_the_lockstep_schedule(kept, link_fraction, n_threads):
    model = PolylingualTopicModel(3, n_iter=6, random_state=2, n_threads=n_threads, sampler="dense",
                                  optimize_interval=0, link_fraction=link_fraction).fit(TUPLES)
    _check_state(model, kept[-1])
    _assert_lockstep(model, kept[-1], n_threads, 6, 2, 3)
    lay = model._lay
    both = np.ones(len(TUPLES), bool)
    for lang in ("en", "sv"):
        both &= np.diff(TUPLES.corpora[lang].offsets) > 0
    assert (np.bincount(lay.seg_row) == 2).sum() == (both & model.linked_).sum()  # linked rows of two sides
    assert model.linked_.sum() == round(link_fraction * len(TUPLES))
    parts = par.row_parts(lay.seg_start, lay.seg_row, n_threads * par.RANGES_PER_THREAD)
    for row in np.unique(lay.seg_row):  # a linked tuple's sides in one range
        assert len(set(parts[lay.seg_row == row])) == 1


@pytest.mark.parametrize("sampler", ["dense", "sparse"])
def test_threads_tuples_with_optimisation_every_sweep(kept, sampler):
    model = PolylingualTopicModel(3, n_iter=9, random_state=1, n_threads=3, sampler=sampler,
                                  link_fraction=0.5, optimize_interval=1, optimize_burn_in=0,
                                  sample_interval=1, evaluate_every=4).fit(TUPLES)
    _check_state(model, kept[-1])
    assert np.isfinite(model.alpha_).all() and (model.alpha_ > 0).all()
    assert all(np.isfinite(b) and b > 0 for b in model.beta_.values())
    theta = model.language_doc_topic("sv")
    assert np.isfinite(theta).all()
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)


# ------------------------------------------------------------------------------------------------
# more threads than cores, words or documents
# ------------------------------------------------------------------------------------------------
def test_threads_far_more_than_cores_words_and_documents(kept):
    corpus = Corpus.from_token_lists(DOCS[:3])
    model = _fit_lda(corpus, 2, 64, n_iter=2)
    assert model.n_threads_ == 64 and model.description().endswith("/threads64")
    assert np.isfinite(model.sampling_cpu_seconds_) and model.sampling_cpu_seconds_ > 0
    _check_lda(model, corpus, kept[-1])
    _assert_lockstep(model, kept[-1], 64, 2, 3, 2)


@pytest.mark.parametrize("given", [np.int64(3), np.int32(3)])
def test_threads_numpy_integer_thread_count_is_the_same_chain(given):
    corpus = Corpus.from_token_lists(_random_docs(20, 12))
    fits = [GibbsLDA(3, n_iter=5, random_state=1, n_threads=p).fit(corpus) for p in (given, 3)]
    assert fits[0].n_threads_ == 3 and type(fits[0].n_threads_) is int
    np.testing.assert_array_equal(fits[0].topic_word_, fits[1].topic_word_)


def test_threads_none_is_every_available_core():
    import os

    corpus = Corpus.from_token_lists(_random_docs(20, 12))
    cores = len(os.sched_getaffinity(0))
    fits = [GibbsLDA(3, n_iter=5, random_state=1, n_threads=p).fit(corpus) for p in (None, cores)]
    assert fits[0].n_threads_ == cores
    np.testing.assert_array_equal(fits[0].topic_word_, fits[1].topic_word_)


@pytest.mark.parametrize("n_threads", [10**20, 10**9, 10**6, 257])
def test_threads_absurd_thread_count_refused(n_threads):
    # n_threads has a cap (MAX_THREADS, 256): before it, 10**20 raised OverflowError in the plan, 10**9 a
    # ValueError ('array is too big', a block table of 4 P**2 entries) and 10**6 a MemoryError
    corpus = Corpus.from_token_lists(DOCS[:3])
    with pytest.raises(ParameterError, match="n_threads"):
        GibbsLDA(2, n_iter=2, n_threads=n_threads).fit(corpus)


# ------------------------------------------------------------------------------------------------
# schedules: n_iter, evaluate_every, optimisation, histograms
# ------------------------------------------------------------------------------------------------
def _expected_batches(n_iter, evaluate_every, optimize_interval, optimize_burn_in, sample_interval):
    """The calls of the threaded sampler, recomputed: a call ends at a likelihood, a histogram, before an
    optimisation, after MAX_BATCH sweeps, or at n_iter."""
    def reads(it):
        return (it % evaluate_every == 0 or it == n_iter
                or (optimize_interval and it >= optimize_burn_in and it % sample_interval == 0))

    def optimises(it):
        return optimize_interval > 0 and it > optimize_burn_in and it % optimize_interval == 0

    calls, length = [], 0
    for it in range(1, n_iter + 1):
        length += 1
        if reads(it) or optimises(it + 1) or length == polylingual.MAX_BATCH:
            calls.append(length)
            length = 0
    return calls


SCHEDULES = [  # n_iter, evaluate_every, optimize_interval, optimize_burn_in, sample_interval
    (1, 10, 0, 0, 1), (1, 1, 1, 0, 1), (9, 100, 0, 0, 1), (10, 100, 0, 0, 1), (11, 100, 0, 0, 1),
    (31, 7, 0, 0, 1), (25, 1, 0, 0, 1), (30, 50, 4, 0, 3), (30, 50, 1, 0, 1), (40, 13, 6, 11, 5),
]


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_threads_schedule_batches_and_leaves_the_chain_as_one_sweep_a_call(kept, monkeypatch, schedule):
    n_iter, every, interval, burn_in, sample = schedule
    calls = []
    real = par.parallel_sweeps
    monkeypatch.setattr(par, "parallel_sweeps", lambda *a, **k: (calls.append(len(a[2])), real(*a, **k))[1])
    corpus = Corpus.from_token_lists(_random_docs(30, 15, seed=2))
    settings = dict(n_iter=n_iter, random_state=7, n_threads=2, optimize_interval=interval,
                    optimize_burn_in=burn_in, sample_interval=sample)
    model = GibbsLDA(3, evaluate_every=every, **settings).fit(corpus)
    assert calls == _expected_batches(n_iter, every, interval, burn_in, sample)
    expected_at = [it for it in range(1, n_iter + 1) if it % every == 0 or it == n_iter]
    assert list(model.log_likelihood_iterations_) == expected_at
    _check_lda(model, corpus, kept[-1])
    calls.clear()
    each = GibbsLDA(3, evaluate_every=1, **settings).fit(corpus)  # one sweep a call
    assert calls == [1] * n_iter
    np.testing.assert_array_equal(each.topic_word_, model.topic_word_)
    np.testing.assert_array_equal(each.doc_topic_prior_, model.doc_topic_prior_)
    assert each.beta_ == model.beta_
    np.testing.assert_array_equal(each.log_likelihood_trace_[np.array(expected_at) - 1],
                                  model.log_likelihood_trace_)


@pytest.mark.parametrize("sampler", ["dense", "sparse"])
def test_threads_chain_does_not_depend_on_n_jobs_or_a_callback(sampler):
    corpus = _one_language(Corpus.from_token_lists(_random_docs(25, 14, seed=3)))
    settings = dict(n_iter=14, random_state=5, n_threads=2, n_chains=2, sampler=sampler, optimize_interval=3,
                    optimize_burn_in=2, sample_interval=2)
    seen = []
    fits = [PolylingualTopicModel(3, n_jobs=1, **settings).fit(corpus),
            PolylingualTopicModel(3, n_jobs=2, **settings).fit(corpus),
            PolylingualTopicModel(3, n_jobs=1, **settings).fit(corpus, callback=seen.append)]
    for other in fits[1:]:
        np.testing.assert_array_equal(fits[0].chain_log_likelihoods_, other.chain_log_likelihoods_)
        np.testing.assert_array_equal(fits[0].topic_word_["text"], other.topic_word_["text"])
        np.testing.assert_array_equal(fits[0].alpha_, other.alpha_)
    assert [(s.chain, s.sweep) for s in seen] == [(c, i) for c in range(2) for i in range(1, 15)]
    for chain in range(2):
        seconds = [s.cpu_seconds for s in seen if s.chain == chain]
        assert all(b >= a for a, b in zip(seconds, seconds[1:])) and seconds[0] >= 0
    assert {s.n_tokens for s in seen} == {fits[0].n_tokens_}


BAD_SCHEDULES = [
    {"evaluate_every": 0}, {"evaluate_every": -4}, {"evaluate_every": 2.7}, {"evaluate_every": "3"},
    {"evaluate_every": float("nan")}, {"evaluate_every": None},
    {"sample_interval": 0}, {"sample_interval": -1}, {"sample_interval": 2.5},
]


@pytest.mark.parametrize("setting", BAD_SCHEDULES)
def test_threads_gibbs_lda_bad_schedule_refused(setting):
    name = next(iter(setting))
    with pytest.raises(ParameterError, match=f"{name} must be a whole number >= 1"):
        GibbsLDA(2, n_iter=3, n_threads=2, optimize_interval=2, optimize_burn_in=0,
                 **setting).fit(Corpus.from_token_lists(DOCS))


@pytest.mark.parametrize("setting", BAD_SCHEDULES)
def test_threads_pltm_bad_schedule_refused(setting):
    # GibbsLDA refuses each of these (the test above); the polylingual model should too
    name = next(iter(setting))
    with pytest.raises(ParameterError, match=name):
        PolylingualTopicModel(2, n_iter=3, n_threads=2, optimize_interval=2, optimize_burn_in=0,
                              **setting).fit(TUPLES)


@pytest.mark.parametrize("setting, error, fragment", [
    ({"alpha": np.array([0.1, np.nan, 0.1])}, "InvalidModelError", "alpha) must be positive and finite"),
    ({"alpha": np.array([0.1, np.inf, 0.1])}, "InvalidModelError", "alpha) must be positive and finite"),
    ({"alpha": np.array([0.1, 0.0, 0.1])}, "InvalidModelError", "alpha) must be positive and finite"),
    ({"beta": float("nan")}, "ParameterError", "beta must be a finite number"),
    ({"beta": float("inf")}, "ParameterError", "beta must be a finite number"),
    ({"alpha": -1.0}, "ParameterError", "alpha must be a number > 0"),
])
def test_threads_pltm_bad_priors_refused(setting, error, fragment):
    with pytest.raises(ValueError, match=fragment.replace("(", r"\(").replace(")", r"\)")) as caught:
        PolylingualTopicModel(3, n_iter=3, n_threads=2, **setting).fit(TUPLES)
    assert type(caught.value).__name__ == error


@pytest.mark.parametrize("alpha", [np.array([0.1, 0.2]), np.array([[0.1, 0.1, 0.1]])])
def test_threads_pltm_alpha_of_the_wrong_length_refused(alpha):
    with pytest.raises(ValueError, match="alpha"):
        PolylingualTopicModel(3, n_iter=3, n_threads=2, alpha=alpha).fit(TUPLES)


# ------------------------------------------------------------------------------------------------
# the command line
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("rows, n_threads", [
    ([{"id": "only", "en": "cat dog cat", "sv": "katt hund katt"}], 2),  # one tuple
    ([{"id": "a", "en": "cat dog", "sv": None}, {"id": "b", "en": None, "sv": "katt hund"},
      {"id": "c", "en": "cat", "sv": "katt"}], 16),  # sides missing, more threads than tuples
])
def test_threads_pltm_fit_on_tiny_tuples(tmp_path, run_cli, rows, n_threads):
    from tealeaves.multilingual.pltm_io import load_pltm

    tuples = _jsonl(tmp_path / "t.jsonl", rows)
    result = run_cli(["pltm", "fit", tuples, "-k", "2", "--n-chains", "2", "--n-iter", "12", "--max-df", "1",
                      "--optimize-interval", "3", "--optimize-burn-in", "0", "--n-threads", n_threads,
                      "--seed", "4", "-o", tmp_path / "m", "--quiet"])
    assert result.code == 0, result.err
    model, _ = load_pltm(tmp_path / "m")
    assert model.n_threads_ == n_threads
    for lang in ("en", "sv"):
        phi = model.topic_word_[lang]
        assert np.isfinite(phi).all() and (phi > 0).all()
        np.testing.assert_allclose(phi.sum(axis=1), 1.0)
    np.testing.assert_allclose(model.doc_topic_.sum(axis=1), 1.0)
    assert len(model.doc_topic_) == len(rows)


def test_threads_pltm_fit_absurd_thread_count_is_a_clean_error(tmp_path):
    tuples = _jsonl(tmp_path / "t.jsonl", [{"id": f"d{i}", "en": "cat dog mat", "sv": "katt hund matta"}
                                           for i in range(4)])
    run = run_cli_subprocess(["pltm", "fit", tuples, "-k", "2", "--n-iter", "2", "--max-df", "1",
                              "--n-threads", 10**20, "-o", tmp_path / "m"])
    lines = run.err.splitlines()
    assert run.code in (1, 2) and "Traceback" not in run.err, run.err
    assert lines[-1].startswith("tealeaves: error: ") and "internal error" not in run.err, run.err
    assert "n-threads" in lines[-1] or "n_threads" in lines[-1], run.err
    assert not (tmp_path / "m").exists()


def test_threads_sweep_absurd_thread_count_is_a_clean_error(tmp_path, cli_error):
    from test_sweep_runs import write_corpus

    corpus = write_corpus(tmp_path / "c.txt", n_docs=30)
    cli_error(["sweep", corpus, "--n-components", "2", "--seeds", "1", "--engine", "gibbs", "--settings",
               '{"n_threads": 100000000000000000000, "n_iter": 2}', "-o", tmp_path / "s.sqlite"], "n_threads")


@pytest.mark.xdist_group("interrupts")
@pytest.mark.parametrize("delay, n_threads, k, n_chains", [
    (0.2, 2, 3, 1),
    (0.5, 8, 3, 1),  # more threads than cores: threads waiting for one another must see the flag
    (1.0, 2, 3, 2),  # two chains in threads (-j 2), two threads each
    (2.0, 3, 20, 1),  # the sparse sampler
])
def test_threads_pltm_fit_interrupted_on_a_tiny_corpus(tmp_path, delay, n_threads, k, n_chains):
    # a tiny corpus: each call of the threaded sampler (up to ten sweeps) takes well under a
    # millisecond, so the signal lands between two calls as often as in one
    from test_interrupts import interrupt

    rng = np.random.default_rng(0)
    words = [a + b for a in "bcdfgh" for b in "aeiou"]
    rows = [{"id": f"d{i}", "en": " ".join(rng.choice(words, 8)), "sv": " ".join(rng.choice(words, 6))}
            for i in range(30)]
    _jsonl(tmp_path / "t.jsonl", rows)
    interrupt(["pltm", "fit", "t.jsonl", "-k", k, "--n-chains", n_chains, "-j", n_chains, "--n-iter",
               "1000000", "--max-df", "1", "--n-threads", n_threads, "-o", "model", "--quiet"], tmp_path,
              after_kernel=delay, kernel="parallel_sweeps", between=1.0)
    assert not (tmp_path / "model").exists()


def test_threads_more_than_the_cores_warn_and_give_the_same_chain(monkeypatch):
    from tealeaves.models import polylingual as poly

    corpus = Corpus.from_token_lists(DOCS[:3])
    fitted = GibbsLDA(2, n_iter=3, random_state=2, n_threads=3).fit(corpus)
    monkeypatch.setattr(poly, "available_cores", lambda: 2)
    with pytest.warns(UserWarning, match=r"n_threads=3 is more than the 2 cores .* n_threads=2"):
        again = GibbsLDA(2, n_iter=3, random_state=2, n_threads=3).fit(corpus)
    np.testing.assert_array_equal(fitted.topic_word_, again.topic_word_)
