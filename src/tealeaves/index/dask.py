"""The Dask adapter of the index builder: shard tasks on a cluster (``tealeaves index build INPUTS... -j N``).

A thin layer over :mod:`tealeaves.index.streaming`: the same builder runs, only its executor maps
the shard tasks over Dask workers.  Every input shard is one task
(:func:`~tealeaves.index.streaming.index_shard`, and
:func:`~tealeaves.index.streaming.count_shard` first when the recipe
prunes the vocabulary): the worker reads, tokenises and indexes the shard into
partial index files in bounded memory, in a work folder beside the output
(workers and client must therefore share that file system, as the processes
of a ``LocalCluster`` do).  The client then merges the partials in shard order
(:func:`~tealeaves.index.merge.merge_partials`), streamed.

A worker lost while running a shard makes the scheduler run the shard again on
another worker (Dask retries a task whose worker died up to
``distributed.scheduler.allowed-failures`` times, default 3); a shard that
keeps killing its workers fails the build with
``tealeaves: error: a Dask worker died ... (KilledWorker)``.  A merged index is
only written when every shard has returned, so a build is never silently
incomplete.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator

from tealeaves._interrupt import workers_ignore_sigint
from tealeaves._optional import optional_import
from tealeaves._params import Param, renamed_parameters
from tealeaves.errors import ParameterError, TealeavesError, naming
from tealeaves.index.memory import MIN_MEMORY, check_local_budget, size_text

#: Seconds to wait for a scheduler given with --scheduler.
CONNECT_TIMEOUT = 10
#: Worker processes of a local Dask cluster (``-j/--n-jobs``; ``--workers`` is its old spelling).
N_JOBS = Param("n_jobs", "int", min_value=1, max_value=1024, short="-j", deprecated_flags=("--workers",),
               help="build the shards on a local Dask cluster of this many worker processes")


#: Dask's address schemes (``distributed.comm``) a scheduler address may name.
SCHEDULER_SCHEMES = ("tcp", "tls", "inproc", "ws", "wss", "ucx")


def check_scheduler(address: str | None) -> str | None:
    """A Dask scheduler address, ``[scheme://]host:port``, checked in form before any connection.

    A malformed address (no port, a port that is not a number, an unknown scheme, an unclosed IPv6
    bracket) is refused at once instead of after Dask's connection timeouts; whether a scheduler listens
    there is found when connecting.  The one check of ``index build --scheduler`` and ``sweep
    --scheduler``.

    Parameters
    ----------
    address : str or None
        The scheduler's address (``None``: no scheduler).

    Returns
    -------
    str or None
        ``address``.

    Raises
    ------
    ParameterError
        When the address is not of that form or its scheme is not one of :data:`SCHEDULER_SCHEMES`.
    """
    from urllib.parse import urlsplit

    if address is None:
        return None
    if not isinstance(address, str) or not address.strip():
        raise _not_scheduler(address, "give e.g. tcp://10.0.0.5:8786")
    text = address.strip() if "://" in address else f"tcp://{address.strip()}"
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise _not_scheduler(address, str(exc)) from None
    if parts.scheme not in SCHEDULER_SCHEMES:
        raise _not_scheduler(address, f"the scheme {parts.scheme!r} is not one of "
                                      f"{', '.join(SCHEDULER_SCHEMES)}")
    if parts.scheme != "inproc" and (not parts.hostname or port is None or parts.path not in ("", "/")):
        raise _not_scheduler(address, "it is not of the form host:port")
    return address


def _not_scheduler(address: object, why: str) -> ParameterError:
    exc = ParameterError(f"scheduler {address!r} is not a Dask address ({why})",
                         fix="give the address where a running Dask cluster listens, e.g. tcp://10.0.0.5:8786")
    exc.param = "scheduler"
    return exc


@renamed_parameters({"workers": "n_jobs"})
@contextlib.contextmanager
def dask_client(n_jobs: int | None = None, scheduler: str | None = None,
                memory_per_worker: int | None = None) -> Iterator:
    """A ``dask.distributed.Client`` on a new LocalCluster of ``n_jobs`` processes, or on ``scheduler``.

    The build bounds each worker's memory itself (``--memory``); the LocalCluster's memory limit, at which
    the nanny restarts a worker, is set to twice that as a safety net only.  ``memory_per_worker`` is
    checked first: ``n_jobs`` times it must fit in this machine's physical memory, and on ``scheduler``
    it must not exceed any worker's memory limit (:func:`check_worker_budget`).

    Parameters
    ----------
    n_jobs : int, optional
        Worker processes of a new local cluster (``workers=`` is its deprecated name).
    scheduler : str, optional
        The address of an existing cluster's scheduler (``tcp://host:port``).
    memory_per_worker : int, optional
        The build's memory budget of each worker, in bytes.

    Returns
    -------
    contextlib.AbstractContextManager
        Yields the client; the local cluster is closed on exit.
    """
    distributed = optional_import("distributed", "dask", "sharded builds on Dask")
    if scheduler is not None:
        check_scheduler(scheduler)
        try:
            client = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            raise TealeavesError(f"cannot reach the Dask scheduler at {scheduler} ({type(exc).__name__}: "
                                 f"{exc})",
                                 fix="check the address and that the scheduler is running") from None
        with client:
            if memory_per_worker:
                check_worker_budget(client, memory_per_worker, scheduler)
            yield client
        return
    if n_jobs is not None:
        n_jobs = N_JOBS.check(n_jobs)
    if memory_per_worker:
        check_local_budget(memory_per_worker, n_jobs or 1, f"memory {size_text(memory_per_worker)}")
    limit = 2 * memory_per_worker if memory_per_worker else "auto"
    with workers_ignore_sigint():  # Ctrl-C is the main process's to handle: it closes the cluster
        cluster = distributed.LocalCluster(n_workers=n_jobs, threads_per_worker=1, processes=True,
                                           memory_limit=limit, dashboard_address=":0", silence_logs=50)
    with cluster, distributed.Client(cluster) as client:
        yield client


def check_worker_budget(client, memory: int, scheduler: str) -> int:
    """Refuse a ``--memory`` budget above the smallest memory limit of the cluster's workers (as the
    scheduler reports them; a worker without a limit sets no bound), at which Dask restarts a worker.

    Parameters
    ----------
    client : distributed.Client
        The cluster's client.
    memory : int
        The budget of each worker, in bytes.
    scheduler : str
        The scheduler's address (named in the message).

    Returns
    -------
    int
        ``memory``.
    """
    limits = [w.get("memory_limit") or 0 for w in client.scheduler_info().get("workers", {}).values()]
    smallest = min((x for x in limits if x > 0), default=None)
    if smallest is not None and memory > smallest:
        fix = (f"give at most `memory={smallest >> 20}M`, or workers with more memory"
               if smallest >= MIN_MEMORY else
               f"give the workers a memory limit of at least {size_text(MIN_MEMORY)}, the smallest budget")
        raise naming(ParameterError(f"memory {size_text(memory)} is more than the memory limit of a Dask "
                                    f"worker of {scheduler} ({size_text(smallest)})", fix=fix), "memory")
    return memory


def dask_executor(client, progress=None):
    """An executor (see :func:`~tealeaves.index.streaming.build_streaming`) submitting one task
    ``func(shard, number, settings)`` per shard; results in shard order.

    Parameters
    ----------
    client : distributed.Client
        The cluster's client (:func:`dask_client`).
    progress : Progress, optional
        Told of every shard's tokens as it returns.

    Returns
    -------
    callable
        ``run(func, inputs, settings)``: the shards' results, in shard order.
    """
    distributed = optional_import("distributed", "dask", "sharded builds on Dask")

    def run(func, inputs, settings):
        run_id = uuid.uuid4().hex[:8]
        futures = [client.submit(func, s, k, settings, key=f"{func.__name__}-{run_id}-{k}", pure=False)
                   for k, s in enumerate(inputs)]
        where = {f.key: k for k, f in enumerate(futures)}
        out = [None] * len(futures)
        try:
            for future in distributed.as_completed(futures):
                k = where[future.key]
                out[k] = future.result()
                if progress is not None and hasattr(out[k], "n_tokens"):
                    progress.tokens(out[k].n_tokens)
                    progress.shard_done()
        except distributed.KilledWorker as exc:
            raise TealeavesError(f"a Dask worker died while building a shard, and again on every retry "
                                 f"(KilledWorker: {exc}); no index was written",
                                 fix="check the workers' memory limit and logs, then run the build "
                                     "again") from None
        finally:
            client.cancel(futures)
        return out

    return run
