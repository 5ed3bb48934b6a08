"""A user's own aligned texts, read one tuple at a time: JSON Lines tuples and parallel line files.

Inputs (``tealeaves index build-aligned``, ``tealeaves pltm fit``)
-------------------------------------------------------------
* **JSON Lines tuples**: one object per line, ``{"id": "gen-1", "en": "In the beginning...",
  "sv": "I begynnelsen..."}``.  ``id`` (a string or a whole number, unique) is required; every
  other key is a language code (:func:`~tealeaves.corpus.aligned.language_code`) whose value
  is the tuple's text in that language, or ``null`` / an absent key when the tuple has no
  document there.  An empty or blank text is refused (write ``null``): nothing is guessed.
  Blank lines are skipped; an id holding a line break is refused (``tuple_ids.txt`` lists one id
  a line).  The file may be gzip/bz2/xz compressed and is read one line at a time.
* **Parallel line files with a document-id file**: ``--lang en=en.txt --lang sv=sv.txt
  --doc-ids ids.txt``: line ``i`` of every file belongs to the document named on line ``i`` of
  the id file (:func:`tealeaves.corpus.parallel.iter_line_aligned`: the files are read in step,
  a line at a time).

Every language must have at least one document, and at least one tuple must hold two
languages (otherwise no crosslingual count exists): :class:`TupleSummary` is the one set of
whole-input checks.  The streamed aligned build (:mod:`tealeaves.index.aligned`) and
``pltm fit|infer`` (:func:`read_aligned_input`) read through these functions; the saved aligned
reference folder is :mod:`tealeaves.index.aligned`'s (its format) and
:mod:`tealeaves.multilingual.reference`'s (the :class:`~tealeaves.multilingual.reference.AlignedReference`
it loads into).  :mod:`tealeaves.multilingual.aligned_files` re-exports every name for old imports.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tealeaves import _io
from tealeaves.corpus.aligned import language_code
from tealeaves.corpus.parallel import ParallelTexts, iter_line_aligned
from tealeaves.errors import EmptyInputError, InputFormatError, ParameterError, naming

JSONL_EXAMPLE = '{"id": "gen-1", "en": "In the beginning ...", "sv": "I begynnelsen ..."}'


# -- reading tuples -----------------------------------------------------------------
def _tuple_id(obj: dict, where: str) -> str:
    if "id" not in obj:
        raise InputFormatError(f"{where} has no \"id\"", fix="give every tuple an id, e.g. " + JSONL_EXAMPLE)
    value = obj["id"]
    if isinstance(value, bool) or not isinstance(value, (str, int)) or (isinstance(value, str) and
                                                                          not value.strip()):
        raise InputFormatError(f"{where}: \"id\" is {json.dumps(value)[:40]}; expected a non-empty string "
                               "or a whole number", fix="e.g. " + JSONL_EXAMPLE)
    if isinstance(value, str) and any(c in value for c in "\n\r"):
        raise InputFormatError(f"{where}: \"id\" {json.dumps(value)[:40]} holds a line break (the saved "
                               "reference lists one tuple id per line)", fix="give ids without line breaks")
    return str(value)


def iter_jsonl_tuples(path: str | os.PathLike[str], encoding: str | None = None
                      ) -> Iterator[tuple[str, dict[str, str | None]]]:
    """Every tuple of a JSON Lines file, streamed line by line (gzip/bz2/xz read transparently).

    Checks each line (module docstring) and, once the file is read, that its ids are unique.  The
    one parser of JSON Lines tuples: :func:`read_jsonl_tuples` collects it, the streamed build
    (:mod:`tealeaves.index.aligned`) indexes it shard by shard.  Memory: 8 bytes per tuple (a hash
    of each id; ids whose hashes collide are compared in a second pass over the file).

    Parameters
    ----------
    path : path
        The JSON Lines tuples file.
    encoding : str, optional
        Its encoding (default UTF-8).

    Yields
    ------
    tuple of (str, dict)
        ``(tuple id, {language: text or None})``, in file order.
    """
    from array import array

    p = Path(path)
    _io.existing_file(p, "aligned tuples file")
    hashes = array("q")
    for _, tid, texts in _jsonl_records(p, encoding):
        hashes.append(_id_hash(tid))
        yield tid, texts
    if not hashes:
        raise EmptyInputError(f"aligned tuples file '{path}' holds no tuples", fix="expected lines like "
                              + JSONL_EXAMPLE)
    _check_unique_ids(p, encoding, hashes)


def _jsonl_records(p: Path, encoding: str | None):
    """``(line number, id, texts)`` of every non-blank line, each checked."""
    from tealeaves.ingest.sources import _reading, _text_lines

    with _reading(p):
        for n, line in _text_lines(p, encoding):
            if not line.strip():
                continue
            where = f"aligned tuples file '{p}' line {n}"
            try:  # NaN is let through to the type checks, which name the key
                obj = _io.loads_strict(line, unique_keys=True, allow_constants=True)
            except json.JSONDecodeError as exc:
                raise InputFormatError(f"{where} is not JSON ({exc.msg}, column {exc.colno})",
                                       fix="one object per line, e.g. " + JSONL_EXAMPLE) from None
            except RecursionError:
                raise InputFormatError(f"{where}: JSON nested too deeply",
                                       fix="one flat object per line, e.g. " + JSONL_EXAMPLE) from None
            except _io.StrictJSONError as exc:  # a repeated key: json would keep the last one silently
                raise InputFormatError(f"{where}: {exc}", fix="give each key once per tuple") from None
            if not isinstance(obj, dict):
                raise InputFormatError(f"{where} holds a {type(obj).__name__}, not an object",
                                       fix="one object per line, e.g. " + JSONL_EXAMPLE)
            yield n, _tuple_id(obj, where), _tuple_texts(obj, where)


def _id_hash(tid: str) -> int:
    import hashlib

    return int.from_bytes(hashlib.blake2b(tid.encode("utf-8"), digest_size=8).digest(), "little", signed=True)


def _check_unique_ids(p: Path, encoding, hashes) -> None:
    """Refuse a repeated id, naming its two lines (only ids whose hash repeats are held in memory)."""
    import numpy as np

    h = np.sort(np.frombuffer(hashes, dtype=np.int64))
    clash = set(h[1:][h[1:] == h[:-1]].tolist())
    if not clash:
        return
    seen: dict[str, int] = {}
    for n, tid, _ in _jsonl_records(p, encoding):
        if _id_hash(tid) in clash:
            if tid in seen:
                raise InputFormatError(f"aligned tuples file '{p}' line {n}: id {tid!r} already used on line "
                                       f"{seen[tid]}", fix="give every tuple a unique id")
            seen[tid] = n


@dataclass
class TupleSummary:
    """What the tuples held: documents per language, tuples, and tuples holding two or more languages.

    Summaries of shards add up (:meth:`add`); :meth:`check` is the one set of whole-input checks.

    Parameters
    ----------
    documents : dict of str to int
        Documents per language, in order of first appearance (also languages with only ``null``
        texts).
    n_tuples : int
        Tuples read.
    n_shared : int
        Tuples with documents in two or more languages.
    """

    documents: dict[str, int] = field(default_factory=dict)
    n_tuples: int = 0
    n_shared: int = 0

    def count(self, texts: Mapping[str, str | None]) -> None:
        """Add one tuple.

        Parameters
        ----------
        texts : mapping of str to str or None
            Language -> text, ``None`` for a language without a document.
        """
        present = [lang for lang, t in texts.items() if t is not None]
        for lang, t in texts.items():
            self.documents[lang] = self.documents.get(lang, 0) + (t is not None)
        self.n_tuples += 1
        self.n_shared += len(present) >= 2

    def add(self, other: TupleSummary) -> None:
        """Add another shard's summary to this one.

        Parameters
        ----------
        other : TupleSummary
            The shard's summary.
        """
        for lang, n in other.documents.items():
            self.documents[lang] = self.documents.get(lang, 0) + n
        self.n_tuples += other.n_tuples
        self.n_shared += other.n_shared

    def select(self, languages: Sequence[str] | None, where: str) -> list[str]:
        """The languages kept: ``languages`` (each must occur) or every one found.

        Parameters
        ----------
        languages : sequence of str, optional
            The languages asked for (``None``: every one found).
        where : str
            The input, for the error message.

        Returns
        -------
        list of str
            The languages kept.
        """
        order = list(self.documents)
        if languages is None:
            return order
        missing = [x for x in languages if x not in order]
        if missing:
            raise ParameterError(f"{where} has no text in {missing} (it has {order})",
                                 fix="choose languages the file holds")
        return list(languages)

    def check(self, where: str, languages: Sequence[str], aligned: bool = True) -> None:
        """Refuse a language without documents and, if ``aligned``, fewer than two languages or no
        tuple holding two of them.

        Parameters
        ----------
        where : str
            The input, for the error message.
        languages : sequence of str
            The languages kept.
        aligned : bool
            Whether the input must be aligned (two languages sharing a tuple).
        """
        empty = [x for x in languages if not self.documents.get(x)]
        if empty:
            raise EmptyInputError(f"{where}: languages {empty} have no document",
                                  fix="drop them or add texts")
        if not aligned:
            return
        if len(languages) < 2:
            raise InputFormatError(f"{where} holds text in {len(languages)} language ({list(languages)}); an "
                                   "aligned corpus needs two or more", fix="add a second language to the "
                                   "tuples")
        if self.n_shared == 0:
            raise InputFormatError(f"{where}: no tuple holds documents in two languages, so no crosslingual "
                                   "count exists", fix="align the documents: give a tuple texts in several "
                                   "languages under one id")


def read_jsonl_tuples(path: str | os.PathLike[str], encoding: str | None = None,
                      languages: Sequence[str] | None = None, aligned: bool = True) -> ParallelTexts:
    """Read JSON Lines tuples (module docstring) into :class:`ParallelTexts`.

    Parameters
    ----------
    path, encoding
        As in :func:`iter_jsonl_tuples`, which reads the file.
    languages : sequence of str, optional
        Keep only these languages (each must occur); by default every language key found is kept,
        in order of first appearance.
    aligned : bool
        ``False`` (held-out documents to fold in) also accepts one language and tuples sharing no
        language.

    Returns
    -------
    ParallelTexts
        The tuples, in memory.
    """
    ids: list[str] = []
    rows: list[dict[str, str]] = []
    summary = TupleSummary()
    for tid, texts in iter_jsonl_tuples(path, encoding):
        ids.append(tid)
        rows.append(texts)
        summary.count(texts)
    where = f"aligned tuples file '{path}'"
    order = summary.select(None if languages is None else [language_code(x) for x in languages], where)
    texts = {lang: [row.get(lang) for row in rows] for lang in order}
    out = ParallelTexts(ids, texts, metadata={"source": f"jsonl:{Path(path).name}"})
    check_tuples(out, where, aligned)
    return out


def _tuple_texts(obj: dict, where: str) -> dict[str, str | None]:
    """The language -> text entries of one JSON tuple (``None``: ``null``, no document); refuses
    non-strings and empty texts."""
    out: dict[str, str | None] = {}
    for key, value in obj.items():
        if key == "id":
            continue
        code = language_code(key)
        if code in out:
            raise InputFormatError(f"{where}: two keys name language {code!r}", fix="give each language once")
        out[code] = None
        if value is None:
            continue
        if not isinstance(value, str):
            raise InputFormatError(f"{where}: {key!r} is {json.dumps(value)[:40]}; expected the text as a "
                                   "string, or null when the tuple has no document in that language")
        if not value.strip():
            raise InputFormatError(f"{where}: the {key!r} text is empty",
                                   fix="write null (or leave the key out) for a missing document")
        out[code] = value
    return out


def read_parallel_files(files: Mapping[str, str | os.PathLike[str]], doc_ids: str | os.PathLike[str],
                        encoding: str | None = None, aligned: bool = True) -> ParallelTexts:
    """Line-aligned files per language grouped by a document-id file (module docstring), in memory.

    Collects :func:`iter_parallel_files`.

    Parameters
    ----------
    files : mapping of str to path
        Each language's line file.
    doc_ids : path
        The document-id file (line ``i`` names the document of line ``i`` of every file).
    encoding : str, optional
        The files' encoding (default UTF-8).
    aligned : bool
        As in :func:`read_jsonl_tuples`.

    Returns
    -------
    ParallelTexts
        The documents, in memory.
    """
    ids, texts = [], {}
    for tid, row in iter_parallel_files(files, doc_ids, encoding):
        ids.append(tid)
        for lang, text in row.items():
            texts.setdefault(lang, []).append(text)
    out = ParallelTexts(ids, texts)
    check_tuples(out, "parallel files", aligned)
    return out


def iter_parallel_files(files: Mapping[str, str | os.PathLike[str]], doc_ids: str | os.PathLike[str],
                        encoding: str | None = None) -> Iterator[tuple[str, dict[str, str | None]]]:
    """The documents of line-aligned files, streamed, after checking the options.

    Read with :func:`tealeaves.corpus.parallel.iter_line_aligned`.

    Parameters
    ----------
    files : mapping of str to path
        Each language's line file.
    doc_ids : path
        The document-id file.
    encoding : str, optional
        The files' encoding (default UTF-8).

    Yields
    ------
    tuple of (str, dict)
        ``(document id, {language: text or None})``, in file order.
    """
    codes = [language_code(x) for x in files]
    if len(set(codes)) != len(codes):
        raise naming(ParameterError(f"languages given twice: {list(files)}", fix="give each language once in "
                                    "`lang_files`"), "lang_files")
    for f in [*files.values(), doc_ids]:
        _io.existing_file(f, "parallel file")
    empty = True
    by_code = {c: str(f) for c, f in zip(codes, files.values(), strict=True)}
    for item in iter_line_aligned(by_code, str(doc_ids), encoding=encoding):
        empty = False
        yield item
    if empty:
        raise EmptyInputError(f"document-id file '{doc_ids}' holds no ids", fix="one document id per line")


def check_tuples(texts: ParallelTexts, where: str, aligned: bool = True) -> None:
    """:meth:`TupleSummary.check` of in-memory texts.

    Parameters
    ----------
    texts : ParallelTexts
        The texts.
    where : str
        The input, for the error message.
    aligned : bool
        As in :meth:`TupleSummary.check`.
    """
    summary = TupleSummary()
    for i in range(len(texts.ids)):
        summary.count({x: texts.texts[x][i] for x in texts.languages})
    summary.check(where, texts.languages, aligned)


def split_language_list(text: str) -> list[str]:
    """The comma-separated entries of ``--languages`` (stripped), refusing an empty one.

    Parameters
    ----------
    text : str
        The comma-separated list.

    Returns
    -------
    list of str
        The entries.
    """
    parts = [p.strip() for p in text.split(",")]
    if "" in parts:
        raise naming(ParameterError(f"languages {text!r} has an empty entry", fix="e.g. `languages='en,sv'`"),
                     "languages")
    return parts


def parse_lang_files(specs: Sequence[str] | None) -> dict[str, str] | None:
    """``--lang CODE=FILE`` options as ``{code: file}``.

    Parameters
    ----------
    specs : sequence of str, optional
        The ``CODE=FILE`` options.

    Returns
    -------
    dict of str to str or None
        Code -> file (``None`` when there are none).
    """
    if not specs:
        return None
    files = {}
    for spec in specs:
        code, sep, f = spec.partition("=")
        if not sep or not code or not f:
            raise naming(ParameterError(f"lang_files {spec!r} is not CODE=FILE",
                                        fix="e.g. `lang_files='en=en.txt'`"), "lang_files")
        if code in files:
            raise naming(ParameterError(f"lang_files {code}= is given twice",
                                        fix="give one CODE=FILE per language in `lang_files`"), "lang_files")
        files[code] = f
    return files


def check_input_kind(inputs: Sequence, lang_files: Mapping | None, doc_ids: str | None) -> None:
    """Either JSON Lines inputs, or ``--lang`` files with ``--doc-ids`` (never both, never one half).

    Parameters
    ----------
    inputs : sequence
        The JSON Lines inputs.
    lang_files : mapping, optional
        The parallel line files, by language.
    doc_ids : str, optional
        Their document-id file.
    """
    if lang_files and (inputs or not doc_ids):
        raise naming(ParameterError("parallel line files need `doc_ids` and no JSONL input",
                                    fix="give either JSON Lines tuples (`inputs`), or parallel line files "
                                        "(`lang_files`) with their document ids (`doc_ids`)"),
                     "doc_ids", "inputs", "lang_files")
    if doc_ids and not lang_files:
        raise naming(ParameterError("doc_ids belongs to parallel line files",
                                    fix="give the line files as `lang_files`"), "doc_ids", "lang_files")


def read_aligned_input(inputs: Sequence[str], lang_files: Sequence[str] | None, doc_ids: str | None,
                       encoding: str | None = None, languages: Sequence[str] | None = None,
                       aligned: bool = True) -> ParallelTexts:
    """``pltm fit|infer``'s input in memory: one JSONL file, or ``--lang CODE=FILE ... --doc-ids FILE``.

    Parameters
    ----------
    inputs : sequence of str
        The JSON Lines file (one), or none with ``lang_files``.
    lang_files : sequence of str, optional
        ``CODE=FILE`` parallel line files.
    doc_ids : str, optional
        Their document-id file.
    encoding : str, optional
        The files' encoding (default UTF-8).
    languages : sequence of str, optional
        The languages to keep (default: all in the input).
    aligned : bool
        As in :func:`read_jsonl_tuples`.

    Returns
    -------
    ParallelTexts
        The texts, in memory.
    """
    files = parse_lang_files(lang_files)
    check_input_kind(inputs, files, doc_ids)
    if files:
        texts = read_parallel_files(files, doc_ids, encoding, aligned)
        if languages:
            texts = ParallelTexts(texts.ids, {language_code(x): texts.texts[language_code(x)]
                                              for x in languages}, metadata=texts.metadata)
        return texts
    if len(inputs) != 1:
        raise naming(ParameterError(f"give one JSON Lines tuples file, got {len(inputs)}",
                                    fix="e.g. tuples.jsonl, or parallel line files (`lang_files`) with their "
                                        "document ids (`doc_ids`)"), "inputs", "lang_files", "doc_ids")
    return read_jsonl_tuples(inputs[0], encoding, languages, aligned)
