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
    with torch.enable_grad():
        wanted = [
            t.detach().requires_grad_(True)
            for t, asked in zip((input, grid), output_mask, strict=True)
            if asked
        ]
        leaves = iter(wanted)
        x, g = (
            next(leaves) if asked else t
            for t, asked in zip((input, grid), output_mask, strict=True)
        )
        out = forward(x, g, interpolation_mode, padding_mode, align_corners)
        grads = torch.autograd.grad(out, wanted, grad_output, allow_unused=True)
    found = iter(
        torch.zeros_like(t) if d is None else d
        for d, t in zip(grads, wanted, strict=True)
    )
    return tuple(next(found) if asked else None for asked in output_mask)  # type: ignore[return-value]


DECOMPOSITIONS = {
    "aten.grid_sampler_2d_backward.default": _grid_sampler_2d_backward,
}
