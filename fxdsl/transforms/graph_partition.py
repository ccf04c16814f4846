"""`graph-partition`: torch.fx's CapabilityBasedPartitioner as a pass.

fxdsl-opt in.mlir -p 'graph-partition{ops=add,mul,exp outline=group}'
fxdsl-opt in.mlir -p graph-partition        # every graph op is supported
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from fxdsl.transforms.operator_support import OpAllowList
from fxdsl.transforms.partitioner import CapabilityBasedPartitioner

OUTLINE_KINDS = ("func", "group")


def _op_names(ctx: Context, option: str, names: tuple[str, ...]) -> list[str]:
    """Full op names: a bare name (`add`) means the graph op (`graph.add`);
    `"dialect.*"` stands for every op of a dialect. Unknown names fail."""
    full = [name if "." in name else f"graph.{name}" for name in names]
    for name in full:
        dialect, _, op = name.partition(".")
        known = (
            dialect in ctx.registered_dialect_names
            if op == "*"
            else ctx.get_optional_op(name) is not None
        )
        if not known:
            raise PassFailedException(f"graph-partition: {option}: unknown op '{name}'")
    return full


@dataclass(frozen=True)
class GraphPartitionPass(ModulePass):
    """Outline the largest cycle-free groups of supported ops.

    Runs `CapabilityBasedPartitioner` (fxdsl/transforms/partitioner.py: the
    algorithm, its cost and the filtering rules) over every function with an
    `OpAllowList` support, then fuses each partition.

    Options (op names are graph op names like `add` or quoted full names like
    `"graph.add"`; `"graph.*"` allows the whole dialect; `-p` cannot spell an
    unquoted dot):

    * `ops`: the supported ops: op names like `add,mul` or `"graph.*"` for
      every graph op (the default).
    * `outline`: `func` (default) makes `func.func private @fused_<id>` and a
      `func.call`; `group` makes a `graph.fusion_group` in place.
    * `allow-single-node`: keep partitions with one compute op (default false).
    * `non-compute-ops`: ops that do not count as compute; a partition made
      only of them is dropped (e.g. `reshape,transpose`).
    * `single-node-ops`: ops allowed to form a single-node partition anyway.
    * `skip-horizontal-fusion`: keep groups that share no edge apart (torch's
      flag; default false: they are merged where no cycle forbids it).
    """

    name = "graph-partition"

    ops: tuple[str, ...] = ("graph.*",)
    outline: str = "func"
    allow_single_node: bool = False
    non_compute_ops: tuple[str, ...] = ()
    single_node_ops: tuple[str, ...] = ()
    skip_horizontal_fusion: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not self.ops:
            raise PassFailedException(
                "graph-partition: option ops is empty; name the supported ops, "
                'e.g. ops=add,mul or ops="graph.*"'
            )
        if self.outline not in OUTLINE_KINDS:
            raise PassFailedException(
                f"graph-partition: outline must be func or group, got '{self.outline}'"
            )
        partitioner = CapabilityBasedPartitioner(
            op,
            OpAllowList(_op_names(ctx, "ops", self.ops)),
            allows_single_node_partition=self.allow_single_node,
            non_compute_ops=_op_names(ctx, "non-compute-ops", self.non_compute_ops),
            allowed_single_node_partition_ops=_op_names(
                ctx, "single-node-ops", self.single_node_ops
            ),
            skip_horizontal_fusion=self.skip_horizontal_fusion,
        )
        partitioner.partition_and_fuse(self.outline)  # type: ignore[arg-type]
