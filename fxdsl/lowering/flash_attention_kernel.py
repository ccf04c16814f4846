"""Lowering a bf16/f16 `graph.attention` group to the tensor-core
flash-attention kernel (its CUDA C and the algorithm: `flash_attention_cuda`).

Chosen by `flash_attention_op` for a group that is one attention op and
nothing else, q, k and v bf16 or f16, head dims d = dv = 64 or 128; every
other attention group keeps the scalar kernel of `attention_kernel`. The
kernel is named `<function>_<n>_flash_attention`.

The `gpu.func` keeps the scalar kernel's IR as its body, built for this
kernel's block size (correct under any grid: grid-stride), which is what
the IR emulator and upstream MLIR see, and carries `FLASH_ATTR`; the CUDA
printer prints the tensor-core kernel instead of that body, so cuda-sim,
`nvcc -ptx` and NVRTC all run the tensor-core code.

Inside torch the same attention could run torch's own SDPA instead; which
is the default awaits a GPU measurement (issue 31 item 4).
"""

from __future__ import annotations

from math import prod

from xdsl.dialects.builtin import (
    BFloat16Type,
    DictionaryAttr,
    Float16Type,
    FloatAttr,
    MemRefType,
    UnitAttr,
    f64,
)
from xdsl.ir import Attribute, BlockArgument

from fxdsl.dialects import graph
from fxdsl.dialects.graph import dtype_of, shape_of
from fxdsl.lowering.attention_kernel import build_attention
from fxdsl.lowering.flash_attention_cuda import BLOCK_M, FLASH_ATTR, HEAD_DIMS, THREADS
from fxdsl.lowering.kernel_builder import MAX_GRID, KernelBuilder


def flash_attention_op(group: graph.FusionGroupOp) -> graph.AttentionOp | None:
    """The group's attention op when the tensor-core kernel computes the
    group: the body is that op alone, on the group's inputs, yielded as the
    only output; q, k and v bf16 or f16; d = dv in `HEAD_DIMS`."""
    ops = [op for op in group.body.block.ops if not isinstance(op, graph.YieldOp)]
    if len(ops) != 1 or not isinstance(ops[0], graph.AttentionOp):
        return None
    op = ops[0]
    if list(group.yield_op.values) != [op.result]:
        return None
    if not all(isinstance(v, BlockArgument) for v in op.operands):
        return None
    if not isinstance(dtype_of(op.query), BFloat16Type | Float16Type):
        return None
    head, dv = shape_of(op.query)[-1], shape_of(op.value)[-1]
    if head != dv or head not in HEAD_DIMS or len(shape_of(op.query)) < 2:
        return None
    return op


def launch_config(query: MemRefType[Attribute]) -> tuple[int, int]:
    """(grid, block) of the kernel for a query buffer (..., T, d)."""
    shape = query.get_shape()
    tiles = prod(shape[:-2]) * -(-shape[-2] // BLOCK_M)
    return min(max(1, tiles), MAX_GRID), THREADS


def build_flash_attention(builder: KernelBuilder, op: graph.AttentionOp) -> None:
    """The group's kernel: the scalar kernel's body at `THREADS` threads a
    block (what the IR emulator runs), marked `FLASH_ATTR` for the printer,
    launched as the tensor-core kernel."""
    build_attention(builder, op, block=THREADS)
    params: dict[str, Attribute] = {"scale": FloatAttr(op.scale_value, f64)}
    if op.is_causal:
        params["causal"] = UnitAttr()
    builder.func.attributes[FLASH_ATTR] = DictionaryAttr(params)
    query = builder.entry.args[0].type
    assert isinstance(query, MemRefType)
    builder.launch = launch_config(query)  # type: ignore[arg-type]
