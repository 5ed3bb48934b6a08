"""Command-line sub-commands: ``tealeaves sweep``, ``evaluate``, ``compare`` and ``report``.

CORPUS and ``--test`` are read by :func:`tealeaves.corpus.readers.read_corpus`: a plain file is
one document per line, tokens separated by whitespace; a folder or a JSON Lines file is raw text,
tokenised by the :class:`~tealeaves.corpus.Preprocessor` of the preprocessing options
(``tealeaves._cli_options.add_preprocessing``; their defaults are the Preprocessor's), fitted on CORPUS
(before the split, without ``--test``).  ``--test`` is encoded over the training corpus's vocabulary,
raw text with the same fitted recipe (other words are dropped and counted).
"""

from __future__ import annotations

import argparse

from tealeaves._cli_args import add_output, add_param, add_result_output, result_format
from tealeaves._cli_options import add_preprocessing, read_preprocessed
from tealeaves._cli_shared import add_command
from tealeaves._output import add_format_option, check_output_path, dump_json, format_table
from tealeaves._params import SEED, SPLIT_SEED
from tealeaves._threads import N_THREADS
from tealeaves.sweep.params import (
    LEVEL,
    N_BOOT,
    N_COMPONENTS,
    N_JOBS,
    N_TOP,
    REPORT_TOPIC,
    SEEDS,
    TEST_FRACTION,
)

#: The public functions each command of this module calls (read by ``tests/test_naming.py``).
API = {
    "sweep": ("tealeaves.sweep.core:sweep", "tealeaves.corpus.preprocess:Preprocessor",
              "tealeaves.models.lda_gibbs:GibbsLDA"),
    "evaluate": ("tealeaves.sweep.evaluation:evaluate", "tealeaves.corpus.preprocess:Preprocessor"),
    "compare": ("tealeaves.sweep.compare:compare_models",),
    "report": ("tealeaves.report.html:write_report", "tealeaves.report.html:choose"),
}

SUMMARY_COLUMNS = ("name", "k", "seed", "completion_perplexity", "unigram_perplexity", "library_perplexity")


def register(subparsers) -> None:
    """Add ``sweep``, ``evaluate``, ``compare`` and ``report`` to the top-level parser."""
    from tealeaves.sweep.engines import ENGINES

    p = add_command(subparsers, "sweep", _sweep,
                    [("LDA at K = 10, 20, 40 with 3 seeds each on a folder of texts",
                      "tealeaves sweep corpus/ -k 10 20 40 -o results.sqlite"),
                     ("Gibbs LDA on 2 processes, with given test documents and two coherence measures",
                      "tealeaves sweep train.txt --test test.txt -k 20 --engine gibbs --measures npmi,umass "
                      "-j 2 -o results.sqlite")],
                    help="fit and score topic models over K and seeds into a store",
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
    _add_scoring_options(p, "test documents (default: hold out --test-fraction of CORPUS)")
    add_param(p, N_JOBS, default=1)
    add_param(p, N_THREADS, default=None,
              help="threads sampling each model's chain with --engine gibbs (default: every core with -j 1, "
                   "else the cores divided among the -j processes, at least 1; 1 = the exact serial chain; "
                   "recorded in each model's signature)")
    p.add_argument("--scheduler", default=None, help="address of a running Dask scheduler to fit on")
    _register_evaluate(subparsers)

    c = add_command(subparsers, "compare", _compare,
                    [("K=10 against K=20 of one sweep: held-out log-likelihood and mean coherence, A - B",
                      "tealeaves compare results.sqlite --models sklearn-K10-s0 sklearn-K20-s0"),
                     ("models of two stores, the intervals written as CSV",
                      "tealeaves compare a.sqlite b.sqlite --models sklearn-K10-s0 gibbs-K10-s0 "
                      "-o diff.csv")],
                    help="compare two stored models with bootstrap intervals")
    c.add_argument("results", nargs="+", help="results store; a second store holds model B")
    c.add_argument("--models", nargs=2, required=True, metavar=("A", "B"),
                   help="model names, e.g. sklearn-K10-s0")
    c.add_argument("--measure", default=None, help="coherence measure (default: the sweep's first)")
    add_param(c, N_BOOT, default=2000)
    add_param(c, LEVEL, default=0.95)
    add_param(c, SEED, default=0, help="bootstrap seed")
    add_result_output(c, "the differences (CSV/TSV: one row per quantity)")

    r = add_command(subparsers, "report", _report,
                    [("a self-contained HTML report of a sweep",
                      "tealeaves report results.sqlite -o report.html"),
                     ("every number of the report as JSON (read by `tealeaves human correlate`)",
                      "tealeaves report results.sqlite --format json -o report.json")],
                    help="a self-contained HTML report of a results store")
    r.add_argument("results", help="results store written by tealeaves sweep")
    add_output(r, help="report file: HTML, or JSON when it ends in .json or with --format json (JSON "
                       "without -o is printed)")
    r.add_argument("--format", choices=("html", "json"), default=None,
                   help="output format (default: json for an -o file ending in .json, else html); an "
                        "extension that means the other format is refused")
    r.add_argument("--figures", default=None, help="also write every figure as PNG into this folder")
    r.add_argument("--model", default=None,
                   help="model of the per-topic figures (default: best mean coherence)")
    add_param(r, REPORT_TOPIC, default=None)


def _register_evaluate(subparsers) -> None:
    e = add_command(subparsers, "evaluate", _evaluate,
                    [("three models fitted elsewhere on train.txt, scored on test.txt into one store",
                      "tealeaves evaluate train.txt gensim=lda.gensim tomotopy=lda.bin mallet=state.gz "
                      "--test test.txt -o results.sqlite"),
                     ("three runs of one configuration (stability is computed across them) and a lone model",
                      "tealeaves evaluate train.txt nmf=nmf.npz --group lda20=a.bin,b.bin,c.bin "
                      "--test test.txt -o results.sqlite"),
                     ("the same from a manifest, e.g. "
                      "{\"nmf\": \"nmf.npz\", \"lda20\": [\"a.bin\", \"b.bin\"]}",
                      "tealeaves evaluate train.txt --manifest models.json --test test.txt "
                      "-o results.sqlite"),
                     ("then the report", "tealeaves report results.sqlite -o report.html")],
                    help="score models fitted elsewhere into a results store",
                    description="Score models fitted anywhere (gensim, tomotopy, MALLET, "
                    "scikit-learn, BERTopic, tealeaves) exactly as sweep scores its own fits "
                    "(completion perplexity with baselines, coherence, diversity, flags) into one "
                    "results store; a measure a model cannot give is stored with its reason. "
                    "NAME=PATH pairs come right after CORPUS, before any option. A model path is "
                    "anything tealeaves.load_model reads (a saved gensim model, a tomotopy .bin, a "
                    "MALLET --output-state file or topic-word weights, a tealeaves .npz, "
                    "STORE#MODEL); "
                    "a manifest is a JSON or TOML table of name -> path or list of paths, relative "
                    "to its folder (docs/evaluate.md).")
    e.add_argument("corpus", help="the training corpus the models were fitted on (or the whole corpus "
                   "without --test): a file of whitespace-tokenised lines, a JSON Lines file or a folder")
    e.add_argument("models", nargs="*", metavar="NAME=PATH",
                   help="a model file to evaluate, named NAME (right after CORPUS)")
    e.add_argument("--group", action="append", default=[], metavar="NAME=P1,P2,...",
                   help="several runs of one configuration NAME (stored as NAME-r0, NAME-r1, ...); "
                   "may be repeated")
    e.add_argument("--manifest", default=None, metavar="FILE",
                   help="a JSON or TOML file mapping each name to a model path or a list of paths")
    _add_scoring_options(e, "test documents the models have not seen (default: hold out --test-fraction "
                         "of CORPUS, right only when the models were fitted on the rest)")


def _add_scoring_options(parser: argparse.ArgumentParser, test_help: str) -> None:
    """The options ``sweep`` and ``evaluate`` share: split, reference, measures, output, preprocessing."""
    parser.add_argument("--test", default=None, help=test_help)
    add_param(parser, TEST_FRACTION, default=None)
    add_param(parser, SPLIT_SEED, default=0)
    parser.add_argument("--reference", default=None, help="reference index file for coherence "
                        "(default: the training corpus)")
    parser.add_argument("--measures", default="npmi",
                        help="comma-separated coherence measures (default npmi)")
    add_param(parser, N_TOP, default=10)
    parser.add_argument("--vectors", default=None, metavar="FILE",
                        help="word vectors (a word2vec or GloVe text file) for the word-embedding measures "
                        "(default: none; those measures are stored as unavailable)")
    add_output(parser, required=True, help="results store (SQLite) to create or resume")
    add_format_option(parser)
    add_preprocessing(parser)


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


def _scoring_inputs(args: argparse.Namespace) -> tuple:
    """``(measures, corpus, test)`` of ``sweep`` and ``evaluate``: the inputs both score models on."""
    from tealeaves.errors import ParameterError

    if args.test is not None and args.test_fraction is not None:
        raise ParameterError("--test and --test-fraction both given", fix="give test documents or a fraction")
    measures = [m.strip() for m in args.measures.split(",") if m.strip()]
    if not measures:
        raise ParameterError("--measures lists no measure", fix="e.g. --measures npmi,umass")
    check_output_path(args.output + ".probe", "-o results store")
    corpus = read_preprocessed(args, args.corpus)  # raw text: the preprocessing options, fitted here
    test = (read_preprocessed(args, args.test, _fitted(corpus), corpus.vocabulary)
            if args.test is not None else None)
    return measures, corpus, test


def _with_threads(args: argparse.Namespace, settings: dict | None) -> dict | None:
    """The engine settings with the Gibbs chain's ``n_threads``: ``--n-threads``, or (with ``-j`` > 1
    processes and none given) the cores divided among the processes, so that they do not
    oversubscribe the machine; with neither, GibbsLDA's default (every core)."""
    from tealeaves.errors import ParameterError

    if args.engine != "gibbs":
        if args.n_threads is not None:
            raise ParameterError("--n-threads applies to --engine gibbs only",
                                 fix="drop --n-threads, or give the engine's thread setting in --settings")
        return settings
    merged = dict(settings or {})
    if args.n_threads is not None:
        merged["n_threads"] = args.n_threads
    elif args.n_jobs > 1:
        from tealeaves._threads import available_cores

        merged.setdefault("n_threads", max(1, available_cores() // args.n_jobs))
    return merged or settings


def _sweep(args: argparse.Namespace) -> int:
    from tealeaves.sweep.core import sweep

    settings = _with_threads(args, _settings(args.settings))
    measures, corpus, test = _scoring_inputs(args)
    done = sweep(corpus, args.n_components, args.seeds, args.engine, args.output, test=test,
                 test_fraction=0.2 if args.test_fraction is None else args.test_fraction,
                 split_seed=args.split_seed, reference=args.reference, measures=measures, n_top=args.n_top,
                 settings=settings, vectors=args.vectors, n_jobs=args.n_jobs, scheduler=args.scheduler)
    return _print_done(args, done, "fitted", "fitted")


def _print_done(args: argparse.Namespace, done: dict, key: str, verb: str) -> int:
    """Print what ``sweep`` or ``evaluate`` did (``done``): as JSON, or a line naming the store to report."""
    if args.format == "json":
        print(dump_json(done))
    else:
        print(f"{len(done[key])} models {verb}, {len(done['skipped'])} already stored; "
              f"results in {done['output']} (tealeaves report {done['output']} -o report.html)")
    return 0


def _pair(text: str, option: str) -> tuple[str, str]:
    from tealeaves.errors import ParameterError

    name, sep, value = text.partition("=")
    if not sep or not name.strip() or not value.strip():
        raise ParameterError(f"{option} {text!r} is not NAME=PATH", fix=f"e.g. {option} lda=lda.bin".strip())
    return name.strip(), value.strip()


def _add_model(models: dict, name: str, value, where: str) -> None:
    from tealeaves.errors import ParameterError

    if name in models:
        raise ParameterError(f"model name {name!r} is given twice ({where})",
                             fix="give each model its own name")
    models[name] = value


def _model_paths(args: argparse.Namespace) -> dict:
    """Name -> path or list of paths, from NAME=PATH pairs, --group and --manifest (each name once)."""
    from tealeaves.errors import ParameterError

    models: dict = {}
    for text in args.models:
        name, path = _pair(text, "")
        _add_model(models, name, path, "as NAME=PATH")
    for text in args.group:
        name, paths = _pair(text, "--group")
        runs = [p.strip() for p in paths.split(",") if p.strip()]
        if not runs:
            raise ParameterError(f"--group {name} lists no model", fix=f"e.g. --group {name}=a.bin,b.bin")
        _add_model(models, name, runs, "in --group")
    if args.manifest is not None:
        for name, value in read_manifest(args.manifest).items():
            _add_model(models, name, value, f"in --manifest {args.manifest}")
    if not models:
        raise ParameterError("no model to evaluate", fix="give NAME=PATH pairs, --group or --manifest")
    for name, value in models.items():
        for path in value if isinstance(value, list) else [value]:
            _check_model_path(path, name)
    return models


def _check_model_path(path: str, name: str) -> None:
    """Refuse a missing model file before the corpora are read (``STORE#MODEL``: the store must exist)."""
    from pathlib import Path

    from tealeaves.errors import InputNotFoundError

    p = Path(path).expanduser()
    if p.exists() or ("#" in path and Path(path.rpartition("#")[0]).expanduser().is_file()):
        return
    raise InputNotFoundError(f"model file '{path}' of {name!r} does not exist", fix="check the path")


def read_manifest(path: str) -> dict:
    """The models of a manifest file: a JSON object or TOML table of name -> path or list of paths.

    Relative paths are read from the manifest's folder.  A ``.toml`` file is TOML; any other
    file is JSON.

    Parameters
    ----------
    path : str
        The manifest file.

    Returns
    -------
    dict
        Name -> path, or name -> list of paths.

    Raises
    ------
    InputFormatError
        When the file is not valid JSON/TOML, not a table of names, or a value is not a path or a
        list of paths.
    """
    from pathlib import Path

    from tealeaves._io import loads_strict, read_text
    from tealeaves.errors import InputFormatError, StrictJSONError

    text = read_text(path, what="manifest", utf8_only=True)
    toml = Path(path).suffix.lower() == ".toml"
    tomllib = _toml() if toml else None
    try:
        data = tomllib.loads(text) if toml else loads_strict(text, unique_keys=True)
    except (StrictJSONError, ValueError) as exc:  # TOMLDecodeError is a ValueError
        raise InputFormatError(f"manifest '{path}' is not valid {'TOML' if toml else 'JSON'} ({exc})",
                               fix='write name -> path, e.g. {"lda": "lda.bin", "lda20": ["a.bin", "b.bin"]}'
                               ) from None
    if not isinstance(data, dict) or not data:
        raise InputFormatError(f"manifest '{path}' holds no table of models",
                               fix='write name -> path, e.g. {"lda": "lda.bin"}')
    folder = Path(path).expanduser().parent
    out = {}
    for name, value in data.items():
        paths = value if isinstance(value, list) else [value]
        if not all(isinstance(p, str) and p.strip() for p in paths):
            raise InputFormatError(f"manifest '{path}': {name!r} must be a path or a list of paths, got "
                                   f"{value!r}", fix='e.g. "lda20": ["a.bin", "b.bin"]')
        resolved = [str(folder / Path(p).expanduser()) for p in paths]
        out[name] = resolved if isinstance(value, list) else resolved[0]
    return out


def _toml():
    """``tomllib`` (Python 3.11+), else ``tomli``; refused with the way out when neither is there."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            from tealeaves.errors import MissingDependencyError

            raise MissingDependencyError("reading a TOML manifest needs Python 3.11 or the tomli package",
                                         fix="pip install tomli, or write the manifest as JSON") from None
    return tomllib


def _evaluate(args: argparse.Namespace) -> int:
    from tealeaves.sweep.evaluation import evaluate

    models = _model_paths(args)
    measures, corpus, test = _scoring_inputs(args)
    done = evaluate(models, corpus, test, args.reference, args.output,
                    test_fraction=0.2 if args.test_fraction is None else args.test_fraction,
                    split_seed=args.split_seed, measures=measures, n_top=args.n_top,
                    vectors=args.vectors)
    return _print_done(args, done, "evaluated", "scored")


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


#: The report formats an ``-o`` file's extension stands for.
REPORT_SUFFIXES = {".html": "html", ".htm": "html", ".json": "json"}


def _report_format(fmt: str | None, output: str | None) -> str:
    """``--format`` of ``report``, else the format of ``-o``'s extension (``.json``, ``.html``), else html.

    An extension meaning the other format than ``--format`` is refused, as by every command with a
    result (``tealeaves._cli_args.result_format``); another extension takes ``--format`` as given.
    """
    from pathlib import Path

    from tealeaves.errors import ParameterError

    suffix = Path(output).suffix.lower() if output is not None else ""
    implied = REPORT_SUFFIXES.get(suffix)
    if fmt is not None and implied is not None and implied != fmt:
        raise ParameterError(f"-o {output}: the extension {suffix} means {implied}, but --format is {fmt}",
                             fix=f"name the file for {fmt}, or drop --format")
    return fmt or implied or "html"


def _report(args: argparse.Namespace) -> int:
    from tealeaves.errors import ParameterError
    from tealeaves.report.html import choose, report_data, write_figures, write_report
    from tealeaves.sweep.results import load_results

    args.format = _report_format(args.format, args.output)
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
