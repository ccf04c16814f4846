"""16-bit ops that the importer builds from several graph ops (a special
function's series) compute in f32 and are rounded once, as torch's kernels
are: their bf16/f16 results are as close to float64's as eager's, within
one ulp; rounded after every graph op they were percents off (lgamma, i0).
So do scatters that sum (accumulating `index_put`, `scatter_add`, a
scatter's mean), `hypot`, `log1p`/`expm1`, `logcumsumexp`'s scan, 3-d average pools (their
(H, W) plane) and `grid_sampler_3d` (coordinates and weights). The GEMMs of addmm, baddbmm and a strided transposed conv
(its phases) keep their product in f32 for the rest (scale, bias), so they
round once too."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.frontends.torch_export import from_torch  # noqa: E402
from fxdsl.testing.torch_models import function_module  # noqa: E402


def _positive(*shape: int) -> Any:
    return torch.rand(*shape) * 20 + 0.1


def _normal(*shape: int) -> Any:
    return torch.randn(*shape) * 4


_PICK = torch.Generator().manual_seed(1)
_ROWS, _COLS = torch.randint(0, 5, (2, 200), generator=_PICK)
"""200 positions of a 5x5 table: 8 updates on each, on average."""
_SCATTER_ROWS = torch.randint(0, 4, (30, 6), generator=_PICK)

CASES: dict[str, tuple[Callable[..., Any], tuple[Any, ...]]] = {
    "lgamma": (torch.lgamma, (_positive(256),)),
    "i0": (torch.i0, (_normal(256),)),
    "erfinv": (torch.erfinv, (torch.rand(256) * 1.98 - 0.99,)),
    "digamma": (torch.digamma, (_positive(256),)),
    "bilinear": (
        torch.nn.functional.bilinear,
        (_normal(8, 16), _normal(8, 16), _normal(4, 16, 16), _normal(4)),
    ),
    "baddbmm": (torch.baddbmm, (_normal(4, 5, 6), _normal(4, 5, 7), _normal(4, 7, 6))),
    "addmm": (
        lambda b, x, y: torch.addmm(b, x, y, beta=0.3, alpha=1.5),
        (_normal(5, 6), _normal(5, 7), _normal(7, 6)),
    ),
    # max * sqrt(1 + (min / max)^2): in f32 (per op, its gradient was ulps off)
    "hypot": (torch.hypot, (_normal(4096), _normal(4096))),
    # 3-d pooling in two 2-d stages: the plane in f32 (rounded, 16 ulps)
    "adaptive_avg_pool3d": (
        lambda x: torch.nn.functional.adaptive_avg_pool3d(x, (2, 3, 4)),
        (_normal(2, 3, 7, 7, 9),),
    ),
    # Goldberg's and Kahan's corrections need exact steps: in f32
    "log1p": (torch.log1p, (torch.rand(4096) * 1.2 - 0.6,)),
    "expm1": (torch.expm1, (torch.rand(4096) * 1.2 - 0.6,)),
    # trilinear sampling: coordinates and weights in f32
    "grid_sampler_3d": (
        lambda x, g: torch.nn.functional.grid_sample(x, g, align_corners=False),
        (_normal(1, 2, 12, 16, 20), torch.rand(1, 4, 5, 6, 3) * 2.2 - 1.1),
    ),
    # a scan of log-add-exps: each step in f32 (per step, ulps off)
    "logcumsumexp": (lambda x: torch.logcumsumexp(x, -1), (_normal(4, 256) + 30,)),
    # the updates summed with the table's value in f32, rounded once
    # (rounding their sum first was an ulp off where the total is exact)
    "index_put_accumulate": (
        lambda x, v: torch.index_put(x, (_ROWS, _COLS), v, accumulate=True),
        (_normal(5, 5), _normal(200)),
    ),
    "scatter_add": (
        lambda x, s: torch.scatter_add(x, 0, _SCATTER_ROWS, s),
        (_normal(4, 6), _normal(30, 6)),
    ),
    "scatter_reduce_mean": (
        lambda x, s: torch.scatter_reduce(x, 0, _SCATTER_ROWS, s, "mean"),
        (_normal(4, 6), _normal(30, 6)),
    ),
    "conv_transpose2d": (
        lambda x, w, b: torch.nn.functional.conv_transpose2d(x, w, b, stride=2),
        (_normal(1, 3, 5, 5), _normal(3, 2, 3, 3), _normal(2) * 8),
    ),
}

MANTISSA = {torch.bfloat16: 7, torch.float16: 10}
"""Stored fraction bits: one ulp at v is 2^(floor(log2 |v|) - these)."""


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_16_bit_composite_rounds_once(name: str, dtype: Any) -> None:
    """fxdsl's result is as close to the float64 one as eager's, within an
    ulp (eager's f16 conv_transpose is itself ulps off near 0)."""
    torch.manual_seed(0)
    fn, inputs = CASES[name]
    args = tuple(t.to(dtype) for t in inputs)
    want = fn(*args).double().numpy()
    exact = fn(*(t.double() for t in args)).numpy()
    (got,) = from_torch(function_module(fn), args).run(*args)
    got = np.asarray(got, np.float64)
    ulp = _ulp(exact, dtype)
    with np.errstate(invalid="ignore"):  # inf - inf where both overflow
        excess = np.abs(got - exact) - np.abs(want - exact)
    assert np.all((got == want) | (excess <= ulp))


def _ulp(exact: Any, dtype: Any) -> Any:
    """One ulp of `dtype` at each exact value (a floor: results near 0
    cancel)."""
    size = np.maximum(np.abs(exact), 2.0**-6)
    return 2.0 ** (np.floor(np.log2(size)) - MANTISSA[dtype])


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
@pytest.mark.parametrize("divisor", [None, 5])
def test_a_16_bit_3d_average_pool_rounds_once(dtype: Any, divisor: Any) -> None:
    """avg_pool3d pools (H, W) planes, then depth: the planes stay in f32,
    so the result is float64's rounded once (within an ulp). Eager's CPU
    kernel has no 16-bit avg_pool3d to compare with; its GPU one has."""
    torch.manual_seed(0)

    def fn(x: Any) -> Any:
        return torch.nn.functional.avg_pool3d(x, 3, 1, divisor_override=divisor)

    x = _normal(2, 3, 6, 6, 6).to(dtype)
    exact = fn(x.double()).numpy()
    (got,) = from_torch(function_module(fn), (x,)).run(x)
    excess = np.abs(np.asarray(got, np.float64) - exact)
    assert np.all(excess <= _ulp(exact, dtype))
