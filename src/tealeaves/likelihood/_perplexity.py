"""Log-likelihood and perplexity of words under topic mixtures.

A word ``w`` of document ``d`` has probability ``p(w | d) = sum_k theta_dk phi_kw``
(the mixture used by pLSA, LDA with a point estimate of ``theta``, and, with
one topic, the unigram and uniform baselines).  Perplexity is the inverse
geometric mean probability per word, ``exp(-sum log p / N)`` (Blei, Ng and
Jordan 2003, §7.1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves._records import RecordDict
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import (
    EmptyInputError,
    InvalidModelError,
    ParameterError,
    TealeavesError,
    UnsupportedModelError,
)
from tealeaves.models.base import check_topic_word
from tealeaves.signature import Signature


@dataclass
class LikelihoodResult(RecordDict):
    """Log-likelihood of a set of words, their count (``n_words``, the tokens scored) and the perplexity.

    Parameters
    ----------
    log_likelihood : float
        Total log-likelihood (natural log) of the scored tokens.
    perplexity : float
        ``exp(-log_likelihood / n_words)`` (Blei, Ng and Jordan 2003, §7.1).
    n_words : int
        The number of tokens scored.
    n_documents : int
        The number of documents scored.
    signature : Signature
        What was computed and how, for reproduction.
    n_dropped_oov : int, default 0
        The tokens dropped as out of vocabulary when the scored corpus was encoded.
    """

    log_likelihood: float
    perplexity: float
    n_words: int
    n_documents: int
    signature: Signature
    n_dropped_oov: int = 0

    _DICT_KEYS = ("log_likelihood", "perplexity", "n_words", "n_tokens_scored", "n_documents",
                  "n_dropped_oov", "signature")

    @property
    def n_tokens_scored(self) -> int:
        return self.n_words


def perplexity(log_likelihood: float, n_words: int) -> float:
    """Perplexity ``exp(-log_likelihood / n_words)`` (Blei, Ng and Jordan 2003, §7.1).

    Parameters
    ----------
    log_likelihood : float
        Total natural-log likelihood of the scored words.
    n_words : int
        The number of words scored.

    Returns
    -------
    float
        The inverse geometric mean probability per word.

    Raises
    ------
    EmptyInputError
        If ``n_words`` is zero or negative.
    TealeavesError
        If ``log_likelihood`` is not finite.
    """
    if n_words <= 0:
        raise EmptyInputError("perplexity needs at least one scored word; the held-out set is empty")
    if not math.isfinite(log_likelihood):
        raise TealeavesError(f"the log-likelihood is {log_likelihood}; perplexity is undefined")
    return math.exp(-log_likelihood / n_words)


def require_topic_word(model: object) -> np.ndarray:
    """The validated ``topic_word_`` of a model; models without probabilities (LSI, NMF) are refused.

    Parameters
    ----------
    model : object
        A fitted tealeaves model (with ``topic_word_`` and ``vocabulary_``).

    Returns
    -------
    numpy.ndarray
        The ``K x V`` topic-word matrix, each row a distribution over the vocabulary.

    Raises
    ------
    UnsupportedModelError
        If ``model`` is not a tealeaves model at all (e.g. a gensim ``LdaModel``; the
        message points to ``tealeaves.load_model``), or it declares itself not
        probabilistic (``not_probabilistic_``).
    InvalidModelError
        If ``topic_word_`` is None (as for LSI or NMF) or is not a valid topic-word matrix.
    """
    if not hasattr(model, "topic_word_") or not hasattr(model, "vocabulary_"):
        cls = type(model)
        raise UnsupportedModelError(
            f"{cls.__module__}.{cls.__qualname__} is not a tealeaves model (it has no topic_word_ and "
            "vocabulary_)", fix="convert it first: model = tealeaves.load_model(obj); see docs/models.md")
    phi = model.topic_word_
    if phi is None:
        reason = getattr(model, "not_probabilistic_", None)
        if reason:
            raise UnsupportedModelError(f"{reason}; held-out likelihood needs a probabilistic model")
        raise InvalidModelError(
            f"{type(model).__name__} has no topic-word probabilities (topic_word_ is None, as for LSI or "
            "NMF); held-out likelihood needs a probabilistic model"
        )
    return check_topic_word(phi)


def check_proportions(theta: np.ndarray, n_documents: int, n_components: int) -> np.ndarray:
    """Validate ``D x K`` topic proportions (finite, non-negative, rows summing to one).

    Parameters
    ----------
    theta : numpy.ndarray
        The ``D x K`` document-topic proportions.
    n_documents : int
        The expected number of rows ``D``.
    n_components : int
        The expected number of columns ``K``.

    Returns
    -------
    numpy.ndarray
        ``theta`` as a float64 array.

    Raises
    ------
    InvalidModelError
        If the shape is not ``(n_documents, n_components)`` or a row is not a distribution
        (NaN, negative or not summing to 1 within ``1e-6``).
    """
    theta = np.asarray(theta, dtype=np.float64)
    if theta.shape != (n_documents, n_components):
        raise InvalidModelError(
            f"topic proportions have shape {theta.shape}, expected {(n_documents, n_components)}"
        )
    bad = ~np.isfinite(theta).all(axis=1) | (theta < 0).any(axis=1) | (np.abs(theta.sum(axis=1) - 1) > 1e-6)
    if bad.any():
        raise InvalidModelError(
            f"the topic proportions of document {int(np.argmax(bad))} are not a distribution "
            "(NaN, negative or not summing to 1); check the model's transform()"
        )
    return theta


def document_log_likelihoods(theta: np.ndarray, phi: np.ndarray, corpus: Corpus) -> np.ndarray:
    """Log-likelihood of every document, ``sum_i log sum_k theta_dk phi_{k, w_di}``.

    Parameters
    ----------
    theta : numpy.ndarray
        The ``D x K`` document-topic proportions (one row per document of ``corpus``).
    phi : numpy.ndarray
        The ``K x V`` topic-word probabilities over ``corpus``'s vocabulary.
    corpus : Corpus
        The ``D`` documents whose tokens are scored.

    Returns
    -------
    numpy.ndarray
        ``D`` float64 log-likelihoods (natural log), one per document.

    Raises
    ------
    InvalidModelError
        If some word gets probability zero (its perplexity would be infinite);
        smooth the topics to avoid that.
    """
    counts = corpus.counts
    rows = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
    p = np.einsum("ik,ki->i", theta[rows], phi[:, counts.indices])
    zero = p <= 0
    if zero.any():
        words = corpus.vocabulary.decode(np.unique(counts.indices[zero])[:5])
        raise InvalidModelError(
            f"the model gives probability zero to {int(counts.data[zero].sum())} scored words "
            f"(e.g. {', '.join(words)}); smooth topic_word_ so every word has positive probability"
        )
    return np.bincount(rows, weights=counts.data * np.log(p), minlength=counts.shape[0])


def score_words(theta: np.ndarray, phi: np.ndarray, corpus: Corpus, signature: Signature) -> LikelihoodResult:
    """Log-likelihood and perplexity of every token of ``corpus`` under ``theta @ phi``.

    Parameters
    ----------
    theta : numpy.ndarray
        The ``D x K`` document-topic proportions, rows summing to one.
    phi : numpy.ndarray
        The ``K x V`` topic-word probabilities over ``corpus``'s vocabulary.
    corpus : Corpus
        The documents scored (at least one token).
    signature : Signature
        The signature recorded in the result.

    Returns
    -------
    LikelihoodResult
        The total log-likelihood, perplexity, counts and ``signature``.

    Raises
    ------
    EmptyInputError
        If ``corpus`` has no document or no token.
    InvalidModelError
        If ``theta`` or ``phi`` is invalid or a word gets probability zero.
    """
    check_corpus(corpus, "scored corpus").require_nonempty("scored corpus")
    phi = check_topic_word(phi, name="phi")
    theta = check_proportions(theta, len(corpus), phi.shape[0])
    ll = float(document_log_likelihoods(theta, phi, corpus).sum())
    return LikelihoodResult(ll, perplexity(ll, corpus.n_tokens), corpus.n_tokens, len(corpus), signature,
                            corpus.n_dropped)


@shared_doc
def check_corpus(corpus: object, name: str = "test documents") -> Corpus:
    """Refuse anything but a :class:`~tealeaves.corpus.Corpus` (lists of words are not encoded silently).

    Parameters
    ----------
    corpus : object
        The value to check.
    name : str, default "test documents"
        What ``corpus`` is, for the error message.

    Returns: %(returns_same_corpus)s

    Raises
    ------
    ParameterError
        If ``corpus`` is not a ``Corpus``.
    """
    if not isinstance(corpus, Corpus):
        raise ParameterError(f"the {name} must be a tealeaves Corpus, got {type(corpus).__name__}",
                             fix="encode the documents with Corpus.from_token_lists or read_corpus")
    return corpus


@shared_doc
def align_corpus(corpus: Corpus, vocabulary: Vocabulary, what: str = "test documents") -> Corpus:
    """Re-encode ``corpus`` over ``vocabulary``: words it lacks are dropped and counted in ``n_dropped``.

    Parameters
    ----------
    corpus : Corpus
        The documents to re-encode.
    vocabulary : Vocabulary
        The target vocabulary (usually the model's ``vocabulary_``).
    %(scored_what)s

    Returns
    -------
    Corpus
        ``corpus`` itself when it already uses ``vocabulary``, else a new corpus over
        ``vocabulary`` with the same ids, labels and metadata.

    Raises
    ------
    ParameterError
        If ``corpus`` is not a ``Corpus``.
    EmptyInputError
        When the two share no word at all.
    """
    check_corpus(corpus, what)
    if corpus.vocabulary == vocabulary:
        return corpus
    mapping = np.array([vocabulary.index.get(w, -1) for w in corpus.vocabulary], dtype=np.int64)
    mapped = mapping[corpus.tokens] if corpus.n_tokens else np.zeros(0, dtype=np.int64)
    keep = mapped >= 0
    doc_of = np.repeat(np.arange(len(corpus)), corpus.lengths)
    lengths = np.bincount(doc_of[keep], minlength=len(corpus))
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    aligned = Corpus(vocabulary, mapped[keep], offsets, list(corpus.ids), corpus.labels,
                     corpus.n_dropped + int((~keep).sum()), dict(corpus.metadata))
    if aligned.n_dropped and not aligned.n_tokens:
        require_tokens(aligned, what)
    return aligned


@shared_doc
def require_tokens(corpus: Corpus, what: str = "test documents") -> Corpus:
    """Refuse a corpus with no document or no token to score, saying why when every token was dropped.

    Parameters
    ----------
    corpus : Corpus
        The corpus to score.
    %(scored_what)s

    Returns: %(returns_same_corpus)s

    Raises
    ------
    EmptyInputError
        If ``corpus`` has no document or no token (every token out of vocabulary included).
    """
    if len(corpus) and not corpus.n_tokens and corpus.n_dropped:
        raise EmptyInputError(
            f"the {what} share no word with the model's vocabulary (all {corpus.n_dropped} tokens are "
            "out of vocabulary)",
            fix="encode them with the preprocessor (and vocabulary) the model was trained with")
    corpus.require_nonempty(what)
    return corpus
