"""Aligned corpora: construction, presence masks, subsets, pairs and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from tealeaves.corpus import AlignedCorpus, Preprocessor, normalize_language
from tealeaves.corpus.aligned import (
    LanguageMismatchError,
    UnknownLanguageError,
    default_preprocessor,
    jieba_tokenize,
)
from tealeaves.errors import EmptyInputError

TEXTS = {
    "en": ["the cat sat on the mat", "dogs bark loudly", None, "cats and dogs play"],
    "sv": ["katten satt på mattan", None, "fåglar sjunger", "katter och hundar leker"],
}
IDS = ["t0", "t1", "t2", "t3"]


def _prep() -> dict[str, Preprocessor]:
    return {lang: Preprocessor(stop_words=None) for lang in TEXTS}


def test_from_texts_keeps_tuple_positions_and_presence():
    ac = AlignedCorpus.from_texts(TEXTS, IDS, _prep())
    assert ac.languages == ["en", "sv"] and ac.ids == IDS
    assert ac.present["en"].tolist() == [True, True, False, True]
    assert ac.present["sv"].tolist() == [True, False, True, True]
    # each language's corpus spans every tuple; absent ones are empty
    assert ac.corpora["sv"].lengths.tolist() == [4, 0, 2, 4]
    assert ac.corpora["en"].words(1) == ["dogs", "bark", "loudly"]
    assert ac.corpora["sv"].words(2) == ["fåglar", "sjunger"]
    # per-language vocabularies are independent
    assert "cat" in ac.vocabulary("en") and "cat" not in ac.vocabulary("sv")


def test_language_pairs_and_subset():
    ac = AlignedCorpus.from_texts(TEXTS, IDS, _prep())
    en = ac.language("en")
    assert en.ids == ["t0", "t1", "t3"] and len(en) == 3
    pair = ac.pairs("en", "sv")
    assert pair.ids == ["t0", "t3"]
    assert all(pair.present[x].all() for x in ("en", "sv"))
    sub = ac.subset([3, 0])
    assert sub.ids == ["t3", "t0"]
    assert sub.corpora["en"].words(0) == ["cats", "and", "dogs", "play"]


def test_language_codes_are_normalised():
    assert [normalize_language(x) for x in ("eng", "eng_Latn", "eng-US", "fil", "cmn", "zho_Hans")] == [
        "en", "en", "en", "tl", "zh", "zh",
    ]
    preps = {"eng-US": Preprocessor(stop_words=None), "sv": Preprocessor(stop_words=None)}
    ac = AlignedCorpus.from_texts({"eng": TEXTS["en"], "swe_Latn": TEXTS["sv"]}, IDS, preps)
    assert ac.languages == ["en", "sv"]
    with pytest.raises(UnknownLanguageError, match="known codes"):
        normalize_language("klingon")


def test_max_df_default_removes_common_words():
    texts = {"en": ["alpha beta", "alpha gamma", "alpha delta", "epsilon zeta"]}
    ac = AlignedCorpus.from_texts(texts, ["a", "b", "c", "d"])
    # 'alpha' is in 3/4 = 75% > 30% of documents; digits and one-letter tokens never enter
    assert "alpha" not in ac.vocabulary("en")
    assert default_preprocessor("en").tokenize("Room 101 has 2 x doors") == ["room", "has", "doors"]


def test_jieba_tokenizer_is_quiet_and_deterministic(capfd):
    a = jieba_tokenize("我们在北京大学学习自然语言处理。2024年")
    b = jieba_tokenize("我们在北京大学学习自然语言处理。2024年")
    assert a == b and "北京大学" in a and "。" not in a and not any(ch.isdigit() for t in a for ch in t)
    assert "Building prefix dict" not in capfd.readouterr().err


def test_bad_input():
    with pytest.raises(LanguageMismatchError, match="preprocessors given for"):
        AlignedCorpus.from_texts(TEXTS, IDS, {"tr": Preprocessor()})
    with pytest.raises(EmptyInputError, match="'sv' has no documents"):
        AlignedCorpus.from_texts({"en": TEXTS["en"], "sv": [None] * 4}, IDS, _prep())
    with pytest.raises(ValueError, match="3 texts for 4 tuple ids"):
        AlignedCorpus.from_texts({"en": TEXTS["en"][:3]}, IDS)
    ac = AlignedCorpus.from_texts(TEXTS, IDS, _prep())
    with pytest.raises(LanguageMismatchError, match=r"it has \['en', 'sv'\]"):
        ac.language("de")
    ac.present["en"] = np.ones(4, dtype=bool)
    ac.present["en"][1] = False
    with pytest.raises(ValueError, match="tokens in tuples marked absent"):
        AlignedCorpus(ac.languages, ac.corpora, ac.present, ac.ids)
