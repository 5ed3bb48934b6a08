"""Topic matching and stability: the optimal one-to-one assignment, the similarity metrics, vocabulary
alignment by word strings, and recurrence across restarts (including real scikit-learn LDA on Reuters)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon

from tealeaves.comparison import (
    IncomparableError,
    match_topics,
    similarity_matrix,
    stability_by_k,
    topic_stability,
)
from tealeaves.models.base import FixedTopicModel

VOCAB = [f"w{i}" for i in range(12)]


def random_model(k: int, seed: int, vocab=VOCAB, concentration: float = 0.3) -> FixedTopicModel:
    rng = np.random.default_rng(seed)
    return FixedTopicModel(rng.dirichlet(np.full(len(vocab), concentration), size=k), vocab)


def test_js_similarity_is_one_minus_scipy_distance():
    a, b = random_model(4, 1), random_model(3, 2)
    sim = similarity_matrix(a, b, "js")
    assert sim.shape == (4, 3)
    for i, j in itertools.product(range(4), range(3)):
        expected = 1 - jensenshannon(a.topic_word_[i], b.topic_word_[j], base=2)
        assert sim.iloc[i, j] == pytest.approx(expected, abs=1e-12)


def test_cosine_and_word_list_metrics():
    a, b = random_model(3, 3), random_model(3, 4)
    cos = similarity_matrix(a, b, "cosine").to_numpy()
    pa, pb = a.topic_word_, b.topic_word_
    assert cos[1, 2] == pytest.approx(pa[1] @ pb[2] / np.linalg.norm(pa[1]) / np.linalg.norm(pb[2]))
    jac = similarity_matrix(a, b, "jaccard", n_top=4).to_numpy()
    ta, tb = a.top_words(4), b.top_words(4)
    assert jac[0, 1] == pytest.approx(len(set(ta[0]) & set(tb[1])) / len(set(ta[0]) | set(tb[1])))
    assert (similarity_matrix(a, a, "rbo", n_top=5).to_numpy().diagonal() == pytest.approx(1.0))


def test_assignment_is_optimal_by_brute_force():
    a, b = random_model(5, 5), random_model(5, 6)
    m = match_topics(a, b, "js")
    sim = m.similarity.to_numpy()
    best = max(sum(sim[i, p[i]] for i in range(5)) for p in itertools.permutations(range(5)))
    assert m.pairs["similarity"].sum() == pytest.approx(best, abs=1e-12)
    assert sorted(m.pairs["topic_a"]) == sorted(m.pairs["topic_b"]) == list(range(5))


def test_permuted_topics_match_perfectly():
    a = random_model(6, 7)
    perm = np.array([3, 0, 5, 1, 4, 2])
    b = FixedTopicModel(a.topic_word_[perm], VOCAB)
    m = match_topics(a, b)
    assert m.mean_similarity == pytest.approx(1.0, abs=1e-12)
    partner = m.partner("b")
    assert all(partner[j][0] == perm[j] for j in range(6))


def test_duplicated_topic_is_matched_once():
    a = random_model(6, 8, concentration=0.1)
    dup = a.topic_word_.copy()
    dup[3] = dup[5]  # topic 5 appears twice in b; a's topic 3 has no copy
    b = FixedTopicModel(dup, VOCAB)
    m = match_topics(a, b)
    perfect = m.pairs[m.pairs["similarity"] > 1 - 1e-12]
    assert len(perfect) == 5  # not 6: the second copy of topic 5 cannot be matched to a's topic 5 again
    assert m.partner("a")[5][0] in (3, 5)
    assert m.partner("a")[3][1] < 1 - 1e-6
    assert sorted(m.pairs["topic_b"]) == list(range(6))  # one to one


def test_different_k_leaves_surplus_topics_unmatched():
    a = random_model(5, 9)
    b = FixedTopicModel(a.topic_word_[[4, 1, 2]], VOCAB)
    m = match_topics(a, b)
    assert len(m.pairs) == 3 and m.unmatched_a == [0, 3] and m.unmatched_b == []
    assert m.mean_similarity == pytest.approx(1.0)
    d = m.to_dict()
    assert d["unmatched_a"] == [0, 3] and d["signature"].startswith("topic-matching|metric=js|vocab=same|a=")


def test_vocabularies_are_aligned_by_word_strings():
    a = random_model(4, 10)
    order = np.random.default_rng(0).permutation(len(VOCAB))
    b = FixedTopicModel(a.topic_word_[:, order], [VOCAB[i] for i in order])
    assert match_topics(a, b).mean_similarity == pytest.approx(1.0, abs=1e-12)
    assert match_topics(a, b, "cosine").mean_similarity == pytest.approx(1.0, abs=1e-12)
    # a model over a partly different vocabulary: rows over the union, the missing words at 0
    other = VOCAB[:9] + ["x1", "x2", "x3"]
    c = FixedTopicModel(a.topic_word_, other)
    sim = similarity_matrix(a, c, "js").to_numpy()
    union = VOCAB + ["x1", "x2", "x3"]
    pa = np.zeros((4, 15))
    pa[:, :12] = a.topic_word_
    pc = np.zeros((4, 15))
    pc[:, [union.index(w) for w in other]] = a.topic_word_
    assert sim[2, 1] == pytest.approx(1 - jensenshannon(pa[2], pc[1], base=2), abs=1e-12)
    assert "|vocab=union15/shared9|" in str(match_topics(a, c).signature)
    with pytest.raises(IncomparableError, match="share 9 words"):
        similarity_matrix(a, c, min_shared=0.8)


def test_stability_of_identical_runs_is_one():
    a = random_model(5, 11)
    res = topic_stability([a, FixedTopicModel(a.topic_word_.copy(), VOCAB), a])
    assert res.summary["mean_similarity"] == pytest.approx(1.0) and res.summary["mean_recurrence"] == 1.0
    assert (res.topics["recurrence"] == 1.0).all() and len(res.topics) == 15
    assert len(res.pairs) == 3


def test_recurrence_counts_other_runs_above_the_threshold():
    base = random_model(4, 12, concentration=0.1)
    # run 1 keeps topics 0 and 1 and replaces 2 and 3; run 2 keeps topic 0 only
    phi1, phi2 = base.topic_word_.copy(), base.topic_word_.copy()
    noise = random_model(4, 13, concentration=0.1).topic_word_
    phi1[2:], phi2[1:] = noise[2:], noise[1:][::-1]
    runs = [base, FixedTopicModel(phi1, VOCAB), FixedTopicModel(phi2, VOCAB)]
    res = topic_stability(runs, threshold=0.99)
    rec0 = res.recurrence(0)
    assert rec0[0] == 1.0 and rec0[1] == 0.5  # topic 1 recurs in run 1, not in run 2
    # recompute run 0's mean matched similarity from the pairwise matchings
    m01, m02 = match_topics(runs[0], runs[1]), match_topics(runs[0], runs[2])
    for t in range(4):
        expected = (m01.partner("a")[t][1] + m02.partner("a")[t][1]) / 2
        got = res.topics.query("run == 0 and topic == @t")["mean_similarity"].item()
        assert got == pytest.approx(expected, abs=1e-12)
    assert "thr=0.99" in str(res.signature) and str(res.signature).startswith("stability|metric=js|")
    assert "|runs=3|models=FixedTopicModel/K4/V12,FixedTopicModel/K4/V12,FixedTopicModel/K4/V12|" in str(
        res.signature)


def test_stability_by_k_table():
    runs = {3: [random_model(3, s) for s in range(3)], 5: [random_model(5, s) for s in range(2)]}
    table = stability_by_k(runs, metric="cosine")
    assert table["k"].tolist() == [3, 5] and table["n_runs"].tolist() == [3, 2]
    single = topic_stability(runs[3], metric="cosine").summary
    assert table.loc[0, "mean_similarity"] == pytest.approx(single["mean_similarity"])
    assert table.loc[1, "std_similarity"] == 0.0  # one pair of runs


@pytest.fixture(scope="module")
def reuters_runs(reuters):
    """Small scikit-learn LDA runs on 600 Reuters training stories: seeds 0, 0 (refit) and 1, 2."""
    from tealeaves.models.sklearn_lda import SklearnLDA

    train = reuters[0].subset(range(600))
    params = {"learning_method": "batch", "max_iter": 5}
    return [SklearnLDA(8, random_state=s, **params).fit(train) for s in (0, 0, 1, 2)]


def test_reuters_same_seed_matches_perfectly(reuters_runs):
    res = topic_stability(reuters_runs[:2])
    assert res.summary["mean_similarity"] == pytest.approx(1.0, abs=1e-9)
    assert (res.topics["recurrence"] == 1.0).all()
    m = match_topics(*reuters_runs[:2])
    assert (m.pairs["topic_a"] == m.pairs["topic_b"]).all()


def test_reuters_different_seeds_give_a_recurrence_table(reuters_runs):
    res = topic_stability([reuters_runs[0], reuters_runs[2], reuters_runs[3]])
    assert res.summary["n_runs"] == 3 and len(res.topics) == 24
    assert res.summary["mean_similarity"] < 0.99
    assert set(res.topics["recurrence"]) <= {0.0, 0.5, 1.0}
    # each run-pair mean is the mean of the optimal matching's similarities
    m = match_topics(reuters_runs[0], reuters_runs[2])
    assert res.pairs.loc[0, "mean_similarity"] == pytest.approx(m.mean_similarity, abs=1e-12)


def test_reuters_duplicated_topic_is_matched_once(reuters_runs):
    model = reuters_runs[0]
    phi = model.topic_word_.copy()
    phi[5] = phi[2]  # topic 2 twice, topic 5 gone
    dup = FixedTopicModel(phi, list(model.vocabulary_))
    m = match_topics(model, dup)
    perfect = m.pairs[m.pairs["similarity"] > 1 - 1e-12]
    assert len(perfect) == 7  # K - 1: one copy of topic 2 is matched to topic 2, the other to topic 5
    assert m.partner("a")[5][0] in (2, 5) and m.partner("a")[5][1] < 0.99
    rec = topic_stability([model, dup], threshold=0.99).recurrence(1)
    assert sorted(rec.tolist()) == [0.0] + [1.0] * 7
