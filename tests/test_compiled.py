"""``tealeaves._compiled``: the notice while numba compiles, and the stop flag read by kernels."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
import threading
import time

import numba
import numpy as np
import pytest

from conftest import REPO
from tealeaves import _interrupt
from tealeaves._compiled import (
    ABORTED,
    ARRIVED,
    GENERATION,
    NOTICE,
    CompileNotice,
    barrier_wait,
    new_barrier,
    next_item,
    stop_requested,
)

#: Calls one small kernel (compiled when the numba cache is empty, loaded from it otherwise).
SMALL_CALL = ("import numpy as np; from tealeaves.likelihood._kernels import log_mean_exp_se; "
              "print(log_mean_exp_se(np.zeros(3))[0])")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_compiled_notice_is_written_once_and_only_on_a_terminal():
    tty, log = _Terminal(), io.StringIO()
    for stream in (tty, log):
        listener = CompileNotice(stream)
        listener.on_start(None)
        listener.on_start(None)  # a second compile in the same process says nothing more
        listener.on_end(None)
    assert tty.getvalue() == NOTICE + "\n"
    assert log.getvalue() == ""


def _run_small_call(cache: str, on_terminal: bool) -> tuple[str, str]:
    """Run SMALL_CALL with numba's cache in ``cache``; returns (stdout, stderr)."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "NUMBA_CACHE_DIR": cache}
    if not on_terminal:
        done = subprocess.run([sys.executable, "-c", SMALL_CALL], env=env, capture_output=True, text=True,
                              check=True)
        return done.stdout, done.stderr
    leader, follower = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-c", SMALL_CALL], env=env, stdout=subprocess.PIPE,
                              stderr=follower, text=True, check=True)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed (Linux: EIO once the writer is gone)
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    return done.stdout, b"".join(chunks).decode().replace("\r\n", "\n")


def test_compiled_notice_when_compiling_on_a_terminal_not_from_the_cache(tmp_path):
    cache = str(tmp_path / "numba-cache")
    out, err = _run_small_call(cache, on_terminal=True)  # empty cache: compiles
    assert err == NOTICE + "\n"
    assert float(out) == 0.0
    out, err = _run_small_call(cache, on_terminal=True)  # loaded from the cache: silent
    assert err == ""
    assert float(out) == 0.0


def test_compiled_no_notice_off_a_terminal(tmp_path):
    out, err = _run_small_call(str(tmp_path / "numba-cache"), on_terminal=False)  # compiles, into a pipe
    assert err == ""
    assert float(out) == 0.0


@numba.njit(nogil=True)
def _spin(limit, stop):
    """Count until ``limit`` or until the flag ``stop`` is set (the last argument, as for every kernel)."""
    n = 0
    while n < limit:
        if stop_requested(stop):
            break
        n += 1
    return n


def test_compiled_stop_flag_set_by_another_thread_is_seen_in_a_loop():
    # a loop that writes no memory: a plain load of the flag could be hoisted out of it
    stop = np.zeros(1, dtype=np.uint8)
    assert _spin(1000, stop) == 1000
    limit = 10**15  # days of counting: only the flag ends it
    timer = threading.Timer(0.2, lambda: stop.__setitem__(0, 1))
    timer.start()
    start = time.monotonic()
    assert _spin(limit, stop) < limit
    assert time.monotonic() - start < 10
    timer.join()


def test_compiled_call_raises_keyboard_interrupt_when_stopped_from_another_thread():
    limit = 10**15

    def stop_soon():
        time.sleep(0.2)
        _interrupt.request()

    threading.Thread(target=stop_soon).start()
    with pytest.raises(KeyboardInterrupt):
        _interrupt.call(_spin, limit)
    assert _interrupt.call(_spin, 10) == 10  # a new call from the main thread starts with the flag cleared


@numba.njit(nogil=True)
def _rounds(sync, n_parts, seen, p, n_rounds):
    """Each round, thread ``p`` writes its slot, waits at the barrier, and checks every slot of the round
    (``seen[p]`` counts the rounds whose slots were all written), then waits again."""
    for r in range(1, n_rounds + 1):
        seen[n_parts + p] = r
        if not barrier_wait(sync, n_parts):
            return
        complete = True
        for q in range(n_parts):
            complete &= seen[n_parts + q] == r
        seen[p] += complete
        if not barrier_wait(sync, n_parts):
            return


@pytest.mark.parametrize("n_parts", [1, 2, 3, 7])
def test_compiled_barrier_lets_no_thread_through_before_all_arrive(n_parts):
    # 7 threads on 2 cores: the waiting threads must yield and sleep, not spin forever
    sync, seen = new_barrier(), np.zeros(2 * n_parts, dtype=np.int64)
    n_rounds = 300
    threads = [threading.Thread(target=_rounds, args=(sync, n_parts, seen, p, n_rounds))
               for p in range(n_parts)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)
    np.testing.assert_array_equal(seen[:n_parts], n_rounds)  # every round, every slot seen by every thread
    assert sync[ARRIVED] == 0 and sync[GENERATION] == 2 * n_rounds


def test_compiled_barrier_abort_releases_the_waiting_threads():
    sync, seen = new_barrier(), np.zeros(6, dtype=np.int64)
    threads = [threading.Thread(target=_rounds, args=(sync, 3, seen, p, 5))
               for p in range(2)]  # the third never comes
    for t in threads:
        t.start()
    time.sleep(0.3)
    assert all(t.is_alive() for t in threads)  # waiting for the third
    sync[ABORTED] = 1
    for t in threads:
        t.join(10)
    assert not any(t.is_alive() for t in threads)
    np.testing.assert_array_equal(seen[:3], 0)


#: Records in ``names`` the name of every function numba compiles (kernels and the library functions
#: they call); the scripts below start with it.
RECORD_COMPILES = r"""
from numba.core import event

names = []


class Names(event.Listener):
    def on_start(self, ev):
        names.append(ev.data["dispatcher"].py_func.__qualname__)

    def on_end(self, ev):
        pass


event.register("numba:compile", Names())
"""

#: Scores two topics (NPMI over documents, the default) against token lists; prints the names of the
#: functions compiled and the scores as JSON.
FIRST_COHERENCE = RECORD_COMPILES + r"""
import json
from tealeaves.coherence import coherence

docs = [line.split() for line in json.loads(input())]
result = coherence([["cat", "dog", "mat"], ["sun", "moon", "star"]], docs)
print(json.dumps({"names": names, "scores": result.scores}))
"""


def test_compiled_first_coherence_call_compiles_only_what_it_needs(tmp_path):
    # The first call after an install compiles every kernel it uses (seconds each): a small job must
    # compile only serial kernels, none of the F estimate's (every pair is probed below
    # core._ESTIMATE_MIN_WORK), no pair kernel (every word of a small reference is dense, and NumPy
    # counts a small job's dense pairs), not the topic-major kernel (core.topic_major_cheaper), none of
    # the topic tables' (NumPy builds a small one), no numba sort or
    # binary search (numba's argsort alone took 2-3 s to compile; NumPy sorts instead), and allocate
    # only by np.empty (np.zeros and np.full compile two or three functions per kind of array).
    import json

    from conftest import DOCS
    from tealeaves.coherence import coherence

    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    done = subprocess.run([sys.executable, "-c", FIRST_COHERENCE], env=env, input=json.dumps(DOCS),
                          capture_output=True, text=True, check=True)
    out = json.loads(done.stdout)
    names = out["names"]
    assert "_build_kernel" in names  # the call did compile (the cache was empty)
    # its pairs of dense words are counted by NumPy (core._NUMPY_DENSE_MAX): no pair kernel at all
    parallel = {"_dense_doc_kernel", "_pair_unit_kernel", "_window_intervals", "_frequent_pair_kernel",
                "_topic_window_kernel", "_topic_document_kernel", "_dense_doc_kernel_serial"}
    assert not parallel & set(names)
    assert not {"_prefix_pair_estimate", "_probe_work_by_last", "_partition_pairs"} & set(names)
    assert not {"_pair_doc_kernel_serial", "_topic_pair_keys", "_unique_keys_kernel",
                "_topic_joint"} & set(names)
    assert not [n for n in names if "sort" in n.lower() or "search" in n.lower()], names
    assert not [n for n in names if "zeros" in n or "full" in n or "zero_fill" in n], names
    expected = coherence([["cat", "dog", "mat"], ["sun", "moon", "star"]], [d.split() for d in DOCS])
    assert out["scores"] == expected.scores


#: Estimates two documents by importance sampling (4 prior draws; every topic gives each of the two
#: words probability 1/2); prints the names of the functions compiled and the estimates as JSON.
FIRST_ESTIMATE = RECORD_COMPILES + r"""
import json

import numpy as np
from tealeaves.likelihood import _kernels as K

offsets = np.array([0, 3, 5], dtype=np.int64)
est, _ = K.on_threads(1)(K.IMPORTANCE, np.array([0, 1, 1, 0, 1]), offsets, np.zeros(2, np.int64),
                         np.full((2, 2), 0.5), np.ones(2), 4, 0, 0, np.zeros(1), 0, np.zeros(1, np.uint8))
print(json.dumps({"names": names, "estimates": est.tolist()}))
"""


def test_compiled_first_estimator_call_compiles_only_its_method_and_is_cached(tmp_path):
    # Each held-out estimator has its own kernel: the first importance-sampling call compiles none of
    # the other estimators (one kernel for all five compiled them all, 20 s), and a new process loads
    # the kernel from numba's cache instead of compiling it again.
    import json

    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}

    def run():
        done = subprocess.run([sys.executable, "-c", FIRST_ESTIMATE], env=env, capture_output=True, text=True,
                              check=True)
        return json.loads(done.stdout)

    first = run()  # empty cache: compiles the importance-sampling kernel
    assert {"_kernel.<locals>.kernel", "_importance", "_stream"} <= set(first["names"])
    assert not {"_left_to_right", "_smc_filter", "_harmonic", "_annealed", "_chib"} & set(first["names"])
    # p(w) = 2^-length exactly under these topics, whatever the draws of theta
    assert np.allclose(first["estimates"], [3 * np.log(0.5), 2 * np.log(0.5)], rtol=0, atol=1e-12)
    again = run()
    assert again["names"] == [] and again["estimates"] == first["estimates"]


@numba.njit(parallel=True, nogil=True)
def _take_items(n_items, taken, counter):
    for _ in numba.prange(numba.get_num_threads()):
        i = next_item(counter)
        while i < n_items:
            taken[i] += 1
            i = next_item(counter)


def test_compiled_next_item_hands_out_every_item_exactly_once_across_threads():
    from tealeaves._threads import numba_threads

    taken, counter = np.zeros(10_000, dtype=np.int64), np.zeros(1, dtype=np.int64)
    with numba_threads(2) as used:
        _take_items(len(taken), taken, counter)
    assert (taken == 1).all()  # no item skipped, none taken twice
    assert counter[0] == len(taken) + used  # each thread's final, failed take also counted
