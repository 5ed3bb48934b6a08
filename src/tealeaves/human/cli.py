"""Command-line sub-commands of tealeaves.human.

``tealeaves human build-study | export-items | score | correlate`` and
``tealeaves annotate serve | export | build`` (``annotate build`` is the same
as ``human build-study``).
"""

from __future__ import annotations

import json
from pathlib import Path

from tealeaves._output import add_format_option, dump_json, format_table
from tealeaves.human import items as it

HUMAN_SCORES = ("model_precision", "mean_rating", "mean_multilingual_rating")


def register(subparsers) -> None:
    """Add ``human`` and ``annotate`` to the top-level parser."""
    human = subparsers.add_parser("human", help="human evaluation: build studies, score judgments, correlate")
    hsub = human.add_subparsers(dest="human_command", metavar="SUBCOMMAND", required=True)
    _add_build(hsub.add_parser("build-study", help="build a seeded study file (JSON) from a model"))
    p = hsub.add_parser("export-items", help="export a study's items as CSV or JSON for survey platforms")
    p.add_argument("study")
    p.add_argument("-o", "--out", required=True, help="output file (.csv or .json)")
    p.set_defaults(func=_export_items)
    _add_score(hsub.add_parser("score", help="score judgments (long format) against a study"))
    _add_correlate(hsub.add_parser("correlate", help="correlate human scores with automatic measures"))

    ann = subparsers.add_parser("annotate", help="run a lab annotation study in the browser")
    asub = ann.add_subparsers(dest="annotate_command", metavar="SUBCOMMAND", required=True)
    p = asub.add_parser("serve", help="serve a study to annotators on a local web server")
    p.add_argument("study")
    p.add_argument("--db", required=True, help="SQLite file of judgments (created if absent)")
    p.add_argument("--host", default="127.0.0.1", help="interface to bind (default: 127.0.0.1 only)")
    p.add_argument("--port", type=int, default=8000, help="port (0 picks a free one; default 8000)")
    p.add_argument("--annotators",
                   help="comma-separated annotator names (default: the study's, else the db's)")
    p.add_argument("--synchronous", default="FULL", choices=("FULL", "NORMAL", "EXTRA"),
                   help="SQLite synchronous mode (default FULL: durable even on power loss)")
    p.add_argument("--verbose", action="store_true", help="log every request")
    p.set_defaults(func=_serve)
    p = asub.add_parser("export", help="write the stored judgments in the long format (CSV)")
    p.add_argument("--db", required=True)
    p.add_argument("-o", "--out", required=True)
    p.set_defaults(func=_annotate_export)
    _add_build(asub.add_parser("build", help="same as `tealeaves human build-study`"))


def _add_build(p) -> None:
    p.add_argument("model", help="a model file (tealeaves .npz, or another toolkit's: docs/models.md); "
                                 "omit tasks that need it with --tasks")
    p.add_argument("-o", "--out", required=True, help="study file to write (JSON)")
    p.add_argument("--tasks", default="word_intrusion,rating",
                   help=f"comma-separated, from {','.join(it.TASKS)}")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--name", default="study")
    p.add_argument("--topics", help="comma-separated topic ids (default: all)")
    p.add_argument("--n-top", type=int, default=5, help="words shown with the intruder (default 5)")
    p.add_argument("--rating-words", type=int, default=10, help="words C shown for a rating (default 10)")
    p.add_argument("--confidence", action="store_true", help="also ask annotators for their confidence")
    p.add_argument("--checks", type=int, default=2, help="attention-check items per task (default 2)")
    p.add_argument("--doc-topic", help="topic intrusion: D x K proportions (.npy)")
    p.add_argument("--documents",
                   help="topic intrusion: JSON lines with 'title' and 'text' (and 'id'), one per row")
    p.add_argument("--n-documents", type=int, default=20)
    p.add_argument("--multilingual", help="multilingual rating: JSON {language: [[words of topic 0], ...]}")
    p.add_argument("--languages", help="the two languages shown side by side (default: the first two)")
    p.add_argument("--annotators", help="comma-separated annotator names recorded in the study")
    p.set_defaults(func=_build)


def _csv(text: str | None) -> list[str] | None:
    return None if not text else [t.strip() for t in text.split(",") if t.strip()]


def _build(args) -> int:
    import numpy as np

    from tealeaves.human.study import build_study
    from tealeaves.models.adapters import load_model

    model = load_model(args.model)
    kwargs = {}
    if args.doc_topic:
        kwargs["doc_topic"] = np.load(args.doc_topic)
        docs = [json.loads(line) for line in Path(args.documents).read_text(encoding="utf-8").splitlines()
                if line.strip()] if args.documents else []
        kwargs.update(titles=[d.get("title", "") for d in docs], texts=[d.get("text", "") for d in docs],
                      doc_ids=[str(d.get("id", i)) for i, d in enumerate(docs)])
    if args.multilingual:
        kwargs["multilingual"] = json.loads(Path(args.multilingual).read_text(encoding="utf-8"))
    topics = _csv(args.topics)
    study = build_study(model, tasks=_csv(args.tasks), seed=args.seed, name=args.name,
                        topics=[int(t) for t in topics] if topics else None, n_top=args.n_top,
                        rating_words=args.rating_words, confidence=args.confidence, n_checks=args.checks,
                        n_documents=args.n_documents, languages=_csv(args.languages),
                        annotators=_csv(args.annotators), **kwargs)
    study.save(args.out)
    n_checks = sum(bool(i.get("check")) for i in study.items)
    print(f"wrote {len(study)} items ({n_checks} checks) to {args.out}; "
          f"{len(study.excluded)} excluded")
    for exc in study.excluded:
        print(f"  excluded: {exc['reason']}")
    return 0


def _export_items(args) -> int:
    from tealeaves.human.export import export_items
    from tealeaves.human.study import Study

    export_items(Study.load(args.study), args.out)
    print(f"wrote {args.out}")
    return 0


def _add_score(p) -> None:
    p.add_argument("results", help="judgments in the long format (CSV/TSV/JSON)")
    p.add_argument("--study", required=True)
    p.add_argument("--columns", help="column mapping OURS=THEIRS,..., e.g. annotator=WorkerId")
    p.add_argument("--strict", action="store_true", help="fail on any unusable row instead of excluding it")
    p.add_argument("--annotators", help="comma-separated known annotators; rows of others are excluded "
                   "(default: the study's list, if it has one)")
    p.add_argument("--min-check-accuracy", type=float, default=1.0,
                   help="exclude annotators below this share of correct check answers (default 1.0)")
    p.add_argument("--seed", type=int, default=0, help="seed of the split-half reliability")
    p.add_argument("-o", "--out", help="also write the scores as JSON here (input of `human correlate`)")
    add_format_option(p)
    p.set_defaults(func=_score)


def _score(args) -> int:
    from tealeaves.human.results import parse_column_map, read_results
    from tealeaves.human.scoring import score
    from tealeaves.human.study import Study

    study = Study.load(args.study)
    results = read_results(args.results, study, parse_column_map(args.columns), strict=args.strict,
                           annotators=_csv(args.annotators))
    report = score(results, study, min_check_accuracy=args.min_check_accuracy, seed=args.seed)
    if args.out:
        Path(args.out).write_text(dump_json(report), encoding="utf-8")
    if args.format == "json":
        print(dump_json(report))
        return 0
    print(report["signature"])
    print(f"{report['n_judgments']} judgments from {report['n_annotators']} annotators; excluded by checks: "
          f"{report['screening']['excluded'] or 'none'}; import exclusions: {report['import']['excluded']}")
    if report["topics"]:
        print(format_table(report["topics"]))
    if report["documents"]:
        print(format_table(report["documents"]))
    print("agreement:", json.dumps(report["agreement"], indent=1))
    return 0


def _add_correlate(p) -> None:
    p.add_argument("scores",
                   help="human scores keyed by topic (output of `human score`, or CSV with 'topic')")
    p.add_argument("--measures", required=True,
                   help="automatic measures keyed by topic (CSV with 'topic', JSON)")
    p.add_argument("--score", help=f"which human score (default: the first of {', '.join(HUMAN_SCORES)})")
    p.add_argument("--measure", action="append", help="measure column(s) to use (default: all)")
    p.add_argument("--n-boot", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--level", type=float, default=0.95)
    p.add_argument("--plot", help="save a scatter plot (PNG) per measure: PATH, or PATH with {measure}")
    add_format_option(p)
    p.set_defaults(func=_correlate)


def _correlate(args) -> int:
    from tealeaves.human.correlation import CorrelationError, correlate, read_topic_table, scatter_plot

    scores = read_topic_table(args.scores)
    measures = read_topic_table(args.measures)
    name = args.score or next((s for s in HUMAN_SCORES if s in scores), None)
    if name not in scores:
        raise CorrelationError(f"no human score {name!r} in {args.scores}; available: {list(scores)}")
    chosen = args.measure or list(measures)
    missing = [m for m in chosen if m not in measures]
    if missing or not chosen:
        raise CorrelationError(f"measure(s) {missing} not in {args.measures}; available: {list(measures)}")
    out = [correlate(scores[name], measures[m], n_boot=args.n_boot, seed=args.seed, level=args.level,
                     human_name=name, measure_name=m) for m in chosen]
    if args.plot:
        for m in chosen:
            path = args.plot.format(measure=m) if "{measure}" in args.plot else (
                args.plot if len(chosen) == 1 else str(Path(args.plot).with_suffix("")) + f"_{m}.png")
            scatter_plot(scores[name], measures[m], path, human_name=name, measure_name=m)
    if args.format == "json":
        print(dump_json(out))
        return 0
    rows = [{"measure": o["measure"], "n": o["n_topics"], "method": meth, "estimate": o[meth]["estimate"],
             "ci_low": o[meth]["ci"]["low"], "ci_high": o[meth]["ci"]["high"]}
            for o in out for meth in ("pearson", "spearman", "kendall")]
    print(f"human score: {name}")
    print(format_table(rows))
    for o in out:
        print(o["signature"])
    return 0


def _serve(args) -> int:
    from tealeaves.human.app import serve
    from tealeaves.human.store import JudgmentStore, StoreError
    from tealeaves.human.study import Study

    study = Study.load(args.study)
    names = _csv(args.annotators) or study.annotators
    if not names:
        store = JudgmentStore(args.db)
        names = list(store.annotators())
        store.close()
    if not names:
        raise StoreError("no annotators: pass --annotators alice,bob (or record them in the study)")
    serve(study, args.db, names, host=args.host, port=args.port, quiet=not args.verbose,
          synchronous=args.synchronous)
    return 0


def _annotate_export(args) -> int:
    from tealeaves.human.export import write_long
    from tealeaves.human.store import JudgmentStore, StoreError

    if not Path(args.db).exists():
        raise StoreError(f"no judgment database at {args.db}")
    store = JudgmentStore(args.db)
    n = write_long(store.rows(), args.out, extra=("submitted_at",))
    store.close()
    print(f"wrote {n} judgments to {args.out}")
    return 0
