"""Paired comparison of two stored models: coherence over topics, held-out likelihood over documents.

* Coherence: the difference of mean per-topic coherence ``mean(c_A) - mean(c_B)``, with a
  percentile bootstrap interval (Efron and Tibshirani 1993, ch. 13) resampling each
  model's topics with replacement (the topics of two models are not paired).
* Held-out log-likelihood per word: ``sum_d l_Ad / sum_d n_d - sum_d l_Bd / sum_d n_d`` over
  the same held-out words, with a *paired* bootstrap over documents: each replicate draws
  documents with replacement and uses both models' log-likelihoods of the drawn documents.

Both models must have the same vocabulary and the same held-out words (split hash), else
the comparison is refused.  The bootstrap is seeded (``numpy.random.default_rng(seed)``).
"""

from __future__ import annotations

import numpy as np

from tealeaves.errors import ParameterError
from tealeaves.sweep.results import Results
from tealeaves.validation import check_float, check_int, check_seed


def _interval(replicates: np.ndarray, level: float) -> tuple[float, float]:
    tail = (1.0 - level) / 2.0
    return float(np.quantile(replicates, tail)), float(np.quantile(replicates, 1.0 - tail))


def bootstrap_mean_difference(a: np.ndarray, b: np.ndarray, n_boot: int = 2000, level: float = 0.95,
                              seed: int = 0) -> dict:
    """``mean(a) - mean(b)`` with a percentile interval, ``a`` and ``b`` resampled independently."""
    rng = np.random.default_rng(seed)
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    reps = (a[rng.integers(0, len(a), (n_boot, len(a)))].mean(axis=1)
            - b[rng.integers(0, len(b), (n_boot, len(b)))].mean(axis=1))
    low, high = _interval(reps, level)
    return {"difference": float(a.mean() - b.mean()), "low": low, "high": high}


def paired_bootstrap_per_word(ll_a: np.ndarray, ll_b: np.ndarray, words: np.ndarray, n_boot: int = 2000,
                              level: float = 0.95, seed: int = 0) -> dict:
    """Difference of log-likelihood per word, documents resampled in pairs (see the module docstring)."""
    rng = np.random.default_rng(seed)
    ll_a, ll_b, words = (np.asarray(x, dtype=float) for x in (ll_a, ll_b, words))
    draws = rng.integers(0, len(words), (n_boot, len(words)))
    n = words[draws].sum(axis=1)
    reps = (ll_a[draws].sum(axis=1) - ll_b[draws].sum(axis=1)) / n
    low, high = _interval(reps, level)
    return {"difference": float((ll_a.sum() - ll_b.sum()) / words.sum()), "low": low, "high": high}


def _topic_scores(results: Results, name: str, measure: str) -> np.ndarray:
    if measure not in results.topics.columns:
        raise ParameterError(f"the results store has no per-topic {measure!r} scores",
                             fix=f"choose one of {', '.join(results.sweep.get('measures', [])) or 'none'}")
    scores = results.topics.loc[results.topics["model"] == name, measure].dropna().to_numpy(dtype=float)
    if len(scores) < 2:
        raise ParameterError(f"model {name} has fewer than two topics scored by {measure}",
                             fix="choose another measure or model")
    return scores


def compare_models(a: Results, name_a: str, b: Results, name_b: str, measure: str | None = None,
                   n_boot: int = 2000, level: float = 0.95, seed: int = 0) -> dict:
    """Compare model ``name_a`` of ``a`` with ``name_b`` of ``b`` (the same store may be given twice)."""
    n_boot = check_int(n_boot, "bootstrap replicates", min_value=100)
    level = check_float(level, "level", min_value=0.5, max_value=1.0, include_max=False)
    seed = check_seed(seed)
    row_a, row_b = a.model(name_a), b.model(name_b)
    if row_a["vocabulary_hash"] != row_b["vocabulary_hash"]:
        raise ParameterError(f"models {name_a} and {name_b} have different vocabularies, so their "
                             "scores are not comparable", fix="compare models fitted on the same corpus")
    if row_a["split_hash"] != row_b["split_hash"]:
        raise ParameterError(f"models {name_a} and {name_b} were scored on different held-out words "
                             "(different test documents or splits)",
                             fix="compare models of sweeps with the same test documents and --split-seed")
    measure = measure or (a.sweep.get("measures") or [None])[0]
    (ll_a, words), (ll_b, _) = a.heldout(name_a), b.heldout(name_b)
    out = {"models": [name_a, name_b], "n_boot": n_boot, "level": level, "seed": seed,
           "loglik_per_word": {**paired_bootstrap_per_word(ll_a, ll_b, words, n_boot, level, seed),
                               "documents": int(len(words)), "heldout_words": int(words.sum())}}
    if measure is not None:
        out["coherence"] = {"measure": measure, **bootstrap_mean_difference(
            _topic_scores(a, name_a, measure), _topic_scores(b, name_b, measure), n_boot, level, seed)}
    return out
