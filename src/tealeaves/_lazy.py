"""Lazy package exports (PEP 562): a package names its public objects, a submodule loads on first use.

So ``import tealeaves.models.adapters`` or ``tealeaves --help`` does not pay for numba kernels,
scipy or pandas that only some commands need (``tests/test_packaging.py`` checks it).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping


def lazy_exports(package: str, exports: Mapping[str, str]
                 ) -> tuple[Callable[[str], object], Callable[[], list]]:
    """``(__getattr__, __dir__)`` for ``package``: ``exports`` maps a public name to its submodule
    (or, for a name re-exported from another package, to its full module path ``tealeaves....``).

    >>> getattr_, dir_ = lazy_exports("tealeaves", {"check_int": "validation"})
    >>> getattr_("check_int").__name__
    'check_int'
    """

    def __getattr__(name: str) -> object:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = exports[name]  # a submodule of the package, or a full module path (re-exports)
        return getattr(importlib.import_module(module if module.startswith("tealeaves.") else
                                               f"{package}.{module}"), name)

    def __dir__() -> list:
        return sorted(set(exports) | set(globals()))

    return __getattr__, __dir__
