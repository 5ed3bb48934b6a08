"""Fields of the text files other tools write: numbers as MALLET (Java) prints them, whole-number ids.

Shared by the readers of :mod:`tealeaves.models.adapters.mallet` and
:mod:`tealeaves.models.adapters.topic_files`; a message names the file and line (``'f' line 3``).
"""

from __future__ import annotations

import math
import re

from tealeaves._docs import shared_doc
from tealeaves.errors import InputFormatError

#: A whole number >= 0 (a topic id, a type index).
INT = re.compile(r"^\d+$")
#: The largest id :func:`parse_index` accepts: Java's ``Integer.MAX_VALUE`` (MALLET's ids are ints).
MAX_INDEX = 2**31 - 1
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


@shared_doc
def parse_number(text: str, path, line: int, what: str) -> float:
    """A finite float as MALLET prints it (Java ``Double.toString`` or ``NumberFormat``).

    Accepts ``1.0E-4``, the English grouping ``1,234.5`` and a decimal comma ``0,05``.

    Parameters: %(field_text)s %(field_where)s

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


@shared_doc
def parse_index(text: str, path, line: int, what: str) -> int:
    """A non-negative integer field (:class:`~tealeaves.errors.InputFormatError` otherwise).

    Parameters: %(field_text)s %(field_where)s

    Returns: %(returns_int_value)s

    Raises
    ------
    InputFormatError
        When the field is not a whole number in ``[0, MAX_INDEX]``.
    """
    t = text.strip()
    if not INT.match(t):
        raise InputFormatError(f"{where(path, line)}: {what} is {text!r}, not a whole number >= 0",
                               fix="check that the file is the MALLET output it is read as")
    value = int(t)
    if value > MAX_INDEX:  # MALLET's ids are Java ints; 10**20 would size an impossible table
        raise InputFormatError(f"{where(path, line)}: {what} is {t[:30]}, above {MAX_INDEX} (the largest "
                               "number MALLET writes there)",
                               fix="check that the file is the MALLET output it is read as")
    return value


def zeros_table(shape: tuple[int, int], path, what: str, dtype=None):
    """``numpy.zeros(shape)`` for a table sized by ids read from ``path``, refused when it cannot fit.

    An id near :data:`MAX_INDEX` in one line would size a table of terabytes: the allocation would fail
    (or, with memory overcommit, succeed and exhaust the machine later).  A table larger than this
    machine's physical memory is an :class:`~tealeaves.errors.InputFormatError` naming the ids.

    Parameters
    ----------
    shape : tuple of int
        Rows and columns.
    path : str or Path
        The file the ids come from.
    what : str
        What the rows and columns are, for the message (``"documents x topics"``).
    dtype : numpy dtype, optional
        The table's type (default float64).

    Returns
    -------
    numpy.ndarray
        The zero table.
    """
    import os

    import numpy as np

    dtype = np.dtype(np.float64 if dtype is None else dtype)
    size = int(np.prod(shape, dtype=object)) * dtype.itemsize
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # no sysconf: let the allocation decide
        memory = None
    try:
        if memory is not None and size > memory:
            raise MemoryError
        return np.zeros(shape, dtype=dtype)
    except (MemoryError, ValueError):
        raise InputFormatError(f"'{path}' numbers its {what} up to {shape[0]} x {shape[1]}: a table of "
                               f"{size / 2**30:.3g} GiB, more than this machine's memory",
                               fix="check that the file is the MALLET output it is read as (an id may be "
                                   "damaged)") from None
