"""Lazy package exports (PEP 562): a package names its public objects once, a submodule loads on first use.

So ``import tealeaves.models.adapters`` or ``tealeaves --help`` does not pay for numba kernels,
scipy or pandas that only some commands need (``tests/test_packaging.py`` checks it).

A package's ``__init__.py`` writes its public names once, as the imports of its
``if TYPE_CHECKING:`` block (read by type checkers and the API reference; one name per line,
sorted, kept so by ``tests/test_exports.py`` rather than by isort), and takes its
``__getattr__``, ``__dir__`` and ``__all__`` from that block with one call::

    if TYPE_CHECKING:
        # isort: off
        from tealeaves.coherence.measure import Coherence
        from tealeaves.coherence.measure import coherence
        # isort: on

    __getattr__, __dir__, __all__ = lazy_package(__name__)

:func:`exports_of` reads the block from the package's source (as scientific-python's
``lazy_loader.attach_stub`` reads a stub), so the name -> module table is not written a second
time; the API reference's griffe extension (``docs/griffe_lazy_exports.py``) and
``tests/test_architecture.py`` read it with the same function.
"""

from __future__ import annotations

import _ast  # the parser's node types without ``ast``'s own imports (``import tealeaves`` stays light)
import importlib
import importlib.util
import sys
from collections.abc import Callable, Iterable, Mapping


def exports_of(source: str | _ast.Module, filename: str = "<package>") -> dict[str, str]:
    """Public name -> defining module, from the ``if TYPE_CHECKING:`` imports of a package's source.

    Parameters
    ----------
    source : str or ast.Module
        The text of a package's ``__init__.py``, or its parsed tree.
    filename : str, optional
        Its path, for the message of a syntax error.

    Returns
    -------
    dict[str, str]
        Each name imported by a ``from <module> import <name>`` statement in the top-level
        ``if TYPE_CHECKING:`` block, mapped to the full dotted name of ``<module>`` (empty
        without such a block).

    >>> exports_of("if TYPE_CHECKING:\\n    from tealeaves.validation import check_int\\n")
    {'check_int': 'tealeaves.validation'}
    """
    tree = source if isinstance(source, _ast.Module) else compile(
        source, filename, "exec", _ast.PyCF_ONLY_AST)
    table: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, _ast.If) and _is_type_checking(node.test):
            for stmt in node.body:
                if isinstance(stmt, _ast.ImportFrom) and stmt.level == 0:
                    table.update({alias.name: stmt.module for alias in stmt.names})
    return table


def _is_type_checking(test: _ast.expr) -> bool:
    return (isinstance(test, _ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, _ast.Attribute) and test.attr == "TYPE_CHECKING")


def lazy_package(package: str, eager: Iterable[str] = (), aliases: Mapping[str, str] | None = None
                 ) -> tuple[Callable[[str], object], Callable[[], list], list[str]]:
    """``(__getattr__, __dir__, __all__)`` for ``package``, from its own ``if TYPE_CHECKING:`` imports.

    Parameters
    ----------
    package : str
        The package's ``__name__``; it is being imported, so its ``__file__`` is its source.
    eager : Iterable[str], optional
        Public names the package defines or imports itself (not loaded lazily); they are
        listed in ``__all__`` too.
    aliases : Mapping[str, str], optional
        Former public name -> its current name: still importable, not listed in ``__all__``.

    Returns
    -------
    tuple
        What :func:`lazy_exports` returns for the table :func:`exports_of` reads from the
        package's source.
    """
    path = sys.modules[package].__file__
    with open(path, encoding="utf-8") as handle:
        exports = exports_of(handle.read(), path)
    return lazy_exports(package, exports, eager, aliases)


def lazy_exports(package: str, exports: Mapping[str, str], eager: Iterable[str] = (),
                 aliases: Mapping[str, str] | None = None
                 ) -> tuple[Callable[[str], object], Callable[[], list], list[str]]:
    """``(__getattr__, __dir__, __all__)`` for ``package``, from one table of its public names.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    exports : Mapping[str, str]
        Public name -> the module that defines it (a full dotted name, or one relative to
        ``package``); loaded on first access of the name.
    eager : Iterable[str], optional
        Public names the package defines or imports itself (not loaded lazily); they are
        listed in ``__all__`` too.
    aliases : Mapping[str, str], optional
        Former public name -> its current name in ``exports``: still importable, not listed
        in ``__all__``.

    Returns
    -------
    tuple
        ``__getattr__`` (loads a name's module on first use), ``__dir__`` and
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
            module = exports[name]  # a full module path, or a submodule of the package
            return getattr(importlib.import_module(module if module.startswith("tealeaves.") else
                                                   f"{package}.{module}"), name)
        if not name.startswith("__") and importlib.util.find_spec(f"{package}.{name}") is not None:
            return importlib.import_module(f"{package}.{name}")  # a submodule not imported yet
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list:
        return sorted(set(public) | set(vars(sys.modules[package])))

    return __getattr__, __dir__, public
