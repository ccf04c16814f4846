"""ATen's dense linear algebra, composed from the graph dialect's few
factorisations (`fxdsl.ir.graph.linalg`) and matmuls.

What each composition rests on:
- solves: `lu` (A = P L U) then two triangular solves on its packed
  factors; `inv` is a solve against the identity; Cholesky solves and
  inverses are two triangular solves with the factor.
- determinants: from `lu`'s diagonal (log of its magnitudes, summed) and the
  parity of its row swaps and negative diagonal entries; a zero on U's
  diagonal gives sign 0 and -inf, as torch.
- `pinv`, `matrix_rank`, norms and `cond` (torch decomposes these to
  `_linalg_svd`): the singular values (or, `hermitian`, `eigh`'s
  eigenvalues) against torch's threshold `max(atol, rtol * largest)`.
- `lu_unpack` and `lu_solve` with pivots given as an input: the pivots'
  row swaps become a product of transposition matrices, one per pivot
  (unrolled; refused past `MAX_PIVOT_SWAPS`).
- `householder_product` and `ormqr`: Q as the product of `geqrf`'s
  reflections, unrolled (refused past `MAX_PIVOT_SWAPS` of them).
- the `info` outputs of the `_ex` variants: `lu`'s is computed (the first
  zero on U's diagonal); `cholesky_ex`'s is zero, since every fxdsl backend
  fails on a matrix that is not positive definite rather than return one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fxdsl.frontends.aten_registry import AtenCall, UnsupportedNode, aten
from fxdsl.tracing import linalg, ops
from fxdsl.tracing.tracer import Tensor

MAX_PIVOT_SWAPS = 64
"""Most pivots whose swaps an input's `pivots` unroll to (one matmul each)."""

F32_EPS = float(np.finfo(np.float32).eps)


def _t(x: Tensor) -> Tensor:
    return ops.swapaxes(x, -1, -2)


def _eye(rows: int, cols: int | None = None) -> Tensor:
    return ops.constant(np.eye(rows, cols, dtype=np.float32))


def _mask(x: Tensor, keep: Any) -> Tensor:
    """x times a constant 0/1 matrix (`keep` of x's matrix shape)."""
    return ops.mul(x, ops.constant(np.asarray(keep, dtype=np.float32)))


def _tril(x: Tensor, k: int = 0) -> Tensor:
    return _mask(x, np.tri(x.shape[-2], x.shape[-1], k))


def _triu(x: Tensor, k: int = 0) -> Tensor:
    return _mask(x, 1.0 - np.tri(x.shape[-2], x.shape[-1], k - 1))


def _diagonal(x: Tensor) -> Tensor:
    """The main diagonal of square matrices, (..., n)."""
    return ops.sum(_mask(x, np.eye(x.shape[-1])), [x.ndim - 1])


def _empty_like_result(call: AtenCall, index: int) -> Tensor:
    """Result `index` as torch shapes it, zero-filled: the empty tensors
    torch returns for what was not asked for (`compute_uv=False`)."""
    result = call.result[index]
    return ops.full([int(d) for d in result.shape], 0.0, _dtype(result))


def _dtype(value: Any) -> str:
    from fxdsl.frontends.aten_registry import graph_dtype

    return graph_dtype(value.dtype)


def _f32(x: Tensor) -> Tensor:
    if x.dtype != "f32":
        raise UnsupportedNode(f"linear algebra on {x.dtype} (only f32)")
    return x


def _zero_info(call: AtenCall, index: int) -> Tensor:
    return ops.full([int(d) for d in call.result[index].shape], 0, "i32")


# --------------------------------------------------------------------------- #
# Cholesky and triangular solves
# --------------------------------------------------------------------------- #


def _cholesky(a: Tensor, upper: bool) -> Tensor:
    lower = linalg.cholesky(_f32(a))
    return _t(lower) if upper else lower


@aten("cholesky.default", "linalg_cholesky.default")
def _cholesky_default(call: AtenCall) -> Any:
    return _cholesky(call.args[0], bool(call.arg(1, "upper", False)))


@aten("linalg_cholesky_ex.default")
def _cholesky_ex(call: AtenCall) -> Any:
    factor = _cholesky(call.args[0], bool(call.arg(1, "upper", False)))
    return (factor, _zero_info(call, 1))


@aten("cholesky_inverse.default")
def _cholesky_inverse(call: AtenCall) -> Any:
    factor: Tensor = _f32(call.args[0])
    upper = bool(call.arg(1, "upper", False))
    identity = _eye(factor.shape[-1])
    inverse = linalg.triangular_solve(factor, identity, upper=upper)
    # A = L L^T: A^-1 = L^-T L^-1; A = U^T U: A^-1 = U^-1 U^-T
    return (
        ops.matmul(inverse, _t(inverse)) if upper else ops.matmul(_t(inverse), inverse)
    )


@aten("cholesky_solve.default")
def _cholesky_solve(call: AtenCall) -> Any:
    b, factor = _f32(call.args[0]), _f32(call.args[1])
    upper = bool(call.arg(2, "upper", False))
    lower = _t(factor) if upper else factor
    y = linalg.triangular_solve(lower, b)
    return linalg.triangular_solve(_t(lower), y, upper=True)


@aten("triangular_solve.default")
def _triangular_solve(call: AtenCall) -> Any:
    b, a = _f32(call.args[0]), _f32(call.args[1])
    upper = bool(call.arg(2, "upper", True))
    transpose = bool(call.arg(3, "transpose", False))
    unit = bool(call.arg(4, "unitriangular", False))
    solved_a, solved_upper = (_t(a), not upper) if transpose else (a, upper)
    x = linalg.triangular_solve(solved_a, b, upper=solved_upper, unitriangular=unit)
    shape = [int(d) for d in call.result[1].shape]
    return (x, a if a.shape == shape else ops.broadcast_to(a, shape))


@aten("linalg_solve_triangular.default")
def _solve_triangular(call: AtenCall) -> Any:
    a, b = _f32(call.args[0]), _f32(call.args[1])
    return linalg.triangular_solve(
        a,
        b,
        upper=bool(call.arg(2, "upper")),
        right=not bool(call.arg(3, "left", True)),
        unitriangular=bool(call.arg(4, "unitriangular", False)),
    )


# --------------------------------------------------------------------------- #
# LU: factors, solves, determinants
# --------------------------------------------------------------------------- #


def _lu_info(lu: Tensor, pivots: Tensor) -> Tensor:
    """LAPACK's info: the 1-based index of U's first zero diagonal entry,
    else 0."""
    k = pivots.shape[-1]
    square = ops.slice(lu, [0] * lu.ndim, [*lu.shape[:-2], k, k]) if k else lu
    if k == 0:
        return ops.full(pivots.shape[:-1], 0, "i32")
    zero = ops.cast(ops.eq(_diagonal(square), 0.0), "i32")
    # the entries before the first zero (a sum, not a min: the batch may be empty)
    leading = ops.sum(ops.cast(ops.eq(ops.cumsum(zero, -1), 0), "i32"), [zero.ndim - 1])
    return ops.where(ops.eq(leading, k), 0, ops.add(leading, 1), dtype="i32")


def _no_pivot(call: AtenCall, index: int) -> None:
    if not bool(call.arg(index, "pivot", True)):
        raise UnsupportedNode("LU without pivoting (pivot=False)")


@aten("linalg_lu_factor_ex.default")
def _lu_factor_ex(call: AtenCall) -> Any:
    _no_pivot(call, 1)
    lu, pivots, _ = linalg.lu(_f32(call.args[0]))
    return (lu, pivots, _lu_info(lu, pivots))


def _unpack(lu: Tensor) -> tuple[Tensor, Tensor]:
    """(L, U) of packed (m, n) factors: L (m, k) unit lower, U (k, n)."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    batch = list(lu.shape[:-2])
    zeros = [0] * lu.ndim
    lower = ops.slice(lu, zeros, [*batch, m, k]) if k != n else lu
    upper = ops.slice(lu, zeros, [*batch, k, n]) if k != m else lu
    return ops.add(_tril(lower, -1), _eye(m, k)), _triu(upper)


@aten("linalg_lu.default")
def _linalg_lu(call: AtenCall) -> Any:
    _no_pivot(call, 1)
    lu, _, permutation = linalg.lu(_f32(call.args[0]))
    return (permutation, *_unpack(lu))


def _permutation(pivots: Tensor, m: int) -> Tensor:
    """P = S_0 S_1 ... S_{k-1} for 1-based pivots (S_i swaps rows i and
    pivots[i] - 1), as `m x m` f32 matrices over pivots' batch dims."""
    k = pivots.shape[-1]
    if k > MAX_PIVOT_SWAPS:
        raise UnsupportedNode(
            f"pivots given as an input with {k} swaps (fxdsl unrolls at most "
            f"{MAX_PIVOT_SWAPS} into matrices)"
        )
    rows = ops.constant(np.arange(1, m + 1, dtype=np.int64))
    pivots = ops.cast(pivots, "i64")
    result: Tensor | None = None
    for i in range(k):
        start = [0] * pivots.ndim
        start[-1] = i
        target = ops.slice(pivots, start, [*pivots.shape[:-1], i + 1])
        e_p = ops.cast(ops.eq(rows, target), "f32")  # (..., m): row pivots[i]
        e_i = np.eye(m, dtype=np.float32)[i]
        column_p, row_p = (
            ops.reshape(e_p, [*e_p.shape, 1]),
            ops.reshape(e_p, [*e_p.shape[:-1], 1, m]),
        )
        fixed = np.eye(m, dtype=np.float32) - np.outer(e_i, e_i)
        swap = ops.add(
            ops.sub(ops.constant(fixed), ops.matmul(column_p, row_p)),
            ops.add(
                ops.matmul(ops.constant(e_i[:, None]), row_p),
                ops.matmul(column_p, ops.constant(e_i[None, :])),
            ),
        )
        result = swap if result is None else ops.matmul(result, swap)
    if result is None:
        return ops.broadcast_to(_eye(m), [*pivots.shape[:-1], m, m])
    return result


@aten("lu_unpack.default")
def _lu_unpack(call: AtenCall) -> Any:
    lu, pivots = _f32(call.args[0]), call.args[1]
    unpack_data = bool(call.arg(2, "unpack_data", True))
    unpack_pivots = bool(call.arg(3, "unpack_pivots", True))
    m = lu.shape[-2]
    lower, upper = _unpack(lu) if unpack_data else (None, None)
    permutation = _permutation(pivots, m) if unpack_pivots else None
    results = (permutation, lower, upper)
    return tuple(
        r if r is not None else _empty_like_result(call, i)
        for i, r in enumerate(results)
    )


def _lu_solve(
    lu: Tensor, permutation: Tensor, b: Tensor, left: bool, adjoint: bool
) -> Tensor:
    """x with A x = b (A^T x = b with `adjoint`; x A = b, x A^T = b when not
    `left`) for A = P L U given as packed factors and P."""
    if left and not adjoint:  # x = U^-1 L^-1 P^T b
        y = linalg.triangular_solve(
            lu, ops.matmul(_t(permutation), b), unitriangular=True
        )
        return linalg.triangular_solve(lu, y, upper=True)
    if left:  # A^T = U^T L^T P^T: x = P L^-T U^-T b
        y = linalg.triangular_solve(_t(lu), b)
        z = linalg.triangular_solve(_t(lu), y, upper=True, unitriangular=True)
        return ops.matmul(permutation, z)
    if not adjoint:  # x = b U^-1 L^-1 P^T
        y = linalg.triangular_solve(lu, b, upper=True, right=True)
        z = linalg.triangular_solve(lu, y, right=True, unitriangular=True)
        return ops.matmul(z, _t(permutation))
    # x A^T = b, A^T = U^T L^T P^T: x = b P L^-T U^-T
    y = ops.matmul(b, permutation)
    z = linalg.triangular_solve(_t(lu), y, upper=True, right=True, unitriangular=True)
    return linalg.triangular_solve(_t(lu), z, right=True)


@aten("linalg_lu_solve.default")
def _linalg_lu_solve(call: AtenCall) -> Any:
    lu, pivots, b = _f32(call.args[0]), call.args[1], _f32(call.args[2])
    left = bool(call.arg(3, "left", True))
    adjoint = bool(call.arg(4, "adjoint", False))
    if lu.shape[-1] != lu.shape[-2]:
        raise UnsupportedNode(f"lu_solve with non-square factors {lu.shape}")
    return _lu_solve(lu, _permutation(pivots, lu.shape[-1]), b, left, adjoint)


def _square(a: Tensor, what: str) -> Tensor:
    _f32(a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise UnsupportedNode(f"{what} of non-square {a.shape}")
    return a


def _solve(a: Tensor, b: Tensor, left: bool = True) -> tuple[Tensor, ...]:
    """(x, LU, pivots, info) of `a x = b` (`x a = b` unless `left`)."""
    lu, pivots, permutation = linalg.lu(_square(a, "solve"))
    x = _lu_solve(lu, permutation, b, left, adjoint=False)
    return (x, lu, pivots, _lu_info(lu, pivots))


@aten("_linalg_solve_ex.default")
def _linalg_solve_ex(call: AtenCall) -> Any:
    a, b = call.args[0], _f32(call.args[1])
    left = bool(call.arg(2, "left", True))
    # torch: b is a batch of vectors when it has one dim fewer than a
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    if vector:
        b = ops.reshape(b, [*b.shape, 1] if left else [*b.shape[:-1], 1, b.shape[-1]])
    x, *rest = _solve(a, b, left)
    shape = [int(d) for d in call.result[0].shape]
    return (ops.reshape(x, shape) if vector else x, *rest)


@aten("linalg_inv_ex.default")
def _linalg_inv_ex(call: AtenCall) -> Any:
    a = _square(call.args[0], "inverse")
    identity = ops.broadcast_to(_eye(a.shape[-1]), a.shape)
    x, _, _, info = _solve(a, identity)
    return (x, info)


def _slogdet(a: Tensor) -> tuple[Tensor, ...]:
    """(sign, log|det|, LU, pivots) of square matrices. The LU and pivots
    are those of the transpose, as torch's `_linalg_det`/`_linalg_slogdet`
    return them (LAPACK is column-major): their backward solves with them
    as the factorization of A^T (det(A^T) = det(A)); A's own put the
    gradient of a non-symmetric matrix's determinant transposed."""
    lu, pivots, _ = linalg.lu(_t(_square(a, "determinant")))
    n = a.shape[-1]
    last = [a.ndim - 2]
    diagonal = _diagonal(lu)
    logabs = ops.sum(ops.log(ops.abs(diagonal)), last)
    steps = ops.constant(np.arange(1, n + 1, dtype=np.int32))
    swaps = ops.sum(ops.cast(ops.ne(pivots, steps), "f32"), last)
    negative = ops.sum(ops.cast(ops.lt(diagonal, 0.0), "f32"), last)
    flips = ops.add(swaps, negative)
    # (-1)^flips, from the parity flips - 2 floor(flips / 2)
    half = ops.cast(ops.cast(ops.mul(flips, 0.5), "i64"), "f32")
    sign = ops.sub(1.0, ops.mul(ops.sub(flips, ops.mul(half, 2.0)), 2.0))
    singular = ops.any(ops.eq(diagonal, 0.0), last) if n else None
    if singular is not None:
        sign = ops.where(singular, 0.0, sign)
    return (sign, logabs, lu, pivots)


@aten("_linalg_slogdet.default")
def _linalg_slogdet(call: AtenCall) -> Any:
    return _slogdet(call.args[0])


@aten("_linalg_det.default")
def _linalg_det(call: AtenCall) -> Any:
    sign, logabs, lu, pivots = _slogdet(call.args[0])
    return (ops.mul(sign, ops.exp(logabs)), lu, pivots)


# --------------------------------------------------------------------------- #
# QR, SVD, eigh and what torch builds on them
# --------------------------------------------------------------------------- #


@aten("linalg_qr.default")
def _linalg_qr(call: AtenCall) -> Any:
    mode = str(call.arg(1, "mode", "reduced"))
    if mode not in ("reduced", "complete", "r"):
        raise UnsupportedNode(f"qr mode {mode!r}")
    q, r = linalg.qr(_f32(call.args[0]), complete=mode == "complete")
    return (_empty_like_result(call, 0) if mode == "r" else q, r)


@aten("geqrf.default")
def _geqrf(call: AtenCall) -> Any:
    return linalg.geqrf(_f32(call.args[0]))


def _householder(packed: Tensor, tau: Tensor) -> Tensor:
    """Q = H_0 ... H_{k-1} (m x m) of Householder vectors stored below the
    diagonal of `packed` (m x n) with scales `tau` (k <= n), as `orgqr`
    reads them: H_i = I - tau_i v_i v_i^T, v_i = (0, .., 1, packed[i+1:, i])."""
    m, n = packed.shape[-2:]
    k = tau.shape[-1]
    if k > MAX_PIVOT_SWAPS:
        raise UnsupportedNode(
            f"{k} Householder reflections (fxdsl unrolls at most {MAX_PIVOT_SWAPS})"
        )
    if k > min(m, n):
        raise UnsupportedNode(f"{k} reflections of {m}x{n} vectors")
    vectors = ops.add(_tril(packed, -1), _eye(m, n))
    batch = list(packed.shape[:-2])
    q: Tensor | None = None
    for i in range(k):
        start = [0] * packed.ndim
        start[-1] = i
        v = ops.slice(vectors, start, [*batch, m, i + 1])  # (..., m, 1)
        t_start = [0] * tau.ndim
        t_start[-1] = i
        scale = ops.reshape(
            ops.slice(tau, t_start, [*tau.shape[:-1], i + 1]), [*tau.shape[:-1], 1, 1]
        )
        reflection = ops.sub(_eye(m), ops.mul(scale, ops.matmul(v, _t(v))))
        q = reflection if q is None else ops.matmul(q, reflection)
    if q is None:
        return ops.broadcast_to(_eye(m), [*batch, m, m])
    return q


@aten("linalg_householder_product.default")
def _householder_product(call: AtenCall) -> Any:
    packed, tau = _f32(call.args[0]), _f32(call.args[1])
    q = _householder(packed, tau)
    m, n = packed.shape[-2:]
    shape = [int(d) for d in call.result.shape]
    columns = ops.slice(q, [0] * q.ndim, [*q.shape[:-1], n]) if n != m else q
    return columns if columns.shape == shape else ops.broadcast_to(columns, shape)


@aten("ormqr.default")
def _ormqr(call: AtenCall) -> Any:
    packed, tau, c = _f32(call.args[0]), _f32(call.args[1]), _f32(call.args[2])
    left = bool(call.arg(3, "left", True))
    transpose = bool(call.arg(4, "transpose", False))
    q = _householder(packed, tau)
    q = _t(q) if transpose else q
    return ops.matmul(q, c) if left else ops.matmul(c, q)


@aten("_linalg_svd.default")
def _linalg_svd(call: AtenCall) -> Any:
    full = bool(call.arg(1, "full_matrices", False))
    compute_uv = bool(call.arg(2, "compute_uv", True))
    u, s, vh = linalg.svd(_f32(call.args[0]), full_matrices=full and compute_uv)
    if not compute_uv:
        return (_empty_like_result(call, 0), s, _empty_like_result(call, 2))
    return (u, s, vh)


@aten("_linalg_eigh.default")
def _linalg_eigh(call: AtenCall) -> Any:
    a = _square(call.args[0], "eigh")
    upper = str(call.arg(1, "UPLO", "L")).upper() == "U"
    w, v = linalg.eigh(_t(a) if upper else a)
    if not bool(call.arg(2, "compute_v", True)):
        return (w, _empty_like_result(call, 1))
    return (w, v)


def _threshold(call: AtenCall, largest: Tensor, shape: list[int]) -> Any:
    """torch's `max(atol, rtol * largest)`: rtol defaults to max(m, n) eps,
    or to 0 where atol is given and positive. A tolerance tensor has the
    batch shape (a trailing dim of one is added to meet the values)."""
    atol, rtol = (
        _per_matrix(call.arg(i, name)) for i, name in ((1, "atol"), (2, "rtol"))
    )
    default = max(shape[-2:]) * F32_EPS
    if rtol is None and isinstance(atol, Tensor):
        rtol = ops.where(ops.gt(atol, 0.0), 0.0, default)
    elif rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else default
    relative = ops.mul(largest, rtol)
    return relative if atol is None else ops.maximum(relative, atol)


def _per_matrix(tolerance: Any) -> Any:
    if isinstance(tolerance, Tensor):
        # pinverse's decomposition passes its rcond as a float64 scalar: a
        # tolerance compared with float32 singular values is one in f32
        if tolerance.dtype == "f64":
            tolerance = ops.cast(tolerance, "f32")
        return ops.reshape(_f32(tolerance), [*tolerance.shape, 1])
    return None if tolerance is None else float(tolerance)


def _largest_magnitude(w: Tensor) -> Tensor:
    """max |w| over ascending eigenvalues: at one of the two ends (no
    reduction, so an empty batch needs no identity)."""
    n = w.shape[-1]
    ends = [
        ops.abs(ops.slice(w, [0] * (w.ndim - 1) + [i], [*w.shape[:-1], i + 1]))
        for i in (0, n - 1)
    ]
    return ops.maximum(*ends)


def _spectrum(call: AtenCall, a: Tensor) -> tuple[Tensor, ...]:
    """(magnitudes, kept mask, and the factors to rebuild from) of `a`'s
    singular values or, `hermitian`, of its eigenvalues."""
    hermitian = bool(call.arg(3, "hermitian", False))
    if hermitian:
        w, v = linalg.eigh(_square(a, "hermitian pinv/matrix_rank"))
        magnitude = ops.abs(w)
        largest = _largest_magnitude(w) if w.shape[-1] else None
        factors: tuple[Tensor, ...] = (w, v, _t(v))
    else:
        u, s, vh = linalg.svd(_f32(a))
        magnitude = s
        first = [*s.shape[:-1], 1]
        largest = ops.slice(s, [0] * s.ndim, first) if s.shape[-1] else None
        factors = (s, _t(vh), _t(u))
    if largest is None:  # no singular values: nothing is kept
        return (magnitude, ops.gt(magnitude, 0.0), *factors)
    threshold = _threshold(call, largest, list(a.shape))
    return (magnitude, ops.gt(magnitude, threshold), *factors)


@aten("linalg_pinv.atol_rtol_tensor", "linalg_pinv.atol_rtol_float")
def _linalg_pinv(call: AtenCall) -> Any:
    a = _f32(call.args[0])
    _, kept, values, right, left = _spectrum(call, a)
    inverse = ops.where(kept, ops.div(1.0, values), 0.0)
    shape = [*inverse.shape[:-1], 1, inverse.shape[-1]]
    return ops.matmul(ops.mul(right, ops.reshape(inverse, shape)), left)


@aten("linalg_matrix_rank.atol_rtol_tensor", "linalg_matrix_rank.atol_rtol_float")
def _linalg_matrix_rank(call: AtenCall) -> Any:
    a = _f32(call.args[0])
    _, kept, *_ = _spectrum(call, a)
    return ops.sum(ops.cast(kept, "i64"), [kept.ndim - 1])
