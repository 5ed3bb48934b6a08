"""Cost of making the compiled kernels interruptible: this tree's kernels against git ``--against``'s.

Since Ctrl-C stops kernels (``docs/architecture.md``, "Interrupting compiled kernels"), every long
kernel reads a stop flag between units of work and, called from the main thread, runs in a helper
thread (:func:`tealeaves._interrupt.call`).  This script times the same inputs through the kernels
as committed at ``--against`` (default ``main``, imported from ``git show`` under their own names)
and through this tree's, called the way the library calls them (``_interrupt.call``: the thread
start is included), alternating the two ``--repeats`` times and printing the best wall time of each:

* the held-out estimators on Reuters test stories under a GibbsLDA K = 20 model (left-to-right
  with and without resampling, importance sampling, harmonic mean, AIS, Chib-style);
* the index builder's counting sort on the Reuters training stories (ten copies: 4.5 M tokens);
* one-shot coherence (u_mass, NPMI with a window of 10, C_V) of 80 topics on the Reuters
  training stories' index, with the coherence kernels of each version patched into the core.

    TEALEAVES_DATA=/path/to/data python benchmarks/interrupts.py [--against main] [--repeats 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def module_at(ref: str, relative: str, name: str, folder: str):
    """``src/tealeaves/<relative>`` as committed at ``ref``, imported from ``folder`` as ``name``."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:src/tealeaves/{relative}"], check=True,
                            capture_output=True, text=True).stdout
    path = Path(folder) / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def best_of(runs: dict[str, callable], repeats: int) -> dict[str, float]:
    """Best wall time of each run, the runs alternating ``repeats`` times (one warm-up each first)."""
    for run in runs.values():
        run()
    best = {name: float("inf") for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def report(label: str, best: dict[str, float]) -> None:
    old, new = best["before"], best["after"]
    print(f"{label:52s} before {old * 1e3:9.1f} ms   after {new * 1e3:9.1f} ms   "
          f"after/before {new / old:5.3f}", flush=True)


def estimator_cases(old, new, phi_t, alpha, corpus, seed=0):
    """``label -> (old call, new call)`` of every estimator on ``corpus``, on one thread.

    A module with the one parallel kernel ``estimate`` (per-document random streams) is called
    through it on one thread (``on_threads(1)``); a module from before it, through its kernel per
    estimator (one generator for the whole call).  Only two modules of the same kind draw the same
    numbers (:func:`same_streams`).
    """
    from tealeaves.likelihood.estimators import temperature_schedule

    def docs(n):
        return corpus.tokens, corpus.offsets[: n + 1]

    starts = np.zeros(len(corpus), dtype=np.int64)
    none = np.zeros(1)
    betas = temperature_schedule(200)
    # label: (old kernel, its arguments, estimate's method, size, second, third, documents)
    cases = {
        "left-to-right, 10 particles, no resampling":
            ("left_to_right", (*docs(3019), starts, phi_t, alpha, 10, False, 0, seed), 0, 10, 0, 0, 3019),
        "left-to-right, 10 particles, resampling (300 docs)":
            ("left_to_right", (*docs(300), starts, phi_t, alpha, 10, True, 0, seed), 0, 10, 1, 0, 300),
        "importance sampling, 1000 samples (300 docs)":
            ("importance_prior", (*docs(300), phi_t, alpha, 1000, seed), 1, 1000, 0, 0, 300),
        "harmonic mean, 200 samples (300 docs)":
            ("harmonic_mean", (*docs(300), phi_t, alpha, 200, 50, seed), 2, 200, 50, 0, 300),
        "AIS, 20 chains x 200 temperatures (100 docs)":
            ("annealed_importance", (*docs(100), phi_t, alpha, betas, 20, seed), 3, 20, 0, 0, 100),
        "Chib-style, 100 samples x 4 chains (100 docs)":
            ("chib_style", (*docs(100), phi_t, alpha, 100, 4, 10, seed), 4, 100, 4, 10, 100),
    }

    def call(module, name, args, method, size, second, third, n):
        if hasattr(module, "estimate"):
            return module.on_threads(1), (method, *docs(n), starts, phi_t, alpha, size, second, third,
                                          betas if method == 3 else none, seed)
        return getattr(module, name), args

    return {label: pair(*call(old, *case), *call(new, *case)) for label, case in cases.items()}


def same_streams(old, new) -> bool:
    """Whether the two estimator modules draw the same random numbers (both per-document or both not)."""
    return hasattr(old, "estimate") == hasattr(new, "estimate")


def call_of(kernel, args):
    """A call of ``kernel(*args)``: through ``_interrupt.call`` (with the stop flag) when it takes one."""
    from tealeaves import _interrupt

    params = list(inspect.signature(getattr(kernel, "py_func", kernel)).parameters)
    if params and params[-1] in ("stop", "args"):
        return lambda: _interrupt.call(kernel, *args)
    return lambda: kernel(*args)


def pair(old, old_args, new, new_args):
    """``(old call, new call)``, each called the way its version of the library calls it."""
    return call_of(old, old_args), call_of(new, new_args)


def check_equal(label: str, before, after) -> None:
    """The kernels must give the same numbers (bit for bit) before and after."""
    pairs = zip(before, after) if isinstance(before, tuple) else [(before, after)]
    for x, y in pairs:
        assert np.array_equal(x, y, equal_nan=True), f"{label}: results differ"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", default="main", help="git ref of the kernels before (default main)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    from tealeaves.coherence import coherence, core
    from tealeaves.corpus.reuters import load_reuters_modapte
    from tealeaves.index import build as build_new
    from tealeaves.index.build import build_index
    from tealeaves.likelihood import _kernels as lik_new
    from tealeaves.models.lda_gibbs import GibbsLDA

    train, test, _ = load_reuters_modapte()
    model = GibbsLDA(n_components=20, n_iter=50, random_state=0).fit(train)
    phi_t = np.ascontiguousarray(model.topic_word_.T)
    alpha = np.asarray(model.doc_topic_prior_, dtype=np.float64)
    with tempfile.TemporaryDirectory() as folder:
        lik_old = module_at(args.against, "likelihood/_kernels.py", "likelihood_kernels_before", folder)
        coh_old = module_at(args.against, "coherence/_kernels.py", "coherence_kernels_before", folder)
        build_old = module_at(args.against, "index/build.py", "index_build_before", folder)
        print(f"kernels of {args.against} ('before') against this tree ('after'); best of {args.repeats}, "
              "alternating", flush=True)

        if not same_streams(lik_old, lik_new):
            print("(estimators: per-document random streams on one side only, so their numbers differ; "
                  "times only)")
        for label, (old, new) in estimator_cases(lik_old, lik_new, phi_t, alpha, test).items():
            if same_streams(lik_old, lik_new):
                check_equal(label, old(), new())
            report(label, best_of({"before": old, "after": new}, args.repeats))

        tokens = np.concatenate([train.tokens] * 10)
        lengths = np.tile(np.diff(train.offsets), 10)
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        order = np.arange(len(lengths), dtype=np.int64)
        build_args = (tokens, offsets, order, order, len(train.vocabulary))
        old, new = pair(build_old._build_kernel, build_args, build_new._build_kernel, build_args)
        check_equal("index build", old(), new())
        report(f"index build counting sort ({len(tokens) / 1e6:.1f} M tokens)",
               best_of({"before": old, "after": new}, args.repeats))

        index = build_index(train, name="reuters-train")
        topics = [list(words) for words in model.top_words(10)] if hasattr(model, "top_words") else [
            [train.vocabulary[int(w)] for w in np.argsort(row)[::-1][:10]] for row in model.topic_word_]
        topics = (topics * 4)[:80]
        names = ("_pair_doc_kernel", "_window_intervals", "_pair_unit_kernel", "_frequent_pair_kernel")
        coh_new = types.SimpleNamespace(**{n: getattr(core, n) for n in names})  # (kernels of two modules)

        def patched(module):
            for name in names:
                setattr(core, name, getattr(module, name))

        for measure, options in (("umass", {}), ("npmi", {"window": 10}), ("c_v", {})):
            def run(module, measure=measure, options=options):
                patched(module)
                return coherence(topics, index, measure=measure, **options)

            old_result, new_result = run(coh_old), run(coh_new)
            assert np.array_equal(old_result.scores, new_result.scores, equal_nan=True), measure
            runs = {"before": lambda r=run: r(coh_old), "after": lambda r=run: r(coh_new)}
            report(f"coherence {measure}, 80 topics (Reuters training index)", best_of(runs, args.repeats))
        patched(coh_new)


if __name__ == "__main__":
    main()
