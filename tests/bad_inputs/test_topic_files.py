"""Bad and edge inputs for topics files and MALLET output: each is understood correctly or refused clearly.

Every case asserts the error class and a message fragment, or the documented value.
"""

from __future__ import annotations

import gzip
import io
import os
import pickle
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tealeaves.coherence.errors import TopicError
from tealeaves.coherence.measure import as_topics
from tealeaves.errors import (
    EmptyInputError,
    InputEncodingError,
    InputFormatError,
    InputNotFoundError,
    InvalidModelError,
    ParameterError,
    TealeavesError,
    UnsupportedModelError,
)
from tealeaves.models.adapters import mallet, paths, topic_files
from tealeaves.models.adapters.topic_files import RankedWordsModel

# issue 20's cases of this command: the CLI runs in a subprocess, as a user runs it
pytestmark = pytest.mark.cli_subprocess

STATE_HEAD = "#doc source pos typeindex type topic\n#alpha : 0.1 0.2 \n#beta : 0.01\n"
WEIGHTS_25 = "".join(f"{k}\tw{i}\t{0.01 + (i * k) % 7}\n" for k in range(2) for i in range(25))
STATE_OK = STATE_HEAD + "0 NA 0 0 oil 0\n0 NA 1 1 gas 1\n1 NA 0 0 oil 1\n"


def _gz(text: str) -> bytes:
    return gzip.compress(text.encode("utf-8"))


def _zip_without_meta() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("other.txt", "x")
    return buf.getvalue()


def _npz_model(edit=None, weights=None) -> bytes:
    """A tealeaves ``.npz`` model file (2 topics over 3 words), its header edited by ``edit``."""
    import json

    meta = {"format": "tealeaves-model", "format_version": 1, "class": "AdaptedModel",
            "vocabulary": ["a", "b", "c"], "probabilistic": True, "metadata": {}}
    if edit is not None:
        edit(meta)
    buf = io.BytesIO()
    np.savez(buf, meta=np.array(json.dumps(meta)),
             topic_word_weights=np.full((2, 3), 1 / 3) if weights is None else weights)
    return buf.getvalue()


# (id, file content, reader, options, error class, message fragment)
ERRORS = [
    # ---- any topics file
    ("empty", "", "load", {}, EmptyInputError, "is empty"),
    ("blank-lines", "\n  \n\t\n", "load", {}, EmptyInputError, "is empty"),
    ("latin-1", "oil gas\nca\xe9 bank\n".encode("latin-1"), "load", {}, InputEncodingError, "line 2"),
    ("unknown-format", "oil gas\n", "topics", {"format": "yaml"}, ParameterError, "is not known"),
    ("numbered-lines", "0 oil gas\n1 bank loan\n", "load", {}, InputFormatError, "starts with a number"),
    ("keys-with-spaces", "0 0.5 oil gas\n1 0.5 bank loan\n", "load", {}, InputFormatError,
     "starts with a number"),
    ("ambiguous-keys-or-tsv", "0\t1990\t0.5\n0\t1991\t0.4\n", "load", {}, InputFormatError,
     "could be mallet-keys or csv"),
    ("comma-separated-words", "oil, gas, energy\nbank, loan\n", "load", {}, InputFormatError, "commas"),
    # ---- JSON
    ("json-truncated", '[["oil", "gas"], ["bank"', "load", {}, InputFormatError, "not valid JSON"),
    ("json-topic-string", '["oil gas energy", "bank loan"]', "load", {}, InputFormatError,
     "topic 0 is the string 'oil gas energy'"),
    ("json-null-word", '[["oil", null]]', "load", {}, InputFormatError, "word 1 is null"),
    ("json-true-word", '[[true, "oil"]]', "load", {}, InputFormatError, "word 0 is true"),
    ("json-number-word", '[["oil", 1990]]', "load", {}, InputFormatError, "the number 1990"),
    ("json-empty-topic", '[["oil", "gas"], []]', "load", {}, InputFormatError, "has no words"),
    ("json-no-topics", "[]", "load", {}, EmptyInputError, "holds no topics"),
    ("json-duplicate-word", '[["oil", "gas", "oil"]]', "load", {}, InputFormatError, "repeats 'oil'"),
    ("json-non-integer-id", '{"a": ["oil", "gas"]}', "load", {}, InputFormatError, "topic id 'a'"),
    ("json-duplicate-key", '{"0": ["oil", "gas"], "0": ["bank", "loan"]}', "load", {}, InputFormatError,
     "gives the key '0' twice"),
    ("json-id-two-spellings", '{"0": ["oil", "gas"], "00": ["bank", "loan"]}', "load", {}, InputFormatError,
     "topic id 0 appears twice"),
    ("json-float-id", '{"1.5": ["oil", "gas"]}', "load", {}, InputFormatError, "topic id '1.5'"),
    ("json-nan-weight", '[[["oil", NaN], ["gas", 0.1]]]', "load", {}, InputFormatError, "holds NaN"),
    ("json-string-weight", '[[["oil", "0.2"], ["gas", 0.1]]]', "load", {}, InputFormatError,
     "expected a finite number"),
    ("json-bool-weight", '[[["oil", true], ["gas", 0.1]]]', "load", {}, InputFormatError,
     "expected a finite number"),
    ("json-mixed-pairs-and-words", '[[["oil", 0.2], "gas"]]', "load", {}, InputFormatError, "is a list"),
    ("json-triple", '[[["oil", 0.2, 1], ["gas", 0.1, 1]]]', "load", {}, InputFormatError,
     "expected a [word, weight] pair"),
    ("json-scalar", "42", "topics", {"format": "json"}, InputFormatError, "holds a JSON int"),
    ("json-topics-null", '{"topics": null}', "load", {}, InputFormatError, '"topics" is null'),
    ("json-weights-in-some-topics", '[["a", "b"], [["c", 0.1], ["d", 0.2]]]', "load", {}, InputFormatError,
     "some topics have weights"),
    ("json-topic-number", "[[\"oil\", \"gas\"], 7]", "load", {}, InputFormatError, "topic 1 is 7"),
    # ---- MALLET topic keys
    ("keys-duplicate-topic", "0\t0.5\toil gas \n0\t0.5\tbank loan \n", "load", {}, InputFormatError,
     "topic id 0 appears twice"),
    ("keys-bad-topic-id", "x\t0.5\toil gas\n", "topics", {"format": "mallet-keys"}, InputFormatError,
     "topic id is 'x'"),
    ("keys-bad-alpha", "0\tabc\toil gas\n", "topics", {"format": "mallet-keys"}, InputFormatError,
     "alpha is 'abc'"),
    ("keys-no-words", "0\t0.5\t \n", "topics", {"format": "mallet-keys"}, InputFormatError,
     "topic<TAB>alpha<TAB>top words"),
    ("keys-infinite-alpha", "0\tinf\toil gas\n", "topics", {"format": "mallet-keys"}, InputFormatError,
     "must be finite"),
    # ---- CSV / TSV
    ("csv-negative-topic", "-1,oil,0.2\n-1,gas,0.1\n", "topics", {"format": "csv"}, InputFormatError,
     "topic id '-1'"),
    ("csv-infinite-weight", "topic,word,weight\n0,oil,inf\n", "load", {}, InputFormatError, "must be finite"),
    ("csv-four-columns", "0,oil,0.2,x\n0,gas,0.1,y\n", "topics", {"format": "csv"}, InputFormatError,
     "4 columns"),
    ("csv-duplicate-word", "topic,word,weight\n0,oil,0.2\n0,oil,0.1\n", "load", {}, InputFormatError,
     "repeats 'oil'"),
    ("csv-header-only", "topic,word,weight\n", "topics", {"format": "csv"}, EmptyInputError,
     "header but no rows"),
    ("csv-short-row", "topic,word,weight\n0,oil,0.2\n0,gas\n", "load", {}, InputFormatError,
     "line 3: 2 columns, expected 3"),
    # ---- gensim strings
    ("gensim-malformed", '0.1*"oil" + gas\n', "topics", {"format": "gensim"}, InputFormatError,
     "is not a gensim topic string"),
    ("gensim-negative-id", "(-1, '0.1*\"a\" + 0.2*\"b\"')\n", "load", {}, InputFormatError,
     "topic id -1 is negative"),
    ("gensim-tuples-bad-weight", "[(0, [('oil', 'x'), ('gas', 0.1)])]", "load", {}, InputFormatError,
     "expected a finite number"),
    ("gensim-infinite-weight", '0.5*"oil" + 1e999*"gas"\n', "load", {}, InputFormatError,
     "the weight of 'gas' is inf (not a finite number)"),  # before: accepted, 'gas' ranked first
    ("json-nested-50000", "[" * 50_000 + "]" * 50_000, "load", {}, InputFormatError,
     "nested too deeply"),  # before: RecursionError, exit 70
    ("json-topics-nested-50000", '{"topics": ' + "[" * 50_000 + "]" * 50_000 + "}", "topics",
     {"format": "json"}, InputFormatError, "nested too deeply"),
    # ---- MALLET state
    ("state-document-10e20", _gz(STATE_HEAD + "100000000000000000000 NA 0 0 oil 0\n"), "state", {},
     InputFormatError, "the document number is 100000000000000000000, above 2147483647"),  # before: exit 70
    ("state-type-10e20", _gz(STATE_HEAD + "0 NA 0 100000000000000000000 oil 0\n"), "state", {},
     InputFormatError, "the type index is 100000000000000000000, above 2147483647"),
    ("state-truncated-gzip", _gz(STATE_OK * 50)[:-30], "state", {}, InputFormatError,
     "truncated or corrupted gzip"),
    ("state-bad-header", _gz("doc source pos\n0 NA 0 0 oil 0\n"), "state", {}, InputFormatError,
     "does not start with"),
    ("state-no-beta", _gz("#doc source pos typeindex type topic\n#alpha : 0.1 0.2 \n0 NA 0 0 oil 0\n"),
     "state", {}, InputFormatError, "lacks the '#alpha"),
    ("state-topic-beyond-alpha", _gz(STATE_HEAD + "0 NA 0 0 oil 2\n"), "state", {}, InputFormatError,
     "topic 2, but the #alpha header lists 2 topics"),
    ("state-word-not-its-type", _gz(STATE_HEAD + "0 NA 0 0 oil 0\n0 NA 1 0 gas 1\n"), "state", {},
     InputFormatError, "type 0 is 'gas' here but 'oil' earlier"),
    ("state-type-gap", _gz(STATE_HEAD + "0 NA 0 0 oil 0\n0 NA 1 2 gas 1\n"), "state", {}, InputFormatError,
     "no token has type index 1"),
    ("state-bad-topic", _gz(STATE_HEAD + "0 NA 0 0 oil x\n"), "state", {}, InputFormatError,
     "the topic is 'x'"),
    ("state-short-line", _gz(STATE_HEAD + "0 oil 0\n"), "state", {}, InputFormatError,
     "expected 'doc source pos typeindex type topic'"),
    ("state-negative-alpha", _gz(STATE_HEAD.replace("0.1 0.2", "-0.1 0.2") + "0 NA 0 0 oil 0\n"), "state", {},
     InputFormatError, "must be positive"),
    ("state-latin-1", gzip.compress((STATE_HEAD + "0 NA 0 0 caf\xe9 0\n").encode("latin-1")), "state", {},
     InputEncodingError, "line 4"),
    ("state-no-tokens", _gz(STATE_HEAD), "state", {}, EmptyInputError, "holds no tokens"),
    # ---- MALLET doc-topics
    ("doc-topics-column-count", "0\ta\t0.5\t0.5\n1\tb\t0.5\t0.25\t0.25\n", "doc-topics", {}, InputFormatError,
     "5 tab-separated columns, expected 4"),
    ("doc-topics-sum", "0\ta\t0.5\t0.4\n", "doc-topics", {}, InputFormatError, "sum to 0.9"),
    ("doc-topics-above-one", "0\ta\t1.5\t-0.5\n", "doc-topics", {}, InputFormatError, "outside [0, 1]"),
    ("doc-topics-wrong-k", "0\ta\t0.5\t0.5\n", "doc-topics", {"n_components": 3}, InputFormatError,
     "2 topic columns, expected 3"),
    ("sparse-doc-topics-odd", "#doc name topic proportion ...\n0\ta\t1\t0.6\t0\t\n", "doc-topics", {},
     InputFormatError, "topic/proportion pairs"),
    ("doc-topics-as-model", "#doc name topic proportion ...\n0\ta\t1\t0.6\t0\t0.4\t\n", "load", {},
     UnsupportedModelError, "doc-topics file"),
    ("dense-doc-topics-as-model", "0\ta\t0.5\t0.5\n1\tb\t0.25\t0.75\n", "load", {}, UnsupportedModelError,
     "document proportions"),
    # ---- MALLET topic-word weights and word-topic counts
    ("weights-incomplete", "0\toil\t1.01\n0\tgas\t0.01\n1\toil\t0.01\n", "weights", {}, InputFormatError,
     "topic 1 has no weight for 'gas'"),
    ("weights-truncated", WEIGHTS_25[: WEIGHTS_25.rindex("1\tw20")], "load", {}, InputFormatError,
     "topic 1 lists 20 of the 25 words"),
    ("weights-line-missing", WEIGHTS_25.replace("0\tw3\t0.01\n", ""), "load", {}, InputFormatError,
     "incomplete or truncated MALLET topic-word weights"),
    ("weights-zero", "0\toil\t0\n0\tgas\t1.01\n1\toil\t0.01\n1\tgas\t1.01\n", "weights", {}, InputFormatError,
     "is not positive"),
    ("weights-two-fields", "0\toil\n", "weights", {}, InputFormatError, "found 2 field(s)"),
    ("counts-bad-pair", "0 oil 1-3\n", "counts", {}, InputFormatError, "'1-3' is not 'topic:count'"),
    ("counts-topic-10e20", "0 oil 0:3\n1 gas 100000000000000000000:1\n", "counts", {}, InputFormatError,
     "the topic is 100000000000000000000, above 2147483647"),  # before: ValueError, exit 70
    ("counts-count-10e20", "0 oil 0:3\n1 gas 1:100000000000000000000\n", "counts", {}, InputFormatError,
     "the count is 100000000000000000000, above 2147483647"),
    ("counts-topic-twice", "0 oil 0:3 0:4\n1 gas 1:1\n", "counts", {}, InputFormatError,
     "topic 0 is listed twice for 'oil'"),  # before: summed to 7
    ("weights-duplicated-row", "0\toil\t1.01\n0\tgas\t0.01\n1\toil\t0.01\n1\tgas\t2.01\n1\tgas\t2.01\n",
     "weights", {}, InputFormatError, "lists 'gas' twice"),
    ("counts-out-of-order", "0 oil 0:3\n2 gas 1:1\n", "counts", {}, InputFormatError, "type index 2, "
                                                                                      "expected 1"),
    ("counts-bad-beta", "0 oil 0:3\n1 gas 1:1\n", "counts", {"beta": -1.0}, InputFormatError,
     "beta is -1.0"),
    ("weights-alpha-wrong-length", "0\toil\t1.01\n0\tgas\t0.01\n1\toil\t0.01\n1\tgas\t2.01\n", "weights",
     {"alpha": [0.1, 0.2, 0.3]}, ParameterError, "alpha has 3 values but the file has 2 topics"),
    ("weights-alpha-and-keys", "0\toil\t1.01\n", "weights", {"alpha": 0.1, "topic_keys": "k"}, ParameterError,
     "not both"),
    ("weights-alpha-negative", "0\toil\t1.01\n0\tgas\t0.01\n", "weights", {"alpha": -1.0}, InvalidModelError,
     "must be positive"),
    ("counts-too-few-topics", "0 oil 0:3\n1 gas 4:1\n", "counts", {"n_components": 2}, InputFormatError,
     "has topic 4 but the model has 2 topics"),
    # ---- files that are not text topics
    ("pickle-not-gensim", pickle.dumps({"a": 1}), "load", {}, UnsupportedModelError, "does not unpickle"),
    ("zip-not-npz", _zip_without_meta(), "load", {}, UnsupportedModelError, "not a tealeaves model"),
    ("binary-junk", b"\x00\x01\x02garbage\x00", "load", {}, UnsupportedModelError, "binary file"),
    ("damaged-npz", b"PK\x03\x04" + b"\x00" * 40, "load", {}, InputFormatError, "damaged zip"),
    # before: exit 70, KeyError: 'probabilistic'
    ("npz-without-probabilistic", _npz_model(lambda m: m.pop("probabilistic")), "npz", {}, InvalidModelError,
     "its header lacks 'probabilistic'"),
    ("npz-probabilistic-string", _npz_model(lambda m: m.update(probabilistic="yes")), "npz", {},
     InvalidModelError, "its header lacks 'probabilistic'"),
    ("npz-without-vocabulary", _npz_model(lambda m: m.pop("vocabulary")), "npz", {}, InvalidModelError,
     "lacks a 'vocabulary' list"),
    ("npz-short-vocabulary", _npz_model(lambda m: m.update(vocabulary=["a"])), "npz", {}, InvalidModelError,
     "not topics x 1 words"),
    ("npz-metadata-list", _npz_model(lambda m: m.update(metadata=[1])), "npz", {}, InvalidModelError,
     "'metadata' is not an object"),
    ("npz-version-9", _npz_model(lambda m: m.update(format_version=9)), "npz", {}, InvalidModelError,
     "format version 9"),
    ("npz-nan-weights", _npz_model(weights=np.array([[np.nan, 0.5, 0.5], [0.2, 0.3, 0.5]])), "npz", {},
     InvalidModelError, "NaN or infinite"),
    ("npz-truncated", _npz_model()[:-40], "npz", {}, InputFormatError, "is a damaged zip/.npz file"),
]

READERS = {
    "load": paths.load_path,
    "topics": topic_files.read_topics,
    "state": mallet.read_state,
    "doc-topics": mallet.read_doc_topics,
    "weights": mallet.read_topic_word_weights,
    "counts": mallet.read_word_topic_counts,
    "npz": lambda path: __import__("tealeaves").load_model(path),
}


@pytest.mark.parametrize("case", ERRORS, ids=[c[0] for c in ERRORS])
def test_bad_file_is_refused(case, tmp_path):
    name, content, reader, options, error, fragment = case
    path = tmp_path / "input.txt"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(error) as info:
        READERS[reader](path, **options)
    assert fragment in str(info.value)


def test_a_table_sized_beyond_memory_by_a_damaged_id_is_refused(tmp_path):
    from tealeaves.models.adapters._text_fields import MAX_INDEX, zeros_table

    with pytest.raises(InputFormatError, match="more than this machine's memory"):
        zeros_table((MAX_INDEX + 1, MAX_INDEX + 1), tmp_path / "state.gz", "documents x topics")
    assert zeros_table((2, 3), tmp_path / "state.gz", "documents x topics").shape == (2, 3)


# (id, file content, options, documented value: the topics read)
VALUES = [
    ("bom-is-removed", "\ufeffoil gas\nbank loan\n", {}, [["oil", "gas"], ["bank", "loan"]]),
    ("latin-1-with-encoding", "caf\xe9 "
                              "oil\n".encode("latin-1"), {"encoding": "latin-1"}, [["caf\xe9", "oil"]]),
    ("numbers-kept-as-words-on-request", "0 oil gas\n1 bank loan\n", {"format": "words"},
     [["0", "oil", "gas"], ["1", "bank", "loan"]]),
    ("keys-with-spaces-on-request", "0 0.5 oil gas\n1 0.5 bank loan\n", {"format": "mallet-keys"},
     [["oil", "gas"], ["bank", "loan"]]),
    ("keys-never-read-as-words", "0\t0.5\toil gas \n1\t0.05\tbank loan "
                                 "\n", {}, [["oil", "gas"], ["bank", "loan"]]),
    ("keys-topic-order-by-id", "1\t0.5\tbank loan \n0\t0.5\toil gas "
                               "\n", {}, [["oil", "gas"], ["bank", "loan"]]),
    ("keys-alpha-printed-as-zero", "0\t0\toil gas \n", {}, [["oil", "gas"]]),
    ("keys-alpha-decimal-comma", "0\t0,05\toil gas\n", {"format": "mallet-keys"}, [["oil", "gas"]]),
    ("csv-weights-rank-the-words", "topic,word,weight\n0,gas,0.1\n0,oil,0.3\n", {}, [["oil", "gas"]]),
    ("tuples-are-words-and-weights", "[(0, [('oil', 0.3), ('gas', 0.1)])]", {}, [["oil", "gas"]]),
    ("json-pairs-are-words-and-weights", '[[["gas", 0.1], ["oil", 0.3]]]', {}, [["oil", "gas"]]),
    ("json-gensim-string", '["0.3*\\"oil\\" + 0.1*\\"gas\\""]', {}, [["oil", "gas"]]),
    ("gensim-hdp-unquoted", "(0, '0.300*oil + 0.100*gas')\n(1, '0.2*bank + 0.1*loan')\n", {},
     [["oil", "gas"], ["bank", "loan"]]),
    ("gensim-scientific-weights", '1.5e-02*"oil" + 2e-03*"gas"\n', {}, [["oil", "gas"]]),
    ("crlf-line-ends", "oil gas\r\nbank loan\r\n", {}, [["oil", "gas"], ["bank", "loan"]]),
]


@pytest.mark.parametrize("case", VALUES, ids=[c[0] for c in VALUES])
def test_edge_file_is_understood(case, tmp_path):
    name, content, options, expected = case
    path = tmp_path / "input.txt"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="")
    assert paths.load_path(path, **options).topics_ == expected


def test_keys_alpha_printed_as_zero(tmp_path):
    keys = tmp_path / "keys.txt"
    keys.write_text("0\t0\toil gas \n1\t0.5\tbank loan \n", encoding="utf-8")
    model = paths.load_path(keys)
    assert model.doc_topic_prior_ is None and model.metadata_["alpha_printed"] == [0.0, 0.5]
    weights = tmp_path / "w.txt"
    weights.write_text("0\toil\t1.01\n0\tgas\t0.01\n1\toil\t0.01\n1\tgas\t2.01\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match="prints alpha 0.0 for topic 0"):
        mallet.read_topic_word_weights(weights, topic_keys=keys)


def test_mallet_alpha_formats_are_read():
    assert mallet.parse_number("1,234.5", "f", 1, "alpha") == 1234.5
    assert mallet.parse_number("0,05", "f", 1, "alpha") == 0.05
    assert mallet.parse_number("1.0E-4", "f", 1, "beta") == 1e-4


@pytest.mark.parametrize("content,options,fragment", [
    ("oil gas\n", {"beta": 0.01}, "option 'beta' does not apply"),
    ("oil gas\n", {"inference": "native"}, "has no library of its own"),
    (STATE_OK, {"alpha": 0.1}, "option 'alpha' does not apply"),
    ("0\toil\t1.01\n0\tgas\t0.01\n1\toil\t0.01\n1\tgas\t2.01\n", {"n_components": 2},
     "mallet-weights takes alpha, encoding, topic_keys"),
])
def test_options_a_format_does_not_use_are_refused(content, options, fragment, tmp_path):
    path = tmp_path / "f.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ParameterError, match=fragment):
        paths.load_path(path, **options)


def test_inference_tealeaves_and_encoding_are_accepted(tmp_path):
    path = tmp_path / "f.txt"
    path.write_bytes("caf\xe9 oil\n".encode("latin-1"))
    assert paths.load_path(path, inference="tealeaves", encoding="latin-1").topics_ == [["caf\xe9", "oil"]]


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(InputNotFoundError, match="does not exist"):
        paths.load_path(tmp_path / "nope.txt")
    with pytest.raises(TealeavesError, match="is a folder"):
        paths.load_path(tmp_path)


# ---- the ranked-word-list model and as_topics
@pytest.mark.parametrize("topics,fragment", [
    ("oil gas", "must be a list of word lists"),
    (["oil gas"], "topic 0 is a str"),
    ([["oil", None]], "has the word None"),
    ([["oil", ""]], "has the word ''"),
    ([["oil", "oil"]], "repeats 'oil'"),
    ([[]], "topic 0 has no words"),
    ([], "no topics given"),
])
def test_ranked_words_model_validates(topics, fragment):
    with pytest.raises((InvalidModelError, EmptyInputError), match=fragment):
        RankedWordsModel(topics)


def test_ranked_words_top_n_is_validated_and_clamped():
    m = RankedWordsModel([["a", "b", "c"], ["d", "e"]])
    with pytest.raises(ParameterError, match="at least 1"):
        m.top_words(0)
    assert m.top_words(10) == [["a", "b", "c"], ["d", "e"]] and m.clamped_topics(3) == [1]
    with pytest.warns(UserWarning, match="top-3 requested but 1 topic"):
        assert as_topics(m, 3) == [["a", "b", "c"], ["d", "e"]]


@pytest.mark.parametrize("topics,fragment", [
    ([[("oil", 0.3), ("gas", 0.1)]], "words must be strings"),
    (["oil gas"], "topic 0 is the string"),
    ("oil gas", None),  # a string is a path: a missing file
    ([["oil", 3]], "words must be strings"),
])
def test_as_topics_refuses_what_is_not_words(topics, fragment):
    if fragment is None:
        with pytest.raises(InputNotFoundError):
            as_topics(topics, 10)
        return
    with pytest.raises(TopicError, match=fragment):
        as_topics(topics, 10)


# ---- the command line
@pytest.fixture
def reference(tmp_path):
    path = tmp_path / "ref.txt"
    path.write_text("oil gas prices\nbank loan rates\noil prices opec\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("content,extra,fragment,code", [
    ("0\t1990\t0.5\n0\t1991\t0.4\n", [], "could be mallet-keys or csv", 1),
    ("oil gas\n", ["--topics-format", "yaml"], "invalid choice", 2),
    ("0 oil gas\n1 bank loan\n", [], "--topics-format words", 1),
    ("#doc name topic proportion ...\n0\ta\t1\t0.6\t0\t0.4\t\n", [], "doc-topics file", 1),
    ('[["oil", null]]', [], "is null", 1),
    ("0\t0.5\toil gas\n", ["--topics-format", "csv"], "the weight is 'oil gas'", 1),
])
def test_cli_refuses_bad_topics_files(content, extra, fragment, code, reference, tmp_path, cli_error):
    topics = tmp_path / "topics.txt"
    topics.write_text(content, encoding="utf-8")
    cli_error(["coherence", "--reference", reference, "--topics", topics, *extra], fragment, code)


def test_cli_latin1_topics_names_encoding(reference, tmp_path, cli_error):
    topics = tmp_path / "topics.txt"
    topics.write_bytes("oil caf\xe9\n".encode("latin-1"))
    cli_error(["coherence", "--reference", reference, "--topics", topics], "is not valid utf-8: byte 0xe9 "
                                                                           "at line 1")


def test_cli_keys_file_scores_the_words_not_the_numbers(reference, tmp_path, run_cli):
    topics = tmp_path / "keys.txt"
    topics.write_text("0\t0.5\toil gas prices \n1\t0.5\tbank loan rates \n", encoding="utf-8")
    out = run_cli(["coherence", "--reference", reference, "--topics", topics, "--format", "json",
                   "--top", "3"])
    assert out.code == 0
    assert '"0.5"' not in out.out and '"oil"' in out.out and '"missing": []' in out.out


# ---- property tests: random topics files never give a traceback or a non-string word

PIECES = ["oil", "gas", "bank", "0", "1", "0.5", "-1", "1e-3", "NaN", "null", "true", "\t", " ", ",", ";",
          '0.1*"oil"', " + ", '"', "'", "[", "]", "{", "}", "(", ")", ":", "#doc", "caf\xe9", "\ufeff",
          "topic", "word", "weight", '"topics"', "\x00", "\r"]
#: examples per property test (TEALEAVES_FUZZ=5000 for a long run)
FUZZ = int(os.environ.get("TEALEAVES_FUZZ", 150))
texts = st.lists(st.lists(st.sampled_from(PIECES), max_size=8).map("".join), min_size=0, max_size=6) \
    .map("\n".join)


def _assert_understood_or_refused(load) -> None:
    """``load()`` raises a TealeavesError, or gives string words / finite, non-negative numbers."""
    try:
        out = load()
    except TealeavesError:
        return
    if isinstance(out, RankedWordsModel):
        topics = out.topics_
        assert topics and all(t and all(isinstance(w, str) and w.strip() for w in t) for t in topics)
        assert out.top_words(3) == [t[:3] for t in topics]
        return
    if isinstance(out, mallet.DocTopics):
        values = out.proportions
        if out.complete:
            np.testing.assert_allclose(values.sum(axis=1), 1, atol=1e-6)
    elif isinstance(out, mallet.MalletState):
        values = out.topic_word_counts
    else:
        values = out.topic_word_weights_
        if out.topic_word_ is not None:
            np.testing.assert_allclose(out.topic_word_.sum(axis=1), 1, atol=1e-9)
    assert np.all(np.isfinite(values)) and np.all(values >= 0)


@settings(max_examples=FUZZ * 2, deadline=None)
@given(text=texts, fmt=st.sampled_from([None, *topic_files.TOPIC_FORMATS]))
def test_random_topics_text_is_understood_or_refused(text, fmt):
    _assert_understood_or_refused(lambda: topic_files.parse_topics(text, fmt))


@settings(max_examples=FUZZ, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.one_of(texts.map(lambda t: t.encode("utf-8")), st.binary(max_size=200),
                      texts.map(lambda t: _gz(STATE_HEAD + t))))
def test_random_files_are_understood_or_refused(data, tmp_path):
    path = tmp_path / "random.bin"
    path.write_bytes(data)
    _assert_understood_or_refused(lambda: paths.load_path(path))


@settings(max_examples=FUZZ, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=texts, reader=st.sampled_from(["state", "doc-topics", "weights", "counts"]))
def test_random_mallet_files_are_understood_or_refused(text, reader, tmp_path):
    path = tmp_path / "random.txt"
    path.write_text(STATE_HEAD + text if reader == "state" else text, encoding="utf-8")
    _assert_understood_or_refused(lambda: READERS[reader](path))


VALID = {
    "state": (STATE_OK, "state"),
    "dense-doc-topics": ("0\ta\t0.5\t0.5\n1\tb\t0.25\t0.75\n", "doc-topics"),
    "sparse-doc-topics": ("#doc name topic proportion ...\n0\ta\t1\t0.6\t0\t0.4\t\n", "doc-topics"),
    "weights": ("0\toil\t1.01\n0\tgas\t0.01\n1\toil\t0.01\n1\tgas\t3.01\n", "weights"),
    "counts": ("0 oil 0:3 1:1\n1 gas 1:2\n", "counts"),
    "keys": ("0\t0.05\toil gas \n1\t0.05\tbank loan \n", "load"),
    "csv": ("topic,word,weight\n0,oil,0.2\n0,gas,0.1\n1,bank,0.3\n1,loan,0.2\n", "load"),
    "json": ('{"0": [["oil", 0.2], ["gas", 0.1]], "1": ["bank", "loan"]}', "load"),
    "gensim": ("(0, '0.2*\"oil\" + 0.1*\"gas\"')\n(1, '0.3*\"bank\" + 0.2*\"loan\"')\n", "load"),
}


@st.composite
def mutated(draw):
    """A valid file of some format with a few random edits (characters, pieces or whole lines)."""
    name = draw(st.sampled_from(sorted(VALID)))
    text, reader = VALID[name]
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["delete", "insert", "line-drop", "line-dup", "truncate"]))
        lines = text.split("\n")
        if op == "delete":
            text = text[:i] + text[i + 1:]
        elif op == "insert":
            text = text[:i] + draw(st.sampled_from(PIECES + ["\n"])) + text[i:]
        elif op == "truncate":
            text = text[:i]
        else:
            j = draw(st.integers(0, len(lines) - 1))
            lines[j:j + 1] = [] if op == "line-drop" else [lines[j], lines[j]]
            text = "\n".join(lines)
    return text, reader


@settings(max_examples=FUZZ * 2, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=mutated())
def test_mutated_files_are_understood_or_refused(case, tmp_path):
    text, reader = case
    path = tmp_path / "mutated.txt"
    path.write_bytes(_gz(text) if reader == "state" else text.encode("utf-8"))
    _assert_understood_or_refused(lambda: READERS[reader](path))


def test_model_file_without_probabilistic_through_the_cli(tmp_path, cli_error):
    # before: exit 70, internal error: KeyError: 'probabilistic'
    model = tmp_path / "m.npz"
    model.write_bytes(_npz_model(lambda m: m.pop("probabilistic")))
    (tmp_path / "c.txt").write_text("a b c\nb c a\n", encoding="utf-8")
    cli_error(["perplexity", model, tmp_path / "c.txt", "--tokenized"], "its header lacks 'probabilistic'")
