"""Deprecated: bounded-memory, sharded and Dask builds moved to :mod:`tealeaves.index`.

``tealeaves.distributed.build`` is now :mod:`tealeaves.index.streaming` (memory budgets:
:mod:`tealeaves.index.memory`), ``tealeaves.distributed.dask`` is :mod:`tealeaves.index.dask`
and ``tealeaves.distributed.merge`` is :mod:`tealeaves.index.merge`.  These modules only
re-export the public names they used to define, so that old imports keep working; they will
be removed in a later release.
"""
