"""Aggregation of segment confirmations into one topic score (Röder et al. 2015, §3.4)."""

from __future__ import annotations

import numpy as np

from tealeaves.coherence.errors import SettingsError

AGGREGATIONS = ("mean", "median", "sum")


def aggregate(values: np.ndarray, valid: np.ndarray, how: str) -> np.ndarray:
    """Aggregate each row of ``values`` (topics x segments) over the entries where ``valid`` is true.

    The aggregation step of Röder et al. (2015, §3.4).  Rows with no valid entry get ``nan``
    here; callers report them as unscored.

    Parameters
    ----------
    values : numpy.ndarray
        Topics x segments confirmations.
    valid : numpy.ndarray
        Boolean mask of the same shape: the entries that count.
    how : str
        One of :data:`AGGREGATIONS` (``mean``, ``median``, ``sum``).

    Returns
    -------
    numpy.ndarray
        One value per topic (``nan`` for a row without a valid entry).

    Raises
    ------
    SettingsError
        When ``how`` is not known.
    """
    if how not in AGGREGATIONS:
        raise SettingsError(f"aggregation={how!r} is not known; use one of {AGGREGATIONS}")
    n = valid.sum(axis=1)
    total = np.where(valid, values, 0.0).sum(axis=1)
    if how == "sum":
        out = total
    elif how == "mean":
        out = total / np.maximum(n, 1)
    else:
        out = np.array([np.median(values[t, valid[t]]) if n[t] else np.nan for t in range(len(n))])
    return np.where(n > 0, out, np.nan)
