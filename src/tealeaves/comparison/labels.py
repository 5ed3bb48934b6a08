"""Topics against document labels: the clustering and classification scores topic-model papers report.

Clustering (each document goes to its most probable topic, ``argmax_k theta_dk``, ties to
the lowest ``k``; Manning, Raghavan and Schütze 2008, *Introduction to Information
Retrieval*, section 16.3), over ``N`` documents with topics ``Omega`` and labels ``C``:

``purity`` (:func:`clustering_scores`)
    ``1 / N sum_k max_c |omega_k ∩ c_c|``: the share of documents whose topic's most common
    label is their own (1 = every topic holds one label; a single label gives 1).
``nmi`` (:func:`clustering_scores`)
    ``I(Omega; C) / ((H(Omega) + H(C)) / 2)`` with natural logarithms (the arithmetic mean of
    the entropies, as the book and scikit-learn's ``normalized_mutual_info_score`` default).
    When both entropies are 0 (one topic used, one label) the value is 1; when only one is
    0 it is 0.

Classification (OCTIS's ``F1Score``, ``PrecisionScore``, ``RecallScore``; Terragni et
al. 2021): a linear support vector machine (scikit-learn's ``LinearSVC`` with its
defaults, OCTIS's ``kernel='linear'``) is trained on the training documents' topic
proportions, standardised (``StandardScaler`` fitted on the training rows, OCTIS's
``scale=True``), and predicts the test documents' labels; :func:`classification_scores`
reports micro-averaged F1, precision and recall (for one label per document all three
equal the accuracy).  OCTIS leaves ``LinearSVC``'s ``random_state`` unset; tealeaves
passes ``seed``.  A test label absent from training counts as a wrong prediction (OCTIS
raises ``KeyError``).  Only one label per document: OCTIS switches to a random forest for
lists of labels, which is not reproduced here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.special import xlogy

from tealeaves.comparison._common import Score
from tealeaves.errors import InvalidModelError, ParameterError
from tealeaves.likelihood._perplexity import check_proportions
from tealeaves.signature import Signature
from tealeaves.validation import check_seed


def _theta(theta: object, name: str = "theta") -> np.ndarray:
    theta = np.asarray(theta, dtype=np.float64)
    if theta.ndim != 2 or theta.shape[0] == 0:
        raise InvalidModelError(f"{name} must be a D x K array with at least one document, got shape "
                                f"{theta.shape}")
    return check_proportions(theta, theta.shape[0], theta.shape[1])


def _labels(labels: object, n_documents: int, name: str = "labels") -> list[str]:
    """One label per document, as text; missing or multiple labels are refused."""
    values = list(labels) if labels is not None else []
    if len(values) != n_documents:
        raise ParameterError(f"{name} has {len(values)} entries for {n_documents} documents",
                             fix="give one label per row of theta")
    out = []
    for i, value in enumerate(values):
        if isinstance(value, (list, tuple, set, frozenset)):
            if len(value) != 1:
                raise ParameterError(f"document {i} has {len(value)} labels in {name}; these scores need "
                                     "exactly one", fix="keep the documents with one label "
                                                        "(e.g. Reuters stories with one category)")
            value = next(iter(value))
        if value is None or (isinstance(value, float) and np.isnan(value)) or str(value) == "":
            raise ParameterError(f"document {i} has no label in {name}",
                                 fix="drop the unlabelled documents or give them a label")
        out.append(str(value))
    return out


def _contingency(theta: object, labels: object) -> tuple[np.ndarray, int]:
    """The ``topics x labels`` counts of argmax topics against labels, and the number of documents."""
    theta = _theta(theta)
    names = _labels(labels, theta.shape[0])
    clusters = theta.argmax(axis=1)
    classes = {c: i for i, c in enumerate(sorted(set(names)))}
    table = np.zeros((theta.shape[1], len(classes)))
    np.add.at(table, (clusters, [classes[c] for c in names]), 1.0)
    return table, theta.shape[0]


def _signature(measure: str, n_documents: int, n_labels: int, **extra) -> Signature:
    return Signature(measure, {"docs": n_documents, "labels": n_labels, **extra})


def _entropy(counts: np.ndarray, n: int) -> float:
    p = counts / n
    return float(-xlogy(p, p).sum())


def _nmi(table: np.ndarray, n: int) -> tuple[float, dict]:
    """NMI of a ``topics x labels`` count table and its parts (module docstring)."""
    h_topics, h_labels = _entropy(table.sum(axis=1), n), _entropy(table.sum(axis=0), n)
    joint = table / n
    outer = np.outer(table.sum(axis=1), table.sum(axis=0)) / n ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        mutual = float(np.where(joint > 0, joint * np.log(joint / outer), 0.0).sum())
    mean = (h_topics + h_labels) / 2
    if h_topics == 0 and h_labels == 0:
        value = 1.0
    else:
        value = max(0.0, mutual / mean) if mean > 0 else 0.0
    return value, {"mutual_information": mutual, "entropy_topics": h_topics, "entropy_labels": h_labels}


def clustering_scores(theta: object, labels: Sequence) -> dict[str, Score]:
    """Purity and NMI of the documents' most probable topics against their labels (module docstring).

    Parameters
    ----------
    theta : array_like
        ``D x K`` topic proportions.
    labels : sequence
        One label per document (a one-element tuple is taken as its element).

    Returns
    -------
    dict of str to Score
        ``purity`` in ``(0, 1]`` and ``nmi`` in ``[0, 1]`` (with ``mutual_information``
        in nats and the two entropies), each with ``n_documents``, ``n_labels`` and
        ``n_topics_used`` in its details.

    Raises
    ------
    InvalidModelError
        If ``theta`` is not a ``D x K`` distribution.
    ParameterError
        If a document has no label, several labels, or the counts disagree.
    """
    table, n = _contingency(theta, labels)
    n_labels = table.shape[1]
    counts = {"n_documents": n, "n_labels": n_labels, "n_topics_used": int((table.sum(axis=1) > 0).sum())}
    value, parts = _nmi(table, n)
    purity = Score("purity", float(table.max(axis=1).sum() / n),
                   _signature("purity", n, n_labels, assign="argmax"), details=dict(counts))
    nmi = Score("nmi", value, _signature("nmi", n, n_labels, assign="argmax", mean="arithmetic"),
                details={**parts, **counts})
    return {"purity": purity, "nmi": nmi}


def classification_scores(train_theta: object, train_labels: Sequence, test_theta: object,
                          test_labels: Sequence, seed: int = 0) -> dict[str, Score]:
    """Micro-averaged F1, precision and recall of a linear SVM on topic proportions (OCTIS's).

    Standardised ``train_theta`` trains scikit-learn's ``LinearSVC`` (defaults, ``random_state=seed``)
    on ``train_labels``; it predicts the labels of ``test_theta`` (module docstring).

    Parameters
    ----------
    train_theta : array_like
        ``D_train x K`` topic proportions of the training documents.
    train_labels : sequence
        Their labels, one per document (at least two distinct labels).
    test_theta : array_like
        ``D_test x K`` topic proportions of the test documents.
    test_labels : sequence
        Their labels.
    seed : int, default 0
        ``LinearSVC``'s ``random_state``.

    Returns
    -------
    dict of str to Score
        ``f1_micro``, ``precision_micro`` and ``recall_micro``, each with ``n_train``,
        ``n_test`` and ``n_unseen_test_labels`` in its details.

    Raises
    ------
    InvalidModelError
        If a ``theta`` is not a distribution or the two have different numbers of topics.
    ParameterError
        If a label is missing or multiple, counts disagree, or training has a single label.
    """
    from sklearn.metrics import f1_score, precision_score, recall_score
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    seed = check_seed(seed)
    train, test = _theta(train_theta, "train_theta"), _theta(test_theta, "test_theta")
    if train.shape[1] != test.shape[1]:
        raise InvalidModelError(f"train_theta has {train.shape[1]} topics but test_theta {test.shape[1]}",
                                fix="take both from the same model")
    y_train = _labels(train_labels, train.shape[0], "train_labels")
    y_test = _labels(test_labels, test.shape[0], "test_labels")
    if len(set(y_train)) < 2:
        raise ParameterError("the training documents carry a single label; a classifier needs two or more",
                             fix="use documents with different labels")
    scaler = StandardScaler()
    clf = LinearSVC(random_state=seed).fit(scaler.fit_transform(train), y_train)
    predicted = clf.predict(scaler.transform(test))
    unseen = sum(label not in set(y_train) for label in y_test)
    details = {"n_train": train.shape[0], "n_test": test.shape[0], "n_unseen_test_labels": unseen}
    out = {}
    scorers = (("f1_micro", f1_score), ("precision_micro", precision_score), ("recall_micro", recall_score))
    for key, fn in scorers:
        sig = Signature(key.replace("_", "-"), {"clf": "linear-svc", "scale": "standard", "seed": seed,
                                                 "train": train.shape[0], "test": test.shape[0]})
        out[key] = Score(key.replace("_", "-"), float(fn(y_test, predicted, average="micro")), sig,
                         details=dict(details))
    return out
