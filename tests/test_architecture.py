"""The import graph of ``src/tealeaves``: no circle among its modules, no import of a higher layer.

The layers are read from the table in ``docs/architecture.md`` (the one declaration; the
document and this test cannot drift).  The graph is built with :mod:`ast` from the source:

* every import statement: ``import a.b`` and ``from a import b`` at module level **and inside
  functions** (class bodies, ``try`` and ``if`` blocks included), **and in ``if TYPE_CHECKING:``
  blocks** (a type-only import ties the two files as much as any other: a circle through one is
  a circle, and a lower layer may not name a higher one even in an annotation);
* so a package's lazy-export table (the ``if TYPE_CHECKING:`` block that
  :func:`tealeaves._lazy.lazy_package` reads) is an import of each module it names by the
  package: the package loads that module on first use of the name;
* ``from pkg import name`` is an import of ``pkg.name`` when that is a module, of the module a
  lazy-export table names for ``name``, and of ``pkg``;
* relative imports, and ``importlib.import_module("literal")`` calls;
* importing ``a.b.c`` also runs the packages ``a.b`` (unless it contains the importer).

Failures are compared with :data:`KNOWN` so that no new one can come in unseen.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tealeaves._lazy import exports_of

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
DOC = ROOT / "docs" / "architecture.md"

#: Failures accepted for now, each with the reason it stays (none: every rule holds).  A failure
#: not listed here fails the test, and so does an entry that no longer fails.
KNOWN: set[str] = set()


@dataclass(frozen=True)
class Import:
    """One import of a tealeaves module: ``source`` imports ``target`` on ``line``."""

    source: str
    target: str
    line: int
    in_function: bool
    type_checking: bool = False

    def where(self, modules: dict[str, Path]) -> str:
        """``src/tealeaves/x.py:12`` and how the import is made, for a failure message."""
        path = modules[self.source].relative_to(ROOT) if modules[self.source].is_relative_to(ROOT) \
            else modules[self.source]
        how = [h for h, on in (("inside a function", self.in_function),
                               ("under if TYPE_CHECKING", self.type_checking)) if on]
        return f"{path}:{self.line}" + (f" ({', '.join(how)})" if how else "")


@dataclass(frozen=True)
class Layer:
    """A row of the layer table: its number, name, module entries and the sideways rule."""

    number: int
    name: str
    entries: tuple[str, ...]
    sideways: bool


# -- the graph ----------------------------------------------------------------------------------
def find_modules(src: Path, package: str = "tealeaves") -> dict[str, Path]:
    """Dotted module name -> file, for every module under ``src/package``."""
    out = {}
    for path in sorted((src / package).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def lazy_table(module: str, tree: ast.Module) -> dict[str, str]:
    """``{name: module}`` of a package that exports lazily (:func:`tealeaves._lazy.lazy_package`): its
    ``if TYPE_CHECKING:`` imports, read by the same function as at run time (empty without the call)."""
    for node in tree.body:
        call = node.value if isinstance(node, (ast.Assign, ast.Expr)) else None
        if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "lazy_package":
            return exports_of(tree)
    return {}


#: The fields holding a statement's nested statements (the rest of its fields are expressions).
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


class _Collector:
    """Collects the imports of one module (see the module docstring for what counts).

    It walks statements only (imports are statements), and the expressions in them only when the
    module's text names ``import_module``: a fraction of the nodes, so the test stays fast."""

    def __init__(self, module: str, is_package: bool, modules: dict, lazy: dict, calls: bool = True):
        self.module, self.modules, self.lazy, self.calls = module, modules, lazy, calls
        self.package = module if is_package else module.rpartition(".")[0]
        self.found: list[tuple[str, int, bool, bool]] = []

    def visit(self, statements: list, in_function: bool = False, type_checking: bool = False) -> None:
        for node in statements:
            self._one(node, in_function, type_checking)

    def _one(self, node: ast.AST, in_function: bool, type_checking: bool) -> None:
        if isinstance(node, ast.Import):
            self.found += [(a.name, node.lineno, in_function, type_checking) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            self._from(node, in_function, type_checking)
        elif self.calls:
            for name, value in ast.iter_fields(node):
                if name not in _BLOCKS:
                    for expr in value if isinstance(value, list) else [value]:
                        self._calls(expr, in_function, type_checking)
        nested = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        if isinstance(node, ast.If) and _is_type_checking(node):
            self.visit(node.body, nested, True)
            self.visit(node.orelse, nested, type_checking)
            return
        for name in _BLOCKS:
            self.visit(getattr(node, name, ()), nested, type_checking)

    def _calls(self, node: object, in_function: bool, type_checking: bool) -> None:
        """``importlib.import_module("literal")`` calls in an expression (a lambda is a function)."""
        if not isinstance(node, ast.AST):
            return
        if isinstance(node, ast.Call) and _import_module_literal(node) is not None:
            self.found.append((_import_module_literal(node), node.lineno, in_function, type_checking))
        for child in ast.iter_child_nodes(node):
            self._calls(child, in_function or isinstance(node, ast.Lambda), type_checking)

    def _from(self, node: ast.ImportFrom, in_function: bool, type_checking: bool) -> None:
        base = node.module or ""
        if node.level:
            package = self.package
            for _ in range(node.level - 1):
                package = package.rpartition(".")[0]
            base = f"{package}.{base}" if base else package
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            targets = [submodule] if submodule in self.modules else [base] + (
                [self.lazy[base][alias.name]] if alias.name in self.lazy.get(base, {}) else [])
            self.found += [(t, node.lineno, in_function, type_checking) for t in targets]


def _import_module_literal(node: ast.Call) -> str | None:
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name == "import_module" and node.args and isinstance(node.args[0], ast.Constant):
        return node.args[0].value if isinstance(node.args[0].value, str) else None
    return None


def _with_packages(importer: str, target: str, modules: dict) -> list[str]:
    """``target`` and the packages importing it runs that do not contain ``importer``."""
    out = [target]
    parts = target.split(".")
    for n in range(2, len(parts)):
        package = ".".join(parts[:n])
        if package in modules and not (importer == package or importer.startswith(package + ".")):
            out.append(package)
    return out


def build_graph(src: Path = SRC, package: str = "tealeaves") -> list[Import]:
    """Every import of a module of ``package`` by another one (module docstring)."""
    modules = find_modules(src, package)
    texts = {m: p.read_text(encoding="utf-8") for m, p in modules.items()}
    trees = {m: ast.parse(text, str(modules[m])) for m, text in texts.items()}
    lazy = {m: lazy_table(m, tree) for m, tree in trees.items()}
    edges = []
    for module, tree in trees.items():
        collector = _Collector(module, modules[module].name == "__init__.py", modules, lazy,
                               calls="import_module" in texts[module])
        collector.visit(tree.body)
        for target, line, in_function, type_checking in collector.found:
            if target not in modules:
                continue
            for t in _with_packages(module, target, modules):
                if t != module:
                    edges.append(Import(module, t, line, in_function, type_checking))
    return edges


# -- circles --------------------------------------------------------------------------------------
def strongly_connected(nodes: list[str], graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def a_cycle(component: list[str], edges: list[Import]) -> list[Import]:
    """One shortest cycle through the first module of ``component``, as its imports."""
    inside = set(component)
    start = component[0]
    first: dict[str, Import] = {}
    for e in edges:
        if e.source in inside and e.target in inside:
            first.setdefault((e.source, e.target), e)
    parent: dict[str, Import] = {}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for (source, target), e in sorted(first.items()):
            if source != node:
                continue
            if target == start:
                path = [e]
                while path[0].source != start:
                    path.insert(0, parent[path[0].source])
                return path
            if target not in parent:
                parent[target] = e
                queue.append(target)
    raise AssertionError(f"no cycle in {component}")  # pragma: no cover


# -- layers ---------------------------------------------------------------------------------------
def read_layers(doc: Path = DOC) -> list[Layer]:
    """The rows of the ``| layer | name | modules | sideways |`` table of ``docs/architecture.md``."""
    rows = []
    in_table = False
    for line in doc.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else None
        if cells and [c.lower() for c in cells] == ["layer", "name", "modules", "sideways"]:
            in_table = True
        elif in_table and cells is None:
            break
        elif in_table and cells[0].isdigit():
            entries = tuple(re.findall(r"`([^`]+)`", cells[2]))
            rows.append(Layer(int(cells[0]), cells[1], entries, cells[3].lower() == "yes"))
    return rows


def _matches(module: str, entry: str) -> bool:
    if "*" in entry:
        return fnmatch.fnmatchcase(module, entry)
    return module == entry or (entry != "tealeaves" and module.startswith(entry + "."))


def layer_of(module: str, layers: list[Layer]) -> Layer | None:
    """The highest layer with an entry matching ``module`` (``None`` if none does)."""
    found = [layer for layer in layers if any(_matches(module, e) for e in layer.entries)]
    return max(found, key=lambda layer: layer.number) if found else None


def _package(module: str, modules: dict) -> str:
    return module if modules[module].name == "__init__.py" else module.rpartition(".")[0]


# -- the check ------------------------------------------------------------------------------------
def failures(src: Path = SRC, doc: Path = DOC) -> dict[str, str]:
    """``{stable key: detail}`` of every circle, upward import, sideways import and unplaced module."""
    modules = find_modules(src)
    edges = build_graph(src)
    layers = read_layers(doc)
    layer = {m: layer_of(m, layers) for m in modules}
    out = {f"no layer: {m}": "add it to the table in docs/architecture.md"
           for m in modules if layer[m] is None}
    graph = {m: set() for m in modules}
    for e in edges:
        graph[e.source].add(e.target)
    for component in strongly_connected(sorted(modules), graph):
        steps = "".join(f"\n       {e.source} imports {e.target} at {e.where(modules)}"
                        for e in a_cycle(component, edges))
        out[f"circle: {', '.join(component)}"] = f"the cycle:{steps}"
    for e in edges:
        lower, upper = layer[e.source], layer[e.target]
        if lower is None or upper is None:
            continue
        key = None
        if upper.number > lower.number:
            key = (f"upward: {e.source} (layer {lower.number}, {lower.name}) imports {e.target} "
                   f"(layer {upper.number}, {upper.name})")
        elif (upper.number == lower.number and not lower.sideways
              and _package(e.source, modules) != _package(e.target, modules)):
            key = (f"sideways: {e.source} imports {e.target} (both in layer {lower.number}, "
                   f"{lower.name})")
        if key is not None and key not in out:
            out[key] = e.where(modules)
    return out


def test_the_layer_table_is_read_from_the_architecture_document():
    layers = read_layers()
    assert [layer.number for layer in layers] == list(range(len(layers))), "layers are numbered 0, 1, 2, ..."
    assert all(layer.entries for layer in layers)
    assert layer_of("tealeaves.errors", layers).number == 0
    assert layer_of("tealeaves.multilingual.cli", layers).name == "commands"
    assert layer_of("tealeaves.multilingual.pltm_cli", layers).name == "commands"
    assert layer_of("tealeaves.multilingual.reference", layers).name == "studies"
    assert layer_of("tealeaves", layers).name == layer_of("tealeaves.cli", layers).name == "front doors"


def test_no_import_circle_and_no_import_of_a_higher_layer():
    found = failures()
    new = {k: v for k, v in found.items() if k not in KNOWN}
    fixed = KNOWN - set(found)
    message = "\n".join([f"NEW  {k}: {v}" for k, v in sorted(new.items())]
                        + [f"GONE {k} (remove it from KNOWN)" for k in sorted(fixed)])
    assert not new and not fixed, "\n" + message


# -- the graph builder itself, on a small made-up package ------------------------------------------
_FAKE = {
    "tealeaves/__init__.py": "",
    "tealeaves/errors.py": "",
    "tealeaves/a/__init__.py": ("from typing import TYPE_CHECKING\nfrom tealeaves._lazy import lazy_package\n"
                                "if TYPE_CHECKING:\n    from tealeaves.a.thing import Thing\n"
                                "__getattr__, __dir__, __all__ = lazy_package(__name__)\n"),
    "tealeaves/a/thing.py": "from . import helper\n",
    "tealeaves/a/helper.py": ("from typing import TYPE_CHECKING\n"
                              "if TYPE_CHECKING:\n    from tealeaves.b import user\n"
                              "def f():\n    from ..errors import TealeavesError\n"),
    "tealeaves/b/__init__.py": "",
    "tealeaves/b/user.py": ("import importlib\nfrom tealeaves.a import Thing\n"
                            "def g():\n    return importlib.import_module('tealeaves.b.late')\n"),
    "tealeaves/b/late.py": "class C:\n    import tealeaves.a.helper\n",
}


@pytest.fixture()
def fake_src(tmp_path):
    for name, text in _FAKE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def test_the_graph_sees_each_kind_of_import(fake_src):
    edges = {(e.source, e.target, e.in_function, e.type_checking) for e in build_graph(fake_src)}
    assert edges == {
        ("tealeaves.a", "tealeaves.a.thing", False, True),         # the lazy table: the package's import
        ("tealeaves.a.thing", "tealeaves.a.helper", False, False), # from . import helper (a submodule)
        ("tealeaves.a.helper", "tealeaves.b.user", False, True),   # a type-only import counts ...
        ("tealeaves.a.helper", "tealeaves.b", False, True),        # ... with the package it runs
        ("tealeaves.a.helper", "tealeaves.errors", True, False),   # relative, inside a function
        ("tealeaves.b.user", "tealeaves.a", False, False),         # a lazy export: the package ...
        ("tealeaves.b.user", "tealeaves.a.thing", False, False),   # ... and the module its table names
        ("tealeaves.b.user", "tealeaves.b.late", True, False),     # importlib.import_module("literal")
        ("tealeaves.b.late", "tealeaves.a.helper", False, False),  # in a class body: at import time
        ("tealeaves.b.late", "tealeaves.a", False, False),         # the package that import runs
    }


def test_a_circle_is_reported_with_its_path(fake_src):
    (fake_src / "tealeaves/a/helper.py").write_text("def f():\n    from tealeaves.a import thing\n")
    edges = build_graph(fake_src)
    graph = {m: {e.target for e in edges if e.source == m} for m in find_modules(fake_src)}
    [component] = strongly_connected(sorted(graph), graph)
    assert component == ["tealeaves.a.helper", "tealeaves.a.thing"]
    assert [(e.source, e.target) for e in a_cycle(component, edges)] == [
        ("tealeaves.a.helper", "tealeaves.a.thing"), ("tealeaves.a.thing", "tealeaves.a.helper")]


def test_a_failure_names_the_file_and_line_of_the_import(fake_src, tmp_path):
    doc = tmp_path / "layers.md"
    doc.write_text("| layer | name | modules | sideways |\n| --- | --- | --- | --- |\n"
                   "| 0 | foundation | `tealeaves.errors` | yes |\n| 1 | low | `tealeaves.a` | yes |\n"
                   "| 2 | high | `tealeaves.b` | yes |\n| 3 | front | `tealeaves` | yes |\n")
    found = failures(fake_src, doc)
    upward = "upward: tealeaves.a.helper (layer 1, low) imports tealeaves.b.user (layer 2, high)"
    assert found[upward].endswith("tealeaves/a/helper.py:3 (under if TYPE_CHECKING)")
    [circle] = [k for k in found if k.startswith("circle:")]     # through the type-only import
    assert circle == ("circle: tealeaves.a, tealeaves.a.helper, tealeaves.a.thing, tealeaves.b.late, "
                      "tealeaves.b.user")
    assert "tealeaves.a imports tealeaves.a.thing at " in found[circle]
    assert "tealeaves/a/__init__.py:4 (under if TYPE_CHECKING)" in found[circle]


def test_the_architecture_document_describes_every_package():
    """Each package of ``src/tealeaves`` has its paragraph under "What each package owns"."""
    text = DOC.read_text(encoding="utf-8")
    owns = text[text.index("## What each package owns"):].split("\n## ", 1)[0]
    packages = [m for m, path in find_modules(SRC).items() if path.name == "__init__.py" and m != "tealeaves"]
    missing = [p for p in packages if f"**`{p}`**" not in owns]
    assert not missing, f"docs/architecture.md has no paragraph for {missing}"
