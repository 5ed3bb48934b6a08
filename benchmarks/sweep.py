"""Wall time of a sweep over K = 5, 10, 20, 40, 80 x 3 seeds on the Reuters training stories.

Fits every (K, seed) on the 7,769 ModApte training stories and scores it on the 3,019 test
stories (document completion with baselines, NPMI of the top 10 words against the training
stories) with ``tealeaves.sweep.sweep`` on ``--workers`` local processes (default 2), into a
fresh results store, and prints the total wall time and each model's fit and score time.

The engine is ``--engine`` (default ``gibbs``: tealeaves' own collapsed Gibbs sampler with
``--iterations`` sweeps; ``sklearn`` uses the reproduction's quick settings,
``tealeaves.reproduce.reuters.QUICK_PARAMS``: batch variational Bayes, 10 iterations).  In the same
run it then measures the in-house sampler's token samples/s per thread next to tomotopy's
``LDAModel`` on the same corpus (``benchmarks/lda_gibbs.py``), beside MALLET's measured anchor
(MALLET cannot be installed here and is not run).

    TEALEAVES_DATA=/path/to/data python benchmarks/sweep.py [--engine gibbs] [--workers 2]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import tempfile
import time
from pathlib import Path

from tealeaves.reproduce.reuters import QUICK_PARAMS, load_corpora
from tealeaves.sweep import load_results, sweep


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default="gibbs")
    parser.add_argument("--iterations", type=int, default=300, help="gibbs: sweeps per fit (default 300)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--k", type=int, nargs="+", default=[5, 10, 20, 40, 80])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    train, test = load_corpora()
    settings = {"sklearn": QUICK_PARAMS, "gibbs": {"n_iter": args.iterations}}.get(args.engine)
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "bench.sqlite"
        start = time.perf_counter()
        sweep(train, args.k, args.seeds, args.engine, store, test=test, settings=settings,
              n_jobs=args.workers)
        wall = time.perf_counter() - start
        models = load_results(store).models
    print(f"engine {args.engine} {settings or ''}; {len(models)} models (K = {args.k} x {args.seeds} seeds) "
          f"on {len(train)} training stories, {train.n_tokens} tokens; {args.workers} local workers")
    for k, rows in models.groupby("k"):
        fit, score = rows["fit_seconds"].mean(), rows["score_seconds"].mean()
        print(f"  K={k:3d}: fit {fit:7.1f} s, score {score:6.1f} s per model (mean of {len(rows)}); "
              "completion perplexity "
              f"{rows['completion_perplexity'].mean():.0f}, NPMI {rows['npmi'].mean():.3f}")
    busy = models[["fit_seconds", "score_seconds"]].to_numpy().sum()
    print(f"sweep wall time: {wall:.1f} s (sum of per-model fit + score times {busy:.1f} s)")
    if args.engine == "gibbs":
        throughput(train, args.iterations)
    print(f"load average (1, 5, 15 min): {os.getloadavg()} on {os.cpu_count()} CPUs")


def throughput(train, iterations: int) -> None:
    """Token samples/s per thread of GibbsLDA (sparse) and tomotopy at K = 20 and 80, one thread each."""
    spec = importlib.util.spec_from_file_location("lda_gibbs_bench", Path(__file__).with_name("lda_gibbs.py"))
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    opts = argparse.Namespace(iterations=iterations, seed=1)
    print(f"sampler throughput, {iterations} sweeps, one thread each (token samples/s by CPU time):")
    for k in (20, 80):
        ours, tomo = bench.run_gibbs(train, k, "sparse", opts), bench.run_tomotopy(train, k, opts)
        print(f"  K={k}: tealeaves GibbsLDA {ours['rate'] / 1e6:.2f}M, tomotopy {tomo['version']} "
              f"{tomo['rate'] / 1e6:.2f}M ({ours['rate'] / tomo['rate']:.2f}x), MALLET anchor "
              f"{bench.MALLET_LDA[k] / 1e6:.1f}M (not run)", flush=True)


if __name__ == "__main__":
    main()
