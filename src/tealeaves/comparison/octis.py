"""OCTIS's model-level measures in one call, each a value or ``None`` with the reason (for results stores).

:func:`octis_measures` gives the store columns of docs/peers.md's OCTIS section for one model:

* ``log_odds_ratio`` (:func:`~tealeaves.comparison.divergence.log_odds_ratio`): needs
  topic-word probabilities and two topics;
* ``we_irbo``, ``rbo_match`` (its mean RBO), ``we_irbo_centroid`` (``centroid=True``),
  ``we_pairwise_similarity``, ``we_centroid_similarity`` (:mod:`~tealeaves.comparison.embedding`):
  need word vectors
  (``vectors``), which a corpus does not carry;
* ``purity``, ``nmi`` of the training documents' most probable topics, and ``f1_micro``,
  ``precision_micro``, ``recall_micro`` of a linear SVM trained on the training documents'
  topic proportions and tested on the test documents' (:mod:`~tealeaves.comparison.labels`):
  need document labels (``Corpus.labels``) and topic proportions (``model.transform``).  Only
  documents with exactly one label take part (Reuters stories have zero to many categories).

Every model gets the same columns (a results store requires it): a value, or ``None`` and
the reason in ``unavailable``.

The means of the per-topic KL distances of AlSumait et al. (``kl_uniform``, ``kl_vacuous``,
``kl_background``) come with topic significance, which needs the same topic proportions
(:func:`tealeaves.sweep.measures.flag_measures`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tealeaves.errors import EmptyInputError, TealeavesError

#: The store columns :func:`octis_measures` fills.
EMBEDDING_COLUMNS = ("we_irbo", "we_irbo_centroid", "rbo_match", "we_pairwise_similarity",
                     "we_centroid_similarity")
LABEL_COLUMNS = ("purity", "nmi", "f1_micro", "precision_micro", "recall_micro")


def _try(out: dict, why: dict, columns: tuple[str, ...], compute: Callable[[], dict]) -> None:
    """Fill ``columns`` from ``compute()``, or ``None`` with the error as the reason."""
    try:
        out.update(compute())
    except TealeavesError as exc:
        out.update(dict.fromkeys(columns))
        why.update(dict.fromkeys(columns, str(exc)))


def _embedding(model: object, vectors: object, n_top: int) -> dict:
    from tealeaves.comparison import embedding as emb

    irbo = emb.we_irbo(model, vectors, n_top)
    return {"we_irbo": irbo.value, "rbo_match": irbo.details["rbo_match"],
            "we_irbo_centroid": emb.we_irbo(model, vectors, n_top, centroid=True).value,
            "we_pairwise_similarity": emb.we_similarity(model, vectors, n_top).value,
            "we_centroid_similarity": emb.we_similarity(model, vectors, n_top, centroid=True).value}


def _single_label(model: object, corpus: object) -> tuple[np.ndarray, list]:
    from tealeaves.likelihood import align_corpus

    keep = [d for d, labels in enumerate(corpus.labels)
            if isinstance(labels, (list, tuple)) and len(labels) == 1 or isinstance(labels, str) and labels]
    if not keep:
        raise EmptyInputError("no document has exactly one label")
    sub = align_corpus(corpus.subset(keep), model.vocabulary_, "labelled documents")
    labels = [corpus.labels[d] for d in keep]
    return model.transform(sub), [x[0] if isinstance(x, (list, tuple)) else x for x in labels]


def _labels(model: object, train: object, test: object, seed: int) -> dict:
    from tealeaves.comparison import labels as lab

    theta, y = _single_label(model, train)
    out = {key: score.value for key, score in lab.clustering_scores(theta, y).items()}
    test_theta, test_y = _single_label(model, test)
    scores = lab.classification_scores(theta, y, test_theta, test_y, seed=seed)
    out.update({key: score.value for key, score in scores.items()})
    return out


def octis_measures(model: object, train: object | None = None, test: object | None = None,
                   vectors: object | None = None, n_top: int = 10, seed: int = 0) -> dict:
    """The OCTIS-style store columns of one model (module docstring), with ``unavailable`` reasons.

    Parameters
    ----------
    model : object
        A fitted model.
    train : Corpus or None, default None
        The training documents (their ``labels`` give the label measures).
    test : Corpus or None, default None
        The test documents (the classifier's test set).
    vectors : WordVectors or None, default None
        Word vectors for the embedding measures.
    n_top : int, default 10
        Top words of the word-list measures.
    seed : int, default 0
        The classifier's seed.

    Returns
    -------
    dict
        Column to value (``None`` when unavailable), and ``unavailable``: column to reason.
    """
    from tealeaves.comparison.divergence import log_odds_ratio

    out: dict = {}
    why: dict = {}
    _try(out, why, ("log_odds_ratio",), lambda: {"log_odds_ratio": log_odds_ratio(model).value})
    if vectors is None:
        out.update(dict.fromkeys(EMBEDDING_COLUMNS))
        why.update(dict.fromkeys(EMBEDDING_COLUMNS, "needs word vectors (vectors: a "
                                                    "word2vec/GloVe file or WordVectors)"))
    else:
        _try(out, why, EMBEDDING_COLUMNS, lambda: _embedding(model, vectors, n_top))
    labelled = all(c is not None and getattr(c, "labels", None) is not None for c in (train, test))
    if not labelled:
        out.update(dict.fromkeys(LABEL_COLUMNS))
        why.update(dict.fromkeys(LABEL_COLUMNS, "needs document labels on the training and test corpora"))
    elif getattr(model, "topic_word_", None) is None or not hasattr(model, "transform"):
        out.update(dict.fromkeys(LABEL_COLUMNS))
        why.update(dict.fromkeys(LABEL_COLUMNS, "needs topic proportions (model.transform), which this "
                                                "model does not give"))
    else:
        _try(out, why, LABEL_COLUMNS, lambda: _labels(model, train, test, seed))
    out["unavailable"] = why
    return out
