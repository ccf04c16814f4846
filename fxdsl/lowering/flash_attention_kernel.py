"""Lowering a bf16/f16 `graph.attention` group to the tensor-core
flash-attention kernel (its CUDA C and the algorithm: `flash_attention_cuda`).

Chosen by `flash_attention_op` for a group that is one attention op, q, k
and v bf16 or f16, head dims d = dv = 64 or 128, with at most a bias add
on the query before it and one on its result after it (GPT-2's folded q
and v biases); every other attention group keeps the scalar kernel of
`attention_kernel`. The kernel is named `<function>_<n>_flash_attention`.
GQA (k and v with fewer heads) is the kernel's, not yet the op's:
`graph.attention` wants equal batch dims, so the importer repeats k and v
heads (a copy) before the attention.

The `gpu.func` keeps the scalar kernel's IR as its body, built for this
kernel's block size (correct under any grid: grid-stride), which is what
the IR emulator and upstream MLIR see, and carries `FLASH_ATTR`; the CUDA
printer prints the tensor-core kernel instead of that body, so cuda-sim,
`nvcc -ptx` and NVRTC all run the tensor-core code.

Inside torch the same attention could run torch's own SDPA instead; which
is the default awaits a GPU measurement.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from xdsl.dialects.builtin import (
    BFloat16Type,
    DictionaryAttr,
    Float16Type,
    FloatAttr,
    IntegerAttr,
    MemRefType,
    UnitAttr,
    f64,
    i64,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue

from fxdsl.ir import graph
from fxdsl.ir.graph import dtype_of, shape_of
from fxdsl.lowering.attention_kernel import build_attention
from fxdsl.lowering.flash_attention_cuda import BLOCK_M, FLASH_ATTR, HEAD_DIMS, THREADS
from fxdsl.lowering.kernel_builder import MAX_GRID, KernelBuilder


@dataclass(frozen=True)
class FlashAttention:
    """A group the tensor-core kernel computes: its attention op and the
    kernel argument of each role (`flash_attention_cuda.flash_source`)."""

    op: graph.AttentionOp
    roles: dict[str, int]


def _bias_add(op: Operation, value: SSAValue) -> BlockArgument | None:
    """The group input that `op`, a `graph.add` of `value` and that input
    (in either order, of `value`'s shape), adds to `value`; else None."""
    if not isinstance(op, graph.AddOp) or shape_of(op.result) != shape_of(value):
        return None
    others = [o for o in op.operands if o is not value]
    if len(others) != 1 or not isinstance(others[0], BlockArgument):
        return None
    return others[0]


def flash_attention_op(group: graph.FusionGroupOp) -> FlashAttention | None:
    """The tensor-core kernel's view of `group`, when it computes it: one
    attention of bf16 or f16 q, k, v with d = dv in `HEAD_DIMS` on group
    inputs, possibly after one bias add on the query (a prologue: q +
    q_bias) and before one on the result (an epilogue, yielded as the only
    output; the folded q and v biases of `attention_bias`)."""
    block = group.body.block
    ops = [op for op in block.ops if not isinstance(op, graph.YieldOp)]
    attentions = [op for op in ops if isinstance(op, graph.AttentionOp)]
    if len(attentions) != 1 or len(ops) > 3:
        return None
    (op,) = attentions
    if not isinstance(dtype_of(op.query), BFloat16Type | Float16Type):
        return None
    head, dv = shape_of(op.query)[-1], shape_of(op.value)[-1]
    if head != dv or head not in HEAD_DIMS or len(shape_of(op.query)) < 2:
        return None
    inputs = list(block.args)
    roles: dict[str, int] = {}
    prologue = [o for o in ops if o is not op and o.results[0] is op.query]
    if prologue:  # q + q_bias, both group inputs broadcast to the query
        add = prologue[0]
        if not isinstance(add, graph.AddOp) or len(list(op.query.uses)) != 1:
            return None
        first, bias = add.operands
        if not (isinstance(first, BlockArgument) and isinstance(bias, BlockArgument)):
            return None
        roles |= {"q": inputs.index(first), "q_bias": inputs.index(bias)}
    elif isinstance(op.query, BlockArgument):
        roles["q"] = inputs.index(op.query)
    else:
        return None
    result = op.result
    epilogue = [o for o in ops if o is not op and o not in prologue]
    if epilogue:
        bias = _bias_add(epilogue[0], op.result)
        if bias is None or len(list(op.result.uses)) != 1:
            return None
        roles["out_bias"] = inputs.index(bias)
        result = epilogue[0].results[0]
    if list(group.yield_op.values) != [result]:
        return None
    for role in ("key", "value", "mask"):
        operand = getattr(op, role)
        if operand is None:
            continue
        if not isinstance(operand, BlockArgument):
            return None
        roles[role[0] if role != "mask" else role] = inputs.index(operand)
    roles["out"] = len(inputs)
    return FlashAttention(op, roles)


def launch_config(out: MemRefType[Attribute]) -> tuple[int, int]:
    """(grid, block) of the kernel for an output (or query) of (..., T, d)."""
    shape = out.get_shape()
    tiles = prod(shape[:-2]) * -(-shape[-2] // BLOCK_M)
    return min(max(1, tiles), MAX_GRID), THREADS


def build_flash_attention(
    builder: KernelBuilder, flash: FlashAttention, pipelined: bool = True
) -> None:
    """The group's kernel: the scalar kernel's body at `THREADS` threads a
    block (what the IR emulator runs), marked `FLASH_ATTR` (scale, causal,
    roles, pipelined: see `flash_attention_cuda.flash_source`) for the
    printer, launched as the tensor-core kernel."""
    op = flash.op
    build_attention(builder, op, block=THREADS)
    roles = {role: IntegerAttr(i, i64) for role, i in flash.roles.items()}
    params: dict[str, Attribute] = {
        "scale": FloatAttr(op.scale_value, f64), "roles": DictionaryAttr(roles),
    }  # fmt: skip
    if op.is_causal:
        params["causal"] = UnitAttr()
    if pipelined:
        params["pipelined"] = UnitAttr()
    builder.func.attributes[FLASH_ATTR] = DictionaryAttr(params)
    out = builder.entry.args[flash.roles["out"]].type
    assert isinstance(out, MemRefType)
    builder.launch = launch_config(out)  # type: ignore[arg-type]
