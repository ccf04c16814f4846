"""`grid_sampler_2d_backward` (the gradient of `F.grid_sample` on 4-D
inputs: optical-flow warps, spatial transformers, Super SloMo) for
`aten_decompositions.OWN`, as the vector-Jacobian product of torch's own
decomposition of the forward, `grid_sampler_2d`: the traced decomposition
is differentiated by autograd while `make_fx` records it, so the backward
is a graph of gathers, `index_put` accumulations and arithmetic that
follows every interpolation mode (bilinear, nearest, bicubic), padding
mode (zeros, border, reflection) and `align_corners` exactly as the
forward does. torch has no decomposition of the backward itself, and its
kernel is one op the importer could not take, which left a training
step's backward split around it.

Nearest sampling does not depend on the grid's values: its gradient is
zeros, as torch's kernel gives.
"""

from __future__ import annotations

from typing import Any

from fxdsl.frontends.traced_vjp import traced_vjp


def _grid_sampler_2d_backward(
    grad_output: Any,
    input: Any,
    grid: Any,
    interpolation_mode: int,
    padding_mode: int,
    align_corners: bool,
    output_mask: list[bool],
) -> tuple[Any, Any]:
    import torch
    from torch._decomp import decomposition_table

    forward = decomposition_table[torch.ops.aten.grid_sampler_2d.default]

    def sample(x: Any, g: Any) -> Any:
        return forward(x, g, interpolation_mode, padding_mode, align_corners)

    _, grads = traced_vjp(sample, (input, grid), output_mask, grad_output)
    return grads[0], grads[1]


DECOMPOSITIONS = {
    "aten.grid_sampler_2d_backward.default": _grid_sampler_2d_backward,
}
