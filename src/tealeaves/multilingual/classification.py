"""Crosslingual document classification on topic proportions.

A multilingual topic model is useful across languages when topic proportions
mean the same thing in every language: a classifier trained on documents of
one language should then label documents of another (Hao, Boyd-Graber and
Paul 2018 use this as an extrinsic check of crosslingual topic quality).

:func:`crosslingual_classification` trains a scikit-learn logistic regression
on the source-language documents of training tuples and tests it on the
target-language documents of *other* tuples, each side's ``theta`` inferred
from that side alone (so nothing leaks across the pair).  It reports accuracy,
macro-averaged F1 and the majority-class baseline, with a
:class:`~tealeaves.signature.Signature`.  :func:`evaluate_features` is the
same evaluation on given feature matrices.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import train_test_split

from tealeaves.corpus.aligned import AlignedCorpus, language_code
from tealeaves.errors import EmptyInputError, TealeavesError
from tealeaves.models._fit import describe
from tealeaves.signature import Signature


@dataclass(frozen=True)
class ClassificationResult:
    """Scores of one train-language -> test-language classification run.

    Parameters
    ----------
    accuracy : float
        Share of test documents labelled correctly.
    macro_f1 : float
        Unweighted mean of the per-class F1 (:func:`evaluate_features`).
    majority_baseline : float
        Accuracy of always predicting the most frequent training label.
    n_train : int
        Training documents.
    n_test : int
        Test documents.
    classes : tuple of str
        The classifier's classes (the training labels), sorted.
    signature : Signature
        The settings (``xling-clf``: classifier, ``C``, model, languages, split).
    """

    accuracy: float
    macro_f1: float
    majority_baseline: float
    n_train: int
    n_test: int
    classes: tuple[str, ...]
    signature: Signature

    def as_dict(self) -> dict:
        """The scores as a JSON-ready dict.

        Returns
        -------
        dict
            Every field, ``classes`` as a list and ``signature`` as its string.
        """
        return {
            "accuracy": self.accuracy, "macro_f1": self.macro_f1,
            "majority_baseline": self.majority_baseline, "n_train": self.n_train, "n_test": self.n_test,
            "classes": list(self.classes), "signature": str(self.signature),
        }


def evaluate_features(
    train_x: np.ndarray,
    train_y: Sequence,
    test_x: np.ndarray,
    test_y: Sequence,
    C: float = 1.0,
    max_iter: int = 2000,
    signature_fields: dict | None = None,
) -> ClassificationResult:
    """Fit ``LogisticRegression(C, lbfgs)`` on ``train_x`` and score it on ``test_x``.

    Accuracy is the share of test documents labelled correctly; macro-F1 the
    unweighted mean of per-class F1 over the classes present in the test or
    predicted labels (scikit-learn's ``average="macro"``, ``zero_division=0``);
    the majority baseline is the accuracy of always predicting the most
    frequent training label (ties: first in sorted order).

    Parameters
    ----------
    train_x : numpy.ndarray
        Training features, one row per document.
    train_y : sequence
        One label per training document (compared as strings).
    test_x : numpy.ndarray
        Test features, one row per document.
    test_y : sequence
        One label per test document.
    C : float, default 1.0
        Inverse regularisation strength of the logistic regression.
    max_iter : int, default 2000
        Iteration limit of the lbfgs solver.
    signature_fields : dict, optional
        Fields added to the signature after ``clf`` and ``C``.

    Returns
    -------
    ClassificationResult
        The scores, with signature ``xling-clf``.

    Raises
    ------
    EmptyInputError
        When the training or test labels are empty.
    TealeavesError
        When features and labels differ in length, the training labels hold a single class,
        or a feature is NaN or infinite.
    """
    train_x, test_x = np.asarray(train_x, dtype=float), np.asarray(test_x, dtype=float)
    train_y, test_y = [str(y) for y in train_y], [str(y) for y in test_y]
    if len(train_y) == 0 or len(test_y) == 0:
        raise EmptyInputError("classification needs labelled training and test documents; none were given")
    if len(train_x) != len(train_y) or len(test_x) != len(test_y):
        raise TealeavesError("features and labels differ in length; give one label per document")
    if len(set(train_y)) < 2:
        raise TealeavesError(f"training labels have a single class {set(train_y)}; need at least two")
    if not (np.isfinite(train_x).all() and np.isfinite(test_x).all()):
        raise TealeavesError("features contain NaN or infinite values")
    clf = LogisticRegression(C=C, max_iter=max_iter)
    clf.fit(train_x, train_y)
    pred = clf.predict(test_x)
    counts = Counter(train_y)
    majority = min(counts, key=lambda y: (-counts[y], y))
    fields = {"clf": "logreg-lbfgs", "C": float(C), **(signature_fields or {})}
    return ClassificationResult(
        accuracy=float(accuracy_score(test_y, pred)),
        macro_f1=float(f1_score(test_y, pred, average="macro", zero_division=0)),
        majority_baseline=float(np.mean([y == majority for y in test_y])),
        n_train=len(train_y),
        n_test=len(test_y),
        classes=tuple(str(c) for c in clf.classes_),
        signature=Signature("xling-clf", fields),
    )


def crosslingual_classification(
    model,
    corpus: AlignedCorpus,
    source: str,
    target: str,
    test_size: float = 0.3,
    C: float = 1.0,
    random_state: int = 0,
    infer_kwargs: dict | None = None,
) -> ClassificationResult:
    """Train on ``source``-language ``theta``, test on ``target``-language ``theta``.

    ``corpus.labels`` gives one label per tuple (``None`` = unlabelled, skipped).
    Labelled tuples with a document in both languages are split (stratified,
    seeded) into training and test tuples; the classifier sees the source side
    of training tuples and is scored on the target side of test tuples.  Each
    side's ``theta`` comes from ``model.language_model(lang).transform`` on that
    side alone.  ``model`` is a fitted
    :class:`~tealeaves.models.polylingual.PolylingualTopicModel` (or any object
    with ``language_model``).  The extrinsic check of crosslingual topic quality that Hao,
    Boyd-Graber and Paul (2018) use (module docstring).

    Parameters
    ----------
    model : PolylingualTopicModel
        A fitted multilingual model (polylingual topic model, Mimno et al. 2009).
    corpus : AlignedCorpus
        The aligned documents, with ``labels``.
    source : str
        The training language (any code :func:`~tealeaves.corpus.aligned.language_code`
        reads).
    target : str
        The test language; equal to ``source`` for the monolingual reference point
        (same language, disjoint tuples).
    test_size : float, default 0.3
        Share of the labelled tuples held out for testing.
    C : float, default 1.0
        Inverse regularisation strength of the logistic regression.
    random_state : int, default 0
        Seed of the train/test split.
    infer_kwargs : dict, optional
        Keyword arguments of ``transform`` (the fold-in).

    Returns
    -------
    ClassificationResult
        The scores (:func:`evaluate_features`), the signature recording model, languages
        and split.

    Raises
    ------
    EmptyInputError
        When the corpus has no labels, or fewer than 4 labelled tuples have a document in
        both languages.
    """
    source, target = language_code(source), language_code(target)
    if corpus.labels is None:
        raise EmptyInputError(
            "the aligned corpus has no labels; use a labelled reader (e.g. flores_documents, "
            "whose documents carry SIB-200 topics) or set AlignedCorpus.labels"
        )
    if source == target:  # monolingual reference point: same language, disjoint tuples
        pair = corpus.select_languages([source]).subset(np.flatnonzero(corpus.present[source]))
    else:
        pair = corpus.pairs(source, target)
    keep = [i for i, y in enumerate(pair.labels) if y is not None]
    if len(keep) < 4:
        raise EmptyInputError(
            f"only {len(keep)} labelled tuples have both {source} and {target} documents; need at least 4"
        )
    pair = pair.subset(keep)
    labels = [str(y) for y in pair.labels]
    counts = Counter(labels)
    stratify = labels if min(counts.values()) >= 2 else None
    train_idx, test_idx = train_test_split(
        np.arange(len(pair)), test_size=test_size, random_state=random_state, stratify=stratify
    )
    kwargs = dict(infer_kwargs or {})
    train_x = model.language_model(source).transform(pair.corpora[source].subset(train_idx), **kwargs)
    test_x = model.language_model(target).transform(pair.corpora[target].subset(test_idx), **kwargs)
    fields = {
        "model": describe(model), "train": source, "test": target, "features": "theta-foldin",
        "split": f"{test_size:g}@{random_state}",
    }
    return evaluate_features(
        train_x, [labels[i] for i in train_idx], test_x, [labels[i] for i in test_idx], C,
        signature_fields=fields,
    )
