"""Topic diversity, inverted RBO, mean pairwise Jaccard and RBO against hand-computed values and OCTIS's
published definitions (octis/evaluation_metrics/diversity_metrics.py: TopicDiversity, InvertedRBO, which
calls rbo(...)[2], the extrapolated RBO of Webber, Moffat and Zobel 2010)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from tealeaves.comparison import inverted_rbo, jaccard, mean_pairwise_jaccard, rbo, topic_diversity
from tealeaves.models.base import FixedTopicModel

T1, T2, T3 = ["a", "b", "c"], ["b", "a", "d"], ["e", "f", "g"]


# ---- independent transcriptions of OCTIS's definitions (set-based, general unequal-length form) ----------
def octis_topic_diversity(topics, topk):
    unique = set()
    for t in topics:
        unique |= set(t[:topk])
    return len(unique) / (topk * len(topics))


def _agreement(x, y, d):
    sx, sy = set(x[:d]), set(y[:d])
    return 2 * len(sx & sy) / (len(sx) + len(sy))


def octis_rbo_ext(x, y, p):
    """Webber et al. eq. 32 as OCTIS's rbo.py writes it (agreement-based, lists of any lengths)."""
    s_list, l_list = sorted((x, y), key=len)
    s, l_ = len(s_list), len(l_list)
    x_l = _agreement(x, y, l_) * min(l_, len(x), len(y))
    x_s = _agreement(x, y, s) * min(s, len(x), len(y))
    sum1 = sum(p ** d * _agreement(x, y, d) for d in range(1, l_ + 1))
    sum2 = sum(p ** d * x_s * (d - s) / s / d for d in range(s + 1, l_ + 1))
    return (1 - p) / p * (sum1 + sum2) + p ** l_ * ((x_l - x_s) / l_ + x_s / s)


def octis_inverted_rbo(topics, topk, weight):
    vals = []
    for a, b in itertools.combinations(topics, 2):
        index = {w: i for i, w in enumerate(set(a) | set(b))}
        vals.append(octis_rbo_ext([index[w] for w in a][:topk], [index[w] for w in b][:topk], weight))
    return 1 - np.mean(vals)


# ---- hand-computed values ---------------------------------------------------------------------------------
def test_topic_diversity_by_hand():
    # unique words {a, b, c, d} among 2 topics x 3 words: 4 / 6; with T3: 7 / 9
    assert topic_diversity([T1, T2], n_top=3).value == pytest.approx(4 / 6, abs=1e-15)
    res = topic_diversity([T1, T2, T3], n_top=3)
    assert res.value == pytest.approx(7 / 9, abs=1e-15)
    assert res.details == {"n_topics": 3, "n_unique_words": 7}
    assert str(res.signature).startswith("topic-diversity|top=3|model=topics|tealeaves-")
    # only the top n count: top 1 of each -> {a, b, e} / 3
    assert topic_diversity([T1, T2, T3], n_top=1).value == pytest.approx(1.0)


def test_rbo_by_hand():
    # A_1 = 0, A_2 = 1, A_3 = 2/3; p = 0.5: (1-p)/p * (p A1 + p^2 A2 + p^3 A3) + p^3 A3 = 1/4 + 1/12 + 1/12
    assert rbo(T1, T2, p=0.5) == pytest.approx(5 / 12, abs=1e-15)
    assert rbo(T1, T1, p=0.9) == pytest.approx(1.0, abs=1e-12)
    assert rbo(T1, T3, p=0.9) == 0.0
    # p = 1: the agreement at depth k
    assert rbo(T1, T2, p=1.0) == pytest.approx(2 / 3)
    # the doctest of the RBO implementation OCTIS copies: swapping the top two of seven gives 0.9
    assert round(rbo(list("abcdefg"), list("bacdefg"), 0.9), 3) == 0.9


def test_inverted_rbo_by_hand():
    # RBO(T1, T2) = 5/12, the other pairs share nothing: IRBO = 1 - (5/12) / 3 = 31/36
    res = inverted_rbo([T1, T2, T3], n_top=3, p=0.5)
    assert res.value == pytest.approx(31 / 36, abs=1e-15)
    assert res.details["n_pairs"] == 3
    assert "|p=0.5|" in str(res.signature)


def test_mean_pairwise_jaccard_by_hand():
    assert jaccard(T1, T2) == pytest.approx(0.5)  # {a, b} / {a, b, c, d}
    assert mean_pairwise_jaccard([T1, T2, T3], n_top=3).value == pytest.approx(0.5 / 3)
    assert mean_pairwise_jaccard([T1, T1], n_top=3).value == 1.0


@pytest.mark.parametrize("seed", range(5))
def test_octis_parity_on_random_topics(seed):
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(30)]
    topics = [list(rng.choice(vocab, size=12, replace=False)) for _ in range(6)]
    assert topic_diversity(topics, 10).value == pytest.approx(octis_topic_diversity(topics, 10), abs=1e-15)
    expected = octis_inverted_rbo(topics, 10, 0.9)
    assert inverted_rbo(topics, 10, 0.9).value == pytest.approx(expected, abs=1e-12)
    for a, b in itertools.combinations(topics, 2):
        assert rbo(a[:10], b[:10], 0.9) == pytest.approx(octis_rbo_ext(a[:10], b[:10], 0.9), abs=1e-12)


def test_octis_worked_case():
    """A worked case in OCTIS's defaults (topk=10, weight=0.9): three topics, two sharing five words."""
    t1 = "oil gas energy reserves production crude opec barrels pipeline bpd".split()
    t2 = "gas oil prices energy reserves market natural supply demand winter".split()
    t3 = "bank rate interest fed dollar money market banks credit loans".split()
    irbo = inverted_rbo([t1, t2, t3]).value
    assert irbo == pytest.approx(octis_inverted_rbo([t1, t2, t3], 10, 0.9), abs=1e-12)
    # by hand: t1/t2 agree 0, 1, 2/3, 3/4, 4/5 and then 4/d up to depth 10; t2/t3 share only 'market' at
    # depth 6 and 7 (t3 rank 7): 0 until depth 7, then 1/7, 1/8, 1/9, 1/10; t1/t3 nothing
    a12 = [0, 1, 2 / 3, 3 / 4, 4 / 5, 4 / 6, 4 / 7, 4 / 8, 4 / 9, 4 / 10]
    a23 = [0] * 6 + [1 / 7, 1 / 8, 1 / 9, 1 / 10]

    def ext(agree, p=0.9):
        return (1 - p) / p * sum(p ** d * a for d, a in enumerate(agree, 1)) + p ** 10 * agree[-1]

    assert irbo == pytest.approx(1 - (ext(a12) + ext(a23)) / 3, abs=1e-12)
    # t1 and t2 share oil gas energy reserves, t2 and t3 market: 30 - 5 unique words
    assert topic_diversity([t1, t2, t3], 10).value == pytest.approx(25 / 30)


def test_diversity_of_a_model_uses_its_ranking():
    phi = np.array([[0.4, 0.3, 0.2, 0.1, 0.0], [0.0, 0.1, 0.2, 0.3, 0.4]])
    model = FixedTopicModel(phi, list("abcde"))
    # top 2: {a, b} and {e, d}: all distinct; top 3 share c
    assert topic_diversity(model, 2).value == 1.0
    assert topic_diversity(model, 3).value == pytest.approx(5 / 6)
    assert "model=FixedTopicModel/K2/V5" in str(topic_diversity(model, 3).signature)
    assert math.isclose(mean_pairwise_jaccard(model, 3).value, 1 / 5)
