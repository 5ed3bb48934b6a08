"""Aligned (comparable) references: tuples of documents across languages, indexed per language.

Input: JSON Lines *tuple shards*, one tuple per line,
``{"id": "...", "en": "text", "bg": "text or null"}`` (a language missing or
``null`` = the tuple has no document in it); or Wikipedia articles linked
across languages: a JSON Lines file of linked titles, one tuple per line
(``{"en": "Anarchism", "bg": "Анархизъм"}``), plus every language's dump
(:func:`link_wikipedia` joins them on disk, through SQLite, into a tuple shard
whose ids are the links file's 1-based line numbers).

Output (:func:`build_aligned`): one index file per language, ``PREFIX.<lang>.tlx``,
all over one tuple-id space (slot ``t`` = the ``t``-th tuple over the shards
in order; ``present`` marks the tuples with a document in that language), so
``AlignedIndex({lang: ReferenceIndex.load(...)})`` serves ``cnpmi`` exactly as
an :class:`~tealeaves.multilingual.reference.AlignedReference` built in memory
from the same tuples with :func:`~tealeaves.corpus.aligned.default_preprocessor`
``(lang, max_df=1.0)`` (the reference recipe: no frequency pruning).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tealeaves.distributed.build import (
    DEFAULT_MEMORY,
    BuildSettings,
    ShardResult,
    _Chunk,
    _flush,
    _partial_path,
    chunk_tokens_for,
    index_header,
)
from tealeaves.errors import EmptyInputError, InputFormatError, ParameterError
from tealeaves.ingest.sources import IngestStats, _text_lines, iter_documents


def parse_languages(text: str | Sequence[str]) -> list[str]:
    """Language codes from ``"en,bg"`` (normalised; at least two, distinct)."""
    parts = text.split(",") if isinstance(text, str) else list(text)
    langs = [language_code(p.strip()) for p in parts if p.strip()]
    if len(langs) < 2 or len(set(langs)) != len(langs):
        raise ParameterError(f"--languages {text!r} must name at least two distinct languages",
                             fix="give e.g. --languages en,bg")
    return langs


def language_code(code: str) -> str:
    """A known code normalised (:func:`~tealeaves.corpus.aligned.normalize_language`), or any other
    Wikipedia-style code (``bg``, ``zh-yue``) lowercased."""
    import re

    from tealeaves.corpus.aligned import UnknownLanguageError, normalize_language

    try:
        return normalize_language(code)
    except UnknownLanguageError:
        if re.fullmatch(r"[a-z]{2,3}(-[a-z]{2,8})*", code.lower()):
            return code.lower()
        raise ParameterError(f"{code!r} is not a language code", fix="give e.g. en, bg or zh") from None


@dataclass
class AlignedSettings:
    """Per-language build settings over one chunking of the tuples (picklable for Dask)."""

    languages: list[str]
    settings: dict[str, BuildSettings]
    chunk_tokens: int
    prefix_ids: bool = False


@dataclass
class AlignedShardResult:
    """One tuple shard's per-language results."""

    results: dict[str, ShardResult]
    stats: IngestStats
    manifest: dict
    n_tokens: int = 0


def iter_tuples(path: str | Path, languages: Sequence[str], stats: IngestStats
                ) -> Iterator[tuple[str, dict[str, str | None]]]:
    """``(tuple id, {lang: text or None})`` for every line of a JSON Lines tuple shard."""
    from tealeaves.corpus.readers import _field, _json_record

    p = Path(path)
    n = 0
    for lineno, line in _text_lines(p):
        if not line.strip():
            continue
        record = _json_record(line, lineno, p)
        tuple_id = str(_field(record, "id", lineno, p))
        texts = {}
        for lang in languages:
            value = record.get(lang)
            if value is not None and not isinstance(value, str):
                raise InputFormatError(f"{p}, line {lineno}: language {lang!r} holds {type(value).__name__}, "
                                       "not a text or null", fix="give each language's text as a string")
            texts[lang] = value
        n += 1
        stats.documents += sum(v is not None for v in texts.values())
        yield tuple_id, texts
    if n == 0:
        raise EmptyInputError(f"tuple shard '{p}' holds no tuple", fix="check the input, or leave it out")


def index_tuple_shard(shard: str, shard_number: int, aligned: AlignedSettings, progress=None
                      ) -> AlignedShardResult:
    """Index one tuple shard into per-language partial indexes over chunks of consecutive tuples."""
    from tealeaves.coherence.index import manifest_entry
    from tealeaves.corpus import Preprocessor

    langs = aligned.languages
    tokenize = {lang: Preprocessor.from_params(aligned.settings[lang].recipe).tokenize for lang in langs}
    prefix = f"{Path(shard).name}:" if aligned.prefix_ids else ""
    stats = IngestStats()
    parts: dict[str, list] = {lang: [] for lang in langs}
    chunks = {lang: _Chunk(None) for lang in langs}
    n_slots, size, total = 0, 0, 0

    def flush() -> None:
        for lang in langs:
            path = _partial_path(aligned.settings[lang], shard_number, len(parts[lang]))
            parts[lang].append(_flush(chunks[lang], aligned.settings[lang], path, True, n_slots))
            chunks[lang] = _Chunk(None)

    for tuple_id, texts in iter_tuples(shard, langs, stats):
        for lang, text in texts.items():
            if text is not None:
                words = tokenize[lang](text)
                chunks[lang].add(prefix + tuple_id, words, n_slots)
                size += len(words)
        n_slots += 1
        if size >= aligned.chunk_tokens:
            total += size
            flush()
            n_slots, size = 0, 0
    if n_slots:
        total += size
        flush()
    entry = manifest_entry(shard)
    results = {lang: ShardResult(parts[lang], IngestStats(), entry) for lang in langs}
    return AlignedShardResult(results, stats, entry, total)


def link_wikipedia(links: str | Path, dumps: Mapping[str, str | Path], output: str | Path,
                   workdir: str | Path, stats: IngestStats | None = None) -> Path:
    """Join dumps on a links file into one tuple shard ``output`` (JSON Lines), through SQLite on disk.

    Only the linked articles are stored; a link none of whose articles is in
    its dump is skipped and counted as ``"link without article"``.
    """
    from tealeaves.corpus.readers import _json_record

    stats = stats if stats is not None else IngestStats()
    langs = list(dumps)
    db = sqlite3.connect(Path(workdir) / "links.sqlite")
    try:
        db.execute("CREATE TABLE links (n INTEGER, lang TEXT, title TEXT)")
        db.execute("CREATE TABLE pages (lang TEXT, title TEXT, body TEXT, PRIMARY KEY (lang, title))")
        n_links = 0
        rows = []
        for lineno, line in _text_lines(Path(links)):
            if not line.strip():
                continue
            record = _json_record(line, lineno, Path(links))
            titles = {lang: record[lang] for lang in langs if isinstance(record.get(lang), str)}
            if not titles:
                raise InputFormatError(f"{links}, line {lineno}: no title for any of {', '.join(langs)}",
                                       fix="give each line as {\"<lang>\": title, ...}")
            n_links += 1
            rows.extend((lineno, lang, title) for lang, title in titles.items())
        if n_links == 0:
            raise EmptyInputError(f"links file '{links}' holds no link",
                                  fix="give linked titles, one per line")
        db.executemany("INSERT INTO links VALUES (?, ?, ?)", rows)
        db.execute("CREATE INDEX by_title ON links (lang, title)")
        for lang, dump in dumps.items():
            for title, text in iter_documents(dump, kind="wiki", stats=stats):
                linked = db.execute("SELECT 1 FROM links WHERE lang=? AND title=? LIMIT 1", (lang, title))
                if linked.fetchone():
                    db.execute("INSERT OR REPLACE INTO pages VALUES (?, ?, ?)", (lang, title, text))
        _write_tuples(db, langs, Path(output), stats)
    finally:
        db.close()
    return Path(output)


def _write_tuples(db: sqlite3.Connection, langs: Sequence[str], output: Path, stats: IngestStats) -> None:
    query = ("SELECT links.n, links.lang, pages.body FROM links LEFT JOIN pages "
             "ON pages.lang = links.lang AND pages.title = links.title ORDER BY links.n")
    with open(output, "w", encoding="utf-8") as out:
        current, texts = None, {}

        def emit():
            if current is None:
                return
            if any(v is not None for v in texts.values()):
                out.write(json.dumps({"id": str(current), **{lang: texts.get(lang) for lang in langs}},
                                     ensure_ascii=False) + "\n")
            else:
                stats.skip("link without article")

        for n, lang, body in db.execute(query):
            if n != current:
                emit()
                current, texts = n, {}
            texts[lang] = body
        emit()


def _parse_dumps(dumps: Sequence[str], languages: Sequence[str]) -> dict[str, str]:
    out = {}
    for item in dumps:
        lang, sep, path = item.partition("=")
        if not sep or not path:
            raise ParameterError(f"--dump {item!r} is not LANG=PATH",
                                 fix="give e.g. --dump en=enwiki.xml.bz2")
        out[language_code(lang)] = path
    missing = [lang for lang in languages if lang not in out]
    if missing:
        raise ParameterError(f"no --dump for {', '.join(missing)}",
                             fix="give one --dump LANG=PATH per language")
    return {lang: out[lang] for lang in languages}


def build_aligned(inputs: Sequence[str | os.PathLike], prefix: str | os.PathLike, *, languages,
                  name: str | None = None, links: str | None = None, dumps: Sequence[str] = (),
                  memory: int = DEFAULT_MEMORY, chunk_tokens: int | None = None, executor=None,
                  progress=None):
    """Index tuple shards (or ``links`` + ``dumps``) into ``PREFIX.<lang>.tlx``.

    Returns ``({lang: index}, stats)``."""
    import tempfile

    from tealeaves.corpus.aligned import default_preprocessor
    from tealeaves.distributed.build import local_executor, plan, remove_workdir
    from tealeaves.distributed.merge import merge_partials

    langs = parse_languages(languages)
    if bool(inputs) == bool(links):
        raise ParameterError("give either tuple shards or --links with --dump (not both, not neither)",
                             fix="e.g. `index build-aligned tuples.jsonl --languages en,bg -o ref`")
    prefix = Path(prefix)
    prefix.resolve().parent.mkdir(parents=True, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix=".tealeaves-build-", dir=prefix.resolve().parent)
    stats = IngestStats()
    try:
        if links:
            inputs = [str(link_wikipedia(links, _parse_dumps(dumps, langs), Path(workdir) / "linked.jsonl",
                                         workdir, stats))]
        inputs = [str(p) for p in inputs]
        base = plan(inputs, None, memory, workdir)
        size = int(chunk_tokens) if chunk_tokens is not None else chunk_tokens_for(memory)
        settings = {}
        for lang in langs:  # one folder per language: partials are named by shard and chunk
            (Path(workdir) / lang).mkdir()
            settings[lang] = BuildSettings(default_preprocessor(lang, max_df=1.0).get_params(), size,
                                           str(Path(workdir) / lang))
        aligned = AlignedSettings(langs, settings, size, base.prefix_ids)
        results = (executor or local_executor(progress))(index_tuple_shard, inputs, aligned)
        for r in results:
            stats.add(r.stats)
        name = name or prefix.name
        out = {}
        for lang in langs:
            per = [r.results[lang] for r in results]
            header = index_header(settings[lang], inputs, per, f"{name}-{lang}")
            if links:
                header.pop("shards")  # the joined shard is temporary: nothing to verify later
            partials = [p for r in per for p in r.partials]
            if all(p.path is None for p in partials):
                raise EmptyInputError(f"no tuple has a {lang} document", fix=f"drop {lang} from --languages")
            out[lang] = merge_partials(partials, f"{prefix}.{lang}.tlx", header, sort_words=True,
                                       buffer_bytes=max(1 << 24, memory // 8))
        return out, stats
    finally:
        remove_workdir(workdir)
