"""Open time and memory of a reference index: its first open, and an open of the verified file.

Each open runs in a fresh process (the compiled checks loaded first, off the clock), with its own
verified-state cache folder: the first open of a run starts from an empty cache (checksum and every
check), the next ones find the file recorded (header and vocabulary only).  For each it prints the
wall time of ``ReferenceIndex.load``, of the first word lookup (the vocabulary decoded), and the
process's memory after the open from ``/proc/self/status``: ``RssAnon`` (anonymous memory: what the
open allocated), ``RssFile`` (pages of mapped files, the index's among them: page cache the kernel can
drop) and ``VmHWM`` (peak RSS).  ``--src`` runs another source tree (e.g. a checkout of an older
tealeaves) for a before/after comparison.  The page cache is left as it is (the file is usually in
it after the first open: the times are those of a warm cache).

Run from the repository root::

    TEALEAVES_DATA=/work/shared/data python benchmarks/index_scale.py --sizes 50M --skip-scoring
    python benchmarks/index_open.py /tmp/tealeaves-index-scale/50M.tlx --repeat 3 [--src OTHER/src]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"

CHILD = r"""
import json, sys, tempfile, time
from pathlib import Path

def status():
    out = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            key, value = line.split(":", 1)
            if key in ("VmHWM", "RssAnon", "RssFile"):
                out[key] = int(value.split()[0]) // 1024
    return out

from tealeaves.index import ReferenceIndex, index_from_token_lists
with tempfile.TemporaryDirectory() as tmp:  # the compiled checks loaded, off the clock
    ReferenceIndex.load(index_from_token_lists([["a", "b"], ["b"]]).save(Path(tmp) / "w.tlx"))
before = status()
t0 = time.perf_counter()
ix = ReferenceIndex.load(sys.argv[1])
opened = time.perf_counter() - t0
after = status()
t0 = time.perf_counter()
ix.word_id("the")
lookup = time.perf_counter() - t0
checked = (getattr(ix, "opened", None) or {}).get("checked_now")  # (None: a tealeaves before it)
print(json.dumps({"open_s": opened, "first_lookup_s": lookup, "before_MiB": before, "after_MiB": after,
                  "after_lookup_MiB": status(), "checked": checked}))
"""


def open_once(path: str, src: Path, cache: str) -> dict:
    """One open in a fresh process whose verified-state cache is ``cache``."""
    env = {**os.environ, "PYTHONPATH": str(src), "TEALEAVES_CACHE_DIR": cache, "TEALEAVES_VERIFY_CACHE": "1"}
    run = subprocess.run([sys.executable, "-c", CHILD, path], env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(run.stdout.splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index", help="index file (at least 2 s old, so that its verification is recorded)")
    parser.add_argument("--repeat", type=int, default=3, help="opens after the first (default 3)")
    parser.add_argument("--src", type=Path, default=SRC, help="the tealeaves source tree to run")
    args = parser.parse_args(argv)
    print(f"{args.index}: {Path(args.index).stat().st_size:,} bytes; tealeaves from {args.src}")
    with tempfile.TemporaryDirectory(prefix="tealeaves-open-") as cache:
        for i in range(args.repeat + 1):
            r = open_once(args.index, args.src, cache)
            anon = r["after_MiB"]["RssAnon"] - r["before_MiB"]["RssAnon"]
            print(f"{'first ' if i == 0 else 'again '} open {r['open_s']:8.3f} s  first lookup "
                  f"{r['first_lookup_s']:6.3f} s  anonymous +{anon} MiB "
                  f"(RssAnon {r['after_MiB']['RssAnon']} MiB)  RssFile {r['after_MiB']['RssFile']} MiB  "
                  f"VmHWM {r['after_MiB']['VmHWM']} MiB  "
                  f"checked: {r['checked']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
