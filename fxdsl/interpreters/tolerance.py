"""How close two runs of one program must be (`fxdsl-run --check`, the tests).

A pass or a kernel that reorders a sum (split-K, block reductions, fused
row statistics) changes its rounding: the classic bound for a sum of n terms
is |error| <= n * u * sum(|terms|), u the unit roundoff. An elementwise
`atol + rtol * |expected|` cannot see that bound (an output near zero may be
the sum of large terms), so every float comparison also allows

    slack = summed_terms * u * max(|expected|)

where `summed_terms` adds up, over the reference program's reductions, how
many terms each one sums (`summed_terms`), and u is float32's (the reference
and the kernels sum f16/bf16 in float32). The slack is norm-wise: a wrong
result of the size of the output still fails. For GPT-2 block shapes it is
~4e-4 of the largest output; ten times that would still catch a wrong bias.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from xdsl.ir import Operation

Array = np.ndarray[Any, Any]


def summed_terms(root: Operation) -> int:
    """Sum, over the ops under `root`, of the terms one output element of
    each sums: contracting dims of matmul/linear, reduced dims of
    reductions, softmax and layer_norm, head and key dims of attention."""
    return sum(_terms(op) for op in root.walk())


def _terms(op: Operation) -> int:
    from fxdsl.ir import graph

    if isinstance(op, graph.MatmulOp | graph.LinearOp):
        return graph.shape_of(op.operands[0])[-1]
    if isinstance(op, graph.AttentionOp):
        query, key = (graph.shape_of(v) for v in op.operands[:2])
        return query[-1] + 2 * key[-2]  # q @ k^T, softmax, @ v
    if isinstance(op, graph.ReductionLike):
        shape = graph.shape_of(op.operands[0])
        return math.prod(shape[d] for d in op.reduced_dims())
    return 0


def reorder_slack(expected: Array, terms: int) -> float:
    """The absolute difference a reordered summation may add (see above)."""
    finite = np.abs(expected[np.isfinite(expected)])
    if terms == 0 or finite.size == 0:
        return 0.0
    unit_roundoff = float(np.finfo(np.float32).eps) / 2
    return terms * unit_roundoff * float(finite.max())


def close_elements(
    actual: Array, expected: Array, rtol: float, atol: float, terms: int = 0
) -> Array:
    """Elementwise `|actual - expected| <= atol + slack + rtol * |expected|`
    (float64 arrays of one shape; NaNs must sit at the same places)."""
    slack = reorder_slack(expected, terms)
    return np.isclose(actual, expected, rtol=rtol, atol=atol + slack, equal_nan=True)
