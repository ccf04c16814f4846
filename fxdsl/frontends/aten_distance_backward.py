"""The gradients of `torch.cdist` and `F.pdist` (`_cdist_backward`,
`_pdist_backward`: metric learning, nearest-neighbour losses) for
`aten_decompositions.OWN`, in torch ops, as torch's CPU kernels compute
them. torch offers no decomposition of either.

For a pair of rows at distance `d = ||x - y||_p` with `diff = x - y`, the
gradient of `d` with respect to `x` is, per p:

* 0: zero;
* 1: `sign(diff)`;
* p < 2: `sign(diff) |diff|^(p-1) / d^(p-1)`, zero where `d` is 0 (and,
  for p < 1, where `diff` is 0);
* 2: `diff / d`, zero where `d` is 0;
* p > 2: `diff |diff|^(p-2) / d^(p-1)`, zero where `d` is 0;
* inf: `sign(diff)` where `|diff|` equals `d` (every tied coordinate),
  else zero.

`_cdist_backward` sums `grad * that` over the rows of `x2`;
`_pdist_backward` adds it to the first row of each pair and subtracts it
from the second (pairs `i < j` in row-major order, as `pdist` lists them).
"""

from __future__ import annotations

import math
from typing import Any


def _partial(diff: Any, dist: Any, p: float) -> Any:
    """d dist / d x for `diff = x - y` (broadcast against `dist`, its last
    dim the coordinates), by the rules of the module docstring."""
    import torch

    zero = torch.zeros_like(diff)
    dist = dist.unsqueeze(-1)
    if p == 0:
        return zero
    if p == 1:
        return torch.sign(diff)
    if math.isinf(p):
        return torch.where(diff.abs() == dist, torch.sign(diff), zero)
    if p == 2:
        return torch.where(dist == 0, zero, diff / dist)
    if p < 2:
        value = torch.sign(diff) * diff.abs().pow(p - 1) / dist.pow(p - 1)
        dead = (dist == 0) | ((diff == 0) & (p < 1))
        return torch.where(dead, zero, value)
    value = diff * diff.abs().pow(p - 2) / dist.pow(p - 1)
    return torch.where(dist == 0, zero, value)


def _cdist_backward(grad: Any, x1: Any, x2: Any, p: float, cdist: Any) -> Any:
    """The gradient of `cdist(x1, x2, p)` with respect to `x1`: (..., R, M)
    over the broadcast batch dims; with no pairs at all, zeros of `x1`'s
    own shape, as torch's kernel returns."""
    import torch

    if x1.numel() == 0 or x2.numel() == 0:
        return torch.zeros_like(x1)
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)  # (..., R, S, M)
    return (grad.unsqueeze(-1) * _partial(diff, cdist, p)).sum(-2)


def _pdist_backward(grad: Any, x: Any, p: float, pdist: Any) -> Any:
    """The gradient of `pdist(x, p)` with respect to `x` (N, M)."""
    import torch

    first, second = torch.triu_indices(x.shape[0], x.shape[0], 1, device=x.device)
    diff = x[first] - x[second]  # (pairs, M)
    share = grad.unsqueeze(-1) * _partial(diff, pdist, p)
    gradient = torch.zeros_like(x).index_add(0, first, share)
    return gradient.index_add(0, second, -share)


DECOMPOSITIONS = {
    "aten._cdist_backward.default": _cdist_backward,
    "aten._pdist_backward.default": _pdist_backward,
}
