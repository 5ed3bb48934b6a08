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

from tealeaves._docs import shared_doc
from tealeaves._params import renamed_attribute
from tealeaves.corpus import Corpus
from tealeaves.errors import TealeavesError


def _diversity(model, data) -> dict:
    """Topic diversity (top 25) and inverted RBO (top ``data.n_top``, p = 0.9), from :mod:`.comparison`.

    Diversity is ``None`` (documented) when the vocabulary has fewer than 25 words, inverted
    RBO when it has fewer than ``n_top``; the reason is in ``unavailable``.
    """
    from tealeaves.comparison import inverted_rbo, topic_diversity

    n_words = len(model.vocabulary_)
    out = {"diversity": topic_diversity(model, 25).value if n_words >= 25 else None,
           "irbo": inverted_rbo(model, data.n_top).value if n_words >= data.n_top else None}
    unavailable = {}
    if n_words < 25:
        unavailable["diversity"] = (f"the model's vocabulary has {n_words} words, fewer than the 25 top "
                                    "words topic diversity counts")
    if n_words < data.n_top:
        unavailable["irbo"] = (f"the model's vocabulary has {n_words} words, fewer than the {data.n_top} top "
                               "words inverted RBO ranks")
    return {**out, "unavailable": unavailable} if unavailable else out


#: The K-choice measures of :mod:`tealeaves.comparison.kchoice` stored per model (store keys).
KCHOICE_COLUMNS = ("arun2010", "cao_juan2009", "deveaud2014", "griffiths2004", "exclusivity", "frex")


def _kchoice(model, data) -> dict:
    """The ``ldatuning`` measures and ``stm``'s exclusivity (:mod:`tealeaves.comparison.kchoice`).

    Each is computed with its peer's defaults (Deveaud over the top 20 words, exclusivity over
    the top 10 with FREX weight 0.7; Griffiths after the sampler's own burn-in) and is
    ``None`` with a reason in ``unavailable`` where the model lacks its input: topic-word
    probabilities and two topics (all), a Gibbs sampler's log-likelihood trace (Griffiths),
    topic proportions of the training documents (Arun, from :func:`training_theta`).
    ``frex`` is the mean over topics of the mean FREX score of each topic's top 10 words.
    """
    from tealeaves.comparison import kchoice

    out: dict = dict.fromkeys(KCHOICE_COLUMNS)
    unavailable: dict = {}
    reason = not_probabilistic(model)
    if reason is None and len(model.topic_word_) < 2:
        reason = "the model has one topic; the K-choice measures compare two topics or more"
    if reason is not None:
        return {**out, "unavailable": dict.fromkeys(KCHOICE_COLUMNS, reason)}
    out["cao_juan2009"] = kchoice.cao_juan2009(model).value
    why = _exclusivity_reason(model)
    if why is None:
        excl = kchoice.exclusivity(model, EXCLUSIVITY_TOP)
        out.update(exclusivity=excl.value, frex=excl.details["mean_frex"])
    else:
        unavailable.update(exclusivity=why, frex=why)
    if len(model.vocabulary_) >= 20:
        out["deveaud2014"] = kchoice.deveaud2014(model).value
    else:
        unavailable["deveaud2014"] = (f"the model's vocabulary has {len(model.vocabulary_)} words, fewer "
                                      "than the 20 top words Deveaud 2014 compares")
    out["arun2010"], why = _arun(model, data)
    if why:
        unavailable["arun2010"] = why
    try:
        out["griffiths2004"] = kchoice.griffiths2004(model).value
    except TealeavesError as exc:  # no trace (not a tealeaves Gibbs sampler), or burn-in past the trace
        unavailable["griffiths2004"] = f"Griffiths 2004 needs a Gibbs sampler's log-likelihood trace: {exc}"
    return {**out, "unavailable": unavailable}


def _arun(model, data) -> tuple[float | None, str | None]:
    """Arun 2010 on the training documents, or ``(None, reason)``."""
    from tealeaves.comparison import kchoice

    theta, lengths, reason = training_theta(model, data)
    if reason is not None:
        return None, f"Arun 2010 needs the training documents' topic proportions: {reason}"
    if len(model.vocabulary_) < len(model.topic_word_):
        return None, "Arun 2010 needs at least as many words as topics"
    try:
        value = kchoice.arun2010(model, theta, lengths).value
    except TealeavesError as exc:  # e.g. a topic without mass in any training document
        return None, str(exc)
    if not math.isfinite(value):
        return None, ("the topic-word matrix has rank below K (two topics alike), so Arun 2010's "
                      "divergence is infinite")
    return value, None


#: Top words of the stored exclusivity and FREX (``stm::exclusivity``'s ``M=10``).
EXCLUSIVITY_TOP = 10


def _exclusivity_reason(model) -> str | None:
    """Why ``model`` gets no exclusivity (``None`` when it gets one)."""
    reason = not_probabilistic(model)
    if reason is None and len(model.topic_word_) < 2:
        reason = "the model has one topic; exclusivity compares a word's probability across topics"
    if reason is None and len(model.vocabulary_) < EXCLUSIVITY_TOP:
        reason = (f"the model's vocabulary has {len(model.vocabulary_)} words, fewer than the "
                  f"{EXCLUSIVITY_TOP} top words exclusivity sums over")
    return reason


def _topic_exclusivity(column: str):
    def per_topic(model, data) -> list:
        from tealeaves.comparison import kchoice

        if _exclusivity_reason(model) is not None:
            return [None] * len(model.top_words(1))
        return kchoice.exclusivity(model, EXCLUSIVITY_TOP).per_topic[column].tolist()

    per_topic.__doc__ = f"Each topic's ``{column}`` (:func:`tealeaves.comparison.kchoice.exclusivity`)."
    return per_topic


#: Per-model measures added by name: ``fn(model, data: SweepData) -> dict[str, float | None]``.
MODEL_MEASURES: dict[str, Callable] = {"diversity": _diversity, "kchoice": _kchoice}
#: Per-topic measures added by name: ``fn(model, data: SweepData) -> list[float | None]`` (one per topic).
TOPIC_MEASURES: dict[str, Callable] = {"exclusivity": _topic_exclusivity("exclusivity"),
                                       "frex": _topic_exclusivity("frex")}


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
    vectors : WordVectors or None, default None
        Word vectors for the word-embedding measures (:func:`tealeaves.comparison.octis.octis_measures`);
        without them those measures are ``None`` with the reason.
    """

    train: Corpus
    test: Corpus
    reference: object  # a tealeaves.coherence.ReferenceIndex
    measures: tuple[str, ...]
    n_top: int
    split_seed: int
    vectors: object = None  # a tealeaves.comparison.WordVectors

    top_n = renamed_attribute("top_n", "n_top", "SweepData")


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


@shared_doc
def corpus_hash(corpus: Corpus) -> str:
    """A short hash of a corpus: vocabulary, tokens, offsets and document ids.

    Parameters: %(corpus_hashed)s

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


@shared_doc
def not_probabilistic(model) -> str | None:
    """Why ``model`` gives no held-out likelihood (``None`` when it has topic-word probabilities).

    Parameters: %(sweep_model)s

    Returns
    -------
    str or None
        The model's own reason (``not_probabilistic_``, as the NMF and BERTopic adapters
        record it), a generic one when it has no ``topic_word_``, else ``None``.
    """
    if getattr(model, "topic_word_", None) is not None:
        return None
    reason = getattr(model, "not_probabilistic_", None)
    return str(reason) if reason else (f"{describe_model(model)} has no topic-word probabilities, so it "
                                       "gives no held-out likelihood")


def describe_model(model) -> str:
    """The model's description (``description()``), else its class name.

    Parameters
    ----------
    model : object
        The model.

    Returns
    -------
    str
        The description.
    """
    return str(model.description()) if hasattr(model, "description") else type(model).__name__


def vocabulary_coverage(model, test: Corpus) -> dict:
    """How much of ``test`` the model's vocabulary covers (``test`` is over the evaluation's words).

    A test word is matched to the model's column by its string; tokens of words the model
    lacks are dropped from its held-out scoring and counted here.

    Parameters
    ----------
    model : TopicModel
        The model (its ``vocabulary_``).
    test : Corpus
        The test documents.

    Returns
    -------
    dict
        ``test_tokens_dropped``, ``test_types_dropped`` (tokens and distinct words of ``test``
        not in the model's vocabulary) and ``test_tokens_known_share`` (share of ``test``'s
        tokens the model knows; ``None`` when ``test`` has no token).
    """
    index = model.vocabulary_.index
    known_type = np.array([w in index for w in test.vocabulary], dtype=bool)
    counts = np.bincount(test.tokens, minlength=len(test.vocabulary)) if test.n_tokens else \
        np.zeros(len(test.vocabulary), dtype=np.int64)
    dropped = int(counts[~known_type].sum())
    return {"test_tokens_dropped": dropped, "test_types_dropped": int(((counts > 0) & ~known_type).sum()),
            "test_tokens_known_share": (test.n_tokens - dropped) / test.n_tokens if test.n_tokens else None}


@shared_doc
def likelihood_measures(model, data: SweepData) -> tuple[dict, dict]:
    """``(measures, heldout)``: completion and baseline perplexities; per-document log-likelihoods.

    The test documents are matched to the model's vocabulary by word (test tokens of
    words the model lacks are dropped and counted, :func:`vocabulary_coverage`), and the
    baselines are defined over the model's vocabulary and scored on exactly its held-out
    words.  A model without topic-word probabilities (NMF, BERTopic) or without a way to
    infer topic proportions gets ``None`` for its own perplexities and its per-document
    record (``heldout_words``, ``documents_split``, ``documents_too_short``: their counts are
    in the reason), each with a reason in ``measures["unavailable"]``; its baselines are
    still scored.

    Parameters: %(sweep_model)s %(sweep_data)s

    Returns
    -------
    tuple of dict
        The likelihood measures, and the held-out record (``signature``, or ``None`` when
        the model has no held-out likelihood; ``split_hash``, ``doc_loglik``, ``doc_words``).

    Raises
    ------
    TealeavesError
        When a baseline scored other held-out words than the model (a bug).
    """
    from tealeaves.likelihood import baselines
    from tealeaves.likelihood.completion import prepare_test
    from tealeaves.sweep.engines import library_perplexity

    base = baselines(data.train, data.test, seed=data.split_seed, model=model)
    _, heldout, report = prepare_test(model, data.test, data.split_seed)
    measures = {"uniform_perplexity": base["uniform"].perplexity,
                "unigram_perplexity": base["unigram"].perplexity,
                "heldout_words": report.n_heldout_words, "documents_split": report.n_documents_split,
                "documents_too_short": report.n_skipped_too_short, **vocabulary_coverage(model, data.test)}
    result, reason = _completion(model, data)
    unavailable = {}
    if result is None:
        measures.update(completion_perplexity=None, completion_loglik_per_word=None)
        unavailable = {"completion_perplexity": reason, "completion_loglik_per_word": reason}
        # no per-document record: its counts go into the reason, so the store's record stays whole
        counts = (f"no held-out log-likelihood per document ({reason}); its baselines were scored on "
                  f"{report.n_heldout_words} held-out words of {report.n_documents_split} documents, "
                  f"{report.n_skipped_too_short} too short to split")
        for name in ("heldout_words", "documents_split", "documents_too_short"):
            measures[name] = None
            unavailable[name] = counts
        record = {"signature": None, "doc_loglik": np.zeros(0), "doc_words": np.zeros(0, dtype=np.int64)}
    else:
        _check_same_words(result, base)
        measures.update(completion_perplexity=result.perplexity,
                        completion_loglik_per_word=result.log_likelihood / result.n_heldout_words)
        record = {"signature": str(result.signature), "doc_loglik": result.document_log_likelihoods,
                  "doc_words": heldout.lengths}
    measures["library_perplexity"] = library_perplexity(model, data.test)
    if measures["library_perplexity"] is None:
        unavailable["library_perplexity"] = ("only the sweep's scikit-learn engine reports a perplexity "
                                             "of its own (its variational bound)")
    measures["unavailable"] = unavailable
    return measures, {**record, "split_hash": corpus_hash(heldout)}


def _completion(model, data: SweepData):
    """``(result, None)``, or ``(None, reason)`` when the model cannot give a held-out likelihood."""
    from tealeaves.errors import UnsupportedModelError
    from tealeaves.likelihood.completion import document_completion

    reason = not_probabilistic(model)
    if reason is not None:
        return None, reason
    try:
        return document_completion(model, data.test, seed=data.split_seed), None
    except UnsupportedModelError as exc:  # e.g. probabilities but no alpha and no native inference
        return None, str(exc)


def _pairs(result, topic: int) -> dict:
    matrix = result.pair_matrix(topic)
    return {"words": list(matrix.index),
            "values": [[_finite(v) for v in row] for row in matrix.to_numpy(dtype=float)]}


@shared_doc
def flag_measures(model, data: SweepData, first, topics: list[dict]) -> dict:
    """Topic significance and the junk-topic flags of one model (:mod:`tealeaves.comparison`).

    ``theta`` is the model's ``transform`` of the training documents, matched to the
    model's vocabulary by word (:func:`tealeaves.likelihood.align_corpus`; each document
    weighed by the tokens the model knows).  Per topic: ``kl_uniform``, ``kl_vacuous``,
    ``kl_background`` (AlSumait et al. 2009) go into its scores and the flags of
    :func:`~tealeaves.comparison.flags.flag_topics` (low-coherence and mixed from the first
    coherence measure, background, few-documents) into its ``flags``; low-recurrence needs
    other runs and is left to the report's hook.  A model that cannot infer topic
    proportions (NMF, BERTopic) gets the coherence flags only, ``significance`` ``None``
    and the reason in ``unavailable``.  Each topic's ``prevalence`` (:func:`topic_prevalence`,
    ``None`` without topic proportions) sizes its circle in the report's topic explorer.

    Parameters
    ----------
    %(sweep_model)s %(sweep_data)s
    first : CoherenceResult or None
        The result of the first coherence measure.
    topics : list of dict
        The per-topic records, updated in place.

    Returns
    -------
    dict
        The model's mean ``kl_vacuous`` (``significance``), the means of ``kl_uniform``,
        ``kl_vacuous`` and ``kl_background`` under their names, the flags' settings (``flags``)
        and ``unavailable`` (empty, or the reason they are ``None``).
    """
    from tealeaves.comparison import flag_topics, topic_significance

    theta, lengths, reason = training_theta(model, data)
    if reason is not None:
        for topic in topics:  # every model's topics carry the same score names: null here
            topic["scores"].update(dict.fromkeys(("kl_uniform", "kl_vacuous", "kl_background", "prevalence")))
        report = flag_topics(len(topics), coherence=first)
        why = f"no topic proportions to weigh topics by: {reason}"
        return {"significance": None, **dict.fromkeys(_KL_MEANS),
                "unavailable": {"significance": why, **dict.fromkeys(_KL_MEANS, why)},
                **_flag_record(report, topics)}
    significance = topic_significance(model, theta, lengths)
    for t, row in enumerate(significance.per_topic.to_dict(orient="records")):
        topics[t]["scores"].update({c: _finite(float(row[c])) for c in ("kl_uniform", "kl_vacuous",
                                                                        "kl_background")})
    for t, share in enumerate(topic_prevalence(theta, lengths)):
        topics[t]["scores"]["prevalence"] = _finite(float(share))
    report = flag_topics(len(topics), coherence=first, significance=significance, theta=theta,
                         doc_lengths=lengths)
    means = {c: float(significance.per_topic[c].mean()) for c in _KL_MEANS}
    return {"significance": significance.value, **means, "unavailable": {}, **_flag_record(report, topics)}


#: The model-level means of the per-topic KL distances of topic significance (store columns).
_KL_MEANS = ("kl_uniform", "kl_vacuous", "kl_background")


#: The last model's training topic proportions (:func:`training_theta`), so that they are inferred once.
_THETA: dict = {}


@shared_doc
def training_theta(model, data: SweepData) -> tuple:
    """``(theta, lengths, None)`` of the training documents, or ``(None, None, reason)``.

    ``theta`` is the model's ``transform`` of the training documents matched to the model's
    vocabulary by word (:func:`tealeaves.likelihood.align_corpus`; each document weighed by
    the tokens the model knows, ``lengths``).  The result of the last model is kept, so the
    significance, the flags and Arun 2010 infer it once.

    Parameters: %(sweep_model)s %(sweep_data)s

    Returns
    -------
    tuple
        ``(theta, lengths, reason)``: the ``D x K`` proportions and ``D`` token counts, or
        ``None`` twice and why the model gives no topic proportions.
    """
    from tealeaves.errors import UnsupportedModelError
    from tealeaves.likelihood import align_corpus

    key = (id(model), id(data))
    if _THETA.get("key") == key and _THETA.get("model") is model and _THETA.get("data") is data:
        return _THETA["value"]
    reason = not_probabilistic(model)
    value = (None, None, reason)
    if reason is None:
        train = align_corpus(data.train, model.vocabulary_, "training documents")
        try:
            value = (model.transform(train), train.lengths, None)
        except UnsupportedModelError as exc:  # e.g. probabilities but no alpha and no native inference
            value = (None, None, str(exc))
    _THETA.clear()
    _THETA.update(key=key, model=model, data=data, value=value)
    return value


def topic_prevalence(theta: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Each topic's share of the tokens, ``sum_d N_d theta_dk / sum_d N_d`` (LDAvis's topic frequency).

    Sievert and Shirley (2014) size a topic's circle on the intertopic distance map by this
    share: the document-topic proportions weighed by document length.

    Parameters
    ----------
    theta : numpy.ndarray
        ``D x K`` topic proportions of the documents.
    lengths : numpy.ndarray
        The documents' token counts.

    Returns
    -------
    numpy.ndarray
        ``K`` shares summing to 1 (uniform when no document has a token).
    """
    mass = np.asarray(lengths, dtype=np.float64) @ np.asarray(theta, dtype=np.float64)
    total = mass.sum()
    return mass / total if total > 0 else np.full(mass.size, 1.0 / mass.size)


def _flag_record(report, topics: list[dict]) -> dict:
    for flag in report.flags:
        topics[flag.topic]["flags"].append({"flag": flag.flag, "explanation": flag.explanation})
    return {"flags": {"checked": report.checked, "skipped": report.skipped,
                      "signature": str(report.signature)}}


@shared_doc
def score_model(model, data: SweepData) -> dict:
    """Every measure of one fitted model (see the module docstring), ready for the results store.

    The one scoring path of :func:`tealeaves.sweep.sweep` and :func:`tealeaves.sweep.evaluation.evaluate`.
    Every measure is a finite number or ``None``; each ``None`` has a reason in words in
    ``measures["unavailable"]`` (``{measure: reason}``).

    Parameters: %(sweep_model)s %(sweep_data)s

    Returns
    -------
    dict
        ``measures``, ``topics``, ``signature``, ``split_hash``, ``doc_loglik``, ``doc_words``,
        ``vocabulary_hash``, ``topic_word`` and ``score_seconds``.
    """
    from tealeaves.coherence import coherence

    start = time.perf_counter()
    measures, heldout = likelihood_measures(model, data)
    unavailable = measures.pop("unavailable")
    words = [[str(w) for w in t] for t in model.top_words(data.n_top)]
    topics = [{"topic": t, "top_words": w, "scores": {}, "pairs": {}, "flags": []}
              for t, w in enumerate(words)]
    signatures = {"completion": heldout["signature"]} if heldout["signature"] else {}
    first = None
    for name in data.measures:
        result = coherence(model, data.reference, measure=name, n_top=data.n_top)
        measures[name] = result.mean
        if result.mean is None:
            unavailable[name] = (f"no topic has two of its top {data.n_top} words in the reference "
                                 f"{data.reference.name}")
        signatures[name] = str(result.signature)
        for t, score in enumerate(result.scores):
            topics[t]["scores"][name] = _finite(score)
            if first is None:
                topics[t]["pairs"] = {"measure": name, **_pairs(result, t)}
        first = first or result
    measures["top_words_missing_from_reference"] = sum(len(t.missing) for t in first.topics) if first else 0
    flags = flag_measures(model, data, first, topics)
    unavailable.update(flags.pop("unavailable"))
    measures.update(flags)
    for fn in MODEL_MEASURES.values():
        out = dict(fn(model, data))
        unavailable.update(out.pop("unavailable", {}))
        measures.update(out)
    for name, fn in TOPIC_MEASURES.items():
        for t, value in enumerate(fn(model, data)):
            topics[t]["scores"][name] = _finite(value)
    measures["signatures"] = signatures
    measures = {k: _finite(v) if isinstance(v, float) else v for k, v in measures.items()}
    measures["unavailable"] = _reasons(measures, unavailable)
    return {"measures": measures, "topics": topics,
            "signature": heldout["signature"] or signatures[data.measures[0]],
            "split_hash": heldout["split_hash"], "doc_loglik": heldout["doc_loglik"],
            "doc_words": heldout["doc_words"], "vocabulary_hash": words_hash(model.vocabulary_),
            "topic_word": stored_topic_word(model), "score_seconds": time.perf_counter() - start}


def _reasons(measures: dict, unavailable: dict) -> dict:
    """One reason for every ``None`` measure (a non-finite value becomes ``None`` with its own)."""
    out = {k: v for k, v in unavailable.items() if measures.get(k) is None}
    for name, value in measures.items():
        if value is None and name not in out:
            out[name] = "the computation gave no finite value"
    return out


@shared_doc
def stored_topic_word(model) -> np.ndarray:
    """The ``K x V`` rows stored for a model: ``topic_word_``, else its weights normalised per topic.

    A model without probabilities (NMF, BERTopic) stores its non-negative ranking
    weights divided by each topic's sum, so stability and the topic views can be computed;
    they are not word probabilities (its held-out likelihood is ``None`` with a reason).

    Parameters: %(sweep_model)s

    Returns
    -------
    numpy.ndarray
        ``K x V`` float64 rows summing to one.

    Raises
    ------
    UnsupportedModelError
        When the weights have negative values or a topic sums to zero (e.g. LSI loadings).
    """
    from tealeaves.errors import UnsupportedModelError

    if getattr(model, "topic_word_", None) is not None:
        return np.asarray(model.topic_word_, dtype=np.float64)
    weights = np.asarray(model.topic_word_weights_, dtype=np.float64)
    sums = weights.sum(axis=1, keepdims=True)
    if (weights < 0).any() or not (sums > 0).all():
        raise UnsupportedModelError(f"{describe_model(model)} has negative or all-zero topic weights, which "
                                    "a results store cannot hold as rows over words",
                                    fix="evaluate it with tealeaves coherence instead")
    return weights / sums


def _octis(model, data: SweepData) -> dict:
    """OCTIS's model-level measures (:func:`tealeaves.comparison.octis.octis_measures`): the log-odds
    ratio; the word-embedding measures with ``data.vectors``; purity, NMI and the classifier's micro
    F1/precision/recall from the corpora's labels (single-label documents).  Each is ``None`` with
    its reason when the model or the data lacks what it needs."""
    from tealeaves.comparison.octis import octis_measures

    return octis_measures(model, data.train, data.test, vectors=data.vectors, n_top=data.n_top,
                          seed=data.split_seed)


MODEL_MEASURES["octis"] = _octis
