"""Command-line sub-commands of tealeaves.human."""

from __future__ import annotations


def register(subparsers) -> None:
    """Add this area's sub-commands to the top-level parser (none yet)."""
