"""Segmentation: which (W', W*) pairs of a topic's top words are compared (Röder et al. 2015, §3.1).

Segments are pairs of word sets, coded as bit masks over the positions of the
ranked word list (bit ``i`` is word ``w_i``; ``w_0`` is the most probable).
For ranked words ``w_0 .. w_{k-1}`` and ``W`` all of them:

``one-one``         every ordered pair ``({w_i}, {w_j})``, ``i != j`` (both orders, as gensim);
``one-pre``         ``({w_i}, {w_j})`` for ``j < i``: each word conditioned on a higher-ranked one (UMass);
``one-succeeding``  ``({w_i}, {w_j})`` for ``j > i`` (Palmetto's ``OneSucceeding``);
``one-set``         ``({w_i}, W)`` (C_V);
``one-all``         ``({w_i}, W \\ {w_i})``;
``one-any``         ``({w_i}, S)`` for every non-empty ``S`` of ``W \\ {w_i}`` (Palmetto's ``OneAny``);
``any-any``         ``(S', S*)`` for every non-empty ``S'`` of ``W`` other than ``W`` and every non-empty
                    ``S*`` of ``W \\ S'`` (Palmetto's ``AnyAny``).

The last two grow as ``k 2**(k-1)`` and ``3**k`` and need the probabilities of
word sets (counted by :func:`tealeaves.coherence.core.count_subsets`), so they
take at most ``core.MAX_SUBSET_WORDS`` words.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves.coherence.errors import SettingsError

Segment = tuple[tuple[int, ...], tuple[int, ...]]
Masks = tuple[np.ndarray, np.ndarray]


def _pairs(k: int, keep: Callable[[int, int], bool]) -> Masks:
    ij = [(i, j) for i in range(k) for j in range(k) if i != j and keep(i, j)]
    a = np.array([1 << i for i, _ in ij], dtype=np.int64)
    b = np.array([1 << j for _, j in ij], dtype=np.int64)
    return a, b


def _submasks(mask: int, k: int) -> np.ndarray:
    """The non-empty subsets of ``mask`` (increasing)."""
    r = np.arange(1, 1 << k, dtype=np.int64)
    return r[(r & ~mask) == 0]


def _one_to_subsets(k: int) -> Masks:
    full = (1 << k) - 1
    parts = [(np.full(len(s), 1 << i, dtype=np.int64), s) for i in range(k)
             for s in [_submasks(full ^ (1 << i), k)]]
    return _concat(parts)


def _any_any(k: int) -> Masks:
    full = (1 << k) - 1
    parts = [(np.full(len(s), a, dtype=np.int64), s) for a in range(1, full)
             for s in [_submasks(full ^ a, k)]]
    return _concat(parts)


def _concat(parts) -> Masks:
    if not parts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


SEGMENTATIONS: dict[str, Callable[[int], Masks]] = {
    "one-one": lambda k: _pairs(k, lambda i, j: True),
    "one-pre": lambda k: _pairs(k, lambda i, j: j < i),
    "one-succeeding": lambda k: _pairs(k, lambda i, j: j > i),
    "one-set": lambda k: (np.array([1 << i for i in range(k)], dtype=np.int64),
                          np.full(k, (1 << k) - 1, dtype=np.int64)),
    "one-all": lambda k: (np.array([1 << i for i in range(k)], dtype=np.int64),
                          np.array([((1 << k) - 1) ^ (1 << i) for i in range(k)], dtype=np.int64)),
    "one-any": _one_to_subsets,
    "any-any": _any_any,
}
#: Segmentations whose W' and W* are single words.
PAIRWISE = ("one-one", "one-pre", "one-succeeding")
#: Segmentations whose W* is the topic's (present) word set, or all of it but W'.
WHOLE_SET = ("one-set", "one-all")


def _known(name: str) -> None:
    if name not in SEGMENTATIONS:
        raise SettingsError(f"segmentation={name!r} is not known; use one of {sorted(SEGMENTATIONS)}")


@lru_cache(maxsize=64)
def _masks_cached(name: str, k: int) -> Masks:
    a, b = SEGMENTATIONS[name](k)
    a.setflags(write=False)
    b.setflags(write=False)
    return a, b


@shared_doc
def segment_masks(name: str, k: int) -> Masks:
    """``(W' masks, W* masks)`` of a ``k``-word topic under segmentation ``name`` (read-only arrays).

    Parameters: %(segmentation_name)s %(segmentation_k)s

    Returns
    -------
    tuple of numpy.ndarray
        The bit masks of W' and of W*, one entry per segment.

    Raises
    ------
    SettingsError
        When ``name`` is not known.
    """
    _known(name)
    return _masks_cached(name, int(k))


@shared_doc
def segment(name: str, k: int) -> list[Segment]:
    """The segments of a ``k``-word topic under segmentation ``name``, as tuples of positions.

    Parameters: %(segmentation_name)s %(segmentation_k)s

    Returns
    -------
    list of tuple
        ``(W' positions, W* positions)`` per segment.

    Examples
    --------
    >>> segment("one-pre", 3)
    [((1,), (0,)), ((2,), (0,)), ((2,), (1,))]
    """
    a, b = segment_masks(name, k)
    return [(_positions(int(x), k), _positions(int(y), k)) for x, y in zip(a, b)]


def _positions(mask: int, k: int) -> tuple[int, ...]:
    return tuple(i for i in range(k) if mask >> i & 1)


@shared_doc
def is_pairwise(name: str) -> bool:
    """Whether every segment compares two single words.

    Parameters: %(segmentation_name)s

    Returns
    -------
    bool
        Whether ``name`` is one of :data:`PAIRWISE`.
    """
    return name in PAIRWISE
