"""The on-disk reference index: postings with positions for every word.

One pass over a reference corpus (a counting sort over token ids, compiled
with numba) produces, for every word, the sorted ids of the documents it
occurs in and its sorted positions inside each.  Coherence is then counted
from the postings of the topic words alone (:mod:`tealeaves.coherence.core`).

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
header and every array have been checked structurally (``_check_header``,
``_check_arrays``): the compiled kernels do not check bounds, so no array
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
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from itertools import chain, repeat
from pathlib import Path

import numba
import numpy as np

from tealeaves._version import __version__
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.corpus.preprocess import pattern_name
from tealeaves.errors import (
    EmptyInputError,
    IndexIntegrityError,
    InputFormatError,
    OutputError,
    TealeavesError,
)

MAGIC = b"TLXINDEX"
FORMAT_VERSION = 1
_PREFIX = struct.Struct("<8sIIQ32s")  # magic, version, reserved, header length, sha256
_ALIGN = 64
#: Arrays of an index, in file order.
ARRAY_NAMES = ("vocab_blob", "vocab_offsets", "doc_lengths", "present", "word_ptr", "post_docs",
               "pos_ptr", "positions", "docid_blob", "docid_offsets")
#: The dtype (numpy ``dtype.str``) of each array in a version-1 file.
ARRAY_DTYPES = {"vocab_blob": "|u1", "vocab_offsets": "<i8", "doc_lengths": "<i8", "present": "|u1",
                "word_ptr": "<i8", "post_docs": "<i4", "pos_ptr": "<i8", "positions": "<i4",
                "docid_blob": "|u1", "docid_offsets": "<i8"}
#: Largest count a header may hold (keeps every sum and offset inside int64).
_MAX_COUNT = 2**62
#: Positions are int32, so no document can be longer than this.
_MAX_DOC_LENGTH = 2**31
_FIX = "rebuild it with `tealeaves index build`"


@numba.njit(cache=True)
def _build_kernel(tokens, offsets, order, space_ids, n_words):
    """Counting sort of token positions by word id; documents visited in ``order``."""
    tok_ptr = np.zeros(n_words + 1, dtype=np.int64)
    df = np.zeros(n_words, dtype=np.int64)
    last = np.full(n_words, -1, dtype=np.int64)
    for r in range(len(order)):
        d = order[r]
        for i in range(offsets[d], offsets[d + 1]):
            w = tokens[i]
            if w < 0:
                continue
            tok_ptr[w + 1] += 1
            if last[w] != r:
                last[w] = r
                df[w] += 1
    for w in range(n_words):
        tok_ptr[w + 1] += tok_ptr[w]
    word_ptr = np.zeros(n_words + 1, dtype=np.int64)
    for w in range(n_words):
        word_ptr[w + 1] = word_ptr[w] + df[w]
    n_post = word_ptr[n_words]
    positions = np.empty(tok_ptr[n_words], dtype=np.int32)
    post_docs = np.empty(n_post, dtype=np.int32)
    pos_ptr = np.empty(n_post + 1, dtype=np.int64)
    tcur = tok_ptr[:-1].copy()
    pcur = word_ptr[:-1].copy()
    last[:] = -1
    for r in range(len(order)):
        d = order[r]
        start = offsets[d]
        for i in range(start, offsets[d + 1]):
            w = tokens[i]
            if w < 0:
                continue
            if last[w] != r:
                last[w] = r
                k = pcur[w]
                post_docs[k] = space_ids[d]
                pos_ptr[k] = tcur[w]
                pcur[w] += 1
            positions[tcur[w]] = i - start
            tcur[w] += 1
    pos_ptr[n_post] = tok_ptr[n_words]
    return word_ptr, post_docs, pos_ptr, positions


def _blob(strings: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    encoded = [s.encode("utf-8") for s in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(b) for b in encoded])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(), offsets


def _unblob(blob: np.ndarray, offsets: np.ndarray) -> list[str]:
    """The strings ``blob[offsets[i]:offsets[i+1]]`` (UTF-8): the blob is decoded once and sliced by
    character offsets (byte offsets less the continuation bytes before them)."""
    text = bytes(blob).decode("utf-8")
    if len(text) != len(blob):
        continuation = np.zeros(len(blob) + 1, dtype=np.int64)
        np.cumsum((np.asarray(blob) & 0xC0) == 0x80, out=continuation[1:])
        offsets = np.asarray(offsets) - continuation[offsets]
    off = offsets.tolist()
    return [text[a:b] for a, b in zip(off[:-1], off[1:])]


class ReferenceIndex:
    """Postings (documents and positions) of every word of a reference corpus.

    Build one with :func:`build_index` (in memory) and write it with
    :meth:`save`; read it back with :meth:`load`.  Attributes: ``name``,
    ``n_documents`` (slots of the document-id space), ``n_present`` (documents
    actually held), ``n_tokens``, ``tokenization`` (how the corpus was
    tokenised), ``source``, ``checksum`` (SHA-256 hex of the serialised body)
    and ``path`` (``None`` in memory).
    """

    def __init__(self, arrays: Mapping[str, np.ndarray], header: Mapping, checksum: str | None = None,
                 path: Path | None = None):
        self.arrays = dict(arrays)
        self.header = dict(header)
        self.path = path
        self._checksum = checksum
        self._window_totals: dict[int, int] = {}

    # -- basic facts --------------------------------------------------------
    @property
    def name(self) -> str:
        return str(self.header.get("name", "reference"))

    @property
    def n_documents(self) -> int:
        return int(self.header["n_documents"])

    @property
    def n_present(self) -> int:
        return int(self.header["n_present"])

    @property
    def n_tokens(self) -> int:
        return int(self.header["n_tokens"])

    @property
    def n_words(self) -> int:
        return int(self.header["n_words"])

    @property
    def tokenization(self) -> dict:
        return dict(self.header.get("tokenization") or {})

    @property
    def source(self) -> str:
        return str(self.header.get("source", ""))

    @property
    def checksum(self) -> str:
        """SHA-256 (hex) of the serialised index body; identical in memory and on disk."""
        if self._checksum is None:
            digest = hashlib.sha256()
            _write_body(self.header, self.arrays, digest.update)
            self._checksum = digest.hexdigest()
        return self._checksum

    @property
    def short_checksum(self) -> str:
        """First 12 hex digits of :attr:`checksum`, as used in signatures."""
        return self.checksum[:12]

    @property
    def present(self) -> np.ndarray:
        """Boolean mask over the document-id space: which slots hold a document."""
        return self.arrays["present"].astype(bool)

    @property
    def doc_lengths(self) -> np.ndarray:
        return self.arrays["doc_lengths"]

    @cached_property
    def vocabulary(self) -> Vocabulary:
        """The index's words (decoded lazily on first use)."""
        return Vocabulary(_unblob(self.arrays["vocab_blob"], self.arrays["vocab_offsets"]))

    @cached_property
    def document_ids(self) -> list[str]:
        """Names of the held documents, in order of their slot in the id space."""
        return _unblob(self.arrays["docid_blob"], self.arrays["docid_offsets"])

    # -- lookups ------------------------------------------------------------
    def word_id(self, word: str) -> int | None:
        """Id of ``word``, or ``None`` if the reference never saw it."""
        return self.vocabulary.index.get(word)

    def document_frequency(self, word_id: int) -> int:
        ptr = self.arrays["word_ptr"]
        return int(ptr[word_id + 1] - ptr[word_id])

    def document_frequencies(self) -> np.ndarray:
        """Document frequency of every word id."""
        return np.diff(self.arrays["word_ptr"])

    def postings(self, word_id: int) -> np.ndarray:
        """Sorted document ids (slots) holding ``word_id`` (a view, no copy)."""
        ptr = self.arrays["word_ptr"]
        return self.arrays["post_docs"][ptr[word_id]:ptr[word_id + 1]]

    def positions(self, word_id: int, k: int) -> np.ndarray:
        """Sorted positions of ``word_id`` in its ``k``-th posting document."""
        g = int(self.arrays["word_ptr"][word_id]) + k
        pp = self.arrays["pos_ptr"]
        return self.arrays["positions"][pp[g]:pp[g + 1]]

    def window_total(self, window: int) -> int:
        """Number of sliding windows of size ``window`` over the held documents (cached)."""
        if window not in self._window_totals:
            from tealeaves.coherence.core import n_windows

            self._window_totals[window] = n_windows(self.doc_lengths, window, self.present)
        return self._window_totals[window]

    @property
    def max_document_length(self) -> int:
        return int(self.doc_lengths.max()) if len(self.doc_lengths) else 0

    def info(self) -> dict:
        """A JSON-ready summary of the index (``tealeaves index info``)."""
        return {
            "name": self.name,
            "path": str(self.path) if self.path else None,
            "format_version": self.header.get("format_version", FORMAT_VERSION),
            "checksum": self.checksum,
            "n_documents": self.n_present,
            "id_space": self.n_documents,
            "n_tokens": self.n_tokens,
            "n_words": self.n_words,
            "n_postings": int(len(self.arrays["post_docs"])),
            "max_document_length": self.max_document_length,
            "tokenization": self.tokenization,
            **({"segmentation": dict(self.header["segmentation"])} if "segmentation" in self.header else {}),
            "source": self.source,
            "created_by": self.header.get("created_by"),
            **({"shards": len(self.manifest)} if self.manifest else {}),
        }

    @property
    def manifest(self) -> list[dict]:
        """The shard manifest (``name``, ``size``, ``sha256`` of every input) of a sharded build, or []."""
        return [dict(e) for e in self.header.get("shards", [])]

    def verify_inputs(self, inputs: Sequence[str | os.PathLike]) -> None:
        """Check ``inputs`` against the shard manifest (:func:`check_manifest`)."""
        check_manifest(self.manifest, inputs, self.path)

    def __repr__(self) -> str:
        return (f"ReferenceIndex({self.name!r}, {self.n_present} documents, {self.n_tokens} tokens, "
                f"{self.n_words} words, sha256={self.short_checksum})")

    # -- persistence --------------------------------------------------------
    def save(self, path: str | os.PathLike, checksum: bool = True) -> Path:
        """Write the index to ``path`` (format above) atomically; returns the path.

        The file is written beside ``path`` and renamed into place when complete:
        a failed or interrupted write leaves neither a partial index nor a
        temporary file.  ``checksum=False`` leaves the SHA-256 field zero (for
        the partial indexes of a build, which only :func:`open_unchecked` reads
        back; :meth:`load` refuses such a file unless ``verify=False``).
        """
        from tealeaves._io import atomic_write

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256() if checksum else None
        header_bytes = _header_bytes(self.header, self.arrays)
        with atomic_write(path, mode="wb", encoding=None, what="index file") as fh:
            fh.write(_PREFIX.pack(MAGIC, FORMAT_VERSION, 0, len(header_bytes), b"\0" * 32))

            def sink(chunk: bytes) -> None:
                digest.update(chunk)
                fh.write(chunk)

            _write_body(self.header, self.arrays, sink if checksum else fh.write)
            if checksum:
                fh.seek(0)
                fh.write(_PREFIX.pack(MAGIC, FORMAT_VERSION, 0, len(header_bytes), digest.digest()))
        if checksum:
            self._checksum = digest.hexdigest()
        self.path = path
        return path

    @classmethod
    def load(cls, path: str | os.PathLike, verify: bool | str = True,
             inputs: Sequence[str | os.PathLike] | None = None) -> ReferenceIndex:
        """Open an index file, check it and memory-map its arrays.

        The SHA-256 of the body is verified on the first use of the file
        (``verify=True``): the verified state is then cached under the file's
        (path, size, mtime_ns, inode) (:func:`verified_cache_file`), so later
        loads of the unchanged file skip that full read.  ``verify="always"``
        re-hashes regardless (``tealeaves index info --verify``);
        ``verify=False`` skips only the hash.  The header and every array are then
        checked structurally (:func:`validate_index`) before any compiled
        kernel can read them.  Raises :class:`~tealeaves.errors.IndexIntegrityError`
        naming the file and the inconsistency if it is truncated, corrupted,
        inconsistent or of an unknown format version.  With ``inputs``, the
        index also refuses to load unless they are exactly the shards of its
        manifest, unchanged (:func:`check_manifest`).
        """
        from tealeaves._io import existing_file

        path = existing_file(path, "index file")
        if not path.is_file():
            raise TealeavesError(f"index file '{path}' is not a regular file", fix="give the path of a "
                                 "file written by `tealeaves index build`")
        size = path.stat().st_size
        with open(path, "rb") as fh:
            prefix = fh.read(_PREFIX.size)
            if not MAGIC.startswith(prefix[:len(MAGIC)]):
                raise IndexIntegrityError(f"{path} is not a tealeaves reference index (bad magic bytes)",
                                          fix="give a file written by `tealeaves index build`")
            if len(prefix) < _PREFIX.size:
                raise _integrity(path, f"is truncated ({size} bytes, shorter than the {_PREFIX.size}-byte "
                                       "prefix of an index)")
            _, version, reserved, hlen, stored = _PREFIX.unpack(prefix)
            if version != FORMAT_VERSION:
                raise IndexIntegrityError(
                    f"{path} has index format version {version}; this tealeaves reads version "
                    f"{FORMAT_VERSION}", fix=_FIX)
            if reserved != 0:
                raise _integrity(path, f"has {reserved} in its reserved prefix field (expected 0)")
            if hlen > size - _PREFIX.size:
                raise _integrity(path, f"declares a {hlen}-byte header but holds only {size} bytes: "
                                       "the file is truncated or corrupted")
            key = _file_key(path)
            if verify == "always" or (verify and not _is_verified(key, stored.hex())):
                digest = hashlib.sha256()
                for chunk in iter(lambda: fh.read(1 << 22), b""):
                    digest.update(chunk)
                if digest.digest() != stored:
                    raise IndexIntegrityError(
                        f"checksum mismatch in {path}: the file is corrupted or truncated", fix=_FIX)
                _remember_verified(key, stored.hex())
            fh.seek(_PREFIX.size)
            raw = fh.read(hlen)
        try:
            header = json.loads(raw.decode("utf-8"), parse_constant=_not_finite, parse_float=_finite_float)
        except (ValueError, RecursionError) as exc:  # bad UTF-8, bad JSON, absurd numbers or nesting
            raise _integrity(path, f"has an unreadable header ({type(exc).__name__}: {exc})") from None
        _check_header(path, header, size, hlen)
        arrays = {}
        for spec in header["arrays"]:
            n = spec["shape"][0]
            if n == 0:
                arrays[spec["name"]] = np.zeros(0, dtype=spec["dtype"])
            else:
                arrays[spec["name"]] = np.asarray(np.memmap(path, mode="r", dtype=spec["dtype"],
                                                            offset=spec["offset"], shape=(n,)))
        index = cls(arrays, header, stored.hex(), path)
        index.vocabulary = _check_arrays(path, header, arrays)
        if inputs is not None:
            index.verify_inputs(inputs)
        return index


def _integrity(path: Path, problem: str) -> IndexIntegrityError:
    """The error for an index file that fails a check: the file, the inconsistency and the fix."""
    return IndexIntegrityError(f"index file {path} {problem}", fix=_FIX)


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _MAX_COUNT


def _not_finite(name: str) -> float:
    """``parse_constant`` of the header: NaN and Infinity are not JSON (no output could carry them)."""
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    """``parse_float`` of the header: a number too large for a float (``1e999``) is refused too."""
    value = float(text)
    if not np.isfinite(value):
        raise ValueError(f"{text} is out of range")
    return value


def _check_segmentation(path: Path, seg: dict) -> None:
    """The letter counts a build records (:func:`tealeaves.corpus.preprocess.segmentation`):
    ``letters >= long_token_letters >= 0`` and ``long_token >= 1``."""
    keys = ("letters", "long_token_letters", "long_token")
    if not (all(k in seg and _is_count(seg[k]) for k in keys) and seg["long_token_letters"] <= seg["letters"]
            and seg["long_token"] >= 1):
        raise _integrity(path, f"has segmentation={seg!r} in its header (expected whole numbers letters >= "
                               "long_token_letters >= 0 and long_token >= 1)")


def _check_header(path: Path, header, size: int, hlen: int) -> None:
    """Check the JSON header of a version-1 index against the format (``docs/coherence.md``).

    Required counts are non-negative integers; the optional descriptive fields
    have their documented types; ``arrays`` lists exactly :data:`ARRAY_NAMES`
    in order with the dtypes of :data:`ARRAY_DTYPES`, one-dimensional shapes
    consistent with the counts, and 64-aligned offsets laid out in order after
    the header, without overlap and inside the file.
    """
    if not isinstance(header, dict):
        raise _integrity(path, f"has a header that is a JSON {type(header).__name__}, not an object")
    if header.get("format", "tealeaves-reference-index") != "tealeaves-reference-index":
        raise _integrity(path, f"has header format {header.get('format')!r}, not 'tealeaves-reference-index'")
    if header.get("format_version", FORMAT_VERSION) != FORMAT_VERSION:
        raise _integrity(path, f"has format_version {header.get('format_version')!r} in its header but "
                               f"{FORMAT_VERSION} in its prefix")
    for key in ("n_documents", "n_present", "n_tokens", "n_words", "file_size"):
        if key not in header:
            raise _integrity(path, f"has no {key!r} in its header")
        if not _is_count(header[key]):
            raise _integrity(path, f"has {key}={header[key]!r} in its header (expected an integer "
                                   f"from 0 to 2**62)")
    for key, kinds, what in (("name", (str,), "a string"), ("source", (str,), "a string"),
                             ("tokenization", (dict,), "an object"), ("segmentation", (dict,), "an object"),
                             ("created_by", (str, type(None)), "a string")):
        if key in header and not isinstance(header[key], kinds):
            raise _integrity(path, f"has {key}={header[key]!r} in its header (expected {what})")
    if "segmentation" in header:
        _check_segmentation(path, header["segmentation"])
    _check_manifest(path, header.get("shards", []))
    if header["file_size"] != size:
        raise _integrity(path, f"is {size} bytes but its header says {header['file_size']}: the file is "
                               "truncated or corrupted")
    if not 1 <= header["n_present"] <= header["n_documents"]:
        raise _integrity(path, f"holds n_present={header['n_present']} documents in an id space of "
                               f"n_documents={header['n_documents']} (expected 1 <= n_present "
                               "<= n_documents)")
    specs = header.get("arrays")
    if not isinstance(specs, list) or len(specs) != len(ARRAY_NAMES):
        raise _integrity(path, f"lists {len(specs) if isinstance(specs, list) else 'no'} arrays in its "
                               f"header (expected the {len(ARRAY_NAMES)} arrays {', '.join(ARRAY_NAMES)})")
    end = _PREFIX.size + hlen
    for spec, name in zip(specs, ARRAY_NAMES):
        end = _check_spec(path, spec, name, end, size)
    lengths = {spec["name"]: spec["shape"][0] for spec in specs}
    expected = {"vocab_offsets": header["n_words"] + 1, "word_ptr": header["n_words"] + 1,
                "doc_lengths": header["n_documents"], "present": header["n_documents"],
                "pos_ptr": lengths["post_docs"] + 1, "docid_offsets": header["n_present"] + 1}
    for name, n in expected.items():
        if lengths[name] != n:
            raise _integrity(path, f"has {lengths[name]} entries in array {name!r} where its counts "
                                   f"imply {n}")


def _check_manifest(path: Path, shards) -> None:
    """The optional ``shards`` header entry: a list of {name, size, sha256} objects (see docs/scale.md)."""
    if not isinstance(shards, list):
        raise _integrity(path, f"has shards={shards!r} in its header (expected a list)")
    for entry in shards:
        ok = (isinstance(entry, dict) and isinstance(entry.get("name"), str) and _is_count(entry.get("size"))
              and isinstance(entry.get("sha256"), str) and len(entry["sha256"]) == 64)
        if not ok:
            raise _integrity(path, f"has a shard manifest entry {entry!r} (expected name, size and a "
                                   "64-digit sha256)")


def _check_spec(path: Path, spec, name: str, start: int, size: int) -> int:
    """Check one array entry of the header; returns the byte where the array ends."""
    if not isinstance(spec, dict) or spec.get("name") != name:
        found = spec.get("name") if isinstance(spec, dict) else spec
        raise _integrity(path, f"lists array {found!r} where the format has {name!r}")
    if spec.get("dtype") != ARRAY_DTYPES[name]:
        raise _integrity(path, f"gives array {name!r} dtype {spec.get('dtype')!r} (expected "
                               f"{ARRAY_DTYPES[name]!r})")
    shape, offset = spec.get("shape"), spec.get("offset")
    if not (isinstance(shape, list) and len(shape) == 1 and _is_count(shape[0])):
        raise _integrity(path, f"gives array {name!r} shape {shape!r} (expected [length])")
    if not _is_count(offset) or offset % _ALIGN or offset < start:
        raise _integrity(path, f"places array {name!r} at offset {offset!r} (expected a multiple of "
                               f"{_ALIGN} at or after byte {start}, where the previous part ends)")
    end = offset + shape[0] * np.dtype(ARRAY_DTYPES[name]).itemsize
    if end > size:
        raise _integrity(path, f"places array {name!r} at bytes {offset}-{end}, beyond the end of the "
                               f"{size}-byte file")
    return end


def _check_pointer(path: Path, ptr: np.ndarray, name: str, total: int, target: str,
                   min_step: int = 0) -> None:
    """``ptr`` must start at 0, end at ``total`` (the length of ``target``) and rise by >= ``min_step``."""
    if ptr[0] != 0 or ptr[-1] != total:
        raise _integrity(path, f"has {name} running from {ptr[0]} to {ptr[-1]} (expected 0 to {total}, the "
                               f"length of {target})")
    k = _first_step_below(ptr, min_step)
    if k >= 0:
        what = "decreasing" if ptr[k + 1] < ptr[k] else "not increasing (an empty run)"
        raise _integrity(path, f"has {name} {what} at entry {k} ({ptr[k]} -> {ptr[k + 1]})")


def _check_sorted_runs(path: Path, values: np.ndarray, ptr: np.ndarray, what: str) -> None:
    """Each run ``values[ptr[i]:ptr[i+1]]`` (``ptr`` a checked pointer) must be strictly increasing."""
    k = _first_unsorted(values, ptr)
    if k >= 0:
        raise _integrity(path, f"has {what} that are not strictly increasing (entry {k}: "
                               f"{values[k - 1]} then {values[k]})")


def _check_strings(path: Path, blob: np.ndarray, offsets: np.ndarray, what: str) -> None:
    """The blob is UTF-8 and every offset falls on the start of a character (so each string is UTF-8).

    The blob is decoded a block at a time, each block ending before a byte that starts a character:
    UTF-8 is self-synchronising, so the blocks are all valid exactly when the whole blob is, and the
    first failing block (decoded with 3 more bytes, so a sequence cut at its end is judged on the
    bytes that follow it) gives the error of decoding the whole blob.
    """
    _check_pointer(path, offsets, f"{what} offsets", len(blob), f"the {what} bytes")
    a, n = 0, len(blob)
    while a < n:
        b = _character_start(blob, min(a + _CHECK_BLOCK, n))
        try:
            blob[a:b].tobytes().decode("utf-8")
        except UnicodeDecodeError:
            try:
                blob[a:min(b + 3, n)].tobytes().decode("utf-8")
            except UnicodeDecodeError as exc:
                raise _integrity(path, f"has {what} that are not valid UTF-8 ({exc.reason} at byte "
                                       f"{a + exc.start})") from None
        a = b
    if _splits_character(blob, offsets):
        raise _integrity(path, f"has {what} that are not valid UTF-8 (an offset splits a character)")


def _check_arrays(path: Path, header: Mapping, arrays: Mapping[str, np.ndarray]
                  ) -> Vocabulary:
    """Check every array of a loaded index (each compiled check runs only on arrays whose bounds the
    checks before it established: numba does not check indexing).

    Returns the decoded vocabulary.  The invariants are those
    :func:`build_index` guarantees: words are distinct UTF-8 strings; document
    lengths are non-negative, zero on absent slots and sum to ``n_tokens``;
    ``present`` is 0/1 with ``n_present`` ones; ``word_ptr`` and ``pos_ptr``
    are pointers over ``post_docs`` and ``positions``; each word's documents
    are strictly increasing present slots; each posting has at least one
    position, strictly increasing and inside its document; and no two words
    claim the same (document, position).
    """
    _check_strings(path, arrays["vocab_blob"], arrays["vocab_offsets"], "words")
    try:
        vocabulary = Vocabulary(_unblob(arrays["vocab_blob"], arrays["vocab_offsets"]))
    except ValueError as exc:
        raise _integrity(path, f"has a repeated word ({exc})") from None
    _check_strings(path, arrays["docid_blob"], arrays["docid_offsets"], "document ids")
    lengths, present = arrays["doc_lengths"], arrays["present"]
    if lengths.min() < 0 or lengths.max() > _MAX_DOC_LENGTH:
        raise _integrity(path, f"has document lengths from {lengths.min()} to {lengths.max()} (expected "
                               f"0 to {_MAX_DOC_LENGTH})")
    if present.max() > 1:
        raise _integrity(path, f"has the value {present.max()} in 'present' (expected 0 or 1)")
    absent = present == 0
    n_present = len(present) - int(absent.sum())
    if n_present != header["n_present"]:
        raise _integrity(path, f"marks {n_present} slots present but its header says "
                               f"n_present={header['n_present']}")
    if lengths[absent].any():
        raise _integrity(path, "gives a non-zero length to an absent document slot")
    if lengths.sum(dtype=np.float64) > _MAX_COUNT:  # guards the exact int64 sum below against overflow
        raise _integrity(path, f"has document lengths summing to more than 2**62 (n_tokens="
                               f"{header['n_tokens']})")
    total = int(lengths.sum())
    if total != header["n_tokens"]:
        raise _integrity(path, f"has document lengths summing to {total} but its header says "
                               f"n_tokens={header['n_tokens']}")
    word_ptr, post_docs, pos_ptr, positions = (arrays[k] for k in ("word_ptr", "post_docs", "pos_ptr",
                                                                   "positions"))
    _check_pointer(path, word_ptr, "word_ptr", len(post_docs), "post_docs")
    if len(post_docs) and (post_docs.min() < 0 or post_docs.max() >= len(present)):
        raise _integrity(path, f"has postings naming document slots {post_docs.min()} to {post_docs.max()} "
                               f"(expected 0 to {len(present) - 1})")
    if _any_absent(present, post_docs):
        raise _integrity(path, "has postings naming an absent document slot")
    _check_sorted_runs(path, post_docs, word_ptr, "documents of a word")
    _check_pointer(path, pos_ptr, "pos_ptr", len(positions), "positions", min_step=1)
    _check_positions(path, lengths, post_docs, pos_ptr, positions, total)
    return vocabulary


def _check_positions(path: Path, lengths: np.ndarray, post_docs: np.ndarray, pos_ptr: np.ndarray,
                     positions: np.ndarray, n_tokens: int) -> None:
    """Positions increase within a posting, lie inside their document, and no token has two words.

    One compiled pass (:func:`_position_faults`) over the memory-mapped arrays; its only temporary is a
    bitmap of one bit per token of the corpus (a sparse, restricted index sorts its tokens instead).
    """
    if not len(positions):
        return
    start = np.cumsum(lengths)
    start -= lengths
    dense = n_tokens <= 64 * len(positions) + _BITMAP_SLACK
    unsorted, outside, clash = _position_faults(lengths, start, post_docs, pos_ptr, positions, n_tokens,
                                                dense)
    if unsorted >= 0:
        raise _integrity(path, f"has positions within a posting that are not strictly increasing (entry "
                               f"{unsorted}: {positions[unsorted - 1]} then {positions[unsorted]})")
    if outside:
        raise _integrity(path, "has a token position outside its document (negative or not below the "
                               "document's length)")
    if not dense:  # a sparse (restricted) index: sort its few tokens rather than flag every token
        ordered = np.sort(_token_numbers(start, post_docs, pos_ptr, positions))
        clash = bool((ordered[1:] == ordered[:-1]).any())
    if clash:
        raise _integrity(path, "has two words at the same position of one document")


#: Bytes of a string blob decoded at a time on load.
_CHECK_BLOCK = 1 << 24
#: The load's token bitmap is used unless it would exceed 8 bytes per position plus this many bits.
_BITMAP_SLACK = 1 << 27


@numba.njit(cache=True)
def _first_step_below(ptr, min_step):
    """The first ``k`` with ``ptr[k + 1] - ptr[k] < min_step``, or -1."""
    for k in range(len(ptr) - 1):
        if ptr[k + 1] - ptr[k] < min_step:
            return k
    return -1


@numba.njit(cache=True)
def _first_unsorted(values, ptr):
    """The first entry ``k`` (in array order) with ``values[k] <= values[k - 1]`` inside one run
    ``ptr[j]:ptr[j + 1]``, or -1."""
    for j in range(len(ptr) - 1):
        for k in range(ptr[j] + 1, ptr[j + 1]):
            if values[k] <= values[k - 1]:
                return k
    return -1


@numba.njit(cache=True)
def _any_absent(present, post_docs):
    """Whether a posting names a slot whose ``present`` flag is 0 (slots already checked in range)."""
    for d in post_docs:
        if present[d] == 0:
            return True
    return False


@numba.njit(cache=True)
def _character_start(blob, b):
    """The first byte at or after ``b`` that is not a UTF-8 continuation byte (or ``len(blob)``)."""
    while b < len(blob) and (blob[b] & 0xC0) == 0x80:
        b += 1
    return b


@numba.njit(cache=True)
def _splits_character(blob, offsets):
    """Whether an offset inside the blob points at a UTF-8 continuation byte."""
    for o in offsets:
        if 0 < o < len(blob) and (blob[o] & 0xC0) == 0x80:
            return True
    return False


@numba.njit(cache=True)
def _position_faults(lengths, start, post_docs, pos_ptr, positions, n_tokens, dense):
    """``(first entry not above the one before it in its posting or -1, any position outside its
    document, any token claimed twice)``; the last only when ``dense`` (a bitmap of the tokens)."""
    unsorted = -1
    outside = False
    clash = False
    seen = np.zeros((n_tokens + 7) // 8 if dense else 0, dtype=np.uint8)
    for g in range(len(post_docs)):
        d = post_docs[g]
        size = lengths[d]
        base = start[d]
        for i in range(pos_ptr[g], pos_ptr[g + 1]):
            p = positions[i]
            if i > pos_ptr[g] and p <= positions[i - 1] and unsorted < 0:
                unsorted = i
            if p < 0 or p >= size:
                outside = True
            elif dense:
                t = base + p
                bit = np.uint8(1 << (t & 7))
                if seen[t >> 3] & bit:
                    clash = True
                seen[t >> 3] |= bit
    return unsorted, outside, clash


@numba.njit(cache=True)
def _token_numbers(start, post_docs, pos_ptr, positions):
    """The index in the whole corpus of every position (document start + position)."""
    out = np.empty(len(positions), dtype=np.int64)
    for g in range(len(post_docs)):
        for i in range(pos_ptr[g], pos_ptr[g + 1]):
            out[i] = start[post_docs[g]] + positions[i]
    return out


def _layout(header: Mapping, arrays: Mapping[str, np.ndarray]) -> tuple[bytes, list[dict]]:
    """Header JSON (with array offsets and the file size filled in) and the array specs."""
    specs = [{"name": n, "dtype": np.dtype(arrays[n].dtype).str, "shape": list(arrays[n].shape)}
             for n in ARRAY_NAMES]
    # offsets depend on the header length, which depends on the offsets: iterate to a fixed point
    guess = 0
    while True:
        pos = _round_up(_PREFIX.size + guess)
        for spec, n in zip(specs, ARRAY_NAMES):
            spec["offset"] = pos
            pos = _round_up(pos + arrays[n].nbytes)
        full = {**{k: v for k, v in header.items() if k not in ("arrays", "file_size")},
                "arrays": specs, "file_size": pos}
        text = json.dumps(full, sort_keys=True, ensure_ascii=False).encode("utf-8")
        if len(text) == guess:
            return text, specs
        guess = len(text)


def _header_bytes(header: Mapping, arrays: Mapping[str, np.ndarray]) -> bytes:
    return _layout(header, arrays)[0]


def _round_up(n: int) -> int:
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


def _write_body(header: Mapping, arrays: Mapping[str, np.ndarray], sink) -> None:
    """Stream the header and arrays (everything after the fixed prefix) into ``sink``."""
    text, specs = _layout(header, arrays)
    sink(text)
    pos = _PREFIX.size + len(text)
    for spec in specs:
        sink(b"\0" * (spec["offset"] - pos))
        data = np.ascontiguousarray(arrays[spec["name"]])
        sink(memoryview(data).cast("B") if data.nbytes else b"")
        pos = spec["offset"] + data.nbytes
    sink(b"\0" * (_round_up(pos) - pos))


def build_index(corpus: Corpus, *, name: str | None = None, doc_ids: Sequence[int] | None = None,
                n_space: int | None = None, tokenization: Mapping | None = None,
                source: str = "") -> ReferenceIndex:
    """Index a :class:`~tealeaves.corpus.Corpus` in memory (one counting-sort pass).

    ``doc_ids`` places document ``d`` in slot ``doc_ids[d]`` of an id space of
    ``n_space`` slots (default: slot ``d`` of ``len(corpus)``), so indices of
    the languages of an aligned corpus share one tuple-id space.  Empty
    documents are held (they count as documents and as one window each).
    ``tokenization`` defaults to ``corpus.metadata["preprocessing"]``.  Unsegmented text is refused
    and the letter counts recorded (:func:`tealeaves.corpus.preprocess.segmentation`), as by the
    streaming build.
    """
    from tealeaves.corpus.preprocess import TEXT_FIX, letter_counts, segmentation

    words = list(corpus.vocabulary)
    counts = letter_counts(words, np.bincount(corpus.tokens, minlength=len(words)))
    checked = segmentation([counts], f"the text of '{source}'" if source else "the reference text", TEXT_FIX)
    tok = dict(tokenization) if tokenization is not None else dict(corpus.metadata.get("preprocessing") or {})
    index = _index_arrays(corpus.tokens, corpus.offsets, words, corpus.ids,
                          name=name or corpus.metadata.get("name") or "reference", doc_ids=doc_ids,
                          n_space=n_space, tokenization=tok, source=source)
    index.header["segmentation"] = checked
    index.vocabulary = corpus.vocabulary  # already decoded: skip the lazy decode
    return index


def _index_arrays(tokens: np.ndarray, offsets: np.ndarray, words: list[str], ids: Sequence[str], *,
                  name: str, doc_ids=None, n_space: int | None = None, tokenization: Mapping | None = None,
                  source: str = "") -> ReferenceIndex:
    """Index flat token ids (``-1`` = a token outside ``words``, kept only for positions and lengths)."""
    n_docs = len(offsets) - 1
    if n_docs == 0:
        raise EmptyInputError("the reference corpus has no documents; check the input path and reader")
    if doc_ids is None:
        space = np.arange(n_docs, dtype=np.int64)
        n_space = n_docs if n_space is None else int(n_space)
    else:
        space = np.asarray(doc_ids, dtype=np.int64)
        if space.shape != (n_docs,):
            raise TealeavesError(f"doc_ids has {space.size} entries for {n_docs} documents; give one each")
        n_space = int(space.max()) + 1 if n_space is None else int(n_space)
        if space.min() < 0 or space.max() >= n_space or len(np.unique(space)) != n_docs:
            raise TealeavesError("doc_ids must be distinct slots in [0, n_space); check the tuple ids")
    order = np.argsort(space, kind="stable")
    word_ptr, post_docs, pos_ptr, positions = _build_kernel(tokens, offsets, order.astype(np.int64), space,
                                                            len(words))
    lengths = np.zeros(n_space, dtype=np.int64)
    lengths[space] = np.diff(offsets)
    present = np.zeros(n_space, dtype=np.uint8)
    present[space] = 1
    vocab_blob, vocab_offsets = _blob(words)
    docid_blob, docid_offsets = _blob([ids[int(d)] for d in order])
    arrays = {"vocab_blob": vocab_blob, "vocab_offsets": vocab_offsets, "doc_lengths": lengths,
              "present": present, "word_ptr": word_ptr, "post_docs": post_docs, "pos_ptr": pos_ptr,
              "positions": positions, "docid_blob": docid_blob, "docid_offsets": docid_offsets}
    header = {"format": "tealeaves-reference-index", "format_version": FORMAT_VERSION, "name": name,
              "n_documents": n_space, "n_present": n_docs, "n_tokens": int(offsets[-1]),
              "n_words": len(words), "tokenization": dict(tokenization or {}), "source": source,
              "created_by": f"tealeaves-{__version__}"}
    return ReferenceIndex(arrays, header)


def index_from_token_lists(documents: Iterable[Sequence[str]], *, name: str = "reference",
                           ids: Sequence[str] | None = None, words: Sequence[str] | None = None
                           ) -> ReferenceIndex:
    """Index pre-tokenised documents (lists of strings) in memory.

    Words are numbered in order of first appearance, as
    :meth:`Corpus.from_token_lists` does.  With ``words``, only those words
    are indexed (a *restricted* index, e.g. the topic words for a one-shot
    score): other tokens still count for document lengths and positions, so
    every count of the listed words is the same as in a full index.
    """
    docs = documents if isinstance(documents, list) else list(documents)
    if not docs:
        raise EmptyInputError("the reference has no documents; check the input")
    offsets = np.zeros(len(docs) + 1, dtype=np.int64)
    np.cumsum([len(d) for d in docs], out=offsets[1:])
    n_tok = int(offsets[-1])
    if n_tok == 0:
        raise EmptyInputError(f"the reference's {len(docs)} documents hold no tokens")
    if words is None:
        flat = list(chain.from_iterable(docs))
        vocab = {w: i for i, w in enumerate(dict.fromkeys(flat))}
        tokens = np.fromiter(map(vocab.__getitem__, flat), dtype=np.int32, count=n_tok)
        tokenization = {"tokenizer": "pre-tokenised"}
    else:
        vocab = {w: i for i, w in enumerate(dict.fromkeys(words))}
        tokens = np.fromiter(map(vocab.get, chain.from_iterable(docs), repeat(-1, n_tok)), dtype=np.int32,
                             count=n_tok)
        tokenization = {"tokenizer": "pre-tokenised", "restricted_to_words": len(vocab)}
    doc_ids = [str(i) for i in ids] if ids is not None else [str(i) for i in range(len(docs))]
    checked = _token_list_segmentation(docs, vocab, tokens, words is None)
    index = _index_arrays(tokens, offsets, list(vocab), doc_ids, name=name, tokenization=tokenization)
    index.header["segmentation"] = checked
    return index


def _token_list_segmentation(docs: list, vocab: dict, tokens: np.ndarray, full: bool) -> dict:
    """Unsegmented token lists refused and their letter counts, as every other build path does
    (:func:`tealeaves.corpus.preprocess.segmentation`): from the token ids of a full index, or, for a
    restricted one, from counts of every token (the words outside ``words`` count too)."""
    from collections import Counter

    from tealeaves.corpus.preprocess import TEXT_FIX, letter_counts, segmentation

    if full:
        words, counts = list(vocab), np.bincount(tokens, minlength=len(vocab))
    else:
        seen = Counter(chain.from_iterable(docs))
        words, counts = list(seen), np.fromiter(seen.values(), dtype=np.int64, count=len(seen))
    bad = [w for w in words if not isinstance(w, str)][:1]  # (not next(..., None): None is a token here)
    if bad:
        raise InputFormatError(f"the reference's token lists hold the token {bad[0]!r} "
                               f"({type(bad[0]).__name__}); tokens must be strings",
                               fix="give each document as a list of word strings")
    return segmentation([letter_counts(words, counts)], "the reference text (token lists)", TEXT_FIX)


class AlignedIndex:
    """One :class:`ReferenceIndex` per language over a shared tuple-id space.

    ``present[lang]`` marks the tuples that have a document in ``lang``.
    Crosslingual co-occurrence of word ``a`` (language ``l1``) and word ``b``
    (language ``l2``) counts the tuples holding ``a`` on the ``l1`` side and
    ``b`` on the ``l2`` side, out of the tuples having both sides
    (:meth:`count`).
    """

    def __init__(self, indices: Mapping[str, ReferenceIndex]):
        if not indices:
            raise EmptyInputError("an aligned index needs at least one language")
        sizes = {lang: ix.n_documents for lang, ix in indices.items()}
        if len(set(sizes.values())) != 1:
            raise TealeavesError(f"the languages' indices have different tuple-id spaces {sizes}; "
                                 "build them with the same n_space")
        self.indices = dict(indices)
        self.n_tuples = next(iter(sizes.values()))

    @classmethod
    def from_corpora(cls, corpora: Mapping[str, Corpus], doc_ids: Mapping[str, Sequence[int]] | None = None,
                     n_tuples: int | None = None, name: str = "aligned") -> AlignedIndex:
        """Index each language's corpus in the shared space (``doc_ids[lang][d]`` = tuple of doc ``d``).

        Without ``doc_ids`` every corpus must hold the same number of documents,
        document ``d`` belonging to tuple ``d``.
        """
        if n_tuples is None:
            n_tuples = (max(int(np.max(v)) + 1 for v in doc_ids.values()) if doc_ids
                        else max(len(c) for c in corpora.values()))
        out = {}
        for lang, corpus in corpora.items():
            ids = None if doc_ids is None else doc_ids[lang]
            out[lang] = build_index(corpus, name=f"{name}-{lang}", doc_ids=ids, n_space=n_tuples)
        return cls(out)

    def present(self, lang: str) -> np.ndarray:
        return self.indices[lang].present

    def count(self, lang_a: str, words_a: Sequence[str], lang_b: str, words_b: Sequence[str],
              pairs=None):
        """Crosslingual document counts over the tuples having both a ``lang_a`` and a ``lang_b`` side.

        Returns a :class:`~tealeaves.coherence.core.CooccurrenceCounts` whose
        ``single`` are the left words' counts, ``single_right`` the right
        words', and ``joint[m]`` the tuples holding ``words_a[pairs[m, 0]]`` and
        ``words_b[pairs[m, 1]]`` (default: every combination).  Words absent
        from a language get empty postings (count 0).
        """
        from tealeaves.coherence.core import (
            CooccurrenceCounts,
            _as_pairs,
            document_counts,
            pair_document_counts,
        )

        ia, ib = self.indices[lang_a], self.indices[lang_b]
        mask = ia.present & ib.present
        left = [_postings_or_empty(ia, w) for w in words_a]
        right = [_postings_or_empty(ib, w) for w in words_b]
        if pairs is None:
            pairs = [(i, j) for i in range(len(words_a)) for j in range(len(words_b))]
        pairs = _as_pairs(pairs)
        return CooccurrenceCounts(int(mask.sum()), document_counts(left, mask), pairs,
                                  pair_document_counts(left, right, pairs, mask), "doc",
                                  single_right=document_counts(right, mask))


def _postings_or_empty(index: ReferenceIndex, word: str) -> np.ndarray:
    wid = index.word_id(word)
    return index.postings(wid) if wid is not None else np.zeros(0, dtype=np.int32)


# -- verified-state cache ----------------------------------------------------
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
    """
    if os.environ.get("TEALEAVES_VERIFY_CACHE", "1") == "0":
        return None
    from tealeaves.data import cache_dir

    return Path(os.environ.get("TEALEAVES_CACHE_DIR") or cache_dir()) / "verified-indexes.json"


def _file_key(path: Path) -> tuple:
    st = os.stat(path)
    return (str(Path(path).resolve()), st.st_size, st.st_mtime_ns, st.st_ino)


def _read_cache(cache: Path) -> dict:
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _is_verified(key: tuple, checksum: str) -> bool:
    """Whether the file ``key`` names was already verified to hold ``checksum``."""
    if _VERIFIED.get(key) == checksum:
        return True
    cache = verified_cache_file()
    if cache is not None and _read_cache(cache).get(json.dumps(key)) == checksum:
        _VERIFIED[key] = checksum
        return True
    return False


def _remember_verified(key: tuple, checksum: str) -> None:
    """Record a verified checksum in process and (best effort) in :func:`verified_cache_file`."""
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


# -- shard manifest ----------------------------------------------------------
def file_digest(path: str | os.PathLike) -> tuple[int, str]:
    """(size in bytes, SHA-256 hex) of a file, or of a folder (its files' relative names and bytes)."""
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
    """The manifest record of one input shard: its file name, size and SHA-256."""
    size, sha = file_digest(path)
    return {"name": Path(path).name, "size": size, "sha256": sha}


def check_manifest(manifest: Sequence[Mapping], inputs: Sequence[str | os.PathLike],
                   path: Path | None = None) -> None:
    """Refuse ``inputs`` that are not exactly the shards an index was built from.

    Every manifest shard must be among ``inputs`` (matched by file name) with the
    recorded size and SHA-256, and every input must be in the manifest;
    otherwise :class:`~tealeaves.errors.IndexIntegrityError` names the shard.
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
                f"{sha[:12]}; the manifest records {entry['size']} bytes, {entry['sha256'][:12]})", fix=_FIX)
    if given:
        raise IndexIntegrityError(f"{', '.join(sorted(given))} {'is' if len(given) == 1 else 'are'} not a "
                                  f"shard of {where}", fix="give exactly the inputs the index was built from")


def tokenization_mismatch(index: ReferenceIndex, model_preprocessing: Mapping | None) -> str | None:
    """Why the index's tokenisation differs from a model's ``metadata_["preprocessing"]``, or ``None``.

    Compares the settings that decide what a token is (``token_pattern``,
    ``lowercase``, ``stop_words``, ``tokenizer``; vocabulary pruning is the
    model's own business).  ``None`` when they agree or when either side
    records no recipe (e.g. a pre-tokenised reference): nothing to compare.
    """
    ref = index.tokenization
    if not model_preprocessing or not isinstance(model_preprocessing, Mapping) or "token_pattern" not in ref:
        return None
    keys = ("token_pattern", "lowercase", "stop_words", "tokenizer")
    diff = [k for k in keys if model_preprocessing.get(k) != ref.get(k)]
    if not diff:
        return None
    def shown(value: object) -> str:  # a known pattern by name
        return pattern_name(value) or repr(value)

    parts = "; ".join(f"{k}: model {shown(model_preprocessing.get(k))}, reference {shown(ref.get(k))}"
                      for k in diff)
    return (f"the model was trained with another tokenisation than reference '{index.name}' ({parts}): its "
            "topic words may be missing from the reference or counted differently")


# -- streamed writing (sharded builds) ---------------------------------------
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
    """

    def __init__(self, path: str | os.PathLike, header: Mapping, lengths: Mapping[str, int]):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        stand_ins = {n: _Spec(n, lengths[n]) for n in ARRAY_NAMES}
        self.header_bytes, specs = _layout(header, stand_ins)
        self.specs = {spec["name"]: spec for spec in specs}
        self.header = json.loads(self.header_bytes)
        self.tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.partial")
        with open(self.tmp, "wb") as fh:
            fh.write(_PREFIX.pack(MAGIC, FORMAT_VERSION, 0, len(self.header_bytes), b"\0" * 32))
            fh.write(self.header_bytes)
            fh.truncate(self.header["file_size"])

    def region(self, name: str, start: int, stop: int) -> np.ndarray:
        """A writable memory map of elements ``[start, stop)`` of array ``name`` (flushed when dropped)."""
        spec = self.specs[name]
        if stop <= start:
            return np.zeros(0, dtype=spec["dtype"])
        item = np.dtype(spec["dtype"]).itemsize
        return np.memmap(self.tmp, mode="r+", dtype=spec["dtype"], offset=spec["offset"] + start * item,
                         shape=(stop - start,))

    def close(self) -> ReferenceIndex:
        """Hash, seal and rename the file; returns the index (memory-mapped, already verified).

        The body is synced to disk in a thread while it is hashed (both release the GIL), then the
        prefix with the digest is written and synced."""
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
                fh.seek(_PREFIX.size)
                for chunk in iter(lambda: fh.read(1 << 22), b""):
                    digest.update(chunk)
            finally:
                syncing.join()
            if failed:
                raise failed[0]
            fh.seek(0)
            fh.write(_PREFIX.pack(MAGIC, FORMAT_VERSION, 0, len(self.header_bytes), digest.digest()))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(self.tmp, self.path)
        _remember_verified(_file_key(self.path), digest.hexdigest())
        return open_unchecked(self.path, self.header, digest.hexdigest())

    def abort(self) -> None:
        """Remove the unfinished file."""
        self.tmp.unlink(missing_ok=True)


def read_header(path: str | os.PathLike) -> dict:
    """The JSON header of an index file this process wrote (no checks: use :meth:`ReferenceIndex.load`)."""
    with open(path, "rb") as fh:
        _, _, _, hlen, _ = _PREFIX.unpack(fh.read(_PREFIX.size))
        return json.loads(fh.read(hlen))


def open_unchecked(path: str | os.PathLike, header: Mapping | None = None,
                   checksum: str | None = None) -> ReferenceIndex:
    """Memory-map an index file this process has just written, skipping every check.

    Only for files tealeaves itself wrote in this run (partial indexes, a
    merged index): anything read from outside goes through :meth:`ReferenceIndex.load`.
    """
    header = dict(header) if header is not None else read_header(path)
    arrays = {spec["name"]: (np.zeros(0, dtype=spec["dtype"]) if spec["shape"][0] == 0 else
                             np.memmap(path, mode="r", dtype=spec["dtype"], offset=spec["offset"],
                                       shape=tuple(spec["shape"])))
              for spec in header["arrays"]}
    return ReferenceIndex(arrays, header, checksum, Path(path))
