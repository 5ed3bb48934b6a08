"""Building a reference index in memory: one counting-sort pass over token ids.

:func:`index_arrays` is the one indexing pass: :func:`build_index` (a
:class:`~tealeaves.corpus.Corpus`), :func:`index_from_token_lists` (lists of tokens) and every
chunk of a streamed or sharded build (:mod:`tealeaves.index.streaming`) call it, so an index is
the same however it was built.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import chain, repeat

import numba
import numpy as np

from tealeaves import _interrupt
from tealeaves._compiled import filled, stop_requested
from tealeaves._version import __version__
from tealeaves.corpus import Corpus
from tealeaves.errors import EmptyInputError, InputFormatError, TealeavesError
from tealeaves.index.format import FORMAT_VERSION, encode_strings
from tealeaves.index.reference import ReferenceIndex

#: Tokens below which the counting sort runs in the calling thread (milliseconds of work: a helper
#: thread for Ctrl-C costs more than that on a busy machine, where starting it waits for a core).
_SHORT_BUILD = 2_000_000


@numba.njit(cache=True, nogil=True)
def _build_kernel(tokens, offsets, order, space_ids, n_words, stop):
    """Counting sort of token positions by word id; documents visited in ``order``.

    Reads the stop flag ``stop`` (:mod:`tealeaves._interrupt`) before each document and returns
    early, unfinished, once it is set (:func:`tealeaves._interrupt.call` then raises instead).
    """
    tok_ptr = filled(n_words + 1, 0)  # (no np.zeros or np.full: see tealeaves._compiled)
    df = filled(n_words, 0)
    last = filled(n_words, -1)
    for r in range(len(order)):
        if stop_requested(stop):
            break
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
    word_ptr = filled(n_words + 1, 0)
    for w in range(n_words):
        word_ptr[w + 1] = word_ptr[w] + df[w]
    n_post = word_ptr[n_words]
    positions = np.empty(tok_ptr[n_words], dtype=np.int32)
    post_docs = np.empty(n_post, dtype=np.int32)
    pos_ptr = np.empty(n_post + 1, dtype=np.int64)
    tcur = df  # the next position and posting of each word (df is no longer needed)
    pcur = np.empty(n_words, dtype=np.int64)
    for w in range(n_words):
        tcur[w] = tok_ptr[w]
        pcur[w] = word_ptr[w]
        last[w] = -1
    for r in range(len(order)):
        if stop_requested(stop):
            break
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

    Parameters
    ----------
    corpus : Corpus
        The reference corpus (token ids and vocabulary).
    name : str, optional
        The index's name (default: the corpus's, else ``"reference"``).
    doc_ids, n_space, source
        As in :func:`index_arrays`.
    tokenization : mapping, optional
        The recipe recorded in the header (default: the corpus's).

    Returns
    -------
    ReferenceIndex
        The index, in memory (write it with :meth:`ReferenceIndex.save`).
    """
    from tealeaves.corpus.preprocess import TEXT_FIX, letter_counts, segmentation

    words = list(corpus.vocabulary)
    counts = letter_counts(words, np.bincount(corpus.tokens, minlength=len(words)))
    checked = segmentation([counts], f"the text of '{source}'" if source else "the reference text", TEXT_FIX)
    tok = dict(tokenization) if tokenization is not None else dict(corpus.metadata.get("preprocessing") or {})
    index = index_arrays(corpus.tokens, corpus.offsets, words, corpus.ids,
                          name=name or corpus.metadata.get("name") or "reference", doc_ids=doc_ids,
                          n_space=n_space, tokenization=tok, source=source)
    index.header["segmentation"] = checked
    index.vocabulary = corpus.vocabulary  # already decoded: skip the lazy decode
    return index


def index_arrays(tokens: np.ndarray, offsets: np.ndarray, words: list[str], ids: Sequence[str], *,
                 name: str, doc_ids=None, n_space: int | None = None, tokenization: Mapping | None = None,
                 source: str = "") -> ReferenceIndex:
    """Index flat token ids (``-1`` = a token outside ``words``, kept only for positions and lengths).

    The one indexing pass behind every build: :func:`build_index`, :func:`index_from_token_lists`
    and each chunk of a streamed build (:func:`tealeaves.index.chunk.flush_chunk`).

    Parameters
    ----------
    tokens : numpy.ndarray
        Word ids of every token, documents one after the other.
    offsets : numpy.ndarray
        ``len(documents) + 1`` entries: document ``d`` is ``tokens[offsets[d]:offsets[d + 1]]``.
    words : list of str
        The vocabulary (word id ``i`` is ``words[i]``).
    ids : sequence of str
        Document ids.
    name : str
        The index's name.
    doc_ids : sequence of int, optional
        The slot of each document in the id space (default: its number).
    n_space : int, optional
        Slots of the id space (default: the number of documents, or the largest slot + 1).
    tokenization : mapping, optional
        The recipe recorded in the header.
    source : str
        Where the text came from (recorded in the header).

    Returns
    -------
    ReferenceIndex
        The index, in memory.
    """
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
    word_ptr, post_docs, pos_ptr, positions = _interrupt.call(_build_kernel, tokens, offsets,
                                                              order.astype(np.int64), space, len(words),
                                                              short=len(tokens) < _SHORT_BUILD)
    lengths = np.zeros(n_space, dtype=np.int64)
    lengths[space] = np.diff(offsets)
    present = np.zeros(n_space, dtype=np.uint8)
    present[space] = 1
    vocab_blob, vocab_offsets = encode_strings(words)
    docid_blob, docid_offsets = encode_strings([ids[int(d)] for d in order])
    arrays = {"vocab_blob": vocab_blob, "vocab_offsets": vocab_offsets, "doc_lengths": lengths,
              "present": present, "word_ptr": word_ptr, "post_docs": post_docs, "pos_ptr": pos_ptr,
              "positions": positions, "docid_blob": docid_blob, "docid_offsets": docid_offsets}
    header = {"format": "tealeaves-reference-index", "format_version": FORMAT_VERSION, "name": name,
              "n_documents": n_space, "n_present": n_docs, "n_tokens": int(offsets[-1]),
              "n_words": len(words), "tokenization": dict(tokenization or {}), "source": source,
              "created_by": f"tealeaves-{__version__}"}
    return ReferenceIndex(arrays, header, checked=True)  # (built here: every invariant holds)


def index_from_token_lists(documents: Iterable[Sequence[str]], *, name: str = "reference",
                           ids: Sequence[str] | None = None, words: Sequence[str] | None = None
                           ) -> ReferenceIndex:
    """Index pre-tokenised documents (lists of strings) in memory.

    Words are numbered in order of first appearance, as
    :meth:`Corpus.from_token_lists` does.  With ``words``, only those words
    are indexed (a *restricted* index, e.g. the topic words for a one-shot
    score): other tokens still count for document lengths and positions, so
    every count of the listed words is the same as in a full index.

    Parameters
    ----------
    documents : iterable of sequence of str
        The documents, each a list of tokens.
    name : str
        The index's name.
    ids : sequence of str, optional
        Document ids (default: their numbers).
    words : sequence of str, optional
        Index only these words.

    Returns
    -------
    ReferenceIndex
        The index, in memory.
    """
    docs = documents if isinstance(documents, list) else list(documents)
    if not docs:
        raise EmptyInputError("the reference has no documents; check the input")
    offsets = np.zeros(len(docs) + 1, dtype=np.int64)
    np.cumsum([len(d) for d in docs], out=offsets[1:])
    n_tok = int(offsets[-1])
    if n_tok == 0:
        raise EmptyInputError(f"the reference's {len(docs)} documents hold no tokens")
    flat = list(chain.from_iterable(docs))
    if words is None:
        vocab = {w: i for i, w in enumerate(dict.fromkeys(flat))}
        tokens = np.fromiter(map(vocab.__getitem__, flat), dtype=np.int32, count=n_tok)
        tokenization = {"tokenizer": "pre-tokenised"}
        # letters from the distinct words and their counts
        checked = _token_list_segmentation(list(vocab), np.bincount(tokens, minlength=len(vocab)))
    else:
        vocab = {w: i for i, w in enumerate(dict.fromkeys(words))}
        tokens = np.fromiter(map(vocab.get, flat, repeat(-1, n_tok)), dtype=np.int32, count=n_tok)
        tokenization = {"tokenizer": "pre-tokenised", "restricted_to_words": len(vocab)}
        # every token counts, the words outside ``words`` too: letters token by token (counting the
        # distinct tokens first would hash every token a second time)
        checked = _token_list_segmentation(flat, np.ones(n_tok, dtype=np.int64))
    doc_ids = [str(i) for i in ids] if ids is not None else [str(i) for i in range(len(docs))]
    index = index_arrays(tokens, offsets, list(vocab), doc_ids, name=name, tokenization=tokenization)
    index.header["segmentation"] = checked
    return index


def _token_list_segmentation(words: list, counts: np.ndarray) -> dict:
    """Unsegmented token lists refused and their letter counts, as every other build path does
    (:func:`tealeaves.corpus.preprocess.segmentation`), from tokens ``words`` occurring ``counts``
    times; a token that is not a string is refused by name."""
    from tealeaves.corpus.preprocess import TEXT_FIX, letter_counts, segmentation

    try:
        letters = letter_counts(words, counts)
    except TypeError:  # len() or str.join() of a token that is not a string
        bad = [w for w in words if not isinstance(w, str)][:1]  # (not next(..., None): None is a token here)
        if not bad:
            raise
        raise InputFormatError(f"the reference's token lists hold the token {bad[0]!r} "
                               f"({type(bad[0]).__name__}); tokens must be strings",
                               fix="give each document as a list of word strings") from None
    return segmentation([letters], "the reference text (token lists)", TEXT_FIX)
