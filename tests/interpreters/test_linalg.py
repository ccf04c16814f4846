"""The linear-algebra ops on the reference interpreter: against torch where
torch's result is unique (Cholesky, LU with its pivots, QR's signs,
triangular solves, singular values, eigenvalues), by reconstruction where it
is not (singular vectors, eigenvectors), on a factorisation worked by hand,
and the failures (a matrix that is not positive definite)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.utils.exceptions import VerifyException

import fxdsl
from fxdsl.interpreters.graph import InterpretationFailure
from fxdsl.interpreters.run import run_reference
from fxdsl.ir import graph

torch = pytest.importorskip("torch")

Array = np.ndarray[Any, Any]
rng = np.random.default_rng(7)


def f32(*shape: int) -> Array:
    return rng.standard_normal(shape).astype(np.float32)


def spd(*shape: int) -> Array:
    a = f32(*shape)
    n = shape[-1]
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(np.float32)


def run(body: str, args: list[str], results: list[str], *inputs: Array) -> Any:
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(args))
    names = ", ".join(f"%r{i}" for i in range(len(results)))
    types = ", ".join(results)
    text = (
        f"func.func @f({params}) -> ({types}) {{\n  {names} = {body}\n"
        f"  func.return {names} : {types}\n}}\n"
    )
    return run_reference(fxdsl.parse(text), *inputs, check_types=True)


def close(got: Array, want: Any, tol: float = 2e-5) -> None:
    want = want.numpy() if hasattr(want, "numpy") else np.asarray(want)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


LINALG_CASES = {
    "graph.cholesky": "test_cholesky_matches_torch",
    "graph.triangular_solve": "test_triangular_solve_matches_torch",
    "graph.lu": "test_lu_matches_torch",
    "graph.qr": "test_qr_matches_torch",
    "graph.geqrf": "test_geqrf_matches_torch",
    "graph.svd": "test_svd_values_and_reconstruction",
    "graph.eigh": "test_eigh_values_and_reconstruction",
}
"""Each op of the family -> its numerics test here."""


def test_every_linalg_op_has_a_numerics_case() -> None:
    assert set(LINALG_CASES) == {op.name for op in graph.LINALG_OPS}
    assert all(name in globals() for name in LINALG_CASES.values())


def test_cholesky_matches_torch() -> None:
    a = spd(2, 4, 4)
    (lower,) = run("graph.cholesky %a0 : tensor<2x4x4xf32>", ["tensor<2x4x4xf32>"],
                   ["tensor<2x4x4xf32>"], a)  # fmt: skip
    close(lower, torch.linalg.cholesky(torch.tensor(a)))


def test_cholesky_reads_the_lower_triangle_only() -> None:
    a = spd(4, 4)
    garbage = a + np.triu(np.full((4, 4), 100.0, np.float32), 1)
    typ = "tensor<4x4xf32>"
    (lower,) = run(f"graph.cholesky %a0 : {typ}", [typ], [typ], garbage)
    close(lower, np.linalg.cholesky(a.astype(np.float64)))


def test_cholesky_of_an_indefinite_matrix_fails_naming_the_op() -> None:
    typ = "tensor<2x2xf32>"
    a = np.array([[1.0, 2.0], [2.0, 1.0]], np.float32)
    with pytest.raises(InterpretationFailure, match="graph.cholesky: .*definite"):
        run(f"graph.cholesky %a0 : {typ}", [typ], [typ], a)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("unit", [False, True])
def test_triangular_solve_matches_torch(upper: bool, right: bool, unit: bool) -> None:
    a = spd(3, 1, 4, 4)  # broadcast over b's batch of 2
    b = f32(2, 3, 4) if right else f32(2, 4, 3)
    flags = "".join(
        f" {name}" for name, on in (("right", right), ("unitriangular", unit),
                                    ("upper", upper)) if on
    )  # fmt: skip
    tb = f"tensor<{'x'.join(map(str, b.shape))}xf32>"
    tr = "tensor<3x2x3x4xf32>" if right else "tensor<3x2x4x3xf32>"
    body = (
        f"graph.triangular_solve %a0, %a1{flags} : (tensor<3x1x4x4xf32>, {tb}) -> {tr}"
    )
    (x,) = run(body, ["tensor<3x1x4x4xf32>", tb], [tr], a, b)
    want = torch.linalg.solve_triangular(
        torch.tensor(a), torch.tensor(b), upper=upper, left=not right,
        unitriangular=unit,
    )  # fmt: skip
    close(x, want, 1e-4)


LU_TYPES = ["tensor<3x4x6xf32>", "tensor<3x4xi32>", "tensor<3x4x4xf32>"]


@pytest.mark.parametrize("shape", [(3, 5, 5), (3, 4, 6), (3, 6, 4)])
def test_lu_matches_torch(shape: tuple[int, ...]) -> None:
    a = f32(*shape)
    b, m, n = shape
    k = min(m, n)
    types = [
        f"tensor<{b}x{m}x{n}xf32>",
        f"tensor<{b}x{k}xi32>",
        f"tensor<{b}x{m}x{m}xf32>",
    ]
    lu, pivots, p = run(f"graph.lu %a0 : ({types[0]}) -> ({', '.join(types)})",
                        [types[0]], types, a)  # fmt: skip
    want_lu, want_pivots = torch.linalg.lu_factor(torch.tensor(a))
    want_p, _, _ = torch.linalg.lu(torch.tensor(a))
    close(lu, want_lu)
    np.testing.assert_array_equal(pivots, want_pivots.numpy(), strict=True)
    np.testing.assert_array_equal(p, want_p.numpy())


def test_lu_by_hand() -> None:
    """[[1, 2], [3, 4]]: swap the rows (|3| > |1|), l = 1/3, u22 = 2 - 4/3."""
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    types = ["tensor<2x2xf32>", "tensor<2xi32>", "tensor<2x2xf32>"]
    lu, pivots, p = run(f"graph.lu %a0 : ({types[0]}) -> ({', '.join(types)})",
                        [types[0]], types, a)  # fmt: skip
    close(lu, [[3.0, 4.0], [1 / 3, 2 / 3]], 1e-6)
    np.testing.assert_array_equal(pivots, [2, 2])
    np.testing.assert_array_equal(p, [[0.0, 1.0], [1.0, 0.0]])


def test_lu_of_a_singular_matrix_keeps_the_zero_pivot() -> None:
    """As LAPACK: a zero column is not scaled (no division by zero)."""
    a = np.array([[0.0, 1.0], [0.0, 2.0]], np.float32)
    types = ["tensor<2x2xf32>", "tensor<2xi32>", "tensor<2x2xf32>"]
    lu, pivots, _ = run(f"graph.lu %a0 : ({types[0]}) -> ({', '.join(types)})",
                        [types[0]], types, a)  # fmt: skip
    want_lu, want_pivots, info = torch.linalg.lu_factor_ex(torch.tensor(a))
    assert int(info) == 1  # torch's way of saying U[0, 0] is zero
    close(lu, want_lu)
    np.testing.assert_array_equal(pivots, want_pivots.numpy())


@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("shape", [(2, 6, 4), (2, 4, 6)])
def test_qr_matches_torch(complete: bool, shape: tuple[int, ...]) -> None:
    a = f32(*shape)
    b, m, n = shape
    k = m if complete else min(m, n)
    types = [f"tensor<{b}x{m}x{k}xf32>", f"tensor<{b}x{k}x{n}xf32>"]
    flag = " complete" if complete else ""
    q, r = run(f"graph.qr %a0{flag} : (tensor<{b}x{m}x{n}xf32>) -> ({', '.join(types)})",
               [f"tensor<{b}x{m}x{n}xf32>"], types, a)  # fmt: skip
    want_q, want_r = torch.linalg.qr(
        torch.tensor(a), mode="complete" if complete else "reduced"
    )
    close(q, want_q)  # the same signs: LAPACK's Householder reflections
    close(r, want_r)


@pytest.mark.parametrize("shape", [(2, 6, 4), (4, 6), (5, 5)])
def test_geqrf_matches_torch(shape: tuple[int, ...]) -> None:
    a = f32(*shape)
    k = min(shape[-2:])
    typ = f"tensor<{'x'.join(map(str, shape))}xf32>"
    tau_type = f"tensor<{'x'.join(map(str, (*shape[:-2], k)))}xf32>"
    packed, tau = run(f"graph.geqrf %a0 : ({typ}) -> ({typ}, {tau_type})",
                      [typ], [typ, tau_type], a)  # fmt: skip
    want_packed, want_tau = torch.geqrf(torch.tensor(a))
    close(packed, want_packed)
    close(tau, want_tau)
    if shape[-2] >= shape[-1]:  # and the reflections rebuild torch's Q
        q = torch.linalg.householder_product(torch.tensor(packed), torch.tensor(tau))
        close(q.numpy(), torch.linalg.qr(torch.tensor(a))[0])


@pytest.mark.parametrize("full", [False, True])
def test_svd_values_and_reconstruction(full: bool) -> None:
    a = f32(2, 5, 3)
    types = (
        ["tensor<2x5x5xf32>", "tensor<2x3xf32>", "tensor<2x3x3xf32>"]
        if full
        else ["tensor<2x5x3xf32>", "tensor<2x3xf32>", "tensor<2x3x3xf32>"]
    )
    flag = " full_matrices" if full else ""
    u, s, vh = run(f"graph.svd %a0{flag} : (tensor<2x5x3xf32>) -> ({', '.join(types)})",
                   ["tensor<2x5x3xf32>"], types, a)  # fmt: skip
    close(s, torch.linalg.svdvals(torch.tensor(a)))
    assert np.all(np.diff(s, axis=-1) <= 0)  # descending
    close((u[..., :3] * s[..., None, :]) @ vh, a, 1e-5)
    close(np.swapaxes(u, -1, -2) @ u, np.broadcast_to(np.eye(u.shape[-1]), u.shape[:-2]
          + (u.shape[-1],) * 2), 1e-5)  # fmt: skip


def test_eigh_values_and_reconstruction() -> None:
    a = f32(2, 4, 4)
    symmetric = np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2)
    types = ["tensor<2x4xf32>", "tensor<2x4x4xf32>"]
    w, v = run(
        f"graph.eigh %a0 : (tensor<2x4x4xf32>) -> ({', '.join(types)})",
        ["tensor<2x4x4xf32>"],
        types,
        a,
    )  # only the lower triangle is read
    close(w, torch.linalg.eigvalsh(torch.tensor(symmetric)))
    close((v * w[..., None, :]) @ np.swapaxes(v, -1, -2), symmetric, 1e-5)


def test_the_family_takes_f32_only() -> None:
    with pytest.raises(VerifyException, match="graph.cholesky: expects f32 matrices"):
        fxdsl.parse(
            "func.func @f(%a: tensor<2x2xf16>) -> tensor<2x2xf16> {\n"
            "  %r = graph.cholesky %a : tensor<2x2xf16>\n"
            "  func.return %r : tensor<2x2xf16>\n}\n"
        )
