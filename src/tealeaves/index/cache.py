"""The verified-checksum cache: an index file's SHA-256 is checked once, not on every load.

A file is keyed by its (path, size, mtime_ns, inode): any change to the file changes the key, so
the full hash runs again.  Entries live in this process and, best effort, in
:func:`verified_cache_file` (``TEALEAVES_VERIFY_CACHE=0`` turns the file off).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tealeaves._docs import shared_doc
from tealeaves.errors import OutputError

#: Verified checksums of this process, by (path, size, mtime_ns, inode).
_VERIFIED: dict[tuple, str] = {}
_CACHE_LIMIT = 512
#: A file modified less than this long ago is not cached: a later write in the same clock tick would
#: leave its (size, mtime_ns) unchanged (as "racy" entries in git's index).
_RACY_NS = 2_000_000_000


def verified_cache_file() -> Path | None:
    """The persistent verified-state cache, or ``None`` when ``TEALEAVES_VERIFY_CACHE=0``.

    ``$TEALEAVES_CACHE_DIR/verified-indexes.json`` (default: the per-user cache,
    :func:`tealeaves.data.cache_dir`).  It maps a file's (path, size, mtime_ns, inode) to the
    checksum that was verified; any change to the file changes the key, so the full hash runs again.

    Returns
    -------
    Path or None
        The cache file.
    """
    if os.environ.get("TEALEAVES_VERIFY_CACHE", "1") == "0":
        return None
    from tealeaves.data import cache_dir

    return Path(os.environ.get("TEALEAVES_CACHE_DIR") or cache_dir()) / "verified-indexes.json"


@shared_doc
def file_key(path: Path) -> tuple:
    """The cache key of a file: its resolved path, size, mtime_ns and inode.

    Parameters: %(file_path)s

    Returns
    -------
    tuple
        ``(resolved path, size, mtime_ns, inode)``.
    """
    st = os.stat(path)
    return (str(Path(path).resolve()), st.st_size, st.st_mtime_ns, st.st_ino)


def _read_cache(cache: Path) -> dict:
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


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
    if _VERIFIED.get(key) == checksum:
        return True
    cache = verified_cache_file()
    if cache is not None and _read_cache(cache).get(json.dumps(key)) == checksum:
        _VERIFIED[key] = checksum
        return True
    return False


def remember_verified(key: tuple, checksum: str) -> None:
    """Record a verified checksum in process and (best effort) in :func:`verified_cache_file`.

    Parameters
    ----------
    key, checksum
        As in :func:`is_verified` (the checksum the body was found to have).
    """
    import time

    if time.time_ns() - key[2] < _RACY_NS:
        return
    _VERIFIED[key] = checksum
    cache = verified_cache_file()
    if cache is None:
        return
    entries = _read_cache(cache)
    entries[json.dumps(key)] = checksum
    entries = dict(list(entries.items())[-_CACHE_LIMIT:])
    from tealeaves._io import write_text

    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        write_text(cache, json.dumps(entries), what="verified-state cache")
    except (OSError, OutputError):  # an unwritable cache only costs a re-hash next time
        pass

