"""Throughput of the polylingual topic model's Gibbs sampler: tealeaves vs MALLET.

Both fit the same English-Swedish Bible chapters (World English Bible and
Swedish Folkbibeln, the 1,188 chapters present in both) with the same K,
iterations and hyperparameter schedule (optimise every 50 sweeps after a
200-sweep burn-in), on one thread.  The figure compared is *token samples per
second per thread*: tokens x iterations / seconds.  tealeaves' seconds are
the sampling thread's CPU time inside the Gibbs sweeps (on a shared machine
wall time also counts other processes); wall time is printed too.  MALLET is
timed as a whole ``mallet run`` (wall), so its figure includes start-up and
optimisation and slightly favours tealeaves only by those seconds.

MALLET runs when a ``mallet`` command is on the PATH; otherwise the script
says so and compares with the published-anchor figure instead.

    TEALEAVES_DATA=/path/to/data python benchmarks/pltm.py --iterations 1000
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

#: MALLET 2.1.1, 1,188 English-Swedish chapters, 521,648 tokens, K=20, 1,000 iterations,
#: optimisation every 50, one thread.
ANCHOR = {"tool": "MALLET 2.1.1", "tokens": 521_648, "iterations": 1000, "samples_per_second": 10.6e6}


def load_corpus() -> AlignedCorpus:
    """English-Swedish chapters present in both languages, paper preprocessing."""
    texts = bible_chapters({"en": BIBLE_TEXTS["en"], "sv": BIBLE_TEXTS_FULL["sv"]})
    return texts.to_aligned().pairs("en", "sv")


def run_tealeaves(corpus: AlignedCorpus, args) -> dict:
    model = PolylingualTopicModel(
        args.topics, n_iter=args.iterations, optimize_interval=50, optimize_burn_in=200,
        random_state=args.seed, evaluate_every=max(args.iterations // 10, 1),
    )
    wall = time.perf_counter()
    model.fit(corpus)
    wall = time.perf_counter() - wall
    samples = model.n_tokens_ * args.iterations
    return {
        "tokens": model.n_tokens_, "wall": wall, "cpu": model.sampling_cpu_seconds_,
        "rate": samples / model.sampling_cpu_seconds_, "rate_wall": samples / wall,
        "final_ll": float(model.log_likelihood_trace_[-1]),
    }


def run_mallet(mallet: str, corpus: AlignedCorpus, args) -> dict:
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
               "--num-topics", str(args.topics), "--num-iterations", str(args.iterations),
               "--optimize-interval", "50", "--optimize-burn-in", "200", "--random-seed", str(args.seed + 1)]
        wall = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        wall = time.perf_counter() - wall
    tokens = corpus.n_tokens()
    return {"tokens": tokens, "wall": wall, "rate": tokens * args.iterations / wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=1000, help="Gibbs sweeps (default 1000)")
    parser.add_argument("--topics", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    t0 = time.perf_counter()
    corpus = load_corpus()
    print(f"corpus: {corpus!r}, {corpus.n_tokens():,} tokens "
          f"(en {corpus.n_tokens('en'):,}, sv {corpus.n_tokens('sv'):,}); "
          f"read + preprocessed in {time.perf_counter() - t0:.1f}s")
    PolylingualTopicModel(args.topics, n_iter=2, random_state=0).fit(corpus.subset(range(5)))  # compile

    ours = run_tealeaves(corpus, args)
    print(f"tealeaves PLTM: K={args.topics}, {args.iterations} iterations, 1 thread: "
          f"{ours['cpu']:.2f}s CPU in sweeps ({ours['wall']:.2f}s wall for the whole fit); "
          f"{ours['rate'] / 1e6:.2f}M token samples/s/thread "
          f"({ours['rate_wall'] / 1e6:.2f}M by wall time); final log-likelihood {ours['final_ll']:.1f}")

    print(f"load average (1, 5, 15 min) after the fit: {os.getloadavg()}; on {os.cpu_count()} CPUs "
          "(wall-time figures shrink when other processes share the CPUs; CPU time does not)")

    mallet = shutil.which("mallet")
    if mallet:
        theirs = run_mallet(mallet, corpus, args)
        print(f"MALLET PolylingualTopicModel: {theirs['wall']:.2f}s wall, "
              f"{theirs['rate'] / 1e6:.2f}M token samples/s/thread")
        print(f"ratio tealeaves / MALLET: {ours['rate'] / theirs['rate']:.2f}x")
    else:
        print("MALLET: no 'mallet' command on the PATH, so MALLET was not run here.")
        print(f"anchor: {ANCHOR['tool']}, {ANCHOR['tokens']:,} tokens, {ANCHOR['iterations']} iterations, "
              f"optimisation every 50, one thread: {ANCHOR['samples_per_second'] / 1e6:.1f}M "
              "token samples/s")
        print(f"ratio tealeaves / anchor: {ours['rate'] / ANCHOR['samples_per_second']:.2f}x "
              f"({ours['rate_wall'] / ANCHOR['samples_per_second']:.2f}x by wall time)")


if __name__ == "__main__":
    main()
