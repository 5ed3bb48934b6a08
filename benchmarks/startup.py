"""Start-up time of ``import tealeaves`` and ``tealeaves --help`` (target: under 0.5 s each), and the
first ``tealeaves coherence`` call, cold and warm.

Each command runs ``--runs`` times in a fresh interpreter; the median wall time is printed, beside
the bare interpreter's start-up for reference.

``--first-call`` (needs the Reuters data: ``TEALEAVES_DATA``) times ``tealeaves coherence`` of 20
topics (NPMI, top 10 words) on the Reuters training stories (a whitespace-tokenised file, indexed in
memory): **cold**, the first call after an install, with a fresh, empty numba cache
(``NUMBA_CACHE_DIR`` pointing to a new folder, so every kernel the call needs is compiled), then
**warm**, the same call again (kernels loaded from that cache), ``--runs`` times each; and the
seconds numba spent compiling each kernel in the cold call (from its ``numba:compile`` events).
The machine's load average is printed with the figures.  Target: cold under 3 s.

    python benchmarks/startup.py [--runs 7] [--first-call]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


#: Runs ``tealeaves`` (argv after the script) and prints, on stderr, the compile seconds per kernel.
COMPILE_TIMES = r"""
import runpy, sys, time
from numba.core import event

stack, spent = [], {}


class Timer(event.Listener):
    def on_start(self, ev):
        stack.append((ev.data["dispatcher"].py_func.__name__, time.perf_counter()))

    def on_end(self, ev):
        name, start = stack.pop()
        if not stack:  # a kernel's own compile includes the functions it calls
            spent[name] = spent.get(name, 0.0) + time.perf_counter() - start


event.register("numba:compile", Timer())
sys.argv = ["tealeaves", *sys.argv[1:]]
try:
    runpy.run_module("tealeaves", run_name="__main__")
except SystemExit:
    pass
for name, seconds in sorted(spent.items(), key=lambda x: -x[1]):
    print(f"  compiling {name:32s} {seconds:6.2f} s", file=sys.stderr)
"""


def first_call(runs: int) -> None:
    """Cold and warm ``tealeaves coherence`` on the Reuters training stories (see the module docstring)."""
    from tealeaves.corpus.reuters import load_reuters_modapte

    train, _, _ = load_reuters_modapte()
    with tempfile.TemporaryDirectory() as folder:
        corpus = Path(folder) / "reuters-train.txt"
        corpus.write_text("\n".join(" ".join(doc) for doc in train.token_lists()) + "\n", encoding="utf-8")
        frequent = train.vocabulary.decode(train.term_frequencies().argsort()[::-1][:200])
        topics = Path(folder) / "topics.txt"
        rows = [" ".join(frequent[t::20][:10]) for t in range(20)]
        topics.write_text("\n".join(rows) + "\n", encoding="utf-8")
        argv = ["coherence", "--reference", str(corpus), "--topics", str(topics)]
        cold, warm = [], []
        for run in range(runs):
            env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(folder) / f"numba-cache-{run}")}
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "tealeaves", *argv], check=True, env=env,
                           stdout=subprocess.DEVNULL)
            cold.append(time.perf_counter() - start)
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "tealeaves", *argv], check=True, env=env,
                           stdout=subprocess.DEVNULL)
            warm.append(time.perf_counter() - start)
        load = os.getloadavg()
        print(f"first coherence call, cold (fresh numba cache)  {statistics.median(cold):6.2f} s "
              f"(median of {runs}; min {min(cold):.2f})")
        print(f"first coherence call, warm (numba cache filled) {statistics.median(warm):6.2f} s "
              f"(median of {runs}; min {min(warm):.2f})")
        print(f"load average (1, 5, 15 min): {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
              f"on {os.cpu_count()} CPUs")
        env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(folder) / "numba-cache-timed")}
        print("compile time of each kernel in one cold call:", flush=True)
        subprocess.run([sys.executable, "-c", COMPILE_TIMES, *argv], check=True, env=env,
                       stdout=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--first-call", action="store_true",
                        help="also time the first coherence call, cold and warm (needs the Reuters data)")
    args = parser.parse_args()
    for name, cmd in COMMANDS.items():
        print(f"{name:36s} {median_seconds(cmd, args.runs):6.3f} s (median of {args.runs})")
    if args.first_call:
        first_call(args.runs)


if __name__ == "__main__":
    main()
