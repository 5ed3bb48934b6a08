"""The five-term example: perplexity of four models on the words they were fitted to.

Six documents over five terms (the classic latent semantic indexing example,
ten word occurrences).  Each model gives ``p(w | d) = sum_k theta_dk phi_kw``
and is scored on the same ten tokens with
:func:`tealeaves.likelihood.score_words`:

* uniform: one topic, ``phi_w = 1/5``;
* unigram: one topic, ``phi_w`` = overall relative frequency;
* pLSA with two topics, best of several EM restarts;
* each document its own distribution: ``D`` topics, topic ``d`` = document
  ``d``'s relative frequencies, ``theta = I``.
"""

from __future__ import annotations

import numpy as np

from tealeaves.corpus import Corpus
from tealeaves.likelihood import score_words
from tealeaves.models import PLSA
from tealeaves.reproduce.params import N_RESTARTS
from tealeaves.signature import Signature

TERMS = ("ship", "boat", "ocean", "voyage", "trip")

#: Term counts per document (rows: terms in ``TERMS`` order; columns: d1 ... d6).
COUNTS = np.array([
    [1, 0, 1, 0, 0, 0],
    [0, 1, 0, 0, 0, 0],
    [1, 1, 0, 0, 0, 0],
    [1, 0, 0, 1, 1, 0],
    [0, 0, 0, 1, 0, 1],
])


def five_term_corpus() -> Corpus:
    """The six documents as a :class:`Corpus` (word order within a document is irrelevant here).

    Returns
    -------
    Corpus
        Documents ``d1`` ... ``d6`` over :data:`TERMS`, with the counts of :data:`COUNTS`.
    """
    return Corpus.from_counts(COUNTS.T, list(TERMS), ids=[f"d{i}" for i in range(1, 7)])


def _row(name: str, theta: np.ndarray, phi: np.ndarray, corpus: Corpus) -> dict:
    sig = Signature("perplexity", {"eval": "training-words", "model": name})
    result = score_words(theta, phi, corpus, sig)
    return {"model": name, "log_likelihood": result.log_likelihood, "perplexity": result.perplexity,
            "n_words": result.n_words, "signature": str(sig)}


def five_term_table(n_restarts: int = 10, random_state: int = 0) -> list[dict]:
    """The four rows (model, log-likelihood, perplexity) of the five-term example.

    Every model is scored on the ten training tokens with ``p(w | d) = sum_k
    theta_dk phi_kw`` (:func:`tealeaves.likelihood.score_words`); see the module
    docstring for the four models.

    Parameters
    ----------
    n_restarts : int, default 10
        EM restarts of the two-topic pLSA, 1 to 10000 (the best is kept).
    random_state : int, default 0
        Seed of the pLSA fit.

    Returns
    -------
    list of dict
        One row per model (uniform, unigram, pLSA, own distribution), each with
        ``model``, ``log_likelihood``, ``perplexity``, ``n_words`` and ``signature``.
    """
    n_restarts = N_RESTARTS.check(n_restarts)
    corpus = five_term_corpus()
    d, v = len(corpus), len(corpus.vocabulary)
    one = np.ones((d, 1))
    counts = corpus.counts.toarray().astype(np.float64)
    plsa = PLSA(2, n_restarts=n_restarts, random_state=random_state).fit(corpus)
    return [
        _row("uniform", one, np.full((1, v), 1.0 / v), corpus),
        _row("unigram", one, (counts.sum(axis=0) / counts.sum())[None, :], corpus),
        _row(f"plsa/K2/best-of-{n_restarts}", plsa.doc_topic_, plsa.topic_word_, corpus),
        _row("own-distribution", np.eye(d), counts / counts.sum(axis=1, keepdims=True), corpus),
    ]
