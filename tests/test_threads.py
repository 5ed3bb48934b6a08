"""``tealeaves._threads``: parts of one computation on plain threads, and the longest-first order."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from tealeaves._threads import longest_first, part_pool, run_parts


def test_threads_longest_first_worked_example():
    # sizes 3, 9, 3, 1, 9: the two 9s first (by index), then the two 3s, then the 1
    np.testing.assert_array_equal(longest_first([3, 9, 3, 1, 9]), [1, 4, 0, 2, 3])
    assert longest_first(np.zeros(0)).tolist() == []


@pytest.mark.parametrize("n_parts", [1, 2, 5])
def test_threads_run_parts_runs_every_part_once_part_zero_in_the_caller(n_parts):
    seen, lock = [], threading.Lock()

    def task(p):
        with lock:
            seen.append((p, threading.current_thread() is threading.main_thread()))

    pool = part_pool(n_parts)
    run_parts(task, n_parts, pool)
    assert sorted(p for p, _ in seen) == list(range(n_parts))
    assert (pool is None) == (n_parts == 1)
    assert [main for p, main in seen if p == 0] == [True]


def test_threads_run_parts_waits_for_every_part_then_raises():
    done = []

    def task(p):
        if p == 1:
            raise ValueError("part 1")
        done.append(p)

    with pytest.raises(ValueError, match="part 1"), part_pool(3) as pool:
        run_parts(task, 3, pool)
    assert sorted(done) == [0, 2]
