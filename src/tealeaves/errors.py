"""Exceptions raised by tealeaves.

Every error message names the problem and, where there is one, the fix, in the
form ``<what is wrong> (<how to fix it>)``; pass the fix as ``fix=`` and it is
appended in parentheses.  All exceptions derive from :class:`TealeavesError`,
which is a ``ValueError`` so that callers that already catch ``ValueError``
keep working.  The command line prints every one as
``tealeaves: error: <message>`` and exits with status 1 (see ``docs/errors.md``).
"""

from __future__ import annotations


class TealeavesError(ValueError):
    """Base class for all errors raised deliberately by tealeaves.

    >>> str(TealeavesError("top_n is 0", fix="give a whole number of at least 2"))
    'top_n is 0 (give a whole number of at least 2)'
    """

    def __init__(self, message: str = "", *args: object, fix: str | None = None):
        self.what = message
        self.fix = fix
        super().__init__(f"{message} ({fix})" if fix else message, *args)


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


class ParameterError(TealeavesError):
    """A parameter or command-line option has the wrong type or is out of range.

    ``param`` is the Python name of the parameter when known (set by
    :meth:`tealeaves._params.Param.check`); the command line then names its option instead.
    """

    param: str | None = None


class InputFormatError(TealeavesError):
    """An input file's content does not match its documented format or schema."""


class InputEncodingError(InputFormatError):
    """A text file is not valid in the encoding it is read with."""


class OutputError(TealeavesError):
    """An output file or folder cannot be written."""


class MissingDependencyError(TealeavesError, ImportError):
    """An optional library is needed but not installed (the message names the extra)."""


class UnsupportedModelError(TealeavesError):
    """An object or file is not a topic model tealeaves can read, or lacks what a measure needs."""


class CorrelationError(TealeavesError):
    """A correlation cannot be computed (too few topics, constant scores).

    Raised by :mod:`tealeaves.human.correlation` and :mod:`tealeaves.human.resampling`
    (importable from either, as before).
    """
