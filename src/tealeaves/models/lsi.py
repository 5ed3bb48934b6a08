"""Latent semantic indexing: a truncated SVD of the document-term matrix (Deerwester et al. 1990).

LSI has no probabilities (``topic_word_`` is ``None``); its dimensions are the
right singular vectors, signed loadings over the vocabulary.  Words are ranked
by their largest *positive* loading.  Singular vectors are defined only up to
sign, so each dimension is flipped to make its largest-magnitude loading
positive (the convention of scikit-learn's ``svd_flip``), which makes the
result independent of the solver's arbitrary choice.
"""

from __future__ import annotations

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves.corpus import Corpus
from tealeaves.models._fit import check_fit_input, fit_metadata, tealeaves_source, transform_counts
from tealeaves.models.base import TopicModel
from tealeaves.models.params import WEIGHTING


class LSI(TopicModel):
    """Truncated SVD of raw counts (``weighting="count"``) or TF-IDF (``"tfidf"``).

    Fitted attributes: ``vocabulary_``, ``topic_word_weights_`` (K x V signed
    loadings), ``singular_values_``, ``topic_word_ = None``,
    ``doc_topic_prior_ = None``.  ``transform`` projects documents onto the
    dimensions (the same weighting is applied first).

    Parameters
    ----------
    n_components : int, default 20
        The number of dimensions (topics) K.
    random_state : int or None, default 0
        Seed of scikit-learn's randomized SVD (unused when the exact SVD is taken,
        i.e. when ``n_components >= min(D, V)``).
    weighting : {"count", "tfidf"}, default "count"
        Decompose the raw counts or their TF-IDF (scikit-learn's ``TfidfTransformer``).
    n_iter : int, default 10
        Power iterations of the randomized SVD.
    """

    topic_word_ = None

    def __init__(self, n_components: int = 20, random_state: int | None = 0, weighting: str = "count",
                 n_iter: int = 10):
        self.n_components = n_components
        self.random_state = random_state
        self.weighting = weighting
        self.n_iter = n_iter

    @shared_doc
    def fit(self, corpus: Corpus) -> LSI:
        """Compute the leading ``n_components`` singular vectors of the (weighted) counts.

        Parameters: %(fit_corpus)s

        Returns
        -------
        LSI
            ``self``, fitted.

        Raises
        ------
        ValueError
            If ``weighting`` is not ``"count"`` or ``"tfidf"``.
        %(raises_bad_k)s
        """
        check_fit_input(corpus, self.n_components, "LSI")
        WEIGHTING.check(self.weighting)
        x = corpus.counts.astype(np.float64)
        if self.weighting == "tfidf":
            from sklearn.feature_extraction.text import TfidfTransformer  # slow import: load on use

            self.tfidf_ = TfidfTransformer().fit(x)
            x = self.tfidf_.transform(x)
        k = self.n_components
        if k >= min(x.shape):  # randomized SVD needs k < min(D, V)
            u, s, vt = np.linalg.svd(x.toarray(), full_matrices=False)
            vt, s = vt[:k], s[:k]
        else:
            from sklearn.decomposition import TruncatedSVD

            svd = TruncatedSVD(k, algorithm="randomized", n_iter=self.n_iter, random_state=self.random_state)
            svd.fit(x)
            vt, s = svd.components_, svd.singular_values_
        signs = np.sign(vt[np.arange(len(vt)), np.argmax(np.abs(vt), axis=1)])
        signs[signs == 0] = 1.0
        self._loadings = vt * signs[:, None]
        self.singular_values_ = s
        self.vocabulary_ = corpus.vocabulary
        self.metadata_ = fit_metadata(corpus, tealeaves_source(type(self)))
        return self

    @property
    def topic_word_weights_(self) -> np.ndarray:
        return self._loadings

    @shared_doc
    def transform(self, corpus: Corpus) -> np.ndarray:
        """Project documents onto the LSI dimensions (``X V^T``, D x K; not proportions).

        Parameters: %(infer_corpus)s

        Returns
        -------
        numpy.ndarray
            ``D x K`` projections of the (weighted) counts onto the sign-fixed
            singular vectors.

        Raises: %(raises_other_vocabulary)s
        """
        x = transform_counts(self, corpus)
        if self.weighting == "tfidf":
            x = self.tfidf_.transform(x)
        return np.asarray(x @ self._loadings.T)

    def description(self) -> str:
        """A short description of the settings, for signatures.

        Returns
        -------
        str
            ``lsi/K<n_components>/<weighting>/rs<random_state>``.
        """
        return f"lsi/K{self.n_components}/{self.weighting}/rs{self.random_state}"
