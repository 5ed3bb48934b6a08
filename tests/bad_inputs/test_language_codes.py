"""The one language-code rule (``tealeaves.corpus.aligned.language_code``) wherever a language is named:
the keys of aligned tuples (``index build-aligned``, ``pltm fit``), ``--lang`` of parallel files, the topics
of ``cnpmi``, the built-in references, ``estimator features --high``.  Codes outside tealeaves' table
(``bg``) are accepted everywhere alike; what is not a code is refused everywhere alike.

Each case asserts a clean error (exit code, ``tealeaves: error:`` and a fragment, no traceback; the error
class through the API), or a result equal to an independent computation.  A comment "before:" says what the
case did before its fix."""

from __future__ import annotations

import json
import math
import re
from itertools import product

import numpy as np
import pytest

from conftest import DOCS, brute_npmi_pair
from conftest import write_jsonl as _jsonl
from conftest import write_text as _write
from tealeaves.corpus.aligned import LanguageMismatchError, UnknownLanguageError, default_preprocessor
from tealeaves.signature import Signature


# -- the rule ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("code, expected", [("eng_Latn", "en"), ("BG", "bg"), (" sv ", "sv"), ("fil", "tl"),
                                            ("zh-yue", "zh-yue"), ("be-tarask", "be-tarask"), ("bul", "bul")])
def test_language_code_rule(code, expected):
    from tealeaves.corpus.aligned import language_code

    assert language_code(code) == expected


@pytest.mark.parametrize("code", ["klingon", "e", "", "b g", "e1", "\u212ab", "bg_Cyrl", "en-", "zh-y"])
def test_language_code_rule_refuses(code):
    from tealeaves.corpus.aligned import language_code

    with pytest.raises(UnknownLanguageError, match="is not a language code"):
        language_code(code)


# -- tuple keys ----------------------------------------------------------------------------------------------
def test_tuple_keys_follow_the_same_rule(tmp_path, cli_error):
    # a key that is no language (e.g. a stray "title") is refused, as it was; a bg key needs no --languages
    src = _jsonl(tmp_path / "t.jsonl", [{"id": 1, "bg": "котка", "en": "cat", "title": "x"}])
    cli_error(["index", "build-aligned", src, "-o", tmp_path / "r"], "'title' is not a language code",
              progress=True)


@pytest.mark.parametrize("key, side", [("EN", "en"), ("en-US", "en"), ("eng_Latn", "en"), ("und", "und"),
                                       ("mul", "mul"), ("sv-SE", "sv-se"), ("BUL", "bul")])
def test_tuple_key_spellings_build_and_score(tmp_path, run_cli, key, side):
    rows = [{"id": i, key: d, "sv": d.replace("cat", "katt")} for i, d in enumerate(DOCS)]
    if key.lower().startswith("sv"):
        rows = [{"id": i, key: d, "en": d} for i, d in enumerate(DOCS)]
    out = tmp_path / "ref"
    res = run_cli(["index", "build-aligned", _jsonl(tmp_path / "t.jsonl", rows), "-o", out])
    assert res.code == 0, res.err
    manifest = json.loads((out / "aligned.json").read_text(encoding="utf-8"))
    assert side in manifest["languages"]
    other = "en" if key.lower().startswith("sv") else "sv"
    topics = _write(tmp_path / "k.json", json.dumps({key: [["mat", "dog"]], other: [["mat", "dog"]]}))
    res = run_cli(["cnpmi", topics, "--reference", out, "--top", "2", "--format", "json"])
    assert res.code == 0, res.err
    docs = [set(d.split()) for d in DOCS]  # both sides hold the same words for mat and dog
    pairs = [("mat", "mat"), ("mat", "dog"), ("dog", "mat"), ("dog", "dog")]
    want = np.mean([brute_npmi_pair(docs, a, b) for a, b in pairs])
    assert json.loads(res.out)["cnpmi"]["per_topic"] == pytest.approx([want], abs=1e-12)


@pytest.mark.parametrize("key, fragment", [
    ("en_US", "'en_US' is not a language code"),
    ("zh_Hant", "'zh_Hant' is not a language code"),
    ("", "'' is not a language code"),
    ("ñe", "'ñe' is not a language code"),
    ("e n", "'e n' is not a language code"),
    ("en-", "'en-' is not a language code"),
])
def test_tuple_keys_refused(tmp_path, cli_error, key, fragment):
    src = _jsonl(tmp_path / "t.jsonl", [{"id": 1, key: "cat dog", "sv": "katt hund"}])
    cli_error(["index", "build-aligned", src, "-o", tmp_path / "r"], fragment, progress=True)
    assert not (tmp_path / "r").exists()


def test_zh_hans_key_is_chinese_segmented_by_jieba(tmp_path, run_cli):
    pytest.importorskip("jieba")
    rows = [{"id": 1, "zh_Hans": "我们今天在北京学习中文。", "en": "we study chinese in beijing today"},
            {"id": 2, "zh_Hans": "北京的天气很好。", "en": "the weather in beijing is good"}]
    res = run_cli(["index", "build-aligned", _jsonl(tmp_path / "t.jsonl", rows), "-o", tmp_path / "r"])
    assert res.code == 0, res.err
    info = json.loads(run_cli(["index", "info", tmp_path / "r" / "zh.tlx", "--format", "json"]).out)
    assert info["segmentation"]["long_token_letters"] == 0 and "jieba" in json.dumps(info["tokenization"])


# -- a bg-en reference: built, scored by cnpmi, fitted by pltm -----------------------------------------------
BG_EN = [
    {"id": "a", "bg": "Котката спи на килима.", "eng": "The cat sleeps on the rug."},
    {"id": "b", "bg": "Кучето и котката играят.", "eng": "The dog and the cat play."},
    {"id": "c", "bg": "Кучето лае силно.", "eng": None},
    {"id": "d", "bg": "Килима е червен.", "eng": "The rug is red and the dog sleeps."},
    {"id": "e", "eng": "A cat."},
]


BG_TOPICS = {"bg": [["котката", "кучето", "килима"], ["спи", "лае", "червен"]],
             "en": [["cat", "dog", "rug"], ["sleeps", "play", "absentword"]]}


def _sets(lang, key):
    pre = default_preprocessor(lang, max_df=1.0)
    return [set(pre.tokenize(t[key])) if t.get(key) else None for t in BG_EN]


def _npmi(pab, pa, pb):
    if pa == 0 or pb == 0:
        return 0.0  # a word absent from the reference (absent=zero)
    if pab == 0:
        return -1.0  # never together (zero=limit)
    if pab == 1:
        return 1.0
    return math.log(pab / (pa * pb)) / -math.log(pab)


def brute_cnpmi(words_bg, words_en):
    """CNPMI of one topic by sets over the tuples holding both a bg and an en document."""
    pairs = [(a, b) for a, b in zip(_sets("bg", "bg"), _sets("en", "eng"), strict=True) if a and b]
    n = len(pairs)
    vals = [_npmi(sum(a in x and b in y for x, y in pairs) / n, sum(a in x for x, _ in pairs) / n,
                  sum(b in y for _, y in pairs) / n) for a, b in product(words_bg, words_en)]
    return sum(vals) / len(vals)


@pytest.fixture
def bg_en(tmp_path, run_cli):
    """A bg-en aligned reference built from JSON Lines with no --languages, and a topics file."""
    out = tmp_path / "bgref"
    r = run_cli(["index", "build-aligned", _jsonl(tmp_path / "bg-en.jsonl", BG_EN), "-o", out])
    assert r.code == 0, r.err
    assert "5 tuples (bg: 4, en: 4 documents)" in r.out
    return out, _write(tmp_path / "topics.json", json.dumps(BG_TOPICS, ensure_ascii=False))


def test_cnpmi_scores_a_bg_en_reference_built_from_json_lines(bg_en, run_cli):
    # before: `index build-aligned` refused the 'bg' key without --languages bg,en, and with it the reference
    # was built but `cnpmi` refused the topics ("unknown language code 'bg'; known codes: ...")
    ref, topics = bg_en
    result = run_cli(["cnpmi", topics, "--reference", ref, "--top", "3", "--format", "json"])
    assert result.code == 0, result.err
    out = json.loads(result.out)["cnpmi"]
    expected = [brute_cnpmi(BG_TOPICS["bg"][k], BG_TOPICS["en"][k]) for k in range(2)]
    assert out["per_topic"] == pytest.approx(expected, abs=1e-12)
    assert expected[0] != expected[1]  # the topics are told apart
    assert Signature.parse(out["signature"]).fields["langs"] == "bg-en"


def test_parallel_files_and_the_api_read_the_same_codes(tmp_path, bg_en, run_cli):
    from tealeaves.multilingual import measures as M
    from tealeaves.multilingual.reference import resolve_reference

    both = [t for t in BG_EN if t.get("bg") and t.get("eng")]
    bg = _write(tmp_path / "bg.txt", "".join(t["bg"] + "\n" for t in both))
    en = _write(tmp_path / "en.txt", "".join(t["eng"] + "\n" for t in both))
    ids = _write(tmp_path / "ids.txt", "".join(t["id"] + "\n" for t in both))
    out = tmp_path / "lines"
    r = run_cli(["index", "build-aligned", "--lang", f"BG={bg}", "--lang", f"eng={en}", "--doc-ids", ids,
                 "-o", out])
    assert r.code == 0, r.err
    ref, _ = bg_en
    scores = M.cnpmi({"bg": BG_TOPICS["bg"], "eng_Latn": BG_TOPICS["en"]},
                     resolve_reference(str(out), ["bg", "en"]))
    expected = [brute_cnpmi(BG_TOPICS["bg"][k], BG_TOPICS["en"][k]) for k in range(2)]
    assert scores.per_topic.tolist() == pytest.approx(expected, abs=1e-12)
    assert resolve_reference(str(ref), ["bg", "en"]).languages == ["bg", "en"]


@pytest.mark.parametrize("key, error, fragment", [
    ("bulgarian", UnknownLanguageError, "'bulgarian' is not a language code (ISO 639-1/639-3 style"),
    ("b1", UnknownLanguageError, "'b1' is not a language code"),
    ("xx", LanguageMismatchError, "has no 'xx' side (it has ['bg', 'en'])"),
    ("bul", LanguageMismatchError, "has no 'bul' side"),  # 639-3 codes outside the table are not mapped
])
def test_cnpmi_language_keys(bg_en, cli_error, tmp_path, key, error, fragment):
    from tealeaves.multilingual import measures as M
    from tealeaves.multilingual.reference import resolve_reference

    ref, _ = bg_en
    topics = {key: BG_TOPICS["bg"], "en": BG_TOPICS["en"]}
    cli_error(["cnpmi", _write(tmp_path / "k.json", json.dumps(topics)), "--reference", ref], fragment)
    with pytest.raises(error, match=re.escape(fragment)):
        M.cnpmi(topics, resolve_reference(str(ref), ["bg", "en"]))


def test_pltm_fit_on_bg_en_and_its_topics_scored_by_cnpmi(tmp_path, bg_en, run_cli):
    # before: `pltm fit` refused the bg tuples ("unknown language code 'bg'; known codes: ..."), so a bg-en
    # model could not be fitted on the texts its reference was built from
    from tealeaves.multilingual.pltm_io import load_pltm

    ref, _ = bg_en
    fit = run_cli(["pltm", "fit", _jsonl(tmp_path / "fit.jsonl", BG_EN), "-k", "2", "--iterations", "4",
                   "--chains", "1", "--max-df", "1.0", "-o", tmp_path / "m"])
    assert fit.code == 0, fit.err
    model, preprocessors = load_pltm(tmp_path / "m")
    assert model.languages_ == ["bg", "en"]
    for lang, key in (("bg", "bg"), ("en", "eng")):  # every token of the tuples, no language mixed up
        assert set(preprocessors[lang].vocabulary_.words) == set().union(*filter(None, _sets(lang, key)))
    topics = json.loads((tmp_path / "m" / "topics.json").read_text(encoding="utf-8"))
    result = run_cli(["cnpmi", tmp_path / "m" / "topics.json", "--reference", ref, "--top", "3",
                      "--format", "json"])
    assert result.code == 0, result.err
    want = [brute_cnpmi(topics["bg"][k][:3], topics["en"][k][:3]) for k in range(2)]
    assert json.loads(result.out)["cnpmi"]["per_topic"] == pytest.approx(want, abs=1e-12)


# -- the built-in references and estimator features --high ---------------------------------------------------
@pytest.mark.parametrize("key, shown", [("bg", "'bg'"), ("sv-SE", "'sv-se'"), ("xx", "'xx'")])
def test_builtin_reference_and_a_code_outside_the_table(tmp_path, cli_error, key, shown):
    # before: "unknown language code 'bg'; known codes: am, amh, ... (add an alias to
    # tealeaves.corpus.aligned.LANGUAGE_ALIASES for another language)": the built-in reference simply has
    # no text in that language, and the topics' own rule had accepted the code
    topics = _write(tmp_path / "k.json", json.dumps({"en": [["god", "earth"]], key: [["a", "b"]]}))
    r = cli_error(["cnpmi", topics, "--reference", "bible"],
                  f"the built-in reference 'bible' has no text in {shown}")
    assert "tealeaves index build-aligned" in r.err


def test_builtin_reference_api_raises_language_mismatch():
    from tealeaves.corpus.aligned import LanguageMismatchError
    from tealeaves.multilingual.reference import named_reference

    with pytest.raises(LanguageMismatchError, match="the built-in reference 'udhr' has no text in 'bg'"):
        named_reference("udhr", ["en", "bg"])


def test_estimator_features_high_language_outside_the_table(tmp_path, run_cli, cli_error):
    # before: `--high bg` was "unknown language code 'bg'; known codes: ..." although the topics' keys and the
    # reference (the same rule) accepted bg, and `--high ro` on the same topics worked
    docs = ["cat dog mat", "dog mat rug", "sun moon star", "moon star sky", "cat rug mat", "sky sun star"] * 3
    rows = [{"id": i, "bg": d, "ro": d.replace("cat", "pisica")} for i, d in enumerate(docs)]
    ref = tmp_path / "ref"
    assert run_cli(["index", "build-aligned", _jsonl(tmp_path / "t.jsonl", rows), "-o", ref]).code == 0
    topics = _write(tmp_path / "k.json", json.dumps({"bg": [["cat", "dog"], ["sun", "moon"]],
                                                      "ro": [["pisica", "dog"], ["sun", "moon"]]}))
    sets = [set(d.split()) for d in docs]  # 'pisica' stands where 'cat' does
    want = [np.mean([brute_npmi_pair(sets, a, b.replace("pisica", "cat")) for a in bg for b in ro])
            for bg, ro in ((["cat", "dog"], ["pisica", "dog"]), (["sun", "moon"], ["sun", "moon"]))]
    for high, other in (("bg", "ro"), ("BG", "ro"), ("ro", "bg")):
        out = tmp_path / f"{high}.csv"
        res = run_cli(["estimator", "features", topics, "--reference", ref, "--rich", ref, "--high", high,
                       "--top", "2", "-o", out])
        assert res.code == 0, res.err
        lines = out.read_text(encoding="utf-8").splitlines()
        header = lines[1].split(",")
        rows_out = [dict(zip(header, line.split(","))) for line in lines[2:]]
        assert [r["lang"] for r in rows_out] == [other, other]
        assert [float(r["target"]) for r in rows_out] == pytest.approx(want, abs=1e-12)
    cli_error(["estimator", "features", topics, "--reference", ref, "--high", "sv", "--top", "2", "-o",
               tmp_path / "x.csv"], "one of them --high sv; the topics have ['bg', 'ro']")


@pytest.mark.parametrize("first, second", [("en", "eng"), ("sv", "swe"), ("en", "EN")])
def test_aligned_corpus_from_texts_refuses_one_language_spelled_twice(first, second):
    # before: {"en": ..., "eng": ...} built a corpus of one language, the second texts silently kept
    from tealeaves.corpus.aligned import AlignedCorpus, default_preprocessor
    from tealeaves.errors import LanguageMismatchError

    texts = ["the cat sat on the mat", "a dog ran in the park", "the sun and the moon"]
    with pytest.raises(LanguageMismatchError, match=f"{first!r} and {second!r} are both"):
        AlignedCorpus.from_texts({first: texts, second: texts}, ["a", "b", "c"])
    with pytest.raises(LanguageMismatchError, match="preprocessors name one language twice"):
        AlignedCorpus.from_texts({"en": texts, "sv": texts}, ["a", "b", "c"],
                                 {"en": default_preprocessor("en"), "eng": default_preprocessor("en")})
