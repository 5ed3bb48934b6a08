"""CNPMI, INPMI, TWC, MTA, MC/ICC against brute-force set computations on a hand-built aligned corpus."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest

from tealeaves.corpus import Preprocessor
from tealeaves.corpus.aligned import AlignedCorpus, LanguageMismatchError, UnknownLanguageError
from tealeaves.errors import EmptyInputError, TealeavesError
from tealeaves.multilingual import measures as M
from tealeaves.multilingual.dictionaries import BilingualDictionary
from tealeaves.multilingual.reference import AlignedReference

# Six tuples in three languages; None marks a language missing from a tuple.
TEXTS = {
    "en": ["dog cat fish", "dog bird cat", None, "cat fish tree", "tree bird sun", "sun dog"],
    "ro": ["caine pisica peste", "caine pasare", "copac lemn", None, "copac soare pasare",
           "soare caine pisica"],
    "sv": ["hund katt", None, "trad sol", "katt fisk trad", "sol fagel", "hund sol katt"],
}
TOPICS = {
    "en": [["dog", "cat", "zebra"], ["tree", "sun", "bird"]],
    "ro": [["caine", "pisica", "copac"], ["soare", "lemn", "zzz"]],
    "sv": [["hund", "katt", "fisk"], ["sol", "trad", "fagel"]],
}


@pytest.fixture(scope="module")
def reference():
    pre = {x: Preprocessor(stop_words=None) for x in TEXTS}
    corpus = AlignedCorpus.from_texts(TEXTS, ids=[f"t{i}" for i in range(6)], preprocessors=pre)
    return AlignedReference(corpus, "toy")


def _sets(lang):
    return [set(t.split()) if t is not None else None for t in TEXTS[lang]]


def _npmi(pij, pi, pj, never=-1.0):
    if pi == 0 or pj == 0:
        return 0.0
    if pij == 0:
        return never
    if pij == 1:
        return 1.0
    return math.log(pij / (pi * pj)) / -math.log(pij)


def brute_cnpmi(l1, l2, k, never=-1.0):
    s1, s2 = _sets(l1), _sets(l2)
    both = [(a, b) for a, b in zip(s1, s2) if a is not None and b is not None]
    n = len(both)
    vals = []
    for wi in TOPICS[l1][k]:
        for wj in TOPICS[l2][k]:
            pi = sum(wi in a for a, _ in both) / n
            pj = sum(wj in b for _, b in both) / n
            pij = sum(wi in a and wj in b for a, b in both) / n
            vals.append(_npmi(pij, pi, pj, never))
    return sum(vals) / len(vals)


def brute_npmi(lang, k):
    docs = [d for d in _sets(lang) if d is not None]
    n = len(docs)
    vals = []
    for wi, wj in combinations(TOPICS[lang][k], 2):
        pi = sum(wi in d for d in docs) / n
        pj = sum(wj in d for d in docs) / n
        pij = sum(wi in d and wj in d for d in docs) / n
        vals.append(_npmi(pij, pi, pj))
    return sum(vals) / len(vals)


def test_cnpmi_matches_brute_force_over_language_pairs(reference):
    scores = M.cnpmi(TOPICS, reference)
    for k in range(2):
        pairs = [brute_cnpmi(a, b, k) for a, b in combinations(["en", "ro", "sv"], 2)]
        assert scores.per_topic[k] == pytest.approx(sum(pairs) / 3)
    en_ro = M.cnpmi(TOPICS, reference, languages=["en", "ro"])
    assert en_ro.per_topic == pytest.approx([brute_cnpmi("en", "ro", k) for k in range(2)])
    assert str(en_ro.signature).startswith(f"cnpmi|ref={reference.label}|langs=en-ro|top=3|")
    assert reference.label.startswith("toy@")


def test_cnpmi_counts_absent_words(reference):
    # a word is absent when no aligned (both-sides-present) tuple holds it on its side
    s1, s2 = _sets("en"), _sets("ro")
    both = [(a, b) for a, b in zip(s1, s2) if a is not None and b is not None]
    expected = 0
    for k in range(2):
        for wi in TOPICS["en"][k]:
            for wj in TOPICS["ro"][k]:
                expected += not any(wi in a for a, _ in both) or not any(wj in b for _, b in both)
    det = M.cnpmi(TOPICS, reference, languages=["en", "ro"]).details
    # zebra x 3, zzz x 3, and lemn x 3: lemn is only in t2, where en is missing
    assert expected == 9
    assert reference.df("ro", ["lemn"])[0] == 1
    assert det["n_absent_pairs"] == expected
    assert det["n_tuples_en-ro"] == len(both) == 4
    en_sv = M.cnpmi(TOPICS, reference, languages=["en", "sv"])
    assert en_sv.per_topic == pytest.approx([brute_cnpmi("en", "sv", k) for k in range(2)])


def test_inpmi_and_per_language_npmi_match_brute_force(reference):
    scores = M.inpmi(TOPICS, reference)
    for k in range(2):
        expected = [brute_npmi(x, k) for x in ("en", "ro", "sv")]
        assert scores.details["per_language"]["sv"][k] == pytest.approx(expected[2])
        assert scores.per_topic[k] == pytest.approx(sum(expected) / 3)


def test_zero_cooccurrence_policies(reference):
    limit = M.cnpmi(TOPICS, reference, languages=["en", "sv"], zero="limit")
    zero = M.cnpmi(TOPICS, reference, languages=["en", "sv"], zero="zero")
    assert limit.details["n_never_cooccurring_pairs"] > 0
    for k in range(2):
        assert limit.per_topic[k] == pytest.approx(brute_cnpmi("en", "sv", k, never=-1.0))
        assert zero.per_topic[k] == pytest.approx(brute_cnpmi("en", "sv", k, never=0.0))
    assert "zero=zero" in str(zero.signature)
    with pytest.raises(TealeavesError, match="zero must be one of"):
        M.cnpmi(TOPICS, reference, zero="bogus")


def test_npmi_from_counts_matches_spec_reuters_pairs():
    # worked-examples.md section 2: D = 7769; oil 730, gas 275, co-doc 207 -> NPMI 0.574
    val = M.npmi_from_counts(np.array([[207, 147]]), np.array([730]), np.array([275, 237]), 7769)
    assert val[0] == pytest.approx([0.574, 0.476], abs=5e-4)


def test_twc_matches_brute_force(reference):
    scores = M.twc(TOPICS, reference)
    for k in range(2):
        found = sum(any(d is not None and w in d for d in _sets(x)) for x in TOPICS for w in TOPICS[x][k])
        assert scores.per_topic[k] == pytest.approx(found / 9)


def test_mta_pairs_and_words():
    d = BilingualDictionary("en", "ro", {("dog", "caine"), ("cat", "pisica"), ("tree", "copac"),
                                         ("sun", "soare")}, "toy")
    pairs = M.mta(TOPICS, d, "en", "ro")
    brute = [sum((a, b) in d.pairs for a in TOPICS["en"][k] for b in TOPICS["ro"][k]) / 9 for k in range(2)]
    assert pairs.per_topic == pytest.approx(brute)
    words = M.mta(TOPICS, d, "en", "ro", mode="words")
    assert words.per_topic == pytest.approx([2 / 3, 1 / 3])
    # the dictionary oriented the other way gives the same pairs
    assert M.mta(TOPICS, d.oriented("ro", "en"), "en", "ro").per_topic == pytest.approx(brute)


def test_mta_with_no_entries_for_the_topic_is_zero_and_counted():
    d = BilingualDictionary("en", "ro", {("house", "casa")}, "toy")
    with pytest.warns(UserWarning, match="none of the words of 2 of 2 topics"):
        scores = M.mta(TOPICS, d, "en", "ro")
    assert scores.per_topic.tolist() == [0.0, 0.0]
    assert scores.details["n_uncovered_topics"] == 2
    with pytest.raises(TealeavesError, match="en-ro"):
        M.mta(TOPICS, BilingualDictionary("en", "sv", {("dog", "hund")}), "en", "ro")


def test_gap_features_follow_eq_5_and_6(reference):
    c = M.cnpmi(TOPICS, reference, languages=["en", "ro"])
    i = M.inpmi(TOPICS, reference, languages=["en", "ro"])
    mc, icc = M.gap_features(c, i, "en", "ro")
    for k in range(2):
        e, r = brute_npmi("en", k) + 0.001, brute_npmi("ro", k) + 0.001
        assert mc.per_topic[k] == pytest.approx(brute_cnpmi("en", "ro", k) / e)
        assert icc.per_topic[k] == pytest.approx(e / r)


def test_bad_inputs(reference):
    with pytest.raises(LanguageMismatchError, match="no 'tr' side"):
        M.cnpmi({"en": TOPICS["en"], "tr": TOPICS["ro"]}, reference)
    with pytest.raises(LanguageMismatchError, match="no 'xx' side"):  # a code the reference lacks
        M.cnpmi({"en": TOPICS["en"], "xx": TOPICS["ro"]}, reference)
    with pytest.raises(UnknownLanguageError, match="'klingon' is not a language code"):
        M.cnpmi({"en": TOPICS["en"], "klingon": TOPICS["ro"]}, reference)
    with pytest.raises(TealeavesError, match="different numbers of topics"):
        M.cnpmi({"en": TOPICS["en"], "ro": TOPICS["ro"][:1]}, reference)
    with pytest.raises(EmptyInputError, match="no words"):
        M.cnpmi({"en": TOPICS["en"], "ro": [[], []]}, reference)
    with pytest.raises(TealeavesError, match="no words for languages"):
        M.cnpmi({"en": TOPICS["en"]}, reference, languages=["en", "ro"])


def test_reference_without_aligned_pairs_is_a_clear_error():
    texts = {"en": ["dog cat", None], "am": [None, "ውሻ ድመት"]}
    pre = {x: Preprocessor(stop_words=None, token_pattern=r"(?u)\b\w+\b") for x in texts}
    ref = AlignedReference(AlignedCorpus.from_texts(texts, ids=["a", "b"], preprocessors=pre), "disjoint")
    with pytest.raises(EmptyInputError, match="no tuple holding both"):
        M.cnpmi({"en": [["dog", "cat"]], "am": [["ውሻ", "ድመት"]]}, ref)


def test_language_aliases_and_empty_language_side(reference):
    # 'eng' and 'ron' are aliases of the reference's 'en' and 'ro'
    alias = M.cnpmi({"eng": TOPICS["en"], "ron": TOPICS["ro"]}, reference)
    assert alias.per_topic == pytest.approx(M.cnpmi(TOPICS, reference, languages=["en", "ro"]).per_topic)
    pre = {x: Preprocessor(stop_words=None) for x in ("en", "ro")}
    with pytest.raises(EmptyInputError, match="'ro' has no documents"):
        AlignedCorpus.from_texts({"en": ["dog cat"], "ro": [None]}, ids=["a"], preprocessors=pre)
