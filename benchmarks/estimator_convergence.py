"""Error of each held-out likelihood estimator against the exact value as samples grow.

A synthetic corpus is drawn from a known LDA (K = 3 topics, V = 10 words,
8-word documents, asymmetric alpha), small enough that ``log p(w_d)`` is
computed exactly by enumerating all 3^8 topic assignments.  For each number of
samples S, every estimator is run and its mean error over the documents
(estimate minus exact, in nats per document) is recorded; the figure shows the
mean absolute error and the harmonic mean's signed error.

    python benchmarks/estimator_convergence.py [--out docs/figures/estimators.png]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.likelihood import estimators as E

SAMPLES = (3, 10, 30, 100, 300, 1000, 3000)

#: label -> function(phi, alpha, corpus, S, seed) returning (estimates, standard errors)
RUNS = {
    "importance sampling (prior)": lambda p, a, c, s, seed: E.importance_sampling(p, a, c, s, seed=seed),
    "harmonic mean (biased)": lambda p, a, c, s, seed: E.harmonic_mean(p, a, c, s, burn_in=50, seed=seed),
    "AIS (S chains, 50 temps)": lambda p, a, c, s, seed: E.annealed_importance_sampling(
        p, a, c, s, n_temperatures=50, seed=seed),
    "Chib-style (S states)": lambda p, a, c, s, seed: E.chib_style(p, a, c, s, n_chains=1, seed=seed),
    "left-to-right (Wallach/MALLET)": lambda p, a, c, s, seed: E.left_to_right(p, a, c, s, seed=seed),
    "left-to-right, weighted": lambda p, a, c, s, seed: E.left_to_right(p, a, c, s, weighted=True,
                                                                         seed=seed),
}


def synthetic(seed: int = 0, n_docs: int = 40, k: int = 3, v: int = 10, length: int = 8):
    """Documents drawn from a known LDA and their exact log-likelihoods."""
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(v, 0.3), size=k)
    alpha = np.array([0.3, 0.8, 1.5])[:k]
    docs = []
    for _ in range(n_docs):
        theta = rng.dirichlet(alpha)
        docs.append([f"w{int(rng.choice(v, p=phi[z]))}" for z in rng.choice(k, size=length, p=theta)])
    corpus = Corpus.from_token_lists(docs, Vocabulary([f"w{i}" for i in range(v)]))
    exact = np.array([E.exact_log_likelihood(corpus.document(d), phi, alpha) for d in range(n_docs)])
    return phi, alpha, corpus, exact


def errors(seed: int = 0) -> dict[str, np.ndarray]:
    """label -> array (len(SAMPLES), 2) of mean absolute and mean signed error per document."""
    phi, alpha, corpus, exact = synthetic(seed)
    out = {}
    for label, run in RUNS.items():
        rows = []
        for s in SAMPLES:
            est = run(phi, alpha, corpus, s, seed + s)[0]
            rows.append((np.abs(est - exact).mean(), (est - exact).mean()))
        out[label] = np.array(rows)
    return out


def plot(results: dict[str, np.ndarray], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    for label, r in results.items():
        style = "--" if "harmonic" in label else "-"
        ax1.loglog(SAMPLES, r[:, 0], style, marker="o", ms=3, label=label)
        ax2.semilogx(SAMPLES, r[:, 1], style, marker="o", ms=3, label=label)
    ax1.set_xlabel("samples S (particles / draws / chains / states)")
    ax1.set_ylabel("mean |estimate - exact| (nats per document)")
    ax1.set_title("absolute error")
    ax2.axhline(0, color="grey", lw=0.8)
    ax2.set_xlabel("samples S")
    ax2.set_ylabel("mean (estimate - exact)")
    ax2.set_title("signed error (bias)")
    ax1.legend(fontsize=7)
    fig.suptitle("40 synthetic 8-word documents, K=3, V=10; exact log p(w) by enumerating 3^8 assignments",
                 fontsize=9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("docs/figures/estimators.png"))
    args = parser.parse_args()
    start = time.perf_counter()
    results = errors()
    for label, r in results.items():
        cells = "  ".join(f"{a:.4f}/{b:+.4f}" for a, b in r)
        print(f"{label:32s} {cells}")
    print(f"samples: {SAMPLES}  (each cell: mean |error| / mean signed error)")
    plot(results, args.out)
    print(f"wrote {args.out} in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
