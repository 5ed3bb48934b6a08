"""Export of study items for survey and crowdsourcing platforms, and of judgments in long format.

Item files never contain answers or check flags (those stay in the study
file).  The CSV has one row per item with flat columns (``option_1`` ...
``option_n``, ``words``, ``title``, ``text``, per-option topic words, per-language
words) so that platforms that template HTML from CSV columns (Amazon
Mechanical Turk, Prolific/Qualtrics loop-and-merge, Figure Eight) can ingest
it directly; the JSON is the list of the same public items.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from tealeaves._io import atomic_write, write_text
from tealeaves.errors import ParameterError
from tealeaves.human.items import RATING_SCALE
from tealeaves.human.study import Study

#: Columns of the long results format, in order (the first three are required).
LONG_COLUMNS = ("item_id", "annotator", "response", "confidence", "time", "platform")


def item_row(item: Mapping) -> dict:
    """Flatten a public item into one CSV row.

    Parameters
    ----------
    item : mapping
        A public item (:meth:`~tealeaves.human.study.Study.public_item`).

    Returns
    -------
    dict
        ``item_id``, ``task``, ``n_options``, ``option_1`` ... ``option_n`` (with
        ``option_i_words`` for topic intrusion, ``option_i_label`` on the 2 / 1 / 0 rating scale),
        ``words`` (or ``language_j`` and ``words_j`` per language), and ``document``, ``title``,
        ``text`` where the item has them.
    """
    row = {"item_id": item["id"], "task": item["task"], "n_options": len(item["options"])}
    for i, opt in enumerate(item["options"], 1):
        row[f"option_{i}"] = opt
        if "option_words" in item:
            row[f"option_{i}_words"] = " ".join(item["option_words"][opt])
        elif set(item["options"]) == set(RATING_SCALE):
            row[f"option_{i}_label"] = RATING_SCALE[opt]
    if isinstance(item.get("words"), list):
        row["words"] = " ".join(item["words"])
    elif isinstance(item.get("words"), Mapping):
        for j, lang in enumerate(item["languages"], 1):
            row[f"language_{j}"] = lang
            row[f"words_{j}"] = " ".join(item["words"][lang])
    for key in ("document", "title", "text"):
        if key in item:
            row[key] = item[key]
    return row


def export_items(study: Study, path: str | Path, fmt: str | None = None) -> Path:
    """Write the study's public items as ``csv`` or ``json`` (guessed from the suffix by default).

    Parameters
    ----------
    study : Study
        The study.
    path : str or os.PathLike
        The items file, written atomically.
    fmt : {"csv", "json"}, optional
        The format (default: the file's suffix).

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    ParameterError
        When the format is neither ``csv`` nor ``json``.
    """
    path = Path(path)
    fmt = fmt or path.suffix.lstrip(".").lower()
    if fmt not in ("csv", "json"):
        raise ParameterError(f"unknown item export format {fmt!r} (from '{path.name}')",
                             fix="name the output .csv or .json")
    public = [study.public_item(item["id"]) for item in study.items]
    if fmt == "json":
        write_text(path, json.dumps(public, indent=1, ensure_ascii=False), what="items file")
        return path
    rows = [item_row(p) for p in public]
    columns = list(dict.fromkeys(k for r in rows for k in r))
    with atomic_write(path, what="items file") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return path


def write_long(rows: Iterable[Mapping], path: str | Path, extra: tuple[str, ...] = ()) -> int:
    """Write judgments in the long format (one row per item, annotator and response).

    Parameters
    ----------
    rows : iterable of mapping
        The judgments, with keys among :data:`LONG_COLUMNS` and ``extra`` (others ignored;
        missing or None values are written empty).
    path : str or os.PathLike
        The CSV file, written atomically.
    extra : tuple of str
        Columns written after :data:`LONG_COLUMNS`.

    Returns
    -------
    int
        The number of rows written.
    """
    n = 0
    with atomic_write(path, what="results file") as fh:
        writer = csv.DictWriter(fh, fieldnames=[*LONG_COLUMNS, *extra], extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in (*LONG_COLUMNS, *extra)})
            n += 1
    return n
