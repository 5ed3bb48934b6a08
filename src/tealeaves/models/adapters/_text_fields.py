"""Fields of the text files other tools write: numbers as MALLET (Java) prints them, whole-number ids.

Shared by the readers of :mod:`tealeaves.models.adapters.mallet` and
:mod:`tealeaves.models.adapters.topic_files`; a message names the file and line (``'f' line 3``).
"""

from __future__ import annotations

import math
import re

from tealeaves.errors import InputFormatError

#: A whole number >= 0 (a topic id, a type index).
INT = re.compile(r"^\d+$")
_GROUPED = re.compile(r"^\d{1,3}(,\d{3})+(\.\d*)?$")  # Java NumberFormat grouping in English locales
_DECIMAL_COMMA = re.compile(r"^\d+,\d+$")  # NumberFormat in locales with a decimal comma


def where(path, line: int) -> str:
    """``'path' line N``, the place a message names.

    Parameters
    ----------
    path : str or Path
        The file.
    line : int
        The 1-based line number.

    Returns
    -------
    str
        ``'path' line N``.
    """
    return f"'{path}' line {line}"


def parse_number(text: str, path, line: int, what: str) -> float:
    """A finite float as MALLET prints it (Java ``Double.toString`` or ``NumberFormat``).

    Accepts ``1.0E-4``, the English grouping ``1,234.5`` and a decimal comma ``0,05``.

    Parameters
    ----------
    text : str
        The field.
    path, line, what
        The file, line number and name of the field, for the message.

    Returns
    -------
    float
        The value; :class:`~tealeaves.errors.InputFormatError` if it is not a finite number.
    """
    t = text.strip()
    if _GROUPED.match(t):
        t = t.replace(",", "")
    elif _DECIMAL_COMMA.match(t):
        t = t.replace(",", ".")
    try:
        value = float(t)
    except ValueError:
        raise InputFormatError(f"{where(path, line)}: {what} is {text!r}, not a number",
                               fix="check that the file is the MALLET output it is read as") from None
    if not math.isfinite(value):
        raise InputFormatError(f"{where(path, line)}: {what} is {text!r}; it must be finite")
    return value


def parse_index(text: str, path, line: int, what: str) -> int:
    """A non-negative integer field (:class:`~tealeaves.errors.InputFormatError` otherwise).

    Parameters
    ----------
    text : str
        The field.
    path, line, what
        The file, line number and name of the field, for the message.

    Returns
    -------
    int
        The value.

    Raises
    ------
    InputFormatError
        When the field is not a whole number >= 0.
    """
    t = text.strip()
    if not INT.match(t):
        raise InputFormatError(f"{where(path, line)}: {what} is {text!r}, not a whole number >= 0",
                               fix="check that the file is the MALLET output it is read as")
    return int(t)
