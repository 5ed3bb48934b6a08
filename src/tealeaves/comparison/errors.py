"""Errors of the comparison area (all :class:`~tealeaves.errors.TealeavesError`, hence ``ValueError``)."""

from __future__ import annotations

from tealeaves.errors import TealeavesError


class IncomparableError(TealeavesError):
    """Two models or results cannot be compared as given.

    Raised for models over vocabularies that share too few words, coherence
    results computed with different settings or references, and held-out
    likelihoods computed on different held-out words (another split, seed or
    vocabulary).
    """
