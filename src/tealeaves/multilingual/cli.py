"""Command-line sub-commands of tealeaves.multilingual.

* ``tealeaves cnpmi TOPICS --reference REF``: CNPMI, INPMI, TWC (and MTA with
  ``--dictionary``); TOPICS is a topics JSON file (schema of
  :mod:`tealeaves.multilingual.topics`) or a saved polylingual model folder; REF a built-in
  name or an aligned reference folder;
* ``tealeaves pltm fit|topics|infer`` (:mod:`tealeaves.multilingual.pltm_cli`);
* ``tealeaves estimator features|train|apply`` (:mod:`tealeaves.multilingual.estimator_cli`).

Every option is validated at the boundary (:mod:`tealeaves.validation`).
"""

from __future__ import annotations

from tealeaves._cli_args import add_examples, add_output, add_param, add_result_output, result_format
from tealeaves._output import add_format_option, format_table
from tealeaves._threads import N_THREADS
from tealeaves.corpus.params import MAX_DF, MIN_DF
from tealeaves.errors import ParameterError
from tealeaves.models._pltm_params import FIT_PARAMS, TRANSFORM_PARAMS
from tealeaves.models._pltm_params import N_TOP as PLTM_N_TOP
from tealeaves.multilingual._cli_common import add_aligned_input, read_topics_arg, warnings_to_stderr
from tealeaves.multilingual._estimator_params import ESTIMATOR_PARAMS
from tealeaves.multilingual.measures import ZERO
from tealeaves.multilingual.names import REFERENCES
from tealeaves.multilingual.topics import N_TOP
from tealeaves.validation import check_path, checked_arg

#: ``pltm fit``'s document-frequency bounds: the shared declarations (:mod:`tealeaves.corpus.params`)
#: narrowed to what the command has always taken, a share for ``--max-df`` and a count for ``--min-df``
#: (so ``--max-df 1`` stays all the documents, not one).
PLTM_MAX_DF = MAX_DF.replace(kind="float", min_value=0, max_value=1, include_min=False,
                             help="drop words in more than this share of a language's documents")
PLTM_MIN_DF = MIN_DF.replace(kind="int", min_value=1, help="drop words in fewer documents")

_ALIGNED = ("tealeaves.ingest.aligned:read_aligned_input",)
_TOPICS = ("tealeaves.multilingual.topics:read_multilingual_topics",
           "tealeaves.multilingual.reference:resolve_reference", "tealeaves.multilingual.measures:cnpmi")

#: The public functions each sub-command calls (its options are their parameters: docs/naming.md).
API = {
    "cnpmi": (*_TOPICS, "tealeaves.multilingual.measures:inpmi", "tealeaves.multilingual.measures:twc",
              "tealeaves.multilingual.measures:mta", "tealeaves.multilingual.dictionaries:read_dictionary"),
    "pltm fit": (*_ALIGNED, "tealeaves.corpus.aligned:default_preprocessor",
                 "tealeaves.models.polylingual:PolylingualTopicModel",
                 "tealeaves.multilingual.pltm_io:save_pltm"),
    "pltm topics": ("tealeaves.multilingual.pltm_io:load_pltm",
                    "tealeaves.models.polylingual:PolylingualTopicModel.top_words"),
    "pltm infer": (*_ALIGNED, "tealeaves.multilingual.pltm_io:load_pltm",
                   "tealeaves.models.polylingual:PolylingualTopicModel.transform"),
    "estimator features": (*_TOPICS, "tealeaves.multilingual.dictionaries:read_dictionary",
                           "tealeaves.multilingual.features:topic_features",
                           "tealeaves.multilingual.estimator_io:write_table"),
    "estimator train": ("tealeaves.multilingual.estimator_io:read_table",
                        "tealeaves.multilingual.estimator:CoherenceEstimator",
                        "tealeaves.multilingual.estimator_io:save_estimator"),
    "estimator apply": ("tealeaves.multilingual.estimator_io:load_estimator",
                        "tealeaves.multilingual.estimator_io:read_table"),
}

REFERENCE_HELP = (f"aligned reference: a built-in name ({', '.join(REFERENCES)}; built from $TEALEAVES_DATA) "
                  "or the folder written by `tealeaves index build-aligned` (default: bible)")


def register(subparsers) -> None:
    """Add ``cnpmi``, ``pltm`` and ``estimator`` to the top-level parser."""
    p = subparsers.add_parser(
        "cnpmi", help="multilingual topic measures: CNPMI, INPMI, TWC, MTA (Hao et al. 2018)",
        description="Score multilingual topics against an aligned reference: a built-in one built from "
                    "$TEALEAVES_DATA or your own (tealeaves index build-aligned).")
    p.add_argument("topics", help="JSON file {language: [[top words of topic 0], ...], ...} (schema: "
                                  "docs/multilingual.md), or a model folder from `tealeaves pltm fit`")
    p.add_argument("--reference", default="bible", help=REFERENCE_HELP)
    add_param(p, N_TOP, default=10)
    add_param(p, ZERO, default="limit")
    p.add_argument("--dictionary", default=None,
                   help="bilingual dictionary for MTA (MUSE 'en foreign' or Wiktionary '.all'); "
                        "two languages only")
    p.add_argument("--encoding", default=None,
                   help="encoding of the topics file and the dictionary (default: UTF-8; a byte-order "
                        "mark is removed)")
    add_result_output(p, "the scores (CSV/TSV: one row per topic)")
    add_examples(p, ("CNPMI, INPMI and TWC of multilingual topics against the built-in Bible reference",
                     "tealeaves cnpmi topics.json --reference bible"),
                    ("the same for a fitted PLTM folder, as CSV with one row per topic",
                     "tealeaves cnpmi pltm-model --n-top 10 -o scores.csv"))
    p.set_defaults(func=_cnpmi)
    _register_pltm(subparsers)
    _register_estimator(subparsers)


def _cnpmi(args) -> int:
    from tealeaves.multilingual import measures as M
    from tealeaves.multilingual.dictionaries import read_dictionary
    from tealeaves.multilingual.reference import resolve_reference

    fmt = result_format(args)
    topics = read_topics_arg(args.topics, args.n_top, args.encoding)
    langs = list(topics)
    if len(langs) < 2:
        raise ParameterError(f"the topics file has one language ({langs[0]}); CNPMI compares two or more",
                             fix="give every topic in at least two languages")
    if args.dictionary and len(langs) != 2:
        raise ParameterError(f"MTA compares two languages; the topics have {langs}",
                             fix="give a topics file with two languages, or drop --dictionary")
    d = read_dictionary(args.dictionary, encoding=args.encoding) if args.dictionary else None
    ref = resolve_reference(args.reference, langs)
    zero = args.zero
    scores = [M.cnpmi(topics, ref, langs, zero), M.inpmi(topics, ref, langs, zero),
              M.twc(topics, ref, langs)]
    if d is not None:
        with warnings_to_stderr():
            scores.append(M.mta(topics, d, *d.oriented(*langs).languages()))
    from tealeaves._output import Result

    rows = [{"topic": k, **{s.measure: float(s.per_topic[k]) for s in scores}}
            for k in range(len(scores[0].per_topic))]
    text = "\n".join([format_table([*rows, {"topic": "mean", **{s.measure: s.score for s in scores}}]),
                      *(str(s.signature) for s in scores)])
    Result({s.measure: s.to_dict() for s in scores}, rows, text=text).emit(fmt, args.output, "-o scores file")
    return 0


# -- tealeaves pltm ----------------------------------------------------------------------
def _register_pltm(subparsers) -> None:
    from tealeaves.multilingual import pltm_cli as P

    parser = subparsers.add_parser("pltm", help="fit and use a polylingual topic model (Mimno et al. 2009)")
    sub = parser.add_subparsers(dest="pltm_command", metavar="COMMAND")
    parser.set_defaults(func=lambda args: parser.print_help() or 2)
    add_examples(parser, ("fit a 20-topic PLTM on aligned tuples",
                          "tealeaves pltm fit tuples.jsonl -o pltm-model"),
                         ("its topics as the JSON `tealeaves cnpmi` reads",
                          "tealeaves pltm topics pltm-model -o topics.json"))
    fit = sub.add_parser("fit", help="fit a polylingual topic model on aligned tuples",
                         description="Fit PLTM by collapsed Gibbs sampling; the defaults are Hao et al. "
                                     "(2018)'s setup: K=20, 5 chains, 1000 iterations, hyperparameters "
                                     "optimised every 50, every tuple linked.")
    add_aligned_input(fit)
    pltm = FIT_PARAMS
    add_param(fit, pltm["n_components"], default=20)
    add_param(fit, pltm["n_chains"], default=5)
    add_param(fit, pltm["n_iter"], default=1000)
    add_param(fit, pltm["optimize_interval"], default=50)
    add_param(fit, pltm["optimize_burn_in"], default=None,
              help="sweeps before the first optimisation (default: 200, or half of --n-iter if fewer "
                   "than 400)")
    add_param(fit, pltm["link_fraction"], default=1.0)
    add_param(fit, pltm["alpha"], default=0.1)
    add_param(fit, pltm["beta"], default=0.01)
    add_param(fit, PLTM_MAX_DF, default=0.3)
    add_param(fit, PLTM_MIN_DF, default=1)
    add_param(fit, pltm["random_state"], default=0, metavar="SEED")
    add_param(fit, pltm["n_jobs"], default=1)
    add_param(fit, N_THREADS, default=None,
              help="threads sampling each chain, 1 to 256 (default: every core; 1 = the exact serial chain; "
                   "more = one chain with documents and words partitioned over the threads, recorded in "
                   "the model)")
    add_output(fit, required=True, type=checked_arg(check_path, "-o"), help="model folder to write")
    fit.add_argument("--quiet", action="store_true",
                     help="no stage messages or per-sweep progress on stderr (progress is shown only when "
                          "stderr is a terminal)")
    add_examples(fit, ("Hao et al. (2018)'s setup: K=20, 5 chains, 1000 iterations",
                       "tealeaves pltm fit tuples.jsonl -o pltm-model"),
                      ("from parallel line files, K=50, one chain, seeded",
                       "tealeaves pltm fit --lang en=en.txt --lang sv=sv.txt --doc-ids ids.txt -k 50 "
                       "--n-chains 1 --seed 3 -o pltm-model"))
    fit.set_defaults(func=P.fit)

    topics = sub.add_parser("topics", help="per-language top words of a fitted model (topics JSON or text)")
    topics.add_argument("model", help="model folder from `tealeaves pltm fit`")
    add_param(topics, PLTM_N_TOP, default=10)
    add_output(topics, help="write the topics JSON here (the schema `tealeaves cnpmi` reads)")
    add_format_option(topics)
    add_examples(topics, ("each topic's top 10 words per language",
                          "tealeaves pltm topics pltm-model"),
                         ("as the topics JSON `tealeaves cnpmi` reads",
                          "tealeaves pltm topics pltm-model --n-top 20 -o topics.json"))
    topics.set_defaults(func=P.topics)

    infer = sub.add_parser("infer", help="fold in held-out tuples: their topic proportions theta")
    infer.add_argument("model", help="model folder from `tealeaves pltm fit`")
    add_aligned_input(infer)
    add_param(infer, TRANSFORM_PARAMS["n_iter"], default=100)
    add_param(infer, TRANSFORM_PARAMS["burn_in"], default=50,
              help="sweeps before averaging (default 50; must be below --n-iter)")
    add_param(infer, TRANSFORM_PARAMS["random_state"], default=None, metavar="SEED")
    add_output(infer, help="write theta (tuples x K) as .npy (readable by `human build-study --doc-topic`)")
    add_format_option(infer)
    add_examples(infer, ("topic proportions of held-out tuples, printed",
                         "tealeaves pltm infer pltm-model heldout.jsonl"),
                        ("written as .npy for `human build-study --doc-topic`",
                         "tealeaves pltm infer pltm-model heldout.jsonl -o theta.npy"))
    infer.set_defaults(func=P.infer)


# -- tealeaves estimator -------------------------------------------------------------------
def _register_estimator(subparsers) -> None:
    from tealeaves.multilingual import estimator_cli as E

    parser = subparsers.add_parser("estimator", help="the coherence estimator (Hao et al. 2018, §3): "
                                                     "rich-reference CNPMI from Bible features")
    sub = parser.add_subparsers(dest="estimator_command", metavar="COMMAND")
    parser.set_defaults(func=lambda args: parser.print_help() or 2)
    add_examples(parser, ("per-topic features on the poor reference, the rich reference's CNPMI as target",
                          "tealeaves estimator features topics.json --reference bible --rich wikipedia "
                          "-o features.csv"),
                         ("train on those tables",
                          "tealeaves estimator train features.csv -o estimator.json"))
    feats = sub.add_parser("features", help="per-topic features on the poor reference (and the target "
                                            "on a rich one) as a CSV table")
    feats.add_argument("topics", help="topics JSON (two languages) or a `pltm fit` model folder")
    feats.add_argument("--reference", default="bible", help="poor reference: " + REFERENCE_HELP)
    feats.add_argument("--rich", default=None, help="rich reference (built-in name or folder): adds the "
                                                    "target column (its CNPMI) for training")
    feats.add_argument("--high", default="en", help="the high-resource language l1 (default en)")
    add_param(feats, N_TOP, default=10, help="cardinality C")
    feats.add_argument("--dictionary", default=None, help="bilingual dictionary for the mta feature")
    feats.add_argument("--era", action="store_true", help="add era_mean/era_std (SpellEng, $TEALEAVES_DATA)")
    feats.add_argument("--drift-rich", default=None, help="add drift_mean/std: the English reference "
                       "(built-in name or folder) compared with the poor reference's English side")
    add_param(feats, ZERO, default="limit")
    feats.add_argument("--encoding", default=None,
                       help="encoding of the topics file and the dictionary (default UTF-8)")
    add_output(feats, required=True, help="CSV table to write")
    add_examples(feats, ("features on the Bible reference, target CNPMI on another",
                         "tealeaves estimator features topics.json --reference bible --rich wikipedia "
                         "-o features.csv"),
                        ("with an MTA feature from a dictionary",
                         "tealeaves estimator features topics.json --dictionary en-sv.txt -o features.csv"))
    feats.set_defaults(func=E.features)

    train = sub.add_parser("train", help="train an estimator on feature tables with a target column")
    train.add_argument("tables", nargs="+", help="CSV feature tables (from `estimator features --rich`)")
    train.add_argument("--features", default="base,gap,era,drift",
                       help="comma-separated feature groups from base,gap,era,drift (default all)")
    add_param(train, ESTIMATOR_PARAMS["n_estimators"], default=50)
    add_param(train, ESTIMATOR_PARAMS["random_state"], default=0, metavar="SEED")
    add_output(train, required=True, help="estimator file to write (JSON)")
    add_examples(train, ("train an estimator on feature tables with a target column",
                         "tealeaves estimator train features.csv -o estimator.json"),
                        ("on two tables, 500 trees, seeded",
                         "tealeaves estimator train a.csv b.csv --n-estimators 500 --seed 1 -o "
                         "estimator.json"))
    train.set_defaults(func=E.train)

    apply = sub.add_parser("apply", help="estimate rich-reference CNPMI of new topics from poor-reference "
                                         "features")
    apply.add_argument("estimator", help="estimator file from `tealeaves estimator train`")
    apply.add_argument("table", help="CSV feature table (from `estimator features`, no --rich needed)")
    add_output(apply, help="also write the table with an 'estimate' column (CSV)")
    add_format_option(apply)
    add_examples(apply, ("estimate rich-reference CNPMI of new topics",
                         "tealeaves estimator apply estimator.json features.csv"),
                        ("and write the table with its estimates",
                         "tealeaves estimator apply estimator.json features.csv -o estimates.csv"))
    apply.set_defaults(func=E.apply)
