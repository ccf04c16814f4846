"""A vectorised `erf` for the reference interpreter (numpy has none).

`math.erf` per element (`np.frompyfunc`) was 60 % of a BERT-base forward on
the CPU path (GELU). This computes erf from a table of Taylor expansions:
for |x| < 6 the nearest grid point x0 = i / STEP gives

    erf(x0 + h) = sum_k T[k, i] h^k,   |h| <= 1 / (2 STEP),

with T[0] = erf(x0) (from `math.erf`) and, for k >= 1, the k-th derivative
over k!: erf^(k)(x) = 2/sqrt(pi) (-1)^(k-1) H_(k-1)(x) exp(-x^2) (H the
physicists' Hermite polynomials). The neglected term is below 1e-18; the
result is within 2 ulp of `math.erf` in float64 and rounds to the same
float32 (tests/interpreters/test_erf.py checks both on a dense grid).
Beyond |x| = 6, erf is 1 in float64. Around 0 the expansion is erf's own
Maclaurin series, so tiny and subnormal inputs keep their relative
accuracy. The input is processed in blocks that stay in cache: about four
times faster than `math.erf` per element. float64 inputs keep `math.erf`
(the oracle's own precision; see `erf`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]

STEP = 64
"""Grid points per unit of x."""
DEGREE = 8
"""Terms of each expansion beyond the constant."""
SATURATION = 6.0
"""erf(6) rounds to 1.0 in float64 (erfc(6) ~ 2e-17)."""
_BLOCK = 16384
"""Elements per block: its few float64 temporaries stay in L2."""


def _taylor_table() -> Array:
    x0 = np.arange(int(SATURATION * STEP) + 1) / STEP
    hermite = [np.ones_like(x0), 2 * x0]
    for n in range(1, DEGREE):
        hermite.append(2 * x0 * hermite[n] - 2 * n * hermite[n - 1])
    derivative_scale = 2 / math.sqrt(math.pi) * np.exp(-x0 * x0)
    table = np.empty((DEGREE + 1, x0.size))
    table[0] = [math.erf(v) for v in x0]
    for k in range(1, DEGREE + 1):
        sign = (-1) ** (k - 1)
        table[k] = derivative_scale * sign * hermite[k - 1] / math.factorial(k)
    return table


_TABLE = _taylor_table()


def _erf_block(x: Array) -> Array:
    magnitude = np.abs(x)
    nearest = np.minimum(np.rint(magnitude * STEP), _TABLE.shape[1] - 1)
    h = magnitude - nearest / STEP
    index = nearest.astype(np.intp)
    value = _TABLE[DEGREE].take(index)
    for k in range(DEGREE - 1, -1, -1):
        value *= h
        value += _TABLE[k].take(index)
    value[magnitude >= SATURATION] = 1.0
    return np.copysign(value, x)


_MATH_ERF = np.frompyfunc(math.erf, 1, 1)


def erf(x: Array) -> Array:
    """erf of every element of `x`, in `x`'s dtype: `table_erf` below
    float64; float64 itself takes `math.erf` per element (2 ulp would show
    where `1 + erf(x)` cancels, GELU of a large negative x, and float64 is
    the oracle's own precision)."""
    if x.dtype == np.float64:
        return np.asarray(_MATH_ERF(x), dtype=np.float64)
    return table_erf(x.astype(np.float64)).astype(x.dtype, copy=False)


def table_erf(x: Array) -> Array:
    """erf of every element of the float64 array `x`, from the table."""
    flat = x.ravel()
    out = np.empty_like(flat)
    nan = np.isnan(flat)
    with np.errstate(invalid="ignore", over="ignore"):  # inf * h in saturated lanes
        for start in range(0, flat.size, _BLOCK):
            block = flat[start : start + _BLOCK]
            block = np.where(np.isnan(block), 0.0, block)
            out[start : start + _BLOCK] = _erf_block(block)
    out[nan] = np.nan
    return out.reshape(x.shape)
