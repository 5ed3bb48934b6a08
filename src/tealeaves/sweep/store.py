"""The sweep's writer of the results store: the format lives in :mod:`tealeaves.store`.

Kept so that ``from tealeaves.sweep.store import open_store, write_model, ...`` works as
before; see :mod:`tealeaves.store.format` for the layout (schema version 2) and
:mod:`tealeaves.store.validate` for the validated reading.
"""

from __future__ import annotations

from tealeaves.errors import IncompatibleStoreError, StoreIntegrityError
from tealeaves.store.format import (
    SCHEMA_VERSION,
    finished,
    model_name,
    read_store,
)
from tealeaves.store.writer import open_store, write_model

__all__ = ["SCHEMA_VERSION", "IncompatibleStoreError", "StoreIntegrityError", "finished", "model_name",
           "open_store", "read_store", "write_model"]
