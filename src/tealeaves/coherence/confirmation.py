"""Confirmation measures: how strongly W* supports W' (Röder et al. 2015, §3.3).

Direct measures take the joint probability ``p_ab = P(W', W*)`` and the
marginals ``p_a = P(W')``, ``p_b = P(W*)`` (logarithms in ``log_base``, natural by
default; Palmetto's names in brackets):

``log-conditional``  ``log(p_ab / p_b)``  (UMass, Mimno et al. 2011) [m_lc]
``pmi``              ``log(p_ab / (p_a p_b))``  (UCI, Newman et al. 2010)
``log-ratio``        the same ratio under Röder et al.'s name [m_lr]
``npmi``             ``pmi / -log(p_ab)``  (Bouma 2009), in ``[-1, 1]`` [m_nlr]
``difference``       ``p_ab / p_b - p_a``  [m_d]
``ratio``            ``p_ab / (p_a p_b)``  [m_r]
``fitelson``         ``(P(a|b) - P(a|¬b)) / (P(a|b) + P(a|¬b))`` with
                     ``P(a|¬b) = (p_a - p_ab) / (1 - p_b)`` (0 when ``p_b = 1``), in ``[-1, 1]`` [m_f]
``jaccard``          ``p_ab / (p_a + p_b - p_ab)``  [m_j]
``log-jaccard``      ``log(p_ab / (p_a + p_b - p_ab))``  [m_lj]
``likelihood``       ``P(a|b) / (P(a|¬b) + eps)``  [m_l]
``log-likelihood``   ``log((P(a|b) + eps) / (P(a|¬b) + eps))``  [m_ll]

The likelihood measures always add ``eps = 1e-12`` as Palmetto does (``P(a|¬b)`` is 0
whenever ``a`` never occurs without ``b``), and are 0 (undefined) when ``p_b = 1``.

The indirect measures (``cosine`` [m_cos], ``dice`` [m_dice], ``indirect-jaccard``
[m_jac]) compare context vectors built from NPMI; see :func:`similarity`.

Pairs that never co-occur (``p_ab = 0``) follow the ``zero`` policy:

``limit``    the mathematical limit: NPMI ``-1``; the logarithmic measures tend
             to ``-inf``, so they raise :class:`ZeroCooccurrenceError` naming the
             pair (use smoothing, ``zero="epsilon"`` or ``zero="zero"``); the other
             measures are defined there (difference ``-p_a``, ratio and Jaccard 0,
             Fitelson -1);
``epsilon``  gensim's and Palmetto's convention: ``1e-12`` is added to *every* joint
             probability inside the logarithms (the other measures are unchanged);
``zero``     the pair's confirmation is ``0``.

When ``p_ab = 1`` (both words in every unit) NPMI is ``1``, its limit.  A
Fitelson value with both conditionals 0 is 0 (Palmetto).

A word set of probability 0 (``p_a = 0`` or ``p_b = 0``, e.g. two words of an
any-any segment that never co-occur) leaves the ratio measures (``ratio``,
``pmi``, ``log-ratio``, ``npmi``, ``log-conditional``) undefined: they score 0, as
in Palmetto.  The others take their formula's value with ``P(W'|W*) = 0`` when
``p_b = 0`` (difference ``-p_a``, Fitelson -1, Jaccard 0, log-Jaccard
``log(eps / p_a)`` under ``epsilon``), as Palmetto and tomotopy compute them.
"""

from __future__ import annotations

import math

import numpy as np

from tealeaves.coherence.errors import SettingsError

#: gensim's and Palmetto's epsilon (``direct_confirmation_measure.EPSILON``, ``LogBasedCalculation.EPSILON``).
EPSILON = 1e-12
ZERO_POLICIES = ("limit", "epsilon", "zero")
#: Measures unbounded below as ``p_ab -> 0``.
LOGARITHMIC = ("log-conditional", "pmi", "log-ratio", "log-jaccard")
#: Measures undefined (scored 0) when a marginal is 0.
RATIOS = ("ratio", "pmi", "log-ratio", "npmi", "log-conditional", "likelihood", "log-likelihood")
DIRECT = ("log-conditional", "pmi", "log-ratio", "npmi", "difference", "ratio", "fitelson", "jaccard",
          "log-jaccard", "likelihood", "log-likelihood")
#: Measures whose formula (and zero handling) is symmetric in ``p_a`` and ``p_b``: their value for
#: ``(W*, W')`` is their value for ``(W', W*)``, bit for bit (IEEE sums and products commute).
SYMMETRIC = ("npmi", "pmi", "log-ratio", "ratio", "jaccard", "log-jaccard")
#: Measures with a logarithm (``log_base`` applies).
WITH_LOG = LOGARITHMIC + ("log-likelihood",)
INDIRECT = ("cosine", "dice", "indirect-jaccard")
#: Logarithm bases (jhlau/topic_interpretability uses 10).
LOG_BASES = {"e": 1.0, "2": math.log(2.0), "10": math.log(10.0)}


def confirm(name: str, p_ab: np.ndarray, p_a: np.ndarray, p_b: np.ndarray, zero: str,
            log_base: str = "e") -> np.ndarray:
    """Direct confirmation ``name`` elementwise; entries where ``p_ab == 0`` follow ``zero``.

    The direct confirmation measures of Röder et al. (2015, §3.3), formulas in the module
    docstring: UMass's log-conditional (Mimno et al. 2011), UCI's PMI (Newman et al. 2010),
    NPMI (Bouma 2009) and the others.  A logarithmic measure under ``zero="limit"`` gives
    ``-inf`` where ``p_ab`` is 0; the scoring pipeline refuses such pairs with
    :class:`ZeroCooccurrenceError` naming them before this is reached.

    Parameters
    ----------
    name : str
        One of :data:`DIRECT`.
    p_ab : numpy.ndarray
        Joint probabilities ``P(W', W*)``.
    p_a : numpy.ndarray
        Marginals ``P(W')``.
    p_b : numpy.ndarray
        Marginals ``P(W*)``.
    zero : str
        The policy for ``p_ab = 0``: one of :data:`ZERO_POLICIES`.
    log_base : str, default "e"
        Base of the logarithms: a key of :data:`LOG_BASES`.

    Returns
    -------
    numpy.ndarray
        The confirmations, elementwise.

    Raises
    ------
    SettingsError
        When ``name``, ``zero`` or ``log_base`` is not known.
    """
    if zero not in ZERO_POLICIES:
        raise SettingsError(f"zero={zero!r} is not known; use one of {ZERO_POLICIES}")
    if name not in DIRECT:
        raise SettingsError(f"confirmation={name!r} is not known; use one of {DIRECT + INDIRECT}")
    if log_base not in LOG_BASES:
        raise SettingsError(f"log_base={log_base!r} is not known; use one of {sorted(LOG_BASES)}")
    p_ab, p_a, p_b = (np.asarray(x, dtype=np.float64) for x in (p_ab, p_a, p_b))
    none = p_ab <= 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if name in LOGARITHMIC or name == "npmi":
            out = _logarithmic(name, p_ab, p_a, p_b, none, zero, LOG_BASES[log_base])
        elif name in ("likelihood", "log-likelihood"):
            out = _likelihood(name, p_ab, p_a, p_b, LOG_BASES[log_base])
        else:
            out = _plain(name, p_ab, p_a, p_b)
    if zero == "zero":
        out = np.where(none, 0.0, out)
    elif zero == "limit" and name == "npmi":
        out = np.where(none, -1.0, out)
    elif zero == "limit" and name in LOGARITHMIC:
        out = np.where(none, -np.inf, out)
    if name in RATIOS:
        out = np.where((p_a > 0) & (p_b > 0), out, 0.0)
    elif name == "log-jaccard":
        out = np.where(p_a + p_b - p_ab > 0, out, 0.0)
    return out


def _logarithmic(name, p_ab, p_a, p_b, none, zero, ln_base):
    p = p_ab + EPSILON if zero == "epsilon" else np.where(none, 1.0, p_ab)  # placeholder replaced later
    if name == "log-conditional":
        return np.log(p / p_b) / ln_base
    if name in ("pmi", "log-ratio"):
        return np.log(p / (p_a * p_b)) / ln_base
    if name == "log-jaccard":
        return np.log(p / (p_a + p_b - p_ab)) / ln_base
    num = np.log(p / (p_a * p_b))
    den = -np.log(p)
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), 1.0)


def _likelihood(name, p_ab, p_a, p_b, ln_base):
    """Palmetto's m_l and m_ll; 0 where ``p_b = 1`` (no unit without W*)."""
    cond = p_ab / p_b
    inverse = (p_a - p_ab) / (1.0 - p_b)
    if name == "likelihood":
        out = cond / (inverse + EPSILON)
    else:
        out = np.log((cond + EPSILON) / (inverse + EPSILON)) / ln_base
    return np.where(p_b < 1, out, 0.0)


def _plain(name, p_ab, p_a, p_b):
    if name == "difference":
        return np.where(p_b > 0, p_ab / np.where(p_b > 0, p_b, 1.0), 0.0) - p_a
    if name == "ratio":
        return p_ab / (p_a * p_b)
    if name == "jaccard":
        den = p_a + p_b - p_ab
        return np.where(den > 0, p_ab / np.where(den > 0, den, 1.0), 0.0)
    # fitelson
    cond = np.where(p_b > 0, p_ab / np.where(p_b > 0, p_b, 1.0), 0.0)
    other = np.where(p_b < 1, (p_a - p_ab) / np.where(p_b < 1, 1.0 - p_b, 1.0), 0.0)
    total = cond + other
    return np.where(total > 0, (cond - other) / np.where(total > 0, total, 1.0), 0.0)


def similarity(name: str, u: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Indirect confirmation of context vectors ``u`` (W') and ``z`` (W*) over their last axis.

    The indirect measures of Röder et al. (2015, §3.3):

    ``cosine``            ``u.z / (|u| |z|)``, 0 if either vector is zero;
    ``dice``              ``2 sum(min(u, z)) / sum(u + z)``, 1 if that sum is not positive (Palmetto m_dice);
    ``indirect-jaccard``  ``sum(min(u, z)) / sum(max(u, z))``, 1 if that sum is not positive (Palmetto m_jac).

    Parameters
    ----------
    name : str
        One of :data:`INDIRECT`.
    u : numpy.ndarray
        Context vectors of W'.
    z : numpy.ndarray
        Context vectors of W*.

    Returns
    -------
    numpy.ndarray
        The similarities, one per vector pair.

    Raises
    ------
    SettingsError
        When ``name`` is not an indirect measure.
    """
    if name == "cosine":
        norm = np.linalg.norm(u, axis=-1) * np.linalg.norm(z, axis=-1)
        return np.where(norm > 0, (u * z).sum(axis=-1) / np.where(norm > 0, norm, 1.0), 0.0)
    low = np.minimum(u, z).sum(axis=-1)
    if name == "dice":
        total = (u + z).sum(axis=-1)
        return np.where(total > 0, 2.0 * low / np.where(total > 0, total, 1.0), 1.0)
    if name == "indirect-jaccard":
        high = np.maximum(u, z).sum(axis=-1)
        return np.where(high > 0, low / np.where(high > 0, high, 1.0), 1.0)
    raise SettingsError(f"confirmation={name!r} is not an indirect measure; use one of {INDIRECT}")
