"""Merge partial indexes into one index file, streamed, in bounded memory.

Partial indexes cover consecutive ranges of the document-id space (in order).
The merged index is the one :func:`~tealeaves.index.build_index`
builds in one pass over the concatenated documents: document ids of partial
``p`` are offset by the slots of the partials before it, every word's postings
(and their positions) are the concatenation of its postings in the partials in
order (so they stay sorted), and the vocabulary is the union of the partials'
words, in first-appearance order or sorted (as :class:`~tealeaves.corpus.Preprocessor`
orders a fitted vocabulary); word ids are remapped accordingly.

Memory: the unified vocabulary, two counts per word, and one block of output
(postings and positions of a run of consecutive words, at most ``buffer_bytes``
or one word) at a time; the partials and the output are memory-mapped a block
at a time, so their pages leave the process after each block (the output's are
written back by the kernel, and synced once when the file is sealed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from tealeaves import _interrupt
from tealeaves._compiled import stop_requested
from tealeaves.errors import EmptyInputError
from tealeaves.index.format import IndexWriter, read_header
from tealeaves.index.memory import check_merge_memory, release_freed_memory
from tealeaves.index.reference import ReferenceIndex, open_unchecked
from tealeaves.index.wordtable import merge_word_tables, word_table_bytes


@dataclass
class Partial:
    """One partial index file covering ``n_slots`` consecutive slots (``path=None``: all absent), and
    the :func:`~tealeaves.corpus.preprocess.letter_counts` of its tokens.

    Parameters
    ----------
    path : str or None
        The partial index file.
    n_slots : int
        Consecutive slots of the id space it covers.
    letters : tuple of int
        Letter counts of its tokens.
    """

    path: str | None
    n_slots: int
    letters: tuple[int, int] = (0, 0)


@numba.njit(cache=True, nogil=True)
def _gather(local, final, src_wp, src_docs, src_pp, src_pos, slot_offset, dst_docs, dst_pp, dst_pos,
            pcur, tcur, block_start, tok_base, stop):
    """Append partial postings of words ``local`` (output words ``final``) at the cursors of their words.

    Returns early, unfinished, once the stop flag ``stop`` (:mod:`tealeaves._interrupt`) is set.
    """
    for k in range(len(local)):
        if stop_requested(stop):
            return
        lw = local[k]
        fw = final[k] - block_start
        for j in range(src_wp[lw], src_wp[lw + 1]):
            p = pcur[fw]
            dst_docs[p] = src_docs[j] + slot_offset
            t = tcur[fw]
            dst_pp[p] = tok_base + t
            for i in range(src_pp[j], src_pp[j + 1]):
                dst_pos[t] = src_pos[i]
                t += 1
            tcur[fw] = t
            pcur[fw] = p + 1


def merge_partials(partials: Sequence[Partial], output: str | Path, header: Mapping, *,
                   sort_words: bool, buffer_bytes: int | None = None, progress=None,
                   memory: int | None = None) -> ReferenceIndex:
    """Merge ``partials`` (in id-space order) into the index file ``output``; returns it (memory-mapped).

    ``header`` gives the descriptive fields (name, tokenization, source,
    shards...); the counts are computed here.

    Parameters
    ----------
    partials : sequence of Partial
        The partial indexes, in id-space order.
    output : str or Path
        The index file to write.
    header : mapping
        Descriptive header fields.
    sort_words : bool
        Sort the merged vocabulary (as a fitted Preprocessor orders it); else first appearance.
    buffer_bytes : int, optional
        Output held in memory at a time (default: as ``memory`` leaves room for, or 128 MiB).
    progress : Progress, optional
        Told of the words merged.
    memory : int, optional
        The build's budget in bytes: the output block is sized to the room the word tables
        (:func:`~tealeaves.index.wordtable.word_table_bytes`) leave in it, and the merge refused when they
        do not fit (:func:`~tealeaves.index.memory.check_merge_memory`).

    Returns
    -------
    ReferenceIndex
        The merged index, memory-mapped.
    """
    real = [(k, p) for k, p in enumerate(partials) if p.path is not None]
    if not real:
        raise EmptyInputError("the reference corpus has no documents; check the inputs")
    heads = {k: read_header(p.path) for k, p in real}
    offsets = np.concatenate([[0], np.cumsum([p.n_slots for p in partials])]).astype(np.int64)
    n_pairs = sum(heads[k]["n_words"] for k, _ in real)
    n_bytes = sum(spec["shape"][0] for k, _ in real for spec in heads[k]["arrays"]
                  if spec["name"] == "vocab_blob")  # the partials' words, UTF-8
    if memory is not None:
        check_merge_memory(memory, word_table_bytes(n_pairs, 0, n_bytes))  # before any word table is read
    release_freed_memory()  # what the chunks freed does not stay beside the word tables
    tables = []
    for k, p in real:
        arrays = open_unchecked(p.path, heads[k]).arrays
        tables.append((arrays["vocab_blob"], arrays["vocab_offsets"]))
    vocab_blob, vocab_offsets, maps = merge_word_tables(tables, sort_words)
    del tables
    local_words = {k: m for (k, _), m in zip(real, maps)}
    n_words = len(vocab_offsets) - 1
    if buffer_bytes is None:
        tables_bytes = word_table_bytes(n_pairs, n_words, n_bytes)
        buffer_bytes = check_merge_memory(memory, tables_bytes) if memory else 1 << 27
    if n_words == 0:
        n_docs = sum(heads[k]["n_present"] for k, _ in real)
        raw = "token_pattern" in (header.get("tokenization") or {})  # a recipe: raw text was tokenised
        raise EmptyInputError(f"the reference corpus's {n_docs} documents hold no token"
                              + (" (the token pattern matches nothing in them, or every match is a stop "
                                 "word or too short)" if raw else ""),
                              fix="check the inputs and the text field"
                                  + (", the token pattern, the stop words and min_length" if raw else ""))
    df = np.zeros(n_words, dtype=np.int64)
    tf = np.zeros(n_words, dtype=np.int64)
    for k, p in real:
        arrays = open_unchecked(p.path, heads[k]).arrays
        wp, pp = np.asarray(arrays["word_ptr"]), np.asarray(arrays["pos_ptr"])
        df[local_words[k]] += np.diff(wp)
        tf[local_words[k]] += pp[wp[1:]] - pp[wp[:-1]]
    word_ptr = np.zeros(n_words + 1, dtype=np.int64)
    np.cumsum(df, out=word_ptr[1:])
    tok_ptr = np.zeros(n_words + 1, dtype=np.int64)
    np.cumsum(tf, out=tok_ptr[1:])
    n_present = sum(heads[k]["n_present"] for k, _ in real)
    n_tokens = sum(heads[k]["n_tokens"] for k, _ in real)
    docid_bytes = sum(h["arrays"][8]["shape"][0] for h in heads.values())
    lengths = {"vocab_blob": len(vocab_blob), "vocab_offsets": n_words + 1, "doc_lengths": int(offsets[-1]),
               "present": int(offsets[-1]), "word_ptr": n_words + 1, "post_docs": int(word_ptr[-1]),
               "pos_ptr": int(word_ptr[-1]) + 1, "positions": int(tok_ptr[-1]), "docid_blob": docid_bytes,
               "docid_offsets": n_present + 1}
    full = {**header, "n_documents": int(offsets[-1]), "n_present": n_present, "n_tokens": n_tokens,
            "n_words": n_words}
    writer = IndexWriter(output, full, lengths)
    try:
        for name, values in (("vocab_blob", vocab_blob), ("vocab_offsets", vocab_offsets),
                             ("word_ptr", word_ptr)):
            writer.region(name, 0, len(values))[:] = values
        del vocab_blob, vocab_offsets
        _copy_documents(writer, real, heads, offsets)
        _copy_postings(writer, real, heads, offsets, local_words, word_ptr, tok_ptr, buffer_bytes, progress)
        return open_unchecked(writer.path, writer.header, writer.close())
    except BaseException:
        writer.abort()
        raise


def _copy_documents(writer: IndexWriter, real, heads, offsets: np.ndarray) -> None:
    """Concatenate document lengths, presence flags and document ids of the partials."""
    blob_pos, id_pos = 0, 0
    for k, p in real:
        arrays = open_unchecked(p.path, heads[k]).arrays
        a, n = int(offsets[k]), heads[k]["n_documents"]
        writer.region("doc_lengths", a, a + n)[:] = arrays["doc_lengths"]
        writer.region("present", a, a + n)[:] = arrays["present"]
        blob, ids = arrays["docid_blob"], arrays["docid_offsets"]
        writer.region("docid_blob", blob_pos, blob_pos + len(blob))[:] = blob
        m = len(ids) - 1
        writer.region("docid_offsets", id_pos, id_pos + m + 1)[:] = np.asarray(ids) + blob_pos
        blob_pos += len(blob)
        id_pos += m


def _blocks(word_ptr: np.ndarray, tok_ptr: np.ndarray, buffer_bytes: int) -> list[tuple[int, int]]:
    """Runs of consecutive words whose postings and positions fit ``buffer_bytes`` (at least one word)."""
    cost = word_ptr * 12 + tok_ptr * 4
    out, a, n = [], 0, len(word_ptr) - 1
    while a < n:
        b = int(np.searchsorted(cost, cost[a] + buffer_bytes, side="right")) - 1
        b = min(max(b, a + 1), n)
        out.append((a, b))
        a = b
    return out


def _copy_postings(writer, real, heads, offsets, local_words, word_ptr, tok_ptr, buffer_bytes,
                   progress) -> None:
    """Fill post_docs, pos_ptr and positions block by block of output words."""
    sorted_locals = {}
    for k, finals in local_words.items():
        order = np.argsort(finals, kind="stable")
        sorted_locals[k] = (order, finals[order])
    n_post = int(word_ptr[-1])
    blocks = _blocks(word_ptr, tok_ptr, buffer_bytes)
    for a, b in blocks:
        p0, p1, t0, t1 = int(word_ptr[a]), int(word_ptr[b]), int(tok_ptr[a]), int(tok_ptr[b])
        dst_docs = writer.region("post_docs", p0, p1)
        dst_pp = writer.region("pos_ptr", p0, p1)
        dst_pos = writer.region("positions", t0, t1)
        pcur = word_ptr[a:b] - p0
        tcur = tok_ptr[a:b] - t0
        for k, p in real:
            order, finals = sorted_locals[k]
            lo, hi = np.searchsorted(finals, [a, b])
            if lo == hi:
                continue
            arrays = open_unchecked(p.path, heads[k]).arrays
            _interrupt.call(_gather, order[lo:hi], finals[lo:hi], arrays["word_ptr"], arrays["post_docs"],
                            arrays["pos_ptr"], arrays["positions"], np.int32(offsets[k]), dst_docs, dst_pp,
                            dst_pos, pcur, tcur, a, t0)
            del arrays
        del dst_docs, dst_pp, dst_pos  # unmapped: the pages leave this process (written back by the kernel)
        if progress is not None:
            progress.merged(b, len(word_ptr) - 1)
    writer.region("pos_ptr", n_post, n_post + 1)[:] = tok_ptr[-1]
