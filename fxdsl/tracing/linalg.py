"""The linear-algebra ops (`fxdsl.ir.graph.linalg`) as functions on traced
tensors, as `fxdsl.tracing.ops` has the others: each builds one op through
the dialect's constructor, so a wrong shape or dtype is a `ValueError`
naming the op.

    with fxdsl.trace() as t:
        a = t.input([4, 4])
        lower = linalg.cholesky(a)
        x = linalg.triangular_solve(lower, a)
"""

from __future__ import annotations

from fxdsl.ir import graph
from fxdsl.tracing.ops import emit, wrap
from fxdsl.tracing.tracer import Tensor


def cholesky(a: Tensor) -> Tensor:
    """The lower Cholesky factor of symmetric positive-definite `a`."""
    name = graph.CholeskyOp.name
    return wrap(emit(lambda: graph.CholeskyOp(a.value), name, a).result)


def triangular_solve(
    a: Tensor,
    b: Tensor,
    upper: bool = False,
    right: bool = False,
    unitriangular: bool = False,
) -> Tensor:
    """`x` with `a @ x = b` (`right`: `x @ a = b`), `a` lower (or `upper`)
    triangular, its diagonal taken as ones with `unitriangular`."""
    name = graph.TriangularSolveOp.name
    make = lambda: graph.TriangularSolveOp(
        a.value, b.value, upper, right, unitriangular
    )
    return wrap(emit(make, name, a, b).result)


def lu(a: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """(packed LU factors, 1-based i32 pivots, permutation matrix P) with
    `a = P @ L @ U`."""
    op = emit(lambda: graph.LuOp(a.value), graph.LuOp.name, a)
    return wrap(op.lu), wrap(op.pivots), wrap(op.permutation)


def qr(a: Tensor, complete: bool = False) -> tuple[Tensor, Tensor]:
    """(Q, R) with `a = Q @ R`, reduced unless `complete`."""
    op = emit(lambda: graph.QrOp(a.value, complete), graph.QrOp.name, a)
    return wrap(op.q), wrap(op.r)


def geqrf(a: Tensor) -> tuple[Tensor, Tensor]:
    """(packed Householder QR, tau) as LAPACK's `geqrf` stores them."""
    op = emit(lambda: graph.GeqrfOp(a.value), graph.GeqrfOp.name, a)
    return wrap(op.packed), wrap(op.tau)


def svd(a: Tensor, full_matrices: bool = False) -> tuple[Tensor, Tensor, Tensor]:
    """(U, S, Vh) with `a = U diag(S) Vh`, S descending."""
    op = emit(lambda: graph.SvdOp(a.value, full_matrices), graph.SvdOp.name, a)
    return wrap(op.u), wrap(op.s), wrap(op.vh)


def eigh(a: Tensor) -> tuple[Tensor, Tensor]:
    """(eigenvalues ascending, eigenvectors as columns) of symmetric `a`,
    from its lower triangle."""
    op = emit(lambda: graph.EighOp(a.value), graph.EighOp.name, a)
    return wrap(op.eigenvalues), wrap(op.eigenvectors)
