"""Building an aligned reference from a user's aligned texts: :func:`build_aligned_reference`.

The building is :func:`tealeaves.index.aligned.build_aligned_index`'s (the one aligned builder,
streamed and sharded); this module returns what it wrote as an
:class:`~tealeaves.multilingual.reference.AlignedReference`, the type the multilingual measures
read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from tealeaves.index.aligned import build_aligned_index
from tealeaves.ingest.sources import IngestStats
from tealeaves.multilingual.reference import AlignedReference


def build_aligned_reference(inputs: Sequence[str | os.PathLike], out: str | os.PathLike, *,
                            languages: Sequence[str] | str | None = None,
                            lang_files: Mapping[str, str] | None = None, doc_ids: str | None = None,
                            links: str | None = None, langlinks: str | None = None,
                            dumps: Sequence[str] = (), name: str | None = None, encoding: str | None = None,
                            memory: int | None = None, chunk_tokens: int | None = None,
                            tuples_per_shard: int = 100_000, executor=None, progress=None
                            ) -> tuple[AlignedReference, IngestStats]:
    """Build the aligned reference folder ``out`` and load it back as an :class:`AlignedReference`.

    What ``tealeaves index build-aligned`` runs; the inputs, the checks and the folder are those of
    :func:`tealeaves.index.aligned.build_aligned_index`, which builds.

    Parameters
    ----------
    inputs : sequence of path
        JSON Lines tuple shards (or empty, with ``lang_files`` or ``links``/``langlinks``).
    out : path
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
    reference : AlignedReference
        The saved reference, loaded back.
    stats : IngestStats
        What was read and skipped.
    """
    index, reference_name, stats = build_aligned_index(
        inputs, out, languages=languages, lang_files=lang_files, doc_ids=doc_ids, links=links,
        langlinks=langlinks, dumps=dumps, name=name, encoding=encoding, memory=memory,
        chunk_tokens=chunk_tokens, tuples_per_shard=tuples_per_shard, executor=executor, progress=progress)
    return AlignedReference.from_index(index, reference_name), stats
