"""Coverage of the two-level bootstrap interval of the correlation with the true human scores.

400 simulated studies (50 topics, 3-12 responses per topic, annotator noise
dominating: reliability ~0.4), true correlation 0.5; prints the share of
95% intervals covering it and their median widths, for the two-level
(shrinkage, true-score) interval, the topic-only interval and the plain
two-level percentile interval.  See tealeaves/human/_simulation.py for the
design and the estimand.

    PYTHONPATH=src python benchmarks/human_bootstrap_coverage.py [--studies 400] [--noise 3]
    PYTHONPATH=src python benchmarks/human_bootstrap_coverage.py --responses binary
"""

from __future__ import annotations

import argparse
import time

from tealeaves.human._simulation import coverage, estimand


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=400)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--noise", type=float, default=3.0)
    parser.add_argument("--rho", type=float, default=0.5)
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--responses",
        choices=("normal", "binary"),
        default="normal",
        help="normal ratings (default) or 0/1 intrusion responses",
    )
    args = parser.parse_args()
    start = time.perf_counter()
    out = coverage(
        args.studies,
        n_components=args.topics,
        rho=args.rho,
        noise=args.noise,
        n_boot=args.n_boot,
        seed=args.seed,
        responses=args.responses,
    )
    noise = "0/1 responses" if args.responses == "binary" else f"noise sd {args.noise}"
    print(
        f"{args.studies} studies, {args.topics} topics, {noise}, rho {args.rho} (true correlation "
        f"{estimand(args.rho, args.responses):.4f}), {args.n_boot} resamples "
        f"({time.perf_counter() - start:.0f} s)"
    )
    for name, v in out.items():
        print(f"  {name:22s} coverage {v['coverage']:.3f}  median width {v['median_width']:.3f}")


if __name__ == "__main__":
    main()
