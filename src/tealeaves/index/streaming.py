"""Streamed and sharded index builds over input files, in bounded memory (see ``docs/scale.md``).

A build reads every input shard (:mod:`tealeaves.ingest`) one document at a
time, tokenises it (the default :class:`~tealeaves.corpus.Preprocessor`, or
whitespace for pre-tokenised token files), and collects documents into chunks
of at most ``chunk_tokens`` tokens; each chunk becomes a partial index on disk
(one counting-sort pass, :func:`~tealeaves.index.build.index_arrays`),
and the partials are merged (:func:`~tealeaves.index.merge.merge_partials`)
into one index identical to :func:`~tealeaves.index.build.build_index` over
all documents in input order.

Vocabulary pruning (``min_df``/``max_df``/``max_features`` of the recipe)
depends on the whole corpus and removing a word shifts the positions of the
tokens after it, so a recipe that prunes runs a first *counting pass* (document
and token frequencies of every word, per shard, summed) and fixes the
vocabulary before the indexing pass; a recipe that prunes nothing (the default)
indexes every word in a single pass and sorts the unified vocabulary at merge.

The same two functions (:func:`count_shard`, :func:`index_shard`) run in
process (:func:`build_streaming`) or as Dask tasks (:mod:`tealeaves.index.dask`); the aligned
builder (:mod:`tealeaves.index.aligned`) collects its chunks with the same :class:`Chunk` and
:func:`flush_chunk`.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves._progress import Progress as _Progress
from tealeaves._progress import is_terminal
from tealeaves.corpus import Preprocessor
from tealeaves.corpus.preprocess import TEXT_FIX, segmentation
from tealeaves.errors import EmptyInputError, InputFormatError, ParameterError
from tealeaves.index.chunk import BuildSettings, Chunk, flush_chunk, scan_tokens
from tealeaves.index.format import FORMAT_VERSION
from tealeaves.index.manifest import manifest_entry
from tealeaves.index.memory import (
    BASELINE_BYTES,
    BYTES_PER_TOKEN,
    CHUNK_WORD_BYTES,
    DEFAULT_MEMORY,
    check_memory,
    chunk_tokens_for,
    release_freed_memory,
)
from tealeaves.index.merge import Partial, merge_partials
from tealeaves.index.workdir import Workdir
from tealeaves.ingest.sources import IngestStats, detect_kind, is_pretokenised, iter_documents

#: Tokenisation recorded for pre-tokenised inputs (as the single-file build records it).
PRETOKENISED = {"tokenizer": "whitespace (pre-tokenised, one document per line)"}


def prunes(recipe: Mapping | None) -> bool:
    """Whether a recipe's vocabulary depends on the corpus (``min_df``/``max_df``/``max_features``).

    Parameters
    ----------
    recipe : mapping, optional
        ``Preprocessor.get_params()`` (``None``: pre-tokenised input).

    Returns
    -------
    bool
        Whether a counting pass must fix the vocabulary first.
    """
    if not recipe:
        return False
    min_df, max_df = recipe.get("min_df", 1), recipe.get("max_df", 1.0)
    keeps_rare = min_df <= 1 if isinstance(min_df, int) else min_df <= 0
    keeps_common = isinstance(max_df, float) and max_df >= 1.0
    return not (keeps_rare and keeps_common and recipe.get("max_features") is None)


@dataclass
@shared_doc
class ShardResult:
    """A shard's partial indexes (in order), what was read and skipped, and its manifest entry.

    Parameters
    ----------
    partials : list of Partial
        The partial indexes, in order.
    %(build_shard_stats)s %(build_shard_manifest)s %(build_shard_n_tokens)s
    """

    partials: list[Partial]
    stats: IngestStats
    manifest: dict
    n_tokens: int = 0


def _documents(shard: str, settings: BuildSettings, stats: IngestStats, kind: str
               ) -> Iterable[tuple[str, str]]:
    prefix = f"{Path(shard).name}:" if settings.prefix_ids else ""
    for doc_id, text in iter_documents(shard, kind=kind, text_field=settings.text_field,
                                       id_field=settings.id_field, stats=stats, encoding=settings.encoding):
        yield prefix + doc_id, text


def count_shard(shard: str, shard_number: int, settings: BuildSettings, progress=None
                ) -> tuple[int, Counter, Counter]:
    """Counting pass over one shard: (documents, document frequencies, token frequencies), tokenised
    in batches (:meth:`~tealeaves.corpus.Preprocessor.scan`) and counted with numpy per batch.

    Parameters
    ----------
    shard : str
        The input file or folder.
    shard_number : int
        Its position among the inputs.
    settings : BuildSettings
        The build's settings.
    progress : Progress, optional
        Told of the tokens indexed.

    Returns
    -------
    tuple of (int, Counter, Counter)
        Documents, document frequencies, token frequencies.
    """
    scan = settings.preprocessor().scan
    df: Counter[str] = Counter()
    tf: Counter[str] = Counter()
    n = 0
    for _, texts in _batches(_documents(shard, settings, IngestStats(), detect_kind(shard))):
        found = scan(texts)
        n += len(texts)
        words, n_words = found.words, len(found.words)
        if not n_words:
            continue
        stop = found.stop_mask()
        keep = ~stop[found.ids]
        ids = found.ids[keep].astype(np.int64)
        doc = np.repeat(np.arange(len(texts), dtype=np.int64), found.lengths)[keep]
        tokens = np.bincount(ids, minlength=n_words)
        docs = np.bincount(np.unique(doc * n_words + ids) % n_words, minlength=n_words)
        for w, t, d in zip(words, tokens.tolist(), docs.tolist()):
            if t:
                tf[w] += t
                df[w] += d
    return n, df, tf


#: Characters of text tokenised at a time (:meth:`~tealeaves.corpus.Preprocessor.scan`).
BATCH_CHARS = 1 << 22


def index_shard(shard: str, shard_number: int, settings: BuildSettings, progress=None) -> ShardResult:
    """Index one shard into partial index files of at most ``chunk_tokens`` tokens each (a chunk ends
    with the first document at which it reaches ``chunk_tokens``).

    Parameters
    ----------
    shard, shard_number, settings, progress
        As in :func:`count_shard`.

    Returns
    -------
    ShardResult
        The shard's partial indexes, what was read and its manifest entry.
    """
    kind = detect_kind(shard)
    check_tokenisation(shard, kind, settings)
    fixed = {w: i for i, w in enumerate(settings.vocabulary)} if settings.vocabulary is not None else None
    sort_words = settings.recipe is not None
    scan = settings.preprocessor().scan if settings.recipe is not None else None
    stats, partials, n_tokens = IngestStats(), [], 0
    chunk: Chunk | None = Chunk(fixed)

    def flush(full: Chunk) -> None:
        nonlocal n_tokens
        n_tokens += len(full.tokens)
        if progress is not None:
            progress.tokens(len(full.tokens))
        partials.append(flush_chunk(full, settings, partial_path(settings, shard_number, len(partials)),
                               sort_words))

    tokenise = scan or scan_tokens  # pre-tokenised: one document of tokens per line
    for doc_ids, texts in _batches(_documents(shard, settings, stats, kind)):
        chunk.add_scan(doc_ids, tokenise(texts))
        while chunk is not None:
            cut = chunk.full_at(settings.chunk_tokens, settings.chunk_bytes, BYTES_PER_TOKEN,
                                CHUNK_WORD_BYTES)  # full of tokens, or its tokens and words of memory
            if cut is None:
                break
            rest = chunk.split(cut)
            flush(chunk)
            chunk = rest
            release_freed_memory()  # the flushed chunk is dropped: what it freed leaves the process
        chunk = chunk or Chunk(fixed)
    if chunk.lengths:
        flush(chunk)
        chunk = None
        release_freed_memory()
    return ShardResult(partials, stats, manifest_entry(shard), n_tokens)


def _batches(documents: Iterable[tuple[str, str]]) -> Iterable[tuple[list[str], list[str]]]:
    """``(ids, texts)`` of consecutive documents, about :data:`BATCH_CHARS` characters at a time."""
    ids: list[str] = []
    texts: list[str] = []
    size = 0
    for doc_id, text in documents:
        ids.append(doc_id)
        texts.append(text)
        size += len(text)
        if size >= BATCH_CHARS:
            yield ids, texts
            ids, texts, size = [], [], 0
    if ids:
        yield ids, texts


def partial_path(settings: BuildSettings, shard_number: int, k: int) -> Path:
    """Where partial index ``k`` of shard ``shard_number`` is written (in the build's work folder).

    Parameters
    ----------
    settings : BuildSettings
        The build's settings.
    shard_number : int
        The shard.
    k : int
        The partial's number within the shard.

    Returns
    -------
    Path
        ``shard<NNNNNN>-part<NNNNN>.tlx`` in the work folder.
    """
    return Path(settings.workdir) / f"shard{shard_number:06d}-part{k:05d}.tlx"


def check_tokenisation(shard: str, kind: str, settings: BuildSettings) -> None:
    """Refuse a pre-tokenised shard in a text build and vice versa (mixed tokenisations).

    Parameters
    ----------
    shard : str
        The input.
    kind : str
        Its kind (:func:`tealeaves.ingest.detect_kind`).
    settings : BuildSettings
        The build's settings (``recipe=None``: pre-tokenised).
    """
    if is_pretokenised(kind) != (settings.recipe is None):
        this = "pre-tokenised (one document of tokens per line)" if is_pretokenised(kind) else f"{kind} text"
        raise InputFormatError(
            f"input '{shard}' is {this}"
            f", but the other inputs are {'raw text' if settings.recipe is not None else 'pre-tokenised'}: "
            "the shards would be indexed with mixed tokenisations",
            fix="give shards of one kind (all raw text, or all pre-tokenised token files)")


def plan(inputs: Sequence[str | os.PathLike], preprocessor: Preprocessor | None, memory: int,
         workdir: str, text_field: str = "text", encoding: str | None = None) -> BuildSettings:
    """Settings for a build over ``inputs``: the recipe (from the first input's kind) and the chunk size.

    Parameters
    ----------
    inputs : sequence of path
        The input shards.
    preprocessor : Preprocessor, optional
        The recipe of text inputs (default: ``Preprocessor()``; a fitted one fixes the vocabulary).
    memory : int
        The budget of each build process, in bytes.
    workdir : str
        The build's work folder.
    text_field : str
        JSON Lines / Parquet field holding the text.
    encoding : str, optional
        Encoding of text inputs.

    Returns
    -------
    BuildSettings
        The settings every shard task gets.
    """
    from tealeaves.errors import InputNotFoundError

    if not inputs:
        raise EmptyInputError("no input shard given", fix="give one or more inputs")
    for p in inputs:
        if not Path(p).exists():
            raise InputNotFoundError(f"input '{p}' does not exist", fix="check the path")
    check_file_names(inputs, "the shard manifest names shards by file name")
    kinds = [detect_kind(p) for p in inputs]
    pretok = is_pretokenised(kinds[0])
    pre = preprocessor if preprocessor is not None else Preprocessor()
    recipe = None if pretok else pre.get_params()
    vocabulary = list(pre.vocabulary_) if (not pretok and hasattr(pre, "vocabulary_")) else None
    settings = BuildSettings(recipe, chunk_tokens_for(memory), workdir, text_field=text_field,
                             prefix_ids=len(inputs) > 1, vocabulary=vocabulary, encoding=encoding,
                             chunk_bytes=memory - BASELINE_BYTES)
    for p, kind in zip(inputs, kinds):  # before any shard is read
        check_tokenisation(str(p), kind, settings)
    return settings


def check_file_names(inputs: Sequence[str | os.PathLike], why: str) -> None:
    """Refuse two inputs with the same file name (``why``: what names them by file name).

    Parameters
    ----------
    inputs : sequence of path
        The inputs.
    why : str
        Why names must differ (in the message).
    """
    names = Counter(Path(p).name for p in inputs)
    dup = sorted(n for n, k in names.items() if k > 1)
    if dup:
        raise ParameterError(f"two inputs have the same file name ({', '.join(dup)}); {why}",
                             fix="rename one of them")


def fit_vocabulary(counts: Sequence[tuple[int, Counter, Counter]], recipe: Mapping) -> list[str]:
    """The vocabulary a Preprocessor with ``recipe`` fits on the counted documents (sorted).

    Parameters
    ----------
    counts : sequence of tuple
        Each shard's :func:`count_shard` result.
    recipe : mapping
        ``Preprocessor.get_params()``.

    Returns
    -------
    list of str
        The vocabulary, sorted.
    """
    n = sum(c[0] for c in counts)
    df: Counter[str] = Counter()
    tf: Counter[str] = Counter()
    for _, d, t in counts:
        df.update(d)
        tf.update(t)
    return Preprocessor.from_params(dict(recipe)).prune(n, df, tf)


def index_header(settings: BuildSettings, inputs: Sequence, results: Sequence, name: str,
                 manifest: bool = True) -> dict:
    """The descriptive header fields of a built index (as :func:`build_index` writes them); ``results``
    are the shards' results (a :class:`ShardResult` or an aligned build's), of which only each
    ``manifest`` entry is recorded.

    Parameters
    ----------
    settings : BuildSettings
        The build's settings (its recipe is the tokenisation recorded).
    inputs : sequence of path
        The inputs (the recorded source).
    results : sequence
        The shards' results.
    name : str
        The index's name.
    manifest : bool
        Record the shard manifest.

    Returns
    -------
    dict
        The header fields (the counts are added by the merge).
    """
    from tealeaves._version import __version__

    source = str(Path(inputs[0]).resolve()) if len(inputs) == 1 else ", ".join(
        str(Path(p).resolve()) for p in inputs)
    header = {"format": "tealeaves-reference-index", "format_version": FORMAT_VERSION, "name": name,
              "tokenization": dict(settings.recipe) if settings.recipe is not None else dict(PRETOKENISED),
              "source": source, "created_by": f"tealeaves-{__version__}"}
    if manifest:
        header["shards"] = [r.manifest for r in results]
    return header


def build_streaming(inputs: Sequence[str | os.PathLike], output: str | os.PathLike, *,
                    name: str | None = None, preprocessor: Preprocessor | None = None,
                    memory: int = DEFAULT_MEMORY,
                    chunk_tokens: int | None = None, text_field: str = "text", manifest: bool = True,
                    executor=None, progress=None, encoding: str | None = None):
    """Build one index file from ``inputs`` in bounded memory; returns ``(index, stats)``.

    ``executor`` maps a function over shards (default: in this process, in
    order); :func:`tealeaves.index.dask.dask_executor` gives one running on a Dask
    cluster.  ``chunk_tokens`` overrides the chunk size derived from ``memory``.

    Parameters
    ----------
    inputs : sequence of path
        The input shards (``docs/scale.md``: dumps, JSON Lines, Parquet, folders, token files).
    output : str or os.PathLike
        The index file to write.
    name : str, optional
        The index's name (default: the first input's file name).
    preprocessor : Preprocessor, optional
        The recipe of text inputs (default ``Preprocessor()``).
    memory : int
        The budget of each build process, in bytes (at least 400 MiB).
    chunk_tokens : int, optional
        Tokens per chunk (default: from ``memory``).
    text_field : str
        JSON Lines / Parquet field holding the text.
    manifest : bool
        Record the shard manifest in the header.
    executor : callable, optional
        Maps the shard tasks over the shards (default: in this process).
    progress : Progress, optional
        Progress reports on stderr.
    encoding : str, optional
        Encoding of text inputs (default UTF-8).

    Returns
    -------
    index : ReferenceIndex
        The index written, memory-mapped.
    stats : IngestStats
        What was read and skipped.
    """
    inputs = [str(p) for p in inputs]
    memory = check_memory(memory, local=executor is None)
    with Workdir(output) as workdir:
        settings = plan(inputs, preprocessor, memory, workdir, text_field, encoding)
        if chunk_tokens is not None:
            settings.chunk_tokens = int(chunk_tokens)
        run = executor or local_executor(progress)
        if settings.recipe is not None and settings.vocabulary is None and prunes(settings.recipe):
            counts = run(count_shard, inputs, settings)
            settings.vocabulary = fit_vocabulary(counts, settings.recipe)
        results = run(index_shard, inputs, settings)
        stats = IngestStats()
        for r in results:
            stats.add(r.stats)
        header = index_header(settings, inputs, results, name or Path(inputs[0]).stem, manifest)
        partials = [p for r in results for p in r.partials]
        header["segmentation"] = segmentation([p.letters for p in partials], "the text" if len(inputs) > 1
                                              else f"the text of '{inputs[0]}'", TEXT_FIX)
        if progress is not None:
            progress.start_merge()
        index = merge_partials(partials, output, header, sort_words=settings.recipe is not None,
                               progress=progress, memory=memory)
        return index, stats


def local_executor(progress=None):
    """An executor running a shard task ``func(shard, number, settings, progress)`` over the shards in this
    process, in order (results in shard order).

    Parameters
    ----------
    progress : Progress, optional
        Passed to every task, told of every shard done.

    Returns
    -------
    callable
        ``run(func, inputs, settings)``: the shards' results, in shard order.
    """
    def run(func, inputs, settings):
        out = []
        for k, shard in enumerate(inputs):
            out.append(func(shard, k, settings, progress))
            if progress is not None and hasattr(out[-1], "n_tokens"):
                progress.shard_done()
        return out

    return run


class BuildProgress(_Progress):
    """Tokens indexed, tokens/s and an ETA on stderr (a rewritten line on a terminal, else plain lines).

    ``total_bytes`` (the inputs' sizes) and the bytes read so far give the ETA
    when the token total is unknown: tokens/s over the elapsed time, and the
    fraction of shards done.  Reports are throttled to one per ``interval`` seconds
    (0.2 s on a terminal); a shard finished, the merge and the end are always reported.

    Parameters
    ----------
    n_shards : int
        Shards of the build.
    stream : file, optional
        Where to write (default: stderr).
    interval : float
        Seconds between lines when the stream is not a terminal.
    """

    def __init__(self, n_shards: int, stream=None, interval: float = 5.0):
        import sys

        stream = stream or sys.stderr
        super().__init__(stream, interval=0.2 if is_terminal(stream) else interval)
        self.n_shards = n_shards
        self.done_shards = 0
        self.n_tokens = 0

    def _emit(self, text: str, force: bool = False) -> None:
        if self.due(force=force):
            if self.tty:
                self.redraw(text.ljust(79))
            else:
                self.line(text)

    def tokens(self, n: int) -> None:
        """``n`` more tokens indexed.

        Parameters
        ----------
        n : int
            The tokens just indexed.
        """
        self.n_tokens += n
        elapsed = max(self.elapsed(), 1e-9)
        self._emit(f"indexed {self.n_tokens:,} tokens ({self.n_tokens / elapsed:,.0f} tokens/s)")

    def shard_done(self) -> None:
        """One more shard indexed (always reported)."""
        self.done_shards += 1
        elapsed = self.elapsed()
        eta = elapsed / self.done_shards * (self.n_shards - self.done_shards)
        self._emit(f"shard {self.done_shards}/{self.n_shards}: {self.n_tokens:,} tokens "
                   f"({self.n_tokens / max(elapsed, 1e-9):,.0f} tokens/s), ETA {eta:,.0f} s", force=True)

    def start_merge(self) -> None:
        """The partial indexes start to be merged (always reported)."""
        self._emit(f"merging partial indexes ({self.n_tokens:,} tokens)", force=True)

    def merged(self, done: int, total: int) -> None:
        """``done`` of ``total`` words merged.

        Parameters
        ----------
        done : int
            Words merged so far.
        total : int
            Words to merge.
        """
        self._emit(f"merged {done:,}/{total:,} words")

    def finish(self) -> None:
        """The build is done (always reported; ends the terminal line)."""
        elapsed = self.elapsed()
        self._emit(f"done: {self.n_tokens:,} tokens in {elapsed:,.1f} s "
                   f"({self.n_tokens / max(elapsed, 1e-9):,.0f} tokens/s)", force=True)
        if self.tty:
            self.write("\n")
