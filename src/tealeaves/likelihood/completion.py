"""Document completion (Rosen-Zvi et al. 2004; Wallach et al. 2009, §4).

Each test document's tokens are split in two at random; the document's topic
proportions ``theta_hat`` are inferred from the *observed* half with the
model's own ``transform`` and the *held-out* half is scored with
``p(w) = sum_k theta_hat_k phi_kw``.  Only the held-out words are scored, so
baselines scored on the same words are directly comparable.

A document with ``n`` tokens is split into ``n // 2`` observed and
``n - n // 2`` held-out tokens (342 -> 171 / 171); documents shorter than
``min_length`` (default 2) cannot be split and are skipped and counted.

Every result states the tokens scored (``n_heldout_words``) and the tokens
dropped as out of the model's vocabulary (``n_dropped_oov``: dropped when the
test documents were encoded plus those dropped aligning them to the model).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves._records import RecordDict
from tealeaves.corpus import Corpus
from tealeaves.errors import EmptyInputError
from tealeaves.likelihood._perplexity import (
    align_corpus,
    check_proportions,
    document_log_likelihoods,
    perplexity,
    require_tokens,
    require_topic_word,
)
from tealeaves.models import recorded_inference
from tealeaves.models._fit import describe
from tealeaves.signature import Signature
from tealeaves.validation import check_int

#: How the held-out half is chosen, recorded in every signature.
SPLIT_NAME = "random-half"


@dataclass
class SplitReport(RecordDict):
    """What :func:`split_documents` did.

    Parameters
    ----------
    seed : int
        Seed of the split.
    min_length : int
        Documents shorter than this were skipped.
    n_documents : int
        Documents in the test corpus.
    n_documents_split : int
        Documents split into observed and held-out halves.
    n_skipped_too_short : int
        Documents skipped for having fewer than ``min_length`` tokens.
    skipped_ids : list of str
        The ids of the skipped documents.
    n_observed_words : int
        Tokens in the observed halves.
    n_heldout_words : int
        Tokens in the held-out halves.
    n_dropped_oov : int, default 0
        Test tokens dropped as out of the model's vocabulary.
    """

    seed: int
    min_length: int
    n_documents: int
    n_documents_split: int
    n_skipped_too_short: int
    skipped_ids: list[str]
    n_observed_words: int
    n_heldout_words: int
    n_dropped_oov: int = 0


@dataclass
class CompletionResult(RecordDict):
    """Held-out log-likelihood and perplexity of the held-out halves.

    Parameters
    ----------
    log_likelihood : float
        Total natural-log likelihood of the held-out tokens.
    perplexity : float
        ``exp(-log_likelihood / n_heldout_words)``.
    n_documents_split : int
        Documents split (and scored).
    n_skipped_too_short : int
        Documents skipped as too short to split.
    n_heldout_words : int
        The number of tokens scored.
    signature : Signature
        What was computed and how.
    document_log_likelihoods : numpy.ndarray, default empty
        The log-likelihood of each split document's held-out half.
    n_dropped_oov : int, default 0
        The test tokens dropped as out of the model's vocabulary.
    """

    log_likelihood: float
    perplexity: float
    n_documents_split: int
    n_skipped_too_short: int
    n_heldout_words: int
    signature: Signature
    document_log_likelihoods: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))
    n_dropped_oov: int = 0

    #: :meth:`to_dict`: the scalar fields and ``n_tokens_scored`` (without the per-document log-likelihoods).
    _DICT_KEYS = ("log_likelihood", "perplexity", "n_documents_split", "n_skipped_too_short",
                  "n_heldout_words", "n_tokens_scored", "n_dropped_oov", "signature")

    @property
    def n_tokens_scored(self) -> int:
        return self.n_heldout_words


def _halves(corpus: Corpus, seed: int, min_length: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Indices of split documents and boolean masks (observed, held-out) over ``corpus.tokens``."""
    rng = np.random.default_rng(seed)
    lengths = corpus.lengths
    observed = np.zeros(corpus.n_tokens, dtype=bool)
    heldout = np.zeros(corpus.n_tokens, dtype=bool)
    split = np.flatnonzero(lengths >= min_length)
    for d in split:
        start, n = corpus.offsets[d], int(lengths[d])
        perm = rng.permutation(n)
        observed[start + perm[: n // 2]] = True
        heldout[start + perm[n // 2:]] = True
    return split, observed, heldout


def _keep_tokens(corpus: Corpus, docs: np.ndarray, mask: np.ndarray) -> Corpus:
    """The documents ``docs`` restricted to the tokens selected by ``mask`` (original order kept)."""
    doc_of = np.repeat(np.arange(len(corpus)), corpus.lengths)
    lengths = np.bincount(doc_of[mask], minlength=len(corpus))[docs]
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    labels = [corpus.labels[d] for d in docs] if corpus.labels is not None else None
    return Corpus(corpus.vocabulary, corpus.tokens[mask], offsets, [corpus.ids[d] for d in docs], labels,
                  0, dict(corpus.metadata))


@shared_doc
def split_documents(corpus: Corpus, seed: int = 0, min_length: int = 2) -> tuple[Corpus, Corpus, SplitReport]:
    """Split every document of at least ``min_length`` tokens into two random halves.

    The two corpora have the same documents (the split ones, in order) and the same
    vocabulary; the observed half has ``n // 2`` tokens and the held-out half the
    rest.  The split depends only on ``seed`` and the corpus.

    Parameters
    ----------
    corpus : Corpus
        The test documents.
    %(completion_seed)s %(completion_min_length)s

    Returns
    -------
    observed : Corpus
        The observed halves.
    heldout : Corpus
        The held-out halves.
    report : SplitReport
        What was split and skipped.

    Raises
    ------
    ParameterError
        If ``seed`` or ``min_length`` is out of range.
    EmptyInputError
        If ``corpus`` has no document, or no document is long enough to split.
    """
    seed, min_length = check_split(seed, min_length)
    if len(corpus) == 0:
        raise EmptyInputError("the test corpus has no documents; check the input path and reader")
    split, obs_mask, held_mask = _halves(corpus, seed, min_length)
    if len(split) == 0:
        raise EmptyInputError(
            f"no test document has at least {min_length} words, so none can be split; "
            "check the preprocessing and vocabulary of the test documents"
        )
    skipped = np.setdiff1d(np.arange(len(corpus)), split)
    report = SplitReport(seed, min_length, len(corpus), len(split), len(skipped),
                         [corpus.ids[d] for d in skipped], int(obs_mask.sum()), int(held_mask.sum()),
                         corpus.n_dropped)
    return _keep_tokens(corpus, split, obs_mask), _keep_tokens(corpus, split, held_mask), report


def check_split(seed: object, min_length: object) -> tuple[int, int]:
    """Validate the split's ``seed`` (a whole number in ``[0, 2**32)``) and ``min_length`` (>= 2).

    Parameters
    ----------
    seed : object
        The split seed.
    min_length : object
        The minimum document length.

    Returns
    -------
    tuple of (int, int)
        ``(seed, min_length)`` as integers.

    Raises
    ------
    ParameterError
        If either is not a whole number in its range.
    """
    seed = check_int(seed, "split seed", min_value=0, max_value=2**32 - 1)
    min_length = check_int(min_length, "min_length", min_value=2)
    return seed, min_length


def completion_signature(model_description: str, seed: int, min_length: int = 2,
                         estimator: str = "point-theta", inference: str | None = None) -> Signature:
    """The signature of a document-completion perplexity.

    Parameters
    ----------
    model_description : str
        The model's description (its ``model`` field).
    seed : int
        Seed of the split.
    min_length : int, default 2
        Minimum length of a split document.
    estimator : str, default "point-theta"
        The estimator of the held-out probability (``est`` field).
    inference : str or None, default None
        How theta_hat was inferred (``infer`` field); None leaves the field out.

    Returns
    -------
    Signature
        A ``perplexity`` signature with ``eval=doc-completion`` and ``split=random-half``.
    """
    fields = {"eval": "doc-completion", "split": SPLIT_NAME, "seed": seed, "min_len": min_length,
              "est": estimator}
    if inference is not None:
        fields["infer"] = inference
    fields["model"] = model_description
    return Signature("perplexity", fields)


@shared_doc
def prepare_test(model: object, test: Corpus, seed: int = 0, min_length: int = 2
                 ) -> tuple[Corpus, Corpus, SplitReport]:
    """Align ``test`` to the model's vocabulary, check it is usable and split it.

    Parameters
    ----------
    model : object
        A fitted tealeaves model (its ``vocabulary_`` is used).
    %(completion_test)s %(completion_seed)s %(completion_min_length)s

    Returns
    -------
    tuple of (Corpus, Corpus, SplitReport)
        ``(observed, heldout, report)`` as :func:`split_documents` returns them.

    Raises
    ------
    EmptyInputError
        If ``test`` shares no word with the model or nothing can be split.
    """
    test = require_tokens(align_corpus(test, model.vocabulary_))
    return split_documents(test, seed, min_length)


def score_heldout(theta: np.ndarray, phi: np.ndarray, heldout: Corpus, report: SplitReport,
                  signature: Signature) -> CompletionResult:
    """Score the held-out halves with ``p(w) = sum_k theta_dk phi_kw``.

    Parameters
    ----------
    theta : numpy.ndarray
        The ``D x K`` topic proportions inferred from the observed halves.
    phi : numpy.ndarray
        The ``K x V`` topic-word probabilities.
    heldout : Corpus
        The ``D`` held-out halves.
    report : SplitReport
        The split's report (its counts are copied into the result).
    signature : Signature
        The signature of the result.

    Returns
    -------
    CompletionResult
        The held-out log-likelihood, perplexity and per-document log-likelihoods.

    Raises
    ------
    InvalidModelError
        If ``theta`` is not a valid ``D x K`` distribution or a held-out word gets probability zero.
    """
    theta = check_proportions(theta, len(heldout), phi.shape[0])
    per_doc = document_log_likelihoods(theta, phi, heldout)
    ll = float(per_doc.sum())
    return CompletionResult(ll, perplexity(ll, heldout.n_tokens), report.n_documents_split,
                            report.n_skipped_too_short, heldout.n_tokens, signature, per_doc,
                            report.n_dropped_oov)


@shared_doc
def document_completion(model: object, test: Corpus, seed: int = 0, min_length: int = 2) -> CompletionResult:
    """Document-completion perplexity of ``model`` on ``test`` (Wallach et al. 2009, §4).

    ``model`` is any tealeaves model with probabilities (``topic_word_``) and
    ``transform``; ``test`` is encoded over its vocabulary (other words are
    dropped and counted in ``n_dropped_oov``).  Too-short documents are skipped
    and counted in the result.  ``theta_hat`` is inferred as the model records
    (:mod:`tealeaves.models.recorded_inference`), so a saved and loaded model scores
    exactly as before.  See the module docstring.

    Parameters
    ----------
    model : object
        A fitted probabilistic tealeaves model.
    %(completion_test)s %(completion_seed)s %(completion_min_length)s

    Returns
    -------
    CompletionResult
        The perplexity of the held-out halves, with its signature.

    Raises
    ------
    UnsupportedModelError
        If ``model`` is not a tealeaves model or is not probabilistic.
    EmptyInputError
        If nothing of ``test`` can be scored.
    """
    seed, min_length = check_split(seed, min_length)
    phi = require_topic_word(model)
    observed, heldout, report = prepare_test(model, test, seed, min_length)
    theta = model.transform(observed)
    return score_heldout(theta, phi, heldout, report,
                         completion_signature(describe(model), seed, min_length,
                                              inference=recorded_inference.inference_name(model)))
