"""The data of the report's topic explorer and two-model view, computed in Python and drawn by the page.

* :func:`intertopic_map`: the LDAvis-style map of one model's topics (Sievert and Shirley 2014):
  Jensen-Shannon distances between the topic-word rows (``sqrt(JSD)``, base 2, so in ``[0, 1]``;
  ``1 - tealeaves.comparison.similarity_matrix(model, model, "js")``) placed in two dimensions by
  classical multidimensional scaling (:func:`classical_mds`, Torgerson 1952);
* :func:`relevance`: the relevance of a word to a topic,
  ``lambda * log p(w|t) + (1 - lambda) * log(p(w|t) / p(w))`` (Sievert and Shirley 2014), with
  ``p(w) = sum_t p(t) p(w|t)``;
* :func:`relevance_candidates`: for each topic, every word that is among its ``n_words`` most
  relevant at some ``lambda`` of the slider's grid (``0, 0.01, ..., 1``), with the two logarithms, so
  the page ranks them exactly as :func:`relevance_ranking` does at every slider position;
* :func:`model_view` / :func:`pair_view`: everything the page shows for one model and for two.

Topic prevalence ``p(t)`` is the topics' stored ``prevalence`` score (each topic's share of the
training tokens, :func:`tealeaves.sweep.measures.topic_prevalence`); a model without one (NMF,
BERTopic: no topic proportions; a store written before it was recorded) counts every topic the
same, and the page says so.
"""

from __future__ import annotations

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves.sweep.results import frame_records

#: The relevance slider's grid: lambda from 0 to 1 in steps of 0.01.
LAMBDAS = np.round(np.linspace(0.0, 1.0, 101), 2)

#: Words shown per topic.
N_WORDS = 10


def classical_mds(distances, n_dims: int = 2) -> np.ndarray:
    """Classical (Torgerson) multidimensional scaling of a distance matrix.

    ``B = -1/2 J D^2 J`` with ``J = I - 11'/n``; the coordinates are the leading eigenvectors
    of ``B`` scaled by the square roots of their (non-negative) eigenvalues.

    Parameters
    ----------
    distances : array_like
        A symmetric ``n x n`` matrix of distances.
    n_dims : int, default 2
        Dimensions kept (fewer than ``n`` points: the missing ones are 0).

    Returns
    -------
    numpy.ndarray
        ``n x n_dims`` coordinates (signs fixed so each axis's largest coordinate is positive).
    """
    d = np.asarray(distances, dtype=float)
    n = d.shape[0]
    j = np.eye(n) - np.full((n, n), 1.0 / n)
    b = -0.5 * j @ (d ** 2) @ j
    values, vectors = np.linalg.eigh((b + b.T) / 2)
    order = np.argsort(values)[::-1][:n_dims]
    coords = vectors[:, order] * np.sqrt(np.clip(values[order], 0.0, None))
    for axis in range(coords.shape[1]):
        if np.abs(coords[:, axis]).max() > 0 and coords[np.argmax(np.abs(coords[:, axis])), axis] < 0:
            coords[:, axis] = -coords[:, axis]
    out = np.zeros((n, n_dims))
    out[:, :coords.shape[1]] = coords
    return out


def js_distances(model) -> np.ndarray:
    """Jensen-Shannon distances (``sqrt(JSD)``, base 2) between every pair of a model's topics.

    Parameters
    ----------
    model : object
        A fitted model with topic-word rows (e.g. ``SweepResults.topic_model(name)``).

    Returns
    -------
    numpy.ndarray
        The symmetric ``K x K`` matrix, zero on the diagonal.
    """
    from tealeaves.comparison.matching import similarity_matrix

    d = 1.0 - similarity_matrix(model, model, "js").to_numpy()
    d = np.clip((d + d.T) / 2, 0.0, 1.0)
    np.fill_diagonal(d, 0.0)
    return d


def intertopic_map(model) -> np.ndarray:
    """The topics' positions on the intertopic distance map (:func:`classical_mds` of :func:`js_distances`).

    Parameters
    ----------
    model : object
        A fitted model with topic-word rows.

    Returns
    -------
    numpy.ndarray
        ``K x 2`` coordinates.
    """
    return classical_mds(js_distances(model))


def word_marginal(topic_word, prevalence=None) -> np.ndarray:
    """``p(w) = sum_t p(t) p(w|t)`` (uniform ``p(t)`` when ``prevalence`` is None).

    Parameters
    ----------
    topic_word : array_like
        ``K x V`` rows, each summing to 1.
    prevalence : array_like or None, default None
        ``p(t)``, summing to 1.

    Returns
    -------
    numpy.ndarray
        ``p(w)``, length ``V``.
    """
    phi = np.asarray(topic_word, dtype=float)
    k = phi.shape[0]
    weights = np.full(k, 1.0 / k) if prevalence is None else np.asarray(prevalence, float)
    return weights @ phi


@shared_doc
def relevance(topic_word, p_word, topic: int, lam: float) -> np.ndarray:
    """``lambda log p(w|t) + (1 - lambda) log(p(w|t) / p(w))`` for every word (Sievert and Shirley 2014).

    Parameters: %(relevance_topic_word)s %(relevance_p_word)s %(relevance_topic)s %(relevance_lam)s

    Returns
    -------
    numpy.ndarray
        One relevance per word (``-inf`` where ``p(w|t) = 0``).
    """
    row = np.asarray(topic_word, dtype=float)[topic]
    with np.errstate(divide="ignore", invalid="ignore"):
        logp = np.log(row)
        lift = logp - np.log(np.asarray(p_word, dtype=float))
        out = lam * logp + (1.0 - lam) * lift
    return np.where(row > 0, out, -np.inf)


@shared_doc
def relevance_ranking(topic_word, p_word, topic: int, lam: float, n_words: int = N_WORDS) -> list[int]:
    """The ``n_words`` most relevant word ids of ``topic`` at ``lam``, most relevant first (ties: lower id).

    Parameters: %(relevance_topic_word)s %(relevance_p_word)s %(relevance_topic)s %(relevance_lam)s
    n_words : int, default 10
        Words returned.

    Returns
    -------
    list of int
        Word ids.
    """
    scores = relevance(topic_word, p_word, topic, lam)
    return [int(i) for i in np.lexsort((np.arange(scores.size), -scores))[:n_words]]


@shared_doc
def relevance_candidates(topic_word, p_word, n_words: int = N_WORDS) -> list[dict]:
    """Per topic: the words among its ``n_words`` most relevant at some lambda of :data:`LAMBDAS`.

    Parameters: %(relevance_topic_word)s %(relevance_p_word)s
    n_words : int, default 10
        Words shown per topic.

    Returns
    -------
    list of dict
        One ``{"ids", "logp", "loglift"}`` per topic (word ids ascending, natural logarithms).
    """
    phi = np.asarray(topic_word, dtype=float)
    with np.errstate(divide="ignore"):
        log_pw = np.log(np.asarray(p_word, dtype=float))
    out = []
    for row in phi:
        live = np.flatnonzero(row > 0)
        logp = np.log(row[live])
        lift = logp - log_pw[live]
        scores = LAMBDAS[:, None] * logp[None, :] + (1 - LAMBDAS)[:, None] * lift[None, :]
        n = min(n_words, live.size)
        # the n best at each lambda, ties broken by lower id as relevance_ranking does: keep every word
        # scoring at least the n-th best so the union surely holds them
        kth = -np.partition(-scores, n - 1, axis=1)[:, n - 1]
        keep = np.flatnonzero((scores >= kth[:, None]).any(axis=0))
        out.append({"ids": live[keep].tolist(), "logp": logp[keep].tolist(), "loglift": lift[keep].tolist()})
    return out


def _prevalence(results, name: str, k: int):
    topics = results.topics
    if "prevalence" not in topics:
        return None
    rows = topics[topics["model"] == name].sort_values("topic")["prevalence"].to_numpy(dtype=float)
    if rows.size != k or not np.isfinite(rows).all() or rows.sum() <= 0:
        return None
    return rows / rows.sum()


@shared_doc
def model_view(results, name: str, measures: list[str], flags: dict) -> dict:
    """Everything the explorer shows for one stored model.

    Parameters
    ----------
    %(report_results)s
    name : str
        The model.
    measures : list of str
        Per-topic score columns shown.
    flags : dict
        ``{(model, topic): [{"flag", "explanation"}]}`` (:func:`tealeaves.report.hooks.topic_flag_details`).

    Returns
    -------
    dict
        ``name``, ``k``, ``x``, ``y``, ``prevalence`` (``None``: uniform), ``topics`` (per topic:
        ``top_words``, ``scores``, ``flags``, ``pairs`` and the relevance ``candidates``).
    """
    model = results.topic_model(name)  # over the store's vocabulary, or the model's own
    phi = np.asarray(model.topic_word_, dtype=float)
    vocabulary = list(model.vocabulary_)
    k = phi.shape[0]
    prevalence = _prevalence(results, name, k)
    xy = intertopic_map(model)
    candidates = relevance_candidates(phi, word_marginal(phi, prevalence))
    rows = frame_records(results.topics[results.topics["model"] == name].sort_values("topic"))
    topics = []
    for t, (row, cand) in enumerate(zip(rows, candidates)):
        pairs = results.pairs.get((name, t)) or {}
        topics.append({"topic": t, "top_words": list(row.get("top_words", [])),
                       "scores": {m: _num(row.get(m)) for m in measures},
                       "flags": flags.get((name, t), []),
                       "pairs": {"words": pairs.get("words", []), "values": pairs.get("values", []),
                                 "measure": pairs.get("measure")},
                       "candidates": {"words": [vocabulary[i] for i in cand["ids"]],
                                      "ids": cand["ids"], "logp": cand["logp"], "loglift": cand["loglift"]}})
    return {"name": name, "k": k, "x": xy[:, 0].tolist(), "y": xy[:, 1].tolist(),
            "prevalence": None if prevalence is None else prevalence.tolist(), "topics": topics}


def _num(value):
    if value is None:
        return None
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if np.isfinite(value) else None


def pair_view(results, name_a: str, name_b: str, measure: str | None, n_boot: int = 1000) -> dict:
    """The two-model view: the matched topics (:func:`tealeaves.comparison.match_topics`, metric ``js``)
    and the paired differences with intervals (:func:`tealeaves.sweep.compare.compare_models`).

    Parameters
    ----------
    results : SweepResults
        The store holding both models.
    name_a, name_b : str
        The models.
    measure : str or None
        The coherence measure compared.
    n_boot : int, default 1000
        Bootstrap replicates of the intervals.

    Returns
    -------
    dict
        ``a``, ``b``, ``pairs`` (``topic_a``, ``topic_b``, ``similarity``, the words of each),
        ``mean_similarity``, ``unmatched_a``, ``unmatched_b`` and ``compare`` (the differences,
        or ``{"error": reason}`` when they cannot be computed).
    """
    from tealeaves.comparison import match_topics
    from tealeaves.errors import TealeavesError
    from tealeaves.sweep.compare import compare_models

    matching = match_topics(results.topic_model(name_a), results.topic_model(name_b), "js")
    pairs = [{"topic_a": int(r["topic_a"]), "topic_b": int(r["topic_b"]),
              "similarity": float(r["similarity"]),
              "words_a": str(r["words_a"]), "words_b": str(r["words_b"])}
             for r in matching.pairs.to_dict(orient="records")]
    try:
        compared = compare_models(results, name_a, results, name_b, measure, n_boot=n_boot)
    except (TealeavesError, KeyError, TypeError, ValueError) as exc:
        compared = {"error": str(exc)}
    return {"a": name_a, "b": name_b, "pairs": pairs, "mean_similarity": matching.mean_similarity,
            "unmatched_a": [int(t) for t in matching.unmatched_a],
            "unmatched_b": [int(t) for t in matching.unmatched_b], "compare": compared}


#: With at most this many models the two-model view holds every pair; with more, each configuration's
#: first run against its other runs and against the first run of every other configuration.
ALL_PAIRS_UP_TO = 8


@shared_doc
def model_pairs(results) -> list[tuple[str, str]]:
    """The pairs of stored models the two-model view precomputes (see :data:`ALL_PAIRS_UP_TO`).

    Parameters: %(report_results)s

    Returns
    -------
    list of tuple of str
        ``(a, b)`` model names, in the store's order.
    """
    from itertools import combinations

    from tealeaves.report import hooks

    models = results.models.assign(_config=hooks.configs(results), _run=hooks.runs(results))
    models = models.sort_values(["engine", "k", "_config", "_run", "name"])
    names = list(models["name"])
    if len(names) <= ALL_PAIRS_UP_TO:
        return list(combinations(names, 2))
    firsts = [str(g["name"].iloc[0]) for _, g in models.groupby("_config", sort=False)]
    out = list(combinations(firsts, 2))
    for _, group in models.groupby("_config", sort=False):
        first = str(group["name"].iloc[0])
        out += [(first, str(b)) for b in group["name"].iloc[1:]]
    return out


@shared_doc
def explorer_data(results, first_model: str, first_topic: int, measure: str | None) -> dict:
    """The explorer's and two-model view's data for the page (every model; the pairs of :func:`model_pairs`).

    Parameters
    ----------
    %(report_results)s
    first_model : str
        The model shown when the page opens.
    first_topic : int
        Its topic shown first.
    measure : str or None
        The coherence measure the two-model view compares.

    Returns
    -------
    dict
        ``models`` (name -> :func:`model_view`), ``order``, ``first``, ``n_words``, ``lambdas``,
        ``pairs`` (``"a|b"`` -> :func:`pair_view`) and ``pair_options`` (a -> [b, ...]).
    """
    from tealeaves.report import hooks
    from tealeaves.report.figures import coherence_measures

    flags = hooks.topic_flag_details(results)
    per_topic = [m for m in coherence_measures(results) if m in results.topics]
    per_topic += [c for c in ("kl_uniform", "kl_vacuous", "kl_background") if c in results.topics]
    order = list(results.models.sort_values(["engine", "k", "name"])["name"])
    views = {name: model_view(results, name, per_topic, flags) for name in order}
    pairs, options = {}, {}
    for a, b in model_pairs(results):
        pairs[f"{a}|{b}"] = pair_view(results, a, b, measure)
        options.setdefault(a, []).append(b)
    return {"models": views, "order": order, "first": {"model": first_model, "topic": int(first_topic)},
            "n_words": N_WORDS, "lambdas": LAMBDAS.tolist(), "pairs": pairs, "pair_options": options}
