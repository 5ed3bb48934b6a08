"""Command-line sub-commands of the reference index: ``tealeaves index build|info|build-aligned``.

* ``tealeaves index build INPUT... -o FILE``: an index file from reference shards, streamed in
  bounded memory (:func:`tealeaves.index.streaming.build_streaming`), on Dask with ``-j/--n-jobs``
  or ``--scheduler`` (:mod:`tealeaves.index.dask`);
* ``tealeaves index info FILE``: describe an index file (after its checks);
* ``tealeaves index build-aligned INPUT... -o FOLDER``: an aligned reference folder
  (:func:`tealeaves.multilingual.build_aligned_reference` over
  :func:`tealeaves.index.aligned.build_aligned_index`); ``tealeaves build-aligned-reference``
  is its deprecated alias (same options, one warning line).

Every option is validated at the boundary; ``-j/--n-jobs`` comes from the declaration
:data:`tealeaves.index.dask.N_JOBS` (``--workers`` is its deprecated spelling).
"""

from __future__ import annotations

import sys

from tealeaves._cli_args import add_examples, add_output, add_param, stands_for
from tealeaves._cli_options import (
    add_line_files,
    add_preprocessing,
    check_preprocessing_applies,
    preprocessor_from_args,
)
from tealeaves._docs import shared_doc
from tealeaves._output import add_format_option, dump_json, format_table
from tealeaves.validation import check_name, check_path, checked_arg

_ALIGNED = ("tealeaves.index.aligned:build_aligned_index", "tealeaves.index.dask:dask_client")

#: The public functions each sub-command calls (its options are their parameters: docs/naming.md).
API = {
    "index build": ("tealeaves.index.streaming:build_streaming", "tealeaves.index.dask:dask_client",
                    "tealeaves.corpus.preprocess:Preprocessor"),
    "index info": ("tealeaves.index.reference:ReferenceIndex.load",),
    "index build-aligned": _ALIGNED,
    "build-aligned-reference": _ALIGNED,
}

BUILD_ALIGNED_HELP = ("Build an aligned reference folder (one index per language over shared tuple ids, "
                      "the folder `tealeaves cnpmi --reference` reads) from JSON Lines tuple shards, "
                      "parallel line files + a document-id file, or Wikipedia articles linked across "
                      "languages (a JSON Lines of linked titles, or a dump's langlinks SQL table, plus "
                      "every language's dump). "
                      "Streamed in bounded memory (--memory), on Dask with --n-jobs/--scheduler; tokenised "
                      "like the built-in references (letters only, lowercased; jieba for zh).")


def register(subparsers) -> None:
    """Add ``index`` (``build``, ``info``, ``build-aligned``) and ``build-aligned-reference``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The top-level parser's sub-commands.
    """
    index = subparsers.add_parser("index", help="build or describe a coherence reference index")
    sub = index.add_subparsers(dest="index_command", metavar="ACTION")
    add_examples(index, ("index a folder of texts as a coherence reference",
                         "tealeaves index build corpus/ -o reference.tlx"),
                        ("describe an index",
                         "tealeaves index info reference.tlx"))
    index.set_defaults(func=lambda args: index.print_help() or 2)

    build = sub.add_parser("build", help="index reference corpus shards (streamed, bounded memory) into "
                                         "a file")
    build.add_argument("inputs", nargs="+", metavar="INPUT",
                       help="shards: folders of texts, JSON Lines, Parquet, MediaWiki XML dumps, or "
                            "one-document-per-line token files; each may be gzip/bz2/xz compressed")
    add_output(build, required=True, type=checked_arg(check_path, "-o"),
               help="index file to write (e.g. reuters.tlx)")
    build.add_argument("--name", default=None, type=checked_arg(check_name, "--name"),
                       help="reference name recorded in signatures (default: the first input's file name)")
    build.add_argument("--text-field", default="text", help="JSON Lines / Parquet field holding the text")
    build.add_argument("--encoding", default=None,
                       help="encoding of text inputs (token lines, JSON Lines, folders; default UTF-8)")
    add_scale_options(build)
    add_format_option(build)
    add_preprocessing(build)
    add_examples(build, ("index a folder of texts as a coherence reference",
                         "tealeaves index build corpus/ -o reference.tlx"),
                        ("a Wikipedia dump on 4 processes, 2 GB each, named in signatures",
                         "tealeaves index build enwiki-latest-pages-articles.xml.bz2 -o wiki.tlx --name "
                         "wiki -j 4 --memory 2G"))
    build.set_defaults(func=_build)

    info = sub.add_parser("info", help="describe an index file (checks its structure and checksum)")
    info.add_argument("reference", help="index file")
    info.add_argument("--verify", action="store_true",
                      help="re-hash the file (ignoring the verified-state cache) and report the outcome of "
                           "the full check as 'verified'")
    info.add_argument("--inputs", nargs="+", default=None, metavar="INPUT",
                      help="with --verify: also check these inputs against the index's shard manifest")
    add_format_option(info)
    add_examples(info, ("what an index holds: documents, vocabulary, preprocessing",
                        "tealeaves index info reference.tlx"),
                       ("re-hash it and check it against its inputs",
                        "tealeaves index info reference.tlx --verify --inputs corpus/"))
    info.set_defaults(func=_info)

    aligned = sub.add_parser("build-aligned", help="build an aligned reference folder for `tealeaves cnpmi` "
                                                   "(tuples, line files or linked Wikipedia; streamed, Dask)",
                             description=BUILD_ALIGNED_HELP)
    _build_aligned_options(aligned)
    add_examples(aligned, ("an aligned reference from JSON Lines tuples",
                           "tealeaves index build-aligned tuples.jsonl -o aligned-ref"),
                          ("from parallel line files and a document-id file",
                           "tealeaves index build-aligned --lang en=en.txt --lang sv=sv.txt --doc-ids "
                           "ids.txt -o aligned-ref"))
    aligned.set_defaults(func=_build_aligned)
    alias = subparsers.add_parser("build-aligned-reference", help="deprecated: use `tealeaves index "
                                                                  "build-aligned` (same options)",
                                  description="Deprecated alias of `tealeaves index build-aligned`. "
                                              + BUILD_ALIGNED_HELP)
    _build_aligned_options(alias)
    add_examples(alias, ("deprecated: the same as `tealeaves index build-aligned`",
                         "tealeaves build-aligned-reference tuples.jsonl -o aligned-ref"))
    alias.set_defaults(func=_build_aligned_alias)


def add_scale_options(parser) -> None:
    """``--memory``, ``-j/--n-jobs`` and ``--scheduler`` of the streamed and sharded builds (docs/scale.md).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The sub-command's parser.
    """
    from tealeaves.index.dask import N_JOBS

    parser.add_argument("--memory", default="1G", help="memory budget of each build process (default 1G; "
                                                       "e.g. 512M, 4G; at least 400M, at most the "
                                                       "machine's physical memory)")
    add_param(parser, N_JOBS, default=None)
    parser.add_argument("--scheduler", default=None, help="build on an existing Dask cluster (tcp://host:port)")


@shared_doc
def memory_budget(args) -> int:
    """``--memory`` of a build (:func:`tealeaves.index.memory.parse_memory`; bounded by this machine's
    physical memory unless the build runs on ``--scheduler``).

    Parameters: %(cli_args)s

    Returns
    -------
    int
        The budget in bytes.
    """
    from tealeaves.index.memory import parse_memory

    return parse_memory(args.memory, local=args.scheduler is None)


def build_executor(args, memory: int, progress):
    """A context manager yielding the shard executor the options ask for (None: in this process).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options (``n_jobs``, ``scheduler``).
    memory : int
        The budget of each worker, in bytes.
    progress : Progress
        Told of every shard done.

    Returns
    -------
    contextlib.AbstractContextManager
        Yields the executor, or ``None`` for a build in this process.
    """
    import contextlib

    from tealeaves.errors import ParameterError

    if args.n_jobs is not None and args.scheduler is not None:
        raise ParameterError("--n-jobs and --scheduler exclude each other",
                             fix="give --n-jobs N for a local cluster or --scheduler for an existing one")
    if args.n_jobs is None and args.scheduler is None:
        return contextlib.nullcontext(None)
    from tealeaves.index.dask import check_scheduler, dask_client, dask_executor

    if args.scheduler is not None:
        check_scheduler(args.scheduler)

    @contextlib.contextmanager
    def on_dask():
        with dask_client(args.n_jobs, args.scheduler, memory_per_worker=memory) as client:
            yield dask_executor(client, progress)

    return on_dask()


def _build(args) -> int:
    from pathlib import Path

    from tealeaves.index.streaming import BuildProgress, build_streaming
    from tealeaves.ingest.sources import detect_kind, is_pretokenised

    preprocessor = preprocessor_from_args(args)
    first = args.inputs[0]
    if Path(first).exists():  # (a missing input is refused by the build, naming it)
        check_preprocessing_applies(args, not is_pretokenised(detect_kind(first)), f"input '{first}'")
    memory = memory_budget(args)
    progress = BuildProgress(len(args.inputs))
    with build_executor(args, memory, progress) as executor:
        index, stats = build_streaming(args.inputs, args.output, name=args.name, memory=memory,
                                       text_field=args.text_field, executor=executor, progress=progress,
                                       encoding=args.encoding, preprocessor=preprocessor)
    progress.finish()
    report_skipped(stats)
    _print_info(index, args.format)
    return 0


def report_skipped(stats) -> None:
    """Print what a build skipped (``read N documents; skipped ...``) on stderr, if anything.

    Parameters
    ----------
    stats : IngestStats
        What the build read and skipped.
    """
    if stats.skipped:
        parts = ", ".join(f"{n:,} {why}" for why, n in sorted(stats.skipped.items()))
        print(f"read {stats.documents:,} documents; skipped {parts}", file=sys.stderr)


def _info(args) -> int:
    from tealeaves.errors import ParameterError
    from tealeaves.index.reference import ReferenceIndex

    if args.inputs is not None and not args.verify:
        raise ParameterError("--inputs is only checked with --verify", fix="add --verify")
    index = ReferenceIndex.load(args.reference, verify="always" if args.verify else True, inputs=args.inputs)
    _print_info(index, args.format, verified=args.verify)
    return 0


def open_cost(index) -> dict:
    """What opening ``index``'s file costs, for ``index info`` (one group of lines of its report).

    Parameters
    ----------
    index : ReferenceIndex
        The index, as :meth:`ReferenceIndex.load` opened it (an index just built: not opened).

    Returns
    -------
    dict
        ``verified`` (its checksum and every structural check passed, at this open or recorded at
        an earlier one), ``checked_at_open`` (what this open checked), ``open_bytes`` (what it
        read), ``verified_open_bytes`` (what an open of the verified file reads: header and
        vocabulary), ``verify_bytes`` (what the first open or ``--verify`` reads), and the
        ``n_positions`` the full check goes over (with ``n_postings``, above); of an index not
        opened by :meth:`ReferenceIndex.load` (just built), only ``n_positions``.
    """
    opened = index.opened or {}  # (a build's own index was not opened: its first open checks it whole)
    cost = {"verified": opened.get("verified"), "checked_at_open": opened.get("checked_now"),
            "open_bytes": opened.get("open_bytes"), "verified_open_bytes": opened.get("verified_open_bytes"),
            "verify_bytes": opened.get("verify_bytes"), "n_positions": int(len(index.arrays["positions"]))}
    return {k: v for k, v in cost.items() if v is not None}


def _print_info(index, fmt: str, verified: bool = False) -> None:
    """Print :meth:`ReferenceIndex.info`, :func:`open_cost` and what scoring costs; ``verified`` adds the
    outcome of the full check."""
    from tealeaves.coherence._blocked import scoring_costs

    info = {**index.info(), **open_cost(index), **scoring_costs(index)}
    if verified:
        info["verified"] = True
    if fmt == "json":
        print(dump_json(info))
    else:
        from tealeaves._terminal import escape, escape_rows
        from tealeaves.corpus.preprocess import pattern_name

        tok = info["tokenization"]  # a known pattern by name
        if (known := pattern_name(tok.get("token_pattern"))) is not None:
            info["tokenization"] = {**tok, "token_pattern": known}
        rows = [{"field": k, "value": v if not isinstance(v, dict) else dump_json(v).replace("\n", " ")}
                for k, v in info.items()]
        print(format_table(escape_rows(rows)))  # the name and source come from file names
        if verified:
            print(f"verified: {escape(index.path)} passed the checksum and every structural check")


def _build_aligned_options(p) -> None:
    stands_for(p.add_argument("input", nargs="*", metavar="TUPLES",
                              help='JSON Lines tuple shards {"id": ..., "en": "...", "sv": "..." or null} '
                                   "(gzip/bz2/xz allowed); or use --lang/--doc-ids, or --links/--langlinks "
                                   "with --dump"), "inputs")
    add_line_files(p)
    p.add_argument("--links", default=None,
                   help='JSON Lines of linked Wikipedia titles ({"en": title, "bg": title}) pairing the '
                        "--dump articles")
    p.add_argument("--langlinks", default=None, metavar="[LANG=]SQL",
                   help="the source language's langlinks table (LANG-wiki-latest-langlinks.sql.gz) pairing "
                        "its --dump pages with the other --dump articles")
    stands_for(p.add_argument("--dump", action="append", default=[], metavar="LANG=DUMP",
                              help="a language's MediaWiki pages-articles dump (with --links or "
                                   "--langlinks)"),
               "dumps")
    p.add_argument("--languages", help="comma-separated languages to keep (default: all in the input; for "
                                       "Wikipedia: the --dump languages)")
    add_output(p, required=True, type=checked_arg(check_path, "-o"),
               help="folder to write the reference to (an aligned reference there is replaced)")
    p.add_argument("--name", default=None, type=checked_arg(check_name, "--name"),
                   help="reference name recorded in signatures (default: folder name)")
    p.add_argument("--encoding", default=None, help="encoding of the tuple / line files (default UTF-8)")
    add_scale_options(p)
    add_format_option(p)


def _build_aligned(args) -> int:
    """Build the reference folder (:func:`tealeaves.multilingual.build_aligned_reference`)."""
    from tealeaves._terminal import escape
    from tealeaves.index.streaming import BuildProgress
    from tealeaves.ingest.aligned import parse_lang_files
    from tealeaves.multilingual.aligned_build import build_aligned_reference

    memory = memory_budget(args)
    progress = BuildProgress(max(len(args.input), 1))
    with build_executor(args, memory, progress) as executor:
        ref, stats = build_aligned_reference(
            args.input, args.output, languages=args.languages, lang_files=parse_lang_files(args.lang),
            doc_ids=args.doc_ids, links=args.links, langlinks=args.langlinks, dumps=args.dump, name=args.name,
            encoding=args.encoding, memory=memory, executor=executor, progress=progress)
    progress.finish()
    report_skipped(stats)
    present = {x: int(ref.index.present(x).sum()) for x in ref.languages}
    if args.format == "json":
        print(dump_json({"reference": str(args.output), "label": ref.label, "n_tuples": ref.index.n_tuples,
                         "documents": present,
                         "indices": {x: ix.info() for x, ix in ref.index.indices.items()},
                         "ingest": stats.to_dict()}))
        return 0
    counts = ", ".join(f"{x}: {n}" for x, n in present.items())
    print(f"wrote aligned reference {escape(ref.label)} to {escape(str(args.output))}: {ref.index.n_tuples} "
          f"tuples ({counts} documents)")
    return 0


def _build_aligned_alias(args) -> int:
    print("tealeaves: warning: `tealeaves build-aligned-reference` is deprecated; use `tealeaves index "
          "build-aligned` (same options and output)", file=sys.stderr)
    return _build_aligned(args)
