"""The word pairs of a table of topics and their joint counts laid out per topic
(:func:`topic_pairs`, :func:`topic_joint`), and :func:`unique_keys` (re-exported by
:mod:`tealeaves.coherence.core`).

Each is compiled loops for a large table and NumPy for a small one (below :data:`_SMALL_TABLE`
pairs): there NumPy takes a fraction of a millisecond, while each kernel would cost a third of a
second or more to compile in a call that finds numba's cache empty (the first after an install).
Both give the same arrays (tested).
"""

from __future__ import annotations

import numpy as np

from tealeaves.coherence._kernels import _topic_joint, _topic_pair_keys, _unique_keys_kernel

__all__ = ["topic_joint", "topic_pairs", "unique_keys"]

#: Largest key space (bits of a bitmap) for which :func:`unique_keys` does not sort.
_UNIQUE_BITMAP_MAX = 1 << 28

#: Pairs (or keys) below which the tables are built by NumPy, not compiled loops (module docstring):
#: at this size NumPy's extra passes cost about a millisecond.
_SMALL_TABLE = 1 << 14


def unique_keys(keys: np.ndarray, space: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True)`` for non-negative integer keys below ``space``: a
    bitmap of the key space (no sort) when it has at most :data:`_UNIQUE_BITMAP_MAX` bits and there
    are at least :data:`_SMALL_TABLE` keys.

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
    if space > _UNIQUE_BITMAP_MAX or len(keys) < _SMALL_TABLE:
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
    n_topics, k = loc.shape
    small = n_topics * (k * (k - 1) // 2) < _SMALL_TABLE
    keys, slots = (_pair_keys_numpy if small else _topic_pair_keys)(loc, n_words)
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
    loc = np.ascontiguousarray(loc, dtype=np.int64)
    small = len(slots) < _SMALL_TABLE
    return (_joint_numpy if small else _topic_joint)(loc, slots, inverse, np.asarray(joint, dtype=np.float64),
                                                      np.asarray(single, dtype=np.float64))


def _pair_keys_numpy(loc: np.ndarray, n_words: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~tealeaves.coherence._kernels._topic_pair_keys` by NumPy (a small table).

    Parameters
    ----------
    loc : numpy.ndarray
        ``topics x k`` local word ids, ``-1`` where a topic has no word.
    n_words : int
        Local words (the key of pair ``lo < hi`` is ``lo * n_words + hi``).

    Returns
    -------
    keys, slots : numpy.ndarray
        The key of each topic's pair ``i < j`` of present words, topic by topic, and its flat offset
        ``(t k + i) k + j`` in a ``topics x k x k`` table.
    """
    n_topics, k = loc.shape
    i, j = np.triu_indices(k, 1)  # (0, 1), (0, 2), ... (1, 2), ...: the kernel's order
    a, b = loc[:, i], loc[:, j]
    present = (a >= 0) & (b >= 0)
    keys = np.minimum(a, b) * n_words + np.maximum(a, b)
    slots = (np.arange(n_topics, dtype=np.int64)[:, None] * k + i) * k + j
    return keys[present], slots[present]


def _joint_numpy(loc: np.ndarray, slots: np.ndarray, inverse: np.ndarray, joint: np.ndarray,
                 single: np.ndarray) -> np.ndarray:
    """:func:`~tealeaves.coherence._kernels._topic_joint` by NumPy (a small table).

    Parameters
    ----------
    loc, slots, inverse, joint, single : numpy.ndarray
        As for :func:`topic_joint` (``joint`` and ``single`` as floats).

    Returns
    -------
    numpy.ndarray
        ``topics x k x k`` float counts.
    """
    n_topics, k = loc.shape
    out = np.zeros(n_topics * k * k)
    values = joint[inverse]
    topic, rest = np.divmod(slots, k * k)
    i, j = np.divmod(rest, k)
    out[slots] = values
    out[(topic * k + j) * k + i] = values  # the mirror image
    out = out.reshape(n_topics, k, k)
    t, w = np.nonzero(loc >= 0)
    out[t, w, w] = single[loc[t, w]]
    return out
