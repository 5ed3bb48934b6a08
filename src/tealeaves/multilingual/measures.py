"""Multilingual topic measures (Hao, Boyd-Graber and Paul 2018, §2-3).

Topics are given per language: ``topics[lang][k]`` is the list of topic ``k``'s
top ``C`` words in language ``lang`` (most probable first).  Counts come from
an :class:`~tealeaves.multilingual.reference.AlignedReference`, which wraps the
coherence engine's aligned index (one counting core for every measure).

* **CNPMI** (eq. 3-4): for languages l1, l2 the reference is the set of tuples
  holding a document in both; P(w) is the share of those tuples whose side in w's
  language contains w, P(wi, wj) the share whose l1 side contains wi and whose
  l2 side contains wj.  CNPMI(l1, l2, k) is the mean NPMI over the C x C
  bilingual pairs; over more than two languages, the mean over language pairs.
* **INPMI**: a language's monolingual NPMI (mean over its C(C-1)/2 pairs, counted
  on that language's documents of the reference); over languages, the mean.
* **MTA**: share of translation pairs among the C x C bilingual pairs
  (``mode="pairs"``, default), or share of l1 words with a translation among the
  l2 words (``mode="words"``, a per-word reading of Boyd-Graber and Blei 2009).
* **TWC**: share of the topic's words (all languages) found in the reference.
* **MC** = CNPMI / (INPMI(l1) + a) and **ICC** = (INPMI(l1) + a) / (INPMI(l2) + a),
  a = 0.001 (eq. 5-6).

Documented values: a pair with a word absent from the reference (side) scores 0
and is counted in ``details["n_absent_pairs"]``; a pair of present words that never
co-occur scores by ``zero`` ("limit": -1, "zero": 0, "epsilon": the
coherence engine's 1e-12 added to every joint probability); a pair with P(wi, wj) = 1 scores 1.
MTA of a topic none of whose words the dictionary lists is 0, counted in
``details["n_uncovered_topics"]``.  MC/ICC with a zero denominator are 0, counted.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves._params import Param, deprecated_alias, naming, renamed_parameters
from tealeaves.coherence.confirmation import ZERO_POLICIES, confirm
from tealeaves.errors import EmptyInputError, InputFormatError, ParameterError, TealeavesError
from tealeaves.multilingual.dictionaries import BilingualDictionary
from tealeaves.multilingual.topics import check_languages, check_topic
from tealeaves.signature import Signature

#: Smoothing of MC and ICC (eq. 5-6).
GAP_ALPHA = 0.001

Topics = Mapping[str, Sequence[Sequence[str]]]

#: NPMI of present words that never co-occur (the ``zero`` of every measure here, ``zero_cooccurrence``
#: before; ``--zero`` of ``tealeaves cnpmi`` and ``estimator features``, as in ``tealeaves coherence``).
ZERO = Param("zero", "choice", choices=ZERO_POLICIES,
             help="NPMI of present words that never co-occur (default: limit, -1)")
ZERO_COOCCURRENCE = ZERO  # its old name
#: The old keyword of the zero-co-occurrence policy (docs/naming.md).
_ZERO_RENAMED = renamed_parameters({"zero_cooccurrence": "zero"})


@dataclass
class TopicScores:
    """Per-topic values of one measure, their mean, and the settings that produced them.

    Parameters
    ----------
    measure : str
        The measure's name (``cnpmi``, ``inpmi``, ``mta``, ``twc``, ``mc``, ``icc``).
    per_topic : numpy.ndarray
        One value per topic.
    signature : Signature
        The settings that produced the values.
    details : dict, optional
        Counts behind the documented values (absent pairs, uncovered topics...) and
        per-language or per-language-pair values; see each measure.
    """

    measure: str
    per_topic: np.ndarray
    signature: Signature
    details: dict = field(default_factory=dict)

    @property
    def score(self) -> float:
        """Model-level value: the mean over topics."""
        return float(np.mean(self.per_topic)) if len(self.per_topic) else 0.0

    def to_dict(self) -> dict:
        """The scores as a JSON-ready dict.

        Returns
        -------
        dict
            ``measure``, ``score`` (the mean), ``per_topic`` as a list, ``signature`` as its
            string, and ``details``.
        """
        return {"measure": self.measure, "score": self.score, "per_topic": self.per_topic.tolist(),
                "signature": str(self.signature), "details": self.details}


# -- input checks ------------------------------------------------------------
def check_multilingual_topics(topics: Topics, languages: Sequence[str] | None = None
                              ) -> tuple[list[str], int, int]:
    """Validate per-language ``topics`` and return (languages, number of topics K, cardinality C).

    The schema is that of :mod:`tealeaves.multilingual.topics`.  Every language needs the
    same number of topics, each a non-empty list of word strings; two keys naming the same
    language (``en`` and ``eng``) are refused.

    Parameters
    ----------
    topics : mapping
        ``{language: [[word, ...] per topic]}``.
    languages : sequence of str, optional
        The languages to check (default: every key of ``topics``).

    Returns
    -------
    tuple
        (languages, K, the longest topic's length C).

    Raises
    ------
    EmptyInputError
        When no language is given, there are no topics, or a topic has no words.
    TealeavesError
        When a requested language has no topics.
    InputFormatError
        When a topic is not a list of distinct word strings, two keys name the same language,
        or the languages have different numbers of topics.
    """
    langs = list(languages) if languages is not None else list(topics)
    if not langs:
        raise EmptyInputError("no languages given; pass topics as {language: [[word, ...], ...]}")
    missing = [x for x in langs if x not in topics]
    if missing:
        raise TealeavesError(f"topics have no words for languages {missing} (they have {list(topics)}); "
                             "check the language codes")
    check_languages(langs)
    for x in langs:
        if isinstance(topics[x], str) or not isinstance(topics[x], (Sequence, np.ndarray)):
            raise InputFormatError(f"topics of {x!r} must be a list of topics, "
                                   f"got {type(topics[x]).__name__}")
        for k, t in enumerate(topics[x]):
            check_topic(x, k, t)
    sizes = {x: len(topics[x]) for x in langs}
    if len(set(sizes.values())) != 1:
        raise InputFormatError(f"languages have different numbers of topics: {sizes}")
    k = sizes[langs[0]]
    if k == 0:
        raise EmptyInputError("the model has no topics")
    cards = {len(t) for x in langs for t in topics[x]}
    if 0 in cards:
        empty = [x for x in langs if any(len(t) == 0 for t in topics[x])]
        raise EmptyInputError(f"topics with no words in languages {empty}; a topic needs its top words "
                              "in every language")
    return langs, k, max(cards)


@shared_doc
def as_aligned_reference(reference, languages: Sequence[str]):
    """An aligned (multilingual) reference: ``reference`` itself, or the one a name or folder gives.

    ``reference`` is returned itself if it answers the count queries, else a built-in name or
    a saved folder is resolved by :func:`tealeaves.multilingual.reference.resolve_reference`
    (one code path for both).

    (The monolingual counterpart is :func:`tealeaves.coherence.measure.as_reference`.)

    Parameters: %(aligned_reference_input)s %(aligned_reference_languages)s

    Returns: %(returns_aligned_reference)s
    """
    import os

    if isinstance(reference, (str, os.PathLike)):
        from tealeaves.multilingual.reference import resolve_reference

        return resolve_reference(reference, languages)
    return reference


@shared_doc
def counting_reference(reference, languages: Sequence[str]):
    """:func:`as_aligned_reference`, refusing what cannot answer the count queries (``None``, a number...).

    Parameters: %(aligned_reference_input)s %(aligned_reference_languages)s

    Returns: %(returns_aligned_reference)s
    """
    reference = as_aligned_reference(reference, languages)
    if not callable(getattr(reference, "n_pairs", None)):
        raise naming(ParameterError(f"reference must be an aligned reference, a built-in reference name or a "
                                    f"saved aligned reference folder, got {type(reference).__name__}",
                                    fix="e.g. `reference='bible'`, or the folder of `tealeaves index "
                                        "build-aligned`"), "reference")
    return reference


#: Deprecated old names of :func:`check_multilingual_topics` and :func:`as_aligned_reference`.
check_topics = deprecated_alias(check_multilingual_topics, "check_topics")
as_reference = deprecated_alias(as_aligned_reference, "as_reference")


# -- NPMI from counts -------------------------------------------------------
@_ZERO_RENAMED
def npmi_from_counts(joint: np.ndarray, df_a: np.ndarray, df_b: np.ndarray, n: int,
                     zero: str = "limit") -> np.ndarray:
    """NPMI (Bouma 2009; Hao et al. 2018 eq. 1) of a len(a) x len(b) block of count pairs.

    NPMI(wi, wj) = log(P(wi, wj) / (P(wi) P(wj))) / -log P(wi, wj), each probability a
    count divided by ``n``.  The confirmation itself is the coherence engine's
    (:func:`tealeaves.coherence.confirmation.confirm`); here a word with zero
    document frequency makes its pairs 0 (the paper's rule for absent words).

    Parameters
    ----------
    joint : numpy.ndarray
        Co-occurrence counts, shape ``(len(df_a), len(df_b))``.
    df_a : numpy.ndarray
        Document (or tuple) frequency of each row word.
    df_b : numpy.ndarray
        Document (or tuple) frequency of each column word.
    n : int
        The number of documents (or tuples) counted.
    zero : str, default "limit"
        NPMI of present words that never co-occur ("limit": -1, "zero": 0, "epsilon": 1e-12
        added to every joint probability; :data:`ZERO_COOCCURRENCE`).

    Returns
    -------
    numpy.ndarray
        NPMI per pair, shape of ``joint``.

    Raises
    ------
    ParameterError
        When ``zero`` is not one of the policies.
    """
    ZERO.check(zero)
    pa = np.asarray(df_a, dtype=float)[:, None] / n
    pb = np.asarray(df_b, dtype=float)[None, :] / n
    present = (pa > 0) & (pb > 0)
    pab = np.asarray(joint, dtype=float) / n
    out = confirm("npmi", pab, np.where(present, pa, 1.0), np.where(present, pb, 1.0), zero)
    return np.where(present, out, 0.0)


# -- measures ----------------------------------------------------------------
def _signature(measure: str, reference, langs: Sequence[str], c: int, zero: str, **extra) -> Signature:
    ref = getattr(reference, "label", getattr(reference, "name", "reference"))
    fields = {"ref": ref, "langs": "-".join(langs), "top": c, "win": "doc"}
    if zero is not None:
        fields["zero"] = zero
        fields["absent"] = "zero"
    fields.update(extra)
    return Signature(measure, fields)


@_ZERO_RENAMED
@shared_doc
def cnpmi_pair(topics: Topics, reference, l1: str, l2: str,
               zero: str = "limit") -> tuple[np.ndarray, dict]:
    """CNPMI(l1, l2, k) for every topic k, and counts of absent / never co-occurring pairs.

    Hao, Boyd-Graber and Paul (2018, eq. 3): the mean NPMI (:func:`npmi_from_counts`) over
    the C x C pairs of an ``l1`` word and an ``l2`` word of topic k, counted on the tuples
    holding a document in both languages (module docstring).

    Parameters: %(pair_topics)s %(aligned_reference)s %(pair_l1)s %(pair_l2)s %(npmi_zero)s

    Returns
    -------
    tuple of (numpy.ndarray, dict)
        One CNPMI per topic, and ``{"n_absent_pairs", "n_never_cooccurring_pairs",
        "n_tuples"}`` (the tuples counted).
    """
    _, k, _ = check_multilingual_topics(topics, [l1, l2])
    reference = counting_reference(reference, [l1, l2])
    n = reference.n_pairs(l1, l2)
    values = np.zeros(k)
    n_absent = n_never = 0
    for t in range(k):
        c = reference.cross_counts(l1, topics[l1][t], l2, topics[l2][t])
        df1, df2, joint = c.df_a, c.df_b, c.joint
        m = npmi_from_counts(joint, df1, df2, n, zero)
        absent = (df1 == 0)[:, None] | (df2 == 0)[None, :]
        n_absent += int(absent.sum())
        n_never += int(((joint == 0) & ~absent).sum())
        values[t] = m.mean()
    return values, {"n_absent_pairs": n_absent, "n_never_cooccurring_pairs": n_never, "n_tuples": n}


@_ZERO_RENAMED
@shared_doc
def cnpmi(topics: Topics, reference, languages: Sequence[str] | None = None,
          zero: str = "limit") -> TopicScores:
    """Crosslingual NPMI per topic, averaged over all language pairs (eq. 4).

    CNPMI of Hao, Boyd-Graber and Paul (2018, eq. 3-4): :func:`cnpmi_pair` for every pair
    of ``languages``, averaged per topic.  Documented values (module docstring): a pair with
    a word absent from the reference scores 0; present words that never co-occur score by
    ``zero``.

    Parameters
    ----------
    %(multilingual_topics)s %(aligned_reference)s
    languages : sequence of str, optional
        The languages to score, at least two (default: every key of ``topics``).
    zero : str, default "limit"
        NPMI of present words that never co-occur ("limit": -1, "zero": 0, "epsilon";
        :data:`ZERO`).

    Returns
    -------
    TopicScores
        Measure ``cnpmi``; ``details`` holds ``n_absent_pairs``,
        ``n_never_cooccurring_pairs``, ``n_tuples_<l1>-<l2>`` and ``per_language_pair``.

    Raises
    ------
    TealeavesError
        When fewer than two languages are given, or ``topics`` lacks one.
    InputFormatError
        When ``topics`` violates the schema (:func:`check_multilingual_topics`).
    """
    langs, k, c = check_multilingual_topics(topics, languages)
    if len(langs) < 2:
        raise TealeavesError(f"CNPMI needs at least two languages, got {langs}")
    reference = counting_reference(reference, langs)
    per_pair, details = {}, {"n_absent_pairs": 0, "n_never_cooccurring_pairs": 0}
    for l1, l2 in combinations(langs, 2):
        vals, det = cnpmi_pair(topics, reference, l1, l2, zero)
        per_pair[f"{l1}-{l2}"] = vals
        details["n_absent_pairs"] += det["n_absent_pairs"]
        details["n_never_cooccurring_pairs"] += det["n_never_cooccurring_pairs"]
        details[f"n_tuples_{l1}-{l2}"] = det["n_tuples"]
    details["per_language_pair"] = {p: v.tolist() for p, v in per_pair.items()}
    values = np.mean(list(per_pair.values()), axis=0)
    return TopicScores("cnpmi", values, _signature("cnpmi", reference, langs, c, zero), details)


@_ZERO_RENAMED
@shared_doc
def npmi_language(topics: Topics, reference, lang: str,
                  zero: str = "limit") -> tuple[np.ndarray, dict]:
    """Monolingual NPMI per topic of one language over its side of the reference (eq. 2).

    The mean NPMI (Bouma 2009; :func:`npmi_from_counts`) over the C(C-1)/2 word pairs of
    each topic, counted on ``lang``'s documents of the reference (Hao, Boyd-Graber and Paul
    2018, eq. 2).

    Parameters
    ----------
    topics : mapping
        ``{language: [[word, ...] per topic]}`` holding ``lang``.
    reference : AlignedReference
        The aligned reference (an object answering ``mono_counts``, not a name).
    lang : str
        The language to score.
    %(npmi_zero)s

    Returns
    -------
    tuple of (numpy.ndarray, dict)
        One NPMI per topic, and ``{"n_absent_pairs", "n_never_cooccurring_pairs",
        "n_documents"}``.

    Raises
    ------
    TealeavesError
        When a topic has fewer than two words.
    """
    _, k, _ = check_multilingual_topics(topics, [lang])
    values = np.zeros(k)
    n = 0
    n_absent = n_never = 0
    for t in range(k):
        words = topics[lang][t]
        c = len(words)
        if c < 2:
            raise TealeavesError(f"NPMI needs at least two words per topic; topic {t} in {lang} has {c}")
        counts = reference.mono_counts(lang, words)
        n = counts.n
        df, joint = counts.df_a, counts.joint
        m = npmi_from_counts(joint, df, df, n, zero)
        iu = np.triu_indices(c, 1)
        absent = ((df == 0)[:, None] | (df == 0)[None, :])[iu]
        n_absent += int(absent.sum())
        n_never += int(((joint[iu] == 0) & ~absent).sum())
        values[t] = m[iu].mean()
    return values, {"n_absent_pairs": n_absent, "n_never_cooccurring_pairs": n_never, "n_documents": n}


@_ZERO_RENAMED
@shared_doc
def inpmi(topics: Topics, reference, languages: Sequence[str] | None = None,
          zero: str = "limit") -> TopicScores:
    """Internal NPMI: the mean over languages of each language's monolingual NPMI.

    INPMI of Hao, Boyd-Graber and Paul (2018): :func:`npmi_language` (eq. 2) per language,
    averaged per topic.

    Parameters
    ----------
    %(multilingual_topics)s %(aligned_reference)s
    languages : sequence of str, optional
        The languages to score (default: every key of ``topics``).
    %(npmi_zero)s

    Returns
    -------
    TopicScores
        Measure ``inpmi``; ``details`` holds ``n_absent_pairs``,
        ``n_never_cooccurring_pairs`` and ``per_language`` (each language's NPMI per topic,
        read by :func:`gap_features`).

    Raises
    ------
    TealeavesError
        When a topic has fewer than two words, or ``topics`` lacks a language.
    """
    langs, k, c = check_multilingual_topics(topics, languages)
    reference = counting_reference(reference, langs)
    per_lang, details = {}, {"n_absent_pairs": 0, "n_never_cooccurring_pairs": 0}
    for lang in langs:
        vals, det = npmi_language(topics, reference, lang, zero)
        per_lang[lang] = vals
        details["n_absent_pairs"] += det["n_absent_pairs"]
        details["n_never_cooccurring_pairs"] += det["n_never_cooccurring_pairs"]
    details["per_language"] = {x: v.tolist() for x, v in per_lang.items()}
    values = np.mean(list(per_lang.values()), axis=0)
    return TopicScores("inpmi", values, _signature("inpmi", reference, langs, c, zero), details)


@shared_doc
def twc(topics: Topics, reference, languages: Sequence[str] | None = None) -> TopicScores:
    """Topic word coverage: share of a topic's words (all languages) occurring in the reference.

    TWC of Hao, Boyd-Graber and Paul (2018): a word counts as found when its document
    frequency on its language's side of the reference is positive.

    Parameters
    ----------
    %(multilingual_topics)s %(aligned_reference)s
    languages : sequence of str, optional
        The languages to count (default: every key of ``topics``).

    Returns
    -------
    TopicScores
        Measure ``twc``, one share per topic.
    """
    langs, k, c = check_multilingual_topics(topics, languages)
    reference = counting_reference(reference, langs)
    values = np.zeros(k)
    for t in range(k):
        found = total = 0
        for lang in langs:
            df = reference.df(lang, topics[lang][t])
            found += int((df > 0).sum())
            total += len(df)
        values[t] = found / total
    return TopicScores("twc", values, _signature("twc", reference, langs, c, None))


@shared_doc
def mta(topics: Topics, dictionary: BilingualDictionary, l1: str, l2: str,
        mode: str = "pairs") -> TopicScores:
    """Matching translation accuracy of each topic between ``l1`` and ``l2`` (see module docstring).

    MTA (Hao, Boyd-Graber and Paul 2018): the share of translation pairs among the C x C
    bilingual word pairs (``mode="pairs"``), or the share of ``l1`` words with a translation
    among the ``l2`` words (``mode="words"``, a per-word reading of Boyd-Graber and Blei
    2009).  Words are compared lowercased.  A topic none of whose words the dictionary lists
    scores 0, with a warning, and is counted.

    Parameters
    ----------
    %(pair_topics)s
    dictionary : BilingualDictionary
        An ``l1``-``l2`` dictionary, in either orientation.
    %(pair_l1)s %(pair_l2)s
    mode : str, default "pairs"
        ``"pairs"`` or ``"words"``.

    Returns
    -------
    TopicScores
        Measure ``mta``; ``details`` holds ``n_uncovered_topics``, ``uncovered_topics``
        (their indices) and ``n_entries`` (the dictionary's size).

    Raises
    ------
    TealeavesError
        When ``mode`` is unknown or the dictionary translates another language pair.
    """
    langs, k, c = check_multilingual_topics(topics, [l1, l2])
    if mode not in ("pairs", "words"):
        raise TealeavesError(f"unknown MTA mode {mode!r}; use 'pairs' or 'words'")
    d = dictionary.oriented(l1, l2)
    values = np.zeros(k)
    uncovered: list[int] = []
    for t in range(k):
        a = [w.lower() for w in topics[l1][t]]
        b = [w.lower() for w in topics[l2][t]]
        hits = np.array([[(x, y) in d.pairs for y in b] for x in a], dtype=bool)
        if not any(d.covers(x, "source") for x in a) and not any(d.covers(y, "target") for y in b):
            uncovered.append(t)
        values[t] = hits.mean() if mode == "pairs" else hits.any(axis=1).mean()
    if uncovered:
        warnings.warn(f"MTA: the dictionary '{d.name}' lists none of the words of {len(uncovered)} of {k} "
                      "topics; they score 0 (details['n_uncovered_topics'])", stacklevel=2)
    sig = Signature("mta", {"dict": d.name, "langs": f"{l1}-{l2}", "top": c, "mode": mode})
    details = {"n_uncovered_topics": len(uncovered), "uncovered_topics": uncovered, "n_entries": len(d)}
    return TopicScores("mta", values, sig, details)


def _ratio(num: np.ndarray, den: np.ndarray) -> tuple[np.ndarray, int]:
    zero = den == 0
    out = np.divide(num, np.where(zero, 1.0, den))
    out[zero] = 0.0
    return out, int(zero.sum())


def gap_features(cnpmi_scores: TopicScores, inpmi_scores: TopicScores, l1: str, l2: str,
                 alpha: float = GAP_ALPHA) -> tuple[TopicScores, TopicScores]:
    """MC(l1; l2, k) and ICC(l1, l2, k) from per-topic CNPMI and per-language INPMI (eq. 5-6).

    Hao, Boyd-Graber and Paul (2018, eq. 5-6): MC = CNPMI / (INPMI(l1) + alpha) and
    ICC = (INPMI(l1) + alpha) / (INPMI(l2) + alpha).  A zero denominator gives 0, counted in
    ``details["n_zero_denominator"]``.

    Parameters
    ----------
    cnpmi_scores : TopicScores
        CNPMI per topic (:func:`cnpmi`).
    inpmi_scores : TopicScores
        INPMI (:func:`inpmi`) over both languages (its ``details["per_language"]``).
    l1 : str
        The high-resource language.
    l2 : str
        The other language.
    alpha : float, default GAP_ALPHA
        Smoothing of the denominators (0.001).

    Returns
    -------
    tuple of (TopicScores, TopicScores)
        MC and ICC, their signatures the CNPMI's fields plus ``alpha``.

    Raises
    ------
    TealeavesError
        When ``inpmi_scores`` lacks ``l1`` or ``l2``.
    """
    per_lang = inpmi_scores.details.get("per_language", {})
    if l1 not in per_lang or l2 not in per_lang:
        raise TealeavesError(f"INPMI scores lack languages {l1}/{l2}; compute inpmi over both")
    i1 = np.asarray(per_lang[l1]) + alpha
    i2 = np.asarray(per_lang[l2]) + alpha
    mc, z1 = _ratio(cnpmi_scores.per_topic, i1)
    icc, z2 = _ratio(i1, i2)
    base = dict(cnpmi_scores.signature.fields)
    base["alpha"] = alpha
    return (TopicScores("mc", mc, Signature("mc", base), {"n_zero_denominator": z1}),
            TopicScores("icc", icc, Signature("icc", base), {"n_zero_denominator": z2}))
