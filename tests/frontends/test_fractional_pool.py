"""Fractional max pooling (`aten_fractional_pool`): with given samples,
values and indices equal torch's exactly (NaNs, unbatched inputs, one
output per dim, 3-D), at both import levels and through the GPU pipeline
on the IR emulator; drawn by `F.fractional_max_pool2d` itself, through
`torch.compile`, each output is a maximum of a window of the input."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from fxdsl.testing.optional import need

torch = need("torch")

import torch.nn.functional as F  # noqa: E402

import fxdsl  # noqa: E402
from fxdsl.frontends.torch_export import from_torch  # noqa: E402
from fxdsl.lowering.pipeline import GPU_PIPELINE  # noqa: E402
from fxdsl.runtime.ir_emulator import Emulator  # noqa: E402
from fxdsl.testing.generation import recording_plans  # noqa: E402
from fxdsl.testing.torch_models import function_module  # noqa: E402

CASES = {
    "2d": ((2, 3, 11, 9), 3, (5, 4)),
    "2d-square-pool-2": ((1, 2, 9, 9), 2, (4, 4)),
    "2d-unbatched": ((3, 7, 8), 2, (3, 5)),
    "2d-one-output": ((2, 3, 9, 9), 3, (1, 2)),
    "3d": ((2, 2, 7, 8, 9), (2, 3, 2), (3, 4, 5)),
    "3d-unbatched": ((5, 6, 7, 5), (2, 3, 2), (1, 1, 3)),
}
"""Name -> (input shape, pool size, output size)."""


def _pool(name: str) -> tuple[Callable[..., Any], tuple[Any, Any]]:
    shape, pool, out = CASES[name]
    rank = len(out)
    generator = torch.Generator().manual_seed(len(name))
    x = torch.randn(*shape, generator=generator)
    x.view(-1)[5] = float("nan")  # a NaN takes its window over
    x.view(-1)[7] = x.view(-1)[8]  # a tie: the first index
    planes = shape[0] if len(shape) == rank + 2 else 1
    channels = shape[-rank - 1]
    samples = torch.rand(planes, channels, rank, generator=generator)
    pooling = F.fractional_max_pool2d if rank == 2 else F.fractional_max_pool3d

    def fn(x: Any, u: Any) -> Any:
        return pooling(x, pool, output_size=out, return_indices=True, _random_samples=u)

    return fn, (x, samples)


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
@pytest.mark.parametrize("name", list(CASES))
def test_given_samples_give_torchs_values_and_indices(
    name: str, decompose: bool
) -> None:
    fn, args = _pool(name)
    values, indices = from_torch(function_module(fn), args, decompose=decompose).run(
        *args
    )
    want_values, want_indices = fn(*args)
    np.testing.assert_array_equal(values, want_values.numpy())
    np.testing.assert_array_equal(indices, want_indices.numpy())


@pytest.mark.parametrize("name", ["2d", "3d"])
def test_gpu_pipeline_on_the_emulator(name: str) -> None:
    fn, args = _pool(name)
    program = from_torch(function_module(fn), args)
    lowered = fxdsl.apply(program.module.clone(), GPU_PIPELINE)
    values, indices = Emulator(lowered).run("forward", *(a.numpy() for a in args))
    want_values, want_indices = fn(*args)
    np.testing.assert_array_equal(values, want_values.numpy())
    np.testing.assert_array_equal(indices, want_indices.numpy())


def test_drawn_samples_through_the_backend(fresh_dynamo: Any) -> None:
    """The draw (`torch.rand` inside the functional) and the pool compile
    whole; each value is the input at its index (fresh samples each call:
    no value to compare with eager's)."""
    x = torch.randn(2, 3, 10, 10, generator=torch.Generator().manual_seed(0))

    def fn(x: Any) -> Any:
        return F.fractional_max_pool2d(
            x, 3, output_ratio=(0.5, 0.5), return_indices=True
        )

    plans: list[Any] = []
    with recording_plans(plans):
        values, indices = torch.compile(fn, backend="fxdsl")(x)
    assert values.shape == indices.shape == (2, 3, 5, 5)
    picked = torch.gather(x.flatten(2), 2, indices.flatten(2)).reshape(values.shape)
    torch.testing.assert_close(values, picked)
    (plan,) = plans
    assert plan.compiled == plan.total, plan.report()
