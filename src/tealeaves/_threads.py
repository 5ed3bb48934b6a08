"""Threads that share one computation: one Gibbs chain, one held-out estimate, one coherence call.

``n_threads`` (``--n-threads``) is distinct from ``n_jobs`` (``-j``): ``n_jobs`` runs
independent jobs (models of a sweep, chains, shards) in separate processes; ``n_threads`` puts
several cores on *one* job, through numba's thread pool.  ``None`` means every core this process
may use (its CPU affinity, capped by numba's pool size).

A computation states in its signature how many threads it used wherever the thread count can
change the numbers (the approximate parallel Gibbs chain of Newman et al. 2009); estimators whose
random streams are drawn per document give the same numbers for any thread count.

>>> N_THREADS.flag
'--n-threads'
>>> resolve_threads(1)
1
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from tealeaves._params import Param

if TYPE_CHECKING:
    import numpy as np

#: The declaration shared by every function and command that takes ``n_threads``.
#: The most threads one computation may ask for.  More than the cores are allowed (the result is that
#: of a machine with that many), but one Gibbs chain on ``P`` threads plans ``4 P x P`` blocks and its
#: threads wait for one another at each: on 2 cores a sweep of a 9-token corpus took 0.4 s at 64
#: threads, 2.7 s at 128 and 31.6 s at 512.
MAX_THREADS = 256

N_THREADS = Param("n_threads", "int", min_value=1, max_value=MAX_THREADS,
                  help=f"threads working on one computation, 1 to {MAX_THREADS} (default: every core this "
                       "process may use)")


def available_cores() -> int:
    """The number of cores this process may run on (its CPU affinity where the system has one).

    Returns
    -------
    int
        At least 1.
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def resolve_threads(n_threads: int | None) -> int:
    """The thread count to use: ``n_threads`` checked, or every available core for ``None``.

    Parameters
    ----------
    n_threads : int or None
        Threads asked for (>= 1), or ``None`` for :func:`available_cores`.  A count above the
        available cores is allowed (the work is still split that many ways, so the result is
        the same as on a machine with that many cores); it is capped only by numba's pool size
        when the threads are started (:func:`numba_threads`).

    Returns
    -------
    int
        The thread count.

    Raises
    ------
    ParameterError
        When ``n_threads`` is not a whole number >= 1.
    """
    if n_threads is None:
        return available_cores()
    return N_THREADS.check(n_threads)


@contextlib.contextmanager
def numba_threads(n_threads: int) -> Iterator[int]:
    """Run the enclosed numba-parallel code on ``n_threads`` threads (at most numba's pool size).

    Parameters
    ----------
    n_threads : int
        Threads wanted (already resolved by :func:`resolve_threads`).

    Yields
    ------
    int
        The threads actually used: ``min(n_threads, numba.config.NUMBA_NUM_THREADS)``.
    """
    import numba

    previous = numba.get_num_threads()
    used = max(1, min(int(n_threads), numba.config.NUMBA_NUM_THREADS))
    numba.set_num_threads(used)
    try:
        yield used
    finally:
        numba.set_num_threads(previous)


def part_pool(n_parts: int):
    """A pool of ``n_parts - 1`` threads of its own, for one caller's :func:`run_parts`.

    Parts that wait for one another (at a barrier) need workers that run nothing else: in a pool
    shared by two callers (two chains sampled at once by ``n_jobs`` threads, each on ``n_threads``
    threads), each caller's first parts could take the workers and wait for ever for its other
    parts, queued behind the other caller's.

    Parameters
    ----------
    n_parts : int
        The parts of each :func:`run_parts` call (>= 1).

    Returns
    -------
    concurrent.futures.ThreadPoolExecutor or None
        ``None`` for one part (it runs in the calling thread).
    """
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(n_parts - 1, thread_name_prefix="tealeaves-part") if n_parts > 1 else None


def run_parts(task: Callable[[int], object], n_parts: int, pool) -> None:
    """``task(0)`` to ``task(n_parts - 1)`` at once: part 0 in the calling thread, the others in ``pool``.

    For compiled kernels that release the GIL (``nogil=True``) and each work on their own part of one
    computation (a Gibbs chain's blocks of documents), started and joined many times a second.  Plain
    threads rather than a numba ``prange``: numba's OpenMP layer (GNU libgomp) keeps a finished or
    waiting thread spinning on the CPU for a while (``GOMP_SPINCOUNT``) after each parallel region,
    and a kernel started from a new thread (:func:`tealeaves._interrupt.call`'s helper) gets a new
    team of threads; with several regions a sweep, on a busy machine the spinning threads took the
    cores the working ones needed (docs/models-gibbs.md).  Pool threads wait on a lock, not on the CPU.

    Parameters
    ----------
    task : callable
        Called with the part index; its result is ignored.
    n_parts : int
        How many parts (>= 1); ``n_parts - 1`` pool threads help the calling thread.
    pool : concurrent.futures.ThreadPoolExecutor or None
        The caller's own pool (:func:`part_pool`); unused for one part.

    Raises
    ------
    Exception
        The first exception a part raised (after every part has ended).
    """
    if n_parts <= 1:
        task(0)
        return
    futures = [pool.submit(task, p) for p in range(1, n_parts)]
    try:
        task(0)
    finally:
        for future in futures:
            future.exception()  # wait for every part: they write arrays the caller owns
    for future in futures:
        future.result()


def longest_first(sizes) -> np.ndarray:
    """The order in which threads should take pieces of work: largest first, ties by index.

    Threads that take the next piece as they finish end together when the largest pieces go first
    (Graham's 1969 longest-processing-time-first rule); started last, a long piece leaves one thread
    working alone at the end (the held-out estimators' documents, whose cost grows with their
    length, quadratically for left-to-right).  The coherence kernels take their words in this order
    too (:func:`tealeaves.coherence._kernels.dense_slots`).  Sorted by NumPy, so no kernel compiles a
    sort (numba's argsort alone takes seconds to compile on first use).

    Parameters
    ----------
    sizes : array-like
        Each piece's size (or cost estimate).

    Returns
    -------
    numpy.ndarray
        The piece indices (int64), largest first.
    """
    import numpy

    values = numpy.asarray(sizes)
    if values.dtype.kind != "f":
        values = values.astype(numpy.int64)  # unsigned sizes would wrap when negated
    return numpy.argsort(-values, kind="stable").astype(numpy.int64, copy=False)
