"""The ``tealeaves`` command line.

Each area of the library registers its own sub-commands from a ``cli``
module exposing ``register(subparsers)``; this file only assembles them.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from tealeaves._version import __version__
from tealeaves.errors import TealeavesError

#: Modules that contribute sub-commands, in the order they appear in --help.
COMMAND_MODULES = (
    "tealeaves.reproduce.cli",
    "tealeaves.likelihood.cli",
    "tealeaves.coherence.cli",
    "tealeaves.human.cli",
    "tealeaves.multilingual.cli",
)


def build_parser() -> argparse.ArgumentParser:
    """Build the top-level parser with every registered sub-command."""
    parser = argparse.ArgumentParser(
        prog="tealeaves",
        description="Tell whether a topic model is any good: held-out likelihood, "
        "coherence, human studies and multilingual measures.",
    )
    parser.add_argument("--version", action="version", version=f"tealeaves {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tealeaves`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except TealeavesError as exc:
        print(f"tealeaves: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
