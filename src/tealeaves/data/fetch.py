"""Download a data set of the registry into the user cache, verified file by file (docs/data.md).

Only :mod:`urllib` is used for HTTP.  Each download goes to ``<file>.part`` beside its final
place; an interrupted one is resumed with an HTTP ``Range`` request (a server that ignores
it sends the whole file again, and the download restarts from byte 0); transient failures
(connection reset or refused, timeouts, HTTP 408/429/5xx, a body shorter than announced)
are retried with exponential backoff.  A file is renamed into place only once its SHA-256
equals the registry's, so a final file is never half-written or wrong; on a mismatch the
download is deleted and :class:`ChecksumError` names the file and both digests.

Archives (``tar.gz``, ``zip``) are downloaded whole into ``<cache>/.downloads``; only the
members the registry names are read (never ``extractall``, so no member can escape the
cache), each verified like a single file, and the archive is deleted afterwards.

With a mirror (``mirror=URL`` or ``$TEALEAVES_DATA_MIRROR``) every file, including those
prepared for tealeaves that no publisher serves, is read from ``URL/<path under the data
root>``: a copy of a data folder served by any static web server.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import http.client
import os
import sys
import tarfile
import time
import urllib.error
import urllib.request
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO
from urllib.parse import quote, urlsplit

from tealeaves._docs import shared_doc
from tealeaves._io import disk_full_error, is_disk_full
from tealeaves._progress import Progress as _Progress
from tealeaves._version import __version__
from tealeaves.data.registry import Archive, Dataset, FileEntry
from tealeaves.data.roots import cache_dir, search_roots
from tealeaves.errors import ChecksumError, FetchError, OutputError, ParameterError

#: Seconds without data before a connection is given up (then retried).
TIMEOUT = 30.0
#: Attempts per download (the first and the retries of a transient failure).
ATTEMPTS = 4
#: Backoff before retry i (1-based) is ``BACKOFF * 2 ** (i - 1)`` seconds.
BACKOFF = 1.0
CHUNK = 1 << 16
#: Seconds between two progress lines when stderr is not a terminal.
PLAIN_EVERY = 5.0
TRANSIENT_HTTP = (408, 425, 429, 500, 502, 503, 504)


class _Transient(Exception):
    """A failure worth retrying (the message says what happened)."""


@dataclass
class FetchReport:
    """What :func:`fetch_dataset` did: files fetched, already present, and unavailable (with why).

    Parameters
    ----------
    name : str
        The data set's name.
    target : Path
        The folder fetched into.
    fetched : list of str, default []
        Files downloaded (relative to the data set's folder).
    present : list of str, default []
        Files already present in a data root.
    unavailable : dict of str to str, default {}
        Files that could not be fetched, with why.
    """

    name: str
    target: Path
    fetched: list[str] = field(default_factory=list)
    present: list[str] = field(default_factory=list)
    unavailable: dict[str, str] = field(default_factory=dict)

    @shared_doc
    def reason_for(self, path: str) -> str | None:
        """Why ``path`` (relative to the data set's folder) could not be fetched, or None.

        Parameters: %(dataset_path)s

        Returns
        -------
        str or None
            The reason.
        """
        return self.unavailable.get(path)


# --------------------------------------------------------------------------- mirror and sizes


def mirror_url(mirror: str | None = None) -> str | None:
    """The mirror base URL (``mirror`` or ``$TEALEAVES_DATA_MIRROR``), validated; None if unset.

    Parameters
    ----------
    mirror : str or None, default None
        The mirror; None reads ``$TEALEAVES_DATA_MIRROR``.

    Returns
    -------
    str or None
        The URL ending in ``/``, or None when neither is set.

    Raises
    ------
    ParameterError
        If it is not an http:// or https:// base URL or its port is invalid.
    """
    value = mirror if mirror is not None else os.environ.get("TEALEAVES_DATA_MIRROR", "")
    value = value.strip()
    if not value:
        return None
    try:
        parts = urlsplit(value)
    except ValueError as exc:  # an unclosed IPv6 bracket: http://[::1
        raise ParameterError(f"mirror URL '{value}' is not a URL ({exc})",
                             fix="give one like https://example.org/tealeaves-data/") from None
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise ParameterError(f"mirror URL '{value}' is not an http:// or https:// base URL",
                             fix="give one like https://example.org/tealeaves-data/, serving the "
                                 "layout of a TEALEAVES_DATA folder")
    try:
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        raise ParameterError(f"mirror URL '{value}' has an invalid port",
                             fix="give a port between 1 and 65535") from None
    return value.rstrip("/") + "/"


def human_size(n: float) -> str:
    """``1234567`` -> ``'1.2 MB'`` (decimal units).

    Parameters
    ----------
    n : float
        A number of bytes (a size, or a rate per second).

    Returns
    -------
    str
        The size in B, kB, MB or GB.
    """
    for unit in ("B", "kB", "MB", "GB"):
        if abs(n) < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"


# --------------------------------------------------------------------------- progress


class DownloadProgress(_Progress):
    """Bytes, rate and ETA of one download on ``stream``: a redrawn bar on a terminal, else lines.

    Plain (non-terminal) output prints a line every ``PLAIN_EVERY`` seconds and a final line.

    Parameters
    ----------
    label : str
        The name shown.
    total : int or None
        The expected number of bytes, if known.
    stream : IO or None
        Where to write (None: nothing is written).
    start : int, default 0
        Bytes already there (a resumed download).
    """

    def __init__(self, label: str, total: int | None, stream: IO[str] | None, start: int = 0):
        super().__init__(stream, interval=PLAIN_EVERY, wait_first=True)
        self.label, self.total = label, total
        self.done = self.resumed_at = start

    def _line(self) -> str:
        elapsed = max(self.elapsed(), 1e-6)
        rate = (self.done - self.resumed_at) / elapsed
        text = f"{self.label}: {human_size(self.done)}"
        if self.total:
            text += f" / {human_size(self.total)} {100 * self.done / self.total:3.0f}%"
        text += f"  {human_size(rate)}/s"
        if self.total and rate > 0 and self.done < self.total:
            text += f"  ETA {max(0, (self.total - self.done) / rate):.0f} s"
        return text

    def update(self, n: int) -> None:
        """Record ``n`` more bytes.

        On a terminal the bar is redrawn at most every 0.1 s; otherwise a line is written every
        ``PLAIN_EVERY`` seconds.

        Parameters
        ----------
        n : int
            Bytes received.
        """
        self.done += n
        if self.stream is None:
            return
        if self.tty:
            if self.due(0.1):
                width = 24
                filled = int(width * self.done / self.total) if self.total else 0
                bar = f"[{'#' * filled}{'.' * (width - filled)}] " if self.total else ""
                self.redraw(f"{bar}{self._line()}\033[K")
        elif self.due():
            self.line(self._line())

    def finish(self) -> None:
        """Print the final line."""
        text = f"{self.label}: {human_size(self.done)} in {self.elapsed():.1f} s"
        self.write(f"\r{text}\033[K\n" if self.tty else f"{text}\n")


#: The former name of :class:`DownloadProgress`.
Progress = DownloadProgress


# --------------------------------------------------------------------------- one download


def _open(url: str, offset: int):
    headers = {"User-Agent": f"tealeaves/{__version__} (data fetch)", "Accept-Encoding": "identity"}
    if offset:
        headers["Range"] = f"bytes={offset}-"
    return urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=TIMEOUT)


def _attempt(url: str, part: Path, size: int | None, label: str, stream: IO[str] | None) -> None:
    """One try at completing ``part`` from ``url`` (resuming it); raises _Transient to be retried."""
    offset = part.stat().st_size if part.exists() else 0
    if size is not None and offset > size:
        part.unlink()
        offset = 0
    if size is not None and offset == size:
        return
    try:
        response = _open(url, offset)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and offset:  # the range is past the end: start again
            part.unlink()
            raise _Transient(f"the server refused to resume at byte {offset}") from None
        if exc.code in TRANSIENT_HTTP:
            raise _Transient(f"HTTP {exc.code} {exc.reason}") from None
        raise FetchError(f"HTTP {exc.code} {exc.reason} for {url}",
                         fix="the file may have moved: check the data set's page in 'tealeaves data list', "
                             "or use a mirror (a mirror URL or TEALEAVES_DATA_MIRROR)") from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", exc)
        reason = getattr(reason, "strerror", None) or reason
        raise _Transient(f"cannot reach {urlsplit(url).netloc}: {reason}") from None
    with response:
        status = getattr(response, "status", 200)
        if offset and status == 206 and _range_start(response.headers.get("Content-Range")) == offset:
            mode = "ab"
        else:
            if offset and stream is not None:
                print(f"{label}: the server does not resume downloads; starting again from byte 0",
                      file=stream, flush=True)
            offset, mode = 0, "wb"
        length = response.headers.get("Content-Length")
        expected = size
        if expected is None and length and length.isdigit():
            expected = offset + int(length)
        progress = DownloadProgress(label, expected, stream, start=offset)
        try:
            with open(part, mode) as out:
                while block := response.read(CHUNK):
                    out.write(block)
                    progress.update(len(block))
        except (http.client.HTTPException, OSError) as exc:
            if is_disk_full(exc):  # a partial file would only hold space the user must free
                part.unlink(missing_ok=True)
                raise disk_full_error("downloaded file", part.with_name(part.name.removesuffix(".part"))
                                      ) from None
            if isinstance(exc, OSError) and exc.errno is not None and not isinstance(exc, ConnectionError):
                raise  # a local write error (permissions): not worth retrying
            raise _Transient(f"the connection broke after {human_size(progress.done)} "
                             f"({type(exc).__name__})") from None
    if expected is not None and part.stat().st_size < expected:
        raise _Transient(f"the connection closed after {human_size(part.stat().st_size)} of "
                         f"{human_size(expected)}")
    progress.finish()


def _range_start(content_range: str | None) -> int | None:
    """``'bytes 100-199/200'`` -> 100."""
    try:
        return int(content_range.split()[1].split("-")[0])
    except (AttributeError, IndexError, ValueError):
        return None


def download(url: str, part: Path, *, size: int | None = None, label: str | None = None,
             stream: IO[str] | None = None, attempts: int | None = None) -> Path:
    """Complete ``part`` from ``url``, resuming what it holds and retrying transient failures.

    Parameters
    ----------
    url : str
        The URL.
    part : Path
        The partial file to complete.
    size : int or None, default None
        The expected size, if known.
    label : str or None, default None
        The name shown in progress (None: the URL's last part).
    stream : IO or None, default None
        Where progress and retries are reported.
    attempts : int or None, default None
        How many times to try (None: ``ATTEMPTS``), with exponential back-off.

    Returns
    -------
    Path
        ``part``.

    Raises
    ------
    FetchError
        After the last attempt, naming the URL.
    """
    label = label or url.rsplit("/", 1)[-1]
    attempts = ATTEMPTS if attempts is None else attempts
    for i in range(1, attempts + 1):
        try:
            _attempt(url, part, size, label, stream)
            return part
        except _Transient as exc:
            if i == attempts:
                raise FetchError(f"could not download {url}: {exc} (after {attempts} attempts)",
                                 fix="check the network connection and run the command again (it "
                                     "resumes), use a mirror (a mirror URL or TEALEAVES_DATA_MIRROR), or "
                                     "set TEALEAVES_DATA to a folder holding the data") from None
            wait = BACKOFF * 2 ** (i - 1)
            if stream is not None:
                print(f"{label}: {exc}; retrying in {wait:.0f} s ({i}/{attempts - 1})",
                      file=stream, flush=True)
            time.sleep(wait)
    raise AssertionError("unreachable")


# --------------------------------------------------------------------------- verification


@shared_doc
def sha256_of(path: Path) -> str:
    """The SHA-256 hex digest of a file.

    Parameters: %(file_path)s

    Returns
    -------
    str
        Its digest.
    """
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _install(part: Path, final: Path, entry: FileEntry, origin: str) -> None:
    """Rename ``part`` to ``final`` if its digest is the registry's; else delete it and raise."""
    actual, got = sha256_of(part), part.stat().st_size
    if actual != entry.sha256:
        part.unlink()
        raise ChecksumError(
            f"'{entry.path}' downloaded from {origin} does not match the registry: SHA-256 expected "
            f"{entry.sha256}, got {actual} ({got} bytes, {entry.size} expected); the download was deleted",
            fix="the download was corrupted or the publisher changed the file; run the fetch again, "
                "or use a mirror holding the registered version")
    os.replace(part, final)


# --------------------------------------------------------------------------- a data set


def _present(dataset: Dataset, entry: FileEntry) -> Path | None:
    for root in search_roots():
        path = root / dataset.folder / entry.path
        if path.is_file():
            return path
    return None


def _writable(target: Path) -> None:
    try:
        target.mkdir(parents=True, exist_ok=True)
        probe = target / f".write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise OutputError(f"cannot write the data cache '{target}': {exc.strerror or exc}",
                          fix="set XDG_CACHE_HOME to a writable folder, or set TEALEAVES_DATA to a "
                              "folder that holds the data") from None


@contextlib.contextmanager
def _lock(root: Path):
    """Serialise fetches into one cache between processes (POSIX advisory lock)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    with open(root / ".fetch.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        yield


def fetch_dataset(dataset: Dataset, *, mirror: str | None = None, stream: IO[str] | None = sys.stderr,
                  announce: bool = True) -> FetchReport:
    """Fetch the files of ``dataset`` missing from every data root into :func:`cache_dir`.

    Files are read from the mirror when one is given (or set in ``$TEALEAVES_DATA_MIRROR``),
    else from the publisher; files only a mirror serves are reported in
    :attr:`FetchReport.unavailable`.

    Parameters
    ----------
    dataset : Dataset
        The data set.
    mirror : str or None, default None
        A mirror base URL (None: ``$TEALEAVES_DATA_MIRROR``, if set).
    stream : IO or None, default sys.stderr
        Where the fetch is announced and progress shown (None: silent).
    announce : bool, default True
        Print one line saying what is fetched from where.

    Returns
    -------
    FetchReport
        What was fetched, present and unavailable.

    Raises
    ------
    FetchError
        On a failed download.
    ChecksumError
        When a file's SHA-256 differs from the registry's.
    OutputError
        On an unwritable cache.
    """
    base = mirror_url(mirror)
    root = cache_dir()
    target = root / dataset.folder
    report = FetchReport(dataset.name, target)
    missing = []
    for entry in dataset.files:
        if _present(dataset, entry):
            report.present.append(entry.path)
        elif base or not entry.derived:
            missing.append(entry)
        else:
            report.unavailable[entry.path] = (
                f"'{entry.path}' is not published by the source ({entry.derived}); only a mirror serves it "
                "(a mirror URL or TEALEAVES_DATA_MIRROR)")
    if not missing:
        return report
    _writable(target)
    if announce and stream is not None:
        size = human_size(sum(e.size for e in missing))
        source = base or "; ".join(dataset.sources()[:2]) + (" ..." if len(dataset.sources()) > 2 else "")
        print(f"fetching {dataset.name} ({size}, {len(missing)} files) from {source} into {root} ...",
              file=stream, flush=True)
    with _lock(root):
        missing = [e for e in missing if not _present(dataset, e)]  # another process may have fetched them
        if base:
            for entry in missing:
                _fetch_single(dataset, entry, base + quote(f"{dataset.folder}/{entry.path}"), target, stream)
                report.fetched.append(entry.path)
            return report
        for archive in dataset.archives.values():
            members = [e for e in missing if e.archive == archive.id]
            if members:
                _fetch_archive(dataset, archive, members, target, stream)
                report.fetched += [e.path for e in members]
        for entry in missing:
            if entry.url:
                _fetch_single(dataset, entry, entry.url, target, stream)
                report.fetched.append(entry.path)
    return report


def _fetch_single(dataset: Dataset, entry: FileEntry, url: str, target: Path, stream) -> None:
    final = target / entry.path
    final.parent.mkdir(parents=True, exist_ok=True)
    part = final.with_name(final.name + ".part")
    download(url, part, size=entry.size, label=f"{dataset.name}/{entry.path}", stream=stream)
    _install(part, final, entry, url)


def _fetch_archive(dataset: Dataset, archive: Archive, members: list[FileEntry], target: Path,
                   stream) -> None:
    downloads = cache_dir() / ".downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    basename = archive.url.rsplit("/", 1)[-1]
    path = downloads / f"{dataset.name}-{basename}"
    part = path.with_name(path.name + ".part")
    download(archive.url, part, label=basename, stream=stream)
    os.replace(part, path)
    try:
        with _ArchiveReader(path, archive) as reader:
            for entry in members:
                final = target / entry.path
                final.parent.mkdir(parents=True, exist_ok=True)
                tmp = final.with_name(final.name + ".part")
                try:
                    reader.extract(entry.member, tmp)
                except BaseException:
                    tmp.unlink(missing_ok=True)
                    raise
                _install(tmp, final, entry, f"{archive.url} (member {entry.member})")
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise FetchError(f"the archive {archive.url} is not a readable {archive.format} file ({exc})",
                         fix="the download was probably corrupted: run the fetch again") from None
    finally:
        path.unlink(missing_ok=True)  # the archive served its purpose (or is broken): never kept


class _ArchiveReader:
    """Read named members of a tar.gz or zip archive, never extracting anything else."""

    def __init__(self, path: Path, archive: Archive):
        self.path, self.archive = path, archive
        if archive.format == "zip":
            self.handle = zipfile.ZipFile(path)
            self.names = self.handle.namelist()
        else:
            self.handle = tarfile.open(path, mode="r:*")
            self.names = [m.name for m in self.handle.getmembers() if m.isfile()]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.handle.close()

    def _name(self, member: str) -> str:
        norm = {n.removeprefix("./"): n for n in self.names}
        if member in norm:
            return norm[member]
        # the same layout under one top-level folder (e.g. 'reuters21578/reut2-000.sgm')
        nested = [n for k, n in norm.items() if "/" in k and k.split("/", 1)[1] == member]
        if len(nested) == 1:
            return nested[0]
        raise FetchError(f"the archive {self.archive.url} has no member '{member}'",
                         fix="the publisher changed the archive: use a mirror (a mirror URL or "
                             "TEALEAVES_DATA_MIRROR) or set TEALEAVES_DATA to a folder holding the data")

    def extract(self, member: str, dest: Path) -> None:
        """Copy ``member`` to ``dest``."""
        name = self._name(member)
        source = self.handle.open(name) if self.archive.format == "zip" else self.handle.extractfile(name)
        with source, open(dest, "wb") as out:
            while block := source.read(CHUNK):
                out.write(block)
