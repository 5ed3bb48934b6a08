"""Deprecated: moved to :mod:`tealeaves.index.streaming` and :mod:`tealeaves.index.memory`."""

from tealeaves.index.memory import (  # noqa: F401 (re-exported for old imports)
    DEFAULT_MEMORY,
    check_memory,
    parse_memory,
    physical_memory,
    size_text,
)
from tealeaves.index.streaming import BuildProgress as Progress  # noqa: F401 (re-exported for old imports)
from tealeaves.index.streaming import build_streaming  # noqa: F401 (re-exported for old imports)
