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
"""

# pyright: reportUnknownLambdaType=false
# (the scalar tables take numpy/Python scalars of any element type)

from __future__ import annotations

import functools
import math as pymath
from collections.abc import Callable, Generator
from typing import Any

import numpy as np
from xdsl.dialects import arith, func, gpu, math, memref, scf, vector
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

from fxdsl.ir.dtypes import numpy_dtype, round_to_bf16
from fxdsl.ir.layout import layout_of_type
from fxdsl.ir.utils import functions

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
    arith.MaximumfOp: _maximum, arith.MinimumfOp: _minimum,
    arith.MaxSIOp: max, arith.MinSIOp: min,
    arith.AndIOp: lambda a, b: a & b, arith.OrIOp: lambda a, b: a | b,
    arith.XOrIOp: lambda a, b: a ^ b,
    arith.NegfOp: lambda a: -a,
    arith.SelectOp: lambda c, a, b: a if c else b,
    math.ExpOp: np.exp, math.Exp2Op: np.exp2, math.LogOp: np.log,
    math.SqrtOp: np.sqrt,
    math.RsqrtOp: lambda a: np.float32(1) / np.sqrt(a), math.TanhOp: np.tanh,
    math.ErfOp: _erf, math.SinOp: np.sin, math.CosOp: np.cos,
    math.AbsFOp: abs, math.AbsIOp: abs, math.PowFOp: np.power,
    math.IPowIOp: lambda a, b: a ** b,
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

    # --- host -----------------------------------------------------------------

    def run(self, name: str, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
        function = self.functions[name]
        env: Env = {}
        for arg, array in zip(function.body.block.args, arrays):
            assert isinstance(arg.type, MemRefType)
            dtype = numpy_dtype(arg.type.element_type)
            env[arg] = np.ascontiguousarray(array, dtype=dtype).reshape(-1).copy()
        for op in function.body.block.ops:
            if isinstance(op, func.ReturnOp):
                return tuple(self._dense(env[v], v.type) for v in op.arguments)
            self._host_op(op, env)
        raise AssertionError("no func.return")

    def _dense(self, flat: np.ndarray, typ: Attribute) -> np.ndarray:
        assert isinstance(typ, MemRefType)
        return np.array(strided_view(flat, typ))

    def _host_op(self, op: Operation, env: Env) -> None:
        if isinstance(op, memref.AllocOp):
            typ = op.memref.type
            size = int(np.prod(typ.get_shape()))
            env[op.memref] = np.zeros(size, dtype=numpy_dtype(typ.element_type))
        elif isinstance(op, memref.ReinterpretCastOp):
            env[op.result] = env[op.source]
        elif isinstance(op, arith.ConstantOp):
            env[op.result] = scalar(op.value.value.data, op.result.type)  # type: ignore[union-attr]
        elif isinstance(op, linalg.FillOp):
            out = op.outputs[0]
            strided_view(env[out], out.type)[...] = env[op.inputs[0]]  # type: ignore[arg-type]
        elif isinstance(op, linalg.GenericOp):
            a, b = (strided_view(env[v], v.type) for v in op.inputs)  # type: ignore[arg-type]
            c = strided_view(env[op.outputs[0]], op.outputs[0].type)  # type: ignore[arg-type]
            # cuBLAS semantics: f32 compute, one rounding to the storage type
            product = c.astype(np.float64) + np.matmul(
                a.astype(np.float64), b.astype(np.float64)
            )
            element = op.outputs[0].type.element_type  # type: ignore[union-attr]
            result = product.astype(np.float32)
            c[...] = (
                round_to_bf16(result) if isinstance(element, BFloat16Type) else result
            )
        elif isinstance(op, gpu.LaunchFuncOp):
            self._launch(op, env)
        elif isinstance(op, func.CallOp):
            arrays = [self._dense(env[v], v.type) for v in op.arguments]
            results = self.run(op.callee.root_reference.data, *arrays)
            for value, array in zip(op.results, results):
                env[value] = array.reshape(-1)
        else:
            raise NotImplementedError(f"emulator: host op {op.name}")

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
            if isinstance(op, scf.ForOp):
                yield from self._for(op, env, ctx)
            elif isinstance(op, scf.IfOp):
                region = op.true_region if env[op.cond] else op.false_region
                if region.blocks:
                    yield from self._block(region.block, env, ctx)
                    terminator = region.block.last_op
                    for result, value in zip(op.results, terminator.operands):  # type: ignore[union-attr]
                        env[result] = env[value]
            elif isinstance(op, gpu.AllReduceOp):
                first = op.body.block.first_op
                assert first is not None, "gpu.all_reduce without a combiner"
                env[op.result] = yield (type(first), env[op.operand])
            elif isinstance(op, scf.YieldOp | gpu.ReturnOp):
                return
            else:
                self._scalar(op, env, ctx)

    def _for(self, op: scf.ForOp, env: Env, ctx: dict[str, int]) -> Thread:
        block = op.body.block
        carried = [env[v] for v in op.iter_args]
        i, upper, step = env[op.lb], env[op.ub], env[op.step]
        while i < upper:
            env[block.args[0]] = i
            for arg, value in zip(block.args[1:], carried):
                env[arg] = value
            yield from self._block(block, env, ctx)
            carried = [env[v] for v in block.last_op.operands]  # type: ignore[union-attr]
            i += step
        for result, value in zip(op.results, carried):
            env[result] = value

    def _scalar(self, op: Operation, env: Env, ctx: dict[str, int]) -> None:
        if type(op) in HARDWARE_IDS:
            env[op.results[0]] = ctx[HARDWARE_IDS[type(op)]]  # type: ignore[index]
        elif isinstance(op, arith.ConstantOp):
            env[op.result] = scalar(op.value.value.data, op.result.type)  # type: ignore[union-attr]
        elif isinstance(op, memref.LoadOp):
            flat = env[op.memref]
            at = checked_address(op, flat, op.memref, [env[i] for i in op.indices], 1)
            env[op.res] = scalar(flat[at], op.res.type)
        elif isinstance(op, memref.StoreOp):
            flat = env[op.memref]
            at = checked_address(op, flat, op.memref, [env[i] for i in op.indices], 1)
            flat[at] = env[op.value]
        elif isinstance(op, vector.LoadOp):
            flat = env[op.base]
            width = op.result.type.get_shape()[0]  # type: ignore[attr-defined]
            indices = [env[i] for i in op.indices]
            start = checked_address(op, flat, op.base, indices, width)
            env[op.result] = flat[start : start + width].copy()
        elif isinstance(op, vector.StoreOp):
            flat, packed = env[op.base], env[op.vector]
            indices = [env[i] for i in op.indices]
            start = checked_address(op, flat, op.base, indices, len(packed))
            flat[start : start + len(packed)] = packed
        elif isinstance(op, vector.ExtractOp):
            (k,) = op.static_position.get_values()
            env[op.result] = env[op.vector][k]
        elif isinstance(op, vector.InsertOp):
            (k,) = op.static_position.get_values()
            packed = env[op.dest].copy()
            packed[k] = env[op.source]
            env[op.result] = packed
        elif isinstance(op, vector.BroadcastOp):
            typ = op.vector.type
            width = typ.get_shape()[0]  # type: ignore[attr-defined]
            dtype = numpy_dtype(typ.element_type)  # type: ignore[attr-defined]
            env[op.vector] = np.full(width, env[op.source], dtype=dtype)
        elif isinstance(op, memref.GetGlobalOp):
            global_op = self.globals[op.name_.root_reference.data]
            typ = global_op.type
            attr = global_op.initial_value
            assert isinstance(attr, DenseIntOrFPElementsAttr)
            env[op.memref] = np.array(
                attr.get_values(), dtype=numpy_dtype(typ.element_type)
            )
        elif isinstance(op, arith.CmpfOp | arith.CmpiOp):
            table = (
                arith.CMPF_COMPARISON_OPERATIONS
                if isinstance(op, arith.CmpfOp)
                else arith.CMPI_COMPARISON_OPERATIONS
            )
            predicate = table[op.predicate.value.data]
            env[op.result] = bool(PREDICATES[predicate](env[op.lhs], env[op.rhs]))
        elif isinstance(op, CASTS):
            source, target = env[op.operands[0]], op.results[0].type
            if isinstance(target, IntegerType) and target.width.data == 1:
                env[op.results[0]] = bool(source)
            else:
                env[op.results[0]] = scalar(source, target)
        elif type(op) in SCALAR:
            result = SCALAR[type(op)](*(env[o] for o in op.operands))
            env[op.results[0]] = scalar(result, op.results[0].type)
        else:
            raise NotImplementedError(f"emulator: kernel op {op.name}")
