"""The corpus type shared by every tealeaves component.

A :class:`Corpus` stores each document as a sequence of word ids over a
:class:`~tealeaves.corpus.vocabulary.Vocabulary`, concatenated into one flat
array with CSR-style offsets (fast for compiled samplers and sliding windows),
plus document ids and optional labels.  Sparse document-term counts are derived
on demand.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from tealeaves._docs import shared_doc
from tealeaves.corpus.vocabulary import Vocabulary
from tealeaves.errors import EmptyInputError, InputFormatError


def _flatten(pieces: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Concatenate per-document id arrays into ``(tokens, offsets)``."""
    offsets = np.zeros(len(pieces) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(p) for p in pieces])
    tokens = np.concatenate(pieces) if len(pieces) else np.zeros(0, dtype=np.int32)
    return tokens, offsets


@dataclass(eq=False)
class Corpus:
    """Documents as token-id sequences over a fixed vocabulary.

    Parameters
    ----------
    vocabulary : Vocabulary
        The words: id ``i`` stands for ``vocabulary[i]``.
    tokens : numpy.ndarray
        int32 array of every document's word ids, concatenated.
    offsets : numpy.ndarray
        int64 array of length ``n_documents + 1``; document ``d`` is
        ``tokens[offsets[d]:offsets[d + 1]]``.
    ids : list of str
        One string id per document.
    labels : list or None, default None
        Optional per-document labels (any objects, e.g. lists of categories).
    n_dropped : int, default 0
        Number of tokens dropped as out-of-vocabulary when the corpus was encoded.
    metadata : dict, default {}
        Free-form description (e.g. ``name``, the preprocessing).

    Raises
    ------
    InputFormatError
        If the offsets, labels or token ids do not fit the documents and the vocabulary.
    """

    vocabulary: Vocabulary
    tokens: np.ndarray
    offsets: np.ndarray
    ids: list[str]
    labels: list | None = None
    n_dropped: int = 0
    metadata: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.tokens = np.ascontiguousarray(self.tokens, dtype=np.int32)
        self.offsets = np.ascontiguousarray(self.offsets, dtype=np.int64)
        if self.offsets.ndim != 1 or len(self.offsets) != len(self.ids) + 1:
            raise InputFormatError("offsets must have one more entry than there are document ids")
        if self.offsets[0] != 0 or self.offsets[-1] != len(self.tokens):
            raise InputFormatError("offsets must start at 0 and end at len(tokens)")
        if np.any(np.diff(self.offsets) < 0):
            raise InputFormatError("offsets must be non-decreasing")
        if self.labels is not None and len(self.labels) != len(self.ids):
            raise InputFormatError("labels must have one entry per document")
        if len(self.tokens) and (self.tokens.min() < 0 or self.tokens.max() >= len(self.vocabulary)):
            raise InputFormatError("token ids fall outside the vocabulary")

    # -- construction -------------------------------------------------------
    @classmethod
    @shared_doc
    def from_token_lists(
        cls,
        documents: Iterable[Sequence[str]],
        vocabulary: Vocabulary | None = None,
        ids: Sequence[str] | None = None,
        labels: Sequence | None = None,
    ) -> Corpus:
        """Encode tokenised documents; unknown tokens are dropped and counted.

        Parameters
        ----------
        documents : iterable of sequence of str
            The tokenised documents.
        vocabulary : Vocabulary or None, default None
            The vocabulary to encode over; None builds one from the documents themselves.
        %(corpus_ids)s
        labels : sequence or None, default None
            One label per document.

        Returns
        -------
        Corpus
            The encoded documents (``n_dropped`` counts the unknown tokens).

        Raises
        ------
        InputFormatError
            If the number of ids or labels differs from the number of documents.
        EmptyInputError
            If no vocabulary is given and the documents hold no tokens.
        """
        docs = [list(d) for d in documents]
        if vocabulary is None:
            vocabulary = Vocabulary.from_documents(docs)
        pieces: list[np.ndarray] = []
        dropped = 0
        for doc in docs:
            ids_d, n_dropped = vocabulary.encode(doc)
            dropped += n_dropped
            pieces.append(ids_d)
        tokens, offsets = _flatten(pieces)
        doc_ids = [str(i) for i in ids] if ids is not None else [str(i) for i in range(len(docs))]
        if len(doc_ids) != len(docs):
            raise InputFormatError(f"got {len(doc_ids)} ids for {len(docs)} documents")
        return cls(
            vocabulary,
            tokens,
            offsets,
            doc_ids,
            list(labels) if labels is not None else None,
            dropped,
        )

    @classmethod
    @shared_doc
    def from_counts(
        cls,
        counts: np.ndarray | sp.spmatrix,
        vocabulary: Vocabulary | Sequence[str],
        ids: Sequence[str] | None = None,
    ) -> Corpus:
        """Build a corpus from a document-term count matrix (word order is lost).

        Parameters
        ----------
        counts : numpy.ndarray or scipy.sparse.spmatrix
            The ``D x V`` non-negative counts.
        vocabulary : Vocabulary or sequence of str
            The ``V`` words of the columns.
        %(corpus_ids)s

        Returns
        -------
        Corpus
            Each document's words repeated by their counts, in column order.

        Raises
        ------
        InputFormatError
            If a count is negative or the number of columns differs from the vocabulary.
        """
        counts = sp.csr_matrix(counts)
        if counts.nnz and counts.data.min() < 0:
            raise InputFormatError("counts must be non-negative")
        if not isinstance(vocabulary, Vocabulary):
            vocabulary = Vocabulary(vocabulary)
        if counts.shape[1] != len(vocabulary):
            raise InputFormatError(
                f"counts have {counts.shape[1]} columns but the vocabulary has {len(vocabulary)} words"
            )
        docs = []
        for d in range(counts.shape[0]):
            row = counts.getrow(d)
            docs.append(np.repeat(row.indices, row.data.astype(np.int64)))
        tokens, offsets = _flatten(docs)
        doc_ids = [str(i) for i in ids] if ids is not None else [str(i) for i in range(len(docs))]
        return cls(vocabulary, tokens, offsets, doc_ids)

    # -- access -------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.ids)

    @property
    def preprocessing(self) -> dict | None:
        """The recipe the corpus was made with (``Preprocessor.get_params()``), or None.

        Set by :meth:`Preprocessor.transform <tealeaves.corpus.Preprocessor.transform>` and
        ``fit_transform`` (and so by the readers that tokenise raw text); None for pre-tokenised
        input.  Stored as ``metadata["preprocessing"]``, so :meth:`subset` and every corpus
        derived with the metadata keep it.

        Returns
        -------
        dict or None
            The recipe.
        """
        return self.metadata.get("preprocessing")

    @preprocessing.setter
    def preprocessing(self, recipe: dict | None) -> None:
        if recipe is None:
            self.metadata.pop("preprocessing", None)
        else:
            self.metadata["preprocessing"] = recipe

    @property
    def n_documents(self) -> int:
        return len(self.ids)

    @property
    def n_tokens(self) -> int:
        return int(len(self.tokens))

    @property
    def lengths(self) -> np.ndarray:
        """Number of tokens in each document."""
        return np.diff(self.offsets)

    @shared_doc
    def document(self, d: int) -> np.ndarray:
        """Word ids of document ``d`` in their original order.

        Parameters: %(corpus_d)s

        Returns
        -------
        numpy.ndarray
            A view of its int32 ids.
        """
        return self.tokens[self.offsets[d] : self.offsets[d + 1]]

    @shared_doc
    def words(self, d: int) -> list[str]:
        """Tokens of document ``d`` as strings.

        Parameters: %(corpus_d)s

        Returns
        -------
        list of str
            Its words in order.
        """
        return self.vocabulary.decode(self.document(d))

    def __iter__(self) -> Iterator[np.ndarray]:
        for d in range(len(self)):
            yield self.document(d)

    def token_lists(self) -> list[list[str]]:
        """Every document as a list of word strings (for interoperability).

        Returns
        -------
        list of list of str
            One list per document.
        """
        return [self.words(d) for d in range(len(self))]

    @cached_property
    def counts(self) -> sp.csr_matrix:
        """Sparse ``n_documents x V`` matrix of word counts."""
        rows = np.repeat(np.arange(len(self), dtype=np.int64), self.lengths)
        data = np.ones(len(self.tokens), dtype=np.int64)
        m = sp.csr_matrix(
            (data, (rows, self.tokens)), shape=(len(self), len(self.vocabulary)), dtype=np.int64
        )
        m.sum_duplicates()
        return m

    def term_frequencies(self) -> np.ndarray:
        """Total count of every vocabulary word over the corpus.

        Returns
        -------
        numpy.ndarray
            ``V`` int64 counts.
        """
        return np.bincount(self.tokens, minlength=len(self.vocabulary)).astype(np.int64)

    def document_frequencies(self) -> np.ndarray:
        """Number of documents containing each vocabulary word.

        Returns
        -------
        numpy.ndarray
            ``V`` int64 counts.
        """
        return np.asarray((self.counts > 0).sum(axis=0)).ravel().astype(np.int64)

    def subset(self, indices: Sequence[int] | np.ndarray) -> Corpus:
        """A new corpus holding the given documents, in the given order.

        Parameters
        ----------
        indices : sequence of int or numpy.ndarray
            Document indices (repeats allowed).

        Returns
        -------
        Corpus
            The documents with their ids, labels and the metadata (``n_dropped`` is 0).
        """
        idx = np.asarray(indices, dtype=np.int64)
        tokens, offsets = _flatten([self.document(int(d)) for d in idx])
        labels = [self.labels[int(d)] for d in idx] if self.labels is not None else None
        return Corpus(
            self.vocabulary,
            tokens,
            offsets,
            [self.ids[int(d)] for d in idx],
            labels,
            0,
            dict(self.metadata),
        )

    def require_nonempty(self, what: str = "corpus") -> None:
        """Raise :class:`EmptyInputError` if there are no documents or no tokens.

        Parameters
        ----------
        what : str, default "corpus"
            What the corpus is, for the message.

        Raises
        ------
        EmptyInputError
            If the corpus has no document or no token.
        """
        if len(self) == 0:
            raise EmptyInputError(f"the {what} has no documents; check the input path and reader")
        if self.n_tokens == 0:
            raise EmptyInputError(
                f"the {what} has {len(self)} documents but no tokens in the vocabulary; "
                "check the preprocessing (stop words, min_df/max_df) and the vocabulary"
            )

    def __repr__(self) -> str:
        return (
            f"Corpus({len(self)} documents, {self.n_tokens} tokens, "
            f"{len(self.vocabulary)} word vocabulary)"
        )
