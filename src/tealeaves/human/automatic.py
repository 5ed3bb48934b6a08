"""Automated word intrusion: predict a study's intruders from word association in a reference.

Lau, Newman and Baldwin (2014), *Machine reading tea leaves: automatically evaluating topic
coherence and topic model quality*, EACL, section 3: the intruder of a word-intrusion item
is the word least associated with the others.  For an item with options ``w_1 .. w_n``
(the topic's words and the intruder, shuffled), each option ``w`` gets the sum of its
association with the other options, from the counts of a reference
(:class:`~tealeaves.index.ReferenceIndex`; units are documents, ``window="doc"``, or
boolean sliding windows of ``window`` tokens), with ``P(w) = #units holding w / #units``:

``pmi``   ``sum_j log(P(w, w_j) / (P(w) P(w_j)))``;
``npmi``  ``sum_j pmi(w, w_j) / -log P(w, w_j)`` (Bouma 2009);
``cp1``   ``sum_j P(w | w_j) = sum_j P(w, w_j) / P(w_j)``;
``cp2``   ``sum_j P(w_j | w) = sum_j P(w, w_j) / P(w)``.

A pair that never co-occurs follows coherence's ``zero="epsilon"`` convention (``1e-12``
added to every joint probability, :mod:`tealeaves.coherence.confirmation`).  The predicted
intruder is the option with the **lowest** sum (ties: the first in the item's option
order).  An option absent from the reference has no association: it is predicted the
intruder (the first such option when several are absent), and the item is counted in
``n_absent_items``.

``method="ranker"`` is the paper's learned alternative: a logistic regression on the four
features (each centred on its item's mean) ranks the options, trained on the other items'
known intruders with ``n_folds``-fold cross-validation over items (so no item is predicted
by a ranker that saw its answer); the option with the highest score is predicted.

The predictions are judgments of one annotator (``auto:<method>``), written in the long
format or into a judgment database like ``tealeaves human import`` writes, so that
``tealeaves human score`` computes their model precision with the same code as people's.
Attention-check items are not answered (they screen people; the annotator shows as
unchecked).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from tealeaves.coherence.confirmation import EPSILON
from tealeaves.errors import ParameterError
from tealeaves.human.items import WORD_INTRUSION
from tealeaves.human.params import FEATURES, METHOD, N_FOLDS
from tealeaves.human.study import Study
from tealeaves.signature import Signature
from tealeaves.validation import check_seed, check_window


@dataclass
class AutoIntrusion:
    """Predicted intruders of a study's word-intrusion items.

    Parameters
    ----------
    predictions : pandas.DataFrame
        One row per item: ``item_id``, ``topic``, ``predicted``, ``answer``, ``correct``,
        ``n_options`` and ``absent`` (options absent from the reference).
    annotator : str
        The annotator the predictions are written as (``auto:<method>``).
    signature : Signature
        What was computed.
    """

    predictions: pd.DataFrame = field(repr=False)
    annotator: str
    signature: Signature

    @property
    def accuracy(self) -> float:
        """Share of items whose intruder was predicted."""
        return float(self.predictions["correct"].mean())

    @property
    def chance(self) -> float:
        """The accuracy of a uniform guess, ``mean(1 / n_options)``."""
        return float((1.0 / self.predictions["n_options"]).mean())

    def judgments(self) -> pd.DataFrame:
        """The predictions as judgments in the long format (``item_id``, ``annotator``, ``response``, ...).

        Returns
        -------
        pandas.DataFrame
            One row per item, platform ``auto``.
        """
        frame = pd.DataFrame({"item_id": self.predictions["item_id"], "annotator": self.annotator,
                              "response": self.predictions["predicted"]})
        frame["confidence"] = None
        frame["time"] = None
        frame["platform"] = "auto"
        return frame

    def to_dict(self) -> dict:
        """The result as a JSON-ready dictionary.

        Returns
        -------
        dict
            ``signature``, ``annotator``, ``n_items``, ``accuracy``, ``chance`` and
            ``n_absent_items``.
        """
        return {"signature": str(self.signature), "annotator": self.annotator,
                "n_items": len(self.predictions), "accuracy": self.accuracy, "chance": self.chance,
                "n_absent_items": int((self.predictions["absent"] > 0).sum())}


def _counts(reference, words: list[str], window: str | int) -> tuple[np.ndarray, np.ndarray, int]:
    """``(single, joint, n_units)`` of ``words`` in ``reference`` (absent words count 0)."""
    from tealeaves.coherence import core

    ids = [reference.word_id(w) for w in words]
    present = np.array([i for i, x in enumerate(ids) if x is not None], dtype=np.int64)
    n = len(words)
    single, joint = np.zeros(n), np.zeros((n, n))
    if len(present) == 0:  # no option in the reference: every feature is -inf (item_features)
        return single, joint, 1
    pairs = np.array([(a, b) for a in range(len(present)) for b in range(a + 1, len(present))],
                     dtype=np.int64).reshape(-1, 2)
    word_ids = [ids[i] for i in present]
    if window == "doc":
        counts = core.count_documents(reference, word_ids, pairs)
    else:
        counts = core.count_windows(reference, word_ids, pairs, int(window))
    single[present] = counts.single
    rows, cols = present[pairs[:, 0]], present[pairs[:, 1]]
    joint[rows, cols] = counts.joint
    joint[cols, rows] = counts.joint
    return single, joint, int(counts.n_units)


def item_features(reference, options: list[str], window: str | int = "doc") -> np.ndarray:
    """The ``n x 4`` feature sums (pmi, npmi, cp1, cp2) of each option against the others.

    Parameters
    ----------
    reference : ReferenceIndex
        The reference counts.
    options : list of str
        The item's options.
    window : "doc" or int, default "doc"
        Documents, or sliding windows of this many tokens.

    Returns
    -------
    numpy.ndarray
        One row per option; ``-inf`` rows for options absent from the reference.
    """
    single, joint, n_units = _counts(reference, options, window)
    p = single / n_units
    p_ab = joint / n_units + EPSILON
    present = p > 0
    out = np.full((len(options), len(FEATURES)), -np.inf)
    for i in np.flatnonzero(present):
        others = [j for j in np.flatnonzero(present) if j != i]
        pmi = np.log(p_ab[i, others] / (p[i] * p[others]))
        npmi = pmi / -np.log(p_ab[i, others])
        out[i] = (pmi.sum(), npmi.sum(), (p_ab[i, others] / p[others]).sum(), (p_ab[i, others] / p[i]).sum())
    return out


def _ranker_scores(features: list[np.ndarray], answers: list[int], n_folds: int,
                   seed: int) -> list[np.ndarray]:
    """Cross-validated logistic-regression scores of every option (higher = more likely the intruder)."""
    from sklearn.linear_model import LogisticRegression

    def design(f: np.ndarray) -> np.ndarray:
        finite = np.where(np.isfinite(f), f, np.nan)
        low = np.nanmin(finite, axis=0) if np.isfinite(finite).any() else np.zeros(f.shape[1])
        filled = np.where(np.isfinite(f), f, np.nan_to_num(low, nan=0.0) - 1.0)
        return filled - filled.mean(axis=0)

    designs = [design(f) for f in features]
    fold = np.random.default_rng(seed).permutation(len(features)) % n_folds
    scores: list[np.ndarray] = [np.zeros(len(f)) for f in features]
    for k in range(n_folds):
        train = np.flatnonzero(fold != k)
        x = np.vstack([designs[i] for i in train])
        y = np.concatenate([np.arange(len(designs[i])) == answers[i] for i in train])
        if len(set(y.tolist())) < 2:
            raise ParameterError("the ranker needs items with known intruders in every training fold",
                                 fix="use more items or a feature method (npmi)")
        model = LogisticRegression(random_state=seed).fit(x, y)
        for i in np.flatnonzero(fold == k):
            scores[i] = model.decision_function(designs[i])
    return scores


def _items(study: Study) -> list[dict]:
    items = [i for i in study.items if i.get("task") == WORD_INTRUSION and not i.get("check")]
    if not items:
        raise ParameterError(f"the study {study.name!r} has no word-intrusion items",
                             fix="build the study with the word_intrusion task")
    return items


def auto_intrusion(study: Study, reference, method: str = "npmi", window: str | int = "doc",
                   n_folds: int = 5, seed: int = 0) -> AutoIntrusion:
    """Predict the intruder of every word-intrusion item of ``study`` (module docstring).

    Parameters
    ----------
    study : Study
        The study (:func:`~tealeaves.human.study.build_study` or ``Study.load``).
    reference : ReferenceIndex or str or Corpus or iterable of list of str
        The reference the associations are counted in (an index, an index file, or
        documents indexed in memory: :func:`tealeaves.coherence.measure.as_reference`).
    method : {"pmi", "npmi", "cp1", "cp2", "ranker"}, default "npmi"
        The feature whose lowest sum marks the intruder, or the cross-validated ranker.
    window : "doc" or int, default "doc"
        Count documents, or boolean sliding windows of this many tokens.
    n_folds : int, default 5
        The ranker's folds over items (at most the number of items).
    seed : int, default 0
        The ranker's fold assignment and regression seed.

    Returns
    -------
    AutoIntrusion
        The predictions, their accuracy, the chance level and the judgments.

    Raises
    ------
    ParameterError
        If the study has no word-intrusion items, a parameter is invalid, or the ranker has
        too few items.
    EmptyInputError
        If the reference has no documents.
    """
    method = METHOD.check(method)
    window = check_window(window)
    n_folds = N_FOLDS.check(n_folds)
    seed = check_seed(seed)
    from tealeaves.coherence.measure import as_reference

    reference = as_reference(reference)
    items = _items(study)
    features = [item_features(reference, list(i["options"]), window) for i in items]
    answers = [list(i["options"]).index(i["answer"]) for i in items]
    if method == "ranker":
        if n_folds > len(items):
            raise ParameterError(f"n_folds={n_folds} is more than the {len(items)} word-intrusion items",
                                 fix="lower n_folds")
        picks = [int(np.argmax(s)) for s in _ranker_scores(features, answers, n_folds, seed)]
    else:
        column = FEATURES.index(method)
        picks = [int(np.argmin(f[:, column])) for f in features]
    rows = [{"item_id": i["id"], "topic": i.get("topic"), "predicted": i["options"][p], "answer": i["answer"],
             "correct": i["options"][p] == i["answer"], "n_options": len(i["options"]),
             "absent": int(np.isinf(f[:, 0]).sum())}
            for i, p, f in zip(items, picks, features)]
    fields = {"method": method, "window": window, "reference": getattr(reference, "name", "reference"),
              "study": study.fingerprint[:16]}
    if method == "ranker":
        fields.update(folds=n_folds, seed=seed)
    return AutoIntrusion(pd.DataFrame(rows), f"auto:{method}", Signature("auto-intrusion", fields))
