"""The results store: one SQLite file holding scored topic models (format, validation, models out of it).

* :mod:`~tealeaves.store.format`: the layout (schema version 2) and :func:`read_store`;
* :mod:`~tealeaves.store.writer`: :func:`open_store` and :func:`write_model` for writers
  (``tealeaves sweep``, ``tealeaves evaluate``), one checked model per transaction;
* :mod:`~tealeaves.store.validate`: :func:`read_contents`, the one validated reading of a
  store that every reader goes through (:class:`~tealeaves.errors.StoreIntegrityError`
  when it is damaged);
* :mod:`~tealeaves.store.models`: ``STORE#MODEL`` paths (:func:`split_store_path`,
  :func:`is_store_path`).

A stored model is read as a tealeaves model by ``tealeaves.load_model("STORE#MODEL")``
(:func:`tealeaves.models.adapters.results_store.load_store_model`): this package imports no
model module, so that the model loader can read stores without an import circle.

Names are exported lazily (:mod:`tealeaves._lazy`): a submodule loads on first use.
"""

from typing import TYPE_CHECKING

from tealeaves._lazy import lazy_package

if TYPE_CHECKING:  # the table of exports, one line per public name (tealeaves._lazy)
    # isort: off
    from tealeaves.store.format import SCHEMA_VERSION
    from tealeaves.store.format import finished
    from tealeaves.store.format import is_store
    from tealeaves.store.format import model_name
    from tealeaves.store.format import read_store
    from tealeaves.store.models import is_store_path
    from tealeaves.store.models import split_store_path
    from tealeaves.store.validate import StoreContents
    from tealeaves.store.validate import read_contents
    from tealeaves.store.writer import model_values
    from tealeaves.store.writer import open_store
    from tealeaves.store.writer import write_model
    # isort: on

__getattr__, __dir__, __all__ = lazy_package(__name__)
