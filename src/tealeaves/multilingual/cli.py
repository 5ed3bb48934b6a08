"""Command-line sub-commands of tealeaves.multilingual: ``tealeaves cnpmi``.

The topics file follows the schema of :mod:`tealeaves.multilingual.topics`
(``{language: [[word, ...], ...]}``); every option is validated at the boundary
(:mod:`tealeaves.validation`).
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Iterator

from tealeaves._output import add_format_option, dump_json, format_table
from tealeaves.errors import ParameterError
from tealeaves.multilingual.names import REFERENCES
from tealeaves.validation import int_arg


def register(subparsers) -> None:
    """Add ``tealeaves cnpmi`` to the top-level parser."""
    p = subparsers.add_parser(
        "cnpmi", help="multilingual topic measures: CNPMI, INPMI, TWC, MTA (Hao et al. 2018)",
        description="Score multilingual topics given as JSON {lang: [[word, ...], ...]} against an "
                    "aligned reference built from $TEALEAVES_DATA.")
    p.add_argument("topics", help="JSON file: {language: [[top words of topic 0], ...], ...} "
                                  "(schema: docs/multilingual.md)")
    p.add_argument("--reference", choices=REFERENCES, default="bible", help="aligned reference corpus")
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


@contextlib.contextmanager
def warnings_to_stderr() -> Iterator[None]:
    """Print the warnings raised inside as ``tealeaves: warning: ...`` lines on stderr."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for w in caught:
        print(f"tealeaves: warning: {w.message}", file=sys.stderr)


def _cnpmi(args) -> int:
    from tealeaves.multilingual import measures as M
    from tealeaves.multilingual.dictionaries import read_dictionary
    from tealeaves.multilingual.reference import named_reference
    from tealeaves.multilingual.topics import read_topics

    with warnings_to_stderr():
        topics = read_topics(args.topics, args.top, args.encoding)
    langs = list(topics)
    if len(langs) < 2:
        raise ParameterError(f"the topics file has one language ({langs[0]}); CNPMI compares two or more",
                             fix="give every topic in at least two languages")
    if args.dictionary and len(langs) != 2:
        raise ParameterError(f"MTA compares two languages; the topics have {langs}",
                             fix="give a topics file with two languages, or drop --dictionary")
    d = read_dictionary(args.dictionary, encoding=args.encoding) if args.dictionary else None
    ref = named_reference(args.reference, langs)
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
