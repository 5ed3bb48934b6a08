"""Shard manifests: the name, size and SHA-256 of every input a sharded index was built from.

A build records them in the index header (``shards``); :func:`check_manifest` refuses inputs that
are not exactly those shards, unchanged (``tealeaves index info --verify --inputs``).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from tealeaves.errors import IndexIntegrityError
from tealeaves.index.format import REBUILD_FIX


def file_digest(path: str | os.PathLike) -> tuple[int, str]:
    """(size in bytes, SHA-256 hex) of a file, or of a folder (its files' relative names and bytes).

    Parameters
    ----------
    path : str or os.PathLike
        A file or a folder.

    Returns
    -------
    size : int
        Bytes (a folder: of all its files).
    sha256 : str
        The hex digest.
    """
    p = Path(path)
    digest = hashlib.sha256()
    if p.is_dir():
        size = 0
        for f in sorted(q for q in p.rglob("*") if q.is_file()):
            rel = f.relative_to(p).as_posix().encode("utf-8")
            digest.update(len(rel).to_bytes(8, "little") + rel)
            n, sub = file_digest(f)
            digest.update(bytes.fromhex(sub))
            size += n
        return size, digest.hexdigest()
    with open(p, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 22), b""):
            digest.update(chunk)
    return p.stat().st_size, digest.hexdigest()


def manifest_entry(path: str | os.PathLike) -> dict:
    """The manifest record of one input shard: its file name, size and SHA-256.

    Parameters
    ----------
    path : str or os.PathLike
        The input shard.

    Returns
    -------
    dict
        ``{"name": ..., "size": ..., "sha256": ...}``.
    """
    size, sha = file_digest(path)
    return {"name": Path(path).name, "size": size, "sha256": sha}


def check_manifest(manifest: Sequence[Mapping], inputs: Sequence[str | os.PathLike],
                   path: Path | None = None) -> None:
    """Refuse ``inputs`` that are not exactly the shards an index was built from.

    Every manifest shard must be among ``inputs`` (matched by file name) with the
    recorded size and SHA-256, and every input must be in the manifest;
    otherwise :class:`~tealeaves.errors.IndexIntegrityError` names the shard.

    Parameters
    ----------
    manifest : sequence of mapping
        The index's shard manifest (:attr:`ReferenceIndex.manifest`).
    inputs : sequence of path
        The inputs to check.
    path : Path, optional
        The index file (named in the errors).
    """
    where = f"index {path}" if path else "the index"
    if not manifest:
        raise IndexIntegrityError(f"{where} records no shard manifest, so its inputs cannot be verified",
                                  fix="rebuild it with `tealeaves index build INPUTS...`")
    given = {Path(p).name: Path(p) for p in inputs}
    for entry in manifest:
        p = given.pop(entry["name"], None)
        if p is None or not p.exists():
            raise IndexIntegrityError(f"shard {entry['name']!r} of {where} is missing from the inputs",
                                      fix="give every input the index was built from")
        size, sha = file_digest(p)
        if size != entry["size"] or sha != entry["sha256"]:
            raise IndexIntegrityError(
                f"shard {entry['name']!r} of {where} has changed since the build ({size} bytes, sha256 "
                f"{sha[:12]}; the manifest records {entry['size']} bytes, {entry['sha256'][:12]})",
                fix=REBUILD_FIX)
    if given:
        raise IndexIntegrityError(f"{', '.join(sorted(given))} {'is' if len(given) == 1 else 'are'} not a "
                                  f"shard of {where}", fix="give exactly the inputs the index was built from")

