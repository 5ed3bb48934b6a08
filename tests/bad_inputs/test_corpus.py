"""Bad and edge inputs of the corpus readers (API and through ``tealeaves index build``).

Each case asserts the exact outcome: the error class and a message fragment, or a result
checked against an independent reading of the same bytes.
"""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from tealeaves._io import split_lines
from tealeaves.corpus import AlignedCorpus, Corpus, Preprocessor, Vocabulary
from tealeaves.corpus.aligned import UnknownLanguageError, normalize_language
from tealeaves.corpus.parallel import ParallelFormatError, read_ces_bible, read_line_aligned
from tealeaves.corpus.readers import (
    CorpusFormatError,
    read_corpus,
    read_jsonl,
    read_raw,
    read_text_folder,
    read_token_lines,
)
from tealeaves.errors import (
    EmptyInputError,
    InputEncodingError,
    InputFormatError,
    InputNotFoundError,
    TealeavesError,
)

BOM = b"\xef\xbb\xbf"


def _write(path, data: bytes | str):
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


# -- missing, folders, empty files ---------------------------------------------------------
@pytest.mark.parametrize("reader", [read_token_lines, read_jsonl, read_corpus, read_raw])
def test_missing_path(tmp_path, reader):
    with pytest.raises(InputNotFoundError, match="nope.txt' does not exist"):
        reader(tmp_path / "nope.txt")


@pytest.mark.parametrize("reader", [read_token_lines, read_jsonl])
def test_folder_where_a_file_is_expected(tmp_path, reader):
    with pytest.raises(TealeavesError, match="is a folder, not a file"):
        reader(tmp_path)


def test_text_folder_given_a_file(tmp_path):
    f = _write(tmp_path / "a.txt", "x")
    with pytest.raises(InputFormatError, match="is not a folder"):
        read_text_folder(f)


def test_ids_file_is_a_folder(tmp_path):
    f = _write(tmp_path / "docs.txt", "a b\n")
    with pytest.raises(TealeavesError, match="ids file .* is a folder"):
        read_token_lines(f, ids_path=tmp_path)


@pytest.mark.parametrize("content", [b"", BOM])
def test_empty_token_file(tmp_path, content):
    f = _write(tmp_path / "docs.txt", content)
    with pytest.raises(EmptyInputError, match="holds no line"):
        read_token_lines(f)


@pytest.mark.parametrize("content", [b"", b"\n\n  \n", BOM + b"\n"])
def test_empty_jsonl(tmp_path, content):
    f = _write(tmp_path / "docs.jsonl", content)
    with pytest.raises(EmptyInputError, match="holds no document"):
        read_jsonl(f)


# -- encodings ---------------------------------------------------------------------------
def test_latin1_token_file_names_file_and_line(tmp_path):
    f = _write(tmp_path / "docs.txt", "ok words\nstill fine\ncafé\n".encode("latin-1"))
    with pytest.raises(InputEncodingError, match=r"docs.txt' is not valid utf-8: byte 0xe9 at line 3") as e:
        read_token_lines(f)
    assert "`encoding`" in str(e.value)  # the parameter; the command line names its option (docs/naming.md)
    assert read_token_lines(f, encoding="latin-1").words(2) == ["café"]


def test_latin1_jsonl_and_ids_file(tmp_path):
    f = _write(tmp_path / "docs.jsonl", json.dumps({"id": "a", "text": "x"}) + "\n")
    _write(f, f.read_bytes() + '{"id": "b", "text": "crème"}\n'.encode("latin-1"))
    with pytest.raises(InputEncodingError, match="at line 2"):
        read_jsonl(f)
    tok = _write(tmp_path / "docs.txt", "a\nb\n")
    ids = _write(tmp_path / "ids.txt", "d1\nné\n".encode("latin-1"))
    with pytest.raises(InputEncodingError, match=r"ids.txt' is not valid utf-8.*line 2"):
        read_token_lines(tok, ids)


def test_utf16_file_is_refused_not_misread(tmp_path):
    f = _write(tmp_path / "docs.txt", "rights freedom\n".encode("utf-16"))
    with pytest.raises(InputEncodingError, match="byte 0xff at line 1"):
        read_corpus(f)


def test_unknown_encoding_name(tmp_path):
    f = _write(tmp_path / "docs.txt", "a\n")
    with pytest.raises(TealeavesError, match="unknown encoding 'klingon'"):
        read_token_lines(f, encoding="klingon")


def test_bom_is_removed_not_glued_to_the_first_word(tmp_path):
    lines = "rights freedom\r\nfamily rights\r\n"
    plain = read_token_lines(_write(tmp_path / "plain.txt", lines.replace("\r\n", "\n")))
    bom = read_token_lines(_write(tmp_path / "bom.txt", BOM + lines.encode()))
    assert list(bom.vocabulary) == list(plain.vocabulary) == ["rights", "freedom", "family"]
    assert np.array_equal(bom.tokens, plain.tokens) and np.array_equal(bom.offsets, plain.offsets)


def test_bom_jsonl_first_line_parses(tmp_path):
    f = _write(tmp_path / "docs.jsonl", BOM + json.dumps({"id": "a", "text": "alpha"}).encode() + b"\n")
    assert read_jsonl(f).texts == ["alpha"]


def test_bom_in_text_folder_file(tmp_path):
    _write(tmp_path / "a.txt", BOM + b"Alpha beta")
    assert read_text_folder(tmp_path).texts == ["Alpha beta"]


# -- line ends ------------------------------------------------------------------------------
@pytest.mark.parametrize("sep", ["\n", "\r\n", "\r"])
def test_line_ends_give_the_same_documents(tmp_path, sep):
    docs = ["a b", "", "c a"]
    corpus = read_token_lines(_write(tmp_path / "d.txt", sep.join(docs) + sep))
    assert [corpus.words(d) for d in range(len(corpus))] == [d.split() for d in docs]


def test_unicode_separators_do_not_split_documents(tmp_path):
    """U+2028, U+0085 and form feeds are whitespace between tokens, not document breaks."""
    text = "a\u2028b\x0cc\nd\x85e\n"
    corpus = read_token_lines(_write(tmp_path / "d.txt", text))
    assert len(corpus) == 2 and corpus.words(0) == ["a", "b", "c"] and corpus.words(1) == ["d", "e"]
    assert split_lines(text) == ["a\u2028b\x0cc", "d\x85e"]


# -- JSON Lines structure -------------------------------------------------------------------
@pytest.mark.parametrize("value, kind", [(1.5, "float"), (None, "NoneType"), (True, "bool"), ([1], "list")])
def test_jsonl_ids_must_be_strings_or_whole_numbers(tmp_path, value, kind):
    f = _write(tmp_path / "d.jsonl", json.dumps({"id": value, "text": "x"}) + "\n")
    with pytest.raises(CorpusFormatError, match=f"line 1: a document id must be a string or a whole.*{kind}"):
        read_jsonl(f)


@pytest.mark.parametrize("line, fragment", [
    ("[1, 2]", "expected a JSON object, got list"),
    ('"text"', "expected a JSON object, got str"),
    ("{", "malformed JSON"),
    ("[" * 50_000 + "]" * 50_000, "JSON nested too deeply"),
])
def test_jsonl_line_structure(tmp_path, line, fragment):
    f = _write(tmp_path / "d.jsonl", json.dumps({"id": "a", "text": "x"}) + "\n" + line + "\n")
    with pytest.raises(CorpusFormatError, match=f"line 2: {fragment}"):
        read_jsonl(f)


def test_corpus_format_error_is_an_input_format_error():
    for cls in (CorpusFormatError, ParallelFormatError, UnknownLanguageError):
        assert issubclass(cls, InputFormatError)


# -- parallel readers -------------------------------------------------------------------------
def test_line_aligned_counts_and_recurring_ids(tmp_path):
    en = _write(tmp_path / "en.txt", "one\ntwo\nthree\n")
    sv = _write(tmp_path / "sv.txt", "ett\ntva\n")
    with pytest.raises(ParallelFormatError, match="sv.txt has 2 lines but there are 3 document ids"):
        read_line_aligned({"en": en, "sv": sv}, ["a", "a", "b"])
    with pytest.raises(ParallelFormatError, match="document id 'a' recurs at line 3"):
        read_line_aligned({"en": en}, ["a", "b", "a"])


def test_line_aligned_encoding_and_bom(tmp_path):
    en = _write(tmp_path / "en.txt", BOM + b"one\r\ntwo\r\n")
    sv = _write(tmp_path / "sv.txt", "ett\ntvå\n".encode("latin-1"))
    with pytest.raises(InputEncodingError, match=r"sv.txt' is not valid utf-8.*line 2"):
        read_line_aligned({"en": en, "sv": sv}, ["a", "b"])
    out = read_line_aligned({"en": en}, ["a", "a"])
    assert out.texts["en"] == ["one two"]  # BOM and CRs removed, lines joined per document
    assert read_line_aligned({"sv": sv}, ["a", "b"], encoding="latin-1").texts["sv"] == ["ett", "två"]


def test_ces_bible_folder_and_malformed_xml(tmp_path):
    with pytest.raises(TealeavesError, match="is a folder, not a file"):
        read_ces_bible(tmp_path)
    bad = _write(tmp_path / "b.xml", "<cesDoc><seg id='b.GEN.1.1'>In the")
    with pytest.raises(ParallelFormatError, match="not well-formed CES XML"):
        read_ces_bible(bad)
    wrong = _write(tmp_path / "w.xml", "<cesDoc><seg id='GEN1'>x</seg></cesDoc>")
    with pytest.raises(ParallelFormatError, match="is not of the form b.BOOK.C.V"):
        read_ces_bible(wrong)


# -- in-memory structures -----------------------------------------------------------------------
def test_structures_raise_input_format_errors():
    with pytest.raises(InputFormatError, match="duplicate words"):
        Vocabulary(["a", "b", "a"])
    with pytest.raises(InputFormatError, match="offsets must be non-decreasing"):
        Corpus(Vocabulary(["a"]), np.array([0, 0]), np.array([0, 2, 1, 2]), ["x", "y", "z"])
    pre = {x: Preprocessor(stop_words=None) for x in ("en", "sv")}
    with pytest.raises(InputFormatError, match="'sv' has 1 texts for 2 tuple ids"):
        AlignedCorpus.from_texts({"en": ["alpha beta", "gamma"], "sv": ["delta"]}, ["t1", "t2"], pre)
    with pytest.raises(UnknownLanguageError, match="unknown language code 'klingon'"):
        normalize_language("klingon")


# -- through the CLI: index build reads with the same policy ----------------------------------------
def test_index_build_refuses_latin1_naming_line(cli_error, tmp_path):
    f = _write(tmp_path / "ref.txt", "fine words\ncafé au lait\n".encode("latin-1"))
    cli_error(["index", "build", f, "-o", tmp_path / "r.tlx"],
              "ref.txt' is not valid utf-8: byte 0xe9 at line 2")
    assert not list(tmp_path.glob("*.tlx*"))  # nothing written, no stray temporary file


def test_index_build_reads_another_encoding_with_the_option(run_cli, tmp_path):
    """The same documents in latin-1 with --encoding latin-1 give the same index as in UTF-8."""
    from tealeaves.index import ReferenceIndex

    text = "fine words\ncafé au lait\n"
    utf8 = _write(tmp_path / "u.txt", text.encode())
    latin1 = _write(tmp_path / "l.txt", text.encode("latin-1"))
    assert run_cli(["index", "build", utf8, "-o", tmp_path / "u.tlx"]).code == 0
    assert run_cli(["index", "build", latin1, "-o", tmp_path / "l.tlx", "--encoding", "latin-1"]).code == 0
    a, b = ReferenceIndex.load(tmp_path / "u.tlx"), ReferenceIndex.load(tmp_path / "l.tlx")
    assert list(a.vocabulary) == list(b.vocabulary) and "café" in a.vocabulary.index
    assert all((a.arrays[n] == b.arrays[n]).all() for n in ("word_ptr", "post_docs", "positions"))


def test_index_build_bom_and_crlf_reference_equals_plain(run_cli, tmp_path):
    from tealeaves.index import ReferenceIndex

    docs = ["rights freedom dignity", "family rights", "", "freedom of thought"]
    plain = _write(tmp_path / "plain.txt", "\n".join(docs) + "\n")
    bom = _write(tmp_path / "bom.txt", BOM + "\r\n".join(docs).encode() + b"\r\n")
    for src in (plain, bom):
        assert run_cli(["index", "build", src, "-o", src.with_suffix(".tlx")]).code == 0
    a, b = (ReferenceIndex.load(p.with_suffix(".tlx")) for p in (plain, bom))
    assert list(a.vocabulary) == list(b.vocabulary)
    df = Counter(w for d in docs for w in set(d.split()))  # independent document frequencies
    assert [int(x) for x in b.document_frequencies()] == [df[w] for w in b.vocabulary]
    assert b.n_documents == len(docs) and b.n_tokens == sum(len(d.split()) for d in docs)


@pytest.mark.parametrize("name, content, fragment", [
    ("empty.txt", b"", "holds no document"),
    ("blank.jsonl", b"\n\n", "holds no document"),
    ("bad.jsonl", b'{"id": 1, "text": "a"}\n{oops\n', "line 2: malformed JSON"),
    ("garbage.txt", bytes(range(128, 256)), "is not valid utf-8"),
])
def test_index_build_bad_corpus_files(cli_error, tmp_path, name, content, fragment):
    f = _write(tmp_path / name, content)
    cli_error(["index", "build", f, "-o", tmp_path / "r.tlx"], fragment)


def test_reuters_reader_paths(tmp_path):
    from tealeaves.corpus.reuters import read_reuters

    with pytest.raises(TealeavesError, match="Reuters SGML file .* is a folder"):
        read_reuters([tmp_path])
    with pytest.raises(InputNotFoundError, match="does not exist"):
        read_reuters([tmp_path / "reut2-999.sgm"])
    sgm = _write(tmp_path / "x.sgm", b"no stories here \xe9")  # latin-1 by definition: decodes, no story
    with pytest.raises(EmptyInputError, match="no <REUTERS> story found"):
        read_reuters([sgm])


@pytest.mark.parametrize("encoding, fragment", [
    ("bogus", "unknown encoding 'bogus'"),
    ("utf-16", "needs an ASCII-compatible encoding; utf-16 is not one"),
    ("utf-32-le", "needs an ASCII-compatible encoding; utf-32-le is not one"),
])
def test_index_build_refuses_unknown_or_line_unsafe_encodings(cli_error, tmp_path, encoding, fragment):
    """UTF-16/32 cannot be split into lines at the byte b"\\n": refused, never read as garbage tokens."""
    f = _write(tmp_path / "ref.txt", "fine words\nmore words\n".encode("utf-16"))
    cli_error(["index", "build", f, "-o", tmp_path / "r.tlx", "--encoding", encoding], fragment)
    assert not list(tmp_path.glob("*.tlx*"))


def test_index_build_utf8_sig_encoding_equals_utf8(run_cli, tmp_path):
    from tealeaves.index import ReferenceIndex

    f = _write(tmp_path / "ref.txt", BOM + b"fine words\nmore words\n")
    assert run_cli(["index", "build", f, "-o", tmp_path / "a.tlx"]).code == 0
    assert run_cli(["index", "build", f, "-o", tmp_path / "b.tlx", "--encoding", "utf-8-sig"]).code == 0
    a, b = ReferenceIndex.load(tmp_path / "a.tlx"), ReferenceIndex.load(tmp_path / "b.tlx")
    assert list(a.vocabulary) == list(b.vocabulary) and sorted(a.vocabulary) == ["fine", "more", "words"]
    assert (a.arrays["positions"] == b.arrays["positions"]).all()
