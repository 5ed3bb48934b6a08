"""The word pairs of a table of topics and their joint counts laid out per topic
(:func:`topic_pairs`, :func:`topic_joint`), and :func:`unique_keys` (re-exported by
:mod:`tealeaves.coherence.core`)."""

from __future__ import annotations

import numpy as np

from tealeaves.coherence._kernels import _topic_joint, _topic_pair_keys, _unique_keys_kernel

__all__ = ["topic_joint", "topic_pairs", "unique_keys"]

#: Largest key space (bits of a bitmap) for which :func:`unique_keys` does not sort.
_UNIQUE_BITMAP_MAX = 1 << 28


def unique_keys(keys: np.ndarray, space: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True)`` for non-negative integer keys below ``space``: a
    bitmap of the key space (no sort) when it has at most :data:`_UNIQUE_BITMAP_MAX` bits.

    Parameters
    ----------
    keys : numpy.ndarray
        Non-negative integers.
    space : int
        Every key is below it.

    Returns
    -------
    distinct : numpy.ndarray
        The distinct keys, sorted.
    inverse : numpy.ndarray
        The position of each key in ``distinct``.
    """
    keys = np.ascontiguousarray(keys, dtype=np.int64)
    if space > _UNIQUE_BITMAP_MAX:
        distinct, inverse = np.unique(keys, return_inverse=True)
        return distinct, inverse.reshape(-1)
    return _unique_keys_kernel(keys, int(space))


def topic_pairs(loc: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct word pairs ``(lo, hi)`` of a ``topics x k`` table of local word ids (``-1`` =
    absent), the position among them of every topic's pair, and where that pair sits in a
    ``topics x k x k`` table (the ``inverse`` and ``slots`` of :func:`topic_joint`).

    Parameters
    ----------
    loc : numpy.ndarray
        ``topics x k`` local word ids, ``-1`` where a topic has no word.

    Returns
    -------
    pairs : numpy.ndarray
        ``(m, 2)`` distinct pairs ``(lo, hi)``.
    inverse : numpy.ndarray
        For every topic's pair, its row in ``pairs``.
    slots : numpy.ndarray
        For every topic's pair, its flat offset in a ``topics x k x k`` table.
    """
    loc = np.ascontiguousarray(loc, dtype=np.int64)
    n_words = int(loc.max()) + 1 if loc.size else 0
    keys, slots = _topic_pair_keys(loc, n_words)
    distinct, inverse = unique_keys(keys, n_words * n_words)
    return np.stack([distinct // max(n_words, 1), distinct % max(n_words, 1)], axis=1), inverse, slots


def topic_joint(loc: np.ndarray, slots: np.ndarray, inverse: np.ndarray, joint: np.ndarray,
                single: np.ndarray) -> np.ndarray:
    """``topics x k x k`` float joint counts, diagonal = single counts, from the counts of the pairs of
    :func:`topic_pairs` (``joint``) and of the words (``single``).

    Parameters
    ----------
    loc : numpy.ndarray
        ``topics x k`` local word ids, as given to :func:`topic_pairs`.
    slots, inverse : numpy.ndarray
        From :func:`topic_pairs`.
    joint : numpy.ndarray
        The count of every distinct pair.
    single : numpy.ndarray
        The count of every word.

    Returns
    -------
    numpy.ndarray
        ``topics x k x k`` float counts.
    """
    return _topic_joint(np.ascontiguousarray(loc, dtype=np.int64), slots, inverse,
                        np.asarray(joint, dtype=np.float64), np.asarray(single, dtype=np.float64))
