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

from tealeaves._lazy import lazy_package

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

__getattr__, __dir__, __all__ = lazy_package(__name__)
