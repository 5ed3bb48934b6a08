"""The kernels' side of :mod:`tealeaves._interrupt`: reading the stop flag from compiled code.

A kernel receives the flag (a one-byte ``uint8`` array, :func:`tealeaves._interrupt.flag`) as an
argument and calls :func:`stop_requested` between units of work.  The read is an atomic
(``monotonic``, i.e. relaxed) load: LLVM may neither hoist it out of the loop nor fold repeated
reads into one, as it could with a plain load in a loop that writes no memory it knows to alias
the flag, so a flag set by another thread is seen at the next check.  A relaxed load compiles to
a plain byte load on x86-64 and AArch64: the check costs about one cycle.
"""

from __future__ import annotations

import numba
from numba.core import types
from numba.extending import intrinsic


@intrinsic
def _load_relaxed(typingctx, arr):
    """``arr[0]`` of a ``uint8`` array by an atomic relaxed load (LLVM ``load atomic monotonic``)."""
    if not (isinstance(arr, types.Array) and arr.dtype == types.uint8):
        return None
    sig = types.uint8(arr)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        return builder.load_atomic(ary.data, "monotonic", 1)

    return sig, codegen


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

