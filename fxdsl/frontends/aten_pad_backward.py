"""ATen handlers: the gradient of replication padding
(`replication_pad1d/2d/3d_backward`), for training nets that pad by
repeating the border (`nn.ReplicationPad*d`, `F.pad(mode="replicate")`).

The forward reads input position `clamp(j - before, 0, n - 1)` for output
position `j`, one dim at a time, so the gradient is separable: along each
padded dim, the first input position gets the sum of the output's gradient
over the left border and itself, the last over itself and the right border,
and each position between gets its one output's (a shifted slice). A
negative padding crops: the cropped positions get zeros. 16-bit gradients
are summed in f32 and rounded once.
"""

from __future__ import annotations

from fxdsl.frontends.aten_registry import AtenCall, aten, cast_to, in_f32
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor


def _summed(grad: Tensor, dim: int, start: int, limit: int) -> Tensor:
    """The sum of grad over [start, limit) along `dim` (zeros if empty),
    the dim kept with size 1."""
    start, limit = max(start, 0), min(limit, grad.shape[dim])
    if start >= limit:
        shape = [1 if d == dim else int(n) for d, n in enumerate(grad.shape)]
        return ops.full(shape, 0.0, grad.dtype)
    starts = [start if d == dim else 0 for d in range(grad.ndim)]
    limits = [limit if d == dim else int(n) for d, n in enumerate(grad.shape)]
    return ops.sum(ops.slice(grad, starts, limits), [dim], keepdim=True)


def replicated_backward(grad: Tensor, dim: int, size: int, before: int) -> Tensor:
    """The gradient along `dim` of an input of `size` padded by repetition,
    `before` positions on the left (the right padding is what remains)."""
    total = grad.shape[dim]
    if size == 1:
        return _summed(grad, dim, 0, total)
    parts = [_summed(grad, dim, 0, before + 1)]
    if size > 2:  # position i in 1 .. size - 2 reads output i + before
        parts.extend(_shifted(grad, dim, 1 + before, size - 1 + before))
    parts.append(_summed(grad, dim, size - 1 + before, total))
    return ops.concat(parts, dim)


def _shifted(grad: Tensor, dim: int, start: int, limit: int) -> list[Tensor]:
    """grad over [start, limit) along `dim`, zeros where that range leaves
    grad (a cropping padding: the output starts after it, or ends before)."""
    total = grad.shape[dim]
    first, last = min(max(start, 0), limit), max(min(limit, total), start)
    parts = [_zeros(grad, dim, first - start)]
    if first < last:
        starts = [first if d == dim else 0 for d in range(grad.ndim)]
        limits = [last if d == dim else int(n) for d, n in enumerate(grad.shape)]
        parts.append(ops.slice(grad, starts, limits))
    parts.append(_zeros(grad, dim, limit - max(last, first)))
    return [p for p in parts if p is not None]


def _zeros(grad: Tensor, dim: int, count: int) -> Tensor | None:
    if count <= 0:
        return None
    shape = [count if d == dim else int(n) for d, n in enumerate(grad.shape)]
    return ops.full(shape, 0.0, grad.dtype)


@aten(
    "replication_pad1d_backward.default",
    "replication_pad2d_backward.default",
    "replication_pad3d_backward.default",
)
def _replication_pad_backward(call: AtenCall) -> Tensor:
    grad, x, padding = call.args[:3]
    grad = in_f32(grad)
    # padding lists (before, after) pairs from the last dim backwards
    for k in range(len(padding) // 2):
        dim = x.ndim - 1 - k
        grad = replicated_backward(grad, dim, int(x.shape[dim]), int(padding[2 * k]))
    return cast_to(grad, call.dtype)
