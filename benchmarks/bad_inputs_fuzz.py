"""The long version of tests/test_properties.py: thousands of random inputs through the CLI.

Runs the same property checks as the test file (imported from it, one copy of the logic) on
many more examples:

* random topic files (unicode words, blank lines, tabs, CRLF) scored by ``tealeaves
  coherence`` against the UDHR's English articles, checked against a brute-force NPMI;
* random corpora (token lists incl. empty documents, BOM, CRLF) through ``tealeaves index
  build`` (document frequencies recounted), ``coherence`` (brute-force NPMI) and document
  completion with a one-topic model (log-likelihood recomputed from the split sizes);
* random JSON documents read as multilingual topics files (the schema's reading or a schema
  error, nothing else).

Each input must end in exit 0 with the recomputed result or in a clean ``tealeaves: error``;
a traceback, an internal error, NaN/infinity in JSON output or a wrong number is a failure.
Prints the number of inputs and outcomes per property and exits 1 on any failure.

Run from the repository root::

    TEALEAVES_DATA=/path/to/data PYTHONPATH=src python benchmarks/bad_inputs_fuzz.py [--examples N]
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=800, help="random inputs per property (default 800)")
    parser.add_argument("--seed", type=int, default=20261201, help="hypothesis seed (default 20261201)")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(ROOT / "tests"))
    from hypothesis import HealthCheck, given, seed, settings

    import test_properties as P

    outcomes: collections.Counter = collections.Counter()
    original_run = P.run

    def counting_run(cli_args):
        code, out, err = original_run(cli_args)
        outcomes[(str(cli_args[0]), code)] += 1
        return code, out, err

    P.run = counting_run
    many = settings(max_examples=args.examples, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))
    with tempfile.TemporaryDirectory() as tmp:
        index, vocabulary, sets = P.udhr_reference(Path(tmp))
        properties = {
            "topic files -> coherence": (P.topic_files(vocabulary),
                                         lambda c: P.check_topic_file(c[0], c[1], index, sets)),
            "corpora -> index build, coherence, completion": (P.corpora(), lambda c: P.check_corpus(*c)),
            "JSON -> multilingual topics": (P.multilingual_topics(),
                                            lambda c: P.check_multilingual_topics(*c)),
        }
        failures = 0
        total = 0
        for name, (strategy, check) in properties.items():
            count = [0]
            prop = _counted(check, count)
            t0 = time.perf_counter()
            outcomes.clear()
            try:
                seed(args.seed)(many(given(strategy)(prop)))()
                status = "ok"
            except Exception:  # noqa: BLE001 - report and count every failure
                failures += 1
                status = "FAILED\n" + traceback.format_exc(limit=3)
            total += count[0]
            cli = ", ".join(f"{cmd} exit {code}: {n}" for (cmd, code), n in sorted(outcomes.items()))
            seconds = time.perf_counter() - t0
            print(f"{name}: {count[0]} inputs in {seconds:.1f} s; {cli or 'API only'}; {status}")
    print(f"{total} random inputs, {failures} failing properties")
    return 1 if failures else 0


def _counted(check, count):
    """A one-argument property for @given that counts its calls."""
    def prop(case):
        count[0] += 1
        check(case)
    return prop


if __name__ == "__main__":
    sys.exit(main())
