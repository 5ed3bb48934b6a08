"""Errors of the coherence area, defined in :mod:`tealeaves.errors` (all
:class:`~tealeaves.errors.TealeavesError`, hence ``ValueError``); importable from here too."""

from __future__ import annotations

from tealeaves.errors import SettingsError as SettingsError
from tealeaves.errors import TopicError as TopicError
from tealeaves.errors import ZeroCooccurrenceError as ZeroCooccurrenceError
