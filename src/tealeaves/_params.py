"""Each parameter's constraints, declared once for the Python API and the command line.

In the spirit of scikit-learn's ``utils/_param_validation.py``: a library function declares
its parameters as :class:`Param` objects (type, bounds, choices, help text) and checks its
arguments with them; the command line builds its options from the *same* objects
(:func:`tealeaves._cli_args.add_param`), so an option's accepted values, its help text and
its error messages cannot drift from the function it calls.  Library errors name the
Python parameter (``n_top must be ...``); the command line's error boundary translates
that name into the option (``--n-top must be ...``), by the rule of ``docs/naming.md``.

>>> N_TOP = Param("n_top", "int", min_value=2, max_value=50, help="words shown per topic")
>>> N_TOP.check(5), N_TOP.flag
(5, '--n-top')
>>> N_TOP.check(1)
Traceback (most recent call last):
...
tealeaves.errors.ParameterError: n_top must be a whole number >= 2 and <= 50, got 1

Renamed keyword arguments keep working for a while through :func:`renamed_parameters`,
which warns once per old name.
"""

from __future__ import annotations

import dataclasses
import functools
import warnings
from collections.abc import Callable, Mapping
from typing import Any

from tealeaves._docs import shared_doc
from tealeaves.errors import ParameterError, naming  # noqa: F401 -- naming: its home was here
from tealeaves.validation import (
    check_bool,
    check_choice,
    check_count_or_share,
    check_float,
    check_int,
    check_path,
    check_seed,
    check_window,
)

#: The kinds a :class:`Param` may have, and the check each runs.
KINDS = ("int", "float", "seed", "choice", "path", "str", "bool", "count_or_share", "window")


@dataclasses.dataclass(frozen=True)
class Param:
    """One parameter's declaration: its Python name, kind, bounds, choices and help text.

    Parameters
    ----------
    name : str
        The Python parameter name (``n_top``).  The command-line option is derived from it
        (``--n-top``; see :attr:`flag` and ``docs/naming.md``).
    kind : str
        One of :data:`KINDS`.
    min_value, max_value : float, optional
        Inclusive bounds for ``int`` and ``float`` parameters (``None``: unbounded).
    include_min : bool
        For ``float``: whether ``min_value`` itself is allowed.
    include_max : bool
        For ``float``: whether ``max_value`` itself is allowed (``False``: an exclusive upper
        bound, as a confidence level's ``< 1``).
    choices : tuple of str
        For ``choice``: the accepted values.
    help : str
        One line for ``--help`` and the API reference.
    short : str, optional
        A one-letter command-line spelling (``-k``, ``-o``).
    flag_name : str, optional
        The long option when it differs from the rule (a documented exception in
        ``docs/naming.md``, e.g. ``random_state`` is ``--seed``).
    deprecated_flags : tuple of str
        Old option spellings, still accepted (hidden from ``--help``) with a warning.
    """

    name: str
    kind: str = "int"
    min_value: float | None = None
    max_value: float | None = None
    include_min: bool = True
    include_max: bool = True
    choices: tuple = ()
    help: str = ""
    short: str | None = None
    flag_name: str | None = None
    deprecated_flags: tuple = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Param {self.name!r}: unknown kind {self.kind!r}")

    @property
    def flag(self) -> str:
        """The long command-line option: ``--`` and the name with dashes (``n_top`` -> ``--n-top``)."""
        return self.flag_name or flag_for(self.name)

    def replace(self, **changes: Any) -> Param:
        """A copy with some fields changed (a context that narrows the bounds, say).

        Parameters
        ----------
        **changes
            Fields of :class:`Param` and their new values.

        Returns
        -------
        Param
            The copy.
        """
        return dataclasses.replace(self, **changes)

    def check(self, value: object, *, allow_str: bool = False) -> Any:
        """Return ``value`` converted and checked, or raise :class:`~tealeaves.errors.ParameterError`.

        Parameters
        ----------
        value : object
            The value given by a caller (a string when ``allow_str``: a command-line value).
        allow_str : bool
            Accept numbers written as text.

        Returns
        -------
        object
            The value as the parameter's kind (``int``, ``float``, ``str``, ...).
        """
        try:
            return self._check(value, allow_str)
        except ParameterError as exc:
            exc.param = self.name
            raise

    def _check(self, value: object, allow_str: bool) -> Any:
        n = self.name
        if self.kind == "int":
            return check_int(value, n, min_value=self.min_value, max_value=self.max_value,
                             allow_str=allow_str)
        if self.kind == "float":
            return check_float(value, n, min_value=self.min_value, max_value=self.max_value,
                               include_min=self.include_min, include_max=self.include_max,
                               allow_str=allow_str)
        if self.kind == "seed":
            return check_seed(value, n)
        if self.kind == "count_or_share":  # a document frequency: an int count or a float share
            return check_count_or_share(value, n, allow_str=allow_str)
        if self.kind == "window":  # a co-occurrence window: "doc" or a whole number of tokens
            return check_window(value, n)
        if self.kind == "choice":
            return check_choice(value, n, self.choices)
        if self.kind == "path":
            return check_path(value, n)
        if self.kind == "bool":
            return check_bool(value, n)
        if not isinstance(value, str) or not value:
            raise ParameterError(f"{n} must be a non-empty string, got {value!r}")
        return value


#: A random seed (functions; ``docs/naming.md``): a whole number >= 0.  A command states what it seeds
#: in its help text (``add_param(parser, SEED, help="bootstrap seed")``).
SEED = Param("seed", "seed", help="random seed")
#: The seed of a train/test split and of the held-out halves of the test documents.
SPLIT_SEED = Param("split_seed", "seed", help="seed of the train/test split and of the held-out halves")


@shared_doc
def flag_for(name: str) -> str:
    """The long option for a Python parameter name (``n_top`` -> ``--n-top``).

    Parameters: %(param_name)s

    Returns
    -------
    str
        The option.
    """
    return "--" + name.replace("_", "-")


def check_params(params: Mapping[str, Param], values: Mapping[str, object]) -> dict:
    """Check several arguments against their declarations; return the checked values.

    Parameters
    ----------
    params : mapping of str to Param
        The declarations, by Python name.
    values : mapping of str to object
        The arguments to check (names absent from ``params`` are returned unchanged).

    Returns
    -------
    dict
        ``values`` with each declared one converted and checked.
    """
    return {k: (params[k].check(v) if k in params and v is not None else v) for k, v in values.items()}


def declare(*params: Param) -> dict[str, Param]:
    """A table of declarations keyed by their Python names (each name once).

    Parameters
    ----------
    *params : Param
        The declarations.

    Returns
    -------
    dict of str to Param
        The table.

    Raises
    ------
    ValueError
        When a name is declared twice.
    """
    table: dict[str, Param] = {}
    for p in params:
        if p.name in table:
            raise ValueError(f"parameter {p.name!r} declared twice")
        table[p.name] = p
    return table


_WARNED: set = set()


@shared_doc
def warn_renamed(old: str, new: str, where: str) -> None:
    """Warn once per process that ``old`` is a deprecated spelling of ``new``.

    Parameters: %(renamed_old)s %(renamed_new)s %(renamed_where)s
    """
    key = (where, old)
    if key in _WARNED:
        return
    _WARNED.add(key)
    warnings.warn(f"{where}: '{old}' is deprecated and will be removed; use '{new}'",
                  FutureWarning, stacklevel=3)


@shared_doc
def renamed_attribute(old: str, new: str, where: str) -> property:
    """A read-only attribute ``old`` standing for ``new``: reading it warns once (:func:`warn_renamed`).

    Parameters: %(renamed_old)s %(renamed_new)s %(renamed_where)s

    Returns
    -------
    property
        Assign it to ``old`` in the class body; setting it raises ``AttributeError``.
    """

    def read(self: object) -> Any:
        warn_renamed(old, new, where)
        return getattr(self, new)

    read.__name__ = read.__qualname__ = old
    return property(read, doc=f"Deprecated name of :attr:`{new}` (reading it warns once with a "
                              "``FutureWarning``).")


def renamed_parameters(renames: Mapping[str, str]) -> Callable:
    """Decorator: accept old keyword names (``{"top_n": "n_top"}``), warning once for each.

    Giving both the old and the new name is an error.

    Parameters
    ----------
    renames : mapping of str to str
        Old keyword name to new keyword name.

    Returns
    -------
    callable
        A decorator for the function whose parameters were renamed.
    """

    def decorate(func: Callable) -> Callable:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        raise ParameterError(f"{func.__qualname__}() got both {old!r} and {new!r}",
                                             fix=f"give only {new!r} ({old!r} is its old name)")
                    warn_renamed(old, new, f"{func.__qualname__}()")
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        wrapper.__renamed_parameters__ = dict(renames)  # read by the naming test
        return wrapper

    return decorate


def deprecated_alias(func: Callable, old: str) -> Callable:
    """``func`` under its old public name ``old``: works the same, with one ``FutureWarning``.

    Parameters
    ----------
    func : callable
        The function under its new name.
    old : str
        The name it had.

    Returns
    -------
    callable
        A function named ``old`` that warns once per process, then calls ``func``.
    """

    @functools.wraps(func)
    def alias(*args: Any, **kwargs: Any) -> Any:
        warn_renamed(old, func.__name__, func.__module__)
        return func(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old
    alias.__doc__ = f"Deprecated old name of :func:`{func.__name__}` (same arguments and result)."
    return alias
