"""Errors of the comparison area, defined in :mod:`tealeaves.errors` (all
:class:`~tealeaves.errors.TealeavesError`, hence ``ValueError``); importable from here too."""

from __future__ import annotations

from tealeaves.errors import IncomparableError as IncomparableError
