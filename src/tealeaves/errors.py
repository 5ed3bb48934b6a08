"""Exceptions raised by tealeaves.

Every error message names the problem and, where there is one, the fix.
All exceptions derive from :class:`TealeavesError`, which is a ``ValueError``
so that callers that already catch ``ValueError`` keep working.
"""

from __future__ import annotations


class TealeavesError(ValueError):
    """Base class for all errors raised deliberately by tealeaves."""


class DataNotFoundError(TealeavesError, FileNotFoundError):
    """A data file could not be found in ``$TEALEAVES_DATA`` or the user cache."""


class InputNotFoundError(TealeavesError, FileNotFoundError):
    """A file or folder the user named (a corpus, a model, a study) does not exist."""


class EmptyInputError(TealeavesError):
    """An input (corpus, study, reference, ...) holds nothing to work on."""


class InvalidModelError(TealeavesError):
    """A topic model's parameters are malformed (NaN, negative, not normalised...)."""


class IndexIntegrityError(TealeavesError):
    """An on-disk index is corrupted, truncated or of an unknown version."""
