"""Paired comparison of two models on the same data, with seeded bootstrap intervals.

Two differences, each with a percentile bootstrap interval (Efron and
Tibshirani 1993, ch. 13) from ``n_boot`` resamples drawn with
``numpy.random.default_rng(seed)``:

:func:`coherence_difference`
    ``mean_k c_A(k) - mean_k c_B(k)`` over the scored topics of two
    :class:`~tealeaves.coherence.CoherenceResult` objects computed with the
    same measure, settings and reference.  Topic ``k`` of model A has nothing
    to do with topic ``k`` of model B, so the topics are **not paired**: each
    resample draws ``K_A`` topics of A and, independently, ``K_B`` topics of B
    with replacement (a two-sample bootstrap) and takes the difference of the
    two means.  The interval describes the uncertainty from the particular
    topics each model happened to produce.
:func:`likelihood_difference`
    ``(LL_A - LL_B) / N``, the difference of held-out log-likelihood per word
    of two :class:`~tealeaves.likelihood.completion.CompletionResult` objects
    scored on the **same** held-out words (same test documents, split, seed,
    ``min_length`` and vocabulary).  The documents are paired, so each
    resample draws ``D`` documents with replacement, the *same* for both
    models, and computes ``sum_d (ll_A(d) - ll_B(d)) / sum_d N_d`` over them
    (a paired bootstrap over documents; the per-word ratio is recomputed in each
    resample).  Positive means A predicts the held-out words better.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves._records import RecordDict
from tealeaves.comparison.errors import IncomparableError
from tealeaves.corpus import Corpus
from tealeaves.errors import EmptyInputError, ParameterError
from tealeaves.signature import Signature
from tealeaves.validation import check_float, check_int, check_seed


@dataclass
class PairedDifference(RecordDict):
    """A difference ``A - B`` with its bootstrap interval ``[low, high]`` at ``level``.

    Parameters
    ----------
    measure : str
        What is compared (``coherence-difference`` or ``loglik-per-word-difference``).
    estimate : float
        The difference ``A - B``.
    low : float
        Lower end of the percentile bootstrap interval.
    high : float
        Upper end of the interval.
    value_a : float
        The value of A.
    value_b : float
        The value of B.
    n_a : int
        Units of A resampled (topics or documents).
    n_b : int
        Units of B resampled.
    level : float
        Coverage of the interval.
    n_boot : int
        Bootstrap resamples.
    seed : int
        Seed of the resampling.
    signature : Signature
        What was computed and how.
    """

    measure: str
    estimate: float
    low: float
    high: float
    value_a: float
    value_b: float
    n_a: int
    n_b: int
    level: float
    n_boot: int
    seed: int
    signature: Signature


def _check_bootstrap(n_boot: object, level: object, seed: object) -> tuple[int, float, int]:
    return (check_int(n_boot, "n_boot", min_value=100), check_float(level, "level", min_value=0.0,
            max_value=1.0, include_min=False, include_max=False), check_seed(seed))


def _interval(samples: np.ndarray, level: float) -> tuple[float, float]:
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(samples, [tail, 1.0 - tail])
    return float(low), float(high)


def _scored(result: object, name: str) -> np.ndarray:
    scores = getattr(result, "scores", None)
    if scores is None or not hasattr(result, "signature"):
        raise ParameterError(f"{name} must be a CoherenceResult (tealeaves.coherence.coherence), "
                             f"got {type(result).__name__}")
    values = np.array([s for s in scores if s is not None], dtype=np.float64)
    if values.size < 2:
        raise EmptyInputError(f"{name} has {values.size} scored topic(s); a bootstrap over topics needs "
                              "at least two", fix="score more topics")
    return values


def _settings(signature: Signature) -> tuple:
    return signature.measure, tuple((k, str(v)) for k, v in signature.fields.items() if k != "model")


@shared_doc
def coherence_difference(a: object, b: object, n_boot: int = 10000, level: float = 0.95,
                         seed: int = 0) -> PairedDifference:
    """Difference of mean coherence ``A - B`` with a two-sample bootstrap over topics (module docstring).

    Topics without a score (``None``) are left out, as in
    :attr:`~tealeaves.coherence.CoherenceResult.mean`.  The interval is the
    percentile bootstrap (Efron and Tibshirani 1993, ch. 13).

    Parameters
    ----------
    a : CoherenceResult
        The coherence of model A.
    b : CoherenceResult
        The coherence of model B, with the same signature (measure, reference,
        window, top-N and every other setting).
    %(paired_n_boot)s %(paired_level)s %(paired_seed)s

    Returns
    -------
    PairedDifference
        ``mean_k c_A(k) - mean_k c_B(k)`` with its interval.

    Raises
    ------
    ParameterError
        If ``a`` or ``b`` is not a CoherenceResult, or a bootstrap setting is invalid.
    EmptyInputError
        If a result has fewer than two scored topics.
    IncomparableError
        If the two were computed differently.
    """
    n_boot, level, seed = _check_bootstrap(n_boot, level, seed)
    va, vb = _scored(a, "a"), _scored(b, "b")
    if _settings(a.signature) != _settings(b.signature):
        raise IncomparableError(f"the coherence results were computed differently: {a.signature} vs "
                                f"{b.signature}", fix="score both models with the same measure, settings "
                                "and reference")
    rng = np.random.default_rng(seed)
    boot_a = va[rng.integers(0, va.size, size=(n_boot, va.size))].mean(axis=1)
    boot_b = vb[rng.integers(0, vb.size, size=(n_boot, vb.size))].mean(axis=1)
    low, high = _interval(boot_a - boot_b, level)
    sig = Signature("coherence-difference", {"of": a.signature.measure, **a.signature.fields,
                                             "boot": "two-sample-topics", "n_boot": n_boot, "level": level,
                                             "boot_seed": seed})
    return PairedDifference("coherence-difference", float(va.mean() - vb.mean()), low, high,
                            float(va.mean()), float(vb.mean()), int(va.size), int(vb.size), level, n_boot,
                            seed, sig)


def _per_document(result: object, name: str) -> np.ndarray:
    ll = getattr(result, "document_log_likelihoods", None)
    if ll is None or not hasattr(result, "n_heldout_words"):
        raise ParameterError(f"{name} must be a CompletionResult (tealeaves.likelihood.completion."
                             f"document_completion), got {type(result).__name__}")
    ll = np.asarray(ll, dtype=np.float64)
    if ll.ndim != 1 or ll.size == 0:
        raise EmptyInputError(f"{name} holds no per-document log-likelihoods")
    if ll.size != result.n_documents_split:
        raise IncomparableError(f"{name} has {ll.size} per-document log-likelihoods but "
                                f"{result.n_documents_split} split documents")
    if not np.isfinite(ll).all():
        raise IncomparableError(f"{name} has non-finite per-document log-likelihoods")
    return ll


def _heldout_lengths(heldout: object, n_documents: int, n_words: int) -> np.ndarray:
    lengths = heldout.lengths if isinstance(heldout, Corpus) else np.asarray(heldout)
    if lengths.shape != (n_documents,) or not np.issubdtype(lengths.dtype, np.integer) or (lengths < 0).any():
        raise IncomparableError(f"heldout must give the held-out word count of each of the {n_documents} "
                                f"split documents, got an array of shape {lengths.shape}",
                                fix="pass the held-out half (tealeaves.comparison.same_heldout)")
    if int(lengths.sum()) != n_words:
        raise IncomparableError(f"heldout holds {int(lengths.sum())} words but the results scored {n_words}",
                                fix="pass the held-out half these results were scored on")
    return lengths.astype(np.float64)


def _split_settings(result: object) -> tuple:
    keep = ("eval", "split", "seed", "min_len")
    return tuple((k, str(result.signature.fields.get(k))) for k in keep)


@shared_doc
def likelihood_difference(a: object, b: object, heldout: Corpus | np.ndarray, n_boot: int = 10000,
                          level: float = 0.95, seed: int = 0) -> PairedDifference:
    """Difference of held-out log-likelihood per word ``A - B`` with a paired bootstrap over documents.

    ``(LL_A - LL_B) / N``; each resample draws the same documents for both models
    (module docstring).  Results from different splits (seed, ``min_length``,
    number of documents or words) are refused.

    Parameters
    ----------
    a : CompletionResult
        The document-completion result of model A.
    b : CompletionResult
        That of model B, on the same held-out words.
    heldout : Corpus or numpy.ndarray
        Those words: the held-out half as a :class:`~tealeaves.corpus.Corpus`, from
        :func:`same_heldout`, or their per-document counts.
    %(paired_n_boot)s %(paired_level)s %(paired_seed)s

    Returns
    -------
    PairedDifference
        The difference per word; positive means A predicts the held-out words better.

    Raises
    ------
    ParameterError
        If ``a`` or ``b`` is not a CompletionResult, or a bootstrap setting is invalid.
    EmptyInputError
        If a result holds no per-document log-likelihoods.
    IncomparableError
        If the results come from different splits or words, or ``heldout`` does not match them.
    """
    n_boot, level, seed = _check_bootstrap(n_boot, level, seed)
    la, lb = _per_document(a, "a"), _per_document(b, "b")
    if _split_settings(a) != _split_settings(b):
        raise IncomparableError(f"the results come from different held-out splits: {a.signature} vs "
                                f"{b.signature}", fix="score both models with document_completion on the "
                                "same test corpus with the same seed and min_length")
    if (la.size, a.n_heldout_words, a.n_skipped_too_short) != (lb.size, b.n_heldout_words,
                                                                b.n_skipped_too_short):
        raise IncomparableError(
            f"the results scored different held-out words: {la.size} documents / {a.n_heldout_words} words "
            f"vs {lb.size} / {b.n_heldout_words}",
            fix="use models with the same vocabulary, or score both on the same held-out words")
    lengths = _heldout_lengths(heldout, la.size, int(a.n_heldout_words))
    diff = la - lb
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, diff.size, size=(n_boot, diff.size))
    boot = diff[idx].sum(axis=1) / lengths[idx].sum(axis=1)
    low, high = _interval(boot, level)
    n = float(lengths.sum())
    fa, fb = a.signature.fields, b.signature.fields
    sig = Signature("loglik-difference", {**dict(_split_settings(a)), "est_a": fa.get("est"),
                                          "est_b": fb.get("est"), "a": fa.get("model"), "b": fb.get("model"),
                                          "boot": "paired-documents", "n_boot": n_boot, "level": level,
                                          "boot_seed": seed})
    return PairedDifference("loglik-per-word-difference", float(diff.sum() / n), low, high,
                            float(la.sum() / n), float(lb.sum() / n), int(la.size), int(lb.size), level,
                            n_boot, seed, sig)


@shared_doc
def same_heldout(model_a: object, model_b: object, test: Corpus, seed: int = 0, min_length: int = 2
                 ) -> Corpus:
    """The held-out half both models are scored on by ``document_completion(model, test, seed, min_length)``.

    Each model's test documents are aligned to its vocabulary before the split,
    so models with different vocabularies hold out different words; that is
    refused, naming the first document that differs.

    Parameters
    ----------
    model_a : object
        The first fitted model.
    model_b : object
        The second fitted model.
    %(completion_test)s %(completion_seed)s %(completion_min_length)s

    Returns
    -------
    Corpus
        The held-out half.

    Raises
    ------
    IncomparableError
        If the two models hold out different documents or words.
    """
    from tealeaves.likelihood.completion import prepare_test

    seed = check_seed(seed)
    _, held_a, _ = prepare_test(model_a, test, seed, min_length)
    _, held_b, _ = prepare_test(model_b, test, seed, min_length)
    if held_a.ids != held_b.ids:
        raise IncomparableError("the two models split different test documents (their vocabularies keep "
                                "different words)", fix="compare models over the same vocabulary")
    for d in range(len(held_a)):
        if held_a.words(d) != held_b.words(d):
            raise IncomparableError(f"the two models hold out different words of test document "
                                    f"{held_a.ids[d]!r} (their vocabularies differ)",
                                    fix="compare models over the same vocabulary")
    return held_a
