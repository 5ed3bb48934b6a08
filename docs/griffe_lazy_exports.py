"""Griffe extension for the API reference: a package's ``__all__`` is built at run time by
:func:`tealeaves._lazy.lazy_package` from its ``if TYPE_CHECKING:`` imports, which static analysis
does not evaluate; this reads the same imports, with the same function
(:func:`tealeaves._lazy.exports_of`), and the call's ``eager=`` names, from the source instead."""

from __future__ import annotations

import ast

import griffe

from tealeaves._lazy import exports_of


def _exports(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        call = getattr(node, "value", None)
        if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "lazy_package":
            eager = [n for k in call.keywords if k.arg == "eager" for n in ast.literal_eval(k.value)]
            return sorted(set(exports_of(tree)) | set(eager))
    return None


class LazyExports(griffe.Extension):
    """Set a lazily exporting package's exports from its ``if TYPE_CHECKING:`` imports."""

    def on_module_members(self, *, node: ast.AST | griffe.ObjectNode, mod: griffe.Module, **kwargs) -> None:
        if isinstance(node, ast.Module):
            exports = _exports(node)
            if exports is not None:
                mod.exports = exports
