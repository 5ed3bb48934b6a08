"""Bilingual dictionaries for matching translation accuracy (MTA).

Two on-disk formats are read:

* **MUSE** (Conneau et al. 2018): one ``english<space or tab>foreign`` pair per line,
  e.g. ``dictionaries/muse/en-ro.txt``;
* **Wiktionary** ``.all`` lists (Wiktionary_bli): ``foreign<TAB>english`` per line,
  e.g. ``dictionaries/wiktionary/ro-en.all``.

Both are loaded into a :class:`BilingualDictionary`, a set of (english, foreign)
pairs that answers "is (a, b) a translation pair?" in either direction.  Lines that
do not hold exactly two fields are skipped and counted in ``n_skipped``.  Files are
read with the policy of :mod:`tealeaves._io`: UTF-8 unless ``encoding`` says
otherwise, a byte-order mark removed, undecodable bytes refused with
:class:`~tealeaves.errors.InputEncodingError` (never replaced).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tealeaves import _io
from tealeaves.errors import EmptyInputError, InputFormatError, ParameterError, TealeavesError


@dataclass
class BilingualDictionary:
    """Translation pairs between ``source`` (usually ``en``) and ``target`` languages.

    ``pairs`` holds lowercased ``(source_word, target_word)`` tuples.  The dictionary of
    matching translation accuracy (:func:`~tealeaves.multilingual.measures.mta`; Hao,
    Boyd-Graber and Paul 2018).

    Parameters
    ----------
    source : str
        The source language code (usually ``en``).
    target : str
        The target language code.
    pairs : set of (str, str)
        Lowercased ``(source_word, target_word)`` tuples.
    name : str, default "dict"
        Name recorded in the MTA signature (the readers give ``muse:<file>`` or
        ``wiktionary:<file>``).
    n_skipped : int, default 0
        Lines of the file that were not read as a pair.
    """

    source: str
    target: str
    pairs: set[tuple[str, str]] = field(default_factory=set)
    name: str = "dict"
    n_skipped: int = 0

    def __post_init__(self) -> None:
        self._source_words = {a for a, _ in self.pairs}
        self._target_words = {b for _, b in self.pairs}

    def __len__(self) -> int:
        return len(self.pairs)

    def languages(self) -> tuple[str, str]:
        """The language pair.

        Returns
        -------
        tuple of (str, str)
            ``(source, target)``.
        """
        return self.source, self.target

    def oriented(self, l1: str, l2: str) -> BilingualDictionary:
        """Return this dictionary with ``l1`` as source and ``l2`` as target.

        Parameters
        ----------
        l1 : str
            The language to put as source.
        l2 : str
            The language to put as target.

        Returns
        -------
        BilingualDictionary
            ``self`` when already oriented so, else a copy with every pair swapped.

        Raises
        ------
        TealeavesError
            When the languages do not match.
        """
        if (l1, l2) == (self.source, self.target):
            return self
        if (l1, l2) == (self.target, self.source):
            return BilingualDictionary(self.target, self.source,
                                       {(b, a) for a, b in self.pairs}, self.name, self.n_skipped)
        raise TealeavesError(
            f"dictionary '{self.name}' translates {self.source}-{self.target}, not {l1}-{l2}; "
            f"load the {l1}-{l2} dictionary (or check the language codes)"
        )

    def is_translation(self, a: str, b: str) -> bool:
        """True when ``(a, b)`` (source word, target word) is a listed pair.

        Parameters
        ----------
        a : str
            A source-language word (compared lowercased).
        b : str
            A target-language word (compared lowercased).

        Returns
        -------
        bool
            Whether the pair is listed.
        """
        return (a.lower(), b.lower()) in self.pairs

    def covers(self, word: str, side: str) -> bool:
        """True when ``word`` has at least one entry on ``side`` ('source' or 'target').

        Parameters
        ----------
        word : str
            The word (compared lowercased).
        side : str
            ``"source"``, or any other value for the target side.

        Returns
        -------
        bool
            Whether some pair holds ``word`` on that side.
        """
        words = self._source_words if side == "source" else self._target_words
        return word.lower() in words


def _read_pairs(path: Path, swap: bool, split_any_space: bool,
                encoding: str | None = None) -> tuple[set[tuple[str, str]], int]:
    from tealeaves._io import split_lines

    pairs: set[tuple[str, str]] = set()
    skipped = 0
    for line in split_lines(_io.read_text(path, encoding, what="dictionary")):
        line = line.strip()
        if not line:
            continue
        parts = line.split() if split_any_space else line.split("\t")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            skipped += 1
            continue
        a, b = parts[0].strip().lower(), parts[1].strip().lower()
        pairs.add((b, a) if swap else (a, b))
    return pairs, skipped


def _check_nonempty(pairs: set, path: Path) -> None:
    if not pairs:
        raise EmptyInputError(
            f"dictionary {path} holds no translation pairs; check that it is a MUSE "
            "('english foreign') or Wiktionary ('foreign<TAB>english') file"
        )


def read_muse(path: str | os.PathLike[str], source: str = "en",
              target: str | None = None, encoding: str | None = None) -> BilingualDictionary:
    """Read a MUSE dictionary (``english foreign`` per line, space or tab separated).

    ``target`` defaults to the language code after the dash in a name like ``en-ro.txt``.
    MUSE is the dictionary set of Conneau et al. (2018).

    Parameters
    ----------
    path : str or os.PathLike
        The dictionary file.
    source : str, default "en"
        The language of the first column.
    target : str, optional
        The language of the second column (default: from the file name).
    encoding : str, optional
        The file's encoding (default UTF-8; module docstring).

    Returns
    -------
    BilingualDictionary
        The pairs, lowercased, named ``muse:<file name>``; lines without exactly two fields
        are counted in ``n_skipped``.

    Raises
    ------
    EmptyInputError
        When the file holds no translation pair.
    InputFormatError
        When ``target`` is not given and the file name does not tell it.
    """
    path = _io.existing_file(path, "dictionary")
    target = target or _codes_from_name(path.name)[1]
    pairs, skipped = _read_pairs(path, swap=False, split_any_space=True, encoding=encoding)
    _check_nonempty(pairs, path)
    return BilingualDictionary(source, target, pairs, f"muse:{path.name}", skipped)


def read_wiktionary(path: str | os.PathLike[str], source: str = "en",
                    target: str | None = None, encoding: str | None = None) -> BilingualDictionary:
    """Read a Wiktionary ``.all`` list (``foreign<TAB>english`` per line).

    The english side may hold several words (a definition); only single-token
    lines are kept, multi-token ones are counted in ``n_skipped``.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.all`` file.
    source : str, default "en"
        The language of the second (English) column.
    target : str, optional
        The language of the first column (default: the code before the dash in a name like
        ``ro-en.all``).
    encoding : str, optional
        The file's encoding (default UTF-8; module docstring).

    Returns
    -------
    BilingualDictionary
        The ``(english, foreign)`` pairs, lowercased, named ``wiktionary:<file name>``.

    Raises
    ------
    EmptyInputError
        When the file holds no single-token translation pair.
    InputFormatError
        When ``target`` is not given and the file name does not tell it.
    """
    path = _io.existing_file(path, "dictionary")
    target = target or _codes_from_name(path.name)[0]
    pairs, skipped = _read_pairs(path, swap=True, split_any_space=False, encoding=encoding)
    kept = {(a, b) for a, b in pairs if " " not in a and " " not in b}
    skipped += len(pairs) - len(kept)
    _check_nonempty(kept, path)
    return BilingualDictionary(source, target, kept, f"wiktionary:{path.name}", skipped)


def _codes_from_name(name: str) -> tuple[str, str]:
    stem = name.split(".")[0]
    codes = stem.split("-")
    if len(codes) != 2 or not all(codes):
        raise InputFormatError(
            f"cannot tell the languages of dictionary file '{name}'",
            fix="name it like 'en-ro.txt' (MUSE) or 'ro-en.all' (Wiktionary), or pass source= and target=",
        )
    return codes[0], codes[1]


def read_dictionary(path: str | os.PathLike[str], fmt: str = "auto", **kwargs) -> BilingualDictionary:
    """Read a dictionary in ``fmt`` ('muse', 'wiktionary' or 'auto': ``.all`` means Wiktionary).

    Parameters
    ----------
    path : str or os.PathLike
        The dictionary file.
    fmt : str, default "auto"
        ``"muse"`` (:func:`read_muse`), ``"wiktionary"`` (:func:`read_wiktionary`) or
        ``"auto"`` (Wiktionary for a ``.all`` suffix, else MUSE).
    **kwargs
        Passed to the reader: ``source``, ``target``, ``encoding``.

    Returns
    -------
    BilingualDictionary
        The dictionary read.

    Raises
    ------
    ParameterError
        When ``fmt`` is none of the three.
    """
    path = Path(path)
    if fmt == "auto":
        fmt = "wiktionary" if path.suffix == ".all" else "muse"
    if fmt == "muse":
        return read_muse(path, **kwargs)
    if fmt == "wiktionary":
        return read_wiktionary(path, **kwargs)
    raise ParameterError(f"unknown dictionary format {fmt!r}", fix="use 'muse', 'wiktionary' or 'auto'")


def merge(dictionaries: Iterable[BilingualDictionary]) -> BilingualDictionary:
    """Union of several dictionaries for the same language pair (oriented like the first).

    Parameters
    ----------
    dictionaries : iterable of BilingualDictionary
        Dictionaries of one language pair, in either orientation.

    Returns
    -------
    BilingualDictionary
        Every pair of every dictionary, named by the names joined with ``+``, with the sum
        of their ``n_skipped``.

    Raises
    ------
    EmptyInputError
        When no dictionary is given.
    TealeavesError
        When a dictionary translates another language pair.
    """
    dicts = list(dictionaries)
    if not dicts:
        raise EmptyInputError("no dictionaries to merge")
    first = dicts[0]
    pairs: set[tuple[str, str]] = set()
    for d in dicts:
        pairs |= d.oriented(first.source, first.target).pairs
    name = "+".join(d.name for d in dicts)
    return BilingualDictionary(first.source, first.target, pairs, name, sum(d.n_skipped for d in dicts))
