"""Reference semantics of the linear-algebra ops (`fxdsl.ir.graph.linalg`).

`NUMPY_LINALG` maps each op name to a numpy function of its operands and its
unit flags (keywords) returning its results; `LinalgFunctions` runs the ops
through it on the reference interpreter, and the CPU stand-in of the CUDA
executor's solver steps runs the same table (one definition of what each
step computes). numpy.linalg does the work where it has the routine (it
calls LAPACK, as torch's CPU path does); LU with partial pivoting, which
numpy lacks, is written out below. Everything is computed in float64 and
rounded to f32 once.

A matrix the routine cannot factor (not positive definite for `cholesky`, a
zero on a triangular matrix's diagonal) is an `InterpretationFailure`, as
torch raises for `linalg.cholesky` and `linalg.solve`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.ir import Operation

from fxdsl.interpreters.graph import _fail, _finish
from fxdsl.ir import graph

Array = np.ndarray[Any, Any]


def _wide(a: Array) -> Array:
    return np.asarray(a, dtype=np.float64)


def cholesky(a: Array) -> tuple[Array, ...]:
    # numpy's potrf reads the lower triangle only, as torch's does
    return (np.linalg.cholesky(_wide(a)),)


def triangular_solve(
    a: Array,
    b: Array,
    upper: bool = False,
    right: bool = False,
    unitriangular: bool = False,
) -> tuple[Array, ...]:
    a = np.triu(_wide(a)) if upper else np.tril(_wide(a))
    if unitriangular:
        n = a.shape[-1]
        a[..., np.arange(n), np.arange(n)] = 1.0
    b = _wide(b)
    if right:  # x a = b  <=>  a^T x^T = b^T
        a, b = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, (*batch, *a.shape[-2:]))
    b = np.broadcast_to(b, (*batch, *b.shape[-2:]))
    x = np.linalg.solve(a, b) if b.size else np.zeros(b.shape)
    return (np.swapaxes(x, -1, -2) if right else x,)


def lu(a: Array, xp: Any = np) -> tuple[Array, ...]:
    """Right-looking LU with partial pivoting (LAPACK's `getrf` choice: the
    first row of largest magnitude); a zero pivot leaves its column unscaled,
    as `getrf` does (the matrix is singular, U has a zero on its diagonal).
    `xp` is the array module (numpy; CuPy runs the same steps on a GPU)."""
    *batch, m, n = a.shape
    count, k = int(np.prod(batch, dtype=np.int64)), min(m, n)
    factors = xp.asarray(a, dtype=xp.float64).reshape(count, m, n).copy()
    pivots = xp.zeros((count, k), dtype=xp.int32)
    order = xp.tile(xp.arange(m), (count, 1))
    rows = xp.arange(count)
    for j in range(k):
        p = j + xp.argmax(xp.abs(factors[:, j:, j]), axis=1)
        pivots[:, j] = p + 1
        factors[rows, j], factors[rows, p] = factors[rows, p], factors[rows, j].copy()
        order[rows, j], order[rows, p] = order[rows, p], order[rows, j].copy()
        pivot = factors[:, j, j]
        scale = xp.where(pivot != 0, pivot, 1.0)[:, None]
        factors[:, j + 1 :, j] /= scale
        factors[:, j + 1 :, j + 1 :] -= (
            factors[:, j + 1 :, j, None] * factors[:, None, j, j + 1 :]
        )
    # a = P L U with column i of P the unit vector of the row that ended at i
    permutation = xp.swapaxes(xp.eye(m)[order], -1, -2)
    return (
        factors.reshape(a.shape),
        pivots.reshape((*batch, k)),
        permutation.reshape((*batch, m, m)),
    )


def qr(a: Array, complete: bool = False) -> tuple[Array, ...]:
    mode = "complete" if complete else "reduced"
    q, r = np.linalg.qr(_wide(a), mode=mode)
    return (q, r)


def geqrf(a: Array, xp: Any = np) -> tuple[Array, ...]:
    """Householder QR in LAPACK's storage (`geqrf`, with `larfg`'s choice
    `beta = -sign(alpha) * norm`, so R's signs are LAPACK's and torch's).
    `xp` is the array module, as for `lu`."""
    *batch, m, n = a.shape
    count, k = int(np.prod(batch, dtype=np.int64)), min(m, n)
    packed = xp.asarray(a, dtype=xp.float64).reshape(count, m, n).copy()
    tau = xp.zeros((count, k), dtype=xp.float64)
    for j in range(k):
        alpha = packed[:, j, j].copy()
        below = packed[:, j + 1 :, j]
        norm = xp.sqrt(xp.sum(below * below, axis=1))
        reflect = norm != 0  # else H_j = I: tau 0, the column unchanged
        beta = -xp.where(alpha >= 0, 1.0, -1.0) * xp.sqrt(alpha * alpha + norm * norm)
        safe_beta = xp.where(reflect, beta, 1.0)
        tau[:, j] = xp.where(reflect, (beta - alpha) / safe_beta, 0.0)
        scale = xp.where(reflect, 1.0 / xp.where(reflect, alpha - beta, 1.0), 1.0)
        packed[:, j + 1 :, j] = below * scale[:, None]
        packed[:, j, j] = xp.where(reflect, beta, alpha)
        # the trailing columns: a -= tau v (v^T a), v = (1, packed[j+1:, j])
        v = xp.concatenate([xp.ones((count, 1)), packed[:, j + 1 :, j]], axis=1)
        trailing = packed[:, j:, j + 1 :]
        projection = xp.sum(v[:, :, None] * trailing, axis=1)
        packed[:, j:, j + 1 :] = trailing - (
            tau[:, j, None, None] * v[:, :, None] * projection[:, None, :]
        )
    return (packed.reshape(a.shape), tau.reshape((*batch, k)))


def svd(a: Array, full_matrices: bool = False) -> tuple[Array, ...]:
    *batch, m, n = a.shape
    if a.size == 0:  # LAPACK is not called on empty matrices (torch neither)
        k = min(m, n)
        rows, cols = (m, n) if full_matrices else (k, k)
        u = np.broadcast_to(np.eye(m, rows), (*batch, m, rows))
        vh = np.broadcast_to(np.eye(cols, n), (*batch, cols, n))
        return (u, np.zeros((*batch, k)), vh)
    u, s, vh = np.linalg.svd(_wide(a), full_matrices=full_matrices)
    return (u, s, vh)


def eigh(a: Array) -> tuple[Array, ...]:
    w, v = np.linalg.eigh(_wide(a), UPLO="L")
    return (w, v)


NUMPY_LINALG: dict[str, Callable[..., tuple[Array, ...]]] = {
    graph.CholeskyOp.name: cholesky,
    graph.TriangularSolveOp.name: triangular_solve,
    graph.LuOp.name: lu,
    graph.QrOp.name: qr,
    graph.GeqrfOp.name: geqrf,
    graph.SvdOp.name: svd,
    graph.EighOp.name: eigh,
}
"""Op name -> numpy function of (operands..., **flags) -> results."""


def flags_of(op: graph.LinalgOp) -> dict[str, bool]:
    """The op's unit flags as the keywords of its `NUMPY_LINALG` function."""
    return {name: True for name in op.properties}


def _run(
    ft: InterpreterFunctions,
    interpreter: Interpreter,
    op: Operation,
    args: PythonValues,
) -> PythonValues:
    assert isinstance(op, graph.LinalgOp)
    try:
        results = NUMPY_LINALG[op.name](*args, **flags_of(op))
    except np.linalg.LinAlgError as error:
        shapes = ", ".join(str(a.shape) for a in args)
        raise _fail(op, f"{error} (operands of shapes {shapes})") from error
    return _finish(op, *results)


def _table_impls(cls: type[InterpreterFunctions]) -> type[InterpreterFunctions]:
    """Register `_run` for every op of the family."""
    for op_type in graph.LINALG_OPS:
        name = f"run_{op_type.name.removeprefix('graph.')}"
        setattr(cls, name, impl(op_type)(_run))
    return cls


@register_impls
@_table_impls
class LinalgFunctions(InterpreterFunctions):
    """numpy implementations of `graph.LINALG_OPS` (see the module doc)."""
