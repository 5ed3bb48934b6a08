"""Shared rendering of results for the command line (JSON or aligned text), and writing them.

Output never holds NaN or infinity: a non-finite number anywhere in a JSON result or a
text table raises :class:`~tealeaves.errors.OutputError` naming where it is (e.g.
``result.rows[2].perplexity``), so the command ends with ``tealeaves: error: ...`` and exit
status 1 instead of printing a number no JSON reader accepts.  Measures that have no
value for an input return a documented ``None`` (written ``null``) instead.  An output
path is checked before the work starts with :func:`check_output_path` (the same
:func:`tealeaves._io.atomic_write` the final write uses: no partial files).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves.errors import OutputError


def to_jsonable(obj: object, where: str = "result") -> object:
    """Convert numpy scalars/arrays and dataclass-like objects for ``json.dumps``.

    Objects with a ``to_dict`` method are converted through it; mappings, lists and
    tuples recursively.

    Parameters
    ----------
    obj : object
        The value.
    where : str, default "result"
        Its place, used to name a non-finite number.

    Returns
    -------
    object
        Plain dicts, lists, numbers, strings, booleans and None.

    Raises
    ------
    OutputError
        For a NaN or infinite number, naming its place in ``obj``.
    """
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v, f"{where}.{k}") for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v, f"{where}[{i}]") for i, v in enumerate(obj)]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist(), where)
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        return _check_finite(float(obj), where)
    if hasattr(obj, "to_dict"):
        return to_jsonable(obj.to_dict(), where)
    return obj


def _check_finite(value: float, where: str) -> float:
    if not math.isfinite(value):
        raise OutputError(f"the result holds a non-finite number ({value}) at {where}, which no output "
                          "may carry", fix="this is a bug in tealeaves: please report it with the command "
                          "line that produced it")
    return value


def dump_json(obj: object) -> str:
    """Serialise ``obj`` as indented JSON, refusing NaN and infinity (:class:`OutputError`).

    Parameters
    ----------
    obj : object
        The value (see :func:`to_jsonable`).

    Returns
    -------
    str
        The JSON text (two-space indent, non-ASCII kept).

    Raises
    ------
    OutputError
        For a NaN or infinite number.
    """
    return json.dumps(to_jsonable(obj), indent=2, ensure_ascii=False, allow_nan=False)


def print_report(fmt: str, report: object, text: Callable[[], str]) -> None:
    """Print a command's report: as JSON when ``fmt`` is ``"json"``, else the text ``text()`` builds.

    Parameters
    ----------
    fmt : str
        The ``format`` asked for.
    report : object
        The JSON form (see :func:`dump_json`).
    text : callable
        ``() -> str``, the text form; called only when it is printed.

    Raises
    ------
    OutputError
        For a NaN or infinite number in the JSON form.
    """
    print(dump_json(report) if fmt == "json" else text())


@shared_doc
def check_output_path(path: str | os.PathLike[str], what: str = "output file") -> None:
    """Refuse, before any long work, an output path that cannot be written.

    Tries :func:`tealeaves._io.atomic_write` itself (its temporary file is removed), so
    the check is exactly the one the final write makes.

    Parameters
    ----------
    path : str or os.PathLike
        The output path.
    %(output_what)s

    Raises
    ------
    OutputError
        For a folder, a missing folder, no permission or a full disk, now rather than at the end.
    """
    from tealeaves._io import atomic_write

    class _Probe(Exception):
        pass

    try:
        with atomic_write(path, what=what):
            raise _Probe
    except _Probe:
        pass


@shared_doc
def format_table(rows: Sequence[Mapping[str, object]], columns: Sequence[str] | None = None,
                 floatfmt: str = ".3f") -> str:
    """Render rows of dicts as a plain aligned text table.

    Parameters: %(table_rows)s %(table_columns)s %(table_floatfmt)s

    Returns: %(returns_table)s

    Raises
    ------
    OutputError
        For a NaN or infinite cell.
    """
    if not rows:
        return "(no rows)"
    columns = list(columns or rows[0].keys())

    def cell(v: object, where: str) -> str:
        if isinstance(v, (float, np.floating)):
            _check_finite(float(v), where)
            return format(float(v), floatfmt)
        return str(v)

    body = [[cell(r.get(c, ""), f"row {i}, column {c!r}") for c in columns] for i, r in enumerate(rows)]
    widths = [max(len(c), *(len(b[i]) for b in body)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.rjust(w) for c, w in zip(columns, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.rjust(w) for v, w in zip(b, widths)) for b in body]
    return "\n".join(lines)


@shared_doc
def format_markdown(rows: Sequence[Mapping[str, object]], columns: Sequence[str] | None = None,
                    headers: Sequence[str] | None = None, floatfmt: str = ".3f") -> str:
    """Render rows of dicts as a GitHub Markdown table.

    Floats use ``floatfmt``, ``None`` is an empty cell, ``|`` is escaped.

    Parameters
    ----------
    %(table_rows)s %(table_columns)s
    headers : sequence of str or None, default None
        Relabel ``columns`` (one per column; None: the column names).
    %(table_floatfmt)s

    Returns: %(returns_table)s

    Raises
    ------
    ValueError
        If the number of headers differs from the number of columns.
    OutputError
        For a NaN or infinite cell, as in :func:`format_table`.
    """
    if not rows:
        return "(no rows)"
    columns = list(columns or rows[0].keys())
    headers = list(headers or columns)
    if len(headers) != len(columns):
        raise ValueError("one header per column")

    def cell(v: object, where: str) -> str:
        if v is None:
            return ""
        if isinstance(v, (float, np.floating)):
            return format(_check_finite(float(v), where), floatfmt)
        return str(v).replace("|", "\\|")

    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(r.get(c), f"row {i}, column {c!r}") for c in columns) + " |"
              for i, r in enumerate(rows)]
    return "\n".join(lines)


def add_format_option(parser, markdown: bool = False) -> None:
    """Add the common ``--format {text,json}`` option.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser to add it to.
    markdown : bool, default False
        Also offer ``markdown``: the tables exactly as the documentation shows them.
    """
    choices = ("text", "json", "markdown") if markdown else ("text", "json")
    parser.add_argument("--format", choices=choices, default="text",
                        help=f"output format: {', '.join(choices)} (default: text)")


#: The output format an output file's extension stands for (``-o scores.csv`` writes CSV).
SUFFIX_FORMATS = {".json": "json", ".csv": "csv", ".tsv": "tsv", ".txt": "text", ".md": "markdown"}


@shared_doc
def format_delimited(rows: Sequence[Mapping[str, object]], columns: Sequence[str] | None = None,
                     sep: str = ",") -> str:
    r"""Render rows of dicts as CSV (``sep=","``) or TSV (``sep="\t"``), with a header line.

    Numbers are written in full precision (``repr`` of the float, so a reader gets back the very
    number), ``None`` as an empty cell, lists of words joined by spaces, other lists and mappings as
    JSON; quoting follows :mod:`csv` (RFC 4180).

    Parameters
    ----------
    %(table_rows)s
    columns : sequence of str or None, default None
        The columns, in order (None: every key, in order of first appearance).
    sep : str, default ","
        The field separator.

    Returns
    -------
    str
        The table, lines ended by ``\n`` (only the header when there is no row and ``columns`` are given).

    Raises
    ------
    OutputError
        For a NaN or infinite cell, naming its row and column.
    """
    import csv
    import io

    columns = list(columns) if columns is not None else list(dict.fromkeys(k for r in rows for k in r))

    def cell(v: object, where: str) -> object:
        v = to_jsonable(v, where)
        if v is None:
            return ""
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            return " ".join(v)
        if isinstance(v, (list, dict)):
            return json.dumps(v, ensure_ascii=False, allow_nan=False)
        return repr(v) if isinstance(v, float) else v

    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=sep, lineterminator="\n")
    writer.writerow(columns)
    for i, r in enumerate(rows):
        writer.writerow([cell(r.get(c), f"row {i}, column {c!r}") for c in columns])
    return buf.getvalue()


class Result:
    """A command's result in every form it can be written in: JSON data, a table, a text report.

    Parameters
    ----------
    data : object
        The JSON form (what ``--format json`` prints; see :func:`dump_json`).
    rows : sequence of mapping, optional
        The table form (CSV, TSV, Markdown; and the text form when ``text`` is not given).
    columns : sequence of str, optional
        The table's columns, in order (default: every key of ``rows``).
    text : str, optional
        The text form (default: :func:`format_table` of ``rows``).
    floatfmt : str, default ".4f"
        The format of float cells in the text and Markdown tables (CSV/TSV keep every digit).
    """

    def __init__(self, data: object, rows: Sequence[Mapping[str, object]] | None = None,
                 columns: Sequence[str] | None = None, text: str | None = None,
                 floatfmt: str = ".4f") -> None:
        self.data, self.rows, self.columns, self.text, self.floatfmt = data, rows, columns, text, floatfmt

    def render(self, fmt: str) -> str:
        """The result as text in ``fmt``: ``text``, ``json``, ``csv``, ``tsv`` or ``markdown``.

        Parameters
        ----------
        fmt : str
            The format.

        Returns
        -------
        str
            The rendered result, ending with a newline.

        Raises
        ------
        OutputError
            For a non-finite number, or a table format asked of a result that has no table.
        """
        if fmt == "json":
            return dump_json(self.data) + "\n"
        if fmt == "text" and self.text is not None:
            return self.text.rstrip("\n") + "\n"
        if self.rows is None:
            raise OutputError(f"this result has no table to write as {fmt}", fix="choose json or text")
        columns = self.columns if self.columns is not None else None
        if fmt in ("csv", "tsv"):
            return format_delimited(self.rows, columns, "," if fmt == "csv" else "\t")
        if fmt == "markdown":
            return format_markdown(self.rows, columns, floatfmt=self.floatfmt) + "\n"
        return format_table(self.rows, columns, floatfmt=self.floatfmt) + "\n"

    @shared_doc
    def emit(self, fmt: str, output: str | os.PathLike[str] | None = None, what: str = "output file") -> None:
        """Print the result in ``fmt``, or write it atomically to ``output`` (and print nothing).

        Parameters
        ----------
        fmt : str
            The format (see :meth:`render`).
        output : path-like, optional
            The file (:func:`tealeaves._io.atomic_write`: an existing file is replaced whole, a failed
            write leaves it as it was).
        %(output_what)s

        Raises
        ------
        OutputError
            When the file cannot be written, or the result holds a non-finite number.
        """
        text = self.render(fmt)
        if output is None:
            print(text, end="")
            return
        from tealeaves._io import write_text

        write_text(output, text, what=what)
