"""The MediaWiki ``langlinks`` SQL table: a streamed MySQL-dump reader checked against hand-built dumps
(escapes, multi-row INSERTs, comments, chunk boundaries), an independent sqlite3 parse, and a linked
Wikipedia build from gensim's real en/bg dumps joined on hand-built langlinks rows."""

from __future__ import annotations

import bz2
import gzip
import json
import sqlite3
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tealeaves.ingest import langlinks as L

HEADER = """-- MySQL dump 10.19  Distrib 10.3.38-MariaDB, for debian-linux-gnu (x86_64)
--
-- Host: db1    Database: enwiki
/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET NAMES utf8mb4 */;
/*!40103 SET TIME_ZONE='+00:00' */;

--
-- Table structure for table `langlinks`
--

DROP TABLE IF EXISTS `langlinks`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8 */;
CREATE TABLE `langlinks` (
  `ll_from` int(8) unsigned NOT NULL DEFAULT 0,
  `ll_lang` varbinary(35) NOT NULL DEFAULT '',
  `ll_title` varbinary(255) NOT NULL DEFAULT '',
  PRIMARY KEY (`ll_from`,`ll_lang`),
  KEY `ll_lang` (`ll_lang`,`ll_title`)
) ENGINE=InnoDB DEFAULT CHARSET=binary ROW_FORMAT=COMPRESSED;
/*!40101 SET character_set_client = @saved_cs_client */;

--
-- Dumping data for table `langlinks`
--

/*!40000 ALTER TABLE `langlinks` DISABLE KEYS */;
LOCK TABLES `langlinks` WRITE;
"""
FOOTER = """UNLOCK TABLES;
/*!40000 ALTER TABLE `langlinks` ENABLE KEYS */;
-- Dump completed on 2024-01-01  0:00:00
"""


def mysql_literal(text: str) -> str:
    """A string literal as mysqldump writes it (mysql_real_escape_string's escapes)."""
    table = {"\0": "\\0", "\n": "\\n", "\r": "\\r", "\\": "\\\\", "'": "\\'", '"': '\\"', "\x1a": "\\Z"}
    return "'" + "".join(table.get(c, c) for c in text) + "'"


def dump_sql(rows, per_insert: int = 3) -> str:
    """A langlinks dump of ``rows`` (ll_from, ll_lang, ll_title), ``per_insert`` rows per INSERT."""
    inserts = []
    for k in range(0, len(rows), per_insert):
        values = ",".join(f"({a},{mysql_literal(b)},{mysql_literal(c)})"
                          for a, b, c in rows[k:k + per_insert])
        inserts.append(f"INSERT INTO `langlinks` VALUES {values};\n")
    return HEADER + "".join(inserts) + FOOTER


ROWS = [
    (12, "de", "Anarchismus"),
    (12, "fr", "Anarchisme"),
    (12, "bg", "Анархизъм"),
    (25, "it", "L'autismo"),                      # \'
    (25, "en", 'Say "hi"'),                       # \"
    (39, "de", "Back\\slash"),                    # \\
    (39, "nl", "Two\nlines\tand\rtab"),           # \n \t \r
    (290, "zh-yue", "字母 A"),
    (290, "simple", "A_(letter)"),                # underscores read as spaces
    (303, "ja", "null\0byte and ctrl-Z \x1a"),    # \0 \Z
    (305, "fi", "Semi;colon, comma),(paren"),     # separators inside a string
]


def expected(rows):
    return [(a, b, c.replace("_", " ")) for a, b, c in rows]


def write(path, text: str, compress=None):
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if compress == "gz" else bz2.compress(data) if compress == "bz2"
                     else data)
    return path


@pytest.mark.parametrize("compress", [None, "gz", "bz2"])
@pytest.mark.parametrize("per_insert", [1, 3, 100])
def test_rows_with_escapes_and_multi_row_inserts(tmp_path, compress, per_insert):
    path = write(tmp_path / "enwiki-latest-langlinks.sql", dump_sql(ROWS, per_insert), compress)
    assert list(L.iter_langlinks(path)) == expected(ROWS)


@pytest.mark.parametrize("piece", [1, 2, 7, 64])
def test_statements_split_across_reads(tmp_path, monkeypatch, piece):
    """Reads of a few characters split keywords, strings, escapes and rows: same rows (bounded buffer)."""
    monkeypatch.setattr(L, "_READ", piece)
    path = write(tmp_path / "x.sql.gz", dump_sql(ROWS, 4), "gz")
    assert list(L.iter_langlinks(path)) == expected(ROWS)


def test_memory_stays_bounded_over_a_long_insert(tmp_path, monkeypatch):
    """One INSERT of 20,000 rows (~0.7 MB) read 1 KiB at a time: the buffer stays within a few KiB, and
    every row comes back."""
    monkeypatch.setattr(L, "_READ", 1024)
    rows = [(i, "de", f"Titel_{i} mit 'Zitat' und \\") for i in range(20_000)]
    path = write(tmp_path / "long.sql.gz", dump_sql(rows, per_insert=len(rows)), "gz")
    biggest, more = [0], L._Scanner.more

    def watched(self):
        biggest[0] = max(biggest[0], len(self.buf))
        return more(self)

    monkeypatch.setattr(L._Scanner, "more", watched)
    assert list(L.iter_langlinks(path)) == expected(rows)
    assert biggest[0] <= 4096 + 2 * 1024  # a statement keyword is looked for within 4 KiB, plus two pieces


def sqlite_translate(sql: str) -> str:
    """A character loop rewriting MySQL strings as SQLite literals (escapes resolved, quotes doubled)."""
    escapes = {"0": "\0", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a", "b": "\b"}
    out, i, in_string, current = [], 0, False, []
    while i < len(sql):
        c = sql[i]
        if in_string:
            if c == "\\":
                nxt = sql[i + 1]
                current.append(escapes.get(nxt, nxt))
                i += 2
                continue
            if c == "'":
                out.append("'" + "".join(current).replace("'", "''") + "'")
                in_string, current = False, []
            else:
                current.append(c)
        elif c == "'":
            in_string = True
        else:
            out.append(c)
        i += 1
    return "".join(out)


def sqlite_rows(sql: str) -> list[tuple]:
    """An independent parse: the dump's INSERT lines (mysqldump writes one a line, newlines escaped),
    translated (:func:`sqlite_translate`) and executed by sqlite3."""
    inserts = [sqlite_translate(line.replace("INSERT INTO `langlinks`", "INSERT INTO langlinks"))
               for line in sql.split("\n") if line.startswith("INSERT INTO")]
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE langlinks (ll_from INTEGER, ll_lang TEXT, ll_title TEXT)")
    db.executescript("\n".join(inserts))
    return [(a, b, c.replace("_", " ")) for a, b, c in db.execute("SELECT * FROM langlinks ORDER BY rowid")]


def test_equals_an_independent_sqlite_parse(tmp_path):
    rows = [r for r in ROWS if "\0" not in r[2]]  # sqlite's C strings end at NUL
    sql = dump_sql(rows, 2)
    path = write(tmp_path / "x.sql", sql)
    assert list(L.iter_langlinks(path)) == sqlite_rows(sql) == expected(rows)


TITLE = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2**32 - 1), st.sampled_from(["de", "bg", "zh-yue"]), TITLE),
                min_size=1, max_size=20), st.integers(1, 5), st.sampled_from([3, 50, 1 << 20]))
def test_any_titles_round_trip(tmp_path_factory, rows, per_insert, piece):
    """Property: every title (quotes, backslashes, newlines, any Unicode) written as mysqldump would
    comes back, through any read size."""
    L._READ, old = piece, L._READ
    try:
        path = write(tmp_path_factory.mktemp("p") / "x.sql.gz", dump_sql(rows, per_insert), "gz")
        assert list(L.iter_langlinks(path)) == expected(rows)
    finally:
        L._READ = old


def test_unescape():
    assert L.unescape(r"it\'s \\ \"q\" a\nb \% \_ \x ''") == "it's \\ \"q\" a\nb \\% \\_ x '"


def test_source_language_from_the_file_name():
    name = "dumps/enwiki-latest-langlinks.sql.gz"
    assert L.langlinks_language(name) == ("en", name)
    assert L.langlinks_language("zh_yuewiki-20240101-langlinks.sql.gz")[0] == "zh-yue"
    assert L.langlinks_language("bg=links.sql") == ("bg", "links.sql")


# -- a linked-Wikipedia build from the real gensim dumps ---------------------------------------------
def page_ids(path) -> dict[str, tuple[int, bool, int]]:
    """title -> (page id, is redirect, namespace), read with xml.etree (the page's first <id>)."""
    out = {}
    for _, elem in ET.iterparse(bz2.open(path)):
        if elem.tag.endswith("}page"):
            kids = {c.tag.split("}")[1]: c for c in elem}
            out[kids["title"].text] = (int(kids["id"].text), "redirect" in kids, int(kids["ns"].text))
            elem.clear()
    return out


@pytest.fixture(scope="module")
def wiki():
    """gensim's shortened en and bg dumps, the en page ids (xml.etree) and both dumps' article texts."""
    from tealeaves.ingest import iter_documents
    from test_ingest import BG, EN, gensim_dump

    en, bg = gensim_dump(EN), gensim_dump(BG)
    return en, bg, page_ids(en), dict(iter_documents(en)), dict(iter_documents(bg))


def test_langlinks_build_joins_page_ids_to_titles(tmp_path, wiki):
    from tealeaves.corpus.aligned import default_preprocessor
    from tealeaves.index import build_index
    from tealeaves.multilingual.aligned_build import build_aligned_reference

    en, bg, ids, text, bg_text = wiki
    redirect = next(t for t, (_, r, ns) in ids.items() if r and ns == 0)
    rows = [(ids["Anarchism"][0], "bg", "Григориански_календар"),  # underscores: the title with spaces
            (ids["Anarchism"][0], "de", "Anarchismus"),              # a language not built: ignored
            (ids["Autism"][0], "bg", "Аутизъм"),                     # no such bg article: en side only
            (ids[redirect][0], "bg", "Пренасочване"),                # a redirect page: counted
            (999_999_999, "bg", "Няма"), (999_999_999, "de", "X"),   # an unknown page id: counted
            (ids["Albedo"][0], "bg", "Григориански календар")]
    rows.sort()
    sql = write(tmp_path / "enwiki-latest-langlinks.sql.gz", dump_sql(rows, 2), "gz")
    ref, stats = build_aligned_reference([], tmp_path / "wiki", langlinks=str(sql),
                                         dumps=[f"en={en}", f"bg={bg}"], chunk_tokens=5_000)
    assert stats.skipped["langlinks row for a redirect page"] == 1
    assert stats.skipped["langlinks row for an unknown page id"] == 1  # the de row is not built
    # one tuple per linked source page, in page-id order, ids = the source titles
    linked = sorted([("Anarchism", True), ("Autism", False), ("Albedo", True)], key=lambda t: ids[t[0]][0])
    tuple_ids = (tmp_path / "wiki" / "tuple_ids.txt").read_text(encoding="utf-8").splitlines()
    assert tuple_ids == [t for t, _ in linked]
    for lang, slots, texts in (
            ("en", list(range(3)), [text[t] for t, _ in linked]),
            ("bg", [k for k, (_, has) in enumerate(linked) if has], [bg_text["Григориански календар"]] * 2)):
        corpus = default_preprocessor(lang, max_df=1.0).fit_transform(texts, [tuple_ids[s] for s in slots])
        reference = build_index(corpus, doc_ids=slots, n_space=3)
        got = ref.index.indices[lang]
        for name in ("vocab_blob", "post_docs", "positions", "present", "doc_lengths", "docid_blob"):
            assert np.array_equal(np.asarray(got.arrays[name]), reference.arrays[name]), (lang, name)


def test_cli_langlinks_build_reports_skipped_rows(tmp_path, run_cli, wiki):
    en, bg, ids, _, _ = wiki
    sql = write(tmp_path / "enwiki-latest-langlinks.sql", dump_sql(
        [(ids["Anarchism"][0], "bg", "Григориански календар"), (5, "bg", "Няма")]))
    r = run_cli(["index", "build-aligned", "--langlinks", sql, "--dump", f"en={en}", "--dump", f"bg={bg}",
                 "-o", tmp_path / "ref", "--format", "json"])
    assert r.code == 0, r.err
    out = json.loads(r.out)
    assert out["n_tuples"] == 1 and out["documents"] == {"en": 1, "bg": 1}
    assert out["ingest"]["skipped"]["langlinks row for an unknown page id"] == 1
    assert "1 langlinks row for an unknown page id" in r.err
