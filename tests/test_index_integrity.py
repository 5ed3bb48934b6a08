"""The reference index cannot crash the process: structural checks on load, proved by fuzzing.

A reduced run of ``benchmarks/index_fuzz.py``: mutations of real indices of Reuters-21578 training
stories, re-stamped so that they pass the checksum, each checked in a worker subprocess (a crash
is an exit signal, a hang a timeout).  Every file must be refused with IndexIntegrityError or load
and equal the index rebuilt from the corpus it describes, scores included; a third of the files
reach the loader fresh, the others after the base file was verified (and so recorded in the
verified-state cache) and then rewritten in place, its modification time restored or not.  The
harness itself is tested: it must report a crash, a hang, a loaded index that does not match its
corpus, and a loader that trusts the record of a file rewritten since.
"""

from __future__ import annotations

import collections
import importlib.util
import json
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tealeaves.errors import IndexIntegrityError
from tealeaves.index import ReferenceIndex, _checks, build_index, index_from_token_lists
from tealeaves.index import reference as index_module

_spec = importlib.util.spec_from_file_location(
    "index_fuzz", Path(__file__).resolve().parent.parent / "benchmarks" / "index_fuzz.py")
fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)

#: Stories indexed for the CI run (the benchmark indexes all 7,769).
CI_DOCS = 300
CI_MUTATIONS = 220  # ten of each kind


@pytest.fixture(scope="module")
def bases(reuters):
    return fuzz.base_indices(reuters[0], CI_DOCS)


def test_reduced_fuzz_run_refuses_or_loads_identically(bases):
    t0 = time.perf_counter()
    records = fuzz.fuzz(bases, CI_MUTATIONS, seed=0)
    elapsed = time.perf_counter() - t0
    failures = [r for r in records if r["outcome"] == "FAILED"]
    assert not failures, fuzz.summary(records)
    by_kind = collections.defaultdict(collections.Counter)
    for r in records:
        by_kind[r["kind"]][r["outcome"]] += 1
    assert set(by_kind) == {*fuzz.MUTATIONS, "original"}
    assert by_kind["original"]["loaded-identical"] == 2 * len(fuzz.STATES)
    by_state = collections.Counter(r["state"] for r in records if r["kind"] != "original")
    assert by_state == {state: CI_MUTATIONS // len(fuzz.STATES) + (i < CI_MUTATIONS % len(fuzz.STATES))
                        for i, state in enumerate(fuzz.STATES)}
    # the controls verified first opened from the record; every rewritten file was checked whole
    for r in records:
        if r["outcome"] == "loaded-identical":
            cached = r["kind"] == "original" and r["state"] != "fresh"
            assert (r["detail"] == fuzz.CACHED_OPEN) == cached, r
    assert by_kind["valid_edit"]["loaded-identical"] > 0  # a renamed word may collide: then refused
    for kind in ("flip_prefix", "flip_unstamped", "header_count", "header_shape", "header_offset",
                 "array_truncate", "array_dtype", "truncate_file"):
        assert by_kind[kind]["refused"] == by_kind[kind].total() > 0, (kind, by_kind[kind])
    assert elapsed < 120, f"the reduced fuzz run took {elapsed:.0f} s"


def test_harness_reports_a_crash_and_a_hang(tmp_path, bases):
    path = tmp_path / "plain.tlx"
    path.write_bytes(bases["plain"])
    topics = tmp_path / "topics.json"
    topics.write_text('[["oil", "gas"]]', encoding="utf-8")
    worker = fuzz.Worker(topics, env={"TEALEAVES_CACHE_DIR": str(tmp_path / "cache")})
    try:
        assert worker.run(path, True, 60)[0] == "loaded-identical"
        assert worker.run(path, True, 60, fault="crash") == ("FAILED", "worker died (signal 11)")
        assert worker.run(path, True, 2, fault="hang") == ("FAILED", "hang: no answer within 2 s")
        assert worker.run(path, True, 60)[0] == "loaded-identical"  # a fresh worker took over
    finally:
        worker.close()


def test_oracle_fails_an_index_that_does_not_match_its_corpus(tmp_path, monkeypatch, bases):
    """With the array checks switched off, a word sharing another's position loads but is caught."""
    header, arrays, _ = fuzz.split(bases["plain"])
    pos_ptr, positions, post_docs = arrays["pos_ptr"], arrays["positions"], arrays["post_docs"]
    once = np.diff(pos_ptr) == 1
    g = next(g for g in range(len(post_docs)) if once[g] and np.count_nonzero(post_docs == post_docs[g]) > 1)
    h = next(h for h in range(len(post_docs)) if h != g and post_docs[h] == post_docs[g])
    positions[pos_ptr[g]] = positions[pos_ptr[h]]  # posting g's only token now sits on one of h's
    path = tmp_path / "clash.tlx"
    path.write_bytes(fuzz.serialise(header, arrays))
    topics = fuzz.fixed_topics(bases["plain"])
    assert fuzz.check_file(str(path), True, topics)[0] == "refused"
    monkeypatch.setattr(_checks, "check_postings", lambda p, h, a: _checks.decode_vocabulary(p, a))
    outcome, detail = fuzz.check_file(str(path), True, topics)
    assert outcome == "FAILED" and "differs from the index of the corpus it describes" in detail


def test_harness_fails_a_loader_that_trusts_a_rewritten_file(tmp_path, bases):
    """A worker whose loader takes every file as checked on record (as a cache keyed without the
    change time would a file rewritten with its mtime restored) is caught in the ``restored`` state."""
    topics = tmp_path / "topics.json"
    topics.write_text(json.dumps(fuzz.fixed_topics(bases["plain"])), encoding="utf-8")
    trusting = ("import sys; from tealeaves.index import reference, _checks; "
                "reference.verified_facts = lambda key: {'checks': _checks.POSTINGS_CHECKS}; "
                f"sys.path.insert(0, {str(Path(fuzz.__file__).parent)!r}); import index_fuzz; "
                "sys.exit(index_fuzz.worker_main(sys.argv[1]))")
    worker = fuzz.Worker(command=[sys.executable, "-c", trusting, str(topics)],
                         env={"TEALEAVES_CACHE_DIR": str(tmp_path / "cache")})
    kinds = ("array_set", "array_shift", "array_scale", "array_permute")
    jobs = [job for job in fuzz.mutations(bases, 60, seed=3) if job[0] in kinds]
    try:
        outcomes = collections.Counter(
            fuzz._check_in_state(worker, tmp_path / "m.tlx", bases[base], data, verify, "restored", 60)[0]
            for _, base, data, _, verify in jobs)
    finally:
        worker.close()
    assert outcomes["FAILED"] > 0, outcomes


def test_valid_files_load_with_their_words_and_ids(tmp_path, reuters):
    train = reuters[0].subset(range(50))
    slots = np.arange(50) * 2
    ix = build_index(train, name="aligned-like", doc_ids=slots, n_space=100)
    loaded = ReferenceIndex.load(ix.save(tmp_path / "a.tlx"))
    assert list(loaded.vocabulary) == list(train.vocabulary)
    assert loaded.document_ids == list(train.ids)
    assert loaded.checksum == ix.checksum
    assert ReferenceIndex.load(tmp_path / "a.tlx", verify=False).checksum == ix.checksum


def test_save_failure_leaves_no_partial_or_temporary_file(tmp_path, monkeypatch):
    ix = index_from_token_lists([["oil", "gas"], ["gas"]])
    target = ix.save(tmp_path / "ref.tlx")
    before = target.read_bytes()

    def broken(header, arrays, sink):
        sink(b"partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(index_module, "write_body", broken)
    with pytest.raises(index_module.TealeavesError, match="the disk is full"):
        ix.save(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ref.tlx"]
    assert target.read_bytes() == before
    monkeypatch.undo()
    assert ReferenceIndex.load(target).checksum == ix.checksum


def test_structural_checks_do_not_depend_on_the_checksum(tmp_path):
    ix = index_from_token_lists([["oil", "gas", "oil"], ["gas"]])
    header, arrays, _ = fuzz.split(ix.save(tmp_path / "ok.tlx").read_bytes())
    arrays["positions"][1] = 5  # beyond the 3-token document
    data = bytearray(fuzz.serialise(header, arrays))
    data[24:56] = b"\0" * 32  # and a wrong checksum
    (tmp_path / "bad.tlx").write_bytes(bytes(data))
    with pytest.raises(IndexIntegrityError, match="checksum mismatch"):
        ReferenceIndex.load(tmp_path / "bad.tlx")
    with pytest.raises(IndexIntegrityError, match="token position outside its document"):
        ReferenceIndex.load(tmp_path / "bad.tlx", verify=False)


def test_words_and_ids_in_any_script_round_trip(tmp_path):
    docs = [["ሰላም", "世界", "oil"], ["Ünïcödé", "", "😀x"], ["oil", "世界"]]
    ix = index_from_token_lists(docs, ids=["α", "b", "文"])
    assert list(ix.vocabulary) == ["ሰላም", "世界", "oil", "Ünïcödé", "", "😀x"]
    loaded = ReferenceIndex.load(ix.save(tmp_path / "u.tlx"))
    assert list(loaded.vocabulary) == list(ix.vocabulary)
    assert loaded.document_ids == ["α", "b", "文"]
    header, arrays, _ = fuzz.split((tmp_path / "u.tlx").read_bytes())
    arrays["vocab_offsets"][1] = 1  # inside the first (three-byte) character of "ሰላም"
    (tmp_path / "split.tlx").write_bytes(fuzz.serialise(header, arrays))
    with pytest.raises(IndexIntegrityError, match="not valid UTF-8 .an offset splits a character"):
        ReferenceIndex.load(tmp_path / "split.tlx")
