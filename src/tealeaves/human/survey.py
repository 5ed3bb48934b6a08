"""Judgments collected elsewhere: import a survey export as it comes, and describe its study.

:func:`import_survey` reads a platform export (one row per judgment, any
column names) and returns judgments in the long format with the study they
belong to.  An item is identified by several columns (``task, dataset,
model, topic``): the item id is ``TASK/<key>`` and the topic id the key
without the task column, joined by ``sep`` (default ``/``).  Responses are
read by their declared kind, never guessed:

* ratings on a declared ordinal scale (``scale=(1, 3)``: the integers 1..3;
  or ``scale_map={"incoherent": 1, ...}``), stored and reported on it;
* word intrusion as the chosen word, the index of the chosen option
  (``index_base`` 0 or 1, required), or correct/incorrect (``1/0``,
  ``true/false``, ``yes/no``, ``correct/incorrect``).

Values outside the declared scale or kind, an empty item-key or annotator
cell and an item unknown to a given study are errors; with ``lenient=True``
those rows are excluded and counted.  An empty response (a skipped
question) is always excluded and counted.  :func:`describe_study` builds the
study record (``settings.origin: "external"``) from the topics' word lists
and, where known, the intruders and the options shown.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence

import pandas as pd

from tealeaves._io import read_text
from tealeaves._params import naming, renamed_parameters
from tealeaves.errors import EmptyInputError, InputFormatError, ParameterError, TealeavesError
from tealeaves.human import items as it
from tealeaves.human.params import INDEX_BASE
from tealeaves.human.results import ResultsError, read_table
from tealeaves.human.store import STORE_SUFFIXES
from tealeaves.human.study import Study
from tealeaves.human.survey_scale import (  # noqa: F401 (parse_map, parse_scale: importable from here too)
    _rating,
    check_scale,
    parse_map,
    parse_scale,
    scale_values,
)

KINDS = ("chosen-word", "option-index", "correct")
TRUE = {"1", "true", "yes", "correct", "1.0"}
FALSE = {"0", "false", "no", "incorrect", "0.0"}
#: Exclusion reasons of an import, in report order.
REASONS = (
    "missing_response",
    "missing_key",
    "missing_annotator",
    "unknown_task",
    "unknown_item",
    "invalid_response",
)
STRICT = ("missing_key", "missing_annotator", "unknown_task", "unknown_item", "invalid_response")
IMPORT_TASKS = (it.RATING, it.WORD_INTRUSION)


def _intrusion(text: str, kind: str, item: dict | None, index_base: int | None) -> str | None:
    """The normalized response of an intrusion row (``"1"``/``"0"`` for correctness, else the word)."""
    folded = text.casefold()
    if kind == "correct":
        return "1" if folded in TRUE else "0" if folded in FALSE else None
    options = item["options"]
    if kind == "option-index":
        try:
            x = float(text)
        except ValueError:
            return None
        if not x.is_integer() or not 0 <= int(x) - index_base < len(options):
            return None
        return options[int(x) - index_base]
    return {o.casefold(): o for o in options}.get(folded)


def _columns(frame: pd.DataFrame, needed: Sequence[tuple[str, str | None]]) -> None:
    absent = [(name, col) for name, col in needed if col is not None and col not in frame.columns]
    if absent:
        missing = ", ".join(f"`{name}` {col!r}" for name, col in absent)
        raise naming(ResultsError(
            f"the results have no column {missing} (found {list(map(str, frame.columns))[:12]})",
            fix="name the file's columns exactly",
        ), *dict.fromkeys(name for name, _ in absent))


def _tasks(frame, task, task_column, task_values) -> pd.Series:
    if (task is None) == (task_column is None):
        raise naming(ParameterError(
            "give the tasks: `task='rating|word_intrusion'` for the whole file, or "
            "`task_column='COL'` (with `task_values='VALUE=TASK,...'`)"
        ), "task", "task_column", "task_values")
    if task is not None:
        if task not in IMPORT_TASKS:
            raise naming(ParameterError(f"task {task!r}: choose from {IMPORT_TASKS}"), "task")
        return pd.Series(task, index=frame.index)
    mapping = {k: v for k, v in (task_values or {}).items()}
    bad = [v for v in mapping.values() if v not in IMPORT_TASKS]
    if bad:
        raise naming(ParameterError(f"task_values maps to {bad}; the tasks are {IMPORT_TASKS}"),
                     "task_values")
    raw = frame[task_column].map(lambda v: str(v).strip().casefold())
    return raw.map(lambda v: mapping.get(v, v if v in IMPORT_TASKS else ""))


@renamed_parameters({"sep": "key_sep"})
def import_survey(
    source,
    *,
    item: Sequence[str],
    annotator: str,
    response: str,
    confidence: str | None = None,
    task: str | None = None,
    task_column: str | None = None,
    task_values: Mapping[str, str] | None = None,
    kind: str | None = None,
    index_base: int | None = None,
    scale: tuple[int, int] | None = None,
    scale_map: Mapping[str, str] | None = None,
    lenient: bool = False,
    study: Study | None = None,
    key_sep: str = "/",
    encoding: str | None = None,
):
    """Read a survey export: judgments in the long format and the study they belong to.

    See the module docstring for how items and responses are read.

    Parameters
    ----------
    source : str, os.PathLike or pandas.DataFrame
        The export: CSV/TSV/JSON, one row per judgment (or the table itself).
    item : sequence of str
        The columns identifying an item, e.g. ``["task", "dataset", "model", "topic"]`` (the
        topic id is these without the task column).
    annotator, response : str
        The annotator's and the response's columns.
    confidence : str, optional
        A confidence (or familiarity) column, kept for ``min_confidence`` in scoring.
    task : str, optional
        The task of every row: ``rating`` or ``word_intrusion`` (or give ``task_column``).
    task_column : str, optional
        The column naming each row's task.
    task_values : mapping of str to str, optional
        What the task column's values mean, e.g. ``{"coherence": "rating"}``.
    kind : str, optional
        What a word-intrusion response is: one of :data:`KINDS`.
    index_base : int, optional
        With ``kind="option-index"``: 0 if the first option is 0, 1 if it is 1.
    scale : tuple of int, optional
        The rating scale ``(low, high)`` (whole numbers; :func:`parse_scale`).
    scale_map : mapping of str to str, optional
        Rating labels and their values (instead of ``scale``; :func:`parse_map`).
    lenient : bool
        Exclude and count unusable rows instead of failing.
    study : Study, optional
        The study the items belong to (from :func:`describe_study`); default: derive one.
    key_sep : str
        Separator joining the key columns (formerly ``sep``).
    encoding : str, optional
        Encoding of the file (default UTF-8; a BOM is removed).

    Returns
    -------
    tuple
        ``(long-format DataFrame, Study, report)``: the judgments (``item_id``,
        ``annotator``, ``response`` and ``confidence`` if given), their study, and the counts
        of rows read, kept and excluded by reason.

    Raises
    ------
    ParameterError
        For an empty ``key_sep``, repeated or no ``item`` columns, or options that are missing or
        do not fit together (the task, the kind of response, the scale).
    ResultsError
        When a named column is missing, a key cell holds ``key_sep``, the results share no item
        with ``study``, the responses match none of the declared kinds, or (unless ``lenient``)
        rows cannot be used.
    EmptyInputError
        When the file has no rows or no usable judgment.
    """
    scale = check_scale(scale)
    index_base = None if index_base is None else INDEX_BASE.check(index_base)
    sep = key_sep
    if not isinstance(sep, str) or not sep:
        raise naming(ParameterError("key_sep must not be empty", fix="e.g. `key_sep='/'`"), "key_sep")
    frame = read_table(source, encoding)
    item = list(item)
    if not item or len(set(item)) != len(item):
        raise naming(ParameterError(
            f"item {item}: name the key columns once each", fix="e.g. `item='task,dataset,model,topic'`"
        ), "item")
    _columns(
        frame,
        [
            *(("item", c) for c in item),
            ("annotator", annotator),
            ("response", response),
            ("confidence", confidence),
            ("task_column", task_column),
        ],
    )
    if frame.empty:
        raise EmptyInputError("the results file has no rows")
    cells = frame.map(lambda v: "" if v is None or (isinstance(v, float) and v != v) else str(v).strip())
    tasks = _tasks(cells, task, task_column, task_values)
    key_cols = [c for c in item if c != task_column]
    if not key_cols:
        raise naming(ParameterError("item needs at least one column besides the task column (the topic)"),
                     "item")
    clash = [(c, v) for c in key_cols for v in cells[c] if sep in v]
    if clash:
        raise naming(ResultsError(
            f"item key column {clash[0][0]!r} holds {clash[0][1]!r}, which contains the key "
            f"separator {sep!r}",
            fix="choose another `key_sep`",
        ), "key_sep")
    topics = cells[key_cols].agg(sep.join, axis=1)
    item_ids = tasks + sep + topics
    reasons = pd.Series("", index=frame.index)
    reasons[(cells[key_cols] == "").any(axis=1)] = "missing_key"
    reasons[(reasons == "") & (cells[annotator] == "")] = "missing_annotator"
    reasons[(reasons == "") & (tasks == "")] = "unknown_task"
    reasons[(reasons == "") & (cells[response] == "")] = "missing_response"
    if study is not None:
        reasons[(reasons == "") & ~item_ids.isin(study.by_id)] = "unknown_item"
        if not (item_ids.isin(study.by_id)).any():
            raise naming(ResultsError(
                f"the study {study.name!r} and the results have no item in common (the "
                f"results' first item ids: {sorted(set(item_ids))[:3]}; the study's: "
                f"{[i['id'] for i in study.items[:3]]})",
                fix="compose the ids with the same item key columns and `key_sep` as the study "
                "(TASK/KEY, e.g. rating/nyt/lda/3)",
            ), "key_sep")
    normalized, used = _normalize(
        cells[response], tasks, item_ids, reasons, study, kind, index_base, scale, scale_map, response
    )
    reasons[(reasons == "") & normalized.isna()] = "invalid_response"
    counts = Counter(reasons[reasons != ""])
    report = {
        "rows_read": int(len(frame)),
        "rows_kept": int((reasons == "").sum()),
        "excluded": {r: int(counts.get(r, 0)) for r in REASONS},
        "examples": {
            r: _examples(cells, reasons, r, [*item, annotator, response]) for r in REASONS if counts.get(r)
        },
    }
    strict = {r: n for r, n in counts.items() if r in STRICT}
    if strict and not lenient:
        first = next(r for r in STRICT if r in strict)
        raise naming(ResultsError(
            f"{sum(strict.values())} result rows cannot be used: {strict}; e.g. {first}: "
            f"{report['examples'][first][0]}",
            fix="fix the file or the declared `scale`/`kind`, or pass `lenient` to exclude and count them",
        ), "scale", "kind", "lenient")
    keep = reasons == ""
    if not keep.any():
        raise EmptyInputError(f"no usable judgments in the results: {report['excluded']}")
    long = pd.DataFrame(
        {"item_id": item_ids[keep], "annotator": cells.loc[keep, annotator], "response": normalized[keep]}
    )
    if confidence:
        long["confidence"] = cells.loc[keep, confidence]
    if study is None:
        study = _derive_study(
            long, tasks[keep], topics[keep], cells.loc[keep, key_cols], key_cols, sep, used, kind
        )
    return long.reset_index(drop=True), study, report


def _normalize(values, tasks, item_ids, reasons, study, kind, index_base, scale, scale_map, column):
    """Each usable row's response in the study's options; a whole task matching nothing is an error."""
    out = pd.Series(None, index=values.index, dtype=object)
    used = {}
    for task in IMPORT_TASKS:
        rows = (reasons == "") & (tasks == task)
        if not rows.any():
            continue
        if study is not None:
            _check_tasks(item_ids[rows], study, task)
        if task == it.RATING:
            if scale is None and scale_map is None:
                raise naming(ParameterError(
                    "rating rows need their values declared: `scale='LOW-HIGH'` (e.g. 1-3) or "
                    "`scale_map='label=value,...'`",
                    fix="the values are never guessed",
                ), "scale", "scale_map")
            options, table = scale_values(scale, scale_map)
            used[task] = options
            if study is not None:
                _check_options(item_ids[rows], study, options)
            out[rows] = [_rating(v, table) for v in values[rows]]
            declared = (f"on the rating range {options[0]}..{options[-1]}" if scale
                        else f"among the scale_map labels {list(table)[:6]}")
        else:
            if kind not in KINDS:
                raise naming(ParameterError(
                    f"word-intrusion rows need `kind`, one of {KINDS}",
                    fix="what a response means is never guessed",
                ), "kind")
            if kind == "option-index" and index_base not in (0, 1):
                raise naming(ParameterError(
                    "kind option-index needs `index_base` 0 or 1 (is the first option 0 or 1?)",
                    fix="the base is never guessed",
                ), "kind", "index_base")
            if kind != "correct" and study is None:
                raise naming(ParameterError(
                    f"kind {kind} needs each item's options and intruder: pass `study` "
                    "(described with its intruders)",
                    fix="or import correctness with `kind='correct'`",
                ), "kind", "study")
            items = [study.by_id.get(i) if study is not None else None for i in item_ids[rows]]
            if study is not None:
                _check_coding(items, kind)
            out[rows] = [_intrusion(v, kind, itm, index_base) for v, itm in zip(values[rows], items)]
            declared = {
                "correct": "correct/incorrect (1/0, true/false)",
                "option-index": f"an option index ({index_base}-based)",
                "chosen-word": "one of the item's words",
            }[kind]
        if out[rows].isna().all():
            example = values[rows].iloc[0]
            raise naming(ResultsError(
                f"the response column {column!r} matches none of the declared kinds for {task} rows: "
                f"none of its {int(rows.sum())} values is {declared} (e.g. {example!r})",
                fix="declare what the column holds (`kind`, `scale`, `scale_map`)",
            ), "kind", "scale", "scale_map")
    return out, used


def _check_coding(items, kind: str) -> None:
    """The study's word-intrusion items must be coded as the declared kind reads them."""
    want_correct = kind == "correct"
    bad = next((i for i in items if i is not None and (i.get("coding") == "correct") != want_correct), None)
    if bad is None:
        return
    if want_correct:
        raise naming(ParameterError(
            f"kind correct, but the study's item {bad['id']!r} lists the words shown; "
            "0/1 correctness cannot say which word was chosen",
            fix="describe the study without intruders for correctness, or import "
            "`kind='chosen-word'` / `kind='option-index'`",
        ), "kind")
    raise naming(ParameterError(
        f"kind {kind}, but the study's item {bad['id']!r} is coded correct/incorrect (no intruder)",
        fix="describe the study with its intruders (and the options as shown), or import `kind='correct'`",
    ), "kind")


def _check_tasks(item_ids, study: Study, task: str) -> None:
    """The study's items matched by the ``task`` rows' ids must be ``task`` items (the id ``TASK/KEY`` names
    the task): a study whose item id names another task than its ``task`` field is inconsistent."""
    from tealeaves.errors import StudyFormatError

    for item_id in dict.fromkeys(item_ids):
        item = study.by_id.get(item_id)
        if item is not None and item.get("task") != task:
            raise StudyFormatError(
                f"the study's item {item_id!r} is a {item.get('task')!r} item, but its id (and the results' "
                f"{task} rows) name the task {task!r}",
                fix="describe the study again (tealeaves human describe-study), each item id TASK/KEY of its "
                    "own task",
            )


def _check_options(item_ids, study: Study, options: list[str]) -> None:
    """The study's rating items must be on the declared scale."""
    for item_id in dict.fromkeys(item_ids):
        item = study.by_id.get(item_id)
        if item is not None and sorted(item["options"], key=float) != options:
            raise ParameterError(
                f"the study's item {item_id!r} is rated on {sorted(item['options'], key=float)}, but the "
                f"declared scale is {options}",
                fix="declare the study's scale, or describe the study with the scale of the data",
            )


def _examples(cells, reasons, reason, cols, n: int = 3) -> list[dict]:
    rows = cells[reasons == reason].head(n)
    return [{"row": int(i) + 1, **{c: rows.at[i, c] for c in dict.fromkeys(cols)}} for i in rows.index]


def _derive_study(long, tasks, topics, keys, key_cols, sep, used, kind) -> Study:
    """The external study record of imported judgments: one item per task and topic."""
    items = []
    for item_id, task, topic in dict.fromkeys(zip(long["item_id"], tasks, topics)):
        entry = {"id": item_id, "task": task, "topic": topic, "check": False}
        if task == it.RATING:
            entry["options"] = used[it.RATING]
        else:
            entry.update(options=["1", "0"], answer="1", coding="correct")
        items.append(entry)
    settings = {
        "origin": "external",
        "tasks": sorted(set(tasks)),
        "item_key": ["task", *key_cols],
        "topic_key": key_cols,
        "key_sep": sep,
    }
    if it.RATING in used:
        settings["rating_scale"] = used[it.RATING]
    if kind:
        settings["intrusion_coding"] = kind
    return Study(items=items, name="imported", settings=settings)


def _word_lists(raw, what: str) -> dict[str, object]:
    """``{topic: value}`` from a JSON object, or records with ``topic``."""
    if isinstance(raw, list) and all(isinstance(r, dict) and "topic" in r for r in raw):
        return {str(r["topic"]): r for r in raw}
    if isinstance(raw, dict) and raw:
        return {str(k): v for k, v in raw.items()}
    raise naming(InputFormatError(f"{what} must be a JSON object {{topic: ...}} or a list of records with "
                                  "'topic'"), what)


def load_json(path: str | os.PathLike, what: str):
    """Read a JSON file given as the Python parameter ``what`` (errors name it).

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    what : str
        The parameter it is given as (``topics``, ``intruders``, ``checks``).

    Returns
    -------
    object
        The decoded JSON (``NaN`` and ``Infinity`` read as ``None``).

    Raises
    ------
    InputNotFoundError, InputFormatError
        When the file cannot be read or is not JSON (the error names ``what``).
    """
    try:
        return json.loads(read_text(path, what=what, utf8_only=True), parse_constant=lambda c: None)
    except ValueError as exc:
        if isinstance(exc, TealeavesError):
            raise naming(exc, what) from None
        raise naming(InputFormatError(f"{what} '{path}' is not JSON ({exc})"), what) from None


def _json_arg(value, what: str):
    """``value``, read from its JSON file when it is a path."""
    return load_json(value, what) if isinstance(value, (str, os.PathLike)) else value


@renamed_parameters({"sep": "key_sep"})
def describe_study(
    topics,
    *,
    intruders=None,
    tasks: Sequence[str] = IMPORT_TASKS,
    scale: Sequence[str] | None = None,
    name: str = "external",
    key_sep: str = "/",
    checks=None,
) -> Study:
    """The study record of judgments collected elsewhere (``settings.origin: "external"``).

    Parameters
    ----------
    topics : mapping, list of records, str or os.PathLike
        ``{topic: [words]}`` (or records ``{"topic": ..., "words": [...]}``), or its JSON file.
    intruders : mapping, str or os.PathLike, optional
        ``{topic: word}`` or ``{topic: {"intruder": word, "options": [words as shown]}}``, or its
        JSON file; without one, a topic's word-intrusion item is coded correct/incorrect (options
        ``1``/``0``), which gives model precision but no chosen word.
    tasks : sequence of str
        ``rating`` and/or ``word_intrusion``.
    scale : sequence of str, optional
        The rating options (default ``0..2``).
    name : str
        The study's name.
    key_sep : str
        Separator between the task and the topic in item ids (formerly ``sep``).
    checks : mapping, str or os.PathLike, optional
        ``{topic: {task: [accepted responses]}}`` (or ``{topic: [accepted]}`` for every task), or
        its JSON file: marks those topics' items as attention checks, which screen annotators
        (``min_check_accuracy`` in scoring) and never enter the scores.

    Returns
    -------
    Study
        The described study.

    Raises
    ------
    ParameterError
        For an empty ``key_sep`` or a task that is not ``rating`` or ``word_intrusion``.
    InputFormatError
        When a topic has no words, or ``intruders`` or ``checks`` name unknown topics or give
        invalid entries.
    EmptyInputError
        When the study has no items.
    """
    sep = key_sep
    if not isinstance(sep, str) or not sep:
        raise naming(ParameterError("key_sep must not be empty", fix="e.g. `key_sep='/'`"), "key_sep")
    topics, intruders, checks = (None if v is None else _json_arg(v, what) for v, what in (
        (topics, "topics"), (intruders, "intruders"), (checks, "checks")))
    lists = {}
    for topic, value in _word_lists(topics, "topics").items():
        words = value.get("words") if isinstance(value, dict) else value
        if (
            not isinstance(words, list)
            or not words
            or not all(isinstance(w, str) and w.strip() for w in words)
        ):
            raise naming(InputFormatError(f"topics: topic {topic!r} needs a non-empty list of words "
                                          "(strings)"), "topics")
        lists[topic] = words
    known = {} if intruders is None else _word_lists(intruders, "intruders")
    unknown = sorted(set(known) - set(lists))
    if unknown:
        raise naming(InputFormatError(f"intruders names topic(s) {unknown[:5]} that are not in `topics`"),
                     "intruders", "topics")
    items = []
    for task in tasks:
        if task not in IMPORT_TASKS:
            raise naming(ParameterError(f"tasks {task!r}: an external study describes {IMPORT_TASKS}"),
                         "tasks")
        for topic, words in lists.items():
            entry = {
                "id": f"{task}{sep}{topic}",
                "task": task,
                "topic": topic,
                "check": False,
                "words": words,
            }
            if task == it.RATING:
                entry["options"] = list(scale or ["0", "1", "2"])
            else:
                entry.update(_intruder_fields(topic, words, known.get(topic)))
            items.append(entry)
    _mark_checks(items, {} if checks is None else _word_lists(checks, "checks"), set(lists))
    it.require_items(items)
    study = Study(
        items=items, name=name, settings={"origin": "external", "tasks": list(tasks), "key_sep": sep}
    )
    from tealeaves.human.schema import validate_study

    validate_study(study.to_dict(), "<described study>")
    return study


def _mark_checks(items: list[dict], checks: Mapping, topics: set) -> None:
    """Flag the items of ``checks`` (``{topic: {task: [accepted]} | [accepted]}``) as check items."""
    unknown = sorted(set(checks) - topics)
    if unknown:
        raise naming(InputFormatError(f"checks names topic(s) {unknown[:5]} that are not in `topics`"),
                     "checks", "topics")
    for entry in items:
        spec = checks.get(entry["topic"])
        if spec is None:
            continue
        accepted = spec.get(entry["task"]) if isinstance(spec, dict) else spec
        if accepted is None:
            continue
        ok = (
            isinstance(accepted, list)
            and accepted
            and all(isinstance(a, str) or (isinstance(a, int) and not isinstance(a, bool)) for a in accepted)
        )
        values = [str(a) for a in accepted] if ok else []
        if not ok or any(v not in entry["options"] for v in values):
            raise naming(InputFormatError(
                f"checks: topic {entry['topic']!r} ({entry['task']}) needs a non-empty "
                f"list of accepted responses among {entry['options']}, found {accepted!r}"
            ), "checks")
        entry.update(check=True, expected=values)


def _intruder_fields(topic: str, words: list[str], known) -> dict:
    if known is None:
        return {"options": ["1", "0"], "answer": "1", "coding": "correct"}
    intruder = known.get("intruder") if isinstance(known, dict) else known
    options = known.get("options") if isinstance(known, dict) and known.get("options") else [*words, intruder]
    if not isinstance(intruder, str) or intruder not in options or len(set(options)) != len(options):
        raise naming(InputFormatError(
            f"intruders: topic {topic!r} needs an intruder (a string) among distinct "
            f"options, found {known!r}"
        ), "intruders")
    return {"options": list(options), "answer": intruder, "coding": "word"}




def save_judgments(long: pd.DataFrame, study: Study, path) -> dict:
    """Write imported judgments as long-format CSV, or into a judgment database (by the suffix).

    A database is bound to the study (its fingerprint) and holds one judgment
    per annotator and item, so the rows are first resolved exactly as scoring
    resolves them (:func:`tealeaves.human.results.read_results`: exact
    duplicates kept once, conflicting answers of one annotator to one item all
    dropped, and counted).  Each judgment's idempotency key is derived from the
    item and annotator, so importing the same file again stores nothing twice.

    Parameters
    ----------
    long : pandas.DataFrame
        The judgments in the long format (from :func:`import_survey`).
    study : Study
        Their study.
    path : str or os.PathLike
        A ``.sqlite``, ``.sqlite3`` or ``.db`` file (:data:`STORE_SUFFIXES`) is a judgment
        database (:class:`~tealeaves.human.store.JudgmentStore`); any other a CSV.

    Returns
    -------
    dict
        ``{"format": "csv", "rows": n}``, or ``{"format": "sqlite", "resolved": {...},
        "store": {...}}``: the rows excluded when resolving, by reason, and the submissions by
        outcome (``stored``, ``duplicate``, ``conflict``).

    Raises
    ------
    StoreError
        When the database cannot be used or belongs to another study.
    """
    import hashlib
    from pathlib import Path

    from tealeaves.human.export import write_long
    from tealeaves.human.results import read_results
    from tealeaves.human.store import JudgmentStore

    if Path(path).suffix.lower() not in STORE_SUFFIXES:
        return {"format": "csv", "rows": write_long(long.to_dict("records"), path)}
    resolved = read_results(long, study)
    store = JudgmentStore(path, "NORMAL")
    try:
        store.bind_study(study.fingerprint, study.name)
        store.ensure_annotators(sorted(set(resolved.frame["annotator"])))
        counts: Counter = Counter()
        for row in resolved.frame.to_dict("records"):
            blob = f"import\x00{row['item_id']}\x00{row['annotator']}".encode()
            key = hashlib.sha256(blob).hexdigest()[:32]
            conf = row.get("confidence")
            counts[
                store.submit(
                    row["annotator"],
                    row["item_id"],
                    row["response"],
                    key,
                    platform="import",
                    confidence=None if conf is None or conf != conf else float(conf),
                )
            ] += 1
    finally:
        store.close()
    return {"format": "sqlite", "resolved": resolved.report["excluded"], "store": dict(counts)}
