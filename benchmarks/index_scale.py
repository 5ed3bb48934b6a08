"""Index builds at scale: streaming and Dask builds of 5 M / 50 M (/ 200 M) token references.

References are generated from the real Reuters-21578 ModApte training stories
in ``$TEALEAVES_DATA``: every real story once, mixed evenly with documents
sampled from a 50-topic LDA fitted to those stories (document lengths drawn
from the real stories' lengths), so word frequencies are realistic.  Each
reference is written as 8 JSON Lines shards.

For each size it prints:

* ``tealeaves index build SHARDS -o X`` (one process, default --memory 1G):
  wall time, tokens/s, peak RSS (``ru_maxrss`` of that process), index bytes
  per token;
* the same build on a LocalCluster of 1 and of 2 workers (``--workers``):
  tokens/s (cluster start-up excluded) and the peak RSS of the client and of
  each worker;
* the indexing pass against gensim over the same token lists, in one process:
  ``index_from_token_lists(docs)`` against ``Dictionary(docs)`` +
  ``doc2bow`` of every document (on at most ``--gensim-tokens`` tokens);
* end to end on the whole reference, in one process: tealeaves' whole build
  (``build_streaming``: read, tokenise, index, merge, checksum) against the same
  reader and tokeniser feeding gensim's ``Dictionary`` + ``doc2bow``
  (:func:`_gensim_build`), wall and CPU seconds;
* scoring times (NPMI, 80 topics x top 10 and 1,000 x top 50; document,
  10-token and 110-token windows) against the built index.

Run from the repository root::

    TEALEAVES_DATA=/work/shared/data python benchmarks/index_scale.py --sizes 5M 50M
    TEALEAVES_DATA=/work/shared/data python benchmarks/index_scale.py --sizes 200M --cli-only
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

N_SHARDS = 8
N_TOPICS = 50


def _size(text: str) -> int:
    scale = {"K": 10**3, "M": 10**6, "G": 10**9}
    return int(float(text[:-1]) * scale[text[-1].upper()]) if text[-1].upper() in scale else int(text)


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# -- reference generation --------------------------------------------------
def _lda(out: Path):
    """(words, phi, real texts, real lengths): a 50-topic LDA of the Reuters training stories (cached)."""
    from sklearn.decomposition import LatentDirichletAllocation

    from tealeaves.corpus import Preprocessor
    from tealeaves.corpus.reuters import modapte_split, story_text

    train, _, _ = modapte_split()
    texts = [story_text(s) for s in train]
    cache = out / "lda.npz"
    pre = Preprocessor()
    corpus = pre.fit_transform(texts)
    lengths = np.asarray(corpus.lengths)
    if cache.exists():
        data = np.load(cache, allow_pickle=False)
        return list(data["words"]), data["phi"], texts, lengths
    from scipy.sparse import csr_matrix

    rows = np.repeat(np.arange(len(corpus)), corpus.lengths)
    counts = csr_matrix((np.ones(len(rows)), (rows, corpus.tokens)),
                        shape=(len(corpus), len(corpus.vocabulary)))
    lda = LatentDirichletAllocation(N_TOPICS, learning_method="online", max_iter=5, random_state=0)
    lda.fit(counts)
    phi = lda.components_ / lda.components_.sum(axis=1, keepdims=True)
    words = list(corpus.vocabulary)
    np.savez(cache, words=np.array(words), phi=phi)
    return words, phi, texts, lengths


def _sample_docs(words, phi, lengths, n_tokens, rng):
    """Yield texts of documents sampled from the LDA (alpha 0.1) until ``n_tokens`` tokens."""
    cum = np.cumsum(phi, axis=1)
    cum[:, -1] = 1.0
    vocab = np.array(words, dtype=object)
    done = 0
    while done < n_tokens:
        lens = rng.choice(lengths[lengths > 0], size=2000)
        theta = rng.dirichlet(np.full(len(phi), 0.1), size=len(lens))
        z = np.concatenate([rng.choice(len(phi), size=n, p=t) for n, t in zip(lens, theta)])
        u = rng.random(len(z))
        w = np.empty(len(z), dtype=np.int64)
        for k in range(len(phi)):
            m = z == k
            w[m] = np.searchsorted(cum[k], u[m], side="right")
        np.minimum(w, len(words) - 1, out=w)
        pos = 0
        for n in lens:
            yield " ".join(vocab[w[pos:pos + n]])
            pos += n
            done += int(n)
            if done >= n_tokens:
                return


def generate(size: int, out: Path) -> list[Path]:
    """Write the ``size``-token reference as :data:`N_SHARDS` JSON Lines shards (cached by size)."""
    folder = out / f"ref-{size}"
    shards = [folder / f"shard{k:02d}.jsonl" for k in range(N_SHARDS)]
    if (folder / "done").exists():
        return shards
    folder.mkdir(parents=True, exist_ok=True)
    words, phi, texts, lengths = _lda(out)
    real_tokens = int(lengths.sum())
    rng = np.random.default_rng(size)
    sampled = _sample_docs(words, phi, lengths, max(size - real_tokens, 0), rng)
    every = max(1, int((size - real_tokens) / max(real_tokens, 1) * len(texts) / len(texts) * 7))
    files = [open(s, "w", encoding="utf-8") for s in shards]
    n, real = 0, iter(texts)
    try:
        for text in sampled:
            files[(n // 500) % N_SHARDS].write(json.dumps({"id": f"s{n}", "text": text}) + "\n")
            n += 1
            if n % every == 0:
                story = next(real, None)
                if story is not None:
                    files[(n // 500) % N_SHARDS].write(json.dumps({"id": f"r{n}", "text": story}) + "\n")
        for k, story in enumerate(real):
            files[k % N_SHARDS].write(json.dumps({"id": f"r-end{k}", "text": story}) + "\n")
    finally:
        for f in files:
            f.close()
    (folder / "done").write_text("ok")
    return shards


# -- measurements (each in a fresh process) ---------------------------------
def child(mode: str, output: str, shards: list[str]) -> dict:
    """One measurement in this process; returns a JSON-ready dict."""
    if mode == "cli":
        from tealeaves.cli import main

        t = time.perf_counter()
        code = main(["index", "build", *shards, "-o", output, "--format", "json"])
        secs = time.perf_counter() - t
        return {"code": code, "seconds": secs, "rss_mib": _rss_mib(), "cpu_s": _cpu_s()}
    if mode.startswith("dask"):
        from tealeaves.index.dask import dask_client, dask_executor
        from tealeaves.index.streaming import build_streaming

        with dask_client(int(mode[4:]), memory_per_worker=1 << 30) as client:  # as --memory 1G
            client.run(_warm)  # imports and compiled kernels loaded: time the steady state
            cpu0 = client.run(_cpu_s)
            timer = _PhaseTimer()
            t = time.perf_counter()
            index, _ = build_streaming(shards, output, executor=dask_executor(client, timer), progress=timer)
            end = time.perf_counter()
            secs = end - t
            workers = client.run(_rss_mib)
            cpu = {w: c - cpu0[w] for w, c in client.run(_cpu_s).items()}
        return {"seconds": secs, "rss_mib": _rss_mib(), "workers_rss_mib": sorted(workers.values()),
                "n_tokens": index.n_tokens, "merge_s": end - timer.merge_start,
                "workers_cpu_s": sorted(cpu.values())}
    if mode == "load":
        return _load(output)
    if mode == "endtoend":
        return _end_to_end(shards, output)
    if mode == "passes":
        return _passes(shards, int(output))
    if mode == "score":
        return _score(output)
    raise SystemExit(f"unknown mode {mode}")


class _PhaseTimer:
    """A progress sink recording when the merge starts."""

    merge_start = 0.0

    def tokens(self, n):
        pass

    def shard_done(self):
        pass

    def merged(self, done, total):
        pass

    def start_merge(self):
        self.merge_start = time.perf_counter()


def _cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _warm() -> None:
    from tealeaves.corpus import Preprocessor
    from tealeaves.index import index_from_token_lists

    index_from_token_lists([["a", "b"], ["b"]])
    Preprocessor().scan(["warm up"])  # the compiled scan and the stop words loaded


def _passes(shards: list[str], limit: int) -> dict:
    """tealeaves' indexing pass against gensim's Dictionary + doc2bow over the same token lists."""
    from gensim.corpora import Dictionary

    from tealeaves.corpus import Preprocessor
    from tealeaves.index import index_from_token_lists
    from tealeaves.ingest import iter_documents

    tokenize = Preprocessor().tokenize
    docs, n = [], 0
    t = time.perf_counter()
    for shard in shards:
        for _, text in iter_documents(shard):
            docs.append(tokenize(text))
            n += len(docs[-1])
            if n >= limit:
                break
        if n >= limit:
            break
    read = time.perf_counter() - t
    t = time.perf_counter()
    _warm()
    t = time.perf_counter()
    index_from_token_lists(docs)
    ours = time.perf_counter() - t
    t = time.perf_counter()
    dictionary = Dictionary(docs)
    bows = [dictionary.doc2bow(d) for d in docs]
    theirs = time.perf_counter() - t
    del bows
    return {"tokens": n, "read_tokenise_s": read, "tealeaves_s": ours, "gensim_s": theirs}


def _proc_status() -> dict:
    """VmHWM (peak RSS), VmRSS and RssFile (mapped file pages) of this process, MiB."""
    out = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            key, value = line.split(":", 1)
            if key in ("VmHWM", "VmRSS", "RssFile"):
                out[key] = int(value.split()[0]) / 1024
    return out


def _load(path: str) -> dict:
    """``ReferenceIndex.load(path, verify=False)`` in a fresh process: the structural checks' traced
    temporaries (``tracemalloc`` peak; numpy reports its buffers to it), peak RSS and how much of the RSS
    is the index file's own mapped pages, and CPU seconds."""
    import tracemalloc

    from tealeaves.index import ReferenceIndex

    _warm()
    ReferenceIndex.load(_warm_index(Path(path).parent), verify=False)  # the compiled checks loaded
    base = _proc_status()
    tracemalloc.start()
    c = _cpu_s()
    index = ReferenceIndex.load(path, verify=False)
    cpu = _cpu_s() - c
    traced = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    after = _proc_status()  # while the index is still mapped
    return {"traced_mib": traced, "cpu_s": cpu, "before": base, "after": after, "n_tokens": index.n_tokens}


def _warm_index(folder: Path) -> Path:
    from tealeaves.index import index_from_token_lists

    return index_from_token_lists([["a", "b"], ["b"]]).save(folder / "warm.tlx")


def _gensim_build(shards: list[str]) -> dict:
    """gensim's bag-of-words build over the shards: the build's reader and tokeniser
    (:func:`~tealeaves.ingest.iter_documents`, :meth:`Preprocessor.scan` over the same ~1 MiB batches),
    ``Dictionary.add_documents`` of each batch then ``doc2bow`` of each of its documents (the work of
    ``Dictionary(docs)`` + ``[doc2bow(d) for d in docs]``, a batch at a time so memory stays bounded)."""
    from gensim.corpora import Dictionary

    from tealeaves.corpus import Preprocessor
    from tealeaves.index.streaming import _batches
    from tealeaves.ingest import iter_documents

    scan = Preprocessor().scan
    dictionary, n_tokens, n_pairs = Dictionary(), 0, 0
    for shard in shards:
        for _, texts in _batches(iter_documents(shard), False):
            docs = scan(texts).tokens()
            dictionary.add_documents(docs)
            for d in docs:
                n_pairs += len(dictionary.doc2bow(d))
                n_tokens += len(d)
    return {"tokens": n_tokens, "pairs": n_pairs, "words": len(dictionary)}


def _end_to_end(shards: list[str], output: str) -> dict:
    """tealeaves' whole build against the gensim build (:func:`_gensim_build`) on the same text, in one
    process, each timed by wall clock and process CPU (tealeaves first, then gensim)."""
    from tealeaves.index.streaming import build_streaming

    _warm()
    out = {}
    for name, run in (("tealeaves", lambda: build_streaming(shards, output)[0].n_tokens),
                      ("gensim", lambda: _gensim_build(shards)["tokens"])):
        t, c = time.perf_counter(), _cpu_s()
        n = run()
        out[name] = {"seconds": time.perf_counter() - t, "cpu_s": _cpu_s() - c, "tokens": n}
    return out


def _score(path: str) -> dict:
    from tealeaves.coherence.measure import Coherence
    from tealeaves.index import ReferenceIndex

    index = ReferenceIndex.load(path)
    rng = np.random.default_rng(0)
    df = index.document_frequencies()
    common = np.argsort(-df)[:5000]
    p = df[common] / df[common].sum()
    words = index.vocabulary
    out = {}
    for n_topics, top in ((80, 10), (1000, 50)):
        topics = [[words[int(i)] for i in rng.choice(common, size=top, replace=False, p=p)]
                  for _ in range(n_topics)]
        for window in ("doc", 10, 110):
            measure = Coherence("npmi", n_top=top, window=window)
            measure.score(topics[:2], index)  # compiled kernels loaded
            t = time.perf_counter()
            measure.score(topics, index)
            out[f"{n_topics}x{top} window={window}"] = time.perf_counter() - t
    return out


def _stored_checksum(path: Path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(56)[24:56]


def run_child(mode: str, output: str, shards) -> dict:
    cmd = [sys.executable, __file__, "--child", mode, str(output), *map(str, shards)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["5M", "50M"])
    parser.add_argument("--out", default="/tmp/tealeaves-index-scale")
    parser.add_argument("--gensim-tokens", default="10M")
    parser.add_argument("--skip-scoring", action="store_true")
    parser.add_argument("--cli-only", action="store_true",
                        help="only the one-process `tealeaves index build` (e.g. for --sizes 200M)")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], args.child[1], args.child[2:])))
        return
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for size_text in args.sizes:
        size = _size(size_text)
        t = time.perf_counter()
        shards = generate(size, out)
        print(f"\n== reference {size_text} tokens: {N_SHARDS} shards, "
              f"{sum(s.stat().st_size for s in shards) / 2**20:,.0f} MiB of JSON Lines "
              f"(ready in {time.perf_counter() - t:.0f} s)", flush=True)
        index_path = out / f"ref-{size}.tlx"
        cli = run_child("cli", index_path, shards)
        info = json.loads(subprocess.run([sys.executable, "-m", "tealeaves", "index", "info", str(index_path),
                                          "--format", "json"], capture_output=True, text=True).stdout)
        n_tok = info["n_tokens"]
        print(f"index build (1 process): {cli['seconds']:.1f} s, {n_tok / cli['seconds']:,.0f} tokens/s, "
              f"peak RSS {cli['rss_mib']:,.0f} MiB, "
              f"{index_path.stat().st_size / n_tok:.2f} index bytes/token "
              f"({n_tok:,} tokens, {info['n_words']:,} words; process CPU {cli.get('cpu_s', 0):.1f} s)",
              flush=True)
        ld = run_child("load", index_path, [])
        print(f"ReferenceIndex.load(verify=False): traced temporaries {ld['traced_mib']:,.0f} MiB, "
              f"peak RSS {ld['after']['VmHWM']:,.0f} MiB (before the load {ld['before']['VmHWM']:,.0f} MiB; "
              f"index file pages mapped {ld['after']['RssFile'] - ld['before']['RssFile']:,.0f} MiB), CPU "
              f"{ld['cpu_s']:.1f} s", flush=True)
        if args.cli_only:
            continue
        rates = {}
        for workers in (1, 2):
            d = run_child(f"dask{workers}", out / f"ref-{size}-dask{workers}.tlx", shards)
            rates[workers] = d["n_tokens"] / d["seconds"]
            same = _stored_checksum(out / f"ref-{size}-dask{workers}.tlx") == _stored_checksum(index_path)
            rss = ", ".join(f"{r:,.0f}" for r in d["workers_rss_mib"])
            print(f"dask {workers} worker(s): {d['seconds']:.1f} s, {rates[workers]:,.0f} tokens/s, "
                  f"client RSS {d['rss_mib']:,.0f} MiB, worker RSS {rss} "
                  f"MiB; shard phase {d['seconds'] - d['merge_s']:.1f} s (worker CPU "
                  f"{', '.join(f'{c:.1f}' for c in d['workers_cpu_s'])} s), merge {d['merge_s']:.1f} s; "
                  f"checksum equal to the 1-process build: {same}", flush=True)
            (out / f"ref-{size}-dask{workers}.tlx").unlink()
        print(f"2 workers / 1 worker throughput: {rates[2] / rates[1]:.2f}x", flush=True)
        p = run_child("passes", _size(args.gensim_tokens), shards)
        print(f"indexing pass over {p['tokens']:,} tokenised tokens: tealeaves {p['tealeaves_s']:.1f} s, "
              f"gensim Dictionary+doc2bow {p['gensim_s']:.1f} s ({p['gensim_s'] / p['tealeaves_s']:.1f}x); "
              f"reading+tokenising them took {p['read_tokenise_s']:.1f} s", flush=True)
        e = run_child("endtoend", out / f"ref-{size}-e2e.tlx", shards)
        ours, theirs = e["tealeaves"], e["gensim"]
        same = _stored_checksum(out / f"ref-{size}-e2e.tlx") == _stored_checksum(index_path)
        (out / f"ref-{size}-e2e.tlx").unlink()
        print(f"end to end on the same {ours['tokens']:,} tokens (read JSONL + tokenise + index, one "
              f"process): tealeaves build {ours['seconds']:.1f} s (CPU {ours['cpu_s']:.1f} s), gensim "
              f"Dictionary+doc2bow fed by the same reader and tokeniser {theirs['seconds']:.1f} s "
              f"(CPU {theirs['cpu_s']:.1f} s): {theirs['seconds'] / ours['seconds']:.2f}x wall, "
              f"{theirs['cpu_s'] / ours['cpu_s']:.2f}x CPU "
              f"(same tokens: {ours['tokens'] == theirs['tokens']}; "
              f"checksum equal to the CLI build: {same})", flush=True)
        if not args.skip_scoring:
            s = run_child("score", index_path, [])
            print("scoring (NPMI): " + "; ".join(f"{k} {v * 1000:,.0f} ms" for k, v in s.items()), flush=True)


if __name__ == "__main__":
    main()
