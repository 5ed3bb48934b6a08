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

**Growing references** (``--growing``; issue 25): references streamed from the real Reuters-21578
stories and the World English Bible's verses (one document each), copied as often as the size needs;
in every copy after the first, the rarest words of the source (:func:`_rare_words`: 7,162 of the
1.84 M tokens of a copy, so 3.9 new words per thousand tokens) get a copy-specific spelling (the word
followed by ``x`` and the copy's number in letters), so the vocabulary grows with the size as
Wikipedia's does: 0.82 M distinct words at 200 M tokens (5.6 M documents), about 3.9 M at 1 B (28 M
documents).  Each copy's documents are
shuffled (seeded) and dealt to :data:`N_SHARDS` JSON Lines shards, 500 at a time.  For each size it
prints, each measured in a fresh process (peak RSS = ``VmHWM``; anonymous memory = the peak of
``RssAnon`` sampled every 100 ms, i.e. above the mapped index file): the build (``tealeaves index
build``, default ``--memory 1G``: time, tokens/s, peak RSS), the first and a second open
(``ReferenceIndex.load``), ``tealeaves index info --verify``, and NPMI scoring of 80 topics x top 10
and 1,000 x top 50 at document, 10-token and 110-token windows (the index already open; the kernels
compiled first on two topics; a set of at most 1,000 topic words is scored twice in that process, so
the second time shows the cost with the index's pages in memory; ``--reuse-index`` measures an index
already built at that size, ``--skip-verify`` and ``--skip-brute`` leave out the verify pass and
the recount, ``--topic-sets 1000x50`` scores only that set, and ``80x10lda`` the 80 topics of the
reproduction's scikit-learn LDA of the Reuters stories, top 10: a model's topics, where the drawn
ones are common words weighted by document frequency)::

    TEALEAVES_DATA=/work/shared/data python benchmarks/index_scale.py --growing --sizes 20M 200M
    TEALEAVES_DATA=/work/shared/data python benchmarks/index_scale.py --growing --sizes 1B --billion
"""

from __future__ import annotations

import argparse
import itertools
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
    scale = {"K": 10**3, "M": 10**6, "G": 10**9, "B": 10**9}
    return int(float(text[:-1]) * scale[text[-1].upper()]) if text[-1].upper() in scale else int(text)


def _rss_mib() -> float:
    """This process's peak RSS in MiB: ``VmHWM`` of its memory map.  Not ``ru_maxrss``: Linux folds the
    peak of the memory map a process had before ``exec`` into it, and a child started by ``vfork`` (as
    :mod:`subprocess` starts them) had its parent's, so a child of a large parent reported the
    parent's peak (session 21: a 1 B-token build reported 1,189 MiB beside the benchmark's own peak
    where its own was 935 MiB)."""
    try:
        status = Path("/proc/self/status").read_text()
        return int(status.split("VmHWM:")[1].split()[0]) / 1024
    except (OSError, IndexError, ValueError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


#: Runs a command as its own child (``fork`` from this small interpreter, so the child's peak RSS
#: starts from this process's few MiB, not the benchmark's: see :func:`_rss_mib`) and writes the
#: child's ``wait4`` peak RSS (KiB) and exit status to the file named first.
_LAUNCHER = """import os, sys
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    except OSError as exc:
        sys.stderr.write(f"cannot run {sys.argv[2]}: {exc}\n")
    os._exit(127)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as fh:
    fh.write(f"{usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}")
"""


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


# -- growing references (--growing) -------------------------------------------
#: New spellings per token of a copy: 3.9 M distinct words at 1 B tokens.
NEW_WORDS_PER_TOKEN = 3.9e-3
#: A letters-only run (the candidates of the default token pattern, give or take combining marks).
_WORD = r"[^\W\d_]{2,}"


def _source_texts() -> list[str]:
    """The non-empty Reuters-21578 stories (title and body) and World English Bible verses."""
    from tealeaves.corpus.readers import read_lines
    from tealeaves.corpus.reuters import read_reuters, story_text
    from tealeaves.data import locate

    stories = [story_text(s) for s in read_reuters()]
    verses = read_lines(locate("bible/ebible/eng-engwebp.txt"))
    return [t for t in stories + verses if t.strip()]


def _rare_words(texts: list[str]) -> tuple[set[str], int]:
    """``(rare, n_tokens)``: the ``NEW_WORDS_PER_TOKEN x n_tokens`` rarest words of ``texts`` (by
    frequency, then alphabetically) under the default recipe, and its tokens per copy."""
    from collections import Counter

    from tealeaves.corpus import Preprocessor

    tokens = Preprocessor().scan(texts).tokens()
    counts = Counter(w for doc in tokens for w in doc)
    n_tokens = sum(counts.values())
    ranked = sorted(counts, key=lambda w: (counts[w], w))
    return set(ranked[:round(NEW_WORDS_PER_TOKEN * n_tokens)]), n_tokens


def _templates(texts: list[str], rare: set[str]) -> list[str]:
    """Each text lowercased, with ``\\0`` after every rare word (where a copy's spelling goes)."""
    import re

    word = re.compile(_WORD)

    def mark(m):
        return m.group() + "\0" if m.group() in rare else m.group()

    return [word.sub(mark, t.lower()) for t in texts]


def _spelling(copy: int) -> str:
    """The suffix of copy ``copy``'s rare words: ``x`` and the copy's number in letters (``a`` = 0)."""
    out = ""
    while True:
        copy, r = divmod(copy, 26)
        out = chr(97 + r) + out
        if not copy:
            return "x" + out


def grow(size: int, out: Path) -> list[Path]:
    """Write the ``size``-token growing reference as :data:`N_SHARDS` JSON Lines shards (cached by size;
    streamed: one copy of the source in memory at a time)."""
    folder = out / f"grow-{size}"
    shards = [folder / f"shard{k:02d}.jsonl" for k in range(N_SHARDS)]
    if (folder / "done").exists():
        return shards
    folder.mkdir(parents=True, exist_ok=True)
    texts = _source_texts()
    rare, per_copy = _rare_words(texts)
    templates = _templates(texts, rare)
    files = [open(s, "w", encoding="utf-8") for s in shards]
    n, done, copy = 0, 0, 0
    try:
        while done < size:
            suffix = _spelling(copy - 1) if copy else ""
            order = np.random.default_rng(copy).permutation(len(templates))
            for i in order.tolist():
                text = templates[i].replace("\0", suffix)
                files[(n // 500) % N_SHARDS].write(json.dumps({"id": f"c{copy}d{i}", "text": text}) + "\n")
                n += 1
            done += per_copy
            copy += 1
    finally:
        for f in files:
            f.close()
    (folder / "done").write_text(f"{copy} copies of {per_copy} tokens, {n} documents\n")
    return shards


def _anon_sampler():
    """Start a thread sampling ``RssAnon`` every 10 ms; returns ``peak()`` (MiB)."""
    import threading

    peak = [0.0]
    stop = threading.Event()

    def run():
        while not stop.is_set():
            peak[0] = max(peak[0], _proc_status().get("RssAnon", 0.0))
            stop.wait(0.1)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()

    def result() -> float:
        stop.set()
        thread.join()
        return max(peak[0], _proc_status().get("RssAnon", 0.0))

    return result


def _open(path: str) -> dict:
    """``ReferenceIndex.load(path)`` in a fresh process: seconds, peak RSS, mapped pages, peak anonymous."""
    from tealeaves.index import ReferenceIndex

    _warm()
    ReferenceIndex.load(_warm_index(Path(path).parent))  # imports and compiled checks loaded
    before = _proc_status()
    peak = _anon_sampler()
    t = time.perf_counter()
    index = ReferenceIndex.load(path)
    secs = time.perf_counter() - t
    after = _proc_status()
    return {"seconds": secs, "before": before, "after": after, "anon_peak_mib": peak(),
            "n_tokens": index.n_tokens}


def _topic_sampler(index):
    """``draw(n_topics, top)``: topics of ``top`` distinct words drawn from the index's 5,000 most common
    words by document frequency, from one generator seeded 0 (successive draws continue it)."""
    rng = np.random.default_rng(0)
    df = index.document_frequencies()
    common = np.argsort(-df)[:5000]
    p = df[common] / df[common].sum()
    words = index.vocabulary

    def draw(n_topics: int, top: int) -> list[list[str]]:
        return [[words[int(i)] for i in rng.choice(common, size=top, replace=False, p=p)]
                for _ in range(n_topics)]

    return draw


def _lda_topics(n_topics: int, top: int) -> list[list[str]]:
    """The top ``top`` words of each topic of the reproduction's scikit-learn LDA with ``n_topics``
    topics of the Reuters training stories (fitted once, then read from its cache): a model's topics,
    which share fewer and rarer words than the drawn ones."""
    from tealeaves.reproduce.reuters import fit_reuters_models

    return fit_reuters_models([n_topics], progress=None)[n_topics].top_words(top)


def _score_one(path: str, n_topics: int, top: int, window: str, kind: str = "drawn") -> dict:
    """NPMI of ``n_topics`` topics x top ``top`` at ``window`` on the open index, in a fresh process:
    seconds, peak RSS, mapped pages, peak anonymous.  The topics are common words drawn by document
    frequency (seed 0), or with ``kind="lda"`` an LDA model's of the Reuters stories (:func:`_lda_topics`)."""
    from tealeaves.coherence.measure import Coherence
    from tealeaves.index import ReferenceIndex

    index = ReferenceIndex.load(path)
    topics = _lda_topics(n_topics, top) if kind == "lda" else _topic_sampler(index)(n_topics, top)
    measure = Coherence("npmi", n_top=top, window=window if window == "doc" else int(window))
    measure.score(topics[:2], index)  # compiled kernels loaded
    before = _proc_status()
    peak = _anon_sampler()
    t = time.perf_counter()
    first = measure.score(topics, index)
    secs = time.perf_counter() - t
    out = {"seconds": secs, "before": before}
    if n_topics * top <= AGAIN_WORDS:  # the sets with a time target: again, the index's pages in memory
        t = time.perf_counter()
        again = measure.score(topics, index)
        out["warm_seconds"] = time.perf_counter() - t
        out["same"] = [a.score for a in first.topics] == [b.score for b in again.topics]
    return {**out, "after": _proc_status(), "anon_peak_mib": peak()}


#: Topic sets of at most this many topic words are scored a second time in the same process.
AGAIN_WORDS = 1_000
#: Window size of the brute-force check (:func:`_brute`).
BRUTE_WINDOW = 10


def _brute_words(index) -> list[str]:
    """Eleven words for the brute-force check, by document-frequency rank: 30, 100, 300, 1,000, 3,000
    (common: the frequent-word path of the counts, and pairs that share many units), 20,000, 50,000 and
    200,000 (middling), and the three rarest seen in at least 20 documents (the probing path)."""
    df = index.document_frequencies()
    order = np.argsort(-df, kind="stable")
    ranked = [index.vocabulary[int(order[r])] for r in (30, 100, 300, 1_000, 3_000, 20_000, 50_000, 200_000)
              if r < len(order)]
    rare = [index.vocabulary[int(i)] for i in order[df[order] >= 20][-3:]]
    return list(dict.fromkeys(ranked + rare))


def _window_starts(positions: list[int], n: int, w: int) -> np.ndarray:
    """Boolean presence over a document's window starts (``core``'s module docstring: ``n - w + 1``
    windows, one for a shorter document), written out start by start."""
    present = np.zeros(max(n - w + 1, 1), dtype=bool)
    for p in positions:
        present[max(0, p - w + 1):min(p, max(n - w, 0)) + 1] = True
    return present


class _Recount:
    """Plain counts of documents and windows holding each word and each pair (:func:`_brute`)."""

    def __init__(self, words: list[str], pairs: np.ndarray):
        self.at = {w: i for i, w in enumerate(words)}
        self.pairs = {(int(a), int(b)): m for m, (a, b) in enumerate(pairs.tolist())}
        self.units = {"doc": 0, "window": 0}
        self.single = {u: np.zeros(len(words), np.int64) for u in self.units}
        self.joint = {u: np.zeros(len(pairs), np.int64) for u in self.units}

    def batch(self, scan) -> None:
        """Count one scanned batch: stop words dropped (positions are the kept tokens'), then each
        document holding a checked word is counted in Python."""
        other, stop = -1, -2
        code = np.array([stop if w in scan.stop else self.at.get(w, other) for w in scan.words] or [other],
                        dtype=np.int64)[scan.ids]
        doc = np.repeat(np.arange(len(scan.lengths)), scan.lengths)
        keep = code != stop
        code, doc = code[keep], doc[keep]
        lengths = np.bincount(doc, minlength=len(scan.lengths))
        self.units["doc"] += len(lengths)
        self.units["window"] += int(np.maximum(lengths - BRUTE_WINDOW + 1, 1).sum())
        first = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        hits = np.flatnonzero(code >= 0)
        where: dict[int, dict[int, list[int]]] = {}
        for t, d, c in zip(hits.tolist(), doc[hits].tolist(), code[hits].tolist()):
            where.setdefault(d, {}).setdefault(c, []).append(t - int(first[d]))
        for d, found in where.items():
            self._document(found, int(lengths[d]))

    def _document(self, found: dict[int, list[int]], n: int) -> None:
        starts = {i: _window_starts(ps, n, BRUTE_WINDOW) for i, ps in found.items()}
        for i in found:
            self.single["doc"][i] += 1
            self.single["window"][i] += int(starts[i].sum())
        for a, b in itertools.combinations(sorted(found), 2):  # the pairs present, not every pair
            m = self.pairs.get((a, b))
            if m is not None:
                self.joint["doc"][m] += 1
                self.joint["window"][m] += int((starts[a] & starts[b]).sum())


def _brute(path: str, shards: list[str]) -> dict:
    """Document and 10-token window counts of every pair of :func:`_brute_words`, by reading every shard
    again with the build's tokeniser and counting in plain Python, against the index's counts."""
    from tealeaves.coherence.core import count_documents, count_windows
    from tealeaves.corpus import Preprocessor
    from tealeaves.index import ReferenceIndex
    from tealeaves.index.streaming import _batches
    from tealeaves.ingest import iter_documents

    index = ReferenceIndex.load(path)
    words = _brute_words(index)
    ids = [index.vocabulary.index[w] for w in words]
    pairs = np.array(list(itertools.combinations(range(len(words)), 2)), dtype=np.int64)
    t = time.perf_counter()
    ours = {"doc": count_documents(index, ids, pairs),
            "window": count_windows(index, ids, pairs, BRUTE_WINDOW)}
    counted_s = time.perf_counter() - t
    recount = _Recount(words, pairs)
    scan = Preprocessor().scan
    t = time.perf_counter()
    for shard in shards:
        for _, texts in _batches(iter_documents(shard)):
            recount.batch(scan(texts))
    report = {"words": words, "pairs": len(pairs), "index_counts_s": counted_s,
              "brute_s": time.perf_counter() - t}
    for unit in ("doc", "window"):
        c = ours[unit]
        report[unit] = {"n_units": [int(c.n_units), recount.units[unit]],
                        "single_equal": bool(np.array_equal(np.asarray(c.single), recount.single[unit])),
                        "joint_equal": bool(np.array_equal(np.asarray(c.joint), recount.joint[unit])),
                        "joint_nonzero": int((recount.joint[unit] > 0).sum())}
    return report


def _timed_command(cmd: list[str]) -> dict:
    """Run ``cmd``: wall seconds, exit code and its peak RSS (``wait4`` in :data:`_LAUNCHER`)."""

    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "rusage"
        t = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", _LAUNCHER, str(report), *cmd], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
        secs = time.perf_counter() - t
        if not report.exists():
            raise SystemExit(f"the launcher of {cmd[:3]} ended with {proc.returncode} and no report:\n"
                             f"{proc.stderr.decode(errors='replace')[-2000:]}")
        maxrss, code = map(int, report.read_text().split())
    return {"seconds": secs, "code": code, "rss_mib": maxrss / 1024,
            "stderr": proc.stderr.decode(errors="replace")[-2000:]}


def _mib(d: dict, key: str) -> float:
    return d["after"].get(key, 0.0)


def run_growing(sizes: list[str], out: Path, memory: str, skip_scoring: bool, reuse: bool = False,
                skip_verify: bool = False, topic_sets=((80, 10, "drawn"), (1000, 50, "drawn")),
                skip_brute: bool = False) -> None:
    """The issue-25 scale run over growing references (see the module's docstring)."""
    for size_text in sizes:
        size = _size(size_text)
        t = time.perf_counter()
        shards = grow(size, out)
        made = (shards[0].parent / "done").read_text().strip()
        print(f"\n== growing reference {size_text} tokens: {made}; "
              f"{sum(s.stat().st_size for s in shards) / 2**20:,.0f} MiB of JSON Lines "
              f"(ready in {time.perf_counter() - t:.0f} s); load average {_load_average()}", flush=True)
        index_path = out / f"grow-{size}.tlx"
        if reuse and index_path.exists():
            print(f"build: skipped (--reuse-index: {index_path} kept); {_index_summary(index_path)}",
                  flush=True)
        else:
            _build_growing(index_path, shards, memory)
        for which in ("first", "second"):
            o = run_child("open", index_path, [])
            print(f"open ({which}, ReferenceIndex.load): {o['seconds']:.2f} s, peak RSS "
                  f"{_mib(o, 'VmHWM'):,.0f} MiB ({_mib(o, 'RssFile') - o['before']['RssFile']:,.0f} MiB "
                  "of it "
                  f"the index's mapped pages), anonymous peak {o['anon_peak_mib']:,.0f} MiB "
                  f"(before the open {o['before']['RssAnon']:,.0f} MiB)", flush=True)
        if not skip_verify:
            v = _timed_command([sys.executable, "-m", "tealeaves", "index", "info", str(index_path),
                                "--verify"])
            print(f"index info --verify: {v['seconds']:.1f} s, peak RSS {v['rss_mib']:,.0f} MiB "
                  f"(exit {v['code']})", flush=True)
        for n_topics, top, kind in () if skip_scoring else topic_sets:
            name = f"{n_topics}x{top}{' LDA' if kind == 'lda' else ''}"
            for window in ("doc", "10", "110"):
                try:
                    s = run_child("score1", index_path, [str(n_topics), str(top), window, kind])
                except SystemExit as e:
                    print(f"scoring {name} window={window}: FAILED {str(e)[-300:]}", flush=True)
                    continue
                again = (f" (again in the same process: {s['warm_seconds']:.2f} s, same scores: {s['same']})"
                         if "warm_seconds" in s else "")
                print(f"scoring {name} window={window}: {s['seconds']:.2f} s{again}, peak RSS "
                      f"{_mib(s, 'VmHWM'):,.0f} MiB (mapped index pages {_mib(s, 'RssFile'):,.0f} MiB), "
                      f"anonymous peak {s['anon_peak_mib']:,.0f} MiB (before scoring "
                      f"{s['before']['RssAnon']:,.0f} MiB); load average {_load_average()}", flush=True)
        if not skip_brute:
            _print_brute(run_child("brute", index_path, shards))  # last: it reads every shard again


def _index_info(index_path: Path) -> dict:
    """``tealeaves index info PATH --format json``, parsed."""
    return json.loads(subprocess.run([sys.executable, "-m", "tealeaves", "index", "info", str(index_path),
                                      "--format", "json"], capture_output=True, text=True).stdout)


def _build_growing(index_path: Path, shards: list[Path], memory: str) -> None:
    """``tealeaves index build`` of the growing reference, timed (peak RSS by ``wait4``)."""
    index_path.unlink(missing_ok=True)
    b = _timed_command([sys.executable, "-m", "tealeaves", "index", "build", *map(str, shards), "-o",
                        str(index_path), "--memory", memory])
    if b["code"] != 0:
        raise SystemExit(f"build failed:\n{b['stderr']}")
    n_tok = _index_info(index_path)["n_tokens"]
    print(f"build (--memory {memory}): {b['seconds']:.1f} s, {n_tok / b['seconds']:,.0f} tokens/s, "
          f"peak RSS {b['rss_mib']:,.0f} MiB; {_index_summary(index_path)}; "
          f"load average {_load_average()}", flush=True)


def _index_summary(index_path: Path) -> str:
    """Tokens, words, documents and size of the index file."""
    info = _index_info(index_path)
    return (f"{info['n_tokens']:,} tokens, {info['n_words']:,} words, {info['n_documents']:,} documents, "
            f"{index_path.stat().st_size / 2**30:.2f} GiB")


def _print_brute(b: dict) -> None:
    """One line per unit: the index's counts against the brute-force recount (:func:`_brute`)."""
    for unit in ("doc", "window"):
        r = b[unit]
        name = "documents" if unit == "doc" else f"{BRUTE_WINDOW}-token windows"
        print(f"brute force, {name}: {b['pairs']} pairs of {len(b['words'])} words "
              f"({', '.join(b['words'])}); "
              f"units {r['n_units'][0]:,} (index) / {r['n_units'][1]:,} (recount); single counts equal: "
              f"{r['single_equal']}; joint counts equal: {r['joint_equal']} ({r['joint_nonzero']} non-zero); "
              f"recount {b['brute_s']:.0f} s", flush=True)


def _load_average() -> str:
    import os

    return " ".join(f"{x:.2f}" for x in os.getloadavg())


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
    if mode == "open":
        return _open(output)
    if mode == "score1":
        return _score_one(output, int(shards[0]), int(shards[1]), *shards[2:])
    if mode == "brute":
        return _brute(output, shards)
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
    """VmHWM (peak RSS), VmRSS, RssFile (mapped file pages) and RssAnon of this process, MiB."""
    out = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            key, value = line.split(":", 1)
            if key in ("VmHWM", "VmRSS", "RssFile", "RssAnon"):
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
        for _, texts in _batches(iter_documents(shard)):
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
    draw = _topic_sampler(index)
    out = {}
    for n_topics, top in ((80, 10), (1000, 50)):
        topics = draw(n_topics, top)
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


def _topic_set(text: str) -> tuple[int, int, str]:
    """``--topic-sets`` value ``TOPICSxTOP`` (``80x10``: drawn words) or ``TOPICSxTOPlda`` (``80x10lda``:
    an LDA model's topics of the Reuters stories) as ``(topics, top, kind)``."""
    kind = "lda" if text.endswith("lda") else "drawn"
    topics, _, top = text.removesuffix("lda").partition("x")
    if not (topics.isdigit() and top.isdigit() and int(topics) > (kind == "lda") and int(top) > 1):
        raise argparse.ArgumentTypeError(f"{text!r} is not TOPICSxTOP or TOPICSxTOPlda with at least 1 topic "
                                         "(2 for an LDA model) of 2 words (e.g. 80x10, 80x10lda)")
    return int(topics), int(top), kind


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
    parser.add_argument("--growing", action="store_true",
                        help="the issue-25 run over growing references (default size 200M)")
    parser.add_argument("--billion", action="store_true", help="with --growing: allow sizes of 1B and more")
    parser.add_argument("--memory", default="1G", help="with --growing: the build's --memory")
    parser.add_argument("--skip-verify", action="store_true", help="with --growing: no `index info --verify`")
    parser.add_argument("--skip-brute", action="store_true",
                        help="with --growing: no brute-force recount (--skip-scoring leaves it in)")
    parser.add_argument("--topic-sets", nargs="+", type=_topic_set,
                        default=[(80, 10, "drawn"), (1000, 50, "drawn")],
                        help="with --growing: the topic sets scored (TOPICSxTOP: common words drawn by "
                             "document frequency; TOPICSxTOPlda: an LDA's of the Reuters stories)")
    parser.add_argument("--reuse-index", action="store_true",
                        help="with --growing: measure an index already built at that size (no build)")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], args.child[1], args.child[2:])))
        return
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.growing:
        sizes = args.sizes if args.sizes != parser.get_default("sizes") else ["200M"]
        if any(_size(s) >= 10**9 for s in sizes) and not args.billion:
            raise SystemExit("sizes of 1B tokens and more need --billion "
                             "(about 15 GB of index, 8 GB of text)")
        run_growing(sizes, out, args.memory, args.skip_scoring, reuse=args.reuse_index,
                    skip_verify=args.skip_verify, topic_sets=args.topic_sets, skip_brute=args.skip_brute)
        return
    for size_text in args.sizes:
        size = _size(size_text)
        t = time.perf_counter()
        shards = generate(size, out)
        print(f"\n== reference {size_text} tokens: {N_SHARDS} shards, "
              f"{sum(s.stat().st_size for s in shards) / 2**20:,.0f} MiB of JSON Lines "
              f"(ready in {time.perf_counter() - t:.0f} s)", flush=True)
        index_path = out / f"ref-{size}.tlx"
        cli = run_child("cli", index_path, shards)
        info = _index_info(index_path)
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
