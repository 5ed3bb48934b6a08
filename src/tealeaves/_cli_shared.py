"""Building sub-commands: a command's parser, its ``--help`` examples and the function it runs, in one call.

Every command module adds its sub-commands the same way: the parser, the worked examples of its
``--help`` page (:func:`tealeaves._cli_args.add_examples`) and the function ``tealeaves.cli`` calls
with the parsed arguments; a command that only groups others (``tealeaves data ...``) prints its
help and exits 2 when called without one.  :func:`add_command` and :func:`add_command_group` are
that sequence, written once.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

from tealeaves._cli_args import add_examples


def add_command(subparsers, name: str, func: Callable[[argparse.Namespace], int],
                examples: Sequence[tuple[str, str]], **kwargs) -> argparse.ArgumentParser:
    """Add the sub-command ``name`` that runs ``func``, with worked examples on its ``--help`` page.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        What ``add_subparsers`` returned for the parent command.
    name : str
        The sub-command's name.
    func : callable
        Called with the parsed arguments; returns the exit code.
    examples : sequence of tuple of (str, str)
        ``(what it does, command line)`` pairs (:func:`tealeaves._cli_args.add_examples`).
    **kwargs
        Go to ``add_parser`` (``help``, ``description``, ...).

    Returns
    -------
    argparse.ArgumentParser
        The sub-command's parser, to add its options to.
    """
    parser = subparsers.add_parser(name, **kwargs)
    add_examples(parser, *examples)
    parser.set_defaults(func=func)
    return parser


def add_command_group(subparsers, name: str, dest: str, metavar: str, examples: Sequence[tuple[str, str]],
                      **kwargs) -> argparse._SubParsersAction:
    """Add the command ``name`` that groups sub-commands; called alone it prints its help and exits 2.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        What ``add_subparsers`` returned for the parent command.
    name : str
        The command's name.
    dest : str
        The attribute of the parsed arguments that holds the sub-command chosen.
    metavar : str
        How ``--help`` names the sub-command (``ACTION``, ``EXAMPLE``).
    examples : sequence of tuple of (str, str)
        ``(what it does, command line)`` pairs (:func:`tealeaves._cli_args.add_examples`).
    **kwargs
        Go to ``add_parser`` (``help``, ...).

    Returns
    -------
    argparse._SubParsersAction
        What to add the sub-commands to (:func:`add_command`).
    """
    parser = subparsers.add_parser(name, **kwargs)
    sub = parser.add_subparsers(dest=dest, metavar=metavar)
    add_examples(parser, *examples)
    parser.set_defaults(func=lambda args: parser.print_help() or 2)
    return sub
