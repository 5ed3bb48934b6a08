"""Errors of the coherence area (all :class:`~tealeaves.errors.TealeavesError`, hence ``ValueError``)."""

from __future__ import annotations

from tealeaves.errors import TealeavesError


class SettingsError(TealeavesError):
    """A coherence setting (measure, segmentation, window, zero policy...) is unknown or out of range."""


class TopicError(TealeavesError):
    """A topic cannot be scored as given (too few words, duplicates, ...)."""


class ZeroCooccurrenceError(TealeavesError):
    """An unbounded confirmation measure met a pair of words that never co-occur under ``zero="limit"``."""
