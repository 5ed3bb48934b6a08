"""Fuzz the reference-index loader: no file may crash the process or give a wrong score.

A real index is built from Reuters-21578 ModApte training stories (default
preprocessing), once with one document per slot and once over a sparse id
space (every fourth slot empty, as the per-language indices of an aligned
corpus are).  Each mutation changes its file and *re-stamps* the SHA-256, so
that only the structural checks of :meth:`ReferenceIndex.load` stand between
the bytes and the numba kernels:

* ``flip_bytes`` / ``flip_prefix`` / ``flip_header`` / ``flip_arrays``: random
  bytes XOR-ed anywhere, in the fixed prefix (magic, version, header length),
  in the JSON header, or inside one array;
* ``flip_unstamped``: a flipped byte without re-stamping, loaded with or
  without ``verify``;
* ``truncate_file`` / ``extend_file``: the file cut short or lengthened (the
  header's ``file_size`` sometimes updated to match);
* ``header_count`` / ``header_dtype`` / ``header_shape`` / ``header_offset`` /
  ``header_field``: one header entry changed (counts, dtypes, shapes, offsets,
  the array list, descriptive fields), the header re-encoded in place;
* ``array_truncate`` / ``array_scale`` / ``array_shift`` / ``array_permute`` /
  ``array_set`` / ``array_extend`` / ``array_dtype``: one array changed and the
  file re-serialised with a consistent layout;
* ``valid_edit``: edits that keep the file a valid index of another corpus
  (a document lengthened with ``n_tokens`` to match, a word or document id
  renamed, a token moved to a free position, descriptive header fields).

Each mutation is checked in one of three *states*, in turn, so that the verified-state cache
(:mod:`tealeaves.index.cache`) is on the path:

* ``fresh``: the mutated bytes written to a new file (never verified);
* ``restored``: the base file written, aged, opened once by the worker (so its checksum and
  structural checks are recorded, in the worker and in the cache file), then overwritten in
  place with the mutated bytes and its modification time set back to what it was;
* ``touched``: the same, its modification time left as the rewrite set it.

Oracle: each mutated file, loaded in a worker subprocess, either raises
:class:`~tealeaves.errors.IndexIntegrityError`, or loads and is exactly the
index :func:`build_index` makes of the corpus it describes (its documents
decoded from the postings and positions, tokens no word claims left out of
the vocabulary): the same arrays and, for a fixed set of topics, the same
NPMI (documents; window 10 exact and gensim), UMass and C_V (exact and
gensim) scores to 1e-12.  Any other exception, a signal, a hang (per-mutation
timeout) or a different score is a FAILURE; so is a changed file that loads as
already verified (this open checking only the header and vocabulary), and a
control (the unchanged base, verified first) that does not.

Run from the repository root::

    TEALEAVES_DATA=/path/to/data python benchmarks/index_fuzz.py [--n 1000] [--seed 0] [--docs N]
        [--states fresh restored touched]

It prints the counts per mutation kind and outcome and exits with status 1 on
any failure.  ``tests/test_index_integrity.py`` runs a reduced version.
"""

from __future__ import annotations

import argparse
import collections
import copy
import hashlib
import json
import os
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

SRC = Path(__file__).resolve().parent.parent / "src"
PREFIX = struct.Struct("<8sIIQ32s")
#: (preset, overrides) scored on every loaded index and on its rebuilt twin.
SETTINGS = (("npmi", {}), ("npmi", {"window": 10}), ("npmi", {"window": 10, "compat": "gensim"}),
            ("umass", {}), ("c_v", {}), ("c_v", {"compat": "gensim"}))
OUTCOMES = ("refused", "loaded-identical", "FAILED")
#: How a mutated file reaches the loader (module docstring).
STATES = ("fresh", "restored", "touched")
#: What ``ReferenceIndex.load`` reports when it found the file verified (``opened["checked_now"]``).
CACHED_OPEN = "header and vocabulary"


# --------------------------------------------------------------------------------------------
# the base indices and the topics
# --------------------------------------------------------------------------------------------
def base_indices(train, n_docs: int | None = None) -> dict[str, bytes]:
    """Files of two real indices of the first ``n_docs`` stories of ``train`` (a Corpus).

    ``plain``: one document per slot; ``sparse``: every fourth slot of the id
    space left empty.
    """
    from tealeaves.index import build_index

    corpus = train if n_docs is None else train.subset(range(min(n_docs, len(train))))
    n = len(corpus)
    slots = np.arange(n) + np.arange(n) // 3  # slots 3, 7, 11, ... stay empty
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for kind, ix in (("plain", build_index(corpus, name="fuzz-plain")),
                         ("sparse", build_index(corpus, name="fuzz-sparse", doc_ids=slots,
                                                n_space=int(slots[-1]) + 2))):
            out[kind] = ix.save(Path(tmp) / f"{kind}.tlx").read_bytes()
    return out


def fixed_topics(raw: bytes) -> list[list[str]]:
    """Topics of 10 words chosen by document frequency: frequent, middling and rare words, one absent."""
    from tealeaves.index import ReferenceIndex

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "base.tlx"
        path.write_bytes(raw)
        ix = ReferenceIndex.load(path)
        words = list(ix.vocabulary)
        df = ix.document_frequencies()
    order = [int(w) for w in np.argsort(-df, kind="stable") if df[w] > 0]
    rare = [w for w in order if df[w] <= 2]
    picks = [order[:10], order[10:20], order[100:110], order[len(order) // 2:len(order) // 2 + 10], rare[:10]]
    topics = [[words[w] for w in p] for p in picks if len(p) >= 2]
    topics.append([words[order[0]], "zzzz-not-a-word", *[words[w] for w in order[30:38]]])
    return topics


# --------------------------------------------------------------------------------------------
# mutations
# --------------------------------------------------------------------------------------------
def restamp(data: bytes | bytearray) -> bytes:
    """``data`` with the SHA-256 of bytes 56.. written into bytes 24-55 (so it passes the checksum)."""
    buf = bytearray(data)
    if len(buf) >= PREFIX.size:
        buf[24:56] = hashlib.sha256(bytes(buf[PREFIX.size:])).digest()
    return bytes(buf)


def split(raw: bytes) -> tuple[dict, dict[str, np.ndarray], int]:
    """The header, the arrays (copies) and the header length of a valid index file."""
    hlen = PREFIX.unpack(raw[:PREFIX.size])[3]
    header = json.loads(raw[PREFIX.size:PREFIX.size + hlen])
    arrays = {s["name"]: np.frombuffer(raw, dtype=s["dtype"], count=s["shape"][0], offset=s["offset"]).copy()
              for s in header["arrays"]}
    return header, arrays, hlen


def serialise(header: dict, arrays: dict[str, np.ndarray]) -> bytes:
    """A file laid out consistently for ``arrays`` (their dtypes, shapes) with ``header``'s other fields."""
    from tealeaves.index import ReferenceIndex

    with tempfile.TemporaryDirectory() as tmp:
        return ReferenceIndex(arrays, header).save(Path(tmp) / "m.tlx").read_bytes()


def with_header(raw: bytes, header, hlen: int) -> bytes:
    """``raw`` with its JSON header replaced by ``header`` in place (padded, or longer over the padding)."""
    text = json.dumps(header, sort_keys=True, ensure_ascii=False).encode("utf-8")
    if len(text) < hlen:
        text += b" " * (hlen - len(text))
    buf = bytearray(raw)
    buf[PREFIX.size:PREFIX.size + len(text)] = text
    buf[16:24] = struct.pack("<Q", len(text))
    return bytes(buf[:max(len(raw), PREFIX.size + len(text))])


def _choose(rng, options: list):
    """One of ``options`` (any Python values, unlike ``rng.choice``)."""
    return options[int(rng.integers(len(options)))]


def _weird_int(rng, v: int):
    return _choose(rng, [v + 1, v - 1, 0, -1, 2 * v, v + 64, 2**31, 2**63, -(2**62), 10**30,
                         str(v), float(v), None, True, [v]])


def _flip(buf: bytearray, rng, lo: int, hi: int, n: int) -> str:
    spots = rng.integers(lo, hi, size=n)
    for p in spots:
        buf[int(p)] ^= int(rng.integers(1, 256))
    return f"bytes {sorted(int(p) for p in spots)}"


def _array_span(header: dict, rng) -> tuple[str, int, int]:
    specs = [s for s in header["arrays"] if s["shape"][0] > 0]
    s = specs[int(rng.integers(len(specs)))]
    return s["name"], s["offset"], s["offset"] + s["shape"][0] * np.dtype(s["dtype"]).itemsize


def _pick_array(arrays: dict[str, np.ndarray], rng) -> str:
    names = [n for n, a in arrays.items() if len(a)]
    return names[int(rng.integers(len(names)))]


def _slice(rng, n: int) -> slice:
    r = rng.random()
    if r < 0.5:
        i = int(rng.integers(n))
        return slice(i, i + 1)
    if r < 0.9:
        i = int(rng.integers(n))
        return slice(i, min(n, i + int(rng.integers(2, 50))))
    return slice(0, n)


def _wrap(values, dtype) -> np.ndarray:
    """Integers cast to ``dtype`` with two's-complement wrap-around (as a corrupted file would hold them)."""
    return np.asarray(np.asarray(values, dtype=object) % 2**64, dtype=np.uint64).astype(dtype)


def m_flip_bytes(raw, rng):
    buf = bytearray(raw)
    what = _flip(buf, rng, 0, len(raw), int(rng.integers(1, 5)))
    return restamp(buf), what, True


def m_flip_prefix(raw, rng):
    buf = bytearray(raw)
    what = _flip(buf, rng, 0, 24, int(rng.integers(1, 3)))  # magic, version, reserved, header length
    return restamp(buf), what, True


def m_flip_header(raw, rng):
    hlen = PREFIX.unpack(raw[:PREFIX.size])[3]
    buf = bytearray(raw)
    what = _flip(buf, rng, PREFIX.size, PREFIX.size + hlen, int(rng.integers(1, 3)))
    return restamp(buf), what, True


def m_flip_arrays(raw, rng):
    header, _, _ = split(raw)
    name, lo, hi = _array_span(header, rng)
    buf = bytearray(raw)
    what = _flip(buf, rng, lo, hi, int(rng.integers(1, 4)))
    return restamp(buf), f"{name} {what}", True


def m_flip_unstamped(raw, rng):
    buf = bytearray(raw)
    what = _flip(buf, rng, PREFIX.size, len(raw), 1)
    verify = bool(rng.random() < 0.5)
    return bytes(buf), f"{what}, verify={verify}", verify


def m_truncate_file(raw, rng):
    n = int(rng.integers(0, len(raw)))
    data = raw[:n]
    if n > PREFIX.size + 200 and rng.random() < 0.5:
        header, _, hlen = split(raw)
        header["file_size"] = n
        data = with_header(raw, header, hlen)[:n]
        return restamp(data), f"to {n} bytes, file_size updated", True
    return restamp(data), f"to {n} bytes", True


def m_extend_file(raw, rng):
    k = int(rng.integers(1, 300))
    tail = bytes(rng.integers(0, 256, size=k).astype(np.uint8)) if rng.random() < 0.5 else b"\0" * k
    data = raw + tail
    if rng.random() < 0.5:
        header, _, hlen = split(raw)
        header["file_size"] = len(data)
        data = with_header(raw, header, hlen) + tail
        return restamp(data), f"by {k} bytes, file_size updated", True
    return restamp(data), f"by {k} bytes", True


def m_header_count(raw, rng):
    header, _, hlen = split(raw)
    key = str(rng.choice(["n_documents", "n_present", "n_tokens", "n_words", "file_size"]))
    header[key] = _weird_int(rng, header[key])
    return restamp(with_header(raw, header, hlen)), f"{key}={header[key]!r}", True


def m_header_dtype(raw, rng):
    header, _, hlen = split(raw)
    spec = header["arrays"][int(rng.integers(len(header["arrays"])))]
    spec["dtype"] = _choose(rng, ["<i4", "<i8", "<u8", ">i8", ">i4", "|u1", "|i1", "<f8", "<i2", "|O", "|b1",
                                "<U3", "V8", "garbage", 5, None])
    return restamp(with_header(raw, header, hlen)), f"{spec['name']} dtype={spec['dtype']!r}", True


def m_header_shape(raw, rng):
    header, _, hlen = split(raw)
    spec = header["arrays"][int(rng.integers(len(header["arrays"])))]
    n = spec["shape"][0]
    spec["shape"] = _choose(rng, [[n + 1], [n - 1], [0], [-1], [n, 1], [], [2**40], ["n"], [2 * n], [n // 2],
                                [float(n)], n, None])
    return restamp(with_header(raw, header, hlen)), f"{spec['name']} shape={spec['shape']!r}", True


def m_header_offset(raw, rng):
    header, _, hlen = split(raw)
    i = int(rng.integers(len(header["arrays"])))
    spec = header["arrays"][i]
    o = spec["offset"]
    prev = header["arrays"][i - 1]["offset"] if i else 0
    spec["offset"] = _choose(rng, [o + 1, o - 1, o + 64, o - 64, 0, -64, 2**40, prev, float(o), None, str(o)])
    return restamp(with_header(raw, header, hlen)), f"{spec['name']} offset={spec['offset']!r}", True


def m_header_field(raw, rng):
    header, _, hlen = split(raw)
    r = int(rng.integers(8))
    if r == 0:
        key = str(rng.choice(sorted(header)))
        del header[key]
        what = f"deleted {key}"
    elif r == 1:
        arrays = header["arrays"]
        i, j = (int(x) for x in rng.choice(len(arrays), size=2, replace=False))
        arrays[i], arrays[j] = arrays[j], arrays[i]
        what = f"arrays {i} and {j} swapped"
    elif r == 2:
        header["arrays"].pop(int(rng.integers(len(header["arrays"]))))
        what = "an array dropped"
    elif r == 3:
        header["arrays"].append(copy.deepcopy(header["arrays"][-1]))
        what = "an array duplicated"
    elif r == 4:
        header = _choose(rng, [[header], None, 7, "x"])
        what = f"header replaced by {type(header).__name__}"
    elif r == 5:
        key = str(rng.choice(["name", "source", "tokenization", "created_by", "format", "format_version"]))
        header[key] = _choose(rng, [None, 3, ["a"], {"a": 1}, "", 2])
        what = f"{key}={header[key]!r}"
    elif r == 6:
        spec = header["arrays"][int(rng.integers(len(header["arrays"])))]
        spec["name"] = _choose(rng, ["vocab", "", None, "positions"])
        what = f"array name {spec['name']!r}"
    else:
        header["arrays"] = _choose(rng, [None, {}, [], "arrays"])
        what = f"arrays={header['arrays']!r}"
    return restamp(with_header(raw, header, hlen)), what, True


def _on_one_array(change):
    """A mutation applying ``change(a, rng) -> (new a, description)`` to one random array, re-serialised."""
    def mutate(raw, rng):
        header, arrays, _ = split(raw)
        name = _pick_array(arrays, rng)
        arrays[name], what = change(arrays[name], rng)
        return serialise(header, arrays), f"{name} {what}", True
    mutate.__doc__ = change.__doc__
    return mutate


@_on_one_array
def m_array_truncate(a, rng):
    """Entries dropped from the end or the start."""
    k = max(1, int(rng.integers(1, 11)) if rng.random() < 0.8 else len(a) // 2)
    return (a[:-k] if rng.random() < 0.5 else a[k:]), f"lost {k} entries"


@_on_one_array
def m_array_scale(a, rng):
    """An entry, a run or the whole array multiplied (wrapping around like the stored integers)."""
    s = _slice(rng, len(a))
    factor = _choose(rng, [2, 3, -1, 0, 10, 1000])
    a[s] = _wrap([int(v) * factor for v in a[s]], a.dtype)
    return a, f"[{s.start}:{s.stop}] * {factor}"


@_on_one_array
def m_array_shift(a, rng):
    """An entry, a run or the whole array shifted."""
    s = _slice(rng, len(a))
    delta = _choose(rng, [1, -1, 2, -2, 64, len(a), -len(a), 2**31, -(2**31), 2**32])
    a[s] = _wrap([int(v) + delta for v in a[s]], a.dtype)
    return a, f"[{s.start}:{s.stop}] + {delta}"


@_on_one_array
def m_array_permute(a, rng):
    """Two entries swapped, or a run shuffled."""
    if len(a) < 2:
        return a, "(too short to permute)"
    if rng.random() < 0.5:
        i, j = (int(x) for x in rng.choice(len(a), size=2, replace=False))
        a[i], a[j] = a[j], a[i]
        return a, f"entries {i} and {j} swapped"
    i = int(rng.integers(len(a) - 1))
    s = slice(i, min(len(a), i + int(rng.integers(2, 60))))
    a[s] = rng.permutation(a[s])
    return a, f"[{s.start}:{s.stop}] permuted"


@_on_one_array
def m_array_set(a, rng):
    """One entry set to an edge value."""
    i = int(rng.integers(len(a)))
    info = np.iinfo(a.dtype)
    value = _choose(rng, [0, -1, 1, int(info.max), int(info.min), len(a), len(a) - 1, int(a.max()) + 1])
    a[i] = _wrap([value], a.dtype)[0]
    return a, f"[{i}] = {value}"


@_on_one_array
def m_array_extend(a, rng):
    """Entries appended (copies of the last, or random)."""
    k = int(rng.integers(1, 5))
    extra = a[-1:].repeat(k) if rng.random() < 0.5 else _wrap(rng.integers(-5, 2**20, size=k), a.dtype)
    return np.concatenate([a, extra]).astype(a.dtype), f"+ {k} entries"


@_on_one_array
def m_array_dtype(a, rng):
    """The array stored with another dtype (same values)."""
    new = str(rng.choice(["<i4", "<i8", "<u4", "<u8", "|u1", "<i2", "<f8", ">i8"]))
    if np.dtype(new) == a.dtype:
        new = "<f8"
    return a.astype(new), f"as {new}"


def m_valid_edit(raw, rng):
    header, arrays, _ = split(raw)
    r = int(rng.integers(5))
    if r == 0:  # a document grows by tokens no word claims
        slots = np.flatnonzero(arrays["present"])
        d = int(rng.choice(slots))
        k = int(rng.integers(1, 200))
        arrays["doc_lengths"][d] += k
        header["n_tokens"] += k
        what = f"document {d} + {k} tokens"
    elif r == 1:  # a word's letter changed (may collide with another word: then refused)
        blob = arrays["vocab_blob"]
        i = int(rng.integers(len(blob)))
        blob[i] = int(rng.integers(ord("a"), ord("z") + 1))
        what = f"vocab byte {i}"
    elif r == 2:  # a document id's byte changed
        blob = arrays["docid_blob"]
        i = int(rng.integers(len(blob)))
        blob[i] = int(rng.integers(ord("0"), ord("9") + 1))
        what = f"docid byte {i}"
    elif r == 3:  # one token moved to a position of its document no word claims (if any)
        what = _move_token(arrays, rng)
    else:
        header[_choose(rng, ["name", "source", "created_by"])] = "edited ✓"
        header["tokenization"] = {"edited": True}
        what = "descriptive fields"
    return serialise(header, arrays), what, True


def _move_token(arrays, rng) -> str:
    """Move the last position of a random posting to a free later position of the same document."""
    pos_ptr, positions, post_docs = arrays["pos_ptr"], arrays["positions"], arrays["post_docs"]
    g = int(rng.integers(len(post_docs)))
    d = int(post_docs[g])
    claimed = set(positions[np.repeat(post_docs, np.diff(pos_ptr)) == d].tolist())
    last = int(positions[pos_ptr[g + 1] - 1])
    free = [p for p in range(last + 1, int(arrays["doc_lengths"][d])) if p not in claimed]
    if not free:
        return "no free position (unchanged)"
    positions[pos_ptr[g + 1] - 1] = free[int(rng.integers(len(free)))]
    return f"posting {g} moved a token"


MUTATIONS = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("m_")}


def mutations(bases: dict[str, bytes], n: int, seed: int):
    """``n`` seeded mutations ``(kind, base, data, description, verify)``, kinds in turn."""
    rng = np.random.default_rng(seed)
    kinds = list(MUTATIONS)
    names = sorted(bases)
    for i in range(n):
        kind = kinds[i % len(kinds)]
        base = names[(i // len(kinds)) % len(names)]
        data, what, verify = MUTATIONS[kind](bases[base], rng)
        yield kind, base, data, what, verify


# --------------------------------------------------------------------------------------------
# the oracle (run in the worker)
# --------------------------------------------------------------------------------------------
def described_index(ix):
    """The index :func:`build_index` makes of the corpus ``ix`` describes (decoded from its postings)."""
    from tealeaves.index.build import index_arrays as _index_arrays

    a = ix.arrays
    lengths = np.asarray(a["doc_lengths"], dtype=np.int64)
    slots = np.flatnonzero(np.asarray(a["present"]))
    offsets = np.zeros(len(slots) + 1, dtype=np.int64)
    np.cumsum(lengths[slots], out=offsets[1:])
    start = np.zeros(len(lengths), dtype=np.int64)
    start[slots] = offsets[:-1]
    word_of_posting = np.repeat(np.arange(ix.n_words), np.diff(a["word_ptr"]))
    per_posting = np.diff(a["pos_ptr"])
    tokens = np.full(int(offsets[-1]), -1, dtype=np.int32)
    tokens[start[np.repeat(a["post_docs"], per_posting)] + a["positions"]] = np.repeat(word_of_posting,
                                                                                        per_posting)
    return _index_arrays(tokens, offsets, list(ix.vocabulary), list(ix.document_ids), name=ix.name,
                         doc_ids=slots, n_space=len(lengths), tokenization=ix.tokenization, source=ix.source)


def scores(ix, topics) -> list:
    from tealeaves.coherence import Coherence

    return [Coherence(measure, n_top=10, **kw).score(topics, ix).scores for measure, kw in SETTINGS]


def _same(x, y) -> bool:
    if x is None or y is None:
        return x is y
    return bool(np.isnan(x) and np.isnan(y)) or abs(x - y) <= 1e-12


def check_file(path: str, verify: bool, topics) -> tuple[str, str]:
    """Load one mutated file and apply the oracle: ``(outcome, detail)``.

    A file that loads has ``detail`` set to what its open checked (``ReferenceIndex.opened``)."""
    from tealeaves.errors import IndexIntegrityError
    from tealeaves.index import ARRAY_NAMES, ReferenceIndex

    try:
        ix = ReferenceIndex.load(path, verify=verify)
    except IndexIntegrityError as exc:
        if path not in str(exc):
            return "FAILED", f"refused without naming the file: {exc}"
        return "refused", str(exc)
    except Exception as exc:  # noqa: BLE001 - any other exception is the failure being looked for
        return "FAILED", f"load raised {type(exc).__name__}: {exc}"
    try:
        ix.info(), repr(ix)
        got = scores(ix, topics)  # first, so that a kernel reading a bad array would crash here
        twin = described_index(ix)
        for name in ARRAY_NAMES:
            if not np.array_equal(np.asarray(ix.arrays[name]), twin.arrays[name]):
                return "FAILED", f"loaded, but array {name} differs from the index of the corpus it describes"
        want = scores(twin, topics)
    except Exception as exc:  # noqa: BLE001
        return "FAILED", f"loaded, then {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}"
    for (measure, kw), g, w in zip(SETTINGS, got, want):
        if len(g) != len(w) or not all(_same(x, y) for x, y in zip(g, w)):
            return "FAILED", f"loaded, but {measure} {kw} scores {g} differ from the rebuilt index's {w}"
    return "loaded-identical", ix.opened["checked_now"]


def worker_main(topics_path: str) -> int:
    """Serve ``{"path", "verify"}`` JSON lines from stdin, answering ``{"outcome", "detail"}`` lines."""
    topics = json.loads(Path(topics_path).read_text(encoding="utf-8"))
    answer, sys.stdout = sys.stdout, sys.stderr  # nothing else may write on the answer channel
    print(json.dumps({"ready": True}), file=answer, flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        if job.get("fault") == "crash":  # self-test of the parent's crash and hang detection
            os.kill(os.getpid(), signal.SIGSEGV)
        if job.get("fault") == "hang":
            time.sleep(3600)
        if job.get("prime"):  # open once, so that the file's verification is recorded
            from tealeaves.index import ReferenceIndex

            opened = ReferenceIndex.load(job["path"]).opened["checked_now"]
            print(json.dumps({"outcome": "primed", "detail": opened}), file=answer, flush=True)
            continue
        outcome, detail = check_file(job["path"], job["verify"], topics)
        print(json.dumps({"outcome": outcome, "detail": detail[:2000]}), file=answer, flush=True)
    return 0


# --------------------------------------------------------------------------------------------
# the parent: subprocess workers, per-mutation timeouts, crash detection
# --------------------------------------------------------------------------------------------
class Worker:
    """One worker subprocess that answers JSON jobs; a crash or a hang becomes a ``FAILED`` reply.

    The worker is ``command`` (default: this script's ``--worker TOPICS``); :meth:`request`
    sends one job and restarts the worker after a crash or hang.  ``store_fuzz.py`` and
    ``model_fuzz.py`` use it with their own scripts' ``--worker``.
    """

    def __init__(self, topics_path: Path | None = None, startup_timeout: float = 120.0,
                 command: list[str] | None = None, env: dict | None = None):
        env = {**os.environ, **(env or {})}
        env["PYTHONPATH"] = os.pathsep.join([str(SRC), *filter(None, [env.get("PYTHONPATH")])])
        self.command = command or [sys.executable, __file__, "--worker", str(topics_path)]
        self.env, self.startup_timeout = env, startup_timeout
        self.proc = None

    def _start(self) -> None:
        self.proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=self.env, text=True, bufsize=1)
        status, _ = self._read(self.startup_timeout)
        if status != "ok":
            self._stop()
            raise RuntimeError(f"the fuzz worker did not start ({status})")

    def _read(self, timeout: float) -> tuple[str, dict | None]:
        """``("ok", reply)``, ``("timeout", None)`` or ``("eof", None)`` (the worker died)."""
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return "timeout", None
        line = self.proc.stdout.readline()
        return ("ok", json.loads(line)) if line else ("eof", None)

    def _stop(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            self.proc = None

    def request(self, job: dict, timeout: float) -> dict:
        """Run one job: the worker's reply, or ``{"outcome": "FAILED", ...}`` after a crash or a hang."""
        if self.proc is None:
            self._start()
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        status, reply = self._read(timeout)
        if status == "ok":
            return reply
        if status == "timeout":
            self._stop()
            return {"outcome": "FAILED", "detail": f"hang: no answer within {timeout:g} s"}
        code = self.proc.wait(timeout=30)
        self._stop()
        return {"outcome": "FAILED",
                "detail": f"worker died ({f'signal {-code}' if code < 0 else f'exit status {code}'})"}

    def run(self, path: Path, verify: bool, timeout: float, fault: str | None = None,
            prime: bool = False) -> tuple[str, str]:
        """Check one file; ``fault`` ("crash" or "hang") makes the worker fail on purpose (self-test);
        ``prime`` only opens it (``("primed", what the open checked)``)."""
        reply = self.request({"path": str(path), "verify": verify, "fault": fault, "prime": prime}, timeout)
        return reply["outcome"], reply["detail"]

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def fuzz(bases: dict[str, bytes], n: int, seed: int = 0, timeout: float = 30.0, progress=None,
         states: tuple[str, ...] = STATES) -> list[dict]:
    """Run ``n`` mutations of ``bases`` through a worker subprocess; one record per mutation.

    Mutation ``i`` is checked in state ``states[i % len(states)]`` (:data:`STATES`); the worker
    keeps its verified-state cache in a temporary folder.  Also runs each unmutated base as a
    control in every state (kind ``original``, which must load identically; verified first, it
    must load as verified).
    """
    records = []
    with tempfile.TemporaryDirectory(prefix="tealeaves-fuzz-") as tmp:
        tmp = Path(tmp)
        topics_path = tmp / "topics.json"
        topics_path.write_text(json.dumps(fixed_topics(bases[sorted(bases)[0]])), encoding="utf-8")
        worker = Worker(topics_path, env={"TEALEAVES_CACHE_DIR": str(tmp / "cache"),
                                          "TEALEAVES_VERIFY_CACHE": "1"})
        controls = [("original", b, raw, "unchanged", True) for b, raw in sorted(bases.items())]
        jobs = [(job, state) for job in controls for state in states]
        jobs += [(job, states[i % len(states)]) for i, job in enumerate(mutations(bases, n, seed))]
        try:
            for i, ((kind, base, data, what, verify), state) in enumerate(jobs):
                path = tmp / f"m{i}.tlx"
                outcome, detail = _check_in_state(worker, path, bases[base], data, verify, state, timeout)
                path.unlink(missing_ok=True)
                records.append({"i": i, "kind": kind, "base": base, "what": what, "state": state,
                                "outcome": outcome, "detail": detail})
                if progress and (i + 1) % 100 == 0:
                    progress(f"{i + 1} files checked")
        finally:
            worker.close()
    return records


def _check_in_state(worker: Worker, path: Path, base: bytes, data: bytes, verify: bool, state: str,
                    timeout: float) -> tuple[str, str]:
    """Write ``data`` at ``path`` as ``state`` says (:data:`STATES`) and check it: ``(outcome, detail)``."""
    if state == "fresh":
        path.write_bytes(data)
        return worker.run(path, verify, timeout)
    path.write_bytes(base)
    st = path.stat()
    aged = st.st_mtime_ns - 60 * 10**9  # (a file written in the last 2 s is never recorded as verified)
    os.utime(path, ns=(st.st_atime_ns, aged))
    outcome, opened = worker.run(path, True, timeout, prime=True)
    if outcome != "primed":
        return "FAILED", f"the base did not open: {outcome} {opened}"
    rewrite = data is not base  # (a control is left as it was verified)
    if rewrite:
        with open(path, "r+b") as fh:  # in place: the same inode
            fh.write(data)
            fh.truncate(len(data))
        if state == "restored":
            os.utime(path, ns=(st.st_atime_ns, aged))
    outcome, detail = worker.run(path, verify, timeout)
    if outcome == "loaded-identical" and (detail == CACHED_OPEN) == rewrite:
        return "FAILED", (f"loaded; its open checked {detail!r} although the file was "
                          f"{'rewritten' if rewrite else 'unchanged'} since it was verified")
    return outcome, detail


def outcome_table(records: list[dict], outcomes, failure, key=lambda r: r["kind"],
                  label: str = "kind") -> str:
    """Counts per ``key(record)`` and outcome, a total row, then ``failure(record)`` of every failure.

    The table every fuzzer prints (this script, ``store_fuzz.py``, ``model_fuzz.py``).
    """
    counts = collections.defaultdict(collections.Counter)
    for r in records:
        counts[key(r)][r["outcome"]] += 1
    width = max(len(k) for k in [*counts, label, "total"])
    lines = [f"{label:<{width}}  " + "  ".join(f"{o:>16}" for o in outcomes)]
    for k in sorted(counts):
        lines.append(f"{k:<{width}}  " + "  ".join(f"{counts[k][o]:>16}" for o in outcomes))
    total = collections.Counter(r["outcome"] for r in records)
    lines.append(f"{'total':<{width}}  " + "  ".join(f"{total[o]:>16}" for o in outcomes))
    lines += [failure(r) for r in records if r["outcome"] == "FAILED"]
    return "\n".join(lines)


def summary(records: list[dict]) -> str:
    """A table of counts per mutation kind and outcome, then every failure."""
    table = outcome_table(records, OUTCOMES,
                          lambda r: f"FAILED #{r['i']} {r['kind']} ({r['base']}, {r.get('state')}: "
                                    f"{r['what']}): {r['detail']}")
    by_state = outcome_table(records, OUTCOMES, lambda r: "", key=lambda r: r.get("state", "fresh"),
                             label="state").split("\n")
    return table + "\n\n" + "\n".join(line for line in by_state if line)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000, help="number of mutations (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--docs", type=int, default=None,
                        help="index only the first N training stories (default: all 7,769)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds allowed per mutation")
    parser.add_argument("--states", nargs="+", choices=STATES, default=list(STATES),
                        help="how mutated files reach the loader, in turn (default: all three)")
    parser.add_argument("--worker", metavar="TOPICS", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker_main(args.worker)
    sys.path.insert(0, str(SRC))
    from tealeaves.corpus.reuters import load_reuters_modapte

    t0 = time.perf_counter()
    train = load_reuters_modapte()[0]
    bases = base_indices(train, args.docs)
    print(f"base indices: {', '.join(f'{k} {len(v):,} bytes' for k, v in sorted(bases.items()))} "
          f"({len(train) if args.docs is None else min(args.docs, len(train))} Reuters training stories, "
          f"{time.perf_counter() - t0:.1f} s)", flush=True)
    t0 = time.perf_counter()
    records = fuzz(bases, args.n, args.seed, args.timeout, progress=lambda m: print(m, flush=True),
                   states=tuple(args.states))
    print(f"{args.n} mutations (seed {args.seed}; states {', '.join(args.states)}) + "
          f"{len(bases) * len(args.states)} controls in "
          f"{time.perf_counter() - t0:.1f} s")
    print(summary(records))
    return 1 if any(r["outcome"] == "FAILED" for r in records) else 0


if __name__ == "__main__":
    sys.exit(main())
