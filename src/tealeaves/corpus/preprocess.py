"""A preprocessing recipe fitted on training documents and applied to others.

The recipe records every setting (see :meth:`Preprocessor.get_params`) so a
run can be repeated exactly, and its vocabulary is fixed by ``fit``: test
documents are encoded over the training vocabulary, their unknown words
dropped and counted.  :meth:`Preprocessor.from_params` rebuilds a recipe from
its recorded settings (e.g. a model's ``metadata_["preprocessing"]``) and, given
a vocabulary, applies it over that vocabulary, so raw test text is tokenised
exactly as the training text was.
"""

from __future__ import annotations

import importlib
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from itertools import chain

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves._params import naming
from tealeaves.corpus._marks import BMP_MARKS, MARK_PATTERN
from tealeaves.corpus.corpus import Corpus
from tealeaves.corpus.params import MAX_DF, MAX_FEATURES, MIN_DF, MIN_LENGTH, STOP_LISTS, TOKEN_PATTERN
from tealeaves.corpus.vocabulary import Vocabulary
from tealeaves.errors import EmptyInputError, InputFormatError, ParameterError, UnsegmentedTextError

#: The default token pattern: words of a letter followed by one or more letters or combining marks
#: (:data:`~tealeaves.corpus._marks.MARK_PATTERN`: vowel signs, viramas, tone marks), so that the words of
#: Devanagari, Bengali, Tamil, Thai, Khmer... stay whole; no digits or underscores.  A word is a maximal
#: run of word characters (``\\w``) and the marks attached to them; a mark is attached when it follows a
#: letter or an attached mark.  A mark that follows anything else (a digit, ``_``, a space or punctuation,
#: the start of the text) is dropped and separates words, as every mark did before: ``"1\u0301ab"`` gives
#: ``ab``, while ``"ab\u0301c1"`` is one word holding a digit and gives nothing.  The capture group is the
#: token (:func:`re.findall` returns it); the unattached marks before it are matched but not kept.
LETTERS_PATTERN = (rf"(?u)(?:(?<![\w{BMP_MARKS}])(?<!{MARK_PATTERN})"  # after no word character or mark,
                   rf"|(?<![^\W\d_])(?<!{MARK_PATTERN}){MARK_PATTERN}+)"  # or after unattached marks
                   rf"([^\W\d_](?:[^\W\d_]|{MARK_PATTERN})+)"  # a letter, then letters and marks
                   rf"(?![\w{BMP_MARKS}])(?!{MARK_PATTERN})")  # up to no word character or mark

#: The default token pattern of tealeaves before combining marks were kept: words of two or more letters,
#: split at every combining mark (an index or model recording it is flagged as another tokenisation than
#: one recording :data:`LETTERS_PATTERN`; it still tokenises as it did).
LETTERS_ONLY_PATTERN = r"(?u)\b[^\W\d_][^\W\d_]+\b"

#: Token patterns whose matches hold only word characters (``\\w``), so that a line break between two
#: texts can neither join their tokens nor change a match (:meth:`Preprocessor.scan` runs them over many
#: texts joined).
WORD_PATTERNS = (LETTERS_ONLY_PATTERN, r"(?u)\b\w\w+\b")

#: Short names of the known token patterns, used in messages instead of the patterns themselves.
PATTERN_NAMES = {LETTERS_PATTERN: "the default letters-and-marks pattern",
                 LETTERS_ONLY_PATTERN: "the letters-only pattern used before combining marks were kept"}


def pattern_name(value: object) -> str | None:
    """The short name (:data:`PATTERN_NAMES`) of a known token pattern, else None.

    The default pattern is some 5,000 characters: messages and listings name it instead.

    Parameters
    ----------
    value : object
        A token pattern, or any other value.

    Returns
    -------
    str or None
        Its short name, or None when it is not a known pattern.
    """
    return PATTERN_NAMES.get(value) if isinstance(value, str) else None

#: The separator word :meth:`Preprocessor.scan` puts between texts (upper case: lowercased text never
#: holds it; a text that does makes the scan pick another).
SEPARATOR = "QXSEPQX"

#: Tokenizers a recorded recipe may name (``get_params()["tokenizer"]``), as ``module:function``.
KNOWN_TOKENIZERS = {"jieba_tokenize": "tealeaves.corpus.aligned:jieba_tokenize"}

#: The settings :meth:`Preprocessor.get_params` always records.
RECIPE_KEYS = ("token_pattern", "lowercase", "stop_words", "min_df", "max_df", "max_features")
#: The settings it records only when they are not their default (so that a recipe recorded before they
#: existed reads as what it did): ``tokenizer`` when one is set, ``min_length`` when not 1.
OPTIONAL_KEYS = ("tokenizer", "min_length")

#: A token of more than this many letters is over-long (:func:`check_segmented`; a wide character, East
#: Asian Width W or F such as a Chinese or Japanese one, counts as 2 letters).
LONG_TOKEN = 15
#: The largest share of a text's letters in over-long tokens that :func:`check_segmented` accepts.  Both
#: are chosen from real text (``docs/errors.md#unsegmented-text``): spaced languages put at most 3.5% of
#: their letters in over-long tokens (11.8% in compound-heavy Finnish software messages), Chinese and
#: Japanese text without spaces 44.5-85.1% under the default tokenisation.
UNSEGMENTED_SHARE = 0.25


@dataclass
class Preprocessor:
    """Tokenise, lowercase, remove stop words and prune rare/common words.

    Parameters
    ----------
    token_pattern : str, default LETTERS_PATTERN
        Regular expression whose matches are the tokens.
    lowercase : bool, default True
        Lowercase text before matching.
    stop_words : str or sequence of str or None, default "english"
        A list by name (:data:`~tealeaves.corpus.params.STOP_LISTS`: ``"english"``,
        scikit-learn's 318 words), ``None`` (none) or a collection of words (lowercased
        with the text when ``lowercase``).
    min_df : int or float, default 1
        Keep words in at least ``min_df`` training documents; an ``int`` is a
        count (>= 0), a ``float`` a share of the documents (in (0, 1]), as
        scikit-learn's ``CountVectorizer``.
    max_df : int or float, default 1.0
        Keep words in at most ``max_df`` training documents; an ``int`` is a
        count (>= 0), a ``float`` a share (in (0, 1]).
    max_features : int or None, default None
        Keep only the ``max_features`` (>= 1) words with the largest total count in
        the training documents, after the ``min_df``/``max_df`` bounds (as scikit-learn's
        ``CountVectorizer``; ties broken alphabetically).
    tokenizer : callable or None, default None
        Optional callable replacing the regular expression (e.g. a Chinese
        segmenter); recorded by name.
    min_length : int, default 1
        Drop tokens of fewer than ``min_length`` characters (code points), stop words
        aside; 1 keeps every match (the default pattern's words have at least 2 letters).

    Raises
    ------
    ParameterError
        When a setting is out of its declared range (:mod:`tealeaves.corpus.params`): an
        unknown stop-list name, an invalid regular expression or one with more than one
        group or matching the empty string, a negative count, a share outside (0, 1],
        ``min_df`` above ``max_df`` (both counts or both shares), a cap below 1.

    Attributes
    ----------
    vocabulary_ : Vocabulary
        The fitted vocabulary.
    document_frequencies_ : dict of str to int
        The training document frequency of each kept word.
    n_documents_ : int
        The number of training documents.
    """

    token_pattern: str = LETTERS_PATTERN
    lowercase: bool = True
    stop_words: str | Sequence[str] | None = "english"
    min_df: int | float = 1
    max_df: int | float = 1.0
    max_features: int | None = None
    tokenizer: Callable[[str], list[str]] | None = field(default=None, repr=False)
    min_length: int = 1

    def __post_init__(self) -> None:
        _check_settings(self)

    # -- tokenising ---------------------------------------------------------
    def _stop_set(self) -> frozenset[str]:
        if self.stop_words is None:
            return frozenset()
        if isinstance(self.stop_words, str):  # "english", the one known list (checked when constructed)
            # imported here: scikit-learn takes about a second to import, which every
            # command-line start would otherwise pay
            from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

            return frozenset(ENGLISH_STOP_WORDS)
        return frozenset(w.lower() if self.lowercase else w for w in self.stop_words)

    def tokenize(self, text: str) -> list[str]:
        """Split ``text`` into tokens and remove stop words (no vocabulary pruning).

        Parameters
        ----------
        text : str
            One text.

        Returns
        -------
        list of str
            Its tokens, in order.

        """
        if self.lowercase:
            text = text.lower()
        tokens = self.tokenizer(text) if self.tokenizer else re.findall(self.token_pattern, text)
        stop = self._stop_set()
        if self.min_length > 1:
            return [t for t in tokens if len(t) >= self.min_length and t not in stop]
        return [t for t in tokens if t not in stop] if stop else list(tokens)

    def scan(self, texts: Sequence[str]) -> Scan:
        """Tokenise many texts in one pass (the streaming index build's tokeniser).

        ``scan(texts).tokens()`` equals ``[self.tokenize(t) for t in texts]``
        (tested on real text and on adversarial Unicode); the scan numbers its
        candidate words instead of returning a string per token.  The texts are
        lowercased one by one (so context-dependent case mappings such as the
        Greek final sigma see exactly one text).  For :data:`LETTERS_PATTERN`
        the matches are found by a compiled pass over the code points
        (:func:`tealeaves.corpus._scan.letter_runs`, which states why it matches
        the pattern exactly); for scikit-learn's word pattern the texts
        are joined by a separator word on a line of its own and matched in one
        call (their matches never cross a line break); other patterns and
        tokenizers run text by text.  Stop words are left to the caller
        (:attr:`Scan.stop`), to refuse once per distinct word.

        Parameters
        ----------
        texts : sequence of str
            The texts.

        Returns
        -------
        Scan
            The candidate words of every text.
        """
        scan = self._scan(texts)
        if self.min_length > 1:  # a too-short word is left out as a stop word is
            scan.stop = scan.stop | frozenset(w for w in scan.words if len(w) < self.min_length)
        return scan

    def _scan(self, texts: Sequence[str]) -> Scan:
        texts = [t.lower() for t in texts] if self.lowercase else list(texts)
        stop = self._stop_set()
        if self.tokenizer is None and self.token_pattern == LETTERS_PATTERN:
            from tealeaves.corpus._scan import scan_letters

            ids, lengths, words = scan_letters(texts)
            return Scan(words, ids, lengths, stop)
        if self.tokenizer is None and self.token_pattern in WORD_PATTERNS:
            sep = SEPARATOR
            while any(sep in t for t in texts):  # only possible without lowercasing
                sep += "Q"
            found = re.findall(self.token_pattern, f"\n{sep}\n".join(texts))
            if found.count(sep) == len(texts) - 1:  # a match never crosses a line break
                return Scan.number(found, len(texts), sep, stop)
        per_text = [self.tokenizer(t) if self.tokenizer else re.findall(self.token_pattern, t) for t in texts]
        scan = Scan.number(list(chain.from_iterable(per_text)), len(texts), None, stop)
        scan.lengths[:] = [len(t) for t in per_text]
        return scan

    # -- fitting ------------------------------------------------------------
    @shared_doc
    def fit(self, texts: Iterable[str]) -> Preprocessor:
        """Choose the vocabulary from training texts.

        Parameters
        ----------
        texts : iterable of str
            The training texts.

        Returns
        -------
        Preprocessor
            ``self``, fitted.

        Raises: %(raises_nothing_survives)s
        """
        self._fit_tokens([self.tokenize(t) for t in texts])
        return self

    def _fit_tokens(self, docs: list[list[str]]) -> None:
        n = len(docs)
        if n == 0:
            raise EmptyInputError("cannot fit a preprocessor on zero documents")
        df: Counter[str] = Counter()
        tf: Counter[str] = Counter()
        for doc in docs:
            df.update(set(doc))
            tf.update(doc)
        kept = self.prune(n, df, tf)
        self.vocabulary_ = Vocabulary(kept)
        self.document_frequencies_ = {w: df[w] for w in kept}
        self.n_documents_ = n

    def prune(self, n_documents: int, df: Mapping[str, int], tf: Mapping[str, int]) -> list[str]:
        """The sorted vocabulary this recipe keeps from document and term frequencies.

        ``min_df <= df <= max_df`` (fractions of ``n_documents`` when floats), then the
        ``max_features`` most frequent (ties by word).  The one pruning rule, used by
        :meth:`fit` and by the streaming index build's counting pass.

        Parameters
        ----------
        n_documents : int
            The number of training documents.
        df : mapping of str to int
            Each word's document frequency.
        tf : mapping of str to int
            Each word's term frequency.

        Returns
        -------
        list of str
            The kept words, sorted.

        Raises
        ------
        EmptyInputError
            If the documents hold no token, or no word survives (among others because ``min_df``
            is above ``max_df`` once both are counts of these documents).
        """
        lo = self.min_df if isinstance(self.min_df, int) else self.min_df * n_documents
        hi = self.max_df if isinstance(self.max_df, int) else self.max_df * n_documents
        if lo > hi:  # as scikit-learn's CountVectorizer ("max_df corresponds to < documents than min_df")
            raise naming(EmptyInputError(
                f"no word survives `min_df`={self.min_df} and `max_df`={self.max_df} on {n_documents} "
                f"documents: `min_df` is {_count(lo)} documents, above `max_df`'s {_count(hi)}",
                fix="lower `min_df` or raise `max_df` (a count is a whole number, a share a number in "
                    "(0, 1])"),
                "min_df", "max_df")
        if not df:
            raise naming(EmptyInputError(
                f"the {n_documents} documents hold no token: `token_pattern` matches nothing in them"
                + (", or every match is a stop word" if self.stop_words is not None else "")
                + (f" or shorter than `min_length`={self.min_length}" if self.min_length > 1 else ""),
                fix="check the texts and the token pattern"), "token_pattern", "min_length")
        kept = [w for w, c in df.items() if lo <= c <= hi]
        if self.max_features is not None:
            kept.sort(key=lambda w: (-tf[w], w))
            kept = kept[: self.max_features]
        if not kept:
            raise naming(EmptyInputError(
                f"no word survives `min_df`={self.min_df} and `max_df`={self.max_df} on {n_documents} "
                f"documents (of {len(df)} distinct words, each is in {min(df.values())} to "
                f"{max(df.values())} documents)", fix="relax `min_df` and `max_df`"), "min_df", "max_df")
        return sorted(kept)

    @shared_doc
    def transform(
        self,
        texts: Iterable[str],
        ids: Sequence[str] | None = None,
        labels: Sequence | None = None,
    ) -> Corpus:
        """Encode texts over the fitted vocabulary (unknown words dropped, counted).

        Parameters
        ----------
        texts : iterable of str
            The texts.
        %(text_ids)s %(text_labels)s

        Returns: %(returns_encoded)s

        Raises
        ------
        RuntimeError
            If the preprocessor is not fitted.
        """
        self._check_fitted()
        return self._encode((self.tokenize(t) for t in texts), ids, labels)

    @shared_doc
    def fit_transform(
        self,
        texts: Sequence[str],
        ids: Sequence[str] | None = None,
        labels: Sequence | None = None,
    ) -> Corpus:
        """Fit on ``texts`` and encode them.

        Parameters
        ----------
        texts : sequence of str
            The training texts.
        %(text_ids)s %(text_labels)s

        Returns: %(returns_encoded)s

        Raises: %(raises_nothing_survives)s
        """
        docs = [self.tokenize(t) for t in texts]
        self._fit_tokens(docs)
        return self._encode(docs, ids, labels)

    def _encode(self, docs: Iterable[list[str]], ids: Sequence[str] | None, labels: Sequence | None
                ) -> Corpus:
        """Token lists encoded over the fitted vocabulary, ``metadata["preprocessing"]`` recorded."""
        corpus = Corpus.from_token_lists(docs, self.vocabulary_, ids, labels)
        corpus.metadata["preprocessing"] = self.get_params()
        return corpus

    def _check_fitted(self) -> None:
        if not hasattr(self, "vocabulary_"):
            raise RuntimeError("this Preprocessor is not fitted yet; call fit() first")

    @classmethod
    def from_params(cls, params: object, vocabulary: Vocabulary | None = None) -> Preprocessor:
        """Rebuild the recipe recorded by :meth:`get_params`; with ``vocabulary``, fitted to it.

        The recorded settings are checked against their documented types; a tokenizer is
        rebuilt from its recorded name when it is one of :data:`KNOWN_TOKENIZERS`, and
        refused otherwise.

        Parameters
        ----------
        params : object
            The recorded settings (e.g. a model's ``metadata_["preprocessing"]``).
        vocabulary : Vocabulary or None, default None
            With it, the result is ready to :meth:`transform` texts over it
            (``min_df``/``max_df``/``max_features`` then play no part: the vocabulary is
            already chosen).

        Returns
        -------
        Preprocessor
            The rebuilt recipe.

        Raises
        ------
        InputFormatError
            Naming the setting, what was found and what is expected, when a setting is
            missing, unknown or of the wrong type, or the tokenizer cannot be rebuilt.
        """
        if not isinstance(params, dict):
            raise InputFormatError(f"the recorded preprocessing is a {type(params).__name__}, not a "
                                   "Preprocessor's settings (a JSON object)",
                                   fix="record Preprocessor.get_params()")
        unknown = sorted(set(params) - set(RECIPE_KEYS) - set(OPTIONAL_KEYS))
        missing = [k for k in RECIPE_KEYS if k not in params]
        if unknown or missing:
            raise InputFormatError(
                "the recorded preprocessing is not a Preprocessor's settings "
                f"(unknown keys: {', '.join(map(str, unknown)) or 'none'}; "
                f"missing: {', '.join(missing) or 'none'})",
                fix=f"it must hold exactly {', '.join(RECIPE_KEYS)} and optionally "
                    f"{' and '.join(OPTIONAL_KEYS)}")
        settings = {k: params[k] for k in RECIPE_KEYS}
        settings["min_length"] = params.get("min_length", 1)
        _check_recipe(settings)
        pre = cls(**settings, tokenizer=_known_tokenizer(params.get("tokenizer")))
        if vocabulary is not None:
            pre.vocabulary_ = vocabulary
        return pre

    def get_params(self) -> dict:
        """Every setting of the recipe, JSON-serialisable (the tokenizer by name).

        Returns
        -------
        dict
            The :data:`RECIPE_KEYS` and, when not their defaults, the :data:`OPTIONAL_KEYS`
            (``tokenizer``, ``min_length``).
        """
        params = asdict(self)
        params.pop("tokenizer")
        if self.min_length == 1:
            params.pop("min_length")
        if self.tokenizer is not None:
            params["tokenizer"] = getattr(self.tokenizer, "__qualname__", repr(self.tokenizer))
        if params["stop_words"] is not None and not isinstance(params["stop_words"], str):
            params["stop_words"] = sorted(params["stop_words"])
        return params


def _check_recipe(settings: dict) -> None:
    """Refuse recorded settings of the wrong type (they would silently tokenise differently)."""
    def bad(name: str, expected: str) -> InputFormatError:
        value = settings[name]
        return InputFormatError(f"the recorded preprocessing setting {name} is {value!r} "
                                f"({type(value).__name__}); expected {expected}",
                                fix="record the settings with Preprocessor.get_params()")

    if not isinstance(settings["token_pattern"], str):
        raise bad("token_pattern", "a regular expression (string)")
    try:
        re.compile(settings["token_pattern"])
    except re.error as exc:
        raise InputFormatError(f"the recorded token_pattern {settings['token_pattern']!r} is not a valid "
                               f"regular expression ({exc})", fix="record a valid pattern") from None
    if not isinstance(settings["lowercase"], bool):
        raise bad("lowercase", "true or false")
    stop = settings["stop_words"]
    if not (stop is None or stop == "english"
            or (isinstance(stop, list) and all(isinstance(w, str) for w in stop))):
        raise bad("stop_words", "\"english\", null or a list of words")
    for name in ("min_df", "max_df"):
        value = settings[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
            raise bad(name, "a non-negative count or fraction")
    max_features = settings["max_features"]
    if max_features is not None and (isinstance(max_features, bool) or not isinstance(max_features, int)):
        raise bad("max_features", "null or a whole number")
    if isinstance(settings["min_length"], bool) or not isinstance(settings["min_length"], int):
        raise bad("min_length", "a whole number")


def _count(value: float) -> str:
    """A document count as written: whole numbers in full, shares of documents to 2 decimals."""
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def _check_settings(pre: Preprocessor) -> None:
    """Refuse a recipe setting out of its declared range (:mod:`tealeaves.corpus.params`), converting
    the numbers as declared (``min_df``, ``max_df``: an int count or a float share)."""
    pre.token_pattern = check_token_pattern(pre.token_pattern)
    if not isinstance(pre.lowercase, bool):
        raise naming(ParameterError(f"lowercase must be True or False, got {pre.lowercase!r}"), "lowercase")
    stop = pre.stop_words
    if isinstance(stop, str):
        if stop not in STOP_LISTS:
            raise naming(ParameterError(
                f"stop_words {stop!r} is not a known stop-word list (known: {', '.join(STOP_LISTS)})",
                fix="give a known list, None, or the words themselves"), "stop_words")
    elif stop is not None and (isinstance(stop, (bytes, Mapping)) or not isinstance(stop, Iterable)
                               or not all(isinstance(w, str) for w in stop)):
        raise naming(ParameterError(f"stop_words must be a list name, None or a collection of words "
                                    f"(strings), got {type(stop).__name__}"), "stop_words")
    pre.min_df, pre.max_df = MIN_DF.check(pre.min_df), MAX_DF.check(pre.max_df)
    if isinstance(pre.min_df, int) == isinstance(pre.max_df, int) and pre.min_df > pre.max_df:
        raise naming(ParameterError(f"`min_df`={pre.min_df} is above `max_df`={pre.max_df}: no word can be "
                                    "kept",
                                    fix="lower `min_df` or raise `max_df`"), "min_df", "max_df")
    if pre.max_features is not None:
        pre.max_features = MAX_FEATURES.check(pre.max_features)
    pre.min_length = MIN_LENGTH.check(pre.min_length)
    if pre.tokenizer is not None and not callable(pre.tokenizer):
        raise naming(ParameterError("tokenizer must be callable or None, got "
                                    f"{type(pre.tokenizer).__name__}"), "tokenizer")


def check_token_pattern(pattern: object) -> str:
    """``pattern`` if it is a regular expression that can be a token pattern, else a clear error.

    Its matches are the tokens, so it must compile, have at most one group (``re.findall``
    then returns the group) and match no empty string (an empty token).

    Parameters
    ----------
    pattern : object
        The candidate ``token_pattern``.

    Returns
    -------
    str
        The pattern.

    Raises
    ------
    ParameterError
        Saying what is wrong with it.
    """
    pattern = TOKEN_PATTERN.check(pattern)
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise naming(ParameterError(f"token_pattern {pattern!r} is not a valid regular expression ({exc})",
                                    fix="give a valid Python regular expression"), "token_pattern") from None
    if compiled.groups > 1:
        raise naming(ParameterError(f"token_pattern {pattern!r} has {compiled.groups} groups; a token "
                                    "pattern has at most one (the token)",
                                    fix="make the other groups non-capturing: (?:...)"), "token_pattern")
    if compiled.fullmatch("") is not None or "" in compiled.findall(" a1_ b "):
        raise naming(ParameterError(f"token_pattern {pattern!r} matches the empty string, so it would "
                                    "make empty tokens", fix="require at least one character, e.g. + not *"),
                     "token_pattern")
    return pattern


def _known_tokenizer(name: object) -> Callable[[str], list[str]] | None:
    """The tokenizer a recipe recorded by name, or ``None`` for the regular expression."""
    if name is None:
        return None
    if name not in KNOWN_TOKENIZERS:
        raise InputFormatError(
            f"the recorded preprocessing used the tokenizer {name!r}, which tealeaves cannot rebuild "
            f"(known: {', '.join(KNOWN_TOKENIZERS)})",
            fix="tokenise the test documents with it yourself and give them as tokens")
    module, func = KNOWN_TOKENIZERS[name].split(":")
    return getattr(importlib.import_module(module), func)


class Numbering(dict):
    """Word -> number, numbering an unseen word on lookup in order of first appearance
    (``map(numbering.__getitem__, words)`` stays in C except for new words)."""

    def __missing__(self, word: str) -> int:
        self[word] = n = len(self)
        return n


@dataclass
class Scan:
    """Candidate words of many texts (:meth:`Preprocessor.scan`).

    A separator word of the joined scan may be among ``words`` without any
    candidate numbered with it.

    Parameters
    ----------
    words : list of str
        The distinct candidate words.
    ids : numpy.ndarray
        The number (int32) of every candidate, in order.
    lengths : numpy.ndarray
        How many candidates each text has (int64).
    stop : frozenset of str
        The stop words: the candidates that are not tokens.
    """

    words: list[str]
    ids: np.ndarray
    lengths: np.ndarray
    stop: frozenset[str]

    @classmethod
    def number(cls, found: list[str], n_texts: int, separator: str | None, stop: frozenset[str]) -> Scan:
        """Number the candidates ``found``; texts are separated by the word ``separator`` (if given).

        Parameters
        ----------
        found : list of str
            The candidates of all texts, in order.
        n_texts : int
            The number of texts.
        separator : str or None
            The word between texts, or None when ``found`` is one text's (the lengths are
            then set by the caller).
        stop : frozenset of str
            The stop words.

        Returns
        -------
        Scan
            The numbered candidates.
        """
        numbering = Numbering()
        ids = np.array(list(map(numbering.__getitem__, found)), dtype=np.int32)
        lengths = np.zeros(n_texts, dtype=np.int64)
        if separator is not None and separator in numbering:
            sep = ids == numbering[separator]
            lengths[:] = np.bincount(np.cumsum(sep)[~sep], minlength=n_texts)
            ids = ids[~sep]
        elif n_texts:
            lengths[0] = len(ids)
        return cls(list(numbering), ids, lengths, stop)

    def stop_mask(self) -> np.ndarray:
        """Whether each distinct word is a stop word (the set tested in C, ``map``).

        Returns
        -------
        numpy.ndarray
            ``mask[i]`` for ``words[i]``.
        """
        return np.fromiter(map(self.stop.__contains__, self.words), dtype=bool, count=len(self.words))

    def letter_counts(self) -> tuple[int, int]:
        """:func:`letter_counts` of the scan's tokens (stop words left out).

        Returns
        -------
        tuple of (int, int)
            ``(letters, long_letters)``.
        """
        ids = self.ids[~self.stop_mask()[self.ids]] if self.stop else self.ids
        return letter_counts(self.words, np.bincount(ids, minlength=len(self.words)))

    def tokens(self) -> list[list[str]]:
        """The tokens of every text (``[Preprocessor.tokenize(t) for t in texts]``).

        Returns
        -------
        list of list of str
            One list per text.
        """
        kept = [None if w in self.stop else w for w in self.words]
        ids, out, a = self.ids.tolist(), [], 0
        for n in self.lengths.tolist():
            out.append([w for w in map(kept.__getitem__, ids[a:a + n]) if w is not None])
            a += n
        return out


def letter_counts(words: Sequence[str], counts: Sequence[int] | np.ndarray) -> tuple[int, int]:
    """``(letters, long_letters)`` of tokens given as distinct ``words`` occurring ``counts`` times.

    The letters of all the tokens and of those longer than :data:`LONG_TOKEN` letters, a wide
    character (East Asian Width W or F: Chinese, Japanese, Korean) counting 2, as one such
    character holds about as much of a word as two letters of an alphabet.  Computed per
    distinct word, not per token.

    Parameters
    ----------
    words : sequence of str
        The distinct words.
    counts : sequence of int or numpy.ndarray
        How many times each occurs.

    Returns
    -------
    letters : int
        The letters of all the tokens.
    long_letters : int
        The letters of the over-long tokens.
    """
    counts = np.asarray(counts, dtype=np.int64)
    sizes = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
    joined = "".join(words)
    if not joined.isascii():
        codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        seen = np.flatnonzero(np.bincount(codes[codes >= 0x1100]))  # nothing below U+1100 is wide
        wide = seen[[unicodedata.east_asian_width(chr(c)) in "WF" for c in seen.tolist()]]
        if len(wide):  # wide characters of each word: differences of their running count at word ends
            ends = np.cumsum(sizes)
            running = np.concatenate([[0], np.cumsum(np.isin(codes, wide), dtype=np.int64)])
            sizes = sizes + running[ends] - running[ends - sizes]
    letters = sizes * counts
    return int(letters.sum()), int(letters[sizes > LONG_TOKEN].sum())


#: The fix of :func:`check_segmented` for a side of aligned text, whose language code chooses the tokeniser.
ALIGNED_FIX = ("segment it into space-separated words first, or for Chinese use the language code zh "
               "(segmented with jieba: pip install 'tealeaves[zh]')")
#: The fix for a one-language build (``index build``, a raw corpus or token lists as a reference), which has
#: no language code: the text must come segmented.
TEXT_FIX = ("segment it into space-separated words first (Chinese e.g. with jieba: pip install "
            "'tealeaves[zh]'); a one-language reference is split at spaces and punctuation only")


@shared_doc
def check_segmented(letters: int, long_letters: int, what: str, fix: str = ALIGNED_FIX) -> None:
    """Refuse a text more than :data:`UNSEGMENTED_SHARE` of whose letters are in over-long tokens.

    Its "words" (:func:`letter_counts`) are whole phrases or sentences, so no topic word
    would be found in it or co-occur with another, and every score would come out as -1 or
    absent.  A content check, not a list of languages: the same language segmented into
    space-separated words passes.

    Parameters
    ----------
    letters : int
        The letters of all the tokens.
    long_letters : int
        The letters of the over-long tokens.
    what : str
        The text, for the message (e.g. ``"the ja text"``).
    fix : str, default ALIGNED_FIX
        :data:`ALIGNED_FIX` (a language code chooses the tokeniser) or
        :data:`TEXT_FIX` (one-language builds).

    Raises: %(raises_unsegmented)s
    """
    if letters and long_letters > UNSEGMENTED_SHARE * letters:
        raise UnsegmentedTextError(
            f"{what} looks unsegmented: {100 * long_letters / letters:.0f}% of its letters are in tokens of "
            f"more than {LONG_TOKEN} characters (a Chinese, Japanese or Korean character counting as 2), "
            f"against at most {100 * UNSEGMENTED_SHARE:.0f}% in text with spaces between words: its tokens "
            "would be whole phrases or sentences that no topic word matches",
            fix=fix)


@shared_doc
def segmentation(counts: Iterable[tuple[int, int]], what: str, fix: str = ALIGNED_FIX) -> dict:
    """The :func:`letter_counts` of the parts of a build (chunks, shards) summed, refusing unsegmented text.

    The one check of every build path (:func:`check_segmented`), whose result the index
    header records as ``segmentation``.

    Parameters
    ----------
    counts : iterable of tuple of (int, int)
        ``(letters, long_letters)`` of each part.
    what : str
        The text, for the message.
    fix : str, default ALIGNED_FIX
        The fix the message suggests.

    Returns
    -------
    dict
        ``letters``, ``long_token_letters`` and ``long_token`` (:data:`LONG_TOKEN`).

    Raises: %(raises_unsegmented)s
    """
    counts = list(counts)
    letters, long_letters = sum(c[0] for c in counts), sum(c[1] for c in counts)
    check_segmented(letters, long_letters, what, fix)
    return {"letters": letters, "long_token_letters": long_letters, "long_token": LONG_TOKEN}
