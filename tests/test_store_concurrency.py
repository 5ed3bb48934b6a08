"""Writing a results store under contention and faults: two writers, two concurrent sweeps, a full disk.

(A sweep killed with SIGKILL and resumed: ``tests/test_sweep_runs.py``.)
"""

from __future__ import annotations

import errno
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tealeaves.errors import OutputError
from tealeaves.store import format as store_format
from tealeaves.store.writer import open_store, write_model
from tealeaves.sweep import load_results, sweep
from test_sweep_runs import REPO, lda_corpus, stored, write_corpus

KS = ["2", "3", "4"]


@pytest.fixture(scope="module")
def single(tmp_path_factory) -> tuple[Path, Path]:
    """``(corpus file, store)``: a corpus and its sweep (K 2, 3, 4; seeds 0, 1) by one process."""
    from tealeaves.cli import main

    root = tmp_path_factory.mktemp("concurrency")
    corpus = write_corpus(root / "c.txt", n_docs=60)
    argv = ["sweep", str(corpus), "--n-components", *KS, "--seeds", "2", "-o", str(root / "one.sqlite")]
    assert main(argv) == 0
    return corpus, root / "one.sqlite"


def test_two_concurrent_sweeps_on_one_store_lose_and_duplicate_nothing(single, tmp_path):
    # before: the second process died with exit 70 on a UNIQUE constraint
    corpus, one = single
    out = tmp_path / "two.sqlite"
    argv = [sys.executable, "-m", "tealeaves", "sweep", str(corpus), "--n-components", *KS, "--seeds", "2",
            "-o", str(out)]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    procs = [subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    results = [p.communicate(timeout=600) for p in procs]
    for proc, (_, err) in zip(procs, results):
        assert proc.returncode == 0, err
        assert "Traceback" not in err
    with sqlite3.connect(out) as db:
        assert db.execute("SELECT count(*) FROM models").fetchone()[0] == 6
        assert db.execute("SELECT count(*) FROM topics").fetchone()[0] == 2 * (2 + 3 + 4)
    assert stored(out) == stored(one)  # every model once, as a single sweep stores it
    assert len(load_results(out).models) == 6  # and the store validates


def _row(one: Path, name: str) -> dict:
    """Model ``name`` of store ``one`` as a row :func:`write_model` takes."""
    results = load_results(one)
    m = results.model(name)
    ll, words = results.heldout(name)
    topics = results.topics[results.topics["model"] == name]
    return {"name": name, "k": int(m["k"]), "seed": int(m["seed"]), "engine": m["engine"],
            "settings": m["settings"], "signature": m["signature"], "description": m["description"],
            "fit_seconds": 0.0, "score_seconds": 0.0,
            "measures": {"signatures": results.signatures[name]}, "vocabulary_hash": m["vocabulary_hash"],
            "split_hash": m["split_hash"], "doc_loglik": ll, "doc_words": words,
            "topic_word": results._topic_word[name],
            "topics": [{"topic": int(t), "top_words": list(w), "scores": {}, "pairs": {}, "flags": []}
                       for t, w in zip(topics["topic"], topics["top_words"])]}


def test_a_model_another_writer_stored_is_not_written_twice(single, tmp_path):
    _, one = single
    path = tmp_path / "copy.sqlite"
    path.write_bytes(one.read_bytes())
    description = load_results(one).sweep
    conn = open_store(path, description)
    try:
        assert write_model(conn, _row(one, "sklearn-K2-s0")) is False  # no UNIQUE error
    finally:
        conn.close()
    assert stored(path) == stored(one)


def test_a_second_writer_waits_then_refuses_the_lock(single, tmp_path, monkeypatch, cli_error):
    corpus, one = single
    path = tmp_path / "locked.sqlite"
    path.write_bytes(one.read_bytes())
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM topics WHERE model = 'sklearn-K4-s1'")
        db.execute("DELETE FROM models WHERE name = 'sklearn-K4-s1'")
    monkeypatch.setattr(store_format, "LOCK_TIMEOUT", 0.5)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process in the middle of writing a model
    try:
        cli_error(["sweep", corpus, "--n-components", *KS, "--seeds", "2", "-o", path],
                  f"results store '{path}' is locked by another process writing to it")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert len(load_results(path).models) == 5  # untouched, and valid


def _full_after(pages: int):
    """A ``_connect`` whose database cannot grow past ``pages`` more pages (SQLite's SQLITE_FULL)."""
    connect = store_format._connect

    def limited(path):
        conn = connect(path)
        count = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {count + pages}")
        return conn

    return limited


def test_a_full_disk_while_sweeping_is_reported_as_a_full_disk(single, tmp_path, monkeypatch, cli_error):
    # before: a full disk during sweep -o was reported as "not a readable results store"
    corpus, one = single
    out = tmp_path / "full.sqlite"
    monkeypatch.setattr(store_format, "_connect", _full_after(12))  # room for the tables and a few models
    cli_error(["sweep", corpus, "--n-components", *KS, "--seeds", "2", "-o", out],
              f"the disk holding results store '{out}' is full (storing model", progress=True)
    kept = load_results(out).models["name"].tolist()  # the models stored before are whole and valid
    assert 1 <= len(kept) < 6
    monkeypatch.undo()
    done = sweep(lda_corpus(n_docs=60), [2, 3, 4], seeds=2, output=out, progress=False)
    assert sorted(done["skipped"]) == sorted(kept)  # the rerun resumes
    assert stored(out) == stored(one)


def test_a_full_disk_when_creating_a_store(single, tmp_path, monkeypatch, cli_error):
    corpus, _ = single
    out = tmp_path / "new.sqlite"
    monkeypatch.setattr(store_format, "_connect", _full_after(0))
    cli_error(["sweep", corpus, "--n-components", "2", "--seeds", "1", "-o", out],
              f"the disk holding results store '{out}' is full (creating its tables failed")


def test_an_os_full_disk_error_is_a_full_disk():
    error = store_format._failure(OSError(errno.ENOSPC, "No space left on device"), Path("s.sqlite"), "x")
    assert isinstance(error, OutputError) and "is full" in str(error)


def test_a_finished_store_and_its_readers_leave_no_side_files(single, tmp_path):
    # before: the store stayed in WAL mode, so every reader (report, compare) left -wal and -shm beside it
    _, one = single
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(one.read_bytes())
    models = load_results(copy).models
    assert len(models) == 6
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.sqlite"]
    with sqlite3.connect(copy) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
