"""Bad input to the streaming/sharded builds and the ingestion readers: exact, clean failures."""

from __future__ import annotations

import bz2
import functools
import gzip
import json
import pathlib
import socket

import numpy as np
import pytest

from tealeaves.errors import EmptyInputError, InputFormatError
from tealeaves.ingest import iter_documents

REDIRECTS_ONLY = """<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="en">
<siteinfo><sitename>W</sitename><dbname>w</dbname><base>x</base><generator>g</generator>
<case>first-letter</case>
<namespaces><namespace key="0" case="first-letter" /></namespaces></siteinfo>
<page><title>A</title><ns>0</ns><id>1</id><redirect title="B" /><revision><id>1</id>
<timestamp>2020-01-01T00:00:00Z</timestamp>
<contributor><username>u</username><id>1</id></contributor><model>wikitext</model><format>text/x-wiki</format>
<text xml:space="preserve">#REDIRECT [[B]]</text><sha1>x</sha1></revision></page>
<page><title>C</title><ns>0</ns><id>2</id><redirect title="B" /><revision><id>2</id>
<timestamp>2020-01-01T00:00:00Z</timestamp>
<contributor><username>u</username><id>1</id></contributor><model>wikitext</model><format>text/x-wiki</format>
<text xml:space="preserve">#REDIRECT [[B]]</text><sha1>x</sha1></revision></page>
</mediawiki>
"""


def _jsonl(path: pathlib.Path, docs) -> pathlib.Path:
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
    return path


@pytest.fixture
def cli_error(cli_error):
    """tests/conftest.py's ``cli_error``, allowing the build's progress lines before the error line."""
    return functools.partial(cli_error, progress=True)


@pytest.fixture
def good(tmp_path) -> pathlib.Path:
    return _jsonl(tmp_path / "good.jsonl", [{"id": "1", "text": "the river flows to the sea"}])


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_truncated_bz2_dump(tmp_path, cli_error):
    pytest.importorskip("mwxml")
    gensim = pytest.importorskip("gensim")
    dump = (pathlib.Path(gensim.__file__).parent / "test" / "test_data" /
            "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2")
    cut = tmp_path / "cut.xml.bz2"
    cut.write_bytes(dump.read_bytes()[: dump.stat().st_size // 3])
    cli_error(["index", "build", cut, "-o", tmp_path / "x.tlx"], "is truncated or corrupted")
    assert not (tmp_path / "x.tlx").exists()


def test_dump_with_only_redirects(tmp_path, cli_error):
    pytest.importorskip("mwxml")
    p = tmp_path / "redirects.xml.bz2"
    p.write_bytes(bz2.compress(REDIRECTS_ONLY.encode()))
    cli_error(["index", "build", p, "-o", tmp_path / "x.tlx"], "holds no document (skipped: 2 redirect)")


def test_malformed_dump_xml(tmp_path):
    pytest.importorskip("mwxml")
    p = tmp_path / "bad.xml"
    p.write_text(REDIRECTS_ONLY[:600] + "<page><title>unclosed", encoding="utf-8")
    with pytest.raises(InputFormatError, match="is malformed|truncated or corrupted"):
        list(iter_documents(p))


def test_dump_page_without_title(tmp_path, cli_error):
    # before: exit 70 (AttributeError inside mwxml)
    pytest.importorskip("mwxml")
    page = REDIRECTS_ONLY.index("<page>")
    untitled = (REDIRECTS_ONLY[:page] + "<page><ns>0</ns><id>7</id><revision><id>1</id>"
                "<timestamp>2020-01-01T00:00:00Z</timestamp><contributor><username>u</username><id>1</id>"
                "</contributor><model>wikitext</model><format>text/x-wiki</format>"
                "<text>the cat sat on the mat</text></revision></page>\n</mediawiki>\n")
    p = tmp_path / "untitled.xml"
    p.write_text(untitled, encoding="utf-8")
    cli_error(["index", "build", p, "-o", tmp_path / "x.tlx"], "the first page lacks an element")
    assert not (tmp_path / "x.tlx").exists()
    with pytest.raises(InputFormatError, match="e.g. <title>"):
        list(iter_documents(p))


def test_corrupted_gzip_shard(tmp_path, cli_error, good):
    p = tmp_path / "bad.jsonl.gz"
    data = gzip.compress(good.read_bytes() * 50)
    p.write_bytes(data[:20] + b"\xff" * 40 + data[60:])
    cli_error(["index", "build", p, "-o", tmp_path / "x.tlx"], "is truncated or corrupted")


@pytest.mark.parametrize("content,fragment", [
    (b"", "holds no document"),
    (b"\n\n", "holds no document"),
    (b'{"id": 1}\n', "field 'text' is missing"),
    (b'{"id": 1, "text": 5}\n', "must be a string"),
    (b"not json\n", "malformed JSON"),
    (b'{"id": 1, "text": "caf\xe9"}\n', "not valid utf-8"),
])
def test_bad_jsonl_shards(tmp_path, cli_error, good, content, fragment):
    p = tmp_path / "bad.jsonl"
    p.write_bytes(content)
    cli_error(["index", "build", good, p, "-o", tmp_path / "x.tlx"], fragment)
    assert not (tmp_path / "x.tlx").exists()
    assert not [q for q in tmp_path.iterdir() if q.name.startswith(".")]  # no work files left


def test_unreadable_shard_is_a_folder_of_nothing(tmp_path, cli_error, good):
    empty = tmp_path / "empty_folder"
    empty.mkdir()
    cli_error(["index", "build", good, empty, "-o", tmp_path / "x.tlx"], "holds no document")


def test_mixed_tokenisations_across_shards(tmp_path, cli_error, good):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("river sea\n", encoding="utf-8")
    cli_error(["index", "build", good, tokens, "-o", tmp_path / "x.tlx"], "mixed tokenisations")


def test_corrupted_parquet(tmp_path, cli_error):
    pytest.importorskip("pyarrow")
    p = tmp_path / "bad.parquet"
    p.write_bytes(b"PAR1" + b"\x00garbage" * 20)
    cli_error(["index", "build", p, "-o", tmp_path / "x.tlx"], "Parquet shard")


def test_parquet_without_text_column(tmp_path, cli_error):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    p = tmp_path / "cols.parquet"
    pq.write_table(pa.table({"body": ["text"]}), p)
    cli_error(["index", "build", p, "-o", tmp_path / "x.tlx"], "has no column 'text' (columns: body)")


@pytest.mark.parametrize("argv,fragment,code", [
    (["--workers", "0"], "--workers", 2),
    (["--workers", "two"], "--workers", 2),
    (["--memory", "lots"], "is not a size", 1),
    (["--memory", "10M"], "below the smallest budget", 1),
    (["--memory", "nan"], "is not a size", 1),  # was 'below the smallest budget': nan is no size
    (["--scheduler", "localhost"], "--scheduler 'localhost' is not a Dask address", 1),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "exclude each other", 1),
])
def test_bad_build_options(tmp_path, cli_error, good, argv, fragment, code):
    cli_error(["index", "build", good, "-o", tmp_path / "x.tlx", *argv], fragment, code=code)


def test_unreachable_scheduler(tmp_path, cli_error, good, monkeypatch):
    pytest.importorskip("distributed")
    from tealeaves.index import dask as tdask

    monkeypatch.setattr(tdask, "CONNECT_TIMEOUT", 2)
    address = f"tcp://127.0.0.1:{_closed_port()}"
    cli_error(["index", "build", good, "-o", tmp_path / "x.tlx", "--scheduler", address],
              "cannot reach the Dask scheduler at tcp://127.0.0.1:")


def test_same_file_name_twice(tmp_path, cli_error, good):
    other = tmp_path / "sub"
    other.mkdir()
    copy = _jsonl(other / "good.jsonl", [{"id": "2", "text": "another"}])
    cli_error(["index", "build", good, copy, "-o", tmp_path / "x.tlx"], "the same file name (good.jsonl)")


def test_missing_input(tmp_path, cli_error, good):
    cli_error(["index", "build", good, tmp_path / "nope.jsonl", "-o", tmp_path / "x.tlx"], "does not exist")


def test_inputs_without_verify(tmp_path, cli_error, good, run_cli):
    assert run_cli(["index", "build", good, "-o", tmp_path / "x.tlx"]).code == 0
    cli_error(["index", "info", tmp_path / "x.tlx", "--inputs", good], "only checked with --verify")


def test_verify_inputs_of_an_index_without_manifest(tmp_path, cli_error, good):
    from tealeaves.corpus import Corpus
    from tealeaves.index import build_index

    path = build_index(Corpus.from_token_lists([["a"]])).save(tmp_path / "old.tlx")
    cli_error(["index", "info", path, "--verify", "--inputs", good], "records no shard manifest")


def test_no_word_survives_pruning(tmp_path, good):
    from tealeaves.corpus import Preprocessor
    from tealeaves.index.streaming import build_streaming

    with pytest.raises(EmptyInputError, match="no word survives `min_df`=5"):
        build_streaming([good], tmp_path / "x.tlx", preprocessor=Preprocessor(min_df=5))


@pytest.mark.parametrize("argv,fragment,code", [
    (["--languages", "en"], "at least two distinct languages", 1),
    (["--languages", "en,en"], "more than once", 1),
    (["--languages", "en,??"], "is not a language code", 1),
    (["--languages", "en,sv", "--links", "links.jsonl"], "either tuple shards, parallel line files, or",
     1),
])
def test_bad_aligned_options(tmp_path, cli_error, argv, fragment, code):
    tuples = _jsonl(tmp_path / "t.jsonl", [{"id": "1", "en": "river", "sv": "älv"}])
    cli_error(["index", "build-aligned", tuples, "-o", tmp_path / "al", *argv], fragment, code=code)


@pytest.mark.parametrize("rows,fragment", [
    ([{"id": "1", "en": "river", "sv": 3}], "'sv' is 3; expected the text as a string"),
    ([{"en": "river", "sv": "älv"}], 'has no "id"'),
    ([{"id": "1", "en": "river"}], "has no text in ['sv']"),
])
def test_bad_tuple_shards(tmp_path, cli_error, rows, fragment):
    tuples = _jsonl(tmp_path / "t.jsonl", rows)
    cli_error(["index", "build-aligned", tuples, "--languages", "en,sv", "-o", tmp_path / "al"], fragment)


def test_bad_dump_option(tmp_path, cli_error):
    links = _jsonl(tmp_path / "links.jsonl", [{"en": "A", "sv": "B"}])
    cli_error(["index", "build-aligned", "--links", links, "--dump", "en", "--languages", "en,sv",
               "-o", tmp_path / "al"], "is not LANG=PATH")
    cli_error(["index", "build-aligned", "--links", links, "--dump", f"en={links}", "--languages", "en,sv",
               "-o", tmp_path / "al"], "no --dump for sv")


@pytest.mark.parametrize("module,extra,make", [
    ("mwxml", "wiki", lambda d: (d / "dump.xml").write_text(REDIRECTS_ONLY, encoding="utf-8")),
    ("pyarrow.parquet", "parquet", lambda d: (d / "x.parquet").write_bytes(b"PAR1")),
])
def test_missing_optional_library_names_the_extra(tmp_path, cli_error, monkeypatch, module, extra, make):
    import sys

    make(tmp_path)
    [shard] = [p for p in tmp_path.iterdir()]
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    cli_error(["index", "build", shard, "-o", tmp_path / "x.tlx"], f"pip install 'tealeaves[{extra}]'")


def test_missing_dask_names_the_extra(tmp_path, cli_error, good, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)
    cli_error(["index", "build", good, "-o", tmp_path / "x.tlx", "--workers", "2"],
              "pip install 'tealeaves[dask]'")


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress])
def test_compressed_parquet_shard_reads_as_the_plain_one(tmp_path, run_cli, compress):
    # before: refused, although docs/scale.md says any input may be compressed
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from tealeaves.index import ReferenceIndex

    texts = ["the cat sat on the mat", "dog runs far away", "sun moon star sky", "the cat and the dog"]
    plain = tmp_path / "s.parquet"
    pq.write_table(pa.table({"id": [f"d{i}" for i in range(4)], "text": texts}), plain)
    packed = tmp_path / "packed" / "s.parquet.gz"
    packed.parent.mkdir()
    packed.write_bytes(compress(plain.read_bytes()))
    assert [t for _, t in iter_documents(packed)] == texts
    for source, out in ((plain, "a.tlx"), (packed, "b.tlx")):
        assert run_cli(["index", "build", source, "-o", tmp_path / out]).code == 0
    a, b = ReferenceIndex.load(tmp_path / "a.tlx"), ReferenceIndex.load(tmp_path / "b.tlx")
    assert a.document_ids == b.document_ids == [f"d{i}" for i in range(4)]
    assert list(a.vocabulary) == list(b.vocabulary)
    np.testing.assert_array_equal(a.doc_lengths, b.doc_lengths)


def test_truncated_compressed_parquet_shard(tmp_path, cli_error):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    plain = tmp_path / "s.parquet"
    pq.write_table(pa.table({"text": ["the cat sat on the mat"] * 50}), plain)
    data = gzip.compress(plain.read_bytes())
    (tmp_path / "cut.parquet.gz").write_bytes(data[: len(data) // 2])
    cut = tmp_path / "cut.parquet.gz"
    cli_error(["index", "build", cut, "-o", tmp_path / "x.tlx"], "truncated or corrupted")
