"""`-t dot`: draw graph-dialect programs as Graphviz digraphs.

    fxdsl-opt examples/mlp.mlir -t dot | dot -Tsvg > mlp.svg
    fxdsl-opt x.mlir -p graph-fuse -t "dot{edge-labels=false}"

One `digraph` per module. Every `func.func` is a cluster `cluster_<name>`
(dots in the name become `_`; other names that are not DOT ids, numbered);
its arguments are input nodes (weights, `graph.param`, drawn as cylinders),
ops are nodes labelled with their name and result types, SSA values are edges
(labelled with their type), `func.return` is an output node and `func.call`
nodes name the callee. A `graph.fusion_group` is a nested cluster holding its
body ops: edges run from the producers of the group's operands straight to
the users of its block arguments, and from the yielded values to the group's
users. Ops with a `scope` attribute are grouped into nested clusters, one per
module call (fqn and call index), so unflattened or partitioned programs look
like their module tree.

After `graph-unflatten` the module tree is a tree of functions instead: a
`func.call` carrying `graph.module` calls a module function. Following those
calls from the functions nobody calls (the entry), each module function is
drawn once, nested in the cluster of its first call site (depth first, in
program order), right after the call node. Its cluster is labelled with the
full fqns it is called as (`transformer.h.0 (GPT2Block)`, `+ transformer.h.1`
for a function shared by identical calls) and its symbol. Every module call
node names the module it calls and has a dashed edge to the callee's cluster
(`lhead`); only the first call's edge constrains the layout, so shared
functions called from elsewhere do not pull the drawing apart.

Node and cluster ids are numbered in program order, so the same input always
gives the same text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import singledispatchmethod
from typing import IO

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.target import Target

from fxdsl.ir.graph import (
    PARAM,
    SCOPE,
    FusionGroupOp,
    ScopeAttr,
    ScopeFrame,
    YieldOp,
)
from fxdsl.ir.utils import arg_attr
from fxdsl.transforms.scope_tree import module_frame

_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# Node attributes by role; ops use the graph-wide default (rounded boxes).
_INPUT = 'shape=invhouse, style=filled, fillcolor="#e8f0fe"'
_PARAM = 'shape=cylinder, style=filled, fillcolor="#fef7e0"'
_OUTPUT = 'shape=house, style=filled, fillcolor="#e6f4ea"'
_CALL = 'style="rounded,bold"'
# Cluster attributes (statements inside the subgraph).
_FUSION = 'style="rounded,filled"; fillcolor="#f3e8fd"; color="#9334e6"'
_SCOPE = 'style=dashed; color="#5f6368"'
_FUNC = 'style=solid; color="#202124"'
_MODULE = 'style=rounded; color="#1a73e8"'
# The dashed call -> callee cluster edge of a module call.
_CALL_EDGE = 'style=dashed, color="#1a73e8", arrowhead=empty'
# Full fqns listed on a shared module function's cluster before "+ N more".
_MAX_ALIASES = 3
# Call paths named per function: enough to know one more than is shown.
_NAMED_PATHS = _MAX_ALIASES + 2


def quote(text: str) -> str:
    """A DOT double-quoted string; newlines become `\\n` line breaks."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def short_type(typ: Attribute) -> str:
    """`tensor<4x8xf32>` -> `4x8xf32`; other types print as they are."""
    if isinstance(typ, TensorType):
        return str(typ).removeprefix("tensor<").removesuffix(">")
    return str(typ)


@dataclass
class Cluster:
    """A DOT subgraph: its own node lines and nested clusters, in order."""

    id: str
    label: str
    style: str
    items: list[str | Cluster] = field(default_factory=list["str | Cluster"])

    def lines(self, indent: str) -> Iterator[str]:
        yield f"{indent}subgraph {self.id} {{"
        yield f"{indent}  label={quote(self.label)};"
        yield f"{indent}  {self.style};"
        for item in self.items:
            if isinstance(item, Cluster):
                yield from item.lines(indent + "  ")
            else:
                yield f"{indent}  {item}"
        yield f"{indent}}}"


def _call_name(prefix: str, frame: ScopeFrame) -> str:
    fqn, index, _ = frame
    name = f"{prefix}.{fqn}" if prefix else fqn
    return f"{name} #{index}" if index else name


@dataclass
class ModuleTree:
    """The module functions of one symbol table, as drawn (module docstring).

    `host` maps a module function to the call whose cluster holds it: its
    first call, walking calls depth first from the entries in program order.
    `names` holds the full names of a function's first calls in that order,
    `paths` how many call paths reach it. Calls back into a function already
    on the path (recursion, which unflatten never makes) are not followed."""

    callee: dict[func.CallOp, func.FuncOp] = field(
        default_factory=dict[func.CallOp, func.FuncOp]
    )
    caller: dict[func.CallOp, func.FuncOp] = field(
        default_factory=dict[func.CallOp, func.FuncOp]
    )
    host: dict[func.FuncOp, func.CallOp] = field(
        default_factory=dict[func.FuncOp, func.CallOp]
    )
    names: dict[func.FuncOp, list[str]] = field(
        default_factory=dict[func.FuncOp, list[str]]
    )
    paths: dict[func.FuncOp, int] = field(default_factory=dict[func.FuncOp, int])

    @staticmethod
    def of(block: Block) -> ModuleTree:
        """Follow `graph.module` calls between the functions of `block`."""
        tree = ModuleTree()
        functions = {
            op.sym_name.data: op for op in block.ops if isinstance(op, func.FuncOp)
        }
        made: dict[func.FuncOp, list[func.CallOp]] = {f: [] for f in functions.values()}
        for function in functions.values():
            for op in function.walk():
                if not isinstance(op, func.CallOp) or module_frame(op) is None:
                    continue
                if (callee := functions.get(op.callee.string_value())) is None:
                    continue
                made[function].append(op)
                tree.callee[op] = callee
                tree.caller[op] = function
        called = {c for op, c in tree.callee.items() if tree.caller[op] is not c}
        entries = [f for f in functions.values() if f not in called]
        # Functions only reachable through a cycle of calls become entries too.
        for function in entries + list(functions.values()):
            if function not in tree.names:
                tree.paths[function] = 1
                tree._visit(function, "", made, set())
        callers: dict[func.FuncOp, list[func.FuncOp]] = {f: [] for f in made}
        for call, callee in tree.callee.items():
            callers[callee].append(tree.caller[call])
        for function in functions.values():
            tree._count(function, callers)
        return tree

    def _visit(
        self,
        function: func.FuncOp,
        name: str,
        made: dict[func.FuncOp, list[func.CallOp]],
        active: set[func.FuncOp],
    ) -> None:
        """Name the call path `name` to `function`, then walk its calls.

        A function already named `_NAMED_PATHS` times is not walked again:
        every function below it has been reached at least as often, so their
        first names are known, and the walk stays linear."""
        self.names.setdefault(function, [])
        if name:
            self.names[function].append(name)
        active.add(function)
        for call in made[function]:
            callee = self.callee[call]
            if callee in active or len(self.names.get(callee, ())) >= _NAMED_PATHS:
                continue
            self.host.setdefault(callee, call)
            frame = module_frame(call)
            assert frame is not None
            self._visit(callee, _call_name(name, frame), made, active)
        active.discard(function)

    def _count(
        self, function: func.FuncOp, callers: dict[func.FuncOp, list[func.FuncOp]]
    ) -> int:
        """Call paths from the entries to `function` (memoized)."""
        if function in self.paths:
            return self.paths[function]
        # Guard: a cycle back to `function` adds no paths.
        self.paths[function] = 0
        total = sum(self._count(caller, callers) for caller in callers[function])
        self.paths[function] = total
        return total

    def encloses(self, function: func.FuncOp, call: func.CallOp) -> bool:
        """Whether `function`'s cluster contains the node of `call`."""
        inner: func.FuncOp | None = self.caller[call]
        while inner is not None:
            if inner is function:
                return True
            host = self.host.get(inner)
            inner = self.caller[host] if host is not None else None
        return False

    def label(self, function: func.FuncOp, type_name: str) -> str:
        """`first.fqn (Type)`, `+ other.fqn`..., `+ N more calls`, `@symbol`."""
        names = list(dict.fromkeys(self.names[function]))
        lines = [f"{names[0]} ({type_name})" if type_name else names[0]]
        lines += [f"+ {name}" for name in names[1 : 1 + _MAX_ALIASES]]
        more = self.paths[function] - min(len(names), 1 + _MAX_ALIASES)
        if more > 0:
            lines.append(f"+ {more} more call{'s' if more > 1 else ''}")
        return "\n".join(lines + [f"@{function.sym_name.data}"])


@dataclass
class _Source:
    """Where an SSA value comes from: a node and, for multi-result ops, which."""

    node: str
    index: int | None = None


@dataclass(eq=False)
class DotPrinter:
    """Builds the DOT text of one module (see the module docstring)."""

    edge_labels: bool = True
    _nodes: int = 0
    _clusters: int = 0
    _cluster_ids: set[str] = field(default_factory=set[str])
    _sources: dict[SSAValue, _Source] = field(default_factory=dict[SSAValue, _Source])
    _edges: list[str] = field(default_factory=list[str])
    _tree: ModuleTree = field(default_factory=ModuleTree)
    # Module function -> (its first node, its cluster id), for call edges.
    _entries: dict[func.FuncOp, tuple[str, str]] = field(
        default_factory=dict[func.FuncOp, tuple[str, str]]
    )
    _call_nodes: list[tuple[func.CallOp, str]] = field(
        default_factory=list[tuple[func.CallOp, str]]
    )

    def render(self, module: ModuleOp) -> str:
        root = Cluster("root", "", "")
        self._draw_symbol_table(module.body.block, root)
        self._edges += self._call_edges()
        name = module.sym_name.data if module.sym_name else "module"
        out = [
            f"digraph {quote(name)} {{",
            "  compound=true;",
            '  node [shape=box, style=rounded, fontname="Helvetica", fontsize=10];',
            '  edge [fontname="Helvetica", fontsize=9];',
        ]
        out += [
            f"  {item}" if isinstance(item, str) else "\n".join(item.lines("  "))
            for item in root.items
        ]
        out += [f"  {edge}" for edge in self._edges]
        out.append("}")
        return "\n".join(out) + "\n"

    # ------------------------------------------------------------------ ids

    def _new_node(self) -> str:
        self._nodes += 1
        return f"n{self._nodes - 1}"

    def _new_cluster(self, hint: str) -> str:
        # Dotted fqn-like names (module functions) keep a readable id.
        hint = hint.replace(".", "_")
        base = f"cluster_{hint}" if _ID.fullmatch(hint) else f"cluster_{self._clusters}"
        self._clusters += 1
        cluster_id, suffix = base, 1
        while cluster_id in self._cluster_ids:
            cluster_id, suffix = f"{base}_{suffix}", suffix + 1
        self._cluster_ids.add(cluster_id)
        return cluster_id

    # ------------------------------------------------------------- drawing

    def _draw_symbol_table(self, block: Block, parent: Cluster) -> None:
        """Draw a module's block: entry functions here, module functions
        inside the cluster of the call that hosts them."""
        tree = ModuleTree.of(block)
        for mapping in ("callee", "caller", "host", "names", "paths"):
            getattr(self._tree, mapping).update(getattr(tree, mapping))
        self._draw_block_ops(block, parent, ())

    def _call_edges(self) -> list[str]:
        """Dashed edges from module call nodes to their callee's cluster."""
        edges: list[str] = []
        for call, node in self._call_nodes:
            callee = self._tree.callee[call]
            if callee not in self._entries or self._tree.encloses(callee, call):
                continue
            head, cluster = self._entries[callee]
            attrs = f"lhead={cluster}, {_CALL_EDGE}"
            if self._tree.host.get(callee) is not call:
                attrs += ", constraint=false"
            edges.append(f"{node} -> {head} [{attrs}];")
        return edges

    def _draw_block_ops(
        self, block: Block, parent: Cluster, outer_scope: Sequence[tuple[str, int]]
    ) -> None:
        """Draw the ops of `block` into `parent`, grouping them by scope."""
        scope_clusters: dict[tuple[tuple[str, int], ...], Cluster] = {}
        for op in block.ops:
            if isinstance(op, func.FuncOp) and op in self._tree.host:
                continue  # drawn at the call that hosts it
            target = self._scope_cluster(op, parent, outer_scope, scope_clusters)
            self.draw(op, target)

    def _scope_cluster(
        self,
        op: Operation,
        parent: Cluster,
        outer_scope: Sequence[tuple[str, int]],
        clusters: dict[tuple[tuple[str, int], ...], Cluster],
    ) -> Cluster:
        """The (possibly new) nested cluster for the op's module call stack."""
        scope = op.attributes.get(SCOPE)
        if not isinstance(scope, ScopeAttr):
            return parent
        frames = list(scope.data)
        keys = [(fqn, index) for fqn, index, _ in frames]
        # Frames already drawn by an enclosing cluster are not repeated.
        if keys[: len(outer_scope)] == list(outer_scope):
            frames, keys = frames[len(outer_scope) :], keys[len(outer_scope) :]
        cluster = parent
        for depth, (fqn, index, type_name) in enumerate(frames):
            path = tuple(keys[: depth + 1])
            if path not in clusters:
                label = f"{fqn} ({type_name})" if fqn else type_name
                if index:
                    label += f" #{index}"
                clusters[path] = Cluster(self._new_cluster(""), label, _SCOPE)
                cluster.items.append(clusters[path])
            cluster = clusters[path]
        return cluster

    def _node(self, cluster: Cluster, label: str, attrs: str = "") -> str:
        node = self._new_node()
        extra = f", {attrs}" if attrs else ""
        cluster.items.append(f"{node} [label={quote(label)}{extra}];")
        return node

    def _connect(self, op: Operation, node: str) -> None:
        """Edges from the producers of the op's operands to `node`."""
        for operand in op.operands:
            source = self._sources.get(operand)
            if source is None:
                continue
            label = ""
            if self.edge_labels:
                text = short_type(operand.type)
                if source.index is not None:
                    text = f"#{source.index} {text}"
                label = f" [label={quote(text)}]"
            self._edges.append(f"{source.node} -> {node}{label};")

    def _define(self, op: Operation, node: str) -> None:
        multi = len(op.results) > 1
        for result in op.results:
            self._sources[result] = _Source(node, result.index if multi else None)

    @singledispatchmethod
    def draw(self, op: Operation, cluster: Cluster) -> None:
        """Draw `op` (and what it contains) into `cluster`."""
        types = ", ".join(short_type(r.type) for r in op.results)
        node = self._node(cluster, f"{op.name}\n{types}" if types else op.name)
        self._connect(op, node)
        self._define(op, node)
        # Ops with regions we know nothing about: their bodies in a cluster.
        for region in op.regions:
            for block in region.blocks:
                inner = Cluster(self._new_cluster(""), op.name, _SCOPE)
                cluster.items.append(inner)
                for arg in block.args:
                    self._sources[arg] = _Source(self._node(inner, _arg_label(arg)))
                self._draw_block_ops(block, inner, ())

    @draw.register
    def _(self, op: ModuleOp, cluster: Cluster) -> None:
        name = f"module @{op.sym_name.data}" if op.sym_name else "module"
        inner = Cluster(self._new_cluster(""), name, _FUNC)
        cluster.items.append(inner)
        self._draw_symbol_table(op.body.block, inner)

    @draw.register
    def _(self, op: func.FuncOp, cluster: Cluster) -> None:
        name = op.sym_name.data
        host = self._tree.host.get(op)
        if host is None:
            inner = Cluster(self._new_cluster(name), f"@{name}", _FUNC)
        else:
            frame = module_frame(host)
            label = self._tree.label(op, frame[2] if frame else "")
            inner = Cluster(self._new_cluster(name), label, _MODULE)
        cluster.items.append(inner)
        first_node = self._nodes
        if not op.body.blocks:
            self._node(inner, f"@{name}\n(declaration)", _INPUT)
        else:
            entry, *others = op.body.blocks
            for i, arg in enumerate(entry.args):
                param = arg_attr(op, i, PARAM)
                label = _arg_label(arg)
                if param is not None:
                    label = f"{label}\n{param}"
                kind = _PARAM if param is not None else _INPUT
                self._sources[arg] = _Source(self._node(inner, label, kind))
            self._draw_block_ops(entry, inner, ())
            # control flow: later blocks' arguments are inputs of their own,
            # their ops are drawn after the entry block's (branches as nodes)
            for block in others:
                for arg in block.args:
                    self._sources[arg] = _Source(self._node(inner, _arg_label(arg)))
                self._draw_block_ops(block, inner, ())
        if self._nodes > first_node:
            self._entries[op] = (f"n{first_node}", inner.id)

    @draw.register
    def _(self, op: func.ReturnOp, cluster: Cluster) -> None:
        node = self._node(cluster, "return", _OUTPUT)
        self._connect(op, node)

    @draw.register
    def _(self, op: func.CallOp, cluster: Cluster) -> None:
        types = ", ".join(short_type(r.type) for r in op.results)
        label = f"call @{op.callee.string_value()}\n{types}"
        if (frame := module_frame(op)) is not None:
            label = f"{_call_name('', frame)} ({frame[2]})\n{label}"
        node = self._node(cluster, label, _CALL)
        self._connect(op, node)
        self._define(op, node)
        callee = self._tree.callee.get(op)
        if callee is None:
            return
        self._call_nodes.append((op, node))
        # A module function is drawn next to the call that hosts it.
        if self._tree.host.get(callee) is op:
            self.draw(callee, cluster)

    @draw.register
    def _(self, op: FusionGroupOp, cluster: Cluster) -> None:
        inner = Cluster(self._new_cluster(""), "graph.fusion_group", _FUSION)
        cluster.items.append(inner)
        # Block arguments are the group's operands: their users get edges from
        # the operands' producers directly.
        for arg, operand in zip(op.body.block.args, op.inputs):
            if (source := self._sources.get(operand)) is not None:
                self._sources[arg] = source
        scope = op.attributes.get(SCOPE)
        frames = scope.data if isinstance(scope, ScopeAttr) else ()
        outer = [(fqn, index) for fqn, index, _ in frames]
        self._draw_block_ops(op.body.block, inner, outer)
        terminator = op.body.block.last_op
        if isinstance(terminator, YieldOp):
            for result, value in zip(op.outputs, terminator.values):
                if (source := self._sources.get(value)) is not None:
                    self._sources[result] = source

    @draw.register
    def _(self, op: YieldOp, cluster: Cluster) -> None:
        # The group's results are wired to the yielded values (see above).
        pass


def _arg_label(arg: SSAValue) -> str:
    name = arg.name_hint or f"arg{getattr(arg, 'index', 0)}"
    return f"%{name}\n{short_type(arg.type)}"


@dataclass(frozen=True)
class DotTarget(Target):
    """Graphviz DOT of every function; `edge-labels=false` drops edge types."""

    name = "dot"

    edge_labels: bool = True

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(DotPrinter(edge_labels=self.edge_labels).render(module))
