"""The rich-reference units of ``tealeaves reproduce hao2018``: modern parallel text cut into documents,
single sentences or runs of N sentences of one document (:func:`unit_texts`).

Split from :mod:`tealeaves.reproduce.hao2018`, which re-exports these names.
"""

from __future__ import annotations

from collections.abc import Sequence

from tealeaves._docs import shared_doc


def unit_group(unit: str) -> int:
    """Sentences per rich-reference unit: 0 for ``"document"``, 1 for ``"sentence"``, N for ``"N"``.

    Parameters
    ----------
    unit : str
        ``"document"``, ``"sentence"`` or a whole number >= 1 as ASCII digits.

    Returns
    -------
    int
        The number of sentences per unit (0: whole documents).

    Raises
    ------
    ParameterError
        If ``unit`` is not a string or not one of those.

    Examples
    --------
    >>> unit_group("document"), unit_group("sentence"), unit_group("4")
    (0, 1, 4)
    """
    from tealeaves.errors import ParameterError

    if not isinstance(unit, str):
        raise ParameterError(f"rich-reference unit must be a string, got {type(unit).__name__} {unit!r}",
                             fix="give 'document', 'sentence' or a whole number as text, e.g. '4'")
    if unit == "document":
        return 0
    if unit == "sentence":
        return 1
    if unit.isdigit() and unit.isascii() and int(unit) >= 1:
        return int(unit)
    raise ParameterError(f"rich-reference unit {unit!r} is not 'document', 'sentence' or a whole number >= 1",
                         fix="e.g. 'sentence' or '4' (runs of 4 sentences)")


def _unit_ids(doc_ids: Sequence[str], group: int) -> list[str]:
    """Per sentence line, its unit's id: ``doc#j`` for the j-th run of ``group`` lines of document ``doc``."""
    out, pos, prev = [], 0, None
    for d in doc_ids:
        pos = pos + 1 if d == prev else 0
        prev = d
        out.append(f"{d}#{pos // group}")
    return out


def _line_units(files: dict, doc_ids: list[str], group: int, source: str) -> tuple[list[str], dict]:
    """Line-aligned sentence files cut into units of ``group`` lines of one document: the units' ids
    (``source:doc#j``, whose part before ``#`` is the document's id in ``modern_texts``) and texts."""
    from tealeaves.corpus.parallel import read_line_aligned

    out = read_line_aligned(files, _unit_ids(doc_ids, group))
    return [f"{source}:{u}" for u in out.ids], out.texts


def _ntrex_units(pair: list[str], group: int) -> tuple[list[str], dict]:
    """NTREX-128 sentences in units."""
    from tealeaves._io import read_lines
    from tealeaves.corpus.parallel import NTREX_FILES
    from tealeaves.data import locate

    lines = read_lines(locate("parallel/ntrex128/DOCUMENT_IDS.tsv"))
    doc_ids = [line.split("\t")[0].strip() for line in lines if line.strip()]
    files = {x: locate(f"parallel/ntrex128/{NTREX_FILES[x]}") for x in pair}
    return _line_units(files, doc_ids, group, "ntrex128")


def _amharic_units(group: int, pseudo: int) -> tuple[list[str], dict]:
    """The Amharic-English sentence pairs in units within the ``pseudo``-sentence pseudo-documents of
    :func:`~tealeaves.reproduce.bible_vs_modern.amharic_english`."""
    from tealeaves.data import locate
    from tealeaves.reproduce.bible_vs_modern import AMHARIC_ENGLISH

    ids, texts = [], {"en": [], "am": []}
    for folder in AMHARIC_ENGLISH:
        files = {"en": locate(f"{folder}/english.txt"), "am": locate(f"{folder}/amharic.txt")}
        n = sum(1 for _ in open(files["en"], encoding="utf-8"))
        name = folder.rsplit("_", 1)[-1].lower()
        i, t = _line_units(files, [f"{name}{k // pseudo}" for k in range(n)], group,
                           f"amharic-english:amharic-english-{name}")
        ids += i
        for x in texts:
            texts[x] += t[x]
    return ids, texts


def _tico_units(pair: list[str], group: int) -> tuple[list[str], dict]:
    """TICO-19 segments (the multiway TSV, whose segments joined are the documents' texts) in units."""
    import csv

    from tealeaves.corpus.parallel import ParallelFormatError
    from tealeaves.data import locate

    path = locate("parallel/tico19/tico19_multiway_en_am_tl_zh.tsv")
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    if not rows or any(x not in rows[0] for x in ["doc", *pair]):
        raise ParallelFormatError(f"{path}: expected columns doc and {', '.join(pair)}")
    units = _unit_ids([r["doc"] for r in rows], group)
    ids = list(dict.fromkeys(units))
    texts = {x: {u: [] for u in ids} for x in pair}
    for u, r in zip(units, rows, strict=True):
        for x in pair:
            if r[x].strip():
                texts[x][u].append(r[x].strip())
    return [f"tico19:{u}" for u in ids], {x: [" ".join(texts[x][u]) or None for u in ids] for x in pair}


@shared_doc
def modern_units(lang: str, group: int) -> tuple[list[str], dict]:
    """Every modern en-``lang`` text of ``modern_texts`` in units of ``group`` sentences of one document:
    NTREX-128 and TICO-19 by sentence (segment), the Amharic-English pairs by sentence; FLORES-200
    documents (2-4 sentences) and UDHR articles stay whole.  Returns unit ids (``docid#j`` for a cut
    document, the document's id otherwise) and texts.

    Parameters
    ----------
    %(run_lang)s
    group : int
        Sentences per unit (>= 1).

    Returns
    -------
    ids : list of str
        The units' ids.
    texts : dict
        Per language (``"en"`` and ``lang``), the units' texts in ``ids`` order
        (None where a TICO-19 unit has no text on that side).
    """
    from tealeaves.corpus.parallel import TICO_LANGUAGES, flores_documents, udhr_articles
    from tealeaves.reproduce.bible_vs_modern import Config as BvmConfig

    pair, bvm = ["en", lang], BvmConfig()
    whole = [(f"{source}:", reader(pair)) for source, reader in (("flores200", flores_documents),
                                                                  ("udhr", udhr_articles))]
    parts = [([f"{p}{i}" for i in t.ids], t.texts) for p, t in whole] + [_ntrex_units(pair, group)]
    if lang in TICO_LANGUAGES:
        parts.append(_tico_units(pair, group))
    if lang == "am":
        parts.append(_amharic_units(group, bvm.am_group))
    ids = [i for p in parts for i in p[0]]
    return ids, {x: [v for p in parts for v in p[1][x]] for x in pair}


@shared_doc
def unit_texts(docs, lang: str, unit: str):
    """The documents ``docs`` (a ``ParallelTexts`` of ``modern_texts`` tuples) cut into ``unit`` units
    (:func:`unit_group`; :func:`modern_units`); only units with both sides present are kept.

    Parameters
    ----------
    docs : ParallelTexts
        English-``lang`` tuples of ``modern_texts``.
    %(run_lang)s
    unit : str
        The unit (:func:`unit_group`).

    Returns
    -------
    ParallelTexts
        ``docs`` itself for ``"document"``, else the units of its documents.

    Raises
    ------
    ParameterError
        If ``unit`` is not a valid unit.
    TealeavesError
        If a document has no sentence units (a bug).
    """
    from tealeaves.corpus.parallel import ParallelTexts
    from tealeaves.errors import TealeavesError

    group = unit_group(unit)
    if group == 0:
        return docs
    ids, texts = modern_units(lang, group)
    parents = [i.rsplit("#", 1)[0] for i in ids]
    wanted = set(docs.ids)
    unknown = wanted - set(parents)
    if unknown:
        raise TealeavesError(f"{len(unknown)} documents have no sentence units (e.g. {sorted(unknown)[0]!r})",
                             fix="this is a bug in tealeaves: please report it")
    keep = [k for k, p in enumerate(parents) if p in wanted and all(texts[x][k] for x in texts)]
    return ParallelTexts([ids[k] for k in keep], {x: [v[k] for k in keep] for x, v in texts.items()},
                         metadata={"source": f"{docs.metadata.get('source', 'modern')}-{unit}"})


@shared_doc
def nonflores_texts(lang: str, unit: str = "document"):
    """The modern en-``lang`` tuples that are not FLORES-200 (NTREX-128, UDHR, TICO-19, Amharic-English),
    in ``unit`` units (:func:`unit_texts`).

    Parameters
    ----------
    %(run_lang)s
    unit : str, default "document"
        The unit (:func:`unit_group`).

    Returns
    -------
    ParallelTexts
        The non-FLORES tuples (source ``modern-nonflores``), in units.
    """
    from tealeaves.corpus.parallel import ParallelTexts
    from tealeaves.reproduce.bible_vs_modern import Config as BvmConfig
    from tealeaves.reproduce.bible_vs_modern import modern_texts

    out = modern_texts(lang, BvmConfig())
    keep = [i for i, t in enumerate(out.ids) if not t.startswith("flores")]
    docs = ParallelTexts([out.ids[i] for i in keep], {x: [v[i] for i in keep] for x, v in out.texts.items()},
                         metadata={"source": "modern-nonflores"})
    return unit_texts(docs, lang, unit)
