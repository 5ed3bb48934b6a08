"""Aligned (multilingual) indexes: :class:`AlignedIndex`, its saved folder, and the one aligned builder.

An :class:`AlignedIndex` is one :class:`~tealeaves.index.ReferenceIndex` per language over a
shared tuple-id space.  Counting over it is the coherence core's
(:func:`tealeaves.coherence.core.count_crosslingual`); the multilingual measures read it through
:class:`~tealeaves.multilingual.reference.AlignedReference`.

Saved aligned reference (a folder)
----------------------------------
``REF/aligned.json`` (``{"format": "tealeaves-aligned-reference", "format_version": 1, "name",
"n_tuples", "languages": {code: file}, "tuple_ids_file"}``, written by :func:`write_manifest`), one
:class:`~tealeaves.index.ReferenceIndex` file per language (``<code>.tlx``; folders of
earlier versions name them ``<code>.idx``: the manifest lists the names), all in the
shared tuple-id space (slot ``t`` of every index is tuple ``t``), and ``tuple_ids.txt``.
:func:`load_aligned_index` checks the manifest and every index (checksums, structure, one
id space) and raises :class:`~tealeaves.errors.InputFormatError` for a path that is not such a
folder; :func:`tealeaves.multilingual.reference.load_aligned_reference` wraps what it reads into
an :class:`~tealeaves.multilingual.reference.AlignedReference`.

Building
--------
``tealeaves index build-aligned`` (and the Python :func:`build_aligned_index`; the multilingual
:func:`tealeaves.multilingual.build_aligned_reference` returns its result as an
:class:`~tealeaves.multilingual.reference.AlignedReference`) reads aligned tuples from any of

* JSON Lines tuple shards (:func:`~tealeaves.ingest.aligned.iter_jsonl_tuples`, the
  one tuple parser);
* parallel line files with a document-id file
  (:func:`~tealeaves.ingest.aligned.iter_parallel_files`);
* Wikipedia articles linked across languages: a JSON Lines file of linked titles or a dump's
  ``langlinks`` SQL table, plus every language's dump (:mod:`tealeaves.ingest.langlinks` joins
  them on disk into tuple shards),

and indexes them with the streaming build's machinery (:mod:`tealeaves.index.streaming`): every
shard is a task (in this process, or on Dask with ``executor``), collecting consecutive tuples
into chunks of at most ``chunk_tokens`` tokens; each chunk becomes one partial index per
language over the chunk's tuple slots, and the partials of every language are merged
(:func:`~tealeaves.index.merge.merge_partials`) into that language's index over the
shared tuple-id space.  Tokenisation is
:func:`~tealeaves.corpus.aligned.default_preprocessor` ``(lang, max_df=1.0)``, the built-in
references' recipe, so the result equals :func:`~tealeaves.multilingual.reference.reference_from_texts`
over the same tuples (tested).

The output is the aligned reference folder above (manifest, ``<lang>.tlx`` per language,
``tuple_ids.txt``), written in a work folder beside it and moved into place only when complete: a
failed build leaves no folder.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tealeaves import _io
from tealeaves._docs import shared_doc
from tealeaves._params import renamed_parameters
from tealeaves.corpus import Corpus
from tealeaves.corpus.aligned import language_code
from tealeaves.errors import (
    EmptyInputError,
    InputFormatError,
    InputNotFoundError,
    OutputError,
    ParameterError,
    TealeavesError,
    naming,
)
from tealeaves.index.build import build_index
from tealeaves.index.chunk import BuildSettings, Chunk, flush_chunk
from tealeaves.index.manifest import manifest_entry
from tealeaves.index.memory import DEFAULT_MEMORY, check_memory, chunk_tokens_for
from tealeaves.index.merge import Partial, merge_partials
from tealeaves.index.reference import ReferenceIndex
from tealeaves.index.streaming import check_file_names, index_header, local_executor, partial_path
from tealeaves.index.workdir import Workdir
from tealeaves.ingest.aligned import (
    TupleSummary,
    check_input_kind,
    iter_jsonl_tuples,
    iter_parallel_files,
    split_language_list,
)
from tealeaves.ingest.sources import IngestStats

#: The saved aligned reference folder (module docstring): its manifest's format name, version and
#: file name.
ALIGNED_FORMAT = "tealeaves-aligned-reference"
ALIGNED_FORMAT_VERSION = 1
ALIGNED_MANIFEST = "aligned.json"


class AlignedIndex:
    """One :class:`ReferenceIndex` per language over a shared tuple-id space.

    ``present[lang]`` marks the tuples that have a document in ``lang``.
    Crosslingual co-occurrence of word ``a`` (language ``l1``) and word ``b``
    (language ``l2``) counts the tuples holding ``a`` on the ``l1`` side and
    ``b`` on the ``l2`` side, out of the tuples having both sides
    (:func:`tealeaves.coherence.core.count_crosslingual`).

    Parameters
    ----------
    indices : mapping of str to ReferenceIndex
        Each language's index, all over the same tuple-id space (``n_documents``).
    """

    def __init__(self, indices: Mapping[str, ReferenceIndex]):
        if not indices:
            raise EmptyInputError("an aligned index needs at least one language")
        sizes = {lang: ix.n_documents for lang, ix in indices.items()}
        if len(set(sizes.values())) != 1:
            raise TealeavesError(f"the languages' indices have different tuple-id spaces {sizes}; "
                                 "build them with the same n_space")
        self.indices = dict(indices)
        self.n_tuples = next(iter(sizes.values()))

    @classmethod
    def from_corpora(cls, corpora: Mapping[str, Corpus], doc_ids: Mapping[str, Sequence[int]] | None = None,
                     n_tuples: int | None = None, name: str = "aligned") -> AlignedIndex:
        """Index each language's corpus in the shared space (``doc_ids[lang][d]`` = tuple of doc ``d``).

        Without ``doc_ids`` every corpus must hold the same number of documents,
        document ``d`` belonging to tuple ``d``.

        Parameters
        ----------
        corpora : mapping of str to Corpus
            Each language's documents.
        doc_ids : mapping of str to sequence of int, optional
            Each language's document-to-tuple map.
        n_tuples : int, optional
            Tuples of the shared space (default: the largest tuple id + 1, or the longest corpus).
        name : str
            The indices are named ``{name}-{lang}``.

        Returns
        -------
        AlignedIndex
            The aligned index, in memory.
        """
        if n_tuples is None:
            n_tuples = (max(int(np.max(v)) + 1 for v in doc_ids.values()) if doc_ids
                        else max(len(c) for c in corpora.values()))
        out = {}
        for lang, corpus in corpora.items():
            ids = None if doc_ids is None else doc_ids[lang]
            out[lang] = build_index(corpus, name=f"{name}-{lang}", doc_ids=ids, n_space=n_tuples)
        return cls(out)

    def present(self, lang: str) -> np.ndarray:
        """Which tuples have a ``lang`` side.

        Parameters
        ----------
        lang : str
            A language of the index.

        Returns
        -------
        numpy.ndarray
            The ``present`` array of that language's index, one entry per tuple.
        """
        return self.indices[lang].present


# -- the saved folder ------------------------------------------------------------------------------
def write_manifest(folder: Path, name: str, n_tuples: int, files: Mapping[str, str]) -> None:
    """Write the folder's ``aligned.json`` (module docstring): the one writer of the manifest.

    Parameters
    ----------
    folder : path
        The aligned reference folder.
    name : str
        The reference's name.
    n_tuples : int
        Tuples of the shared tuple-id space.
    files : mapping of str to str
        Each language's index file name in the folder.
    """
    manifest = {"format": ALIGNED_FORMAT, "format_version": ALIGNED_FORMAT_VERSION, "name": name,
                "n_tuples": int(n_tuples), "languages": dict(files), "tuple_ids_file": "tuple_ids.txt"}
    _io.write_text(Path(folder) / ALIGNED_MANIFEST, json.dumps(manifest, indent=2),
                   what="aligned reference manifest")


def is_aligned_reference(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a folder holding an aligned-reference manifest.

    Parameters
    ----------
    path : path
        The folder.

    Returns
    -------
    bool
        ``True`` when ``path/aligned.json`` is a file.
    """
    return (Path(path) / ALIGNED_MANIFEST).is_file()


def _not_reference(path: Path, what: str) -> InputFormatError:
    return InputFormatError(f"'{path}' is not an aligned reference: {what}",
                            fix="build one with `tealeaves index build-aligned TUPLES.jsonl -o REF`, or "
                                "give a built-in name (bible, flores, ntrex, tico19, udhr)")


def _check_index_language(path: Path, lang: str, file: str, index_name: str, files: Mapping) -> None:
    """An index built by ``build-aligned`` is named ``REF-LANG``: one named after another language of the
    manifest means the manifest maps ``lang`` to the wrong file (scores would pair the wrong texts).
    Languages are compared as codes (:func:`~tealeaves.corpus.aligned.language_code`: ``eng`` is ``en``),
    as they are read."""
    code = language_code(lang)
    if index_name.endswith(f"-{code}"):
        return
    codes = {language_code(o) for o in files} - {code}
    other = next((o for o in sorted(codes) if index_name.endswith(f"-{o}")), None)
    if other is not None:
        raise _not_reference(path, f"the {lang} file {file!r} holds the {other} index ({index_name!r}); "
                                   f"{ALIGNED_MANIFEST} maps the languages to the wrong files")


def _read_manifest(path: Path) -> dict:
    """The checked manifest of the folder ``path`` (module docstring)."""
    if not path.exists():
        raise InputNotFoundError(f"reference '{path}' does not exist",
                                 fix="give a built-in name (bible, flores, ntrex, tico19, udhr) or the "
                                     "folder written by `tealeaves index build-aligned`")
    if not path.is_dir():
        raise _not_reference(path, "it is a file, not a folder")
    if not (path / ALIGNED_MANIFEST).is_file():
        raise _not_reference(path, f"the folder has no {ALIGNED_MANIFEST}")
    try:
        manifest = json.loads(_io.read_text(path / ALIGNED_MANIFEST, what="aligned reference manifest"))
    except json.JSONDecodeError as exc:
        raise _not_reference(path, f"{ALIGNED_MANIFEST} is not JSON ({exc.msg})") from None
    except RecursionError:
        raise _not_reference(path, f"{ALIGNED_MANIFEST} is nested too deeply") from None
    _io.check_format(manifest, ALIGNED_FORMAT, ALIGNED_FORMAT_VERSION, bad=lambda m: _not_reference(path, m),
                     subject=ALIGNED_MANIFEST, what=f"aligned reference '{path}'",
                     fix="rebuild it with this tealeaves' `tealeaves index build-aligned`")
    files, n = manifest.get("languages"), manifest.get("n_tuples")
    if not isinstance(files, dict) or len(files) < 2 or not isinstance(n, int) or isinstance(n, bool):
        raise _not_reference(path, f"{ALIGNED_MANIFEST} must list two or more language files and n_tuples")
    return manifest


def load_aligned_index(path: str | os.PathLike[str], verify: bool = True) -> tuple[AlignedIndex, str]:
    """Read a saved aligned reference folder (checks: module docstring).

    Parameters
    ----------
    path : path
        The folder.
    verify : bool
        Passed to :meth:`ReferenceIndex.load` for every language's index.

    Returns
    -------
    index : AlignedIndex
        The languages' indexes.
    name : str
        The reference's name (the manifest's, else the folder's).
    """
    path = Path(path)
    manifest = _read_manifest(path)
    files, n = manifest["languages"], manifest["n_tuples"]
    indices = {}
    for lang, name in files.items():
        code = language_code(lang)  # also Wikipedia codes of a linked-Wikipedia build (bg, ...)
        if not isinstance(name, str) or name in ("", ".", "..") or Path(name).name != name:
            raise _not_reference(path, f"the {lang} index file {name!r} is not a file name in the folder")
        ix = ReferenceIndex.load(path / name, verify=verify)
        if ix.n_documents != n:
            raise _not_reference(path, f"the {lang} index has {ix.n_documents} tuple slots, the manifest "
                                       f"says {n} (not one tuple-id space)")
        if code in indices:
            first = next(k for k in files if language_code(k) == code)
            raise _not_reference(path, f"{ALIGNED_MANIFEST} names language {code!r} twice ({first!r}, "
                                       f"{lang!r})")
        _check_index_language(path, lang, name, ix.name, files)
        indices[code] = ix
    check_tuple_order(path, manifest, indices)
    return AlignedIndex(indices), str(manifest.get("name") or path.name)


def _tuple_ids(path: Path, manifest: Mapping) -> list[str]:
    """The folder's tuple ids (``tuple_ids.txt``, one a line), exactly ``n_tuples`` of them."""
    file = manifest.get("tuple_ids_file", "tuple_ids.txt")
    if not isinstance(file, str) or file in ("", ".", "..") or Path(file).name != file:
        raise _not_reference(path, f"the tuple id file {file!r} is not a file name in the folder")
    if not (path / file).is_file():
        raise _not_reference(path, f"the folder has no tuple id file {file!r}")
    ids = _io.read_text(path / file, what="tuple id file").split("\n")
    if ids and ids[-1] == "":
        ids.pop()
    if len(ids) != manifest["n_tuples"]:
        raise _not_reference(path, f"{file} lists {len(ids)} tuple ids, the manifest says "
                                   f"{manifest['n_tuples']} tuples")
    return ids


def check_tuple_order(path: Path, manifest: Mapping, indices: Mapping[str, ReferenceIndex]) -> None:
    """Every language's index holds its documents in the folder's tuple order.

    Slot ``t`` of every index must be tuple ``t`` of ``tuple_ids.txt``: the document ids each index
    holds (:attr:`ReferenceIndex.document_ids`, one per present slot, in slot order) must be the
    tuple ids of its present slots.  An index built over the same tuples in another order has the same
    size and language, and would pair the wrong texts (a wrong score, not an error) without this check.

    Parameters
    ----------
    path : Path
        The aligned reference folder.
    manifest : mapping
        Its checked manifest.
    indices : mapping of str to ReferenceIndex
        Each language's loaded index.

    Raises
    ------
    InputFormatError
        When the tuple id file is missing or of the wrong length, or an index's documents are not the
        tuples of its slots, in order.
    """
    ids = _tuple_ids(path, manifest)
    for lang, ix in indices.items():
        slots = np.flatnonzero(ix.present)
        held = ix.document_ids
        if len(held) != len(slots):
            raise _not_reference(path, f"the {lang} index holds {len(held)} document ids for {len(slots)} "
                                       "present tuples")
        expected = [ids[s] for s in slots.tolist()]
        if expected != held:
            k = next(k for k, (a, b) in enumerate(zip(expected, held)) if a != b)
            raise _not_reference(path, f"the {lang} index holds document {held[k]!r} in tuple slot "
                                       f"{int(slots[k])}, which is tuple {expected[k]!r}: its tuples are in "
                                       "another order than tuple_ids.txt (not one tuple-id space)")


# -- building --------------------------------------------------------------------------------------


@dataclass
class TupleSource:
    """One shard of tuples (picklable, sent to Dask workers), read one tuple at a time.

    Parameters
    ----------
    path : str
        A JSON Lines file, or the document-id file that groups parallel line files.
    files : dict of str to str, optional
        Parallel line files: language -> file (``None``: ``path`` is JSON Lines).
    """

    path: str
    files: dict[str, str] | None = None

    @property
    def name(self) -> str:
        return Path(self.path).name

    def tuples(self, encoding: str | None) -> Iterator[tuple[str, Mapping[str, str | None]]]:
        """``(tuple id, {language: text or None})`` in file order.

        Parameters
        ----------
        encoding : str or None
            The files' text encoding (``None``: UTF-8).

        Yields
        ------
        tuple
            ``(tuple id, {language: text or None})``.
        """
        if self.files is None:
            yield from iter_jsonl_tuples(self.path, encoding)
            return
        yield from iter_parallel_files(self.files, self.path, encoding)


@dataclass
class AlignedBuild:
    """Settings every shard task needs (picklable).

    Parameters
    ----------
    languages : list of str or None
        The languages kept (``None``: every one found).
    chunk_tokens : int
        Tokens per partial index.
    workdir : str
        The build's work folder.
    prefix_ids : bool, default False
        Prefix document ids with the shard's name.
    encoding : str, optional
        The inputs' text encoding.
    """

    languages: list[str] | None  # the languages kept (None: every one found)
    chunk_tokens: int
    workdir: str
    prefix_ids: bool = False
    encoding: str | None = None

    def settings(self, lang: str):
        """The :class:`~tealeaves.index.chunk.BuildSettings` of one language's partials.

        Parameters
        ----------
        lang : str
            The language (its default preprocessor, its partials' folder, created if needed).

        Returns
        -------
        BuildSettings
            The settings.
        """
        from tealeaves.corpus.aligned import default_preprocessor

        folder = Path(self.workdir) / "partials" / lang
        folder.mkdir(parents=True, exist_ok=True)
        recipe = default_preprocessor(lang, max_df=1.0).get_params()
        return BuildSettings(recipe, self.chunk_tokens, str(folder))


@dataclass
@shared_doc
class TupleShardResult:
    """One shard's partial indexes per language, chunk sizes, tuple-id file, what was read, manifest entry.

    Parameters
    ----------
    partials : dict
        Language -> {chunk number: partial index}.
    chunk_slots : list of int
        Each chunk's size in tuples.
    ids_file : str
        The tuple-id file.
    summary : TupleSummary
        What was read.
    %(build_shard_stats)s %(build_shard_manifest)s %(build_shard_n_tokens)s
    """

    partials: dict[str, dict[int, object]]
    chunk_slots: list[int]
    ids_file: str
    summary: TupleSummary
    stats: IngestStats
    manifest: dict
    n_tokens: int = 0


def index_tuple_shard(source: TupleSource, number: int, build: AlignedBuild, progress=None
                      ) -> TupleShardResult:
    """Index one shard of tuples into per-language partial indexes over chunks of consecutive tuples.

    Parameters
    ----------
    source : TupleSource
        The shard.
    number : int
        Its position among the shards.
    build : AlignedBuild
        The build's settings.
    progress : Progress, optional
        Told of the tokens indexed.

    Returns
    -------
    TupleShardResult
        The shard's partial indexes per language, and what was read.
    """
    wanted = set(build.languages) if build.languages is not None else None
    prefix = f"{source.name}:" if build.prefix_ids else ""
    settings, tokenize, chunks = {}, {}, {}
    result = TupleShardResult({}, [], str(Path(build.workdir) / f"ids{number:06d}.txt"), TupleSummary(),
                              IngestStats(), manifest_entry(source.path))
    n_slots, size = 0, 0

    def flush() -> None:
        k = len(result.chunk_slots)
        for lang, chunk in chunks.items():
            path = partial_path(settings[lang], number, k)
            result.partials.setdefault(lang, {})[k] = flush_chunk(chunk, settings[lang], path, True, n_slots)
        result.chunk_slots.append(n_slots)
        result.n_tokens += size
        chunks.clear()
        if progress is not None:
            progress.tokens(size)

    with open(result.ids_file, "w", encoding="utf-8") as ids:
        for tid, texts in source.tuples(build.encoding):
            kept = {x: t for x, t in texts.items() if wanted is None or x in wanted}
            result.summary.count(kept)
            ids.write(prefix + tid + "\n")
            for lang, text in kept.items():
                if text is None:
                    continue
                if lang not in settings:
                    settings[lang] = build.settings(lang)
                    tokenize[lang] = settings[lang].preprocessor().tokenize
                words = tokenize[lang](text)
                chunks.setdefault(lang, Chunk(None)).add(prefix + tid, words, n_slots)
                size += len(words)
                result.stats.documents += 1
            n_slots += 1
            if size >= build.chunk_tokens:
                flush()
                n_slots, size = 0, 0
        if n_slots:
            flush()
    return result


def parse_language_list(text: str) -> list[str]:
    """``--languages en,sv``: codes (known ones normalised, Wikipedia-style ones lowercased), two or
    more, each once.

    Parameters
    ----------
    text : str
        Comma-separated language codes.

    Returns
    -------
    list of str
        The codes.
    """
    from tealeaves.validation import check_unique

    try:
        codes = check_unique([language_code(p) for p in split_language_list(text)], "languages")
    except ParameterError as exc:
        raise naming(exc, "languages") from None
    if len(codes) < 2:
        raise naming(ParameterError(f"languages {text!r} must name at least two distinct languages",
                                    fix="give e.g. `languages='en,sv'`"), "languages")
    return codes


def _sources(inputs: Sequence[str | os.PathLike], lang_files: Mapping[str, str] | None, doc_ids: str | None
             ) -> list[TupleSource]:
    check_input_kind(inputs, lang_files, doc_ids)
    if lang_files:
        for f in lang_files.values():
            _io.existing_file(f, "parallel file")
        _io.existing_file(doc_ids, "document-id file")
        return [TupleSource(str(doc_ids), {k: str(v) for k, v in lang_files.items()})]
    if not inputs:
        raise naming(ParameterError("no aligned input given",
                                    fix="give tuple shards (`inputs`), parallel line files (`lang_files` "
                                    "with `doc_ids`), or linked Wikipedia articles "
                                    "(`links` or `langlinks`, with `dumps`)"),
                     "inputs", "lang_files", "doc_ids", "links", "langlinks", "dumps")
    check_file_names(inputs, "tuple ids of several shards are prefixed with the file name")
    for p in inputs:
        _io.existing_file(p, "aligned tuples file")
    return [TupleSource(str(p)) for p in inputs]


def _prepare_output(out: Path) -> None:
    """Refuse an output path that is a file, or a non-empty folder that is not an aligned reference."""
    _io.folder_path(out, fix="give a new folder name with -o")
    if out.is_dir() and any(out.iterdir()) and not is_aligned_reference(out):
        raise OutputError(f"'{out}' is a folder holding other files, not an aligned reference",
                          fix="give a new folder name with -o (an aligned reference folder is replaced)")


@renamed_parameters({"out": "output"})
def build_aligned_index(inputs: Sequence[str | os.PathLike], output: str | os.PathLike, *,
                        languages: Sequence[str] | str | None = None,
                        lang_files: Mapping[str, str] | None = None, doc_ids: str | None = None,
                        links: str | None = None, langlinks: str | None = None,
                        dumps: Sequence[str] = (), name: str | None = None, encoding: str | None = None,
                        memory: int | None = None, chunk_tokens: int | None = None,
                        tuples_per_shard: int = 100_000, executor=None, progress=None
                        ) -> tuple[AlignedIndex, str, IngestStats]:
    """Build the aligned reference folder ``output`` (module docstring); returns ``(index, name, stats)``.

    :func:`tealeaves.multilingual.build_aligned_reference` (what ``tealeaves index build-aligned``
    calls) returns the same folder as an :class:`~tealeaves.multilingual.reference.AlignedReference`.

    Give tuple shards ``inputs``, or ``lang_files`` + ``doc_ids``, or ``links`` (JSON Lines of linked
    titles) / ``langlinks`` (``[LANG=]LANG-wiki-...-langlinks.sql.gz``) with ``dumps``
    (``LANG=PATH``).  ``languages`` keeps those languages (default: every one found; for Wikipedia:
    the dumps' languages).  ``executor`` maps the shard task over the shards (default: in order, in
    this process; :func:`tealeaves.index.dask.dask_executor` for Dask).

    Parameters
    ----------
    inputs : sequence of path
        JSON Lines tuple shards (or empty, with ``lang_files`` or ``links``/``langlinks``).
    output : path
        The folder to write (an aligned reference already there is replaced).
    languages : sequence of str or str, optional
        The languages to keep (a list, or comma-separated).
    lang_files : mapping of str to path, optional
        Parallel line files, by language (with ``doc_ids``).
    doc_ids : path, optional
        The document-id file of ``lang_files``.
    links, langlinks : path, optional
        Linked Wikipedia titles (JSON Lines) or a ``langlinks`` SQL table (with ``dumps``).
    dumps : sequence of str
        ``LANG=PATH`` MediaWiki dumps.
    name : str, optional
        The reference's name (default: the folder's).
    encoding : str, optional
        Encoding of the tuple and line files (default UTF-8).
    memory : int, optional
        Memory budget in bytes of each build process (default 1 GiB).
    chunk_tokens : int, optional
        Tokens per chunk (default: from ``memory``).
    tuples_per_shard : int
        Tuples per shard of a linked-Wikipedia input.
    executor : callable, optional
        Maps the shard task over the shards (default: in this process).
    progress : Progress, optional
        Progress reports on stderr.

    Returns
    -------
    index : AlignedIndex
        The saved folder, loaded back (:func:`load_aligned_index`).
    name : str
        The reference's name.
    stats : IngestStats
        What was read and skipped.
    """
    from tealeaves.ingest import langlinks as W

    memory = check_memory(DEFAULT_MEMORY if memory is None else memory, local=executor is None)
    langs = parse_language_list(languages) if isinstance(languages, str) else (
        None if languages is None else parse_language_list(",".join(languages)))
    wiki = bool(links or langlinks)
    if wiki and (inputs or lang_files or doc_ids):
        raise naming(ParameterError("give either tuple shards, parallel line files, or `links`/`langlinks` "
                                    "with `dumps` (not several)", fix="one kind of input per reference"),
                     "links", "langlinks", "dumps")
    if links and langlinks:
        raise naming(ParameterError("links and `langlinks` exclude each other", fix="give one of them"),
                     "links", "langlinks")
    if dumps and not wiki:
        raise naming(ParameterError("dumps belongs to a linked-Wikipedia build",
                                    fix="add `links` or `langlinks`"), "dumps", "links", "langlinks")
    out = Path(output)
    sources = [] if wiki else _sources(list(inputs), lang_files, doc_ids)
    _prepare_output(out)
    stats = IngestStats()
    with Workdir(out) as workdir:
        if wiki:
            dump_map = W.parse_dumps(dumps, langs)
            langs = langs or list(dump_map)
            joined = W.link_wikipedia(links or langlinks, dump_map, Path(workdir) / "linked", workdir, stats,
                                      sql=bool(langlinks), tuples_per_shard=tuples_per_shard)
            sources = [TupleSource(str(p)) for p in joined]
        if progress is not None and hasattr(progress, "n_shards"):
            progress.n_shards = len(sources)  # the joined Wikipedia shards are known only now
        size = int(chunk_tokens) if chunk_tokens is not None else chunk_tokens_for(memory)
        build = AlignedBuild(langs, size, workdir, prefix_ids=len(sources) > 1 and not wiki,
                             encoding=encoding)
        results = (executor or local_executor(progress))(index_tuple_shard, sources, build)
        target = Path(workdir) / "out"
        target.mkdir()
        reference_name = name or out.name
        files = _merge_languages(results, sources, build, target, reference_name, memory, wiki, stats)
        _concatenate_ids(results, target / "tuple_ids.txt")
        write_manifest(target, reference_name, sum(r.summary.n_tuples for r in results), files)
        _replace(target, out)
        index, reference_name = load_aligned_index(out)
        return index, reference_name, stats


def _merge_languages(results, sources, build: AlignedBuild, target: Path, name: str, memory: int, wiki: bool,
                     stats: IngestStats) -> dict[str, str]:
    """Check the whole input (:meth:`TupleSummary.check`) and merge every language's partials."""
    from tealeaves.corpus.preprocess import segmentation

    summary = TupleSummary()
    for r in results:
        summary.add(r.summary)
        stats.add(r.stats)
    where = "the aligned input" if len(sources) != 1 or wiki else f"aligned input '{sources[0].path}'"
    langs = summary.select(build.languages, where)
    summary.check(where, langs)
    # each language's partials in chunk order, an all-absent one for a chunk where it has no document
    partials = {lang: [r.partials.get(lang, {}).get(k, Partial(None, n)) for r in results
                       for k, n in enumerate(r.chunk_slots)] for lang in langs}
    checked = {lang: segmentation([p.letters for p in partials[lang]], f"the {lang} text")  # before any merge
               for lang in langs}
    files = {}
    for lang in langs:
        settings = build.settings(lang)
        header = index_header(settings, [s.path for s in sources], results, f"{name}-{lang}",
                              manifest=not wiki)
        header["segmentation"] = checked[lang]
        files[lang] = f"{lang}.tlx"
        merge_partials(partials[lang], target / files[lang], header, sort_words=True,
                       memory=memory)
    return files


def _concatenate_ids(results, path: Path) -> None:
    """The shards' tuple-id files, in order, as one file (streamed)."""
    with open(path, "wb") as out:
        for r in results:
            with open(r.ids_file, "rb") as fh:
                shutil.copyfileobj(fh, out)


def _replace(target: Path, out: Path) -> None:
    """Move the finished folder to ``out`` (an existing aligned reference there is replaced)."""
    if out.exists():
        shutil.rmtree(out)
    os.replace(target, out)
