"""Locate the external data sets tealeaves reads (corpora, dictionaries).

Data are never shipped with tealeaves (several licences forbid it).  A file is
looked for, in order, in

1. ``$TEALEAVES_DATA/<relative path>``;
2. the per-user cache, ``$XDG_CACHE_HOME/tealeaves/<relative path>``
   (``~/.cache/tealeaves`` by default);

and otherwise :class:`~tealeaves.errors.DataNotFoundError` names the file and
where it can be obtained.
"""

from __future__ import annotations

import os
from pathlib import Path

from tealeaves.errors import DataNotFoundError

#: Where each top-level data folder can be obtained, for the error message.
SOURCES: dict[str, str] = {
    "reuters21578": (
        "the Reuters-21578 Distribution 1.0 (reut2-000.sgm ... reut2-021.sgm), "
        "from the UCI KDD archive: https://kdd.ics.uci.edu/databases/reuters21578/"
    ),
    "bible": (
        "eBible.org verse-per-line texts with vref.txt (https://ebible.org/Scriptures/) "
        "or the massively parallel Bible corpus of Christodoulopoulos and Steedman (2015)"
    ),
    "dictionaries": (
        "the MUSE bilingual dictionaries (https://github.com/facebookresearch/MUSE) "
        "or Wiktionary-derived foreign<TAB>english lists"
    ),
    "parallel": (
        "the parallel corpora FLORES-200, SIB-200, NTREX-128, TICO-19 or the UDHR, "
        "from their publishers"
    ),
    "word-era": "the SpellEng first-attestation bands (spelleng_first_band.tsv)",
}


def cache_dir() -> Path:
    """Return the per-user cache folder (``$XDG_CACHE_HOME/tealeaves``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tealeaves"


def search_roots() -> list[Path]:
    """Return the folders searched for data, in order of preference."""
    roots: list[Path] = []
    env = os.environ.get("TEALEAVES_DATA")
    if env:
        roots.append(Path(env).expanduser())
    roots.append(cache_dir())
    return roots


def locate(relative: str | os.PathLike[str]) -> Path:
    """Return the path of a data file or folder given relative to the data root.

    >>> locate("reuters21578/reut2-000.sgm")  # doctest: +SKIP
    PosixPath('/data/reuters21578/reut2-000.sgm')

    Raises :class:`DataNotFoundError` naming the file, the folders searched and
    where to obtain it.
    """
    rel = Path(relative)
    for root in search_roots():
        candidate = root / rel
        if candidate.exists():
            return candidate
    top = rel.parts[0] if rel.parts else str(rel)
    source = SOURCES.get(top, "its publisher")
    searched = ", ".join(str(r) for r in search_roots())
    raise DataNotFoundError(
        f"data file '{rel}' was not found (searched: {searched}). "
        f"Obtain {source}, then either set TEALEAVES_DATA to the folder that contains "
        f"'{top}/' or copy it into {cache_dir()}."
    )


def has(relative: str | os.PathLike[str]) -> bool:
    """Return True when :func:`locate` would find ``relative``."""
    try:
        locate(relative)
    except DataNotFoundError:
        return False
    return True
