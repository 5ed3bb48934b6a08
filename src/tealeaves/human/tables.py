"""The tables compared with people: human scores per topic, and automatic scores per topic or per model.

``tealeaves human correlate | compare | models`` read them here; from Python,
:func:`load_tables` gives the same tables (and the same errors) to pass to
:func:`~tealeaves.human.correlation.correlate`,
:func:`~tealeaves.human.comparison.compare_measures` or
:func:`~tealeaves.human.comparison.model_level`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import NamedTuple

from tealeaves._params import Param, naming
from tealeaves._terminal import escape
from tealeaves.errors import ParameterError
from tealeaves.validation import check_unique

#: The human scores :func:`load_scores` picks from, in order, when ``score`` is not given.
HUMAN_SCORES = ("model_precision", "mean_rating", "mean_multilingual_rating")

MEASURE_SCORES = Param("measure_scores", "path",
                       help="automatic measures keyed by topic (CSV with 'topic', JSON)",
                       deprecated_flags=("--measures",))


class ScoreTables(NamedTuple):
    """What :func:`load_tables` reads (a tuple, in this order).

    Attributes
    ----------
    scores : dict
        ``{score name: {topic: value}}``: the human scores table.
    measures : dict
        ``{measure: {topic: value}}``: the automatic scores table.
    name : str
        The human score chosen.
    chosen : list
        The measures chosen (all, by default).
    dropped : dict
        Values left out on reading: ``{"scores": {...}, "measures": {...}}``, per column.
    meta : dict
        ``key`` (topic-key parts or None), ``sep``, ``responses`` (per-response values by score) and
        ``llm`` (the language-model annotators behind the scores, for the signatures: the ``llm``
        parameter of :func:`~tealeaves.human.correlation.correlate`).
    """

    #: ``{score name: {topic: value}}``: the human scores table.
    scores: dict
    #: ``{measure: {topic: value}}``: the automatic scores table.
    measures: dict
    #: The human score chosen.
    name: str
    #: The measures chosen (all, by default).
    chosen: list
    #: Values left out on reading: ``{"scores": {...}, "measures": {...}}``, per column.
    dropped: dict
    #: ``key`` (topic-key parts or None), ``sep``, ``responses`` (per-response values by score) and ``llm``.
    meta: dict


def load_scores(scores: str | os.PathLike, *, score: str | None = None, key: Sequence[str] | None = None,
                key_sep: str | None = None) -> tuple[dict, str, dict, dict]:
    """Read the human scores keyed by topic, and choose one.

    Parameters
    ----------
    scores : str or os.PathLike
        The JSON of ``tealeaves human score -o``, or a CSV/JSON table with a ``topic`` column
        (:func:`~tealeaves.human.correlation.read_topic_table`).
    score : str, optional
        Which human score (default: the first of :data:`HUMAN_SCORES` in the file).
    key : sequence of str, optional
        The parts of composite topic ids (default: the scores file's ``topic_key``).
    key_sep : str, optional
        Their separator (default: the scores file's, else ``/``).

    Returns
    -------
    tuple
        ``(scores table, chosen score's name, values dropped on reading, meta)``; ``meta`` holds
        ``key``, ``sep``, ``responses`` and ``llm`` (the language-model annotators behind the scores).

    Raises
    ------
    ParameterError
        When ``key_sep`` is empty.
    CorrelationError
        When the file cannot be read or has no such human score.
    """
    from tealeaves.human.correlation import CorrelationError, read_scores_meta, read_topic_table

    if key_sep is not None and not key_sep:
        raise naming(ParameterError("key_sep must not be empty", fix="e.g. `key_sep='/'`"), "key_sep")
    meta = read_scores_meta(scores)
    meta["key"] = list(key) if key else meta.get("topic_key")
    meta["sep"] = key_sep or meta.get("key_sep") or "/"
    dropped: dict = {}
    table = read_topic_table(scores, dropped)
    name = score or next((s for s in HUMAN_SCORES if s in table), None)
    if name not in table:
        which = "" if name is None else f" {escape(str(name))!r}"
        raise CorrelationError(f"no human score{which} in {scores}; available: {[escape(s) for s in table]}",
                               fix=f"give the JSON of `tealeaves human score -o`, or a table with one of "
                                   f"{list(HUMAN_SCORES)}")
    return table, name, dropped, meta


def load_tables(scores: str | os.PathLike, measure_scores: str | os.PathLike, *, score: str | None = None,
                measures: Sequence[str] | None = None, key: Sequence[str] | None = None,
                key_sep: str | None = None) -> ScoreTables:
    """Read the human scores and the automatic scores per topic, and choose the measures.

    Parameters
    ----------
    scores : str or os.PathLike
        The human scores (see :func:`load_scores`).
    measure_scores : str or os.PathLike
        The automatic scores keyed by topic: a CSV with ``topic`` and one column per measure, or
        JSON (:func:`~tealeaves.human.correlation.read_topic_table`); with ``key`` columns, the
        topic ids are composed from them.
    score : str, optional
        Which human score (see :func:`load_scores`).
    measures : sequence of str, optional
        The measure columns to use (default: all).
    key, key_sep : optional
        See :func:`load_scores`.

    Returns
    -------
    ScoreTables
        ``(scores, measures, name, chosen, dropped, meta)``.

    Raises
    ------
    CorrelationError
        When a file cannot be read, the human score is missing, or a measure is not in
        ``measure_scores``.
    ParameterError
        When ``key_sep`` is empty or ``measures`` repeat.
    """
    from tealeaves.human.correlation import CorrelationError, read_topic_table

    table, name, dropped_scores, meta = load_scores(scores, score=score, key=key, key_sep=key_sep)
    dropped: dict = {"scores": dropped_scores, "measures": {}}
    auto = read_topic_table(measure_scores, dropped["measures"], key=meta["key"], sep=meta["sep"])
    if isinstance(measures, str):  # would be read letter by letter
        raise naming(ParameterError(f"measures must be a list of measure names, got the string {measures!r}",
                                    fix=f"e.g. `measures=[{measures!r}]`"), "measures")
    chosen = check_unique(measures or list(auto), "measures")
    if not chosen:
        raise CorrelationError(f"{measure_scores} has no measure column with a number",
                               fix="give a table with a 'topic' column and one column per measure")
    missing = [m for m in chosen if m not in auto]
    if missing:
        raise CorrelationError(f"measure(s) {[escape(m) for m in missing]} not in {measure_scores}; "
                               f"available: {[escape(m) for m in auto]}")
    return ScoreTables(table, auto, name, chosen, dropped, meta)
