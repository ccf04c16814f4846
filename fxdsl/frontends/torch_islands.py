"""Which parts of an ATen graph fxdsl compiles, and which stay in torch.

The whole graph is imported into the graph dialect (`from_graph_module` in
fallback mode): a node the importer cannot take (no mapping, a complex
value, an importer error; on the GPU, a node on a type kernels do not
compute in, `graph.KERNEL_TYPES`; a node that ends a recognised pattern is
imported again outside it; a node making or reading a size read from
values, `torch_nodes.data_dependent`), or one whose ATen overload the user listed in
`torch_executed_ops`, becomes a call of an external function
`@"aten.<op>.<overload>"` carrying `torch.node`. Our own
`CapabilityBasedPartitioner` then groups the graph ops into the largest
acyclic islands; an island of fewer than `min_block_size` fx nodes goes back
to torch (its nodes are imported again as external calls, until no small
island is left) unless it is the whole graph, and each island is outlined into
a function `@fused_<id>`. The result is one module that shows the whole
program: islands as calls of fxdsl functions, torch's part as calls of
external declarations (`-t dot` draws both, and the backend's `dump_ir` option
writes it).

Why the partition is made on the graph dialect and not on the fx graph:
whether a node imports depends on its arguments (dtypes, masks, shapes), which
only the import knows, and the partitioner that fxdsl users already have is
the one that should decide.

Random draws are graph ops like any other (`graph.random`, reading the
function's seed argument, which the runner fills per call), so they join
islands; they never fold.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, BoolAttr, DictionaryAttr
from xdsl.ir import Block, Operation
from xdsl.traits import ConstantLike

from fxdsl.frontends.aten_registry import target_name
from fxdsl.frontends.torch_export import (
    ImportedProgram,
    TorchImportError,
    from_graph_module,
)
from fxdsl.frontends.torch_nodes import _is_view, _source_line, draws_random
from fxdsl.ir import graph
from fxdsl.transforms.partitioner import CapabilityBasedPartitioner, Partition

NON_COMPUTE = tuple(op.name for op in graph.GRAPH_OPS if op.has_trait(ConstantLike))
"""Ops that never make an island on their own: the graph constants (the ops
with `ConstantLike`, as `graph.is_graph_constant` asks)."""


@dataclass
class Plan:
    """The partitioned program: `imported.module` holds `@forward` (calls of
    islands and of torch ops) and one `@fused_<id>` per island."""

    imported: ImportedProgram
    islands: dict[str, list[str]]
    """Island function name → the fx node names it computes."""
    fallbacks: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    """fx node name → (ATen overload, reason, source line) for torch's part."""
    total: int = 0
    """call_function nodes of the graph (getitem not counted)."""

    @property
    def compiled(self) -> int:
        """Nodes fxdsl runs (in islands, folded, or erased no-ops)."""
        return self.total - len(self.fallbacks)

    @property
    def supported(self) -> int:
        """Nodes fxdsl can express: compiled, or sent to torch by an option
        (`min_block_size`, `torch_executed_ops`) rather than for want of a
        mapping."""
        return self.compiled + sum(
            1 for _, r, _ in self.fallbacks.values() if chosen_by_option(r)
        )

    def report(self) -> str:
        """The dry-run report: coverage, islands, and what falls back where."""
        share = lambda n: f"{100.0 * n / self.total if self.total else 100.0:.2f} %"
        sizes = ", ".join(str(len(n)) for n in self.islands.values()) or "none"
        lines = [
            "fxdsl partition report",
            f"  {self.total} operators, {self.supported} supported "
            f"({share(self.supported)} coverage), {self.compiled} compiled "
            f"({share(self.compiled)})",
            f"  {len(self.islands)} fxdsl island(s), sizes in fx nodes: {sizes}",
            f"  {len(self.fallbacks)} operator(s) run in torch:",
        ]
        for node, (target, reason, source) in self.fallbacks.items():
            where = source.strip().replace("\n", " ") or "(no source line)"
            lines.append(f"    %{node} {target}: {reason}")
            lines.append(f"      {where}")
        return "\n".join(lines) + "\n"


def torch_only_report(module: Any, reason: str) -> str:
    """The dry-run report of a graph that runs in torch whole, and why."""
    total = sum(1 for n in module.graph.nodes if _is_operator(n))
    return (
        "fxdsl partition report\n"
        f"  the whole graph runs in torch: {reason}\n"
        f"  {total} operators, 0 compiled (0.00 %)\n"
    )


MIN_BLOCK_REASON = "below min_block_size"
EXECUTED_OPS_REASON = "listed in torch_executed_ops"
RANDOM_REASON = "draws random numbers, left to torch by fallback_random"


def chosen_by_option(reason: str) -> bool:
    """Whether an option, not a missing mapping, sent a node to torch."""
    return any(
        why in reason for why in (MIN_BLOCK_REASON, EXECUTED_OPS_REASON, RANDOM_REASON)
    )


def plan(
    module: Any,
    min_block_size: int = 5,
    torch_executed_ops: frozenset[str] = frozenset(),
    kernel_types_only: bool = False,
    fallback_random: bool = False,
) -> Plan:
    """Import, partition and outline the ATen GraphModule `module`; a
    TorchImportError for a graph the importer cannot take at all.
    `kernel_types_only` (islands that run as GPU kernels) leaves to torch
    the nodes whose graph ops hold a type kernels do not compute in (f64,
    i16, i8, ui8): the reference interpreter takes them, the GPU lowering
    does not. `fallback_random` leaves to torch every node that draws
    random numbers (torch's generator draws them, as in eager)."""
    nodes = {n.name: n for n in module.graph.nodes}
    forced: dict[str, str] = {}
    if fallback_random:
        forced = {
            n.name: RANDOM_REASON
            for n in module.graph.nodes
            if n.op == "call_function" and draws_random(n)
        }
    while True:
        try:
            imported = from_graph_module(
                module, fallback=torch_executed_ops, forced=forced
            )
        except TorchImportError as error:
            # One node at fault (in a recognised pattern, whose inner nodes
            # were not imported): leave it to torch and import again.
            if error.node is None or error.node in forced:
                raise
            forced[error.node] = str(error).splitlines()[0]
            continue
        beyond = _beyond_kernel_types(imported) if kernel_types_only else {}
        beyond.update(_storage_views(imported, nodes))
        if beyond.keys() - forced.keys():
            forced.update(beyond)
            continue
        partitions, groups = _groups(imported)
        small = [names for names in groups if len(names) < min_block_size]
        # min_block_size spares a few ops between torch's own a crossing into
        # fxdsl; a graph fxdsl takes whole crosses nowhere (a graph break
        # leaves such small graphs: Bart's f16 overflow check makes four)
        whole = len(groups) == 1 and not _externals(imported)
        if not small or whole:
            break
        for names in small:
            reason = (
                f"in an island of {len(names)} node(s), {MIN_BLOCK_REASON}="
                f"{min_block_size}"
            )
            forced.update(dict.fromkeys(names, reason))
    return _outline(imported, partitions, groups, nodes)


STORAGE_RELATIVE = frozenset({"aten.as_strided.default"})
"""Ops that read their input's storage, not its elements: in torch they
need the input as torch lays it out, not an island's dense copy."""

STORAGE_REASON = "a view that a storage-relative op left to torch reads through"


def _storage_views(imported: ImportedProgram, nodes: dict[str, Any]) -> dict[str, str]:
    """fx node name -> why, for the view nodes between a storage-relative
    node left to torch (`as_strided` of a non-dense view) and the tensor
    they view: run in torch too, they hand it a view of torch's own storage
    (a graph input's, or a fresh tensor's), as in eager."""
    chains: dict[str, str] = {}
    for op in imported.module.walk():
        if not (isinstance(op, func.CallOp) and "torch.node" in op.attributes):
            continue
        node = nodes[op.attributes["torch.node"].data]  # type: ignore[union-attr]
        if target_name(node.target) not in STORAGE_RELATIVE:
            continue
        source = node.args[0]
        while getattr(source, "op", None) == "call_function" and _is_view(source):
            chains[source.name] = STORAGE_REASON
            source = source.args[0]
    return chains


def _beyond_kernel_types(imported: ImportedProgram) -> dict[str, str]:
    """fx node name -> why, for each node imported as a graph op with a
    tensor of a type outside `graph.KERNEL_TYPES`."""
    beyond: dict[str, str] = {}
    for op, node in imported.origins.items():
        if not isinstance(op, graph.GraphOp) or node in beyond:
            continue
        for value in (*op.operands, *op.results):
            element = getattr(value.type, "element_type", None)
            if element is not None and element not in graph.KERNEL_TYPES:
                beyond[node] = (
                    f"element type {element}: fxdsl's GPU kernels do not compute in it"
                )
                break
    return beyond


def _groups(imported: ImportedProgram) -> tuple[list[Partition], list[list[str]]]:
    """The partitioner's groups, and each as fx node names (ordered)."""
    externals = _externals(imported)

    def supported(op: Operation) -> bool:
        call = isinstance(op, func.CallOp)
        return not (call and op.callee.string_value() in externals)

    partitioner = CapabilityBasedPartitioner(
        imported.module,
        supported,
        allows_single_node_partition=True,
        non_compute_ops=NON_COMPUTE,
    )
    partitions = partitioner.propose_partitions()
    if not externals and len(partitions) > 1:
        partitions = [_merged(partitions)]
    partitions = _join_argument_views(partitions)
    origins = imported.origins
    groups = [
        list(dict.fromkeys(origins[op] for op in p.ops if op in origins))
        for p in partitions
    ]
    return partitions, groups


def _merged(partitions: list[Partition]) -> Partition:
    """One partition of all of `partitions`: when fxdsl takes every node,
    the partitioner's groups are only unconnected parts (the four `expand`s
    of `broadcast_tensors`); together they are the whole graph, one island
    (nothing outside it can make a cycle), not islands each under
    `min_block_size`."""
    ops = [op for p in partitions for op in p.ops]
    order = {op: i for i, op in enumerate(partitions[0].block.ops)}
    return Partition(partitions[0].id, sorted(ops, key=order.__getitem__))


ARGUMENT_VIEWS = (
    "graph.transpose",
    "graph.reshape",
    "graph.broadcast_to",
    "graph.slice",
)
"""Ops that, on the function's arguments alone, are weight-only work (the
`t`/`permute` of a Linear weight that AOTAutograd saves for the backward)."""


def _join_argument_views(partitions: list[Partition]) -> list[Partition]:
    """Partitions that only view the function's arguments (or compute from
    them for the return alone, `_views_arguments`), joined to another
    partition: alone they would be a 1-node island under `min_block_size`,
    taking the graph's other island with them, which then is no longer the
    whole graph. Such a partition depends on nothing else, so joining it
    cannot make a cycle as long as what reads its results is the partition
    it joins or the return; it joins the one reading the same argument, or
    else the largest."""
    views = [p for p in partitions if _views_arguments(p)]
    others = [p for p in partitions if p not in views]
    if not others and len(views) > 1:
        # all computed from the arguments alone: the largest takes the rest
        others = [max(views, key=len)]
        views.remove(others[0])
    if not others:
        return partitions
    for view in views:
        inside = set(view.ops)
        readers = {
            use.operation
            for op in view.ops
            for result in op.results
            for use in result.uses
            if use.operation not in inside
        }
        arguments = {v for op in view.ops for v in op.operands if v.owner not in inside}
        candidates = [
            p
            for p in others
            if all(r in p.ops or isinstance(r, func.ReturnOp) for r in readers)
        ]
        if not candidates:
            others.append(view)
            continue
        target = max(
            candidates,
            key=lambda p: (
                any(v in arguments for o in p.ops for v in o.operands),
                len(p),
            ),
        )
        block = target.block
        order = {op: i for i, op in enumerate(block.ops)}
        target.ops = sorted([*target.ops, *view.ops], key=order.__getitem__)
    return sorted(others, key=lambda p: p.id)


def _views_arguments(partition: Partition) -> bool:
    """Whether `partition` reads only block arguments (and its own results),
    and either every op of it is an `ARGUMENT_VIEWS` op or only the return
    reads it: a value computed from the arguments for the caller alone (a
    static KV cache's `cumulative_length + 1`), which may join any island."""
    inside = set(partition.ops)
    if not all(
        isinstance(v.owner, Block) or v.owner in inside
        for op in partition.ops
        for v in op.operands
    ):
        return False
    if all(op.name in ARGUMENT_VIEWS for op in partition.ops):
        return True
    return all(
        use.operation in inside or isinstance(use.operation, func.ReturnOp)
        for op in partition.ops
        for result in op.results
        for use in result.uses
    )


def _externals(imported: ImportedProgram) -> set[str]:
    """The external functions (torch's nodes) the imported module calls."""
    return {
        op.sym_name.data
        for op in imported.module.body.block.ops
        if isinstance(op, func.FuncOp) and op.is_declaration
    }


def _outline(
    imported: ImportedProgram,
    partitions: list[Partition],
    groups: list[list[str]],
    nodes: dict[str, Any],
) -> Plan:
    CapabilityBasedPartitioner(imported.module, lambda op: True).fuse_partitions(
        partitions
    )
    islands = {f"fused_{p.id}": names for p, names in zip(partitions, groups)}
    plan = Plan(imported, islands)
    plan.total = sum(1 for n in nodes.values() if _is_operator(n))
    for op in imported.module.walk():
        if isinstance(op, func.CallOp) and "torch.node" in op.attributes:
            name = op.attributes["torch.node"].data
            reason = op.attributes["torch.reason"].data
            node = nodes[name]
            plan.fallbacks[name] = (str(node.target), reason, _source_line(node))
    return plan


WRITABLE = "bufferization.writable"
"""The argument attribute `graph-bufferize` reads: the caller donates the
argument's buffer (upstream one-shot bufferize's name)."""


def donate(partitioned: Plan, mutated: Iterable[str]) -> list[str]:
    """Mark `bufferization.writable` the island arguments that carry an
    input AOTAutograd overwrites with a graph output (`mutated`: placeholder
    names; a static KV cache, `cumulative_length`): the old value is dead
    once the graph returns, so when one island alone reads it, that island
    may write into its buffer (`graph-bufferize` then updates a cache in
    place). Returns the island arguments marked, as `fused_<id>:<position>`."""
    names = set(mutated)
    module = partitioned.imported.module
    functions = {
        op.sym_name.data: op
        for op in module.body.block.ops
        if isinstance(op, func.FuncOp)
    }
    forward = functions["forward"]
    marked: list[str] = []
    for arg, name in zip(forward.args, partitioned.imported.input_names):
        uses = list(arg.uses)
        if name not in names or len(uses) != 1:
            continue
        call = uses[0].operation
        if not isinstance(call, func.CallOp) or "torch.node" in call.attributes:
            continue
        island = functions[call.callee.string_value()]
        attrs = (
            [dict(a.data) for a in island.arg_attrs.data]
            if island.arg_attrs is not None
            else [{} for _ in island.args]
        )
        attrs[uses[0].index][WRITABLE] = BoolAttr.from_bool(True)
        island.arg_attrs = ArrayAttr([DictionaryAttr(a) for a in attrs])
        marked.append(f"{island.sym_name.data}:{uses[0].index}")
    return marked


def _is_operator(node: Any) -> bool:
    getitem = "<built-in function getitem>"
    return node.op == "call_function" and str(node.target) != getitem


__all__ = [
    "EXECUTED_OPS_REASON",
    "Plan",
    "chosen_by_option",
    "donate",
    "plan",
    "torch_only_report",
]
