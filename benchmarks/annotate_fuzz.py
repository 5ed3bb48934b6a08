"""Random request bodies against a real `tealeaves annotate serve` process: every reply < 500, no crash.

Usage::

    python benchmarks/annotate_fuzz.py [--examples 2000] [--seed 0]

Starts the server in a child process (so a crash or a hang is seen), posts
``--examples`` hypothesis-generated bodies (random JSON, judgment-shaped
objects with random field values, NaN literals, non-UTF-8 bytes) to one
annotator's judgment route, and prints the count of each status.  Fails if
any reply is >= 500 (none is documented for client input: 503 needs a
database that cannot be written), the connection drops, or the server exits.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
import time
from pathlib import Path

from tealeaves.human import _fuzz, _loadtest
from tealeaves.human.store import JudgmentStore


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    from hypothesis import HealthCheck, given, seed, settings

    with tempfile.TemporaryDirectory() as tmp:
        study = _loadtest.load_study(40)
        study_path = study.save(Path(tmp) / "study.json")
        db = Path(tmp) / "fuzz.sqlite"
        store = JudgmentStore(db)
        store.bind_study(study.fingerprint, study.name)
        token = store.ensure_annotators(["fuzz"])["fuzz"]
        store.close()
        port = _loadtest.free_port()
        proc = _loadtest.start_server(study_path, db, port, ["fuzz"])
        statuses: collections.Counter = collections.Counter()
        bad: list = []

        @seed(args.seed)
        @settings(max_examples=args.examples, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(_fuzz.bodies(study))
        def post(body):
            try:
                code, _, data = _fuzz.post(port, f"/api/{token}/judgments", body)
                json.loads(data)
            except Exception as exc:  # a dropped connection or a non-JSON reply
                bad.append(f"{type(exc).__name__}: {exc} for {body[:80]!r}")
                return
            statuses[code] += 1
            if code >= 500:
                bad.append(f"HTTP {code} for {body[:80]!r}")

        t0 = time.monotonic()
        try:
            post()
        finally:
            alive = proc.poll() is None
            proc.terminate()
            proc.wait(timeout=10)
        seconds = time.monotonic() - t0
    n = sum(statuses.values())
    print(f"{n} random bodies in {seconds:.1f} s ({n / max(seconds, 1e-9):.0f}/s); statuses: "
          f"{dict(sorted(statuses.items()))}; server alive at the end: {alive}")
    print("problems:", bad[:10] or "none")
    return 0 if alive and not bad and n >= args.examples * 0.9 else 1


if __name__ == "__main__":
    sys.exit(main())
