"""Word era: when an English word was first attested (the ``era`` estimator features).

Hao, Boyd-Graber and Paul (2018, §3.1) give the estimator the earliest usage
year of each English topic word so it can tell "modern" topics, which the Bible
cannot judge, from old ones.  tealeaves reads the SpellEng first-attestation
bands (``word-era/spelleng/spelleng_first_band.tsv``, Carr & Rastle 2024):

* a word's year is the **start year of its earliest OED band**
  (``oed_first_band_start``) over all lemmata with that headword (lookup is
  lowercased; a headword with several parts of speech takes the earliest);
  lemmata without an OED band fall back to ``corpus_first_band_start``;
* a word the table lacks is treated as **modern** and gets ``MODERN_YEAR``
  (1950): SpellEng covers words attested up to about 1920, so absence mostly
  means a later word (or a name, number or foreign token, which the Bible does
  not cover either).
"""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tealeaves import data
from tealeaves._docs import shared_doc
from tealeaves.errors import EmptyInputError
from tealeaves.multilingual._word_stats import english_word_stats

#: Year given to English words that SpellEng does not list (first attested after ~1920).
MODERN_YEAR = 1950
SPELLENG_PATH = "word-era/spelleng/spelleng_first_band.tsv"


@dataclass
class WordEra:
    """First-attestation year per lowercased English headword.

    The ``era`` features of the coherence estimator (Hao, Boyd-Graber and Paul 2018, §3.1);
    :func:`read_spelleng` builds one from SpellEng (Carr & Rastle 2024).

    Parameters
    ----------
    years : dict of str to int
        First-attestation year per lowercased headword.
    missing_year : int, default MODERN_YEAR
        Year of a word the table lacks (1950: treated as modern).
    source : str, default "spelleng"
        Name of the table, recorded in the ``era`` signature.
    """

    years: dict[str, int] = field(default_factory=dict)
    missing_year: int = MODERN_YEAR
    source: str = "spelleng"

    def year(self, word: str) -> int:
        """Year of ``word``; ``missing_year`` when the table lacks it.

        Parameters
        ----------
        word : str
            An English word (looked up lowercased).

        Returns
        -------
        int
            Its first-attestation year, or ``missing_year``.
        """
        return self.years.get(word.lower(), self.missing_year)

    @shared_doc
    def features(self, words: Sequence[str]) -> tuple[float, float, int]:
        """(mean year, population standard deviation, number of words not in the table).

        The values are the words' years; a word the table lacks counts at ``missing_year``.

        Parameters: %(english_words)s

        Returns: %(returns_word_stats)s

        Raises: %(raises_empty_words)s
        """
        return english_word_stats(words, "word era", lambda ws: [self.year(w) for w in ws],
                                  lambda ws: sum(w.lower() not in self.years for w in ws))


def _parse_year(text: str) -> int | None:
    text = (text or "").strip()
    return int(text) if text.lstrip("-").isdigit() else None


def read_spelleng(path: str | os.PathLike[str] | None = None, missing_year: int = MODERN_YEAR) -> WordEra:
    """Load ``spelleng_first_band.tsv`` (found with :func:`tealeaves.data.locate` by default).

    Each row's year is the start of its OED band (``oed_first_band_start``), else of its
    corpus band (``corpus_first_band_start``); a headword with several rows (parts of speech)
    takes the earliest (module docstring; Carr & Rastle 2024).

    Parameters
    ----------
    path : str or os.PathLike, optional
        The TSV file (default: ``word-era/spelleng/spelleng_first_band.tsv`` under the data
        folder).
    missing_year : int, default MODERN_YEAR
        Year of a word the table lacks (1950).

    Returns
    -------
    WordEra
        The years by lowercased headword, with source ``spelleng:<file name>``.

    Raises
    ------
    EmptyInputError
        When the file holds no headword with a year.
    """
    path = Path(path) if path is not None else data.locate(SPELLENG_PATH)
    years: dict[str, int] = {}
    with open(path, encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            head = (row.get("headword") or "").strip().lower()
            year = _parse_year(row.get("oed_first_band_start", ""))
            if year is None:
                year = _parse_year(row.get("corpus_first_band_start", ""))
            if not head or year is None:
                continue
            years[head] = min(year, years.get(head, year))
    if not years:
        raise EmptyInputError(f"{path} holds no headword years; is it spelleng_first_band.tsv?")
    return WordEra(years, missing_year, f"spelleng:{Path(path).name}")
