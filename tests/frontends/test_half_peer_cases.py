"""Cases in the manner of the half-precision tests of PyTorch Inductor's own
suite (`test/inductor/test_torchinductor.py`, its `CommonTemplate`: the
tests that loop over `torch.bfloat16` and `torch.float16`, `check_lowp`,
`test_bfloat16_*`, `test_float16_*`, `test_*_half`), run through
`torch.compile(fn, backend="fxdsl", options={"min_block_size": 1})` on the
CPU and compared with eager.

Every row is written once and run twice, in bfloat16 (`_bf16`) and in
float16 (`_f16`): the factory makes its values in float32 and rounds them
to the row's dtype, so both see the same numbers. What is covered:
conversions to and from half (bit views as int16, float32/float64/int
round trips, bfloat16 <-> float16, overflow to inf and underflow to zero
when rounding), pointwise math in half (pow, div with rounding modes,
rsqrt, erf, gelu, silu, tanh and the other activations, lerp/addcmul),
promotion of half with float32 tensors, 0-d tensors, Python scalars, ints
and the other half dtype, where/clamp with half and scalars, inf and NaN
(overflow, nan_to_num, NaN-aware min/max), reductions (sum/mean with and
without `dtype=`, amax/argmax with NaN and ties, var_mean, logsumexp,
norms, cumsum/cumprod), softmax, log_softmax, layer_norm, rms_norm,
group_norm and batch_norm, topk/sort/median, matmul/bmm/addmm/baddbmm/
linear/conv/conv_transpose, embedding and embedding_bag, index_add/
scatter_add/index_put/scatter_reduce with half values, pooling and
upsampling, factories of half tensors inside the graph, and CPU autocast
(`torch.autocast("cpu", dtype=...)` around linear, matmul, softmax, conv).

Each row runs once in eager and twice compiled (the second call reuses the
compiled graph), on arguments made afresh from one seed, under
`torch.no_grad()`. Dtypes must match; integers, booleans and indices
exactly; NaNs equal. Tolerances, per output dtype: float32 (and float64)
outputs within 1e-5, so that a promotion computed in half by mistake shows;
bfloat16 outputs within atol = rtol = 1.6e-2 and float16 outputs within
atol 1e-3, rtol 2e-3, which is one rounding of the output (fxdsl computes
a half op as torch's CPU kernels do: in float32, rounded once when
stored, so a result may differ from eager's by the one ulp that an f32
difference of a few ulps flips). Rows whose outputs sum many products
(matmul, conv, norms over 64 terms) allow a few times that (`scale`); the
comparison with an fp64 reference that the Dynamo suite makes (`same(...,
tol=1e-3)`) would be looser than this for bfloat16 and is not used. A row
whose graph went to torch whole still passes, with a warning naming it
(`pytest -rw`).

The programs are restated, not copied, and made small; where a test
looped over ops or shapes, the loop became one row with several outputs.

Not ported, and why:
- GPU-only half tests (Triton codegen, `fp16 -> fp32` upcasts in generated
  kernels, cuBLAS/cuDNN paths, `mixed_mm` templates, fp8): fxdsl's backend
  runs these on the CPU reference interpreter.
- Tests of Inductor's configuration (`config.cpp.simdlen`, generated-code
  checks with FileCheck, kernel counts) and of its lowp codegen heuristics.
- Random ops in half (dropout, rand, bernoulli): numbers differ by design.
- Backward passes in half: AOTAutograd's joint graph is tested elsewhere.
- Complex half (`complex32`), and `cdist` in half: not supported by
  eager's CPU kernels.

What it found: `torch.round(x, decimals=d)` of a half `x` rounded
`x * 10**d` to the half dtype before rounding it to an integer, where eager
scales in float32 (bf16 -5.0625 with decimals=1: -5.0, eager -5.09375);
fixed, the `round_*decimals` rows. A strict xfail (both dtypes; `aot_eager`
agrees with eager): `topk`'s indices among tied values are the first ones here, where eager's
CPU kernel returns them in the order its partial sort left them
(`topk_indices_of_ties`; torch does not specify that order, so the other
rows compare `topk`'s values and `gather` by its indices instead). Every
other row matched eager: conversions, promotion, the pointwise and special
functions, overflow and NaN, reductions (a float16 sum past 65504 is inf,
its mean is not), the norms, matmul/conv, embedding_bag, the scatter
family, pooling and autocast. No row's graph went to torch whole; the bit
views (`aten.view.dtype`) run in torch inside an fxdsl graph, and a half
tensor plus a 0-d float64 tensor makes torch's decompositions raise
`TensorifyScalarRestartAnalysis`, which the backend treats as a failed
decomposition (logged) and imports without them; the result is right.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest

from fxdsl.testing.optional import need
from fxdsl.testing.peer_cases import Case, case, compare_with_eager, warn_whole_graphs

torch = need("torch")
F = torch.nn.functional

pytestmark = pytest.mark.usefixtures("fresh_dynamo")

SEED = 1234
INF, NAN = float("inf"), float("nan")
OPTIONS = {"min_block_size": 1}
BF16, F16, F32, F64 = torch.bfloat16, torch.float16, torch.float32, torch.float64
I16, I32, I64, BOOL = torch.int16, torch.int32, torch.int64, torch.bool
DTYPES = {"bf16": BF16, "f16": F16}
TOL = {"atol": 1e-5, "rtol": 1e-5}  # float32 and float64 outputs
HALF_TOL = {
    "bf16": {"atol": 1.6e-2, "rtol": 1.6e-2},
    "f16": {"atol": 1e-3, "rtol": 2e-3},
}
TOPK_TIES = (
    "fxdsl bug (an order torch leaves unspecified): topk's indices of tied "
    "values are the first ones here ([0, 2, 3] of [1, 0, 1, 1, 0, 1]), eager's "
    "CPU kernel and aot_eager give [3, 5, 0]"
)
SCALE: dict[str, float] = {}
"""A row's id -> how many times `HALF_TOL` its half outputs may be off."""


def rn(d: Any, *shape: int, scale: float = 1.0) -> Any:
    """Normal values made in float32, then rounded to `d`."""
    return (torch.randn(shape) * scale).to(d)


def pos(d: Any, *shape: int, low: float = 0.1, high: float = 4.0) -> Any:
    """Uniform values in [low, high), rounded to `d`."""
    return (torch.rand(shape) * (high - low) + low).to(d)


def t(values: Any, d: Any) -> Any:
    return torch.tensor(values, dtype=d)


def ri(low: int, high: int, *shape: int) -> Any:
    return torch.randint(low, high, shape)


Fn = Callable[..., Any]
MakeFor = Callable[[Any], tuple[Any, ...]]


def half(
    name: str,
    fn: Fn,
    make: MakeFor,
    *,
    per_dtype: bool = False,
    scale: float = 1.0,
    xfail: str | None = None,
) -> list[Any]:
    """Two rows, `name_bf16` and `name_f16`: `fn` (or `fn(dtype)` when
    `per_dtype`) on `make(dtype)`'s arguments; `scale` widens `HALF_TOL`
    for the row's half outputs; `xfail`: the reason of a strict xfail of
    both. (No row is slow: the file runs in well under a minute.)"""
    rows = []
    for tag, d in DTYPES.items():
        row = case(
            f"{name}_{tag}",
            fn(d) if per_dtype else fn,
            functools.partial(make, d),
            xfail=xfail,
            **TOL,
        )
        SCALE[row.id] = scale
        rows.append(row)
    return rows


# --------------------------------------------------------------------------
# conversions (test_bfloat16_to_int16, test_float16_to_int16,
# test_convert_element_type, to(dtype) round trips)


def _bits(a: Any, b: Any) -> Any:
    s = a + b
    return s.view(I16), (s * 2).view(I16) + 1, a.view(I16).view(a.dtype) * 3


def _round_trips(x: Any) -> Any:
    y = x.float()
    return (
        y * 3,
        y.to(x.dtype),
        (y + 1e-3).to(x.dtype),
        x.double() / 3,
        (x.double() / 3).to(x.dtype),
        (y.sin() * 2).to(x.dtype) + x,
    )


def _to_ints(x: Any) -> Any:
    return x.to(I32), x.to(I64), x.abs().to(torch.uint8), x.to(BOOL), x.to(torch.int8)


def _from_ints(i: Any, like: Any) -> Any:
    # 2049 (float16) and 257 (bfloat16) are the first ints that round
    return i.to(like.dtype), i.type_as(like) * 2, (i + 1).to(like.dtype) - like


def _from_f32(y: Any, like: Any) -> Any:
    # past 65504 float16 rounds to inf; below 2**-24 to zero; bfloat16 keeps
    # float32's range but only 8 bits
    return y.to(like.dtype), y.type_as(like) + like, (y * 1e3).to(like.dtype)


def _cross_half(x: Any) -> Any:
    other = F16 if x.dtype == BF16 else BF16
    return x.to(other), x.to(other).to(x.dtype), x.to(other) + 1, x + x.to(other)


_F32_EDGES = [0.1, 1 / 3, 65504.0, 65520.0, 1e5, 3e-8, 6e-5, -2.5e-7, 1.00390625, 3e38]

CONVERSIONS = [
    *half("bit_view_as_int16", _bits, lambda d: (rn(d, 4, 8), rn(d, 4, 8))),
    *half("float_double_round_trips", _round_trips, lambda d: (rn(d, 6, 7, scale=3),)),
    *half("to_int_uint8_bool_int8", _to_ints, lambda d: (rn(d, 5, 9, scale=20),)),
    *half("from_int_rounding", _from_ints, lambda d: (t([2049, 257, 4097, -3, 0, 65519, 100001], I64), rn(d, 7))),
    *half("from_float32_overflow_underflow", _from_f32, lambda d: (t(_F32_EDGES, F32), rn(d, 10))),
    *half("bfloat16_float16_cross", _cross_half, lambda d: (t([1e5, -7e4, 3e-6, 1 / 3, 0.0, -0.0, INF, NAN], d),)),
]  # fmt: skip


# --------------------------------------------------------------------------
# promotion with half operands (test_add_const_float, test_mixed_*,
# test_type_promotion, test_where_with_*)


def _arith(a: Any, b: Any) -> Any:
    return a + b, a - b, a * b, a / b, -a, a * a - b


def _with_f32(a: Any, f: Any) -> Any:
    return (
        a + f,
        a * f,
        f / a,
        torch.maximum(a, f),
        a.float() - f,
        torch.addcmul(f, a, a),
    )


def _with_scalars(a: Any, z64: Any, i: Any, b: Any) -> Any:
    # a 0-d float64 or a Python float keeps half; an int tensor or a bool
    # promotes to half
    return a + z64, a * 0.1, a + 3, a - i, a * b, 2.5 / a, a + 1e-4, i * 0.5


def _bf16_plus_f16(a: Any) -> Any:
    other = a.to(F16 if a.dtype == BF16 else BF16)
    return a + other, a * other, torch.where(a > 0, a, other)


def _int_scalar_ops(a: Any) -> Any:
    return a * 3, a + 2, a // 2, a % 3, torch.remainder(a, -1.5), torch.fmod(a, 1.25)


def _cat_mixed(a: Any, f: Any) -> Any:
    return (
        torch.cat([a, f]),
        torch.stack([a, a * 2]),
        torch.cat([a, a.float() * 0.5], 1),
    )


def _zero_dim_mixes(a: Any, z32: Any, h0: Any, f: Any) -> Any:
    # a 0-d float32 with an n-d half stays half; a 0-d half with an n-d
    # float32 gives float32
    return a + z32, a * z32 - a, f + h0, f * h0, h0 + z32, a.sum() * f


def _int_to_half_reductions(i: Any, like: Any) -> Any:
    d = like.dtype
    return (
        i.sum(1, dtype=d),
        i.mean(0, dtype=d),
        i.cumsum(1, dtype=d),
        torch.pow(like, i),
    )


PROMOTION = [
    *half("add_sub_mul_div", _arith, lambda d: (rn(d, 6, 8), pos(d, 6, 8))),
    *half("half_with_float32_tensor", _with_f32, lambda d: (rn(d, 6, 8), pos(F32, 6, 8))),
    *half("half_with_0d_float64_int_bool_scalars", _with_scalars, lambda d: (rn(d, 6, 8), t(1.0 / 3.0, F64), ri(-5, 5, 6, 8), ri(0, 2, 6, 8).bool())),
    *half("bfloat16_with_float16_is_float32", _bf16_plus_f16, lambda d: (rn(d, 6, 8),)),
    *half("python_int_scalars_floor_remainder", _int_scalar_ops, lambda d: (rn(d, 6, 8, scale=5),)),
    *half("zero_dim_float32_and_zero_dim_half", _zero_dim_mixes, lambda d: (rn(d, 6, 8), t(1.0 / 3.0, F32), t(0.3, d), rn(F32, 6, 8))),
    *half("int_reductions_with_half_dtype_int_pow", _int_to_half_reductions, lambda d: (ri(-4, 5, 5, 6), rn(d, 5, 6))),
    *half("cat_with_float32_promotes", _cat_mixed, lambda d: (rn(d, 4, 5), rn(F32, 4, 5))),
]  # fmt: skip


# --------------------------------------------------------------------------
# pointwise math (test_pow*, test_div*, test_rsqrt, test_erf, test_gelu,
# test_silu, test_tanh, test_sigmoid, test_lerp, test_addcmul, ...)


def _pows(x: Any, y: Any) -> Any:
    return x**2, x**0.5, x**-1, x**-0.5, x**3, torch.pow(x, y), 2**y, torch.pow(x, 2.5)


def _divs(a: Any, b: Any) -> Any:
    return (
        torch.div(a, b, rounding_mode="floor"),
        torch.div(a, b, rounding_mode="trunc"),
        a / 3,
        torch.div(a, 0.7, rounding_mode="floor"),
        torch.true_divide(a, b),
        torch.floor_divide(a, b),
    )


def _roots(x: Any) -> Any:
    return torch.rsqrt(x), torch.sqrt(x), torch.reciprocal(x), x.rsqrt() * x


def _exps(x: Any) -> Any:
    return (
        torch.exp(x),
        torch.expm1(x),
        torch.exp2(x),
        torch.log(x.abs() + 0.1),
        torch.log1p(x.abs()),
        torch.log2(x.abs() + 0.5),
    )


def _trig(x: Any) -> Any:
    return (
        torch.sin(x),
        torch.cos(x),
        torch.tanh(x),
        torch.sigmoid(x),
        torch.atan(x),
        torch.asinh(x),
    )


def _erfs(x: Any) -> Any:
    return (
        torch.erf(x),
        torch.erfc(x),
        torch.special.ndtr(x),
        torch.erfinv(torch.tanh(x) * 0.9),
    )


def _activations(x: Any) -> Any:
    return (
        F.gelu(x),
        F.gelu(x, approximate="tanh"),
        F.silu(x),
        F.mish(x),
        F.softplus(x),
        F.elu(x),
        F.hardswish(x),
        F.hardsigmoid(x),
        F.leaky_relu(x, 0.1),
        F.relu6(x),
        F.selu(x),
        F.logsigmoid(x),
    )


def _rounding(x: Any) -> Any:
    return (
        x.abs(),
        x.sign(),
        x.floor(),
        x.ceil(),
        x.round(),
        x.trunc(),
        x.frac(),
        torch.round(x * 8) / 8,
    )


def _round_decimals(x: Any) -> Any:
    # eager scales by 10**decimals in float32 and rounds the result once
    return (
        torch.round(x, decimals=1),
        torch.round(x, decimals=2),
        torch.round(x, decimals=-1),
    )


def _blends(a: Any, b: Any, w: Any) -> Any:
    return (
        torch.lerp(a, b, 0.3),
        torch.lerp(a, b, w),
        torch.addcmul(a, b, w, value=0.5),
        torch.addcdiv(a, b, w + 1, value=-2),
        torch.logaddexp(a, b),
        torch.atan2(a, b),
        torch.hypot(a, b),
    )


def _more_unary(x: Any, y: Any) -> Any:
    return (
        torch.logit(torch.sigmoid(x), eps=1e-3),
        torch.xlogy(x.abs(), y.abs()),
        torch.sinc(x),
        F.hardtanh(x, -0.5, 0.5),
        F.threshold(x, 0.2, -1.0),
        torch.copysign(x, y),
        torch.square(x),
        torch.log10(x.abs() + 1),
    )


def _glu(x: Any) -> Any:
    return F.glu(x, -1), F.glu(x, 0)


POINTWISE = [
    *half("pow_exponents", _pows, lambda d: (pos(d, 6, 8), rn(d, 6, 8))),
    *half("div_rounding_modes", _divs, lambda d: (rn(d, 6, 8, scale=8), pos(d, 6, 8) * torch.where(torch.rand(6, 8) > 0.5, 1, -1).to(d))),
    *half("rsqrt_sqrt_reciprocal", _roots, lambda d: (pos(d, 6, 8, low=0.01, high=100),)),
    *half("exp_log_family", _exps, lambda d: (rn(d, 6, 8, scale=2),)),
    *half("trig_tanh_sigmoid", _trig, lambda d: (rn(d, 6, 8, scale=2),)),
    *half("erf_erfc_ndtr_erfinv", _erfs, lambda d: (rn(d, 6, 8, scale=1.5),)),
    *half("activations_gelu_silu_mish", _activations, lambda d: (rn(d, 6, 8, scale=3),)),
    *half("abs_sign_floor_ceil_round", _rounding, lambda d: (rn(d, 6, 8, scale=4),)),
    *half("round_decimals", _round_decimals, lambda d: (rn(d, 6, 8, scale=4),)),
    *half("round_negative_decimals", lambda x: torch.round(x, decimals=-1), lambda d: (rn(d, 6, 8, scale=400),)),
    *half("lerp_addcmul_addcdiv_logaddexp", _blends, lambda d: (rn(d, 6, 8), rn(d, 6, 8), pos(d, 6, 8, low=0.0, high=1.0))),
    *half("logit_xlogy_sinc_copysign", _more_unary, lambda d: (rn(d, 6, 8, scale=2), rn(d, 6, 8))),
    *half("glu", _glu, lambda d: (rn(d, 6, 8),)),
]  # fmt: skip


# --------------------------------------------------------------------------
# where and clamp with half and scalars (test_where_with_logical_op,
# test_clamp_type_promotion, test_masked_fill_promotion)


def _wheres(x: Any, f: Any) -> Any:
    c = x > 0
    return (
        torch.where(c, x, 0.5),
        torch.where(c, 2, x),
        torch.where(c, x, f),
        torch.where(c, 1.0, 0.0),
        torch.where(c, x, torch.zeros((), dtype=F64)),
        x.masked_fill(~c, -INF),
        x.masked_fill(c, 0.1),
    )


def _clamps(x: Any, lo: Any, hi32: Any) -> Any:
    return (
        x.clamp(-0.5, 0.5),
        x.clamp(min=0.25),
        x.clamp(max=-0.1),
        x.clamp(lo, lo + 1),
        x.clamp(max=hi32),
        torch.clamp_min(x, 0.3),
        x.clamp(-2, 2),
        x.clamp(min=t(0.5, F64)),
    )


WHERE_CLAMP = [
    *half("where_with_scalars_and_float32", _wheres, lambda d: (rn(d, 6, 8), rn(F32, 6, 8))),
    *half("clamp_scalars_tensors_float32_bound", _clamps, lambda d: (rn(d, 6, 8, scale=2), rn(d, 6, 8), rn(F32, 6, 8))),
]  # fmt: skip


# --------------------------------------------------------------------------
# inf and NaN in half (test_inf, test_nan_to_num, test_isinf,
# test_fmin_fmax, test_max_min, overflow of float16)

_SPECIALS = [0.0, -0.0, 1.0, -1.0, INF, -INF, NAN, 60000.0, -3e4, 1e-7]


def _inf_nan(x: Any) -> Any:
    return (
        x.isinf(),
        x.isnan(),
        x.isfinite(),
        torch.nan_to_num(x),
        torch.nan_to_num(x, nan=0.5, posinf=100.0, neginf=-100.0),
        x / 0,
        torch.log(x),
        x * 0,
        torch.exp(x),
        torch.signbit(x),
    )


def _overflow(x: Any) -> Any:
    # float16 overflows past 65504, bfloat16 keeps float32's range
    return (
        x * 1000,
        torch.exp(x * 3),
        x * x * x,
        (x.float() * 1000).to(x.dtype),
        x + 65000,
    )


def _nan_minmax(a: Any, b: Any) -> Any:
    return (
        torch.maximum(a, b),
        torch.minimum(a, b),
        torch.fmax(a, b),
        torch.fmin(a, b),
        torch.clamp(a, min=b),
        F.relu(a),
        torch.max(a, b),
    )


def _sum_overflow(x: Any) -> Any:
    # the float16 sum (1e5) overflows when stored; the mean, computed from
    # the float32 sum, does not
    return x.sum(), x.mean(), x.sum(0), x.sum(dtype=F32), x.var(), x.softmax(0)


def _extreme_unary(x: Any) -> Any:
    return (
        torch.rsqrt(x),
        torch.exp(-x * x * 100),
        torch.sigmoid(x * 1000),
        torch.tanh(x * 1000),
        F.log_softmax(x.view(2, 5), 1),
        torch.pow(x, -2),
        torch.sqrt(x),
    )


INF_NAN = [
    *half("isinf_isnan_nan_to_num_div0", _inf_nan, lambda d: (t(_SPECIALS, d),)),
    *half("overflow_to_inf", _overflow, lambda d: (rn(d, 6, 8, scale=30),)),
    *half("sum_overflows_mean_does_not", _sum_overflow, lambda d: (t([100.0] * 1000, d) + t(0.5, d) * (torch.arange(1000) % 3).to(d),), scale=2),
    *half("extreme_arguments_rsqrt_exp_sigmoid", _extreme_unary, lambda d: (t([0.0, -0.0, -1.0, 1e-4, 200.0, -INF, INF, NAN, 3.0, -3.0], d),)),
    *half("maximum_minimum_fmax_fmin_nan", _nan_minmax, lambda d: (t(_SPECIALS, d), t(_SPECIALS[::-1], d))),
]  # fmt: skip


# --------------------------------------------------------------------------
# reductions in half (test_sum_dtype, test_sum_keepdims, test_mean,
# test_var_mean, test_argmax_argmin_with_nan, test_min_max_reduction_nan,
# test_logsumexp, test_prod, test_cumsum*, test_cumprod, test_norm)


def _sums(x: Any) -> Any:
    return (
        x.sum(),
        x.sum(1),
        x.sum((0, 2), keepdim=True),
        x.mean(-1),
        x.mean((0, 1)),
        x.sum(1, dtype=F32),
        x.mean(dtype=F32),
        torch.nansum(x, 2),
        x.sum(-1, dtype=F64),
    )


def _long_sum(x: Any) -> Any:
    # 4096 terms: eager accumulates in float32 and rounds once
    return x.sum(), x.sum(-1), x.mean(), (x * x).sum(0), x.sum(-1, dtype=F32)


def _extremes(x: Any) -> Any:
    return (
        x.amax(1),
        x.amin(0),
        x.max(1),
        x.min(-1, keepdim=True),
        x.argmax(1),
        x.argmin(0),
        x.max(),
        torch.aminmax(x, dim=1),
    )


def _stats(x: Any) -> Any:
    return (
        torch.var_mean(x, 1),
        torch.std_mean(x, (0, 2), correction=0),
        x.var(-1),
        x.std(),
        torch.var(x, 0, keepdim=True, correction=2),
    )


def _lse(x: Any, big: Any) -> Any:
    return (
        torch.logsumexp(x, 1),
        torch.logsumexp(big, -1),
        torch.logsumexp(x, (0, 1)),
        big.logsumexp(0),
    )


def _prods(x: Any) -> Any:
    return x.prod(1), x.prod(), x.prod(0, keepdim=True), x.prod(1, dtype=F32)


def _norms(x: Any) -> Any:
    return (
        torch.linalg.vector_norm(x),
        torch.linalg.vector_norm(x, 1, dim=1),
        torch.linalg.vector_norm(x, INF, dim=0),
        x.norm(dim=-1),
        torch.linalg.vector_norm(x, 2, dim=1, dtype=F32),
        torch.linalg.vector_norm(x, 3.0, dim=1),
    )


def _scans(x: Any) -> Any:
    return (
        x.cumsum(1),
        x.cumsum(0),
        x.cumprod(1),
        x.cumsum(1, dtype=F32),
        torch.logcumsumexp(x, 1),
        torch.cummax(x, 1),
        torch.cummin(x, 0),
    )


def _bool_reduces(x: Any) -> Any:
    return x.any(1), x.all(0), (x > 0).sum(1), torch.count_nonzero(x, 1), x.bool().any()


def _nan_reduce_rows() -> list[list[float]]:
    return [
        [1.0, NAN, 3.0, -2.0, 0.5],
        [-INF, -INF, -INF, -INF, -INF],
        [2.0, 2.0, -1.0, 2.0, 0.0],
        [INF, 1.0, NAN, -INF, 4.0],
    ]


def _nan_reduces(x: Any) -> Any:
    return (
        x.amax(1),
        x.amin(1),
        x.argmax(1),
        x.argmin(1),
        x.sum(1),
        x.max(1),
        torch.logsumexp(x, 1),
    )


def _offset_var(x: Any) -> Any:
    # values near 200 with a spread of 1: E[x^2] - E[x]^2 in float32
    # would lose digits that eager's Welford keeps
    return torch.var_mean(x, -1), x.std(-1, correction=0), torch.var(x)


REDUCTIONS = [
    *half("sum_mean_dims_and_dtype", _sums, lambda d: (rn(d, 4, 6, 8),)),
    *half("long_sum_4096_terms", _long_sum, lambda d: (pos(d, 4, 4096, low=0.0, high=1.0),), scale=2),
    *half("amax_amin_max_min_argmax", _extremes, lambda d: (rn(d, 6, 9),)),
    *half("var_mean_std_mean", _stats, lambda d: (rn(d, 4, 6, 8, scale=2),)),
    *half("logsumexp_large_values", _lse, lambda d: (rn(d, 6, 8), rn(d, 5, 7, scale=300))),
    *half("var_mean_offset_2048_terms", _offset_var, lambda d: (rn(d, 3, 2048) + 200,), scale=2),
    *half("prod", _prods, lambda d: (pos(d, 5, 6, low=0.5, high=1.6),)),
    *half("vector_norms", _norms, lambda d: (rn(d, 6, 64),), scale=2),
    *half("cumsum_cumprod_logcumsumexp_cummax", _scans, lambda d: (rn(d, 5, 16) * 0.5 + 0.5,), scale=2),
    *half("any_all_count_nonzero", _bool_reduces, lambda d: (torch.where(torch.rand(6, 8) > 0.6, rn(d, 6, 8), t(0.0, d)),)),
    *half("reductions_with_nan_inf_ties", _nan_reduces, lambda d: (t(_nan_reduce_rows(), d),)),
]  # fmt: skip


# --------------------------------------------------------------------------
# softmax and the norms (test_softmax*, test_log_softmax, test_layer_norm,
# test_rms_norm, test_group_norm, test_batch_norm_2d, test_logsumexp)


def _softmaxes(x: Any) -> Any:
    return (
        x.softmax(-1),
        x.softmax(0),
        F.log_softmax(x, -1),
        F.softmax(x, -1, dtype=F32),
        x.float().softmax(-1).to(x.dtype),
        F.log_softmax(x, 1, dtype=F32),
    )


def _masked_softmax(x: Any, m: Any) -> Any:
    s = x.masked_fill(m, -INF)
    return s.softmax(-1), F.log_softmax(s, -1), (s * 0.125).softmax(-1)


def _layer_norms(x: Any, w: Any, b: Any) -> Any:
    return (
        F.layer_norm(x, (64,)),
        F.layer_norm(x, (64,), w, b),
        F.layer_norm(x, (8, 64), eps=1e-3),
    )


def _layer_norm_f32_params(x: Any, w: Any, b: Any) -> Any:
    # a half input with float32 weight and bias: eager's CPU kernel keeps
    # the output half
    return F.layer_norm(x, (64,), w, b)


def _rms_norms(x: Any, w: Any) -> Any:
    return (
        F.rms_norm(x, (64,)),
        F.rms_norm(x, (64,), w, eps=1e-5),
        x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w,
    )


def _group_norms(x: Any, w: Any, b: Any) -> Any:
    return F.group_norm(x, 4, w, b), F.group_norm(x, 2), F.instance_norm(x)


def _batch_norm(x: Any, mean: Any, var: Any, w: Any, b: Any) -> Any:
    return F.batch_norm(x, mean, var, w, b, training=False), F.batch_norm(
        x, mean.float(), var.float(), training=False
    )


NORMS = [
    *half("softmax_log_softmax_dims_dtype", _softmaxes, lambda d: (rn(d, 6, 32, scale=3),)),
    *half("masked_softmax_minus_inf", _masked_softmax, lambda d: (rn(d, 4, 6, 16, scale=2), torch.rand(4, 6, 16) > 0.7)),
    *half("layer_norm", _layer_norms, lambda d: (rn(d, 4, 8, 64, scale=2) + 1, rn(d, 64), rn(d, 64)), scale=2),
    *half("layer_norm_float32_weight_bias", _layer_norm_f32_params, lambda d: (rn(d, 4, 8, 64), rn(F32, 64), rn(F32, 64)), scale=2),
    *half("rms_norm", _rms_norms, lambda d: (rn(d, 4, 8, 64), rn(d, 64)), scale=2),
    *half("group_norm_instance_norm", _group_norms, lambda d: (rn(d, 2, 8, 5, 5, scale=2), rn(d, 8), rn(d, 8)), scale=2),
    *half("batch_norm_eval", _batch_norm, lambda d: (rn(d, 4, 6, 5, 5), rn(d, 6), pos(d, 6), rn(d, 6), rn(d, 6)), scale=2),
]  # fmt: skip


# --------------------------------------------------------------------------
# sort, topk, median (test_sort, test_sort_stable, test_topk,
# test_argmax_argmin*, test_median)


def _sorts(x: Any) -> Any:
    return (
        torch.sort(x, -1),
        torch.sort(x, 0, descending=True),
        torch.sort(x, dim=-1, stable=True),
        torch.argsort(x, dim=-1, stable=True),
        torch.topk(x, 3, -1).values,
        x.gather(-1, torch.topk(x, 3, -1).indices),
        torch.topk(x, 2, 0, largest=False).values,
        x.gather(0, torch.topk(x, 2, 0, largest=False).indices),
        torch.msort(x),
    )


def _topk_tie_indices(x: Any) -> Any:
    return torch.topk(x, 3).indices, torch.topk(x, 2, largest=False).indices


def _medians(x: Any) -> Any:
    return x.median(), x.median(1), torch.kthvalue(x, 2, 1), x.nanmedian(0)


SORTS = [
    # few distinct values: ties in half, the stable sort's order is checked
    *half("sort_topk_with_ties", _sorts, lambda d: ((torch.randint(-4, 5, (6, 9)) * 0.25).to(d),)),
    *half("sort_topk_nan_inf", _sorts, lambda d: (t([_SPECIALS[:9]] * 3, d) * t([[1.0], [-1.0], [2.0]], d),)),
    *half("topk_indices_of_ties", _topk_tie_indices, lambda d: (t([1.0, 0.0, 1.0, 1.0, 0.0, 1.0], d),), xfail=TOPK_TIES),
    *half("median_kthvalue", _medians, lambda d: (rn(d, 5, 7),)),
]  # fmt: skip


# --------------------------------------------------------------------------
# matmul family and convolution in half (test_mm*, test_bmm*, test_addmm,
# test_linear*, test_baddbmm, test_conv2d*, test_conv_transpose*)


def _mms(a: Any, b: Any, c: Any) -> Any:
    return (
        a @ b,
        torch.mm(a, b),
        torch.addmm(c, a, b),
        torch.addmm(c, a, b, beta=0.5, alpha=2),
        torch.matmul(a, b).relu(),
    )


def _bmms(a: Any, b: Any, c: Any) -> Any:
    return (
        torch.bmm(a, b),
        torch.baddbmm(c, a, b, alpha=0.5),
        a @ b[0],
        torch.einsum("bij,bjk->bik", a, b),
    )


def _linears(x: Any, w: Any, b: Any) -> Any:
    return F.linear(x, w, b), F.linear(x, w), F.gelu(F.linear(x, w, b)), x @ w.t() + b


def _mm_mixed(a: Any, b: Any) -> Any:
    # matmul does not promote: the operands are cast first
    return a.float() @ b, a @ b.to(a.dtype), (a @ a.t()).float().sum(-1)


def _convs(x: Any, w: Any, b: Any) -> Any:
    return (
        F.conv2d(x, w, b),
        F.conv2d(x, w, b, stride=2, padding=1),
        F.conv2d(x, w, None, padding="same", dilation=2),
        F.conv2d(x, w[:, :2], None, groups=2),
    )


def _conv1d_transpose(x: Any, w: Any, wt: Any) -> Any:
    return F.conv1d(x, w, padding=1), F.conv_transpose1d(x, wt, stride=2)


def _conv_transpose2d(x: Any, w: Any, b: Any) -> Any:
    return F.conv_transpose2d(
        x, w, b, stride=2, padding=1, output_padding=1
    ), F.conv_transpose2d(x, w, None)


def _vector_products(a: Any, v: Any, u: Any) -> Any:
    return (
        torch.mv(a, v),
        torch.dot(v, v),
        torch.outer(u, v),
        torch.addmv(u, a, v, beta=0.5),
        torch.addr(a, u, v, alpha=2),
        torch.tensordot(a, a, ([1], [1])),
    )


def _distances(a: Any, b: Any) -> Any:
    return (
        F.normalize(a, dim=-1),
        F.cosine_similarity(a, b, dim=-1),
        F.pairwise_distance(a, b),
        torch.linalg.vector_norm(a[:, None] - b, dim=-1),
    )


class _Mlp(torch.nn.Module):
    def __init__(self, d: Any) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.fc1 = torch.nn.Linear(16, 32).to(d)
        self.norm = torch.nn.LayerNorm(32).to(d)
        self.fc2 = torch.nn.Linear(32, 8).to(d)

    def forward(self, x: Any) -> Any:
        return self.fc2(F.gelu(self.norm(self.fc1(x)))).softmax(-1)


MATMUL_CONV = [
    *half("mm_addmm", _mms, lambda d: (rn(d, 8, 32), rn(d, 32, 12), rn(d, 12)), scale=3),
    *half("bmm_baddbmm_einsum", _bmms, lambda d: (rn(d, 3, 8, 32), rn(d, 3, 32, 6), rn(d, 3, 8, 6)), scale=3),
    *half("linear_with_bias", _linears, lambda d: (rn(d, 2, 5, 32), rn(d, 16, 32), rn(d, 16)), scale=3),
    *half("matmul_cast_operands", _mm_mixed, lambda d: (rn(d, 8, 32), rn(F32, 32, 12)), scale=3),
    *half("mv_dot_outer_addmv_addr_tensordot", _vector_products, lambda d: (rn(d, 6, 24), rn(d, 24), rn(d, 6)), scale=3),
    *half("normalize_cosine_pairwise_distances", _distances, lambda d: (rn(d, 5, 16), rn(d, 5, 16)), scale=3),
    *half("mlp_module_in_half", _Mlp, lambda d: (rn(d, 4, 16),), per_dtype=True, scale=3),
    *half("conv2d_strides_padding_groups", _convs, lambda d: (rn(d, 2, 4, 9, 9), rn(d, 6, 4, 3, 3), rn(d, 6)), scale=3),
    *half("conv1d_conv_transpose1d", _conv1d_transpose, lambda d: (rn(d, 2, 4, 12), rn(d, 5, 4, 3), rn(d, 4, 3, 4)), scale=3),
    *half("conv_transpose2d", _conv_transpose2d, lambda d: (rn(d, 2, 4, 6, 6), rn(d, 4, 3, 3, 3), rn(d, 3)), scale=3),
]  # fmt: skip


# --------------------------------------------------------------------------
# embedding and indexing with half values (test_embedding_bag*,
# test_embedding, test_index_add, test_scatter_add*, test_index_put*,
# test_scatter_reduce*, test_gather)


def _embeddings(w: Any, idx: Any, offsets: Any, psw: Any) -> Any:
    return (
        F.embedding(idx, w),
        F.embedding_bag(idx, w, offsets, mode="sum"),
        F.embedding_bag(idx, w, offsets, mode="mean"),
        F.embedding_bag(idx, w, offsets, mode="max"),
        F.embedding_bag(idx, w, offsets, mode="sum", per_sample_weights=psw),
        F.embedding(idx, w, padding_idx=0),
    )


def _index_adds(x: Any, idx: Any, src: Any) -> Any:
    return (
        x.index_add(0, idx, src),
        x.index_add(0, idx, src, alpha=0.5),
        torch.zeros_like(x).index_add_(0, idx, src),
        x.index_put((idx,), src, accumulate=True),
    )


def _scatters(x: Any, idx: Any, src: Any) -> Any:
    return (
        x.scatter_add(1, idx, src),
        x.scatter(1, idx, src),
        x.scatter_reduce(1, idx, src, "amax"),
        x.scatter_reduce(1, idx, src, "mean", include_self=False),
        x.scatter_reduce(1, idx, src, "prod"),
        x.gather(1, idx),
    )


def _gathers(x: Any, idx: Any, m: Any) -> Any:
    return (
        x[idx],
        x.index_select(1, idx),
        x[m],
        x[:, idx] * 2,
        x.take_along_dim(idx[:6].view(1, 6).expand(8, 6), 1),
    )


def _puts(x: Any, idx: Any, m: Any, src: Any) -> Any:
    y = x.clone()
    y[idx] = src[: len(idx)]
    z = x.clone()
    z[m] = 0.1
    return y, z, x.masked_scatter(m, src), x.index_fill(1, idx[:2], -INF)


EMBED_INDEX = [
    *half("embedding_embedding_bag_modes", _embeddings, lambda d: (rn(d, 10, 8), ri(0, 10, 12), t([0, 3, 3, 7], I64), pos(d, 12)), scale=2),
    *half("index_add_index_put_accumulate", _index_adds, lambda d: (rn(d, 6, 5), ri(0, 6, 10), rn(d, 10, 5)), scale=2),
    *half("scatter_add_scatter_reduce", _scatters, lambda d: (rn(d, 4, 6), ri(0, 6, 4, 9), rn(d, 4, 9)), scale=2),
    *half("index_put_masked_scatter_index_fill", _puts, lambda d: (rn(d, 6, 5), torch.randperm(6)[:3], torch.rand(6, 5) > 0.5, rn(d, 6, 5))),
    *half("index_select_gather_mask", _gathers, lambda d: (rn(d, 8, 10), ri(0, 8, 7), torch.rand(8, 10) > 0.5)),
]  # fmt: skip


# --------------------------------------------------------------------------
# pooling, upsampling, padding (test_avg_pool2d*, test_max_pool2d*,
# test_adaptive_avg_pool2d*, test_upsample_bilinear2d*,
# test_upsample_nearest2d*, test_reflection_pad2d, test_constant_pad_*)


def _pools(x: Any) -> Any:
    return (
        F.avg_pool2d(x, 2),
        F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
        F.max_pool2d(x, 3, 2, 1),
        F.max_pool2d(x, 2, return_indices=True),
        F.adaptive_avg_pool2d(x, (3, 4)),
        F.adaptive_max_pool2d(x, 3),
    )


def _resize(x: Any) -> Any:
    return (
        F.interpolate(x, scale_factor=2, mode="nearest"),
        F.interpolate(x, size=(7, 5), mode="bilinear", align_corners=False),
        F.interpolate(x, size=(7, 5), mode="bilinear", align_corners=True),
        F.interpolate(x, scale_factor=1.5, mode="bicubic"),
    )


def _pads(x: Any) -> Any:
    return (
        F.pad(x, (1, 2, 2, 1), value=0.1),
        F.pad(x, (2, 2, 1, 1), mode="reflect"),
        F.pad(x, (1, 1, 1, 1), mode="replicate"),
    )


POOL_RESIZE = [
    *half("avg_max_adaptive_pool2d", _pools, lambda d: (rn(d, 2, 3, 9, 8),)),
    *half("upsample_nearest_bilinear_bicubic", _resize, lambda d: (rn(d, 2, 3, 5, 4),), scale=2),
    *half("pad_constant_reflect_replicate", _pads, lambda d: (rn(d, 2, 3, 5, 4),)),
]  # fmt: skip


# --------------------------------------------------------------------------
# factories of half tensors in the graph (test_full_like, test_arange*,
# test_linspace*, test_zeros_like, test_dtype_sympy_expr)


def _factories(x: Any) -> Any:
    d = x.dtype
    return (
        torch.full_like(x, 0.1),
        torch.arange(300, dtype=d),
        torch.arange(0, 2, 0.1, dtype=d),
        torch.linspace(-1, 1, 17, dtype=d),
        torch.zeros_like(x) + x,
        torch.ones(3, 4, dtype=d) * 0.3,
        torch.full((4,), 65504.0, dtype=d),
        x.new_full((2, 3), 1 / 3),
        torch.eye(3, dtype=d) + 1,
    )


def _compare_to_scalar(x: Any) -> Any:
    # the scalar is rounded to x's dtype before the comparison, as in eager
    return (
        x == 0.1,
        x < 1 / 3,
        x >= 0.2,
        x != 65519.0,
        torch.isclose(x, torch.full_like(x, 0.1)),
    )


FACTORIES = [
    *half("full_arange_linspace_eye", _factories, lambda d: (rn(d, 4, 5),)),
    *half("compare_with_unrounded_scalars", _compare_to_scalar, lambda d: (t([0.1, 1 / 3, 0.2, 65519.0, 65504.0, 0.30000001], d),)),
]  # fmt: skip


# --------------------------------------------------------------------------
# losses and attention in half (test_nll_loss*, test_cross_entropy*,
# test_mse_loss, test_scaled_dot_product_attention*)


def _losses(x: Any, target: Any, y: Any) -> Any:
    return (
        F.cross_entropy(x, target),
        F.nll_loss(F.log_softmax(x, -1), target, reduction="none"),
        F.mse_loss(x, y),
        F.smooth_l1_loss(x, y, reduction="sum"),
        F.l1_loss(x, y, reduction="none"),
        F.binary_cross_entropy_with_logits(x, y.sigmoid()),
        F.kl_div(F.log_softmax(x, -1), y.softmax(-1), reduction="batchmean"),
    )


def _sdpa(q: Any, k: Any, v: Any) -> Any:
    return F.scaled_dot_product_attention(q, k, v), F.scaled_dot_product_attention(
        q, k, v, is_causal=True
    )


LOSS_ATTENTION = [
    *half("losses", _losses, lambda d: (rn(d, 6, 10), ri(0, 10, 6), rn(d, 6, 10)), scale=2),
    *half("scaled_dot_product_attention", _sdpa, lambda d: (rn(d, 2, 3, 8, 16), rn(d, 2, 3, 8, 16), rn(d, 2, 3, 8, 16)), scale=3),
]  # fmt: skip


# --------------------------------------------------------------------------
# CPU autocast (test_autocast*, test_bf16_autocast*): float32 inputs,
# `torch.autocast("cpu", dtype=...)` around the region


def _autocast(body: Fn) -> Callable[[Any], Fn]:
    def for_dtype(d: Any) -> Fn:
        def fn(*args: Any) -> Any:
            with torch.autocast("cpu", dtype=d):
                return body(*args)

        return fn

    return for_dtype


def _ac_linear(x: Any, w: Any, b: Any) -> Any:
    y = F.linear(x, w, b)
    return y, y.dtype == torch.float32, F.relu(y) + 1


def _ac_matmul_softmax(q: Any, k: Any) -> Any:
    s = q @ k.transpose(-1, -2)
    return s, s.softmax(-1), F.log_softmax(s, -1), torch.bmm(s.softmax(-1), k)


def _ac_layer_norm(x: Any, w: Any) -> Any:
    h = F.linear(x, w)
    return F.layer_norm(h, (16,)), h.sum(-1), h + x[..., :16]


def _ac_conv(x: Any, w: Any, b: Any) -> Any:
    y = F.conv2d(x, w, b, padding=1)
    return y, F.max_pool2d(y, 2), y.mean((2, 3))


def _ac_mixed_exit(d: Any) -> Fn:
    # the half result of the region meets float32 after it
    def fn(x: Any, w: Any) -> Any:
        with torch.autocast("cpu", dtype=d):
            h = x @ w
        return h + x[:, :8], h.float().softmax(-1), (h * 2).to(torch.float32)

    return fn


AUTOCAST = [
    *half("autocast_linear", _autocast(_ac_linear), lambda d: (rn(F32, 4, 32), rn(F32, 16, 32), rn(F32, 16)), per_dtype=True, scale=3),
    *half("autocast_matmul_softmax_bmm", _autocast(_ac_matmul_softmax), lambda d: (rn(F32, 2, 8, 16), rn(F32, 2, 8, 16)), per_dtype=True, scale=3),
    *half("autocast_linear_layer_norm", _autocast(_ac_layer_norm), lambda d: (rn(F32, 2, 5, 32), rn(F32, 16, 32)), per_dtype=True, scale=3),
    *half("autocast_conv2d_pool", _autocast(_ac_conv), lambda d: (rn(F32, 2, 3, 8, 8), rn(F32, 4, 3, 3, 3), rn(F32, 4)), per_dtype=True, scale=3),
    *half("autocast_result_meets_float32", _ac_mixed_exit, lambda d: (rn(F32, 4, 32), rn(F32, 32, 8)), per_dtype=True, scale=3),
]  # fmt: skip


CASES = (
    CONVERSIONS
    + PROMOTION
    + POINTWISE
    + WHERE_CLAMP
    + INF_NAN
    + REDUCTIONS
    + NORMS
    + SORTS
    + MATMUL_CONV
    + EMBED_INDEX
    + POOL_RESIZE
    + FACTORIES
    + LOSS_ATTENTION
    + AUTOCAST
)


@pytest.mark.parametrize("c", CASES)
def test_matches_eager(c: Case, request: pytest.FixtureRequest) -> None:
    """All under `torch.no_grad()`; half outputs within the row's dtype's
    `HALF_TOL` times its `SCALE`."""
    name = request.node.callspec.id
    tag = name.rsplit("_", 1)[1]
    lowp = {k: v * SCALE[name] for k, v in HALF_TOL[tag].items()}
    messages = compare_with_eager(c, SEED, options=OPTIONS, grad=False, lowp=lowp)
    warn_whole_graphs(messages)


def test_case_names_are_unique() -> None:
    names = [p.id for p in CASES]
    assert len(names) == len(set(names))
