"""Validation of parameters at the boundary, in one place.

Every public function and command-line option checks its inputs with these
helpers, so that a bad value is refused with a message naming the parameter,
what it must be, and what it got, instead of being coerced into a different
computation.  In the spirit of scikit-learn's ``utils.validation.check_scalar``.

>>> check_int(10, "top_n", min_value=2)
10
>>> check_int(1.5, "top_n", min_value=2)
Traceback (most recent call last):
...
tealeaves.errors.ParameterError: top_n must be a whole number >= 2, got 1.5 (float)
>>> check_window("doc"), check_window("10")
('doc', 10)
"""

from __future__ import annotations

import argparse
import math
import numbers
import re
import unicodedata
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

from tealeaves._docs import shared_doc
from tealeaves.errors import ParameterError, naming

T = TypeVar("T")


def _num(value: float) -> str:
    """A bound as written: whole numbers in full (4294967295, not 4.29497e+09), others with %g."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _bounds(min_value: float | None, max_value: float | None, include_min: bool = True,
            include_max: bool = True) -> str:
    parts = []
    if min_value is not None:
        parts.append(f"{'>=' if include_min else '>'} {_num(min_value)}")
    if max_value is not None:
        parts.append(f"{'<=' if include_max else '<'} {_num(max_value)}")
    return " and ".join(parts)


def _got(value: object) -> str:
    return f"{value!r} ({type(value).__name__})"


@shared_doc
def check_int(value: object, name: str, *, min_value: int | None = None, max_value: int | None = None,
              allow_str: bool = False) -> int:
    """Return ``value`` as an ``int`` if it is a whole number within ``[min_value, max_value]``.

    Booleans and floats are refused (``1.5`` and ``True`` are not counts).

    Parameters
    ----------
    %(check_value)s %(check_name)s
    min_value : int or None, default None
        Smallest value allowed (None: no bound).
    max_value : int or None, default None
        Largest value allowed (None: no bound).
    %(check_allow_str)s

    Returns: %(returns_int_value)s

    Raises
    ------
    ParameterError
        Naming the parameter, what it must be and what it got.

    Examples
    --------
    >>> check_int(10, "top_n", min_value=2)
    10
    """
    original = value
    if allow_str and isinstance(value, str):
        try:
            value = int(value.strip(), 10)
        except ValueError:
            value = original
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ParameterError(f"{name} must be a whole number{_suffix(min_value, max_value)}, "
                             f"got {_got(original)}")
    value = int(value)
    if (min_value is not None and value < min_value) or (max_value is not None and value > max_value):
        raise ParameterError(f"{name} must be a whole number {_bounds(min_value, max_value)}, got {value}")
    return value


def _suffix(min_value: float | None, max_value: float | None) -> str:
    b = _bounds(min_value, max_value)
    return f" {b}" if b else ""


@shared_doc
def check_float(value: object, name: str, *, min_value: float | None = None,
                max_value: float | None = None, include_min: bool = True, include_max: bool = True,
                allow_str: bool = False) -> float:
    """Return ``value`` as a finite ``float`` within the bounds (NaN and infinity are always refused).

    Parameters
    ----------
    %(check_number)s %(check_name)s
    min_value : float or None, default None
        Lower bound (None: none).
    max_value : float or None, default None
        Upper bound (None: none).
    %(check_include_min)s
    include_max : bool, default True
        Whether ``max_value`` itself is allowed.
    %(check_allow_str)s

    Returns
    -------
    float
        The value.

    Raises
    ------
    ParameterError
        If ``value`` is not a finite number within the bounds.
    """
    original = value
    if allow_str and isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            value = original
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ParameterError(f"{name} must be a number{_suffix(min_value, max_value)}, got {_got(original)}")
    value = float(value)
    if not math.isfinite(value):
        raise ParameterError(f"{name} must be a finite number, got {value}")
    low_bad = min_value is not None and (value < min_value or (not include_min and value == min_value))
    high_bad = max_value is not None and (value > max_value or (not include_max and value == max_value))
    if low_bad or high_bad:
        raise ParameterError(f"{name} must be a number "
                             f"{_bounds(min_value, max_value, include_min, include_max)}, got {value:g}")
    return value


@shared_doc
def check_count_or_share(value: object, name: str, *, allow_str: bool = False) -> int | float:
    """A document count (a whole number >= 0) or a share of the documents (a float in (0, 1]).

    The convention of scikit-learn's ``CountVectorizer`` ``min_df``/``max_df``: the type
    decides, so ``1`` is one document and ``1.0`` all of them.  A command-line value is a
    count when written as a whole number (``5``), else a share (``0.5``, ``1.0``).

    Parameters: %(check_number)s %(check_name)s %(check_allow_str)s

    Returns
    -------
    int or float
        The count (``int``) or the share (``float``).

    Raises
    ------
    ParameterError
        If ``value`` is neither.

    Examples
    --------
    >>> check_count_or_share("5", "min_df", allow_str=True), check_count_or_share(0.5, "max_df")
    (5, 0.5)
    """
    if allow_str and isinstance(value, str):
        text = value.strip()
        if re.fullmatch(r"[+-]?\d+", text):
            value = int(text, 10)
        else:
            try:
                value = float(text)
            except ValueError:
                pass
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        if value < 0:
            raise ParameterError(f"{name} must be a document count >= 0 or a share of the documents > 0 "
                                 f"and <= 1, got the count {int(value)}", fix="give a count >= 0")
        return int(value)
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        value = float(value)
        if not (math.isfinite(value) and 0 < value <= 1):
            raise ParameterError(f"{name} must be a document count >= 0 or a share of the documents > 0 "
                                 f"and <= 1, got the share {value:g}",
                                 fix="a share is a float in (0, 1]; write a count as a whole number, e.g. 5")
        return value
    raise ParameterError(f"{name} must be a document count (a whole number >= 0) or a share of the "
                         f"documents (a number > 0 and <= 1), got {_got(value)}")


@shared_doc
def check_bool(value: object, name: str) -> bool:
    """Return ``value`` as a ``bool`` if it is ``True`` or ``False`` (NumPy's boolean scalars too); otherwise
    refuse it (a string such as ``"False"``, ``0`` or an array would otherwise read as true, false or
    ambiguous).

    Parameters
    ----------
    %(check_value)s %(check_name)s

    Returns
    -------
    bool
        ``value``.

    Raises
    ------
    ParameterError
        If ``value`` is not a boolean.
    """
    numpy_bool = type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_")
    if not (isinstance(value, bool) or numpy_bool):
        raise ParameterError(f"{name} must be True or False, got {_got(value)}")
    return bool(value)


@shared_doc
def check_choice(value: object, name: str, choices: Sequence[T]) -> T:
    """Return ``value`` if it is one of ``choices``; otherwise list them.

    Parameters
    ----------
    %(check_value)s %(check_name)s
    choices : sequence
        The allowed values.

    Returns
    -------
    object
        ``value``.

    Raises
    ------
    ParameterError
        Listing the choices, if ``value`` is not one of them (an array among them: NumPy would compare it
        element by element, and a one-element array equal to a choice would pass).
    """
    if not isinstance(value, Hashable) or value not in choices:
        raise ParameterError(f"{name} must be one of {', '.join(map(str, choices))}; got {value!r}")
    return value  # type: ignore[return-value]


#: Largest sliding or context window, in tokens (a window past any document's length counts as a whole
#: document; the counting kernels hold window starts of a document, which jhlau's windows shift by the
#: window, as 32-bit integers).
MAX_WINDOW = 2**30


@shared_doc
def check_window(value: object, name: str = "window") -> str | int:
    """A co-occurrence window: ``"doc"`` (whole documents) or a whole number of tokens from 1 to
    :data:`MAX_WINDOW`.

    Parameters
    ----------
    value : object
        ``"doc"`` (also ``"document"``, ``"boolean_document"``, any case) or a whole
        number (a numeric string is accepted).
    %(check_name)s

    Returns
    -------
    str or int
        ``"doc"`` or the number of tokens.

    Raises
    ------
    ParameterError
        If ``value`` is neither (for 0, the fix points to ``"doc"``: jhlau's window 0).
    """
    if isinstance(value, str) and value.strip().lower() in ("doc", "document", "boolean_document"):
        return "doc"
    try:
        return check_int(value, name, min_value=1, max_value=MAX_WINDOW, allow_str=True)
    except ParameterError:
        zero = not isinstance(value, bool) and str(value).strip() == "0"
        fix = (f"jhlau's window 0 (the whole document) is `{name}='doc'`" if zero
               else f"e.g. `{name}='doc'` or `{name}=10`")
        raise naming(ParameterError(f"{name} must be 'doc' or a whole number of tokens from 1 to "
                                    f"{MAX_WINDOW:,}, got {_got(value)}", fix=fix), name) from None


@shared_doc
def check_seed(value: object, name: str = "seed") -> int:
    """A random seed: a whole number in ``[0, 2**32 - 1]`` (what numpy accepts everywhere).

    Parameters
    ----------
    value : object
        The seed (a numeric string is accepted).
    %(check_name)s

    Returns
    -------
    int
        The seed.

    Raises
    ------
    ParameterError
        If ``value`` is not a whole number in range.
    """
    return check_int(value, name, min_value=0, max_value=2**32 - 1, allow_str=True)


def first_duplicate(values: Iterable[T]) -> T | None:
    """The first value that repeats an earlier one, or ``None`` when all are distinct.

    Parameters
    ----------
    values : iterable
        Hashable values.

    Returns
    -------
    object or None
        The first repeated value.

    Examples
    --------
    >>> first_duplicate(["oil", "gas", "oil", "gas"]), first_duplicate([1, 2])
    ('oil', None)
    """
    if isinstance(values, (list, tuple)) and len(set(values)) == len(values):
        return None  # the common case, decided in C
    seen: set = set()
    for v in values:
        if v in seen:
            return v
        seen.add(v)
    return None


@shared_doc
def check_unique(values: Iterable[T], name: str) -> list[T]:
    """Return ``values`` as a list, refusing duplicates (naming the first one).

    Parameters
    ----------
    values : iterable
        Hashable values.
    %(check_name)s

    Returns
    -------
    list
        The values.

    Raises
    ------
    ParameterError
        If a value is listed more than once.
    """
    out = list(values)
    dup = first_duplicate(out)
    if dup is not None:
        raise ParameterError(f"{name} lists {dup!r} more than once", fix="give each value once")
    return out


# --------------------------------------------------------------------------------------------
# argparse ``type=`` adapters: the same checks, reported as argparse errors naming the option
# --------------------------------------------------------------------------------------------
def _arg(check: Callable[[str], T]) -> Callable[[str], T]:
    def convert(text: str) -> T:
        try:
            return check(text)
        except ParameterError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    convert.__name__ = getattr(check, "__name__", "value")
    return convert


@shared_doc
def int_arg(min_value: int | None = None, max_value: int | None = None, name: str = "value"
            ) -> Callable[[str], int]:
    """An argparse ``type`` accepting whole numbers within bounds.

    Parameters
    ----------
    min_value : int or None, default None
        Smallest value allowed.
    max_value : int or None, default None
        Largest value allowed.
    %(arg_name)s

    Returns
    -------
    callable
        ``str -> int``, raising ``argparse.ArgumentTypeError`` with :func:`check_int`'s message.
    """
    return _arg(lambda s: check_int(s, name, min_value=min_value, max_value=max_value, allow_str=True))


@shared_doc
def float_arg(min_value: float | None = None, max_value: float | None = None, name: str = "value",
              include_min: bool = True) -> Callable[[str], float]:
    """An argparse ``type`` accepting finite numbers within bounds.

    Parameters
    ----------
    min_value : float or None, default None
        Lower bound.
    max_value : float or None, default None
        Upper bound.
    %(arg_name)s
    %(check_include_min)s

    Returns
    -------
    callable
        ``str -> float``, raising ``argparse.ArgumentTypeError`` with :func:`check_float`'s message.
    """
    return _arg(lambda s: check_float(s, name, min_value=min_value, max_value=max_value,
                                      include_min=include_min, allow_str=True))


@shared_doc
def check_path(value: object, name: str = "path") -> str:
    """A path given as text: refuses the empty (or blank) string, which ``Path`` reads as the current folder.

    Parameters
    ----------
    value : object
        The path.
    %(check_name)s

    Returns: %(returns_value_str)s

    Raises
    ------
    ParameterError
        If ``value`` is not a non-blank string.
    """
    if not isinstance(value, str) or not value.strip():
        raise ParameterError(f"{name} must be a path, got {value!r}",
                             fix=f"give {name} a file or folder name")
    return value


@shared_doc
def check_name(value: object, name: str = "name") -> str:
    r"""A reference name (recorded in signatures, listed by ``index info``): non-empty and on one line.

    No control character, lone surrogate or line/paragraph separator.  ``|``, ``=`` and
    ``\`` are accepted: signatures escape them (:mod:`tealeaves.signature`).

    Parameters
    ----------
    value : object
        The name.
    %(check_name)s

    Returns: %(returns_value_str)s

    Raises
    ------
    ParameterError
        If ``value`` is not such a name.
    """
    if not isinstance(value, str) or not value.strip() or any(
            unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp") for c in value):
        raise ParameterError(f"{name} must be a non-empty name on one line without control characters, "
                             f"got {value!r}", fix=f"e.g. {name} reuters-2026")
    return value


@shared_doc
def checked_arg(check: Callable[[object, str], str], name: str) -> Callable[[str], str]:
    """An argparse ``type`` running ``check(text, name)``, e.g. ``checked_arg(check_path, "-o")``.

    Parameters
    ----------
    check : callable
        :func:`check_path` or :func:`check_name` (a ``(value, name) -> str`` check raising
        :class:`~tealeaves.errors.ParameterError`).
    %(arg_name)s

    Returns
    -------
    callable
        ``str -> str``, raising ``argparse.ArgumentTypeError`` with ``check``'s message.
    """
    return _arg(lambda s: check(s, name))


window_arg = _arg(check_window)
seed_arg = _arg(check_seed)
