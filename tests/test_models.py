"""pLSA, LSI and the scikit-learn LDA wrapper, checked against independent computations."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.decomposition import LatentDirichletAllocation
from sklearn.feature_extraction.text import TfidfTransformer

from tealeaves.corpus import Corpus
from tealeaves.errors import EmptyInputError, InvalidModelError
from tealeaves.models import LSI, PLSA, FixedTopicModel, SklearnLDA, check_topic_word


def _random_corpus(n_docs=40, n_words=30, seed=0, rate=0.4) -> Corpus:
    counts = np.random.default_rng(seed).poisson(rate, size=(n_docs, n_words))
    return Corpus.from_counts(counts, [f"w{i:02d}" for i in range(n_words)])


def _brute_log_likelihood(theta, phi, counts) -> float:
    total = 0.0
    for d in range(counts.shape[0]):
        for w in range(counts.shape[1]):
            if counts[d, w]:
                total += counts[d, w] * np.log(sum(theta[d, k] * phi[k, w] for k in range(phi.shape[0])))
    return total


# -- pLSA -----------------------------------------------------------------------------------
def test_plsa_log_likelihood_matches_brute_force_and_is_best_of_restarts():
    corpus = _random_corpus()
    model = PLSA(3, n_restarts=4, max_iter=300, random_state=1).fit(corpus)
    dense = corpus.counts.toarray()
    brute = _brute_log_likelihood(model.doc_topic_, model.topic_word_, dense)
    assert model.log_likelihood_ == pytest.approx(brute)
    assert model.log_likelihood_ == pytest.approx(max(model.restart_log_likelihoods_))
    check_topic_word(model.topic_word_)
    assert np.allclose(model.doc_topic_.sum(axis=1), 1)


def test_plsa_em_is_a_fixed_point_of_the_hofmann_updates():
    corpus = _random_corpus(20, 15, seed=3)
    model = PLSA(2, n_restarts=1, max_iter=5000, tol=1e-14, random_state=0).fit(corpus)
    n = corpus.counts.toarray().astype(float)
    theta, phi = model.doc_topic_, model.topic_word_
    # one EM step written out with explicit posteriors q(k | d, w)
    q = theta[:, :, None] * phi[None, :, :]
    q /= q.sum(axis=1, keepdims=True)
    nq = n[:, None, :] * q
    new_phi = nq.sum(axis=0) / nq.sum(axis=(0, 2))[:, None]
    new_theta = nq.sum(axis=2) / n.sum(axis=1, keepdims=True)
    assert np.allclose(new_phi, phi, atol=1e-5)
    assert np.allclose(new_theta, theta, atol=1e-5)


def test_plsa_fold_in_recovers_training_proportions():
    corpus = _random_corpus(30, 20, seed=5, rate=1.5)
    model = PLSA(2, n_restarts=2, max_iter=3000, tol=1e-13, random_state=0).fit(corpus)
    theta = model.transform(corpus)
    n = corpus.counts.toarray().astype(float)
    # EM with the topics fixed increases the likelihood from the uniform start to a (local) maximum
    ll_fold = _brute_log_likelihood(theta, model.topic_word_, n)
    ll_uniform = _brute_log_likelihood(np.full_like(theta, 0.5), model.topic_word_, n)
    assert ll_fold > ll_uniform
    # and a fixed point of the fold-in update
    q = theta[:, :, None] * model.topic_word_[None]
    q /= q.sum(axis=1, keepdims=True)
    assert np.allclose((n[:, None, :] * q).sum(axis=2) / n.sum(axis=1, keepdims=True), theta, atol=1e-4)


# -- LSI ------------------------------------------------------------------------------------
@pytest.mark.parametrize("weighting", ["count", "tfidf"])
def test_lsi_matches_numpy_svd_with_deterministic_signs(weighting):
    corpus = _random_corpus(50, 25, seed=2, rate=0.8)
    model = LSI(4, weighting=weighting, random_state=0, n_iter=30).fit(corpus)
    x = corpus.counts.astype(float)
    if weighting == "tfidf":
        x = TfidfTransformer().fit_transform(x)
    _, s, vt = np.linalg.svd(x.toarray(), full_matrices=False)
    loadings = model.topic_word_weights_
    assert np.allclose(model.singular_values_, s[:4], rtol=1e-6)
    for k in range(4):
        expected = vt[k] * np.sign(vt[k][np.argmax(np.abs(vt[k]))])
        assert np.allclose(loadings[k], expected, atol=1e-6)
        assert loadings[k][np.argmax(np.abs(loadings[k]))] > 0
    assert np.allclose(model.transform(corpus), x.toarray() @ expected_all(vt, 4).T, atol=1e-6)
    assert model.topic_word_ is None and model.doc_topic_prior_ is None


def expected_all(vt, k):
    return np.array([vt[i] * np.sign(vt[i][np.argmax(np.abs(vt[i]))]) for i in range(k)])


def test_lsi_top_words_are_the_largest_positive_loadings():
    corpus = _random_corpus(50, 25, seed=4, rate=0.8)
    model = LSI(3).fit(corpus)
    for k, ids in enumerate(model.top_word_ids(5)):
        assert list(ids) == list(np.argsort(-model.topic_word_weights_[k], kind="stable")[:5])
    assert len(model.top_words(5)[0]) == 5


def test_lsi_with_k_at_matrix_rank_uses_the_exact_svd():
    corpus = _random_corpus(6, 10, seed=7, rate=1.0)
    model = LSI(6).fit(corpus)
    assert model.topic_word_weights_.shape == (6, 10)


# -- scikit-learn LDA -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_lda():
    corpus = _random_corpus(60, 30, seed=11, rate=0.6)
    return corpus, SklearnLDA(4, random_state=0, max_iter=20).fit(corpus)


def test_sklearn_lda_exposes_sklearn_state(small_lda):
    corpus, model = small_lda
    est = model.estimator_
    assert np.allclose(model.topic_word_, est.components_ / est.components_.sum(axis=1)[:, None])
    assert np.allclose(model.doc_topic_prior_, np.full(4, 0.25))
    x = corpus.counts.astype(float)
    assert np.allclose(model.transform(corpus), est.transform(x))
    assert model.perplexity(corpus) == pytest.approx(est.perplexity(x))


def test_from_sklearn_wraps_any_fitted_estimator(small_lda):
    corpus, _ = small_lda
    est = LatentDirichletAllocation(3, doc_topic_prior=0.2, random_state=1, max_iter=5).fit(corpus.counts)
    model = SklearnLDA.from_sklearn(est, list(corpus.vocabulary))
    assert model.n_topics == 3 and model.params["doc_topic_prior"] == 0.2
    assert np.allclose(model.doc_topic_prior_, 0.2)
    assert model.top_words(3)[0][0] == corpus.vocabulary[int(np.argmax(est.components_[0]))]
    with pytest.raises(InvalidModelError, match="not fitted"):
        SklearnLDA.from_sklearn(LatentDirichletAllocation(3), list(corpus.vocabulary))
    with pytest.raises(InvalidModelError, match="vocabulary"):
        SklearnLDA.from_sklearn(est, list(corpus.vocabulary)[:-1])


def test_transform_refuses_a_corpus_over_another_vocabulary(small_lda):
    corpus, lda = small_lda
    other = Corpus.from_token_lists([["a", "b"]])
    for model in (lda, PLSA(2, n_restarts=1, max_iter=5).fit(corpus), LSI(2).fit(corpus)):
        with pytest.raises(InvalidModelError, match="align_corpus"):
            model.transform(other)


@pytest.mark.parametrize("make", [lambda k: PLSA(k), lambda k: LSI(k), lambda k: SklearnLDA(k)])
def test_more_topics_than_words_is_a_clear_error(make):
    corpus = _random_corpus(10, 5, seed=1, rate=2)
    with pytest.raises(InvalidModelError, match="larger than the vocabulary"):
        make(6).fit(corpus)


def test_empty_training_corpus_is_refused():
    corpus = Corpus.from_counts(np.zeros((3, 4), dtype=int), list("abcd"))
    with pytest.raises(EmptyInputError):
        PLSA(2).fit(corpus)


@pytest.mark.parametrize(
    "phi, message",
    [([[0.5, np.nan], [0.5, 0.5]], "NaN"), ([[1.5, -0.5], [0.5, 0.5]], "negative"),
     ([[0.5, 0.6], [0.5, 0.5]], "sums to")],
)
def test_malformed_topic_word_rows_are_refused(phi, message):
    with pytest.raises(InvalidModelError, match=message):
        FixedTopicModel(np.array(phi), ["a", "b"])
