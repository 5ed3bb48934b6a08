"""Command-line sub-commands: ``tealeaves index build|info`` and ``tealeaves coherence`` (``index
build-aligned`` is registered by :mod:`tealeaves.multilingual.cli`)."""

from __future__ import annotations

from pathlib import Path

from tealeaves._output import add_format_option, dump_json, format_table
from tealeaves.coherence.params import (
    ABSENT,
    AGGREGATION,
    CHOICES,
    COMPAT,
    CONFIRMATION,
    GAMMA,
    LOG_BASE,
    MIN_COUNT,
    N_TOP,
    SEGMENTATION,
    SMOOTHING,
    WINDOW_KIND,
    ZERO,
)
from tealeaves.validation import check_unique, int_arg, name_arg, path_arg


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


#: The public functions each command of this module calls (read by ``tests/test_naming.py``).
API = {"coherence": ("tealeaves.coherence.measure:coherence", "tealeaves.coherence.measure:Coherence",
                     "tealeaves.coherence.measure:read_topics_file")}


def n_top_arg(text: str) -> int | tuple[int, ...]:
    """argparse type of ``--n-top``: a number of words >= 2, or several separated by commas (5,10,15,20),
    checked by :func:`tealeaves.coherence.measure.check_n_top` (the Python API's check)."""
    import argparse

    from tealeaves._cli_args import option_message
    from tealeaves.coherence.measure import check_n_top
    from tealeaves.errors import ParameterError

    flag = N_TOP.flag
    try:
        return check_n_top([N_TOP.check(p.strip(), allow_str=True) for p in text.split(",")])
    except ParameterError as exc:
        message = option_message(str(exc), N_TOP.name, flag)
        raise argparse.ArgumentTypeError(f"{message} (e.g. {flag} 10 or {flag} 5,10,15,20)") from None


def _add_coherence_options(coh) -> None:
    """The options of ``tealeaves coherence``: the preset, its overrides, and the output.

    Each is built from its declaration in :mod:`tealeaves.coherence.params`, which imports no
    numerical library (``tealeaves --help`` does not load the numba kernels).
    """
    from tealeaves._cli_args import add_param

    coh.add_argument("--reference", required=True, help="index file (or a corpus, indexed in memory)")
    coh.add_argument("--topics", required=True, help="topics file (a topic per line, MALLET topic keys, "
                                                     "CSV, JSON or gensim strings) or model file (.npz, "
                                                     "MALLET state/weights...); see docs/models-files.md")
    coh.add_argument("--topics-format", default=None,
                     choices=("words", "mallet-keys", "csv", "json", "gensim"),
                     help="format of the --topics file (default: sniffed; see docs/models-files.md)")
    coh.add_argument("--measure", default="npmi",
                     help=f"preset: {', '.join(CHOICES['measure'])} (default npmi; see docs/coherence.md)")
    add_param(coh, N_TOP, type=n_top_arg, default=10, metavar="N[,N...]")
    # checked by tealeaves.validation.check_window when the measure is resolved (exit 1, as before)
    coh.add_argument("--window", default=None, help="'doc' or a window size in tokens (default: preset's)")
    for param in (SEGMENTATION, CONFIRMATION, AGGREGATION, SMOOTHING, ZERO, GAMMA, COMPAT, LOG_BASE,
                  MIN_COUNT, ABSENT, WINDOW_KIND):
        add_param(coh, param, default=None)
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

    measure = Coherence(args.measure, n_top=args.n_top, segmentation=args.segmentation, window=args.window,
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
