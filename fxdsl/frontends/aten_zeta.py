"""The Hurwitz zeta function zeta(s, q) = sum_k (q + k)^-s for tensor s and
q (`torch.special.zeta`), as a fixed expression of elementwise graph ops.

As Cephes (which torch runs) does: the terms up to a = q + L, L the first
index from 9 on with q + L > 9, then Euler-Maclaurin's tail at a with 12
Bernoulli terms,

    a^(1-s)/(s-1) - a^-s/2 + sum_j B_2j/(2j)! s(s+1)...(s+2j-2) a^(-s-2j+1),

(the last summed term counted half). The direct terms are unrolled up to
q = -20 (30 of them, masked per element); a q below that with an integer
s, whose sum torch's loop would run further, gives NaN here. s = 1 gives
inf, s < 1 NaN; q a non-positive integer inf, a negative non-integer q
NaN unless s is an integer, as torch. Computed in float32 (16-bit nodes
too, rounded once); an f64 node is refused.
"""

from __future__ import annotations

import math
from fractions import Fraction

from fxdsl.frontends.aten_math import floor, single_precision
from fxdsl.frontends.aten_registry import ATEN, AtenCall, aten
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor

_DIRECT = 9
"""The terms summed before the tail start at least at this index."""
_LOWEST_Q = -20
"""The most negative q whose terms the unrolled sum reaches."""
_TAIL_TERMS = 12
"""Bernoulli terms of the tail (Cephes' count)."""


def _bernoulli(count: int) -> list[Fraction]:
    """B_2, B_4, ..., B_2count, exactly (B_m = -1/(m+1) sum_k<m C(m+1,k) B_k)."""
    numbers = [Fraction(1)]
    for m in range(1, 2 * count + 1):
        total = sum(math.comb(m + 1, k) * numbers[k] for k in range(m))
        numbers.append(-total / (m + 1))
    return numbers[2::2]


_TAIL = [
    float(b / math.factorial(2 * j)) for j, b in enumerate(_bernoulli(_TAIL_TERMS), 1)
]
"""B_2j / (2j)!."""


def hurwitz_zeta(s: Tensor, q: Tensor) -> Tensor:
    last = ops.maximum(ops.add(floor(ops.sub(9.0, q)), 1.0), float(_DIRECT))
    total = ops.full([], 0.0, s.dtype)
    negative_s = ops.neg(s)
    for k in range(_DIRECT - _LOWEST_Q + 1):
        term = ops.pow(ops.add(q, float(k)), negative_s)
        total = ops.add(
            total,
            term if k <= _DIRECT else ops.where(ops.ge(last, float(k)), term, 0.0),
        )
    a = ops.add(q, last)
    b = ops.pow(a, negative_s)
    total = ops.add(
        total, ops.sub(ops.div(ops.mul(b, a), ops.sub(s, 1.0)), ops.mul(b, 0.5))
    )
    # the j-th tail term from the one before (never the rising product
    # alone, which overflows float32 for large s while a^-s underflows)
    term = ops.mul(ops.mul(s, ops.div(b, a)), _TAIL[0])
    inverse_square = ops.div(1.0, ops.mul(a, a))
    for j in range(1, len(_TAIL) + 1):
        total = ops.add(total, term)
        if j < len(_TAIL):
            grow = ops.mul(ops.add(s, 2.0 * j - 1), ops.add(s, 2.0 * j))
            ratio = _TAIL[j] / _TAIL[j - 1]
            term = ops.mul(ops.mul(term, ops.mul(grow, inverse_square)), ratio)
    integer_s = ops.eq(floor(s), s)
    result = ops.where(ops.lt(q, float(_LOWEST_Q)), math.nan, total)
    nonpositive = ops.le(q, 0.0)
    result = ops.where(
        ops.logical_and(nonpositive, ops.logical_not(integer_s)), math.nan, result
    )
    result = ops.where(
        ops.logical_and(nonpositive, ops.eq(floor(q), q)), math.inf, result
    )
    result = ops.where(ops.lt(s, 1.0), math.nan, result)
    return ops.where(ops.eq(s, 1.0), math.inf, result)


@aten("special_zeta.default", "special_zeta.self_scalar", "special_zeta.other_scalar")
def _zeta(call: AtenCall) -> Tensor:
    s, q = (
        v if isinstance(v, Tensor) else ops.full([], float(v), call.dtype)
        for v in call.args[:2]
    )
    return hurwitz_zeta(*single_precision(call, s, q))


ATEN["prims.zeta.default"] = _zeta
