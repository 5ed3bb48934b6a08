"""The default tokenisation keeps combining marks (Unicode Mn, Mc, Me) attached to the letters they follow.

A word is a letter followed by one or more letters or attached marks (a mark is attached when it follows a
letter or an attached mark; a mark after a digit, ``_``, a space or punctuation is dropped and separates
words, as every mark did before).  Checked against an independent per-character implementation of that
rule (:func:`reference_tokens`, from :mod:`unicodedata` and the ``str`` predicates), for ``tokenize``
(the regular expression) and the compiled ``scan``, on hand-written sentences whose words are known, on
hypothesis text drawn from the letters, marks, digits and punctuation of a dozen scripts, and on the
system's translated software messages.  Indexes and models recording the old letters-only pattern keep
tokenising as before and are flagged as another tokenisation.
"""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tealeaves.corpus import Preprocessor
from tealeaves.corpus._marks import MARKS
from tealeaves.corpus.preprocess import LETTERS_ONLY_PATTERN, LETTERS_PATTERN, PATTERN_NAMES
from tealeaves.index import ReferenceIndex, build_index, tokenization_mismatch


def _kind(ch: str) -> str:
    """``letter`` (``[^\\W\\d_]``), ``digit`` (decimal digits, ``_``), ``mark`` (category M) or ``other``."""
    if ch.isalnum() or ch == "_":
        return "digit" if ch == "_" or ch.isdecimal() else "letter"
    return "mark" if unicodedata.category(ch) in ("Mn", "Mc", "Me") else "other"


def reference_tokens(text: str) -> list[str]:
    """The documented rule, one character at a time: runs of word characters and attached marks; a run
    is a token when it starts with a letter, holds no digit or ``_`` and has two or more characters."""
    tokens, run, prev = [], "", ""
    for ch in text + " ":
        kind = _kind(ch)
        if kind in ("letter", "digit") or (kind == "mark" and run and prev in ("letter", "mark")):
            run, prev = run + ch, kind
            continue
        if len(run) >= 2 and _kind(run[0]) == "letter" and all(_kind(c) != "digit" for c in run):
            tokens.append(run)
        run, prev = "", ""
    return tokens


#: Sentences written for this test and their words (no stop list: ``stop_words=None``).
SENTENCES = {
    "hindi": ("भारत एक विशाल देश है और हिन्दी इसकी राजभाषा है।",
              ["भारत", "एक", "विशाल", "देश", "है", "और", "हिन्दी", "इसकी", "राजभाषा", "है"]),
    "tamil": ("தமிழ் ஒரு பழமையான மொழி.", ["தமிழ்", "ஒரு", "பழமையான", "மொழி"]),
    "bengali": ("আমি বাংলায় গান গাই।", ["আমি", "বাংলায়", "গান", "গাই"]),
    "thai, spaced": ("ฉัน ดื่ม น้ำ ที่นี่", ["ฉัน", "ดื่ม", "น้ำ", "ที่นี่"]),
    "khmer, spaced": ("ភាសា ខ្មែរ", ["ភាសា", "ខ្មែរ"]),
    "decomposed latin": ("cafe\u0301 nai\u0308ve a\u0300 c\u0327a",
                         ["cafe\u0301", "nai\u0308ve", "a\u0300", "c\u0327a"]),
    "turkish capital i": ("İstanbul", ["i\u0307stanbul"]),  # lowercasing makes i + U+0307 (a mark)
}


@pytest.mark.parametrize("name", list(SENTENCES))
def test_words_of_scripts_with_marks_come_out_whole(name):
    text, words = SENTENCES[name]
    pre = Preprocessor(stop_words=None)
    assert pre.tokenize(text) == words
    assert pre.scan([text, text]).tokens() == [words, words]
    assert reference_tokens(text.lower()) == words


def test_the_old_pattern_split_them():
    """The defect fixed: letters-only tokens are fragments of these words (each inside one of them, fewer
    characters in all), and the scan gave the same fragments."""
    old = Preprocessor(token_pattern=LETTERS_ONLY_PATTERN, stop_words=None)
    for name in ("hindi", "tamil", "bengali", "thai, spaced", "khmer, spaced"):
        text, words = SENTENCES[name]
        fragments = old.tokenize(text)
        assert fragments != words and all(any(f in w for w in words) for f in fragments), name
        assert sum(map(len, fragments)) < sum(map(len, words)), name
        assert old.scan([text]).tokens() == [fragments]


@pytest.mark.parametrize("text,tokens", [
    ("1\u0301ab", ["ab"]),  # a mark after a digit is dropped and separates
    ("_\u0301ab", ["ab"]),  # ... after an underscore
    (" \u0301\u0302ab", ["ab"]),  # ... at the start of a word
    ("\u0301ab", ["ab"]),  # ... at the start of the text
    ("ab\u0301c1", []),  # a word holding a digit: the mark joined it, so nothing (before: ab)
    ("1a\u0301bc", []),  # (before: bc)
    ("a\u0301", ["a\u0301"]),  # a letter and a mark: two characters
    ("\u0301\u0302", []),
    ("a\u200db", []),  # a joiner (format character, not a mark) still separates
    ("\u0915\u094d\u200d\u0937", ["\u0915\u094d"]),  # ... as in Devanagari ka + virama + ZWJ + ssa
])
def test_marks_at_the_edges(text, tokens):
    pre = Preprocessor(stop_words=None, lowercase=False)
    assert pre.tokenize(text) == tokens == reference_tokens(text)
    assert pre.scan([text, "x" + text, text + "y"]).tokens() == [
        tokens, reference_tokens("x" + text), reference_tokens(text + "y")]


def test_the_mark_class_is_unicode_category_m():
    """MARKS holds exactly the Mn, Mc and Me code points (of Unicode 14.0, Python 3.11's), none of them a
    word character for re, and the compiled scan classifies exactly those as marks."""
    import numpy as np

    from tealeaves.corpus._scan import MARK, classes

    text = "".join(map(chr, range(0x110000)))
    found = {ord(c) for c in re.findall(f"[{MARKS}]", text)}
    if unicodedata.unidata_version == "14.0.0":
        assert found == {ord(c) for c in text if unicodedata.category(c) in ("Mn", "Mc", "Me")}
    assert len(found) > 2000 and not re.findall(r"(?u)\w", "".join(map(chr, found)))
    assert set(np.flatnonzero(classes() == MARK).tolist()) == found


#: Letters, marks, digits, spaces and punctuation of Devanagari, Bengali, Tamil, Thai, Khmer, Burmese,
#: Tibetan, Arabic, Hebrew and Latin, enclosing marks, variation selectors, joiners and emoji.
SCRIPTS = st.sampled_from(list(
    "कहनदिी्ंँ१।" "বাং়২" "தமிழ்௩" "น้ำี่๑ฯ" "ក្រា១។\u200b" "ကြု့၁" "བོད་" "بَّ٣،" "שָׁ"
    "aZé9_ -.\n\u0301\u0327\u0307İ\u20dd\u20e3\ufe0f\u200d\u200c❤\U0001d165"))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(SCRIPTS, max_size=25), max_size=6), st.booleans())
def test_tokenize_and_scan_equal_the_reference_rule(texts, lowercase):
    pre = Preprocessor(stop_words=None, lowercase=lowercase)
    expected = [reference_tokens(t.lower() if lowercase else t) for t in texts]
    assert [pre.tokenize(t) for t in texts] == expected
    assert pre.scan(texts).tokens() == expected


# -- recorded tokenisations ---------------------------------------------------------------------------------
def _old_recipe() -> dict:
    return {**Preprocessor().get_params(), "token_pattern": LETTERS_ONLY_PATTERN}


def test_an_old_recipe_still_tokenises_as_it_did():
    """A model or index recording the letters-only pattern is rebuilt with it (from_params): same tokens as
    before, by tokenize and by the (joined) scan."""
    old = Preprocessor.from_params(_old_recipe())
    text = "हिन्दी भाषा naïve cafe\u0301 words"
    assert old.tokenize(text) == re.findall(LETTERS_ONLY_PATTERN, text)
    assert "हिन्दी" not in old.tokenize(text) and "cafe" in old.tokenize(text)  # split at the marks
    assert old.scan([text, text]).tokens() == [old.tokenize(text)] * 2


def test_an_index_of_the_old_rule_loads_and_is_flagged(tmp_path):
    """An index whose header records the letters-only pattern (as every index built before) loads, and a
    model of the new default is another tokenisation (and the reverse); the message names the patterns
    instead of printing them (the default is about 4,000 characters)."""
    texts = ["the river flows to the sea", "a river bank and the sea"]
    old = Preprocessor.from_params(_old_recipe())
    corpus = old.fit_transform(texts)
    path = tmp_path / "old.tlx"
    build_index(corpus, name="old", tokenization=corpus.metadata["preprocessing"]).save(path)
    loaded = ReferenceIndex.load(path)
    assert loaded.tokenization["token_pattern"] == LETTERS_ONLY_PATTERN
    message = tokenization_mismatch(loaded, Preprocessor().get_params())
    assert message == ("the model was trained with another tokenisation than reference 'old' (token_pattern: "
                       f"model {PATTERN_NAMES[LETTERS_PATTERN]}, "
                       f"reference {PATTERN_NAMES[LETTERS_ONLY_PATTERN]}): its topic words may be "
                       "missing from the reference or counted differently")
    assert tokenization_mismatch(loaded, _old_recipe()) is None
    new = Preprocessor().fit_transform(texts)
    assert "reference the default letters-and-marks pattern" in tokenization_mismatch(
        build_index(new, tokenization=new.metadata["preprocessing"]), _old_recipe())
    assert len(LETTERS_PATTERN) > 3000 and LETTERS_PATTERN not in message


def test_index_info_names_the_pattern_in_text_and_records_it_in_json(tmp_path, run_cli):
    import json

    texts = ["the river flows to the sea", "a river bank and the sea"]
    for recipe, name in ((Preprocessor().get_params(), "letters-and-marks"), (_old_recipe(), "letters-only")):
        corpus = Preprocessor.from_params(recipe).fit_transform(texts)
        path = tmp_path / f"{name}.tlx"
        build_index(corpus, name=name, tokenization=corpus.metadata["preprocessing"]).save(path)
        text = run_cli(["index", "info", path])
        assert text.code == 0 and PATTERN_NAMES[recipe["token_pattern"]] in text.out
        assert recipe["token_pattern"] not in text.out
        info = json.loads(run_cli(["index", "info", path, "--format", "json"]).out)
        assert info["tokenization"]["token_pattern"] == recipe["token_pattern"]
