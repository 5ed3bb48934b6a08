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
]
