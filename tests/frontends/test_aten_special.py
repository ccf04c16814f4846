"""The special functions of `fxdsl.frontends.aten_special` (erfinv, i0/i1
and their scaled forms, polygamma, nextafter, frexp, igamma/igammac): against known values,
against torch (in float64) on a dense grid with 0, the infinities, NaN, poles and
subnormals, at both IR levels; and their graph ops lowered to CUDA C (nvcc
accepts it, cuda-sim runs it and agrees with the reference)."""

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

from fxdsl.frontends.torch_export import from_torch  # noqa: E402
from fxdsl.interpreters.run import run_reference  # noqa: E402
from fxdsl.testing.kernel_checks import compile_module_ptx, run_on_cuda_sim  # noqa: E402
from fxdsl.testing.torch_models import function_module  # noqa: E402

EDGES = [0.0, -0.0, 1.0, -1.0, -2.0, 0.5, -0.5, 1e-30, -1e-30, 3.75, 15.0]
EDGES += [15.0001, 80.0, 100.0, -100.0, math.inf, -math.inf, math.nan]
EDGES += [1e-45, 3.4e38, -3.4e38, 2.0**-126, 1.5 * 2.0**-127]


def _grid(low: float, high: float) -> Any:
    """A seeded uniform sample of [low, high) and the edge cases."""
    generator = torch.Generator().manual_seed(0)
    inside = torch.rand(600, generator=generator) * (high - low) + low
    return torch.cat([inside, torch.tensor(EDGES)])


UNARY = {
    "erfinv": (torch.erfinv, (-1.0, 1.0)),
    "i0": (torch.i0, (-20.0, 20.0)),
    "special.i0e": (torch.special.i0e, (-20.0, 20.0)),
    "special.i1": (torch.special.i1, (-20.0, 20.0)),
    "special.i1e": (torch.special.i1e, (-20.0, 20.0)),
    "special.erfcx": (torch.special.erfcx, (-9.0, 30.0)),
    "special.log_ndtr": (torch.special.log_ndtr, (-30.0, 9.0)),
    "special.spherical_bessel_j0": (torch.special.spherical_bessel_j0, (-20.0, 20.0)),
    **{
        f"polygamma {n}": ((lambda x, n=n: torch.polygamma(n, x)), (-9.0, 9.0))
        for n in range(1, 6)
    },
}
RTOL = {name: 1e-5 for name in UNARY if name.startswith("polygamma")}
"""Near its poles polygamma is as exact as the float32 argument's nearness
to the pole allows."""
RTOL |= {"special.erfcx": 1e-5, "special.log_ndtr": 1e-5}
"""exp of a rounded x^2 (x = 9: 5e-6), as erfc's own."""


def _run(fn: Callable[..., Any], args: tuple[Any, ...], decompose: bool) -> Any:
    return from_torch(function_module(fn), args, decompose=decompose).run(*args)


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_special_functions_match_torch(name: str, decompose: bool) -> None:
    fn, (low, high) = UNARY[name]
    x = _grid(low, high)
    if name.startswith("polygamma"):  # poles: test_polygamma_poles_...
        x = x[(x > 0) | (x != torch.round(x))]
    (got,) = _run(fn, (x,), decompose)
    # torch in float64 is the oracle: its float32 trigamma rounds pi x
    # before its sine, 1e-4 off near the negative poles
    want = fn(x.double()).float().numpy()
    np.testing.assert_allclose(got, want, rtol=RTOL.get(name, 2e-6), atol=1e-30)


KNOWN = [
    (torch.erfinv, 0.5, 0.4769362762044699),
    (torch.erfinv, -1023 / 1024, -2.3314677736219477),
    (torch.i0, 1.0, 1.2660658777520082),
    (torch.i0, 20.0, 43558282.55955634),
    (torch.special.i1, -1.0, -0.5651591039924851),
    (torch.special.i0e, 50.0, 0.0565616266474542),
    (lambda x: torch.polygamma(1, x), 1.0, math.pi**2 / 6),
    (lambda x: torch.polygamma(2, x), 1.0, -2.4041138063191885),  # -2 zeta(3)
    (lambda x: torch.polygamma(1, x), -0.5, math.pi**2 / 2 + 4),  # psi1(1/2) + 4
]


@pytest.mark.parametrize(("fn", "x", "want"), KNOWN)
def test_known_values(fn: Callable[..., Any], x: float, want: float) -> None:
    (got,) = _run(fn, (torch.tensor([x]),), decompose=False)
    np.testing.assert_allclose(got, [want], rtol=1e-6)


def test_polygamma_poles_take_the_series_sign() -> None:
    """inf of sign (-1)^(n+1) at 0, -1, -7 (torch's float trigamma gives a
    large finite value at the negative integers, its rounded sin(pi x) not
    being 0 there); at the infinities, what torch gives."""
    poles = torch.tensor([0.0, -1.0, -7.0])
    for n in range(1, 6):
        fn = lambda t, n=n: torch.polygamma(n, t)
        (got,) = _run(fn, (poles,), decompose=False)
        np.testing.assert_array_equal(got, [(-1.0) ** (n + 1) * math.inf] * 3)
        ends = torch.tensor([math.inf, -math.inf])
        (got,) = _run(fn, (ends,), decompose=False)
        np.testing.assert_array_equal(got, fn(ends).numpy())


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
def test_frexp_is_exact(decompose: bool) -> None:
    x = _grid(-9.0, 9.0)
    mantissa, exponent = _run(torch.frexp, (x,), decompose)
    want = torch.frexp(x)
    np.testing.assert_array_equal(mantissa, want.mantissa.numpy())
    np.testing.assert_array_equal(exponent, want.exponent.numpy())
    assert exponent.dtype == np.int32


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
def test_nextafter_is_exact(decompose: bool) -> None:
    x, y = _grid(-9.0, 9.0), torch.flip(_grid(-9.0, 9.0), [0])
    # toward each other's sign, toward zero from powers of two, from zero
    x = torch.cat([x, torch.tensor([1.0, 2.0, -0.5, 0.0, 0.0, 3.4e38, 1e-45])])
    y = torch.cat([y, torch.tensor([2.0, 0.0, 0.0, -1.0, 0.0, math.inf, 0.0])])
    (got,) = _run(torch.nextafter, (x, y), decompose)
    np.testing.assert_array_equal(got, torch.nextafter(x, y).numpy())


def _gamma_arguments() -> tuple[Any, Any]:
    """(a, x): small and large a, x near a (the uniform expansion's band),
    tiny a and x (Q's own series), and the edges torch defines."""
    generator = torch.Generator().manual_seed(1)

    def uniform(n: int, high: float) -> Any:
        return torch.rand(n, generator=generator) * high

    a = torch.cat([uniform(300, 10), uniform(200, 100), uniform(100, 1000)])
    a = torch.cat([a, 10 ** (torch.rand(100, generator=generator) * 6 - 3)])
    spread = 0.5 + torch.rand(300, generator=generator)
    x = torch.cat([uniform(300, 12), a[300:600] * spread, a[600:] ** 1.1])
    edges = [(0.0, 0.0), (0.0, 1.0), (0.0, math.inf), (1.0, 0.0), (1.0, math.inf)]
    edges += [(-1.0, 1.0), (1.0, -1.0), (math.inf, 1.0), (math.inf, math.inf)]
    edges += [(1.0, math.nan), (math.nan, 1.0), (2.0, 1e-40), (1e6, 1.001e6)]
    edges += [(1e-3, 0.5), (50.0, 50.0), (51.0, 51.0), (0.2, 1.5), (0.5, 1.2)]
    a = torch.cat([a, torch.tensor([e[0] for e in edges])])
    x = torch.cat([x, torch.tensor([e[1] for e in edges])])
    return a, x


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
@pytest.mark.parametrize("fn", [torch.igamma, torch.igammac])
def test_incomplete_gamma_matches_torch(fn: Any, decompose: bool) -> None:
    """Within 1e-5 (relative) of torch in float64 everywhere; Q where it is
    small and x <= 3/2 is its own series, not 1 - P."""
    a, x = _gamma_arguments()
    (got,) = _run(fn, (a, x), decompose)
    want = fn(a.double(), x.double()).float().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


LOWERED = {
    "erfinv": (torch.erfinv, (-1.0, 1.0)),
    "i0": (torch.i0, (-20.0, 20.0)),
    "polygamma": (lambda x: torch.polygamma(3, x), (-9.0, 9.0)),
    "frexp": (torch.frexp, (-9.0, 9.0)),
    "nextafter": (lambda x: torch.nextafter(x, -x), (-9.0, 9.0)),
    "igammac": (lambda x: torch.igammac(x * x, x + 1), (0.0, 12.0)),
}


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize("name", list(LOWERED))
def test_kernels_compile_for_sm_90(name: str, tmp_path: Path) -> None:
    fn, (low, high) = LOWERED[name]
    x = _grid(low, high)[:64].reshape(8, 8)
    module = from_torch(function_module(fn), (x,)).module
    compile_module_ptx(module, tmp_path, name)


@pytest.mark.parametrize("name", list(LOWERED))
def test_kernels_match_the_reference_on_cuda_sim(name: str) -> None:
    from fxdsl.runtime.cuda_sim import compiler

    if compiler() is None:
        pytest.skip("cuda-sim needs a C++ compiler")
    fn, (low, high) = LOWERED[name]
    x = _grid(low, high)[:64].reshape(8, 8)
    module = from_torch(function_module(fn), (x,)).module
    gots = run_on_cuda_sim(module, x.numpy())
    wants = run_reference(module, x.numpy())
    for got, want in zip(gots, wants, strict=True):
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-30)


@pytest.mark.parametrize(
    "fn", [torch.erfinv, torch.i0, torch.lgamma, lambda x: torch.polygamma(2, x)]
)
def test_float64_is_refused_where_the_series_are_sized_for_float32(
    fn: Callable[..., Any],
) -> None:
    from fxdsl.frontends.torch_export import TorchImportError

    with pytest.raises(TorchImportError, match="on f64: its composite is accurate"):
        _run(fn, (torch.rand(4, dtype=torch.float64),), decompose=False)


def test_frexp_and_nextafter_are_exact_in_float64() -> None:
    x = _grid(-9.0, 9.0).double() / 3
    mantissa, exponent = _run(torch.frexp, (x,), decompose=False)
    np.testing.assert_array_equal(mantissa, torch.frexp(x).mantissa.numpy())
    np.testing.assert_array_equal(exponent, torch.frexp(x).exponent.numpy())
    (got,) = _run(torch.nextafter, (x, -x), decompose=False)
    np.testing.assert_array_equal(got, torch.nextafter(x, -x).numpy())


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
def test_frexp_and_nextafter_are_exact_in_16_bits(dtype: Any) -> None:
    """Their steps are exact in the 16-bit type itself (powers of two,
    integers below 256): bf16 and f16 values equal torch's, bit for bit,
    subnormals, the largest value and the infinities included."""
    tiny = 2.0**-133 if dtype == torch.bfloat16 else 2.0**-24
    edges = [1.0, 2.0, -0.5, 0.0, tiny, 3 * tiny, torch.finfo(dtype).max, math.inf]
    x = torch.cat([_grid(-9.0, 9.0), torch.tensor(edges)]).to(dtype)
    y = torch.cat([torch.flip(_grid(-9.0, 9.0), [0]), torch.zeros(len(edges))])
    y = y.to(dtype)
    mantissa, exponent = _run(torch.frexp, (x,), decompose=False)
    want = torch.frexp(x)
    np.testing.assert_array_equal(mantissa, want.mantissa.float().numpy())
    np.testing.assert_array_equal(exponent, want.exponent.numpy())
    (got,) = _run(torch.nextafter, (x, y), decompose=False)
    np.testing.assert_array_equal(got, torch.nextafter(x, y).float().numpy())
