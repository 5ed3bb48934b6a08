"""Sharded builds on a Dask LocalCluster equal the single build; a worker killed mid-build."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

pytest.importorskip("distributed")

from tealeaves.corpus import Preprocessor  # noqa: E402
from tealeaves.errors import TealeavesError  # noqa: E402
from tealeaves.index import ReferenceIndex, build_index  # noqa: E402
from tealeaves.index.dask import dask_client, dask_executor  # noqa: E402
from tealeaves.index.streaming import build_streaming  # noqa: E402
from test_index_streaming import assert_same_index, reuters_texts, shard_ids, write_shards  # noqa: E402, F401


@pytest.fixture(scope="module")
def shards(reuters_texts, tmp_path_factory):  # noqa: F811
    return write_shards(tmp_path_factory.mktemp("dask-shards"), *reuters_texts)


@pytest.fixture(scope="module")
def single(reuters_texts, shards):  # noqa: F811
    return build_index(Preprocessor().fit_transform(reuters_texts[1], shard_ids(shards)), name="reuters0")


@pytest.fixture(scope="module")
def client():
    with dask_client(2) as c:
        yield c


def test_two_workers_equal_single_build(shards, single, client, tmp_path):
    index, stats = build_streaming(shards, tmp_path / "d.tlx", chunk_tokens=50_000,
                                   executor=dask_executor(client))
    assert stats.documents == 7769
    assert_same_index(ReferenceIndex.load(tmp_path / "d.tlx"), single)
    assert_same_index(index, single)


def test_cli_workers_option(shards, single, tmp_path, run_cli):
    result = run_cli(["index", "build", *shards, "-o", tmp_path / "c.tlx", "--workers", "2"])
    assert result.code == 0, result.err
    assert "shard 7/7" in result.err
    assert_same_index(ReferenceIndex.load(tmp_path / "c.tlx"), single)


def _kill_a_busy_worker(client, done: threading.Event) -> list:
    """Kill (SIGKILL) the process of a worker while it runs a shard task; returns the killed pids."""
    pids = client.run(os.getpid)
    killed = []
    deadline = time.monotonic() + 60
    while not done.is_set() and time.monotonic() < deadline:
        busy = [w for w, tasks in client.processing().items() if tasks]
        if busy:
            time.sleep(0.2)  # inside the task, not before it
            os.kill(pids[busy[0]], signal.SIGKILL)
            killed.append(pids[busy[0]])
            return killed
        time.sleep(0.01)
    return killed


def test_killed_worker_is_retried(shards, single, tmp_path):
    """The nanny restarts the killed worker and the scheduler reruns its shard: the index is complete."""
    with dask_client(2) as c:
        done = threading.Event()
        killed = []
        killer = threading.Thread(target=lambda: killed.extend(_kill_a_busy_worker(c, done)))
        killer.start()
        try:
            build_streaming(shards, tmp_path / "k.tlx", chunk_tokens=50_000, executor=dask_executor(c))
        finally:
            done.set()
            killer.join()
    assert killed, "no worker was killed mid-build"
    assert_same_index(ReferenceIndex.load(tmp_path / "k.tlx"), single)


def test_killed_worker_without_retries_fails_clearly(shards, tmp_path):
    """With no retry allowed, the lost shard fails the build with a clear error and writes no index."""
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), dask_client(2) as c:
        done = threading.Event()
        killed = []
        killer = threading.Thread(target=lambda: killed.extend(_kill_a_busy_worker(c, done)))
        killer.start()
        try:
            with pytest.raises(TealeavesError, match="a Dask worker died while building a shard"):
                build_streaming(shards, tmp_path / "f.tlx", chunk_tokens=50_000, executor=dask_executor(c))
        finally:
            done.set()
            killer.join()
    assert killed
    assert not (tmp_path / "f.tlx").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no partial files left
