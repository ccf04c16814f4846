"""Cases in the manner of PyTorch Inductor's CPU regression suite
(`test/inductor/test_cpu_repro.py`, class `CPUReproTests`), run through
`torch.compile(fn, backend="fxdsl", options={"min_block_size": 1})` and
compared with eager.

Each test there is a small program that once broke a CPU compiler: odd
dtypes (uint8, int8, bool, int32/int64, uint32/uint64, float64,
bfloat16/float16, float8), type promotion and `to(dtype)` round trips,
reductions with vector tails, index arithmetic and masked loads, `where`
and `masked_fill` with infinities and NaN, argmax/argmin with NaN and ties,
scatter with duplicate indices, embedding, pooling, convolutions and
linears with bias, LSTM, group and layer norm, softmax and attention on
non-contiguous inputs, `as_strided`/expanded/channels-last inputs, 0-d and
zero-size tensors, extreme values. Here each becomes a row of a table: a
function and a factory for its arguments. The function runs once in eager
and twice compiled (the second call reuses the compiled graph), each time
on arguments made afresh from the same seed, under `torch.no_grad()` as
most of the originals do. Every output and every argument afterwards (an
input mutated in place, a module's parameters and buffers) must match
eager's: integers and booleans exactly, floats within a tolerance with NaNs
equal, and bfloat16/float16 values within 1e-2.

The bodies are restated, not copied, and mostly made smaller (the CPU
islands run on fxdsl's numpy reference interpreter); where a test looped
over dtypes or shapes, the loop became several rows or one row with
several arguments. Three rows at the end (embedding_bag, cumsum over
small integer dtypes, tie-breaking in argmax/argmin/max/min) cover what
the suite's history fixed but the current file no longer tests. A row whose graph went to torch whole still passes,
with a warning naming it (`pytest -rw` lists them): fxdsl did not run it.

Not ported, and why:
- Inductor internals: generated C++ checked with FileCheck or
  `run_and_get_cpp_code`, vector-kernel and fusion metrics counters,
  `cpp.simdlen`/ISA selection and `cpu_vec_isa`, `config.patch` knobs
  (tiling heuristics, outer-loop fusion, local buffers, horizontal fusion,
  `cpp.dynamic_threads`, `inplace_buffers`, `disable_cpp_codegen`,
  `emulate_precision_casts`), `test_operators.realize`, IR node printing,
  realization thresholds, `CppOverrides` co-simulation, kernel profiling,
  OpenMP thread counts: the *programs* of many such tests are kept, their
  checks on Inductor's code are not.
- oneDNN/MKL and AMX packed-weight paths, `freezing`, the C++ wrapper and
  AOTInductor: their programs (packed linear, packed conv, packed LSTM) are
  kept as plain modules, the packing checks are not.
- Quantization pattern fusion (`quantized_decomposed` dequant/quant chains
  checked for fused kernels, the PT2E quantized `add_layernorm`); the plain
  arithmetic versions of dequant-relu-quant and fake quantization are kept.
- Random ops (dropout, rrelu in training, gumbel_softmax, randn/rand/
  randint, `normal`, sdpa with dropout): fxdsl's numbers differ from torch's
  by design (`fallback_random`).
- Dynamic shapes and unbacked SymInts (`dynamic=True`, `mark_dynamic`,
  `capture_scalar_outputs`, recompiles on new sizes), backward passes and
  `torch.func.grad`/`vjp`, meta-device tensors, and the tests whose point is
  an error eager raises too (bad dropout args, invalid conv-transpose output
  padding, out-of-range index of an empty tensor, slice_scatter shape
  errors).
- Sizes far beyond what a reference interpreter should run in a unit test
  (30000x100000 means, 9216x9216 transposes, 2x64x168x168 group norms,
  1x32x128x128x128): these keep their shape of computation at smaller sizes
  that still cross the original edge (vector tails, chunked summation).
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable
from typing import Any

import pytest

from fxdsl.testing.optional import need
from fxdsl.testing.peer_cases import Case, case, compare_with_eager, warn_whole_graphs

torch = need("torch")

import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_dynamo")

aten = torch.ops.aten
SEED = 2024
INF, NAN = float("inf"), float("nan")
LOWP = {"atol": 1e-2, "rtol": 1e-2}  # the least tolerance of float16/bfloat16
OPTIONS = {"min_block_size": 1}

# What the port found, each now fixed (the cases that show it):
# `halo_attention_as_strided_channels_last`: an as_strided of a non-dense
# view ran in torch on an island's dense copy of that view (its strides read
# the wrong elements); `lstm_bidirectional_batch_first_two_layers`:
# mkldnn_rnn_layer ran in torch on a permuted view where the graph had a
# contiguous clone; `conv_weight_masked_in_place`: `weight.data *= mask` in
# a forward failed in AOTAutograd (a set_ beside other writes of one input).


def rn(*shape: int, dtype: Any = torch.float32) -> Any:
    return torch.randn(shape, dtype=dtype)


def ri(low: int, high: int, *shape: int, dtype: Any = torch.int64) -> Any:
    return torch.randint(low, high, shape, dtype=dtype)


def _built(factory: Callable[[], Any]) -> Any:
    """A module made once, from a fixed seed, leaving the global generator
    as it was; `eval()` unless the factory says otherwise."""
    with torch.random.fork_rng():
        torch.manual_seed(SEED)
        return factory()


def _seeded(factory: Callable[[], Any]) -> Any:
    """A module made afresh from a fixed seed, for a row whose forward
    changes the module's state (it travels as an argument)."""
    torch.manual_seed(SEED + 1)
    return factory()


# --------------------------------------------------------------------------
# dtypes, conversions and pointwise edge values


def _dequant_relu_quant(x: Any, lo: int, hi: int, dtype: Any) -> Any:
    scale, zero = 0.01, 100
    y = torch.relu((x.to(torch.float32) - zero) * scale)
    return torch.clamp(torch.round(y * (1.0 / scale)) + zero, lo, hi).to(dtype)


def _quantish(lo: int, hi: int, dtype: Any) -> Callable[[], tuple[Any, ...]]:
    return lambda: (torch.clamp(rn(1, 7, 7, 9) * 100, lo, hi).to(dtype),)


def _acosh_inputs(dtype: Any) -> Callable[[], tuple[Any, ...]]:
    row = [-8493.9854, 431654.125, 71741.5859, 608234.5, -103814.75]
    row += [-699397.0, -910685.8125, -832737.1875, 875343.5]
    return lambda: (torch.tensor([row]).repeat(3, 9).to(dtype),)


def _asinh_inputs(dtype: Any) -> Callable[[], tuple[Any, ...]]:
    return lambda: (torch.tensor([0.0, 0.0, 0.0, -10000.1]).repeat(3, 4).to(dtype),)


def _huge_asinh() -> tuple[Any, ...]:
    row = [-1e30, 1e30, -5e28, 5e28, -7.5e29, 7.5e29, -2e30, 2e30, 0.0]
    return (torch.tensor([row]).repeat(3, 1),)


def _shift_pairs(dtypes: tuple[Any, ...]) -> Callable[[], tuple[Any, ...]]:
    def make() -> tuple[Any, ...]:
        out: list[Any] = []
        for dtype in dtypes:
            info = torch.iinfo(dtype)
            out.append(ri(max(info.min, -1000), min(info.max, 1000), 64, dtype=dtype))
            out.append(ri(0, info.bits, 64, dtype=dtype))
        return tuple(out)

    return make


def _bitwise_all(x: Any, y: Any) -> Any:
    res = [x & y, x | y, x ^ y, ~x]
    if x.dtype != torch.bool:
        res += [x << (y.abs() % 5), x >> (y.abs() % 5)]
    return tuple(res)


def _bitwise_inputs(*dtypes: Any) -> Callable[[], tuple[Any, ...]]:
    def make() -> tuple[Any, ...]:
        out = []
        for dtype in dtypes:
            if dtype == torch.bool:
                out += [rn(64) > 0, rn(64) > 0]
            else:
                info = torch.iinfo(dtype)
                out += [ri(info.min, info.max, 64, dtype=dtype) for _ in range(2)]
        return tuple(out)

    return make


def _shift_edges(a: Any, s: Any, b: Any, t: Any) -> Any:
    # shift counts of the full width and beyond, and negative ones, as torch
    # defines them: 0 (left) or the sign fill (right)
    return a << s, a >> s, b << t, b >> t, a >> (s - 40), b << (t - 70)


def _shift_edge_inputs() -> tuple[Any, ...]:
    a = ri(-1000, 1000, 32, dtype=torch.int32)
    b = ri(-(2**40), 2**40, 32)
    return a, ri(0, 40, 32, dtype=torch.int32), b, ri(0, 70, 32)


def _logical_as_float(x: Any, y: Any) -> Any:
    return (
        torch.where(torch.logical_and(x, y), 1.0, 0.0),
        torch.where(torch.logical_or(x, y), 1.0, 0.0),
        torch.where(torch.logical_xor(x, y), 1.0, 0.0),
        torch.where(torch.logical_not(x), 1.0, 0.0),
    )


def _compare_on_masks(a: Any, b: Any) -> Any:
    p, q = a > 1, b > 1
    return (
        torch.bitwise_and(p, q),
        torch.bitwise_or(p, q),
        torch.bitwise_xor(p, q),
        torch.logical_and(p, q),
        torch.logical_or(p, q),
        torch.logical_xor(p, q),
    )


def _compare_chain(x: Any) -> Any:
    x = torch.where(torch.eq(x, 1.0), x, -x)
    x = torch.where(torch.ne(x, 0.0), x, -x)
    x = torch.where(torch.lt(x, 5.0), x, x - 1.0)
    x = torch.where(torch.gt(x, -2.0), x, x + 1.0)
    x = torch.where(torch.le(x, 8.0), x, x - 1.0)
    x = torch.where(torch.ge(x, -3.0), x, x + 1.0)
    x = torch.where(x == 1.0, x, -x)
    x = torch.where(x != 0.0, x, -x)
    x = torch.where(x < 5.0, x, x - 1.0)
    x = torch.where(x > -2.0, x, x + 1.0)
    x = torch.where(x <= 8.0, x, x - 1.0)
    return torch.where(x >= -3.0, x, x + 1.0)


def _remainder_inputs(*dtypes: Any) -> Callable[[], tuple[Any, ...]]:
    def make() -> tuple[Any, ...]:
        out = []
        for dtype in dtypes:
            if dtype.is_floating_point:
                out += [rn(64, dtype=dtype), rn(64, dtype=dtype)]
            else:
                low = 1 if dtype == torch.uint8 else -100
                x, y = ri(low, 100, 64, dtype=dtype), ri(low, 100, 64, dtype=dtype)
                out += [x, torch.where(y == 0, torch.ones_like(y), y)]
        return tuple(out)

    return make


def _pairwise(op: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    return lambda *xs: tuple(op(x, y) for x, y in zip(xs[::2], xs[1::2]))


def _int_div_modes(*xs: Any) -> Any:
    res = []
    for x, y in zip(xs[::2], xs[1::2]):
        res += [torch.div(x, y), torch.div(x, y, rounding_mode="trunc")]
        res.append(torch.div(x, y, rounding_mode="floor"))
    return tuple(res)


def _int_div_inputs(*dtypes: Any) -> Callable[[], tuple[Any, ...]]:
    def make() -> tuple[Any, ...]:
        out = []
        for dtype in dtypes:
            low = 0 if dtype == torch.uint8 else -100
            out += [ri(low, 100, 32, 32, dtype=dtype), ri(1, 100, 32, 32, dtype=dtype)]
        return tuple(out)

    return make


def _fp16_round_trip(x: Any) -> Any:
    y = x.to(torch.float16).to(torch.float32)
    return y, y.sum(dim=1)


def _fused_fp16_rounding(x: Any, c: Any) -> Any:
    z = torch.where(c, torch.full_like(x, 0.5), torch.full_like(x, -0.5))
    y = z.to(torch.float16) + x.to(torch.float16)
    return y, y.float().sum()


def _fp8_round_trip(x: Any) -> Any:
    return (
        x.to(torch.float8_e4m3fn).to(x.dtype),
        x.to(torch.float8_e5m2).to(x.dtype),
    )


def _to_lowp_from_small_ints(a: Any, b: Any) -> Any:
    return a.to(torch.bfloat16), a.half(), b.to(torch.bfloat16), b.half()


def _square_and_row_sum(*xs: Any) -> Any:
    return tuple(t for x in xs for t in (x * x, x.sum(dim=1)))


def _unsigned_inputs() -> tuple[Any, ...]:
    return ri(0, 100, 37, 37, dtype=torch.uint32), ri(
        0, 100, 37, 37, dtype=torch.uint64
    )


def _vec_kernel_chain(x1: Any, x2: Any) -> Any:
    x = torch.abs(x1)
    x = torch.sin(x)
    x = torch.neg(x)
    x = torch.square(x)
    x = torch.sigmoid(x)
    x = torch.relu(x)
    x = torch.cos(x)
    x = torch.exp(x)
    x = torch.sqrt(x)
    x = torch.add(x, x1)
    x = torch.sub(x, x2)
    x = torch.mul(x, x1)
    x = torch.div(x, x1)
    x = torch.pow(x, 10)
    x = torch.log(x)
    x = torch.floor(x)
    x = torch.ceil(x)
    x = torch.trunc(x)
    x = torch.lgamma(x)
    x = torch.fmod(x, x2)
    x = torch.sign(x)
    return x + x2


def _with_two_nans(dtype: Any) -> Callable[[], tuple[Any, ...]]:
    def make() -> tuple[Any, ...]:
        x = rn(2, 9, dtype=dtype)
        x[0, 0] = NAN
        x[1, -1] = NAN
        return (x,)

    return make


def _special_pows(x: Any) -> Any:
    return aten.pow(x, -INF), aten.pow(x, INF), aten.pow(x, NAN), aten.pow(x.abs(), INF)


def _f16_cat_max_tan(a: Any, b: Any, c: Any, d: Any, e: Any) -> Any:
    cat = torch.cat((d, c, b, a), dim=2)
    scaled = torch.mul(cat, torch.max(e, torch.tensor([1.0879], dtype=torch.float16)))
    return scaled, torch.tan(scaled)


def _f16_cat_inputs() -> tuple[Any, ...]:
    small = [rn(17, 5, 1, 7).half() for _ in range(3)]
    return (
        small[0],
        small[1],
        rn(17, 5, 11, 7).half(),
        small[2],
        torch.tensor(4.39).half(),
    )


def _int8_to_half_matmul(x: Any, x2: Any, x3: Any) -> Any:
    half = x2.to(torch.int32).to(torch.float16)
    return torch.mm(half, x3.to(torch.float16)), half.to(torch.float32) * x


def _atanh_sum(a: Any, b: Any) -> Any:
    return (
        aten.sum(aten.add(aten.atanh(a), b), (2, 3)),
        aten.add(aten.atanh(a), a.float()).to(a.dtype),
    )


def _mixed_lowp(a: Any, b: Any) -> Any:
    return (torch.atanh(a) + b).to(b.dtype), a + b


def _where_of_constant_masks(a: Any) -> Any:
    return torch.where(
        torch.ones_like(a).to(torch.bool), torch.zeros_like(a), torch.ones_like(a) * 2
    ), a * (a >= 0).to(torch.float32)


def _constant_bool_where(x: Any, y: Any) -> Any:
    mask = torch.zeros(1, dtype=torch.bool)
    return torch.where(mask, x, -1.0), torch.where(mask, y, -1.0)


def _tensor_constants(x: Any, y: Any) -> Any:
    return x + y + torch.tensor(1), x[torch.tensor(1) :] * 2


def _long_chain(x: Any) -> Any:
    for _ in range(300):
        x = 1.0 * x
    return x


def _each(op: Callable[[Any], Any]) -> Callable[..., Any]:
    return lambda *xs: tuple(op(x) for x in xs)


def _in_dtypes(
    make: Callable[[Any], Callable[[], tuple[Any, ...]]], *dtypes: Any
) -> Callable[[], tuple[Any, ...]]:
    return lambda: tuple(x for d in dtypes for x in make(d)())


def _uint8_pairs() -> tuple[Any, ...]:
    return ri(0, 255, 3, 3, dtype=torch.uint8), ri(0, 255, 3, 3, dtype=torch.uint8)


def _shift_corners(m1: Any, x: Any, n: Any) -> Any:
    return (
        torch.bitwise_right_shift(m1, 31),
        torch.bitwise_left_shift(x, n),
        torch.bitwise_right_shift(x, n),
        torch.bitwise_right_shift(-x, n),
    )


def _inf_nan_fills(v: Any, m: Any) -> Any:
    return (
        v.masked_fill(m, INF),
        v.masked_fill(m, -INF),
        v.masked_fill(m, NAN),
        torch.where(v > 0, v, math.inf),
        torch.where(v > 0, v, -math.inf),
    )


def _tanh_sign_atan2(a: Any) -> Any:
    t = torch.tanh(a)
    return torch.min(t, torch.sign(t)), torch.atan2(F.tanhshrink(a), F.tanhshrink(a))


def _nan_chains(x: Any, y: Any) -> Any:
    return (
        torch.sign(x),
        torch.sign(y),
        torch.log1p(torch.expm1(torch.erf(x))),
        torch.log1p(torch.expm1(torch.erf(y))),
        torch.sin(torch.cos(torch.erf(x))),
        torch.sin(torch.atan(x)),
    )


def _lowp_pointwise(a: Any, b: Any, c: Any, d: Any) -> Any:
    return (
        aten.mul.Tensor(a, 1.7015043497085571),
        a.neg().abs(),
        c.neg().abs(),
        a * b,
        c * d,
        a.clone(),
        a.relu(),
    )


def _lowp_pointwise_inputs() -> tuple[Any, ...]:
    bf, f16 = torch.bfloat16, torch.float16
    return (
        rn(2, 16, 16, dtype=bf),
        rn(2, 1, 1, dtype=bf),
        rn(2, 16, 16, dtype=f16),
        rn(2, 1, 1, dtype=f16),
    )


def _atanh_and_mixed(a: Any, b: Any, h: Any) -> Any:
    return _atanh_sum(a, b) + _mixed_lowp(h, b)


DTYPES = [
    case("uint8_pow_then_cos", lambda x: torch.cos(x.pow(5)), lambda: (torch.tensor([4, 3, 2, 255], dtype=torch.uint8),)),
    case("uint8_add_sub_neg_to_int32", lambda x, y: (torch.add(x, y).neg().to(torch.int32), torch.sub(x, y).neg().to(torch.int32)), _uint8_pairs),
    case("float_to_uint8_negative_and_halves", _each(lambda x: x.to(torch.uint8)), lambda: (torch.tensor([-1.0, -2.0, -3.0, -4.0, 300.0, 255.5]), torch.tensor([4.4, 4.5, 4.6, 5.5]).repeat_interleave(17))),
    case("dequant_relu_quant_uint8_int8", lambda u, s: (_dequant_relu_quant(u, 0, 255, torch.uint8), _dequant_relu_quant(s, -128, 127, torch.int8)), lambda: _quantish(0, 255, torch.uint8)() + _quantish(-128, 127, torch.int8)()),
    case("relu_of_overflowing_sinh", lambda x: torch.relu(torch.sinh(x)), lambda: (torch.tensor([-572373.5, 755109.125, 330995.5625]),)),
    case("acosh_large_negative", _each(torch.acosh), _in_dtypes(_acosh_inputs, torch.float32, torch.bfloat16, torch.float64)),
    case("asinh_corner_values", _each(torch.asinh), _in_dtypes(_asinh_inputs, torch.float32, torch.bfloat16, torch.float16, torch.float64)),
    case("asinh_inplace_huge_f32", lambda x: x.asinh_(), _huge_asinh),
    case("inf_and_nan_fill_values", _inf_nan_fills, lambda: (rn(2, 17), rn(2, 17) > 0)),
    case("pad_with_nan", lambda x: F.pad(x, (1, 1, 1, 1), value=NAN), lambda: (rn(1, 3, 10, 10),)),
    case("min_of_tanh_sign_and_atan2_self", _tanh_sign_atan2, lambda: (torch.cat([rn(3, 8, 8).flatten(), torch.zeros(4)]),)),
    case("frexp_mantissa_times_exponent", lambda x: (lambda m, e: (m * e, m, e))(*torch.frexp(x)), lambda: (torch.cat([rn(64, 1).flatten(), torch.tensor([0.0, -0.0, INF, 1e-40])]),)),
    case("shift_corners_minus_one_and_64", _shift_corners, lambda: (torch.full((1, 1, 1), -1), torch.tensor(1000), torch.tensor(64))),
    case("view_float_as_int32_then_shift", lambda x: x.view(torch.int32) >> 2, lambda: (rn(16, 16),)),
    case("shift_counts_past_width_and_negative", _shift_edges, _shift_edge_inputs),
    case("shifts_small_ints", _pairwise(lambda x, s: (x << s, x >> s)), _shift_pairs((torch.int8, torch.uint8, torch.int16))),
    case("bitwise_bool", _bitwise_all, _bitwise_inputs(torch.bool)),
    case("bitwise_int_dtypes", lambda *xs: tuple(t for x, y in zip(xs[::2], xs[1::2]) for t in _bitwise_all(x, y)), _bitwise_inputs(torch.int8, torch.uint8, torch.int32, torch.int64)),
    case("logical_ops_to_float", lambda x, y, u, v: _logical_as_float(x, y) + _logical_as_float(u, v), lambda: (rn(64), rn(64) * (rn(64) > 0), rn(64, dtype=torch.bfloat16), rn(64, dtype=torch.bfloat16) * (rn(64) > 0))),
    case("bitwise_and_logical_of_comparisons", _compare_on_masks, lambda: (ri(0, 3, 64), ri(0, 3, 64, dtype=torch.uint8))),
    case("logit_0d_f64_eps_above_half", lambda x, eps: torch.logit(x, eps), lambda: (torch.tensor(0.3, dtype=torch.float64), torch.tensor(0.9, dtype=torch.float64))),
    case("compare_where_chain", _each(_compare_chain), lambda: (torch.cat([rn(2, 9).flatten() * 4, torch.tensor([1.0, 0.0, -0.0, 5.0, -2.0, 8.0, -3.0])]), rn(2, 9, dtype=torch.bfloat16) * 4)),
    case("remainder_int_dtypes", _pairwise(torch.remainder), _remainder_inputs(torch.int8, torch.uint8, torch.int32, torch.int64)),
    case("remainder_float_dtypes", _pairwise(torch.remainder), _remainder_inputs(torch.bfloat16, torch.float16, torch.float32, torch.float64)),
    case("int_div_rounding_modes", _int_div_modes, _int_div_inputs(torch.int8, torch.uint8, torch.int32, torch.int64)),
    case("f32_f16_f32_round_trip", _fp16_round_trip, lambda: (torch.arange(20, dtype=torch.float32).reshape(5, 4).t() / 7.0,)),
    case("fp16_rounding_of_fused_add", _fused_fp16_rounding, lambda: (torch.arange(24, dtype=torch.float32).reshape(2, 3, 4) / 10, (torch.arange(24) % 5 == 0).reshape(2, 3, 4))),
    case("fp8_round_trips", lambda x, y, b: (*_fp8_round_trip(x), *_fp8_round_trip(y), b.to(torch.float8_e4m3fn).float(), b.to(torch.float8_e5m2).float()), lambda: (torch.rand(15, 3, 13) * 4, torch.rand(15, 3, 13, dtype=torch.bfloat16) * 4, rn(64) > 0)),
    case("int8_uint8_to_bf16_f16", _to_lowp_from_small_ints, lambda: (ri(-100, 100, 32, 32, dtype=torch.int8), ri(0, 255, 32, 32, dtype=torch.uint8))),
    case("int_and_float_conversions", lambda a, b, c, d: (a.to(torch.int64), b.to(torch.int32), c.to(torch.int64), d.to(torch.float32)), lambda: (ri(-(2**31), 2**31 - 1, 32, 32, dtype=torch.int32), ri(-(2**40), 2**40, 32, 32), torch.rand(32, 32) * 1e4 - 5e3, ri(-(2**62), 2**62, 32, 32))),
    case("float64_square_sum_and_casts", lambda d, f: (d * d, d.sum(dim=1), f.double(), d.float()), lambda: (rn(37, 37, dtype=torch.float64), rn(37, 37))),
    case("int64_min_through_float32", lambda x: x.to(torch.float32).to(torch.int64), lambda: (torch.full((32,), -(2**63)),)),
    case("int32_int64_square_and_sum_tail", _square_and_row_sum, lambda: (ri(0, 100, 37, 37, dtype=torch.int32), ri(0, 100, 37, 37))),
    case("uint32_uint64_square_and_sum", _square_and_row_sum, _unsigned_inputs),
    case("lowp_scalar_mul_neg_abs_broadcast", _lowp_pointwise, _lowp_pointwise_inputs),
    case("bf16_relu_copied_back_and_tail_add", lambda x, y: ((lambda r: (x.copy_(r), r))(x.relu()), y + (y + y)), lambda: (rn(100, 100, dtype=torch.bfloat16), rn(65, dtype=torch.bfloat16))),
    case("f16_copy_into_input", lambda a, b: a.copy_(b), lambda: (rn(2, 10, dtype=torch.float16), rn(2, 10, dtype=torch.float16))),
    case("lowp_atanh_sum_and_mixed_promotion", _atanh_and_mixed, lambda: (torch.rand(2, 4, 5, 5, dtype=torch.bfloat16) * 1.8 - 0.9, rn(2, 4, 5, 5, dtype=torch.bfloat16), torch.rand(2, 4, 5, 5, dtype=torch.float16) * 1.8 - 0.9)),
    case("pow_by_infinite_and_nan_exponent", _special_pows, lambda: (torch.cat([rn(10), torch.tensor([0.0, -0.0, 1.0, -1.0, 0.5, INF, NAN])]),)),
    case("nan_through_sign_erf_atan", _nan_chains, lambda: _with_two_nans(torch.float32)() + _with_two_nans(torch.bfloat16)()),
    case("long_pointwise_chain_bf16", _vec_kernel_chain, lambda: (rn(5, 20, dtype=torch.bfloat16), rn(5, 20, dtype=torch.bfloat16))),
    case("long_pointwise_chain_permuted", _vec_kernel_chain, lambda: (rn(10, 20).permute(1, 0), rn(20, 10))),
    case("tensor_constants_in_graph", _tensor_constants, lambda: (torch.ones(20), torch.rand(20))),
    case("where_on_constant_masks_and_bool_cast", lambda a, x, y: _where_of_constant_masks(a) + _constant_bool_where(x, y), lambda: (rn(16), torch.rand(1000), torch.rand(31))),
    case("many_multiplications_by_one", _long_chain, lambda: (torch.tensor([1.0, NAN, -0.0]),)),
    case("f16_cat_max_with_constant_tan", _f16_cat_max_tan, _f16_cat_inputs),
    case("int8_to_f16_mm_and_scale", _int8_to_half_matmul, lambda: (rn(5, 32), ri(0, 10, 5, 32, dtype=torch.int8), rn(32, 32))),
]  # fmt: skip

# --------------------------------------------------------------------------
# reductions


def _argmax_argmin_of_log1p(*xs: Any) -> Any:
    return tuple(t for x in xs for t in (torch.argmax(x), torch.argmin(x)))


def _log1p_inputs() -> tuple[Any, ...]:
    rows = ([-755832.125, 100], [-755832.125, 100, 200], [100, -755832.125])
    rows += ([100, 200, -755832.125],)
    return tuple(torch.log1p(torch.tensor(r).repeat(16, 16)) for r in rows)


def _argmax_of_transposed_after_sin_(x: Any) -> Any:
    x = x.clone()
    x.sin_()
    return x.t().argmax()


def _transposed_argmin_argmax_inputs() -> tuple[Any, ...]:
    y = torch.arange(24, dtype=torch.float32).reshape(6, 4)
    y[4, 0] = -100
    y[1, 3] = 100
    return (y,)


def _max_min_of_sum(a: Any, b: Any) -> Any:
    return (a + b).max(dim=-1), (a + b).min(dim=-1)


def _store_amax(*xs: Any) -> Any:
    return tuple(x.amax(dim=0) for x in xs)


def _int_amax_inputs() -> tuple[Any, ...]:
    dtypes = (torch.int64, torch.int32, torch.int16, torch.int8)
    return tuple(ri(0, 100, 16, 24, 59, dtype=d) for d in dtypes)


def _float_amax_inputs() -> tuple[Any, ...]:
    dtypes = (torch.float64, torch.float32, torch.float16, torch.bfloat16)
    return tuple(rn(16, 24, 59, dtype=d) for d in dtypes)


def _bool_reductions(a: Any, b: Any, c: Any) -> Any:
    return tuple(op(x) for op in (torch.any, torch.min, torch.max) for x in (a, b, c))


def _bool_reduction_inputs() -> tuple[Any, ...]:
    b = torch.zeros(63, dtype=torch.bool)
    b[10] = True
    return torch.zeros(63, dtype=torch.bool), b, torch.ones(63, dtype=torch.bool)


def _bool_prod_input() -> tuple[Any, ...]:
    x = torch.ones(37, 37, 37, dtype=torch.bool)
    x[0, 1] = False
    x[2, 3, 5] = False
    x[4, :, 36] = False
    return (x,)


def _layer_norm_inputs(mean: float, std: float) -> Callable[[], tuple[Any, ...]]:
    def make() -> tuple[Any, ...]:
        x = rn(8, 256)
        x = (x - x.mean(1, keepdim=True)) / (x.std(1, keepdim=True) + 1e-5)
        return (x * std + mean,)

    return make


LAYER_NORM_256 = _built(lambda: nn.LayerNorm(256).eval())


def _softmax_minus_sums(x: Any) -> Any:
    s = F.softmax(x, dim=-1).sum(dim=-1)
    e = torch.exp(torch.broadcast_to(s.unsqueeze(-1), [*s.size()[0:3], 256]))
    return x[:, :, :, 0:256] - (e - e.sum(dim=-1).unsqueeze(-1))


def _exp_chain(x: Any) -> Any:
    e = torch.exp(x - torch.amax(x, -1, keepdim=True))
    e2 = torch.exp(e - torch.sum(e, -1, keepdim=True))
    return e - (e2 - torch.sum(e2, -1, keepdim=True))


def _matmul_amax_exp(x: Any, y: Any) -> Any:
    z = torch.matmul(x, y)
    e = torch.exp((z - torch.amax(x, -1, keepdim=True)) / z)
    return e - torch.sum(e, -1, keepdim=True)


def _special_stack(lc: Any, y: Any, alpha: Any, beta: Any) -> Any:
    x = lc[..., 16]
    positive = F.softplus(x) + 0.0001
    rates = F.softplus(y) + 0.0001
    g = torch.special.gammaln(positive + alpha.view(1, -1))
    e = torch.special.erf(x * beta.view(1, -1))
    s = torch.logaddexp(g, torch.special.xlogy(positive, rates))
    centered = s - s.mean(dim=-1, keepdim=True)
    return torch.stack([centered, e, centered * e], dim=-1)


def _einsum_normalise(xs: Any, ls: Any) -> Any:
    t = torch.exp(-torch.einsum("i...,i->i...", xs, ls))
    return torch.einsum("i,i...->i...", 1 / torch.einsum("i...->i", t), t)


REDUCTIONS = [
    case("min_after_negative_pad", lambda a, b: (F.pad(a, (0, -1)) + b).min(0).values, lambda: (rn(2), rn(1))),
    case("max_keepdim_lowp_to_float", lambda a, b: (aten.max(a, 1, keepdim=True)[0].float(), aten.max(b, 1, keepdim=True)[0].float()), lambda: (rn(1, 32, 4, 4, dtype=torch.bfloat16), rn(1, 32, 4, 4, dtype=torch.float16))),
    case("sigmoid_then_means_and_sums", lambda x, z: (aten.mean.dim(aten.sigmoid(x), [-1, -2], True), z.sigmoid() + 1, z.sigmoid().sum(-1)), lambda: (rn(1, 8, 8, 8), rn(100, 100)), atol=1e-5, rtol=1e-5),
    case("sum_of_f16_arange", lambda s, e, dt, d: torch.sum(torch.arange(start=s, end=e, dtype=dt), dim=d), lambda: (300, 400, torch.float16, (0,))),
    case("arange_outer_difference_squared", lambda x: (lambda r: (r.unsqueeze(0) - r.unsqueeze(1)) ** 2)(torch.arange(x.numel())), lambda: (rn(8),)),
    case("large_mean_and_sum", lambda t: (torch.mean(t), t.sum(0).mean()), lambda: (torch.rand(1024, 4096),), atol=1e-5, rtol=1e-4),
    case("mean_of_outer_product", lambda x: torch.mean(torch.outer(x.flatten(), torch.ones_like(x.flatten())), dim=1), lambda: (rn(2, 2, 16, 16),), atol=1e-4, rtol=1e-4),
    case("layer_norm_huge_mean_and_std", _each(LAYER_NORM_256), lambda: _layer_norm_inputs(1e10, 1e10)() + _layer_norm_inputs(1e10, 10)(), atol=1, rtol=1e-4),
    case("layer_norm_ordinary_rows", lambda x: LAYER_NORM_256(x), _layer_norm_inputs(0.5, 2), atol=1e-4, rtol=1e-4),
    case("argmax_argmin_last_dim_float_dtypes", _each(lambda x: (torch.argmax(x, -1), torch.argmin(x, -1))), lambda: (rn(10, 10), rn(10, 10, dtype=torch.bfloat16), rn(10, 10, dtype=torch.float16))),
    case("argmax_argmin_with_nan_from_log1p", _argmax_argmin_of_log1p, _log1p_inputs),
    case("argmax_of_transposed_after_sin_", _argmax_of_transposed_after_sin_, lambda: (rn(5, 7),)),
    case("argmin_argmax_of_transposed", lambda x: (x.t().argmin(), x.t().argmax()), _transposed_argmin_argmax_inputs),
    case("argmax_argmin_ties_transposed", lambda x: (x.t().argmax(0), x.t().argmin(1), x.argmax(), x.t().argmin()), lambda: (ri(0, 3, 9, 35).float(),)),
    case("max_min_dim_of_transposed_sums", _pairwise(_max_min_of_sum), lambda: (rn(8, 8).t(), rn(8, 8), rn(35, 35).t(), rn(35, 35), rn(4, 16, 16).permute(0, 2, 1), rn(4, 16, 16))),
    case("bool_max_dim_ties", lambda x: torch.max(x, 1, False), lambda: (rn(32, 2501).ge(0),)),
    case("bool_any_min_max", _bool_reductions, _bool_reduction_inputs),
    case("bool_prod_with_bool_dtype", lambda x: torch.prod(x, 1, dtype=torch.bool), _bool_prod_input),
    case("amax_dim0_int_dtypes", _store_amax, _int_amax_inputs),
    case("amax_dim0_float_dtypes", _store_amax, _float_amax_inputs),
    case("int64_max_dim0", lambda x: x.max(0).values, lambda: (ri(0, 100, 22, 51),)),
    case("vertical_sums_and_transposed_outer_sum", lambda a, b, c: (a.sum(dim=0), b.sum(dim=1), c.transpose(2, 3).sum(dim=1).contiguous()), lambda: (rn(100, 100), rn(30, 30, 30), rn(4, 10, 10, 10)), atol=1e-5, rtol=1e-5),
    case("row_sum_of_product_with_transposed", lambda a, b: (a * b).sum(dim=1), lambda: (rn(10, 50, 50), rn(10, 50, 50).transpose(1, 2)), atol=1e-5, rtol=1e-5),
    case("row_sum_of_product_with_transposed_lowp", lambda a, b, c, d: ((a * b).sum(dim=1), (c * d).sum(dim=1)), lambda: (rn(10, 50, 50, dtype=torch.bfloat16), rn(10, 50, 50, dtype=torch.bfloat16).transpose(1, 2), rn(10, 50, 50, dtype=torch.float16), rn(10, 50, 50, dtype=torch.float16).transpose(1, 2)), atol=1e-1, rtol=1e-2),
    case("total_sum_of_product_with_transposed", lambda a, b: (a * b).sum(), lambda: (rn(50, 50), rn(50, 50).transpose(0, 1)), atol=1e-4, rtol=1e-5),
    case("softmax_of_0d_bf16", lambda x: torch.softmax(x, 0), lambda: (torch.rand([], dtype=torch.bfloat16),)),
    case("sum_then_softmax", lambda x: torch.softmax(x.sum(dim=-1), -1), lambda: (rn(8, 8, 2),)),
    case("subtract_row_amax_and_softmax", lambda x: (x - torch.amax(x, dim=-1, keepdim=True), x - F.softmax(x, dim=-1)), lambda: (rn(2, 3, 33, 31),)),
    case("subtract_softmax_of_softmax", lambda x: x - F.softmax(F.softmax(x, dim=-1), dim=-1), lambda: (rn(2, 3, 17, 31),)),
    case("softmax_sums_broadcast_exp", _softmax_minus_sums, lambda: (rn(1, 2, 5, 300),), atol=1e-4, rtol=1e-5),
    case("exp_minus_sum_chain", _exp_chain, lambda: (rn(2, 3, 17, 31),), atol=1e-5, rtol=1e-5),
    case("matmul_amax_exp_sum", _matmul_amax_exp, lambda: (torch.rand(4, 32), torch.rand(32, 32)), atol=1e-4, rtol=1e-4),
    case("softplus_gammaln_xlogy_stack", _special_stack, lambda: (rn(4, 8, 64) * 0.1, rn(4, 8) * 0.1, rn(8) * 0.1, torch.zeros(8)), atol=1e-6, rtol=1e-6),
    case("einsum_exp_normalise", _einsum_normalise, lambda: (torch.ones(5, 1, 32, 32), torch.ones(5))),
    case("vector_norm_over_no_dims", lambda x: torch.linalg.vector_norm(x, ord=2, dim=[], keepdim=False, dtype=None), lambda: (rn(16, 32),)),
    case("mean_of_lowp_sum", lambda x, y, u, v: (torch.mean(x + y), torch.mean(u + v)), lambda: (rn(2, 9, dtype=torch.bfloat16), rn(2, 9, dtype=torch.bfloat16), rn(2, 9, dtype=torch.float16), rn(2, 9, dtype=torch.float16))),
    case("min_over_dim_of_zero_size", lambda v: (v.min(dim=1).values, v.sum(2), v.amax(1)), lambda: (torch.rand(10, 3, 0),)),
    case("python_int_ones_sum", lambda n, y: y + torch.ones(n).sum(), lambda: (100, rn(100))),
]  # fmt: skip

# --------------------------------------------------------------------------
# indexing, scatter and mutation


def _index_put_self(x: Any, y: Any) -> None:
    x = x + 10
    y[x] += y[x]


def _index_put_swapped(y: Any, i0: Any, i1: Any) -> None:
    y[i1] += y[i0]


def _index_add_(x: Any, y: Any, scale: Any, index: Any) -> Any:
    values = x[index] + y * scale
    return x.index_add_(dim=0, source=values, index=index)


def _index_add_inputs(duplicates: bool) -> Callable[[], tuple[Any, ...]]:
    def make() -> tuple[Any, ...]:
        index = torch.randperm(10)[:5].to(torch.int32)
        if duplicates:
            index = torch.zeros(5, dtype=torch.int32)
        return rn(10, 10), rn(5, 10), rn(10), index

    return make


def _scatter_where(x: Any) -> Any:
    x = torch.where(x > 0.5, x, torch.zeros_like(x))
    return torch.scatter(x, 1, torch.ones(1, 2, dtype=torch.long), torch.ones_like(x))


def _constant_store(a: Any) -> Any:
    a[0, [3, 3]] = -INF
    return a


def _masked_fill_softmax(value: Any, mask: Any) -> Any:
    return torch.softmax(torch.masked_fill(value, mask.to(torch.bool), -33.0), -1)


def _mask_inputs(dtype: Any) -> Callable[[], tuple[Any, ...]]:
    return lambda: (rn(2, 17, dtype=dtype), ri(0, 2, 2, 17, dtype=torch.uint8))


def _degree_normalise(edges: Any) -> Any:
    # a graph convolution's degree normalisation, with isolated nodes
    ones = aten.full.default([edges.size(1)], 1)
    src, dst = aten.select.int(edges, 0, 0), aten.select.int(edges, 0, 1)
    deg = aten.scatter_add.default(aten.full.default([64], 0), 0, dst, ones)
    norm = aten.pow.Tensor_Scalar(deg, -0.5)
    norm = aten.where.self(aten.eq.Scalar(norm, INF), aten.full.default([], 0.0), norm)
    return aten.index.Tensor(norm, [src]) * aten.index.Tensor(norm, [dst])


def _gather_lowp(a: Any, b: Any, index: Any) -> Any:
    return torch.gather(a, 1, index), torch.gather(b, 1, index)


EMBEDDING = _built(lambda: nn.Embedding(64, 32).eval())


def _three_index_selects(a: Any, b: Any, c: Any, idx: Any) -> Any:
    return (
        torch.index_select(a, dim=0, index=idx),
        torch.index_select(b, dim=0, index=idx),
        torch.index_select(c, dim=0, index=idx),
    )


def _logical_out(o1: Any, o2: Any, x: Any, y: Any) -> Any:
    return torch.logical_or(out=o1, input=x, other=y), torch.logical_xor(
        out=o2, input=x, other=y
    )


def _logical_out_inputs(dtype: Any) -> Callable[[], tuple[Any, ...]]:
    shape = (3, 3, 2, 8, 9, 2)
    return lambda: (
        torch.rand(shape, dtype=dtype),
        torch.rand(shape, dtype=dtype),
        torch.rand(shape) - 0.5,
        torch.rand(shape) - 0.5,
    )


class _KvCache(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.cache_k = torch.zeros(8, 4, 2, 2)

    def forward(self, x: Any, xk: Any) -> Any:
        bsz, seqlen, _ = x.shape
        self.cache_k = self.cache_k.to(x)
        self.cache_k[:bsz, 1 : 1 + seqlen] = xk
        return self.cache_k


def _kv_inputs(dtype: Any) -> Callable[[], tuple[Any, ...]]:
    return lambda: (_KvCache(), rn(4, 2, 2, dtype=dtype), rn(4, 2, 2, 2, dtype=dtype))


class _BufferCat(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.foo = nn.Buffer(torch.rand(3, 10))

    def forward(self, x: Any) -> Any:
        xs = [x, x.clone(), x.clone()]
        return torch.cat([xs[i] + self.foo[i] for i in range(3)], 1)


BUFFER_CAT = _built(_BufferCat)


class _MaskedConv(nn.Conv2d):
    """A causal (PixelCNN) convolution that masks its weight in place."""

    def __init__(self, cin: int, cout: int, k: int) -> None:
        super().__init__(cin, cout, k, padding=(k - 1) // 2)
        mask = torch.zeros_like(self.weight)
        mask[:, :, : k // 2, :] = 1
        mask[:, :, k // 2, : k // 2] = 1
        self.register_buffer("mask", mask)

    def forward(self, x: Any) -> Any:
        with torch.no_grad():
            self.weight.data *= self.mask
        return super().forward(x.permute(0, 3, 1, 2))


class _ParamAssign(nn.Module):
    """Assigns fresh parameters to a conv on every call, then conv-bn-relu."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 5, 3)
        self.bn = nn.BatchNorm2d(5)
        self.conv_weight = torch.randn(5, 3, 3, 3)
        self.conv_bias = torch.randn(5)

    def forward(self, x: Any) -> Any:
        self.conv.weight = nn.Parameter(self.conv_weight)
        self.conv.bias = nn.Parameter(self.conv_bias, requires_grad=False)
        self.conv.eval()
        return F.relu(self.bn(self.conv(x)))


def _param_assign_inputs() -> tuple[Any, ...]:
    m = _seeded(_ParamAssign)
    m.train(False)
    return m, rn(1, 3, 10, 10)


INDEXING = [
    case("index_put_accumulate_into_self", lambda x, y, z, i0, i1: (_index_put_self(x, y), _index_put_swapped(z, i0, i1)), lambda: (ri(-10, -9, 1, 2), rn(2, 32), rn(2, 32), torch.tensor([[0, 1]]), torch.tensor([[1, 0]]))),
    case("index_add_int32_index", _index_add_, _index_add_inputs(False)),
    case("index_add_duplicate_index", _index_add_, _index_add_inputs(True)),
    case("scatter_reduce_add_last_dim", lambda a, i, b: aten.scatter(a, 2, i, b, reduce="add"), lambda: (rn(5, 29, 13), torch.tensor([[[3, 5, 7, 9]]]), rn(1, 1, 10))),
    case("scatter_add_duplicate_indices", lambda a, i, b: aten.scatter(a, 2, i, b, reduce="add"), lambda: (torch.zeros(1, 1, 25), torch.tensor([[[3, 5, 7, 9] * 5]]), torch.ones(1, 1, 25))),
    case("scatter_after_where", _scatter_where, lambda: (torch.rand(1, 2),)),
    case("store_constant_with_repeated_index", _constant_store, lambda: (torch.rand(4, 5),)),
    case("masked_fill_softmax", _pairwise(_masked_fill_softmax), _in_dtypes(_mask_inputs, torch.float32, torch.bfloat16)),
    case("gather_lowp", _gather_lowp, lambda: (torch.tensor([[3.0, -5.0]], dtype=torch.bfloat16), torch.tensor([[3.0, -5.0]], dtype=torch.float16), torch.tensor([[1]]))),
    case("embedding_plus_input_and_unused_bf16", lambda idx, x, y: (EMBEDDING(idx) + x, EMBEDDING(idx)), lambda: (ri(0, 64, 4, 32), rn(4, 32, 32), rn(4, 32, 32, dtype=torch.bfloat16))),
    case("index_select_three_bf16_same_index", _three_index_selects, lambda: (rn(4, 32, dtype=torch.bfloat16), rn(4, 32, dtype=torch.bfloat16), rn(4, 32, dtype=torch.bfloat16), torch.zeros(4, dtype=torch.int64))),
    case("scatter_add_degree_normalisation", _degree_normalise, lambda: (ri(0, 48, 2, 500),)),
    case("advanced_index_of_permuted", lambda buf, idx: buf[torch.arange(buf.shape[0]), idx, :], lambda: (rn(16, 2, 16).permute(2, 1, 0), ri(0, 2, 16))),
    case("add_inplace_with_alpha", lambda x, y: (aten.add_.Tensor(x, y, alpha=0.55),), lambda: (torch.zeros(10), rn(10))),
    case("logical_out_into_bf16", _logical_out, _logical_out_inputs(torch.bfloat16)),
    case("kv_cache_update_f16", lambda m, x, xk: m(x, xk), _kv_inputs(torch.float16)),
    case("add_inplace_transposed_then_reshape", lambda x, y: x.add_(y).reshape(-1, 1, 3), lambda: (torch.ones(1, 2, 3).transpose(1, 2), rn(1, 3, 1))),
    case("module_buffer_rows_cat", lambda x: BUFFER_CAT(x), lambda: (torch.rand(1, 10),)),
    case("conv_weight_masked_in_place", lambda m, x: m(x), lambda: (_seeded(lambda: _MaskedConv(4, 8, 3)), (torch.rand(2, 8, 8, 4) > 0.5).float())),
    case("parameters_assigned_in_forward", lambda m, x: m(x), _param_assign_inputs),
]  # fmt: skip

# --------------------------------------------------------------------------
# views, strides and layouts


def _channel_shuffle(x: Any, groups: int) -> Any:
    b, c, h, w = x.size()
    x = x.view(b, groups, c // groups, h, w)
    x = torch.transpose(x, 1, 2).contiguous().view(b, -1, h, w)
    return x.contiguous(memory_format=torch.channels_last)


def _transposed_copies(*xs: Any) -> Any:
    return tuple(x.t().contiguous() for x in xs)


def _square_shapes(dtype: Any) -> Callable[[], tuple[Any, ...]]:
    return lambda: (
        *(rn(n, n, dtype=dtype) for n in (7, 8, 9, 16, 17, 33)),
        rn(2, 199, dtype=dtype),
    )


def _halo_attention(a: Any) -> Any:
    # timm's HaloAttn block extraction on a channels-last input
    s = aten.as_strided.default(a, [1, 384, 2, 20, 12], [153600, 1, 61440, 384, 7680])
    s = aten.as_strided.default(
        s, [1, 384, 2, 2, 12, 12], [153600, 1, 61440, 3072, 7680, 384]
    )
    v = aten._unsafe_view.default(
        aten.clone.default(s, memory_format=torch.contiguous_format), [8, 48, 4, 144]
    )
    q, _ = aten.split_with_sizes.default(
        aten.permute.default(v, [0, 2, 3, 1]), [16, 32], -1
    )
    q = aten.expand.default(aten.permute.default(q, [0, 1, 3, 2]), [8, 4, 16, 144])
    return aten.clone.default(q, memory_format=torch.contiguous_format)


def _rotate_pairs(x: Any) -> Any:
    return torch.stack((-x[:, :, :, 1::2], x[:, :, :, ::2]), dim=-1).flatten(-2)


def _longformer_diagonals(query: Any, key: Any, w: int) -> Any:
    b, seq, heads, _ = query.size()
    chunks = torch.div(seq, w, rounding_mode="trunc") - 1
    out = key.new_zeros((b * heads, chunks + 1, w, w * 2 + 1))
    out[:, :3, :, w:] = key[:, :, :w, : w + 1]
    return out


def _pad_view_slice_assign(q: Any, k: Any) -> Any:
    scores = torch.einsum("bcxd,bcyd->bcxy", (q, k))
    padded = aten.constant_pad_nd.default(scores, [0, 0, 0, 1], 0.0)
    view = aten.view.default(padded, [2, 1, 32, 33])
    y = view.new_zeros((2, 2, 16, 33))
    y[:, :-1, :, 16:] = view[:, :, :16, :17]
    return y


def _strided_qk() -> tuple[Any, ...]:
    def one() -> Any:
        return torch.as_strided(rn(2 * 32 * 8 * 2), (2, 1, 32, 8), (8, 512, 16, 1))

    return one(), one()


def _relative_logits(x: Any) -> Any:
    # sebotnet33ts' relative position logits
    y = F.pad(x, (0, 31)).reshape(-1, 33, 63)
    y = y[:, :32, 31:].reshape(4, 32, 1, 32, 32).expand(-1, -1, 32, -1, -1)
    y = y.permute(0, 3, 1, 4, 2).clone(memory_format=torch.contiguous_format)
    return y.view(4, 1024, 1024).softmax(dim=-1)


class _PatchMerge(nn.Module):
    """swin's patch merging: 2x2 neighbours into channels, then LayerNorm."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim * 4)

    def forward(self, x: Any) -> Any:
        b, h, w, c = x.shape
        x = x.reshape(b, h // 2, 2, w // 2, 2, c).permute(0, 1, 3, 4, 2, 5).flatten(3)
        return self.norm(x)


PATCH_MERGE = _built(lambda: _PatchMerge(16).eval())


def _relu_permute_reshape(x: Any) -> Any:
    n, c, h, w = x.shape
    return torch.relu(x).permute(0, 2, 3, 1).reshape(n, h * w, c)


def _view_permute_mul_pad(x: Any, y: Any) -> Any:
    x = aten.permute.default(aten.view.default(x, [2, 8, 8, 49]), [0, 1, 3, 2])
    return aten.constant_pad_nd.default(aten.mul.Tensor(y, x), [0, 0, 1, 0, 0, 0], 0.0)


def _permute_clone_bmm(x1: Any, x2: Any) -> Any:
    p = aten.clone.default(
        aten.permute.default(x2, [0, 2, 1, 3]), memory_format=torch.contiguous_format
    )
    v = aten.view.default(p, [32, -1, 8])
    return aten.bmm.default(v, x1), aten.permute.default(v, [0, 2, 1])


def _swin_shift_mask() -> Any:
    window, shift, size = 7, 3, 14
    img = torch.zeros((1, size, size, 1))
    spans = (slice(0, -window), slice(-window, -shift), slice(-shift, None))
    for count, (h, w) in enumerate(itertools.product(spans, spans)):
        img[:, h, w, :] = count
    win = img.view(1, size // window, window, size // window, window, 1)
    win = win.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window * window)
    mask = win.unsqueeze(1) - win.unsqueeze(2)
    return mask.masked_fill(mask != 0, -100.0).masked_fill(mask == 0, 0.0)


def _ones_plus(x: Any, y: Any) -> Any:
    s3 = x.size(1)
    a = torch.ones((1 + s3) // 2)
    a += y
    return a, s3


VIEWS = [
    case("cat_then_square_and_relu_of_cat", lambda p0, p1, x, y: (torch.cat([p0, p1]), torch.cat([p0, p1]) ** 2, F.relu(torch.cat([x, y], dim=1))), lambda: (rn(3, 4), rn(3, 4), rn(32, 35), rn(32, 120))),
    case("channel_shuffle_to_channels_last", _channel_shuffle, lambda: (rn(2, 58, 5, 5), 2)),
    case("transpose_copies_f32", _transposed_copies, _square_shapes(torch.float32)),
    case("transpose_copies_bf16", _transposed_copies, _square_shapes(torch.bfloat16)),
    case("halo_attention_as_strided_channels_last", _halo_attention, lambda: (rn(1, 384, 20, 20).to(memory_format=torch.channels_last),)),
    case("rotate_pairs_strided_stack", _rotate_pairs, lambda: (rn(1, 4, 4, 68),)),
    case("unbind_stack_tanh", lambda x: torch.tanh(torch.stack(torch.unbind(x), dim=1)), lambda: (rn(2, 3, 4),)),
    case("channels_last_lowp", lambda a, b, x: (a.to(memory_format=torch.channels_last), b.to(memory_format=torch.channels_last), x.to(memory_format=torch.channels_last).to(torch.bfloat16)), lambda: (torch.rand(2, 3, 14, 14, dtype=torch.bfloat16), torch.rand(2, 3, 14, 14, dtype=torch.float16), rn(2, 3, 4, 4))),
    case("longformer_slice_assign_into_zeros", _longformer_diagonals, lambda: (rn(1, 16, 2, 8), rn(2, 3, 8, 9), 4)),
    case("pad_view_slice_assign", _pad_view_slice_assign, _strided_qk, atol=1e-5, rtol=1e-5),
    case("relative_logits_expand_permute_softmax", _relative_logits, lambda: (rn(128, 2048),)),
    case("swin_patch_merge_layer_norm", lambda x: PATCH_MERGE(x), lambda: (rn(1, 8, 8, 16),), atol=1e-5, rtol=1e-5),
    case("relu_permute_reshape_channels_last", _relu_permute_reshape, lambda: (rn(2, 32, 4, 4).to(memory_format=torch.channels_last),)),
    case("view_permute_mul_pad", _view_permute_mul_pad, lambda: (rn(2, 64, 7, 7), rn(2, 8, 49, 8))),
    case("permute_clone_view_bmm", _permute_clone_bmm, lambda: (torch.as_strided(rn(32 * 8 * 16), (32, 8, 16), (128, 1, 8)), rn(8, 16, 4, 8)), atol=1e-5, rtol=1e-5),
    case("bool_constant_pad_129_and_zero_size", lambda x, y: (torch.constant_pad_nd(x, [2, 3]), torch.constant_pad_nd(y, (1, 1, 1, 1, 1, 1))), lambda: (torch.zeros(129, dtype=torch.bool), torch.zeros(0, 6, 6, dtype=torch.bool))),
    case("int64_pad_tail", lambda x: F.pad(x, (0, 13)), lambda: (ri(0, 100, 819),)),
    case("swin_shift_window_mask", _swin_shift_mask, lambda: ()),
    case("bf16_zeros_no_inputs", lambda: torch.zeros(1, 1, 32, dtype=torch.bfloat16), lambda: ()),
    case("full_bool_from_python_int", lambda n: (lambda x: (x, x + 1))(torch.full((1024,), n >= 1024)), lambda: (1024,)),
    case("repeat_interleave_with_output_size", lambda y: torch.repeat_interleave(y, 2, output_size=8), lambda: (torch.tensor([[1, 2], [3, 4]]),)),
    case("size_arithmetic_and_inplace_add", _ones_plus, lambda: (ri(0, 5, 1, 8), rn(1))),
    case("view_as_complex_of_stack", lambda x, y: torch.view_as_complex(torch.stack([x.float(), y.float()], dim=-1)), lambda: (rn(1, 1, 1, 128), rn(1, 1, 1, 128))),
]  # fmt: skip

# --------------------------------------------------------------------------
# convolution, linear, pooling, norms, recurrent and attention modules


class _ConvBn(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1, bias=False, dtype=torch.bfloat16)
        self.bn = nn.BatchNorm2d(16, eps=0.001)

    def forward(self, x: Any) -> Any:
        return self.bn(self.conv(x))


CONV_BN_BF16 = _built(lambda: _ConvBn().eval())
FOLD_S1 = _built(
    lambda: nn.Fold(output_size=(16, 16), kernel_size=(4, 4), stride=(1, 1))
)
FOLD_S2 = _built(
    lambda: nn.Fold(output_size=(16, 16), kernel_size=(4, 4), stride=(2, 2))
)
CONV_STRIDE3 = _built(lambda: nn.Conv2d(3, 8, 3, 3).eval())
LINEAR_BIAS = _built(lambda: nn.Linear(10, 2).eval())
LINEAR_NO_BIAS = _built(lambda: nn.Linear(10, 2, bias=False).eval())
CONV_3_3 = _built(lambda: nn.Conv2d(3, 3, 3).eval())


def _conv_autocast(x: Any) -> Any:
    with torch.autocast("cpu"):
        return CONV_STRIDE3(x)


def _conv_relu_conv(x: Any) -> Any:
    return CONV_3_3(F.relu(CONV_3_3(x)))


LINEAR_32 = _built(lambda: nn.Linear(32, 32).eval())


def _linear_relu_linear(dtype: Any) -> Callable[..., Any]:
    def fn(x: Any) -> Any:
        w, b = LINEAR_32.weight.to(dtype), LINEAR_32.bias.to(dtype)
        return F.linear(F.relu(F.linear(x, w, b)), w, b)

    return fn


LINEAR_BF16 = _built(lambda: nn.Linear(10, 3).to(torch.bfloat16).eval())
LINEAR_F16 = _built(lambda: nn.Linear(10, 3).to(torch.float16).eval())
with warnings.catch_warnings():  # initialising a zero-element weight
    warnings.simplefilter("ignore")
    LINEAR_ZERO_IN = _built(lambda: nn.Linear(0, 3).to(torch.bfloat16).eval())
    LINEAR_ZERO_OUT = _built(lambda: nn.Linear(10, 0).to(torch.bfloat16).eval())


def _native_mha(q: Any, k: Any, v: Any, wqkv: Any, bqkv: Any, wo: Any, bo: Any) -> Any:
    return torch._native_multi_head_attention(
        q, k, v, 6, 2, wqkv, bqkv, wo, bo, None, False
    )


def _mha_inputs() -> tuple[Any, ...]:
    return rn(1, 3, 6), rn(1, 3, 6), rn(1, 3, 6), rn(18, 6), rn(18), rn(18, 6), rn(18)


CONV_T_S3 = _built(lambda: nn.ConvTranspose2d(3, 8, 3, 3).eval())
CONV_IN1 = _built(lambda: nn.Conv2d(1, 3, 3).eval())


class _Lstm(nn.Module):
    def __init__(self, cin: int, hidden: int, layers: int, **kw: Any) -> None:
        super().__init__()
        self.lstm = nn.LSTM(input_size=cin, hidden_size=hidden, num_layers=layers, **kw)

    def forward(self, x: Any, h: Any = None) -> Any:
        return self.lstm(x, h)


LSTM_PLAIN = _built(lambda: _Lstm(7, 7, 1).eval())
LSTM_BIDIR_BATCH_FIRST = _built(
    lambda: _Lstm(2, 5, 2, bidirectional=True, batch_first=True).eval()
)
LSTM_NO_BIAS = _built(lambda: _Lstm(3, 4, 2, bias=False).eval())
RNN = {"allow_rnn": True}


CONV_T_PAD1 = _built(lambda: nn.ConvTranspose2d(3, 1, 3, stride=1, padding=1).eval())


def _cat_and_conv(x1: Any, x2: Any, w: Any) -> Any:
    return torch.cat([x1, x2], dim=1), F.conv2d(x1, w, padding=1)


def _channels_last_inputs() -> tuple[Any, ...]:
    cl = torch.channels_last
    return (
        rn(2, 3, 4, 4).to(memory_format=cl),
        rn(2, 5, 4, 4).to(memory_format=cl),
        rn(4, 3, 3, 3).to(memory_format=cl),
    )


LINEAR_LN_RELU = _built(
    lambda: nn.Sequential(nn.Linear(10, 10), nn.LayerNorm(10), nn.ReLU()).eval()
)
CONV_1X7 = _built(lambda: nn.Conv2d(3, 16, (1, 7), stride=(2, 1)).eval())


def _conv_hardshrink_mv(x: Any, weight: Any) -> Any:
    y = F.hardshrink(CONV_1X7(x), lambd=0)
    return torch.mv(weight, y.view(y.size(0), -1)[0])


def _max_pool_3_2_1(a: Any, b: Any) -> Any:
    return F.max_pool2d(a, 3, 2, 1), F.max_pool2d(b, 3, 2, 1)


def _adaptive_avg_pools(x: Any, y: Any) -> Any:
    return aten._adaptive_avg_pool2d(x, (5, 7)), aten._adaptive_avg_pool2d(y, (13, 11))


def _adaptive_inputs(dtype: Any) -> Callable[[], tuple[Any, ...]]:
    cl = torch.channels_last
    return lambda: (
        rn(2, 3, 17, 16, dtype=dtype).to(memory_format=cl),
        rn(2, 3, 9, 8, dtype=dtype).to(memory_format=cl),
    )


class _Gmlp(nn.Module):
    """gMLP's spatial gating unit (timm gmlp_s16_224), at a smaller size."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(16, 48)
        self.norm = nn.LayerNorm(24)
        self.proj = nn.Linear(14, 14)
        self.fc = nn.Linear(24, 16)

    def forward(self, x: Any) -> Any:
        u, v = F.gelu(self.linear(x)).chunk(2, dim=-1)
        v = self.proj(self.norm(v).transpose(-1, -2))
        return self.fc(u * v.transpose(-1, -2))


GMLP = _built(lambda: _Gmlp().eval())


def _conv_conv_pool(data: Any, w1: Any, w2: Any, b1: Any, b2: Any) -> Any:
    one = aten.convolution.default(
        data, w1, b1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1
    )
    two = aten.convolution.default(
        data, w2, b2, [1, 1], [1, 1], [1, 1], False, [0, 0], 1
    )
    return one, two, F.max_pool2d(one, [1, 1], [2, 2], [0, 0], [1, 1], False)


LINEAR_TANH_LINEAR = _built(
    lambda: nn.Sequential(nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 16)).eval()
)


class _Attention(nn.Module):
    def __init__(self, hidden: int, heads: int) -> None:
        super().__init__()
        self.heads, self.head = heads, hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.inv_scale = nn.Parameter(
            torch.Tensor([1 / self.head**0.5]), requires_grad=False
        )

    def forward(self, x: Any) -> Any:
        b, s, _ = x.shape
        q = self.query(x).view(b, s, self.heads, self.head).permute(0, 2, 1, 3)
        k = self.key(x).view(b, s, self.heads, self.head).permute(0, 2, 3, 1)
        v = self.value(x).view(b, s, self.heads, self.head).permute(0, 2, 1, 3)
        return torch.matmul(torch.matmul(q, k).mul(self.inv_scale).softmax(dim=-1), v)


ATTENTION = _built(lambda: _Attention(16, 1).eval())


class _MaskedDecoder(nn.Module):
    """A decoder step whose mask is a causal rule AND a padding lookup."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(32, 32, bias=False)

    def forward(self, x: Any, past_k: Any, past_v: Any, padding: Any) -> Any:
        b, s, _ = x.shape
        q = self.proj(x).view(b, s, 4, 8).transpose(1, 2)
        k = x.view(b, s, 4, 8).transpose(1, 2)
        k, v = torch.cat([past_k, k], dim=2), torch.cat([past_v, k.clone()], dim=2)
        offset = past_k.shape[2]
        qi = (torch.arange(s) + offset)[None, None, :, None]
        kv = torch.arange(k.shape[2])[None, None, None, :]
        bi = torch.arange(b)[:, None, None, None]
        mask = ((kv <= qi) & padding[bi, kv]).expand(b, 1, s, k.shape[2])
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return out.transpose(1, 2).reshape(b, s, 32), k, v


MASKED_DECODER = _built(lambda: _MaskedDecoder().eval())


def _decoder_inputs() -> tuple[Any, ...]:
    padding = torch.ones(1, 10, dtype=torch.bool)
    padding[0, :2] = False
    return rn(1, 2, 32), rn(1, 4, 8, 8), rn(1, 4, 8, 8), padding


class _UnfoldSdpa(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm([2])

    def forward(self, x: Any) -> Any:
        out = F.hardswish(x).unfold(1, 2, 1)
        out = torch.roll(F.scaled_dot_product_attention(out, out, out), 1, 2)
        return torch.nan_to_num(self.norm(out))


UNFOLD_SDPA = _built(lambda: _UnfoldSdpa().eval())
LINEAR_NO_BIAS_16 = _built(lambda: nn.Linear(16, 16, bias=False).eval())
GROUP_NORM_3_90 = _built(lambda: nn.GroupNorm(3, 90).eval())


def _group_norm_inputs(dtype: Any, fmt: Any) -> Callable[[], tuple[Any, ...]]:
    return lambda: (rn(2, 90, 6, 6, dtype=dtype).to(memory_format=fmt),)


GN_SUM_CONV = _built(
    lambda: (nn.GroupNorm(1, 9).eval(), nn.Conv1d(9, 1, 3), nn.Conv1d(1, 7, 3))
)


def _group_norm_sum_conv1d(x: Any) -> Any:
    norm, c1, c2 = GN_SUM_CONV
    return c2(c1(norm(x).sum(dim=3)))


GROUP_NORM_2_64 = _built(lambda: nn.GroupNorm(2, 64).eval())
GROUP_NORM_32_32 = _built(lambda: nn.GroupNorm(32, 32).eval())


def _lp_pools_inf(x1: Any, x2: Any, x3: Any) -> Any:
    return (
        F.lp_pool1d(x1, INF, 2, 1),
        F.lp_pool1d(x1, -INF, 2, 1),
        F.lp_pool2d(x2, INF, 2, 1),
        F.lp_pool2d(x2, -INF, 2, 1),
        F.lp_pool3d(x3, INF, 2, 1),
        F.lp_pool3d(x3, -INF, 2, 1),
    )


def _lp_inputs() -> tuple[Any, ...]:
    x1 = torch.tensor([[[1.0, -3.0, 2.0, 4.0]]])
    x2 = torch.tensor([[[[1.0, -3.0, 2.0], [4.0, -5.0, 6.0], [-7.0, 8.0, -9.0]]]])
    x3 = (
        torch.arange(1.0, 13.0)
        .mul(torch.tensor([1.0, -1.0]).repeat(6))
        .view(1, 1, 2, 2, 3)
    )
    return x1, x2, x3


CONV_39_1 = _built(lambda: nn.Conv2d(39, 1, kernel_size=(1, 17), stride=(2, 2)).eval())


class _F64Linear(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w1 = nn.Parameter(torch.randn(10, 10, dtype=torch.float64))
        self.w2 = nn.Parameter(torch.randn(10, 10, dtype=torch.float64))
        self.bias = nn.Parameter(torch.randn(10, dtype=torch.float64))

    def forward(self, x: Any) -> Any:
        return torch.mm(x, self.w1), torch.addmm(self.bias, x, self.w2)


F64_LINEAR = _built(lambda: _F64Linear().eval())
QKV_CONVS = _built(lambda: (nn.Conv2d(4, 4, 1), nn.Conv2d(4, 4, 1), nn.Conv2d(4, 4, 1)))


def _conv_qkv_sdpa(x: Any) -> Any:
    q, k, v = (conv(x).permute(0, 2, 1, 3) for conv in QKV_CONVS)
    return F.scaled_dot_product_attention(q, k, v, dropout_p=0.0, is_causal=False)


def _attention_backward_bf16(
    g: Any, keep: Any, probs: Any, v_t: Any, k_t: Any, q: Any
) -> Any:
    # the backward of dropout-softmax attention in bf16 (the fused_node
    # repro), as 6 heads of 16x8
    g = g.float().view(6, 16, 8).to(torch.bfloat16)
    p = (keep * probs * 1.1111111111111112).view(6, 16, 16).permute(0, 2, 1)
    grad_v = (
        torch.bmm(p.to(torch.bfloat16), g).float().view(2, 3, 16, 8).to(torch.bfloat16)
    )
    dp = torch.bmm(g, v_t).float().view(2, 3, 16, 16)
    d = dp * (keep.float() * 1.1111111111111112) * probs
    ds = (d - probs * d.sum(-1, keepdim=True)).view(6, 16, 16).to(torch.bfloat16)
    grad_k = (
        (torch.bmm(k_t, ds).float().view(2, 3, 8, 16) * 0.3535533905932738)
        .permute(0, 1, 3, 2)
        .to(torch.bfloat16)
    )
    grad_q = (torch.bmm(ds, q).float().view(2, 3, 16, 8) * 0.3535533905932738).to(
        torch.bfloat16
    )
    grad_q = grad_q.permute(0, 2, 1, 3).contiguous().view(2, 16, 24)
    return grad_q, grad_v.permute(0, 2, 1, 3).contiguous().view(32, 24), grad_k


def _attention_backward_inputs() -> tuple[Any, ...]:
    bf = torch.bfloat16
    return (
        rn(2, 3, 16, 8, dtype=bf) / 10,
        ri(0, 2, 2, 3, 16, 16, dtype=torch.bool),
        rn(2, 3, 16, 16) / 10,
        rn(6, 8, 16, dtype=bf) / 10,
        rn(6, 8, 16, dtype=bf) / 10,
        rn(6, 16, 8, dtype=bf) / 10,
    )


CONV_UPSAMPLE = _built(
    lambda: nn.Sequential(
        nn.Conv2d(8, 8, 3, padding=1),
        nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True),
        nn.Conv2d(8, 4, 3, padding=1),
        nn.ReLU(),
    ).eval()
)


LAYER_NORM_F16 = _built(lambda: nn.LayerNorm(4).to(torch.float16).eval())
LAYER_NORM_BF16 = _built(lambda: nn.LayerNorm(4).to(torch.bfloat16).eval())


def _lowp_huge_rows(dtype: Any) -> Callable[[], tuple[Any, ...]]:
    return lambda: (torch.tensor([[65504.0, 65504.0, -65504.0, -65504.0]]).to(dtype),)


def _conv_bias_from_input(x: Any) -> Any:
    return F.conv2d(x, x, x.to(torch.bool).float().flatten(), stride=1, padding=0)


def _fractional_pool(x: Any, samples: Any) -> Any:
    return F.fractional_max_pool2d(
        x, kernel_size=3, output_size=(4, 4), _random_samples=samples
    )


def _fake_quant_per_channel(x: Any, scales: Any, zeros: Any) -> Any:
    return torch.fake_quantize_per_channel_affine(x, scales, zeros, 1, -128, 127)


def _fake_quant_inputs() -> tuple[Any, ...]:
    x = rn(2, 3, 8, 8)
    x[1, 2, 3, 4] = 257
    return x, torch.tensor([1.0, 0.5, 0.1]), torch.tensor([0, 3, -2], dtype=torch.int32)


NN = [
    case("conv_bf16_then_f32_batchnorm", lambda x: CONV_BN_BF16(x), lambda: (rn(1, 3, 16, 16, dtype=torch.bfloat16),)),
    case("fold_stride_1_and_2", lambda x, y: (FOLD_S1(x), FOLD_S2(y)), lambda: (rn(1, 2 * 16, 169), rn(1, 2 * 16, 49)), atol=1e-5, rtol=1e-5),
    case("conv_stride3_unbatched_input", lambda x: CONV_STRIDE3(x), lambda: (rn(3, 20, 20),), atol=1e-5, rtol=1e-5),
    case("conv_under_cpu_autocast", _conv_autocast, lambda: (rn(1, 3, 28, 18),)),
    case("linear_3d_input_with_and_without_bias", lambda x: (LINEAR_BIAS(x), LINEAR_NO_BIAS(x)), lambda: (rn(2, 3, 10),)),
    case("conv_relu_conv_shared_weights", _conv_relu_conv, lambda: (rn(1, 3, 24, 24),), atol=1e-5, rtol=1e-5),
    case("linear_relu_linear_shared_lowp", lambda x, y: (_linear_relu_linear(torch.bfloat16)(x), _linear_relu_linear(torch.float16)(y)), lambda: (rn(32, 32, dtype=torch.bfloat16), rn(32, 32, dtype=torch.float16)), atol=5e-2, rtol=2e-2),
    case("native_multi_head_attention", _native_mha, _mha_inputs, atol=1e-5, rtol=1e-5),
    case("linear_lowp_3d_and_1d", lambda x, y: (LINEAR_BF16(x), LINEAR_F16(y)), lambda: (rn(2, 3, 10, dtype=torch.bfloat16), rn(10, dtype=torch.float16))),
    case("linear_bf16_zero_features", lambda x, y: (LINEAR_ZERO_IN(x), LINEAR_ZERO_OUT(y)), lambda: (rn(2, 0, dtype=torch.bfloat16), rn(2, 10, dtype=torch.bfloat16))),
    case("conv_transpose_stride3_batched_and_not", lambda x, y: (CONV_T_S3(x), CONV_T_S3(y)), lambda: (rn(1, 3, 8, 8), rn(3, 8, 8)), atol=1e-5, rtol=1e-5),
    case("conv_one_input_channel_relu", lambda x: F.relu(CONV_IN1(x)), lambda: (rn(5, 1, 15, 15),)),
    case("lstm_unbatched_with_state", lambda x, h, c: LSTM_PLAIN(x, (h, c)), lambda: (rn(7, 7), rn(1, 7), rn(1, 7)), atol=1e-5, rtol=1e-5, dynamo=RNN),
    case("lstm_bidirectional_batch_first_two_layers", lambda x: LSTM_BIDIR_BATCH_FIRST(x), lambda: (rn(3, 4, 2),), atol=1e-5, rtol=1e-5, dynamo=RNN),
    case("lstm_no_bias_two_layers_with_state", lambda x, h, c: LSTM_NO_BIAS(x, (h, c)), lambda: (rn(5, 2, 3), rn(2, 2, 4), rn(2, 2, 4)), atol=1e-5, rtol=1e-5, dynamo=RNN),
    case("conv_transpose_with_output_size", lambda x: CONV_T_PAD1(x, output_size=(10, 10)), lambda: (rn(1, 3, 10, 10),), atol=1e-5, rtol=1e-5),
    case("rrelu_in_eval_mode", lambda x: (F.rrelu(x, training=False), aten.rrelu_with_noise_functional.default(x, torch.full_like(x, 7), 0.125, 1.0 / 3.0, False)[0]), lambda: (rn(64, 64),)),
    case("cat_channels_last_and_conv", _cat_and_conv, _channels_last_inputs, atol=1e-5, rtol=1e-5),
    case("linear_layer_norm_relu_1d", lambda x: LINEAR_LN_RELU(x), lambda: (rn(10),), atol=1e-5, rtol=1e-5),
    case("conv_hardshrink_flatten_mv", _conv_hardshrink_mv, lambda: (rn(2, 3, 15, 31), rn(10, 16 * 8 * 25)), atol=1e-4, rtol=1e-4),
    case("max_pool_channels_last_f32_bf16", _max_pool_3_2_1, lambda: (rn(2, 8, 16, 16).to(memory_format=torch.channels_last), rn(2, 8, 16, 16, dtype=torch.bfloat16).to(memory_format=torch.channels_last))),
    case("add_then_max_pool_ceil_mode", lambda a, b: F.max_pool2d(a + b, 3, 2, ceil_mode=True), lambda: (rn(2, 3, 20, 20).to(memory_format=torch.channels_last), rn(2, 3, 20, 20).to(memory_format=torch.channels_last))),
    case("adaptive_avg_pool_channels_last", lambda *xs: _adaptive_avg_pools(*xs[:2]) + _adaptive_avg_pools(*xs[2:]), _in_dtypes(_adaptive_inputs, torch.float32, torch.bfloat16), atol=1e-5, rtol=1e-5),
    case("gmlp_spatial_gating", lambda x: GMLP(x), lambda: (rn(2, 14, 16),), atol=1e-5, rtol=1e-5),
    case("two_convs_and_1x1_stride2_pool", _conv_conv_pool, lambda: (rn(1, 8, 16, 24), rn(8, 8, 1, 1), rn(8, 8, 3, 3), rn(8), rn(8)), atol=1e-4, rtol=1e-5),
    case("linear_tanh_linear_and_view", lambda x, y: (LINEAR_TANH_LINEAR(x), LINEAR_NO_BIAS_16(y).view(4, 4, 4)), lambda: (rn(1, 16), rn(4, 16))),
    case("attention_one_head", lambda x: ATTENTION(x), lambda: (rn(1, 4, 16),), atol=1e-5, rtol=1e-5),
    case("sdpa_with_causal_and_padding_mask", lambda x, k, v, p: MASKED_DECODER(x, k, v, p), _decoder_inputs, atol=1e-5, rtol=1e-5),
    case("hardswish_unfold_sdpa_roll_layer_norm", lambda x: UNFOLD_SDPA(x), lambda: (rn(2, 6),), atol=1e-5, rtol=1e-5),
    case("linear_of_zero_stride_input", lambda x, y: (LINEAR_NO_BIAS_16(x), F.linear(y, LINEAR_NO_BIAS_16.weight.to(torch.bfloat16))), lambda: (torch.as_strided(rn(1, 16, 1, 1), [1, 16], [0, 1], 0), torch.as_strided(rn(1, 16, 1, 1, dtype=torch.bfloat16), [1, 16], [0, 1], 0))),
    case("group_norm_f32_both_layouts", _each(GROUP_NORM_3_90), lambda: _group_norm_inputs(torch.float32, torch.contiguous_format)() + _group_norm_inputs(torch.float32, torch.channels_last)(), atol=1e-5, rtol=1e-5),
    case("group_norm_bf16_channels_last", lambda x: GROUP_NORM_3_90(x), _group_norm_inputs(torch.bfloat16, torch.channels_last)),
    case("group_norm_sum_conv1d_tail", _group_norm_sum_conv1d, lambda: (rn(8, 9, 14, 12),), atol=2e-4, rtol=1e-3),
    case("group_norm_wide_input", lambda x: GROUP_NORM_2_64(x), lambda: (rn(2, 64, 40, 40).to(memory_format=torch.channels_last),), atol=1e-5, rtol=1e-5),
    case("group_norm_groups_over_4096", lambda x: GROUP_NORM_32_32(x), lambda: (rn(1, 32, 20, 20, 20),), atol=1e-5, rtol=1e-5),
    case("lp_pool_infinite_norms", _lp_pools_inf, _lp_inputs),
    case("conv_of_max_over_dim", lambda x: CONV_39_1(x.max(3).values), lambda: (rn(1, 39, 1, 18, 17),), atol=1e-5, rtol=1e-5),
    case("mm_addmm_float64", lambda x: F64_LINEAR(x), lambda: (rn(10, 10, dtype=torch.float64),)),
    case("conv1x1_qkv_sdpa", _conv_qkv_sdpa, lambda: (rn(1, 4, 2, 2),), atol=1e-5, rtol=1e-5),
    case("attention_backward_bf16", _attention_backward_bf16, _attention_backward_inputs),
    case("fractional_max_pool_3d_input", _fractional_pool, lambda: (rn(3, 16, 16), torch.rand(1, 3, 2))),
    case("pdist_of_permuted", lambda x: F.pdist(x.permute(1, 0)), lambda: (rn(3, 4),)),
    case("conv_upsample_bilinear_conv", lambda x: CONV_UPSAMPLE(x), lambda: (rn(1, 8, 8, 8),), atol=1e-5, rtol=1e-5),
    case("layer_norm_lowp_max_values", lambda x, y: (LAYER_NORM_F16(x), LAYER_NORM_BF16(y)), lambda: _lowp_huge_rows(torch.float16)() + _lowp_huge_rows(torch.bfloat16)()),
    case("conv_bias_from_flattened_input", _conv_bias_from_input, lambda: (torch.ones(1, 1, 1, 1),)),
    case("conv1d_of_transposed_weight", lambda x, w: F.conv1d(x, w.transpose(2, 1)).clone(), lambda: (rn(2, 3, 5), rn(4, 2, 3)), atol=1e-5, rtol=1e-5),
    case("linalg_qr_first_of_tuple", lambda x: torch.linalg.qr(x)[:1], lambda: (rn(4, 4),)),
    case("fake_quantize_per_channel_and_tensor", lambda x, s, z: (_fake_quant_per_channel(x, s, z), torch.fake_quantize_per_tensor_affine(x * 20, 0.1, 3, -128, 127)), _fake_quant_inputs),
]  # fmt: skip

# --------------------------------------------------------------------------
# beyond the file: categories its history names (cumsum and tie-breaking
# regressions, embedding_bag) that the current file no longer exercises


def _embedding_bags(w: Any, i: Any, o: Any, last: Any, pw: Any) -> Any:
    return (
        F.embedding_bag(i, w, o, mode="sum"),
        F.embedding_bag(i, w, o, mode="mean"),
        F.embedding_bag(i, w, o, mode="max"),
        F.embedding_bag(i, w, o, mode="sum", per_sample_weights=pw),
        F.embedding_bag(i, w, last, mode="mean", include_last_offset=True),
        F.embedding_bag(i, w, o, mode="mean", padding_idx=4),
    )


def _bags() -> tuple[Any, ...]:
    indices = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
    offsets, last = torch.tensor([0, 4, 4, 6]), torch.tensor([0, 4, 4, 8])
    return rn(10, 3), indices, offsets, last, torch.rand(8)


def _scans(b: Any, s: Any, u: Any) -> Any:
    return (
        b.cumsum(0),
        s.cumsum(1),
        u.cumsum(-1),
        b.cumsum(0, dtype=torch.float64),
        torch.cumprod(s, 1),
        torch.logcumsumexp(u.float(), -1),
    )


def _ties(x: Any, n: Any) -> Any:
    return (
        x.argmax(0),
        x.argmin(1),
        x.max(1),
        x.min(0),
        x.t().argmin(0),
        n.argmax(1),
        n.argmin(1),
        n.max(1),
        n.amax(1),
    )


def _tie_inputs() -> tuple[Any, ...]:
    nan = torch.tensor(
        [[1.0, NAN, 3.0, NAN], [INF, 2.0, INF, -INF], [0.0, -0.0, 0.0, -0.0]]
    )
    return ri(0, 2, 5, 40).float(), nan


EXTRAS = [
    case("embedding_bag_modes", _embedding_bags, _bags),
    case("cumsum_bool_int8_uint8", _scans, lambda: (ri(0, 2, 7, dtype=torch.bool), ri(-5, 5, 3, 17, dtype=torch.int8), ri(0, 255, 2, 33, dtype=torch.uint8))),
    case("argmax_argmin_max_min_ties_and_nan", _ties, _tie_inputs),
]  # fmt: skip

CASES = DTYPES + REDUCTIONS + INDEXING + VIEWS + NN + EXTRAS


# --------------------------------------------------------------------------
# the comparison


@pytest.mark.parametrize("c", CASES)
def test_matches_eager(c: Case) -> None:
    """All under `torch.no_grad()`; float16/bfloat16 within 1e-2 at least."""
    messages = compare_with_eager(c, SEED, options=OPTIONS, grad=False, lowp=LOWP)
    warn_whole_graphs(messages)


def test_case_names_are_unique() -> None:
    names = [p.id for p in CASES]
    assert len(names) == len(set(names))
