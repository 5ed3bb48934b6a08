"""A model held in a results store, as a tealeaves model: ``STORE#MODEL`` wherever a model is taken.

>>> model = load_store_model("results.sqlite", "gibbs-K20-s0")  # doctest: +SKIP
>>> tealeaves.load_model("results.sqlite#gibbs-K20-s0")  # the same, as a path  # doctest: +SKIP

The model is a :class:`~tealeaves.models.base.FixedTopicModel` over the stored
``topic_word`` rows and their vocabulary (the model's own, else the store's training
vocabulary), with the stored ``alpha`` when there is one (so held-out likelihood can be
computed from it, by tealeaves' fold-in).  Its ``metadata_`` names the store and the model
(``source``: ``library`` ``"tealeaves-store"``, ``file``, ``model``, ``engine``, ``config``,
``run`` and where the model came from, ``origin``) and carries the store's
``preprocessing`` recipe when known.

The store is read by :mod:`tealeaves.store` (its paths: :mod:`tealeaves.store.models`); the
model is made here, among the adapters, so that the store package imports no model module
(``tealeaves.models.load_model`` reads stores: the two packages would import each other).
"""

from __future__ import annotations

import os

from tealeaves.errors import ParameterError
from tealeaves.models.base import FixedTopicModel
from tealeaves.store.models import listed, split_store_path
from tealeaves.store.validate import read_contents


def load_store_model(path: str | os.PathLike, model: str | None = None):
    """The model ``model`` of the results store at ``path`` (see the module docstring).

    The store is validated first (:func:`tealeaves.store.validate.read_contents`).

    Parameters
    ----------
    path : str or os.PathLike
        The results store, or ``"STORE#MODEL"``.
    model : str, optional
        The model's name (e.g. ``gibbs-K20-s0``); required unless ``path`` ends in ``#MODEL``.

    Returns
    -------
    FixedTopicModel
        The stored model.

    Raises
    ------
    ParameterError
        When no model is named, the name is given twice differently, or the store holds no
        model of that name (the error lists the names it holds).
    StoreIntegrityError
        When the store is damaged.
    """
    path, named = split_store_path(path)
    if named is not None and model is not None and named != model:
        raise ParameterError(f"two models named for results store '{path}': {named!r} (after #) and "
                             f"{model!r}",
                             fix="name the model once")
    model = model if model is not None else named
    contents = read_contents(path)
    names = contents.names()
    if model is None:
        example = f"{path}#{names[0]}" if names else f"{path}#MODEL"
        raise ParameterError(f"'{path}' is a results store holding {len(names)} model(s); one is needed "
                             f"(models: {listed(names)})",
                             fix=f"add #MODEL to the path to choose one, e.g. '{example}'")
    if model not in names:
        raise ParameterError(f"no model named {model!r} in results store '{path}' (it holds {len(names)}: "
                             f"{listed(names)})", fix="choose one of the models it holds")
    row = contents.models[names.index(model)]
    vocabulary = contents.vocabulary if row["vocabulary"] is None else row["vocabulary"]
    metadata = {"description": model,
                "source": {"library": "tealeaves-store", "file": str(path), "model": model,
                           "engine": row["engine"], "config": row["config"], "run": row["run"],
                           "origin": row["source"]}}
    if contents.preprocessing is not None:
        metadata["preprocessing"] = contents.preprocessing
    return FixedTopicModel(row["topic_word"], vocabulary, row["alpha"], metadata=metadata)
