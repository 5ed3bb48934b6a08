"""What every module of compiled (numba) kernels imports: reading the stop flag, and the compile notice.

**The stop flag.**  A kernel receives the flag (a one-byte ``uint8`` array,
:func:`tealeaves._interrupt.flag`) as an argument and calls :func:`stop_requested` between units of
work.  The read is an atomic (``monotonic``, i.e. relaxed) load: LLVM may neither hoist it out of
the loop nor fold repeated reads into one, as it could with a plain load in a loop that writes no
memory it knows to alias the flag, so a flag set by another thread is seen at the next check.  A
relaxed load compiles to a plain byte load on x86-64 and AArch64: the check costs about one cycle.

**The compile notice.**  numba compiles a kernel the first time it is called with given argument
types, then keeps the machine code in its on-disk cache (``cache=True``), so only the first use
after an install (or an upgrade) pays for it, seconds per command.  Importing this module registers
a listener of numba's ``numba:compile`` event, which numba fires only when it really compiles (a
kernel loaded from the cache fires none): the first time in a process, it writes
:data:`NOTICE` on standard error if standard error is a terminal, so a user knows why the first
call is slow; logs and pipes stay clean.

**Keeping the first call short.**  What a call compiles is what it runs: numba compiles a kernel on
its first call (no signature is given, so nothing is compiled at import), and a
:class:`~tealeaves.coherence._kernels.ThreadedKernel` compiles only the variant (serial or
parallel) that the work asks for, and each held-out estimator has its own kernel
(:func:`tealeaves.likelihood._kernels._kernel`), so the first call of one compiles none of the
others (a cold ``perplexity --method is`` or ``left-to-right`` about 5 s CPU instead of 21-22 s).
Inside a kernel, some NumPy functions cost far more to compile than the loops around them, once per
process and per argument type: ``np.argsort`` 2-3 s (each ``kind``), ``np.searchsorted`` and
``ndarray.max()`` about 0.8 s each, an array slice assignment ``a[:] = b`` about 1.7 s (its shape
check formats an error message), ``reshape`` over a second (numba 0.68 on the development machine;
the first three timed alone, the slice assignment from numba's compile events, ``reshape`` under a
profiler).  Kernels therefore take orders sorted by NumPy as arguments
(:func:`tealeaves.coherence._kernels.anchor_order`) and write binary searches, maxima and copies as
loops.  Each allocation compiles numba's implementation for its dtype and number of dimensions,
once per process: ``np.empty`` one function, ``np.zeros`` three, ``np.full`` two (0.05-0.15 s each,
0.3-0.6 s per new kind of ``np.zeros``), so the kernels of a first ``coherence`` call (the index
build, :func:`tealeaves.coherence._kernels._dense_doc_kernel`) allocate one-dimensional ``int64``
and ``int32`` arrays by ``np.empty`` and :func:`filled` only, and share that compiled code.
``benchmarks/startup.py --first-call`` prints the compile time of every kernel a cold
``coherence`` call compiles, and ``--estimators METHOD ...`` times a cold ``perplexity`` call.
"""

from __future__ import annotations

import contextlib
import os
import platform
import sys
import threading
from collections.abc import Iterator

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, event, types
from numba.extending import intrinsic

from tealeaves._progress import is_terminal

#: The line written on a terminal when numba starts compiling for the first time in a process.
NOTICE = "tealeaves: preparing compiled code on first use (cached for later runs) ..."


def _first_element_intrinsic(dtype, emit):
    """An intrinsic of a ``dtype`` array: ``emit(context, builder, pointer to arr[0])``, a ``dtype`` value."""
    def typer(typingctx, arr):
        if not (isinstance(arr, types.Array) and arr.dtype == dtype):
            return None

        def codegen(context, builder, signature, args):
            ary = context.make_array(signature.args[0])(context, builder, args[0])
            return emit(context, builder, ary.data)

        return dtype(arr), codegen

    return intrinsic(typer)


#: ``arr[0]`` of a ``uint8`` array by an atomic relaxed load (LLVM ``load atomic monotonic``).
_load_relaxed = _first_element_intrinsic(
    types.uint8, lambda context, builder, ptr: builder.load_atomic(ptr, "monotonic", 1))

#: ``arr[0] += 1`` of an ``int64`` array by an atomic read-modify-write (LLVM ``atomicrmw add``),
#: returning the old value.
_fetch_add_one = _first_element_intrinsic(
    types.int64,
    lambda context, builder, ptr: builder.atomic_rmw("add", ptr, context.get_constant(types.int64, 1),
                                                     "monotonic"))


def _slot(context, builder, signature, args):
    """The pointer to ``arr[i]`` of an intrinsic's first two arguments (an ``int64`` array, an index)."""
    ary = context.make_array(signature.args[0])(context, builder, args[0])
    index = context.cast(builder, args[1], signature.args[1], types.intp)
    return builder.gep(ary.data, [index])


def _is_int64_array(arr) -> bool:
    return isinstance(arr, types.Array) and arr.dtype == types.int64


@intrinsic
def _load_acquire(typingctx, arr, index):
    """``arr[index]`` of an ``int64`` array by an atomic acquire load."""
    if not _is_int64_array(arr):
        return None

    def codegen(context, builder, signature, args):
        return builder.load_atomic(_slot(context, builder, signature, args), "acquire", 8)

    return types.int64(arr, index), codegen


@intrinsic
def _store_release(typingctx, arr, index, value):
    """``arr[index] = value`` of an ``int64`` array by an atomic release store."""
    if not _is_int64_array(arr):
        return None

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[2], signature.args[2], types.int64)
        builder.store_atomic(value, _slot(context, builder, signature, args), "release", 8)
        return context.get_dummy_value()

    return types.void(arr, index, value), codegen


@intrinsic
def _fetch_add_acq_rel(typingctx, arr, index, value):
    """``arr[index] += value`` of an ``int64`` array by an atomic read-modify-write (acquire and
    release), returning the old value."""
    if not _is_int64_array(arr):
        return None

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[2], signature.args[2], types.int64)
        return builder.atomic_rmw("add", _slot(context, builder, signature, args), value, "acq_rel")

    return types.int64(arr, index, value), codegen


def _call_void(name, constants=()):
    """An intrinsic of no arguments calling the LLVM intrinsic or C function ``name`` with the given
    ``int32`` constants (its ``int32`` result ignored); for ``None``, one that does nothing."""
    def typer(typingctx):
        def codegen(context, builder, signature, args):
            if name is not None:
                fnty = ir.FunctionType(ir.VoidType() if name.startswith("llvm.") else ir.IntType(32),
                                       [ir.IntType(32)] * len(constants))
                fn = cgutils.get_or_insert_function(builder.module, fnty, name)
                builder.call(fn, [ir.Constant(ir.IntType(32), c) for c in constants])
            return context.get_dummy_value()

        return types.void(), codegen

    return intrinsic(typer)


#: Barrier: iterations spent spinning (about 0.3 ms), then yielding (about 1 ms), before sleeping
#: :data:`SLEEP_US` microseconds a time (:func:`barrier_wait`).
SPIN, YIELDS, SLEEP_US = 8000, 2000, 100

_X86 = platform.machine().lower() in ("x86_64", "amd64")
_POSIX = os.name == "posix"

#: The processor's spin-wait hint (x86 ``pause``: the spinning core slows down and leaves the pipeline
#: to a hardware sibling); elsewhere nothing (the atomic load alone keeps the loop honest).
_relax = _call_void("llvm.x86.sse2.pause" if _X86 else None)

#: Give the core to another runnable thread (POSIX ``sched_yield``), or sleep :data:`SLEEP_US`
#: microseconds (POSIX ``usleep``); elsewhere both spin on.
_yield = _call_void("sched_yield" if _POSIX else None)
_sleep = _call_void("usleep" if _POSIX else None, (SLEEP_US,))


@numba.njit(cache=True, nogil=True, inline="always")
def _pause(spins):
    """One wait of a spinning thread that has waited ``spins`` times (:func:`barrier_wait`)."""
    if spins < SPIN:
        _relax()
    elif spins < SPIN + YIELDS:
        _yield()
    else:
        _sleep()


#: The words of a barrier's ``sync`` array (:func:`barrier_wait`): arrivals, generation and abort,
#: 64 bytes apart, so a thread spinning on the generation does not share a cache line with arrivals.
ARRIVED, GENERATION, ABORTED, SYNC_WORDS = 0, 8, 16, 24


def new_barrier():
    """A fresh ``sync`` array for :func:`barrier_wait` (every word 0).

    Returns
    -------
    numpy.ndarray
        ``SYNC_WORDS`` ``int64`` zeros.
    """
    return np.zeros(SYNC_WORDS, dtype=np.int64)


@numba.njit(cache=True, nogil=True)
def barrier_wait(sync, n_parts):
    """Wait until ``n_parts`` threads have called this with ``sync`` (a reusable barrier, in compiled code).

    A generation barrier (Mellor-Crummey and Scott 1991, "Algorithms for scalable synchronization on
    shared-memory multiprocessors", the centralized barrier): each thread reads the generation, then
    counts itself in; the last of the ``n_parts`` resets the count and advances the generation, which
    releases the others.  The counts are atomic (acquire and release), so what a thread wrote before
    the barrier is seen by every thread after it.  A waiting thread spins (:data:`SPIN` iterations with
    the processor's pause hint, 0.27 ms on the development machine: most waits end there, without a
    system call), then yields its core (:data:`YIELDS` times, about 1 ms), then sleeps
    :data:`SLEEP_US` microseconds a time, so more threads than cores, or a loaded machine, still
    make progress on POSIX systems (elsewhere it only spins): 7 threads on 2 cores, 0.76 ms a
    barrier; 2 threads on 2 cores arriving together, 0.2 microseconds.  A Python barrier
    (:class:`threading.Barrier`) costs a lock hand-over and the GIL per thread.  ``sync[ABORTED]``
    set (by a thread that failed before its kernel started) releases every waiter at once.

    Parameters
    ----------
    sync : numpy.ndarray
        :func:`new_barrier`'s array, shared by the threads.
    n_parts : int
        The threads that must arrive.

    Returns
    -------
    bool
        False when the barrier was aborted.
    """
    generation = _load_acquire(sync, GENERATION)
    if _fetch_add_acq_rel(sync, ARRIVED, 1) == n_parts - 1:
        _store_release(sync, ARRIVED, 0)
        _store_release(sync, GENERATION, generation + 1)
        return True
    spins = 0
    while _load_acquire(sync, GENERATION) == generation:
        if _load_acquire(sync, ABORTED) != 0:
            return False
        _pause(spins)
        spins += 1
    return True


@numba.njit(cache=True, nogil=True, inline="always")
def next_item(counter):
    """The next item of work for the calling thread: ``counter[0]``, incremented atomically.

    Threads that loop ``i = next_item(counter)`` while ``i < n`` share ``n`` items dynamically:
    each takes the next one when it finishes the last, whatever numba's schedule of the ``prange``
    that started them (which splits a loop's iterations into equal contiguous blocks, even with
    :func:`numba.set_parallel_chunksize`: measured with numba 0.68 and its OpenMP layer).

    Parameters
    ----------
    counter : numpy.ndarray
        A one-element ``int64`` array, 0 at the start, shared by the threads.

    Returns
    -------
    int
        The item's index.
    """
    return _fetch_add_one(counter)


@numba.njit(cache=True, nogil=True, inline="always")
def stop_requested(stop):
    """Whether the stop flag ``stop`` is set (read atomically; see the module docstring).

    Parameters
    ----------
    stop : numpy.ndarray
        The one-byte ``uint8`` flag.

    Returns
    -------
    bool
        True once a stop was requested.
    """
    return _load_relaxed(stop) != 0


@numba.njit(cache=True, nogil=True, inline="always")  # typed in the kernel: no compile of its own
def filled(n, value):
    """``np.full(n, value)`` of ``int64``, by ``np.empty`` and a loop (see the module docstring: a
    kernel that allocates only by ``np.empty`` and this shares their compiled code with the others).

    Parameters
    ----------
    n : int
        The length.
    value : int
        Every element.

    Returns
    -------
    numpy.ndarray
        ``int64`` array of ``n`` times ``value``.
    """
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = value
    return out


#: Held while a ``parallel=True`` kernel runs on numba's ``workqueue`` threading layer (its fallback where
#: neither OpenMP nor TBB loads), which aborts the process ("Concurrent access has been detected") when
#: two Python threads run parallel kernels at once: there they take turns.
_WORKQUEUE_LOCK = threading.Lock()


@contextlib.contextmanager
def parallel_turn() -> Iterator[None]:
    """Context of one call of a ``parallel=True`` kernel: on the ``workqueue`` layer (or before any
    parallel kernel has run, when numba has not chosen its layer yet) the calls of concurrent Python
    threads take turns through :data:`_WORKQUEUE_LOCK`; on OpenMP and TBB they run at once.

    Take it once per kernel call, around the call and nothing else: the lock is not reentrant, so a
    call inside the context that took it again would wait for itself (a compiled kernel cannot call
    back into Python, so a kernel's own work never does).

    Yields
    ------
    None
    """
    try:
        layer = numba.threading_layer()
    except ValueError:  # no parallel kernel has run in this process: the layer is chosen at the first
        layer = None
    if layer in (None, "workqueue"):
        with _WORKQUEUE_LOCK:
            yield
    else:
        yield


class CompileNotice(event.Listener):
    """numba ``numba:compile`` listener writing :data:`NOTICE` once, on a terminal (module docstring).

    Parameters
    ----------
    stream : TextIO or None
        Where to write (default: ``sys.stderr`` at the time of the compile).
    """

    def __init__(self, stream=None):
        self.stream = stream
        self.shown = False
        self._lock = threading.Lock()

    def on_start(self, event) -> None:
        """Write the notice if this is the process's first compile and the stream is a terminal.

        Parameters
        ----------
        event : numba.core.event.Event
            The compile event (unused).
        """
        with self._lock:
            if self.shown:
                return
            self.shown = True
        stream = sys.stderr if self.stream is None else self.stream
        if is_terminal(stream):
            stream.write(NOTICE + "\n")
            stream.flush()

    def on_end(self, event) -> None:
        """Nothing: the notice is written once, when compiling starts.

        Parameters
        ----------
        event : numba.core.event.Event
            The compile event (unused).
        """


#: The process's listener (registered once, when this module is first imported).
NOTICE_LISTENER = CompileNotice()
event.register("numba:compile", NOTICE_LISTENER)


@numba.njit(cache=True, nogil=True, inline="always")
def post(words, index, value):
    """Store ``value`` in ``words[index]`` with release order: what the thread wrote before is seen
    by a thread that reads the word (:func:`wait_at_least`).

    Parameters
    ----------
    words : numpy.ndarray
        Shared ``int64`` words.
    index, value : int
        The word and its new value.
    """
    _store_release(words, index, value)


@numba.njit(cache=True, nogil=True)
def wait_at_least(words, index, value, sync, stop):
    """Wait until ``words[index] >= value`` (acquire), spinning, yielding and sleeping as
    :func:`barrier_wait` does.

    Parameters
    ----------
    words : numpy.ndarray
        Shared ``int64`` words another thread advances with :func:`post`.
    index, value : int
        The word and the value waited for.
    sync : numpy.ndarray
        A barrier's array (:func:`new_barrier`) whose ``ABORTED`` word ends the wait.
    stop : numpy.ndarray
        The stop flag (:func:`stop_requested`), which ends it too.

    Returns
    -------
    bool
        True when the word reached ``value``; False when the wait was aborted or stopped.
    """
    spins = 0
    while _load_acquire(words, index) < value:
        if _load_acquire(sync, ABORTED) != 0 or stop_requested(stop):
            return False
        _pause(spins)
        spins += 1
    return True
