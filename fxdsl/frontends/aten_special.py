"""ATen special functions written as composites of existing graph ops:
erfinv, the modified Bessel functions I0 and I1 (and their exponentially
scaled forms), polygamma of any order, nextafter and frexp.

Each is a fixed expression of elementwise graph ops (no loops: a series has
as many terms as its worst argument needs), so the reference interpreter,
fusion and the GPU kernels take it as they take any other elementwise
chain. Every one computes in the node's own float type (f32 for torch's
float32), as torch does, and handles 0, the infinities, NaN and the poles as
torch does.
"""

from __future__ import annotations

import math
from fractions import Fraction

from fxdsl.frontends.aten_math import _digamma, floor, round_half_even
from fxdsl.frontends.aten_registry import (
    ATEN,
    AtenCall,
    Handler,
    UnsupportedNode,
    aten,
    cast_to,
)
from fxdsl.ir import graph
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor


def _horner(x: Tensor | float, coefficients: list[float], like: Tensor) -> Tensor:
    """sum(c_k x^k), `coefficients` from c_0 up (Horner's scheme)."""
    result = ops.full([], coefficients[-1], like.dtype)
    for c in reversed(coefficients[:-1]):
        result = ops.add(ops.mul(result, x), c)
    return result


def _copysign(magnitude: Tensor | float, sign_of: Tensor) -> Tensor:
    if not isinstance(magnitude, Tensor):
        magnitude = ops.full([], magnitude, sign_of.dtype)
    return ops.elementwise(graph.CopysignOp, magnitude, sign_of)


# --------------------------------------------------------------------------- #
# erfinv
# --------------------------------------------------------------------------- #

_ERFINV_CENTRAL = (
    1.50140941, 0.246640727, -0.00417768164, -0.00125372503, 0.00021858087,
    -4.39150654e-06, -3.5233877e-06, 3.43273939e-07, 2.81022636e-08,
)  # fmt: skip
_ERFINV_TAIL = (
    2.83297682, 1.00167406, 0.00943887047, -0.0076224613, 0.00573950773,
    -0.00367342844, 0.00134934322, 0.000100950558, -0.000200214257,
)  # fmt: skip
"""M. Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011):
erfinv(x) = x p(w) with w = -log((1 - x)(1 + x)), p a polynomial in
w - 2.5 where w < 5 (central) and in sqrt(w) - 3 beyond (tail); its
single-precision pair, relative error below 4e-7 on (-1, 1)."""


@aten("erfinv.default", "erfinv_.default")
def _erfinv(call: AtenCall) -> Tensor:
    x = cast_to(call.args[0], call.dtype)
    w = ops.neg(ops.log(ops.mul(ops.sub(1.0, x), ops.add(x, 1.0))))
    central = _horner(ops.sub(w, 2.5), list(_ERFINV_CENTRAL), x)
    # sqrt of the central range's w is finite: no inf - inf there
    tail = _horner(ops.sub(ops.sqrt(w), 3.0), list(_ERFINV_TAIL), x)
    result = ops.mul(ops.where(ops.lt(w, 5.0), central, tail), x)
    # +-1: +-inf (the tail polynomial of an infinite w has no sign); beyond:
    # NaN (the log of a negative), as torch
    return ops.where(ops.eq(ops.abs(x), 1.0), _copysign(math.inf, x), result)


ATEN["prims.erf_inv.default"] = _erfinv


# --------------------------------------------------------------------------- #
# Modified Bessel functions of the first kind, orders 0 and 1
# --------------------------------------------------------------------------- #

_BESSEL_SERIES_UP_TO = 15.0
"""|x| up to here sums the power series, beyond the asymptotic one."""
_BESSEL_SERIES_TERMS = 24
"""Terms of the power series in (x/2)^2: the last is below 1e-9 of the sum
at |x| = 15, and every term is positive (no cancellation)."""
_BESSEL_ASYMPTOTIC_TERMS = 9
"""Terms of the asymptotic series in 1/x: below 1e-9 at |x| = 15."""


def _bessel_i(x: Tensor, order: int, scaled: bool) -> Tensor:
    """I_order(x) (order 0 or 1), times exp(-|x|) when `scaled`.

    |x| <= 15: the power series (x/2)^order sum_k q^k / (k! (k + order)!),
    q = x^2 / 4. Beyond: e^|x| / sqrt(2 pi |x|) sum_k a_k / |x|^k with
    a_k = (-1)^k prod_{j <= k} (4 order^2 - (2j - 1)^2) / (k! 8^k) (Abramowitz
    & Stegun 9.7.1); I1 is odd, so it takes x's sign."""
    size = ops.abs(x)
    small = ops.le(size, _BESSEL_SERIES_UP_TO)
    near = ops.where(small, x, 0.0)  # keeps the series finite where unused
    q = ops.mul(ops.mul(near, near), 0.25)
    series = _horner(
        q,
        [
            1.0 / (math.factorial(k) * math.factorial(k + order))
            for k in range(_BESSEL_SERIES_TERMS)
        ],
        x,
    )
    if order == 1:
        series = ops.mul(series, ops.mul(near, 0.5))
    if scaled:
        series = ops.mul(series, ops.exp(ops.neg(ops.abs(near))))
    far = ops.where(small, _BESSEL_SERIES_UP_TO, size)
    coefficients, a = [1.0], 1.0
    for k in range(1, _BESSEL_ASYMPTOTIC_TERMS):
        a *= -(4 * order * order - (2 * k - 1) ** 2) / (k * 8)
        coefficients.append(a)
    tail = _horner(ops.div(1.0, far), coefficients, x)
    # sqrt(2 pi |x|) as a product: 2 pi |x| overflows for the largest floats
    tail = ops.div(tail, ops.mul(ops.sqrt(far), math.sqrt(2 * math.pi)))
    if not scaled:
        # e^|x| whole, as torch: inf from |x| = 88.7 on, where I(x) itself
        # would still be finite up to 91.9; and NaN at +-inf, as torch's
        # e^x / sqrt(x) there
        growth = ops.exp(far)
        tail = ops.where(ops.eq(growth, math.inf), math.inf, ops.mul(tail, growth))
        tail = ops.where(ops.eq(far, math.inf), math.nan, tail)
    if order == 1:
        tail = _copysign(tail, x)
    return ops.where(small, series, tail)


def _bessel(order: int, scaled: bool) -> Handler:
    def handler(call: AtenCall) -> Tensor:
        return _bessel_i(cast_to(call.args[0], call.dtype), order, scaled)

    return handler


for _names, _order, _scaled in (
    (("i0.default", "i0_.default", "special_modified_bessel_i0.default"), 0, False),
    (("special_i0e.default",), 0, True),
    (("special_i1.default", "special_modified_bessel_i1.default"), 1, False),
    (("special_i1e.default",), 1, True),
):
    aten(*_names)(_bessel(_order, _scaled))
ATEN["prims.bessel_i0.default"] = _bessel(0, False)
ATEN["prims.bessel_i0e.default"] = _bessel(0, True)
ATEN["prims.bessel_i1.default"] = _bessel(1, False)
ATEN["prims.bessel_i1e.default"] = _bessel(1, True)


# --------------------------------------------------------------------------- #
# polygamma
# --------------------------------------------------------------------------- #

_ZETA_SHIFT = 10
"""polygamma moves x below this up by recurrence before the Euler-Maclaurin
tail of the Hurwitz zeta function (below 1e-9 of it from there)."""
_BERNOULLI = (
    Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30),
    Fraction(5, 66), Fraction(-691, 2730),
)  # fmt: skip
"""B_2, B_4, ..., B_12."""


def _cot_derivative(order: int) -> list[int]:
    """Coefficients (from c^0 up) of the polynomial P with
    d^order/dx^order cot(pi x) = pi^order P(cot(pi x)):
    P_0 = c, P_(n+1) = -(1 + c^2) P_n'(c)."""
    p = [0, 1]
    for _ in range(order):
        derivative = [k * p[k] for k in range(1, len(p))] or [0]
        step = [0] * (len(derivative) + 2)
        for k, c in enumerate(derivative):
            step[k] -= c
            step[k + 2] -= c
        p = step
    return p


def _zeta(s: int, z: Tensor) -> Tensor:
    """The Hurwitz zeta function sum_k (z + k)^-s for z >= 1/2: the first
    terms while z + k < _ZETA_SHIFT, then Euler-Maclaurin's tail at y:
    y^(1-s)/(s-1) + y^-s/2 + sum_j B_2j/(2j)! s (s+1) ... (s+2j-2) y^(-s-2j+1)."""

    def power(base: Tensor, exponent: int) -> Tensor:
        result = base
        for _ in range(exponent - 1):
            result = ops.mul(result, base)
        return result

    small = ops.lt(z, float(_ZETA_SHIFT))
    steps = ops.full([], 0.0, z.dtype)
    for k in range(_ZETA_SHIFT):
        term = power(ops.div(1.0, ops.add(z, float(k))), s)
        steps = ops.add(steps, term)
    y = ops.where(small, ops.add(z, float(_ZETA_SHIFT)), z)
    inverse = ops.div(1.0, y)
    # the tail as y^(1-s) (1/(s-1) + inverse/2 + sum_j c_j inverse^(2j))
    square = ops.mul(inverse, inverse)
    coefficients = []
    rising = Fraction(s)  # s (s+1) ... (s+2j-2)
    for j, bernoulli in enumerate(_BERNOULLI, start=1):
        coefficients.append(float(bernoulli / math.factorial(2 * j) * rising))
        rising *= (s + 2 * j - 1) * (s + 2 * j)
    series = ops.mul(square, _horner(square, coefficients, z))
    bracket = ops.add(ops.add(series, ops.mul(inverse, 0.5)), 1.0 / (s - 1))
    tail = ops.mul(power(inverse, s - 1), bracket)
    return ops.where(small, ops.add(steps, tail), tail)


def _cot_pi(r: Tensor) -> Tensor:
    """cot(pi r) for |r| <= 1/2, accurate to its own size near its zero at
    1/2: there as tan(pi (1/2 - |r|)) with r's sign (1/2 - |r| is exact, and
    a rounded pi r would cost cot(pi r) its relative accuracy)."""
    size = ops.abs(r)
    near_zero = ops.div(ops.cos(ops.mul(r, math.pi)), ops.sin(ops.mul(r, math.pi)))
    near_half = _copysign(
        ops.elementwise(graph.TanOp, ops.mul(ops.sub(0.5, size), math.pi)), r
    )
    return ops.where(ops.le(size, 0.25), near_zero, near_half)


def _polygamma_of(order: int, x: Tensor) -> Tensor:
    """psi^(order)(x), order >= 1: (-1)^(order+1) order! zeta(order + 1, x) for
    x >= 1/2; below, the reflection
    psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi^(n+1) P_n(cot(pi x))."""
    low = ops.lt(x, 0.5)
    z = ops.where(low, ops.sub(1.0, x), x)
    sign = 1.0 if order % 2 else -1.0
    positive = ops.mul(_zeta(order + 1, z), sign * math.factorial(order))
    r = ops.sub(x, round_half_even(x))
    polynomial = _horner(_cot_pi(r), [float(c) for c in _cot_derivative(order)], x)
    reflection = ops.sub(
        ops.mul(positive, (-1.0) ** order),
        ops.mul(polynomial, math.pi ** (order + 1)),
    )
    result = ops.where(low, reflection, positive)
    # the poles (0, -1, ...): inf of the series' sign (torch's float
    # trigamma rounds pi x and gives a large finite value at -1, -2, ...);
    # torch's zeta (orders from 2) takes -inf for a pole, +inf to NaN
    pole = ops.logical_and(ops.le(x, 0.0), ops.eq(r, 0.0))
    if order >= 2:
        pole = ops.logical_or(pole, ops.eq(x, -math.inf))
    result = ops.where(pole, sign * math.inf, result)
    if order >= 2:
        result = ops.where(ops.eq(x, math.inf), math.nan, result)
    return result


@aten("polygamma.default", "special_polygamma.default")
def _polygamma(call: AtenCall) -> Tensor:
    order = int(call.args[0])
    if order < 0:
        raise UnsupportedNode(f"polygamma of order {order} (orders are >= 0)")
    rest = AtenCall(call.target, call.args[1:], {}, call.result, call.arg_results[1:])
    if order == 0:
        return _digamma(rest)
    return _polygamma_of(order, cast_to(call.args[1], call.dtype))


@aten("special_trigamma.default")
def _trigamma(call: AtenCall) -> Tensor:
    return _polygamma_of(1, cast_to(call.args[0], call.dtype))


# --------------------------------------------------------------------------- #
# nextafter, frexp
# --------------------------------------------------------------------------- #

_FLOAT_BITS = {"f32": (24, -126), "f16": (11, -14), "f64": (53, -1022)}
"""Significand bits and the smallest normal exponent of each float type."""


def _frexp(x: Tensor) -> tuple[Tensor, Tensor]:
    """(mantissa, exponent) with x = mantissa 2^exponent, 1/2 <= |mantissa| < 1
    (an i32 exponent), exactly: the exponent from log2, corrected by one
    where log2 rounded across a power of two; a subnormal is scaled up into
    the normal range first. 0, inf and NaN keep themselves with exponent 0."""
    digits, min_exponent = _FLOAT_BITS.get(x.dtype, (None, None))
    if digits is None:
        raise UnsupportedNode(f"frexp on {x.dtype} (f32, f16 or f64)")
    size = ops.abs(x)
    subnormal = ops.lt(size, 2.0**min_exponent)
    lift = float(digits)
    scaled = ops.where(subnormal, ops.mul(size, 2.0**digits), size)
    finite = ops.logical_and(ops.gt(scaled, 0.0), ops.lt(scaled, math.inf))
    safe = ops.where(finite, scaled, 1.0)
    exponent = ops.add(floor(ops.elementwise(graph.Log2Op, safe)), 1.0)
    # exp2 of an integer and the product by it are exact; 2^(1 - e) / 2, as
    # 2^-e overflows for the largest floats' e (2^128 is no f32)
    scale = ops.elementwise(graph.Exp2Op, ops.sub(1.0, exponent))
    mantissa = ops.mul(ops.mul(safe, scale), 0.5)
    # fix log2's rounding
    high = ops.ge(mantissa, 1.0)
    low = ops.lt(mantissa, 0.5)
    mantissa = ops.where(high, ops.mul(mantissa, 0.5), mantissa)
    mantissa = ops.where(low, ops.mul(mantissa, 2.0), mantissa)
    exponent = ops.add(exponent, ops.cast(high, x.dtype))
    exponent = ops.sub(exponent, ops.cast(low, x.dtype))
    exponent = ops.where(subnormal, ops.sub(exponent, lift), exponent)
    mantissa = ops.where(finite, _copysign(mantissa, x), x)
    exponent = ops.where(finite, exponent, 0.0)
    return mantissa, ops.cast(exponent, "i32")


@aten("frexp.Tensor")
def _frexp_handler(call: AtenCall) -> tuple[Tensor, Tensor]:
    return _frexp(call.args[0])


ATEN["prims.frexp.default"] = _frexp_handler


@aten("nextafter.default")
def _nextafter(call: AtenCall) -> Tensor:
    # x moved one unit in the last place toward y: the unit is
    # 2^(exponent - digits) from frexp, half that moving toward zero from a
    # power of two, never below the smallest subnormal
    x, y = (cast_to(a, call.dtype) for a in call.args[:2])
    digits, min_exponent = _FLOAT_BITS.get(x.dtype, (None, None))
    if digits is None:
        raise UnsupportedNode(f"nextafter on {x.dtype} (f32, f16 or f64)")
    mantissa, exponent = _frexp(x)
    power = ops.cast(exponent, x.dtype)
    unit = ops.elementwise(graph.Exp2Op, ops.sub(power, float(digits)))
    up = ops.gt(y, x)
    toward_zero = ops.eq(ops.lt(x, 0.0), up)
    at_power = ops.eq(ops.abs(mantissa), 0.5)
    unit = ops.where(ops.logical_and(toward_zero, at_power), ops.mul(unit, 0.5), unit)
    tiniest = 2.0 ** (min_exponent - digits + 1)
    unit = ops.maximum(unit, tiniest)
    stepped = ops.where(up, ops.add(x, unit), ops.sub(x, unit))
    # from 0 to the smallest subnormal of y's side; infinities step to the
    # largest finite value; equal operands give y; NaN in, NaN out
    zero = ops.eq(x, 0.0)
    stepped = ops.where(zero, _copysign(tiniest, ops.sub(y, x)), stepped)
    largest = (2.0 - 2.0 ** (1 - digits)) * 2.0 ** (-min_exponent + 1)
    infinite = ops.eq(ops.abs(x), math.inf)
    stepped = ops.where(infinite, _copysign(largest, x), stepped)
    stepped = ops.where(ops.eq(x, y), y, stepped)
    unordered = ops.logical_or(ops.ne(x, x), ops.ne(y, y))
    return ops.where(unordered, math.nan, stepped)


ATEN["prims.nextafter.default"] = _nextafter
