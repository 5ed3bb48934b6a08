"""MALLET's topic keys (``--output-topic-keys``): ``topic<TAB>alpha<TAB>word word ...`` per line.

The lines of the format and the alphas they print;
:func:`~tealeaves.models.adapters.topic_files.read_topic_keys` reads a file of them as a ranked-word-list
model, and :mod:`tealeaves.models.adapters.mallet` reads the alphas of a MALLET run from it.
"""

from __future__ import annotations

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves._io import read_lines
from tealeaves._params import renamed_parameters
from tealeaves.errors import EmptyInputError, InputFormatError, naming
from tealeaves.models.adapters._text_fields import INT, parse_index, parse_number, where


@shared_doc
def split_topic_keys_line(line: str) -> list[str] | None:
    """``[topic, alpha, words]`` of a topic-keys line, or ``None`` if it is not one (tab-separated).

    Parameters: %(topic_file_line)s

    Returns
    -------
    list of str or None
        The three fields.
    """
    parts = line.split("\t", 2)
    return parts if len(parts) == 3 else None


@shared_doc
def looks_like_topic_keys(line: str) -> bool:
    """Whether ``line`` has the shape ``topic<TAB>number<TAB>words`` of ``--output-topic-keys``.

    Parameters: %(topic_file_line)s

    Returns
    -------
    bool
        Whether it matches.
    """
    parts = split_topic_keys_line(line)
    if parts is None or not INT.match(parts[0].strip()) or not parts[2].strip():
        return False
    try:
        parse_number(parts[1], "", 0, "")
    except InputFormatError:
        return False
    return True


def parse_topic_keys(lines: list[str], path) -> tuple[list[int], list[float], list[list[str]]]:
    """Topic ids, alphas and word lists of ``--output-topic-keys`` lines (blank lines skipped).

    Lines without tabs are split on whitespace (a file whose tabs were turned into spaces).

    Parameters
    ----------
    lines : list of str
        The file's lines.
    path : str or Path
        The file, for messages.

    Returns
    -------
    tuple
        ``(ids, alphas, topics)``: the topic ids, their alphas and their word lists.

    Raises
    ------
    InputFormatError
        When a line is not ``topic<TAB>alpha<TAB>top words``.
    EmptyInputError
        When there are no topics.
    """
    ids, alphas, topics = [], [], []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        parts = split_topic_keys_line(line) or line.split(None, 2)
        if len(parts) < 3 or not parts[2].strip():
            raise naming(InputFormatError(
                f"{where(path, n)}: expected 'topic<TAB>alpha<TAB>top words' (MALLET --output-topic-keys), "
                f"found {line[:60]!r}", fix=("give a MALLET topic-keys file", "choose another `format`")),
                "format")
        ids.append(parse_index(parts[0], path, n, "the topic id"))
        alphas.append(parse_number(parts[1], path, n, "alpha"))
        topics.append(parts[2].split())
    if not topics:
        raise EmptyInputError(f"'{path}' holds no topics", fix="give a non-empty MALLET topic-keys file")
    return ids, alphas, topics


@renamed_parameters({"n_topics": "n_components"})
@shared_doc
def alpha_from_topic_keys(path, n_components: int, encoding: str | None = None) -> np.ndarray:
    """The per-topic alpha of a topic-keys file (as printed: at most 5 decimals).

    Parameters
    ----------
    path : str or Path
        The topic-keys file.
    n_components : int
        The number of topics expected (ids ``0..n_components-1``).
    %(topic_file_encoding)s

    Returns
    -------
    numpy.ndarray
        One alpha per topic.

    Raises
    ------
    InputFormatError
        When the topic ids differ from ``0..n_components-1`` or an alpha printed as 0 is unknown.
    """
    ids, alphas, _ = parse_topic_keys(read_lines(path, encoding, "MALLET topic-keys file"), path)
    if sorted(ids) != list(range(n_components)):
        raise InputFormatError(f"'{path}' lists topics {sorted(ids)[:10]}, expected 0..{n_components - 1}",
                               fix="give the topic-keys file of the same MALLET run")
    out = np.zeros(n_components)
    out[ids] = alphas
    if np.any(out <= 0):
        k = int(np.argmax(out <= 0))
        raise InputFormatError(f"'{path}' prints alpha {alphas[ids.index(k)]} for topic {k} (MALLET keeps 5 "
                               "decimals), so the model's alpha is not known",
                               fix="read the run's --output-state, which holds alpha in full, or give alpha=")
    return out
