"""The build's bulk tokeniser (Preprocessor.scan) yields exactly the token stream of Preprocessor.tokenize.

The tokenisation is recorded in every index, so the streaming build's one-pass scan of a batch of
texts must give, text by text, the tokens the per-text ``tokenize`` gives: on the real Reuters
stories, under every recipe the build can be given, and on adversarial Unicode (case mappings that
depend on context or change length, non-ASCII digits and letters, marks, joiners, control
characters, line separators, the separator word itself).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import require_data
from tealeaves.corpus import Preprocessor
from tealeaves.corpus.preprocess import LETTERS_ONLY_PATTERN, SEPARATOR, WORD_PATTERNS
from tealeaves.index import ReferenceIndex, build_index
from tealeaves.index.streaming import build_streaming

#: Recipes covering every branch of the scan: the default pattern (ASCII fast path and regex path),
#: scikit-learn's word pattern, a pattern of no fixed form (text by text), no lowercasing, no stop
#: words, a stop list.
RECIPES = {
    "default": {},
    "no-lowercase": {"lowercase": False},
    "no-stop-words": {"stop_words": None},
    "stop-list": {"stop_words": ["oil", "The", "ΟΔΟΣ"], "lowercase": False},
    "sklearn-words": {"token_pattern": r"(?u)\b\w\w+\b"},
    "letters-only": {"token_pattern": LETTERS_ONLY_PATTERN},  # the default before marks were kept
    "other-pattern": {"token_pattern": r"[^\s,.]+"},
}

#: Texts built to break a joined scan if it were wrong.
NASTY = [
    "ΟΔΟΣ",  # a final capital sigma: lowercases to ς at the end of a text...
    "ΑΒΓ ΟΔΟΣ",
    "ΣΑΣ ΟΔΟΣ.",  # ...and to σ inside a word
    "\u212aelvin KELVIN",  # the Kelvin sign lowercases to ASCII k
    "İstanbul ıi İI",  # dotted capital I lowercases to two code points
    "ǅemal ǈubljana ǋ",  # title-case digraphs
    "straße STRASSE ﬁnance ﬀ",  # ß and ligatures
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝐁𝐨𝐥𝐝 text",  # letters outside the BMP
    "café cafe\u0301 naïve",  # precomposed and combining accents
    "a\u200db zero\u200cwidth joiner",  # joiners between letters
    "٣٤٥abc abc٣ ١٢ x٣y",  # Arabic-Indic digits (Unicode \\d)
    "１２３ full ｗｉｄｔｈ ＡＢＣ",  # full-width digits and letters
    "abc1 1abc a1b __x__ foo_bar ok",  # digits and underscores glued to letters
    "don't can't o'clock rock'n'roll",
    "nul\x00byte\x00 form\x0cfeed tab\tsep",
    "line\u2028sep para\u2029sep next\x85line",
    "\n\n\r\n",
    "",
    "a",
    "QXSEPQX qxsepqx QXSEPQXQ",  # the separator word itself (kept when not lowercased)
    "\nQXSEPQX\n",
    "x" * 3 + " " + "ab" * 50,
    "mixed ASCII and ünïcödé in one text",
    "עברית العربية 中文 日本語 한국어 ไทย",
    "\ud7ff\ue000\uffff end",
    "हिन्दी भाषा में 1\u0301ab ab\u0301c1 \u0301ab",  # combining marks: attached, after a digit, at a start
    "ฉัน ดื่ม น้ำ ខ្មែរ தமிழ் 가 1\u20e3 x\ufe0f",  # Thai, Khmer, Tamil, conjoining jamo, keycap, selector
]


def scanned(pre: Preprocessor, texts: list[str]) -> list[list[str]]:
    return pre.scan(texts).tokens()


def tokenised(pre: Preprocessor, texts: list[str]) -> list[list[str]]:
    return [pre.tokenize(t) for t in texts]


@pytest.fixture(scope="module")
def reuters_texts():
    require_data("reuters21578/reut2-000.sgm")
    from tealeaves.corpus.reuters import modapte_split, story_text

    train, test, _ = modapte_split()
    return [story_text(s) for s in train + test]


@pytest.mark.parametrize("recipe", list(RECIPES))
def test_scan_equals_tokenize_on_reuters(reuters_texts, recipe):
    pre = Preprocessor(**RECIPES[recipe])
    expected = tokenised(pre, reuters_texts)
    assert sum(map(len, expected)) > 400_000  # the real stories, not an empty stream
    assert scanned(pre, reuters_texts) == expected
    rng = np.random.default_rng(0)  # and in batches of every size, as the build cuts them
    cuts = np.unique(np.concatenate([[0, len(reuters_texts)], rng.integers(0, len(reuters_texts), 40)]))
    for a, b in zip(cuts[:-1], cuts[1:]):
        assert scanned(pre, reuters_texts[a:b]) == expected[a:b]


def test_the_default_pattern_takes_the_compiled_pass_on_ascii_and_unicode(reuters_texts, monkeypatch):
    from tealeaves.corpus import _scan

    calls = []
    real = _scan.letter_runs
    monkeypatch.setattr(_scan, "letter_runs", lambda codes, *a: calls.append(codes.dtype) or real(codes, *a))
    pre = Preprocessor()
    assert pre.scan(["abc1 ok 42 x_y zz"]).tokens() == [["ok", "zz"]] and calls == [np.uint8]
    assert pre.scan(["abc1 ok 42 é ßa x²y"]).tokens() == [["ok", "ßa", "x²y"]]
    assert calls == [np.uint8, np.uint32]  # not ASCII: UTF-32 code units
    # so the Reuters test above ran the byte pass on nearly every batch
    assert sum(t.lower().isascii() for t in reuters_texts) > 0.99 * len(reuters_texts)


@pytest.mark.parametrize("text", ["ab", "aé", "ab cd", "ab1"])
def test_many_short_texts_fill_the_scan_exactly(text):
    """Texts joined without separators can hold more matches than a third of their code points (every
    text "ab": one match per two code points); the scan sizes its arrays for that."""
    pre = Preprocessor(stop_words=None)
    for n in (1, 2, 3, 7, 100, 1001):
        texts = [text] * n
        assert pre.scan(texts).tokens() == [pre.tokenize(text)] * n


def test_code_point_classes_are_those_of_re():
    """Every code point (surrogates included) is classified as the pattern's ``\\w``, ``[^\\W\\d_]`` and
    marks."""
    import re

    from tealeaves.corpus._marks import MARKS
    from tealeaves.corpus._scan import ASCII_CLASSES, LETTER, MARK, NOT_WORD, classes

    text = "".join(map(chr, range(0x110000)))
    word = np.zeros(0x110000, dtype=bool)
    word[[ord(c) for c in re.findall(r"(?u)\w", text)]] = True
    letter = np.zeros(0x110000, dtype=bool)
    letter[[ord(c) for c in re.findall(r"(?u)[^\W\d_]", text)]] = True
    mark = np.zeros(0x110000, dtype=bool)
    mark[[ord(c) for c in re.findall(f"[{MARKS}]", text)]] = True
    table = classes()
    assert np.array_equal((table != NOT_WORD) & (table != MARK), word) and np.array_equal(table == MARK, mark)
    assert np.array_equal(table == LETTER, letter) and not (word & mark).any()
    assert letter.sum() > 100_000 and (word & ~letter).sum() > 500
    assert np.array_equal(ASCII_CLASSES[:128], table[:128]) and not ASCII_CLASSES[128:].any()


@pytest.mark.parametrize("recipe", list(RECIPES))
def test_scan_equals_tokenize_on_nasty_unicode(recipe):
    pre = Preprocessor(**RECIPES[recipe])
    assert scanned(pre, NASTY) == tokenised(pre, NASTY)
    for k in range(len(NASTY)):  # every text alone, and each pair in both orders
        assert scanned(pre, NASTY[k:k + 1]) == tokenised(pre, NASTY[k:k + 1])
        pair = [NASTY[k], NASTY[-1 - k]]
        assert scanned(pre, pair) == tokenised(pre, pair)


@pytest.mark.parametrize("pattern", WORD_PATTERNS)
def test_separator_word_in_the_text_is_a_token_not_a_boundary(pattern):
    pre = Preprocessor(token_pattern=pattern, lowercase=False, stop_words=None)
    for extra in ("", " é"):  # the compiled pass (bytes, code points), or the joined regex
        texts = [f"a {SEPARATOR} b{extra}", SEPARATOR, f"cc {SEPARATOR}Q"]
        assert pre.tokenize(texts[0]) == [SEPARATOR]
        assert pre.scan(texts).tokens() == [pre.tokenize(t) for t in texts]
        assert pre.scan(texts).tokens()[1:] == [[SEPARATOR], ["cc", SEPARATOR + "Q"]]


def test_final_sigma_sees_one_text_at_a_time():
    pre = Preprocessor(stop_words=None)
    # joined before lowercasing, the sigma ending text 1 would be followed by the letters of text 2
    assert "ΟΔΟΣ'ΑΒ".lower() == "οδοσ'αβ"  # the apostrophe is case-ignorable: Σ is not final here
    assert pre.tokenize("ΟΔΟΣ'") == ["οδος"] and pre.tokenize("ΟΔΟΣ") == ["οδος"]
    assert scanned(pre, ["ΟΔΟΣ'", "'ΑΒ"]) == [["οδος"], ["αβ"]]
    assert scanned(pre, ["ΟΔΟΣ", "ΑΒ"]) == [["οδος"], ["αβ"]]


def test_word_patterns_cannot_cross_a_line_break():
    import re

    for pattern in WORD_PATTERNS:
        assert re.findall(pattern, "ab\ncd") == ["ab", "cd"]
        assert re.findall(pattern, f"ab\n{SEPARATOR}\ncd") == ["ab", SEPARATOR, "cd"]


ALPHABET = st.sampled_from(list("aZ9_ '-.\n\r\t\x00\x0c\u2028\u0301\u200dßΣσςİı\u212a٣１ｗकि्१ี่")
                           + ["𝔘", "ǅ", "ﬁ"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(ALPHABET, max_size=30), max_size=8), st.sampled_from(list(RECIPES)))
def test_scan_equals_tokenize_property(texts, recipe):
    pre = Preprocessor(**RECIPES[recipe])
    assert scanned(pre, texts) == tokenised(pre, texts)


def test_streaming_build_of_nasty_unicode_equals_the_single_build(tmp_path):
    """Through the whole build (batches cut inside chunks, chunks of 3 tokens, a tail renumbered): the
    index equals build_index over Preprocessor.fit_transform, i.e. over the per-text tokeniser."""
    path = tmp_path / "nasty.jsonl"
    # with a text of ordinary words: 24% of NASTY's letters are in its 100-letter token, near the share
    # the build refuses as unsegmented text (check_segmented; tests/bad_inputs/test_unsegmented.py)
    texts = NASTY * 3 + ["ordinary words of a segmented text " * 8]
    with open(path, "w", encoding="utf-8") as fh:
        for k, text in enumerate(texts):
            fh.write(json.dumps({"id": f"d{k}", "text": text}) + "\n")
    for chunk in (3, 10, 10_000):
        index, _ = build_streaming([path], tmp_path / f"n{chunk}.tlx", chunk_tokens=chunk, manifest=False)
        corpus = Preprocessor().fit_transform(texts, [f"d{k}" for k in range(len(texts))])
        single = build_index(corpus, name="nasty", tokenization=corpus.metadata["preprocessing"],
                             source=str(path.resolve()))
        loaded = ReferenceIndex.load(tmp_path / f"n{chunk}.tlx")
        assert list(loaded.vocabulary) == list(single.vocabulary)
        for name, values in single.arrays.items():
            assert np.array_equal(np.asarray(loaded.arrays[name]), np.asarray(values)), (chunk, name)
        assert loaded.checksum == single.checksum


def test_chunks_end_at_the_same_documents_as_one_document_at_a_time(tmp_path):
    """Tokenising 4 MiB batches must not move chunk ends: a chunk still ends with the first document at
    which it reaches chunk_tokens, as when documents were added one at a time (recomputed here from
    Preprocessor.tokenize), with a fixed vocabulary (pruning) and without."""
    require_data("reuters21578/reut2-000.sgm")
    from tealeaves.corpus.reuters import modapte_split, story_text
    from tealeaves.index.format import read_header
    from tealeaves.index.streaming import count_shard, fit_vocabulary, index_shard, plan

    train, _, _ = modapte_split()
    texts = [story_text(s) for s in train[:800]]
    path = tmp_path / "one.jsonl"
    with open(path, "w", encoding="utf-8") as fh:
        for k, text in enumerate(texts):
            fh.write(json.dumps({"id": str(k), "text": text}) + "\n")
    for pre in (Preprocessor(), Preprocessor(min_df=2)):
        settings = plan([path], pre, 1 << 30, str(tmp_path))
        if pre.min_df == 2:
            settings.vocabulary = fit_vocabulary([count_shard(str(path), 0, settings)], settings.recipe)
        keep = set(settings.vocabulary) if settings.vocabulary is not None else None
        for limit in (1, 2_999, 25_000):
            settings.chunk_tokens = limit
            expected, docs, tokens = [], 0, 0
            for text in texts:
                words = pre.tokenize(text)
                docs, tokens = docs + 1, tokens + sum(1 for w in words if keep is None or w in keep)
                if tokens >= limit:
                    expected.append((docs, tokens))
                    docs, tokens = 0, 0
            if docs:
                expected.append((docs, tokens))
            result = index_shard(str(path), 0, settings)
            got = [(h["n_present"], h["n_tokens"]) for h in (read_header(p.path) for p in result.partials)]
            assert got == expected, (pre.min_df, limit)
            assert sum(t for _, t in got) > 30_000


@pytest.mark.parametrize("recipe", ["default", "no-lowercase", "other-pattern"])
def test_counting_pass_equals_counters_over_tokenize(reuters_texts, tmp_path, recipe):
    """The pruning recipe's counting pass (batched scan, numpy counts) gives the document and token
    frequencies of Counter over Preprocessor.tokenize, text by text."""
    from collections import Counter

    from tealeaves.index.streaming import count_shard, plan

    texts = reuters_texts[:3000] + NASTY * 3
    path = tmp_path / "c.jsonl"
    with open(path, "w", encoding="utf-8") as fh:
        for k, text in enumerate(texts):
            fh.write(json.dumps({"id": str(k), "text": text}) + "\n")
    pre = Preprocessor(**RECIPES[recipe], min_df=2)
    n, df, tf = count_shard(str(path), 0, plan([path], pre, 1 << 30, str(tmp_path)))
    expected_df, expected_tf = Counter(), Counter()
    for text in texts:
        words = pre.tokenize(text)
        expected_df.update(set(words))
        expected_tf.update(words)
    assert n == len(texts) and len(df) > 5000
    assert df == expected_df and tf == expected_tf
