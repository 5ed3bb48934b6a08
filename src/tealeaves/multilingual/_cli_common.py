"""Helpers shared by the multilingual command modules (:mod:`tealeaves.multilingual.cli`,
:mod:`~tealeaves.multilingual.pltm_cli`, :mod:`~tealeaves.multilingual.estimator_cli`).

A CLI helper (layer 6 of ``docs/architecture.md``): the command modules import it, it imports no
command module.
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Iterator

from tealeaves._cli_options import add_line_files


def add_aligned_input(p) -> None:
    """The aligned-input options of ``pltm fit|infer`` (``index build-aligned`` has these and more).

    Adds the positional ``input`` (JSON Lines tuples, zero or more), ``--lang CODE=FILE`` and
    ``--doc-ids`` (:func:`~tealeaves._cli_options.add_line_files`), ``--languages`` and
    ``--encoding``.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The sub-command's parser.
    """
    p.add_argument("input", nargs="*",
                   help='JSON Lines tuples {"id": ..., "en": "...", "sv": "..."} (or use --lang/--doc-ids)')
    add_line_files(p)
    p.add_argument("--languages", help="comma-separated languages to keep (default: all in the input)")
    p.add_argument("--encoding", default=None, help="encoding of the input files (default UTF-8)")


def read_aligned_args(args, aligned: bool = True):
    """:class:`ParallelTexts` from the options of :func:`add_aligned_input` (``aligned=False``: held-out
    documents, one language allowed).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options (``input``, ``lang``, ``doc_ids``, ``encoding``, ``languages``).
    aligned : bool, default True
        ``False`` (held-out documents to fold in) also accepts one language and tuples sharing no
        language (as in :func:`~tealeaves.ingest.aligned.read_aligned_input`).

    Returns
    -------
    ParallelTexts
        The texts, in memory.

    Raises
    ------
    ParameterError
        When ``--languages`` has an empty or a repeated entry.
    """
    from tealeaves.ingest.aligned import read_aligned_input, split_language_list
    from tealeaves.validation import check_unique

    langs = None
    if args.languages is not None:
        langs = check_unique(split_language_list(args.languages), "--languages")
    return read_aligned_input(args.input, args.lang, args.doc_ids, args.encoding, langs, aligned)


@contextlib.contextmanager
def warnings_to_stderr() -> Iterator[None]:
    """Print the warnings raised inside as ``tealeaves: warning: ...`` lines on stderr.

    A context manager: every warning raised in its block is recorded (none filtered out) and
    printed once the block has finished (a block that raises prints none).

    Yields
    ------
    None
        Control to the block.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for w in caught:
        print(f"tealeaves: warning: {w.message}", file=sys.stderr)


def read_topics_arg(path: str, top: int, encoding: str | None) -> dict[str, list[list[str]]]:
    """Topics from a topics JSON file or a saved polylingual model folder (its top ``top`` words).

    Parameters
    ----------
    path : str
        A multilingual topics JSON file, or a saved polylingual model folder.
    top : int
        Words per topic: the model's ``top`` most probable words per language, or the file's
        cardinality (as ``n_top`` of :func:`~tealeaves.multilingual.topics.read_multilingual_topics`).
    encoding : str or None
        The topics file's encoding (default UTF-8).

    Returns
    -------
    dict
        ``{language code: [[word, ...] per topic]}``, validated; the file reader's warnings are
        printed on stderr (:func:`warnings_to_stderr`).
    """
    from tealeaves.multilingual.pltm_io import is_pltm_folder, load_pltm
    from tealeaves.multilingual.topics import read_multilingual_topics, validate_topics

    if is_pltm_folder(path):
        model, _ = load_pltm(path)
        return validate_topics({x: model.top_words(x, top) for x in model.languages_}, f"model '{path}'")
    with warnings_to_stderr():
        return read_multilingual_topics(path, top, encoding)
