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

from tealeaves._output import add_format_option, dump_json, format_table
from tealeaves.errors import ParameterError
from tealeaves.multilingual._cli_common import add_aligned_input, read_topics_arg, warnings_to_stderr
from tealeaves.multilingual.names import REFERENCES
from tealeaves.validation import float_arg, int_arg, path_arg, seed_arg

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
    p.add_argument("--top", type=int_arg(2, name="--top"), default=10,
                   help="cardinality C: top words used per topic, >= 2 (default 10; clamped to the "
                        "shortest topic, with a warning)")
    p.add_argument("--zero", choices=("limit", "epsilon", "zero"), default="limit",
                   help="NPMI of present words that never co-occur (default: limit, -1)")
    p.add_argument("--dictionary", default=None,
                   help="bilingual dictionary for MTA (MUSE 'en foreign' or Wiktionary '.all'); "
                        "two languages only")
    p.add_argument("--encoding", default=None,
                   help="encoding of the topics file and the dictionary (default: UTF-8; a byte-order "
                        "mark is removed)")
    add_format_option(p)
    p.set_defaults(func=_cnpmi)
    _register_pltm(subparsers)
    _register_estimator(subparsers)


def _cnpmi(args) -> int:
    from tealeaves.multilingual import measures as M
    from tealeaves.multilingual.dictionaries import read_dictionary
    from tealeaves.multilingual.reference import resolve_reference

    topics = read_topics_arg(args.topics, args.top, args.encoding)
    langs = list(topics)
    if len(langs) < 2:
        raise ParameterError(f"the topics file has one language ({langs[0]}); CNPMI compares two or more",
                             fix="give every topic in at least two languages")
    if args.dictionary and len(langs) != 2:
        raise ParameterError(f"MTA compares two languages; the topics have {langs}",
                             fix="give a topics file with two languages, or drop --dictionary")
    d = read_dictionary(args.dictionary, encoding=args.encoding) if args.dictionary else None
    ref = resolve_reference(args.reference, langs)
    scores = [M.cnpmi(topics, ref, langs, args.zero), M.inpmi(topics, ref, langs, args.zero),
              M.twc(topics, ref, langs)]
    if d is not None:
        with warnings_to_stderr():
            scores.append(M.mta(topics, d, *d.oriented(*langs).languages()))
    if args.format == "json":
        print(dump_json({s.measure: s.to_dict() for s in scores}))
        return 0
    rows = [{"topic": k, **{s.measure: float(s.per_topic[k]) for s in scores}}
            for k in range(len(scores[0].per_topic))]
    rows.append({"topic": "mean", **{s.measure: s.score for s in scores}})
    print(format_table(rows))
    for s in scores:
        print(s.signature)
    return 0


# -- tealeaves pltm ----------------------------------------------------------------------
def _register_pltm(subparsers) -> None:
    from tealeaves.multilingual import pltm_cli as P

    parser = subparsers.add_parser("pltm", help="fit and use a polylingual topic model (Mimno et al. 2009)")
    sub = parser.add_subparsers(dest="pltm_command", metavar="COMMAND")
    parser.set_defaults(func=lambda args: parser.print_help() or 2)
    fit = sub.add_parser("fit", help="fit a polylingual topic model on aligned tuples",
                         description="Fit PLTM by collapsed Gibbs sampling; the defaults are Hao et al. "
                                     "(2018)'s setup: K=20, 5 chains, 1000 iterations, hyperparameters "
                                     "optimised every 50, every tuple linked.")
    add_aligned_input(fit)
    fit.add_argument("-k", "--n-topics", dest="k", type=int_arg(1, 10_000, "-k"), default=20,
                     help="number of topics K, 1 to 10000 (default 20)")
    fit.add_argument("--chains", type=int_arg(1, 100, "--chains"), default=5,
                     help="independent chains, the best final log-likelihood kept, 1 to 100 (default 5)")
    fit.add_argument("--iterations", type=int_arg(1, 1_000_000, "--iterations"), default=1000,
                     help="Gibbs sweeps per chain (default 1000)")
    fit.add_argument("--optimize-interval", type=int_arg(0, None, "--optimize-interval"), default=50,
                     help="re-estimate alpha and beta every this many sweeps, 0 = never (default 50)")
    fit.add_argument("--burn-in", type=int_arg(0, None, "--burn-in"), default=None,
                     help="sweeps before the first optimisation (default: 200, or half the iterations "
                          "if fewer than 400)")
    fit.add_argument("--link-fraction", type=float_arg(0, 1, "--link-fraction"), default=1.0,
                     help="share of tuples whose sides share theta, 0 to 1 (default 1.0)")
    fit.add_argument("--alpha", type=float_arg(0, None, "--alpha", include_min=False), default=0.1,
                     help="initial alpha per topic, > 0 (default 0.1)")
    fit.add_argument("--beta", type=float_arg(0, None, "--beta", include_min=False), default=0.01,
                     help="initial beta, > 0 (default 0.01)")
    fit.add_argument("--max-df", type=float_arg(0, 1, "--max-df", include_min=False), default=0.3,
                     help="drop words in more than this share of a language's documents (default 0.3)")
    fit.add_argument("--min-df", type=int_arg(1, None, "--min-df"), default=1,
                     help="drop words in fewer documents (default 1)")
    fit.add_argument("--seed", type=seed_arg, default=0, help="random seed; the same seed repeats the fit")
    fit.add_argument("--jobs", type=int_arg(1, 64, "--jobs"), default=1,
                     help="chains run in parallel threads, 1 to 64 (default 1)")
    fit.add_argument("-o", "--out", required=True, type=path_arg("-o"), help="model folder to write")
    fit.add_argument("--quiet", action="store_true",
                     help="no stage messages or per-sweep progress on stderr (progress is shown only when "
                          "stderr is a terminal)")
    fit.set_defaults(func=P.fit)

    topics = sub.add_parser("topics", help="per-language top words of a fitted model (topics JSON or text)")
    topics.add_argument("model", help="model folder from `tealeaves pltm fit`")
    topics.add_argument("--top", type=int_arg(1, 1000, "--top"), default=10,
                        help="words per topic, 1 to 1000 (default 10)")
    topics.add_argument("-o", "--out", help="write the topics JSON here (the schema `tealeaves cnpmi` reads)")
    add_format_option(topics)
    topics.set_defaults(func=P.topics)

    infer = sub.add_parser("infer", help="fold in held-out tuples: their topic proportions theta")
    infer.add_argument("model", help="model folder from `tealeaves pltm fit`")
    add_aligned_input(infer)
    infer.add_argument("--iterations", type=int_arg(1, 100_000, "--iterations"), default=100,
                       help="fold-in sweeps (default 100)")
    infer.add_argument("--burn-in", type=int_arg(0, None, "--burn-in"), default=50,
                       help="sweeps before averaging (default 50; must be below --iterations)")
    infer.add_argument("--seed", type=seed_arg, default=None, help="seed (default: the model's)")
    infer.add_argument("-o", "--out", help="write theta (tuples x K) as .npy (readable by "
                                           "`human build-study --doc-topic`)")
    add_format_option(infer)
    infer.set_defaults(func=P.infer)


# -- tealeaves estimator -------------------------------------------------------------------
def _register_estimator(subparsers) -> None:
    from tealeaves.multilingual import estimator_cli as E

    parser = subparsers.add_parser("estimator", help="the coherence estimator (Hao et al. 2018, §3): "
                                                     "rich-reference CNPMI from Bible features")
    sub = parser.add_subparsers(dest="estimator_command", metavar="COMMAND")
    parser.set_defaults(func=lambda args: parser.print_help() or 2)
    feats = sub.add_parser("features", help="per-topic features on the poor reference (and the target "
                                            "on a rich one) as a CSV table")
    feats.add_argument("topics", help="topics JSON (two languages) or a `pltm fit` model folder")
    feats.add_argument("--reference", default="bible", help="poor reference: " + REFERENCE_HELP)
    feats.add_argument("--rich", default=None, help="rich reference (built-in name or folder): adds the "
                                                    "target column (its CNPMI) for training")
    feats.add_argument("--high", default="en", help="the high-resource language l1 (default en)")
    feats.add_argument("--top", type=int_arg(2, name="--top"), default=10, help="cardinality C (default 10)")
    feats.add_argument("--dictionary", default=None, help="bilingual dictionary for the mta feature")
    feats.add_argument("--era", action="store_true", help="add era_mean/era_std (SpellEng, $TEALEAVES_DATA)")
    feats.add_argument("--drift-rich", default=None, help="add drift_mean/std: the English reference "
                       "(built-in name or folder) compared with the poor reference's English side")
    feats.add_argument("--zero", choices=("limit", "epsilon", "zero"), default="limit")
    feats.add_argument("--encoding", default=None)
    feats.add_argument("-o", "--out", required=True, help="CSV table to write")
    feats.set_defaults(func=E.features)

    train = sub.add_parser("train", help="train an estimator on feature tables with a target column")
    train.add_argument("tables", nargs="+", help="CSV feature tables (from `estimator features --rich`)")
    train.add_argument("--features", default="base,gap,era,drift",
                       help="comma-separated feature groups from base,gap,era,drift (default all)")
    train.add_argument("--n-estimators", type=int_arg(1, 10_000, "--n-estimators"), default=50,
                       help="AdaBoost rounds (default 50)")
    train.add_argument("--seed", type=seed_arg, default=0, help="AdaBoost seed (default 0)")
    train.add_argument("-o", "--out", required=True, help="estimator file to write (JSON)")
    train.set_defaults(func=E.train)

    apply = sub.add_parser("apply", help="estimate rich-reference CNPMI of new topics from poor-reference "
                                         "features")
    apply.add_argument("estimator", help="estimator file from `tealeaves estimator train`")
    apply.add_argument("table", help="CSV feature table (from `estimator features`, no --rich needed)")
    apply.add_argument("-o", "--out", help="also write the table with an 'estimate' column (CSV)")
    add_format_option(apply)
    apply.set_defaults(func=E.apply)
