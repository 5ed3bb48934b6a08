"""Bad inputs to OCTIS's measures, the label scores and the consensus (tealeaves.comparison): fewer than two
topics, empty topics, topics without any word vector, missing or multiple labels, runs over different
vocabularies, unknown compat settings -- each refused with its TealeavesError subclass, or a documented
value."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tealeaves import comparison as cmp
from tealeaves.comparison import IncomparableError, WordVectors
from tealeaves.errors import EmptyInputError, InputFormatError, InvalidModelError, ParameterError
from tealeaves.models.base import FixedTopicModel

VOCAB = [f"w{i}" for i in range(6)]
RNG = np.random.default_rng(0)
K1 = FixedTopicModel(RNG.dirichlet(np.ones(6), size=1), VOCAB)
K3 = FixedTopicModel(RNG.dirichlet(np.ones(6), size=3), VOCAB)
ZERO_TOPIC = SimpleNamespace(topic_word_=np.vstack([K3.topic_word_[:2], np.zeros(6)]), vocabulary_=VOCAB)
VEC = WordVectors(["w0", "w1", "w2"], np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), "toy")
BETWEEN = (cmp.we_irbo, lambda *a, **k: cmp.we_irbo(*a, centroid=True, **k), cmp.we_similarity,
           lambda *a, **k: cmp.we_similarity(*a, centroid=True, **k))


@pytest.mark.parametrize("fn", [cmp.topic_pair_kl, cmp.log_odds_ratio])
def test_divergences_need_two_topics_and_probabilities(fn):
    with pytest.raises(ParameterError, match="at least 2 topics, got 1"):
        fn(K1)
    with pytest.raises(InvalidModelError):
        fn(ZERO_TOPIC)  # an empty (all-zero) topic is not a distribution


def test_unknown_compat_is_refused():
    with pytest.raises(ParameterError, match="compat"):
        cmp.topic_pair_kl(K3, compat="gensim")
    with pytest.raises(ParameterError, match="compat"):
        cmp.embedding_coherence([["w0", "w1"]], VEC, n_top=2, compat="OCTIS ")
    with pytest.raises(ParameterError, match="doc_lengths"):
        cmp.topic_significance(K3, np.full((2, 3), 1 / 3), doc_lengths=[3, 4], compat="octis")


@pytest.mark.parametrize("fn", BETWEEN)
def test_embedding_measures_refuse_a_topic_without_vectors_and_a_single_topic(fn):
    with pytest.raises(EmptyInputError, match="no top word of topic 1 has a vector"):
        fn([["w0", "w1"], ["q1", "q2"]], VEC, n_top=2)
    with pytest.raises(ParameterError, match="at least 2 topics"):
        fn([["w0", "w1"]], VEC, n_top=2)
    with pytest.raises(ParameterError, match="vectors must be WordVectors"):
        fn([["w0", "w1"], ["w1", "w2"]], {"w0": [1.0]}, n_top=2)
    with pytest.raises(ParameterError, match="fewer than n_top"):
        fn([["w0", "w1"], ["w1"]], VEC, n_top=2)


def test_octis_normalisation_refuses_a_vector_summing_to_zero():
    vec = WordVectors(["a", "b"], np.array([[1.0, -1.0], [1.0, 1.0]]), "toy")
    with pytest.raises(InputFormatError, match="sum to 0"):
        cmp.embedding_coherence([["a", "b"]], vec, n_top=2, compat="octis")


THETA = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]])


@pytest.mark.parametrize("labels,fragment", [
    (["x", None, "y"], "document 1 has no label"),
    (["x", "", "y"], "document 1 has no label"),
    (["x", ("a", "b"), "y"], "document 1 has 2 labels"),
    (["x", "y"], "2 entries for 3 documents"),
])
def test_label_scores_refuse_missing_or_multiple_labels(labels, fragment):
    with pytest.raises(ParameterError, match=fragment):
        cmp.clustering_scores(THETA, labels)


def test_classification_needs_two_labels_and_matching_topics():
    with pytest.raises(ParameterError, match="single label"):
        cmp.classification_scores(THETA, ["x"] * 3, THETA, ["x"] * 3)
    with pytest.raises(InvalidModelError, match="2 topics but test_theta 3"):
        cmp.classification_scores(THETA, ["x", "y", "x"], np.full((1, 3), 1 / 3), ["x"])
    with pytest.raises(InvalidModelError):
        cmp.clustering_scores(np.array([[0.5, 0.6]]), ["x"])  # rows must be distributions


def test_consensus_refuses_different_vocabularies_and_a_single_run():
    other = FixedTopicModel(K3.topic_word_, [f"x{i}" for i in range(6)])
    with pytest.raises(IncomparableError, match="run 1 has another vocabulary"):
        cmp.consensus_topics([K3, other])
    with pytest.raises(ParameterError, match="at least two runs"):
        cmp.consensus_topics([K3])
    with pytest.raises(ParameterError, match="min_share"):
        cmp.consensus_topics([K3, K3], min_share=0)
    with pytest.raises(InvalidModelError):
        cmp.consensus_topics([K3, ZERO_TOPIC])


def test_consensus_without_recurring_topics_is_an_empty_model():
    rng = np.random.default_rng(5)
    runs = [FixedTopicModel(rng.dirichlet(np.full(6, 0.05), size=2), VOCAB) for _ in range(3)]
    res = cmp.consensus_topics(runs, min_share=1.0, epsilon=1e-9)
    assert res.model is None and len(res.clusters) == 0 and (res.assignments["cluster"] == -1).all()
