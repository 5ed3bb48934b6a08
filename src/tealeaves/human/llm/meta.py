"""The metadata of language-model annotators, and the signature fields every downstream score carries.

``tealeaves human ask`` keeps, per annotator, the settings and dates of its answers in the judgment
database (:func:`read_meta`); :func:`llm_fields` turns the annotators of a score and that metadata
into the fields ``human score`` signs with and reports (``llm``), which ``human correlate``,
``human compare`` and ``human models`` carry into their signatures (:func:`signed_llm`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from tealeaves._params import naming
from tealeaves.errors import ParameterError, StoreError

#: Prefix of an annotator's metadata key in the judgment database's ``meta`` table.
META_PREFIX = "llm_annotator:"

#: The signature fields naming the language-model annotators behind a score (:func:`llm_fields`).
LLM_FIELDS = ("llm", "llm_samples", "llm_dates")


def answer_dates(metadata) -> str:
    """The date range ``YYYY-MM-DD..YYYY-MM-DD`` of language-model answers, from their metadata.

    Parameters
    ----------
    metadata : iterable of dict
        Per annotator, the metadata ``tealeaves human ask`` writes (``first_answer``,
        ``last_answer``: ISO-8601 UTC times, or None).

    Returns
    -------
    str
        The first and last answer dates, or ``unknown`` when no metadata gives a date (judgments
        read from a table rather than the judgment database ``human ask`` wrote).

    Examples
    --------
    >>> answer_dates([{"first_answer": "2026-12-01T10:00:00Z", "last_answer": "2026-12-02T09:00:00Z"}])
    '2026-12-01..2026-12-02'
    """
    dates = sorted(str(d)[:10] for m in metadata if isinstance(m, dict)
                   for d in (m.get("first_answer"), m.get("last_answer")) if d)
    return f"{dates[0]}..{dates[-1]}" if dates else "unknown"


def llm_fields(annotators, metadata=None) -> dict:
    """Signature fields of language-model annotators (``tealeaves human ask``) among ``annotators``.

    The one description of the language models behind a human score: ``human score`` signs with
    it, writes it into its report (``llm``), and ``human correlate``, ``human compare`` and
    ``human models`` carry it into their signatures (their ``llm`` parameter).

    Parameters
    ----------
    annotators : iterable of str
        Annotator names; those of ``llm:<model>@<host>/<prompt_version>/t<T>/s<sample>`` count.
    metadata : mapping, optional
        Annotator name -> the metadata ``human ask`` wrote (``annotator_meta`` of
        :class:`~tealeaves.human.results.JudgmentResults`), for the dates of the answers.

    Returns
    -------
    dict
        ``{}`` without such annotators, else ``llm``: their settings without the sample
        (``llm:<model>@<host>/<prompt_version>/t<T>``, sorted), ``llm_samples``: how many annotators,
        and ``llm_dates``: the first and last answer dates of those annotators
        (:func:`answer_dates`).
    """
    names = sorted({str(a) for a in annotators if str(a).startswith("llm:")})
    if not names:
        return {}
    meta = metadata or {}
    return {"llm": sorted({n.rsplit("/s", 1)[0] for n in names}), "llm_samples": len(names),
            "llm_dates": answer_dates(meta.get(n) for n in names)}


def signed_llm(llm) -> dict:
    """The language-model fields a downstream signature adds: ``llm`` checked, ``{}`` for None.

    Parameters
    ----------
    llm : mapping or None
        What :func:`llm_fields` gave (``human score``'s report, key ``llm``; read back by
        :func:`~tealeaves.human.tables.load_scores` into ``meta["llm"]``).

    Returns
    -------
    dict
        The fields, in the order of :data:`LLM_FIELDS`.

    Raises
    ------
    ParameterError
        When ``llm`` is not a mapping of those fields (text, whole numbers, or lists of text).
    """
    if not llm:
        return {}
    ok = isinstance(llm, Mapping) and set(llm) <= set(LLM_FIELDS) and all(
        isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, list) and all(isinstance(x, str) for x in v)) for v in llm.values())
    if not ok:
        raise naming(ParameterError(f"llm must map {', '.join(LLM_FIELDS)} to their values, got {llm!r:.200}",
                                    fix="pass the 'llm' entry of `tealeaves human score`'s report "
                                        "(load_tables(...).meta['llm'])"), "llm")
    return {k: llm[k] for k in LLM_FIELDS if k in llm}


def read_meta(store, path) -> dict[str, dict]:
    """Annotator -> the metadata ``tealeaves human ask`` keeps in a judgment database's ``meta`` table.

    Parameters
    ----------
    store : JudgmentStore
        The open database.
    path : str or os.PathLike
        Its file, for messages.

    Returns
    -------
    dict of str to dict
        Annotator name -> its metadata (:mod:`tealeaves.human.llm.ask`); empty when it holds none.

    Raises
    ------
    StoreError
        When an entry is not a JSON object (the file was edited or damaged).
    """
    out = {}
    for key, text in store.meta(META_PREFIX).items():
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            value = None
        if not isinstance(value, dict) or not isinstance(value.get("unusable", {}), dict):
            raise StoreError(f"judgment database '{path}': the metadata of {key[len(META_PREFIX):]!r} is not "
                             "what `tealeaves human ask` writes (the file was edited or damaged)",
                             fix="restore the database, or ask again into a new one")
        out[key[len(META_PREFIX):]] = value
    return out


def annotator_metadata(path: str | Path) -> dict[str, dict]:
    """The metadata ``tealeaves human ask`` wrote into a judgment database, per language-model annotator.

    Parameters
    ----------
    path : str or os.PathLike
        The judgment database.

    Returns
    -------
    dict of str to dict
        Annotator name -> its metadata (:mod:`tealeaves.human.llm.ask`: model, endpoint host,
        prompt version and source, temperature, seed, sample, answer token limit, option order,
        first and last answer times, unusable replies).

    Raises
    ------
    StoreError
        When ``path`` is not a judgment database, or an annotator's metadata is not a JSON object.
    """
    from tealeaves.human.store import JudgmentStore

    store = JudgmentStore(path, readonly=True)
    try:
        return read_meta(store, path)
    finally:
        store.close()
