"""Paired comparisons: the two-sample bootstrap over topics for coherence, the paired bootstrap over
documents for held-out likelihood, checked against the bootstrap's known standard error, and a real run
on Reuters with the same held-out words."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tealeaves.coherence import build_index, coherence
from tealeaves.comparison import (
    IncomparableError,
    coherence_difference,
    likelihood_difference,
    same_heldout,
)
from tealeaves.likelihood.completion import CompletionResult, completion_signature, document_completion
from tealeaves.signature import Signature


def completion(per_doc, n_words, seed=0, model="m"):
    per_doc = np.asarray(per_doc, dtype=float)
    ll = float(per_doc.sum())
    return CompletionResult(ll, math.exp(-ll / n_words), len(per_doc), 0, n_words,
                            completion_signature(model, seed), per_doc)


@pytest.fixture(scope="module")
def small(reuters):
    from tealeaves.models.sklearn_lda import SklearnLDA

    train, test = reuters[0].subset(range(800)), reuters[1].subset(range(300))
    models = [SklearnLDA(k, learning_method="batch", max_iter=5, random_state=0).fit(train) for k in (5, 15)]
    return train, test, models


def test_coherence_difference_interval_matches_the_bootstrap_standard_error(small):
    train, _, (m5, m15) = small
    index = build_index(train, name="reuters-800")  # one reference for both (token lists would be indexed
    a, b = coherence(m15, index, "npmi"), coherence(m5, index, "npmi")  # for each model's words only)
    res = coherence_difference(a, b, n_boot=20000, seed=1)
    va, vb = np.array(a.scores), np.array(b.scores)
    assert res.estimate == pytest.approx(a.mean - b.mean, abs=1e-15)
    assert (res.n_a, res.n_b) == (15, 5)
    # topics are resampled independently within each model: the bootstrap variance of the difference of
    # means is var_a / n_a + var_b / n_b (ddof 0), so the 95% interval is about +-1.96 of its root
    se = math.sqrt(va.var() / va.size + vb.var() / vb.size)
    assert (res.high - res.low) / 2 == pytest.approx(1.96 * se, rel=0.1)
    assert res.low < res.estimate < res.high
    again = coherence_difference(a, b, n_boot=20000, seed=1)
    assert (again.low, again.high) == (res.low, res.high)
    assert str(res.signature).startswith("coherence-difference|of=npmi|ref=reuters-800@")
    assert Signature.parse(str(res.signature)).fields["top"] == "10"


def test_coherence_difference_refuses_other_settings(small):
    train, _, (m5, m15) = small
    docs = build_index(train, name="reuters-800")
    with pytest.raises(IncomparableError, match="computed differently"):
        coherence_difference(coherence(m15, docs, "npmi"), coherence(m5, docs, "npmi", top_n=5))


def test_paired_bootstrap_over_documents():
    rng = np.random.default_rng(0)
    base = -rng.uniform(20, 200, size=400)  # documents differ a lot in likelihood ...
    gain = rng.normal(0.5, 0.2, size=400)    # ... the models' difference per document very little
    a, b = completion(base + gain, 4000), completion(base, 4000)
    lengths = np.full(400, 10)
    res = likelihood_difference(a, b, lengths, n_boot=20000, seed=2)
    assert res.estimate == pytest.approx(gain.sum() / 4000, abs=1e-12)
    assert res.value_a - res.value_b == pytest.approx(res.estimate, abs=1e-12)
    # paired: the interval reflects the spread of the per-document differences only (equal lengths:
    # se = std(gain) / sqrt(D) / 10), not the large spread of the documents' likelihoods
    se = gain.std() / math.sqrt(400) / 10
    assert (res.high - res.low) / 2 == pytest.approx(1.96 * se, rel=0.1)
    assert res.low > 0
    assert "|boot=paired-documents|" in str(res.signature)
    # the signature names both models and parses back (no nested signatures with their own '|')
    parsed = Signature.parse(str(res.signature))
    assert parsed.fields["a"] == parsed.fields["b"] == "m" and parsed.fields["seed"] == "0"
    assert parsed.fields["boot_seed"] == "2"


def test_same_heldout_and_likelihood_difference_on_reuters(small):
    _, test, (m5, m15) = small
    heldout = same_heldout(m15, m5, test, seed=0)
    a, b = document_completion(m15, test, seed=0), document_completion(m5, test, seed=0)
    res = likelihood_difference(a, b, heldout, n_boot=2000)
    assert res.estimate == pytest.approx((a.log_likelihood - b.log_likelihood) / a.n_heldout_words, abs=1e-12)
    assert res.value_a == pytest.approx(-math.log(a.perplexity), abs=1e-12)
    assert res.low <= res.estimate <= res.high
    other = document_completion(m5, test, seed=1)
    with pytest.raises(IncomparableError, match="different held-out splits"):
        likelihood_difference(a, other, heldout)
