"""Ingestion: MediaWiki dumps (gensim's real shortened dumps), JSON Lines, Parquet, folders, compression."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import pathlib
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from tealeaves.corpus import Preprocessor
from tealeaves.index import build_index
from tealeaves.ingest import IngestStats, detect_kind, iter_documents

EN = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
BG = "bgwiki-latest-pages-articles-shortened.xml.bz2"


def gensim_dump(name: str) -> pathlib.Path:
    gensim = pytest.importorskip("gensim")
    pytest.importorskip("mwxml")
    path = pathlib.Path(gensim.__file__).parent / "test" / "test_data" / name
    if not path.exists():
        pytest.skip(f"gensim ships no {name}")
    return path


def independent_pages(path: pathlib.Path) -> list[dict]:
    """Every page of a dump read with xml.etree: title, namespace, redirect flag, last revision's text."""
    pages = []
    for _, elem in ET.iterparse(bz2.open(path)):
        if elem.tag.endswith("}page"):
            ns = {c.tag.split("}")[1]: c for c in elem}
            texts = [t for t in elem.iter() if t.tag.endswith("}text")]
            pages.append({"title": ns["title"].text, "ns": int(ns["ns"].text), "redirect": "redirect" in ns,
                          "text": texts[-1].text or ""})
            elem.clear()
    return pages


@pytest.fixture(scope="module")
def en_docs():
    path = gensim_dump(EN)
    stats = IngestStats()
    return path, list(iter_documents(path, stats=stats)), stats


def test_english_dump_counts_match_an_independent_parse(en_docs):
    path, docs, stats = en_docs
    pages = independent_pages(path)
    articles = [p for p in pages if p["ns"] == 0 and not p["redirect"]]
    assert stats.skipped["redirect"] == sum(p["ns"] == 0 and p["redirect"] for p in pages) == 99
    assert stats.skipped["non-article namespace"] == sum(p["ns"] != 0 for p in pages)
    assert [t for t, _ in docs] == [p["title"] for p in articles]
    assert stats.documents == len(docs) == 106


def test_english_dump_markup_removed(en_docs):
    import mwparserfromhell

    path, docs, _ = en_docs
    raw = {p["title"]: p["text"] for p in independent_pages(path)}
    title, text = docs[0]
    assert title == "Anarchism"
    assert text == mwparserfromhell.parse(raw[title]).strip_code().strip()
    assert "[[" not in text and "{{" not in text and "'''" not in text


def test_bulgarian_utf16_dump():
    path = gensim_dump(BG)
    assert detect_kind(path) == "wiki"
    stats = IngestStats()
    docs = list(iter_documents(path, stats=stats))
    assert [t for t, _ in docs] == ["Григориански календар"]
    assert stats.skipped == {"non-article namespace": 2}
    assert "календар" in docs[0][1]


def test_wiki_streaming_index_equals_single_build(en_docs, tmp_path):
    from tealeaves.index.streaming import build_streaming

    path, docs, _ = en_docs
    index, stats = build_streaming([path], tmp_path / "wiki.tlx", chunk_tokens=20_000)
    corpus = Preprocessor().fit_transform([t for _, t in docs], [i for i, _ in docs])
    reference = build_index(corpus)
    for name in ("vocab_blob", "post_docs", "positions", "pos_ptr", "doc_lengths", "docid_blob"):
        assert np.array_equal(np.asarray(index.arrays[name]), reference.arrays[name]), name
    assert index.n_tokens == corpus.n_tokens and stats.skipped["redirect"] == 99


DOCS = [("a", "The river flows"), ("b", "Über den Fluss\nnoch einmal"), ("c", "")]


@pytest.mark.parametrize("opener,suffix", [(open, ""), (gzip.open, ".gz"), (bz2.open, ".bz2"),
                                           (lzma.open, ".xz")])
def test_jsonl_plain_and_compressed(tmp_path, opener, suffix):
    p = tmp_path / f"docs.jsonl{suffix}"
    with opener(p, "wt", encoding="utf-8") as fh:
        for i, t in DOCS:
            fh.write(json.dumps({"id": i, "text": t}) + "\n")
    assert detect_kind(p) == "jsonl"
    assert list(iter_documents(p)) == DOCS


def test_parquet_shards(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    p = tmp_path / "docs.parquet"
    pq.write_table(pa.table({"id": [i for i, _ in DOCS], "text": [t for _, t in DOCS]}), p)
    assert detect_kind(p) == "parquet" and list(iter_documents(p)) == DOCS
    q = tmp_path / "noid.parquet"
    pq.write_table(pa.table({"body": [t for _, t in DOCS]}), q)
    assert list(iter_documents(q, text_field="body")) == [(str(k + 1), t) for k, (_, t) in enumerate(DOCS)]


def test_folder_matches_corpus_reader(tmp_path):
    from tealeaves.corpus.readers import read_text_folder

    root = tmp_path / "texts"
    (root / "sub").mkdir(parents=True)
    (root / "one.txt").write_text("first text\r\nwith CRLF", encoding="utf-8")
    (root / "sub" / "two.txt").write_text("second", encoding="utf-8")
    (root / ".hidden").write_text("skip me", encoding="utf-8")
    raw = read_text_folder(root)
    assert list(iter_documents(root)) == list(zip(raw.ids, raw.texts))
    with gzip.open(root / "three.txt.gz", "wt", encoding="utf-8") as fh:
        fh.write("compressed text")
    assert dict(iter_documents(root))["three.txt.gz"] == "compressed text"


def test_token_lines_match_reader(tmp_path):
    from tealeaves.corpus.readers import read_token_lines

    p = tmp_path / "tok.txt.gz"
    with gzip.open(p, "wt", encoding="utf-8") as fh:
        fh.write("a b\n\nc\x0cd e\nf")
    assert detect_kind(p) == "tokens"
    plain = tmp_path / "tok.txt"
    plain.write_text("a b\n\nc\x0cd e\nf", encoding="utf-8")
    corpus = read_token_lines(plain)
    docs = list(iter_documents(p))
    assert [i for i, _ in docs] == corpus.ids
    assert [t.split() for _, t in docs] == [corpus.vocabulary.decode(d) for d in corpus]


def test_wikipedia_langlinks_aligned_build(en_docs, tmp_path):
    from tealeaves.corpus.aligned import default_preprocessor
    from tealeaves.index import ReferenceIndex
    from tealeaves.multilingual.aligned_build import build_aligned_reference

    path, docs, _ = en_docs
    bg_path = gensim_dump(BG)
    text = dict(docs)
    bg_text = dict(iter_documents(bg_path))
    links = tmp_path / "links.jsonl"
    rows = [{"en": "Anarchism", "bg": "Григориански календар"}, {"en": "Autism"},
            {"en": "No such article", "bg": "Няма"}, {"bg": "Григориански календар", "en": "Albedo"}]
    links.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    ref, stats = build_aligned_reference([], tmp_path / "wiki", languages="en,bg", links=str(links),
                                         dumps=[f"en={path}", f"bg={bg_path}"], chunk_tokens=5_000)
    built = ref.index.indices
    assert stats.skipped["link without article"] == 1
    # the tuples are links 1, 2 and 4 (ids: line numbers); en has all three, bg tuples 0 and 2
    for lang, slots, texts in (("en", [0, 1, 2], [text["Anarchism"], text["Autism"], text["Albedo"]]),
                               ("bg", [0, 2], [bg_text["Григориански календар"]] * 2)):
        ids = [["1", "2", "4"][s] for s in slots]
        corpus = default_preprocessor(lang, max_df=1.0).fit_transform(texts, ids)
        reference = build_index(corpus, doc_ids=slots, n_space=3)
        loaded = ReferenceIndex.load(tmp_path / "wiki" / f"{lang}.tlx")
        for name in ("vocab_blob", "post_docs", "positions", "present", "doc_lengths", "docid_blob"):
            assert np.array_equal(np.asarray(loaded.arrays[name]), reference.arrays[name]), (lang, name)
        assert built[lang].n_documents == 3
