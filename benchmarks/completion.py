"""Document completion (tealeaves) vs scikit-learn's ``perplexity()`` on the same fitted LDA.

On the 3,019 ModApte test stories with the Reuters reproduction's K=80 model
(fitted once and cached, see ``tealeaves.reproduce.reuters.fit_reuters_models``),
time ``tealeaves.likelihood.document_completion`` (split, scikit-learn's own
E-step on the observed halves, scoring of the held-out halves) and
``LatentDirichletAllocation.perplexity`` on the test counts, in one process,
and print both times and their ratio.

    TEALEAVES_DATA=/path/to/data python benchmarks/completion.py [--k 80] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time

from tealeaves.likelihood import document_completion
from tealeaves.reproduce.reuters import fit_reuters_models, load_corpora


def best_time(fn, repeats: int) -> tuple[float, object]:
    """Smallest wall-clock time of ``repeats`` calls, and the last result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=80)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    train, test = load_corpora()
    model = fit_reuters_models([args.k], train=train)[args.k]
    counts = test.counts.astype(float)
    t_ours, ours = best_time(lambda: document_completion(model, test, seed=0), args.repeats)
    t_sk, theirs = best_time(lambda: model.estimator_.perplexity(counts), args.repeats)
    print(f"K={args.k}, {len(test)} test stories, {test.n_tokens} tokens")
    print(f"tealeaves document completion: {t_ours:.3f} s (perplexity {ours.perplexity:.1f}, "
          f"{ours.n_heldout_words} held-out words)")
    print(f"scikit-learn perplexity():     {t_sk:.3f} s (perplexity {theirs:.1f})")
    print(f"ratio sklearn / tealeaves: {t_sk / t_ours:.2f}x")


if __name__ == "__main__":
    main()
