"""Wall time of a sweep over K = 5, 10, 20, 40, 80 x 3 seeds on the Reuters training stories.

Fits every (K, seed) on the 7,769 ModApte training stories and scores it on the 3,019 test
stories (document completion with baselines, NPMI of the top 10 words against the training
stories) with ``tealeaves.sweep.sweep`` on ``--workers`` local processes (default 2), into a
fresh results store, and prints the total wall time and each model's fit and score time.

The engine is ``--engine`` (default ``sklearn`` with the reproduction's quick settings,
``tealeaves.reproduce.reuters.QUICK_PARAMS``: batch variational Bayes, 10 iterations;
``gibbs`` once the in-house sampler is registered).

    TEALEAVES_DATA=/path/to/data python benchmarks/sweep.py [--engine sklearn] [--workers 2]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from tealeaves.reproduce.reuters import QUICK_PARAMS, load_corpora
from tealeaves.sweep import load_results, sweep


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default="sklearn")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--k", type=int, nargs="+", default=[5, 10, 20, 40, 80])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    train, test = load_corpora()
    settings = QUICK_PARAMS if args.engine == "sklearn" else None
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "bench.sqlite"
        start = time.perf_counter()
        sweep(train, args.k, args.seeds, args.engine, store, test=test, settings=settings,
              workers=args.workers)
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


if __name__ == "__main__":
    main()
