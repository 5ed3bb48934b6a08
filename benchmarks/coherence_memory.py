"""Peak memory above the mapped index of a large coherence call: this tree's blocked counting
(``memory=``) against main's core, one setting per fresh process.

Topics: 1,000 x top 50 drawn (seed 0) from the 10,000 words of the reference with the most documents,
each with probability proportional to its document frequency (frequent words recur across topics,
as in LDA).  For each window (``doc``, 10, 110; NPMI, ``compat="exact"``) a child process opens the
index (``verify=False``), scores the topics once and reports its wall time, its peak anonymous memory
(``RssAnon`` of ``/proc/self/status`` sampled every 10 ms: the memory above the mapped file, whose
pages count as ``RssFile``), its peak RSS (``VmHWM``, mapped pages included) and a digest of the
joint and single counts, so that the two cores' counts can be compared.

    python benchmarks/coherence_memory.py --reference REF.tlx [--windows doc 10 110] [--memory 1G]
        [--against main]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np


def topics_of(index, n_topics: int = 1000, n_top: int = 50, seed: int = 0) -> list[list[str]]:
    """``n_topics`` topics of ``n_top`` distinct frequent words of ``index`` (see the module docstring)."""
    ptr = index.arrays["word_ptr"]
    df = np.diff(ptr)
    top = np.argsort(-df, kind="stable")[:10_000]
    words = index.vocabulary
    rng = np.random.default_rng(seed)
    p = df[top] / df[top].sum()
    return [[words[int(top[i])] for i in rng.choice(len(top), n_top, replace=False, p=p)]
            for _ in range(n_topics)]


def _status(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) << 10
    return 0


def child(reference: str, window: str, memory: str | None, against: str | None) -> dict:
    """Score the topics once in this process; the measurements as a dict."""
    from tealeaves.coherence import measure
    from tealeaves.coherence.presets import resolve
    from tealeaves.index import ReferenceIndex

    index = ReferenceIndex.load(reference, verify=False)
    topics = topics_of(index)
    if against:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from coherence_scale import old_core

        measure.core = old_core(against)
    win = window if window == "doc" else int(window)
    spec = resolve("npmi", window=win)
    base = _status("RssAnon")
    peak = [base]
    done = threading.Event()

    def sample():
        while not done.wait(0.01):
            peak[0] = max(peak[0], _status("RssAnon"))

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    t = time.perf_counter()
    counts = measure._count_all(index, topics, spec, memory)
    wall = time.perf_counter() - t
    done.set()
    watcher.join()
    peak[0] = max(peak[0], _status("RssAnon"))
    raw = np.ascontiguousarray(counts.joint).tobytes() + np.ascontiguousarray(counts.single).tobytes()
    digest = hashlib.sha256(raw + str(counts.n).encode()).hexdigest()
    return {"window": window, "core": against or "this tree", "memory": memory, "seconds": round(wall, 2),
            "anon_before_gib": round(base / 2**30, 3), "peak_anon_gib": round(peak[0] / 2**30, 3),
            "peak_rss_gib": round(_status("VmHWM") / 2**30, 3), "counts_sha256": digest[:16]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", required=True)
    parser.add_argument("--windows", nargs="+", default=["doc", "10", "110"])
    parser.add_argument("--memory", default=None, help="this tree's budget (default: its default, 1 GiB)")
    parser.add_argument("--against", default="main", help="git ref of the core before ('' to skip it)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--core", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.reference, args.windows[0], args.memory, args.core)))
        return 0
    for window in args.windows:
        for core in ([args.against] if args.against else []) + [None]:
            cmd = [sys.executable, __file__, "--child", "--reference", args.reference, "--windows", window]
            cmd += ["--memory", args.memory] if args.memory and core is None else []
            cmd += ["--core", core] if core else []
            run = subprocess.run(cmd, capture_output=True, text=True)
            failed = f"window {window} core {core}: failed\n{run.stderr[-2000:]}"
            print(run.stdout.strip() or failed, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
