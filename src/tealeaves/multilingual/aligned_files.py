"""A user's own aligned texts: reading them, and saving / loading an aligned reference.

Inputs (``tealeaves build-aligned-reference``, ``tealeaves pltm fit``)
-----------------------------------------------------------------
* **JSON Lines tuples**: one object per line, ``{"id": "gen-1", "en": "In the beginning...",
  "sv": "I begynnelsen..."}``.  ``id`` (a string or a whole number, unique) is required; every
  other key is a language code (:func:`~tealeaves.corpus.aligned.normalize_language`) whose value
  is the tuple's text in that language, or ``null`` / an absent key when the tuple has no
  document there.  An empty or blank text is refused (write ``null``): nothing is guessed.
  Blank lines are skipped.
* **Parallel line files with a document-id file**: ``--lang en=en.txt --lang sv=sv.txt
  --doc-ids ids.txt``: line ``i`` of every file belongs to the document named on line ``i`` of
  the id file (:func:`tealeaves.corpus.parallel.read_line_aligned`).

Every language must have at least one document, and at least one tuple must hold two
languages (otherwise no crosslingual count exists).

Saved aligned reference (a folder)
----------------------------------
``REF/aligned.json`` (``{"format": "tealeaves-aligned-reference", "format_version": 1, "name",
"n_tuples", "languages": {code: file}, "tuple_ids_file"}``), one
:class:`~tealeaves.coherence.index.ReferenceIndex` file per language (``<code>.idx``), all in the
shared tuple-id space (slot ``t`` of every index is tuple ``t``), and ``tuple_ids.txt``.
:func:`load_aligned_reference` checks the manifest and every index (checksums, structure, one
id space) and raises :class:`~tealeaves.errors.InputFormatError` for a path that is not such a
folder.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from tealeaves import _io
from tealeaves.corpus.aligned import normalize_language
from tealeaves.corpus.parallel import ParallelTexts, read_line_aligned
from tealeaves.errors import EmptyInputError, InputFormatError, ParameterError

FORMAT = "tealeaves-aligned-reference"
FORMAT_VERSION = 1
MANIFEST = "aligned.json"
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
    return str(value)


def read_jsonl_tuples(path: str | os.PathLike[str], encoding: str | None = None,
                      languages: Sequence[str] | None = None, aligned: bool = True) -> ParallelTexts:
    """Read JSON Lines tuples (module docstring) into :class:`ParallelTexts`.

    ``languages`` keeps only those languages (each must occur); by default every
    language key found is kept, in order of first appearance.  ``aligned=False`` (held-out
    documents to fold in) also accepts one language and tuples sharing no language.
    """
    lines = _io.read_lines(path, encoding, what="aligned tuples file")
    ids: list[str] = []
    rows: list[dict[str, str]] = []
    seen: dict[str, int] = {}
    keys: dict[str, None] = {}  # every language key, also one holding only nulls (refused below)
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"aligned tuples file '{path}' line {n}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputFormatError(f"{where} is not JSON ({exc.msg}, column {exc.colno})",
                                   fix="one object per line, e.g. " + JSONL_EXAMPLE) from None
        if not isinstance(obj, dict):
            raise InputFormatError(f"{where} holds a {type(obj).__name__}, not an object",
                                   fix="one object per line, e.g. " + JSONL_EXAMPLE)
        tid = _tuple_id(obj, where)
        if tid in seen:
            raise InputFormatError(f"{where}: id {tid!r} already used on line {seen[tid]}",
                                   fix="give every tuple a unique id")
        seen[tid] = n
        ids.append(tid)
        rows.append(_tuple_texts(obj, where))
        keys.update(dict.fromkeys(normalize_language(k) for k in obj if k != "id"))
    if not ids:
        raise EmptyInputError(f"aligned tuples file '{path}' holds no tuples", fix="expected lines like "
                              + JSONL_EXAMPLE)
    order = list(keys)
    if languages is not None:
        wanted = [normalize_language(x) for x in languages]
        missing = [x for x in wanted if x not in order]
        if missing:
            raise ParameterError(f"aligned tuples file '{path}' has no text in {missing} (it has {order})",
                                 fix="choose languages the file holds")
        order = wanted
    texts = {lang: [row.get(lang) for row in rows] for lang in order}
    out = ParallelTexts(ids, texts, metadata={"source": f"jsonl:{Path(path).name}"})
    check_tuples(out, f"aligned tuples file '{path}'", aligned)
    return out


def _tuple_texts(obj: dict, where: str) -> dict[str, str]:
    """The language -> text entries of one JSON tuple (``null`` = absent); refuses non-strings."""
    out: dict[str, str] = {}
    for key, value in obj.items():
        if key == "id":
            continue
        code = normalize_language(key)
        if code in out:
            raise InputFormatError(f"{where}: two keys name language {code!r}", fix="give each language once")
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
    """Line-aligned files per language grouped by a document-id file (module docstring)."""
    codes = [normalize_language(x) for x in files]
    if len(set(codes)) != len(codes):
        raise ParameterError(f"languages given twice: {list(files)}", fix="give each --lang once")
    for f in [*files.values(), doc_ids]:
        _io.existing_file(f, "parallel file")
    texts = read_line_aligned({c: str(f) for c, f in zip(codes, files.values(), strict=True)}, str(doc_ids),
                              encoding=encoding)
    if not texts.ids:
        raise EmptyInputError(f"document-id file '{doc_ids}' holds no ids", fix="one document id per line")
    check_tuples(texts, "parallel files", aligned)
    return texts


def check_tuples(texts: ParallelTexts, where: str, aligned: bool = True) -> None:
    """Refuse a language without documents and, if ``aligned``, fewer than two languages or no
    tuple holding two of them."""
    langs = texts.languages
    empty = [x for x in langs if all(t is None for t in texts.texts[x])]
    if empty:
        raise EmptyInputError(f"{where}: languages {empty} have no document", fix="drop them or add texts")
    if not aligned:
        return
    if len(langs) < 2:
        raise InputFormatError(f"{where} holds text in {len(langs)} language ({langs}); an aligned corpus "
                               "needs two or more", fix="add a second language to the tuples")
    shared = sum(sum(texts.texts[x][i] is not None for x in langs) >= 2 for i in range(len(texts.ids)))
    if shared == 0:
        raise InputFormatError(f"{where}: no tuple holds documents in two languages, so no crosslingual "
                               "count exists", fix="align the documents: give a tuple texts in several "
                               "languages under one id")


def read_aligned_input(inputs: Sequence[str], lang_files: Sequence[str] | None, doc_ids: str | None,
                       encoding: str | None = None, languages: Sequence[str] | None = None,
                       aligned: bool = True) -> ParallelTexts:
    """The CLI's input: one JSONL file, or ``--lang CODE=FILE ... --doc-ids FILE`` (``aligned``: see
    :func:`read_jsonl_tuples`)."""
    if lang_files:
        if inputs or not doc_ids:
            raise ParameterError("parallel line files need --doc-ids and no JSONL input",
                                 fix="give either INPUT.jsonl, or --lang en=en.txt --lang sv=sv.txt "
                                     "--doc-ids ids.txt")
        files = {}
        for spec in lang_files:
            code, sep, f = spec.partition("=")
            if not sep or not code or not f:
                raise ParameterError(f"--lang {spec!r} is not CODE=FILE", fix="e.g. --lang en=en.txt")
            files[code] = f
        texts = read_parallel_files(files, doc_ids, encoding, aligned)
        if languages:
            texts = ParallelTexts(texts.ids, {normalize_language(x): texts.texts[normalize_language(x)]
                                              for x in languages}, metadata=texts.metadata)
        return texts
    if doc_ids:
        raise ParameterError("--doc-ids belongs to parallel line files", fix="add --lang CODE=FILE options")
    if len(inputs) != 1:
        raise ParameterError(f"give one JSON Lines tuples file, got {len(inputs)}",
                             fix="e.g. tuples.jsonl, or --lang en=en.txt --lang sv=sv.txt --doc-ids ids.txt")
    return read_jsonl_tuples(inputs[0], encoding, languages, aligned)


# -- saved aligned references --------------------------------------------------------
def save_aligned_reference(reference, folder: str | os.PathLike[str]) -> Path:
    """Write an :class:`~tealeaves.multilingual.reference.AlignedReference` as a folder (module docstring)."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        from tealeaves.errors import OutputError
        raise OutputError(f"'{folder}' exists and is not a folder", fix="give a new folder name with -o")
    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    for lang, ix in reference.index.indices.items():
        files[lang] = f"{lang}.idx"
        ix.save(folder / files[lang])
    ids = reference.corpus.ids if reference.corpus is not None else [str(i) for i in range(
        reference.index.n_tuples)]
    _io.write_text(folder / "tuple_ids.txt", "".join(f"{i}\n" for i in ids), what="tuple id file")
    manifest = {"format": FORMAT, "format_version": FORMAT_VERSION, "name": reference.name,
                "n_tuples": reference.index.n_tuples, "languages": files, "tuple_ids_file": "tuple_ids.txt"}
    _io.write_text(folder / MANIFEST, json.dumps(manifest, indent=2), what="aligned reference manifest")
    return folder


def is_aligned_reference(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a folder holding an aligned-reference manifest."""
    return (Path(path) / MANIFEST).is_file()


def _not_reference(path: Path, what: str) -> InputFormatError:
    return InputFormatError(f"'{path}' is not an aligned reference: {what}",
                            fix="build one with `tealeaves build-aligned-reference TUPLES.jsonl -o REF`, or "
                                "give a built-in name (bible, flores, ntrex, tico19, udhr)")


def load_aligned_reference(path: str | os.PathLike[str], verify: bool = True):
    """Load a saved aligned reference folder as an :class:`AlignedReference` (checks: module docstring)."""
    from tealeaves.coherence.index import AlignedIndex, ReferenceIndex
    from tealeaves.multilingual.reference import AlignedReference

    path = Path(path)
    if not path.exists():
        from tealeaves.errors import InputNotFoundError
        raise InputNotFoundError(f"reference '{path}' does not exist",
                                 fix="give a built-in name (bible, flores, ntrex, tico19, udhr) or the "
                                     "folder written by `tealeaves build-aligned-reference`")
    if not path.is_dir():
        raise _not_reference(path, "it is a file, not a folder")
    if not (path / MANIFEST).is_file():
        raise _not_reference(path, f"the folder has no {MANIFEST}")
    try:
        manifest = json.loads(_io.read_text(path / MANIFEST, what="aligned reference manifest"))
    except json.JSONDecodeError as exc:
        raise _not_reference(path, f"{MANIFEST} is not JSON ({exc.msg})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise _not_reference(path, f"{MANIFEST} does not declare format {FORMAT!r}")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise InputFormatError(f"aligned reference '{path}' has format version "
                               f"{manifest.get('format_version')!r}; this tealeaves reads version "
                               f"{FORMAT_VERSION}",
                               fix="rebuild it with this tealeaves' `tealeaves build-aligned-reference`")
    files, n = manifest.get("languages"), manifest.get("n_tuples")
    if not isinstance(files, dict) or len(files) < 2 or not isinstance(n, int) or isinstance(n, bool):
        raise _not_reference(path, f"{MANIFEST} must list two or more language files and n_tuples")
    indices = {}
    for lang, name in files.items():
        code = normalize_language(lang)
        if not isinstance(name, str) or Path(name).name != name:
            raise _not_reference(path, f"the {lang} index file {name!r} is not a file name in the folder")
        ix = ReferenceIndex.load(path / name, verify=verify)
        if ix.n_documents != n:
            raise _not_reference(path, f"the {lang} index has {ix.n_documents} tuple slots, the manifest "
                                       f"says {n} (not one tuple-id space)")
        indices[code] = ix
    return AlignedReference.from_index(AlignedIndex(indices), str(manifest.get("name") or path.name))
