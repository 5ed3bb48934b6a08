"""Bounded-memory and sharded builds of reference indexes (``docs/scale.md``).

:func:`~tealeaves.distributed.build.build_streaming` builds in this process;
:func:`~tealeaves.distributed.dask.build_on_dask` runs the same shard tasks on a
Dask cluster.  Both merge partial indexes with
:func:`~tealeaves.distributed.merge.merge_partials` into an index identical to
the single in-memory :func:`~tealeaves.coherence.index.build_index`.
"""
