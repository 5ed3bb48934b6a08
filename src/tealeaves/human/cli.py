"""Command-line sub-commands of tealeaves.human.

``tealeaves human build-study | export-items | score | correlate | import |
describe-study | compare | models | auto-intrusion | ask`` and ``tealeaves annotate serve | export |
build`` (``annotate build`` is the same as ``human build-study``).
"""

from __future__ import annotations

import json
from pathlib import Path

from tealeaves._cli_args import add_examples, add_output, add_param, add_result_output, result_format
from tealeaves._io import atomic_write, write_text
from tealeaves._output import add_format_option, dump_json, format_table, print_report
from tealeaves._terminal import escape, escape_rows
from tealeaves.errors import ParameterError
from tealeaves.human import items as it
from tealeaves.human import study as st
from tealeaves.human.params import (
    BOOT_SEED,
    INDEX_BASE,
    LEVEL,
    MIN_CHECK_ACCURACY,
    MIN_CONFIDENCE,
    N_BOOT,
    PORT,
    SCORE_SEED,
)
from tealeaves.human.tables import HUMAN_SCORES, MEASURE_SCORES
from tealeaves.validation import check_unique

_BUILD = ("tealeaves.human.study:build_study", "tealeaves.models.adapters:load_model",
          "tealeaves.human.study:Study.save")
_TABLES = ("tealeaves.human.tables:load_tables", "tealeaves.human.tables:load_scores")

#: The public functions each sub-command calls (its options are their parameters: docs/naming.md).
API = {
    "human build-study": _BUILD,
    "annotate build": _BUILD,
    "human export-items": ("tealeaves.human.study:Study.load", "tealeaves.human.export:export_items"),
    "human score": ("tealeaves.human.study:Study.load", "tealeaves.human.results:read_results",
                    "tealeaves.human.results:parse_column_map", "tealeaves.human.scoring:score"),
    "human correlate": (*_TABLES, "tealeaves.human.correlation:correlate",
                        "tealeaves.human.comparison:by_group", "tealeaves.human.correlation:scatter_plot"),
    "human import": ("tealeaves.human.study:Study.load", "tealeaves.human.survey:import_survey",
                     "tealeaves.human.survey:save_judgments"),
    "human describe-study": ("tealeaves.human.survey:describe_study", "tealeaves.human.study:Study.save"),
    "human compare": (*_TABLES, "tealeaves.human.comparison:compare_measures"),
    "human models": (*_TABLES, "tealeaves.human.correlation:read_per_model",
                     "tealeaves.human.comparison:model_level", "tealeaves.human.comparison:model_plot"),
    "human auto-intrusion": ("tealeaves.human.study:Study.load",
                             "tealeaves.human.automatic:auto_intrusion",
                             "tealeaves.human.survey:save_judgments"),
    "human ask": ("tealeaves.human.llm.ask:ask",),
    "annotate serve": ("tealeaves.human.study:Study.load", "tealeaves.human.app:serve"),
    "annotate export": ("tealeaves.human.store:JudgmentStore", "tealeaves.human.export:write_long"),
}


def register(subparsers) -> None:
    """Add ``human`` and ``annotate`` to the top-level parser."""
    human = subparsers.add_parser("human", help="human evaluation: build studies, score judgments, correlate")
    hsub = human.add_subparsers(dest="human_command", metavar="SUBCOMMAND", required=True)
    add_examples(human, ("a word-intrusion and rating study of a model's topics",
                         "tealeaves human build-study model.npz -o study.json"),
                 ("score the judgments, then correlate the scores with coherence",
                  "tealeaves human score judgments.csv --study study.json -o scores.json"),
                 ("", "tealeaves human correlate scores.json --measure-scores coherence.json"))
    _add_build(hsub.add_parser("build-study", help="build a seeded study file (JSON) from a model"),
               "tealeaves human build-study")
    p = hsub.add_parser("export-items", help="export a study's items as CSV or JSON for survey platforms")
    p.add_argument("study", help="study file (JSON, from `human build-study` or `human describe-study`)")
    add_output(p, required=True, help="output file (.csv or .json)")
    add_examples(p, ("a study's items as CSV for a survey platform",
                     "tealeaves human export-items study.json -o items.csv"))
    p.set_defaults(func=_export_items)
    _add_score(hsub.add_parser("score", help="score judgments (long format) against a study"))
    _add_correlate(hsub.add_parser("correlate", help="correlate human scores with automatic measures"))
    _add_import(hsub.add_parser("import", help="import a survey export (any columns) as judgments + study"))
    _add_describe(hsub.add_parser("describe-study", help="the study record of judgments collected elsewhere"))
    _add_compare(hsub.add_parser("compare", help="difference of two measures' correlations with people"))
    _add_models(hsub.add_parser("models", help="model-level comparison: mean human score vs measure"))
    _add_auto_intrusion(hsub.add_parser("auto-intrusion", help="predict word-intrusion answers from a "
                                        "reference (Lau et al. 2014), written as an annotator's judgments"))
    _add_ask(hsub.add_parser("ask", help="ask a language model a study's items (OpenAI-compatible endpoint); "
                             "its answers are an annotator's judgments"))

    ann = subparsers.add_parser("annotate", help="run a lab annotation study in the browser")
    asub = ann.add_subparsers(dest="annotate_command", metavar="SUBCOMMAND", required=True)
    add_examples(ann, ("serve a study to two annotators, then export their judgments",
                       "tealeaves annotate serve study.json --db judgments.sqlite --annotators alice,bob"),
                 ("", "tealeaves annotate export --db judgments.sqlite -o judgments.csv"))
    p = asub.add_parser("serve", help="serve a study to annotators on a local web server")
    p.add_argument("study", help="study file (JSON, from `human build-study`)")
    add_examples(p, ("serve a study to two annotators on http://127.0.0.1:8000",
                     "tealeaves annotate serve study.json --db judgments.sqlite --annotators alice,bob"))
    p.add_argument("--db", required=True, help="SQLite file of judgments (created if absent)")
    p.add_argument("--host", default="127.0.0.1", help="interface to bind (default: 127.0.0.1 only)")
    add_param(p, PORT, default=8000)
    p.add_argument("--annotators",
                   help="comma-separated annotator names (default: the study's, else the db's)")
    p.add_argument("--synchronous", default="FULL", choices=("FULL", "NORMAL", "EXTRA"),
                   help="SQLite synchronous mode (default FULL: durable even on power loss)")
    p.add_argument("--allow-origin", action="append", default=[], metavar="URL",
                   help="an origin (scheme://host[:port]) besides the server's own address that may post "
                   "judgments, e.g. the public address of a reverse proxy; repeatable")
    p.add_argument("--verbose", action="store_true", help="log every request")
    p.set_defaults(func=_serve)
    p = asub.add_parser("export", help="write the stored judgments in the long format (CSV)")
    p.add_argument("--db", required=True, help="SQLite file of judgments written by `annotate serve`")
    add_examples(p, ("the judgments collected by `annotate serve`, for `human score`",
                     "tealeaves annotate export --db judgments.sqlite -o judgments.csv"))
    add_output(p, required=True, help="judgments in the long format (CSV)")
    p.set_defaults(func=_annotate_export)
    _add_build(asub.add_parser("build", help="same as `tealeaves human build-study`"),
               "tealeaves annotate build")


def _add_build(p, command: str) -> None:
    add_examples(p, ("word intrusion and rating items for every topic of a saved model",
                     f"{command} model.npz -o study.json"),
                 ("the same for one model of a results store",
                  f"{command} results.sqlite#sklearn-K20-s0 -o study.json"),
                 ("only topics 0, 3 and 7, with a confidence question and a fixed seed",
                  f"{command} model.npz --topics 0,3,7 --confidence --seed 1 -o study.json"))
    p.add_argument("model", help="a model file (tealeaves .npz, or another toolkit's: docs/models.md) or "
                                 "a results store's STORE#MODEL (e.g. results.sqlite#gibbs-K20-s0); "
                                 "omit tasks that need it with --tasks")
    add_output(p, required=True, help="study file to write (JSON)")
    p.add_argument("--tasks", default="word_intrusion,rating",
                   help=f"comma-separated, from {','.join(it.TASKS)}")
    add_param(p, st.SEED, default=0)
    add_param(p, st.NAME, default="study")
    p.add_argument("--topics", help="comma-separated topic ids (default: all)")
    add_param(p, st.N_TOP, default=5)
    add_param(p, st.RATING_WORDS, default=10)
    p.add_argument("--confidence", action="store_true", help="also ask annotators for their confidence")
    add_param(p, st.N_CHECKS, default=2)
    add_param(p, st.DOC_TOPIC)
    add_param(p, st.DOCUMENTS)
    add_param(p, st.N_DOCUMENTS, default=20)
    add_param(p, st.MULTILINGUAL)
    p.add_argument("--languages", help="the two languages shown side by side (default: the first two)")
    p.add_argument("--annotators", help="comma-separated annotator names recorded in the study")
    p.set_defaults(func=_build)


def _csv(text: str | None, name: str | None = None) -> list[str] | None:
    """A comma-separated option as a list (None if absent); with ``name``, empty items and repeats refused."""
    if text is None:
        return None
    values = [t.strip() for t in text.split(",")]
    if name is None:
        return [v for v in values if v] or None
    if not any(values) or "" in values:
        raise ParameterError(f"{name} {text!r} has an empty entry", fix=f"e.g. {name} a,b (no empty names)")
    return check_unique(values, name)


def _build(args) -> int:
    from tealeaves.models.adapters import load_model

    model = load_model(args.model)  # a model file, or a results store's STORE#MODEL
    topics = _csv(args.topics, "--topics")
    study = st.build_study(model, tasks=_csv(args.tasks, "--tasks"), seed=args.seed, name=args.name,
                           topics=topics, n_top=args.n_top, rating_words=args.rating_words,
                           confidence=args.confidence, n_checks=args.n_checks, doc_topic=args.doc_topic,
                           documents=args.documents, n_documents=args.n_documents,
                           multilingual=args.multilingual, languages=_csv(args.languages, "--languages"),
                           annotators=_csv(args.annotators, "--annotators"))
    study.save(args.output)
    n_checks = sum(bool(i.get("check")) for i in study.items)
    print(f"wrote {len(study)} items ({n_checks} checks) to {escape(args.output)}; "
          f"{len(study.excluded)} excluded")
    for exc in study.excluded:
        print(f"  excluded: {escape(exc['reason'])}")
    return 0


def _export_items(args) -> int:
    from tealeaves.human.export import export_items
    from tealeaves.human.study import Study

    export_items(Study.load(args.study), args.output)
    print(f"wrote {escape(args.output)}")
    return 0


def _add_score(p) -> None:
    p.add_argument("results", help="judgments in the long format (CSV/TSV/JSON)")
    p.add_argument("--study", required=True, help="the study file the judgments answer (JSON)")
    add_examples(p, ("score judgments against their study; write the scores for `human correlate`",
                     "tealeaves human score judgments.csv --study study.json -o scores.json"))
    p.add_argument("--columns", help="column mapping OURS=THEIRS,..., e.g. annotator=WorkerId")
    p.add_argument("--strict", action="store_true", help="fail on any unusable row instead of excluding it")
    p.add_argument("--annotators", help="comma-separated known annotators; rows of others are excluded "
                   "(default: the study's list, if it has one)")
    add_param(p, MIN_CHECK_ACCURACY, default=1.0)
    add_param(p, SCORE_SEED, default=0)
    p.add_argument("--encoding", help="encoding of the results file (default UTF-8; a BOM is removed)")
    add_param(p, MIN_CONFIDENCE)
    p.add_argument("--exclude-annotators", help="comma-separated annotators whose judgments are dropped")
    p.add_argument("--lenient", action="store_true",
                   help="count ratings outside the study's scale instead of failing")
    add_output(p, help="write the scores as JSON here (input of `human correlate`); then one line "
                       "confirms it instead of the text report (--format json still prints the JSON)")
    add_format_option(p)
    p.set_defaults(func=_score)


def _score(args) -> int:
    from tealeaves.human.results import parse_column_map, read_results
    from tealeaves.human.scoring import score
    from tealeaves.human.study import Study

    study = Study.load(args.study)
    results = read_results(args.results, study, parse_column_map(args.columns), strict=args.strict,
                           annotators=_csv(args.annotators, "--annotators"), encoding=args.encoding)
    report = score(results, study, min_check_accuracy=args.min_check_accuracy, seed=args.seed,
                   min_confidence=args.min_confidence,
                   exclude_annotators=_csv(args.exclude_annotators, "--exclude-annotators"),
                   lenient=args.lenient)
    text = dump_json(report)
    if args.output:
        write_text(args.output, text + "\n", what="scores file")
    if args.output and args.format != "json":  # the text report is not printed again: one line says where
        print(f"wrote the scores of {len(report['topics'])} topic(s) from {report['n_judgments']} judgments "
              f"to {escape(args.output)}")
        return 0
    if args.format == "json":
        print(text)
        return 0
    print(escape(report["signature"]))
    print(f"{report['n_judgments']} judgments from {report['n_annotators']} annotators; excluded by checks: "
          f"{report['screening']['excluded'] or 'none'}; import exclusions: {report['import']['excluded']}; "
          f"filters removed: {report['filters']['removed']}")
    for miss in report["unavailable"]:
        print(f"not scored: {miss['quantity']} of {miss['n_items']} {miss['task']} item(s): "
              f"needs {miss['needs']}")
    for rows in (report["topics"], report["documents"]):
        if rows:
            print(format_table(escape_rows(rows), list(dict.fromkeys(k for r in rows for k in r))))
    print("agreement:", json.dumps(report["agreement"], indent=1))
    return 0


def _add_correlate(p) -> None:
    p.add_argument("scores",
                   help="human scores keyed by topic (output of `human score`, or CSV with 'topic')")
    add_param(p, MEASURE_SCORES, required=True)
    p.add_argument("--score", help=f"which human score (default: the first of {', '.join(HUMAN_SCORES)})")
    p.add_argument("--measure", action="append", help="measure column(s) to use (default: all)")
    _add_interval(p)
    p.add_argument("--plot", help="save a scatter plot (PNG) per measure: PATH, or PATH with {measure}")
    _add_boot(p)
    p.add_argument("--by", help="also correlate per group of these topic-key parts, e.g. dataset,model")
    _add_key(p)
    add_result_output(p, "the correlations (CSV/TSV: one row per measure and method)")
    add_examples(p, ("the people's scores against the JSON (or CSV) of `tealeaves coherence`",
                     "tealeaves human correlate scores.json --measure-scores coherence.json"),
                 ("against a sweep's report (topic ids MODEL/TOPIC when the store has several models)",
                  "tealeaves human correlate scores.json --measure-scores report.json --measure npmi "
                  "-o r.csv"))
    p.set_defaults(func=_correlate)


def _add_interval(p) -> None:
    """The bootstrap interval's options: resamples, seed and confidence level."""
    add_param(p, N_BOOT, default=2000)
    add_param(p, BOOT_SEED, default=0)
    add_param(p, LEVEL, default=0.95)


def _add_boot(p) -> None:
    p.add_argument("--bootstrap", choices=("topics", "annotators", "both"), default="topics",
                   help="resample topics (default), annotators within topics, or both (two-level; needs the "
                   "JSON of `human score -o`)")


def _add_key(p) -> None:
    p.add_argument("--key", help="the parts of composite topic ids, e.g. dataset,model,topic (default: the "
                   "scores file's topic_key); a measures table with these columns is keyed by them")
    p.add_argument("--key-sep", help="separator of composite topic ids (default: the scores file's, else /)")


def _correlate(args) -> int:
    from tealeaves.human.correlation import correlate, scatter_plot

    if args.level >= 1:
        raise ParameterError(f"--level must be a number > 0 and < 1, got {args.level:g}", fix="e.g. 0.95")
    from tealeaves._output import Result
    from tealeaves.human.comparison import by_group

    fmt = result_format(args)
    scores, measures, name, chosen, dropped, meta = _tables(args)
    opts = {"n_boot": args.n_boot, "seed": args.seed, "level": args.level, "human_name": name,
            "bootstrap": args.bootstrap, "responses": meta["responses"].get(name), "llm": meta["llm"]}
    if args.by:
        out = []
        for m in chosen:
            for o in by_group(scores[name], measures[m], key=meta["key"], sep=meta["sep"],
                              by=_csv(args.by, "--by"), measure_name=m, **opts):
                out.append(o)
    else:
        out = [correlate(scores[name], measures[m], measure_name=m, **opts) for m in chosen]
    for o in out:
        o["dropped"] = {"human": dropped["scores"].get(name),
                        "measure": dropped["measures"].get(o.get("measure"))}
    if args.plot:
        for m in chosen:
            path = args.plot.format(measure=m) if "{measure}" in args.plot else (
                args.plot if len(chosen) == 1 else str(Path(args.plot).with_suffix("")) + f"_{m}.png")
            with atomic_write(path, "wb", what="plot") as fh:
                scatter_plot(scores[name], measures[m], fh, human_name=name, measure_name=m)
    rows = [{**({"group": _group_label(o["group"])} if "group" in o else {}), "measure": o["measure"],
             "n": o["n_topics"], "method": meth, "estimate": o[meth]["estimate"],
             "ci_low": o[meth]["ci"]["low"], "ci_high": o[meth]["ci"]["high"]}
            for o in out if "pearson" in o for meth in ("pearson", "spearman", "kendall")]
    Result(out, rows, text=_correlate_text(name, rows, out)).emit(fmt, args.output, "-o correlations file")
    return 0


def _correlate_text(name: str, rows: list, out: list) -> str:
    """The text report of ``human correlate``: the table, true-score correlations, signatures."""
    lines = [f"human score: {escape(name)}", format_table(escape_rows(rows))]
    for o in out:
        if "undefined" in o:
            lines.append(f"{escape(_group_label(o['group']))}: {escape(o['undefined'])}")
        elif "true_score" in o["pearson"]:
            t = o["pearson"]["true_score"]
            where = f", {_group_label(o['group'])}" if "group" in o else ""
            lines.append(f"correlation with the true scores ({escape(o['measure'])}{escape(where)}): " + (
                escape(t["undefined"]) if "undefined" in t else
                f"{t['estimate']:.3f} [{t['ci']['low']:.3f}, {t['ci']['high']:.3f}], reliability "
                f"{t['reliability']:.3f}"))
    lines += [escape(sig) for sig in dict.fromkeys(o["signature"] for o in out if "signature" in o)]
    return "\n".join(lines)


def _group_label(group) -> str:
    return group if isinstance(group, str) else ",".join(f"{k}={v}" for k, v in group.items())


def _scores(args):
    """The human scores table, the chosen score's name, its dropped counts and the key/sep/responses."""
    from tealeaves.human.tables import load_scores

    return load_scores(args.scores, score=args.score, key=_csv(args.key, "--key"), key_sep=args.key_sep)


def _add_tables(p, scores: str, measure_scores: str, **measure) -> None:
    """The tables :func:`_tables` reads: human scores, measures, the measure(s) (a required ``--measure``
    with ``measure``'s keywords) and the human score."""
    p.add_argument("scores", help=scores)
    add_param(p, MEASURE_SCORES, required=True, help=measure_scores)
    p.add_argument("--measure", required=True, **measure)
    p.add_argument("--score", help=f"which human score (default: the first of {', '.join(HUMAN_SCORES)})")


def _tables(args, chosen=None):
    """Scores, measures, the human score's name, the chosen measures, dropped counts and key/responses."""
    from tealeaves.human.tables import load_tables

    measures = chosen or (check_unique(args.measure, "--measure") if args.measure else None)
    return load_tables(args.scores, args.measure_scores, score=args.score, measures=measures,
                       key=_csv(args.key, "--key"), key_sep=args.key_sep)


def _serve(args) -> int:
    from tealeaves.human.app import serve
    from tealeaves.human.store import JudgmentStore, StoreError
    from tealeaves.human.study import Study, check_annotators

    study = Study.load(args.study)
    coded = [i["id"] for i in study.items if i.get("coding") == "correct"]
    if coded:
        raise ParameterError(f"the study's item(s) {[escape(c) for c in coded[:3]]} are coded "
                             "correct/incorrect (an external study without its intruders): there are no "
                             "words to show",
                             fix="describe the study with --intruders to serve word intrusion, or serve only "
                             "rating items")
    names = _csv(args.annotators, "--annotators") or study.annotators
    if not names and Path(args.db).is_file():
        store = JudgmentStore(args.db, readonly=True)
        names = list(store.annotators())
        store.close()
    if not names:
        raise StoreError("no annotators: pass --annotators alice,bob (or record them in the study)")
    serve(study, args.db, check_annotators(names), host=args.host, port=args.port, quiet=not args.verbose,
          synchronous=args.synchronous, allowed_origins=args.allow_origin)
    return 0


def _annotate_export(args) -> int:
    from tealeaves.human.export import write_long
    from tealeaves.human.store import JudgmentStore

    store = JudgmentStore(args.db, readonly=True)
    try:
        n = write_long(store.rows(), args.output, extra=("submitted_at",))
    finally:
        store.close()
    print(f"wrote {n} judgments to {escape(args.output)}")
    return 0


def _add_import(p) -> None:
    p.add_argument("results", help="the survey export: CSV/TSV/JSON, one row per judgment")
    p.add_argument("--item", required=True, help="comma-separated columns identifying an item, e.g. "
                   "task,dataset,model,topic (the topic id is these without the task column)")
    p.add_argument("--annotator", required=True, help="the annotator (respondent) column")
    p.add_argument("--response", required=True, help="the response column")
    p.add_argument("--confidence", help="a confidence or familiarity column (kept for --min-confidence)")
    p.add_argument("--task", help="the task of every row: rating or word_intrusion")
    p.add_argument("--task-column", help="the column naming each row's task")
    p.add_argument("--task-values", help="what the task column's values mean, e.g. "
                   "coherence=rating,intrusion=word_intrusion")
    p.add_argument("--kind", choices=("chosen-word", "option-index", "correct"),
                   help="what an intrusion response is: the chosen word, the chosen option's index, or "
                   "correct/incorrect (1/0, true/false)")
    add_param(p, INDEX_BASE, help="with --kind option-index: 0 if the first option is 0, 1 if it is 1")
    p.add_argument("--scale", help="the rating scale LOW-HIGH, e.g. 1-3 (whole numbers)")
    p.add_argument("--scale-map", help="rating labels and their values, e.g. bad=1,ok=2,good=3")
    p.add_argument("--lenient", action="store_true",
                   help="exclude and count unusable rows instead of failing")
    p.add_argument("--study", help="the study the items belong to (from describe-study); default: derive one")
    p.add_argument("--study-out", help="write the (derived) study record here (JSON)")
    p.add_argument("--key-sep", default="/", help="separator joining the key columns (default /)")
    p.add_argument("--encoding", help="encoding of the results file (default UTF-8; a BOM is removed)")
    add_output(p, required=True, help="judgments in the long format (CSV), or a judgment "
               "database (.sqlite/.db, as `annotate serve` writes) bound to the study")
    add_format_option(p)
    add_examples(p, ("a survey export with one rating per row, its items named by dataset, model and topic",
                     "tealeaves human import survey.csv --item dataset,model,topic --annotator WorkerId "
                     "--response Answer --task rating --scale 1-3 --study-out study.json -o judgments.csv"))
    p.set_defaults(func=_import)


def _import(args) -> int:
    from tealeaves.human.study import Study
    from tealeaves.human.survey import import_survey, parse_map, parse_scale, save_judgments

    study = Study.load(args.study) if args.study else None
    long, study, report = import_survey(
        args.results, item=_csv(args.item, "--item"), annotator=args.annotator, response=args.response,
        confidence=args.confidence, task=args.task, task_column=args.task_column,
        task_values=parse_map(args.task_values, "task_values"), kind=args.kind, index_base=args.index_base,
        scale=parse_scale(args.scale), scale_map=parse_map(args.scale_map, "scale_map"),
        lenient=args.lenient, study=study, key_sep=args.key_sep, encoding=args.encoding)
    report["output"] = save_judgments(long, study, args.output)
    if args.study_out:
        study.save(args.study_out)
    report["study_fingerprint"] = study.fingerprint
    print_report(args.format, report, lambda: f"imported {report['rows_kept']} of {report['rows_read']} rows "
                 f"to {escape(args.output)}; excluded: {report['excluded']}")
    return 0


def _add_auto_intrusion(p) -> None:
    from tealeaves.coherence.params import WINDOW
    from tealeaves.human.params import METHOD, N_FOLDS

    p.add_argument("study", help="the study file (JSON) with word-intrusion items")
    p.add_argument("--reference", required=True, help="the reference index file (`tealeaves index build`)")
    add_param(p, METHOD, default="npmi")
    add_param(p, WINDOW, default="doc", help="'doc' or a sliding window size in tokens")
    add_param(p, N_FOLDS, default=5)
    add_param(p, SCORE_SEED, default=0, help="seed of the ranker's folds")
    add_output(p, required=True, help="judgments in the long format (CSV), or a judgment database "
               "(.sqlite/.db) bound to the study")
    add_format_option(p)
    add_examples(p, ("predict a study's intruders from NPMI in a reference, then score them like people's",
                     "tealeaves human auto-intrusion study.json --reference ref.idx -o auto.csv"),
                 ("", "tealeaves human score auto.csv --study study.json"))
    p.set_defaults(func=_auto_intrusion)


def _auto_intrusion(args) -> int:
    from tealeaves.human.automatic import auto_intrusion
    from tealeaves.human.study import Study
    from tealeaves.human.survey import save_judgments

    study = Study.load(args.study)
    result = auto_intrusion(study, args.reference, method=args.method, window=args.window,
                            n_folds=args.n_folds, seed=args.seed)
    report = {**result.to_dict(), "output": save_judgments(result.judgments(), study, args.output)}
    print_report(args.format, report, lambda: f"{report['annotator']}: predicted {report['n_items']} "
                 f"intruders, accuracy {report['accuracy']:.3f} (chance {report['chance']:.3f}); "
                 f"wrote {escape(args.output)}")
    return 0


def _add_describe(p) -> None:
    p.add_argument("--topics", required=True, help="JSON {topic: [words]} or records with topic and words")
    p.add_argument("--intruders", help="JSON {topic: intruder} or {topic: {intruder, options}}")
    p.add_argument("--tasks", default="rating,word_intrusion", help="rating and/or word_intrusion")
    p.add_argument("--scale", help="the rating scale LOW-HIGH (default 0-2)")
    p.add_argument("--checks", help="JSON {topic: {task: [accepted responses]}}: attention-check items")
    p.add_argument("--name", default="external", help="the study's name, recorded in it (default external)")
    add_examples(p, ("the study record of ratings collected elsewhere, on a 1-3 scale",
                     "tealeaves human describe-study --topics topics.json --tasks rating --scale 1-3 "
                     "-o study.json"))
    p.add_argument("--key-sep", default="/", help="separator between the task and the topic in item ids")
    add_output(p, required=True, help="study file to write (JSON)")
    p.set_defaults(func=_describe)


def _describe(args) -> int:
    from tealeaves.human.survey import describe_study, parse_scale

    scale = parse_scale(args.scale)
    study = describe_study(args.topics, intruders=args.intruders or None, checks=args.checks or None,
                           tasks=_csv(args.tasks, "--tasks"), name=args.name, key_sep=args.key_sep,
                           scale=None if scale is None else [str(v) for v in range(scale[0], scale[1] + 1)])
    study.save(args.output)
    print(f"wrote {len(study)} items to {escape(args.output)}")
    return 0


def _add_compare(p) -> None:
    _add_tables(p, "human scores keyed by topic (output of `human score`, or CSV)",
                "automatic measures keyed by topic", action="append", help="the two measures (give it twice)")
    p.add_argument("--method", choices=("pearson", "spearman", "kendall"), default="pearson",
                   help="the correlation compared (default pearson)")
    _add_boot(p)
    _add_interval(p)
    _add_key(p)
    add_result_output(p, "the comparison (CSV/TSV: one row)")
    add_examples(p, ("is NPMI closer to people than UMass? the difference of their correlations",
                     "tealeaves human compare scores.json --measure-scores measures.csv --measure npmi "
                     "--measure umass"))
    p.set_defaults(func=_compare)


def _compare(args) -> int:
    from tealeaves.human.comparison import compare_measures

    if args.measure and len(args.measure) != 2:
        raise ParameterError(f"--measure must be given exactly twice, got {len(args.measure)}",
                             fix="e.g. --measure npmi --measure umass")
    fmt = result_format(args)
    scores, measures, name, chosen, dropped, meta = _tables(args)
    out = compare_measures(scores[name], measures[chosen[0]], measures[chosen[1]], method=args.method,
                           names=chosen, human_name=name, n_boot=args.n_boot, seed=args.seed,
                           level=args.level, bootstrap=args.bootstrap,
                           responses=meta["responses"].get(name), llm=meta["llm"])
    out["dropped_on_read"] = {"human": dropped["scores"].get(name),
                              **{m: dropped["measures"].get(m) for m in chosen}}
    from tealeaves._output import Result

    w = out.get("williams_t") if "t" in out.get("williams_t", {}) else None
    text = (f"{escape(chosen[0])} {out[chosen[0]]:.4f} vs {escape(chosen[1])} {out[chosen[1]]:.4f} over "
            f"{out['n_topics']} topics (dropped: {out['dropped']}): difference {out['difference']:.4f} "
            f"[{out['ci']['low']:.4f}, {out['ci']['high']:.4f}]"
            + (f"; Williams' t = {w['t']:.3f}, df = {w['df']}, p = {w['p_value']:.4f}" if w else "")
            + "\n" + escape(out["signature"]))
    row = {"a": chosen[0], "b": chosen[1], "correlation_a": out[chosen[0]], "correlation_b": out[chosen[1]],
           "difference": out["difference"], "low": out["ci"]["low"], "high": out["ci"]["high"],
           "n_topics": out["n_topics"], "signature": out["signature"]}
    Result(out, [row], text=text).emit(fmt, args.output, "-o comparison file")
    return 0


def _add_models(p) -> None:
    _add_tables(p, "human scores keyed by composite topic ids (output of `human score`)",
                "per-topic measures, or per-model values (--per-model)", help="the measure, e.g. heldout_ll")
    p.add_argument("--group", default="model", help="the topic-key part(s) naming a model (default model; "
                   "dataset,model for a model per dataset)")
    p.add_argument("--per-model", action="store_true", help="the measures table has one row per model, "
                   "keyed by the --group column (e.g. held-out likelihood)")
    _add_interval(p)
    p.add_argument("--plot", help="save the plot of human score against the measure per model (.png/.svg)")
    _add_key(p)
    add_result_output(p, "the per-model table")
    add_examples(p, ("mean human score per model against each model's held-out likelihood",
                     "tealeaves human models scores.json --measure-scores models.csv --measure heldout_ll "
                     "--per-model"))
    p.set_defaults(func=_models)


def _models(args) -> int:
    from tealeaves.human.comparison import model_level, model_plot
    from tealeaves.human.correlation import read_per_model

    suffix = Path(args.plot).suffix.lower() if args.plot else None
    if args.plot and suffix not in (".png", ".svg"):
        raise ParameterError(f"--plot {escape(args.plot)!r} must be named .png or .svg")
    fmt = result_format(args)
    if args.per_model:
        scores, name, _, meta = _scores(args)
        measure = read_per_model(args.measure_scores, _csv(args.group, "--group"), args.measure, meta["sep"])
    else:
        scores, measures, name, _, _, meta = _tables(args, [args.measure])
        measure = measures[args.measure]
    key, sep = meta["key"], meta["sep"]
    group = _csv(args.group, "--group")
    out = model_level(scores[name], measure, key=key, sep=sep, group=group, per_model=args.per_model,
                      n_boot=args.n_boot, seed=args.seed, level=args.level, human_name=name,
                      measure_name=args.measure, llm=meta["llm"])
    if args.plot:
        with atomic_write(args.plot, "wb", what="plot") as fh:
            model_plot(out, fh, fmt=suffix[1:])
    from tealeaves._output import Result

    rows = [{"/".join(group): r["label"], "human": r["human"]["mean"], "human_low": r["human"]["low"],
             "human_high": r["human"]["high"],
             "measure": None if r["measure"] is None else r["measure"]["mean"]}
            for r in out["models"]]
    text = format_table(escape_rows(rows)) + "\n" + escape(out["signature"])
    Result(out, rows, text=text).emit(fmt, args.output, "-o table file")
    return 0


def _add_ask(p) -> None:
    from tealeaves.human.llm import params as llm
    from tealeaves.human.params import N_SAMPLES, PROMPTS, TEMPERATURE

    p.add_argument("study", help="study file (JSON, from `human build-study` or `human describe-study`)")
    add_param(p, llm.ENDPOINT, required=True)
    add_param(p, llm.MODEL, required=True)
    add_output(p, required=True, help="the judgment database to write (.sqlite/.db, as `annotate serve` and "
               "`human import` write; created if absent)")
    p.add_argument("--tasks", help="comma-separated tasks to ask (default: word_intrusion, rating and "
                   "topic_intrusion, those the study has)")
    add_param(p, PROMPTS)
    add_param(p, N_SAMPLES, default=1)
    add_param(p, TEMPERATURE, default=0.0)
    add_param(p, llm.N_JOBS, default=4)
    add_param(p, llm.REQUESTS_PER_MINUTE)
    add_param(p, llm.MAX_REQUESTS)
    add_param(p, llm.TIME_BUDGET)
    add_param(p, llm.TIMEOUT, default=60.0)
    add_param(p, llm.MAX_RETRIES, default=5)
    add_param(p, llm.BACKOFF, default=1.0)
    add_param(p, llm.API_KEY_ENV, default="OPENAI_API_KEY")
    add_param(p, llm.CACHE, help="SQLite file caching every request and answer (default: "
              "OUTPUT.llm-cache.sqlite beside the database); a rerun asks only what is missing")
    add_format_option(p)
    add_examples(p, ("ask a local llama.cpp server the study's items five times each, at temperature 0.7",
                     "tealeaves human ask study.json --endpoint http://127.0.0.1:8080/v1 --model llama-3-8b "
                     "--n-samples 5 --temperature 0.7 -o judgments.sqlite"),
                 ("ask each rating and intrusion item with the standard prompt and the variant with the "
                  "New York Times description, twice each (4 annotators per task)",
                  "tealeaves human ask study.json --endpoint http://127.0.0.1:8080/v1 --model llama-3-8b "
                  "--prompts stammbach2023-rating-v1,stammbach2023-rating-nyt-v1,stammbach2023-intrusion-v1,"
                  "stammbach2023-intrusion-nyt-v1 --n-samples 2 -o judgments.sqlite"),
                 ("then score the model's answers like people's",
                  "tealeaves human score judgments.sqlite --study study.json"))
    p.set_defaults(func=_ask)


def _ask(args) -> int:
    import sys

    from tealeaves.human.llm.ask import ask

    report = ask(args.study, endpoint=args.endpoint, model=args.model, output=args.output,
                 tasks=_csv(args.tasks, "--tasks"), prompts=_csv(args.prompts, "--prompts"),
                 n_samples=args.n_samples, temperature=args.temperature,
                 n_jobs=args.n_jobs, requests_per_minute=args.requests_per_minute,
                 max_requests=args.max_requests, time_budget=args.time_budget, api_key_env=args.api_key_env,
                 cache=args.cache, timeout=args.timeout, max_retries=args.max_retries, backoff=args.backoff,
                 progress=args.format != "json" and sys.stderr.isatty())
    if args.format == "json":
        print(dump_json(report.to_dict()))
        return 0
    c = report.counts
    print(f"{c['requests']} question(s) to {len(report.annotators)} annotator(s): {c['asked']} asked, "
          f"{c['cached']} from the cache, {c['failed']} failed, {c['not_asked']} not asked (budget); "
          f"{c['usable']} usable, {c['unusable']} unusable; judgments {c['stored']} stored, "
          f"{c['duplicate']} already stored, {c['conflict']} conflicting; wrote {escape(args.output)}")
    if report.skipped:
        print(f"not put to the model: {report.skipped}")
    for row in report.unusable[:5]:
        print(f"  unusable ({row['reason']}): {escape(row['item_id'])} {escape(row['annotator'])}: "
              f"{escape(repr(row['raw'][:80]))}")
    for row in report.failed[:5]:
        print(f"  failed: {escape(row['item_id'])} {escape(row['annotator'])}: {escape(str(row['error']))}")
    print(escape(str(report.signature)))
    return 0
