"""Throughput of the polylingual topic model's Gibbs samplers (dense and sparse) beside MALLET's.

Both samplers fit the same English-Swedish Bible chapters (World English Bible
and Swedish Folkbibeln, the 1,188 chapters present in both) at K = 20, 80
and 200, with MALLET's hyperparameter schedule (optimise every 50 sweeps after
a 200-sweep burn-in; with fewer than 250 iterations no optimisation happens),
on one thread, in one run.  The figure is *token samples per second per
thread*: tokens x iterations / seconds, where the seconds are the sampling
thread's CPU time in the sweeps (plus, for the sparse sampler, unpacking its
word-topic lists for the likelihood and the optimiser); wall time is printed too.

MALLET cannot be installed here, so it is not run unless a ``mallet`` command
is on the PATH; its measured anchors (issue 13: MALLET 2.1.1
PolylingualTopicModel, one thread, 521,648 tokens of the same Bible pairs:
16.5 M token samples/s at K = 20 and 13.4 M at K = 80; K = 200 not measured)
are printed beside the figures.  The issue's target is at least MALLET's rate at
K = 20, 80 and 200 and twice it at K = 200; since MALLET's K = 200 rate is
unknown, the K = 200 line checks two readings: the conservative one (MALLET's
SparseLDA-style sampler can only slow as K grows, so it runs at most its K = 80
rate: 2x = 26.8 M) and a linear-in-K extrapolation of its time per token
through the two anchors (9.7 M: 2x = 19.5 M).

``--hyperparameters`` instead fits K = 20 and 80 with 1,000 iterations twice,
once with the exact sampler and once with MALLET's stale cached coefficients
(``PolylingualTopicModel`` never resets them after a document; see
docs/polylingual.md), and prints the optimised alpha sums.

    TEALEAVES_DATA=/path/to/data python benchmarks/pltm.py --iterations 300
    TEALEAVES_DATA=/path/to/data python benchmarks/pltm.py --hyperparameters
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from tealeaves.corpus.aligned import AlignedCorpus
from tealeaves.corpus.parallel import BIBLE_TEXTS, BIBLE_TEXTS_FULL, bible_chapters
from tealeaves.models.polylingual import PolylingualTopicModel

#: MALLET 2.1.1 PolylingualTopicModel on the same 1,188 English-Swedish chapters (521,648 tokens),
#: one thread, measured side by side with tealeaves (issue 13).  K = 200 was not measured.
MALLET_PLTM = {"tool": "MALLET 2.1.1", "tokens": 521_648, 20: 16.5e6, 80: 13.4e6}


def mallet_linear(k: int) -> float:
    """MALLET's token samples/s at ``k`` if its time per token grows linearly in K through its two anchors."""
    t20, t80 = 1 / MALLET_PLTM[20], 1 / MALLET_PLTM[80]
    return 1 / (t80 + (t80 - t20) / 60 * (k - 80))


def load_corpus() -> AlignedCorpus:
    """English-Swedish chapters present in both languages, paper preprocessing."""
    texts = bible_chapters({"en": BIBLE_TEXTS["en"], "sv": BIBLE_TEXTS_FULL["sv"]})
    return texts.to_aligned().pairs("en", "sv")


def run_tealeaves(corpus: AlignedCorpus, k: int, sampler: str, iterations: int, seed: int,
                  reset: bool = True) -> dict:
    model = PolylingualTopicModel(
        k, n_iter=iterations, optimize_interval=50, optimize_burn_in=200, random_state=seed,
        evaluate_every=max(iterations // 10, 1), sampler=sampler,
    )
    model._reset_coefficients = reset
    wall = time.perf_counter()
    model.fit(corpus)
    wall = time.perf_counter() - wall
    samples = model.n_tokens_ * iterations
    return {
        "tokens": model.n_tokens_, "wall": wall, "cpu": model.sampling_cpu_seconds_,
        "rate": samples / model.sampling_cpu_seconds_, "rate_wall": samples / wall,
        "final_ll": float(model.log_likelihood_trace_[-1]), "alpha_sum": float(model.alpha_.sum()),
        "beta": model.beta_,
    }


def run_mallet(mallet: str, corpus: AlignedCorpus, k: int, iterations: int, seed: int) -> dict:
    """Import each language as a token sequence and time MALLET's PolylingualTopicModel."""
    with tempfile.TemporaryDirectory() as tmp:
        inputs = []
        for lang in corpus.languages:
            txt = Path(tmp) / f"{lang}.txt"
            c = corpus.corpora[lang]
            with open(txt, "w", encoding="utf-8") as fh:
                for d in range(len(c)):
                    fh.write(f"{c.ids[d]}\t{lang}\t{' '.join(c.words(d))}\n")
            out = Path(tmp) / f"{lang}.mallet"
            subprocess.run(
                [mallet, "import-file", "--input", str(txt), "--output", str(out), "--keep-sequence",
                 "--token-regex", r"\S+", "--preserve-case"],
                check=True, capture_output=True,
            )
            inputs.append(str(out))
        cmd = [mallet, "run", "cc.mallet.topics.PolylingualTopicModel", "--language-inputs", *inputs,
               "--num-topics", str(k), "--num-iterations", str(iterations),
               "--optimize-interval", "50", "--optimize-burn-in", "200", "--random-seed", str(seed + 1)]
        wall = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        wall = time.perf_counter() - wall
    tokens = corpus.n_tokens()
    return {"tokens": tokens, "wall": wall, "rate": tokens * iterations / wall}


def throughput(corpus: AlignedCorpus, args) -> None:
    """Dense and sparse token samples/s/thread at each K, beside MALLET's anchors."""
    mallet = shutil.which("mallet")
    print(f"{args.iterations} iterations per fit (throughput is per token sample, so fewer than MALLET's "
          "1,000 measure the same rate, minus the sparser late sweeps); seed", args.seed)
    print(f"{'K':>4} {'dense':>22} {'sparse':>22} {'sparse/dense':>13} {'MALLET':>24}")
    for k in args.topics:
        dense = run_tealeaves(corpus, k, "dense", args.iterations, args.seed)
        sparse = run_tealeaves(corpus, k, "sparse", args.iterations, args.seed)
        if mallet:
            theirs = f"{run_mallet(mallet, corpus, k, args.iterations, args.seed)['rate'] / 1e6:.2f}M (run)"
        elif k in MALLET_PLTM:
            theirs = f"{MALLET_PLTM[k] / 1e6:.1f}M (anchor)"
        else:
            theirs = "not measured"
        cells = [f"{r['rate'] / 1e6:6.2f}M ({r['rate_wall'] / 1e6:5.2f}M wall)" for r in (dense, sparse)]
        print(f"{k:>4} {cells[0]:>22} {cells[1]:>22} {sparse['rate'] / dense['rate']:>12.2f}x {theirs:>24}")
        if k in MALLET_PLTM and not mallet:
            print(f"     sparse / MALLET anchor: {sparse['rate'] / MALLET_PLTM[k]:.2f}x; dense / MALLET "
                  f"anchor: {dense['rate'] / MALLET_PLTM[k]:.2f}x; final log-likelihood dense "
                  f"{dense['final_ll']:.0f}, sparse {sparse['final_ll']:.0f}", flush=True)
        elif not mallet:
            high, linear = 2 * MALLET_PLTM[80], 2 * mallet_linear(k)
            print(f"     target 2x MALLET at K={k}, whose rate there was not measured: conservative reading "
                  f"(MALLET no faster than at K=80) 2 x 13.4M = {high / 1e6:.1f}M: "
                  f"{'met' if sparse['rate'] >= high else 'NOT met'} ({sparse['rate'] / high:.2f}x); "
                  f"linear-in-K time per token from MALLET's two anchors ({linear / 2e6:.1f}M) "
                  f"2x = {linear / 1e6:.1f}M: {'met' if sparse['rate'] >= linear else 'NOT met'} "
                  f"({sparse['rate'] / linear:.2f}x); sparse is 2x MALLET if MALLET runs at most "
                  f"{sparse['rate'] / 2e6:.1f}M there", flush=True)
    print("sampler='auto' (the default) uses dense below 20 topics and sparse from 20.")
    if not mallet:
        print("MALLET was not run here (no 'mallet' command on the PATH; it cannot be installed); its "
              f"figures are the anchors measured in issue 13 on {MALLET_PLTM['tokens']:,} tokens.")


def hyperparameters(corpus: AlignedCorpus, args) -> None:
    """Optimised alpha sums of the exact sampler and of MALLET's stale-coefficient chain."""
    print("1,000 iterations, alpha 0.1/topic, beta 0.01, optimise every 50 after 200, sparse sampler, seed",
          args.seed)
    for k in (20, 80):
        exact = run_tealeaves(corpus, k, "sparse", 1000, args.seed)
        stale = run_tealeaves(corpus, k, "sparse", 1000, args.seed, reset=False)
        print(f"K={k}: optimised alpha sum exact {exact['alpha_sum']:.3f}, MALLET's stale coefficients "
              f"{stale['alpha_sum']:.3f} (ratio {stale['alpha_sum'] / exact['alpha_sum']:.2f}); beta exact "
              f"{exact['beta']}, stale {stale['beta']}; final log-likelihood exact {exact['final_ll']:.0f}, "
              f"stale {stale['final_ll']:.0f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=300, help="Gibbs sweeps per fit (default 300)")
    parser.add_argument("--topics", type=int, nargs="+", default=[20, 80, 200])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hyperparameters", action="store_true",
                        help="compare optimised alpha with MALLET's stale-coefficient chain instead")
    args = parser.parse_args()

    t0 = time.perf_counter()
    corpus = load_corpus()
    print(f"corpus: {corpus!r}, {corpus.n_tokens():,} tokens "
          f"(en {corpus.n_tokens('en'):,}, sv {corpus.n_tokens('sv'):,}); "
          f"read + preprocessed in {time.perf_counter() - t0:.1f}s")
    for sampler in ("dense", "sparse"):  # compile
        PolylingualTopicModel(5, n_iter=2, random_state=0, sampler=sampler).fit(corpus.subset(range(5)))
    if args.hyperparameters:
        hyperparameters(corpus, args)
    else:
        throughput(corpus, args)
    print(f"load average (1, 5, 15 min) at the end: {os.getloadavg()} on {os.cpu_count()} CPUs "
          "(CPU-time figures are what the sampling thread used; wall-time figures shrink when other "
          "processes share the CPUs)")


if __name__ == "__main__":
    main()
