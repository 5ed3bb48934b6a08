"""The report's topic explorer: intertopic map (Jensen-Shannon distances, classical MDS), relevance ranking
and the two-model view, each checked against an independent recomputation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon

from tealeaves.models.base import FixedTopicModel
from tealeaves.report.explorer import (
    LAMBDAS,
    classical_mds,
    js_distances,
    relevance,
    relevance_candidates,
    relevance_ranking,
    word_marginal,
)


def _phi(k=6, v=40, seed=0):
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(v, 0.3), size=k)
    phi[0, 3] = 0.0  # a word the topic never uses
    return phi / phi.sum(axis=1, keepdims=True)


def test_explorer_js_distances_equal_scipy():
    phi = _phi()
    model = FixedTopicModel(phi, [f"w{i}" for i in range(phi.shape[1])])
    d = js_distances(model)
    expected = np.array([[jensenshannon(a, b, base=2) for b in phi] for a in phi])
    np.testing.assert_allclose(d, expected, atol=1e-12)
    assert np.all(np.diag(d) == 0) and np.allclose(d, d.T)


def test_explorer_classical_mds_recovers_planar_distances():
    rng = np.random.default_rng(1)
    points = rng.normal(size=(7, 2))
    d = np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(-1))
    xy = classical_mds(d)
    got = np.sqrt(((xy[:, None, :] - xy[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(got, d, atol=1e-10)  # exact for points that live in two dimensions


def test_explorer_classical_mds_is_the_top_eigenvectors_of_the_centred_gram_matrix():
    # independent: for Euclidean distances the principal coordinates are the PCA scores
    rng = np.random.default_rng(2)
    points = rng.normal(size=(6, 4))
    d = np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(-1))
    centred = points - points.mean(axis=0)
    u, s, _ = np.linalg.svd(centred, full_matrices=False)
    expected = u[:, :2] * s[:2]  # principal coordinates = PCA scores for Euclidean distances
    xy = classical_mds(d)
    for axis in range(2):
        sign = np.sign(expected[np.argmax(np.abs(expected[:, axis])), axis])
        np.testing.assert_allclose(xy[:, axis], sign * expected[:, axis], atol=1e-10)


def test_explorer_relevance_is_sievert_and_shirley():
    phi = _phi()
    pw = word_marginal(phi)
    np.testing.assert_allclose(pw, phi.mean(axis=0))
    for lam in (0.0, 0.3, 1.0):
        got = relevance(phi, pw, 2, lam)
        for w in range(phi.shape[1]):
            expected = lam * np.log(phi[2, w]) + (1 - lam) * np.log(phi[2, w] / pw[w])
            assert got[w] == pytest.approx(expected, rel=1e-12)
    assert relevance(phi, pw, 0, 0.5)[3] == -np.inf
    weights = np.array([0.5, 0.1, 0.1, 0.1, 0.1, 0.1])
    np.testing.assert_allclose(word_marginal(phi, weights), (weights[:, None] * phi).sum(axis=0))


def test_explorer_relevance_candidates_hold_the_ranking_at_every_slider_step():
    phi = _phi(k=5, v=300, seed=3)
    pw = word_marginal(phi)
    candidates = relevance_candidates(phi, pw, 10)
    for t, cand in enumerate(candidates):
        ids, logp, lift = np.array(cand["ids"]), np.array(cand["logp"]), np.array(cand["loglift"])
        for lam in LAMBDAS:
            # what the page does: rank the candidates by relevance, ties by lower word id
            score = lam * logp + (1 - lam) * lift
            page = [int(ids[i]) for i in sorted(range(len(ids)), key=lambda i: (-score[i], ids[i]))[:10]]
            assert page == relevance_ranking(phi, pw, t, lam, 10), (t, lam)
    # lambda = 1 ranks by p(w|t); lambda = 0 by lift
    assert relevance_ranking(phi, pw, 1, 1.0, 5) == list(np.argsort(-phi[1], kind="stable")[:5])
    assert relevance_ranking(phi, pw, 1, 0.0, 5) == list(np.argsort(-(phi[1] / pw), kind="stable")[:5])
