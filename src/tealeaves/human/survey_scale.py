"""Rating scales of imported judgments: ``LOW-HIGH`` scales, ``LABEL=VALUE`` maps, and a response on them.

Used by :func:`tealeaves.human.survey.import_survey` (and the ``human import`` command, which reads
the scale and the maps written on the command line).
"""

from __future__ import annotations

from tealeaves._params import naming
from tealeaves.errors import ParameterError


def parse_scale(text: str | None) -> tuple[int, int] | None:
    """Read a rating scale written ``LOW-HIGH``: the whole numbers low..high (low < high, at most 101 values).

    Parameters
    ----------
    text : str or None
        E.g. ``"1-3"`` (None: no scale).

    Returns
    -------
    tuple of int or None
        ``(low, high)``, e.g. ``(1, 3)``: the ``scale`` of :func:`import_survey`.

    Raises
    ------
    ParameterError
        When ``text`` is not ``LOW-HIGH`` with whole numbers ``LOW < HIGH`` at most 100 apart.
    """
    if text is None:
        return None
    import re

    match = re.fullmatch(r"\s*(-?\d+)\s*-\s*(-?\d+)\s*", text)
    lo, hi = (int(match[1]), int(match[2])) if match else (None, None)
    if lo is None or not lo < hi or hi - lo > 100:
        raise naming(ParameterError(
            f"scale {text!r} is not LOW-HIGH with whole numbers LOW < HIGH",
            fix="e.g. `scale='1-3'` or `scale='0-4'`; or `scale_map='label=value,...'`",
        ), "scale", "scale_map")
    return lo, hi


def check_scale(scale: object) -> tuple[int, int] | None:
    """The ``scale`` argument of :func:`import_survey`: ``(low, high)`` whole numbers, low < high, at most 100
    apart (the rule of :func:`parse_scale`), or None.

    Parameters
    ----------
    scale : object
        The argument given.

    Returns
    -------
    tuple of int or None
        ``(low, high)``.

    Raises
    ------
    ParameterError
        When ``scale`` is not two such numbers (``(3, 1)``, ``(1,)``, ``("a", "b")``).
    """
    import numbers

    if scale is None:
        return None
    pair = tuple(scale) if isinstance(scale, (tuple, list)) else None
    ok = (pair is not None and len(pair) == 2
          and all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in pair))
    if not ok or not pair[0] < pair[1] or pair[1] - pair[0] > 100:
        raise naming(ParameterError(
            f"scale {scale!r} is not (LOW, HIGH) with whole numbers LOW < HIGH at most 100 apart",
            fix="e.g. `scale=(1, 3)`; or `scale_map={'label': 'value', ...}`",
        ), "scale", "scale_map")
    return int(pair[0]), int(pair[1])


def parse_map(text: str | None, what: str) -> dict[str, str] | None:
    """Read a mapping written ``LABEL=VALUE,...`` (labels case-folded, no repeats or empty parts).

    Parameters
    ----------
    text : str or None
        E.g. ``"a=1,b=2"`` (None: no mapping).
    what : str
        The Python parameter it is given to (``scale_map``, ``task_values``), named by errors.

    Returns
    -------
    dict or None
        E.g. ``{"a": "1", "b": "2"}``.

    Raises
    ------
    ParameterError
        When a part is not ``LABEL=VALUE``, is empty, or repeats a label.
    """
    if text is None:
        return None
    out: dict[str, str] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        key, value = key.strip().casefold(), value.strip()
        if not sep or not key or not value or key in out:
            raise naming(ParameterError(
                f"{what} {text!r}: write LABEL=VALUE,... with distinct labels",
                fix=f"e.g. `{what}='incoherent=1,somewhat=2,coherent=3'`",
            ), what)
        out[key] = value
    return out


def scale_values(scale, scale_map) -> tuple[list[str], dict[str, str]]:
    """The rating options and how responses map to them.

    Parameters
    ----------
    scale : tuple of int or None
        ``(low, high)``: the whole numbers low..high.
    scale_map : mapping of str to str or None
        Labels (case-folded) and the numbers they stand for; used when ``scale`` is None.

    Returns
    -------
    tuple
        The options (ascending, as strings) and the text -> option map of valid responses.

    Raises
    ------
    ParameterError
        When both ``scale`` and ``scale_map`` are given, a ``scale_map`` value is not a finite
        number, or ``scale_map`` has fewer than two distinct values.
    """
    if scale is not None and scale_map is not None:
        raise naming(ParameterError("give either `scale` or `scale_map`, not both"), "scale", "scale_map")
    if scale is not None:
        values = [str(v) for v in range(scale[0], scale[1] + 1)]
        return values, {v: v for v in values}
    for label, value in scale_map.items():
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        if number != number or number in (float("inf"), float("-inf")):
            raise naming(ParameterError(
                f"scale_map value {value!r} of {label!r} is not a number",
                fix="map each label to a number, e.g. coherent=3",
            ), "scale_map")
    canon = {label: _canon(float(v)) for label, v in scale_map.items()}
    values = sorted(set(canon.values()), key=float)
    if len(values) < 2:
        raise naming(ParameterError("scale_map needs at least two distinct values"), "scale_map")
    return values, {**canon, **{v: v for v in values}}


def _canon(x: float) -> str:
    return str(int(x)) if x.is_integer() else repr(x)


def _rating(text: str, table: dict[str, str]) -> str | None:
    folded = text.casefold()
    if folded in table:
        return table[folded]
    try:
        x = float(text)
    except ValueError:
        return None
    return table.get(_canon(x)) if x == x and abs(x) != float("inf") else None
