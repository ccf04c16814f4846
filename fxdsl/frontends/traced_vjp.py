"""Gradients inside a decomposition (for `aten_decompositions.OWN`): an op
whose backward torch gives no decomposition of, or one that computes its
own gradients in the forward, is traced as autograd's vector-Jacobian
product of a torch function that `make_fx` records along with it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


def traced_vjp(
    fn: Callable[..., Any],
    inputs: Sequence[Any],
    asked: Sequence[bool],
    grad_output: Any = None,
) -> tuple[Any, list[Any]]:
    """`fn(*inputs)` and the gradient of it (weighted by `grad_output`; a
    scalar output by default) with respect to each input `asked` for:
    zeros where the output does not depend on it, None where not asked
    (and for a None input). The output comes back detached."""
    import torch

    with torch.enable_grad():
        leaves = [
            None if t is None else t.detach().requires_grad_(bool(flag))
            for t, flag in zip(inputs, asked, strict=True)
        ]
        output = fn(*leaves)
        wanted = [t for t in leaves if t is not None and t.requires_grad]
        found = (
            torch.autograd.grad(output, wanted, grad_output, allow_unused=True)
            if wanted
            else ()
        )
    grads = iter(
        torch.zeros_like(t) if g is None else g
        for g, t in zip(found, wanted, strict=True)
    )
    return output.detach(), [
        next(grads) if t is not None and t.requires_grad else None for t in leaves
    ]
