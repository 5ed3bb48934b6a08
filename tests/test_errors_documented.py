"""docs/errors.md documents every error class tealeaves defines (a new class without an entry fails)."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import tealeaves
from tealeaves.errors import TealeavesError

DOC = Path(__file__).resolve().parent.parent / "docs" / "errors.md"
#: Modules that need an optional library at import time are skipped when it is absent.
OPTIONAL = ("gensim", "tomotopy", "bertopic", "dask", "distributed", "pyarrow", "mwxml", "mwparserfromhell")


def _error_classes() -> set[type]:
    for info in pkgutil.walk_packages(tealeaves.__path__, "tealeaves."):
        if info.name == "tealeaves.__main__":  # runs the command line
            continue
        try:
            importlib.import_module(info.name)
        except ImportError as exc:  # an optional extra's module
            if not any(lib in str(exc) for lib in OPTIONAL):
                raise
    seen, todo = set(), [TealeavesError]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub.__module__.startswith("tealeaves.") and sub not in seen:
                seen.add(sub)
                todo.append(sub)
    return seen


@pytest.mark.parametrize("cls", sorted(_error_classes(), key=lambda c: c.__name__), ids=lambda c: c.__name__)
def test_error_class_is_documented(cls):
    assert f"`{cls.__name__}`" in DOC.read_text(encoding="utf-8"), (
        f"{cls.__module__}.{cls.__name__} is not described in docs/errors.md")
