"""The results store: one SQLite file holding scored topic models (format, validation, models out of it).

* :mod:`~tealeaves.store.format`: the layout (schema version 2) and :func:`read_store`;
* :mod:`~tealeaves.store.writer`: :func:`open_store` and :func:`write_model` for writers
  (``tealeaves sweep``, ``tealeaves evaluate``), one checked model per transaction;
* :mod:`~tealeaves.store.validate`: :func:`read_contents`, the one validated reading of a
  store that every reader goes through (:class:`~tealeaves.errors.StoreIntegrityError`
  when it is damaged);
* :mod:`~tealeaves.store.models`: a stored model as a tealeaves model
  (:func:`load_store_model`, ``STORE#MODEL`` paths).

Names are exported lazily (:mod:`tealeaves._lazy`): a submodule loads on first use.
"""

from typing import TYPE_CHECKING

from tealeaves._lazy import lazy_exports

_EXPORTS = {
    "SCHEMA_VERSION": "format",
    "open_store": "writer",
    "read_store": "format",
    "write_model": "writer",
    "model_values": "writer",
    "finished": "format",
    "model_name": "format",
    "is_store": "format",
    "read_contents": "validate",
    "StoreContents": "validate",
    "load_store_model": "models",
    "split_store_path": "models",
    "is_store_path": "models",
}
__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:  # for type checkers and the API reference
    from tealeaves.store.format import (
        SCHEMA_VERSION,
        finished,
        is_store,
        model_name,
        read_store,
    )
    from tealeaves.store.models import is_store_path, load_store_model, split_store_path
    from tealeaves.store.validate import StoreContents, read_contents
    from tealeaves.store.writer import model_values, open_store, write_model
