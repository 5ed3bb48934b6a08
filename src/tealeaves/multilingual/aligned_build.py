"""Deprecated: the aligned-reference builder moved to :mod:`tealeaves.index.aligned`."""

from tealeaves.index.aligned import build_aligned_reference  # noqa: F401 (re-exported for old imports)
