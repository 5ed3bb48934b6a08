"""Text written without spaces between words, tokenised as if it had them, is refused by every build path
(``corpus.preprocess.check_segmented``): ``tealeaves index build``, ``index build-aligned``, ``pltm fit``
(``AlignedCorpus.from_texts``) and the in-memory ``build_index``.

The real cases are FLORES-200 documents: Chinese (Simplified and Traditional) under a language code outside
the known table (``zh-hant``, ``yue``: the default letters-only tokenisation) is refused; the same text as
``zh`` (jieba), segmented into space-separated words, and English, Amharic, Tagalog text are accepted.
Scripts with combining marks, whose words the default tokenisation keeps whole: the system's Thai software
messages (no spaces between words) and Khmer ones without their zero-width spaces are refused; spaced
Hindi, Tamil and Bengali messages are accepted.
Every share in a message and every recorded count is checked against an independent recomputation from
``re.findall`` and ``unicodedata`` (:func:`_shares`).
"""

from __future__ import annotations

import json
import re
import unicodedata

import pytest

from conftest import DOCS, require_data
from conftest import write_jsonl as _jsonl
from conftest import write_text as _write
from tealeaves.corpus.preprocess import (
    LETTERS_PATTERN,
    LONG_TOKEN,
    UNSEGMENTED_SHARE,
    UnsegmentedTextError,
    check_segmented,
    letter_counts,
)
from tealeaves.errors import InputFormatError

#: The Universal Declaration of Human Rights, article 1, in Japanese (the official translation).
JAPANESE = ("すべての人間は、生まれながらにして自由であり、かつ、尊厳と権利とについて平等である。"
            "人間は、理性と良心とを授けられており、互いに同胞の精神をもって行動しなければならない。")


def _width(token: str) -> int:
    """Letters of a token, a wide (East Asian Width W/F) character counting 2 (recomputed per character)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in token)


def _shares(texts, tokenize=None) -> tuple[int, int]:
    """``(letters, long_letters)`` of the default letters-only tokens (or ``tokenize``'s) of ``texts``."""
    letters = long_letters = 0
    for text in texts:
        for token in (tokenize(text) if tokenize else re.findall(LETTERS_PATTERN, text.lower())):
            w = _width(token)
            letters += w
            long_letters += w if w > LONG_TOKEN else 0
    return letters, long_letters


def _default_tokens(text: str) -> list[str]:
    """The default Preprocessor's tokens (``tealeaves index build``): letters-only, English stop words out."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return [w for w in re.findall(LETTERS_PATTERN, text.lower()) if w not in ENGLISH_STOP_WORDS]


def _flores(code: str, n: int | None = None) -> list[dict]:
    path = require_data(f"parallel/flores200/docs/{code}.jsonl")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows[:n]


def _percent(letters: int, long_letters: int) -> str:
    share = f"{100 * long_letters / letters:.0f}%"
    return f"{share} of its letters are in tokens of more than {LONG_TOKEN} characters"


def _write_tuples(path, columns: dict[str, list[str]]):
    n = len(next(iter(columns.values())))
    with open(path, "w", encoding="utf-8") as fh:
        for k in range(n):
            fh.write(json.dumps({"id": f"d{k}", **{x: t[k] for x, t in columns.items()}}, ensure_ascii=False)
                     + "\n")
    return path


def _write_docs(path, texts: list[str]):
    with open(path, "w", encoding="utf-8") as fh:
        for k, t in enumerate(texts):
            fh.write(json.dumps({"id": f"d{k}", "text": t}, ensure_ascii=False) + "\n")
    return path


# -- the counts -----------------------------------------------------------------------------------------
def test_letter_counts_equal_a_per_character_recomputation():
    """Distinct words with counts, wide characters (Han, kana, Hangul, full-width) counting 2, others 1."""
    words = ["cat", "straße", "日本語", "中华人民共和国国务院", "한국어", "ｗｉｄｅ", "a" * 16, "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
             "ไทย"]
    counts = [3, 1, 2, 1, 4, 1, 2, 1, 5]
    letters = sum(_width(w) * c for w, c in zip(words, counts))
    long_letters = sum(_width(w) * c for w, c in zip(words, counts) if _width(w) > LONG_TOKEN)
    assert letter_counts(words, counts) == (letters, long_letters)
    assert long_letters == 20 + 16 * 2  # the ten Han characters and the 16 letters
    assert letter_counts([], []) == (0, 0)


@pytest.mark.parametrize("letters,long_letters,refused", [
    (100, 25, False), (100, 26, True), (0, 0, False), (1000, 0, False), (4, 4, True)])
def test_the_share_limit(letters, long_letters, refused):
    """More than UNSEGMENTED_SHARE (25%) of the letters in over-long tokens is refused; 25% exactly is not."""
    assert UNSEGMENTED_SHARE == 0.25
    if refused:
        with pytest.raises(UnsegmentedTextError, match="the xx text looks unsegmented"):
            check_segmented(letters, long_letters, "the xx text")
    else:
        check_segmented(letters, long_letters, "the xx text")


def test_the_margin_on_real_text():
    """The limit sits in a wide gap on real text: every spaced FLORES language puts at most half of it
    in over-long tokens (Swedish, the most, 3.4%), unsegmented Chinese more than twice it (about 80%)."""
    for code in ("eng_Latn", "amh_Ethi", "ron_Latn", "swe_Latn", "tgl_Latn", "tur_Latn"):
        letters, long_letters = _shares(r["text"] for r in _flores(code))
        assert long_letters < UNSEGMENTED_SHARE / 2 * letters, code
    for code in ("zho_Hans", "zho_Hant"):
        letters, long_letters = _shares(r["text"] for r in _flores(code))
        assert long_letters > 2 * UNSEGMENTED_SHARE * letters, code


# -- index build-aligned ----------------------------------------------------------------------------------
@pytest.mark.parametrize("code,flores", [("zh-hant", "zho_Hant"), ("yue", "zho_Hans"), ("zh-tw", "zho_Hant")])
def test_build_aligned_refuses_unsegmented_chinese(code, flores, tmp_path, cli_error):
    en = [r["text"] for r in _flores("eng_Latn", 120)]
    zh = [r["text"] for r in _flores(flores, 120)]
    src = _write_tuples(tmp_path / "t.jsonl", {"en": en, code: zh})
    result = cli_error(["index", "build-aligned", src, "-o", tmp_path / "ref"],
                       f"the {code} text looks unsegmented: {_percent(*_shares(zh))}", progress=True)
    assert "for Chinese use the language code zh" in result.err
    assert not (tmp_path / "ref").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tealeaves-build-")]


def test_build_aligned_refuses_japanese(tmp_path, cli_error):
    src = _write_tuples(tmp_path / "t.jsonl", {"en": ["all human beings are born free and equal"] * 3,
                                               "ja": [JAPANESE] * 3})
    cli_error(["index", "build-aligned", src, "-o", tmp_path / "ref"],
              f"the ja text looks unsegmented: {_percent(*_shares([JAPANESE]))}", progress=True)


def test_build_aligned_api_raises_the_error_class(tmp_path):
    from tealeaves.index.aligned import build_aligned_index

    src = _write_tuples(tmp_path / "t.jsonl", {"en": [r["text"] for r in _flores("eng_Latn", 50)],
                                               "yue": [r["text"] for r in _flores("zho_Hans", 50)]})
    with pytest.raises(UnsegmentedTextError, match="the yue text looks unsegmented") as info:
        build_aligned_index([src], tmp_path / "ref")
    assert isinstance(info.value, InputFormatError)


def _segmented_variants() -> dict[str, callable]:
    from tealeaves.corpus.aligned import jieba_tokenize

    pytest.importorskip("jieba")
    return {"jieba words joined by spaces": lambda t: " ".join(jieba_tokenize(t)),
            "a space after every second character": _pairs}


def _pairs(text: str) -> str:
    """``text`` with a space after every second character (two-character "words")."""
    return " ".join(text[k:k + 2] for k in range(0, len(text), 2))


@pytest.mark.parametrize("variant", ["jieba words joined by spaces", "a space after every second character"])
def test_build_aligned_accepts_presegmented_chinese(variant, tmp_path, run_cli):
    """The same FLORES text segmented into space-separated words passes under the default tokeniser (the
    check reads the tokens, not the language code), and the index records its counts."""
    from tealeaves.multilingual.aligned_files import load_aligned_reference

    segment = _segmented_variants()[variant]
    en = [r["text"] for r in _flores("eng_Latn", 120)]
    zh = [segment(r["text"]) for r in _flores("zho_Hant", 120)]
    src = _write_tuples(tmp_path / "t.jsonl", {"en": en, "zh-hant": zh})
    assert run_cli(["index", "build-aligned", src, "-o", tmp_path / "ref"]).code == 0
    assert load_aligned_reference(tmp_path / "ref").languages == ["en", "zh-hant"]
    _assert_recorded(tmp_path / "ref" / "zh-hant.tlx", _shares(zh), run_cli)
    _assert_recorded(tmp_path / "ref" / "en.tlx", _shares(en), run_cli)


def test_build_aligned_accepts_chinese_as_zh_and_english_amharic_tagalog(tmp_path, run_cli):
    """zh is segmented by jieba; English, Amharic and Tagalog are written with spaces."""
    from tealeaves.corpus.aligned import jieba_tokenize

    pytest.importorskip("jieba")
    texts = {x: [r["text"] for r in _flores(code, 150)]
             for x, code in (("en", "eng_Latn"), ("am", "amh_Ethi"), ("tl", "tgl_Latn"), ("zh", "zho_Hans"))}
    src = _write_tuples(tmp_path / "t.jsonl", texts)
    assert run_cli(["index", "build-aligned", src, "-o", tmp_path / "ref"]).code == 0
    for x in ("en", "am", "tl"):
        _assert_recorded(tmp_path / "ref" / f"{x}.tlx", _shares(texts[x]), run_cli)
    _assert_recorded(tmp_path / "ref" / "zh.tlx", _shares(texts["zh"], jieba_tokenize), run_cli)


def _assert_recorded(index_path, expected: tuple[int, int], run_cli) -> None:
    """``index info`` shows the counts, equal to the independent recomputation, under the limit."""
    run = run_cli(["index", "info", index_path, "--format", "json"])
    assert run.code == 0, run.err
    seg = json.loads(run.out)["segmentation"]
    assert (seg["letters"], seg["long_token_letters"]) == expected
    assert seg["long_token"] == LONG_TOKEN
    assert seg["long_token_letters"] <= UNSEGMENTED_SHARE * seg["letters"]


# -- index build (monolingual, streaming) and the in-memory build ----------------------------------------
@pytest.mark.parametrize("flores", ["zho_Hans", "zho_Hant"])
def test_index_build_refuses_unsegmented_chinese(flores, tmp_path, cli_error):
    """The default Preprocessor (English stop words: none of them is Chinese) over FLORES Chinese."""
    texts = [r["text"] for r in _flores(flores)]
    src = _write_docs(tmp_path / "zh.jsonl", texts)
    cli_error(["index", "build", src, "-o", tmp_path / "zh.tlx"],
              f"the text of '{src}' looks unsegmented: {_percent(*_shares(texts, _default_tokens))}",
              progress=True)
    assert not (tmp_path / "zh.tlx").exists()


def test_index_build_on_two_workers_refuses_unsegmented_chinese(tmp_path, cli_error):
    """Shards on Dask workers: the counts travel with the partials and are checked once, summed."""
    pytest.importorskip("distributed")
    rows = [r["text"] for r in _flores("zho_Hans")]
    shards = [_write_docs(tmp_path / f"s{k}.jsonl", rows[k::2]) for k in range(2)]
    cli_error(["index", "build", *shards, "-o", tmp_path / "zh.tlx", "--workers", "2"],
              f"the text looks unsegmented: {_percent(*_shares(rows, _default_tokens))}", progress=True)


@pytest.mark.parametrize("code", ["eng_Latn", "amh_Ethi", "tgl_Latn"])
def test_index_build_accepts_spaced_text_and_records_the_counts(code, tmp_path, run_cli):
    texts = [r["text"] for r in _flores(code)]
    src = _write_docs(tmp_path / "d.jsonl", texts)
    assert run_cli(["index", "build", src, "-o", tmp_path / "d.tlx"]).code == 0
    _assert_recorded(tmp_path / "d.tlx", _shares(texts, _default_tokens), run_cli)


def test_build_index_api_refuses_unsegmented_text():
    from tealeaves.corpus import Preprocessor
    from tealeaves.index import build_index

    corpus = Preprocessor().fit_transform([r["text"] for r in _flores("zho_Hant", 100)])
    with pytest.raises(UnsegmentedTextError, match="the reference text looks unsegmented"):
        build_index(corpus)


# -- pltm fit ----------------------------------------------------------------------------------------------
def test_pltm_fit_refuses_unsegmented_chinese(tmp_path, cli_error):
    en = [r["text"] for r in _flores("eng_Latn", 100)]
    zh = [r["text"] for r in _flores("zho_Hant", 100)]
    src = _write_tuples(tmp_path / "t.jsonl", {"en": en, "zh-hant": zh})
    cli_error(["pltm", "fit", src, "-k", "3", "--chains", "1", "--iterations", "5", "-o", tmp_path / "m",
               "--quiet"], "the zh-hant text looks unsegmented", progress=True)
    assert not (tmp_path / "m").exists()


def test_aligned_corpus_refuses_unsegmented_text_and_accepts_it_segmented():
    """AlignedCorpus.from_texts (pltm fit's tokenising) counts the tokens it keeps (after max_df)."""
    from tealeaves.corpus.aligned import AlignedCorpus

    en = [r["text"] for r in _flores("eng_Latn", 100)]
    zh = [r["text"] for r in _flores("zho_Hant", 100)]
    ids = [f"d{k}" for k in range(100)]
    with pytest.raises(UnsegmentedTextError, match="the zh-hant text looks unsegmented"):
        AlignedCorpus.from_texts({"en": en, "zh-hant": zh}, ids)
    spaced = [_pairs(t) for t in zh]
    corpus = AlignedCorpus.from_texts({"en": en, "zh-hant": spaced}, ids)
    assert corpus.n_tokens("zh-hant") > 0


def test_coherence_on_a_raw_unsegmented_corpus_is_refused(tmp_path, cli_error):
    """``tealeaves coherence --reference CORPUS`` indexes a raw corpus in memory (build_index): refused
    before any score is printed."""
    texts = [r["text"] for r in _flores("zho_Hans")]
    src = _write_docs(tmp_path / "zh.jsonl", texts)
    topics = tmp_path / "topics.txt"
    topics.write_text("科学家 宣布 细胞\n")
    result = cli_error(["coherence", "--reference", src, "--topics", topics],
                       f"looks unsegmented: {_percent(*_shares(texts, _default_tokens))}")
    assert result.out == ""


# -- scripts with combining marks (the default tokenisation keeps them: tests/test_tokenise_marks.py) -------
def _messages(lang: str) -> list[str]:
    """The system's translated software messages in ``lang`` of 40 characters or more
    (``/usr/share/locale/<lang>/LC_MESSAGES/*.mo``: real text written by the language's translators), read
    by ``benchmarks/segmentation_shares.py`` (the one reader of them)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "segmentation_shares.py"
    spec = importlib.util.spec_from_file_location("segmentation_shares", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = module.messages(lang)
    if len(out) < 200:
        pytest.skip(f"fewer than 200 {lang} messages in /usr/share/locale/{lang}/LC_MESSAGES")
    return out


def _scan_counts(texts: list[str], pattern: str = LETTERS_PATTERN) -> tuple[int, int]:
    from tealeaves.corpus import Preprocessor

    return Preprocessor(token_pattern=pattern, stop_words=None).scan(texts).letter_counts()


def test_unsegmented_thai_is_refused_with_its_words_whole():
    """Thai software messages (no spaces between words) put 73% of their letters in over-long tokens; split
    at every combining mark, as before, only 2.4%, which the check could not catch."""
    from tealeaves.corpus.preprocess import LETTERS_ONLY_PATTERN

    texts = _messages("th")
    counts = _scan_counts(texts)
    assert counts == _shares(texts)  # the scan's counts, recomputed from re.findall and unicodedata
    with pytest.raises(UnsegmentedTextError, match=re.escape(_percent(*counts))):
        check_segmented(*counts, "the th text")
    assert counts[1] > 2 * UNSEGMENTED_SHARE * counts[0]
    old = _scan_counts(texts, LETTERS_ONLY_PATTERN)
    assert old[1] < 0.2 * UNSEGMENTED_SHARE * old[0]  # 2.4-2.6% of letters: far below what the check catches


def test_index_build_refuses_unsegmented_thai(tmp_path, cli_error):
    texts = _messages("th")
    src = _write_docs(tmp_path / "th.jsonl", texts)
    cli_error(["index", "build", src, "-o", tmp_path / "th.tlx"],
              f"the text of '{src}' looks unsegmented: {_percent(*_shares(texts, _default_tokens))}",
              progress=True)
    assert not (tmp_path / "th.tlx").exists()


def test_khmer_is_refused_without_its_zero_width_spaces():
    """Khmer messages mark word ends with U+200B ZERO WIDTH SPACE (a format character, which separates
    tokens): accepted as they are, refused once those invisible separators are removed, as much Khmer text
    is written."""
    texts = _messages("km")
    assert sum(t.count("\u200b") for t in texts) > 1000  # thousands on every system seen (4,257 to 5,000+)
    check_segmented(*_scan_counts(texts), "the km text")
    bare = [t.replace("\u200b", "") for t in texts]
    with pytest.raises(UnsegmentedTextError, match=re.escape(_percent(*_shares(bare)))):
        check_segmented(*_scan_counts(bare), "the km text")


@pytest.mark.parametrize("lang", ["hi", "ta", "bn"])
def test_spaced_indic_text_is_accepted_and_keeps_its_letters(lang):
    """Hindi, Tamil and Bengali messages are written with spaces: accepted, with all but a few of their
    letters and marks in tokens (before: 26-32%, the rest cut into single-letter fragments and dropped)."""
    from tealeaves.corpus.preprocess import LETTERS_ONLY_PATTERN

    texts = [t.lower() for t in _messages(lang)]
    counts = _scan_counts(texts)
    assert counts == _shares(texts)
    check_segmented(*counts, f"the {lang} text")
    assert counts[1] < UNSEGMENTED_SHARE / 2 * counts[0]

    def kept(pattern: str) -> float:  # share of the non-ASCII letters and marks that are inside tokens
        total = sum(1 for t in texts for c in t if not c.isascii() and unicodedata.category(c)[0] in "LM")
        return sum(len(w) - sum(map(str.isascii, w)) for t in texts for w in re.findall(pattern, t)) / total

    assert kept(LETTERS_PATTERN) > 0.99 and kept(LETTERS_ONLY_PATTERN) < 0.35


# -- the API's token lists -----------------------------------------------------------------------------------
UNSEGMENTED = [["我们今天在北京学习中文", "北京的天气今天很好"], ["今天我们在北京学习", "x"],
               ["我们在北京学习中文很开心"]]


@pytest.mark.parametrize("restricted", [False, True])
def test_unsegmented_token_lists_are_refused_like_a_corpus(restricted):
    # before: Coherence.score(topics, token_lists) scored them (mean -0.26 with exit 0) while
    # Corpus.from_token_lists of the same tokens was refused
    from tealeaves.coherence import Coherence, index_from_token_lists
    from tealeaves.corpus import Corpus
    from tealeaves.corpus.preprocess import UnsegmentedTextError

    words = ["我们今天在北京学习中文", "北京的天气今天很好"]
    with pytest.raises(UnsegmentedTextError, match="the reference text looks unsegmented"):
        Coherence("npmi").score([words], Corpus.from_token_lists(UNSEGMENTED))
    with pytest.raises(UnsegmentedTextError, match=r"reference text \(token lists\) looks unsegmented: 99%"):
        index_from_token_lists(UNSEGMENTED, words=words if restricted else None)
    if not restricted:
        with pytest.raises(UnsegmentedTextError, match="token lists"):
            Coherence("npmi").score([words], UNSEGMENTED)


@pytest.mark.parametrize("restricted", [False, True])
def test_segmented_token_lists_record_their_counts(restricted):
    from tealeaves.coherence import index_from_token_lists

    docs = [d.split() for d in DOCS] + [["internationalisation", "x"]]  # 20 letters in one long token
    ix = index_from_token_lists(docs, words=["cat", "dog"] if restricted else None)
    letters = sum(len(w) for d in docs for w in d)
    assert ix.header["segmentation"] == {"letters": letters, "long_token_letters": 20, "long_token": 15}


# -- the message names what the command can do ---------------------------------------------------------------
ZH_LINES = "".join(" ".join(d) + "\n" for d in UNSEGMENTED) * 3


@pytest.mark.parametrize("argv", [
    ["index", "build", "{src}", "-o", "{out}"],
    ["coherence", "--reference", "{src}", "--topics", "{topics}"],  # a raw corpus, indexed in memory
])
def test_one_language_builds_do_not_suggest_a_language_code(tmp_path, cli_error, argv):
    # before: "(segment it into space-separated words first, or for Chinese use the language code zh ...)":
    # neither command has a language code
    from tealeaves.corpus.preprocess import TEXT_FIX

    src = _write(tmp_path / "zh.txt", ZH_LINES)
    values = {"src": src, "out": tmp_path / "zh.tlx", "topics": _write(tmp_path / "t.txt", "我们 北京\n")}
    r = cli_error([a.format(**values) for a in argv], "looks unsegmented: 99% of its letters", progress=True)
    assert f"({TEXT_FIX})" in r.err and "language code zh" not in r.err
    assert not (tmp_path / "zh.tlx").exists()


def test_aligned_builds_keep_the_language_code_fix(tmp_path, cli_error):
    from tealeaves.corpus.preprocess import ALIGNED_FIX

    rows = [{"id": i, "en": "cat dog", "zh-hant": " ".join(d)} for i, d in enumerate(UNSEGMENTED)]
    r = cli_error(["index", "build-aligned", _jsonl(tmp_path / "t.jsonl", rows), "-o", tmp_path / "r"],
                  "the zh-hant text looks unsegmented", progress=True)
    assert f"({ALIGNED_FIX})" in r.err
