"""The K-choice measures (ldatuning's four, stm's exclusivity and FREX) and top_topics on worked
examples written from the papers' and peers' formulas in plain Python, not from tealeaves' code."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest

from tealeaves.comparison import (
    arun2010,
    cao_juan2009,
    deveaud2014,
    exclusivity,
    frex_scores,
    frex_words,
    griffiths2004,
    top_topics,
)
from tealeaves.models.adapters.arrays import from_arrays


def model_of(rows, words=None):
    words = words or [f"w{i}" for i in range(len(rows[0]))]
    return from_arrays(np.array(rows, dtype=float), vocabulary=words)


def test_cao_juan2009_is_the_mean_pairwise_cosine():
    # each pair shares one of its two words: x.y = 0.25, |x| |y| = 0.5, cosine 0.5 for all three pairs
    model = model_of([[0.5, 0.5, 0.0], [0.5, 0.0, 0.5], [0.0, 0.5, 0.5]])
    assert cao_juan2009(model).value == pytest.approx(0.5, abs=1e-15)
    # orthogonal topics: 0; identical topics: 1
    assert cao_juan2009(model_of([[1, 0, 0], [0, 1, 0]])).value == pytest.approx(0.0, abs=1e-15)
    assert cao_juan2009(model_of([[0.2, 0.8], [0.2, 0.8]])).value == pytest.approx(1.0, abs=1e-15)


def test_cao_juan2009_on_an_unequal_example():
    rows = [[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.3, 0.3, 0.4]]

    def cos(x, y):
        return sum(a * b for a, b in zip(x, y)) / math.sqrt(sum(a * a for a in x) * sum(b * b for b in y))

    expected = sum(cos(rows[i], rows[j]) for i, j in combinations(range(3), 2)) / 3
    assert cao_juan2009(model_of(rows)).value == pytest.approx(expected, rel=1e-14)


def test_arun2010_is_the_symmetric_kl_of_singular_values_and_topic_mass():
    # two orthogonal topics of norm sqrt(0.5): singular values (0.5, 0.5) after normalising
    model = model_of([[0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5]])
    theta = [[1.0, 0.0], [0.5, 0.5]]
    lengths = [10, 30]
    # topic mass L theta = (10 + 15, 15) = (25, 15) -> (0.625, 0.375), sorted descending
    cm1, cm2 = [0.5, 0.5], [0.625, 0.375]
    expected = sum((a - b) * math.log(a / b) for a, b in zip(cm1, cm2))
    assert arun2010(model, theta, lengths).value == pytest.approx(expected, rel=1e-14)


def test_arun2010_sorts_the_topic_mass_before_comparing():
    # singular values of diag-like rows (0.9, 0.1 / 0.1, 0.9): 0.8 and 1.0 -> (1/1.8, 0.8/1.8)
    model = model_of([[0.9, 0.1], [0.1, 0.9]])
    s = [1.0 / 1.8, 0.8 / 1.8]  # |0.9 + 0.1| and |0.9 - 0.1|, the singular values of [[a, b], [b, a]]
    theta = [[0.2, 0.8], [0.2, 0.8]]  # topic 1 carries more mass than topic 0: mass (0.8, 0.2) once sorted
    expected = sum((a - b) * math.log(a / b) for a, b in zip(s, [0.8, 0.2]))
    assert arun2010(model, theta, [5, 5]).value == pytest.approx(expected, rel=1e-12)


def test_arun2010_of_two_identical_topics_is_infinite():
    model = model_of([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])
    assert arun2010(model, [[0.5, 0.5]], [4]).value == math.inf


def test_arun2010_rank_is_judged_up_to_rounding():
    # the third topic is the mean of the first two: rank 2 in exact arithmetic, whatever tiny last
    # singular value LAPACK returns (0 or ~1e-17 by build); a real, small difference stays finite
    a, b = np.array([0.6, 0.3, 0.1, 0.0]), np.array([0.1, 0.2, 0.3, 0.4])
    theta, lengths = [[0.4, 0.3, 0.3]], [10]
    assert arun2010(model_of([a, b, (a + b) / 2]), theta, lengths).value == math.inf
    c = (a + b) / 2 + np.array([1e-6, -1e-6, 0.0, 0.0])
    value = arun2010(model_of([a, b, c]), theta, lengths).value
    assert math.isfinite(value) and value > 1.0


def jsd2(x, y):
    """Jensen-Shannon divergence in bits of the (unnormalised) restrictions x and y."""
    total = 0.0
    for a, b in zip(x, y):
        m = (a + b) / 2
        total += 0.5 * a * math.log2(a / m) + 0.5 * b * math.log2(b / m)
    return total


def test_deveaud2014_over_shared_top_words_with_one_for_disjoint_pairs():
    rows = [[0.4, 0.3, 0.2, 0.1, 0.0],
            [0.1, 0.5, 0.05, 0.05, 0.3],
            [0.0, 0.05, 0.05, 0.4, 0.5]]
    # top 2: topic 0 {0, 1}, topic 1 {1, 4}, topic 2 {3, 4}
    pairs = {(0, 1): jsd2([0.3], [0.5]),          # share word 1
             (0, 2): 1.0,                           # share nothing
             (1, 2): jsd2([0.3], [0.5])}          # share word 4
    expected = sum(pairs.values()) / (3 * 2)
    score = deveaud2014(model_of(rows), n_top=2)
    assert score.value == pytest.approx(expected, rel=1e-14)
    assert score.details["disjoint_pairs"] == 1


def test_deveaud2014_ldatuning_compat_uses_every_word_and_the_symmetrised_kl():
    rows = [[0.5, 0.3, 0.2], [0.2, 0.2, 0.6], [0.1, 0.8, 0.1]]

    def half_sym_kl(x, y):
        return 0.5 * sum(a * math.log(a / b) for a, b in zip(x, y)) + \
            0.5 * sum(b * math.log(b / a) for a, b in zip(x, y))

    expected = sum(half_sym_kl(rows[i], rows[j]) for i, j in combinations(range(3), 2)) / (3 * 2)
    assert deveaud2014(model_of(rows), compat="ldatuning").value == pytest.approx(expected, rel=1e-14)


def test_griffiths2004_is_the_log_harmonic_mean_of_the_likelihoods():
    values = [-100.0, -110.0, -105.0]
    # log HM = -log(mean(exp(-l))), shifted by the largest exp(-l) = exp(110) by hand
    expected = -(110.0 + math.log((math.exp(-10.0) + 1.0 + math.exp(-5.0)) / 3))
    assert griffiths2004(log_likelihoods=values).value == pytest.approx(expected, rel=1e-15)


def test_griffiths2004_drops_the_burn_in_of_a_trace():
    class Trace:  # what a tealeaves Gibbs sampler records
        log_likelihood_trace_ = [-500.0, -120.0, -100.0]
        log_likelihood_iterations_ = [10, 20, 30]
        optimize_burn_in = 10

    expected = -(120.0 + math.log((1.0 + math.exp(-20.0)) / 2))
    assert griffiths2004(Trace()).value == pytest.approx(expected, rel=1e-15)
    everything = -(500.0 + math.log((1.0 + math.exp(-380.0) + math.exp(-400.0)) / 3))
    assert griffiths2004(Trace(), burn_in=0).value == pytest.approx(everything, rel=1e-15)


def r_rank(values):
    """R's rank(): 1-based ranks, ties get the mean of their positions."""
    ranks = []
    for v in values:
        below = sum(1 for u in values if u < v)
        equal = sum(1 for u in values if u == v)
        ranks.append(below + (equal + 1) / 2)
    return ranks


EXAMPLE = [[0.4, 0.3, 0.2, 0.1],
           [0.1, 0.2, 0.3, 0.4],
           [0.25, 0.25, 0.25, 0.25]]


def stm_frex(rows, w):
    """stm::exclusivity's FREX: 1 / (w / ECDF(exclusivity) + (1 - w) / ECDF(probability)), per topic."""
    n_words = len(rows[0])
    totals = [sum(r[v] for r in rows) for v in range(n_words)]
    out = []
    for row in rows:
        excl = [row[v] / totals[v] for v in range(n_words)]
        ex = [r / n_words for r in r_rank(excl)]
        fr = [r / n_words for r in r_rank(row)]
        out.append([1 / (w / e + (1 - w) / f) for e, f in zip(ex, fr)])
    return out


def test_frex_scores_equal_stm_on_a_hand_example():
    model = model_of(EXAMPLE)
    assert frex_scores(model, 0.7) == pytest.approx(np.array(stm_frex(EXAMPLE, 0.7)), rel=1e-14)
    # topic 2 is flat: every frequency rank ties at 2.5 / 4
    assert frex_scores(model, 0.0)[2] == pytest.approx([0.625] * 4, rel=1e-15)


def test_exclusivity_sums_frex_over_each_topics_top_words():
    model = model_of(EXAMPLE)
    frex = stm_frex(EXAMPLE, 0.7)
    # top 2 by probability (ties by word id): topic 0 words 0, 1; topic 1 words 3, 2; topic 2 words 0, 1
    expected = [frex[0][0] + frex[0][1], frex[1][3] + frex[1][2], frex[2][0] + frex[2][1]]
    score = exclusivity(model, n_top=2)
    assert list(score.per_topic["exclusivity"]) == pytest.approx(expected, rel=1e-14)
    assert list(score.per_topic["frex"]) == pytest.approx([e / 2 for e in expected], rel=1e-14)
    assert score.value == pytest.approx(sum(expected) / 3, rel=1e-14)


def test_frex_words_rank_by_frex():
    model = model_of(EXAMPLE, ["a", "b", "c", "d"])
    frex = stm_frex(EXAMPLE, 0.5)
    order = [sorted(range(4), key=lambda v: (-f[v], v))[:2] for f in frex]
    expected = [["abcd"[i] for i in topic] for topic in order]
    assert frex_words(model, n_top=2) == expected


def test_top_topics_sorts_topics_by_coherence_with_their_weights():
    from tealeaves.coherence import coherence

    words = ["apple", "pear", "plum", "car", "bus", "tram"]
    model = model_of([[0.3, 0.3, 0.2, 0.1, 0.05, 0.05],
                      [0.05, 0.05, 0.1, 0.3, 0.3, 0.2]], words)
    reference = [["apple", "pear", "plum"], ["apple", "pear"], ["car", "bus"], ["car", "tram"], ["bus"]]
    ranked = top_topics(model, reference, measure="umass", n_top=3)
    scores = coherence(model, reference, measure="umass", n_top=3).scores
    assert [s for _, s in ranked] == sorted(scores, reverse=True)
    best = int(np.argmax(scores))
    assert ranked[0][0] == [(float(model.topic_word_[best, words.index(w)]), w)
                            for w in model.top_words(3)[best]]
