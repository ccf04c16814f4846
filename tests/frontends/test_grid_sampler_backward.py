"""The gradient of `F.grid_sample` on 4-D and 5-D inputs
(`aten_grid_sampler_backward`: the vector-Jacobian product of torch's
decomposition of the 2-D forward, and of fxdsl's own of the 3-D one): a
training step through `torch.compile(backend="fxdsl")` compiles every
operator and gives the gradients of the input and of the grid torch's
kernels give, in every interpolation and padding mode, with and without
`align_corners`."""

from __future__ import annotations

from typing import Any

import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.testing.hf_suite import Outcome, counting_plans  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_dynamo")
F = torch.nn.functional


def _gradients(loss: Any, *inputs: Any) -> tuple[list[Any], list[Any], Outcome]:
    loss(*inputs).backward()
    want = [t.grad for t in inputs]
    for t in inputs:
        t.grad = None
    outcome = Outcome()
    with counting_plans(outcome):
        torch.compile(loss, backend="fxdsl")(*inputs).backward()
    return want, [t.grad for t in inputs], outcome


SHAPES = {2: ((2, 3, 5, 6), (2, 4, 7, 2)), 3: ((2, 3, 4, 5, 6), (2, 3, 4, 5, 3))}
"""Spatial rank -> (input, grid) shapes: 4-D images, 5-D volumes."""


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize(
    ("rank", "mode"),
    [(2, "bilinear"), (2, "nearest"), (2, "bicubic"), (3, "bilinear"), (3, "nearest")],
)
def test_grid_sample_gradients(
    rank: int, mode: str, padding: str, align_corners: bool
) -> None:
    torch.manual_seed(0)
    shape, grid_shape = SHAPES[rank]
    image = torch.randn(*shape, requires_grad=True)
    # points past the edges too, where the padding mode decides
    grid = (torch.rand(*grid_shape) * 2.6 - 1.3).requires_grad_(True)
    weight = torch.linspace(0.5, 1.5, grid_shape[-2])

    def loss(image: Any, grid: Any) -> Any:
        out = F.grid_sample(
            image * 1.5,
            grid,
            mode=mode,
            padding_mode=padding,
            align_corners=align_corners,
        )
        return (out.tanh() * weight).sum()

    want, got, outcome = _gradients(loss, image, grid)
    for w, g in zip(want, got, strict=True):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)
    assert outcome.compiled == outcome.total, outcome.summary()
    if mode == "nearest":
        assert float(got[1].abs().sum()) == 0.0


def test_warp_by_predicted_flow_trains_whole() -> None:
    """Super SloMo's backwarp (`torchbench_models.flow_warp`): a conv
    predicts a flow, the image is sampled at the pixel grid plus the flow;
    the gradient reaches the conv through the grid only."""
    from fxdsl.testing.hf_suite import compile_and_check
    from fxdsl.testing.torchbench_models import flow_warp

    torch.manual_seed(0)
    outcome = compile_and_check(*flow_warp(), train=True)
    assert outcome.accurate
    assert outcome.compiled == outcome.total, outcome.summary()


def test_only_the_input_gradient_when_the_grid_is_fixed() -> None:
    torch.manual_seed(0)
    image = torch.randn(1, 2, 4, 4, requires_grad=True)
    grid = torch.rand(1, 3, 3, 2) * 2 - 1

    def loss(image: Any) -> Any:
        return F.grid_sample(image, grid, align_corners=False).square().sum()

    want, got, outcome = _gradients(loss, image)
    torch.testing.assert_close(got[0], want[0], rtol=1e-5, atol=1e-6)
    assert outcome.compiled == outcome.total, outcome.summary()


@pytest.mark.parametrize("padding", ["border", "reflection"])
def test_grid_sample_3d_border_has_no_grid_gradient(padding: str) -> None:
    """Points exactly on the faces and past them: torch's kernel counts a
    clipped coordinate's border as outside (no gradient to the grid),
    where `clamp`'s own gradient would pass."""
    volume = torch.arange(2 * 3 * 4 * 5, dtype=torch.float32).reshape(1, 2, 3, 4, 5)
    corners = torch.tensor([-1.0, 1.0, -1.5, 1.5, 0.25])
    grid = torch.stack(torch.meshgrid(corners, corners, corners, indexing="ij"), -1)
    grid = grid.reshape(1, 5, 5, 5, 3).requires_grad_(True)

    def loss(grid: Any) -> Any:
        out = F.grid_sample(volume, grid, padding_mode=padding, align_corners=True)
        return out.square().sum()

    want, got, outcome = _gradients(loss, grid)
    torch.testing.assert_close(got[0], want[0], rtol=1e-5, atol=1e-5)
    assert outcome.compiled == outcome.total, outcome.summary()
