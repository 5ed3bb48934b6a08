"""Coverage simulation of the bootstrap intervals (benchmarks/human_bootstrap_coverage.py, the tests).

The estimand is ``rho``, Pearson's correlation between a measure and the
*true* per-topic human score (a topic's mean over the whole population of
annotators) over the population of topics.  Each simulated study draws
fresh topics, ``(true score, measure)`` bivariate normal with correlation
``rho`` (so ``rho`` is known exactly and the same in every study), and for
topic k ``n_k`` responses (uniform in ``n_range``) ``true score + N(0,
noise^2)``: every study is a new sample at both levels, as the two-level
interval assumes.  Annotator noise "dominates" when ``noise^2 E[1/n_k]`` is
comparable to the variance of the true scores (1): the reliability of the
topic scores is then about 0.4 and the observed correlation is attenuated
to about ``0.65 rho``.

``responses="binary"`` simulates word intrusion instead: a topic's true
score is ``p_k = Phi(true_k)`` (the chance that an annotator finds the
intruder) and each response is 1 with probability ``p_k``; the estimand,
``corr(Phi(true), measure)`` over the population, is computed by Monte Carlo
(2,000,000 seeded draws; its standard error, about 0.0005, is negligible).
"""

from __future__ import annotations

import numpy as np

from tealeaves.human.correlation import bootstrap_ci
from tealeaves.human.resampling import Responses, true_score_ci


def simulate_study(
    rng: np.random.Generator,
    n_components: int,
    rho: float,
    noise: float,
    n_range=(3, 12),
    responses: str = "normal",
):
    """``(measure, responses)`` of one simulated study (``normal`` ratings or ``binary`` intrusion).

    Parameters
    ----------
    rng : numpy.random.Generator
        Draws the topics and the responses.
    n_components : int
        Topics of the study.
    rho : float
        Correlation of the true scores with the measure.
    noise : float
        Standard deviation of a normal response around its topic's true score.
    n_range : tuple of int
        Lowest and highest number of responses per topic (uniform, inclusive).
    responses : {"normal", "binary"}
        Normal ratings, or 0/1 word-intrusion responses with ``p_k = Phi(true_k)``.

    Returns
    -------
    measure : numpy.ndarray
        The measure of each topic.
    responses : list of numpy.ndarray
        Each topic's responses.
    """
    true, measure = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=n_components).T
    n = rng.integers(n_range[0], n_range[1] + 1, size=n_components)
    if responses == "binary":
        from scipy.stats import norm

        p = norm.cdf(true)
        return measure, [(rng.random(n[k]) < p[k]).astype(float) for k in range(n_components)]
    return measure, [true[k] + noise * rng.standard_normal(n[k]) for k in range(n_components)]


def estimand(rho: float, responses: str = "normal") -> float:
    """The true correlation: ``rho`` itself, or ``corr(Phi(true), measure)`` for binary responses.

    Parameters
    ----------
    rho : float
        Correlation of the true scores with the measure.
    responses : {"normal", "binary"}
        The kind of responses simulated.

    Returns
    -------
    float
        The estimand (by 2,000,000 seeded Monte Carlo draws for ``binary``).
    """
    if responses != "binary":
        return rho
    from scipy.stats import norm

    draws = np.random.default_rng(12345).multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=2_000_000)
    return float(np.corrcoef(norm.cdf(draws[:, 0]), draws[:, 1])[0, 1])


def coverage(
    n_studies: int = 400,
    *,
    n_components: int = 50,
    rho: float = 0.5,
    noise: float = 3.0,
    n_boot: int = 1000,
    level: float = 0.95,
    seed: int = 0,
    responses: str = "normal",
) -> dict:
    """Share of studies whose interval covers the true correlation, and median widths, per interval kind.

    ``two_level_true_score``: the two-stage shrinkage interval of the
    correlation with the true scores (``human correlate --bootstrap both``,
    ``pearson.true_score``); ``topics``: the percentile interval over topics
    of the observed correlation; ``two_level_plain``: the plain two-stage
    percentile interval of the observed correlation.  An undefined interval
    (non-positive reliability) counts as not covering.

    Parameters
    ----------
    n_studies : int
        Simulated studies.
    n_components : int
        Topics per study.
    rho : float
        Correlation of the true scores with the measure.
    noise : float
        Standard deviation of a normal response around its topic's true score.
    n_boot : int
        Bootstrap resamples per interval.
    level : float
        Confidence level of the intervals.
    seed : int
        Seed of the simulation.
    responses : {"normal", "binary"}
        The kind of responses simulated (:func:`simulate_study`).

    Returns
    -------
    dict
        Per interval kind: ``coverage``, ``median_width`` (None if no interval was defined) and
        ``n_studies``.
    """
    truth = estimand(rho, responses)
    rng = np.random.default_rng(seed)
    hits = {"two_level_true_score": [], "topics": [], "two_level_plain": []}
    widths = {k: [] for k in hits}
    for _ in range(n_studies):
        measure, values = simulate_study(rng, n_components, rho, noise, responses=responses)
        resp = Responses(values)
        x = resp.means
        boot_seed = int(rng.integers(0, 2**32 - 1))
        t = true_score_ci(resp, measure, np.random.default_rng(boot_seed), n_boot, level)
        intervals = {
            "two_level_true_score": t.get("ci"),
            "topics": bootstrap_ci(x, measure, "pearson", n_boot=n_boot, seed=boot_seed, level=level),
            "two_level_plain": bootstrap_ci(
                x,
                measure,
                "pearson",
                n_boot=n_boot,
                seed=boot_seed,
                level=level,
                bootstrap="both",
                responses=resp,
            ),
        }
        for name, ci in intervals.items():
            hits[name].append(ci is not None and ci["low"] <= truth <= ci["high"])
            if ci is not None:
                widths[name].append(ci["high"] - ci["low"])
    return {
        name: {
            "coverage": float(np.mean(h)),
            "median_width": float(np.median(widths[name])) if widths[name] else None,
            "n_studies": n_studies,
        }
        for name, h in hits.items()
    }
