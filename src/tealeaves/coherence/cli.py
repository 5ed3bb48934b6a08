"""Command-line sub-command ``tealeaves coherence`` (the ``tealeaves index ...`` commands are in
:mod:`tealeaves.index.cli`)."""

from __future__ import annotations

from pathlib import Path

from tealeaves._cli_args import add_examples, add_param, add_result_output, result_format, stands_for
from tealeaves.coherence.params import (
    ABSENT,
    AGGREGATION,
    CHOICES,
    COMPAT,
    CONFIRMATION,
    GAMMA,
    LOG_BASE,
    MEMORY,
    MIN_COUNT,
    N_TOP,
    PAIRS,
    SEGMENTATION,
    SMOOTHING,
    WINDOW,
    WINDOW_KIND,
    ZERO,
)
from tealeaves.validation import check_unique


def register(subparsers) -> None:
    """Add ``coherence`` to the top-level parser."""
    coh = subparsers.add_parser("coherence", help="score topics against a reference index")
    _add_coherence_options(coh)
    add_result_output(coh, "the scores (CSV/TSV: one row per topic, read by `human correlate`)")
    add_examples(coh, ("NPMI of a model's top 10 words over an index, one row per topic",
                       "tealeaves coherence --reference reuters.tlx --topics model.npz"),
                 ("C_V at 5, 10 and 20 words, written as CSV for `tealeaves human correlate`",
                  "tealeaves coherence --reference reuters.tlx --topics topics.txt --measure c_v "
                  "--n-top 5,10,20 -o scores.csv"))
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

    coh.add_argument("--reference", required=True, help="index file (or a corpus, indexed in memory)")
    coh.add_argument("--topics", required=True, help="topics file (a topic per line, MALLET topic keys, "
                                                     "CSV, JSON or gensim strings) or model file (.npz, "
                                                     "MALLET state/weights...) or a results store's "
                                                     "STORE#MODEL; see docs/models-files.md")
    stands_for(coh.add_argument("--topics-format", default=None,
                                choices=("words", "mallet-keys", "csv", "json", "gensim"),
                                help="format of the --topics file (default: sniffed; see "
                                     "docs/models-files.md)"),
               "format")
    coh.add_argument("--measure", default="npmi",
                     help=f"preset: {', '.join(CHOICES['measure'])} (default npmi; see docs/coherence.md)")
    add_param(coh, N_TOP, type=n_top_arg, default=10, metavar="N[,N...]")
    add_param(coh, WINDOW, default=None, help="'doc' or a window size in tokens (default: the preset's)")
    for param in (SEGMENTATION, CONFIRMATION, AGGREGATION, SMOOTHING, ZERO, GAMMA, COMPAT, LOG_BASE,
                  MIN_COUNT, ABSENT, WINDOW_KIND):
        add_param(coh, param, default=None)
    add_param(coh, PAIRS, nargs="*", default=None, metavar="TOPIC")
    add_param(coh, MEMORY, default="1G", metavar="SIZE")


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
    from tealeaves.coherence._blocked import check_budget, progress_to
    from tealeaves.coherence.errors import SettingsError
    from tealeaves.coherence.measure import Coherence
    from tealeaves.errors import ParameterError

    measure = Coherence(args.measure, n_top=args.n_top, segmentation=args.segmentation, window=args.window,
                        confirmation=args.confirmation, aggregation=args.aggregation,
                        smoothing=args.smoothing, zero=args.zero, gamma=args.gamma, compat=args.compat,
                        log_base=args.log_base, min_count=args.min_count, absent=args.absent,
                        window_kind=args.window_kind, memory=check_budget(args.memory))
    spec = measure.spec  # validate settings before the (possibly long) work
    del spec
    pairs = check_unique(args.pairs or [], "--pairs")
    fmt = result_format(args)
    if pairs and fmt != "text":
        raise SettingsError(f"--pairs prints word-pair matrices in the text report; {fmt} output has none",
                            fix="drop --pairs, or use --format text")
    from tealeaves.models.adapters.paths import load_path

    topics = load_path(args.topics, args.topics_format)
    reference = _as_reference(args.reference)
    with progress_to():  # a long count shows its blocks on a terminal
        result = measure.score(topics, reference)
    n_topics = len(result.topics)
    bad = [t for t in pairs if t >= n_topics]
    if bad:
        raise ParameterError(f"--pairs {bad[0]}: there are {n_topics} topics, numbered 0 to {n_topics - 1}",
                             fix="give topic numbers within that range")
    from tealeaves._output import Result

    Result(result.to_dict(), result.to_records(), text=result.to_text(pairs)).emit(fmt, args.output,
                                                                                  "-o scores file")
    return 0
