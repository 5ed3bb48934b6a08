"""Odd texts (NUL, lone surrogates, line and paragraph separators, 1 MB words, case mappings, astral and
combining characters, joiners) through the batched tokeniser (``Preprocessor.scan``, which ``index build``
uses): the same tokens as ``Preprocessor.tokenize``, in the API and in the index ``index build`` writes."""

from __future__ import annotations

import json

import pytest

from conftest import write_text as _write

ODD_TEXTS = {
    "NUL": "cat\x00dog", "lone surrogates": "cat \ud800 dog\udfff mat",
    "U+2028/2029": "cat\u2028dog\u2029mat",
    "1 MB word": "a" * 1_000_000 + " cat", "1 MB non-ASCII word": "é" * 1_000_000 + " dog",
    "only stop words": "the of and an", "only digits": "123 4567 89", "empty": "", "CRLF": "cat\r\ndog\r\n",
    "case mappings": "Straße İstanbul ΣΑΣ ǅ ﬁne", "astral": "𝐀𝐁𝐂 cat 😀dog",
    "combining": "cafe\u0301 nai\u0308ve",
    "BOM inside": "\ufeffcat", "joiners": "ca\u200dt do\u200cg",
}


@pytest.mark.parametrize("name", list(ODD_TEXTS))
def test_scan_equals_tokenize(name):
    from tealeaves.corpus.preprocess import LETTERS_ONLY_PATTERN, LETTERS_PATTERN, Preprocessor

    for settings in ({"stop_words": "english"}, {"stop_words": None},
                     {"token_pattern": LETTERS_ONLY_PATTERN}):
        pre = Preprocessor(**{"token_pattern": LETTERS_PATTERN, **settings})
        texts = [ODD_TEXTS[name], "cat dog", ODD_TEXTS[name]]
        assert pre.scan(texts).tokens() == [pre.tokenize(t) for t in texts]


def test_index_build_of_odd_texts_equals_tokenize(tmp_path, run_cli):
    """The index `index build` writes from JSON Lines (escapes \\u0000, \\ud800 ...) holds, document by
    document, exactly the tokens Preprocessor.tokenize gives (with the index's recorded settings)."""
    from collections import Counter

    from tealeaves.corpus.preprocess import Preprocessor
    from tealeaves.index import ReferenceIndex

    texts = list(ODD_TEXTS.values())
    src = _write(tmp_path / "odd.jsonl", "".join(json.dumps({"id": i, "text": t}) + "\n"
                                                 for i, t in enumerate(texts)))
    # the two 1 MB words are nearly all the letters: refused as unsegmented text (test_unsegmented.py)
    refused = run_cli(["index", "build", src, "-o", tmp_path / "odd.tlx"])
    assert refused.code == 1 and "looks unsegmented: 100% of its letters" in refused.err
    texts = [t for name, t in ODD_TEXTS.items() if not name.startswith("1 MB")]
    src = _write(tmp_path / "odd.jsonl", "".join(json.dumps({"id": i, "text": t}) + "\n"
                                                 for i, t in enumerate(texts)))
    assert run_cli(["index", "build", src, "-o", tmp_path / "odd.tlx"]).code == 0
    ix = ReferenceIndex.load(tmp_path / "odd.tlx")
    pre = Preprocessor(**ix.tokenization)
    tokens = [pre.tokenize(t) for t in texts]
    assert [int(n) for n in ix.doc_lengths] == [len(t) for t in tokens]
    counts = Counter(w for t in tokens for w in t)
    assert {w: int(ix.document_frequency(ix.word_id(w))) for w in counts} == {
        w: sum(w in t for t in tokens) for w in counts}
    assert ix.n_tokens == sum(counts.values())
