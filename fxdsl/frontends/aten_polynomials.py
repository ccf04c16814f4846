"""The Hermite (physicists' H_n and probabilists' He_n), Laguerre and
Legendre polynomials of a tensor (or scalar) degree n, by torch's
three-term recurrences.

torch runs each recurrence n times, a loop whose length is a tensor's
value; these have no closed form to stand in (as `aten_chebyshev`'s do).
The recurrence is unrolled to `MAX_DEGREE` steps, each kept per element
only while k < n, so every degree up to `MAX_DEGREE` gives torch's value
(the same operations in the same order) and a larger one gives NaN, not a
wrong value. Every element pays for all the steps: a fixed chain of about
5 * MAX_DEGREE elementwise ops, fused into one kernel. Degrees truncate as
torch's do; n < 0 gives 0. Computed in float32 (16-bit nodes too, rounded
once); an f64 node is refused.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from fxdsl.frontends.aten_math import single_precision, trunc
from fxdsl.frontends.aten_registry import AtenCall, Handler, aten
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor

MAX_DEGREE = 64
"""The largest degree computed; beyond it the result is NaN."""

Step = Callable[[Tensor, Tensor, Tensor, int], Tensor]
"""(x, p, q, k) -> the next value of a recurrence (p the one before q)."""


def _hermite_h(x: Tensor, p: Tensor, q: Tensor, k: int) -> Tensor:
    return ops.sub(ops.mul(ops.add(x, x), q), ops.mul(p, float(2 * k)))


def _hermite_he(x: Tensor, p: Tensor, q: Tensor, k: int) -> Tensor:
    return ops.sub(ops.mul(x, q), ops.mul(p, float(k)))


def _laguerre(x: Tensor, p: Tensor, q: Tensor, k: int) -> Tensor:
    # ((k + k) + (1 - x)) q - k p, over k + 1: torch's order of roundings
    grown = ops.mul(ops.add(ops.sub(1.0, x), float(2 * k)), q)
    return ops.div(ops.sub(grown, ops.mul(p, float(k))), float(k + 1))


def _legendre(x: Tensor, p: Tensor, q: Tensor, k: int) -> Tensor:
    grown = ops.mul(ops.mul(x, float(2 * k + 1)), q)
    return ops.div(ops.sub(grown, ops.mul(p, float(k))), float(k + 1))


POLYNOMIALS: dict[str, tuple[Callable[[Tensor], Tensor], Step]] = {
    "hermite_polynomial_h": (lambda x: ops.add(x, x), _hermite_h),
    "hermite_polynomial_he": (lambda x: x, _hermite_he),
    "laguerre_polynomial_l": (lambda x: ops.sub(1.0, x), _laguerre),
    "legendre_polynomial_p": (lambda x: x, _legendre),
}
"""ATen name (without `special_`) -> (degree 1, the step to degree k+1)."""


def polynomial(name: str, x: Tensor, n: Tensor) -> Tensor:
    first, step = POLYNOMIALS[name]
    n = trunc(n)
    p, q = ops.full([], 1.0, x.dtype), first(x)
    for k in range(1, MAX_DEGREE):
        r = step(x, p, q, k)
        going = ops.lt(float(k), n)
        p, q = ops.where(going, q, p), ops.where(going, r, q)
    result = ops.where(ops.eq(n, 0.0), 1.0, q)
    if name == "laguerre_polynomial_l":  # torch: 1 at x = 0, any degree
        result = ops.where(ops.eq(x, 0.0), 1.0, result)
    if name == "legendre_polynomial_p":  # torch's ends: 1, or (-1)^n at -1
        odd = ops.ne(ops.sub(n, ops.mul(trunc(ops.mul(n, 0.5)), 2.0)), 0.0)
        end = ops.where(ops.logical_and(ops.lt(x, 0.0), odd), -1.0, 1.0)
        result = ops.where(ops.eq(ops.abs(x), 1.0), end, result)
    result = ops.where(ops.gt(n, float(MAX_DEGREE)), math.nan, result)
    return ops.where(ops.lt(n, 0.0), 0.0, result)


def _handler(name: str) -> Handler:
    def handler(call: AtenCall) -> Tensor:
        x, n = (
            v if isinstance(v, Tensor) else ops.full([], float(v), call.dtype)
            for v in call.args[:2]
        )
        return polynomial(name, *single_precision(call, x, n))

    return handler


for _name in POLYNOMIALS:
    aten(*(f"special_{_name}.{o}" for o in ("default", "x_scalar", "n_scalar")))(
        _handler(_name)
    )
