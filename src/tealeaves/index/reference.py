"""The reference index type, :class:`ReferenceIndex`, and its loader.

An index holds, for every word of a reference corpus, the sorted ids of the documents it occurs
in and its sorted positions inside each (the file format: :mod:`tealeaves.index.format`).
:meth:`ReferenceIndex.load` reads a file and checks it (:mod:`tealeaves.index._checks`) before any
compiled kernel can read its arrays; :func:`open_unchecked` maps a file this process has just
written.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from functools import cached_property
from pathlib import Path

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves.corpus import Vocabulary
from tealeaves.corpus.preprocess import pattern_name
from tealeaves.errors import IndexIntegrityError, ParameterError, TealeavesError
from tealeaves.index import _checks
from tealeaves.index._checks import invalid
from tealeaves.index.cache import file_key, remember, verified_facts
from tealeaves.index.format import (
    FORMAT_VERSION,
    MAGIC,
    PREFIX,
    REBUILD_FIX,
    decode_strings,
    header_bytes,
    read_header,
    write_body,
)
from tealeaves.index.manifest import check_manifest
from tealeaves.index.wordtable import find_words


def _header_count(key: str, doc: str) -> property:
    """A read-only property: the integer ``key`` of the index header, described by ``doc``."""
    return property(lambda self: int(self.header[key]), doc=doc)


class ReferenceIndex:
    """Postings (documents and positions) of every word of a reference corpus.

    Build one with :func:`tealeaves.index.build_index` (in memory) or
    :func:`tealeaves.index.build_streaming` (from files, bounded memory), write it with
    :meth:`save` and read it back with :meth:`load`.

    Parameters
    ----------
    arrays : mapping of str to numpy.ndarray
        The arrays of :data:`tealeaves.index.format.ARRAY_NAMES`.
    header : mapping
        The JSON header (name, counts, tokenisation, source...).
    checksum : str, optional
        SHA-256 (hex) of the serialised body, when known.
    path : Path, optional
        The file it was read from (``None`` in memory).
    checked : bool, default False
        The arrays are known to pass the index checks (tealeaves' own builders and :meth:`load` say
        so); otherwise the first count checks them (:meth:`check_readable`).

    Attributes
    ----------
    name, n_documents, n_present, n_tokens, n_words, tokenization, source, checksum, path
        ``n_documents`` counts the slots of the document-id space, ``n_present`` the documents
        actually held; ``checksum`` is the SHA-256 hex of the serialised body.
    """

    def __init__(self, arrays: Mapping[str, np.ndarray], header: Mapping, checksum: str | None = None,
                 path: Path | None = None, checked: bool = False):
        self.arrays = dict(arrays)
        self.header = dict(header)
        self.path = path
        self._checksum = checksum
        #: Whether the arrays passed the checks over the postings (:meth:`check_readable`).
        self._checked = checked
        self._window_totals: dict[int, int] = {}
        #: How :meth:`load` opened the file (:func:`open_report`); ``None`` in memory.
        self.opened: dict | None = None
        self._key: tuple | None = None

    # -- basic facts --------------------------------------------------------
    @property
    def name(self) -> str:
        """The reference name recorded in signatures."""
        return str(self.header.get("name", "reference"))

    n_documents = _header_count("n_documents", "Slots of the document-id space (documents held or not).")
    n_present = _header_count("n_present", "Documents actually held.")
    n_tokens = _header_count("n_tokens", "Tokens of the held documents.")
    n_words = _header_count("n_words", "Words of the vocabulary.")

    @property
    def tokenization(self) -> dict:
        """How the corpus was tokenised (the recipe recorded at build time)."""
        return dict(self.header.get("tokenization") or {})

    @property
    def source(self) -> str:
        """Where the text came from."""
        return str(self.header.get("source", ""))

    @property
    def checksum(self) -> str:
        """SHA-256 (hex) of the serialised index body; identical in memory and on disk."""
        if self._checksum is None:
            digest = hashlib.sha256()
            write_body(self.header, self.arrays, digest.update)
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
        """Tokens of every slot of the id space (0 for an absent slot)."""
        return self.arrays["doc_lengths"]

    @cached_property
    def vocabulary(self) -> Vocabulary:
        """The index's words (decoded lazily on first use; a repeated word is an
        :class:`~tealeaves.errors.IndexIntegrityError`)."""
        return _checks.decode_vocabulary(self.path, self.arrays)

    @cached_property
    def document_ids(self) -> list[str]:
        """Names of the held documents, in order of their slot in the id space."""
        return decode_strings(self.arrays["docid_blob"], self.arrays["docid_offsets"])

    # -- lookups ------------------------------------------------------------
    def word_id(self, word: str) -> int | None:
        """Id of ``word``, or ``None`` if the reference never saw it.

        Parameters
        ----------
        word : str
            The word.

        Returns
        -------
        int or None
            Its id in :attr:`vocabulary`.
        """
        return self.vocabulary.index.get(word)

    def word_ids(self, words: Sequence[str]) -> np.ndarray:
        """Ids of ``words`` (``-1`` for a word the reference never saw), without decoding the
        vocabulary when it has not been decoded yet: one compiled pass over its UTF-8 bytes
        (:func:`~tealeaves.index.wordtable.find_words`). The words of an index are distinct (a check
        of its first open, recorded), so each word has at most one id. At a billion tokens (3.9 M
        words) this takes about 70 ms where :attr:`vocabulary` takes 2.4 s.

        Parameters
        ----------
        words : sequence of str
            The words (repeats allowed).

        Returns
        -------
        numpy.ndarray
            ``int64`` id of each word in :attr:`vocabulary`, or ``-1``.

        Raises
        ------
        ParameterError
            If ``words`` is one string or not iterable, or a word is not a string.
        IndexIntegrityError
            If the index was made in memory from arrays that fail the checks of a file, or its file
            changed on disk since it was opened (:meth:`check_readable`).
        KeyboardInterrupt
            On Ctrl-C while a large word table is read.
        """
        if isinstance(words, (str, bytes)):  # its characters are no words
            raise ParameterError(f"words must be a sequence of words; got one string {words[:40]!r}",
                                 fix="give a list of words, e.g. [word]")
        try:
            words = list(words)
        except TypeError:
            raise ParameterError(f"words must be a sequence of words; got {type(words).__name__}",
                                 fix="give a list of words") from None
        for k, w in enumerate(words):
            if not isinstance(w, str):
                raise ParameterError(f"words must be strings; got {type(w).__name__} {w!r}",
                                     fix="give the words as str")
            if type(w) is not str:  # a subclass (numpy.str_...): its characters, whatever it overrides
                words[k] = str.__str__(w)
        if "vocabulary" in self.__dict__:  # decoded already: its dictionary
            index = self.vocabulary.index
            return np.array([index.get(w, -1) for w in words], dtype=np.int64)
        self.check_readable()  # checked strings and distinct words; the file unchanged since its open
        return find_words(self.arrays["vocab_blob"], self.arrays["vocab_offsets"], words)

    @shared_doc
    def document_frequency(self, word_id: int) -> int:
        """Number of documents holding word ``word_id``.

        Parameters: %(index_word_id)s

        Returns
        -------
        int
            Its document frequency.
        """
        ptr = self.arrays["word_ptr"]
        return int(ptr[word_id + 1] - ptr[word_id])

    def document_frequencies(self) -> np.ndarray:
        """Document frequency of every word id.

        Returns
        -------
        numpy.ndarray
            One count per word id.
        """
        return np.diff(self.arrays["word_ptr"])

    @shared_doc
    def postings(self, word_id: int) -> np.ndarray:
        """Sorted document ids (slots) holding ``word_id`` (a view, no copy).

        Parameters: %(index_word_id)s

        Returns
        -------
        numpy.ndarray
            ``int32`` document slots, increasing.
        """
        ptr = self.arrays["word_ptr"]
        return self.arrays["post_docs"][ptr[word_id]:ptr[word_id + 1]]

    @shared_doc
    def positions(self, word_id: int, k: int) -> np.ndarray:
        """Sorted positions of ``word_id`` in its ``k``-th posting document.

        Parameters
        ----------
        %(index_word_id)s
        k : int
            Which of the word's posting documents (0 is the first of :meth:`postings`).

        Returns
        -------
        numpy.ndarray
            ``int32`` token positions, increasing.
        """
        g = int(self.arrays["word_ptr"][word_id]) + k
        pp = self.arrays["pos_ptr"]
        return self.arrays["positions"][pp[g]:pp[g + 1]]

    def window_total(self, window: int) -> int:
        """Number of sliding windows of size ``window`` over the held documents (cached).

        Parameters
        ----------
        window : int
            Window size in tokens.

        Returns
        -------
        int
            :func:`n_windows` of the held documents.
        """
        if window not in self._window_totals:
            self._window_totals[window] = n_windows(self.doc_lengths, window, self.present)
        return self._window_totals[window]

    @property
    def max_document_length(self) -> int:
        """Tokens of the longest document."""
        return int(self.doc_lengths.max()) if len(self.doc_lengths) else 0

    def info(self) -> dict:
        """A JSON-ready summary of the index (``tealeaves index info``).

        Returns
        -------
        dict
            Name, path, format version, checksum, document, token, word and posting counts,
            the longest document, tokenisation (and segmentation), source, creator and shard count.
        """
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
        """Check ``inputs`` against the shard manifest (:func:`check_manifest`).

        Parameters
        ----------
        inputs : sequence of path
            The files to check.
        """
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

        Parameters
        ----------
        path : str or os.PathLike
            The file to write.
        checksum : bool
            Compute and record the SHA-256 of the body.

        Returns
        -------
        Path
            ``path``.
        """
        from tealeaves._io import atomic_write

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256() if checksum else None
        head = header_bytes(self.header, self.arrays)
        with atomic_write(path, mode="wb", encoding=None, what="index file") as fh:
            fh.write(PREFIX.pack(MAGIC, FORMAT_VERSION, 0, len(head), b"\0" * 32))

            def sink(chunk: bytes) -> None:
                digest.update(chunk)
                fh.write(chunk)

            write_body(self.header, self.arrays, sink if checksum else fh.write)
            if checksum:
                fh.seek(0)
                fh.write(PREFIX.pack(MAGIC, FORMAT_VERSION, 0, len(head), digest.digest()))
        if checksum:
            self._checksum = digest.hexdigest()
        self.path = path
        return path

    @classmethod
    @shared_doc
    def load(cls, path: str | os.PathLike, verify: bool | str = True,
             inputs: Sequence[str | os.PathLike] | None = None) -> ReferenceIndex:
        """Open an index file, check it and memory-map its arrays.

        Every open checks the prefix, the header and what costs no more than the vocabulary
        (:func:`~tealeaves.index._checks.check_open`).  The SHA-256 of the body
        (``verify=True``) and the checks over the documents, postings and positions
        (:func:`~tealeaves.index._checks.check_postings`) run on the first open of the file
        and are then recorded under the file's (path, size, mtime_ns, inode, ctime_ns)
        (:func:`verified_cache_file`), so later opens of the unchanged file skip both full
        reads; any change to the file changes the key and they run again.
        ``verify="always"`` re-runs both regardless (``tealeaves index info --verify``);
        ``verify=False`` skips only the hash.  So no compiled kernel reads an array of a file
        that has not passed every check, and each count first confirms the file has not
        changed since (:meth:`check_unchanged`).  Raises
        :class:`~tealeaves.errors.IndexIntegrityError` naming the file and the inconsistency
        if it is truncated, corrupted, inconsistent or of an unknown format version.  With
        ``inputs``, the index also refuses to load unless they are exactly the shards of its
        manifest, unchanged (:func:`check_manifest`).

        Parameters
        ----------
        %(index_file_path)s
        verify : bool or "always"
            Verify the SHA-256 (once per unchanged file; ``"always"``: every time, the
            structural checks too; ``False``: never).
        inputs : sequence of path, optional
            Also require these to be exactly the shards of the index's manifest.

        Returns
        -------
        ReferenceIndex
            The index, its arrays memory-mapped; :attr:`opened` says what this open checked.
        """
        from tealeaves._io import existing_file

        path = existing_file(path, "index file")
        if not path.is_file():
            raise TealeavesError(f"index file '{path}' is not a regular file", fix="give the path of a "
                                 "file written by `tealeaves index build`")
        with open(path, "rb") as fh:
            key = file_key(path, fh.fileno())  # the file read through fh, even if path is replaced
            hlen, stored = _read_prefix(path, fh, key[1])
            facts = verified_facts(key) if verify != "always" else {}
            hashed = bool(verify) and facts.get("sha256") != stored.hex()
            if hashed:
                _check_checksum(path, fh, stored)
            fh.seek(PREFIX.size)
            header = _checks.parse_header(path, fh.read(hlen))
            _checks.check_header(path, header, key[1], hlen)
            arrays = _map_arrays(fh, header)
        _checks.check_open(path, header, arrays)
        index = cls(arrays, header, stored.hex(), path, checked=True)  # (the postings: now or cached)
        index._key = key
        checked = facts.get("checks") != _checks.POSTINGS_CHECKS
        if checked:
            index.vocabulary = _checks.check_postings(path, header, arrays)
        if hashed or checked:  # (one write of the cache file)
            remember(key, **({"sha256": stored.hex()} if hashed else {}),
                     **({"checks": _checks.POSTINGS_CHECKS} if checked else {}))
        index.opened = open_report(index, hlen, hashed, checked,
                                   verified=hashed or facts.get("sha256") == stored.hex())
        if inputs is not None:
            index.verify_inputs(inputs)
        return index

    def check_readable(self) -> None:
        """What every count calls before a compiled kernel reads the arrays: an index made from arrays
        and a header by hand is checked as a file's open and postings are, once
        (:func:`tealeaves.index._checks.check_in_memory`; numba does not check indexing, so a posting
        past the documents would otherwise be read out of bounds); a file must not have changed since
        :meth:`load` opened it (:meth:`check_unchanged`).

        Raises
        ------
        IndexIntegrityError
            If the arrays fail a check, or the file changed on disk.
        """
        if not self._checked:
            _checks.check_in_memory(self.name, self.header, self.arrays)
            self._checked = True
        self.check_unchanged()

    def check_unchanged(self) -> None:
        """Refuse to read postings of a file that changed on disk since :meth:`load` opened it.

        The arrays are memory maps: a write to the file in place would show through them,
        unchecked, and a truncation would end the process on its next read.  Each count calls
        this first (one ``stat``).  A file replaced by another (a new inode, e.g. rebuilt and
        renamed into place) or removed is harmless: the maps keep the file that was opened.

        Raises
        ------
        IndexIntegrityError
            If the file opened has another size, modification or change time than at the open.
        """
        if self._key is None:
            return
        try:
            st = os.stat(self.path)
        except OSError:  # removed: the maps keep the file opened
            return
        _, size, mtime, inode, ctime = self._key
        if st.st_ino == inode and (st.st_size, st.st_mtime_ns, st.st_ctime_ns) != (size, mtime, ctime):
            raise IndexIntegrityError(f"index file {self.path} changed on disk since it was opened "
                                      f"({size} -> {st.st_size} bytes)", fix="open it again once it is no "
                                      "longer being written; write a new index to another file and "
                                      "rename it into place")


def _read_prefix(path: Path, fh, size: int) -> tuple[int, bytes]:
    """The header length and stored SHA-256 of the prefix read from ``fh``, checked."""
    prefix = fh.read(PREFIX.size)
    if not MAGIC.startswith(prefix[:len(MAGIC)]):
        raise IndexIntegrityError(f"{path} is not a tealeaves reference index (bad magic bytes)",
                                  fix="give a file written by `tealeaves index build`")
    if len(prefix) < PREFIX.size:
        raise invalid(path, f"is truncated ({size} bytes, shorter than the {PREFIX.size}-byte "
                               "prefix of an index)")
    _, version, reserved, hlen, stored = PREFIX.unpack(prefix)
    if version != FORMAT_VERSION:
        raise IndexIntegrityError(
            f"{path} has index format version {version}; this tealeaves reads version "
            f"{FORMAT_VERSION}", fix=REBUILD_FIX)
    if reserved != 0:
        raise invalid(path, f"has {reserved} in its reserved prefix field (expected 0)")
    if hlen > size - PREFIX.size:
        raise invalid(path, f"declares a {hlen}-byte header but holds only {size} bytes: "
                               "the file is truncated or corrupted")
    return hlen, stored


def _check_checksum(path: Path, fh, stored: bytes) -> None:
    """Hash the body (everything after the prefix) read from ``fh`` against the stored SHA-256."""
    digest = hashlib.sha256()
    fh.seek(PREFIX.size)
    for chunk in iter(lambda: fh.read(1 << 22), b""):
        digest.update(chunk)
    if digest.digest() != stored:
        raise IndexIntegrityError(f"checksum mismatch in {path}: the file is corrupted or truncated",
                                  fix=REBUILD_FIX)


def _map_arrays(source, header: Mapping) -> dict[str, np.ndarray]:
    """The arrays of a checked header, memory-mapped read-only from ``source`` (a path or open file)."""
    return {spec["name"]: (np.zeros(0, dtype=spec["dtype"]) if spec["shape"][0] == 0 else
                           np.asarray(np.memmap(source, mode="r", dtype=spec["dtype"], offset=spec["offset"],
                                                shape=(spec["shape"][0],))))
            for spec in header["arrays"]}


#: The arrays every open reads (:func:`tealeaves.index._checks.check_open`; of ``pos_ptr`` and
#: ``docid_offsets`` only their ends).
OPEN_ARRAYS = ("vocab_blob", "vocab_offsets", "word_ptr")


def open_report(index: ReferenceIndex, hlen: int, hashed: bool, checked: bool, verified: bool) -> dict:
    """What an open of ``index``'s file checked and read (:attr:`ReferenceIndex.opened`).

    Parameters
    ----------
    index : ReferenceIndex
        The index just opened.
    hlen : int
        Its header's length in bytes.
    hashed, checked : bool
        Whether this open hashed the body, and ran the checks over the postings.
    verified : bool
        Whether its checksum is verified (now or on record).

    Returns
    -------
    dict
        ``verified`` (checksum and every check passed, now or at an earlier open), ``checked_now``
        (``"checksum and every check"``, ``"every check"`` or ``"header and vocabulary"``),
        ``open_bytes`` (bytes this open read, each counted once), ``verified_open_bytes`` (bytes an
        open of the verified file reads) and ``verify_bytes`` (bytes the first open or
        ``index info --verify`` reads: the whole file).
    """
    size = index.header["file_size"]
    light = PREFIX.size + hlen + sum(int(index.arrays[n].nbytes) for n in OPEN_ARRAYS) + 32
    heavy = PREFIX.size + hlen + sum(int(a.nbytes) for a in index.arrays.values())
    what = ("checksum and every check" if hashed and checked else "every check" if checked
            else "checksum, header and vocabulary" if hashed else "header and vocabulary")
    return {"verified": verified, "checked_now": what,
            "open_bytes": size if hashed else heavy if checked else light,
            "verified_open_bytes": light, "verify_bytes": size}


def open_unchecked(path: str | os.PathLike, header: Mapping | None = None,
                   checksum: str | None = None) -> ReferenceIndex:
    """Memory-map an index file this process has just written, skipping every check.

    Only for files tealeaves itself wrote in this run (partial indexes, a
    merged index): anything read from outside goes through :meth:`ReferenceIndex.load`.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    header : mapping, optional
        Its header, if already read (:func:`~tealeaves.index.format.read_header`).
    checksum : str, optional
        Its SHA-256 (hex), if known.

    Returns
    -------
    ReferenceIndex
        The index, its arrays memory-mapped.
    """
    header = dict(header) if header is not None else read_header(path)
    return ReferenceIndex(_map_arrays(path, header), header, checksum, Path(path), checked=True)


def tokenization_mismatch(index: ReferenceIndex, model_preprocessing: Mapping | None) -> str | None:
    """Why the index's tokenisation differs from a model's ``metadata_["preprocessing"]``, or ``None``.

    Compares the settings that decide what a token is (``token_pattern``,
    ``lowercase``, ``stop_words``, ``tokenizer``, ``min_length``; vocabulary pruning is the
    model's own business).  ``None`` when they agree or when either side
    records no recipe (e.g. a pre-tokenised reference): nothing to compare.

    Parameters
    ----------
    index : ReferenceIndex
        The reference.
    model_preprocessing : mapping, optional
        The model's recipe (``Preprocessor.get_params()``).

    Returns
    -------
    str or None
        A sentence naming the differing settings, or ``None``.
    """
    ref = index.tokenization
    if not model_preprocessing or not isinstance(model_preprocessing, Mapping) or "token_pattern" not in ref:
        return None
    defaults = {"min_length": 1}  # recorded only when not its default (Preprocessor.get_params)
    keys = ("token_pattern", "lowercase", "stop_words", "tokenizer", "min_length")
    diff = [k for k in keys if model_preprocessing.get(k, defaults.get(k)) != ref.get(k, defaults.get(k))]
    if not diff:
        return None
    def shown(value: object) -> str:  # a known pattern by name
        return pattern_name(value) or repr(value)

    parts = "; ".join(f"{k}: model {shown(model_preprocessing.get(k, defaults.get(k)))}, "
                      f"reference {shown(ref.get(k, defaults.get(k)))}" for k in diff)
    return (f"the model was trained with another tokenisation than reference '{index.name}' ({parts}): its "
            "topic words may be missing from the reference or counted differently")


def n_windows(doc_lengths: np.ndarray, window: int, present: np.ndarray | None = None,
              compat: str = "exact") -> int:
    """Total number of sliding windows over the (present) documents.

    ``max(1, n - w + 1)`` per document (``exact``, ``gensim``); ``n + w - 1`` for ``jhlau``.

    Parameters
    ----------
    doc_lengths : numpy.ndarray
        Tokens per document slot.
    window : int
        Window size in tokens.
    present : numpy.ndarray, optional
        Boolean mask of the slots that hold a document (default: every slot).
    compat : str
        ``"exact"``, ``"gensim"`` or ``"jhlau"`` (:mod:`tealeaves.coherence.core`).

    Returns
    -------
    int
        The number of windows.
    """
    lengths = np.asarray(doc_lengths, dtype=np.int64)
    if compat == "jhlau":
        per_doc = lengths + int(window) - 1
    else:
        per_doc = np.maximum(1, lengths - int(window) + 1)
    if present is not None:
        per_doc = per_doc[np.asarray(present, dtype=bool)]
    return int(per_doc.sum())
