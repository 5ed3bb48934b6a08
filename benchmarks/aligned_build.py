"""Time the aligned-reference builds in one run: main's in-memory ``build-aligned-reference`` (given
``--old-src``) against ``index build-aligned`` in one process and on a 2-worker LocalCluster, over
the same JSON Lines tuples (real Bible chapters, en + sv, repeated ``--repeat`` times with fresh
ids, split into ``--shards`` shards).  Each build runs in a fresh process; prints wall time, CPU time
(user + system of the process and its children) and peak RSS, and checks that every build counts
the same (the per-language index checksums of the merged indices, ignoring header text).

    TEALEAVES_DATA=/work/shared/data python benchmarks/aligned_build.py --old-src /work/main/src
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def write_tuples(folder: Path, repeat: int, shards: int) -> list[Path]:
    from tealeaves.corpus import parallel

    texts = parallel.bible_chapters({x: parallel.BIBLE_TEXTS_FULL[x] for x in ("en", "sv")})
    rows = [{"id": f"{r}-{tid}", "en": texts.texts["en"][i], "sv": texts.texts["sv"][i]}
            for r in range(repeat) for i, tid in enumerate(texts.ids)]
    paths = [folder / f"part{k}.jsonl" for k in range(shards)]
    for k, p in enumerate(paths):
        part = rows[k * len(rows) // shards:(k + 1) * len(rows) // shards]
        p.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in part), encoding="utf-8")
    return paths


def run(argv: list[str], src: str) -> dict:
    """Run ``python -m tealeaves argv`` with ``src`` first on the path; wall, CPU, peak RSS (MiB)."""
    env = {**os.environ, "PYTHONPATH": src}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    code = [sys.executable, "-c", "import resource, runpy, sys; sys.argv = ['tealeaves', *sys.argv[1:]]\n"
            "try:\n    runpy.run_module('tealeaves', run_name='__main__')\nfinally:\n"
            "    print('RSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)", *argv]
    proc = subprocess.run(code, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{argv} failed:\n{proc.stderr}")
    rss = [int(line.split()[1]) for line in proc.stderr.splitlines() if line.startswith("RSS ")]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "rss_mib": rss[-1] / 1024 if rss else float("nan")}


def counts(folder: Path, src: str) -> dict:
    """Per language: a digest of the count arrays (what cnpmi uses), independent of header text."""
    script = ("import hashlib, json, sys, numpy as np\n"
              "from tealeaves.multilingual.aligned_files import load_aligned_reference\n"
              "r = load_aligned_reference(sys.argv[1])\nout = {}\n"
              "for lang, ix in r.index.indices.items():\n    h = hashlib.sha256()\n"
              "    for k in ('vocab_blob', 'word_ptr', 'post_docs', 'pos_ptr', 'positions', 'present', "
              "'doc_lengths'):\n        h.update(np.ascontiguousarray(ix.arrays[k]).tobytes())\n"
              "    out[lang] = h.hexdigest()[:16]\nprint(json.dumps(out))")
    proc = subprocess.run([sys.executable, "-c", script, str(folder)], env={**os.environ, "PYTHONPATH": src},
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old-src", default=None, help="src folder of the old tealeaves (main), for its builder")
    ap.add_argument("--repeat", type=int, default=4)
    ap.add_argument("--shards", type=int, default=4)
    args = ap.parse_args()
    new_src = str(Path(__file__).resolve().parent.parent / "src")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        shards = write_tuples(tmp, args.repeat, args.shards)
        single = tmp / "all.jsonl"
        single.write_text("".join(p.read_text(encoding="utf-8") for p in shards), encoding="utf-8")
        n = sum(1 for _ in open(single, encoding="utf-8"))
        print(f"{n} tuples (Bible chapters en+sv x{args.repeat}), {single.stat().st_size / 2**20:.1f} MiB; "
              f"load {os.getloadavg()[0]:.2f}")
        builds = []
        if args.old_src:
            builds.append(("main: build-aligned-reference (in memory, 1 file)", args.old_src,
                           ["build-aligned-reference", str(single), "-o", str(tmp / "old")], tmp / "old"))
        builds += [("index build-aligned, 1 process, 1 file", new_src,
                    ["index", "build-aligned", str(single), "-o", str(tmp / "new1")], tmp / "new1"),
                   (f"index build-aligned, 1 process, {args.shards} shards", new_src,
                    ["index", "build-aligned", *map(str, shards), "-o", str(tmp / "newS")], tmp / "newS"),
                   (f"index build-aligned, --workers 2, {args.shards} shards", new_src,
                    ["index", "build-aligned", *map(str, shards), "-o", str(tmp / "newW"), "--workers", "2"],
                    tmp / "newW")]
        results = []
        for label, src, argv, out in builds:
            r = run(argv, src)
            r["counts"] = counts(out, new_src)
            results.append((label, r))
            print(f"{label:55s} wall {r['wall']:6.2f} s  cpu {r['cpu']:6.2f} s  "
                  f"peak RSS {r['rss_mib']:6.0f} MiB")
        base = results[0][1]
        for label, r in results[1:]:
            print(f"  {label}: wall ratio {base['wall'] / r['wall']:.2f}x vs first; counts equal: "
                  f"{r['counts'] == base['counts']}")
        print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
