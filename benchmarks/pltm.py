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

    TEALEAVES_DATA=/path/to/data python benchmarks/pltm.py --n-iter 300
    TEALEAVES_DATA=/path/to/data python benchmarks/pltm.py --hyperparameters
    TEALEAVES_DATA=/path/to/data python benchmarks/pltm.py --against main --n-iter 30

``--against GIT_REF`` times this tree's sparse sweep against the one committed at
``GIT_REF`` from one settled state, alternating sweeps in one process (a ratio
that the machine's load affects equally), instead of the fits above.
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
        evaluate_every=max(iterations // 10, 1), sampler=sampler, n_threads=1,
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


def _kernels_at(ref: str, folder: str):
    """``_pltm_kernels.py`` as committed at git ``ref``, imported from ``folder`` under its own name."""
    import importlib.util

    root = Path(__file__).resolve().parent.parent
    source = subprocess.run(["git", "-C", str(root), "show", f"{ref}:src/tealeaves/models/_pltm_kernels.py"],
                            check=True, capture_output=True, text=True).stdout
    path = Path(folder) / "kernels_at_ref.py"
    path.write_text(source.replace("cache=True", "cache=False"), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("kernels_at_ref", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def against(corpus: AlignedCorpus, args) -> None:
    """This tree's sparse sweep against git ``--against``'s, alternating sweeps in one process.

    Both start from one state (uniform topics, then 50 sweeps of the reference's kernel, alpha 0.1,
    beta 0.01, no optimisation), then each runs ``--iterations`` sweeps from its own copy, the two
    alternating so that both see the same machine load; the ratio is of the sampling thread's CPU
    time.  Each copy's word lists are checked against its topics at the end.
    """
    import numpy as np

    from tealeaves.models import _pltm_kernels as kern
    from tealeaves.models.polylingual import _layout

    langs = list(corpus.languages)
    sizes = np.array([len(corpus.vocabulary(x)) for x in langs])
    lay = _layout(corpus, langs, np.concatenate([[0], np.cumsum(sizes)]), np.ones(len(corpus), bool))
    with tempfile.TemporaryDirectory() as tmp:
        ref = _kernels_at(args.against, tmp)
        print(f"sparse sweep of this tree vs git {args.against}: {args.iterations} sweeps each after 50 "
              "settling sweeps, alternating; alpha 0.1, beta 0.01, no optimisation")
        for k in args.topics:
            (c_ref, w_ref), (c_new, w_new), same = _alternate(ref, kern, lay, sizes, k, args.iterations)
            n = len(lay.tokens) * args.iterations
            print(f"K={k:>3}: {args.against} {n / c_ref / 1e6:6.2f}M/s CPU ({n / w_ref / 1e6:6.2f}M wall), "
                  f"this tree {n / c_new / 1e6:6.2f}M/s CPU ({n / w_new / 1e6:6.2f}M wall): "
                  f"{c_ref / c_new:.3f}x CPU time, {w_ref / w_new:.3f}x wall "
                  f"(CPU s {c_ref:.2f} vs {c_new:.2f}); same topics at the end: {'yes' if same else 'no'}",
                  flush=True)


def _alternate(ref, kern, lay, sizes, k: int, iterations: int):
    """CPU and wall seconds of ``iterations`` sweeps of ``ref``'s and ``kern``'s sparse kernels, and whether
    the two chains end with the same topics."""
    import numpy as np

    z = np.zeros(len(lay.tokens), np.int32)
    n_wk = np.zeros((sizes.sum(), k), np.int32)
    n_lk, n_rk = np.zeros((len(sizes), k), np.int32), np.zeros((lay.n_rows, k), np.int32)
    segs = (lay.seg_start, lay.seg_lang, lay.seg_row)
    kern.init_topics(lay.tokens, *segs, z, n_wk, n_lk, n_rk, 5)
    word_start, packed = kern.word_lists(lay.tokens, n_wk.shape[0], k, np.int32)
    bits = kern.topic_bits(k)
    kern.build_word_topics(n_wk, word_start, packed, bits)
    alpha, beta = np.full(k, 0.1), np.full(len(sizes), 0.01)
    beta_sum = beta * sizes
    for it in range(50):
        ref.sparse_sweep(lay.tokens, *segs, z, n_lk, n_rk, alpha, beta, beta_sum, word_start, packed, bits,
                         it, True)
    settled = (z, n_lk, n_rk, packed, kern.used_cells(packed, word_start))
    states = [[a.copy() for a in settled] for _ in range(2)]
    span = kern.word_spans(lay.tokens, word_start)

    def sweeper(module):
        if not hasattr(module, "sparse_sweep_spans"):  # a ref older than the spans: its one-call sweep
            return lambda st, seed: module.sparse_sweep(lay.tokens, *segs, *st[:3], alpha, beta, beta_sum,
                                                        word_start, st[3], bits, seed, True)
        return lambda st, seed: module.sparse_sweep_spans(*segs, *st[:3], alpha, beta, beta_sum, span, st[3],
                                                          bits, seed, True, st[4])

    sweeps = (sweeper(ref), sweeper(kern))
    for sweep in sweeps:  # compile outside the timing
        sweep([a.copy() for a in settled], 0)
    times = [[0.0, 0.0], [0.0, 0.0]]
    for it in range(iterations):
        for j, sweep in enumerate(sweeps):
            c0, w0 = time.thread_time(), time.perf_counter()
            sweep(states[j], 1000 + it)
            times[j][0] += time.thread_time() - c0
            times[j][1] += time.perf_counter() - w0
    for st in states:
        kern.unpack_word_topics(st[3], word_start, bits, n_wk)
        expected = np.zeros_like(n_wk)
        np.add.at(expected, (lay.tokens, st[0]), 1)
        assert np.array_equal(n_wk, expected), "a kernel's word lists disagree with its topics"
    times.append(bool(np.array_equal(states[0][0], states[1][0])))
    return times


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
    # the names of docs/naming.md (`tealeaves pltm fit`); --iterations and --topics are the old spellings
    parser.add_argument("--n-iter", "--iterations", dest="iterations", type=int, default=300,
                        help="Gibbs sweeps per fit (default 300)")
    parser.add_argument("--n-components", "--topics", dest="topics", type=int, nargs="+",
                        default=[20, 80, 200], help="numbers of topics K (default 20 80 200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hyperparameters", action="store_true",
                        help="compare optimised alpha with MALLET's stale-coefficient chain instead")
    parser.add_argument("--against", metavar="GIT_REF",
                        help="instead time this tree's sparse sweep against the one committed at GIT_REF "
                             "(e.g. main), alternating sweeps in one process")
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
    elif args.against:
        against(corpus, args)
    else:
        throughput(corpus, args)
    print(f"load average (1, 5, 15 min) at the end: {os.getloadavg()} on {os.cpu_count()} CPUs "
          "(CPU-time figures are what the sampling thread used; wall-time figures shrink when other "
          "processes share the CPUs)")


if __name__ == "__main__":
    main()
