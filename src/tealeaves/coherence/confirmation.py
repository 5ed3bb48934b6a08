"""Confirmation measures: how strongly W* supports W' (Röder et al. 2015, §3.3).

Direct measures take the joint probability ``p_ab = P(W', W*)`` and the
marginals ``p_a = P(W')``, ``p_b = P(W*)`` (natural logarithms):

``log-conditional``  ``log(p_ab / p_b)``  (UMass, Mimno et al. 2011)
``pmi``              ``log(p_ab / (p_a p_b))``  (UCI, Newman et al. 2010)
``log-ratio``        the same ratio under Röder et al.'s name ``m_lr``
``npmi``             ``pmi / -log(p_ab)``  (Bouma 2009), in ``[-1, 1]``

The indirect ``cosine`` (C_V) compares context vectors built from NPMI; see
:mod:`tealeaves.coherence.measure`.

Pairs that never co-occur (``p_ab = 0``) follow the ``zero`` policy:

``limit``    the mathematical limit: NPMI ``-1``; the unbounded measures tend
             to ``-inf``, so they raise :class:`ZeroCooccurrenceError` naming the
             pair (use smoothing, ``zero="epsilon"`` or ``zero="zero"``);
``epsilon``  gensim's convention: ``1e-12`` is added to *every* joint probability;
``zero``     the pair's confirmation is ``0``.

When ``p_ab = 1`` (both words in every unit) NPMI is ``1``, its limit.
"""

from __future__ import annotations

import numpy as np

from tealeaves.coherence.errors import SettingsError

#: gensim's epsilon (``direct_confirmation_measure.EPSILON``).
EPSILON = 1e-12
ZERO_POLICIES = ("limit", "epsilon", "zero")
DIRECT = ("log-conditional", "pmi", "log-ratio", "npmi")
INDIRECT = ("cosine",)


def confirm(name: str, p_ab: np.ndarray, p_a: np.ndarray, p_b: np.ndarray, zero: str) -> np.ndarray:
    """Direct confirmation ``name`` elementwise; entries where ``p_ab == 0`` follow ``zero``.

    An unbounded measure under ``zero="limit"`` gives ``-inf`` where ``p_ab`` is
    0; the scoring pipeline refuses such pairs with :class:`ZeroCooccurrenceError`
    naming them before this is reached.
    """
    if zero not in ZERO_POLICIES:
        raise SettingsError(f"zero={zero!r} is not known; use one of {ZERO_POLICIES}")
    if name not in DIRECT:
        raise SettingsError(f"confirmation={name!r} is not known; use one of {DIRECT + INDIRECT}")
    none = p_ab <= 0
    if zero == "epsilon":
        p = p_ab + EPSILON
    else:
        p = np.where(none, 1.0, p_ab)  # placeholder, replaced below
    with np.errstate(divide="ignore", invalid="ignore"):
        if name == "log-conditional":
            out = np.log(p / p_b)
        elif name in ("pmi", "log-ratio"):
            out = np.log(p / (p_a * p_b))
        else:
            num = np.log(p / (p_a * p_b))
            den = -np.log(p)
            out = np.where(den > 0, num / np.where(den > 0, den, 1.0), 1.0)
    if zero == "epsilon":
        return out
    if zero == "zero":
        return np.where(none, 0.0, out)
    if name == "npmi":
        return np.where(none, -1.0, out)
    return np.where(none, -np.inf, out)
