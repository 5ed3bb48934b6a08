"""Command-line sub-commands of tealeaves.reproduce: ``tealeaves reproduce five-term|reuters|...``.

Every option is validated at the boundary, by the declarations of :mod:`tealeaves.reproduce.params`
(the Python functions check the same): numbers of topics ``-k/--n-components`` are whole
numbers >= 2, each given once (rows come in the order given); seeds are whole numbers in
[0, 2**32 - 1]; counts (restarts, iterations, dimensions, top words) are whole numbers >= their
minimum.  An output file (``--topics-csv``) is checked before the run starts and written
atomically.
"""

from __future__ import annotations

from tealeaves._cli_args import add_param, add_result_output, result_format
from tealeaves._cli_shared import add_command, add_command_group
from tealeaves._output import add_format_option, check_output_path, dump_json, format_table
from tealeaves._params import SEED, SPLIT_SEED
from tealeaves.reproduce.params import LSI_DIMENSIONS, N_COMPONENTS, N_ITER, N_RESTARTS, N_TOP
from tealeaves.validation import check_unique

#: The public functions each command of this module calls (read by ``tests/test_naming.py``).
API = {
    "reproduce five-term": ("tealeaves.reproduce.five_term:five_term_table",),
    "reproduce reuters": ("tealeaves.reproduce.reuters:reuters_table",),
    "reproduce reuters-coherence": ("tealeaves.reproduce.reuters_coherence:reuters_coherence_table",),
    "reproduce bible-vs-modern": ("tealeaves.reproduce.bible_vs_modern:Config",
                                  "tealeaves.reproduce.bible_vs_modern:run"),
    "reproduce hao2018": ("tealeaves.reproduce.hao2018:Config", "tealeaves.reproduce.hao2018:run"),
}

REUTERS_COLUMNS = ("k", "completion_perplexity", "sklearn_perplexity", "vocabulary_size", "stories_split",
                   "heldout_words", "uniform_perplexity", "unigram_perplexity")


def register(subparsers) -> None:
    """Add ``reproduce`` and its sub-commands to the top-level parser."""
    sub = add_command_group(subparsers, "reproduce", "example", "EXAMPLE",
                            [("the article's five-term example: perplexity of four models",
                              "tealeaves reproduce five-term"),
                             ("completion against scikit-learn perplexity on Reuters, reduced for a quick "
                              "look",
                              "tealeaves reproduce reuters --quick")],
                            help="reproduce the article's worked examples")

    five = add_command(sub, "five-term", _five_term,
                       [("the table of the article, 10 restarts per model", "tealeaves reproduce five-term"),
                        ("as JSON, with more restarts",
                         "tealeaves reproduce five-term --n-restarts 50 --format json")],
                       help="perplexity of four models on the five-term example")
    add_param(five, N_RESTARTS, default=10)
    add_result_output(five, "the table (CSV/TSV: one row per model)")

    reuters = add_command(sub, "reuters", _reuters,
                          [("the article's Reuters table at K = 5, 10, 20, 40, 80",
                            "tealeaves reproduce reuters"),
                           ("two K, fewer iterations, with the story as an HTML report",
                            "tealeaves reproduce reuters -k 10 20 --quick --report reuters.html")],
                          help="LDA on Reuters: completion vs sklearn perplexity")
    add_sweep_options(reuters)
    add_param(reuters, SPLIT_SEED, default=0, help="seed of the half split")
    reuters.add_argument("--report", default=None,
                         help="also write the article's story as an HTML report to this file")

    coh = add_command(sub, "reuters-coherence", _reuters_coherence,
                      [("mean NPMI of LDA on Reuters by K, and LSI at 20 dimensions",
                        "tealeaves reproduce reuters-coherence"),
                       ("quick, as JSON",
                        "tealeaves reproduce reuters-coherence -k 10 20 --quick --format json")],
                      help="mean NPMI of LDA on Reuters by K, and LSI at 20")
    add_sweep_options(coh)
    add_param(coh, N_TOP, default=10)
    add_param(coh, LSI_DIMENSIONS, default=20)
    add_bible_vs_modern_parser(sub)
    add_hao2018_parser(sub)


def add_sweep_options(parser) -> None:
    """Options shared by the Reuters sweeps (``fit_reuters_models``): K values, seed, cache, format."""
    add_param(parser, N_COMPONENTS, nargs="+", default=[5, 10, 20, 40, 80], metavar="K",
              help=f"{N_COMPONENTS.help} (default 5 10 20 40 80)")
    add_param(parser, SEED, default=0, help="LDA random_state")
    parser.add_argument("--quick", action="store_true", help="fewer LDA iterations (for CI)")
    parser.add_argument("--no-cache", action="store_true", help="refit, ignoring the disk cache")
    parser.add_argument("--cache-dir", default=None, help="fitted-model folder (default: user cache)")
    add_result_output(parser, "the table (CSV/TSV: one row per K)")


def sweep_ks(args) -> list[int]:
    """``--n-components`` checked for duplicates (each value is range-checked by its argparse type)."""
    return check_unique(args.n_components, N_COMPONENTS.flag)


def _five_term(args) -> int:
    from tealeaves._output import Result
    from tealeaves.reproduce.five_term import five_term_table

    fmt = result_format(args)
    rows = five_term_table(n_restarts=args.n_restarts)
    columns = ["model", "log_likelihood", "perplexity"]
    Result(rows, rows, columns, text=format_table(rows, columns)).emit(fmt, args.output, "-o table file")
    return 0


def _reuters(args) -> int:
    from tealeaves._output import Result
    from tealeaves.reproduce.reuters import fit_reuters_models, load_corpora, reuters_table

    fmt = result_format(args)
    corpora = models = None
    if args.report is not None:
        check_output_path(args.report, "--report file")
        corpora = load_corpora()
        models = fit_reuters_models(sweep_ks(args), args.seed, args.quick, args.cache_dir, not args.no_cache,
                                    corpora[0])
    table = reuters_table(sweep_ks(args), seed=args.seed, split_seed=args.split_seed, quick=args.quick,
                          cache_dir=args.cache_dir, use_cache=not args.no_cache, corpora=corpora,
                          models=models)
    if args.report is not None:
        _reuters_report(args, corpora, models)
    text = (format_table(table["rows"], REUTERS_COLUMNS, floatfmt=".1f")
            + f"\nsettings: {table['settings']['lda']}; split seed {table['settings']['split_seed']}")
    Result(table, table["rows"], REUTERS_COLUMNS, text=text).emit(fmt, args.output, "-o table file")
    return 0


def _reuters_report(args, corpora, models: dict) -> None:
    """The reproduction's models scored by a sweep (same split, NPMI on the training stories), as a report."""
    import tempfile
    from pathlib import Path

    from tealeaves.report.html import write_report
    from tealeaves.report.story import k_story
    from tealeaves.reproduce.reuters import ARTICLE, lda_params
    from tealeaves.sweep import Engine, load_results, sweep

    params = {k: v for k, v in lda_params(args.seed, args.quick).items() if k != "random_state"}
    engine = Engine("sklearn", lambda _train, k, _seed, _settings: models[k], params)  # the fitted models
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "reuters.sqlite"
        sweep(corpora[0], list(models), seeds=[args.seed], engine=engine, output=store, test=corpora[1],
              split_seed=args.split_seed, measures=["npmi"], n_top=10, progress=False)
        results = load_results(store)
    article = ", ".join(f"{a} / {b} (K={k})" for k, (a, b) in ARTICLE.items())
    story = k_story(results, "npmi") + [f"The article's document-completion / scikit-learn perplexities: "
                                         f"{article}."]
    write_report(results, args.report, title="Reuters: choosing the number of topics", story=story)


def add_bible_vs_modern_parser(subparsers) -> None:
    """Register ``bible-vs-modern`` under ``tealeaves reproduce``."""
    from tealeaves.multilingual.names import HAO2018_LANGUAGES

    p = add_command(subparsers, "bible-vs-modern", _bible_vs_modern,
                    [("the reduced run (4 languages, one model each)",
                      "tealeaves reproduce bible-vs-modern --quick"),
                     ("the full run as a Markdown table",
                      "tealeaves reproduce bible-vs-modern --format markdown")],
                    help="Bible-to-modern coherence estimator (Hao et al. 2018)")
    _add_config_options(p, "reduced CI size (4 languages, one model each)",
                        f"at least three of {', '.join(HAO2018_LANGUAGES)} (each paired with English), "
                        "each once")
    p.add_argument("--rich", choices=("heldout", "all"), default="heldout",
                   help="rich reference: modern tuples not used for training (default) or all of them")
    add_param(p, N_ITER, default=None, help=f"{N_ITER.help} (default: 400, or 100 with --quick)")
    p.add_argument("--topics-csv", default=None, help="also write the per-topic feature table here")
    add_format_option(p, markdown=True)


def _add_config_options(p, quick: str, languages: str) -> None:
    """``--quick`` and ``--languages`` with their help texts: the options :func:`_multilingual_config` reads
    besides ``--n-iter``."""
    p.add_argument("--quick", action="store_true", help=quick)
    p.add_argument("--languages", nargs="+", default=None, help=languages)


def _multilingual_config(args, config_cls):
    """The reproduction's ``Config`` (``--quick`` size or full) with ``--languages`` (canonical codes,
    each once) and ``--n-iter`` applied: the options ``bible-vs-modern`` and ``hao2018`` share."""
    from tealeaves.corpus.aligned import normalize_language

    config = config_cls.quick() if args.quick else config_cls()
    if args.languages:
        config.languages = tuple(check_unique([normalize_language(x) for x in args.languages], "--languages"))
    if args.n_iter is not None:
        config.n_iter = args.n_iter
    return config


def _bible_vs_modern(args) -> int:
    import sys

    from tealeaves._io import atomic_write
    from tealeaves.reproduce.bible_vs_modern import Config, markdown, report, run

    config = _multilingual_config(args, Config)
    config.rich = args.rich
    if args.topics_csv:
        check_output_path(args.topics_csv, "--topics-csv")
    result = run(config, log=lambda m: print(m, file=sys.stderr))
    if args.topics_csv:
        with atomic_write(args.topics_csv, what="--topics-csv file") as fh:
            result["topics"].to_csv(fh, index=False)
    result.pop("topics")
    print({"json": dump_json, "markdown": markdown}.get(args.format, report)(result))
    return 0


def add_hao2018_parser(subparsers) -> None:
    """Register ``hao2018`` under ``tealeaves reproduce`` (Figures 6, 7, 8, 10 of Hao et al. 2018)."""
    p = add_command(subparsers, "hao2018", _hao2018,
                    [("Figure 6 (topic cardinality), reduced",
                      "tealeaves reproduce hao2018 --figure 6 --quick"),
                     ("Figure 7, its plots written into a folder",
                      "tealeaves reproduce hao2018 --figure 7 --figures figs")],
                    help="Hao et al. (2018) Figures 6, 7, 8, 10: cardinality, links, classification, "
                         "reference size")
    p.add_argument("--figure", type=int, choices=(6, 7, 8, 10), required=True, help="figure to reproduce")
    _add_config_options(p, "reduced CI size (one language, small models)",
                        "languages paired with English, each once")
    add_param(p, N_ITER, default=None, help=f"{N_ITER.help} (default: 400, or 60 with --quick)")
    p.add_argument("--figures", default=None, help="also write the plot as DIR/hao2018_figN.png")
    p.add_argument("--design", choices=("links", "pooled-k"), default=None,
                   help="Figure 8's models: links (Section 6.1's: one K, link fractions 0..100%%, every "
                        "seed; default) or pooled-k (K = 10/20/40 x links 0/50/100%% x seeds 0/1)")
    p.add_argument("--rich-unit", type=_rich_unit_arg, default=None,
                   help="Figures 8 and 10: unit of the non-FLORES rich reference: document, sentence "
                        "(default) or N >= 1 (runs of N consecutive sentences of one document)")
    add_format_option(p, markdown=True)


def _rich_unit_arg(text: str) -> str:
    """argparse type of ``--rich-unit``: ``document``, ``sentence`` or a whole number >= 1."""
    import argparse

    from tealeaves.errors import ParameterError
    from tealeaves.reproduce.hao2018 import unit_group

    try:
        unit_group(text)
    except ParameterError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _hao2018(args) -> int:
    import sys
    from pathlib import Path

    from tealeaves.errors import ParameterError
    from tealeaves.reproduce.hao2018 import Config, markdown, plot, report, run

    config = _multilingual_config(args, Config)
    for option, name, figures in (("design", "--design", (8,)), ("rich_unit", "--rich-unit", (8, 10))):
        value = getattr(args, option)
        if value is not None and args.figure not in figures:
            raise ParameterError(f"{name} applies to --figure {' and '.join(map(str, figures))} only",
                                 fix=f"drop {name} or choose --figure {figures[0]}")
        if value is not None:
            setattr(config, option, value)
    png = None
    if args.figures:
        png = Path(args.figures) / f"hao2018_fig{args.figure}.png"
        check_output_path(png, "--figures plot")
    result = run(args.figure, config, log=lambda m: print(f"tealeaves: {m}", file=sys.stderr))
    if png is not None:
        plot(result, png)
    result.pop("features", None)
    print({"json": dump_json, "markdown": markdown}.get(args.format, report)(result))
    return 0


def _reuters_coherence(args) -> int:
    from tealeaves._output import Result
    from tealeaves.reproduce.reuters_coherence import ARTICLE_LSI_20, ARTICLE_NPMI, reuters_coherence_table

    fmt = result_format(args)
    table = reuters_coherence_table(sweep_ks(args), seed=args.seed, quick=args.quick, n_top=args.n_top,
                                    lsi_dimensions=args.lsi_dimensions, cache_dir=args.cache_dir,
                                    use_cache=not args.no_cache)
    columns = ["k", "mean_npmi", "article_npmi", "min_topic", "max_topic"]
    rows = [{**r, "article_npmi": "-" if r["article_npmi"] is None else f"{r['article_npmi']:.3f}"}
            for r in table["rows"]]
    lsi = table["lsi"]
    lda = "-" if lsi["lda_same_k"] is None else f"{lsi['lda_same_k']:.3f}"
    text = "\n".join([format_table(rows, columns),
                      f"\nLSI, {lsi['dimensions']} dimensions: mean NPMI {lsi['mean_npmi']:.3f} "
                      f"(LDA at the same K: {lda}; article: LSI {ARTICLE_LSI_20}, LDA {ARTICLE_NPMI[20]})",
                      f"peak at K={table['peak_k']}; settings {table['settings']['lda']}",
                      table["signature"]])
    Result(table, table["rows"], columns, text=text).emit(fmt, args.output, "-o table file")
    return 0
