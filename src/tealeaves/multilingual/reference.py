"""Aligned reference corpora for the multilingual measures.

:class:`AlignedReference` answers the count queries of
:mod:`tealeaves.multilingual.measures` over an
:class:`~tealeaves.corpus.aligned.AlignedCorpus` (tuples of parallel or
comparable documents sharing one tuple id):

* ``n_pairs(l1, l2)``: tuples holding a document in both languages;
* ``pair_df(l1, ids, l2)``: documents of l1 containing each word, among those tuples;
* ``pair_codf(l1, ids1, l2, ids2)``: tuples whose l1 side contains ``ids1[i]`` and
  whose l2 side contains ``ids2[j]``;
* ``n_documents(lang)``, ``df(lang, ids)``, ``codf(lang, ids)``: the monolingual counts
  over one language's present documents.

Word ids are the reference's own per-language vocabulary ids; a word it lacks
has id -1 and count 0.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tealeaves.corpus.aligned import AlignedCorpus, LanguageMismatchError, normalize_language
from tealeaves.errors import EmptyInputError


class AlignedReference:
    """Document-level co-occurrence counts over an aligned corpus (see module docstring)."""

    def __init__(self, corpus: AlignedCorpus, name: str = "aligned"):
        if len(corpus) == 0:
            raise EmptyInputError(f"reference '{name}' has no tuples; check its reader")
        self.corpus = corpus
        self.name = name
        self.languages = list(corpus.languages)
        self._index = _build_index(corpus)

    def _lang(self, lang: str) -> str:
        code = normalize_language(lang)
        if code not in self.languages:
            raise LanguageMismatchError(
                f"the reference '{self.name}' has no {lang!r} side (it has {self.languages}); "
                "use a reference covering the model's languages"
            )
        return code

    def word_ids(self, lang: str, words: Sequence[str]) -> np.ndarray:
        """Vocabulary ids of ``words`` on ``lang``'s side (-1 for words the reference lacks)."""
        vocab = self.corpus.vocabulary(self._lang(lang))
        index = vocab.index
        return np.array([index.get(w, -1) for w in words], dtype=np.int64)

    def n_pairs(self, l1: str, l2: str) -> int:
        """Tuples with a document in both ``l1`` and ``l2``; raises when there are none."""
        n = self._index.n_both(self._lang(l1), self._lang(l2))
        if n == 0:
            raise EmptyInputError(
                f"the reference '{self.name}' has no tuple holding both a {l1} and a {l2} document; "
                "CNPMI needs aligned pairs for this language pair"
            )
        return n

    def pair_df(self, l1: str, ids: np.ndarray, l2: str) -> np.ndarray:
        return self._index.pair_df(self._lang(l1), ids, self._lang(l2))

    def pair_codf(self, l1: str, ids1: np.ndarray, l2: str, ids2: np.ndarray) -> np.ndarray:
        return self._index.pair_codf(self._lang(l1), ids1, self._lang(l2), ids2)

    def n_documents(self, lang: str) -> int:
        n = int(self.corpus.present[self._lang(lang)].sum())
        if n == 0:
            raise EmptyInputError(f"the reference '{self.name}' has no {lang} document")
        return n

    def df(self, lang: str, ids: np.ndarray) -> np.ndarray:
        return self._index.df(self._lang(lang), ids)

    def codf(self, lang: str, ids: np.ndarray) -> np.ndarray:
        return self._index.codf(self._lang(lang), ids)


def _build_index(corpus: AlignedCorpus):
    """The counting core's aligned index over ``corpus`` (placeholder until it lands)."""
    return _IncidenceIndex(corpus)


class _IncidenceIndex:
    """Temporary: binary tuple x word incidence per language (to be replaced by the core)."""

    def __init__(self, corpus: AlignedCorpus):
        self.present = {x: corpus.present[x] for x in corpus.languages}
        self.inc = {}
        for x in corpus.languages:
            m = corpus.corpora[x].counts.tocsc(copy=True)
            m.data[:] = 1
            self.inc[x] = m

    def _cols(self, lang, ids, rows=None):
        ids = np.asarray(ids, dtype=np.int64)
        m = self.inc[lang]
        if rows is not None:
            m = m[rows]
        out = m[:, np.where(ids >= 0, ids, 0)].toarray().astype(np.int64)
        out[:, ids < 0] = 0
        return out

    def n_both(self, l1, l2):
        return int((self.present[l1] & self.present[l2]).sum())

    def pair_df(self, l1, ids, l2):
        return self._cols(l1, ids, self.present[l1] & self.present[l2]).sum(axis=0)

    def pair_codf(self, l1, ids1, l2, ids2):
        both = self.present[l1] & self.present[l2]
        return self._cols(l1, ids1, both).T @ self._cols(l2, ids2, both)

    def df(self, lang, ids):
        return self._cols(lang, ids).sum(axis=0)

    def codf(self, lang, ids):
        a = self._cols(lang, ids)
        return a.T @ a
