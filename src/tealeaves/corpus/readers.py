"""Read corpora from common on-disk layouts.

Three layouts are supported, each returning either raw texts (to be fed to a
:class:`~tealeaves.corpus.preprocess.Preprocessor`) or, for input that is
already tokenised, a :class:`~tealeaves.corpus.corpus.Corpus` directly:

* a folder of text files, one document per file (:func:`read_text_folder`);
* a JSON Lines file, one JSON object per document (:func:`read_jsonl`);
* a file of one document per line, tokens separated by whitespace, with an
  optional file of document ids, one per line (:func:`read_token_lines`).

:func:`read_corpus` dispatches on the path (folder, ``.jsonl``, anything
else = token lines) and always returns a :class:`Corpus`.

Every file is read with the policy of :mod:`tealeaves._io`: UTF-8 unless an
``encoding`` is given, a UTF-8 byte-order mark removed (never glued to the
first word), bytes invalid in the encoding refused with
:class:`~tealeaves.errors.InputEncodingError` naming the file, the line and the
``--encoding`` option; a missing path, a folder where a file is expected and an
unreadable file are clear :class:`~tealeaves.errors.TealeavesError` s.  Lines
end at ``\\n``, ``\\r\\n`` or ``\\r`` only (:func:`split_lines`: the
universal newlines of Python's ``open``), so a
form feed or U+2028 inside a line never splits a document in two.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tealeaves import _io
from tealeaves._docs import shared_doc
from tealeaves.corpus.corpus import Corpus
from tealeaves.corpus.preprocess import Preprocessor
from tealeaves.corpus.vocabulary import Vocabulary
from tealeaves.errors import (
    CorpusFormatError,
    EmptyInputError,
    InputEncodingError,
    InputFormatError,
    InputNotFoundError,
)

PathLike = str | os.PathLike[str]

#: Suffixes read as JSON Lines by :func:`read_corpus`.
JSONL_SUFFIXES = (".jsonl", ".ndjson")


@dataclass
class RawDocuments:
    """Untokenised documents: texts, their ids and optional labels.

    Parameters
    ----------
    texts : list of str
        One text per document.
    ids : list of str
        One id per document.
    labels : list or None, default None
        One label per document, if any.
    """

    texts: list[str]
    ids: list[str]
    labels: list | None = None

    def __len__(self) -> int:
        return len(self.texts)

    def to_corpus(self, preprocessor: Preprocessor | None = None) -> Corpus:
        """Encode with ``preprocessor``: fitted ones are applied, unfitted ones fitted here first.

        Parameters
        ----------
        preprocessor : Preprocessor or None, default None
            The preprocessor; None is a fresh :class:`Preprocessor` with its default recipe.

        Returns
        -------
        Corpus
            The encoded documents.
        """
        pre = Preprocessor() if preprocessor is None else preprocessor
        if hasattr(pre, "vocabulary_"):
            return pre.transform(self.texts, self.ids, self.labels)
        return pre.fit_transform(self.texts, self.ids, self.labels)


def _existing(path: PathLike, what: str) -> Path:
    p = Path(path).expanduser()
    if not p.exists():
        raise InputNotFoundError(f"{what} '{p}' does not exist", fix="check the path")
    return p


def text_folder_files(root: Path, glob: str = "**/*") -> list[Path]:
    """The documents of a text folder: files under ``root`` matching ``glob``, sorted, hidden ones skipped.

    A hidden file has a path part starting with ``.``.  The one rule for
    :func:`read_text_folder` and the streaming index build (:mod:`tealeaves.ingest`).

    Parameters
    ----------
    root : Path
        The folder.
    glob : str, default "**/*"
        The pattern the files match, relative to ``root``.

    Returns
    -------
    list of Path
        The files, sorted.
    """
    return sorted(f for f in root.glob(glob)
                  if f.is_file() and not any(part.startswith(".") for part in f.relative_to(root).parts))


@shared_doc
def read_text_folder(path: PathLike, glob: str = "**/*", encoding: str | None = None) -> RawDocuments:
    """Read every file under ``path`` matching ``glob`` as one document.

    Ids are the files' paths relative to ``path`` (with ``/`` separators), in
    sorted order; hidden files (any path part starting with ``.``) are skipped.

    Parameters
    ----------
    path : path-like
        The folder.
    glob : str, default "**/*"
        The pattern the files match.
    %(files_encoding)s

    Returns
    -------
    RawDocuments
        One text per file.

    Raises
    ------
    %(raises_path_missing)s
    InputFormatError
        If ``path`` is not a folder.
    EmptyInputError
        Naming the folder, when nothing matches.
    """
    root = _existing(path, "corpus folder")
    if not root.is_dir():
        raise InputFormatError(f"'{root}' is not a folder", fix="give a folder of text files")
    files = text_folder_files(root, glob)
    if not files:
        raise EmptyInputError(
            f"no file matching '{glob}' in folder '{root}'; put one text file per document there "
            "or change the glob"
        )
    texts = [_io.read_text(f, encoding, what="corpus file") for f in files]
    return RawDocuments(texts, [f.relative_to(root).as_posix() for f in files])


@shared_doc
def read_jsonl(
    path: PathLike,
    text_field: str = "text",
    id_field: str | None = "id",
    label_field: str | None = None,
    encoding: str | None = None,
) -> RawDocuments:
    """Read one document per line of a JSON Lines file.

    Each non-blank line must be a JSON object holding ``text_field`` (a
    string) and, unless ``id_field`` is ``None``, ``id_field`` (ids are
    converted to strings).

    Parameters
    ----------
    path : path-like
        The JSON Lines file.
    text_field : str, default "text"
        The field holding the text.
    id_field : str or None, default "id"
        The field holding the id (a string or whole number); with None the ids are
        the 1-based line numbers.
    label_field : str or None, default None
        When given, the field read as each document's label.
    %(files_encoding)s

    Returns
    -------
    RawDocuments
        The texts, ids and labels.

    Raises
    ------
    CorpusFormatError
        For a malformed line or a missing field (naming the line number), or a repeated id.
    EmptyInputError
        If the file holds no document.
    """
    p = _io.existing_file(path, "JSON Lines file")
    texts: list[str] = []
    ids: list[str] = []
    labels: list = []
    for lineno, line in enumerate(read_lines(p, encoding), start=1):
        if not line.strip():
            continue
        record = _json_record(line, lineno, p)
        texts.append(_field(record, text_field, lineno, p, want_str=True))
        ids.append(_id(_field(record, id_field, lineno, p), lineno, p) if id_field else str(lineno))
        if label_field is not None:
            labels.append(_field(record, label_field, lineno, p))
    if not texts:
        raise EmptyInputError(f"JSON Lines file '{p}' holds no document",
                              fix='give one JSON object per line, e.g. {"id": "d1", "text": "..."}')
    _check_unique(ids, p)
    return RawDocuments(texts, ids, labels if label_field is not None else None)


def _id(value: object, lineno: int, path: Path) -> str:
    """A document id: a string or a whole number (``7`` -> ``"7"``); anything else is refused."""
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return str(value)
    raise CorpusFormatError(
        f"{path}, line {lineno}: a document id must be a string or a whole number, "
        f"got {json.dumps(value)} ({type(value).__name__})"
    )


def _json_record(line: str, lineno: int, path: Path) -> dict:
    try:  # NaN is let through to the callers' type checks, which name the field
        record = _io.loads_strict(line, unique_keys=True, allow_constants=True)
    except _io.StrictJSONError as exc:  # a repeated key: json would keep the last one silently
        raise CorpusFormatError(f"{path}, line {lineno}: {exc}; give each field once") from None
    except RecursionError:
        raise CorpusFormatError(f"{path}, line {lineno}: JSON nested too deeply; "
                                "each line must be one flat JSON object") from None
    except json.JSONDecodeError as exc:
        raise CorpusFormatError(
            f"{path}, line {lineno}: malformed JSON ({exc.msg} at column {exc.colno}); "
            "each line must be one JSON object"
        ) from None
    if not isinstance(record, dict):
        raise CorpusFormatError(
            f"{path}, line {lineno}: expected a JSON object, got {type(record).__name__}"
        )
    return record


def _field(record: dict, name: str, lineno: int, path: Path, want_str: bool = False):
    if name not in record:
        raise CorpusFormatError(
            f"{path}, line {lineno}: field '{name}' is missing (fields present: "
            f"{', '.join(sorted(record)) or 'none'}); choose the field with the text_field/"
            "id_field/label_field options"
        )
    value = record[name]
    if want_str and not isinstance(value, str):
        raise CorpusFormatError(
            f"{path}, line {lineno}: field '{name}' must be a string, got {type(value).__name__}"
        )
    return value


def _check_unique(ids: Sequence[str], path: Path) -> None:
    seen: set[str] = set()
    for i in ids:
        if i in seen:
            raise CorpusFormatError(
                f"document id '{i}' occurs more than once in '{path}'; ids must be unique"
            )
        seen.add(i)


@shared_doc
def read_lines(path: PathLike, encoding: str | None = None, what: str = "file") -> list[str]:
    """The lines of a text file (:func:`split_lines`) read under the :mod:`tealeaves._io` policy.

    Parameters
    ----------
    %(file_path)s
    encoding : str or None, default None
        Its encoding (None: UTF-8).
    %(file_what)s

    Returns
    -------
    list of str
        Its lines, without line ends.
    """
    return _io.read_lines(path, encoding, what)


@shared_doc
def read_stop_words(path: PathLike, encoding: str | None = None) -> list[str]:
    """The stop words of a file of one word per line (blank lines skipped, spaces around a word removed).

    The words are given to :class:`~tealeaves.corpus.Preprocessor` as ``stop_words``
    (lowercased with the text when it lowercases).

    Parameters: %(file_path)s %(file_encoding)s

    Returns
    -------
    list of str
        The words, in file order, each once.

    Raises
    ------
    %(raises_file_missing)s
    InputEncodingError
        If it is not text in the encoding (e.g. a binary file).
    CorpusFormatError
        If it holds a NUL character (a binary file).
    EmptyInputError
        If it holds no word.
    """
    try:
        lines = read_lines(path, encoding, "stop-word file")
    except InputEncodingError as exc:  # a binary file, most likely: say what the file was for
        raise InputEncodingError(f"stop-word file '{path}' is not {encoding or 'UTF-8'} text ({exc.what}): "
                                 "a binary file?",
                                 fix="give a text file of one word per line") from None
    words = []
    for lineno, line in enumerate(lines, 1):
        word = line.strip()
        if "\x00" in word:
            raise CorpusFormatError(f"stop-word file '{path}' line {lineno} holds a NUL character: it is not "
                                    "a text file", fix="give a text file of one word per line")
        if word:
            words.append(word)
    if not words:
        raise EmptyInputError(f"stop-word file '{path}' holds no word", fix="give one word per line")
    return list(dict.fromkeys(words))


def _line_ids(ids_path: PathLike | None, n_docs: int, path: Path, encoding: str | None) -> list[str]:
    """Ids for a one-document-per-line file: from ``ids_path``, else 1-based line numbers."""
    if ids_path is None:
        return [str(i) for i in range(1, n_docs + 1)]
    ids = [line.strip() for line in read_lines(ids_path, encoding, "ids file")]
    if len(ids) != n_docs:
        raise CorpusFormatError(
            f"ids file '{ids_path}' has {len(ids)} lines but '{path}' has {n_docs} documents; "
            "give one id per document line"
        )
    _check_unique(ids, Path(ids_path))
    return ids


@shared_doc
def read_token_lines(
    path: PathLike,
    ids_path: PathLike | None = None,
    vocabulary: Vocabulary | None = None,
    encoding: str | None = None,
) -> Corpus:
    """Read a pre-tokenised corpus: one document per line, tokens separated by whitespace.

    An empty line is an empty document.

    Parameters
    ----------
    path : path-like
        The token file.
    ids_path : path-like or None, default None
        A file with one id per line (as many lines as documents); None: the
        1-based line numbers.
    vocabulary : Vocabulary or None, default None
        Tokens outside it are dropped and counted in ``Corpus.n_dropped``; None
        builds the vocabulary from the file.
    encoding : str or None, default None
        The files' encoding (None: UTF-8).

    Returns: %(returns_read_corpus)s

    Raises
    ------
    EmptyInputError
        If the file holds no line.
    CorpusFormatError
        If the ids file has another number of lines or repeats an id.
    """
    p = _io.existing_file(path, "token file")
    docs = [line.split() for line in read_lines(p, encoding, "token file")]
    if not docs:
        raise EmptyInputError(f"token file '{p}' holds no line (no document)",
                              fix="give one document per line, tokens separated by spaces")
    corpus = Corpus.from_token_lists(docs, vocabulary, _line_ids(ids_path, len(docs), p, encoding))
    corpus.metadata["source"] = str(p)
    return corpus


@shared_doc
def read_raw(
    path: PathLike,
    *,
    glob: str = "**/*",
    text_field: str = "text",
    id_field: str | None = "id",
    label_field: str | None = None,
    ids_path: PathLike | None = None,
    encoding: str | None = None,
) -> RawDocuments:
    """Read untokenised documents from a folder, a JSON Lines file or a one-per-line text file.

    Parameters
    ----------
    path : path-like
        A folder, a ``.jsonl``/``.ndjson`` file or a text file.
    %(corpus_glob)s %(corpus_text_field)s %(corpus_id_field)s %(corpus_label_field)s %(corpus_ids_path)s
    %(files_encoding)s

    Returns
    -------
    RawDocuments
        The texts and ids.

    Raises: %(raises_path_missing)s %(raises_no_document)s %(raises_corpus_format)s
    """
    p = _existing(path, "corpus path")
    if p.is_dir():
        return read_text_folder(p, glob, encoding)
    if p.name.lower().endswith(JSONL_SUFFIXES):
        return read_jsonl(p, text_field, id_field, label_field, encoding)
    texts = read_lines(p, encoding, "corpus file")
    if not texts:
        raise EmptyInputError(f"file '{p}' holds no line (no document)", fix="give one document per line")
    return RawDocuments(texts, _line_ids(ids_path, len(texts), p, encoding))


def is_token_file(path: PathLike) -> bool:
    """Whether :func:`read_corpus` without a preprocessor takes ``path`` as pre-tokenised lines.

    A plain file (not ``*.jsonl`` / ``*.ndjson``) is one document of whitespace-separated tokens
    per line; a folder or a JSON Lines file is raw text.

    Parameters
    ----------
    path : path-like
        The corpus path.

    Returns
    -------
    bool
        True for a plain file.
    """
    p = Path(path).expanduser()
    return p.is_file() and not p.name.lower().endswith(JSONL_SUFFIXES)


@shared_doc
def read_corpus(
    path: PathLike,
    preprocessor: Preprocessor | None = None,
    *,
    glob: str = "**/*",
    text_field: str = "text",
    id_field: str | None = "id",
    label_field: str | None = None,
    ids_path: PathLike | None = None,
    vocabulary: Vocabulary | None = None,
    encoding: str | None = None,
) -> Corpus:
    """Read a corpus from ``path``, choosing the reader by the path.

    * a folder: one document per file (:func:`read_text_folder`), preprocessed;
    * ``*.jsonl`` / ``*.ndjson``: :func:`read_jsonl`, preprocessed;
    * any other file: one document per line.  Without a ``preprocessor`` the
      lines are taken as already tokenised (:func:`read_token_lines`); with
      one, each line is a raw text.

    Parameters
    ----------
    path : path-like
        The corpus.
    preprocessor : Preprocessor or None, default None
        Raw texts go through it (fitted: applied; unfitted: fitted on these
        documents; default: a fresh :class:`Preprocessor`).
    %(corpus_glob)s %(corpus_text_field)s %(corpus_id_field)s %(corpus_label_field)s %(corpus_ids_path)s
    vocabulary : Vocabulary or None, default None
        For pre-tokenised lines, the vocabulary to encode over (None: built from the file).
    %(files_encoding)s

    Returns: %(returns_read_corpus)s

    Raises: %(raises_path_missing)s %(raises_no_document)s %(raises_corpus_format)s
    """
    p = _existing(path, "corpus path")
    if is_token_file(p) and preprocessor is None:
        return read_token_lines(p, ids_path, vocabulary, encoding)
    raw = read_raw(
        p, glob=glob, text_field=text_field, id_field=id_field, label_field=label_field,
        ids_path=ids_path, encoding=encoding,
    )
    corpus = raw.to_corpus(preprocessor)
    corpus.metadata["source"] = str(p)
    return corpus
