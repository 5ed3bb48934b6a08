"""Word ids found in an index's UTF-8 word table without decoding it (``ReferenceIndex.word_ids``,
``tealeaves.index.wordtable.find_words``), against the decoded vocabulary's dictionary."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tealeaves.coherence import Coherence
from tealeaves.errors import IndexIntegrityError, ParameterError
from tealeaves.index import ReferenceIndex, build_index, index_from_token_lists
from tealeaves.index.format import encode_strings
from tealeaves.index.wordtable import find_words

WORDS = ["ሰላም", "世界", "oil", "Ünïcödé", "", "😀x", "a\x00b", "σ", "ς"]


def _aged(path):
    """``path``, its modification time set a minute back: the verified-state cache records no file
    modified in the last two seconds."""
    stat = os.stat(path)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - 60 * 10**9))
    return path


def _dictionary_ids(vocabulary, words):
    return np.array([vocabulary.index.get(w, -1) for w in words], dtype=np.int64)


def test_word_ids_of_a_reopened_reuters_index_equal_the_vocabularys(tmp_path, reuters):
    path = _aged(build_index(reuters[0], name="reuters").save(tmp_path / "r.tlx"))
    ReferenceIndex.load(path)  # first open: the checks run and are recorded
    index = ReferenceIndex.load(path)
    assert "vocabulary" not in index.__dict__  # a recorded open decodes no word
    vocabulary = ReferenceIndex.load(path).vocabulary
    rng = np.random.default_rng(0)
    words = [vocabulary[int(i)] for i in rng.integers(0, len(vocabulary), 2000)]
    words += ["zzznotaword", "Oil", "oil ", "", "\ud800", "oil"]
    ids = index.word_ids(words)
    assert "vocabulary" not in index.__dict__
    np.testing.assert_array_equal(ids, _dictionary_ids(vocabulary, words))
    np.testing.assert_array_equal(index.word_ids(list(vocabulary)), np.arange(len(vocabulary)))


def test_word_ids_in_any_script_before_and_after_the_vocabulary_is_decoded(tmp_path):
    index = index_from_token_lists([WORDS[:4], WORDS[4:], ["oil", "ς"]])
    ReferenceIndex.load(_aged(index.save(tmp_path / "u.tlx")))
    loaded = ReferenceIndex.load(tmp_path / "u.tlx")  # the recorded open
    assert "vocabulary" not in loaded.__dict__
    asked = WORDS + ["Σ", "s", "😀", "a", "ሰላ", "\udcff"]
    before = loaded.word_ids(asked)
    expected = _dictionary_ids(index.vocabulary, asked)
    np.testing.assert_array_equal(before, expected)
    loaded.vocabulary  # noqa: B018 - decoded: the dictionary answers
    np.testing.assert_array_equal(loaded.word_ids(asked), expected)
    np.testing.assert_array_equal(index.word_ids(asked), expected)  # made in memory
    assert loaded.word_ids([]).shape == (0,)


@settings(max_examples=60, deadline=None)
@given(table=st.lists(st.text(max_size=6), unique=True, max_size=40),
       asked=st.lists(st.text(max_size=6), max_size=30))
def test_find_words_equals_a_dictionary_lookup(table, asked):
    blob, offsets = encode_strings(table)
    queries = asked + table[::3]
    expected = [{w: i for i, w in enumerate(table)}.get(w, -1) for w in queries]
    np.testing.assert_array_equal(find_words(blob, offsets, queries), expected)


def test_word_ids_refuse_a_word_that_is_not_a_string():
    index = index_from_token_lists([["oil", "gas"]])
    with pytest.raises(ParameterError, match="words must be strings; got int 3"):
        index.word_ids(["oil", 3])
    with pytest.raises(ParameterError, match="words must be strings; got bytes"):
        index.word_ids([b"oil"])


def test_word_ids_of_a_file_changed_since_its_open_are_refused(tmp_path):
    path = _aged(index_from_token_lists([["oil", "gas"], ["gas"]]).save(tmp_path / "c.tlx"))
    ReferenceIndex.load(path)
    index = ReferenceIndex.load(path)  # the recorded open: word_ids reads the file's words
    with open(path, "ab") as fh:  # written in place: the maps would show it
        fh.write(b"x")
    with pytest.raises(IndexIntegrityError, match="changed"):
        index.word_ids(["oil"])


def test_scores_from_found_ids_equal_those_from_the_decoded_vocabulary(tmp_path, reuters):
    path = _aged(build_index(reuters[0], name="reuters").save(tmp_path / "r.tlx"))
    ReferenceIndex.load(path)
    topics = [["oil", "crude", "barrels", "opec", "nosuchword"], ["bank", "rate", "interest", "pct"]]
    lazy = Coherence("npmi").score(topics, ReferenceIndex.load(path))
    decoded = ReferenceIndex.load(path)
    decoded.vocabulary  # noqa: B018
    eager = Coherence("npmi").score(topics, decoded)
    assert [t.score for t in lazy.topics] == [t.score for t in eager.topics]
    assert [t.missing for t in lazy.topics] == [t.missing for t in eager.topics]


def test_an_index_made_in_memory_with_a_word_more_than_its_postings_is_refused():
    """``vocab_offsets`` longer than ``word_ptr``: a word with no postings row, which ``word_ids`` would
    return and a count would read past ``word_ptr`` for."""
    index = index_from_token_lists([["oil", "gas"], ["gas", "coal"]])
    arrays = dict(index.arrays)
    blob, offsets = encode_strings(list(index.vocabulary) + ["extra"])
    arrays["vocab_blob"], arrays["vocab_offsets"] = blob, offsets
    forged = ReferenceIndex(arrays, dict(index.header))
    with pytest.raises(IndexIntegrityError,
                       match="5 entries in array 'vocab_offsets' where its counts imply 4"):
        forged.word_ids(["extra"])
