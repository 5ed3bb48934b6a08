"""Locate the external data sets tealeaves reads (corpora, dictionaries), fetching them if allowed.

Data are never shipped with tealeaves (several licences forbid it).  A file is
looked for, in order, in

1. ``$TEALEAVES_DATA/<relative path>``;
2. the per-user cache, ``$XDG_CACHE_HOME/tealeaves/<relative path>``
   (``~/.cache/tealeaves`` by default).

On a miss, a file that belongs to a data set of the registry (``tealeaves data
list``) is fetched into the cache from its publisher, announced on stderr and
verified against the SHA-256 recorded in the package, when fetching is allowed
(:func:`fetch_allowed`: not when ``TEALEAVES_DATA`` is set, as in CI, not when
``TEALEAVES_NO_FETCH=1``, and not inside a pytest test, whose ``require_data``
skips instead).  Otherwise :class:`~tealeaves.errors.DataNotFoundError` names
the file, the folders searched and ``tealeaves data fetch <name>``.
See docs/data.md.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tealeaves.data.roots import cache_dir, search_roots
from tealeaves.errors import DataNotFoundError

__all__ = ["DataNotFoundError", "cache_dir", "fetch_allowed", "has", "locate", "search_roots"]

_TRUE = ("1", "true", "yes", "on")


def fetch_allowed(fetch: bool | None = None) -> bool:
    """Whether :func:`locate` may download a missing data set (``fetch`` overrides the rule).

    The rule when ``fetch`` is None: no when ``TEALEAVES_NO_FETCH`` is true (offline use), no
    when ``TEALEAVES_DATA`` is set (the user, or CI, chose a data folder: a miss there is
    reported, not filled from the network), yes otherwise.  The test suite sets
    ``TEALEAVES_NO_FETCH=1`` (``tests/conftest.py``), so tests skip on missing data.

    Parameters
    ----------
    fetch : bool or None, default None
        True or False decides; None applies the rule.

    Returns
    -------
    bool
        Whether fetching is allowed.
    """
    if fetch is not None:
        return bool(fetch)
    if os.environ.get("TEALEAVES_NO_FETCH", "").strip().lower() in _TRUE:
        return False
    return not os.environ.get("TEALEAVES_DATA")


def _find(rel: Path) -> Path | None:
    for root in search_roots():
        candidate = root / rel
        if candidate.exists():
            return candidate
    return None


def locate(relative: str | os.PathLike[str], *, fetch: bool | None = None) -> Path:
    """Return the path of a data file or folder given relative to the data root.

    On a miss, fetches the data set the file belongs to into :func:`cache_dir` when
    :func:`fetch_allowed(fetch) <fetch_allowed>`.

    Parameters
    ----------
    relative : str or os.PathLike
        The path relative to the data root (e.g. ``"reuters21578/reut2-000.sgm"``).
    fetch : bool or None, default None
        Whether a missing data set may be fetched (None: :func:`fetch_allowed`'s rule).

    Returns
    -------
    Path
        The path found (in ``$TEALEAVES_DATA`` or the cache).

    Raises
    ------
    DataNotFoundError
        Naming the file, the folders searched and how to obtain it, when it is
        missing and cannot be fetched, or when the fetch cannot provide the file.
    FetchError
        If a download fails.

    Examples
    --------
    >>> locate("reuters21578/reut2-000.sgm")  # doctest: +SKIP
    PosixPath('/data/reuters21578/reut2-000.sgm')
    """
    rel = Path(relative)
    found = _find(rel)
    if found is not None:
        return found
    from tealeaves.data import registry

    dataset = registry.dataset_for(rel.as_posix())
    reason = ""
    if dataset is not None and fetch_allowed(fetch):
        from tealeaves.data.fetch import fetch_dataset

        report = fetch_dataset(dataset, stream=sys.stderr)
        found = _find(rel)
        if found is not None:
            return found
        reason = report.reason_for(dataset.relative(rel.as_posix())) or ""
    raise DataNotFoundError(_not_found_message(rel, dataset, reason))


def _not_found_message(rel: Path, dataset, reason: str) -> str:
    searched = ", ".join(str(r) for r in search_roots())
    head = f"data file '{rel}' was not found (searched: {searched})"
    if reason:
        head += f"; {reason}"
    if dataset is None:
        top = rel.parts[0] if rel.parts else str(rel)
        return (f"{head}. It is not in tealeaves' data registry ('tealeaves data list'): set "
                f"TEALEAVES_DATA to the folder that contains '{top}/' or copy it into {cache_dir()}.")
    return (f"{head}. It belongs to the data set '{dataset.name}': {dataset.title} "
            f"({dataset.source_summary()}). "
            f"Run 'tealeaves data fetch {dataset.name}', or set TEALEAVES_DATA to the folder that "
            f"contains '{dataset.folder}/', or copy it into {cache_dir()}.")


def has(relative: str | os.PathLike[str]) -> bool:
    """Return True when ``relative`` is present (never fetches).

    Parameters
    ----------
    relative : str or os.PathLike
        The path relative to the data root.

    Returns
    -------
    bool
        Whether a search root holds it.
    """
    return _find(Path(relative)) is not None
