"""Crosslingual classification: an independent scikit-learn check and a small real run."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score

from conftest import disk_cached, require_data
from tealeaves.errors import EmptyInputError, TealeavesError
from tealeaves.multilingual.classification import crosslingual_classification, evaluate_features


def test_scores_match_an_independent_sklearn_computation():
    rng = np.random.default_rng(0)
    centers = rng.normal(size=(3, 6))
    y = rng.integers(0, 3, size=200)
    x = centers[y] + rng.normal(scale=1.5, size=(200, 6))
    names = np.array(["a", "b", "c"])[y]
    res = evaluate_features(x[:150], names[:150], x[150:], names[150:], C=0.5)
    pred = LogisticRegression(C=0.5, max_iter=5000).fit(x[:150], names[:150]).predict(x[150:])
    assert res.accuracy == pytest.approx(accuracy_score(names[150:], pred))
    assert res.macro_f1 == pytest.approx(f1_score(names[150:], pred, average="macro"))
    counts = {c: int(np.sum(names[:150] == c)) for c in "abc"}
    top = max(sorted(counts), key=lambda c: counts[c])
    assert res.majority_baseline == pytest.approx(np.mean(names[150:] == top))
    assert res.n_train == 150 and res.n_test == 50 and res.classes == ("a", "b", "c")
    assert str(res.signature).startswith("xling-clf|clf=logreg-lbfgs|C=0.5|")


def test_bad_input():
    x = np.ones((4, 2))
    with pytest.raises(TealeavesError, match="single class"):
        evaluate_features(x, ["a"] * 4, x, ["a"] * 4)
    with pytest.raises(EmptyInputError):
        evaluate_features(x[:0], [], x, ["a"] * 4)
    with pytest.raises(TealeavesError, match="NaN"):
        evaluate_features(np.full((4, 2), np.nan), list("abab"), x, list("abab"))


@pytest.mark.xdist_group("flores-pltm")
def test_flores_english_to_swedish_beats_majority_baseline():
    require_data("parallel/flores200/docs/eng_Latn.jsonl")
    require_data("parallel/sib200/annotated/eng_Latn/train.tsv")
    from tealeaves.corpus.parallel import flores_documents
    from tealeaves.models.polylingual import PolylingualTopicModel

    def build():
        corpus = flores_documents(["en", "sv"]).to_aligned()
        model = PolylingualTopicModel(10, n_iter=300, optimize_burn_in=100, random_state=0)
        return corpus, model.fit(corpus)

    corpus, model = disk_cached("flores-en-sv-pltm-k10-v1", build)
    res = crosslingual_classification(model, corpus, "en", "sv", test_size=0.3, random_state=0)
    assert res.n_test > 100
    assert res.accuracy > res.majority_baseline + 0.1
    assert "train=en|test=sv" in str(res.signature)
    with pytest.raises(EmptyInputError, match="no labels"):
        unlabelled = corpus.subset(range(len(corpus)))
        unlabelled.labels = None
        crosslingual_classification(model, unlabelled, "en", "sv")
