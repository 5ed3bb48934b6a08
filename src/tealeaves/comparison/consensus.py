"""A consensus of the topics that keep coming back across restarts (after gensim's ``EnsembleLda``).

Brigl (2019), *Extracting reliable topics using ensemble latent Dirichlet allocation*
(gensim's ``EnsembleLda``), pools the topics of ``R`` runs, clusters them with a
density-based clustering and keeps, as one model, the mean topic of every cluster dense
enough.  tealeaves follows the same three steps, with the density counted in *runs* so that
the rule reads "a topic recurs in at least ``min_share`` of the runs":

1. **Asymmetric distance** (gensim's ``mass`` masking): for topic ``i`` let ``M_i`` be its
   most probable words covering ``mass`` of its probability (gensim: the words with
   ``phi_iw >= `` the last sorted probability whose cumulative sum stays below ``mass``);
   ``d(i -> j) = 1 - cos(phi_i[M_i], phi_j[M_i])``, and ``1`` when ``phi_j`` puts at most
   0.05 of its mass on ``M_i`` (gensim's threshold).
2. **Cores and clusters** (gensim's CBDBSCAN, with its check-back, counted in runs):
   ``j`` is a neighbour of ``i`` when ``d(i -> j) < epsilon`` and ``j`` comes from another
   run; ``i`` is a *core* when its neighbours come from at least ``m - 1`` other runs, with
   ``m = ceil(min_share R)``.  Topics are visited by increasing distance to their nearest
   other topic (ties by position); a core not yet labelled starts a cluster, and the
   cluster grows from each core to its unlabelled neighbours (nearest first); a core
   reached from a parent core keeps the parent's cluster only if at least a quarter of
   the parent's neighbours are within ``epsilon`` of it (the check-back, which keeps a
   topic mixing two recurring topics from chaining their clusters); otherwise it starts
   a new one.
3. **Stable topics**: a cluster whose cores come from at least ``m`` distinct runs is
   kept; its consensus topic is the mean of its cores' distributions.  Clusters are
   ordered by the number of runs, then by the lowest position of a core.

The result is deterministic: it depends only on the runs given (fit them with fixed
seeds for a reproducible consensus) and their order.  Differences from gensim:
``min_samples`` and ``min_cores`` are replaced by the one share of runs, neighbours from
the topic's own run do not count, and gensim's second validation pass (clusters whose
cores also neighbour another valid cluster) is not done.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from tealeaves.comparison._common import (
    check_fraction,
    frame_records,
    model_name,
    topic_probabilities,
    vocabulary_of,
)
from tealeaves.comparison.errors import IncomparableError
from tealeaves.errors import ParameterError
from tealeaves.signature import Signature

#: gensim's ``_COSINE_DISTANCE_CALCULATION_THRESHOLD``: below this mass on the mask the distance is 1.
MASK_MASS_FLOOR = 0.05


@dataclass
class ConsensusResult:
    """The stable topics of several runs and how every run's topics were clustered.

    Parameters
    ----------
    model : FixedTopicModel or None
        The consensus model: one topic per stable cluster (``None`` when no topic recurs).
    clusters : pandas.DataFrame
        One row per stable cluster: ``topic`` (its index in ``model``), ``n_runs``,
        ``n_cores`` and ``members`` (``run:topic`` of its cores).
    assignments : pandas.DataFrame
        One row per input topic: ``run``, ``topic``, ``core`` (bool), ``cluster`` (the
        consensus topic, or -1 when not in a stable cluster).
    signature : Signature
        What was computed.
    """

    model: object | None
    clusters: pd.DataFrame = field(repr=False)
    assignments: pd.DataFrame = field(repr=False)
    signature: Signature = field(default=None)

    def to_dict(self) -> dict:
        """The result as a JSON-ready dictionary.

        Returns
        -------
        dict
            ``signature``, ``n_topics``, ``clusters`` and ``assignments`` records.
        """
        return {"signature": str(self.signature), "n_topics": len(self.clusters),
                "clusters": frame_records(self.clusters), "assignments": frame_records(self.assignments)}


def mass_mask(row: np.ndarray, mass: float) -> np.ndarray:
    """gensim's ``mass_masking``: the words at least as probable as the last one inside ``mass``.

    Parameters
    ----------
    row : numpy.ndarray
        A topic's word distribution.
    mass : float
        The probability mass to cover, in ``(0, 1]``.

    Returns
    -------
    numpy.ndarray
        A boolean mask over the words (at least the most probable word).
    """
    ordered = np.sort(row)[::-1]
    inside = ordered[np.cumsum(ordered) < mass]
    smallest = inside[-1] if len(inside) else ordered[0]
    return row >= smallest


def asymmetric_distances(phi: np.ndarray, mass: float = 0.95) -> np.ndarray:
    """``d(i -> j) = 1 - cos(phi_i[M_i], phi_j[M_i])`` for every pair of rows (module docstring, step 1).

    Parameters
    ----------
    phi : numpy.ndarray
        ``n x V`` topic-word distributions.
    mass : float, default 0.95
        The mass of a topic's mask.

    Returns
    -------
    numpy.ndarray
        The ``n x n`` distances, 0 on the diagonal.
    """
    n = phi.shape[0]
    out = np.ones((n, n))
    for i in range(n):
        mask = mass_mask(phi[i], mass)
        own = phi[i, mask]
        others = phi[:, mask]
        sums = others.sum(axis=1)
        norms = np.linalg.norm(others, axis=1) * np.linalg.norm(own)
        with np.errstate(divide="ignore", invalid="ignore"):
            cos = np.where(norms > 0, others @ own / norms, 0.0)
        out[i] = np.where(sums > MASK_MASS_FLOOR, 1.0 - cos, 1.0)
        out[i, i] = 0.0
    return out


def _clusters(dist: np.ndarray, runs: np.ndarray, epsilon: float,
              min_runs: int) -> tuple[np.ndarray, np.ndarray]:
    """Cores and cluster labels (module docstring, step 2): ``(is_core, label)`` with -1 for noise."""
    n = len(runs)
    dist = dist.copy()
    np.fill_diagonal(dist, 1.0)  # as gensim: a topic is not its own neighbour in the check-back
    other = runs[:, None] != runs[None, :]
    near = (dist < epsilon) & other
    neighbours = [np.flatnonzero(near[i])[np.argsort(dist[i, near[i]], kind="stable")] for i in range(n)]
    core = np.array([len(set(runs[nb])) >= min_runs - 1 for nb in neighbours])
    masked = np.where(other, dist, np.inf)
    order = np.argsort(masked.min(axis=1), kind="stable")
    label = np.full(n, -2)  # -2: not visited
    next_label = 0
    for start in order:
        if label[start] != -2:
            continue
        stack = [(int(start), -1, None)]
        while stack:
            t, current, parent_nb = stack.pop()
            if label[t] != -2:
                continue
            if not core[t]:
                label[t] = current
                continue
            if current == -1 or (dist[t, parent_nb] < epsilon).mean() < 0.25:
                current, next_label = next_label, next_label + 1
            label[t] = current
            family = np.append(neighbours[t], t)
            stack.extend((int(j), current, family) for j in neighbours[t][::-1] if label[j] == -2)
    return core, label


def _phis(runs: Sequence[object]) -> tuple[list[np.ndarray], list[str]]:
    if len(runs) < 2:
        raise ParameterError(f"a consensus needs at least two runs, got {len(runs)}",
                             fix="fit the model with several seeds")
    phis = [topic_probabilities(m, f"run {r}") for r, m in enumerate(runs)]
    vocab = vocabulary_of(runs[0], phis[0].shape[1], "run 0")
    for r, (m, phi) in enumerate(zip(runs, phis)):
        if vocabulary_of(m, phi.shape[1], f"run {r}") != vocab:
            raise IncomparableError(f"run {r} has another vocabulary than run 0",
                                    fix="fit every run on the same corpus and preprocessing")
    return phis, vocab


def consensus_topics(runs: Sequence[object], min_share: float = 0.5, epsilon: float = 0.1,
                     mass: float = 0.95) -> ConsensusResult:
    """The topics recurring in at least ``min_share`` of the runs, as one model (module docstring).

    Parameters
    ----------
    runs : sequence of fitted models
        Two or more probabilistic models (``topic_word_``) over the same vocabulary, e.g. one
        configuration fitted with several seeds (their numbers of topics may differ).
    min_share : float, default 0.5
        The least share of runs a topic must recur in, in ``(0, 1]`` (``m = ceil(min_share R)``).
    epsilon : float, default 0.1
        The largest distance of a neighbour (gensim's ``eps``), in ``(0, 1]``.
    mass : float, default 0.95
        The probability mass of each topic's mask, in ``(0, 1]``.

    Returns
    -------
    ConsensusResult
        The consensus model (a :class:`~tealeaves.models.base.FixedTopicModel`, or ``None``
        when no topic recurs), the clusters and every topic's assignment.

    Raises
    ------
    ParameterError
        If there are fewer than two runs or a parameter is out of range.
    InvalidModelError
        If a run has no topic-word probabilities.
    IncomparableError
        If the runs' vocabularies differ.
    """
    from tealeaves.models.base import FixedTopicModel

    min_share = check_fraction(min_share, "min_share", include_min=False)
    epsilon = check_fraction(epsilon, "epsilon", include_min=False)
    mass = check_fraction(mass, "mass", include_min=False)
    phis, vocab = _phis(runs)
    phi = np.vstack(phis)
    run_of = np.concatenate([np.full(p.shape[0], r) for r, p in enumerate(phis)])
    topic_of = np.concatenate([np.arange(p.shape[0]) for p in phis])
    min_runs = max(1, math.ceil(min_share * len(runs) - 1e-12))
    core, label = _clusters(asymmetric_distances(phi, mass), run_of, epsilon, min_runs)
    rows = []
    for lab in sorted(set(label[core].tolist())):
        members = np.flatnonzero(core & (label == lab))
        n_runs = len(set(run_of[members].tolist()))
        if n_runs >= min_runs:
            rows.append({"label": lab, "n_runs": n_runs, "n_cores": len(members), "first": int(members[0]),
                         "members": " ".join(f"{run_of[i]}:{topic_of[i]}" for i in members), "rows": members})
    rows.sort(key=lambda r: (-r["n_runs"], r["first"]))
    cluster_of = np.full(len(label), -1)
    for k, row in enumerate(rows):
        cluster_of[row["rows"]] = k
    fields = {"runs": len(runs), "share": min_share, "eps": epsilon, "mass": mass,
              "model": model_name(runs[0])}
    sig = Signature("consensus", fields)
    model = None
    if rows:
        topic_word = np.vstack([phi[r["rows"]].mean(axis=0) for r in rows])
        model = FixedTopicModel(topic_word / topic_word.sum(axis=1, keepdims=True), vocab,
                                metadata={"library": "tealeaves", "model": "consensus",
                                          "description": str(sig)})
    clusters = pd.DataFrame([{"topic": k, "n_runs": r["n_runs"], "n_cores": r["n_cores"],
                              "members": r["members"]} for k, r in enumerate(rows)],
                            columns=["topic", "n_runs", "n_cores", "members"])
    assignments = pd.DataFrame({"run": run_of, "topic": topic_of, "core": core, "cluster": cluster_of})
    return ConsensusResult(model, clusters, assignments, sig)

