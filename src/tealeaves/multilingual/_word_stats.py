"""The summary both word-level estimator features give of a topic's English words.

:meth:`MeaningDrift.features <tealeaves.multilingual.drift.MeaningDrift.features>` (cosines) and
:meth:`WordEra.features <tealeaves.multilingual.era.WordEra.features>` (first-attestation years)
reduce one value per word to the same three numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from tealeaves.errors import EmptyInputError


def english_word_stats(words: Sequence[str], what: str, values: Callable[[Sequence[str]], object],
                       n_missing: Callable[[Sequence[str]], int]) -> tuple[float, float, int]:
    """``(mean, population standard deviation, number missing)`` of one value per word.

    Parameters
    ----------
    words : sequence of str
        A topic's English words.
    what : str
        The feature's name, for the error message (``"word era"``).
    values : callable
        ``words`` -> one number per word (called first).
    n_missing : callable
        ``words`` -> how many of them the source lacks (called after ``values``).

    Returns
    -------
    tuple of (float, float, int)
        The mean and population standard deviation of the values, and the number missing.

    Raises
    ------
    EmptyInputError
        When ``words`` is empty.
    """
    if not words:
        raise EmptyInputError(f"{what} of an empty word list; pass the topic's English words")
    v = np.array(values(words), dtype=float)
    return float(v.mean()), float(v.std()), int(n_missing(words))
