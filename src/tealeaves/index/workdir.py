"""Work folders of streamed, sharded and aligned builds: made beside the output, locked by the build that
owns them, removed when it ends, and cleaned up after a killed build (see ``docs/scale.md``)."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from pathlib import Path

#: Work folders are ``.tealeaves-build-XXXX`` beside the output; each holds :data:`WORKDIR_LOCK`, locked
#: (``flock``) by the build that owns it for as long as it runs.
WORKDIR_PREFIX = ".tealeaves-build-"
WORKDIR_LOCK = "owner.lock"
#: A work folder whose lock file is still empty this many seconds after it was made is abandoned
#: (its build died between making it and locking it; tealeaves before the lock left folders without one).
UNLOCKED_GRACE_SECONDS = 600.0


class Workdir:
    """A build's work folder beside ``output``, locked by this process while the build runs.

    Entering the context first removes the work folders that builds killed before their cleanup left
    beside the same output (:func:`remove_stale_workdirs`), then makes a new one and locks its
    :data:`WORKDIR_LOCK` (written ``pid host``); leaving removes it.  A killed build's folder stays until
    the next build beside it starts: its lock died with its process, which is what tells it from a
    live build's folder (never removed, on this machine or, on a shared file system, another).

    Parameters
    ----------
    output : str or os.PathLike
        The file or folder the build writes (the work folder goes in its parent, created if missing).
    """

    def __init__(self, output: str | os.PathLike):
        self.parent = Path(output).resolve().parent
        self.path: str | None = None
        self._lock = None

    def __enter__(self) -> str:
        self.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_workdirs(self.parent)
        self.path = tempfile.mkdtemp(prefix=WORKDIR_PREFIX, dir=self.parent)
        try:
            self._lock = _lock_file(Path(self.path) / WORKDIR_LOCK, blocking=True)
            if self._lock is not None:
                import socket

                self._lock.write(f"{os.getpid()} {socket.gethostname()}\n")
                self._lock.flush()
        except BaseException:  # e.g. a full disk: the folder is not left behind
            self.__exit__()
            raise
        return self.path

    def __exit__(self, *exc) -> None:
        remove_workdir(self.path)
        if self._lock is not None:
            with contextlib.suppress(OSError):  # its unwritten owner line cannot be flushed on a full disk
                self._lock.close()


def _lock_file(path: Path, blocking: bool):
    """``path`` opened and ``flock``-ed exclusively (``None``: no ``fcntl`` here, or held by another)."""
    try:
        import fcntl
    except ImportError:  # Windows: work folders are then only removed by their own build
        return None
    fh = open(path, "a+", encoding="utf-8")
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
    except OSError:
        fh.close()
        return None
    return fh


def remove_stale_workdirs(parent: str | os.PathLike) -> list[str]:
    """Remove the work folders in ``parent`` whose build is no longer running; return their names.

    A folder is stale when its :data:`WORKDIR_LOCK` can be locked (its owner's lock died with its process,
    e.g. by ``kill -9``) and names its owner, or when it has no lock file or an empty one
    :data:`UNLOCKED_GRACE_SECONDS` after it was made.  A folder whose lock is held (a live build, here or on
    another machine of a shared file system) is never touched.

    Parameters
    ----------
    parent : str or os.PathLike
        The folder holding the outputs and their work folders.

    Returns
    -------
    list of str
        The names of the folders removed.
    """
    removed = []
    try:
        candidates = [p for p in Path(parent).iterdir() if p.name.startswith(WORKDIR_PREFIX) and p.is_dir()]
    except OSError:
        return removed
    for folder in candidates:
        lock_path = folder / WORKDIR_LOCK
        try:
            age = time.time() - folder.stat().st_mtime
        except OSError:
            continue
        if not lock_path.exists():
            if age > UNLOCKED_GRACE_SECONDS:
                remove_workdir(str(folder))
                removed.append(folder.name)
            continue
        lock = _lock_file(lock_path, blocking=False)
        if lock is None:  # held: a live build
            continue
        try:
            lock.seek(0)
            owner = lock.read().strip()
            if owner or age > UNLOCKED_GRACE_SECONDS:  # empty and young: its build is locking it now
                shutil.rmtree(folder, ignore_errors=True)
                removed.append(folder.name)
        finally:
            lock.close()
    return removed


def remove_workdir(workdir: str) -> None:
    """Remove a build's work folder (retrying while abandoned shard tasks still finish a write).

    Parameters
    ----------
    workdir : str
        The folder.
    """
    for _ in range(20):
        shutil.rmtree(workdir, ignore_errors=True)
        if not os.path.exists(workdir):
            return
        time.sleep(0.25)


