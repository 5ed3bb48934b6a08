"""Command-line sub-commands of tealeaves.reproduce: ``tealeaves reproduce five-term|reuters``."""

from __future__ import annotations

from tealeaves._output import add_format_option, dump_json, format_table

REUTERS_COLUMNS = ("k", "completion_perplexity", "sklearn_perplexity", "vocabulary_size", "stories_split",
                   "heldout_words", "uniform_perplexity", "unigram_perplexity")


def register(subparsers) -> None:
    """Add ``reproduce`` and its sub-commands to the top-level parser."""
    parser = subparsers.add_parser("reproduce", help="reproduce the article's worked examples")
    sub = parser.add_subparsers(dest="example", metavar="EXAMPLE")
    parser.set_defaults(func=lambda args: parser.print_help() or 2)

    five = sub.add_parser("five-term", help="perplexity of four models on the five-term example")
    five.add_argument("--restarts", type=int, default=10, help="pLSA EM restarts (default 10)")
    add_format_option(five)
    five.set_defaults(func=_five_term)

    reuters = sub.add_parser("reuters", help="LDA on Reuters: completion vs sklearn perplexity")
    add_sweep_options(reuters)
    reuters.add_argument("--split-seed", type=int, default=0, help="seed of the half split (default 0)")
    reuters.set_defaults(func=_reuters)

    from tealeaves.reproduce.reuters_coherence import add_parser as add_reuters_coherence

    add_reuters_coherence(sub)

    from tealeaves.multilingual.cli import add_bible_vs_modern_parser  # bible-vs-modern (multilingual area)

    add_bible_vs_modern_parser(sub)


def add_sweep_options(parser) -> None:
    """Options shared by the Reuters sweeps (``fit_reuters_models``): K values, seed, cache, format."""
    parser.add_argument("--k", type=int, nargs="+", default=[5, 10, 20, 40, 80], help="numbers of topics")
    parser.add_argument("--seed", type=int, default=0, help="LDA random_state (default 0)")
    parser.add_argument("--quick", action="store_true", help="fewer LDA iterations (for CI)")
    parser.add_argument("--no-cache", action="store_true", help="refit, ignoring the disk cache")
    parser.add_argument("--cache-dir", default=None, help="fitted-model folder (default: user cache)")
    add_format_option(parser)


def _five_term(args) -> int:
    from tealeaves.reproduce.five_term import five_term_table

    rows = five_term_table(n_restarts=args.restarts)
    if args.format == "json":
        print(dump_json(rows))
    else:
        print(format_table(rows, ["model", "log_likelihood", "perplexity"]))
    return 0


def _reuters(args) -> int:
    from tealeaves.reproduce.reuters import reuters_table

    table = reuters_table(args.k, seed=args.seed, split_seed=args.split_seed, quick=args.quick,
                          cache_dir=args.cache_dir, use_cache=not args.no_cache)
    if args.format == "json":
        print(dump_json(table))
    else:
        print(format_table(table["rows"], REUTERS_COLUMNS, floatfmt=".1f"))
        print(f"settings: {table['settings']['lda']}; split seed {table['settings']['split_seed']}")
    return 0
