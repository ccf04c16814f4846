"""`convert-groups-to-gpu`: each bufferized `graph.fusion_group` becomes a
`gpu.func` kernel in one `gpu.module @kernels`, launched from the host with
`gpu.launch_func` (run after `graph-bufferize`).

The group's `bufferization.to_tensor` (or, for strided views,
`builtin.unrealized_conversion_cast`) inputs and `materialize_in_destination`
outputs give the kernel's buffer arguments (inputs first, then outputs, in
group order). Kernels are named `<function>_<n>_<op>`: the host function, the
group's position in it and its main op (the attention of an attention
kernel, `flash_attention` for the tensor-core one, the first reduction of
a row kernel, else the op producing the first output), so names are
deterministic. A kernel
identical to an earlier one is emitted once and launched under the first
name (the 12 blocks of a GPT-2 stack share their kernels). A group whose
structure and buffer types equal an earlier group's (`group_key`) is not
even built again: building and printing kernels is most of the lowering's
time. The top-level module gets `gpu.container_module`, as upstream requires.

Launch configuration: pointwise kernels 256 threads per block, enough blocks
to cover the domain (at most 65535, grid-stride beyond); row kernels one
block per row (at most 65535, grid-stride beyond) of 32-256 threads, a
multiple of 32 (the CUDA block reduction relies on whole warps).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, bufferization, func, gpu
from xdsl.dialects.builtin import (
    IndexType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    UnrealizedConversionCastOp,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from fxdsl.ir import graph
from fxdsl.ir.utils import block_key, single_block_bodies
from fxdsl.lowering.attention_kernel import attention_op, build_attention
from fxdsl.lowering.flash_attention_kernel import (
    build_flash_attention,
    flash_attention_op,
)
from fxdsl.lowering.kernel_builder import KernelBuilder
from fxdsl.lowering.scatter_kernel import build_scatter, scatter_op
from fxdsl.transforms.fusibility import reduction_space, serial_reduction
from fxdsl.transforms.options import check_bool

KERNEL_MODULE = "kernels"


def _input_buffer(value: SSAValue) -> SSAValue:
    owner = value.owner
    if isinstance(owner, UnrealizedConversionCastOp):
        return owner.inputs[0]
    if not isinstance(owner, bufferization.ToTensorOp):
        raise PassFailedException(
            "convert-groups-to-gpu: group input is not a bufferized buffer; "
            "run graph-bufferize first"
        )
    return owner.memref


def _output_buffer(value: SSAValue) -> SSAValue:
    users = [u.operation for u in value.uses]
    bridge = users[0] if len(users) == 1 else None
    if isinstance(bridge, UnrealizedConversionCastOp) and not bridge.results:
        return bridge.operands[1]  # a strided destination (graph-bufferize)
    if len(users) != 1 or not isinstance(
        users[0], bufferization.MaterializeInDestinationOp
    ):
        raise PassFailedException(
            "convert-groups-to-gpu: group output is not materialized in a buffer; "
            "run graph-bufferize first"
        )
    return users[0].dest


def kernel_name(function: str, position: int, group: graph.FusionGroupOp) -> str:
    """`<function>_<position>_<main op>` (see the module docstring)."""
    ops = list(group.body.block.ops)
    anchors = [
        op
        for op in ops
        if isinstance(op, graph.AttentionOp | graph.ReductionLike)
        and not serial_reduction(op)
    ]
    outputs = [v.owner for v in group.yield_op.values]
    main = anchors[0] if anchors else (outputs[0] if outputs else None)
    # a group that yields one of its inputs unchanged is a copy
    suffix = main.name.split(".")[-1] if isinstance(main, Operation) else "copy"
    if flash_attention_op(group) is not None:
        suffix = "flash_attention"
    return f"{function}_{position}_{suffix}"


def build_kernel(
    name: str,
    group: graph.FusionGroupOp,
    buffers: list[SSAValue],
    globals_out: list[Operation],
    flash_pipeline: bool = True,
) -> KernelBuilder:
    """The kernel computing `group` (pointwise or row, see kernel_builder;
    an attention group is its own kernel shape, see attention_kernel, and
    a bf16/f16 one of head dim 64 or 128 runs on tensor cores, see
    flash_attention_kernel; an index_copy written in place is a scatter,
    see scatter_kernel)."""
    builder = KernelBuilder(name, group, [b.type for b in buffers], globals_out)
    flash = flash_attention_op(group)
    attention = attention_op(group)
    if flash is not None:
        build_flash_attention(builder, flash, flash_pipeline)
        builder.finish()
        return builder
    if attention is not None:
        build_attention(builder, attention)
        builder.finish()
        return builder
    scatter = scatter_op(group, buffers)
    if scatter is not None:
        build_scatter(builder, scatter)
        builder.finish()
        return builder
    # serial reductions are computed per element in either kernel shape
    spaces = {
        reduction_space(op)
        for op in group.body.block.ops
        if isinstance(op, graph.ReductionLike) and not serial_reduction(op)
    }
    if len(spaces) == 1 and None not in spaces:
        ((outer, inner),) = spaces  # type: ignore[misc]
        builder.build_row(outer, inner)
    else:
        # elementwise, or reductions that do not share one trailing row space
        # (column reductions): one thread per output element, serial reductions
        builder.build_pointwise()
    builder.finish()
    return builder


def _launch(
    name: str, config: tuple[int, int], buffers: list[SSAValue]
) -> list[Operation]:
    grid, block = config
    consts = [
        arith.ConstantOp.from_int_and_width(n, IndexType()) for n in (grid, block, 1)
    ]
    g, b, one = (c.result for c in consts)
    launch = gpu.LaunchFuncOp(
        SymbolRefAttr(KERNEL_MODULE, [name]), [g, one, one], [b, one, one],
        kernelOperands=buffers,
    )  # fmt: skip
    return [*consts, launch]


def group_key(group: graph.FusionGroupOp, buffers: list[SSAValue]) -> Hashable:
    """Everything `build_kernel` reads, as a hashable value: the structure of
    the group's body (`ir_utils.block_key`: discardable attributes such as
    `scope` are metadata the kernel builder never reads), the buffer types
    (layouts included) and which buffers are the same one. Equal keys build
    the same kernel up to its name; a group without a key gets a unique one
    (built on its own)."""
    body = block_key(group.body.block)
    if body is None:
        return object()
    # which buffers are one (an index_copy written in place is a scatter)
    aliases = tuple(next(i for i, c in enumerate(buffers) if c is b) for b in buffers)
    return (body, tuple(b.type for b in buffers), aliases)


def _body_key(name: str, ops: list[Operation]) -> str:
    """The text of a kernel (and its constant globals) without its name."""
    return "\n".join(str(op) for op in ops).replace(name, "<kernel>")


class KernelTable:
    """The kernels of the `gpu.module`; a kernel identical to an earlier one
    (same body, constants, types: e.g. the same layer norm in 12 blocks) is
    not emitted again, its launches use the first one's name."""

    def __init__(self) -> None:
        self.ops: list[Operation] = []
        self.names: dict[str, str] = {}
        self.built: dict[Hashable, tuple[str, tuple[int, int]]] = {}
        """group_key -> (kernel name, launch config) of groups built so far"""

    def add(self, name: str, ops: list[Operation]) -> str:
        """Add kernel `name` (its globals, then the func); the name to launch."""
        key = _body_key(name, ops)
        if key in self.names:
            return self.names[key]
        self.names[key] = name
        self.ops.extend(ops)
        return name


def convert_function(
    function: func.FuncOp, kernels: KernelTable, flash_pipeline: bool = True
) -> None:
    """Replace every group of `function` by a kernel launch."""
    groups = [
        op for op in function.body.block.ops if isinstance(op, graph.FusionGroupOp)
    ]
    for position, group in enumerate(groups):
        inputs = [_input_buffer(v) for v in group.inputs]
        outputs = [_output_buffer(r) for r in group.outputs]
        key = group_key(group, inputs + outputs)
        if key not in kernels.built:
            name = kernel_name(function.sym_name.data, position, group)
            globals_out: list[Operation] = []
            builder = build_kernel(
                name, group, inputs + outputs, globals_out, flash_pipeline
            )
            launched = kernels.add(name, [*globals_out, builder.func])
            kernels.built[key] = (launched, builder.launch)
        launched, config = kernels.built[key]
        Rewriter.insert_op(
            _launch(launched, config, inputs + outputs), InsertPoint.before(group)
        )
        bridges = [group.inputs[i].owner for i in range(len(group.inputs))]
        for result in group.outputs:
            for use in list(result.uses):
                Rewriter.erase_op(use.operation)
        Rewriter.erase_op(group)
        for bridge in dict.fromkeys(bridges):
            if isinstance(bridge, Operation) and not bridge.results[0].uses:
                Rewriter.erase_op(bridge)


@dataclass(frozen=True)
class ConvertGroupsToGpuPass(ModulePass):
    """Fusion groups -> `gpu.func` kernels + `gpu.launch_func` (module docstring)."""

    name = "convert-groups-to-gpu"

    flash_pipeline: bool = True
    """The tensor-core attention kernel loads its k and v tiles with
    `cp.async` while it computes on the other, and its fragments with
    `ldmatrix`; false: the first version (plain loads), to time both."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_bool(self.name, "flash-pipeline", self.flash_pipeline)
        kernels = KernelTable()
        for function, _ in single_block_bodies(op, self.name):
            convert_function(function, kernels, self.flash_pipeline)
        if not kernels.ops:
            return
        body = Region(Block(kernels.ops))
        module = gpu.ModuleOp(StringAttr(KERNEL_MODULE), body)  # type: ignore[arg-type]
        op.body.block.add_op(module)
        op.attributes["gpu.container_module"] = UnitAttr()
