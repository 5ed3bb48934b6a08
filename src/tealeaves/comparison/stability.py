"""Stability of topics across restarts: do the same topics come back with another seed?

The article's advice (``Choosing the number of topics``): refit with different
random starts and see whether the same topics reappear, "since topics that
appear only in some runs should not be trusted".  For ``R`` runs of one
configuration (same K):

* every pair of runs ``(r, s)`` is matched one to one by
  :func:`~tealeaves.comparison.matching.match_topics` (optimal assignment on a
  topic similarity, Greene, O'Callaghan and Cunningham 2014);
* topic ``k`` of run ``r`` gets, for every other run ``s``, the similarity
  ``sim_rs(k)`` of the topic it is matched to there;
* its **recurrence** is the share of the other runs where that similarity is at
  least ``threshold``: ``#{s != r : sim_rs(k) >= threshold} / (R - 1)``;
* its **mean matched similarity** is ``mean_{s != r} sim_rs(k)``;
* per configuration, the mean matched similarity of each pair of runs, and
  over the pairs their mean, standard deviation (``ddof=0``), minimum and maximum.

The default threshold depends on the metric (:data:`DEFAULT_THRESHOLDS`):
0.5 for ``js`` (``1 -`` Jensen-Shannon distance: the matched topics are closer
than half the largest possible distance), 0.7 for ``cosine``, 0.5 for
``jaccard`` (with 10 words: at least 7 shared, ``7 / 13 = 0.54``) and 0.5 for
``rbo``.  They are conventions, not
values from the literature: give ``threshold`` explicitly when it matters; the
signature records the one used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from tealeaves._docs import shared_doc
from tealeaves._params import renamed_parameters
from tealeaves.comparison._common import (
    N_TOP,
    check_fraction,
    frame_records,
    model_name,
    top_words,
    topic_weights,
)
from tealeaves.comparison.matching import METRICS, assign, matching_signature, similarity_matrix
from tealeaves.errors import EmptyInputError, ParameterError
from tealeaves.signature import Signature
from tealeaves.validation import check_choice, check_float, check_int

#: The recurrence threshold used when ``threshold=None``, per metric (see the module docstring).
DEFAULT_THRESHOLDS = {"js": 0.5, "cosine": 0.7, "jaccard": 0.5, "rbo": 0.5}


@dataclass
class StabilityResult:
    """Recurrence of every topic of every run, the run-pair similarities and their summary.

    Parameters
    ----------
    topics : pandas.DataFrame
        One row per (``run``, ``topic``) with ``recurrence``, ``mean_similarity``,
        ``min_similarity`` and ``words``.
    pairs : pandas.DataFrame
        One row per pair of runs with its ``mean_similarity`` and ``n_recurring``
        (matched pairs at or above the threshold).
    summary : dict
        The configuration's mean, std, min and max of the run-pair mean
        similarities and the mean recurrence.
    signature : Signature
        What was computed and how.
    """

    topics: pd.DataFrame
    pairs: pd.DataFrame
    summary: dict
    signature: Signature

    def recurrence(self, run: int = 0) -> np.ndarray:
        """The recurrence of the topics of ``run``, in topic order (for the ``low-recurrence`` flag).

        Parameters
        ----------
        run : int, default 0
            The run's index.

        Returns
        -------
        numpy.ndarray
            One share in ``[0, 1]`` per topic.

        Raises
        ------
        ParameterError
            If ``run`` is not in the result.
        """
        rows = self.topics[self.topics["run"] == run].sort_values("topic")
        if rows.empty:
            raise ParameterError(f"run {run} is not in this stability result ({self.summary['n_runs']} runs)")
        return rows["recurrence"].to_numpy()

    def to_dict(self) -> dict:
        """The result as a JSON-ready dictionary.

        Returns
        -------
        dict
            ``signature`` (a string), ``summary``, and the ``pairs`` and ``topics`` records.
        """
        return {"signature": str(self.signature), "summary": dict(self.summary),
                "pairs": frame_records(self.pairs), "topics": frame_records(self.topics)}


def _check_runs(runs: Sequence[object]) -> list[object]:
    runs = list(runs)
    if len(runs) < 2:
        raise EmptyInputError(f"stability compares at least two runs, got {len(runs)}",
                              fix="fit the model again with other seeds")
    ks = [topic_weights(m, f"run {i}").shape[0] for i, m in enumerate(runs)]
    if len(set(ks)) > 1:
        raise ParameterError(f"stability compares runs with the same number of topics, got K = "
                             f"{', '.join(map(str, ks))}",
                             fix="group the runs by K (stability_by_k) or use match_topics for two models")
    return runs


@renamed_parameters({"top_n": "n_top"})
@shared_doc
def topic_stability(runs: Sequence[object], metric: str = "js", threshold: float | None = None,
                    n_top: int = 10, p: float = 0.9, min_shared: float = 0.5) -> StabilityResult:
    """Recurrence and matched similarity of the topics of ``runs`` (fits of one configuration).

    See the module docstring for the definitions (Greene, O'Callaghan and
    Cunningham 2014).  Two runs with the same seed give similarity 1 and
    recurrence 1 for every topic.

    Parameters
    ----------
    runs : sequence of object
        At least two fitted models with the same number of topics.
    %(stability_metric)s %(stability_threshold)s %(stability_n_top)s %(stability_p)s %(stability_min_shared)s

    Returns
    -------
    StabilityResult
        Per-topic recurrence, run-pair similarities and their summary.

    Raises
    ------
    EmptyInputError
        If fewer than two runs are given.
    ParameterError
        If the runs have different numbers of topics or a parameter is invalid.
    """
    runs = _check_runs(runs)
    metric = check_choice(metric, "metric", METRICS)
    threshold = _check_threshold(metric, threshold)
    n_top = N_TOP.check(n_top)
    n_runs, k = len(runs), topic_weights(runs[0], "run 0").shape[0]
    matched = np.full((n_runs, k, n_runs), np.nan)  # matched[r, t, s]: similarity of r's topic t in run s
    pair_rows = []
    for r, s in combinations(range(n_runs), 2):
        sim = similarity_matrix(runs[r], runs[s], metric, n_top, p, min_shared).to_numpy()
        rows, cols = assign(sim)
        matched[r, rows, s] = sim[rows, cols]
        matched[s, cols, r] = sim[rows, cols]
        pair_rows.append({"run_a": r, "run_b": s, "mean_similarity": float(sim[rows, cols].mean()),
                          "n_recurring": int((sim[rows, cols] >= threshold).sum())})
    others = ~np.eye(n_runs, dtype=bool)
    topic_rows = []
    for r in range(n_runs):
        words = top_words(runs[r], 10, f"run {r}", require=False)
        vals = matched[r][:, others[r]]
        for t in range(k):
            topic_rows.append({"run": r, "topic": t, "recurrence": float((vals[t] >= threshold).mean()),
                               "mean_similarity": float(vals[t].mean()),
                               "min_similarity": float(vals[t].min()),
                               "words": " ".join(words[t])})
    topics, pairs = pd.DataFrame(topic_rows), pd.DataFrame(pair_rows)
    means = pairs["mean_similarity"].to_numpy()
    summary = {"k": k, "n_runs": n_runs, "mean_similarity": float(means.mean()),
               "std_similarity": float(means.std()), "min_similarity": float(means.min()),
               "max_similarity": float(means.max()), "mean_recurrence": float(topics["recurrence"].mean())}
    fields = dict(matching_signature(metric, n_top, p, runs[0]).fields)
    del fields["a"]
    fields.update(thr=threshold, runs=n_runs, models=[model_name(m) for m in runs])
    return StabilityResult(topics, pairs, summary, Signature("stability", fields))


def _check_threshold(metric: str, threshold: object) -> float:
    """The metric's default threshold, or ``threshold`` checked against the metric's range."""
    if threshold is None:
        return DEFAULT_THRESHOLDS[metric]
    if metric == "cosine":
        return check_float(threshold, "threshold", min_value=-1.0, max_value=1.0)
    return check_fraction(threshold, "threshold")


@renamed_parameters({"top_n": "n_top"})
@shared_doc
def stability_by_k(runs_by_k: Mapping[int, Sequence[object]], metric: str = "js",
                   threshold: float | None = None, n_top: int = 10, p: float = 0.9,
                   min_shared: float = 0.5) -> pd.DataFrame:
    """One row per K: the summary of :func:`topic_stability` over that K's runs.

    The columns are ``k``, ``n_runs``, mean/std/min/max of the run-pair mean matched
    similarity, ``mean_recurrence`` and the ``signature``.

    Parameters
    ----------
    runs_by_k : mapping of int to sequence of object
        Each K's runs; a run with another number of topics is refused.
    %(stability_metric)s %(stability_threshold)s %(stability_n_top)s %(stability_p)s %(stability_min_shared)s

    Returns
    -------
    pandas.DataFrame
        One row per K, in increasing K.

    Raises
    ------
    EmptyInputError
        If no runs are given.
    ParameterError
        If a run has another number of topics than its K.
    """
    if not runs_by_k:
        raise EmptyInputError("no runs given", fix="pass {K: [model, model, ...], ...}")
    rows = []
    for k, runs in sorted(runs_by_k.items()):
        k = check_int(k, "K", min_value=1)
        for i, m in enumerate(runs):
            got = topic_weights(m, f"run {i} of K={k}").shape[0]
            if got != k:
                raise ParameterError(f"run {i} listed under K={k} has {got} topics",
                                     fix="list each model under its own number of topics")
        res = topic_stability(runs, metric, threshold, n_top, p, min_shared)
        rows.append({**res.summary, "signature": str(res.signature)})
    return pd.DataFrame(rows)
