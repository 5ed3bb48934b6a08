"""PLACEHOLDER (branch ``adapters``): the ``files`` branch replaces this module with the format sniffer.

:func:`load_path` reads a tealeaves ``.npz``, a tomotopy ``.bin`` and a gensim
model saved with ``save()`` (recognised by its companion ``<name>.state`` file);
anything else is read as a tealeaves model file (and refused if it is not one).
"""

from __future__ import annotations

import os
from pathlib import Path

from tealeaves.errors import InputNotFoundError, ParameterError


def load_path(path: str | os.PathLike, **options):
    """The model saved at ``path`` (placeholder: ``.npz``, tomotopy ``.bin``, gensim ``save()`` files)."""
    path = Path(path)
    if not path.exists():
        raise InputNotFoundError(f"no model file at {path}")
    if path.suffix == ".bin":
        from tealeaves.models.adapters.tomotopy import from_file

        return from_file(path, **options)
    if Path(f"{path}.state").is_file():
        from tealeaves.models.adapters.gensim import from_file

        return from_file(path, **options)
    from tealeaves.models.base import load_model

    if options.pop("inference", "tealeaves") != "tealeaves" or options:
        raise ParameterError(f"{path} is read as a tealeaves model file: it infers topic proportions with "
                             "tealeaves' fold-in only and takes no options", fix="leave out the options")
    return load_model(path)
