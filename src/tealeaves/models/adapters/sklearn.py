"""scikit-learn ``LatentDirichletAllocation`` and ``NMF`` (also inside a ``Pipeline``).

LDA: ``components_`` are the variational Dirichlet parameters ``lambda``; the
topic-word distributions are its normalised rows (as in
:meth:`tealeaves.models.SklearnLDA.from_sklearn`, which this reuses);
``doc_topic_prior_`` and ``topic_word_prior_`` are scikit-learn's alpha and
eta.  ``inference="native"`` uses the estimator's ``transform`` (its
variational E-step, rows normalised).

NMF (``NMF``, ``MiniBatchNMF``) factorises ``X ~ W H`` with non-negative
``H = components_``; ``H`` ranks words in each topic but its rows are not
probability distributions, so coherence and human studies work while every
likelihood measure is refused.

The columns are the words of the fitted vectorizer
(``vectorizer.get_feature_names_out()``) or an explicit ``vocabulary=``.
"""

from __future__ import annotations

import numpy as np

from tealeaves.errors import InvalidModelError, ParameterError, UnsupportedModelError
from tealeaves.models.adapters.arrays import (
    AdaptedModel,
    as_vocabulary,
    check_weights,
    shape_tag,
    source_metadata,
)

#: Why NMF has no likelihood (quoted by every likelihood measure).
NMF_REASON = ("NMF is not a probabilistic model: its components_ are non-negative weights, not word "
              "distributions, so it has no likelihood; score it with coherence or a human study")

_LDA = ("LatentDirichletAllocation",)
_NMF = ("NMF", "MiniBatchNMF")


def _class_names(obj) -> set[str]:
    return {c.__name__ for c in type(obj).__mro__}


def _vocabulary(vectorizer, vocabulary, n_columns: int, what: str):
    if vectorizer is not None and vocabulary is not None:
        raise ParameterError("both vectorizer= and vocabulary= were given", fix="pass only one of them")
    if vectorizer is not None:
        if not hasattr(vectorizer, "get_feature_names_out"):
            raise ParameterError(f"vectorizer= must be a fitted scikit-learn vectorizer (CountVectorizer, "
                                 f"TfidfVectorizer), got {type(vectorizer).__name__}")
        from sklearn.exceptions import NotFittedError

        try:
            vocabulary = [str(w) for w in vectorizer.get_feature_names_out()]
        except (NotFittedError, AttributeError, ValueError) as exc:
            raise InvalidModelError(f"the {type(vectorizer).__name__} is not fitted ({exc})",
                                    fix="pass the vectorizer that made the training matrix") from None
    return as_vocabulary(vocabulary, n_columns, what)


def _unpack(estimator, vectorizer):
    """``(estimator, vectorizer)`` from a bare estimator or a ``Pipeline(vectorizer, ..., estimator)``."""
    if "Pipeline" in _class_names(estimator):
        if vectorizer is None:
            vectorizer = estimator[:-1]
        estimator = estimator[-1]
    return estimator, vectorizer


def _components(estimator, name: str) -> np.ndarray:
    if not hasattr(estimator, "components_"):
        raise InvalidModelError(f"the scikit-learn {name} is not fitted", fix="call its fit() first")
    return np.asarray(estimator.components_, dtype=np.float64)


def from_sklearn(estimator, *, vectorizer=None, vocabulary=None, inference: str = "tealeaves"
                 ) -> AdaptedModel:
    """Adapt a fitted scikit-learn topic model (see the module docstring).

    Parameters
    ----------
    estimator : object
        A fitted ``LatentDirichletAllocation``, ``NMF`` or ``MiniBatchNMF``, or a
        ``Pipeline`` ending in one (its earlier steps are the vectorizer unless
        ``vectorizer`` is given).
    vectorizer : object, optional
        The fitted vectorizer (``CountVectorizer``, ``TfidfVectorizer``) whose
        ``get_feature_names_out()`` are the columns. Give this or ``vocabulary``,
        not both.
    vocabulary : sequence of str, optional
        The words of the columns, in order.
    inference : {"tealeaves", "native"}, default "tealeaves"
        How topic proportions of new documents are inferred (see
        :mod:`tealeaves.models.adapters.arrays`).
        ``"native"`` uses the LDA estimator's ``transform`` (rows normalised).

    Returns
    -------
    AdaptedModel
        LDA: the normalised ``components_`` with scikit-learn's alpha and eta.
        NMF: ``components_`` as ranking weights (likelihood refused, with
        :data:`NMF_REASON`).

    Raises
    ------
    UnsupportedModelError
        If the estimator is not one of the topic models above.
    InvalidModelError
        If the estimator or the vectorizer is not fitted, or the vocabulary does
        not fit the components.
    ParameterError
        If both ``vectorizer`` and ``vocabulary`` are given, ``vectorizer`` is not
        a scikit-learn vectorizer, or neither gives a vocabulary.
    """
    import sklearn

    estimator, vectorizer = _unpack(estimator, vectorizer)
    names = _class_names(estimator)
    name = type(estimator).__name__
    if not names & {*_LDA, *_NMF}:
        raise UnsupportedModelError(f"scikit-learn {name} is not a topic model tealeaves can read",
                                    fix="pass a fitted LatentDirichletAllocation, NMF or MiniBatchNMF")
    comps = _components(estimator, name)
    vocab = _vocabulary(vectorizer, vocabulary, comps.shape[1], f"the scikit-learn {name}")
    meta = source_metadata("scikit-learn", sklearn.__version__, type(estimator),
                           f"sklearn-{sklearn.__version__}:{name}/{shape_tag(*comps.shape)}")
    if names & set(_NMF):
        return AdaptedModel(None, vocab, topic_word_weights=check_weights(comps, f"the {name}'s components_"),
                            metadata=meta, inference=inference, not_probabilistic=NMF_REASON)
    from tealeaves.models.sklearn_lda import SklearnLDA

    wrapped = SklearnLDA.from_sklearn(estimator, vocab)
    return AdaptedModel(wrapped.topic_word_, vocab, wrapped.doc_topic_prior_, metadata=meta,
                        topic_word_prior=estimator.topic_word_prior_, inference=inference,
                        native_transform=wrapped.transform)
