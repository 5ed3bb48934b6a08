"""Text from studies, results and clients, made safe to print on a terminal.

A study file, a results file or an HTTP client can put anything in a name:
a newline that forges a ``LINK`` line, ``\\r`` that overwrites one, an ANSI
escape that recolours or clears the terminal, a bidi override that reverses
it.  Everything such a source supplies goes through :func:`escape` before it
is printed: non-printable characters are shown as Python escapes (``\\n``,
``\\x1b``, ``\\u202e``); printable text, accents and CJK included, is unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def escape(text: object) -> str:
    """``text`` with every non-printable character (``str.isprintable``) shown as its escape.

    Parameters
    ----------
    text : object
        The text (anything, converted with ``str``).

    Returns
    -------
    str
        The escaped text.

    Examples
    --------
    >>> escape("ann\\nLINK eve http://evil")
    'ann\\\\nLINK eve http://evil'
    >>> escape("café \\x1b[2J")
    'café \\\\x1b[2J'
    """
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in str(text))


def escape_rows(rows: Sequence[Mapping[str, object]]) -> list[dict[str, object]]:
    """Rows for a printed table, with every text cell (and key) escaped; numbers are kept.

    Parameters
    ----------
    rows : sequence of mapping
        The table's rows.

    Returns
    -------
    list of dict
        The escaped rows.
    """
    return [{escape(k): escape(v) if isinstance(v, str) else v for k, v in row.items()} for row in rows]
