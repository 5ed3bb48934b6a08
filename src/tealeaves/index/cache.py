"""The verified-state cache: an index file is hashed and checked over its postings once, not on every load.

A file is keyed by its (path, size, mtime_ns, inode, ctime_ns): any change to the file changes the
key, so the full hash and the checks over the postings run again.  What was verified is recorded
per key as *facts*: ``sha256`` (the checksum the body was found to have) and ``checks`` (the version
of the structural checks the arrays passed, :data:`tealeaves.index._checks.POSTINGS_CHECKS`).  Entries
live in this process and, best effort, in :func:`verified_cache_file` (``TEALEAVES_VERIFY_CACHE=0``
turns the file off).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from tealeaves.errors import OutputError

#: What this process verified, by file key: ``{"sha256": ..., "checks": ...}``.
_VERIFIED: dict[tuple, dict] = {}
_CACHE_LIMIT = 512
#: A file modified less than this long ago is not cached: a later write in the same clock tick would
#: leave its (size, mtime_ns) unchanged (as "racy" entries in git's index).
_RACY_NS = 2_000_000_000


def verified_cache_file() -> Path | None:
    """The persistent verified-state cache, or ``None`` when ``TEALEAVES_VERIFY_CACHE=0``.

    ``$TEALEAVES_CACHE_DIR/verified-indexes.json`` (default: the per-user cache,
    :func:`tealeaves.data.cache_dir`).  It maps a file's :func:`file_key` to what was verified of
    it (its checksum, the structural checks it passed); any change to the file changes the key, so
    the verification runs again.

    Returns
    -------
    Path or None
        The cache file.
    """
    if os.environ.get("TEALEAVES_VERIFY_CACHE", "1") == "0":
        return None
    from tealeaves.data import cache_dir

    return Path(os.environ.get("TEALEAVES_CACHE_DIR") or cache_dir()) / "verified-indexes.json"


def file_key(path: Path, fd: int | None = None) -> tuple:
    """The cache key of a file: its resolved path, size, mtime_ns, inode and ctime_ns.

    The change time is in the key because no ordinary program can set it: a write that restores the
    size and modification time afterwards (``os.utime``) still moves it.

    Parameters
    ----------
    path : Path
        The file.
    fd : int, optional
        An open descriptor of it: the key is then that of the file read through it, even if
        ``path`` has been replaced since.

    Returns
    -------
    tuple
        ``(resolved path, size, mtime_ns, inode, ctime_ns)``.
    """
    st = os.stat(path) if fd is None else os.fstat(fd)
    return (str(Path(path).resolve()), st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


def _read_cache(cache: Path) -> dict:
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _facts(value) -> dict:
    """The facts of a cache entry (a checksum string: an entry of an older tealeaves)."""
    if isinstance(value, str):
        return {"sha256": value}
    return value if isinstance(value, dict) else {}


def verified_facts(key: tuple) -> dict:
    """What was verified of the file ``key`` names, in this process or (best effort) on disk.

    Parameters
    ----------
    key : tuple
        The file's :func:`file_key`.

    Returns
    -------
    dict
        ``sha256`` (the checksum its body was found to have) and ``checks`` (the version of the
        structural checks it passed), each when recorded; ``{}`` for a file never verified in
        this state.
    """
    if key in _VERIFIED:
        return dict(_VERIFIED[key])
    cache = verified_cache_file()
    facts = _facts(_read_cache(cache).get(json.dumps(key))) if cache is not None else {}
    if facts:
        _VERIFIED[key] = dict(facts)
    return facts


def is_verified(key: tuple, checksum: str) -> bool:
    """Whether the file ``key`` names was already verified to hold ``checksum``.

    Parameters
    ----------
    key : tuple
        The file's :func:`file_key`.
    checksum : str
        The SHA-256 (hex) its prefix records.

    Returns
    -------
    bool
        ``True`` when this process or the cache file saw it verified.
    """
    return verified_facts(key).get("sha256") == checksum


def remember(key: tuple, **facts) -> None:
    """Record facts verified of a file, in process and (best effort) in :func:`verified_cache_file`.

    Nothing is recorded for a file modified in the last 2 s (a second write in the same clock tick
    could leave its key unchanged).  An unreadable cache file counts as empty; an unwritable one
    only costs a new verification next time.

    Parameters
    ----------
    key : tuple
        The file's :func:`file_key`, taken before it was read.
    **facts
        ``sha256=checksum`` and/or ``checks=version``, added to what is recorded for ``key``.
    """
    if time.time_ns() - key[2] < _RACY_NS:
        return
    _VERIFIED[key] = {**_VERIFIED.get(key, {}), **facts}
    cache = verified_cache_file()
    if cache is None:
        return
    entries = _read_cache(cache)
    name = json.dumps(key)
    entries[name] = {**_facts(entries.pop(name, None)), **facts}  # (re)inserted last: the newest
    entries = dict(list(entries.items())[-_CACHE_LIMIT:])
    from tealeaves._io import write_text

    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        write_text(cache, json.dumps(entries), what="verified-state cache")
    except (OSError, OutputError):  # an unwritable cache only costs a re-verification next time
        pass


def remember_verified(key: tuple, checksum: str) -> None:
    """Record a verified checksum (:func:`remember` with ``sha256=checksum``).

    Parameters
    ----------
    key, checksum
        As in :func:`is_verified` (the checksum the body was found to have).
    """
    remember(key, sha256=checksum)
