"""Bad and edge inputs of the multilingual measures: the topics schema (file and API), the
``tealeaves cnpmi`` options, dictionaries, and the documented clamp of C.

Each case asserts the exact outcome (error class + fragment, exit code + message) or a value
checked against the same computation on the well-formed input.
"""

from __future__ import annotations

import json
import warnings

import pytest

from conftest import require_data
from tealeaves.corpus import AlignedCorpus, Preprocessor
from tealeaves.corpus.aligned import LanguageMismatchError, UnknownLanguageError
from tealeaves.errors import EmptyInputError, InputEncodingError, InputFormatError, TealeavesError
from tealeaves.multilingual import measures as M
from tealeaves.multilingual.dictionaries import read_dictionary, read_muse
from tealeaves.multilingual.reference import AlignedReference
from tealeaves.multilingual.topics import read_multilingual_topics as read_topics
from tealeaves.multilingual.topics import validate_topics

GOOD = {"en": [["rights", "freedom", "equal"], ["marriage", "family", "protection"]],
        "sv": [["rättigheter", "frihet", "lika"], ["äktenskap", "familj", "skydd"]]}
UDHR = "parallel/udhr/eng.articles.jsonl"


def _topics_file(tmp_path, content, name="topics.json"):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_text(json.dumps(content, ensure_ascii=False), encoding="utf-8")
    return path


# -- the schema, through `tealeaves cnpmi` (refused before any reference is built) ----------------
SCHEMA_CASES = [
    ({"en": [["rights", "freedom"]], "eng": [["rights", "freedom"]], "sv": [["frihet", "lika"]]},
     "keys 'en' and 'eng' both name language 'en'"),
    ({"en": ["rights freedom"], "sv": [["frihet", "lika"]]},
     "topic 0 of 'en' is a string 'rights freedom'; expected a list of words"),
    ({"en": [["rights", None]], "sv": [["frihet", "lika"]]}, "word 1 of topic 0 of 'en' is null"),
    ({"en": [["rights", True]], "sv": [["frihet", "lika"]]}, "word 1 of topic 0 of 'en' is a boolean true"),
    ({"en": [["rights", 2019]], "sv": [["frihet", "lika"]]}, "is a number 2019; expected a word string"),
    ({"en": [[["rights", 0.1], ["freedom", 0.05]]], "sv": [["frihet", "lika"]]},
     "not (word, weight) pairs"),
    ({"en": [["rights", "freedom"], ["family", "marriage"]], "sv": [["frihet", "lika"]]},
     "different numbers of topics: {'en': 2, 'sv': 1}"),
    ({"en": [["rights", "freedom"]], "xx": [["frihet", "lika"]]},
     "the built-in reference 'udhr' has no text in 'xx'"),
    ({}, "holds an empty object"),
    ([["rights", "freedom"]], "holds a list"),
    ('"just a string"', "holds a string"),
    ({"en": [], "sv": []}, "every language has an empty list of topics"),
    ({"en": "rights freedom", "sv": [["frihet", "lika"]]}, "'en' holds a string"),
    ({"en": {"0": ["rights"]}, "sv": [["frihet", "lika"]]}, "'en' holds an object"),
    ({"en": [["rights"]], "sv": [["frihet"]]}, "a topic has only 1 word"),
    ({"en": [["rights", "Rights"]], "sv": [["frihet", "lika"]]}, "lists 'rights' twice (after lowercasing)"),
    ({"en": [["human rights", "freedom"]], "sv": [["frihet", "lika"]]}, "'human rights'; a word is a non"),
    ({"en": [["", "freedom"]], "sv": [["frihet", "lika"]]}, "is ''; a word is a non-empty string"),
    ({"en": [["rights", "freedom"]]}, "the topics file has one language (en)"),
]


@pytest.mark.parametrize("content, fragment", SCHEMA_CASES)
def test_cnpmi_topics_schema(cli_error, tmp_path, content, fragment):
    cli_error(["cnpmi", _topics_file(tmp_path, content), "--reference", "udhr", "--top", "2"], fragment)


@pytest.mark.parametrize("text, fragment", [
    ('{"en": [["rights", "freedom"]], "en": [["a", "b"]], "sv": [["frihet", "lika"]]}',
     "key 'en' occurs twice in one object"),
    ('{"en": [["rights",', "is not valid JSON: Expecting value at line 1"),
    ('{"en": [["rights", NaN]], "sv": [["frihet", "lika"]]}', "is a number NaN; expected a word string"),
    ("[" * 100_000 + "]" * 100_000, "is nested too deeply"),
])
def test_cnpmi_topics_json_syntax(cli_error, tmp_path, text, fragment):
    cli_error(["cnpmi", _topics_file(tmp_path, text), "--reference", "udhr"], fragment)


def test_cnpmi_topics_file_missing_folder_empty(cli_error, tmp_path):
    cli_error(["cnpmi", tmp_path / "none.json"], "topics file")
    cli_error(["cnpmi", tmp_path / "none.json"], "does not exist")
    cli_error(["cnpmi", tmp_path], "is a folder, not a file")
    cli_error(["cnpmi", _topics_file(tmp_path, " \n")], "is empty")


def test_cnpmi_topics_latin1_names_line_and_option(cli_error, tmp_path):
    data = '{"en": [["rights", "freedom"]],\n "sv": [["frihet", "två"]]}'.encode("latin-1")
    result = cli_error(["cnpmi", _topics_file(tmp_path, data)], "is not valid utf-8: byte 0xe5 at line 2")
    assert "--encoding" in result.err
    cli_error(["cnpmi", _topics_file(tmp_path, data), "--encoding", "no-such-codec"],
              "unknown encoding 'no-such-codec'")


@pytest.mark.parametrize("value", ["0", "1", "-3", "2.5", "ten"])
def test_cnpmi_top_is_validated(cli_error, tmp_path, value):
    cli_error(["cnpmi", _topics_file(tmp_path, GOOD), "--top", value], "--n-top must be a whole number >= 2",
              code=2)


# --reference takes a name or a path now: its bad values are in test_multilingual_tools.py
@pytest.mark.parametrize("option", [["--zero", "nan"], ["--format", "xml"]])
def test_cnpmi_choices(cli_error, tmp_path, option):
    cli_error(["cnpmi", _topics_file(tmp_path, GOOD), *option], "invalid choice", code=2)


def test_cnpmi_mta_needs_two_languages(cli_error, tmp_path):
    three = {**GOOD, "ro": [["drepturi", "libertate", "egal"], ["familie", "casatorie", "protectie"]]}
    dic = tmp_path / "en-sv.txt"
    dic.write_text("rights rättigheter\n", encoding="utf-8")
    cli_error(["cnpmi", _topics_file(tmp_path, three), "--dictionary", dic, "--top", "3"],
              "MTA compares two languages")


def test_cnpmi_dictionary_files(cli_error, tmp_path):
    topics = [_topics_file(tmp_path, GOOD), "--top", "3"]
    cli_error(["cnpmi", *topics, "--dictionary", tmp_path / "en-sv.txt"], "dictionary")
    cli_error(["cnpmi", *topics, "--dictionary", tmp_path / "en-sv.txt"], "does not exist")
    odd = tmp_path / "words.txt"
    odd.write_text("rights rättigheter\n", encoding="utf-8")
    cli_error(["cnpmi", *topics, "--dictionary", odd], "cannot tell the languages of dictionary file")


# -- the schema through the API -----------------------------------------------------------------
@pytest.fixture(scope="module")
def toy():
    texts = {"en": ["dog cat fish", "dog bird cat", "cat fish tree"],
             "sv": ["hund katt fisk", "hund fagel katt", "katt fisk trad"]}
    pre = {x: Preprocessor(stop_words=None) for x in texts}
    return AlignedReference(AlignedCorpus.from_texts(texts, ["t0", "t1", "t2"], pre), "toy")


@pytest.mark.parametrize("topics, error, fragment", [
    ({"en": [["dog", "cat"]], "eng": [["dog", "cat"]]}, InputFormatError, "both name language 'en'"),
    ({"en": ["dog cat"], "sv": [["hund", "katt"]]}, InputFormatError, "is a string 'dog cat'"),
    ({"en": [["dog", 3]], "sv": [["hund", "katt"]]}, InputFormatError, "is a number 3"),
    ({"en": [["dog", None]], "sv": [["hund", "katt"]]}, InputFormatError, "is null"),
    ({"en": "dog cat", "sv": [["hund", "katt"]]}, InputFormatError, "must be a list of topics"),
    ({"en": [["dog", "cat"]], "sv": []}, InputFormatError, "different numbers of topics"),
    ({"en": [["dog", "cat"]], "klingon": [["hund", "katt"]]}, UnknownLanguageError,
     "'klingon' is not a language code"),
    ({"en": [["dog", "cat"]], "xx": [["hund", "katt"]]}, LanguageMismatchError, "has no 'xx' side"),
    ({"en": [[]], "sv": [["hund", "katt"]]}, EmptyInputError, "topics with no words"),
    ({"en": [["dog", "dog"]], "sv": [["hund", "katt"]]}, InputFormatError, "lists 'dog' twice"),
])
def test_measures_validate_topics(toy, topics, error, fragment):
    with pytest.raises(error, match=fragment):
        M.cnpmi(topics, toy)


def test_aliases_alone_are_understood(toy):
    """`eng`/`swe` name the reference's en/sv sides: the same scores as `en`/`sv`."""
    topics = {"en": [["dog", "cat", "fish"]], "sv": [["hund", "katt", "trad"]]}
    alias = M.cnpmi({"eng": topics["en"], "swe": topics["sv"]}, toy)
    assert alias.per_topic.tolist() == M.cnpmi(topics, toy).per_topic.tolist()
    assert validate_topics({"eng": topics["en"], "swe_Latn": topics["sv"]}) == topics


def test_numpy_word_arrays_are_understood(toy):
    import numpy as np

    topics = {"en": [["dog", "cat", "fish"]], "sv": [["hund", "katt", "trad"]]}
    arrays = {x: [np.array(t) for t in ts] for x, ts in topics.items()}
    assert M.cnpmi(arrays, toy).per_topic.tolist() == M.cnpmi(topics, toy).per_topic.tolist()


def test_validate_topics_refuses_non_objects():
    with pytest.raises(InputFormatError, match="holds null; expected an object"):
        validate_topics(None)


# -- documented values -------------------------------------------------------------------------
def test_read_topics_clamps_to_the_shortest_topic_with_a_warning(tmp_path):
    topics = {"en": [["Rights", "freedom", "equal", "dignity"], ["marriage", "family", "protection"]],
              "sv": [["rättigheter", "frihet", "lika", "värdighet"], ["äktenskap", "familj", "skydd"]]}
    with pytest.warns(UserWarning, match="shortest topic has 3 words, fewer than n_top=10"):
        out = read_topics(_topics_file(tmp_path, topics), n_top=10)
    assert out == {x: [[w.lower() for w in t[:3]] for t in ts] for x, ts in topics.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_topics(_topics_file(tmp_path, topics), n_top=3) == out  # no clamp, no warning


def test_read_topics_bom_and_crlf_are_transparent(tmp_path):
    text = json.dumps(GOOD, ensure_ascii=False, indent=1).replace("\n", "\r\n")
    bom = read_topics(_topics_file(tmp_path, b"\xef\xbb\xbf" + text.encode(), "bom.json"))
    assert bom == read_topics(_topics_file(tmp_path, GOOD))


def test_read_topics_top_is_validated(tmp_path):
    with pytest.raises(TealeavesError, match="top must be a whole number >= 2, got 1"):
        read_topics(_topics_file(tmp_path, GOOD), n_top=1)


def test_cnpmi_clamp_is_recorded_and_equals_the_explicit_cardinality(run_cli, tmp_path):
    require_data(UDHR)
    path = _topics_file(tmp_path, GOOD)
    clamped = run_cli(["cnpmi", path, "--reference", "udhr", "--top", "10", "--format", "json"])
    explicit = run_cli(["cnpmi", path, "--reference", "udhr", "--top", "3", "--format", "json"])
    assert clamped.code == explicit.code == 0
    assert "tealeaves: warning: the shortest topic has 3 words" in clamped.err and explicit.err == ""
    a, b = json.loads(clamped.out), json.loads(explicit.out)
    assert a == b and "|top=3|" in a["cnpmi"]["signature"]


def test_cnpmi_bom_topics_file_scores_like_the_plain_one(run_cli, tmp_path):
    require_data(UDHR)
    plain = _topics_file(tmp_path, GOOD)
    bom = _topics_file(tmp_path, b"\xef\xbb\xbf" + plain.read_bytes(), "bom.json")
    outs = [run_cli(["cnpmi", p, "--reference", "udhr", "--top", "3", "--format", "json"])
            for p in (plain, bom)]
    assert outs[0].code == outs[1].code == 0 and json.loads(outs[0].out) == json.loads(outs[1].out)


# -- dictionaries --------------------------------------------------------------------------------
def test_dictionary_encoding_is_strict(tmp_path):
    path = tmp_path / "en-sv.txt"
    path.write_bytes("rights rättigheter\nfamily familj\n".encode("latin-1"))
    with pytest.raises(InputEncodingError, match=r"en-sv.txt' is not valid utf-8: byte 0xe4 at line 1"):
        read_muse(path)
    assert ("rights", "rättigheter") in read_muse(path, encoding="latin-1").pairs


def test_dictionary_bom_and_format(tmp_path):
    path = tmp_path / "en-sv.txt"
    path.write_bytes(b"\xef\xbb\xbfrights r\xc3\xa4ttigheter\n")
    assert read_muse(path).pairs == {("rights", "rättigheter")}
    with pytest.raises(TealeavesError, match="unknown dictionary format 'tmx'"):
        read_dictionary(path, fmt="tmx")
    empty = tmp_path / "en-ro.txt"
    empty.write_text("one-field-only\n", encoding="utf-8")
    with pytest.raises(EmptyInputError, match="holds no translation pairs"):
        read_muse(empty)
