"""Hooks of the report for measures computed across models (filled in by :mod:`tealeaves.comparison`).

* :data:`STABILITY`: ``fn(results) -> pandas.DataFrame`` with columns ``engine``, ``k``,
  ``mean_similarity``, ``low``, ``high`` (mean matched similarity across seeds per K, and
  its spread); ``None`` (this build): the report says stability was not computed.
* :data:`FLAGS`: ``fn(results) -> {(model, topic): [flag, ...]}`` (junk-topic flags, each a
  short explained label); ``None`` (this build): the flags column shows "not computed".

Example, once :mod:`tealeaves.comparison` is available::

    from tealeaves.report import hooks
    hooks.STABILITY = comparison.stability.per_k_table
    hooks.FLAGS = comparison.flags.flag_results
"""

from __future__ import annotations

from collections.abc import Callable

STABILITY: Callable | None = None
FLAGS: Callable | None = None
