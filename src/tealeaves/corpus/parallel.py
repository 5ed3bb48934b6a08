"""Readers for parallel and comparable corpora, returning aligned document tuples.

Every reader returns a :class:`ParallelTexts` (tuple ids, one text or ``None``
per language and tuple, optional labels); ``.to_aligned()`` preprocesses it into
an :class:`~tealeaves.corpus.aligned.AlignedCorpus`.  Languages are given and
returned as the codes of :func:`~tealeaves.corpus.aligned.normalize_language`
(``en, ro, sv, am, tl, tr, zh``); any of their aliases (``eng``, ``eng_Latn``,
``fil``, ``zho_Hans``...) is accepted.  Files are found with
:func:`tealeaves.data.locate`.

Formats
-------
* eBible verse-per-line text aligned to ``vref.txt`` -> chapters (``"GEN 1"``);
* the CES XML of the massively parallel Bible corpus -> the same chapter ids;
* FLORES-200 documents (``docs/<lang>.jsonl``) with SIB-200 topic labels;
* NTREX-128 (line-aligned files + ``DOCUMENT_IDS.tsv``);
* TICO-19 documents (``docs/<lang>.jsonl``);
* UDHR articles (``<lang>.articles.jsonl``);
* any line-aligned files with a document-id file (:func:`read_line_aligned`).

Files are read with the policy of :mod:`tealeaves._io` (UTF-8 unless an
``encoding`` is given, a byte-order mark removed, other bytes refused with
:class:`~tealeaves.errors.InputEncodingError` naming file and line); lines end
at ``\\n``, ``\\r\\n`` or ``\\r`` (:func:`tealeaves._io.split_lines`).
"""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tealeaves import _io
from tealeaves._docs import shared_doc
from tealeaves.corpus.aligned import (
    AlignedCorpus,
    LanguageMismatchError,
    UnknownLanguageError,
    language_code,
    normalize_language,
)
from tealeaves.corpus.preprocess import Preprocessor
from tealeaves.data import locate
from tealeaves.errors import EmptyInputError, ParallelFormatError, TealeavesError

__all__ = [
    "ParallelTexts",
    "BIBLE_TEXTS",
    "PROTESTANT_BOOKS",
    "read_ebible",
    "vref_chapters",
    "BIBLE_TEXTS_FULL",
    "read_ces_bible",
    "bible_chapters",
    "flores_documents",
    "sib200_labels",
    "ntrex_documents",
    "tico19_documents",
    "udhr_articles",
    "iter_line_aligned",
    "read_line_aligned",
    "normalize_language",
    "UnknownLanguageError",
]

#: The 66 books of the Protestant canon, in USFM 3 codes and canonical order.
PROTESTANT_BOOKS: tuple[str, ...] = tuple(
    "GEN EXO LEV NUM DEU JOS JDG RUT 1SA 2SA 1KI 2KI 1CH 2CH EZR NEH EST JOB PSA PRO ECC SNG ISA "
    "JER LAM EZK DAN HOS JOL AMO OBA JON MIC NAM HAB ZEP HAG ZEC MAL MAT MRK LUK JHN ACT ROM 1CO "
    "2CO GAL EPH PHP COL 1TH 2TH 1TI 2TI TIT PHM HEB JAS 1PE 2PE 1JN 2JN 3JN JUD REV".split()
)

#: Default Bible text of each language (paths relative to the data root).
BIBLE_TEXTS: dict[str, str] = {
    "en": "bible/ebible/eng-engwebp.txt",  # World English Bible, full
    "ro": "bible/ebible/ron-ronlsb.txt",  # NT
    "sv": "bible/ebible/swe-swe.txt",  # Kärnbibeln: NT + 5 OT books
    "tr": "bible/ebible/tur-turytc.txt",  # 55 books
    "zh": "bible/ebible/cmn-cmnfeb.txt",  # NT
    "am": "bible/ebible-extra/amh.txt",  # NT
    "tl": "bible/tagalog-angbiblia1905/tgl-TagAngBiblia1905.vref_aligned.txt",  # full
}

#: Full alternatives: Swedish Folkbibeln and the Chinese Union Version (simplified).
BIBLE_TEXTS_FULL: dict[str, str] = {
    **BIBLE_TEXTS,
    "sv": "bible/ebible-extra/swef.txt",
    "zh": "bible/ebible-extra/cmn-cu89s.txt",
}

_RANGE = "<range>"

#: Book codes of the CES Bible corpus that differ from USFM 3 (the others coincide).
CES_TO_USFM: dict[str, str] = {
    "MAR": "MRK", "JOH": "JHN", "PHI": "PHP", "JAM": "JAS", "1JO": "1JN", "2JO": "2JN", "3JO": "3JN",
    "SON": "SNG", "EZE": "EZK", "JOE": "JOL", "NAH": "NAM",
}


@dataclass
class ParallelTexts:
    """Raw aligned texts: ``texts[lang][t]`` is tuple ``t``'s text in ``lang`` (``None`` if missing).

    Parameters
    ----------
    ids : list of str
        One id per tuple.
    texts : dict of str to list of (str or None)
        Per language, one text (or ``None``) per tuple.
    labels : list or None, default None
        Optional per-tuple labels.
    metadata : dict, default {}
        The source and its details.
    """

    ids: list[str]
    texts: dict[str, list[str | None]]
    labels: list | None = None
    metadata: dict = field(default_factory=dict)

    @property
    def languages(self) -> list[str]:
        return list(self.texts)

    def to_aligned(
        self, preprocessors: Mapping[str, Preprocessor] | None = None, fit: bool = True
    ) -> AlignedCorpus:
        """Preprocess into an :class:`AlignedCorpus` (see :meth:`AlignedCorpus.from_texts`).

        Parameters
        ----------
        preprocessors : mapping of str to Preprocessor or None, default None
            Each language's preprocessor (default: ``default_preprocessor``).
        fit : bool, default True
            Fit the preprocessors on these texts; False uses them as fitted.

        Returns
        -------
        AlignedCorpus
            The encoded tuples, with this object's metadata.
        """
        out = AlignedCorpus.from_texts(self.texts, self.ids, preprocessors, self.labels, fit=fit)
        out.metadata.update(self.metadata)
        return out


def _languages(languages: Sequence[str] | str, available: Mapping[str, object], corpus: str) -> list[str]:
    """Normalise requested language codes and check that ``corpus`` has them."""
    if isinstance(languages, str):
        languages = [languages]
    out = [normalize_language(x) for x in languages]
    if not out:
        raise EmptyInputError(f"no languages requested from {corpus}")
    missing = [x for x in out if x not in available]
    if missing:
        raise LanguageMismatchError(
            f"{corpus} has no text in {missing}; available: {sorted(available)}"
        )
    return out


def _read_lines(path: Path, encoding: str | None = None) -> list[str]:
    return _io.read_lines(path, encoding)


def _aligned_lines(path: Path, expected: int, why: str, encoding: str | None = None) -> list[str]:
    """The lines of a line-aligned file (one final newline allowed); exactly ``expected`` of them."""
    lines = _read_lines(path, encoding)
    if len(lines) != expected:
        raise ParallelFormatError(f"{path} has {len(lines)} lines but {why}")
    return lines


# -- Bible --------------------------------------------------------------------
def _chapter(ref: str) -> str:
    """``"GEN 1:1"`` -> ``"GEN 1"``."""
    book_chapter, sep, _ = ref.strip().partition(":")
    if not sep:
        raise ParallelFormatError(f"verse reference {ref!r} is not of the form 'BOOK C:V'")
    return book_chapter


def read_ebible(path: str | Path, vref: str | Path | None = None) -> dict[str, str | None]:
    """Group an eBible verse-per-line file into chapters, in ``vref.txt`` order.

    Line ``i`` of the text holds the verse named on line ``i`` of ``vref.txt``;
    an empty line is a missing verse and ``<range>`` marks a verse merged into
    an earlier one.  A chapter's text is its verses joined by spaces.  Relative paths
    are resolved with :func:`tealeaves.data.locate`.

    Parameters
    ----------
    path : str or Path
        The eBible text.
    vref : str or Path or None, default None
        The verse list; None takes the ``vref.txt`` beside the text, else ``bible/ebible/vref.txt``.

    Returns
    -------
    dict of str to (str or None)
        Chapter id (``"GEN 1"``) to text; a chapter with no verse at all is ``None``
        (missing in this language).

    Raises
    ------
    ParallelFormatError
        If the text does not have one line per verse, or a reference is malformed.
    """
    path = _resolve(path)
    if vref is None:
        vref = path.parent / "vref.txt"
        if not vref.exists():
            vref = locate("bible/ebible/vref.txt")
    refs = [r for r in _read_lines(_resolve(vref)) if r.strip()]
    lines = _aligned_lines(
        path, len(refs), f"{vref} lists {len(refs)} verses; an eBible text must have exactly one line "
        "per vref.txt entry (use the vref.txt it was extracted with)"
    )
    chapters: dict[str, list[str]] = {}
    present: dict[str, bool] = {}
    for ref, line in zip(refs, lines, strict=True):
        ch = _chapter(ref)
        verses = chapters.setdefault(ch, [])
        text = line.strip()
        if text:
            present[ch] = True
            if text != _RANGE:
                verses.append(text)
    return {ch: (" ".join(v) if present.get(ch) else None) for ch, v in chapters.items()}


def read_ces_bible(path: str | Path) -> dict[str, str | None]:
    """Group the verses of a CES XML Bible (``<seg id="b.MAT.1.1" type="verse">``) into chapters.

    Chapter ids follow eBible (``"MAT 1"``): the corpus's own book codes are
    mapped to USFM 3 with :data:`CES_TO_USFM` (``MAR`` -> ``MRK``, ``JOH`` ->
    ``JHN``...).

    Parameters
    ----------
    path : str or Path
        The XML file (relative paths resolved with :func:`tealeaves.data.locate`).

    Returns
    -------
    dict of str to (str or None)
        Chapter id to text, in document order; a chapter whose verses are all empty is ``None``.

    Raises
    ------
    ParallelFormatError
        If the XML is malformed or a verse id is not ``b.BOOK.C.V``.
    EmptyInputError
        If the file has no verses.
    """
    path = _io.existing_file(_resolve(path), "CES XML Bible")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise ParallelFormatError(f"{path} is not well-formed CES XML: {exc}") from exc
    chapters: dict[str, list[str]] = {}
    for seg in root.iter("seg"):
        parts = (seg.get("id") or "").split(".")
        if len(parts) != 4 or parts[0] != "b":
            raise ParallelFormatError(f"{path}: verse id {seg.get('id')!r} is not of the form b.BOOK.C.V")
        book = CES_TO_USFM.get(parts[1], parts[1])
        verses = chapters.setdefault(f"{book} {parts[2]}", [])
        text = " ".join("".join(seg.itertext()).split())
        if text:
            verses.append(text)
    if not chapters:
        raise EmptyInputError(f"{path} has no <seg> verses")
    return {ch: (" ".join(v) if v else None) for ch, v in chapters.items()}


def vref_chapters(vref: str | Path = "bible/ebible/vref.txt") -> list[str]:
    """Every chapter id of ``vref.txt`` in order (1,511 with the deuterocanon; 1,189 in the 66 books).

    Parameters
    ----------
    vref : str or Path, default "bible/ebible/vref.txt"
        The verse list.

    Returns
    -------
    list of str
        Chapter ids such as ``"GEN 1"``.
    """
    refs = (r for r in _read_lines(_resolve(vref)) if r.strip())
    return list(dict.fromkeys(_chapter(r) for r in refs))


def _resolve(path: str | Path) -> Path:
    p = Path(path)
    return p if p.is_absolute() or p.exists() else locate(p)


def bible_chapters(
    languages: Sequence[str] | Mapping[str, str | Path],
    canon: Sequence[str] | None = PROTESTANT_BOOKS,
    drop_incomplete: bool = True,
) -> ParallelTexts:
    """Bible chapters aligned across languages (one tuple per chapter, id ``"GEN 1"``).

    A chapter missing in a language is ``None`` there.

    Parameters
    ----------
    languages : sequence of str or mapping of str to (str or Path)
        A list of codes (using :data:`BIBLE_TEXTS`) or a mapping code -> file (an
        eBible ``.txt`` or a CES ``.xml``).
    canon : sequence of str or None, default PROTESTANT_BOOKS
        Restricts the tuples to those books, in the order given (default: the 66
        books of the Protestant canon, 1,189 chapters in ``vref.txt``'s
        versification); ``None`` keeps every chapter of every text.
    drop_incomplete : bool, default True
        Drop tuples missing in every language.

    Returns
    -------
    ParallelTexts
        The chapters.

    Raises
    ------
    LanguageMismatchError
        If a requested language has no default Bible text.
    ParallelFormatError
        If a file is malformed.
    """
    files = (
        {normalize_language(k): v for k, v in languages.items()}
        if isinstance(languages, Mapping)
        else {x: BIBLE_TEXTS[x] for x in _languages(languages, BIBLE_TEXTS, "the Bible texts")}
    )
    per_lang = {
        lang: (read_ces_bible(f) if str(f).endswith(".xml") else read_ebible(f)) for lang, f in files.items()
    }
    seen: dict[str, None] = dict.fromkeys(vref_chapters())
    for chs in per_lang.values():
        seen.update(dict.fromkeys(chs))
    ids = list(seen)
    if canon is not None:
        books = {b: i for i, b in enumerate(canon)}
        ids = sorted((c for c in ids if c.split()[0] in books), key=lambda c: books[c.split()[0]])
    texts = {lang: [chs.get(c) for c in ids] for lang, chs in per_lang.items()}
    if drop_incomplete:
        keep = [i for i in range(len(ids)) if any(texts[x][i] is not None for x in texts)]
        ids = [ids[i] for i in keep]
        texts = {x: [t[i] for i in keep] for x, t in texts.items()}
    meta = {"source": "bible", "files": {k: str(v) for k, v in files.items()}}
    return ParallelTexts(ids, texts, metadata=meta)


# -- FLORES-200 and SIB-200 ------------------------------------------------------
FLORES_CODES: dict[str, str] = {
    "en": "eng_Latn", "am": "amh_Ethi", "ro": "ron_Latn", "sv": "swe_Latn",
    "tl": "tgl_Latn", "tr": "tur_Latn", "zh": "zho_Hans",
}


def _read_jsonl(path: Path, key: str = "doc_id") -> list[dict]:
    """The JSON objects of a JSON Lines file, each holding ``key``; malformed lines name their number."""
    records = []
    for lineno, line in enumerate(_read_lines(path), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise ParallelFormatError(f"{path}, line {lineno}: malformed JSON ({exc})",
                                      fix="each line must be one JSON object") from None
        if not isinstance(record, dict) or key not in record:
            raise ParallelFormatError(f"{path}, line {lineno}: expected a JSON object with a {key!r} field")
        records.append(record)
    return records


def _jsonl_documents(
    languages: Sequence[str], files: Mapping[str, str], corpus: str, text_key: str = "text"
) -> tuple[list[str], dict[str, list[str | None]], dict[str, list[dict]]]:
    """Align ``doc_id``-keyed jsonl documents; returns ids (first language's order), texts, records."""
    records = {lang: _read_jsonl(locate(files[lang])) for lang in languages}
    ids: list[str] = []
    seen: set[str] = set()
    for lang in languages:
        for r in records[lang]:
            if r["doc_id"] not in seen:
                seen.add(r["doc_id"])
                ids.append(r["doc_id"])
    texts = {}
    for lang in languages:
        by_id = {r["doc_id"]: (r.get(text_key) or None) for r in records[lang]}
        texts[lang] = [by_id.get(i) for i in ids]
    return ids, texts, records


def sib200_labels(language: str = "en") -> dict[int, str]:
    """SIB-200 topic labels keyed by FLORES sentence id.

    SIB-200's ``index_id`` numbers the sentences of FLORES-200 ``dev`` (0-996)
    followed by ``devtest`` (997-2008), which is exactly the ``sent_ids``
    numbering of the FLORES document files; the train, dev and test splits
    together label 1,004 sentences.  Labels are the same in every language.

    Parameters
    ----------
    language : str, default "en"
        The language whose annotation files are read.

    Returns
    -------
    dict of int to str
        Sentence id to topic label.
    """
    lang = _languages([language], FLORES_CODES, "SIB-200")[0]
    out: dict[int, str] = {}
    for split in ("train", "dev", "test"):
        path = locate(f"parallel/sib200/annotated/{FLORES_CODES[lang]}/{split}.tsv")
        with open(path, encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                out[int(row["index_id"])] = row["category"]
    return out


def _majority_label(sent_ids: Sequence[int], labels: Mapping[int, str], order: Sequence[str]) -> str | None:
    """Most frequent label among a document's labelled sentences; ties -> earliest in ``order``."""
    counts = Counter(labels[s] for s in sent_ids if s in labels)
    if not counts:
        return None
    rank = {lab: i for i, lab in enumerate(order)}
    return min(counts, key=lambda lab: (-counts[lab], rank.get(lab, len(rank)), lab))


SIB_LABELS: tuple[str, ...] = (
    "science/technology", "travel", "politics", "sports", "health", "entertainment", "geography",
)


@shared_doc
def flores_documents(languages: Sequence[str], split: str | None = None) -> ParallelTexts:
    """FLORES-200 documents aligned across languages, labelled with SIB-200 topics.

    481 documents (``flores_dev_*`` and ``flores_devtest_*``), the same
    ``doc_id`` in every language.  Each document's label is the majority SIB-200 label of its
    labelled sentences (ties go to the label listed first in SIB-200's
    ``labels.txt`` order, :data:`SIB_LABELS`), or ``None`` when none of its
    sentences is in SIB-200.

    Parameters
    ----------
    %(parallel_languages)s
    split : str or None, default None
        Keep only ``"dev"`` or ``"devtest"``; None keeps both.

    Returns
    -------
    ParallelTexts
        The documents; ``metadata["sent_ids"]`` keeps each document's FLORES sentence ids.

    Raises
    ------
    %(raises_no_language)s %(raises_language_missing)s
    TealeavesError
        If ``split`` is not ``"dev"`` or ``"devtest"``.
    """
    langs = _languages(languages, FLORES_CODES, "FLORES-200")
    files = {x: f"parallel/flores200/docs/{FLORES_CODES[x]}.jsonl" for x in langs}
    ids, texts, records = _jsonl_documents(langs, files, "FLORES-200")
    meta = {r["doc_id"]: r for r in records[langs[0]]}
    if split is not None:
        if split not in ("dev", "devtest"):
            raise TealeavesError(f"FLORES split must be 'dev' or 'devtest', got {split!r}")
        keep = [i for i, d in enumerate(ids) if meta[d]["split"] == split]
        ids = [ids[i] for i in keep]
        texts = {x: [t[i] for i in keep] for x, t in texts.items()}
    sib = sib200_labels(langs[0])
    sent_ids = {d: list(meta[d]["sent_ids"]) for d in ids}
    labels = [_majority_label(sent_ids[d], sib, SIB_LABELS) for d in ids]
    return ParallelTexts(ids, texts, labels, {"source": "flores200", "sent_ids": sent_ids})


# -- NTREX-128, TICO-19, UDHR, generic ---------------------------------------------
NTREX_FILES: dict[str, str] = {
    "en": "newstest2019-src.eng.txt", "am": "newstest2019-ref.amh.txt",
    "tl": "newstest2019-ref.fil.txt", "ro": "newstest2019-ref.ron.txt",
    "sv": "newstest2019-ref.swe.txt", "tr": "newstest2019-ref.tur.txt",
    "zh": "newstest2019-ref.zho-CN.txt",
}


@shared_doc
def read_line_aligned(
    files: Mapping[str, str | Path], doc_ids: str | Path | Sequence[str], separator: str = " ",
    encoding: str | None = None,
) -> ParallelTexts:
    """Line-aligned sentence files grouped into documents by a document-id file.

    Consecutive lines with the same id form one document (ids must not recur after
    another id).  Empty lines are missing sentences.  Collects :func:`iter_line_aligned`.

    Parameters
    ----------
    %(parallel_files)s
    doc_ids : str or Path or sequence of str
        A file with one document id per line (the first tab-separated field), or
        the list itself.
    %(parallel_separator)s %(parallel_encoding)s

    Returns
    -------
    ParallelTexts
        The documents; a document with no sentence in a language is ``None`` there.

    Raises: %(raises_parallel_format)s
    """
    langs = [language_code(x) for x in files]
    order: list[str] = []
    texts: dict[str, list[str | None]] = {lang: [] for lang in langs}
    for d, row in iter_line_aligned(files, doc_ids, separator, encoding):
        order.append(d)
        for lang in langs:
            texts[lang].append(row[lang])
    return ParallelTexts(order, texts)


_ID_FIX = "blank lines of the document-id file are skipped: give every line an id"


@shared_doc
def iter_line_aligned(
    files: Mapping[str, str | Path], doc_ids: str | Path | Sequence[str], separator: str = " ",
    encoding: str | None = None,
) -> Iterator[tuple[str, dict[str, str | None]]]:
    """The documents of :func:`read_line_aligned`, one at a time.

    The files are read in step, a line at a time (memory: one document, and the ids seen).

    Parameters
    ----------
    %(parallel_files)s
    doc_ids : str or Path or sequence of str
        A document-id file (blank lines skipped) or the ids themselves.
    %(parallel_separator)s %(parallel_encoding)s

    Yields
    ------
    tuple of (str, dict of str to (str or None))
        ``(document id, {language: text or None})``.

    Raises: %(raises_parallel_format)s
    """
    if isinstance(doc_ids, (str, Path)):
        path = _resolve(doc_ids)
        ids: Iterable[str] = (line.split("\t")[0].strip() for line in _io.iter_lines(path, encoding)
                              if line.strip())
    else:
        ids = list(doc_ids)
    paths = {language_code(lang): _resolve(f) for lang, f in files.items()}
    streams = {lang: (path, _io.iter_lines(path, encoding)) for lang, path in paths.items()}
    seen: set[str] = set()
    current: str | None = None
    parts: dict[str, list[str]] = {lang: [] for lang in streams}
    n = 0
    ids = iter(ids)
    for n, d in enumerate(ids, start=1):
        if d != current:
            if d in seen:
                raise ParallelFormatError(f"document id {d!r} recurs at line {n} after other documents; "
                                          "a document's lines must be consecutive")
            if current is not None:
                yield current, {lang: separator.join(p) or None for lang, p in parts.items()}
            seen.add(d)
            current, parts = d, {lang: [] for lang in streams}
        for lang, (path, lines) in streams.items():
            line = next(lines, None)
            if line is None:
                total = n + sum(1 for _ in ids)
                raise ParallelFormatError(f"{path} has {n - 1} lines but there are {total} document ids; "
                                          "line-aligned files need one line per id", fix=_ID_FIX)
            if line.strip():
                parts[lang].append(line.strip())
    for path, lines in streams.values():
        extra = sum(1 for _ in lines)
        if extra:
            raise ParallelFormatError(f"{path} has {n + extra} lines but there are {n} document ids; "
                                      "line-aligned files need one line per id", fix=_ID_FIX)
    if current is not None:
        yield current, {lang: separator.join(p) or None for lang, p in parts.items()}


def ntrex_documents(languages: Sequence[str]) -> ParallelTexts:
    """NTREX-128: 1,997 news sentences in 123 documents (English is the original source).

    Parameters
    ----------
    languages : sequence of str
        Language codes (any alias of :func:`~tealeaves.corpus.aligned.normalize_language`).

    Returns
    -------
    ParallelTexts
        The documents.

    Raises
    ------
    EmptyInputError
        If no language is requested.
    LanguageMismatchError
        If the corpus has no text in a requested language.
    """
    langs = _languages(languages, NTREX_FILES, "NTREX-128")
    files = {x: locate(f"parallel/ntrex128/{NTREX_FILES[x]}") for x in langs}
    out = read_line_aligned(files, locate("parallel/ntrex128/DOCUMENT_IDS.tsv"))
    out.metadata["source"] = "ntrex128"
    return out


TICO_LANGUAGES = ("en", "am", "tl", "zh")


@shared_doc
def tico19_documents(languages: Sequence[str]) -> ParallelTexts:
    """TICO-19: 31 COVID-19 documents (medical, Wikipedia, news) in en, am, tl, zh.

    Parameters: %(parallel_languages)s

    Returns: %(returns_parallel)s

    Raises: %(raises_no_language)s %(raises_language_missing)s
    """
    langs = _languages(languages, dict.fromkeys(TICO_LANGUAGES), "TICO-19")
    files = {x: f"parallel/tico19/docs/{x}.jsonl" for x in langs}
    ids, texts, _ = _jsonl_documents(langs, files, "TICO-19")
    return ParallelTexts(ids, texts, metadata={"source": "tico19"})


UDHR_FILES: dict[str, str] = {
    "en": "eng", "am": "amh", "ro": "ron", "sv": "swe", "tl": "tgl", "tr": "tur", "zh": "cmn_hans",
}


@shared_doc
def udhr_articles(languages: Sequence[str]) -> ParallelTexts:
    """The Universal Declaration of Human Rights: 31 documents (preamble + 30 articles).

    Parameters: %(parallel_languages)s

    Returns: %(returns_parallel)s

    Raises: %(raises_no_language)s %(raises_language_missing)s
    """
    langs = _languages(languages, UDHR_FILES, "the UDHR")
    files = {x: f"parallel/udhr/{UDHR_FILES[x]}.articles.jsonl" for x in langs}
    ids, texts, _ = _jsonl_documents(langs, files, "UDHR")
    return ParallelTexts(ids, texts, metadata={"source": "udhr"})
