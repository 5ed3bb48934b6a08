"""Measures the report computes across models: stability per K and flags that need several runs.

* :data:`STABILITY`: ``fn(results) -> pandas.DataFrame | None`` with columns ``engine``, ``k``,
  ``mean_similarity``, ``low``, ``high``; default :func:`stability_table`;
* :data:`FLAGS`: ``fn(results) -> {(model, topic): [flag, ...]}``: flags that need several
  runs, added to those the sweep stored per topic (low-coherence, mixed, background,
  few-documents; :func:`tealeaves.sweep.measures.flag_measures`); default
  :func:`recurrence_flags`.

Set either to ``None`` to leave it out, or to another function to replace it.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd


def _stabilities(results) -> dict:
    """``{(engine, k): (model names by seed, StabilityResult)}`` for every K fitted with >= 2 seeds.

    :func:`tealeaves.comparison.topic_stability` on the stored topic-word rows, metric ``js``
    (1 - Jensen-Shannon distance), recurrence threshold 0.5; computed once per ``results``.
    """
    cached = getattr(results, "_stability_cache", None)
    if cached is not None:
        return cached
    from tealeaves.comparison import topic_stability

    out = {}
    for (engine, k), rows in results.models.sort_values("seed").groupby(["engine", "k"]):
        if len(rows) >= 2:
            names = list(rows["name"])
            out[(engine, int(k))] = (names, topic_stability([results.topic_model(n) for n in names], "js"))
    results._stability_cache = out
    return out


def stability_table(results) -> pd.DataFrame | None:
    """Per engine and K: the mean matched similarity of the run pairs, lowest and highest.

    :func:`tealeaves.comparison.topic_stability` on the stored topic-word rows, metric
    ``js``, recurrence threshold 0.5, for every K fitted with at least two seeds.

    Parameters
    ----------
    results : Results
        A sweep's results store (:class:`~tealeaves.sweep.Results`).

    Returns
    -------
    pandas.DataFrame or None
        Columns ``engine``, ``k``, ``mean_similarity``, ``low``, ``high``,
        ``mean_recurrence`` and ``signature``; ``None`` when no K has two seeds.
    """
    rows = [{"engine": engine, "k": k, "mean_similarity": res.summary["mean_similarity"],
             "low": res.summary["min_similarity"], "high": res.summary["max_similarity"],
             "mean_recurrence": res.summary["mean_recurrence"], "signature": str(res.signature)}
            for (engine, k), (_, res) in sorted(_stabilities(results).items())]
    return pd.DataFrame(rows) if rows else None


def recurrence_flags(results, min_recurrence: float = 0.5) -> dict:
    """``low-recurrence`` for every topic of a K fitted with at least two seeds.

    A topic is flagged when it recurs in fewer than ``min_recurrence`` of the other runs
    (:func:`tealeaves.comparison.flags.low_recurrence_flags`).

    Parameters
    ----------
    results : Results
        A sweep's results store (:class:`~tealeaves.sweep.Results`).
    min_recurrence : float, default 0.5
        The threshold, in ``(0, 1]``.

    Returns
    -------
    dict
        ``{(model, topic): ["low-recurrence"]}`` for the flagged topics.
    """
    from tealeaves.comparison.flags import low_recurrence_flags

    out: dict = {}
    for names, res in _stabilities(results).values():
        for run, name in enumerate(names):
            recurrence = res.topics.loc[res.topics["run"] == run].sort_values("topic")["recurrence"]
            for flag in low_recurrence_flags(recurrence.to_numpy(), min_recurrence):
                out.setdefault((name, flag.topic), []).append(flag.flag)
    return out


STABILITY: Callable | None = stability_table
FLAGS: Callable | None = recurrence_flags


def topic_flags(results) -> dict:
    """``{(model, topic): [flag, ...]}``: the flags stored by the sweep plus those of :data:`FLAGS`.

    Parameters
    ----------
    results : Results
        A sweep's results store (:class:`~tealeaves.sweep.Results`).

    Returns
    -------
    dict
        The flags of every flagged topic.
    """
    out: dict = {}
    if "flags" in results.topics:
        topics = results.topics
        for model, topic, flags in zip(topics["model"], topics["topic"], topics["flags"]):
            out[(model, int(topic))] = list(flags)
    if FLAGS is not None:
        for key, extra in FLAGS(results).items():
            out.setdefault(key, []).extend(extra)
    return out
