"""Meaning drift between a poor (Bible) and a rich (modern) reference (``drift`` features).

After Hamilton et al. (2016) as used by Hao, Boyd-Graber and Paul (2018, §3.1):
a word's **context vector** in a corpus counts the tokens within ``window``
positions on either side of each of its occurrences (inside one document); the
word's drift similarity is the cosine between its context vector in the poor
reference and in the rich reference.  Both vectors live in a **shared context
vocabulary**: the words present in both references (a context word only one
corpus knows cannot be compared, so it is dropped).

Documented value: a word that does not occur in one of the references, or
whose context vector in the shared vocabulary is all zero, has similarity
``missing_value`` (default 0.0: no evidence that its usage carries over) and is
counted in ``n_missing``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from tealeaves._docs import shared_doc
from tealeaves.corpus import Corpus
from tealeaves.errors import EmptyInputError, TealeavesError
from tealeaves.multilingual._word_stats import english_word_stats


def context_vectors(corpus: Corpus, targets: Sequence[str], context_vocab: dict[str, int],
                    window: int = 5) -> sp.csr_matrix:
    """len(targets) x len(context_vocab) counts of context words within ``window`` tokens.

    Row i counts, over every occurrence of ``targets[i]`` in ``corpus``, the tokens at
    distance 1..window on either side in the same document whose word is in ``context_vocab``
    (the context vectors of Hamilton et al. 2016).

    Parameters
    ----------
    corpus : Corpus
        The documents to count in.
    targets : sequence of str
        The words whose context vectors are wanted (one row each; a word the corpus lacks
        gets an all-zero row).
    context_vocab : dict of str to int
        Context word -> column.
    window : int, default 5
        Tokens counted on each side of an occurrence, >= 1.

    Returns
    -------
    scipy.sparse.csr_matrix
        The counts, shape ``(len(targets), len(context_vocab))``.

    Raises
    ------
    TealeavesError
        When ``window`` is below 1.
    """
    if window < 1:
        raise TealeavesError(f"window must be a positive number of tokens, got {window}")
    vocab = corpus.vocabulary
    row_of = np.full(len(vocab), -1, dtype=np.int64)
    for i, w in enumerate(targets):
        if w in vocab:
            row_of[vocab.id(w)] = i
    col_of = np.full(len(vocab), -1, dtype=np.int64)
    for w, j in context_vocab.items():
        if w in vocab:
            col_of[vocab.id(w)] = j
    tokens = corpus.tokens
    doc_of = np.repeat(np.arange(len(corpus)), corpus.lengths)
    pos = np.nonzero(row_of[tokens] >= 0)[0]
    rows, cols = [], []
    for off in [o for o in range(-window, window + 1) if o]:
        nb = pos + off
        ok = (nb >= 0) & (nb < len(tokens))
        p, nb = pos[ok], nb[ok]
        ok = doc_of[nb] == doc_of[p]
        p, nb = p[ok], nb[ok]
        c = col_of[tokens[nb]]
        keep = c >= 0
        rows.append(row_of[tokens[p[keep]]])
        cols.append(c[keep])
    r = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    c = np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)
    return sp.csr_matrix((np.ones(len(r)), (r, c)), shape=(len(targets), len(context_vocab)))


def _as_corpus(reference) -> Corpus:
    """A corpus as is; an index's documents rebuilt as a corpus."""
    if isinstance(reference, Corpus):
        return reference
    from tealeaves.index import ReferenceIndex
    from tealeaves.multilingual.reference import index_corpus

    if isinstance(reference, ReferenceIndex):
        return index_corpus(reference)
    raise TealeavesError("meaning drift is fitted on a Corpus or a ReferenceIndex, got "
                         f"{type(reference).__name__}",
                         fix="pass reference.language_corpus('en') or the English ReferenceIndex")


class MeaningDrift:
    """Cosine between a word's context vectors in a poor and a rich reference.

    The ``drift`` features of the coherence estimator (Hao, Boyd-Graber and Paul 2018, §3.1,
    after Hamilton et al. 2016; module docstring).

    Parameters
    ----------
    window : int, default 5
        Context window on each side (the paper uses 5).
    missing_value : float, default 0.0
        Similarity of a word absent from either reference (documented: 0.0).
    """

    def __init__(self, window: int = 5, missing_value: float = 0.0):
        self.window = window
        self.missing_value = missing_value

    def fit(self, poor, rich) -> MeaningDrift:
        """Fix the two references and their shared context vocabulary.

        Each is a :class:`~tealeaves.corpus.Corpus` of the language's documents or a
        :class:`~tealeaves.index.ReferenceIndex` of them (a saved reference folder's index):
        its token sequences are rebuilt from the stored positions
        (:func:`~tealeaves.multilingual.reference.index_corpus`), so the features equal those fitted
        on the texts that were indexed.

        Parameters
        ----------
        poor : Corpus or ReferenceIndex
            The poor reference's English side (the Bible in the paper).
        rich : Corpus or ReferenceIndex
            The rich reference's English side (modern text).

        Returns
        -------
        MeaningDrift
            ``self``, with ``poor_``, ``rich_`` and ``context_vocabulary_`` (the words both
            references hold) set.

        Raises
        ------
        EmptyInputError
            When a reference holds no tokens, or the two share no word.
        TealeavesError
            When a reference is neither a Corpus nor a ReferenceIndex.
        """
        poor, rich = _as_corpus(poor), _as_corpus(rich)
        for name, c in (("poor", poor), ("rich", rich)):
            if len(c) == 0 or c.n_tokens == 0:
                raise EmptyInputError(f"the {name} reference for meaning drift holds no tokens; "
                                      "pass the English side of that reference")
        shared = sorted(set(poor.vocabulary) & set(rich.vocabulary))
        if not shared:
            raise EmptyInputError("the poor and rich references share no word; are both English?")
        self.poor_, self.rich_ = poor, rich
        self.context_vocabulary_ = {w: j for j, w in enumerate(shared)}
        self._cache: dict[str, float | None] = {}
        return self

    def _compute(self, words: Sequence[str]) -> None:
        todo = [w for w in dict.fromkeys(words) if w not in self._cache]
        if not todo:
            return
        a = context_vectors(self.poor_, todo, self.context_vocabulary_, self.window)
        b = context_vectors(self.rich_, todo, self.context_vocabulary_, self.window)
        dot = np.asarray(a.multiply(b).sum(axis=1)).ravel()
        na = np.sqrt(np.asarray(a.multiply(a).sum(axis=1)).ravel())
        nb = np.sqrt(np.asarray(b.multiply(b).sum(axis=1)).ravel())
        for i, w in enumerate(todo):
            self._cache[w] = float(dot[i] / (na[i] * nb[i])) if na[i] > 0 and nb[i] > 0 else None

    def similarity(self, words: Sequence[str]) -> np.ndarray:
        """Cosine per word (``missing_value`` for words missing from either reference).

        Parameters
        ----------
        words : sequence of str
            English words.

        Returns
        -------
        numpy.ndarray
            One cosine per word, in the order given.
        """
        self._compute(words)
        return np.array([self._cache[w] if self._cache[w] is not None else self.missing_value
                         for w in words], dtype=float)

    @shared_doc
    def features(self, words: Sequence[str]) -> tuple[float, float, int]:
        """(mean, population standard deviation, number of missing words) over ``words``.

        The values are :meth:`similarity`; a word is missing from either reference, or has an
        all-zero context vector.

        Parameters: %(english_words)s

        Returns: %(returns_word_stats)s

        Raises: %(raises_empty_words)s
        """
        return english_word_stats(words, "meaning drift", self.similarity,
                                  lambda ws: sum(self._cache[w] is None for w in ws))
