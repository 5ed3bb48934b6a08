"""The paths that name a model held in a results store: ``STORE#MODEL`` wherever a model is taken.

:func:`split_store_path` cuts ``"results.sqlite#gibbs-K20-s0"`` into the store and the model's
name, :func:`is_store_path` tells a results store from other model files (``load_model`` sniffs
with it), and :func:`listed` names a store's models in an error message.  Such a model is read
as a tealeaves model by :func:`tealeaves.models.adapters.results_store.load_store_model`
(the door for every model that is not fitted in this process, :mod:`tealeaves.models.adapters`;
this package imports no model module, so that ``load_model`` can read stores).
"""

from __future__ import annotations

import os
from pathlib import Path

from tealeaves._docs import shared_doc
from tealeaves.store.format import is_store

#: How many model names an error lists before counting the rest.
LISTED = 20


@shared_doc
def split_store_path(text: str | os.PathLike) -> tuple[Path, str | None]:
    """``(path, model)`` of ``"STORE#MODEL"``; ``(path, None)`` for a path without ``#MODEL``.

    An existing file whose name holds ``#`` is taken as it is; otherwise the text is cut at
    its last ``#`` when what comes before is an existing file.

    Parameters: %(store_path_text)s

    Returns
    -------
    tuple
        The path and the model's name (None when not given).
    """
    raw = os.fspath(text)
    path = Path(raw).expanduser()
    if path.exists() or "#" not in raw:
        return path, None
    head, _, model = raw.rpartition("#")
    if head and Path(head).expanduser().is_file():
        return Path(head).expanduser(), model
    return path, None


def listed(names: list[str]) -> str:
    """The first :data:`LISTED` names, comma-separated, and how many more there are.

    Parameters
    ----------
    names : list of str
        Model names.

    Returns
    -------
    str
        E.g. ``"a, b, c"`` or ``"a, b, ... (and 12 more; 32 in all)"``; ``"none"`` when empty.
    """
    if not names:
        return "none"
    shown = ", ".join(names[:LISTED])
    more = len(names) - LISTED
    return shown if more <= 0 else f"{shown}, ... (and {more} more; {len(names)} in all)"


@shared_doc
def is_store_path(text: str | os.PathLike) -> bool:
    """Whether ``text`` names a results store (an SQLite file, with or without ``#MODEL``).

    Parameters: %(store_path_text)s

    Returns
    -------
    bool
        True when the file (before any ``#MODEL``) is an SQLite file.
    """
    path, _ = split_store_path(text)
    return path.is_file() and is_store(path)
