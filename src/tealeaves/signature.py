"""Reproducibility signatures for every reported number (in the spirit of sacrebleu).

A signature is a ``|``-separated string: the measure name first, then
``key=value`` fields in a fixed order, then ``tealeaves-<version>``, e.g.::

    npmi|ref=reuters-train@3fa2c1d0|win=doc|top=10|seg=one-one|zero=limit|tealeaves-0.1.0

Escaping (the one rule for every user-supplied string a signature records: reference names and
paths, model names and source files, dictionary and vector names...): on writing, a backslash
becomes ``\\\\``, a ``|`` becomes ``\\|``, a ``=`` (except in a value) becomes ``\\=``, and a
character that is not printable (a control character, a line or paragraph separator, a lone
surrogate) becomes ``\\xHH``, ``\\uHHHH`` or ``\\UHHHHHHHH``; :meth:`Signature.parse` undoes exactly these, so
``Signature.parse(str(sig))`` gives back the same measure, keys, values (as text) and version, and a
signature is always one printable line.  Everything else (spaces, ``:``, ``@``, ``,``, non-ASCII
letters) is written as is.  A reference named ``a|b``::

    npmi|ref=a\\|b@3fa2c1d0|win=doc|...
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from tealeaves._version import __version__
from tealeaves.errors import InputFormatError

#: One piece of an escaped signature: an escape sequence, a separator, or a run of plain characters.
_TOKEN = re.compile(r"\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|\\[\\|=]|\\|[|=]|[^\\|=]+")


@dataclass(frozen=True)
class Signature:
    """The settings that fully determine a reported score.

    ``str(signature)`` writes it, escaped (module docstring); :meth:`parse` reads it back.

    Parameters
    ----------
    measure : str
        The measure's name, written first.
    fields : mapping of str to object, default {}
        The ``key=value`` fields; insertion order is kept, so callers choose a stable order.
        Floats are written with ``%g``, lists and tuples joined by commas.
    version : str, default the installed version
        The tealeaves version, written last as ``tealeaves-<version>``.
    """

    measure: str
    fields: Mapping[str, object] = field(default_factory=dict)
    version: str = __version__

    def __str__(self) -> str:
        parts = [_escape(self.measure, "=")]
        parts += [f"{_escape(str(key), '=')}={_escape(_fmt(value))}" for key, value in self.fields.items()]
        parts.append(f"tealeaves-{_escape(self.version, '=')}")
        return "|".join(parts)

    @classmethod
    def parse(cls, text: str) -> Signature:
        """Parse a signature string back into its parts (values as text; module docstring for the escapes).

        Parameters
        ----------
        text : str
            A signature as :meth:`__str__` writes it.

        Returns
        -------
        Signature
            The measure, fields (values as strings) and version.

        Raises
        ------
        InputFormatError
            On anything :meth:`__str__` cannot have written.
        """
        parts = _split(text)
        if len(parts) < 2 or not parts[-1][0].startswith("tealeaves-") or len(parts[0]) > 1 or len(
                parts[-1]) > 1:
            raise _bad(text, "is not a tealeaves signature")
        fields: dict[str, object] = {}
        for part in parts[1:-1]:
            if len(part) < 2:
                raise _bad(text, f"has a field {part[0]!r} with no '='")
            key, value = part[0], "=".join(part[1:])
            if key in fields:
                raise _bad(text, f"names field {key!r} twice")
            fields[key] = value
        return cls(parts[0][0], fields, parts[-1][0][len("tealeaves-"):])


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ",".join(_fmt(v) for v in value)
    return str(value)


def _escape(text: str, extra: str = "") -> str:
    """``text`` with ``\\``, ``|``, the characters of ``extra`` and unprintable characters escaped."""
    out = []
    for c in text:
        if c in "\\|" or c in extra:
            out.append("\\" + c)
        elif not c.isprintable():
            n = ord(c)
            out.append(f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}")
        else:
            out.append(c)
    return "".join(out)


def _split(text: str) -> list[list[str]]:
    """The unescaped parts of a signature, each split at its unescaped ``=`` signs."""
    if not isinstance(text, str):
        raise _bad(text, "is not text")
    parts: list[list[str]] = [[""]]
    pos = 0
    for m in _TOKEN.finditer(text):
        token = m.group()
        if m.start() != pos or token == "\\":
            break  # a backslash starting no escape
        pos = m.end()
        if token == "|":
            parts.append([""])
        elif token == "=":
            parts[-1].append("")
        elif token[0] == "\\":
            parts[-1][-1] += _unescape(token, text, m.start())
        elif not token.isprintable():
            at = m.start() + next(i for i, c in enumerate(token) if not c.isprintable())
            raise _bad(text, f"holds the unprintable character {text[at]!r} at character {at + 1}")
        else:
            parts[-1][-1] += token
    if pos != len(text):
        raise _bad(text, f"has a backslash starting no escape at character {pos + 1}")
    return parts


def _unescape(token: str, text: str, start: int) -> str:
    """The character of one escape sequence; only the sequence :func:`_escape` writes for it is
    accepted (``\\x41`` is ``A``, written as is; ``\\U00110000`` is no character)."""
    n = ord(token[1]) if len(token) == 2 else int(token[2:], 16)
    if n > 0x10FFFF or _escape(chr(n), "=") != token:
        raise _bad(text, f"has the escape {token!r} at character {start + 1}, which tealeaves does not write")
    return chr(n)


def _bad(text: object, what: str) -> InputFormatError:
    return InputFormatError(f"signature {text!r} {what}",
                            fix="give the signature exactly as tealeaves wrote it")
