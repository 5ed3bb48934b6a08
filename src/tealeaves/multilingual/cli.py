"""Command-line sub-commands of tealeaves.multilingual: ``tealeaves cnpmi``."""

from __future__ import annotations

import json
from pathlib import Path

from tealeaves._output import add_format_option, dump_json, format_table
from tealeaves.errors import TealeavesError

#: Reference corpora ``tealeaves cnpmi`` builds from ``$TEALEAVES_DATA`` (see ``named_reference``).
REFERENCES = ("bible", "flores", "ntrex", "tico19", "udhr")
LANGUAGES = ("ro", "sv", "am", "tl", "tr", "zh")


def register(subparsers) -> None:
    """Add ``tealeaves cnpmi`` to the top-level parser."""
    p = subparsers.add_parser(
        "cnpmi", help="multilingual topic measures: CNPMI, INPMI, TWC, MTA (Hao et al. 2018)",
        description="Score multilingual topics given as JSON {lang: [[word, ...], ...]} against an "
                    "aligned reference built from $TEALEAVES_DATA.")
    p.add_argument("topics", help="JSON file: {language: [[top words of topic 0], ...], ...}")
    p.add_argument("--reference", choices=REFERENCES, default="bible", help="aligned reference corpus")
    p.add_argument("--top", type=int, default=10, help="cardinality C: top words used per topic (default 10)")
    p.add_argument("--zero", choices=("limit", "epsilon", "zero"), default="limit",
                   help="NPMI of present words that never co-occur (default: limit, -1)")
    p.add_argument("--dictionary", default=None,
                   help="bilingual dictionary for MTA (MUSE 'en foreign' or Wiktionary '.all'); "
                        "two languages only")
    add_format_option(p)
    p.set_defaults(func=_cnpmi)


def load_topics(path: str | Path, top: int) -> dict[str, list[list[str]]]:
    """Read ``{lang: [[word, ...], ...]}``, keep the first ``top`` words of each topic, lowercased."""
    from tealeaves.corpus.aligned import normalize_language

    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise TealeavesError(f"cannot read topics from {path}: {exc}; give a JSON object "
                             "{language: [[word, ...], ...]}") from exc
    if not isinstance(raw, dict) or not all(isinstance(v, list) for v in raw.values()):
        raise TealeavesError(f"{path} must hold a JSON object {{language: [[word, ...], ...]}}")
    # references are lowercased by their preprocessing, so topic words are too
    return {normalize_language(k): [[str(w).lower() for w in t[:top]] for t in v] for k, v in raw.items()}


def _cnpmi(args) -> int:
    from tealeaves.multilingual import measures as M
    from tealeaves.multilingual.dictionaries import read_dictionary
    from tealeaves.multilingual.reference import named_reference

    topics = load_topics(args.topics, args.top)
    langs = list(topics)
    ref = named_reference(args.reference, langs)
    scores = [M.cnpmi(topics, ref, langs, args.zero), M.inpmi(topics, ref, langs, args.zero),
              M.twc(topics, ref, langs)]
    if args.dictionary:
        if len(langs) != 2:
            raise TealeavesError(f"MTA compares two languages; the topics have {langs}")
        d = read_dictionary(args.dictionary)
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


def add_bible_vs_modern_parser(subparsers) -> None:
    """Register ``bible-vs-modern`` under ``tealeaves reproduce`` (kept here: importing it is cheap)."""
    p = subparsers.add_parser("bible-vs-modern", help="Bible-to-modern coherence estimator (Hao et al. 2018)")
    p.add_argument("--quick", action="store_true", help="reduced CI size (4 languages, one model each)")
    p.add_argument("--languages", nargs="+", default=None, help=f"languages paired with English {LANGUAGES}")
    p.add_argument("--rich", choices=("heldout", "all"), default="heldout",
                   help="rich reference: modern tuples not used for training (default) or all of them")
    p.add_argument("--n-iter", type=int, default=None, help="Gibbs sweeps per model")
    p.add_argument("--topics-csv", default=None, help="also write the per-topic feature table here")
    add_format_option(p)
    p.set_defaults(func=_bible_vs_modern)


def _bible_vs_modern(args) -> int:
    import sys

    from tealeaves.reproduce.bible_vs_modern import Config, report, run

    config = Config.quick() if args.quick else Config()
    if args.languages:
        config.languages = tuple(args.languages)
    if args.n_iter:
        config.n_iter = args.n_iter
    config.rich = args.rich
    result = run(config, log=lambda m: print(m, file=sys.stderr))
    if args.topics_csv:
        result["topics"].to_csv(args.topics_csv, index=False)
    result.pop("topics")
    print(dump_json(result) if args.format == "json" else report(result))
    return 0
