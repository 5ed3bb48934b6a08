"""Griffe extension for the API reference: expand the shared descriptions of docstrings.

A docstring line of ``%(key)s`` placeholders (:mod:`tealeaves._docs`) is expanded at import time by
:func:`tealeaves._docs.shared_doc`; mkdocstrings reads docstrings from the source without importing
it, so this expands each function's and class's docstring with the same :func:`tealeaves._docs.expand`
before griffe parses its sections (the Parameters tables then show every entry)."""

from __future__ import annotations

import ast

import griffe

from tealeaves._docs import expand


class SharedDocs(griffe.Extension):
    """Expand ``%(key)s`` placeholder lines in function and class docstrings."""

    def _expand(self, obj: griffe.Object) -> None:
        if obj.docstring is not None and "%(" in obj.docstring.value:
            obj.docstring.value = expand(obj.docstring.value)

    def on_function_instance(self, *, node: ast.AST | griffe.ObjectNode, func: griffe.Function,
                             **kwargs) -> None:
        self._expand(func)

    def on_class_instance(self, *, node: ast.AST | griffe.ObjectNode, cls: griffe.Class, **kwargs) -> None:
        self._expand(cls)
