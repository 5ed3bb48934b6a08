"""A consensus of stable topics across runs (after gensim's EnsembleLda): runs with a planted topic that
recurs in every run, one planted in a single run, and noise; the masked asymmetric distance by hand;
determinism."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tealeaves.comparison import consensus_topics
from tealeaves.comparison.consensus import asymmetric_distances, mass_mask
from tealeaves.models.base import FixedTopicModel

V = 30
VOCAB = [f"w{i}" for i in range(V)]


def _topic(words, rng, noise=0.02):
    row = np.full(V, 1e-4)
    row[words] = 1.0
    row *= 1 + noise * rng.random(V)
    return row / row.sum()


def planted_runs(n_runs=5, seed=0):
    """Every run: topic A (words 0-4) and B (5-9) at shuffled positions, plus a run-specific topic; run 0's
    extra topic (20-24) appears nowhere else, the others' extra topics are mixtures of scattered words."""
    rng = np.random.default_rng(seed)
    runs = []
    for r in range(n_runs):
        extra = list(range(20, 25)) if r == 0 else list(rng.choice(np.arange(10, 30), 6, replace=False))
        rows = [_topic(range(0, 5), rng), _topic(range(5, 10), rng), _topic(extra, rng)]
        order = rng.permutation(3)
        runs.append(FixedTopicModel(np.array(rows)[order], VOCAB))
    return runs


def test_consensus_keeps_the_recurring_topics_and_drops_the_one_off():
    runs = planted_runs()
    res = consensus_topics(runs, min_share=0.6)
    assert len(res.clusters) == 2 and list(res.clusters["n_runs"]) == [5, 5]
    tops = [set(words[:5]) for words in res.model.top_words(5)]
    assert {frozenset(t) for t in tops} == {frozenset(f"w{i}" for i in range(5)),
                                           frozenset(f"w{i}" for i in range(5, 10))}
    # the consensus topic is the mean of its members
    members = res.assignments[res.assignments["cluster"] == 0]
    rows = [runs[r].topic_word_[t] for r, t in zip(members["run"], members["topic"])]
    assert np.allclose(res.model.topic_word_[0], np.mean(rows, axis=0), atol=1e-15)
    # run 0's one-off topic is in no stable cluster
    one_off = [t for t in range(3) if set(runs[0].top_words(5)[t]) == {f"w{i}" for i in range(20, 25)}][0]
    row = res.assignments[(res.assignments["run"] == 0) & (res.assignments["topic"] == one_off)]
    assert int(row["cluster"].iloc[0]) == -1 and not bool(row["core"].iloc[0])


def test_consensus_of_a_topic_in_two_of_five_runs_depends_on_the_share():
    runs = planted_runs()
    rng = np.random.default_rng(1)
    c = _topic(range(25, 30), rng)  # planted in runs 1 and 2 only
    for r in (1, 2):
        runs[r] = FixedTopicModel(np.vstack([runs[r].topic_word_, c]), VOCAB)
    assert len(consensus_topics(runs, min_share=0.6).clusters) == 2  # 2/5 < 0.6
    kept = consensus_topics(runs, min_share=0.4).clusters             # 2/5 >= 0.4
    assert len(kept) == 3 and list(kept["n_runs"]) == [5, 5, 2]


def test_consensus_is_deterministic():
    a = consensus_topics(planted_runs(seed=3), min_share=0.5)
    b = consensus_topics(planted_runs(seed=3), min_share=0.5)
    assert a.clusters.equals(b.clusters) and a.assignments.equals(b.assignments)
    assert np.array_equal(a.model.topic_word_, b.model.topic_word_) and str(a.signature) == str(b.signature)


def test_asymmetric_distance_by_hand():
    p = np.array([0.6, 0.3, 0.05, 0.05])
    q = np.array([0.1, 0.1, 0.4, 0.4])
    # mass 0.95: sorted 0.6, 0.3, 0.05, 0.05, cumulative 0.6, 0.9, 0.95 (not < 0.95): mask = p >= 0.3
    assert list(mass_mask(p, 0.95)) == [True, True, False, False]
    d = asymmetric_distances(np.vstack([p, q]), 0.95)
    cos = (0.6 * 0.1 + 0.3 * 0.1) / (math.hypot(0.6, 0.3) * math.hypot(0.1, 0.1))
    # q puts 0.2 > 0.05 of its mass on p's mask: 1 - cosine on the masked words
    assert d[0, 1] == pytest.approx(1 - cos, abs=1e-15) and d[0, 0] == 0.0
    # q's mask covers its two 0.4 words and the 0.1 ones? sorted 0.4, 0.4, 0.1, 0.1: cumulative 0.4, 0.8, 0.9,
    # 1.0: the last inside 0.95 is 0.1, so all four words; 1 - cos(q, p)
    full = float(q @ p / (np.linalg.norm(q) * np.linalg.norm(p)))
    assert d[1, 0] == pytest.approx(1 - full, abs=1e-15)


def test_consensus_of_fitted_runs_is_the_same_for_the_same_seeds():
    from tealeaves.corpus import Corpus
    from tealeaves.models.sklearn_lda import SklearnLDA

    rng = np.random.default_rng(0)
    groups = [[f"a{i}" for i in range(6)], [f"b{i}" for i in range(6)], [f"c{i}" for i in range(6)]]
    docs = [list(rng.choice(groups[d % 3], 12)) for d in range(90)]
    corpus = Corpus.from_token_lists(docs)

    def consensus():
        runs = [SklearnLDA(3, random_state=seed, max_iter=30).fit(corpus) for seed in (1, 2, 3)]
        return consensus_topics(runs, min_share=0.6)

    a, b = consensus(), consensus()
    assert a.clusters.equals(b.clusters) and np.array_equal(a.model.topic_word_, b.model.topic_word_)
    # the three planted word groups recur in all three runs
    assert list(a.clusters["n_runs"]) == [3, 3, 3]
    assert sorted(w[0][0] for w in a.model.top_words(6)) == ["a", "b", "c"]
    # the consensus is a model like any other: coherence scores it
    from tealeaves.coherence import coherence

    scores = coherence(a.model, docs, measure="npmi", n_top=5).scores
    assert len(scores) == 3 and all(s is not None and s > 0 for s in scores)
