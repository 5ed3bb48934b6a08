"""Segmentation: which (W', W*) pairs of a topic's top words are compared (Röder et al. 2015, §3.1).

Segments are pairs of tuples of *positions* in the ranked word list (0 is
the most probable word).  For ranked words ``w_0 .. w_{k-1}``:

``one-one``  every ordered pair ``({w_i}, {w_j})``, ``i != j`` (both orders, as gensim);
``one-pre``  ``({w_i}, {w_j})`` for ``j < i``: each word conditioned on a higher-ranked one (UMass);
``one-set``  ``({w_i}, W)`` with ``W`` all top words (C_V);
``one-all``  ``({w_i}, W \\ {w_i})``.
"""

from __future__ import annotations

from collections.abc import Callable

from tealeaves.coherence.errors import SettingsError

Segment = tuple[tuple[int, ...], tuple[int, ...]]


def one_one(k: int) -> list[Segment]:
    return [((i,), (j,)) for i in range(k) for j in range(k) if i != j]


def one_pre(k: int) -> list[Segment]:
    return [((i,), (j,)) for i in range(1, k) for j in range(i)]


def one_set(k: int) -> list[Segment]:
    return [((i,), tuple(range(k))) for i in range(k)]


def one_all(k: int) -> list[Segment]:
    return [((i,), tuple(j for j in range(k) if j != i)) for i in range(k)]


SEGMENTATIONS: dict[str, Callable[[int], list[Segment]]] = {
    "one-one": one_one, "one-pre": one_pre, "one-set": one_set, "one-all": one_all,
}


def segment(name: str, k: int) -> list[Segment]:
    """The segments of a ``k``-word topic under segmentation ``name``."""
    try:
        return SEGMENTATIONS[name](k)
    except KeyError:
        known = sorted(SEGMENTATIONS)
        raise SettingsError(f"segmentation={name!r} is not known; use one of {known}") from None


def is_pairwise(name: str) -> bool:
    """Whether every segment compares two single words."""
    return name in ("one-one", "one-pre")
