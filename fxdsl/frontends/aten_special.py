"""ATen special functions written as composites of existing graph ops:
erfinv, erfcx, log_ndtr, spherical_bessel_j0, the modified Bessel functions
I0 and I1 (and their exponentially scaled forms), polygamma of any order,
nextafter, frexp and the regularized incomplete gamma functions (igamma,
igammac).

Each is a fixed expression of elementwise graph ops (no loops: a series has
as many terms as its worst argument needs), so the reference interpreter,
fusion and the GPU kernels take it as they take any other elementwise
chain. Every one computes in the node's own float type (f32 for torch's
float32), as torch does, and handles 0, the infinities, NaN and the poles as
torch does. Their series are sized for float32 (and f16/bf16): an f64 node
is refused (`single_precision`), except frexp and nextafter, which are exact
in every float type.
"""

from __future__ import annotations

import math
from fractions import Fraction

from fxdsl.frontends.aten_math import (
    _digamma,
    _lgamma_positive,
    erfc,
    erfcx_of_size,
    expm1,
    floor,
    log1p,
    round_half_even,
    single_precision,
)
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
    (x,) = single_precision(call, call.args[0])
    w = ops.neg(ops.log(ops.mul(ops.sub(1.0, x), ops.add(x, 1.0))))
    central = _horner(ops.sub(w, 2.5), list(_ERFINV_CENTRAL), x)
    # sqrt of the central range's w is finite: no inf - inf there
    tail = _horner(ops.sub(ops.sqrt(w), 3.0), list(_ERFINV_TAIL), x)
    result = ops.mul(ops.where(ops.lt(w, 5.0), central, tail), x)
    # +-1: +-inf (the tail polynomial of an infinite w has no sign); beyond:
    # NaN (the log of a negative), as torch
    return ops.where(ops.eq(ops.abs(x), 1.0), _copysign(math.inf, x), result)


ATEN["prims.erf_inv.default"] = _erfinv


_NDTRI_FIT_UP_TO = 16.0
"""w below which Giles' erfinv fit serves the normal quantile (it is fitted
for float32's erfinv, w <= 16.6); beyond, p < 3e-8, the fixed point."""
_NDTRI_ITERATIONS = 5
"""Fixed-point steps in the far lower tail: each shrinks the error by about
1 / z^2 < 1/25 (float32's rounding after four)."""


@aten("special_ndtri.default")
def _ndtri(call: AtenCall) -> Tensor:
    # the normal quantile: sqrt(2) erfinv(2p - 1), with Giles' w taken as
    # -log(4 p (1 - p)), which loses nothing to 1 - x^2 near p = 0
    (p,) = single_precision(call, call.args[0])
    x = ops.sub(ops.add(p, p), 1.0)
    w = ops.neg(ops.log(ops.mul(ops.mul(p, 4.0), ops.sub(1.0, p))))
    fitted = ops.where(ops.lt(w, _NDTRI_FIT_UP_TO), w, 5.0)
    central = _horner(ops.sub(fitted, 2.5), list(_ERFINV_CENTRAL), p)
    tail = _horner(ops.sub(ops.sqrt(fitted), 3.0), list(_ERFINV_TAIL), p)
    fit = ops.mul(ops.mul(ops.where(ops.lt(w, 5.0), central, tail), x), math.sqrt(2))
    # beyond the fit (p < 3e-8; 1 - p never gets there in float32): z = -x
    # solves p = erfc(z / sqrt 2) / 2 = exp(-z^2/2) erfcx(z / sqrt 2) / 2,
    # so z = sqrt(2 (log(erfcx(z / sqrt 2) / 2) - log p)), a contraction
    far = ops.lt(_NDTRI_FIT_UP_TO, w)
    log_p = ops.log(ops.where(far, p, 1e-10))
    z = ops.sqrt(ops.mul(log_p, -2.0))
    for _ in range(_NDTRI_ITERATIONS):
        scaled = erfcx_of_size(ops.mul(z, 1 / math.sqrt(2)))
        z = ops.sqrt(ops.mul(ops.sub(ops.log(ops.mul(scaled, 0.5)), log_p), 2.0))
    result = ops.where(far, ops.neg(z), fit)
    # the ends, as torch: the fit's polynomial at w = inf has no sign, and
    # outside [0, 1] its w is clamped: NaN
    result = ops.where(ops.eq(p, 0.0), -math.inf, result)
    result = ops.where(ops.eq(p, 1.0), math.inf, result)
    outside = ops.logical_or(ops.lt(p, 0.0), ops.gt(p, 1.0))
    return ops.where(outside, math.nan, result)


ATEN["prims.ndtri.default"] = _ndtri


@aten("special_erfcx.default")
def _erfcx(call: AtenCall) -> Tensor:
    # exp(x^2) erfc(x): the erfc fit without its exp(-x^2) for x >= 0;
    # below, 2 exp(x^2) - erfcx(-x) (inf from x = -9.4, as the value)
    (x,) = single_precision(call, call.args[0])
    positive = erfcx_of_size(x)
    negative = ops.sub(ops.mul(ops.exp(ops.mul(x, x)), 2.0), positive)
    result = ops.where(ops.lt(x, 0.0), negative, positive)
    return ops.where(ops.eq(x, math.inf), 0.0, result)


ATEN["prims.erfcx.default"] = _erfcx


@aten("special_log_ndtr.default")
def _log_ndtr(call: AtenCall) -> Tensor:
    # log Phi(x), Phi(x) = erfc(-x / sqrt 2) / 2: log1p(-erfc(t) / 2) above
    # 0 (Phi near 1), log(erfcx(-t) / 2) - t^2 below -1 (Phi underflows)
    (x,) = single_precision(call, call.args[0])
    t = ops.mul(x, 1 / math.sqrt(2.0))
    upper = log1p(ops.mul(erfc(t), -0.5))
    middle = ops.log(ops.mul(erfc(ops.neg(t)), 0.5))
    lower = ops.sub(ops.log(ops.mul(erfcx_of_size(t), 0.5)), ops.mul(t, t))
    result = ops.where(ops.gt(x, 0.0), upper, middle)
    return ops.where(ops.lt(x, -1.0), lower, result)


@aten("special_spherical_bessel_j0.default")
def _spherical_bessel_j0(call: AtenCall) -> Tensor:
    # sin(x) / x; below |x| = 1/2 its Taylor series (sin x / x would lose
    # nothing, but 0 / 0 at 0); 0 at the infinities, as torch
    (x,) = single_precision(call, call.args[0])
    square = ops.mul(x, x)
    terms = [(-1.0) ** k / math.factorial(2 * k + 1) for k in range(7)]
    series = _horner(square, terms, x)
    ratio = ops.div(ops.sin(x), ops.where(ops.eq(x, 0.0), 1.0, x))
    result = ops.where(ops.lt(ops.abs(x), 0.5), series, ratio)
    return ops.where(ops.eq(ops.abs(x), math.inf), 0.0, result)


ATEN["prims.spherical_bessel_j0.default"] = _spherical_bessel_j0


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
        return _bessel_i(*single_precision(call, call.args[0]), order, scaled)

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
    return _polygamma_of(order, *single_precision(call, call.args[1]))


# --------------------------------------------------------------------------- #
# nextafter, frexp
# --------------------------------------------------------------------------- #

_FLOAT_BITS = {
    "f32": (24, -126),
    "f16": (11, -14),
    "bf16": (8, -126),
    "f64": (53, -1022),
}
"""Significand bits and the smallest normal exponent of each float type."""


def _frexp(x: Tensor) -> tuple[Tensor, Tensor]:
    """(mantissa, exponent) with x = mantissa 2^exponent, 1/2 <= |mantissa| < 1
    (an i32 exponent), exactly: the exponent from log2, corrected by one
    where log2 rounded across a power of two; a subnormal is scaled up into
    the normal range first. 0, inf and NaN keep themselves with exponent 0."""
    digits, min_exponent = _FLOAT_BITS.get(x.dtype, (None, None))
    if digits is None:
        raise UnsupportedNode(f"frexp on {x.dtype} (a float type)")
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
        raise UnsupportedNode(f"nextafter on {x.dtype} (a float type)")
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


# --------------------------------------------------------------------------- #
# igamma, igammac: the regularized incomplete gamma functions P(a, x), Q(a, x)
# --------------------------------------------------------------------------- #

_TERMS = 64
"""Terms of the power series of P and depth of the continued fraction of Q:
enough (below 1e-8) wherever they are used, as the uniform expansion takes
over where either would need more (a > 50 with x near a)."""
_UNIFORM_FROM = 50.0
_UNIFORM_BAND = 0.3
"""Temme's uniform expansion serves a > 50 with |x - a| < 0.3 a, where its
terms after c_2 / a^2 fall below 1e-8."""
_TEMME = (
    (Fraction(-1, 3), Fraction(1, 12), Fraction(-2, 135), Fraction(1, 864),
     Fraction(1, 2835), Fraction(-139, 777600), Fraction(1, 25515),
     Fraction(-571, 261273600), Fraction(-281, 151559100)),
    (Fraction(-1, 540), Fraction(-1, 288), Fraction(1, 378), Fraction(-77, 77760),
     Fraction(1, 4860), Fraction(-1, 2488320), Fraction(-2743, 151559100)),
    (Fraction(25, 6048), Fraction(-139, 51840), Fraction(1, 1296),
     Fraction(1, 497664), Fraction(-6199, 57736800)),
)  # fmt: skip
"""Taylor coefficients in eta of Temme's c_0, c_1, c_2 (DLMF 8.12.8-8.12.11),
derived here from eta^2 / 2 = mu - log(1 + mu), mu = x / a - 1, by series
reversion (in exact rational arithmetic); |eta| < 0.33 in the band."""


_STIRLING_FROM = 10.0
"""From here on the prefactor takes Stirling's series for log Gamma(a)."""


def _gamma_prefactor(a: Tensor, x: Tensor, shift: float) -> Tensor:
    """x^a e^-x / Gamma(a + shift) (shift 0 or 1), through its logarithm:
    a log x - x - lgamma(a + shift) below a = 10; from there, as
    -a (mu - log(1 + mu)) + log(a / 2 pi) / 2 - S(a), mu = x / a - 1 and S
    Stirling's series, whose terms are small (a log x and lgamma(a) are
    large and cancel: 1e-5 of the result lost in f32 at a = 40)."""
    plain = ops.sub(ops.sub(ops.mul(a, ops.log(x)), x), _lgamma_positive(a))
    big = ops.ge(a, _STIRLING_FROM)
    b = ops.where(big, a, _STIRLING_FROM)
    mu = ops.div(ops.sub(x, b), b)  # x - a is exact near a
    small = ops.lt(ops.abs(mu), 0.25)
    # mu - log(1 + mu): its series where it would cancel, else directly
    series = ops.mul(
        ops.mul(mu, mu), _horner(mu, [(-1.0) ** k / (k + 2) for k in range(14)], a)
    )
    direct = ops.sub(mu, ops.log(ops.add(ops.where(small, 0.0, mu), 1.0)))
    excess = ops.where(small, series, direct)
    inverse = ops.div(1.0, b)
    square = ops.mul(inverse, inverse)
    stirling = ops.mul(
        inverse, _horner(square, [1 / 12, -1 / 360, 1 / 1260, -1 / 1680], a)
    )
    log = ops.sub(ops.mul(ops.neg(b), excess), stirling)
    log = ops.add(log, ops.mul(ops.log(ops.mul(b, 1 / (2 * math.pi))), 0.5))
    # Gamma(a + 1) = a Gamma(a)
    prefactor = ops.exp(ops.where(big, log, plain))
    return ops.div(prefactor, a) if shift else prefactor


def _p_series(a: Tensor, x: Tensor) -> Tensor:
    """P(a, x) = x^a e^-x / Gamma(a + 1) sum_k x^k / ((a + 1) ... (a + k))."""
    term = ops.full([], 1.0, a.dtype)
    total = term
    for k in range(1, _TERMS):
        term = ops.mul(term, ops.div(x, ops.add(a, float(k))))
        total = ops.add(total, term)
    return ops.mul(_gamma_prefactor(a, x, 1.0), total)


def _riemann_zeta(s: int) -> float:
    """zeta(s), s >= 2, in double precision: 20 terms and the
    Euler-Maclaurin tail."""
    n = 20
    total = sum(k**-s for k in range(1, n)) + n ** (1 - s) / (s - 1) + n**-s / 2
    rising = float(s)
    for j, bernoulli in enumerate(_BERNOULLI, start=1):
        total += (
            float(bernoulli) / math.factorial(2 * j) * rising * n ** (-s - 2 * j + 1)
        )
        rising *= (s + 2 * j - 1) * (s + 2 * j)
    return total


_LGAMMA1P = [0.0, -0.5772156649015329] + [
    (-1.0) ** k * _riemann_zeta(k) / k for k in range(2, 28)
]
"""Taylor coefficients of log Gamma(1 + a) at 0: -Euler's gamma, then
(-1)^k zeta(k) / k (below 1e-9 at |a| = 1/2 after 27 terms)."""
_Q_SERIES_TERMS = 22


def _q_series(a: Tensor, x: Tensor) -> Tensor:
    """Q(a, x) for a <= 1/2, x <= 3/2 without 1 - P's cancellation:
    1 - x^a / Gamma(1 + a) (an expm1) less x^a / Gamma(1 + a) a
    sum_(n >= 1) (-x)^n / (n! (a + n))."""
    log = ops.sub(ops.mul(a, ops.log(x)), _horner(a, _LGAMMA1P, a))
    term = ops.full([], 1.0, a.dtype)
    total = ops.full([], 0.0, a.dtype)
    for n in range(1, _Q_SERIES_TERMS):
        term = ops.mul(term, ops.mul(x, -1.0 / n))
        total = ops.add(total, ops.div(term, ops.add(a, float(n))))
    rest = ops.mul(ops.mul(ops.exp(log), a), total)
    return ops.sub(ops.neg(expm1(log)), rest)


def _q_fraction(a: Tensor, x: Tensor) -> Tensor:
    """Q(a, x) = x^a e^-x / Gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3 - a -
    2 (2 - a) / ...)), Legendre's continued fraction, evaluated from its
    depth `_TERMS` up."""
    base = ops.sub(x, a)
    fraction = ops.add(base, float(2 * _TERMS + 1))
    for k in range(_TERMS, 0, -1):
        numerator = ops.mul(ops.sub(float(k), a), float(k))
        fraction = ops.sub(
            ops.add(base, float(2 * k - 1)), ops.div(numerator, fraction)
        )
    return ops.div(_gamma_prefactor(a, x, 0.0), fraction)


def _uniform(a: Tensor, x: Tensor) -> tuple[Tensor, Tensor]:
    """(P, Q) by Temme's uniform expansion: Q = erfc(eta sqrt(a/2)) / 2 + R,
    P = erfc(-eta sqrt(a/2)) / 2 - R, R = e^(-a eta^2/2) / sqrt(2 pi a)
    (c_0 + c_1 / a + c_2 / a^2), eta^2 / 2 = mu - log(1 + mu) summed as a
    series in mu (no cancellation)."""
    mu = ops.div(ops.sub(x, a), a)  # x - a is exact near a
    half_square = _horner(mu, [(-1.0) ** k / (k + 2) for k in range(16)], a)
    eta = ops.mul(mu, ops.sqrt(ops.mul(half_square, 2.0)))
    inverse = ops.div(1.0, a)
    series = [_horner(eta, [float(c) for c in cs], a) for cs in _TEMME]
    correction = ops.add(
        series[0], ops.mul(inverse, ops.add(series[1], ops.mul(inverse, series[2])))
    )
    scale = ops.div(
        ops.exp(ops.mul(ops.mul(ops.mul(eta, eta), a), -0.5)),
        ops.mul(ops.sqrt(a), math.sqrt(2 * math.pi)),
    )
    rest = ops.mul(scale, correction)
    argument = ops.mul(eta, ops.sqrt(ops.mul(a, 0.5)))
    q = ops.add(ops.mul(erfc(argument), 0.5), rest)
    p = ops.sub(ops.mul(erfc(ops.neg(argument)), 0.5), rest)
    return p, q


def _incomplete_gamma(a: Tensor, x: Tensor, upper: bool) -> Tensor:
    """P(a, x) (`upper`: Q(a, x)) for tensors of one float type, with
    torch's values at the edges: NaN for a negative operand, for a = x = 0
    and for two infinities; P = 1 at x = inf or a = 0 < x; P = 0 at x = 0
    or a = inf."""
    near = ops.lt(ops.abs(ops.sub(x, a)), ops.mul(a, _UNIFORM_BAND))
    uniform = ops.logical_and(ops.gt(a, _UNIFORM_FROM), near)
    series = ops.lt(x, ops.add(a, 1.0))
    # each branch sees arguments it converges for (the others' stand-ins)
    positive = ops.logical_and(ops.gt(a, 0.0), ops.gt(x, 0.0))
    finite = ops.logical_and(ops.lt(a, math.inf), ops.lt(x, math.inf))
    ok = ops.logical_and(positive, finite)
    a1, x1 = ops.where(ok, a, 1.0), ops.where(ok, x, 1.0)
    p_series = _p_series(a1, ops.where(series, x1, 0.5))
    q_fraction = _q_fraction(a1, ops.where(series, ops.add(a1, 2.0), x1))
    uniform_a = ops.where(uniform, a1, 100.0)
    p_uniform, q_uniform = _uniform(uniform_a, ops.where(uniform, x1, 100.0))
    if upper:
        small = ops.logical_and(ops.le(a1, 0.5), ops.le(x1, 1.5))
        q_small = _q_series(ops.where(small, a1, 0.5), ops.where(small, x1, 1.0))
        q_low = ops.where(small, q_small, ops.sub(1.0, p_series))
        result = ops.where(series, q_low, q_fraction)
        result = ops.where(uniform, q_uniform, result)
    else:
        result = ops.where(series, p_series, ops.sub(1.0, q_fraction))
        result = ops.where(uniform, p_uniform, result)
    # the edges, as P; Q is 1 - P there
    p_edge = ops.where(ops.eq(x, math.inf), 1.0, ops.where(ops.eq(a, 0.0), 1.0, 0.0))
    edge = ops.sub(1.0, p_edge) if upper else p_edge
    result = ops.where(ok, result, edge)
    invalid = ops.logical_or(ops.lt(a, 0.0), ops.lt(x, 0.0))
    invalid = ops.logical_or(invalid, ops.logical_and(ops.eq(a, 0.0), ops.eq(x, 0.0)))
    both = ops.logical_and(ops.eq(a, math.inf), ops.eq(x, math.inf))
    invalid = ops.logical_or(invalid, both)
    invalid = ops.logical_or(invalid, ops.logical_or(ops.ne(a, a), ops.ne(x, x)))
    return ops.where(invalid, math.nan, result)


@aten("igamma.default", "igamma_.default", "special_gammainc.default")
def _igamma(call: AtenCall) -> Tensor:
    a, x = single_precision(call, *call.args[:2])
    return _incomplete_gamma(a, x, upper=False)


@aten("igammac.default", "igammac_.default", "special_gammaincc.default")
def _igammac(call: AtenCall) -> Tensor:
    a, x = single_precision(call, *call.args[:2])
    return _incomplete_gamma(a, x, upper=True)


ATEN["prims.igamma.default"] = _igamma
ATEN["prims.igammac.default"] = _igammac
