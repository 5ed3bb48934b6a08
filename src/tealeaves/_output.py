"""Shared rendering of results for the command line (JSON or aligned text)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence

import numpy as np


def to_jsonable(obj: object) -> object:
    """Convert numpy scalars/arrays and dataclass-like objects for ``json.dumps``."""
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        value = float(obj)
        if not math.isfinite(value):
            raise ValueError(f"refusing to emit a non-finite number ({value}) as JSON")
        return value
    if isinstance(obj, np.bool_):
        return bool(obj)
    if hasattr(obj, "to_dict"):
        return to_jsonable(obj.to_dict())
    return obj


def dump_json(obj: object) -> str:
    """Serialise ``obj`` as indented JSON, refusing NaN and infinity."""
    return json.dumps(to_jsonable(obj), indent=2, ensure_ascii=False, allow_nan=False)


def format_table(rows: Sequence[Mapping[str, object]], columns: Sequence[str] | None = None,
                 floatfmt: str = ".3f") -> str:
    """Render rows of dicts as a plain aligned text table."""
    if not rows:
        return "(no rows)"
    columns = list(columns or rows[0].keys())

    def cell(v: object) -> str:
        if isinstance(v, (float, np.floating)):
            return format(float(v), floatfmt)
        return str(v)

    body = [[cell(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(c), *(len(b[i]) for b in body)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.rjust(w) for c, w in zip(columns, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.rjust(w) for v, w in zip(b, widths)) for b in body]
    return "\n".join(lines)


def add_format_option(parser) -> None:
    """Add the common ``--format {text,json}`` option."""
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="output format (default: text)")
