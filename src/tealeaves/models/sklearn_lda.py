"""LDA fitted by scikit-learn's ``LatentDirichletAllocation``, behind the tealeaves protocol.

scikit-learn fits LDA by variational Bayes (Hoffman, Blei and Bach 2010);
its ``components_`` are the variational Dirichlet parameters ``lambda`` of the
topics, so the topic-word distributions are their normalised rows
``phi_k = lambda_k / sum_w lambda_kw``.  :meth:`SklearnLDA.from_sklearn` wraps
any already fitted estimator so it can be evaluated with tealeaves.

A model fitted here keeps ``lambda`` as ``topic_word_ * totals`` (each row's
total recorded in ``metadata_["inference"]``; within one rounding of
scikit-learn's own ``components_``), so the saved ``topic_word_`` and totals
rebuild the same E-step bit for bit after :func:`~tealeaves.models.load_npz_model`
(:func:`estimator_from_record`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import InvalidModelError
from tealeaves.models._fit import check_fit_input, fit_metadata, transform_counts
from tealeaves.models.base import TopicModel, check_alpha, check_topic_word
from tealeaves.models.inference_registry import (
    InferenceMethod,
    is_number,
    need_number,
    record_error,
    register_inference,
)

if TYPE_CHECKING:
    from sklearn.decomposition import LatentDirichletAllocation


class SklearnLDA(TopicModel):
    """scikit-learn's LDA with ``n_components`` topics; other keywords go to the estimator.

    Fitted attributes: ``estimator_`` (the fitted ``LatentDirichletAllocation``),
    ``topic_word_`` (normalised ``components_``), ``doc_topic_prior_``
    (scikit-learn's alpha, default ``1/K``, as a vector), ``vocabulary_``.

    Parameters
    ----------
    n_components : int, default 10
        The number of topics K.
    **params
        Further keyword arguments of scikit-learn's ``LatentDirichletAllocation``
        (e.g. ``learning_method``, ``max_iter``, ``random_state``).
    """

    def __init__(self, n_components: int = 10, **params):
        self.n_components = n_components
        self.params = params

    @shared_doc
    def fit(self, corpus: Corpus) -> SklearnLDA:
        """Fit scikit-learn's LDA to the document-term counts of ``corpus``.

        The estimator's ``components_`` are then rebuilt from ``topic_word_`` and the recorded row
        totals (the module docstring), so this model and a saved and loaded copy infer alike.

        Parameters: %(fit_corpus)s

        Returns
        -------
        SklearnLDA
            ``self``, fitted; ``metadata_["inference"]`` records what the E-step
            needs to infer identically after saving and loading.

        Raises: %(raises_bad_k)s
        """
        check_fit_input(corpus, self.n_components, "SklearnLDA")
        from sklearn.decomposition import LatentDirichletAllocation  # slow import: load on use

        estimator = LatentDirichletAllocation(n_components=self.n_components, **self.params)
        estimator.fit(corpus.counts)
        self._adopt(estimator, corpus.vocabulary)
        record = _e_step_record(estimator)
        estimator.components_, estimator.exp_dirichlet_component_ = _components(self.topic_word_, record)
        from sklearn import __version__ as sklearn_version

        self.metadata_ = fit_metadata(corpus, {"library": "scikit-learn", "version": sklearn_version,
                                               "class": "LatentDirichletAllocation"}, record)
        return self

    @classmethod
    def from_sklearn(cls, estimator: LatentDirichletAllocation, vocabulary: Vocabulary | list[str]
                     ) -> SklearnLDA:
        """Wrap an already fitted ``LatentDirichletAllocation`` whose columns are ``vocabulary``.

        Parameters
        ----------
        estimator : sklearn.decomposition.LatentDirichletAllocation
            A fitted estimator.
        vocabulary : Vocabulary or list of str
            The words of its columns, in order.

        Returns
        -------
        SklearnLDA
            The wrapped model: ``topic_word_`` is ``components_`` normalised by
            row, ``doc_topic_prior_`` the estimator's alpha.

        Raises
        ------
        InvalidModelError
            If the estimator is not fitted, its column count differs from the
            vocabulary's size, or a normalised row is not a distribution.
        """
        if not hasattr(estimator, "components_"):
            raise InvalidModelError("the scikit-learn estimator is not fitted; call its fit() first")
        params = {k: v for k, v in estimator.get_params().items() if k != "n_components"}
        model = cls(estimator.n_components, **params)
        vocab = vocabulary if isinstance(vocabulary, Vocabulary) else Vocabulary(vocabulary)
        return model._adopt(estimator, vocab)

    def _adopt(self, estimator: LatentDirichletAllocation, vocabulary: Vocabulary) -> SklearnLDA:
        lam = np.asarray(estimator.components_, dtype=np.float64)
        if lam.shape[1] != len(vocabulary):
            raise InvalidModelError(
                f"the estimator has {lam.shape[1]} vocabulary columns but {len(vocabulary)} words "
                "were given; pass the vocabulary the estimator was fitted with"
            )
        sums = lam.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            self.topic_word_ = check_topic_word(lam / sums)
        self.estimator_ = estimator
        self.vocabulary_ = vocabulary
        self.doc_topic_prior_ = check_alpha(estimator.doc_topic_prior_, lam.shape[0])
        return self

    @shared_doc
    def transform(self, corpus: Corpus) -> np.ndarray:
        """Topic proportions by scikit-learn's own variational E-step, rows normalised.

        A row scikit-learn gives as all zeros becomes uniform (``1/K``).

        Parameters: %(infer_corpus)s

        Returns: %(returns_doc_topic)s

        Raises: %(raises_other_vocabulary)s
        """
        return _normalised(self.estimator_.transform(transform_counts(self, corpus)))

    @shared_doc
    def perplexity(self, corpus: Corpus) -> float:
        """scikit-learn's reported perplexity: ``exp(-bound / N)`` from its variational bound.

        The bound includes the corpus-wide topic-word Dirichlet term, so this is
        not the predictive perplexity (see ``docs/likelihood.md``).

        Parameters: %(infer_corpus)s

        Returns
        -------
        float
            ``estimator_.perplexity`` of the corpus's counts.
        """
        return float(self.estimator_.perplexity(transform_counts(self, corpus)))

    def description(self) -> str:
        """A short description of the settings, for signatures.

        Returns
        -------
        str
            ``sklearn-lda/K<n_components>/<learning_method>/it<max_iter>/rs<random_state>``
            (scikit-learn's defaults ``batch`` and ``10`` when unset).
        """
        est = getattr(self, "estimator_", None)
        p = est.get_params() if est is not None else self.params
        return (f"sklearn-lda/K{self.n_components}/{p.get('learning_method', 'batch')}"
                f"/it{p.get('max_iter', 10)}/rs{p.get('random_state')}")


def _e_step_record(estimator: LatentDirichletAllocation) -> dict:
    """What scikit-learn's E-step (``transform``) needs besides ``topic_word_``, JSON-ready."""
    lam = np.asarray(estimator.components_, dtype=np.float64)
    return {"method": "sklearn-e-step", "topic_word_totals": [float(t) for t in lam.sum(axis=1)],
            "doc_topic_prior": float(estimator.doc_topic_prior_),
            "max_doc_update_iter": int(estimator.max_doc_update_iter),
            "mean_change_tol": float(estimator.mean_change_tol)}


def _components(topic_word: np.ndarray, record: dict) -> tuple[np.ndarray, np.ndarray]:
    """``lambda = topic_word_ * totals`` and ``exp(E[log beta])`` as scikit-learn computes it."""
    from sklearn.decomposition._online_lda_fast import _dirichlet_expectation_2d

    lam = topic_word * np.asarray(record["topic_word_totals"], dtype=np.float64)[:, None]
    return lam, np.exp(_dirichlet_expectation_2d(lam))


def estimator_from_record(topic_word: np.ndarray, record: dict) -> LatentDirichletAllocation:
    """A fitted ``LatentDirichletAllocation`` whose ``transform`` is that of the recorded model.

    ``record`` is ``metadata_["inference"]`` of a model fitted by :meth:`SklearnLDA.fit`
    (saved with it); only what the E-step reads is set.

    Parameters
    ----------
    topic_word : numpy.ndarray
        The saved ``K x V`` ``topic_word_``.
    record : dict
        The saved ``metadata_["inference"]``: ``topic_word_totals``,
        ``doc_topic_prior``, ``max_doc_update_iter`` and ``mean_change_tol``.

    Returns
    -------
    sklearn.decomposition.LatentDirichletAllocation
        An estimator with ``components_ = topic_word * totals`` (``lambda``) and
        its ``exp(E[log beta])`` set, ready for ``transform``.
    """
    from sklearn.decomposition import LatentDirichletAllocation

    k, v = topic_word.shape
    estimator = LatentDirichletAllocation(n_components=k, max_doc_update_iter=record["max_doc_update_iter"],
                                          mean_change_tol=record["mean_change_tol"])
    estimator.components_, estimator.exp_dirichlet_component_ = _components(topic_word, record)
    estimator.doc_topic_prior_ = record["doc_topic_prior"]
    estimator.n_features_in_ = v
    return estimator


def _normalised(theta: np.ndarray) -> np.ndarray:
    """Rows of scikit-learn's E-step output normalised to proportions (uniform for an empty row)."""
    sums = theta.sum(axis=1, keepdims=True)
    return np.divide(theta, sums, out=np.full_like(theta, 1.0 / theta.shape[1]), where=sums > 0)


def _check_record(record: dict, n_topics: int) -> None:
    """Refuse a malformed ``sklearn-e-step`` record (it comes from a model file)."""
    totals = record.get("topic_word_totals")
    if (not isinstance(totals, list) or len(totals) != n_topics
            or not all(is_number(t) for t in totals)):
        raise record_error(f"has topic_word_totals {str(totals)[:60]}; expected {n_topics} positive finite "
                           "numbers")
    need_number(record, "doc_topic_prior")
    need_number(record, "max_doc_update_iter", integer=True)
    need_number(record, "mean_change_tol", zero=True)


def _infer_recorded(topic_word: np.ndarray, record: dict, counts) -> np.ndarray:
    """A loaded model's proportions by the recorded E-step, normalised as :meth:`SklearnLDA.transform`."""
    return _normalised(estimator_from_record(topic_word, record).transform(counts.astype(np.float64)))


register_inference(InferenceMethod("sklearn-e-step", "SklearnLDA", _check_record, _infer_recorded))
