"""Every comparison result serialises to JSON through to_dict() (what a results store and a report read),
and the rank-biased overlap keeps its defining properties on generated rankings."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tealeaves import comparison as cmp
from tealeaves.models.base import FixedTopicModel
from tealeaves.signature import Signature

VOCAB = [f"w{i}" for i in range(30)]


def test_results_are_json_ready():
    rng = np.random.default_rng(0)
    runs = [FixedTopicModel(rng.dirichlet(np.full(30, 0.2), size=5), VOCAB) for _ in range(3)]
    theta = rng.dirichlet(np.ones(5), size=40)
    lengths = rng.integers(5, 50, size=40)
    vec = cmp.WordVectors(VOCAB, rng.normal(size=(30, 4)), "random")
    stab = cmp.topic_stability(runs)
    results = [
        cmp.match_topics(runs[0], runs[1]), stab, cmp.topic_diversity(runs[0], 10), cmp.inverted_rbo(runs[0]),
        cmp.mean_pairwise_jaccard(runs[0]), cmp.topic_significance(runs[0], theta, lengths),
        cmp.embedding_coherence(runs[0], vec),
        cmp.flag_topics(5, recurrence=stab.recurrence(0), theta=theta, doc_lengths=lengths,
                        significance=cmp.topic_significance(runs[0], theta, lengths)),
        cmp.coherence_difference(*[SimpleNamespace(scores=[0.1, 0.3, 0.2], signature=Signature("npmi"))] * 2),
    ]
    for res in results:
        d = res.to_dict()
        text = json.dumps(d, allow_nan=False)
        assert "tealeaves-" in json.loads(text)["signature"]
    table = cmp.stability_by_k({5: runs})
    assert table.loc[0, "mean_similarity"] == pytest.approx(stab.summary["mean_similarity"])


rankings = st.lists(st.sampled_from(VOCAB), min_size=1, max_size=12, unique=True)


@settings(max_examples=60, deadline=None)
@given(rankings, st.data(), st.floats(0.05, 1.0))
def test_rbo_properties(first, data, p):
    n = len(first)
    second = data.draw(st.lists(st.sampled_from(VOCAB), min_size=n, max_size=n, unique=True))
    value = cmp.rbo(first, second, p)
    assert -1e-12 <= value <= 1 + 1e-12
    assert value == pytest.approx(cmp.rbo(second, first, p), abs=1e-12)
    assert cmp.rbo(first, first, p) == pytest.approx(1.0, abs=1e-12)
    if not set(first) & set(second):
        assert value == 0.0
