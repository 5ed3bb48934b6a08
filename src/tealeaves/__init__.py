"""tealeaves: tell whether a topic model is any good.

Three kinds of evidence are offered: held-out likelihood (``tealeaves.likelihood``),
automatic coherence (``tealeaves.coherence``) and human judgements
(``tealeaves.human``), for monolingual and multilingual models
(``tealeaves.multilingual``).
"""

from tealeaves._version import __version__
from tealeaves.errors import (
    DataNotFoundError,
    EmptyInputError,
    IndexIntegrityError,
    InputNotFoundError,
    InvalidModelError,
    TealeavesError,
)

__all__ = [
    "__version__",
    "TealeavesError",
    "DataNotFoundError",
    "EmptyInputError",
    "InvalidModelError",
    "IndexIntegrityError",
    "InputNotFoundError",
    "load_model",
]


def load_model(source: object, **options):
    """A tealeaves model from a native model object, a saved model file, a dict or an array.

    See :func:`tealeaves.models.adapters.load_model` and ``docs/models.md``; imported
    on first use so that ``import tealeaves`` stays fast.
    """
    from tealeaves.models.adapters import load_model as _load

    return _load(source, **options)
