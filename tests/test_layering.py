"""fxdsl's modules import one way: no cycles, no import from a higher layer.

The import graph is read from the source with `ast`, so it sees what a test
run would miss: imports inside functions (they run later, but they still tie
the two modules together), `if TYPE_CHECKING:` imports, names taken from the
lazy export tables of `fxdsl` and `fxdsl.rewrite` (`from fxdsl import apply`
imports `fxdsl.pipeline.pass_pipeline`), `importlib.import_module("fxdsl.x")` calls
and `"module:Name"` strings, the form in which `fxdsl.pipeline.universe` names the
passes it imports on demand. docs/architecture.md explains the layers;
`LAYERS` below is the rule it describes.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "fxdsl"

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # bottom first; a module may import its own layer and the ones below
    (
        "base",
        (
            "fxdsl",
            "fxdsl.util.lazy",
            "fxdsl._version",
            "fxdsl.ir.utils",
            "fxdsl.util.pipeline_syntax",
            "fxdsl.util.atomic_write",
        ),
    ),
    ("dialects", ("fxdsl.ir", "fxdsl.ir.parsing", "fxdsl.ir.dtypes")),
    (
        "interpreters/transforms",
        (
            "fxdsl.interpreters",
            "fxdsl.transforms",
            "fxdsl.targets",
            # a pure analysis of view ops on graph types, asked by transforms
            # (attention_bias) as well as by the lowering
            "fxdsl.ir.layout",
            # the tracer builds graph IR; the rewrite API edits it
            "fxdsl.tracing.trace_state",
            "fxdsl.tracing.ops",
            "fxdsl.tracing.tracer",
            "fxdsl.tracing.module_calls",
            "fxdsl.rewrite",
        ),
    ),
    ("lowering", ("fxdsl.lowering",)),
    # every pass by name (the universe, plugins) and running pipelines of them
    (
        "pipeline",
        (
            "fxdsl.pipeline.universe",
            "fxdsl.pipeline.pass_pipeline",
            "fxdsl.pipeline.registry",
        ),
    ),
    ("runtime", ("fxdsl.runtime",)),
    (
        "api/tools",
        (
            "fxdsl.api",
            "fxdsl.tools",
            "fxdsl.frontends",
            "fxdsl.testing",
            "fxdsl.bench",
            "fxdsl.distributed",
        ),
    ),
)

_MODULE_REF = re.compile(r"(fxdsl(?:\.\w+)*):\w+")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


FILES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
TREES = {name: ast.parse(path.read_text(), str(path)) for name, path in FILES.items()}
PACKAGES = {name for name, path in FILES.items() if path.name == "__init__.py"}


def _lazy_table(tree: ast.Module) -> dict[str, str]:
    """A package's `_EXPORTS` table (name -> defining module), if it has one."""
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            target = node.target if isinstance(node, ast.AnnAssign) else node.targets[0]
            if isinstance(target, ast.Name) and target.id == "_EXPORTS":
                table = ast.literal_eval(node.value)  # type: ignore[arg-type]
                return dict(table)
    return {}


TABLES = {name: _lazy_table(TREES[name]) for name in PACKAGES}


def _known(name: str) -> str:
    """The fxdsl module that importing `name` loads (`fxdsl.x.y.Attr` -> x.y)."""
    while name not in FILES:
        name = name.rpartition(".")[0]
    return name


def _imported(module: str, tree: ast.Module) -> Iterator[tuple[str, int]]:
    """(imported module, line) for every import anywhere in `tree`."""
    package = module if module in PACKAGES else module.rpartition(".")[0]
    lazy: dict[str, str] = {}  # local name -> lazy package it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.partition(".")[0] != "fxdsl":
                    continue
                yield _known(alias.name), node.lineno
                bound = alias.name if alias.asname else "fxdsl"
                if bound in TABLES:
                    lazy[alias.asname or "fxdsl"] = bound
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if base.partition(".")[0] != "fxdsl":
                continue
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in FILES:
                    yield full, node.lineno
                    if TABLES.get(full):
                        lazy[alias.asname or alias.name] = full
                elif alias.name in TABLES.get(base, {}):
                    yield _known(TABLES[base][alias.name]), node.lineno
                else:
                    yield _known(base), node.lineno
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if match := _MODULE_REF.fullmatch(node.value):
                yield _known(match.group(1)), node.lineno
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", ""))
            == "import_module"
            and node.args
            and isinstance(name := node.args[0], ast.Constant)
            and str(name.value).startswith("fxdsl")
        ):
            yield _known(str(name.value)), node.lineno
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in lazy
            and (source := TABLES[lazy[node.value.id]].get(node.attr))
        ):
            yield _known(source), node.lineno


IMPORTS = {
    module: dict(reversed(list(_imported(module, tree))))
    for module, tree in TREES.items()
}
"""Module -> {imported module: first line}, as written in its source."""


def _edges(module: str) -> dict[str, int]:
    """`IMPORTS[module]` and the package `__init__`s those imports run, where
    they import anything (a package `module` is itself inside runs first)."""
    own = {".".join(module.split(".")[:n]) for n in range(1, module.count(".") + 2)}
    edges = {t: line for t, line in IMPORTS[module].items() if t != module}
    for target, line in list(edges.items()):
        parts = target.split(".")
        for n in range(1, len(parts)):
            package = ".".join(parts[:n])
            if package not in own and IMPORTS[package]:
                edges.setdefault(package, line)
    return edges


GRAPH = {module: _edges(module) for module in FILES}


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for succ in GRAPH[node]:
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component: list[str] = []
            while not component or component[-1] != node:
                component.append(stack.pop())
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(GRAPH):
        if node not in index:
            visit(node)
    return found


def _describe(component: list[str]) -> str:
    inside = set(component)
    return "\n".join(
        f"  {module}:{line} imports {target}"
        for module in component
        for target, line in sorted(GRAPH[module].items())
        if target in inside
    )


def layer_of(module: str) -> int:
    """Index in `LAYERS` of the longest entry naming `module`: the module
    itself or a package holding it (but `fxdsl`, which names itself only)."""
    best, depth = -1, -1
    for level, (_, names) in enumerate(LAYERS):
        for name in names:
            holds = name != "fxdsl" and module.startswith(name + ".")
            if (module == name or holds) and len(name) > depth:
                best, depth = level, len(name)
    return best


def test_graph_is_read() -> None:
    # guards the reader: a broken walk would find no cycle anywhere
    assert "fxdsl.ir.utils" in GRAPH["fxdsl.api"]
    assert (
        "fxdsl.transforms.graph_fuse" in GRAPH["fxdsl.pipeline.universe"]
    )  # by string
    assert _known("fxdsl.ir.graph.AddOp") == "fxdsl.ir.graph"


def test_no_import_cycles() -> None:
    cycles = _cycles()
    report = "\n".join(f"{' <-> '.join(c)}:\n{_describe(c)}" for c in cycles)
    assert not cycles, f"import cycles among fxdsl's modules:\n{report}"


def test_every_module_has_a_layer() -> None:
    assert [m for m in FILES if layer_of(m) < 0] == []


def test_imports_point_down() -> None:
    upward = [
        f"{module}:{line} ({LAYERS[layer_of(module)][0]}) imports {target} "
        f"({LAYERS[layer_of(target)][0]})"
        for module in sorted(GRAPH)
        for target, line in sorted(GRAPH[module].items())
        if layer_of(target) > layer_of(module)
    ]
    assert not upward, "imports from a higher layer:\n" + "\n".join(upward)


def test_a_bad_import_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    # ir_utils (base) importing the api: a cycle (api imports ir_utils) and
    # an import from the top layer
    monkeypatch.setitem(GRAPH, "fxdsl.ir.utils", {"fxdsl.api": 1})
    (cycle,) = [c for c in _cycles() if "fxdsl.ir.utils" in c]
    assert "fxdsl.api" in cycle
    assert "fxdsl.ir.utils:1 imports fxdsl.api" in _describe(cycle)
    with pytest.raises(AssertionError, match=r"ir_utils:1 \(base\) imports fxdsl.api"):
        test_imports_point_down()
