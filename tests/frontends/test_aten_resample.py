"""The importer's resampling (`fxdsl.frontends.aten_resample`): antialiased
bilinear resizing (constant weight matrices, two matmuls) and 3-D grid
sampling (gathers at the grid's corners), each against torch eager at both
IR levels, over every mode torch offers for them.

torch is the `fxdsl[torch]` extra: skipped where missing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.frontends.aten_resample import antialias_weights  # noqa: E402
from fxdsl.frontends.torch_export import from_torch  # noqa: E402
from fxdsl.ir import graph  # noqa: E402

F = torch.nn.functional
LEVELS = ("default", "core")


class _Call(torch.nn.Module):
    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: Any) -> Any:
        return self.fn(*args)


def _check(fn: Callable[..., Any], args: tuple[Any, ...], level: str) -> Any:
    program = from_torch(_Call(fn).eval(), args, decompose=level == "core")
    (got,) = program.run(*args)
    want = fn(*args).numpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    return program


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize(
    "resize",
    [{"size": (4, 5)}, {"size": (13, 3)}, {"size": (1, 1)}, {"scale_factor": 0.3}],
)
def test_antialiased_bilinear_resize(
    resize: dict[str, Any], align_corners: bool, level: str
) -> None:
    def fn(x: Any) -> Any:
        return F.interpolate(
            x, mode="bilinear", antialias=True, align_corners=align_corners, **resize
        )

    x = torch.randn(2, 3, 9, 11, generator=torch.Generator().manual_seed(0))
    program = _check(fn, (x,), level)
    matmuls = [op for op in program.module.walk() if isinstance(op, graph.MatmulOp)]
    assert len(matmuls) == 2


def test_antialias_weights_average_when_shrinking() -> None:
    """Halving a dim: each output averages a window four inputs wide (the
    triangle stretched by 2), weights summing to one."""
    weights = antialias_weights(8, 4, False, None)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(weights[1, 1:5], [0.125, 0.375, 0.375, 0.125])


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sample_3d(
    mode: str, padding_mode: str, align_corners: bool, level: str
) -> None:
    """Grid points up to half the input outside it: every padding mode
    matters."""

    def fn(x: Any, grid: Any) -> Any:
        return F.grid_sample(
            x, grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners
        )

    generator = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, 4, 5, 6, generator=generator)
    grid = torch.rand(2, 3, 2, 4, 3, generator=generator) * 3 - 1.5
    _check(fn, (x, grid), level)
