"""Measures the report computes across runs: stability per configuration and the flags that need runs.

* :data:`STABILITY`: ``fn(results) -> pandas.DataFrame | None`` with columns ``config``,
  ``engine``, ``k``, ``n_runs``, ``mean_similarity``, ``low``, ``high``; default
  :func:`stability_table`;
* :data:`FLAGS`: ``fn(results) -> {(model, topic): [{"flag", "explanation"}, ...]}``: flags that need
  several runs, added to those the sweep stored per topic (low-coherence, mixed, background,
  few-documents; :func:`tealeaves.sweep.measures.flag_measures`); default :func:`recurrence_flags`.

Set either to ``None`` to leave it out, or to another function to replace it.

Runs are grouped by configuration (:func:`configs`): the store's ``config`` column when it has one,
else ``<engine>-K<k>``.  The recurrence rule (:func:`recurrence_flags`) needs at least
:data:`MIN_RUNS` runs of a configuration and judges each topic against the spread of the other
topics of the same configuration, so that a K whose topics are all somewhat unstable does not get
every topic flagged.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from tealeaves._docs import shared_doc

#: Least number of runs of one configuration before recurrence is judged (with two runs a topic's
#: recurrence is 0 or 1, decided by one other random start).
MIN_RUNS = 3

#: Tukey's fence multiplier: a topic's mean matched similarity is low when below Q1 - WHISKER * IQR
#: of its configuration's topics.
WHISKER = 1.5


@shared_doc
def configs(results) -> pd.Series:
    """The configuration of every model (row of ``results.models``): its ``config``, else ``<engine>-K<k>``.

    Parameters: %(report_results)s

    Returns: %(returns_per_model)s
    """
    models = results.models
    fallback = models["engine"].astype(str) + "-K" + models["k"].astype(int).astype(str)
    if "config" in models:
        return models["config"].where(models["config"].notna(), fallback).astype(str)
    return fallback


@shared_doc
def runs(results) -> pd.Series:
    """The run index of every model: its ``run``, else its ``seed``, else its order within its configuration.

    Parameters: %(report_results)s

    Returns: %(returns_per_model)s
    """
    models = results.models
    order = models.groupby(configs(results)).cumcount()
    for column in ("run", "seed"):
        if column in models:
            return pd.to_numeric(models[column], errors="coerce").fillna(order).astype(int)
    return order


def _stabilities(results) -> dict:
    """``{config: (engine, k, model names by run, StabilityResult)}`` for every configuration with >= 2 runs.

    :func:`tealeaves.comparison.topic_stability` on the stored topic-word rows, metric ``js``
    (1 - Jensen-Shannon distance), recurrence threshold 0.5; computed once per ``results``.
    """
    cached = getattr(results, "_stability_cache", None)
    if cached is not None:
        return cached
    from tealeaves.comparison import topic_stability

    models = results.models.assign(_config=configs(results), _run=runs(results))
    out = {}
    for config, rows in models.sort_values(["_config", "_run", "name"]).groupby("_config", sort=True):
        if len(rows) >= 2 and rows["k"].nunique() == 1:
            names = list(rows["name"])
            out[str(config)] = (str(rows["engine"].iloc[0]), int(rows["k"].iloc[0]), names,
                                topic_stability([results.topic_model(n) for n in names], "js"))
    results._stability_cache = out
    return out


@shared_doc
def stability_table(results) -> pd.DataFrame | None:
    """Per configuration: the mean matched similarity of its run pairs, lowest and highest pair.

    :func:`tealeaves.comparison.topic_stability` on the stored topic-word rows, metric
    ``js``, recurrence threshold 0.5, for every configuration with at least two runs.

    Parameters: %(report_results)s

    Returns
    -------
    pandas.DataFrame or None
        Columns ``config``, ``engine``, ``k``, ``n_runs``, ``mean_similarity``, ``low``, ``high``,
        ``mean_recurrence`` and ``signature``; ``None`` when no configuration has two runs.
    """
    rows = [{"config": config, "engine": engine, "k": k, "n_runs": len(names),
             "mean_similarity": res.summary["mean_similarity"],
             "low": res.summary["min_similarity"], "high": res.summary["max_similarity"],
             "mean_recurrence": res.summary["mean_recurrence"], "signature": str(res.signature)}
            for config, (engine, k, names, res) in sorted(_stabilities(results).items())]
    return pd.DataFrame(rows).sort_values(["engine", "k", "config"]).reset_index(drop=True) if rows else None


def recurrence_rule(min_recurrence: float = 0.5) -> str:
    """The recurrence rule in words (shown with the flag counts).

    Parameters
    ----------
    min_recurrence : float, default 0.5
        The recurrence threshold.

    Returns
    -------
    str
        One sentence.
    """
    return (f"low-recurrence: judged only for a configuration with at least {MIN_RUNS} runs; a topic is "
            f"flagged when it is matched (similarity 1 - Jensen-Shannon distance >= 0.5, optimal one-to-one "
            f"matching) in fewer than {min_recurrence:.0%} of the other runs AND its mean matched similarity "
            f"is below the lower fence (Q1 - {WHISKER} x IQR) of all topics of the same configuration")


@shared_doc
def recurrence_flags(results, min_recurrence: float = 0.5) -> dict:
    """``low-recurrence`` flags with their explanations (the rule of :func:`recurrence_rule`).

    For each configuration with at least :data:`MIN_RUNS` runs, a topic is flagged when both
    hold: it recurs (:func:`tealeaves.comparison.topic_stability`) in fewer than
    ``min_recurrence`` of the other runs, and its mean matched similarity to the other runs is
    below Tukey's lower fence ``Q1 - 1.5 IQR`` of the mean matched similarities of every topic
    of that configuration (relative to the spread at the same K).

    Parameters
    ----------
    %(report_results)s
    min_recurrence : float, default 0.5
        The recurrence threshold, in ``(0, 1]``.

    Returns
    -------
    dict
        ``{(model, topic): [{"flag": "low-recurrence", "explanation": str}]}`` for the flagged topics.
    """
    from tealeaves.comparison._common import check_fraction

    min_recurrence = check_fraction(min_recurrence, "min_recurrence", include_min=False)
    out: dict = {}
    for config, (_, _, names, res) in _stabilities(results).items():
        if len(names) < MIN_RUNS:
            continue
        topics = res.topics
        q1, q3 = np.percentile(topics["mean_similarity"], [25, 75])
        fence = q1 - WHISKER * (q3 - q1)
        low = topics[(topics["recurrence"] < min_recurrence) & (topics["mean_similarity"] < fence)]
        for run, topic, rec, sim in zip(low["run"], low["topic"], low["recurrence"], low["mean_similarity"]):
            others = len(names) - 1
            text = (f"matched in {round(rec * others)} of the {others} other runs of {config} "
                    f"(threshold {min_recurrence:.0%}); its mean matched similarity {sim:.2f} is below the "
                    f"lower fence {fence:.2f} of this configuration's topics (quartiles {q1:.2f}-{q3:.2f}): "
                    "it may be an artefact of this random start")
            out[(names[int(run)], int(topic))] = [{"flag": "low-recurrence", "explanation": text}]
    return out


STABILITY: Callable | None = stability_table
FLAGS: Callable | None = recurrence_flags


@shared_doc
def topic_flag_details(results) -> dict[tuple[str, int], list[dict]]:
    """``{(model, topic): [{"flag", "explanation"}, ...]}``: the stored flags plus those of :data:`FLAGS`.

    Parameters: %(report_results)s

    Returns
    -------
    dict
        Every flagged topic's flags, each with its explanation (computed once per ``results``).
    """
    cached = getattr(results, "_flag_cache", None)
    if cached is not None:
        return cached
    out: dict = {key: [dict(f) for f in flags] for key, flags in results.flag_records.items()}
    if FLAGS is not None:
        for key, extra in FLAGS(results).items():
            out.setdefault(key, []).extend(
                e if isinstance(e, dict) else {"flag": str(e), "explanation": ""} for e in extra)
    results._flag_cache = out
    return out


@shared_doc
def topic_flags(results) -> dict[tuple[str, int], list[str]]:
    """``{(model, topic): [flag, ...]}``: the names of the flags of :func:`topic_flag_details`.

    Parameters: %(report_results)s

    Returns
    -------
    dict
        The flags of every flagged topic.
    """
    return {key: [d["flag"] for d in details] for key, details in topic_flag_details(results).items()}
