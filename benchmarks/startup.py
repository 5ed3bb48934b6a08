"""Start-up time of ``import tealeaves`` and ``tealeaves --help`` (target: under 0.5 s each), and the
first ``tealeaves coherence`` call, cold and warm.

Each command runs ``--runs`` times in a fresh interpreter; the median wall time is printed, beside
the bare interpreter's start-up for reference, and the median CPU time (user + system) of the
process, which a machine busy with other jobs inflates far less than the wall time.

``--first-call`` (needs the Reuters data: ``TEALEAVES_DATA``) times ``tealeaves coherence`` of 20
topics (NPMI, top 10 words) on the Reuters training stories (a whitespace-tokenised file, indexed in
memory): **cold**, the first call after an install, with a fresh, empty numba cache
(``NUMBA_CACHE_DIR`` pointing to a new folder, so every kernel the call needs is compiled), then
**warm**, the same call again (kernels loaded from that cache), ``--runs`` times each; and the
CPU seconds numba spent compiling each kernel in the cold call (from its ``numba:compile`` events).
The machine's load average is printed with the figures.  Target: cold under 3 s.

``--estimators is left-to-right ...`` times, the same way, the first ``tealeaves perplexity
--method METHOD`` of each method on a tiny model (K=3, V=10, 5 documents of 8 words), so nearly
all of a cold call is compiling that method's kernel: each estimator has its own kernel, and a
call compiles only the one it runs.

To time another tree with the same script, point ``PYTHONPATH`` at its ``src`` (the commands run
``python -m tealeaves`` with this environment).

    python benchmarks/startup.py [--runs 7] [--first-call] [--estimators METHOD ...]
"""

from __future__ import annotations

import argparse
import os
import resource
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


def timed_run(cmd: list[str], env: dict | None = None) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one run of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def summary(times: list[tuple[float, float]]) -> str:
    """Median wall and CPU seconds of ``times`` (and the least wall time)."""
    wall, cpu = [t[0] for t in times], [t[1] for t in times]
    return (f"{statistics.median(wall):6.2f} s wall, {statistics.median(cpu):6.2f} s CPU "
            f"(median of {len(times)}; least wall {min(wall):.2f})")


def median_seconds(cmd: list[str], runs: int) -> tuple[float, float]:
    """Median wall and CPU seconds of ``runs`` executions of ``cmd``."""
    times = [timed_run(cmd) for _ in range(runs)]
    return statistics.median(t[0] for t in times), statistics.median(t[1] for t in times)


#: Runs ``tealeaves`` (argv after the script) and prints, on stderr, the compile seconds per kernel.
COMPILE_TIMES = r"""
import runpy, sys, time
from numba.core import event

stack, spent = [], {}


class Timer(event.Listener):
    def on_start(self, ev):
        stack.append((ev.data["dispatcher"].py_func.__name__, time.process_time()))

    def on_end(self, ev):
        name, start = stack.pop()
        if not stack:  # a kernel's own compile includes the functions it calls
            spent[name] = spent.get(name, 0.0) + time.process_time() - start


event.register("numba:compile", Timer())
sys.argv = ["tealeaves", *sys.argv[1:]]
try:
    runpy.run_module("tealeaves", run_name="__main__")
except SystemExit:
    pass
for name, seconds in sorted(spent.items(), key=lambda x: -x[1]):
    print(f"  compiling {name:32s} {seconds:6.2f} s CPU", file=sys.stderr)
print(f"  {'all kernels':42s} {sum(spent.values()):6.2f} s CPU", file=sys.stderr)
"""


def cold_and_warm(label: str, argv: list[str], folder: Path, runs: int) -> None:
    """Print the median times of ``tealeaves ARGV``: with a fresh numba cache (cold), then filled (warm)."""
    cold, warm = [], []
    command = [sys.executable, "-m", "tealeaves", *argv]
    for _ in range(runs):
        with tempfile.TemporaryDirectory(dir=folder) as cache:
            env = {**os.environ, "NUMBA_CACHE_DIR": cache}
            cold.append(timed_run(command, env))
            warm.append(timed_run(command, env))
    load = os.getloadavg()
    print(f"{label}, cold (fresh numba cache)  {summary(cold)}")
    print(f"{label}, warm (numba cache filled) {summary(warm)}")
    print(f"load average (1, 5, 15 min): {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs")


def first_perplexity(methods: list[str], runs: int) -> None:
    """Cold and warm ``tealeaves perplexity --method M`` on a tiny model, each method (module docstring)."""
    import numpy as np

    from tealeaves.models.base import FixedTopicModel

    rng = np.random.default_rng(0)
    phi = rng.dirichlet(np.full(10, 0.3), size=3)
    vocab = [f"w{i}" for i in range(10)]
    with tempfile.TemporaryDirectory() as folder:
        model = FixedTopicModel(phi, vocab, np.array([0.3, 0.8, 1.5])).save(Path(folder) / "model.npz")
        test = Path(folder) / "test.txt"
        docs = [" ".join(vocab[i] for i in rng.choice(10, size=8, p=phi[k % 3])) for k in range(5)]
        test.write_text("\n".join(docs) + "\n", encoding="utf-8")
        for method in methods:
            argv = ["perplexity", str(model), str(test), "--method", method, "--tokenized"]
            cold_and_warm(f"first perplexity --method {method}", argv, Path(folder), runs)


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
        cold_and_warm("first coherence call", argv, Path(folder), runs)
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
    parser.add_argument("--estimators", nargs="+", default=[], metavar="METHOD",
                        help="also time the first perplexity call of each METHOD, cold and warm")
    args = parser.parse_args()
    for name, cmd in COMMANDS.items():
        wall, cpu = median_seconds(cmd, args.runs)
        print(f"{name:36s} {wall:6.3f} s wall, {cpu:6.3f} s CPU (median of {args.runs})")
    if args.first_call:
        first_call(args.runs)
    if args.estimators:
        first_perplexity(args.estimators, args.runs)


if __name__ == "__main__":
    main()
