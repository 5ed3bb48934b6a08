"""Generic corpus readers: text folders, JSON Lines, token lines, dispatch, data locator."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tealeaves import data
from tealeaves.corpus import Preprocessor
from tealeaves.corpus.readers import (
    CorpusFormatError,
    read_corpus,
    read_jsonl,
    read_text_folder,
    read_token_lines,
)
from tealeaves.errors import DataNotFoundError, EmptyInputError, InputEncodingError


def test_text_folder_ids_are_relative_paths(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "a.txt").write_text("Alpha beta", encoding="utf-8")
    (tmp_path / "b" / "c.txt").write_text("gamma", encoding="utf-8")
    (tmp_path / "b" / "skip.md").write_text("not me", encoding="utf-8")
    (tmp_path / ".hidden.txt").write_text("hidden", encoding="utf-8")
    raw = read_text_folder(tmp_path, glob="**/*.txt")
    assert raw.ids == ["a.txt", "b/c.txt"]
    assert raw.texts == ["Alpha beta", "gamma"]


def test_text_folder_encoding(tmp_path):
    (tmp_path / "x.txt").write_bytes("café crème".encode("latin-1"))
    with pytest.raises(InputEncodingError, match=r"x.txt. is not valid utf-8: byte 0xe9 at line 1"):
        read_text_folder(tmp_path)
    assert read_text_folder(tmp_path, encoding="latin-1").texts == ["café crème"]


def test_empty_folder_names_the_path(tmp_path):
    with pytest.raises(EmptyInputError, match=str(tmp_path)):
        read_text_folder(tmp_path)
    with pytest.raises(EmptyInputError, match=str(tmp_path)):
        read_corpus(tmp_path)


def _write_jsonl(path, records):
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")


def test_jsonl_fields_and_labels(tmp_path):
    f = tmp_path / "docs.jsonl"
    _write_jsonl(f, [{"doc": 7, "body": "one two", "y": ["a"]}, "", {"doc": "x", "body": "three", "y": []}])
    raw = read_jsonl(f, text_field="body", id_field="doc", label_field="y")
    assert raw.ids == ["7", "x"] and raw.texts == ["one two", "three"] and raw.labels == [["a"], []]
    assert read_jsonl(f, text_field="body", id_field=None).ids == ["1", "3"]  # line numbers


def test_jsonl_malformed_line_number(tmp_path):
    f = tmp_path / "bad.jsonl"
    _write_jsonl(f, [{"id": 1, "text": "ok"}, {"id": 2, "text": "ok"}, '{"id": 3, "text": "broken'])
    with pytest.raises(CorpusFormatError, match="line 3: malformed JSON"):
        read_jsonl(f)


def test_jsonl_missing_field_line_number(tmp_path):
    f = tmp_path / "missing.jsonl"
    _write_jsonl(f, [{"id": 1, "text": "ok"}, {"id": 2, "content": "no text field"}])
    with pytest.raises(CorpusFormatError, match="line 2: field 'text' is missing"):
        read_jsonl(f)
    with pytest.raises(CorpusFormatError, match="line 1: field 'label' is missing"):
        read_jsonl(f, label_field="label")


def test_jsonl_duplicate_ids_and_non_string_text(tmp_path):
    f = tmp_path / "dup.jsonl"
    _write_jsonl(f, [{"id": 1, "text": "a"}, {"id": 1, "text": "b"}])
    with pytest.raises(CorpusFormatError, match="'1' occurs more than once"):
        read_jsonl(f)
    _write_jsonl(f, [{"id": 1, "text": 5}])
    with pytest.raises(CorpusFormatError, match="line 1: field 'text' must be a string"):
        read_jsonl(f)


def test_token_lines_counts_match_brute_force(tmp_path):
    lines = ["the cat sat", "", "cat  cat\tdog"]
    f = tmp_path / "docs.txt"
    f.write_text("\n".join(lines) + "\n")
    ids = tmp_path / "ids.txt"
    ids.write_text("d1\nd2\nd3\n")
    corpus = read_token_lines(f, ids)
    assert corpus.ids == ["d1", "d2", "d3"]
    assert [corpus.words(d) for d in range(3)] == [line.split() for line in lines]
    # independent recount of the counts matrix
    dense = corpus.counts.toarray()
    for d, line in enumerate(lines):
        for w in set(line.split()):
            assert dense[d, corpus.vocabulary.id(w)] == line.split().count(w)
    assert dense.sum() == sum(len(line.split()) for line in lines)


def test_token_lines_ids_mismatch_and_vocabulary(tmp_path):
    f = tmp_path / "docs.tok"
    f.write_text("a b\nc\n")
    ids = tmp_path / "ids.txt"
    ids.write_text("only-one\n")
    with pytest.raises(CorpusFormatError, match="1 lines but .* has 2 documents"):
        read_token_lines(f, ids)
    from tealeaves.corpus import Vocabulary

    corpus = read_token_lines(f, vocabulary=Vocabulary(["a", "c"]))
    assert corpus.n_dropped == 1 and corpus.ids == ["1", "2"]
    assert np.array_equal(corpus.lengths, [1, 1])


def test_read_corpus_dispatch(tmp_path):
    tok = tmp_path / "docs.txt"
    tok.write_text("Apple apple\nbanana\n")
    c = read_corpus(tok)  # pre-tokenised: case kept, no stop words
    assert c.words(0) == ["Apple", "apple"]
    c = read_corpus(tok, Preprocessor(stop_words=None))  # raw lines through a preprocessor
    assert c.words(0) == ["apple", "apple"] and c.ids == ["1", "2"]

    js = tmp_path / "docs.jsonl"
    _write_jsonl(js, [{"id": "p", "text": "Pears and pears"}])
    c = read_corpus(js)
    assert c.ids == ["p"] and c.words(0) == ["pears", "pears"]  # default recipe drops 'and'

    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "one.txt").write_text("Kiwi kiwi lime")
    pre = Preprocessor(stop_words=None).fit(["kiwi"])  # fitted: applied, lime is unknown
    c = read_corpus(folder, pre)
    assert c.ids == ["one.txt"] and c.words(0) == ["kiwi", "kiwi"] and c.n_dropped == 1


def test_read_corpus_missing_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        read_corpus(tmp_path / "nope.jsonl")


def test_locator_error_for_empty_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TEALEAVES_DATA", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with pytest.raises(DataNotFoundError) as err:
        data.locate("reuters21578/reut2-000.sgm")
    msg = str(err.value)
    assert "reut2-000.sgm" in msg and str(tmp_path) in msg and "kdd.ics.uci.edu" in msg
    from tealeaves.corpus.reuters import read_reuters

    with pytest.raises(DataNotFoundError, match="TEALEAVES_DATA"):
        read_reuters()


def test_missing_input_is_a_tealeaves_error(tmp_path):
    from tealeaves.corpus.readers import read_corpus
    from tealeaves.errors import InputNotFoundError, TealeavesError

    with pytest.raises(InputNotFoundError, match="does not exist") as info:
        read_corpus(tmp_path / "nope.jsonl")
    assert isinstance(info.value, TealeavesError)
