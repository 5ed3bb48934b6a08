"""Command-line options shared by the command modules of several packages.

A CLI helper (layer 6 of ``docs/architecture.md``): the command modules import it, it imports no
command module.  The options built from parameter declarations are :mod:`tealeaves._cli_args`'s.
"""

from __future__ import annotations

from tealeaves._cli_args import stands_for
from tealeaves._docs import shared_doc


def add_line_files(p) -> None:
    """``--lang CODE=FILE`` (repeated) and ``--doc-ids``: parallel line files of the aligned inputs.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The sub-command's parser (``index build-aligned``, ``pltm fit|infer``).
    """
    stands_for(p.add_argument("--lang", action="append", metavar="CODE=FILE",
                              help="a line-aligned text file of one language (repeat per language; needs "
                                   "--doc-ids)"), "lang_files")
    p.add_argument("--doc-ids",
                   help="document-id file: line i names the document of line i of every --lang file")


def add_preprocessing(p) -> None:
    """The preprocessing options of a command that tokenises raw text (``sweep``, ``evaluate``,
    ``index build``): the settings of :class:`~tealeaves.corpus.Preprocessor`, built from their
    declarations (:mod:`tealeaves.corpus.params`), with the Preprocessor's defaults.

    ``--stop-words NAME|FILE``, ``--min-df``, ``--max-df``, ``--max-features``, ``--min-length``,
    ``--no-lowercase``, ``--token-pattern``; :func:`preprocessor_from_args` turns them into the
    Preprocessor.  They apply to raw text (folders, JSON Lines); given for pre-tokenised input they
    are refused (:func:`check_preprocessing_applies`).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The sub-command's parser.
    """
    from tealeaves._cli_args import add_param
    from tealeaves.corpus.params import PARAMS

    group = p.add_argument_group("preprocessing of raw text (as tealeaves.corpus.Preprocessor; "
                                 "refused for pre-tokenised input)")
    add_param(group, PARAMS["stop_words"], default="english", metavar="NAME|FILE")
    add_param(group, PARAMS["min_df"], default=1, metavar="N")
    add_param(group, PARAMS["max_df"], default=1.0, metavar="N")
    add_param(group, PARAMS["max_features"], default=None, metavar="N")
    add_param(group, PARAMS["min_length"], default=1, metavar="N")
    add_param(group, PARAMS["lowercase"], action="store_false", default=True)
    add_param(group, PARAMS["token_pattern"], default=None, metavar="REGEX")


@shared_doc
def preprocessor_from_args(args):
    """The (unfitted) :class:`~tealeaves.corpus.Preprocessor` of the options :func:`add_preprocessing` added.

    ``--stop-words`` is a list name (``english``; ``none``: no stop words) or else a file of one
    word per line (:func:`tealeaves.corpus.readers.read_stop_words`).

    Parameters: %(cli_args)s

    Returns
    -------
    Preprocessor
        The recipe, its settings checked.

    Raises
    ------
    ParameterError
        When a setting is out of range, or ``--stop-words`` is neither a known list nor a file.
    InputNotFoundError, InputFormatError, EmptyInputError
        When the stop-word file is unreadable, not text, or empty.
    """
    from tealeaves.corpus.preprocess import LETTERS_PATTERN, Preprocessor

    return Preprocessor(token_pattern=LETTERS_PATTERN if args.token_pattern is None else args.token_pattern,
                        lowercase=args.lowercase, stop_words=stop_words_option(args.stop_words),
                        min_df=args.min_df, max_df=args.max_df, max_features=args.max_features,
                        min_length=args.min_length)


def stop_words_option(value: str):
    """The ``stop_words`` of ``--stop-words VALUE``: a list name, None for ``none``, or a file's words.

    A name wins over a file of the same name (give ``./english`` for such a file).

    Parameters
    ----------
    value : str
        The option's value.

    Returns
    -------
    str or list of str or None
        What :class:`~tealeaves.corpus.Preprocessor` takes as ``stop_words``.

    Raises
    ------
    ParameterError
        When ``value`` is neither a known list name nor an existing path.
    """
    import os

    from tealeaves._params import naming
    from tealeaves.corpus.params import STOP_LISTS, STOP_NAMES
    from tealeaves.corpus.readers import read_stop_words
    from tealeaves.errors import ParameterError

    if value in STOP_LISTS:
        return value
    if value == "none":
        return None
    if not os.path.exists(os.path.expanduser(value)):
        raise naming(ParameterError(f"stop_words {value!r} is neither a known stop-word list "
                                    f"({', '.join(STOP_NAMES)}) nor an existing file",
                                    fix="give a list name or a file of one word per line"), "stop_words")
    return read_stop_words(os.path.expanduser(value))


def check_preprocessing_applies(args, raw: bool, what: str) -> None:
    """Refuse preprocessing options given for pre-tokenised input, which would silently ignore them.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options (:func:`add_preprocessing`).
    raw : bool
        Whether the input is raw text.
    what : str
        The input, for the message.

    Raises
    ------
    ParameterError
        When the input is pre-tokenised and an option differs from its default.
    """
    from tealeaves.corpus.preprocess import Preprocessor
    from tealeaves.errors import ParameterError

    if raw or preprocessor_from_args(args).get_params() == Preprocessor().get_params():
        return
    raise ParameterError(f"{what} is pre-tokenised (one document of whitespace-separated tokens per line): "
                         "the preprocessing options (--stop-words, --min-df, ...) apply to raw text only",
                         fix="drop them, or give raw text (a folder of text files or a JSON Lines file)")


def read_preprocessed(args, path: str, preprocessor=None, vocabulary=None):
    """Read a corpus path (:func:`tealeaves.corpus.readers.read_corpus`) with the preprocessing options.

    Raw text (a folder, JSON Lines) goes through ``preprocessor`` (default: the options'
    :func:`preprocessor_from_args`): unfitted, it is fitted here; fitted (the training corpus's),
    it encodes the text over its vocabulary.  Pre-tokenised lines are read as they are, over
    ``vocabulary`` when given, and refused with preprocessing options (:func:`check_preprocessing_applies`).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options (:func:`add_preprocessing`).
    path : str
        The corpus path.
    preprocessor : Preprocessor, optional
        The recipe for raw text (default: from the options).
    vocabulary : Vocabulary, optional
        For pre-tokenised lines, the vocabulary to encode over.

    Returns
    -------
    Corpus
        The corpus; :attr:`~tealeaves.corpus.Corpus.preprocessing` is its recipe (None when pre-tokenised).
    """
    from tealeaves.corpus.readers import is_token_file, read_corpus

    raw = not is_token_file(path)
    check_preprocessing_applies(args, raw, f"corpus '{path}'")
    if not raw:
        return read_corpus(path, vocabulary=vocabulary)
    return read_corpus(path, preprocessor if preprocessor is not None else preprocessor_from_args(args))
