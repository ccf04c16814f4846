"""Cases in the manner of PyTorch Inductor's own suite
(`test/inductor/test_torchinductor.py`, its `CommonTemplate`), run through
`torch.compile(fn, backend="fxdsl")` and compared with eager.

Each case is a small function and a factory for its arguments, as Inductor's
`self.common(fn, args)`: the function runs once in eager and twice compiled
(the second call, with the graph already compiled, catches caching bugs), each
on arguments freshly made from the same seed, and every output and every
argument afterwards (so in-place mutation of an input is checked too) must
match eager's: floats within a tolerance (NaNs equal), integers and booleans
exactly. A case whose graph went to torch whole still passes, with a warning
naming it (`pytest -rw` lists them); that is not fxdsl running it.

Ported: pointwise math over float, integer and boolean dtypes with type
promotion and Python scalars; reductions (sum, mean, amax/amin, argmax/argmin,
var/std, prod, any/all, logsumexp, with keepdim, several dims, NaN/inf, large
and empty ones); views and strides (permute, transpose, expand, as_strided,
slices, unfold, non-contiguous inputs, outputs that alias an input or each
other); indexing (index, index_put, scatter and its reductions, gather,
masked_fill, where, embedding, index_select); cat/stack/split/chunk/pad;
in-place mutation of inputs; softmax and the norms; convolution, pooling,
upsampling; matmul, bmm, addmm, baddbmm; cumsum/cumprod/sort/topk; 0-d
tensors and zero-size dimensions; tensor factories inside the function.

Not ported, and why:
- GPU-only tests (CUDA/XPU/MPS devices, multi-GPU, cudagraphs, `requires_gpu`,
  low precision reductions that Inductor only checks on a GPU): fxdsl's
  backend here runs on the CPU reference interpreter.
- Dynamic shapes (`dynamic=True`, `mark_dynamic`, unbacked SymInts from
  `.item()`/`nonzero`, `capture_scalar_outputs`): every case here is static.
- Tests of Inductor's configuration and internals: generated-kernel counts,
  fusion and tiling decisions, `config.patch` knobs, reinplacing metrics,
  deterministic codegen, the C++/Triton/Halide code checked by FileCheck or
  `run_and_get_code`, index-propagation assertions, `test_operators.realize`.
- Autotuning, `max_autotune`, mixed-mm templates, AOTInductor/aoti_eager,
  freezing, and the C++ wrapper.
- Random ops (dropout, rand, randn, bernoulli, rand_like): their numbers
  differ from torch's by design (see the `fallback_random` option).
- Complex dtypes, quantized/packed-weight ops (int8/int4 weight packing,
  `embedding_bag_byte_unpack`), torchvision ops (roi_align), cuDNN RNN, and
  custom-op/`torch.library` fallbacks.
- Backward passes and training-mode graphs beyond a forward with a
  `requires_grad` input (AOTAutograd's joint graph is covered elsewhere).
- float16/bfloat16 variants (`check_lowp`): covered by the half-precision
  suites; here float32 (and a few float64) only.
- Tests of multi-threading, guards and recompilation, and tensors of 2**31
  elements or more.
"""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from fxdsl.testing.optional import need

torch = need("torch")

import torch.nn.functional as F  # noqa: E402
import torch.utils._pytree as pytree  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_dynamo")

aten = torch.ops.aten
SEED = 1234
WHOLE_GRAPH_IN_TORCH = "this graph runs in torch"


def case(
    name: str,
    fn: Callable[..., Any],
    make: Callable[[], tuple[Any, ...]],
    *,
    atol: float | None = None,
    rtol: float | None = None,
    xfail: str | None = None,
) -> Any:
    """One row of the table: `fn` compared with eager on `make()`'s arguments."""
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    tol = {} if atol is None else {"atol": atol, "rtol": rtol}
    return pytest.param(fn, make, tol, id=name, marks=marks)


def rn(*shape: int) -> Any:
    return torch.randn(*shape)


def ri(high: int, *shape: int, dtype: Any = torch.int64, low: int = 0) -> Any:
    return torch.randint(low, high, shape, dtype=dtype)


# --------------------------------------------------------------------------
# pointwise math


def _vertical_fusion(sa: Any, ct: Any, p: Any) -> Any:
    # torchbench's pyhpc_equation_of_state, as Inductor's test has it
    v17 = -3.087032500374211e-7
    v18 = -1.988366587925593e-8
    v19 = -1.061519070296458e-11
    v20 = 1.550932729220080e-10
    t19 = v17 + ct * (v18 + v19 * ct) + v20 * sa
    return 1.0 / t19 + t19 * p


def _div_modes(a: Any, b: Any) -> Any:
    return (
        aten.div(a, b, rounding_mode=None),
        aten.div(a, b, rounding_mode="floor"),
        aten.div(a, b, rounding_mode="trunc"),
        a / b,
        a // b,
    )


def _div_by_zero(x: Any, zero: Any, neg_zero: Any) -> Any:
    z = torch.zeros_like(x)
    return (x / 0.0, x / -0.0, z / 0.0, x / z, x / -z, z / z, x / zero, x / neg_zero)


def _nan_to_num(a: Any) -> Any:
    return (
        torch.nan_to_num(a),
        torch.nan_to_num(a, nan=3.0),
        torch.nan_to_num(a, posinf=4.0),
        torch.nan_to_num(a, neginf=5.0),
        torch.nan_to_num(a, nan=3.0, posinf=4.0, neginf=5.0),
    )


def _bitwise(x: Any, y: Any) -> Any:
    return (
        torch.bitwise_not(x),
        torch.bitwise_or(x, y),
        torch.bitwise_xor(x, y),
        torch.bitwise_and(x, y),
    )


def _with_nans() -> tuple[Any, ...]:
    a, b = rn(8), rn(8)
    a[0] = float("nan")
    b[1] = float("nan")
    return a, b


def _clamp_promotion(a: Any) -> Any:
    lo = torch.tensor(1.0, dtype=torch.float64)
    hi = torch.full((4,), 2)
    return a.clamp(min=lo, max=hi)


def _shifts(a: Any) -> Any:
    return a << 3, a >> 2, (a * 7) % 5, a.abs() // 3


POINTWISE = [
    case("add_const_int_f32", lambda a: (a + 1, torch.add(a, 1, alpha=2)), lambda: (torch.arange(32.0),)),
    case("add_const_int_i32", lambda a: (a + 1, torch.add(a, 1, alpha=2)), lambda: (torch.arange(32, dtype=torch.int32),)),
    case("add_const_int_i64", lambda a: (a + 1, torch.add(a, 1, alpha=2)), lambda: (torch.arange(32),)),
    case("add_const_float", lambda a: a + 1.5, lambda: (rn(32),)),
    case("abs", lambda a: a / (torch.abs(a) + 1), lambda: (rn(17),)),
    case("sgn", lambda a: (torch.sgn(a), torch.sgn(a + 1) - 1), lambda: (torch.linspace(-10, 10, 41),)),
    case("sgn_extremal", torch.sgn, lambda: (torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0]),)),
    case("maximum_minimum", lambda a, b: (torch.maximum(a, b), torch.minimum(a, b)), lambda: (rn(8), rn(8))),
    case("maximum_minimum_nan", lambda a, b: (torch.maximum(a, b), torch.minimum(a, b)), _with_nans),
    case("fmin_fmax_nan", lambda a, b: (torch.fmin(a, b), torch.fmax(a, b), torch.fmax(a + 1, torch.tensor(0.0))), _with_nans),
    case("neg_max_uint8", lambda a, b: torch.maximum(b, torch.neg(a)), lambda: (ri(256, 1, dtype=torch.uint8), ri(256, 1024, dtype=torch.uint8))),
    case("compare_int_with_float", lambda x: (x.gt(3.5), x.ge(3.5), x.eq(3.5), x.le(2.5), x.lt(3.5), x.ne(3.5)), lambda: (torch.tensor([3]),)),
    case("horizontal_broadcast", lambda a, b, c: (a + b, a - c, b * c), lambda: (rn(8, 16, 16), rn(8, 16, 16), rn(1, 16, 1))),
    case("vertical_fusion_constants", _vertical_fusion, lambda: (rn(16, 16, 26), rn(16, 16, 26), rn(26))),
    case("relu", lambda a, b: (torch.relu(a), torch.relu(a + b) / 10), lambda: (rn(8, 8), rn(8, 8))),
    case("exp_exp2_pow", lambda a, b: (torch.exp(a), torch.exp2(a + b), torch.pow(2, -torch.abs(a - b))), lambda: (rn(8, 8), rn(8, 8))),
    case("sigmoid_silu", lambda a: (torch.sigmoid(a), F.silu(a)), lambda: (rn(8, 8),)),
    case("round_decimals", lambda a, b: (torch.round(a), torch.round(b + 1), torch.round(a, decimals=2)), lambda: (rn(8, 8) * 100, rn(8, 8) * 10)),
    case("round_half_even", torch.round, lambda: (torch.arange(-10, 10, 0.5),)),
    case("nan_to_num", _nan_to_num, lambda: (torch.tensor([float("nan"), float("inf"), -float("inf"), 1.0]),)),
    case("one_hot", lambda a: F.one_hot(a, 8) + 1, lambda: (torch.arange(100).view(4, 5, 5) % 8,)),
    case("div_float", _div_modes, lambda: (rn(8, 8) * 100, rn(8, 8) * 100)),
    case("div_int_by_float", _div_modes, lambda: (ri(100, 8, 8, low=-100), 100 * rn(8, 8))),
    case("div_int_exact", _div_modes, lambda: (ri(100, 8, 8, low=1) * 2, ri(100, 8, 8, low=1))),
    case("div_negative_int", _div_modes, lambda: (ri(0, 8, 8, low=-100), ri(10, 8, 8, low=1))),
    case("div_int_by_python_int", _div_modes, lambda: (ri(0, 8, 8, low=-100), 16)),
    case("div_bool_by_int", _div_modes, lambda: (torch.ones(8, 8, dtype=torch.bool), ri(-1, 8, 8, low=-100))),
    case("div_large_int64", _div_modes, lambda: (ri(2**40, 16, 16, low=2**32), ri(-1, 16, 16, low=-10))),
    case("div_scalar_by_tensor", lambda x: (torch.div(42, x), aten.true_divide(42, x)), lambda: (rn(8),)),
    case("div_by_0d", _div_modes, lambda: (rn(10), torch.tensor(1.7))),
    case("div_0d_by_tensor_int", _div_modes, lambda: (torch.tensor(-7), ri(9, 10, low=1))),
    case("div_by_zero", _div_by_zero, lambda: (rn(10), torch.zeros(10), -torch.zeros(10))),
    case("floor_divide_python_scalar", lambda a, i: a + (i * 1.234) // 8.234, lambda: (rn(10), 33)),
    case("clamp", lambda a, b: (a.clamp(-0.1, 0.1), b.clamp(0), torch.clamp(a + b, max=0)), lambda: (rn(8, 8), rn(8, 8))),
    case("clamp_type_promotion", _clamp_promotion, lambda: (ri(4, 4),)),
    case("clamp_tensor_bounds", lambda x, lo, hi: torch.clamp(x, lo, hi), lambda: (rn(6, 5), -rn(5).abs(), rn(6, 1).abs())),
    case("elu", lambda x: (aten.elu(x, 1.6732632423543772, 1.0507009873554805) + 2, aten.elu(x + 1, 2, 3, 4)), lambda: (rn(16, 16),), atol=1e-4, rtol=1e-4),
    case("tan_tanh", lambda x: (torch.tan(x) + 2, torch.tanh(x + 1)), lambda: (rn(16, 16),)),
    case("lgamma", lambda x: (torch.lgamma(x) + 2, torch.cos(x + 1)), lambda: (rn(16, 16),), atol=1e-5, rtol=1e-5),
    case("sin_cos", lambda x: (torch.sin(x) + 2, torch.cos(x + 1)), lambda: (rn(16, 16),)),
    case("leaky_relu_gelu", lambda x: (F.leaky_relu(x, 0.2) + 2, F.gelu(x + 1), F.gelu(x, approximate="tanh")), lambda: (rn(16, 16),)),
    case("hard_activations", lambda x: (F.hardtanh(x), F.hardsigmoid(x + 3), F.hardswish(x - 3)), lambda: (rn(64) * 4,)),
    case("rsqrt_negative", lambda x: (torch.rsqrt(x), torch.rsqrt(x + 1) - 2), lambda: (rn(64),)),
    case("expm1_log1p_int32", lambda x: (torch.expm1(x), torch.log1p(x) * 2), lambda: (ri(5, 64, dtype=torch.int32),)),
    case("expm1_log1p_tiny", lambda x: (torch.expm1(x), torch.log1p(x)), lambda: (torch.arange(-1e-5, 1e-5, 1e-7),)),
    case("signbit", lambda x: (torch.signbit(x), ~torch.signbit(-x) & 1), lambda: (torch.cat([rn(20), torch.tensor([0.0, -0.0])]),)),
    case("sign_then_tanh", lambda x: torch.tanh(torch.sign(x)), lambda: (rn(1, 2, 6, 6),)),
    case("fmod_remainder", lambda a, b: (torch.fmod(a, b), torch.fmod(3.0 * a, b) - 2.0, torch.remainder(a + 1, b - 1)), lambda: (rn(2, 6, 6), rn(2, 6, 6))),
    case("fmod_remainder_int", lambda a, b: (torch.fmod(a, b), torch.remainder(a, b)), lambda: (ri(50, 32, low=-50), ri(7, 32, low=1) * torch.tensor([1, -1]).repeat(16))),
    case("fmod_0d_divisor", lambda a, b: torch.fmod(a, b), lambda: (rn(10) * 5, torch.tensor(1.3))),
    case("log2", lambda x: (torch.log2(x), torch.log2(x + 1) - 2), lambda: (rn(64) + 10,)),
    case("bitwise_int32", _bitwise, lambda: (ri(2**30, 64, dtype=torch.int32), ri(2**30, 64, dtype=torch.int32))),
    case("bitwise_bool", _bitwise, lambda: (ri(2, 2, 20, dtype=torch.bool), ri(2, 2, 20, dtype=torch.bool))),
    case("bitwise_int8_then_minmax", lambda x, y: (torch.max(x & y, y), torch.clamp_max(x | y, y), torch.clamp_min(x ^ y, y)), lambda: (ri(100, 5, 10, 1, dtype=torch.int8, low=-100), ri(100, 10, 1, dtype=torch.int8, low=-100))),
    case("shifts_and_int_ops", _shifts, lambda: (ri(1000, 32, dtype=torch.int32, low=-1000),)),
    case("infinities", lambda a: (a + float("inf"), a + float("-inf"), a * -float("inf")), lambda: (rn(8),)),
    case("pow_integer_exponents", lambda x: [torch.pow(x, e) for e in range(-4, 5)], lambda: (rn(16, 16),), atol=1e-5, rtol=1e-5),
    case("pow_big", lambda x: (torch.pow(1000, x), torch.pow(x, 1000)), lambda: (rn(16, 16),), atol=1e-5, rtol=3e-5),
    case("pow_int_tensor", lambda x, y: (torch.pow(x, 3), torch.pow(x, y)), lambda: (ri(10, 16, 16, low=-9), ri(5, 16, 16))),
    case("pow_int_wraps", lambda x: torch.pow(x, 0x57), lambda: (ri(10, 16, low=-9, dtype=torch.int32),)),
    case("glu", lambda x: (F.glu(x, -1), F.glu(x, 1), F.glu(x, 2)), lambda: (rn(4, 8, 4, 4),)),
    case("where_logical_and_or", lambda x, y: (torch.where(torch.logical_and(x, y), 1.0, 0.0), torch.where(torch.logical_or(x > 0, y > 0), x, y)), lambda: (rn(32), rn(32))),
    case("isinf_isnan", lambda x: (x.isinf(), x.isnan(), x.isfinite()), lambda: (torch.tensor([1, float("inf"), 2, float("-inf"), float("nan")]),)),
    case("eq_nan_constant", lambda x: x == torch.tensor([1, float("inf"), 2, float("-inf"), float("nan")]), lambda: (torch.tensor([1, float("inf"), 2, float("-inf"), float("nan")]),)),
    case("int_plus_size_float", lambda x: x + 1.0 / x.size(0), lambda: (torch.arange(10),)),
    case("full_like_truncates_int", lambda a: a + torch.full_like(a, 7.777), lambda: (ri(100, 8, dtype=torch.int32, low=-100),)),
    case("uint8_wraparound", lambda a, b: (a + b, a - b, a * b), lambda: (ri(256, 64, dtype=torch.uint8), ri(256, 64, dtype=torch.uint8))),
    case("int32_int64_promotion", lambda a, b: (a + b, a * 2.5, a.float() / b), lambda: (ri(100, 16, dtype=torch.int32), ri(100, 16, low=1))),
    case("bool_arith_promotion", lambda a, b: (a + b, a * 3, a & (b > 2), ~a), lambda: (ri(2, 16, dtype=torch.bool), ri(5, 16))),
    case("f32_plus_0d_f64", lambda a, b: (a + b, a * b.float()), lambda: (rn(16), torch.tensor(2.5, dtype=torch.float64))),
    case("int_tensor_plus_0d_float", lambda a, b: a + b, lambda: (ri(10, 16), torch.tensor(0.5))),
    case("to_dtype", lambda a, b: (aten._to_copy(a, dtype=6), aten._to_copy(b + 1, dtype=torch.int32), b.to(torch.bool), (a * 100).to(torch.uint8)), lambda: (rn(2, 2, 10), rn(2, 2, 10) * 10)),
    case("float_to_int_truncation", lambda a: (a.to(torch.int32), a.to(torch.int64), a.trunc(), a.floor(), a.ceil()), lambda: (rn(32) * 50,)),
    case("lerp_addcmul_addcdiv", lambda a, b, c: (torch.lerp(a, b, 0.3), torch.addcmul(a, b, c, value=0.5), torch.addcdiv(a, b, c.abs() + 1, value=-2)), lambda: (rn(4, 8), rn(4, 8), rn(4, 8))),
    case("erf_atan2_hypot", lambda a, b: (torch.erf(a), torch.atan2(a, b), torch.hypot(a, b)), lambda: (rn(32), rn(32))),
    case("softplus_mish_logit", lambda x: (F.softplus(x), F.mish(x), torch.logit(torch.sigmoid(x), eps=1e-6)), lambda: (rn(32) * 3,), atol=1e-5, rtol=1e-5),
    case("losses", lambda a, b: (F.l1_loss(a, b), F.mse_loss(a, b), F.smooth_l1_loss(a, b), F.huber_loss(a, b, delta=0.5)), lambda: (rn(2, 3, 8, 8), rn(2, 3, 8, 8))),
    case("triu_tril", lambda a: (torch.triu(a, 1), torch.triu(a, 0), torch.tril(a, -2)), lambda: (rn(2, 10, 10),)),
    case("python_scalars_both", lambda a, b, x: x + (a + b) * (a - b) / (b * a), lambda: (4, 3.3, rn(4))),
    case("python_float_arg", lambda x, s: x * s + s, lambda: (rn(8), 0.25)),
]

# --------------------------------------------------------------------------
# reductions


def _unrolled_small(x: Any) -> Any:
    v1, i1 = x.min(-1)
    v2, i2 = x.max(-1)
    return (
        v1,
        i1,
        v2,
        i2,
        x.sum(-1),
        (x > 1).any(-1),
        (x > 0).all(-1),
        x.argmin(-1),
        x.argmax(-1),
        x.amin(-1),
        x.amax(-1),
        x.aminmax(),
    )


def _std_variants(x: Any) -> Any:
    return (
        torch.var(x, True),
        torch.var(x, False),
        torch.var(x, -1, True),
        torch.var(x, -1, False),
        torch.std(x, False),
        torch.std(x, [0, 1], True),
        torch.std(x, [0, 1], False),
        torch.std(x, -2, True, keepdim=True),
    )


def _arg_extrema(x: Any) -> Any:
    return x.argmax(0), x.argmin(0), x.argmax(1), x.argmin(1)


def _with_nan_columns() -> tuple[Any, ...]:
    x = rn(32, 32)
    x[:, 4] = float("nan")
    x[:, 8] = float("nan")
    return (x,)


def _sum_chain(a: Any) -> Any:
    b = a + 1
    c = b.sum(-1)
    d = c + 3
    e = d.sum(-1)
    return e + 5, e, d, c, b


def _prime_sample() -> tuple[Any, ...]:
    sample = torch.zeros(399989, dtype=torch.int64)
    sample[-1] = 1
    return (sample,)


REDUCTIONS = [
    case("sum_last", lambda a, b: (a + b).sum(-1), lambda: (rn(8, 8), rn(8, 8))),
    case("sum_dims", lambda a, b: ((a + b).sum([1, 2]), (a + b).sum(-1)), lambda: (rn(8, 9, 3, 21), rn(8, 9, 3, 21)), atol=1e-5, rtol=1e-5),
    case("sum_broadcast_squeeze", lambda a, b: (a + b, (a + b).sum(-1), torch.squeeze(b) + 10), lambda: (rn(10, 10), rn(1, 10)), atol=1e-5, rtol=2e-3),
    case("sum_chain", _sum_chain, lambda: (rn(1, 16, 8, 8),), atol=1e-5, rtol=1e-5),
    case("sum_keepdim", lambda a, b: torch.sum(a + b, -1, keepdim=True), lambda: (rn(8, 8), rn(8, 8))),
    case("reduce_with_infinities", lambda a: (a.sum(), a.max(), a.min(), a.argmax(), a.argmin()), lambda: (torch.tensor([float("-inf"), 0.0, float("inf")]),)),
    case("reduce_all_inf", lambda a: (a.sum(), a.max(), a.min(), a.argmin()), lambda: (torch.full((4,), float("inf")),)),
    case("reduce_all_neg_inf", lambda a: (a.sum(), a.max(), a.min(), a.argmax()), lambda: (torch.full((4,), float("-inf")),)),
    case("prod", lambda a: (a.prod(0), a.prod(1), a.prod()), lambda: (torch.rand(10, 10) + 0.5,), atol=1e-5, rtol=1e-5),
    case("prod_int", lambda a: (a.prod(0), a.prod()), lambda: (ri(4, 6, 5, low=-3),)),
    case("unrolled_small_reduction", _unrolled_small, lambda: (rn(8, 3),)),
    case("max_sum_prime_size_int64", lambda a: (torch.max(a), torch.sum(a)), _prime_sample),
    case("var_large", torch.var, lambda: (torch.rand(14923),), atol=1e-5, rtol=1e-4),
    case("expanded_reduction", lambda x, y: (x * y).sum((0, 1)), lambda: (rn(2, 197, 64), rn(2, 1, 64)), atol=1e-4, rtol=1e-5),
    case("amax_amin_keepdim", lambda a, b: ((a + b).max(), (a + b).min(), torch.amax(a + 1, keepdim=True), torch.amin(b + 1, keepdim=True)), lambda: (rn(8, 8), rn(8, 8))),
    case("max_min_with_nan", lambda a: (torch.max(a), torch.min(a), a.amax(0)), lambda: (torch.where(torch.arange(32) == 16, float("nan"), rn(32)),)),
    case("sum_bool", lambda x: 2 * x.sum(-1) + x.sum(), lambda: (ri(2, 64, dtype=torch.bool),)),
    case("sum_uint8", lambda x: 2 * x.sum(-1) + x.sum(), lambda: (ri(256, 64, dtype=torch.uint8),)),
    case("sum_int32", lambda x: 2 * x.sum(-1) + x.sum(), lambda: (ri(2**20, 64, dtype=torch.int32),)),
    case("sum_dtype_float64", lambda x: x * x.sum(-1, dtype=torch.double) + x.sum(dtype=torch.double), lambda: (torch.ones(32, 32) * 70,)),
    case("mean_dims", lambda x: (x.mean(), x.mean(-1), torch.mean(x, -2, keepdim=True), x.mean([0, 1])), lambda: (rn(1, 2, 4, 8),)),
    case("var_mean", lambda x: (*torch.var_mean(x, -1), *torch.var_mean(x, [1, 3])), lambda: (rn(1, 2, 4, 8),)),
    case("var_correction", lambda x: (torch.var(x, dim=-1, correction=1.3), torch.var(x, dim=-1, correction=3), torch.var(x, dim=-1, correction=10)), lambda: (rn(2, 8),)),
    case("std_variants", _std_variants, lambda: (rn(2, 4, 4, 8),)),
    case("logsumexp", lambda x: (torch.logsumexp(x, -1), torch.logsumexp(x, 0) - 2, torch.logsumexp(x, (0, 1), keepdim=True)), lambda: (rn(8, 8) + 10,)),
    case("logsumexp_with_inf", lambda x: torch.logsumexp(x, -1), lambda: (torch.tensor([[0.0, float("-inf")], [float("-inf"), float("-inf")], [float("inf"), 1.0]]),)),
    case("any_all", lambda x: (x.any(-1), x.isinf().any(), torch.all(x.isinf(), dim=0), torch.all(torch.logical_not(x.isinf()))), lambda: (torch.where(torch.arange(128).view(16, 8) == 9, float("inf"), rn(16, 8)),)),
    case("any_all_int_and_bool_dims", lambda x: (x.any(), x.all(1), x.bool().any(0, keepdim=True)), lambda: (ri(2, 6, 7),)),
    case("argmax_argmin_duplicates", _arg_extrema, lambda: (ri(8, 32, 32),)),
    case("argmax_argmin_nan", _arg_extrema, _with_nan_columns),
    case("argmax_argmin_flat", lambda x: (x.argmax(), x.argmin(), x.argmax(-1, keepdim=True)), lambda: (rn(8, 64, 16),)),
    case("argmax_int32_then_min", lambda a, b: torch.min(b, a.argmax(3)), lambda: ((torch.rand(3, 4, 2, 1) * 4).int(), (torch.rand(2, 2, 1, 4, 1) * 4).int())),
    case("no_op_reduction", lambda a: (a.sum(-1), torch.amax(a + 1, 1, keepdim=True)), lambda: (rn(8, 1, 1),)),
    case("reduce_zero_size", lambda a: (a.sum(), a.sum(0), a.sum(1), a.amax(0), a.prod(1), a.mean(1)), lambda: (torch.ones(3, 0),)),
    case("large_sum_mean", lambda a: (a.sum(), a.mean(), a.sum(0)), lambda: (torch.rand(256, 4096),), atol=1e-2, rtol=1e-4),
    case("dist_norms", lambda a, b: (torch.dist(a, b), torch.dist(a, b, p=1.2), torch.linalg.vector_norm(a, 3, dim=1), a.norm(dim=0)), lambda: (rn(4, 4), rn(4, 4)), atol=1e-5, rtol=1e-5),
    case("count_nonzero", lambda a: (torch.count_nonzero(a), torch.count_nonzero(a, dim=1)), lambda: (ri(3, 8, 9) - 1,)),
    case("sum_0d", lambda a: (a.sum(), a.amax(), a.mean(), a.argmax()), lambda: (torch.tensor(3.5),)),
]

# --------------------------------------------------------------------------
# views and strides


def _view_to(shape: tuple[int, ...]) -> Callable[..., Any]:
    return lambda x, y: ((x + 1).view(shape) + y, x.view(shape) * 2)


def _expand(a: Any) -> Any:
    return ((a + 1).expand(3, 4, 2, 3, 2) + 2, a.expand(2, 1, 2, 3, 2) + 2), a.expand(2, -1, 5, -1)


def _unsqueeze_inplace(a: Any) -> Any:
    tmp1 = a + 1
    aten.unsqueeze_(tmp1, 2)
    tmp2 = aten.unsqueeze_(a + 1, 0) + 2
    return tmp1, tmp2


def _repeat_as_strided(x: Any) -> Any:
    full = x.repeat((3, 2))
    view = torch.as_strided(full, (3, 2), full.stride())
    return view + view


def _aliasing_outputs(x: Any) -> Any:
    y = x * 2
    return y, y.view(-1), y[1], y.t(), x[0], x.view(4, 3)


def _view_on_aliased(a: Any, b: Any) -> Any:
    a = a.max(0).values
    c = torch.cat((a, b))
    return c.round(), b >= a[0]


def _as_strided_channels_last(x: Any) -> Any:
    size, stride = (2, 24, 2, 5, 2), (600, 1, 240, 24, 48)
    return aten.as_strided(x, size, stride, 0), aten.as_strided(x + 1, size, stride, 0) + 2


VIEWS = [
    case("view_merge", _view_to((5, 7)), lambda: (rn(35), rn(5, 7))),
    case("view_split_many", _view_to((2, 3, 4, 5, 6)), lambda: (rn(6, 4, 30), rn(2, 3, 4, 5, 6))),
    case("view_drop_ones", _view_to((10,)), lambda: (rn(1, 10, 1), rn(10))),
    case("view_mixed", _view_to((10, 100)), lambda: (rn(10, 1, 10, 1, 10), rn(10, 100))),
    case("view_infer", lambda x: ((x * 2).view(-1, 100) + 1, x.view(10, -1, 10)), lambda: (rn(10, 1, 10, 1, 10),)),
    case("view_of_index", lambda a, b: aten.index(a, [b]).view(1, 12, 62, 8).view(1, 62, 96), lambda: (rn(64, 16), ri(64, 372))),
    case("view_after_index_select", lambda a, b: a.index_select(0, b).view(2, 3, 4, 5, 5).view(2, 3, 2, 10, -1), lambda: (rn(12, 5, 5), ri(11, 24))),
    case("view_empty_slice", lambda x: x[:, 4:].view(len(x), -1, 4), lambda: (rn(4, 4, 4, 4),)),
    case("view_zero_width_slice", lambda x: aten.slice(torch.relu(x), 3, 0, 0).view(4, 2, -1), lambda: (rn(4, 2, 4, 4),)),
    case("view_dtype_bitcast", lambda x, y: ((x + 1).view(torch.int32), (y + 1).view(torch.float32)), lambda: (torch.rand(2, 3), ri(10, 2, 3, dtype=torch.int32))),
    case("transpose_t", lambda a, b: (torch.t(a) + b, torch.transpose(b * 2, 0, 1) + 10), lambda: (rn(8, 8), rn(8, 8))),
    case("transpose_add_rect", lambda a, b: a.t() + b, lambda: (rn(16, 32), rn(32, 16))),
    case("permute5d", lambda a: (torch.permute(a + 1, [2, 1, 4, 0, 3]) + 2, torch.permute(a, [2, 1, 4, 0, 3]) + 2), lambda: (rn(2, 3, 2, 4, 2),)),
    case("unfold_unsqueeze_permute", lambda a: torch.permute(torch.unsqueeze(a.unfold(0, 2, 1), 1), [0, 2, 3, -3]), lambda: (rn(4, 4),)),
    case("unfold_step", lambda a: (a.unfold(1, 3, 2) * 2, a.unfold(-1, 4, 4).sum(-1)), lambda: (rn(3, 12),)),
    case("expand", _expand, lambda: (rn(2, 1, 2),)),
    case("expand_as", lambda a, b: (a.expand_as(b), (a + 1).expand_as(b + 1) + 1), lambda: (rn(6, 1, 10), rn(6, 12, 10))),
    case("squeeze_unsqueeze", lambda a: ((a + 1).squeeze() + 2, a.squeeze(0) + 2, a.squeeze(-1).squeeze(2) + 1, a.unsqueeze(2) * 3), lambda: (rn(1, 2, 1, 2, 2, 1, 1),)),
    case("squeeze_varargs", lambda x: x.squeeze(1, 2).clone(), lambda: (rn(64, 1, 1),)),
    case("unsqueeze_inplace_temporaries", _unsqueeze_inplace, lambda: (rn(2, 2, 2, 2),)),
    case("permuted_input", lambda a, b: a + b, lambda: (rn(2, 3, 4, 5, 6), rn(4, 2, 3, 5, 6).permute(1, 2, 0, 3, 4))),
    case("strided_slice_input", lambda a: (a * 2, a.sum(0), a.t().contiguous()), lambda: (rn(8, 20)[:, ::3],)),
    case("offset_view_input", lambda a: a + 1, lambda: (rn(64)[16:48].view(4, 8),)),
    case("expanded_input", lambda a, b: (a + b, a * 2), lambda: (rn(1, 6).expand(5, 6), rn(5, 6))),
    case("channels_last_input", lambda a: (a + 1, a.sum((2, 3))), lambda: (rn(2, 3, 4, 5).to(memory_format=torch.channels_last),)),
    case("as_strided", lambda x: (aten.as_strided(x, (8, 8, 64), (512, 64, 1), 0), aten.as_strided(x + 1, (8, 8, 64), (512, 64, 1), 0) + 2), lambda: (rn(64, 64),)),
    case("as_strided_offset_overlap", lambda x: torch.as_strided(x, (4, 3), (2, 1), 3) * 1, lambda: (rn(20),)),
    case("as_strided_channels_last", _as_strided_channels_last, lambda: (rn(2, 24, 5, 5).to(memory_format=torch.channels_last),)),
    case("repeat", lambda x: (x.repeat(0, 1, 1, 1), x.repeat(2, 2, 3, 1), x.repeat(2, 1, 1, 1, 1, 1)), lambda: (rn(1, 2, 4, 8),)),
    case("repeat_as_strided", _repeat_as_strided, lambda: (rn(1, 1),)),
    case("repeat_interleave", lambda x: (x.repeat_interleave(2), x.repeat_interleave(3, dim=0), x.repeat_interleave(x.size(1), dim=1)), lambda: (rn(1, 2, 4, 8),)),
    case("flip", lambda x: (torch.flip(x, (-1,)), torch.flip(x, (0, 2)) - 2), lambda: (rn(1, 2, 6, 6),)),
    case("roll", lambda a: (torch.roll(a, [-3, 10], [1, 2]), torch.roll(a, [5])), lambda: (rn(2, 14, 14, 4),)),
    case("narrow", lambda x: (torch.narrow(x, 1, 10, 16), torch.narrow(x + 2, 0, 10, 16) + 1, torch.narrow_copy(x, 1, 10, 16)), lambda: (rn(32, 32),)),
    case("slices", lambda a: (a[:, :10, 0] + a[:, 10:, 0], (a + 1)[:, :10, 0] + (a + 1)[:, 10:, 0], a[:, -30:, 0], a[:, :-30, 0]), lambda: (rn(2, 20, 2),)),
    case("slices_step_negative", lambda a: (a[:-1, ::2, -1] + a[-1:, 1::2, -2], (a + 1)[:-1, ::2, -1] + (a + 2)[-1:, 1::2, -2]), lambda: (rn(2, 20, 2),)),
    case("slices_clamped_empty", lambda a: (aten.slice.Tensor(a, 0, 2, 0, 1), aten.slice.Tensor(a, 0, 10, 20, 1), aten.slice.Tensor(a, 0, -20, 0, 1), aten.slice.Tensor(a, 0, -20, -16, 1)), lambda: (torch.rand(10),)),
    case("select_and_diagonal", lambda a: (a.select(1, 2) * 2, torch.diagonal(a, 0, 1, 2) + 1, a.diagonal(offset=1).sum()), lambda: (rn(3, 5, 5),)),
    case("unbind", lambda a: (torch.unbind(a), torch.unbind(a, -1)), lambda: (rn(4, 4, 4),)),
    case("movedim_swapaxes", lambda a: (torch.movedim(a, 0, -1) + 1, a.swapaxes(1, 2).reshape(3, -1)), lambda: (rn(3, 4, 5),)),
    case("outputs_alias_input_and_each_other", _aliasing_outputs, lambda: (rn(4, 3),)),
    case("output_is_input", lambda x, y: (x, y + 1), lambda: (rn(5), rn(5))),
    case("view_on_aliased", _view_on_aliased, lambda: (torch.tensor([[4.0]]), torch.tensor([5.0]))),
    case("view_detach_requires_grad", lambda a: a[0].detach(), lambda: (rn(4, 4).requires_grad_(),)),
    case("pad_then_view", lambda a: F.pad(a, (0, 0, 0, 1)).view(3, 3, 8, 6), lambda: (rn(3, 3, 5, 8),)),
]

# --------------------------------------------------------------------------
# indexing


def _index_put_both(a: Any, b: Any, c: Any) -> Any:
    return torch.index_put(a, [b], c), torch.index_put_(a + 1, [b + 1], c + 1) + 1


def _index_put_none(a: Any, b: Any, c: Any) -> Any:
    aten.index_put_(a, (None, b, None), c)
    a1 = a + 1
    aten.index_put_(a1, (None, b + 1, None), c + 1)
    return a, a1


def _index_put_mask(a: Any, b: Any, c: Any, accumulate: bool) -> Any:
    a = a.clone()
    aten.index_put_(a, [b], c, accumulate)
    return a


def _scatter_inplace(a: Any, dim: int, index: Any, b: Any, reduce: str) -> Any:
    a = a.clone()
    a.scatter_(dim, index, b, reduce=reduce)
    a1 = a + 1.0
    a1.scatter_(dim, index, b, reduce=reduce)
    return a, a1


def _scatter_reduce_inplace(a: Any, dim: int, index: Any, b: Any, reduce: str) -> Any:
    a = a.clone()
    a.scatter_reduce_(dim, index, b, reduce=reduce)
    a1 = a + 1.0
    a1.scatter_reduce_(dim, index, b, reduce=reduce)
    return a, a1


def _gather_scatter(node_feat: Any, edge_index: Any) -> Any:
    edge_feat = node_feat[edge_index[0]] - node_feat[edge_index[1]] + 1
    new = torch.zeros_like(node_feat)
    new.scatter_add_(0, edge_index[1].unsqueeze(-1).expand_as(edge_feat), edge_feat)
    return new


def _last_token_index(x: Any, y: Any) -> Any:
    # GPT2ForSequenceClassification's pooling
    last = torch.ne(x, 0).sum(-1) - 1
    return y[torch.arange(1), last]


def _constant_index_tensors(a: Any) -> Any:
    x = torch.tensor([1, 2])
    y = torch.tensor([2, 3])
    xx = torch.tensor([1, 2]).view(1, 2)
    yy = torch.tensor([1, 2, 3]).view(3, 1)
    return (
        a[x, y],
        a[:, x, y],
        a[x, :, y],
        a[:, x, :, y, :],
        a[xx, yy],
        a[:, xx, :, yy],
    )


def _masked_fill(mask: Any, value: Any) -> Any:
    return (
        aten.masked_fill(value, mask, -10000.0) + 2,
        aten.masked_fill(value / 2.0, torch.logical_not(mask), 667),
    )


def _embedding_module() -> Any:
    torch.manual_seed(SEED)
    return torch.nn.Sequential(torch.nn.Embedding(10, 4, padding_idx=0), torch.nn.ReLU())


_EMBEDDING = _embedding_module()


def _nll(a: Any, b: Any) -> Any:
    return aten.nll_loss_forward(a, b, None, 1, -100)


def _select_scatter(x: Any, a: Any, b: Any) -> Any:
    return aten.select_scatter(x, a, 1, 0), aten.select_scatter(x, b, 0, 1)


def _slice_scatter(x: Any, a: Any) -> Any:
    return (
        aten.slice_scatter(x, a, 2, 10, -10),
        aten.slice_scatter(x, a[:, :, :40], 2, 10, -10, 2),
    )


def _as_strided_scatter(a: Any, b: Any) -> Any:
    return aten.as_strided_scatter(
        a * 8 + 10, b * 2 - 4, size=(a.shape[0], a.shape[1] // 2), stride=(a.shape[1], 2), storage_offset=0
    )


INDEXING = [
    case("index_two_tensors", lambda a, b, c: aten.index(a, [b, c]), lambda: (rn(8, 8, 12), torch.tensor([0, 0, 2, 2]), torch.tensor([3, 4, 4, 3]))),
    case("index_broadcast_tensors", lambda a, b, c: aten.index(a, [b, c]), lambda: (rn(8, 8, 12), torch.tensor([[0, 0, 2, 2]]), torch.tensor([[3], [4], [4], [3]]))),
    case("index_with_none", lambda a, b: (aten.index(a, [b]), aten.index(a, [None, b])), lambda: (rn(8, 8, 8), torch.tensor([[0, 0, 2, 2]]))),
    case("index_mixed_slices", lambda x, ia, ib: x[:, ia, None, ib, 0], lambda: (rn(3, 4, 4, 4, 3), torch.tensor([0, 2, 1]), torch.tensor([0, 2, 1]))),
    case("index_negative", lambda a, b: a[b - 1], lambda: (torch.rand(64), torch.zeros(16, dtype=torch.int64))),
    case("index_flip_by_arange", lambda a: a[torch.arange(a.numel() - 1, -1, -1)], lambda: (rn(8),)),
    case("index_constant_tensors", _constant_index_tensors, lambda: (torch.arange(3 * 4 * 5 * 6 * 7).view(3, 4, 5, 6, 7),)),
    case("index_select_i64", lambda a, b: (torch.index_select(a, 0, b), torch.index_select(a, 1, b), torch.index_select(torch.index_select(a, 2, b), 1, b)), lambda: (rn(8, 8, 8), torch.tensor([0, 0, 2, 1]))),
    case("index_select_i32", lambda a, b: (torch.index_select(a, 0, b), torch.index_select(a, 2, b)), lambda: (rn(8, 8, 8), torch.tensor([0, 0, 2, 1], dtype=torch.int32))),
    case("index_last_token", _last_token_index, lambda: (torch.cat([rn(1, 50), torch.zeros(1, 14)], 1), rn(1, 64, 2))),
    case("gather_expanded", lambda a, b: (torch.gather(a.expand(4, 5, 10, 6), 3, b + 1), torch.gather(a.expand(4, 5, 10, 6), -1, b + 1)), lambda: (rn(1, 1, 10, 6), ri(5, 4, 5, 10, 1))),
    case("gather_0d", lambda a, b: torch.gather(a, 0, b) + torch.gather(a, -1, b), lambda: (torch.tensor(123.0), torch.tensor(0))),
    case("gather_broadcast_add", lambda a, b, c: torch.gather(b, 0, c) + a, lambda: (rn(32, 1), rn(64, 21), ri(64, 32, 21))),
    case("take_along_dim", lambda a, i: torch.take_along_dim(a, i, dim=1), lambda: (rn(4, 6), ri(6, 4, 3))),
    case("scatter_scalar_src", lambda a, i: torch.scatter(a, -1, i, 1.5), lambda: (torch.zeros(2, 3), torch.tensor([[0]]))),
    case("scatter_src", lambda x, ind, src: torch.scatter(x, 0, torch.arange(8).view(1, 8).expand(1, 8) % 5 + ind * 0, src), lambda: (rn(10, 8), ri(10, 1, 8), rn(1, 8))),
    case("scatter_reduce_add_scalar", lambda a, i: aten.scatter(a, 2, i, 0.8, reduce="add"), lambda: (rn(5, 29, 13), torch.tensor([[[3, 5, 7, 9]]])), atol=2e-4, rtol=1e-3),
    case("scatter_reduce_add_dup", lambda a, i, b: aten.scatter.reduce(a, 0, i, b, reduce="add"), lambda: (torch.zeros(16, 32), torch.zeros(16, 32, dtype=torch.int64), torch.ones(16, 32))),
    case("scatter_inplace_add", lambda a, i, b: _scatter_inplace(a, 0, i, b, "add"), lambda: (torch.ones(4, 5), torch.tensor([[1], [2], [3]]), rn(4, 5))),
    case("scatter_inplace_multiply", lambda a, i, b: _scatter_inplace(a, 0, i, b, "multiply"), lambda: (torch.ones(4, 5), torch.tensor([[1], [2], [3]]), rn(4, 5))),
    case("scatter_add", lambda a, i, b: aten.scatter_add(a, 0, i, b), lambda: (rn(2, 3), torch.tensor([[0, 0, 0], [1, 1, 1]]), rn(2, 3))),
    case("scatter_add_duplicates", lambda a, i, b: aten.scatter_add(a, 2, i, b), lambda: (rn(5, 29, 13), torch.tensor([[[3, 5, 3, 9]]]), rn(1, 1, 10)), atol=1e-5, rtol=1e-5),
    case("scatter_add_int_and_bool", lambda a, b, i: (a.scatter_add(0, i, b), a.bool().scatter_add(0, i, b.bool())), lambda: (torch.zeros(3, 5, dtype=torch.int64), torch.ones(2, 5, dtype=torch.int64), torch.tensor([[0, 1, 2, 0, 0]]))),
    case("scatter_reduce_sum", lambda a, i, b: aten.scatter_reduce(a, 2, i, b, "sum"), lambda: (rn(5, 29, 13), torch.tensor([[[3, 5, 7, 9]]]), rn(1, 1, 10))),
    case("scatter_reduce_amax_exclude_self", lambda a, i, b: aten.scatter_reduce(a, 0, i, b, "amax", include_self=False), lambda: (rn(2, 3), torch.zeros(2, 3, dtype=torch.int64), rn(2, 3))),
    case("scatter_reduce_mean_amin", lambda a, i, b: (a.scatter_reduce(1, i, b, "mean"), a.scatter_reduce(1, i, b, "amin", include_self=False)), lambda: (rn(3, 4), ri(4, 3, 6), rn(3, 6))),
    case("scatter_reduce_inplace_prod", lambda a, i, b: _scatter_reduce_inplace(a, 0, i, b, "prod"), lambda: (torch.ones(4, 5), torch.tensor([[1], [2], [3]]), rn(4, 5))),
    case("gather_scatter_add_gnn", _gather_scatter, lambda: (rn(16, 32), ri(16, 2, 80)), atol=1e-5, rtol=1e-5),
    case("index_put", _index_put_both, lambda: (rn(64, 4, 2), torch.randperm(40), rn(40, 4, 2))),
    case("index_put_broadcast_values", _index_put_both, lambda: (rn(64, 4, 2), torch.arange(4), rn(4, 1, 1))),
    case("index_put_accumulate", lambda a, b, c: torch.index_put(a, [b], c, True), lambda: (rn(20, 8), ri(20, 60), rn(60, 8)), atol=1e-5, rtol=1e-5),
    case("index_put_with_none", _index_put_none, lambda: (rn(16, 4, 2), torch.arange(3), rn(16, 1, 2))),
    case("index_put_bool_mask_0d_value", lambda a, b, c: torch.index_put(a, [b], c), lambda: (torch.rand(8, 2), torch.rand(8) > 0.5, torch.rand(()))),
    case("index_put_as_masked_fill", lambda a, b, c: _index_put_mask(a, b, c, False), lambda: (rn(16, 4, 2), rn(16, 4, 2) > 0, torch.randn(()))),
    case("index_put_as_masked_fill_accumulate", lambda a, b, c: _index_put_mask(a, b, c, True), lambda: (rn(16, 4, 2), rn(16, 4, 2) > 0, torch.randn(()))),
    case("index_put_then_index", lambda ind, x, src: aten.index(aten.index_put(x, [ind], src), [ind]), lambda: (torch.tensor([1]), rn(8, 4), rn(4))),
    case("masked_fill", _masked_fill, lambda: (ri(2, 1, 16, dtype=torch.bool), rn(16, 16))),
    case("masked_fill_tensor_value_int", lambda mask, v: aten.masked_fill(v, mask, torch.tensor(3.5)), lambda: (ri(2, 1, 16, dtype=torch.bool), ri(16, 16, 16))),
    case("where_scalar_and_tensor", lambda c, a, b: (torch.where(c, a, b), torch.where(c, a, 0.0), torch.where(c > 0, 1, b.long())), lambda: (ri(2, 6, 5, dtype=torch.bool), rn(6, 5), rn(5) * 10)),
    case("embedding_module", _EMBEDDING, lambda: (ri(10, 2, 8),)),
    case("embedding_functional", lambda w, i: F.embedding(i, w) * 2, lambda: (rn(12, 6), ri(12, 3, 5))),
    case("embedding_bag_sum", lambda w, i, o: aten._embedding_bag(w, i, o, False, 0, False, None)[0], lambda: (rn(10, 4), ri(10, 8), torch.tensor([0, 2, 6]))),
    case("nll_loss_ignore_index", _nll, lambda: (rn(5, 5), torch.tensor([-100, -100, 3, -100, -100]))),
    case("nll_loss", _nll, lambda: (rn(5, 5), torch.zeros(5, dtype=torch.int64))),
    case("cross_entropy", lambda x, t: (F.cross_entropy(x, t), F.cross_entropy(x, t, reduction="none", label_smoothing=0.1)), lambda: (rn(6, 7), ri(7, 6))),
    case("select_scatter", _select_scatter, lambda: (rn(8, 19, 38), rn(8, 38), rn(19, 38))),
    case("slice_scatter", _slice_scatter, lambda: (rn(4, 8, 100), rn(4, 8, 80))),
    case("slice_scatter_step", lambda a, b: (aten.slice_scatter.default(a, b, 1, 1, 9223372036854775807, 2),), lambda: (rn(1, 4), rn(1, 2))),
    case("slice_scatter_empty", lambda a, b: (aten.slice_scatter.default(a, b, 0, 2, 0, 1), aten.slice_scatter.default(a, b, 0, -20, -16, 1)), lambda: (torch.arange(10.0), torch.empty(0))),
    case("as_strided_scatter", _as_strided_scatter, lambda: (rn(10, 64), rn(10, 32))),
]

# --------------------------------------------------------------------------
# cat, stack, split, pad


def _cat_mixed(a: Any) -> Any:
    tmp = a * 2
    return (
        torch.cat((a, a[:, :4] + 1, a + 2), -1),
        torch.cat((tmp, tmp), 0),
        torch.cat((tmp, tmp.to(dtype=torch.double)), 0),
    )


def _cat_uint8(x: Any) -> Any:
    return torch.cat([x.new_zeros(1).expand(x.shape[:1] + (1,)), x], dim=-1)


def _split_list(a: Any) -> Any:
    return [t + 1.0 for t in torch.split(a * 2.0, [3, 3, 4], -1)]


def _split_int(a: Any) -> Any:
    t = torch.split(a + 1, 3, -1)
    return t[0], t[1], t[2], t[3]


def _cat_inplace(x: Any) -> Any:
    rt = torch.cat([x])
    x.sin_()
    return rt


def _aliased_buffer_reuse(x: Any, y: Any) -> Any:
    x = 2 * x
    y = 2 * y
    d = 1 + torch.cat([x, y], dim=-1)
    return torch.mm(d, d)[:, :2] + x


def _cat_of_mm(x1: Any, x2: Any, x3: Any, x4: Any) -> Any:
    x = torch.narrow(torch.mm(x2, x3), 1, 0, 20)
    return torch.cat((torch.mm(x, x4), x1), 1)


CAT_PAD = [
    case("cat_mixed_dtypes", _cat_mixed, lambda: (rn(8, 16),)),
    case("cat_channels_last", _cat_mixed, lambda: (rn(1, 3, 3, 16).to(memory_format=torch.channels_last),)),
    case("cat_uint8_expand", _cat_uint8, lambda: (ri(256, 3, 255, dtype=torch.uint8),)),
    case("cat_legacy_empty", lambda *t: torch.cat(t), lambda: (rn(1, 3, 3, 16), torch.ones(0), rn(1, 3, 3, 16))),
    case("cat_legacy_empty_first", lambda *t: torch.cat(t), lambda: (torch.ones(0), rn(1, 3, 3, 16))),
    case("cat_empty_index", lambda out, x: torch.cat([out[0], x], dim=0), lambda: (rn(1, 0, 64), rn(16, 64))),
    case("cat_negative_dim", lambda *t: torch.cat(t, dim=-1), lambda: (rn(2, 3), rn(0), rn(2, 4))),
    case("cat_f32_f16", lambda a, b: aten.cat.default([a, b], 1), lambda: (rn(8, 16), rn(8, 20).half())),
    case("cat_int_bool", lambda a, b: torch.cat([a, b]), lambda: (ri(9, 4, 3), ri(2, 2, 3, dtype=torch.bool))),
    case("cat_then_mm", _aliased_buffer_reuse, lambda: (rn(4, 2), rn(4, 2))),
    case("cat_of_mm_narrow", _cat_of_mm, lambda: (rn(32, 16), rn(32, 64), rn(64, 40), rn(20, 32)), atol=1e-4, rtol=1e-4),
    case("stack_expanded", lambda a, b: torch.stack([a.expand(12, 16), b.expand(12, 16)], 2), lambda: (rn(1, 16), rn(12, 1))),
    case("stack_hstack_vstack", lambda a, b: (torch.stack([a, b]), torch.hstack([a, b]), torch.vstack([a, b]), torch.dstack([a, b])), lambda: (rn(3, 4), rn(3, 4))),
    case("split_sizes", _split_list, lambda: (rn(2, 2, 10),)),
    case("split_int", _split_int, lambda: (rn(2, 2, 10),)),
    case("chunk_tensor_split", lambda a: (*torch.chunk(a, 3, 1), *torch.tensor_split(a, [1, 4], 0)), lambda: (rn(6, 8),)),
    case("constant_pad_1d", lambda a: (F.pad(a, [0, 1], value=6.0), F.pad(a, [2, 3], value=99.0)), lambda: (ri(999, 2, 16, 31).float(),)),
    case("constant_pad_2d", lambda a: (F.pad(a, [1, 1, 1, 1], value=6.0), F.pad(a, [1, 2, 3, 4], value=99.0)), lambda: (ri(999, 1, 1, 8, 8).float(),)),
    case("constant_pad_3d", lambda a: (F.pad(a, [1, 2, 3, 4, 5, 6], value=6.0), F.pad(a, [0, 0, 3, 4, 0, 0], value=6.0)), lambda: (ri(999, 2, 4, 4, 4).float(),)),
    case("constant_pad_negative", lambda a: (F.pad(a, [-1, 2, 0, -2]), F.pad(a, [-2, -1])), lambda: (rn(3, 6, 7),)),
    case("constant_pad_bool", lambda a, b: (F.pad(a, (1, 1), value=True) & b, F.pad(a, (1, 1), value=False) & b), lambda: (ri(2, 4, dtype=torch.bool), torch.ones(6, dtype=torch.bool))),
    case("pad_int_cast", lambda x: F.pad(x.to(torch.float32), (0, 3, 0, 0)), lambda: (torch.ones(1, 1, 13, dtype=torch.int32),)),
    case("pad_single", lambda a: F.pad(a, (10, 10)), lambda: (torch.rand(1, 1, 1),)),
    case("pad_float64_gt", lambda x: torch.gt(F.pad(x, pad=(1, 0)), x), lambda: (torch.rand(1, 2, 2, 1, dtype=torch.float64),)),
    case("reflection_replicate_pad", lambda a: (F.pad(a, [1, 1, 1, 1], mode="reflect"), F.pad(a, [5, 2, 3, 4], mode="reflect"), F.pad(a, [2, 0, 1, 3], mode="replicate")), lambda: (ri(999, 1, 1, 8, 8).float(),)),
    case("circular_pad", lambda a: F.pad(a, [2, 1], mode="circular"), lambda: (rn(2, 3, 6),)),
]

# --------------------------------------------------------------------------
# in-place mutation of inputs


def _mutation_copy(a: Any) -> Any:
    b = a + 1
    a.copy_(b)
    c = a + 2
    return a * b / c


def _mutation_view_copy(a: Any) -> Any:
    b = a + 1
    a.view(64).copy_(torch.tensor([66.0]))
    return b, a + 2


def _mutation_chain(a: Any) -> Any:
    a += 1
    a *= 2
    aten.sigmoid_(a)
    a = a.view(64)
    a += 3
    a *= 4
    aten.relu_(a)
    return a


def _mutation_relu(a: Any) -> Any:
    torch.relu_(a)
    return a


def _mutation_int_0d(x: Any) -> Any:
    tmp = x.ceil()
    x.add_(10)
    return tmp


def _slice_mutation_local(a: Any) -> Any:
    x = torch.zeros_like(a)
    b = x + 1
    x[:, 3] = 3.0
    c = torch.clone(x)
    x[4, :] = 4.0
    return x, b, c, x + 1


def _slice_mutation_input(a: Any) -> None:
    a[:, 20:40] = a[:, 20:40] + 1
    a[:, 2:11] = a[:, 1:10] + 2


def _slice_fill(a: Any) -> None:
    a[:2, :2].fill_(10)


def _setitem_then_use(a: Any, b: Any) -> Any:
    a[0] = 2
    return a * b


def _index_put_reinplace(x: Any, idx: Any) -> Any:
    x.index_put_((idx,), torch.ones(idx.size(0)))
    return x.expand((2, x.shape[0]))


def _index_put_functional(x: Any, idx: Any) -> Any:
    return x, x.index_put((idx,), torch.ones(idx.size(0)))


def _two_inputs_mutated(a: Any, b: Any) -> Any:
    s = a + b
    a.mul_(2)
    b.sub_(s)
    return s


def _noop_copy(x: Any, y: Any) -> Any:
    x = x.cos()
    return x.copy_(y).sin()


def _max_into_input(a: Any, b: Any) -> Any:
    b[0] = torch.abs(a).max().to(a.dtype)
    return b


def _inplace_activations(x: Any) -> Any:
    return (
        aten.hardswish_(x + 1),
        aten.hardtanh_(x + 1),
        aten.leaky_relu_(x + 1),
        aten.silu_(x + 1),
        aten.masked_fill_(x + 1, torch.zeros_like(x, dtype=torch.bool), 99.0),
        aten.masked_fill_(x + 1, torch.ones_like(x, dtype=torch.bool), 99.0),
    )


def _batch_norm_train(x: Any, rm: Any, rv: Any, w: Any, b: Any) -> Any:
    return F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.1, eps=1e-5)


def _mutate_then_return_view(x: Any) -> Any:
    x.add_(1)
    return x[1:], x.t()


MUTATION = [
    case("add_inplace_permuted", lambda x, y: x.add_(y), lambda: (torch.ones(2, 12, 13, 17).transpose(1, 2), rn(2, 13, 1, 17))),
    case("cat_add_inplace", lambda x, y, z: torch.cat([x, y], dim=1).add_(z), lambda: (rn(2, 4, 6, 6), rn(2, 4, 6, 6), rn(2, 8, 6, 6))),
    case("input_copy_", _mutation_copy, lambda: (rn(64),)),
    case("input_view_copy_", _mutation_view_copy, lambda: (rn(1, 64),)),
    case("input_mutation_chain", _mutation_chain, lambda: (rn(1, 64),)),
    case("input_relu_", _mutation_relu, lambda: (rn(1, 64),)),
    case("input_int64_0d_add_", _mutation_int_0d, lambda: (torch.zeros((), dtype=torch.int64),)),
    case("input_uint8_add_wraps", lambda x: x.add_(200), lambda: (ri(256, 16, dtype=torch.uint8),)),
    case("input_bool_logical_and_", lambda x, y: x.logical_and_(y), lambda: (ri(2, 16, dtype=torch.bool), ri(2, 16, dtype=torch.bool))),
    case("slice_mutation_local", _slice_mutation_local, lambda: (rn(8, 8),)),
    case("slice_mutation_input", _slice_mutation_input, lambda: (rn(1, 64),)),
    case("slice_fill_", _slice_fill, lambda: (rn(8, 8),)),
    case("setitem_then_pointwise", _setitem_then_use, lambda: (torch.rand(1), torch.rand(2))),
    case("index_put_inplace_expand", _index_put_reinplace, lambda: (rn(64), torch.arange(10))),
    case("index_put_functional_keeps_input", _index_put_functional, lambda: (rn(64), torch.arange(10))),
    case("index_put_inplace_accumulate", lambda x, i, v: x.index_put_((i,), v, accumulate=True), lambda: (rn(10), ri(10, 30), rn(30)), atol=1e-5, rtol=1e-5),
    case("scatter_add_inplace_input", lambda x, i, v: x.scatter_add_(1, i, v), lambda: (rn(3, 5), ri(5, 3, 7), rn(3, 7)), atol=1e-5, rtol=1e-5),
    case("masked_fill_inplace_input", lambda x, m: x.masked_fill_(m, -1.0), lambda: (rn(4, 6), rn(4, 6) > 0)),
    case("two_inputs_mutated", _two_inputs_mutated, lambda: (rn(6), rn(6))),
    case("noncontiguous_input_mul_", lambda x: x.mul_(2), lambda: (rn(6, 4).t(),)),
    case("strided_input_mutated", lambda x: x.add_(torch.arange(4.0)), lambda: (rn(6, 8)[:, ::2],)),
    case("cat_then_mutate_input", _cat_inplace, lambda: (torch.ones(2),)),
    case("copy_into_flip_of_self", lambda a: a.copy_(torch.flip(a, (0,))), lambda: (torch.rand(20),)),
    case("copy_broadcast_into_input", lambda a, b: a.copy_(b), lambda: (rn(4, 5), rn(5))),
    case("copy_dtype_into_input", lambda a, b: a.copy_(b), lambda: (torch.zeros(4, 5, dtype=torch.int32), rn(4, 5) * 10)),
    case("noop_copy_", _noop_copy, lambda: (rn(8, 8), rn(8))),
    case("abs_max_into_input_f64", _max_into_input, lambda: (rn(8, 8), torch.randn(8, dtype=torch.float64))),
    case("inplace_activations_on_temps", _inplace_activations, lambda: (rn(64) * 10,)),
    case("batch_norm_training_updates_stats", _batch_norm_train, lambda: (rn(4, 3, 5, 5), rn(3), torch.rand(3) + 0.5, rn(3), rn(3)), atol=1e-5, rtol=1e-5),
    case("mutate_then_return_views", _mutate_then_return_view, lambda: (rn(3, 3),)),
]

# --------------------------------------------------------------------------
# softmax and norms


def _manual_softmax(x: Any) -> Any:
    x_max = torch.amax(x, 1, keepdim=True)
    unnormalized = torch.exp(x - x_max)
    return unnormalized / torch.sum(unnormalized, 1, keepdim=True)


def _seeded(module: Any) -> Any:
    return module.eval()


torch.manual_seed(SEED)
_LAYER_NORM = _seeded(torch.nn.Sequential(torch.nn.LayerNorm(32), torch.nn.ReLU()))
_BATCH_NORM = torch.nn.Sequential(torch.nn.BatchNorm2d(10), torch.nn.ReLU())
with torch.no_grad():
    _BATCH_NORM[0].running_mean.uniform_(-1, 1)
    _BATCH_NORM[0].running_var.uniform_(0.5, 2)
    _BATCH_NORM[0].weight.uniform_(0.5, 2)
    _BATCH_NORM[0].bias.uniform_(-1, 1)
_BATCH_NORM.eval()
_GROUP_NORM = _seeded(torch.nn.GroupNorm(2, 6))
with torch.no_grad():
    _GROUP_NORM.weight.uniform_(0.5, 2)
    _GROUP_NORM.bias.uniform_(-1, 1)
_MATMUL_LN = torch.nn.LayerNorm(64)


def _div_softmax(x: Any, y: Any) -> Any:
    return F.softmax(x.div(y), dim=-1)


NORMS = [
    case("softmax", lambda a, b: (torch.softmax(a + b, -1), torch.softmax(a, 0), torch.softmax(b, 1)), lambda: (rn(8, 8), rn(8, 8))),
    case("log_softmax", lambda a, b: (F.log_softmax(a + b, -1), F.log_softmax(a, 0), F.log_softmax(b, 1)), lambda: (rn(8, 8), rn(8, 8))),
    case("softmax_manual", _manual_softmax, lambda: (rn(16, 32),)),
    case("softmax_with_neg_inf_rows", lambda x: torch.softmax(x, -1), lambda: (torch.tensor([[0.0, float("-inf"), 1.0], [float("-inf")] * 3]),)),
    case("softmax_div_tiny", _div_softmax, lambda: (torch.matmul(rn(1, 10, 40), rn(1, 2, 40).transpose(-2, -1)), torch.tensor(1e-6))),
    case("softmax_int_input_dtype", lambda x: torch.softmax(x, -1, dtype=torch.float32), lambda: (ri(5, 3, 7),)),
    case("layer_norm_module", _LAYER_NORM, lambda: (rn(16, 32),)),
    case("layer_norm_functional", lambda x, w, b: (F.layer_norm(x, (8,), w, b), F.layer_norm(x, (4, 8))), lambda: (rn(3, 4, 8) * 5 + 3, rn(8), rn(8)), atol=1e-5, rtol=1e-5),
    case("matmul_layer_norm", lambda x, w: _MATMUL_LN(x @ w), lambda: (rn(4, 10, 64), rn(64, 64)), atol=1e-4, rtol=1e-4),
    case("rms_norm", lambda x, w: F.rms_norm(x, (16,), w, eps=1e-6), lambda: (rn(4, 16), rn(16)), atol=1e-5, rtol=1e-5),
    case("batch_norm_eval_module", _BATCH_NORM, lambda: (rn(2, 10, 8, 8),)),
    case("batch_norm_eval_functional", lambda x, m, v, w, b: F.batch_norm(x, m, v, w, b, False, 0.1, 1e-3), lambda: (rn(3, 4, 6), rn(4), torch.rand(4) + 0.1, rn(4), rn(4)), atol=1e-5, rtol=1e-5),
    case("group_norm_module", _GROUP_NORM, lambda: (rn(2, 6, 4, 4),), atol=1e-5, rtol=1e-5),
    case("instance_norm", lambda x: F.instance_norm(x), lambda: (rn(2, 3, 5, 5),), atol=1e-5, rtol=1e-5),
    case("normalize", lambda x: (F.normalize(x, dim=1), F.normalize(x, p=1, dim=0)), lambda: (rn(5, 7),)),
]

# --------------------------------------------------------------------------
# convolution, pooling, upsampling


def _conv_module(*layers: Any) -> Any:
    torch.manual_seed(SEED)
    return torch.nn.Sequential(*layers).eval()


_CONV1 = _conv_module(torch.nn.Conv2d(5, 6, [3, 3]), torch.nn.ReLU())
_CONV3 = _conv_module(torch.nn.Conv2d(5, 6, [3, 3], stride=[1], padding=[0], dilation=[1]), torch.nn.ReLU())
_CONV3D = _conv_module(torch.nn.Conv3d(3, 3, kernel_size=3))
_CONV1X1 = _conv_module(torch.nn.Conv2d(3, 3, 1, 1))
_CONV1D = _conv_module(torch.nn.Conv1d(4, 6, 3, stride=2, padding=1, dilation=2))


class _UpsampleCatConv(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.upsample = torch.nn.UpsamplingNearest2d(scale_factor=2)
        self.conv = torch.nn.Conv2d(8, 5, kernel_size=1)

    def forward(self, x: Any, y: Any) -> Any:
        return self.conv(torch.cat([self.upsample(x), y], dim=1))


torch.manual_seed(SEED)
_UPSAMPLE_CAT_CONV = _UpsampleCatConv().eval()


def _alexnet_prefix(bias: Any, weight: Any, x: Any) -> Any:
    conv = aten.convolution(x, weight, bias, [4, 4], [2, 2], [1, 1], False, [0, 0], 1)
    return aten.max_pool2d_with_indices(torch.relu(conv), [3, 3], [2, 2])[0]


def _max_pool_padded(x: Any) -> Any:
    return (
        aten.max_pool2d_with_indices(x, [3, 3], [2, 2], [1, 1]),
        aten.max_pool2d_with_indices(x, [3], [2], [1]),
    )


def _avg_pool_padded(x: Any) -> Any:
    return aten.avg_pool2d(x, [3, 3], [2, 2], [1, 1]), aten.avg_pool2d(x, [3], [2], [1])


def _upsample_nearest(a: Any) -> Any:
    return (
        F.interpolate(a, size=[29, 31]),
        F.interpolate(a, size=[9, 10]),
        F.interpolate(a, scale_factor=2.0),
        F.interpolate(a, size=[20, 25], mode="nearest-exact"),
    )


def _upsample_linear(a: Any) -> Any:
    return (
        F.interpolate(a, size=[23, 23], mode="bilinear", align_corners=False),
        F.interpolate(a, scale_factor=2.0, mode="bilinear", align_corners=True),
        F.interpolate(a, size=[7, 9], mode="bilinear", antialias=False),
    )


NEG_RAMP = -torch.arange(64, dtype=torch.float32).view(1, 1, 8, 8)

CONV_POOL = [
    case("conv2d_relu_module", _CONV1, lambda: (rn(2, 5, 16, 16),), atol=6e-5, rtol=1e-3),
    case("conv2d_one_element_lists", _CONV3, lambda: (rn(2, 5, 12, 12),), atol=6e-5, rtol=1e-3),
    case("conv_transposed_aten", lambda x, w, b: aten.convolution(x, w, b, [4], [0], [1], True, [0], 1), lambda: (rn(2, 8, 20), rn(8, 6, 8), rn(6)), atol=1e-4, rtol=1e-4),
    case("conv_transposed2d_output_padding", lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1), lambda: (rn(1, 4, 5, 5), rn(4, 3, 3, 3)), atol=1e-4, rtol=1e-4),
    case("conv2d_depthwise_sum", lambda x, w: F.conv2d(x, w, groups=w.shape[0]).sum(), lambda: (rn(2, 3, 16, 20), rn(3, 1, 5, 5)), atol=1e-3, rtol=1e-4),
    case("conv2d_dilation_padding_groups", lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=(2, 1), dilation=(2, 1), groups=2), lambda: (rn(2, 4, 11, 9), rn(6, 2, 3, 3), rn(6)), atol=1e-4, rtol=1e-4),
    case("conv2d_padding_same", lambda x, w: F.conv2d(x, w, padding="same"), lambda: (rn(1, 2, 7, 6), rn(3, 2, 4, 3)), atol=1e-4, rtol=1e-4),
    case("conv1d_module", _CONV1D, lambda: (rn(2, 4, 17),), atol=1e-5, rtol=1e-4),
    case("conv3d_module", _CONV3D, lambda: (rn(1, 3, 6, 8, 8),), atol=6e-5, rtol=1e-3),
    case("conv2d_channels_last_input", _CONV1X1, lambda: (rn(2, 3, 8, 8).to(memory_format=torch.channels_last),), atol=1e-5, rtol=1e-4),
    case("upsample_cat_conv", _UPSAMPLE_CAT_CONV, lambda: (rn(2, 2, 6, 7), rn(2, 6, 12, 14)), atol=1e-5, rtol=1e-4),
    case("alexnet_prefix", _alexnet_prefix, lambda: (rn(16), rn(16, 3, 11, 11), rn(2, 3, 63, 63)), atol=3e-4, rtol=1e-3),
    case("adaptive_avg_pool2d", lambda x: (aten._adaptive_avg_pool2d(x, (6, 6)), aten._adaptive_avg_pool2d(x + 1, (2, 5))), lambda: (rn(2, 4, 16, 16),)),
    case("adaptive_avg_pool2d_uneven", lambda x: aten._adaptive_avg_pool2d(x, (4, 4)), lambda: (rn(2, 4, 21, 21),)),
    case("adaptive_avg_pool2d_identity", lambda x: F.adaptive_avg_pool2d(x, (6, 6)), lambda: (rn(2, 4, 6, 6),)),
    case("adaptive_max_pool2d", lambda x: aten.adaptive_max_pool2d(x, (6, 6)), lambda: (rn(2, 4, 16, 16),)),
    case("adaptive_max_pool2d_small", lambda x: aten.adaptive_max_pool2d(x, (2, 2)), lambda: (rn(2, 4, 12, 12),)),
    case("max_pool2d_with_indices", lambda x: aten.max_pool2d_with_indices(x, [3, 3], [2, 2]), lambda: (rn(2, 4, 16, 16),)),
    case("max_pool2d_padding", _max_pool_padded, lambda: (NEG_RAMP.clone(),)),
    case("max_pool2d_ceil_mode", lambda x: aten.max_pool2d_with_indices(x, [3, 3], [2, 2], [0, 0], [1, 1], True), lambda: (rn(2, 3, 13, 13),)),
    case("max_pool2d_ceil_stride2_k1", lambda x: F.max_pool2d(x, 1, stride=(2, 2), padding=0, ceil_mode=True), lambda: (rn(1, 1, 6, 7),)),
    case("max_pool2d_dilation", lambda x: aten.max_pool2d_with_indices(x, [3, 2], [2, 1], [1, 1], [1, 2]), lambda: (rn(2, 2, 3, 6),)),
    case("max_pool2d_big_kernel", lambda x: aten.max_pool2d_with_indices(x, [13, 13], []), lambda: (rn(1, 2, 27, 27),)),
    case("max_pool1d_3d", lambda x, y: (F.max_pool1d(x, 3, 2), F.max_pool3d(y, 2)), lambda: (rn(2, 3, 11), rn(1, 2, 4, 6, 6))),
    case("avg_pool2d", lambda x: aten.avg_pool2d(x, [3, 3], [2, 2]), lambda: (rn(2, 4, 16, 16),)),
    case("avg_pool2d_padding", _avg_pool_padded, lambda: (NEG_RAMP.clone(),)),
    case("avg_pool2d_ceil_mode", lambda x: aten.avg_pool2d(x, [3, 3], [2, 2], [0, 0], True), lambda: (rn(2, 3, 13, 13),)),
    case("avg_pool2d_exclude_pad", lambda x: aten.avg_pool2d(x, [3, 3], [2, 2], [1, 1], count_include_pad=False), lambda: (NEG_RAMP.clone(),)),
    case("avg_pool2d_divisor_override", lambda x: aten.avg_pool2d(x, [3, 3], [2, 2], [1, 1], divisor_override=3), lambda: (NEG_RAMP.clone(),)),
    case("avg_pool2d_ceil_padding", lambda x: aten.avg_pool2d(x, kernel_size=3, stride=2, padding=1, ceil_mode=True), lambda: (rn(1, 3, 6, 6),)),
    case("avg_pool2d_big_kernel", lambda x: aten.avg_pool2d(x, [13, 13], [1, 1], [0, 0]), lambda: (-torch.arange(24 * 24, dtype=torch.float32).view(1, 1, 24, 24),)),
    case("upsample_nearest1d", lambda a: (aten.upsample_nearest1d(a, [74], None), aten.upsample_nearest1d(a, [45], None), aten.upsample_nearest1d(a, [36], None)), lambda: (rn(2, 4, 37),)),
    case("upsample_nearest2d", _upsample_nearest, lambda: (rn(2, 3, 13, 14),)),
    case("upsample_nearest3d", lambda a: (F.interpolate(a, size=[10, 12, 14]), F.interpolate(a, scale_factor=2.0)), lambda: (rn(1, 2, 5, 6, 7),)),
    case("upsample_bilinear2d", _upsample_linear, lambda: (rn(2, 3, 13, 14),), atol=2.5e-5, rtol=1.3e-6),
    case("upsample_bicubic2d", lambda a: (F.interpolate(a, size=(32, 32), mode="bicubic", align_corners=True), F.interpolate(a, size=(32, 48), mode="bicubic")), lambda: (rn(2, 3, 16, 8),), atol=2e-5, rtol=1e-3),
    case("upsample_linear1d_trilinear", lambda a, b: (F.interpolate(a, size=20, mode="linear"), F.interpolate(b, scale_factor=1.5, mode="trilinear")), lambda: (rn(2, 3, 9), rn(1, 2, 4, 4, 4)), atol=1e-5, rtol=1e-5),
    case("grid_sampler_2d", lambda a, b: (aten.grid_sampler_2d(a, b, 0, 0, True), aten.grid_sampler_2d(a, b, 0, 1, False)), lambda: (rn(2, 3, 12, 12), torch.rand(2, 9, 9, 2) * 2 - 1), atol=2e-4, rtol=1.3e-6),
    case("pixel_shuffle_unshuffle", lambda x: (F.pixel_shuffle(x, 2), F.pixel_unshuffle(x, 2)), lambda: (rn(1, 8, 4, 6),)),
    case("fractional_max_pool2d", lambda x, s: aten.fractional_max_pool2d(x, (3, 3), (2, 2), s), lambda: (rn(1, 4, 16, 16), torch.rand(1, 4, 2))),
    case("im2col_unfold", lambda x: F.unfold(x, kernel_size=(2, 3), padding=1, stride=2), lambda: (rn(2, 3, 7, 8),)),
]

# --------------------------------------------------------------------------
# matmul


_LINEAR1 = _conv_module(torch.nn.Linear(8, 16), torch.nn.Sigmoid())
_LINEAR2 = _conv_module(*[m for _ in range(4) for m in (torch.nn.Linear(8, 8), torch.nn.ReLU())])


def _baddbmm(a: Any, b: Any, c: Any, beta: float) -> Any:
    return aten.baddbmm(a, b, c, beta=beta)


def _nan_bias() -> Any:
    return torch.full((3, 1, 20), float("nan"))


MATMUL = [
    case("addmm", lambda a, b, c: torch.addmm(a + 1, b + 2, c + 3) + 4, lambda: (rn(8, 8), rn(8, 8), rn(8, 8)), atol=1e-4, rtol=1e-5),
    case("addmm_beta_alpha_broadcast", lambda a, b, c: torch.addmm(a, b, c, beta=0.5, alpha=2.0), lambda: (rn(12), rn(5, 7), rn(7, 12)), atol=1e-5, rtol=1e-5),
    case("linear_sigmoid_module", _LINEAR1, lambda: (rn(2, 8),)),
    case("linear_relu_chain_module", _LINEAR2, lambda: (rn(2, 8),), atol=1e-3, rtol=1e-2),
    case("bmm", lambda a, b: (torch.bmm(a, b), torch.bmm(a + 1, b + 2) + 3), lambda: (rn(2, 8, 8), rn(2, 8, 8)), atol=1e-4, rtol=1e-5),
    case("bmm_rect", lambda a, b: (torch.bmm(a, b), torch.bmm(a + 1, b + 2) + 3), lambda: (rn(1, 16, 8), rn(1, 8, 10)), atol=1e-4, rtol=1e-5),
    case("bmm_permuted", lambda a, b: torch.bmm(a.permute(0, 2, 1), b), lambda: (rn(1, 8, 8), rn(1, 8, 8)), atol=1e-5, rtol=1e-5),
    case("mm_views_of_transposed", lambda a, b: torch.mm(a.view(32, 32), b.view(32, 32)), lambda: (rn(32, 32).transpose(0, 1), rn(1, 32, 32).transpose(0, 1)), atol=1e-4, rtol=1e-5),
    case("baddbmm_beta0", lambda a, b, c: _baddbmm(a, b, c, 0.0), lambda: (rn(3, 1, 20), rn(3, 16, 8), rn(3, 8, 20)), atol=1e-4, rtol=1e-4),
    case("baddbmm_beta1", lambda a, b, c: _baddbmm(a, b, c, 1.0), lambda: (rn(3, 1, 20), rn(3, 16, 8), rn(3, 8, 20)), atol=1e-4, rtol=1e-4),
    case("baddbmm_beta0_nan_input", lambda a, b, c: _baddbmm(a, b, c, 0.0), lambda: (_nan_bias(), rn(3, 16, 8), rn(3, 8, 20)), atol=1e-4, rtol=1e-4),
    case("baddbmm_beta1_nan_input", lambda a, b, c: _baddbmm(a, b, c, 1.0), lambda: (_nan_bias(), rn(3, 16, 8), rn(3, 8, 20))),
    case("matmul_broadcast_shapes", lambda a, b, v: (a @ b, torch.matmul(a, v), torch.matmul(v, b[0]), v @ v), lambda: (rn(2, 3, 4, 5), rn(3, 5, 6), rn(5)), atol=1e-5, rtol=1e-5),
    case("einsum", lambda a, b: (torch.einsum("bij,bjk->bik", a, b), torch.einsum("bij->j", a), torch.einsum("bij,bij->b", a, a)), lambda: (rn(2, 3, 4), rn(2, 4, 5)), atol=1e-5, rtol=1e-5),
    case("mm_int64", lambda a, b: (torch.mm(a, b), a @ b[:, 0]), lambda: (ri(10, 4, 6, low=-10), ri(10, 6, 3, low=-10))),
    case("mm_zero_k", lambda a, b: (torch.mm(a, b), torch.addmm(torch.ones(3, 4), a, b)), lambda: (rn(3, 0), rn(0, 4))),
    case("linear_float64", lambda x, w, b: F.linear(x, w, b), lambda: (rn(2, 8).double(), rn(16, 8).double(), rn(16).double())),
]

# --------------------------------------------------------------------------
# scans, sort, topk


def _sort(a: Any) -> Any:
    return torch.sort(a, dim=-1, stable=True), torch.sort(a, dim=-1, stable=True, descending=True)


def _with_ties() -> tuple[Any, ...]:
    inp = torch.rand(10, 128)
    inp[:, 10:20] = 1.0
    inp[:, 30:40] = 1.0
    return (inp[:, :120],)


SCANS = [
    case("cumsum", lambda x: (x.cumsum(0), x.cumsum(1)), lambda: (torch.rand(16, 32),), atol=1e-5, rtol=1e-5),
    case("cumsum_long_row", lambda x: x.cumsum(-1), lambda: (torch.rand(1, 8192),), atol=1e-5, rtol=1e-5),
    case("cumsum_int_bool", lambda a, b: (a.cumsum(-1), b.cumsum(0), a.cumsum(0, dtype=torch.float32)), lambda: (ri(100, 6, 7, dtype=torch.int32), ri(2, 9, dtype=torch.bool))),
    case("cumsum_inf", lambda x: x.cumsum(-1), lambda: (torch.full((2, 10), float("inf")),)),
    case("cumsum_cumprod_0d", lambda x: (x.cumsum(0), x.cumsum(-1), x.cumprod(0), x.logcumsumexp(0)), lambda: (torch.rand(()),)),
    case("cumprod", lambda x: (x.cumprod(-1), x.cumprod(0)), lambda: (torch.rand(6, 20) + 0.5,), atol=1e-5, rtol=1e-5),
    case("cumprod_int64", lambda x: x.cumprod(-1), lambda: (ri(4, 5, 12, low=-3),)),
    case("logcumsumexp", lambda x: (x.logcumsumexp(0), x.logcumsumexp(1)), lambda: (torch.rand(16, 32),), atol=1e-5, rtol=1e-5),
    case("cummax_cummin", lambda x: (torch.cummax(x, 1), torch.cummin(x, 0)), lambda: (rn(5, 9),)),
    case("sort_stable_ties", _sort, _with_ties),
    case("sort_bool_as_int8", lambda a: torch.sort(a.to(torch.int8), stable=True, descending=True), lambda: (ri(2, 10, 64, dtype=torch.bool),)),
    case("sort_transposed_input", lambda a: torch.sort(a, stable=True), lambda: (rn(64, 10).transpose(0, 1),)),
    case("sort_nan", lambda a: torch.sort(a, stable=True), lambda: (torch.tensor([3.0, float("nan"), -1.0, float("inf"), 0.0]),)),
    case("argsort_msort", lambda a: (torch.argsort(a, dim=0, stable=True), torch.msort(a)), lambda: (rn(7, 3),)),
    case("topk", lambda a: (torch.topk(a, 2, -1), torch.topk(a, 3, -2, largest=False)), lambda: (torch.randperm(64).float().view(1, 1, 8, 8),)),
    case("topk_unsorted_values", lambda a: torch.topk(a, 4, sorted=True)[0], lambda: (rn(3, 10),)),
    case("kthvalue_median", lambda a: (torch.kthvalue(a, 3, 1), torch.median(a, 0), a.median()), lambda: (torch.randperm(35).float().view(5, 7),)),
]

# --------------------------------------------------------------------------
# tensor factories, constants, 0-d and zero-size


def _arange_mix(x: Any) -> Any:
    rng1 = torch.arange(8 * 8, dtype=torch.float32).view(8, 8)
    rng2 = torch.arange(10, 18)
    tmp = x * rng1
    return tmp, tmp + rng2


def _zeros_and_full(a: Any) -> Any:
    return (
        a + 1,
        torch.zeros((1, 8, 4, 4), dtype=torch.float32),
        torch.zeros(2, 3),
        a + torch.ones(8),
        torch.full((2, 3), 3.1416),
        torch.eye(3, 4) + a[:4],
    )


def _new_factories(a: Any) -> Any:
    return (
        aten.new_ones(a, [], dtype=6, layout=0, pin_memory=False),
        aten.new_zeros(a, [2], dtype=torch.int32),
        a.new_full((3,), 7) + 1,
    )


def _fill(x: Any) -> Any:
    tmp = torch.ones_like(x)
    return tmp, aten.fill.Scalar(tmp, 2), aten.fill.Tensor(tmp, torch.tensor(3.0))


def _no_inputs_int32() -> Any:
    a = torch.zeros([1, 2], dtype=torch.int32)
    a = a + a
    return a.to(dtype=torch.float32) * 0.8


def _no_inputs_argmax() -> Any:
    return torch.zeros([2, 2]).argmax(0).float().mean()


FACTORIES = [
    case("arange_mixed", _arange_mix, lambda: (rn(8, 8),)),
    case("arange_int_plus_int", lambda x: x + torch.arange(8), lambda: (ri(4, 8, 8),)),
    case("arange_step", lambda x: x + torch.ops.aten.arange.start_step(0, 53, 4, dtype=torch.int64), lambda: (rn(14),)),
    case("arange_negative_float_step", lambda x: x - torch.arange(512, -512, -1.0), lambda: (rn(1024),)),
    case("arange_float_args_int_dtype", lambda x: torch.arange(0.1, 8.0001, 1, dtype=x.dtype), lambda: (torch.zeros(1, dtype=torch.int64),)),
    case("linspace", lambda x: (torch.linspace(0.125, 0.875, 7) + x, torch.linspace(0, 2, 1) + x[:, :1], torch.linspace(0, 2, 0)), lambda: (rn(1, 7),)),
    case("tensor_constants", lambda x: (torch.tensor([1]) + x, torch.tensor(5), torch.tensor(list(range(2, 20, 2))) + x[:1]), lambda: (rn(9),)),
    case("tensor_constants_empty", lambda x: (torch.tensor([]), torch.tensor([1, 2]) + 1, torch.tensor([1, 2, 3, 4]) + x), lambda: (rn(4),)),
    case("long_tensor_constants", lambda a: (torch.LongTensor([294]) - a, torch.as_tensor([295]) + a), lambda: (ri(999, 8, 8),)),
    case("zeros_ones_full_eye", _zeros_and_full, lambda: (rn(8),)),
    case("new_ones_zeros_full", _new_factories, lambda: (rn(8),)),
    case("full_like", lambda a: torch.full_like(a, 7.777) - 1, lambda: (rn(8),)),
    case("full_boolean", lambda x, n: (torch.full((1,), n >= 1024), torch.full((1,), n >= 1024) + x), lambda: (torch.ones(1, dtype=torch.int64), 1024)),
    case("fill_scalar_tensor", _fill, lambda: (rn(16, 16),)),
    case("clone", lambda x: (torch.clone(x) + 2, torch.clone(x + 1)), lambda: (rn(16, 16),)),
    case("no_inputs_int32_to_float", _no_inputs_int32, tuple),
    case("no_inputs_argmax_to_float", _no_inputs_argmax, tuple),
    case("zero_dim_arith", lambda a, b: (a + b, a * 2, torch.maximum(a, b), (a > b).int(), a.exp()), lambda: (torch.tensor(1.5), torch.tensor(-2.0))),
    case("zero_dim_int_and_bool", lambda a, b: (a + 1, a // 2, b | (a > 3), a.float() / 4), lambda: (torch.tensor(7), torch.tensor(False))),
    case("zero_size_pointwise", lambda a, b: (a + b, a.exp(), (a > 0).long(), a.view(0, 2, 2)), lambda: (torch.ones(0, 4), torch.ones(1, 4))),
    case("zero_size_cat_and_softmax", lambda a, b: (torch.cat([a, b], 0), torch.softmax(a, -1), a.sum(-1)), lambda: (rn(0, 5), rn(3, 5))),
    case("zero_size_index_select", lambda a, i: (a.index_select(0, i), a[i]), lambda: (rn(5, 3), torch.zeros(0, dtype=torch.int64))),
]

CASES = POINTWISE + REDUCTIONS + VIEWS + INDEXING + CAT_PAD + MUTATION + NORMS + CONV_POOL + MATMUL + SCANS + FACTORIES


# --------------------------------------------------------------------------
# the comparison


def _fresh(make: Callable[[], tuple[Any, ...]]) -> tuple[Any, ...]:
    torch.manual_seed(SEED)
    return tuple(make())


def _assert_same(got: Any, want: Any, tol: dict[str, float], what: str) -> None:
    got_leaves, got_spec = pytree.tree_flatten(got)
    want_leaves, want_spec = pytree.tree_flatten(want)
    assert got_spec == want_spec, f"{what}: structure {got_spec} != {want_spec}"
    for i, (g, w) in enumerate(zip(got_leaves, want_leaves, strict=True)):
        if not isinstance(w, torch.Tensor):
            assert g == w, f"{what}[{i}]: {g!r} != {w!r}"
            continue
        assert isinstance(g, torch.Tensor), f"{what}[{i}]: {type(g)} is not a tensor"
        exact = not (w.is_floating_point() or w.is_complex())
        kwargs = {"atol": 0, "rtol": 0} if exact else tol
        torch.testing.assert_close(
            g.detach(), w.detach(), equal_nan=True, msg=lambda m, i=i: f"{what}[{i}]: {m}", **kwargs
        )


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextlib.contextmanager
def _backend_log() -> Iterator[_Records]:
    logger = logging.getLogger("fxdsl.torch_compile")
    handler = _Records()
    old = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)


def run_case(
    fn: Callable[..., Any],
    make: Callable[[], tuple[Any, ...]],
    tol: dict[str, float],
    backend: str = "fxdsl",
    options: dict[str, Any] | None = None,
) -> list[str]:
    """Compares `fn` compiled with `backend` (twice) with eager; returns what
    the backend logged."""
    want_args = _fresh(make)
    want = fn(*want_args)
    compiled = torch.compile(fn, backend=backend, options=options)
    with _backend_log() as log:
        for call in ("first call", "second call"):
            args = _fresh(make)
            got = compiled(*args)
            _assert_same(got, want, tol, f"{call}: output")
            _assert_same(args, want_args, tol, f"{call}: argument")
    return log.messages


@pytest.mark.parametrize(("fn", "make", "tol"), CASES)
def test_matches_eager(fn: Callable[..., Any], make: Callable[[], Any], tol: dict[str, float]) -> None:
    messages = run_case(fn, make, tol)
    whole = [m for m in messages if WHOLE_GRAPH_IN_TORCH in m]
    if whole:
        warnings.warn("; ".join(whole), stacklevel=1)


def test_cases_have_unique_names() -> None:
    names = [p.id for p in CASES]
    assert len(names) == len(set(names))
