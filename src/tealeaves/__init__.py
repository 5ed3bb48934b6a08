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
from tealeaves._lazy import lazy_package
from tealeaves._version import __version__

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

__getattr__, __dir__, __all__ = lazy_package(__name__, eager=("__version__",))
