"""Hooks of the report for measures computed across models (filled in by :mod:`tealeaves.comparison`).

* :data:`STABILITY`: ``fn(results) -> pandas.DataFrame`` with columns ``engine``, ``k``,
  ``mean_similarity``, ``low``, ``high`` (mean matched similarity across seeds per K, and
  its spread); ``None`` (this build): the report says stability was not computed.
* :data:`FLAGS`: ``fn(results) -> {(model, topic): [flag, ...]}``: flags that need several
  runs (``low-recurrence``), added to those the sweep stored per topic (low-coherence,
  mixed, background, few-documents; :func:`tealeaves.sweep.measures.flag_measures`);
  ``None`` (this build): only the stored flags are shown.

Example, once :mod:`tealeaves.comparison` is available::

    from tealeaves.report import hooks
    hooks.STABILITY = comparison.stability.per_k_table
    hooks.FLAGS = recurrence_flags  # e.g. comparison.flags.low_recurrence_flags per model
"""

from __future__ import annotations

from collections.abc import Callable

STABILITY: Callable | None = None
FLAGS: Callable | None = None


def topic_flags(results) -> dict:
    """``{(model, topic): [flag, ...]}``: the flags stored by the sweep plus those of :data:`FLAGS`."""
    out: dict = {}
    if "flags" in results.topics:
        topics = results.topics
        for model, topic, flags in zip(topics["model"], topics["topic"], topics["flags"]):
            out[(model, int(topic))] = list(flags)
    if FLAGS is not None:
        for key, extra in FLAGS(results).items():
            out.setdefault(key, []).extend(extra)
    return out
