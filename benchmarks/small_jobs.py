"""Small jobs, this tree against an earlier one: one-shot coherence of 80 topics (top 10 words) on the
Reuters training stories, timed for both trees in one run, in alternation.

The job is ``benchmarks/coherence.py``'s "tealeaves one-shot": ``coherence(topics, token_lists,
...)`` with the settings that give gensim's ``u_mass``, ``c_npmi`` (window 10) and ``c_v`` (window
110) -- indexing the token lists (the topic words' postings) and scoring.  The topics are the top 10
words of the cached scikit-learn LDA with 80 topics (``fit_reuters_models``), written once with the
training stories to a temporary folder; each tree then runs in its own interpreter
(``PYTHONPATH=<tree>/src``), compiles its kernels with one untimed call per measure, and times
``--repeat`` one-shot calls per measure.  The trees take turns ``--rounds`` times (this, earlier,
this, ...), so a change of load hits both; the medians over all calls of a tree (wall time, and
the process's CPU time, which other jobs on the machine inflate less), their ratios (this /
earlier) and the mean scores of both (which must agree) are printed.

The earlier tree is a commit exported with ``git archive`` (default ``be7a335``, the commit before
the Wikipedia-scale work on the counting core, ``066fc6d``), or a folder given with ``--earlier``.

    TEALEAVES_DATA=/path/to/data python benchmarks/small_jobs.py [--commit be7a335] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: measure -> tealeaves settings giving gensim's numbers (as in benchmarks/coherence.py)
MEASURES = {
    "u_mass": {"measure": "umass", "smoothing": 0, "zero": "epsilon", "aggregation": "mean"},
    "c_npmi": {"measure": "npmi", "window": 10, "zero": "epsilon", "compat": "gensim"},
    "c_v": {"measure": "c_v", "window": 110, "zero": "epsilon", "compat": "gensim"},
}

#: Run in a tree's interpreter: argv = inputs folder, repeats; prints {measure: [seconds...], mean...}.
WORKER = r"""
import json, sys, time
from pathlib import Path
from tealeaves.coherence import coherence

folder, repeat = Path(sys.argv[1]), int(sys.argv[2])
measures = json.loads((folder / "measures.json").read_text())
topics = json.loads((folder / "topics.json").read_text())
texts = [line.split() for line in (folder / "texts.txt").read_text(encoding="utf-8").splitlines()]
out = {}
for key, settings in measures.items():
    res = coherence(topics, texts, **settings)  # compiles (or loads) the kernels: untimed
    times, cpu = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        coherence(topics, texts, **settings)
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    out[key] = {"seconds": times, "cpu": cpu, "mean": res.mean}
print(json.dumps(out))
"""


def write_inputs(folder: Path, k: int, top: int) -> None:
    """The training stories (one per line, tokens joined by spaces), the topics and the settings."""
    from tealeaves.reproduce.reuters import fit_reuters_models, load_corpora

    train, _ = load_corpora()
    texts = train.token_lists()
    if any(" " in tok or "\n" in tok for doc in texts for tok in doc):
        raise SystemExit("a token holds a space or newline: cannot write one story per line")
    (folder / "texts.txt").write_text("\n".join(" ".join(doc) for doc in texts) + "\n", encoding="utf-8")
    topics = [list(t) for t in fit_reuters_models([k])[k].top_words(top)]
    (folder / "topics.json").write_text(json.dumps(topics))
    (folder / "measures.json").write_text(json.dumps(MEASURES))


def export_commit(commit: str, folder: Path) -> Path:
    """``git archive`` of ``commit`` unpacked under ``folder``; returns the tree's root."""
    tree = folder / f"tree-{commit}"
    tree.mkdir()
    archive = folder / f"{commit}.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), commit], check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    return tree


def run_tree(tree: Path, inputs: Path, repeat: int, cache: Path) -> dict:
    """One worker run in ``tree`` (its own numba cache folder)."""
    env = {**os.environ, "PYTHONPATH": str(tree / "src"), "NUMBA_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", WORKER, str(inputs), str(repeat)], check=True, env=env,
                          capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commit", default="be7a335", help="the earlier commit (default be7a335)")
    parser.add_argument("--earlier", type=Path, help="an earlier tree's folder instead of --commit")
    parser.add_argument("--rounds", type=int, default=5, help="turns of each tree (default 5)")
    parser.add_argument("--repeat", type=int, default=5, help="timed calls per measure and turn (default 5)")
    parser.add_argument("--k", type=int, default=80, help="LDA topics (default 80)")
    parser.add_argument("--top", type=int, default=10, help="top words per topic (default 10)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_inputs(folder, args.k, args.top)
        earlier = args.earlier or export_commit(args.commit, folder)
        trees = {"this tree": ROOT, f"earlier ({args.earlier or args.commit})": earlier}
        times = {kind: {name: {m: [] for m in MEASURES} for name in trees} for kind in ("seconds", "cpu")}
        means: dict[str, dict[str, float]] = {}
        for r in range(args.rounds):
            for i, (name, tree) in enumerate(trees.items()):
                out = run_tree(tree, folder, args.repeat, folder / f"numba-cache-{i}")
                for m in MEASURES:
                    for kind in times:
                        times[kind][name][m] += out[m][kind]
                means[name] = {m: out[m]["mean"] for m in MEASURES}
            print(f"round {r + 1} of {args.rounds} done", file=sys.stderr, flush=True)
        (this, old) = trees
        print(f"one-shot coherence, {args.k} topics x top {args.top}, Reuters training stories; median ms of "
              f"{args.rounds} x {args.repeat} calls per tree (wall; CPU of the process); "
              f"load average {os.getloadavg()[0]:.2f}")
        print(f"{'measure':8s} {'this wall':>10s} {'earlier wall':>13s} {'ratio':>6s} {'this CPU':>9s} "
              f"{'earlier CPU':>12s} {'ratio':>6s}  mean score (this / earlier {old})")
        for m in MEASURES:
            a, b = (statistics.median(times["seconds"][t][m]) * 1e3 for t in (this, old))
            c, d = (statistics.median(times["cpu"][t][m]) * 1e3 for t in (this, old))
            print(f"{m:8s} {a:10.1f} {b:13.1f} {a / b:6.2f} {c:9.1f} {d:12.1f} {c / d:6.2f}  "
                  f"{means[this][m]!r} / {means[old][m]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
