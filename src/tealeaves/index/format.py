"""The reference index file format: the fixed prefix, the JSON header, the arrays, the writers.

One pass over a reference corpus (a counting sort over token ids, compiled
with numba) produces, for every word, the sorted ids of the documents it
occurs in and its sorted positions inside each.  Coherence is then counted
from the postings of the topic words alone (:mod:`tealeaves.coherence.core`);
the index type is :class:`tealeaves.index.reference.ReferenceIndex`.

File format (version 1, little-endian; see ``docs/coherence.md``)::

    bytes 0-7     magic  b"TLXINDEX"
    bytes 8-11    uint32 format version (1)
    bytes 12-15   uint32 reserved (0)
    bytes 16-23   uint64 length H of the JSON header
    bytes 24-55   SHA-256 of every byte from 56 to the end of the file
    bytes 56-     JSON header (UTF-8, H bytes), zero padding to a multiple of 64,
                  then the arrays listed in the header, each starting at a
                  multiple of 64

The header records the name, the counts, the tokenisation of the corpus, the
source, and for every array its ``dtype``, ``shape`` and byte ``offset``.
Arrays are memory-mapped on load, after the checksum is verified (pass
``verify=False`` to skip that full read on very large files) and after the
header and every array have been checked structurally
(:mod:`tealeaves.index._checks`): the compiled kernels do not check bounds, so no array
reaches them before its pointers, postings and positions are known to be
consistent.

Documents live in an id *space* of ``n_documents`` slots.  A plain index has
one document per slot.  Per-language indices of an aligned corpus share the
tuple-id space (``build_index(corpus, doc_ids=tuple_ids, n_space=n_tuples)``)
and mark which slots they fill in ``present``.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves.index.cache import file_key, remember_verified

MAGIC = b"TLXINDEX"
FORMAT_VERSION = 1
#: The fixed prefix: magic, version, reserved, header length, SHA-256 of the body.
PREFIX = struct.Struct("<8sIIQ32s")
#: Every array starts at a multiple of this many bytes.
ALIGN = 64
#: Arrays of an index, in file order.
ARRAY_NAMES = ("vocab_blob", "vocab_offsets", "doc_lengths", "present", "word_ptr", "post_docs",
               "pos_ptr", "positions", "docid_blob", "docid_offsets")
#: The dtype (numpy ``dtype.str``) of each array in a version-1 file.
ARRAY_DTYPES = {"vocab_blob": "|u1", "vocab_offsets": "<i8", "doc_lengths": "<i8", "present": "|u1",
                "word_ptr": "<i8", "post_docs": "<i4", "pos_ptr": "<i8", "positions": "<i4",
                "docid_blob": "|u1", "docid_offsets": "<i8"}
#: Largest count a header may hold (keeps every sum and offset inside int64).
MAX_COUNT = 2**62
#: Positions are int32, so no document can be longer than this.
MAX_DOC_LENGTH = 2**31
#: The fix every integrity error of an index file proposes.
REBUILD_FIX = "rebuild it with `tealeaves index build`"


def encode_strings(strings: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(blob, offsets)``: the UTF-8 bytes of ``strings`` concatenated, and where each starts and ends.

    Parameters
    ----------
    strings : sequence of str
        The strings (words or document ids).

    Returns
    -------
    blob : numpy.ndarray
        ``uint8`` bytes.
    offsets : numpy.ndarray
        ``int64``, ``len(strings) + 1`` entries: string ``i`` is ``blob[offsets[i]:offsets[i + 1]]``.
    """
    encoded = [s.encode("utf-8") for s in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(b) for b in encoded])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(), offsets


def decode_strings(blob: np.ndarray, offsets: np.ndarray) -> list[str]:
    """The strings ``blob[offsets[i]:offsets[i+1]]`` (UTF-8): the blob is decoded once and sliced by
    character offsets (byte offsets less the continuation bytes before them).

    Parameters
    ----------
    blob : numpy.ndarray
        ``uint8`` UTF-8 bytes.
    offsets : numpy.ndarray
        Where each string starts and ends (:func:`encode_strings`).

    Returns
    -------
    list of str
        The strings.
    """
    text = bytes(blob).decode("utf-8")
    if len(text) != len(blob):
        continuation = np.zeros(len(blob) + 1, dtype=np.int64)
        np.cumsum((np.asarray(blob) & 0xC0) == 0x80, out=continuation[1:])
        offsets = np.asarray(offsets) - continuation[offsets]
    off = offsets.tolist()
    return [text[a:b] for a, b in zip(off[:-1], off[1:])]


def layout(header: Mapping, arrays: Mapping[str, np.ndarray]) -> tuple[bytes, list[dict]]:
    """Header JSON (with array offsets and the file size filled in) and the array specs.

    Parameters
    ----------
    header : mapping
        The descriptive header fields and counts.
    arrays : mapping of str to array
        The arrays (or stand-ins with ``dtype``, ``shape`` and ``nbytes``).

    Returns
    -------
    header : bytes
        The JSON header (UTF-8).
    specs : list of dict
        Each array's ``name``, ``dtype``, ``shape`` and byte ``offset``.
    """
    specs = [{"name": n, "dtype": np.dtype(arrays[n].dtype).str, "shape": list(arrays[n].shape)}
             for n in ARRAY_NAMES]
    # offsets depend on the header length, which depends on the offsets: iterate to a fixed point
    guess = 0
    while True:
        pos = _round_up(PREFIX.size + guess)
        for spec, n in zip(specs, ARRAY_NAMES):
            spec["offset"] = pos
            pos = _round_up(pos + arrays[n].nbytes)
        full = {**{k: v for k, v in header.items() if k not in ("arrays", "file_size")},
                "arrays": specs, "file_size": pos}
        text = json.dumps(full, sort_keys=True, ensure_ascii=False).encode("utf-8")
        if len(text) == guess:
            return text, specs
        guess = len(text)


def header_bytes(header: Mapping, arrays: Mapping[str, np.ndarray]) -> bytes:
    """The JSON header of an index of ``arrays`` (offsets and file size filled in).

    Parameters
    ----------
    header, arrays
        As in :func:`layout`.

    Returns
    -------
    bytes
        The JSON header (UTF-8).
    """
    return layout(header, arrays)[0]


def _round_up(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def write_body(header: Mapping, arrays: Mapping[str, np.ndarray], sink) -> None:
    """Stream the header and arrays (everything after the fixed prefix) into ``sink``.

    Parameters
    ----------
    header, arrays
        As in :func:`layout`.
    sink : callable
        Called with each piece of bytes, in file order.
    """
    text, specs = layout(header, arrays)
    sink(text)
    pos = PREFIX.size + len(text)
    for spec in specs:
        sink(b"\0" * (spec["offset"] - pos))
        data = np.ascontiguousarray(arrays[spec["name"]])
        sink(memoryview(data).cast("B") if data.nbytes else b"")
        pos = spec["offset"] + data.nbytes
    sink(b"\0" * (_round_up(pos) - pos))


class _Spec:
    """An array's dtype and length, standing in for the array when laying out a file to fill."""

    def __init__(self, name: str, length: int):
        self.dtype = np.dtype(ARRAY_DTYPES[name])
        self.shape = (int(length),)
        self.nbytes = self.dtype.itemsize * int(length)


class IndexWriter:
    """Write an index file whose arrays are filled piecewise (bounded memory), then checksummed.

    ``lengths`` gives every array's length; :meth:`region` maps a writable
    slice of one array; :meth:`close` hashes the body, writes the prefix and
    renames the file into place (nothing is left behind on failure:
    :meth:`abort`).

    Parameters
    ----------
    path : str or os.PathLike
        The file to write (a temporary file beside it until :meth:`close`).
    header : mapping
        The descriptive header fields and counts.
    lengths : mapping of str to int
        Every array's length.
    """

    def __init__(self, path: str | os.PathLike, header: Mapping, lengths: Mapping[str, int]):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        stand_ins = {n: _Spec(n, lengths[n]) for n in ARRAY_NAMES}
        self.header_bytes, specs = layout(header, stand_ins)
        self.specs = {spec["name"]: spec for spec in specs}
        self.header = json.loads(self.header_bytes)
        self.tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.partial")
        with open(self.tmp, "wb") as fh:
            fh.write(PREFIX.pack(MAGIC, FORMAT_VERSION, 0, len(self.header_bytes), b"\0" * 32))
            fh.write(self.header_bytes)
            fh.truncate(self.header["file_size"])

    def region(self, name: str, start: int, stop: int) -> np.ndarray:
        """A writable memory map of elements ``[start, stop)`` of array ``name`` (flushed when dropped).

        Parameters
        ----------
        name : str
            One of :data:`ARRAY_NAMES`.
        start, stop : int
            The element range.

        Returns
        -------
        numpy.ndarray
            The memory map (an empty array when ``stop <= start``).
        """
        spec = self.specs[name]
        if stop <= start:
            return np.zeros(0, dtype=spec["dtype"])
        item = np.dtype(spec["dtype"]).itemsize
        return np.memmap(self.tmp, mode="r+", dtype=spec["dtype"], offset=spec["offset"] + start * item,
                         shape=(stop - start,))

    def close(self) -> str:
        """Hash, seal and rename the file; returns its checksum (SHA-256 hex; recorded as verified).

        The body is synced to disk in a thread while it is hashed (both release the GIL), then the
        prefix with the digest is written and synced.

        Returns
        -------
        str
            The SHA-256 checksum, hex.
        """
        import threading

        digest = hashlib.sha256()
        with open(self.tmp, "r+b") as fh:
            failed: list[OSError] = []

            def sync() -> None:
                try:
                    os.fsync(fh.fileno())
                except OSError as exc:
                    failed.append(exc)

            syncing = threading.Thread(target=sync, daemon=True)
            syncing.start()
            try:
                fh.seek(PREFIX.size)
                for chunk in iter(lambda: fh.read(1 << 22), b""):
                    digest.update(chunk)
            finally:
                syncing.join()
            if failed:
                raise failed[0]
            fh.seek(0)
            fh.write(PREFIX.pack(MAGIC, FORMAT_VERSION, 0, len(self.header_bytes), digest.digest()))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(self.tmp, self.path)
        remember_verified(file_key(self.path), digest.hexdigest())
        return digest.hexdigest()

    def abort(self) -> None:
        """Remove the unfinished file."""
        self.tmp.unlink(missing_ok=True)


@shared_doc
def read_header(path: str | os.PathLike) -> dict:
    """The JSON header of an index file this process wrote (no checks: use :meth:`ReferenceIndex.load`).

    Parameters
    ----------
    %(index_file_path)s

    Returns
    -------
    dict
        Its JSON header.
    """
    with open(path, "rb") as fh:
        _, _, _, hlen, _ = PREFIX.unpack(fh.read(PREFIX.size))
        return json.loads(fh.read(hlen))

