"""Reading and writing files with one explicit policy.

Reading: text is UTF-8 unless an ``encoding`` is given; a UTF-8 byte-order
mark is removed (never glued to the first word); bytes that are not valid in
the encoding raise :class:`~tealeaves.errors.InputEncodingError` naming the
file, the line and the ``--encoding`` option.  A missing path, a folder where
a file is expected and an unreadable file are clear errors, not tracebacks.

Writing: :func:`atomic_write` writes to a temporary file beside the target and
renames it into place only when everything was written, so an interrupted or
failed write leaves neither a partial file nor a stray temporary one.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from tealeaves._docs import shared_doc
from tealeaves.errors import (
    InputEncodingError,
    InputFormatError,
    InputNotFoundError,
    OutputError,
    StrictJSONError,
    TealeavesError,
    naming,
)

PathLike = str | os.PathLike[str]
DEFAULT_ENCODING = "utf-8"


@shared_doc
def existing_file(path: PathLike, what: str = "file") -> Path:
    """``path`` as a :class:`Path` if it is an existing, readable file; a clear error otherwise.

    Parameters
    ----------
    path : path-like
        The file (``~`` expanded).
    %(file_what)s

    Returns: %(returns_path)s

    Raises
    ------
    InputNotFoundError
        If it does not exist.
    TealeavesError
        If it is a folder or cannot be read.
    """
    p = Path(path).expanduser()
    if not p.exists():
        raise InputNotFoundError(f"{what} '{p}' does not exist", fix="check the path")
    if p.is_dir():
        raise TealeavesError(f"{what} '{p}' is a folder, not a file", fix="give the path of a file")
    if not os.access(p, os.R_OK):
        raise TealeavesError(f"{what} '{p}' cannot be read (permission denied)",
                             fix="check the file's permissions")
    return p


def codec(encoding: str | None) -> codecs.CodecInfo:
    """The codec of ``encoding`` (UTF-8 when ``None``); an unknown name is a clear error.

    Parameters
    ----------
    encoding : str or None
        A Python codec name.

    Returns
    -------
    codecs.CodecInfo
        The codec.

    Raises
    ------
    TealeavesError
        If the name is unknown.
    """
    try:
        return codecs.lookup(encoding or DEFAULT_ENCODING)
    except LookupError:
        raise naming(TealeavesError(f"unknown encoding {encoding!r}", fix="give a Python codec name such as "
                                    "utf-8 or latin-1 as `encoding`"), "encoding") from None


def decode(data: bytes, path: PathLike, encoding: str | None = None, first_line: int = 1, *,
           utf8_only: bool = False) -> str:
    """Decode ``data`` read from ``path`` strictly, dropping a UTF-8 byte-order mark.

    Parameters
    ----------
    data : bytes
        The bytes read.
    path : path-like
        Where they were read, for the error message.
    encoding : str or None, default None
        Their encoding (None: UTF-8).
    first_line : int, default 1
        The line number of ``data``'s first line in the file (for a caller that
        decodes a file line by line), so an error names the file's line.
    utf8_only : bool, default False
        The file is UTF-8 by its format (a study, a manifest, a JSON table): no ``encoding``
        parameter reads it otherwise, so the fix of an error offers none.

    Returns
    -------
    str
        The text.

    Raises
    ------
    InputEncodingError
        Naming the file, the byte and the line, for bytes invalid in the encoding.
    """
    enc = encoding or DEFAULT_ENCODING
    if codec(enc).name in ("utf-8", "utf-8-sig") and data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    try:
        return data.decode(enc)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + first_line
        what = f"'{path}' is not valid {enc}: byte 0x{data[exc.start]:02x} at line {line} ({exc.reason})"
        if utf8_only:
            raise InputEncodingError(what, fix="convert it to UTF-8") from None
        raise naming(InputEncodingError(
            what,
            fix=("give its encoding with `encoding` (e.g. `encoding='latin-1'`)", "convert it to UTF-8"),
        ), "encoding") from None


def loads_strict(text: str, *, unique_keys: bool = False, allow_constants: bool = False) -> object:
    """``json.loads`` that refuses ``NaN``/``Infinity`` literals and, optionally, repeated keys.

    The one strict reading of JSON inputs.

    Parameters
    ----------
    text : str
        The JSON text.
    unique_keys : bool, default False
        Refuse a key given twice in one object (the first repeated key is named).
    allow_constants : bool, default False
        Accept ``NaN``/``Infinity`` literals.

    Returns
    -------
    object
        The decoded value.

    Raises
    ------
    StrictJSONError
        For a refused literal or repeated key (a ``ValueError``).
    json.JSONDecodeError
        For text that is not JSON (a ``ValueError``).

    Examples
    --------
    >>> loads_strict('{"a": NaN}')
    Traceback (most recent call last):
    ...
    tealeaves.errors.StrictJSONError: NaN is not valid JSON
    """
    import json

    def constant(name: str):
        raise StrictJSONError("constant", name)

    def pairs(items: list) -> dict:
        seen: set = set()
        for key, _ in items:
            if key in seen:
                raise StrictJSONError("duplicate", key)
            seen.add(key)
        return dict(items)

    return json.loads(text, parse_constant=None if allow_constants else constant,
                      object_pairs_hook=pairs if unique_keys else None)


def check_format(doc: object, fmt: str, version: int, *, bad: Callable[[str], TealeavesError], holder: str,
                 what: str, fix: str) -> dict:
    """A saved file's parsed header, once it declares ``fmt`` at ``version`` (``format``, ``format_version``).

    Parameters
    ----------
    doc : object
        The parsed JSON header.
    fmt : str
        The format it must declare.
    version : int
        The format version this tealeaves reads.
    bad : callable
        ``problem -> error`` for a header that is not of the format at all.
    holder : str
        What holds the header, starting the problem (``"it"``, a file name).
    what : str
        The saved thing and its path, starting the version message (``"model 'path'"``).
    fix : str
        How to make one of this version.

    Returns
    -------
    dict
        ``doc``.

    Raises
    ------
    TealeavesError
        ``bad(...)`` when ``doc`` is not an object declaring ``fmt``.
    InputFormatError
        When it has another format version.
    """
    if not isinstance(doc, dict) or doc.get("format") != fmt:
        raise bad(f"{holder} does not declare format {fmt!r}")
    if doc.get("format_version") != version:
        raise InputFormatError(f"{what} has format version {doc.get('format_version')!r}; this tealeaves "
                               f"reads version {version}", fix=fix)
    return doc


@shared_doc
def read_text(path: PathLike, encoding: str | None = None, what: str = "file", *,
              utf8_only: bool = False) -> str:
    """The whole text of ``path`` under the reading policy (module docstring).

    Parameters
    ----------
    %(file_path)s
    %(file_encoding)s
    %(file_what)s
    utf8_only : bool, default False
        The file is UTF-8 by its format (see :func:`decode`).

    Returns
    -------
    str
        The decoded text.

    Raises: %(raises_file_missing)s %(raises_file_encoding)s %(raises_file_unreadable)s
    """
    p = existing_file(path, what)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise TealeavesError(f"cannot read {what} '{p}': {exc.strerror or exc}",
                             fix="check the path and its permissions") from None
    return decode(data, p, encoding, utf8_only=utf8_only)


def split_lines(text: str) -> list[str]:
    r"""Lines ending at ``\n``, ``\r\n`` or ``\r`` only, without their ends.

    Unlike :meth:`str.splitlines`, a form feed, U+0085 or U+2028 inside a line does not
    split it (a document must not become two because of a control character in its text).

    Parameters
    ----------
    text : str
        The text.

    Returns
    -------
    list of str
        Its lines (a final line end adds no empty line).

    Examples
    --------
    >>> split_lines("a\x0cb\r\nc\rd\n")
    ['a\x0cb', 'c', 'd']
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


@shared_doc
def read_lines(path: PathLike, encoding: str | None = None, what: str = "file") -> list[str]:
    """The lines of ``path`` (without line ends, see :func:`split_lines`) under the reading policy.

    Parameters: %(file_path)s %(file_encoding)s %(file_what)s

    Returns
    -------
    list of str
        The lines.

    Raises: %(raises_file_missing)s %(raises_file_encoding)s %(raises_file_unreadable)s
    """
    return split_lines(read_text(path, encoding, what))


def ascii_compatible(info: codecs.CodecInfo) -> bool:
    r"""Whether ASCII bytes (a newline among them) decode to themselves in this codec.

    If so, a file can be split at the byte ``\n`` before decoding.

    Parameters
    ----------
    info : codecs.CodecInfo
        The codec.

    Returns
    -------
    bool
        True for UTF-8, latin-1 and the like; False for UTF-16/32.
    """
    try:
        return info.decode(b"a \n")[0] == "a \n"
    except UnicodeDecodeError:
        return False


@shared_doc
def iter_lines(path: PathLike, encoding: str | None = None, what: str = "file") -> Iterator[str]:
    r"""The lines :func:`read_lines` gives, read one at a time (memory: one line).

    The file is split at the byte ``\n`` and each piece decoded (errors name the file's line), then
    split as :func:`split_lines` does; a byte-order mark is removed at the start of the file only.
    An encoding in which ``\n`` is not that byte (UTF-16/32) is read whole, as :func:`read_lines`.

    Parameters: %(file_path)s %(file_encoding)s %(file_what)s

    Yields
    ------
    str
        Each line, without its end.

    Raises: %(raises_file_missing)s %(raises_file_encoding)s %(raises_file_unreadable)s
    """
    p = existing_file(path, what)
    info = codec(encoding)
    if not ascii_compatible(info):
        yield from read_lines(p, encoding, what)
        return
    try:
        fh = open(p, "rb")
    except OSError as exc:
        raise TealeavesError(f"cannot read {what} '{p}': {exc.strerror or exc}",
                             fix="check the path and its permissions") from None
    with fh:
        for lineno, raw in enumerate(fh, start=1):
            if lineno > 1:  # a leading newline keeps decode from removing a mark that is not the file's first
                text = decode(b"\n" + raw, p, encoding, first_line=lineno - 1)[1:]
            else:
                text = decode(raw, p, encoding, first_line=lineno)
            yield from split_lines(text)


@contextlib.contextmanager
@shared_doc
def atomic_write(path: PathLike, mode: str = "w", encoding: str | None = "utf-8",
                 what: str = "output file") -> Iterator[IO]:
    """Open a temporary file beside ``path``; on success rename it to ``path``, on any failure delete it.

    Parameters
    ----------
    path : path-like
        The target file (``~`` expanded); its folder must exist.
    mode : str, default "w"
        The open mode (``"wb"`` for bytes).
    encoding : str or None, default "utf-8"
        The text encoding (ignored in binary mode); newlines are written as given.
    %(output_what)s

    Yields
    ------
    IO
        The open temporary file.

    Raises
    ------
    OutputError
        If ``path`` is a folder, its folder does not exist, or writing fails.

    Examples
    --------
    >>> with atomic_write(tmp_path / "out.json") as fh:  # doctest: +SKIP
    ...     fh.write("{}")
    """
    target = Path(path).expanduser()
    if target.is_dir():
        raise OutputError(f"{what} '{target}' is a folder", fix="give a file name")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise OutputError(f"cannot write {what} '{target}': folder '{parent}' does not exist",
                          fix="create it first or choose another path")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=parent)
    except OSError as exc:
        raise OutputError(f"cannot write {what} '{target}': {exc.strerror or exc}",
                          fix="check the folder's permissions and free space") from None
    binary = "b" in mode
    try:
        with os.fdopen(fd, mode, **({} if binary else {"encoding": encoding, "newline": ""})) as fh:
            yield fh
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; give the file ordinary permissions
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if is_disk_full(exc):
            raise disk_full_error(what, target) from None
        if isinstance(exc, OSError):
            raise OutputError(f"cannot write {what} '{target}': {exc.strerror or exc}",
                              fix="check the folder's permissions and free space") from None
        raise


@shared_doc
def folder_path(folder: PathLike, fix: str = "give a new folder name") -> Path:
    """``folder`` as a :class:`~pathlib.Path`, refused when it exists and is not a folder.

    Parameters
    ----------
    folder : path-like
        An output folder (it need not exist).
    fix : str, default "give a new folder name"
        The error's fix.

    Returns: %(returns_folder)s

    Raises: %(raises_folder_is_file)s
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"'{folder}' exists and is not a folder", fix=fix)
    return folder


@contextlib.contextmanager
def output_folder(folder: PathLike) -> Iterator[Path]:
    """Create ``folder`` (and its parents) for an output written file by file; remove it again on failure.

    Each file inside is written with :func:`atomic_write`; a folder this call created is removed whole
    when the block fails (a full disk, an interrupt), so a failed write leaves no partial folder.  A
    folder that existed is left, its files as the failed write left them (each whole, old or new).

    Parameters
    ----------
    folder : path-like
        The output folder.

    Yields
    ------
    Path
        The folder.
    """
    import shutil

    target = Path(folder).expanduser()
    created = [p for p in (target, *target.parents) if not p.exists()]
    try:
        target.mkdir(parents=True, exist_ok=True)
        yield target
    except BaseException:
        if created:
            shutil.rmtree(created[-1], ignore_errors=True)  # the outermost folder made here
        raise


def is_disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` says the disk (or the user's quota) is full.

    Parameters
    ----------
    exc : BaseException
        An exception raised while writing.

    Returns
    -------
    bool
        True for an ``OSError`` with ``ENOSPC`` or ``EDQUOT``, or a message saying so (SQLite's
        "database or disk is full", a wrapped "No space left on device").
    """
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    text = str(exc).lower()
    return "no space left on device" in text or "disk is full" in text or "disk quota exceeded" in text


def disk_full_error(what: str, path: PathLike) -> OutputError:
    """The one error for a full disk while writing ``what`` at ``path``.

    Parameters
    ----------
    what : str
        What was being written, e.g. "report file".
    path : path-like
        Where.

    Returns
    -------
    OutputError
        ``cannot write <what> '<path>': the disk is full``, with the fix (free space, rerun).
    """
    return OutputError(f"cannot write {what} '{path}': the disk is full (nothing was written; an existing "
                       "file of that name is unchanged)", fix="free disk space and rerun the command")


@shared_doc
def write_text(path: PathLike, text: str, what: str = "output file") -> Path:
    """Write ``text`` to ``path`` atomically (UTF-8).

    Parameters
    ----------
    path : path-like
        The target file.
    text : str
        The text.
    %(output_what)s

    Returns: %(returns_path)s

    Raises
    ------
    OutputError
        If the file cannot be written.
    """
    with atomic_write(path, what=what) as fh:
        fh.write(text)
    return Path(path)
