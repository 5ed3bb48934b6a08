"""The memory budget of a streamed or sharded build (``--memory``; ``docs/scale.md``).

A build holds one chunk of documents at a time; :func:`chunk_tokens_for` sizes the chunk so that
the process stays inside its budget, and :func:`parse_memory` / :func:`check_memory` refuse a
budget the machine (or a container's limit) cannot give.
"""

from __future__ import annotations

import ctypes
import functools
import os
import platform
import sys
from pathlib import Path

import numpy as np

from tealeaves.errors import ParameterError, naming

#: Default memory budget of a build (bytes).
DEFAULT_MEMORY = 1 << 30
#: Memory a build process holds besides its chunk (interpreter, numpy, numba, stop words...).
BASELINE_BYTES = 300 << 20
#: Bytes per token of a chunk while it is indexed (token ids, positions, postings, pointers, slack).
BYTES_PER_TOKEN = 40
#: Bytes per distinct word of a chunk's own word table (a dictionary entry and the word's string).
CHUNK_WORD_BYTES = 160
#: Smallest accepted budget.
MIN_MEMORY = 400 << 20
#: Largest budget of a local build where the system does not report its physical memory (1 TiB).
FALLBACK_CEILING = 1 << 40
#: A container's memory limit (cgroup v2, then v1), when lower than the physical memory.
CGROUP_LIMITS = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")


def physical_memory() -> tuple[int, str]:
    """``(bytes, what)``: the memory a build on this machine can use: its physical memory
    (``os.sysconf``), or a container's cgroup limit (:data:`CGROUP_LIMITS`) when that is lower (as
    Dask bounds its workers); :data:`FALLBACK_CEILING` where the system reports neither.

    Returns
    -------
    bytes : int
        The memory a build may use.
    what : str
        Where the number comes from (for messages).
    """
    try:
        found = [(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"), "this machine's physical memory")]
    except (AttributeError, ValueError, OSError):
        found = []
    for path in CGROUP_LIMITS:
        try:
            text = Path(path).read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            continue
        if text.isdigit():  # "max": no limit
            found.append((int(text), "this container's memory limit"))
    found = [f for f in found if f[0] > 0]
    return min(found) if found else (FALLBACK_CEILING, "the ceiling of a system that reports no memory size")


def size_text(n: int) -> str:
    """Bytes in binary units as ``--memory`` reads them: ``1073741824`` -> ``'1 GiB'``, ``'23.5 GiB'``,
    ``'1000 MiB'`` (three significant digits, never an exponent).

    Parameters
    ----------
    n : int
        A number of bytes.

    Returns
    -------
    str
        The size in binary units.
    """
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            text = f"{n / (1 << shift):.3g}"
            return f"{text if 'e' not in text else f'{n / (1 << shift):.0f}'} {unit}"
    return f"{n} bytes"


def parse_memory(text: str, local: bool = True, minimum: int = MIN_MEMORY) -> int:
    """The memory budget of ``--memory`` (every command that has it): bytes from ``"1G"``, ``"512M"``,
    ``"2.5GB"``, ``"800MiB"`` or a plain number of bytes (binary units).

    Bounds (``docs/scale.md``): at least :data:`MIN_MEMORY` (400 MiB: the baseline of a build process
    plus a useful chunk) and, for a build on this machine (``local``: in this process or on
    ``--n-jobs``), at most its physical memory (:func:`check_local_budget`): a chunk sized for more
    memory than there is would swap or be killed, not be bounded.  A build on ``--scheduler`` is bounded
    by its workers' memory limits instead (:func:`tealeaves.index.dask.dask_client`).

    Parameters
    ----------
    text : str
        The size, as written on the command line.
    local : bool
        The build runs on this machine (in this process or on ``--n-jobs`` local workers).
    minimum : int
        The smallest budget (a build's :data:`MIN_MEMORY`; ``tealeaves coherence`` checks its own).

    Returns
    -------
    int
        The budget in bytes.
    """
    s = str(text).strip().upper().removesuffix("IB").removesuffix("B")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(s[-1:], 1)
    number = s[:-1] if s[-1:] in "KMGT" and s else s
    try:
        value = float(number) * scale
    except ValueError:
        value = float("nan")
    if not np.isfinite(value):
        raise naming(ParameterError(f"memory {text!r} is not a size", fix="give e.g. 1G, 512M or 2.5G"),
                     "memory")
    if value < minimum:
        raise naming(ParameterError(f"memory {text!r} is below the smallest budget ({size_text(minimum)})",
                                    fix=f"give at least {_at_least(minimum)}"), "memory")
    if local:
        check_local_budget(int(value), label=f"memory {text!r}")
    return int(value)


def check_local_budget(memory: int, processes: int = 1, label: str | None = None) -> int:
    """Refuse a budget of ``processes`` build processes on this machine above its memory
    (:func:`physical_memory`; ``label`` names the value in the message, default ``memory=<bytes>``, the
    API's argument).

    Parameters
    ----------
    memory : int
        The budget of each process, in bytes.
    processes : int
        The number of build processes on this machine.
    label : str, optional
        How the value is named in the message.

    Returns
    -------
    int
        ``memory``.
    """
    ceiling, what = physical_memory()
    if memory * processes <= ceiling:
        return memory
    given, most = label or f"memory={memory}", f"{what} ({size_text(ceiling)})"
    if ceiling < MIN_MEMORY:  # no budget fits: the advice must not be a size the parser refuses
        fix = (f"a build process needs at least {size_text(MIN_MEMORY)}: build on a larger machine",
               "on an existing Dask cluster (`scheduler`)")
    elif processes == 1:
        fix = f"give at most {ceiling >> 20}M: the budget bounds the memory of each build process"
    elif ceiling // processes < MIN_MEMORY:
        fix = (f"give at most `n_jobs={ceiling // MIN_MEMORY}` (each needs at least "
               f"{size_text(MIN_MEMORY)})",
               "build on an existing Dask cluster (`scheduler`)")
    else:
        fix = f"give at most {ceiling // processes >> 20}M, or fewer `n_jobs`"
    if processes == 1:
        raise naming(ParameterError(f"{given} is more than {most}", fix=fix), "memory", "scheduler")
    raise naming(ParameterError(f"{given} for each of `n_jobs={processes}` is "
                                f"{size_text(memory * processes)} in all, more than {most}", fix=fix),
                 "memory", "n_jobs", "scheduler")


def check_memory(memory: object, local: bool = True) -> int:
    """The ``memory`` argument of the build functions: a whole number of bytes >= :data:`MIN_MEMORY`
    and, for a build on this machine (``local``), at most its physical memory.

    Parameters
    ----------
    memory : object
        The ``memory`` argument.
    local : bool
        The build runs on this machine.

    Returns
    -------
    int
        The budget in bytes.
    """
    from tealeaves.validation import check_int

    memory = check_int(memory, "memory", min_value=MIN_MEMORY)
    return check_local_budget(memory) if local else memory


@functools.cache
def _malloc_trim():
    """glibc's ``malloc_trim``, or ``None`` where the C library is not glibc (macOS, Windows, musl)."""
    if not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc":
        return None
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


def release_freed_memory() -> None:
    """Give back to the system the memory the C allocator keeps after it was freed (glibc's
    ``malloc_trim(0)``; nothing elsewhere).

    glibc raises its threshold for serving allocations from fresh memory maps each time a large block
    is freed (up to 32 MiB on 64-bit systems), so after the first chunk most of a chunk's arrays come
    from the heap and stay in the process once freed: the memory a build had at the peak of its
    largest chunk would stay beside the merge's word tables. A build calls this after each chunk and
    before its merge.
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def chunk_tokens_for(memory: int) -> int:
    """Tokens per chunk so that one chunk being indexed stays inside ``memory``.

    Parameters
    ----------
    memory : int
        The budget of the build process, in bytes.

    Returns
    -------
    int
        Tokens per chunk (at least 65,536).
    """
    return max(1 << 16, (memory - BASELINE_BYTES) // BYTES_PER_TOKEN)



#: Smallest block of output the merge writes at a time (its buffer is ``memory // 8`` where that fits).
MIN_MERGE_BUFFER = 16 << 20


def check_merge_memory(memory: int, tables: int) -> int:
    """The output the merge may hold at a time beside its word tables (``tables`` bytes,
    :func:`~tealeaves.index.wordtable.word_table_bytes`) and the process's baseline under the budget
    ``memory``: ``memory // 8``, less where the tables leave less room, and at least
    :data:`MIN_MERGE_BUFFER`; refused when even that does not fit.

    Parameters
    ----------
    memory : int
        The budget of the build process, in bytes.
    tables : int
        Bytes of the merge's word tables.

    Returns
    -------
    int
        Output bytes per block of the merge.

    Raises
    ------
    ParameterError
        Naming the smallest budget that holds the tables.
    """
    room = memory - BASELINE_BYTES - tables
    if room >= MIN_MERGE_BUFFER:
        return max(MIN_MERGE_BUFFER, min(memory // 8, room))
    least = -(-(memory - room + MIN_MERGE_BUFFER) // (1 << 20))
    message = (f"memory {size_text(memory)} cannot hold the merge of this build's vocabulary: its word "
               f"tables take {size_text(tables)}, so the build needs at least {size_text(least << 20)}")
    raise naming(ParameterError(message, fix=f"give at least {least}M"), "memory")


def _at_least(n: int) -> str:
    """``n`` bytes rounded up to the unit a user would type: ``"1K"``, ``"64M"``, ``"2G"``."""
    for shift, unit in ((30, "G"), (20, "M"), (10, "K")):
        if n >= 1 << shift:
            return f"{-(-n // (1 << shift))}{unit}"
    return f"{max(n, 1)}"
