"""One Gibbs chain on 1 and 2 threads (documents and words partitioned), beside tomotopy and MALLET's figures.

For ``GibbsLDA`` on the Reuters-21578 ModApte training stories and for
``PolylingualTopicModel`` on the English-Swedish Bible chapters (``benchmarks/pltm.py``'s
corpus), at K = 20 and 80, in one run with one seed:

* token samples/s of one chain with ``n_threads=1`` (the exact serial chain) and ``n_threads=2``
  (documents and words partitioned, only the topic totals shared: Yan, Xu and Qi 2009, tomotopy's
  partition scheme; :mod:`tealeaves.models._pltm_parallel`), and their
  ratio (the acceptance target of issue 21 is 1.7x or more on 2 cores).  Both rates are tokens x
  sweeps / **wall** seconds of the whole fit (initialisation, packing and the final likelihood
  included; no likelihood in between), so the serial and parallel figures count the same work;
* the figures that hold on a busy machine, where the wall-clock ratio does not: the CPU time
  (user + system, every thread of the process) per token sample of each fit, the 2-thread fit's
  CPU time over the serial fit's (the parallel chain's overhead: copies, merges, thread hand-offs;
  1.0 is none), and its CPU / wall (how much of the time both threads ran: 2.0 at best on 2
  cores; lower when other processes hold a core);
* the final log-likelihood per token, ``log p(w, z) / N``, of the 2-thread chain beside the
  spread (min to max) of 3 serial chains (seeds ``seed``, ``seed + 1``, ``seed + 2``);
* tomotopy's ``LDAModel`` with ``workers=1`` and ``workers=2`` on the same tokens (same K, priors
  and optimisation schedule), wall time of ``train``.  tomotopy has no polylingual model: on the
  Bible it fits LDA to each chapter's English and Swedish tokens together (words prefixed by their
  language), the same tokens as the PLTM, a different model;
* MALLET's figures, quoted and **not run** (it cannot be installed here): its
  ``PolylingualTopicModel`` on one thread on the same Bible tokens, 14.6 / 11.9 / 9.7 M token
  samples/s at K = 20 / 80 / 200 (issue 21).

The machine's load lowers the 2-thread ratio (the second core may be busy): the load average is
printed with every row and at the end.  ``--quick`` runs fewer sweeps (100) for a first look.  The
whole fits with the seed are made ``--repeat`` times per thread count, alternated, and the fastest
of each is reported (as ``timeit`` takes the minimum: the try least disturbed by other work), their
medians beside.

``--side-by-side`` prints what the machine itself allows: the serial chain's rate alone in one
process, and in each of two processes running it at the same time (started together after their
corpus is loaded and their kernels compiled).  Two independent chains share no data, so their
total over the rate alone is the most any 2-thread chain of this sampler can reach here; on a
virtual machine whose two CPUs share a physical core it falls short of 2.

``--marginal`` also prints each chain's rate *in the sweeps alone*, as tomotopy's figure is (its
state is built before the timed ``train``): one more fit of each thread count with four times the
sweeps, and the extra sweeps' tokens over the extra wall time, so that initialisation, packing and
the final likelihood cancel out.  On a virtual machine whose CPUs the hypervisor also lends to
others (steal time: 5-35 % of the time in ``vmstat`` during one session's runs), single runs of
the 2-thread chain varied by 40 %; ``--repeat N`` (default 3) alternates N such tries per thread
count, and tomotopy's, and reports the best and the median, with the steal share.

``--paired`` measures both rates in one chain, at nearly the same moments: a 2-thread fit whose
sweeps, after :data:`PAIRED_BURN_IN` untimed serial ones, alternate in runs of :data:`PAIRED_RUN`
(2 threads, 1, 1, 2, 2, 1, ...: a steady change of the chain's speed reaches both kinds alike)
between the exact serial kernel (over the chain's
own token order, as ``n_threads=1`` runs it) and the 2-thread sampler (with everything ``n_threads=2``
pays: the hand-off to the threads, their waits for each other; its sweeps in the calls the fit makes,
up to the next event of the fit).  The chain moves on from either kind of sweep, so both see the same
state, and slow drifts of the host's load, which move separate fits' rates by 10-40 % on this
machine, reach both alike.  The first sweep of each run is not timed: it moves the counts from one
core's cache to the other's (alternating single sweeps, the 2-thread sweeps at K = 80 took 1.6 times
as long as in a run of their own); the threads' views of the totals start afresh at each run of
2-thread sweeps (the serial sweeps changed the totals).

    TEALEAVES_DATA=/path/to/data python benchmarks/parallel_gibbs.py --quick
    TEALEAVES_DATA=/path/to/data python benchmarks/parallel_gibbs.py --n-iter 300
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from pltm import load_corpus  # noqa: E402 - benchmarks/pltm.py's Bible corpus
from tealeaves.corpus.reuters import load_reuters_modapte  # noqa: E402
from tealeaves.models import _pltm_kernels as kern  # noqa: E402
from tealeaves.models import polylingual  # noqa: E402
from tealeaves.models.lda_gibbs import GibbsLDA  # noqa: E402
from tealeaves.models.polylingual import PolylingualTopicModel  # noqa: E402

#: ``--paired``: sweeps of one kind in a row (the first of each not timed).
PAIRED_RUN = 10

#: ``--paired``: serial sweeps before the first timed one.  A chain's sweeps get faster as it settles
#: (its words and documents use fewer topics), fastest at first: with runs alternating 2 threads, 1,
#: 2, 1 from the first sweep, the 2-thread runs always came first and looked slower (K = 80, Reuters:
#: 1.50-1.51x in two runs, against 1.71-1.76x in the sweeps alone of separate fits).
PAIRED_BURN_IN = 50

#: MALLET 2.1.1 PolylingualTopicModel, one thread, the same English-Swedish Bible tokens (issue 21).
MALLET_PLTM = {20: 14.6e6, 80: 11.9e6, 200: 9.7e6}


def cpu_seconds() -> float:
    """User + system CPU seconds of this process so far, every thread included."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def fit_tealeaves(kind: str, corpus, k: int, n_threads: int, seed: int, iterations: int) -> dict:
    """Fit one chain; its wall-time rate, CPU time and final log-likelihood per token."""
    settings = {"n_iter": iterations, "optimize_interval": 50, "optimize_burn_in": min(200, iterations // 2),
                "random_state": seed, "evaluate_every": iterations, "n_threads": n_threads}
    model = GibbsLDA(k, **settings) if kind == "lda" else PolylingualTopicModel(k, **settings)
    cpu, wall = cpu_seconds(), time.perf_counter()
    model.fit(corpus)
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    return {"rate": model.n_tokens_ * iterations / wall, "wall": wall, "cpu": cpu, "tokens": model.n_tokens_,
            "cpu_ns": 1e9 * cpu / (model.n_tokens_ * iterations),
            "ll": float(model.log_likelihood_trace_[-1]) / model.n_tokens_, "threads": model.n_threads_}


def tomotopy_docs(kind: str, corpus) -> list[list[str]]:
    """The same tokens as tealeaves samples, as tomotopy documents (Bible: both sides of a chapter)."""
    if kind == "lda":
        return [corpus.words(d) for d in range(len(corpus))]
    docs = []
    for t in range(len(corpus)):
        docs.append([f"{x}:{w}" for x in corpus.languages for w in corpus.corpora[x].words(t)])
    return docs


def fit_tomotopy(docs: list[list[str]], k: int, workers: int, seed: int, iterations: int) -> dict:
    """tomotopy's LDAModel with ``workers`` threads; wall-time rate of ``train``."""
    import tomotopy as tp

    model = tp.LDAModel(k=k, alpha=0.1, eta=0.01, seed=seed)
    for words in docs:
        if words:
            model.add_doc(words)
    model.optim_interval = 50
    model.burn_in = min(200, iterations // 2)
    model.train(0, workers=workers)  # builds the state; no sweep
    cpu, wall = cpu_seconds(), time.perf_counter()
    model.train(iterations, workers=workers)
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    return {"rate": model.num_words * iterations / wall, "tokens": model.num_words, "version": tp.__version__,
            "ll": float(model.ll_per_word), "cpu": cpu, "wall": wall}


def steal_ticks() -> tuple[int, int]:
    """(steal, total) CPU ticks of the whole machine so far (``/proc/stat``; (0, 0) elsewhere).

    Steal is the time the hypervisor gave this virtual machine's CPUs to others: a 2-thread chain
    needs both CPUs at once, so steal slows it more than the serial chain.
    """
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            fields = [int(x) for x in fh.readline().split()[1:]]
    except OSError:
        return 0, 0
    return (fields[7] if len(fields) > 7 else 0), sum(fields[:8])


def marginal(kind: str, corpus, k: int, docs, args) -> None:
    """Print the rate in the sweeps alone, best of ``args.repeat`` alternated tries per thread count.

    A try fits ``args.iterations`` and ``4 * args.iterations`` sweeps; the extra sweeps' tokens over
    the extra wall time is its rate, so initialisation, packing and the final likelihood cancel out.
    The best try (fewest seconds a sweep, as ``timeit`` takes the minimum) is the one least disturbed
    by other work and by the hypervisor; the median and the machine's steal share are printed beside.
    tomotopy's ``train`` (its state built before, untimed) gets the same number of tries.
    """
    rates = {1: [], 2: [], "w1": [], "w2": []}
    steal0, total0 = steal_ticks()
    for _ in range(args.repeat):
        for n_threads in (1, 2):
            short = fit_tealeaves(kind, corpus, k, n_threads, args.seed, args.iterations)
            long = fit_tealeaves(kind, corpus, k, n_threads, args.seed, 4 * args.iterations)
            rates[n_threads].append(short["tokens"] * 3 * args.iterations / (long["wall"] - short["wall"]))
        for workers in (1, 2) if args.tomotopy else ():
            rates[f"w{workers}"].append(fit_tomotopy(docs, k, workers, args.seed, args.iterations)["rate"])
    steal1, total1 = steal_ticks()
    steal = 100 * (steal1 - steal0) / max(total1 - total0, 1)
    best = {key: max(values) for key, values in rates.items() if values}
    median = {key: sorted(values)[len(values) // 2] for key, values in rates.items() if values}
    verdict = "met" if best[2] / best[1] >= 1.7 else "NOT met"
    print(f"     in the sweeps alone ({args.iterations} vs {4 * args.iterations} sweeps, "
          f"best of {args.repeat}): "
          f"1 thread {best[1] / 1e6:.2f}M, 2 threads {best[2] / 1e6:.2f}M, {best[2] / best[1]:.2f}x "
          f"(target 1.7x: {verdict}); medians {median[1] / 1e6:.2f}M / {median[2] / 1e6:.2f}M, "
          f"{median[2] / median[1]:.2f}x", flush=True)
    if args.tomotopy:
        print(f"     tomotopy train, best of {args.repeat}: w=1 {best['w1'] / 1e6:.2f}M, "
              f"w=2 {best['w2'] / 1e6:.2f}M, {best['w2'] / best['w1']:.2f}x", flush=True)
    print(f"     steal by the hypervisor during these tries: {steal:.1f}% of the machine's CPU time",
          flush=True)


def load_kind(kind: str):
    """The benchmark's corpus: the Reuters training stories (``lda``) or the Bible chapters (``pltm``)."""
    return load_reuters_modapte()[0] if kind == "lda" else load_corpus()


def child(kind: str, k: int, iterations: int, seed: int) -> None:
    """``--child``: load, warm up, say ``ready``, wait for ``go`` on stdin, fit serially, print the rate."""
    corpus = load_kind(kind)
    small = corpus.subset(range(200)) if kind == "lda" else corpus
    fit_tealeaves(kind, small, k, 1, seed, 2)  # compiled kernels loaded
    print("ready", flush=True)
    sys.stdin.readline()
    print(fit_tealeaves(kind, corpus, k, 1, seed, iterations)["rate"], flush=True)


def side_by_side(kind: str, k: int, args) -> None:
    """Print the serial rate alone and in each of two processes at once, best of ``args.repeat``."""
    def run(n_processes: int) -> list[float]:
        procs = [subprocess.Popen([sys.executable, __file__, "--child", kind, str(k), str(args.iterations),
                                   str(args.seed)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                 for _ in range(n_processes)]
        for proc in procs:
            if proc.stdout.readline().strip() != "ready":
                raise SystemExit(f"a --child process failed (exit {proc.wait()})")
        for proc in procs:
            proc.stdin.write("go\n")
            proc.stdin.flush()
        rates = [float(proc.stdout.readline()) for proc in procs]
        for proc in procs:
            proc.wait()
        return rates

    alone, pair = [], []
    for _ in range(args.repeat):
        alone.append(run(1)[0])
        pair.append(sum(run(2)))
    best_alone, best_pair = max(alone), max(pair)
    print(f"     side by side (serial chain, {args.iterations} sweeps, best of {args.repeat}): alone "
          f"{best_alone / 1e6:.2f}M; two processes at once {best_pair / 1e6:.2f}M in all, "
          f"{best_pair / best_alone:.2f}x the rate alone: the most 2 threads can give on this machine now",
          flush=True)


def _alternating(times: dict):
    """A stand-in for ``polylingual._threaded``: runs of 2-thread and serial sweeps (``--paired``)."""
    real = polylingual._threaded

    def threaded(lay, n_threads, n_wk, dense, span, packed, bits, reset, used):
        sweep = real(lay, n_threads, n_wk, dense, span, packed, bits, reset, used)
        count = [0]

        def run_of(serial, z, n_lk, n_rk, alpha, beta, beta_sum, seeds):
            """Sweeps of one kind; the seconds of each."""
            start = time.perf_counter()
            if not serial:
                sweep(z, n_lk, n_rk, alpha, beta, beta_sum, seeds)  # in one call, as a fit makes them
                return [(time.perf_counter() - start) / len(seeds)] * len(seeds)
            seconds = []
            for seed in seeds:
                kern.sparse_sweep_spans(lay.seg_start, lay.seg_lang, lay.seg_row, z, n_lk, n_rk, alpha, beta,
                                        beta_sum, span, packed, bits, seed, reset, used)
                seconds.append(time.perf_counter() - start)
                start = time.perf_counter()
            return seconds

        current = {"serial": True}  # the kind of the last sweep (the burn-in's are serial)

        def switch(serial, z, n_lk):
            """Hand the chain from one kind of sweep to the other."""
            if serial:
                sweep.finish(z)  # the chain's own order, as the serial chain keeps it
            elif sweep.plan_topics() is not None:  # (the first parallel call starts from z itself)
                sweep.plan_topics()[:] = z[sweep.plan.perm]
                sweep.restart(n_lk)  # serial sweeps changed the totals the threads keep views of
            current["serial"] = serial

        def alternating(z, n_lk, n_rk, alpha, beta, beta_sum, seeds):
            seeds = np.atleast_1d(seeds)
            while len(seeds):
                if count[0] < PAIRED_BURN_IN:  # untimed: the chain past its first, fastest-changing sweeps
                    n = min(len(seeds), PAIRED_BURN_IN - count[0])
                    run_of(True, z, n_lk, n_rk, alpha, beta, beta_sum, seeds[:n])
                else:
                    run, place = divmod(count[0] - PAIRED_BURN_IN, PAIRED_RUN)
                    serial = run % 4 in (1, 2)  # 2 threads, 1, 1, 2, ...: a drift reaches both kinds alike
                    if serial != current["serial"]:
                        switch(serial, z, n_lk)
                    n = 1 if place == 0 else min(len(seeds), PAIRED_RUN - place)  # the first of a run alone
                    seconds = run_of(serial, z, n_lk, n_rk, alpha, beta, beta_sum, seeds[:n])
                    if place > 0:
                        times[1 if serial else 2].extend(seconds)
                count[0] += n
                seeds = seeds[n:]

        def finish(z):
            if not current["serial"]:  # the last sweep was parallel: z is behind
                sweep.finish(z)

        alternating.finish = finish
        alternating.batches = True
        return alternating

    return threaded


def paired(kind: str, corpus, k: int, args) -> None:
    """Print both rates measured in one chain whose sweeps alternate in runs (``--paired``)."""
    if polylingual.resolve_sampler("auto", k) != "sparse":  # the stand-in runs the sparse kernel
        print(f"     paired: not measured at K = {k} (the dense sampler)", flush=True)
        return
    times: dict = {1: [], 2: []}
    real = polylingual._threaded
    polylingual._threaded = _alternating(times)
    try:
        fit = fit_tealeaves(kind, corpus, k, 2, args.seed,
                            PAIRED_BURN_IN + 4 * PAIRED_RUN * max(1, args.iterations // 20))
    finally:
        polylingual._threaded = real
    one, two = (np.array(times[n]) for n in (1, 2))
    rate1, rate2 = fit["tokens"] / np.median(one), fit["tokens"] / np.median(two)
    verdict = "met" if rate2 / rate1 >= 1.7 else "NOT met"
    print(f"     paired, one chain ({len(one)} serial and {len(two)} 2-thread sweeps timed after "
          f"{PAIRED_BURN_IN} untimed, in runs of {PAIRED_RUN}, 2-1-1-2): 1 thread {rate1 / 1e6:.2f}M, "
          f"2 threads {rate2 / 1e6:.2f}M (medians), "
          f"{rate2 / rate1:.2f}x (target 1.7x: {verdict}); quartiles of the sweep times: serial "
          f"{np.percentile(one, 25) * 1e3:.1f}-{np.percentile(one, 75) * 1e3:.1f} ms, 2 threads "
          f"{np.percentile(two, 25) * 1e3:.1f}-{np.percentile(two, 75) * 1e3:.1f} ms", flush=True)


def compare(kind: str, name: str, corpus, args) -> None:
    """Print one corpus's table."""
    docs = tomotopy_docs(kind, corpus)
    print(f"\n{name}: {args.iterations} sweeps per fit, seed {args.seed}; token samples/s (wall)")
    print(f"{'K':>4} {'1 thread':>9} {'2 threads':>10} {'ratio':>7} {'LL/token 2 thr.':>16} "
          f"{'3 serial seeds':>20} {'tomotopy w=1':>13} {'w=2':>7} {'MALLET (not run)':>17}")
    for k in args.topics:
        tries = {1: [], 2: []}  # whole fits with the seed, alternated (args.repeat of each)
        for _ in range(args.repeat):
            for n_threads in (1, 2):
                tries[n_threads].append(fit_tealeaves(kind, corpus, k, n_threads, args.seed, args.iterations))
        best = {n: max(runs, key=lambda r: r["rate"]) for n, runs in tries.items()}
        middle = {n: sorted(r["rate"] for r in runs)[len(runs) // 2] for n, runs in tries.items()}
        serial = [best[1]] + [fit_tealeaves(kind, corpus, k, 1, args.seed + i, args.iterations)
                              for i in (1, 2)]
        two = best[2]
        tomo = [fit_tomotopy(docs, k, w, args.seed, args.iterations) for w in (1, 2)] if args.tomotopy else []
        lls = [r["ll"] for r in serial]
        inside = ("inside" if min(lls) <= two["ll"] <= max(lls)
                  else "above" if two["ll"] > max(lls) else "BELOW")
        ratio = two["rate"] / serial[0]["rate"]
        tomo_cells = [f"{r['rate'] / 1e6:.2f}M" for r in tomo] or ["-", "-"]
        mallet = f"{MALLET_PLTM[k] / 1e6:.1f}M" if kind == "pltm" and k in MALLET_PLTM else "-"
        print(f"{k:>4} {serial[0]['rate'] / 1e6:>8.2f}M {two['rate'] / 1e6:>9.2f}M {ratio:>6.2f}x "
              f"{two['ll']:>16.4f} {min(lls):>9.4f}..{max(lls):.4f} {tomo_cells[0]:>13} {tomo_cells[1]:>7} "
              f"{mallet:>17}", flush=True)
        verdict = "met" if ratio >= 1.7 else "NOT met"
        print(f"     2 threads / 1 thread {ratio:.2f}x, best of {args.repeat} whole fits each (target 1.7x: "
              f"{verdict}); medians {middle[1] / 1e6:.2f}M / {middle[2] / 1e6:.2f}M, "
              f"{middle[2] / middle[1]:.2f}x; "
              f"2-thread log-likelihood {inside} the serial spread; {serial[0]['tokens']:,} tokens"
              + (f"; tomotopy {tomo[0]['version']} w=2/w=1 {tomo[1]['rate'] / tomo[0]['rate']:.2f}x, "
                 f"{tomo[0]['tokens']:,} tokens, LL/word w=1 {tomo[0]['ll']:.4f} w=2 {tomo[1]['ll']:.4f}"
                 if tomo else ""), flush=True)
        if args.marginal:
            marginal(kind, corpus, k, docs, args)
        if args.side_by_side:
            side_by_side(kind, k, args)
        if args.paired:
            paired(kind, corpus, k, args)
        serial_cpu = sum(r["cpu_ns"] for r in serial) / len(serial)
        print(f"     CPU per token sample: serial {serial_cpu:.1f} ns (mean of 3), "
              f"2 threads {two['cpu_ns']:.1f} ns "
              f"(x{two['cpu_ns'] / serial_cpu:.2f} of serial); CPU/wall serial "
              f"{serial[0]['cpu'] / serial[0]['wall']:.2f}, 2 threads {two['cpu'] / two['wall']:.2f}"
              + (f", tomotopy w=2 {tomo[1]['cpu'] / tomo[1]['wall']:.2f}" if tomo else "")
              + f"; load average {os.getloadavg()[0]:.2f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-iter", dest="iterations", type=int, default=300,
                        help="sweeps per fit (default 300)")
    parser.add_argument("--quick", action="store_true", help="100 sweeps per fit")
    parser.add_argument("--marginal", action="store_true",
                        help="also the rate in the sweeps alone (one more fit a thread count, 4x the sweeps)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="whole fits (and --marginal's tries) per thread count, alternated; the best "
                        "is reported, the median beside (default 3)")
    parser.add_argument("-k", "--n-components", dest="topics", type=int, nargs="+", default=[20, 80])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-tomotopy", dest="tomotopy", action="store_false", help="skip tomotopy")
    parser.add_argument("--corpus", choices=["reuters", "bible", "both"], default="both")
    parser.add_argument("--side-by-side", action="store_true",
                        help="also the serial rate in two processes at once (the machine's own limit)")
    parser.add_argument("--paired", action="store_true",
                        help="also both rates in one chain whose sweeps alternate between 1 and 2 threads")
    parser.add_argument("--child", nargs=4, metavar=("KIND", "K", "SWEEPS", "SEED"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, k, iterations, seed = args.child
        child(kind, int(k), int(iterations), int(seed))
        return
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {args.repeat}")
    if args.quick:
        args.iterations = 100
    load = os.getloadavg()
    print(f"cores available: {len(os.sched_getaffinity(0))}; load average at start {load}")
    if args.corpus in ("reuters", "both"):
        train = load_kind("lda")
        for n_threads in (1, 2):  # compile outside the timings
            GibbsLDA(20, n_iter=2, n_threads=n_threads).fit(train.subset(range(200)))
        compare("lda", "GibbsLDA, Reuters-21578 ModApte training stories", train, args)
    if args.corpus in ("bible", "both"):
        bible = load_kind("pltm")
        compare("pltm", "PolylingualTopicModel, English-Swedish Bible chapters", bible, args)
    print(f"\nload average (1, 5, 15 min) at the end: {os.getloadavg()} on {os.cpu_count()} CPUs")
    print("MALLET was not run (it cannot be installed here); its column quotes issue 21's one-thread figures "
          "for PolylingualTopicModel on the same Bible tokens (14.6 / 11.9 / 9.7 M at K = 20 / 80 / 200).")


if __name__ == "__main__":
    main()
