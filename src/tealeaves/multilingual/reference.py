"""Aligned reference corpora for the multilingual measures.

:class:`AlignedReference` wraps the coherence engine's
:class:`~tealeaves.index.AlignedIndex` (one
:class:`~tealeaves.index.ReferenceIndex` per language over a shared
tuple-id space) and answers the two count queries of
:mod:`tealeaves.multilingual.measures`, both through the one counting core
(:mod:`tealeaves.coherence.core`):

* :meth:`cross_counts`: over the tuples holding a document in both ``l1`` and
  ``l2``, each l1 word's and each l2 word's document count and, for every
  (l1 word, l2 word) pair, the tuples whose l1 side holds the first and whose l2
  side holds the second;
* :meth:`mono_counts`: document and co-document counts over one language's
  present documents.

Words the reference lacks get count 0.

Saved aligned reference (a folder)
----------------------------------
The folder's format (``REF/aligned.json``, ``<code>.tlx`` per language, ``tuple_ids.txt``) is
:mod:`tealeaves.index.aligned`'s, which writes (:func:`write_manifest`) and reads
(:func:`~tealeaves.index.aligned.load_aligned_index`) it; :func:`save_aligned_reference` writes
an in-memory :class:`AlignedReference` as such a folder and :func:`load_aligned_reference` loads
one back (checks: the manifest and every index -- checksums, structure, one id space; a path that
is not such a folder raises :class:`~tealeaves.errors.InputFormatError`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tealeaves import _io
from tealeaves._docs import shared_doc
from tealeaves.coherence.core import count_crosslingual, count_documents
from tealeaves.corpus import Corpus
from tealeaves.corpus.aligned import (
    AlignedCorpus,
    LanguageMismatchError,
    default_preprocessor,
    language_code,
)
from tealeaves.errors import EmptyInputError, InputFormatError, TealeavesError
from tealeaves.index import AlignedIndex, ReferenceIndex
from tealeaves.index.aligned import load_aligned_index, write_manifest
from tealeaves.multilingual.names import HAO2018_LANGUAGES, REFERENCES  # noqa: F401 (re-exported here)


@dataclass
class PairCounts:
    """Counts for a len(a) x len(b) block of word pairs: ``n`` units, marginals and joint matrix.

    What :meth:`AlignedReference.cross_counts` and :meth:`AlignedReference.mono_counts` return, and
    what the CNPMI of Hao, Boyd-Graber and Paul (2018) is computed from.

    Parameters
    ----------
    n : int
        The units counted over: tuples having both sides (crosslingual), or the language's
        present documents (monolingual).
    df_a : numpy.ndarray
        Units holding each word of the first list (``len(a)``).
    df_b : numpy.ndarray
        Units holding each word of the second list (``len(b)``).
    joint : numpy.ndarray
        ``(len(a), len(b))`` matrix: units holding both word ``i`` of ``a`` and word ``j`` of ``b``.
    """

    n: int
    df_a: np.ndarray
    df_b: np.ndarray
    joint: np.ndarray


class AlignedReference:
    """Document-level co-occurrence counts over aligned tuples (see module docstring).

    Build it from an :class:`AlignedCorpus` (``AlignedReference(corpus, name)``) or
    wrap an existing :class:`AlignedIndex` with :meth:`from_index`.

    Parameters
    ----------
    corpus : AlignedCorpus or None
        The aligned tuples to index (each language's present documents, in the corpus's tuple-id
        space); kept as ``corpus`` (for :meth:`language_corpus` and the saved tuple ids).  May be
        ``None`` when ``index`` is given.
    name : str, default "aligned"
        The reference's name (in messages and in :attr:`label`).
    index : AlignedIndex, optional
        An existing index to wrap instead of indexing ``corpus``.

    Raises
    ------
    EmptyInputError
        When ``index`` is not given and ``corpus`` is ``None`` or has no tuples.
    """

    def __init__(self, corpus: AlignedCorpus | None, name: str = "aligned", *,
                 index: AlignedIndex | None = None):
        if index is None:
            if corpus is None or len(corpus) == 0:
                raise EmptyInputError(f"reference '{name}' has no tuples; check its reader")
            index = _index_aligned(corpus, name)
        self.index = index
        self.corpus = corpus
        self.name = name
        self.languages = list(index.indices)

    @property
    def label(self) -> str:
        """``name@checksum``: the name plus the first 12 hex digits of a SHA-256 over the
        per-language index checksums (identifies the exact counts, for signatures)."""
        if getattr(self, "_label", None) is None:
            digest = hashlib.sha256()
            for lang in sorted(self.index.indices):
                digest.update(f"{lang}:{self.index.indices[lang].checksum};".encode())
            self._label = f"{self.name}@{digest.hexdigest()[:12]}"
        return self._label

    @classmethod
    def from_index(cls, index: AlignedIndex, name: str = "aligned") -> AlignedReference:
        """Wrap an existing :class:`AlignedIndex` (no corpus kept).

        Parameters
        ----------
        index : AlignedIndex
            One index per language over a shared tuple-id space.
        name : str, default "aligned"
            The reference's name.

        Returns
        -------
        AlignedReference
            The reference over ``index`` (its ``corpus`` is ``None``).
        """
        return cls(None, name, index=index)

    def _lang(self, lang: str) -> str:
        code = language_code(lang)
        if code not in self.languages:
            raise LanguageMismatchError(
                f"the reference '{self.name}' has no {lang!r} side (it has {self.languages}); "
                "use a reference covering the model's languages"
            )
        return code

    def n_pairs(self, l1: str, l2: str) -> int:
        """Tuples with a document in both ``l1`` and ``l2``; raises when there are none.

        Parameters
        ----------
        l1, l2 : str
            The two languages (codes or names, as :func:`~tealeaves.corpus.aligned.language_code`
            reads them).

        Returns
        -------
        int
            The number of tuples holding both an ``l1`` and an ``l2`` document (> 0).

        Raises
        ------
        LanguageMismatchError
            When the reference has no ``l1`` or no ``l2`` side.
        EmptyInputError
            When no tuple holds both (CNPMI needs aligned pairs for the language pair).
        """
        a, b = self._lang(l1), self._lang(l2)
        n = int((self.index.present(a) & self.index.present(b)).sum())
        if n == 0:
            raise EmptyInputError(
                f"the reference '{self.name}' has no tuple holding both a {l1} and a {l2} document; "
                "CNPMI needs aligned pairs for this language pair"
            )
        return n

    def cross_counts(self, l1: str, words1: Sequence[str], l2: str, words2: Sequence[str]) -> PairCounts:
        """Crosslingual counts over the tuples having both sides (Hao, Boyd-Graber and Paul 2018, eq. 3).

        The counts CNPMI is computed from, through
        :func:`~tealeaves.coherence.core.count_crosslingual`; words the reference lacks get count 0.

        Parameters
        ----------
        l1 : str
            The language of ``words1``.
        words1 : sequence of str
            The l1 words.
        l2 : str
            The language of ``words2``.
        words2 : sequence of str
            The l2 words.

        Returns
        -------
        PairCounts
            ``n``: tuples having both an l1 and an l2 document; ``df_a`` / ``df_b``: such tuples
            holding each l1 / l2 word; ``joint[i, j]``: such tuples whose l1 side holds
            ``words1[i]`` and whose l2 side holds ``words2[j]``.

        Raises
        ------
        LanguageMismatchError
            When the reference has no ``l1`` or no ``l2`` side.
        EmptyInputError
            When no tuple holds both an ``l1`` and an ``l2`` document.
        """
        n = self.n_pairs(l1, l2)
        c = count_crosslingual(self.index, self._lang(l1), list(words1), self._lang(l2), list(words2))
        joint = c.joint.reshape(len(words1), len(words2))
        return PairCounts(n, np.asarray(c.single), np.asarray(c.single_right), joint)

    def mono_counts(self, lang: str, words: Sequence[str]) -> PairCounts:
        """Monolingual document counts over ``lang``'s present documents (all ordered pairs).

        Parameters
        ----------
        lang : str
            The language.
        words : sequence of str
            The words (0 counts for words the reference lacks).

        Returns
        -------
        PairCounts
            ``n``: ``lang``'s present documents; ``df_a`` and ``df_b`` (the same array): each
            word's document count; ``joint``: the symmetric ``(k, k)`` co-document counts, with each
            word's document count on the diagonal.

        Raises
        ------
        LanguageMismatchError
            When the reference has no ``lang`` side.
        EmptyInputError
            When the reference has no ``lang`` document.
        """
        ix = self.index.indices[self._lang(lang)]
        if ix.n_present == 0:
            raise EmptyInputError(f"the reference '{self.name}' has no {lang} document")
        ids = [ix.word_id(w) for w in words]
        known = [i for i, w in enumerate(ids) if w is not None]
        k = len(words)
        df = np.zeros(k, dtype=np.int64)
        joint = np.zeros((k, k), dtype=np.int64)
        if known:
            pairs = [(a, b) for a in range(len(known)) for b in range(len(known)) if a < b]
            c = count_documents(ix, [ids[i] for i in known], pairs if pairs else np.zeros((0, 2)))
            kn = np.asarray(known)
            df[kn] = c.single
            if len(pairs):
                p = np.asarray(pairs)
                joint[kn[p[:, 0]], kn[p[:, 1]]] = c.joint
                joint[kn[p[:, 1]], kn[p[:, 0]]] = c.joint
            joint[kn, kn] = c.single
        return PairCounts(ix.n_present, df, df, joint)

    def language_corpus(self, lang: str) -> Corpus:
        """``lang``'s present documents as a token corpus: the texts' corpus when the reference was built
        in memory, else rebuilt from the index's positions (:func:`index_corpus`; identical tokens).

        Parameters
        ----------
        lang : str
            The language.

        Returns
        -------
        Corpus
            ``lang``'s present documents.

        Raises
        ------
        LanguageMismatchError
            When the reference has no ``lang`` side.
        InputFormatError
            When the documents must be rebuilt from a restricted index (see :func:`index_corpus`).
        """
        code = self._lang(lang)
        if self.corpus is not None:
            return self.corpus.language(code)
        return index_corpus(self.index.indices[code])

    def df(self, lang: str, words: Sequence[str]) -> np.ndarray:
        """Document frequency of each word on ``lang``'s side (0 for words it lacks).

        Parameters
        ----------
        lang : str
            The language.
        words : sequence of str
            The words.

        Returns
        -------
        numpy.ndarray
            ``int64`` document frequencies, one per word.

        Raises
        ------
        LanguageMismatchError
            When the reference has no ``lang`` side.
        """
        ix = self.index.indices[self._lang(lang)]
        return np.array([0 if (w := ix.word_id(x)) is None else ix.document_frequency(w) for x in words],
                        dtype=np.int64)


def index_corpus(index: ReferenceIndex, block: int = 1 << 22) -> Corpus:
    """Every held document's token sequence rebuilt from an index (documents in slot order).

    The index stores, for every word, its postings and each posting's sorted positions, so token
    ``p`` of document ``d`` is the word whose positions in ``d`` include ``p``; positions are written a
    block of about ``block`` of them at a time.  Refused (:class:`~tealeaves.errors.InputFormatError`)
    when the index does not hold every token's position (a restricted index), since the sequence
    could not be rebuilt.

    Parameters
    ----------
    index : ReferenceIndex
        The index (one language's side of an aligned reference, or any reference index).
    block : int, default 1 << 22
        About how many positions are written at a time (bounds the working memory).

    Returns
    -------
    Corpus
        The held documents (absent slots skipped), with the index's vocabulary, document ids,
        tokenization (as ``preprocessing``) and name in its metadata.

    Raises
    ------
    InputFormatError
        When the index is restricted (fewer positions than tokens), or leaves token positions
        without a word.
    """
    a = index.arrays
    word_ptr, post_docs = np.asarray(a["word_ptr"]), np.asarray(a["post_docs"])
    pos_ptr, positions = np.asarray(a["pos_ptr"]), np.asarray(a["positions"])
    present = np.asarray(a["present"]).astype(bool)
    lengths = np.asarray(a["doc_lengths"], dtype=np.int64)
    start = np.zeros(len(lengths), dtype=np.int64)
    np.cumsum(lengths[:-1], out=start[1:])  # absent slots have length 0
    n_tokens = int(lengths.sum())
    if len(positions) != n_tokens:
        raise InputFormatError(f"index '{index.name}' holds {len(positions):,} positions for {n_tokens:,} "
                               "tokens (a restricted index), so its documents cannot be rebuilt",
                               fix="build the reference with every word (tealeaves index build-aligned)")
    tokens = np.full(n_tokens, -1, dtype=np.int32)  # word ids (Corpus keeps int32 tokens)
    word_of_posting = np.repeat(np.arange(len(word_ptr) - 1, dtype=np.int64), np.diff(word_ptr))
    g0 = 0
    while g0 < len(post_docs):  # postings g0..g1 cover at most ~block positions (or one posting)
        g1 = max(g0 + 1, int(np.searchsorted(pos_ptr, pos_ptr[g0] + block, side="right")) - 1)
        g1 = min(g1, len(post_docs))
        counts = np.diff(pos_ptr[g0:g1 + 1])
        at = np.repeat(start[post_docs[g0:g1]], counts) + positions[pos_ptr[g0]:pos_ptr[g1]]
        tokens[at] = np.repeat(word_of_posting[g0:g1], counts)
        g0 = g1
    if n_tokens and tokens.min() < 0:
        raise InputFormatError(f"index '{index.name}' leaves token positions without a word",
                               fix="rebuild the reference (tealeaves index build-aligned)")
    offsets = np.zeros(int(present.sum()) + 1, dtype=np.int64)
    np.cumsum(lengths[present], out=offsets[1:])
    return Corpus(vocabulary=index.vocabulary, tokens=tokens, offsets=offsets,
                  ids=index.document_ids, metadata={"preprocessing": index.tokenization, "name": index.name})


def _index_aligned(corpus: AlignedCorpus, name: str) -> AlignedIndex:
    """Index each language's present documents in the corpus's tuple-id space."""
    corpora, slots = {}, {}
    for lang in corpus.languages:
        where = np.flatnonzero(corpus.present[lang])
        corpora[lang] = corpus.corpora[lang].subset(where)
        slots[lang] = where
    return AlignedIndex.from_corpora(corpora, slots, n_tuples=len(corpus), name=name)


def reference_from_texts(texts, name: str) -> AlignedReference:
    """Tokenise :class:`~tealeaves.corpus.parallel.ParallelTexts` like training data (the
    per-language :func:`~tealeaves.corpus.aligned.default_preprocessor`) but without frequency
    pruning, and wrap the result as a reference.

    Parameters
    ----------
    texts : ParallelTexts
        The aligned texts.
    name : str
        The reference's name.

    Returns
    -------
    AlignedReference
        The reference built in memory (its ``corpus`` kept).
    """
    corpus = texts.to_aligned({x: default_preprocessor(x, max_df=1.0) for x in texts.languages})
    return AlignedReference(corpus, name)


def named_reference(name: str, languages: Sequence[str]) -> AlignedReference:
    """A reference from ``$TEALEAVES_DATA``: ``bible`` (chapters, fullest text per language),
    ``flores``, ``ntrex``, ``tico19`` or ``udhr`` documents, in ``languages``.

    Parameters
    ----------
    name : str
        The built-in reference (one of :data:`REFERENCES`).
    languages : sequence of str
        The languages to include (codes or names, read as the topics they are to score).

    Returns
    -------
    AlignedReference
        The reference, named ``<name>-<code>-<code>...``.

    Raises
    ------
    LanguageMismatchError
        When a language is not one of tealeaves' own (the built-in references hold no other), or
        (``bible``) has no Bible text.
    TealeavesError
        When ``name`` is not a built-in reference.
    """
    from tealeaves.corpus import parallel
    from tealeaves.corpus.aligned import LANGUAGE_NAMES as KNOWN  # (names.HAO2018_LANGUAGES omits en)

    langs = [language_code(x) for x in languages]  # the rule of the topics they are to score
    other = [x for x, code in zip(languages, langs) if code not in KNOWN]
    if other:  # a well-formed code (bg, sv-se) tealeaves' own data sets do not hold
        raise LanguageMismatchError(
            f"the built-in reference {name!r} has no text in {', '.join(map(repr, other))}: the built-in "
            f"references hold only tealeaves' own languages ({', '.join(KNOWN)})",
            fix="build an aligned reference from your own texts (tealeaves index build-aligned TUPLES.jsonl "
                "-o REF) and give its folder as the reference")
    if name == "bible":
        missing = [x for x in langs if x not in parallel.BIBLE_TEXTS_FULL]
        if missing:
            raise LanguageMismatchError(f"no Bible text for {missing}; "
                                        f"available: {sorted(parallel.BIBLE_TEXTS_FULL)}")
        texts = parallel.bible_chapters({x: parallel.BIBLE_TEXTS_FULL[x] for x in langs})
    else:
        readers = {"flores": parallel.flores_documents, "ntrex": parallel.ntrex_documents,
                   "tico19": parallel.tico19_documents, "udhr": parallel.udhr_articles}
        if name not in readers:
            raise TealeavesError(f"unknown reference {name!r}", fix=f"use one of {', '.join(REFERENCES)}")
        texts = readers[name](langs)
    return reference_from_texts(texts, f"{name}-{'-'.join(langs)}")


def resolve_reference(spec, languages: Sequence[str]) -> AlignedReference:
    """The one way every multilingual measure gets its reference: an :class:`AlignedReference`
    as is; a built-in name (:data:`REFERENCES`, built by :func:`named_reference`); otherwise
    the path of a saved aligned reference folder (:func:`load_aligned_reference`).  A built-in name
    wins over a folder of the same name (write ``./bible`` for the folder).  The reference must
    have a side in each of ``languages``.

    Parameters
    ----------
    spec : AlignedReference, str or os.PathLike
        The reference, a built-in name, or a saved aligned reference folder.
    languages : sequence of str
        The languages the reference must cover.

    Returns
    -------
    AlignedReference
        The reference.

    Raises
    ------
    LanguageMismatchError
        When the reference has no side in one of ``languages``.
    TealeavesError
        When ``spec`` is none of the three kinds.
    InputFormatError
        When a path is not a saved aligned reference folder.
    """
    if isinstance(spec, AlignedReference):
        ref = spec
    elif isinstance(spec, str) and spec in REFERENCES:
        return named_reference(spec, languages)
    elif isinstance(spec, (str, os.PathLike)):
        ref = load_aligned_reference(spec)
    else:
        raise TealeavesError(f"a reference is an AlignedReference, a built-in name or a folder path, got "
                             f"{type(spec).__name__}", fix=f"use one of {', '.join(REFERENCES)} or a path")
    for lang in languages:
        ref._lang(lang)
    return ref


# -- saved aligned references --------------------------------------------------------
@shared_doc
def save_aligned_reference(reference, folder: str | os.PathLike[str]) -> Path:
    """Write an in-memory :class:`AlignedReference` (e.g. a built-in
    one) as a folder (module docstring); ``tealeaves index build-aligned`` writes the same folder from
    files (:mod:`tealeaves.index.aligned`).

    Parameters
    ----------
    reference : AlignedReference
        The reference to write (its tuple ids: the corpus's, else ``0 .. n_tuples - 1``).
    folder : str or os.PathLike
        The folder to write (created with its parents if missing).

    Returns: %(returns_folder)s

    Raises: %(raises_folder_is_file)s
    """
    folder = _io.folder_path(folder, fix="give a new folder name with -o")
    with _io.output_folder(folder):  # a failed write leaves no partial new folder
        files = {}
        for lang, ix in reference.index.indices.items():
            files[lang] = f"{lang}.tlx"
            ix.save(folder / files[lang])
        ids = reference.corpus.ids if reference.corpus is not None else [str(i) for i in range(
            reference.index.n_tuples)]
        _io.write_text(folder / "tuple_ids.txt", "".join(f"{i}\n" for i in ids), what="tuple id file")
        write_manifest(folder, reference.name, reference.index.n_tuples, files)
    return folder


def load_aligned_reference(path: str | os.PathLike[str], verify: bool = True) -> AlignedReference:
    """Load a saved aligned reference folder as an :class:`AlignedReference`.

    Parameters
    ----------
    path, verify
        As in :func:`tealeaves.index.aligned.load_aligned_index`, which reads and checks the folder
        (its format: module docstring).

    Returns
    -------
    AlignedReference
        The reference, named as its manifest says (else after the folder).
    """
    index, name = load_aligned_index(path, verify)
    return AlignedReference.from_index(index, name)
