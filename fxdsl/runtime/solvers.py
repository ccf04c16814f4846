"""The launch plan's solver steps (`Solve`: the linear-algebra ops) on the
device, through CuPy's `cupy.linalg` (cuSOLVER).

`run_solve(cp, step, inputs)` computes a step's results from its input
arrays; the executor writes them into the step's output buffers. Each op is
one library call where CuPy has the routine:

- `cholesky`: `cupy.linalg.cholesky` (potrf, batched). For a matrix that
  is not positive definite cuSOLVER reports a status CuPy ignores by
  default; every step runs under `cupyx.errstate(linalg="raise")`, so it is
  a `LinAlgError`, as the reference interpreter and torch's
  `linalg.cholesky` fail, never a result (and NaNs in L are one too).
- `triangular_solve`: `cupy.linalg.solve` (getrf + getrs, batched) on the
  matrix with its other triangle zeroed (and its diagonal set to ones for
  `unitriangular`): the same solution as a triangular solve.
- `lu`: CuPy has no batched LU with the pivots torch returns
  (`cupyx.scipy.linalg.lu_factor` is one matrix at a time), so the
  reference's partial-pivoting steps run on the device
  (`fxdsl.interpreters.linalg.lu` with `xp=cupy`): the same pivots as
  LAPACK's `getrf`, hence torch's.
- `qr`: `cupy.linalg.qr` (geqrf + orgqr: LAPACK's Householder signs, as
  torch's), one matrix at a time.
- `geqrf`: CuPy's `qr(mode="raw")` works one matrix at a time and its
  layout is not documented, so the reference's Householder steps run on the
  device (`fxdsl.interpreters.linalg.geqrf` with `xp=cupy`), as for `lu`.
- `svd`, `eigh`: `cupy.linalg.svd` / `cupy.linalg.eigh` (batched). The sign
  of each singular vector and eigenvector is cuSOLVER's, which may differ
  from torch's CPU result (the ops' documentation says they are unique only
  up to sign; torch's own CUDA results differ from its CPU ones the same way).

Input matrices are symmetrised from their lower triangle before `cholesky`
and `eigh`, so the result does not depend on which triangle cuSOLVER reads.
Empty inputs run on the host reference (there is nothing to compute, and
not every cuSOLVER routine takes a zero-sized matrix).

The functions use only the numpy API that CuPy shares, so the executor's
tests run them on numpy (`fxdsl.testing.fake_cupy`).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from math import prod
from typing import Any

import numpy as np

from fxdsl.interpreters.linalg import NUMPY_LINALG, geqrf, lu
from fxdsl.ir import graph
from fxdsl.lowering.launch_plan import Solve


def _lower_symmetric(cp: Any, a: Any) -> Any:
    n = a.shape[-1]
    lower = a * cp.tri(n, dtype=a.dtype)
    strict = lower * (1 - cp.eye(n, dtype=a.dtype))
    return lower + cp.swapaxes(strict, -1, -2)


def _cholesky(cp: Any, a: Any) -> tuple[Any, ...]:
    lower = cp.linalg.cholesky(_lower_symmetric(cp, a))
    if not bool(cp.isfinite(lower).all()) and bool(cp.isfinite(a).all()):
        raise np.linalg.LinAlgError(
            f"{graph.CholeskyOp.name}: matrix is not positive definite"
        )
    return (lower,)


def _triangular_solve(
    cp: Any,
    a: Any,
    b: Any,
    upper: bool = False,
    right: bool = False,
    unitriangular: bool = False,
) -> tuple[Any, ...]:
    n = a.shape[-1]
    mask = cp.tri(n, dtype=a.dtype)
    mask = cp.swapaxes(mask, -1, -2) if upper else mask
    if unitriangular:
        identity = cp.eye(n, dtype=a.dtype)
        a = a * (mask - identity) + identity
    else:
        a = a * mask
    if right:  # x a = b  <=>  a^T x^T = b^T
        a, b = cp.swapaxes(a, -1, -2), cp.swapaxes(b, -1, -2)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = cp.ascontiguousarray(cp.broadcast_to(a, (*batch, *a.shape[-2:])))
    b = cp.ascontiguousarray(cp.broadcast_to(b, (*batch, *b.shape[-2:])))
    x = cp.linalg.solve(a, b)
    return (cp.swapaxes(x, -1, -2) if right else x,)


def _lu(cp: Any, a: Any) -> tuple[Any, ...]:
    return lu(a, xp=cp)


def _qr(cp: Any, a: Any, complete: bool = False) -> tuple[Any, ...]:
    mode = "complete" if complete else "reduced"
    *batch, m, n = a.shape
    flat = a.reshape(-1, m, n)
    pairs = [cp.linalg.qr(matrix, mode=mode) for matrix in flat]
    k = m if complete else min(m, n)
    q = cp.stack([p[0] for p in pairs]).reshape(*batch, m, k)
    r = cp.stack([p[1] for p in pairs]).reshape(*batch, k, n)
    return (q, r)


def _geqrf(cp: Any, a: Any) -> tuple[Any, ...]:
    return geqrf(a, xp=cp)


def _svd(cp: Any, a: Any, full_matrices: bool = False) -> tuple[Any, ...]:
    u, s, vh = cp.linalg.svd(a, full_matrices=full_matrices)
    return (u, s, vh)


def _eigh(cp: Any, a: Any) -> tuple[Any, ...]:
    w, v = cp.linalg.eigh(_lower_symmetric(cp, a), UPLO="L")
    return (w, v)


SOLVERS: dict[str, Callable[..., tuple[Any, ...]]] = {
    graph.CholeskyOp.name: _cholesky,
    graph.TriangularSolveOp.name: _triangular_solve,
    graph.LuOp.name: _lu,
    graph.QrOp.name: _qr,
    graph.GeqrfOp.name: _geqrf,
    graph.SvdOp.name: _svd,
    graph.EighOp.name: _eigh,
}
"""Op name -> `(cp, *inputs, **flags) -> results` (see the module doc)."""


def run_solve(cp: Any, step: Solve, inputs: list[Any]) -> tuple[Any, ...]:
    """The results of `step` on its input arrays (device arrays of `cp`); a
    failure cuSOLVER reports (a matrix it cannot factor) is a `LinAlgError`."""
    flags = dict.fromkeys(step.flags, True)
    if any(a.size == 0 for a in inputs) or any(
        prod(o.layout.shape) == 0 for o in step.outputs
    ):
        host = [np.asarray(cp.asnumpy(a)) for a in inputs]
        return tuple(cp.asarray(r) for r in NUMPY_LINALG[step.op](*host, **flags))
    with _raising_errors():
        return SOLVERS[step.op](cp, *inputs, **flags)


def _raising_errors() -> AbstractContextManager[Any]:
    """CuPy's `errstate(linalg="raise")`: cuSOLVER's status checked after
    each call. Without CuPy (numpy's stand-in) numpy raises by itself."""
    try:
        import cupyx  # type: ignore[import-not-found]
    except ImportError:
        return nullcontext()
    return cupyx.errstate(linalg="raise")
