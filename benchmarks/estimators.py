"""Speed of the left-to-right estimator on the Reuters test stories (K = 20, 10 particles).

Reports tokens per second per particle for tealeaves' compiled sampler, with and
without resampling of earlier positions, and compares it with

* MALLET's evaluator (``mallet evaluate-topics --num-particles 10``), when a
  ``mallet`` executable is on the PATH; otherwise the published anchor figure
  (about 2 seconds, Java start-up included, for 233,652 test tokens at K = 20
  with 10 particles, MALLET's default of no resampling) is printed instead;
* a pure-numpy reference implementation of the same algorithm (particles
  vectorised, a Python loop over positions), run on the same stories.

    TEALEAVES_DATA=/path/to/data python benchmarks/estimators.py [--particles 10] [--k 20]

``--threads`` times left-to-right (20 particles), importance sampling (1000 prior draws) and
left-to-right document completion (20 particles) on all 3,019 test stories at 1 and at 2 threads
(``n_threads``), prints the speed-up and whether the two results are exactly equal (documents draw
from per-document random streams, so they must be), with the CPU time (user + system, every
thread) of each run and the load average, since a busy machine lowers the wall-clock speed-up but
hardly the CPU time (2 threads should take about the CPU time of 1); ``--quick`` does it on 300
stories:

    TEALEAVES_DATA=/path/to/data python benchmarks/estimators.py --threads [--quick] [--repeats 2]

Two further reports on the same Reuters models (not timings of a competitor):
``--agreement N`` prints every estimator's log-likelihood and standard error on
N random test stories at K (0 = all; ``--seeds R`` adds the spread over R seeds),
and ``--ranking N`` prints point-estimate and left-to-right document-completion
perplexity for K = 5, 10, 20, 40, 80.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import time

import numpy as np

from tealeaves.likelihood import estimators as E
from tealeaves.reproduce.reuters import fit_reuters_models, load_corpora

MALLET_ANCHOR_TOKENS = 233_652
MALLET_ANCHOR_SECONDS = 2.0


def numpy_left_to_right(phi: np.ndarray, alpha: np.ndarray, corpus, n_particles: int, seed: int = 0
                        ) -> np.ndarray:
    """Reference left-to-right without resampling, in numpy (MALLET's default algorithm).

    ``log p(w) = sum_n log mean_r sum_k (N_rk + alpha_k) / (n + A) phi_{k,w_n}``.
    """
    rng = np.random.default_rng(seed)
    a_sum = alpha.sum()
    out = np.zeros(len(corpus))
    rows = np.arange(n_particles)
    for d in range(len(corpus)):
        counts = np.zeros((n_particles, len(alpha)))
        for n, w in enumerate(corpus.document(d)):
            weights = (counts + alpha) * phi[:, w]
            totals = weights.sum(axis=1)
            out[d] += np.log(totals.mean() / (n + a_sum))
            u = rng.random(n_particles) * totals
            z = np.minimum((np.cumsum(weights, axis=1) < u[:, None]).sum(axis=1), len(alpha) - 1)
            counts[rows, z] += 1
    return out


def timed(func, *args, **kwargs) -> tuple[object, float]:
    start = time.perf_counter()
    result = func(*args, **kwargs)
    return result, time.perf_counter() - start


def cpu_seconds() -> float:
    """User + system CPU seconds of this process so far, every thread included."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def stories(test, n: int):
    """``n`` test stories drawn without replacement with seed 0, in corpus order (all if ``n`` is 0)."""
    if n <= 0 or n >= len(test):
        return test
    return test.subset(np.sort(np.random.default_rng(0).choice(len(test), n, replace=False)))


#: The agreement table's settings: label -> (method, samples, options).
AGREEMENT = {
    "left-to-right (SMC, 4 replicates x 200 particles / 2 filters)": (
        "left-to-right", 200, {"weighted": True, "n_filters": 2, "replicates": 4}),
    "left-to-right (SMC, 400 particles / 4 filters)": (
        "left-to-right", 400, {"weighted": True, "n_filters": 4}),
    "Chib-style (4 replicates x 4 chains x 1000 states)": ("chib", 1000, {"n_chains": 4, "replicates": 4}),
    "Chib-style (8 chains x 1000 states)": ("chib", 1000, {"n_chains": 8}),
    "AIS (40 chains x 5000 temperatures)": ("ais", 40, {"n_temperatures": 5000}),
    "AIS (50 chains x 1000 temperatures)": ("ais", 50, {"n_temperatures": 1000}),
    "left-to-right (Wallach/MALLET, 200 particles)": ("left-to-right", 200, {}),
    "left-to-right (MALLET default: no resampling, 10)": ("left-to-right", 10, {"resample": False}),
    "importance sampling from the prior (1000)": ("is", 1000, {}),
    "harmonic mean (1000 draws; biased)": ("hm", 1000, {}),
}


def agreement(k: int, n: int, only: str | None = None, seeds: int = 1) -> None:
    """Each estimator's log-likelihood, SE and time; with ``seeds > 1`` also the spread over seeds.

    The spread (standard deviation of the totals over seeds 1..``seeds``) is what an
    honest standard error must match.
    """
    _, test = load_corpora()
    model = fit_reuters_models([k])[k]
    sub = stories(test, n)
    print(f"K={k}: {len(sub)} test stories, {sub.n_tokens} tokens; {seeds} seed(s)")
    for label, (method, samples, options) in AGREEMENT.items():
        if only and method not in only.split(","):
            continue
        runs = [timed(E.estimate_log_likelihood, model, sub, method, samples, seed=s, **options)
                for s in range(1, seeds + 1)]
        totals = [res.log_likelihood for res, _ in runs]
        res, secs = runs[0]
        se = "-" if res.standard_error is None else f"{np.median([r.standard_error for r, _ in runs]):8.2f}"
        spread = f"  spread over seeds {np.std(totals, ddof=1):6.2f}" if seeds > 1 else ""
        ppl = np.exp(-np.mean(totals) / res.n_words)
        print(f"{label:62s} {np.mean(totals):14,.2f}  SE {se:>8}  perplexity {ppl:8.2f}"
              f"  {np.mean([t for _, t in runs]):6.1f} s{spread}")


#: The ``--threads`` cases: label -> call of (model, stories, n_threads) returning a HeldOutEstimate.
THREAD_CASES = {
    "left-to-right, 20 particles":
        lambda m, c, n: E.estimate_log_likelihood(m, c, "left-to-right", 20, n_threads=n),
    "importance sampling, 1000 draws":
        lambda m, c, n: E.estimate_log_likelihood(m, c, "is", 1000, n_threads=n),
    "left-to-right completion, 20 particles":
        lambda m, c, n: E.left_to_right_completion(m, c, 20, n_threads=n),
}


def identical(a, b) -> bool:
    """Exact equality of two estimates: totals, per-document values and errors, signatures."""
    se_a, se_b = a.document_standard_errors, b.document_standard_errors
    return (a.to_dict() == b.to_dict()
            and np.array_equal(a.document_log_likelihoods, b.document_log_likelihoods)
            and np.array_equal(se_a, se_b, equal_nan=True))


def thread_scaling(k: int, quick: bool, repeats: int) -> None:
    """Each THREAD_CASES estimator at 1 and 2 threads: best of ``repeats``, speed-up, equality."""
    _, test = load_corpora()
    model = fit_reuters_models([k])[k]
    sub = stories(test, 300 if quick else 0)
    E.estimate_log_likelihood(model, sub.subset(range(3)), "is", 2, n_threads=1)  # compile / load the cache
    print(f"K={k}: {len(sub)} Reuters test stories, {sub.n_tokens} tokens; best of {repeats}, "
          "1 and 2 threads alternating")
    for label, run in THREAD_CASES.items():
        best = {1: float("inf"), 2: float("inf")}
        cpu = {1: float("inf"), 2: float("inf")}
        results = {}
        for _ in range(repeats):
            for n in (1, 2):
                before = cpu_seconds()
                results[n], secs = timed(run, model, sub, n)
                best[n] = min(best[n], secs)
                cpu[n] = min(cpu[n], cpu_seconds() - before)
        same = identical(results[1], results[2])
        print(f"{label:40s} 1 thread {best[1]:7.2f} s   2 threads {best[2]:7.2f} s   "
              f"speed-up {best[1] / best[2]:4.2f}x   log-likelihood {results[1].log_likelihood:,.4f}   "
              f"identical: {'yes' if same else 'NO'}", flush=True)
        print(f"{'':40s} CPU 1 thread {cpu[1]:7.2f} s   2 threads {cpu[2]:7.2f} s   "
              f"(x{cpu[2] / cpu[1]:.2f}); load average {os.getloadavg()[0]:.2f}", flush=True)


def ranking(n: int, particles: int = 10) -> None:
    from tealeaves.likelihood import document_completion
    from tealeaves.reproduce.reuters import ARTICLE, DEFAULT_KS

    _, test = load_corpora()
    sub = stories(test, n)
    models = fit_reuters_models(DEFAULT_KS)
    print(f"document completion on {len(sub)} test stories (split seed 0); article's table in brackets")
    for k in DEFAULT_KS:
        point = document_completion(models[k], sub, seed=0)
        l2r, secs = timed(E.left_to_right_completion, models[k], sub, particles, seed=k)
        print(f"K={k:3d}  point-estimate {point.perplexity:8.1f}  left-to-right ({particles} particles) "
              f"{l2r.perplexity:8.1f} +- {l2r.perplexity * l2r.standard_error / l2r.n_words:.1f}  "
              f"[{ARTICLE[k][0]}]  {secs:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--particles", type=int, default=10)
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--numpy-stories", type=int, default=300,
                        help="stories for the (slow) numpy reference, extrapolated per token")
    parser.add_argument("--agreement", type=int, metavar="N", default=None,
                        help="print the estimator agreement table on N test stories (0 = all) instead")
    parser.add_argument("--ranking", type=int, metavar="N", default=None,
                        help="print document-completion perplexity for K=5..80 on N stories (0 = all)")
    parser.add_argument("--methods", default=None, help="with --agreement: comma-separated methods to run")
    parser.add_argument("--seeds", type=int, default=1,
                        help="with --agreement: run each estimator with seeds 1..N and print the spread")
    parser.add_argument("--threads", action="store_true",
                        help="time left-to-right, importance sampling and completion at 1 and 2 threads")
    parser.add_argument("--quick", action="store_true", help="with --threads: 300 stories instead of all")
    parser.add_argument("--repeats", type=int, default=2, help="with --threads: runs per thread count")
    args = parser.parse_args()
    if args.threads:
        return thread_scaling(args.k, args.quick, args.repeats)
    if args.agreement is not None:
        return agreement(args.k, args.agreement, args.methods, args.seeds)
    if args.ranking is not None:
        return ranking(args.ranking, args.particles)

    _, test = load_corpora()
    model = fit_reuters_models([args.k])[args.k]
    phi, alpha = E.model_parameters(model)
    r = args.particles
    n_tok = test.n_tokens
    print(f"Reuters ModApte test: {len(test)} stories, {n_tok} tokens; K={args.k}; {r} particles")

    E.left_to_right(phi, alpha, test.subset(range(3)), 2, resample=False, n_threads=1)  # compile / load cache
    rows = []
    for resample in (False, True):
        (est, _), secs = timed(E.left_to_right, phi, alpha, test, r, resample=resample, seed=0, n_threads=1)
        rate = n_tok * r / secs
        rows.append((resample, secs, rate, est.sum()))
        print(f"tealeaves left-to-right resample={resample!s:5}: {secs:7.2f} s, "
              f"{rate:,.0f} tokens/s/particle, log-likelihood {est.sum():,.1f}")

    sub = test.subset(range(min(args.numpy_stories, len(test))))
    ref, ref_secs = timed(numpy_left_to_right, phi, alpha, sub, r)
    ref_rate = sub.n_tokens * r / ref_secs
    mine, _ = timed(E.left_to_right, phi, alpha, sub, r, resample=False, seed=0, n_threads=1)
    print(f"numpy reference (no resampling, {len(sub)} stories, {sub.n_tokens} tokens): {ref_secs:.2f} s, "
          f"{ref_rate:,.0f} tokens/s/particle; its log-likelihood {ref.sum():,.1f} vs tealeaves "
          f"{mine[0].sum():,.1f} (different random streams)")
    fast = rows[0][2]
    print(f"speed-up of tealeaves over numpy (no resampling): {fast / ref_rate:.1f}x")

    anchor_secs = MALLET_ANCHOR_TOKENS * r / fast
    if shutil.which("mallet"):
        print("mallet found on PATH; run `mallet evaluate-topics --num-particles 10` on the same stories "
              "for a direct comparison (not automated here: it needs a MALLET model file)")
    else:
        print("MALLET is not installed (`which mallet` finds nothing): comparing with the published anchor")
    print(f"anchor: MALLET evaluate-topics, {MALLET_ANCHOR_TOKENS:,} tokens x 10 particles at K=20, "
          f"about {MALLET_ANCHOR_SECONDS:.0f} s including Java start-up "
          f"({MALLET_ANCHOR_TOKENS * 10 / MALLET_ANCHOR_SECONDS:,.0f} tokens/s/particle)")
    print(f"tealeaves at its measured rate on {MALLET_ANCHOR_TOKENS:,} tokens x {r} particles: "
          f"{anchor_secs:.2f} s (no resampling, MALLET's default); ratio anchor/tealeaves "
          f"{MALLET_ANCHOR_SECONDS / anchor_secs:.1f}x")


if __name__ == "__main__":
    main()
