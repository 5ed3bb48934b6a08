"""The polylingual sampler's input: an aligned corpus's tokens flattened into segments, and the chains' seeds.

Used by :class:`~tealeaves.models.polylingual.PolylingualTopicModel` (fitting and fold-in).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tealeaves.corpus.aligned import AlignedCorpus


@dataclass
class _Layout:
    """Tokens of an aligned corpus flattened into segments for the kernels."""

    tokens: np.ndarray
    seg_start: np.ndarray
    seg_lang: np.ndarray
    seg_row: np.ndarray
    seg_tuple: np.ndarray
    n_rows: int


def _layout(
    corpus: AlignedCorpus, languages: Sequence[str], offsets: np.ndarray, linked: np.ndarray
) -> _Layout:
    """One segment per (tuple, language) side with tokens, in tuple then language order.

    Linked tuples share one row of document-topic counts; each side of an
    unlinked tuple gets its own row.  Tuples with no tokens get a row (its
    ``theta`` is the prior mean) but no segment.
    """
    pieces, starts, langs, rows, tuples = [], [0], [], [], []
    row = 0
    docs = {lang: corpus.corpora[lang] for lang in languages}
    for t in range(len(corpus)):
        first = row
        for li, lang in enumerate(languages):
            toks = docs[lang].document(t)
            if len(toks) == 0:
                continue
            pieces.append(toks.astype(np.int32) + np.int32(offsets[li]))
            starts.append(starts[-1] + len(toks))
            langs.append(li)
            tuples.append(t)
            if linked[t]:
                rows.append(first)
                row = first + 1
            else:
                rows.append(row)
                row += 1
        if row == first:
            row += 1  # an empty tuple keeps a row of its own
    tokens = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int32)
    return _Layout(
        tokens.astype(np.int32),
        np.asarray(starts, dtype=np.int64),
        np.asarray(langs, dtype=np.int32),
        np.asarray(rows, dtype=np.int32),
        np.asarray(tuples, dtype=np.int64),
        row,
    )


def _chain_seed(random_state: int | None, chain: int) -> np.random.SeedSequence:
    return np.random.SeedSequence([0 if random_state is None else int(random_state), chain])


def _seeds(seq: np.random.SeedSequence, n: int) -> np.ndarray:
    """``n`` 31-bit seeds for the numba generator drawn from a seed sequence."""
    return (seq.generate_state(n, dtype=np.uint32) >> 1).astype(np.int64)
