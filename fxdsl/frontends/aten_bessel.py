"""Bessel functions of the first and second kind (J0, J1, Y0, Y1) and the
modified ones of the second kind (K0, K1, and e^x K0, e^x K1), as fixed
expressions of elementwise graph ops, as `aten_special`'s functions are.

J and Y: the rational approximations for |x| < 8 and the asymptotic
(Hankel) forms beyond, with the coefficients of Hart et al.'s fits as
Numerical Recipes (2nd ed., 6.5) prints them, absolute error about 1e-8:
float32's. K: Abramowitz & Stegun 9.8.5-9.8.8 (relative error below 2e-7),
on `aten_special._bessel_i`'s I0 and I1 for x <= 2. Computed in float32
(16-bit nodes too, rounded once); an f64 node is refused
(`single_precision`). Zeros, poles, negative arguments and NaN give what
torch's gives.
"""

from __future__ import annotations

import math

from fxdsl.frontends.aten_math import single_precision
from fxdsl.frontends.aten_registry import ATEN, AtenCall, Handler, aten
from fxdsl.frontends.aten_special import _bessel_i, _horner
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor

_NEAR = 8.0
"""|x| below this takes the rational fit, from it the asymptotic form."""

_J0 = (
    (57568490574.0, -13362590354.0, 651619640.7, -11214424.18, 77392.33017,
     -184.9052456),
    (57568490411.0, 1029532985.0, 9494680.718, 59272.64853, 267.8532712, 1.0),
)  # fmt: skip
_J1 = (
    (72362614232.0, -7895059235.0, 242396853.1, -2972611.439, 15704.48260,
     -30.16036606),
    (144725228442.0, 2300535178.0, 18583304.74, 99447.43394, 376.9991397, 1.0),
)  # fmt: skip
_Y0 = (
    (-2957821389.0, 7062834065.0, -512359803.6, 10879881.29, -86327.92757,
     228.4622733),
    (40076544269.0, 745249964.8, 7189466.438, 47447.26470, 226.1030244, 1.0),
)  # fmt: skip
_Y1 = (
    (-0.4900604943e13, 0.1275274390e13, -0.5153438139e11, 0.7349264551e9,
     -0.4237922726e7, 0.8511937935e4),
    (0.2499580570e14, 0.4244419664e12, 0.3733650367e10, 0.2245904002e8,
     0.1020426050e6, 0.3549632885e3, 1.0),
)  # fmt: skip
"""Numerator and denominator of each |x| < 8 fit, in x^2, c_0 first (J1's
and Y1's numerators times x)."""

_ORDER0_FAR = (
    (1.0, -0.1098628627e-2, 0.2734510407e-4, -0.2073370639e-5, 0.2093887211e-6),
    (-0.1562499995e-1, 0.1430488765e-3, -0.6911147651e-5, 0.7621095161e-6,
     -0.934935152e-7),
)  # fmt: skip
_ORDER1_FAR = (
    (1.0, 0.183105e-2, -0.3516396496e-4, 0.2457520174e-5, -0.240337019e-6),
    (0.04687499995, -0.2002690873e-3, 0.8449199096e-5, -0.88228987e-6,
     0.105787412e-6),
)  # fmt: skip
"""P and Q of the asymptotic form in (8/x)^2: J = sqrt(2 / (pi x)) (P cos
chi - (8/x) Q sin chi), Y the same with sin and cos (chi = x - pi/4 for
order 0, x - 3 pi/4 for order 1)."""

_K0_NEAR = (-0.57721566, 0.42278420, 0.23069756, 0.3488590e-1, 0.262698e-2,
            0.10750e-3, 0.74e-5)  # fmt: skip
_K1_NEAR = (1.0, 0.15443144, -0.67278579, -0.18156897, -0.1919402e-1,
            -0.110404e-2, -0.4686e-4)  # fmt: skip
_K0_FAR = (1.25331414, -0.7832358e-1, 0.2189568e-1, -0.1062446e-1, 0.587872e-2,
           -0.251540e-2, 0.53208e-3)  # fmt: skip
_K1_FAR = (1.25331414, 0.23498619, -0.3655620e-1, 0.1504268e-1, -0.780353e-2,
           0.325614e-2, -0.68245e-3)  # fmt: skip
"""A&S 9.8.5-9.8.8: K0 = -log(x/2) I0 + p(x^2/4), x K1 = x log(x/2) I1 +
p(x^2/4) for x <= 2; sqrt(x) e^x K = p(2/x) beyond."""


def _ratio(x: Tensor, square: Tensor, fit: tuple[tuple[float, ...], ...]) -> Tensor:
    numerator, denominator = (_horner(square, list(c), x) for c in fit)
    return ops.div(numerator, denominator)


def _far(size: Tensor, order: int, second_kind: bool) -> Tensor:
    """The asymptotic form at |x| >= 8 (`size` >= 8 where it is used)."""
    p_coefficients, q_coefficients = _ORDER1_FAR if order else _ORDER0_FAR
    z = ops.div(_NEAR, size)
    square = ops.mul(z, z)
    p, q = (_horner(square, list(c), size) for c in (p_coefficients, q_coefficients))
    chi = ops.sub(size, (3 if order else 1) * math.pi / 4)
    cos, sin = ops.cos(chi), ops.sin(chi)
    if second_kind:
        wave = ops.add(ops.mul(sin, p), ops.mul(ops.mul(z, cos), q))
    else:
        wave = ops.sub(ops.mul(cos, p), ops.mul(ops.mul(z, sin), q))
    return ops.mul(ops.sqrt(ops.div(2 / math.pi, size)), wave)


def bessel_j(x: Tensor, order: int) -> Tensor:
    """J0(x) or J1(x)."""
    size = ops.abs(x)
    near = ops.lt(size, _NEAR)
    inside = ops.where(near, x, 0.0)  # keeps the unused fit finite
    square = ops.mul(inside, inside)
    fit = _ratio(x, square, _J1 if order else _J0)
    far = _far(ops.where(near, _NEAR, size), order, False)
    if order:  # odd
        fit = ops.mul(fit, inside)
        far = ops.mul(far, ops.where(ops.lt(x, 0.0), -1.0, 1.0))
    return ops.where(near, fit, far)


def bessel_y(x: Tensor, order: int) -> Tensor:
    """Y0(x) or Y1(x): -inf at 0, NaN below, as torch."""
    near = ops.lt(x, _NEAR)
    inside = ops.where(near, x, 1.0)
    square = ops.mul(inside, inside)
    fit = _ratio(x, square, _Y1 if order else _Y0)
    log = ops.log(inside)
    if order:
        j1 = bessel_j(inside, 1)
        fit = ops.add(
            ops.mul(fit, inside),
            ops.mul(ops.sub(ops.mul(j1, log), ops.div(1.0, inside)), 2 / math.pi),
        )
    else:
        fit = ops.add(fit, ops.mul(ops.mul(bessel_j(inside, 0), log), 2 / math.pi))
    result = ops.where(near, fit, _far(ops.where(near, _NEAR, x), order, True))
    result = ops.where(ops.eq(x, 0.0), -math.inf, result)
    return ops.where(ops.lt(x, 0.0), math.nan, result)


def bessel_k(x: Tensor, order: int, scaled: bool) -> Tensor:
    """K0(x) or K1(x), times e^x when `scaled`: inf at 0, NaN below 0."""
    near = ops.le(x, 2.0)
    inside = ops.where(near, x, 1.0)
    quarter_square = ops.mul(ops.mul(inside, inside), 0.25)
    log = ops.sub(ops.log(inside), math.log(2.0))  # x/2 of a subnormal is 0
    if order:
        series = _horner(quarter_square, list(_K1_NEAR), x)
        fit = ops.add(
            ops.mul(log, _bessel_i(inside, 1, False)), ops.div(series, inside)
        )
    else:
        series = _horner(quarter_square, list(_K0_NEAR), x)
        fit = ops.sub(series, ops.mul(log, _bessel_i(inside, 0, False)))
    if scaled:
        fit = ops.mul(fit, ops.exp(inside))
    outside = ops.where(near, 2.0, x)
    far = ops.div(
        _horner(ops.div(2.0, outside), list(_K1_FAR if order else _K0_FAR), x),
        ops.sqrt(outside),
    )
    if not scaled:
        far = ops.mul(far, ops.exp(ops.neg(outside)))
    result = ops.where(near, fit, far)
    result = ops.where(ops.eq(x, 0.0), math.inf, result)
    return ops.where(ops.lt(x, 0.0), math.nan, result)


def _handler(function: str, order: int) -> Handler:
    def handler(call: AtenCall) -> Tensor:
        (x,) = single_precision(call, call.args[0])
        if function == "j":
            return bessel_j(x, order)
        if function == "y":
            return bessel_y(x, order)
        return bessel_k(x, order, scaled=function == "k_scaled")

    return handler


for _order in (0, 1):
    aten(f"special_bessel_j{_order}.default")(_handler("j", _order))
    aten(f"special_bessel_y{_order}.default")(_handler("y", _order))
    aten(f"special_modified_bessel_k{_order}.default")(_handler("k", _order))
    aten(f"special_scaled_modified_bessel_k{_order}.default")(
        _handler("k_scaled", _order)
    )
    ATEN[f"prims.bessel_j{_order}.default"] = _handler("j", _order)
