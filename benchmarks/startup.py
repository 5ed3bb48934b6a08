"""Start-up time of ``import tealeaves`` and ``tealeaves --help`` (target: under 0.5 s each).

Each command runs ``--runs`` times in a fresh interpreter; the median wall time is printed, beside
the bare interpreter's start-up for reference.  Run: ``python benchmarks/startup.py``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "python -c pass (interpreter only)": [sys.executable, "-c", "pass"],
    "import tealeaves": [sys.executable, "-c", "import tealeaves"],
    "tealeaves --help": [sys.executable, "-m", "tealeaves", "--help"],
    "tealeaves coherence --help": [sys.executable, "-m", "tealeaves", "coherence", "--help"],
}


def median_seconds(cmd: list[str], runs: int) -> float:
    """Median wall time of ``runs`` executions of ``cmd``."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    for name, cmd in COMMANDS.items():
        print(f"{name:36s} {median_seconds(cmd, args.runs):6.3f} s (median of {args.runs})")


if __name__ == "__main__":
    main()
