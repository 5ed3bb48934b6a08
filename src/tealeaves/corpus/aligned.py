"""Aligned multilingual corpora: tuples of comparable documents, one per language.

An :class:`AlignedCorpus` holds ``n_tuples`` tuples, each with one shared id
(e.g. the Bible chapter ``"GEN 1"`` or a FLORES document id) and at most one
document per language.  Every language keeps its own
:class:`~tealeaves.corpus.Corpus` over its own vocabulary, indexed by the *same*
tuple positions; a language missing from a tuple has an empty document there and
``present[lang][t]`` is ``False``.  Languages are named by the ISO 639-1 style
codes of :func:`language_code` (``en``, ``sv``, ``zh``, ``bg``...).
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves.corpus.corpus import Corpus
from tealeaves.corpus.preprocess import LETTERS_PATTERN, Preprocessor, check_segmented, letter_counts
from tealeaves.errors import EmptyInputError, InputFormatError, LanguageMismatchError, UnknownLanguageError

#: Canonical language codes (ISO 639-1 style) and their names: the languages tealeaves' own data
#: sets hold (``LANGUAGES`` is the deprecated old name of this table).
LANGUAGE_NAMES: dict[str, str] = {
    "en": "English",
    "ro": "Romanian",
    "sv": "Swedish",
    "am": "Amharic",
    "tl": "Tagalog/Filipino",
    "tr": "Turkish",
    "zh": "Chinese",
}

#: Every accepted spelling (lowercased) -> canonical code.  ISO 639-2/3 codes,
#: FLORES-200 ``xxx_Scrp`` codes, NTREX ``xxx-REGION`` codes and the file-name
#: prefixes of the eBible and UDHR files used by tealeaves.
LANGUAGE_ALIASES: dict[str, str] = {
    **{code: code for code in LANGUAGE_NAMES},
    "eng": "en", "eng_latn": "en", "eng-us": "en", "eng-gb": "en", "en-us": "en", "en-gb": "en",
    "ron": "ro", "rum": "ro", "ron_latn": "ro", "mo": "ro",
    "swe": "sv", "swe_latn": "sv",
    "amh": "am", "amh_ethi": "am",
    "tgl": "tl", "tgl_latn": "tl", "fil": "tl", "fil_latn": "tl",
    "tur": "tr", "tur_latn": "tr",
    "zho": "zh", "chi": "zh", "cmn": "zh", "zho_hans": "zh", "zho-cn": "zh", "cmn_hans": "zh",
    "zh-cn": "zh", "zh-hans": "zh", "zh_hans": "zh",
}


@shared_doc
def normalize_language(code: str) -> str:
    """Map a language code (``eng``, ``eng_Latn``, ``eng-US``, ``fil``, ``zho_Hans``...) to ``en``, ``tl``...

    Traditional-script Chinese (``zho_Hant``, ``zho-TW``) is deliberately not
    mapped to ``zh``: it is a different written corpus.

    Parameters
    ----------
    code : str
        A spelling of :data:`LANGUAGE_ALIASES` (case-insensitive).

    Returns: %(returns_canonical_code)s

    Raises
    ------
    UnknownLanguageError
        For an unknown code, listing the accepted ones.
    """
    key = str(code).strip().lower()
    if key in LANGUAGE_ALIASES:
        return LANGUAGE_ALIASES[key]
    known = ", ".join(sorted(LANGUAGE_ALIASES))
    raise UnknownLanguageError(
        f"unknown language code {code!r}; known codes: {known}",
        fix="add an alias to tealeaves.corpus.aligned.LANGUAGE_ALIASES for another language",
    )


#: The shape of a language code outside :data:`LANGUAGE_ALIASES` that :func:`language_code` accepts:
#: ISO 639-1/639-3 style (2 or 3 ASCII letters), optionally with subtags as Wikipedia names its
#: editions (``zh-yue``, ``be-tarask``).
LANGUAGE_CODE_PATTERN = re.compile(r"[A-Za-z]{2,3}(?:-[A-Za-z]{2,8})*")


@shared_doc
def language_code(code: str) -> str:
    """The language-code rule of every input whose languages the user chooses.

    That is aligned tuples and parallel line files, Wikipedia dumps and langlinks,
    aligned reference folders and multilingual topics: a known spelling normalised
    by :func:`normalize_language` (``eng_Latn`` -> ``en``), any other code of
    :data:`LANGUAGE_CODE_PATTERN` lowercased (``bg``, ``BUL`` -> ``bul``, ``zh-yue``).

    So whatever ``tealeaves index build-aligned`` writes, ``tealeaves cnpmi`` reads, and ``tealeaves
    pltm fit`` fits (:class:`AlignedCorpus`, :class:`~tealeaves.models.polylingual.PolylingualTopicModel`
    use it too).  Codes outside the table are not mapped to each other (``bul`` is not ``bg``) and get
    the default letters-only tokenisation of :func:`default_preprocessor`.  Inputs tied to tealeaves'
    own data sets (the built-in references and corpora, the reproductions) keep :func:`normalize_language`.

    Parameters
    ----------
    code : str
        The code as given.

    Returns: %(returns_canonical_code)s

    Raises
    ------
    UnknownLanguageError
        If ``code`` is not a language code.
    """
    return _language_code(code if isinstance(code, str) else repr(code))


@functools.lru_cache(maxsize=1024)  # it runs for every key of every tuple; bounded for odd inputs
def _language_code(code: str) -> str:
    key = code.strip()
    if key.lower() in LANGUAGE_ALIASES:
        return LANGUAGE_ALIASES[key.lower()]
    if LANGUAGE_CODE_PATTERN.fullmatch(key):
        return key.lower()
    raise UnknownLanguageError(f"{code!r} is not a language code (ISO 639-1/639-3 style: 2 or 3 letters, "
                               "optionally with subtags such as zh-yue)",
                               fix="give e.g. en, bg or swe; known spellings such as eng_Latn are normalised")


#: A token made only of letters (no digits, underscores or symbols).
_LETTERS_ONLY = re.compile(r"^[^\W\d_]+$")


def jieba_tokenize(text: str) -> list[str]:
    """Segment Chinese text with jieba (precise mode, HMM on), keeping letter-only tokens.

    jieba's start-up log is silenced; its segmentation is deterministic for a
    given dictionary, so repeated runs give the same tokens.  Needs the ``zh`` extra.

    Parameters
    ----------
    text : str
        Chinese text.

    Returns
    -------
    list of str
        The letter-only tokens, in order.
    """
    from tealeaves._optional import optional_import

    jieba = optional_import("jieba", "zh", "segmenting Chinese text")
    jieba.setLogLevel(logging.WARNING)
    return [t for t in jieba.lcut(text, cut_all=False, HMM=True) if _LETTERS_ONLY.match(t)]


def default_preprocessor(language: str, max_df: float = 0.3, min_df: int | float = 1) -> Preprocessor:
    """The preprocessing of Hao, Boyd-Graber and Paul (2018, section 4) for one language.

    No stemming and no stop list; digits and symbols are removed (tokens are
    a letter followed by letters or combining marks, :data:`LETTERS_PATTERN`,
    except in Chinese).  Chinese (``zh``) is segmented with :func:`jieba_tokenize`.

    Parameters
    ----------
    language : str
        The language's canonical code.
    max_df : float, default 0.3
        Words in more than this share (30%) of the language's documents are removed.
    min_df : int or float, default 1
        Words in fewer documents (a count, or a fraction when a float) are removed.

    Returns
    -------
    Preprocessor
        An unfitted preprocessor.
    """
    if language == "zh":
        return Preprocessor(stop_words=None, max_df=max_df, min_df=min_df, tokenizer=jieba_tokenize)
    return Preprocessor(token_pattern=LETTERS_PATTERN, stop_words=None, max_df=max_df, min_df=min_df)


def by_language_code(values: Mapping, what: str) -> dict:
    """``values`` keyed by :func:`language_code`; two keys naming one language are refused.

    ``{"en": ..., "eng": ...}`` would otherwise become one language, the second silently replacing the
    first.

    Parameters
    ----------
    values : mapping
        Language (any spelling :func:`language_code` accepts) to value.
    what : str
        What the values are, for the message (``"texts"``).

    Returns
    -------
    dict
        Code to value, in the given order.

    Raises
    ------
    LanguageMismatchError
        When two keys have the same code.
    """
    out, spelled = {}, {}
    for lang, value in values.items():
        code = language_code(lang)
        if code in out:
            raise LanguageMismatchError(f"{what} name one language twice: {spelled[code]!r} and {lang!r} are "
                                        f"both {code!r}", fix="give each language once")
        out[code], spelled[code] = value, lang
    return out


@dataclass(eq=False)
class AlignedCorpus:
    """Document tuples over several languages (see the module docstring).

    Parameters
    ----------
    languages : list of str
        Language codes, in order (each once).
    corpora : dict of str to Corpus
        Per language, a :class:`Corpus` with one (possibly empty) document per
        tuple, ids equal to ``ids``.
    present : dict of str to numpy.ndarray
        Per language, a boolean array: the language has a document in that tuple.
    ids : list of str
        One shared id per tuple.
    labels : list or None, default None
        Optional per-tuple labels.
    metadata : dict, default {}
        Free-form description (e.g. ``preprocessing`` per language).
    preprocessors : dict, default {}
        Per language, the :class:`Preprocessor` that encoded it, if known.

    Raises
    ------
    LanguageMismatchError
        If a language is repeated or lacks a corpus or presence mask.
    InputFormatError
        If a language does not have one entry per tuple, has tokens in absent
        tuples, or the labels do not fit.
    """

    languages: list[str]
    corpora: dict[str, Corpus]
    present: dict[str, np.ndarray]
    ids: list[str]
    labels: list | None = None
    metadata: dict = field(default_factory=dict)
    preprocessors: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.languages = list(self.languages)
        self.ids = [str(i) for i in self.ids]
        self.corpora, self.present = dict(self.corpora), dict(self.present)  # never alias the caller's
        if len(set(self.languages)) != len(self.languages):
            raise LanguageMismatchError(f"languages are repeated: {self.languages}")
        for lang in self.languages:
            if lang not in self.corpora or lang not in self.present:
                raise LanguageMismatchError(
                    f"language {lang!r} has no corpus or presence mask; give both for every language"
                )
            corpus = self.corpora[lang]
            mask = np.asarray(self.present[lang], dtype=bool)
            if len(corpus) != len(self.ids) or len(mask) != len(self.ids):
                raise InputFormatError(
                    f"language {lang!r}: {len(corpus)} documents and {len(mask)} presence flags "
                    f"for {len(self.ids)} tuples; each language needs one entry per tuple"
                )
            if np.any(corpus.lengths[~mask] > 0):
                raise InputFormatError(f"language {lang!r} has tokens in tuples marked absent")
            self.present[lang] = mask
        if self.labels is not None and len(self.labels) != len(self.ids):
            raise InputFormatError("labels must have one entry per tuple")

    # -- construction -------------------------------------------------------
    @classmethod
    def from_texts(
        cls,
        texts: Mapping[str, Sequence[str | None]],
        ids: Sequence[str],
        preprocessors: Mapping[str, Preprocessor] | None = None,
        labels: Sequence | None = None,
        fit: bool = True,
    ) -> AlignedCorpus:
        """Build an aligned corpus from raw texts, ``None`` marking a missing document.

        Parameters
        ----------
        texts : mapping of str to sequence of str or None
            Per language (any spelling :func:`language_code` accepts), one text or
            ``None`` per tuple.
        ids : sequence of str
            One id per tuple.
        preprocessors : mapping of str to Preprocessor or None, default None
            Each language's :class:`Preprocessor` (default: :func:`default_preprocessor`).
        labels : sequence or None, default None
            One label per tuple.
        fit : bool, default True
            With True each preprocessor is fitted on that language's present texts
            (and the text is checked to be segmented); with False they must be fitted
            already (e.g. to encode held-out tuples over the training vocabularies).

        Returns
        -------
        AlignedCorpus
            The encoded tuples, with ``metadata["preprocessing"]`` per language.

        Raises
        ------
        EmptyInputError
            If no language is given or a language has no document.
        LanguageMismatchError
            If a preprocessor is given for a language without texts, or two keys spell one language
            (``en`` and ``eng``).
        InputFormatError
            If a language's number of texts differs from the number of ids.
        UnsegmentedTextError
            If a fitted language's text looks unsegmented.
        """
        texts = by_language_code(texts, "texts")
        languages = list(texts)
        if not languages:
            raise EmptyInputError("no languages given; pass texts as {language: [text or None, ...]}")
        preprocessors = by_language_code(preprocessors or {}, "preprocessors")
        unknown = sorted(set(preprocessors) - set(languages))
        if unknown:
            raise LanguageMismatchError(
                f"preprocessors given for {unknown}, which have no texts (languages: {languages})"
            )
        corpora, present = {}, {}
        for lang in languages:
            docs = list(texts[lang])
            if len(docs) != len(ids):
                raise InputFormatError(f"language {lang!r} has {len(docs)} texts for {len(ids)} tuple ids")
            mask = np.array([d is not None for d in docs], dtype=bool)
            if not mask.any():
                raise EmptyInputError(f"language {lang!r} has no documents; drop it or supply texts")
            prep = preprocessors.get(lang) or default_preprocessor(lang)
            kept = [d for d in docs if d is not None]
            if fit:
                prep.fit(kept)
            encoded = prep.transform(kept)
            if fit:  # the tokens kept (after max_df pruning) of the side a model is fitted to
                check_segmented(*letter_counts(list(encoded.vocabulary), np.bincount(
                    encoded.tokens, minlength=len(encoded.vocabulary))), f"the {lang} text")
            corpora[lang] = _expand(encoded, mask, ids)
            present[lang] = mask
            preprocessors[lang] = prep
        labels = list(labels) if labels is not None else None
        out = cls(languages, corpora, present, list(ids), labels, preprocessors=preprocessors)
        out.metadata["preprocessing"] = {lang: preprocessors[lang].get_params() for lang in languages}
        return out

    # -- access -------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.ids)

    @property
    def n_tuples(self) -> int:
        return len(self.ids)

    @shared_doc
    def vocabulary(self, lang: str):
        """The vocabulary of language ``lang``.

        Parameters: %(aligned_lang)s

        Returns
        -------
        Vocabulary
            Its vocabulary.

        Raises: %(raises_lang_missing)s
        """
        return self.corpora[self._check_language(lang)].vocabulary

    def n_tokens(self, lang: str | None = None) -> int:
        """Tokens of one language, or of all languages.

        Parameters
        ----------
        lang : str or None, default None
            A language of the corpus; None counts all.

        Returns
        -------
        int
            The number of tokens.
        """
        langs = [self._check_language(lang)] if lang else self.languages
        return int(sum(self.corpora[x].n_tokens for x in langs))

    def _check_language(self, lang: str) -> str:
        if lang not in self.corpora:
            raise LanguageMismatchError(
                f"language {lang!r} is not in this aligned corpus; it has {self.languages}"
            )
        return lang

    @shared_doc
    def language(self, lang: str) -> Corpus:
        """The documents of ``lang`` present in some tuple, as a monolingual corpus.

        Parameters: %(aligned_lang)s

        Returns
        -------
        Corpus
            Its present documents, with the tuples' labels.

        Raises: %(raises_lang_missing)s
        """
        self._check_language(lang)
        idx = np.flatnonzero(self.present[lang])
        sub = self.corpora[lang].subset(idx)
        if self.labels is not None:
            sub.labels = [self.labels[i] for i in idx]
        return sub

    def subset(self, indices: Sequence[int] | np.ndarray) -> AlignedCorpus:
        """A new aligned corpus holding the given tuples, in the given order.

        Parameters
        ----------
        indices : sequence of int or numpy.ndarray
            Tuple indices.

        Returns
        -------
        AlignedCorpus
            The tuples, with the same languages, metadata and preprocessors.
        """
        idx = np.asarray(indices, dtype=np.int64)
        return AlignedCorpus(
            self.languages,
            {lang: self.corpora[lang].subset(idx) for lang in self.languages},
            {lang: self.present[lang][idx] for lang in self.languages},
            [self.ids[i] for i in idx],
            [self.labels[i] for i in idx] if self.labels is not None else None,
            dict(self.metadata),
            self.preprocessors,
        )

    def select_languages(self, languages: Sequence[str]) -> AlignedCorpus:
        """Keep only ``languages`` (tuples left with no document are kept, all absent).

        Parameters
        ----------
        languages : sequence of str
            Languages of the corpus, in the order wanted.

        Returns
        -------
        AlignedCorpus
            The same tuples over those languages.

        Raises
        ------
        LanguageMismatchError
            If a language is not in the corpus.
        """
        langs = [self._check_language(x) for x in languages]
        return AlignedCorpus(
            langs,
            {x: self.corpora[x] for x in langs},
            {x: self.present[x] for x in langs},
            self.ids,
            self.labels,
            dict(self.metadata),
            {x: self.preprocessors[x] for x in langs if x in self.preprocessors},
        )

    def pairs(self, l1: str, l2: str) -> AlignedCorpus:
        """The tuples holding a document in both ``l1`` and ``l2``, restricted to those languages.

        Parameters
        ----------
        l1 : str
            The first language.
        l2 : str
            The second language.

        Returns
        -------
        AlignedCorpus
            The tuples with both, over ``[l1, l2]``.
        """
        both = self.present[self._check_language(l1)] & self.present[self._check_language(l2)]
        return self.select_languages([l1, l2]).subset(np.flatnonzero(both))

    def drop_empty(self) -> AlignedCorpus:
        """Drop tuples with no tokens in any language (e.g. after vocabulary pruning).

        Returns
        -------
        AlignedCorpus
            The tuples with at least one token.
        """
        keep = np.zeros(len(self), dtype=bool)
        for lang in self.languages:
            keep |= self.corpora[lang].lengths > 0
        return self.subset(np.flatnonzero(keep))

    def require_nonempty(self, what: str = "aligned corpus") -> None:
        """Raise :class:`EmptyInputError` if there are no tuples or no tokens at all.

        Parameters
        ----------
        what : str, default "aligned corpus"
            What the messages call the corpus (e.g. ``"PLTM training corpus"``).

        Raises
        ------
        EmptyInputError
            If there is no tuple or no token.
        """
        if len(self) == 0:
            raise EmptyInputError(f"the {what} has no tuples; check the reader and the language filter")
        if self.n_tokens() == 0:
            raise EmptyInputError(f"the {what} has {len(self)} tuples but no tokens; check preprocessing")

    def __repr__(self) -> str:
        parts = ", ".join(f"{x}: {int(self.present[x].sum())} docs" for x in self.languages)
        return f"AlignedCorpus({len(self)} tuples; {parts})"


def _expand(encoded: Corpus, mask: np.ndarray, ids: Sequence[str]) -> Corpus:
    """Spread the documents of ``encoded`` over the tuple positions where ``mask`` is True."""
    lengths = np.zeros(len(mask), dtype=np.int64)
    lengths[mask] = encoded.lengths
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    out = Corpus(encoded.vocabulary, encoded.tokens, offsets, [str(i) for i in ids], None, encoded.n_dropped)
    out.metadata = dict(encoded.metadata)
    return out


def __getattr__(name: str) -> object:
    """``LANGUAGES``: the deprecated old name of :data:`LANGUAGE_NAMES` (one ``FutureWarning``)."""
    if name == "LANGUAGES":
        from tealeaves._params import warn_renamed

        warn_renamed("LANGUAGES", "LANGUAGE_NAMES", __name__)
        return LANGUAGE_NAMES
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
