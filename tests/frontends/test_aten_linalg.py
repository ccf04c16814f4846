"""torch's linear algebra through `from_torch` (both import levels), on the
reference interpreter, against torch eager: the compositions of
`fxdsl/frontends/aten_linalg.py` over the graph dialect's factorisations,
on the flags and shapes OpInfo's first samples do not reach (upper factors,
right and adjoint solves, batches of vectors, singular matrices, tolerance
tensors), and the clean refusals."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from fxdsl.frontends.torch_export import TorchImportError, from_torch  # noqa: E402

rng = np.random.default_rng(11)


class Fn(torch.nn.Module):
    def __init__(self, fn: Callable[..., Any]):
        super().__init__()
        self.fn = fn

    def forward(self, *xs: Any) -> Any:
        return self.fn(*xs)


def tensor(*shape: int) -> Any:
    return torch.from_numpy(rng.standard_normal(shape).astype(np.float32))


def spd(*shape: int) -> Any:
    a = tensor(*shape)
    return a @ a.mT + shape[-1] * torch.eye(shape[-1])


BOTH = (False, True)
"""Import levels (`decompose`). The core decompositions of the ops that
check for errors (`linalg.cholesky`, `inv`, `solve`) thread an effect
token through the check, which the import drops
(`test_error_checks_of_the_core_level_are_dropped`); those of
`matrix_rank` and `pinverse` pass float64 tolerances, compared in f32."""


def check(
    fn: Callable[..., Any], *inputs: Any, tol: float = 1e-4, levels: Any = BOTH
) -> None:
    """fn imported at `levels` equals torch's fn on `inputs`."""
    want = fn(*inputs)
    wants = [w for w in (want if isinstance(want, tuple) else (want,))]
    for decompose in levels:
        program = from_torch(Fn(fn), inputs, decompose=decompose)
        got = program.run(*inputs)
        assert len(got) == len(wants)
        for g, w in zip(got, wants):
            assert g.shape == tuple(w.shape)
            np.testing.assert_allclose(g, w.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_and_inverse(upper: bool) -> None:
    a = spd(2, 4, 4)
    factor = torch.linalg.cholesky(a, upper=upper)
    b = tensor(2, 4, 3)
    check(lambda f, b: torch.cholesky_solve(b, f, upper=upper), factor, b)
    check(lambda f: torch.cholesky_inverse(f, upper=upper), factor[0])
    check(lambda a: torch.linalg.cholesky(a, upper=upper), a)


@pytest.mark.parametrize("transpose", [False, True])
def test_triangular_solve_with_transpose(transpose: bool) -> None:
    a, b = spd(1, 4, 4), tensor(3, 4, 2)
    check(lambda b, a: torch.triangular_solve(b, a, upper=False, transpose=transpose),
          b, a)  # fmt: skip


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve_every_side(left: bool, adjoint: bool) -> None:
    a = tensor(2, 4, 4) + 4 * torch.eye(4)
    lu, pivots = torch.linalg.lu_factor(a)
    b = tensor(2, 4, 3) if left else tensor(2, 3, 4)
    check(lambda lu, p, b: torch.linalg.lu_solve(lu, p, b, left=left, adjoint=adjoint),
          lu, pivots, b)  # fmt: skip


def test_lu_unpack_and_the_permutation_of_given_pivots() -> None:
    a = tensor(3, 5, 4)
    lu, pivots = torch.linalg.lu_factor(a)
    check(torch.lu_unpack, lu, pivots)
    check(torch.linalg.lu, a)


def test_solve_a_batch_of_vectors_and_from_the_right() -> None:
    a = tensor(3, 4, 4) + 4 * torch.eye(4)
    check(torch.linalg.solve, a, tensor(3, 4))
    right = lambda a, b: torch.linalg.solve(a, b, left=False)
    check(right, a, tensor(3, 2, 4))
    check(torch.linalg.inv, a)
    check(torch.linalg.inv_ex, a)


def test_determinants_of_singular_and_signed_matrices() -> None:
    a = tensor(4, 3, 3)
    # singular: det 0, sign 0, log|det| -inf. A zero row stays exactly zero
    # through any elimination order; a repeated row leaves a pivot of
    # rounding noise whose sign depends on the CPU's BLAS kernels
    a[0, 2] = 0.0
    a[1] = torch.diag(torch.tensor([-1.0, 2.0, 3.0]))  # a negative pivot
    check(torch.linalg.det, a)
    check(torch.linalg.slogdet, a)
    check(torch.logdet, a[1:])


def test_lu_factor_ex_reports_the_first_zero_pivot() -> None:
    a = tensor(2, 3, 3)
    a[1, :, 0] = 0.0
    check(torch.linalg.lu_factor_ex, a)


def test_qr_modes_and_svd_values() -> None:
    a = tensor(2, 5, 3)
    for mode in ("reduced", "complete", "r"):
        check(lambda a, mode=mode: torch.linalg.qr(a, mode=mode), a)
    check(torch.linalg.svdvals, a)
    check(lambda a: torch.linalg.matrix_norm(a, "nuc"), a)
    check(lambda a: torch.linalg.matrix_norm(a, 2), a)


def test_pinv_and_rank_with_tolerances() -> None:
    a = tensor(2, 4, 3) @ tensor(2, 3, 5)  # rank 3 of 4 x 5
    check(torch.linalg.pinv, a)
    check(torch.pinverse, tensor(2, 4, 3))  # its rcond a float64 tolerance
    check(torch.linalg.matrix_rank, a)
    atol = torch.tensor([0.5, 100.0])
    rank = lambda a, atol: torch.linalg.matrix_rank(a, atol=atol)
    check(rank, a, atol)
    symmetric = a @ a.mT
    check(lambda s: torch.linalg.pinv(s, hermitian=True), symmetric, tol=1e-3)
    check(lambda s: torch.linalg.eigvalsh(s, UPLO="U"), symmetric, tol=1e-3)


def test_error_checks_of_the_core_level_are_dropped() -> None:
    """The core decomposition of `linalg.inv` checks its info output through
    `with_effects` and returns the effect token: the program imports without
    them; an effect that is not such a check is refused, not dropped."""
    from fxdsl.frontends import torch_source

    a = tensor(3, 3) + 3 * torch.eye(3)
    program = torch.export.export(Fn(torch.linalg.inv), (a,)).run_decompositions()
    assert "TOKEN" in str(program.graph_signature)
    source = torch_source.exported_source(program)
    assert source.effects
    assert None in source.known.values()
    check(torch.linalg.inv, a)
    fx = torch.fx.Graph()
    token = fx.placeholder("token")
    fx.call_function(
        torch.ops.higher_order.with_effects, (token, torch.ops.aten._print.default, "x")
    )
    with pytest.raises(TorchImportError, match="side effect aten._print.default"):
        torch_source._check_effects(fx)


def test_refusals_name_the_reason() -> None:
    a = tensor(3, 3)
    with pytest.raises(TorchImportError, match="pivot=False"):
        from_torch(Fn(lambda a: torch.linalg.lu(a, pivot=False)), (a,))
    big = tensor(70, 70)
    lu, pivots = torch.linalg.lu_factor(big)
    with pytest.raises(TorchImportError, match="unrolls at most 64"):
        from_torch(Fn(torch.lu_unpack), (lu, pivots))


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
def test_ormqr_and_householder_product(left: bool, transpose: bool) -> None:
    packed, tau = torch.geqrf(tensor(2, 5, 3))
    c = tensor(2, 5, 4) if left else tensor(2, 4, 5)
    check(lambda a, t, c: torch.ormqr(a, t, c, left=left, transpose=transpose),
          packed, tau, c)  # fmt: skip
    check(torch.linalg.householder_product, packed, tau)
    check(torch.geqrf, tensor(3, 4, 6))


def test_matrix_exp_scales_and_squares_per_matrix() -> None:
    """A batch whose matrices need 0 to 7 squarings (one of them all
    zeros), each to its own count; skew-symmetric ones give rotations."""
    scales = torch.tensor([0.0, 1e-3, 0.5, 3.0, 20.0, 60.0]).reshape(6, 1, 1)
    a = tensor(6, 4, 4) * scales / 4
    for decompose in BOTH:
        program = from_torch(Fn(torch.matrix_exp), (a,), decompose=decompose)
        (got,) = program.run(a)
        want = torch.matrix_exp(a.double())
        error = (
            np.abs(got - want.numpy()) / want.abs().amax((1, 2), keepdim=True).numpy()
        )
        assert error.max() < 1e-5
    skew = a[2:4] - a[2:4].mT
    check(torch.linalg.matrix_exp, skew, tol=1e-5)


def test_matrix_exp_past_its_squarings_is_nan_not_wrong() -> None:
    from fxdsl.frontends.aten_matrix_exp import MAX_SQUARINGS

    a = torch.eye(3) * -(2.0 ** (MAX_SQUARINGS + 2))
    (got,) = from_torch(Fn(torch.matrix_exp), (a,)).run(a)
    assert np.isnan(got).all()


def test_an_orthogonal_parametrization_trains_through_the_backend(
    fresh_dynamo: Any,
) -> None:
    """`parametrizations.orthogonal`'s default map is the matrix
    exponential: its forward and backward compile, and agree with eager."""
    from fxdsl.testing.generation import recording_plans

    torch.manual_seed(0)
    layer = torch.nn.utils.parametrizations.orthogonal(torch.nn.Linear(6, 6))
    x = tensor(5, 6)
    want = layer(x)
    want.square().sum().backward()
    grads = [p.grad.clone() for p in layer.parameters()]
    layer.zero_grad()
    plans: list[Any] = []
    with recording_plans(plans):
        got = torch.compile(layer, backend="fxdsl")(x)
        got.square().sum().backward()
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
    for p, grad in zip(layer.parameters(), grads, strict=True):
        torch.testing.assert_close(p.grad, grad, rtol=1e-3, atol=1e-4)
    assert plans
    assert all(plan.compiled == plan.total for plan in plans), plans[0].report()


@pytest.mark.parametrize(
    "op", [torch.ops.aten._linalg_det.default, torch.ops.aten._linalg_slogdet.default]
)
def test_determinants_return_the_lu_of_the_transpose(op: Any) -> None:
    """torch's `_linalg_det`/`_linalg_slogdet` return the LU and pivots of
    A^T (LAPACK's column-major), and their backward solves with them so:
    every output equals torch's on non-symmetric matrices."""
    check(op, tensor(2, 4, 4), levels=(False,))


@pytest.mark.parametrize("fn", [torch.linalg.det, torch.logdet, torch.linalg.slogdet])
def test_determinant_gradients_of_a_non_symmetric_matrix(
    fresh_dynamo: Any, fn: Any
) -> None:
    """The gradient of det(A) is det(A) A^-T: with A's own LU the backward
    gave its transpose (OpInfo's gradient sweep: 20 of 25 values)."""
    from fxdsl.testing.generation import recording_plans

    a = (spd(5, 5) + 2 * torch.triu(tensor(5, 5), 1)).requires_grad_(True)

    def loss(a: Any) -> Any:
        out = fn(a)
        return (out[1] if isinstance(out, tuple) else out) * 1.5

    loss(a).backward()
    want, a.grad = a.grad, None
    plans: list[Any] = []
    with recording_plans(plans):
        torch.compile(loss, backend="fxdsl")(a).backward()
    torch.testing.assert_close(a.grad, want, rtol=1e-4, atol=1e-5)
    assert plans
