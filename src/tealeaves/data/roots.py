"""The folders data are looked for in: ``$TEALEAVES_DATA``, then the per-user cache.

Re-exported by :mod:`tealeaves.data`; a module of its own so that :mod:`tealeaves.data.fetch`
can use it without importing the package that imports it.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """Return the per-user cache folder (``$XDG_CACHE_HOME/tealeaves``).

    Returns
    -------
    Path
        ``$XDG_CACHE_HOME/tealeaves``, ``~/.cache/tealeaves`` by default.
    """
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tealeaves"


def search_roots() -> list[Path]:
    """Return the folders searched for data, in order of preference.

    Returns
    -------
    list of Path
        ``$TEALEAVES_DATA`` (when set), then :func:`cache_dir`.
    """
    roots: list[Path] = []
    env = os.environ.get("TEALEAVES_DATA")
    if env:
        roots.append(Path(env).expanduser())
    roots.append(cache_dir())
    return roots
