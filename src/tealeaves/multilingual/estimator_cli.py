"""Handlers of ``tealeaves estimator features|train|apply`` (parsers in :mod:`tealeaves.multilingual.cli`).

The estimator is Hao, Boyd-Graber and Paul (2018, §3)'s: trained on topics of language pairs
whose rich-reference CNPMI is known, it maps features computed on a poor reference (the Bible)
to that CNPMI, and is applied to a pair with only the poor reference
(:mod:`tealeaves.multilingual.estimator`; files in :mod:`tealeaves.multilingual.estimator_io`).
"""

from __future__ import annotations

import sys

from tealeaves._output import dump_json, format_table
from tealeaves.errors import ParameterError


def _pair(topics: dict, high: str) -> tuple[str, str]:
    from tealeaves.corpus.aligned import language_code

    high = language_code(high)  # the rule of the topics' keys (a code outside the table, e.g. bg, too)
    langs = list(topics)
    if len(langs) != 2 or high not in langs:
        raise ParameterError(f"the estimator's features compare two languages, one of them --high {high}; "
                             f"the topics have {langs}", fix="give topics in exactly two languages")
    return high, next(x for x in langs if x != high)


def _drift(poor, rich_spec: str, high: str):
    from tealeaves.multilingual.drift import MeaningDrift
    from tealeaves.multilingual.reference import resolve_reference

    rich = resolve_reference(rich_spec, [high])
    # a saved folder keeps no texts: its documents are rebuilt from the index (identical tokens)
    return MeaningDrift(window=5).fit(poor.language_corpus(high), rich.language_corpus(high))


def features(args) -> int:
    """Per-topic features on the poor reference (+ target on ``--rich``) written as a table."""
    import warnings

    from tealeaves._output import check_output_path
    from tealeaves.multilingual import measures as M
    from tealeaves.multilingual._cli_common import read_topics_arg
    from tealeaves.multilingual.dictionaries import read_dictionary
    from tealeaves.multilingual.estimator_io import feature_settings, write_table
    from tealeaves.multilingual.features import topic_features
    from tealeaves.multilingual.reference import resolve_reference

    check_output_path(args.output, "-o")
    topics = read_topics_arg(args.topics, args.n_top, args.encoding)
    l1, l2 = _pair(topics, args.high)
    poor = resolve_reference(args.reference, [l1, l2])
    kw = {"zero": args.zero}
    if args.dictionary:
        kw["dictionary"] = read_dictionary(args.dictionary, encoding=args.encoding)
    if args.era:
        from tealeaves.multilingual.era import read_spelleng
        kw["era"] = read_spelleng()
    if args.drift_rich:
        kw["drift"] = _drift(poor, args.drift_rich, l1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # uncovered MTA topics are a column (mta_uncovered)
        frame, sigs = topic_features(topics, poor, l1, l2, **kw)
    frame.insert(0, "lang", l2)
    frame.insert(1, "topic", range(len(frame)))
    if args.rich:
        rich = resolve_reference(args.rich, [l1, l2])
        frame["target"] = M.cnpmi(topics, rich, [l1, l2], args.zero).per_topic
    write_table(args.output, frame, feature_settings(sigs, [l1, l2]), [l1, l2])
    print(f"wrote {len(frame)} topics x {len(frame.columns)} columns to {args.output}")
    return 0


def _groups(text: str) -> tuple[str, ...]:
    from tealeaves.multilingual.estimator import FEATURE_GROUPS
    from tealeaves.validation import check_unique

    groups = [g.strip() for g in text.split(",")]
    bad = [g for g in groups if g not in FEATURE_GROUPS]
    if bad:
        raise ParameterError(f"--features {text!r}: unknown groups {bad}",
                             fix=f"choose from {','.join(FEATURE_GROUPS)}")
    return tuple(check_unique(groups, "--features"))


def train(args) -> int:
    """Fit the estimator on the tables' rows (grouped CV over their languages) and save it."""
    import pandas as pd

    from tealeaves._output import check_output_path
    from tealeaves.multilingual.estimator import CoherenceEstimator, feature_columns
    from tealeaves.multilingual.estimator_io import numeric_columns, read_table, save_estimator

    groups = _groups(args.features)
    check_output_path(args.output, "-o")
    frames, settings = [], []
    for path in args.tables:
        frame, s = read_table(path)
        numeric_columns(frame, [*feature_columns(groups), "target"], f"feature table '{path}'")
        frames.append(frame)
        settings.append(s)
    if any(s != settings[0] for s in settings[1:]):
        raise ParameterError("the training tables were computed with different feature settings",
                             fix="compute every table with the same `estimator features` options")
    table = pd.concat(frames, ignore_index=True)
    langs = list(dict.fromkeys(table["lang"].astype(str)))
    if settings[0] is None:
        print("tealeaves: warning: the tables record no feature settings; the estimator cannot check that "
              "the tables it is applied to match", file=sys.stderr)
    est = CoherenceEstimator(features=groups, n_estimators=args.n_estimators, random_state=args.random_state)
    est.fit(table, table["target"].to_numpy(dtype=float), table["lang"].astype(str).to_numpy())
    save_estimator(est, args.output, settings[0], langs, len(table))
    cv = "none (one language)" if est.cv_score_ is None else f"{est.cv_score_:.3f}"
    print(f"trained on {len(table)} topics of {'+'.join(langs)}; features {','.join(groups)}; "
          f"chosen {est.best_params_}; grouped-CV Pearson r {cv}; wrote {args.output}")
    return 0


def apply(args) -> int:
    """Estimate rich CNPMI per topic of a table, beside the raw poor-reference CNPMI."""
    from tealeaves._output import check_output_path
    from tealeaves.multilingual.estimator import pearson
    from tealeaves.multilingual.estimator_io import (
        check_compatible,
        load_estimator,
        numeric_columns,
        read_table,
    )

    if args.output:
        check_output_path(args.output, "-o")
    est, doc = load_estimator(args.estimator)
    frame, settings = read_table(args.table)
    where = f"feature table '{args.table}'"
    check_compatible(doc, settings, where)
    numeric_columns(frame, [*est.feature_names_, "cnpmi"], where)
    frame["estimate"] = est.predict(frame)
    if args.output:
        from tealeaves._io import atomic_write
        with atomic_write(args.output, what="-o table") as fh:
            frame.to_csv(fh, index=False)
    rows = [{"lang": r["lang"], "topic": int(r["topic"]) if "topic" in frame else i,
             "bible_cnpmi": r["cnpmi"], "estimate": r["estimate"]}
            for i, (_, r) in enumerate(frame.iterrows())]
    summary = {"estimator": args.estimator, "trained_on": doc["training_languages"],
               "features": doc["features"], "mean_bible_cnpmi": float(frame["cnpmi"].mean()),
               "mean_estimate": float(frame["estimate"].mean())}
    if "target" in frame:
        summary["pearson_bible_vs_target"] = pearson(frame["cnpmi"], frame["target"])
        summary["pearson_estimate_vs_target"] = pearson(frame["estimate"], frame["target"])
    if args.format == "json":
        print(dump_json({"rows": rows, **summary}))
        return 0
    print(format_table(rows))
    print(f"mean: Bible CNPMI {summary['mean_bible_cnpmi']:.3f}, estimate {summary['mean_estimate']:.3f} "
          f"(estimator trained on {'+'.join(doc['training_languages'])}, "
          f"features {','.join(doc['features'])})")
    return 0
