"""Baselines scored on exactly the held-out words of a document-completion split.

* uniform: every word has probability ``1/V``, so the perplexity is ``V``;
* unigram: ``p(w) = (c_w + s) / (N + s V)`` from the training counts ``c_w``
  (``N`` training tokens, add-``s`` smoothing, ``s = 1`` by default).

The same words, always: ``V`` is the size of the *model's* vocabulary (pass
``model=``), the test documents are aligned to it before they are split (so the
held-out halves are those :func:`~tealeaves.likelihood.document_completion`
scores, token for token), and the training corpus is aligned to it too, so
``c_w`` and ``N`` count only training tokens of words the model knows.

Both are one-topic mixtures, so they are scored by the same code as the topic
models (:func:`tealeaves.likelihood.completion.score_heldout`).
"""

from __future__ import annotations

import numpy as np

from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import EmptyInputError, ParameterError
from tealeaves.likelihood._perplexity import align_corpus, check_corpus, require_tokens
from tealeaves.likelihood.completion import (
    CompletionResult,
    check_split,
    completion_signature,
    score_heldout,
    split_documents,
)
from tealeaves.validation import check_float


def unigram_distribution(train: Corpus, smoothing: float = 1.0) -> np.ndarray:
    """Add-``smoothing`` unigram distribution ``(c_w + smoothing) / (N + smoothing * V)`` of ``train``.

    Parameters
    ----------
    train : Corpus
        The training documents; ``c_w`` are its word counts and ``N`` its token count.
    smoothing : float, default 1.0
        The pseudo-count ``s`` added to every word's count (>= 0).

    Returns
    -------
    numpy.ndarray
        ``V`` probabilities over ``train``'s vocabulary, summing to one.

    Raises
    ------
    ParameterError
        If ``smoothing`` is negative or ``train`` is not a ``Corpus``.
    EmptyInputError
        If there is nothing to estimate from (no tokens and no smoothing).
    """
    smoothing = check_float(smoothing, "smoothing", min_value=0.0)
    counts = check_corpus(train, "training documents").term_frequencies().astype(np.float64) + smoothing
    if counts.sum() <= 0:
        raise EmptyInputError("the training corpus has no tokens to estimate a unigram distribution from")
    return counts / counts.sum()


def _one_topic(phi_row: np.ndarray, heldout: Corpus, report, name: str, seed: int, min_length: int
               ) -> CompletionResult:
    theta = np.ones((len(heldout), 1))
    signature = completion_signature(name, seed, min_length, "none")
    return score_heldout(theta, phi_row[None, :], heldout, report, signature)


def baseline_vocabulary(train: Corpus, vocabulary: Vocabulary | None = None, model: object | None = None
                        ) -> Vocabulary:
    """The vocabulary of both baselines: the model's, else ``vocabulary``, else the training corpus's.

    Parameters
    ----------
    train : Corpus
        The training documents.
    vocabulary : Vocabulary or None, default None
        A vocabulary to use when no ``model`` is given.
    model : object or None, default None
        A fitted tealeaves model whose ``vocabulary_`` is used.

    Returns
    -------
    Vocabulary
        The vocabulary the baselines are defined over.

    Raises
    ------
    ParameterError
        If ``model`` has no ``vocabulary_``, or ``vocabulary`` differs from it.
    """
    if model is not None:
        model_vocabulary = getattr(model, "vocabulary_", None)
        if not isinstance(model_vocabulary, Vocabulary):
            raise ParameterError(f"model must be a fitted tealeaves model (with vocabulary_), "
                                 f"got {type(model).__name__}")
        if vocabulary is not None and vocabulary != model_vocabulary:
            raise ParameterError("vocabulary differs from the model's vocabulary",
                                 fix="give one of them; the baselines use the model's")
        return model_vocabulary
    return vocabulary if vocabulary is not None else check_corpus(train, "training documents").vocabulary


def baselines(train: Corpus, test: Corpus, seed: int = 0, min_length: int = 2, smoothing: float = 1.0,
              vocabulary: Vocabulary | None = None, model: object | None = None
              ) -> dict[str, CompletionResult]:
    """Uniform and add-``smoothing`` unigram perplexity on the held-out halves of ``test``.

    The split is the one :func:`~tealeaves.likelihood.completion.document_completion`
    makes with the same ``seed`` and ``min_length``.  Pass the ``model`` the baselines
    are shown beside: both are then defined over its vocabulary and scored on
    exactly its held-out words (see the module docstring).  Without it,
    ``vocabulary`` (default: the training corpus's) plays that role.

    Parameters
    ----------
    train : Corpus
        The training documents the unigram counts come from.
    test : Corpus
        The test documents, split into observed and held-out halves.
    seed : int, default 0
        Seed of the document-completion split.
    min_length : int, default 2
        Documents shorter than this are skipped by the split.
    smoothing : float, default 1.0
        Add-``s`` smoothing of the unigram counts.
    vocabulary : Vocabulary or None, default None
        The vocabulary when no ``model`` is given (None: the training corpus's).
    model : object or None, default None
        The fitted model the baselines are compared with.

    Returns
    -------
    dict of str to CompletionResult
        ``"uniform"`` (perplexity ``V``) and ``"unigram"``.

    Raises
    ------
    ParameterError
        If the split parameters, ``smoothing`` or ``model`` are invalid.
    EmptyInputError
        If the test documents share no word with the vocabulary.
    """
    seed, min_length = check_split(seed, min_length)
    vocabulary = baseline_vocabulary(train, vocabulary, model)
    unigram = unigram_distribution(align_corpus(train, vocabulary, "training documents"), smoothing)
    test = require_tokens(align_corpus(test, vocabulary))
    _, heldout, report = split_documents(test, seed, min_length)
    v = len(vocabulary)
    return {
        "uniform": _one_topic(np.full(v, 1.0 / v), heldout, report, f"uniform/V{v}", seed, min_length),
        "unigram": _one_topic(unigram, heldout, report, f"unigram/add{smoothing:g}/V{v}", seed, min_length),
    }
