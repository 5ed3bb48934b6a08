"""Reproducibility signatures for every reported number (in the spirit of sacrebleu).

A signature is a ``|``-separated string: the measure name first, then
``key=value`` fields in a fixed order, then ``tealeaves-<version>``, e.g.::

    npmi|ref=reuters-train@3fa2c1d0|win=doc|top=10|seg=one-one|zero=limit|tealeaves-0.1.0
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tealeaves._version import __version__


@dataclass(frozen=True)
class Signature:
    """The settings that fully determine a reported score.

    ``fields`` keeps insertion order, so callers choose a stable order.
    """

    measure: str
    fields: Mapping[str, object] = field(default_factory=dict)
    version: str = __version__

    def __str__(self) -> str:
        parts = [self.measure]
        parts += [f"{key}={_fmt(value)}" for key, value in self.fields.items()]
        parts.append(f"tealeaves-{self.version}")
        return "|".join(parts)

    @classmethod
    def parse(cls, text: str) -> Signature:
        """Parse a signature string back into its parts."""
        parts = text.split("|")
        if len(parts) < 2 or not parts[-1].startswith("tealeaves-"):
            raise ValueError(f"not a tealeaves signature: {text!r}")
        fields: dict[str, object] = {}
        for part in parts[1:-1]:
            key, sep, value = part.partition("=")
            if not sep:
                raise ValueError(f"signature field {part!r} has no '=' in {text!r}")
            fields[key] = value
        return cls(parts[0], fields, parts[-1][len("tealeaves-"):])


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ",".join(_fmt(v) for v in value)
    return str(value)
