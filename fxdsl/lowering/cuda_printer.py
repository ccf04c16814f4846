"""`-t cuda`: CUDA C for every `gpu.module` (the output of
`convert-graph-to-gpu`).

A `singledispatchmethod` visitor in the style of xDSL's WGSL printer; ops that
differ only in their C operator or function come from tables (`BINARY`,
`CALLS`, `PREDICATES`), as tinygrad's C-style renderer does. Every SSA value
is one local variable (`v<n>`), so each op prints one statement.

* Kernels are `extern "C" __global__ void <name>(T* __restrict__ ...)`;
  arguments the kernel never stores to are `const`. A memref argument is a
  pointer to its element type; loads and stores index it through the static
  strided layout of its type (`offset + sum(i_d * stride_d)`).
* f16/bf16 are `__half`/`__nv_bfloat16` in memory; arithmetic is f32.
* `gpu.all_reduce` (block-wide, its combiner is the arith op in its region)
  calls a generated `fx_block_reduce_<kind>_<type>` helper: warp shuffles
  (`__shfl_xor_sync`) plus one `__shared__` slot per warp, no atomics. It
  needs `blockDim.x` to be a multiple of 32, which the lowering guarantees.
* A non-splat constant of a kernel is a `__device__ const` array; a float
  one holds its values' bits (NVRTC refuses a conversion call or FX_INF in
  its initializer).
* A kernel marked `fxdsl.flash_attention` prints as the tensor-core
  kernel of `flash_attention_cuda`, not as its body (which is the IR
  emulator's form of the same attention).
* A kernel with `nvvm.minctasm = M` (and `gpu.known_block_size`, N threads)
  gets `__launch_bounds__(N, M)`: ptxas caps its registers so that M blocks
  fit on one SM. Kernels without it leave the choice to ptxas (even a bare
  `__launch_bounds__(N)` changes its allocation).
"""

from __future__ import annotations

import math as pymath
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from functools import singledispatchmethod
from typing import IO

from xdsl.context import Context
from xdsl.dialects import arith, gpu, math, memref, scf, vector
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.target import Target

from fxdsl.ir.dtypes import float_bits
from fxdsl.ir.layout import layout_of_type
from fxdsl.lowering.async_copy import ASYNC_COPY_CUDA
from fxdsl.lowering.combiners import REDUCE_KINDS, combiner, identity
from fxdsl.lowering.flash_attention_cuda import (
    FLASH_ATTR,
    FLASH_HELPERS,
    flash_attention_source,
)
from fxdsl.lowering.tensor_core import TENSOR_CORE_CUDA

MIN_BLOCKS_ATTR = "nvvm.minctasm"
"""gpu.func attribute: blocks that must fit on one SM (upstream NVVM's name)."""

BINARY: dict[type[Operation], str] = {
    arith.AddfOp: "+", arith.SubfOp: "-", arith.MulfOp: "*", arith.DivfOp: "/",
    arith.AddiOp: "+", arith.SubiOp: "-", arith.MuliOp: "*", arith.DivUIOp: "/",
    arith.RemUIOp: "%", arith.DivSIOp: "/", arith.RemSIOp: "%",
    arith.AndIOp: "&", arith.OrIOp: "|", arith.XOrIOp: "^",
    arith.ShRSIOp: ">>",
}  # fmt: skip
"""arith op -> C infix operator (operands of one type)."""

WRAPPING = (arith.AddiOp, arith.SubiOp, arith.MuliOp)
"""Integer ops that wrap around in torch (two's complement) where C's signed
overflow is undefined: on `int` and `long long` data they compute in the
unsigned type and convert back. `index` arithmetic stays signed (addresses
never overflow, and the compiler's range analysis relies on it)."""

CALLS: dict[type[Operation], str] = {
    math.ExpOp: "expf", math.Exp2Op: "exp2f", math.LogOp: "logf", math.SqrtOp: "sqrtf",
    math.RsqrtOp: "rsqrtf", math.TanhOp: "tanhf", math.ErfOp: "erff",
    math.SinOp: "sinf", math.CosOp: "cosf", math.AbsFOp: "fabsf",
    math.PowFOp: "powf", math.AbsIOp: "fx_absi", math.IPowIOp: "fx_ipowi",
    math.TanOp: "tanf", math.AcosOp: "acosf", math.AsinOp: "asinf",
    math.AtanOp: "atanf", math.SinhOp: "sinhf", math.CoshOp: "coshf",
    math.AsinhOp: "asinhf", math.AcoshOp: "acoshf", math.AtanhOp: "atanhf",
    math.Log2Op: "log2f", math.Log10Op: "log10f", math.TruncOp: "truncf",
    math.Atan2Op: "atan2f", math.CopySignOp: "copysignf", math.FmaOp: "fmaf",
    arith.MaximumfOp: "fx_maximumf", arith.MinimumfOp: "fx_minimumf",
    arith.MaxSIOp: "fx_max", arith.MinSIOp: "fx_min",
    arith.FloorDivSIOp: "fx_floordivsi", arith.ShLIOp: "fx_shl",
}  # fmt: skip
"""op -> C function of its operands (f32 math, or a helper of `PRELUDE`)."""

BITCASTS: dict[tuple[str, str], str] = {
    ("float", "int"): "__float_as_int",
    ("int", "float"): "__int_as_float",
}
"""(source, target) C type -> the intrinsic reinterpreting its bits."""

PREDICATES: dict[str, str] = {
    "oeq": "==", "une": "!=", "olt": "<", "ole": "<=", "ogt": ">", "oge": ">=",
    "eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=",
    "ult": "<", "ule": "<=", "ugt": ">", "uge": ">=",
}  # fmt: skip
"""cmpf/cmpi predicate -> C comparison (u* predicates compare unsigned)."""

PRELUDE = r"""// Generated by fxdsl (-t cuda). Do not edit.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define FX_INF __int_as_float(0x7f800000)
#define FX_NAN __int_as_float(0x7fc00000)

// numpy semantics: maximum/minimum propagate NaN (fmaxf would drop it)
__device__ __forceinline__ float fx_maximumf(float a, float b) {
  return (a > b || a != a) ? a : b;
}
__device__ __forceinline__ float fx_minimumf(float a, float b) {
  return (a < b || a != a) ? a : b;
}
#define FX_DEVICE __device__ __forceinline__
template <typename T> FX_DEVICE T fx_max(T a, T b) { return a > b ? a : b; }
template <typename T> FX_DEVICE T fx_min(T a, T b) { return a < b ? a : b; }
template <typename T> FX_DEVICE T fx_absi(T a) { return a < 0 ? -a : a; }
// a left shift in unsigned arithmetic (a negative value's is undefined in C),
// wrapped back to T; the amount is already in [0, width)
template <typename T> FX_DEVICE T fx_shl(T a, T b) {
  return (T)((unsigned long long)a << b);
}
template <typename T> __device__ __forceinline__ T fx_floordivsi(T a, T b) {
  T q = a / b;
  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}
// Integer pow by squaring in unsigned arithmetic: it wraps, as torch's does,
// where signed overflow is undefined; the base is squared only while
// exponent bits remain (cuda-sim's UBSan found the extra squaring). A
// negative exponent gives torch's: 1 for a base of 1, +-1 for -1, else 0.
template <typename T> __device__ __forceinline__ T fx_ipowi(T base, T exp) {
  if (exp < 0) return base == 1 ? 1 : base == -1 ? ((exp & 1) ? -1 : 1) : 0;
  unsigned long long b = (unsigned long long)base, result = 1;
  for (; exp > 0; exp >>= 1) {
    if (exp & 1) result *= b;
    if (exp > 1) b *= b;
  }
  return (T)result;
}
"""


def c_type(typ: Attribute) -> str:
    """The C type of a scalar MLIR type."""
    if isinstance(typ, Float32Type):
        return "float"
    if isinstance(typ, Float16Type):
        return "__half"
    if isinstance(typ, BFloat16Type):
        return "__nv_bfloat16"
    if isinstance(typ, Float64Type):
        return "double"
    if isinstance(typ, IndexType):
        return "long long"
    if (
        isinstance(typ, VectorType)
        and typ.get_shape() == (4,)
        and isinstance(typ.element_type, Float32Type)
    ):
        return "float4"
    if isinstance(typ, IntegerType):
        width = typ.width.data
        return {1: "bool", 8: "signed char", 16: "short", 32: "int", 64: "long long"}[
            width
        ]
    raise DiagnosticException(f"-t cuda: no C type for {typ}")


def block_reduce_helper(kind: str, typ: Attribute) -> str:
    """Block-wide reduction: warp shuffles, one shared slot per warp, shuffles
    (combination and identity from `fxdsl.lowering.combiners`)."""
    combine = combiner(kind, typ).c
    ctype = c_type(typ)
    suffix = ctype.replace(" ", "")
    return f"""
__device__ __forceinline__ {ctype} fx_warp_reduce_{kind}_{suffix}({ctype} v) {{
  for (int o = 16; o > 0; o >>= 1) {{
    {ctype} a = v, b = __shfl_xor_sync(0xffffffffu, v, o);
    v = {combine};
  }}
  return v;
}}
__device__ {ctype} fx_block_reduce_{kind}_{suffix}({ctype} v) {{
  __shared__ {ctype} partial[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int warps = (blockDim.x + 31) >> 5;
  v = fx_warp_reduce_{kind}_{suffix}(v);
  __syncthreads();  // the previous reduction has read `partial`
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = lane < warps ? partial[lane] : {literal(identity(kind, typ), typ)};
  return fx_warp_reduce_{kind}_{suffix}(v);
}}
"""


def literal(value: float | int, typ: Attribute) -> str:
    """A C literal of `typ`."""
    if isinstance(typ, AnyFloat):
        number = float(value)
        if pymath.isnan(number):
            text = "FX_NAN"
        elif pymath.isinf(number):
            text = "FX_INF" if number > 0 else "-FX_INF"
        else:
            text = repr(number) + ("f" if isinstance(typ, Float32Type) else "")
        if isinstance(typ, Float16Type | BFloat16Type):
            convert = (
                "__float2half" if isinstance(typ, Float16Type) else "__float2bfloat16"
            )
            return f"{convert}({literal(number, Float32Type())})"
        return text
    if isinstance(typ, IntegerType) and typ.width.data == 1:
        return "true" if value else "false"
    suffix = "LL" if c_type(typ) == "long long" else ""
    if isinstance(typ, IntegerType) and int(value) == -(2 ** (typ.width.data - 1)):
        # C has no negative literals: -2147483648 is long, not int
        return f"({int(value) + 1}{suffix} - 1)"
    return f"{int(value)}{suffix}"


_BITS_CTYPES = {2: ("unsigned short", 4, ""), 4: ("unsigned int", 8, "u")}
_BITS_CTYPES[8] = ("unsigned long long", 16, "ULL")


def _float_bits(values: Sequence[float], typ: Attribute) -> tuple[str, str]:
    """The unsigned C type of `typ`'s width and `values`' bits in it, as a
    C initializer list (exact, and a constant expression for inf and NaN)."""
    bits = float_bits(values, typ)
    ctype, digits, suffix = _BITS_CTYPES[bits.dtype.itemsize]
    return ctype, ", ".join(f"0x{int(b):0{digits}x}{suffix}" for b in bits)


def _convert(value: str, source: Attribute, target: Attribute) -> str:
    """C conversion between scalar types (f16/bf16 through their intrinsics)."""
    if isinstance(source, Float16Type):
        value, source = f"__half2float({value})", Float32Type()
    elif isinstance(source, BFloat16Type):
        value, source = f"__bfloat162float({value})", Float32Type()
    if isinstance(target, Float16Type):
        return f"__float2half_rn((float)({value}))"
    if isinstance(target, BFloat16Type):
        return f"__float2bfloat16_rn((float)({value}))"
    return f"({c_type(target)})({value})"


@dataclass
class CudaPrinter:
    """Renders the `gpu.module`s of a module as one CUDA C translation unit."""

    lines: list[str] = field(default_factory=list[str])
    names: dict[SSAValue, str] = field(default_factory=dict[SSAValue, str])
    helpers: dict[str, str] = field(default_factory=dict[str, str])
    indent: int = 0
    only: Collection[str] | None = None
    """Print only these kernels (with the prelude, helpers and globals)."""

    def render(self, module: ModuleOp) -> str:
        kernels = [op for op in module.walk() if isinstance(op, gpu.ModuleOp)]
        if not kernels and any(op.name.startswith("graph.") for op in module.walk()):
            raise DiagnosticException(
                "-t cuda: the module has no gpu.module; run convert-graph-to-gpu first"
            )
        if not kernels:
            # lowered, and nothing needs a kernel (`return %x`, GEMMs only)
            return PRELUDE + "\n// no kernels: this module needs none\n"
        for kernel_module in kernels:
            self.print(kernel_module)
        body = "\n".join(self.lines)
        return PRELUDE + "".join(self.helpers.values()) + "\n" + body + "\n"

    # --- helpers ------------------------------------------------------------

    def wanted(self, kernel: gpu.FuncOp) -> bool:
        return self.only is None or kernel.sym_name.data in self.only

    def line(self, text: str) -> None:
        self.lines.append("  " * self.indent + text)

    def name(self, value: SSAValue) -> str:
        if value not in self.names:
            self.names[value] = f"v{len(self.names)}"
        return self.names[value]

    def define(self, op: Operation, expression: str) -> None:
        result = op.results[0]
        self.line(f"{c_type(result.type)} {self.name(result)} = {expression};")

    def address(self, buffer: SSAValue, indices: tuple[SSAValue, ...]) -> str:
        assert isinstance(buffer.type, MemRefType)
        layout = layout_of_type(buffer.type)  # type: ignore[arg-type]
        terms = [str(layout.offset)] if layout.offset else []
        for index, stride, size in zip(indices, layout.strides, layout.shape):
            if size == 1 or stride == 0:
                continue  # the index is always 0 or does not move
            name = self.name(index)
            terms.append(name if stride == 1 else f"{name} * {stride}LL")
        return f"{self.name(buffer)}[{' + '.join(terms) or '0'}]"

    def body(self, block: Block) -> None:
        self.indent += 1
        for op in block.ops:
            self.print(op)
        self.indent -= 1

    # --- ops ----------------------------------------------------------------

    @singledispatchmethod
    def print(self, op: Operation) -> None:
        if type(op) in BINARY:
            lhs, rhs = (self.name(o) for o in op.operands)
            typ = op.results[0].type
            ctype = c_type(typ)
            wraps = type(op) in WRAPPING and isinstance(typ, IntegerType)
            if wraps and ctype in ("int", "long long"):  # as torch: two's complement
                unsigned = f"unsigned {ctype}"
                lhs, rhs = f"({unsigned}){lhs}", f"({unsigned}){rhs}"
                self.define(op, f"({ctype})({lhs} {BINARY[type(op)]} {rhs})")
                return
            self.define(op, f"{lhs} {BINARY[type(op)]} {rhs}")
        elif type(op) in CALLS:
            self.define(
                op, f"{CALLS[type(op)]}({', '.join(self.name(o) for o in op.operands)})"
            )
        else:
            raise DiagnosticException(f"-t cuda: cannot print {op.name}")

    @print.register
    def _(self, op: gpu.ModuleOp) -> None:
        for inner in op.body.block.ops:
            if isinstance(inner, gpu.FuncOp) and not self.wanted(inner):
                continue
            self.print(inner)

    @print.register
    def _(self, op: memref.GlobalOp) -> None:
        value = op.initial_value
        assert isinstance(value, DenseIntOrFPElementsAttr)
        assert isinstance(op.type, MemRefType)
        element = op.type.element_type
        values = value.get_values()
        size = max(1, len(values))
        ctype = c_type(element)
        if isinstance(element, AnyFloat):
            # A float array holds its values' bits: `__float2bfloat16(x)` or
            # FX_INF (`__int_as_float(...)`) in an initializer is dynamic
            # initialization, which NVRTC refuses for a `__device__`
            # variable (`memref.get_global` casts the pointer back).
            ctype, data = _float_bits(values, element)
        else:
            data = ", ".join(literal(v, element) for v in values)
        self.line(f"__device__ const {ctype} {op.sym_name.data}[{size}] = {{{data}}};")

    @print.register
    def _(self, op: gpu.FuncOp) -> None:
        if FLASH_ATTR in op.attributes:  # its body is the emulator's form
            self.helpers.setdefault("tensor_core", TENSOR_CORE_CUDA)
            if "pipelined" in op.attributes[FLASH_ATTR].data:  # type: ignore[attr-defined]
                self.helpers.setdefault("async_copy", ASYNC_COPY_CUDA)
            self.helpers.setdefault("flash_attention", FLASH_HELPERS)
            self.lines.extend(flash_attention_source(op, c_type).splitlines())
            return
        # names restart per kernel: a kernel's text does not depend on its neighbours
        self.names = {arg: f"arg{k}" for k, arg in enumerate(op.body.block.args)}
        params: list[str] = []
        for arg in op.body.block.args:
            assert isinstance(arg.type, MemRefType), "kernel arguments are buffers"
            stored = any(
                isinstance(u.operation, memref.StoreOp | vector.StoreOp)
                for u in arg.uses
            )
            const = "" if stored else "const "
            params.append(
                f"{const}{c_type(arg.type.element_type)}* __restrict__ {self.name(arg)}"
            )
        self.line("")
        self.line(
            f'extern "C" __global__ {_launch_bounds(op)}void '
            f"{op.sym_name.data}({', '.join(params)}) {{"
        )
        self.body(op.body.block)
        self.line("}")

    @print.register
    def _(self, op: gpu.ReturnOp) -> None:
        self.line("return;")

    @print.register
    def _(self, op: arith.ConstantOp) -> None:
        value = op.value
        self.define(op, literal(value.value.data, op.result.type))  # type: ignore[union-attr]

    @print.register
    def _(self, op: arith.NegfOp) -> None:
        self.define(op, f"-{self.name(op.operand)}")

    @print.register
    def _(self, op: arith.CmpfOp | arith.CmpiOp) -> None:
        predicate = op.predicate.value.data
        key = (arith.CMPF_COMPARISON_OPERATIONS if isinstance(op, arith.CmpfOp)
               else arith.CMPI_COMPARISON_OPERATIONS)[predicate]  # fmt: skip
        lhs, rhs = self.name(op.lhs), self.name(op.rhs)
        if key.startswith("u") and key != "une":
            lhs, rhs = f"(unsigned long long)({lhs})", f"(unsigned long long)({rhs})"
        self.define(op, f"{lhs} {PREDICATES[key]} {rhs}")

    @print.register
    def _(self, op: arith.SelectOp) -> None:
        cond, lhs, rhs = (self.name(o) for o in op.operands)
        self.define(op, f"{cond} ? {lhs} : {rhs}")

    @print.register
    def _(
        self,
        op: arith.ExtFOp | arith.TruncFOp | arith.SIToFPOp | arith.UIToFPOp
        | arith.FPToSIOp | arith.ExtSIOp | arith.ExtUIOp | arith.TruncIOp
        | arith.IndexCastOp,
    ) -> None:  # fmt: skip
        source = op.operands[0]
        self.define(op, _convert(self.name(source), source.type, op.results[0].type))

    @print.register
    def _(self, op: arith.BitcastOp) -> None:
        # CUDA's reinterpreting intrinsics; the other widths are no kernel types
        source, target = c_type(op.operands[0].type), c_type(op.results[0].type)
        intrinsic = BITCASTS[(source, target)]
        self.define(op, f"{intrinsic}({self.name(op.operands[0])})")

    @print.register
    def _(self, op: memref.LoadOp) -> None:
        self.define(op, self.address(op.memref, tuple(op.indices)))

    @print.register
    def _(self, op: memref.StoreOp) -> None:
        self.line(
            f"{self.address(op.memref, tuple(op.indices))} = {self.name(op.value)};"
        )

    @print.register
    def _(self, op: vector.LoadOp) -> None:
        ctype = c_type(op.result.type)
        address = self.address(op.base, tuple(op.indices))
        self.define(op, f"*reinterpret_cast<const {ctype}*>(&{address})")

    @print.register
    def _(self, op: vector.StoreOp) -> None:
        ctype = c_type(op.vector.type)
        address = self.address(op.base, tuple(op.indices))
        self.line(f"*reinterpret_cast<{ctype}*>(&{address}) = {self.name(op.vector)};")

    @print.register
    def _(self, op: vector.ExtractOp) -> None:
        self.define(op, f"{self.name(op.vector)}.{_lane(op.static_position)}")

    @print.register
    def _(self, op: vector.InsertOp) -> None:
        self.define(op, self.name(op.dest))
        self.line(
            f"{self.name(op.result)}.{_lane(op.static_position)} = "
            f"{self.name(op.source)};"
        )

    @print.register
    def _(self, op: vector.BroadcastOp) -> None:
        source = self.name(op.source)
        self.define(op, f"make_float4({source}, {source}, {source}, {source})")

    @print.register
    def _(self, op: memref.GetGlobalOp) -> None:
        assert isinstance(op.memref.type, MemRefType)
        ctype = c_type(op.memref.type.element_type)
        symbol = op.name_.root_reference.data
        if isinstance(op.memref.type.element_type, AnyFloat):  # held as bits
            symbol = f"reinterpret_cast<const {ctype}*>({symbol})"
        self.line(f"const {ctype}* {self.name(op.memref)} = {symbol};")

    @print.register
    def _(
        self, op: gpu.ThreadIdOp | gpu.BlockIdOp | gpu.BlockDimOp | gpu.GridDimOp
    ) -> None:
        builtin = {
            gpu.ThreadIdOp: "threadIdx", gpu.BlockIdOp: "blockIdx",
            gpu.BlockDimOp: "blockDim", gpu.GridDimOp: "gridDim",
        }[type(op)]  # fmt: skip
        self.define(op, f"(long long){builtin}.{op.dimension.data.value}")

    @print.register
    def _(self, op: gpu.AllReduceOp) -> None:
        combine = op.body.block.first_op
        kind = REDUCE_KINDS.get(type(combine)) if combine is not None else None
        if kind is None:
            raise DiagnosticException("-t cuda: gpu.all_reduce combiner not supported")
        typ = op.result.type
        helper = f"fx_block_reduce_{kind}_{c_type(typ).replace(' ', '')}"
        self.helpers.setdefault(helper, block_reduce_helper(kind, typ))
        self.define(op, f"{helper}({self.name(op.operand)})")

    @print.register
    def _(self, op: scf.ForOp) -> None:
        block = op.body.block
        for result, init, carried in zip(op.results, op.iter_args, block.args[1:]):
            self.names[carried] = self.name(result)
            self.line(f"{c_type(result.type)} {self.name(result)} = {self.name(init)};")
        iv = self.name(block.args[0])
        lb, ub, step = (self.name(v) for v in (op.lb, op.ub, op.step))
        self.line(f"for (long long {iv} = {lb}; {iv} < {ub}; {iv} += {step}) {{")
        self.body(block)
        self.line("}")

    @print.register
    def _(self, op: scf.IfOp) -> None:
        for result in op.results:
            self.line(f"{c_type(result.type)} {self.name(result)};")
        self.line(f"if ({self.name(op.cond)}) {{")
        self.body(op.true_region.block)
        if op.false_region.blocks:
            self.line("} else {")
            self.body(op.false_region.block)
        self.line("}")

    @print.register
    def _(self, op: scf.YieldOp) -> None:
        parent = op.parent_op()
        assert parent is not None
        values = [self.name(v) for v in op.operands]
        targets = [self.name(r) for r in parent.results]
        if len(values) > 1:  # parallel assignment through temporaries
            for k, (value, result) in enumerate(zip(values, parent.results)):
                self.line(f"{c_type(result.type)} t{k} = {value};")
            values = [f"t{k}" for k in range(len(values))]
        for target, value in zip(targets, values):
            if target != value:
                self.line(f"{target} = {value};")


def _launch_bounds(kernel: gpu.FuncOp) -> str:
    """`__launch_bounds__(threads, min blocks) ` of a kernel with
    `nvvm.minctasm`, else nothing."""
    min_blocks = kernel.attributes.get(MIN_BLOCKS_ATTR)
    if min_blocks is None:
        return ""
    block = kernel.known_block_size
    if not isinstance(min_blocks, IntegerAttr) or block is None:
        raise DiagnosticException(
            f"-t cuda: kernel {kernel.sym_name.data}: {MIN_BLOCKS_ATTR} needs an "
            "integer value and gpu.known_block_size"
        )
    threads = pymath.prod(block.get_values())
    return f"__launch_bounds__({threads}, {min_blocks.value.data}) "


def _lane(position: DenseArrayBase) -> str:
    """The float4 member of a static one-dimensional vector position."""
    (k,) = position.get_values()
    return "xyzw"[k]


def kernel_source(module: ModuleOp, kernels: Collection[str] | None = None) -> str:
    """The CUDA C of every `gpu.module` in `module` (what `-t cuda` prints);
    with `kernels`, only those `gpu.func`s (the runtime compiles a kernel
    alone to find one that fails, then the others without it)."""
    return CudaPrinter(only=kernels).render(module)


@dataclass(frozen=True)
class CudaTarget(Target):
    """CUDA C of the `gpu.module`s produced by `convert-graph-to-gpu`."""

    name = "cuda"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(kernel_source(module))
