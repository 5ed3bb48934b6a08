"""Probabilistic latent semantic analysis fitted by EM (Hofmann 1999).

The model is ``p(w | d) = sum_k theta_dk phi_kw``.  EM alternates the
posterior ``q(k | d, w) ∝ theta_dk phi_kw`` with the updates
``phi_kw ∝ sum_d n_dw q(k | d, w)`` and ``theta_dk ∝ sum_w n_dw q(k | d, w)``,
which in matrix form are the multiplicative updates
``phi <- phi * (theta^T R)``, ``theta <- theta * (R phi^T)`` with
``R_dw = n_dw / (theta phi)_dw`` on the non-zero counts.  EM finds a local
maximum only, so the fit keeps the best of several random restarts.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from tealeaves._docs import shared_doc
from tealeaves.corpus import Corpus
from tealeaves.models._fit import check_fit_input, check_transform_input, fit_metadata, tealeaves_source
from tealeaves.models.base import TopicModel
from tealeaves.models.inference_registry import InferenceMethod, need_number, register_inference
from tealeaves.models.params import N_RESTARTS


def _pointwise(theta: np.ndarray, phi: np.ndarray, counts: sp.csr_matrix) -> np.ndarray:
    """``(theta @ phi)[d, w]`` at the non-zero entries of ``counts`` (CSR order)."""
    rows = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
    return np.einsum("ik,ki->i", theta[rows], phi[:, counts.indices])


def _ratio(theta: np.ndarray, phi: np.ndarray, counts: sp.csr_matrix) -> tuple[sp.csr_matrix, float]:
    """``R = n / (theta phi)`` on the non-zeros, and the log-likelihood ``sum n log(theta phi)``."""
    p = np.maximum(_pointwise(theta, phi, counts), 1e-300)
    n = counts.data.astype(np.float64)
    ratio = sp.csr_matrix((n / p, counts.indices, counts.indptr), shape=counts.shape)
    return ratio, float(n @ np.log(p))


def _normalise_rows(m: np.ndarray) -> np.ndarray:
    s = m.sum(axis=1, keepdims=True)
    k = m.shape[1]
    return np.divide(m, s, out=np.full_like(m, 1.0 / k), where=s > 0)


@shared_doc
def fold_in(phi: np.ndarray, counts: sp.csr_matrix, max_iter: int = 200, tol: float = 1e-6) -> np.ndarray:
    """EM for the documents' ``theta`` with the topics ``phi`` held fixed (pLSA fold-in, Hofmann 1999).

    Iterates ``theta <- theta * (R phi^T)``, rows normalised, with ``R_dw = n_dw / (theta phi)_dw``
    (the module docstring), from uniform proportions.

    Parameters
    ----------
    phi : numpy.ndarray
        The ``K x V`` topic-word probabilities.
    counts : scipy.sparse.csr_matrix
        The ``D x V`` document-word counts.
    max_iter : int, default 200
        EM iterations at most.
    tol : float, default 1e-6
        Stop when the log-likelihood changes by at most ``tol`` times its absolute value.

    Returns: %(returns_doc_topic)s
    """
    theta = np.full((counts.shape[0], phi.shape[0]), 1.0 / phi.shape[0])
    previous = -np.inf
    for _ in range(max_iter):
        ratio, ll = _ratio(theta, phi, counts)
        theta = _normalise_rows(theta * (ratio @ phi.T))
        if abs(ll - previous) <= tol * abs(ll):
            break
        previous = ll
    return theta


def _check_record(record: dict, n_topics: int) -> None:
    """Refuse a malformed ``plsa-fold-in`` record (it comes from a model file)."""
    need_number(record, "max_iter", integer=True)
    need_number(record, "tol", zero=True)


def _infer_recorded(topic_word: np.ndarray, record: dict, counts: sp.csr_matrix) -> np.ndarray:
    """:func:`fold_in` with the recorded ``max_iter`` and ``tol`` (a loaded PLSA model's ``transform``)."""
    return fold_in(topic_word, counts, record["max_iter"], record["tol"])


register_inference(InferenceMethod("plsa-fold-in", "PLSA", _check_record, _infer_recorded))


class PLSA(TopicModel):
    """pLSA by EM (Hofmann 1999), best of ``n_restarts`` random starts by training log-likelihood.

    Parameters
    ----------
    n_components : int, default 10
        Number of topics K.
    n_restarts : int, default 10
        Random initialisations tried (>= 1); the highest log-likelihood wins.
    max_iter : int, default 1000
        EM iterations per restart.
    tol : float, default 1e-10
        Stop when the relative improvement of the log-likelihood is below ``tol``.
    random_state : int or None, default 0
        Seed of the restarts.

    Attributes
    ----------
    topic_word_ : numpy.ndarray
        ``K x V`` topic-word probabilities.
    doc_topic_ : numpy.ndarray
        ``D x K`` proportions of the training documents.
    log_likelihood_ : float
        ``sum_dw n_dw log p(w | d)`` of the best restart.
    restart_log_likelihoods_ : list of float
        The log-likelihood of every restart.
    vocabulary_ : Vocabulary
        The training corpus's vocabulary.
    """

    def __init__(self, n_components: int = 10, n_restarts: int = 10, max_iter: int = 1000,
                 tol: float = 1e-10, random_state: int | None = 0):
        self.n_components = n_components
        self.n_restarts = n_restarts
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, corpus: Corpus) -> PLSA:
        """Fit the topics and training-document proportions to ``corpus``.

        Parameters
        ----------
        corpus : Corpus
            The training documents.

        Returns
        -------
        PLSA
            ``self``, fitted.
        """
        check_fit_input(corpus, self.n_components, "PLSA")
        counts = corpus.counts.astype(np.float64)
        rng = np.random.default_rng(self.random_state)
        best = None
        self.restart_log_likelihoods_ = []
        for _ in range(N_RESTARTS.check(self.n_restarts)):
            theta, phi, ll = self._em(counts, rng)
            self.restart_log_likelihoods_.append(ll)
            if best is None or ll > best[2]:
                best = (theta, phi, ll)
        self.doc_topic_, self.topic_word_, self.log_likelihood_ = best
        self.vocabulary_ = corpus.vocabulary
        self.metadata_ = fit_metadata(corpus, tealeaves_source(type(self)),
                                      {"method": "plsa-fold-in", "max_iter": int(self.max_iter),
                                       "tol": float(self.tol)})
        return self

    def _em(self, counts: sp.csr_matrix, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, float]:
        k = self.n_components
        theta = rng.dirichlet(np.ones(k), size=counts.shape[0])
        phi = rng.dirichlet(np.ones(counts.shape[1]), size=k)
        previous = -np.inf
        for _ in range(self.max_iter):
            ratio, ll = _ratio(theta, phi, counts)
            phi_new = _normalise_rows(phi * (ratio.T @ theta).T)
            theta = _normalise_rows(theta * (ratio @ phi.T))
            phi = phi_new
            if ll - previous <= self.tol * abs(ll):
                break
            previous = ll
        _, ll = _ratio(theta, phi, counts)
        return theta, phi, ll

    @shared_doc
    def transform(self, corpus: Corpus) -> np.ndarray:
        """Topic proportions of new documents by EM with the topics fixed (fold-in).

        Parameters: %(transform_corpus)s

        Returns
        -------
        numpy.ndarray
            The ``D x K`` topic proportions (:func:`fold_in` with the model's ``max_iter`` and ``tol``).
        """
        check_transform_input(self, corpus)
        return fold_in(self.topic_word_, corpus.counts, self.max_iter, self.tol)

    def description(self) -> str:
        """Short, signature-safe name of the fit.

        Returns
        -------
        str
            ``plsa/K<n_components>/restarts<n_restarts>/rs<random_state>``.
        """
        return f"plsa/K{self.n_components}/restarts{self.n_restarts}/rs{self.random_state}"
