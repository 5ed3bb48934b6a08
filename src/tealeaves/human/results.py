"""Import of human judgments in the long format, validated against the study.

The long format has one row per (item, annotator, response)::

    item_id,annotator,response[,confidence][,time][,platform]

``response`` is one of the item's options: the chosen word (word intrusion),
the chosen topic id (topic intrusion), or 2 / 1 / 0 for a rating (the labels
"coherent", "somewhat coherent", "incoherent" are accepted too).  ``time`` is
the seconds spent on the item, ``confidence`` any number.  Other columns are
ignored.  A column mapping (``{"item_id": "Input.item", ...}``) reads platform
exports whose columns have other names.

Rows that cannot be used are excluded and counted by reason (the
``report``); with ``strict=True`` any such row is an error instead.  Missing
required columns and an empty file are always errors.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from tealeaves._io import loads_strict, read_text
from tealeaves.errors import EmptyInputError, ResultsError
from tealeaves.human.export import LONG_COLUMNS
from tealeaves.human.items import RATING_SCALE
from tealeaves.human.store import STORE_SUFFIXES, JudgmentStore
from tealeaves.human.study import Study, check_annotators

REQUIRED = LONG_COLUMNS[:3]

#: Exclusion reasons, in report order.
REASONS = ("missing_value", "unknown_item", "unknown_annotator", "invalid_response", "duplicate_row",
           "conflicting_duplicate")


@dataclass
class JudgmentResults:
    """Validated judgments of a study and the import report (:func:`read_results`).

    Parameters
    ----------
    frame : pandas.DataFrame
        The judgments kept, in the long format (``item_id``, ``annotator``, ``response``, and
        ``confidence``, ``time``, ``platform`` where read), responses normalised to the item's options.
    report : dict
        The import report: ``rows_read``, ``rows_kept``, ``excluded`` (counts by reason,
        :data:`REASONS`), ``examples``, ``invalid_values`` and, where found, ``outside_scale``.
    annotator_meta : dict
        Annotator -> the metadata the judgment database keeps of it (the language-model annotators
        of ``tealeaves human ask``: :func:`~tealeaves.human.llm.ask.annotator_metadata`); empty for
        judgments read from a table.
    """

    frame: pd.DataFrame
    report: dict = field(default_factory=dict)
    annotator_meta: dict = field(default_factory=dict)

    @property
    def annotators(self) -> list[str]:
        """The annotators of the judgments, sorted."""
        return sorted(self.frame["annotator"].unique())


#: The former name of :class:`JudgmentResults`.
Results = JudgmentResults


def parse_column_map(text: str | None) -> dict[str, str]:
    """Parse ``"item_id=Input.item,annotator=WorkerId"`` into ``{"item_id": "Input.item", ...}``.

    Parameters
    ----------
    text : str or None
        Comma-separated ``OURS=THEIRS`` pairs, ``OURS`` one of the long format's columns.

    Returns
    -------
    dict of str to str
        Our column names to the file's (empty for no ``text``).

    Raises
    ------
    ResultsError
        When a pair has no ``=`` or names a column that is not one of the long format's.

    Examples
    --------
    >>> parse_column_map("item_id=Input.item,annotator=WorkerId")
    {'item_id': 'Input.item', 'annotator': 'WorkerId'}
    """
    if not text:
        return {}
    out = {}
    for part in text.split(","):
        ours, sep, theirs = part.partition("=")
        if not sep or ours.strip() not in LONG_COLUMNS:
            raise ResultsError(f"bad column mapping {part!r}: write OURS=THEIRS with OURS one of "
                               f"{LONG_COLUMNS}")
        out[ours.strip()] = theirs.strip()
    return out


def normalize_response(item: Mapping, value: object) -> str | None:
    """The item option ``value`` denotes, or None if it is not one of them.

    Tried in turn: the option as written; on a 2 / 1 / 0 rating scale, its label
    (``"coherent"``, any case); a whole number written as a float (``"2.0"``); the option up to case.

    Parameters
    ----------
    item : mapping
        The study item (its ``options``).
    value : object
        The response as read.

    Returns
    -------
    str or None
        The option, or None when ``value`` is none of them.
    """
    text = str(value).strip()
    options = item["options"]
    if text in options:
        return text
    if set(options) == set(RATING_SCALE):
        labels = {label: key for key, label in RATING_SCALE.items()}
        if text.lower() in labels:
            return labels[text.lower()]
    try:
        number = float(text)
        if number.is_integer() and str(int(number)) in options:
            return str(int(number))
    except ValueError:
        pass
    folded = {o.casefold(): o for o in options}
    return folded.get(text.casefold())


def read_table(source, encoding: str | None = None) -> pd.DataFrame:
    """A results table from a DataFrame or a CSV/TSV/JSON/JSON-lines file (read by :mod:`tealeaves._io`).

    Parameters
    ----------
    source : str, os.PathLike or pandas.DataFrame
        A DataFrame (copied), or a file: ``.json`` (a list of objects), ``.jsonl`` (one object per
        line), a judgment database (``.sqlite``, ``.sqlite3``, ``.db``:
        :class:`~tealeaves.human.store.JudgmentStore`), or else CSV/TSV (the separator is sniffed;
        every cell is read as text).
    encoding : str, optional
        Encoding of the file (default UTF-8).

    Returns
    -------
    pandas.DataFrame
        The table as read.

    Raises
    ------
    EmptyInputError
        When the file is empty.
    ResultsError
        When the file cannot be parsed, is not a list of records, or has a column twice.
    """
    if isinstance(source, pd.DataFrame):
        return source.copy()
    path = Path(source)
    if _is_store(path):  # a judgment database (annotate serve, human import, human ask)
        return _store_rows(path)
    text = read_text(path, encoding, what="results file")
    if not text.strip():
        raise EmptyInputError(f"the results file {path} is empty",
                              fix="export the judgments again (header item_id,annotator,response)")
    try:
        if path.suffix.lower() in (".json", ".jsonl"):
            return _json_records(text, path)
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, sep=None, engine="python")
    except (ValueError, csv.Error, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise ResultsError(f"cannot parse results file {path}: {exc}",
                           fix="give a CSV/TSV with a header line, or JSON records") from None
    doubled = [c for c in frame.columns if re.fullmatch(r".+\.\d+", str(c)) and str(c).rsplit(".", 1)[0]
               in frame.columns]
    if doubled:
        name = doubled[0].rsplit(".", 1)[0]
        raise ResultsError(f"results file {path} has the column {name!r} more than once",
                           fix="keep one column of each name")
    return frame


def _is_store(source) -> bool:
    """Whether ``source`` names a judgment database (by its suffix)."""
    return not isinstance(source, pd.DataFrame) and Path(source).suffix.lower() in STORE_SUFFIXES


def _store_rows(path: Path) -> pd.DataFrame:
    """The judgments of a judgment database, in the long format."""
    store = JudgmentStore(path, readonly=True)
    try:
        rows = store.rows()
    finally:
        store.close()
    if not rows:
        raise EmptyInputError(f"the judgment database {path} holds no judgments",
                              fix="collect or import judgments into it first")
    return pd.DataFrame(rows)


def _json_records(text: str, path: Path) -> pd.DataFrame:
    """JSON: a list of objects, or JSON lines (one object per line); NaN/Infinity literals are refused."""
    if path.suffix.lower() == ".jsonl":
        records = [loads_strict(line) for line in text.splitlines() if line.strip()]
    else:
        records = loads_strict(text)
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise ResultsError(f"results file {path} must hold a list of objects (records), one per judgment",
                           fix='e.g. [{"item_id": "wi-0", "annotator": "ann", "response": "oil"}]')
    return pd.DataFrame.from_records(records)


def read_results(source, study: Study, columns: Mapping[str, str] | None = None, *,
                 annotators: list[str] | None = None, strict: bool = False,
                 encoding: str | None = None) -> JudgmentResults:
    """Read and validate judgments from a CSV/TSV/JSON file or a DataFrame.

    Exact duplicate rows are kept once; an annotator who gave different responses to the same
    item has all those rows excluded.

    Parameters
    ----------
    source : str, os.PathLike or pandas.DataFrame
        The judgments in the long format (``item_id``, ``annotator``, ``response``...), or a
        judgment database (:func:`read_table`).
    study : Study
        The study they answer.
    columns : mapping of str to str, optional
        Our column names to the file's (e.g. ``{"annotator": "WorkerId"}``;
        :func:`parse_column_map` reads ``item_id=Input.item,...``).
    annotators : list of str, optional
        The known annotators (default: the study's, if it lists them); rows naming others are
        excluded.
    strict : bool
        Fail on any unusable row instead of excluding it.
    encoding : str, optional
        Encoding of the file (default UTF-8; a BOM is removed).

    Returns
    -------
    JudgmentResults
        The judgments kept and the report of those excluded.

    Raises
    ------
    ResultsError
        When required columns are missing (after the mapping) or doubled, or, with ``strict``,
        when any row is unusable.
    EmptyInputError
        When the file has no rows or no usable judgment is left.
    """
    annotators = check_annotators(annotators) if annotators is not None else None
    frame = read_table(source, encoding)
    columns = dict(columns or {})
    rename = {theirs: ours for ours, theirs in columns.items()}
    frame = frame.rename(columns=rename)
    clash = sorted({str(c) for c in frame.columns[frame.columns.duplicated()]})
    if clash:
        raise ResultsError(f"after the column mapping the results have the column(s) {clash} twice",
                           fix="map each of our columns to one column of the file")
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        from tealeaves._params import naming

        raise naming(ResultsError(f"results lack the column(s) {missing} (found {list(frame.columns)[:10]}); "
                                  "rename them or pass a column mapping, e.g. "
                                  "`columns='item_id=Input.item'`"),
                     "columns")
    if frame.empty:
        raise EmptyInputError("the results file has no rows")
    keep = [c for c in LONG_COLUMNS if c in frame.columns]
    frame = frame[keep].copy()
    for c in REQUIRED:
        frame[c] = frame[c].map(_text)
    reasons = pd.Series("", index=frame.index)
    known = annotators if annotators is not None else study.annotators
    reasons[(frame[list(REQUIRED)] == "").any(axis=1)] = "missing_value"
    reasons[(reasons == "") & ~frame["item_id"].isin(study.by_id)] = "unknown_item"
    if known is not None:
        reasons[(reasons == "") & ~frame["annotator"].isin(set(known))] = "unknown_annotator"
    ok = reasons == ""
    chosen = pd.Series(None, index=frame.index, dtype=object)
    chosen[ok] = [normalize_response(study.by_id[i], r)
                  for i, r in zip(frame.loc[ok, "item_id"], frame.loc[ok, "response"])]
    reasons[ok & chosen.isna()] = "invalid_response"
    ok = reasons == ""
    dup = ok & frame.assign(response=chosen).duplicated(["item_id", "annotator", "response"], keep="first")
    reasons[dup] = "duplicate_row"
    ok = reasons == ""
    twice = frame[ok].duplicated(["item_id", "annotator"], keep=False)
    conflict = ok & twice.reindex(frame.index, fill_value=False)
    reasons[conflict] = "conflicting_duplicate"
    counts = Counter(reasons[reasons != ""])
    report = {"rows_read": int(len(frame)), "rows_kept": int((reasons == "").sum()),
              "excluded": {r: int(counts.get(r, 0)) for r in REASONS},
              "examples": {r: _examples(frame[reasons == r]) for r in REASONS if counts.get(r)}}
    outside = _outside_scale(frame[reasons == "invalid_response"], study)
    if outside:
        report["outside_scale"] = outside
    if strict and counts:
        raise ResultsError(f"results rows rejected (strict mode): {dict(counts)}; e.g. {report['examples']}")
    kept = frame[reasons == ""].assign(response=chosen[reasons == ""]).reset_index(drop=True)
    if kept.empty:
        common = frame["item_id"].isin(study.by_id).any()
        hint = "" if common else (
            f"; the results and the study have no item in common (the results' items: "
            f"{sorted(set(frame['item_id']) - {''})[:3]}, the study's: {[i['id'] for i in study.items[:3]]})")
        raise EmptyInputError(f"no usable judgments in the results: {report['excluded']}{hint}",
                              fix=None if common else "score the results against the study they answer "
                              "(`human import` composes item ids as TASK/KEY)")
    report["invalid_values"] = {}
    for c in ("confidence", "time"):
        if c in kept.columns:
            kept[c], report["invalid_values"][c] = _optional_numbers(kept[c])
    if _is_store(source):
        from tealeaves.human.llm.meta import annotator_metadata

        return JudgmentResults(kept, report, annotator_metadata(source))
    return JudgmentResults(kept, report)


def _outside_scale(rows: pd.DataFrame, study: Study) -> dict | None:
    """Rating responses that are numbers outside the item's scale (a sign the data use another scale)."""
    def outside(item_id, value) -> bool:
        item = study.by_id[item_id]
        if item["task"] not in ("rating", "multilingual_rating"):
            return False
        try:
            x = float(value)
        except ValueError:
            return False
        scale = [float(o) for o in item["options"]]
        return math.isfinite(x) and not min(scale) <= x <= max(scale)

    hits = rows[[outside(i, r) for i, r in zip(rows["item_id"], rows["response"])]]
    if hits.empty:
        return None
    scales = sorted({tuple(study.by_id[i]["options"]) for i in hits["item_id"]})
    return {"n": int(len(hits)), "values": sorted(set(hits["response"]))[:10],
            "scales": [list(s) for s in scales]}


def _optional_numbers(column: pd.Series) -> tuple[pd.Series, int]:
    """An optional numeric column (confidence, time): finite numbers >= 0 kept, others null and counted.

    An empty cell is simply missing; a cell that is not a finite number >= 0
    (``high``, ``inf``, ``-3``) becomes null and is counted under
    ``import.invalid_values`` (the row itself is kept: scores do not use it).
    """
    def number(value) -> float | None:
        text = _text(value)
        try:
            x = float(text)
        except ValueError:
            return None
        return x if math.isfinite(x) and x >= 0 else None

    values = column.map(number)
    invalid = int((values.isna() & (column.map(_text) != "")).sum())
    return values.astype(float), invalid


def _text(value) -> str:
    """A cell as stripped text; missing cells (None, NaN) become ''."""
    return "" if value is None or (isinstance(value, float) and value != value) else str(value).strip()


def _examples(rows: pd.DataFrame, n: int = 3) -> list[dict]:
    """Up to ``n`` excluded rows as they were read (text), for the report."""
    return rows.head(n)[list(REQUIRED)].map(_text).to_dict("records")
