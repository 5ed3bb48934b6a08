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

if TYPE_CHECKING:  # the table of exports, one line per public name (tealeaves._lazy)
    # isort: off
    from tealeaves.errors import AgreementUndefinedError
    from tealeaves.errors import ChatCacheError
    from tealeaves.errors import ChecksumError
    from tealeaves.errors import CorpusFormatError
    from tealeaves.errors import CorrelationError
    from tealeaves.errors import DataNotFoundError
    from tealeaves.errors import EmptyInputError
    from tealeaves.errors import EndpointAuthError
    from tealeaves.errors import EndpointError
    from tealeaves.errors import EndpointModelError
    from tealeaves.errors import FetchError
    from tealeaves.errors import IncomparableError
    from tealeaves.errors import IncompatibleStoreError
    from tealeaves.errors import IndexIntegrityError
    from tealeaves.errors import InputEncodingError
    from tealeaves.errors import InputFormatError
    from tealeaves.errors import InputNotFoundError
    from tealeaves.errors import InvalidModelError
    from tealeaves.errors import LanguageMismatchError
    from tealeaves.errors import MissingDependencyError
    from tealeaves.errors import OutputError
    from tealeaves.errors import ParallelFormatError
    from tealeaves.errors import ParameterError
    from tealeaves.errors import ResultsError
    from tealeaves.errors import SettingsError
    from tealeaves.errors import StoreError
    from tealeaves.errors import StoreIntegrityError
    from tealeaves.errors import StoreUnavailableError
    from tealeaves.errors import StrictJSONError
    from tealeaves.errors import StudyError
    from tealeaves.errors import StudyFormatError
    from tealeaves.errors import TealeavesError
    from tealeaves.errors import TopicError
    from tealeaves.errors import UnknownLanguageError
    from tealeaves.errors import UnsegmentedTextError
    from tealeaves.errors import UnsupportedModelError
    from tealeaves.errors import ZeroCooccurrenceError
    from tealeaves.models.adapters import load_model
    from tealeaves.sweep.evaluation import evaluate
    # isort: on

__getattr__, __dir__, __all__ = lazy_package(__name__, eager=("__version__",))
