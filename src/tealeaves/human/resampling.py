"""Bootstrap of correlations over topics, over annotators within topics, or both (two levels).

Each topic's human score is the mean of its per-response values (1/0 for
word intrusion, the rating, the log-odds term of topic intrusion), so a
topic's responses can be resampled.  The levels (``bootstrap=``):

* ``topics``: topics with replacement, each keeping its observed score
  (the measure of a topic travels with it: the resample is paired);
* ``annotators``: the topics fixed, each topic's responses with replacement;
* ``both``: topics with replacement, then within every drawn topic its
  responses with replacement (two-stage; Davison & Hinkley 1997 §3.8), the
  published practice.  A topic drawn twice gets two independent draws.

**The correlation with the true scores.**  A topic's observed score is the
mean of ``n_k`` noisy responses, so its correlation with a measure is
attenuated: ``E r ~ rho * sqrt(R)`` with ``R`` the reliability of the
topic scores (Spearman 1904).  The estimand reported as ``true_score`` is
``rho``, Pearson's correlation between the measure and the *true* per-topic
human score (the mean over the population of annotators), over the
population of topics the study's topics stand for.  It is estimated by the
disattenuated ``r / sqrt(R_hat)``, ``R_hat = 1 - mean_k(s_k^2 / n_k) /
var_k(ybar_k)``, and its interval comes from the two-stage bootstrap in its
shrinkage form (Davison & Hinkley 1997 §3.8): resampling from the topics'
scores ``ybar + sqrt(R_hat) (ybar_k - ybar)`` with the responses' deviations
inflated by ``sqrt(n_k / (n_k - 1))``, the bootstrap world has the estimated
between-topic and within-topic variances and a known true correlation (the
observed ``r``); the percentile interval of the bootstrap estimates is
shifted by the estimate minus that truth.  ``benchmarks/human_bootstrap_coverage.py``
checks the coverage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from tealeaves.errors import CorrelationError, naming
from tealeaves.validation import check_choice

LEVELS = ("topics", "annotators", "both")


class Responses:
    """Per-topic response values padded into a ``K x n_max`` array (``n`` per topic).

    Attributes ``n`` (responses per topic), ``pad`` (the values, zero-padded) and ``mask``
    (which cells hold a response).

    Parameters
    ----------
    values : sequence of sequence of float
        Each topic's per-response values.

    Raises
    ------
    ValueError
        When there is no topic or a topic has no response.
    """

    def __init__(self, values: Sequence[Sequence[float]]):
        self.n = np.array([len(v) for v in values], dtype=np.int64)
        if self.n.size == 0 or self.n.min() < 1:
            raise ValueError("every topic needs at least one response")
        self.pad = np.zeros((len(values), int(self.n.max())))
        for k, v in enumerate(values):
            self.pad[k, : len(v)] = np.asarray(v, dtype=np.float64)
        self.mask = np.arange(self.pad.shape[1])[None, :] < self.n[:, None]

    @property
    def means(self) -> np.ndarray:
        """Each topic's mean response ``ybar_k``."""
        return (self.pad * self.mask).sum(1) / self.n

    def noise(self) -> np.ndarray:
        """``s_k^2 / n_k``: the sampling variance of each topic's mean (:func:`noise_of`).

        Returns
        -------
        numpy.ndarray
            One value per topic.
        """
        dev = (self.pad - self.means[:, None]) * self.mask
        return noise_of((dev**2).sum(1), self.n[None, :])[0] if self.n.size else np.zeros(0)

    def shrunk(self) -> Responses:
        """The shrinkage two-stage resampling population (Davison & Hinkley 1997 §3.8).

        Topic means are shrunk to ``ybar + sqrt(R_hat) (ybar_k - ybar)`` (:func:`reliability`, 0 when
        not positive) and each response's deviation from its mean is inflated by
        ``sqrt(n_k / (n_k - 1))``.

        Returns
        -------
        Responses
            The resampling population, with the same ``n`` and ``mask``.
        """
        means, rel = self.means, reliability(self.means, self.noise())
        out = Responses.__new__(Responses)
        out.n, out.mask = self.n, self.mask
        centre = means.mean() + np.sqrt(max(rel, 0.0)) * (means - means.mean())
        inflate = np.sqrt(np.where(self.n > 1, self.n / np.maximum(self.n - 1, 1), 1.0))
        out.pad = (centre[:, None] + (self.pad - means[:, None]) * inflate[:, None]) * self.mask
        return out


def noise_of(squares: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``s_k^2 / n_k`` per topic from the sums of squared deviations (rows: resamples).

    A topic with a single response has no variance of its own; it gets the
    mean ``s^2`` of the row's topics with two or more (0 if there are none).

    Parameters
    ----------
    squares : numpy.ndarray
        Sums of squared deviations from each topic's mean, ``B x K`` (or ``K``).
    n : numpy.ndarray
        Responses per topic, broadcast to the shape of ``squares``.

    Returns
    -------
    numpy.ndarray
        ``B x K`` sampling variances of the topic means.
    """
    squares = np.atleast_2d(squares)
    n = np.broadcast_to(np.atleast_2d(n), squares.shape)
    multi = n > 1
    s2 = np.where(multi, squares / np.maximum(n - 1, 1), 0.0)
    counts = multi.sum(1, keepdims=True)
    pooled = np.where(counts > 0, (s2 * multi).sum(1, keepdims=True) / np.maximum(counts, 1), 0.0)
    return np.where(multi, s2, pooled) / n


def reliability(means: np.ndarray, noise: np.ndarray) -> float:
    """Reliability of topic scores: ``1 - mean(s_k^2/n_k) / var(ybar_k)`` (NaN-free; -inf if no spread).

    Parameters
    ----------
    means : numpy.ndarray
        Each topic's mean ``ybar_k``.
    noise : numpy.ndarray
        Each topic's ``s_k^2 / n_k``.

    Returns
    -------
    float
        ``R_hat``; -inf when the means do not vary (or there is one topic).
    """
    var = float(np.var(means, ddof=1)) if means.size > 1 else 0.0
    return 1.0 - float(np.mean(noise)) / var if var > 0 else -np.inf


def draw(rng: np.random.Generator, responses: Responses, n_boot: int, level: str):
    """``(idx, h, noise)``: drawn topic indices ``B x K``, their resampled scores and ``s^2/n``.

    Parameters
    ----------
    rng : numpy.random.Generator
        The bootstrap's generator.
    responses : Responses
        The per-response values.
    n_boot : int
        Resamples ``B``.
    level : {"topics", "annotators", "both"}
        The level resampled (module docstring).

    Returns
    -------
    idx : numpy.ndarray
        ``B x K`` topic indices (each row ``0..K-1`` for ``annotators``).
    h : numpy.ndarray
        ``B x K`` resampled topic scores.
    noise : numpy.ndarray
        ``B x K`` sampling variances of those scores (:func:`noise_of`).

    Raises
    ------
    ParameterError
        When ``level`` is not one of :data:`LEVELS`.
    """
    level = check_choice(level, "bootstrap", LEVELS)
    k = responses.n.size
    idx = np.tile(np.arange(k), (n_boot, 1)) if level == "annotators" else rng.integers(0, k, (n_boot, k))
    if level == "topics":
        return idx, responses.means[idx], responses.noise()[idx]
    nk = responses.n[idx]
    width = responses.pad.shape[1]
    pick = (rng.random((n_boot, k, width)) * nk[..., None]).astype(np.int64)
    vals = responses.pad[idx[..., None], pick]
    mask = np.arange(width)[None, None, :] < nk[..., None]
    h = (vals * mask).sum(2) / nk
    dev = (vals - h[..., None]) * mask
    return idx, h, noise_of((dev**2).sum(2), nk)


def pearson_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson's r of each row pair (NaN where a row is constant; callers count those).

    Parameters
    ----------
    a, b : numpy.ndarray
        ``B x K`` arrays paired row by row.

    Returns
    -------
    numpy.ndarray
        ``B`` correlations, clipped to [-1, 1].
    """
    a = a - a.mean(1, keepdims=True)
    b = b - b.mean(1, keepdims=True)
    den = np.sqrt((a * a).sum(1) * (b * b).sum(1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.clip((a * b).sum(1) / den, -1.0, 1.0)


def disattenuated(r: np.ndarray, h: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """``r / sqrt(R)`` per row, clipped to [-1, 1]; NaN where the reliability is not positive.

    Spearman's (1904) correction for attenuation, with ``R = 1 - mean_k(noise) / var_k(h)``.

    Parameters
    ----------
    r : numpy.ndarray
        ``B`` observed correlations.
    h : numpy.ndarray
        ``B x K`` topic scores of each resample.
    noise : numpy.ndarray
        ``B x K`` sampling variances of those scores.

    Returns
    -------
    numpy.ndarray
        ``B`` disattenuated correlations.
    """
    var = np.var(h, axis=1, ddof=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = 1.0 - noise.mean(1) / var
        out = r / np.sqrt(np.where(rel > 0, rel, np.nan))
    return np.clip(out, -1.0, 1.0)


def true_score_ci(
    responses: Responses, measure: np.ndarray, rng: np.random.Generator, n_boot: int, level: float
) -> dict:
    """Disattenuated Pearson correlation with the true scores and its two-stage shrinkage interval.

    The estimate is ``r / sqrt(R_hat)`` (Spearman 1904); the interval is the percentile interval
    of the shrinkage two-stage bootstrap (:meth:`Responses.shrunk`, Davison & Hinkley 1997 §3.8)
    shifted by the estimate minus ``r`` (see the module docstring).

    Parameters
    ----------
    responses : Responses
        Per-response values of the topics.
    measure : numpy.ndarray
        The measure's value of each topic, in the same order.
    rng : numpy.random.Generator
        The bootstrap's generator.
    n_boot : int
        Resamples.
    level : float
        Confidence level of the interval.

    Returns
    -------
    dict
        ``estimate``, ``observed`` (``r``), ``reliability`` and ``ci`` (``low``, ``high``,
        ``level``, ``n_boot``, ``n_degenerate``, ``method``); or ``undefined`` (the reason) and
        ``reliability`` when the reliability, or that of every resample, is not positive, or cannot be
        estimated because no topic has two or more responses (``reliability`` ``None``).
    """
    if not (responses.n > 1).any():
        return {"undefined": "every topic has a single response, so the annotator noise (and the reliability "
                             "of the topic scores) cannot be estimated; the correlation with the true scores "
                             "is not identified", "reliability": None}
    means, noise = responses.means, responses.noise()
    r = float(pearson_rows(means[None], measure[None])[0])
    rel = reliability(means, noise)
    if not np.isfinite(r) or rel <= 0:
        return {
            "undefined": "the reliability of the topic scores is not positive (annotator noise "
            "swamps the differences between topics); the correlation with the true scores is "
            "not identified",
            "reliability": rel if np.isfinite(rel) else None,
        }
    estimate = float(np.clip(r / np.sqrt(rel), -1, 1))
    idx, h, nz = draw(rng, responses.shrunk(), n_boot, "both")
    stats = disattenuated(pearson_rows(h, measure[idx]), h, nz)
    ok = np.isfinite(stats)
    if not ok.any():
        return {"undefined": "every bootstrap resample had a non-positive reliability", "reliability": rel}
    lo, hi = np.quantile(stats[ok], [(1 - level) / 2, (1 + level) / 2]) + (estimate - r)
    return {
        "estimate": estimate,
        "observed": r,
        "reliability": rel,
        "ci": {
            "low": float(max(lo, -1.0)),
            "high": float(min(hi, 1.0)),
            "level": level,
            "n_boot": n_boot,
            "n_degenerate": int((~ok).sum()),
            "method": "shrinkage two-stage",
        },
    }


def _shown(values: object) -> str:
    """A short text of a topic's values for a message."""
    return repr(values if isinstance(values, (str, bytes, Mapping)) else list(values)[:5])


def responses_for(keys: Sequence[str], table: Mapping[str, Sequence[float]] | None, what: str) -> Responses:
    """The responses of ``keys`` from ``{topic: [values]}``; a clear error if any topic lacks them.

    Parameters
    ----------
    keys : sequence of str
        The topics, in order.
    table : mapping of str to sequence of float, or None
        Topic -> per-response values.
    what : str
        The score's name, for messages.

    Returns
    -------
    Responses
        The responses of ``keys``.

    Raises
    ------
    CorrelationError
        When ``table`` is None, a topic has no values, or a value is not a finite number (NaN would
        give NaN intervals).
    """
    if table is None:
        raise naming(CorrelationError(
            f"bootstrapping annotators needs the per-response values of {what}",
            fix=("pass the scores JSON that `tealeaves human score` writes (it holds 'responses')",
                 "use `bootstrap='topics'`"),
        ), "bootstrap")
    missing = [k for k in keys if not table.get(k)]
    if missing:
        raise CorrelationError(
            f"no per-response values of {what} for topic(s) {missing[:5]}",
            fix="score the judgments again with `tealeaves human score -o`",
        )
    for k in keys:
        values = table[k]
        if isinstance(values, (str, bytes, Mapping)) or not all(
                isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
                and np.isfinite(v) for v in values):
            raise CorrelationError(f"the per-response values of {what} for topic {k!r} must be finite "
                                   f"numbers, got {_shown(values)}",
                                   fix="score the judgments again with `tealeaves human score -o`")
    return Responses([table[k] for k in keys])
