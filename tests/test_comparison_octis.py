"""OCTIS's measures (Terragni et al. 2021) on worked examples written from their formulas: the topic-pair
KL divergence and log-odds ratio, the word-embedding RBOs and similarities between topics, and the
``compat="octis"`` settings (the 1e-5 KL epsilon; the embedding normalisation by the component sum, a
bug reproduced on purpose).  Parity with OCTIS itself is in benchmarks/peers_octis.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tealeaves.comparison import (
    WordVectors,
    embedding_coherence,
    log_odds_ratio,
    topic_pair_kl,
    topic_significance,
    we_irbo,
    we_similarity,
)
from tealeaves.models.base import FixedTopicModel

PHI = np.array([[0.5, 0.3, 0.2], [0.2, 0.2, 0.6], [0.1, 0.6, 0.3]])
MODEL = FixedTopicModel(PHI, ["a", "b", "c"])


def kl(p, q):
    return sum(x * math.log(x / y) for x, y in zip(p, q) if x > 0)


def test_topic_pair_kl_is_the_mean_over_pairs_i_before_j():
    pairs = [(0, 1), (0, 2), (1, 2)]
    expected = sum(kl(PHI[i], PHI[j]) for i, j in pairs) / 3
    assert topic_pair_kl(MODEL).value == pytest.approx(expected, abs=1e-15)
    e = 1e-5  # OCTIS's _KL: (p + e) log((p + e) / (q + e)), not renormalised
    octis = sum(sum((x + e) * math.log((x + e) / (y + e)) for x, y in zip(PHI[i], PHI[j]))
                for i, j in pairs) / 3
    res = topic_pair_kl(MODEL, compat="octis")
    assert res.value == pytest.approx(octis, abs=1e-15) and "compat=octis" in str(res.signature)


def test_log_odds_ratio_by_hand():
    def lor(p, q):
        return sum(abs(math.log(x) - math.log(y)) for x, y in zip(p, q)) / len(p)

    expected = (lor(PHI[0], PHI[1]) + lor(PHI[0], PHI[2]) + lor(PHI[1], PHI[2])) / 3
    assert log_odds_ratio(MODEL).value == pytest.approx(expected, abs=1e-15)
    # a word absent from both topics adds 0 but counts in V; absent from one only: inf (documented)
    both = FixedTopicModel(np.array([[0.5, 0.5, 0.0], [0.25, 0.75, 0.0]]), ["a", "b", "c"])
    assert log_odds_ratio(both).value == pytest.approx((math.log(2) + math.log(1.5)) / 3, abs=1e-15)
    one = FixedTopicModel(np.array([[0.5, 0.5, 0.0], [0.25, 0.25, 0.5]]), ["a", "b", "c"])
    assert log_odds_ratio(one).value == math.inf


def test_significance_octis_epsilon_moves_kl_uniform():
    theta = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
    paper = topic_significance(MODEL, theta).per_topic
    octis = topic_significance(MODEL, theta, compat="octis").per_topic
    e, u = 1e-5, 1 / 3
    for k in range(3):
        assert paper.loc[k, "kl_uniform"] == pytest.approx(kl(PHI[k], [u] * 3), abs=1e-15)
        expected = sum((x + e) * math.log((x + e) / (u + e)) for x in PHI[k])
        assert octis.loc[k, "kl_uniform"] == pytest.approx(expected, abs=1e-15)
        psi = theta[:, k] / theta[:, k].sum()  # topic over documents, against 1/D
        expected = sum((x + e) * math.log((x + e) / (0.5 + e)) for x in psi)
        assert octis.loc[k, "kl_background"] == pytest.approx(expected, abs=1e-15)


# ---------------------------------------------------------------------------------------------
# word embeddings: a, b orthogonal, c at 45 degrees, d opposite to a; "zz" without a vector
# ---------------------------------------------------------------------------------------------
VEC = WordVectors(["a", "b", "c", "d"], np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-2.0, 0.0]]), "toy")


def sim(cos, normalize=True):
    return 1 - math.acos(max(-1.0, min(1.0, cos))) / math.pi if normalize else cos


def test_we_rbo_by_hand():
    # topics [a, b] and [c, d]; p = 0.9: RBO_ext = (1-p)/p (p A_1 + p^2 A_2) + p^2 A_2
    s = {("a", "c"): sim(1 / math.sqrt(2)), ("a", "d"): sim(-1.0), ("b", "c"): sim(1 / math.sqrt(2)),
         ("b", "d"): sim(0.0)}
    a1 = s[("a", "c")] / 1                       # depth 1: a against c
    # depth 2: greedy matching: the best pair first (a-c and b-c tie at 0.75: a-c is first in row order),
    # then the best pair of unused words: b-d (0.5)
    a2 = (s[("a", "c")] + s[("b", "d")]) / 2
    p = 0.9
    rbo = (1 - p) / p * (p * a1 + p ** 2 * a2) + p ** 2 * a2
    topics = [["a", "b"], ["c", "d"]]
    res = we_irbo(topics, VEC, n_top=2)
    assert res.value == pytest.approx(1 - rbo, abs=1e-15)
    assert res.details["rbo_match"] == pytest.approx(rbo, abs=1e-15)  # OCTIS's WordEmbeddingsRBOMatch
    # the same word in both topics has similarity 1, even without a vector: identical lists give RBO 1
    assert we_irbo([["a", "zz"], ["a", "zz"]], VEC, n_top=2).value == pytest.approx(0.0, abs=1e-15)


def test_we_irbo_centroid_by_hand():
    topics = [["a", "b"], ["c", "d"]]
    # depth 1: centroids a and c; depth 2: (0.5, 0.5) and (-0.5, 0.5), orthogonal; A_d = X_d / d
    a1, a2 = sim(1 / math.sqrt(2)), sim(0.0) / 2
    p = 0.9
    rbo = (1 - p) / p * (p * a1 + p ** 2 * a2) + p ** 2 * a2
    assert we_irbo(topics, VEC, n_top=2, centroid=True).value == pytest.approx(1 - rbo, abs=1e-15)
    raw = (1 - p) / p * (p * (1 / math.sqrt(2)) + 0) + 0
    raw_value = we_irbo(topics, VEC, n_top=2, normalize=False, centroid=True).value
    assert raw_value == pytest.approx(1 - raw, abs=1e-15)


def test_we_pairwise_and_centroid_similarity_by_hand():
    topics = [["a", "b"], ["c", "d"], ["a", "zz"]]
    cos = {("a", "c"): 1 / math.sqrt(2), ("a", "d"): -1.0, ("b", "c"): 1 / math.sqrt(2), ("b", "d"): 0.0,
           ("a", "a"): 1.0, ("b", "a"): 0.0, ("c", "a"): 1 / math.sqrt(2), ("d", "a"): -1.0}
    pair01 = (cos[("a", "c")] + cos[("a", "d")] + cos[("b", "c")] + cos[("b", "d")]) / 4
    pair02 = (cos[("a", "a")] + cos[("b", "a")]) / 2     # zz has no vector: left out
    pair12 = (cos[("c", "a")] + cos[("d", "a")]) / 2
    value = we_similarity(topics, VEC, n_top=2).value
    assert value == pytest.approx((pair01 + pair02 + pair12) / 3, abs=1e-15)
    # centroids (0.5, 0.5), (-0.5, 0.5), (1, 0): cosines 0, 1/sqrt 2, -1/sqrt 2
    assert we_similarity(topics, VEC, n_top=2, centroid=True).value == pytest.approx(0.0, abs=1e-15)


def test_embedding_coherence_octis_flips_negative_sum_vectors():
    topics = [["a", "c", "d"]]
    paper = embedding_coherence(topics, VEC, n_top=3)
    # cos(a,c) = 1/sqrt 2, cos(a,d) = -1, cos(c,d) = -1/sqrt 2
    assert paper.value == pytest.approx((1 / math.sqrt(2) - 1 - 1 / math.sqrt(2)) / 3, abs=1e-15)
    octis = embedding_coherence(topics, VEC, n_top=3, compat="octis")
    # OCTIS divides d = (-2, 0) by its sum -2: (1, 0), so cos(a,d) = 1 and cos(c,d) = 1/sqrt 2; the sum over
    # i != j (each pair twice) is divided by n (n - 1) = 6
    flipped = 2 * (1 / math.sqrt(2) + 1 + 1 / math.sqrt(2)) / 6
    assert octis.value == pytest.approx(flipped, abs=1e-15)
    # the centroid variant is a distance: t = a + c + d = (0, 1), divided by 2 * sum(t) = 2: (0, 0.5);
    # cosine distances of a, c, d/sum(d) to it: 1, 1 - 1/sqrt 2, 1; divided by n_top = 3
    assert octis.details["mean_centroid"] == pytest.approx((3 - 1 / math.sqrt(2)) / 3, abs=1e-15)
    # a topic without any vector scores -1 and counts in OCTIS's mean
    none = embedding_coherence([["a", "c", "d"], ["zz", "yy", "xx"]], VEC, n_top=3, compat="octis")
    assert none.per_topic.loc[1, "pairwise"] == -1.0
    assert none.value == pytest.approx((flipped - 1) / 2, abs=1e-15)


def test_octis_measures_give_values_or_reasons():
    from tealeaves.comparison.octis import EMBEDDING_COLUMNS, LABEL_COLUMNS, octis_measures
    from tealeaves.corpus import Corpus

    model = FixedTopicModel(np.array([[0.45, 0.45, 0.05, 0.05], [0.05, 0.05, 0.45, 0.45]]),
                            ["a", "b", "c", "d"], doc_topic_prior=0.1)
    docs = [["a", "b", "a"], ["c", "d", "d"], ["a", "a", "b"], ["d", "c", "c"], ["b", "a"], ["c", "d"]]
    labels = [("x",), ("y",), ("x",), ("y",), ("x", "y"), ("y",)]
    train = Corpus.from_token_lists(docs, labels=labels)
    out = octis_measures(model, train, train, vectors=None, n_top=2)
    assert out["log_odds_ratio"] == pytest.approx(log_odds_ratio(model).value)
    assert all(out[c] is None and "word vectors" in out["unavailable"][c] for c in EMBEDDING_COLUMNS)
    # the document with two labels is left out; the others are split perfectly by their topic
    assert out["purity"] == 1.0 and out["nmi"] == pytest.approx(1.0)
    assert out["f1_micro"] == 1.0 and not any(c in out["unavailable"] for c in LABEL_COLUMNS)
    vec = WordVectors(["a", "b", "c", "d"], np.array([[1.0, 0.1], [0.9, 0.2], [0.1, 1.0], [0.2, 0.9]]), "toy")
    unlabelled = Corpus.from_token_lists(docs)
    out = octis_measures(model, unlabelled, unlabelled, vectors=vec, n_top=2)
    assert out["we_irbo"] == pytest.approx(we_irbo(model, vec, 2).value)
    assert all(out[c] is None and "labels" in out["unavailable"][c] for c in LABEL_COLUMNS)
