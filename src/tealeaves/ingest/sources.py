"""One document at a time from the formats large corpora come in.

Kinds (:func:`detect_kind`), each read by :func:`iter_documents` as ``(id, text)``:

* ``wiki``: a MediaWiki XML dump (``<mediawiki`` at its start), read with
  ``mwxml``; the last revision of every main-namespace page that is not a
  redirect, its markup removed with ``mwparserfromhell``'s ``strip_code``.
  Redirects, other namespaces and pages left empty are skipped and counted
  (:class:`IngestStats`).  Ids are the page titles.
* ``jsonl``: JSON Lines (``*.jsonl``/``*.ndjson``), one object per document
  with a string text field and an id field, as :func:`tealeaves.corpus.readers.read_jsonl`.
* ``parquet``: a Parquet file with a string text column (and an id column if
  present; else 1-based row numbers), read in batches with ``pyarrow``.
* ``folder``: one document per file, sorted relative paths as ids, hidden files
  skipped, as :func:`tealeaves.corpus.readers.read_text_folder`.
* ``tokens``: any other file: one already tokenised document per line, tokens
  separated by whitespace, 1-based line numbers as ids (the text yielded is the
  line; :func:`is_pretokenised` tells the builder not to tokenise it again).

Files (including files in a folder) compressed with gzip, bz2 or xz are
recognised by their magic bytes and decompressed as they are read; a truncated
or corrupted stream raises :class:`~tealeaves.errors.InputFormatError` naming the file.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tealeaves._docs import shared_doc
from tealeaves._optional import optional_import
from tealeaves.errors import (
    EmptyInputError,
    InputFormatError,
    InputNotFoundError,
    ParameterError,
    TealeavesError,
    naming,
)

#: Magic bytes of the compressions read transparently.
_MAGIC = {b"\x1f\x8b": gzip.open, b"BZh": bz2.open, b"\xfd7zXZ\x00": lzma.open}
_COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")
_STREAM_ERRORS = (EOFError, OSError, zlib.error, lzma.LZMAError)
KINDS = ("wiki", "jsonl", "parquet", "folder", "tokens")


@dataclass
class IngestStats:
    """What a reader read and skipped (reported by ``tealeaves index build``).

    Parameters
    ----------
    documents : int, default 0
        Documents read.
    skipped : dict of str to int, default {}
        Documents skipped, by reason.
    """

    documents: int = 0
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str) -> None:
        """Count one document skipped for ``reason``.

        Parameters
        ----------
        reason : str
            Why it was skipped (e.g. ``"redirect"``).
        """
        self.skipped[reason] = self.skipped.get(reason, 0) + 1

    def add(self, other: IngestStats) -> None:
        """Add the counts of ``other`` to these (e.g. of another shard).

        Parameters
        ----------
        other : IngestStats
            The counts to add.
        """
        self.documents += other.documents
        for k, v in other.skipped.items():
            self.skipped[k] = self.skipped.get(k, 0) + v

    def to_dict(self) -> dict:
        """The counts as a dictionary.

        Returns
        -------
        dict
            ``documents`` and ``skipped`` (reasons sorted).
        """
        return {"documents": self.documents, "skipped": dict(sorted(self.skipped.items()))}


@shared_doc
def open_binary(path: Path):
    """Open ``path`` for reading bytes, decompressing gzip/bz2/xz (by magic bytes).

    Parameters: %(file_path)s

    Returns
    -------
    file object
        A binary file object, decompressing when the file is compressed.

    Raises
    ------
    TealeavesError
        If the file cannot be read (permissions).
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(6)
    except PermissionError as exc:
        raise TealeavesError(f"cannot read input '{path}' ({exc.strerror})",
                             fix="check its permissions") from None
    for magic, opener in _MAGIC.items():
        if head.startswith(magic):
            return opener(path, "rb")
    return open(path, "rb")


def _stem(path: Path) -> str:
    name = path.name.lower()
    for suffix in _COMPRESSED_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


@shared_doc
def detect_kind(path: str | Path) -> str:
    """The kind of input ``path`` is (one of :data:`KINDS`; see the module docstring).

    Parameters
    ----------
    path : str or Path
        A file or folder.

    Returns
    -------
    str
        ``wiki``, ``jsonl``, ``parquet``, ``folder`` or ``tokens``.

    Raises
    ------
    %(raises_path_missing)s
    InputFormatError
        If a compressed file is truncated or corrupted.
    """
    p = Path(path)
    if not p.exists():
        raise InputNotFoundError(f"input '{p}' does not exist", fix="check the path")
    if p.is_dir():
        return "folder"
    stem = _stem(p)
    if stem.endswith(".parquet"):
        return "parquet"
    if stem.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    with _reading(p), open_binary(p) as fh:
        head = fh.read(4096)
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 (e.g. gensim's Bulgarian test dump)
        head = head[: len(head) // 2 * 2].decode("utf-16", errors="replace").encode("utf-8")
    if b"<mediawiki" in head:
        return "wiki"
    return "tokens"


def is_pretokenised(kind: str) -> bool:
    """Whether documents of ``kind`` are already tokens (whitespace-separated), not raw text.

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.

    Returns
    -------
    bool
        True for ``tokens``.
    """
    return kind == "tokens"


class _reading:
    """Turn a decompression failure into an :class:`InputFormatError` naming the file."""

    def __init__(self, path: Path):
        self.path = path

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if isinstance(exc, FileNotFoundError):  # a missing input is not a corrupted one
            raise InputNotFoundError(f"input '{self.path}' does not exist", fix="check the path") from None
        if exc is not None and isinstance(exc, _STREAM_ERRORS) and not isinstance(exc, PermissionError):
            raise InputFormatError(f"input '{self.path}' is truncated or corrupted ({type(exc).__name__}: "
                                   f"{exc})", fix="download or copy it again") from None
        return False


def iter_documents(path: str | Path, *, kind: str | None = None, text_field: str = "text",
                   id_field: str = "id", stats: IngestStats | None = None,
                   encoding: str | None = None) -> Iterator[tuple[str, str]]:
    """Yield ``(id, text)`` for every document of one input, streaming (see the module docstring).

    Parameters
    ----------
    path : str or Path
        The input.
    kind : str or None, default None
        One of :data:`KINDS` (None: :func:`detect_kind`).
    text_field : str, default "text"
        The JSON Lines field or Parquet column holding the text.
    id_field : str, default "id"
        The JSON Lines field or Parquet column holding the id.
    stats : IngestStats or None, default None
        Counts of documents read and skipped, updated as the input is read.
    encoding : str or None, default None
        The encoding of text inputs (token lines, JSON Lines, folders; UTF-8 by
        default, :func:`tealeaves._io.decode`); dumps and Parquet carry their own.

    Yields
    ------
    tuple of (str, str)
        ``(id, text)`` of each document.

    Raises
    ------
    EmptyInputError
        Naming the input (and what was skipped) when it yields no document.
    InputFormatError
        If the input is malformed, truncated or corrupted.
    """
    p = Path(path)
    kind = kind or detect_kind(p)
    stats = stats if stats is not None else IngestStats()
    readers = {"wiki": _wiki, "jsonl": _jsonl, "parquet": _parquet, "folder": _folder, "tokens": _tokens}
    n = 0
    with _reading(p):
        for doc in readers[kind](p, text_field=text_field, id_field=id_field, stats=stats, encoding=encoding):
            n += 1
            stats.documents += 1
            yield doc
    if n == 0:
        skipped = ", ".join(f"{v} {k}" for k, v in sorted(stats.skipped.items()))
        raise EmptyInputError(f"input '{p}' holds no document"
                              + (f" (skipped: {skipped})" if skipped else ""),
                              fix="check the input, or leave the empty shard out")


def _text_lines(path: Path, encoding: str | None = None):
    """``(line number, text)`` of a line-per-document input, read as bytes and decoded line by line."""
    from tealeaves._io import ascii_compatible, codec, decode

    if not ascii_compatible(codec(encoding)):  # UTF-16/32: a line does not end at the byte b"\n"
        raise ParameterError(f"the streaming build reads '{path}' line by line, which needs an ASCII-"
                             f"compatible encoding; {encoding} is not one",
                             fix="convert the file to UTF-8 first (e.g. iconv -f utf-16 -t utf-8)")
    with open_binary(path) as raw:
        for lineno, line in enumerate(io.BufferedReader(raw) if not hasattr(raw, "peek") else raw, start=1):
            yield lineno, decode(line, path, encoding, first_line=lineno)


def _tokens(path: Path, stats: IngestStats, encoding: str | None = None, **_) -> Iterator[tuple[str, str]]:
    """One document per line; lines end at ``\n``, ``\r\n`` or ``\r`` (:func:`tealeaves._io.split_lines`,
    as ``read_token_lines``)."""
    from tealeaves._io import split_lines

    n = 0
    for _, line in _text_lines(path, encoding):
        for part in split_lines(line) or [""]:
            n += 1
            yield str(n), part


def _jsonl(path: Path, text_field: str, id_field: str, stats: IngestStats, encoding: str | None = None
           ) -> Iterator[tuple[str, str]]:
    from tealeaves.corpus.readers import _field, _json_record

    for lineno, line in _text_lines(path, encoding):
        if not line.strip():
            continue
        record = _json_record(line, lineno, path)
        text = _field(record, text_field, lineno, path, want_str=True)
        yield str(_field(record, id_field, lineno, path)), text


def _folder(path: Path, stats: IngestStats, encoding: str | None = None, **_) -> Iterator[tuple[str, str]]:
    from tealeaves._io import decode
    from tealeaves.corpus.readers import text_folder_files

    for f in text_folder_files(path):
        with _reading(f), open_binary(f) as fh:
            data = fh.read()
        text = decode(data, f, encoding)  # as read_text_folder: the text as decoded, line ends kept
        yield f.relative_to(path).as_posix(), text


def _parquet(path: Path, text_field: str, id_field: str, stats: IngestStats, **_
             ) -> Iterator[tuple[str, str]]:
    import tempfile

    with tempfile.TemporaryFile() as spool:
        yield from _parquet_rows(path, _seekable(path, spool), text_field, id_field)


def _seekable(path: Path, spool):
    """``path`` itself, or for a compressed file (docs/scale.md: any input may be) its decompressed bytes
    streamed into ``spool`` (a temporary file: Parquet needs to seek, a decompressing stream cannot)."""
    import shutil

    with open(path, "rb") as fh:
        head = fh.read(6)
    if not any(head.startswith(magic) for magic in _MAGIC):
        return path
    with _reading(path), open_binary(path) as fh:
        shutil.copyfileobj(fh, spool, 1 << 20)
    spool.seek(0)
    return spool


def _parquet_rows(path: Path, source, text_field: str, id_field: str) -> Iterator[tuple[str, str]]:
    pq = optional_import("pyarrow.parquet", "parquet", "reading Parquet shards")
    import pyarrow as pa

    try:
        pf = pq.ParquetFile(source)
        names = pf.schema_arrow.names
    except (pa.ArrowException, OSError) as exc:
        raise InputFormatError(f"Parquet shard '{path}' is unreadable ({exc})",
                               fix="rewrite it with a Parquet writer") from None
    if text_field not in names:
        raise naming(InputFormatError(f"Parquet shard '{path}' has no column {text_field!r} (columns: "
                                      f"{', '.join(names)})", fix="choose the text column with `text_field`"),
                     "text_field")
    columns = [text_field] + ([id_field] if id_field in names else [])
    row = 0
    try:
        for batch in pf.iter_batches(columns=columns, batch_size=4096):
            texts = batch.column(0).to_pylist()
            ids = batch.column(1).to_pylist() if len(columns) == 2 else None
            for k, text in enumerate(texts):
                row += 1
                if not isinstance(text, str):
                    raise InputFormatError(f"Parquet shard '{path}', row {row}: column {text_field!r} holds "
                                           f"{type(text).__name__}, not a string",
                                           fix="give text in that column")
                yield (str(ids[k]) if ids is not None else str(row)), text
    except pa.ArrowException as exc:
        raise InputFormatError(f"Parquet shard '{path}' is corrupted ({exc})",
                               fix="rewrite it with a Parquet writer") from None


def _wiki(path: Path, stats: IngestStats, **_) -> Iterator[tuple[str, str]]:
    """Main-namespace, non-redirect pages of a MediaWiki dump, markup stripped (last revision)."""
    for _, title, plain in wiki_pages(path, stats):
        yield title, plain


def _dump_pages(dump, path: Path) -> Iterator:
    """The pages of an ``mwxml`` dump; a page mwxml cannot read (no ``<title>``: mwxml fails on it with an
    ``AttributeError``) is an :class:`InputFormatError` naming the page after the last one read."""
    pages, last = iter(dump), None
    while True:
        try:
            page = next(pages)
        except StopIteration:
            return
        except (AttributeError, TypeError) as exc:
            after = "the first page" if last is None else f"the page after page {last}"
            raise InputFormatError(f"MediaWiki dump '{path}' is malformed: {after} lacks an element every "
                                   f"page has, e.g. <title> ({type(exc).__name__}: {exc})",
                                   fix="give a pages-articles XML dump") from None
        last = page.id
        yield page


def wiki_pages(path: str | Path, stats: IngestStats, skipped=None) -> Iterator[tuple[int, str, str]]:
    """``(page id, title, plain text)`` of the articles of a MediaWiki dump.

    Main-namespace, non-redirect pages, the last revision, markup stripped with
    ``mwparserfromhell`` (see the module docstring).

    Parameters
    ----------
    path : str or Path
        The dump (possibly compressed).
    stats : IngestStats
        Counts the pages skipped, by reason.
    skipped : callable or None, default None
        ``skipped(page id, reason)`` is called for every page left out (redirect,
        other namespace, empty).

    Yields
    ------
    tuple of (int, str, str)
        ``(page id, title, plain text)``.

    Raises
    ------
    InputFormatError
        If the dump is malformed.
    """
    mwxml = optional_import("mwxml", "wiki", "reading MediaWiki dumps")
    mwp = optional_import("mwparserfromhell", "wiki", "removing wiki markup")
    import xml.etree.ElementTree as ET

    path = Path(path)

    def skip(page, reason: str) -> None:
        stats.skip(reason)
        if skipped is not None:
            skipped(page.id, reason)

    with _reading(path), open_binary(path) as fh:
        try:
            for page in _dump_pages(mwxml.Dump.from_file(fh), path):
                text = None
                for revision in page:
                    text = revision.text
                if page.namespace != 0:
                    skip(page, "non-article namespace")
                elif page.redirect or (text or "").lstrip()[:9].upper() == "#REDIRECT":
                    skip(page, "redirect")
                else:
                    plain = mwp.parse(text or "").strip_code().strip()
                    if not plain:
                        skip(page, "empty")
                        continue
                    yield page.id, page.title, plain
        except InputFormatError:
            raise
        except (ET.ParseError, mwxml.errors.MalformedXML, ValueError, KeyError) as exc:
            raise InputFormatError(f"MediaWiki dump '{path}' is malformed ({type(exc).__name__}: {exc})",
                                   fix="give a pages-articles XML dump") from None
