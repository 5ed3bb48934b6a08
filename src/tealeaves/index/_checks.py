"""Integrity checks of a reference index file, run on load before any compiled kernel reads it.

The compiled counting kernels do not check bounds, so :meth:`tealeaves.index.ReferenceIndex.load`
passes every file through these checks first, in two parts: at every open the header
(:func:`check_header`) and what costs no more than the vocabulary (:func:`check_open`: the word
strings, ``word_ptr``, the ends of the other pointers); once per file state the checks over the
documents, postings and positions (:func:`check_postings`), their passing then recorded by
:mod:`tealeaves.index.cache` under :data:`POSTINGS_CHECKS`.  Each failure is an
:class:`~tealeaves.errors.IndexIntegrityError` naming the file, the inconsistency and the fix
(:func:`invalid`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import numba
import numpy as np

from tealeaves import _compiled  # noqa: F401 - the notice on a terminal while numba compiles
from tealeaves._docs import shared_doc
from tealeaves.corpus import Vocabulary
from tealeaves.errors import IndexIntegrityError
from tealeaves.index.format import (
    ALIGN,
    ARRAY_DTYPES,
    ARRAY_NAMES,
    FORMAT_VERSION,
    MAX_COUNT,
    MAX_DOC_LENGTH,
    PREFIX,
    REBUILD_FIX,
    decode_strings,
)

#: The version of :func:`check_postings` recorded as passed in the verified-state cache (a later
#: tealeaves that checks more records a higher one, so files verified before are checked again).
POSTINGS_CHECKS = 1


@shared_doc
def invalid(path: Path, problem: str) -> IndexIntegrityError:
    """The error for an index file that fails a check: the file, the inconsistency and the fix.

    Parameters
    ----------
    %(index_checked_path)s
    problem : str
        The inconsistency, completing "index file <path> ...".

    Returns
    -------
    IndexIntegrityError
        The error to raise, with the fix :data:`REBUILD_FIX`.
    """
    return IndexIntegrityError(f"index file {path} {problem}", fix=REBUILD_FIX)


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT


def _not_finite(name: str) -> float:
    """``parse_constant`` of the header: NaN and Infinity are not JSON (no output could carry them)."""
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    """``parse_float`` of the header: a number too large for a float (``1e999``) is refused too."""
    value = float(text)
    if not np.isfinite(value):
        raise ValueError(f"{text} is out of range")
    return value


def parse_header(path: Path, raw: bytes) -> object:
    """The JSON header of an index file, decoded strictly (UTF-8; no NaN, Infinity or overflowing number).

    Parameters
    ----------
    path : Path
        The file (named in the error).
    raw : bytes
        The header bytes.

    Returns
    -------
    object
        The decoded JSON (:func:`check_header` checks that it is the header of an index).
    """
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_not_finite, parse_float=_finite_float)
    except (ValueError, RecursionError) as exc:  # bad UTF-8, bad JSON, absurd numbers or nesting
        raise invalid(path, f"has an unreadable header ({type(exc).__name__}: {exc})") from None


def _check_segmentation(path: Path, seg: dict) -> None:
    """The letter counts a build records (:func:`tealeaves.corpus.preprocess.segmentation`):
    ``letters >= long_token_letters >= 0`` and ``long_token >= 1``."""
    keys = ("letters", "long_token_letters", "long_token")
    if not (all(k in seg and _is_count(seg[k]) for k in keys) and seg["long_token_letters"] <= seg["letters"]
            and seg["long_token"] >= 1):
        raise invalid(path, f"has segmentation={seg!r} in its header (expected whole numbers letters >= "
                               "long_token_letters >= 0 and long_token >= 1)")


@shared_doc
def check_header(path: Path, header, size: int, hlen: int) -> None:
    """Check the JSON header of a version-1 index against the format (``docs/coherence.md``).

    Required counts are non-negative integers; the optional descriptive fields
    have their documented types; ``arrays`` lists exactly :data:`ARRAY_NAMES`
    in order with the dtypes of :data:`ARRAY_DTYPES`, one-dimensional shapes
    consistent with the counts, and 64-aligned offsets laid out in order after
    the header, without overlap and inside the file.

    Parameters
    ----------
    %(index_checked_path)s
    header : object
        The decoded JSON header.
    size : int
        The file's size in bytes.
    hlen : int
        The header's length in bytes.

    Raises: %(raises_index_integrity)s
    """
    if not isinstance(header, dict):
        raise invalid(path, f"has a header that is a JSON {type(header).__name__}, not an object")
    if header.get("format", "tealeaves-reference-index") != "tealeaves-reference-index":
        raise invalid(path, f"has header format {header.get('format')!r}, not 'tealeaves-reference-index'")
    if header.get("format_version", FORMAT_VERSION) != FORMAT_VERSION:
        raise invalid(path, f"has format_version {header.get('format_version')!r} in its header but "
                               f"{FORMAT_VERSION} in its prefix")
    for key in ("n_documents", "n_present", "n_tokens", "n_words", "file_size"):
        if key not in header:
            raise invalid(path, f"has no {key!r} in its header")
        if not _is_count(header[key]):
            raise invalid(path, f"has {key}={header[key]!r} in its header (expected an integer "
                                   f"from 0 to 2**62)")
    for key, kinds, what in (("name", (str,), "a string"), ("source", (str,), "a string"),
                             ("tokenization", (dict,), "an object"), ("segmentation", (dict,), "an object"),
                             ("created_by", (str, type(None)), "a string")):
        if key in header and not isinstance(header[key], kinds):
            raise invalid(path, f"has {key}={header[key]!r} in its header (expected {what})")
    if "segmentation" in header:
        _check_segmentation(path, header["segmentation"])
    _check_manifest(path, header.get("shards", []))
    if header["file_size"] != size:
        raise invalid(path, f"is {size} bytes but its header says {header['file_size']}: the file is "
                               "truncated or corrupted")
    _check_present_count(path, header)
    specs = header.get("arrays")
    if not isinstance(specs, list) or len(specs) != len(ARRAY_NAMES):
        raise invalid(path, f"lists {len(specs) if isinstance(specs, list) else 'no'} arrays in its "
                               f"header (expected the {len(ARRAY_NAMES)} arrays {', '.join(ARRAY_NAMES)})")
    end = PREFIX.size + hlen
    for spec, name in zip(specs, ARRAY_NAMES):
        end = _check_spec(path, spec, name, end, size)
    _check_lengths(path, header, {spec["name"]: spec["shape"][0] for spec in specs})


def _check_lengths(path: Path, header: Mapping, lengths: Mapping[str, int]) -> None:
    """Each array's length (``lengths``) is the one the header's counts imply."""
    expected = {"vocab_offsets": header["n_words"] + 1, "word_ptr": header["n_words"] + 1,
                "doc_lengths": header["n_documents"], "present": header["n_documents"],
                "pos_ptr": lengths["post_docs"] + 1, "docid_offsets": header["n_present"] + 1}
    for name, n in expected.items():
        if lengths[name] != n:
            raise invalid(path, f"has {lengths[name]} entries in array {name!r} where its counts "
                                   f"imply {n}")


def _check_manifest(path: Path, shards) -> None:
    """The optional ``shards`` header entry: a list of {name, size, sha256} objects (see docs/scale.md)."""
    if not isinstance(shards, list):
        raise invalid(path, f"has shards={shards!r} in its header (expected a list)")
    for entry in shards:
        ok = (isinstance(entry, dict) and isinstance(entry.get("name"), str) and _is_count(entry.get("size"))
              and isinstance(entry.get("sha256"), str) and len(entry["sha256"]) == 64)
        if not ok:
            raise invalid(path, f"has a shard manifest entry {entry!r} (expected name, size and a "
                                   "64-digit sha256)")


def _check_spec(path: Path, spec, name: str, start: int, size: int) -> int:
    """Check one array entry of the header; returns the byte where the array ends."""
    if not isinstance(spec, dict) or spec.get("name") != name:
        found = spec.get("name") if isinstance(spec, dict) else spec
        raise invalid(path, f"lists array {found!r} where the format has {name!r}")
    if spec.get("dtype") != ARRAY_DTYPES[name]:
        raise invalid(path, f"gives array {name!r} dtype {spec.get('dtype')!r} (expected "
                               f"{ARRAY_DTYPES[name]!r})")
    shape, offset = spec.get("shape"), spec.get("offset")
    if not (isinstance(shape, list) and len(shape) == 1 and _is_count(shape[0])):
        raise invalid(path, f"gives array {name!r} shape {shape!r} (expected [length])")
    if not _is_count(offset) or offset % ALIGN or offset < start:
        raise invalid(path, f"places array {name!r} at offset {offset!r} (expected a multiple of "
                               f"{ALIGN} at or after byte {start}, where the previous part ends)")
    end = offset + shape[0] * np.dtype(ARRAY_DTYPES[name]).itemsize
    if end > size:
        raise invalid(path, f"places array {name!r} at bytes {offset}-{end}, beyond the end of the "
                               f"{size}-byte file")
    return end


def _check_ends(path: Path, ptr: np.ndarray, name: str, total: int, target: str) -> None:
    """``ptr`` must start at 0 and end at ``total`` (the length of ``target``)."""
    if ptr[0] != 0 or ptr[-1] != total:
        raise invalid(path, f"has {name} running from {ptr[0]} to {ptr[-1]} (expected 0 to {total}, the "
                               f"length of {target})")


def _check_pointer(path: Path, ptr: np.ndarray, name: str, total: int, target: str,
                   min_step: int = 0) -> None:
    """``ptr`` must start at 0, end at ``total`` (the length of ``target``) and rise by >= ``min_step``."""
    _check_ends(path, ptr, name, total, target)
    k = _first_step_below(ptr, min_step)
    if k >= 0:
        what = "decreasing" if ptr[k + 1] < ptr[k] else "not increasing (an empty run)"
        raise invalid(path, f"has {name} {what} at entry {k} ({ptr[k]} -> {ptr[k + 1]})")


def _check_sorted_runs(path: Path, values: np.ndarray, ptr: np.ndarray, what: str) -> None:
    """Each run ``values[ptr[i]:ptr[i+1]]`` (``ptr`` a checked pointer) must be strictly increasing."""
    k = _first_unsorted(values, ptr)
    if k >= 0:
        raise invalid(path, f"has {what} that are not strictly increasing (entry {k}: "
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
        b = _character_start(blob, min(a + CHECK_BLOCK, n))
        try:
            blob[a:b].tobytes().decode("utf-8")
        except UnicodeDecodeError:
            try:
                blob[a:min(b + 3, n)].tobytes().decode("utf-8")
            except UnicodeDecodeError as exc:
                raise invalid(path, f"has {what} that are not valid UTF-8 ({exc.reason} at byte "
                                       f"{a + exc.start})") from None
        a = b
    if _splits_character(blob, offsets):
        raise invalid(path, f"has {what} that are not valid UTF-8 (an offset splits a character)")


@shared_doc
def check_open(path: Path, header: Mapping, arrays: Mapping[str, np.ndarray]) -> None:
    """The array checks of every open, in time and memory of the order of the vocabulary.

    The words are UTF-8 strings (their offsets a pointer over the blob); ``word_ptr`` rises from 0
    to the number of postings; ``pos_ptr`` runs from 0 to the number of positions and
    ``docid_offsets`` from 0 to the length of the id blob (their ends only: the steps between
    are :func:`check_postings`').  What the kernels read is then in bounds once
    :func:`check_postings` has passed for this file (now or, recorded, at an earlier open).

    Parameters
    ----------
    %(index_checked_path)s
    %(index_checked_header)s
    %(index_arrays)s

    Raises: %(raises_index_integrity)s
    """
    _check_strings(path, arrays["vocab_blob"], arrays["vocab_offsets"], "words")
    _check_pointer(path, arrays["word_ptr"], "word_ptr", len(arrays["post_docs"]), "post_docs")
    _check_ends(path, arrays["pos_ptr"], "pos_ptr", len(arrays["positions"]), "positions")
    _check_ends(path, arrays["docid_offsets"], "document ids offsets", len(arrays["docid_blob"]),
                "the document ids bytes")


@shared_doc
def decode_vocabulary(path: Path, arrays: Mapping[str, np.ndarray]) -> Vocabulary:
    """The words of an index whose word strings passed :func:`check_open`; they must be distinct.

    Parameters
    ----------
    %(index_checked_path)s
    %(index_arrays)s

    Returns: %(returns_index_vocabulary)s

    Raises
    ------
    IndexIntegrityError
        If a word is repeated.
    """
    try:
        return Vocabulary(decode_strings(arrays["vocab_blob"], arrays["vocab_offsets"]))
    except ValueError as exc:
        raise invalid(path, f"has a repeated word ({exc})") from None


def _check_present_count(path: Path, header: Mapping) -> None:
    """Refuse a header whose present documents are not from 1 to ``n_documents`` (an index of no
    document scores nothing, and its checks of lengths would have no values to bound)."""
    if not 1 <= header["n_present"] <= header["n_documents"]:
        raise invalid(path, f"holds n_present={header['n_present']} documents in an id space of "
                            f"n_documents={header['n_documents']} (expected 1 <= n_present <= n_documents)")


@shared_doc
def check_in_memory(name: str, header: Mapping, arrays: Mapping[str, np.ndarray]) -> None:
    """The checks of a file's open and postings (:func:`check_open`, :func:`check_postings`) for an index
    made in memory from arrays and a header tealeaves did not write itself (``ReferenceIndex(arrays,
    header)``), after checking what a file's header and layout would have: every array of
    :data:`~tealeaves.index.format.ARRAY_NAMES`, one-dimensional, of its file dtype, and the header's
    counts whole numbers matching the arrays.

    Parameters
    ----------
    name : str
        The index's name, for the messages.
    %(index_checked_header)s
    %(index_arrays)s

    Raises: %(raises_index_integrity)s
    """
    where = Path(f"<in memory: {name}>")
    for key, dtype in ARRAY_DTYPES.items():
        a = arrays.get(key)
        if not isinstance(a, np.ndarray) or a.ndim != 1 or a.dtype != np.dtype(dtype):
            got = (f"{a.ndim}-dimensional {a.dtype}" if isinstance(a, np.ndarray) else type(a).__name__)
            raise invalid(where, f"has {key!r} as {got} (expected a one-dimensional {np.dtype(dtype)} array)")
    sizes = {"n_documents": len(arrays["present"]), "n_words": len(arrays["word_ptr"]) - 1}
    for key in ("n_documents", "n_present", "n_tokens", "n_words"):
        value = header.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value <= MAX_COUNT:
            raise invalid(where, f"has {key}={value!r} in its header (expected a whole number from 0)")
        if key in sizes and value != sizes[key]:
            raise invalid(where, f"has {key}={value} in its header but {sizes[key]} in its arrays")
    _check_lengths(where, header, {key: len(arrays[key]) for key in ARRAY_DTYPES})
    _check_present_count(where, header)
    check_open(where, header, arrays)
    check_postings(where, header, arrays)


@shared_doc
def check_postings(path: Path, header: Mapping, arrays: Mapping[str, np.ndarray]) -> Vocabulary:
    """The array checks over the documents, postings and positions, after :func:`check_open`.

    Each compiled check runs only on arrays whose bounds the checks before it established:
    numba does not check indexing.  The invariants are those
    :func:`tealeaves.index.build_index` guarantees: words are distinct; document ids are UTF-8
    strings; document lengths are non-negative, zero on absent slots and sum to ``n_tokens``;
    ``present`` is 0/1 with ``n_present`` ones; ``pos_ptr`` is a pointer over ``positions``;
    each word's documents are strictly increasing present slots; each posting has at least one
    position, strictly increasing and inside its document; and no two words claim the same
    (document, position).  They read the whole file, so :meth:`tealeaves.index.ReferenceIndex.load`
    runs them once per file state and records their passing (:data:`POSTINGS_CHECKS`).

    Parameters
    ----------
    %(index_checked_path)s
    %(index_checked_header)s
    %(index_arrays)s

    Returns: %(returns_index_vocabulary)s

    Raises: %(raises_index_integrity)s
    """
    vocabulary = decode_vocabulary(path, arrays)
    _check_strings(path, arrays["docid_blob"], arrays["docid_offsets"], "document ids")
    lengths, present = arrays["doc_lengths"], arrays["present"]
    if lengths.min() < 0 or lengths.max() > MAX_DOC_LENGTH:
        raise invalid(path, f"has document lengths from {lengths.min()} to {lengths.max()} (expected "
                               f"0 to {MAX_DOC_LENGTH})")
    if present.max() > 1:
        raise invalid(path, f"has the value {present.max()} in 'present' (expected 0 or 1)")
    absent = present == 0
    n_present = len(present) - int(absent.sum())
    if n_present != header["n_present"]:
        raise invalid(path, f"marks {n_present} slots present but its header says "
                               f"n_present={header['n_present']}")
    if lengths[absent].any():
        raise invalid(path, "gives a non-zero length to an absent document slot")
    if lengths.sum(dtype=np.float64) > MAX_COUNT:  # guards the exact int64 sum below against overflow
        raise invalid(path, f"has document lengths summing to more than 2**62 (n_tokens="
                               f"{header['n_tokens']})")
    total = int(lengths.sum())
    if total != header["n_tokens"]:
        raise invalid(path, f"has document lengths summing to {total} but its header says "
                               f"n_tokens={header['n_tokens']}")
    word_ptr, post_docs, pos_ptr, positions = (arrays[k] for k in ("word_ptr", "post_docs", "pos_ptr",
                                                                   "positions"))
    if len(post_docs) and (post_docs.min() < 0 or post_docs.max() >= len(present)):
        raise invalid(path, f"has postings naming document slots {post_docs.min()} to {post_docs.max()} "
                               f"(expected 0 to {len(present) - 1})")
    if _any_absent(present, post_docs):
        raise invalid(path, "has postings naming an absent document slot")
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
    dense = n_tokens <= 64 * len(positions) + BITMAP_SLACK
    unsorted, outside, clash = _position_faults(lengths, start, post_docs, pos_ptr, positions, n_tokens,
                                                dense)
    if unsorted >= 0:
        raise invalid(path, f"has positions within a posting that are not strictly increasing (entry "
                               f"{unsorted}: {positions[unsorted - 1]} then {positions[unsorted]})")
    if outside:
        raise invalid(path, "has a token position outside its document (negative or not below the "
                               "document's length)")
    if not dense:  # a sparse (restricted) index: sort its few tokens rather than flag every token
        ordered = np.sort(_token_numbers(start, post_docs, pos_ptr, positions))
        clash = bool((ordered[1:] == ordered[:-1]).any())
    if clash:
        raise invalid(path, "has two words at the same position of one document")


#: Bytes of a string blob decoded at a time on load.
CHECK_BLOCK = 1 << 24
#: The load's token bitmap is used unless it would exceed 8 bytes per position plus this many bits.
BITMAP_SLACK = 1 << 27


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

