"""The launch plan: a lowered host function turned, once, into plain data.

`build_launch_plan(module)` walks the host function that `convert-graph-to-gpu`
produced and records what a call must do, in order, without any IR left:

* `buffers`: one slot per argument, then one per `memref.alloc` (shape,
  numpy dtype); views (`memref.reinterpret_cast`) are not buffers, they are
  `BufferView`s (slot + static layout) over a slot.
* `steps`: `Launch` (kernel name, grid, block, the argument slots: kernels
  index their buffers through the layout compiled into them, so they get the
  base pointer of each slot) and `Gemm` (one strided-batched GEMM with the
  cuBLAS parameters already derived, see `Gemm.cublas`).
  A linear-algebra op bridged to buffers (`graph-bufferize`) is a `Solve`
  (the op's name and flags, its operand and result buffers): a host
  library step, cuSOLVER through CuPy.
* `outputs`: the views the function returns.
* `constants`: the slots that hold a constant (`memref.get_global` of a
  module `memref.global`, which `graph-bufferize` makes of a large
  `graph.constant`) and their values: the executor fills them once, when it
  binds the plan, and no step writes them. One slot per global, however
  many calls read it.

Nothing here needs CuPy: the executor binds the plan to device memory and
kernel handles, and the unit tests check the plan (and the cuBLAS parameter
derivation, against numpy) on the CPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from math import prod
from typing import Any

import numpy as np
from xdsl.dialects import arith, bufferization, func, gpu, memref
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    MemRefType,
    ModuleOp,
    UnrealizedConversionCastOp,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, Operation, SSAValue

from fxdsl.ir import graph
from fxdsl.ir.dtypes import from_bytes, numpy_dtype
from fxdsl.ir.layout import Layout, layout_of_type
from fxdsl.ir.utils import entry_function
from fxdsl.lowering.graph_bufferize import GEMM_LIBRARY_CALL


class LaunchPlanError(ValueError):
    """The host function holds something the launch plan cannot express."""


_HALF = frozenset(str(t) for t in graph.HALF_FLOAT_TYPES)
"""The 16-bit float names whose GEMMs may write an f32 result."""


@dataclass(frozen=True)
class BufferSpec:
    """One device allocation (an argument or a `memref.alloc`)."""

    shape: tuple[int, ...]
    dtype: str  # numpy dtype name; bf16 buffers hold float32-rounded values
    element: str  # the MLIR element type (f32, f16, bf16, i64, ...)

    @property
    def size(self) -> int:
        return prod(self.shape)


@dataclass(frozen=True)
class BufferView:
    """A strided view of buffer `slot` (offsets and strides in elements)."""

    slot: int
    layout: Layout


@dataclass(frozen=True)
class Launch:
    """`kernel<<<grid, block>>>(base pointers of args...)`."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: tuple[int, ...]


@dataclass(frozen=True)
class CublasGemm:
    """Column-major `cublas<t>gemmStridedBatched` parameters computing the
    row-major product: C^T = B^T A^T, so cuBLAS's first operand is B."""

    trans_first: bool
    trans_second: bool
    m: int
    n: int
    k: int
    ld_first: int
    stride_first: int
    offset_first: int
    ld_second: int
    stride_second: int
    offset_second: int
    ldc: int
    stride_c: int
    offset_c: int
    batch: int


@dataclass(frozen=True)
class Gemm:
    """`out[b] = lhs[b] @ rhs[b]` on 3-D views (zero-filled output first)."""

    lhs: BufferView
    rhs: BufferView
    out: BufferView
    conv: bool = False
    """A convolution's GEMM (`graph.CONV_GEMM`): f32 precision per the
    executor's `conv_tf32`, not its `tf32`."""

    @cached_property
    def cublas(self) -> CublasGemm:
        """cuBLAS parameters; a transposed operand is a transpose flag.
        Derived once per step (a few microseconds of Python each time, on
        every GEMM of every call otherwise)."""
        batch, m, k = self.lhs.layout.shape
        n = self.rhs.layout.shape[2]
        first_t, first_ld = _column_major(self.rhs.layout)
        second_t, second_ld = _column_major(self.lhs.layout)
        out = self.out.layout
        if out.strides[2] != 1 and n > 1:
            raise LaunchPlanError("gemm output must be row-major")
        return CublasGemm(
            trans_first=first_t, trans_second=second_t, m=n, n=m, k=k,
            ld_first=first_ld, stride_first=self.rhs.layout.strides[0],
            offset_first=self.rhs.layout.offset,
            ld_second=second_ld, stride_second=self.lhs.layout.strides[0],
            offset_second=self.lhs.layout.offset,
            ldc=max(out.strides[1], n, 1), stride_c=out.strides[0],
            offset_c=out.offset, batch=batch,
        )  # fmt: skip


@dataclass(frozen=True)
class Solve:
    """A linear-algebra op (`graph.LinalgOp`) as a host library step: `op`
    (its name) with its unit `flags` on dense `inputs`, writing its results
    into dense `outputs` (see `fxdsl.runtime.solvers`)."""

    op: str
    flags: tuple[str, ...]
    inputs: tuple[BufferView, ...]
    outputs: tuple[BufferView, ...]


def device_address(array: Any) -> int:
    """The address of a CuPy array's first element (numpy's, for the CPU
    stand-in of CuPy in the tests): where a step's buffer starts."""
    data = array.data
    return data.ptr if hasattr(data, "ptr") else array.ctypes.data


def _column_major(layout: Layout) -> tuple[bool, int]:
    """(transpose flag, leading dim) of a row-major (rows, cols) matrix view
    read by column-major cuBLAS as its transpose (cols x rows)."""
    _, rows, cols = layout.shape
    _, row_stride, col_stride = layout.strides
    if col_stride == 1 or cols == 1:
        return False, max(row_stride, cols, 1)  # X^T is column-major, ld = row stride
    if row_stride == 1 or rows == 1:
        return True, max(col_stride, rows, 1)
    raise LaunchPlanError(f"gemm operand {layout} is neither row- nor column-major")


Step = Launch | Gemm | Solve


@dataclass(frozen=True)
class LaunchPlan:
    """Everything one call of a lowered host function does (see module doc)."""

    function: str
    buffers: tuple[BufferSpec, ...]
    num_inputs: int
    steps: tuple[Step, ...]
    outputs: tuple[BufferView, ...]
    constants: tuple[tuple[int, np.ndarray], ...] = ()
    """(slot, its values: flat, in the buffer's numpy dtype) per constant."""

    @property
    def kernels(self) -> tuple[str, ...]:
        """Kernel names in first-launch order, each once."""
        return tuple(
            dict.fromkeys(s.kernel for s in self.steps if isinstance(s, Launch))
        )

    def gemm_element(self, step: Gemm) -> str:
        """The element type (f32, bf16, ...) of a GEMM's operands, which
        graph.matmul requires to be one type."""
        return self.gemm_types(step)[0]

    def gemm_types(self, step: Gemm) -> tuple[str, str]:
        """(operands', result's) element types of a GEMM: equal, or bf16/f16
        operands with an f32 result (see `graph.MatmulOp`)."""
        lhs, rhs, out = (
            self.buffers[view.slot].element for view in (step.lhs, step.rhs, step.out)
        )
        if lhs != rhs or (out != lhs and (lhs not in _HALF or out != "f32")):
            raise LaunchPlanError(f"gemm on mixed element types {lhs}, {rhs} -> {out}")
        return lhs, out


def _spec(typ: Attribute) -> BufferSpec:
    assert isinstance(typ, MemRefType)
    element = typ.element_type
    return BufferSpec(tuple(typ.get_shape()), numpy_dtype(element).name, str(element))


def _constant(value: SSAValue) -> int:
    owner = value.owner
    if not isinstance(owner, arith.ConstantOp):
        raise LaunchPlanError("launch sizes must be constants")
    return int(owner.value.value.data)  # type: ignore[union-attr]


def _entry(module: ModuleOp, entry: str | None) -> func.FuncOp:
    try:
        return entry_function(module, entry)
    except ValueError as error:
        raise LaunchPlanError(str(error)) from error


def build_launch_plan(module: ModuleOp, entry: str | None = None) -> LaunchPlan:
    """The launch plan of host function `entry` (default: the first public).
    Calls (`graph-dedup`'s outlined functions) are inlined into the plan: each
    call gets its own buffers but launches the callee's kernels, which are
    compiled once."""
    function = _entry(module, entry)
    functions = {
        f.sym_name.data: f for f in module.body.block.ops if isinstance(f, func.FuncOp)
    }
    buffers: list[BufferSpec] = []
    arguments: list[BufferView] = []
    for arg in function.body.block.args:
        if not isinstance(arg.type, MemRefType):
            raise LaunchPlanError(
                f"@{function.sym_name.data} takes {arg.type}: "
                "run convert-graph-to-gpu first"
            )
        arguments.append(BufferView(len(buffers), layout_of_type(arg.type)))
        buffers.append(_spec(arg.type))
    steps: list[Step] = []
    constants = _Constants(module, buffers)
    outputs = _inline(function, arguments, functions, buffers, steps, constants)
    return LaunchPlan(
        function.sym_name.data,
        tuple(buffers),
        len(arguments),
        tuple(steps),
        outputs,
        tuple(constants.values.items()),
    )


class _Constants:
    """The constant slots of a plan: one per module `memref.global` read."""

    def __init__(self, module: ModuleOp, buffers: list[BufferSpec]):
        self.globals = {
            op.sym_name.data: op
            for op in module.body.block.ops
            if isinstance(op, memref.GlobalOp)
        }
        self.buffers = buffers
        self.slots: dict[str, int] = {}
        self.values: dict[int, np.ndarray] = {}

    def slot(self, op: memref.GetGlobalOp) -> BufferView:
        name = op.name_.root_reference.data
        if name not in self.slots:
            found = self.globals.get(name)
            if found is None or not isinstance(
                found.initial_value, DenseIntOrFPElementsAttr
            ):
                raise LaunchPlanError(f"launch plan: no dense memref.global @{name}")
            spec = _spec(found.type)
            self.slots[name] = len(self.buffers)
            self.buffers.append(spec)
            value = found.initial_value
            element = found.type.element_type
            flat = from_bytes(value.data.data, element, (spec.size,))  # raw storage
            self.values[self.slots[name]] = flat.astype(spec.dtype, copy=False)
        return BufferView(self.slots[name], layout_of_type(op.memref.type))


def _inline(
    function: func.FuncOp,
    arguments: list[BufferView],
    functions: dict[str, func.FuncOp],
    buffers: list[BufferSpec],
    steps: list[Step],
    constants: _Constants,
) -> tuple[BufferView, ...]:
    """Append the steps of one call of `function`; return its result views."""
    views: dict[SSAValue, BufferView] = dict(zip(function.body.block.args, arguments))
    for op in function.body.block.ops:
        if isinstance(op, memref.GetGlobalOp):
            views[op.memref] = constants.slot(op)
        elif isinstance(op, memref.AllocOp):
            views[op.memref] = BufferView(len(buffers), layout_of_type(op.memref.type))
            buffers.append(_spec(op.memref.type))
        elif isinstance(op, memref.ReinterpretCastOp):
            source = views[op.source]
            views[op.result] = BufferView(source.slot, layout_of_type(op.result.type))
        elif isinstance(op, gpu.LaunchFuncOp):
            steps.append(_launch(op, views))
        elif isinstance(op, linalg.GenericOp):
            steps.append(_gemm(op, views))
        elif isinstance(op, bufferization.ToTensorOp):
            views[op.tensor] = views[op.memref]
        elif isinstance(op, graph.LinalgOp):
            steps.append(_solve(op, views))
        elif _is_bridge(op):
            pass  # a library step's input or output bridge, read by `_solve`
        elif isinstance(op, func.CallOp):
            callee = functions[op.callee.root_reference.data]
            operands = [views[v] for v in op.arguments]
            results = _inline(callee, operands, functions, buffers, steps, constants)
            views.update(zip(op.results, results))
        elif isinstance(op, func.ReturnOp):
            return tuple(views[v] for v in op.arguments)
        elif not isinstance(op, arith.ConstantOp | linalg.FillOp):
            raise LaunchPlanError(f"launch plan: unsupported host op {op.name}")
    raise LaunchPlanError(f"@{function.sym_name.data} has no func.return")


def _launch(op: gpu.LaunchFuncOp, views: dict[SSAValue, BufferView]) -> Launch:
    grid = tuple(_constant(v) for v in (op.gridSizeX, op.gridSizeY, op.gridSizeZ))
    block = tuple(_constant(v) for v in (op.blockSizeX, op.blockSizeY, op.blockSizeZ))
    name = op.kernel.nested_references.data[-1].data
    args = tuple(views[v].slot for v in op.kernelOperands)
    return Launch(name, grid, block, args)  # type: ignore[arg-type]


def _gemm(op: Operation, views: dict[SSAValue, BufferView]) -> Gemm:
    assert isinstance(op, linalg.GenericOp)
    if op.library_call is None or op.library_call.data != GEMM_LIBRARY_CALL:
        raise LaunchPlanError("launch plan: linalg.generic that is not a library GEMM")
    lhs, rhs = (views[v] for v in op.inputs)
    return Gemm(lhs, rhs, views[op.outputs[0]], graph.CONV_GEMM in op.attributes)


def _is_bridge(op: Operation) -> bool:
    """A result materialized into its buffer (either form graph-bufferize
    writes), or a strided buffer bridged to a tensor."""
    return isinstance(
        op, bufferization.MaterializeInDestinationOp | UnrealizedConversionCastOp
    )


def _solve(op: graph.LinalgOp, views: dict[SSAValue, BufferView]) -> Solve:
    inputs: list[BufferView] = []
    for operand in op.operands:
        owner = operand.owner
        if isinstance(owner, UnrealizedConversionCastOp):
            operand = owner.inputs[0]
        if operand not in views or not views[operand].layout.is_identity:
            raise LaunchPlanError(
                f"launch plan: {op.name} needs dense buffers (run graph-wrap-kernels)"
            )
        inputs.append(views[operand])
    outputs: list[BufferView] = []
    for result in op.results:
        users = [u.operation for u in result.uses]
        if len(users) != 1 or not isinstance(
            users[0], bufferization.MaterializeInDestinationOp
        ):
            raise LaunchPlanError(
                f"launch plan: {op.name} result not materialized in a dense buffer"
            )
        outputs.append(views[users[0].dest])
    flags = tuple(sorted(op.properties))
    return Solve(op.name, flags, tuple(inputs), tuple(outputs))


def run_gemm_reference(
    gemm: CublasGemm, a: np.ndarray, b: np.ndarray, c: np.ndarray
) -> None:
    """What cuBLAS does with `gemm` on flat column-major buffers (numpy); the
    unit tests use it to check the parameter derivation without a GPU.
    `a` is cuBLAS's first operand buffer (our rhs), `b` the second (our lhs)."""

    def matrix(
        flat: np.ndarray, offset: int, ld: int, rows: int, cols: int, trans: bool
    ) -> Any:
        # column-major rows x cols matrix op(X): X stored with leading dim ld
        stored_rows, stored_cols = (cols, rows) if trans else (rows, cols)
        item = flat.itemsize
        stored = np.lib.stride_tricks.as_strided(
            flat[offset:], (stored_rows, stored_cols), (item, ld * item)
        )
        return stored.T if trans else stored

    for index in range(gemm.batch):
        offset_a = gemm.offset_first + index * gemm.stride_first
        offset_b = gemm.offset_second + index * gemm.stride_second
        first = matrix(a, offset_a, gemm.ld_first, gemm.m, gemm.k, gemm.trans_first)
        second = matrix(b, offset_b, gemm.ld_second, gemm.k, gemm.n, gemm.trans_second)
        out = matrix(
            c, gemm.offset_c + index * gemm.stride_c, gemm.ldc, gemm.m, gemm.n, False
        )
        out[...] = first.astype(np.float64) @ second.astype(np.float64)
