"""Ctrl-C inside compiled kernels: one stop flag the kernels read, and the calls that honour it.

Python runs its signal handlers only in the main thread, between two bytecodes.  A numba kernel
called from the main thread therefore holds off Ctrl-C until it returns: minutes, for an estimator
over thousands of documents.  The machinery here lets a long kernel stop within a fraction of a
second and the command end with exit status 130:

* **One stop flag** (:func:`flag`): a one-byte NumPy array passed to every long kernel, which
  reads it with an atomic load (:func:`tealeaves._compiled.stop_requested`) between
  units of work (a document, a sample, a particle, a temperature) and returns early when it is
  set.  A kernel that stopped returns unfinished arrays; its caller never uses them:
  :func:`call` raises :class:`KeyboardInterrupt` instead.
* **The main thread stays free** (:func:`call`): called from the main thread, a kernel runs in a
  helper thread (every long kernel releases the GIL, ``nogil=True``) while the main thread waits,
  so the main thread still runs Python's SIGINT handler; the resulting
  :class:`KeyboardInterrupt` sets the flag, waits for the kernel to return, and propagates.
  Called from another thread (chains sampled by a thread pool), the kernel runs where it is
  called, and the flag is set by the handler of :func:`sigint_sets_flag`.
* **The handler** (:func:`sigint_sets_flag`, installed by the command line around every
  command and by thread pools that run kernels): on SIGINT it sets the flag, so kernels in any
  thread stop, then calls the previous handler (Python's raises :class:`KeyboardInterrupt`).

Why not a flag set from a C-level signal handler, or kernels run in chunks from Python?  A C
handler would replace Python's (no :class:`KeyboardInterrupt` any more) and cannot safely touch
Python objects; chunks would need every kernel's random stream and running totals to survive
between calls.  The flag costs one relaxed atomic load per unit of work, and the helper thread
one thread start per call (about 0.1 ms).  numba's threading layers are unaffected: a
``parallel=True`` kernel started from the helper thread runs its ``prange`` on numba's pool as
from any thread, and each ``prange`` iteration reads the flag.

The flag is sticky: once set it stays set until the next kernel call from the main thread (a new
request) or the next :func:`sigint_sets_flag` block, so a thread pool draining its queue after
Ctrl-C finds it set and stops at once.

**Never inside an import or numba's machinery.**  A :class:`KeyboardInterrupt` raised while a
compiled extension module initialises (NumPy's random generators, SciPy: the command line imports
them lazily, in its first second) can become an ``ImportError`` that the importing library catches,
so the Ctrl-C is lost and the command runs to its end, or leave the extension half-initialised, so
the process later dies by a signal.  Raised inside numba's dispatcher, cache or compiler (code that
C calls back into: unpickling a cached kernel, llvmlite's object-cache callback), it crashes the
process (SIGSEGV) or is swallowed as "Exception ignored".  The handlers here therefore look at the
interrupted stack: when it is in such code (:func:`unsafe_to_raise`), they deliver SIGINT to the
process again :data:`REDELIVER_AFTER` seconds later instead of raising, until it lands elsewhere.
A Ctrl-C during a kernel's first compilation thus takes effect when the compilation ends (seconds,
once: compiled kernels are cached).  A :class:`KeyboardInterrupt` that a finaliser swallows anyway
(``__del__``, a weak-reference callback) is delivered again the same way (:func:`sigint_sets_flag`).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tealeaves._docs import shared_doc

#: The one line the command line prints (after ``tealeaves: error: ``) when Ctrl-C ends a command.
MESSAGE = "interrupted (Ctrl-C); nothing was left half-written"

#: Seconds after which a SIGINT that landed where raising is unsafe is delivered to the process again.
REDELIVER_AFTER = 0.02

_FLAG = None


def flag():
    """The process's stop flag: a one-byte ``uint8`` NumPy array, 1 once a stop was requested.

    Returns
    -------
    numpy.ndarray
        The flag (the same array for the process's whole life), to pass to a kernel.
    """
    global _FLAG
    if _FLAG is None:
        import numpy as np

        _FLAG = np.zeros(1, dtype=np.uint8)
    return _FLAG


def requested() -> bool:
    """Whether a stop was requested (Ctrl-C) since the flag was last cleared.

    Returns
    -------
    bool
        The flag's state.
    """
    return _FLAG is not None and bool(_FLAG[0])


def request() -> None:
    """Set the stop flag: every kernel reading it returns at its next check."""
    flag()[0] = 1


def clear() -> None:
    """Clear the stop flag (a new request begins)."""
    flag()[0] = 0


def check() -> None:
    """In a thread other than the main one, raise :class:`KeyboardInterrupt` when a stop was requested.

    For Python loops that call kernels from pool threads, where Python never raises
    :class:`KeyboardInterrupt`.  In the main thread it does nothing: Python raises the interrupt
    there itself, and a flag left set by an earlier interrupt must not stop a new request.

    Raises
    ------
    KeyboardInterrupt
        When the flag is set (outside the main thread).
    """
    if requested() and threading.current_thread() is not threading.main_thread():
        raise KeyboardInterrupt


def from_ctrl_c(exc: BaseException) -> bool:
    """Whether ``exc`` is a :class:`SystemError` that a Ctrl-C caused.

    A SIGINT that lands while numba's dispatcher unpickles or runs a compiled function surfaces as
    ``SystemError: ... returned a result with an exception set``, whose chain of causes ends in the
    :class:`KeyboardInterrupt`.

    Parameters
    ----------
    exc : BaseException
        The exception caught.

    Returns
    -------
    bool
        True when it is a ``SystemError`` with a :class:`KeyboardInterrupt` among its causes.
    """
    seen = 0
    cause = exc.__cause__ if isinstance(exc, SystemError) else None
    while cause is not None and seen < 100:
        if isinstance(cause, KeyboardInterrupt):
            return True
        cause, seen = cause.__cause__ or cause.__context__, seen + 1
    return False


@shared_doc
def direct(kernel: Callable[..., Any], *args: Any) -> Any:
    """``kernel(*args)`` in the calling thread, with a Ctrl-C that lands in it raised as what it is.

    A ``SystemError`` caused by a Ctrl-C (:func:`from_ctrl_c`) is re-raised as
    :class:`KeyboardInterrupt`, so the caller's clean-up and the command line's interrupt message
    apply.  For kernels that take a stop flag and may run long, use :func:`call`.

    Parameters
    ----------
    kernel : callable
        A compiled function.
    *args
        Its arguments.

    Returns: %(returns_kernel)s

    Raises
    ------
    KeyboardInterrupt
        When Ctrl-C landed during the call.
    """
    try:
        return kernel(*args)
    except SystemError as exc:
        if from_ctrl_c(exc):
            raise KeyboardInterrupt from None
        raise


@shared_doc
def call(kernel: Callable[..., Any], *args: Any, short: bool = False) -> Any:
    """``kernel(*args, flag())``, stopped cleanly by Ctrl-C (see the module docstring).

    From the main thread the flag is cleared (a new request) and the kernel runs in a helper
    thread while the main thread waits, free to take SIGINT; the :class:`KeyboardInterrupt` sets the
    flag, the kernel returns at its next check, and the interrupt propagates.  From another thread,
    or when the caller knows the work is ``short`` (milliseconds: not worth a thread start), the
    kernel runs in place.

    Parameters
    ----------
    kernel : callable
        A compiled kernel (``nogil=True``) whose last parameter is the stop flag.
    *args
        Its other arguments.
    short : bool, default False
        Run in the calling thread even from the main thread (Ctrl-C then waits for the kernel).

    Returns: %(returns_kernel)s

    Raises
    ------
    KeyboardInterrupt
        When a stop was requested while the kernel ran (its unfinished result is dropped).
    """
    stop = flag()
    main = threading.current_thread() is threading.main_thread()
    if main:
        stop[0] = 0
    if short or not main:
        result = kernel(*args, stop)
        if stop[0]:
            raise KeyboardInterrupt
        return result
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = kernel(*args, stop)
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc

    helper = threading.Thread(target=target, name="tealeaves-kernel", daemon=True)
    helper.start()
    try:
        while helper.is_alive():
            helper.join(0.25)
    except KeyboardInterrupt:
        stop[0] = 1
        _join_uninterrupted(helper)
        raise
    if "error" in box:
        raise box["error"]
    if stop[0]:  # set by the handler of sigint_sets_flag as the kernel returned
        raise KeyboardInterrupt
    return box["result"]


def _join_uninterrupted(thread: threading.Thread) -> None:
    """Wait for ``thread`` to end, through further Ctrl-C (the kernel still reads arrays we own)."""
    while thread.is_alive():
        try:
            thread.join(0.25)
        except KeyboardInterrupt:
            pass


def unsafe_to_raise(frame: Any) -> bool:
    """Whether an exception must not be raised in ``frame``: an import or numba's machinery runs.

    Parameters
    ----------
    frame : frame or None
        The frame a signal handler received.

    Returns
    -------
    bool
        True when a frame of ``importlib._bootstrap`` (or ``_bootstrap_external``), numba or llvmlite
        is on the stack (see the module docstring).
    """
    roots = tuple(os.path.dirname(module.__file__) + os.sep for name in ("numba", "llvmlite")
                  if (module := sys.modules.get(name)) is not None and getattr(module, "__file__", None))
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith("<frozen importlib._bootstrap") or name.startswith(roots):
            return True
        frame = frame.f_back
    return False


def redeliver(signum: int = signal.SIGINT) -> None:
    """Send ``signum`` to this process again :data:`REDELIVER_AFTER` seconds from now (a daemon timer).

    Parameters
    ----------
    signum : int, default SIGINT
        The signal.
    """
    timer = threading.Timer(REDELIVER_AFTER, os.kill, (os.getpid(), signum))
    timer.daemon = True
    timer.start()


@shared_doc
def deferred(signum: int, frame: Any) -> bool:
    """In a signal handler: when raising is unsafe (:func:`unsafe_to_raise`), send ``signum`` again shortly.

    The handler that receives the signal again decides again (see the module docstring).

    Parameters
    ----------
    %(signal_signum)s %(signal_frame)s

    Returns
    -------
    bool
        True when the signal was deferred (the handler must then do nothing more).
    """
    if not unsafe_to_raise(frame):
        return False
    redeliver(signum)
    return True


@shared_doc
def raise_when_safe(signum: int, frame: Any) -> None:
    """SIGINT handler: Python's (raise :class:`KeyboardInterrupt`), deferred where that is unsafe.

    Installed by ``python -m tealeaves`` before it imports the command line.

    Parameters
    ----------
    %(signal_signum)s %(signal_frame)s

    Raises
    ------
    KeyboardInterrupt
        Unless raising is unsafe (:func:`unsafe_to_raise`).
    """
    if not deferred(signum, frame):
        signal.default_int_handler(signum, frame)


@contextmanager
def sigint_sets_flag() -> Iterator[None]:
    """Within the block, SIGINT sets the stop flag, then runs the handler that was installed before.

    Installed only from the main thread (the only one Python lets set handlers) and only over a
    Python-level handler (Python's default raises :class:`KeyboardInterrupt`); an ignored SIGINT
    (``nohup``, a background job) stays ignored.  The flag is cleared on entry.  A SIGINT that
    lands where raising is unsafe is delivered again later (:func:`deferred`), and so is one that a
    finaliser swallowed (the block's ``sys.unraisablehook`` sees it).

    Yields
    ------
    None
        The block runs with the handler installed.
    """
    main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGINT) if main else None
    if not callable(previous) or getattr(previous, "_sets_stop_flag", False):
        yield
        return
    clear()

    def handler(signum, frame):
        if deferred(signum, frame):
            return
        request()
        previous(signum, frame)

    handler._sets_stop_flag = True
    hook = sys.unraisablehook

    def unraisable(info: Any) -> None:  # a KeyboardInterrupt raised in a finaliser is swallowed there
        if isinstance(info.exc_value, KeyboardInterrupt):
            redeliver()
        else:
            hook(info)

    signal.signal(signal.SIGINT, handler)
    sys.unraisablehook = unraisable
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if sys.unraisablehook is unraisable:
            sys.unraisablehook = hook


@contextmanager
def workers_ignore_sigint() -> Iterator[None]:
    """Worker processes spawned in the block start with SIGINT ignored; a Ctrl-C meanwhile is raised after it.

    Used where a command starts worker processes (``sweep -j``'s process pool, the local Dask
    cluster of ``index build -j``): a Ctrl-C at the terminal reaches the whole process group, and
    it is the main process's to handle, by stopping its workers.

    A Python started with SIGINT ignored installs no KeyboardInterrupt handler, so a Ctrl-C (sent to the
    whole process group) cannot interrupt a worker's start-up with a traceback; the main process handles
    it and stops the workers.  SIGINT is ignored (blocked, when the spawning thread is not the main
    thread) only around each fork-and-exec (``multiprocessing.util.spawnv_passfds``), microseconds.
    Within the block a Ctrl-C is only noted, and handled on leaving it, once every worker is
    started and known to the pool (an interrupted start would
    leave a worker reading half its data, outside the pool's reach).

    Yields
    ------
    None
        Inside the block, worker processes are spawned with SIGINT ignored.
    """
    from multiprocessing import util

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous, noted = signal.getsignal(signal.SIGINT), []
    signal.signal(signal.SIGINT, lambda signum, frame: noted.append((signum, frame)))
    spawn = util.spawnv_passfds

    def spawn_ignoring(*args, **kwargs):
        if threading.current_thread() is not threading.main_thread():  # e.g. Dask's event-loop thread
            blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # the child inherits it
            try:
                return spawn(*args, **kwargs)
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            return spawn(*args, **kwargs)
        finally:
            signal.signal(signal.SIGINT, handler)

    util.spawnv_passfds = spawn_ignoring
    try:
        yield
    finally:
        util.spawnv_passfds = spawn
        signal.signal(signal.SIGINT, previous)
        if noted and callable(previous):
            previous(*noted[0])  # the Ctrl-C of the block: KeyboardInterrupt (and the stop flag) now
