"""Chunks of a streamed build: documents collected until a chunk is full, numbered with the chunk's own
word table, and indexed into one partial index (:func:`flush_chunk`); the build's settings every shard
task gets (:class:`BuildSettings`).

Pre-tokenised documents (one document of whitespace-separated tokens per line) are scanned a batch at a
time by the compiled scan of :mod:`tealeaves.corpus._scan` (:func:`scan_tokens`: runs of code points that
are not whitespace, numbered by a hash table over their code points), so no Python object or dictionary
lookup is made per token, only per distinct word of a batch.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path

import numpy as np

from tealeaves.corpus import Preprocessor
from tealeaves.corpus._scan import LETTER, NOT_WORD, scan_runs
from tealeaves.corpus.preprocess import Numbering, Scan, letter_counts
from tealeaves.errors import EmptyInputError
from tealeaves.index.build import index_arrays
from tealeaves.index.merge import Partial

#: Classes of ASCII bytes for :func:`scan_tokens`: whitespace (``str.isspace``) is no word character.
ASCII_SPACES = np.array([NOT_WORD if chr(c).isspace() else LETTER for c in range(128)] + [NOT_WORD] * 128,
                        dtype=np.uint8)
_SPACES: list[np.ndarray] = []


def space_classes() -> np.ndarray:
    """The class of every code point for :func:`scan_tokens` (built on first use): ``NOT_WORD`` for
    whitespace (``str.isspace``, what ``str.split()`` splits at), ``LETTER`` for any other.

    Returns
    -------
    numpy.ndarray
        ``0x110000`` uint8 classes, indexed by code point.
    """
    if not _SPACES:
        table = np.full(sys.maxunicode + 1, LETTER, dtype=np.uint8)
        table[[c for c in range(sys.maxunicode + 1) if chr(c).isspace()]] = NOT_WORD
        _SPACES.append(table)
    return _SPACES[0]


def scan_tokens(texts: list[str]) -> Scan:
    """The whitespace-separated tokens of ``texts`` (``[t.split() for t in texts]``) as a
    :class:`~tealeaves.corpus.preprocess.Scan` (no stop words).

    Parameters
    ----------
    texts : list of str
        One document's tokens each.

    Returns
    -------
    Scan
        Their distinct tokens, the number of every token and each text's token count.
    """
    ids, counts, words = scan_runs(texts, ASCII_SPACES, space_classes, 1)
    return Scan(words, ids, counts, frozenset())


@dataclass
class BuildSettings:
    """What every shard task needs (picklable: sent to Dask workers).

    Parameters
    ----------
    recipe : dict or None
        ``Preprocessor.get_params()``; ``None`` = pre-tokenised input.
    chunk_tokens : int
        Tokens per partial index.
    workdir : str
        The build's work folder.
    text_field : str, default "text"
        The JSON field holding a document's text.
    id_field : str, default "id"
        The JSON field holding a document's id.
    prefix_ids : bool, default False
        Prefix document ids with the shard's name.
    encoding : str, optional
        Encoding of text inputs (``None``: UTF-8).
    vocabulary : list of str, optional
        Fixed by a counting pass (or a fitted Preprocessor).
    chunk_bytes : int, optional
        Memory a chunk may hold, its tokens and its own word table together (``None``: only
        ``chunk_tokens`` ends a chunk).
    """

    recipe: dict | None  # Preprocessor.get_params(); None = pre-tokenised input
    chunk_tokens: int
    workdir: str
    text_field: str = "text"
    id_field: str = "id"
    prefix_ids: bool = False
    encoding: str | None = None  # of text inputs (None: UTF-8)
    vocabulary: list[str] | None = None  # fixed by a counting pass (or a fitted Preprocessor)
    chunk_bytes: int | None = None  # tokens and word table together (None: only chunk_tokens counts)

    def preprocessor(self) -> Preprocessor:
        """The recipe's Preprocessor (text inputs only).

        Returns
        -------
        Preprocessor
            The preprocessor of ``recipe``.
        """
        return Preprocessor.from_params(self.recipe)



@dataclass
class Chunk:
    """Documents being collected: token ids, lengths, ids (local vocabulary unless fixed).

    With a local vocabulary, ``vocab`` may also number words the chunk's tokens no longer use (those
    of documents moved to the next chunk by :meth:`split`); :func:`flush_chunk` keeps only the words used.

    Parameters
    ----------
    fixed : dict of str to int or None
        The fixed vocabulary (``None``: a local one).
    vocab : Numbering, optional
        The local vocabulary.
    tokens : array, optional
        The token ids.
    lengths : list of int, optional
        The documents' lengths.
    ids : list of str, optional
        The documents' ids.
    slots : list of int, optional
        Aligned builds: each document's slot in the chunk's tuple range.
    """

    fixed: dict[str, int] | None
    vocab: Numbering = field(default_factory=Numbering)
    tokens: array = field(default_factory=lambda: array("i"))
    lengths: list[int] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    slots: list[int] | None = None  # aligned builds: each document's slot in the chunk's tuple range

    def add(self, doc_id: str, words: Sequence[str], slot: int | None = None) -> None:
        """Add one document.

        With a fixed vocabulary, words outside it are dropped; otherwise every word is numbered.

        Parameters
        ----------
        doc_id : str
            The document's id.
        words : sequence of str
            Its tokens.
        slot : int, optional
            Aligned builds: its slot in the chunk's tuple range.
        """
        if self.fixed is not None:
            get = self.fixed.get
            ids = [i for i in map(get, words) if i is not None]
        else:
            ids = list(map(self.vocab.__getitem__, words))
        self.tokens.extend(ids)
        self.lengths.append(len(ids))
        self.ids.append(doc_id)
        if slot is not None:
            if self.slots is None:
                self.slots = []
            self.slots.append(slot)

    def add_scan(self, doc_ids: Sequence[str], scan) -> None:
        """Add the documents of a :class:`~tealeaves.corpus.preprocess.Scan` in bulk.

        Each distinct word of the scan is numbered (or, with a fixed vocabulary, looked up) and
        checked against the stop words once, in C (``map``), and stop (or unknown) words are
        dropped with numpy.

        Parameters
        ----------
        doc_ids : sequence of str
            The documents' ids.
        scan : Scan
            Their scanned words.
        """
        words, n = scan.words, len(scan.words)
        if self.fixed is None:  # stop words get numbers too; flush_chunk keeps only the words used
            codes = np.fromiter(map(self.vocab.__getitem__, words), dtype=np.int32, count=n)
        else:
            codes = np.fromiter(map(self.fixed.get, words, repeat(-1)), dtype=np.int32, count=n)
        codes[scan.stop_mask()] = -1
        ids = codes[scan.ids] if n else np.zeros(0, dtype=np.int32)
        keep = ids >= 0
        kept = np.zeros(len(ids) + 1, dtype=np.int64)
        np.cumsum(keep, out=kept[1:])
        ends = np.zeros(len(doc_ids) + 1, dtype=np.int64)
        np.cumsum(scan.lengths, out=ends[1:])
        self.tokens.frombytes(ids[keep].tobytes())
        self.lengths.extend(np.diff(kept[ends]).tolist())
        self.ids.extend(doc_ids)

    def full_at(self, limit: int, budget: int | None, token_bytes: int, word_bytes: int) -> int | None:
        """Where the chunk is full: the tokens up to the end of the first document at which it reaches
        ``limit`` tokens, or at which its memory, ``token_bytes`` a token and ``word_bytes`` a word of its
        own table (the words its tokens number so far), reaches ``budget``; ``None`` while it has room.

        Parameters
        ----------
        limit : int
            Tokens per chunk.
        budget : int or None
            Bytes a chunk may hold (``None``: no bound but ``limit``).
        token_bytes : int
            Bytes per token (while indexed).
        word_bytes : int
            Bytes per word of its local vocabulary.

        Returns
        -------
        int or None
            The tokens to keep (:meth:`split`), or ``None``.
        """
        words = len(self.vocab) if (self.fixed is None and budget is not None) else 0
        n = len(self.tokens)
        if n < limit and (not words or n * token_bytes + words * word_bytes < budget):  # room left
            return None
        ends = np.cumsum(self.lengths, dtype=np.int64)
        full = ends >= limit
        if words and n:  # words are numbered in order of first appearance
            seen = np.maximum.accumulate(np.frombuffer(self.tokens, dtype=np.int32)) + 1
            seen = np.where(ends > 0, seen[np.maximum(ends - 1, 0)], 0)  # words numbered at each end
            full |= ends * token_bytes + seen * word_bytes >= budget
        k = int(np.argmax(full))
        return int(ends[k]) if full[k] else None

    def split(self, limit: int) -> Chunk | None:
        """Cut the chunk after the first document at which it reaches ``limit`` tokens.

        As adding documents one at a time and flushing at ``limit`` would.

        Parameters
        ----------
        limit : int
            Tokens per chunk.

        Returns
        -------
        Chunk or None
            The documents after the cut as a new chunk (``None`` if there are none).
        """
        ends = np.cumsum(self.lengths)
        k = int(np.searchsorted(ends, limit))  # the first document ending at or beyond the limit
        if k >= len(self.lengths) - 1:
            return None
        cut = int(ends[k])
        rest = Chunk(self.fixed, lengths=self.lengths[k + 1:], ids=self.ids[k + 1:])
        tail = self.tokens[cut:]
        if self.fixed is None:  # renumber the tail's words in a fresh local vocabulary
            words = list(self.vocab)
            tail = array("i", map(rest.vocab.__getitem__, map(words.__getitem__, tail)))
        rest.tokens = tail
        del self.tokens[cut:], self.lengths[k + 1:], self.ids[k + 1:]
        return rest


def flush_chunk(chunk: Chunk, settings: BuildSettings, path: Path, sort_words: bool,
                n_slots: int | None = None) -> Partial:
    """Index one chunk (a partial index file); aligned chunks place documents at ``chunk.slots`` of
    ``n_slots``.

    Parameters
    ----------
    chunk : Chunk
        The documents collected.
    settings : BuildSettings
        The build's settings (the fixed vocabulary, if any).
    path : Path
        The partial index file to write.
    sort_words : bool
        Number the chunk's words in sorted order.
    n_slots : int, optional
        Aligned builds: the slots of the chunk's tuple range.

    Returns
    -------
    Partial
        The partial index (``path=None`` for an aligned chunk without a document).
    """
    tokens = np.frombuffer(chunk.tokens, dtype=np.int32) if len(chunk.tokens) else np.zeros(0, np.int32)
    offsets = np.zeros(len(chunk.lengths) + 1, dtype=np.int64)
    np.cumsum(chunk.lengths, out=offsets[1:])
    words = settings.vocabulary if chunk.fixed is not None else list(chunk.vocab)
    counts = np.bincount(tokens, minlength=len(words))
    if chunk.fixed is None:
        used = np.flatnonzero(counts)
        if len(used) < len(words) or sort_words:  # keep the words the tokens use (in order, or sorted)
            order = sorted(used.tolist(), key=words.__getitem__) if sort_words else used.tolist()
            rank = np.full(len(words), -1, dtype=np.int32)
            rank[order] = np.arange(len(order), dtype=np.int32)
            tokens = rank[tokens]
            words = [words[i] for i in order]
            counts = counts[order]
    if n_slots is not None and not chunk.lengths:
        return Partial(None, n_slots)
    letters = letter_counts(words, counts)
    index = index_arrays(tokens, offsets, words, chunk.ids, name="partial", doc_ids=chunk.slots,
                         n_space=n_slots)
    if not path.parent.is_dir():  # the build was abandoned (another shard failed): do not recreate it
        raise EmptyInputError(f"the build's work folder {path.parent} is gone", fix="run the build again")
    index.save(path, checksum=False)  # read back only by the merge (open_unchecked)
    return Partial(str(path), len(chunk.lengths) if n_slots is None else n_slots, letters)


