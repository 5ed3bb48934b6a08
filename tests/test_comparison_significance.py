"""Topic significance (AlSumait et al. 2009) against a hand-computed example, and OCTIS's weighting."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tealeaves.comparison import kl_divergence, topic_significance
from tealeaves.models.base import FixedTopicModel

PHI = np.array([[0.5, 0.5, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25]])
THETA = np.array([[1.0, 0.0], [0.5, 0.5]])
LENGTHS = np.array([2, 4])
MODEL = FixedTopicModel(PHI, ["a", "b", "c", "d"])


def test_token_weighted_by_hand():
    # n_dk = N_d theta_dk = [[2, 0], [2, 2]]: p(k) = [4, 2] / 6; W_vac = 2/3 phi_0 + 1/3 phi_1
    #   = [5/12, 5/12, 1/12, 1/12]; Psi_0 = [1/2, 1/2], Psi_1 = [0, 1]
    res = topic_significance(MODEL, THETA, LENGTHS)
    t = res.per_topic
    assert t["kl_uniform"].tolist() == pytest.approx([math.log(2), 0.0], abs=1e-15)
    assert t["kl_vacuous"].tolist() == pytest.approx([math.log(6 / 5), 0.5 * math.log(9 / 5)], abs=1e-15)
    assert t["kl_background"].tolist() == pytest.approx([0.0, math.log(2)], abs=1e-15)
    assert t["share"].tolist() == pytest.approx([2 / 3, 1 / 3])
    assert res.value == pytest.approx((math.log(6 / 5) + 0.5 * math.log(9 / 5)) / 2)
    assert "|weight=tokens|docs=2|model=FixedTopicModel/K2/V4|" in str(res.signature)


def test_document_weighted_is_octis_without_epsilon():
    # p(k) = mean_d theta = [3/4, 1/4]: W_vac = [7/16, 7/16, 1/16, 1/16]; Psi_1 = [0, 1]
    res = topic_significance(MODEL, THETA)
    t = res.per_topic
    assert t.loc[0, "kl_vacuous"] == pytest.approx(math.log(8 / 7), abs=1e-15)
    assert t.loc[1, "kl_vacuous"] == pytest.approx(0.5 * math.log(4 / 7) + 0.5 * math.log(4), abs=1e-15)
    # Psi_0 = [1, 1/2] / (3/2) = [2/3, 1/3]
    assert t.loc[0, "kl_background"] == pytest.approx(2 / 3 * math.log(4 / 3) + 1 / 3 * math.log(2 / 3))
    assert "|weight=documents|" in str(res.signature)

    # OCTIS's KL_vacuous adds 1e-5 to both distributions; with that epsilon the values agree closely
    def octis_kl(p, q, eps=1e-5):
        p, q = p + eps, q + eps
        return float(np.sum(p * np.log(p / q)))

    vac = THETA.mean(axis=0) @ PHI
    assert octis_kl(PHI[1], vac) == pytest.approx(t.loc[1, "kl_vacuous"], abs=1e-3)


def test_kl_divergence_conventions():
    assert kl_divergence(np.array([0.0, 1.0]), np.array([0.5, 0.5])) == pytest.approx(math.log(2))
    assert kl_divergence(np.array([0.5, 0.5]), np.array([1.0, 0.0])) == math.inf


def test_a_background_topic_is_closest_to_the_vacuous_distribution(reuters):
    """Real Reuters word frequencies: a topic equal to the corpus's word distribution, carrying most of the
    corpus, is the one closest to the vacuous distribution and far from uniform."""
    train = reuters[0].subset(range(300))
    tf = train.term_frequencies().astype(float)
    rng = np.random.default_rng(0)
    topics = rng.dirichlet(np.full(len(tf), 0.05), size=3)
    phi = np.vstack([topics, tf / tf.sum()])
    model = FixedTopicModel(phi, list(train.vocabulary))
    theta = rng.dirichlet([0.2, 0.2, 0.2, 5.0], size=len(train))
    t = topic_significance(model, theta, train.lengths).per_topic
    assert t["kl_vacuous"].idxmin() == 3
    assert t["kl_uniform"].iloc[3] < t["kl_uniform"].iloc[:3].min()
