"""Wikipedia articles linked across languages, joined into aligned tuple shards.

Two sources of links (``tealeaves index build-aligned --links/--langlinks ... --dump LANG=DUMP``):

* a JSON Lines file of linked titles, one tuple per line (``{"en": "Anarchism", "bg": "Анархизъм"}``);
  tuple ids are the file's 1-based line numbers;
* the ``langlinks`` table of the source language's dump, ``LANG-wiki-latest-langlinks.sql.gz``:
  a MySQL dump (``CREATE TABLE `langlinks` (`ll_from` int, `ll_lang` varbinary, `ll_title`
  varbinary, ...)`` and ``INSERT INTO `langlinks` VALUES (1,'de','Titel'),(...);``) read by
  :func:`iter_langlinks`, streamed (gzip/bz2/xz, bounded memory: a statement is parsed row by
  row, never read whole).  ``ll_from`` is a page id of the source language's dump (``<id>`` of a
  page, mwxml's ``page.id``), ``ll_lang`` the other wiki's code and ``ll_title`` the linked title
  (underscores read as spaces).  One tuple per source page, its id the source page's title.
  A row whose page id is a redirect or another skipped page of the source dump, or no page of it
  at all, is counted and reported (``langlinks row for a redirect``, ``... for an unknown page
  id``), not an error; rows for languages that are not built are ignored.

:func:`link_wikipedia` joins the links with every language's dump on disk through SQLite (only
linked articles are stored) and writes JSON Lines tuple shards
(``{"id": ..., "<lang>": text or null}``), which
:func:`tealeaves.index.aligned.build_aligned_index` indexes like any tuple
shard.  A link none of whose articles is in its dump is skipped and counted (``link without
article``).
"""

from __future__ import annotations

import functools
import io
import json
import re
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from tealeaves.corpus.aligned import LANGUAGE_CODE_PATTERN, UnknownLanguageError, language_code
from tealeaves.errors import EmptyInputError, InputEncodingError, InputFormatError, ParameterError, naming
from tealeaves.ingest.sources import (
    IngestStats,
    _reading,
    _text_lines,
    iter_documents,
    open_binary,
    wiki_pages,
)

#: The langlinks table's columns, in the order the rows give them.
LANGLINKS_COLUMNS = ("ll_from", "ll_lang", "ll_title")
_READ = 1 << 20  # characters read at a time
_MAX_STATEMENT = 1 << 24  # longest non-INSERT statement or comment accepted (characters)
_MAX_ROW = 1 << 16  # longest row accepted (a title is at most 255 bytes, escaped at most twice that)
_STRING = r"'((?:[^'\\]|\\.|'')*)'"
_ROW = re.compile(r"\(\s*(\d+)\s*,\s*" + _STRING + r"\s*,\s*" + _STRING + r"\s*\)\s*([,;])", re.S)
_INSERT = re.compile(r"INSERT\s+(?:IGNORE\s+)?INTO\s+`?([\w$]+)`?\s*(\([^)]*\)\s*)?VALUES\s*", re.I)
_CREATE = re.compile(r"CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?`?([\w$]+)`?\s*\(", re.I)
_STATEMENT = re.compile(r"""(?:[^;'"`]|'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.)*"|`[^`]*`)*;""", re.S)
_OTHER_KEYWORDS = ("DROP", "LOCK", "UNLOCK", "SET", "USE", "ALTER", "COMMIT", "START", "BEGIN")
#: MySQL string escapes (``\%`` and ``\_`` keep their backslash outside LIKE patterns).
_ESCAPES = {"0": "\0", "b": "\b", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a", "%": "\\%", "_": "\\_"}
_ESCAPE = re.compile(r"\\(.)|''", re.S)


def unescape(text: str) -> str:
    r"""A MySQL string literal's contents with its escapes (``\'``, ``\\``, ``\n``, ``''``...) resolved.

    Parameters
    ----------
    text : str
        The literal's contents, between its quotes.

    Returns
    -------
    str
        The string.
    """
    return _ESCAPE.sub(lambda m: "'" if m.group(1) is None else _ESCAPES.get(m.group(1), m.group(1)), text)


class _Scanner:
    """A decoded text stream read in pieces, with a cursor (``pos``) into the current piece."""

    def __init__(self, fh, path: Path):
        self.fh, self.path = fh, path
        self.buf, self.pos, self.eof, self.line_base = "", 0, False, 1

    def more(self) -> bool:
        """Read another piece; False at the end of the stream."""
        if self.eof:
            return False
        if self.pos > _READ:  # drop what was consumed
            self.line_base += self.buf.count("\n", 0, self.pos)
            self.buf, self.pos = self.buf[self.pos:], 0
        try:
            piece = self.fh.read(_READ)
        except UnicodeDecodeError as exc:
            raise InputEncodingError(f"langlinks dump '{self.path}' is not valid UTF-8 near line {self.line}",
                                     fix=f"give the dump as downloaded ({exc.reason})") from None
        self.eof = not piece
        self.buf += piece
        return bool(piece)

    @property
    def line(self) -> int:
        return self.line_base + self.buf.count("\n", 0, self.pos)

    def match(self, pattern: re.Pattern, limit: int):
        """``pattern`` matched at the cursor, reading more while it fails and fewer than ``limit``
        characters are buffered; None if it still fails."""
        while True:
            m = pattern.match(self.buf, self.pos)
            if m or self.eof or len(self.buf) - self.pos > limit:
                return m
            self.more()

    def skip_space(self) -> None:
        """Skip whitespace, empty statements (``;``) and ``--`` / ``/* */`` comments (``/*!...*/`` version
        comments included: their settings do not change the rows)."""
        space = re.compile(r"[\s;]*(?:(?:--[^\n]*\n|/\*.*?\*/)[\s;]*)*", re.S)
        while True:
            self.pos = space.match(self.buf, self.pos).end()
            if len(self.buf) - self.pos >= 2 or self.eof:
                if not self.buf.startswith(("--", "/*"), self.pos):
                    return
                if self.eof:
                    if self.buf.startswith("--", self.pos) and "\n" not in self.buf[self.pos:]:
                        self.pos = len(self.buf)  # a last comment line without a newline
                        return
                    raise InputFormatError(f"langlinks dump '{self.path}' ends inside a comment (line "
                                           f"{self.line})", fix="download the dump again")
            self.more()

    def fill(self, n: int) -> str:
        """The next ``n`` characters (fewer at the end of the stream), reading as needed."""
        while len(self.buf) - self.pos < n and self.more():
            pass
        return self.buf[self.pos:self.pos + n]


def iter_langlinks(path: str | Path) -> Iterator[tuple[int, str, str]]:
    """``(ll_from, ll_lang, ll_title)`` of every row of a ``langlinks`` SQL dump (module docstring).

    In file order, escapes resolved (:func:`unescape`), underscores in titles read as spaces.

    Parameters
    ----------
    path : str or Path
        The dump (possibly compressed).

    Yields
    ------
    tuple of (int, str, str)
        The page id, the target language and the target title.

    Raises
    ------
    InputFormatError
        If the file is not a MySQL dump of the ``langlinks`` table.
    EmptyInputError
        If it holds no row.
    """
    p = Path(path)
    n = 0
    with _reading(p), open_binary(p) as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8", errors="strict", newline="")
        scan = _Scanner(text, p)
        scan.more()
        while True:
            scan.skip_space()
            if scan.pos >= len(scan.buf):
                break
            if (m := scan.match(_INSERT, 4096)) is not None:
                _check_table(p, m.group(1), scan.line)
                if m.group(2) is not None:
                    columns = tuple(c.strip(" `\n\t") for c in m.group(2)[1:-1].split(","))
                    _check_columns(p, columns, scan.line)
                scan.pos = m.end()
                for row in _rows(scan):
                    n += 1
                    yield row
            elif (m := scan.match(_CREATE, 4096)) is not None:
                _check_table(p, m.group(1), scan.line)
                statement = _statement(scan)
                _check_columns(p, tuple(re.findall(r"^\s*`(\w+)`\s+\w", statement, re.M)), scan.line)
            else:
                head = scan.fill(40)
                word = re.match(r"\w*", head).group(0).upper()
                if word not in _OTHER_KEYWORDS:
                    start = head.split("\n")[0]
                    raise InputFormatError(f"langlinks dump '{p}' is not a MySQL dump: line {scan.line} "
                                           f"starts with {start!r}",
                                           fix="give LANG-wiki-latest-langlinks.sql.gz")
                _statement(scan)
    if n == 0:
        raise EmptyInputError(f"langlinks dump '{p}' holds no row of the langlinks table",
                              fix="give LANG-wiki-latest-langlinks.sql.gz as downloaded")


def _check_table(path: Path, table: str, line: int) -> None:
    if table.lower() != "langlinks":
        raise InputFormatError(f"'{path}' is a dump of table `{table}` (line {line}), not `langlinks`",
                               fix="give the LANG-wiki-latest-langlinks.sql.gz dump")


def _check_columns(path: Path, columns: Sequence[str], line: int) -> None:
    if tuple(c.lower() for c in columns[:3]) != LANGLINKS_COLUMNS:
        raise InputFormatError(f"langlinks dump '{path}' (line {line}) has columns {list(columns)}; expected "
                               f"{', '.join(LANGLINKS_COLUMNS)} first", fix="give a MediaWiki langlinks dump")


def _statement(scan: _Scanner) -> str:
    """The statement at the cursor up to its ``;`` (outside quotes), consumed."""
    m = scan.match(_STATEMENT, _MAX_STATEMENT)
    if m is None:
        raise InputFormatError(f"langlinks dump '{scan.path}' has an unterminated statement at line "
                               f"{scan.line}", fix="download the dump again (it may be truncated)")
    scan.pos = m.end()
    return m.group(0)


def _rows(scan: _Scanner) -> Iterator[tuple[int, str, str]]:
    """The rows of one INSERT statement (the cursor after ``VALUES``), up to its ``;``."""
    while True:
        m = scan.match(_ROW, _MAX_ROW)
        if m is None:
            if scan.eof and not scan.buf[scan.pos:].rstrip().endswith(";"):  # cut off, not malformed
                raise InputFormatError(f"langlinks dump '{scan.path}' ends inside an INSERT statement (line "
                                       f"{scan.line})", fix="download the dump again (it is truncated)")
            bad = scan.buf[scan.pos:scan.pos + 60].split("\n")[0]
            raise InputFormatError(f"langlinks dump '{scan.path}', line {scan.line}: {bad!r} is not a row "
                                   "(ll_from, 'll_lang', 'll_title')", fix="give a MediaWiki langlinks dump")
        scan.pos = m.end()
        yield int(m.group(1)), unescape(m.group(2)), unescape(m.group(3)).replace("_", " ")
        if m.group(4) == ";":
            return


# -- joining links and dumps ------------------------------------------------------------------------
def parse_dumps(dumps: Sequence[str], languages: Sequence[str] | None) -> dict[str, str]:
    """``--dump LANG=PATH`` options as ``{lang: path}``, one per language of ``languages``.

    Parameters
    ----------
    dumps : sequence of str
        The ``LANG=PATH`` items.
    languages : sequence of str or None
        The languages wanted (None: the dumps given, at least two).

    Returns
    -------
    dict of str to str
        Language code to dump path.

    Raises
    ------
    ParameterError
        If an item is not ``LANG=PATH``, a language is given twice or lacks a dump,
        or fewer than two dumps are given.
    """
    out = {}
    for item in dumps:
        lang, sep, path = item.partition("=")
        if not sep or not path:
            raise naming(ParameterError(f"dumps {item!r} is not LANG=PATH",
                                        fix="give e.g. `dumps=['en=enwiki.xml.bz2']`"), "dumps")
        code = language_code(lang)
        if code in out:
            raise naming(ParameterError(f"dumps {code}= is given twice",
                                        fix="give one LANG=PATH per language in `dumps`"), "dumps")
        out[code] = path
    if languages is None:
        if len(out) < 2:
            raise naming(ParameterError(f"a linked-Wikipedia build needs two or more `dumps` LANG=PATH, "
                                        f"got {len(out)}", fix="give one dump per language in `dumps`"),
                         "dumps")
        return out
    missing = [lang for lang in languages if lang not in out]
    if missing:
        raise naming(ParameterError(f"no `dumps` for {', '.join(missing)}",
                                    fix="give one LANG=PATH per language in `dumps`"), "dumps")
    return {lang: out[lang] for lang in languages}


def langlinks_language(spec: str) -> tuple[str, str]:
    """``--langlinks [LANG=]PATH``: the source language and the path.

    The language is given, or read from a file name ``LANGwiki-...``.

    Parameters
    ----------
    spec : str
        ``LANG=PATH`` or a path.

    Returns
    -------
    tuple of (str, str)
        ``(language code, path)``.

    Raises
    ------
    ParameterError
        If the language cannot be told from the file name.
    """
    lang, sep, path = spec.partition("=")
    if sep and path and LANGUAGE_CODE_PATTERN.fullmatch(lang.replace("_", "-")):
        return language_code(lang.replace("_", "-")), path
    m = re.match(r"([a-z]{2,3}(?:_[a-z]{2,8})*)wiki-", Path(spec).name)
    if m is None:
        raise naming(ParameterError(f"langlinks {spec!r}: cannot tell the source language from the file name",
                                    fix="give it as `langlinks='en=enwiki-latest-langlinks.sql.gz'`"),
                     "langlinks")
    return language_code(m.group(1).replace("_", "-")), spec


def link_wikipedia(links: str | Path, dumps: Mapping[str, str | Path], output: str | Path,
                   workdir: str | Path, stats: IngestStats | None = None, *, sql: bool = False,
                   tuples_per_shard: int = 100_000) -> list[Path]:
    """Join ``dumps`` on ``links`` into JSON Lines tuple shards ``OUTPUT-00000.jsonl``, ...

    See the module docstring.

    Parameters
    ----------
    links : str or Path
        A JSON Lines file of linked titles, or with ``sql`` a ``[LANG=]`` langlinks dump.
    dumps : mapping of str to (str or Path)
        Language code to its MediaWiki dump.
    output : str or Path
        The shards' path prefix.
    workdir : str or Path
        A folder for the temporary SQLite database.
    stats : IngestStats or None, default None
        Counts of pages read and skipped.
    sql : bool, default False
        ``links`` is a langlinks SQL dump.
    tuples_per_shard : int, default 100000
        The most tuples per shard.

    Returns
    -------
    list of Path
        The shards written.
    """
    stats = stats if stats is not None else IngestStats()
    langs = list(dumps)
    db = sqlite3.connect(Path(workdir) / "links.sqlite")
    try:
        db.execute("CREATE TABLE links (n INTEGER, lang TEXT, title TEXT)")
        db.execute("CREATE TABLE ids (n INTEGER PRIMARY KEY, tid TEXT)")
        db.execute("CREATE TABLE pages (lang TEXT, title TEXT, body TEXT, PRIMARY KEY (lang, title))")
        if sql:
            source = _load_langlinks(db, str(links), dumps, stats)
        else:
            _load_links(db, Path(links), langs)
            source = None
        db.execute("CREATE INDEX by_title ON links (lang, title)")
        for lang, dump in dumps.items():
            if lang == source:
                continue
            for title, text in iter_documents(dump, kind="wiki", stats=stats):
                linked = db.execute("SELECT 1 FROM links WHERE lang=? AND title=? LIMIT 1", (lang, title))
                if linked.fetchone():
                    db.execute("INSERT OR REPLACE INTO pages VALUES (?, ?, ?)", (lang, title, text))
        return _write_tuples(db, langs, Path(output), stats, tuples_per_shard)
    finally:
        db.close()


def _load_links(db: sqlite3.Connection, links: Path, langs: Sequence[str]) -> None:
    """The JSON Lines links file into the ``links`` table (tuple ids: line numbers)."""
    from tealeaves.corpus.readers import _json_record

    n_links, rows = 0, []
    for lineno, line in _text_lines(links):
        if not line.strip():
            continue
        record = _json_record(line, lineno, links)
        titles = {lang: record[lang] for lang in langs if isinstance(record.get(lang), str)}
        if not titles:
            raise InputFormatError(f"{links}, line {lineno}: no title for any of {', '.join(langs)}",
                                   fix="give each line as {\"<lang>\": title, ...}")
        n_links += 1
        rows.extend((lineno, lang, title) for lang, title in titles.items())
        db.execute("INSERT INTO ids VALUES (?, ?)", (lineno, str(lineno)))
    if n_links == 0:
        raise EmptyInputError(f"links file '{links}' holds no link", fix="give linked titles, one per line")
    db.executemany("INSERT INTO links VALUES (?, ?, ?)", rows)


def _load_langlinks(db: sqlite3.Connection, spec: str, dumps: Mapping[str, str | Path], stats: IngestStats
                    ) -> str:
    """The langlinks rows of the built languages, and the source dump's linked articles; returns the
    source language.  Rows of pages the source dump skipped or lacks are counted."""
    source, path = langlinks_language(spec)
    if source not in dumps:
        raise naming(ParameterError(f"langlinks '{path}' links pages of the {source} dump, but no `dumps` "
                                    f"{source}= is given",
                                    fix=f"add `dumps=['{source}=PATH']` (the {source} pages-articles dump)"),
                     "langlinks", "dumps")
    others = {lang for lang in dumps if lang != source}
    db.execute("CREATE TABLE ll (page INTEGER, lang TEXT, title TEXT)")
    batch = []
    for page, lang, title in iter_langlinks(path):
        code = lang.lower()
        if code in others or (code := _known(code)) in others:
            batch.append((page, code, title))
            if len(batch) >= 10_000:
                db.executemany("INSERT INTO ll VALUES (?, ?, ?)", batch)
                batch = []
    db.executemany("INSERT INTO ll VALUES (?, ?, ?)", batch)
    db.execute("CREATE INDEX ll_page ON ll (page)")
    db.execute("CREATE TABLE src (page INTEGER PRIMARY KEY, title TEXT, skipped TEXT)")

    def linked(page: int) -> bool:
        return db.execute("SELECT 1 FROM ll WHERE page=? LIMIT 1", (page,)).fetchone() is not None

    def skipped(page: int, reason: str) -> None:
        if linked(page):
            db.execute("INSERT OR REPLACE INTO src VALUES (?, NULL, ?)", (page, reason))

    for page, title, text in wiki_pages(dumps[source], stats, skipped):
        if linked(page):
            db.execute("INSERT OR REPLACE INTO src VALUES (?, ?, NULL)", (page, title))
            db.execute("INSERT OR REPLACE INTO pages VALUES (?, ?, ?)", (source, title, text))
    query = ("SELECT ll.page, src.title, src.skipped, COUNT(*) FROM ll LEFT JOIN src ON src.page = ll.page "
             "GROUP BY ll.page ORDER BY ll.page")
    for page, title, reason, n_rows in db.execute(query).fetchall():
        if title is None:
            why = "langlinks row for an unknown page id"
            if reason:
                why = f"langlinks row for {'an' if reason[0] in 'aeiou' else 'a'} {reason} page"
            stats.skipped[why] = stats.skipped.get(why, 0) + n_rows
            continue
        db.execute("INSERT INTO ids VALUES (?, ?)", (page, title))
        db.execute("INSERT INTO links VALUES (?, ?, ?)", (page, source, title))
        db.execute("INSERT INTO links SELECT page, lang, title FROM ll WHERE page=?", (page,))
    return source


@functools.lru_cache(maxsize=1024)  # Wikipedia has ~350 language codes; bounded for odd files
def _known(code: str) -> str:
    """A Wikipedia code normalised like the dump languages (unknown codes as they are); cached, as it
    runs for nearly every langlinks row and an unknown code costs a raised and caught error."""
    try:
        return language_code(code)
    except UnknownLanguageError:
        return code


def _write_tuples(db: sqlite3.Connection, langs: Sequence[str], output: Path, stats: IngestStats,
                  per_shard: int) -> list[Path]:
    query = ("SELECT links.n, ids.tid, links.lang, pages.body FROM links JOIN ids ON ids.n = links.n "
             "LEFT JOIN pages ON pages.lang = links.lang AND pages.title = links.title ORDER BY links.n")
    shards: list[Path] = []
    state = {"out": None, "count": 0}

    def emit(tid, texts) -> None:
        if not any(v is not None for v in texts.values()):
            stats.skip("link without article")
            return
        if state["out"] is None or state["count"] >= per_shard:
            if state["out"] is not None:
                state["out"].close()
            shards.append(Path(f"{output}-{len(shards):05d}.jsonl"))
            state["out"], state["count"] = open(shards[-1], "w", encoding="utf-8"), 0
        state["out"].write(json.dumps({"id": tid, **{lang: texts.get(lang) for lang in langs}},
                                      ensure_ascii=False) + "\n")
        state["count"] += 1

    try:
        current, tid, texts = None, None, {}
        for n, t, lang, body in db.execute(query):
            if n != current:
                if current is not None:
                    emit(tid, texts)
                current, tid, texts = n, t, {}
            if texts.get(lang) is None:
                texts[lang] = body
        if current is not None:
            emit(tid, texts)
    finally:
        if state["out"] is not None:
            state["out"].close()
    if not shards:
        raise EmptyInputError("no link has an article in the dumps", fix="check that the links and the dumps "
                              "belong together (same languages, same dump date)")
    return shards
