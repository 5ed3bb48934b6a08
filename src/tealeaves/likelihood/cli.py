"""Command-line sub-commands of tealeaves.likelihood: ``tealeaves perplexity``."""

from __future__ import annotations

import argparse
from pathlib import Path

from tealeaves._output import add_format_option, dump_json, format_table

#: ``--method`` choices: point-estimate document completion, its left-to-right version, the estimators.
CLI_METHODS = ("completion", "left-to-right-completion", "left-to-right", "is", "hm", "ais", "chib")


def register(subparsers) -> None:
    """Add ``perplexity`` to the top-level parser."""
    p = subparsers.add_parser(
        "perplexity",
        help="held-out log-likelihood and perplexity of a saved model on test documents",
        description="Estimate the held-out likelihood of TEST under MODEL (a .npz saved by "
        "TopicModel.save). 'completion' scores a random held-out half of each document with "
        "topic proportions inferred from the other half; 'left-to-right-completion' scores the "
        "same half with the left-to-right sampler; the other methods estimate log p(w_d) of whole "
        "documents (Wallach et al. 2009). 'hm' (harmonic mean) is biased and shown for comparison. "
        "All methods but 'completion' need the model's Dirichlet prior alpha.",
    )
    p.add_argument("model", type=Path, help="model file: .npz from TopicModel.save, or another "
                   "toolkit's saved model (gensim save(), tomotopy .bin, ...; see docs/models.md)")
    p.add_argument("--inference", choices=("tealeaves", "native"), default=None,
                   help="completion: infer topic proportions with tealeaves' fold-in from phi and alpha "
                   "(default) or the source library's own inference (gensim, tomotopy files)")
    p.add_argument("test", type=Path, help="test corpus file (e.g. one document per line)")
    p.add_argument("--method", choices=CLI_METHODS, default="left-to-right",
                   help="estimator (default: left-to-right)")
    p.add_argument("--samples", "--particles", dest="samples", type=int, default=None,
                   help="particles (left-to-right), prior draws (is), posterior draws (hm), chains (ais), "
                   "states per chain (chib); default per method")
    p.add_argument("--seed", type=int, default=0, help="sampler seed (default 0)")
    p.add_argument("--split-seed", type=int, default=0,
                   help="seed of the random halves for completion methods (default 0)")
    p.add_argument("--no-resample", action="store_true",
                   help="left-to-right: do not resample earlier positions (MALLET's default; linear time)")
    p.add_argument("--weighted", action="store_true",
                   help="left-to-right: weight whole particles (unbiased) instead of averaging per position")
    p.add_argument("--temperatures", type=int, default=5000,
                   help="ais: number of temperatures (default 5000)")
    p.add_argument("--chains", type=int, default=4, help="chib: independent chains (default 4)")
    p.add_argument("--replicates", type=int, default=1,
                   help="run the estimator R times with independent seeds; the standard error then "
                        "comes from their spread (default 1)")
    add_format_option(p)
    p.set_defaults(func=run)


def _options(args: argparse.Namespace) -> dict:
    if args.method in ("left-to-right", "left-to-right-completion"):
        return {"resample": not args.no_resample, "weighted": args.weighted}
    if args.method == "ais":
        return {"n_temperatures": args.temperatures}
    if args.method == "chib":
        return {"n_chains": args.chains}
    return {}


def run(args: argparse.Namespace) -> int:
    """Load the model and corpus, estimate, print text or JSON."""
    from tealeaves.likelihood import estimators
    from tealeaves.likelihood.completion import document_completion
    from tealeaves.models.adapters import load_model

    if args.inference and args.method != "completion":
        from tealeaves.errors import ParameterError

        raise ParameterError(f"--inference applies to --method completion only, not {args.method}",
                             fix="leave out --inference, or use --method completion")
    model = load_model(args.model, **({"inference": args.inference} if args.inference else {}))
    test = _read_test(args.test, model.vocabulary_)
    if args.method == "completion":
        result = document_completion(model, test, seed=args.split_seed)
        out = {"method": "completion", **result.to_dict(), "n_dropped_oov": test.n_dropped}
    elif args.method == "left-to-right-completion":
        n = estimators.DEFAULT_SAMPLES["left-to-right"] if args.samples is None else args.samples
        out = estimators.left_to_right_completion(model, test, n, seed=args.seed, split_seed=args.split_seed,
                                                  **_options(args)).to_dict()
    else:
        out = estimators.estimate_log_likelihood(model, test, args.method, args.samples, seed=args.seed,
                                                 replicates=args.replicates, **_options(args)).to_dict()
    out = {"model": str(args.model), "test": str(args.test), **out}
    if args.format == "json":
        print(dump_json(out))
    else:
        print(format_table([{"field": k, "value": "-" if v is None else v} for k, v in out.items()]))
    return 0


def _read_test(path: Path, vocabulary):
    """Read the test corpus over the model's vocabulary (other tokens are dropped and counted)."""
    from tealeaves.corpus.readers import read_corpus
    from tealeaves.errors import TealeavesError

    try:
        return read_corpus(path, vocabulary=vocabulary)
    except FileNotFoundError as exc:
        raise TealeavesError(str(exc)) from exc
