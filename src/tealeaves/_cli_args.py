"""Command-line options built from the library's parameter declarations.

The only place where a Python parameter becomes a flag: :func:`add_param` turns a
:class:`tealeaves._params.Param` into an argparse option (its ``--flag`` by the rule of
``docs/naming.md``, the declared bounds as the ``type=`` check, the declared help text),
and adds each old spelling as a hidden alias that still works and prints one deprecation
line.  :func:`cli_message` rewrites a library error that names a Python parameter so
that it names the running command's option instead (``docs/naming.md``).  Command modules
import this; it imports no command module.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

from tealeaves._docs import shared_doc
from tealeaves._params import Param, flag_for

_WARNED: set = set()

#: Attribute of an option built by :func:`add_param`: the Python parameter it stands for.
PARAM_ATTR = "tealeaves_param"

#: Namespace attribute recording which spelling set each aliased option (removed after parsing).
SPELLINGS = "_tealeaves_spellings"


def _note_spelling(action: argparse.Action, namespace: argparse.Namespace, spelling: str) -> None:
    """Refuse an option given under two of its spellings (``-o a --out b``): neither may silently win.

    The same spelling twice is argparse's usual "the last one wins"; ``-k`` and ``--n-components``
    are one spelling (the option's own flags).
    """
    seen = namespace.__dict__.setdefault(SPELLINGS, {})
    first = seen.setdefault(action.dest, spelling)
    if first != spelling:
        raise argparse.ArgumentError(action, f"not allowed with {first} (they are two spellings of one "
                                             f"option; give it once)")


def _mark_spellings(action: argparse.Action) -> None:
    """Make the option ``action`` record its spelling, so that an old spelling given with it is refused."""
    base = type(action)
    spelling = "/".join(action.option_strings)

    def __call__(self, parser, namespace, values, option_string=None):
        _note_spelling(self, namespace, spelling)
        base.__call__(self, parser, namespace, values, option_string)

    action.__class__ = type(base.__name__, (base,), {"__call__": __call__})


def warn_deprecated_flag(old: str, new: str) -> None:
    """Print ``tealeaves: warning: OLD is deprecated; use NEW`` once per process and spelling.

    Parameters
    ----------
    old : str
        The deprecated spelling.
    new : str
        The option to use instead.
    """
    if old in _WARNED:
        return
    _WARNED.add(old)
    print(f"tealeaves: warning: {old} is deprecated and will be removed; use {new}", file=sys.stderr)


class _DeprecatedAlias(argparse.Action):
    """An old option spelling: warns once, then stores what the new option would store.

    ``mode`` is ``"store"`` (a value), ``"const"`` (a flag: stores ``const``) or ``"append"``.
    """

    def __init__(self, option_strings, dest, new: str = "", mode: str = "store", **kwargs):
        self.new, self.mode = new, mode
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        _note_spelling(self, namespace, option_string or self.option_strings[0])
        warn_deprecated_flag(option_string or self.option_strings[0], self.new)
        if self.mode == "const":
            values = self.const
        elif self.mode == "append":
            values = [*(getattr(namespace, self.dest, None) or []), values]
        setattr(namespace, self.dest, values)


_FLAG_ACTIONS = {"store_true": True, "store_false": False}


def add_deprecated(parser: argparse.ArgumentParser, old: Sequence[str] | str, new: str, dest: str,
                   **kwargs: Any) -> None:
    """Add ``old`` spellings of option ``new`` as hidden aliases storing into ``dest``.

    ``kwargs`` are those of the new option (``type``, ``nargs``, ``action``...), so the alias
    accepts exactly what the option does.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser (or argument group) to add the aliases to.
    old : str or sequence of str
        The old spellings.
    new : str
        The option they stand for (named in the warning).
    dest : str
        Where the new option stores its value.
    **kwargs
        The new option's keyword arguments (``default``, ``required`` and ``help`` are dropped).
    """
    olds = [old] if isinstance(old, str) else list(old)
    action = kwargs.pop("action", "store")
    for key in ("default", "required", "help"):
        kwargs.pop(key, None)
    if action in _FLAG_ACTIONS:
        kwargs = {"nargs": 0, "const": _FLAG_ACTIONS[action], "mode": "const"}
    elif action == "append":
        kwargs["mode"] = "append"
    parser.add_argument(*olds, dest=dest, action=_DeprecatedAlias, new=new, help=argparse.SUPPRESS,
                        default=argparse.SUPPRESS, **kwargs)


def param_type(param: Param) -> Callable[[str], Any]:
    """An argparse ``type=`` running ``param``'s declared check, with errors naming the option.

    Parameters
    ----------
    param : Param
        The declaration.

    Returns
    -------
    callable
        ``convert(text)``: the checked value, or :class:`argparse.ArgumentTypeError`.
    """

    def convert(text: str) -> Any:
        from tealeaves.errors import ParameterError

        try:
            return param.check(text, allow_str=True)
        except ParameterError as exc:
            raise argparse.ArgumentTypeError(cli_message(exc, {param.name: param.flag})) from None

    convert.__name__ = param.name
    return convert


def add_param(parser: argparse.ArgumentParser, param: Param, *, dest: str | None = None,
              help: str | None = None, **kwargs: Any) -> argparse.Action:
    """Add the option of ``param`` to ``parser``, with its deprecated spellings as hidden aliases.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The sub-command's parser.
    param : Param
        The declaration the Python function checks its argument with.
    dest : str, optional
        Where argparse stores the value (default: the Python name).
    help : str, optional
        Help text (default: the declaration's; ``(default X)`` is appended when there is one).
    **kwargs
        Passed to ``add_argument`` (``default``, ``nargs``, ``required``, ``metavar``...).

    Returns
    -------
    argparse.Action
        The option's action.
    """
    dest = dest or param.name
    flags = ([param.short] if param.short else []) + [param.flag]
    if param.kind == "choice" and "choices" not in kwargs:
        kwargs["choices"] = param.choices
    elif param.kind not in ("bool", "str", "choice") and "type" not in kwargs:
        kwargs["type"] = param_type(param)
    if param.kind == "bool" and "action" not in kwargs:
        kwargs["action"] = "store_true"
    text = param.help if help is None else help
    default = kwargs.get("default")
    if default not in (None, False, argparse.SUPPRESS) and "default" not in text:
        text = f"{text} (default {default})" if text else f"default {default}"
    if not param.deprecated_flags:
        action = parser.add_argument(*flags, dest=dest, help=text, **kwargs)
    else:
        action = _add_aliased(parser, flags, dest, param.deprecated_flags, {"help": text, **kwargs})
    setattr(action, PARAM_ATTR, param.name)
    return action


def _add_aliased(parser: argparse.ArgumentParser, flags: Sequence[str], dest: str, old: Sequence[str] | str,
                 kwargs: dict) -> argparse.Action:
    """Add the option ``flags`` and its old spellings ``old``: each records its spelling (two spellings
    together are refused), and a required option accepts any one of them."""
    target = _required_target(parser, kwargs, True)
    action = target.add_argument(*flags, dest=dest, **kwargs)
    _mark_spellings(action)
    add_deprecated(target, old, flags[-1], dest, **kwargs)
    return action


def _required_target(parser: argparse.ArgumentParser, kwargs: dict, aliased: bool):
    """Where an option is added: a required option with old spellings goes into a required group of
    its spellings, so that any one of them satisfies it (argparse would demand the new one)."""
    if not (aliased and kwargs.get("required")):
        return parser
    kwargs.pop("required")
    return parser.add_mutually_exclusive_group(required=True)


def add_output(parser: argparse.ArgumentParser, *, required: bool = False, help: str = "output file",
               **kwargs: Any) -> argparse.Action:
    """``-o/--output`` (everywhere the same; ``--out`` is its old spelling).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser.
    required : bool, default False
        Whether the option is required.
    help : str, default "output file"
        Its help text.
    **kwargs
        Further keyword arguments of ``add_argument``.

    Returns
    -------
    argparse.Action
        The ``-o/--output`` action.
    """
    return _add_aliased(parser, ("-o", "--output"), "output", "--out",
                        {"required": required, "help": help, **kwargs})


#: The formats of a command's result (``--format``); ``-o FILE`` picks one by its extension.
RESULT_FORMATS = ("text", "json", "csv", "tsv")


def add_result_output(parser: argparse.ArgumentParser, what: str = "the result",
                      formats: Sequence[str] = RESULT_FORMATS) -> None:
    """``--format`` and ``-o/--output`` of a command that prints a result (read by :func:`result_format`).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The sub-command's parser.
    what : str, default "the result"
        What the command prints, for the help text.
    formats : sequence of str, default RESULT_FORMATS
        The formats offered (pass the same to :func:`result_format`).
    """
    from tealeaves._output import SUFFIX_FORMATS

    suffixes = ", ".join(s for s, f in SUFFIX_FORMATS.items() if f in formats)
    parser.add_argument("--format", choices=tuple(formats), default=None,
                        help=f"output format: {', '.join(formats)} (default: from the extension of -o, "
                             f"else text)")
    add_output(parser, help=f"write {what} to this file instead of printing it, in the format of its "
                            f"extension ({suffixes}) or --format; an existing file is replaced whole")


def result_format(args: argparse.Namespace, formats: Sequence[str] = RESULT_FORMATS) -> str:
    """The format of the result (``args.format``, set by this call), checked against ``-o``'s extension.

    ``-o scores.csv`` means CSV; ``--format json -o scores.csv`` is refused (the extension contradicts
    the format), as is an extension that names no format when ``--format`` is not given.  The output
    path is checked before the work starts (:func:`tealeaves._output.check_output_path`).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options (``format`` and ``output``, from :func:`add_result_output`).
    formats : sequence of str, default RESULT_FORMATS
        The formats the command offers.

    Returns
    -------
    str
        The format.

    Raises
    ------
    ParameterError
        When the extension contradicts ``--format`` or names no format the command writes.
    OutputError
        When the output path cannot be written.
    """
    from pathlib import Path

    from tealeaves._output import SUFFIX_FORMATS, check_output_path
    from tealeaves.errors import ParameterError

    fmt = args.format
    if args.output is not None:
        check_output_path(args.output, "-o file")  # a folder or a missing folder is named first
        suffix = Path(args.output).suffix.lower()
        implied = SUFFIX_FORMATS.get(suffix)
        known = ", ".join(s for s, f in SUFFIX_FORMATS.items() if f in formats)
        if fmt is not None and implied is not None and implied != fmt:
            raise ParameterError(f"-o {args.output}: the extension {suffix} means {implied}, but --format is "
                                 f"{fmt}", fix=f"name the file for {fmt}, or drop --format")
        if fmt is None and implied not in formats:
            raise ParameterError(f"-o {args.output}: cannot tell the output format from the extension "
                                 f"{suffix or '(none)'}", fix=f"name the file {known}, or give "
                                 f"--format {'|'.join(formats)}")
        fmt = fmt or implied
    args.format = fmt or "text"
    return args.format


class ExamplesHelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, printing an epilog of examples (``Example:``...) line by line as written.

    Like :class:`argparse.RawDescriptionHelpFormatter` for the examples, while a long description is
    still wrapped to the terminal.
    """

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith(("Example:", "Examples:")):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def add_examples(parser: argparse.ArgumentParser, *examples: tuple[str, str]) -> None:
    """Give ``parser``'s ``--help`` page worked examples: ``(what it does, command line)`` pairs.

    The examples keep their layout (:class:`ExamplesHelpFormatter`; the description is still wrapped);
    each command line starts with ``tealeaves`` (``tests/test_cli_help.py`` parses the first one with
    the real parser, so an example cannot go out of date).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The sub-command's parser.
    *examples : tuple of (str, str)
        Each a description (empty: the command continues the one before) and a command line
        (``tealeaves ...``).
    """
    lines = ["Examples:"] if len(examples) > 1 else ["Example:"]
    for what, command in examples:
        lines += [f"  # {what}"] * bool(what) + [f"  {command}"]
    parser.epilog = "\n".join(lines)
    parser.formatter_class = ExamplesHelpFormatter


@shared_doc
def option_message(message: str, name: str, flag: str | None = None) -> str:
    """``message`` with its subject, the Python parameter ``name``, replaced by its option.

    The subject is the message's first word (``n_top must be ...`` -> ``--n-top must be ...``), as
    :meth:`~tealeaves._params.Param.check` and the ``check_*`` helpers of :mod:`tealeaves.validation`
    write it; the name anywhere else is left alone (``encoding`` in ``... is not valid UTF-8`` is a
    word).  A parameter named elsewhere in a message is written as a code span (:func:`cli_text`).

    Parameters
    ----------
    message : str
        The error message.
    %(param_name)s
    flag : str, optional
        The option (default: :func:`~tealeaves._params.flag_for` of ``name``).

    Returns
    -------
    str
        The message naming the option.
    """
    if re.match(rf"{re.escape(name)}(?=[ :;,])", message):  # "n_top must ...", "checks: topic ..."
        return (flag or flag_for(name)) + message[len(name):]
    return message


#: A parameter in a library message: a code span of its Python name, with an optional example value
#: (`` `encoding` ``, `` `encoding='latin-1'` ``, `` `window=10` ``).
PARAM_SPAN = re.compile(r"`([A-Za-z_]\w*)(?:=([^`\n]*))?`")


def _cli_value(value: str) -> str:
    """A Python literal of a code span (``'latin-1'``, ``10``, ``['en=a.xml']``) as typed after an option."""
    import ast
    import shlex

    try:
        literal = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return value
    if isinstance(literal, (list, tuple)) and len(literal) == 1:  # one use of a repeated option
        literal = literal[0]
    return shlex.quote(literal) if isinstance(literal, str) else value


def cli_text(text: str, names: Sequence[str], options: dict[str, str]) -> str:
    """``text`` with each code span of a parameter in ``names`` written for the running command.

    `` `encoding` `` becomes ``--encoding`` and `` `encoding='latin-1'` `` ``--encoding latin-1`` when
    the command has that option (``options``); otherwise the span becomes the bare name (a word: no
    option is invented).  Spans of other names (a command line in backticks) are left as written.

    Parameters
    ----------
    text : str
        A message or fix.
    names : sequence of str
        The parameters the error says it names (``exc.param``).
    options : dict of str to str
        The running command's options by Python parameter name (:func:`command_options`).

    Returns
    -------
    str
        The text for the command line.
    """

    def replace(match: re.Match) -> str:
        name, value = match.group(1), match.group(2)
        if name not in names:
            return match.group(0)
        if name not in options:
            return name if value is None else f"{name}={value}"
        return options[name] if value is None else f"{options[name]} {_cli_value(value)}"

    return PARAM_SPAN.sub(replace, text)


def _spans_missing(text: str, names: Sequence[str], options: dict[str, str]) -> bool:
    """Whether ``text`` names (as a code span) a parameter of ``names`` the command has no option for."""
    return any(m.group(1) in names and m.group(1) not in options for m in PARAM_SPAN.finditer(text))


def cli_message(exc: BaseException, options: dict[str, str]) -> str:
    """The error's message for the command line: each parameter it names, as the running command's option.

    The error lists the parameters it names (``exc.param``: :func:`tealeaves._params.naming`, or
    :meth:`~tealeaves._params.Param.check`).  For each: the message's subject (its first word) and
    every code span of it (`` `name` ``) become the option, when the running command has one.  A fix
    given as alternatives drops each alternative naming a parameter the command has no option for
    (``give its encoding with `encoding`, or convert it to UTF-8`` is ``convert it to UTF-8`` on a
    command without ``--encoding``); any other span of such a parameter is written as its bare name.
    An error naming no parameter is printed as ``str(exc)``.

    Parameters
    ----------
    exc : BaseException
        The error (a :class:`~tealeaves.errors.TealeavesError`).
    options : dict of str to str
        The running command's options by Python parameter name (:func:`command_options`).

    Returns
    -------
    str
        The message.
    """
    from tealeaves.errors import with_fix

    param = getattr(exc, "param", None)
    if not param:
        return str(exc)
    names = (param,) if isinstance(param, str) else tuple(param)
    what, fix = getattr(exc, "what", None), getattr(exc, "fix", None)
    if what is None or exc.args[:1] != (with_fix(what, fix),):
        what, fix = str(exc), None  # a message not built by TealeavesError (or changed since)
    if isinstance(fix, (tuple, list)):
        fix = [f for f in fix if not _spans_missing(f, names, options)]
    if names[0] in options:
        what = option_message(what, names[0], options[names[0]])
    if isinstance(fix, str):
        fix = cli_text(fix, names, options)
    elif fix:
        fix = [cli_text(f, names, options) for f in fix]
    return with_fix(cli_text(what, names, options), fix)


def running_parser(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.ArgumentParser:
    """The parser of the sub-command ``argv`` runs (``human score``'s, say), as argparse chooses it.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The top-level parser.
    argv : sequence of str
        The command line's arguments.

    Returns
    -------
    argparse.ArgumentParser
        The innermost sub-command's parser named in ``argv`` (``parser`` when none is).
    """
    current, tokens = parser, iter(argv)
    while True:
        sub = next((a for a in current._actions if isinstance(a, argparse._SubParsersAction)), None)
        if sub is None:
            return current
        for token in tokens:
            if token in sub.choices:
                current = sub.choices[token]
                break
            if token == "--" or not token.startswith("-"):
                return current
        else:
            return current


#: Options that give no parameter of the computation, though a parameter has their name (``docs/naming.md``).
NOT_PARAMETERS = ("--format", "--debug", "--quiet", "--verbose")


@shared_doc
def stands_for(action: argparse.Action, name: str) -> argparse.Action:
    """Record that the option ``action`` gives the Python parameter ``name`` (a documented exception
    of ``docs/naming.md``: ``--lang`` gives ``lang_files``), so that an error naming ``name`` names it.

    Parameters
    ----------
    action : argparse.Action
        The option (what ``add_argument`` returned).
    %(param_name)s

    Returns
    -------
    argparse.Action
        ``action``.
    """
    setattr(action, PARAM_ATTR, name)
    return action


def command_options(parser: argparse.ArgumentParser) -> dict[str, str]:
    """The options of one sub-command's parser, by the Python parameter each stands for.

    An option built by :func:`add_param` stands for its declaration's parameter (``random_state``
    -> ``--seed``); another option for its ``dest`` when its name follows the rule of
    ``docs/naming.md`` (``--encoding`` <-> ``encoding``); a positional argument is named by its
    metavar (``CORPUS``).  Hidden old spellings are not listed, nor the options of
    :data:`NOT_PARAMETERS` (``--format`` is how the command prints, not the ``format`` of a topics
    file).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The sub-command's parser (:func:`running_parser`).

    Returns
    -------
    dict of str to str
        Python parameter name -> how the command line names it.
    """
    own = (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction, _DeprecatedAlias)
    actions = [a for a in parser._actions
               if not isinstance(a, own) and a.dest not in (None, argparse.SUPPRESS)]
    options: dict[str, str] = {}
    for action in sorted(actions, key=lambda a: not hasattr(a, PARAM_ATTR)):  # declared ones first
        name = getattr(action, PARAM_ATTR, None)
        if not action.option_strings:
            metavar = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
            options.setdefault(name or action.dest, metavar)
            continue
        flag = next((s for s in action.option_strings if s.startswith("--")), action.option_strings[0])
        if name is None and flag == flag_for(action.dest) and flag not in NOT_PARAMETERS:
            name = action.dest
        if name is not None:
            options.setdefault(name, flag)
    return options
