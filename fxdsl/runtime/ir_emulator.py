"""A slow, exact CPU emulator of lowered IR (host functions + gpu.module).

Two users: the tests check the numerics of `convert-graph-to-gpu` with it
where no GPU is available, and the CUDA executor runs a kernel that failed to
compile through it (`Emulator.launch` on host copies of the buffers), so a
compiler bug costs speed, never correctness.

It runs what the IR says, op by op: host buffers are flat numpy arrays read
through the static strided layout of each memref type, `gpu.launch_func`
runs every thread of every block of the launch grid as a Python generator,
and `gpu.all_reduce` is a barrier: the block's threads all stop there, the
emulator combines their values with the op of the reduction region and hands
the result back to each. The CUDA printer is not exercised (nvcc checks that
its output compiles); the IR semantics are: index math, broadcasting, strides,
views, grid-stride loops, reductions, f16/bf16 rounding, and that every
access stays in its allocation and every vector access is aligned. Cost: a few
microseconds per scalar op per thread (pure Python), i.e. about a second per
100k element-ops; grids are 1-D (what the lowering emits).

What each op does is one registration keyed by its class, at the end of
this module: `@host_op` for ops of host functions, `@kernel_op` for kernel
ops that run straight through, `@control_op` for kernel ops that may
suspend their thread (loops and branches around a barrier, the barrier
itself), and one entry of `SCALAR` for a pure scalar op. Emulating a newly
lowered op is one of these, never a change to the interpreter loop.
"""

# pyright: reportUnknownLambdaType=false
# (the scalar tables take numpy/Python scalars of any element type)

from __future__ import annotations

import functools
import math as pymath
from collections.abc import Callable, Generator
from typing import Any

import numpy as np
from xdsl.dialects import arith, bufferization, func, gpu, math, memref, scf, vector
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, Block, Operation, SSAValue

from fxdsl.interpreters.graph import integer_power
from fxdsl.interpreters.linalg import NUMPY_LINALG, flags_of
from fxdsl.ir import graph
from fxdsl.ir.dtypes import from_bytes, numpy_dtype, round_to_bf16
from fxdsl.ir.layout import layout_of_type
from fxdsl.ir.utils import functions
from fxdsl.lowering.graph_bufferize import writable_arguments

Env = dict[SSAValue, Any]
Thread = Generator[tuple[type[Operation], Any], Any, None]


def scalar(value: Any, typ: Attribute) -> Any:
    """A Python/numpy scalar holding a value of MLIR type `typ`."""
    if isinstance(typ, IndexType):
        return int(value)
    if isinstance(typ, BFloat16Type):
        return round_to_bf16(np.array([value], dtype=np.float32))[0]
    return numpy_dtype(typ).type(value)


def _erf(x: Any) -> Any:
    return np.float32(pymath.erf(float(x)))


def _maximum(a: Any, b: Any) -> Any:
    return a if (a > b or a != a) else b


def _minimum(a: Any, b: Any) -> Any:
    return a if (a < b or a != a) else b


def _fma(a: Any, b: Any, c: Any) -> Any:
    # an f32 product is exact in f64: one rounding of the sum, as fmaf
    return np.float32(np.float64(a) * np.float64(b) + np.float64(c))


def _floordiv(a: Any, b: Any) -> Any:
    return a // b if b != 0 else type(a)(0)


SCALAR: dict[type[Operation], Callable[..., Any]] = {
    arith.AddfOp: lambda a, b: a + b, arith.SubfOp: lambda a, b: a - b,
    arith.MulfOp: lambda a, b: a * b, arith.DivfOp: lambda a, b: a / b,
    arith.AddiOp: lambda a, b: a + b, arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b, arith.DivUIOp: lambda a, b: a // b,
    arith.RemUIOp: lambda a, b: a % b, arith.FloorDivSIOp: _floordiv,
    arith.RemSIOp: np.fmod,  # C's %: truncated, the dividend's sign
    arith.MaximumfOp: _maximum, arith.MinimumfOp: _minimum,
    arith.MaxSIOp: max, arith.MinSIOp: min,
    arith.AndIOp: lambda a, b: a & b, arith.OrIOp: lambda a, b: a | b,
    arith.XOrIOp: lambda a, b: a ^ b, arith.ShRSIOp: lambda a, b: a >> b,
    arith.ShLIOp: lambda a, b: a << b,
    arith.NegfOp: lambda a: -a,
    arith.SelectOp: lambda c, a, b: a if c else b,
    math.ExpOp: np.exp, math.Exp2Op: np.exp2, math.LogOp: np.log,
    math.SqrtOp: np.sqrt,
    math.RsqrtOp: lambda a: np.float32(1) / np.sqrt(a), math.TanhOp: np.tanh,
    math.ErfOp: _erf, math.SinOp: np.sin, math.CosOp: np.cos,
    math.AbsFOp: abs, math.AbsIOp: abs, math.PowFOp: np.power,
    math.IPowIOp: lambda a, b: integer_power(a, b)[()],
    math.TanOp: np.tan, math.AcosOp: np.arccos, math.AsinOp: np.arcsin,
    math.AtanOp: np.arctan, math.SinhOp: np.sinh, math.CoshOp: np.cosh,
    math.AsinhOp: np.arcsinh, math.AcoshOp: np.arccosh, math.AtanhOp: np.arctanh,
    math.Log2Op: np.log2, math.Log10Op: np.log10, math.TruncOp: np.trunc,
    math.Atan2Op: np.arctan2, math.CopySignOp: np.copysign, math.FmaOp: _fma,
}  # fmt: skip

PREDICATES: dict[str, Callable[[Any, Any], bool]] = {
    "oeq": lambda a, b: a == b, "une": lambda a, b: a != b,
    "olt": lambda a, b: a < b, "ole": lambda a, b: a <= b,
    "ogt": lambda a, b: a > b, "oge": lambda a, b: a >= b,
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
    "slt": lambda a, b: a < b, "sle": lambda a, b: a <= b,
    "sgt": lambda a, b: a > b, "sge": lambda a, b: a >= b,
    "ult": lambda a, b: a < b, "ule": lambda a, b: a <= b,
    "ugt": lambda a, b: a > b, "uge": lambda a, b: a >= b,
}  # fmt: skip

CASTS = (
    arith.ExtFOp, arith.TruncFOp, arith.SIToFPOp, arith.UIToFPOp, arith.FPToSIOp,
    arith.ExtSIOp, arith.ExtUIOp, arith.TruncIOp, arith.IndexCastOp,
)  # fmt: skip


_layout = functools.cache(layout_of_type)
"""Layouts by memref type: `address` runs for every access of every thread."""


HARDWARE_IDS: dict[type[Operation], str] = {
    gpu.ThreadIdOp: "thread_id", gpu.BlockIdOp: "block_id",
    gpu.BlockDimOp: "block_dim", gpu.GridDimOp: "grid_dim",
}  # fmt: skip
"""The launch context entry each hardware id op reads."""


def address(value: SSAValue, indices: list[int]) -> int:
    layout = _layout(value.type)  # type: ignore[arg-type]
    return layout.offset + sum(i * s for i, s in zip(indices, layout.strides))


class MemoryFault(RuntimeError):
    """An access a GPU would fault on (or silently corrupt memory with): out
    of the allocation, or a vector access not aligned to its width. numpy
    would wrap a negative index or clip a slice instead, so the emulator
    checks every access itself."""


def checked_address(
    op: Operation, flat: np.ndarray, value: SSAValue, indices: list[int], width: int
) -> int:
    """The element address of `width` consecutive elements of `value` at
    `indices` in its allocation `flat`; a `MemoryFault` where the GPU would
    fault. Allocations are 16-byte aligned, so a vector access is aligned
    when its element address is a multiple of its width."""
    start = address(value, indices)
    if start < 0 or start + width > len(flat):
        raise MemoryFault(
            f"{op.name} at {indices} accesses elements [{start}, {start + width}) "
            f"of an allocation of {len(flat)}"
        )
    if start % width:
        raise MemoryFault(
            f"{op.name} of {width} elements at {indices} starts at element "
            f"{start}, not a multiple of {width} (misaligned)"
        )
    return start


def strided_view(flat: np.ndarray, typ: MemRefType[Attribute]) -> np.ndarray:
    layout = layout_of_type(typ)
    item = flat.itemsize
    return np.lib.stride_tricks.as_strided(
        flat[layout.offset :], layout.shape, tuple(s * item for s in layout.strides)
    )


class Emulator:
    """Runs one lowered module; `run(name, *arrays)` returns the results."""

    def __init__(self, module: ModuleOp):
        self.module = module
        self.functions = {f.sym_name.data: f for f in functions(module)}
        self.kernels = {
            k.sym_name.data: k for k in module.walk() if isinstance(k, gpu.FuncOp)
        }
        self.globals = {
            g.sym_name.data: g for g in module.walk() if isinstance(g, memref.GlobalOp)
        }
        self.launches = 0
        self.allocations: list[tuple[int, ...]] = []
        """The shape of each `memref.alloc` run, in order."""

    # --- host -----------------------------------------------------------------

    def run(self, name: str, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
        """Run host function `name`. Arguments are copied, except those
        marked `bufferization.writable`: as on the device, the function
        works in the caller's buffer, which must be a C-contiguous array of
        the argument's dtype (a ValueError otherwise)."""
        function = self.functions[name]
        writable = writable_arguments(function)
        env: Env = {}
        for position, (arg, array) in enumerate(zip(function.body.block.args, arrays)):
            assert isinstance(arg.type, MemRefType)
            dtype = numpy_dtype(arg.type.element_type)
            if position not in writable:
                env[arg] = np.ascontiguousarray(array, dtype=dtype).reshape(-1).copy()
                continue
            if array.dtype != dtype or not array.flags.c_contiguous:
                raise ValueError(
                    f"emulator: argument {position} of @{name} is writable, so it "
                    f"must be a C-contiguous {dtype} array (the caller's buffer), "
                    f"got {array.dtype}"
                )
            env[arg] = array.reshape(-1)
        for op in function.body.block.ops:
            if isinstance(op, func.ReturnOp):
                return tuple(self._dense(env[v], v.type) for v in op.arguments)
            self._host_op(op, env)
        raise AssertionError("no func.return")

    def _dense(self, flat: np.ndarray, typ: Attribute) -> np.ndarray:
        assert isinstance(typ, MemRefType)
        return np.array(strided_view(flat, typ))

    def _host_op(self, op: Operation, env: Env) -> None:
        rule = HOST_OPS.get(type(op))
        if rule is None:
            raise NotImplementedError(f"emulator: host op {op.name}")
        rule(self, op, env)

    # --- kernels --------------------------------------------------------------

    def _launch(self, op: gpu.LaunchFuncOp, env: Env) -> None:
        grid = env[op.gridSizeX] * env[op.gridSizeY] * env[op.gridSizeZ]
        block = env[op.blockSizeX] * env[op.blockSizeY] * env[op.blockSizeZ]
        buffers = [env[v] for v in op.kernelOperands]
        self.launch(op.kernel.nested_references.data[-1].data, grid, block, buffers)

    def launch(
        self, name: str, grid: int, block: int, buffers: list[np.ndarray]
    ) -> None:
        """Run kernel `name` on flat buffers (base of each allocation)."""
        kernel = self.kernels[name]
        self.launches += 1
        for block_id in range(grid):
            ids = {"block_id": block_id, "block_dim": block, "grid_dim": grid}
            threads: list[Thread] = []
            for thread_id in range(block):
                kernel_env: Env = dict(zip(kernel.body.block.args, buffers))
                ctx = ids | {"thread_id": thread_id}
                threads.append(self._block(kernel.body.block, kernel_env, ctx))
            self._schedule(threads)

    def _schedule(self, threads: list[Thread]) -> None:
        """Run a block's threads from barrier (all_reduce) to barrier."""
        pending: list[Any] = [None] * len(threads)
        while True:
            requests = []
            for k, thread in enumerate(threads):
                try:
                    requests.append(thread.send(pending[k]))
                except StopIteration:
                    requests.append(None)
            if all(r is None for r in requests):
                return
            assert all(r is not None for r in requests), "divergent gpu.all_reduce"
            combiner = requests[0][0]
            total = requests[0][1]
            for _, value in requests[1:]:
                total = SCALAR[combiner](total, value)
            pending = [total] * len(threads)

    def _block(self, block: Block, env: Env, ctx: dict[str, int]) -> Thread:
        for op in block.ops:
            rule = KERNEL_OPS.get(type(op))
            if rule is not None:
                rule(self, op, env, ctx)
                continue
            control = CONTROL_OPS.get(type(op))
            if control is None:
                raise NotImplementedError(f"emulator: kernel op {op.name}")
            if control is _END:
                return
            yield from control(self, op, env, ctx)


# --------------------------------------------------------------------------- #
# What each op does: one registration per op class
# --------------------------------------------------------------------------- #

Context = dict[str, int]
"""The launch context of a thread: `thread_id`, `block_id`, `block_dim`,
`grid_dim`."""
HostRule = Callable[[Emulator, Any, Env], None]
KernelRule = Callable[[Emulator, Any, Env, Context], None]
ControlRule = Callable[[Emulator, Any, Env, Context], Thread]

HOST_OPS: dict[type[Operation], HostRule] = {}
"""Op of a host function -> `rule(emulator, op, env)`."""
KERNEL_OPS: dict[type[Operation], KernelRule] = {}
"""Op of a kernel that runs straight through -> `rule(emulator, op, env,
ctx)`; a pure scalar op is one entry of `SCALAR` instead."""
CONTROL_OPS: dict[type[Operation], ControlRule] = {}
"""Op of a kernel that may suspend its thread (it holds a barrier, or a
region that may) -> a generator `rule(emulator, op, env, ctx)`; `_END`
for a terminator, which ends its block."""


def _END(emulator: Emulator, op: Any, env: Env, ctx: Context) -> Thread:
    """Terminators (`scf.yield`, `gpu.return`): the block ends here (its
    parent reads the operands)."""
    return
    yield


def host_op(*classes: type[Operation]) -> Callable[[HostRule], HostRule]:
    """Register how the emulator runs host ops of `classes`."""

    def register(rule: HostRule) -> HostRule:
        HOST_OPS.update(dict.fromkeys(classes, rule))
        return rule

    return register


def kernel_op(*classes: type[Operation]) -> Callable[[KernelRule], KernelRule]:
    """Register how the emulator runs kernel ops of `classes`."""

    def register(rule: KernelRule) -> KernelRule:
        KERNEL_OPS.update(dict.fromkeys(classes, rule))
        return rule

    return register


def control_op(*classes: type[Operation]) -> Callable[[ControlRule], ControlRule]:
    """Register how the emulator runs kernel ops of `classes` that may
    suspend their thread."""

    def register(rule: ControlRule) -> ControlRule:
        CONTROL_OPS.update(dict.fromkeys(classes, rule))
        return rule

    return register


# --- host ---------------------------------------------------------------------


@host_op(memref.AllocOp)
def _alloc(emulator: Emulator, op: memref.AllocOp, env: Env) -> None:
    typ = op.memref.type
    size = int(np.prod(typ.get_shape()))
    env[op.memref] = np.zeros(size, dtype=numpy_dtype(typ.element_type))
    emulator.allocations.append(tuple(typ.get_shape()))


@host_op(memref.GetGlobalOp)
def _host_get_global(emulator: Emulator, op: memref.GetGlobalOp, env: Env) -> None:
    """A module constant (`graph-bufferize`'s large constants): its values,
    flat, decoded from the raw storage; nothing writes them."""
    global_op = emulator.globals[op.name_.root_reference.data]
    attr = global_op.initial_value
    assert isinstance(attr, DenseIntOrFPElementsAttr)
    element = global_op.type.element_type
    size = int(np.prod(global_op.type.get_shape()))
    env[op.memref] = from_bytes(attr.data.data, element, (size,))


@host_op(memref.ReinterpretCastOp)
def _reinterpret_cast(
    emulator: Emulator, op: memref.ReinterpretCastOp, env: Env
) -> None:
    env[op.result] = env[op.source]


@host_op(linalg.FillOp)
def _fill(emulator: Emulator, op: linalg.FillOp, env: Env) -> None:
    out = op.outputs[0]
    strided_view(env[out], out.type)[...] = env[op.inputs[0]]  # type: ignore[arg-type]


@host_op(linalg.GenericOp)
def _gemm(emulator: Emulator, op: linalg.GenericOp, env: Env) -> None:
    a, b = (strided_view(env[v], v.type) for v in op.inputs)  # type: ignore[arg-type]
    c = strided_view(env[op.outputs[0]], op.outputs[0].type)  # type: ignore[arg-type]
    # cuBLAS semantics: f32 compute, one rounding to the storage type
    product = c.astype(np.float64) + np.matmul(
        a.astype(np.float64), b.astype(np.float64)
    )
    element = op.outputs[0].type.element_type  # type: ignore[union-attr]
    result = product.astype(np.float32)
    c[...] = round_to_bf16(result) if isinstance(element, BFloat16Type) else result


@host_op(bufferization.ToTensorOp)
def _to_tensor(emulator: Emulator, op: bufferization.ToTensorOp, env: Env) -> None:
    env[op.tensor] = strided_view(env[op.memref], op.memref.type)  # type: ignore[arg-type]


@host_op(*graph.LINALG_OPS)
def _library(emulator: Emulator, op: Operation, env: Env) -> None:
    # a solver step (graph-bufferize bridges its tensors): the reference's
    assert isinstance(op, graph.LinalgOp)
    arrays = [env[v] for v in op.operands]
    results = NUMPY_LINALG[op.name](*arrays, **flags_of(op))
    for value, array in zip(op.results, results, strict=True):
        env[value] = np.asarray(array).astype(numpy_dtype(graph.dtype_of(value)))


@host_op(bufferization.MaterializeInDestinationOp)
def _materialize(
    emulator: Emulator, op: bufferization.MaterializeInDestinationOp, env: Env
) -> None:
    dest = op.dest
    strided_view(env[dest], dest.type)[...] = env[op.source]  # type: ignore[arg-type]


@host_op(gpu.LaunchFuncOp)
def _launch_func(emulator: Emulator, op: gpu.LaunchFuncOp, env: Env) -> None:
    emulator._launch(op, env)  # pyright: ignore[reportPrivateUsage]


@host_op(func.CallOp)
def _call(emulator: Emulator, op: func.CallOp, env: Env) -> None:
    # a donated argument is the caller's buffer itself, as on the device
    callee = op.callee.root_reference.data
    donated = writable_arguments(emulator.functions[callee])
    arrays = [
        env[v] if i in donated else emulator._dense(env[v], v.type)  # pyright: ignore[reportPrivateUsage]
        for i, v in enumerate(op.arguments)
    ]
    results = emulator.run(op.callee.root_reference.data, *arrays)
    for value, array in zip(op.results, results):
        env[value] = array.reshape(-1)


# --- both ---------------------------------------------------------------------


def _constant(emulator: Emulator, op: arith.ConstantOp, env: Env, *_: Any) -> None:
    env[op.result] = scalar(op.value.value.data, op.result.type)  # type: ignore[union-attr]


HOST_OPS[arith.ConstantOp] = _constant
KERNEL_OPS[arith.ConstantOp] = _constant


# --- kernels: control ---------------------------------------------------------


@control_op(scf.ForOp)
def _for(emulator: Emulator, op: scf.ForOp, env: Env, ctx: Context) -> Thread:
    block = op.body.block
    carried = [env[v] for v in op.iter_args]
    i, upper, step = env[op.lb], env[op.ub], env[op.step]
    while i < upper:
        env[block.args[0]] = i
        for arg, value in zip(block.args[1:], carried):
            env[arg] = value
        yield from emulator._block(block, env, ctx)  # pyright: ignore[reportPrivateUsage]
        carried = [env[v] for v in block.last_op.operands]  # type: ignore[union-attr]
        i += step
    for result, value in zip(op.results, carried):
        env[result] = value


@control_op(scf.IfOp)
def _if(emulator: Emulator, op: scf.IfOp, env: Env, ctx: Context) -> Thread:
    region = op.true_region if env[op.cond] else op.false_region
    if region.blocks:
        yield from emulator._block(region.block, env, ctx)  # pyright: ignore[reportPrivateUsage]
        terminator = region.block.last_op
        for result, value in zip(op.results, terminator.operands):  # type: ignore[union-attr]
            env[result] = env[value]


@control_op(gpu.AllReduceOp)
def _all_reduce(
    emulator: Emulator, op: gpu.AllReduceOp, env: Env, ctx: Context
) -> Thread:
    """A barrier: the thread hands its value and the region's combiner to
    the scheduler (`Emulator._schedule`) and resumes with the total."""
    first = op.body.block.first_op
    assert first is not None, "gpu.all_reduce without a combiner"
    env[op.result] = yield (type(first), env[op.operand])


CONTROL_OPS.update(dict.fromkeys((scf.YieldOp, gpu.ReturnOp), _END))


# --- kernels: memory ----------------------------------------------------------


@kernel_op(*HARDWARE_IDS)
def _hardware_id(emulator: Emulator, op: Operation, env: Env, ctx: Context) -> None:
    env[op.results[0]] = ctx[HARDWARE_IDS[type(op)]]


@kernel_op(memref.LoadOp)
def _load(emulator: Emulator, op: memref.LoadOp, env: Env, ctx: Context) -> None:
    flat = env[op.memref]
    at = checked_address(op, flat, op.memref, [env[i] for i in op.indices], 1)
    env[op.res] = scalar(flat[at], op.res.type)


@kernel_op(memref.StoreOp)
def _store(emulator: Emulator, op: memref.StoreOp, env: Env, ctx: Context) -> None:
    flat = env[op.memref]
    at = checked_address(op, flat, op.memref, [env[i] for i in op.indices], 1)
    flat[at] = env[op.value]


@kernel_op(vector.LoadOp)
def _vector_load(emulator: Emulator, op: vector.LoadOp, env: Env, ctx: Context) -> None:
    flat = env[op.base]
    width = op.result.type.get_shape()[0]  # type: ignore[attr-defined]
    indices = [env[i] for i in op.indices]
    start = checked_address(op, flat, op.base, indices, width)
    env[op.result] = flat[start : start + width].copy()


@kernel_op(vector.StoreOp)
def _vector_store(
    emulator: Emulator, op: vector.StoreOp, env: Env, ctx: Context
) -> None:
    flat, packed = env[op.base], env[op.vector]
    indices = [env[i] for i in op.indices]
    start = checked_address(op, flat, op.base, indices, len(packed))
    flat[start : start + len(packed)] = packed


@kernel_op(vector.ExtractOp)
def _extract(emulator: Emulator, op: vector.ExtractOp, env: Env, ctx: Context) -> None:
    (k,) = op.static_position.get_values()
    env[op.result] = env[op.vector][k]


@kernel_op(vector.InsertOp)
def _insert(emulator: Emulator, op: vector.InsertOp, env: Env, ctx: Context) -> None:
    (k,) = op.static_position.get_values()
    packed = env[op.dest].copy()
    packed[k] = env[op.source]
    env[op.result] = packed


@kernel_op(vector.BroadcastOp)
def _broadcast(
    emulator: Emulator, op: vector.BroadcastOp, env: Env, ctx: Context
) -> None:
    typ = op.vector.type
    width = typ.get_shape()[0]  # type: ignore[attr-defined]
    dtype = numpy_dtype(typ.element_type)  # type: ignore[attr-defined]
    env[op.vector] = np.full(width, env[op.source], dtype=dtype)


@kernel_op(memref.GetGlobalOp)
def _get_global(
    emulator: Emulator, op: memref.GetGlobalOp, env: Env, ctx: Context
) -> None:
    global_op = emulator.globals[op.name_.root_reference.data]
    attr = global_op.initial_value
    assert isinstance(attr, DenseIntOrFPElementsAttr)
    element = global_op.type.element_type
    env[op.memref] = np.array(attr.get_values(), dtype=numpy_dtype(element))


# --- kernels: scalars ---------------------------------------------------------


@kernel_op(arith.CmpfOp, arith.CmpiOp)
def _compare(
    emulator: Emulator, op: arith.CmpfOp | arith.CmpiOp, env: Env, ctx: Context
) -> None:
    table = (
        arith.CMPF_COMPARISON_OPERATIONS
        if isinstance(op, arith.CmpfOp)
        else arith.CMPI_COMPARISON_OPERATIONS
    )
    predicate = table[op.predicate.value.data]
    env[op.result] = bool(PREDICATES[predicate](env[op.lhs], env[op.rhs]))


@kernel_op(*CASTS)
def _cast(emulator: Emulator, op: Operation, env: Env, ctx: Context) -> None:
    source, target = env[op.operands[0]], op.results[0].type
    if isinstance(target, IntegerType) and target.width.data == 1:
        env[op.results[0]] = bool(source)
    else:
        env[op.results[0]] = scalar(source, target)


@kernel_op(arith.BitcastOp)
def _bitcast(emulator: Emulator, op: arith.BitcastOp, env: Env, ctx: Context) -> None:
    """The same bits read as the result type (`graph.bitcast`: same widths)."""
    source = np.array(env[op.operands[0]], numpy_dtype(op.operands[0].type))
    env[op.results[0]] = source.view(numpy_dtype(op.results[0].type))[()]


def _pure(function: Callable[..., Any]) -> KernelRule:
    """The rule of a pure scalar op: `function` of its operands, held in
    its result type."""

    def run(emulator: Emulator, op: Operation, env: Env, ctx: Context) -> None:
        result = function(*(env[o] for o in op.operands))
        env[op.results[0]] = scalar(result, op.results[0].type)

    return run


KERNEL_OPS.update({cls: _pure(function) for cls, function in SCALAR.items()})
