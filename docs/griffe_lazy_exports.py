"""Griffe extension for the API reference: a package's ``__all__`` is built at run time by
:func:`tealeaves._lazy.lazy_exports` from its ``_EXPORTS`` table, which static analysis cannot
evaluate; this reads the same table (and the ``eager=`` names) from the source instead."""

from __future__ import annotations

import ast

import griffe


def _exports(tree: ast.Module) -> list[str] | None:
    table, eager = None, []
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "_EXPORTS" for t in node.targets):
            table = ast.literal_eval(node.value)
        call = getattr(node, "value", None)
        if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "lazy_exports":
            eager += [n for k in call.keywords if k.arg == "eager" for n in ast.literal_eval(k.value)]
    return None if table is None else sorted(set(table) | set(eager))


class LazyExports(griffe.Extension):
    """Set a lazily exporting package's exports from its ``_EXPORTS`` table."""

    def on_module_members(self, *, node: ast.AST | griffe.ObjectNode, mod: griffe.Module, **kwargs) -> None:
        if isinstance(node, ast.Module):
            exports = _exports(node)
            if exports is not None:
                mod.exports = exports
