"""Baselines scored on exactly the held-out words of a document-completion split.

* uniform: every word has probability ``1/V``, so the perplexity is ``V``;
* unigram: ``p(w) = (c_w + s) / (N + s V)`` from the training counts ``c_w``
  (``N`` training tokens, add-``s`` smoothing, ``s = 1`` by default).

Both are one-topic mixtures, so they are scored by the same code as the topic
models (:func:`tealeaves.likelihood.completion.score_heldout`).
"""

from __future__ import annotations

import numpy as np

from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import EmptyInputError
from tealeaves.likelihood.completion import (
    CompletionResult,
    completion_signature,
    score_heldout,
    split_documents,
)
from tealeaves.likelihood.perplexity import align_corpus


def unigram_distribution(train: Corpus, smoothing: float = 1.0) -> np.ndarray:
    """``(c_w + smoothing) / (N + smoothing * V)`` over the training corpus's vocabulary."""
    if smoothing < 0:
        raise ValueError(f"smoothing must be non-negative, got {smoothing}")
    counts = train.term_frequencies().astype(np.float64) + smoothing
    if counts.sum() <= 0:
        raise EmptyInputError("the training corpus has no tokens to estimate a unigram distribution from")
    return counts / counts.sum()


def _one_topic(phi_row: np.ndarray, heldout: Corpus, report, name: str, seed: int, min_length: int
               ) -> CompletionResult:
    theta = np.ones((len(heldout), 1))
    signature = completion_signature(name, seed, min_length, "none")
    return score_heldout(theta, phi_row[None, :], heldout, report, signature)


def baselines(train: Corpus, test: Corpus, seed: int = 0, min_length: int = 2, smoothing: float = 1.0,
              vocabulary: Vocabulary | None = None) -> dict[str, CompletionResult]:
    """Uniform and add-``smoothing`` unigram perplexity on the held-out halves of ``test``.

    The split is the one :func:`~tealeaves.likelihood.completion.document_completion`
    makes with the same ``seed`` and ``min_length``; ``vocabulary`` defaults to the
    training corpus's.
    """
    vocabulary = vocabulary or train.vocabulary
    train = align_corpus(train, vocabulary)
    test = align_corpus(test, vocabulary)
    test.require_nonempty("test corpus")
    _, heldout, report = split_documents(test, seed, min_length)
    v = len(vocabulary)
    return {
        "uniform": _one_topic(np.full(v, 1.0 / v), heldout, report, f"uniform/V{v}", seed, min_length),
        "unigram": _one_topic(unigram_distribution(train, smoothing), heldout, report,
                              f"unigram/add{smoothing:g}/V{v}", seed, min_length),
    }
