"""Command-line options shared by the command modules of several packages.

A CLI helper (layer 6 of ``docs/architecture.md``): the command modules import it, it imports no
command module.  The options built from parameter declarations are :mod:`tealeaves._cli_args`'s.
"""

from __future__ import annotations


def add_line_files(p) -> None:
    """``--lang CODE=FILE`` (repeated) and ``--doc-ids``: parallel line files of the aligned inputs.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The sub-command's parser (``index build-aligned``, ``pltm fit|infer``).
    """
    p.add_argument("--lang", action="append", metavar="CODE=FILE",
                   help="a line-aligned text file of one language (repeat per language; needs --doc-ids)")
    p.add_argument("--doc-ids",
                   help="document-id file: line i names the document of line i of every --lang file")
