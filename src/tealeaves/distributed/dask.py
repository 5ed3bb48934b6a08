"""Deprecated: moved to :mod:`tealeaves.index.dask`."""

from tealeaves.index.dask import dask_client, dask_executor  # noqa: F401 (re-exported for old imports)
