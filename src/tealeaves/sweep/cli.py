"""Command-line sub-commands: ``tealeaves sweep``, ``tealeaves compare`` and ``tealeaves report``.

CORPUS and ``--test`` are read by :func:`tealeaves.corpus.readers.read_corpus`: a plain file is
one document per line, tokens separated by whitespace; a folder or a JSON Lines file is raw text,
tokenised by the :class:`~tealeaves.corpus.Preprocessor` of the preprocessing options
(``tealeaves._cli_options.add_preprocessing``; their defaults are the Preprocessor's), fitted on CORPUS
(before the split, without ``--test``).  ``--test`` is encoded over the training corpus's vocabulary,
raw text with the same fitted recipe (other words are dropped and counted).
"""

from __future__ import annotations

import argparse

from tealeaves._cli_args import add_examples, add_output, add_param, add_result_output, result_format
from tealeaves._cli_options import add_preprocessing, read_preprocessed
from tealeaves._output import add_format_option, check_output_path, dump_json, format_table
from tealeaves.sweep.params import LEVEL, N_BOOT, N_COMPONENTS, N_JOBS, N_TOP, SEEDS, TEST_FRACTION
from tealeaves.validation import int_arg, seed_arg

#: The public functions each command of this module calls (read by ``tests/test_naming.py``).
API = {
    "sweep": ("tealeaves.sweep.core:sweep", "tealeaves.corpus.preprocess:Preprocessor"),
    "compare": ("tealeaves.sweep.compare:compare_models",),
    "report": ("tealeaves.report.html:write_report", "tealeaves.report.html:choose"),
}

SUMMARY_COLUMNS = ("name", "k", "seed", "completion_perplexity", "unigram_perplexity", "library_perplexity")


def register(subparsers) -> None:
    """Add ``sweep``, ``compare`` and ``report`` to the top-level parser."""
    from tealeaves.sweep.engines import ENGINES

    p = subparsers.add_parser("sweep", help="fit and score topic models over K and seeds into a store",
                              description="Fit every (K, seed) on a training split, score each model "
                              "(completion perplexity with baselines, coherence) and store it in -o; a "
                              "rerun resumes, refitting only models the store lacks.")
    p.add_argument("corpus", help="training corpus (or the whole corpus without --test): a file of "
                   "whitespace-tokenised lines, a JSON Lines file or a folder of text files")
    add_param(p, N_COMPONENTS, nargs="+", required=True, metavar="K")
    add_param(p, SEEDS, default=3)
    p.add_argument("--engine", choices=sorted(ENGINES), default="sklearn",
                   help="fitting engine (default sklearn)")
    p.add_argument("--settings", default=None,
                   help='engine settings as a JSON object, e.g. \'{"max_iter": 20}\' '
                   "(merged over the engine's defaults)")
    p.add_argument("--reference", default=None, help="reference index file for coherence "
                   "(default: the training corpus)")
    p.add_argument("--measures", default="npmi", help="comma-separated coherence measures (default npmi)")
    add_param(p, N_TOP, default=10)
    p.add_argument("--test", default=None,
                   help="test documents (default: hold out --test-fraction of CORPUS)")
    add_param(p, TEST_FRACTION, default=None)
    p.add_argument("--split-seed", type=seed_arg, default=0,
                   help="seed of the train/test split and of the held-out halves (default 0)")
    add_output(p, required=True, help="results store (SQLite) to create or resume")
    add_param(p, N_JOBS, default=1)
    p.add_argument("--scheduler", default=None, help="address of a running Dask scheduler to fit on")
    add_format_option(p)
    add_preprocessing(p)
    add_examples(p, ("LDA at K = 10, 20, 40 with 3 seeds each on a folder of texts",
                     "tealeaves sweep corpus/ -k 10 20 40 -o results.sqlite"),
                    ("Gibbs LDA on 2 processes, with given test documents and two coherence measures",
                     "tealeaves sweep train.txt --test test.txt -k 20 --engine gibbs --measures npmi,umass "
                     "-j 2 -o results.sqlite"))
    p.set_defaults(func=_sweep)

    c = subparsers.add_parser("compare", help="compare two stored models with bootstrap intervals")
    c.add_argument("results", nargs="+", help="results store; a second store holds model B")
    c.add_argument("--models", nargs=2, required=True, metavar=("A", "B"),
                   help="model names, e.g. sklearn-K10-s0")
    c.add_argument("--measure", default=None, help="coherence measure (default: the sweep's first)")
    add_param(c, N_BOOT, default=2000)
    add_param(c, LEVEL, default=0.95)
    c.add_argument("--seed", type=seed_arg, default=0, help="bootstrap seed (default 0)")
    add_result_output(c, "the differences (CSV/TSV: one row per quantity)")
    add_examples(c, ("K=10 against K=20 of one sweep: held-out log-likelihood and mean coherence, A - B",
                     "tealeaves compare results.sqlite --models sklearn-K10-s0 sklearn-K20-s0"),
                    ("models of two stores, the intervals written as CSV",
                     "tealeaves compare a.sqlite b.sqlite --models sklearn-K10-s0 gibbs-K10-s0 -o diff.csv"))
    c.set_defaults(func=_compare)

    r = subparsers.add_parser("report", help="a self-contained HTML report of a results store")
    r.add_argument("results", help="results store written by tealeaves sweep")
    add_output(r, help="report file (HTML; JSON with --format json; default for JSON: standard output)")
    r.add_argument("--format", choices=("html", "json"), default="html", help="output format (default html)")
    r.add_argument("--figures", default=None, help="also write every figure as PNG into this folder")
    r.add_argument("--model", default=None,
                   help="model of the per-topic figures (default: best mean coherence)")
    r.add_argument("--topic", type=int_arg(0, name="--topic"), default=None,
                   help="topic of the pair heatmap (default: the model's least coherent)")
    add_examples(r, ("a self-contained HTML report of a sweep",
                     "tealeaves report results.sqlite -o report.html"),
                    ("every number of the report as JSON (read by `tealeaves human correlate`)",
                     "tealeaves report results.sqlite --format json -o report.json"))
    r.set_defaults(func=_report)


def _settings(text: str | None) -> dict | None:
    import json

    from tealeaves.errors import ParameterError

    if text is None:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParameterError(f"--settings is not valid JSON ({exc.msg})",
                             fix='give a JSON object, e.g. \'{"max_iter": 20}\'') from None
    if not isinstance(value, dict):
        raise ParameterError("--settings must be a JSON object", fix='e.g. \'{"max_iter": 20}\'')
    return value


def _fitted(train):
    """The training corpus's recipe fitted to its vocabulary (raw test text is encoded over it), or None."""
    from tealeaves.corpus.preprocess import Preprocessor

    recipe = train.preprocessing
    return Preprocessor.from_params(recipe, train.vocabulary) if recipe is not None else None


def _sweep(args: argparse.Namespace) -> int:
    from tealeaves.errors import ParameterError
    from tealeaves.sweep.core import sweep

    if args.test is not None and args.test_fraction is not None:
        raise ParameterError("--test and --test-fraction both given", fix="give test documents or a fraction")
    settings = _settings(args.settings)
    measures = [m.strip() for m in args.measures.split(",") if m.strip()]
    if not measures:
        raise ParameterError("--measures lists no measure", fix="e.g. --measures npmi,umass")
    check_output_path(args.output + ".probe", "-o results store")
    corpus = read_preprocessed(args, args.corpus)  # raw text: the preprocessing options, fitted here
    test = (read_preprocessed(args, args.test, _fitted(corpus), corpus.vocabulary)
            if args.test is not None else None)
    done = sweep(corpus, args.n_components, args.seeds, args.engine, args.output, test=test,
                 test_fraction=0.2 if args.test_fraction is None else args.test_fraction,
                 split_seed=args.split_seed, reference=args.reference, measures=measures, n_top=args.n_top,
                 settings=settings, n_jobs=args.n_jobs, scheduler=args.scheduler)
    if args.format == "json":
        print(dump_json(done))
    else:
        print(f"{len(done['fitted'])} models fitted, {len(done['skipped'])} already stored; "
              f"results in {done['output']} (tealeaves report {done['output']} -o report.html)")
    return 0


def _compare(args: argparse.Namespace) -> int:
    from tealeaves.errors import ParameterError
    from tealeaves.sweep.compare import compare_models
    from tealeaves.sweep.results import load_results

    if len(args.results) > 2:
        raise ParameterError(f"compare takes one or two results stores, got {len(args.results)}",
                             fix="give RESULTS, or RESULTS_A RESULTS_B")
    fmt = result_format(args)
    a = load_results(args.results[0])
    b = load_results(args.results[1]) if len(args.results) == 2 else a
    out = compare_models(a, args.models[0], b, args.models[1], args.measure, args.n_boot, args.level,
                         args.seed)
    from tealeaves._output import Result

    rows = [{"quantity": name, "A - B": part["estimate"], "low": part["low"], "high": part["high"]}
            for name, part in (("loglik per held-out word", out["loglik_per_word"]),
                               (f"mean {(out.get('coherence') or {}).get('of')}", out.get("coherence")))
            if part is not None]
    text = (f"A = {args.models[0]}, B = {args.models[1]}; {int(args.level * 100)}% bootstrap intervals "
            f"({args.n_boot} replicates, seed {args.seed})\n" + format_table(rows, floatfmt=".4f"))
    Result(out, rows, text=text).emit(fmt, args.output, "-o comparison file")
    return 0


def _report(args: argparse.Namespace) -> int:
    from tealeaves.errors import ParameterError
    from tealeaves.report.html import choose, report_data, write_figures, write_report
    from tealeaves.sweep.results import load_results

    if args.format == "html" and args.output is None:
        raise ParameterError("the HTML report needs -o", fix="e.g. -o report.html")
    if args.output is not None:
        check_output_path(args.output, "-o report file")
    results = load_results(args.results)
    choice = choose(results, args.model, args.topic)
    if args.format == "json":
        text = dump_json(report_data(results, choice))
        if args.output is None:
            print(text)
        else:
            from tealeaves._io import write_text

            write_text(args.output, text + "\n", what="report file")
        if args.figures:
            write_figures(results, args.figures, choice)
        return 0
    write_report(results, args.output, choice, args.figures)
    print(f"report written to {args.output}")
    return 0
