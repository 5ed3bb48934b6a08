"""Lazy package exports (PEP 562): a package names its public objects once, a submodule loads on first use.

So ``import tealeaves.models.adapters`` or ``tealeaves --help`` does not pay for numba kernels,
scipy or pandas that only some commands need (``tests/test_packaging.py`` checks it).

A package's ``__init__.py`` writes one table, ``_EXPORTS`` (public name -> submodule), and
takes its ``__getattr__``, ``__dir__`` and ``__all__`` from it::

    __getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)

Its ``if TYPE_CHECKING:`` block imports the same names for type checkers and the API reference
(``tests/test_packaging.py`` checks that it names exactly ``__all__``).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Iterable, Mapping


def lazy_exports(package: str, exports: Mapping[str, str], eager: Iterable[str] = (),
                 aliases: Mapping[str, str] | None = None
                 ) -> tuple[Callable[[str], object], Callable[[], list], list[str]]:
    """``(__getattr__, __dir__, __all__)`` for ``package``, from one table of its public names.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    exports : Mapping[str, str]
        Public name -> the submodule (relative to ``package``) that defines it; loaded on
        first access of the name.
    eager : Iterable[str], optional
        Public names the package defines or imports itself (not loaded lazily); they are
        listed in ``__all__`` too.
    aliases : Mapping[str, str], optional
        Former public name -> its current name in ``exports``: still importable, not listed
        in ``__all__``.

    Returns
    -------
    tuple
        ``__getattr__`` (loads a name's submodule on first use), ``__dir__`` and
        ``__all__`` (the sorted public names, each written once in ``exports`` or ``eager``).

    >>> getattr_, dir_, all_ = lazy_exports("tealeaves", {"check_int": "validation"})
    >>> getattr_("check_int").__name__, all_
    ('check_int', ['check_int'])
    """
    public = sorted(set(exports) | set(eager))
    aliases = dict(aliases or {})

    def __getattr__(name: str) -> object:
        name = aliases.get(name, name)
        if name in exports:
            module = exports[name]  # a submodule of the package, or a full module path (re-exports)
            return getattr(importlib.import_module(module if module.startswith("tealeaves.") else
                                                   f"{package}.{module}"), name)
        if not name.startswith("__") and importlib.util.find_spec(f"{package}.{name}") is not None:
            return importlib.import_module(f"{package}.{name}")  # a submodule not imported yet
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list:
        return sorted(set(public) | set(vars(sys.modules[package])))

    return __getattr__, __dir__, public
