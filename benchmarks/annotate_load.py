"""Throughput of the annotation server under a crash: N simulated annotators, SIGKILL mid-run, restart.

Usage::

    python benchmarks/annotate_load.py [--clients 50] [--judgments 2000] [--kill-after 0.4]

Prints the judgments acknowledged per second before the kill and overall
(including the restart), and the exactly-once audit of the database.
Loopback (127.0.0.1) only; the server runs in a child process with the
default ``--synchronous FULL``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile

from tealeaves.human import _loadtest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--judgments", type=int, default=2000)
    parser.add_argument("--kill-after", type=float, default=0.4, help="share acknowledged before SIGKILL")
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report = _loadtest.run(tmp, n_clients=args.clients, n_judgments=args.judgments,
                               kill_after=args.kill_after, timeout=args.timeout)
    print(json.dumps(report, indent=1))
    print(f"throughput: {report['throughput_before_kill']:.0f} judgments/s before the kill, "
          f"{report['throughput_after_restart']:.0f} after the restart, "
          f"{report['throughput_overall']:.0f} judgments/s overall including a "
          f"{report['restart_seconds']:.2f} s restart")
    ok = (report["lost"] == 0 and report["stored_more_than_once"] == 0 and not report["client_errors"]
          and report["stored_rows"] == report["acknowledged"] == args.judgments)
    print("exactly-once:", "OK" if ok else "FAILED", f"({report['stored_rows']} stored, "
          f"{report['acknowledged']} acknowledged, {report['lost']} lost, "
          f"{report['stored_more_than_once']} duplicated)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
