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
    ``theta`` is the prior mean) but no segment.  Built with array operations
    over the corpora's flat token arrays (a loop over the tuples had taken
    30-50 ms of a 1 s fit: Reuters, 7,769 stories).

    Parameters
    ----------
    corpus : AlignedCorpus
        The tuples.
    languages : sequence of str
        The model's languages, in its order (``offsets`` and the segments' languages follow it).
    offsets : numpy.ndarray
        Each language's first word id in the joint vocabulary.
    linked : numpy.ndarray
        Whether each tuple's sides share one row (bool, one per tuple).

    Returns
    -------
    _Layout
        The tokens (joint word ids) and the segments' starts, languages, rows and tuples.
    """
    docs = [corpus.corpora[lang] for lang in languages]  # at least one: a model has a language
    lengths = np.stack([np.diff(d.offsets) for d in docs], axis=1)  # tuples x languages
    sides = lengths > 0
    per_tuple = sides.sum(axis=1)
    linked = np.asarray(linked, dtype=bool)
    tuple_rows = np.where(linked | (per_tuple == 0), 1, per_tuple)
    first_row = np.cumsum(tuple_rows) - tuple_rows
    seg_tuple, seg_lang = np.nonzero(sides)  # row-major: tuple, then language
    rank = (np.cumsum(sides, axis=1) - 1)[seg_tuple, seg_lang]
    seg_row = first_row[seg_tuple] + np.where(linked[seg_tuple], 0, rank)
    seg_len = lengths[seg_tuple, seg_lang]
    seg_start = np.zeros(len(seg_len) + 1, dtype=np.int64)
    np.cumsum(seg_len, out=seg_start[1:])
    flat = np.concatenate([d.tokens.astype(np.int32) + np.int32(off)
                           for d, off in zip(docs, offsets[: len(docs)], strict=True)])  # joint ids
    source = np.cumsum([0] + [len(d.tokens) for d in docs])[seg_lang] + np.stack(
        [d.offsets[:-1] for d in docs], axis=1)[seg_tuple, seg_lang]  # each segment's first token in ``flat``
    tokens = flat[np.repeat(source - seg_start[:-1], seg_len) + np.arange(seg_start[-1])]
    return _Layout(tokens.astype(np.int32), seg_start, seg_lang.astype(np.int32), seg_row.astype(np.int32),
                   seg_tuple.astype(np.int64), int(tuple_rows.sum()))


def _chain_seed(random_state: int | None, chain: int) -> np.random.SeedSequence:
    return np.random.SeedSequence([0 if random_state is None else int(random_state), chain])


def _seeds(seq: np.random.SeedSequence, n: int) -> np.ndarray:
    """``n`` 31-bit seeds for the numba generator drawn from a seed sequence."""
    return (seq.generate_state(n, dtype=np.uint32) >> 1).astype(np.int64)
