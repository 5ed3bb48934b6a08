"""The front doors: each package's public names come from one table, every error lives in tealeaves.errors.

A package's ``__init__.py`` writes each public name once, in its ``if TYPE_CHECKING:`` imports (for
type checkers and the API reference); ``lazy_package`` reads them (``tealeaves._lazy.exports_of``)
and builds ``__all__`` and the lazy ``__getattr__`` from them: each name loads from the module its
import names.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import tealeaves
from tealeaves import errors
from tealeaves._lazy import exports_of

SRC = Path(tealeaves.__file__).resolve().parent
#: Modules that need an optional library at import time are skipped when it is absent.
OPTIONAL = ("gensim", "tomotopy", "bertopic", "dask", "distributed", "pyarrow", "mwxml", "mwparserfromhell")


def _lazy_packages() -> list[str]:
    found = []
    for init in sorted(SRC.rglob("__init__.py")):
        if "lazy_package(" in init.read_text(encoding="utf-8"):
            rel = init.parent.relative_to(SRC.parent)
            found.append(".".join(rel.parts))
    return found


def _type_checking_imports(package: str) -> dict[str, str]:
    """name -> module of every import in the package's ``if TYPE_CHECKING:`` block."""
    init = SRC.parent.joinpath(*package.split("."), "__init__.py")
    tree = ast.parse(init.read_text(encoding="utf-8"))
    names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            rows = []
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom), f"{package}: only 'from ... import' in TYPE_CHECKING"
                assert len(stmt.names) == 1, f"{package}: one public name per line ({stmt.module})"
                rows.append((stmt.module, stmt.names[0].name))
                for alias in stmt.names:
                    assert alias.asname is None, f"{package}: {alias.name} imported under another name"
                    assert alias.name not in names, f"{package}: {alias.name} imported twice"
                    names[alias.name] = stmt.module
            assert rows == sorted(rows), f"{package}: TYPE_CHECKING imports are sorted by module, then name"
    return names


def test_the_lazy_packages_are_found():
    assert {"tealeaves", "tealeaves.human", "tealeaves.multilingual", "tealeaves.coherence",
            "tealeaves.models", "tealeaves.sweep"} <= set(_lazy_packages())


@pytest.mark.parametrize("package", _lazy_packages())
def test_type_checking_imports_name_exactly_all(package):
    module = importlib.import_module(package)
    imports = _type_checking_imports(package)
    assert sorted(imports) == sorted(set(module.__all__) - {"__version__"})
    assert module.__all__ == sorted(set(module.__all__)), "__all__ is sorted and each name once"
    assert exports_of(SRC.parent.joinpath(*package.split("."), "__init__.py").read_text("utf-8")) == imports
    for name, source in imports.items():
        assert getattr(module, name) is getattr(importlib.import_module(source), name)


@pytest.mark.parametrize("package", _lazy_packages())
def test_dir_lists_every_export(package):
    module = importlib.import_module(package)
    assert set(module.__all__) <= set(dir(module))
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        module.no_such_name  # noqa: B018


def _exception_classes() -> set[type]:
    for info in pkgutil.walk_packages(tealeaves.__path__, "tealeaves."):
        if info.name == "tealeaves.__main__":  # runs the command line
            continue
        try:
            importlib.import_module(info.name)
        except ImportError as exc:  # an optional extra's module
            if not any(lib in str(exc) for lib in OPTIONAL):
                raise
    seen, todo = set(), [Exception]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
    # a private class (``_Retry``, the annotation server's ``_BadRequest``) is control flow inside
    # its module, never raised to a caller
    return {c for c in seen if c.__module__.startswith("tealeaves") and not c.__name__.startswith("_")}


def _params():
    for cls in sorted(_exception_classes(), key=lambda c: (c.__name__, c.__module__)):
        yield pytest.param(cls, id=f"{cls.__module__}.{cls.__qualname__}")


@pytest.mark.parametrize("cls", list(_params()))
def test_every_error_class_is_in_tealeaves_errors(cls):
    assert cls.__name__.endswith("Error")
    assert getattr(errors, cls.__name__, None) is cls
    assert getattr(tealeaves, cls.__name__) is cls
    assert cls.__name__ in tealeaves.__all__


def test_old_names_still_import():
    from tealeaves.coherence.errors import TopicError
    from tealeaves.corpus.aligned import LanguageMismatchError
    from tealeaves.data.fetch import ChecksumError
    from tealeaves.human.agreement import AgreementUndefined
    from tealeaves.human.results import JudgmentResults, Results
    from tealeaves.human.store import StoreUnavailable
    from tealeaves.sweep import Results as SweepResultsByOldName
    from tealeaves.sweep import SweepResults

    assert AgreementUndefined is errors.AgreementUndefinedError
    assert StoreUnavailable is errors.StoreUnavailableError
    assert (TopicError, LanguageMismatchError, ChecksumError) == (
        errors.TopicError, errors.LanguageMismatchError, errors.ChecksumError)
    assert Results is JudgmentResults and SweepResultsByOldName is SweepResults
    assert "Results" not in importlib.import_module("tealeaves.sweep").__all__


def test_one_load_model():
    import tealeaves.models
    import tealeaves.models.adapters
    import tealeaves.models.base

    assert tealeaves.load_model is tealeaves.models.load_model is tealeaves.models.adapters.load_model
    assert tealeaves.models.base.load_model is tealeaves.models.load_npz_model  # the former module name


def test_one_progress_mechanism():
    from tealeaves._progress import Progress
    from tealeaves.data.fetch import DownloadProgress
    from tealeaves.index.streaming import BuildProgress
    from tealeaves.sweep.progress import SweepProgress

    for cls in (DownloadProgress, BuildProgress, SweepProgress):
        assert issubclass(cls, Progress)
