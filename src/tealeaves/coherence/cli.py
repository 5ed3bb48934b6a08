"""Command-line sub-command ``tealeaves coherence`` (the ``tealeaves index ...`` commands are in
:mod:`tealeaves.index.cli`)."""

from __future__ import annotations

from pathlib import Path

from tealeaves._output import add_format_option, dump_json
from tealeaves.validation import check_int, check_unique, float_arg, int_arg


def register(subparsers) -> None:
    """Add ``coherence`` to the top-level parser."""
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


def _as_reference(path: str):
    from tealeaves.index import MAGIC, ReferenceIndex, build_index

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
