"""Inter-annotator agreement: Krippendorff's alpha and split-half reliability.

Krippendorff's alpha (Krippendorff 2011, "Computing Krippendorff's
alpha-reliability") from the coincidence matrix ``o_ck``: every unit with
``m_u >= 2`` pairable values adds ``1 / (m_u - 1)`` for each ordered pair of
its values from different coders.  With ``n_c = sum_k o_ck`` and
``n = sum_c n_c``::

    alpha = 1 - D_o / D_e,   D_o = sum_ck o_ck d2_ck / n,
                             D_e = sum_ck n_c n_k d2_ck / (n (n - 1)).

Distances: nominal ``d2 = [c != k]``, interval ``(c - k)^2``, ordinal
``(sum_{g=c..k} n_g - (n_c + n_k) / 2)^2``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tealeaves.errors import AgreementUndefinedError, TealeavesError

LEVELS = ("nominal", "ordinal", "interval")

#: The former name of :class:`~tealeaves.errors.AgreementUndefinedError`.
AgreementUndefined = AgreementUndefinedError


def coincidence_matrix(data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values and coincidence matrix of a coders x units array (NaN = missing).

    Krippendorff (2011): every unit with ``m_u >= 2`` pairable values adds
    ``1 / (m_u - 1)`` to ``o_ck`` for each ordered pair ``(c, k)`` of its values from
    different coders; units with fewer than two values add nothing.

    Parameters
    ----------
    data : numpy.ndarray
        Coders x units array of numbers, NaN (or any non-finite value) where a coder gave no value.

    Returns
    -------
    values : numpy.ndarray
        The distinct finite values, sorted.
    o : numpy.ndarray
        The ``len(values) x len(values)`` coincidence matrix, in the order of ``values``.
    """
    data = np.asarray(data, dtype=np.float64)
    values = np.unique(data[np.isfinite(data)])
    index = {v: i for i, v in enumerate(values)}
    o = np.zeros((values.size, values.size))
    for unit in data.T:
        vals = unit[np.isfinite(unit)]
        m = vals.size
        if m < 2:
            continue
        counts = np.bincount([index[v] for v in vals], minlength=values.size).astype(np.float64)
        o += (np.outer(counts, counts) - np.diag(counts)) / (m - 1)
    return values, o


def _distance(values: np.ndarray, n_c: np.ndarray, level: str) -> np.ndarray:
    if level == "nominal":
        return 1.0 - np.eye(values.size)
    if level == "interval":
        return (values[:, None] - values[None, :]) ** 2
    if level == "ordinal":
        cum = np.concatenate([[0.0], np.cumsum(n_c)])
        i, j = np.meshgrid(np.arange(values.size), np.arange(values.size), indexing="ij")
        lo, hi = np.minimum(i, j), np.maximum(i, j)
        return (cum[hi + 1] - cum[lo] - (n_c[i] + n_c[j]) / 2.0) ** 2
    raise TealeavesError(f"unknown level of measurement {level!r}; choose from {LEVELS}")


def krippendorff_alpha(data: np.ndarray, level: str = "ordinal") -> float:
    """Krippendorff's alpha of a coders x units array of numbers (NaN where a coder gave no value).

    Krippendorff (2011), "Computing Krippendorff's alpha-reliability":
    ``alpha = 1 - D_o / D_e`` from the coincidence matrix (:func:`coincidence_matrix`),
    with the distance of the level of measurement (see the module docstring).

    Parameters
    ----------
    data : numpy.ndarray
        Coders x units array of numbers, NaN where a coder gave no value.
    level : {"ordinal", "nominal", "interval"}
        Level of measurement, which chooses the distance ``d2``.

    Returns
    -------
    float
        Alpha: 1 for perfect agreement, 0 for agreement at chance level, negative below it.

    Raises
    ------
    AgreementUndefinedError
        When fewer than two pairable values exist or every value is the same (``D_e = 0``).
    TealeavesError
        When ``level`` is not one of :data:`LEVELS`.

    Examples
    --------
    Two coders agree on three of four units:

    >>> import numpy as np
    >>> round(krippendorff_alpha(np.array([[1, 2, 3, 3], [1, 2, 3, 2]], float), "nominal"), 4)
    0.6667
    """
    values, o = coincidence_matrix(data)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    if n < 2:
        raise AgreementUndefinedError("Krippendorff's alpha needs at least one unit judged by two annotators")
    d2 = _distance(values, n_c, level)
    d_o = (o * d2).sum() / n
    d_e = (np.outer(n_c, n_c) * d2).sum() / (n * (n - 1))
    if d_e == 0:
        raise AgreementUndefinedError(
            "Krippendorff's alpha is undefined: every annotator gave the same value")
    return float(1.0 - d_o / d_e)


def spearman_brown(r: float, factor: float = 2.0) -> float:
    """Spearman-Brown prophecy: reliability of a test ``factor`` times as long, ``f r / (1 + (f - 1) r)``.

    Parameters
    ----------
    r : float
        Reliability (correlation) of the test as it is.
    factor : float
        How many times longer the test is made (2 corrects a split half to full length).

    Returns
    -------
    float
        The predicted reliability ``f r / (1 + (f - 1) r)``.
    """
    return float(factor * r / (1.0 + (factor - 1.0) * r))


def split_half_reliability(units: Sequence[Sequence[float]], *, n_splits: int = 200,
                           seed: int = 0) -> dict:
    """Split-half reliability of per-unit mean scores, Spearman-Brown corrected.

    ``units`` holds each unit's (e.g. topic's) per-response scores.  Each
    split shuffles every unit's responses and halves them (units with fewer
    than two responses are left out); the Pearson correlation of the two
    halves' means across units is averaged over the splits whose halves vary,
    and corrected to full length with :func:`spearman_brown`.

    Parameters
    ----------
    units : sequence of sequence of float
        Per-response scores of each unit.
    n_splits : int
        Number of random splits.
    seed : int
        Seed of the random number generator that shuffles the responses.

    Returns
    -------
    dict
        ``r_half`` (the mean half correlation), ``spearman_brown`` (corrected to full length),
        ``n_units`` (units with two or more responses), ``n_splits``, ``n_splits_used`` (splits
        whose halves varied) and ``seed``.

    Raises
    ------
    AgreementUndefinedError
        With fewer than 3 units of two or more responses, when the half scores never vary across
        units, or when the halves are perfectly anti-correlated in every split.
    """
    units = [np.asarray(u, dtype=np.float64) for u in units if len(u) >= 2]
    if len(units) < 3:
        raise AgreementUndefinedError(f"split-half reliability needs at least 3 units with two or more "
                                 f"responses each, got {len(units)}")
    rng = np.random.default_rng(seed)
    rs = []
    for _ in range(n_splits):
        a, b = np.empty(len(units)), np.empty(len(units))
        for i, u in enumerate(units):
            perm = rng.permutation(u)
            h = u.size // 2
            a[i], b[i] = perm[:h].mean(), perm[h:].mean()
        if a.std() > 0 and b.std() > 0:
            rs.append(float(np.corrcoef(a, b)[0, 1]))
    if not rs:
        raise AgreementUndefinedError("split-half reliability is undefined: the half scores never varied "
                                 "across units")
    r = float(np.mean(rs))
    if r <= -1.0:
        raise AgreementUndefinedError("split-half reliability is undefined: the halves are perfectly "
                                 "anti-correlated in every split (Spearman-Brown divides by 0)")
    return {"r_half": r, "spearman_brown": spearman_brown(r), "n_units": len(units),
            "n_splits": n_splits, "n_splits_used": len(rs), "seed": seed}
