"""The Bessel functions of `aten_bessel` (J0, J1, Y0, Y1, K0, K1 and the
scaled K), the Chebyshev polynomials of `aten_chebyshev` (T, U, V, W and
their shifted forms), the Hermite, Laguerre and Legendre polynomials of
`aten_polynomials`, the Hurwitz zeta function of `aten_zeta` and the
normal quantile `ndtri`: against torch in
float64 on dense grids with the edge cases, at both IR levels; known
values; and their kernels through cuda-sim and `nvcc -ptx`."""

from __future__ import annotations

import math
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.frontends.torch_export import TorchImportError, from_torch  # noqa: E402
from fxdsl.interpreters.run import run_reference  # noqa: E402
from fxdsl.testing.kernel_checks import compile_module_ptx, run_on_cuda_sim  # noqa: E402
from fxdsl.testing.torch_models import function_module  # noqa: E402

S = torch.special
EDGES = [0.0, -0.0, 1e-30, 1e-6, 2.0, 7.9999, 8.0, 8.0001, 100.0, 1e4, -1.0, -8.0]
EDGES += [math.inf, -math.inf, math.nan]


def _grid(low: float, high: float, edges: list[float] = EDGES) -> Any:
    generator = torch.Generator().manual_seed(1)
    inside = torch.rand(2000, generator=generator) * (high - low) + low
    return torch.cat([inside, torch.tensor(edges)])


UNARY = {
    "bessel_j0": (S.bessel_j0, (-30.0, 30.0)),
    "bessel_j1": (S.bessel_j1, (-30.0, 30.0)),
    "bessel_y0": (S.bessel_y0, (-2.0, 30.0)),
    "bessel_y1": (S.bessel_y1, (-2.0, 30.0)),
    "modified_bessel_k0": (S.modified_bessel_k0, (-1.0, 60.0)),
    "modified_bessel_k1": (S.modified_bessel_k1, (-1.0, 60.0)),
    "scaled_modified_bessel_k0": (S.scaled_modified_bessel_k0, (-1.0, 60.0)),
    "scaled_modified_bessel_k1": (S.scaled_modified_bessel_k1, (-1.0, 60.0)),
    "ndtri": (S.ndtri, (-0.1, 1.1)),
}
"""Name -> (function, grid range)."""


def _run(fn: Callable[..., Any], args: tuple[Any, ...], decompose: bool) -> Any:
    return from_torch(function_module(fn), args, decompose=decompose).run(*args)


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_functions_match_torch_in_float64(name: str, decompose: bool) -> None:
    """Within 5e-6 absolute and 1e-5 relative: J and Y are absolute-error
    fits (near a zero only the absolute error is small), and beyond x = 8
    their phase x - pi/4 is rounded to float32 (at x = 1e4 by 5e-4)."""
    fn, (low, high) = UNARY[name]
    x = _grid(low, high)
    if name == "ndtri":  # its tails, down to the smallest normal float
        tails = torch.logspace(-37.5, -1, 200)
        x = torch.cat([x, tails, 1 - tails[tails > 1e-7], torch.tensor([0.0, 1.0])])
    (got,) = _run(fn, (x,), decompose)
    want = fn(x.double()).float().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=5e-6)


KNOWN = [
    (S.bessel_j0, 2.404825557695773, 0.0),  # its first zero
    (S.bessel_j1, 1.0, 0.44005058574493355),
    (S.bessel_y0, 0.0, -math.inf),
    (S.bessel_y1, -1.0, math.nan),
    (S.modified_bessel_k0, 0.0, math.inf),
    (S.modified_bessel_k1, 1.0, 0.6019072301972346),
    (S.ndtri, 0.975, 1.959963984540054),
    (S.ndtri, 1e-30, -11.464024688443613),
    (S.ndtri, 0.0, -math.inf),
    (S.ndtri, 1.5, math.nan),
]


@pytest.mark.parametrize(("fn", "x", "want"), KNOWN)
def test_known_values(fn: Callable[..., Any], x: float, want: float) -> None:
    (got,) = _run(fn, (torch.tensor([x]),), decompose=False)
    np.testing.assert_allclose(got, [want], rtol=2e-6, atol=1e-6)


CHEBYSHEV = [
    f"{shifted}chebyshev_polynomial_{kind}"
    for kind in "tuvw"
    for shifted in ("", "shifted_")
]


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
@pytest.mark.parametrize("name", CHEBYSHEV)
def test_chebyshev_polynomials_match_torch_in_float64(
    name: str, decompose: bool
) -> None:
    """Every degree from -2 to 14 (fractional ones truncated) at x in
    [-3, 3] with +-1, 0 and 1/2 exactly (the shifted forms' +-1 and 0):
    the closed forms against torch's recurrence in float64."""
    fn = getattr(S, name)
    degrees = torch.tensor([-2.0, -0.5, 0.0, 0.7, 1.0, 2.0, 3.0, 4.9, 5.0, 6.0,
                            7.0, 8.0, 9.0, 11.0, 14.0])  # fmt: skip
    points = torch.cat(
        [torch.linspace(-3, 3, 241), torch.tensor([1.0, -1.0, 0.0, 0.5, -0.5])]
    )
    x, n = (t.reshape(-1) for t in torch.meshgrid(points, degrees, indexing="ij"))
    (got,) = _run(fn, (x, n), decompose)
    want = fn(x.double(), n.double()).float().numpy()
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)


RECURRENT = [
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
]


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
@pytest.mark.parametrize("name", RECURRENT)
def test_recurrent_polynomials_match_torch(name: str, decompose: bool) -> None:
    """Degrees -2 to 64 (fractional ones truncated) at x in [-3, 3] with
    +-1 and 0: torch's recurrence unrolled, each step kept while k < n,
    against torch in float32 (its own recurrence) to float32's rounding;
    past `MAX_DEGREE` NaN."""
    from fxdsl.frontends.aten_polynomials import MAX_DEGREE

    fn = getattr(S, name)
    degrees = torch.tensor([-2.0, -0.5, 0.0, 0.7, 1.0, 2.0, 3.0, 5.0, 8.0, 9.0,
                            12.0, 20.0, float(MAX_DEGREE), MAX_DEGREE + 1.0])  # fmt: skip
    points = torch.cat(
        [torch.linspace(-3, 3, 121), torch.tensor([1.0, -1.0, 0.0, 0.5])]
    )
    x, n = (t.reshape(-1) for t in torch.meshgrid(points, degrees, indexing="ij"))
    (got,) = _run(fn, (x, n), decompose)
    want = fn(x, n).numpy()
    beyond = n.numpy() > MAX_DEGREE
    assert np.isnan(got[beyond]).all()
    scale = np.maximum(np.abs(want[~beyond]), 1.0)  # cancellation near roots
    np.testing.assert_allclose(got[~beyond] / scale, want[~beyond] / scale,
                               rtol=1e-4, atol=2e-5)  # fmt: skip


def test_chebyshev_scalar_degree_and_argument() -> None:
    x = torch.linspace(-2, 2, 41)
    (got,) = _run(lambda x: S.chebyshev_polynomial_u(x, 5), (x,), decompose=False)
    want = S.chebyshev_polynomial_u(x.double(), 5)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)
    n = torch.arange(-1.0, 9.0)
    (got,) = _run(lambda n: S.chebyshev_polynomial_v(0.3, n), (n,), decompose=False)
    np.testing.assert_allclose(
        got, S.chebyshev_polynomial_v(0.3, n.double()), rtol=2e-5, atol=1e-6
    )


def test_hurwitz_zeta_matches_torch_in_float64() -> None:
    """s and q over [-9, 9] (NaN below s = 1, the poles at non-positive
    integer q), large s (whose tail terms underflow while the rising
    product would overflow), negative q with an integer s (more direct
    terms), and the scalar overloads."""
    generator = torch.Generator().manual_seed(2)
    s = torch.cat([torch.rand(3000, generator=generator) * 18 - 9,
                   torch.tensor([1.0, 1.0001, 2.0, 3.0, 4.0, 30.0, 60.0, 3.0])])  # fmt: skip
    q = torch.cat([torch.rand(3000, generator=generator) * 18 - 9,
                   torch.tensor([0.5, 2.0, 0.0, -1.0, -2.5, 12.0, 0.3, -15.5])])  # fmt: skip
    for decompose in (False, True):
        (got,) = _run(S.zeta, (s, q), decompose)
        want = S.zeta(s.double(), q.double()).float().numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    (got,) = _run(lambda s: S.zeta(s, 2.5), (s,), decompose=False)
    want = S.zeta(s.double(), 2.5).float().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    (got,) = _run(lambda q: S.zeta(3.0, q), (q,), decompose=False)
    # negative q: terms of both signs cancel (-15.5: +-8 to 0.002)
    want = S.zeta(3.0, q.double()).float()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_float64_is_refused() -> None:
    with pytest.raises(TorchImportError, match="on f64: its composite is accurate"):
        _run(S.bessel_j0, (torch.rand(4, dtype=torch.float64),), decompose=False)


LOWERED = {
    "bessel_y1": (S.bessel_y1, (0.0, 20.0)),
    "modified_bessel_k1": (S.modified_bessel_k1, (0.0, 10.0)),
    "ndtri": (S.ndtri, (0.0, 1.0)),
    "chebyshev_w": (lambda x: S.chebyshev_polynomial_w(x, x * 3), (-2.0, 2.0)),
    "zeta": (lambda x: S.zeta(x + 1.5, x - 3), (-1.0, 8.0)),
    "legendre": (lambda x: S.legendre_polynomial_p(x, x * 3 + 4), (-1.0, 1.0)),
}


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize("name", list(LOWERED))
def test_kernels_compile_for_sm_90(name: str, tmp_path: Path) -> None:
    fn, (low, high) = LOWERED[name]
    x = _grid(low, high, [])[:64].reshape(8, 8)
    compile_module_ptx(from_torch(function_module(fn), (x,)).module, tmp_path, name)


@pytest.mark.parametrize("name", list(LOWERED))
def test_kernels_match_the_reference_on_cuda_sim(name: str) -> None:
    from fxdsl.runtime.cuda_sim import compiler

    if compiler() is None:
        pytest.skip("cuda-sim needs a C++ compiler")
    fn, (low, high) = LOWERED[name]
    x = _grid(low, high, [])[:64].reshape(8, 8)
    module = from_torch(function_module(fn), (x,)).module
    gots = run_on_cuda_sim(module, x.numpy())
    for got, want in zip(gots, run_reference(module, x.numpy()), strict=True):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)
