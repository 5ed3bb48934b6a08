"""Command-line sub-commands of tealeaves.likelihood: ``tealeaves perplexity``.

How TEST is read (``docs/likelihood.md``, "Test documents from the command line"):

* ``--tokenized``: every document is already tokens separated by whitespace
  (a line of a plain file, the text field of a JSON Lines record, a file of a folder);
* otherwise TEST holds raw text, tokenised the way the model's recorded
  preprocessing says (``metadata_["preprocessing"]``, recorded when tealeaves fits a
  model on a preprocessed corpus), over the model's vocabulary;
* a model that records no preprocessing with input not declared ``--tokenized`` is an
  error (:class:`~tealeaves.errors.UnsupportedModelError`): tealeaves cannot know how
  the text was tokenised, and guessing would score different words silently.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tealeaves._cli_args import add_examples, add_param, add_result_output, result_format
from tealeaves._params import SEED, SPLIT_SEED
from tealeaves._threads import N_THREADS
from tealeaves.likelihood.params import N_CHAINS, N_SAMPLES, N_TEMPERATURES, REPLICATES

#: The public functions each command of this module calls (read by ``tests/test_naming.py``).
API = {"perplexity": ("tealeaves.likelihood.estimators:estimate_log_likelihood",
                      "tealeaves.likelihood.estimators:left_to_right_completion",
                      "tealeaves.likelihood.completion:document_completion",
                      "tealeaves.likelihood.estimators:annealed_importance_sampling",
                      "tealeaves.likelihood.estimators:chib_style",
                      "tealeaves.models.adapters:load_model", "tealeaves.models.adapters.arrays:AdaptedModel",
                      "tealeaves.likelihood.cli:read_test")}

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
        "All methods but 'completion' need the model's Dirichlet prior alpha. TEST is raw text "
        "tokenised as the model's recorded preprocessing says, or tokens with --tokenized.",
    )
    p.add_argument("model", type=Path, help="model file: .npz from TopicModel.save, or another "
                   "toolkit's saved model (gensim save(), tomotopy .bin, ...; see docs/models.md), or a "
                   "model of a results store as STORE#MODEL (e.g. results.sqlite#gibbs-K20-s0)")
    p.add_argument("--inference", choices=("tealeaves", "native"), default=None,
                   help="completion: infer topic proportions with tealeaves' fold-in from phi and alpha "
                   "(default) or the source library's own inference (gensim, tomotopy files)")
    p.add_argument("test", type=Path,
                   help="test documents: a text file (one document per line), a JSON Lines file "
                   "(.jsonl/.ndjson) or a folder of text files")
    p.add_argument("--tokenized", action="store_true",
                   help="TEST is already tokenised: tokens separated by whitespace, one document per line "
                   "(or per JSON Lines record / file); default: raw text, tokenised as the model records")
    p.add_argument("--encoding", default=None,
                   help="encoding of TEST (default UTF-8; a UTF-8 byte-order mark is removed)")
    p.add_argument("--text-field", default="text",
                   help="JSON Lines: the field holding the text (default text)")
    p.add_argument("--method", choices=CLI_METHODS, default="left-to-right",
                   help="estimator (default: left-to-right)")
    add_param(p, N_SAMPLES, default=None)
    add_param(p, SEED, default=0, help="sampler seed")
    add_param(p, SPLIT_SEED, default=0, help="seed of the random halves for completion methods")
    p.add_argument("--no-resample", action="store_true",
                   help="left-to-right: do not resample earlier positions (MALLET's default; linear time)")
    p.add_argument("--weighted", action="store_true",
                   help="left-to-right: weight whole particles (unbiased) instead of averaging per position")
    add_param(p, N_TEMPERATURES, default=None)
    add_param(p, N_CHAINS, default=None)
    add_param(p, REPLICATES, default=None)
    add_param(p, N_THREADS, default=None)
    add_result_output(p, "the estimate (CSV/TSV: one row, a column per field)")
    add_examples(p, ("left-to-right estimate on whitespace-tokenised test documents, one per line",
                     "tealeaves perplexity model.npz test.txt --tokenized"),
                 ("document completion, written as JSON",
                  "tealeaves perplexity model.npz test.txt --tokenized --method completion -o ppl.json"))
    p.set_defaults(func=run)


#: The methods each method-specific option applies to; giving it with another method is an error
#: (it would be silently ignored, and the result would not be what was asked for).
APPLIES_TO = {
    "n_samples": ("left-to-right-completion", "left-to-right", "is", "hm", "ais", "chib"),
    "no_resample": ("left-to-right", "left-to-right-completion"),
    "weighted": ("left-to-right", "left-to-right-completion"),
    "n_temperatures": ("ais",),
    "n_chains": ("chib",),
    "replicates": ("left-to-right", "is", "hm", "ais", "chib"),
    "inference": ("completion",),
    "n_threads": ("left-to-right-completion", "left-to-right", "is", "hm", "ais", "chib"),
}


def _check_applicable(args: argparse.Namespace) -> None:
    """Refuse an option the chosen method does not use."""
    from tealeaves.errors import ParameterError

    for name, methods in APPLIES_TO.items():
        if getattr(args, name) not in (None, False) and args.method not in methods:
            option = "--" + name.replace("_", "-")
            raise ParameterError(f"{option} does not apply to --method {args.method}",
                                 fix=f"it is used by --method {', '.join(methods)}; drop it")


def _options(args: argparse.Namespace) -> dict:
    if args.method in ("left-to-right", "left-to-right-completion"):
        return {"resample": not args.no_resample, "weighted": args.weighted}
    if args.method == "ais":
        return {"n_temperatures": 5000 if args.n_temperatures is None else args.n_temperatures}
    if args.method == "chib":
        return {"n_chains": 4 if args.n_chains is None else args.n_chains}
    return {}


def run(args: argparse.Namespace) -> int:
    """Load the model and corpus, estimate, print text or JSON."""
    from tealeaves.likelihood import estimators
    from tealeaves.likelihood.completion import document_completion
    from tealeaves.models.adapters import load_model

    _check_applicable(args)
    fmt = result_format(args)
    model = load_model(args.model, **({"inference": args.inference} if args.inference else {}))
    test, tokenization = read_test(args.test, model, tokenized=args.tokenized, encoding=args.encoding,
                                   text_field=args.text_field)
    if args.method == "completion":
        out = {"method": "completion", **document_completion(model, test, seed=args.split_seed).to_dict()}
    elif args.method == "left-to-right-completion":
        n = estimators.DEFAULT_SAMPLES["left-to-right"] if args.n_samples is None else args.n_samples
        out = estimators.left_to_right_completion(model, test, n, seed=args.seed, split_seed=args.split_seed,
                                                  n_threads=args.n_threads, **_options(args)).to_dict()
    else:
        out = estimators.estimate_log_likelihood(model, test, args.method, args.n_samples, seed=args.seed,
                                                 replicates=args.replicates or 1, n_threads=args.n_threads,
                                                 **_options(args)).to_dict()
    out = {"model": str(args.model), "test": str(args.test), "tokenization": tokenization, **out}
    from tealeaves._output import Result, format_table

    text = format_table([{"field": k, "value": "-" if v is None else v} for k, v in out.items()])
    Result(out, [out], text=text).emit(fmt, args.output, "-o estimate file")
    return 0


def read_test(path: Path, model, *, tokenized: bool = False, encoding: str | None = None,
              text_field: str = "text"):
    """``(corpus, tokenization)``: TEST encoded over the model's vocabulary (see the module docstring).

    Tokens outside the vocabulary are dropped and counted in ``corpus.n_dropped``.
    """
    from tealeaves.corpus import Corpus, Preprocessor
    from tealeaves.errors import UnsupportedModelError

    raw = _read_documents(path, encoding, text_field)
    if tokenized:
        corpus = Corpus.from_token_lists([text.split() for text in raw.texts], model.vocabulary_, raw.ids)
        return corpus, "whitespace (--tokenized)"
    params = (getattr(model, "metadata_", None) or {}).get("preprocessing")
    if params is None:
        raise UnsupportedModelError(
            f"the model records no preprocessing (metadata 'preprocessing'), so tealeaves cannot know how "
            f"to tokenise the raw text of '{path}'",
            fix="pass --tokenized if it holds whitespace-separated tokens, one document per line; or save "
                "a model fitted by tealeaves on a corpus made by a Preprocessor")
    corpus = raw.to_corpus(Preprocessor.from_params(params, model.vocabulary_))
    return corpus, "the model's recorded preprocessing"


def _read_documents(path: Path, encoding: str | None, text_field: str):
    """The documents of TEST as texts with ids: lines of a file, JSON Lines records or files of a folder."""
    import codecs

    from tealeaves import _io
    from tealeaves.corpus.readers import JSONL_SUFFIXES, RawDocuments, read_jsonl, read_text_folder
    from tealeaves.errors import EmptyInputError, InputNotFoundError

    path = Path(path).expanduser()
    _io.decode(b"", path, encoding)  # an unknown --encoding is refused here, for every layout
    # UTF-8 with an optional byte-order mark, which is removed (never glued to the first word)
    utf8 = codecs.lookup(encoding or _io.DEFAULT_ENCODING).name == "utf-8"
    readers_encoding = "utf-8-sig" if utf8 else encoding
    if path.is_dir():
        return read_text_folder(path, encoding=readers_encoding)
    if not path.exists():
        raise InputNotFoundError(f"test file '{path}' does not exist", fix="check the path")
    text = _io.read_text(path, encoding, what="test file")  # names the file and line of a bad byte
    if path.name.lower().endswith(JSONL_SUFFIXES):
        return read_jsonl(path, text_field, id_field=None, encoding=readers_encoding)
    lines = text.splitlines()
    if not lines:
        raise EmptyInputError(f"test file '{path}' holds no line (no document)", fix="give a non-empty file")
    return RawDocuments(lines, [str(i) for i in range(1, len(lines) + 1)])
