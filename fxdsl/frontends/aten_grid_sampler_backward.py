"""`grid_sampler_2d_backward` and `grid_sampler_3d_backward` (the
gradients of `F.grid_sample` on 4-D inputs: optical-flow warps, spatial
transformers, Super SloMo; and on 5-D volumes) for
`aten_decompositions.OWN`, as vector-Jacobian products of the forward
written in torch ops.

2-D: torch's own decomposition of `grid_sampler_2d`; the traced decomposition
is differentiated by autograd while `make_fx` records it, so the backward
is a graph of gathers, `index_put` accumulations and arithmetic that
follows every interpolation mode (bilinear, nearest, bicubic), padding
mode (zeros, border, reflection) and `align_corners` exactly as the
forward does. torch has no decomposition of the backward itself, and its
kernel is one op the importer could not take, which left a training
step's backward split around it.

3-D: torch has no decomposition of `grid_sampler_3d`, so `_sample_3d`
writes it, as its CPU kernel computes (and as fxdsl's mapping of the
forward, `aten_resample`, does): the grid's (x, y, z) unnormalized onto
(W, H, D), reflected and clipped as padding asks, then trilinear weights
over the 8 corners (or the nearest voxel, ties to even) read from the
flattened volume, corners outside reading zero (16-bit inputs: in f32).
Where padding clips a coordinate, the kernel counts the border itself as
outside (no gradient to the grid there); `_clip` does the same, where
`torch.clamp` would pass the gradient through at the border. The input's
gradient is a `graph.index_add`, within its `INDEX_ADD_LIMIT` (larger
volumes and grids leave the backward to torch).

Nearest sampling does not depend on the grid's values: its gradient is
zeros, as torch's kernel gives.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

from fxdsl.frontends.aten_ops import UnsupportedNode
from fxdsl.frontends.traced_vjp import traced_vjp


def _backward_of(forward: Callable[..., Any]) -> Callable[..., tuple[Any, Any]]:
    """A `grid_sampler_*_backward` as the VJP of `forward(input, grid,
    interpolation_mode, padding_mode, align_corners)`."""

    def backward(
        grad_output: Any,
        input: Any,
        grid: Any,
        interpolation_mode: int,
        padding_mode: int,
        align_corners: bool,
        output_mask: list[bool],
    ) -> tuple[Any, Any]:
        def sample(x: Any, g: Any) -> Any:
            return forward(x, g, interpolation_mode, padding_mode, align_corners)

        _, grads = traced_vjp(sample, (input, grid), output_mask, grad_output)
        return grads[0], grads[1]

    return backward


def _sample_2d(*args: Any) -> Any:
    """torch's own decomposition of grid_sampler_2d."""
    import torch
    from torch._decomp import decomposition_table

    return decomposition_table[torch.ops.aten.grid_sampler_2d.default](*args)


def _sample_3d(
    x: Any, grid: Any, mode: int, padding_mode: int, align_corners: bool
) -> Any:
    """grid_sampler_3d: x (N, C, D, H, W) at grid (N, OD, OH, OW, 3)."""
    import torch

    if mode not in (0, 1) or padding_mode not in (0, 1, 2):
        raise UnsupportedNode(
            f"grid_sampler_3d's gradient with interpolation mode {mode} or "
            f"padding mode {padding_mode}"
        )
    dtype = x.dtype
    if dtype in (torch.bfloat16, torch.float16):  # coordinates in f32
        x, grid = x.float(), grid.float()
    n, c, *sizes = x.shape
    points = grid.reshape(n, 1, -1, 3)
    # the grid's last dim is (x, y, z): W, H, D, the sizes reversed
    coords = [
        _source(points[..., 2 - axis], size, padding_mode, align_corners)
        for axis, size in enumerate(sizes)
    ]
    if mode == 1:
        result = _corner(x, [torch.round(t) for t in coords], sizes)
    else:
        lows = [torch.floor(t) for t in coords]
        fractions = [t - low for t, low in zip(coords, lows, strict=True)]
        result = 0
        for corner in itertools.product((0, 1), repeat=3):
            weight = math.prod(
                f if far else 1 - f for f, far in zip(fractions, corner, strict=True)
            )
            at = [low + far for low, far in zip(lows, corner, strict=True)]
            result = result + _corner(x, at, sizes) * weight
    return result.reshape(n, c, *grid.shape[1:4]).to(dtype)


def _source(coord: Any, size: int, padding_mode: int, align_corners: bool) -> Any:
    """A grid coordinate in [-1, 1] as a position along a dim of `size`."""
    if align_corners:
        coord = (coord + 1) / 2 * (size - 1)
    else:
        coord = ((coord + 1) * size - 1) / 2
    if padding_mode == 2:
        bounds = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        coord = _reflect(coord, *bounds)
    return coord if padding_mode == 0 else _clip(coord, size)


def _reflect(coord: Any, twice_low: int, twice_high: int) -> Any:
    """`coord` mirrored at the bounds until it lies between them."""
    import torch

    if twice_low == twice_high:
        return torch.zeros_like(coord)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    distance = (coord - low).abs()
    extra = torch.fmod(distance, span)
    even = torch.floor(distance / span).remainder(2) == 0
    return torch.where(even, extra + low, span - extra + low)


def _clip(coord: Any, size: int) -> Any:
    """`coord` clamped to [0, size - 1], its gradient zero at the borders."""
    import torch

    inside = (coord > 0) & (coord < size - 1)
    return torch.where(inside, coord, coord.detach().clamp(0, size - 1))


def _corner(x: Any, positions: list[Any], sizes: list[int]) -> Any:
    """x (N, C, D, H, W) at the integral float `positions` (z, y, x; each
    (N, 1, P)), (N, C, P); zero where one lies outside. One flat index into
    the flattened volume, whose gradient is an accumulating `index_put` of
    one index: `graph.index_add` (a `gather`'s would be a `scatter_add`
    over every (point, voxel) pair)."""
    import torch

    inside = math.prod(
        (p >= 0) & (p <= size - 1) for p, size in zip(positions, sizes, strict=True)
    ).bool()
    n, c = x.shape[:2]
    plane = math.prod(sizes)
    index = torch.arange(n * c, device=x.device).reshape(n, c, 1) * plane
    for position, _, step in zip(
        positions, sizes, (sizes[1] * sizes[2], sizes[2], 1), strict=True
    ):
        index = index + torch.where(inside, position, 0).long() * step
    return torch.where(inside, x.reshape(-1)[index], 0)


DECOMPOSITIONS = {
    "aten.grid_sampler_2d_backward.default": _backward_of(_sample_2d),
    "aten.grid_sampler_3d_backward.default": _backward_of(_sample_3d),
}
