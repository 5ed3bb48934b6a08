"""Measures people use to choose the number of topics K: R's ``ldatuning``, ``stm``'s exclusivity.

The four measures of ``ldatuning`` (Murzintcev's R package; also
``tmtoolkit.topicmod.evaluate``), each a function of one fitted model, computed as
tmtoolkit computes them (the benchmark ``benchmarks/peers.py`` measures the parity):

* :func:`arun2010` -- Arun et al. (2010), minimise;
* :func:`cao_juan2009` -- Cao Juan et al. (2009), minimise;
* :func:`deveaud2014` -- Deveaud, SanJuan and Bellot (2014), maximise;
* :func:`griffiths2004` -- Griffiths and Steyvers (2004), maximise.

And ``stm``'s measures of Roberts et al. (2014) built on FREX (Bischof and Airoldi 2012):

* :func:`frex_scores` -- every word's FREX score in every topic;
* :func:`exclusivity` -- ``stm::exclusivity``, per topic and mean, the number
  ``stm::searchK`` plots against semantic coherence;
* :func:`frex_words` -- each topic's words ranked by FREX (``stm::labelTopics``).

:func:`top_topics` ranks a model's topics by coherence in one call, as gensim's
``LdaModel.top_topics``.

:data:`KCHOICE_DIRECTIONS` says which way is better for each stored measure.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pandas as pd

from tealeaves._params import Param
from tealeaves.comparison._common import N_TOP, Score, model_name, require_topics, topic_probabilities
from tealeaves.comparison.significance import _doc_lengths
from tealeaves.errors import InvalidModelError, ParameterError, UnsupportedModelError
from tealeaves.signature import Signature

#: Which way is better for each K-choice measure (``ldatuning::FindTopicsNumber_plot``'s two panels).
KCHOICE_DIRECTIONS = {"arun2010": "minimize", "cao_juan2009": "minimize", "deveaud2014": "maximize",
                      "griffiths2004": "maximize", "exclusivity": "maximize", "frex": "maximize"}

#: The values of ``compat`` of :func:`deveaud2014` (``None``: the default computation).
DEVEAUD_COMPAT = (None, "ldatuning")
#: The weight of exclusivity in FREX (:func:`frex_scores`).
FREX_WEIGHT = Param("weight", "float", min_value=0.0, max_value=1.0, help="weight of exclusivity in FREX")
#: Gibbs sweeps whose recorded log-likelihoods :func:`griffiths2004` drops.
BURN_IN = Param("burn_in", "int", min_value=0, help="sweeps of burn-in dropped from the trace")


def _phi(model: object, what: str) -> np.ndarray:
    phi = topic_probabilities(model)
    require_topics(phi.shape[0], 2, what)
    return phi


def _signature(measure: str, model: object, **fields) -> Signature:
    return Signature(measure, {**fields, "model": model_name(model)})


def cao_juan2009(model: object) -> Score:
    """Cao Juan et al. (2009): the mean cosine similarity between the topics (lower is better).

    ``mean_{i<j} cos(phi_i, phi_j)``, ``cos(x, y) = x.y / (|x| |y|)``, over the
    ``K (K - 1) / 2`` pairs of topic-word rows, as ``ldatuning::CaoJuan2009`` and tmtoolkit's
    ``metric_cao_juan_2009`` compute it.  Cao Juan, Xia Tian, Li Jintao, Zhang Yongdong and
    Tang Sheng (2009), *A density-based method for adaptive LDA model selection*,
    Neurocomputing 72(7-9), 1775-1781.

    Parameters
    ----------
    model : object
        A fitted probabilistic model (``topic_word_``) with at least two topics.

    Returns
    -------
    Score
        ``cao-juan2009``; ``n_pairs`` in its details.

    Raises
    ------
    InvalidModelError
        If the model has no valid topic-word probabilities.
    ParameterError
        If the model has fewer than two topics.
    """
    phi = _phi(model, "Cao Juan 2009")
    unit = phi / np.linalg.norm(phi, axis=1, keepdims=True)
    i, j = np.triu_indices(phi.shape[0], 1)
    cosines = np.einsum("pv,pv->p", unit[i], unit[j])
    return Score("cao-juan2009", float(cosines.mean()), _signature("cao-juan2009", model),
                 details={"n_pairs": int(cosines.size)})


def arun2010(model: object, theta: object, doc_lengths: object) -> Score:
    """Arun et al. (2010): symmetric KL of topic-word singular values and topic mass (lower is better).

    ``CM1`` is the vector of the ``K`` singular values of the ``K x V`` topic-word matrix
    (descending) and ``CM2 = L theta`` the topics' mass in the documents, ``L`` the row of
    document lengths ``N_d`` and ``theta`` the ``D x K`` document-topic proportions, sorted
    descending; both are normalised to sum to one and

        Arun = KL(CM1 || CM2) + KL(CM2 || CM1) = sum_k (CM1_k - CM2_k) log(CM1_k / CM2_k)

    (natural logarithms), as tmtoolkit's ``metric_arun_2010`` computes it.  R's
    ``ldatuning::Arun2010`` neither normalises ``CM1`` nor sorts ``CM2`` and divides ``CM2``
    by a norm of ``L`` (see ``docs/peers.md``).  Arun, Suresh, Veni Madhavan and Narasimha
    Murthy (2010), *On finding the natural number of topics with latent Dirichlet
    allocation: some observations*, PAKDD, LNCS 6118, 391-402.

    A model whose topic-word matrix has rank below ``K`` (two identical topics) has a zero
    singular value and an infinite divergence: the value is ``inf`` (documented), as the
    formula gives.  Rank is judged as ``numpy.linalg.matrix_rank`` judges it: a singular value
    at most ``s_max max(K, V) eps`` is rounding error and counts as zero.  (LAPACK returns such a
    matrix's last singular value as 0 or as about 1e-17 depending on the build, which would
    make tmtoolkit's value a machine-dependent finite number near 19.)

    Parameters
    ----------
    model : object
        A fitted probabilistic model (``topic_word_``), at least two topics and no more topics
        than words.
    theta : array_like
        ``D x K`` topic proportions of the training documents (``model.transform(corpus)``,
        or a Gibbs sampler's ``doc_topic_``).
    doc_lengths : array_like
        The ``D`` documents' token counts (``corpus.lengths``).

    Returns
    -------
    Score
        ``arun2010``; ``cm1`` and ``cm2`` (the two normalised vectors) in its details.

    Raises
    ------
    InvalidModelError
        If the model has no valid probabilities, ``theta`` is not ``D x K`` proportions,
        ``doc_lengths`` does not fit it, or a topic has no mass in any document.
    ParameterError
        If the model has fewer than two topics or more topics than words.
    """
    from scipy.special import rel_entr

    from tealeaves.likelihood._perplexity import check_proportions

    phi = _phi(model, "Arun 2010")
    k, v = phi.shape
    if v < k:
        raise ParameterError(f"Arun 2010 compares K={k} singular values with K topic masses, but the "
                             f"vocabulary has only {v} words (at most {v} singular values)",
                             fix="use a model with no more topics than words")
    theta = np.asarray(theta, dtype=np.float64)
    if theta.ndim != 2:
        raise InvalidModelError(f"theta must be a D x K array, got shape {theta.shape}")
    theta = check_proportions(theta, theta.shape[0], k)
    lengths = _doc_lengths(doc_lengths, theta.shape[0])
    cm1 = _singular_values(phi)
    cm1 = cm1 / cm1.sum()
    cm2 = -np.sort(-(lengths @ theta))
    if cm2[-1] <= 0:
        raise InvalidModelError("a topic has no mass in any document of theta, so Arun 2010's topic "
                                "distribution has a zero and the divergence is undefined")
    cm2 = cm2 / cm2.sum()
    value = float(rel_entr(cm1, cm2).sum() + rel_entr(cm2, cm1).sum())
    sig = _signature("arun2010", model, docs=theta.shape[0])
    return Score("arun2010", value, sig, details={"cm1": cm1.tolist(), "cm2": cm2.tolist()})


def _singular_values(matrix: np.ndarray) -> np.ndarray:
    """The singular values of ``matrix``, descending, those within rounding of zero set to 0.

    Parameters
    ----------
    matrix : numpy.ndarray
        A ``K x V`` matrix.

    Returns
    -------
    numpy.ndarray
        ``K`` values; one at most ``s_max max(K, V) eps`` (the tolerance of
        ``numpy.linalg.matrix_rank``, after Press et al., *Numerical Recipes*, 2nd ed., §2.6)
        is exactly 0.
    """
    values = np.linalg.svd(matrix, compute_uv=False)
    tolerance = values.max(initial=0.0) * max(matrix.shape) * np.finfo(np.float64).eps
    return np.where(values > tolerance, values, 0.0)


def _top_indices(row: np.ndarray, n: int) -> np.ndarray:
    """The ``n`` largest entries' indices, largest first, ties by index."""
    return np.argsort(-row, kind="stable")[:n]


def deveaud2014(model: object, n_top: int = 20, compat: str | None = None) -> Score:
    """Deveaud, SanJuan and Bellot (2014): the mean divergence between topics (higher is better).

    Default (tmtoolkit's ``metric_deveaud_2014``): for each pair of topics ``i < j``, with
    ``W = top_n(i) ∩ top_n(j)`` the words among both topics' ``n_top`` most probable,

        JSD_ij = 1/2 sum_{w in W} phi_iw log2(phi_iw / m_w) + 1/2 sum_{w in W} phi_jw log2(phi_jw / m_w),
        m_w = (phi_iw + phi_jw) / 2,

    and ``JSD_ij = 1`` when ``W`` is empty (the largest value); the measure is
    ``sum_{i<j} JSD_ij / (K (K - 1))``.  The probabilities over ``W`` are not renormalised.

    ``compat="ldatuning"``: ``ldatuning::Deveaud2014``, every word instead of the top words,
    natural logarithms and the symmetrised KL ``1/2 KL(phi_i || phi_j) + 1/2 KL(phi_j ||
    phi_i)``, with ``2.2250738585072014e-308`` (R's ``.Machine$double.xmin``) added to every
    probability when any is zero, ``sum_{i<j} / (K (K - 1))``.

    Deveaud, SanJuan and Bellot (2014), *Accurate and effective latent concept modeling for
    ad hoc information retrieval*, Document numérique 17(1), 61-84.

    Parameters
    ----------
    model : object
        A fitted probabilistic model (``topic_word_``) with at least two topics.
    n_top : int, default 20
        Top words per topic (tmtoolkit's ``n=20``); ignored with ``compat="ldatuning"``.
    compat : {None, "ldatuning"}, default None
        Which peer's computation to reproduce (see above).

    Returns
    -------
    Score
        ``deveaud2014``; ``n_pairs`` and ``disjoint_pairs`` (pairs without a shared top word)
        in its details.

    Raises
    ------
    InvalidModelError
        If the model has no valid topic-word probabilities.
    ParameterError
        If the model has fewer than two topics, ``n_top`` exceeds the vocabulary or ``compat``
        is unknown.
    """
    if compat not in DEVEAUD_COMPAT:
        raise ParameterError(f"compat={compat!r} is not one of {list(DEVEAUD_COMPAT)}",
                             fix="leave compat unset or use 'ldatuning'")
    phi = _phi(model, "Deveaud 2014")
    k = phi.shape[0]
    if compat == "ldatuning":
        return _deveaud_ldatuning(model, phi)
    n_top = N_TOP.check(n_top)
    if n_top > phi.shape[1]:
        raise ParameterError(f"n_top={n_top} is larger than the vocabulary ({phi.shape[1]} words)",
                             fix="choose a smaller n_top")
    tops = [set(_top_indices(row, n_top).tolist()) for row in phi]
    total, disjoint = 0.0, 0
    for i, j in combinations(range(k), 2):
        shared = sorted(tops[i] & tops[j])
        if not shared:
            total += 1.0
            disjoint += 1
            continue
        x, y = phi[i, shared], phi[j, shared]
        m = 0.5 * (x + y)
        total += 0.5 * float(np.sum(x * np.log2(x / m))) + 0.5 * float(np.sum(y * np.log2(y / m)))
    sig = _signature("deveaud2014", model, top=n_top)
    return Score("deveaud2014", total / (k * (k - 1)), sig,
                 details={"n_pairs": k * (k - 1) // 2, "disjoint_pairs": disjoint})


def _deveaud_ldatuning(model: object, phi: np.ndarray) -> Score:
    """``ldatuning::Deveaud2014`` (see :func:`deveaud2014`)."""
    k = phi.shape[0]
    if (phi == 0).any():
        phi = phi + np.finfo(np.float64).tiny
    log = np.log(phi)
    total = 0.0
    for i, j in combinations(range(k), 2):
        diff = log[i] - log[j]
        total += 0.5 * float(np.sum(phi[i] * diff)) + 0.5 * float(np.sum(phi[j] * -diff))
    sig = _signature("deveaud2014", model, compat="ldatuning")
    return Score("deveaud2014", total / (k * (k - 1)), sig, details={"n_pairs": k * (k - 1) // 2})


def log_likelihood_trace(model: object, burn_in: int | None = None) -> tuple[np.ndarray, int]:
    """A Gibbs sampler's recorded log-likelihoods after ``burn_in`` sweeps, and the burn-in used.

    Parameters
    ----------
    model : object
        A model with ``log_likelihood_trace_`` and ``log_likelihood_iterations_`` (tealeaves'
        :class:`~tealeaves.models.GibbsLDA` and :class:`~tealeaves.models.PolylingualTopicModel`).
    burn_in : int or None, default None
        Values recorded at sweeps ``<= burn_in`` are dropped; ``None`` takes the model's
        ``optimize_burn_in`` (the sweeps before its first hyperparameter optimisation), 0 keeps
        every value.

    Returns
    -------
    tuple
        The kept values (float64) and the burn-in applied.

    Raises
    ------
    UnsupportedModelError
        If the model records no trace (not a tealeaves Gibbs sampler, or loaded from a file
        that does not keep it).
    ParameterError
        If ``burn_in`` is negative or leaves no value.
    """
    trace = getattr(model, "log_likelihood_trace_", None)
    iterations = getattr(model, "log_likelihood_iterations_", None)
    if trace is None or iterations is None or len(trace) == 0:
        raise UnsupportedModelError(f"{model_name(model)} records no log-likelihood trace of a Gibbs sampler",
                                    fix="fit tealeaves' GibbsLDA or PolylingualTopicModel, or pass "
                                        "log_likelihoods")
    if burn_in is None:
        burn_in = int(getattr(model, "optimize_burn_in", 0) or 0)
    burn_in = BURN_IN.check(burn_in)
    values = np.asarray(trace, dtype=np.float64)
    kept = values[np.asarray(iterations) > burn_in]
    if kept.size == 0:
        raise ParameterError(f"burn_in={burn_in} drops every recorded log-likelihood (the last was recorded "
                             f"at sweep {int(np.max(iterations))})", fix="choose a smaller burn_in")
    return kept, burn_in


def griffiths2004(model: object = None, log_likelihoods: object = None, burn_in: int | None = None) -> Score:
    """Griffiths and Steyvers (2004): the harmonic mean of a Gibbs sampler's likelihoods (higher is better).

    ``log HM = -log( (1/S) sum_s exp(-l_s) ) = median(l) - log( (1/S) sum_s exp(median(l) - l_s) )``
    over the ``S`` recorded log-likelihoods ``l_s`` after burn-in (the median shift of
    Ponweiser 2012, p. 36, as ``ldatuning::Griffiths2004`` and tmtoolkit's
    ``metric_griffiths_2004``; here the sum is a log-sum-exp in float64 instead of
    arbitrary precision).  Griffiths and Steyvers (2004), *Finding scientific topics*, PNAS
    101(suppl. 1), 5228-5235, estimate ``log p(w | K)`` by the harmonic mean of
    ``p(w | z)``; tealeaves' samplers record the joint ``log p(w, z)`` (MALLET's
    ``modelLogLikelihood``), as the ``lda`` package's ``loglikelihoods_`` that tmtoolkit
    reads.

    Parameters
    ----------
    model : object, optional
        A tealeaves Gibbs sampler (:func:`log_likelihood_trace`); or give ``log_likelihoods``.
    log_likelihoods : array_like, optional
        The recorded values, burn-in already removed (tmtoolkit's ``logliks``).
    burn_in : int or None, default None
        With ``model``: see :func:`log_likelihood_trace`.

    Returns
    -------
    Score
        ``griffiths2004``; ``n_values`` and ``burn_in`` in its details.

    Raises
    ------
    UnsupportedModelError
        If ``model`` records no trace.
    ParameterError
        If neither or both inputs are given, the values are empty or not finite, or
        ``burn_in`` is invalid.
    """
    if (model is None) == (log_likelihoods is None):
        raise ParameterError("griffiths2004 needs exactly one of model and log_likelihoods")
    if model is not None:
        values, burn_in = log_likelihood_trace(model, burn_in)
    else:
        values = np.asarray(log_likelihoods, dtype=np.float64).ravel()
        if values.size == 0 or not np.isfinite(values).all():
            raise ParameterError("log_likelihoods must be a non-empty list of finite numbers")
    from scipy.special import logsumexp

    median = float(np.median(values))
    value = median - float(logsumexp(median - values) - math.log(values.size))
    fields = {"burn": burn_in} if model is not None else {}
    sig = Signature("griffiths2004", {**fields, "values": int(values.size),
                                      "model": model_name(model) if model is not None else "trace"})
    return Score("griffiths2004", value, sig, details={"n_values": int(values.size), "burn_in": burn_in})


def _exclusivity_phi(model: object) -> np.ndarray:
    return _phi(model, "exclusivity")


def _ecdf_ranks(values: np.ndarray) -> np.ndarray:
    """Column-wise ``rank(x) / n`` with ties averaged (R's ``rank``), ``n`` the column's length."""
    from scipy.stats import rankdata

    return rankdata(values, method="average", axis=1) / values.shape[1]


def frex_scores(model: object, weight: float = 0.7) -> np.ndarray:
    """Every word's FREX score in every topic (Bischof and Airoldi 2012, as ``stm`` computes it).

    With the exclusivity ``E_kw = phi_kw / sum_j phi_jw`` and the empirical CDFs over the
    words of one topic, ``ECDF_k(x) = rank of x among topic k's values / V`` (ties averaged,
    R's ``rank``),

        FREX_kw = ( weight / ECDF_k(E_kw) + (1 - weight) / ECDF_k(phi_kw) )^-1,

    a weighted harmonic mean of the exclusivity and frequency quantiles.  ``weight`` weighs
    exclusivity, as ``stm::exclusivity(frexw=0.7)``; ``stm``'s ``calcfrex(w)`` and
    ``labelTopics(frexweight=w)`` put ``w`` on frequency, i.e. ``weight = 1 - w``.  A word
    no topic gives probability has exclusivity 0 (documented; ``stm`` divides by zero).

    Parameters
    ----------
    model : object
        A fitted probabilistic model (``topic_word_``) with at least two topics.
    weight : float, default 0.7
        The weight of exclusivity, in ``[0, 1]``.

    Returns
    -------
    numpy.ndarray
        ``K x V`` scores in ``(0, 1]``.

    Raises
    ------
    InvalidModelError
        If the model has no valid topic-word probabilities.
    ParameterError
        If the model has fewer than two topics or ``weight`` is out of range.
    """
    weight = FREX_WEIGHT.check(weight)
    phi = _exclusivity_phi(model)
    totals = phi.sum(axis=0)
    excl = np.divide(phi, totals, out=np.zeros_like(phi), where=totals > 0)
    return 1.0 / (weight / _ecdf_ranks(excl) + (1.0 - weight) / _ecdf_ranks(phi))


def exclusivity(model: object, n_top: int = 10, weight: float = 0.7) -> Score:
    """``stm::exclusivity``: each topic's FREX scores summed over its top words (higher is better).

    ``exclusivity_k = sum_{w in top_n(k)} FREX_kw`` (:func:`frex_scores` with ``weight`` on
    exclusivity; ``top_n(k)`` the ``n_top`` most probable words, ties by word id), the
    measure Roberts et al. (2014) proposed beside semantic coherence for choosing K and
    ``stm::searchK`` reports (its mean over topics).  The per-topic table also holds
    ``frex``, the mean FREX of the top words, ``exclusivity_k / n_top`` (on ``(0, 1]``,
    comparable across ``n_top``).  Roberts, Stewart, Tingley et al. (2014), *Structural topic
    models for open-ended survey responses*, AJPS 58(4), 1064-1082; Bischof and Airoldi
    (2012), *Summarizing topical content with word frequency and exclusivity*, ICML.

    Parameters
    ----------
    model : object
        A fitted probabilistic model (``topic_word_``) with at least two topics.
    n_top : int, default 10
        Top words per topic (``stm``'s ``M=10``).
    weight : float, default 0.7
        The weight of exclusivity in FREX (``stm``'s ``frexw=0.7``).

    Returns
    -------
    Score
        ``exclusivity`` (mean over topics); ``per_topic`` holds ``topic``, ``exclusivity``
        and ``frex``; ``mean_frex`` in its details.

    Raises
    ------
    InvalidModelError
        If the model has no valid topic-word probabilities.
    ParameterError
        If the model has fewer than two topics, or ``n_top`` or ``weight`` is invalid.
    """
    n_top = N_TOP.check(n_top)
    frex = frex_scores(model, weight)
    phi = _exclusivity_phi(model)
    if n_top > phi.shape[1]:
        raise ParameterError(f"n_top={n_top} is larger than the vocabulary ({phi.shape[1]} words)",
                             fix="choose a smaller n_top")
    per_topic = np.array([frex[k, _top_indices(phi[k], n_top)].sum() for k in range(phi.shape[0])])
    frame = pd.DataFrame({"topic": np.arange(phi.shape[0]), "exclusivity": per_topic,
                          "frex": per_topic / n_top})
    sig = _signature("exclusivity", model, top=n_top, w=weight)
    return Score("exclusivity", float(per_topic.mean()), sig, frame,
                 details={"mean_frex": float(per_topic.mean() / n_top)})


def frex_words(model: object, n_top: int = 10, weight: float = 0.5) -> list[list[str]]:
    """Each topic's words ranked by FREX, best first (``stm::labelTopics``'s "FREX" row).

    Parameters
    ----------
    model : object
        A fitted probabilistic model (``topic_word_``, ``vocabulary_``) with two topics or more.
    n_top : int, default 10
        Words per topic.
    weight : float, default 0.5
        The weight of exclusivity (``labelTopics``' default ``frexweight=0.5`` on frequency is
        the same balance).

    Returns
    -------
    list of list of str
        ``K`` lists of ``n_top`` words (ties by word id).

    Raises
    ------
    InvalidModelError
        If the model has no valid topic-word probabilities or vocabulary.
    ParameterError
        If the model has fewer than two topics, or ``n_top`` or ``weight`` is invalid.
    """
    from tealeaves.comparison._common import vocabulary_of

    n_top = N_TOP.check(n_top)
    frex = frex_scores(model, weight)
    words = vocabulary_of(model, frex.shape[1])
    if n_top > len(words):
        raise ParameterError(f"n_top={n_top} is larger than the vocabulary ({len(words)} words)",
                             fix="choose a smaller n_top")
    return [[words[i] for i in _top_indices(row, n_top)] for row in frex]


def top_topics(model: object, reference: object, measure: str = "umass", n_top: int = 20,
               **settings) -> list[tuple[list[tuple[float, str]], float | None]]:
    """The model's topics ranked by coherence, best first (gensim's ``LdaModel.top_topics``).

    Each topic's ``n_top`` words with their weights and its coherence
    (:func:`tealeaves.coherence.coherence` with ``measure`` and ``settings``); sorted by
    score, highest first, topics without a score (``None``: fewer than two of their words in
    the reference) last, ties in topic order.  gensim's defaults: ``coherence="u_mass"``,
    ``topn=20``; its ``(probability, word)`` pairs.

    Parameters
    ----------
    model : object
        A fitted tealeaves model (weights from ``topic_word_`` or ``topic_word_weights_``).
    reference : object
        The coherence reference (as :func:`tealeaves.coherence.coherence` takes it).
    measure : str, default "umass"
        The coherence preset.
    n_top : int, default 20
        Words per topic.
    **settings
        Overrides of the preset's settings.

    Returns
    -------
    list of tuple
        ``(words, score)`` per topic, ``words`` a list of ``(weight, word)``, best first.

    Raises
    ------
    InvalidModelError
        If the model is not a valid topic model.
    ParameterError
        If ``n_top`` is invalid.
    """
    from tealeaves.coherence import coherence
    from tealeaves.comparison._common import top_words, topic_weights, vocabulary_of

    words = top_words(model, n_top, "model")
    weights = topic_weights(model)
    index = {w: i for i, w in enumerate(vocabulary_of(model, weights.shape[1]))}
    result = coherence(model, reference, measure=measure, n_top=n_top, **settings)
    rows = [([(float(weights[k, index[w]]), w) for w in topic], score)
            for k, (topic, score) in enumerate(zip(words, result.scores))]
    order = sorted(range(len(rows)), key=lambda k: (rows[k][1] is None, -(rows[k][1] or 0.0), k))
    return [rows[k] for k in order]
