"""What is measured on every model of a sweep, and the hooks other measures plug into.

Each model gets (:func:`score_model`):

* document-completion perplexity (:func:`tealeaves.likelihood.document_completion`) and
  the uniform and add-one unigram baselines on the same held-out words
  (:func:`tealeaves.likelihood.baselines` with ``model=``), the per-document held-out
  log-likelihoods and word counts (for ``tealeaves compare``);
* the engine's own reported perplexity where it has one (:func:`engines.library_perplexity`);
* each coherence measure (:func:`tealeaves.coherence.coherence`, top ``n_top`` words)
  against the reference: mean over topics and per-topic scores, and the pair matrix of
  the first measure;
* every function of :data:`MODEL_MEASURES` (``fn(model, data) -> {column: value}``,
  stored in the model's ``measures``) and :data:`TOPIC_MEASURES`
  (``fn(model, data) -> [value per topic]``, stored in each topic's ``scores``).

The hooks are how the comparison measures are added by name: ``diversity`` (topic
diversity of the top 25 words, Dieng et al. 2020, and inverted RBO, Bianchi et al. 2021,
from :mod:`tealeaves.comparison`) is registered here; significance or embedding coherence
are added the same way, e.g. ``TOPIC_MEASURES["kl_background"] = fn``.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tealeaves.corpus import Corpus
from tealeaves.errors import TealeavesError


def _diversity(model, data) -> dict:
    """Topic diversity (top 25) and inverted RBO (top ``data.n_top``, p = 0.9), from :mod:`.comparison`.

    Diversity is ``None`` (documented) when the vocabulary has fewer than 25 words.
    """
    from tealeaves.comparison import inverted_rbo, topic_diversity

    enough = len(model.vocabulary_) >= 25
    return {"diversity": topic_diversity(model, 25).value if enough else None,
            "irbo": inverted_rbo(model, data.n_top).value}


#: Per-model measures added by name: ``fn(model, data: SweepData) -> dict[str, float | None]``.
MODEL_MEASURES: dict[str, Callable] = {"diversity": _diversity}
#: Per-topic measures added by name: ``fn(model, data: SweepData) -> list[float | None]`` (one per topic).
TOPIC_MEASURES: dict[str, Callable] = {}


@dataclass
class SweepData:
    """What every fit and score of one sweep shares (sent once to each worker process).

    Parameters
    ----------
    train : Corpus
        The training documents.
    test : Corpus
        The test documents.
    reference : ReferenceIndex
        The coherence reference (a :class:`tealeaves.coherence.ReferenceIndex`).
    measures : tuple of str
        The coherence measures.
    n_top : int
        Top words per topic.
    split_seed : int
        The seed of the train/test split and of the document completion.
    """

    train: Corpus
    test: Corpus
    reference: object  # a tealeaves.coherence.ReferenceIndex
    measures: tuple[str, ...]
    n_top: int
    split_seed: int

    @property
    def top_n(self) -> int:
        """Deprecated name of :attr:`n_top`."""
        from tealeaves._params import warn_renamed

        warn_renamed("top_n", "n_top", "SweepData")
        return self.n_top


def words_hash(words) -> str:
    """A short hash of a vocabulary (its words in order).

    Parameters
    ----------
    words : iterable of str
        The words.

    Returns
    -------
    str
        16 hex digits of a SHA-1.
    """
    return hashlib.sha1("\n".join(words).encode()).hexdigest()[:16]


def corpus_hash(corpus: Corpus) -> str:
    """A short hash of a corpus: vocabulary, tokens, offsets and document ids.

    Parameters
    ----------
    corpus : Corpus
        The corpus.

    Returns
    -------
    str
        16 hex digits of a SHA-1.
    """
    h = hashlib.sha1(words_hash(corpus.vocabulary).encode())
    for part in (corpus.tokens.astype("<i8"), corpus.offsets.astype("<i8")):
        h.update(part.tobytes())
    h.update("\n".join(corpus.ids).encode())
    return h.hexdigest()[:16]


def reference_mismatch(reference, train: Corpus) -> dict:
    """``{"reference_mismatch": why}`` when the reference was tokenised otherwise than ``train``, else ``{}``.

    The check of :func:`tealeaves.index.reference.tokenization_mismatch` (token pattern,
    lowercasing, stop words, tokenizer, minimum length) between the coherence reference's
    recorded tokenisation and the training corpus's recipe (:attr:`Corpus.preprocessing`);
    a mismatch is also warned (``UserWarning``; the command line prints it as
    ``tealeaves: warning: ...``).  Nothing is compared when either side records no recipe.

    Parameters
    ----------
    reference : ReferenceIndex
        The coherence reference.
    train : Corpus
        The training corpus.

    Returns
    -------
    dict
        The entry for the sweep's description (empty when they agree).
    """
    import warnings

    from tealeaves.index.reference import tokenization_mismatch

    why = tokenization_mismatch(reference, getattr(train, "preprocessing", None))
    if why is None:
        return {}
    warnings.warn(why, UserWarning, stacklevel=3)
    return {"reference_mismatch": why}


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def _check_same_words(result, base: dict) -> None:
    """Refuse baselines scored on other held-out words than the model (a bug if it ever happens)."""
    for name, b in base.items():
        if (b.n_heldout_words, b.n_documents_split) != (result.n_heldout_words, result.n_documents_split):
            raise TealeavesError(f"the {name} baseline scored other held-out words than the model",
                                 fix="this is a bug in tealeaves; report it")


def likelihood_measures(model, data: SweepData) -> tuple[dict, dict]:
    """``(measures, heldout)``: completion and baseline perplexities; per-document log-likelihoods.

    Parameters
    ----------
    model : TopicModel
        The fitted model.
    data : SweepData
        The sweep's shared data.

    Returns
    -------
    tuple of dict
        The likelihood measures, and the held-out record (``signature``, ``split_hash``,
        ``doc_loglik``, ``doc_words``).

    Raises
    ------
    TealeavesError
        When a baseline scored other held-out words than the model (a bug).
    """
    from tealeaves.likelihood import baselines
    from tealeaves.likelihood.completion import document_completion, prepare_test
    from tealeaves.sweep.engines import library_perplexity

    result = document_completion(model, data.test, seed=data.split_seed)
    base = baselines(data.train, data.test, seed=data.split_seed, model=model)
    _check_same_words(result, base)
    _, heldout, _ = prepare_test(model, data.test, data.split_seed)
    measures = {"completion_perplexity": result.perplexity,
                "completion_loglik_per_word": result.log_likelihood / result.n_heldout_words,
                "uniform_perplexity": base["uniform"].perplexity,
                "unigram_perplexity": base["unigram"].perplexity,
                "heldout_words": result.n_heldout_words, "documents_split": result.n_documents_split,
                "documents_too_short": result.n_skipped_too_short,
                "library_perplexity": library_perplexity(model, data.test)}
    return measures, {"signature": str(result.signature), "split_hash": corpus_hash(heldout),
                      "doc_loglik": result.document_log_likelihoods, "doc_words": heldout.lengths}


def _pairs(result, topic: int) -> dict:
    matrix = result.pair_matrix(topic)
    return {"words": list(matrix.index),
            "values": [[_finite(v) for v in row] for row in matrix.to_numpy(dtype=float)]}


def flag_measures(model, data: SweepData, first, topics: list[dict]) -> dict:
    """Topic significance and the junk-topic flags of one model (:mod:`tealeaves.comparison`).

    ``theta`` is the model's ``transform`` of the training documents.  Per topic:
    ``kl_uniform``, ``kl_vacuous``, ``kl_background`` (AlSumait et al. 2009) go into its
    scores and the flags of :func:`~tealeaves.comparison.flags.flag_topics` (low-coherence
    and mixed from the first coherence measure, background, few-documents) into its
    ``flags``; low-recurrence needs other runs and is left to the report's hook.

    Parameters
    ----------
    model : TopicModel
        The fitted model.
    data : SweepData
        The sweep's shared data.
    first : CoherenceResult or None
        The result of the first coherence measure.
    topics : list of dict
        The per-topic records, updated in place.

    Returns
    -------
    dict
        The model's mean ``kl_vacuous`` (``significance``) and the flags' settings (``flags``).
    """
    from tealeaves.comparison import flag_topics, topic_significance

    theta = model.transform(data.train)
    significance = topic_significance(model, theta, data.train.lengths)
    for t, row in enumerate(significance.per_topic.to_dict(orient="records")):
        topics[t]["scores"].update({c: _finite(float(row[c])) for c in ("kl_uniform", "kl_vacuous",
                                                                        "kl_background")})
    report = flag_topics(len(topics), coherence=first, significance=significance, theta=theta,
                         doc_lengths=data.train.lengths)
    for flag in report.flags:
        topics[flag.topic]["flags"].append({"flag": flag.flag, "explanation": flag.explanation})
    return {"significance": significance.value,
            "flags": {"checked": report.checked, "skipped": report.skipped,
                      "signature": str(report.signature)}}


def score_model(model, data: SweepData) -> dict:
    """Every measure of one fitted model (see the module docstring), ready for the results store.

    Parameters
    ----------
    model : TopicModel
        The fitted model.
    data : SweepData
        The sweep's shared data.

    Returns
    -------
    dict
        ``measures``, ``topics``, ``signature``, ``split_hash``, ``doc_loglik``, ``doc_words``,
        ``vocabulary_hash``, ``topic_word`` and ``score_seconds``.
    """
    from tealeaves.coherence import coherence

    start = time.perf_counter()
    measures, heldout = likelihood_measures(model, data)
    words = [[str(w) for w in t] for t in model.top_words(data.n_top)]
    topics = [{"topic": t, "top_words": w, "scores": {}, "pairs": {}, "flags": []}
              for t, w in enumerate(words)]
    signatures = {"completion": heldout["signature"]}
    first = None
    for name in data.measures:
        result = coherence(model, data.reference, measure=name, n_top=data.n_top)
        measures[name] = result.mean
        signatures[name] = str(result.signature)
        for t, score in enumerate(result.scores):
            topics[t]["scores"][name] = _finite(score)
            if first is None:
                topics[t]["pairs"] = {"measure": name, **_pairs(result, t)}
        first = first or result
    measures.update(flag_measures(model, data, first, topics))
    for fn in MODEL_MEASURES.values():
        measures.update(fn(model, data))
    for name, fn in TOPIC_MEASURES.items():
        for t, value in enumerate(fn(model, data)):
            topics[t]["scores"][name] = _finite(value)
    measures["signatures"] = signatures
    return {"measures": {k: _finite(v) if isinstance(v, float) else v for k, v in measures.items()},
            "topics": topics, "signature": heldout["signature"], "split_hash": heldout["split_hash"],
            "doc_loglik": heldout["doc_loglik"], "doc_words": heldout["doc_words"],
            "vocabulary_hash": words_hash(model.vocabulary_), "topic_word": np.asarray(model.topic_word_),
            "score_seconds": time.perf_counter() - start}
