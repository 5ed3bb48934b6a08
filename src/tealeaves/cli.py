"""The ``tealeaves`` command line.

Each area of the library registers its own sub-commands from a ``cli``
module exposing ``register(subparsers)``; this file only assembles them and
holds the one error boundary every command ends in: a result, or
``tealeaves: error: <what is wrong> (<how to fix it>)`` with a non-zero exit
status.  No traceback reaches a user unless ``--debug`` (or
``TEALEAVES_DEBUG=1``) asks for it.  Exit statuses (``docs/errors.md``):

====  ==========================================================
0     success
1     a tealeaves error (bad input, missing file, ...)
2     a usage error (unknown option, bad option value)
70    an unexpected internal error (a bug: please report it)
130   interrupted (Ctrl-C)
141   the output pipe was closed (e.g. ``| head``); nothing more is printed
====  ==========================================================
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from tealeaves._version import __version__
from tealeaves.errors import TealeavesError

#: Modules that contribute sub-commands, in the order they appear in --help.
COMMAND_MODULES = (
    "tealeaves.reproduce.cli",
    "tealeaves.likelihood.cli",
    "tealeaves.index.cli",
    "tealeaves.coherence.cli",
    "tealeaves.human.cli",
    "tealeaves.multilingual.cli",
    "tealeaves.data.cli",
    "tealeaves.sweep.cli",
)

EXIT_ERROR, EXIT_USAGE, EXIT_INTERNAL, EXIT_INTERRUPT, EXIT_PIPE = 1, 2, 70, 130, 141


class ArgumentParser(argparse.ArgumentParser):
    """argparse, reporting usage errors as ``tealeaves: error: ...`` (exit 2) like every other error.

    :func:`build_parser` makes the top-level one, and sub-command parsers made from it are of this
    class too.

    Parameters
    ----------
    *args
        :class:`argparse.ArgumentParser`'s positional arguments.
    allow_abbrev : bool, default False
        Accept a unique prefix of a long option.  Off: ``sweep --seed 42`` must not mean
        ``--seeds 42``, and a prefix unique today would change meaning when an option is added.
    **kwargs
        :class:`argparse.ArgumentParser`'s other keyword arguments.
    """

    def __init__(self, *args, allow_abbrev: bool = False, **kwargs) -> None:
        super().__init__(*args, allow_abbrev=allow_abbrev, **kwargs)

    def error(self, message: str):  # noqa: D401 - argparse's hook
        """Print ``tealeaves: error: <prog>: <message> (see '<prog> --help')`` and exit with status 2.

        argparse's hook for a usage error (unknown option, bad option value, missing argument).

        Parameters
        ----------
        message : str
            argparse's description of the error.

        Raises
        ------
        SystemExit
            Always, with status 2 (``EXIT_USAGE``), after printing the message to stderr.
        """
        self.exit(EXIT_USAGE, f"tealeaves: error: {self.prog}: {message} (see '{self.prog} --help')\n")

    def parse_known_args(self, args=None, namespace=None):  # noqa: D401 - argparse's method
        """argparse's ``parse_known_args``, minus the record of which spelling set each option.

        Parameters
        ----------
        args : sequence of str, optional
            The arguments.
        namespace : argparse.Namespace, optional
            Where to store the values.

        Returns
        -------
        tuple
            The namespace and the arguments left over.
        """
        from tealeaves._cli_args import SPELLINGS

        parsed, extras = super().parse_known_args(args, namespace)
        parsed.__dict__.pop(SPELLINGS, None)
        return parsed, extras


def build_parser() -> argparse.ArgumentParser:
    """Build the top-level parser with every registered sub-command.

    Imports each module of :data:`COMMAND_MODULES`, in order, and calls its
    ``register(subparsers)``; adds ``--version`` and ``--debug``.

    Returns
    -------
    argparse.ArgumentParser
        The ``tealeaves`` parser (an :class:`ArgumentParser`); the chosen command's function
        is the parsed namespace's ``func``.
    """
    parser = ArgumentParser(
        prog="tealeaves",
        description="Tell whether a topic model is any good: held-out likelihood, "
        "coherence, human studies and multilingual measures.",
    )
    from tealeaves._cli_args import add_examples

    add_examples(parser, ("fit LDA at three K with 3 seeds each, then read the report",
                          "tealeaves sweep corpus/ -k 10 20 40 -o results.sqlite"),
                 ("NPMI of a saved model's topics over a reference index, as CSV",
                  "tealeaves coherence --reference reference.tlx --topics model.npz -o scores.csv"),
                 ("every command's options and examples", "tealeaves COMMAND --help"))
    parser.add_argument("--version", action="version", version=f"tealeaves {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show the Python traceback of an error (also TEALEAVES_DEBUG=1)")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def _fail(message: str, status: int) -> int:
    from tealeaves._terminal import escape  # an input must not forge terminal lines through a message

    print(f"tealeaves: error: {escape(message)}", file=sys.stderr)
    return status


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Print warnings as ``tealeaves: warning: <message>`` (escaped), not Python's file:line form."""
    from tealeaves._terminal import escape

    print(f"tealeaves: warning: {escape(message)}", file=sys.stderr if file is None else file)


def _os_error_message(exc: OSError) -> str:
    from tealeaves._io import is_disk_full

    where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
    if is_disk_full(exc):
        return f"the disk is full ({exc.strerror or exc}{where}) (free disk space and rerun the command)"
    return f"{exc.strerror or exc}{where} (check the path, its permissions and the free disk space)"


def _command_options(argv: Sequence[str]) -> dict[str, str]:
    """The running command's options by Python parameter name (empty when the parser cannot be built)."""
    from tealeaves._cli_args import command_options, running_parser

    try:
        return command_options(running_parser(build_parser(), argv))
    except Exception:  # noqa: BLE001 -- the message is printed without options rather than not at all
        return {}


def _cli_message(exc: TealeavesError, argv: Sequence[str]) -> str:
    """The error's message, naming the running command's options rather than Python parameters
    (``docs/naming.md``)."""
    if not getattr(exc, "param", None):
        return str(exc)
    from tealeaves._cli_args import cli_message

    return cli_message(exc, _command_options(argv))


def _decode_message(exc: UnicodeDecodeError, argv: Sequence[str]) -> str:
    """A decoding error no reader named: the fix offers ``--encoding`` only on a command that has it."""
    fix = "convert it to UTF-8"
    if "encoding" in _command_options(argv):
        fix = "give its encoding with --encoding, or " + fix
    return f"an input is not valid {exc.encoding} ({exc.reason}) ({fix})"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tealeaves`` console script: run one command inside the error boundary.

    ``--debug`` (anywhere on the line) or ``TEALEAVES_DEBUG=1`` shows tracebacks instead of the
    one-line messages; warnings print as ``tealeaves: warning: <message>`` otherwise.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0, 1 for an error, 2 when no command is given, 70 for an internal
        error, 130 when interrupted, 141 for a closed pipe.  A usage error exits with status 2
        through ``SystemExit`` (:class:`ArgumentParser`).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv or os.environ.get("TEALEAVES_DEBUG", "") not in ("", "0")
    argv = [a for a in argv if a != "--debug"]  # accepted anywhere on the line
    import warnings

    shown = warnings.showwarning
    if not debug:
        warnings.showwarning = _show_warning
    from tealeaves._interrupt import sigint_sets_flag  # Ctrl-C stops compiled kernels in every thread

    try:
        with sigint_sets_flag():
            return _run(argv, debug)
    finally:
        warnings.showwarning = shown


def _run(argv: list[str], debug: bool) -> int:
    """Parse ``argv`` and run its command inside the error boundary (see the module docstring)."""
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return EXIT_USAGE
        status = int(args.func(args) or 0)
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, and keep Python from complaining at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_PIPE
    except KeyboardInterrupt:
        if debug:
            raise
        from tealeaves._interrupt import MESSAGE

        # a Ctrl-C during numba's compilation leaves llvmlite objects whose destructors fail at exit
        # ("Exception ignored in OutputString.__del__"): nothing is left to report after the interrupt
        sys.unraisablehook = lambda unraisable: None
        return _fail(MESSAGE, EXIT_INTERRUPT)
    except SystemExit:
        raise
    except TealeavesError as exc:
        if debug:
            raise
        return _fail(_cli_message(exc, argv), EXIT_ERROR)
    except UnicodeDecodeError as exc:
        if debug:
            raise
        return _fail(_decode_message(exc, argv), EXIT_ERROR)
    except OSError as exc:
        if debug:
            raise
        return _fail(_os_error_message(exc), EXIT_ERROR)
    except MemoryError:
        if debug:
            raise
        return _fail("out of memory (use a smaller input or a machine with more memory)", EXIT_ERROR)
    except Exception as exc:  # the last line of defence: a bug, reported as one
        if debug:
            raise
        from tealeaves._interrupt import MESSAGE, from_ctrl_c

        if from_ctrl_c(exc):  # Ctrl-C inside numba's dispatcher, reported by Python as a SystemError
            return _fail(MESSAGE, EXIT_INTERRUPT)
        return _fail(f"internal error: {type(exc).__name__}: {exc} (this is a bug in tealeaves; rerun "
                     "with --debug to see the traceback and report it)", EXIT_INTERNAL)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
