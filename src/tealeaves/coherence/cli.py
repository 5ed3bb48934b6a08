"""Command-line sub-commands: ``tealeaves index build|info`` and ``tealeaves coherence`` (``index
build-aligned`` is registered by :mod:`tealeaves.multilingual.cli`)."""

from __future__ import annotations

from pathlib import Path

from tealeaves._output import add_format_option, dump_json, format_table
from tealeaves.validation import check_int, check_unique, float_arg, int_arg, name_arg, path_arg


def register(subparsers) -> None:
    """Add ``index`` and ``coherence`` to the top-level parser."""
    index = subparsers.add_parser("index", help="build or describe a coherence reference index")
    sub = index.add_subparsers(dest="index_command", metavar="ACTION")
    index.set_defaults(func=lambda args: index.print_help() or 2)
    index.actions = sub  # `index build-aligned` is added by tealeaves.multilingual.cli

    build = sub.add_parser("build", help="index reference corpus shards (streamed, bounded memory) into "
                                         "a file")
    build.add_argument("inputs", nargs="+", metavar="INPUT",
                       help="shards: folders of texts, JSON Lines, Parquet, MediaWiki XML dumps, or "
                            "one-document-per-line token files; each may be gzip/bz2/xz compressed")
    build.add_argument("-o", "--output", required=True, type=path_arg("-o"),
                       help="index file to write (e.g. reuters.tlx)")
    build.add_argument("--name", default=None, type=name_arg(), help="reference name recorded in signatures "
                                                    "(default: the first input's file name)")
    build.add_argument("--text-field", default="text", help="JSON Lines / Parquet field holding the text")
    build.add_argument("--encoding", default=None,
                       help="encoding of text inputs (token lines, JSON Lines, folders; default UTF-8)")
    add_scale_options(build)
    add_format_option(build)
    build.set_defaults(func=_build)

    info = sub.add_parser("info", help="describe an index file (checks its structure and checksum)")
    info.add_argument("reference", help="index file")
    info.add_argument("--verify", action="store_true",
                      help="re-hash the file (ignoring the verified-state cache) and report the outcome of "
                           "the full check as 'verified'")
    info.add_argument("--inputs", nargs="+", default=None, metavar="INPUT",
                      help="with --verify: also check these inputs against the index's shard manifest")
    add_format_option(info)
    info.set_defaults(func=_info)

    coh = subparsers.add_parser("coherence", help="score topics against a reference index")
    _add_coherence_options(coh)
    add_format_option(coh)
    coh.set_defaults(func=_coherence)


def top_arg(text: str) -> int | tuple[int, ...]:
    """argparse type of ``--top``: a number of words >= 2, or several separated by commas (5,10,15,20)."""
    import argparse

    from tealeaves.coherence.measure import check_top_n
    from tealeaves.errors import ParameterError

    parts = [p.strip() for p in text.split(",")]
    try:
        values = [check_int(p, "--top", min_value=2, allow_str=True) for p in parts]
        return check_top_n(values)
    except ParameterError as exc:
        raise argparse.ArgumentTypeError(f"{exc} (e.g. --top 10 or --top 5,10,15,20)") from None


#: Choices of the coherence options (the modules' constants, checked equal by the tests).
CHOICES = {
    "segmentation": ("one-one", "one-pre", "one-succeeding", "one-set", "one-all", "one-any", "any-any"),
    "confirmation": ("log-conditional", "pmi", "log-ratio", "npmi", "difference", "ratio", "fitelson",
                     "jaccard", "log-jaccard", "likelihood", "log-likelihood", "cosine", "dice",
                     "indirect-jaccard"),
    "aggregation": ("mean", "median", "sum"),
    "zero": ("limit", "epsilon", "zero"),
    "compat": ("exact", "gensim", "jhlau"),
    "log_base": ("e", "2", "10"),
    "absent": ("skip", "zero"),
    "window_kind": ("sliding", "context"),
    "measure": ("umass", "uci", "npmi", "c_v", "jhlau_pmi", "jhlau_npmi", "palmetto_umass", "palmetto_uci",
                "palmetto_npmi", "c_a", "c_p", "palmetto_c_v"),
}


def _add_coherence_options(coh) -> None:
    """The options of ``tealeaves coherence``: the preset, its overrides, and the output.

    The choices are spelled out in :data:`CHOICES` so that ``tealeaves --help`` does not
    import the numba kernels; ``tests/test_coherence_compat.py`` checks them against the modules.
    """
    coh.add_argument("--reference", required=True, help="index file (or a corpus, indexed in memory)")
    coh.add_argument("--topics", required=True, help="topics file (a topic per line, MALLET topic keys, "
                                                     "CSV, JSON or gensim strings) or model file (.npz, "
                                                     "MALLET state/weights...); see docs/models-files.md")
    coh.add_argument("--topics-format", default=None,
                     choices=("words", "mallet-keys", "csv", "json", "gensim"),
                     help="format of the --topics file (default: sniffed; see docs/models-files.md)")
    coh.add_argument("--measure", default="npmi",
                     help=f"preset: {', '.join(CHOICES['measure'])} (default npmi; see docs/coherence.md)")
    coh.add_argument("--top", type=top_arg, default=10, metavar="N[,N...]",
                     help="top words per topic (default 10); several, e.g. 5,10,15,20, give the mean over "
                          "those cardinalities")
    # checked by tealeaves.validation.check_window when the measure is resolved (exit 1, as before)
    coh.add_argument("--window", default=None, help="'doc' or a window size in tokens (default: preset's)")
    coh.add_argument("--segmentation", default=None, choices=CHOICES["segmentation"])
    coh.add_argument("--confirmation", default=None, choices=CHOICES["confirmation"])
    coh.add_argument("--aggregation", default=None, choices=CHOICES["aggregation"])
    coh.add_argument("--smoothing", type=float_arg(0, name="--smoothing"), default=None,
                     help="pseudo-count added to joint counts (>= 0)")
    coh.add_argument("--zero", default=None, choices=CHOICES["zero"],
                     help="value for pairs that never co-occur (default: limit, NPMI -1)")
    coh.add_argument("--gamma", type=float_arg(0, name="--gamma", include_min=False), default=None,
                     help="exponent of the context vectors of indirect confirmations (> 0)")
    coh.add_argument("--compat", default=None, choices=CHOICES["compat"], help="sliding-window counting")
    coh.add_argument("--log-base", default=None, choices=CHOICES["log_base"],
                     help="base of the logarithms of PMI, log-conditional, log-Jaccard (default e)")
    coh.add_argument("--min-count", type=int_arg(0, name="--min-count"), default=None,
                     help="counts below this are taken as 0 (Palmetto's minimum frequency)")
    coh.add_argument("--absent", default=None, choices=CHOICES["absent"],
                     help="segments with a word of probability 0: left out (skip) or scored 0 (zero)")
    coh.add_argument("--window-kind", default=None, choices=CHOICES["window_kind"],
                     help="boolean sliding windows, or Palmetto's context windows (C_A)")
    coh.add_argument("--pairs", type=int_arg(0, name="--pairs"), nargs="*", default=[], metavar="TOPIC",
                     help="also print these topics' word-pair matrices (text output)")


def read_reference_corpus(path: str | Path, text_field: str = "text"):
    """Read a reference corpus with :func:`tealeaves.corpus.readers.read_corpus`.

    A folder of texts or a JSON Lines file is tokenised with the default
    :class:`~tealeaves.corpus.Preprocessor` (recorded in the index); any other
    file is read as one already tokenised document per line.
    """
    from tealeaves.corpus.readers import read_corpus
    from tealeaves.errors import TealeavesError

    try:
        corpus = read_corpus(path, text_field=text_field)
    except FileNotFoundError as exc:
        raise TealeavesError(str(exc)) from exc
    corpus.require_nonempty("reference corpus")
    if not corpus.metadata.get("preprocessing"):
        corpus.metadata["preprocessing"] = {"tokenizer": "whitespace (pre-tokenised, one document per line)"}
    return corpus


def add_scale_options(parser) -> None:
    """--memory, --workers and --scheduler of the streaming/sharded builds (docs/scale.md)."""
    from tealeaves.validation import int_arg

    parser.add_argument("--memory", default="1G", help="memory budget of each build process (default 1G; "
                                                       "e.g. 512M, 4G; at least 400M, at most the "
                                                       "machine's physical memory)")
    parser.add_argument("--workers", type=int_arg(1, 1024, "--workers"), default=None,
                        help="build the shards on a local Dask cluster of this many worker processes")
    parser.add_argument("--scheduler", default=None, help="build on an existing Dask cluster (tcp://host:port)")


def memory_budget(args) -> int:
    """``--memory`` of a build (:func:`tealeaves.distributed.build.parse_memory`; bounded by this machine's
    physical memory unless the build runs on ``--scheduler``)."""
    from tealeaves.distributed.build import parse_memory

    return parse_memory(args.memory, local=args.scheduler is None)


def build_executor(args, memory: int, progress):
    """A context manager yielding the shard executor the options ask for (None: in this process)."""
    import contextlib

    from tealeaves.errors import ParameterError

    if args.workers is not None and args.scheduler is not None:
        raise ParameterError("--workers and --scheduler exclude each other",
                             fix="give --workers N for a local cluster or --scheduler for an existing one")
    if args.workers is None and args.scheduler is None:
        return contextlib.nullcontext(None)
    from tealeaves.distributed.dask import check_scheduler, dask_client, dask_executor

    if args.scheduler is not None:
        check_scheduler(args.scheduler)

    @contextlib.contextmanager
    def on_dask():
        with dask_client(args.workers, args.scheduler, memory_per_worker=memory) as client:
            yield dask_executor(client, progress)

    return on_dask()


def _build(args) -> int:
    from tealeaves.distributed.build import Progress, build_streaming

    memory = memory_budget(args)
    progress = Progress(len(args.inputs))
    with build_executor(args, memory, progress) as executor:
        index, stats = build_streaming(args.inputs, args.output, name=args.name, memory=memory,
                                       text_field=args.text_field, executor=executor, progress=progress,
                                       encoding=args.encoding)
    progress.finish()
    report_skipped(stats)
    _print_info(index, args.format)
    return 0


def report_skipped(stats) -> None:
    import sys

    if stats.skipped:
        parts = ", ".join(f"{n:,} {why}" for why, n in sorted(stats.skipped.items()))
        print(f"read {stats.documents:,} documents; skipped {parts}", file=sys.stderr)


def _info(args) -> int:
    from tealeaves.coherence.index import ReferenceIndex
    from tealeaves.errors import ParameterError

    if args.inputs is not None and not args.verify:
        raise ParameterError("--inputs is only checked with --verify", fix="add --verify")
    index = ReferenceIndex.load(args.reference, verify="always" if args.verify else True, inputs=args.inputs)
    _print_info(index, args.format, verified=args.verify)
    return 0


def _print_info(index, fmt: str, verified: bool = False) -> None:
    """Print :meth:`ReferenceIndex.info`; ``verified`` adds the outcome of the full check."""
    info = index.info()
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
                for k, v in info.items() if k != "verified"]
        print(format_table(escape_rows(rows)))  # the name and source come from file names
        if verified:
            print(f"verified: {escape(index.path)} passed the checksum and every structural check")


def _as_reference(path: str):
    from tealeaves.coherence.index import MAGIC, ReferenceIndex, build_index

    p = Path(path)
    if p.is_file():
        with open(p, "rb") as fh:
            if fh.read(len(MAGIC)) == MAGIC:
                return ReferenceIndex.load(p)
    corpus = read_reference_corpus(p)
    return build_index(corpus, name=p.stem, source=str(p.resolve()))


def _coherence(args) -> int:
    from tealeaves.coherence.errors import SettingsError
    from tealeaves.coherence.measure import Coherence
    from tealeaves.errors import ParameterError

    measure = Coherence(args.measure, top_n=args.top, segmentation=args.segmentation, window=args.window,
                        confirmation=args.confirmation, aggregation=args.aggregation,
                        smoothing=args.smoothing, zero=args.zero, gamma=args.gamma, compat=args.compat,
                        log_base=args.log_base, min_count=args.min_count, absent=args.absent,
                        window_kind=args.window_kind)
    spec = measure.spec  # validate settings before the (possibly long) work
    del spec
    pairs = check_unique(args.pairs, "--pairs")
    if pairs and args.format == "json":
        raise SettingsError("--pairs prints word-pair matrices in the text report; JSON output has none",
                            fix="drop --pairs, or use --format text")
    from tealeaves.models.adapters.paths import load_path

    result = measure.score(load_path(args.topics, args.topics_format), _as_reference(args.reference))
    n_topics = len(result.topics)
    bad = [t for t in pairs if t >= n_topics]
    if bad:
        raise ParameterError(f"--pairs {bad[0]}: there are {n_topics} topics, numbered 0 to {n_topics - 1}",
                             fix="give topic numbers within that range")
    if args.format == "json":
        print(dump_json(result.to_dict()))
    else:
        print(result.to_text(pairs))
    return 0
