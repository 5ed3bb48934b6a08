"""Bad inputs of ``tealeaves index build-aligned``: options, output paths, tuple ids, and the ``langlinks``
SQL table (truncated, not SQL, another table, other columns, bad rows, bad encoding).

CLI cases assert exit 1, the one ``tealeaves: error:`` line with a fragment and no traceback, and that
no output folder or work folder is left behind; API cases assert the error class and a fragment.
"""

from __future__ import annotations

import gzip
import json

import pytest

from conftest import DEEP
from conftest import write_text as _write
from tealeaves.errors import EmptyInputError, InputEncodingError, InputFormatError

ROWS = [{"id": 1, "en": "the king went to the city", "sv": "kungen gick till staden"},
        {"id": 2, "en": "the city was large", "sv": "staden var stor"}]
GOOD_SQL = ("CREATE TABLE `langlinks` (\n  `ll_from` int(8) unsigned NOT NULL DEFAULT 0,\n"
            "  `ll_lang` varbinary(35) NOT NULL DEFAULT '',\n"
            "  `ll_title` varbinary(255) NOT NULL DEFAULT ''\n"
            ") ENGINE=InnoDB DEFAULT CHARSET=binary;\n"
            "INSERT INTO `langlinks` VALUES (12,'sv','Anarkism'),(25,'sv','Autism'),(39,'sv','Albedo');\n")


def _tuples(tmp_path, rows=ROWS, name="t.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _assert_clean(tmp_path, out):
    assert not out.exists() or out.is_file() or any(out.iterdir())  # an existing output is left as it was
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tealeaves-build-")]


OPTION_CASES = {
    "no input": ([], "no aligned input given"),
    "--dump without links": (["SELF", "--dump", "en=x.xml"], "--dump belongs to a linked-Wikipedia build"),
    "tuples and --links": (["SELF", "--links", "l.jsonl"], "either tuple shards, parallel line files, or"),
    "--links and --langlinks": (["--links", "l.jsonl", "--langlinks", "enwiki-latest-langlinks.sql.gz",
                                 "--dump", "en=a", "--dump", "sv=b"], "--links and --langlinks exclude"),
    "one --dump": (["--links", "l.jsonl", "--dump", "en=a"], "needs two or more --dump"),
    "--languages one": (["SELF", "--languages", "en"], "at least two distinct languages"),
    "--languages empty entry": (["SELF", "--languages", "en,"], "has an empty entry"),
    "--memory too small": (["SELF", "--memory", "10M"], "below the smallest budget"),
    "--workers and --scheduler": (["SELF", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"],
                                  "--n-jobs and --scheduler exclude each other"),
}


@pytest.mark.parametrize("case", OPTION_CASES, ids=list(OPTION_CASES))
def test_bad_options(case, tmp_path, cli_error):
    argv, fragment = OPTION_CASES[case]
    src = _tuples(tmp_path)
    argv = [str(src) if a == "SELF" else a for a in argv]
    cli_error(["index", "build-aligned", *argv, "-o", tmp_path / "ref"], fragment, progress=True)
    assert not (tmp_path / "ref").exists()
    _assert_clean(tmp_path, tmp_path / "ref")


def test_output_that_is_a_file_or_a_foreign_folder(tmp_path, cli_error):
    src = _tuples(tmp_path)
    (tmp_path / "file").write_text("x")
    cli_error(["index", "build-aligned", src, "-o", tmp_path / "file"], "exists and is not a folder")
    assert (tmp_path / "file").read_text() == "x"
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    cli_error(["index", "build-aligned", src, "-o", tmp_path / "mine"], "is a folder holding other files")
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["notes.txt"]


def test_failed_build_keeps_the_old_reference(tmp_path, cli_error, run_cli):
    """A build failing midway (a bad line after good ones) leaves an existing reference untouched."""
    src = _tuples(tmp_path)
    assert run_cli(["index", "build-aligned", src, "-o", tmp_path / "ref"]).code == 0
    before = {p.name: p.read_bytes() for p in (tmp_path / "ref").iterdir()}
    bad = _tuples(tmp_path, [*ROWS, {"id": 3, "en": 7}], name="bad.jsonl")
    cli_error(["index", "build-aligned", bad, "-o", tmp_path / "ref"], "expected the text as a string",
              progress=True)
    assert {p.name: p.read_bytes() for p in (tmp_path / "ref").iterdir()} == before
    _assert_clean(tmp_path, tmp_path / "ref")


@pytest.mark.parametrize("bad_id", ["a\nb", "a\rb"])
def test_tuple_id_with_a_line_break(tmp_path, cli_error, bad_id):
    src = _tuples(tmp_path, [{**ROWS[0], "id": bad_id}, ROWS[1]])
    cli_error(["index", "build-aligned", src, "-o", tmp_path / "ref"], "holds a line break", progress=True)


@pytest.mark.parametrize("collide", [False, True])
def test_duplicate_ids_found_with_and_without_hash_collisions(tmp_path, monkeypatch, collide):
    """Ids are checked by 8-byte hashes, then compared exactly: with every hash colliding, distinct ids
    still pass and the repeat is named with its two lines."""
    from tealeaves.ingest import aligned as A

    if collide:
        monkeypatch.setattr(A, "_id_hash", lambda tid: 7)
    rows = [{**ROWS[0], "id": i} for i in ("a", "b", "c", "b", "d")]
    distinct = _tuples(tmp_path, [r for r in rows if r["id"] != "b"])
    assert [t for t, _ in A.iter_jsonl_tuples(distinct)] == ["a", "c", "d"]
    with pytest.raises(InputFormatError, match="line 4: id 'b' already used on line 2"):
        list(A.iter_jsonl_tuples(_tuples(tmp_path, rows, name="dup.jsonl")))


def test_duplicate_id_across_shards_is_prefixed_not_refused(tmp_path, run_cli):
    """Documented: ids of several shards are prefixed with the shard's file name, so the same id in two
    shards names two tuples."""
    a, b = _tuples(tmp_path, name="a.jsonl"), _tuples(tmp_path, name="b.jsonl")
    assert run_cli(["index", "build-aligned", a, b, "-o", tmp_path / "ref"]).code == 0
    ids = (tmp_path / "ref" / "tuple_ids.txt").read_text().split()
    assert ids == ["a.jsonl:1", "a.jsonl:2", "b.jsonl:1", "b.jsonl:2"]


# -- the langlinks SQL table ------------------------------------------------------------------------------
def _gz(data: bytes) -> bytes:
    return gzip.compress(data)


SQL_CASES = {
    "truncated gzip": (lambda: _gz(GOOD_SQL.encode())[:-30], InputFormatError, "truncated or corrupted"),
    "truncated inside an INSERT": (lambda: GOOD_SQL.encode()[:-25], InputFormatError,
                                   "ends inside an INSERT statement"),
    "not SQL": (lambda: b'{"en": "Anarchism", "sv": "Anarkism"}\n', InputFormatError, "is not a MySQL dump"),
    "another table": (lambda: GOOD_SQL.replace("langlinks", "pagelinks").encode(), InputFormatError,
                      "is a dump of table `pagelinks` (line 1), not `langlinks`"),
    "INSERT into another table": (lambda: b"INSERT INTO `page` VALUES (1,0,'A');\n", InputFormatError,
                                  "is a dump of table `page`"),
    "other column order": (lambda: GOOD_SQL.replace("`ll_from`", "`ll_x`").encode(), InputFormatError,
                           "has columns ['ll_x', 'll_lang', 'll_title']"),
    "INSERT naming other columns": (lambda: b"INSERT INTO `langlinks` (ll_lang, ll_from, ll_title) VALUES "
                                    b"('sv',1,'A');\n", InputFormatError, "has columns"),
    "row with two values": (lambda: b"INSERT INTO `langlinks` VALUES (12,'sv'),(13,'sv','B');\n",
                            InputFormatError, "is not a row (ll_from, 'll_lang', 'll_title')"),
    "NULL title": (lambda: b"INSERT INTO `langlinks` VALUES (12,'sv',NULL);\n", InputFormatError,
                   "is not a row"),
    "unterminated string": (lambda: b"INSERT INTO `langlinks` VALUES (12,'sv','Anar", InputFormatError,
                            "ends inside an INSERT statement"),
    "only comments": (lambda: b"-- MySQL dump\n/*!40101 SET NAMES utf8 */;\n", EmptyInputError,
                      "holds no row of the langlinks table"),
    "empty gzip": (lambda: _gz(b""), EmptyInputError, "holds no row"),
    "unterminated comment": (lambda: GOOD_SQL.encode() + b"/* the end", InputFormatError,
                             "ends inside a comment"),
    "invalid UTF-8": (lambda: b"INSERT INTO `langlinks` VALUES (12,'sv','caf\xe9');\n", InputEncodingError,
                      "is not valid UTF-8"),
}


@pytest.mark.parametrize("case", SQL_CASES, ids=list(SQL_CASES))
def test_bad_langlinks_dumps_api(case, tmp_path):
    from tealeaves.ingest.langlinks import iter_langlinks

    make, error, fragment = SQL_CASES[case]
    path = tmp_path / "enwiki-latest-langlinks.sql"
    path.write_bytes(make())
    with pytest.raises(error) as info:
        list(iter_langlinks(path))
    assert fragment in str(info.value)
    assert type(info.value) is error


@pytest.mark.parametrize("case", ["truncated gzip", "not SQL", "another table", "row with two values"])
def test_bad_langlinks_dumps_cli(case, tmp_path, cli_error):
    make, _, fragment = SQL_CASES[case]
    path = tmp_path / "enwiki-latest-langlinks.sql.gz"
    path.write_bytes(make())
    dump = tmp_path / "d.xml"
    dump.write_text("<mediawiki/>")
    cli_error(["index", "build-aligned", "--langlinks", path, "--dump", f"en={dump}", "--dump", f"sv={dump}",
               "-o", tmp_path / "ref"], fragment, progress=True)
    assert not (tmp_path / "ref").exists()
    _assert_clean(tmp_path, tmp_path / "ref")


@pytest.mark.parametrize("spec,fragment", [
    ("svwiki-latest-langlinks.sql.gz", "links pages of the sv dump, but no --dump sv= is given"),
    ("links.sql.gz", "cannot tell the source language from the file name"),
])
def test_langlinks_source_language(tmp_path, cli_error, spec, fragment):
    path = tmp_path / spec
    path.write_bytes(_gz(GOOD_SQL.encode()))
    cli_error(["index", "build-aligned", "--langlinks", path, "--dump", "en=a.xml", "--dump", "bg=b.xml",
               "-o", tmp_path / "ref"], fragment, progress=True)


# -- --lang / --dump given twice, a missing dump -------------------------------------------------------------
@pytest.mark.parametrize("command, option", [("index build-aligned", "--lang"), ("pltm fit", "--lang"),
                                             ("index build-aligned", "--dump")])
def test_option_given_twice_for_one_language(tmp_path, cli_error, option, command):
    en, sv = _write(tmp_path / "en.txt", "cat\ndog\n"), _write(tmp_path / "sv.txt", "katt\nhund\n")
    ids = _write(tmp_path / "ids.txt", "a\nb\n")
    if option == "--lang":  # before: the second en= silently replaced the first ("holds text in 1 language")
        argv = ["--lang", f"en={en}", "--lang", f"en={sv}", "--doc-ids", ids]
    else:  # before: the second en= silently replaced the first
        argv = ["--links", en, "--dump", f"en={en}", "--dump", f"en={sv}", "--dump", f"sv={sv}"]
    cli_error([*command.split(), *argv, "-o", tmp_path / "out"], f"{option} en= is given twice")


def test_missing_dump_is_not_called_corrupted(tmp_path, cli_error):
    # before: "input 'nope.xml' is truncated or corrupted (FileNotFoundError: ...)"
    sql = _write(tmp_path / "enwiki-latest-langlinks.sql",
                 "INSERT INTO `langlinks` VALUES (12,'sv','Anarkism');\n")
    dump = _write(tmp_path / "d.xml", "<mediawiki/>")
    result = cli_error(["index", "build-aligned", "--langlinks", sql, "--dump", f"en={tmp_path / 'nope.xml'}",
                        "--dump", f"sv={dump}", "-o", tmp_path / "out"], "nope.xml' does not exist")
    assert "corrupted" not in result.err


# -- --lang / --doc-ids files --------------------------------------------------------------------------------
def test_missing_doc_id_file(tmp_path, cli_error):
    # before: "No such file or directory: ... (check the path, its permissions and the free disk space)"
    en, sv = _write(tmp_path / "en.txt", "cat\n"), _write(tmp_path / "sv.txt", "katt\n")
    cli_error(["index", "build-aligned", "--lang", f"en={en}", "--lang", f"sv={sv}", "--doc-ids",
               tmp_path / "nope.txt", "-o", tmp_path / "out"], "document-id file")
    cli_error(["index", "build-aligned", "--lang", f"en={en}", "--lang", f"sv={sv}", "--doc-ids",
               tmp_path, "-o", tmp_path / "out"], "is a folder, not a file")


@pytest.mark.parametrize("ids", ["a\n\n", "a\n \n", "\na\n"])
def test_blank_doc_id_line_says_it_was_skipped(tmp_path, cli_error, ids):
    en, sv = _write(tmp_path / "en.txt", "cat\ndog\n"), _write(tmp_path / "sv.txt", "katt\nhund\n")
    cli_error(["index", "build-aligned", "--lang", f"en={en}", "--lang", f"sv={sv}", "--doc-ids",
               _write(tmp_path / "ids.txt", ids), "-o", tmp_path / "out"],
              "blank lines of the document-id file are skipped")


# -- tuple JSON: a key twice in one object, NaN, deeply nested -----------------------------------------------
@pytest.mark.parametrize("line, key", [
    ('{"id": "a", "en": "cat dog", "sv": "katt", "id": "b"}', "id"),
    ('{"id": "a", "en": "cat dog", "sv": "katt", "en": "mat"}', "en"),
])
def test_repeated_key_in_a_tuple(tmp_path, cli_error, line, key):
    # before: json kept the last value silently (tuple 'b', or en text 'mat')
    src = _write(tmp_path / "t.jsonl", line + "\n")
    cli_error(["index", "build-aligned", src, "-o", tmp_path / "out"],
              f"key '{key}' occurs twice in one object")


@pytest.mark.parametrize("line, fragment", [
    ('{"id": "a", "en": "cat dog", "sv": NaN}', "'sv' is NaN"),
    ('{"id": NaN, "en": "cat dog", "sv": "katt"}', '"id" is NaN'),
])
def test_nan_in_a_tuple_is_named(tmp_path, cli_error, line, fragment):
    src = _write(tmp_path / "t.jsonl", line + "\n")
    cli_error(["index", "build-aligned", src, "-o", tmp_path / "out"], fragment)


@pytest.mark.parametrize("command", ["index build-aligned", "pltm fit"])
def test_deeply_nested_tuple(tmp_path, cli_error, command):
    # before: exit 70 (RecursionError)
    src = _write(tmp_path / "t.jsonl", '{"id": "a", "en": "cat", "sv": ' + DEEP + "}\n")
    cli_error([*command.split(), src, "-o", tmp_path / "out"], "JSON nested too deeply")
