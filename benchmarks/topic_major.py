"""Document pair counts topic by topic against pair by pair, on the same topics and reference.

For each reference and topic set it prints the topics' words' postings summed topic by topic
("repeated") and over the distinct words, and the median of 3 timed calls (after one untimed) of
``core.count_topic_documents`` (topic-major, :mod:`tealeaves.coherence._kernels_topics`) by word sets
and by bitmaps, and of ``core.count_documents`` over the topics' distinct pairs (the pair kernels:
probes, bitsets and the unit-major kernel of the frequent words), whether the counts are equal, which
way ``core.topic_major_cheaper`` chooses, and which of the two topic-major ones
``core._bitmaps_cheaper`` chooses.  The choice's bound, ``core.TOPIC_MAJOR_MAX_REPEAT``, was set from
these figures (before the bitmaps).

Topic sets: ``80x10 LDA`` (``benchmarks/coherence_scale.py``'s 80 LDA topics of the Reuters stories,
only with ``--lda``) and ``Nx10``: N topics of 10 distinct words drawn from the reference's 5,000
commonest words by document frequency, each with probability proportional to it (seed 0, as
``benchmarks/index_scale.py`` draws them), so that topics share words.

    TEALEAVES_DATA=/path/to/data python benchmarks/topic_major.py benchmarks/out/coherence_scale_50M.tlx --lda
    python benchmarks/topic_major.py /path/to/grow-1000000000.tlx --topics 80 300 1000
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from index_scale import _topic_sampler  # noqa: E402 - the same draw as the scale benchmark's
from tealeaves.coherence import core, measure  # noqa: E402
from tealeaves.coherence._pair_tables import topic_pairs  # noqa: E402
from tealeaves.index import ReferenceIndex  # noqa: E402


def median_seconds(fn, repeat: int = 3) -> tuple[float, object]:
    """Median wall seconds of ``repeat`` calls after an untimed one, and the last result."""
    out = fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def same_counts(index, uniq, loc, pairs, by_topic, by_pair) -> bool:
    """Whether the topic-major joint counts equal the pair kernels' for every topic's pair."""
    table = {(int(a), int(b)): int(c) for (a, b), c in zip(pairs, by_pair.joint)}
    single = dict(zip(range(len(uniq)), by_pair.single.tolist()))
    for t, row in enumerate(loc):
        for i, a in enumerate(row):
            for j, b in enumerate(row):
                if a < 0 or b < 0:
                    continue
                want = single[a] if a == b else table[(min(a, b), max(a, b))]
                if by_topic[t, i, j] != want:
                    return False
    return True


def compare(index, name: str, topics) -> None:
    """Print one topic set's line."""
    loc, uniq = measure._word_table(index, topics)
    pairs = topic_pairs(loc)[0]
    ptr = index.arrays["word_ptr"]
    sizes = (ptr[uniq + 1] - ptr[uniq]).astype(np.int64)
    repeated, distinct = int(sizes[loc[loc >= 0]].sum()), int(sizes.sum())
    def topic_major(method):
        return median_seconds(lambda: core.count_topic_documents(index, uniq, loc, method=method))

    t_sets, (joint, _, _) = topic_major("sets")
    t_bits, (bits, _, _) = topic_major("bitmaps")
    t_pair, counts = median_seconds(lambda: core.count_documents(index, uniq, pairs))
    chosen = "topic-major" if core.topic_major_cheaper(index, uniq, loc) else "pairs"
    way = "bitmaps" if core._bitmaps_cheaper(repeated, distinct, len(uniq), core._present_pairs(loc),
                                              int(index.n_documents)) else "sets"  # by the estimate alone
    equal = same_counts(index, uniq, loc, pairs, joint, counts) and np.array_equal(joint, bits)
    print(f"{name:>12}  postings {repeated / 1e6:8.1f} M repeated / {distinct / 1e6:7.1f} M distinct "
          f"(x{repeated / max(distinct, 1):4.1f}), {len(pairs):6,} pairs  word sets {t_sets:7.3f} s  "
          f"bitmaps {t_bits:7.3f} s  pair by pair {t_pair:7.3f} s  equal: {equal}  "
          f"chosen: {chosen} ({way})", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index", help="a saved reference index (.tlx)")
    parser.add_argument("--topics", type=int, nargs="+", default=[80, 300, 1000],
                        help="sizes of the drawn topic sets (10 words each)")
    parser.add_argument("--lda", action="store_true",
                        help="also benchmarks/coherence_scale.py's 80 LDA topics")
    args = parser.parse_args(argv)
    index = ReferenceIndex.load(args.index, verify=False)
    print(f"{args.index}: {index.n_present:,} documents, {index.n_tokens:,} tokens", flush=True)
    if args.lda:
        from coherence_scale import topic_sets

        compare(index, "80x10 LDA", topic_sets()[0][1])
    draw = _topic_sampler(index)
    for n in args.topics:
        compare(index, f"{n}x10", draw(n, 10))
    return 0


if __name__ == "__main__":
    sys.exit(main())
