"""GibbsLDA: one-language LDA on the polylingual kernels (recovery, exactness, seeds, completion)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment
from scipy.special import gammaln

from tealeaves.corpus import Corpus, Preprocessor, Vocabulary
from tealeaves.errors import InvalidModelError, ParameterError, TealeavesError
from tealeaves.likelihood.completion import document_completion
from tealeaves.models import FixedTopicModel, load_model
from tealeaves.models import _pltm_kernels as kern
from tealeaves.models.lda_gibbs import GibbsLDA, _one_language
from tealeaves.models.polylingual import PolylingualTopicModel, _layout

K, V = 5, 50
WORDS = ["".join(p) for p in itertools.product("abcdefgh", repeat=2)][:V]  # letters survive preprocessing


def draw_lda(n_docs: int, seed: int, phi=None, alpha: float = 0.1, length: int = 80):
    """Documents drawn from LDA with known topics ``phi`` (K x V) and symmetric ``alpha``."""
    rng = np.random.default_rng(seed)
    if phi is None:
        phi = rng.dirichlet(np.full(V, 0.1), size=K)
    theta = rng.dirichlet(np.full(K, alpha), size=n_docs)
    docs = []
    for d in range(n_docs):
        z = rng.choice(K, size=length, p=theta[d])
        docs.append(np.array([rng.choice(V, p=phi[k]) for k in z], dtype=np.int32))
    offsets = np.concatenate([[0], np.cumsum([len(d) for d in docs])])
    corpus = Corpus(Vocabulary(WORDS), np.concatenate(docs), offsets, [str(d) for d in range(n_docs)])
    return corpus, phi, theta


@pytest.fixture(scope="module")
def data():
    return draw_lda(400, 5)


@pytest.fixture(scope="module")
def fitted(data):
    corpus, _, _ = data
    # three seeded chains, the best kept: a single chain can settle in the mode that merges two topics
    return GibbsLDA(K, n_iter=300, optimize_interval=25, burn_in=50, n_chains=3, random_state=2,
                    sampler="sparse").fit(corpus)


def _matched_cosines(estimated, true):
    a = estimated / np.linalg.norm(estimated, axis=1, keepdims=True)
    b = true / np.linalg.norm(true, axis=1, keepdims=True)
    sims = a @ b.T
    rows, cols = linear_sum_assignment(-sims)
    return sims[rows, cols], cols


def test_recovers_known_topics(data, fitted):
    _, phi, _ = data
    cos, _ = _matched_cosines(fitted.topic_word_, phi)
    assert cos.mean() > 0.99
    np.testing.assert_allclose(fitted.topic_word_.sum(axis=1), 1.0)
    assert fitted.doc_topic_.shape == (400, K)


@pytest.mark.parametrize("sampler", ["dense", "sparse"])
def test_both_samplers_recover_topics_and_alpha(data, sampler):
    corpus, phi, _ = data
    model = GibbsLDA(K, n_iter=200, optimize_interval=20, burn_in=40, sampler=sampler, n_chains=3,
                     random_state=4).fit(corpus)
    assert model.log_likelihood_trace_[-1] == model.chain_log_likelihoods_.max()
    cos, _ = _matched_cosines(model.topic_word_, phi)
    assert cos.mean() > 0.99
    # the documents were drawn with alpha_k = 0.1 and phi ~ Dir(0.1): the optimiser lands near both
    assert 0.06 < model.doc_topic_prior_.mean() < 0.16
    assert 0.06 < model.beta_ < 0.16


def test_fixed_seeds_repeat_exactly(data):
    corpus, _, _ = data
    small = corpus.subset(range(80))
    a, b, c = (GibbsLDA(K, n_iter=30, random_state=s, sampler="sparse").fit(small) for s in (3, 3, 4))
    np.testing.assert_array_equal(a.topic_word_, b.topic_word_)
    np.testing.assert_array_equal(a.log_likelihood_trace_, b.log_likelihood_trace_)
    assert not np.array_equal(a.topic_word_, c.topic_word_)
    np.testing.assert_array_equal(a.transform(small.subset(range(5))), b.transform(small.subset(range(5))))
    threaded = GibbsLDA(K, n_iter=30, n_chains=2, n_jobs=2, random_state=3, sampler="sparse").fit(small)
    serial = GibbsLDA(K, n_iter=30, n_chains=2, random_state=3, sampler="sparse").fit(small)
    np.testing.assert_array_equal(threaded.topic_word_, serial.topic_word_)


@pytest.mark.parametrize("sampler", ["sparse", "dense"])
def test_sampler_matches_exact_lda_posterior(sampler):
    # two documents over three words: (0, 1, 1) and (2, 1); every one of 2^5 assignments enumerated
    corpus = Corpus(Vocabulary(["a", "b", "c"]), np.array([0, 1, 1, 2, 1], np.int32), np.array([0, 3, 5]),
                    ["0", "1"])
    alpha, beta = np.array([0.4, 0.9]), 0.3
    lay = _layout(_one_language(corpus), ["text"], np.array([0, 3]), np.ones(2, bool))
    doc = np.repeat(np.arange(2), [3, 2])

    def log_joint(z):  # closed-form Dirichlet-multinomial evidence of documents and topics
        z = np.asarray(z)
        lp = 0.0
        for d in range(2):
            n = np.bincount(z[doc == d], minlength=2)
            lp += gammaln(alpha.sum()) - gammaln(n.sum() + alpha.sum())
            lp += np.sum(gammaln(n + alpha) - gammaln(alpha))
        for k in range(2):
            n = np.bincount(corpus.tokens[z == k], minlength=3)
            lp += gammaln(3 * beta) - gammaln(n.sum() + 3 * beta) + np.sum(gammaln(n + beta) - gammaln(beta))
        return lp

    states = list(itertools.product(range(2), repeat=5))
    exact = np.exp([log_joint(s) for s in states])
    exact /= exact.sum()
    z = np.zeros(5, np.int32)
    n_wk, n_lk, n_rk = np.zeros((3, 2), np.int32), np.zeros((1, 2), np.int32), np.zeros((2, 2), np.int32)
    kern.init_topics(lay.tokens, lay.seg_start, lay.seg_lang, lay.seg_row, z, n_wk, n_lk, n_rk, 9)
    sweep, _ = PolylingualTopicModel(sampler=sampler)._sweeper(lay, n_wk, 2)
    index = {s: i for i, s in enumerate(states)}
    freq = np.zeros(len(states))
    n_sweeps = 40_000
    for it in range(n_sweeps):
        sweep(z, n_lk, n_rk, alpha, np.array([beta]), np.array([3 * beta]), 100 + it)
        freq[index[tuple(z)]] += 1
    assert 0.5 * np.abs(freq / n_sweeps - exact).sum() < 0.02


def test_document_completion_is_close_to_the_true_model(data, fitted):
    corpus, phi, _ = data
    test, _, _ = draw_lda(150, 77, phi=phi)
    ours = document_completion(fitted, test, seed=1)
    truth = document_completion(FixedTopicModel(phi, corpus.vocabulary, 0.1), test, seed=1)
    # the same held-out words are scored; a recovered model predicts them about as well as the truth
    assert ours.n_heldout_words == truth.n_heldout_words
    assert ours.perplexity == pytest.approx(truth.perplexity, rel=0.03)
    assert ours.perplexity < 0.5 * V
    assert "gibbs-lda/K5" in str(ours.signature)


def test_transform_recovers_held_out_mixtures(data, fitted):
    corpus, phi, _ = data
    new, _, theta = draw_lda(100, 31, phi=phi)
    inferred = fitted.transform(new)
    np.testing.assert_allclose(inferred.sum(axis=1), 1.0)
    _, cols = _matched_cosines(fitted.topic_word_, phi)
    assert np.mean(cols[inferred.argmax(axis=1)] == theta.argmax(axis=1)) > 0.85


def test_metadata_records_preprocessing_and_survives_save(tmp_path):
    rng = np.random.default_rng(0)
    texts = [" ".join(rng.choice(WORDS[:20], size=30)) for _ in range(40)]
    prep = Preprocessor(stop_words=None)
    corpus = prep.fit_transform(texts)
    model = GibbsLDA(3, n_iter=20, random_state=1, n_threads=1).fit(corpus)  # the serial chain's description
    assert model.metadata_["preprocessing"] == prep.get_params()
    assert model.metadata_["source"]["class"] == "GibbsLDA"
    assert model.metadata_["description"] == model.description() == "gibbs-lda/K3/it20/opt50/dense/seed1"
    loaded = load_model(model.save(tmp_path / "lda.npz"))
    np.testing.assert_allclose(loaded.topic_word_, model.topic_word_)
    np.testing.assert_allclose(loaded.doc_topic_prior_, model.doc_topic_prior_)
    assert loaded.metadata_["preprocessing"] == prep.get_params()


@pytest.mark.parametrize(
    ("params", "error", "fragment"),
    [
        ({"n_components": 0}, InvalidModelError, "n_components must be at least 1"),
        ({"n_components": 60}, InvalidModelError, "larger than the vocabulary"),
        ({"sampler": "alias"}, ParameterError, "sampler must be one of auto, sparse, dense"),
        ({"n_iter": 0}, ParameterError, "n_iter"),
        ({"alpha": float("nan")}, ParameterError, "alpha"),
        ({"beta": -1.0}, ParameterError, "beta"),
        ({"burn_in": 1.5}, ParameterError, "burn_in"),
    ],
)
def test_bad_parameters(data, params, error, fragment):
    corpus, _, _ = data
    with pytest.raises(error, match=fragment):
        GibbsLDA(**{"n_components": K, "n_iter": 2, **params}).fit(corpus.subset(range(10)))


def test_auto_sampler_is_dense_below_20_topics_and_sparse_from_20(data):
    corpus, _, _ = data
    small = corpus.subset(range(30))
    assert GibbsLDA(19, n_iter=2).fit(small).sampler_ == "dense"
    # 20 topics: the sparse kernel, giving exactly the explicit sparse chain
    auto, sparse = GibbsLDA(20, n_iter=5).fit(small), GibbsLDA(20, n_iter=5, sampler="sparse").fit(small)
    assert auto.sampler_ == "sparse" and auto.metadata_["source"]["sampler"] == "sparse"
    np.testing.assert_array_equal(auto.topic_word_, sparse.topic_word_)


def test_bad_transform_input(data, fitted):
    corpus, _, _ = data
    with pytest.raises(TealeavesError, match="not fitted"):
        GibbsLDA(K).transform(corpus)
    other = Corpus(Vocabulary(["x", "y"]), np.array([0, 1], np.int32), np.array([0, 2]), ["0"])
    with pytest.raises(InvalidModelError, match="2-word vocabulary but the model 50"):
        fitted.transform(other)
    with pytest.raises(TypeError, match="expects a tealeaves Corpus"):
        fitted.transform([[0, 1]])
