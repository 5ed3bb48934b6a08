"""What the unsegmented-text check costs ``index_from_token_lists`` (the API's token-list references).

Times the build of the Reuters ModApte training stories as token lists, full and restricted to 500 topic
words, with the check (:func:`tealeaves.index.build._token_list_segmentation`) and with it replaced by
a no-op, in one run (best of 7 each, wall and CPU time).

    TEALEAVES_DATA=/path/to/data python benchmarks/token_list_check.py
"""

from __future__ import annotations

import os
import time

from tealeaves.corpus.reuters import load_reuters_modapte
from tealeaves.index import build as I


def best(docs, words, repeat: int = 7) -> tuple[float, float]:
    """Best wall and CPU seconds of ``index_from_token_lists(docs, words=words)``."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        I.index_from_token_lists(docs, words=words)
        wall, cpu = min(wall, time.perf_counter() - w0), min(cpu, time.process_time() - c0)
    return wall, cpu


def main() -> None:
    train, _, _ = load_reuters_modapte()
    words = list(train.vocabulary)
    offsets = train.offsets
    docs = [[words[t] for t in train.tokens[offsets[d]:offsets[d + 1]]] for d in range(len(train))]
    print(f"{len(docs)} documents, {sum(map(len, docs)):,} tokens; load {os.getloadavg()}")
    check = I._token_list_segmentation
    for label, topic_words in (("restricted to 500 words", words[:500]), ("full", None)):
        I._token_list_segmentation = lambda *a: {}
        w0, c0 = best(docs, topic_words)
        I._token_list_segmentation = check
        w1, c1 = best(docs, topic_words)
        print(f"{label}: without the check {w0 * 1e3:.0f} ms wall / {c0 * 1e3:.0f} ms CPU, with it "
              f"{w1 * 1e3:.0f} ms / {c1 * 1e3:.0f} ms: {w1 / w0:.2f}x wall, {c1 / c0:.2f}x CPU")


if __name__ == "__main__":
    main()
