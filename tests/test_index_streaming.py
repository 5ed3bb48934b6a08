"""Streaming, bounded-memory index builds equal the single in-memory build; manifest; verification cache."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import require_data
from tealeaves.corpus import Corpus, Preprocessor
from tealeaves.errors import IndexIntegrityError
from tealeaves.index import ARRAY_NAMES, ReferenceIndex, _checks, build_index, cache, tokenization_mismatch
from tealeaves.index import reference as index_mod
from tealeaves.index.memory import chunk_tokens_for, parse_memory
from tealeaves.index.streaming import build_streaming, prunes

N_SHARDS = 7


@pytest.fixture(scope="module")
def reuters_texts():
    """(ids, texts) of the 7,769 Reuters ModApte training stories (title and body)."""
    require_data("reuters21578/reut2-000.sgm")
    from tealeaves.corpus.reuters import modapte_split, story_id, story_text

    train, _, _ = modapte_split()
    return [story_id(s) for s in train], [story_text(s) for s in train]


def write_shards(folder: Path, ids, texts, n: int = N_SHARDS) -> list[Path]:
    """The stories in ``n`` consecutive JSON Lines shards."""
    folder.mkdir(parents=True, exist_ok=True)
    bounds = np.linspace(0, len(texts), n + 1).astype(int)
    paths = []
    for k in range(n):
        p = folder / f"reuters{k}.jsonl"
        with open(p, "w", encoding="utf-8") as fh:
            for i in range(bounds[k], bounds[k + 1]):
                fh.write(json.dumps({"id": ids[i], "text": texts[i]}) + "\n")
        paths.append(p)
    return paths


def shard_ids(paths: list[Path]) -> list[str]:
    """The document ids a multi-shard build gives: ``<shard file name>:<id>``."""
    out = []
    for p in paths:
        with open(p, encoding="utf-8") as fh:
            out += [f"{p.name}:{json.loads(line)['id']}" for line in fh]
    return out


def assert_same_index(built: ReferenceIndex, reference: ReferenceIndex) -> None:
    """Every array equal, and the same checksum once the headers' descriptive fields agree."""
    for name in ARRAY_NAMES:
        assert np.array_equal(np.asarray(built.arrays[name]), np.asarray(reference.arrays[name])), name
    header = {k: v for k, v in built.header.items() if k not in ("arrays", "file_size")}
    same = ReferenceIndex(reference.arrays, header)
    assert same.checksum == built.checksum


@pytest.fixture(scope="module")
def shards(reuters_texts, tmp_path_factory):
    return write_shards(tmp_path_factory.mktemp("shards"), *reuters_texts)


@pytest.fixture(scope="module")
def single(reuters_texts, shards):
    """Today's single in-memory build over the 7 shards' documents (default recipe)."""
    ids, texts = reuters_texts
    corpus = Preprocessor().fit_transform(texts, shard_ids(shards))
    return build_index(corpus, name="reuters0")


def test_streaming_equals_single_pass_reuters_7_shards(shards, single, tmp_path):
    index, stats = build_streaming(shards, tmp_path / "r.tlx", chunk_tokens=40_000)
    assert stats.documents == single.n_present == 7769
    assert_same_index(index, single)
    loaded = ReferenceIndex.load(tmp_path / "r.tlx")  # passes every structural check
    assert_same_index(loaded, single)
    assert [e["name"] for e in loaded.manifest] == [p.name for p in shards]


def test_streaming_scores_identical(shards, single, tmp_path):
    from tealeaves.coherence.measure import Coherence

    build_streaming(shards, tmp_path / "r.tlx", chunk_tokens=100_000)
    loaded = ReferenceIndex.load(tmp_path / "r.tlx")
    df = single.document_frequencies()
    top = [single.vocabulary[int(i)] for i in np.argsort(-df)[:40]]
    topics = [top[i:i + 10] for i in range(0, 40, 10)]
    for window in ("doc", 10):
        a = Coherence("npmi", window=window).score(topics, single).scores
        b = Coherence("npmi", window=window).score(topics, loaded).scores
        assert a == b and all(s is not None for s in a)


def test_pruning_recipe_runs_a_counting_pass(reuters_texts, shards, tmp_path):
    pre = Preprocessor(min_df=3, max_df=0.2)
    assert prunes(pre.get_params()) and not prunes(Preprocessor().get_params())
    index, _ = build_streaming(shards, tmp_path / "p.tlx", chunk_tokens=60_000,
                               preprocessor=Preprocessor(min_df=3, max_df=0.2))
    corpus = pre.fit_transform(reuters_texts[1], shard_ids(shards))
    assert len(corpus.vocabulary) < 0.5 * len(Preprocessor().fit(reuters_texts[1]).vocabulary_)
    assert_same_index(index, build_index(corpus, name="reuters0"))


def test_cli_single_input_matches_previous_build(reuters_texts, tmp_path, run_cli):
    from tealeaves.coherence.cli import read_reference_corpus

    [path] = write_shards(tmp_path / "one", *reuters_texts, n=1)
    result = run_cli(["index", "build", path, "-o", tmp_path / "one.tlx", "--memory", "400M"])
    assert result.code == 0, result.err
    assert "tokens/s" in result.err  # progress, plain lines (stderr is not a terminal here)
    previous = build_index(read_reference_corpus(path), name=path.stem, source=str(path.resolve()))
    assert_same_index(ReferenceIndex.load(tmp_path / "one.tlx"), previous)


def test_pretokenised_lines_match_token_file_reader(tmp_path):
    from tealeaves.corpus.readers import read_token_lines

    p = tmp_path / "tokens.txt"
    p.write_text("b a c\n\na a d\x0ce b\nz b a\n", encoding="utf-8")
    index, _ = build_streaming([p], tmp_path / "t.tlx", chunk_tokens=2)
    corpus = read_token_lines(p)
    corpus.metadata["preprocessing"] = {"tokenizer": "whitespace (pre-tokenised, one document per line)"}
    assert list(index.vocabulary) == ["b", "a", "c", "d", "e", "z"]  # first appearance, as the reader
    assert_same_index(index, build_index(corpus, name="tokens"))


def test_memory_budget_sets_chunk_size():
    assert parse_memory("1G") == 1 << 30 and parse_memory("512MiB") == 512 << 20
    assert parse_memory("2.5G") == int(2.5 * (1 << 30))
    # one chunk's indexing state (BYTES_PER_TOKEN a token) plus the baseline fits the budget
    for budget in (400 << 20, 1 << 30, 8 << 30):
        n = chunk_tokens_for(budget)
        assert n * 40 + (300 << 20) <= budget


def test_manifest_verify_inputs(shards, tmp_path, run_cli, cli_error):
    out = tmp_path / "m.tlx"
    assert run_cli(["index", "build", *shards[:3], "-o", out]).code == 0
    ok = run_cli(["index", "info", out, "--verify", "--inputs", *shards[:3], "--format", "json"])
    assert ok.code == 0 and json.loads(ok.out)["verified"] is True
    cli_error(["index", "info", out, "--verify", "--inputs", *shards[:2]], "shard 'reuters2.jsonl'")
    cli_error(["index", "info", out, "--verify", "--inputs", *shards[:4]], "is not a shard")
    changed = tmp_path / "changed"
    changed.mkdir()
    for p in shards[:3]:
        (changed / p.name).write_bytes(p.read_bytes())
    with open(changed / shards[1].name, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": "extra", "text": "one more story"}) + "\n")
    cli_error(["index", "info", out, "--verify", "--inputs", *sorted(changed.iterdir())],
              "shard 'reuters1.jsonl' of index")
    assert ReferenceIndex.load(out, inputs=shards[:3]).manifest[2]["name"] == "reuters2.jsonl"
    with pytest.raises(IndexIntegrityError, match="has changed since the build"):
        ReferenceIndex.load(out, inputs=sorted(changed.iterdir()))


def _age(path: Path, seconds: int = 60) -> None:
    """Set the file's modification time ``seconds`` back (a just-written file is never cached)."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - seconds * 10**9))


def test_just_written_file_is_not_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("TEALEAVES_CACHE_DIR", str(tmp_path / "cache"))
    path = build_index(Corpus.from_token_lists([["a", "b"]])).save(tmp_path / "x.tlx")
    calls = _count_hashes(monkeypatch)
    ReferenceIndex.load(path)
    ReferenceIndex.load(path)
    assert len(calls) == 2  # modified within the last 2 s: a same-tick rewrite would keep the key


def _count_hashes(monkeypatch) -> list:
    calls = []
    real = index_mod.hashlib.sha256

    def counting(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(index_mod.hashlib, "sha256", counting)
    return calls


def test_verification_cached_by_file_state(tmp_path, monkeypatch):
    monkeypatch.setenv("TEALEAVES_CACHE_DIR", str(tmp_path / "cache"))
    corpus = Corpus.from_token_lists([["a", "b", "c"], ["b", "c"], ["c"]])
    path = build_index(corpus).save(tmp_path / "x.tlx")
    _age(path)
    cache._VERIFIED.clear()
    calls = _count_hashes(monkeypatch)
    ReferenceIndex.load(path)
    assert len(calls) == 1  # first use: hashed
    ReferenceIndex.load(path)
    assert len(calls) == 1  # cached in process
    cache._VERIFIED.clear()
    ReferenceIndex.load(path)
    assert len(calls) == 1  # cached on disk (a new process would find it there)
    ReferenceIndex.load(path, verify="always")
    assert len(calls) == 2  # index info --verify re-hashes
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1000))
    ReferenceIndex.load(path)
    assert len(calls) == 3  # modification time changed: hashed again
    monkeypatch.setenv("TEALEAVES_VERIFY_CACHE", "0")
    cache._VERIFIED.clear()
    ReferenceIndex.load(path)
    ReferenceIndex.load(path)
    assert len(calls) == 4  # no persistent cache; the in-process one still holds


def test_checks_run_again_after_a_rewrite_with_mtime_restored(tmp_path, monkeypatch):
    monkeypatch.setenv("TEALEAVES_CACHE_DIR", str(tmp_path / "cache"))
    corpus = Corpus.from_token_lists([["a", "b", "c"], ["b", "c"], ["c"]])
    index = build_index(corpus)
    path = index.save(tmp_path / "x.tlx")
    _age(path)
    ReferenceIndex.load(path)  # verified and cached
    st = path.stat()
    spec = {s["name"]: s for s in index_mod.read_header(path)["arrays"]}["doc_lengths"]
    with open(path, "r+b") as fh:  # corrupt one document length, same size, mtime restored
        fh.seek(spec["offset"])
        fh.write(np.int64(7).tobytes())
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # (the change time still moves: another key)
    with pytest.raises(IndexIntegrityError, match="checksum mismatch"):
        ReferenceIndex.load(path)
    with pytest.raises(IndexIntegrityError, match="document lengths summing to"):
        ReferenceIndex.load(path, verify=False)
    with pytest.raises(IndexIntegrityError, match="checksum mismatch"):
        ReferenceIndex.load(path, verify="always")


def test_tokenization_mismatch():
    corpus = Preprocessor().fit_transform(["the river flows", "a river bank"])
    index = build_index(corpus)
    # pruning is not tokenising
    assert tokenization_mismatch(index, Preprocessor(min_df=2).get_params()) is None
    message = tokenization_mismatch(index, Preprocessor(stop_words=None).get_params())
    assert "stop_words: model None, reference 'english'" in message
    assert tokenization_mismatch(index, None) is None
    pretok = build_index(Corpus.from_token_lists([["a"]]))
    assert tokenization_mismatch(pretok, Preprocessor().get_params()) is None  # nothing recorded to compare


def test_aligned_build_equals_in_memory_reference(tmp_path):
    from tealeaves.corpus.aligned import AlignedCorpus, default_preprocessor
    from tealeaves.multilingual.aligned_build import build_aligned_reference
    from tealeaves.multilingual.reference import AlignedReference

    rng = np.random.default_rng(3)
    en, sv = ["house", "tree", "river", "stone", "sky"], ["hus", "träd", "älv", "sten", "himmel"]
    tuples = []
    for i in range(150):
        tuples.append({"id": f"t{i}",
                       "en": None if i % 7 == 0 else " ".join(rng.choice(en, rng.integers(1, 12))),
                       "sv": None if i % 5 == 0 else " ".join(rng.choice(sv, rng.integers(1, 12)))})
    p = tmp_path / "tuples.jsonl"
    p.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in tuples), encoding="utf-8")
    disk, _ = build_aligned_reference([p], tmp_path / "al", languages="en,sv", chunk_tokens=60)
    built = disk.index.indices
    corpus = AlignedCorpus.from_texts({lang: [t[lang] for t in tuples] for lang in ("en", "sv")},
                                      [t["id"] for t in tuples],
                                      {lang: default_preprocessor(lang, max_df=1.0) for lang in ("en", "sv")})
    memory = AlignedReference(corpus, "al")
    for lang in ("en", "sv"):
        assert_same_index(built[lang], memory.index.indices[lang])
    ids = (tmp_path / "al" / "tuple_ids.txt").read_text(encoding="utf-8").split()
    assert ids == [t["id"] for t in tuples]
    a = disk.cross_counts("en", en, "sv", sv)
    b = memory.cross_counts("en", en, "sv", sv)
    assert a.n == b.n == sum(1 for t in tuples if t["en"] is not None and t["sv"] is not None)
    assert np.array_equal(a.joint, b.joint) and np.array_equal(a.df_a, b.df_a)


@pytest.mark.parametrize("block", [1, 2, 1 << 24])
def test_position_clash_found_across_check_blocks(tmp_path, monkeypatch, block):
    """Load decodes string blobs a block at a time (bounded temporaries); a position clash is still
    found whatever the block size."""
    monkeypatch.setattr(_checks, "CHECK_BLOCK", block)
    index = build_index(Corpus.from_token_lists([["a", "b", "c"], ["c", "a"]]))
    good = index.save(tmp_path / "good.tlx")
    assert ReferenceIndex.load(good).n_tokens == 5
    arrays = {k: np.array(v) for k, v in index.arrays.items()}
    wid = index.word_id("c")
    first = arrays["pos_ptr"][arrays["word_ptr"][wid]]
    arrays["positions"][first] = 0  # 'c' now claims position 0 of document 0, which is 'a''s
    bad = ReferenceIndex(arrays, index.header).save(tmp_path / "bad.tlx")
    with pytest.raises(IndexIntegrityError, match="two words at the same position"):
        ReferenceIndex.load(bad)


def test_cli_build_aligned(tmp_path, run_cli):
    from tealeaves.coherence.core import count_crosslingual
    from tealeaves.index import AlignedIndex

    rows = [{"id": "1", "en": "the river flows", "sv": "älven rinner"},
            {"id": "2", "en": "a stone", "sv": None}, {"id": "3", "sv": "stenen ligger"}]
    p = tmp_path / "tuples.jsonl"
    p.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    result = run_cli(["index", "build-aligned", p, "--languages", "en,sv", "-o", tmp_path / "ref",
                      "--format", "json"])
    assert result.code == 0, result.err
    info = json.loads(result.out)["indices"]
    assert (info["en"]["n_documents"], info["sv"]["n_documents"], info["en"]["id_space"]) == (2, 2, 3)
    aligned = AlignedIndex({lang: ReferenceIndex.load(tmp_path / "ref" / f"{lang}.tlx")
                            for lang in ("en", "sv")})
    assert aligned.present("en").tolist() == [True, True, False]
    assert aligned.present("sv").tolist() == [True, False, True]
    counts = count_crosslingual(aligned, "en", ["river", "stone"], "sv", ["älven", "stenen"])
    assert counts.n_units == 1 and counts.joint.tolist() == [1, 0, 0, 0]


# -- the merged word table (tealeaves.index.wordtable) ----------------------------------------------------
#: Words whose byte order tests the merge: prefixes of each other, multi-byte UTF-8 (2, 3 and 4 bytes),
#: a NUL inside a word (a fixed-width byte string would drop it), upper case before lower case.
HARD_WORDS = ["a", "ab", "abc", "b", "ba", "a\x00b", "A", "Zed", "é", "e", "ée", "中", "中文", "😀", "😀a",
              "ｚ", "z", "\x7f", "ß", "ss"]


def old_merge_vocabulary(partials: list[list[str]], sort_words: bool) -> tuple[list[str], list[list[int]]]:
    """The merge's vocabulary as tealeaves numbered it before the word tables (a dictionary of every word,
    in order of first appearance, then sorted if ``sort_words``), and each partial's ids in it."""
    ids: dict[str, int] = {}
    for words in partials:
        for w in words:
            ids.setdefault(w, len(ids))
    vocab = sorted(ids) if sort_words else list(ids)
    final = {w: i for i, w in enumerate(vocab)}
    return vocab, [[final[w] for w in words] for words in partials]


@pytest.mark.parametrize("sort_words", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_word_table_merge_matches_the_dictionary_merge(sort_words, seed):
    from tealeaves.index.format import decode_strings, encode_strings
    from tealeaves.index.wordtable import merge_word_tables

    rng = np.random.default_rng(seed)
    letters = list("abé中😀\x00")
    pool = HARD_WORDS + ["".join(rng.choice(letters, size=rng.integers(1, 5))) for _ in range(300)]
    pool = list(dict.fromkeys(pool))
    partials = []
    for _ in range(int(rng.integers(1, 9))):
        words = list(dict.fromkeys(rng.choice(pool, size=int(rng.integers(0, 120))).tolist()))
        partials.append(sorted(words) if sort_words else words)  # as flush_chunk numbers a chunk's words
    blob, offsets, maps = merge_word_tables([encode_strings(w) for w in partials], sort_words)
    vocab, expected = old_merge_vocabulary(partials, sort_words)
    assert decode_strings(blob, offsets) == vocab
    assert [m.tolist() for m in maps] == expected


def test_word_table_merge_sorts_an_unsorted_partial_of_a_sorted_build():
    from tealeaves.index.format import decode_strings, encode_strings
    from tealeaves.index.wordtable import merge_word_tables

    partials = [["b", "a", "😀"], ["c", "a"]]  # e.g. a fitted vocabulary that is not sorted
    blob, offsets, maps = merge_word_tables([encode_strings(w) for w in partials], True)
    assert decode_strings(blob, offsets) == ["a", "b", "c", "😀"]
    assert [m.tolist() for m in maps] == [[1, 0, 3], [2, 0]]


@pytest.mark.parametrize("chunk_tokens", [1, 3, 1000])
def test_pretokenised_build_with_hard_words_equals_single_pass(tmp_path, chunk_tokens):
    from tealeaves.corpus.readers import read_token_lines

    rng = np.random.default_rng(chunk_tokens)
    lines = [" ".join(rng.choice(HARD_WORDS, size=int(rng.integers(0, 7)))) for _ in range(60)]
    lines[5] = "\u3000x\u00a0y\x1cz\t"  # whitespace str.split() splits at, beyond ASCII
    p = tmp_path / "tokens.txt"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    index, _ = build_streaming([p], tmp_path / "t.tlx", chunk_tokens=chunk_tokens)
    corpus = read_token_lines(p)
    corpus.metadata["preprocessing"] = {"tokenizer": "whitespace (pre-tokenised, one document per line)"}
    assert_same_index(index, build_index(corpus, name="tokens"))
    assert_same_index(ReferenceIndex.load(tmp_path / "t.tlx"), build_index(corpus, name="tokens"))


@pytest.mark.parametrize("chunk_tokens", [5, 200])
def test_text_build_of_many_scripts_equals_single_pass(tmp_path, chunk_tokens):
    texts = ["Ελληνικά κείμενα και ΣΊΣΥΦΟΣ", "naïve café résumé Zürich straße", "中文 文本 中文",
             "emoji 😀 and 😀😀 words", "Ab ab AB aB abc", "déjà vu déjà", "one two three"] * 7
    ids = [f"d{i}" for i in range(len(texts))]
    [path] = write_shards(tmp_path / "in", ids, texts, n=1)
    index, _ = build_streaming([path], tmp_path / "t.tlx", chunk_tokens=chunk_tokens)
    single = build_index(Preprocessor().fit_transform(texts, ids), name=path.stem)
    for name in ARRAY_NAMES:
        assert np.array_equal(np.asarray(index.arrays[name]), np.asarray(single.arrays[name])), name
    assert list(index.vocabulary) == sorted(single.vocabulary)


def test_chunk_is_cut_when_its_word_table_fills_the_budget(tmp_path):
    from tealeaves.index.format import read_header
    from tealeaves.index.streaming import index_shard, plan

    words = [f"w{i:05d}" for i in range(3000)]  # every token a new word
    p = tmp_path / "tokens.txt"
    p.write_text("\n".join(" ".join(words[i:i + 10]) for i in range(0, 3000, 10)) + "\n", encoding="utf-8")
    settings = plan([p], None, 1 << 30, str(tmp_path))
    assert settings.chunk_bytes == (1 << 30) - (300 << 20)  # the budget less the process's baseline
    # 40 bytes a token and 160 a word of the chunk's own table: ten new words a line are 2,000 bytes, so
    # 20 lines (200 tokens) fill 40,000 bytes, long before the chunk's 1,000 tokens
    settings.chunk_tokens, settings.chunk_bytes = 1000, 40_000
    result = index_shard(str(p), 0, settings)
    assert [read_header(q.path)["n_words"] for q in result.partials] == [200] * 15
    settings.chunk_bytes = None  # tokens only
    result = index_shard(str(p), 0, settings)
    assert [read_header(q.path)["n_tokens"] for q in result.partials] == [1000] * 3


RETAINED_SCRIPT = r"""
import ctypes
import sys
from pathlib import Path

import numpy as np

from tealeaves.index.memory import release_freed_memory


def anon():
    return int(Path("/proc/self/status").read_text().split("RssAnon:")[1].split()[0]) >> 10


libc = ctypes.CDLL(None)
assert libc.mallopt(-3, 32 << 20) == 1  # M_MMAP_THRESHOLD: blocks under 32 MiB from the heap, as
assert libc.mallopt(-1, 1 << 30) == 1  # once one is freed; M_TRIM_THRESHOLD: free() leaves the top
pairs = [(np.ones(16 << 17), np.ones(1 << 17)) for _ in range(32)]  # 16 MiB blocks between 1 MiB ones
kept = [small for _, small in pairs]
del pairs
freed = anon()
release_freed_memory()
print(freed, anon())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                    reason="glibc's allocator and /proc")
def test_release_freed_memory_gives_back_the_heap_a_chunk_freed():
    """The memory a build's chunk frees inside glibc's heap stays in the process until it is trimmed:
    512 MiB of freed 16 MiB blocks held between live ones leave with ``release_freed_memory``."""
    out = subprocess.run([sys.executable, "-c", RETAINED_SCRIPT], capture_output=True, text=True,
                         check=True).stdout.split()
    freed, trimmed = map(int, out)
    assert freed - trimmed > 400, (freed, trimmed)


def test_streaming_build_releases_freed_memory_after_each_chunk_and_before_the_merge(tmp_path,
                                                                                    monkeypatch):
    import tealeaves.index.merge as merge_module
    import tealeaves.index.streaming as streaming_module

    calls = []
    monkeypatch.setattr(streaming_module, "release_freed_memory", lambda: calls.append("chunk"))
    monkeypatch.setattr(merge_module, "release_freed_memory", lambda: calls.append("merge"))
    shard = tmp_path / "a.txt"
    shard.write_text("".join(f"w{i % 7} w{i % 5} w{i % 3}\n" for i in range(300)), encoding="utf-8")
    build_streaming([shard], tmp_path / "a.tlx", chunk_tokens=200)
    assert calls == ["chunk"] * 5 + ["merge"], calls
