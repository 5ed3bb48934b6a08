"""Exceptions raised by tealeaves.

Every error message names the problem and, where there is one, the fix, in the
form ``<what is wrong> (<how to fix it>)``; pass the fix as ``fix=`` and it is
appended in parentheses.  All exceptions derive from :class:`TealeavesError`,
which is a ``ValueError`` so that callers that already catch ``ValueError``
keep working.  The command line prints every one as
``tealeaves: error: <message>`` and exits with status 1 (see ``docs/errors.md``).

Every error class of tealeaves is defined here (the top level ``tealeaves`` exports them
too), grouped below by the area that raises it; each area's module re-exports its own
(``from tealeaves.human.store import StoreError`` keeps working).  The one class that is not
a :class:`TealeavesError` is :class:`StrictJSONError`, an internal signal that each JSON
reader turns into its own :class:`InputFormatError`.
"""

from __future__ import annotations


class TealeavesError(ValueError):
    """Base class for all errors raised deliberately by tealeaves.

    Parameters
    ----------
    message : str, default ""
        What is wrong (kept as ``what``).
    *args : object
        Further arguments of ``ValueError``.
    fix : str, optional
        How to fix it (kept as ``fix``), appended to the message in parentheses.

    Examples
    --------
    >>> str(TealeavesError("top_n is 0", fix="give a whole number of at least 2"))
    'top_n is 0 (give a whole number of at least 2)'
    """

    #: The Python parameter(s) the message names (see :func:`tealeaves._params.naming`): the
    #: command line's error boundary names their options instead (``docs/naming.md``).
    param: str | tuple | None = None

    def __init__(self, message: str = "", *args: object, fix: str | tuple | None = None):
        self.what = message
        self.fix = fix
        super().__init__(with_fix(message, fix), *args)


def join_alternatives(alternatives: str | tuple | list | None) -> str:
    """A fix given as several alternatives, in one phrase: ``"a, or b"``, ``"a, b, or c"``.

    Parameters
    ----------
    alternatives : str, sequence of str or None
        One fix, or several alternative fixes (a command line may drop an alternative that names
        a parameter it has no option for; ``docs/naming.md``).

    Returns
    -------
    str
        The phrase (empty when there is none).
    """
    if not alternatives:
        return ""
    if isinstance(alternatives, str):
        return alternatives
    items = [a for a in alternatives if a]
    return items[0] if len(items) < 2 else ", ".join(items[:-1]) + ", or " + items[-1]


def with_fix(message: str, fix: str | tuple | list | None) -> str:
    """``message (fix)``, or ``message`` alone when there is no fix.

    Parameters
    ----------
    message : str
        What is wrong.
    fix : str, sequence of str or None
        How to fix it (several alternatives are joined by :func:`join_alternatives`).

    Returns
    -------
    str
        The text of the error.
    """
    fix = join_alternatives(fix)
    return f"{message} ({fix})" if fix else message


def naming(exc: Exception, *names: str) -> Exception:
    """Return ``exc`` marked as being about the Python parameter(s) ``names``.

    The command line's error boundary then names each one as the running command's option, where
    the message writes it: as its first word (``item must be ...``) or as a code span
    (``give its encoding with `encoding```); a span of a name the command has no option for is
    written as the bare name, and a fix alternative holding one is dropped
    (:func:`tealeaves._cli_args.cli_message`, ``docs/naming.md``).  A Python caller reads the
    message as written.  Usage: ``raise naming(ParameterError(...), "item")``.

    Parameters
    ----------
    exc : Exception
        A tealeaves error whose message names the parameter(s) by their Python names.
    *names : str
        The Python names the message mentions (the first is the subject).

    Returns
    -------
    Exception
        ``exc``, with ``param`` set to the one name or the tuple of names (names it already
        listed, from a lower-level reader, are kept after them).
    """
    before = getattr(exc, "param", None) or ()
    before = (before,) if isinstance(before, str) else tuple(before)
    names = tuple(dict.fromkeys((*names, *before)))
    exc.param = names[0] if len(names) == 1 else names
    return exc


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


class StrictJSONError(ValueError):
    """JSON that Python's :mod:`json` accepts but strict JSON does not.

    Callers turn it into their own error with their own message.

    Parameters
    ----------
    kind : str
        ``"constant"``: a ``NaN``/``Infinity`` literal; ``"duplicate"``: a key given twice in one
        object.
    value : str
        The literal or the key.
    """

    def __init__(self, kind: str, value: str):
        self.kind, self.value = kind, value
        super().__init__(f"{value} is not valid JSON" if kind == "constant"
                         else f"key {value!r} occurs twice in one object")


# --------------------------------------------------------------------------- corpora (tealeaves.corpus)


class CorpusFormatError(InputFormatError):
    """A corpus file is malformed (bad JSON, a missing field, mismatched ids...)."""


class ParallelFormatError(InputFormatError):
    """A parallel-corpus file does not have the expected layout."""


class LanguageMismatchError(TealeavesError):
    """Languages of two inputs (corpus, model, texts, preprocessors) do not match."""


class UnknownLanguageError(InputFormatError):
    """A language code (in a file, an option or an argument) is not one tealeaves knows how to normalise."""


class UnsegmentedTextError(InputFormatError):
    """A text whose tokens are mostly over-long: written without spaces between words (Chinese,
    Japanese...) and tokenised as if it had them (:func:`~tealeaves.corpus.preprocess.check_segmented`)."""


# --------------------------------------------------------------------------- coherence (tealeaves.coherence)


class SettingsError(TealeavesError):
    """A coherence setting (measure, segmentation, window, zero policy...) is unknown or out of range."""


class TopicError(TealeavesError):
    """A topic cannot be scored as given (too few words, duplicates, ...)."""


class ZeroCooccurrenceError(TealeavesError):
    """An unbounded confirmation measure met a pair of words that never co-occur under ``zero="limit"``.

    Attributes
    ----------
    topic : int or None
        The number of the topic of that pair, when the scoring pipeline raised it.
    """

    topic: int | None = None


# --------------------------------------------------------------------------- comparison and sweeps


class IncomparableError(TealeavesError):
    """Two models or results cannot be compared as given.

    Raised for models over vocabularies that share too few words, coherence
    results computed with different settings or references, and held-out
    likelihoods computed on different held-out words (another split, seed or
    vocabulary).
    """


class IncompatibleStoreError(InputFormatError):
    """A results store written by another schema version, or for another sweep."""


class StoreIntegrityError(InputFormatError):
    """A results store is damaged: a table, column, blob, JSON field or reference is not what its schema says.

    Raised by every reader of a store (:func:`tealeaves.store.validate.read_contents`) before
    any number is used; the message names the model, topic and field, and the fix says how
    to rebuild the store.
    """


# --------------------------------------------------------------------------- data sets (tealeaves.data)


class FetchError(TealeavesError):
    """A data set could not be downloaded (network, HTTP status, bad archive, unavailable file)."""


class ChecksumError(FetchError):
    """A downloaded file's SHA-256 differs from the registry's; the download was deleted."""


# --------------------------------------------------------------------------- human judgements


class StudyError(TealeavesError):
    """A study cannot be built or read (bad settings, malformed study file)."""


class StudyFormatError(StudyError, InputFormatError):
    """A study file does not match the documented schema."""


class ResultsError(InputFormatError):
    """A results file cannot be read or does not match the study."""


class StoreError(TealeavesError):
    """The judgment database cannot be used (other study, reused key...)."""


class StoreUnavailableError(StoreError):
    """The judgment database cannot be written right now (disk full, read-only, locked, I/O error).

    The server answers 503 with ``Retry-After``; the judgment was not stored.
    """


class EndpointError(TealeavesError):
    """A chat-completions endpoint cannot be used: unreachable, not an OpenAI-compatible API, or redirecting.

    Raised once for the whole run (:class:`~tealeaves.human.llm.client.ChatClient`), never per
    item; the answers received before it are kept in the cache.
    """


class EndpointAuthError(EndpointError):
    """A chat-completions endpoint refused the API key (HTTP 401 or 403)."""


class EndpointModelError(EndpointError):
    """A chat-completions endpoint does not serve the model asked for (HTTP 404, or an error naming it)."""


class ChatCacheError(TealeavesError):
    """The cache of a language model's answers cannot be used (a folder, not SQLite, another program's
    database, or an answer cached for a different request under the same key)."""


class AgreementUndefinedError(TealeavesError):
    """Agreement cannot be computed (no pairable values, or no variation at all)."""


class CorrelationError(TealeavesError):
    """A correlation cannot be computed (too few topics, constant scores).

    Raised by :mod:`tealeaves.human.correlation` and :mod:`tealeaves.human.resampling`
    (importable from either, as before).
    """
