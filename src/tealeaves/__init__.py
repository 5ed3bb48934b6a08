"""tealeaves: tell whether a topic model is any good.

Three kinds of evidence are offered: held-out likelihood (``tealeaves.likelihood``),
automatic coherence (``tealeaves.coherence``) and human judgements
(``tealeaves.human``), for monolingual and multilingual models
(``tealeaves.multilingual``).

The top level exports :func:`load_model` (a model from anything tealeaves reads),
:func:`evaluate` (score any models into a results store: :mod:`tealeaves.sweep.evaluation`)
and every error class (:mod:`tealeaves.errors`), lazily (:mod:`tealeaves._lazy`): ``import tealeaves``
loads no numerical library.
"""

from typing import TYPE_CHECKING

from tealeaves import errors as errors  # light: the exceptions only
from tealeaves._lazy import lazy_exports
from tealeaves._version import __version__

_EXPORTS = {
    "load_model": "models.adapters",
    "evaluate": "sweep.evaluation",
    "TealeavesError": "errors",
    "DataNotFoundError": "errors",
    "InputNotFoundError": "errors",
    "EmptyInputError": "errors",
    "InvalidModelError": "errors",
    "IndexIntegrityError": "errors",
    "ParameterError": "errors",
    "InputFormatError": "errors",
    "InputEncodingError": "errors",
    "OutputError": "errors",
    "MissingDependencyError": "errors",
    "UnsupportedModelError": "errors",
    "StrictJSONError": "errors",
    "CorpusFormatError": "errors",
    "ParallelFormatError": "errors",
    "LanguageMismatchError": "errors",
    "UnknownLanguageError": "errors",
    "UnsegmentedTextError": "errors",
    "SettingsError": "errors",
    "TopicError": "errors",
    "ZeroCooccurrenceError": "errors",
    "IncomparableError": "errors",
    "IncompatibleStoreError": "errors",
    "StoreIntegrityError": "errors",
    "FetchError": "errors",
    "ChecksumError": "errors",
    "StudyError": "errors",
    "StudyFormatError": "errors",
    "ResultsError": "errors",
    "StoreError": "errors",
    "StoreUnavailableError": "errors",
    "AgreementUndefinedError": "errors",
    "CorrelationError": "errors",
}
__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS, eager=("__version__",))

if TYPE_CHECKING:  # for type checkers and the API reference
    from tealeaves.errors import (
        AgreementUndefinedError,
        ChecksumError,
        CorpusFormatError,
        CorrelationError,
        DataNotFoundError,
        EmptyInputError,
        FetchError,
        IncomparableError,
        IncompatibleStoreError,
        IndexIntegrityError,
        InputEncodingError,
        InputFormatError,
        InputNotFoundError,
        InvalidModelError,
        LanguageMismatchError,
        MissingDependencyError,
        OutputError,
        ParallelFormatError,
        ParameterError,
        ResultsError,
        SettingsError,
        StoreError,
        StoreIntegrityError,
        StoreUnavailableError,
        StrictJSONError,
        StudyError,
        StudyFormatError,
        TealeavesError,
        TopicError,
        UnknownLanguageError,
        UnsegmentedTextError,
        UnsupportedModelError,
        ZeroCooccurrenceError,
    )
    from tealeaves.models.adapters import load_model
    from tealeaves.sweep.evaluation import evaluate
