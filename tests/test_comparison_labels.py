"""Topics against document labels: purity and NMI of the argmax topic (Manning et al. 2008, section 16.3)
on a worked example, and OCTIS's classification scores (a linear SVM on standardised theta) against
scikit-learn run by hand on the same split."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tealeaves.comparison import classification_scores, clustering_scores


def purity(theta, labels):
    return clustering_scores(theta, labels)["purity"]


def nmi(theta, labels):
    return clustering_scores(theta, labels)["nmi"]

# six documents, argmax topics 0 0 0 1 1 2; labels x x y y y z
THETA = np.array([[0.8, 0.1, 0.1], [0.6, 0.3, 0.1], [0.5, 0.4, 0.1],
                  [0.2, 0.7, 0.1], [0.1, 0.8, 0.1], [0.1, 0.2, 0.7]])
LABELS = ["x", "x", "y", "y", "y", "z"]


def test_purity_by_hand():
    # topic 0 holds x x y (max 2), topic 1 y y (2), topic 2 z (1): (2 + 2 + 1) / 6
    assert purity(THETA, LABELS).value == pytest.approx(5 / 6, abs=1e-15)
    assert purity(THETA, [("x",)] * 6).value == 1.0  # a one-element tuple is its label


def test_nmi_by_hand():
    n = 6
    topics = {0: 3, 1: 2, 2: 1}
    labels = {"x": 2, "y": 3, "z": 1}
    joint = {(0, "x"): 2, (0, "y"): 1, (1, "y"): 2, (2, "z"): 1}
    mi = sum(c / n * math.log((c / n) / (topics[k] / n * labels[c_] / n)) for (k, c_), c in joint.items())
    h_t = -sum(c / n * math.log(c / n) for c in topics.values())
    h_l = -sum(c / n * math.log(c / n) for c in labels.values())
    res = nmi(THETA, LABELS)
    assert res.value == pytest.approx(mi / ((h_t + h_l) / 2), abs=1e-15)
    assert res.details["mutual_information"] == pytest.approx(mi, abs=1e-15)


def test_nmi_degenerate_values_are_documented():
    one_topic = np.tile([0.9, 0.1], (4, 1))
    assert nmi(one_topic, ["a"] * 4).value == 1.0          # both entropies 0
    assert nmi(one_topic, ["a", "b", "a", "b"]).value == 0.0  # one entropy 0


def test_classification_scores_equal_a_linear_svm_by_hand():
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    rng = np.random.default_rng(0)
    train = rng.dirichlet([0.5] * 4, size=60)
    test = rng.dirichlet([0.5] * 4, size=30)
    y_train = [str(int(np.argmax(r[:3]))) for r in train]
    y_test = [str(int(np.argmax(r[:3]))) for r in test]
    scaler = StandardScaler().fit(train)
    clf = LinearSVC(random_state=3).fit(scaler.transform(train), y_train)
    predicted = clf.predict(scaler.transform(test))
    accuracy = float(np.mean(predicted == np.array(y_test)))
    scores = classification_scores(train, y_train, test, y_test, seed=3)
    # one label per document: micro F1 = micro precision = micro recall = accuracy
    for key in ("f1_micro", "precision_micro", "recall_micro"):
        assert scores[key].value == pytest.approx(accuracy, abs=1e-15)
    # a test label never seen in training is a wrong prediction, counted
    unseen = classification_scores(train, y_train, test[:1], ["new"], seed=3)
    assert unseen["f1_micro"].value == 0.0 and unseen["f1_micro"].details["n_unseen_test_labels"] == 1
