"""The matrix exponential (`torch.matrix_exp`, `linalg.matrix_exp`; the
default map of `torch.nn.utils.parametrizations.orthogonal`) by scaling
and squaring, as GEMMs.

Each matrix A is scaled by 2^-s, s = ceil(log2 |A|_1) (so |A / 2^s|_1 <= 1),
its Taylor polynomial of degree 18 is summed by Horner's scheme (the
truncation 1/19! is far below float32's rounding; 18 GEMMs), and the result
squared s times. s is a tensor's value, so the squarings are unrolled to
`MAX_SQUARINGS` and each is kept per matrix only while it counts; a matrix
whose 1-norm is beyond 2^MAX_SQUARINGS (1e12) gives NaN, not a wrong
value. torch picks among Taylor degrees by the norm (Bader, Blanes and
Casas 2019); the value is the same to float32 rounding. Computed in f32
(16-bit inputs too, rounded once); f64 is refused, as the other linear
algebra is.
"""

from __future__ import annotations

import math

import numpy as np

from fxdsl.frontends.aten_math import ceil
from fxdsl.frontends.aten_registry import AtenCall, UnsupportedNode, aten, widened
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor

TAYLOR_DEGREE = 18
MAX_SQUARINGS = 40


def matrix_exp(a: Tensor) -> Tensor:
    """exp(a) of each (n, n) matrix of an f32 tensor."""
    n, rank = int(a.shape[-1]), a.ndim
    if n == 0:
        return a
    batch = [int(d) for d in a.shape[:-2]]
    norm = ops.max(ops.sum(ops.abs(a), [rank - 2]), [rank - 2])
    norm = ops.reshape(norm, [*batch, 1, 1])
    # log2 of 0 is -inf, so no squaring; NaN compares false: none either
    squarings = ops.maximum(ceil(ops.div(ops.log(norm), math.log(2.0))), 0.0)
    x = ops.mul(a, ops.pow(ops.full([], 2.0, "f32"), ops.neg(squarings)))
    identity = ops.constant(np.eye(n, dtype=np.float32), "f32")
    result = identity
    for k in range(TAYLOR_DEGREE, 0, -1):
        result = ops.add(identity, ops.mul(ops.matmul(x, result), 1.0 / k))
    for i in range(MAX_SQUARINGS):
        squared = ops.matmul(result, result)
        result = ops.where(ops.gt(squarings, float(i)), squared, result)
    return ops.where(ops.gt(squarings, float(MAX_SQUARINGS)), math.nan, result)


@aten("linalg_matrix_exp.default", "matrix_exp.default")
def _matrix_exp(call: AtenCall) -> Tensor:
    a = call.args[0]
    if a.dtype not in ("f32", "f16", "bf16"):
        raise UnsupportedNode(f"matrix_exp on {a.dtype} (only f32, and 16-bit in f32)")
    (a,) = widened(a.dtype, a)
    return matrix_exp(a)
