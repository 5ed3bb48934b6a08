"""Throughput of GibbsLDA (tealeaves' in-house LDA sampler) next to tomotopy's LDAModel, one run.

Both fit the Reuters-21578 ModApte training stories as tealeaves' recipe
preprocesses them (``tealeaves.corpus.reuters.load_reuters_modapte``), with
the same K, iterations, priors (alpha = 0.1 per topic, beta = 0.01) and
hyperparameter schedule (optimise every 50 sweeps after a 200-sweep burn-in),
one worker each.  The figure is *token samples per second per thread*:
tokens x iterations / CPU seconds.  tealeaves' seconds are the sampling
thread's CPU time in its sweeps; tomotopy's are the process CPU time of
``train(..., workers=1)`` (which includes its optimisation).  Wall times are
printed too.

MALLET cannot be installed here, so it is not run; its measured LDA anchor
(ParallelTopicModel, one thread, Reuters training stories, 756,664 tokens) is
printed beside the figures.

    TEALEAVES_DATA=/path/to/data python benchmarks/lda_gibbs.py --n-iter 300
"""

from __future__ import annotations

import argparse
import os
import time

from tealeaves.corpus.reuters import load_reuters_modapte
from tealeaves.models.lda_gibbs import GibbsLDA

#: MALLET's measured LDA throughput (issue 11): token samples/s/thread, one thread.
MALLET_LDA = {"tokens": 756_664, 20: 13.0e6, 80: 11.2e6}


def run_gibbs(corpus, k: int, sampler: str, args) -> dict:
    model = GibbsLDA(k, n_iter=args.iterations, optimize_interval=50, optimize_burn_in=200, sampler=sampler,
                     random_state=args.seed, evaluate_every=args.iterations, n_threads=1)
    wall = time.perf_counter()
    model.fit(corpus)
    wall = time.perf_counter() - wall
    samples = model.n_tokens_ * args.iterations
    return {"rate": samples / model.sampling_cpu_seconds_, "wall": wall, "cpu": model.sampling_cpu_seconds_,
            "alpha_sum": float(model.doc_topic_prior_.sum())}


def run_tomotopy(corpus, k: int, args) -> dict:
    import tomotopy as tp

    model = tp.LDAModel(k=k, alpha=0.1, eta=0.01, seed=args.seed)
    for d in range(len(corpus)):
        words = corpus.words(d)
        if words:
            model.add_doc(words)
    model.optim_interval = 50
    model.burn_in = 200
    model.train(0, workers=1)  # builds the state; no sweep
    cpu, wall = time.process_time(), time.perf_counter()
    model.train(args.iterations, workers=1)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"tokens": model.num_words, "rate": model.num_words * args.iterations / cpu, "wall": wall,
            "cpu": cpu, "alpha_sum": float(sum(model.alpha)), "version": tp.__version__}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-iter", "--iterations", dest="iterations", type=int, default=300,
                        help="Gibbs sweeps per fit (default 300)")
    parser.add_argument("-k", "--n-components", "--topics", dest="topics", type=int, nargs="+",
                        default=[20, 80])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    t0 = time.perf_counter()
    train, _, _ = load_reuters_modapte()
    print(f"Reuters ModApte training stories: {len(train):,} documents, {train.n_tokens:,} tokens, "
          f"{len(train.vocabulary):,} words (issue 11 quotes {MALLET_LDA['tokens']:,} tokens for MALLET's "
          f"import); read + preprocessed in {time.perf_counter() - t0:.1f}s")
    print(f"{args.iterations} iterations per fit, alpha 0.1/topic, beta 0.01, optimise every 50 after 200; "
          "figures are token samples/s per thread (CPU time; wall in brackets)")
    for sampler in ("sparse", "dense"):  # compile (or load from numba's cache) every kernel a timed fit runs:
        # the sampler's, the hyperparameter optimiser's and the likelihood's, so none is timed
        GibbsLDA(5, n_iter=3, optimize_interval=1, optimize_burn_in=1, sampler=sampler, evaluate_every=3,
                 n_threads=1).fit(train.subset(range(20)))
    print(f"{'K':>4} {'GibbsLDA sparse':>22} {'GibbsLDA dense':>22} {'tomotopy LDAModel':>22} "
          f"{'MALLET (not run)':>18}")
    for k in args.topics:
        sparse, dense, tomo = run_gibbs(train, k, "sparse", args), run_gibbs(train, k, "dense", args), \
            run_tomotopy(train, k, args)
        anchor = f"{MALLET_LDA[k] / 1e6:.1f}M" if k in MALLET_LDA else "not measured"
        cells = [f"{r['rate'] / 1e6:6.2f}M ({r['wall']:5.1f}s wall)" for r in (sparse, dense, tomo)]
        print(f"{k:>4} {cells[0]:>22} {cells[1]:>22} {cells[2]:>22} {anchor:>18}")
        print(f"     optimised alpha sum: sparse {sparse['alpha_sum']:.3f}, dense {dense['alpha_sum']:.3f}, "
              f"tomotopy {tomo['alpha_sum']:.3f}; tomotopy {tomo['version']} counted {tomo['tokens']:,} "
              f"tokens; sparse/tomotopy {sparse['rate'] / tomo['rate']:.2f}x", flush=True)
    print(f"load average (1, 5, 15 min): {os.getloadavg()} on {os.cpu_count()} CPUs")
    print("MALLET was not run here (it cannot be installed); its column is the measured anchor of issue 11.")


if __name__ == "__main__":
    main()
