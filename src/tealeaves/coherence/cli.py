"""Command-line sub-commands: ``tealeaves index build|info`` and ``tealeaves coherence``."""

from __future__ import annotations

from pathlib import Path

from tealeaves._output import add_format_option, dump_json, format_table


def register(subparsers) -> None:
    """Add ``index`` and ``coherence`` to the top-level parser."""
    index = subparsers.add_parser("index", help="build or describe a coherence reference index")
    sub = index.add_subparsers(dest="index_command", metavar="ACTION")
    index.set_defaults(func=lambda args: index.print_help() or 2)

    build = sub.add_parser("build", help="index a reference corpus (one pass) into a file")
    build.add_argument("input", help="a folder of texts, a JSON Lines file, or a one-document-per-line "
                                     "token file")
    build.add_argument("-o", "--output", required=True, help="index file to write (e.g. reuters.tlx)")
    build.add_argument("--name", default=None, help="reference name recorded in signatures "
                                                    "(default: the input's file name)")
    build.add_argument("--text-field", default="text", help="JSON Lines field holding the text")
    add_format_option(build)
    build.set_defaults(func=_build)

    info = sub.add_parser("info", help="describe an index file (verifies its checksum)")
    info.add_argument("reference", help="index file")
    add_format_option(info)
    info.set_defaults(func=_info)

    coh = subparsers.add_parser("coherence", help="score topics against a reference index")
    coh.add_argument("--reference", required=True, help="index file (or a corpus, indexed in memory)")
    coh.add_argument("--topics", required=True, help="text file, one topic per line (most probable word "
                                                     "first), or a saved tealeaves model (.npz)")
    coh.add_argument("--measure", default="npmi", help="umass, uci, npmi or c_v (default npmi)")
    coh.add_argument("--top", type=int, default=10, help="top words per topic (default 10)")
    coh.add_argument("--window", default=None, help="'doc' or a window size in tokens (default: preset's)")
    coh.add_argument("--segmentation", default=None, choices=("one-one", "one-pre", "one-set", "one-all"))
    coh.add_argument("--confirmation", default=None,
                     choices=("log-conditional", "pmi", "log-ratio", "npmi", "cosine"))
    coh.add_argument("--aggregation", default=None, choices=("mean", "median", "sum"))
    coh.add_argument("--smoothing", type=float, default=None, help="pseudo-count added to joint counts")
    coh.add_argument("--zero", default=None, choices=("limit", "epsilon", "zero"),
                     help="value for pairs that never co-occur (default: limit, NPMI -1)")
    coh.add_argument("--gamma", type=float, default=None, help="exponent of C_V's context vectors")
    coh.add_argument("--compat", default=None, choices=("exact", "gensim"), help="window counting")
    coh.add_argument("--pairs", type=int, nargs="*", default=[], metavar="TOPIC",
                     help="also print these topics' word-pair matrices (text output)")
    add_format_option(coh)
    coh.set_defaults(func=_coherence)


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


def _build(args) -> int:
    from tealeaves.coherence.index import build_index

    corpus = read_reference_corpus(args.input, args.text_field)
    name = args.name or Path(args.input).stem
    index = build_index(corpus, name=name, source=str(Path(args.input).resolve()))
    index.save(args.output)
    _print_info(index, args.format)
    return 0


def _info(args) -> int:
    from tealeaves.coherence.index import ReferenceIndex

    _print_info(ReferenceIndex.load(args.reference), args.format)
    return 0


def _print_info(index, fmt: str) -> None:
    info = index.info()
    if fmt == "json":
        print(dump_json(info))
    else:
        rows = [{"field": k, "value": v if not isinstance(v, dict) else dump_json(v).replace("\n", " ")}
                for k, v in info.items()]
        print(format_table(rows))


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
    from tealeaves.coherence.measure import Coherence

    measure = Coherence(args.measure, top_n=args.top, segmentation=args.segmentation, window=args.window,
                        confirmation=args.confirmation, aggregation=args.aggregation,
                        smoothing=args.smoothing, zero=args.zero, gamma=args.gamma, compat=args.compat)
    spec = measure.spec  # validate settings before the (possibly long) work
    del spec
    result = measure.score(args.topics, _as_reference(args.reference))
    if args.format == "json":
        print(dump_json(result.to_dict()))
    else:
        print(result.to_text(args.pairs))
    return 0
