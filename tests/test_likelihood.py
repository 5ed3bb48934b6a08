"""Perplexity, document completion and baselines, recomputed independently."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from tealeaves.corpus import Corpus
from tealeaves.errors import EmptyInputError, InvalidModelError, TealeavesError
from tealeaves.likelihood import (
    align_corpus,
    baselines,
    document_completion,
    perplexity,
    split_documents,
)
from tealeaves.models import LSI, FixedTopicModel
from tealeaves.signature import Signature

WORDS = ["apple", "bank", "cash", "dog", "egg", "fish"]


def _docs(seed=0, n_docs=12, lengths=(0, 1, 2, 3, 7, 10, 15)) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    return [list(rng.choice(WORDS, size=lengths[i % len(lengths)])) for i in range(n_docs)]


@pytest.fixture
def tiny_model() -> FixedTopicModel:
    phi = np.array([[0.4, 0.3, 0.1, 0.1, 0.05, 0.05], [0.05, 0.05, 0.1, 0.2, 0.3, 0.3]])
    return FixedTopicModel(phi, WORDS, doc_topic_prior=0.5)


def test_perplexity_is_the_inverse_geometric_mean():
    probs = [0.2, 0.1, 0.5, 0.25]
    ll = sum(math.log(p) for p in probs)
    assert perplexity(ll, 4) == pytest.approx(1 / math.prod(probs) ** 0.25)
    assert perplexity(4 * math.log(1 / 7), 4) == pytest.approx(7)
    with pytest.raises(EmptyInputError):
        perplexity(-1.0, 0)
    with pytest.raises(TealeavesError, match="undefined"):
        perplexity(float("-inf"), 3)


def test_split_halves_partition_each_document():
    corpus = Corpus.from_token_lists(_docs(), Corpus.from_token_lists([WORDS]).vocabulary)
    observed, heldout, report = split_documents(corpus, seed=3)
    kept = [d for d in range(len(corpus)) if corpus.lengths[d] >= 2]
    assert observed.ids == heldout.ids == [corpus.ids[d] for d in kept]
    for i, d in enumerate(kept):
        n = int(corpus.lengths[d])
        assert len(observed.document(i)) == n // 2 and len(heldout.document(i)) == n - n // 2
        both = Counter(observed.document(i).tolist()) + Counter(heldout.document(i).tolist())
        assert both == Counter(corpus.document(d).tolist())
    assert report.n_heldout_words == heldout.n_tokens == sum(n - n // 2 for n in corpus.lengths[kept])
    assert report.n_observed_words == observed.n_tokens


def test_split_is_reproducible_per_seed_and_varies_between_seeds():
    corpus = Corpus.from_token_lists([list(np.random.default_rng(1).choice(WORDS, 40)) for _ in range(5)])
    a = split_documents(corpus, seed=7)[1]
    b = split_documents(corpus, seed=7)[1]
    c = split_documents(corpus, seed=8)[1]
    assert np.array_equal(a.tokens, b.tokens)
    assert not np.array_equal(a.tokens, c.tokens)


def test_342_words_split_171_171():
    corpus = Corpus.from_token_lists([list(np.random.default_rng(0).choice(WORDS, 342))])
    observed, heldout, _ = split_documents(corpus, seed=0)
    assert (observed.n_tokens, heldout.n_tokens) == (171, 171)


def test_short_documents_are_skipped_and_counted():
    corpus = Corpus.from_token_lists([[], ["apple"], ["apple", "bank"], ["dog"] * 5], ids=list("wxyz"))
    _, heldout, report = split_documents(corpus)
    assert (report.n_documents_split, report.n_skipped_too_short) == (2, 2)
    assert report.skipped_ids == ["w", "x"] and heldout.ids == ["y", "z"]
    _, _, report3 = split_documents(corpus, min_length=3)
    assert report3.skipped_ids == ["w", "x", "y"]


def test_completion_matches_brute_force(tiny_model):
    corpus = Corpus.from_token_lists(_docs(seed=2), tiny_model.vocabulary_)
    result = document_completion(tiny_model, corpus, seed=5)
    observed, heldout, report = split_documents(corpus, seed=5)
    theta = tiny_model.transform(observed)
    phi = tiny_model.topic_word_
    brute = 0.0
    for d in range(len(heldout)):
        for w in heldout.document(d):
            brute += math.log(sum(theta[d, k] * phi[k, w] for k in range(2)))
    assert result.log_likelihood == pytest.approx(brute)
    assert result.perplexity == pytest.approx(math.exp(-brute / heldout.n_tokens))
    assert result.n_heldout_words == heldout.n_tokens
    assert result.n_documents_split == report.n_documents_split
    assert result.n_skipped_too_short == sum(1 for n in corpus.lengths if n < 2)
    assert result.document_log_likelihoods.sum() == pytest.approx(brute)
    sig = Signature.parse(str(result.signature))
    assert sig.measure == "perplexity" and sig.fields["seed"] == "5" and sig.fields["est"] == "point-theta"
    assert "eval" in result.to_dict()["signature"]


def test_baselines_match_hand_counts(tiny_model):
    vocab = tiny_model.vocabulary_
    train = Corpus.from_token_lists(_docs(seed=4, n_docs=20), vocab)
    test = Corpus.from_token_lists(_docs(seed=9), vocab)
    result = baselines(train, test, seed=1)
    _, heldout, _ = split_documents(test, seed=1)
    assert result["uniform"].perplexity == pytest.approx(len(WORDS), rel=1e-12)
    counts = Counter(w for doc in train.token_lists() for w in doc)
    n = sum(counts.values())
    ll = sum(math.log((counts[w] + 1) / (n + len(WORDS))) for doc in heldout.token_lists() for w in doc)
    assert result["unigram"].log_likelihood == pytest.approx(ll)
    assert result["unigram"].n_heldout_words == result["uniform"].n_heldout_words == heldout.n_tokens
    # the same held-out words as the model's completion
    assert document_completion(tiny_model, test, seed=1).n_heldout_words == heldout.n_tokens


def test_test_corpus_over_another_vocabulary_is_aligned(tiny_model):
    docs = [["apple", "zebra", "bank", "fish", "zebra"], ["dog", "egg", "unknown"]]
    other = Corpus.from_token_lists(docs)
    aligned = align_corpus(other, tiny_model.vocabulary_)
    assert aligned.token_lists() == [["apple", "bank", "fish"], ["dog", "egg"]]
    assert aligned.n_dropped == 3
    direct = document_completion(tiny_model, Corpus.from_token_lists(docs, tiny_model.vocabulary_), seed=0)
    via_other = document_completion(tiny_model, other, seed=0)
    assert via_other.log_likelihood == pytest.approx(direct.log_likelihood)


def test_bad_inputs_give_clear_errors(tiny_model):
    vocab = tiny_model.vocabulary_
    with pytest.raises(EmptyInputError, match="no documents"):
        document_completion(tiny_model, Corpus.from_token_lists([], vocab))
    with pytest.raises(EmptyInputError, match="share no word"):
        document_completion(tiny_model, Corpus.from_token_lists([["xx", "yy", "zz"]]))
    with pytest.raises(EmptyInputError, match="at least 2 words"):
        document_completion(tiny_model, Corpus.from_token_lists([["apple"], ["bank"]], vocab))
    corpus = Corpus.from_token_lists(_docs(), vocab)
    lsi = LSI(2).fit(corpus)
    with pytest.raises(InvalidModelError, match="no topic-word probabilities"):
        document_completion(lsi, corpus)
    nan_model = FixedTopicModel(tiny_model.topic_word_, WORDS, 0.5)
    nan_model.topic_word_ = tiny_model.topic_word_.copy()
    nan_model.topic_word_[1, 2] = np.nan
    with pytest.raises(InvalidModelError, match="NaN"):
        document_completion(nan_model, corpus)


def test_zero_probability_words_are_reported_not_infinite():
    phi = np.array([[0.5, 0.5, 0, 0, 0, 0], [0.5, 0.5, 0, 0, 0, 0]])
    model = FixedTopicModel(phi, WORDS, 0.5)
    corpus = Corpus.from_token_lists([["apple", "fish", "fish", "fish"]], model.vocabulary_)
    with pytest.raises(InvalidModelError, match="probability zero"):
        document_completion(model, corpus, seed=0)
