"""Scoring speed as the reference grows: the counting core of this branch against main's, same run.

References (built once, saved under ``benchmarks/out/`` and reused; loaded with
``ReferenceIndex.load(path, verify=False)``, so no timing includes the SHA-256 pass):

* ``6M``: every eBible verse of ten texts (one document per verse) and all 21,578
  Reuters-21578 stories, lowercased letter tokens with stop words kept (the ``large``
  reference of ``benchmarks/coherence.py``);
* ``50M``: those same documents repeated 8 times (document order: the whole list, 8 times).

Topics:

* 80 x top 10: scikit-learn LDA with 80 topics on the Reuters training stories (the
  reproduction's cached model);
* 1,000 x top 50: random draws (seed 0) of 50 distinct words per topic from the 10,000 words
  of the Reuters training stories with the most documents, each word drawn with probability
  proportional to its document frequency (so frequent words recur across topics as in LDA).

For each reference, topic set and window (``doc``, 10, 110; NPMI, ``compat="exact"``) it times a
full ``coherence(topics, index, measure="npmi", window=...)`` call (median of ``--repeat`` runs
after one warm-up run, so numba compilation is excluded) with this branch's core and with main's
core (``git show main:src/tealeaves/coherence/core.py``, imported as a module and swapped into
``tealeaves.coherence.measure`` for its runs), and prints the largest difference between the two
cores' counts (joint and single) and scores.

    TEALEAVES_DATA=/path/to/data python benchmarks/coherence_scale.py [--sizes 6M 50M] [--repeat 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "out"
REPEATS = {"6M": 1, "50M": 8}
WINDOWS = ("doc", 10, 110)


def reference(size: str):
    """The cached index of ``size`` (built from the real texts on first use)."""
    from tealeaves.index import ReferenceIndex, index_from_token_lists

    path = OUT / f"coherence_scale_{size}.tlx"
    if not path.exists():
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from coherence import large_reference

        docs = large_reference() * REPEATS[size]
        t = time.perf_counter()
        index = index_from_token_lists(docs, name=f"ebible+reuters21578x{REPEATS[size]}")
        print(f"built {size}: {time.perf_counter() - t:.1f} s", flush=True)
        OUT.mkdir(exist_ok=True)
        index.save(path)
        del docs, index
    return ReferenceIndex.load(path, verify=False)


def _show(ref: str, relative: str) -> str:
    """``src/tealeaves/<relative>`` at git ``ref`` (exits with a message when there is none)."""
    root = Path(__file__).resolve().parents[1]
    if not ref.strip():  # `git show :path` would silently read the staged file, not a commit
        sys.exit("coherence_scale: error: --against is empty (give a commit, branch or tag)")
    shown = subprocess.run(["git", "-C", str(root), "show", f"{ref}:src/tealeaves/{relative}"],
                           capture_output=True, text=True)
    if shown.returncode:
        sys.exit(f"coherence_scale: error: no {relative} at git ref {ref!r} "
                 f"({shown.stderr.strip() or 'git show failed'}; give --against a commit, branch or tag)")
    return shown.stdout


def _import_as(name: str, src: str):
    """``src`` imported as module ``name`` (kept under benchmarks/out/)."""
    OUT.mkdir(exist_ok=True)
    path = OUT / f"{name}.py"
    if not path.exists() or path.read_text() != src:
        path.write_text(src)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def old_core(ref: str = "main"):
    """``tealeaves.coherence.core`` at git ``ref`` (default main) with that ref's kernels, imported from
    ``git show`` (kept under benchmarks/out/); its counting functions take and ignore ``memory`` (the
    budget of this tree's pipeline)."""
    kernels = _import_as("kernels_main", _show(ref, "coherence/_kernels.py"))
    del kernels
    src = _show(ref, "coherence/core.py").replace("from tealeaves.coherence._kernels import",
                                                  "from kernels_main import")
    module = _import_as("core_main", src)
    for name in ("count_documents", "count_windows", "count_context", "count_subsets"):
        setattr(module, name, _without_memory(getattr(module, name)))
    if not hasattr(module, "topic_major_cheaper"):  # a core from before topic-major document counts
        module.topic_major_cheaper = lambda *args: False  # counted every pair with the pair kernels
    if not hasattr(module, "count_topic_windows"):  # a core from before topic-major window sets
        module.count_topic_windows = _pairs_then_sets(module)
    return module


def _pairs_then_sets(module):
    """``count_topic_windows`` of a core that had none: the pairs with its ``count_windows``, then the
    word sets with its ``count_subsets`` (what the pipeline did before)."""
    from tealeaves.coherence import measure

    def count(index, uniq, loc, window, compat, memory=None):
        joint, _, _ = measure._joint_matrices(
            loc, lambda pairs: module.count_windows(index, uniq, pairs, window, compat))
        sets, n = module.count_subsets(index, uniq, loc, window, compat)
        return joint, sets, n

    return count


def _without_memory(fn):
    def call(*args, memory=None, **kwargs):
        return fn(*args, **kwargs)
    return call


def topic_sets():
    """(name, topics) for 80 LDA topics x top 10 and 1,000 random frequent-word topics x top 50."""
    from tealeaves.reproduce.reuters import fit_reuters_models, load_corpora

    train, _ = load_corpora()
    lda = fit_reuters_models([80], progress=None)[80].top_words(10)
    df = np.zeros(len(train.vocabulary), dtype=np.int64)
    for d in range(len(train)):
        df[np.unique(train.tokens[train.offsets[d]:train.offsets[d + 1]])] += 1
    top = np.argsort(-df, kind="stable")[:10_000]
    words = list(train.vocabulary)
    rng = np.random.default_rng(0)
    p = df[top] / df[top].sum()
    rand = [[words[top[i]] for i in rng.choice(len(top), 50, replace=False, p=p)] for _ in range(1000)]
    return [("80x10 LDA", lda), ("1000x50 random", rand)]


def _time(fn, repeat):
    """Median wall and CPU seconds (this process, both threads) of ``repeat`` calls, and the last result."""
    fn()  # warm-up: compiles (or loads) the numba kernels
    wall, cpu = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return (statistics.median(wall), statistics.median(cpu)), out


def compare(index, topics, window, repeat, cores, segmentation=None):
    """Median (wall, CPU) seconds of scoring ``topics`` with each core; the largest count and score
    differences."""
    from tealeaves.coherence import measure
    from tealeaves.coherence.presets import resolve

    extra = {"segmentation": segmentation} if segmentation else {}
    settings = {"measure": "npmi", "window": window, **extra}
    settings["n_top"] = len(topics[0])
    spec = resolve(settings["measure"], window=window, **extra)
    saved = measure.core
    out = {}
    try:
        for name, module in cores.items():
            measure.core = module
            secs, res = _time(lambda: measure.coherence(topics, index, **settings), repeat)
            counts = measure._count_all(index, topics, spec)
            out[name] = (secs, res, counts)
    finally:
        measure.core = saved
    (s_old, r_old, c_old), (s_new, r_new, c_new) = out["main"], out["new"]
    d_counts = max(float(np.max(np.abs(c_old.joint - c_new.joint))),
                   float(np.max(np.abs(c_old.single - c_new.single))), abs(c_old.n - c_new.n),
                   0 if c_new.subsets is None else float(np.max(np.abs(c_old.subsets - c_new.subsets))))
    a = np.array([np.nan if s is None else s for s in r_old.scores])
    b = np.array([np.nan if s is None else s for s in r_new.scores])
    same_none = bool(np.array_equal(np.isnan(a), np.isnan(b)))
    d_scores = float(np.nanmax(np.abs(a - b))) if np.isfinite(a).any() else 0.0
    return s_old, s_new, d_counts, d_scores if same_none else float("inf")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", default=["6M", "50M"], choices=sorted(REPEATS))
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per setting (median)")
    parser.add_argument("--windows", nargs="+", default=[str(w) for w in WINDOWS])
    parser.add_argument("--against", default="main",
                        help="git ref whose counting core is timed beside this tree's (default main)")
    parser.add_argument("--segmentation", default=None,
                        help="NPMI's segmentation (default one-one); a set segmentation such as one-set "
                             "counts word sets (80 x 10 only: 2**k sets per topic)")
    args = parser.parse_args(argv)

    from tealeaves.coherence import core

    cores = {"main": old_core(args.against), "new": core}
    print(f"\"main\" below is the core at {args.against}; \"new\" is this tree's", flush=True)
    sets = topic_sets()
    windows = [w if w == "doc" else int(w) for w in args.windows]
    for size in args.sizes:
        index = reference(size)
        print(f"\n== {size}: {index.n_present} documents, {index.n_tokens} tokens", flush=True)
        for label, topics in sets:
            if args.segmentation and len(topics[0]) > 12:
                continue
            for window in windows:
                s_old, s_new, d_counts, d_scores = compare(index, topics, window, args.repeat, cores,
                                                           args.segmentation)
                print(f"{size:>4} {label:<15} window={window!s:<4} "
                      f"main {s_old[0] * 1000:9.1f} ms (CPU {s_old[1] * 1000:9.1f})  "
                      f"new {s_new[0] * 1000:9.1f} ms (CPU {s_new[1] * 1000:9.1f})  "
                      f"x{s_old[0] / s_new[0]:6.1f}  max|count diff|={d_counts:g}  "
                      f"max|score diff|={d_scores:g}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
