"""Every public function, class and method of the listed packages has a NumPy-style docstring.

"Public" means a name without a leading underscore, defined in a module of the package (private
modules included: what they define is re-exported). A callable that takes parameters (``self`` and
``cls`` aside) has a ``Parameters`` section naming exactly those parameters, in any order (``*args``
and ``**kwargs`` may be written with or without their stars); one that returns a value (a return
annotation other than ``None``, or a ``return <value>`` when it is not annotated) has a ``Returns``
or ``Yields`` section. A class documents its constructor's parameters in its own docstring (what
mkdocstrings' ``merge_init_into_class`` renders) or in its ``__init__`` docstring; properties and
dunder methods are exempt, and so is a deprecated alias (``tealeaves._params.deprecated_alias``:
a wrapper named otherwise than the function it wraps, documented by that function); a named tuple
may document its fields (its constructor's parameters) in an ``Attributes`` section instead, since
mkdocstrings does not see the generated constructor. The parser is small on purpose: a section is a
title line underlined by dashes, and an entry is a line at the section's indentation,
``name : type`` or ``name``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import sys
import textwrap
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

import tealeaves
from tealeaves._docs import DESCRIPTIONS, PLACEHOLDER_LINE, expand

#: Packages (every module under them) and single modules whose public API is checked.
PACKAGES = [
    "tealeaves.store",
    "tealeaves.likelihood",
    "tealeaves.comparison",
    "tealeaves.corpus",
    "tealeaves.ingest",
    "tealeaves.report",
    "tealeaves.data",
    "tealeaves.signature",
    "tealeaves.validation",
    "tealeaves._io",
    "tealeaves._output",
    "tealeaves.reproduce.five_term",
    "tealeaves.reproduce.reuters_coherence",
    "tealeaves.reproduce.reuters",
    "tealeaves.reproduce.bible_vs_modern",
    "tealeaves.reproduce.hao2018",
    "tealeaves.reproduce.hao2018_units",
    "tealeaves.models",
    "tealeaves.multilingual._estimator_params",
    "tealeaves.multilingual.aligned_build",
    "tealeaves.multilingual.classification",
    "tealeaves.multilingual.dictionaries",
    "tealeaves.multilingual.drift",
    "tealeaves.multilingual._word_stats",
    "tealeaves.multilingual.era",
    "tealeaves.multilingual.estimator",
    "tealeaves.multilingual.estimator_io",
    "tealeaves.multilingual.features",
    "tealeaves.multilingual.measures",
    "tealeaves.multilingual.names",
    "tealeaves.multilingual.pltm_io",
    "tealeaves.multilingual.topics",
    "tealeaves.multilingual.reference",
    "tealeaves.multilingual.aligned_files",
    "tealeaves.multilingual._cli_common",
    "tealeaves.reproduce.params",
    "tealeaves.distributed",
    "tealeaves.human",
    "tealeaves.coherence",
    "tealeaves.coherence.aggregation",
    "tealeaves.coherence.confirmation",
    "tealeaves.coherence.errors",
    "tealeaves.coherence.index",
    "tealeaves.coherence.measure",
    "tealeaves.coherence.result",
    "tealeaves.coherence.params",
    "tealeaves.coherence.presets",
    "tealeaves.coherence.segmentation",
    "tealeaves.sweep",
    "tealeaves.index",
    "tealeaves._params",
    "tealeaves._cli_args",
    "tealeaves._lazy",
    "tealeaves._progress",
    "tealeaves._optional",
    "tealeaves._terminal",
    "tealeaves.errors",
    "tealeaves.cli",
]

#: Modules left out (the areas' command-line modules: their functions are argparse plumbing). The
#: top-level ``tealeaves.cli`` (the parser and the error boundary) is not one of them: it is checked.
EXCLUDED_MODULES = {"tealeaves.likelihood.cli", "tealeaves.data.cli", "tealeaves.human.cli",
                    "tealeaves.sweep.cli", "tealeaves.index.cli", "tealeaves.coherence.cli"}


def _modules() -> list[str]:
    names = []
    for package in PACKAGES:
        module = importlib.import_module(package)
        names.append(package)
        if hasattr(module, "__path__"):
            prefix = package + "."
            names += [info.name for info in pkgutil.walk_packages(module.__path__, prefix)]
    return sorted(name for name in set(names) if name not in EXCLUDED_MODULES)


def _unwrap(obj):
    """The Python function behind a numba dispatcher (``py_func``), else ``obj``."""
    return getattr(obj, "py_func", obj)


def _is_routine(obj) -> bool:
    """A function defined by its own ``def`` (not a closure a factory returned, documented by the factory)."""
    func = _unwrap(obj)
    return inspect.isfunction(func) and "<locals>" not in func.__qualname__ and not _is_alias(func)


def _is_alias(func) -> bool:
    """A deprecated alias: a wrapper whose name differs from the function it wraps."""
    wrapped = getattr(func, "__wrapped__", None)
    return wrapped is not None and getattr(wrapped, "__name__", None) != func.__name__


def _public_objects() -> Iterator[tuple[str, object, str]]:
    """``(qualified name, object, kind)`` for every public function, class and method."""
    for module_name in _modules():
        module = importlib.import_module(module_name)
        for name, obj in sorted(vars(module).items()):
            if name.startswith("_") or getattr(_unwrap(obj), "__module__", None) != module_name:
                continue
            qualified = f"{module_name}.{name}"
            if inspect.isclass(obj):
                yield qualified, obj, "class"
                yield from _methods(qualified, obj)
            elif _is_routine(obj):
                yield qualified, _unwrap(obj), "function"


def _methods(qualified: str, cls: type) -> Iterator[tuple[str, object, str]]:
    for name, attr in vars(cls).items():
        if name.startswith("_") or isinstance(attr, property):
            continue
        if isinstance(attr, (staticmethod, classmethod)):
            attr = attr.__func__
        if inspect.isfunction(attr):
            yield f"{qualified}.{name}", attr, "method"


def sections(docstring: str | None) -> dict[str, list[str]]:
    """The NumPy sections of ``docstring``: title -> the lines under its underline."""
    lines = textwrap.dedent(inspect.cleandoc(docstring or "")).splitlines()
    found: dict[str, list[str]] = {}
    current = None
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and _is_underline(lines[i + 1], line):
            current = line.strip()
            found[current] = []
        elif current is not None and not _is_underline(line, lines[i - 1] if i else ""):
            found[current].append(line)
    return found


def _is_underline(line: str, title: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= 3 and set(stripped) == {"-"} and len(stripped) == len(title.strip())


def documented_names(lines: list[str]) -> list[str]:
    """The entry names of a ``Parameters`` section (``a, b : int`` names two)."""
    names = []
    for line in lines:
        if line.strip() and not line[0].isspace():
            head = line.split(" : ", 1)[0].rstrip(" :")
            names += [part.strip() for part in head.split(",")]
    return names


def _parameters(obj, skip_first: bool) -> list[str]:
    params = list(inspect.signature(obj).parameters.values())
    if skip_first and params and params[0].name in ("self", "cls"):
        params = params[1:]
    names = []
    for p in params:
        stars = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        names.append(stars + p.name)
    return names


def _returns_value(func) -> bool:
    annotation = inspect.signature(func).return_annotation
    if annotation is not inspect.Signature.empty:
        return annotation not in (None, "None", "NoReturn", "typing.NoReturn")
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):
        return False
    body = tree.body[0]
    return any(_own_value_return(node) for node in _own_nodes(body))


def _own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``function`` outside nested functions, classes and lambdas."""
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def _own_value_return(node: ast.AST) -> bool:
    if isinstance(node, (ast.Yield, ast.YieldFrom)):
        return True
    return isinstance(node, ast.Return) and node.value is not None and not (
        isinstance(node.value, ast.Constant) and node.value.value is None
    )


def _constructor(cls: type):
    """The ``__init__``/``__new__`` that builds ``cls`` when ``cls`` itself defines it, else None."""
    for klass in cls.__mro__:
        for name in ("__init__", "__new__"):
            if name in vars(klass):
                return vars(klass)[name] if klass is cls else None
    return None


def _same(documented: list[str], expected: list[str]) -> bool:
    return sorted(name.lstrip("*") for name in documented) == sorted(name.lstrip("*") for name in expected)


def problems(qualified: str, obj, kind: str) -> list[str]:
    """What is missing from ``obj``'s docstring, as messages naming ``qualified``."""
    if kind == "class":
        return _class_problems(qualified, obj)
    doc = inspect.getdoc(obj)
    if not doc:
        return [f"{qualified}: no docstring"]
    found = sections(doc)
    out = []
    expected = _parameters(obj, skip_first=kind == "method")
    documented = documented_names(found.get("Parameters", []))
    if (expected or "Parameters" in found) and not _same(documented, expected):
        out.append(f"{qualified}: Parameters documents {documented}, signature has {expected}")
    if _returns_value(obj) and not ({"Returns", "Yields"} & found.keys()):
        out.append(f"{qualified}: no Returns/Yields section")
    return out


def _is_namedtuple(cls: type) -> bool:
    """A ``typing.NamedTuple``: its generated constructor takes the fields, which griffe does not see."""
    return issubclass(cls, tuple) and hasattr(cls, "_fields")


def _class_problems(qualified: str, cls: type) -> list[str]:
    doc = cls.__doc__
    if not doc:
        return [f"{qualified}: no docstring"]
    init = _constructor(cls)
    if init is None:
        return []
    try:
        expected = _parameters(cls, skip_first=False)
    except (TypeError, ValueError):
        return []
    found = {**sections(init.__doc__), **sections(doc)} if init.__doc__ else sections(doc)
    documented = documented_names(found.get("Parameters", []))
    if _is_namedtuple(cls) and "Parameters" not in found:  # its fields, documented as attributes
        documented = documented_names(found.get("Attributes", []))
    if (expected or "Parameters" in found) and not _same(documented, expected):
        return [f"{qualified}: Parameters documents {documented}, constructor has {expected}"]
    return []


PUBLIC = list(_public_objects())


def test_the_walk_finds_the_public_api():
    names = {name for name, _, _ in PUBLIC}
    assert "tealeaves.likelihood._perplexity.perplexity" in names
    assert len(PUBLIC) > 50


@pytest.mark.parametrize("qualified, obj, kind", PUBLIC, ids=[name for name, _, _ in PUBLIC])
def test_numpy_docstring(qualified, obj, kind):
    assert problems(qualified, obj, kind) == []


def test_the_parser_reads_numpy_sections():
    def example(a, b, *args, c=1, **kwargs) -> int:
        """Sum.

        Parameters
        ----------
        a, b : int
            Two numbers.
        *args : int
            More.
        c : int, default 1
            Another.
        **kwargs
            Ignored.

        Returns
        -------
        int
            The sum.
        """

    assert documented_names(sections(example.__doc__)["Parameters"]) == ["a", "b", "*args", "c", "**kwargs"]
    assert problems("example", example, "function") == []
    example.__doc__ = "Sum.\n\nParameters\n----------\na : int\n    One.\n"
    assert len(problems("example", example, "function")) == 2


# -- shared descriptions (tealeaves._docs) --------------------------------------------------------
SRC = Path(tealeaves.__file__).resolve().parent


def _placeholder_docstrings() -> Iterator[tuple[str, ast.AST, bool]]:
    """``(module, node, decorated)`` for each def or class whose source docstring holds a placeholder line."""
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "_docs.py":  # its own docstrings show the syntax
            continue
        module = ".".join(path.relative_to(SRC.parent).with_suffix("").parts).removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                doc = ast.get_docstring(node, clean=False)
                if doc and PLACEHOLDER_LINE.search(doc):
                    decorated = any(getattr(d, "id", None) == "shared_doc" for d in node.decorator_list)
                    yield module, node, decorated


def test_every_docstring_with_a_placeholder_is_expanded_at_import():
    found = list(_placeholder_docstrings())
    assert len(found) > 20
    assert [f"{m}.{n.name}" for m, n, decorated in found if not decorated] == []
    # and the decorator is the innermost one, so a wrapper (numba, functools.wraps) copies the expanded text
    for module, node, _ in found:
        assert getattr(node.decorator_list[-1], "id", None) == "shared_doc", f"{module}.{node.name}"


def test_no_public_docstring_keeps_a_placeholder():
    kept = [name for name, obj, _ in PUBLIC if PLACEHOLDER_LINE.search(inspect.getdoc(obj) or "")]
    assert kept == []


def test_every_shared_description_is_used_in_two_places_and_parses_as_one_entry():
    uses = Counter()
    for path in SRC.rglob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if PLACEHOLDER_LINE.fullmatch(line) and path.name != "_docs.py":
                uses.update(re.findall(r"%\((\w+)\)s", line))
    assert set(uses) <= set(DESCRIPTIONS), "a placeholder names no shared description"
    assert [key for key in DESCRIPTIONS if uses[key] < 2] == [], "shared once: keep it inline instead"
    for key, text in DESCRIPTIONS.items():
        lines = text.splitlines()
        assert lines[0] == lines[0].strip() and all(line.startswith("    ") for line in lines[1:]), key


def test_expand_indents_each_entry_as_its_placeholder():
    table = {"a": "a : int\n    One.", "b": "b : str\n    Two,\n    lines."}
    doc = "Sum.\n\n    Parameters\n    ----------\n    %(a)s %(b)s\n    c : float\n        Three.\n"
    assert expand(doc, table) == ("Sum.\n\n    Parameters\n    ----------\n    a : int\n        One.\n"
                                  "    b : str\n        Two,\n        lines.\n"
                                  "    c : float\n        Three.\n")
    assert expand("    Returns: %(a)s\n", table) == "    Returns\n    -------\n    a : int\n        One.\n"
    assert expand("50%(a)s of it", table) == "50%(a)s of it"  # only whole placeholder lines
    with pytest.raises(KeyError, match="no shared description 'z'"):
        expand("    %(z)s", table)


def test_the_api_reference_expands_shared_descriptions():
    """The griffe extension of the docs build gives mkdocstrings the same text as ``__doc__``."""
    griffe = pytest.importorskip("griffe")
    sys.path.insert(0, str(SRC.parent.parent / "docs"))
    try:
        from griffe_shared_docs import SharedDocs
    finally:
        sys.path.pop(0)
    module, name = "tealeaves._io", "read_text"
    assert name in {n.name for m, n, _ in _placeholder_docstrings() if m == module}
    extensions = griffe.load_extensions(SharedDocs)
    loaded = griffe.load(module, search_paths=[str(SRC.parent)], extensions=extensions,
                         docstring_parser="numpy")
    obj = loaded[name]
    assert obj.docstring.value == inspect.cleandoc(_documented(module, name).__doc__)
    names = [p.name for s in obj.docstring.parsed if s.kind.value == "parameters" for p in s.value]
    assert names == ["path", "encoding", "what", "utf8_only"]


def _documented(module: str, qualname: str):
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj
