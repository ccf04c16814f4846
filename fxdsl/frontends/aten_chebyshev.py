"""Chebyshev polynomials of the four kinds, T_n, U_n, V_n and W_n, and their
shifted forms (x -> 2x - 1), for a tensor (or scalar) degree n.

torch runs the three-term recurrence n times, a loop whose length is a
tensor's value, which a fixed expression of graph ops cannot unroll; torch
itself switches to the trigonometric form for large n. Here every degree
takes the closed forms, with theta = acos|x| (or t = acosh|x| beyond 1):

    T_n = cos(n theta)                U_n = sin((n+1) theta) / sin(theta)
    V_n = cos((n+1/2) theta) / cos(theta/2)
    W_n = sin((n+1/2) theta) / sin(theta/2)

(cosh and sinh for |x| > 1), and for x < 0 the parities T_n(-x) =
(-1)^n T_n(x), U_n likewise, V_n(-x) = (-1)^n W_n(x) and W_n(-x) = (-1)^n
V_n(x), so theta stays in [0, pi/2] where sin(theta) is accurate. The
degree is truncated to an integer as torch's is; n < 0 gives 0, x = +-1
torch's limits. (Hermite, Laguerre and Legendre polynomials have no such
closed form: `aten_polynomials` unrolls their recurrences.)
"""

from __future__ import annotations

from fxdsl.frontends.aten_math import floor, single_precision, trunc
from fxdsl.frontends.aten_registry import AtenCall, Handler, aten
from fxdsl.ir import graph
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor

KINDS = ("t", "u", "v", "w")


def _acos(x: Tensor) -> Tensor:
    return ops.elementwise(graph.AcosOp, x)


def _acosh(x: Tensor) -> Tensor:
    return ops.elementwise(graph.AcoshOp, x)


def _cosh(x: Tensor) -> Tensor:
    return ops.elementwise(graph.CoshOp, x)


def _sinh(x: Tensor) -> Tensor:
    return ops.elementwise(graph.SinhOp, x)


def _at(kind: str, x: Tensor, n: Tensor) -> Tensor:
    """The polynomial of `kind` at x >= 0 (n an integer >= 0, as floats)."""
    inside = ops.le(x, 1.0)
    theta = _acos(ops.where(inside, x, 1.0))
    t = _acosh(ops.where(inside, 2.0, x))
    half = ops.add(n, 0.5)
    if kind == "t":
        trig, hyper = ops.cos(ops.mul(n, theta)), _cosh(ops.mul(n, t))
        return ops.where(inside, trig, hyper)
    if kind == "v":
        trig = ops.div(ops.cos(ops.mul(half, theta)), ops.cos(ops.mul(theta, 0.5)))
        hyper = ops.div(_cosh(ops.mul(half, t)), _cosh(ops.mul(t, 0.5)))
        return ops.where(inside, trig, hyper)
    # U and W: a sine over a sine, 0 / 0 at x = 1 (theta = 0): the limit
    if kind == "u":
        times, angle, limit = ops.add(n, 1.0), theta, ops.add(n, 1.0)
        hyper_angle = t
    else:
        times, angle, limit = half, ops.mul(theta, 0.5), ops.add(ops.add(n, n), 1.0)
        hyper_angle = ops.mul(t, 0.5)
    at_one = ops.eq(angle, 0.0)
    safe = ops.where(at_one, 1.0, angle)
    scale = times if kind == "u" else ops.mul(times, 2.0)
    trig = ops.div(ops.sin(ops.mul(scale, safe)), ops.sin(safe))
    hyper = ops.div(
        _sinh(ops.mul(scale, hyper_angle)),
        _sinh(hyper_angle),
    )
    return ops.where(inside, ops.where(at_one, limit, trig), hyper)


MIRROR = {"t": "t", "u": "u", "v": "w", "w": "v"}
"""The kind whose value at |x| gives this kind's at x < 0 (times (-1)^n)."""


def chebyshev(kind: str, x: Tensor, n: Tensor) -> Tensor:
    """The Chebyshev polynomial of `kind` at x, of degree trunc(n)."""
    n = trunc(n)
    size = ops.abs(x)
    positive = _at(kind, size, ops.maximum(n, 0.0))
    mirrored = positive if MIRROR[kind] == kind else _at(MIRROR[kind], size, n)
    odd = ops.ne(ops.sub(n, ops.mul(floor(ops.mul(n, 0.5)), 2.0)), 0.0)
    negative = ops.where(odd, ops.neg(mirrored), mirrored)
    result = ops.where(ops.lt(x, 0.0), negative, positive)
    # degrees 0 and 1 as the recurrence starts, for every x (inf, NaN too)
    first = {"t": x, "u": ops.add(x, x), "v": ops.sub(ops.add(x, x), 1.0),
             "w": ops.add(ops.add(x, x), 1.0)}[kind]  # fmt: skip
    result = ops.where(ops.eq(n, 1.0), first, result)
    result = ops.where(ops.eq(n, 0.0), 1.0, result)
    return ops.where(ops.lt(n, 0.0), 0.0, result)


def _handler(kind: str, shifted: bool) -> Handler:
    def handler(call: AtenCall) -> Tensor:
        x, n = call.args[:2]
        x, n = single_precision(
            call,
            *(
                v if isinstance(v, Tensor) else ops.full([], float(v), call.dtype)
                for v in (x, n)
            ),
        )
        if shifted:
            x = ops.sub(ops.add(x, x), 1.0)
        return chebyshev(kind, x, n)

    return handler


for _kind in KINDS:
    for _shifted in (False, True):
        _name = f"special_{'shifted_' if _shifted else ''}chebyshev_polynomial_{_kind}"
        aten(*(f"{_name}.{o}" for o in ("default", "x_scalar", "n_scalar")))(
            _handler(_kind, _shifted)
        )
